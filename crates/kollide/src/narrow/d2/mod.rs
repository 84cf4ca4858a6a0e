//! The 2D narrow phase: the pair queries of [`ConvexShape2`](crate::shape::ConvexShape2)s under
//! [`Affine2`](glam::Affine2) placements, with the contract of the 3D queries (world-space
//! answers, normals from A to B, signed separations, [`NarrowError`](super::NarrowError) for bad
//! input; singular placements allowed in pair queries).
//!
//! A pair runs in one frame with the world's metric centred on A. Shapes whose
//! placement keeps discs discs (similarities) or that have no margin become *proxies* (at most
//! eight points with edge normals and a radius): discs, capsules and segments get closed forms,
//! polygons the separating-axis test with edge clipping for manifolds of up to two points with
//! feature ids. Everything else (curved shapes under non-uniform scale or shear,
//! polygons of more than eight vertices) goes through the support-map algorithms: GJK for
//! distances, EPA for penetration, GJK ray casts and conservative advancement for casts.
//! Chains avoid ghost contacts at their joints ([`chain_segment_manifold2`]).

mod boxes;
mod cast;
mod chain;
mod closed_form;
mod epa;
mod frame;
mod gjk;
mod manifold;
mod query;

pub use cast::{CastHit2, cast_ray_support2, cast_shapes2};
pub use chain::{ChainSegment2, chain_segment_manifold2};
pub use epa::{Penetration2, contact2 as penetration2};
pub use gjk::{Distance2, GjkCache2, gjk_distance2, gjk_intersects2};
pub use manifold::{ContactManifold2, ManifoldPoint2};
pub use query::{
    Contact2, ShapeCastHit2, cast_ray2, cast_shape2, contact_manifold2, contact2, contains_point2, distance2,
    intersects2, project_point2,
};
