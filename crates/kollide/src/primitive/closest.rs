//! Closest points: point to segment, point to triangle, segment to segment (3D).
//!
//! All three follow Ericson, *Real-Time Collision Detection* (2005), §5.1.2, §5.1.5 and §5.1.9,
//! hardened for degenerate input: zero-length segments and zero-area triangles get the exact
//! answer for the lower-dimensional set they are, and no division by zero can occur.
//!
//! Non-finite input never panics; the result is then unspecified (it may contain NaN), except
//! that every parameter (`t`, `s`) stays in `[0, 1]`.

use glam::Vec3;

/// The closest point of a segment to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentClosest {
    /// The closest point, `a + t (b - a)`.
    pub point: Vec3,
    /// Its parameter along the segment, in `[0, 1]`.
    pub t: f32,
}

/// Which feature of a triangle a closest point lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TriangleFeature {
    /// Vertex `i` (0, 1 or 2).
    Vertex(u8),
    /// The interior of edge `i`, which joins vertex `i` and vertex `(i + 1) % 3`.
    Edge(u8),
    /// The interior of the face.
    Face,
}

/// The closest point of a triangle to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleClosest {
    /// The closest point.
    pub point: Vec3,
    /// Barycentric weights of the vertices `a, b, c` (each in `[0, 1]`, summing to 1) with
    /// `point = bary.x a + bary.y b + bary.z c`.
    pub bary: Vec3,
    /// The feature `point` lies on. Weights that are exactly zero are the ones the feature
    /// excludes (for example `Edge(1)` has `bary.x == 0`).
    pub feature: TriangleFeature,
}

/// The closest pair of points between two segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentSegmentClosest {
    /// Parameter of `point_a` along `a0 → a1`, in `[0, 1]`.
    pub s: f32,
    /// Parameter of `point_b` along `b0 → b1`, in `[0, 1]`.
    pub t: f32,
    /// `a0 + s (a1 - a0)`.
    pub point_a: Vec3,
    /// `b0 + t (b1 - b0)`.
    pub point_b: Vec3,
    /// `|point_a - point_b|²`.
    pub distance_squared: f32,
}

/// `x` clamped to `[0, 1]`; NaN gives 0 (`f32::max` returns the non-NaN operand).
#[inline(always)]
fn clamp01(x: f32) -> f32 {
    x.max(0.0).min(1.0)
}

/// The point of segment `a → b` closest to `p`, with its parameter `t ∈ [0, 1]`.
///
/// `t` is the projection `(p - a)·(b - a) / |b - a|²` clamped to `[0, 1]` (Ericson §5.1.2). A
/// zero-length segment (`a == b`) gives `t = 0`, `point = a`. A non-finite input gives an
/// unspecified point, `t` still in `[0, 1]`.
#[inline]
pub fn closest_point_segment(p: Vec3, a: Vec3, b: Vec3) -> SegmentClosest {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 { clamp01((p - a).dot(ab) / len2) } else { 0.0 };
    SegmentClosest { point: a + t * ab, t }
}

/// The point of the solid triangle `tri = [a, b, c]` closest to `p`, with its barycentric weights
/// and the feature it lies on.
///
/// Voronoi-region walk of Ericson §5.1.5: vertex regions, then edge regions, then the face. The
/// answer is exact up to `f32` rounding for every triangle, including zero-area ones (collinear or
/// coincident vertices), where the closest point of the three edges is returned and the feature
/// is a `Vertex` or an `Edge` (never `Face`). Either winding. A non-finite input gives an
/// unspecified (possibly NaN) result and never panics.
pub fn closest_point_triangle(p: Vec3, tri: &[Vec3; 3]) -> TriangleClosest {
    let [a, b, c] = *tri;
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    // Vertex a: `ap · (x - a) <= 0` for every x of the triangle (a convex combination of
    // `ab` and `ac`), the first-order condition for `a` being closest. Holds for any triangle.
    if d1 <= 0.0 && d2 <= 0.0 {
        return vertex(a, 0);
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    // Vertex b: `bp · ba >= 0` and `bp · bc = d4 - d3 <= 0`.
    if d3 >= 0.0 && d4 <= d3 {
        return vertex(b, 1);
    }
    // Edge ab: `vc = |ab|² ((p - q) · ac)` where `q` is the projection of p on the line ab,
    // so `vc <= 0` says c lies on the far side of the line from p; `d1 >= 0 >= d3` puts `q`
    // between a and b. `d1 - d3 = |ab|²` must be positive: a zero-length edge is skipped (its
    // endpoints are covered by the vertex and other edge regions or the fallback below).
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 > d3 {
        let v = d1 / (d1 - d3);
        return TriangleClosest {
            point: a + v * ab,
            bary: Vec3::new(1.0 - v, v, 0.0),
            feature: TriangleFeature::Edge(0),
        };
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return vertex(c, 2);
    }
    // Edge ca (edge 2), parametrized from a: `d2 - d6 = |ac|²`.
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 > d6 {
        let w = d2 / (d2 - d6);
        return TriangleClosest {
            point: a + w * ac,
            bary: Vec3::new(1.0 - w, 0.0, w),
            feature: TriangleFeature::Edge(2),
        };
    }
    // Edge bc (edge 1): `(d4 - d3) + (d5 - d6) = |bc|²`.
    let va = d3 * d6 - d5 * d4;
    let (e4, e5) = (d4 - d3, d5 - d6);
    if va <= 0.0 && e4 >= 0.0 && e5 >= 0.0 && e4 + e5 > 0.0 {
        let w = e4 / (e4 + e5);
        return TriangleClosest {
            point: b + w * (c - b),
            bary: Vec3::new(0.0, 1.0 - w, w),
            feature: TriangleFeature::Edge(1),
        };
    }
    // Face: `va + vb + vc = |ab × ac|²` (Lagrange's identity) is twice-squared area. It is zero
    // for a zero-area triangle, and rounding can make one of the weights slightly negative for a
    // nearly degenerate one: then the closest point is on the boundary, found edge by edge.
    let denom = va + vb + vc;
    if va >= 0.0 && vb >= 0.0 && vc >= 0.0 && denom > 0.0 {
        let inv = 1.0 / denom;
        let (v, w) = (vb * inv, vc * inv);
        return TriangleClosest {
            point: a + v * ab + w * ac,
            bary: Vec3::new(1.0 - v - w, v, w),
            feature: TriangleFeature::Face,
        };
    }
    closest_point_triangle_edges(p, tri)
}

#[inline(always)]
fn vertex(point: Vec3, i: u8) -> TriangleClosest {
    let mut bary = Vec3::ZERO;
    bary[i as usize] = 1.0;
    TriangleClosest { point, bary, feature: TriangleFeature::Vertex(i) }
}

/// The closest of the three edges' closest points: the answer for a zero-area triangle.
#[cold]
fn closest_point_triangle_edges(p: Vec3, tri: &[Vec3; 3]) -> TriangleClosest {
    let mut i = 0;
    let mut hit = closest_point_segment(p, tri[0], tri[1]);
    let mut best = (hit.point - p).length_squared();
    for k in 1..3 {
        let h = closest_point_segment(p, tri[k], tri[(k + 1) % 3]);
        let d2 = (h.point - p).length_squared();
        // A NaN distance never replaces the current best.
        if d2 < best {
            (i, hit, best) = (k, h, d2);
        }
    }
    let j = (i + 1) % 3;
    let mut bary = Vec3::ZERO;
    bary[i] = 1.0 - hit.t;
    bary[j] += hit.t;
    let feature = if hit.t <= 0.0 {
        TriangleFeature::Vertex(i as u8)
    } else if hit.t >= 1.0 {
        TriangleFeature::Vertex(j as u8)
    } else {
        TriangleFeature::Edge(i as u8)
    };
    TriangleClosest { point: hit.point, bary, feature }
}

/// The closest points of segments `a0 → a1` and `b0 → b1`, their parameters and squared
/// distance.
///
/// Ericson §5.1.9, with the 2×2 system's determinant `|d1|²|d2|² - (d1·d2)²` and the numerator of
/// `s` evaluated as `|d1 × d2|²` and `(d1 × d2)·(d2 × r)` (Lagrange's identity): the cross products
/// do not cancel catastrophically for nearly parallel segments the way the dot-product form does.
/// Parallel segments (including exactly parallel and collinear ones) get `s` from the start of
/// `a` and then the usual clamp-and-reproject, which yields a closest pair (of the many). Zero-
/// length segments are points: `s = 0` (or `t = 0`), the other parameter from the projection.
/// Symmetric up to rounding: swapping the segments gives the same distance. Non-finite input gives
/// unspecified points, parameters still in `[0, 1]`.
pub fn closest_points_segment_segment(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> SegmentSegmentClosest {
    let d1 = a1 - a0;
    let d2 = b1 - b0;
    let r = a0 - b0;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let (s, t) = if !(a > 0.0) {
        // Segment a is a point: project it on segment b (or both are points).
        (0.0, if e > 0.0 { clamp01(f / e) } else { 0.0 })
    } else {
        let c = d1.dot(r);
        if !(e > 0.0) {
            (clamp01(-c / a), 0.0)
        } else {
            let n = d1.cross(d2);
            let denom = n.length_squared();
            // s of the closest points of the two infinite lines, clamped to segment a; for
            // parallel lines any s works, take 0.
            let s = if denom > 0.0 { clamp01(n.dot(d2.cross(r)) / denom) } else { 0.0 };
            // The point of line b closest to a(s); if it falls outside segment b, clamp it and
            // re-project the clamped end onto segment a.
            let t = (d1.dot(d2) * s + f) / e;
            if t < 0.0 {
                (clamp01(-c / a), 0.0)
            } else if t > 1.0 {
                (clamp01((d1.dot(d2) - c) / a), 1.0)
            } else {
                (s, clamp01(t))
            }
        }
    };
    let point_a = a0 + s * d1;
    let point_b = b0 + t * d2;
    SegmentSegmentClosest { s, t, point_a, point_b, distance_squared: (point_a - point_b).length_squared() }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRI: [Vec3; 3] = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)];

    #[test]
    fn segment_closest_clamps_and_handles_zero_length() {
        let a = Vec3::ZERO;
        let b = Vec3::new(2.0, 0.0, 0.0);
        assert_eq!(
            closest_point_segment(Vec3::new(1.0, 5.0, 0.0), a, b),
            SegmentClosest { point: Vec3::X, t: 0.5 }
        );
        assert_eq!(closest_point_segment(Vec3::new(-1.0, 5.0, 0.0), a, b).t, 0.0);
        assert_eq!(
            closest_point_segment(Vec3::new(9.0, 5.0, 0.0), a, b),
            SegmentClosest { point: b, t: 1.0 }
        );
        assert_eq!(closest_point_segment(Vec3::ONE, a, a), SegmentClosest { point: a, t: 0.0 });
        let nan = closest_point_segment(Vec3::splat(f32::NAN), a, b);
        assert!((0.0..=1.0).contains(&nan.t));
        let inf = closest_point_segment(Vec3::ONE, a, Vec3::splat(f32::INFINITY));
        assert!((0.0..=1.0).contains(&inf.t));
    }

    #[test]
    fn triangle_regions() {
        let cases = [
            (Vec3::new(-1.0, -1.0, 3.0), Vec3::ZERO, TriangleFeature::Vertex(0)),
            (Vec3::new(3.0, -1.0, 3.0), TRI[1], TriangleFeature::Vertex(1)),
            (Vec3::new(-1.0, 3.0, -3.0), TRI[2], TriangleFeature::Vertex(2)),
            (Vec3::new(1.0, -1.0, 1.0), Vec3::X, TriangleFeature::Edge(0)),
            (Vec3::new(2.0, 2.0, 1.0), Vec3::ONE.with_z(0.0), TriangleFeature::Edge(1)),
            (Vec3::new(-1.0, 1.0, 1.0), Vec3::Y, TriangleFeature::Edge(2)),
            (Vec3::new(0.5, 0.5, -4.0), Vec3::new(0.5, 0.5, 0.0), TriangleFeature::Face),
        ];
        for (p, expected, feature) in cases {
            let got = closest_point_triangle(p, &TRI);
            assert_eq!(got.point, expected, "{p}");
            assert_eq!(got.feature, feature, "{p}");
            let from_bary = got.bary.x * TRI[0] + got.bary.y * TRI[1] + got.bary.z * TRI[2];
            assert!((from_bary - got.point).length() < 1e-6);
            assert!((got.bary.element_sum() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn zero_area_triangles_fall_back_to_edges() {
        // Collinear, middle vertex first: p projects between a and c.
        let tri = [Vec3::new(1.0, 0.0, 0.0), Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0)];
        let got = closest_point_triangle(Vec3::new(2.0, 1.0, 0.0), &tri);
        assert_eq!(got.point, Vec3::new(2.0, 0.0, 0.0));
        assert_ne!(got.feature, TriangleFeature::Face);
        // Two coincident vertices (zero-length edge ab): the answer lies on edge ca.
        let tri = [Vec3::ZERO, Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0)];
        let got = closest_point_triangle(Vec3::new(1.0, 1.0, 0.0), &tri);
        assert_eq!(got.point, Vec3::X);
        assert!(matches!(got.feature, TriangleFeature::Edge(_)));
        // All three coincident.
        let tri = [Vec3::ONE; 3];
        let got = closest_point_triangle(Vec3::ZERO, &tri);
        assert_eq!(got.point, Vec3::ONE);
        assert!(matches!(got.feature, TriangleFeature::Vertex(_)));
        assert_eq!(got.bary.element_sum(), 1.0);
        // Collinear with p on the line, beyond the ends.
        let tri = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0)];
        let got = closest_point_triangle(Vec3::new(5.0, 0.0, 0.0), &tri);
        assert_eq!(got.point, Vec3::new(2.0, 0.0, 0.0));
        assert_eq!(got.feature, TriangleFeature::Vertex(1));
    }

    #[test]
    fn non_finite_triangle_input_does_not_panic() {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let _ = closest_point_triangle(Vec3::splat(bad), &TRI);
            for i in 0..3 {
                let mut tri = TRI;
                tri[i].y = bad;
                let got = closest_point_triangle(Vec3::ONE, &tri);
                let index = match got.feature {
                    TriangleFeature::Vertex(i) | TriangleFeature::Edge(i) => i,
                    TriangleFeature::Face => 0,
                };
                assert!(index < 3);
            }
        }
    }

    #[test]
    fn segment_segment_cases() {
        // Crossing at right angles, 1 apart.
        let r = closest_points_segment_segment(
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::X,
            Vec3::new(0.0, -1.0, 1.0),
            Vec3::new(0.0, 1.0, 1.0),
        );
        assert_eq!((r.s, r.t, r.distance_squared), (0.5, 0.5, 1.0));
        // Parallel, overlapping: distance is the line distance.
        let r = closest_points_segment_segment(
            Vec3::ZERO,
            Vec3::new(4.0, 0.0, 0.0),
            Vec3::new(1.0, 2.0, 0.0),
            Vec3::new(6.0, 2.0, 0.0),
        );
        assert_eq!(r.distance_squared, 4.0);
        // Parallel, disjoint along the line: end to end.
        let r = closest_points_segment_segment(
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(3.0, 1.0, 0.0),
            Vec3::new(5.0, 1.0, 0.0),
        );
        assert_eq!((r.s, r.t, r.distance_squared), (1.0, 0.0, 5.0));
        // Collinear, anti-parallel, overlapping.
        let r = closest_points_segment_segment(
            Vec3::ZERO,
            Vec3::new(4.0, 0.0, 0.0),
            Vec3::new(5.0, 0.0, 0.0),
            Vec3::new(3.0, 0.0, 0.0),
        );
        assert_eq!(r.distance_squared, 0.0);
        // Zero-length segments.
        let r = closest_points_segment_segment(Vec3::Y, Vec3::Y, Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0));
        assert_eq!((r.s, r.t, r.distance_squared), (0.0, 0.0, 1.0));
        let r = closest_points_segment_segment(
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(1.0, 3.0, 0.0),
            Vec3::new(1.0, 3.0, 0.0),
        );
        assert_eq!((r.s, r.t, r.distance_squared), (0.5, 0.0, 9.0));
        let r = closest_points_segment_segment(Vec3::ZERO, Vec3::ZERO, Vec3::ONE, Vec3::ONE);
        assert_eq!((r.s, r.t, r.distance_squared), (0.0, 0.0, 3.0));
        // Non-finite input: no panic, parameters in range.
        let r = closest_points_segment_segment(
            Vec3::splat(f32::NAN),
            Vec3::ONE,
            Vec3::ZERO,
            Vec3::splat(f32::INFINITY),
        );
        assert!((0.0..=1.0).contains(&r.s) && (0.0..=1.0).contains(&r.t));
    }
}
