//! Ray casts in 3D against planes and solids: spheres, boxes, oriented boxes and capsules
//! (triangles are in `ray_triangle.rs`), under the shared contract of the
//! [`primitive`](crate::primitive#ray-casts) documentation.

// Tests are written as `!(accepting condition)` so that NaN, which fails every comparison, always
// takes the rejecting branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::bounds::{Aabb3, Obb3, Sphere};
use crate::math::{Ray3, Vec3, Vec3A};

use super::Plane3;

/// Where a ray first meets a shape: the one 3D ray-hit record, returned by the primitive casts,
/// the shapes, the narrow phase, meshes and the query layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit3 {
    /// Ray parameter of the hit, in `[0, max_t]`; the point is `ray.at(t)`.
    pub t: f32,
    /// Unit normal at the hit, facing against the ray (`normal · dir ≤ 0`).
    pub normal: Vec3,
    /// The part hit: the triangle id of a mesh, the ball of a sphere set, the child of a
    /// compound; 0 for a primitive or a convex shape.
    pub part: u32,
}

/// Whether the ray and `max_t` satisfy the shared validity contract (`dd = dir · dir`).
/// Evaluated without short-circuiting: one branch for the caller.
#[inline(always)]
pub(super) fn ray_ok(ray: &Ray3, dd: f32, max_t: f32) -> bool {
    finite(ray.origin) & dir_ok(dd, max_t)
}

/// [`ray_ok`] without the origin (for casts that check a finite difference from it instead).
#[inline(always)]
pub(super) fn dir_ok(dd: f32, max_t: f32) -> bool {
    (f32::MIN_POSITIVE..=f32::MAX).contains(&dd) & (max_t >= 0.0)
}

/// `hit` if the inputs were valid and its `t` is finite (not overflowed).
///
/// The casts run on unchecked input, where NaN or ±∞ coordinates can only produce a miss or a
/// meaningless hit (floating-point arithmetic never traps), and check the input only when they
/// found a hit: valid queries that miss pay nothing for validation.
#[inline(always)]
fn accept(hit: RayHit3, inputs_ok: bool) -> Option<RayHit3> {
    (inputs_ok & (hit.t < f32::INFINITY)).then_some(hit)
}

/// Whether every component of `v` is finite, without a branch per component: `0 · x` is `±0` for
/// finite `x` and NaN for `±∞` and NaN, and a NaN term makes the sum NaN.
#[inline(always)]
fn finite(v: Vec3) -> bool {
    (v * 0.0).element_sum() == 0.0
}

/// The hit reported when the origin lies in a solid: `t = 0`, normal `-dir / |dir|`.
#[inline]
fn origin_inside_hit(dir: Vec3, dd: f32) -> RayHit3 {
    RayHit3 { part: 0, t: 0.0, normal: dir * (-1.0 / dd.sqrt()) }
}

/// The unit normal at `v`, a point relative to the center of a sphere (or the axis of a cylinder)
/// of radius `radius > 0`, with `inv_r = 1 / radius`; `-dir / |dir|` for a zero radius, where `v` is
/// rounding noise.
///
/// `|v|` equals the radius up to rounding, so `n = v / r` has `|n|² = 1 + ε` with tiny ε, and one
/// Newton step for `1/√x` at `x = 1`, `n (3 − |n|²) / 2`, makes it unit to within `3ε²/8` without
/// a square root. When |ε| > 1e-3 (extreme scales, a zero radius) it normalizes exactly instead.
#[inline]
fn round_normal(v: Vec3, inv_r: f32, radius: f32, dir: Vec3, dd: f32) -> Vec3 {
    let n = v * inv_r;
    let n2 = n.length_squared();
    if (n2 - 1.0).abs() <= 1e-3 {
        return n * (1.5 - 0.5 * n2);
    }
    let len2 = v.length_squared();
    if radius > 0.0 && len2 >= f32::MIN_POSITIVE {
        v * len2.sqrt().recip()
    } else {
        origin_inside_hit(dir, dd).normal
    }
}

/// Casts a ray against a two-sided plane.
///
/// Returns the crossing with `t ∈ [0, max_t]` and the plane normal oriented against the ray
/// (`plane.normal` when `normal · dir ≤ 0`, else `-plane.normal`). A ray whose origin lies exactly
/// on the plane hits at `t = 0`; this includes a ray lying in the plane, which gets `plane.normal`.
/// A ray parallel to the plane and off it misses. `None` for an invalid ray or `max_t` (see the
/// [shared contract]), a non-finite plane, or a zero normal. The normal should be unit length; if
/// it is not, `t` is still exact and the reported normal is `±plane.normal` as given.
///
/// [shared contract]: crate::primitive#ray-casts
#[inline]
pub fn ray_plane(ray: &Ray3, max_t: f32, plane: &Plane3) -> Option<RayHit3> {
    let n = plane.normal;
    let denom = n.dot(ray.dir);
    let dist = n.dot(ray.origin) - plane.d;
    let normal = if denom > 0.0 { -n } else { n };
    // A parallel ray off the plane gives ±∞ or NaN: rejected here or by `accept`.
    let t = if dist == 0.0 { 0.0 } else { -dist / denom };
    if !(t >= 0.0 && t <= max_t) {
        return None;
    }
    let dd = ray.dir.length_squared();
    let plane_ok = finite(n) & (plane.d * 0.0 == 0.0) & (n != Vec3::ZERO);
    accept(RayHit3 { part: 0, t, normal }, ray_ok(ray, dd, max_t) & plane_ok)
}

/// Casts a ray against a solid sphere.
///
/// See the [shared contract]. A zero radius is the single point `center`, hit only when the ray
/// passes through it exactly (its normal is then `-dir / |dir|`); a negative or NaN radius is
/// empty.
///
/// The quadratic is solved in the cancellation-free form of Haines, Günther and Akenine-Möller,
/// "Precision Improvements for Ray/Sphere Intersection" (Ray Tracing Gems, ch. 7), with Ericson's
/// early outs (*Real-Time Collision Detection*, §5.3.2).
///
/// [shared contract]: crate::primitive#ray-casts
#[inline]
pub fn ray_sphere(ray: &Ray3, max_t: f32, sphere: &Sphere) -> Option<RayHit3> {
    let (dd, r) = (ray.dir.length_squared(), sphere.radius);
    let f = ray.origin - sphere.center;
    let hit = cast_ball(f, ray.dir, dd, r, max_t)?;
    // A finite `f` means a finite origin and center (a difference that overflows is out of range).
    accept(hit, dir_ok(dd, max_t) & finite(f) & (0.0..f32::INFINITY).contains(&r))
}

/// The sphere cast on unchecked input (see [`accept`]): `f = origin - center`, `dd = dir · dir`.
#[inline]
fn cast_ball(f: Vec3, d: Vec3, dd: f32, radius: f32, max_t: f32) -> Option<RayHit3> {
    // 1/r for the normal, issued first so that its latency overlaps the work below.
    let inv_r = 1.0 / radius;
    // |f + t d|² = r²  ⇔  dd t² + 2 b t + c = 0 with b = f·d, c = f·f − r².
    let r2 = radius * radius;
    let c = f.length_squared() - r2;
    if c <= 0.0 {
        return Some(origin_inside_hit(d, dd));
    }
    let b = f.dot(d);
    // Outside and not approaching the center: both roots (if any) are negative.
    if !(b < 0.0) {
        return None;
    }
    // The discriminant b² − dd·c = dd·r² − |f × d|² (Lagrange's identity). |f × d| = |d|·(distance
    // from the center to the line), so this is Haines et al.'s dd·(r² − |l|²), l the offset from the
    // center to the closest point of the line: its error grows like |f|/r instead of the (|f|/r)² of
    // the cancellation in b² − dd·c when the origin is far from a small sphere.
    let disc = dd * r2 - f.cross(d).length_squared();
    if !(disc >= 0.0) {
        return None;
    }
    // Near root c / q with q = −b + √(b² − dd c): both terms of q are positive, so no cancellation
    // (Numerical Recipes §5.6; Haines et al.).
    let q = -b + disc.sqrt();
    let t = c / q;
    if !(t <= max_t) {
        return None;
    }
    Some(RayHit3 { part: 0, t, normal: round_normal(f + t * d, inv_r, radius, d, dd) })
}

/// The first point where a ray enters an axis-aligned box `[min, max]`, clipped to
/// `t ∈ [0, max_t]` (meaningful for a valid ray and box; computed on unchecked input, see
/// [`accept`]).
enum BoxEntry {
    /// The origin lies in the closed box.
    Inside,
    /// The ray enters through a face at `t > 0`; `normal` is that face's outward axis.
    Face { t: f32, normal: Vec3A },
}

/// Slab test (Kay and Kajiya 1986; Ericson §5.3.3) with the parallel case made explicit, so a zero
/// direction component or an origin exactly on a face never produces `0 · ∞ = NaN`.
#[inline]
fn cast_box(o: Vec3A, d: Vec3A, min: Vec3A, max: Vec3A, max_t: f32) -> Option<BoxEntry> {
    let inv = d.recip();
    let t1 = (min - o) * inv;
    let t2 = (max - o) * inv;
    // A component whose reciprocal overflows (zero or subnormal) moves the ray by less than
    // f32::MAX⁻¹ per unit t across that slab: the ray is inside the slab for all t or never.
    let parallel = inv.abs().cmpeq(Vec3A::INFINITY);
    let in_slab = o.cmpge(min) & o.cmple(max);
    let always = Vec3A::select(in_slab, Vec3A::NEG_INFINITY, Vec3A::INFINITY);
    let near = Vec3A::select(parallel, always, t1.min(t2));
    let far = Vec3A::select(parallel, -always, t1.max(t2));
    let enter = near.max_element();
    let exit = far.min_element();
    if !(enter <= exit && exit >= 0.0 && enter <= max_t) {
        return None;
    }
    if enter <= 0.0 {
        return Some(BoxEntry::Inside);
    }
    // The entry face is on the axis whose slab is entered last; its outward normal opposes d.
    let normal = if near.x == enter {
        Vec3A::new(-d.x.signum(), 0.0, 0.0)
    } else if near.y == enter {
        Vec3A::new(0.0, -d.y.signum(), 0.0)
    } else {
        Vec3A::new(0.0, 0.0, -d.z.signum())
    };
    Some(BoxEntry::Face { t: enter, normal })
}

/// Casts a ray against a solid axis-aligned box.
///
/// See the [shared contract]. Direction components of zero and origins exactly on a face are
/// handled exactly (a ray sliding along a face touches the box). At an edge or corner the normal is
/// the one of a face meeting there. An inverted box (`min > max` on some axis) is empty: `None`; a
/// zero-extent box is a face, segment or point and is hit where the ray meets it.
///
/// [shared contract]: crate::primitive#ray-casts
#[inline]
pub fn ray_aabb(ray: &Ray3, max_t: f32, aabb: &Aabb3) -> Option<RayHit3> {
    let dd = ray.dir.length_squared();
    let hit = match cast_box(ray.origin.into(), ray.dir.into(), aabb.min.into(), aabb.max.into(), max_t)? {
        BoxEntry::Inside => origin_inside_hit(ray.dir, dd),
        BoxEntry::Face { t, normal } => RayHit3 { part: 0, t, normal: normal.into() },
    };
    let box_ok = finite(aabb.min) & finite(aabb.max) & aabb.min.cmple(aabb.max).all();
    accept(hit, ray_ok(ray, dd, max_t) & box_ok)
}

/// Casts a ray against a solid oriented box.
///
/// The ray is expressed in the box frame (`axesᵀ (origin − center)`, `axesᵀ dir`), cast against
/// `[-half_extents, half_extents]` as in [`ray_aabb`], and the face normal is mapped back to world
/// space (a column of `axes`, possibly negated). See the [shared contract]. A negative half extent
/// makes the box empty (`None`); `axes` must be orthonormal (not checked; a non-finite `axes` gives
/// `None`).
///
/// [shared contract]: crate::primitive#ray-casts
#[inline]
pub fn ray_obb(ray: &Ray3, max_t: f32, obb: &Obb3) -> Option<RayHit3> {
    let h = obb.half_extents;
    let rel = ray.origin - obb.center;
    let (ax, ay, az) = (obb.axes.x_axis, obb.axes.y_axis, obb.axes.z_axis);
    let o = Vec3A::new(ax.dot(rel), ay.dot(rel), az.dot(rel));
    let d = Vec3A::new(ax.dot(ray.dir), ay.dot(ray.dir), az.dot(ray.dir));
    let dd = ray.dir.length_squared();
    let hit = match cast_box(o, d, -Vec3A::from(h), h.into(), max_t)? {
        BoxEntry::Inside => origin_inside_hit(ray.dir, dd),
        BoxEntry::Face { t, normal } => RayHit3 { part: 0, t, normal: obb.axes * Vec3::from(normal) },
    };
    let axes_ok = finite(ax) & finite(ay) & finite(az);
    let obb_ok = finite(obb.center) & axes_ok & finite(h) & h.cmpge(Vec3::ZERO).all();
    accept(hit, ray_ok(ray, dd, max_t) & obb_ok)
}

/// Casts a ray against a solid capsule: every point within `radius` of the segment `a b`.
///
/// See the [shared contract]. `a == b` is a sphere; a zero radius is the segment itself (hit only
/// where the ray passes through it exactly, with normal `-dir / |dir|`); a negative or NaN radius
/// is empty.
///
/// Method (after Ericson §5.3.7): if the origin is outside, find where the ray enters the infinite
/// cylinder around line `ab`. If that point lies between the end discs it is the hit. Otherwise the
/// first point of the capsule is on the end sphere on that side: the ray is inside the infinite
/// cylinder from there on, the only part of the capsule beyond that end disc is its end sphere, and
/// the disc itself lies inside that sphere.
///
/// [shared contract]: crate::primitive#ray-casts
#[inline]
pub fn ray_capsule(ray: &Ray3, max_t: f32, a: Vec3, b: Vec3, radius: f32) -> Option<RayHit3> {
    let dd = ray.dir.length_squared();
    let hit = cast_capsule(ray, dd, max_t, a, b, radius)?;
    let capsule_ok = finite(a) & finite(b) & (0.0..f32::INFINITY).contains(&radius);
    accept(hit, ray_ok(ray, dd, max_t) & capsule_ok)
}

/// The capsule cast on unchecked input (see [`accept`]).
#[inline(always)]
fn cast_capsule(ray: &Ray3, dd: f32, max_t: f32, a: Vec3, b: Vec3, radius: f32) -> Option<RayHit3> {
    let d = ray.dir;
    let ba = b - a;
    let oa = ray.origin - a;
    let baba = ba.length_squared();
    let r2 = radius * radius;
    if !(baba >= f32::MIN_POSITIVE) {
        // |b − a| < 1.1e-19: a sphere, within far less than any rounding of the coordinates.
        return cast_ball(oa, d, dd, radius, max_t);
    }
    let (inv_baba, inv_r) = (1.0 / baba, 1.0 / radius);
    // Axial coordinates are kept multiplied by |ba|², so the segment spans [0, baba].
    let s_origin = oa.dot(ba);
    let closest = (s_origin * inv_baba).clamp(0.0, 1.0);
    if (oa - closest * ba).length_squared() <= r2 {
        return Some(origin_inside_hit(d, dd));
    }
    let d_axial = d.dot(ba);
    // Components perpendicular to the axis: |op + t dp|² = r² on the infinite cylinder.
    let dp = d - (d_axial * inv_baba) * ba;
    let aq = dp.length_squared();
    let op = oa - (s_origin * inv_baba) * ba;
    let c = op.length_squared() - r2;
    let s_enter = if c > 0.0 {
        // Outside the infinite cylinder: same cancellation-free solution as `cast_ball`.
        let bq = op.dot(dp);
        if !(bq < 0.0) {
            return None; // moving away from (or parallel to) the axis: never enters
        }
        let disc = aq * r2 - op.cross(dp).length_squared();
        if !(disc >= 0.0) {
            return None;
        }
        let t = c / (-bq + disc.sqrt());
        if !(t <= max_t) {
            return None; // the capsule lies inside the cylinder: it is entered no earlier
        }
        let s = s_origin + t * d_axial;
        if s >= 0.0 && s <= baba {
            return Some(RayHit3 { part: 0, t, normal: round_normal(op + t * dp, inv_r, radius, d, dd) });
        }
        s
    } else {
        // Already inside the infinite cylinder (but outside the capsule): beyond one end.
        s_origin
    };
    let cap = if s_enter + s_enter < baba { a } else { b };
    cast_ball(ray.origin - cap, d, dd, radius, max_t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Mat3;
    use crate::primitive::ray_triangle;

    fn ray(o: [f32; 3], d: [f32; 3]) -> Ray3 {
        Ray3::new(Vec3::from(o), Vec3::from(d))
    }

    fn unit_box() -> Aabb3 {
        Aabb3::new(Vec3::splat(-1.0), Vec3::splat(1.0))
    }

    const TRI: [Vec3; 3] = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];

    /// Calls every 3D cast on `r` and checks that each returns `None`.
    fn all_miss(r: &Ray3, max_t: f32) {
        let plane = Plane3 { normal: Vec3::Z, d: 0.0 };
        let obb = Obb3::new(Vec3::ZERO, Mat3::IDENTITY, Vec3::ONE);
        assert_eq!(ray_plane(r, max_t, &plane), None);
        assert_eq!(ray_sphere(r, max_t, &Sphere::new(Vec3::ZERO, 1.0)), None);
        assert_eq!(ray_aabb(r, max_t, &unit_box()), None);
        assert_eq!(ray_obb(r, max_t, &obb), None);
        assert_eq!(ray_capsule(r, max_t, Vec3::ZERO, Vec3::X, 1.0), None);
        assert_eq!(ray_triangle(r, max_t, &TRI), None);
    }

    #[test]
    fn invalid_rays_and_limits_miss_everything() {
        // The origin (0.2, 0.2, 0) lies in every shape, so any accepted query would hit.
        let o = [0.2, 0.2, 0.0];
        all_miss(&ray(o, [0.0, 0.0, 0.0]), 1.0);
        all_miss(&ray(o, [1e-30, 0.0, 0.0]), 1.0);
        all_miss(&ray(o, [f32::NAN, 0.0, 1.0]), 1.0);
        all_miss(&ray(o, [f32::INFINITY, 0.0, 1.0]), 1.0);
        all_miss(&ray([f32::NAN, 0.0, 0.0], [0.0, 0.0, 1.0]), 1.0);
        all_miss(&ray([f32::NEG_INFINITY, 0.0, 0.0], [0.0, 0.0, 1.0]), 1.0);
        all_miss(&ray(o, [0.0, 0.0, 1.0]), -1.0);
        all_miss(&ray(o, [0.0, 0.0, 1.0]), f32::NAN);
        all_miss(&ray(o, [0.0, 0.0, 1.0]), f32::NEG_INFINITY);
    }

    #[test]
    fn infinite_max_t_is_allowed() {
        let r = ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]);
        let hit = ray_sphere(&r, f32::INFINITY, &Sphere::new(Vec3::ZERO, 1.0)).unwrap();
        assert_eq!(hit.t, 4.0);
        assert_eq!(ray_triangle(&r, f32::INFINITY, &TRI).unwrap().t, 5.0);
    }

    #[test]
    fn plane_hits_from_both_sides_and_in_plane() {
        let plane = Plane3 { normal: Vec3::Z, d: 2.0 };
        let down = ray_plane(&ray([0.0, 0.0, 5.0], [0.0, 0.0, -2.0]), 10.0, &plane).unwrap();
        assert_eq!((down.t, down.normal), (1.5, Vec3::Z));
        let up = ray_plane(&ray([0.0, 0.0, 0.0], [0.0, 0.0, 4.0]), 10.0, &plane).unwrap();
        assert_eq!((up.t, up.normal), (0.5, -Vec3::Z));
        assert_eq!(ray_plane(&ray([0.0, 0.0, 0.0], [0.0, 0.0, 4.0]), 0.4, &plane), None);
        // Parallel: off the plane misses, in the plane hits at t = 0.
        assert_eq!(ray_plane(&ray([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]), 10.0, &plane), None);
        let inside = ray_plane(&ray([3.0, 0.0, 2.0], [1.0, 0.0, 0.0]), 10.0, &plane).unwrap();
        assert_eq!((inside.t, inside.normal), (0.0, Vec3::Z));
        // Pointing away misses; bad planes miss.
        assert_eq!(ray_plane(&ray([0.0, 0.0, 5.0], [0.0, 0.0, 1.0]), 10.0, &plane), None);
        let r = ray([0.0, 0.0, 2.0], [0.0, 0.0, 1.0]);
        let zero = Plane3 { normal: Vec3::ZERO, d: 0.0 };
        let nan = Plane3 { normal: Vec3::Z, d: f32::NAN };
        assert_eq!(ray_plane(&r, 1.0, &zero), None);
        assert_eq!(ray_plane(&r, 1.0, &nan), None);
    }

    #[test]
    fn sphere_entry_inside_tangent_and_degenerate_radius() {
        let s = Sphere::new(Vec3::new(0.0, 0.0, 0.0), 2.0);
        let hit = ray_sphere(&ray([-10.0, 0.0, 0.0], [4.0, 0.0, 0.0]), 5.0, &s).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec3::X));
        assert_eq!(ray_sphere(&ray([-10.0, 0.0, 0.0], [4.0, 0.0, 0.0]), 1.9, &s), None);
        // Tangent ray touches.
        let hit = ray_sphere(&ray([-10.0, 2.0, 0.0], [1.0, 0.0, 0.0]), 20.0, &s).unwrap();
        assert_eq!((hit.t, hit.normal), (10.0, Vec3::Y));
        // Moving away misses; origin inside (or on the surface) hits at t = 0 with −dir.
        assert_eq!(ray_sphere(&ray([-10.0, 0.0, 0.0], [-1.0, 0.0, 0.0]), 20.0, &s), None);
        let hit = ray_sphere(&ray([0.5, 0.0, 0.0], [0.0, 3.0, 0.0]), 1.0, &s).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::Y));
        let hit = ray_sphere(&ray([2.0, 0.0, 0.0], [0.0, 0.0, 1.0]), 1.0, &s).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::Z));
        // Zero radius: a point, hit only through it.
        let p = Sphere::new(Vec3::new(1.0, 0.0, 0.0), 0.0);
        let hit = ray_sphere(&ray([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]), 5.0, &p).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec3::X));
        assert_eq!(ray_sphere(&ray([-1.0, 0.1, 0.0], [1.0, 0.0, 0.0]), 5.0, &p), None);
        // Negative, NaN and infinite radii are empty.
        let r = ray([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        for radius in [-1.0, f32::NAN, f32::INFINITY] {
            assert_eq!(ray_sphere(&r, 5.0, &Sphere::new(Vec3::ZERO, radius)), None);
        }
        let bad = Sphere::new(Vec3::new(f32::NAN, 0.0, 0.0), 1.0);
        assert_eq!(ray_sphere(&r, 5.0, &bad), None);
    }

    #[test]
    fn sphere_far_origin_keeps_precision() {
        // The naive discriminant b² − a·c cancels completely here (b² ≈ a·c ≈ 1e16, r² = 1e-2):
        // it cannot tell a hit at offset 0.05 from a miss at offset 0.11.
        let s = Sphere::new(Vec3::ZERO, 0.1);
        let hit = ray_sphere(&ray([-1e8, 0.05, 0.0], [1.0, 0.0, 0.0]), f32::INFINITY, &s).unwrap();
        let expected = 1e8 - (0.1f64 * 0.1 - 0.05 * 0.05).sqrt();
        assert!((f64::from(hit.t) - expected).abs() <= 8.0, "{}", hit.t);
        assert_eq!(ray_sphere(&ray([-1e8, 0.11, 0.0], [1.0, 0.0, 0.0]), f32::INFINITY, &s), None);
        // At 1e4 the hit point is resolved to f32 spacing (1e-3) and so is the normal.
        let hit = ray_sphere(&ray([-1e4, 0.05, 0.0], [1.0, 0.0, 0.0]), f32::INFINITY, &s).unwrap();
        assert!((f64::from(hit.t) - (1e4 - 0.0866)).abs() < 2e-3, "{}", hit.t);
        assert!((hit.normal - Vec3::new(-0.866_025_4, 0.5, 0.0)).length() < 2e-2);
    }

    #[test]
    fn aabb_faces_axis_parallel_rays_and_origin_on_face() {
        let b = unit_box();
        let hit = ray_aabb(&ray([-3.0, 0.0, 0.0], [2.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (1.0, -Vec3::X));
        let hit = ray_aabb(&ray([0.5, 4.0, 0.5], [0.0, -1.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (3.0, Vec3::Y));
        // Parallel to a slab and outside it: miss, even with max_t = ∞.
        assert_eq!(ray_aabb(&ray([-3.0, 2.0, 0.0], [1.0, 0.0, 0.0]), f32::INFINITY, &b), None);
        // Sliding exactly along a face (origin coordinate == max, dir component 0) touches.
        let hit = ray_aabb(&ray([-3.0, 1.0, 0.0], [1.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec3::X));
        let hit = ray_aabb(&ray([-3.0, 1.0, -1.0], [1.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!(hit.t, 2.0);
        // Origin on a face: t = 0 whether entering or leaving, normal −dir.
        let hit = ray_aabb(&ray([1.0, 0.0, 0.0], [-2.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vec3::X));
        let hit = ray_aabb(&ray([1.0, 0.0, 0.0], [2.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::X));
        // Corner graze.
        let hit = ray_aabb(&ray([-2.0, -2.0, 1.0], [1.0, 1.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!(hit.t, 1.0);
        assert!(hit.normal == -Vec3::X || hit.normal == -Vec3::Y);
        // −0.0 direction components behave like +0.0.
        let hit = ray_aabb(&ray([0.0, 0.0, 5.0], [-0.0, -0.0, -1.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (4.0, Vec3::Z));
    }

    #[test]
    fn aabb_degenerate_and_inverted_boxes() {
        let r = ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]);
        let flat = Aabb3::new(Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, 1.0, 0.0));
        let hit = ray_aabb(&r, 10.0, &flat).unwrap();
        assert_eq!((hit.t, hit.normal), (5.0, -Vec3::Z));
        let point = Aabb3::new(Vec3::ZERO, Vec3::ZERO);
        assert_eq!(ray_aabb(&r, 10.0, &point).unwrap().t, 5.0);
        let inverted = Aabb3::new(Vec3::new(1.0, -1.0, -1.0), Vec3::new(-1.0, 1.0, 1.0));
        assert_eq!(ray_aabb(&r, 10.0, &inverted), None);
        let nan = Aabb3::new(Vec3::splat(f32::NAN), Vec3::ONE);
        assert_eq!(ray_aabb(&r, 10.0, &nan), None);
        let inf = Aabb3::new(Vec3::splat(f32::NEG_INFINITY), Vec3::ONE);
        assert_eq!(ray_aabb(&r, 10.0, &inf), None);
    }

    #[test]
    fn obb_rotated_face_normal_in_world() {
        let rot = Mat3::from_rotation_z(std::f32::consts::FRAC_PI_4);
        let obb = Obb3::new(Vec3::new(1.0, 0.0, 0.0), rot, Vec3::new(1.0, 2.0, 3.0));
        let hit = ray_obb(&ray([1.0, 0.0, 10.0], [0.0, 0.0, -1.0]), 20.0, &obb).unwrap();
        assert!((hit.t - 7.0).abs() < 1e-6);
        assert!((hit.normal - Vec3::Z).length() < 1e-6);
        // Along the box's local −x axis from outside.
        let r = Ray3::new(Vec3::new(1.0, 0.0, 0.0) + rot * Vec3::new(5.0, 0.0, 0.0), rot * -Vec3::X);
        let hit = ray_obb(&r, 20.0, &obb).unwrap();
        assert!((hit.t - 4.0).abs() < 1e-5);
        assert!((hit.normal - rot * Vec3::X).length() < 1e-6);
        // Inside: t = 0, normal = −dir (world).
        let hit = ray_obb(&ray([1.0, 0.0, 0.0], [0.0, 2.0, 0.0]), 1.0, &obb).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::Y));
        let negative = Obb3::new(Vec3::ZERO, Mat3::IDENTITY, Vec3::new(1.0, -1.0, 1.0));
        assert_eq!(ray_obb(&ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]), 10.0, &negative), None);
        let nan_axes = Obb3::new(Vec3::ZERO, Mat3::NAN, Vec3::ONE);
        assert_eq!(ray_obb(&ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]), 10.0, &nan_axes), None);
    }

    #[test]
    fn capsule_band_caps_inside_and_degenerate() {
        let (a, b) = (Vec3::new(0.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 0.0));
        // Band.
        let hit = ray_capsule(&ray([2.0, 5.0, 0.0], [0.0, -1.0, 0.0]), 10.0, a, b, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (4.0, Vec3::Y));
        // Along the axis into each cap.
        let hit = ray_capsule(&ray([-5.0, 0.0, 0.0], [1.0, 0.0, 0.0]), 10.0, a, b, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (4.0, -Vec3::X));
        let hit = ray_capsule(&ray([9.0, 0.0, 0.0], [-2.0, 0.0, 0.0]), 10.0, a, b, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, Vec3::X));
        // Entering the infinite cylinder beyond an end, then the cap.
        let hit = ray_capsule(&ray([-0.5, 5.0, 0.0], [0.0, -1.0, 0.0]), 10.0, a, b, 1.0).unwrap();
        let expected = 5.0 - (1.0f32 - 0.25).sqrt();
        assert!((hit.t - expected).abs() < 1e-6);
        // Parallel to the axis outside the cylinder: miss.
        assert_eq!(ray_capsule(&ray([-5.0, 1.5, 0.0], [1.0, 0.0, 0.0]), 10.0, a, b, 1.0), None);
        // Inside.
        let hit = ray_capsule(&ray([3.0, 0.5, 0.0], [0.0, 0.0, 1.0]), 10.0, a, b, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::Z));
        // a == b: a sphere.
        let hit = ray_capsule(&ray([0.0, 0.0, -3.0], [0.0, 0.0, 1.0]), 10.0, a, a, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec3::Z));
        // Zero radius: the segment itself.
        let hit = ray_capsule(&ray([1.0, 3.0, 0.0], [0.0, -1.0, 0.0]), 10.0, a, b, 0.0).unwrap();
        assert_eq!((hit.t, hit.normal), (3.0, Vec3::Y));
        assert_eq!(ray_capsule(&ray([1.0, 3.0, 0.1], [0.0, -1.0, 0.0]), 10.0, a, b, 0.0), None);
        // Bad radius or endpoints.
        let r = ray([2.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        assert_eq!(ray_capsule(&r, 10.0, a, b, -1.0), None);
        assert_eq!(ray_capsule(&r, 10.0, a, b, f32::NAN), None);
        assert_eq!(ray_capsule(&r, 10.0, a, Vec3::NAN, 1.0), None);
    }
}
