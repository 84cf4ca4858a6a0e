//! `TriMesh::new` on arbitrary vertex and index arrays (NaN, inf, huge, subnormal, bad indices,
//! degenerate triangles): an error or a valid mesh, never a panic. A mesh that builds keeps its
//! input, has only finite vertices and in-range indices, and answers rays and closest points as
//! the brute force over its triangles does.
#![no_main]

use arbitrary::Unstructured;
use kollide::mesh::TriMesh;
use kollide_fuzz::{check_mesh_against_brute_force, exercise_mesh, mesh_parts};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (vertices, triangles) = mesh_parts(&mut u);
    let Ok(mesh) = TriMesh::new(vertices.clone(), triangles.clone()) else { return };
    assert_eq!(mesh.vertices(), &vertices[..]);
    assert_eq!(mesh.triangles(), &triangles[..]);
    assert!(vertices.iter().all(|v| v.is_finite()), "a non-finite vertex was accepted");
    assert!(triangles.iter().flatten().all(|&i| (i as usize) < vertices.len()), "a bad index was accepted");
    assert!(!triangles.is_empty(), "an empty mesh was accepted");
    for id in 0..mesh.triangle_count() as u32 {
        let corners = triangles[id as usize].map(|i| vertices[i as usize]);
        assert_eq!(mesh.triangle(id), Some(corners));
    }
    check_mesh_against_brute_force(&mut u, &mesh);
    exercise_mesh(&mut u, &mesh);
});
