//! Triangle meshes: [`TriMesh`] with its BVH, queries in mesh space, loading and topology.

mod instance;
#[cfg(feature = "io")]
pub mod io;
pub mod mesh_mesh;
mod query;
mod sphere_set;
mod topology;
mod trimesh;

pub use instance::*;
pub use mesh_mesh::*;
pub use query::*;
pub use sphere_set::*;
pub use topology::*;
pub use trimesh::*;
