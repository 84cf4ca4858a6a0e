//! 2D contact manifolds of proxies: closed forms for discs, the separating-axis test and edge
//! clipping for polygons (Box2D v3's approach: Catto, "Contact manifolds", GDC 2007; Ericson
//! §5.5 for clipping), all in the pair frame.
//!
//! The manifold of two polygons (segments and capsules are two-sided polygons of two points) takes
//! the axis of largest separation among both shapes' edge normals. The edge it came from is the
//! *reference* edge; the other shape's edge most opposed to it is the *incident* edge, clipped to
//! the reference edge's extent: up to two points, each with its separation along the normal. Two
//! shapes whose cores are apart may be closest at two corners (rounded shapes touch there first),
//! where the normal is the direction between the closest points of the two edges rather than an
//! edge normal (along which the separation is less than the distance): when the closest points of
//! the reference and incident edges are both end points, the manifold is that one point.

use glam::Vec2;

use super::frame::{MAX_PROXY, Proxy2};
use crate::primitive::d2::test_segment_segment;
use crate::shape::segment_closest_params2;

/// One point of a [`ContactManifold2`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ManifoldPoint2 {
    /// The point on A (world space).
    pub point_a: Vec2,
    /// The point on B (world space).
    pub point_b: Vec2,
    /// Signed distance along the manifold normal: negative when penetrating (`point_b - point_a
    /// = separation · normal` up to rounding).
    pub separation: f32,
    /// A feature id: the same features (reference edge, incident edge and which end of it) give
    /// the same id from frame to frame, for warm starting a solver; the points of one manifold
    /// have distinct ids.
    pub id: u32,
}

/// Up to two contact points sharing one normal (from A to B).
///
/// Each point's separation is at least the shapes' signed distance, up to rounding and, for
/// polygon pairs, the hysteresis of the reference face: A's face is kept unless B's separates
/// by more than `1e-4` of the shapes' size (the longer of two polygons' first edges, the larger
/// half extent of two boxes), so that the choice does not flicker between nearly equal axes from
/// frame to frame; the separation may then be below the signed distance by that much.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactManifold2 {
    /// Unit normal from A to B (zero when the manifold is empty).
    pub normal: Vec2,
    pub(crate) points: [ManifoldPoint2; 2],
    pub(crate) len: usize,
}

impl ContactManifold2 {
    /// The contact points.
    pub fn points(&self) -> &[ManifoldPoint2] {
        &self.points[..self.len]
    }

    /// The number of points (0 to 2).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no contact.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties the manifold: no points, a zero normal.
    pub fn clear(&mut self) {
        self.normal = Vec2::ZERO;
        self.len = 0;
    }

    /// Appends a point (see [`ManifoldPoint2`]); a push beyond the second is ignored.
    pub fn push(&mut self, point_a: Vec2, point_b: Vec2, separation: f32, id: u32) {
        if self.len < 2 {
            self.points[self.len] = ManifoldPoint2 { point_a, point_b, separation, id };
            self.len += 1;
        }
    }

    /// The deepest point (the smallest separation), if any.
    pub fn deepest(&self) -> Option<&ManifoldPoint2> {
        self.points().iter().min_by(|a, b| a.separation.total_cmp(&b.separation))
    }

    /// The same contact seen from the other shape: points swapped, normal reversed (ids kept).
    pub fn flip(&mut self) {
        self.normal = -self.normal;
        for p in &mut self.points[..self.len] {
            std::mem::swap(&mut p.point_a, &mut p.point_b);
        }
    }

    pub(crate) fn map_to_world(&mut self, point: impl Fn(Vec2) -> Vec2, vector: impl Fn(Vec2) -> Vec2) {
        self.normal = vector(self.normal);
        for p in &mut self.points[..self.len] {
            p.point_a = point(p.point_a);
            p.point_b = point(p.point_b);
        }
    }
}

/// Equal normals and equal points (slots past the length are ignored).
impl PartialEq for ContactManifold2 {
    fn eq(&self, other: &Self) -> bool {
        self.normal == other.normal && self.points() == other.points()
    }
}

/// Feature id of a point: which shape holds the reference feature, the reference and incident
/// features, and the kind of point. A clipped point names the reference edge and the incident
/// vertex it came from (kind 0), so that it keeps its id when the incident edge switches to the
/// vertex's other edge (the two sides of a segment are one edge read both ways).
#[inline]
fn feature_id(flip: bool, reference: usize, incident: usize, kind: usize) -> u32 {
    ((flip as u32) << 24) | ((reference as u32) << 16) | ((incident as u32) << 8) | kind as u32
}

/// The manifold of two proxies within `prediction`, in the pair frame.
pub(crate) fn collide_proxies(a: &Proxy2, b: &Proxy2, prediction: f32, out: &mut ContactManifold2) {
    out.clear();
    match (a.count, b.count) {
        (1, 1) => collide_discs(a.points[0], a.radius, b.points[0], b.radius, prediction, out),
        (_, 1) => collide_polygon_disc(a, b.points[0], b.radius, prediction, false, out),
        (1, _) => collide_polygon_disc(b, a.points[0], a.radius, prediction, true, out),
        (2, 2) => collide_segments(a, b, prediction, out),
        _ => collide_polygons(a, b, prediction, out),
    }
}

/// Two discs: the normal joins the centres (`+y` when they coincide).
#[inline]
fn collide_discs(ca: Vec2, ra: f32, cb: Vec2, rb: f32, prediction: f32, out: &mut ContactManifold2) {
    let d = cb - ca;
    let dist2 = d.length_squared();
    let reach = ra + rb + prediction;
    // A negative reach (a prediction deeper than the radii) holds nothing.
    if !(reach >= 0.0 && dist2 <= reach * reach) {
        return;
    }
    let dist = dist2.sqrt();
    let normal = if dist > 0.0 { d / dist } else { Vec2::Y };
    out.normal = normal;
    out.push(ca + normal * ra, cb - normal * rb, dist - ra - rb, 0);
}

/// A polygon (two or more points) against a disc: the edge of largest separation from the
/// centre, then the edge's Voronoi regions (its interior or one of its end points; for a convex
/// polygon the closest feature to an outside point is that edge or one of its ends). `swap` when
/// the disc is A.
#[inline]
fn collide_polygon_disc(
    poly: &Proxy2,
    center: Vec2,
    radius: f32,
    prediction: f32,
    swap: bool,
    out: &mut ContactManifold2,
) {
    let n = poly.count;
    let mut edge = 0;
    let mut separation = f32::NEG_INFINITY;
    for i in 0..n {
        let s = poly.normals[i].dot(center - poly.points[i]);
        if s > separation {
            separation = s;
            edge = i;
        }
    }
    let reach = poly.radius + radius + prediction;
    if !(separation <= reach) {
        return;
    }
    let next = if edge + 1 == n { 0 } else { edge + 1 };
    let (v1, v2) = (poly.points[edge], poly.points[next]);
    let e = v2 - v1;
    let along = (center - v1).dot(e);
    // Outside the polygon, or on a segment's line (its two edge normals separate by zero there,
    // also beyond its ends): the end points' regions. A corner's id names the vertex, whichever
    // of its two edges was found.
    let outside = separation > 0.0 || n == 2;
    let (closest, normal, corner, feature) = if outside && along < 0.0 {
        (v1, center - v1, 1, edge)
    } else if outside && along > e.length_squared() {
        (v2, center - v2, 1, next)
    } else {
        (center - poly.normals[edge] * separation, poly.normals[edge], 0, edge)
    };
    let (normal, dist) = if corner == 0 {
        (normal, separation)
    } else {
        let dist = normal.length();
        if !(dist <= reach) {
            return;
        }
        (normal / dist, dist)
    };
    let on_poly = closest + normal * poly.radius;
    let on_disc = center - normal * radius;
    let id = feature_id(swap, feature, 0, corner);
    let separation = dist - poly.radius - radius;
    if swap {
        out.normal = -normal;
        out.push(on_disc, on_poly, separation, id);
    } else {
        out.normal = normal;
        out.push(on_poly, on_disc, separation, id);
    }
}

/// Two segment cores (capsules and segments), as Box2D v3's capsule manifold: apart, the closest
/// points of the segments give the normal, with a second point clipped when the segments are
/// nearly parallel (a capsule lying on another); crossing, the separating axes of the two
/// segments give the minimum translation, one point.
fn collide_segments(a: &Proxy2, b: &Proxy2, prediction: f32, out: &mut ContactManifold2) {
    let (a0, a1, b0, b1) = (a.points[0], a.points[1], b.points[0], b.points[1]);
    let radius = a.radius + b.radius;
    let (s, t) = segment_closest_params2(a0, a1, b0, b1);
    let (p, q) = (a0 + (a1 - a0) * s, b0 + (b1 - b0) * t);
    let d = q - p;
    let dist2 = d.length_squared();
    let size = a0.abs().max(a1.abs()).max(b0.abs()).max(b1.abs()).max_element();
    // Crossing (decided exactly near contact: the closest points of nearly parallel crossing
    // segments round far above zero) or nearly touching: the direction between the closest
    // points is rounding noise, the separating axes are not.
    let near = (1e-4 * size) * (1e-4 * size);
    if dist2 <= (1e-6 * size) * (1e-6 * size) || (dist2 <= near && test_segment_segment(a0, a1, b0, b1)) {
        if let Some((n, core_separation, on_a, on_b)) = polygon_axis(a, b) {
            if !(core_separation - radius <= prediction) {
                return;
            }
            out.normal = n;
            out.push(
                on_a + n * a.radius,
                on_b - n * b.radius,
                core_separation - radius,
                feature_id(false, 0, 0, 2),
            );
            return;
        }
    }
    // Apart: the closest points within the reach (a negative reach holds nothing).
    let reach = prediction + radius;
    if !(reach >= 0.0 && dist2 <= reach * reach) {
        return;
    }
    let (n, dist) = closest_normal(a0, a1, b0, b1, s, t, d);
    let (da, db) = (a1 - a0, b1 - b0);
    // Nearly parallel (within about 3 degrees) and facing across a side: clip one against the
    // other. The reference is the segment whose closest point is inside it (the normal is its
    // perpendicular), so that the deepest clipped point is the closest one.
    let parallel = da.perp_dot(db).abs() <= 0.05 * (da.length_squared() * db.length_squared()).sqrt();
    let inside = |x: f32| x > 0.0 && x < 1.0;
    if parallel && (inside(s) || inside(t)) {
        if inside(s) {
            let edge = if n.dot(a.normals[0]) > 0.0 { 0 } else { 1 };
            collide_on_edge(a, edge, b, false, prediction, out);
        } else {
            let edge = if n.dot(b.normals[0]) < 0.0 { 0 } else { 1 };
            collide_on_edge(b, edge, a, true, prediction, out);
        }
        if !out.is_empty() {
            return;
        }
    }
    out.normal = n;
    let id = feature_id(false, (s == 1.0) as usize, (t == 1.0) as usize, 3);
    out.push(p + n * a.radius, q - n * b.radius, dist - radius, id);
}

/// The unit normal from segment A's closest point `p = a0 + s (a1 - a0)` to segment B's, `q = b0
/// + t (b1 - b0)`, with `d = q - p` (not zero), and the distance along it.
///
/// `d` is the difference of two rounded points: its direction is noise when the segments nearly
/// touch, compared to their coordinates. A closest point inside a segment (`s` or `t` in
/// `(0, 1)`) sees the other one straight across, so that segment's perpendicular (oriented as `d`)
/// is the normal, exact to the rounding of its end points; only two closest end points use `d`,
/// an exact difference of the inputs.
#[inline]
pub(crate) fn closest_normal(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2, s: f32, t: f32, d: Vec2) -> (Vec2, f32) {
    let interior = |x: f32| x > 0.0 && x < 1.0;
    let edge = if interior(s) {
        a1 - a0
    } else if interior(t) {
        b1 - b0
    } else {
        Vec2::ZERO
    };
    let across = edge.perp().normalize_or_zero();
    if across != Vec2::ZERO {
        let n = if across.dot(d) < 0.0 { -across } else { across };
        return (n, n.dot(d));
    }
    let dist = d.length();
    (d / dist, dist)
}

/// The edge of `p` whose normal separates `q` the most, and that separation (the smallest
/// `n · (q_j - p_i)` over `q`'s points).
#[inline]
fn max_separation(p: &Proxy2, q: &Proxy2) -> (usize, f32) {
    let mut best = (0, f32::NEG_INFINITY);
    if p.count < 2 {
        // A point has no edges (and no normals): no axis.
        return best;
    }
    for i in 0..p.count {
        let (n, v) = (p.normals[i], p.points[i]);
        // All slots (the unused ones repeat a point, see `Proxy2`), reduced as a tree: eight
        // independent products and three levels of minimum instead of one chain of eight.
        let d: [f32; MAX_PROXY] = std::array::from_fn(|j| n.dot(q.points[j]));
        let m4: [f32; 4] = std::array::from_fn(|j| d[j].min(d[j + 4]));
        let s = m4[0].min(m4[2]).min(m4[1].min(m4[3])) - n.dot(v);
        if s > best.1 {
            best = (i, s);
        }
    }
    best
}

/// The minimum translation of two polygon proxies whose cores overlap: see [`polygon_axis`];
/// `None` when the cores are apart (or both are points).
#[inline]
pub(crate) fn polygon_overlap(a: &Proxy2, b: &Proxy2) -> Option<(Vec2, f32, Vec2, Vec2)> {
    polygon_axis(a, b).filter(|&(_, separation, _, _)| separation <= 0.0)
}

/// The axis of largest separation of two polygon proxies (among both shapes' edge normals, which
/// decide overlap exactly for polygons, and give the minimum translation when the cores overlap)
/// with the core separation along it, and the deepest point of the other core along it that lies
/// under the reference edge. Returns `(normal from A to B, core separation, A's reference point,
/// B's deepest point)`, or `None` when both are points or no incident point lies under the
/// reference edge.
///
/// The deepest point is the deepest end of the incident edge clipped to the reference edge's
/// extent: when the cores overlap, the minimum translation's axis is an edge of the Minkowski
/// difference whose foot from the origin lies on it, so some deepest incident point lies under the
/// reference edge (a lone support point may not, when an incident edge is parallel to the
/// reference edge). When none does, the cores either are apart with their closest points at two
/// corners, or are flat and apart along their common line (collinear segments, a point on a
/// segment's line beyond its end), which the edge normals cannot see.
pub(crate) fn polygon_axis(a: &Proxy2, b: &Proxy2) -> Option<(Vec2, f32, Vec2, Vec2)> {
    if a.count < 2 && b.count < 2 {
        // Two points have no axis at all: left to GJK and EPA.
        return None;
    }
    let (edge_a, sep_a) = max_separation(a, b);
    let (edge_b, sep_b) = max_separation(b, a);
    let separation = sep_a.max(sep_b);
    if !separation.is_finite() {
        return None;
    }
    let (reference, incident, edge, flip) =
        if sep_b > sep_a { (b, a, edge_b, true) } else { (a, b, edge_a, false) };
    let n = reference.normals[edge];
    let v1 = reference.points[edge];
    let v2 = reference.points[if edge + 1 == reference.count { 0 } else { edge + 1 }];
    let tangent = Vec2::new(-n.y, n.x);
    let upper = tangent.dot(v2 - v1);
    // The extent, widened by the rounding of the coordinates.
    let slack = 1e-6 * v1.abs().max(v2.abs()).max_element();
    let (lower, upper) = (-slack, upper + slack);
    let deepest = if incident.count == 1 {
        let p = incident.points[0];
        let u = tangent.dot(p - v1);
        if !(u >= lower && u <= upper) {
            return None;
        }
        p
    } else {
        let i = most_opposed_edge(incident, n);
        let w1 = incident.points[i];
        let w2 = incident.points[if i + 1 == incident.count { 0 } else { i + 1 }];
        let (u1, u2) = (tangent.dot(w1 - v1), tangent.dot(w2 - v1));
        if (u1 < lower && u2 < lower) || (u1 > upper && u2 > upper) || !(u1.is_finite() && u2.is_finite()) {
            return None;
        }
        // The incident edge's parameters at the extent's ends, clamped to the edge.
        let (p, q) = if u1 == u2 {
            (w1, w2)
        } else {
            let at = |u: f32| ((u - u1) / (u2 - u1)).clamp(0.0, 1.0);
            (w1 + (w2 - w1) * at(lower), w1 + (w2 - w1) * at(upper))
        };
        if n.dot(p - w1) <= n.dot(q - w1) { p } else { q }
    };
    let on_reference = deepest - n * separation;
    Some(if flip { (-n, separation, deepest, on_reference) } else { (n, separation, on_reference, deepest) })
}

/// [`polygon_overlap`], or when the cores are apart (or it finds no deepest point) the largest
/// separation over the edge normals (a lower bound of the cores' distance) and that axis, from A
/// toward B.
pub(crate) fn polygon_axes(a: &Proxy2, b: &Proxy2) -> Result<(Vec2, f32, Vec2, Vec2), (f32, Vec2)> {
    if a.count >= 2 || b.count >= 2 {
        if let Some(overlap) = polygon_overlap(a, b) {
            return Ok(overlap);
        }
    }
    let (edge_a, sep_a) = max_separation(a, b);
    let (edge_b, sep_b) = max_separation(b, a);
    let axis = if sep_b > sep_a { -b.normals[edge_b] } else { a.normals[edge_a] };
    Err((sep_a.max(sep_b), axis))
}

/// Two polygons (each of two or more points): see the module documentation.
fn collide_polygons(a: &Proxy2, b: &Proxy2, prediction: f32, out: &mut ContactManifold2) {
    let (edge_a, sep_a) = max_separation(a, b);
    let (edge_b, sep_b) = max_separation(b, a);
    let radius = a.radius + b.radius;
    if !(sep_a.max(sep_b) <= prediction + radius) {
        return;
    }
    // Prefer A's edge unless B's separates clearly more, so the choice does not flicker between
    // nearly equal axes from frame to frame.
    let slack = 1e-4 * (a.points[0] - a.points[1]).length().max((b.points[0] - b.points[1]).length());
    let flip = sep_b > sep_a + slack;
    let (reference, incident, edge) = if flip { (b, a, edge_b) } else { (a, b, edge_a) };
    let next = |p: &Proxy2, i: usize| if i + 1 == p.count { 0 } else { i + 1 };

    let i11 = edge;
    let i12 = next(reference, i11);
    let i21 = most_opposed_edge(incident, reference.normals[i11]);
    let i22 = next(incident, i21);
    let edges = ClipEdges {
        reference: [reference.points[i11], reference.points[i12]],
        normal: reference.normals[i11],
        incident: [incident.points[i21], incident.points[i22]],
        radii: [reference.radius, incident.radius],
        vertices: [[i11, i12], [i21, i22]],
        flip,
    };
    if sep_a.max(sep_b) > 0.0 && edges.corners(prediction, out) {
        return;
    }
    edges.clip(prediction, out);
}

/// The index of `incident`'s edge whose normal is most opposed to `normal`.
#[inline]
fn most_opposed_edge(incident: &Proxy2, normal: Vec2) -> usize {
    let mut best = (0, f32::INFINITY);
    for j in 0..incident.count {
        let d = normal.dot(incident.normals[j]);
        if d < best.1 {
            best = (j, d);
        }
    }
    best.0
}

/// The manifold with `reference`'s edge `edge` as the reference edge, whatever the separating
/// axes say (chains use it to replace a normal that points across a neighbouring segment).
/// `flip` when the reference is B. A disc (one point) gets the one point under the edge's normal.
pub(crate) fn collide_on_edge(
    reference: &Proxy2,
    edge: usize,
    incident: &Proxy2,
    flip: bool,
    prediction: f32,
    out: &mut ContactManifold2,
) {
    out.clear();
    let normal = reference.normals[edge];
    if incident.count == 1 {
        let c = incident.points[0];
        let along = normal.dot(c - reference.points[edge]);
        let sep = along - reference.radius - incident.radius;
        if sep <= prediction {
            let on_inc = c - normal * incident.radius;
            let on_ref = c - normal * (along - reference.radius);
            out.normal = if flip { -normal } else { normal };
            let id = feature_id(flip, edge, 0, 0);
            if flip { out.push(on_inc, on_ref, sep, id) } else { out.push(on_ref, on_inc, sep, id) }
        }
        return;
    }
    let i21 = most_opposed_edge(incident, normal);
    clip_incident(reference, edge, incident, i21, flip, prediction, out);
}

/// Clips `incident`'s edge `i21` to the extent of `reference`'s edge `i11` and keeps the points
/// within `prediction` (see the module documentation).
fn clip_incident(
    reference: &Proxy2,
    i11: usize,
    incident: &Proxy2,
    i21: usize,
    flip: bool,
    prediction: f32,
    out: &mut ContactManifold2,
) {
    let next = |p: &Proxy2, i: usize| if i + 1 == p.count { 0 } else { i + 1 };
    let (i12, i22) = (next(reference, i11), next(incident, i21));
    let edges = ClipEdges {
        reference: [reference.points[i11], reference.points[i12]],
        normal: reference.normals[i11],
        incident: [incident.points[i21], incident.points[i22]],
        radii: [reference.radius, incident.radius],
        vertices: [[i11, i12], [i21, i22]],
        flip,
    };
    edges.clip(prediction, out);
}

/// A reference edge (with its outward unit normal) and an incident edge to clip against it, in
/// the pair frame.
pub(crate) struct ClipEdges {
    pub reference: [Vec2; 2],
    pub normal: Vec2,
    pub incident: [Vec2; 2],
    /// The reference and incident shapes' radii.
    pub radii: [f32; 2],
    /// The indices of the reference and incident edges' end points (for the feature ids).
    pub vertices: [[usize; 2]; 2],
    /// Whether the reference edge is B's.
    pub flip: bool,
}

impl ClipEdges {
    /// For shapes apart: when the closest points of the reference and incident edges are two end
    /// points, the shapes are closest at two corners, and the direction between them (no edge
    /// normal) is the normal of the one point there (its id names the two corners), kept within
    /// `prediction`. Returns whether the closest points were two end points (the manifold is
    /// then written, empty beyond `prediction`).
    pub fn corners(&self, prediction: f32, out: &mut ContactManifold2) -> bool {
        out.clear();
        let ([v11, v12], [v21, v22]) = (self.reference, self.incident);
        let (s, t) = segment_closest_params2(v11, v12, v21, v22);
        let at_end = |x: f32| x == 0.0 || x == 1.0;
        if !(at_end(s) && at_end(t)) {
            return false;
        }
        let (end_ref, end_inc) = (usize::from(s == 1.0), usize::from(t == 1.0));
        let (p, q) = ([v11, v12][end_ref], [v21, v22][end_inc]);
        let d = q - p;
        let dist = d.length();
        let radius = self.radii[0] + self.radii[1];
        if !(dist <= prediction + radius) || !(dist > 0.0) {
            return true;
        }
        let n = d / dist;
        let id = feature_id(self.flip, self.vertices[0][end_ref], self.vertices[1][end_inc], 4);
        let (on_ref, on_inc) = (p + n * self.radii[0], q - n * self.radii[1]);
        if self.flip {
            out.normal = -n;
            out.push(on_inc, on_ref, dist - radius, id);
        } else {
            out.normal = n;
            out.push(on_ref, on_inc, dist - radius, id);
        }
        true
    }

    /// The incident edge clipped to the reference edge's extent along its tangent; the points
    /// within `prediction` of the reference edge, into `out` (cleared first).
    pub fn clip(&self, prediction: f32, out: &mut ContactManifold2) {
        out.clear();
        let ([v11, v12], [v21, v22], normal) = (self.reference, self.incident, self.normal);
        let radius = self.radii[0] + self.radii[1];
        let tangent = Vec2::new(-normal.y, normal.x);
        let (lower, upper) = (0.0, tangent.dot(v12 - v11));
        let (u1, u2) = (tangent.dot(v21 - v11), tangent.dot(v22 - v11));
        // An incident edge wholly beyond one end of the reference edge (past the rounding of the
        // coordinates) faces no part of it: its separation along the normal would be measured to
        // the reference edge's line, less than its distance to the edge.
        let slack = 1e-6 * v11.abs().max(v12.abs()).max(v21.abs()).max(v22.abs()).max_element();
        if (u1 < lower - slack && u2 < lower - slack) || (u1 > upper + slack && u2 > upper + slack) {
            return;
        }
        let mut clipped = [(v21, 0usize), (v22, 1usize)];
        if u1 != u2 {
            // Clamped to the incident edge: an end within the rounding slack beyond the reference
            // extent on the same side as the other end collapses onto it (and is dropped as a
            // duplicate below).
            let lerp = |u: f32| v21 + (v22 - v21) * ((u - u1) / (u2 - u1)).clamp(0.0, 1.0);
            for (point, end) in clipped.iter_mut() {
                let u = if *end == 0 { u1 } else { u2 };
                if u < lower {
                    *point = lerp(lower);
                } else if u > upper {
                    *point = lerp(upper);
                }
            }
        }
        out.normal = if self.flip { -normal } else { normal };
        let ends = if clipped[0].0 == clipped[1].0 { 1 } else { 2 };
        for &(p, end) in &clipped[..ends] {
            let depth_along = normal.dot(p - v11);
            let sep = depth_along - radius;
            if !(sep <= prediction) {
                continue;
            }
            let on_ref = p - normal * (depth_along - self.radii[0]);
            let on_inc = p - normal * self.radii[1];
            let id = feature_id(self.flip, self.vertices[0][0], self.vertices[1][end], 0);
            if self.flip {
                out.push(on_inc, on_ref, sep, id);
            } else {
                out.push(on_ref, on_inc, sep, id);
            }
        }
        if out.is_empty() {
            out.normal = Vec2::ZERO;
        }
    }
}
