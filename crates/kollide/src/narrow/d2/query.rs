//! The public 2D pair and single-shape queries on [`ConvexShape2`] under [`Affine2`] placements.

use glam::{Affine2, Vec2};

use super::boxes::{FrameBox, box_axis, box_distance, box_overlap, box_segment_distance, collide_boxes};
use super::cast::cast_shapes2;
use super::closed_form::{closest, cores_touch, small_contact, small_manifold, small_pair};
use super::epa::contact2 as penetration2;
use super::frame::{PairFrame2, Placed, Proxy2, is_rigid2, similarity_scale};
use super::gjk::{GjkCache2, gjk_distance2, gjk_intersects2};
use super::manifold::{ContactManifold2, collide_proxies, polygon_axes, polygon_overlap};
use crate::math::Ray2;
use crate::narrow::NarrowError;
use crate::primitive::d2::RayHit2;
use crate::shape::{ConvexShape2, PointProjection2};

/// A contact between two 2D shapes: the closest points when apart, the deepest points when
/// penetrating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact2 {
    /// The point of A (world space).
    pub point_a: Vec2,
    /// The point of B (world space).
    pub point_b: Vec2,
    /// Unit normal from A to B.
    pub normal: Vec2,
    /// Signed distance: positive apart, negative penetrating (`point_b - point_a = separation ·
    /// normal` up to rounding).
    pub separation: f32,
    /// The part of A the contact lies on (a child index for a compound, a segment for a chain, a
    /// triangle for a mesh; 0 for a convex shape).
    pub part_a: u32,
    /// The part of B the contact lies on (as `part_a`).
    pub part_b: u32,
}

/// Where a moving 2D shape first touches another: the time of impact and the contact then.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastHit2 {
    /// The time of impact, in `[0, max_t]`, in units of the velocity.
    pub t: f32,
    /// The contact at time `t` (B moved by `t · velocity`).
    pub contact: Contact2,
}

/// Checks the operands of a pair query.
#[inline]
fn check(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
) -> Result<(), NarrowError> {
    if !a.is_valid() {
        return Err(NarrowError::InvalidShape(0));
    }
    if !b.is_valid() {
        return Err(NarrowError::InvalidShape(1));
    }
    if !(a_to_world.is_finite() && b_to_world.is_finite()) {
        return Err(NarrowError::NonFinite);
    }
    Ok(())
}

/// Checks the operands of a pair query and builds its frame.
#[inline]
fn pair_frame(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
) -> Result<PairFrame2, NarrowError> {
    check(a, a_to_world, b, b_to_world)?;
    PairFrame2::new(a_to_world, b_to_world).ok_or(NarrowError::NonFinite)
}

/// Two discs under rigid maps (the radii), decided without a branch per test; invalid inputs go
/// to the general path, which reports them.
#[inline(always)]
fn rigid_discs(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
) -> Option<(f32, f32)> {
    let (ConvexShape2::Ball(x), ConvexShape2::Ball(y)) = (a, b) else { return None };
    // A negative or NaN radius has a bit pattern above infinity's.
    let ok = (x.radius.to_bits().max(y.radius.to_bits()) < f32::INFINITY.to_bits())
        & is_rigid2(&a_to_world.matrix2)
        & is_rigid2(&b_to_world.matrix2)
        & ((b_to_world.translation - a_to_world.translation).length_squared() < f32::INFINITY);
    ok.then_some((x.radius, y.radius))
}

/// The distance between A and B (0 when they touch or overlap).
///
/// Closed forms when both cores are points or segments and both placements keep discs discs;
/// GJK (with `cache` for warm starting) otherwise. See the [module documentation](super) for the
/// contract shared by the 2D pair queries.
#[inline]
pub fn distance2(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
    cache: &mut GjkCache2,
) -> Result<f32, NarrowError> {
    if let Some((ra, rb)) = rigid_discs(a, a_to_world, b, b_to_world) {
        let d = (b_to_world.translation - a_to_world.translation).length();
        return Ok((d - ra - rb).max(0.0));
    }
    distance2_general(a, a_to_world, b, b_to_world, cache)
}

/// [`distance2`] past its inlined case, out of line.
#[inline(never)]
fn distance2_general(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
    cache: &mut GjkCache2,
) -> Result<f32, NarrowError> {
    check(a, a_to_world, b, b_to_world)?;
    if let Some((ca, cb)) = small_pair(a, a_to_world, b, b_to_world) {
        let (p, q) = closest(&ca, &cb);
        if cores_touch(&ca, &cb, p, q) {
            return Ok(0.0);
        }
        return Ok((p.distance(q) - ca.radius - cb.radius).max(0.0));
    }
    if let Some((ba, bb)) = world_boxes(a, a_to_world, b, b_to_world) {
        return Ok(box_distance(&ba, &bb));
    }
    let frame = pair_frame(a, a_to_world, b, b_to_world)?;
    match (a, b) {
        (ConvexShape2::Cuboid(c), ConvexShape2::Segment(s)) => {
            if let Some(bx) = FrameBox::new(c, &frame.a) {
                return Ok(box_segment_distance(
                    &bx,
                    frame.b.transform_point2(s.a),
                    frame.b.transform_point2(s.b),
                ));
            }
        }
        (ConvexShape2::Segment(s), ConvexShape2::Cuboid(c)) => {
            if let Some(bx) = FrameBox::new(c, &frame.b) {
                return Ok(box_segment_distance(
                    &bx,
                    frame.a.transform_point2(s.a),
                    frame.a.transform_point2(s.b),
                ));
            }
        }
        _ => {}
    }
    let (mut pa, mut pb) = (Proxy2::EMPTY, Proxy2::EMPTY);
    if pa.set(a, &frame.a) && pb.set(b, &frame.b) {
        // Overlapping cores (the axis test, exact for polygons) are 0 apart without a search;
        // apart, the best axis starts GJK near the answer.
        match polygon_axes(&pa, &pb) {
            Ok(_) => return Ok(0.0),
            Err((_, axis)) if cache.is_empty() => *cache = GjkCache2::from_direction(axis),
            Err(_) => {}
        }
        return Ok(gjk_distance2(&pa, pa.radius, &pb, pb.radius, cache).distance);
    }
    let (sa, ma) = Placed::new(a, &frame.a);
    let (sb, mb) = Placed::new(b, &frame.b);
    Ok(gjk_distance2(&sa, ma, &sb, mb, cache).distance)
}

/// Whether A and B touch or overlap.
#[inline]
pub fn intersects2(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
    cache: &mut GjkCache2,
) -> Result<bool, NarrowError> {
    if let Some((ra, rb)) = rigid_discs(a, a_to_world, b, b_to_world) {
        let reach = ra + rb;
        return Ok((b_to_world.translation - a_to_world.translation).length_squared() <= reach * reach);
    }
    intersects2_general(a, a_to_world, b, b_to_world, cache)
}

/// [`intersects2`] past its inlined case, out of line.
#[inline(never)]
fn intersects2_general(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
    cache: &mut GjkCache2,
) -> Result<bool, NarrowError> {
    check(a, a_to_world, b, b_to_world)?;
    if let Some((ca, cb)) = small_pair(a, a_to_world, b, b_to_world) {
        let (p, q) = closest(&ca, &cb);
        let reach = ca.radius + cb.radius;
        return Ok(p.distance_squared(q) <= reach * reach || cores_touch(&ca, &cb, p, q));
    }
    if let Some((ba, bb)) = world_boxes(a, a_to_world, b, b_to_world) {
        return Ok(box_axis(&ba, &bb, 0.0).separation <= 0.0);
    }
    let frame = pair_frame(a, a_to_world, b, b_to_world)?;
    let (mut pa, mut pb) = (Proxy2::EMPTY, Proxy2::EMPTY);
    if pa.set(a, &frame.a) && pb.set(b, &frame.b) {
        return Ok(match (pa.count, pb.count) {
            // A disc against a polygon: its closest feature, exactly (a manifold point exists
            // exactly when they touch).
            (1, _) | (_, 1) => {
                let mut m = ContactManifold2::default();
                collide_proxies(&pa, &pb, 0.0, &mut m);
                !m.is_empty()
            }
            // Sharp polygons: the separating-axis test over both shapes' edge normals is exact.
            _ if pa.radius == 0.0 && pb.radius == 0.0 => polygon_overlap(&pa, &pb).is_some(),
            _ => gjk_intersects2(&pa, pa.radius, &pb, pb.radius, cache),
        });
    }
    let (sa, ma) = Placed::new(a, &frame.a);
    let (sb, mb) = Placed::new(b, &frame.b);
    Ok(gjk_intersects2(&sa, ma, &sb, mb, cache))
}

/// The contact of A and B when their separation is at most `prediction`: the closest points when
/// apart, the deepest points when penetrating (the minimum translation distance).
///
/// Closed forms for point and segment cores; for two polygons the separating-axis test decides
/// (exact for polygons); GJK gives the closest points of separated cores and EPA the depth of
/// curved shapes under non-similar maps.
#[inline]
pub fn contact2(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
    prediction: f32,
    cache: &mut GjkCache2,
) -> Result<Option<Contact2>, NarrowError> {
    if let Some((ra, rb)) = rigid_discs(a, a_to_world, b, b_to_world)
        && prediction >= 0.0
    {
        let d = b_to_world.translation - a_to_world.translation;
        let reach = ra + rb + prediction;
        let dist2 = d.length_squared();
        if !(dist2 <= reach * reach) {
            return Ok(None);
        }
        let dist = dist2.sqrt();
        let n = if dist > 0.0 { d / dist } else { Vec2::Y };
        let point_a = a_to_world.translation + n * ra;
        let point_b = b_to_world.translation - n * rb;
        return Ok(Some(Contact2 {
            point_a,
            point_b,
            normal: n,
            separation: dist - ra - rb,
            part_a: 0,
            part_b: 0,
        }));
    }
    contact2_general(a, a_to_world, b, b_to_world, prediction, cache)
}

/// [`contact2`] past its inlined case, out of line.
#[inline(never)]
fn contact2_general(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
    prediction: f32,
    cache: &mut GjkCache2,
) -> Result<Option<Contact2>, NarrowError> {
    if prediction.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    check(a, a_to_world, b, b_to_world)?;
    if let Some((ca, cb)) = small_pair(a, a_to_world, b, b_to_world) {
        let c = small_contact(&ca, &cb);
        let origin = a_to_world.translation;
        return Ok((c.separation <= prediction).then(|| Contact2 {
            point_a: c.point_a + origin,
            point_b: c.point_b + origin,
            ..c
        }));
    }
    if let Some((ba, bb)) = world_boxes(a, a_to_world, b, b_to_world) {
        if let Some((normal, separation, point_a, point_b)) = box_overlap(&ba, &bb) {
            let origin = a_to_world.translation;
            let c = Contact2 {
                point_a: point_a + origin,
                point_b: point_b + origin,
                normal,
                separation,
                part_a: 0,
                part_b: 0,
            };
            return Ok((separation <= prediction).then_some(c));
        }
        if box_axis(&ba, &bb, 0.0).separation > prediction {
            return Ok(None);
        }
    }
    let frame = pair_frame(a, a_to_world, b, b_to_world)?;
    let (mut pa, mut pb) = (Proxy2::EMPTY, Proxy2::EMPTY);
    let contact = if pa.set(a, &frame.a) && pb.set(b, &frame.b) {
        match polygon_axes(&pa, &pb) {
            Ok((n, core_separation, on_a, on_b)) => Contact2 {
                point_a: on_a + n * pa.radius,
                point_b: on_b - n * pb.radius,
                normal: n,
                separation: core_separation - pa.radius - pb.radius,
                part_a: 0,
                part_b: 0,
            },
            // The axis separation bounds the distance from below: farther than the prediction.
            Err((axis_separation, _)) if axis_separation - pa.radius - pb.radius > prediction => {
                return Ok(None);
            }
            Err((_, axis)) => {
                if cache.is_empty() {
                    *cache = GjkCache2::from_direction(axis);
                }
                // Cores apart: GJK's closest points, also when only the margins overlap (then
                // the points lie the margins' depth apart against the normal).
                let d = gjk_distance2(&pa, pa.radius, &pb, pb.radius, cache);
                if d.cores_overlap {
                    support_contact(&frame, a, b, cache)
                } else {
                    let separation = (d.point_b - d.point_a).dot(d.normal);
                    Contact2 {
                        point_a: d.point_a,
                        point_b: d.point_b,
                        normal: d.normal,
                        separation,
                        part_a: 0,
                        part_b: 0,
                    }
                }
            }
        }
    } else {
        support_contact(&frame, a, b, cache)
    };
    Ok((contact.separation <= prediction).then(|| to_world(&frame, contact)))
}

/// The contact manifold of A and B within `prediction` into `out` (empty when farther apart).
///
/// Up to two points with feature ids by the separating-axis test and clipping when both shapes
/// have proxies (polygons of at most eight vertices, discs and capsules under similarities, any
/// shape without a margin under an invertible map); otherwise the single point of [`contact2`].
#[inline]
pub fn contact_manifold2(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
    prediction: f32,
    cache: &mut GjkCache2,
    out: &mut ContactManifold2,
) -> Result<(), NarrowError> {
    out.clear();
    if let Some((ra, rb)) = rigid_discs(a, a_to_world, b, b_to_world)
        && prediction >= 0.0
    {
        let d = b_to_world.translation - a_to_world.translation;
        let reach = ra + rb + prediction;
        let dist2 = d.length_squared();
        if dist2 <= reach * reach {
            let dist = dist2.sqrt();
            let n = if dist > 0.0 { d / dist } else { Vec2::Y };
            out.normal = n;
            out.push(a_to_world.translation + n * ra, b_to_world.translation - n * rb, dist - ra - rb, 0);
        }
        return Ok(());
    }
    contact_manifold2_general(a, a_to_world, b, b_to_world, prediction, cache, out)
}

/// [`contact_manifold2`] past its inlined case, out of line.
#[inline(never)]
fn contact_manifold2_general(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
    prediction: f32,
    cache: &mut GjkCache2,
    out: &mut ContactManifold2,
) -> Result<(), NarrowError> {
    if prediction.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    check(a, a_to_world, b, b_to_world)?;
    if let Some((ca, cb)) = small_pair(a, a_to_world, b, b_to_world) {
        small_manifold(&ca, &cb, prediction, out);
        let origin = a_to_world.translation;
        out.map_to_world(|p| p + origin, |v| v);
        return Ok(());
    }
    if let Some((ba, bb)) = world_boxes(a, a_to_world, b, b_to_world) {
        collide_boxes(&ba, &bb, prediction, out);
        let origin = a_to_world.translation;
        out.map_to_world(|p| p + origin, |v| v);
        return Ok(());
    }
    let frame = pair_frame(a, a_to_world, b, b_to_world)?;
    let (mut pa, mut pb) = (Proxy2::EMPTY, Proxy2::EMPTY);
    if pa.set(a, &frame.a) && pb.set(b, &frame.b) {
        collide_proxies(&pa, &pb, prediction, out);
        out.map_to_world(|p| frame.point_to_world(p), |v| frame.vector_to_world(v));
        return Ok(());
    }
    let c = support_contact(&frame, a, b, cache);
    if c.separation <= prediction {
        let c = to_world(&frame, c);
        out.normal = c.normal;
        out.push(c.point_a, c.point_b, c.separation, 0);
    }
    Ok(())
}

/// The first hit of a ray with the solid shape placed by `shape_to_world`, within `[0, max_t]`.
///
/// The ray is cast in the shape's local frame (a ray keeps its parameter under an affine map) by
/// the shape's closed form; the normal maps back by the inverse transpose.
pub fn cast_ray2(
    shape: &ConvexShape2,
    shape_to_world: &Affine2,
    ray: &Ray2,
    max_t: f32,
) -> Result<Option<RayHit2>, NarrowError> {
    if !shape.is_valid() {
        return Err(NarrowError::InvalidShape(0));
    }
    let det = shape_to_world.matrix2.determinant();
    if !shape_to_world.is_finite()
        || !(det.abs() > 0.0)
        || !ray.origin.is_finite()
        || !ray.dir.is_finite()
        || max_t.is_nan()
    {
        return Err(NarrowError::NonFinite);
    }
    let inv = shape_to_world.inverse();
    let local = Ray2::new(inv.transform_point2(ray.origin), inv.transform_vector2(ray.dir));
    let hit = shape.cast_ray(&local, max_t);
    Ok(hit.map(|h| {
        let n = (inv.matrix2.transpose() * h.normal).normalize_or_zero();
        let n = if h.t == 0.0 || n == Vec2::ZERO { -ray.dir.normalize_or_zero() } else { n };
        RayHit2 { t: h.t, normal: n, part: 0 }
    }))
}

/// The point of the solid shape placed by `shape_to_world` closest to the world point `p`.
///
/// Under a rigid placement the closed form in the local frame; otherwise GJK between the point
/// and the placed shape (the metric is not preserved).
pub fn project_point2(
    shape: &ConvexShape2,
    shape_to_world: &Affine2,
    p: Vec2,
) -> Result<PointProjection2, NarrowError> {
    if !shape.is_valid() {
        return Err(NarrowError::InvalidShape(0));
    }
    if !shape_to_world.is_finite() || !p.is_finite() {
        return Err(NarrowError::NonFinite);
    }
    let m = shape_to_world.matrix2;
    if similarity_scale(&m).is_some_and(|s| (s - 1.0).abs() <= 1e-5) {
        let local = m.transpose() * (p - shape_to_world.translation);
        let proj = shape.project_point(local);
        let point = if proj.inside { p } else { shape_to_world.transform_point2(proj.point) };
        return Ok(PointProjection2 { point, inside: proj.inside });
    }
    let point = ConvexShape2::Ball(crate::shape::Ball2::new(0.0));
    let frame = pair_frame(shape, shape_to_world, &point, &Affine2::from_translation(p))?;
    let (sa, ma) = Placed::new(shape, &frame.a);
    let (sb, _) = Placed::new(&point, &frame.b);
    let d = gjk_distance2(&sa, ma, &sb, 0.0, &mut GjkCache2::default());
    Ok(if d.distance > 0.0 {
        PointProjection2 { point: frame.point_to_world(d.point_a), inside: false }
    } else {
        PointProjection2 { point: p, inside: true }
    })
}

/// Whether the solid shape placed by `shape_to_world` contains the world point `p` (boundary
/// included), exactly in the local frame.
pub fn contains_point2(shape: &ConvexShape2, shape_to_world: &Affine2, p: Vec2) -> Result<bool, NarrowError> {
    if !shape.is_valid() {
        return Err(NarrowError::InvalidShape(0));
    }
    let det = shape_to_world.matrix2.determinant();
    if !shape_to_world.is_finite() || !(det.abs() > 0.0) || !p.is_finite() {
        return Err(NarrowError::NonFinite);
    }
    Ok(shape.project_point(shape_to_world.inverse().transform_point2(p)).inside)
}

/// Linear shape cast: B moves by `t · velocity` (world space, A still) for `t ∈ [0, max_t]`;
/// the first `t` at which the shapes touch, with the contact then, or `None`.
pub fn cast_shape2(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
    velocity: Vec2,
    max_t: f32,
    cache: &mut GjkCache2,
) -> Result<Option<ShapeCastHit2>, NarrowError> {
    if !velocity.is_finite() || max_t.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let frame = pair_frame(a, a_to_world, b, b_to_world)?;
    let (sa, ma) = Placed::new(a, &frame.a);
    let (sb, mb) = Placed::new(b, &frame.b);
    let Some(hit) = cast_shapes2(&sa, ma, &sb, mb, frame.vector_from_world(velocity), max_t, 0.0) else {
        return Ok(None);
    };
    let moved = Affine2::from_mat2_translation(b_to_world.matrix2, b_to_world.translation + velocity * hit.t);
    let contact = contact2(a, a_to_world, b, &moved, f32::INFINITY, cache)?;
    Ok(contact.map(|contact| ShapeCastHit2 { t: hit.t, contact }))
}

/// Both shapes as boxes with the world's axes relative to A's origin (as the closed forms of
/// [`small_pair`], no frame needed), when both are boxes placed by similarities.
#[inline(always)]
fn world_boxes(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
) -> Option<(FrameBox, FrameBox)> {
    let (ConvexShape2::Cuboid(ca), ConvexShape2::Cuboid(cb)) = (a, b) else { return None };
    let origin = a_to_world.translation;
    if is_rigid2(&a_to_world.matrix2) && is_rigid2(&b_to_world.matrix2) {
        return Some((FrameBox::rigid(ca, a_to_world, origin), FrameBox::rigid(cb, b_to_world, origin)));
    }
    let relative = |m: &Affine2| Affine2::from_mat2_translation(m.matrix2, m.translation - origin);
    Some((FrameBox::new(ca, &relative(a_to_world))?, FrameBox::new(cb, &relative(b_to_world))?))
}

/// The contact from the support-map algorithms (GJK, then EPA when the cores overlap), in the
/// pair frame.
fn support_contact(
    frame: &PairFrame2,
    a: &ConvexShape2,
    b: &ConvexShape2,
    cache: &mut GjkCache2,
) -> Contact2 {
    let (sa, ma) = Placed::new(a, &frame.a);
    let (sb, mb) = Placed::new(b, &frame.b);
    let p = penetration2(&sa, ma, &sb, mb, cache);
    Contact2 {
        point_a: p.point_a,
        point_b: p.point_b,
        normal: p.normal,
        separation: p.separation,
        part_a: 0,
        part_b: 0,
    }
}

/// A frame contact in world space.
#[inline]
fn to_world(frame: &PairFrame2, c: Contact2) -> Contact2 {
    Contact2 {
        point_a: frame.point_to_world(c.point_a),
        point_b: frame.point_to_world(c.point_b),
        normal: frame.vector_to_world(c.normal),
        ..c
    }
}
