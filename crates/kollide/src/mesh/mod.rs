//! Triangle meshes: [`TriMesh`] with its BVH, queries in mesh space, loading and topology.

#[cfg(feature = "io")]
pub mod io;
mod query;
mod topology;
mod trimesh;

pub use query::*;
pub use topology::*;
pub use trimesh::*;
