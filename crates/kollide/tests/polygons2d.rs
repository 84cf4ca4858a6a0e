//! Convex decomposition of polygons with holes (`decompose_polygon2`), on the Natural Earth
//! country map and on random polygons: the pieces are strictly convex and counter-clockwise, they
//! tile the polygon (areas add up, interiors are pairwise disjoint, every ring vertex is covered),
//! and point containment and first ray hits over the pieces equal the references on the rings
//! (the winding number, ray/segment casts on every ring edge).

use glam::{I64Vec2, Vec2};
use kollide::math::Ray2;
use kollide::primitive::d2::{
    ConvexPieces2, DecomposeError, RingId, RingVertex, decompose_polygon2, point_in_convex_polygon,
    polygon_area2, ray_polygon, ray_segment, winding_number,
};
use kollide::primitive::orient2d;
use kollide_testkit::cases;
use kollide_testkit::random::{TestRng, rng};
use kollide_testkit::reference_primitive::{
    SegmentMeeting, distance_to_loop, on_loop_exact, segment_segment_exact,
};
use kollide_testkit::topojson::{PlaneFix, PolygonRings, countries_110m};
use rand::Rng;

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

/// Twice the signed area, in `f64` (the test's own shoelace).
fn twice_area(ring: &[Vec2]) -> f64 {
    let n = ring.len();
    (0..n).map(|i| ring[i].as_dvec2().perp_dot(ring[(i + 1) % n].as_dvec2())).sum()
}

/// The area of the polygon: outer ring less the holes, either winding.
fn polygon_area(outer: &[Vec2], holes: &[Vec<Vec2>]) -> f64 {
    0.5 * (twice_area(outer).abs() - holes.iter().map(|h| twice_area(h).abs()).sum::<f64>())
}

fn decompose(outer: &[Vec2], holes: &[Vec<Vec2>]) -> Result<ConvexPieces2, DecomposeError> {
    let holes: Vec<&[Vec2]> = holes.iter().map(Vec::as_slice).collect();
    decompose_polygon2(outer, &holes)
}

/// The reference: inside the outer ring and inside no hole, by winding numbers.
fn inside_rings(p: Vec2, outer: &[Vec2], holes: &[Vec<Vec2>]) -> bool {
    winding_number(p, outer) != 0 && holes.iter().all(|h| winding_number(p, h) == 0)
}

fn distance_to_rings(p: Vec2, outer: &[Vec2], holes: &[Vec<Vec2>]) -> f64 {
    holes.iter().fold(distance_to_loop(p, outer), |d, h| d.min(distance_to_loop(p, h)))
}

/// In some closed piece.
fn in_pieces(p: Vec2, pieces: &ConvexPieces2) -> bool {
    pieces.iter().any(|piece| point_in_convex_polygon(p, piece))
}

/// The number of pieces with `p` strictly inside (left of every edge, exactly): at most one where
/// the pieces do not overlap.
fn pieces_around(p: Vec2, pieces: &ConvexPieces2) -> usize {
    let inside =
        |piece: &[Vec2]| (0..piece.len()).all(|k| orient2d(piece[k], piece[(k + 1) % piece.len()], p) > 0);
    pieces.iter().filter(|piece| inside(piece)).count()
}

fn bounds(points: impl IntoIterator<Item = Vec2>) -> (Vec2, Vec2) {
    points.into_iter().fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), p| (lo.min(p), hi.max(p)))
}

/// Whether an edge line of convex `a` has all of `b` on its outer side or on it: by the separating
/// axis theorem for convex polygons, `a` and `b` have disjoint interiors exactly when this holds
/// for `(a, b)` or `(b, a)`.
fn separated_by_an_edge_of(a: &[Vec2], b: &[Vec2]) -> bool {
    (0..a.len()).any(|i| {
        let (p, q) = (a[i], a[(i + 1) % a.len()]);
        b.iter().all(|&x| orient2d(p, q, x) <= 0)
    })
}

/// Asserts that `pieces` tile the polygon: every piece strictly convex and counter-clockwise
/// (exact turns, winding once), the areas summing to the polygon's within 1e-4 relative, the
/// interiors pairwise disjoint (exact separating edges), and every vertex of `covered` in some
/// closed piece.
fn assert_tiles(pieces: &ConvexPieces2, outer: &[Vec2], holes: &[Vec<Vec2>], covered: &[Vec2], what: &str) {
    let mut total = 0.0;
    for (i, piece) in pieces.iter().enumerate() {
        let n = piece.len();
        assert!(n >= 3, "{what}: piece {i} has {n} vertices");
        for k in 0..n {
            let turn = orient2d(piece[k], piece[(k + 1) % n], piece[(k + 2) % n]);
            assert_eq!(turn, 1, "{what}: piece {i} turns {turn} at vertex {}: {piece:?}", (k + 1) % n);
        }
        // All left turns and a total turn of one full circle: convex, and wound once.
        let turning: f64 = (0..n)
            .map(|k| {
                let (a, b, c) =
                    (piece[k].as_dvec2(), piece[(k + 1) % n].as_dvec2(), piece[(k + 2) % n].as_dvec2());
                let (e, f) = (b - a, c - b);
                e.perp_dot(f).atan2(e.dot(f))
            })
            .sum();
        assert!((turning - std::f64::consts::TAU).abs() < 1e-6, "{what}: piece {i} turns {turning}");
        total += 0.5 * twice_area(piece);
    }
    let want = polygon_area(outer, holes);
    assert!((total - want).abs() <= 1e-4 * want, "{what}: pieces' area {total}, polygon {want}");
    let boxes: Vec<(Vec2, Vec2)> = pieces.iter().map(|p| bounds(p.iter().copied())).collect();
    for i in 0..pieces.len() {
        for j in i + 1..pieces.len() {
            let ((alo, ahi), (blo, bhi)) = (boxes[i], boxes[j]);
            if ahi.cmplt(blo).any() || bhi.cmplt(alo).any() {
                continue;
            }
            let (a, b) = (pieces.piece(i), pieces.piece(j));
            assert!(
                separated_by_an_edge_of(a, b) || separated_by_an_edge_of(b, a),
                "{what}: pieces {i} and {j} overlap: {a:?} {b:?}"
            );
        }
    }
    for &p in covered {
        assert!(in_pieces(p, pieces), "{what}: ring vertex {p} is in no piece: {outer:?} {holes:?}");
    }
    // Hertel–Mehlhorn leaves only essential diagonals, at most two per reflex vertex.
    let r = reflex_vertices(outer, holes);
    assert!(pieces.len() <= 2 * r + 1, "{what}: {} pieces for {r} reflex vertices", pieces.len());
}

/// The vertices where the polygon's interior angle exceeds 180°: right turns of the outer ring
/// and left turns of the holes, both taken counter-clockwise, once the vertices that do not turn
/// are gone.
fn reflex_vertices(outer: &[Vec2], holes: &[Vec<Vec2>]) -> usize {
    let count = |ring: &[Vec2], sign: i32| {
        // Without repeats, straight vertices and spikes (vertices that do not turn), one at a time.
        let mut ring = ring.to_vec();
        let turn =
            |r: &[Vec2], k: usize| orient2d(r[(k + r.len() - 1) % r.len()], r[k], r[(k + 1) % r.len()]);
        while let Some(k) = (0..ring.len()).find(|&k| ring.len() >= 3 && turn(&ring, k) == 0) {
            ring.remove(k);
        }
        let n = ring.len();
        let s = sign * twice_area(&ring).signum() as i32;
        (0..n).filter(|&k| orient2d(ring[(k + n - 1) % n], ring[k], ring[(k + 1) % n]) * s < 0).count()
    };
    count(outer, 1) + holes.iter().map(|h| count(h, -1)).sum::<usize>()
}

// ---------------------------------------------------------------------------------------------
// The country map
// ---------------------------------------------------------------------------------------------

/// The polygons of the map that are not simple polygons of the plane, with the decomposition's
/// answer and the reason (checked independently in `the_invalid_polygons_are_invalid`).
const INVALID: [(&str, usize, &str); 2] = [
    ("Sudan", 0, "its outer ring crosses itself twice (near 23.9°E 8.6°N and 34.0°E 9.5°N)"),
    ("North Korea", 0, "a small island collapsed by the 1:110m quantization: 3 equal vertices"),
];

/// The polygons that `to_plane` changes: three cross the antimeridian, Antarctica's ring goes
/// around the south pole.
const MOVED: [(&str, usize, PlaneFix); 4] = [
    ("Fiji", 1, PlaneFix::Unwrapped),
    ("Russia", 9, PlaneFix::Unwrapped),
    ("Russia", 10, PlaneFix::Unwrapped),
    ("Antarctica", 7, PlaneFix::ClosedThroughPole),
];

/// One decomposed polygon of the map.
struct MapPolygon {
    country: usize,
    rings: PolygonRings,
    pieces: ConvexPieces2,
    lo: Vec2,
    hi: Vec2,
}

/// The map's polygons in the plane and their pieces; the invalid ones (see [`INVALID`]) are
/// asserted to fail as expected and left out.
fn map_polygons() -> (Vec<String>, Vec<MapPolygon>) {
    let countries = countries_110m();
    let mut out = Vec::new();
    let mut moved = Vec::new();
    let mut invalid = Vec::new();
    for (c, country) in countries.iter().enumerate() {
        for (k, polygon) in country.polygons.iter().enumerate() {
            let (rings, fix) = polygon.to_plane();
            if fix != PlaneFix::Unchanged {
                moved.push((country.name.as_str(), k, fix));
            }
            match decompose(&rings.outer, &rings.holes) {
                Ok(pieces) => {
                    let (lo, hi) = bounds(rings.outer.iter().copied());
                    out.push(MapPolygon { country: c, rings, pieces, lo, hi });
                }
                Err(e) => invalid.push((country.name.as_str(), k, e)),
            }
        }
    }
    assert_eq!(moved, MOVED);
    let names: Vec<(&str, usize)> = invalid.iter().map(|&(name, k, _)| (name, k)).collect();
    assert_eq!(names, INVALID.map(|(name, k, _)| (name, k)), "polygons that fail: {invalid:?}");
    let outer = |edge| RingVertex { ring: RingId::Outer, index: edge };
    assert_eq!(invalid[0].2, DecomposeError::SelfIntersection(outer(0), outer(78)), "{}", INVALID[0].2);
    assert_eq!(invalid[1].2, DecomposeError::TooFewVertices, "{}", INVALID[1].2);
    (countries.into_iter().map(|c| c.name).collect(), out)
}

/// An `f32` point times 2^24, as integers (asserting that this is exact).
fn exact_integer(p: Vec2) -> I64Vec2 {
    let q = p.as_dvec2() * 16_777_216.0;
    assert_eq!(q, q.round(), "{p} is not a multiple of 2^-24");
    q.as_i64vec2()
}

#[test]
fn the_invalid_polygons_are_invalid() {
    let countries = countries_110m();
    let find = |name: &str, k: usize| {
        let country = countries.iter().find(|c| c.name == name).unwrap();
        country.polygons[k].clone()
    };
    // Sudan: edges 0 and 78, and 46 and 48, cross at a point inside both (exact integer test).
    let sudan = find("Sudan", 0).outer;
    let n = sudan.len();
    for (i, j) in [(0, 78), (46, 48)] {
        let [a0, a1, b0, b1] =
            [sudan[i], sudan[(i + 1) % n], sudan[j], sudan[(j + 1) % n]].map(exact_integer);
        let SegmentMeeting::Point(x) = segment_segment_exact(a0, a1, b0, b1) else {
            panic!("Sudan edges {i} and {j} do not meet")
        };
        let ends = [a0, a1, b0, b1].map(|p| p.as_dvec2());
        assert!(ends.iter().all(|&e| e != x), "Sudan edges {i} and {j} only touch");
        println!("Sudan: edges {i} and {j} cross at {}", x / 16_777_216.0);
    }
    // North Korea's second polygon is one point, listed three times.
    let island = find("North Korea", 0).outer;
    assert_eq!(island.len(), 3);
    assert!(island.iter().all(|&p| p == island[0]), "{island:?}");
}

#[test]
fn every_country_polygon_decomposes_into_a_tiling() {
    let (_, polygons) = map_polygons();
    assert_eq!(polygons.len(), 285 - INVALID.len());
    let (mut pieces, mut vertices) = (0, 0);
    for (i, p) in polygons.iter().enumerate() {
        let rings = &p.rings;
        let covered: Vec<Vec2> = rings.outer.iter().chain(rings.holes.iter().flatten()).copied().collect();
        assert_tiles(&p.pieces, &rings.outer, &rings.holes, &covered, &format!("map polygon {i}"));
        pieces += p.pieces.len();
        vertices += covered.len();
    }
    println!("{} polygons, {vertices} vertices: {pieces} convex pieces", polygons.len());
}

/// Sample points: uniform over the map's box, plus for every ring edge a point on each side of
/// its midpoint and a point in a random direction from its first vertex, at distances in
/// `[2e-4, 1e-2]` degrees. (The vertices themselves are on the boundary; that each lies in a
/// piece is checked by `every_country_polygon_decomposes_into_a_tiling`.)
#[test]
fn points_in_countries_equal_the_winding_reference() {
    let (names, polygons) = map_polygons();
    let mut r = rng(0x2525_0001);
    let (lo, hi) =
        polygons.iter().fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(l, h), p| (l.min(p.lo), h.max(p.hi)));
    let mut points: Vec<(Vec2, Option<usize>)> = (0..cases(10_000))
        .map(|_| (v(r.random_range(lo.x..hi.x), r.random_range(lo.y..hi.y)), None))
        .collect();
    for p in &polygons {
        for ring in std::iter::once(&p.rings.outer).chain(&p.rings.holes) {
            for i in 0..ring.len() {
                let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
                let normal = (b - a).perp().normalize_or_zero();
                let d = r.random_range(2e-4..1e-2);
                points.push(((a + b) * 0.5 + normal * d, Some(p.country)));
                points.push(((a + b) * 0.5 - normal * d, Some(p.country)));
                let away = Vec2::from_angle(r.random_range(0.0..std::f32::consts::TAU));
                points.push((a + away * r.random_range(2e-4..1e-2), Some(p.country)));
            }
        }
    }
    let (mut inside, mut near_edge) = (0, 0);
    for &(point, only) in &points {
        for (c, name) in names.iter().enumerate() {
            if only.is_some_and(|o| o != c) {
                continue;
            }
            let country = polygons.iter().filter(|p| p.country == c);
            let mut near = false;
            let (mut by_pieces, mut by_rings) = (false, false);
            for p in country.filter(|p| point.cmpge(p.lo - 1e-3).all() && point.cmple(p.hi + 1e-3).all()) {
                // Points within 1e-4 degrees of a ring edge are not compared: the rings' half-open
                // winding rule and the closed pieces disagree on the boundary by design (and the
                // diagonals between pieces make "which piece" ambiguous there).
                near |= distance_to_rings(point, &p.rings.outer, &p.rings.holes) < 1e-4;
                by_pieces |= in_pieces(point, &p.pieces);
                assert!(pieces_around(point, &p.pieces) <= 1, "{point} in two pieces of {name}");
                by_rings |= inside_rings(point, &p.rings.outer, &p.rings.holes);
            }
            if near {
                near_edge += 1;
                continue;
            }
            assert_eq!(by_pieces, by_rings, "{point} in {name}");
            inside += usize::from(by_rings);
        }
    }
    println!(
        "{} points: {inside} inside a country, {near_edge} (point, country) pairs near an edge",
        points.len()
    );
    assert!(inside > points.len() / 4);
}

/// The first hit of a ray over a country's pieces, and over its ring edges (the reference).
fn first_hits(ray: &Ray2, polygons: &[&MapPolygon]) -> (Option<f32>, Option<f32>) {
    let max_t = 1000.0;
    let min = |a: Option<f32>, b: Option<f32>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    let (mut by_pieces, mut by_edges) = (None, None);
    for p in polygons {
        for piece in p.pieces.iter() {
            by_pieces = min(by_pieces, ray_polygon(ray, max_t, piece).map(|h| h.t));
        }
        for ring in std::iter::once(&p.rings.outer).chain(&p.rings.holes) {
            for i in 0..ring.len() {
                let hit = ray_segment(ray, max_t, ring[i], ring[(i + 1) % ring.len()]);
                by_edges = min(by_edges, hit.map(|h| h.t));
            }
        }
    }
    (by_pieces, by_edges)
}

#[test]
fn rays_into_countries_equal_the_edge_reference() {
    let (names, polygons) = map_polygons();
    let mut r = rng(0x2525_0002);
    let (mut hits, mut misses, mut grazing, mut inside) = (0, 0, 0, 0);
    for case in 0..cases(10_000) {
        let c = polygons[r.random_range(0..polygons.len())].country;
        let country: Vec<&MapPolygon> = polygons.iter().filter(|p| p.country == c).collect();
        let (lo, hi) =
            country.iter().fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(l, h), p| (l.min(p.lo), h.max(p.hi)));
        let pad = (hi - lo) * 0.2 + 0.5;
        let origin =
            v(r.random_range(lo.x - pad.x..hi.x + pad.x), r.random_range(lo.y - pad.y..hi.y + pad.y));
        // Half the rays aim at a random point of a random edge of the country, half anywhere.
        let dir = if r.random_bool(0.5) {
            let ring = &country[r.random_range(0..country.len())].rings.outer;
            let i = r.random_range(0..ring.len());
            let target = ring[i].lerp(ring[(i + 1) % ring.len()], r.random_range(0.0..1.0));
            (target - origin).normalize_or(Vec2::X)
        } else {
            Vec2::from_angle(r.random_range(0.0..std::f32::consts::TAU))
        };
        let ray = Ray2::new(origin, dir);
        let in_rings = country.iter().any(|p| inside_rings(origin, &p.rings.outer, &p.rings.holes));
        let near = country.iter().any(|p| distance_to_rings(origin, &p.rings.outer, &p.rings.holes) < 1e-4);
        let (by_pieces, by_edges) = first_hits(&ray, &country);
        let what = format!("case {case}: ray {ray:?} at {}", names[c]);
        if near {
            continue;
        }
        if in_rings {
            // The origin is inside a piece: a hit at once.
            assert_eq!(by_pieces, Some(0.0), "{what}");
            inside += 1;
            continue;
        }
        match (by_pieces, by_edges) {
            (None, None) => misses += 1,
            (Some(a), Some(b)) if (a - b).abs() <= 1e-4 * b.max(1.0) => hits += 1,
            _ => {
                // A ray that grazes a ring vertex (passes within 1e-4 degrees of it) can miss
                // the pieces there by rounding while the closed segments catch it, or the other
                // way round; and where it runs nearly along an edge into that vertex, the edge's
                // own hit parameter is ill-conditioned. Counted, not failed.
                let reach = by_pieces.unwrap_or(0.0).max(by_edges.unwrap_or(0.0));
                let rings =
                    country.iter().flat_map(|p| p.rings.outer.iter().chain(p.rings.holes.iter().flatten()));
                let grazes = rings.into_iter().any(|&q| {
                    let t = (q - origin).dot(ray.dir);
                    (0.0..=reach * 1.01 + 1e-3).contains(&t) && ray.at(t).distance(q) < 1e-4
                });
                assert!(grazes, "{what}: pieces {by_pieces:?}, edges {by_edges:?}");
                grazing += 1;
            }
        }
    }
    println!("{hits} hits and {misses} misses agree, {inside} origins inside, {grazing} grazing rays");
    assert!(hits > cases(10_000) / 4 && inside > cases(10_000) / 10);
    assert!(grazing <= cases(10_000) / 1000, "{grazing} grazing rays");
}

// ---------------------------------------------------------------------------------------------
// Random and hand-made polygons
// ---------------------------------------------------------------------------------------------

/// Decomposes the polygon (which must succeed), asserts the tiling, and compares `samples` random
/// points of its box and a point on each side of every edge with the winding reference (points
/// within 1e-4 of the box size from a ring edge are not compared: the boundary is ambiguous, see
/// `points_in_countries_equal_the_winding_reference`); no point is strictly inside two pieces.
/// Returns the number of pieces.
fn check_polygon(
    outer: &[Vec2],
    holes: &[Vec<Vec2>],
    covered: &[Vec2],
    r: &mut TestRng,
    samples: usize,
    what: &str,
) -> usize {
    let pieces = decompose(outer, holes).unwrap_or_else(|e| panic!("{what}: {e}: {outer:?} {holes:?}"));
    assert_tiles(&pieces, outer, holes, covered, what);
    let (lo, hi) = bounds(outer.iter().copied());
    let size = (hi - lo).length();
    let mut points: Vec<Vec2> =
        (0..samples).map(|_| v(r.random_range(lo.x..=hi.x), r.random_range(lo.y..=hi.y))).collect();
    for ring in std::iter::once(outer).chain(holes.iter().map(Vec::as_slice)) {
        for i in 0..ring.len() {
            let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
            let offset = (b - a).perp().normalize_or_zero() * size * r.random_range(1e-3..3e-2);
            points.extend([(a + b) * 0.5 + offset, (a + b) * 0.5 - offset]);
        }
    }
    for p in points {
        assert!(pieces_around(p, &pieces) <= 1, "{what}: {p} in two pieces");
        if distance_to_rings(p, outer, holes) >= 1e-4 * f64::from(size) {
            assert_eq!(in_pieces(p, &pieces), inside_rings(p, outer, holes), "{what}: point {p}");
        }
    }
    pieces.len()
}

/// Exact angular order around the origin (from +x, counter-clockwise) of non-zero integer points.
fn angle_cmp(p: &I64Vec2, q: &I64Vec2) -> std::cmp::Ordering {
    let half = |v: &I64Vec2| v.y < 0 || (v.y == 0 && v.x < 0);
    half(p).cmp(&half(q)).then_with(|| 0.cmp(&p.perp_dot(*q)))
}

/// A simple ring on the integer grid, star-shaped around `center`: a point in each open quadrant
/// (so consecutive vertices are less than π apart around the center) and `extra` more, at
/// distances in `[near, far)`, sorted by exact angle, one per direction, counter-clockwise.
fn star_ring(r: &mut TestRng, center: I64Vec2, near: f64, far: f64, extra: usize) -> Vec<I64Vec2> {
    let mut points: Vec<I64Vec2> = (0..4 + extra)
        .map(|k| {
            let quadrant = k < 4;
            let turn = if quadrant {
                (k as f64 + r.random_range(0.05..0.95)) / 4.0
            } else {
                r.random_range(0.0..1.0)
            };
            let (sin, cos) = (turn * std::f64::consts::TAU).sin_cos();
            let radius = r.random_range(near..far);
            let mut p = I64Vec2::new((radius * cos).round() as i64, (radius * sin).round() as i64);
            if quadrant {
                // Keep the quadrant point strictly inside its quadrant after rounding.
                let sign = I64Vec2::new(if cos < 0.0 { -1 } else { 1 }, if sin < 0.0 { -1 } else { 1 });
                p = p.abs().max(I64Vec2::ONE) * sign;
            }
            p
        })
        .filter(|&p| p != I64Vec2::ZERO)
        .collect();
    points.sort_by(angle_cmp);
    points.dedup_by(|a, b| a.perp_dot(*b) == 0 && a.dot(*b) > 0);
    points.into_iter().map(|p| p + center).collect()
}

/// Distance from `c` to the nearest edge of `ring`: for a ring star-shaped around `c`, the disc of
/// this radius lies inside it.
fn inner_radius(ring: &[I64Vec2], c: I64Vec2) -> f64 {
    let as_f32 = |p: &I64Vec2| (*p - c).as_vec2();
    distance_to_loop(Vec2::ZERO, &ring.iter().map(as_f32).collect::<Vec<_>>())
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

/// Repeated vertices and vertices exactly on an edge (integer points of the segment).
fn decorate(r: &mut TestRng, ring: &mut Vec<I64Vec2>) {
    if r.random_bool(0.3) {
        let i = r.random_range(0..ring.len());
        ring.insert(i, ring[i]);
    }
    for _ in 0..r.random_range(0..3) {
        let i = r.random_range(0..ring.len());
        let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
        let g = gcd((b - a).x, (b - a).y);
        if g >= 2 {
            ring.insert(i + 1, a + (b - a) / g * r.random_range(1..g));
        }
    }
}

/// Whether the integer rings form a valid polygon with holes, exactly: no two edges cross at a
/// point interior to both, no hole edge runs outside the outer ring, and no edge runs inside a
/// hole. With no crossings, the points where another ring's boundary meets an edge (its end
/// points and that ring's vertices on it) cut the edge into parts that each lie wholly inside or
/// outside that ring; their midpoints decide (half-integers: exact once every coordinate is
/// doubled).
fn valid(outer: &[I64Vec2], holes: &[Vec<I64Vec2>]) -> bool {
    let rings: Vec<&[I64Vec2]> = std::iter::once(outer).chain(holes.iter().map(Vec::as_slice)).collect();
    let edges =
        |ring: &[I64Vec2]| (0..ring.len()).map(|i| (ring[i], ring[(i + 1) % ring.len()])).collect::<Vec<_>>();
    let all: Vec<(I64Vec2, I64Vec2)> = rings.iter().flat_map(|ring| edges(ring)).collect();
    for (i, &(a, b)) in all.iter().enumerate() {
        for &(c, d) in &all[i + 1..] {
            if let SegmentMeeting::Point(x) = segment_segment_exact(a, b, c, d) {
                let end = |p: I64Vec2| p.as_dvec2() == x;
                if !(end(a) || end(b) || end(c) || end(d)) {
                    return false;
                }
            }
        }
    }
    let on_segment = |x: I64Vec2, a: I64Vec2, b: I64Vec2| {
        (b - a).perp_dot(x - a) == 0 && (0..=(b - a).length_squared()).contains(&(x - a).dot(b - a))
    };
    for (i, ring) in rings.iter().enumerate() {
        for (j, other) in rings.iter().enumerate().filter(|&(j, _)| j != i) {
            let doubled: Vec<I64Vec2> = other.iter().map(|&p| p * 2).collect();
            let doubled_f: Vec<Vec2> = doubled.iter().map(|p| p.as_vec2()).collect();
            for (a, b) in edges(ring) {
                let mut cuts: Vec<I64Vec2> = other.iter().copied().filter(|&x| on_segment(x, a, b)).collect();
                cuts.extend([a, b]);
                cuts.sort_by_key(|&x| (x - a).dot(b - a));
                cuts.dedup();
                for w in cuts.windows(2) {
                    let mid = w[0] + w[1];
                    if on_loop_exact(mid, &doubled) {
                        continue;
                    }
                    let inside = winding_number(mid.as_vec2(), &doubled_f) != 0;
                    // The outer ring (j = 0) must hold every hole edge; a hole no edge.
                    if inside != (j == 0) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// A random polygon with holes on the integer grid, and the vertices that must be covered (all
/// but the tips of outward spikes and the vertices where rings touch).
fn random_polygon(r: &mut TestRng) -> (Vec<I64Vec2>, Vec<Vec<I64Vec2>>, Vec<I64Vec2>) {
    let c = I64Vec2::new(r.random_range(-2000..2000), r.random_range(-2000..2000));
    let extra = if r.random_bool(0.1) { r.random_range(20..120) } else { r.random_range(0..16) };
    let mut outer = star_ring(r, c, 200.0, 1000.0, extra);
    let inner = inner_radius(&outer, c) * 0.9;
    // Holes: star rings inside disjoint discs within the inner disc.
    let mut discs: Vec<(I64Vec2, f64)> = Vec::new();
    for _ in 0..r.random_range(0..6) {
        let radius = r.random_range(10.0..(inner * 0.4).max(11.0));
        let offset = Vec2::from_angle(r.random_range(0.0..std::f32::consts::TAU)) * r.random_range(0.0..1.0);
        let center = c + (offset.as_dvec2() * (inner - radius).max(0.0)).round().as_i64vec2();
        let fits = (center - c).as_dvec2().length() + radius < inner;
        if fits && discs.iter().all(|&(o, s)| (o - center).as_dvec2().length() > s + radius + 1.0) {
            discs.push((center, radius));
        }
    }
    let mut holes: Vec<Vec<I64Vec2>> = discs
        .iter()
        .map(|&(o, s)| {
            let extra = r.random_range(0..8);
            star_ring(r, o, s * 0.3, s - 1.0, extra)
        })
        .collect();
    // Touching: a hole with a corner at an outer vertex, or on an outer edge, or at another
    // hole's vertex; kept only when the polygon stays valid.
    if r.random_bool(0.3) {
        let n = outer.len();
        let i = r.random_range(0..n);
        let (u, p, w) = (outer[(i + n - 1) % n], outer[i], outer[(i + 1) % n]);
        let at = |a: f64, b: f64, q: I64Vec2| {
            p + ((c - p).as_dvec2() * a + (q - p).as_dvec2() * b).round().as_i64vec2()
        };
        let g = gcd((w - p).x, (w - p).y);
        let hole = match r.random_range(0..3) {
            0 => vec![p, at(0.3, 0.2, u), at(0.3, 0.2, w)],
            1 if g >= 2 => vec![p, p + (w - p) / g, at(0.3, 0.2, w)],
            _ if !holes.is_empty() => {
                let h = &holes[r.random_range(0..holes.len())];
                let q = h[r.random_range(0..h.len())];
                let out = q - c;
                vec![q, q + out / 3 + out.perp() / 5, q + out / 3 - out.perp() / 5]
            }
            _ => vec![p, at(0.3, 0.2, u), at(0.3, 0.2, w)],
        };
        holes.push(hole);
        if !valid(&outer, &holes) {
            holes.pop();
        }
    }
    // Every vertex is covered by a piece, except where rings touch: two holes sharing a stretch
    // of edge leave a wall of zero width, which no piece covers.
    let rings: Vec<&[I64Vec2]> = std::iter::once(&outer).chain(&holes).map(Vec::as_slice).collect();
    let mut covered: Vec<I64Vec2> = rings
        .iter()
        .enumerate()
        .flat_map(|(i, ring)| ring.iter().map(move |&p| (i, p)))
        .filter(|&(i, p)| rings.iter().enumerate().all(|(j, other)| j == i || !on_loop_exact(p, other)))
        .map(|(_, p)| p)
        .collect();
    decorate(r, &mut outer);
    for hole in &mut holes {
        decorate(r, hole);
    }
    // Spikes: out of the polygon (tip not covered) or into it (a crack, tip covered).
    let i = r.random_range(0..outer.len());
    let a = outer[i];
    // Exactly along the line from the center: beyond `a` it is outside the star-shaped ring,
    // within a sixteenth of the way to the center inside it and clear of the holes' discs.
    let g = gcd((c - a).x, (c - a).y);
    let step = (c - a) / g;
    if r.random_bool(0.1) {
        outer.splice(i + 1..i + 1, [a - step * (g / 4).max(1), a]);
    } else if r.random_bool(0.1) && g >= 16 {
        let tip = a + step * (g / 16);
        outer.splice(i + 1..i + 1, [tip, a]);
        // Unless it runs into a hole that touches the outer ring at `a`.
        let f = |ring: &[I64Vec2]| ring.iter().map(|p| p.as_vec2()).collect::<Vec<_>>();
        if holes.iter().all(|h| winding_number(tip.as_vec2(), &f(h)) == 0) {
            covered.push(tip);
        }
    }
    // Either winding, any starting vertex.
    for ring in std::iter::once(&mut outer).chain(holes.iter_mut()) {
        if r.random_bool(0.5) {
            ring.reverse();
        }
        let k = r.random_range(0..ring.len());
        ring.rotate_left(k);
    }
    (outer, holes, covered)
}

#[test]
fn random_polygons_with_holes_decompose_into_tilings() {
    let mut r = rng(0x2525_0003);
    let (mut pieces, mut vertices, mut holes_seen, mut touching) = (0, 0, 0, 0);
    for case in 0..cases(10_000) {
        let (outer, holes, covered) = random_polygon(&mut r);
        let rings: Vec<&[I64Vec2]> = std::iter::once(&outer).chain(&holes).map(Vec::as_slice).collect();
        let touches = holes.iter().enumerate().any(|(k, hole)| {
            let others = rings.iter().enumerate().filter(|&(j, _)| j != k + 1);
            others.into_iter().any(|(_, ring)| hole.iter().any(|&p| on_loop_exact(p, ring)))
        });
        touching += usize::from(touches);
        // Exact scaling by a power of two and an exact shift keep every coordinate an f32 integer
        // multiple of the scale.
        let scale = (2.0f32).powi(r.random_range(-12..=2));
        let shift = I64Vec2::new(r.random_range(-4000..4000), r.random_range(-4000..4000));
        let map = |p: &I64Vec2| (*p + shift).as_vec2() * scale;
        let outer_f: Vec<Vec2> = outer.iter().map(map).collect();
        let holes_f: Vec<Vec<Vec2>> = holes.iter().map(|h| h.iter().map(map).collect()).collect();
        let covered_f: Vec<Vec2> = covered.iter().map(map).collect();
        pieces += check_polygon(&outer_f, &holes_f, &covered_f, &mut r, 30, &format!("case {case}"));
        vertices += outer.len() + holes.iter().map(Vec::len).sum::<usize>();
        holes_seen += holes.len();
    }
    println!(
        "{} polygons ({touching} with a hole touching another ring), {vertices} vertices, {holes_seen} \
         holes: {pieces} pieces",
        cases(10_000)
    );
    assert!(touching > cases(10_000) / 20, "{touching} polygons with touching rings");
}

/// A polygon of 5,000 outer vertices and 100 holes (8,000 vertices in all): the quadratic
/// clipping stays quick; area, convexity and sample points are checked (the pairwise overlap test
/// of `assert_tiles` would be quadratic in the pieces).
#[test]
fn a_large_polygon_with_many_holes() {
    let mut r = rng(0x2525_0004);
    let outer = star_ring(&mut r, I64Vec2::ZERO, 900_000.0, 1_000_000.0, 5_000);
    let mut holes = Vec::new();
    for i in 0..10 {
        for j in 0..10 {
            let center = I64Vec2::new(i * 120_000 - 540_000, j * 120_000 - 540_000);
            holes.push(star_ring(&mut r, center, 20_000.0, 50_000.0, 26));
        }
    }
    let f = |ring: &[I64Vec2]| ring.iter().map(|p| p.as_vec2()).collect::<Vec<_>>();
    let (outer, holes): (Vec<Vec2>, Vec<Vec<Vec2>>) = (f(&outer), holes.iter().map(|h| f(h)).collect());
    let pieces = decompose(&outer, &holes).unwrap();
    let area: f64 = pieces.iter().map(|p| 0.5 * twice_area(p)).sum();
    let want = polygon_area(&outer, &holes);
    assert!((area - want).abs() <= 1e-4 * want, "{area} {want}");
    for piece in pieces.iter() {
        let n = piece.len();
        assert!((0..n).all(|k| orient2d(piece[k], piece[(k + 1) % n], piece[(k + 2) % n]) == 1), "{piece:?}");
    }
    assert!(pieces.len() <= 2 * reflex_vertices(&outer, &holes) + 1);
    let boxes: Vec<(Vec2, Vec2)> = pieces.iter().map(|p| bounds(p.iter().copied())).collect();
    for _ in 0..cases(1_000) {
        let p = kollide_testkit::random::point2(&mut r, 1_000_000.0);
        if distance_to_rings(p, &outer, &holes) < 1.0 {
            continue;
        }
        let inside = (0..pieces.len())
            .filter(|&i| p.cmpge(boxes[i].0).all() && p.cmple(boxes[i].1).all())
            .filter(|&i| point_in_convex_polygon(p, pieces.piece(i)))
            .count();
        assert_eq!(inside, usize::from(inside_rings(p, &outer, &holes)), "{p}");
    }
}

fn square(lo: f32, hi: f32) -> Vec<Vec2> {
    vec![v(lo, lo), v(hi, lo), v(hi, hi), v(lo, hi)]
}

/// Hand-made polygons with holes that touch the outer ring or each other, and rings with
/// collinear, repeated and spike vertices; each in both windings.
#[test]
fn touching_rings_and_degenerate_vertices() {
    let mut r = rng(0x2525_0005);
    let sq = square(0.0, 4.0);
    let tri = |a: [f32; 2], b: [f32; 2], c: [f32; 2]| vec![Vec2::from(a), Vec2::from(b), Vec2::from(c)];
    // (what, outer ring, holes, the number of pieces expected, or 0 when not checked)
    type Case = (&'static str, Vec<Vec2>, Vec<Vec<Vec2>>, usize);
    let cases: Vec<Case> = vec![
        ("a square", sq.clone(), vec![], 1),
        ("a hole in the middle", sq.clone(), vec![square(1.0, 3.0)], 4),
        ("a hole touching a corner", sq.clone(), vec![tri([0.0, 0.0], [2.0, 1.0], [1.0, 2.0])], 0),
        ("a hole's vertex on an edge", sq.clone(), vec![tri([2.0, 0.0], [3.0, 1.0], [1.0, 1.0])], 0),
        (
            "a hole's rightmost vertex on an edge",
            sq.clone(),
            vec![tri([4.0, 2.0], [2.0, 1.0], [2.0, 3.0])],
            0,
        ),
        ("a hole's edge on an edge", sq.clone(), vec![tri([1.0, 0.0], [3.0, 0.0], [2.0, 1.0])], 0),
        ("a hole along a whole edge", sq.clone(), vec![tri([0.0, 0.0], [4.0, 0.0], [2.0, 1.0])], 0),
        (
            "a diamond hole touching all four edges",
            sq.clone(),
            vec![vec![v(2.0, 0.0), v(4.0, 2.0), v(2.0, 4.0), v(0.0, 2.0)]],
            4,
        ),
        (
            "two holes sharing a vertex",
            sq.clone(),
            vec![tri([1.0, 1.0], [2.0, 2.0], [1.0, 3.0]), tri([2.0, 2.0], [3.0, 1.0], [3.0, 3.0])],
            0,
        ),
        (
            "two holes sharing an edge",
            sq.clone(),
            vec![square(1.0, 2.0), vec![v(2.0, 1.0), v(3.0, 1.0), v(3.0, 2.0), v(2.0, 2.0)]],
            0,
        ),
        (
            "collinear and repeated vertices",
            vec![
                v(0.0, 0.0),
                v(1.0, 0.0),
                v(1.0, 0.0),
                v(2.0, 0.0),
                v(4.0, 0.0),
                v(4.0, 4.0),
                v(4.0, 4.0),
                v(0.0, 4.0),
                v(0.0, 2.0),
            ],
            vec![vec![v(1.0, 1.0), v(1.0, 1.0), v(2.0, 1.0), v(3.0, 1.0), v(3.0, 3.0), v(1.0, 3.0)]],
            4,
        ),
        (
            "a ring touching itself at a vertex",
            vec![v(0.0, 0.0), v(2.0, 0.0), v(1.0, 1.0), v(2.0, 2.0), v(0.0, 2.0), v(1.0, 1.0)],
            vec![],
            2,
        ),
        (
            "spikes out of and into the polygon",
            vec![
                v(0.0, 0.0),
                v(4.0, 0.0),
                v(6.0, -1.0),
                v(4.0, 0.0),
                v(4.0, 4.0),
                v(2.0, 4.0),
                v(2.0, 3.0),
                v(2.0, 4.0),
                v(0.0, 4.0),
            ],
            vec![],
            1,
        ),
        (
            "a comb",
            vec![
                v(0.0, 0.0),
                v(5.0, 0.0),
                v(5.0, 3.0),
                v(4.0, 3.0),
                v(4.0, 1.0),
                v(3.0, 1.0),
                v(3.0, 3.0),
                v(2.0, 3.0),
                v(2.0, 1.0),
                v(1.0, 1.0),
                v(1.0, 3.0),
                v(0.0, 3.0),
            ],
            vec![],
            4,
        ),
    ];
    for (what, outer, holes, expected_pieces) in cases {
        let covered: Vec<Vec2> = if what.starts_with("spikes") {
            outer.iter().copied().filter(|&p| p != v(6.0, -1.0)).collect()
        } else {
            outer.iter().chain(holes.iter().flatten()).copied().collect()
        };
        for reversed in [false, true] {
            let flip =
                |ring: &Vec<Vec2>| if reversed { ring.iter().rev().copied().collect() } else { ring.clone() };
            let (outer, holes) = (flip(&outer), holes.iter().map(flip).collect::<Vec<_>>());
            let n = check_polygon(&outer, &holes, &covered, &mut r, 2_000, what);
            if expected_pieces > 0 {
                assert_eq!(n, expected_pieces, "{what}");
            }
        }
    }
}

#[test]
fn bad_input_is_refused_or_documented() {
    use DecomposeError::*;
    let sq = square(0.0, 4.0);
    let hole = square(1.0, 2.0);
    let at = |ring, index| RingVertex { ring, index };
    let run = |outer: &[Vec2], holes: &[Vec<Vec2>]| decompose(outer, holes);
    // Non-finite coordinates, outer ring first.
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut outer = sq.clone();
        outer[2].y = bad;
        assert_eq!(run(&outer, &[]), Err(NonFinite(at(RingId::Outer, 2))));
        let mut h = hole.clone();
        h[3].x = bad;
        assert_eq!(run(&sq, &[hole.clone(), h.clone()]), Err(NonFinite(at(RingId::Hole(1), 3))));
        assert_eq!(run(&outer, &[h]), Err(NonFinite(at(RingId::Outer, 2))));
    }
    // Fewer than 3 distinct vertices.
    let (a, b) = (v(1.0, 2.0), v(3.0, 5.0));
    for outer in [vec![], vec![a], vec![a, b], vec![a, a, a], vec![a, b, a, b, b]] {
        assert_eq!(run(&outer, &[]), Err(TooFewVertices), "{outer:?}");
    }
    // No area: collinear, or a path that doubles back.
    for outer in [
        vec![v(0.0, 0.0), v(1.0, 1.0), v(3.0, 3.0), v(2.0, 2.0)],
        vec![v(0.0, 0.0), v(2.0, 0.0), v(2.0, 1.0), v(2.0, 0.0)],
        vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(1.0, 0.0), v(2.0, 0.0), v(1.0, 0.0)],
    ] {
        assert_eq!(run(&outer, &[]), Err(ZeroArea), "{outer:?}");
    }
    // Crossings: a bow tie, a hole through the outer ring, two crossing holes.
    let bow_tie = vec![v(0.0, 0.0), v(2.0, 2.0), v(2.0, 0.0), v(0.0, 2.0)];
    assert_eq!(run(&bow_tie, &[]), Err(SelfIntersection(at(RingId::Outer, 0), at(RingId::Outer, 2))));
    let Err(SelfIntersection(e, f)) = run(&sq, &[square(3.0, 5.0)]) else {
        panic!("a hole through the outer ring")
    };
    assert_eq!((e.ring, f.ring), (RingId::Outer, RingId::Hole(0)));
    let Err(SelfIntersection(e, f)) = run(&sq, &[square(1.0, 2.5), square(2.0, 3.0)]) else {
        panic!("crossing holes")
    };
    assert_eq!((e.ring, f.ring), (RingId::Hole(0), RingId::Hole(1)));
    // Holes outside the outer ring, around it, inside another hole.
    assert_eq!(run(&sq, &[square(5.0, 6.0)]), Err(HoleOutside(0)));
    assert_eq!(run(&sq, &[hole.clone(), square(-1.0, 5.0)]), Err(HoleOutside(1)));
    assert_eq!(run(&sq, &[square(0.5, 3.5), hole.clone()]), Err(HoleInsideHole { hole: 1, other: 0 }));
    // Holes that overlap without a vertex strictly inside the other are not detected by the
    // checks; the doubly covered region leaves no ear (documented: `NoEar` or unspecified pieces).
    let big = square(0.0, 8.0);
    let triangle = vec![v(2.0, 2.0), v(6.0, 2.0), v(4.0, 6.0)];
    let half = vec![v(2.0, 2.0), v(4.0, 2.0), v(4.0, 6.0)];
    let rectangle = vec![v(2.0, 2.0), v(6.0, 2.0), v(6.0, 6.0), v(2.0, 6.0)];
    let left = vec![v(2.0, 2.0), v(4.0, 2.0), v(4.0, 6.0), v(2.0, 6.0)];
    for holes in [[&triangle, &half], [&half, &triangle], [&triangle, &triangle], [&rectangle, &left]] {
        assert_eq!(run(&big, &holes.map(Vec::clone)), Err(NoEar), "{holes:?}");
    }
    // A ring crossing itself through a vertex (its second loop turns the other way): not
    // detected by the crossing test, and no ear clips the clockwise loop.
    let crossing = vec![v(0.0, 0.0), v(1.0, 1.0), v(2.0, 3.0), v(3.0, 0.0), v(1.0, 1.0), v(0.0, 3.0)];
    assert_eq!(run(&crossing, &[]), Err(NoEar));
    // Or through a straight vertex, which cleaning drops: then the crossing is seen.
    let straight = vec![v(0.0, 0.0), v(2.0, 0.0), v(1.0, 1.0), v(0.0, 2.0), v(2.0, 2.0), v(1.0, 1.0)];
    assert_eq!(run(&straight, &[]), Err(SelfIntersection(at(RingId::Outer, 1), at(RingId::Outer, 4))));
    // Holes without area remove nothing and are ignored.
    let mut r = rng(0x2525_0006);
    for empty in [vec![], vec![v(1.0, 1.0); 3], vec![v(1.0, 1.0), v(2.0, 2.0), v(3.0, 3.0)]] {
        let pieces = run(&sq, &[empty.clone(), hole.clone()]).unwrap();
        assert_eq!(pieces, run(&sq, std::slice::from_ref(&hole)).unwrap(), "{empty:?}");
        // A point where the empty hole lies is still inside.
        assert!(in_pieces(v(3.0, 3.0), &pieces));
        check_polygon(&sq, std::slice::from_ref(&hole), &[], &mut r, 500, "an ignored hole");
    }
    // Extreme but finite coordinates: decided exactly, no panic.
    // Scaling by a power of two keeps every predicate's sign: the same pieces, scaled.
    let unit = run(&sq, std::slice::from_ref(&hole)).unwrap();
    for scale in [2.0f32.powi(100), 2.0f32.powi(-100), 2.0f32.powi(-140)] {
        let big: Vec<Vec2> = sq.iter().map(|&p| p * scale).collect();
        let holes = [hole.iter().map(|&p| p * scale).collect::<Vec<_>>()];
        let pieces = run(&big, &holes).unwrap();
        assert_eq!(pieces.vertices, unit.vertices.iter().map(|&p| p * scale).collect::<Vec<_>>(), "{scale}");
    }
    let huge = [v(-f32::MAX, -f32::MAX), v(f32::MAX, -f32::MAX), v(0.0, f32::MAX)];
    assert_eq!(run(&huge, &[]).map(|p| p.len()), Ok(1));
    // The pieces' accessors.
    let pieces = run(&sq, std::slice::from_ref(&hole)).unwrap();
    assert_eq!(pieces.iter().len(), pieces.len());
    assert!(!pieces.is_empty() && pieces.piece(pieces.len()).is_empty());
    let broken = ConvexPieces2 { vertices: vec![v(0.0, 0.0)], ranges: vec![0..1, 0..3] };
    assert_eq!((broken.piece(0), broken.piece(1)), (&[v(0.0, 0.0)][..], &[][..]));
    // The signed area.
    assert_eq!(polygon_area2(&sq), 16.0);
    assert_eq!(polygon_area2(&sq.iter().rev().copied().collect::<Vec<_>>()), -16.0);
    assert_eq!(polygon_area2(&sq[..2]), 0.0);
    assert!(!polygon_area2(&[v(0.0, 0.0), v(1.0, f32::NAN), v(1.0, 1.0)]).is_finite());
}
