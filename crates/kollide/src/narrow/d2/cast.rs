//! Linear shape casts and ray casts against support maps, by conservative advancement.
//!
//! B translates by `t · velocity` while A stays (Mirtich's conservative advancement, as Box2D's
//! `b2ShapeCast`): at each step GJK gives the cores' distance `d` and normal `n`; the separation
//! along `n` shrinks at the rate `-velocity · n` and no point of B reaches the target distance
//! `σ` before it has, so `t` advances by `(d - σ) / (-velocity · n)`. The distance is a convex
//! function of `t` and the step is Newton's on it from the left: it never passes the first
//! contact (up to GJK's tolerance), converges in a few steps when the contact is a face or the
//! motion is head-on, and more slowly only for grazing motion. A cast misses once B no longer
//! approaches along `n` (the distance has passed its minimum above `σ`) or `t` passes `max_t`.
//! A ray cast is the cast of a point.

use glam::Vec2;

use super::epa::overlap_contact;
use super::gjk::{Gjk2, GjkCache2, Simplex2, gjk2, margin_ok};
use crate::math::Ray2;
use crate::math::tolerances::REL_EPSILON;
use crate::primitive::d2::RayHit2;
use crate::shape::SupportMap2;

/// Iteration cap of the advancement (each step one warm-started GJK).
const MAX_ITERATIONS: usize = 64;

/// A cast stops when the cores' distance is within `CAST_RELATIVE · σ` (plus the rounding of the
/// coordinates, `REL_EPSILON` of them) of the target `σ`, then takes one more step along the last
/// normal, which is exact for a face contact.
const CAST_RELATIVE: f32 = 1e-5;

/// Where a linear cast first brings two shapes within the target distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastHit2 {
    /// The time of the hit, in `[0, max_t]`, in units of the velocity.
    pub t: f32,
    /// The contact point in the common frame at time `t`, on B's surface (B moved by
    /// `t · velocity`): B's point closest to A.
    pub point: Vec2,
    /// Unit normal from A to B at time `t`.
    pub normal: Vec2,
}

/// A support map translated by `offset`.
struct Moved<'a, S: ?Sized> {
    shape: &'a S,
    offset: Vec2,
}

impl<S: SupportMap2 + ?Sized> SupportMap2 for Moved<'_, S> {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        self.shape.support(dir) + self.offset
    }
}

/// A single point.
struct Point(Vec2);

impl SupportMap2 for Point {
    #[inline]
    fn support(&self, _dir: Vec2) -> Vec2 {
        self.0
    }
}

/// The outcome of conservative advancement.
enum Advance {
    Hit(CastHit2),
    /// The cores overlap at `t = 0`; the simplex holds the origin.
    Overlapping(Simplex2),
    Miss,
}

/// The first time in `[0, max_t]` at which B, translated by `t · velocity`, comes within
/// `target_separation` of A (both shapes a core support map plus a disk of radius `margin`, in
/// one common frame), by conservative advancement of GJK distances (see the module notes).
///
/// Shapes already within the target at `t = 0` hit at `t = 0` with the normal of
/// [`contact2`](super::contact2) (EPA when the cores overlap) and its point on B. Otherwise the
/// hit's distance is within `1e-5` of the target distance (margins included) plus `1e-6` of the
/// coordinates, and the hit is never later than the first contact by more than that; the last
/// step is exact for a face contact. A grazing sweep that has not converged after 64 steps
/// reports its last (early) time.
///
/// Bad input gives `None`: a negative, NaN or infinite margin or target, a non-finite velocity,
/// a NaN or negative `max_t` (`+∞` is allowed), a non-finite support point. A zero velocity hits
/// (at `t = 0`) only shapes already within the target.
pub fn cast_shapes2<A, B>(
    a: &A,
    margin_a: f32,
    b: &B,
    margin_b: f32,
    velocity: Vec2,
    max_t: f32,
    target_separation: f32,
) -> Option<CastHit2>
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    if !(margin_ok(margin_a) && margin_ok(margin_b) && margin_ok(target_separation)) {
        return None;
    }
    match advance(a, margin_a, b, margin_b, velocity, max_t, target_separation) {
        Advance::Hit(hit) => Some(hit),
        Advance::Overlapping(simplex) => {
            let contact = overlap_contact(a, margin_a, b, margin_b, &simplex);
            contact.separation.is_finite().then_some(CastHit2 { t: 0.0, point: contact.point_b, normal: contact.normal })
        }
        Advance::Miss => None,
    }
}

/// The first hit of a ray with a solid shape (a core support map plus a disk of radius
/// `margin`): `t ∈ [0, max_t]` in units of `ray.dir` and the outward unit normal there (facing
/// against the ray, up to rounding for tangent hits). The cast of a point by [`cast_shapes2`]:
/// the hit point is within `1e-5 · margin` plus `1e-6` of the coordinates of the surface (exact
/// for a face of a polygon).
///
/// Follows the [2D ray contract](crate::primitive::d2#ray-casts): an origin inside the shape (or
/// within the tolerance of its surface) hits at `t = 0` with normal `-dir / |dir|`; an invalid
/// ray (non-finite origin, `dir · dir` zero, subnormal or infinite, NaN or negative `max_t`), a
/// negative, NaN or infinite margin, or a non-finite support point gives `None`.
pub fn cast_ray_support2<S>(shape: &S, margin: f32, ray: &Ray2, max_t: f32) -> Option<RayHit2>
where
    S: SupportMap2 + ?Sized,
{
    let dd = ray.dir.length_squared();
    if !(ray.origin.is_finite() && (f32::MIN_POSITIVE..=f32::MAX).contains(&dd) && max_t >= 0.0 && margin_ok(margin)) {
        return None;
    }
    let against = -ray.dir / dd.sqrt();
    match advance(shape, margin, &Point(ray.origin), 0.0, ray.dir, max_t, 0.0) {
        Advance::Hit(hit) => Some(RayHit2 { t: hit.t, normal: if hit.t == 0.0 { against } else { hit.normal }, part: 0 }),
        Advance::Overlapping(_) => Some(RayHit2 { t: 0.0, normal: against, part: 0 }),
        Advance::Miss => None,
    }
}

/// Conservative advancement on valid margins and target; checks the velocity and `max_t`.
fn advance<A, B>(
    a: &A,
    margin_a: f32,
    b: &B,
    margin_b: f32,
    velocity: Vec2,
    max_t: f32,
    target: f32,
) -> Advance
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    if !(velocity.is_finite() && max_t >= 0.0) {
        return Advance::Miss;
    }
    let sigma = margin_a + margin_b + target;
    let mut cache = GjkCache2::default();
    let mut t = 0.0f32;
    // The last step's time, B's point and normal.
    let mut last: Option<(f32, Vec2, Vec2)> = None;
    for _ in 0..MAX_ITERATIONS {
        let moved = Moved { shape: b, offset: velocity * t };
        match gjk2(a, &moved, f32::INFINITY, &mut cache) {
            Gjk2::Invalid => return Advance::Miss,
            Gjk2::Overlapping { simplex } => {
                let Some((_, _, normal)) = last else { return Advance::Overlapping(simplex) };
                // The cores touch after a step (σ = 0, up to rounding): a hit along the last normal.
                let (pa, pb) = simplex.witnesses();
                return Advance::Hit(CastHit2 { t, point: (pa + pb) * 0.5 - normal * margin_b, normal });
            }
            Gjk2::Separated { v, simplex } => {
                let distance = v.length();
                let normal = -v / distance;
                let point = simplex.witnesses().1 - normal * margin_b;
                let gap = distance - sigma;
                let closing = -velocity.dot(normal);
                if gap <= CAST_RELATIVE * sigma + REL_EPSILON * simplex.coordinate_scale() {
                    // Within the tolerance: after a step, one more along this normal (Newton's,
                    // exact for a face); at t = 0 the shapes are already within the target.
                    let step = if last.is_some() && gap > 0.0 && closing > 0.0 {
                        (gap / closing).min(max_t - t)
                    } else {
                        0.0
                    };
                    return Advance::Hit(CastHit2 { t: t + step, point: point + velocity * step, normal });
                }
                if !(closing > 0.0) {
                    return Advance::Miss;
                }
                last = Some((t, point, normal));
                t += gap / closing;
                if !(t <= max_t && t < f32::INFINITY) {
                    return Advance::Miss;
                }
            }
        }
    }
    match last {
        Some((at, point, normal)) => Advance::Hit(CastHit2 { t, point: point + velocity * (t - at), normal }),
        None => Advance::Miss,
    }
}
