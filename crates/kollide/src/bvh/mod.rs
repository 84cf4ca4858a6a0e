//! Bounding volume hierarchies over boxes, independent of what the boxes hold.
//!
//! [`Bvh3`] is built by binned SAH over box centers (each primitive in exactly one leaf), then
//! collapsed to four children per node with the child boxes stored SoA, so one SIMD step tests a
//! query against all four. Traversals use a fixed-size stack (no recursion, no allocation).
//! Primitives are `u32` ids; the mesh layer stores its triangles in [`Bvh3::leaf_order`].

mod build;
mod wide;

pub use build::BvhSettings;
pub(crate) use wide::ray_limit;
pub use wide::{Bvh3, Child, MAX_PRIMITIVES, Node4, RayBoxSetup};
