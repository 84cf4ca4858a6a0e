//! Distances and overlap tests.

use glam::{Affine3A, Vec3A};

use super::closed_form::{quick_contact, rigid_balls};
use super::frame::{PairInput, Side, setup, with_support_maps};
use super::gjk::{GjkCache, GjkResult, gjk};
use super::sat;
use super::types::NarrowError;
use crate::shape::ConvexShape;

/// The distance between A and B (0 when they touch or overlap).
#[inline]
pub fn distance(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    cache: &mut GjkCache,
) -> Result<f32, NarrowError> {
    // Two balls under rigid maps inline in the caller; everything else (capsules included) out of
    // line.
    if let Some((ra, rb)) = rigid_balls(a, a_to_world, b, b_to_world) {
        let d = (b_to_world.translation - a_to_world.translation).length();
        return Ok((d - ra - rb).max(0.0));
    }
    distance_general(a, a_to_world, b, b_to_world, cache)
}

/// [`distance`] past its inlined case (two balls under rigid maps), out of line.
#[inline(never)]
fn distance_general(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    cache: &mut GjkCache,
) -> Result<f32, NarrowError> {
    use ConvexShape as S;
    if matches!(a, S::Ball(_) | S::Capsule(_))
        && matches!(b, S::Ball(_) | S::Capsule(_))
        && let Some(d) = distance_closed_form(a, a_to_world, b, b_to_world)
    {
        return Ok(d);
    }
    let (_, sa, sb) = setup(&PairInput::new(a, a_to_world, b, b_to_world)?);
    Ok(distance_in_frame(&sa, &sb, cache).max(0.0))
}

/// The distance of two balls or capsules under similarities (see [`quick_contact`]); its own
/// function, so that the general path's code stays as it is.
#[inline(never)]
fn distance_closed_form(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
) -> Option<f32> {
    let (c, _) = quick_contact(a, a_to_world, b, b_to_world, f32::INFINITY)?;
    Some(c.map_or(0.0, |c| c.separation.max(0.0)))
}

/// Whether one shape's local origin lies in the other, for shapes that contain their local origin
/// by construction (all kinds but triangles and hulls, rounded or not): a point of both, so the
/// shapes overlap. Deep overlaps usually pass (GJK needs a full tetrahedron to prove them); the
/// test is exact up to the rounding of the inverse placement.
fn centre_inside(a: &Side, b: &Side) -> bool {
    use ConvexShape as S;
    let around_origin = |s: &ConvexShape| {
        matches!(
            s,
            S::Ball(_)
                | S::Capsule(_)
                | S::Cuboid(_)
                | S::Cylinder(_)
                | S::Cone(_)
                | S::RoundedCuboid(_)
                | S::RoundedCylinder(_)
                | S::RoundedCone(_)
        )
    };
    around_origin(a.shape)
        && around_origin(b.shape)
        && (side_contains(a, b.translation) || side_contains(b, a.translation))
}

/// Whether the frame point `p` lies in the shape of `side` (through the inverse placement; `false`
/// for a singular placement).
fn side_contains(side: &Side, p: Vec3A) -> bool {
    let local = match side.matrix {
        None => p - side.translation,
        Some((m, _)) => {
            if !(m.determinant().abs() > 0.0) {
                return false;
            }
            m.inverse() * (p - side.translation)
        }
    };
    side.shape.project_point(local.into()).inside
}

/// The distance of the two sides in the query frame: 0 when their cores overlap, negative when
/// only their margins do (the caller clamps).
fn distance_in_frame(a: &Side, b: &Side, cache: &mut GjkCache) -> f32 {
    use ConvexShape as S;
    // Boxes and box–triangle pairs: a separating-axis pass proves overlap outright (distance 0,
    // where GJK needs a full tetrahedron) and otherwise gives GJK a separating axis to start from.
    let axis = match (a.shape, b.shape) {
        (S::Cuboid(ca), S::Cuboid(cb)) if a.scale.is_some() && b.scale.is_some() && cache.is_empty() => {
            sat::cuboid_cuboid_axis(ca, a, cb, b)
        }
        (S::Cuboid(c), S::Triangle(t)) if a.scale.is_some() && cache.is_empty() => {
            sat::cuboid_triangle_axis(c, a, t, b)
        }
        (S::Triangle(t), S::Cuboid(c)) if b.scale.is_some() && cache.is_empty() => {
            sat::cuboid_triangle_axis(c, b, t, a).map(|axis| axis.map(|l| -l))
        }
        // Deep overlaps of shapes around their origins: one containment test each way.
        _ if cache.is_empty() && centre_inside(a, b) => Some(None),
        _ => Some(Some(b.translation - a.translation)),
    };
    let hint = match axis {
        Some(Some(l)) => l,
        Some(None) => return 0.0,
        None => b.translation - a.translation,
    };
    match with_support_maps!(a, b, |x, y| gjk(x, y, hint, f32::INFINITY, cache)) {
        GjkResult::Separated { v, .. } | GjkResult::Beyond { v } => v.length() - a.margin - b.margin,
        GjkResult::Overlapping { .. } => 0.0,
    }
}

/// Whether A and B touch or overlap.
pub fn intersects(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    cache: &mut GjkCache,
) -> Result<bool, NarrowError> {
    let (_, sa, sb) = setup(&PairInput::new(a, a_to_world, b, b_to_world)?);
    let margins = sa.margin + sb.margin;
    Ok(match gjk(&sa, &sb, sb.translation - sa.translation, margins, cache) {
        GjkResult::Beyond { .. } => false,
        GjkResult::Separated { v, .. } => v.length() <= margins,
        GjkResult::Overlapping { .. } => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{Ball, Cuboid};
    use glam::Vec3;

    /// Either centre inside the other shape proves the overlap: a small ball inside a big box
    /// holds the box's centre in neither order, but its own centre is in the box.
    #[test]
    fn centre_inside_holds_either_way() {
        let big: ConvexShape = Cuboid::new(Vec3::splat(2.0)).into();
        let small: ConvexShape = Ball::new(0.1).into();
        let side = |shape, x: f32| Side {
            shape,
            matrix: None,
            translation: Vec3A::new(x, 0.0, 0.0),
            margin: 0.0,
            scale: Some(1.0),
        };
        assert!(centre_inside(&side(&big, 0.0), &side(&small, 1.5)));
        assert!(centre_inside(&side(&small, 1.5), &side(&big, 0.0)));
        assert!(!centre_inside(&side(&big, 0.0), &side(&small, 3.0)));
    }
}
