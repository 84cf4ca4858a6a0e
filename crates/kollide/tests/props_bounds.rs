//! Property tests of the bounding volumes against the independent references in
//! `kollide_testkit::reference_bounds`, plus one test per kind of bad input.
//!
//! Every property runs 10,000 cases. Where random `f32` inputs can land within rounding of a
//! boundary, the comparison either uses small-integer coordinates (exact) or skips cases that the
//! reference puts within a stated tolerance of touching, and counts and bounds those skips.

use glam::{Affine2, DVec2, DVec3, I64Vec3, Mat2, Mat3, Vec2, Vec3};
use kollide::bounds::{
    Aabb2, Aabb3, Bounds, Circle, Kdop, Kdop14, Kdop18, Kdop26, KdopAxes, KdopDirections, Obb3, Sphere,
};
use kollide::math::{Pose3, Ray2, Ray3};
use kollide_testkit::proptest_config;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_bounds as reference;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use rand::Rng;
use std::cell::Cell;

const CASES: u32 = 10_000;

/// Runs `check` on `CASES` seeded generators (one per proptest case) and panics on failure.
fn run_seeded(check: impl Fn(&mut TestRng) -> Result<(), TestCaseError>) {
    let mut runner = TestRunner::new(proptest_config(CASES));
    if let Err(e) = runner.run(&any::<u64>(), |seed| check(&mut random::rng(seed))) {
        panic!("{e}");
    }
}

fn int_vec(rng: &mut TestRng, lo: i64, hi: i64) -> I64Vec3 {
    I64Vec3::new(rng.random_range(lo..=hi), rng.random_range(lo..=hi), rng.random_range(lo..=hi))
}

/// A valid integer box with coordinates in `[-4, 4]` (zero extents included).
fn int_box(rng: &mut TestRng) -> (I64Vec3, I64Vec3) {
    let (a, b) = (int_vec(rng, -4, 4), int_vec(rng, -4, 4));
    (a.min(b), a.max(b))
}

fn to_aabb(b: (I64Vec3, I64Vec3)) -> Aabb3 {
    Aabb3::new(b.0.as_vec3(), b.1.as_vec3())
}

// ---------------------------------------------------------------------------------------------
// Aabb3 / Aabb2
// ---------------------------------------------------------------------------------------------

#[test]
fn aabb_overlaps_matches_exact_reference_and_is_symmetric() {
    let (hits, total) = (Cell::new(0u32), Cell::new(0u32));
    run_seeded(|rng| {
        let (a, b) = (int_box(rng), int_box(rng));
        let expected = reference::aabb_overlap_exact(a.0, a.1, b.0, b.1);
        let (ka, kb) = (to_aabb(a), to_aabb(b));
        prop_assert_eq!(ka.overlaps(&kb), expected);
        prop_assert_eq!(kb.overlaps(&ka), expected);
        prop_assert_eq!(Bounds::overlaps(&ka, &kb), expected);
        // The 2D box of the xy coordinates.
        let (a2, b2) = (
            Aabb2::new(ka.min.truncate(), ka.max.truncate()),
            Aabb2::new(kb.min.truncate(), kb.max.truncate()),
        );
        let flat = |v: I64Vec3| I64Vec3::new(v.x, v.y, 0);
        let expected2 = reference::aabb_overlap_exact(flat(a.0), flat(a.1), flat(b.0), flat(b.1));
        prop_assert_eq!(a2.overlaps(&b2), expected2);
        prop_assert_eq!(b2.overlaps(&a2), expected2);
        hits.set(hits.get() + expected as u32);
        total.set(total.get() + 1);
        Ok(())
    });
    let (hits, total) = (hits.get(), total.get());
    assert!(hits > total / 5 && hits < total * 4 / 5, "hit rate {hits}/{total}");
}

#[test]
fn aabb_contains_merge_and_closest_point_match_corner_enumeration() {
    run_seeded(|rng| {
        let (a, b) = (to_aabb(int_box(rng)), to_aabb(int_box(rng)));
        // b ⊆ a iff all 8 corners of b are in a (a convex).
        let corners = reference::box_corners(b.min.as_dvec3(), b.max.as_dvec3());
        let expected = corners.iter().all(|c| a.contains_point(c.as_vec3()));
        prop_assert_eq!(a.contains(&b), expected);
        let m = a.merge(&b);
        prop_assert!(m.contains(&a) && m.contains(&b));
        // Tight: every face of the merge is a face of a or b.
        prop_assert!((m.min.cmpeq(a.min) | m.min.cmpeq(b.min)).all());
        prop_assert!((m.max.cmpeq(a.max) | m.max.cmpeq(b.max)).all());
        // Closest point: on the box, and no corner or sampled point of the box is closer.
        let p = random::point3(rng, 8.0);
        let q = a.closest_point(p);
        prop_assert!(a.contains_point(q));
        let d2 = a.distance_squared_to_point(p);
        prop_assert!(
            (f64::from(d2)
                - reference::box_signed_distance(a.min.as_dvec3(), a.max.as_dvec3(), p.as_dvec3())
                    .max(0.0)
                    .powi(2))
            .abs()
                < 1e-3
        );
        Ok(())
    });
}

/// A random ray: origin and direction either small integers (exercising zero components and
/// origins exactly on slab planes, the `0 · ∞` case) or uniform floats.
fn random_ray(rng: &mut TestRng) -> (Vec3, Vec3) {
    let origin = if rng.random_bool(0.7) { int_vec(rng, -6, 6).as_vec3() } else { random::point3(rng, 6.0) };
    let dir = if rng.random_bool(0.7) {
        int_vec(rng, -2, 2).as_vec3()
    } else {
        let mut d = random::point3(rng, 2.0);
        if rng.random_bool(0.3) {
            d[rng.random_range(0..3)] = 0.0;
        }
        d
    };
    (origin, dir)
}

/// Checks a ray interval against the exact rational interval of an all-integer ray and box.
///
/// Cases within `tol` of a decision (a grazing touch of zero length, an entry at `max_t`) may be
/// answered either way; misses there are counted in `borderline`.
fn check_exact_interval(
    result: Option<(f32, f32)>,
    exact: Option<(f64, f64)>,
    max_t: f32,
    borderline: &Cell<u32>,
) -> Result<(), TestCaseError> {
    let max_t = f64::from(max_t);
    let tol = 1e-5 * (1.0 + max_t);
    let clipped = exact.map(|(e0, e1)| (e0, e1.min(max_t)));
    match clipped {
        Some((e0, e1)) if e1 - e0 > tol => {
            let (t0, t1) = result.ok_or_else(|| TestCaseError::fail(format!("missed exact {e0}..{e1}")))?;
            prop_assert!((f64::from(t0) - e0).abs() <= tol, "entry {t0} vs exact {e0}");
            prop_assert!((f64::from(t1) - e1).abs() <= tol, "exit {t1} vs exact {e1}");
        }
        Some((e0, e1)) if e1 - e0 >= -tol => match result {
            // A touch (zero-length interval) or an entry at `max_t`: either answer, but a hit
            // must be at the right place.
            Some((t0, t1)) => {
                prop_assert!((f64::from(t0) - e0).abs() <= tol && (f64::from(t1) - e1).abs() <= tol);
            }
            None => borderline.set(borderline.get() + 1),
        },
        _ => prop_assert!(result.is_none(), "hit {result:?} but exact {exact:?}"),
    }
    Ok(())
}

/// Checks a ray interval against signed distances sampled along the ray.
///
/// With `δ` a margin in `t` and `tol` a distance tolerance: samples inside `[t0 + δ, t1 - δ]`
/// must be in the box (`sd <= tol`), samples outside `[t0 - δ, t1 + δ]` must not be deep inside
/// (`sd >= -tol`), both interval ends must lie on the box (`sd <= tol`), and `None` means no
/// sample is deep inside.
fn check_interval(
    result: Option<(f32, f32)>,
    samples: &[(f64, f64)],
    endpoint_sd: impl Fn(f64) -> f64,
    max_t: f32,
    delta: f64,
    tol: f64,
) -> Result<bool, TestCaseError> {
    match result {
        None => {
            for &(t, sd) in samples {
                prop_assert!(sd >= -tol, "miss reported but t = {t} is inside by {sd}");
            }
            Ok(false)
        }
        Some((t0, t1)) => {
            prop_assert!(0.0 <= t0 && t0 <= t1 && t1 <= max_t, "bad interval {t0} {t1}");
            let (t0, t1) = (f64::from(t0), f64::from(t1));
            prop_assert!(endpoint_sd(t0) <= tol && endpoint_sd(t1) <= tol);
            for &(t, sd) in samples {
                if t >= t0 + delta && t <= t1 - delta {
                    prop_assert!(sd <= tol, "t = {t} in [{t0}, {t1}] but outside by {sd}");
                }
                if t < t0 - delta || t > t1 + delta {
                    prop_assert!(sd >= -tol, "t = {t} outside [{t0}, {t1}] but inside by {sd}");
                }
            }
            Ok(true)
        }
    }
}

#[test]
fn aabb3_ray_interval_matches_sampling_and_exact_integer_cases() {
    let (hits, total) = (Cell::new(0u32), Cell::new(0u32));
    let (exact_cases, borderline) = (Cell::new(0u32), Cell::new(0u32));
    run_seeded(|rng| {
        let b = if rng.random_bool(0.5) {
            to_aabb(int_box(rng))
        } else {
            let c = random::point3(rng, 3.0);
            let h =
                Vec3::new(rng.random_range(0.0..3.0), rng.random_range(0.0..3.0), rng.random_range(0.0..3.0));
            Aabb3::from_center_half_extents(c, h)
        };
        let (origin, mut dir) = random_ray(rng);
        let mut max_t: f32 = rng.random_range(0.5..8.0);
        if rng.random_bool(0.5) {
            // Aim at a point of the box (an integer one for integer boxes: often a corner, an
            // edge or a face), reached at t = 1.
            let target = Vec3::new(
                rng.random_range(b.min.x..=b.max.x).round().clamp(b.min.x, b.max.x),
                rng.random_range(b.min.y..=b.max.y).round().clamp(b.min.y, b.max.y),
                rng.random_range(b.min.z..=b.max.z).round().clamp(b.min.z, b.max.z),
            );
            dir = target - origin;
            max_t = rng.random_range(0.5..2.0);
        }
        let ray = Ray3::new(origin, dir);
        let result = b.ray_interval(&ray, max_t);
        let all_integer = [b.min, b.max, origin, dir].iter().all(|v| v.round() == *v);
        if all_integer {
            let i = |v: Vec3| v.as_i64vec3();
            let exact = reference::ray_box_interval_exact(i(b.min), i(b.max), i(origin), i(dir));
            check_exact_interval(result, exact, max_t, &borderline)?;
            exact_cases.set(exact_cases.get() + 1);
        }
        // The precomputed-reciprocal entry point gives the same answer.
        prop_assert_eq!(result, b.ray_interval_inv(origin, dir.recip(), max_t));
        let (min, max) = (b.min.as_dvec3(), b.max.as_dvec3());
        let (o, d) = (origin.as_dvec3(), dir.as_dvec3());
        let samples = reference::ray_box_samples(min, max, o, d, f64::from(max_t), 256);
        let scale = 1.0 + o.abs().max_element() + d.abs().max_element() * f64::from(max_t);
        let hit = check_interval(
            result,
            &samples,
            |t| reference::box_signed_distance(min, max, o + t * d),
            max_t,
            1e-5 * f64::from(max_t),
            1e-5 * scale,
        )?;
        hits.set(hits.get() + hit as u32);
        total.set(total.get() + 1);
        Ok(())
    });
    let (hits, total) = (hits.get(), total.get());
    assert!(hits > total / 5 && hits < total * 4 / 5, "hit rate {hits}/{total}");
    let (exact, border) = (exact_cases.get(), borderline.get());
    assert!(exact > total / 5 && border * 20 < exact, "{exact} exact cases, {border} borderline");
}

#[test]
fn aabb2_ray_interval_matches_sampling_and_exact_integer_cases() {
    let (hits, total) = (Cell::new(0u32), Cell::new(0u32));
    let (exact_cases, borderline) = (Cell::new(0u32), Cell::new(0u32));
    run_seeded(|rng| {
        let b3 = to_aabb(int_box(rng));
        let b = Aabb2::new(b3.min.truncate(), b3.max.truncate());
        let (origin, dir) = random_ray(rng);
        let (origin, mut dir) = (origin.truncate(), dir.truncate());
        let mut max_t: f32 = rng.random_range(0.5..8.0);
        if rng.random_bool(0.5) {
            // Aim at an integer point of the box (a corner, an edge or the interior), at t = 1.
            let target = Vec2::new(
                rng.random_range(b.min.x..=b.max.x).round(),
                rng.random_range(b.min.y..=b.max.y).round(),
            );
            dir = target - origin;
            max_t = rng.random_range(0.5..2.0);
        }
        let result = b.ray_interval(&Ray2::new(origin, dir), max_t);
        if [origin, dir].iter().all(|v| v.round() == *v) {
            let i = |v: Vec2| v.extend(0.0).as_i64vec3();
            let exact = reference::ray_box_interval_exact(i(b.min), i(b.max), i(origin), i(dir));
            check_exact_interval(result, exact, max_t, &borderline)?;
            exact_cases.set(exact_cases.get() + 1);
        }
        prop_assert_eq!(result, b.ray_interval_inv(origin, dir.recip(), max_t));
        let (min, max) = (b.min.as_dvec2(), b.max.as_dvec2());
        let (o, d) = (origin.as_dvec2(), dir.as_dvec2());
        let samples = reference::ray_rect_samples(min, max, o, d, f64::from(max_t), 256);
        let scale = 1.0 + o.abs().max_element() + d.abs().max_element() * f64::from(max_t);
        let hit = check_interval(
            result,
            &samples,
            |t| reference::rect_signed_distance(min, max, o + t * d),
            max_t,
            1e-5 * f64::from(max_t),
            1e-5 * scale,
        )?;
        hits.set(hits.get() + hit as u32);
        total.set(total.get() + 1);
        Ok(())
    });
    let (hits, total) = (hits.get(), total.get());
    assert!(hits > total / 5 && hits < total * 4 / 5, "hit rate {hits}/{total}");
    let (exact, border) = (exact_cases.get(), borderline.get());
    assert!(exact > total / 5 && border * 20 < exact, "{exact} exact cases, {border} borderline");
}

#[test]
fn aabb3_transformed_contains_mapped_corners_and_is_tight() {
    run_seeded(|rng| {
        let c = random::point3(rng, 5.0);
        let h = Vec3::new(rng.random_range(0.0..3.0), rng.random_range(0.0..3.0), rng.random_range(0.0..3.0));
        let b = Aabb3::from_center_half_extents(c, h);
        let map = random::affine3(rng, 10.0);
        let t = b.transformed(&map);
        let m = map.matrix3.as_dmat3();
        let tr = map.translation.as_dvec3();
        let corners = reference::box_corners(b.min.as_dvec3(), b.max.as_dvec3()).map(|p| m * p + tr);
        let (tmin, tmax) = (t.min.as_dvec3(), t.max.as_dvec3());
        let tol = 1e-5 * (1.0 + corners.iter().map(|p| p.abs().max_element()).fold(0.0, f64::max));
        for p in &corners {
            prop_assert!((tmin - tol).cmple(*p).all() && p.cmple(tmax + tol).all());
        }
        for axis in 0..3 {
            prop_assert!(corners.iter().any(|p| (p[axis] - tmin[axis]).abs() <= tol));
            prop_assert!(corners.iter().any(|p| (p[axis] - tmax[axis]).abs() <= tol));
        }
        Ok(())
    });
}

#[test]
fn aabb2_transformed_contains_mapped_corners_and_is_tight() {
    run_seeded(|rng| {
        let b = Aabb2::from_center_half_extents(
            random::point2(rng, 5.0),
            Vec2::new(rng.random_range(0.0..3.0), rng.random_range(0.0..3.0)),
        );
        // Rotation, shear, non-uniform scale, optional reflection.
        let rot = Mat2::from_angle(rng.random_range(-3.2..3.2));
        let shear = Mat2::from_cols(Vec2::X, Vec2::new(rng.random_range(-0.5..0.5), 1.0));
        let mut scale = Vec2::new(rng.random_range(0.2..5.0), rng.random_range(0.2..5.0));
        if rng.random_bool(0.2) {
            scale.x = -scale.x;
        }
        let map = Affine2::from_mat2_translation(
            rot * shear * Mat2::from_diagonal(scale),
            random::point2(rng, 10.0),
        );
        let t = b.transformed(&map);
        let corners: Vec<DVec2> = (0..4)
            .map(|i| {
                let p = DVec2::new(
                    f64::from(if i & 1 != 0 { b.max.x } else { b.min.x }),
                    f64::from(if i & 2 != 0 { b.max.y } else { b.min.y }),
                );
                map.matrix2.as_dmat2() * p + map.translation.as_dvec2()
            })
            .collect();
        let (tmin, tmax) = (t.min.as_dvec2(), t.max.as_dvec2());
        let tol = 1e-5 * (1.0 + corners.iter().map(|p| p.abs().max_element()).fold(0.0, f64::max));
        for p in &corners {
            prop_assert!((tmin - tol).cmple(*p).all() && p.cmple(tmax + tol).all());
        }
        for axis in 0..2 {
            prop_assert!(corners.iter().any(|p| (p[axis] - tmin[axis]).abs() <= tol));
            prop_assert!(corners.iter().any(|p| (p[axis] - tmax[axis]).abs() <= tol));
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------
// Spheres and circles
// ---------------------------------------------------------------------------------------------

/// A small point set that is often degenerate: uniform, on a small integer grid (duplicates,
/// collinear, coplanar and cocircular subsets), on a line, or on a plane.
fn small_point_set(rng: &mut TestRng, n: usize) -> Vec<Vec3> {
    match rng.random_range(0..4) {
        0 => (0..n).map(|_| random::point3(rng, 10.0)).collect(),
        1 => (0..n).map(|_| int_vec(rng, -2, 2).as_vec3()).collect(),
        2 => {
            let (a, d) = (random::point3(rng, 5.0), random::point3(rng, 3.0));
            (0..n).map(|_| a + d * rng.random_range(-2.0..2.0)).collect()
        }
        _ => {
            let (a, u, v) = (random::point3(rng, 5.0), random::point3(rng, 3.0), random::point3(rng, 3.0));
            (0..n).map(|_| a + u * rng.random_range(-2.0..2.0) + v * rng.random_range(-2.0..2.0)).collect()
        }
    }
}

/// The largest distance, in `f64`, from `center` to any point.
fn reach3(points: &[Vec3], center: Vec3) -> f64 {
    points.iter().map(|p| p.as_dvec3().distance(center.as_dvec3())).fold(0.0, f64::max)
}

fn reach2(points: &[Vec2], center: Vec2) -> f64 {
    points.iter().map(|p| p.as_dvec2().distance(center.as_dvec2())).fold(0.0, f64::max)
}

/// The documented bound on how far the minimal ball's radius may exceed the exact minimum:
/// `1e-6 · (r + max |coordinate|)`.
fn minimal_slack(r: f64, max_coord: f64) -> f64 {
    1e-6 * (r + max_coord)
}

#[test]
fn minimal_sphere_matches_brute_force_and_ritter_encloses() {
    run_seeded(|rng| {
        let n = rng.random_range(1..=8);
        let points = small_point_set(rng, n);
        let best =
            reference::min_sphere_radius_brute(&points).ok_or_else(|| TestCaseError::fail("no reference"))?;
        let max_coord = points.iter().map(|p| f64::from(p.abs().max_element())).fold(0.0, f64::max);
        let s = Sphere::from_points(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        // Encloses: exactly, distances evaluated in f64.
        prop_assert!(reach3(&points, s.center) <= f64::from(s.radius));
        let r = f64::from(s.radius);
        prop_assert!(r <= best + minimal_slack(best, max_coord), "radius {r} vs minimal {best}");
        prop_assert!(r >= best - 1e-9 * (1.0 + best), "radius {r} below minimal {best}");
        let fast = Sphere::from_points_fast(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        prop_assert!(reach3(&points, fast.center) <= f64::from(fast.radius));
        prop_assert!(f64::from(fast.radius) >= best - 1e-9 * (1.0 + best));
        Ok(())
    });
}

#[test]
fn minimal_circle_matches_brute_force_and_ritter_encloses() {
    run_seeded(|rng| {
        let n = rng.random_range(1..=8);
        let points: Vec<Vec2> = small_point_set(rng, n).iter().map(|p| p.truncate()).collect();
        let best =
            reference::min_circle_radius_brute(&points).ok_or_else(|| TestCaseError::fail("no reference"))?;
        let max_coord = points.iter().map(|p| f64::from(p.abs().max_element())).fold(0.0, f64::max);
        let c = Circle::from_points(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        prop_assert!(reach2(&points, c.center) <= f64::from(c.radius));
        let r = f64::from(c.radius);
        prop_assert!(r <= best + minimal_slack(best, max_coord), "radius {r} vs minimal {best}");
        prop_assert!(r >= best - 1e-9 * (1.0 + best));
        let fast = Circle::from_points_fast(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        prop_assert!(reach2(&points, fast.center) <= f64::from(fast.radius));
        prop_assert!(f64::from(fast.radius) >= best - 1e-9 * (1.0 + best));
        Ok(())
    });
}

#[test]
fn minimal_sphere_of_larger_sets_is_below_ritter_and_above_half_diameter() {
    run_seeded(|rng| {
        let n = rng.random_range(9..=60);
        let points = small_point_set(rng, n);
        let s = Sphere::from_points(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        let fast = Sphere::from_points_fast(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        prop_assert!(reach3(&points, s.center) <= f64::from(s.radius));
        let max_coord = points.iter().map(|p| f64::from(p.abs().max_element())).fold(0.0, f64::max);
        let r = f64::from(s.radius);
        prop_assert!(r <= f64::from(fast.radius) + minimal_slack(r, max_coord));
        let diameter = points
            .iter()
            .flat_map(|p| points.iter().map(move |q| p.as_dvec3().distance(q.as_dvec3())))
            .fold(0.0, f64::max);
        prop_assert!(r >= 0.5 * diameter - 1e-9 * (1.0 + diameter));
        // Jung's theorem: in 3D the minimal radius never exceeds √(3/8) · diameter.
        prop_assert!(r <= (3.0f64 / 8.0).sqrt() * diameter + minimal_slack(r, max_coord));
        Ok(())
    });
}

#[test]
fn sphere_merge_encloses_both_and_is_minimal() {
    run_seeded(|rng| {
        let a = Sphere::new(random::point3(rng, 5.0), rng.random_range(0.0..3.0));
        let b = Sphere::new(random::point3(rng, 5.0), rng.random_range(0.0..3.0));
        let m = a.merge(&b);
        let m2 = b.merge(&a);
        prop_assert!(m.center.distance(m2.center) <= 1e-5 && (m.radius - m2.radius).abs() <= 1e-5);
        for s in [a, b] {
            // The ball contains s iff |c_m - c_s| + r_s <= r_m.
            let reach = m.center.as_dvec3().distance(s.center.as_dvec3()) + f64::from(s.radius);
            prop_assert!(reach <= f64::from(m.radius) * (1.0 + 1e-6) + 1e-6);
        }
        // Minimal: no smaller ball holds the two far ends on the line through the centers.
        let d = a.center.as_dvec3().distance(b.center.as_dvec3());
        let (ra, rb) = (f64::from(a.radius), f64::from(b.radius));
        let lower = ra.max(rb).max(0.5 * (d + ra + rb));
        prop_assert!(f64::from(m.radius) <= lower * (1.0 + 1e-6) + 1e-6);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------
// Oriented boxes
// ---------------------------------------------------------------------------------------------

fn random_obb(rng: &mut TestRng) -> Obb3 {
    let center = random::point3(rng, 2.0);
    let axes = Mat3::from_quat(random::rotation3(rng));
    let half =
        Vec3::new(rng.random_range(0.05..1.5), rng.random_range(0.05..1.5), rng.random_range(0.05..1.5));
    Obb3::new(center, axes, half)
}

fn obb_corners(b: &Obb3) -> [DVec3; 8] {
    reference::obb_corners_f64(b.center, [b.axes.x_axis, b.axes.y_axis, b.axes.z_axis], b.half_extents)
}

/// Boxes the reference puts within this distance of touching may be answered either way.
const TOUCH_BAND: f64 = 1e-4;

#[test]
fn obb_overlaps_matches_corner_sat_is_symmetric_and_rigid_invariant() {
    let (hits, skips, total) = (Cell::new(0u32), Cell::new(0u32), Cell::new(0u32));
    run_seeded(|rng| {
        let (a, b) = (random_obb(rng), random_obb(rng));
        let gap = reference::obb_max_gap(&obb_corners(&a), &obb_corners(&b));
        let pose = Pose3::new(random::point3(rng, 20.0), random::rotation3(rng));
        let (ta, tb) = (a.transformed_by(&pose), b.transformed_by(&pose));
        total.set(total.get() + 1);
        if gap.abs() < TOUCH_BAND {
            skips.set(skips.get() + 1);
            return Ok(());
        }
        let expected = gap < 0.0;
        prop_assert_eq!(a.overlaps(&b), expected, "gap {}", gap);
        prop_assert_eq!(b.overlaps(&a), expected, "gap {}", gap);
        prop_assert_eq!(ta.overlaps(&tb), expected, "moved, gap {}", gap);
        prop_assert_eq!(tb.overlaps(&ta), expected, "moved, gap {}", gap);
        hits.set(hits.get() + expected as u32);
        Ok(())
    });
    let (hits, skips, total) = (hits.get(), skips.get(), total.get());
    assert!(skips * 100 < total, "{skips} of {total} cases within {TOUCH_BAND} of touching");
    assert!(hits > total / 5 && hits < total * 4 / 5, "hit rate {hits}/{total}");
}

#[test]
fn obb_contains_point_matches_face_planes_and_closest_point_is_inside() {
    let (inside, total) = (Cell::new(0u32), Cell::new(0u32));
    run_seeded(|rng| {
        let b = random_obb(rng);
        // Inside for about (1/1.5)³ ≈ 30% of the points.
        let p = b.center + b.axes * (random::point3(rng, 1.5) * b.half_extents);
        let corners = obb_corners(&b);
        let sd = reference::obb_face_plane_distance(&corners, p);
        total.set(total.get() + 1);
        if sd.abs() > 1e-5 {
            prop_assert_eq!(b.contains_point(p), sd < 0.0, "plane distance {}", sd);
            inside.set(inside.get() + (sd < 0.0) as u32);
        }
        // The closest point lies on the box, is p itself when p is inside, and is no farther than
        // any corner.
        let q = b.closest_point(p);
        prop_assert!(reference::obb_face_plane_distance(&corners, q) <= 1e-5);
        if sd <= 0.0 {
            prop_assert!(q.distance(p) <= 1e-5);
        }
        let dq = q.as_dvec3().distance(p.as_dvec3());
        prop_assert!(corners.iter().all(|c| dq <= c.distance(p.as_dvec3()) + 1e-5));
        // aabb(): contains the corners and touches each of its faces with one.
        let bb = b.aabb();
        let (lo, hi) = (bb.min.as_dvec3(), bb.max.as_dvec3());
        for axis in 0..3 {
            prop_assert!(corners.iter().all(|c| c[axis] >= lo[axis] - 1e-5 && c[axis] <= hi[axis] + 1e-5));
            prop_assert!(corners.iter().any(|c| (c[axis] - lo[axis]).abs() <= 1e-5));
            prop_assert!(corners.iter().any(|c| (c[axis] - hi[axis]).abs() <= 1e-5));
        }
        // corners() agrees with the reference corner order.
        for (k, r) in b.corners().iter().zip(corners.iter()) {
            prop_assert!(k.as_dvec3().distance(*r) <= 1e-5);
        }
        Ok(())
    });
    let (inside, total) = (inside.get(), total.get());
    assert!(inside > total / 10 && inside < total * 9 / 10, "inside rate {inside}/{total}");
}

#[test]
fn obb_from_points_covariance_encloses_tightly_with_orthonormal_axes() {
    run_seeded(|rng| {
        let n = rng.random_range(1..=40);
        let points = small_point_set(rng, n);
        let b = Obb3::from_points_covariance(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        let axes = [b.axes.x_axis, b.axes.y_axis, b.axes.z_axis].map(|a| a.as_dvec3());
        for i in 0..3 {
            for j in 0..3 {
                let expected = if i == j { 1.0 } else { 0.0 };
                prop_assert!((axes[i].dot(axes[j]) - expected).abs() < 1e-6);
            }
        }
        prop_assert!(axes[0].cross(axes[1]).dot(axes[2]) > 0.0, "left-handed frame");
        let c = b.center.as_dvec3();
        let e = b.half_extents.as_dvec3();
        prop_assert!(e.cmpge(DVec3::ZERO).all());
        let scale = 1.0 + points.iter().map(|p| f64::from(p.abs().max_element())).fold(0.0, f64::max);
        for k in 0..3 {
            let proj: Vec<f64> = points.iter().map(|p| (p.as_dvec3() - c).dot(axes[k])).collect();
            // Encloses exactly (f64 evaluation); tight on both faces.
            prop_assert!(proj.iter().all(|s| s.abs() <= e[k]));
            prop_assert!(proj.iter().any(|s| (s - e[k]).abs() <= 1e-5 * scale));
            prop_assert!(proj.iter().any(|s| (s + e[k]).abs() <= 1e-5 * scale));
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------
// k-DOPs
// ---------------------------------------------------------------------------------------------

fn int_points(rng: &mut TestRng, n: usize, offset: I64Vec3) -> Vec<Vec3> {
    (0..n).map(|_| (int_vec(rng, -3, 3) + offset).as_vec3()).collect()
}

/// Overlap of two k-DOPs built from integer point sets against the reference projection of the
/// point sets (exact: all projections are small integers), symmetry, and merge.
fn check_kdop<const N: usize>(rng: &mut TestRng) -> Result<bool, TestCaseError>
where
    KdopDirections: KdopAxes<N>,
{
    let na = rng.random_range(1..=6);
    let nb = rng.random_range(1..=6);
    let a = int_points(rng, na, I64Vec3::ZERO);
    let offset = int_vec(rng, -5, 5);
    let b = int_points(rng, nb, offset);
    let (ka, kb) = (
        Kdop::<N>::from_points(&a).ok_or_else(|| TestCaseError::fail("None"))?,
        Kdop::<N>::from_points(&b).ok_or_else(|| TestCaseError::fail("None"))?,
    );
    let expected = reference::kdop_overlap_from_points(&reference::kdop_directions(N), &a, &b);
    prop_assert_eq!(ka.overlaps(&kb), expected);
    prop_assert_eq!(kb.overlaps(&ka), expected);
    let union: Vec<Vec3> = a.iter().chain(b.iter()).copied().collect();
    let ku = Kdop::<N>::from_points(&union).ok_or_else(|| TestCaseError::fail("None"))?;
    prop_assert_eq!(ku, ka.merge(&kb));
    prop_assert!(union.iter().all(|p| ku.contains_point(*p)));
    // Sharing a point means overlapping hulls: never a false negative.
    let mut b_shared = b.clone();
    b_shared.push(a[0]);
    let ks = Kdop::<N>::from_points(&b_shared).ok_or_else(|| TestCaseError::fail("None"))?;
    prop_assert!(ka.overlaps(&ks) && ks.overlaps(&ka));
    Ok(expected)
}

#[test]
fn kdop_overlaps_matches_point_projections() {
    let hits = [Cell::new(0u32), Cell::new(0u32), Cell::new(0u32)];
    let total = Cell::new(0u32);
    run_seeded(|rng| {
        hits[0].set(hits[0].get() + check_kdop::<7>(rng)? as u32);
        hits[1].set(hits[1].get() + check_kdop::<9>(rng)? as u32);
        hits[2].set(hits[2].get() + check_kdop::<13>(rng)? as u32);
        total.set(total.get() + 1);
        Ok(())
    });
    let total = total.get();
    for h in hits.map(|h| h.get()) {
        assert!(h > total / 10 && h < total * 9 / 10, "hit rate {h}/{total}");
    }
}

#[test]
fn kdop_from_points_contains_its_points() {
    run_seeded(|rng| {
        let n = rng.random_range(1..=20);
        let points: Vec<Vec3> = (0..n).map(|_| random::point3(rng, 100.0)).collect();
        let k14 = Kdop14::from_points(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        let k18 = Kdop18::from_points(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        let k26 = Kdop26::from_points(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        for p in &points {
            prop_assert!(k14.contains_point(*p) && k18.contains_point(*p) && k26.contains_point(*p));
        }
        // A point outside the AABB of the set is outside every DOP (the first 3 slabs are the axes).
        let aabb = Aabb3::from_points(&points).ok_or_else(|| TestCaseError::fail("None"))?;
        let q = random::point3(rng, 150.0);
        if !aabb.contains_point(q) {
            prop_assert!(!k14.contains_point(q) && !k18.contains_point(q) && !k26.contains_point(q));
        }
        Ok(())
    });
}

#[test]
fn kdop_separates_sets_split_by_a_diagonal_plane() {
    run_seeded(|rng| {
        // Points with x + y + z < c and points with x + y + z > c: the 14- and 26-DOPs have the
        // direction (1, 1, 1) and must not overlap, although the AABBs usually do.
        let c: f32 = rng.random_range(-3.0..3.0);
        let gap: f32 = rng.random_range(0.01..1.0);
        let mut below = Vec::new();
        let mut above = Vec::new();
        while below.len() < 5 || above.len() < 5 {
            let p = random::point3(rng, 4.0);
            let s = p.x + p.y + p.z;
            if s < c - gap && below.len() < 5 {
                below.push(p);
            } else if s > c + gap && above.len() < 5 {
                above.push(p);
            }
        }
        let (a14, b14) = (Kdop14::from_points(&below), Kdop14::from_points(&above));
        let (a26, b26) = (Kdop26::from_points(&below), Kdop26::from_points(&above));
        prop_assert!(!a14.zip(b14).is_some_and(|(a, b)| a.overlaps(&b)));
        prop_assert!(!a26.zip(b26).is_some_and(|(a, b)| a.overlaps(&b)));
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------
// Bad input: one test per kind, each with its documented answer.
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_input_non_finite_points() {
    let bad3 = [
        vec![Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0)],
        vec![Vec3::new(0.0, f32::INFINITY, 0.0)],
        vec![Vec3::ONE, Vec3::new(0.0, 0.0, f32::NEG_INFINITY)],
    ];
    for pts in &bad3 {
        assert_eq!(Aabb3::from_points(pts), None);
        assert_eq!(Sphere::from_points(pts), None);
        assert_eq!(Sphere::from_points_fast(pts), None);
        assert_eq!(Obb3::from_points_covariance(pts), None);
        assert_eq!(Kdop14::from_points(pts), None);
        assert_eq!(Kdop18::from_points(pts), None);
        assert_eq!(Kdop26::from_points(pts), None);
        let pts2: Vec<Vec2> = pts.iter().map(|p| Vec2::new(p.x, p.y + p.z)).collect();
        assert_eq!(Aabb2::from_points(&pts2), None);
        assert_eq!(Circle::from_points(&pts2), None);
        assert_eq!(Circle::from_points_fast(&pts2), None);
    }
    // NaN queries answer false / None.
    let b = Aabb3::new(Vec3::ZERO, Vec3::ONE);
    assert!(!b.contains_point(Vec3::NAN));
    assert!(!b.overlaps(&Aabb3::new(Vec3::NAN, Vec3::ONE)));
    assert_eq!(b.ray_interval(&Ray3::new(Vec3::NAN, Vec3::X), 1.0), None);
    assert_eq!(b.ray_interval(&Ray3::new(Vec3::ZERO, Vec3::NAN), 1.0), None);
    assert_eq!(b.ray_interval_inv(Vec3::ZERO, Vec3::NAN, 1.0), None);
    assert!(Aabb3::new(Vec3::NAN, Vec3::ONE).transformed(&glam::Affine3A::IDENTITY).is_empty());
    assert!(!Sphere::new(Vec3::ZERO, f32::NAN).contains_point(Vec3::ZERO));
    let unit = Obb3::new(Vec3::ZERO, Mat3::IDENTITY, Vec3::ONE);
    let nan_axes = Obb3::new(Vec3::ZERO, Mat3::from_cols(Vec3::X, Vec3::NAN, Vec3::Z), Vec3::ONE);
    assert!(!unit.overlaps(&nan_axes) && !nan_axes.overlaps(&unit));
    assert!(!Kdop26::from_points(&[Vec3::ZERO]).is_some_and(|k| k.contains_point(Vec3::NAN)));
}

#[test]
fn bad_input_empty_slices() {
    assert_eq!(Aabb3::from_points(&[]), None);
    assert_eq!(Aabb2::from_points(&[]), None);
    assert_eq!(Sphere::from_points(&[]), None);
    assert_eq!(Sphere::from_points_fast(&[]), None);
    assert_eq!(Circle::from_points(&[]), None);
    assert_eq!(Circle::from_points_fast(&[]), None);
    assert_eq!(Obb3::from_points_covariance(&[]), None);
    assert_eq!(Kdop14::from_points(&[]), None);
    assert_eq!(Kdop18::from_points(&[]), None);
    assert_eq!(Kdop26::from_points(&[]), None);
}

#[test]
fn bad_input_inverted_boxes() {
    let valid = Aabb3::new(Vec3::splat(-10.0), Vec3::splat(10.0));
    let inverted = Aabb3::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 1.0));
    for e in [Aabb3::EMPTY, inverted] {
        assert!(e.is_empty() && !e.is_valid());
        assert!(!e.contains_point(Vec3::new(0.5, 0.5, 0.5)));
        assert!(valid.contains(&e), "the empty set is inside every box");
        assert!(!e.contains(&valid));
        assert_eq!(e.surface_area(), 0.0);
        assert_eq!(e.volume(), 0.0);
        assert_eq!(e.ray_interval(&Ray3::new(Vec3::splat(-5.0), Vec3::ONE), 100.0), None);
        assert!(e.transformed(&random::affine3(&mut random::rng(1), 3.0)).is_empty());
        assert!(!Obb3::from_aabb(&e).contains_point(Vec3::splat(0.5)));
        assert!(!Obb3::from_aabb(&e).overlaps(&Obb3::from_aabb(&valid)));
    }
    // EMPTY: overlaps nothing, identity of merge and grow; other inverted boxes get the
    // documented componentwise answer.
    assert!(!Aabb3::EMPTY.overlaps(&valid) && !valid.overlaps(&Aabb3::EMPTY));
    assert_eq!(Aabb3::EMPTY.merge(&valid), valid);
    assert_eq!(<Aabb3 as Bounds>::empty().merge(&valid), valid);
    assert!(inverted.overlaps(&valid), "componentwise test on stored coordinates");
    assert_eq!(Aabb3::EMPTY.distance_squared_to_point(Vec3::ZERO), f32::INFINITY);
    assert!(Aabb2::EMPTY.is_empty() && !Aabb2::EMPTY.overlaps(&Aabb2::new(Vec2::ZERO, Vec2::ONE)));
    assert_eq!(Aabb2::EMPTY.surface_area(), 0.0);
    assert!(Aabb2::EMPTY.transformed(&Affine2::from_angle(1.0)).is_empty());
    assert!(Kdop14::EMPTY.is_empty() && !Kdop14::EMPTY.overlaps(&Kdop14::EMPTY));
}

#[test]
fn bad_input_zero_extent_boxes() {
    let point = Aabb3::new(Vec3::ONE, Vec3::ONE);
    let unit = Aabb3::new(Vec3::ZERO, Vec3::ONE);
    assert!(!point.is_empty() && point.is_valid());
    assert!(point.overlaps(&unit) && unit.overlaps(&point) && point.overlaps(&point));
    assert!(point.contains_point(Vec3::ONE) && unit.contains(&point));
    assert_eq!(point.surface_area(), 0.0);
    // A ray through the point box, and one along a face of a flat box (0 · ∞ case).
    let r = Ray3::new(Vec3::new(0.0, 1.0, 1.0), Vec3::X);
    assert_eq!(point.ray_interval(&r, 5.0), Some((1.0, 1.0)));
    let flat = Aabb3::new(Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0));
    assert_eq!(flat.ray_interval(&Ray3::new(Vec3::new(-1.0, 0.5, 0.0), Vec3::X), 5.0), Some((1.0, 2.0)));
    assert_eq!(flat.ray_interval(&Ray3::new(Vec3::new(-1.0, 0.5, 0.1), Vec3::X), 5.0), None);
    let t = point.transformed(&glam::Affine3A::from_scale(Vec3::splat(2.0)));
    assert_eq!(t, Aabb3::new(Vec3::splat(2.0), Vec3::splat(2.0)));
    let seg = Obb3::new(Vec3::ZERO, Mat3::IDENTITY, Vec3::new(1.0, 0.0, 0.0));
    assert!(seg.contains_point(Vec3::X) && !seg.contains_point(Vec3::new(0.0, 1e-3, 0.0)));
    assert!(seg.overlaps(&Obb3::new(Vec3::new(0.5, 0.0, 0.0), Mat3::IDENTITY, Vec3::ZERO)));
    let k = Kdop26::from_points(&[Vec3::ONE]).map(|k| k.overlaps(&k));
    assert_eq!(k, Some(true));
}

#[test]
fn bad_input_zero_and_negative_radius() {
    let p = Sphere::new(Vec3::ONE, 0.0);
    assert!(p.contains_point(Vec3::ONE) && !p.contains_point(Vec3::ZERO));
    assert!(p.overlaps(&Sphere::new(Vec3::ZERO, 3f32.sqrt())));
    assert!(p.overlaps(&p));
    let m = p.merge(&Sphere::new(Vec3::new(1.0, 1.0, 3.0), 0.0));
    assert!((m.center - Vec3::new(1.0, 1.0, 2.0)).length() < 1e-6 && (m.radius - 1.0).abs() < 1e-6);
    let neg = Sphere::new(Vec3::ZERO, -1.0);
    let big = Sphere::new(Vec3::ZERO, 10.0);
    assert!(!neg.contains_point(Vec3::ZERO));
    assert!(!neg.overlaps(&big) && !big.overlaps(&neg) && !neg.overlaps(&neg));
    assert_eq!(neg.merge(&big), big);
    assert_eq!(big.merge(&neg), big);
    let c = Circle::new(Vec2::ZERO, -2.0);
    let d = Circle::new(Vec2::ONE, 0.0);
    assert!(!c.contains_point(Vec2::ZERO) && !c.overlaps(&d) && d.overlaps(&d));
    assert_eq!(c.merge(&d), d);
    // A single point (or duplicates) gives a zero radius.
    assert_eq!(Sphere::from_points(&[Vec3::ONE, Vec3::ONE]), Some(p));
    assert_eq!(Circle::from_points(&[Vec2::ONE]), Some(d));
}

/// Regression: a zero direction from outside with an unbounded ray used to meet boxes lying in
/// the positive directions "at t = ∞"; only boxes containing the origin are met.
#[test]
fn zero_direction_unbounded_rays_meet_only_boxes_around_the_origin() {
    let ahead = Aabb3::new(Vec3::new(2.0, -1.0, -1.0), Vec3::new(3.0, 1.0, 1.0));
    let around = Aabb3::new(Vec3::splat(-1.0), Vec3::ONE);
    for dir in [Vec3::ZERO, Vec3::new(0.0, -0.0, 0.0)] {
        let ray = Ray3::new(Vec3::ZERO, dir);
        assert_eq!(ahead.ray_interval(&ray, f32::INFINITY), None);
        assert_eq!(ahead.ray_interval_inv(Vec3::ZERO, dir.recip(), f32::INFINITY), None);
        assert_eq!(around.ray_interval(&ray, f32::INFINITY), Some((0.0, f32::INFINITY)));
    }
    let ahead2 = Aabb2::new(Vec2::new(2.0, -1.0), Vec2::new(3.0, 1.0));
    assert_eq!(ahead2.ray_interval(&Ray2::new(Vec2::ZERO, Vec2::ZERO), f32::INFINITY), None);
    assert_eq!(
        Aabb2::new(Vec2::splat(-1.0), Vec2::ONE)
            .ray_interval(&Ray2::new(Vec2::ZERO, Vec2::ZERO), f32::INFINITY),
        Some((0.0, f32::INFINITY))
    );
}
