//! The pair queries and their dispatch: composites (sphere sets, compounds) are split into their
//! parts, culled by boxes, until two leaves meet (convex shapes, meshes, fields); each pair of
//! leaf kinds has one implementation, the mirrored pair calls it with the operands swapped and
//! mirrors the answer.

use glam::{Affine3A, Vec3, Vec3A};

use super::{Contact, Operand, PartManifold, QueryError, Shape, ShapeCastHit, check_operand, from_narrow};
use super::{field_pair, mesh_pair};
use crate::bounds::Aabb3;
use crate::narrow::{self, ContactManifold, GjkCache, NarrowError};

/// The most steps of conservative advancement in a shape cast with a mesh, sphere set or
/// compound (see [`cast_shape`]).
pub const CAST_MAX_STEPS: usize = 256;

/// A shape and its placement, checked.
#[derive(Clone, Copy)]
pub(crate) struct PlacedShape<'a> {
    pub shape: &'a Shape,
    pub to_world: &'a Affine3A,
}

pub(crate) fn checked<'a>(
    a: &'a Shape,
    a_to_world: &'a Affine3A,
    b: &'a Shape,
    b_to_world: &'a Affine3A,
) -> Result<(PlacedShape<'a>, PlacedShape<'a>), QueryError> {
    check_operand(a, a_to_world, Operand::A)?;
    check_operand(b, b_to_world, Operand::B)?;
    Ok((PlacedShape { shape: a, to_world: a_to_world }, PlacedShape { shape: b, to_world: b_to_world }))
}

/// The query error of a narrow-phase error on two convex shapes. The narrow phase refuses exactly
/// what [`check_operand`] refuses for convex shapes (invalid shapes, non-finite placements; the
/// query checked its other arguments first), so two convex shapes skip the check on the way in
/// and name the bad operand only on the way out.
#[cold]
pub(crate) fn convex_pair_error(
    error: NarrowError,
    a: &Shape,
    a_to_world: &Affine3A,
    b: &Shape,
    b_to_world: &Affine3A,
) -> QueryError {
    check_operand(a, a_to_world, Operand::A)
        .and(check_operand(b, b_to_world, Operand::B))
        .err()
        .unwrap_or_else(|| from_narrow(error, false))
}

/// [`checked`], and [`QueryError::Unsupported`] (naming the operands' kinds) when a field takes
/// part, alone or in a compound: only `intersects` has an algorithm for fields.
fn checked_without_fields<'a>(
    query: &'static str,
    a: &'a Shape,
    a_to_world: &'a Affine3A,
    b: &'a Shape,
    b_to_world: &'a Affine3A,
) -> Result<(PlacedShape<'a>, PlacedShape<'a>), QueryError> {
    let pair = checked(a, a_to_world, b, b_to_world)?;
    if has_field(a) || has_field(b) {
        return Err(QueryError::Unsupported { query, a: a.kind(), b: Some(b.kind()) });
    }
    Ok(pair)
}

/// Whether the shape is a field or a compound with a field among its children.
fn has_field(shape: &Shape) -> bool {
    match shape {
        Shape::Field(_) => true,
        Shape::Compound(c) => c.children().iter().any(|(child, _)| has_field(child)),
        _ => false,
    }
}

/// Whether A and B touch or overlap (solids: one inside the other counts).
pub fn intersects(
    a: &Shape,
    a_to_world: &Affine3A,
    b: &Shape,
    b_to_world: &Affine3A,
) -> Result<bool, QueryError> {
    if let (Shape::Convex(x), Shape::Convex(y)) = (a, b) {
        return narrow::intersects(x, a_to_world, y, b_to_world, &mut GjkCache::default())
            .map_err(|e| convex_pair_error(e, a, a_to_world, b, b_to_world));
    }
    let (a, b) = checked(a, a_to_world, b, b_to_world)?;
    intersects_placed(&a, &b)
}

pub(crate) fn intersects_placed(a: &PlacedShape, b: &PlacedShape) -> Result<bool, QueryError> {
    use Shape as S;
    match (a.shape, b.shape) {
        (S::SphereSet(_) | S::Compound(_), _) => {
            let mut found = Ok(false);
            for_each_part(a, bounds_of(b).as_ref(), |_, part| {
                found = intersects_placed(part, b);
                // Go on while the parts so far miss.
                matches!(found, Ok(false))
            });
            found
        }
        (_, S::SphereSet(_) | S::Compound(_)) => intersects_placed(b, a),
        (S::Field(_), _) | (_, S::Field(_)) => field_pair::intersects(a, b),
        (S::Convex(x), S::Convex(y)) => {
            narrow::intersects(x, a.to_world, y, b.to_world, &mut GjkCache::default())
                .map_err(|e| from_narrow(e, false))
        }
        (S::Convex(_), S::Mesh(_)) => Ok(mesh_pair::convex_mesh_intersects(a, b)),
        (S::Mesh(_), S::Convex(_)) => Ok(mesh_pair::convex_mesh_intersects(b, a)),
        (S::Mesh(_), S::Mesh(_)) => Ok(mesh_pair::mesh_mesh_intersects(a, b)),
    }
}

/// The contact of A and B if they are at most `max_distance` apart (`f32::INFINITY`: always):
/// the closest points when apart, the deepest points when penetrating (an estimate where a mesh
/// takes part, see the module), with the parts they lie on.
///
/// Errors: a NaN `max_distance`; [`QueryError::Unsupported`] with a field.
pub fn contact(
    a: &Shape,
    a_to_world: &Affine3A,
    b: &Shape,
    b_to_world: &Affine3A,
    max_distance: f32,
) -> Result<Option<Contact>, QueryError> {
    if max_distance.is_nan() {
        return Err(QueryError::NonFiniteArgument("max_distance"));
    }
    if let (Shape::Convex(x), Shape::Convex(y)) = (a, b) {
        return narrow::contact(x, a_to_world, y, b_to_world, max_distance, &mut GjkCache::default())
            .map_err(|e| convex_pair_error(e, a, a_to_world, b, b_to_world));
    }
    let (a, b) = checked_without_fields("contact", a, a_to_world, b, b_to_world)?;
    contact_placed(&a, &b, max_distance.max(0.0))
}

pub(crate) fn contact_placed(
    a: &PlacedShape,
    b: &PlacedShape,
    max_distance: f32,
) -> Result<Option<Contact>, QueryError> {
    use Shape as S;
    match (a.shape, b.shape) {
        (S::SphereSet(_) | S::Compound(_), _) => {
            let mut best: Option<Contact> = None;
            let mut limit = max_distance;
            let region = bounds_of(b).map(|r| r.expanded(finite_or_max(limit)));
            let mut result = Ok(());
            for_each_part(a, region.as_ref(), |id, part| match contact_placed(part, b, limit) {
                Ok(Some(c)) => {
                    if best.is_none_or(|best| c.separation < best.separation) {
                        limit = limit.min(c.separation.max(0.0));
                        best = Some(Contact { part_a: id, ..c });
                    }
                    true
                }
                Ok(None) => true,
                Err(e) => {
                    result = Err(e);
                    false
                }
            });
            result.map(|()| best)
        }
        (_, S::SphereSet(_) | S::Compound(_)) => Ok(contact_placed(b, a, max_distance)?.map(mirror_contact)),
        (S::Field(_), _) | (_, S::Field(_)) => Err(unsupported("contact", a, b)),
        (S::Convex(x), S::Convex(y)) => {
            narrow::contact(x, a.to_world, y, b.to_world, max_distance, &mut GjkCache::default())
                .map_err(|e| from_narrow(e, false))
        }
        (S::Convex(_), S::Mesh(_)) => mesh_pair::convex_mesh_contact(a, b, max_distance),
        (S::Mesh(_), S::Convex(_)) => {
            Ok(mesh_pair::convex_mesh_contact(b, a, max_distance)?.map(mirror_contact))
        }
        (S::Mesh(_), S::Mesh(_)) => Ok(mesh_pair::mesh_mesh_contact(a, b, max_distance)),
    }
}

/// The contact manifolds of A and B within `prediction`, appended to `out` after clearing it:
/// up to four points per manifold, one manifold per pair of touching parts (per triangle for a
/// convex shape against a mesh, per touching region for two meshes).
///
/// Errors: a NaN `prediction`; [`QueryError::Unsupported`] with a field.
pub fn contact_manifolds(
    a: &Shape,
    a_to_world: &Affine3A,
    b: &Shape,
    b_to_world: &Affine3A,
    prediction: f32,
    out: &mut Vec<PartManifold>,
) -> Result<(), QueryError> {
    out.clear();
    if prediction.is_nan() {
        return Err(QueryError::NonFiniteArgument("prediction"));
    }
    let (a, b) = checked_without_fields("contact_manifolds", a, a_to_world, b, b_to_world)?;
    manifolds_placed(&a, &b, prediction.max(0.0), out)
}

pub(crate) fn manifolds_placed(
    a: &PlacedShape,
    b: &PlacedShape,
    prediction: f32,
    out: &mut Vec<PartManifold>,
) -> Result<(), QueryError> {
    use Shape as S;
    match (a.shape, b.shape) {
        (S::SphereSet(_) | S::Compound(_), _) => {
            let region = bounds_of(b).map(|r| r.expanded(finite_or_max(prediction)));
            let mut result = Ok(());
            for_each_part(a, region.as_ref(), |id, part| {
                let first = out.len();
                result = manifolds_placed(part, b, prediction, out);
                out[first..].iter_mut().for_each(|m| m.part_a = id);
                result.is_ok()
            });
            result
        }
        (_, S::SphereSet(_) | S::Compound(_)) => mirrored(out, |out| manifolds_placed(b, a, prediction, out)),
        (S::Field(_), _) | (_, S::Field(_)) => Err(unsupported("contact_manifolds", a, b)),
        (S::Convex(x), S::Convex(y)) => {
            let mut manifold = ContactManifold::default();
            narrow::contact_manifold(
                x,
                a.to_world,
                y,
                b.to_world,
                prediction,
                &mut GjkCache::default(),
                &mut manifold,
            )
            .map_err(|e| from_narrow(e, false))?;
            if !manifold.is_empty() {
                out.push(PartManifold { part_a: 0, part_b: 0, manifold });
            }
            Ok(())
        }
        (S::Convex(_), S::Mesh(_)) => mesh_pair::convex_mesh_manifolds(a, b, prediction, out),
        (S::Mesh(_), S::Convex(_)) => {
            mirrored(out, |out| mesh_pair::convex_mesh_manifolds(b, a, prediction, out))
        }
        (S::Mesh(_), S::Mesh(_)) => {
            mesh_pair::mesh_mesh_manifolds(a, b, prediction, out);
            Ok(())
        }
    }
}

/// The distance between A and B: 0 when they touch or overlap (solids), else the length of the
/// shortest segment between them.
///
/// Errors: [`QueryError::Unsupported`] with a field.
pub fn distance(
    a: &Shape,
    a_to_world: &Affine3A,
    b: &Shape,
    b_to_world: &Affine3A,
) -> Result<f32, QueryError> {
    if let (Shape::Convex(x), Shape::Convex(y)) = (a, b) {
        return narrow::distance(x, a_to_world, y, b_to_world, &mut GjkCache::default())
            .map_err(|e| convex_pair_error(e, a, a_to_world, b, b_to_world));
    }
    let (a, b) = checked_without_fields("distance", a, a_to_world, b, b_to_world)?;
    distance_placed(&a, &b, f32::INFINITY)
}

/// The distance, or `limit` if it is at least that.
pub(crate) fn distance_placed(a: &PlacedShape, b: &PlacedShape, limit: f32) -> Result<f32, QueryError> {
    use Shape as S;
    match (a.shape, b.shape) {
        (S::SphereSet(_) | S::Compound(_), _) => {
            let mut best = limit;
            let mut result = Ok(());
            let region = bounds_of(b);
            // Parts farther than the best so far are culled by the region grown by it.
            for_each_part(a, region.map(|r| r.expanded(finite_or_max(best))).as_ref(), |_, part| {
                match distance_placed(part, b, best) {
                    Ok(d) => best = best.min(d),
                    Err(e) => result = Err(e),
                }
                result.is_ok() && best > 0.0
            });
            result.map(|()| best)
        }
        (_, S::SphereSet(_) | S::Compound(_)) => distance_placed(b, a, limit),
        (S::Field(_), _) | (_, S::Field(_)) => Err(unsupported("distance", a, b)),
        (S::Convex(x), S::Convex(y)) => {
            narrow::distance(x, a.to_world, y, b.to_world, &mut GjkCache::default())
                .map(|d| d.min(limit))
                .map_err(|e| from_narrow(e, false))
        }
        (S::Convex(_), S::Mesh(_)) | (S::Mesh(_), S::Mesh(_)) => leaf_distance(a, b, limit),
        (S::Mesh(_), S::Convex(_)) => leaf_distance(b, a, limit),
    }
}

/// The distance of a convex shape or mesh (A) and a mesh (B) from their contact.
fn leaf_distance(a: &PlacedShape, b: &PlacedShape, limit: f32) -> Result<f32, QueryError> {
    Ok(match contact_placed(a, b, limit)? {
        Some(c) => c.separation.clamp(0.0, limit),
        None => limit,
    })
}

/// Linear shape cast: B moves by `t · velocity` (world space) while A stays, for
/// `t ∈ [0, max_t]`; the first `t` at which they touch, with the contact then, or `None`.
/// Overlapping at `t = 0` (solids included) gives `t = 0`.
///
/// Two convex shapes: conservative advancement along the contact normal (see
/// [`narrow::cast_shape`]). A convex shape and a mesh: the same against every triangle the sweep
/// reaches. Sphere sets and compounds: the earliest hit of their parts. Two meshes: conservative
/// advancement by the distance over the speed, at most [`CAST_MAX_STEPS`] steps.
///
/// Errors: a non-finite `velocity`, a NaN `max_t`; [`QueryError::Unsupported`] with a field.
pub fn cast_shape(
    a: &Shape,
    a_to_world: &Affine3A,
    b: &Shape,
    b_to_world: &Affine3A,
    velocity: Vec3,
    max_t: f32,
) -> Result<Option<ShapeCastHit>, QueryError> {
    if !velocity.is_finite() {
        return Err(QueryError::NonFiniteArgument("velocity"));
    }
    if max_t.is_nan() {
        return Err(QueryError::NonFiniteArgument("max_t"));
    }
    let (a, b) = checked_without_fields("cast_shape", a, a_to_world, b, b_to_world)?;
    if !(max_t >= 0.0) {
        return Ok(None);
    }
    cast_placed(&a, &b, velocity, max_t)
}

pub(crate) fn cast_placed(
    a: &PlacedShape,
    b: &PlacedShape,
    velocity: Vec3,
    max_t: f32,
) -> Result<Option<ShapeCastHit>, QueryError> {
    use Shape as S;
    match (a.shape, b.shape) {
        (S::SphereSet(_) | S::Compound(_), _) => {
            let mut best: Option<ShapeCastHit> = None;
            let mut limit = max_t;
            let mut result = Ok(());
            let region = bounds_of(b).map(|r| swept(&r, velocity, limit));
            for_each_part(a, region.as_ref(), |id, part| {
                match cast_placed(part, b, velocity, limit) {
                    Ok(Some(hit)) if best.is_none_or(|best| hit.t < best.t) => {
                        limit = hit.t;
                        best = Some(ShapeCastHit { contact: Contact { part_a: id, ..hit.contact }, ..hit });
                    }
                    Ok(_) => {}
                    Err(e) => result = Err(e),
                }
                result.is_ok()
            });
            result.map(|()| best)
        }
        // The parts of a moving composite all move with it: the same cast seen from A.
        (_, S::SphereSet(_) | S::Compound(_)) => {
            let mut best: Option<ShapeCastHit> = None;
            let mut limit = max_t;
            let mut result = Ok(());
            // B's parts that can reach A: those within A's box swept backwards.
            let region = bounds_of(a).map(|r| swept(&r, -velocity, limit));
            for_each_part(b, region.as_ref(), |id, part| {
                match cast_placed(a, part, velocity, limit) {
                    Ok(Some(hit)) if best.is_none_or(|best| hit.t < best.t) => {
                        limit = hit.t;
                        best = Some(ShapeCastHit { contact: Contact { part_b: id, ..hit.contact }, ..hit });
                    }
                    Ok(_) => {}
                    Err(e) => result = Err(e),
                }
                result.is_ok()
            });
            result.map(|()| best)
        }
        (S::Field(_), _) | (_, S::Field(_)) => Err(unsupported("cast_shape", a, b)),
        (S::Convex(x), S::Convex(y)) => {
            narrow::cast_shape(x, a.to_world, y, b.to_world, velocity, max_t, &mut GjkCache::default())
                .map_err(|e| from_narrow(e, false))
        }
        (S::Convex(_), S::Mesh(_)) | (S::Mesh(_), S::Convex(_)) => {
            mesh_pair::convex_mesh_cast(a, b, velocity, max_t)
        }
        (S::Mesh(_), S::Mesh(_)) => cast_by_advancement(a, b, velocity, max_t),
    }
}

/// Conservative advancement by distance over speed: no point of B moves faster than
/// `|velocity|`, so B cannot touch A before it has moved the distance between them.
fn cast_by_advancement(
    a: &PlacedShape,
    b: &PlacedShape,
    velocity: Vec3,
    max_t: f32,
) -> Result<Option<ShapeCastHit>, QueryError> {
    let speed = velocity.length();
    let size = bounds_of(a).map_or(0.0, |r| (r.max - r.min).max_element());
    let tolerance = 1e-5 * (1.0 + size + a.to_world.translation.abs().max_element());
    let mut moved = *b.to_world;
    let mut t = 0.0f32;
    let mut last = None;
    for _ in 0..CAST_MAX_STEPS {
        moved.translation = b.to_world.translation + Vec3A::from(velocity) * t;
        let b_now = PlacedShape { shape: b.shape, to_world: &moved };
        let Some(c) = contact_placed(a, &b_now, f32::INFINITY)? else { return Ok(None) };
        if c.separation <= tolerance {
            return Ok(Some(ShapeCastHit { t, contact: c }));
        }
        if !(speed > 0.0) {
            return Ok(None);
        }
        t += c.separation / speed;
        if !(t <= max_t) {
            return Ok(None);
        }
        last = Some(c);
    }
    Ok(last.map(|contact| ShapeCastHit { t, contact }))
}

/// The box swept by `region` moving by `t · velocity` for `t ∈ [0, max_t]` (everything when the
/// sweep is unbounded).
fn swept(region: &Aabb3, velocity: Vec3, max_t: f32) -> Aabb3 {
    let d = velocity * max_t;
    if !d.is_finite() {
        return Aabb3::new(Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX));
    }
    Aabb3::new(region.min + d.min(Vec3::ZERO), region.max + d.max(Vec3::ZERO))
}

/// The world box `region` seen in the frame that `to_world` maps to the world: the box of its
/// image under the inverse map, which contains every local point that can reach it (every point
/// when the region is too large to map).
pub(crate) fn region_in_frame(region: &Aabb3, to_world: &Affine3A) -> Aabb3 {
    let local = region.transformed(&to_world.inverse());
    if local.min.is_nan() || local.max.is_nan() {
        return Aabb3::new(Vec3::NEG_INFINITY, Vec3::INFINITY);
    }
    local
}

/// `x` if finite, else the largest float (a box grown by it covers every finite box).
fn finite_or_max(x: f32) -> f32 {
    if x.is_finite() { x } else { f32::MAX }
}

/// The world box of a placed shape, `None` for an unbounded field.
pub(crate) fn bounds_of(s: &PlacedShape) -> Option<Aabb3> {
    super::single::bounds_placed(s).ok()
}

/// Visits the parts of a sphere set or compound whose world box overlaps `region` (every part
/// when `None`), as `visit(part id, part)`, until `visit` returns `false`.
pub(crate) fn for_each_part(
    s: &PlacedShape,
    region: Option<&Aabb3>,
    mut visit: impl FnMut(u32, &PlacedShape) -> bool,
) {
    match s.shape {
        Shape::SphereSet(set) => {
            for (i, ball) in set.spheres().iter().enumerate() {
                if region.is_some_and(|r| !r.overlaps(&super::single::ball_box(ball, s.to_world))) {
                    continue;
                }
                let shape =
                    Shape::Convex(crate::shape::ConvexShape::Ball(crate::shape::Ball::new(ball.radius)));
                let to_world = *s.to_world * Affine3A::from_translation(ball.center);
                if !visit(i as u32, &PlacedShape { shape: &shape, to_world: &to_world }) {
                    return;
                }
            }
        }
        Shape::Compound(compound) => compound.visit_children(s.to_world, region, |i, shape, to_world| {
            visit(i, &PlacedShape { shape, to_world })
        }),
        _ => {}
    }
}

/// The contact seen from the other shape: points and parts swapped, normal flipped.
pub(crate) fn mirror_contact(c: Contact) -> Contact {
    Contact {
        point_a: c.point_b,
        point_b: c.point_a,
        normal: -c.normal,
        separation: c.separation,
        part_a: c.part_b,
        part_b: c.part_a,
    }
}

/// Runs `f` (which appends manifolds of B against A) and mirrors what it appended.
fn mirrored(
    out: &mut Vec<PartManifold>,
    f: impl FnOnce(&mut Vec<PartManifold>) -> Result<(), QueryError>,
) -> Result<(), QueryError> {
    let first = out.len();
    let result = f(out);
    for m in &mut out[first..] {
        *m = mirror_manifold(m);
    }
    result
}

/// The manifold seen from the other shape.
pub(crate) fn mirror_manifold(m: &PartManifold) -> PartManifold {
    let mut manifold = ContactManifold::default();
    for p in m.manifold.points() {
        manifold.push(p.point_b, p.point_a, p.separation, p.id);
    }
    manifold.normal = -m.manifold.normal;
    PartManifold { part_a: m.part_b, part_b: m.part_a, manifold }
}

fn unsupported(query: &'static str, a: &PlacedShape, b: &PlacedShape) -> QueryError {
    QueryError::Unsupported { query, a: a.shape.kind(), b: Some(b.shape.kind()) }
}
