//! Bounding volume hierarchies over boxes, independent of what the boxes hold.
//!
//! [`Bvh3`] is built by binned SAH over box centers (each primitive in exactly one leaf), with
//! four children per node and the child boxes stored SoA, so one SIMD step tests a query against
//! all four. Traversals, of one tree or of two trees together, use a fixed-size stack (no
//! recursion, no allocation). Primitives are `u32` ids; the mesh layer stores its triangles in
//! [`Bvh3::leaf_order`].

mod binned;
mod build;
mod node;
mod pair;
mod partition;
mod stack;
mod traverse;
mod tree;

pub use build::BvhSettings;
pub(crate) use node::ray_limit;
pub use node::{Child, MAX_LEAF_SIZE, MAX_PRIMITIVES, Node4, RAY_BOX_PAD, RayBoxSetup};
pub(crate) use pair::{ChildPairs, Tree};
pub use tree::Bvh3;

/// Below this depth (in binary splits, the root range at depth 0) the build chooses splits by
/// SAH; deeper ranges are split at the median.
const SAH_DEPTH: usize = 36;

/// The most node levels of any tree (root to deepest leaf), which sizes the traversal stacks.
///
/// A median split halves the count, so below [`SAH_DEPTH`] a range of `n < 2²⁸`
/// ([`MAX_PRIMITIVES`]) primitives is split at most 28 more times: a binary split hierarchy is at
/// most `SAH_DEPTH + 28` levels deep. The wide tree, which merges binary levels, is shallower.
const MAX_DEPTH: usize = SAH_DEPTH + 28;
