//! The 2D pair queries on [`Shape2`]: convex pairs straight to [`crate::narrow`], composite
//! shapes part by part through their BVHs.

use glam::{Affine2, Vec2};

use super::Shape2;
use super::composite::region_in_frame2;
use super::single::bounds2;
use crate::bounds::Aabb2;
use crate::narrow::{self, ChainSegment2, Contact2, ContactManifold2, GjkCache2, NarrowError, ShapeCastHit2};
use crate::query::{Operand, QueryError};
use crate::shape::ConvexShape2;

/// The contact manifold of one part of A with one part of B.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PartManifold2 {
    /// The part of A (a child index for a compound, a segment for a polyline, a triangle for a
    /// mesh; 0 for a convex shape).
    pub part_a: u32,
    /// The part of B (as `part_a`).
    pub part_b: u32,
    /// The contact points of the two parts, normal from A to B.
    pub manifold: ContactManifold2,
}

/// One convex part of a placed shape.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Part<'a> {
    Convex(&'a ConvexShape2),
    Chain(&'a ChainSegment2),
}

impl Part<'_> {
    /// The part as a convex shape (a chain segment is its segment).
    fn convex(&self) -> ConvexShape2Ref<'_> {
        match self {
            Part::Convex(s) => ConvexShape2Ref::Borrowed(s),
            Part::Chain(c) => ConvexShape2Ref::Owned(ConvexShape2::Segment(c.segment)),
        }
    }
}

/// A convex shape borrowed from a composite or built for a part.
pub(crate) enum ConvexShape2Ref<'a> {
    Borrowed(&'a ConvexShape2),
    Owned(ConvexShape2),
}

impl std::ops::Deref for ConvexShape2Ref<'_> {
    type Target = ConvexShape2;
    fn deref(&self) -> &ConvexShape2 {
        match self {
            ConvexShape2Ref::Borrowed(s) => s,
            ConvexShape2Ref::Owned(s) => s,
        }
    }
}

/// Checks one operand: a finite placement, a valid convex shape, an invertible placement for a
/// composite (queried in its own frame).
pub(crate) fn check2(shape: &Shape2, to_world: &Affine2, op: Operand) -> Result<(), QueryError> {
    if !to_world.is_finite() {
        return Err(QueryError::NonFinitePlacement(op));
    }
    match shape {
        Shape2::Convex(s) if !s.is_valid() => Err(QueryError::InvalidShape(op)),
        Shape2::Convex(_) => Ok(()),
        _ if !(to_world.matrix2.determinant().abs() > 0.0) => Err(QueryError::SingularPlacement(op)),
        _ => Ok(()),
    }
}

/// A narrow-phase error as a query error (the operands were checked, so only a part's own
/// placement can be refused).
fn lift(e: NarrowError) -> QueryError {
    match e {
        NarrowError::InvalidShape(0) => QueryError::InvalidShape(Operand::A),
        NarrowError::InvalidShape(_) => QueryError::InvalidShape(Operand::B),
        NarrowError::NonFinite => QueryError::NonFinitePlacement(Operand::A),
    }
}

/// Visits the parts of a placed shape whose world box may overlap the world box `region`, as
/// `visit(part id, part, part_to_world)`, until `visit` returns `false`; returns `false` if
/// stopped.
pub(crate) fn visit_parts(
    shape: &Shape2,
    to_world: &Affine2,
    region: &Aabb2,
    mut visit: impl FnMut(u32, Part, &Affine2) -> bool,
) -> bool {
    let local = || region_in_frame2(region, to_world);
    match shape {
        Shape2::Convex(s) => visit(0, Part::Convex(s), to_world),
        Shape2::Compound(c) => {
            c.visit_children(&local(), |i, s, m| visit(i, Part::Convex(s), &(*to_world * *m)))
        }
        Shape2::Polyline(p) => p.visit_segments(&local(), |i, seg| visit(i, Part::Chain(seg), to_world)),
        Shape2::Mesh(m) => m.visit_triangles(&local(), |i, tri| visit(i, Part::Convex(tri), to_world)),
    }
}

/// `b` grown by `by` on every side (the whole plane for an infinite or NaN `by`).
fn grown(b: &Aabb2, by: f32) -> Aabb2 {
    if by.is_finite() { b.expanded(by.max(0.0)) } else { Aabb2::new(Vec2::NEG_INFINITY, Vec2::INFINITY) }
}

/// `visit(part_a, a_part, a_to_world, part_b, b_part, b_to_world)`: a pair of parts, placed;
/// returns whether to go on.
type PartPairVisit<'v> = dyn FnMut(u32, Part, &Affine2, u32, Part, &Affine2) -> bool + 'v;

/// Visits every pair of parts of A and B whose boxes, grown by `reach`, overlap, as
/// `visit(part_a, a_part, a_to_world, part_b, b_part, b_to_world)`; `reach` is re-read before each
/// part of A so a query can shrink it as it goes. Stops when `visit` returns `false`.
fn visit_part_pairs(
    a: &Shape2,
    a_to_world: &Affine2,
    b: &Shape2,
    b_to_world: &Affine2,
    reach: &dyn Fn() -> f32,
    visit: &mut PartPairVisit,
) -> Result<(), QueryError> {
    let box_b = bounds2(b, b_to_world)?;
    visit_parts(a, a_to_world, &grown(&box_b, reach()), |ia, pa, ma| {
        let box_a = pa.convex().aabb(ma);
        visit_parts(b, b_to_world, &grown(&box_a, reach()), |ib, pb, mb| visit(ia, pa, ma, ib, pb, mb))
    });
    Ok(())
}

/// The memory of one pair of 2D shapes between queries (the world keeps one per pair): the GJK
/// warm start of a convex pair.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairCache2 {
    gjk: GjkCache2,
}

/// Whether A and B touch or overlap.
pub fn intersects2(
    a: &Shape2,
    a_to_world: &Affine2,
    b: &Shape2,
    b_to_world: &Affine2,
) -> Result<bool, QueryError> {
    intersects2_cached(a, a_to_world, b, b_to_world, &mut PairCache2::default())
}

/// [`intersects2`] with the memory of the pair.
pub fn intersects2_cached(
    a: &Shape2,
    a_to_world: &Affine2,
    b: &Shape2,
    b_to_world: &Affine2,
    memory: &mut PairCache2,
) -> Result<bool, QueryError> {
    check2(a, a_to_world, Operand::A)?;
    check2(b, b_to_world, Operand::B)?;
    let cache = &mut memory.gjk;
    if let (Shape2::Convex(sa), Shape2::Convex(sb)) = (a, b) {
        return narrow::intersects2(sa, a_to_world, sb, b_to_world, cache).map_err(lift);
    }
    let mut hit = false;
    let mut error = None;
    visit_part_pairs(a, a_to_world, b, b_to_world, &|| 0.0, &mut |_, pa, ma, _, pb, mb| {
        match narrow::intersects2(&pa.convex(), ma, &pb.convex(), mb, cache) {
            Ok(h) => hit = h,
            Err(e) => error = Some(lift(e)),
        }
        !hit && error.is_none()
    })?;
    error.map_or(Ok(hit), Err)
}

/// The contact of A and B when their separation is at most `prediction`: over every pair of
/// parts, the one of smallest separation (closest points when apart, deepest points when
/// penetrating), with its part ids.
pub fn contact2(
    a: &Shape2,
    a_to_world: &Affine2,
    b: &Shape2,
    b_to_world: &Affine2,
    prediction: f32,
) -> Result<Option<Contact2>, QueryError> {
    check2(a, a_to_world, Operand::A)?;
    check2(b, b_to_world, Operand::B)?;
    if prediction.is_nan() {
        return Err(QueryError::NonFiniteArgument("prediction"));
    }
    let mut cache = GjkCache2::default();
    let mut best: Option<Contact2> = None;
    let mut error = None;
    visit_part_pairs(a, a_to_world, b, b_to_world, &|| prediction, &mut |ia, pa, ma, ib, pb, mb| {
        match narrow::contact2(&pa.convex(), ma, &pb.convex(), mb, prediction, &mut cache) {
            Ok(Some(c)) if best.is_none_or(|b| c.separation < b.separation) => {
                best = Some(Contact2 { part_a: ia, part_b: ib, ..c });
            }
            Ok(_) => {}
            Err(e) => error = Some(lift(e)),
        }
        error.is_none()
    })?;
    error.map_or(Ok(best), Err)
}

/// The contact manifolds of A and B within `prediction`, one per pair of parts that touch, into
/// `out` (cleared first). Polyline segments collide without ghost contacts.
pub fn contact_manifolds2(
    a: &Shape2,
    a_to_world: &Affine2,
    b: &Shape2,
    b_to_world: &Affine2,
    prediction: f32,
    out: &mut Vec<PartManifold2>,
) -> Result<(), QueryError> {
    contact_manifolds2_cached(a, a_to_world, b, b_to_world, prediction, &mut PairCache2::default(), out)
}

/// [`contact_manifolds2`] with the memory of the pair.
pub fn contact_manifolds2_cached(
    a: &Shape2,
    a_to_world: &Affine2,
    b: &Shape2,
    b_to_world: &Affine2,
    prediction: f32,
    memory: &mut PairCache2,
    out: &mut Vec<PartManifold2>,
) -> Result<(), QueryError> {
    out.clear();
    check2(a, a_to_world, Operand::A)?;
    check2(b, b_to_world, Operand::B)?;
    if prediction.is_nan() {
        return Err(QueryError::NonFiniteArgument("prediction"));
    }
    let cache = &mut memory.gjk;
    if let (Shape2::Convex(sa), Shape2::Convex(sb)) = (a, b) {
        let mut manifold = ContactManifold2::default();
        narrow::contact_manifold2(sa, a_to_world, sb, b_to_world, prediction, cache, &mut manifold)
            .map_err(lift)?;
        if !manifold.is_empty() {
            out.push(PartManifold2 { part_a: 0, part_b: 0, manifold });
        }
        return Ok(());
    }
    let mut error = None;
    visit_part_pairs(a, a_to_world, b, b_to_world, &|| prediction, &mut |ia, pa, ma, ib, pb, mb| {
        let mut manifold = ContactManifold2::default();
        let result = part_manifold(pa, ma, pb, mb, prediction, cache, &mut manifold);
        match result {
            Ok(()) if !manifold.is_empty() => out.push(PartManifold2 { part_a: ia, part_b: ib, manifold }),
            Ok(()) => {}
            Err(e) => error = Some(lift(e)),
        }
        error.is_none()
    })?;
    error.map_or(Ok(()), Err)
}

/// The manifold of two parts: chain segments against convex parts without ghost contacts.
fn part_manifold(
    pa: Part,
    ma: &Affine2,
    pb: Part,
    mb: &Affine2,
    prediction: f32,
    cache: &mut GjkCache2,
    out: &mut ContactManifold2,
) -> Result<(), NarrowError> {
    match (pa, pb) {
        (Part::Chain(seg), Part::Convex(s)) => {
            narrow::chain_segment_manifold2(seg, ma, s, mb, prediction, cache, out)
        }
        (Part::Convex(s), Part::Chain(seg)) => {
            narrow::chain_segment_manifold2(seg, mb, s, ma, prediction, cache, out)?;
            out.flip();
            Ok(())
        }
        _ => narrow::contact_manifold2(&pa.convex(), ma, &pb.convex(), mb, prediction, cache, out),
    }
}

/// The distance between A and B (0 when they touch or overlap): the smallest over pairs of
/// parts, pruned by the boxes against the best distance so far.
pub fn distance2(
    a: &Shape2,
    a_to_world: &Affine2,
    b: &Shape2,
    b_to_world: &Affine2,
) -> Result<f32, QueryError> {
    check2(a, a_to_world, Operand::A)?;
    check2(b, b_to_world, Operand::B)?;
    let mut cache = GjkCache2::default();
    if let (Shape2::Convex(sa), Shape2::Convex(sb)) = (a, b) {
        return narrow::distance2(sa, a_to_world, sb, b_to_world, &mut cache).map_err(lift);
    }
    // An upper bound first (the distance between the two boxes' far corners), then every pair of
    // parts within the best distance found so far.
    let (box_a, box_b) = (bounds2(a, a_to_world)?, bounds2(b, b_to_world)?);
    let upper = (box_a.max.max(box_b.max) - box_a.min.min(box_b.min)).length();
    let best = std::cell::Cell::new(upper);
    let mut error = None;
    visit_part_pairs(a, a_to_world, b, b_to_world, &|| best.get(), &mut |_, pa, ma, _, pb, mb| {
        match narrow::distance2(&pa.convex(), ma, &pb.convex(), mb, &mut cache) {
            Ok(d) => best.set(best.get().min(d)),
            Err(e) => error = Some(lift(e)),
        }
        best.get() > 0.0 && error.is_none()
    })?;
    error.map_or(Ok(best.get()), Err)
}

/// Linear shape cast: B moves by `t · velocity` (world space, A still) for `t ∈ [0, max_t]`;
/// the first `t` at which they touch, over every pair of parts the sweep reaches.
pub fn cast_shape2(
    a: &Shape2,
    a_to_world: &Affine2,
    b: &Shape2,
    b_to_world: &Affine2,
    velocity: Vec2,
    max_t: f32,
) -> Result<Option<ShapeCastHit2>, QueryError> {
    check2(a, a_to_world, Operand::A)?;
    check2(b, b_to_world, Operand::B)?;
    if !velocity.is_finite() {
        return Err(QueryError::NonFiniteArgument("velocity"));
    }
    if max_t.is_nan() {
        return Err(QueryError::NonFiniteArgument("max_t"));
    }
    let mut cache = GjkCache2::default();
    let sweep = if max_t.is_finite() { (velocity * max_t.max(0.0)).length() } else { f32::INFINITY };
    let mut best: Option<ShapeCastHit2> = None;
    let mut error = None;
    visit_part_pairs(a, a_to_world, b, b_to_world, &|| sweep, &mut |ia, pa, ma, ib, pb, mb| {
        let limit = best.map_or(max_t, |h| h.t);
        match narrow::cast_shape2(&pa.convex(), ma, &pb.convex(), mb, velocity, limit, &mut cache) {
            Ok(Some(hit)) if best.is_none_or(|h| hit.t < h.t) => {
                best = Some(ShapeCastHit2 {
                    contact: Contact2 { part_a: ia, part_b: ib, ..hit.contact },
                    ..hit
                });
            }
            Ok(_) => {}
            Err(e) => error = Some(lift(e)),
        }
        error.is_none()
    })?;
    error.map_or(Ok(best), Err)
}
