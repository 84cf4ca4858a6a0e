//! Fields against every leaf kind: each side seen as a field in world space, then branch and
//! bound over both ([`fields_intersect`]).

use glam::{Affine3A, Vec3};

use super::QueryError;
use super::Shape;
use super::pair::PlacedShape;
use crate::bounds::Aabb3;
use crate::field::{Field3, FieldsIntersection, PlacedField, fields_intersect};
use crate::mesh::MeshInstance;
use crate::narrow;
use crate::shape::ConvexShape;

/// Cells of the branch and bound stop at this fraction of the smaller solid's box diagonal.
const RELATIVE_TOLERANCE: f32 = 1e-3;

/// A leaf shape (convex, mesh or field) as a field in world space, negative or zero exactly on
/// the solid.
pub(crate) enum WorldField<'a> {
    /// The world distance to the placed shape outside it, 0 inside (1-Lipschitz).
    Convex { shape: &'a ConvexShape, to_world: &'a Affine3A },
    /// The signed world distance to a solid mesh, or the distance to an open mesh's surface.
    Mesh(MeshInstance),
    /// The field through the inverse placement.
    Field(PlacedField<&'a (dyn Field3 + Send + Sync)>),
}

impl<'a> WorldField<'a> {
    /// `None` for composites (the dispatch splits them first) and singular placements.
    pub(crate) fn new(s: &PlacedShape<'a>) -> Option<Self> {
        match s.shape {
            Shape::Convex(shape) => Some(WorldField::Convex { shape, to_world: s.to_world }),
            Shape::Mesh(mesh) => MeshInstance::new(mesh.clone(), *s.to_world).ok().map(WorldField::Mesh),
            Shape::Field(field) => PlacedField::new(&**field, *s.to_world).ok().map(WorldField::Field),
            Shape::SphereSet(_) | Shape::Compound(_) => None,
        }
    }
}

impl Field3 for WorldField<'_> {
    fn value(&self, p: Vec3) -> f32 {
        self.value_and_gradient(p).0
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        match self {
            WorldField::Convex { shape, to_world } => match narrow::project_point(shape, to_world, p) {
                Ok(q) if !q.inside => {
                    let away = p - q.point;
                    (away.length(), away.normalize_or_zero())
                }
                Ok(_) => (0.0, Vec3::ZERO),
                Err(_) => (f32::NAN, Vec3::ZERO),
            },
            WorldField::Mesh(instance) => {
                let Some(q) = instance.closest_point(p, f32::INFINITY) else { return (f32::NAN, Vec3::ZERO) };
                let away = (p - q.point).normalize_or_zero();
                if instance.contains_point(p) == Some(true) {
                    (-q.distance, -away)
                } else {
                    (q.distance, away)
                }
            }
            WorldField::Field(f) => f.value_and_gradient(p),
        }
    }

    fn lipschitz(&self) -> f32 {
        match self {
            WorldField::Convex { .. } | WorldField::Mesh(_) => 1.0,
            WorldField::Field(f) => f.lipschitz(),
        }
    }

    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        match self {
            WorldField::Convex { shape, to_world } => Some(shape.aabb(to_world).expanded(level)),
            WorldField::Mesh(instance) => Some(instance.bounds().expanded(level)),
            WorldField::Field(f) => f.bounds_beyond(level),
        }
    }
}

/// Whether the solids meet, conservatively: solids that come within the branch and bound's
/// tolerance of each other (a thousandth of the smaller one's box) may be reported as meeting.
pub(crate) fn intersects(a: &PlacedShape, b: &PlacedShape) -> Result<bool, QueryError> {
    let (Some(fa), Some(fb)) = (WorldField::new(a), WorldField::new(b)) else {
        return Err(QueryError::Unsupported {
            query: "intersects",
            a: a.shape.kind(),
            b: Some(b.shape.kind()),
        });
    };
    let size = |f: &WorldField| f.bounds().map(|r| (r.max - r.min).length());
    let scale = match (size(&fa), size(&fb)) {
        (Some(x), Some(y)) => x.min(y),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => return Err(QueryError::Unbounded(super::Operand::A)),
    };
    let tolerance = (RELATIVE_TOLERANCE * scale).max(f32::MIN_POSITIVE);
    Ok(match fields_intersect(&fa, &fb, tolerance) {
        FieldsIntersection::Separated => false,
        FieldsIntersection::Intersecting { .. } | FieldsIntersection::Undecided { .. } => true,
    })
}
