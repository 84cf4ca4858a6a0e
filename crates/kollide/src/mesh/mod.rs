//! Triangle meshes: [`TriMesh`] with its BVH, queries in mesh space, loading and topology.

#[cfg(feature = "io")]
pub mod io;
mod instance;
mod query;
mod topology;
mod trimesh;

pub use instance::*;
pub use query::*;
pub use topology::*;
pub use trimesh::*;
