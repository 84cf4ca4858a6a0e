//! Bad input gives the documented errors, never a panic; singular placements and degenerate
//! shapes are the lower-dimensional sets they are.

use glam::{Affine2, Mat2, Vec2};
use kollide::math::Ray2;
use kollide::narrow::{
    ContactManifold2, GjkCache2, NarrowError, cast_ray2, cast_shape2, contact_manifold2, contact2,
    contains_point2, distance2, intersects2, project_point2,
};
use kollide::shape::{Ball2, Capsule2, ConvexShape2, Cuboid2, Segment2, Triangle2};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_shape2::PlacedShape2;
use rand::Rng;

use crate::support::{CLASSES, Case, KINDS, linear, rng, shape};

/// The outcome of every pair query of `a` and `b`.
fn pair_errors(
    a: &ConvexShape2,
    ma: &Affine2,
    b: &ConvexShape2,
    mb: &Affine2,
) -> Vec<Result<(), NarrowError>> {
    let mut cache = GjkCache2::default();
    let mut m = ContactManifold2::default();
    m.normal = Vec2::X;
    let results = vec![
        distance2(a, ma, b, mb, &mut cache).map(|_| ()),
        intersects2(a, ma, b, mb, &mut cache).map(|_| ()),
        contact2(a, ma, b, mb, 0.1, &mut cache).map(|_| ()),
        contact_manifold2(a, ma, b, mb, 0.1, &mut cache, &mut m),
        cast_shape2(a, ma, b, mb, Vec2::X, 1.0, &mut cache).map(|_| ()),
    ];
    assert!(m.is_empty() || results[3].is_ok(), "a refused manifold is left empty: {m:?}");
    results
}

#[test]
fn invalid_shapes_and_non_finite_placements_are_refused() {
    let good = ConvexShape2::Cuboid(Cuboid2::new(Vec2::ONE));
    let bad_shapes = [
        ConvexShape2::Ball(Ball2::new(-1.0)),
        ConvexShape2::Ball(Ball2::new(f32::NAN)),
        ConvexShape2::Ball(Ball2::new(f32::INFINITY)),
        ConvexShape2::Capsule(Capsule2::new(-0.5, 1.0)),
        ConvexShape2::Capsule(Capsule2::new(1.0, f32::NAN)),
        ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(1.0, -1.0))),
        ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(f32::NAN, 1.0))),
        ConvexShape2::Segment(Segment2::new(Vec2::ZERO, Vec2::new(f32::INFINITY, 0.0))),
        ConvexShape2::Triangle(Triangle2::new(Vec2::ZERO, Vec2::X, Vec2::new(0.0, f32::NAN))),
    ];
    let id = Affine2::IDENTITY;
    for bad in &bad_shapes {
        for (i, r) in pair_errors(bad, &id, &good, &id).into_iter().enumerate() {
            assert_eq!(r, Err(NarrowError::InvalidShape(0)), "query {i}, {bad:?} as A");
        }
        for (i, r) in pair_errors(&good, &id, bad, &id).into_iter().enumerate() {
            assert_eq!(r, Err(NarrowError::InvalidShape(1)), "query {i}, {bad:?} as B");
        }
        let ray = Ray2::new(Vec2::new(-5.0, 0.0), Vec2::X);
        assert_eq!(cast_ray2(bad, &id, &ray, 10.0), Err(NarrowError::InvalidShape(0)), "{bad:?}");
        assert_eq!(project_point2(bad, &id, Vec2::ZERO), Err(NarrowError::InvalidShape(0)), "{bad:?}");
        assert_eq!(contains_point2(bad, &id, Vec2::ZERO), Err(NarrowError::InvalidShape(0)), "{bad:?}");
    }
    let bad_maps = [
        Affine2::from_translation(Vec2::new(f32::NAN, 0.0)),
        Affine2::from_translation(Vec2::new(0.0, f32::INFINITY)),
        Affine2::from_mat2(Mat2::from_cols(Vec2::new(f32::NAN, 0.0), Vec2::Y)),
        Affine2::from_mat2(Mat2::from_cols(Vec2::X, Vec2::new(0.0, f32::NEG_INFINITY))),
    ];
    // Every kind, as A and as B (the closed forms of discs and segments included).
    let shapes = [
        ConvexShape2::Ball(Ball2::new(1.0)),
        ConvexShape2::Capsule(Capsule2::new(1.0, 0.5)),
        good.clone(),
        ConvexShape2::Segment(Segment2::new(Vec2::ZERO, Vec2::X)),
        ConvexShape2::Triangle(Triangle2::new(Vec2::ZERO, Vec2::X, Vec2::Y)),
    ];
    for bad in &bad_maps {
        for s in &shapes {
            for other in &shapes {
                for r in pair_errors(s, bad, other, &id).into_iter().chain(pair_errors(s, &id, other, bad)) {
                    assert_eq!(r, Err(NarrowError::NonFinite), "{s:?} {other:?} at {bad:?}");
                }
            }
            let ray = Ray2::new(Vec2::new(-5.0, 0.0), Vec2::X);
            assert_eq!(cast_ray2(s, bad, &ray, 10.0), Err(NarrowError::NonFinite));
            assert_eq!(project_point2(s, bad, Vec2::ZERO), Err(NarrowError::NonFinite));
            assert_eq!(contains_point2(s, bad, Vec2::ZERO), Err(NarrowError::NonFinite));
        }
    }
}

#[test]
fn non_finite_arguments_are_refused() {
    let shapes = [
        ConvexShape2::Ball(Ball2::new(1.0)),
        ConvexShape2::Capsule(Capsule2::new(1.0, 0.5)),
        ConvexShape2::Cuboid(Cuboid2::new(Vec2::ONE)),
        ConvexShape2::Segment(Segment2::new(Vec2::ZERO, Vec2::X)),
    ];
    let (near, id) = (Affine2::from_translation(Vec2::new(1.5, 0.0)), Affine2::IDENTITY);
    let mut cache = GjkCache2::default();
    for a in &shapes {
        for b in &shapes {
            let mut m = ContactManifold2::default();
            assert_eq!(contact2(a, &id, b, &near, f32::NAN, &mut cache), Err(NarrowError::NonFinite));
            assert_eq!(
                contact_manifold2(a, &id, b, &near, f32::NAN, &mut cache, &mut m),
                Err(NarrowError::NonFinite)
            );
            for v in [Vec2::new(f32::NAN, 0.0), Vec2::new(f32::INFINITY, 1.0)] {
                assert_eq!(cast_shape2(a, &id, b, &near, v, 1.0, &mut cache), Err(NarrowError::NonFinite));
            }
            assert_eq!(
                cast_shape2(a, &id, b, &near, Vec2::X, f32::NAN, &mut cache),
                Err(NarrowError::NonFinite)
            );
            // An infinite prediction and limit are allowed.
            assert!(contact2(a, &id, b, &near, f32::INFINITY, &mut cache).unwrap().is_some());
            assert!(
                cast_shape2(a, &id, b, &near, Vec2::new(-1.0, 0.0), f32::INFINITY, &mut cache)
                    .unwrap()
                    .is_some()
            );
        }
        for ray in [
            Ray2::new(Vec2::new(f32::NAN, 0.0), Vec2::X),
            Ray2::new(Vec2::ZERO, Vec2::new(0.0, f32::INFINITY)),
        ] {
            assert_eq!(cast_ray2(a, &id, &ray, 1.0), Err(NarrowError::NonFinite));
        }
        assert_eq!(
            cast_ray2(a, &id, &Ray2::new(Vec2::new(-5.0, 0.0), Vec2::X), f32::NAN),
            Err(NarrowError::NonFinite)
        );
        assert_eq!(cast_ray2(a, &id, &Ray2::new(Vec2::new(-5.0, 0.0), Vec2::ZERO), 1.0), Ok(None));
        for p in [Vec2::new(f32::NAN, 0.0), Vec2::new(0.0, f32::NEG_INFINITY)] {
            assert_eq!(project_point2(a, &id, p), Err(NarrowError::NonFinite));
            assert_eq!(contains_point2(a, &id, p), Err(NarrowError::NonFinite));
        }
        // Rays and containment invert the placement: a singular one is refused.
        let flat = Affine2::from_mat2(Mat2::from_cols(Vec2::X, Vec2::ZERO));
        assert_eq!(
            cast_ray2(a, &flat, &Ray2::new(Vec2::new(-5.0, 0.0), Vec2::X), 1.0),
            Err(NarrowError::NonFinite)
        );
        assert_eq!(contains_point2(a, &flat, Vec2::ZERO), Err(NarrowError::NonFinite));
    }
}

/// Pair queries accept singular placements (a shape collapsed onto a line or a point) and
/// degenerate shapes (a box of zero extent, a collinear triangle): the sets they are.
#[test]
fn singular_placements_and_degenerate_shapes_are_the_sets_they_are() {
    let mut r = rng(30);
    let n = cases(3_000);
    let mut cache = GjkCache2::default();
    for i in 0..n {
        let kind = KINDS[i % KINDS.len()];
        let a = if i % 3 == 0 { degenerate(&mut r) } else { shape(&mut r, kind) };
        let kind_b = KINDS[r.random_range(0..KINDS.len())];
        let b = if i % 2 == 0 { degenerate(&mut r) } else { shape(&mut r, kind_b) };
        let collapse = |r: &mut TestRng, m: Mat2| {
            // Rank one: both columns along one direction (or zero).
            let u = Vec2::from_angle(r.random_range(-3.2..3.2));
            if r.random_bool(0.1) {
                Mat2::ZERO
            } else {
                Mat2::from_cols(u * m.x_axis.length(), u * r.random_range(-1.0..1.0))
            }
        };
        let (class_a, class_b) = (CLASSES[r.random_range(0..3)], CLASSES[r.random_range(0..3)]);
        let (la, lb) = (linear(&mut r, class_a), linear(&mut r, class_b));
        let la = if i % 4 == 1 { collapse(&mut r, la) } else { la };
        let lb = if i % 4 == 2 { collapse(&mut r, lb) } else { lb };
        let ma = Affine2::from_mat2_translation(la, random::point2(&mut r, 0.5));
        let mb = Affine2::from_mat2_translation(lb, random::point2(&mut r, 1.5));
        let c = Case::new(a, ma, b, mb);
        let what = format!("{i}: {c:?}");
        let d = distance2(&c.a, &c.ma, &c.b, &c.mb, &mut cache).unwrap() as f64;
        assert!((d - c.sd.max(0.0)).abs() <= c.tol, "{what}: distance {d}");
        let hit = intersects2(&c.a, &c.ma, &c.b, &c.mb, &mut cache).unwrap();
        if c.sd.abs() > c.tol {
            assert_eq!(hit, c.sd < 0.0, "{what}");
        }
        let contact = contact2(&c.a, &c.ma, &c.b, &c.mb, f32::INFINITY, &mut cache).unwrap().unwrap();
        // Flat pairs (zero depth) have no unique normal; the separation must still be right.
        assert!((contact.separation as f64 - c.sd).abs() <= c.tol, "{what}: {contact:?}");
        let mut m = ContactManifold2::default();
        contact_manifold2(&c.a, &c.ma, &c.b, &c.mb, f32::INFINITY, &mut cache, &mut m).unwrap();
        assert!(!m.is_empty(), "{what}");
        for p in m.points() {
            assert!(p.separation as f64 >= c.sd - c.tol - c.hysteresis(), "{what}: {m:?}");
        }
    }
}

/// A degenerate shape: a box of zero extent on one or both axes, a triangle with collinear or
/// equal corners, a zero ball, a zero-height zero-radius capsule.
fn degenerate(r: &mut TestRng) -> ConvexShape2 {
    let p = random::point2(r, 1.0);
    match r.random_range(0..5) {
        0 => ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(r.random_range(0.0..1.0), 0.0))),
        1 => ConvexShape2::Cuboid(Cuboid2::new(Vec2::ZERO)),
        2 => ConvexShape2::Triangle(Triangle2::new(p, p * 0.5, p * -0.7)),
        3 => ConvexShape2::Triangle(Triangle2::new(p, p, p)),
        _ => ConvexShape2::Capsule(Capsule2::new(r.random_range(0.0..1.0), 0.0)),
    }
}

/// Rays and points against degenerate shapes: the lower-dimensional sets they are.
#[test]
fn rays_and_points_meet_degenerate_shapes_as_the_sets_they_are() {
    let mut r = rng(31);
    let (mut hits, mut on) = (0, 0);
    for i in 0..cases(5_000) {
        let s = degenerate(&mut r);
        let class = CLASSES[r.random_range(0..3)];
        let map = Affine2::from_mat2_translation(linear(&mut r, class), random::point2(&mut r, 1.0));
        let reference = PlacedShape2::new(&s, &map);
        // Aimed at a random point of the set (a corner one time in four), from outside.
        let target = map.transform_point2(match &s {
            ConvexShape2::Triangle(t) if r.random_bool(0.25) => t.a,
            ConvexShape2::Triangle(t) => t.a.lerp(t.b, r.random_range(0.0..1.0)),
            ConvexShape2::Cuboid(c) => c.half_extents * random::point2(&mut r, 1.0).signum(),
            _ => Vec2::ZERO,
        });
        let origin = target + random::point2(&mut r, 3.0);
        let ray = Ray2::new(origin, (target - origin) * 1.5);
        let hit = cast_ray2(&s, &map, &ray, 1.0).unwrap();
        let expected = reference.ray(origin.as_dvec2(), ray.dir.as_dvec2(), 1.0);
        let what = format!("{i}: {s:?} at {map:?}, {ray:?}: {hit:?} vs {expected:?}");
        // The segment or point is hit where the reference is, unless the ray only grazes it.
        match (hit, expected) {
            (Some(h), Some((t, _))) => {
                assert!((h.t as f64 - t).abs() * ray.dir.length() as f64 <= 1e-4, "{what}");
                hits += 1;
            }
            (None, None) => {}
            _ => {
                let grazing = reference.signed_distance_to_point(ray.at(2.0 / 3.0).as_dvec2()).abs() < 1e-5;
                assert!(grazing || matches!(s, ConvexShape2::Triangle(t) if t.a == t.b), "{what}");
            }
        }
        // Points: the set's own points are contained, others not.
        let inside = contains_point2(&s, &map, target).unwrap();
        on += usize::from(inside);
        let off = target + random::point2(&mut r, 0.5);
        if reference.signed_distance_to_point(off.as_dvec2()) > 1e-5 {
            assert!(!contains_point2(&s, &map, off).unwrap(), "{what}: {off}");
        }
    }
    // Points (two kinds in five) are hit only by rays through them exactly: rarely.
    assert!(hits > cases(5_000) / 4 && on > cases(5_000) / 4, "{hits} hits, {on} on");
}

/// A degenerate triangle is the segment it spans: its line beyond the corners is outside.
#[test]
fn a_collinear_triangle_contains_only_its_segment() {
    let flat = ConvexShape2::Triangle(Triangle2::new(Vec2::ZERO, Vec2::new(2.0, 0.0), Vec2::new(1.0, 0.0)));
    let id = Affine2::IDENTITY;
    assert!(contains_point2(&flat, &id, Vec2::new(0.5, 0.0)).unwrap());
    for outside in [Vec2::new(3.0, 0.0), Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.5)] {
        assert!(!contains_point2(&flat, &id, outside).unwrap(), "{outside}");
        let proj = project_point2(&flat, &id, outside).unwrap();
        let reference = PlacedShape2::new(&flat, &id).signed_distance_to_point(outside.as_dvec2());
        assert!(
            !proj.inside && ((proj.point - outside).length() as f64 - reference).abs() < 1e-6,
            "{outside}: {proj:?}"
        );
    }
}
