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

/// `convex_pairs`: a thin cylinder under a map with entries from 1e-40 to 1e20 against a ball.
/// EPA's closest face had NaN weights and `f32::clamp(0, NaN)` panicked; any answer or error is
/// fine, a panic is not.
#[test]
fn contact_under_a_map_of_huge_and_subnormal_entries_does_not_panic() {
    use glam::Vec3A;
    use kollide::math::Mat3A;
    use kollide::shape::{Ball, Cylinder};
    let ball = Shape::Convex(Ball::new(8.0).into());
    let ball_to_world = Affine3A {
        matrix3: Mat3A::from_cols(
            Vec3A::new(0.5384724, 0.038957335, -0.3148885),
            Vec3A::new(-0.038193077, 0.4985259, -0.0036351886),
            Vec3A::new(0.6273538, 0.05593604, 1.0797215),
        ),
        translation: Vec3A::splat(-8.0),
    };
    let cylinder = Shape::Convex(Cylinder::new(5.25, 0.125).into());
    let cylinder_to_world = Affine3A {
        matrix3: Mat3A::from_cols(
            Vec3A::new(-1e-40, 1e20, -6.5),
            Vec3A::new(1.875, 1e-20, 7.75),
            Vec3A::new(775000.0, -7.0, -8.0),
        ),
        translation: Vec3A::splat(-8.0),
    };
    let _ = query::contact(&ball, &ball_to_world, &cylinder, &cylinder_to_world, -8.0);
    let _ = query::contact(&cylinder, &cylinder_to_world, &ball, &ball_to_world, 0.0);
}

/// `broad_phase`: a box spanning 2³² cells on each axis made the spatial hash's cell count
/// (a product over the axes) overflow `u64`; it now saturates, and the box is oversized.
#[test]
fn spatial_hash_counts_the_cells_of_a_huge_box_without_overflow() {
    use kollide::bounds::Aabb3;
    use kollide::broad::{BroadPhase, BruteForce, HashSettings, PairEvents, SpatialHash};
    let settings = HashSettings { cell_size: Some(1.0), margin: 0.0, max_cells_per_object: 16 };
    let mut hash = SpatialHash::<Aabb3>::with_settings(settings);
    let mut brute = BruteForce::<Aabb3>::new();
    let boxes = [Aabb3::new(Vec3::splat(-1e30), Vec3::splat(1e30)), Aabb3::new(Vec3::ZERO, Vec3::ONE)];
    for (id, b) in boxes.into_iter().enumerate() {
        hash.insert(id as u32, b).unwrap();
        brute.insert(id as u32, b).unwrap();
    }
    let (mut from_hash, mut from_brute) = (PairEvents::default(), PairEvents::default());
    hash.find_pairs(&mut from_hash);
    brute.find_pairs(&mut from_brute);
    assert_eq!(from_hash.pairs, from_brute.pairs);
    assert_eq!(from_hash.pairs, [(0, 1)]);
}

/// `broad_phase`: an id removed and inserted again between two `find_pairs` calls left two
/// entries in sweep and prune's order, and building its columns ran past their end.
#[test]
fn sweep_and_prune_takes_an_id_removed_and_inserted_again_before_a_refresh() {
    use kollide::bounds::Aabb2;
    use kollide::broad::{BroadPhase, BruteForce, PairEvents, SweepAndPrune};
    use kollide::math::Vec2;
    let boxes = [Aabb2::new(Vec2::ZERO, Vec2::ONE), Aabb2::new(Vec2::splat(0.5), Vec2::splat(2.0))];
    let (mut sap, mut brute) = (SweepAndPrune::<Aabb2>::new(), BruteForce::<Aabb2>::new());
    let (mut from_sap, mut from_brute) = (PairEvents::default(), PairEvents::default());
    for phase in [&mut sap as &mut dyn BroadPhase<Aabb2>, &mut brute] {
        phase.insert(0, boxes[0]).unwrap();
        phase.insert(1, boxes[1]).unwrap();
    }
    sap.find_pairs(&mut from_sap);
    brute.find_pairs(&mut from_brute);
    for phase in [&mut sap as &mut dyn BroadPhase<Aabb2>, &mut brute] {
        phase.remove(1).unwrap();
        phase.insert(1, boxes[1]).unwrap();
    }
    sap.find_pairs(&mut from_sap);
    brute.find_pairs(&mut from_brute);
    assert_eq!(from_sap, from_brute);
    assert_eq!(from_sap.pairs, [(0, 1)]);
}

#[test]
fn closest_point_of_a_point_far_above_a_face_is_the_face_projection() {
    // The corner tetrahedron scaled by 3.25e6 (first vertex a subnormal off the origin), and by
    // -3.5e8 about (-8, -8, -8); the point on the diagonal lies 4-8 mesh sizes above the slanted
    // face. The BVH skips triangles by a four-at-a-time distance bound whose `plane²` overflowed
    // to infinity there, so it skipped the nearest face and answered 0.1% too far.
    let cases = [
        (Vec3::new(9.97224e-40, 0.0, -1e-40), 3.25e6, Vec3::splat(15437500.0)),
        (Vec3::splat(-8.0), -3.5e8, Vec3::splat(-2.975e9)),
    ];
    for (origin, size, p) in cases {
        let corner = |axis: Vec3| origin + axis * size;
        let vertices = vec![origin, corner(Vec3::X), corner(Vec3::Y), corner(Vec3::Z)];
        let triangles = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
        let mesh = TriMesh::new(vertices, triangles).expect("a valid tetrahedron");
        // The slanted face's plane: (x - o) · (1,1,1) = size, so the distance is exact in f64.
        let expected = ((p - origin).as_dvec3().element_sum() - f64::from(size)).abs() / 3f64.sqrt();
        let fast = mesh.closest_point(p, f32::INFINITY).expect("a finite point has a closest point");
        assert!(
            (f64::from(fast.distance) - expected).abs() < 1e-6 * expected,
            "{} vs {expected}",
            fast.distance
        );
        let brute = (0..4)
            .map(|id| {
                kollide::primitive::closest_point_triangle(p, &mesh.triangle(id).unwrap()).point.distance(p)
            })
            .fold(f32::INFINITY, f32::min);
        assert!((f64::from(brute) - expected).abs() < 1e-6 * expected, "{brute} vs {expected}");
    }
}

/// `broad_phase`: boxes spread over a subnormal range across the sweep axis gave the columns a
/// subnormal cell size whose inverse overflowed to infinity, and counting the columns overflowed.
#[test]
fn columns_over_a_subnormal_range_find_the_pairs() {
    use kollide::bounds::Aabb3;
    use kollide::broad::{BroadPhase, BruteForce, DynamicTree, PairEvents, SpatialHash, SweepAndPrune};
    let point = |x: f32, y: f32| Aabb3::new(Vec3::new(x, y, y), Vec3::new(x, y, y));
    let boxes = [point(0.0, 0.0), point(0.0, 1e-40), point(1.0, 3e-40)];
    let mut phases: Vec<Box<dyn BroadPhase<Aabb3>>> = vec![
        Box::new(BruteForce::new()),
        Box::new(DynamicTree::new()),
        Box::new(SweepAndPrune::new()),
        Box::new(SpatialHash::new()),
    ];
    let mut answers = Vec::new();
    for phase in &mut phases {
        for (id, b) in boxes.iter().enumerate() {
            phase.insert(id as u32, *b).unwrap();
        }
        let mut events = PairEvents::default();
        phase.find_pairs(&mut events);
        answers.push(events.pairs);
    }
    assert!(answers.iter().all(|pairs| pairs == &answers[0]), "{answers:?}");
}

/// `trimesh_new`: a triangle 2e-17 from the ray's origin, behind it. The products of the hit
/// distance (coordinates cubed) underflowed `f32` to zero, so `ray_triangle` reported a hit at
/// `t = 0` that the BVH's box test (rightly) did not.
#[test]
fn a_tiny_triangle_behind_the_origin_is_not_hit() {
    use kollide::math::Ray3;
    use kollide::primitive::ray_triangle;
    let tri = [
        Vec3::new(-2.25e-17, -2.25e-17, 2.25e-17),
        Vec3::new(-2.25e-17, -2.25e-17, -2.25e-17),
        Vec3::new(-2.25e-17, -6.7499996e-17, 2.25e-17),
    ];
    let ray = Ray3::new(Vec3::new(-4.5e-17, -4.5e-17, -0.0), Vec3::new(-8.0, -7.75, -4.5e-17));
    let mesh = TriMesh::new(tri.to_vec(), vec![[0, 1, 2]]).unwrap();
    for max_t in [-0.0, 0.0, 1.0] {
        assert_eq!(ray_triangle(&ray, max_t, &tri), None, "{max_t}");
        assert_eq!(mesh.cast_ray(&ray, max_t), None, "{max_t}");
    }
    // The same ray turned around hits it, 2.25e-17 / 8 along.
    let back = Ray3::new(ray.origin, -ray.dir);
    let hit = ray_triangle(&back, 1.0, &tri).expect("the triangle is in front");
    assert!((hit.t - 2.8125e-18).abs() < 1e-23, "{}", hit.t);
    assert_eq!(mesh.cast_ray(&back, 1.0).map(|h| h.t), Some(hit.t));
}
