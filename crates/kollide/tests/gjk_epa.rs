//! The narrow phase: GJK distances against analytic values, GJK/EPA against the support-function
//! reference for every pair of shape kinds, the separating-axis fast paths against GJK/EPA,
//! manifold symmetry, the whole query × pair matrix, warm starts and bad input.

use glam::{Affine3A, Quat, Vec3};
use kollide::math::is_similarity;
use kollide::narrow::{
    Contact, ContactManifold, GjkCache, NarrowError, contact, contact_gjk_epa, contact_manifold, distance,
    intersects,
};
use kollide::shape::{
    Ball, Capsule, Cone, ConvexHull, ConvexShape, Cuboid, Cylinder, Rounded, ShapeKind, Triangle,
};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_convex::{
    RefShape, cuboid_triangles, gap, random_shape, segment_segment_distance, signed_distance,
    triangle_soup_distance,
};
use rand::Rng;

fn rng(seed: u64) -> TestRng {
    random::rng(0x0616_be9a ^ seed)
}

fn rigid(rng: &mut TestRng, spread: f32) -> Affine3A {
    Affine3A::from_rotation_translation(random::rotation3(rng), random::point3(rng, spread))
}

fn general(rng: &mut TestRng, spread: f32) -> Affine3A {
    match rng.random_range(0..3) {
        0 => rigid(rng, spread),
        1 => Affine3A::from_scale_rotation_translation(
            Vec3::splat(rng.random_range(0.5..2.0)),
            random::rotation3(rng),
            random::point3(rng, spread),
        ),
        _ => {
            // Milder than `random::affine3`: scales in [0.5, 2] and some shear.
            let m = glam::Mat3::from_quat(random::rotation3(rng))
                * glam::Mat3::from_cols(Vec3::X, Vec3::new(rng.random_range(-0.3..0.3), 1.0, 0.0), Vec3::Z)
                * glam::Mat3::from_diagonal(Vec3::new(
                    rng.random_range(0.5..2.0),
                    rng.random_range(0.5..2.0),
                    rng.random_range(0.5..2.0),
                ));
            Affine3A::from_mat3_translation(m, random::point3(rng, spread))
        }
    }
}

fn gjk_sep(a: &ConvexShape, am: &Affine3A, b: &ConvexShape, bm: &Affine3A) -> Option<Contact> {
    contact_gjk_epa(a, am, b, bm, f32::INFINITY, &mut GjkCache::default()).unwrap()
}

#[test]
fn gjk_distance_equals_the_analytic_value_for_spheres_capsules_and_boxes() {
    let mut rng = rng(1);
    let mut separated = [0; 3];
    let n = cases(10_000);
    for case in 0..n {
        // Spheres.
        let (ra, rb) = (rng.random_range(0.1..1.0), rng.random_range(0.1..1.0));
        let (ma, mb) = (rigid(&mut rng, 2.0), rigid(&mut rng, 2.0));
        let c = gjk_sep(&Ball::new(ra).into(), &ma, &Ball::new(rb).into(), &mb).unwrap();
        let exact = (mb.translation - ma.translation).length() - ra - rb;
        if exact > 0.0 {
            separated[0] += 1;
            assert!(
                (c.separation - exact).abs() <= 1e-5 * (1.0 + exact),
                "balls: {} vs {exact}",
                c.separation
            );
        }
        // Capsules.
        let (ca, cb) =
            (Capsule::new(rng.random_range(0.1..1.0), 0.2), Capsule::new(rng.random_range(0.1..1.0), 0.3));
        let (ma, mb) = (rigid(&mut rng, 2.0), rigid(&mut rng, 2.0));
        let seg = |c: &Capsule, m: &Affine3A| c.segment().map(|p| m.transform_point3(p).as_dvec3());
        let ([a0, a1], [b0, b1]) = (seg(&ca, &ma), seg(&cb, &mb));
        let exact = segment_segment_distance(a0, a1, b0, b1) - 0.5;
        let c = gjk_sep(&ca.into(), &ma, &cb.into(), &mb).unwrap();
        if exact > 0.0 {
            separated[1] += 1;
            assert!(
                (c.separation as f64 - exact).abs() <= 1e-5 * (1.0 + exact),
                "capsules: {} vs {exact}",
                c.separation
            );
        }
        // Boxes (exact polytope distance over the triangle pairs; a costly reference, so on a
        // quarter of the cases: 2,500).
        if case % 4 != 0 {
            continue;
        }
        let (ha, hb) = (Vec3::new(0.3, 0.5, 0.7), Vec3::new(0.6, 0.2, 0.4));
        let (ma, mb) = (rigid(&mut rng, 2.0), rigid(&mut rng, 2.0));
        let c = gjk_sep(&Cuboid::new(ha).into(), &ma, &Cuboid::new(hb).into(), &mb).unwrap();
        if c.separation > 1e-3 {
            separated[2] += 1;
            let exact = triangle_soup_distance(&cuboid_triangles(ha, &ma), &cuboid_triangles(hb, &mb));
            assert!(
                (c.separation as f64 - exact).abs() <= 1e-5 * (1.0 + exact),
                "boxes: {} vs {exact}",
                c.separation
            );
        }
    }
    assert!(separated[0] > n / 6 && separated[1] > n / 6 && separated[2] > n / 20, "{separated:?}");
}

/// Checks a contact against the reference: the signed distance matches the reference search
/// (`reference`, the [`signed_distance`] of the two placed shapes), or the separation along the
/// reported normal matches it (a certificate); both points lie on their shapes.
fn check_against_reference(
    (am, ra): (&Affine3A, &RefShape),
    (bm, rb): (&Affine3A, &RefShape),
    reference: f64,
    c: &Contact,
    what: &str,
) -> Result<(), String> {
    let similar = is_similarity(am).is_some() && is_similarity(bm).is_some();
    let scale = 1.0 + am.translation.abs().max(bm.translation.abs()).max_element() as f64;
    // Exact in f32 up to EPA's relative tolerance under similarities; GJK on curved shapes under
    // anisotropic maps stalls on nearly flat sides (see the shape tests), hence the looser bound.
    let tol = if similar { 2e-4 } else { 3e-3 } * scale;
    let got = c.separation as f64;
    let along = gap(ra, rb, c.normal.as_dvec3().normalize());
    if !((got - reference).abs() <= tol || (got - along).abs() <= tol && got >= reference - tol) {
        return Err(format!("{what}: separation {got}, reference {reference}, gap along the normal {along}"));
    }
    if (c.normal.length() - 1.0).abs() >= 1e-4 {
        return Err(format!("{what}: normal {} not unit", c.normal));
    }
    for (r, p) in [(ra, c.point_a), (rb, c.point_b)] {
        if !r.contains_within(p.as_dvec3(), tol * 2.0) {
            return Err(format!("{what}: witness point {p} not on its shape"));
        }
    }
    Ok(())
}

/// Whether a kind has a curved surface (everything but the polytopes).
fn curved(kind: ShapeKind) -> bool {
    !matches!(kind, ShapeKind::Cuboid | ShapeKind::Triangle | ShapeKind::Hull)
}

/// Issue 28 (deep-penetration witness points and depths of curved shapes, EPA): a mismatch that
/// is tolerated in a few cases of a suite, when the pair penetrates and one shape is curved. The
/// cases are printed, counted and capped by the caller, so that any other mistake still fails.
fn issue_28(ka: ShapeKind, kb: ShapeKind, separation: f32) -> bool {
    separation < 0.0 && (curved(ka) || curved(kb))
}

/// The known issue a failed check of a contact belongs to, if any: issue 30 when EPA gave up on
/// a penetrating pair (a zero normal, see `cone_against_rounded_hull_gets_a_unit_normal`), else
/// issue 28 (see [`issue_28`]).
fn known_issue(ka: ShapeKind, kb: ShapeKind, c: &Contact) -> Option<&'static str> {
    if c.separation < 0.0 && c.normal == Vec3::ZERO {
        Some("issue 30")
    } else if issue_28(ka, kb, c.separation) {
        Some("issue 28")
    } else {
        None
    }
}

#[test]
fn gjk_epa_matches_the_reference_for_every_pair_of_kinds() {
    let mut rng = rng(2);
    // 70 per ordered pair of the 12 kinds: 10,080 cases.
    let per_pair = cases(70);
    let mut total_penetrating = 0;
    let mut known = Vec::new();
    for ka in ShapeKind::ALL {
        for kb in ShapeKind::ALL {
            let mut penetrating = 0;
            for case in 0..per_pair {
                let a = random_shape(&mut rng, ka);
                let b = random_shape(&mut rng, kb);
                let (am, bm) = (general(&mut rng, 1.2), general(&mut rng, 1.2));
                let what = format!("{ka:?}-{kb:?} case {case}");
                let c = gjk_sep(&a, &am, &b, &bm).unwrap();
                penetrating += usize::from(c.separation < 0.0);
                // The reference search is the costly part: once per case for both answers.
                let (ra, rb) = (RefShape::new(&a, &am), RefShape::new(&b, &bm));
                let reference = signed_distance(&ra, &rb);
                let mut results =
                    vec![(c, check_against_reference((&am, &ra), (&bm, &rb), reference, &c, &what))];
                // The dispatching entry point agrees with the general path (checked again only
                // when it answered differently).
                let d = contact(&a, &am, &b, &bm, f32::INFINITY, &mut GjkCache::default()).unwrap().unwrap();
                if d != c {
                    results.push((d, check_against_reference((&am, &ra), (&bm, &rb), reference, &d, &what)));
                }
                for (answer, result) in results {
                    if let Err(e) = result {
                        let e =
                            format!("{e}\n    A = {a:?} placed by {am:?}\n    B = {b:?} placed by {bm:?}");
                        let issue = known_issue(ka, kb, &answer).unwrap_or_else(|| panic!("{e}"));
                        known.push(format!("{issue}: {e}"));
                    }
                }
            }
            total_penetrating += penetrating;
        }
    }
    let total = 12 * 12 * per_pair;
    assert!(total_penetrating > total / 4, "only {total_penetrating} penetrating cases of {total}");
    for e in &known {
        eprintln!("known, {e}");
    }
    // (1 of 10,080 cases, issue 28: see `capsule_deep_in_a_rounded_cylinder_gets_the_reference_depth`.)
    assert!(known.len() * 1000 <= total, "{} known mismatches of {total}", known.len());
}

/// Random poses for the fast-path pairs: about half penetrating, some near misses.
fn fast_pair(
    rng: &mut TestRng,
    (ka, kb): (ShapeKind, ShapeKind),
) -> (ConvexShape, Affine3A, ConvexShape, Affine3A) {
    let a = random_shape(rng, ka);
    let b = random_shape(rng, kb);
    let scale = |rng: &mut TestRng| if rng.random_bool(0.3) { rng.random_range(0.5..2.0) } else { 1.0 };
    let (sa, sb) = (scale(rng), scale(rng));
    let am = Affine3A::from_scale_rotation_translation(
        Vec3::splat(sa),
        random::rotation3(rng),
        random::point3(rng, 0.3),
    );
    let bm = Affine3A::from_scale_rotation_translation(
        Vec3::splat(sb),
        random::rotation3(rng),
        random::point3(rng, 2.0),
    );
    (a, am, b, bm)
}

#[test]
fn fast_paths_equal_gjk_epa_on_ten_thousand_pairs_each() {
    let pairs = [
        (3, (ShapeKind::Ball, ShapeKind::Ball)),
        (4, (ShapeKind::Capsule, ShapeKind::Capsule)),
        (5, (ShapeKind::Cuboid, ShapeKind::Cuboid)),
        (9, (ShapeKind::Cuboid, ShapeKind::Triangle)),
        (10, (ShapeKind::Triangle, ShapeKind::Cuboid)),
        (11, (ShapeKind::Ball, ShapeKind::Capsule)),
    ];
    let n = cases(10_000);
    for (seed, kind) in pairs {
        let mut rng = rng(seed);
        let (mut hits, mut deep) = (0, 0);
        for case in 0..n {
            let (a, am, b, bm) = fast_pair(&mut rng, kind);
            let prediction = 0.1;
            let fast = contact(&a, &am, &b, &bm, prediction, &mut GjkCache::default()).unwrap();
            let slow = contact_gjk_epa(&a, &am, &b, &bm, prediction, &mut GjkCache::default()).unwrap();
            let scale = 1.0 + bm.translation.abs().max_element();
            match (fast, slow) {
                (Some(f), Some(s)) => {
                    hits += 1;
                    deep += usize::from(f.separation < -0.1);
                    let tol = 2e-4 * scale + 2e-3 * (-s.separation).max(0.0);
                    assert!(
                        (f.separation - s.separation).abs() <= tol,
                        "{kind:?} case {case}: fast {f:?} vs GJK/EPA {s:?}"
                    );
                    // Both normals are valid: the fast one certifies its separation.
                    let along = gap(
                        &RefShape::new(&a, &am),
                        &RefShape::new(&b, &bm),
                        f.normal.as_dvec3().normalize(),
                    );
                    assert!(
                        (along - f.separation as f64).abs() <= 1e-3 * scale as f64,
                        "{kind:?} case {case}: normal"
                    );
                }
                (None, None) => {}
                (f, s) => {
                    // Only pairs within rounding of the prediction distance may disagree.
                    let sep = f.or(s).unwrap().separation;
                    assert!((sep - prediction).abs() < 1e-4 * scale, "{kind:?} case {case}: {f:?} vs {s:?}");
                }
            }
        }
        assert!(hits > n * 3 / 20 && deep > n * 3 / 100, "{kind:?}: {hits} contacts, {deep} deep");
    }
}

#[test]
fn distance_equals_gjk_epa_for_every_pair_of_kinds_deep_or_apart() {
    // `distance` proves deep overlaps of shapes around their origins by a containment test of one
    // shape's origin in the other (triangles and hulls need not contain theirs), and runs GJK
    // otherwise: both against GJK/EPA's separation, under rigid, similar and sheared maps.
    let mut rng = rng(13);
    let (mut zero, mut apart) = (0, 0);
    // 70 per ordered pair of the 12 kinds: 10,080 cases.
    let per_pair = cases(70);
    for ka in ShapeKind::ALL {
        for kb in ShapeKind::ALL {
            for case in 0..per_pair {
                let a = random_shape(&mut rng, ka);
                let b = random_shape(&mut rng, kb);
                let (am, bm) = (general(&mut rng, 0.3), general(&mut rng, 1.5));
                let (am, bm) = if case % 2 == 0 { (am, bm) } else { (bm, am) };
                let d = distance(&a, &am, &b, &bm, &mut GjkCache::default()).unwrap();
                let c = gjk_sep(&a, &am, &b, &bm).unwrap();
                let similar = is_similarity(&am).is_some() && is_similarity(&bm).is_some();
                let scale = 1.0 + am.translation.abs().max(bm.translation.abs()).max_element();
                let tol = if similar { 2e-4 } else { 3e-3 } * scale;
                assert!(
                    (d - c.separation.max(0.0)).abs() <= tol,
                    "{ka:?}-{kb:?} case {case}: distance {d} vs GJK/EPA {}",
                    c.separation
                );
                zero += usize::from(d == 0.0);
                apart += usize::from(d > 0.05);
            }
        }
    }
    let total = 12 * 12 * per_pair;
    assert!(zero > total * 3 / 10 && apart > total * 3 / 10, "{zero} overlapping, {apart} apart");
}

/// A map for the two-ball paths: rigid, rigid times a uniform scale within about the rigidity
/// screen's tolerance of 1 (either side of it), a similarity, or anisotropic with shear.
fn ball_map(rng: &mut TestRng) -> Affine3A {
    match rng.random_range(0..4) {
        0 => rigid(rng, 1.5),
        1 => {
            let e = 10f32.powf(rng.random_range(-7.0..-3.0)) * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let q = random::rotation3(rng);
            Affine3A::from_scale_rotation_translation(Vec3::splat(1.0 + e), q, random::point3(rng, 1.5))
        }
        _ => general(rng, 1.5),
    }
}

#[test]
fn two_ball_paths_equal_gjk_epa_under_every_kind_of_map() {
    // The inlined two-ball paths of `distance`, `contact` and `contact_manifold` take rigid maps
    // only (radii unscaled); every other map goes the general way. Both against GJK/EPA.
    let mut rng = rng(12);
    let (mut hits, mut scaled) = (0, 0);
    let n = cases(10_000);
    for case in 0..n {
        let (a, b) = (random_shape(&mut rng, ShapeKind::Ball), random_shape(&mut rng, ShapeKind::Ball));
        let (am, bm) = (ball_map(&mut rng), ball_map(&mut rng));
        let similar = is_similarity(&am).is_some() && is_similarity(&bm).is_some();
        scaled +=
            [am, bm].iter().filter(|m| is_similarity(m).is_some_and(|s| (s - 1.0).abs() > 1e-3)).count();
        let prediction = 0.1;
        let slow = contact_gjk_epa(&a, &am, &b, &bm, prediction, &mut GjkCache::default()).unwrap();
        let scale = 1.0 + am.translation.abs().max(bm.translation.abs()).max_element();
        // Ellipsoids (anisotropic maps) go through GJK/EPA on both sides, by different paths.
        let tol = if similar { 2e-4 } else { 1e-3 } * scale;
        let what = format!("case {case}: {am:?} {bm:?}");
        let far =
            contact_gjk_epa(&a, &am, &b, &bm, f32::INFINITY, &mut GjkCache::default()).unwrap().unwrap();
        let d = distance(&a, &am, &b, &bm, &mut GjkCache::default()).unwrap();
        assert!((d - far.separation.max(0.0)).abs() <= tol, "{what}: distance {d} vs {far:?}");
        let fast = contact(&a, &am, &b, &bm, prediction, &mut GjkCache::default()).unwrap();
        let mut m = ContactManifold::default();
        contact_manifold(&a, &am, &b, &bm, prediction, &mut GjkCache::default(), &mut m).unwrap();
        match (fast, slow) {
            (Some(f), Some(s)) => {
                hits += 1;
                assert!((f.separation - s.separation).abs() <= tol, "{what}: contact {f:?} vs {s:?}");
                let p = m.points()[0];
                assert!(m.len() == 1 && p.separation == f.separation, "{what}: manifold {m:?} vs {f:?}");
                assert!((m.normal - f.normal).length() < 1e-6, "{what}: manifold normal");
            }
            (None, None) => assert!(m.is_empty(), "{what}: manifold {m:?}"),
            (f, s) => {
                // Only pairs within rounding of the prediction distance may disagree.
                let sep = f.or(s).unwrap().separation;
                assert!((sep - prediction).abs() < tol, "{what}: {f:?} vs {s:?}");
            }
        }
    }
    assert!(hits > n / 5 && scaled > n / 4, "{hits} contacts, {scaled} scaled similarities");
}

/// A placement of B resting above A (placed by `am`): tilted by up to `max_tilt` radians about a
/// random axis, `height` above along A's y axis, then shifted by up to `jitter` per coordinate.
fn above(
    rng: &mut TestRng,
    am: &Affine3A,
    max_tilt: f32,
    height: std::ops::Range<f32>,
    jitter: f32,
) -> Affine3A {
    let tilt = Quat::from_axis_angle(random::unit3(rng), rng.random_range(0.0..max_tilt));
    let mut m =
        *am * Affine3A::from_rotation_translation(tilt, Vec3::new(0.0, rng.random_range(height), 0.0));
    m.translation += glam::Vec3A::from(random::point3(rng, jitter));
    m
}

fn manifold(a: &ConvexShape, am: &Affine3A, b: &ConvexShape, bm: &Affine3A) -> ContactManifold {
    let mut m = ContactManifold::default();
    contact_manifold(a, am, b, bm, 0.05, &mut GjkCache::default(), &mut m).unwrap();
    m
}

#[test]
fn manifolds_are_symmetric() {
    let kinds = [
        (ShapeKind::Cuboid, ShapeKind::Cuboid),
        (ShapeKind::Ball, ShapeKind::Cuboid),
        (ShapeKind::Capsule, ShapeKind::Cuboid),
        (ShapeKind::Capsule, ShapeKind::Capsule),
        (ShapeKind::Hull, ShapeKind::Hull),
        (ShapeKind::Cylinder, ShapeKind::Cylinder),
        (ShapeKind::Cuboid, ShapeKind::Triangle),
        (ShapeKind::RoundedCuboid, ShapeKind::Hull),
    ];
    let mut rng = rng(6);
    for (ka, kb) in kinds {
        let (mut multi, mut asymmetric) = (0, 0);
        for case in 0..1500 {
            let a = random_shape(&mut rng, ka);
            let b = random_shape(&mut rng, kb);
            let am = rigid(&mut rng, 0.3);
            let bm = if case % 2 == 0 {
                // Resting: B above A with a nearly aligned face.
                above(&mut rng, &am, 0.02, 0.5..2.0, 0.3)
            } else {
                rigid(&mut rng, 1.5)
            };
            let (m1, m2) = (manifold(&a, &am, &b, &bm), manifold(&b, &bm, &a, &am));
            // Manifolds are for resting and shallow contacts; deep overlaps (a tenth of the
            // shapes' size) may pick different incident features from slightly different normals.
            if m1.points().iter().chain(m2.points()).any(|p| p.separation < -0.1) {
                continue;
            }
            if m1.is_empty() && m2.is_empty() {
                continue;
            }
            multi += usize::from(m1.len() > 1);
            // GJK stops when the distance is within 1e-6 (relative) of the optimum, which leaves
            // the direction of a separated single-point contact accurate to about its square root.
            let tol = 2e-3;
            let symmetric = m1.len() == m2.len()
                && (m1.normal + m2.normal).length() < tol
                && m1.points().iter().all(|p| {
                    m2.points().iter().any(|q| {
                        (p.point_a - q.point_b).length() < tol
                            && (p.point_b - q.point_a).length() < tol
                            && (p.separation - q.separation).abs() < 1e-4
                    })
                });
            if !symmetric {
                // Known weakness, tolerated in at most 1% of the cases: when more than four clipped
                // points are reduced to four, near-equal candidates can win in one order and not
                // the other; a point within rounding of the prediction distance can be kept in one
                // order only; and EPA's witness points and normals on hulls and curved shapes differ
                // slightly by order (its stopping tolerance is 1e-5 relative).
                asymmetric += 1;
            }
        }
        assert!(asymmetric * 100 <= 1500, "{ka:?}-{kb:?}: {asymmetric} asymmetric manifolds");
        // (A capsule stands on its round end in the resting poses, which is one point.)
        if ka != ShapeKind::Ball && ka != ShapeKind::Capsule {
            assert!(multi > 20, "{ka:?}-{kb:?}: only {multi} multi-point manifolds");
        }
    }
}

/// Regression: the points of one manifold carry distinct feature ids (a solver warm-starting on
/// ids must not mix two points up). Clipped points used to combine the ids of every plane that
/// cut them by `|`, so two cuts could collide (seen on a box-triangle pair).
#[test]
fn manifold_points_have_distinct_ids() {
    let kinds = [
        (ShapeKind::Cuboid, ShapeKind::Cuboid),
        (ShapeKind::Cuboid, ShapeKind::Triangle),
        (ShapeKind::Triangle, ShapeKind::Triangle),
        (ShapeKind::Hull, ShapeKind::Hull),
        (ShapeKind::Cylinder, ShapeKind::Cuboid),
        (ShapeKind::Cone, ShapeKind::Hull),
    ];
    let mut rng = rng(17);
    for (ka, kb) in kinds {
        let mut multi = 0;
        for case in 0..3000 {
            let a = random_shape(&mut rng, ka);
            let b = random_shape(&mut rng, kb);
            let am = rigid(&mut rng, 0.3);
            let bm =
                if case % 2 == 0 { above(&mut rng, &am, 0.3, 0.3..1.5, 0.6) } else { rigid(&mut rng, 1.0) };
            let m = manifold(&a, &am, &b, &bm);
            multi += usize::from(m.len() > 1);
            let ids: std::collections::HashSet<u32> = m.points().iter().map(|p| p.id).collect();
            assert_eq!(ids.len(), m.len(), "{ka:?}-{kb:?} case {case}: {:?}", m.points());
        }
        assert!(multi > 30, "{ka:?}-{kb:?}: only {multi} manifolds of several points");
    }
}

#[test]
fn a_box_resting_on_a_box_gets_four_points() {
    let a = ConvexShape::Cuboid(Cuboid::new(Vec3::new(2.0, 0.5, 2.0)));
    let b = ConvexShape::Cuboid(Cuboid::new(Vec3::splat(0.5)));
    let bm = Affine3A::from_rotation_translation(Quat::from_rotation_y(0.3), Vec3::new(0.2, 0.99, -0.1));
    let m = manifold(&a, &Affine3A::IDENTITY, &b, &bm);
    assert_eq!(m.len(), 4);
    assert!((m.normal - Vec3::Y).length() < 1e-6);
    for p in m.points() {
        assert!((p.separation + 0.01).abs() < 1e-5, "{p:?}");
        assert!((p.point_a.y - 0.5).abs() < 1e-5);
    }
    let ids: std::collections::HashSet<u32> = m.points().iter().map(|p| p.id).collect();
    assert_eq!(ids.len(), 4);
}

/// Every query on every ordered pair of kinds, touching, penetrating and apart, answers (never an
/// error for valid input, never a silent miss): the matrix of the issue.
#[test]
fn every_query_supports_every_pair_of_kinds() {
    let mut rng = rng(7);
    let mut matrix = 0;
    for ka in ShapeKind::ALL {
        for kb in ShapeKind::ALL {
            let a = random_shape(&mut rng, ka);
            let b = random_shape(&mut rng, kb);
            for offset in [0.0f32, 10.0] {
                let am = rigid(&mut rng, 0.1);
                let bm = Affine3A::from_translation(Vec3::new(offset, 0.0, 0.0)) * rigid(&mut rng, 0.1);
                let mut cache = GjkCache::default();
                let d = distance(&a, &am, &b, &bm, &mut cache).unwrap();
                let hit = intersects(&a, &am, &b, &bm, &mut cache).unwrap();
                let c = contact(&a, &am, &b, &bm, 0.0, &mut cache).unwrap();
                let far = contact(&a, &am, &b, &bm, 100.0, &mut cache).unwrap();
                let mut m = ContactManifold::default();
                contact_manifold(&a, &am, &b, &bm, 0.0, &mut cache, &mut m).unwrap();
                let general = contact_gjk_epa(&a, &am, &b, &bm, 0.0, &mut cache).unwrap();
                assert_eq!(general.is_some(), c.is_some(), "{ka:?}-{kb:?}: general path vs dispatch");
                // Cast B back towards A from 20 units away along +x: it must hit (the shapes'
                // projections on the yz plane overlap when they are stacked at the same y, z).
                let back = Affine3A::from_translation(Vec3::new(20.0, 0.0, 0.0)) * bm;
                let cast =
                    kollide::narrow::cast_shape(&a, &am, &b, &back, Vec3::NEG_X, 40.0, &mut cache).unwrap();
                if offset == 0.0 && hit {
                    let t = cast.expect("stacked shapes are hit").t;
                    assert!(t <= 20.0 + 1e-3, "{ka:?}-{kb:?}: cast t {t}");
                }
                if offset == 0.0 {
                    // Both shapes hold a neighbourhood of their origin... except flat triangles,
                    // which may miss it: check consistency rather than the answer then.
                    assert_eq!(hit, d == 0.0, "{ka:?}-{kb:?}");
                } else {
                    assert!(!hit && d > 5.0 && c.is_none() && m.is_empty(), "{ka:?}-{kb:?} apart");
                }
                assert_eq!(hit, c.is_some(), "{ka:?}-{kb:?}: intersects vs contact");
                assert_eq!(c.is_some(), !m.is_empty(), "{ka:?}-{kb:?}: contact vs manifold");
                let far = far.expect("within 100");
                assert!(
                    (far.separation.max(0.0) - d).abs() <= 1e-4 * (1.0 + d),
                    "{ka:?}-{kb:?}: distance vs contact"
                );
                matrix += 1;
            }
        }
    }
    assert_eq!(matrix, 12 * 12 * 2);
}

#[test]
fn warm_started_queries_give_the_same_answers() {
    let mut rng = rng(8);
    // 13 slides of 200 steps per kind: 10,400 warm-started queries.
    let mut known = Vec::new();
    let slides = cases(13);
    for kind in [ShapeKind::Hull, ShapeKind::Cylinder, ShapeKind::RoundedCone, ShapeKind::Cuboid] {
        for slide in 0..slides {
            let a = random_shape(&mut rng, kind);
            let b = random_shape(&mut rng, kind);
            let mut cache = GjkCache::default();
            let mut bm = rigid(&mut rng, 0.01);
            bm.translation = glam::Vec3A::new(3.0, 0.0, 0.0);
            for step in 0..200 {
                // B slides towards A and through it.
                bm.translation.x -= 0.02;
                let warm = contact(&a, &Affine3A::IDENTITY, &b, &bm, 10.0, &mut cache).unwrap().unwrap();
                let cold = contact(&a, &Affine3A::IDENTITY, &b, &bm, 10.0, &mut GjkCache::default())
                    .unwrap()
                    .unwrap();
                if (warm.separation - cold.separation).abs() >= 1e-4 {
                    let e = format!(
                        "{kind:?} slide {slide} step {step}: {warm:?} vs {cold:?}\n    A = {a:?}\n    B = {b:?} \
                         placed by {bm:?}"
                    );
                    assert!(issue_28(kind, kind, cold.separation), "{e}");
                    known.push(format!("issue 28: {e}"));
                }
            }
            assert!(!cache.is_empty());
        }
    }
    for e in &known {
        eprintln!("known, {e}");
    }
    let total = 4 * slides * 200;
    // (3 of 10,400 queries, all issue 28: see `warm_started_rounded_cones_give_the_cold_depth`.)
    assert!(known.len() * 1000 <= total, "{} known issue-28 mismatches of {total}", known.len());
}

#[test]
fn bad_input_is_refused_with_an_error() {
    let ball = ConvexShape::Ball(Ball::new(1.0));
    let bad = ConvexShape::Ball(Ball::new(f32::NAN));
    let id = Affine3A::IDENTITY;
    let mut cache = GjkCache::default();
    assert_eq!(distance(&bad, &id, &ball, &id, &mut cache), Err(NarrowError::InvalidShape(0)));
    assert_eq!(distance(&ball, &id, &bad, &id, &mut cache), Err(NarrowError::InvalidShape(1)));
    let nan = Affine3A::from_translation(Vec3::NAN);
    assert_eq!(contact(&ball, &nan, &ball, &id, 0.0, &mut cache), Err(NarrowError::NonFinite));
    assert_eq!(contact(&ball, &id, &ball, &id, f32::NAN, &mut cache), Err(NarrowError::NonFinite));
    let mut m = ContactManifold::default();
    assert_eq!(
        contact_manifold(&ball, &id, &ball, &nan, 0.0, &mut cache, &mut m),
        Err(NarrowError::NonFinite)
    );
    // The inlined two-ball paths refuse what the general path refuses.
    let inf = ConvexShape::Ball(Ball::new(f32::INFINITY));
    let far = Affine3A::from_translation(Vec3::new(f32::INFINITY, 0.0, 0.0));
    for (p, q, pm, qm, error) in [
        (&inf, &ball, &id, &id, NarrowError::InvalidShape(0)),
        (&ball, &inf, &id, &id, NarrowError::InvalidShape(1)),
        (&ball, &ball, &nan, &id, NarrowError::NonFinite),
        (&ball, &ball, &id, &far, NarrowError::NonFinite),
    ] {
        assert_eq!(distance(p, pm, q, qm, &mut cache), Err(error));
        assert_eq!(contact(p, pm, q, qm, 0.0, &mut cache), Err(error));
        assert_eq!(contact_manifold(p, pm, q, qm, 0.0, &mut cache, &mut m), Err(error));
    }
    // A radius of -0 is valid (it goes the general way).
    let zero = ConvexShape::Ball(Ball::new(-0.0));
    assert_eq!(distance(&zero, &id, &ball, &Affine3A::from_translation(Vec3::X * 3.0), &mut cache), Ok(2.0));
    // Degenerate but valid: concentric balls, crossing segments, coincident points, a zero map.
    let c = contact(&ball, &id, &ball, &id, 0.0, &mut cache).unwrap().unwrap();
    assert_eq!(c.separation, -2.0);
    let point = ConvexShape::Ball(Ball::new(0.0));
    let c = contact(&point, &id, &point, &id, 0.0, &mut cache).unwrap().unwrap();
    assert_eq!(c.separation, 0.0);
    let seg = ConvexShape::Capsule(Capsule::new(1.0, 0.0));
    let cross = Affine3A::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let c = contact(&seg, &id, &seg, &cross, 1e-6, &mut cache).unwrap().unwrap();
    assert!(c.separation.abs() < 1e-6 && (c.normal.z.abs() - 1.0).abs() < 1e-6, "{c:?}");
    let squash = Affine3A::from_scale(Vec3::ZERO);
    assert!(contact(&ball, &squash, &ball, &id, 0.0, &mut cache).unwrap().is_some());
    let tri = ConvexShape::Triangle(Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y));
    let c = contact(&tri, &id, &tri, &id, 0.0, &mut cache).unwrap().unwrap();
    assert!(c.separation <= 0.0 && c.separation > -1e-6, "coplanar triangles: {c:?}");
}

/// Manifolds under general affine placements: every point lies on both shapes, its separation is
/// the gap between its two points along the normal, and the deepest point equals the contact.
#[test]
fn manifold_points_lie_on_the_shapes_under_affine_maps() {
    let mut rng = rng(12);
    let mut multi = 0;
    let mut known = Vec::new();
    // 70 per ordered pair of the 12 kinds: 10,080 cases.
    let per_pair = cases(70);
    for ka in ShapeKind::ALL {
        for kb in ShapeKind::ALL {
            for case in 0..per_pair {
                let a = random_shape(&mut rng, ka);
                let b = random_shape(&mut rng, kb);
                let (am, bm) = (general(&mut rng, 0.8), general(&mut rng, 0.8));
                let mut m = ContactManifold::default();
                contact_manifold(&a, &am, &b, &bm, 0.0, &mut GjkCache::default(), &mut m).unwrap();
                let c = contact(&a, &am, &b, &bm, 0.0, &mut GjkCache::default()).unwrap();
                assert_eq!(m.is_empty(), c.is_none(), "{ka:?}-{kb:?}");
                let Some(c) = c else { continue };
                multi += usize::from(m.len() > 1);
                let (ra, rb) = (RefShape::new(&a, &am), RefShape::new(&b, &bm));
                let tol = 2e-3;
                let mut wrong = None;
                for p in m.points() {
                    let gap = (p.point_b - p.point_a).dot(m.normal);
                    if !ra.contains_within(p.point_a.as_dvec3(), tol) {
                        wrong = Some(format!("{p:?} not on A"));
                    } else if !rb.contains_within(p.point_b.as_dvec3(), tol) {
                        wrong = Some(format!("{p:?} not on B"));
                    } else if (gap - p.separation).abs() >= 1e-4 {
                        wrong = Some(format!("{p:?}: its points are {gap} apart along the normal"));
                    }
                }
                let deepest = m.points().iter().map(|p| p.separation).fold(f32::INFINITY, f32::min);
                if (deepest - c.separation).abs() > 1e-3 * (1.0 + c.separation.abs()) {
                    wrong = Some(format!("deepest {deepest} vs {c:?}"));
                }
                if let Some(wrong) = wrong {
                    let e = format!(
                        "{ka:?}-{kb:?} case {case}: {wrong}\n    A = {a:?} placed by {am:?}\n    B = {b:?} \
                         placed by {bm:?}"
                    );
                    let issue = known_issue(ka, kb, &c).unwrap_or_else(|| panic!("{e}"));
                    known.push(format!("{issue}: {e}"));
                }
            }
        }
    }
    assert!(multi > 12 * 12 * per_pair / 30, "only {multi} multi-point manifolds");
    for e in &known {
        eprintln!("known, {e}");
    }
    // (5 of 10,080 cases: 4 of issue 28, 1 of issue 30.)
    let total = 12 * 12 * per_pair;
    assert!(known.len() * 1000 <= total, "{} known mismatches of {total}", known.len());
}

/// Linear shape casts against a sampled reference: the first of 400 sample times (refined by
/// bisection) at which the moved shapes intersect.
#[test]
fn shape_casts_find_the_first_time_of_impact() {
    use kollide::narrow::cast_shape;
    let mut rng = rng(13);
    let (mut hits, mut total) = (0, 0);
    // 70 per ordered pair of the 12 kinds: 10,080 cases.
    let per_pair = cases(70);
    for ka in ShapeKind::ALL {
        for kb in ShapeKind::ALL {
            for _ in 0..per_pair {
                let a = random_shape(&mut rng, ka);
                let b = random_shape(&mut rng, kb);
                let am = general(&mut rng, 0.3);
                let mut bm = general(&mut rng, 0.3);
                let start = random::unit3(&mut rng) * 4.0;
                bm.translation += glam::Vec3A::from(start);
                let velocity = -start + random::point3(&mut rng, 1.5);
                let max_t = 1.0;
                let at = |t: f32| {
                    let mut m = bm;
                    m.translation += glam::Vec3A::from(velocity * t);
                    m
                };
                let touching = |t: f32| intersects(&a, &am, &b, &at(t), &mut GjkCache::default()).unwrap();
                let got = cast_shape(&a, &am, &b, &bm, velocity, max_t, &mut GjkCache::default()).unwrap();
                let steps = 400;
                let first = (0..=steps).map(|i| i as f32 / steps as f32 * max_t).find(|&t| touching(t));
                let reference = first.map(|t1| {
                    let (mut lo, mut hi) = ((t1 - max_t / steps as f32).max(0.0), t1);
                    for _ in 0..30 {
                        let mid = 0.5 * (lo + hi);
                        if touching(mid) { hi = mid } else { lo = mid }
                    }
                    hi
                });
                total += 1;
                let what = format!("{ka:?}-{kb:?}");
                match (got, reference) {
                    (Some(h), Some(t)) => {
                        hits += 1;
                        assert!((h.t - t).abs() <= 2e-3, "{what}: t {} vs {t}", h.t);
                        assert!(h.contact.separation <= 1e-4, "{what}: {h:?}");
                    }
                    (None, None) => {}
                    (g, r) => {
                        // Only grazing casts (touching within rounding) may disagree.
                        let t = g.map(|h| h.t).or(r).unwrap();
                        let d = distance(&a, &am, &b, &at(t), &mut GjkCache::default()).unwrap();
                        assert!(d < 1e-3, "{what}: {g:?} vs {r:?} (distance {d} at {t})");
                    }
                }
            }
        }
    }
    assert!(hits > total / 4 && hits < total * 9 / 10, "{hits} hits of {total}");
}

/// Degenerate but valid shapes (points, segments, flat boxes, zero-area triangles) get finite,
/// exact answers.
#[test]
fn degenerate_shapes_get_finite_answers() {
    let mut cache = GjkCache::default();
    let point = ConvexShape::Cuboid(Cuboid::new(Vec3::ZERO));
    let at = |x: f32, y: f32| Affine3A::from_translation(Vec3::new(x, y, 0.0));
    let d = distance(&point, &at(0.0, 0.0), &point, &at(3.0, 4.0), &mut cache).unwrap();
    assert!((d - 5.0).abs() < 1e-5, "{d}");
    let flat = ConvexShape::Cuboid(Cuboid::new(Vec3::new(1.0, 0.0, 1.0)));
    let c = contact(&flat, &at(0.0, 0.0), &flat, &at(0.5, 0.0), 0.0, &mut cache).unwrap().unwrap();
    assert!(c.separation.abs() < 1e-5 && c.point_a.is_finite() && c.normal.is_finite(), "{c:?}");
    let d = distance(&flat, &at(0.0, 0.0), &flat, &at(0.0, 2.0), &mut cache).unwrap();
    assert!((d - 2.0).abs() < 1e-5, "{d}");
    let sliver = ConvexShape::Triangle(Triangle::new(Vec3::ZERO, Vec3::X, Vec3::X * 2.0));
    for y in [0.0, 0.5, 3.0] {
        let c = contact(&sliver, &at(0.0, 0.0), &point, &at(1.5, y), 10.0, &mut cache).unwrap().unwrap();
        assert!((c.separation - y).abs() < 1e-5 && c.point_a.is_finite(), "{y}: {c:?}");
        let mut m = ContactManifold::default();
        contact_manifold(&sliver, &at(0.0, 0.0), &point, &at(1.5, y), 10.0, &mut cache, &mut m).unwrap();
        assert!(m.points().iter().all(|p| p.point_a.is_finite() && p.point_b.is_finite()));
    }
}

/// Found when the warm-start suite was raised to 10,000 queries: two rounded cones sliding
/// through each other, where the warm-started contact's depth differs from a cold query's by
/// 4e-3 (-0.21927 against -0.22295 at step 71, and at the next two steps). EPA's depth of curved
/// shapes depends on its start simplex: issue 28.
#[test]
#[ignore = "issue 28: EPA depths of curved shapes depend on the warm-start simplex"]
fn warm_started_rounded_cones_give_the_cold_depth() {
    let a = ConvexShape::RoundedCone(Rounded::new(Cone::new(0.32733542, 0.8434662), 0.05096521));
    let b = ConvexShape::RoundedCone(Rounded::new(Cone::new(0.4605549, 0.7477792), 0.16830625));
    let mut bm = Affine3A::from_mat3_translation(
        glam::Mat3::from_cols(
            Vec3::new(0.24673498, -0.36435133, 0.89798105),
            Vec3::new(0.66977936, -0.6055728, -0.429741),
            Vec3::new(0.7003696, 0.70748127, 0.09461892),
        ),
        Vec3::new(3.0, 0.0, 0.0),
    );
    let mut cache = GjkCache::default();
    for step in 0..75 {
        bm.translation.x -= 0.02;
        let warm = contact(&a, &Affine3A::IDENTITY, &b, &bm, 10.0, &mut cache).unwrap().unwrap();
        let cold =
            contact(&a, &Affine3A::IDENTITY, &b, &bm, 10.0, &mut GjkCache::default()).unwrap().unwrap();
        assert!((warm.separation - cold.separation).abs() < 1e-4, "step {step}: {warm:?} vs {cold:?}");
    }
}

/// Found when the manifold suite was raised to 10,000 cases: a cone against a rounded hull under
/// affine maps, overlapping by about the rounding radius, gets a contact (and a one-point
/// manifold) with a zero normal and the separation -0.1145 (minus the rounding radius), witness
/// points 1.4 apart. Contacts promise a unit normal; EPA gave up (issue 30).
#[test]
#[ignore = "issue 30: EPA gives up and the contact has a zero normal"]
fn cone_against_rounded_hull_gets_a_unit_normal() {
    let vertices = [
        Vec3::new(-0.6882207, 0.3501532, 0.28452486),
        Vec3::new(0.09480949, 0.92088205, -0.3186849),
        Vec3::new(-0.56715035, 0.1636974, -0.3804142),
        Vec3::new(-0.083839625, -0.2245466, -0.51300365),
        Vec3::new(0.49880385, -0.67893106, 0.36392337),
        Vec3::new(0.8179528, -0.0712154, 0.47696364),
        Vec3::new(0.10365368, -0.29839486, 0.65840375),
        Vec3::new(0.76248217, -0.19544204, -0.26921856),
        Vec3::new(-0.19628902, 0.7582016, 0.16905853),
        Vec3::new(-0.2164185, 0.635042, 0.31100675),
        Vec3::new(-0.28929937, 0.08410696, 0.785019),
        Vec3::new(-0.14558361, -0.7442384, 0.17127308),
        Vec3::new(0.5939469, -0.61374855, 0.34261283),
        Vec3::new(0.7480699, 0.36063716, -0.028424347),
        Vec3::new(-0.5385825, -0.144344, 0.14024173),
        Vec3::new(-0.013577329, -0.5161404, 0.5748356),
        Vec3::new(0.30076557, -0.37454808, -0.40698385),
    ];
    let a = ConvexShape::Cone(Cone::new(0.7782009, 0.69174045));
    let b = ConvexShape::RoundedHull(Rounded::new(ConvexHull::new(&vertices).unwrap(), 0.11449964));
    let am = Affine3A::from_mat3_translation(
        glam::Mat3::from_cols(
            Vec3::new(0.99117684, 0.99608654, 0.41022438),
            Vec3::new(0.835275, -0.35859957, -1.1474434),
            Vec3::new(-0.6802853, 1.0110006, -0.81116825),
        ),
        Vec3::new(-0.6272501, -0.38116264, 0.041311264),
    );
    let bm = Affine3A::from_mat3_translation(
        glam::Mat3::from_cols(
            Vec3::new(-0.34498882, -0.71136147, -0.6123301),
            Vec3::new(-0.74236387, -0.19240761, 0.64177537),
            Vec3::new(-0.5743511, 0.67597675, -0.4617108),
        ),
        Vec3::new(0.04011953, 0.23688895, -0.6731283),
    );
    let c = contact(&a, &am, &b, &bm, 0.0, &mut GjkCache::default()).unwrap().unwrap();
    assert!((c.normal.length() - 1.0).abs() < 1e-4, "{c:?}");
    let (ra, rb) = (RefShape::new(&a, &am), RefShape::new(&b, &bm));
    let reference = signed_distance(&ra, &rb);
    check_against_reference((&am, &ra), (&bm, &rb), reference, &c, "cone-rounded hull").unwrap();
}

/// Found when the manifold suite was raised to 10,000 cases: a rounded cylinder penetrating a
/// triangle 0.417 deep (under affine maps), whose manifold's deepest point claims 0.410, 7e-3
/// less than the contact. Depths of deep penetrations of curved shapes: issue 28 (three more
/// cases of the suite: cylinder and hull, hull and cylinder, rounded box and hull).
#[test]
#[ignore = "issue 28: manifold depths of deeply penetrating curved shapes differ from the contact"]
fn rounded_cylinder_deep_in_a_triangle_manifold_depth_equals_the_contact() {
    let a = ConvexShape::RoundedCylinder(Rounded::new(Cylinder::new(0.3327635, 1.1712925), 0.23652925));
    let b = ConvexShape::Triangle(Triangle::new(
        Vec3::new(-0.0590775, 0.15309596, 0.6508179),
        Vec3::new(-0.079374075, 0.38669395, 0.9529805),
        Vec3::new(0.40829682, 0.21832275, 0.97448444),
    ));
    let am = Affine3A::from_mat3_translation(
        glam::Mat3::from_cols(
            Vec3::new(1.4577028, -0.0034468924, -0.25028577),
            Vec3::new(0.1982748, 0.9185709, 1.1421325),
            Vec3::new(0.15278074, -1.15921, 0.90578276),
        ),
        Vec3::new(-0.07311189, -0.24716681, 0.13685262),
    );
    let bm = Affine3A::from_mat3_translation(
        glam::Mat3::from_cols(
            Vec3::new(-0.29841584, 0.31643277, -0.8469103),
            Vec3::new(0.21378957, -0.84186053, -0.38987646),
            Vec3::new(-0.87845355, -0.31237787, 0.1928158),
        ),
        Vec3::new(-0.6694519, 0.74772435, 0.68396646),
    );
    let mut m = ContactManifold::default();
    contact_manifold(&a, &am, &b, &bm, 0.0, &mut GjkCache::default(), &mut m).unwrap();
    let c = contact(&a, &am, &b, &bm, 0.0, &mut GjkCache::default()).unwrap().unwrap();
    let deepest = m.points().iter().map(|p| p.separation).fold(f32::INFINITY, f32::min);
    assert!((deepest - c.separation).abs() <= 1e-3 * (1.0 + c.separation.abs()), "{deepest} vs {c:?}");
}

/// Found when the reference suite was raised to 10,000 cases: a capsule 2.066 deep in a rounded
/// cylinder (both under similarities of scale about 1.5), where EPA's depth is 1e-3 short of the
/// reference search's (tolerance 3.5e-4) and the gap along its normal too. Depths of deep
/// penetrations of curved shapes: issue 28.
#[test]
#[ignore = "issue 28: EPA depths of deeply penetrating curved shapes"]
fn capsule_deep_in_a_rounded_cylinder_gets_the_reference_depth() {
    let a = ConvexShape::Capsule(Capsule::new(0.27002388, 0.58315885));
    let b = ConvexShape::RoundedCylinder(Rounded::new(Cylinder::new(0.72108907, 0.77810174), 0.0591334));
    let am = Affine3A::from_mat3_translation(
        glam::Mat3::from_cols(
            Vec3::new(-1.2052704, 0.65560776, -0.4645818),
            Vec3::new(-0.7921636, -0.82912284, 0.88508),
            Vec3::new(0.1346645, 0.99048895, 1.0483946),
        ),
        Vec3::new(0.5149964, -0.17405665, -0.73643196),
    );
    let bm = Affine3A::from_mat3_translation(
        glam::Mat3::from_cols(
            Vec3::new(-0.35910144, -0.0018016024, -1.4902514),
            Vec3::new(0.70771086, 1.3488181, -0.17216544),
            Vec3::new(1.311487, -0.7283491, -0.31514463),
        ),
        Vec3::new(0.45686305, 0.008638859, -0.50978595),
    );
    let c = gjk_sep(&a, &am, &b, &bm).unwrap();
    let (ra, rb) = (RefShape::new(&a, &am), RefShape::new(&b, &bm));
    let reference = signed_distance(&ra, &rb);
    check_against_reference((&am, &ra), (&bm, &rb), reference, &c, "capsule-rounded cylinder").unwrap();
}

/// Two parallel capsules side by side: a two-point manifold along the overlap of their axes,
/// each point on its capsule's surface and the separations the distance of the axes minus the
/// radii (found by the mutation run: nothing checked these points).
#[test]
fn parallel_capsules_get_two_points_on_both_surfaces() {
    let rotation = Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.7, -0.2);
    let (ra, rb) = (0.3, 0.45);
    let (a, b) = (ConvexShape::Capsule(Capsule::new(1.0, ra)), ConvexShape::Capsule(Capsule::new(0.8, rb)));
    let a_to_world = Affine3A::from_rotation_translation(rotation, Vec3::new(0.1, -0.2, 0.3));
    let b_to_world = a_to_world * Affine3A::from_translation(Vec3::new(0.6, 0.5, 0.0));
    let mut manifold = ContactManifold::default();
    contact_manifold(&a, &a_to_world, &b, &b_to_world, 0.0, &mut GjkCache::default(), &mut manifold).unwrap();
    assert_eq!(manifold.len(), 2);
    let axis = |to_world: &Affine3A, half: f32| {
        (to_world.transform_point3(Vec3::Y * -half), to_world.transform_point3(Vec3::Y * half))
    };
    let to_axis = |p: Vec3, (p0, p1): (Vec3, Vec3)| {
        let t = ((p - p0).dot(p1 - p0) / (p1 - p0).length_squared()).clamp(0.0, 1.0);
        p.distance(p0 + (p1 - p0) * t)
    };
    for p in manifold.points() {
        assert!((to_axis(p.point_a, axis(&a_to_world, 1.0)) - ra).abs() < 1e-5, "{p:?}");
        assert!((to_axis(p.point_b, axis(&b_to_world, 0.8)) - rb).abs() < 1e-5, "{p:?}");
        assert!((p.separation - (0.6 - ra - rb)).abs() < 1e-5, "{p:?}");
        assert!(((p.point_b - p.point_a).dot(manifold.normal) - p.separation).abs() < 1e-5, "{p:?}");
    }
}

/// Boxes separated only along one face normal of one box (a turned box whose edge or corner
/// faces an axis-aligned box): the exact distance in both orders, so that the separating-axis
/// pass tests the faces of A and of B (found by the mutation run: a wrong B-face test went
/// unnoticed).
#[test]
fn boxes_separated_by_one_face_axis_get_the_exact_distance() {
    // Turned 45° about z, an edge towards +x; or turned so that a corner points along +x, where no
    // edge axis (a cross product with the turned box's axes) repeats the other box's face normal.
    let cube = ConvexShape::Cuboid(Cuboid::new(Vec3::ONE));
    let turns = [
        (Quat::from_rotation_z(std::f32::consts::FRAC_PI_4), 2f32.sqrt()),
        (Quat::from_rotation_arc(Vec3::ONE.normalize(), Vec3::X), 3f32.sqrt()),
    ];
    for (turn, reach) in turns {
        for gap in [0.01f32, 0.3, 1.7] {
            for lift in [-0.5f32, 0.0, 0.8] {
                let turned = Affine3A::from_quat(turn);
                let beside = Affine3A::from_translation(Vec3::new(reach + 1.0 + gap, 0.2, lift));
                for (a, b) in [(&turned, &beside), (&beside, &turned)] {
                    let got = distance(&cube, a, &cube, b, &mut GjkCache::default()).unwrap();
                    assert!((got - gap).abs() < 1e-5, "reach {reach} gap {gap} lift {lift}: {got}");
                }
            }
        }
    }
}
