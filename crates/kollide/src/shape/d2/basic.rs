//! The closed-form 2D shapes: ball (disc), capsule, box and segment.

use glam::Vec2;

use super::{PointProjection2, SupportMap2};
use crate::bounds::{Aabb2, Circle};
use crate::math::Ray2;
use crate::primitive::d2::{RayHit2, ray_aabb2, ray_circle, ray_polygon, ray_segment};

/// A disc of `radius` centred on the origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball2 {
    pub radius: f32,
}

/// The points within `radius` of the segment from `(0, -half_height)` to `(0, half_height)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule2 {
    pub half_height: f32,
    pub radius: f32,
}

/// The box `[-half_extents, half_extents]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid2 {
    pub half_extents: Vec2,
}

/// The solid triangle `a b c` (either winding; [`Triangle2::vertices`] lists it
/// counter-clockwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle2 {
    pub a: Vec2,
    pub b: Vec2,
    pub c: Vec2,
}

impl Triangle2 {
    pub fn new(a: Vec2, b: Vec2, c: Vec2) -> Self {
        Self { a, b, c }
    }

    /// The corners, counter-clockwise (`a, b, c` or `a, c, b`).
    #[inline]
    pub fn vertices(&self) -> [Vec2; 3] {
        if (self.b - self.a).perp_dot(self.c - self.a) >= 0.0 {
            [self.a, self.b, self.c]
        } else {
            [self.a, self.c, self.b]
        }
    }

    /// The box in the local frame.
    pub fn local_aabb(&self) -> Aabb2 {
        Aabb2::new(self.a.min(self.b).min(self.c), self.a.max(self.b).max(self.c))
    }

    /// The first hit of a ray (local frame) with the solid triangle; a degenerate triangle is
    /// the segment it spans (its three edges cover it), which [`ray_polygon`] would miss.
    pub fn cast_ray(&self, ray: &Ray2, max_t: f32) -> Option<RayHit2> {
        let v = self.vertices();
        if (v[1] - v[0]).perp_dot(v[2] - v[0]) > 0.0 {
            return ray_polygon(ray, max_t, &v);
        }
        (0..3)
            .filter_map(|i| ray_segment(ray, max_t, v[i], v[(i + 1) % 3]))
            .min_by(|a, b| a.t.total_cmp(&b.t))
    }

    /// The point of the solid triangle closest to `p` (local frame); a degenerate triangle is the
    /// segment it spans (inside only when `p` lies on it exactly, as for [`Segment2`]).
    pub fn project_point(&self, p: Vec2) -> PointProjection2 {
        let v = self.vertices();
        let solid = (v[1] - v[0]).perp_dot(v[2] - v[0]) > 0.0;
        let inside = solid && (0..3).all(|i| (v[(i + 1) % 3] - v[i]).perp_dot(p - v[i]) >= 0.0);
        if inside {
            return PointProjection2::inside(p);
        }
        let mut best = (f32::INFINITY, p);
        for i in 0..3 {
            let q = closest_on_segment2(p, v[i], v[(i + 1) % 3]);
            let d = q.distance_squared(p);
            if d < best.0 {
                best = (d, q);
            }
        }
        if best.1 == p { PointProjection2::inside(p) } else { PointProjection2::outside(best.1) }
    }
}

impl SupportMap2 for Triangle2 {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        let (da, db, dc) = (self.a.dot(dir), self.b.dot(dir), self.c.dot(dir));
        if da >= db && da >= dc {
            self.a
        } else if db >= dc {
            self.b
        } else {
            self.c
        }
    }
}

/// The segment from `a` to `b` (a shape of zero area; `a == b` is a point).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment2 {
    pub a: Vec2,
    pub b: Vec2,
}

impl Ball2 {
    pub fn new(radius: f32) -> Self {
        Self { radius }
    }
}

impl Capsule2 {
    pub fn new(half_height: f32, radius: f32) -> Self {
        Self { half_height, radius }
    }

    /// The core segment's end points, bottom then top.
    #[inline]
    pub fn segment(&self) -> [Vec2; 2] {
        [Vec2::new(0.0, -self.half_height), Vec2::new(0.0, self.half_height)]
    }
}

impl Cuboid2 {
    pub fn new(half_extents: Vec2) -> Self {
        Self { half_extents }
    }

    /// The corners, counter-clockwise from `(+x, -y)` (the winding of [`super::ConvexPolygon2`]).
    #[inline]
    pub fn vertices(&self) -> [Vec2; 4] {
        let h = self.half_extents;
        [Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y), -h]
    }
}

impl Segment2 {
    pub fn new(a: Vec2, b: Vec2) -> Self {
        Self { a, b }
    }
}

/// `r · d / |d|`, or `(r, 0)` for a zero (or non-finite length) `d`.
#[inline(always)]
pub(crate) fn disc_support(r: f32, d: Vec2) -> Vec2 {
    let len2 = d.length_squared();
    if len2 > 0.0 && len2.is_finite() { d * (r / len2.sqrt()) } else { Vec2::new(r, 0.0) }
}

impl SupportMap2 for Ball2 {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        disc_support(self.radius, dir)
    }
}

impl SupportMap2 for Capsule2 {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        let y = if dir.y >= 0.0 { self.half_height } else { -self.half_height };
        Vec2::new(0.0, y) + disc_support(self.radius, dir)
    }
}

impl SupportMap2 for Cuboid2 {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        let h = self.half_extents;
        Vec2::new(if dir.x >= 0.0 { h.x } else { -h.x }, if dir.y >= 0.0 { h.y } else { -h.y })
    }
}

impl SupportMap2 for Segment2 {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        if (self.b - self.a).dot(dir) > 0.0 { self.b } else { self.a }
    }
}

/// The closest point to `p` on the segment `a b` (`a` when the segment is a point).
#[inline]
pub(crate) fn closest_on_segment2(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let e = b - a;
    let ee = e.length_squared();
    if !(ee > 0.0) {
        return a;
    }
    a + e * ((p - a).dot(e) / ee).clamp(0.0, 1.0)
}

/// The closest points of segments `p0 p1` and `q0 q1` as parameters `(s, t)` in `[0, 1]`
/// (Ericson §5.1.9: the closest points of the two lines, clamped to the first segment, then the
/// second; crossing segments give their crossing point). A segment of zero length is a point.
///
/// The lines' closest points are ill-conditioned for nearly parallel segments. In the plane,
/// segments that do not cross are closest at an end point of one of them, a well-conditioned
/// projection: for nearly parallel segments (within about 6 degrees) and for a pair inside both
/// segments (a crossing), the crossing is decided in `f64` (the cross products of `f32`
/// differences are exact to one rounding) and the closest pair is otherwise the nearest of the
/// four end-point projections.
#[inline]
pub fn segment_closest_params2(p0: Vec2, p1: Vec2, q0: Vec2, q1: Vec2) -> (f32, f32) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    if !(a > 0.0) && !(e > 0.0) {
        return (0.0, 0.0);
    }
    if !(a > 0.0) {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(r);
    if !(e > 0.0) {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > 0.0 { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    let inside = |x: f32| x > 0.0 && x < 1.0;
    // `denom = a e sin²θ` for the angle θ between the segments.
    if denom >= 1e-2 * a * e && !(inside(s) && inside(t)) {
        return (s, t);
    }
    // p0 + s d1 = q0 + t d2: crossed with d2 and with d1, s = (w × d2) / (d1 × d2) and
    // t = (w × d1) / (d1 × d2) for w = q0 - p0.
    let (d1x, d2x, w) =
        (p1.as_dvec2() - p0.as_dvec2(), q1.as_dvec2() - q0.as_dvec2(), q0.as_dvec2() - p0.as_dvec2());
    let cross = d1x.perp_dot(d2x);
    if cross != 0.0 {
        let (s, t) = (w.perp_dot(d2x) / cross, w.perp_dot(d1x) / cross);
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            return (s as f32, t as f32);
        }
    }
    let gap = |s: f32, t: f32| (p0 + d1 * s).distance_squared(q0 + d2 * t);
    let on_p = |x: Vec2| ((x - p0).dot(d1) / a).clamp(0.0, 1.0);
    let on_q = |x: Vec2| ((x - q0).dot(d2) / e).clamp(0.0, 1.0);
    let ends = [(0.0, on_q(p0)), (1.0, on_q(p1)), (on_p(q0), 0.0), (on_p(q1), 1.0)];
    ends.into_iter().min_by(|x, y| gap(x.0, x.1).total_cmp(&gap(y.0, y.1))).unwrap_or((s, t))
}

/// The closest points of segments `p0 p1` and `q0 q1` (see [`segment_closest_params2`]).
#[inline]
pub fn closest_points_segments2(p0: Vec2, p1: Vec2, q0: Vec2, q1: Vec2) -> (Vec2, Vec2) {
    let (s, t) = segment_closest_params2(p0, p1, q0, q1);
    (p0 + (p1 - p0) * s, q0 + (q1 - q0) * t)
}

/// The projection of `p` onto the solid ball of `radius` about `center`.
#[inline]
pub(crate) fn project_on_disc(p: Vec2, center: Vec2, radius: f32) -> PointProjection2 {
    let v = p - center;
    let len2 = v.length_squared();
    if len2 <= radius * radius {
        PointProjection2::inside(p)
    } else {
        PointProjection2::outside(center + v * (radius / len2.sqrt()))
    }
}

impl Ball2 {
    /// The box in the local frame.
    pub fn local_aabb(&self) -> Aabb2 {
        Aabb2::new(Vec2::splat(-self.radius), Vec2::splat(self.radius))
    }

    /// The first hit of a ray (local frame) with the solid disc.
    pub fn cast_ray(&self, ray: &Ray2, max_t: f32) -> Option<RayHit2> {
        ray_circle(ray, max_t, &Circle::new(Vec2::ZERO, self.radius))
    }

    /// The point of the solid disc closest to `p` (local frame).
    pub fn project_point(&self, p: Vec2) -> PointProjection2 {
        project_on_disc(p, Vec2::ZERO, self.radius)
    }
}

impl Capsule2 {
    /// The box in the local frame.
    pub fn local_aabb(&self) -> Aabb2 {
        let h = Vec2::new(self.radius, self.half_height + self.radius);
        Aabb2::new(-h, h)
    }

    /// The first hit of a ray (local frame) with the solid capsule: the capsule is the union of
    /// its two end discs and the box between them, and the first hit of a union of solids is the
    /// earliest first hit of its members (a start inside any member is `t = 0`).
    pub fn cast_ray(&self, ray: &Ray2, max_t: f32) -> Option<RayHit2> {
        let [lo, hi] = self.segment();
        let body = Aabb2::new(Vec2::new(-self.radius, lo.y), Vec2::new(self.radius, hi.y));
        [
            ray_aabb2(ray, max_t, &body),
            ray_circle(ray, max_t, &Circle::new(lo, self.radius)),
            ray_circle(ray, max_t, &Circle::new(hi, self.radius)),
        ]
        .into_iter()
        .flatten()
        .min_by(|a, b| a.t.total_cmp(&b.t))
    }

    /// The point of the solid capsule closest to `p` (local frame).
    pub fn project_point(&self, p: Vec2) -> PointProjection2 {
        let [lo, hi] = self.segment();
        project_on_disc(p, closest_on_segment2(p, lo, hi), self.radius)
    }
}

impl Cuboid2 {
    /// The box in the local frame.
    pub fn local_aabb(&self) -> Aabb2 {
        Aabb2::new(-self.half_extents, self.half_extents)
    }

    /// The first hit of a ray (local frame) with the solid box.
    pub fn cast_ray(&self, ray: &Ray2, max_t: f32) -> Option<RayHit2> {
        ray_aabb2(ray, max_t, &self.local_aabb())
    }

    /// The point of the solid box closest to `p` (local frame).
    pub fn project_point(&self, p: Vec2) -> PointProjection2 {
        let q = p.clamp(-self.half_extents, self.half_extents);
        if q == p { PointProjection2::inside(p) } else { PointProjection2::outside(q) }
    }
}

impl Segment2 {
    /// The box in the local frame.
    pub fn local_aabb(&self) -> Aabb2 {
        Aabb2::new(self.a.min(self.b), self.a.max(self.b))
    }

    /// The first hit of a ray (local frame) with the segment.
    pub fn cast_ray(&self, ray: &Ray2, max_t: f32) -> Option<RayHit2> {
        ray_segment(ray, max_t, self.a, self.b)
    }

    /// The point of the segment closest to `p` (inside only when `p` lies on it exactly).
    pub fn project_point(&self, p: Vec2) -> PointProjection2 {
        let q = closest_on_segment2(p, self.a, self.b);
        if q == p { PointProjection2::inside(p) } else { PointProjection2::outside(q) }
    }
}
