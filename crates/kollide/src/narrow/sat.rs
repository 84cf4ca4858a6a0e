//! Closed-form and separating-axis fast paths: ball and capsule pairs (in any combination), box–box
//! and box–triangle (contacts, and the separating axes alone as a pre-pass for distances).
//!
//! Each applies only when the placements of its balls, capsules and boxes are similarities
//! (checked by the dispatcher), where a ball stays a ball, a capsule a capsule and a box a box
//! (scaled by `s`); a triangle stays a triangle under any map.

use glam::{Mat3A, Vec3, Vec3A, Vec3Swizzles};

use super::epa::Flat;
use super::frame::{FrameContact, Side};

/// The contact of two spheres `(ca, ra)`, `(cb, rb)`; the normal for concentric spheres is `+y`.
#[inline]
pub(crate) fn spheres(ca: Vec3A, ra: f32, cb: Vec3A, rb: f32, prediction: f32) -> Option<FrameContact> {
    let d = cb - ca;
    let dist2 = d.length_squared();
    let reach = ra + rb + prediction;
    if dist2 > reach * reach {
        return None;
    }
    let dist = dist2.sqrt();
    let n = if dist > 0.0 { d / dist } else { Vec3A::Y };
    Some(FrameContact { point_a: ca + n * ra, point_b: cb - n * rb, normal: n, separation: dist - ra - rb })
}

/// `x` clamped to `[0, 1]` without a branch (NaN gives 0: `f32::max` drops a NaN operand).
#[inline(always)]
#[allow(clippy::manual_clamp)] // `f32::clamp` keeps a NaN
fn clamp01(x: f32) -> f32 {
    x.max(0.0).min(1.0)
}

/// The closest points of segments `a0 a1` and `b0 b1`: the algorithm of
/// [`closest_points_segment_segment`](crate::primitive::closest_points_segment_segment) (Ericson,
/// *Real-Time Collision Detection*, §5.1.9), with the same results for finite input, but both
/// clamping cases computed and selected instead of branched on, since random pairs (capsules, and
/// the edges of box contacts) take every case and a mispredicted branch costs more than a
/// division.
#[inline(always)]
pub(crate) fn segment_segment(a0: Vec3A, a1: Vec3A, b0: Vec3A, b1: Vec3A) -> (Vec3A, Vec3A) {
    let (d1, d2, r) = (a1 - a0, b1 - b0, a0 - b0);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    let (s, t) = if a > 0.0 && e > 0.0 {
        let (b, c) = (d1.dot(d2), d1.dot(r));
        // s of the closest points of the two lines (`n·(d2 × r) = b f - c e` without its
        // cancellation), clamped; any s for parallel lines.
        let n = d1.cross(d2);
        let denom = n.length_squared();
        let s_line = if denom > 0.0 { clamp01(n.dot(d2.cross(r)) / denom) } else { 0.0 };
        let t = (b * s_line + f) / e;
        let t_clamped = clamp01(t);
        // Where t was clamped, s is re-projected from the clamped end of segment b.
        let s_end = clamp01((b * t_clamped - c) / a);
        (if t == t_clamped { s_line } else { s_end }, t_clamped)
    } else if a > 0.0 {
        (clamp01(-d1.dot(r) / a), 0.0)
    } else {
        (0.0, if e > 0.0 { clamp01(f / e) } else { 0.0 })
    };
    (a0 + d1 * s, b0 + d2 * t)
}

/// Two capsules (segments `a0 a1`, `b0 b1` with radii): the closest points of the segments,
/// pushed out by the radii. When the segments cross, the normal is their common perpendicular
/// (the penetration is the sum of the radii, see [`Flat`]), oriented along `hint`.
#[inline(always)]
pub(crate) fn capsules(
    (a0, a1, ra): (Vec3A, Vec3A, f32),
    (b0, b1, rb): (Vec3A, Vec3A, f32),
    hint: Vec3A,
    prediction: f32,
) -> Option<FrameContact> {
    let (pa, pb) = segment_segment(a0, a1, b0, b1);
    let dist2 = pa.distance_squared(pb);
    let reach = ra + rb + prediction;
    if dist2 > reach * reach {
        return None;
    }
    let dist = dist2.sqrt();
    let n = if dist > 1e-6 * (1.0 + pa.abs().max_element()) {
        (pb - pa) / dist
    } else {
        let (da, db) = (a1 - a0, b1 - b0);
        let cross = da.cross(db);
        let flat = if cross.length_squared() > 1e-12 * da.length_squared() * db.length_squared() {
            Flat::Plane(cross.normalize())
        } else if da.length_squared() > 0.0 {
            Flat::Line(da.normalize())
        } else if db.length_squared() > 0.0 {
            Flat::Line(db.normalize())
        } else {
            Flat::Point
        };
        flat.normal_towards(hint)
    };
    let separation = if dist > 0.0 { (pb - pa).dot(n) } else { 0.0 } - ra - rb;
    Some(FrameContact { point_a: pa + n * ra, point_b: pb - n * rb, normal: n, separation })
}

/// The two-point manifold of nearly parallel capsules (within `PARALLEL_SIN`): the segments'
/// common stretch, measured along their bisector (so the answer does not depend on the order of
/// A and B), gives one point at each end. `None` when they are not parallel or do not overlap
/// along it (then the single contact is the manifold).
pub(crate) fn parallel_capsule_points(
    (a0, a1, ra): (Vec3A, Vec3A, f32),
    (b0, b1, rb): (Vec3A, Vec3A, f32),
    normal: Vec3A,
) -> Option<[(Vec3A, Vec3A, f32); 2]> {
    const PARALLEL_SIN: f32 = 0.02;
    let (da, db) = (a1 - a0, b1 - b0);
    let (la2, lb2) = (da.length_squared(), db.length_squared());
    if !(la2 > 0.0 && lb2 > 0.0) || da.cross(db).length_squared() > PARALLEL_SIN * PARALLEL_SIN * la2 * lb2 {
        return None;
    }
    let (ua, ub) = (da / la2.sqrt(), db / lb2.sqrt());
    let u = (ua + if ua.dot(ub) < 0.0 { -ub } else { ub }).normalize();
    let span = |p: Vec3A, q: Vec3A| {
        let (x, y) = (p.dot(u), q.dot(u));
        (x.min(y), x.max(y))
    };
    let ((a_lo, a_hi), (b_lo, b_hi)) = (span(a0, a1), span(b0, b1));
    let (lo, hi) = (a_lo.max(b_lo), a_hi.min(b_hi));
    if !(hi > lo) {
        return None;
    }
    // The point of a segment whose projection on u is `x`.
    let at = |p: Vec3A, d: Vec3A, x: f32| {
        let du = d.dot(u);
        p + d * ((x - p.dot(u)) / du).clamp(0.0, 1.0)
    };
    Some([lo, hi].map(|x| {
        let (pa, pb) = (at(a0, da, x), at(b0, db, x));
        (pa + normal * ra, pb - normal * rb, (pb - pa).dot(normal) - ra - rb)
    }))
}

impl FrameContact {
    /// The contact mapped from a box's basis (`axes`, orthonormal columns; `center`) to the frame.
    fn mapped(self, axes: &Mat3A, center: Vec3A) -> Self {
        Self {
            point_a: *axes * self.point_a + center,
            point_b: *axes * self.point_b + center,
            normal: *axes * self.normal,
            separation: self.separation,
        }
    }
}

/// A box in the frame: centre, unit axes (columns) and half extents.
struct FrameBox {
    center: Vec3A,
    axes: Mat3A,
    half: Vec3A,
}

impl FrameBox {
    fn new(side: &Side, half: Vec3) -> Self {
        let s = side.scale.unwrap_or(1.0);
        let axes = match side.matrix {
            Some((m, _)) => m * (1.0 / s),
            None => Mat3A::IDENTITY,
        };
        Self { center: side.translation, axes, half: Vec3A::from(half) * s }
    }

    /// The box corner farthest along `d`.
    #[inline]
    fn support(&self, d: Vec3A) -> Vec3A {
        let local = Vec3A::new(self.axes.x_axis.dot(d), self.axes.y_axis.dot(d), self.axes.z_axis.dot(d));
        self.center + self.axes * self.half.copysign(local)
    }

    /// The edge parallel to axis `i` farthest along `d`.
    fn edge(&self, i: usize, d: Vec3A) -> (Vec3A, Vec3A) {
        let axis = self.axes.col(i);
        let mid = self.support(d - axis * axis.dot(d));
        let mid = mid - axis * axis.dot(mid - self.center);
        (mid - axis * self.half[i], mid + axis * self.half[i])
    }
}

/// Two boxes by the 15-axis separating-axis test (Gottschalk et al. 1996): the three face normals
/// of each box and the nine edge cross products. The penetration of two convex polytopes is the
/// smallest overlap over these axes, so when every axis overlaps this is the exact penetration.
///
/// `Some(None)`: some axis separates them by more than `prediction` (no contact). `None`: they are
/// apart by at most `prediction` (the caller runs GJK for the exact distance). `Some(Some(c))`:
/// penetrating (or touching). Face axes win over edge axes unless an edge axis is shallower by
/// more than 0.1% of the face depth plus `1e-6`, which keeps face contacts stable.
pub(crate) fn cuboid_cuboid(
    ca: &crate::shape::Cuboid,
    a: &Side,
    cb: &crate::shape::Cuboid,
    b: &Side,
    prediction: f32,
) -> Option<Option<FrameContact>> {
    let ba = FrameBox::new(a, ca.half_extents);
    let bb = FrameBox::new(b, cb.half_extents);
    let d = bb.center - ba.center;
    // Everything in A's box basis (Gottschalk et al.): r[i][j] = aᵢ · bⱼ, t = d in A's basis,
    // evaluated a row or a column of r at a time: `rows.col(i)` is row i (Bᵀ aᵢ), `abs_cols.col(j)`
    // column j of |r|.
    let (ax, bx) = (ba.axes, bb.axes);
    let rows = bx.transpose() * ax;
    let abs_rows = Mat3A::from_cols(rows.x_axis.abs(), rows.y_axis.abs(), rows.z_axis.abs());
    let abs_cols = abs_rows.transpose();
    let t = ax.transpose() * d;
    let (ha, hb) = (ba.half, bb.half);
    // Face axes: aᵢ (lane i) and bⱼ (lane j).
    let faces_a = ha + abs_cols * hb - t.abs();
    let faces_b = abs_rows * ha + hb - (rows * t).abs();
    // A face axis that separates them already decides (the edge axes cost square roots).
    if faces_a.min(faces_b).min_element() < -prediction {
        return Some(None);
    }
    // Edge axes aᵢ × bⱼ = (0, -r[i2][j], r[i1][j]) rotated to (i, i1, i2) in A's basis, lane j
    // for each i; parallel edges give no axis (an infinite overlap).
    let (hb1, hb2) = (hb.yzx(), hb.zxy());
    let edges = [0, 1, 2].map(|i| {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let (r1, r2, ri) = (rows.col(i1), rows.col(i2), abs_rows.col(i));
        let len2 = r1 * r1 + r2 * r2;
        let ra = ha[i1] * r2.abs() + ha[i2] * r1.abs();
        let rb = hb1 * ri.zxy() + hb2 * ri.yzx();
        let dist = t[i2] * r1 - t[i1] * r2;
        Vec3A::select(len2.cmpge(Vec3A::splat(1e-10)), (ra + rb - dist.abs()) / len2.sqrt(), Vec3A::INFINITY)
    });
    let least = faces_a.min(faces_b).min(edges[0]).min(edges[1]).min(edges[2]).min_element();
    if least < -prediction {
        return Some(None);
    }
    let separated = least < 0.0;
    // The shallowest face axis (A's, then B's) and edge axis (i-major); the first on ties.
    let mut best_face = (f32::INFINITY, 0usize);
    for (k, overlap) in faces_a.to_array().into_iter().chain(faces_b.to_array()).enumerate() {
        if overlap < best_face.0 {
            best_face = (overlap, k);
        }
    }
    let mut best_edge = (f32::INFINITY, 0usize, 0usize);
    for (i, overlaps) in edges.iter().enumerate() {
        for j in 0..3 {
            if overlaps[j] < best_edge.0 {
                best_edge = (overlaps[j], i, j);
            }
        }
    }
    if separated {
        return None;
    }
    let flip = |l: Vec3A| if d.dot(l) < 0.0 { -l } else { l };
    if best_edge.0 < best_face.0 * 0.999 - 1e-6 {
        let (depth, i, j) = best_edge;
        let n = flip(ax.col(i).cross(bx.col(j)).normalize());
        let (a0, a1) = ba.edge(i, n);
        let (b0, b1) = bb.edge(j, -n);
        let (point_a, point_b) = segment_segment(a0, a1, b0, b1);
        return Some(Some(FrameContact { point_a, point_b, normal: n, separation: -depth }));
    }
    let (depth, k) = best_face;
    Some(Some(if k < 3 {
        // A face of A: B's deepest corner along -n.
        let n = flip(ax.col(k));
        let pb = bb.support(-n);
        FrameContact { point_a: pb + n * depth, point_b: pb, normal: n, separation: -depth }
    } else {
        let n = flip(bx.col(k - 3));
        let pa = ba.support(n);
        FrameContact { point_a: pa, point_b: pa - n * depth, normal: n, separation: -depth }
    }))
}

/// The first of the 15 axes of [`cuboid_cuboid`] that separates the boxes (unit, from A to B), or
/// `Some(None)` when none does (they intersect); `None` never (the signature matches
/// [`cuboid_triangle_axis`]).
pub(crate) fn cuboid_cuboid_axis(
    ca: &crate::shape::Cuboid,
    a: &Side,
    cb: &crate::shape::Cuboid,
    b: &Side,
) -> Option<Option<Vec3A>> {
    let ba = FrameBox::new(a, ca.half_extents);
    let bb = FrameBox::new(b, cb.half_extents);
    let d = bb.center - ba.center;
    let (ax, bx) = (ba.axes, bb.axes);
    let r = [0, 1, 2].map(|i| [0, 1, 2].map(|j| ax.col(i).dot(bx.col(j))));
    let abs_r = r.map(|row| row.map(f32::abs));
    let t = [ax.x_axis.dot(d), ax.y_axis.dot(d), ax.z_axis.dot(d)];
    let (ha, hb) = (ba.half, bb.half);
    let flip = |l: Vec3A| Some(Some(if d.dot(l) < 0.0 { -l } else { l }));
    for i in 0..3 {
        if ha[i] + hb[0] * abs_r[i][0] + hb[1] * abs_r[i][1] + hb[2] * abs_r[i][2] < t[i].abs() {
            return flip(ax.col(i));
        }
    }
    for j in 0..3 {
        let ra = ha[0] * abs_r[0][j] + ha[1] * abs_r[1][j] + ha[2] * abs_r[2][j];
        if ra + hb[j] < (t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j]).abs() {
            return flip(bx.col(j));
        }
    }
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let ra = ha[i1] * abs_r[i2][j] + ha[i2] * abs_r[i1][j];
            let rb = hb[j1] * abs_r[i][j2] + hb[j2] * abs_r[i][j1];
            // Unnormalised: a zero axis (parallel edges) never separates.
            if ra + rb < (t[i2] * r[i1][j] - t[i1] * r[i2][j]).abs() {
                return flip(ax.col(i).cross(bx.col(j)).normalize());
            }
        }
    }
    Some(None)
}

/// The first of the 13 axes of [`cuboid_triangle`] that separates the box (A) from the triangle
/// (B) (unit, from A to B), `Some(None)` when none does (they intersect), `None` for a zero-area
/// triangle.
pub(crate) fn cuboid_triangle_axis(
    cb: &crate::shape::Cuboid,
    a: &Side,
    tri: &crate::shape::Triangle,
    b: &Side,
) -> Option<Option<Vec3A>> {
    let frame_box = FrameBox::new(a, cb.half_extents);
    let (axes, center, half) = (frame_box.axes, frame_box.center, frame_box.half);
    let to_box = |p: Vec3A| {
        let d = p - center;
        Vec3A::new(axes.x_axis.dot(d), axes.y_axis.dot(d), axes.z_axis.dot(d))
    };
    let t = tri.points.map(|p| to_box(b.place(p.into())));
    let edges = [t[1] - t[0], t[2] - t[1], t[0] - t[2]];
    let normal = edges[0].cross(edges[1]);
    if !(normal.length_squared() > 1e-12 * edges[0].length_squared() * edges[1].length_squared()) {
        return None;
    }
    // The triangle's interval along `l` against the box's `[-r, r]`: the axis (towards the
    // triangle) when they are disjoint.
    let separates = |l: Vec3A| -> Option<Vec3A> {
        let r = half.dot(l.abs());
        let (p0, p1, p2) = (t[0].dot(l), t[1].dot(l), t[2].dot(l));
        if p0.min(p1).min(p2) > r {
            Some(l)
        } else if p0.max(p1).max(p2) < -r {
            Some(-l)
        } else {
            None
        }
    };
    let found = [Vec3A::X, Vec3A::Y, Vec3A::Z, normal].into_iter().find_map(separates).or_else(|| {
        (0..3).find_map(|i| edges.iter().find_map(|e| separates(Mat3A::IDENTITY.col(i).cross(*e))))
    });
    Some(found.map(|l| axes * l.normalize()))
}

/// A box (A) against a triangle (B) by the 13-axis separating-axis test: the triangle's normal,
/// the box's three face normals and the nine cross products of box axes and triangle edges. The
/// triangle is flat, so each axis is tried in both directions (`min` of the two overlaps); the
/// smallest overlap over the axes is the exact penetration of the two polytopes.
///
/// Answers as [`cuboid_cuboid`]; also `None` (use GJK) for a zero-area triangle.
pub(crate) fn cuboid_triangle(
    cb: &crate::shape::Cuboid,
    a: &Side,
    tri: &crate::shape::Triangle,
    b: &Side,
    prediction: f32,
) -> Option<Option<FrameContact>> {
    // Everything in the box's basis (the box at the origin, axis-aligned), mapped back at the end.
    let frame_box = FrameBox::new(a, cb.half_extents);
    let (axes, center) = (frame_box.axes, frame_box.center);
    let to_box = |p: Vec3A| {
        let d = p - center;
        Vec3A::new(axes.x_axis.dot(d), axes.y_axis.dot(d), axes.z_axis.dot(d))
    };
    let bx = FrameBox { center: Vec3A::ZERO, axes: Mat3A::IDENTITY, half: frame_box.half };
    let t = tri.points.map(|p| to_box(b.place(p.into())));
    let edges = [t[1] - t[0], t[2] - t[1], t[0] - t[2]];
    let normal = edges[0].cross(edges[1]);
    let n2 = normal.length_squared();
    if !(n2 > 1e-12 * edges[0].length_squared() * edges[1].length_squared()) {
        return None;
    }
    // Every axis is tried in both directions: along a unit axis `l` the box covers `[-r, r]` and
    // the triangle `[lo, hi]`, and the overlap is `min(r - lo, hi + r)` (pushing the triangle up
    // along `l`, or down along `-l`).
    let h = bx.half;
    // The box's face axes, all three at once (lanes x, y, z).
    let lo = t[0].min(t[1]).min(t[2]);
    let hi = t[0].max(t[1]).max(t[2]);
    let (up, down) = (h - lo, hi + h);
    let face_overlaps = up.min(down);
    // The triangle's normal.
    let nn = normal / n2.sqrt();
    let (r, p) = (h.dot(nn.abs()), t[0].dot(nn));
    let tri_overlap = (r - p).min(p + r);
    // A face axis that separates them already decides (the edge axes cost square roots).
    if face_overlaps.min_element().min(tri_overlap) < -prediction {
        return Some(None);
    }
    // Edge axes eᵢ × Eⱼ (box axis i, triangle edge j), lane j, one vector per i. The two
    // vertices of edge j project alike on them; `s` is that projection, `o` the opposite
    // vertex's. With E = (Ex, Ey, Ez) per lane: x × E = (0, -Ez, Ey), y × E = (Ez, 0, -Ex),
    // z × E = (-Ey, Ex, 0).
    let (ex, ey, ez) = (
        Vec3A::new(edges[0].x, edges[1].x, edges[2].x),
        Vec3A::new(edges[0].y, edges[1].y, edges[2].y),
        Vec3A::new(edges[0].z, edges[1].z, edges[2].z),
    );
    let (sx, sy, sz) = (
        Vec3A::new(t[0].x, t[1].x, t[2].x),
        Vec3A::new(t[0].y, t[1].y, t[2].y),
        Vec3A::new(t[0].z, t[1].z, t[2].z),
    );
    let (ox, oy, oz) = (
        Vec3A::new(t[2].x, t[0].x, t[1].x),
        Vec3A::new(t[2].y, t[0].y, t[1].y),
        Vec3A::new(t[2].z, t[0].z, t[1].z),
    );
    let e2 = ex * ex + ey * ey + ez * ez;
    // Per lane: the overlap along the unit axis, and the factor (±1 / length) that turns the
    // unnormalised axis into the unit normal pointing the way the overlap was measured.
    let axis = |s: Vec3A, o: Vec3A, r: Vec3A, len2: Vec3A| -> (Vec3A, Vec3A) {
        let (lo, hi) = (s.min(o), s.max(o));
        let (up, down) = (r - lo, hi + r);
        let inv_len = Vec3A::ONE / len2.sqrt();
        // Parallel edges give no axis (an infinite overlap).
        let valid = len2.cmpge(e2 * 1e-10);
        let overlap = Vec3A::select(valid, up.min(down) * inv_len, Vec3A::INFINITY);
        (overlap, Vec3A::select(up.cmple(down), inv_len, -inv_len))
    };
    let edge_axes = [
        axis(oz * ey - oy * ez, sz * ey - sy * ez, h.y * ez.abs() + h.z * ey.abs(), ey * ey + ez * ez),
        axis(ox * ez - oz * ex, sx * ez - sz * ex, h.x * ez.abs() + h.z * ex.abs(), ex * ex + ez * ez),
        axis(oy * ex - ox * ey, sy * ex - sx * ey, h.x * ey.abs() + h.y * ex.abs(), ex * ex + ey * ey),
    ];
    let least = face_overlaps
        .min_element()
        .min(tri_overlap)
        .min(edge_axes[0].0.min(edge_axes[1].0).min(edge_axes[2].0).min_element());
    if least < -prediction {
        return Some(None);
    }
    let separated = least < 0.0;
    // The shallowest face axis (box faces, then the triangle's), and edge axis (i-major); the
    // first one on ties.
    let mut best_face = (f32::INFINITY, Vec3A::ZERO, 0usize);
    for k in 0..3 {
        if face_overlaps[k] < best_face.0 {
            let n = Vec3A::AXES[k] * if up[k] <= down[k] { 1.0 } else { -1.0 };
            best_face = (face_overlaps[k], n, k);
        }
    }
    if tri_overlap < best_face.0 {
        best_face = (tri_overlap, if r - p <= p + r { nn } else { -nn }, 3);
    }
    let mut best_edge = (f32::INFINITY, Vec3A::ZERO, 0usize, 0usize);
    for (i, (overlaps, signs)) in edge_axes.iter().enumerate() {
        for j in 0..3 {
            if overlaps[j] < best_edge.0 {
                best_edge = (overlaps[j], Vec3A::AXES[i].cross(edges[j]) * signs[j], i, j);
            }
        }
    }
    if separated {
        return None;
    }
    if best_edge.0 < best_face.0 * 0.999 - 1e-6 {
        let (depth, n, i, j) = best_edge;
        let (a0, a1) = bx.edge(i, n);
        let (b0, b1) = (t[j], t[(j + 1) % 3]);
        let (point_a, point_b) = segment_segment(a0, a1, b0, b1);
        let local = FrameContact { point_a, point_b, normal: n, separation: -depth };
        return Some(Some(local.mapped(&axes, center)));
    }
    let (depth, n, k) = best_face;
    let local = if k < 3 {
        // A face of the box: the triangle's deepest vertex along -n.
        let pb = t.into_iter().fold(t[0], |m, p| if p.dot(n) < m.dot(n) { p } else { m });
        FrameContact { point_a: pb + n * depth, point_b: pb, normal: n, separation: -depth }
    } else {
        let pa = bx.support(n);
        FrameContact { point_a: pa, point_b: pa - n * depth, normal: n, separation: -depth }
    };
    Some(Some(local.mapped(&axes, center)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrow::frame::{PairInput, setup};
    use crate::shape::{ConvexShape, Cuboid};
    use glam::{Affine3A, Vec3};
    use kollide_testkit::random;
    use rand::Rng;

    /// An axis the box–box pass reports separates the boxes: their corners' projections on it
    /// do not overlap (random sizes, rotations and offsets, half of the pairs overlapping).
    #[test]
    fn cuboid_axes_separate_the_boxes() {
        let mut rng = random::rng(44);
        let mut separated = 0;
        for _ in 0..kollide_testkit::cases(10_000) {
            let mut half = || {
                Vec3::new(rng.random_range(0.1..1.0), rng.random_range(0.1..1.0), rng.random_range(0.1..1.0))
            };
            let (ca, cb) = (Cuboid::new(half()), Cuboid::new(half()));
            let (a, b) = (ConvexShape::Cuboid(ca), ConvexShape::Cuboid(cb));
            let ma = Affine3A::from_rotation_translation(
                random::rotation3(&mut rng),
                random::point3(&mut rng, 0.5),
            );
            let mb = Affine3A::from_rotation_translation(
                random::rotation3(&mut rng),
                random::point3(&mut rng, 1.8),
            );
            let (_, sa, sb) = setup(&PairInput::new(&a, &ma, &b, &mb).unwrap());
            let Some(Some(l)) = cuboid_cuboid_axis(&ca, &sa, &cb, &sb) else { continue };
            separated += 1;
            let span = |side: &Side, half: Vec3| {
                let fb = FrameBox::new(side, half);
                let reach = (0..3).map(|k| fb.half[k] * fb.axes.col(k).dot(l).abs()).sum::<f32>();
                (fb.center.dot(l) - reach, fb.center.dot(l) + reach)
            };
            let ((_, a_hi), (b_lo, _)) = (span(&sa, ca.half_extents), span(&sb, cb.half_extents));
            assert!(a_hi <= b_lo + 1e-5, "axis {l} does not separate: {a_hi} > {b_lo}");
        }
        assert!(separated > kollide_testkit::cases(10_000) / 4, "only {separated} separated");
    }
}
