//! Property tests of the 2D polygon, segment and circle primitives against the independent
//! references in `kollide_testkit::reference_primitive`.

use glam::{I64Vec2, Vec2};
use kollide::bounds::{Aabb2, Circle};
use kollide::primitive::d2::{
    SegmentIntersection2, intersect_segment_segment, point_in_convex_polygon, point_in_polygon_crossing,
    point_in_polygon_winding, test_circle_aabb, test_circle_circle, test_circle_polygon,
    test_segment_segment, winding_number,
};
use kollide_testkit::proptest_config;
use kollide_testkit::reference_primitive::{
    SegmentMeeting, distance_to_loop, on_loop_exact, segment_segment_exact, winding_number_by_angles,
};
use proptest::prelude::*;

fn int_point(range: i64) -> impl Strategy<Value = I64Vec2> {
    (-range..=range, -range..=range).prop_map(|(x, y)| I64Vec2::new(x, y))
}

fn point(half: f32) -> impl Strategy<Value = Vec2> {
    (-half..half, -half..half).prop_map(|(x, y)| Vec2::new(x, y))
}

fn to_f32(poly: &[I64Vec2]) -> Vec<Vec2> {
    poly.iter().map(|p| p.as_vec2()).collect()
}

/// Exact angular order around the origin (from the +x axis, counter-clockwise), for non-zero
/// integer points.
fn angle_cmp(p: &I64Vec2, q: &I64Vec2) -> std::cmp::Ordering {
    let half = |v: &I64Vec2| v.y < 0 || (v.y == 0 && v.x < 0);
    half(p).cmp(&half(q)).then_with(|| 0.cmp(&p.perp_dot(*q)))
}

/// A simple polygon on the integer grid, star-shaped around the origin: one point in each open
/// quadrant (so that consecutive vertices are less than π apart around the origin) plus random
/// extra points, sorted by angle, one per direction, then shifted.
fn star_polygon(range: i64) -> impl Strategy<Value = Vec<I64Vec2>> {
    let quadrant = (1..=range, 1..=range);
    (
        [quadrant.clone(), quadrant.clone(), quadrant.clone(), quadrant],
        prop::collection::vec(int_point(range), 0..8),
        int_point(2),
    )
        .prop_map(|(q, extra, shift)| {
            let signs = [(1, 1), (-1, 1), (-1, -1), (1, -1)];
            let mut pts: Vec<I64Vec2> =
                q.iter().zip(signs).map(|(&(x, y), (sx, sy))| I64Vec2::new(sx * x, sy * y)).collect();
            pts.extend(extra.into_iter().filter(|p| *p != I64Vec2::ZERO));
            pts.sort_by(angle_cmp);
            pts.dedup_by(|a, b| a.perp_dot(*b) == 0 && a.dot(*b) > 0);
            pts.into_iter().map(|p| p + shift).collect()
        })
}

/// Strict convex hull (Andrew's monotone chain), counter-clockwise; fewer than 3 vertices when
/// the points are collinear.
fn convex_hull(mut pts: Vec<I64Vec2>) -> Vec<I64Vec2> {
    pts.sort_by_key(|p| (p.x, p.y));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut hull: Vec<I64Vec2> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &I64Vec2>> =
            if pass == 0 { Box::new(pts.iter()) } else { Box::new(pts.iter().rev()) };
        for &p in iter {
            while hull.len() >= start + 2 {
                let (a, b) = (hull[hull.len() - 2], hull[hull.len() - 1]);
                if (b - a).perp_dot(p - a) > 0 {
                    break;
                }
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

fn convex_polygon(range: i64) -> impl Strategy<Value = Vec<I64Vec2>> {
    prop::collection::vec(int_point(range), 3..10).prop_map(convex_hull)
}

/// A random loop, self-intersections and repeated vertices allowed.
fn int_loop(range: i64) -> impl Strategy<Value = Vec<I64Vec2>> {
    prop::collection::vec(int_point(range), 3..10)
}

proptest! {
    #![proptest_config(proptest_config(10_000))]

    #[test]
    fn crossing_is_the_parity_of_the_winding_number(poly in int_loop(5), p in int_point(6)) {
        // Both use the same half-open rule, so this holds for every point, boundary included.
        let (poly, p) = (to_f32(&poly), p.as_vec2());
        let w = winding_number(p, &poly);
        prop_assert_eq!(point_in_polygon_crossing(p, &poly), w % 2 != 0);
        prop_assert_eq!(point_in_polygon_winding(p, &poly), w != 0);
    }

    #[test]
    fn simple_polygons_agree_under_both_rules(poly in star_polygon(5), p in int_point(7), rot in 0usize..16) {
        let mut f = to_f32(&poly);
        let p = p.as_vec2();
        let w = winding_number(p, &f);
        prop_assert!((-1..=1).contains(&w), "winding {} of a simple polygon", w);
        prop_assert_eq!(point_in_polygon_crossing(p, &f), w != 0);
        // Starting elsewhere on the loop changes nothing; reversing it negates the winding.
        let len = f.len();
        f.rotate_left(rot % len);
        prop_assert_eq!(winding_number(p, &f), w);
        f.reverse();
        prop_assert_eq!(winding_number(p, &f), -w);
        prop_assert_eq!(point_in_polygon_crossing(p, &f), w != 0);
    }

    #[test]
    fn winding_number_matches_summed_angles(
        poly in prop::collection::vec(point(1.0), 3..12), p in point(1.2),
    ) {
        // Arbitrary (mostly self-intersecting) loops; points close to an edge are skipped since
        // the angle sum is not reliable there.
        prop_assume!(distance_to_loop(p, &poly) > 1e-3);
        prop_assert_eq!(winding_number(p, &poly), winding_number_by_angles(p, &poly));
    }

    #[test]
    fn star_polygons_match_summed_angles(
        angles in prop::collection::vec(0.0f64..1.0, 0..10), radii in prop::collection::vec(0.2f32..1.0, 14),
        p in point(1.2),
    ) {
        // Four anchor angles, one per quadrant, keep the gaps below π: a simple polygon.
        let mut angles: Vec<f64> = angles.iter().map(|a| a * std::f64::consts::TAU).collect();
        angles.extend([0.7, 2.3, 3.9, 5.5]);
        angles.sort_by(f64::total_cmp);
        let poly: Vec<Vec2> = angles
            .iter()
            .zip(&radii)
            .map(|(&a, &r)| r * Vec2::new(a.cos() as f32, a.sin() as f32))
            .collect();
        prop_assume!(distance_to_loop(p, &poly) > 1e-4);
        let expected = winding_number_by_angles(p, &poly);
        prop_assert_eq!(winding_number(p, &poly), expected);
        prop_assert_eq!(point_in_polygon_crossing(p, &poly), expected != 0);
    }

    #[test]
    fn convex_test_agrees_with_crossing_and_winding(
        hull in convex_polygon(5), p in int_point(6), reverse in any::<bool>(),
    ) {
        prop_assume!(hull.len() >= 3);
        let mut poly = to_f32(&hull);
        if reverse {
            poly.reverse();
        }
        let q = p.as_vec2();
        let convex = point_in_convex_polygon(q, &poly);
        if on_loop_exact(p, &hull) {
            prop_assert!(convex, "the boundary is inside");
        } else {
            prop_assert_eq!(convex, point_in_polygon_crossing(q, &poly));
            prop_assert_eq!(convex, point_in_polygon_winding(q, &poly));
        }
    }

    #[test]
    fn fan_triangles_tile_their_polygon(hull in convex_polygon(5), p in int_point(6), apex in 0usize..16) {
        // The fan from any vertex tiles the hull: by the half-open rule every point is in exactly
        // as many fan triangles (0 or 1) as the hull says, including points on the diagonals.
        prop_assume!(hull.len() >= 3);
        let mut poly = to_f32(&hull);
        let len = poly.len();
        poly.rotate_left(apex % len);
        let q = p.as_vec2();
        let fan: Vec<[Vec2; 3]> = (1..poly.len() - 1).map(|i| [poly[0], poly[i], poly[i + 1]]).collect();
        let crossing = fan.iter().filter(|t| point_in_polygon_crossing(q, &t[..])).count();
        let winding = fan.iter().filter(|t| point_in_polygon_winding(q, &t[..])).count();
        let whole = usize::from(point_in_polygon_crossing(q, &poly));
        prop_assert_eq!(crossing, whole);
        prop_assert_eq!(winding, whole);
    }

    #[test]
    fn square_diagonal_points_are_in_exactly_one_half(
        corner in int_point(50), size in 2i64..40, k in 0i64..1000, other_diagonal in any::<bool>(),
    ) {
        // A point strictly inside the diagonal.
        let k = 1 + k % (size - 1);
        let [a, b, c, d] = [
            corner,
            corner + I64Vec2::new(size, 0),
            corner + I64Vec2::splat(size),
            corner + I64Vec2::new(0, size),
        ]
        .map(|v| v.as_vec2());
        let (halves, p) = if other_diagonal {
            ([[a, b, d], [b, c, d]], (corner + I64Vec2::new(size - k, k)).as_vec2())
        } else {
            ([[a, b, c], [a, c, d]], (corner + I64Vec2::splat(k)).as_vec2())
        };
        let crossing = halves.iter().filter(|t| point_in_polygon_crossing(p, &t[..])).count();
        let winding = halves.iter().filter(|t| point_in_polygon_winding(p, &t[..])).count();
        prop_assert_eq!(crossing, 1);
        prop_assert_eq!(winding, 1);
    }

    #[test]
    fn segment_segment_matches_exact_reference(
        a0 in int_point(4), a1 in int_point(4), b0 in int_point(4), b1 in int_point(4),
    ) {
        let expected = segment_segment_exact(a0, a1, b0, b1);
        let [fa0, fa1, fb0, fb1] = [a0, a1, b0, b1].map(|v| v.as_vec2());
        prop_assert_eq!(test_segment_segment(fa0, fa1, fb0, fb1), expected != SegmentMeeting::None);
        match (intersect_segment_segment(fa0, fa1, fb0, fb1), expected) {
            (None, SegmentMeeting::None) => {}
            (Some(SegmentIntersection2::Point { point, s, t }), SegmentMeeting::Point(q)) => {
                prop_assert!(point.as_dvec2().distance(q) <= 1e-6, "{} vs {}", point, q);
                prop_assert!(fa0.lerp(fa1, s).distance(point) <= 1e-5);
                prop_assert!(fb0.lerp(fb1, t).distance(point) <= 1e-5);
            }
            (Some(SegmentIntersection2::Overlap { start, end }), SegmentMeeting::Overlap(lo, hi)) => {
                prop_assert_eq!((start.as_dvec2(), end.as_dvec2()), (lo, hi));
            }
            (got, expected) => prop_assert!(false, "{:?} vs {:?}", got, expected),
        }
    }

    #[test]
    fn segment_segment_is_symmetric(
        a0 in point(1.0), a1 in point(1.0), b0 in point(1.0), b1 in point(1.0),
        ints in (int_point(3), int_point(3), int_point(3), int_point(3)), use_ints in any::<bool>(),
    ) {
        let [a0, a1, b0, b1] =
            if use_ints { [ints.0, ints.1, ints.2, ints.3].map(|v| v.as_vec2()) } else { [a0, a1, b0, b1] };
        let hit = test_segment_segment(a0, a1, b0, b1);
        prop_assert_eq!(test_segment_segment(b0, b1, a0, a1), hit);
        prop_assert_eq!(test_segment_segment(a1, a0, b0, b1), hit);
        prop_assert_eq!(test_segment_segment(a0, a1, b1, b0), hit);
        let meet = intersect_segment_segment(a0, a1, b0, b1);
        prop_assert_eq!(meet.is_some(), hit);
        prop_assert_eq!(intersect_segment_segment(b0, b1, a0, a1).is_some(), hit);
        if let Some(SegmentIntersection2::Point { point, s, t }) = meet {
            // The point lies on both segments (to rounding).
            let near = |p: Vec2, u: Vec2, v: Vec2| distance_to_loop(p, &[u, v]) <= 1e-6;
            prop_assert!(near(point, a0, a1) && near(point, b0, b1), "{:?}", meet);
            prop_assert!((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t));
        }
    }

    #[test]
    fn circle_polygon_matches_distance_reference(
        pts in prop::collection::vec(point(1.0), 3..9), c in point(1.5), r in 0.0f32..1.0,
        star in any::<bool>(),
        star_poly in star_polygon(4),
    ) {
        // Convex hulls of random points, and (non-convex) star-shaped polygons.
        let poly: Vec<Vec2> = if star {
            star_poly.iter().map(|p| p.as_vec2() * 0.25).collect()
        } else {
            let scaled: Vec<I64Vec2> = pts.iter().map(|p| (*p * 1000.0).as_i64vec2()).collect();
            convex_hull(scaled).iter().map(|p| p.as_vec2() / 1000.0).collect()
        };
        prop_assume!(poly.len() >= 3);
        let d = distance_to_loop(c, &poly);
        prop_assume!(d > 1e-4 && (d - f64::from(r)).abs() > 1e-5);
        let expected = winding_number_by_angles(c, &poly) != 0 || d <= f64::from(r);
        prop_assert_eq!(test_circle_polygon(&Circle { center: c, radius: r }, &poly), expected);
    }

    #[test]
    fn circle_aabb_and_circle_circle_match_distances(
        c in point(2.0), r in 0.0f32..1.0, lo in point(1.0), size in (0.0f32..1.0, 0.0f32..1.0),
        c2 in point(2.0), r2 in 0.0f32..1.0,
    ) {
        let b = Aabb2 { min: lo, max: lo + Vec2::new(size.0, size.1) };
        let corners = [b.min, Vec2::new(b.max.x, b.min.y), b.max, Vec2::new(b.min.x, b.max.y)];
        let inside = c.cmpge(b.min).all() && c.cmple(b.max).all();
        let d = distance_to_loop(c, &corners);
        let circle = Circle { center: c, radius: r };
        if inside || (d - f64::from(r)).abs() > 1e-5 {
            prop_assert_eq!(test_circle_aabb(&circle, &b), inside || d <= f64::from(r));
        }
        let other = Circle { center: c2, radius: r2 };
        let gap = c.as_dvec2().distance(c2.as_dvec2()) - f64::from(r + r2);
        prop_assert_eq!(test_circle_circle(&circle, &other), test_circle_circle(&other, &circle));
        if gap.abs() > 1e-5 {
            prop_assert_eq!(test_circle_circle(&circle, &other), gap <= 0.0);
        }
    }

    #[test]
    fn non_finite_input_is_never_inside(
        poly in star_polygon(4), p in int_point(3), slot in 0usize..64,
        bad in prop::sample::select(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY]),
    ) {
        let mut poly = to_f32(&poly);
        let mut p = p.as_vec2();
        let n = poly.len();
        let poisoned = if slot < 2 {
            p[slot] = bad;
            p
        } else {
            let k = (slot / 2) % n;
            poly[k][slot % 2] = bad;
            poly[k]
        };
        prop_assert!(!point_in_convex_polygon(p, &poly));
        prop_assert!(!point_in_polygon_crossing(p, &poly));
        prop_assert_eq!(winding_number(p, &poly), 0);
        let circle = Circle { center: p, radius: 100.0 };
        prop_assert!(!test_circle_polygon(&circle, &poly));
        // A segment from the poisoned point, against one it would cross if the point were finite.
        let (u, v) = (Vec2::new(-10.0, 0.5), Vec2::new(10.0, -0.5));
        prop_assert!(!test_segment_segment(poisoned, Vec2::ZERO, u, v));
        prop_assert!(!test_segment_segment(u, v, Vec2::ZERO, poisoned));
        prop_assert!(intersect_segment_segment(poisoned, Vec2::ZERO, u, v).is_none());
    }
}

/// Polygons with fewer than 3 vertices and with repeated vertices: documented answers.
#[test]
fn short_and_repeated_polygons() {
    let p = Vec2::ZERO;
    for poly in [&[][..], &[Vec2::ZERO][..], &[Vec2::ZERO, Vec2::X][..]] {
        assert!(!point_in_convex_polygon(p, poly));
        assert!(!point_in_polygon_crossing(p, poly));
        assert_eq!(winding_number(p, poly), 0);
    }
    let square = [Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0), Vec2::ONE, Vec2::new(-1.0, 1.0)];
    let repeated: Vec<Vec2> = square.iter().flat_map(|&v| [v, v, v]).collect();
    for q in [Vec2::ZERO, Vec2::new(0.5, -0.25), Vec2::new(1.5, 0.0), Vec2::new(-1.0, 0.0)] {
        assert_eq!(point_in_convex_polygon(q, &repeated), point_in_convex_polygon(q, &square));
        assert_eq!(point_in_polygon_crossing(q, &repeated), point_in_polygon_crossing(q, &square));
        assert_eq!(winding_number(q, &repeated), winding_number(q, &square));
    }
}
