use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};

use super::*;
use crate::math::Ray3;
use crate::shape::{Ball, Cuboid};

/// The testkit's closed unit cube around the origin.
fn cube() -> Arc<TriMesh> {
    let cube = kollide_testkit::shapes::cube();
    Arc::new(TriMesh::new(cube.vertices, cube.triangles).unwrap())
}

#[test]
fn a_ball_inside_a_solid_mesh_intersects_it() {
    let mesh = Shape::Mesh(cube());
    assert!(matches!(&mesh, Shape::Mesh(m) if m.is_solid()));
    let ball = Shape::Convex(ConvexShape::Ball(Ball::new(0.1)));
    let at = Affine3A::from_translation(Vec3::new(0.05, 0.0, 0.0));
    assert!(intersects(&ball, &at, &mesh, &Affine3A::IDENTITY).unwrap());
    assert!(intersects(&mesh, &Affine3A::IDENTITY, &ball, &at).unwrap());
    let c = contact(&ball, &at, &mesh, &Affine3A::IDENTITY, 0.0).unwrap().unwrap();
    assert!(c.separation < -0.3 && c.normal.x < -0.99, "{c:?}");
    let far = Affine3A::from_translation(Vec3::new(3.0, 0.0, 0.0));
    assert!(!intersects(&ball, &far, &mesh, &Affine3A::IDENTITY).unwrap());
    let d = distance(&ball, &far, &mesh, &Affine3A::IDENTITY).unwrap();
    assert!((d - 2.4).abs() < 1e-5, "{d}");
}

#[test]
fn nan_placements_are_errors() {
    let ball = Shape::Convex(ConvexShape::Ball(Ball::new(1.0)));
    let boxed = Shape::Convex(ConvexShape::Cuboid(Cuboid::new(Vec3::ONE)));
    let nan = Affine3A::from_translation(Vec3::NAN);
    let id = Affine3A::IDENTITY;
    assert_eq!(intersects(&ball, &nan, &boxed, &id), Err(QueryError::NonFinitePlacement(Operand::A)));
    assert_eq!(intersects(&ball, &id, &boxed, &nan), Err(QueryError::NonFinitePlacement(Operand::B)));
    let mesh = Shape::Mesh(cube());
    assert_eq!(
        distance(&mesh, &Affine3A::from_scale(Vec3::ZERO), &ball, &id),
        Err(QueryError::SingularPlacement(Operand::A))
    );
    let ray = Ray3::new(Vec3::new(0.0, 0.0, 5.0), Vec3::NEG_Z);
    assert_eq!(cast_ray(&mesh, &nan, &ray, 10.0), Err(QueryError::NonFinitePlacement(Operand::A)));
    let hit = cast_ray(
        &mesh,
        &Affine3A::from_rotation_translation(Quat::from_rotation_x(0.1), Vec3::ZERO),
        &ray,
        10.0,
    )
    .unwrap()
    .unwrap();
    assert!(hit.t > 4.0 && hit.t < 4.6, "{hit:?}");
    let inside = Ray3::new(Vec3::ZERO, Vec3::X);
    assert_eq!(cast_ray(&mesh, &id, &inside, 10.0).unwrap().unwrap().t, 0.0);
}
