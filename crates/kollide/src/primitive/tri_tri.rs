//! Triangle/triangle overlap, exact for every input configuration.
//!
//! The test follows Guigue and Devillers, "Fast and Robust Triangle-Triangle Overlap Test Using
//! Orientation Predicates" (JGT 2003): it is written entirely in terms of the sign of 3×3
//! orientation determinants, which [`super::predicates`] evaluates exactly. So the answer is the
//! exact answer for the given `f32` coordinates, including touching, coplanar and degenerate
//! (zero-area) triangles.
//!
//! Triangles are closed sets: sharing a single point counts as intersecting. A zero-area
//! triangle is treated as the segment or point it collapses to. Triangles with a NaN or infinite
//! coordinate never intersect anything.

use super::predicates::{PlaneOrientation, drop_axis, orient2d, orient3d};
use glam::{Vec2, Vec3};

/// Where two intersecting triangles meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TriangleIntersection {
    /// The triangles cross or touch along the segment `start`–`end` (a single point when
    /// `start == end`). This is the case for every pair that does not share a plane.
    Segment { start: Vec3, end: Vec3 },
    /// The triangles lie in one plane and their areas overlap or touch. Also reported when both
    /// triangles are degenerate (two segments or points meeting).
    Coplanar,
}

/// True if the closed triangles `t1` and `t2` share at least one point. Exact; see the module
/// documentation for degenerate and non-finite input.
#[inline]
pub fn test_triangle_triangle(t1: &[Vec3; 3], t2: &[Vec3; 3]) -> bool {
    !matches!(arrange(t1, t2), Arrangement::Disjoint)
}

/// Where the closed triangles `t1` and `t2` meet, or `None` if they do not.
///
/// Whether they meet is decided exactly (as [`test_triangle_triangle`]); the segment endpoints are
/// then computed in `f32` and lie on both triangles up to rounding (relative error of a few ulps of
/// the coordinates, more when the planes are within a few ulps of parallel).
pub fn intersect_triangle_triangle(t1: &[Vec3; 3], t2: &[Vec3; 3]) -> Option<TriangleIntersection> {
    match arrange(t1, t2) {
        Arrangement::Disjoint => None,
        Arrangement::Coplanar => Some(TriangleIntersection::Coplanar),
        Arrangement::Point(p) => Some(TriangleIntersection::Segment { start: p, end: p }),
        Arrangement::Crossing(crossing) => Some(crossing.segment()),
    }
}

/// How two triangles lie relative to each other, with what is needed to build the intersection.
enum Arrangement {
    Disjoint,
    Coplanar,
    /// A degenerate triangle touches the other one in a single point.
    Point(Vec3),
    Crossing(Crossing),
}

/// Two non-degenerate, non-coplanar triangles that intersect, with their vertices reordered as in
/// Guigue–Devillers: `t1[0]` is alone on the non-negative side of the (possibly flipped) plane of
/// `t2`, `t1[1]` and `t1[2]` on the non-positive side, and symmetrically for `t2`. The `*_side`
/// arrays hold the signed plane values of each vertex with those signs.
struct Crossing {
    t1: [Vec3; 3],
    t1_side: [f32; 3],
    t2: [Vec3; 3],
    t2_side: [f32; 3],
}

impl Crossing {
    /// The overlap of the two segments in which each triangle cuts the other's plane.
    fn segment(&self) -> TriangleIntersection {
        // Triangle 1 meets plane 2 in [i, j]: i on edge t1[0]–t1[1], j on edge t1[0]–t1[2].
        // The apex value is >= 0 and the others <= 0, never both zero, so each divisor is > 0.
        let cut =
            |t: &[Vec3; 3], side: &[f32; 3], k: usize| t[0] + (t[k] - t[0]) * (side[0] / (side[0] - side[k]));
        let (i, j) = (cut(&self.t1, &self.t1_side, 1), cut(&self.t1, &self.t1_side, 2));
        let (k, l) = (cut(&self.t2, &self.t2_side, 1), cut(&self.t2, &self.t2_side, 2));
        // All four points lie on the line shared by the planes; order them by the coordinate along
        // which that line varies most (its direction's largest component), as Möller (1997) does.
        let n1 = (self.t1[1] - self.t1[0]).cross(self.t1[2] - self.t1[0]);
        let n2 = (self.t2[1] - self.t2[0]).cross(self.t2[2] - self.t2[0]);
        let axis = n1.cross(n2).abs().max_position();
        let key = |p: Vec3| p[axis];
        let (a_lo, a_hi) = if key(i) <= key(j) { (i, j) } else { (j, i) };
        let (b_lo, b_hi) = if key(k) <= key(l) { (k, l) } else { (l, k) };
        let start = if key(a_lo) >= key(b_lo) { a_lo } else { b_lo };
        let end = if key(a_hi) <= key(b_hi) { a_hi } else { b_hi };
        let (start, end) = if key(start) <= key(end) {
            (start, end)
        } else {
            // The exact test found contact but rounding crossed the endpoints: they touch.
            let mid = 0.5 * (start + end);
            (mid, mid)
        };
        // A sliver's plane is lost to rounding, so the other triangle's cut by it is not to be
        // trusted; the sliver's cut by the other's plane is: clip it to the other triangle.
        match (is_sliver(&self.t1, n1), is_sliver(&self.t2, n2)) {
            (true, false) => clip_in_plane(i, j, &self.t2, n2),
            (false, true) => clip_in_plane(k, l, &self.t1, n1),
            _ => TriangleIntersection::Segment { start, end },
        }
    }
}

/// Whether the triangle with normal `n = (t1 - t0) × (t2 - t0)` is a sliver, whose plane `f32`
/// cannot locate: the sine of its angle at `t0` below `1e-3`. The normal's direction is then off
/// by up to `ε / sin` radians, and a cut of the other triangle by that plane drifts along its
/// edges.
fn is_sliver(t: &[Vec3; 3], n: Vec3) -> bool {
    n.length_squared() < 1e-6 * (t[1] - t[0]).length_squared() * (t[2] - t[0]).length_squared()
}

/// The part of the segment `a`–`b` (lying in the plane of `t`, whose normal is `n`) inside `t`:
/// Cyrus–Beck clipping by the three edges' inward normals `n × edge` (either winding: the sign of
/// `n` flips all three). The exact test has already found contact, so a clip that rounding
/// empties gives the point of the segment at the crossing of the bounds.
fn clip_in_plane(a: Vec3, b: Vec3, t: &[Vec3; 3], n: Vec3) -> TriangleIntersection {
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for k in 0..3 {
        let inward = n.cross(t[(k + 1) % 3] - t[k]);
        let (at_a, rate) = (inward.dot(a - t[k]), inward.dot(b - a));
        // inside where at_a + s · rate >= 0
        if rate > 0.0 {
            lo = lo.max(-at_a / rate);
        } else if rate < 0.0 {
            hi = hi.min(-at_a / rate);
        }
    }
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (0.5 * (lo + hi), 0.5 * (lo + hi)) };
    let at = |s: f32| a + (b - a) * s.clamp(0.0, 1.0);
    TriangleIntersection::Segment { start: at(lo), end: at(hi) }
}

/// Apex choice for a triangle given the exact sides `s` of its vertices relative to the other
/// triangle's plane (not all equal and non-zero, not all zero): the index `k` and the sign `σ` such
/// that `σ·s[k] >= 0` and `σ·s[j] <= 0` for the two other vertices. Indexed by
/// `9 (s0 + 1) + 3 (s1 + 1) + (s2 + 1)`; entries for excluded sign patterns are unused.
const APEX: [(u8, i8); 27] = apex_table();

const fn apex_table() -> [(u8, i8); 27] {
    let mut table = [(0u8, 1i8); 27];
    let mut code = 0;
    while code < 27 {
        let s = [(code / 9) as i32 - 1, ((code / 3) % 3) as i32 - 1, (code % 3) as i32 - 1];
        let (mut positive, mut negative) = (0, 0);
        let mut k = 0;
        while k < 3 {
            positive += (s[k] > 0) as i32;
            negative += (s[k] < 0) as i32;
            k += 1;
        }
        // One vertex strictly alone on its side: it is the apex. Otherwise the pattern is
        // (+, +, 0) or (-, -, 0) up to order, and the vertex on the plane is the apex.
        let (wanted, sigma) = if positive == 1 {
            (1, 1)
        } else if negative == 1 {
            (-1, -1)
        } else if positive == 2 {
            (0, -1)
        } else {
            (0, 1)
        };
        let mut apex = 0;
        while apex < 3 && s[apex] != wanted {
            apex += 1;
        }
        table[code] = ((apex % 3) as u8, sigma);
        code += 1;
    }
    table
}

#[inline]
fn apex_of(s: [i32; 3]) -> (usize, f32) {
    let (k, sigma) = APEX[(9 * (s[0] + 1) + 3 * (s[1] + 1) + (s[2] + 1)) as usize];
    (k as usize, sigma as f32)
}

#[inline]
fn one_side_strictly(s: [i32; 3]) -> bool {
    s[0] == s[1] && s[1] == s[2] && s[0] != 0
}

#[inline]
fn rotate<T: Copy>(v: [T; 3], k: usize) -> [T; 3] {
    [v[k], v[(k + 1) % 3], v[(k + 2) % 3]]
}

fn arrange(t1: &[Vec3; 3], t2: &[Vec3; 3]) -> Arrangement {
    if !t1.iter().chain(t2).all(|p| p.is_finite()) {
        return Arrangement::Disjoint;
    }
    let plane2 = PlaneOrientation::new(t2[0], t2[1], t2[2]);
    let (a0, a1, a2) =
        (plane2.side_and_value(t1[0]), plane2.side_and_value(t1[1]), plane2.side_and_value(t1[2]));
    let s1 = [a0.0, a1.0, a2.0];
    if one_side_strictly(s1) {
        return Arrangement::Disjoint;
    }
    let plane1 = PlaneOrientation::new(t1[0], t1[1], t1[2]);
    let (b0, b1, b2) =
        (plane1.side_and_value(t2[0]), plane1.side_and_value(t2[1]), plane1.side_and_value(t2[2]));
    let s2 = [b0.0, b1.0, b2.0];
    if one_side_strictly(s2) {
        return Arrangement::Disjoint;
    }
    // A degenerate triangle puts every point on its "plane" (all sides zero), and a triangle lying
    // in the other's plane does too. When neither side pattern is all zero, both triangles are
    // proper and cross each other's planes: the common case.
    let flat1 = s1 == [0; 3];
    let flat2 = s2 == [0; 3];
    if flat1 || flat2 {
        return arrange_flat(t1, t2, &plane1, &plane2);
    }

    // Guigue–Devillers normalisation. Rotate t1 so its apex comes first; if the apex is on the
    // negative side of plane 2, flip plane 2 by swapping t2[1] and t2[2]. Then the same for t2,
    // flipping plane 1 by swapping t1[1] and t1[2] (rotations keep both planes' orientations).
    let (k1, sigma1) = apex_of(s1);
    let mut p = rotate(*t1, k1);
    let mut p_side = rotate([a0.1, a1.1, a2.1], k1).map(|v| v * sigma1);
    let (mut q, mut q_sign, mut q_side) = (*t2, s2, [b0.1, b1.1, b2.1]);
    if sigma1 < 0.0 {
        q.swap(1, 2);
        q_sign.swap(1, 2);
        q_side.swap(1, 2);
    }
    let (k2, sigma2) = apex_of(q_sign);
    let q = rotate(q, k2);
    let q_side = rotate(q_side, k2).map(|v| v * sigma2);
    if sigma2 < 0.0 {
        p.swap(1, 2);
        p_side.swap(1, 2);
    }
    // Each triangle now cuts the other's plane in a segment on their common line; the segments
    // overlap iff both orientations below are non-positive (Guigue–Devillers, §3).
    if orient3d(p[0], p[1], q[0], q[1]) > 0 || orient3d(p[0], p[2], q[2], q[0]) > 0 {
        return Arrangement::Disjoint;
    }
    Arrangement::Crossing(Crossing { t1: p, t1_side: p_side, t2: q, t2_side: q_side })
}

/// The rare cases: coplanar triangles, or at least one degenerate triangle.
#[cold]
fn arrange_flat(
    t1: &[Vec3; 3],
    t2: &[Vec3; 3],
    plane1: &PlaneOrientation,
    plane2: &PlaneOrientation,
) -> Arrangement {
    match (plane1.is_degenerate(), plane2.is_degenerate()) {
        (false, false) => {
            if coplanar_triangles_overlap(t1, t2, plane1) {
                Arrangement::Coplanar
            } else {
                Arrangement::Disjoint
            }
        }
        (true, false) => degenerate_vs_triangle(t1, t2, plane2),
        (false, true) => degenerate_vs_triangle(t2, t1, plane1),
        (true, true) => {
            let touch =
                edges(t1).iter().any(|&(a, b)| edges(t2).iter().any(|&(c, d)| segments_meet_3d(a, b, c, d)));
            if touch { Arrangement::Coplanar } else { Arrangement::Disjoint }
        }
    }
}

fn edges(t: &[Vec3; 3]) -> [(Vec3, Vec3); 3] {
    [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]
}

/// A zero-area triangle (the union of its three edges, which covers the segment or point it
/// collapses to) against a proper triangle.
fn degenerate_vs_triangle(flat: &[Vec3; 3], tri: &[Vec3; 3], plane: &PlaneOrientation) -> Arrangement {
    let axis = projection_axis(tri, plane);
    let mut in_plane_touch = false;
    for (a, b) in edges(flat) {
        let (sa, va) = plane.side_and_value(a);
        let (sb, vb) = plane.side_and_value(b);
        if sa * sb > 0 {
            continue;
        }
        if sa == 0 && sb == 0 {
            in_plane_touch |= segment_meets_triangle_2d(a, b, tri, axis);
            continue;
        }
        // The segment crosses the plane in one point; the line through it meets the closed
        // triangle iff it passes on the same side of (or through) all three edge lines.
        let o =
            [orient3d(a, b, tri[0], tri[1]), orient3d(a, b, tri[1], tri[2]), orient3d(a, b, tri[2], tri[0])];
        if o.iter().all(|&s| s >= 0) || o.iter().all(|&s| s <= 0) {
            return Arrangement::Point(a + (b - a) * (va / (va - vb)));
        }
    }
    if in_plane_touch { Arrangement::Coplanar } else { Arrangement::Disjoint }
}

/// The coordinate to drop so that projecting `tri`'s plane onto the other two is one-to-one: one
/// where the triangle's projection has exactly non-zero area.
fn projection_axis(tri: &[Vec3; 3], plane: &PlaneOrientation) -> usize {
    let first = plane.normal.abs().max_position();
    (0..3)
        .map(|i| (first + i) % 3)
        .find(|&axis| {
            orient2d(drop_axis(tri[0], axis), drop_axis(tri[1], axis), drop_axis(tri[2], axis)) != 0
        })
        .unwrap_or(first)
}

fn coplanar_triangles_overlap(t1: &[Vec3; 3], t2: &[Vec3; 3], plane1: &PlaneOrientation) -> bool {
    let axis = projection_axis(t1, plane1);
    let p = t1.map(|v| drop_axis(v, axis));
    let q = t2.map(|v| drop_axis(v, axis));
    // Closed triangles in a plane overlap iff two edges meet or one contains a vertex of the other.
    let edge_hit =
        (0..3).any(|i| (0..3).any(|j| segments_meet_2d(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3])));
    edge_hit || point_in_triangle_2d(p[0], &q) || point_in_triangle_2d(q[0], &p)
}

fn segment_meets_triangle_2d(a: Vec3, b: Vec3, tri: &[Vec3; 3], axis: usize) -> bool {
    let (a, b) = (drop_axis(a, axis), drop_axis(b, axis));
    let t = tri.map(|v| drop_axis(v, axis));
    (0..3).any(|j| segments_meet_2d(a, b, t[j], t[(j + 1) % 3])) || point_in_triangle_2d(a, &t)
}

/// True if `p` lies in the closed, non-degenerate 2D triangle `t` (either winding).
fn point_in_triangle_2d(p: Vec2, t: &[Vec2; 3]) -> bool {
    let o = [orient2d(t[0], t[1], p), orient2d(t[1], t[2], p), orient2d(t[2], t[0], p)];
    o.iter().all(|&s| s >= 0) || o.iter().all(|&s| s <= 0)
}

/// True if the closed 2D segments `a–b` and `c–d` share a point (exact; zero-length segments are
/// points).
pub(crate) fn segments_meet_2d(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let (o1, o2) = (orient2d(a, b, c), orient2d(a, b, d));
    let (o3, o4) = (orient2d(c, d, a), orient2d(c, d, b));
    if o1 * o2 < 0 && o3 * o4 < 0 {
        return true;
    }
    // Touching or collinear: some endpoint lies on the other segment.
    let on = |p: Vec2, q: Vec2, r: Vec2| r.cmpge(p.min(q)).all() && r.cmple(p.max(q)).all();
    (o1 == 0 && on(a, b, c))
        || (o2 == 0 && on(a, b, d))
        || (o3 == 0 && on(c, d, a))
        || (o4 == 0 && on(c, d, b))
}

/// True if the closed 3D segments `a–b` and `c–d` share a point (exact).
///
/// They must be coplanar; then some coordinate projection is one-to-one on their common plane (or
/// line), so they meet iff their projections meet in all three coordinate planes.
fn segments_meet_3d(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> bool {
    orient3d(a, b, c, d) == 0
        && (0..3).all(|axis| {
            segments_meet_2d(drop_axis(a, axis), drop_axis(b, axis), drop_axis(c, axis), drop_axis(d, axis))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> [Vec3; 3] {
        [Vec3::from(a), Vec3::from(b), Vec3::from(c)]
    }

    #[test]
    fn crossing_triangles_meet_along_a_segment() {
        let t1 = tri([-1.0, -1.0, 0.0], [2.0, -1.0, 0.0], [-1.0, 2.0, 0.0]);
        let t2 = tri([0.0, 0.0, -1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
        assert!(test_triangle_triangle(&t1, &t2));
        let Some(TriangleIntersection::Segment { start, end }) = intersect_triangle_triangle(&t1, &t2) else {
            panic!("expected a segment");
        };
        let (lo, hi) = if start.x <= end.x { (start, end) } else { (end, start) };
        assert!(lo.abs_diff_eq(Vec3::ZERO, 1e-6), "{lo}");
        assert!(hi.abs_diff_eq(Vec3::X, 1e-6), "{hi}");
    }

    #[test]
    fn separated_and_touching() {
        let t1 = tri([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        let above = tri([0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 2.0]);
        assert!(!test_triangle_triangle(&t1, &above));
        // Shares exactly one vertex with t1.
        let vertex_touch = tri([1.0, 0.0, 0.0], [2.0, 0.0, 1.0], [2.0, 1.0, -1.0]);
        assert!(test_triangle_triangle(&t1, &vertex_touch));
        assert_eq!(
            intersect_triangle_triangle(&t1, &vertex_touch),
            Some(TriangleIntersection::Segment { start: Vec3::X, end: Vec3::X })
        );
        // Edge-to-edge touch across a shared edge (a hinge).
        let hinge = tri([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, -1.0, 1.0]);
        assert!(test_triangle_triangle(&t1, &hinge));
        // Moved by one ulp away: no contact.
        let nudged = hinge.map(|p| Vec3::new(p.x, p.y - 1e-7, p.z));
        assert!(!test_triangle_triangle(&t1, &nudged));
    }

    #[test]
    fn coplanar_cases() {
        let t1 = tri([0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]);
        let inside = tri([0.5, 0.5, 0.0], [1.0, 0.5, 0.0], [0.5, 1.0, 0.0]);
        let crossing = tri([3.0, -1.0, 0.0], [3.0, 3.0, 0.0], [5.0, 1.0, 0.0]);
        let apart = tri([3.0, 3.0, 0.0], [5.0, 3.0, 0.0], [3.0, 5.0, 0.0]);
        let edge_touch = tri([2.0, 2.0, 0.0], [4.0, 4.0, 0.0], [4.0, 0.0, 0.0]);
        for (other, expected) in [(inside, true), (crossing, true), (apart, false), (edge_touch, true)] {
            assert_eq!(test_triangle_triangle(&t1, &other), expected);
            assert_eq!(test_triangle_triangle(&other, &t1), expected);
        }
        assert_eq!(intersect_triangle_triangle(&t1, &inside), Some(TriangleIntersection::Coplanar));
    }

    #[test]
    fn degenerate_triangles_are_segments_and_points() {
        let t = tri([0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]);
        // A needle (collinear vertices) piercing the triangle.
        let needle = tri([0.5, 0.5, -1.0], [0.5, 0.5, 1.0], [0.5, 0.5, 3.0]);
        assert!(test_triangle_triangle(&t, &needle));
        assert!(test_triangle_triangle(&needle, &t));
        assert_eq!(
            intersect_triangle_triangle(&needle, &t),
            Some(TriangleIntersection::Segment {
                start: Vec3::new(0.5, 0.5, 0.0),
                end: Vec3::new(0.5, 0.5, 0.0)
            })
        );
        // The same needle stopping short of the plane.
        let short = tri([0.5, 0.5, 0.5], [0.5, 0.5, 1.0], [0.5, 0.5, 0.75]);
        assert!(!test_triangle_triangle(&t, &short));
        // A point triangle on the boundary, and one just outside.
        let on_edge = tri([1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 0.0]);
        let outside = tri([1.0, 1.01, 0.0], [1.0, 1.01, 0.0], [1.0, 1.01, 0.0]);
        assert!(test_triangle_triangle(&t, &on_edge));
        assert!(!test_triangle_triangle(&t, &outside));
        // A segment lying in the plane, crossing an edge.
        let in_plane = tri([1.5, -1.0, 0.0], [1.5, 1.0, 0.0], [1.5, 0.0, 0.0]);
        assert!(test_triangle_triangle(&t, &in_plane));
        // Two degenerate triangles: crossing segments, and parallel disjoint ones.
        let s1 = tri([0.0, 0.0, 0.0], [2.0, 2.0, 2.0], [1.0, 1.0, 1.0]);
        let s2 = tri([0.0, 2.0, 2.0], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
        let s3 = tri([0.0, 0.0, 1.0], [2.0, 2.0, 3.0], [2.0, 2.0, 3.0]);
        assert!(test_triangle_triangle(&s1, &s2));
        assert!(!test_triangle_triangle(&s1, &s3));
    }

    #[test]
    fn non_finite_input_never_intersects() {
        let t = tri([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let u = tri([bad, 0.0, 0.0], [0.2, 0.2, -1.0], [0.2, 0.2, 1.0]);
            assert!(!test_triangle_triangle(&t, &u));
            assert!(!test_triangle_triangle(&u, &t));
            assert_eq!(intersect_triangle_triangle(&u, &t), None);
        }
    }

    #[test]
    fn apex_table_satisfies_its_contract() {
        for s0 in -1..=1 {
            for s1 in -1..=1 {
                for s2 in -1..=1 {
                    let s = [s0, s1, s2];
                    if s == [0; 3] || one_side_strictly(s) {
                        continue;
                    }
                    let (k, sigma) = apex_of(s);
                    let sigma = sigma as i32;
                    assert!(sigma * s[k] >= 0, "{s:?}");
                    assert!((1..3).all(|i| sigma * s[(k + i) % 3] <= 0), "{s:?}");
                }
            }
        }
    }
}
