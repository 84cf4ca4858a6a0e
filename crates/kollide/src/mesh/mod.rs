//! Triangle meshes: [`TriMesh`] with its BVH, queries in mesh space, loading and topology;
//! [`MeshInstance`], a shared mesh placed in the world by any affine map, with world-space
//! queries; [`SphereSet`], balls standing in for a mesh.
//!
//! # Mesh against mesh
//!
//! The pair queries of two placed meshes are methods of [`MeshInstance`] and answer in world
//! space. A closed, consistently oriented mesh ([`TriMesh::is_solid`]) is a solid: a mesh inside
//! it overlaps it. Open meshes are surfaces. Both BVHs are descended together in A's mesh space,
//! with B placed there by the relative map `A⁻¹ · B` (computed once), and triangle pairs are
//! decided by the exact triangle/triangle test; the method and the rounding analysis are in the
//! source of `mesh/mesh_mesh`.

mod instance;
#[cfg(feature = "io")]
pub mod io;
mod mesh_mesh;
mod query;
mod self_intersection;
mod sphere_set;
mod support;
mod topology;
mod trimesh;

pub use instance::*;
pub use mesh_mesh::*;
pub use query::*;
pub use self_intersection::triangles_self_intersect;
pub use sphere_set::*;
pub use topology::*;
pub use trimesh::*;
