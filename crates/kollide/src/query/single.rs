//! Queries on one placed shape: ray casts, point projection and containment, bounds.

use glam::{Affine3A, Vec3, Vec3A};

use super::pair::{PlacedShape, for_each_part};
use super::{Operand, QueryError, Shape, check_operand, from_narrow};
use crate::bounds::{Aabb3, Sphere};
use crate::field::{Field3, PlacedField};
use crate::math::Ray3;
use crate::mesh::MeshInstance;
use crate::narrow;
use crate::primitive::RayHit3;
use crate::shape::PointProjection;

/// A ray cast into a field stops when the field is below this fraction of its Lipschitz bound
/// times the size of the field's box: within that distance of the surface.
pub const FIELD_RAY_TOLERANCE: f32 = 1e-5;

/// The most sphere-tracing steps of a ray cast into a field.
const FIELD_RAY_STEPS: usize = 512;

/// The newton steps of a point projection onto a field.
const FIELD_PROJECTION_STEPS: usize = 16;

/// The first hit of the ray with the solid shape within `t ∈ [0, max_t]`, with the world-space
/// unit normal facing against the ray and the part hit (see [`RayHit3::part`]); a ray starting
/// inside a solid hits at `t = 0` with the normal `-dir / |dir|`. A negative `max_t` or a zero
/// direction finds nothing.
///
/// Errors: a non-finite ray or a NaN `max_t`, a non-finite or (for all but convex shapes)
/// singular placement, an invalid shape.
pub fn cast_ray(
    shape: &Shape,
    to_world: &Affine3A,
    ray: &Ray3,
    max_t: f32,
) -> Result<Option<RayHit3>, QueryError> {
    check_operand(shape, to_world, Operand::A)?;
    if !(ray.origin.is_finite() && ray.dir.is_finite()) {
        return Err(QueryError::NonFiniteArgument("ray"));
    }
    if max_t.is_nan() {
        return Err(QueryError::NonFiniteArgument("max_t"));
    }
    if !(max_t >= 0.0) || ray.dir == Vec3::ZERO {
        return Ok(None);
    }
    cast_ray_placed(&PlacedShape { shape, to_world }, ray, max_t)
}

fn cast_ray_placed(s: &PlacedShape, ray: &Ray3, max_t: f32) -> Result<Option<RayHit3>, QueryError> {
    match s.shape {
        Shape::Convex(c) => match narrow::cast_ray(c, s.to_world, ray, max_t) {
            Ok(hit) => Ok(hit),
            // A singular placement flattens the shape: no volume for a ray to enter.
            Err(narrow::NarrowError::NonFinite) => Ok(None),
            Err(e) => Err(from_narrow(e, false)),
        },
        Shape::Mesh(mesh) => {
            let Ok(instance) = MeshInstance::new(mesh.clone(), *s.to_world) else {
                return Err(QueryError::SingularPlacement(Operand::A));
            };
            let inside = || mesh.is_solid() && instance.contains_point(ray.origin) == Some(true);
            // A solid passing through itself has triangles inside it, which a ray from inside
            // may meet from the front first.
            let buried = mesh.solid().is_some_and(|solid| solid.self_intersecting);
            match instance.cast_ray(ray, max_t) {
                // A solid's triangles face out: a first hit from behind means the ray started
                // inside (decided exactly by the inside test).
                Some(hit) if (buried || inside_hit(&instance, ray, &hit)) && inside() => {
                    Ok(Some(start_hit(ray)))
                }
                Some(hit) => Ok(Some(hit)),
                None if inside() => Ok(Some(start_hit(ray))),
                None => Ok(None),
            }
        }
        Shape::SphereSet(_) | Shape::Compound(_) => {
            let mut best: Option<RayHit3> = None;
            let mut limit = max_t;
            let mut result = Ok(());
            let reach = ray_box(ray, max_t);
            for_each_part(s, Some(&reach), |id, part| {
                match cast_ray_placed(part, ray, limit) {
                    Ok(Some(hit)) if best.is_none_or(|b| hit.t < b.t) => {
                        limit = hit.t;
                        best = Some(RayHit3 { part: id, ..hit });
                    }
                    Ok(_) => {}
                    Err(e) => result = Err(e),
                }
                result.is_ok()
            });
            result.map(|()| best)
        }
        Shape::Field(field) => {
            let placed = PlacedField::new(&**field, *s.to_world)
                .map_err(|_| QueryError::SingularPlacement(Operand::A))?;
            Ok(trace_field(&placed, ray, max_t))
        }
    }
}

/// Whether the solid mesh's hit triangle faces along the ray (seen from inside).
fn inside_hit(instance: &MeshInstance, ray: &Ray3, hit: &RayHit3) -> bool {
    let Some([a, b, c]) = instance.mesh().triangle(hit.part) else { return false };
    let m = instance.to_world();
    let (a, b, c) = (m.transform_point3(a), m.transform_point3(b), m.transform_point3(c));
    // The outward normal of a solid: the winding's normal, flipped for inward winding and for a
    // reflecting placement.
    let mut outward = (b - a).cross(c - a);
    if m.matrix3.determinant() < 0.0 {
        outward = -outward;
    }
    if instance.mesh().solid().is_some_and(|solid| solid.orientation < 0.0) {
        outward = -outward;
    }
    outward.dot(ray.dir) > 0.0
}

fn start_hit(ray: &Ray3) -> RayHit3 {
    RayHit3 { part: 0, t: 0.0, normal: -ray.dir.normalize_or_zero() }
}

/// The box of the ray's points for `t ∈ [0, max_t]` (everything when unbounded).
fn ray_box(ray: &Ray3, max_t: f32) -> Aabb3 {
    let end = ray.at(max_t);
    if !end.is_finite() {
        return Aabb3::new(Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX));
    }
    Aabb3::new(ray.origin.min(end), ray.origin.max(end))
}

/// Sphere tracing (Hart 1996): at a point where the field is `v > 0`, no surface lies within
/// `v / L` (`L` the Lipschitz bound), so the ray advances that far; it stops once `v` is below the
/// tolerance. The normal is the field's gradient direction there.
fn trace_field(field: &impl Field3, ray: &Ray3, max_t: f32) -> Option<RayHit3> {
    let speed = ray.dir.length();
    let lipschitz = field.lipschitz();
    if !(lipschitz > 0.0 && lipschitz.is_finite()) {
        return None;
    }
    let bounds = field.bounds()?;
    let (enter, exit) = bounds.ray_interval(ray, max_t)?;
    let tolerance = FIELD_RAY_TOLERANCE * lipschitz * (bounds.max - bounds.min).length();
    let mut t = enter.max(0.0);
    for _ in 0..FIELD_RAY_STEPS {
        let (value, gradient) = field.value_and_gradient(ray.at(t));
        if !value.is_finite() {
            return None;
        }
        if value <= tolerance {
            if t == 0.0 && value <= 0.0 {
                return Some(start_hit(ray));
            }
            let n = gradient.normalize_or_zero();
            let n = if n == Vec3::ZERO || n.dot(ray.dir) > 0.0 { -ray.dir / speed } else { n };
            return Some(RayHit3 { part: 0, t, normal: n });
        }
        t += value / (lipschitz * speed);
        if t > exit {
            return None;
        }
    }
    None
}

/// The point of the solid shape closest to the world point `p` (`p` itself when inside), and
/// whether `p` is inside. Exact but for fields (see the module documentation).
///
/// Errors: a non-finite `p`, a non-finite or (for all but convex shapes) singular placement, an
/// invalid shape.
pub fn project_point(shape: &Shape, to_world: &Affine3A, p: Vec3) -> Result<PointProjection, QueryError> {
    check_operand(shape, to_world, Operand::A)?;
    if !p.is_finite() {
        return Err(QueryError::NonFiniteArgument("point"));
    }
    project_placed(&PlacedShape { shape, to_world }, p)
}

fn project_placed(s: &PlacedShape, p: Vec3) -> Result<PointProjection, QueryError> {
    match s.shape {
        Shape::Convex(c) => narrow::project_point(c, s.to_world, p).map_err(|e| from_narrow(e, false)),
        Shape::Mesh(mesh) => {
            let instance = MeshInstance::new(mesh.clone(), *s.to_world)
                .map_err(|_| QueryError::SingularPlacement(Operand::A))?;
            if mesh.is_solid() && instance.contains_point(p) == Some(true) {
                return Ok(PointProjection { point: p, inside: true });
            }
            let q = instance.closest_point(p, f32::INFINITY).map_or(p, |q| q.point);
            Ok(PointProjection { point: q, inside: false })
        }
        Shape::SphereSet(_) | Shape::Compound(_) => {
            let mut best: Option<(f32, PointProjection)> = None;
            let mut result = Ok(());
            for_each_part(s, None, |_, part| {
                match project_placed(part, p) {
                    Ok(q) => {
                        let d = if q.inside { -1.0 } else { (q.point - p).length_squared() };
                        if best.is_none_or(|(b, _)| d < b) {
                            best = Some((d, q));
                        }
                    }
                    Err(e) => result = Err(e),
                }
                result.is_ok() && !best.is_some_and(|(_, q)| q.inside)
            });
            result?;
            Ok(best.map_or(PointProjection { point: p, inside: false }, |(_, q)| q))
        }
        Shape::Field(field) => {
            let placed = PlacedField::new(&**field, *s.to_world)
                .map_err(|_| QueryError::SingularPlacement(Operand::A))?;
            Ok(project_field(&placed, p))
        }
    }
}

/// Newton steps toward the zero set, `q ← q - v ∇v / |∇v|²`, from `p`.
fn project_field(field: &impl Field3, p: Vec3) -> PointProjection {
    let (value, _) = field.value_and_gradient(p);
    if value <= 0.0 {
        return PointProjection { point: p, inside: true };
    }
    let mut q = p;
    for _ in 0..FIELD_PROJECTION_STEPS {
        let (v, g) = field.value_and_gradient(q);
        let gg = g.length_squared();
        if !(gg > 0.0) || v.abs() <= f32::EPSILON * (1.0 + q.abs().max_element()) {
            break;
        }
        q -= g * (v / gg);
    }
    PointProjection { point: q, inside: false }
}

/// Whether the world point lies in the solid shape (boundary included).
pub fn contains_point(shape: &Shape, to_world: &Affine3A, p: Vec3) -> Result<bool, QueryError> {
    check_operand(shape, to_world, Operand::A)?;
    if !p.is_finite() {
        return Err(QueryError::NonFiniteArgument("point"));
    }
    let s = PlacedShape { shape, to_world };
    match shape {
        Shape::Mesh(mesh) => {
            let local = to_world.inverse().transform_point3(p);
            Ok(mesh.is_solid() && mesh.contains_point(local) == Some(true)
                || !mesh.is_solid() && project_placed(&s, p)?.point == p)
        }
        Shape::Field(field) => {
            let placed = PlacedField::new(&**field, *to_world)
                .map_err(|_| QueryError::SingularPlacement(Operand::A))?;
            Ok(placed.value(p) <= 0.0)
        }
        _ => Ok(project_placed(&s, p)?.inside),
    }
}

/// The world box of the placed shape: exact for convex shapes and sphere sets, within a few
/// percent of the exact box for meshes ([`TriMesh::bounds_under`](crate::mesh::TriMesh::bounds_under)),
/// the box of the mapped root box for compounds, the mapped bounds of a field.
///
/// Errors: a non-finite or (for all but convex shapes) singular placement, an invalid shape, an
/// unbounded field.
pub fn bounds(shape: &Shape, to_world: &Affine3A) -> Result<Aabb3, QueryError> {
    check_operand(shape, to_world, Operand::A)?;
    bounds_placed(&PlacedShape { shape, to_world })
}

pub(crate) fn bounds_placed(s: &PlacedShape) -> Result<Aabb3, QueryError> {
    Ok(match s.shape {
        Shape::Convex(c) => c.aabb(s.to_world),
        Shape::Mesh(mesh) => mesh.bounds_under(s.to_world),
        Shape::SphereSet(set) => {
            set.spheres().iter().fold(Aabb3::EMPTY, |acc, ball| acc.merge(&ball_box(ball, s.to_world)))
        }
        Shape::Compound(compound) => compound.local_bounds().transformed(s.to_world),
        Shape::Field(field) => {
            field.bounds().ok_or(QueryError::Unbounded(Operand::A))?.transformed(s.to_world)
        }
    })
}

/// The exact box of a ball under an affine map (an ellipsoid): the centre mapped, half extent
/// along world axis `i` the radius times the length of row `i` of the linear part.
pub(crate) fn ball_box(ball: &Sphere, to_world: &Affine3A) -> Aabb3 {
    let rows = to_world.matrix3.transpose();
    let reach = Vec3A::new(rows.x_axis.length(), rows.y_axis.length(), rows.z_axis.length()) * ball.radius;
    let center = Vec3A::from(to_world.transform_point3(ball.center));
    Aabb3::new((center - reach).into(), (center + reach).into())
}
