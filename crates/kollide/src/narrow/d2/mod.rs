//! The 2D narrow phase over support maps: the algorithms every pair of 2D convex shapes can
//! fall back to.
//!
//! Each shape is a core [`SupportMap2`](crate::shape::SupportMap2) plus a disk of radius `margin`
//! (their Minkowski sum: a ball is a point with a margin, a capsule a segment, a rounded polygon
//! a polygon), as Box2D's shape proxies and the 3D shapes' `core_support` and `margin`. Both
//! shapes are given in one common frame: the caller places them (best in A's frame, so that pairs
//! far from the origin keep their precision). The algorithms run on the cores and add the margins:
//!
//! - [`gjk_distance2`], [`gjk_intersects2`]: GJK (van den Bergen) with a caller-owned warm start
//!   ([`GjkCache2`]); the simplex solver decides sides with exact orientation predicates.
//! - [`contact2`]: GJK when the cores are apart, EPA (an expanding convex polygon) when they
//!   overlap; the signed separation of the full shapes, the normal and the deepest points.
//! - [`cast_shapes2`], [`cast_ray_support2`]: linear casts by conservative advancement.
//!
//! Polygons get exact answers up to rounding (GJK and EPA end on repeated vertices); smooth
//! cores (disks under linear maps, ellipses) get answers within the relative tolerances each
//! function states. Nothing loops forever (every loop has a cap), panics, or returns NaN: bad
//! input (a negative or non-finite margin, a non-finite support point, a non-finite velocity or
//! `max_t`) has a documented answer per function.

mod cast;
mod epa;
mod gjk;

pub use cast::{CastHit2, cast_ray_support2, cast_shapes2};
pub use epa::{Penetration2, contact2};
pub use gjk::{Distance2, GjkCache2, gjk_distance2, gjk_intersects2};
