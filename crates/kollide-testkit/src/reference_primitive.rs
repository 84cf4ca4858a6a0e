//! Independent references for the closest-point, overlap and 2D polygon primitives.
//!
//! Each one uses a different method from the routine it checks: minimum over candidate features in
//! `f64` instead of a Voronoi-region walk, grid sampling instead of Arvo's per-axis distance,
//! Sutherland–Hodgman clipping in exact rationals instead of separating axes, corner enumeration
//! instead of center/extent projection, summed `atan2` angles instead of crossing counts, and a
//! parametric exact-integer solve instead of orientation predicates.

use std::cmp::Ordering;

use glam::{DVec2, DVec3, I64Vec2, I64Vec3, Vec2, Vec3};
use kollide::bounds::{Aabb3, Obb3};
use kollide::primitive::{Plane3, PlaneSide};

// ---------------------------------------------------------------------------------------------
// Closest points (f64, minimum over candidate features)
// ---------------------------------------------------------------------------------------------

/// The point of segment `a → b` closest to `p`, in `f64` (a zero-length segment is its point).
pub fn closest_on_segment_f64(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let ab = b - a;
    let len2 = ab.length_squared();
    if len2 == 0.0 {
        return a;
    }
    a + ((p - a).dot(ab) / len2).clamp(0.0, 1.0) * ab
}

/// The point of the solid triangle closest to `p`, in `f64`: the best of the projection on the
/// triangle's plane (kept only if its barycentric coordinates are all non-negative) and the
/// closest points of the three edges. Zero-area triangles use the edges only.
pub fn closest_point_triangle_reference(p: Vec3, tri: &[Vec3; 3]) -> DVec3 {
    let p = p.as_dvec3();
    let [a, b, c] = tri.map(|v| v.as_dvec3());
    let mut candidates = vec![
        closest_on_segment_f64(p, a, b),
        closest_on_segment_f64(p, b, c),
        closest_on_segment_f64(p, c, a),
    ];
    let n = (b - a).cross(c - a);
    let n2 = n.length_squared();
    if n2 > 0.0 {
        let q = p - (p - a).dot(n) / n2 * n;
        // Barycentric coordinates from signed sub-triangle areas.
        let wa = (c - b).cross(q - b).dot(n);
        let wb = (a - c).cross(q - c).dot(n);
        let wc = (b - a).cross(q - a).dot(n);
        if wa >= 0.0 && wb >= 0.0 && wc >= 0.0 {
            candidates.push(q);
        }
    }
    candidates.into_iter().min_by(|x, y| x.distance_squared(p).total_cmp(&y.distance_squared(p))).unwrap_or(a)
}

/// Squared distance from `p` to the solid triangle, in `f64` (see
/// [`closest_point_triangle_reference`]).
pub fn point_triangle_distance_squared_reference(p: Vec3, tri: &[Vec3; 3]) -> f64 {
    closest_point_triangle_reference(p, tri).distance_squared(p.as_dvec3())
}

/// Squared distance between segments `a0 → a1` and `b0 → b1`, in `f64`: the minimum over the four
/// endpoint-to-segment distances and, when it exists inside both segments, the interior critical
/// point of the two lines (the 2×2 normal equations solved by Cramer's rule).
pub fn segment_segment_distance_squared_reference(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> f64 {
    let [a0, a1, b0, b1] = [a0, a1, b0, b1].map(|v| v.as_dvec3());
    let mut best = [
        closest_on_segment_f64(a0, b0, b1).distance_squared(a0),
        closest_on_segment_f64(a1, b0, b1).distance_squared(a1),
        closest_on_segment_f64(b0, a0, a1).distance_squared(b0),
        closest_on_segment_f64(b1, a0, a1).distance_squared(b1),
    ]
    .into_iter()
    .fold(f64::INFINITY, f64::min);
    let (d1, d2, r) = (a1 - a0, b1 - b0, a0 - b0);
    // Minimize |r + s d1 - t d2|²: [d1·d1, -d1·d2; d1·d2, -d2·d2] (s, t) = (-d1·r, -d2·r).
    let (a, b, e) = (d1.dot(d1), d1.dot(d2), d2.dot(d2));
    let (c, f) = (d1.dot(r), d2.dot(r));
    let det = a * e - b * b;
    if det > 1e-12 * a * e {
        let s = (b * f - c * e) / det;
        let t = (a * f - b * c) / det;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min((a0 + s * d1).distance_squared(b0 + t * d2));
        }
    }
    best
}

// ---------------------------------------------------------------------------------------------
// Spheres and boxes
// ---------------------------------------------------------------------------------------------

/// The smallest squared distance from `center` to the points of an `n × n × n` grid spanning the
/// box (faces, edges and corners included), in `f64`. It is never below the true squared distance,
/// and its square root exceeds the true distance by at most half a grid cell's diagonal,
/// [`sampled_grid_slack`].
pub fn sphere_aabb_sampled_distance_squared(center: Vec3, aabb: &Aabb3, n: usize) -> f64 {
    let (min, max, c) = (aabb.min.as_dvec3(), aabb.max.as_dvec3(), center.as_dvec3());
    let steps = (n.max(2) - 1) as f64;
    let mut best = f64::INFINITY;
    for i in 0..n.max(2) {
        for j in 0..n.max(2) {
            for k in 0..n.max(2) {
                let u = DVec3::new(i as f64, j as f64, k as f64) / steps;
                let q = min + (max - min) * u;
                best = best.min(q.distance_squared(c));
            }
        }
    }
    best
}

/// The largest amount by which the square root of [`sphere_aabb_sampled_distance_squared`] can
/// exceed the true distance: half the diagonal of one grid cell.
pub fn sampled_grid_slack(aabb: &Aabb3, n: usize) -> f64 {
    ((aabb.max - aabb.min).as_dvec3() / (n.max(2) - 1) as f64).length() * 0.5
}

/// The eight corners of a box.
pub fn aabb_corners(aabb: &Aabb3) -> [DVec3; 8] {
    let (lo, hi) = (aabb.min.as_dvec3(), aabb.max.as_dvec3());
    std::array::from_fn(|i| {
        DVec3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        )
    })
}

/// The eight corners of an oriented box, `center ± axis_i h_i`, in `f64`.
pub fn obb_corners(obb: &Obb3) -> [DVec3; 8] {
    let c = obb.center.as_dvec3();
    let axes = [obb.axes.x_axis, obb.axes.y_axis, obb.axes.z_axis].map(|a| a.as_dvec3());
    let h = obb.half_extents.as_dvec3();
    std::array::from_fn(|i| {
        let sign = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
        c + axes[0] * (sign(1) * h.x) + axes[1] * (sign(2) * h.y) + axes[2] * (sign(4) * h.z)
    })
}

/// Signed distances `n · x - d` of the given points from the plane, in `f64` (exact for small
/// integer and half-integer inputs).
pub fn plane_distances(points: &[DVec3; 8], plane: &Plane3) -> [f64; 8] {
    let (n, d) = (plane.normal.as_dvec3(), f64::from(plane.d));
    points.map(|p| n.dot(p) - d)
}

/// Classification of a convex volume by its vertices' signed distances: `Front` if all are
/// positive, `Back` if all are negative, `Intersecting` otherwise.
pub fn classify_by_distances(distances: &[f64]) -> PlaneSide {
    if distances.iter().all(|&d| d > 0.0) {
        PlaneSide::Front
    } else if distances.iter().all(|&d| d < 0.0) {
        PlaneSide::Back
    } else {
        PlaneSide::Intersecting
    }
}

// ---------------------------------------------------------------------------------------------
// Triangle / box by exact Sutherland–Hodgman clipping
// ---------------------------------------------------------------------------------------------

/// An exact rational number `num / den`, `den > 0`, in lowest terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rational {
    num: i128,
    den: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.abs()
}

impl Rational {
    fn int(v: i64) -> Self {
        Self { num: v as i128, den: 1 }
    }

    fn new(num: i128, den: i128) -> Self {
        assert!(den != 0, "zero denominator");
        let g = gcd(num, den).max(1);
        let s = den.signum();
        Self { num: s * num / g, den: s * den / g }
    }

    fn plus(self, o: Self) -> Self {
        Self::new(self.num * o.den + o.num * self.den, self.den * o.den)
    }

    fn minus(self, o: Self) -> Self {
        Self::new(self.num * o.den - o.num * self.den, self.den * o.den)
    }

    fn times(self, o: Self) -> Self {
        Self::new(self.num * o.num, self.den * o.den)
    }

    fn over(self, o: Self) -> Self {
        Self::new(self.num * o.den, self.den * o.num)
    }

    fn compare(self, o: Self) -> Ordering {
        (self.num * o.den).cmp(&(o.num * self.den))
    }
}

type RPoint = [Rational; 3];

/// Clips a convex (possibly degenerate) polygon to the closed half-space `x[axis] <= bound` (if
/// `keep_below`) or `x[axis] >= bound`.
fn clip(poly: &[RPoint], axis: usize, bound: Rational, keep_below: bool) -> Vec<RPoint> {
    let inside = |p: &RPoint| {
        let o = p[axis].compare(bound);
        if keep_below { o != Ordering::Greater } else { o != Ordering::Less }
    };
    let mut out = Vec::new();
    for i in 0..poly.len() {
        let p = poly[i];
        let q = poly[(i + 1) % poly.len()];
        let (pin, qin) = (inside(&p), inside(&q));
        if pin {
            out.push(p);
        }
        if pin != qin {
            // The edge crosses the plane x[axis] = bound at t = (bound - p) / (q - p).
            let t = bound.minus(p[axis]).over(q[axis].minus(p[axis]));
            let mut x: RPoint = std::array::from_fn(|k| p[k].plus(t.times(q[k].minus(p[k]))));
            x[axis] = bound;
            out.push(x);
        }
    }
    out
}

/// Exact overlap of a closed triangle and a closed box with integer coordinates (`|x| <= 1000`;
/// degenerate triangles and zero-extent or inverted boxes allowed): clips the triangle against the
/// box's six face planes (Sutherland–Hodgman) in exact rational arithmetic and reports whether any
/// point remains. An inverted box is empty. For half-integer inputs, pass doubled coordinates.
pub fn triangle_aabb_overlap_exact(tri: &[I64Vec3; 3], min: I64Vec3, max: I64Vec3) -> bool {
    let mut poly: Vec<RPoint> = tri.iter().map(|v| v.to_array().map(Rational::int)).collect();
    for axis in 0..3 {
        poly = clip(&poly, axis, Rational::int(min[axis]), false);
        poly = clip(&poly, axis, Rational::int(max[axis]), true);
        if poly.is_empty() {
            return false;
        }
    }
    true
}

// ---------------------------------------------------------------------------------------------
// 2D
// ---------------------------------------------------------------------------------------------

/// The winding number of the loop `poly` around `p` as the sum of the signed angles subtended by
/// its edges (`atan2` of cross and dot, in `f64`) divided by 2π, rounded. Only meaningful for
/// points not too close to the loop.
pub fn winding_number_by_angles(p: Vec2, poly: &[Vec2]) -> i32 {
    let p = p.as_dvec2();
    let mut total = 0.0;
    for i in 0..poly.len() {
        let u = poly[i].as_dvec2() - p;
        let v = poly[(i + 1) % poly.len()].as_dvec2() - p;
        total += u.perp_dot(v).atan2(u.dot(v));
    }
    (total / std::f64::consts::TAU).round() as i32
}

/// Distance from `p` to the loop `poly` (its edges, closed), in `f64`.
pub fn distance_to_loop(p: Vec2, poly: &[Vec2]) -> f64 {
    let p = p.as_dvec2();
    let mut best = f64::INFINITY;
    for i in 0..poly.len() {
        let a = poly[i].as_dvec2();
        let b = poly[(i + 1) % poly.len()].as_dvec2();
        let ab = b - a;
        let len2 = ab.length_squared();
        let t = if len2 > 0.0 { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
        best = best.min((a + t * ab).distance(p));
    }
    best
}

/// Whether the integer point `p` lies on the boundary of the integer loop `poly` (exactly).
pub fn on_loop_exact(p: I64Vec2, poly: &[I64Vec2]) -> bool {
    (0..poly.len()).any(|i| {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        (b - a).perp_dot(p - a) == 0 && p.cmpge(a.min(b)).all() && p.cmple(a.max(b)).all()
    })
}

/// The exact meeting of two integer segments, as `f64` points (every coordinate is a rational with
/// a small denominator, so the `f64` value is within one rounding of the exact one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SegmentMeeting {
    None,
    Point(DVec2),
    /// A shared sub-segment of positive length; the end points are input end points, exact.
    Overlap(DVec2, DVec2),
}

/// Exact segment/segment intersection on integer coordinates by a parametric solve: non-parallel
/// segments meet where `a0 + s d = b0 + t e` with both Cramer parameters in `[0, 1]` (compared as
/// integer fractions); parallel ones only if collinear, where the overlap of their parameter
/// intervals along `d` decides. Zero-length segments are points.
pub fn segment_segment_exact(a0: I64Vec2, a1: I64Vec2, b0: I64Vec2, b1: I64Vec2) -> SegmentMeeting {
    let on_segment = |p: I64Vec2, u: I64Vec2, v: I64Vec2| {
        let e = v - u;
        e.perp_dot(p - u) == 0 && (0..=e.dot(e)).contains(&(p - u).dot(e))
    };
    let as_f64 = |p: I64Vec2| p.as_dvec2();
    let (d, e) = (a1 - a0, b1 - b0);
    match (d == I64Vec2::ZERO, e == I64Vec2::ZERO) {
        (true, true) => {
            return if a0 == b0 { SegmentMeeting::Point(as_f64(a0)) } else { SegmentMeeting::None };
        }
        (true, false) => {
            return if on_segment(a0, b0, b1) {
                SegmentMeeting::Point(as_f64(a0))
            } else {
                SegmentMeeting::None
            };
        }
        (false, true) => {
            return if on_segment(b0, a0, a1) {
                SegmentMeeting::Point(as_f64(b0))
            } else {
                SegmentMeeting::None
            };
        }
        (false, false) => {}
    }
    let r = b0 - a0;
    let den = d.perp_dot(e);
    if den != 0 {
        let (s_num, t_num) = (r.perp_dot(e), r.perp_dot(d));
        let within = |num: i64| if den > 0 { (0..=den).contains(&num) } else { (den..=0).contains(&num) };
        if within(s_num) && within(t_num) {
            let s = s_num as f64 / den as f64;
            return SegmentMeeting::Point(as_f64(a0) + s * as_f64(d));
        }
        return SegmentMeeting::None;
    }
    if r.perp_dot(d) != 0 {
        return SegmentMeeting::None;
    }
    // Collinear: parameters along d (scaled by |d|²) of b's end points.
    let dd = d.dot(d);
    let (tb0, tb1) = (r.dot(d), (b1 - a0).dot(d));
    let lo = tb0.min(tb1).max(0);
    let hi = tb0.max(tb1).min(dd);
    let at = |k: i64| as_f64(a0) + (k as f64 / dd as f64) * as_f64(d);
    match lo.cmp(&hi) {
        Ordering::Greater => SegmentMeeting::None,
        Ordering::Equal => SegmentMeeting::Point(at(lo)),
        Ordering::Less => SegmentMeeting::Overlap(at(lo), at(hi)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_reference_basics() {
        let tri = [I64Vec3::new(-5, -5, 1), I64Vec3::new(5, -5, 1), I64Vec3::new(0, 5, 1)];
        assert!(triangle_aabb_overlap_exact(&tri, I64Vec3::ZERO, I64Vec3::splat(2)));
        assert!(triangle_aabb_overlap_exact(&tri, I64Vec3::ZERO, I64Vec3::new(2, 2, 1)));
        assert!(!triangle_aabb_overlap_exact(&tri, I64Vec3::new(0, 0, 2), I64Vec3::splat(3)));
        assert!(!triangle_aabb_overlap_exact(&tri, I64Vec3::splat(2), I64Vec3::ZERO));
        // The plane x + y + z = 6 touches the box [0, 2]³ at its corner only.
        let diag = [I64Vec3::new(6, 0, 0), I64Vec3::new(0, 6, 0), I64Vec3::new(0, 0, 6)];
        assert!(triangle_aabb_overlap_exact(&diag, I64Vec3::ZERO, I64Vec3::splat(2)));
        assert!(!triangle_aabb_overlap_exact(&diag, I64Vec3::ZERO, I64Vec3::new(2, 2, 1)));
    }

    #[test]
    fn segment_reference_basics() {
        let v = I64Vec2::new;
        assert_eq!(
            segment_segment_exact(v(0, 0), v(2, 2), v(0, 2), v(2, 0)),
            SegmentMeeting::Point(DVec2::ONE)
        );
        assert_eq!(
            segment_segment_exact(v(0, 0), v(4, 2), v(6, 3), v(2, 1)),
            SegmentMeeting::Overlap(DVec2::new(2.0, 1.0), DVec2::new(4.0, 2.0))
        );
        assert_eq!(segment_segment_exact(v(0, 0), v(1, 0), v(2, 0), v(3, 0)), SegmentMeeting::None);
    }

    #[test]
    fn angle_winding_reference() {
        let sq = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y];
        assert_eq!(winding_number_by_angles(Vec2::splat(0.5), &sq), 1);
        assert_eq!(winding_number_by_angles(Vec2::splat(1.5), &sq), 0);
    }
}
