//! One test per bug found by the random suites, on the smallest case that showed it.

use glam::{Affine2, Mat2, Vec2};
use kollide::narrow::{ContactManifold2, GjkCache2, contact_manifold2, contact2, intersects2};
use kollide::shape::{Ball2, Capsule2, ConvexShape2, Cuboid2, Segment2, segment_closest_params2};

use kollide_testkit::random;
use kollide_testkit::reference_convex2::polygon_distance2;
use rand::Rng;

use crate::support::Case;

fn at(x: f32, y: f32) -> Affine2 {
    Affine2::from_translation(Vec2::new(x, y))
}

fn manifold(c: &Case, prediction: f32) -> ContactManifold2 {
    let mut m = ContactManifold2::default();
    contact_manifold2(&c.a, &c.ma, &c.b, &c.mb, prediction, &mut GjkCache2::default(), &mut m).unwrap();
    m
}

fn check_contact(c: &Case) {
    let contact =
        contact2(&c.a, &c.ma, &c.b, &c.mb, f32::INFINITY, &mut GjkCache2::default()).unwrap().unwrap();
    c.check_contact(&contact, &format!("{c:?}: {contact:?}"));
}

/// A point core (a disc) has no edge normal: its zero placeholder won the separating-axis test,
/// and a disc centred inside a box got a zero normal.
#[test]
fn a_disc_centred_inside_a_box_is_pushed_out_through_a_face() {
    let c = Case::new(
        ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(1.0, 0.5))),
        Affine2::from_angle(0.3),
        ConvexShape2::Ball(Ball2::new(0.25)),
        Affine2::from_translation(Vec2::new(0.1, 0.2)),
    );
    check_contact(&c);
    // A point (a ball of radius zero) in a box, under a shear that makes it a proxy.
    let point = ConvexShape2::Ball(Ball2::new(0.0));
    let sheared =
        Affine2::from_mat2_translation(Mat2::from_cols(Vec2::X, Vec2::new(0.5, 1.0)), Vec2::new(0.1, -0.2));
    check_contact(&Case::new(
        ConvexShape2::Cuboid(Cuboid2::new(Vec2::ONE)),
        Affine2::IDENTITY,
        point,
        sheared,
    ));
}

/// Crossing segments: their closest points, rounded, were a few ulps apart, so `intersects2`
/// answered `false`.
#[test]
fn crossing_segments_intersect() {
    let a = ConvexShape2::Segment(Segment2::new(
        Vec2::new(0.6615367, -0.76361984),
        Vec2::new(-0.7335227, 0.028023303),
    ));
    let b = ConvexShape2::Segment(Segment2::new(
        Vec2::new(0.54530036, -0.62974703),
        Vec2::new(0.23039699, -0.26574227),
    ));
    let ma = Affine2::from_mat2_translation(
        Mat2::from_cols(Vec2::new(-0.5237203, -0.85189027), Vec2::new(0.85189027, -0.5237203)),
        Vec2::new(-0.93386555, 0.7070906),
    );
    let mb = Affine2::from_mat2_translation(-Mat2::IDENTITY, Vec2::new(-1.1098018, 0.60269177));
    let c = Case::new(a, ma, b, mb);
    assert!(c.sd < -1e-4, "{c:?}");
    assert!(intersects2(&c.a, &c.ma, &c.b, &c.mb, &mut GjkCache2::default()).unwrap());
}

/// A capsule lying in a box with parallel axes: the box's deepest corner along the normal, one
/// of two tied, lay beyond the capsule's segment, and the contact point on the capsule was off it.
#[test]
fn a_capsule_lying_in_a_box_gets_contact_points_on_both_shapes() {
    let capsule = ConvexShape2::Capsule(Capsule2::new(0.4, 0.2));
    let quarter = Mat2::from_cols(Vec2::Y, Vec2::NEG_X);
    let c = Case::new(
        capsule,
        Affine2::from_mat2(quarter * 0.8),
        ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(0.84, 0.2))),
        at(-0.39, -0.02),
    );
    check_contact(&c);
    // Two boxes with parallel sides, one inside the other's span.
    let small = ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(0.2, 0.3)));
    let long = ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(3.0, 0.3)));
    check_contact(&Case::new(small.clone(), Affine2::IDENTITY, long.clone(), at(0.5, 0.4)));
    check_contact(&Case::new(long, Affine2::IDENTITY, small, at(-0.5, 0.4)));
}

/// A reflected box's corners run clockwise: clipped against its reversed reference edge, the
/// manifold (and the contact taken from it) lost the deepest point.
#[test]
fn a_reflected_box_gets_the_minimum_translation() {
    let a = ConvexShape2::Cuboid(Cuboid2::new(Vec2::splat(0.7)));
    let b = ConvexShape2::Cuboid(Cuboid2::new(Vec2::splat(0.63)));
    let ma = Affine2::from_mat2_translation(Mat2::from_angle(2.3), Vec2::new(0.54, -0.1));
    let reflected = Mat2::from_cols(Vec2::new(-3.0, 2.0), Vec2::new(2.0, 3.0));
    let c = Case::new(a, ma, b, Affine2::from_mat2_translation(reflected, Vec2::new(-0.2, 0.27)));
    check_contact(&c);
    let m = manifold(&c, 0.0);
    c.check_manifold(&m, 0.0, &format!("{c:?} {m:?}"));
    let deepest = m.deepest().unwrap().separation as f64;
    assert!((deepest - c.sd).abs() <= c.tol + c.hysteresis(), "{c:?}: {m:?}");
}

/// Segments a hair apart: the direction between their rounded closest points was noise, so the
/// contact normal did not separate them.
#[test]
fn nearly_touching_segments_get_an_exact_normal() {
    let a = ConvexShape2::Segment(Segment2::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)));
    for (b, gap) in [
        (Segment2::new(Vec2::new(0.3, 1e-6), Vec2::new(0.9, 2.0)), 1e-6),
        (Segment2::new(Vec2::new(0.3, 3e-4), Vec2::new(0.5, 3e-4 + 0.05)), 3e-4),
    ] {
        let rotation = Affine2::from_mat2_translation(Mat2::from_angle(0.7) * 1.7, Vec2::new(0.2, -0.3));
        let c = Case::new(a.clone(), rotation, ConvexShape2::Segment(b), rotation);
        assert!((c.sd - gap * 1.7).abs() < 1e-6, "{c:?}");
        check_contact(&c);
    }
}

/// With a prediction below minus the radii, `reach²` of a negative reach let pairs apart through,
/// and crossing segments ignored the prediction altogether.
#[test]
fn a_negative_prediction_keeps_no_point_beyond_it() {
    let a = ConvexShape2::Capsule(Capsule2::new(1.0, 0.1));
    let b = ConvexShape2::Capsule(Capsule2::new(1.0, 0.1));
    for (mb, prediction) in [
        // Parallel, 0.05 apart: separation -0.15.
        (at(0.25, 0.0), -0.5),
        // Crossing: separation about -1.1.
        (Affine2::from_mat2_translation(Mat2::from_angle(1.5), Vec2::new(0.1, 0.2)), -2.0),
    ] {
        let c = Case::new(a.clone(), Affine2::IDENTITY, b.clone(), mb);
        let m = manifold(&c, prediction);
        c.check_manifold(&m, prediction, &format!("{c:?} {m:?}"));
        assert!(m.is_empty(), "{m:?}");
    }
    let c = Case::new(ConvexShape2::Ball(Ball2::new(0.1)), Affine2::IDENTITY, b, at(0.25, 0.0));
    let m = manifold(&c, -0.3);
    assert!(m.is_empty(), "{m:?}");
}

/// Sharp polygons apart and closest at two corners: the clipped point's separation along the
/// reference normal was less than their distance (only rounded shapes took the corner normal).
#[test]
fn separated_sharp_corners_report_their_distance() {
    let square = ConvexShape2::Cuboid(Cuboid2::new(Vec2::splat(0.5)));
    let c = Case::new(
        square.clone(),
        Affine2::IDENTITY,
        square,
        Affine2::from_mat2_translation(Mat2::from_angle(0.2), Vec2::new(1.2, 1.3)),
    );
    let m = manifold(&c, 1.0);
    c.check_manifold(&m, 1.0, &format!("{c:?} {m:?}"));
    assert!((m.deepest().unwrap().separation as f64 - c.sd).abs() <= c.tol, "{c:?} {m:?}");
}

/// A short segment just past the end of a long parallel one: clipped to the long one's extent,
/// it collapsed onto its own end, beyond it, and was reported at its distance to the line.
#[test]
fn a_short_segment_past_the_end_of_a_parallel_one_reports_its_distance() {
    let long = ConvexShape2::Segment(Segment2::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)));
    let short = ConvexShape2::Segment(Segment2::new(Vec2::new(1.01, 0.5), Vec2::new(1.3, 0.51)));
    let c = Case::new(long, Affine2::IDENTITY, short, Affine2::IDENTITY);
    let m = manifold(&c, 1.0);
    c.check_manifold(&m, 1.0, &format!("{c:?} {m:?}"));
}

/// A disc centred on a capsule's axis beyond its end: both of the segment's sides separate it by
/// zero, and it was pushed out sideways.
#[test]
fn a_disc_beyond_the_end_of_a_capsule_on_its_axis() {
    let capsule = ConvexShape2::Capsule(Capsule2::new(0.32, 0.25));
    let disc = ConvexShape2::Capsule(Capsule2::new(0.0, 0.34));
    let c = Case::new(
        capsule,
        Affine2::from_mat2_translation(-Mat2::IDENTITY, Vec2::new(0.87, -0.5)),
        disc,
        at(0.87, 0.14),
    );
    check_contact(&c);
    let m = manifold(&c, 0.0);
    c.check_manifold(&m, 0.0, &format!("{c:?} {m:?}"));
    assert!((m.normal - Vec2::Y).length() < 1e-6, "{m:?}");
}

/// A disc at a capsule's end, crossing its axis: the end point is the end of one side's edge and
/// the start of the other's, and its id changed with the side.
#[test]
fn a_disc_at_a_capsule_end_keeps_its_id_across_the_axis() {
    let capsule = ConvexShape2::Capsule(Capsule2::new(0.5, 0.2));
    let disc = ConvexShape2::Ball(Ball2::new(0.3));
    let ids: Vec<u32> = [-1e-4, 0.0, 1e-4]
        .iter()
        .map(|&x| {
            let c = Case::new(capsule.clone(), Affine2::IDENTITY, disc.clone(), at(x, 0.9));
            manifold(&c, 0.0).points()[0].id
        })
        .collect();
    assert!(ids.iter().all(|&id| id == ids[0]), "{ids:?}");
}

/// Nearly parallel capsules closest at one's end and inside the other: clipped against the first
/// one's side, the deepest point was shallower than the contact.
#[test]
fn nearly_parallel_segments_give_the_contact_as_deepest_point() {
    let a = ConvexShape2::Segment(Segment2::new(Vec2::new(0.0, 0.3), Vec2::new(0.0, -0.3)));
    let b = ConvexShape2::Capsule(Capsule2::new(0.43, 0.245));
    let mb = Affine2::from_mat2_translation(Mat2::from_angle(0.035) * 1.9, Vec2::new(0.44, 0.2));
    let c = Case::new(a, Affine2::IDENTITY, b, mb);
    assert!(c.sd < 0.0, "{c:?}");
    let m = manifold(&c, 0.0);
    c.check_manifold(&m, 0.0, &format!("{c:?} {m:?}"));
    let contact = contact2(&c.a, &c.ma, &c.b, &c.mb, 0.0, &mut GjkCache2::default()).unwrap().unwrap();
    assert!(
        (m.deepest().unwrap().separation - contact.separation).abs() as f64 <= c.tol,
        "{m:?} {contact:?}"
    );
}

/// A point on a segment's line beyond its end, both as proxies: their edge normals see no gap.
#[test]
fn a_point_on_a_segments_line_beyond_its_end_is_apart() {
    // Stretched (not a similarity), so that both are proxies; the point exactly on the line.
    let stretch = Mat2::from_diagonal(Vec2::new(1.0, 2.0));
    let segment = ConvexShape2::Capsule(Capsule2::new(0.5, 0.0));
    let point = ConvexShape2::Ball(Ball2::new(0.0));
    let c = Case::new(
        segment,
        Affine2::from_mat2(stretch),
        point,
        Affine2::from_mat2_translation(stretch, Vec2::new(0.0, 1.5)),
    );
    assert!((c.sd - 0.5).abs() < 1e-9, "{c:?}");
    check_contact(&c);
    let m = manifold(&c, 1.0);
    c.check_manifold(&m, 1.0, &format!("{c:?} {m:?}"));
}

/// Segment pairs, many nearly parallel (where the lines' closest points are ill-conditioned):
/// the distance between the closest points against the exact vertex–edge distances.
#[test]
fn closest_points_of_segments_match_the_reference() {
    let mut rng = crate::support::rng(20);
    let mut worst: f64 = 0.0;
    for _ in 0..kollide_testkit::cases(20_000) {
        let p0 = random::point2(&mut rng, 2.0);
        let dir = Vec2::from_angle(rng.random_range(-3.2..3.2));
        let p1 = p0 + dir * rng.random_range(0.1..3.0);
        // Within 10^-6 to 10^-1 rad of parallel, sometimes exactly parallel or the other way.
        let angle = if rng.random_bool(0.1) { 0.0 } else { 10f32.powf(rng.random_range(-6.0..-1.0)) };
        let turn = if rng.random_bool(0.5) { angle } else { std::f32::consts::PI - angle };
        let q0 = p0 + random::point2(&mut rng, 2.0);
        let q1 = q0 + Mat2::from_angle(turn) * dir * rng.random_range(0.1..3.0);
        let (s, t) = segment_closest_params2(p0, p1, q0, q1);
        assert!((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t));
        let got = (p0 + (p1 - p0) * s).distance(q0 + (q1 - q0) * t) as f64;
        let (pa, pb) = ([p0.as_dvec2(), p1.as_dvec2()], [q0.as_dvec2(), q1.as_dvec2()]);
        let reference = polygon_distance2(&pa, &pb);
        worst = worst.max((got - reference).abs());
        assert!((got - reference).abs() <= 2e-6, "{p0} {p1} {q0} {q1}: {got} vs {reference}");
    }
    println!("worst {worst}");
}

/// A box of zero size placed as a proxy kept its four (equal) corners and their face normals, so
/// a disc around it was pushed along a face normal rather than away from the point.
#[test]
fn a_box_of_zero_size_is_a_point() {
    let disc = ConvexShape2::Ball(Ball2::new(1.0));
    let ma = Affine2::from_mat2_translation(Mat2::from_angle(-2.2) * 2.8, Vec2::new(0.41, 0.14));
    for half in [Vec2::ZERO, Vec2::new(0.4, 0.0)] {
        let point = ConvexShape2::Cuboid(Cuboid2::new(half));
        let c = Case::new(disc.clone(), ma, point, at(-0.14, 1.48));
        check_contact(&c);
        let m = manifold(&c, 0.0);
        c.check_manifold(&m, 0.0, &format!("{c:?} {m:?}"));
        assert!((m.deepest().unwrap().separation as f64 - c.sd).abs() <= c.tol, "{c:?} {m:?}");
    }
}

/// A capsule standing on a box: its segment's two sides are equally opposed to the box's face,
/// and the clipped points' ids changed with the side picked (they named the incident edge).
#[test]
fn a_capsule_standing_on_a_box_keeps_its_ids() {
    let square = ConvexShape2::Cuboid(Cuboid2::new(Vec2::splat(1.2193718)));
    let sheared = Affine2::from_mat2_translation(
        Mat2::from_cols(Vec2::new(0.98360604, 0.08600804), Vec2::new(-0.1634784, 1.8695732)),
        Vec2::new(-0.01749444, -0.16194081),
    );
    let capsule = ConvexShape2::Capsule(Capsule2::new(1.2214582, 0.6131752));
    let upside_down = Mat2::from_cols(Vec2::new(-0.9961987, -0.08710917), Vec2::new(0.08710917, -0.9961987));
    let ids: Vec<Vec<u32>> = [Vec2::ZERO, Vec2::new(0.0000228673, 0.00003782874)]
        .iter()
        .map(|&nudge| {
            let standing =
                Affine2::from_mat2_translation(upside_down, Vec2::new(-0.43794098, 4.6463737) + nudge);
            let c = Case::new(square.clone(), sheared, capsule.clone(), standing);
            let m = manifold(&c, 1000.0);
            assert_eq!(m.len(), 2, "{m:?}");
            let mut ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
            ids.sort();
            ids
        })
        .collect();
    assert_eq!(ids[0], ids[1]);
}
