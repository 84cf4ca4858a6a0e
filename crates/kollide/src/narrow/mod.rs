//! The narrow phase for convex shapes: distance, closest points, contacts, contact manifolds, ray
//! casts and linear shape casts, for every pair of [`ConvexShape`]s under any affine placements.
//!
//! Every pair query takes both world placements (`a_map`, `b_map`; any invertible or singular
//! affine maps) and answers in world space. Internally it runs in A's frame when A's map is rigid
//! (orthonormal linear part) and in a world-aligned frame centred on A otherwise, so a pair far from
//! the world origin loses no precision.
//!
//! Algorithms: GJK (van den Bergen) for distances, with a caller-owned [`GjkCache`]; EPA for
//! penetration; closed forms for balls and capsules in any combination, and separating-axis tests
//! for box–box and box–triangle, when the placements are similarities (for distances, the
//! separating axes prove overlap outright or give GJK its first direction; for the other shapes
//! around their origins, one's origin inside the other proves a deep overlap); polygon clipping for
//! manifolds ([`ContactManifold`]). Shapes with a margin (balls, capsules, rounded shapes) run GJK
//! on their cores and add the margins when their placement is a similarity (a scaled ball is still
//! a ball); under other maps the whole shape goes through GJK/EPA. GJK and EPA are compiled per
//! pair for the common pairs of shapes without margin (boxes, triangles, cylinders, hulls), so
//! their support functions need no dispatch.
//!
//! Dispatch is a `match` on the pair of shapes; every pair of kinds has an implementation for
//! every query (the tests enumerate the matrix). The only errors are invalid input
//! ([`NarrowError`]).

mod epa;
mod gjk;
mod manifold;
mod mesh;
mod sat;

pub use gjk::GjkCache;
pub use manifold::{ContactManifold, ManifoldPoint};
pub use mesh::{ACTIVE_EDGE_ANGLE, MeshEdges, TriangleManifold, convex_mesh_manifolds};

use glam::{Affine3A, Mat3A, Vec3, Vec3A};

use crate::math::{Ray3, both_rigid, is_rigid, is_similarity, map_normal};
use crate::primitive::RayHit;
use crate::shape::{ConvexShape, PointProjection, SupportMap};
use epa::epa;
use gjk::{GjkResult, gjk, gjk_ray_cast};

/// Why a narrow-phase query was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowError {
    /// A shape parameter is negative or not finite (see [`ConvexShape::is_valid`]); `0` for the
    /// first shape, `1` for the second.
    InvalidShape(u8),
    /// A placement (or the query point or ray) has a NaN or infinite component.
    NonFinite,
}

impl std::fmt::Display for NarrowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NarrowError::InvalidShape(i) => write!(f, "shape {i} has a negative or non-finite parameter"),
            NarrowError::NonFinite => write!(f, "non-finite placement or query input"),
        }
    }
}

impl std::error::Error for NarrowError {}

/// A contact between two shapes: the closest points when apart, the deepest points when
/// penetrating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// The point of A (world space).
    pub point_a: Vec3,
    /// The point of B (world space).
    pub point_b: Vec3,
    /// Unit normal from A to B.
    pub normal: Vec3,
    /// Signed distance: positive apart, negative penetrating (`point_b - point_a = separation ·
    /// normal` up to rounding).
    pub separation: f32,
}

/// The frame a pair query runs in: `world = rotation · x + origin`.
#[derive(Clone, Copy)]
struct Frame {
    rotation: Option<Mat3A>,
    origin: Vec3A,
}

impl Frame {
    #[inline]
    fn point(&self, p: Vec3A) -> Vec3 {
        match self.rotation {
            Some(r) => (r * p + self.origin).into(),
            None => (p + self.origin).into(),
        }
    }

    #[inline]
    fn vector(&self, v: Vec3A) -> Vec3 {
        match self.rotation {
            Some(r) => (r * v).into(),
            None => v.into(),
        }
    }
}

/// One shape placed in the query frame, as a support map of its core (when the placement is a
/// similarity) or of the whole shape (margin 0).
#[derive(Clone, Copy)]
pub(crate) struct Side<'a> {
    pub shape: &'a ConvexShape,
    /// `None`: the identity.
    pub matrix: Option<(Mat3A, Mat3A)>,
    pub translation: Vec3A,
    /// The margin in the frame, or 0 when the whole shape is the support map.
    pub margin: f32,
    /// The uniform scale of the placement, if it is a similarity.
    pub scale: Option<f32>,
}

impl Side<'_> {
    #[inline]
    fn local_support(&self, d: Vec3A) -> Vec3A {
        if self.margin > 0.0 { self.shape.core_support(d) } else { self.shape.support(d) }
    }

    /// Maps a local point into the frame.
    #[inline]
    pub fn place(&self, p: Vec3A) -> Vec3A {
        match self.matrix {
            Some((m, _)) => m * p + self.translation,
            None => p + self.translation,
        }
    }

    /// A frame direction in the shape's local frame, for support queries (`Mᵀ d`).
    #[inline]
    pub fn dir_to_local(&self, d: Vec3A) -> Vec3A {
        match self.matrix {
            Some((_, mt)) => mt * d,
            None => d,
        }
    }

    /// A local face normal in the frame (inverse transpose, normalised).
    #[inline]
    pub fn normal_to_frame(&self, n: Vec3A) -> Vec3A {
        match self.matrix {
            // Under a similarity s R, (M⁻¹)ᵀ = M / s².
            Some((m, _)) if self.scale.is_some() => (m * n).normalize_or_zero(),
            Some((m, _)) => map_normal(&m, n),
            None => n,
        }
    }
}

impl SupportMap for Side<'_> {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        match self.matrix {
            Some((m, mt)) => m * self.local_support(mt * dir) + self.translation,
            None => self.local_support(dir) + self.translation,
        }
    }
}

/// A side whose shape has no margin and whose kind is known: its support without the dispatch
/// over shape kinds, so that GJK and EPA are compiled for the pair (see [`with_support_maps`]).
#[derive(Clone, Copy)]
struct Typed<'a, S> {
    side: &'a Side<'a>,
    shape: &'a S,
}

impl<S: SupportMap> SupportMap for Typed<'_, S> {
    #[inline(always)]
    fn support(&self, dir: Vec3A) -> Vec3A {
        match self.side.matrix {
            Some((m, mt)) => self.shape.support_under(&m, &mt, dir) + self.side.translation,
            None => self.shape.support(dir) + self.side.translation,
        }
    }
}

/// Evaluates `$body` with `$x` and `$y` bound to support maps of the sides `$a` and `$b`: typed
/// ([`Typed`]) for the common pairs of shapes without margin, the sides themselves otherwise.
macro_rules! with_support_maps {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {{
        use ConvexShape as S;
        let (a, b): (&Side, &Side) = ($a, $b);
        match (a.shape, b.shape) {
            (S::Cuboid(p), S::Cuboid(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            (S::Cuboid(p), S::Triangle(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            (S::Triangle(p), S::Cuboid(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            (S::Cylinder(p), S::Cylinder(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            (S::Hull(p), S::Hull(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            _ => {
                let ($x, $y) = (a, b);
                $body
            }
        }
    }};
}

fn finite(map: &Affine3A) -> bool {
    map.matrix3.is_finite() && map.translation.is_finite()
}

/// Validates the pair and builds the frame and both sides (inlined, so that the sides are built
/// in place).
#[inline(always)]
fn setup<'a>(
    a: &'a ConvexShape,
    a_map: &Affine3A,
    b: &'a ConvexShape,
    b_map: &Affine3A,
) -> Result<(Frame, Side<'a>, Side<'a>), NarrowError> {
    if !a.is_valid() {
        return Err(NarrowError::InvalidShape(0));
    }
    if !b.is_valid() {
        return Err(NarrowError::InvalidShape(1));
    }
    if !finite(a_map) || !finite(b_map) {
        return Err(NarrowError::NonFinite);
    }
    let side = |shape: &'a ConvexShape, m: Mat3A, t: Vec3A, identity: bool| {
        let scale =
            if identity { Some(1.0) } else { is_similarity(&Affine3A { matrix3: m, translation: t }) };
        Side {
            shape,
            matrix: (!identity).then(|| (m, m.transpose())),
            translation: t,
            margin: scale.map_or(0.0, |s| shape.margin() * s),
            scale,
        }
    };
    let delta = b_map.translation - a_map.translation;
    if is_rigid(&a_map.matrix3) {
        let rt = a_map.matrix3.transpose();
        let frame = Frame { rotation: Some(a_map.matrix3), origin: a_map.translation };
        Ok((
            frame,
            side(a, Mat3A::IDENTITY, Vec3A::ZERO, true),
            side(b, rt * b_map.matrix3, rt * delta, false),
        ))
    } else {
        let frame = Frame { rotation: None, origin: a_map.translation };
        Ok((frame, side(a, a_map.matrix3, Vec3A::ZERO, false), side(b, b_map.matrix3, delta, false)))
    }
}

/// Whether a radius or half height is finite and non-negative, on the bits: +0 to the largest
/// finite value, or -0.
#[inline(always)]
fn length_ok(x: f32) -> bool {
    (x.to_bits() < 0x7f80_0000) | (x.to_bits() == 0x8000_0000)
}

/// The radii of two balls under rigid maps: the screen of the inlined two-ball paths, `None`
/// (the pair goes the general way, which handles every other case) unless both shapes are balls
/// with finite non-negative radii (`-0` goes the general way), both maps pass [`both_rigid`] and
/// the squared distance of their centres is finite (a NaN or infinite translation makes it NaN or
/// infinite; a finite pair whose squared distance overflows goes the general way too).
#[inline(always)]
fn rigid_balls(a: &ConvexShape, a_map: &Affine3A, b: &ConvexShape, b_map: &Affine3A) -> Option<(f32, f32)> {
    let (ConvexShape::Ball(x), ConvexShape::Ball(y)) = (a, b) else { return None };
    let ok = x.radius.to_bits().max(y.radius.to_bits()) < f32::INFINITY.to_bits()
        && both_rigid(&a_map.matrix3, &b_map.matrix3)
        && (b_map.translation - a_map.translation).length_squared() < f32::INFINITY;
    ok.then_some((x.radius, y.radius))
}

/// A ball or a capsule under a similarity map, as a world-space segment (a point for a ball)
/// and a radius; `None` for other shapes and maps (and invalid ones, left to [`setup`]).
#[inline(always)]
fn as_world_segment(shape: &ConvexShape, map: &Affine3A) -> Option<WorldSegment> {
    match shape {
        ConvexShape::Ball(s) if length_ok(s.radius) => {
            let scale = is_similarity(map)?;
            Some((map.translation, map.translation, s.radius * scale))
        }
        ConvexShape::Capsule(s) if length_ok(s.radius) && length_ok(s.half_height) => {
            let scale = is_similarity(map)?;
            let h = map.matrix3.y_axis * s.half_height;
            Some((map.translation - h, map.translation + h, s.radius * scale))
        }
        _ => None,
    }
}

/// A world-space segment and radius (see [`as_world_segment`]).
type WorldSegment = (Vec3A, Vec3A, f32);

/// The closed-form contact of two balls or capsules under similarities, in world space (no
/// query frame), with their segments when both are capsules: `None` when the pair is not of
/// that kind.
#[inline(always)]
fn quick_contact(
    a: &ConvexShape,
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    prediction: f32,
) -> Option<(Option<FrameContact>, Option<[WorldSegment; 2]>)> {
    if let (ConvexShape::Ball(x), ConvexShape::Ball(y)) = (a, b) {
        // Two balls: the shortest path.
        if !(length_ok(x.radius) & length_ok(y.radius)) {
            return None;
        }
        let (ra, rb) = (x.radius * is_similarity(a_map)?, y.radius * is_similarity(b_map)?);
        return Some((sat::spheres(a_map.translation, ra, b_map.translation, rb, prediction), None));
    }
    let sa = as_world_segment(a, a_map)?;
    let sb = as_world_segment(b, b_map)?;
    let capsules = matches!((a, b), (ConvexShape::Capsule(_), ConvexShape::Capsule(_)));
    let c = if sa.0 == sa.1 && sb.0 == sb.1 {
        sat::spheres(sa.0, sa.2, sb.0, sb.2, prediction)
    } else {
        sat::capsules(sa, sb, b_map.translation - a_map.translation, prediction)
    };
    Some((c, capsules.then_some([sa, sb])))
}

/// A contact in the query frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameContact {
    pub point_a: Vec3A,
    pub point_b: Vec3A,
    pub normal: Vec3A,
    pub separation: f32,
}

impl FrameContact {
    /// The same contact seen from the other shape.
    fn swapped(self) -> Self {
        Self {
            point_a: self.point_b,
            point_b: self.point_a,
            normal: -self.normal,
            separation: self.separation,
        }
    }

    /// The contact as is (its frame is the world).
    fn world(self) -> Contact {
        Contact {
            point_a: self.point_a.into(),
            point_b: self.point_b.into(),
            normal: self.normal.into(),
            separation: self.separation,
        }
    }

    fn to_world(self, frame: &Frame) -> Contact {
        Contact {
            point_a: frame.point(self.point_a),
            point_b: frame.point(self.point_b),
            normal: frame.vector(self.normal),
            separation: self.separation,
        }
    }
}

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
fn contact_in_frame(a: &Side, b: &Side, prediction: f32, cache: &mut GjkCache) -> Option<FrameContact> {
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
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
) -> Result<Option<Contact>, NarrowError> {
    if prediction.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let prediction = prediction.max(0.0);
    if let Some((ra, rb)) = rigid_balls(a, a_map, b, b_map) {
        return Ok(
            sat::spheres(a_map.translation, ra, b_map.translation, rb, prediction).map(FrameContact::world)
        );
    }
    if let Some((c, _)) = quick_contact(a, a_map, b, b_map, prediction) {
        return Ok(c.map(FrameContact::world));
    }
    contact_general(a, a_map, b, b_map, prediction, cache)
}

/// [`contact`] past the closed forms for balls and capsules (kept out of line, so that their
/// path stays short).
#[inline(never)]
fn contact_general(
    a: &ConvexShape,
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
) -> Result<Option<Contact>, NarrowError> {
    let (frame, sa, sb) = setup(a, a_map, b, b_map)?;
    Ok(contact_in_frame(&sa, &sb, prediction, cache).map(|c| c.to_world(&frame)))
}

/// [`contact`] through the general GJK/EPA path only, never a separating-axis or closed-form fast
/// path: the twin the fast paths are tested against.
pub fn contact_gjk_epa(
    a: &ConvexShape,
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
) -> Result<Option<Contact>, NarrowError> {
    if prediction.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let (frame, sa, sb) = setup(a, a_map, b, b_map)?;
    Ok(contact_gjk(&sa, &sb, prediction.max(0.0), cache).map(|c| c.to_world(&frame)))
}

/// The distance between A and B (0 when they touch or overlap).
#[inline]
pub fn distance(
    a: &ConvexShape,
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    cache: &mut GjkCache,
) -> Result<f32, NarrowError> {
    // Two balls under rigid maps inline in the caller; everything else (capsules included) out of
    // line.
    if let Some((ra, rb)) = rigid_balls(a, a_map, b, b_map) {
        let d = (b_map.translation - a_map.translation).length();
        return Ok((d - ra - rb).max(0.0));
    }
    distance_general(a, a_map, b, b_map, cache)
}

/// [`distance`] past its inlined case (two balls under rigid maps), out of line.
#[inline(never)]
fn distance_general(
    a: &ConvexShape,
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    cache: &mut GjkCache,
) -> Result<f32, NarrowError> {
    use ConvexShape as S;
    if matches!(a, S::Ball(_) | S::Capsule(_))
        && matches!(b, S::Ball(_) | S::Capsule(_))
        && let Some(d) = distance_closed_form(a, a_map, b, b_map)
    {
        return Ok(d);
    }
    let (_, sa, sb) = setup(a, a_map, b, b_map)?;
    Ok(distance_in_frame(&sa, &sb, cache).max(0.0))
}

/// The distance of two balls or capsules under similarities (see [`quick_contact`]); its own
/// function, so that the general path's code stays as it is.
#[inline(never)]
fn distance_closed_form(a: &ConvexShape, a_map: &Affine3A, b: &ConvexShape, b_map: &Affine3A) -> Option<f32> {
    let (c, _) = quick_contact(a, a_map, b, b_map, f32::INFINITY)?;
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
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    cache: &mut GjkCache,
) -> Result<bool, NarrowError> {
    let (_, sa, sb) = setup(a, a_map, b, b_map)?;
    let margins = sa.margin + sb.margin;
    Ok(match gjk(&sa, &sb, sb.translation - sa.translation, margins, cache) {
        GjkResult::Beyond { .. } => false,
        GjkResult::Separated { v, .. } => v.length() <= margins,
        GjkResult::Overlapping { .. } => true,
    })
}

/// The contact manifold of A and B (up to 4 points, see [`ContactManifold`]) when their distance
/// is at most `prediction`; `out` is cleared first and left empty otherwise.
#[inline]
pub fn contact_manifold(
    a: &ConvexShape,
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
    out: &mut ContactManifold,
) -> Result<(), NarrowError> {
    // Two balls under rigid maps (the one-point closed form) inline in the caller; everything else
    // out of line.
    if prediction >= 0.0
        && let Some((ra, rb)) = rigid_balls(a, a_map, b, b_map)
    {
        out.clear();
        if let Some(c) = sat::spheres(a_map.translation, ra, b_map.translation, rb, prediction) {
            out.push(c.point_a, c.point_b, c.separation, 0);
            out.normal = c.normal.into();
        }
        return Ok(());
    }
    contact_manifold_rest(a, a_map, b, b_map, prediction, cache, out)
}

/// [`contact_manifold`] past its inlined case (two balls under rigid maps).
#[inline(never)]
fn contact_manifold_rest(
    a: &ConvexShape,
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
    out: &mut ContactManifold,
) -> Result<(), NarrowError> {
    out.clear();
    if prediction.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let prediction = prediction.max(0.0);
    if let Some((c, segments)) = quick_contact(a, a_map, b, b_map, prediction) {
        if let Some(c) = c {
            match segments.and_then(|[sa, sb]| sat::parallel_capsule_points(sa, sb, c.normal)) {
                Some(points) => {
                    for (id, (pa, pb, separation)) in points.into_iter().enumerate() {
                        if separation <= prediction {
                            out.push(pa, pb, separation, id as u32);
                        }
                    }
                    if out.is_empty() {
                        out.push(c.point_a, c.point_b, c.separation, 0);
                    }
                }
                None => out.push(c.point_a, c.point_b, c.separation, 0),
            }
            out.normal = c.normal.into();
        }
        return Ok(());
    }
    manifold_general(a, a_map, b, b_map, prediction, cache, out)
}

/// [`contact_manifold`] past the closed forms (out of line, see [`contact_general`]).
#[inline(never)]
fn manifold_general(
    a: &ConvexShape,
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    prediction: f32,
    cache: &mut GjkCache,
    out: &mut ContactManifold,
) -> Result<(), NarrowError> {
    let (frame, sa, sb) = setup(a, a_map, b, b_map)?;
    let Some(c) = contact_in_frame(&sa, &sb, prediction, cache) else { return Ok(()) };
    manifold::build(&sa, &sb, &c, prediction, out);
    out.map_to_world(|p| frame.point(p), |v| frame.vector(v));
    Ok(())
}

/// Where a moving shape first touches another: the time of impact and the contact then.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastHit {
    /// The time of impact, in `[0, max_t]`, in units of the velocity.
    pub t: f32,
    /// The contact at time `t` (B moved by `t · velocity`); `separation` is within the cast's
    /// tolerance of zero, or negative when the shapes already overlap at `t = 0`.
    pub contact: Contact,
}

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
    a_map: &Affine3A,
    b: &ConvexShape,
    b_map: &Affine3A,
    velocity: Vec3,
    max_t: f32,
    cache: &mut GjkCache,
) -> Result<Option<ShapeCastHit>, NarrowError> {
    if !velocity.is_finite() || max_t.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let tolerance = 1e-5 * (1.0 + a_map.translation.abs().max(b_map.translation.abs()).max_element());
    let mut t = 0.0f32;
    let mut moved = *b_map;
    for _ in 0..64 {
        moved.translation = b_map.translation + Vec3A::from(velocity) * t;
        let Some(c) = contact(a, a_map, b, &moved, f32::INFINITY, cache)? else { return Ok(None) };
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
    moved.translation = b_map.translation + Vec3A::from(velocity) * t;
    Ok(contact(a, a_map, b, &moved, f32::INFINITY, cache)?.map(|contact| ShapeCastHit { t, contact }))
}

/// The first hit of a ray with the solid shape placed by `map`, with the world-space unit normal
/// (facing against the ray; from inside, `t = 0` and the normal is `-dir / |dir|`).
///
/// The ray is cast in the shape's local space (`t` is kept by affine maps): closed forms for the
/// ball, capsule, box, cylinder, triangle and hull; GJK ray casting for the cone and the rounded
/// shapes. `None` for a miss or an invalid ray (see [`crate::primitive`]); errors for invalid
/// shapes and non-finite or singular maps.
pub fn cast_ray(
    shape: &ConvexShape,
    map: &Affine3A,
    ray: &Ray3,
    max_t: f32,
) -> Result<Option<RayHit>, NarrowError> {
    if !shape.is_valid() {
        return Err(NarrowError::InvalidShape(0));
    }
    let det = map.matrix3.determinant();
    if !finite(map) || !(det.abs() > 0.0) || !ray.origin.is_finite() || !ray.dir.is_finite() || max_t.is_nan()
    {
        return Err(NarrowError::NonFinite);
    }
    let inv = map.inverse();
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
                RayHit { t, normal: n.into() }
            })
        }
    };
    Ok(hit.map(|h| {
        // Normals map by the inverse transpose.
        let n = inv.matrix3.transpose() * Vec3A::from(h.normal);
        let n = n.normalize_or_zero();
        let n = if h.t == 0.0 || n == Vec3A::ZERO { -ray.dir.normalize_or_zero() } else { n.into() };
        RayHit { t: h.t, normal: n }
    }))
}

/// The point of the solid shape placed by `map` closest to the world point `p`, in world space.
///
/// Under a rigid map, the shape's closed-form projection in its local frame; under other maps the
/// metric is not preserved, so GJK between the point and the placed shape.
pub fn project_point(shape: &ConvexShape, map: &Affine3A, p: Vec3) -> Result<PointProjection, NarrowError> {
    if !shape.is_valid() {
        return Err(NarrowError::InvalidShape(0));
    }
    if !finite(map) || !p.is_finite() {
        return Err(NarrowError::NonFinite);
    }
    if is_rigid(&map.matrix3) {
        let local = map.matrix3.transpose() * (Vec3A::from(p) - map.translation);
        let proj = shape.project_point(local.into());
        let point = if proj.inside { p } else { map.transform_point3(proj.point) };
        return Ok(PointProjection { point, inside: proj.inside });
    }
    let point = ConvexShape::Ball(crate::shape::Ball::new(0.0));
    let point_map = Affine3A::from_translation(p);
    let (frame, sa, sb) = setup(shape, map, &point, &point_map)?;
    let mut cache = GjkCache::default();
    Ok(match gjk(&sa, &sb, sb.translation - sa.translation, f32::INFINITY, &mut cache) {
        GjkResult::Separated { v, simplex } if v.length_squared() > 0.0 => {
            let (pa, _) = simplex.witnesses();
            PointProjection { point: frame.point(pa), inside: false }
        }
        _ => PointProjection { point: p, inside: true },
    })
}
