//! 2D overlap tests: segment/segment (exact), circles, circle/box, circle/polygon.
//!
//! Every set is closed: touching counts. Degenerate inputs are the lower-dimensional sets they are
//! (a zero-length segment is a point, a zero radius a point, a zero-extent box a segment or a
//! point). A negative radius or an inverted box (`min > max` on some axis) is empty: `false`. Any
//! non-finite coordinate (NaN, ±∞): `false` / `None`.

use glam::Vec2;

use super::point_in_polygon_crossing;
use crate::bounds::{Aabb2, Circle};
use crate::primitive::orient2d;

/// Where two segments meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SegmentIntersection2 {
    /// A single common point, at parameter `s` along `a0 → a1` and `t` along `b0 → b1` (both in
    /// `[0, 1]`). When the point is an endpoint of either segment, `point` is that endpoint
    /// exactly and its parameter is exactly 0 or 1.
    Point { point: Vec2, s: f32, t: f32 },
    /// Collinear segments sharing a sub-segment of positive length, from `start` to `end` in the
    /// direction `a0 → a1`. Both are endpoints of the inputs (exact, no arithmetic).
    Overlap { start: Vec2, end: Vec2 },
}

#[inline(always)]
fn finite4(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> bool {
    a0.is_finite() && a1.is_finite() && b0.is_finite() && b1.is_finite()
}

/// Whether the closed boxes spanned by the two segments overlap.
#[inline(always)]
fn boxes_overlap(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> bool {
    (a0.min(a1).cmple(b0.max(b1)) & b0.min(b1).cmple(a0.max(a1))).all()
}

/// Whether segments `a0 → a1` and `b0 → b1` share a point, exactly.
///
/// Each segment must touch or straddle the other's line (signs of the exact orientation
/// predicate [`orient2d`]; Cormen et al., *Introduction to Algorithms*, §33.1). When all four
/// points are collinear, or a segment has zero length, the answer is the overlap of their bounding
/// boxes on that line. The answer is exact for the given `f32` coordinates (including touching at
/// an endpoint and collinear overlap). Zero-length segments are points. Symmetric. Any non-finite
/// coordinate: `false`.
pub fn test_segment_segment(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> bool {
    let o1 = orient2d(a0, a1, b0);
    let o2 = orient2d(a0, a1, b1);
    if o1 * o2 > 0 {
        return false;
    }
    let o3 = orient2d(b0, b1, a0);
    let o4 = orient2d(b0, b1, a1);
    if o3 * o4 > 0 {
        return false;
    }
    // If b is not on the line of a (o1, o2 not both 0), b touches or crosses that line, and o3,
    // o4 cannot both be 0 (a would then lie on line b, and b on line a): a touches or crosses
    // line b, and two non-parallel segments that straddle each other's lines meet.
    let met = if o1 != 0 || o2 != 0 {
        true
    } else {
        // b lies on line a (or a is a point). The four points are collinear exactly when o3 and
        // o4 are also 0; then the segments meet iff their boxes do.
        o3 == 0 && o4 == 0 && boxes_overlap(a0, a1, b0, b1)
    };
    met && finite4(a0, a1, b0, b1)
}

/// Where segments `a0 → a1` and `b0 → b1` meet: `None` when they do not, a
/// [`SegmentIntersection2::Point`], or the shared sub-segment when they are collinear and overlap
/// along a positive length.
///
/// Whether and how they meet is decided exactly as in [`test_segment_segment`]. A crossing point
/// interior to both segments is computed in `f64` from Cramer's rule and rounded once to `f32`;
/// any other point is an input endpoint, returned exactly. Collinear overlaps are found on the
/// dominant axis of `a0 → a1` and returned as input endpoints. Zero-length segments are points:
/// they meet the other segment in a `Point` or not at all. Any non-finite coordinate: `None`.
pub fn intersect_segment_segment(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> Option<SegmentIntersection2> {
    if !finite4(a0, a1, b0, b1) {
        return None;
    }
    let o1 = orient2d(a0, a1, b0);
    let o2 = orient2d(a0, a1, b1);
    let o3 = orient2d(b0, b1, a0);
    let o4 = orient2d(b0, b1, a1);
    if o1 * o2 > 0 || o3 * o4 > 0 {
        return None;
    }
    if o1 == 0 && o2 == 0 {
        return intersect_collinear(a0, a1, b0, b1, o3 == 0 && o4 == 0);
    }
    // Non-parallel, each straddling the other's line: one point. Parameters from Cramer's rule
    // on `a0 + s d = b0 + t e` (cross with e, then with d), in f64.
    let (pa0, pb0) = (a0.as_dvec2(), b0.as_dvec2());
    let d = a1.as_dvec2() - pa0;
    let e = b1.as_dvec2() - pb0;
    let r = pb0 - pa0;
    let denom = d.perp_dot(e);
    let s = unit_clamp(r.perp_dot(e) / denom);
    let t = unit_clamp(r.perp_dot(d) / denom);
    let point = |p: Vec2, s: f32, t: f32| Some(SegmentIntersection2::Point { point: p, s, t });
    if o3 == 0 {
        point(a0, 0.0, t)
    } else if o4 == 0 {
        point(a1, 1.0, t)
    } else if o1 == 0 {
        point(b0, s, 0.0)
    } else if o2 == 0 {
        point(b1, s, 1.0)
    } else {
        point((pa0 + f64::from(s) * d).as_vec2(), s, t)
    }
}

/// `x` clamped to `[0, 1]` and rounded to `f32`; NaN (a vanishing `f64` determinant) gives 0.
#[inline(always)]
fn unit_clamp(x: f64) -> f32 {
    if x > 0.0 { x.min(1.0) as f32 } else { 0.0 }
}

/// The parameter of `p` along `a → b` (assumed on the segment), in `[0, 1]`; 0 when `a == b`.
fn parameter_on(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let d = b.as_dvec2() - a.as_dvec2();
    let len2 = d.length_squared();
    if len2 > 0.0 { unit_clamp((p.as_dvec2() - a.as_dvec2()).dot(d) / len2) } else { 0.0 }
}

/// `b` lies on the line of `a`, or `a` is a point; `all_collinear` says whether `a` also lies on
/// the line of `b` (always true unless `a` is a point off the line of a non-degenerate `b`).
fn intersect_collinear(
    a0: Vec2,
    a1: Vec2,
    b0: Vec2,
    b1: Vec2,
    all_collinear: bool,
) -> Option<SegmentIntersection2> {
    if !all_collinear || !boxes_overlap(a0, a1, b0, b1) {
        return None;
    }
    let point = |p: Vec2| SegmentIntersection2::Point {
        point: p,
        s: parameter_on(p, a0, a1),
        t: parameter_on(p, b0, b1),
    };
    if a0 == a1 {
        return Some(point(a0));
    }
    if b0 == b1 {
        return Some(point(b0));
    }
    // All four points lie on one line along which the dominant coordinate of `a1 - a0` is
    // strictly monotonic: compare positions by that coordinate, signed so that it increases from
    // a0 to a1. The overlap runs from the later start to the earlier end.
    let d = a1 - a0;
    let axis = if d.x.abs() >= d.y.abs() { 0 } else { 1 };
    let sign = d[axis].signum();
    let key = |p: Vec2| sign * p[axis];
    let (b_lo, b_hi) = if key(b0) <= key(b1) { (b0, b1) } else { (b1, b0) };
    let start = if key(b_lo) > key(a0) { b_lo } else { a0 };
    let end = if key(b_hi) < key(a1) { b_hi } else { a1 };
    // The boxes overlap, so `key(start) <= key(end)`; equal keys mean the same point.
    if key(start) < key(end) {
        Some(SegmentIntersection2::Overlap { start, end })
    } else {
        Some(point(start))
    }
}

/// Whether two solid circles share a point: `|c_a - c_b|² <= (r_a + r_b)²`.
///
/// Zero radii are points. A negative radius or any non-finite value: `false`. Symmetric.
#[inline]
pub fn test_circle_circle(a: &Circle, b: &Circle) -> bool {
    let r = a.radius + b.radius;
    (a.center - b.center).length_squared() <= r * r
        && radius_ok(a.radius)
        && radius_ok(b.radius)
        && a.center.is_finite()
        && b.center.is_finite()
}

#[inline(always)]
fn radius_ok(r: f32) -> bool {
    (0.0..f32::INFINITY).contains(&r)
}

/// Whether a solid circle and a box share a point: the squared distance from the center to the
/// box (Arvo's per-axis form) is at most `r²`.
///
/// A zero radius tests the center for containment. An inverted box, a negative radius or any
/// non-finite value: `false`.
#[inline]
pub fn test_circle_aabb(circle: &Circle, aabb: &Aabb2) -> bool {
    let c = circle.center;
    let d = (aabb.min - c).max(c - aabb.max).max(Vec2::ZERO);
    let extent = aabb.max - aabb.min;
    d.length_squared() <= circle.radius * circle.radius
        && radius_ok(circle.radius)
        && (extent.cmpge(Vec2::ZERO) & extent.cmplt(Vec2::INFINITY)).all()
        && c.is_finite()
}

/// Whether a solid circle and the solid polygon `poly` share a point: some edge comes within `r`
/// of the center, or the center is inside the polygon.
///
/// Written for convex polygons, and correct for any loop whose solid is given by the even-odd
/// rule ([`point_in_polygon_crossing`]; the boundary is always tested by distance, so the
/// crossing test's half-open boundary rule does not matter here). Each edge's squared distance
/// is compared without division: beyond an end point, the squared distance to it; otherwise the
/// squared distance to the edge's line, `(e × (c - u))² <= r² |e|²`. One or two vertices are a
/// point or a segment (distance only); an empty slice, a negative radius or any non-finite value:
/// `false`.
pub fn test_circle_polygon(circle: &Circle, poly: &[Vec2]) -> bool {
    let (c, r) = (circle.center, circle.radius);
    if poly.is_empty() || !radius_ok(r) || !c.is_finite() {
        return false;
    }
    let r2 = r * r;
    let mut prev = poly[poly.len() - 1];
    for &v in poly {
        if within_segment(c, prev, v, r2) {
            return poly.iter().all(|v| v.is_finite());
        }
        prev = v;
    }
    point_in_polygon_crossing(c, poly)
}

/// Whether `p` is within squared distance `r2` of segment `u → v`.
#[inline(always)]
fn within_segment(p: Vec2, u: Vec2, v: Vec2, r2: f32) -> bool {
    let e = v - u;
    let w = p - u;
    let along = w.dot(e);
    let len2 = e.length_squared();
    if along <= 0.0 {
        w.length_squared() <= r2
    } else if along >= len2 {
        (p - v).length_squared() <= r2
    } else {
        let cross = e.perp_dot(w);
        cross * cross <= r2 * len2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn crossing_touching_and_apart() {
        let x = intersect_segment_segment(v(0.0, 0.0), v(2.0, 2.0), v(0.0, 2.0), v(2.0, 0.0));
        assert_eq!(x, Some(SegmentIntersection2::Point { point: v(1.0, 1.0), s: 0.5, t: 0.5 }));
        assert!(test_segment_segment(v(0.0, 0.0), v(2.0, 2.0), v(0.0, 2.0), v(2.0, 0.0)));
        // T-junction: b ends on a.
        let x = intersect_segment_segment(v(0.0, 0.0), v(4.0, 0.0), v(1.0, 3.0), v(1.0, 0.0));
        assert_eq!(x, Some(SegmentIntersection2::Point { point: v(1.0, 0.0), s: 0.25, t: 1.0 }));
        // End to end at an angle.
        let x = intersect_segment_segment(v(0.0, 0.0), v(1.0, 0.0), v(1.0, 0.0), v(2.0, 5.0));
        assert_eq!(x, Some(SegmentIntersection2::Point { point: v(1.0, 0.0), s: 1.0, t: 0.0 }));
        // Lines cross outside the segments.
        assert_eq!(intersect_segment_segment(v(0.0, 0.0), v(1.0, 0.0), v(2.0, -1.0), v(2.0, 1.0)), None);
        assert!(!test_segment_segment(v(0.0, 0.0), v(1.0, 0.0), v(2.0, -1.0), v(2.0, 1.0)));
        // Parallel, apart.
        assert!(!test_segment_segment(v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0), v(1.0, 1.0)));
    }

    #[test]
    fn collinear_segments() {
        let (a0, a1) = (v(0.0, 0.0), v(4.0, 2.0));
        // Overlap, b reversed: ordered along a.
        let x = intersect_segment_segment(a0, a1, v(6.0, 3.0), v(2.0, 1.0));
        assert_eq!(x, Some(SegmentIntersection2::Overlap { start: v(2.0, 1.0), end: a1 }));
        // Containment.
        let x = intersect_segment_segment(a0, a1, v(-2.0, -1.0), v(6.0, 3.0));
        assert_eq!(x, Some(SegmentIntersection2::Overlap { start: a0, end: a1 }));
        // Reversed a.
        let x = intersect_segment_segment(a1, a0, v(2.0, 1.0), v(6.0, 3.0));
        assert_eq!(x, Some(SegmentIntersection2::Overlap { start: a1, end: v(2.0, 1.0) }));
        // Touching end to end.
        let x = intersect_segment_segment(a0, a1, a1, v(8.0, 4.0));
        assert_eq!(x, Some(SegmentIntersection2::Point { point: a1, s: 1.0, t: 0.0 }));
        // Same line, apart.
        assert_eq!(intersect_segment_segment(a0, a1, v(6.0, 3.0), v(8.0, 4.0)), None);
        assert!(!test_segment_segment(a0, a1, v(6.0, 3.0), v(8.0, 4.0)));
        // Vertical.
        let x = intersect_segment_segment(v(0.0, 0.0), v(0.0, 2.0), v(0.0, 1.0), v(0.0, 5.0));
        assert_eq!(x, Some(SegmentIntersection2::Overlap { start: v(0.0, 1.0), end: v(0.0, 2.0) }));
    }

    #[test]
    fn zero_length_segments() {
        let (a0, a1) = (v(0.0, 0.0), v(4.0, 2.0));
        let p = v(2.0, 1.0);
        assert_eq!(
            intersect_segment_segment(a0, a1, p, p),
            Some(SegmentIntersection2::Point { point: p, s: 0.5, t: 0.0 })
        );
        assert_eq!(
            intersect_segment_segment(p, p, a0, a1),
            Some(SegmentIntersection2::Point { point: p, s: 0.0, t: 0.5 })
        );
        assert!(test_segment_segment(p, p, a0, a1) && test_segment_segment(a0, a1, p, p));
        let off = v(2.0, 1.5);
        assert_eq!(intersect_segment_segment(a0, a1, off, off), None);
        assert!(!test_segment_segment(off, off, a0, a1));
        let beyond = v(6.0, 3.0);
        assert!(!test_segment_segment(beyond, beyond, a0, a1));
        assert_eq!(intersect_segment_segment(beyond, beyond, a0, a1), None);
        assert!(test_segment_segment(p, p, p, p));
        assert_eq!(
            intersect_segment_segment(p, p, p, p),
            Some(SegmentIntersection2::Point { point: p, s: 0.0, t: 0.0 })
        );
        assert!(!test_segment_segment(p, p, off, off));
    }

    #[test]
    fn segment_bad_input() {
        let good = [v(0.0, 0.0), v(2.0, 2.0), v(0.0, 2.0), v(2.0, 0.0)];
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            for i in 0..4 {
                for axis in 0..2 {
                    let mut pts = good;
                    pts[i][axis] = bad;
                    assert!(!test_segment_segment(pts[0], pts[1], pts[2], pts[3]));
                    assert_eq!(intersect_segment_segment(pts[0], pts[1], pts[2], pts[3]), None);
                }
            }
        }
    }

    #[test]
    fn circles() {
        let a = Circle { center: v(0.0, 0.0), radius: 1.0 };
        assert!(test_circle_circle(&a, &Circle { center: v(3.0, 0.0), radius: 2.0 }));
        assert!(!test_circle_circle(&a, &Circle { center: v(3.0, 0.0), radius: 1.9 }));
        assert!(test_circle_circle(&a, &Circle { center: v(1.0, 0.0), radius: 0.0 }));
        assert!(!test_circle_circle(&a, &Circle { center: v(0.0, 0.0), radius: -1.0 }));
        assert!(!test_circle_circle(&a, &Circle { center: v(f32::NAN, 0.0), radius: 1.0 }));
        assert!(!test_circle_circle(&a, &Circle { center: v(0.0, 0.0), radius: f32::INFINITY }));

        let b = Aabb2 { min: v(0.0, 0.0), max: v(1.0, 1.0) };
        assert!(test_circle_aabb(&Circle { center: v(2.0, 2.0), radius: 1.5 }, &b));
        assert!(!test_circle_aabb(&Circle { center: v(2.0, 2.0), radius: 1.4 }, &b));
        assert!(test_circle_aabb(&Circle { center: v(0.5, 0.5), radius: 0.0 }, &b));
        assert!(!test_circle_aabb(
            &Circle { center: v(0.5, 0.5), radius: 1.0 },
            &Aabb2 { min: v(1.0, 1.0), max: v(0.0, 0.0) }
        ));
        assert!(!test_circle_aabb(&Circle { center: v(0.5, f32::NAN), radius: 1.0 }, &b));
        assert!(!test_circle_aabb(&Circle { center: v(0.5, 0.5), radius: -1.0 }, &b));
    }

    #[test]
    fn circle_polygon() {
        let tri = [v(0.0, 0.0), v(4.0, 0.0), v(0.0, 4.0)];
        let c = |x: f32, y: f32, r: f32| Circle { center: v(x, y), radius: r };
        assert!(test_circle_polygon(&c(1.0, 1.0, 0.1), &tri)); // center inside
        assert!(test_circle_polygon(&c(1.0, 1.0, 0.0), &tri));
        assert!(test_circle_polygon(&c(2.0, -1.0, 1.0), &tri)); // touching an edge
        assert!(!test_circle_polygon(&c(2.0, -1.0, 0.99), &tri));
        assert!(test_circle_polygon(&c(3.0, 3.0, 2.0_f32.sqrt() + 1e-6), &tri)); // the hypotenuse
        assert!(!test_circle_polygon(&c(3.0, 3.0, 1.4), &tri));
        assert!(test_circle_polygon(&c(-1.0, -1.0, 1.5), &tri)); // a vertex
        assert!(!test_circle_polygon(&c(-1.0, -1.0, 1.4), &tri));
        // Degenerate polygons: a point, a segment, repeated vertices, empty.
        assert!(test_circle_polygon(&c(1.0, 0.0, 1.0), &[v(0.0, 0.0)]));
        assert!(!test_circle_polygon(&c(1.0, 1.0, 1.0), &[v(0.0, 0.0)]));
        assert!(test_circle_polygon(&c(1.0, 1.0, 1.0), &[v(0.0, 0.0), v(2.0, 0.0)]));
        assert!(!test_circle_polygon(&c(1.0, 1.0, 0.9), &[v(0.0, 0.0), v(2.0, 0.0)]));
        assert!(test_circle_polygon(
            &c(1.0, 1.0, 0.1),
            &[v(0.0, 0.0), v(0.0, 0.0), v(4.0, 0.0), v(0.0, 4.0)]
        ));
        assert!(!test_circle_polygon(&c(1.0, 1.0, 5.0), &[]));
        // Bad input.
        assert!(!test_circle_polygon(&c(1.0, 1.0, -0.1), &tri));
        assert!(!test_circle_polygon(&c(f32::NAN, 1.0, 1.0), &tri));
        assert!(!test_circle_polygon(&c(1.0, 1.0, f32::INFINITY), &tri));
        assert!(!test_circle_polygon(&c(1.0, 1.0, 5.0), &[v(0.0, 0.0), v(4.0, 0.0), v(f32::NAN, 4.0)]));
        assert!(!test_circle_polygon(&c(1.0, 1.0, 0.1), &[v(0.0, 0.0), v(4.0, 0.0), v(0.0, f32::INFINITY)]));
    }
}
