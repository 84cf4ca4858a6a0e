//! Closest points: point to segment, point to triangle, segment to segment (3D).
//!
//! All three follow Ericson, *Real-Time Collision Detection* (2005), §5.1.2, §5.1.5 and §5.1.9,
//! hardened for degenerate input: zero-length segments and zero-area triangles get the exact
//! answer for the lower-dimensional set they are, and no division by zero can occur.
//!
//! Non-finite input never panics; the result is then unspecified (it may contain NaN), except
//! that every parameter (`t`, `s`) stays in `[0, 1]`.

use std::ops::{Add, Div, Mul, Sub};

use glam::{DVec3, Vec3, Vec3A, Vec4};

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
    /// The feature `point` lies on. The weights of the vertices it excludes are exactly zero
    /// (for example `Edge(1)` has `bary.x == 0`), and a `Vertex(i)` point is exactly `tri[i]`.
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

/// `x` clamped to `[0, 1]`; NaN gives 0 (unlike `f32::clamp`, which keeps NaN).
#[inline(always)]
fn clamp01(x: f32) -> f32 {
    if x > 0.0 { x.min(1.0) } else { 0.0 }
}

/// The point of segment `a → b` closest to `p`, with its parameter `t ∈ [0, 1]`.
///
/// `t` is the projection `(p - a)·(b - a) / |b - a|²` clamped to `[0, 1]` (Ericson §5.1.2). A
/// zero-length segment (`a == b`) gives `t = 0`, `point = a`. At `t = 0` and `t = 1` the point is
/// exactly `a` or `b`. A non-finite input gives an unspecified point, `t` still in `[0, 1]`.
#[inline]
pub fn closest_point_segment(p: Vec3, a: Vec3, b: Vec3) -> SegmentClosest {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 { clamp01((p - a).dot(ab) / len2) } else { 0.0 };
    // `a + 1 · (b - a)` can differ from `b` by rounding: return the end points exactly.
    SegmentClosest { point: if t >= 1.0 { b } else { a + t * ab }, t }
}

/// Vector operations the triangle routines need, for `f32` ([`Vec3`], [`Vec3A`]) and `f64`
/// ([`DVec3`]) vectors, so that one Voronoi-region walk serves the fast `f32` path and the `f64`
/// redo of nearly degenerate triangles.
pub(crate) trait Vector3:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Self::Scalar, Output = Self>
{
    type Scalar: Copy
        + PartialOrd
        + Add<Output = Self::Scalar>
        + Sub<Output = Self::Scalar>
        + Mul<Output = Self::Scalar>
        + Div<Output = Self::Scalar>
        + From<f32>;
    fn dot3(self, other: Self) -> Self::Scalar;
    fn cross3(self, other: Self) -> Self;
}

macro_rules! impl_vector3 {
    ($v:ty, $s:ty) => {
        impl Vector3 for $v {
            type Scalar = $s;
            #[inline(always)]
            fn dot3(self, other: Self) -> $s {
                self.dot(other)
            }
            #[inline(always)]
            fn cross3(self, other: Self) -> Self {
                self.cross(other)
            }
        }
    };
}
impl_vector3!(Vec3, f32);
impl_vector3!(Vec3A, f32);
impl_vector3!(DVec3, f64);

/// `sin²` of the angle at vertex `a` below which the `f32` cross product `(b - a) × (c - a)` is
/// not trusted and a triangle is redone in `f64` (angle under about 7° or over 173°).
///
/// The computed normal's direction errs by about `ε / sin θ` (each component errs by
/// `ε |b - a| |c - a|`, the normal's length is `|b - a| |c - a| sin θ`), so above this bound it is
/// within `8ε` of the truth and plane distances, Voronoi regions and barycentric weights keep
/// `f32` accuracy. Below it, the region walk could pick the face of a sliver from noise.
pub(crate) const SLIVER_SIN2: f32 = 1.0 / 64.0;

/// `sin²` of the angle at `a`, in the `f64` redo, below which a triangle is treated as its three
/// edges (zero area): its width is then below `10⁻⁹` of its edge lengths, and its normal
/// (accurate to `10⁻¹⁶ / sin θ`) no longer is.
pub(crate) const DEGENERATE_SIN2_F64: f64 = 1e-18;

/// Whether `n = ab × ac` is trustworthy in `f32` (see [`SLIVER_SIN2`]). False for NaN, when
/// `|n|²` overflows, and when it is subnormal (triangles under about 1e-10 across), where it has
/// lost the precision the bound assumes.
#[inline(always)]
pub(crate) fn well_shaped<V: Vector3<Scalar = f32>>(ab: V, ac: V, n: V) -> bool {
    let n2 = n.dot3(n);
    n2 >= SLIVER_SIN2 * ab.dot3(ab) * ac.dot3(ac) && (f32::MIN_POSITIVE..f32::INFINITY).contains(&n2)
}

/// The Voronoi region of `p` for triangle `a, b, c` (Ericson §5.1.5), as the feature and the
/// parameters locating the closest point: `Edge(0)`: `a + v (b - a)`; `Edge(1)`: `b + w (c - b)`;
/// `Edge(2)`: `a + w (c - a)`; `Face`: `a + v (b - a) + w (c - a)`. `None` when no region
/// accepts `p`, which happens only for zero-area triangles or through rounding; the closest point
/// is then on the boundary.
#[inline(always)]
pub(crate) fn triangle_region<V: Vector3>(
    p: V,
    a: V,
    b: V,
    c: V,
) -> Option<(TriangleFeature, V::Scalar, V::Scalar)> {
    let zero = V::Scalar::from(0.0);
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot3(ap);
    let d2 = ac.dot3(ap);
    // Vertex a: `ap · (x - a) <= 0` for every x of the triangle (a convex combination of
    // `ab` and `ac`), the first-order condition for `a` being closest. Holds for any triangle.
    if d1 <= zero && d2 <= zero {
        return Some((TriangleFeature::Vertex(0), zero, zero));
    }
    let bp = p - b;
    let d3 = ab.dot3(bp);
    let d4 = ac.dot3(bp);
    // Vertex b: `bp · ba >= 0` and `bp · bc = d4 - d3 <= 0`.
    if d3 >= zero && d4 <= d3 {
        return Some((TriangleFeature::Vertex(1), zero, zero));
    }
    // Edge ab: `vc = |ab|² ((p - q) · ac)` where `q` is the projection of p on the line ab,
    // so `vc <= 0` says c lies on the far side of the line from p; `d1 >= 0 >= d3` puts `q`
    // between a and b. `d1 - d3 = |ab|²` must be positive: a zero-length edge is skipped (its
    // endpoints are covered by the vertex and other edge regions or the edge fallback).
    let vc = d1 * d4 - d3 * d2;
    if vc <= zero && d1 >= zero && d3 <= zero && d1 > d3 {
        return Some((TriangleFeature::Edge(0), d1 / (d1 - d3), zero));
    }
    let cp = p - c;
    let d5 = ab.dot3(cp);
    let d6 = ac.dot3(cp);
    if d6 >= zero && d5 <= d6 {
        return Some((TriangleFeature::Vertex(2), zero, zero));
    }
    // Edge ca (edge 2), parametrized from a: `d2 - d6 = |ac|²`.
    let vb = d5 * d2 - d1 * d6;
    if vb <= zero && d2 >= zero && d6 <= zero && d2 > d6 {
        return Some((TriangleFeature::Edge(2), zero, d2 / (d2 - d6)));
    }
    // Edge bc (edge 1): `(d4 - d3) + (d5 - d6) = |bc|²`.
    let va = d3 * d6 - d5 * d4;
    let (e4, e5) = (d4 - d3, d5 - d6);
    if va <= zero && e4 >= zero && e5 >= zero && e4 + e5 > zero {
        return Some((TriangleFeature::Edge(1), zero, e4 / (e4 + e5)));
    }
    // Face: `va + vb + vc = |ab × ac|²` (Lagrange's identity). It is zero for a zero-area
    // triangle, and rounding can leave a weight slightly negative: then the boundary decides.
    let denom = va + vb + vc;
    if va >= zero && vb >= zero && vc >= zero && denom > zero {
        return Some((TriangleFeature::Face, vb / denom, vc / denom));
    }
    None
}

/// The point and barycentric weights of a region found by [`triangle_region`].
#[inline(always)]
fn region_point<V: Vector3>(
    tri: [V; 3],
    (feature, v, w): (TriangleFeature, V::Scalar, V::Scalar),
) -> (V, [V::Scalar; 3]) {
    let [a, b, c] = tri;
    let (zero, one) = (V::Scalar::from(0.0), V::Scalar::from(1.0));
    match feature {
        TriangleFeature::Vertex(i) => {
            let mut bary = [zero; 3];
            bary[usize::from(i)] = one;
            (tri[usize::from(i)], bary)
        }
        TriangleFeature::Edge(0) => (a + (b - a) * v, [one - v, v, zero]),
        TriangleFeature::Edge(1) => (b + (c - b) * w, [zero, one - w, w]),
        TriangleFeature::Edge(_) => (a + (c - a) * w, [one - w, zero, w]),
        TriangleFeature::Face => (a + (b - a) * v + (c - a) * w, [one - v - w, v, w]),
    }
}

/// The point of the solid triangle `tri = [a, b, c]` closest to `p`, with its barycentric weights
/// and the feature it lies on.
///
/// Voronoi-region walk of Ericson §5.1.5: vertex regions, then edge regions, then the face, in
/// `f32`. Nearly degenerate triangles (an angle at `a` under about 7° or over 173°, where the
/// `f32` normal is unreliable) are redone in `f64`, so the distance is accurate to `f32` rounding
/// for every triangle. Zero-area triangles (collinear or coincident vertices, or thinner than
/// `10⁻⁹` of their size) are their edges: the closest of the three edges' closest points, with a
/// `Vertex` or `Edge` feature (never `Face`). No division by zero can occur. Either winding. A
/// non-finite input gives an unspecified (possibly NaN) result and never panics.
pub fn closest_point_triangle(p: Vec3, tri: &[Vec3; 3]) -> TriangleClosest {
    let [a, b, c] = *tri;
    let (ab, ac) = (b - a, c - a);
    if well_shaped(ab, ac, ab.cross(ac)) {
        if let Some(region) = triangle_region(p, a, b, c) {
            let (point, bary) = region_point(*tri, region);
            return TriangleClosest { point, bary: Vec3::from(bary), feature: region.0 };
        }
    }
    closest_point_triangle_precise(p, tri)
}

/// [`closest_point_triangle`] for slivers and zero-area triangles: the region walk in `f64`, or
/// the edges.
#[cold]
fn closest_point_triangle_precise(p: Vec3, tri: &[Vec3; 3]) -> TriangleClosest {
    let [a, b, c] = tri.map(Vec3::as_dvec3);
    let (ab, ac) = (b - a, c - a);
    let n = ab.cross(ac);
    if n.length_squared() > DEGENERATE_SIN2_F64 * ab.length_squared() * ac.length_squared() {
        if let Some(region) = triangle_region(p.as_dvec3(), a, b, c) {
            let (point, bary) = region_point([a, b, c], region);
            return TriangleClosest {
                point: point.as_vec3(),
                bary: DVec3::from(bary).as_vec3(),
                feature: region.0,
            };
        }
    }
    closest_point_triangle_edges(p, tri)
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

/// Four triangles side by side (structure of arrays): `corners[i][axis]` holds coordinate `axis`
/// of corner `i` of each of the four triangles, one per lane.
pub type Triangles4 = [[Vec4; 3]; 3];

/// Lower bounds of the squared distances from `p` to four triangles at once, for skipping the
/// exact [`closest_point_triangle`] of triangles that cannot be nearer than a known bound.
///
/// For a well-shaped triangle (see [`closest_point_triangle`]) the value is its squared distance
/// up to `f32` rounding of the coordinates relative to `p`: its square root is within a few ulps
/// of `max |p − corner|` of the distance, so a triangle it skips is at most that much nearer than
/// the bound. For any other triangle (slivers, zero-area, non-finite corners) it is `0` or NaN,
/// which no `d2 > bound` test rejects: such triangles are always tested exactly, as are those
/// whose bound overflows.
///
/// Branch-free: when `p` projects inside the triangle (the three edge tests agree with the
/// normal) the distance is the plane distance, otherwise the least of the three edges' segment
/// distances (the closest point then lies on the boundary).
#[inline]
pub fn distance_squared_lower_bound_triangles4(p: Vec3, tri: &Triangles4) -> Vec4 {
    let sub = |u: [Vec4; 3], v: [Vec4; 3]| [u[0] - v[0], u[1] - v[1], u[2] - v[2]];
    let dot = |u: [Vec4; 3], v: [Vec4; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let cross = |u: [Vec4; 3], v: [Vec4; 3]| {
        [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
    };
    let p = [Vec4::splat(p.x), Vec4::splat(p.y), Vec4::splat(p.z)];
    let [a, b, c] = *tri;
    let (ab, bc, ca) = (sub(b, a), sub(c, b), sub(a, c));
    let (ap, bp, cp) = (sub(p, a), sub(p, b), sub(p, c));
    let n = cross(ab, sub(c, a));
    let n2 = dot(n, n);
    // Inside when `p` is on the inner side of all three edges (the sign of n · (edge × to-p)).
    let inside = dot(cross(ab, ap), n).cmpge(Vec4::ZERO)
        & dot(cross(bc, bp), n).cmpge(Vec4::ZERO)
        & dot(cross(ca, cp), n).cmpge(Vec4::ZERO);
    // Divided before squaring: `plane²` alone overflows once the triangle's size² times the
    // distance passes about 1e19.
    let plane = dot(n, ap);
    let plane2 = plane / n2 * plane;
    // Segment distance: the projection clamped to the edge. Only trusted triangles (below) keep
    // this value, and their edges have nonzero length.
    let edge = |e: [Vec4; 3], to_p: [Vec4; 3]| {
        let t = (dot(to_p, e) / dot(e, e)).max(Vec4::ZERO).min(Vec4::ONE);
        let r = [to_p[0] - e[0] * t, to_p[1] - e[1] * t, to_p[2] - e[2] * t];
        dot(r, r)
    };
    let edges2 = edge(ab, ap).min(edge(bc, bp)).min(edge(ca, cp));
    let d2 = Vec4::select(inside, plane2, edges2);
    // Triangles whose `f32` normal is not trusted (as in `well_shaped`) always go to the exact test.
    let ac = sub(c, a);
    let trusted = n2.cmpge(Vec4::splat(SLIVER_SIN2) * dot(ab, ab) * dot(ac, ac))
        & n2.cmpge(Vec4::splat(f32::MIN_POSITIVE))
        & n2.cmplt(Vec4::INFINITY);
    // A bound that overflowed to infinity would skip the triangle: such triangles (coordinates
    // relative to `p` beyond about 1e19) go to the exact test too.
    Vec4::select(trusted & d2.is_finite_mask(), d2, Vec4::ZERO)
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
    // `a > 0` and `e > 0` fail for zero-length segments (and NaN): those are points.
    let (s, t) = if a > 0.0 {
        let c = d1.dot(r);
        if e > 0.0 {
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
        } else {
            // Segment b is a point: project it on segment a.
            (clamp01(-c / a), 0.0)
        }
    } else {
        // Segment a is a point: project it on segment b (or both are points).
        (0.0, if e > 0.0 { clamp01(f / e) } else { 0.0 })
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

    /// The walk itself accepts every region of a well-shaped triangle, in `f32` and `f64`,
    /// without the edge fallback.
    #[test]
    fn the_region_walk_accepts_every_region() {
        let cases = [
            (Vec3::new(-1.0, -1.0, 3.0), TriangleFeature::Vertex(0)),
            (Vec3::new(3.0, -1.0, 3.0), TriangleFeature::Vertex(1)),
            (Vec3::new(-1.0, 3.0, -3.0), TriangleFeature::Vertex(2)),
            (Vec3::new(1.0, -1.0, 1.0), TriangleFeature::Edge(0)),
            (Vec3::new(2.0, 2.0, 1.0), TriangleFeature::Edge(1)),
            (Vec3::new(-1.0, 1.0, 1.0), TriangleFeature::Edge(2)),
            (Vec3::new(0.5, 0.5, -4.0), TriangleFeature::Face),
        ];
        let [a, b, c] = TRI;
        for (p, feature) in cases {
            assert_eq!(triangle_region(p, a, b, c).map(|r| r.0), Some(feature), "{p}");
            let region = triangle_region(p.as_dvec3(), a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
            assert_eq!(region.map(|r| r.0), Some(feature), "{p} in f64");
        }
    }

    /// Slivers (an angle at `a` of 0.5° to 6°, below the `f32` trust bound) are redone in `f64`:
    /// points above the face, beside it and past the tip match the `f64` reference.
    #[test]
    fn slivers_match_the_reference() {
        use kollide_testkit::reference_primitive::closest_point_triangle_reference;
        for degrees in [0.5f32, 1.0, 2.0, 4.0, 6.0] {
            let angle = degrees.to_radians();
            let tri =
                [Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), Vec3::new(3.0 * angle.cos(), 3.0 * angle.sin(), 0.0)];
            let inside = (tri[0] + tri[1] + tri[2]) / 3.0;
            for p in [
                inside + Vec3::Z,
                inside - Vec3::Y * 0.5,
                Vec3::new(4.0, 0.1, 0.3),
                Vec3::new(-1.0, 0.2, 0.0),
            ] {
                let got = closest_point_triangle(p, &tri).point;
                let reference = closest_point_triangle_reference(p, &tri);
                assert!(
                    (got.as_dvec3() - reference).length() < 1e-5,
                    "{degrees}°, {p}: {got} vs {reference}"
                );
            }
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
