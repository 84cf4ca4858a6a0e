//! The country map as compounds: every valid polygon of the Natural Earth 1:110m map loads as
//! `Compound2::from_polygon` into a `Shape2`, and `query::contains_point2` and `query::cast_ray2`
//! agree with the references on the rings (winding numbers, ray/segment casts on every edge),
//! at the identity and under random placements.

use glam::{Affine2, Vec2};
use kollide::math::Ray2;
use kollide::primitive::d2::{ray_segment, winding_number};
use kollide::query::{self, Compound2, PolygonCompoundError, Shape2};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_primitive::distance_to_loop;
use kollide_testkit::topojson::{PolygonRings, countries_110m};
use rand::Rng;

use crate::support::{Class, linear};

/// One polygon of the map and its compound.
struct MapPolygon {
    country: usize,
    rings: PolygonRings,
    shape: Shape2,
    lo: Vec2,
    hi: Vec2,
}

/// The map's polygons as shapes; the two that are not simple polygons (Sudan's self-crossing
/// outer ring, North Korea's collapsed island: see `tests/polygons2d`) are refused.
fn map() -> (Vec<String>, Vec<MapPolygon>) {
    let countries = countries_110m();
    let mut out = Vec::new();
    let mut refused = Vec::new();
    for (c, country) in countries.iter().enumerate() {
        for (k, polygon) in country.polygons.iter().enumerate() {
            let (rings, _) = polygon.to_plane();
            let holes: Vec<&[Vec2]> = rings.holes.iter().map(Vec::as_slice).collect();
            match Compound2::from_polygon(&rings.outer, &holes) {
                Ok(compound) => {
                    let (lo, hi) = rings
                        .outer
                        .iter()
                        .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(l, h), &p| (l.min(p), h.max(p)));
                    out.push(MapPolygon { country: c, rings, shape: compound.into(), lo, hi });
                }
                Err(e) => refused.push((country.name.clone(), k, e)),
            }
        }
    }
    let names: Vec<(&str, usize)> = refused.iter().map(|(n, k, _)| (n.as_str(), *k)).collect();
    assert_eq!(names, [("Sudan", 0), ("North Korea", 0)], "{refused:?}");
    assert!(refused.iter().all(|(_, _, e)| matches!(e, PolygonCompoundError::Decompose(_))));
    assert_eq!(out.len(), 283);
    (countries.into_iter().map(|c| c.name).collect(), out)
}

fn inside_rings(p: Vec2, rings: &PolygonRings) -> bool {
    winding_number(p, &rings.outer) != 0 && rings.holes.iter().all(|h| winding_number(p, h) == 0)
}

fn distance_to_rings(p: Vec2, rings: &PolygonRings) -> f64 {
    rings.holes.iter().fold(distance_to_loop(p, &rings.outer), |d, h| d.min(distance_to_loop(p, h)))
}

/// The identity half of the time, else a random rigid, similarity or affine placement near the
/// map's scale.
fn placement(r: &mut TestRng) -> Affine2 {
    if r.random_bool(0.5) {
        return Affine2::IDENTITY;
    }
    let class = [Class::Rigid, Class::Similarity, Class::Affine][r.random_range(0..3)];
    Affine2::from_mat2_translation(linear(r, class), random::point2(r, 100.0))
}

/// Points uniform over the map's box, and near every ring edge (both sides of its midpoint, and
/// around its first vertex at `2e-4` to `1e-2` degrees); points within `1e-4` degrees of a ring
/// are not compared (the closed pieces and the rings' half-open winding rule differ there by
/// design, as in `tests/polygons2d`).
#[test]
fn points_in_country_compounds_equal_the_winding_reference() {
    let (names, polygons) = map();
    let mut r = crate::rng(40);
    let (lo, hi) =
        polygons.iter().fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(l, h), p| (l.min(p.lo), h.max(p.hi)));
    let mut points: Vec<(Vec2, Option<usize>)> = (0..cases(10_000))
        .map(|_| (Vec2::new(r.random_range(lo.x..hi.x), r.random_range(lo.y..hi.y)), None))
        .collect();
    for (i, p) in polygons.iter().enumerate() {
        for ring in std::iter::once(&p.rings.outer).chain(&p.rings.holes) {
            for k in 0..ring.len() {
                let (a, b) = (ring[k], ring[(k + 1) % ring.len()]);
                let normal = (b - a).perp().normalize_or_zero();
                let d = r.random_range(2e-4..1e-2);
                points.push(((a + b) * 0.5 + normal * d, Some(i)));
                points.push(((a + b) * 0.5 - normal * d, Some(i)));
                points.push((a + Vec2::from_angle(r.random_range(0.0..std::f32::consts::TAU)) * d, Some(i)));
            }
        }
    }
    let (mut inside, mut compared) = (0, 0);
    for &(point, only) in &points {
        let map = placement(&mut r);
        let world = map.transform_point2(point);
        let candidates: Vec<usize> = match only {
            Some(i) => vec![i],
            None => (0..polygons.len())
                .filter(|&i| {
                    point.cmpge(polygons[i].lo - 1e-3).all() && point.cmple(polygons[i].hi + 1e-3).all()
                })
                .collect(),
        };
        for i in candidates {
            let p = &polygons[i];
            if distance_to_rings(point, &p.rings) < 1e-4 {
                continue;
            }
            let expected = inside_rings(point, &p.rings);
            let got = query::contains_point2(&p.shape, &map, world).unwrap();
            assert_eq!(got, expected, "{point} (world {world} under {map:?}) in {}", names[p.country]);
            compared += 1;
            inside += usize::from(expected);
        }
    }
    println!("{} points, {compared} compared, {inside} inside", points.len());
    assert!(compared > cases(10_000) && inside > compared / 4);
}

/// Rays from around a polygon, half aimed at its edges: the first hit over the compound's pieces
/// against ray/segment casts on every ring edge (an origin inside hits at once).
#[test]
fn rays_into_country_compounds_equal_the_edge_reference() {
    let (names, polygons) = map();
    let mut r = crate::rng(41);
    let (mut hits, mut misses, mut inside, mut grazing) = (0, 0, 0, 0);
    let n = cases(10_000);
    for case in 0..n {
        let p = &polygons[r.random_range(0..polygons.len())];
        let pad = (p.hi - p.lo) * 0.2 + 0.5;
        let origin = Vec2::new(
            r.random_range(p.lo.x - pad.x..p.hi.x + pad.x),
            r.random_range(p.lo.y - pad.y..p.hi.y + pad.y),
        );
        let dir = if r.random_bool(0.5) {
            let ring = &p.rings.outer;
            let k = r.random_range(0..ring.len());
            let target = ring[k].lerp(ring[(k + 1) % ring.len()], r.random_range(0.0..1.0));
            (target - origin).normalize_or(Vec2::X)
        } else {
            Vec2::from_angle(r.random_range(0.0..std::f32::consts::TAU))
        };
        if distance_to_rings(origin, &p.rings) < 1e-4 {
            continue;
        }
        let map = placement(&mut r);
        let world = Ray2::new(map.transform_point2(origin), map.transform_vector2(dir));
        let max_t = 1000.0;
        let got = query::cast_ray2(&p.shape, &map, &world, max_t).unwrap().map(|h| h.t);
        let what = format!("case {case}: ray {origin} {dir} in {} under {map:?}: {got:?}", names[p.country]);
        if inside_rings(origin, &p.rings) {
            assert_eq!(got, Some(0.0), "{what}");
            inside += 1;
            continue;
        }
        let edges = std::iter::once(&p.rings.outer)
            .chain(&p.rings.holes)
            .flat_map(|ring| (0..ring.len()).map(move |k| (ring[k], ring[(k + 1) % ring.len()])));
        let local = Ray2::new(origin, dir);
        let expected =
            edges.filter_map(|(a, b)| ray_segment(&local, max_t, a, b)).min_by(|x, y| x.t.total_cmp(&y.t));
        // The placement's round trip moves the ray by a few ulps of the world coordinates (and
        // of the local ones), magnified along the ray by the incidence on the edge it hits.
        let placed = if map == Affine2::IDENTITY {
            0.0
        } else {
            let m = map.matrix2;
            let stretch = m.x_axis.length().max(m.y_axis.length()) / m.determinant().abs().sqrt();
            let coords = world.origin.abs().max_element() + map.translation.abs().max_element() + 200.0;
            1e-6 * coords * stretch * stretch
        };
        let tol = |b: &kollide::primitive::d2::RayHit2| {
            1e-4 * b.t.max(1.0) + placed / b.normal.dot(dir).abs().max(1e-3)
        };
        match (got, expected) {
            (None, None) => misses += 1,
            (Some(a), Some(b)) if (a - b.t).abs() <= tol(&b) => hits += 1,
            _ => {
                // A ray grazing a ring vertex (within 1e-4 degrees) may miss the pieces by
                // rounding while the closed edges catch it, or the other way round: counted.
                let reach = got.unwrap_or(0.0).max(expected.map_or(0.0, |h| h.t));
                let rings = std::iter::once(&p.rings.outer).chain(&p.rings.holes).flatten();
                let grazes = rings.into_iter().any(|&q| {
                    let t = (q - origin).dot(dir);
                    (0.0..=reach * 1.01 + 1e-3).contains(&t) && local.at(t).distance(q) < 1e-4
                });
                assert!(grazes, "{what}: expected {expected:?} (tolerance {placed})");
                grazing += 1;
            }
        }
    }
    println!("{hits} hits, {misses} misses, {inside} inside, {grazing} grazing");
    assert!(hits > n / 4 && inside > n / 20 && grazing <= n / 500, "{hits} {misses} {inside} {grazing}");
}
