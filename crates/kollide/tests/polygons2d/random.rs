//! Random star-shaped polygons with holes on an integer grid (exact in `f32`): holes inside or
//! touching the outer ring and each other, repeated and collinear vertices, spikes; and one large
//! polygon.

use glam::{I64Vec2, Vec2};
use kollide::primitive::d2::{point_in_convex_polygon, winding_number};
use kollide::primitive::orient2d;
use kollide_testkit::cases;
use kollide_testkit::random::{TestRng, rng};
use kollide_testkit::reference_primitive::{
    SegmentMeeting, distance_to_loop, on_loop_exact, segment_segment_exact,
};
use rand::Rng;

use super::{
    bounds, check_polygon, decompose, distance_to_rings, inside_rings, polygon_area, reflex_vertices,
    twice_area,
};

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
