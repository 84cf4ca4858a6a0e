//! Bounding volumes: axis-aligned boxes, spheres and circles, oriented boxes and k-DOPs.
//!
//! Every volume is closed: touching counts as overlapping and boundary points are contained.

mod aabb;
mod kdop;
mod obb;
mod sphere;

pub use aabb::*;
pub use kdop::*;
pub use obb::*;
pub use sphere::*;
