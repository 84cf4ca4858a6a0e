//! The 2D single-shape queries on [`Shape2`]: boxes, ray casts and containment.

use glam::{Affine2, Vec2};

use super::Shape2;
use super::pair::{Part, check2, visit_parts};
use crate::bounds::Aabb2;
use crate::math::Ray2;
use crate::narrow;
use crate::primitive::d2::RayHit2;
use crate::query::{Operand, QueryError};

/// The world box of the placed shape (exact for convex shapes; for composites the box of the
/// image of their local box, which contains every part).
pub fn bounds2(shape: &Shape2, to_world: &Affine2) -> Result<Aabb2, QueryError> {
    check2(shape, to_world, Operand::A)?;
    Ok(match shape {
        Shape2::Convex(s) => s.aabb(to_world),
        Shape2::Compound(c) => c.local_bounds().transformed(to_world),
        Shape2::Polyline(p) => p.local_bounds().transformed(to_world),
        Shape2::Mesh(m) => m.local_bounds().transformed(to_world),
    })
}

/// The first hit of a ray with the placed shape within `[0, max_t]`, with the part it hit (solids
/// are hit at `t = 0` from inside; a polyline is a curve).
pub fn cast_ray2(
    shape: &Shape2,
    to_world: &Affine2,
    ray: &Ray2,
    max_t: f32,
) -> Result<Option<RayHit2>, QueryError> {
    check2(shape, to_world, Operand::A)?;
    if !to_world.matrix2.determinant().is_normal() {
        // A convex shape collapsed onto a line or a point has no interior to enter (as in 3D);
        // composites are refused by `check2`.
        return Ok(None);
    }
    if !ray.origin.is_finite() || !ray.dir.is_finite() {
        return Err(QueryError::NonFiniteArgument("ray"));
    }
    if max_t.is_nan() {
        return Err(QueryError::NonFiniteArgument("max_t"));
    }
    let mut limit = max_t;
    let mut best = None;
    let end = if max_t.is_finite() { ray.at(max_t.max(0.0)) } else { ray.origin + ray.dir * f32::MAX.sqrt() };
    let region = Aabb2::new(ray.origin.min(end), ray.origin.max(end));
    let region = if max_t.is_finite() { region } else { Aabb2::new(Vec2::NEG_INFINITY, Vec2::INFINITY) };
    let mut error = None;
    visit_parts(shape, to_world, &region, |i, part, m| {
        let hit = match part {
            Part::Convex(s) => narrow::cast_ray2(s, m, ray, limit),
            Part::Chain(seg) => {
                narrow::cast_ray2(&crate::shape::ConvexShape2::Segment(seg.segment), m, ray, limit)
            }
        };
        match hit {
            Ok(Some(h)) if best.is_none_or(|b: RayHit2| h.t < b.t) => {
                limit = h.t;
                best = Some(RayHit2 { part: i, ..h });
            }
            Ok(_) => {}
            Err(_) => error = Some(QueryError::SingularPlacement(Operand::A)),
        }
        error.is_none()
    });
    error.map_or(Ok(best), Err)
}

/// Whether the placed shape contains the world point `p` (boundary included; a polyline
/// contains only the points on it).
pub fn contains_point2(shape: &Shape2, to_world: &Affine2, p: Vec2) -> Result<bool, QueryError> {
    check2(shape, to_world, Operand::A)?;
    if !p.is_finite() {
        return Err(QueryError::NonFiniteArgument("p"));
    }
    if !to_world.matrix2.determinant().is_normal() {
        // A convex shape collapsed onto a line or a point has no interior.
        return Ok(false);
    }
    let mut inside = false;
    let mut error = None;
    visit_parts(shape, to_world, &Aabb2::new(p, p), |_, part, m| {
        let result = match part {
            Part::Convex(s) => narrow::contains_point2(s, m, p),
            Part::Chain(seg) => {
                narrow::contains_point2(&crate::shape::ConvexShape2::Segment(seg.segment), m, p)
            }
        };
        match result {
            Ok(c) => inside = c,
            Err(_) => error = Some(QueryError::SingularPlacement(Operand::A)),
        }
        !inside && error.is_none()
    });
    error.map_or(Ok(inside), Err)
}
