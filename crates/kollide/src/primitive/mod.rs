//! The "book" layer: pure geometric tests on raw points and bounding volumes.
//!
//! Naming: `closest_*` returns closest points, `test_*` answers a yes/no overlap question,
//! `intersect_*` returns where two things meet, `classify_*` says on which side something lies,
//! `ray_*` casts a ray. 2D twins live in [`d2`].
//!
//! # Ray casts
//!
//! Every cast takes a [`Ray3`](crate::math::Ray3) `origin + t * dir` and a limit `max_t`, and
//! reports only hits with `t ∈ [0, max_t]`, where `t` is measured in units of `dir` (which need not
//! be unit length).
//!
//! The shared contract (each function adds its own cases):
//!
//! - **Valid rays.** `origin` must be finite and `dir · dir` a positive normal `f32`
//!   (`f32::MIN_POSITIVE ≤ dir · dir ≤ f32::MAX`, roughly `1e-19 < |dir| < 1.8e19`). Any other ray,
//!   in particular a zero `dir`, gets `None`: it has no direction for a hit normal to face, so ask a
//!   containment test instead.
//! - **Limits.** `max_t` may be `+∞`. A negative or NaN `max_t` gets `None`.
//! - **Solids.** Spheres, boxes and capsules are closed solids. A ray whose origin lies in the solid
//!   (inside or on its boundary) hits at `t = 0` with normal `-dir / |dir|`. Otherwise the hit is the
//!   first boundary point, with the outward unit surface normal there, which faces the ray
//!   (`normal · dir ≤ 0`, up to rounding for tangent hits). Touching (a tangent ray) counts as a hit.
//! - **Bad shapes.** A shape with a non-finite coordinate or a negative size is empty: `None`.
//!   Sizes of zero are valid, lower-dimensional shapes (a point, a segment, a flat box) and are hit
//!   only where the ray actually meets them.
//! - **Range.** Coordinates are assumed small enough that their squares and products stay finite
//!   (below about 1e18); beyond that a cast may miss, or report a hit that is finite and within
//!   `[0, max_t]` but not meaningful.
//!
//! Triangles are two-sided surfaces, cast with the watertight test of Woop, Benthin and Wald; see
//! [`ray_triangle`].

mod closest;
pub mod d2;
mod overlap;
mod plane;
mod predicates;
mod ray;
mod ray_triangle;
mod tri_tri;

pub use closest::*;
pub use overlap::*;
pub use plane::*;
pub use predicates::*;
pub use ray::*;
pub use ray_triangle::*;
pub use tri_tri::*;
