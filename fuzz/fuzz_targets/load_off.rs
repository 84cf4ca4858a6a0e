//! The OFF loader on raw bytes: loading never panics; a mesh that loads and builds answers
//! ray and closest-point queries as the brute force does, and every other query without a panic.
#![no_main]

use arbitrary::Unstructured;
use kollide::mesh::TriMesh;
use kollide::mesh::io::read_off;
use kollide_fuzz::{check_mesh_against_brute_force, exercise_mesh};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(loaded) = read_off(data) else { return };
    let Ok(mesh) = TriMesh::from_data(loaded) else { return };
    // The queries draw their rays and points from the file's own bytes.
    let mut u = Unstructured::new(data);
    check_mesh_against_brute_force(&mut u, &mesh);
    exercise_mesh(&mut u, &mesh);
});
