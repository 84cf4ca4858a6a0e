//! The screens of the closed forms for balls and capsules under similarities, in world space
//! (the formulas are in `sat.rs`): which pairs take them, and their contact.

use glam::{Affine3A, Vec3A};

use super::frame::FrameContact;
use super::sat;
use crate::math::{both_rigid, is_similarity};
use crate::shape::ConvexShape;

/// Whether a radius or half height is finite and non-negative, on the bits: +0 to the largest
/// finite value, or -0.
#[inline(always)]
fn length_ok(x: f32) -> bool {
    (x.to_bits() < 0x7f80_0000) | (x.to_bits() == 0x8000_0000)
}

/// The radii of two balls under rigid maps: the screen of the inlined two-ball paths, `None`
/// (the pair goes the general way, which handles every other case) unless both shapes are balls
/// with finite non-negative radii (`-0` goes the general way), both maps pass [`both_rigid`] (so
/// both balls keep their radii, `s = 1`, and the answer waits on no square root of a scale) and
/// the squared distance of their centres is finite (a NaN or infinite translation makes it NaN or
/// infinite; a finite pair whose squared distance overflows goes the general way too).
#[inline(always)]
pub(crate) fn rigid_balls(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
) -> Option<(f32, f32)> {
    let (ConvexShape::Ball(x), ConvexShape::Ball(y)) = (a, b) else { return None };
    let ok = x.radius.to_bits().max(y.radius.to_bits()) < f32::INFINITY.to_bits()
        && both_rigid(&a_to_world.matrix3, &b_to_world.matrix3)
        && (b_to_world.translation - a_to_world.translation).length_squared() < f32::INFINITY;
    ok.then_some((x.radius, y.radius))
}

/// A ball or a capsule under a similarity map, as a world-space segment (a point for a ball)
/// and a radius; `None` for other shapes and maps (and invalid ones, left to the general path).
#[inline(always)]
fn as_world_segment(shape: &ConvexShape, shape_to_world: &Affine3A) -> Option<WorldSegment> {
    match shape {
        ConvexShape::Ball(s) if length_ok(s.radius) => {
            let scale = is_similarity(shape_to_world)?;
            Some((shape_to_world.translation, shape_to_world.translation, s.radius * scale))
        }
        ConvexShape::Capsule(s) if length_ok(s.radius) && length_ok(s.half_height) => {
            let scale = is_similarity(shape_to_world)?;
            let h = shape_to_world.matrix3.y_axis * s.half_height;
            Some((shape_to_world.translation - h, shape_to_world.translation + h, s.radius * scale))
        }
        _ => None,
    }
}

/// A world-space segment and radius (see [`as_world_segment`]).
pub(crate) type WorldSegment = (Vec3A, Vec3A, f32);

/// The closed-form contact of two balls or capsules under similarities, in world space (no
/// query frame), with their segments when both are capsules: `None` when the pair is not of
/// that kind.
#[inline(always)]
pub(crate) fn quick_contact(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    prediction: f32,
) -> Option<(Option<FrameContact>, Option<[WorldSegment; 2]>)> {
    if let (ConvexShape::Ball(x), ConvexShape::Ball(y)) = (a, b) {
        // Two balls: the shortest path.
        if !(length_ok(x.radius) & length_ok(y.radius)) {
            return None;
        }
        let (ra, rb) = (x.radius * is_similarity(a_to_world)?, y.radius * is_similarity(b_to_world)?);
        return Some((
            sat::spheres(a_to_world.translation, ra, b_to_world.translation, rb, prediction),
            None,
        ));
    }
    let sa = as_world_segment(a, a_to_world)?;
    let sb = as_world_segment(b, b_to_world)?;
    let capsules = matches!((a, b), (ConvexShape::Capsule(_), ConvexShape::Capsule(_)));
    let c = if sa.0 == sa.1 && sb.0 == sb.1 {
        sat::spheres(sa.0, sa.2, sb.0, sb.2, prediction)
    } else {
        sat::capsules(sa, sb, b_to_world.translation - a_to_world.translation, prediction)
    };
    Some((c, capsules.then_some([sa, sb])))
}
