//! Property tests of the exact triangle/triangle test against independent SAT references.

use kollide::math::{Quat, Vec3};
use kollide::primitive::{TriangleIntersection, intersect_triangle_triangle, test_triangle_triangle};
use kollide_testkit::proptest_config;
use kollide_testkit::reference_tri_tri::{
    point_triangle_distance, triangle_separation_margin, triangles_overlap_exact,
};
use proptest::prelude::*;

/// Integer triangles in a small cube: many touching, coplanar and degenerate configurations,
/// where the exact integer reference applies.
fn int_triangle(range: i64) -> impl Strategy<Value = [glam::I64Vec3; 3]> {
    let p =
        (-range..=range, -range..=range, -range..=range).prop_map(|(x, y, z)| glam::I64Vec3::new(x, y, z));
    [p.clone(), p.clone(), p]
}

fn to_f32(t: &[glam::I64Vec3; 3]) -> [Vec3; 3] {
    t.map(|p| p.as_vec3())
}

fn real_triangle() -> impl Strategy<Value = [Vec3; 3]> {
    let p = (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z)| Vec3::new(x, y, z));
    [p.clone(), p.clone(), p]
}

fn rigid() -> impl Strategy<Value = (Quat, Vec3)> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -50.0f32..50.0, -50.0f32..50.0, -50.0f32..50.0)
        .prop_filter("non-zero quaternion", |(x, y, z, w, ..)| x * x + y * y + z * z + w * w > 1e-3)
        .prop_map(|(x, y, z, w, tx, ty, tz)| (Quat::from_xyzw(x, y, z, w).normalize(), Vec3::new(tx, ty, tz)))
}

/// Margin below which the f64 reference on real-valued inputs is not trusted.
const MARGIN: f64 = 1e-4;

proptest! {
    #![proptest_config(proptest_config(10_000))]

    #[test]
    fn equals_exact_reference_on_integer_triangles(a in int_triangle(3), b in int_triangle(3)) {
        let expected = triangles_overlap_exact(&a, &b);
        prop_assert_eq!(test_triangle_triangle(&to_f32(&a), &to_f32(&b)), expected, "{:?} {:?}", a, b);
        prop_assert_eq!(intersect_triangle_triangle(&to_f32(&a), &to_f32(&b)).is_some(), expected);
    }

    #[test]
    fn equals_exact_reference_on_coplanar_integer_triangles(a in int_triangle(4), b in int_triangle(4)) {
        // Squash both onto the plane z = x + y so that coplanar overlap is the common case.
        let squash = |t: [glam::I64Vec3; 3]| t.map(|p| glam::I64Vec3::new(p.x, p.y, p.x + p.y));
        let (a, b) = (squash(a), squash(b));
        prop_assert_eq!(test_triangle_triangle(&to_f32(&a), &to_f32(&b)), triangles_overlap_exact(&a, &b));
    }

    #[test]
    fn symmetric_and_independent_of_vertex_order(a in int_triangle(3), b in int_triangle(3), k in 0usize..3) {
        let (fa, fb) = (to_f32(&a), to_f32(&b));
        let expected = test_triangle_triangle(&fa, &fb);
        prop_assert_eq!(test_triangle_triangle(&fb, &fa), expected);
        let rotated = [fa[k], fa[(k + 1) % 3], fa[(k + 2) % 3]];
        let flipped = [fb[0], fb[2], fb[1]];
        prop_assert_eq!(test_triangle_triangle(&rotated, &flipped), expected);
        prop_assert_eq!(test_triangle_triangle(&flipped, &rotated), expected);
    }

    #[test]
    fn equals_reference_on_real_triangles(a in real_triangle(), b in real_triangle()) {
        let margin = triangle_separation_margin(&a, &b);
        prop_assume!(margin.abs() > MARGIN);
        prop_assert_eq!(test_triangle_triangle(&a, &b), margin < 0.0);
    }

    #[test]
    fn invariant_under_rigid_motion(a in real_triangle(), b in real_triangle(), (rotation, translation) in rigid()) {
        prop_assume!(triangle_separation_margin(&a, &b).abs() > MARGIN);
        let moved = |t: [Vec3; 3]| t.map(|p| rotation * p + translation);
        prop_assert_eq!(test_triangle_triangle(&moved(a), &moved(b)), test_triangle_triangle(&a, &b));
    }

    #[test]
    fn intersection_segment_lies_on_both_triangles(a in real_triangle(), b in real_triangle()) {
        if let Some(TriangleIntersection::Segment { start, end }) = intersect_triangle_triangle(&a, &b) {
            for p in [start, end, 0.5 * (start + end)] {
                prop_assert!(point_triangle_distance(p, &a) < 1e-4, "{} from a", point_triangle_distance(p, &a));
                prop_assert!(point_triangle_distance(p, &b) < 1e-4, "{} from b", point_triangle_distance(p, &b));
            }
        }
    }
}

/// The real-valued reference must not be skipped so often that the properties above test little.
#[test]
fn real_valued_cases_are_mostly_decisive() {
    let mut rng = kollide_testkit::random::rng(7);
    let (mut decisive, mut hits) = (0, 0);
    for _ in 0..2000 {
        let a = kollide_testkit::random::triangle3(&mut rng, Vec3::ZERO, 1.0);
        let b = kollide_testkit::random::triangle3(&mut rng, Vec3::ZERO, 1.0);
        let margin = triangle_separation_margin(&a, &b);
        if margin.abs() > MARGIN {
            decisive += 1;
            hits += (margin < 0.0) as i32;
        }
    }
    assert!(decisive > 1900, "{decisive}");
    assert!(hits > 300 && hits < 1700, "hit rate out of balance: {hits}");
}

/// Regression (found by the mesh-mesh contact suite at 10,000 cases): a sliver (a vertex rounded
/// a few ulps off the segment between the other two) crossing a triangle. Its plane is lost to
/// rounding, so the cut of the other triangle by that plane drifted 0.009 along the other's
/// edges, off the sliver; the endpoints now lie on both triangles.
#[test]
fn sliver_crossing_points_lie_on_both_triangles() {
    let sliver = [
        Vec3::new(-0.5257311, 0.8506508, 0.0),
        Vec3::new(-0.667374, 0.6753254, 0.1545085),
        Vec3::new(-0.809017, 0.5, 0.309017),
    ];
    let other = [
        Vec3::new(-0.7017011, 0.66177773, 0.17828315),
        Vec3::new(-0.5565257, 0.582764, 0.22194481),
        Vec3::new(-0.5869283, 0.71887064, 0.04232642),
    ];
    for (t1, t2) in [(sliver, other), (other, sliver)] {
        let Some(TriangleIntersection::Segment { start, end }) = intersect_triangle_triangle(&t1, &t2) else {
            panic!("the sliver crosses the triangle");
        };
        // An upper bound on the distance from `p` to `t`: to the closest point found on the
        // triangle, or on one of its edges (the sliver's width is at the rounding level).
        let off = |p: Vec3, t: &[Vec3; 3]| {
            (0..3)
                .map(|k| kollide::primitive::closest_point_segment(p, t[k], t[(k + 1) % 3]).point.distance(p))
                .fold(kollide::primitive::closest_point_triangle(p, t).point.distance(p), f32::min)
        };
        for p in [start, end] {
            for t in [&t1, &t2] {
                assert!(off(p, t) < 1e-6, "{p} is {} off {t:?}", off(p, t));
            }
        }
    }
}
