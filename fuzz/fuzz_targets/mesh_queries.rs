//! A small mesh (a fixed closed one, scaled and moved, or arbitrary triangles) with arbitrary
//! rays, points and placements (subnormal, huge, tiny, NaN):
//! - `cast_ray` finds what the brute force over all triangles with `primitive::ray_triangle`
//!   finds, up to the rounding of `t` (the watertight promise), `closest_point` matches the
//!   brute-force distance;
//! - `MeshInstance` under any affine placement: refused (`Err`; always for a non-finite one) or
//!   answering every query, and the mesh-against-mesh queries, without a panic.
#![no_main]

use std::sync::Arc;

use arbitrary::Unstructured;
use kollide::bounds::{Aabb3, Sphere};
use kollide::math::Ray3;
use kollide::mesh::{MeshInstance, MeshMeshCache, TriMesh};
use kollide_fuzz::{affine, check_mesh_against_brute_force, exercise_mesh, float, mesh_parts, vec3};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (vertices, triangles) = mesh_parts(&mut u);
    let Ok(mesh) = TriMesh::new(vertices, triangles) else { return };
    check_mesh_against_brute_force(&mut u, &mesh);
    exercise_mesh(&mut u, &mesh);

    let mesh = Arc::new(mesh);
    let map = affine(&mut u);
    let Ok(instance) = MeshInstance::new(mesh.clone(), map) else {
        return;
    };
    assert!(map.is_finite(), "a non-finite placement was accepted");
    let ray = Ray3::new(vec3(&mut u, float), vec3(&mut u, float));
    let max_t = float(&mut u);
    let _ = instance.cast_ray(&ray, max_t);
    let _ = instance.intersects_ray(&ray, max_t);
    let p = vec3(&mut u, float);
    let _ = instance.closest_point(p, float(&mut u));
    let _ = instance.contains_point(p);
    let _ = instance.signed_distance(p);
    let _ = instance.intersects_sphere(&Sphere::new(p, float(&mut u)));
    let mut out = Vec::new();
    instance.aabb_triangles(&Aabb3::new(p, p + vec3(&mut u, float)), &mut out);
    let _ = instance.bounds();
    if let Ok(other) = MeshInstance::new(mesh.clone(), affine(&mut u)) {
        let _ = instance.mesh_overlap(&other, Some(&mut MeshMeshCache::new()));
        let mut pairs = Vec::new();
        instance.intersecting_triangles(&other, &mut pairs);
        let mut contacts = Vec::new();
        instance.mesh_contacts(&other, &mut contacts);
        let _ = instance.mesh_distance(&other, float(&mut u));
    }
});
