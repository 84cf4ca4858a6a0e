//! The 2D query layer: [`Shape2`] over every 2D shape kind, with one implementation of every pair
//! and single-shape query, under the contract of the [3D layer](super) (world-space answers,
//! normals from A to B, signed separations, [`QueryError`](super::QueryError) for bad input).
//!
//! Composite shapes (compounds, polylines, triangle meshes) are sets of convex parts under a BVH
//! in their own frame: a pair query visits the parts of each side whose boxes overlap the other
//! side's box (grown by the query's reach) and runs the convex pair query of
//! [`crate::narrow`] on each pair of parts, reporting the part ids. Compounds and triangle meshes
//! are solids (the union of their parts); a polyline is a curve, and its contacts go through
//! [`chain_segment_manifold2`](crate::narrow::chain_segment_manifold2), so that shapes slide
//! across its joints.

mod composite;
mod pair;
mod polygon;
mod single;

pub use composite::{CompositeError2, Compound2, Polyline2, TriMesh2};
pub use pair::{
    PairCache2, PartManifold2, cast_shape2, contact_manifolds2, contact_manifolds2_cached, contact2,
    distance2, intersects2, intersects2_cached,
};
pub use polygon::PolygonCompoundError;
pub use single::{bounds2, cast_ray2, contains_point2};

use std::sync::Arc;

use crate::shape::ConvexShape2;

/// Every 2D shape kind.
#[derive(Clone, Debug)]
pub enum Shape2 {
    /// A convex shape, exact under any affine placement.
    Convex(ConvexShape2),
    /// Convex shapes with local placements under a BVH (a concave polygon's convex pieces).
    Compound(Arc<Compound2>),
    /// A chain of segments (a curve), open or closed, optionally one-sided.
    Polyline(Arc<Polyline2>),
    /// A triangle soup (the solid union of its triangles).
    Mesh(Arc<TriMesh2>),
}

impl From<ConvexShape2> for Shape2 {
    fn from(s: ConvexShape2) -> Self {
        Shape2::Convex(s)
    }
}

impl From<Compound2> for Shape2 {
    fn from(s: Compound2) -> Self {
        Shape2::Compound(Arc::new(s))
    }
}

impl From<Polyline2> for Shape2 {
    fn from(s: Polyline2) -> Self {
        Shape2::Polyline(Arc::new(s))
    }
}

impl From<TriMesh2> for Shape2 {
    fn from(s: TriMesh2) -> Self {
        Shape2::Mesh(Arc::new(s))
    }
}
