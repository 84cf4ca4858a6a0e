//! Ray casts, linear shape casts and point projection.

use glam::{Affine3A, Vec3, Vec3A};

use super::contact::contact;
use super::frame::{PairInput, finite, setup};
use super::gjk::{GjkCache, GjkResult, gjk, gjk_ray_cast};
use super::types::{NarrowError, ShapeCastHit};
use crate::math::{Ray3, is_rigid};
use crate::primitive::RayHit3;
use crate::shape::{ConvexShape, PointProjection};

/// Linear shape cast: B moves by `t · velocity` (world space, A still) for `t ∈ [0, max_t]`;
/// the first `t` at which the shapes touch, or `None`.
///
/// Conservative advancement (Mirtich): at each step the contact gives the distance `d` and the
/// normal `n`; no point of B can reach A before B has moved `d` along `-n`, so `t` advances by
/// `d / (-velocity · n)`, and the cast misses once B moves away from the separating plane. It
/// stops when the distance is below `1e-5 · (1 + |translations|)` (at most 64 steps, enough for
/// all but grazing casts, which then report the last `t`). Overlapping at `t = 0` gives `t = 0`.
pub fn cast_shape(
    a: &ConvexShape,
    a_to_world: &Affine3A,
    b: &ConvexShape,
    b_to_world: &Affine3A,
    velocity: Vec3,
    max_t: f32,
    cache: &mut GjkCache,
) -> Result<Option<ShapeCastHit>, NarrowError> {
    if !velocity.is_finite() || max_t.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let tolerance =
        1e-5 * (1.0 + a_to_world.translation.abs().max(b_to_world.translation.abs()).max_element());
    let mut t = 0.0f32;
    let mut moved = *b_to_world;
    for _ in 0..64 {
        moved.translation = b_to_world.translation + Vec3A::from(velocity) * t;
        let Some(c) = contact(a, a_to_world, b, &moved, f32::INFINITY, cache)? else { return Ok(None) };
        if c.separation <= tolerance {
            return Ok(Some(ShapeCastHit { t, contact: c }));
        }
        let closing = -velocity.dot(c.normal);
        if !(closing > 0.0) {
            return Ok(None);
        }
        t += c.separation / closing;
        if !(t <= max_t) {
            return Ok(None);
        }
    }
    moved.translation = b_to_world.translation + Vec3A::from(velocity) * t;
    Ok(contact(a, a_to_world, b, &moved, f32::INFINITY, cache)?.map(|contact| ShapeCastHit { t, contact }))
}

/// The first hit of a ray with the solid shape placed by `shape_to_world`, with the world-space
/// unit normal (facing against the ray; from inside, `t = 0` and the normal is `-dir / |dir|`).
///
/// The ray is cast in the shape's local space (`t` is kept by affine maps): closed forms for the
/// ball, capsule, box, cylinder, triangle and hull; GJK ray casting for the cone and the rounded
/// shapes. `None` for a miss or an invalid ray (see [`crate::primitive`]); errors for invalid
/// shapes and non-finite or singular maps.
pub fn cast_ray(
    shape: &ConvexShape,
    shape_to_world: &Affine3A,
    ray: &Ray3,
    max_t: f32,
) -> Result<Option<RayHit3>, NarrowError> {
    if !shape.is_valid() {
        return Err(NarrowError::InvalidShape(0));
    }
    let det = shape_to_world.matrix3.determinant();
    if !finite(shape_to_world)
        || !(det.abs() > 0.0)
        || !ray.origin.is_finite()
        || !ray.dir.is_finite()
        || max_t.is_nan()
    {
        return Err(NarrowError::NonFinite);
    }
    let inv = shape_to_world.inverse();
    let local = Ray3::new(inv.transform_point3(ray.origin), inv.transform_vector3(ray.dir));
    let hit = match shape {
        ConvexShape::Ball(s) => s.ray_cast(&local, max_t),
        ConvexShape::Capsule(s) => s.ray_cast(&local, max_t),
        ConvexShape::Cuboid(s) => s.ray_cast(&local, max_t),
        ConvexShape::Cylinder(s) => s.ray_cast(&local, max_t),
        ConvexShape::Triangle(s) => s.ray_cast(&local, max_t),
        ConvexShape::Hull(s) => s.ray_cast(&local, max_t),
        ConvexShape::Cone(_)
        | ConvexShape::RoundedCuboid(_)
        | ConvexShape::RoundedCylinder(_)
        | ConvexShape::RoundedCone(_)
        | ConvexShape::RoundedTriangle(_)
        | ConvexShape::RoundedHull(_) => {
            let dd = local.dir.length_squared();
            if !(dd >= f32::MIN_POSITIVE && max_t >= 0.0) {
                return Ok(None);
            }
            gjk_ray_cast(shape, local.origin.into(), local.dir.into(), max_t).map(|(t, n)| {
                let n = n.normalize_or_zero();
                let n = if n == Vec3A::ZERO { -Vec3A::from(local.dir) / dd.sqrt() } else { n };
                RayHit3 { part: 0, t, normal: n.into() }
            })
        }
    };
    Ok(hit.map(|h| {
        // Normals map by the inverse transpose (see `math::map_normal`); the inverse is at hand.
        let n = inv.matrix3.transpose() * Vec3A::from(h.normal);
        let n = n.normalize_or_zero();
        let n = if h.t == 0.0 || n == Vec3A::ZERO { -ray.dir.normalize_or_zero() } else { n.into() };
        RayHit3 { part: 0, t: h.t, normal: n }
    }))
}

/// The point of the solid shape placed by `shape_to_world` closest to the world point `p`, in
/// world space.
///
/// Under a rigid placement, the shape's closed-form projection in its local frame; under other
/// maps the metric is not preserved, so GJK between the point and the placed shape.
pub fn project_point(
    shape: &ConvexShape,
    shape_to_world: &Affine3A,
    p: Vec3,
) -> Result<PointProjection, NarrowError> {
    if !shape.is_valid() {
        return Err(NarrowError::InvalidShape(0));
    }
    if !finite(shape_to_world) || !p.is_finite() {
        return Err(NarrowError::NonFinite);
    }
    if is_rigid(&shape_to_world.matrix3) {
        let local = shape_to_world.matrix3.transpose() * (Vec3A::from(p) - shape_to_world.translation);
        let proj = shape.project_point(local.into());
        let point = if proj.inside { p } else { shape_to_world.transform_point3(proj.point) };
        return Ok(PointProjection { point, inside: proj.inside });
    }
    let point = ConvexShape::Ball(crate::shape::Ball::new(0.0));
    let point_to_world = Affine3A::from_translation(p);
    let (frame, sa, sb) = setup(&PairInput::new(shape, shape_to_world, &point, &point_to_world)?);
    let mut cache = GjkCache::default();
    // Under a similarity GJK runs on the core (see `setup`): the point is outside when it is
    // farther than the margin from the core, and its projection lies the margin beyond the
    // core's closest point, toward the point.
    Ok(match gjk(&sa, &sb, sb.translation - sa.translation, f32::INFINITY, &mut cache) {
        GjkResult::Separated { v, simplex } if v.length() > sa.margin => {
            let (pa, pb) = simplex.witnesses();
            let toward = (pb - pa).normalize_or_zero();
            PointProjection { point: frame.point(pa + toward * sa.margin), inside: false }
        }
        _ => PointProjection { point: p, inside: true },
    })
}
