//! GJK: distance and closest points between two convex support maps, with a warm-start cache;
//! and the GJK ray cast.
//!
//! The iteration is van den Bergen's ("A fast and robust GJK implementation for collision
//! detection of convex objects", 1999): `v` is the point of the current simplex closest to the
//! origin, the next vertex is the support point of `A - B` along `-v`, and the loop stops when
//! `|v|² - v·w` (which bounds `|v| (|v| - dist)` from above) falls below a relative tolerance.
//! The closest point of a simplex is a Voronoi-region walk (segment, triangle) and an orientation
//! test for the tetrahedron.

use glam::Vec3A;

use crate::shape::SupportMap;

/// Iteration cap of the GJK loops (the loops converge in far fewer steps for the shapes here).
const MAX_ITERATIONS: usize = 256;

/// Relative tolerance of the GJK stopping test `|v|² - v·w ≤ GJK_RELATIVE |v|²`.
const GJK_RELATIVE: f32 = 1e-6;

/// The rounding noise of the computed `|v|² - v·w`, as a multiple of `|v| |w|`: eight ulps of 1
/// (each of the two dot products carries a few ulps of `|v| |w|`).
const NOISE_ULPS: f32 = 8.0 * f32::EPSILON;

/// A caller-owned GJK warm start for one pair of shapes: the search directions of the last
/// simplex. Any content is valid (only the number of iterations depends on it); a default cache
/// is empty.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GjkCache {
    dirs: [Vec3A; 4],
    len: u8,
}

impl GjkCache {
    /// Forgets the warm start.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Whether the cache holds a warm start.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A vertex of the Minkowski difference `A - B`: `w = a - b` with `a = support_A(dir)` and
/// `b = support_B(-dir)`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Vertex {
    pub w: Vec3A,
    pub a: Vec3A,
    pub dir: Vec3A,
}

impl Vertex {
    #[inline]
    pub fn b(&self) -> Vec3A {
        self.a - self.w
    }
}

#[inline]
pub(crate) fn support_vertex(a: &impl SupportMap, b: &impl SupportMap, dir: Vec3A) -> Vertex {
    let pa = a.support(dir);
    let pb = b.support(-dir);
    Vertex { w: pa - pb, a: pa, dir }
}

/// A simplex of 1 to 4 vertices with the barycentric weights of its closest point to the origin.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Simplex {
    pub v: [Vertex; 4],
    pub weights: [f32; 4],
    pub len: usize,
}

impl Simplex {
    /// `Σ λᵢ aᵢ` and `Σ λᵢ bᵢ`: the witness points of the closest point.
    pub fn witnesses(&self) -> (Vec3A, Vec3A) {
        let mut pa = Vec3A::ZERO;
        let mut pb = Vec3A::ZERO;
        for i in 0..self.len {
            pa += self.v[i].a * self.weights[i];
            pb += self.v[i].b() * self.weights[i];
        }
        (pa, pb)
    }

    /// Replaces the simplex by the smallest face holding its point closest to the origin and
    /// returns that point. `None` when the origin is inside a full-dimensional tetrahedron.
    pub fn solve(&mut self) -> Option<Vec3A> {
        let p = [self.v[0].w, self.v[1].w, self.v[2].w, self.v[3].w];
        let (point, weights) = match self.len {
            1 => (p[0], [1.0, 0.0, 0.0, 0.0]),
            2 => {
                let (q, [u, v]) = closest_on_segment(p[0], p[1]);
                (q, [u, v, 0.0, 0.0])
            }
            3 => {
                let (q, [u, v, w]) = closest_on_triangle(p[0], p[1], p[2]);
                (q, [u, v, w, 0.0])
            }
            _ => match closest_on_tetrahedron(p) {
                Ok(found) => found,
                Err(weights) => {
                    self.weights = weights;
                    return None;
                }
            },
        };
        // Keep the vertices with positive weight, in order (in place: a kept vertex only moves
        // down).
        let mut len = 0;
        for (i, &w) in weights.iter().enumerate().take(self.len) {
            if w > 0.0 {
                self.v[len] = self.v[i];
                self.weights[len] = w;
                len += 1;
            }
        }
        if len == 0 {
            // Only for NaN input: keep the newest vertex.
            self.v[0] = self.v[self.len - 1];
            self.weights[0] = 1.0;
            len = 1;
        }
        self.len = len;
        Some(point)
    }
}

/// The point of segment `a b` closest to the origin, with its barycentric weights.
#[inline]
fn closest_on_segment(a: Vec3A, b: Vec3A) -> (Vec3A, [f32; 2]) {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 { (-a.dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    if t >= 1.0 { (b, [0.0, 1.0]) } else { (a + ab * t, [1.0 - t, t]) }
}

/// The point of triangle `a b c` closest to the origin, with its barycentric weights (zero for
/// the vertices of the region it is not in): Ericson's Voronoi-region walk (*Real-Time Collision
/// Detection*, §5.1.5) with the query point at the origin. A zero-area triangle is its edges.
#[inline]
fn closest_on_triangle(a: Vec3A, b: Vec3A, c: Vec3A) -> (Vec3A, [f32; 3]) {
    let (ab, ac) = (b - a, c - a);
    let (d1, d2) = (-ab.dot(a), -ac.dot(a));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, [1.0, 0.0, 0.0]);
    }
    let (d3, d4) = (-ab.dot(b), -ac.dot(b));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, [0.0, 1.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = if d1 - d3 > 0.0 { d1 / (d1 - d3) } else { 0.0 };
        return (a + ab * v, [1.0 - v, v, 0.0]);
    }
    let (d5, d6) = (-ab.dot(c), -ac.dot(c));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, [0.0, 0.0, 1.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = if d2 - d6 > 0.0 { d2 / (d2 - d6) } else { 0.0 };
        return (a + ac * w, [1.0 - w, 0.0, w]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let den = (d4 - d3) + (d5 - d6);
        let w = if den > 0.0 { (d4 - d3) / den } else { 0.0 };
        return (b + (c - b) * w, [0.0, 1.0 - w, w]);
    }
    let sum = va + vb + vc;
    // `sum = |ab × ac|²`; the products above carry errors of order `ε |ab|² |ac|²`, so the
    // weights are good to `ε / sin²(angle at a)`: used when that angle is over about 6°.
    if sum > 1e-2 * ab.length_squared() * ac.length_squared() {
        let inv = 1.0 / sum;
        let (v, w) = (vb * inv, vc * inv);
        let n = ab.cross(ac);
        return (n * (n.dot(a) * inv), [1.0 - v - w, v, w]);
    }
    if sum > 0.0 {
        // A sliver face: the origin's projection on the plane and its barycentric weights in f64
        // (GJK builds slivers near convergence on curved shapes).
        let (a, b, c) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
        let n = (b - a).cross(c - a);
        let nn = n.length_squared();
        let q = n * (n.dot(a) / nn);
        let u = n.dot((b - q).cross(c - q)) / nn;
        let v = n.dot((c - q).cross(a - q)) / nn;
        let w = 1.0 - u - v;
        if u >= 0.0 && v >= 0.0 && w >= 0.0 {
            return (q.as_vec3().into(), [u as f32, v as f32, w as f32]);
        }
    }
    // A zero-area triangle, or a sliver whose face test rounding got wrong: the best edge.
    let (e0, [u0, v0]) = closest_on_segment(a, b);
    let (e1, [u1, v1]) = closest_on_segment(b, c);
    let (e2, [u2, v2]) = closest_on_segment(c, a);
    let (l0, l1, l2) = (e0.length_squared(), e1.length_squared(), e2.length_squared());
    if l0 <= l1 && l0 <= l2 {
        (e0, [u0, v0, 0.0])
    } else if l1 <= l2 {
        (e1, [0.0, u1, v1])
    } else {
        (e2, [v2, 0.0, u2])
    }
}

/// The point of a tetrahedron closest to the origin with its weights, or `Err(weights)` (the
/// origin's barycentric coordinates) when the origin is inside. The origin is inside when it is
/// on the inner side of (or on) every face plane; otherwise the closest point is on one of the
/// faces it is in front of (all faces are tried for a nearly flat tetrahedron).
fn closest_on_tetrahedron(p: [Vec3A; 4]) -> Result<(Vec3A, [f32; 4]), [f32; 4]> {
    const FACES: [([usize; 3], usize); 4] = [([0, 1, 2], 3), ([0, 3, 1], 2), ([0, 2, 3], 1), ([1, 3, 2], 0)];
    let volume = (p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0]));
    let scale = (p[1] - p[0])
        .length_squared()
        .max((p[2] - p[0]).length_squared())
        .max((p[3] - p[0]).length_squared());
    let flat = !(volume.abs() > 1e-7 * scale * scale.sqrt());
    let mut best: Option<(f32, Vec3A, [f32; 4])> = None;
    for (f, _) in FACES {
        let n = (p[f[1]] - p[f[0]]).cross(p[f[2]] - p[f[0]]);
        // The signed distance (unnormalised) of the origin from the face's plane; the opposite
        // vertex's is `volume` for every face of the table (each is an even permutation of
        // `[0, 1, 2]` opposite 3), so the origin is beyond the face when the signs differ.
        let o = -n.dot(p[f[0]]);
        if !flat && o * volume >= 0.0 {
            continue;
        }
        let (point, w) = closest_on_triangle(p[f[0]], p[f[1]], p[f[2]]);
        let d = point.length_squared();
        if best.is_none_or(|b| d < b.0) {
            let mut weights = [0.0; 4];
            for k in 0..3 {
                weights[f[k]] = w[k];
            }
            // The origin's projection inside a face it is beyond is the closest point of the
            // whole tetrahedron (the origin lies in that face's normal cone), so no other face
            // can do better.
            if !flat && w.iter().all(|&x| x > 0.0) {
                return Ok((point, weights));
            }
            best = Some((d, point, weights));
        }
    }
    match best {
        Some((_, point, weights)) => Ok((point, weights)),
        None => {
            // Barycentric weights: the ratio of the sub-volumes opposite each vertex.
            let inv = 1.0 / volume;
            let mut weights = [0.0; 4];
            for (i, w) in weights.iter_mut().enumerate() {
                let mut q = p;
                q[i] = Vec3A::ZERO;
                *w = (q[1] - q[0]).dot((q[2] - q[0]).cross(q[3] - q[0])) * inv;
            }
            Err(weights)
        }
    }
}

/// The outcome of a GJK distance query.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GjkResult {
    /// The sets are apart; `v = pa - pb` is the closest point of `A - B` to the origin.
    Separated { v: Vec3A, simplex: Simplex },
    /// The sets are farther apart than the requested bound (`v` is a separating direction,
    /// `-v` points from A to B).
    Beyond { v: Vec3A },
    /// The origin is in (or within rounding of) `A - B`; the simplex holds it.
    Overlapping { simplex: Simplex },
}

/// GJK distance between `a` and `b`. With `max_distance` finite, stops as soon as the sets are
/// proven farther apart than it ([`GjkResult::Beyond`]).
pub(crate) fn gjk(
    a: &impl SupportMap,
    b: &impl SupportMap,
    initial_dir: Vec3A,
    max_distance: f32,
    cache: &mut GjkCache,
) -> GjkResult {
    let mut simplex = Simplex::default();
    let mut v;
    if cache.len > 0 {
        for i in 0..cache.len as usize {
            simplex.v[i] = support_vertex(a, b, cache.dirs[i]);
        }
        simplex.len = cache.len as usize;
        match simplex.solve() {
            Some(p) => v = p,
            None => {
                save(cache, &simplex);
                return GjkResult::Overlapping { simplex };
            }
        }
    } else {
        let d = if initial_dir.length_squared() > 0.0 { initial_dir } else { Vec3A::X };
        simplex.v[0] = support_vertex(a, b, d);
        simplex.len = 1;
        simplex.weights[0] = 1.0;
        v = simplex.v[0].w;
    }
    let max2 = max_distance * max_distance;
    let mut v2 = v.length_squared();
    let mut max_w2 = simplex.v[..simplex.len].iter().fold(0.0f32, |m, s| m.max(s.w.length_squared()));
    for _ in 0..MAX_ITERATIONS {
        if !(v2 > 0.0) {
            save(cache, &simplex);
            return GjkResult::Overlapping { simplex };
        }
        let vert = support_vertex(a, b, -v);
        let vw = v.dot(vert.w);
        // `v·w / |v|` is a lower bound of the distance (the plane through w normal to v separates).
        if vw > 0.0 && vw * vw > max2 * v2 {
            save(cache, &simplex);
            return GjkResult::Beyond { v };
        }
        // Converged: within the relative tolerance, or within the rounding noise of `v·w` itself
        // (a few ulps of `|v| |w|`; below it the steps only trade rounding errors, which at small
        // distances costs many iterations on curved shapes), or `w` is already a vertex.
        let gap = v2 - vw;
        let noise2 = NOISE_ULPS * NOISE_ULPS * v2 * max_w2.max(vert.w.length_squared());
        if gap <= GJK_RELATIVE * v2
            || gap * gap <= noise2
            || simplex.v[..simplex.len].iter().any(|s| s.w == vert.w)
        {
            break;
        }
        let previous_v2 = v2;
        simplex.v[simplex.len] = vert;
        simplex.len += 1;
        match simplex.solve() {
            None => {
                save(cache, &simplex);
                return GjkResult::Overlapping { simplex };
            }
            Some(p) => {
                v = p;
                v2 = v.length_squared();
            }
        }
        // (The largest |w|² of every vertex added so far bounds the simplex's from above.)
        max_w2 = max_w2.max(vert.w.length_squared());
        if v2 <= 1e-10 * max_w2 {
            save(cache, &simplex);
            return GjkResult::Overlapping { simplex };
        }
        if v2 >= previous_v2 {
            // No progress: only rounding separates the new point from the old one.
            break;
        }
    }
    save(cache, &simplex);
    GjkResult::Separated { v, simplex }
}

fn save(cache: &mut GjkCache, simplex: &Simplex) {
    cache.len = simplex.len as u8;
    for i in 0..simplex.len {
        cache.dirs[i] = simplex.v[i].dir;
    }
}

/// GJK ray cast against a support map (van den Bergen, *Collision Detection in Interactive 3D
/// Environments*, 2004, §4.3.4): the ray parameter `λ` advances to the plane through the latest
/// support point normal to `v` whenever that plane separates the ray point from the shape.
/// Returns `(t, normal)` with `normal` pointing out of the shape, unnormalised; `t = 0` and a
/// zero normal from inside.
pub(crate) fn gjk_ray_cast(
    shape: &impl SupportMap,
    origin: Vec3A,
    dir: Vec3A,
    max_t: f32,
) -> Option<(f32, Vec3A)> {
    let mut lambda = 0.0f32;
    let mut x = origin;
    let mut normal = Vec3A::ZERO;
    let mut points = [Vec3A::ZERO; 4];
    let mut len = 0usize;
    let mut v = x - shape.support(dir);
    let scale = 1.0 + origin.abs().max_element();
    let eps2 = (1e-6 * scale) * (1e-6 * scale);
    for _ in 0..MAX_ITERATIONS {
        if v.length_squared() <= eps2 {
            return Some((lambda, normal));
        }
        let p = shape.support(v);
        let w = x - p;
        let vw = v.dot(w);
        if vw > 0.0 {
            let vr = v.dot(dir);
            if vr >= 0.0 {
                return None;
            }
            lambda -= vw / vr;
            if lambda > max_t {
                return None;
            }
            x = origin + lambda * dir;
            normal = v;
        }
        if points[..len].contains(&p) {
            if vw <= 0.0 {
                // Rounding: the simplex cannot improve (in exact arithmetic a repeated support
                // point always advances the ray).
                return Some((lambda, normal));
            }
        } else {
            points[len] = p;
            len += 1;
        }
        // Closest point to the origin of conv{x - pᵢ}, and the points it needs.
        let mut s = Simplex::default();
        for (slot, &p) in s.v.iter_mut().zip(&points[..len]) {
            *slot = Vertex { w: x - p, a: p, dir: Vec3A::ZERO };
        }
        s.len = len;
        match s.solve() {
            None => return Some((lambda, normal)),
            Some(c) => v = c,
        }
        len = s.len;
        for (p, v) in points.iter_mut().zip(&s.v[..len]) {
            *p = v.a;
        }
    }
    Some((lambda, normal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitive::closest_point_triangle;
    use glam::Vec3;
    use kollide_testkit::random;

    /// The tetrahedron's point closest to the origin by brute force: the origin itself when it
    /// is inside (on the inner side of every face), else the nearest of the four faces' closest
    /// points, each found by the primitive query (independent code).
    fn brute_force(p: [Vec3; 4]) -> f32 {
        const FACES: [[usize; 3]; 4] = [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]];
        let volume = (p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0]));
        let inside =
            FACES.iter().all(|f| -(p[f[1]] - p[f[0]]).cross(p[f[2]] - p[f[0]]).dot(p[f[0]]) * volume >= 0.0);
        if inside {
            return 0.0;
        }
        FACES
            .iter()
            .map(|f| closest_point_triangle(Vec3::ZERO, &[p[f[0]], p[f[1]], p[f[2]]]).point.length())
            .fold(f32::INFINITY, f32::min)
    }

    #[test]
    fn tetrahedron_solver_matches_brute_force() {
        let mut rng = random::rng(41);
        let mut outside = 0;
        for case in 0..20_000 {
            // Tetrahedra around the origin at random offsets: inside, beyond one face, beyond
            // an edge or a vertex; every fifth one flattened towards a plane.
            let center = random::point3(&mut rng, 1.5);
            let mut p: [Vec3; 4] = std::array::from_fn(|_| center + random::point3(&mut rng, 1.0));
            if case % 5 == 0 {
                let n = random::unit3(&mut rng);
                for q in &mut p {
                    *q -= n * (n.dot(*q - center) * 0.999);
                }
            }
            let expected = brute_force(p);
            let got = match closest_on_tetrahedron(p.map(Vec3A::from)) {
                Ok((point, weights)) => {
                    // The weights reproduce the point.
                    let sum: Vec3A = (0..4).map(|i| Vec3A::from(p[i]) * weights[i]).sum();
                    assert!(
                        (sum - point).length() <= 1e-4,
                        "case {case}: weights {weights:?} give {sum} not {point}"
                    );
                    outside += 1;
                    point.length()
                }
                Err(_) => 0.0,
            };
            assert!(
                (got - expected).abs() <= 1e-4 * (1.0 + expected),
                "case {case}: {got} vs brute force {expected}"
            );
        }
        assert!(outside > 10_000, "only {outside} cases outside");
    }
}
