//! Arbitrary convex shapes and placements through the `kollide::query` pair functions
//! (`intersects`, `contact`, `contact_manifolds`, `distance`, `cast_shape`) and the single-shape
//! ones (`cast_ray`, `project_point`): never a panic, and a non-finite placement is an `Err`.
//!
//! When both shapes and placements are "ordinary" (parameters in [1/8, 8], rotations with scales
//! in [1/2, 2], translations in [-8, 8]), answers that must hold are checked, each to a tolerance
//! `TOL` = 1e-4 of the size of the scene (the largest coordinate of both world boxes, plus 1):
//! GJK stops within a few ulps of that size, so 1e-4 is far above rounding yet far below any
//! real error.
//! - `intersects` ⇒ `distance <= TOL`, and `distance > TOL` ⇒ not `intersects`;
//! - `distance(a, b)` and `distance(b, a)` agree within `TOL`;
//! - sampled references from the support functions: for 26 directions `n`, the distance is at most
//!   the distance of the support points `s_A(n)` and `s_B(-n)` (two points of the shapes), and at
//!   least the gap of the shapes' extents along `n` (a separating-axis lower bound).
#![no_main]

use arbitrary::Unstructured;
use glam::{Affine3A, Quat, Vec3, Vec3A};
use kollide::query::{self, Shape};
use kollide::shape::{
    Ball, Capsule, Cone, ConvexHull, ConvexShape, Cuboid, Cylinder, PlacedSupport, Rounded, SupportMap,
    Triangle,
};
use kollide_fuzz::{affine, float, small, vec3};
use libfuzzer_sys::fuzz_target;

/// A shape parameter: mostly in [1/8, 8]; now and then any float (then the case is not ordinary).
fn param(u: &mut Unstructured, ordinary: &mut bool) -> f32 {
    if u.ratio(1u8, 8).unwrap_or(false) {
        *ordinary = false;
        float(u)
    } else {
        u.int_in_range(1i32..=64).unwrap_or(8) as f32 / 8.0
    }
}

fn point(u: &mut Unstructured, ordinary: &mut bool) -> Vec3 {
    if u.ratio(1u8, 8).unwrap_or(false) {
        *ordinary = false;
        vec3(u, float)
    } else {
        vec3(u, small)
    }
}

fn convex(u: &mut Unstructured, ordinary: &mut bool) -> ConvexShape {
    let kind = u.int_in_range(0u8..=11).unwrap_or(0);
    let mut p = |u: &mut Unstructured| param(u, ordinary);
    let core: ConvexShape = match kind % 7 {
        0 => Ball::new(p(u)).into(),
        1 => Capsule::new(p(u), p(u)).into(),
        2 => Cuboid::new(Vec3::new(p(u), p(u), p(u))).into(),
        3 => Cylinder::new(p(u), p(u)).into(),
        4 => Cone::new(p(u), p(u)).into(),
        5 => Triangle::new(point(u, ordinary), point(u, ordinary), point(u, ordinary)).into(),
        _ => {
            let n = u.int_in_range(1usize..=10).unwrap_or(4);
            let points: Vec<Vec3> = (0..n).map(|_| point(u, ordinary)).collect();
            match ConvexHull::new(&points) {
                Ok(hull) => hull.into(),
                Err(_) => Ball::new(1.0).into(),
            }
        }
    };
    if kind < 7 {
        return core;
    }
    let radius = param(u, ordinary);
    match core {
        ConvexShape::Cuboid(s) => Rounded::new(s, radius).into(),
        ConvexShape::Cylinder(s) => Rounded::new(s, radius).into(),
        ConvexShape::Cone(s) => Rounded::new(s, radius).into(),
        ConvexShape::Triangle(s) => Rounded::new(s, radius).into(),
        ConvexShape::Hull(s) => Rounded::new(s, radius).into(),
        other => other,
    }
}

fn placement(u: &mut Unstructured, ordinary: &mut bool) -> Affine3A {
    if u.ratio(1u8, 4).unwrap_or(false) {
        *ordinary = false;
        return affine(u);
    }
    let axis = vec3(u, small).try_normalize().unwrap_or(Vec3::Z);
    let scale = Vec3::new(
        u.int_in_range(4u8..=16).unwrap_or(8) as f32 / 8.0,
        u.int_in_range(4u8..=16).unwrap_or(8) as f32 / 8.0,
        u.int_in_range(4u8..=16).unwrap_or(8) as f32 / 8.0,
    );
    Affine3A::from_scale_rotation_translation(scale, Quat::from_axis_angle(axis, small(u)), vec3(u, small))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let mut ordinary = true;
    let (a, b) = (convex(&mut u, &mut ordinary), convex(&mut u, &mut ordinary));
    let (ma, mb) = (placement(&mut u, &mut ordinary), placement(&mut u, &mut ordinary));
    let (sa, sb) = (Shape::Convex(a.clone()), Shape::Convex(b.clone()));

    let intersects = query::intersects(&sa, &ma, &sb, &mb);
    let distance = query::distance(&sa, &ma, &sb, &mb);
    let contact = query::contact(&sa, &ma, &sb, &mb, float(&mut u));
    let mut manifolds = Vec::new();
    let manifold = query::contact_manifolds(&sa, &ma, &sb, &mb, float(&mut u), &mut manifolds);
    let cast = query::cast_shape(&sa, &ma, &sb, &mb, vec3(&mut u, float), float(&mut u));
    let ray = kollide::math::Ray3::new(vec3(&mut u, float), vec3(&mut u, float));
    let _ = query::cast_ray(&sa, &ma, &ray, float(&mut u));
    let _ = query::project_point(&sb, &mb, vec3(&mut u, float));

    if !(ma.is_finite() && mb.is_finite()) {
        assert!(intersects.is_err(), "intersects with a non-finite placement: {intersects:?}");
        assert!(distance.is_err(), "distance with a non-finite placement: {distance:?}");
        assert!(contact.is_err(), "contact with a non-finite placement: {contact:?}");
        assert!(manifold.is_err(), "manifolds with a non-finite placement: {manifold:?}");
        assert!(cast.is_err(), "cast_shape with a non-finite placement: {cast:?}");
    }
    if !ordinary {
        return;
    }
    let intersects = intersects.expect("ordinary shapes and placements");
    let d = distance.expect("ordinary shapes and placements");
    let (ba, bb) = (a.aabb(&ma), b.aabb(&mb));
    let size = [ba.min, ba.max, bb.min, bb.max].iter().map(|v| v.abs().max_element()).fold(1.0, f32::max);
    let tol = 1e-4 * size;
    let context = format!("{a:?} at {ma:?}, {b:?} at {mb:?}: intersects {intersects}, distance {d}");
    assert!(!(intersects && d > tol), "{context}");
    let d_ba = query::distance(&sb, &mb, &sa, &ma).expect("ordinary shapes and placements");
    assert!((d - d_ba).abs() <= tol, "{context}; swapped distance {d_ba}");
    let (pa, pb) = (PlacedSupport::new(&a, &ma), PlacedSupport::new(&b, &mb));
    for i in 0..27 {
        let n = Vec3A::new((i % 3) as f32 - 1.0, ((i / 3) % 3) as f32 - 1.0, (i / 9) as f32 - 1.0);
        if n == Vec3A::ZERO {
            continue;
        }
        let (on_a, on_b) = (pa.support(n), pb.support(-n));
        assert!(d <= on_a.distance(on_b) + tol, "{context}; points {on_a} and {on_b}");
        let gap = (on_b.dot(n) - on_a.dot(n)) / n.length();
        assert!(d >= gap - tol, "{context}; gap {gap} along {n}");
    }
});
