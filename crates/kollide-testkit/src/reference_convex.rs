//! Independent references for convex shapes and the narrow phase.
//!
//! Shapes are re-described here in `f64` by their own support and membership functions (closed
//! forms written from the definitions, not calls into kollide), and pair answers come from
//! different methods than the library's:
//!
//! - the signed distance of two convex sets is `max over unit u of (min_B u·x - max_A u·x)`
//!   (positive: the distance; negative: minus the penetration depth), found by a dense direction
//!   search refined by local pattern search;
//! - polytope pairs (boxes, hulls, triangles) also get an exact distance from all
//!   triangle-pair closest points;
//! - ray casts march and bisect a membership test; mass properties integrate it on a grid.

use glam::{Affine3A, DMat3, DVec3, Vec3};
use kollide::shape::ConvexShape;

/// A convex shape in `f64` with its placement.
#[derive(Clone, Debug)]
pub struct RefShape {
    kind: Kind,
    /// Rounding radius added to the core.
    radius: f64,
    matrix: DMat3,
    translation: DVec3,
}

#[derive(Clone, Debug)]
enum Kind {
    Point,
    Segment(f64),
    Cuboid(DVec3),
    Cylinder(f64, f64),
    Cone(f64, f64),
    Points(Vec<DVec3>),
}

impl RefShape {
    /// The reference twin of `shape` placed by `map`.
    pub fn new(shape: &ConvexShape, map: &Affine3A) -> Self {
        let (kind, radius) = match shape {
            ConvexShape::Ball(s) => (Kind::Point, s.radius),
            ConvexShape::Capsule(s) => (Kind::Segment(s.half_height as f64), s.radius),
            ConvexShape::Cuboid(s) => (Kind::Cuboid(s.half_extents.as_dvec3()), 0.0),
            ConvexShape::Cylinder(s) => (Kind::Cylinder(s.half_height as f64, s.radius as f64), 0.0),
            ConvexShape::Cone(s) => (Kind::Cone(s.half_height as f64, s.radius as f64), 0.0),
            ConvexShape::Triangle(s) => (Kind::Points(s.points.iter().map(|p| p.as_dvec3()).collect()), 0.0),
            ConvexShape::Hull(s) => (Kind::Points(s.vertices().iter().map(|p| p.as_dvec3()).collect()), 0.0),
            ConvexShape::RoundedCuboid(s) => (Kind::Cuboid(s.inner.half_extents.as_dvec3()), s.radius),
            ConvexShape::RoundedCylinder(s) => {
                (Kind::Cylinder(s.inner.half_height as f64, s.inner.radius as f64), s.radius)
            }
            ConvexShape::RoundedCone(s) => {
                (Kind::Cone(s.inner.half_height as f64, s.inner.radius as f64), s.radius)
            }
            ConvexShape::RoundedTriangle(s) => {
                (Kind::Points(s.inner.points.iter().map(|p| p.as_dvec3()).collect()), s.radius)
            }
            ConvexShape::RoundedHull(s) => {
                (Kind::Points(s.inner.vertices().iter().map(|p| p.as_dvec3()).collect()), s.radius)
            }
        };
        Self {
            kind,
            radius: radius as f64,
            matrix: glam::Mat3::from(map.matrix3).as_dmat3(),
            translation: DVec3::from(Vec3::from(map.translation)),
        }
    }

    /// The support function of the core in local coordinates: `max x·u` and its maximiser.
    fn core_support_local(&self, u: DVec3) -> DVec3 {
        match &self.kind {
            Kind::Point => DVec3::ZERO,
            Kind::Segment(h) => DVec3::new(0.0, if u.y >= 0.0 { *h } else { -*h }, 0.0),
            Kind::Cuboid(h) => DVec3::new(h.x * u.x.signum(), h.y * u.y.signum(), h.z * u.z.signum()),
            Kind::Cylinder(h, r) => {
                let rho = (u.x * u.x + u.z * u.z).sqrt();
                let (x, z) = if rho > 0.0 { (r * u.x / rho, r * u.z / rho) } else { (0.0, 0.0) };
                DVec3::new(x, if u.y >= 0.0 { *h } else { -*h }, z)
            }
            Kind::Cone(h, r) => {
                let rho = (u.x * u.x + u.z * u.z).sqrt();
                let apex = DVec3::new(0.0, *h, 0.0);
                let rim = if rho > 0.0 {
                    DVec3::new(r * u.x / rho, -*h, r * u.z / rho)
                } else {
                    DVec3::new(0.0, -*h, 0.0)
                };
                if apex.dot(u) >= rim.dot(u) { apex } else { rim }
            }
            Kind::Points(ps) => {
                *ps.iter().max_by(|a, b| a.dot(u).total_cmp(&b.dot(u))).unwrap_or(&DVec3::ZERO)
            }
        }
    }

    /// `max over x in the placed shape of u·x` (the support function value).
    pub fn support_value(&self, u: DVec3) -> f64 {
        let local = self.matrix.transpose() * u;
        let core = self.matrix * self.core_support_local(local) + self.translation;
        // The rounding ball maps to an ellipsoid M·B(r), whose support value along u is r |Mᵀu|.
        core.dot(u) + self.radius * local.length()
    }

    /// The point of the placed shape farthest along `u`.
    pub fn support_point(&self, u: DVec3) -> DVec3 {
        let local = self.matrix.transpose() * u;
        let core = self.matrix * self.core_support_local(local) + self.translation;
        let l = local.length();
        if l > 0.0 { core + self.matrix * (local * (self.radius / l)) } else { core }
    }

    /// Whether the local point `p` is in the (solid, rounded) local shape, by its definition.
    fn contains_local(&self, p: DVec3) -> bool {
        self.core_distance_local(p) <= self.radius
    }

    /// The distance from a local point to the local core (0 inside).
    fn core_distance_local(&self, p: DVec3) -> f64 {
        match &self.kind {
            Kind::Point => p.length(),
            Kind::Segment(h) => (p - DVec3::new(0.0, p.y.clamp(-h, *h), 0.0)).length(),
            Kind::Cuboid(h) => (p.abs() - *h).max(DVec3::ZERO).length(),
            Kind::Cylinder(h, r) => {
                let rho = (p.x * p.x + p.z * p.z).sqrt();
                let dr = (rho - r).max(0.0);
                let dy = (p.y.abs() - h).max(0.0);
                (dr * dr + dy * dy).sqrt()
            }
            Kind::Cone(h, r) => {
                // Distance in the (ρ, y) half plane to the triangle (0, h), (r, -h), (0, -h).
                let rho = (p.x * p.x + p.z * p.z).sqrt();
                let q = glam::DVec2::new(rho, p.y);
                let tri = [glam::DVec2::new(0.0, *h), glam::DVec2::new(*r, -h), glam::DVec2::new(0.0, -h)];
                let inside = p.y >= -h && rho * 2.0 * h <= r * (h - p.y);
                if inside {
                    return 0.0;
                }
                (0..3)
                    .map(|i| {
                        let (a, b) = (tri[i], tri[(i + 1) % 3]);
                        let ab = b - a;
                        let t = if ab.length_squared() > 0.0 {
                            ((q - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
                        } else {
                            0.0
                        };
                        (a + ab * t - q).length()
                    })
                    .fold(f64::INFINITY, f64::min)
            }
            Kind::Points(_) => {
                // Distance to a polytope via its support function over many directions.
                let placed = RefShape {
                    kind: self.kind.clone(),
                    radius: 0.0,
                    matrix: DMat3::IDENTITY,
                    translation: DVec3::ZERO,
                };
                let point =
                    RefShape { kind: Kind::Point, radius: 0.0, matrix: DMat3::IDENTITY, translation: p };
                signed_distance(&placed, &point).max(0.0)
            }
        }
    }

    /// Whether the world point `p` is in the placed shape (the map must be invertible).
    pub fn contains(&self, p: DVec3) -> bool {
        self.contains_local(self.matrix.inverse() * (p - self.translation))
    }

    /// Whether the world point `p` is within `tol` of the placed shape, measured in the shape's
    /// local frame (the map must be invertible).
    pub fn contains_within(&self, p: DVec3, tol: f64) -> bool {
        self.core_distance_local(self.matrix.inverse() * (p - self.translation)) <= self.radius + tol
    }
}

/// `n` directions spread over the unit sphere (Fibonacci lattice).
fn sphere_directions(n: usize) -> impl Iterator<Item = DVec3> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n).map(move |i| {
        let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
        let r = (1.0 - y * y).sqrt();
        let phi = golden * i as f64;
        DVec3::new(r * phi.cos(), y, r * phi.sin())
    })
}

/// The separation of A and B along the unit `u`: `min_B u·x - max_A u·x`. For every `u` it is at
/// most the signed distance, with equality for the optimal direction: a primal–dual certificate
/// for a claimed distance and normal.
pub fn gap(a: &RefShape, b: &RefShape, u: DVec3) -> f64 {
    -b.support_value(-u) - a.support_value(u)
}

/// The signed distance of A and B and the maximising direction (from A to B).
///
/// Seeds: a Fibonacci lattice of directions and the direction found by 2,000 Frank–Wolfe steps on
/// `A - B` (primal descent towards the origin); then a pattern search over 24 tangent directions
/// with a shrinking step. The value is always a lower bound of the true signed distance (it is the
/// separation along one direction) and converges to it.
pub fn signed_distance_and_normal(a: &RefShape, b: &RefShape) -> (f64, DVec3) {
    let mut best = (f64::NEG_INFINITY, DVec3::Y);
    let consider = |u: DVec3, best: &mut (f64, DVec3)| {
        let g = gap(a, b, u);
        if g > best.0 {
            *best = (g, u);
        }
    };
    for u in sphere_directions(1000) {
        consider(u, &mut best);
    }
    // Frank–Wolfe on the Minkowski difference: x moves towards s = argmin over A - B of x·s.
    let mut x = a.support_point(DVec3::X) - b.support_point(-DVec3::X);
    for _ in 0..2000 {
        let s = a.support_point(-x) - b.support_point(x);
        let d = s - x;
        let dd = d.length_squared();
        if dd == 0.0 {
            break;
        }
        let gamma = (-x.dot(d) / dd).clamp(0.0, 1.0);
        x += d * gamma;
    }
    // (When the sets overlap, x tends to zero and its direction means nothing.)
    if x.length() > 1e-9 {
        consider(-x.normalize(), &mut best);
    }
    let mut step = 0.05;
    while step > 1e-10 {
        let mut improved = false;
        let (t1, t2) = tangent_basis(best.1);
        for k in 0..24 {
            let (s, c) = (k as f64 * std::f64::consts::TAU / 24.0).sin_cos();
            let u = (best.1 + (t1 * c + t2 * s) * step).normalize();
            let g = gap(a, b, u);
            if g > best.0 {
                best = (g, u);
                improved = true;
            }
        }
        if !improved {
            step *= 0.6;
        }
    }
    best
}

/// The signed distance of A and B: positive apart (the distance), negative overlapping (minus the
/// penetration depth).
pub fn signed_distance(a: &RefShape, b: &RefShape) -> f64 {
    signed_distance_and_normal(a, b).0
}

fn tangent_basis(n: DVec3) -> (DVec3, DVec3) {
    let t1 = n.any_orthonormal_vector();
    (t1, n.cross(t1))
}

/// The exact distance between two triangle soups (0 if some triangles intersect is NOT detected:
/// use only for pairs known to be apart), as the minimum over triangle pairs of vertex–triangle
/// and edge–edge closest points, in `f64`.
pub fn triangle_soup_distance(a: &[[DVec3; 3]], b: &[[DVec3; 3]]) -> f64 {
    let mut best = f64::INFINITY;
    for ta in a {
        for tb in b {
            for p in ta {
                best = best.min(
                    (crate::reference_primitive::closest_point_triangle_reference(
                        p.as_vec3(),
                        &tb.map(|v| v.as_vec3()),
                    ) - *p)
                        .length(),
                );
            }
            for p in tb {
                best = best.min(
                    (crate::reference_primitive::closest_point_triangle_reference(
                        p.as_vec3(),
                        &ta.map(|v| v.as_vec3()),
                    ) - *p)
                        .length(),
                );
            }
            for i in 0..3 {
                for j in 0..3 {
                    best = best.min(segment_segment_distance(ta[i], ta[(i + 1) % 3], tb[j], tb[(j + 1) % 3]));
                }
            }
        }
    }
    best
}

/// Distance between two segments by ternary search over the first parameter (the distance to a
/// segment is convex along the other segment).
pub fn segment_segment_distance(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3) -> f64 {
    let to_b = |p: DVec3| (p - crate::reference_primitive::closest_on_segment_f64(p, b0, b1)).length();
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    // (2/3)^70 < 1e-12.
    for _ in 0..70 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if to_b(a0 + (a1 - a0) * m1) <= to_b(a0 + (a1 - a0) * m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    to_b(a0 + (a1 - a0) * (0.5 * (lo + hi)))
}

/// The 12 triangles of a box placed by `map`.
pub fn cuboid_triangles(half: Vec3, map: &Affine3A) -> Vec<[DVec3; 3]> {
    let c = |x: f64, y: f64, z: f64| {
        DVec3::from(Vec3::from(
            map.matrix3
                * glam::Vec3A::new(
                    (x * half.x as f64) as f32,
                    (y * half.y as f64) as f32,
                    (z * half.z as f64) as f32,
                ),
        )) + DVec3::from(Vec3::from(map.translation))
    };
    let quads = [
        [(-1., -1., -1.), (-1., 1., -1.), (1., 1., -1.), (1., -1., -1.)],
        [(-1., -1., 1.), (1., -1., 1.), (1., 1., 1.), (-1., 1., 1.)],
        [(-1., -1., -1.), (1., -1., -1.), (1., -1., 1.), (-1., -1., 1.)],
        [(-1., 1., -1.), (-1., 1., 1.), (1., 1., 1.), (1., 1., -1.)],
        [(-1., -1., -1.), (-1., -1., 1.), (-1., 1., 1.), (-1., 1., -1.)],
        [(1., -1., -1.), (1., 1., -1.), (1., 1., 1.), (1., -1., 1.)],
    ];
    let mut out = Vec::new();
    for q in quads {
        let v = q.map(|(x, y, z)| c(x, y, z));
        out.push([v[0], v[1], v[2]]);
        out.push([v[0], v[2], v[3]]);
    }
    out
}

/// The first `t ∈ [0, max_t]` where `origin + t dir` enters the shape, by marching in `steps`
/// steps and bisecting the first step that enters (misses entries thinner than one step).
pub fn ray_cast_reference(
    shape: &RefShape,
    origin: DVec3,
    dir: DVec3,
    max_t: f64,
    steps: usize,
) -> Option<f64> {
    if shape.contains(origin) {
        return Some(0.0);
    }
    let dt = max_t / steps as f64;
    for i in 1..=steps {
        let t = i as f64 * dt;
        if shape.contains(origin + dir * t) {
            let (mut lo, mut hi) = (t - dt, t);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if shape.contains(origin + dir * mid) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            return Some(hi);
        }
    }
    None
}

/// Volume, centre of mass and inertia tensor about the centre of the local shape (identity
/// placement), by midpoint integration of the membership test on an `n³` grid over `bounds`.
pub fn mass_properties_reference(shape: &ConvexShape, n: usize, min: Vec3, max: Vec3) -> (f64, DVec3, DMat3) {
    let r = RefShape::new(shape, &Affine3A::IDENTITY);
    let (min, max) = (min.as_dvec3(), max.as_dvec3());
    let cell = (max - min) / n as f64;
    let dv = cell.x * cell.y * cell.z;
    let mut volume = 0.0;
    let mut first = DVec3::ZERO;
    let mut second = DMat3::ZERO;
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let p = min + cell * DVec3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5);
                if r.contains_local(p) {
                    volume += dv;
                    first += p * dv;
                    second += DMat3::from_cols(p * p.x, p * p.y, p * p.z) * dv;
                }
            }
        }
    }
    let center = first / volume;
    let c = second - DMat3::from_cols(center * center.x, center * center.y, center * center.z) * volume;
    let inertia = DMat3::from_diagonal(DVec3::splat(c.x_axis.x + c.y_axis.y + c.z_axis.z)) - c;
    (volume, center, inertia)
}

/// A random shape of `kind` with sizes in `[0.2, 1.2)` (hulls of 8 to 32 random points in a ball
/// of radius 1, rounded shapes with a radius in `[0.05, 0.3)`).
pub fn random_shape(rng: &mut crate::random::TestRng, kind: kollide::shape::ShapeKind) -> ConvexShape {
    use kollide::shape::{Ball, Capsule, Cone, ConvexHull, Cuboid, Cylinder, Rounded, ShapeKind, Triangle};
    use rand::Rng;
    let mut size = || rng.random_range(0.2f32..1.2);
    let (s0, s1, s2) = (size(), size(), size());
    let round = rng.random_range(0.05f32..0.3);
    let hull = |rng: &mut crate::random::TestRng| {
        let n = rng.random_range(8..=32);
        let pts: Vec<Vec3> =
            (0..n).map(|_| crate::random::unit3(rng) * rng.random_range(0.5f32..1.0)).collect();
        ConvexHull::new(&pts).expect("random points span a volume")
    };
    let tri = |rng: &mut crate::random::TestRng| {
        let t = crate::random::triangle3(rng, Vec3::ZERO, 1.0);
        Triangle::new(t[0], t[1], t[2])
    };
    match kind {
        ShapeKind::Ball => Ball::new(s0).into(),
        ShapeKind::Capsule => Capsule::new(s0, s1 * 0.6).into(),
        ShapeKind::Cuboid => Cuboid::new(Vec3::new(s0, s1, s2)).into(),
        ShapeKind::Cylinder => Cylinder::new(s0, s1).into(),
        ShapeKind::Cone => Cone::new(s0, s1).into(),
        ShapeKind::Triangle => tri(rng).into(),
        ShapeKind::Hull => hull(rng).into(),
        ShapeKind::RoundedCuboid => Rounded::new(Cuboid::new(Vec3::new(s0, s1, s2)), round).into(),
        ShapeKind::RoundedCylinder => Rounded::new(Cylinder::new(s0, s1), round).into(),
        ShapeKind::RoundedCone => Rounded::new(Cone::new(s0, s1), round).into(),
        ShapeKind::RoundedTriangle => Rounded::new(tri(rng), round).into(),
        ShapeKind::RoundedHull => Rounded::new(hull(rng), round).into(),
    }
}
