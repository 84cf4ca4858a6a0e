//! Regression tests for findings of the fuzz targets in `fuzz/` and of odd CLI arguments: one
//! test per finding, named after the behaviour, with the minimal input inline.

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use kollide::mesh::{MeshInstance, PlacementError, TriMesh};
use kollide::query::{self, QueryError, Shape};

fn tetrahedron() -> Arc<TriMesh> {
    let vertices = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    let triangles = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    Arc::new(TriMesh::new(vertices, triangles).expect("a valid tetrahedron"))
}

#[test]
fn mesh_instance_refuses_a_scale_whose_size_threshold_underflows() {
    // det = 1e-39 (subnormal) passes `|det| > 1e-18 · s³` because the threshold underflows to 0,
    // but the inverse overflows to infinity.
    let map = Affine3A::from_scale(Vec3::splat(1e-13));
    assert!(matches!(MeshInstance::new(tetrahedron(), map), Err(PlacementError::Singular { .. })));
}

#[test]
fn mesh_instance_refuses_a_far_translation_under_a_huge_inverse() {
    // The linear part inverts (1e12), but the inverse translation overflows (1e42).
    let map = Affine3A::from_scale_rotation_translation(
        Vec3::splat(1e-12),
        glam::Quat::IDENTITY,
        Vec3::new(1e30, 0.0, 0.0),
    );
    assert!(matches!(MeshInstance::new(tetrahedron(), map), Err(PlacementError::Singular { .. })));
}

#[test]
fn query_refuses_a_mesh_placement_whose_inverse_overflows() {
    // The same underflowing threshold in the query layer: an error, not a silent `false`.
    let mesh = Shape::Mesh(tetrahedron());
    let tiny = Affine3A::from_scale(Vec3::splat(1e-13));
    let answer = query::intersects(&mesh, &Affine3A::IDENTITY, &mesh, &tiny);
    assert!(matches!(answer, Err(QueryError::SingularPlacement(_))), "{answer:?}");
}

#[test]
fn ray_triangle_does_not_clamp_an_overflowed_hit_to_a_finite_max_t() {
    // Found by fuzz target load_stl: the scaled hit distance overflows to infinity, and a finite
    // `max_t` clamped it into a hit at `t = max_t`; with `max_t = inf` the same ray missed.
    use kollide::math::Ray3;
    use kollide::primitive::{RayTriangleSetup, ray_triangle, ray_triangle_with};
    let tri = [
        Vec3::new(2.6619089e-36, 4.6056824, 1.3838275e18),
        Vec3::new(-3.782689e36, 152763380.0, 1.2339355e20),
        Vec3::new(1.5909708e-37, -48118398000000.0, -19512188.0),
    ];
    let ray = Ray3::new(Vec3::new(4.5, 4.25, -4.0), Vec3::new(-4.4649845e18, -4.3513756, 11862.318));
    let setup = RayTriangleSetup::new(&ray);
    for max_t in [f32::INFINITY, f32::MAX, 1e30] {
        assert_eq!(ray_triangle(&ray, max_t, &tri), None, "max_t {max_t}");
        assert_eq!(ray_triangle_with(&setup, max_t, &tri), None, "max_t {max_t}");
    }
}
