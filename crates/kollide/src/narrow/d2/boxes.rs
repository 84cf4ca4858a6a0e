//! Two boxes in closed form: the separating-axis test on the four face axes (each box's extent
//! along an axis is `h·|axes|`, as in the 3D OBB test, Gottschalk et al. 1996), then the
//! reference and incident edges picked from the axis and clipped (or, for boxes apart and
//! closest at two corners, the one point between them).
//!
//! Used when A is axis-aligned in the pair frame (A's placement is a similarity) and B's
//! placement in the frame is a similarity too (B's axes orthonormal), which covers every rigid
//! pair.

use glam::{Affine2, Vec2};

use super::frame::similarity_scale;
use super::manifold::{ClipEdges, ContactManifold2};
use crate::shape::Cuboid2;

/// The corners of a box of half extents `h`, counter-clockwise; edge `i` joins corners `i` and
/// `i + 1` (see [`edge_facing`]).
#[inline(always)]
fn corners(h: Vec2) -> [Vec2; 4] {
    Cuboid2::new(h).vertices()
}

/// The edge of a box facing local axis `axis` with sign `sign`.
#[inline(always)]
fn edge_facing(axis: usize, sign: f32) -> usize {
    match (axis, sign > 0.0) {
        (0, true) => 0,
        (1, true) => 1,
        (0, false) => 2,
        _ => 3,
    }
}

/// A box in the pair frame: centre, unit axes and half extents (scaled).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameBox {
    pub center: Vec2,
    pub axes: [Vec2; 2],
    pub half: Vec2,
}

impl FrameBox {
    /// `cuboid` placed by `map`, when `map` is a similarity.
    #[inline(always)]
    pub fn new(cuboid: &Cuboid2, map: &Affine2) -> Option<Self> {
        let s = similarity_scale(&map.matrix2)?;
        let inv = 1.0 / s;
        Some(Self {
            center: map.translation,
            axes: [map.matrix2.x_axis * inv, map.matrix2.y_axis * inv],
            half: cuboid.half_extents * s,
        })
    }

    /// The box's extent along the unit direction `d` (half its projected width).
    #[inline(always)]
    fn extent(&self, d: Vec2) -> f32 {
        self.half.x * self.axes[0].dot(d).abs() + self.half.y * self.axes[1].dot(d).abs()
    }

    /// The frame corners of edge `i`, counter-clockwise around the box (a reflected box's local
    /// corners run clockwise in the frame, so its edges are read backwards).
    #[inline(always)]
    fn edge(&self, i: usize) -> [Vec2; 2] {
        let [from, to] = self.edge_corners(i);
        let c = corners(self.half);
        let place = |v: Vec2| self.center + self.axes[0] * v.x + self.axes[1] * v.y;
        [place(c[from]), place(c[to])]
    }

    /// The corner indices of edge `i`, in the order of [`FrameBox::edge`].
    #[inline(always)]
    fn edge_corners(&self, i: usize) -> [usize; 2] {
        let (from, to) = (i, (i + 1) % 4);
        if self.axes[0].perp_dot(self.axes[1]) < 0.0 { [to, from] } else { [from, to] }
    }

    /// `cuboid` placed by the rigid `map` (orthonormal axes, as [`super::frame::is_rigid2`]
    /// checks) relative to `origin`.
    #[inline(always)]
    pub fn rigid(cuboid: &Cuboid2, map: &Affine2, origin: Vec2) -> Self {
        Self {
            center: map.translation - origin,
            axes: [map.matrix2.x_axis, map.matrix2.y_axis],
            half: cuboid.half_extents,
        }
    }

    /// The edge whose outward normal is most opposed to `n`.
    #[inline(always)]
    fn most_opposed_edge(&self, n: Vec2) -> usize {
        let (dx, dy) = (n.dot(self.axes[0]), n.dot(self.axes[1]));
        if dx.abs() >= dy.abs() { edge_facing(0, -dx) } else { edge_facing(1, -dy) }
    }
}

/// The largest separation over one box's two face axes, against the other box: `(axis, sign,
/// separation)`, the sign saying which face (toward the other box).
#[inline(always)]
fn face_separation(own: &FrameBox, other: &FrameBox) -> (usize, f32, f32) {
    let d = other.center - own.center;
    let mut best = (0, 1.0, f32::NEG_INFINITY);
    for axis in 0..2 {
        let u = own.axes[axis];
        let along = d.dot(u);
        let sep = along.abs() - own.half[axis] - other.extent(u);
        if sep > best.2 {
            best = (axis, if along >= 0.0 { 1.0 } else { -1.0 }, sep);
        }
    }
    best
}

/// The separating-axis answer of two boxes: the reference box's face (as `flip`, edge, unit
/// normal from A to B) and the largest separation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoxAxis {
    pub flip: bool,
    pub edge: usize,
    pub normal: Vec2,
    pub separation: f32,
}

/// The hysteresis of the reference face in manifolds, relative to the larger half extent (see
/// [`ContactManifold2`]).
const FACE_HYSTERESIS: f32 = 1e-4;

/// The axis of largest separation, preferring A's faces unless B's separate by more than
/// `hysteresis` times the larger half extent (so that a manifold's choice does not flicker
/// between nearly equal axes; 0 for the exact minimum translation).
#[inline(always)]
pub(crate) fn box_axis(a: &FrameBox, b: &FrameBox, hysteresis: f32) -> BoxAxis {
    let (axis_a, sign_a, sep_a) = face_separation(a, b);
    let (axis_b, sign_b, sep_b) = face_separation(b, a);
    let slack = hysteresis * a.half.max_element().max(b.half.max_element());
    if sep_b > sep_a + slack {
        let normal = -(b.axes[axis_b] * sign_b);
        BoxAxis { flip: true, edge: edge_facing(axis_b, sign_b), normal, separation: sep_b }
    } else {
        BoxAxis {
            flip: false,
            edge: edge_facing(axis_a, sign_a),
            normal: a.axes[axis_a] * sign_a,
            separation: sep_a,
        }
    }
}

/// The manifold of two boxes within `prediction` (see the module documentation).
#[inline]
pub(crate) fn collide_boxes(a: &FrameBox, b: &FrameBox, prediction: f32, out: &mut ContactManifold2) {
    out.clear();
    let axis = box_axis(a, b, FACE_HYSTERESIS);
    if !(axis.separation <= prediction) {
        return;
    }
    clip_on_axis(a, b, &axis, prediction, out);
}

/// The incident box's edge clipped against the reference face of `axis`.
#[inline(always)]
fn clip_on_axis(a: &FrameBox, b: &FrameBox, axis: &BoxAxis, prediction: f32, out: &mut ContactManifold2) {
    let (reference, incident) = if axis.flip { (b, a) } else { (a, b) };
    // The reference face's outward normal (from the reference box toward the other).
    let face_normal = if axis.flip { -axis.normal } else { axis.normal };
    let inc = incident.most_opposed_edge(face_normal);
    let edges = ClipEdges {
        reference: reference.edge(axis.edge),
        normal: face_normal,
        incident: incident.edge(inc),
        radii: [0.0, 0.0],
        vertices: [reference.edge_corners(axis.edge), incident.edge_corners(inc)],
        flip: axis.flip,
    };
    if axis.separation > 0.0 && edges.corners(prediction, out) {
        return;
    }
    edges.clip(prediction, out);
}

/// The deepest points of two overlapping boxes (the minimum translation), or `None` when they
/// are apart: `(normal from A to B, separation ≤ 0, point on A, point on B)`. The deepest point
/// of the incident edge clipped to the reference face: a corner of the incident box, or where the
/// incident edge leaves the face when the two are parallel (a lone deepest corner may lie beyond
/// the face).
#[inline]
pub(crate) fn box_overlap(a: &FrameBox, b: &FrameBox) -> Option<(Vec2, f32, Vec2, Vec2)> {
    let axis = box_axis(a, b, 0.0);
    if !(axis.separation <= 0.0) {
        return None;
    }
    let mut m = ContactManifold2::default();
    clip_on_axis(a, b, &axis, f32::INFINITY, &mut m);
    let p = m.deepest()?;
    Some((m.normal, p.separation, p.point_a, p.point_b))
}

impl FrameBox {
    /// The squared distance from `p` to the solid box (0 inside).
    #[inline(always)]
    fn distance_squared_to(&self, p: Vec2) -> f32 {
        let d = p - self.center;
        let local = Vec2::new(d.dot(self.axes[0]), d.dot(self.axes[1]));
        (local - local.clamp(-self.half, self.half)).length_squared()
    }

    /// The four corners.
    #[inline(always)]
    fn corners(&self) -> [Vec2; 4] {
        corners(self.half).map(|v| self.center + self.axes[0] * v.x + self.axes[1] * v.y)
    }
}

/// The distance between two boxes. Apart, two convex polygons are closest at a vertex of one of
/// them (vertex against edge or vertex), so the distance is the smallest corner-to-box distance
/// either way; the face-axis test decides overlap.
#[inline]
pub(crate) fn box_distance(a: &FrameBox, b: &FrameBox) -> f32 {
    if box_axis(a, b, 0.0).separation <= 0.0 {
        return 0.0;
    }
    let from_b = b.corners().iter().map(|&p| a.distance_squared_to(p)).fold(f32::INFINITY, f32::min);
    let from_a = a.corners().iter().map(|&p| b.distance_squared_to(p)).fold(f32::INFINITY, f32::min);
    from_a.min(from_b).sqrt()
}

/// The distance between a box and the segment `p0 p1` (as [`box_distance`]: the separating axes
/// are the box's two and the segment's normal; apart, the closest pair holds a segment end or a
/// box corner).
#[inline]
pub(crate) fn box_segment_distance(bx: &FrameBox, p0: Vec2, p1: Vec2) -> f32 {
    let (mid, half) = ((p0 + p1) * 0.5, (p1 - p0) * 0.5);
    let d = mid - bx.center;
    let apart_on_box_axes = (0..2).any(|i| d.dot(bx.axes[i]).abs() > bx.half[i] + half.dot(bx.axes[i]).abs());
    let normal = Vec2::new(half.y, -half.x);
    let apart_on_normal = d.dot(normal).abs() > bx.extent(normal);
    if !apart_on_box_axes && !apart_on_normal {
        return 0.0;
    }
    let ends = bx.distance_squared_to(p0).min(bx.distance_squared_to(p1));
    let corners = bx
        .corners()
        .iter()
        .map(|&c| c.distance_squared(crate::shape::closest_points_segments2(c, c, p0, p1).1))
        .fold(f32::INFINITY, f32::min);
    ends.min(corners).sqrt()
}
