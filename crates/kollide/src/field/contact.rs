//! Point sets against fields (a cheap narrow phase: one solid's surface points against the
//! other's field) and fields against fields.

use super::{Field3, SpatialSignature};
use crate::bounds::Aabb3;
use glam::{Affine3A, Vec3};

/// What a point-set test did: how many points the signature cleared without evaluating the field,
/// and how many evaluations it made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PointFieldStats {
    pub pruned: usize,
    pub evaluated: usize,
}

/// The first of `points` (placed by `points_to_world`) inside the field (placed by
/// `field_to_world`), where the field's value is `≤ 0`; `None` when all are outside, and for a
/// placement that is not finite or a field placement that is not invertible (a singular points
/// placement is fine: it flattens the points, which stay points). A point set sampled from one solid's surface
/// (e.g. a mesh's vertices) against another's field, where a point inside means the solids
/// intersect.
///
/// With a `signature` of the field, points in clear cells are skipped unevaluated; the signature
/// must be in the field's frame and guarantee its clear cells for this field (see the
/// constructors of [`SpatialSignature`]). NaN points are never inside. Stops at the first point
/// inside.
pub fn first_point_inside(
    points: &[Vec3],
    points_to_world: &Affine3A,
    field: &impl Field3,
    field_to_world: &Affine3A,
    signature: Option<&SpatialSignature>,
    stats: &mut PointFieldStats,
) -> Option<usize> {
    let to_field = points_in_field(points_to_world, field_to_world)?;
    points.iter().position(|&p| {
        let p = to_field.transform_point3(p);
        if signature.is_some_and(|s| !s.may_contain(p)) {
            stats.pruned += 1;
            return false;
        }
        stats.evaluated += 1;
        field.value(p) <= 0.0
    })
}

/// The map from the point set's frame to the field's, `None` unless both placements are finite
/// and the field's is invertible.
fn points_in_field(points_to_world: &Affine3A, field_to_world: &Affine3A) -> Option<Affine3A> {
    let to_field = field_to_world.inverse() * *points_to_world;
    (points_to_world.is_finite() && field_to_world.is_finite() && to_field.is_finite()).then_some(to_field)
}

/// A point of the set inside the field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldContact {
    /// Index of the point in the set.
    pub index: u32,
    /// The point, in world space.
    pub point: Vec3,
    /// Unit normal (world space) from the point set's solid (A) to the field's (B): along the
    /// negated gradient of the field at the point, so that moving B along it separates the two.
    pub normal: Vec3,
    /// Signed distance estimate `value / |gradient|`, `<= 0` (exact for a signed distance under
    /// a rigid placement), in world units.
    pub separation: f32,
}

/// Every point of `points` (placed by `points_to_world`) inside the field (placed by
/// `field_to_world`), with a normal and separation from the field's value and gradient, appended
/// to `out` (cleared first); nothing for a placement that is not finite or a field placement
/// that is not invertible (as [`first_point_inside`]). Points
/// skipped by the `signature` and points where the gradient vanishes (no defined normal, e.g. a
/// ball's center) count as in [`first_point_inside`]; the latter are reported with a zero normal.
pub fn field_contacts(
    points: &[Vec3],
    points_to_world: &Affine3A,
    field: &impl Field3,
    field_to_world: &Affine3A,
    signature: Option<&SpatialSignature>,
    out: &mut Vec<FieldContact>,
) -> PointFieldStats {
    out.clear();
    let mut stats = PointFieldStats::default();
    let Some(to_field) = points_in_field(points_to_world, field_to_world) else { return stats };
    // Gradients are covectors: to the world by the inverse transpose of the field's placement.
    let gradient_to_world = field_to_world.matrix3.inverse().transpose();
    for (index, &p) in points.iter().enumerate() {
        let p = to_field.transform_point3(p);
        if signature.is_some_and(|s| !s.may_contain(p)) {
            stats.pruned += 1;
            continue;
        }
        stats.evaluated += 1;
        let (value, gradient) = field.value_and_gradient(p);
        if value <= 0.0 {
            let gradient = Vec3::from(gradient_to_world * glam::Vec3A::from(gradient));
            let length = gradient.length();
            let (normal, separation) =
                if length > 0.0 { (-gradient / length, value / length) } else { (Vec3::ZERO, value) };
            out.push(FieldContact {
                index: index as u32,
                point: field_to_world.transform_point3(p),
                normal,
                separation,
            });
        }
    }
    stats
}

/// The answer of [`fields_intersect`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldsIntersection {
    /// Both fields are `≤ 0` at `point`.
    Intersecting { point: Vec3 },
    /// Proven disjoint: every part of the common box was ruled out by a Lipschitz bound.
    Separated,
    /// Neither proven: the solids come within about `tolerance` of each other near `point`
    /// (they touch, or are closer than the tolerance can tell), or the evaluation budget ran out.
    Undecided { point: Vec3 },
}

/// The most cells [`fields_intersect`] examines before it answers `Undecided`.
pub const FIELDS_INTERSECT_BUDGET: usize = 1 << 20;

/// Whether the solids of two fields (in one frame) intersect, by branch and bound over the
/// overlap of their boxes with descent from each cell's center.
///
/// A cell with center `c` and half-diagonal `r` is ruled out when `a(c) > L_a r` or
/// `b(c) > L_b r` (one field is positive all over it). Otherwise a few steps of descent on
/// `max(a, b)` from `c` (along the gradient of the larger one, by its value over its squared
/// gradient length) look for a common inside point; failing that the cell is split in eight, down
/// to cells of half-diagonal `tolerance`. `Separated` is a proof; `Intersecting` comes with a
/// witness; `Undecided` means the solids are within about the tolerance of each other. Unbounded
/// pairs (both without bounds) and a non-positive or NaN tolerance give `Undecided` at the origin.
pub fn fields_intersect(a: &impl Field3, b: &impl Field3, tolerance: f32) -> FieldsIntersection {
    let undecided = FieldsIntersection::Undecided { point: Vec3::ZERO };
    if !(tolerance > 0.0) {
        return undecided;
    }
    let region = match (a.bounds(), b.bounds()) {
        (Some(x), Some(y)) => Aabb3::new(x.min.max(y.min), x.max.min(y.max)),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => return undecided,
    };
    if region.is_empty() {
        return FieldsIntersection::Separated;
    }
    if !region.is_valid() {
        return undecided;
    }
    let (la, lb) = (a.lipschitz(), b.lipschitz());
    let mut stack = vec![(region.center(), region.half_extents())];
    let mut closest: Option<(f32, Vec3)> = None;
    let mut examined = 0;
    while let Some((c, half)) = stack.pop() {
        examined += 1;
        if examined > FIELDS_INTERSECT_BUDGET {
            return FieldsIntersection::Undecided { point: closest.map_or(c, |(_, p)| p) };
        }
        let r = half.length();
        let (va, vb) = (a.value(c), b.value(c));
        if va > la * r || vb > lb * r {
            continue;
        }
        if let Some(point) = descend(a, b, c) {
            return FieldsIntersection::Intersecting { point };
        }
        if r <= tolerance {
            let gap = va.max(vb);
            if closest.is_none_or(|(g, _)| gap < g) {
                closest = Some((gap, c));
            }
            continue;
        }
        let quarter = half * 0.5;
        for n in 0..8 {
            let sign = Vec3::new(
                if n & 1 == 0 { -1.0 } else { 1.0 },
                if n & 2 == 0 { -1.0 } else { 1.0 },
                if n & 4 == 0 { -1.0 } else { 1.0 },
            );
            stack.push((c + sign * quarter, quarter));
        }
    }
    match closest {
        Some((_, point)) => FieldsIntersection::Undecided { point },
        None => FieldsIntersection::Separated,
    }
}

/// Descent steps tried from each cell center.
const DESCENT_STEPS: usize = 4;

/// A point where both fields are `≤ 0`, looked for by a few Newton steps on the larger of the two
/// from `start`.
fn descend(a: &impl Field3, b: &impl Field3, start: Vec3) -> Option<Vec3> {
    let mut p = start;
    for _ in 0..=DESCENT_STEPS {
        let (va, ga) = a.value_and_gradient(p);
        let (vb, gb) = b.value_and_gradient(p);
        if va <= 0.0 && vb <= 0.0 {
            return Some(p);
        }
        let (v, g) = if va >= vb { (va, ga) } else { (vb, gb) };
        let g2 = g.length_squared();
        if !(g2 > 0.0) || !v.is_finite() {
            return None;
        }
        // Step just past the zero level of the larger field (the 1.01 overshoots rounding).
        p -= g * (1.01 * v / g2);
    }
    None
}
