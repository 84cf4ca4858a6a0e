//! Contacts and contact manifolds: the closed forms first, then the separating-axis tests, then
//! GJK and EPA.

use glam::Affine3A;

use super::closed_form::{quick_contact, rigid_balls};
use super::epa::epa;
use super::frame::{FrameContact, PairInput, Side, setup, with_support_maps};
use super::gjk::{GjkCache, GjkResult, gjk};
use super::manifold::{self, ContactManifold};
use super::sat;
use super::types::{Contact, NarrowError};
use crate::shape::{ConvexShape, SupportMap};

/// The general contact: GJK on the cores (or whole shapes), margins added; EPA when the cores
/// overlap. `None` when the shapes are farther apart than `prediction`.
pub(crate) fn contact_gjk(a: &Side, b: &Side, prediction: f32, cache: &mut GjkCache) -> Option<FrameContact> {
    with_support_maps!(a, b, |x, y| contact_gjk_with(a, b, x, y, prediction, cache))
}

/// [`contact_gjk`] with the sides' support maps `sa` and `sb` given.
#[inline(always)]
fn contact_gjk_with(
    a: &Side,
    b: &Side,
    sa: &impl SupportMap,
    sb: &impl SupportMap,
    prediction: f32,
    cache: &mut GjkCache,
) -> Option<FrameContact> {
    let margins = a.margin + b.margin;
    let hint = b.translation - a.translation;
    let result = gjk(sa, sb, hint, prediction + margins, cache);
    let simplex = match result {
        GjkResult::Beyond { .. } => return None,
        GjkResult::Separated { v, simplex } => {
            let d = v.length();
            if d > 1e-6 * (1.0 + a.translation.abs().max(b.translation.abs()).max_element()) {
                let (pa, pb) = simplex.witnesses();
                let n = -v / d;
                let separation = d - margins;
                if separation > prediction {
                    return None;
                }
                return Some(FrameContact {
                    point_a: pa + n * a.margin,
                    point_b: pb - n * b.margin,
                    normal: n,
                    separation,
                });
            }
            simplex
        }
        GjkResult::Overlapping { simplex } => simplex,
    };
    Some(match epa(sa, sb, &simplex) {
        Ok(p) => FrameContact {
            point_a: p.point_a + p.normal * a.margin,
            point_b: p.point_b - p.normal * b.margin,
            normal: p.normal,
            separation: -p.depth - margins,
        },
        Err(flat) => {
            // The cores' difference has no interior and holds the origin: the penetration is the
            // margins' sum along a normal of the flat set (see `Flat`).
            let n = flat.normal_towards(hint);
            let (pa, pb) = simplex.witnesses();
            FrameContact {
                point_a: pa + n * a.margin,
                point_b: pb - n * b.margin,
                normal: n,
                separation: -margins,
            }
        }
    })
}

/// The contact in the frame, through the separating-axis tests for box–box and box–triangle
/// (ball and capsule pairs never get here, see [`quick_contact`]).
pub(crate) fn contact_in_frame(
    a: &Side,
    b: &Side,
    prediction: f32,
    cache: &mut GjkCache,
) -> Option<FrameContact> {
    use ConvexShape as S;
    match (a.shape, b.shape) {
        (S::Cuboid(ca), S::Cuboid(cb)) if a.scale.is_some() && b.scale.is_some() => {
            sat::cuboid_cuboid(ca, a, cb, b, prediction)
                .unwrap_or_else(|| contact_gjk(a, b, prediction, cache))
        }
        (S::Cuboid(c), S::Triangle(t)) if a.scale.is_some() => sat::cuboid_triangle(c, a, t, b, prediction)
            .unwrap_or_else(|| contact_gjk(a, b, prediction, cache)),
        (S::Triangle(t), S::Cuboid(c)) if b.scale.is_some() => sat::cuboid_triangle(c, b, t, a, prediction)
            .map(|c| c.map(FrameContact::swapped))
            .unwrap_or_else(|| contact_gjk(a, b, prediction, cache)),
        _ => contact_gjk(a, b, prediction, cache),
    }
}

/// The contact between A and B when their distance is at most `prediction` (≥ 0; a penetrating
/// pair always has a contact), `None` otherwise.
///
/// Apart: the closest points and `separation` = the distance. Penetrating: the deepest points,
/// the normal of minimum translation and `separation` = minus the penetration depth (EPA or a
/// separating-axis test; exact for polytopes, within `1e-5` relative for curved shapes).
#[inline]
pub fn contact(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
) -> Result<Option<Contact>, NarrowError> {
    // Two balls under rigid maps (the closed form) inline in the caller; everything else out of
    // line, so that the inlined part stays small enough to be inlined.
    if prediction >= 0.0
        && let Some((ra, rb)) = rigid_balls(a, a_to_world, b, b_to_world)
    {
        return Ok(sat::spheres(a_to_world.translation, ra, b_to_world.translation, rb, prediction)
            .map(FrameContact::world));
    }
    contact_rest(a, a_to_world, b, b_to_world, prediction, cache)
}

/// [`contact`] past its inlined case (two balls under rigid maps).
#[inline(never)]
fn contact_rest(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
) -> Result<Option<Contact>, NarrowError> {
    if prediction.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let prediction = prediction.max(0.0);
    if let Some((c, _)) = quick_contact(a, a_to_world, b, b_to_world, prediction) {
        return Ok(c.map(FrameContact::world));
    }
    contact_general(a, a_to_world, b, b_to_world, prediction, cache)
}

/// [`contact`] past the closed forms for balls and capsules (kept out of line, so that their
/// path stays short).
#[inline(never)]
fn contact_general(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
) -> Result<Option<Contact>, NarrowError> {
    let (frame, sa, sb) = setup(&PairInput::new(a, a_to_world, b, b_to_world)?);
    Ok(contact_in_frame(&sa, &sb, prediction, cache).map(|c| c.to_world(&frame)))
}

/// [`contact`] through the general GJK/EPA path only, never a separating-axis or closed-form fast
/// path: the twin the fast paths are tested against.
pub fn contact_gjk_epa(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
) -> Result<Option<Contact>, NarrowError> {
    if prediction.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let (frame, sa, sb) = setup(&PairInput::new(a, a_to_world, b, b_to_world)?);
    Ok(contact_gjk(&sa, &sb, prediction.max(0.0), cache).map(|c| c.to_world(&frame)))
}

/// The contact manifold of A and B (up to 4 points, see [`ContactManifold`]) when their distance
/// is at most `prediction`; `out` is cleared first and left empty otherwise.
#[inline]
pub fn contact_manifold(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
    out: &mut ContactManifold,
) -> Result<(), NarrowError> {
    // Two balls under rigid maps (the one-point closed form) inline in the caller; everything else
    // out of line.
    if prediction >= 0.0
        && let Some((ra, rb)) = rigid_balls(a, a_to_world, b, b_to_world)
    {
        out.clear();
        if let Some(c) = sat::spheres(a_to_world.translation, ra, b_to_world.translation, rb, prediction) {
            out.push(c.point_a.into(), c.point_b.into(), c.separation, 0);
            out.normal = c.normal.into();
        }
        return Ok(());
    }
    contact_manifold_rest(a, a_to_world, b, b_to_world, prediction, cache, out)
}

/// [`contact_manifold`] past its inlined case (two balls under rigid maps).
#[inline(never)]
fn contact_manifold_rest(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
    out: &mut ContactManifold,
) -> Result<(), NarrowError> {
    out.clear();
    if prediction.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let prediction = prediction.max(0.0);
    if let Some((c, segments)) = quick_contact(a, a_to_world, b, b_to_world, prediction) {
        if let Some(c) = c {
            match segments.and_then(|[sa, sb]| sat::parallel_capsule_points(sa, sb, c.normal)) {
                Some(points) => {
                    for (id, (pa, pb, separation)) in points.into_iter().enumerate() {
                        if separation <= prediction {
                            out.push(pa.into(), pb.into(), separation, id as u32);
                        }
                    }
                    if out.is_empty() {
                        out.push(c.point_a.into(), c.point_b.into(), c.separation, 0);
                    }
                }
                None => out.push(c.point_a.into(), c.point_b.into(), c.separation, 0),
            }
            out.normal = c.normal.into();
        }
        return Ok(());
    }
    manifold_general(a, a_to_world, b, b_to_world, prediction, cache, out)
}

/// [`contact_manifold`] past the closed forms (out of line, see [`contact_general`]).
#[inline(never)]
fn manifold_general(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
    out: &mut ContactManifold,
) -> Result<(), NarrowError> {
    let (frame, sa, sb) = setup(&PairInput::new(a, a_to_world, b, b_to_world)?);
    let Some(c) = contact_in_frame(&sa, &sb, prediction, cache) else { return Ok(()) };
    manifold::build(&sa, &sb, &c, prediction, out);
    out.map_to_world(|p| frame.point(p), |v| frame.vector(v));
    Ok(())
}
