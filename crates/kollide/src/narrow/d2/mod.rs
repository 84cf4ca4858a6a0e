//! The 2D narrow phase: the pair queries of [`ConvexShape2`](crate::shape::ConvexShape2)s under
//! [`Affine2`](glam::Affine2) placements.

mod frame;
mod manifold;

pub use manifold::{ContactManifold2, ManifoldPoint2};
