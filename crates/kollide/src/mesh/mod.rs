//! Triangle meshes: loading, validation and topology (the BVH and queries come with `TriMesh`).

#[cfg(feature = "io")]
pub mod io;
mod topology;

pub use topology::*;
