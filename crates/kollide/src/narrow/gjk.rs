//! GJK: distance and closest points between two convex support maps, with a warm-start cache;
//! and the GJK ray cast.
//!
//! The iteration is van den Bergen's ("A fast and robust GJK implementation for collision
//! detection of convex objects", 1999): `v` is the point of the current simplex closest to the
//! origin, the next vertex is the support point of `A - B` along `-v`, and the loop stops when
//! `|v|² - v·w` (which bounds `|v| (|v| - dist)` from above) falls below a relative tolerance.
//! The closest point of a simplex is the origin's projection on a face (the triangle, or a face of
//! the tetrahedron that orientation tests find the origin beyond) when the face holds it, else a
//! Voronoi-region walk; both start from the newest vertex, which GJK's answer always uses.

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
        match self.closest() {
            Ok((point, weights)) => {
                self.reduce(weights);
                Some(point)
            }
            Err(weights) => {
                self.weights = weights;
                None
            }
        }
    }

    /// The simplex's point closest to the origin with its weights (zero for the vertices it does
    /// not need), or `Err(weights)` (the origin's barycentric coordinates) when the origin is
    /// inside a full-dimensional tetrahedron.
    #[inline]
    fn closest(&self) -> Result<(Vec3A, [f32; 4]), [f32; 4]> {
        let p = [self.v[0].w, self.v[1].w, self.v[2].w, self.v[3].w];
        match self.len {
            1 => Ok((p[0], [1.0, 0.0, 0.0, 0.0])),
            2 => {
                let (q, [u, v]) = closest_on_segment(p[0], p[1]);
                Ok((q, [u, v, 0.0, 0.0]))
            }
            3 => {
                let (q, [u, v, w]) = closest_on_triangle(p[0], p[1], p[2]);
                Ok((q, [u, v, w, 0.0]))
            }
            _ => closest_on_tetrahedron(p),
        }
    }

    /// Keeps the vertices of positive weight, in order (in place: a kept vertex only moves down),
    /// with their weights.
    #[inline]
    fn reduce(&mut self, weights: [f32; 4]) {
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
/// the vertices of the region it is not in). A zero-area triangle is its edges.
///
/// The origin's projection on the plane first, then the Voronoi-region walk; both from `c`
/// (GJK's newest vertex).
#[inline(always)]
fn closest_on_triangle(a: Vec3A, b: Vec3A, c: Vec3A) -> (Vec3A, [f32; 3]) {
    let (ea, eb) = (a - c, b - c);
    let n = ea.cross(eb);
    let (q, [wc, wa, wb]) = projection_inside(c, ea, eb, n, eb.cross(c), c.cross(ea))
        .unwrap_or_else(|| closest_on_face(c, a, b, ea, eb, n));
    (q, [wa, wb, wc])
}

/// The origin's projection `q = n (n·d) / |n|²` on the plane of the triangle `d`, `pᵢ = d + eᵢ`,
/// `pⱼ = d + eⱼ` (normal `n = eᵢ × eⱼ`) with its weights `[w_d, wᵢ, wⱼ]`, if it is inside.
///
/// The weights are `n · ((pⱼ - q) × (d - q))` (for `pᵢ`), `n · ((d - q) × (pᵢ - q))` (for `pⱼ`)
/// and the rest of `|n|²` (for `d`), over `|n|²`; `q` is along `n`, so they are `n · (eⱼ × d)`
/// and `n · (d × eᵢ)`, given as `ej_d` and `d_ei`. They are trusted when the angle at `d` is over
/// about 6° (as in [`closest_on_face`]).
#[inline(always)]
fn projection_inside(
    d: Vec3A,
    ei: Vec3A,
    ej: Vec3A,
    n: Vec3A,
    ej_d: Vec3A,
    d_ei: Vec3A,
) -> Option<(Vec3A, [f32; 3])> {
    let nn = n.length_squared();
    let (wi, wj) = (n.dot(ej_d), n.dot(d_ei));
    let wd = nn - wi - wj;
    if wi > 0.0 && wj > 0.0 && wd > 0.0 && nn > 1e-2 * ei.length_squared() * ej.length_squared() {
        let inv = 1.0 / nn;
        Some((n * (n.dot(d) * inv), [wd * inv, wi * inv, wj * inv]))
    } else {
        None
    }
}

/// [`closest_on_triangle`] given the edges `ab = b - a`, `ac = c - a` and the normal
/// `n = ab × ac`: Ericson's Voronoi-region walk (*Real-Time Collision Detection*, §5.1.5) with
/// the query point at the origin.
#[inline(always)]
fn closest_on_face(a: Vec3A, b: Vec3A, c: Vec3A, ab: Vec3A, ac: Vec3A, n: Vec3A) -> (Vec3A, [f32; 3]) {
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
    // weights are good to `ε / sin²(angle at a)`: used when that angle is over about 6°. The
    // point, the projection `n (n·a) / |n|²`, divides by `|n|²` itself, accurate to a few ulps.
    if sum > 1e-2 * ab.length_squared() * ac.length_squared() {
        let inv = 1.0 / sum;
        let (v, w) = (vb * inv, vc * inv);
        return (n * (n.dot(a) / n.length_squared()), [1.0 - v - w, v, w]);
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
/// origin's barycentric coordinates) when the origin is inside.
///
/// With `d = p₃` and the edges `eᵢ = pᵢ - d`, the faces through `d` are `(pᵢ, pⱼ, d)` for
/// `(i, j) = (0, 1), (1, 2), (2, 0)`, with normals `nₖ = eᵢ × eⱼ`. The opposite vertex of each is
/// at the height `V = det[e₀ e₁ e₂]` over its plane (in units of `|nₖ|`), the origin at
/// `oₖ = -nₖ · d`: `oₖ / V` is the origin's barycentric weight of that vertex. The origin is
/// beyond a face when its `o` and `V` differ in sign, inside the tetrahedron when beyond none.
///
/// Otherwise the closest point is on a face the origin is beyond, and it is the origin's
/// projection on the first such face that holds it (the origin is then in the face's normal
/// cone); else the nearest of those faces' closest points. GJK adds `d` to a triangle whose
/// closest point was inside it and below which it lies, so the answer is on a face through `d`:
/// those share the edges and normals above, the projections are tried before any Voronoi-region
/// walk, and the old face `p₀ p₁ p₂` costs one orientation test. A nearly flat tetrahedron
/// (whose sides rounding cannot tell) is the union of its three faces through `d` (a point of
/// the old face lies between `d` and the far edge it is seen through from `d`).
fn closest_on_tetrahedron(p: [Vec3A; 4]) -> Result<(Vec3A, [f32; 4]), [f32; 4]> {
    let d = p[3];
    let e = [p[0] - d, p[1] - d, p[2] - d];
    let n = [e[0].cross(e[1]), e[1].cross(e[2]), e[2].cross(e[0])];
    let volume = n[0].dot(e[2]);
    let o = [-n[0].dot(d), -n[1].dot(d), -n[2].dot(d)];
    let scale = e[0].length_squared().max(e[1].length_squared()).max(e[2].length_squared());
    let flat = !(volume.abs() > 1e-7 * scale * scale.sqrt());
    let beyond = o.map(|o| flat || o * volume < 0.0);
    if !flat {
        let c = [e[0].cross(d), e[1].cross(d), e[2].cross(d)];
        for k in 0..3 {
            let (i, j) = (k, (k + 1) % 3);
            if beyond[k]
                && let Some((point, w)) = projection_inside(d, e[i], e[j], n[k], c[j], -c[i])
            {
                return Ok((point, spread(k, w)));
            }
        }
    }
    let mut best: Option<(f32, Vec3A, [f32; 4])> = None;
    for k in 0..3 {
        if !beyond[k] {
            continue;
        }
        let (i, j) = (k, (k + 1) % 3);
        let (point, w) = closest_on_face(d, p[i], p[j], e[i], e[j], n[k]);
        let dist = point.length_squared();
        if best.is_none_or(|b| dist < b.0) {
            best = Some((dist, point, spread(k, w)));
        }
    }
    // The old face: `o₃ = p₀ · ((p₁ - p₀) × (p₂ - p₀))` (its weight of `d`; `V - o₀ - o₁ - o₂`
    // in exact arithmetic).
    let o3 = p[0].dot((p[1] - p[0]).cross(p[2] - p[0]));
    if !flat && o3 * volume < 0.0 {
        let (point, [u, v, w]) = closest_on_triangle(p[0], p[1], p[2]);
        if best.is_none_or(|b| point.length_squared() < b.0) {
            best = Some((point.length_squared(), point, [u, v, w, 0.0]));
        }
    }
    match best {
        Some((_, point, weights)) => Ok((point, weights)),
        None => {
            let inv = 1.0 / volume;
            Err([o[1] * inv, o[2] * inv, o[0] * inv, o3 * inv])
        }
    }
}

/// The tetrahedron's weights from those `[w_d, wᵢ, wⱼ]` of its face `k` through `d = p₃` (see
/// [`closest_on_tetrahedron`]).
#[inline(always)]
fn spread(k: usize, [wd, wi, wj]: [f32; 3]) -> [f32; 4] {
    match k {
        0 => [wi, wj, 0.0, wd],
        1 => [0.0, wi, wj, wd],
        _ => [wj, 0.0, wi, wd],
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
        let previous_len = simplex.len;
        simplex.v[simplex.len] = vert;
        simplex.len += 1;
        let (p, weights) = match simplex.closest() {
            Ok(found) => found,
            Err(weights) => {
                simplex.weights = weights;
                save(cache, &simplex);
                return GjkResult::Overlapping { simplex };
            }
        };
        let p2 = p.length_squared();
        // (The largest |w|² of every vertex added so far bounds the simplex's from above.)
        max_w2 = max_w2.max(vert.w.length_squared());
        if p2 <= 1e-10 * max_w2 {
            simplex.reduce(weights);
            save(cache, &simplex);
            return GjkResult::Overlapping { simplex };
        }
        if p2 >= v2 {
            // No progress: only rounding separates the new point from the old one, which stays
            // with its simplex (the new vertex is dropped).
            simplex.len = previous_len;
            break;
        }
        simplex.reduce(weights);
        (v, v2) = (p, p2);
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
    use glam::{DVec3, Vec3};
    use kollide_testkit::random::{self, TestRng};
    use kollide_testkit::reference_primitive::closest_point_triangle_reference;
    use rand::Rng;

    /// The distance from the origin to a tetrahedron by brute force in `f64`: zero when the origin
    /// is on the inner side of every face, else the nearest of the four faces' closest points
    /// (found by the reference projection, independent code).
    fn brute_force(p: [Vec3; 4]) -> f64 {
        const FACES: [[usize; 3]; 4] = [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]];
        let q = p.map(|x| x.as_dvec3());
        let side = |f: &[usize; 3], x: DVec3| (q[f[1]] - q[f[0]]).cross(q[f[2]] - q[f[0]]).dot(x - q[f[0]]);
        let volume = side(&FACES[0], q[3]);
        if FACES.iter().all(|f| side(f, DVec3::ZERO) * volume >= 0.0) {
            return 0.0;
        }
        FACES
            .iter()
            .map(|f| closest_point_triangle_reference(Vec3::ZERO, &f.map(|i| p[i])).length())
            .fold(f64::INFINITY, f64::min)
    }

    /// Checks that `weights` are a convex combination of `p` giving `point`; returns `|point|`.
    fn check_weights(p: &[Vec3], weights: &[f32], point: Vec3A, case: usize) -> f64 {
        let sum: f32 = weights.iter().sum();
        assert!(weights.iter().all(|&w| w >= 0.0) && (sum - 1.0).abs() <= 1e-4, "case {case}: {weights:?}");
        let combined: Vec3A = p.iter().zip(weights).map(|(&x, &w)| Vec3A::from(x) * w).sum();
        let size = p.iter().map(|x| x.length()).fold(0.0, f32::max);
        assert!(
            (combined - point).length() <= 1e-5 * size,
            "case {case}: weights give {combined}, not {point}"
        );
        f64::from(point.length())
    }

    /// A tetrahedron as GJK builds one: a triangle whose point closest to the origin, `v`, is
    /// inside it, and a fourth vertex `d` below the plane through `v` normal to `v` (on the
    /// origin's side); a few are nearly flat (`d` just below that plane), a few triangles are
    /// slivers, and some `d` pass the origin (which is then often inside).
    fn gjk_tetrahedron(rng: &mut TestRng, case: usize) -> [Vec3; 4] {
        let n = random::unit3(rng);
        let h = rng.random_range(0.01..2.0f32);
        let v = n * h;
        let (t1, t2) = n.any_orthonormal_pair();
        let size = rng.random_range(0.05..2.0f32);
        let offset = |rng: &mut TestRng| {
            (t1 * rng.random_range(-1.0..1.0f32) + t2 * rng.random_range(-1.0..1.0f32)) * size
        };
        let (o0, mut o1) = (offset(rng), offset(rng));
        if case % 7 == 0 {
            o1 = -o0 * 0.7 + o1 * 0.01;
        }
        let l = [0; 3].map(|_| rng.random_range(0.05..1.0f32));
        let o2 = -(o0 * l[0] + o1 * l[1]) / l[2];
        let height = if case % 5 == 0 {
            h * rng.random_range(1e-7..1e-4f32)
        } else {
            h * rng.random_range(1e-3..2.5f32)
        };
        let d = v + offset(rng) - n * height;
        [v + o0, v + o1, v + o2, d]
    }

    #[test]
    fn tetrahedron_solver_matches_brute_force_on_gjk_steps() {
        let mut rng = random::rng(41);
        let (mut outside, mut flat) = (0, 0);
        for case in 0..20_000 {
            let p = gjk_tetrahedron(&mut rng, case);
            let expected = brute_force(p);
            match closest_on_tetrahedron(p.map(Vec3A::from)) {
                Ok((point, weights)) => {
                    let got = check_weights(&p, &weights, point, case);
                    let scale = p.iter().map(|x| x.length()).fold(0.0, f32::max) as f64;
                    assert!(
                        (got - expected).abs() <= 1e-6 * scale,
                        "case {case}: {got} vs brute force {expected} ({p:?})"
                    );
                    outside += 1;
                    flat += usize::from(case % 5 == 0);
                }
                Err(_) => assert!(expected <= 1e-6, "case {case}: inside, but brute force gives {expected}"),
            }
        }
        assert!(outside > 15_000 && flat > 3_000, "only {outside} cases outside, {flat} flat");
    }

    /// The flatness test is relative: scaled copies of a tetrahedron are classified alike (origin
    /// inside or not) and their distances scale with them.
    #[test]
    fn tetrahedron_solver_is_scale_invariant() {
        let mut rng = random::rng(43);
        for case in 0..kollide_testkit::cases(10_000) {
            let center = random::point3(&mut rng, 1.5);
            let mut p: [Vec3; 4] = std::array::from_fn(|_| center + random::point3(&mut rng, 1.0));
            if case % 2 == 0 {
                let n = random::unit3(&mut rng);
                for q in &mut p {
                    *q -= n * (n.dot(*q - center) * 0.999);
                }
            }
            let unit = closest_on_tetrahedron(p.map(Vec3A::from));
            for scale in [1e-3f32, 1e3] {
                let scaled = closest_on_tetrahedron(p.map(|q| Vec3A::from(q * scale)));
                match (&unit, &scaled) {
                    (Ok((a, _)), Ok((b, _))) => {
                        assert!((a.length() * scale - b.length()).abs() <= 1e-5 * scale * (1.0 + a.length()))
                    }
                    (Err(_), Err(_)) => {}
                    _ => panic!("case {case}, scale {scale}: {unit:?} vs {scaled:?} ({p:?})"),
                }
            }
        }
    }

    /// Any tetrahedron (a cached warm start, a ray cast's simplex after the ray point moved).
    #[test]
    fn tetrahedron_solver_matches_brute_force() {
        let mut rng = random::rng(42);
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
            match closest_on_tetrahedron(p.map(Vec3A::from)) {
                Ok((point, weights)) => {
                    let got = check_weights(&p, &weights, point, case);
                    assert!(
                        (got - expected).abs() <= 1e-6 * (1.0 + expected),
                        "case {case}: {got} vs brute force {expected}"
                    );
                    outside += 1;
                }
                Err(_) => assert!(expected <= 1e-6, "case {case}: inside, but brute force gives {expected}"),
            }
        }
        assert!(outside > 10_000, "only {outside} cases outside");
    }

    #[test]
    fn triangle_solver_matches_brute_force() {
        let mut rng = random::rng(43);
        for case in 0..20_000 {
            // Triangles near the origin; every fourth a sliver, every tenth collinear.
            let center = random::point3(&mut rng, 1.5);
            let mut p = random::triangle3(&mut rng, center, 1.0);
            if case % 4 == 0 {
                p[2] = p[0].lerp(p[1], rng.random_range(-0.5..1.5)) + random::point3(&mut rng, 1e-3);
            }
            if case % 10 == 0 {
                p[2] = p[0].lerp(p[1], rng.random_range(-0.5..1.5));
            }
            let expected = closest_point_triangle_reference(Vec3::ZERO, &p).length();
            let (point, weights) = closest_on_triangle(p[0].into(), p[1].into(), p[2].into());
            let got = check_weights(&p, &weights, point, case);
            assert!((got - expected).abs() <= 1e-6 * (1.0 + expected), "case {case}: {got} vs {expected}");
        }
    }
}
