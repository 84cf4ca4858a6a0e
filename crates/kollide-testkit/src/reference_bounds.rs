//! Independent references for the bounding volumes (`kollide::bounds`).
//!
//! Each uses a different method from the routine it checks: interval intersection with `max`/`min`
//! of the bounds in exact integers instead of pairwise comparisons, signed distances of points
//! sampled along a ray instead of a slab test, corner enumeration instead of Arvo's `|M| h`,
//! exhaustive enumeration of the balls through 1 to 4 points instead of Welzl's algorithm, the 15
//! separating axes rebuilt in `f64` from the 8 corners and tested by projecting all corners
//! instead of Gottschalk's closed-form radii, face planes instead of a change of basis, and
//! projections of point sets in `f64` on a separately written direction table for k-DOPs.

use glam::{DVec2, DVec3, I64Vec3, Vec3};

// ---------------------------------------------------------------------------------------------
// Axis-aligned boxes
// ---------------------------------------------------------------------------------------------

/// Whether two closed integer boxes share a point: on every axis the intersection of the two
/// intervals, `[max(lo), min(hi)]`, is non-empty. Inverted boxes (empty sets) never overlap.
pub fn aabb_overlap_exact(a_min: I64Vec3, a_max: I64Vec3, b_min: I64Vec3, b_max: I64Vec3) -> bool {
    let lo = a_min.max(b_min);
    let hi = a_max.min(b_max);
    lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z
}

/// Signed distance from `p` to the closed box `[min, max]` in `f64`: the Euclidean distance if
/// outside, minus the distance to the nearest face if inside (0 on the boundary). The box must
/// not be inverted.
pub fn box_signed_distance(min: DVec3, max: DVec3, p: DVec3) -> f64 {
    let outside = (min - p).max(p - max).max(DVec3::ZERO);
    let out = outside.length();
    if out > 0.0 {
        return out;
    }
    let depth = (p - min).min(max - p).min_element();
    -depth
}

/// Signed distance from `p` to the closed 2D box `[min, max]` (see [`box_signed_distance`]).
pub fn rect_signed_distance(min: DVec2, max: DVec2, p: DVec2) -> f64 {
    let outside = (min - p).max(p - max).max(DVec2::ZERO);
    let out = outside.length();
    if out > 0.0 {
        return out;
    }
    -(p - min).min(max - p).min_element()
}

/// The ray `origin + t dir` sampled at `samples + 1` evenly spaced `t` in `[0, max_t]`: each
/// sample is `(t, signed distance of the point to the box)`, computed in `f64`.
pub fn ray_box_samples(
    min: DVec3,
    max: DVec3,
    origin: DVec3,
    dir: DVec3,
    max_t: f64,
    samples: usize,
) -> Vec<(f64, f64)> {
    (0..=samples)
        .map(|k| {
            let t = max_t * k as f64 / samples as f64;
            (t, box_signed_distance(min, max, origin + t * dir))
        })
        .collect()
}

/// The 2D twin of [`ray_box_samples`].
pub fn ray_rect_samples(
    min: DVec2,
    max: DVec2,
    origin: DVec2,
    dir: DVec2,
    max_t: f64,
    samples: usize,
) -> Vec<(f64, f64)> {
    (0..=samples)
        .map(|k| {
            let t = max_t * k as f64 / samples as f64;
            (t, rect_signed_distance(min, max, origin + t * dir))
        })
        .collect()
}

/// The exact parameter interval `[t0, t1]`, `t0 >= 0`, of the integer ray `origin + t dir` inside
/// the closed integer box (not clipped above), or `None` if the ray never touches it for
/// `t >= 0`. Computed in exact rationals; the endpoints are then rounded to `f64`.
///
/// Per axis: a zero direction keeps the whole line if `min <= o <= max` (the closed slab, a ray
/// sliding in a face plane included) and nothing otherwise; a non-zero direction gives the
/// rational interval between `(min - o) / d` and `(max - o) / d`. The box must not be inverted.
pub fn ray_box_interval_exact(
    min: I64Vec3,
    max: I64Vec3,
    origin: I64Vec3,
    dir: I64Vec3,
) -> Option<(f64, f64)> {
    // Rationals as (numerator, positive denominator); a <= b iff a.0 * b.1 <= b.0 * a.1.
    let le = |a: (i64, i64), b: (i64, i64)| a.0 * b.1 <= b.0 * a.1;
    let mut lo: (i64, i64) = (0, 1);
    let mut hi: Option<(i64, i64)> = None; // None = +∞
    for axis in 0..3 {
        let (mn, mx, o, d) = (min[axis], max[axis], origin[axis], dir[axis]);
        if d == 0 {
            if o < mn || o > mx {
                return None;
            }
            continue;
        }
        let (a, b) = if d > 0 { ((mn - o, d), (mx - o, d)) } else { ((o - mx, -d), (o - mn, -d)) };
        if le(lo, a) {
            lo = a;
        }
        if hi.is_none_or(|h| le(b, h)) {
            hi = Some(b);
        }
    }
    let to_f64 = |r: (i64, i64)| r.0 as f64 / r.1 as f64;
    match hi {
        None => Some((to_f64(lo), f64::INFINITY)),
        Some(h) if le(lo, h) => Some((to_f64(lo), to_f64(h))),
        Some(_) => None,
    }
}

/// The 8 corners of the box `[min, max]` in `f64`.
pub fn box_corners(min: DVec3, max: DVec3) -> [DVec3; 8] {
    std::array::from_fn(|i| {
        DVec3::new(
            if i & 1 != 0 { max.x } else { min.x },
            if i & 2 != 0 { max.y } else { min.y },
            if i & 4 != 0 { max.z } else { min.z },
        )
    })
}

// ---------------------------------------------------------------------------------------------
// Minimal enclosing balls by exhaustive enumeration
// ---------------------------------------------------------------------------------------------

/// The circumcenter of 2 or 3 points in `f64` (in their plane for 3), or of 4 points (the
/// sphere through all 4), or `None` if they are affinely dependent. A single point is its own
/// center.
fn circumcenter3(p: &[DVec3]) -> Option<DVec3> {
    match p.len() {
        1 => Some(p[0]),
        2 => Some((p[0] + p[1]) * 0.5),
        3 => {
            // Center = a + (|u|² v - |v|² u) × w / (2 |w|²) with u = b - a, v = c - a, w = u × v.
            let (u, v) = (p[1] - p[0], p[2] - p[0]);
            let w = u.cross(v);
            let w2 = w.length_squared();
            if w2 <= 1e-18 * u.length_squared() * v.length_squared() {
                return None;
            }
            Some(p[0] + (u.length_squared() * v - v.length_squared() * u).cross(w) / (2.0 * w2))
        }
        4 => {
            // Solve 2 (q_i - a) · x = |q_i - a|² for x = center - a by Cramer's rule.
            let rows = [p[1] - p[0], p[2] - p[0], p[3] - p[0]];
            let rhs = rows.map(|r| r.length_squared() * 0.5);
            let det = rows[0].dot(rows[1].cross(rows[2]));
            let scale = rows.iter().map(|r| r.length()).product::<f64>();
            if det.abs() <= 1e-9 * scale {
                return None;
            }
            // x = (rhs0 (r1 × r2) + rhs1 (r2 × r0) + rhs2 (r0 × r1)) / det.
            let x = (rhs[0] * rows[1].cross(rows[2])
                + rhs[1] * rows[2].cross(rows[0])
                + rhs[2] * rows[0].cross(rows[1]))
                / det;
            Some(p[0] + x)
        }
        _ => None,
    }
}

/// The radius of the minimal enclosing sphere of `points` (n <= 8 or so), by trying every sphere
/// through 1, 2, 3 or 4 of the points (circumscribed, in `f64`) and keeping the smallest one that
/// contains all points within a relative `1e-9`. `None` for an empty set.
pub fn min_sphere_radius_brute(points: &[Vec3]) -> Option<f64> {
    let p: Vec<DVec3> = points.iter().map(|v| v.as_dvec3()).collect();
    let n = p.len();
    let mut best: Option<f64> = None;
    let mut consider = |subset: &[DVec3]| {
        if let Some(c) = circumcenter3(subset) {
            let r = subset.iter().map(|q| q.distance(c)).fold(0.0, f64::max);
            let encloses = p.iter().all(|q| q.distance(c) <= r * (1.0 + 1e-9) + 1e-12);
            if encloses && best.is_none_or(|b| r < b) {
                best = Some(r);
            }
        }
    };
    for i in 0..n {
        consider(&[p[i]]);
        for j in i + 1..n {
            consider(&[p[i], p[j]]);
            for k in j + 1..n {
                consider(&[p[i], p[j], p[k]]);
                for l in k + 1..n {
                    consider(&[p[i], p[j], p[k], p[l]]);
                }
            }
        }
    }
    best
}

/// The radius of the minimal enclosing circle of `points`, by trying every circle through 1, 2 or
/// 3 of the points (see [`min_sphere_radius_brute`]).
pub fn min_circle_radius_brute(points: &[glam::Vec2]) -> Option<f64> {
    let p: Vec<DVec3> = points.iter().map(|v| v.as_dvec2().extend(0.0)).collect();
    let n = p.len();
    let mut best: Option<f64> = None;
    let mut consider = |subset: &[DVec3]| {
        if let Some(c) = circumcenter3(subset) {
            let r = subset.iter().map(|q| q.distance(c)).fold(0.0, f64::max);
            let encloses = p.iter().all(|q| q.distance(c) <= r * (1.0 + 1e-9) + 1e-12);
            if encloses && best.is_none_or(|b| r < b) {
                best = Some(r);
            }
        }
    };
    for i in 0..n {
        consider(&[p[i]]);
        for j in i + 1..n {
            consider(&[p[i], p[j]]);
            for k in j + 1..n {
                consider(&[p[i], p[j], p[k]]);
            }
        }
    }
    best
}

// ---------------------------------------------------------------------------------------------
// Oriented boxes from their corners
// ---------------------------------------------------------------------------------------------

/// The 8 corners of the oriented box `center + axes * u`, `|u| <= half`, in `f64`, in the order
/// of bit `k` of the index selecting `+half_k` (rebuilt here from the raw fields).
pub fn obb_corners_f64(center: Vec3, axes: [Vec3; 3], half: Vec3) -> [DVec3; 8] {
    let c = center.as_dvec3();
    let e = [
        axes[0].as_dvec3() * f64::from(half.x),
        axes[1].as_dvec3() * f64::from(half.y),
        axes[2].as_dvec3() * f64::from(half.z),
    ];
    std::array::from_fn(|i| {
        let s = |k: usize| if i & (1 << k) != 0 { 1.0 } else { -1.0 };
        c + e[0] * s(0) + e[1] * s(1) + e[2] * s(2)
    })
}

/// The largest gap between the projections of the two corner sets over the 15 candidate axes of
/// two boxes (3 face normals each and the 9 edge cross products), all rebuilt in `f64` from the
/// corners: edges `c1 - c0`, `c2 - c0`, `c4 - c0`, face normals as their cross products. Axes of
/// (relative) length below `1e-9` (parallel edges) are skipped.
///
/// Positive: the boxes are separated, by at least that distance. Zero or negative: no candidate
/// axis separates them, so the (convex) boxes overlap (separating axis theorem). Boxes must have
/// non-zero extents for the face normals to exist.
pub fn obb_max_gap(a: &[DVec3; 8], b: &[DVec3; 8]) -> f64 {
    let edges = |c: &[DVec3; 8]| [c[1] - c[0], c[2] - c[0], c[4] - c[0]];
    let (ea, eb) = (edges(a), edges(b));
    let mut axes = Vec::with_capacity(15);
    for e in [ea, eb] {
        axes.push(e[1].cross(e[2]));
        axes.push(e[2].cross(e[0]));
        axes.push(e[0].cross(e[1]));
    }
    for x in ea {
        for y in eb {
            axes.push(x.cross(y));
        }
    }
    let project = |c: &[DVec3; 8], l: DVec3| {
        c.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            let s = p.dot(l);
            (lo.min(s), hi.max(s))
        })
    };
    let scale = ea.iter().chain(eb.iter()).map(|e| e.length()).fold(0.0, f64::max);
    let mut best = f64::NEG_INFINITY;
    for l in axes {
        let len = l.length();
        if len <= 1e-9 * scale * scale {
            continue;
        }
        let l = l / len;
        let (alo, ahi) = project(a, l);
        let (blo, bhi) = project(b, l);
        best = best.max((blo - ahi).max(alo - bhi));
    }
    best
}

/// The largest signed distance from `p` to the 6 face planes of the box with these corners (each
/// plane through a face's corners, normal pointing away from the box's centroid), in `f64`:
/// negative inside, positive outside, zero on the boundary. Needs non-zero extents.
pub fn obb_face_plane_distance(c: &[DVec3; 8], p: Vec3) -> f64 {
    let p = p.as_dvec3();
    let centroid = c.iter().copied().sum::<DVec3>() / 8.0;
    // Faces as corner index triples: bit k fixed to 0 or 1, the other two bits varying.
    let mut worst = f64::NEG_INFINITY;
    for k in 0..3 {
        for side in 0..2 {
            let on: Vec<usize> = (0..8).filter(|i| (i >> k) & 1 == side).collect();
            let n = (c[on[1]] - c[on[0]]).cross(c[on[2]] - c[on[0]]).normalize();
            let n = if n.dot(c[on[0]] - centroid) < 0.0 { -n } else { n };
            worst = worst.max((p - c[on[0]]).dot(n));
        }
    }
    worst
}

// ---------------------------------------------------------------------------------------------
// k-DOPs
// ---------------------------------------------------------------------------------------------

/// The 13 slab directions of the 26-DOP, written out: coordinate axes, cube diagonals, edge
/// diagonals. The 14-DOP uses entries 0..7, the 18-DOP entries 0..3 and 7..13.
pub const KDOP_DIRECTIONS_26: [[f64; 3]; 13] = [
    [1.0, 0.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
    [1.0, 1.0, 1.0],
    [1.0, 1.0, -1.0],
    [1.0, -1.0, 1.0],
    [1.0, -1.0, -1.0],
    [1.0, 1.0, 0.0],
    [1.0, 0.0, 1.0],
    [0.0, 1.0, 1.0],
    [1.0, -1.0, 0.0],
    [1.0, 0.0, -1.0],
    [0.0, 1.0, -1.0],
];

/// The directions of the k-DOP with `n` slabs (7, 9 or 13), from [`KDOP_DIRECTIONS_26`].
pub fn kdop_directions(n: usize) -> Vec<DVec3> {
    let pick: Vec<usize> = match n {
        7 => (0..7).collect(),
        9 => (0..3).chain(7..13).collect(),
        13 => (0..13).collect(),
        _ => Vec::new(),
    };
    pick.into_iter().map(|i| DVec3::from_array(KDOP_DIRECTIONS_26[i])).collect()
}

/// Whether the projections of the two point sets overlap on every direction (closed intervals),
/// computed in `f64`: the k-DOP overlap test done from the raw points.
pub fn kdop_overlap_from_points(dirs: &[DVec3], a: &[Vec3], b: &[Vec3]) -> bool {
    let range = |pts: &[Vec3], d: DVec3| {
        pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            let s = p.as_dvec3().dot(d);
            (lo.min(s), hi.max(s))
        })
    };
    dirs.iter().all(|&d| {
        let (alo, ahi) = range(a, d);
        let (blo, bhi) = range(b, d);
        alo <= bhi && blo <= ahi
    })
}
