//! The public 2D narrow phase (`kollide::narrow::{distance2, intersects2, contact2,
//! contact_manifold2, cast_ray2, cast_shape2, project_point2, contains_point2}` on
//! `ConvexShape2` under `Affine2`) and the 2D shapes' mass properties, against the `f64`
//! references of `kollide_testkit::reference_shape2`.
//!
//! Every ordered pair of the seven kinds (ball, capsule, box, segment, triangle, sharp and rounded
//! polygon; polygons of up to 12 vertices, so both the proxy path and the support-map path run)
//! is covered in turn, under rigid, similarity (uniform scale 0.2 to 5, reflections too) and
//! affine (per-axis scale, shear, reflection) placements, in five regimes: anywhere around each
//! other, touching within a small random signed gap (shallow overlaps and near misses), deep (B's
//! centre near A's, sometimes exactly on it), on a symmetry axis of A with aligned or
//! perpendicular axes, and far from the origin. The reference is exact where the placed discs
//! stay circles and the direction search over the placed support function otherwise (ellipses,
//! sheared capsules).
//!
//! Tolerance (see [`Case::tol`]): `1e-5` of the pair's size (GJK's and EPA's stated `1e-6`,
//! with room for the `f32` placement of the cores) plus `2e-6` of the coordinates.

use glam::{Affine2, Vec2};
use kollide::math::Ray2;
use kollide::narrow::{
    ContactManifold2, GjkCache2, cast_ray2, cast_shape2, contact_manifold2, contact2, contains_point2,
    distance2, intersects2, project_point2,
};
use kollide::shape::ConvexPolygon2;
use kollide_testkit::cases;
use kollide_testkit::random;
use kollide_testkit::reference_convex2::convex_hull2;
use kollide_testkit::reference_shape2::{PlacedShape2, placed_reach2};
use rand::Rng;

mod bad_input;
mod regressions;
mod support;

use support::{CLASSES, Case, Class, KINDS, Kind, placement, rng, shape};

#[test]
fn distance_and_intersects_match_the_reference() {
    let mut rng = rng(1);
    let (mut apart, mut overlapping, mut decided) = (0, 0, 0);
    let n = cases(14_000);
    let mut cache = GjkCache2::default();
    for i in 0..n {
        let c = Case::random(&mut rng, i);
        let d = distance2(&c.a, &c.ma, &c.b, &c.mb, &mut cache).unwrap() as f64;
        assert!((d - c.sd.max(0.0)).abs() <= c.tol, "{i}: distance {d} vs {} ({c:?})", c.sd);
        let hit = intersects2(&c.a, &c.ma, &c.b, &c.mb, &mut cache).unwrap();
        if c.sd.abs() > c.tol {
            assert_eq!(hit, c.sd <= 0.0, "{i}: intersects {hit}, signed distance {} ({c:?})", c.sd);
            decided += 1;
        }
        // A fresh cache gives the same answers.
        let fresh = distance2(&c.a, &c.ma, &c.b, &c.mb, &mut GjkCache2::default()).unwrap() as f64;
        assert!((fresh - d).abs() <= c.tol, "{i}: warm {d}, cold {fresh} ({c:?})");
        if c.sd > 0.0 { apart += 1 } else { overlapping += 1 }
    }
    assert!(apart > n / 5 && overlapping > n / 5 && decided > n * 3 / 4, "{apart} {overlapping} {decided}");
}

#[test]
fn contact_keeps_its_contract() {
    let mut rng = rng(2);
    let (mut some, mut deep) = (0, 0);
    let n = cases(14_000);
    let mut cache = GjkCache2::default();
    for i in 0..n {
        let c = Case::random(&mut rng, i);
        let prediction = c.prediction(&mut rng);
        let got = contact2(&c.a, &c.ma, &c.b, &c.mb, prediction, &mut cache).unwrap();
        let Some(contact) = got else {
            assert!(
                c.sd > prediction as f64 - c.tol,
                "{i}: no contact at {} within {prediction} ({c:?})",
                c.sd
            );
            continue;
        };
        some += 1;
        let sep = contact.separation as f64;
        assert!(sep <= prediction as f64, "{i}: {contact:?} beyond {prediction}");
        c.check_contact(&contact, &format!("{i}: {c:?} {contact:?}"));
        if c.sd < -c.tol {
            deep += 1;
        }
    }
    assert!(some > n / 2 && deep > n / 5, "{some} contacts, {deep} penetrating of {n}");
}

#[test]
fn manifolds_keep_their_contract_and_their_ids() {
    let mut rng = rng(3);
    let (mut two, mut stable, mut penetrating) = (0, 0, 0);
    let n = cases(14_000);
    let polygonal = cases(6_000);
    let mut cache = GjkCache2::default();
    for i in 0..n + polygonal {
        // Then the pairs of the proxies' separating-axis path: boxes, polygons, segments and
        // capsules under rigid maps and similarities.
        let c = if i < n {
            Case::random(&mut rng, i)
        } else {
            let kinds =
                [Kind::Cuboid, Kind::Polygon, Kind::Rounded, Kind::Triangle, Kind::Capsule, Kind::Segment];
            Case::random_of(&mut rng, i, &kinds, &[Class::Rigid, Class::Similarity])
        };
        let prediction = c.prediction(&mut rng).min(1e3);
        let mut m = ContactManifold2::default();
        contact_manifold2(&c.a, &c.ma, &c.b, &c.mb, prediction, &mut cache, &mut m).unwrap();
        let what = format!("{i}: prediction {prediction} {c:?} {m:?}");
        c.check_manifold(&m, prediction, &what);
        if c.sd <= prediction as f64 - c.tol {
            assert!(!m.is_empty(), "{what}: empty within the prediction");
        }
        two += usize::from(m.len() == 2);
        if c.sd < -c.tol && c.sd <= prediction as f64 - c.tol {
            penetrating += 1;
            let contact = contact2(&c.a, &c.ma, &c.b, &c.mb, f32::INFINITY, &mut cache).unwrap();
            let contact = contact.unwrap_or_else(|| panic!("{what}: no contact"));
            let deepest = m.deepest().unwrap().separation;
            assert!(
                (deepest - contact.separation).abs() as f64 <= c.tol + c.hysteresis(),
                "{what}: deepest {deepest}, contact {contact:?}"
            );
        }
        // A small motion of B keeps the features: the same ids for the same points (which move
        // little: the witness points of GJK on curved shapes are accurate only to about the
        // square root of its tolerance, a thousandth of the size).
        let nudge = random::point2(&mut rng, 1.0).normalize_or(Vec2::X) * (1e-5 * c.size) as f32;
        let mut moved_b = c.mb;
        moved_b.translation += nudge;
        let mut after = ContactManifold2::default();
        contact_manifold2(&c.a, &c.ma, &c.b, &moved_b, prediction, &mut cache, &mut after).unwrap();
        if m.len() == after.len() && !m.is_empty() && m.normal.dot(after.normal) > 1.0 - 1e-6 {
            let mut ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
            let mut ids_after: Vec<u32> = after.points().iter().map(|p| p.id).collect();
            ids.sort();
            ids_after.sort();
            assert_eq!(ids, ids_after, "{what}: after a nudge {nudge}: {after:?}");
            for p in after.points() {
                let q = m.points().iter().find(|q| q.id == p.id).unwrap();
                let moved = (p.point_b - q.point_b).length().max((p.point_a - q.point_a).length()) as f64;
                assert!(moved <= 1e-2 * c.size, "{what}: point {} jumped by {moved}: {after:?}", p.id);
            }
            stable += 1;
        }
    }
    assert!(two > n / 10 && stable > n / 4 && penetrating > n / 5, "{two} {stable} {penetrating}");
}

#[test]
fn ray_casts_match_the_reference() {
    let mut rng = rng(4);
    let (mut hits, mut compared) = (0, 0);
    let n = cases(12_000);
    for i in 0..n {
        let kind = KINDS[i % KINDS.len()];
        let class = CLASSES[(i / KINDS.len()) % CLASSES.len()];
        let shape = shape(&mut rng, kind);
        let center = random::point2(&mut rng, if i % 8 == 0 { 1e3 } else { 1.0 });
        let map = placement(&mut rng, class, center);
        let r = PlacedShape2::new(&shape, &map);
        let size = r.size().max(0.1);
        let tol = 1e-5 * size + 2e-6 * r.coordinates();
        let center = map.translation;
        let origin = center + random::point2(&mut rng, 3.0 * size as f32);
        let aim = center + random::point2(&mut rng, 1.2 * size as f32) - origin;
        let dir = aim * rng.random_range(0.2..2.0);
        let max_t = if rng.random_bool(0.1) { f32::INFINITY } else { rng.random_range(0.2..3.0) };
        let ray = Ray2::new(origin, dir);
        let hit = cast_ray2(&shape, &map, &ray, max_t).unwrap();
        let (o, d) = (origin.as_dvec2(), dir.as_dvec2());
        let limit = if max_t.is_finite() { max_t as f64 } else { 1e30 };
        let what = || format!("{i}: {shape:?} at {map:?}, {ray:?} to {max_t}: {hit:?}");
        // The dilated shape is hit whenever the shape is, the eroded one only if the shape is.
        let dilated = r.ray_offset(tol, o, d, limit);
        let eroded = r.ray_offset(-tol, o, d, limit);
        let Some(h) = hit else {
            assert!(eroded.is_none(), "{}: missed, eroded hit {eroded:?}", what());
            continue;
        };
        hits += 1;
        let t = h.t as f64;
        let near = dilated.unwrap_or_else(|| panic!("{}: hit, but the dilated shape is missed", what()));
        assert!(t >= near.0 - 1e-6 * (1.0 + t), "{}: hit before {near:?}", what());
        if let Some(deep) = eroded {
            assert!(t <= deep.0 + 1e-6 * (1.0 + t), "{}: hit after {deep:?}", what());
        }
        assert!(
            (h.normal.length() - 1.0).abs() < 1e-5 && h.normal.dot(dir) <= 1e-6 * dir.length(),
            "{}",
            what()
        );
        if h.t == 0.0 {
            assert!((h.normal + dir.normalize()).length() < 1e-5, "{}", what());
            continue;
        }
        let p = o + d * t;
        let n = h.normal.as_dvec2();
        assert!(r.support_value(n) - n.dot(p) <= 10.0 * tol, "{}: {n} is not the normal at {p}", what());
        if let Some((t_ref, n_ref)) = r.ray(o, d, limit)
            && t_ref > 0.0
            && -n_ref.dot(d.normalize()) > 0.2
        {
            assert!((t - t_ref).abs() * d.length() <= 10.0 * tol, "{}: t vs {t_ref}", what());
            compared += 1;
        }
    }
    assert!(hits > n / 4 && compared > n / 8, "{hits} hits, {compared} compared of {n}");
}

#[test]
fn point_projection_and_containment_match_the_reference() {
    let mut rng = rng(5);
    let (mut inside, mut outside) = (0, 0);
    let n = cases(12_000);
    for i in 0..n {
        let kind = KINDS[i % KINDS.len()];
        let class = CLASSES[(i / KINDS.len()) % CLASSES.len()];
        let shape = shape(&mut rng, kind);
        let center = random::point2(&mut rng, if i % 8 == 0 { 1e3 } else { 1.0 });
        let map = placement(&mut rng, class, center);
        let r = PlacedShape2::new(&shape, &map);
        let size = r.size().max(0.1);
        let tol = 1e-5 * size + 2e-6 * r.coordinates();
        let p = map.translation + random::point2(&mut rng, 1.5 * size as f32);
        let sd = r.signed_distance_to_point(p.as_dvec2());
        let proj = project_point2(&shape, &map, p).unwrap();
        let contains = contains_point2(&shape, &map, p).unwrap();
        let what = || format!("{i}: {shape:?} at {map:?}, {p}: {proj:?}, contains {contains}, sd {sd}");
        if sd.abs() <= tol {
            continue;
        }
        assert_eq!(proj.inside, sd < 0.0, "{}", what());
        assert_eq!(contains, sd < 0.0, "{}", what());
        if sd < 0.0 {
            assert_eq!(proj.point, p, "{}", what());
            inside += 1;
        } else {
            let q = proj.point.as_dvec2();
            assert!((q.distance(p.as_dvec2()) - sd).abs() <= tol, "{}", what());
            assert!(r.signed_distance_to_point(q).abs() <= tol, "{}: projection off the shape", what());
            outside += 1;
        }
    }
    assert!(inside > n / 10 && outside > n / 3, "{inside} inside, {outside} outside");
}

#[test]
fn shape_casts_match_bisection_of_the_reference_distance() {
    let mut rng = rng(6);
    let (mut hits, mut misses) = (0, 0);
    let n = cases(10_000);
    let mut cache = GjkCache2::default();
    for i in 0..n {
        let mut c = Case::random(&mut rng, i);
        // B starts away from A and moves toward a point near A's centre (some misses).
        let away = random::point2(&mut rng, 1.0).normalize_or(Vec2::X) * (2.5 * c.size.max(0.1)) as f32;
        c.mb.translation = c.ma.translation + away;
        c.rb = PlacedShape2::new(&c.b, &c.mb);
        let target = c.ma.translation + random::point2(&mut rng, 1.2 * c.size.max(0.1) as f32);
        let velocity = (target - c.mb.translation) * rng.random_range(0.3..1.5);
        let max_t = if rng.random_bool(0.1) { f32::INFINITY } else { rng.random_range(0.5..2.0) };
        let limit = if max_t.is_finite() { max_t as f64 } else { 1e6 };
        let v = velocity.as_dvec2();
        let near = placed_reach2(&c.ra, &c.rb, v, limit, c.tol);
        let deep = placed_reach2(&c.ra, &c.rb, v, limit, -c.tol);
        let hit = cast_shape2(&c.a, &c.ma, &c.b, &c.mb, velocity, max_t, &mut cache).unwrap();
        let what = format!("{i}: v {velocity} to {max_t}, {c:?}: {hit:?}, near {near:?}, deep {deep:?}");
        let tol_t = c.tol / velocity.length() as f64;
        let Some(hit) = hit else {
            assert!(deep.is_none(), "{what}: missed");
            misses += 1;
            continue;
        };
        hits += 1;
        let t = hit.t as f64;
        let near = near.unwrap_or_else(|| panic!("{what}: hit, never near"));
        assert!(t >= near - tol_t, "{what}: hit before the shapes are near");
        if let Some(deep) = deep {
            assert!(t <= deep + tol_t, "{what}: hit after the first contact");
        }
        // The contact then: touching, the contract of `contact2` at the moved placement.
        let moved = Case::new(
            c.a.clone(),
            c.ma,
            c.b.clone(),
            Affine2 { translation: c.mb.translation + velocity * hit.t, ..c.mb },
        );
        assert!(
            hit.t == 0.0 || moved.sd.abs() <= 2.0 * moved.tol,
            "{what}: distance {} at the hit",
            moved.sd
        );
        moved.check_contact(&hit.contact, &what);
    }
    assert!(hits > n / 4 && misses > n / 10, "{hits} hits, {misses} misses");
}

#[test]
fn mass_properties_match_a_boundary_integration() {
    let mut rng = rng(7);
    for i in 0..cases(2_000) {
        let kind = KINDS[i % KINDS.len()];
        let shape = shape(&mut rng, kind);
        let r = PlacedShape2::new(&shape, &Affine2::IDENTITY);
        let got = shape.mass_properties();
        let (area, center, inertia) = r.mass_by_boundary(1 << 14);
        let size = r.size();
        let what = format!("{i}: {shape:?}: {got:?} vs {area} {center} {inertia}");
        if area <= 1e-9 * size * size {
            assert!(got.is_none_or(|m| (m.area as f64) <= 1e-6 * size * size), "{what}");
            continue;
        }
        let m = got.unwrap_or_else(|| panic!("{what}: no mass properties"));
        assert!((m.area as f64 - area).abs() <= 1e-5 * area, "{what}: area");
        assert!((m.center.as_dvec2() - center).length() <= 1e-5 * size, "{what}: centre");
        assert!(
            (m.inertia as f64 - inertia).abs() <= 1e-5 * inertia.max(area * size * size * 1e-3),
            "{what}: inertia"
        );
    }
}

#[test]
fn polygons_are_the_exact_hull_of_their_points() {
    let mut rng = rng(8);
    for i in 0..cases(5_000) {
        let n = rng.random_range(1..16);
        let grid = rng.random_bool(0.3);
        let points: Vec<Vec2> = (0..n)
            .map(|_| {
                let p = random::point2(&mut rng, 2.0);
                if grid { (p * 2.0).round() * 0.5 } else { p }
            })
            .collect();
        let reference = convex_hull2(&points);
        match ConvexPolygon2::new(&points) {
            Ok(poly) => {
                // The same cycle (the starting vertex may differ).
                let v = poly.vertices();
                assert_eq!(v.len(), reference.len(), "{i}: {points:?}");
                let start = reference.iter().position(|p| *p == v[0]).unwrap();
                for k in 0..v.len() {
                    assert_eq!(v[k], reference[(start + k) % v.len()], "{i}: {points:?}");
                    let e = v[(k + 1) % v.len()] - v[k];
                    let expected = Vec2::new(e.y, -e.x).normalize();
                    assert!((poly.normals()[k] - expected).length() < 1e-6, "{i}");
                }
            }
            Err(_) => assert!(reference.len() < 3, "{i}: {points:?} refused, hull {reference:?}"),
        }
    }
}
