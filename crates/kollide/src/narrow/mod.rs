//! The narrow phase for convex shapes: distance, closest points, contacts, contact manifolds, ray
//! casts and linear shape casts, for every pair of [`ConvexShape`]s under any affine placements.
//!
//! Every pair query takes both world placements (`a_to_world`, `b_to_world`; any invertible or
//! singular affine maps) and answers in world space. Internally it runs in A's frame when A's map
//! is rigid (orthonormal linear part) and in a world-aligned frame centred on A otherwise, so a
//! pair far from the world origin loses no precision.
//!
//! Algorithms: GJK (van den Bergen) for distances, with a caller-owned [`GjkCache`]; EPA for
//! penetration; closed forms for balls and capsules in any combination, and separating-axis tests
//! for box–box and box–triangle, when the placements are similarities (for distances, the
//! separating axes prove overlap outright or give GJK its first direction; for the other shapes
//! around their origins, one's origin inside the other proves a deep overlap); polygon clipping for
//! manifolds ([`ContactManifold`]). Shapes with a margin (balls, capsules, rounded shapes) run GJK
//! on their cores and add the margins when their placement is a similarity (a scaled ball is still
//! a ball); under other maps the whole shape goes through GJK/EPA. GJK and EPA are compiled per
//! pair for the common pairs of shapes without margin (boxes, triangles, cylinders, hulls), so
//! their support functions need no dispatch.
//!
//! Dispatch is a `match` on the pair of shapes; every pair of kinds has an implementation for
//! every query (the tests enumerate the matrix). The only errors are invalid input
//! ([`NarrowError`]).
//!
//! [`ConvexShape`]: crate::shape::ConvexShape

mod cast;
mod d2;
mod closed_form;
mod contact;
mod distance;
mod epa;
mod frame;
mod gjk;
mod manifold;
mod mesh;
mod sat;
mod types;

pub use cast::{cast_ray, cast_shape, project_point};
pub use d2::*;
pub use contact::{contact, contact_gjk_epa, contact_manifold};
pub use distance::{distance, intersects};
pub use gjk::GjkCache;
pub use manifold::{ContactManifold, ManifoldPoint, PartManifold};
pub use mesh::{InternalEdges, convex_mesh_manifolds};
pub use types::{Contact, NarrowError, ShapeCastHit};
