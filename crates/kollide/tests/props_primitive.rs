//! Property tests of the 3D closest-point and overlap primitives against the independent
//! references in `kollide_testkit::reference_primitive`.

use glam::{I64Vec3, Mat3, Quat, Vec3, Vec4};
use kollide::bounds::{Aabb3, Obb3, Sphere};
use kollide::primitive::{
    Plane3, PlaneSide, TriangleFeature, classify_aabb_plane, classify_obb_plane, closest_point_segment,
    closest_point_triangle, closest_points_segment_segment, distance_squared_lower_bound_triangles4,
    test_aabb_aabb, test_aabb_plane, test_obb_plane, test_sphere_aabb, test_sphere_aabb_conservative,
    test_sphere_obb, test_sphere_sphere, test_sphere_triangle, test_triangle_aabb,
};
use kollide_testkit::proptest_config;
use kollide_testkit::reference_primitive::{
    aabb_corners, classify_by_distances, obb_corners, plane_distances,
    point_triangle_distance_squared_reference, sampled_grid_slack,
    segment_segment_distance_squared_reference, sphere_aabb_sampled_distance_squared,
    triangle_aabb_overlap_exact,
};
use proptest::prelude::*;

fn point(half: f32) -> impl Strategy<Value = Vec3> {
    (-half..half, -half..half, -half..half).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// Triangles in `[-1, 1]³`: a quarter each generic, nearly collinear (third vertex on the line of
/// the first two, up to rounding), with two coincident vertices, and a single point.
fn triangle() -> impl Strategy<Value = [Vec3; 3]> {
    (point(1.0), point(1.0), point(1.0), -1.0f32..2.0, 0usize..4).prop_map(|(a, b, c, lambda, kind)| {
        match kind {
            0 | 1 => [a, b, c],
            2 => [a, b, a + lambda * (b - a)],
            _ if lambda < 0.5 => [a, a, c],
            _ => [b; 3],
        }
    })
}

fn rotation() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_filter("non-zero quaternion", |(x, y, z, w)| x * x + y * y + z * z + w * w > 1e-2)
        .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
}

fn aabb(center_half: f32, max_half_extent: f32) -> impl Strategy<Value = Aabb3> {
    (point(center_half), (0.0..max_half_extent, 0.0..max_half_extent, 0.0..max_half_extent)).prop_map(
        |(c, (x, y, z))| {
            let h = Vec3::new(x, y, z);
            Aabb3 { min: c - h, max: c + h }
        },
    )
}

fn int_point(range: i64) -> impl Strategy<Value = I64Vec3> {
    (-range..=range, -range..=range, -range..=range).prop_map(|(x, y, z)| I64Vec3::new(x, y, z))
}

/// An integer box with corners in `[-range, range]³`, zero extents allowed.
fn int_box(range: i64) -> impl Strategy<Value = (I64Vec3, I64Vec3)> {
    (int_point(range), int_point(range)).prop_map(|(p, q)| (p.min(q), p.max(q)))
}

/// Integer triangles, half of them forced degenerate: `c = a + k (b - a)` for an integer `k`, or
/// repeated vertices.
fn int_triangle(range: i64) -> impl Strategy<Value = [I64Vec3; 3]> {
    (int_point(range), int_point(range), int_point(range), -2i64..=3, 0usize..4).prop_map(
        |(a, b, c, k, kind)| match kind {
            0 | 1 => [a, b, c],
            2 => [a, b, a + k * (b - a)],
            _ => [a, if k > 0 { a } else { b }, a],
        },
    )
}

fn to_f32(t: &[I64Vec3; 3]) -> [Vec3; 3] {
    t.map(|p| p.as_vec3())
}

fn int_aabb((min, max): (I64Vec3, I64Vec3)) -> Aabb3 {
    Aabb3 { min: min.as_vec3(), max: max.as_vec3() }
}

/// Distances in these tests are of order 1; f32 results are trusted to this absolute tolerance.
const TOL: f64 = 2e-5;

proptest! {
    #![proptest_config(proptest_config(10_000))]

    #[test]
    fn four_triangle_lower_bound_never_exceeds_the_distance(
        p in point(2.0), tris in [triangle(), triangle(), triangle(), triangle()],
    ) {
        let soa = std::array::from_fn(|corner| {
            std::array::from_fn(|axis| Vec4::from_array(tris.map(|t| t[corner][axis])))
        });
        let bounds = distance_squared_lower_bound_triangles4(p, &soa).to_array();
        for (tri, bound) in tris.iter().zip(bounds) {
            let reference = point_triangle_distance_squared_reference(p, tri).sqrt();
            // Rounding of the coordinates relative to `p` is the only error allowed.
            let reach = tri.iter().map(|c| c.distance(p)).fold(0.0f32, f32::max);
            let slack = 4e-6 * f64::from(reach);
            let bound = f64::from(bound).sqrt();
            // A bound above the distance would let a query skip the nearest triangle.
            prop_assert!(!(bound > reference + slack), "{bound} > {reference} for {tri:?}");
            // Well-shaped triangles get their distance, not just any lower bound.
            let (ab, ac) = (tri[1] - tri[0], tri[2] - tri[0]);
            let n2 = ab.cross(ac).length_squared();
            if n2 > ab.length_squared() * ac.length_squared() / 32.0 {
                prop_assert!(bound >= reference - slack, "{bound} < {reference} for {tri:?}");
            }
        }
    }

    #[test]
    fn closest_point_triangle_matches_reference(p in point(2.0), tri in triangle()) {
        let got = closest_point_triangle(p, &tri);
        let reference = point_triangle_distance_squared_reference(p, &tri).sqrt();
        let distance = got.point.as_dvec3().distance(p.as_dvec3());
        prop_assert!((distance - reference).abs() <= TOL, "{} vs {} for {:?}", distance, reference, got);
        // The point lies on the triangle and matches its barycentric weights.
        prop_assert!(point_triangle_distance_squared_reference(got.point, &tri).sqrt() <= TOL);
        let from_bary = got.bary.x * tri[0] + got.bary.y * tri[1] + got.bary.z * tri[2];
        prop_assert!(from_bary.distance(got.point) <= 1e-5);
        prop_assert!((got.bary.element_sum() - 1.0).abs() <= 1e-6);
        prop_assert!(got.bary.min_element() >= -1e-6 && got.bary.max_element() <= 1.0 + 1e-6);
        match got.feature {
            TriangleFeature::Vertex(i) => {
                prop_assert_eq!(got.bary[i as usize], 1.0);
                prop_assert_eq!(got.point, tri[i as usize]);
            }
            TriangleFeature::Edge(i) => prop_assert_eq!(got.bary[(i as usize + 2) % 3], 0.0),
            TriangleFeature::Face => {
                let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
                prop_assert!(n.length_squared() > 0.0);
            }
        }
    }

    #[test]
    fn closest_point_and_lower_bound_hold_at_every_scale_and_distance(
        dir in point(1.0), tri in triangle(), scale_exp in -40i32..20, far_exp in 0i32..10,
        near_normal in any::<bool>(),
    ) {
        // Triangles of size 2^-40..2^20 with the point 1..10^9 sizes away (half of them above the
        // triangle, where the face and edge regions are): the error allowed is the rounding of
        // the coordinates relative to `p`, whatever the ratio.
        let scale = 2f32.powi(scale_exp);
        let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero();
        let p = if near_normal { (tri[0] + tri[1] + tri[2]) / 3.0 + dir + n * 10f32.powi(far_exp) } else { dir * 10f32.powi(far_exp) };
        let (tri, p) = (tri.map(|c| c * scale), p * scale);
        let reference = point_triangle_distance_squared_reference(p, &tri).sqrt();
        let reach = f64::from(tri.iter().map(|c| c.distance(p)).fold(0.0f32, f32::max));
        let got = closest_point_triangle(p, &tri).point.as_dvec3().distance(p.as_dvec3());
        prop_assert!((got - reference).abs() <= 4e-6 * reach, "{got} vs {reference} for {p} {tri:?}");
        let soa = std::array::from_fn(|corner| {
            std::array::from_fn(|axis| Vec4::splat(tri[corner][axis]))
        });
        let bound = f64::from(distance_squared_lower_bound_triangles4(p, &soa).x).sqrt();
        prop_assert!(!(bound > reference + 4e-6 * reach), "bound {bound} > {reference} for {p} {tri:?}");
    }

    #[test]
    fn closest_point_triangle_is_invariant_under_rigid_motion(
        p in point(2.0), tri in triangle(), rotation in rotation(), shift in point(10.0),
    ) {
        let moved = tri.map(|v| rotation * v + shift);
        let a = closest_point_triangle(p, &tri);
        let b = closest_point_triangle(rotation * p + shift, &moved);
        let (da, db) = (a.point.distance(p), b.point.distance(rotation * p + shift));
        prop_assert!((da - db).abs() <= 1e-4, "{} vs {}", da, db);
        // The closest point of a convex set is unique: it moves with the triangle.
        prop_assert!((rotation * a.point + shift).distance(b.point) <= 1e-4);
    }

    #[test]
    fn closest_point_segment_matches_projection(p in point(2.0), a in point(1.0), b in point(1.0)) {
        let got = closest_point_segment(p, a, b);
        prop_assert!((0.0..=1.0).contains(&got.t));
        prop_assert!(got.point.distance(a + got.t * (b - a)) <= 1e-6);
        // No point of a 1000-sample walk along the segment is closer.
        let d = got.point.distance(p);
        for k in 0..=1000 {
            let q = a + (k as f32 / 1000.0) * (b - a);
            prop_assert!(d <= q.distance(p) + 1e-5);
        }
    }

    #[test]
    fn segment_segment_matches_reference(
        a0 in point(1.0), a1 in point(1.0), b0 in point(1.0), b1 in point(1.0),
        lambda in -2.0f32..2.0, kind in 0usize..6,
    ) {
        // Generic, parallel, collinear, and zero-length segments.
        let (a1, b1, b0) = match kind {
            0 | 1 => (a1, b1, b0),
            2 => (a1, b0 + lambda * (a1 - a0), b0),
            3 => (a1, a0 + lambda * (a1 - a0), a0 + (lambda - 0.7) * (a1 - a0)),
            4 => (a0, b1, b0),
            _ => (a1, b0, b0),
        };
        let got = closest_points_segment_segment(a0, a1, b0, b1);
        let reference = segment_segment_distance_squared_reference(a0, a1, b0, b1).sqrt();
        let distance = f64::from(got.distance_squared).sqrt();
        prop_assert!((distance - reference).abs() <= TOL, "{} vs {}", distance, reference);
        prop_assert!((0.0..=1.0).contains(&got.s) && (0.0..=1.0).contains(&got.t));
        prop_assert!(got.point_a.distance(a0 + got.s * (a1 - a0)) <= 1e-6);
        prop_assert!(got.point_b.distance(b0 + got.t * (b1 - b0)) <= 1e-6);
        // Symmetric: swapping or reversing the segments gives the same distance.
        for other in [
            closest_points_segment_segment(b0, b1, a0, a1),
            closest_points_segment_segment(a1, a0, b1, b0),
        ] {
            let d = f64::from(other.distance_squared).sqrt();
            prop_assert!((d - distance).abs() <= TOL, "{} vs {}", d, distance);
        }
    }

    #[test]
    fn sphere_aabb_conservative_never_misses(
        center in point(3.0), r in 0.0f32..2.0, b in aabb(1.0, 1.0),
        ints in (int_point(3), 0i64..3, int_box(2)), use_ints in any::<bool>(),
    ) {
        // Integer inputs put the sphere exactly tangent to faces, edges and corners often.
        let (sphere, b) = if use_ints {
            (Sphere { center: ints.0.as_vec3(), radius: ints.1 as f32 }, int_aabb(ints.2))
        } else {
            (Sphere { center, radius: r }, b)
        };
        let exact = test_sphere_aabb(&sphere, &b);
        prop_assert!(!exact || test_sphere_aabb_conservative(&sphere, &b));
        // The conservative test's only false positives lie beyond the box's faces, near its
        // edges and corners: a center inside the box grown by r on one axis only is exact.
        let inside_slabs = (sphere.center.cmpge(b.min) & sphere.center.cmple(b.max)).bitmask().count_ones();
        if inside_slabs >= 2 {
            prop_assert_eq!(exact, test_sphere_aabb_conservative(&sphere, &b));
        }
    }

    #[test]
    fn sphere_aabb_matches_sampling(center in point(3.0), r in 0.0f32..2.0, b in aabb(1.0, 1.0)) {
        const N: usize = 9;
        let sphere = Sphere { center, radius: r };
        let exact = test_sphere_aabb(&sphere, &b);
        let sampled = sphere_aabb_sampled_distance_squared(center, &b, N);
        let r = f64::from(r);
        if sampled <= r * r * (1.0 - 1e-6) {
            prop_assert!(exact, "a sample point lies in the sphere");
        }
        if exact {
            prop_assert!(sampled.sqrt() <= r + sampled_grid_slack(&b, N) + 1e-6);
        }
    }

    #[test]
    fn sphere_sphere_and_sphere_obb_agree_with_distances(
        c0 in point(2.0), c1 in point(2.0), r0 in 0.0f32..1.5, r1 in 0.0f32..1.5,
        rotation in rotation(), half in (0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0),
    ) {
        let (a, b) = (Sphere { center: c0, radius: r0 }, Sphere { center: c1, radius: r1 });
        let gap = c0.as_dvec3().distance(c1.as_dvec3()) - f64::from(r0 + r1);
        prop_assert_eq!(test_sphere_sphere(&a, &b), test_sphere_sphere(&b, &a));
        if gap.abs() > 1e-5 {
            prop_assert_eq!(test_sphere_sphere(&a, &b), gap < 0.0);
        }
        // Sphere/OBB equals sphere/AABB in the box's frame, where the OBB is axis-aligned.
        let h = Vec3::new(half.0, half.1, half.2);
        let obb = Obb3 { center: c1, axes: Mat3::from_quat(rotation), half_extents: h };
        let local = rotation.inverse() * (c0 - c1);
        let local_box_gap = (local.abs() - h).max(Vec3::ZERO).as_dvec3().length() - f64::from(r0);
        if local_box_gap.abs() > 1e-5 {
            prop_assert_eq!(test_sphere_obb(&a, &obb), local_box_gap < 0.0);
        }
    }

    #[test]
    fn sphere_triangle_matches_closest_point_reference(
        center in point(1.5), r in 0.0f32..1.2, tri in triangle(),
        rotation in rotation(), shift in point(5.0),
    ) {
        let sphere = Sphere { center, radius: r };
        let gap = point_triangle_distance_squared_reference(center, &tri).sqrt() - f64::from(r);
        let got = test_sphere_triangle(&sphere, &tri);
        if gap.abs() > 1e-5 {
            prop_assert_eq!(got, gap <= 0.0, "gap {}", gap);
        }
        // Rigid motion of both changes nothing (away from tangency).
        if gap.abs() > 1e-4 {
            let moved = Sphere { center: rotation * center + shift, radius: r };
            prop_assert_eq!(test_sphere_triangle(&moved, &tri.map(|v| rotation * v + shift)), got);
        }
    }

    #[test]
    fn triangle_aabb_matches_clip_reference(tri in int_triangle(5), b in int_box(3)) {
        let expected = triangle_aabb_overlap_exact(&tri, b.0, b.1);
        prop_assert_eq!(test_triangle_aabb(&to_f32(&tri), &int_aabb(b)), expected, "{:?} {:?}", tri, b);
    }

    #[test]
    fn triangle_aabb_matches_clip_reference_on_half_integers(tri in int_triangle(8), b in int_box(6)) {
        // Coordinates k / 2: exact in f32 and through every product of the test; the reference
        // sees the doubled integers.
        let half = |v: I64Vec3| v.as_vec3() * 0.5;
        let box_f = Aabb3 { min: half(b.0), max: half(b.1) };
        let expected = triangle_aabb_overlap_exact(&tri, b.0, b.1);
        prop_assert_eq!(test_triangle_aabb(&tri.map(half), &box_f), expected, "{:?} {:?}", tri, b);
    }

    #[test]
    fn triangle_aabb_is_invariant_under_symmetries_and_translation(
        tri in int_triangle(4), b in int_box(3), perm in 0usize..6, signs in 0u8..8, shift in int_point(1000),
    ) {
        let expected = test_triangle_aabb(&to_f32(&tri), &int_aabb(b));
        // A signed axis permutation maps boxes to boxes: exact in f32.
        let axes = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]][perm];
        let map = |v: I64Vec3| {
            let s = |k: usize| if signs & (1 << k) == 0 { 1 } else { -1 };
            I64Vec3::new(s(0) * v[axes[0]], s(1) * v[axes[1]], s(2) * v[axes[2]])
        };
        let (p, q) = (map(b.0), map(b.1));
        let mapped_box = Aabb3 { min: p.min(q).as_vec3(), max: p.max(q).as_vec3() };
        prop_assert_eq!(test_triangle_aabb(&to_f32(&tri.map(map)), &mapped_box), expected);
        let moved_box = Aabb3 { min: (b.0 + shift).as_vec3(), max: (b.1 + shift).as_vec3() };
        prop_assert_eq!(test_triangle_aabb(&to_f32(&tri.map(|v| v + shift)), &moved_box), expected);
        // And a box test consistent with the triangle's own bounding box.
        let tri_box = Aabb3 {
            min: tri.iter().fold(tri[0], |m, &v| m.min(v)).as_vec3(),
            max: tri.iter().fold(tri[0], |m, &v| m.max(v)).as_vec3(),
        };
        prop_assert!(!expected || test_aabb_aabb(&tri_box, &int_aabb(b)));
    }

    #[test]
    fn triangle_aabb_never_misses_a_sliver_through_the_box(
        b in aabb(1.0, 1.0), u in (0.05f32..0.95, 0.05f32..0.95, 0.05f32..0.95), a in point(3.0),
        k in 0.1f32..3.0, lambda in -1.0f32..2.0, noise in point(1e-5),
    ) {
        // A nearly collinear triangle whose edge ab passes through the point q, well inside the
        // box: its f32 normal is noise, which must not separate it.
        let q = b.min + (b.max - b.min) * Vec3::new(u.0, u.1, u.2);
        let margin = ((b.max - b.min) * 0.05).min_element();
        prop_assume!(margin > 1e-4);
        let bb = q + (q - a) * k;
        let tri = [a, bb, a + lambda * (bb - a) + noise];
        prop_assert!(test_triangle_aabb(&tri, &b), "{:?} {:?}", tri, b);
        prop_assert!(test_triangle_aabb(&[tri[2], tri[0], tri[1]], &b));
    }

    #[test]
    fn aabb_plane_matches_corners_exactly(b in int_box(4), n in int_point(3), d in -8i64..=8) {
        // Integer normals (not unit: the classification does not depend on the normal's length)
        // keep every distance exact, so the corner classification is exact.
        prop_assume!(n != I64Vec3::ZERO);
        let plane = Plane3 { normal: n.as_vec3(), d: d as f32 };
        let b = int_aabb(b);
        let expected = classify_by_distances(&plane_distances(&aabb_corners(&b), &plane));
        prop_assert_eq!(classify_aabb_plane(&b, &plane), expected);
        prop_assert_eq!(test_aabb_plane(&b, &plane), expected == PlaneSide::Intersecting);
    }

    #[test]
    fn aabb_plane_matches_corners_on_real_input(b in aabb(2.0, 1.5), n in point(1.0), d in -3.0f32..3.0) {
        let Some(plane) = Plane3::from_point_normal(Vec3::ZERO, n) else { return Ok(()) };
        let plane = Plane3 { d, ..plane };
        let distances = plane_distances(&aabb_corners(&b), &plane);
        prop_assume!(distances.iter().all(|x| x.abs() > 1e-5));
        let expected = classify_by_distances(&distances);
        prop_assert_eq!(classify_aabb_plane(&b, &plane), expected);
        prop_assert_eq!(test_aabb_plane(&b, &plane), expected == PlaneSide::Intersecting);
    }

    #[test]
    fn obb_plane_matches_corners(
        center in point(2.0), rotation in rotation(), half in (0.0f32..1.5, 0.0f32..1.5, 0.0f32..1.5),
        n in point(1.0), d in -3.0f32..3.0,
    ) {
        let Some(plane) = Plane3::from_point_normal(Vec3::ZERO, n) else { return Ok(()) };
        let plane = Plane3 { d, ..plane };
        let half_extents = Vec3::new(half.0, half.1, half.2);
        let obb = Obb3 { center, axes: Mat3::from_quat(rotation), half_extents };
        let distances = plane_distances(&obb_corners(&obb), &plane);
        prop_assume!(distances.iter().all(|x| x.abs() > 1e-5));
        let expected = classify_by_distances(&distances);
        prop_assert_eq!(classify_obb_plane(&obb, &plane), expected);
        prop_assert_eq!(test_obb_plane(&obb, &plane), expected == PlaneSide::Intersecting);
    }

    #[test]
    fn obb_plane_matches_corners_exactly(
        center in int_point(3), half in int_point(2), perm in 0usize..6, signs in 0u8..8,
        n in int_point(3), d in -8i64..=8,
    ) {
        // Signed permutation matrices are orthonormal and keep everything exact.
        prop_assume!(n != I64Vec3::ZERO);
        let cols = [Vec3::X, Vec3::Y, Vec3::Z];
        let axes = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]][perm];
        let s = |k: usize| if signs & (1 << k) == 0 { 1.0 } else { -1.0 };
        let axes = Mat3::from_cols(cols[axes[0]] * s(0), cols[axes[1]] * s(1), cols[axes[2]] * s(2));
        let obb = Obb3 { center: center.as_vec3(), axes, half_extents: half.abs().as_vec3() };
        let plane = Plane3 { normal: n.as_vec3(), d: d as f32 };
        let expected = classify_by_distances(&plane_distances(&obb_corners(&obb), &plane));
        prop_assert_eq!(classify_obb_plane(&obb, &plane), expected);
        prop_assert_eq!(test_obb_plane(&obb, &plane), expected == PlaneSide::Intersecting);
    }

    #[test]
    fn non_finite_input_is_never_a_hit(
        tri in triangle(), b in aabb(1.0, 1.0), center in point(1.0), r in 0.0f32..2.0,
        slot in 0usize..15, axis in 0usize..3,
        bad in prop::sample::select(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY]),
    ) {
        // Poison one coordinate (or the radius) of otherwise valid input.
        let (mut tri, mut b, mut center, mut r) = (tri, b, center, r);
        match slot {
            0..=8 => tri[slot / 3][slot % 3] = bad,
            9..=11 => center[slot - 9] = bad,
            12 => r = bad,
            13 => b.min[axis] = bad,
            _ => b.max[axis] = bad,
        }
        let sphere = Sphere { center, radius: r };
        let (sphere_bad, box_bad, tri_bad) = ((9..=12).contains(&slot), slot >= 13, slot <= 8);
        if sphere_bad || box_bad {
            prop_assert!(!test_sphere_aabb(&sphere, &b));
            prop_assert!(!test_sphere_aabb_conservative(&sphere, &b));
        }
        if sphere_bad {
            let unit = Sphere { center: Vec3::ZERO, radius: 1.0 };
            prop_assert!(!test_sphere_sphere(&sphere, &unit));
        }
        if sphere_bad || tri_bad {
            prop_assert!(!test_sphere_triangle(&sphere, &tri));
        }
        if tri_bad || box_bad {
            prop_assert!(!test_triangle_aabb(&tri, &b));
        }
        // Closest-point routines never panic and keep parameters in range.
        let _ = closest_point_triangle(center, &tri);
        let s = closest_points_segment_segment(tri[0], tri[1], tri[2], center);
        prop_assert!((0.0..=1.0).contains(&s.s) && (0.0..=1.0).contains(&s.t));
    }
}
