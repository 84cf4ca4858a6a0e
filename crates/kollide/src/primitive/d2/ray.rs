//! Ray casts in 2D: circles, boxes, segments and convex polygons, under the shared contract of the
//! [`d2`](crate::primitive::d2#ray-casts) documentation.

// Tests are written as `!(accepting condition)` so that NaN, which fails every comparison, always
// takes the rejecting branch.

use crate::bounds::{Aabb2, Circle};
use crate::math::{Ray2, Vec2};

/// Where a ray first meets a shape: the one 2D ray-hit record, returned by the primitive casts,
/// the shapes, the narrow phase and the query layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit2 {
    /// Ray parameter of the hit, in `[0, max_t]`; the point is `ray.at(t)`.
    pub t: f32,
    /// Unit normal at the hit, facing against the ray (`normal · dir ≤ 0`).
    pub normal: Vec2,
    /// The part hit: the child of a compound, the segment of a polyline, the triangle of a mesh;
    /// 0 for a primitive or a convex shape.
    pub part: u32,
}

/// Whether the ray and `max_t` satisfy the shared validity contract (`dd = dir · dir`).
/// Evaluated without short-circuiting: one branch for the caller.
#[inline(always)]
fn ray_ok(ray: &Ray2, dd: f32, max_t: f32) -> bool {
    finite(ray.origin) & dir_ok(dd, max_t)
}

/// [`ray_ok`] without the origin (for casts that check a finite difference from it instead).
#[inline(always)]
fn dir_ok(dd: f32, max_t: f32) -> bool {
    (f32::MIN_POSITIVE..=f32::MAX).contains(&dd) & (max_t >= 0.0)
}

/// `hit` if the inputs were valid and its `t` is finite (not overflowed). The casts run on
/// unchecked input, where NaN or ±∞ can only produce a miss or a meaningless hit, and check the
/// input only when they found a hit: valid queries that miss pay nothing for validation.
#[inline(always)]
fn accept(hit: RayHit2, inputs_ok: bool) -> Option<RayHit2> {
    (inputs_ok & (hit.t < f32::INFINITY)).then_some(hit)
}

/// Whether both components of `v` are finite, without a branch per component: `0 · x` is `±0` for
/// finite `x` and NaN for `±∞` and NaN, and a NaN term makes the sum NaN.
#[inline(always)]
fn finite(v: Vec2) -> bool {
    (v * 0.0).element_sum() == 0.0
}

/// `-dir / |dir|` (meaningful for a valid ray).
#[inline]
fn against(dir: Vec2, dd: f32) -> Vec2 {
    dir * (-1.0 / dd.sqrt())
}

/// `v / |v|`, or `-dir / |dir|` when `v` is too short (or `radius` is zero, where `v` is rounding
/// noise). The fallback is computed only when needed.
#[inline]
fn unit_or_against(v: Vec2, radius: f32, dir: Vec2, dd: f32) -> Vec2 {
    let len2 = v.length_squared();
    if radius > 0.0 && len2 >= f32::MIN_POSITIVE { v * len2.sqrt().recip() } else { against(dir, dd) }
}

/// The unit normal at `v`, a point relative to the center of a circle of radius `radius`
/// (`inv_r = 1 / radius`): `v / r` made unit by one Newton step for `1/√x` at `x = 1`, as in the 3D
/// sphere cast (exact normalization when `|v| / r` is off by more than 1e-3).
#[inline]
fn round_normal(v: Vec2, inv_r: f32, radius: f32, dir: Vec2, dd: f32) -> Vec2 {
    let n = v * inv_r;
    let n2 = n.length_squared();
    if (n2 - 1.0).abs() <= 1e-3 { n * (1.5 - 0.5 * n2) } else { unit_or_against(v, radius, dir, dd) }
}

/// Casts a ray against a solid disc.
///
/// See the [shared contract]. A zero radius is the single point `center`, hit only when the ray
/// passes through it exactly (normal `-dir / |dir|`); a negative or NaN radius is empty. The
/// quadratic is solved in the cancellation-free form of Haines et al. (Ray Tracing Gems, ch. 7), as
/// in the 3D sphere cast.
///
/// [shared contract]: crate::primitive::d2#ray-casts
#[inline]
pub fn ray_circle(ray: &Ray2, max_t: f32, circle: &Circle) -> Option<RayHit2> {
    let (dd, r) = (ray.dir.length_squared(), circle.radius);
    let hit = cast_disc(ray, dd, max_t, circle.center, r)?;
    // A finite difference means a finite origin and center (one that overflows is out of range).
    let f = ray.origin - circle.center;
    accept(hit, dir_ok(dd, max_t) & finite(f) & (0.0..f32::INFINITY).contains(&r))
}

/// The circle cast on unchecked input (see [`accept`]).
#[inline(always)]
fn cast_disc(ray: &Ray2, dd: f32, max_t: f32, center: Vec2, r: f32) -> Option<RayHit2> {
    let d = ray.dir;
    let f = ray.origin - center;
    // 1/r for the normal, issued first so that its latency overlaps the work below.
    let inv_r = 1.0 / r;
    let r2 = r * r;
    let c = f.length_squared() - r2;
    if c <= 0.0 {
        return Some(RayHit2 { t: 0.0, normal: against(d, dd), part: 0 });
    }
    let b = f.dot(d);
    if !(b < 0.0) {
        return None; // outside and not approaching the center
    }
    // b² − dd·c = dd·r² − (f × d)² (Lagrange's identity): Haines et al.'s cancellation-free form.
    let cross = f.perp_dot(d);
    let disc = dd * r2 - cross * cross;
    if !(disc >= 0.0) {
        return None;
    }
    let t = c / (-b + disc.sqrt());
    if !(t <= max_t) {
        return None;
    }
    Some(RayHit2 { t, normal: round_normal(f + t * d, inv_r, r, d, dd), part: 0 })
}

/// Casts a ray against a solid axis-aligned box.
///
/// Slab test (Ericson, *Real-Time Collision Detection*, §5.3.3) with the parallel case explicit, so
/// zero direction components and origins exactly on an edge are exact. See the [shared contract].
/// At a corner the normal is the one of an edge meeting there. An inverted box (`min > max` on some
/// axis) is empty; a zero-extent box (a segment or point) is hit where the ray meets it.
///
/// [shared contract]: crate::primitive::d2#ray-casts
#[inline]
pub fn ray_aabb2(ray: &Ray2, max_t: f32, aabb: &Aabb2) -> Option<RayHit2> {
    let dd = ray.dir.length_squared();
    let hit = cast_box(ray, dd, max_t, aabb.min, aabb.max)?;
    let box_ok = finite(aabb.min) & finite(aabb.max) & aabb.min.cmple(aabb.max).all();
    accept(hit, ray_ok(ray, dd, max_t) & box_ok)
}

/// The box cast on unchecked input (see [`accept`]).
#[inline(always)]
fn cast_box(ray: &Ray2, dd: f32, max_t: f32, min: Vec2, max: Vec2) -> Option<RayHit2> {
    let (o, d) = (ray.origin, ray.dir);
    let inv = d.recip();
    let t1 = (min - o) * inv;
    let t2 = (max - o) * inv;
    // Zero or subnormal components (reciprocal overflows): inside that slab for all t, or never.
    let parallel = inv.abs().cmpeq(Vec2::INFINITY);
    let in_slab = o.cmpge(min) & o.cmple(max);
    let always = Vec2::select(in_slab, Vec2::NEG_INFINITY, Vec2::INFINITY);
    let near = Vec2::select(parallel, always, t1.min(t2));
    let far = Vec2::select(parallel, -always, t1.max(t2));
    let enter = near.max_element();
    let exit = far.min_element();
    if !(enter <= exit && exit >= 0.0 && enter <= max_t) {
        return None;
    }
    if enter <= 0.0 {
        return Some(RayHit2 { t: 0.0, normal: against(d, dd), part: 0 });
    }
    let normal = if near.x == enter { Vec2::new(-d.x.signum(), 0.0) } else { Vec2::new(0.0, -d.y.signum()) };
    Some(RayHit2 { t: enter, normal, part: 0 })
}

/// Casts a ray against the closed segment `a b` (a one-dimensional set, not a solid).
///
/// A crossing reports the segment's unit normal facing against the ray. A ray along the segment's
/// line that overlaps it hits at the first shared point (`t = 0` if the origin is on the segment,
/// else the nearer endpoint), with normal `-dir / |dir|`, as if the ray struck the segment's end;
/// `a == b` is a point, hit the same way when the ray passes exactly through it. Endpoints count.
/// `None` for an invalid ray or `max_t` (see the [shared contract]) or non-finite endpoints.
///
/// [shared contract]: crate::primitive::d2#ray-casts
#[inline]
pub fn ray_segment(ray: &Ray2, max_t: f32, a: Vec2, b: Vec2) -> Option<RayHit2> {
    let dd = ray.dir.length_squared();
    let hit = cast_segment(ray, dd, max_t, a, b)?;
    accept(hit, ray_ok(ray, dd, max_t) & finite(a) & finite(b))
}

/// The segment cast on unchecked input (see [`accept`]).
#[inline(always)]
fn cast_segment(ray: &Ray2, dd: f32, max_t: f32, a: Vec2, b: Vec2) -> Option<RayHit2> {
    let d = ray.dir;
    let e = b - a;
    let w = a - ray.origin;
    // o + t d = a + s e. Crossing both sides with e and with d (Ericson §5.1.9.1):
    // t = (w × e) / (d × e), s = (w × d) / (d × e).
    let denom = d.perp_dot(e);
    let t_num = w.perp_dot(e);
    let s_num = w.perp_dot(d);
    if denom != 0.0 {
        // Range tests without division, after making the denominator positive.
        let (denom, t_num, s_num) =
            if denom < 0.0 { (-denom, -t_num, -s_num) } else { (denom, t_num, s_num) };
        if !(t_num >= 0.0 && t_num <= max_t * denom && s_num >= 0.0 && s_num <= denom) {
            return None;
        }
        let n = e.perp();
        let n = if n.dot(d) > 0.0 { -n } else { n };
        return Some(RayHit2 { t: (t_num / denom).min(max_t), normal: unit_or_against(n, 1.0, d, dd), part: 0 });
    }
    if s_num != 0.0 {
        return None; // parallel, off the line
    }
    // On the ray's line: the segment covers [min(ta, tb), max(ta, tb)] in ray parameters.
    let ta = w.dot(d) / dd;
    let tb = (b - ray.origin).dot(d) / dd;
    let t = ta.min(tb).max(0.0);
    (t <= ta.max(tb) && t <= max_t).then(|| RayHit2 { t, normal: against(d, dd), part: 0 })
}

/// Casts a ray against a solid convex polygon given as a vertex loop (implicitly closed).
///
/// Cyrus–Beck clipping (Cyrus and Beck 1978; Ericson §5.3.8): the ray is clipped against each
/// edge's inner half-plane, and the last entering edge gives the normal. Either winding is accepted
/// (the sign of the shoelace area decides). See the [shared contract]. Fewer than three vertices,
/// zero signed area (all vertices collinear) or a non-finite vertex give `None`. For a non-convex
/// loop the answer is the cast against the intersection of its edges' half-planes.
///
/// [shared contract]: crate::primitive::d2#ray-casts
#[inline]
pub fn ray_polygon(ray: &Ray2, max_t: f32, poly: &[Vec2]) -> Option<RayHit2> {
    let dd = ray.dir.length_squared();
    if !ray_ok(ray, dd, max_t) {
        return None;
    }
    let n = poly.len();
    if n < 3 {
        return None;
    }
    let mut twice_area = 0.0;
    let mut prev = poly[n - 1];
    for &p in poly {
        if !finite(p) {
            return None;
        }
        twice_area += prev.perp_dot(p);
        prev = p;
    }
    // A counter-clockwise loop has outward edge normals (e.y, −e.x); `orientation` flips them for
    // a clockwise one.
    let orientation = if twice_area > 0.0 {
        1.0
    } else if twice_area < 0.0 {
        -1.0
    } else {
        return None;
    };
    let (o, d) = (ray.origin, ray.dir);
    let (mut t_lo, mut t_hi) = (0.0f32, max_t);
    let mut entry_normal = None;
    let mut prev = poly[n - 1];
    for &p in poly {
        let e = p - prev;
        let normal = Vec2::new(e.y, -e.x) * orientation;
        // Inside the edge's half-plane: normal · (o + t d − prev) ≤ 0  ⇔  t·den ≤ num.
        let num = normal.dot(prev - o);
        let den = normal.dot(d);
        if den < 0.0 {
            let t = num / den;
            if t > t_lo {
                t_lo = t;
                entry_normal = Some(normal);
            }
        } else if den > 0.0 {
            t_hi = t_hi.min(num / den);
        } else if num < 0.0 {
            return None; // parallel to the edge and outside it
        }
        if t_lo > t_hi {
            return None;
        }
        prev = p;
    }
    // No entering edge: the origin is inside (or on the boundary), normal -dir/|dir|.
    let normal = entry_normal.map_or_else(|| against(d, dd), |m| unit_or_against(m, 1.0, d, dd));
    accept(RayHit2 { t: t_lo, normal, part: 0 }, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ray(o: [f32; 2], d: [f32; 2]) -> Ray2 {
        Ray2::new(Vec2::from(o), Vec2::from(d))
    }

    const SQUARE: [Vec2; 4] =
        [Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0), Vec2::new(1.0, 1.0), Vec2::new(-1.0, 1.0)];

    fn all_miss(r: &Ray2, max_t: f32) {
        let b = Aabb2::new(Vec2::splat(-1.0), Vec2::splat(1.0));
        assert_eq!(ray_circle(r, max_t, &Circle::new(Vec2::ZERO, 1.0)), None);
        assert_eq!(ray_aabb2(r, max_t, &b), None);
        assert_eq!(ray_segment(r, max_t, Vec2::new(-1.0, 0.0), Vec2::X), None);
        assert_eq!(ray_polygon(r, max_t, &SQUARE), None);
    }

    #[test]
    fn invalid_rays_and_limits_miss_everything() {
        // The origin lies in every shape (on the segment), so an accepted query would hit.
        let o = [0.0, 0.0];
        all_miss(&ray(o, [0.0, 0.0]), 1.0);
        all_miss(&ray(o, [1e-30, 0.0]), 1.0);
        all_miss(&ray(o, [f32::NAN, 1.0]), 1.0);
        all_miss(&ray(o, [f32::INFINITY, 1.0]), 1.0);
        all_miss(&ray([f32::NAN, 0.0], [0.0, 1.0]), 1.0);
        all_miss(&ray([0.0, f32::INFINITY], [0.0, 1.0]), 1.0);
        all_miss(&ray(o, [0.0, 1.0]), -1.0);
        all_miss(&ray(o, [0.0, 1.0]), f32::NAN);
        // And the same queries with a valid limit do hit.
        let r = ray(o, [0.0, 1.0]);
        assert!(ray_circle(&r, 1.0, &Circle::new(Vec2::ZERO, 1.0)).is_some());
        assert!(ray_segment(&r, 1.0, Vec2::new(-1.0, 0.0), Vec2::X).is_some());
        assert!(ray_polygon(&r, f32::INFINITY, &SQUARE).is_some());
    }

    #[test]
    fn circle_cases() {
        let c = Circle::new(Vec2::new(1.0, 0.0), 1.0);
        let hit = ray_circle(&ray([-3.0, 0.0], [2.0, 0.0]), 5.0, &c).unwrap();
        assert_eq!((hit.t, hit.normal), (1.5, -Vec2::X));
        let hit = ray_circle(&ray([-3.0, 1.0], [1.0, 0.0]), 5.0, &c).unwrap();
        assert_eq!((hit.t, hit.normal), (4.0, Vec2::Y));
        assert_eq!(ray_circle(&ray([-3.0, 0.0], [-1.0, 0.0]), 5.0, &c), None);
        assert_eq!(ray_circle(&ray([-3.0, 0.0], [1.0, 0.0]), 2.9, &c), None);
        let hit = ray_circle(&ray([1.5, 0.0], [0.0, 2.0]), 5.0, &c).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec2::Y));
        let point = Circle::new(Vec2::ZERO, 0.0);
        let hit = ray_circle(&ray([-1.0, 0.0], [1.0, 0.0]), 5.0, &point).unwrap();
        assert_eq!((hit.t, hit.normal), (1.0, -Vec2::X));
        for r in [-1.0, f32::NAN, f32::INFINITY] {
            let bad = Circle::new(Vec2::ZERO, r);
            assert_eq!(ray_circle(&ray([-3.0, 0.0], [1.0, 0.0]), 5.0, &bad), None);
        }
    }

    #[test]
    fn aabb_cases() {
        let b = Aabb2::new(Vec2::new(-1.0, -1.0), Vec2::new(1.0, 1.0));
        let hit = ray_aabb2(&ray([-3.0, 0.5], [1.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec2::X));
        let hit = ray_aabb2(&ray([0.5, 3.0], [0.0, -4.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (0.5, Vec2::Y));
        // Sliding along an edge touches; parallel outside misses.
        assert_eq!(ray_aabb2(&ray([-3.0, 1.0], [1.0, 0.0]), 5.0, &b).unwrap().t, 2.0);
        assert_eq!(ray_aabb2(&ray([-3.0, 1.5], [1.0, 0.0]), f32::INFINITY, &b), None);
        // Origin on an edge: t = 0 with −dir.
        let hit = ray_aabb2(&ray([1.0, 0.0], [1.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec2::X));
        // Degenerate and inverted boxes.
        let seg = Aabb2::new(Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0));
        assert_eq!(ray_aabb2(&ray([-3.0, 0.0], [1.0, 0.0]), 5.0, &seg).unwrap().t, 3.0);
        let inverted = Aabb2::new(Vec2::new(1.0, -1.0), Vec2::new(-1.0, 1.0));
        assert_eq!(ray_aabb2(&ray([-3.0, 0.0], [1.0, 0.0]), 5.0, &inverted), None);
        let nan = Aabb2::new(Vec2::new(f32::NAN, -1.0), Vec2::ONE);
        assert_eq!(ray_aabb2(&ray([-3.0, 0.0], [1.0, 0.0]), 5.0, &nan), None);
    }

    #[test]
    fn segment_cases() {
        let (a, b) = (Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0));
        let hit = ray_segment(&ray([-2.0, 0.5], [1.0, 0.0]), 5.0, a, b).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec2::X));
        let hit = ray_segment(&ray([2.0, 0.5], [-4.0, 0.0]), 5.0, a, b).unwrap();
        assert_eq!((hit.t, hit.normal), (0.5, Vec2::X));
        // Endpoints count; beyond them misses; max_t inclusive.
        assert_eq!(ray_segment(&ray([-2.0, 1.0], [1.0, 0.0]), 5.0, a, b).unwrap().t, 2.0);
        assert_eq!(ray_segment(&ray([-2.0, 1.01], [1.0, 0.0]), 5.0, a, b), None);
        assert!(ray_segment(&ray([-2.0, 0.0], [1.0, 0.0]), 2.0, a, b).is_some());
        assert_eq!(ray_segment(&ray([-2.0, 0.0], [1.0, 0.0]), 1.99, a, b), None);
        // Collinear: first shared point, normal −dir.
        let hit = ray_segment(&ray([0.0, -3.0], [0.0, 1.0]), 5.0, a, b).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec2::Y));
        let hit = ray_segment(&ray([0.0, 0.0], [0.0, -1.0]), 5.0, a, b).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vec2::Y));
        assert_eq!(ray_segment(&ray([0.0, 3.0], [0.0, 1.0]), 5.0, a, b), None);
        assert_eq!(ray_segment(&ray([0.5, -3.0], [0.0, 1.0]), 5.0, a, b), None);
        // Point segment.
        let p = Vec2::new(1.0, 1.0);
        assert_eq!(ray_segment(&ray([0.0, 0.0], [1.0, 1.0]), 5.0, p, p).unwrap().t, 1.0);
        assert_eq!(ray_segment(&ray([0.0, 0.0], [1.0, 0.9]), 5.0, p, p), None);
        assert_eq!(ray_segment(&ray([0.0, 0.0], [1.0, 0.0]), 5.0, a, Vec2::NAN), None);
    }

    #[test]
    fn polygon_cases_both_windings() {
        let cw: Vec<Vec2> = SQUARE.iter().rev().copied().collect();
        for poly in [&SQUARE[..], &cw[..]] {
            let hit = ray_polygon(&ray([-3.0, 0.5], [1.0, 0.0]), 5.0, poly).unwrap();
            assert_eq!((hit.t, hit.normal), (2.0, -Vec2::X));
            let hit = ray_polygon(&ray([0.5, 3.0], [0.0, -2.0]), 5.0, poly).unwrap();
            assert_eq!((hit.t, hit.normal), (1.0, Vec2::Y));
            assert_eq!(ray_polygon(&ray([-3.0, 0.5], [-1.0, 0.0]), 5.0, poly), None);
            assert_eq!(ray_polygon(&ray([-3.0, 0.5], [1.0, 0.0]), 1.5, poly), None);
            assert_eq!(ray_polygon(&ray([-3.0, 1.5], [1.0, 0.0]), 9.0, poly), None);
            // Sliding along an edge touches; origin inside or on the boundary hits at t = 0.
            assert_eq!(ray_polygon(&ray([-3.0, 1.0], [1.0, 0.0]), 9.0, poly).unwrap().t, 2.0);
            let hit = ray_polygon(&ray([0.0, 0.0], [0.0, 3.0]), 9.0, poly).unwrap();
            assert_eq!((hit.t, hit.normal), (0.0, -Vec2::Y));
            let hit = ray_polygon(&ray([-1.0, 0.0], [1.0, 0.0]), 9.0, poly).unwrap();
            assert_eq!((hit.t, hit.normal), (0.0, -Vec2::X));
        }
        // Triangle, diagonal edge normal.
        let tri = [Vec2::ZERO, Vec2::new(2.0, 0.0), Vec2::new(0.0, 2.0)];
        let hit = ray_polygon(&ray([2.0, 2.0], [-1.0, -1.0]), 9.0, &tri).unwrap();
        assert_eq!(hit.t, 1.0);
        assert!((hit.normal - Vec2::ONE.normalize()).length() < 1e-6);
    }

    #[test]
    fn polygon_degenerate_inputs() {
        let r = ray([-3.0, 0.0], [1.0, 0.0]);
        assert_eq!(ray_polygon(&r, 9.0, &[]), None);
        assert_eq!(ray_polygon(&r, 9.0, &SQUARE[..2]), None);
        let collinear = [Vec2::new(-1.0, 0.0), Vec2::ZERO, Vec2::X];
        assert_eq!(ray_polygon(&r, 9.0, &collinear), None);
        let nan = [Vec2::ZERO, Vec2::X, Vec2::new(f32::NAN, 1.0)];
        assert_eq!(ray_polygon(&r, 9.0, &nan), None);
        let inf = [Vec2::ZERO, Vec2::X, Vec2::new(0.0, f32::INFINITY)];
        assert_eq!(ray_polygon(&r, 9.0, &inf), None);
        // Repeated vertices (zero-length edges) are harmless.
        let repeated = [SQUARE[0], SQUARE[0], SQUARE[1], SQUARE[2], SQUARE[2], SQUARE[3]];
        assert_eq!(ray_polygon(&r, 9.0, &repeated).unwrap().t, 2.0);
    }
}
