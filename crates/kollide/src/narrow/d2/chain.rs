//! Chain segments: a segment that knows its neighbours, so that shapes slide across the joints of
//! a chain without catching on them (no ghost contacts).
//!
//! A shape crossing the joint of two collinear segments touches the end of each, and the manifold
//! of one segment alone may take the axis of the shape's side face or of the segment's end, a
//! normal pointing along the chain that stops the shape dead. Following Box2D v3's smooth
//! segments (Catto, "Ghost collisions", 2010), a contact normal is *admissible* when it lies in the
//! segment's own Voronoi cone: its face normal, widened at an end toward the neighbouring
//! segment's normal only when the joint is convex (the neighbour bends away from the shape, so the
//! corner is exposed), and unrestricted at a free end of an open chain; an end's cone applies only
//! to contacts at that end. An inadmissible normal is replaced by the face normal, and the
//! manifold recomputed with the segment as the reference edge.

use glam::{Affine2, Vec2};

use super::frame::{PairFrame2, Placed, Proxy2};
use super::gjk::GjkCache2;
use super::manifold::{ContactManifold2, collide_on_edge};
use super::query::contact_manifold2;
use crate::narrow::NarrowError;
use crate::shape::{ConvexShape2, Segment2, SupportMap2};

/// A segment of a chain with the far ends of its neighbours (`None` at the free ends of an open
/// chain), in the chain's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainSegment2 {
    pub segment: Segment2,
    /// The point before `segment.a` on the chain.
    pub ghost_before: Option<Vec2>,
    /// The point after `segment.b` on the chain.
    pub ghost_after: Option<Vec2>,
    /// Whether only shapes on the right-hand side (`(d.y, -d.x)` for `d = b - a`) collide.
    pub one_sided: bool,
}

/// How near an end of the segment (a fraction of its length) a contact point must lie for the
/// end's cone of normals to apply (the points of a corner contact are the corner, to rounding).
const END_TOLERANCE: f32 = 1e-5;

/// Whether `n` lies in the arc from `u` to `v` (unit vectors less than a half turn apart).
#[inline]
fn in_arc(n: Vec2, u: Vec2, v: Vec2) -> bool {
    let turn = u.perp_dot(v);
    u.perp_dot(n) * turn >= 0.0 && n.perp_dot(v) * turn >= 0.0 && n.dot(u + v) >= 0.0
}

/// The contact manifold of a chain segment (A, placed by `chain_to_world`) and a convex shape (B)
/// within `prediction`, into `out`, without ghost contacts (see the module documentation).
pub fn chain_segment_manifold2(
    seg: &ChainSegment2,
    chain_to_world: &Affine2,
    shape: &ConvexShape2,
    shape_to_world: &Affine2,
    prediction: f32,
    cache: &mut GjkCache2,
    out: &mut ContactManifold2,
) -> Result<(), NarrowError> {
    let segment = ConvexShape2::Segment(seg.segment);
    contact_manifold2(&segment, chain_to_world, shape, shape_to_world, prediction, cache, out)?;
    if out.is_empty() {
        return Ok(());
    }
    let frame = PairFrame2::new(chain_to_world, shape_to_world).ok_or(NarrowError::NonFinite)?;
    let to_frame = |p: Vec2| frame.a.transform_point2(p);
    let (a, b) = (to_frame(seg.segment.a), to_frame(seg.segment.b));
    // The right-hand side maps to the right-hand side of the image unless the map reflects.
    let handed = if frame.a.matrix2.determinant() < 0.0 { -1.0 } else { 1.0 };
    let right = |d: Vec2| (Vec2::new(d.y, -d.x) * handed).normalize_or_zero();
    let face = right(b - a);
    if face == Vec2::ZERO {
        return Ok(());
    }
    let normal = frame.vector_from_world(out.normal);
    let front = if seg.one_sided {
        // A one-sided chain ignores shapes whose origin lies behind it.
        if face.dot(frame.b.translation - a) < 0.0 {
            out.clear();
            return Ok(());
        }
        face
    } else if normal.dot(face) >= 0.0 {
        face
    } else {
        -face
    };
    let side = front.dot(face);
    // Where the contact points lie along the segment (0 at `a`, 1 at `b`): an end's cone applies
    // only to a contact at that end (a face contact near the other end may lean either way).
    let e = b - a;
    let (first, last) = out.points().iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), p| {
        let u = (frame.vector_from_world(p.point_a - frame.origin) - a).dot(e) / e.length_squared();
        (lo.min(u), hi.max(u))
    });
    // At each end: unrestricted at a free end (when the normal leans past it), widened to the
    // neighbour's normal at a convex joint (the neighbour's far end lies behind this segment's
    // line), the face normal alone otherwise.
    let neighbour_normal = |from: Vec2, to: Vec2| right(to - from) * side;
    let at_a = first <= END_TOLERANCE
        && match seg.ghost_before {
            None => normal.dot(a - b) >= 0.0,
            Some(g) => {
                let g = to_frame(g);
                front.dot(g - a) < 0.0 && in_arc(normal, front, neighbour_normal(g, a))
            }
        };
    let at_b = last >= 1.0 - END_TOLERANCE
        && match seg.ghost_after {
            None => normal.dot(b - a) >= 0.0,
            Some(g) => {
                let g = to_frame(g);
                front.dot(g - b) < 0.0 && in_arc(normal, front, neighbour_normal(b, g))
            }
        };
    // The face normal itself, up to the rounding of the frame's round trip (a dot product near
    // one cannot tell: `1 - 1e-5` admits normals a quarter of a degree off).
    if (normal - front).length_squared() <= 1e-10 || at_a || at_b {
        return Ok(());
    }
    // Recompute with the segment's face as the reference edge.
    let seg_proxy = Proxy2::new(&segment, &frame.a).ok_or(NarrowError::NonFinite)?;
    let edge = if seg_proxy.normals[0].dot(front) > 0.0 { 0 } else { 1 };
    match Proxy2::new(shape, &frame.b) {
        Some(proxy) => collide_on_edge(&seg_proxy, edge, &proxy, false, prediction, out),
        None => out.clear(),
    }
    if out.is_empty() {
        // No proxy, or the shape's incident edge lies past the segment's end (near a joint whose
        // neighbour does not report it): the shape's deepest point along the face normal on the
        // side of the shape's origin (for a one-sided chain, its front).
        let side = if seg.one_sided || face.dot(frame.b.translation - a) >= 0.0 { face } else { -face };
        let (placed, margin) = Placed::new(shape, &frame.b);
        let deepest = placed.support(-side) - side * margin;
        let separation = side.dot(deepest - a);
        if separation <= prediction {
            out.normal = side;
            out.push(deepest - side * separation, deepest, separation, 0);
        }
    }
    out.map_to_world(|p| frame.point_to_world(p), |v| frame.vector_to_world(v));
    Ok(())
}
