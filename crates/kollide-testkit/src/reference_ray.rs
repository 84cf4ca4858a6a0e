//! Independent references for the ray casts.
//!
//! None of these solves a ray equation the way kollide does:
//!
//! - Solids are described by signed distance functions in `f64` (negative inside). For a convex solid
//!   the signed distance along a line is a convex function of `t`, so its minimum over `[0, max_t]`
//!   is found by golden-section search and the first zero before that minimum by bisection
//!   ([`first_hit_convex`]). A normal is checked with the solid's support function: at the entry
//!   point `p` with normal `n`, the plane through `p` must support the solid (`h(n) ≈ n · p`).
//! - Triangles use the Möller–Trumbore formula in `f64` ([`moller_trumbore`]), a different algorithm
//!   from the watertight ray-space test.
//! - Closed meshes ([`octahedron`], [`icosphere`], [`bipyramid`]) exercise watertightness.

use crate::shapes::{ICOSAHEDRON_FACES, ICOSAHEDRON_VERTICES};
use std::collections::HashMap;

use glam::{DVec2, DVec3, Vec2, Vec3};

// ---------------------------------------------------------------------------------------------
// Signed distances (exact Euclidean, except the polygon's, which is exact inside and a lower bound
// outside; all are convex for the convex solids here).

/// Signed distance to a solid ball.
pub fn sd_sphere(p: DVec3, center: DVec3, radius: f64) -> f64 {
    (p - center).length() - radius
}

/// Signed distance to a solid box `[min, max]` (`min <= max`).
pub fn sd_box(p: DVec3, min: DVec3, max: DVec3) -> f64 {
    let center = (min + max) * 0.5;
    let half = (max - min) * 0.5;
    let q = (p - center).abs() - half;
    q.max(DVec3::ZERO).length() + q.max_element().min(0.0)
}

/// Signed distance to a solid oriented box: `center + axes[i] * u_i`, `|u_i| <= half[i]`.
/// `axes` are treated as exactly orthonormal.
pub fn sd_obb(p: DVec3, center: DVec3, axes: [DVec3; 3], half: DVec3) -> f64 {
    let r = p - center;
    let local = DVec3::new(axes[0].dot(r), axes[1].dot(r), axes[2].dot(r));
    sd_box(local, -half, half)
}

/// Signed distance to a solid capsule around segment `a b`.
pub fn sd_capsule(p: DVec3, a: DVec3, b: DVec3, radius: f64) -> f64 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let s = if len2 > 0.0 { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    (p - (a + s * ab)).length() - radius
}

/// Signed distance to a solid disc.
pub fn sd_circle(p: DVec2, center: DVec2, radius: f64) -> f64 {
    (p - center).length() - radius
}

/// Signed distance to a solid 2D box `[min, max]`.
pub fn sd_box2(p: DVec2, min: DVec2, max: DVec2) -> f64 {
    let q = (p - (min + max) * 0.5).abs() - (max - min) * 0.5;
    q.max(DVec2::ZERO).length() + q.max_element().min(0.0)
}

/// The largest signed distance to the lines of a convex polygon's edges (either winding): negative
/// inside, zero on the boundary, positive outside (a lower bound of the distance there). Convex in
/// `p` as a maximum of affine functions.
pub fn sd_convex_polygon(p: DVec2, poly: &[DVec2]) -> f64 {
    let n = poly.len();
    let area2: f64 = (0..n).map(|i| poly[i].perp_dot(poly[(i + 1) % n])).sum();
    let s = area2.signum();
    (0..n)
        .filter_map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            let e = b - a;
            let len = e.length();
            // Outward normal of a counter-clockwise edge is (e.y, −e.x).
            (len > 0.0).then(|| s * DVec2::new(e.y, -e.x).dot(p - a) / len)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

// ---------------------------------------------------------------------------------------------
// Support functions h(n) = max over the solid of n · x.

pub fn support_sphere(n: DVec3, center: DVec3, radius: f64) -> f64 {
    n.dot(center) + radius * n.length()
}

pub fn support_box(n: DVec3, min: DVec3, max: DVec3) -> f64 {
    (n * min).max(n * max).element_sum()
}

pub fn support_obb(n: DVec3, center: DVec3, axes: [DVec3; 3], half: DVec3) -> f64 {
    n.dot(center) + (0..3).map(|i| half[i] * axes[i].dot(n).abs()).sum::<f64>()
}

pub fn support_capsule(n: DVec3, a: DVec3, b: DVec3, radius: f64) -> f64 {
    n.dot(a).max(n.dot(b)) + radius * n.length()
}

pub fn support_circle(n: DVec2, center: DVec2, radius: f64) -> f64 {
    n.dot(center) + radius * n.length()
}

pub fn support_box2(n: DVec2, min: DVec2, max: DVec2) -> f64 {
    (n * min).max(n * max).element_sum()
}

pub fn support_polygon(n: DVec2, poly: &[DVec2]) -> f64 {
    poly.iter().map(|p| n.dot(*p)).fold(f64::NEG_INFINITY, f64::max)
}

// ---------------------------------------------------------------------------------------------
// First hit along a ray for a convex solid.

/// What the reference says about a ray against a convex solid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConvexCast {
    /// The signed distance stays above `margin` on `[0, t_max]`.
    Miss,
    /// The ray goes deeper than `margin` into the solid. `t` is the first parameter with signed
    /// distance `<= 0` (0 when the origin is inside); `t_deepest` is where the signed distance is
    /// smallest, so an entry lies before it and an exit after it.
    Hit { t: f64, t_deepest: f64 },
    /// The minimum signed distance is within `margin` of zero: a near-tangent ray (or an entry at
    /// `t_max`), where `f32` rounding may decide either way.
    Grazing,
}

/// Classifies the ray whose signed distance at parameter `t` is `g(t)`, over `t ∈ [0, t_max]`.
///
/// `g` must be convex (true for the signed distance of a convex solid along a line). The minimum is
/// located by golden-section search, then the first zero by bisection on the non-increasing part.
pub fn first_hit_convex(g: impl Fn(f64) -> f64, t_max: f64, margin: f64) -> ConvexCast {
    let inv_phi = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0, t_max);
    let mut x1 = hi - inv_phi * (hi - lo);
    let mut x2 = lo + inv_phi * (hi - lo);
    let (mut g1, mut g2) = (g(x1), g(x2));
    for _ in 0..200 {
        if g1 <= g2 {
            hi = x2;
            x2 = x1;
            g2 = g1;
            x1 = hi - inv_phi * (hi - lo);
            g1 = g(x1);
        } else {
            lo = x1;
            x1 = x2;
            g1 = g2;
            x2 = lo + inv_phi * (hi - lo);
            g2 = g(x2);
        }
    }
    let mut best = (0.5 * (lo + hi), g(0.5 * (lo + hi)));
    for t in [0.0, t_max] {
        let v = g(t);
        if v < best.1 {
            best = (t, v);
        }
    }
    let (t_deepest, g_min) = best;
    if g_min > margin {
        return ConvexCast::Miss;
    }
    if g_min >= -margin {
        return ConvexCast::Grazing;
    }
    if g(0.0) <= 0.0 {
        return ConvexCast::Hit { t: 0.0, t_deepest };
    }
    let (mut a, mut b) = (0.0, t_deepest);
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if g(m) > 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    ConvexCast::Hit { t: b, t_deepest }
}

// ---------------------------------------------------------------------------------------------
// Triangles.

/// Where the line `o + t d` meets the plane of a triangle, by Möller and Trumbore ("Fast, Minimum
/// Storage Ray/Triangle Intersection", 1997) in `f64`, without any range test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinePlaneHit {
    /// Line parameter of the crossing.
    pub t: f64,
    /// Barycentric weights of `a`, `b`, `c` (sum 1; some negative when outside the triangle).
    pub weights: [f64; 3],
    /// `d · ((b − a) × (c − a))` normalized by `|d|` and the cross product's length: the cosine of
    /// the angle between the ray and the triangle's normal (negative: the front side is hit).
    pub cos_angle: f64,
}

/// The line–plane crossing of `o + t d` with the triangle's plane; `None` when the line is parallel
/// to the plane or the triangle is degenerate (in `f64`).
pub fn moller_trumbore(o: Vec3, d: Vec3, tri: &[Vec3; 3]) -> Option<LinePlaneHit> {
    let (o, d) = (o.as_dvec3(), d.as_dvec3());
    let [a, b, c] = tri.map(|p| p.as_dvec3());
    let e1 = b - a;
    let e2 = c - a;
    let p = d.cross(e2);
    let det = e1.dot(p);
    let normal = e1.cross(e2);
    if det == 0.0 || normal.length_squared() == 0.0 {
        return None;
    }
    let inv = 1.0 / det;
    let s = o - a;
    let u = s.dot(p) * inv;
    let q = s.cross(e1);
    let v = d.dot(q) * inv;
    let t = e2.dot(q) * inv;
    Some(LinePlaneHit {
        t,
        weights: [1.0 - u - v, u, v],
        cos_angle: d.dot(normal) / (d.length() * normal.length()),
    })
}

/// A closed triangle mesh with outward winding, for watertightness tests.
#[derive(Clone, Debug, PartialEq)]
pub struct ClosedMesh {
    pub vertices: Vec<Vec3>,
    pub triangles: Vec<[usize; 3]>,
}

impl ClosedMesh {
    /// The triangles as vertex triples.
    pub fn triangle(&self, i: usize) -> [Vec3; 3] {
        self.triangles[i].map(|k| self.vertices[k])
    }

    /// Every undirected edge once, as `(smaller index, larger index)`.
    pub fn edges(&self) -> Vec<[usize; 2]> {
        let mut edges: Vec<[usize; 2]> = self
            .triangles
            .iter()
            .flat_map(|t| (0..3).map(move |i| [t[i].min(t[(i + 1) % 3]), t[i].max(t[(i + 1) % 3])]))
            .collect();
        edges.sort_unstable();
        edges.dedup();
        edges
    }

    /// Whether every directed edge appears exactly once and its reverse exactly once (a closed,
    /// consistently wound 2-manifold).
    pub fn is_closed(&self) -> bool {
        let mut count: HashMap<(usize, usize), i32> = HashMap::new();
        for t in &self.triangles {
            for i in 0..3 {
                *count.entry((t[i], t[(i + 1) % 3])).or_default() += 1;
            }
        }
        count.iter().all(|(&(a, b), &n)| n == 1 && count.get(&(b, a)) == Some(&1))
    }

    /// Six times the enclosed volume (positive for outward winding), in `f64`.
    pub fn six_volume(&self) -> f64 {
        (0..self.triangles.len())
            .map(|i| {
                let [a, b, c] = self.triangle(i).map(|p| p.as_dvec3());
                a.dot(b.cross(c))
            })
            .sum()
    }

    /// The mesh with every vertex mapped by `f` (connectivity unchanged, so it stays closed).
    pub fn mapped(&self, f: impl Fn(Vec3) -> Vec3) -> ClosedMesh {
        ClosedMesh {
            vertices: self.vertices.iter().map(|&p| f(p)).collect(),
            triangles: self.triangles.clone(),
        }
    }
}

/// The octahedron with vertices `(radii[0], 0, 0)`, `(-radii[1], 0, 0)`, `(0, radii[2], 0)`,
/// `(0, -radii[3], 0)`, `(0, 0, radii[4])`, `(0, 0, -radii[5])` (all radii positive): convex, the
/// origin inside, one triangle per octant.
pub fn octahedron(radii: [f32; 6]) -> ClosedMesh {
    let vertices = vec![
        Vec3::new(radii[0], 0.0, 0.0),
        Vec3::new(-radii[1], 0.0, 0.0),
        Vec3::new(0.0, radii[2], 0.0),
        Vec3::new(0.0, -radii[3], 0.0),
        Vec3::new(0.0, 0.0, radii[4]),
        Vec3::new(0.0, 0.0, -radii[5]),
    ];
    let mut triangles = Vec::new();
    for sx in 0..2 {
        for sy in 0..2 {
            for sz in 0..2 {
                let (x, y, z) = (sx, 2 + sy, 4 + sz);
                // (x, y, z) winds outward in the octants with an even number of negative signs.
                if (sx + sy + sz) % 2 == 0 {
                    triangles.push([x, y, z]);
                } else {
                    triangles.push([x, z, y]);
                }
            }
        }
    }
    ClosedMesh { vertices, triangles }
}

/// A unit icosphere: the regular icosahedron, each triangle split into four `subdivisions` times,
/// new vertices pushed out to the unit sphere. Star-shaped around the origin, outward wound.
pub fn icosphere(subdivisions: u32) -> ClosedMesh {
    let mut vertices: Vec<DVec3> = ICOSAHEDRON_VERTICES.iter().map(|v| DVec3::from(*v).normalize()).collect();
    let mut triangles: Vec<[usize; 3]> = ICOSAHEDRON_FACES.to_vec();
    for _ in 0..subdivisions {
        let mut midpoint: HashMap<(usize, usize), usize> = HashMap::new();
        let mut mid = |i: usize, j: usize, vertices: &mut Vec<DVec3>| {
            *midpoint.entry((i.min(j), i.max(j))).or_insert_with(|| {
                vertices.push(((vertices[i] + vertices[j]) * 0.5).normalize());
                vertices.len() - 1
            })
        };
        let mut next = Vec::with_capacity(triangles.len() * 4);
        for [a, b, c] in triangles {
            let ab = mid(a, b, &mut vertices);
            let bc = mid(b, c, &mut vertices);
            let ca = mid(c, a, &mut vertices);
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        triangles = next;
    }
    ClosedMesh { vertices: vertices.iter().map(|v| v.as_vec3()).collect(), triangles }
}

/// A bipyramid: the ring `ring` (counter-clockwise around the origin in the xy plane, containing
/// it) joined to apexes `(0, 0, top)` and `(0, 0, -bottom)`. Every apex is shared by a fan of
/// `ring.len()` triangles.
pub fn bipyramid(ring: &[Vec2], top: f32, bottom: f32) -> ClosedMesh {
    let k = ring.len();
    let mut vertices: Vec<Vec3> = ring.iter().map(|p| p.extend(0.0)).collect();
    vertices.push(Vec3::new(0.0, 0.0, top));
    vertices.push(Vec3::new(0.0, 0.0, -bottom));
    let mut triangles = Vec::with_capacity(2 * k);
    for i in 0..k {
        let j = (i + 1) % k;
        triangles.push([i, j, k]);
        triangles.push([j, i, k + 1]);
    }
    ClosedMesh { vertices, triangles }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshes_are_closed_and_outward() {
        let ring: Vec<Vec2> =
            (0..7).map(|i| Vec2::from_angle(i as f32 * std::f32::consts::TAU / 7.0)).collect();
        for mesh in [
            octahedron([1.0, 2.0, 0.5, 1.5, 3.0, 1.0]),
            icosphere(0),
            icosphere(2),
            bipyramid(&ring, 1.0, 2.0),
        ] {
            assert!(mesh.is_closed());
            assert!(mesh.six_volume() > 0.0);
            // Euler characteristic of a sphere.
            let (v, e, f) = (mesh.vertices.len(), mesh.edges().len(), mesh.triangles.len());
            assert_eq!(v + f, e + 2);
        }
        assert_eq!(icosphere(2).triangles.len(), 320);
    }

    #[test]
    fn first_hit_convex_on_a_unit_sphere() {
        let g = |t: f64| sd_sphere(DVec3::new(-3.0 + t, 0.5, 0.0), DVec3::ZERO, 1.0);
        match first_hit_convex(g, 10.0, 1e-6) {
            ConvexCast::Hit { t, t_deepest } => {
                assert!((t - (3.0 - 0.75f64.sqrt())).abs() < 1e-9);
                assert!((t_deepest - 3.0).abs() < 1e-6);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(first_hit_convex(g, 1.0, 1e-6), ConvexCast::Miss);
        let tangent = |t: f64| sd_sphere(DVec3::new(-3.0 + t, 1.0, 0.0), DVec3::ZERO, 1.0);
        assert_eq!(first_hit_convex(tangent, 10.0, 1e-6), ConvexCast::Grazing);
        let inside = |t: f64| sd_sphere(DVec3::new(t, 0.0, 0.0), DVec3::ZERO, 1.0);
        assert!(matches!(first_hit_convex(inside, 5.0, 1e-6), ConvexCast::Hit { t: 0.0, .. }));
    }

    #[test]
    fn moller_trumbore_reference() {
        let tri = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let hit = moller_trumbore(Vec3::new(0.25, 0.5, 2.0), Vec3::new(0.0, 0.0, -4.0), &tri).unwrap();
        assert_eq!(hit.t, 0.5);
        assert_eq!(hit.weights, [0.25, 0.25, 0.5]);
        assert_eq!(hit.cos_angle, -1.0);
        assert_eq!(moller_trumbore(Vec3::Z, Vec3::X, &tri), None);
    }

    #[test]
    fn polygon_distance_either_winding() {
        let sq = [DVec2::new(-1.0, -1.0), DVec2::new(1.0, -1.0), DVec2::new(1.0, 1.0), DVec2::new(-1.0, 1.0)];
        let rev: Vec<DVec2> = sq.iter().rev().copied().collect();
        for poly in [&sq[..], &rev[..]] {
            assert_eq!(sd_convex_polygon(DVec2::ZERO, poly), -1.0);
            assert_eq!(sd_convex_polygon(DVec2::new(3.0, 0.0), poly), 2.0);
            assert_eq!(support_polygon(DVec2::new(1.0, 1.0), poly), 2.0);
        }
        assert_eq!(sd_box2(DVec2::new(4.0, 5.0), DVec2::ZERO, DVec2::ONE), 5.0);
        assert_eq!(sd_box(DVec3::new(0.5, 0.5, 0.25), DVec3::ZERO, DVec3::ONE), -0.25);
    }
}
