//! One contract for every query between two shapes of any kind, and for the single-shape
//! queries, over the closed [`Shape`] enum: convex shapes, triangle meshes, sphere sets, fields
//! and compounds.
//!
//! # The contract
//!
//! - Pair queries take `(a, a_to_world, b, b_to_world, ..)`: each shape in its own local frame,
//!   placed in the world by any affine map (rotation, translation, non-uniform scale, shear,
//!   reflection). Answers are in world space; normals point from A to B; `separation` is signed,
//!   negative when the shapes penetrate. Swapping A and B mirrors the answer (points swap,
//!   normals flip).
//! - Closed, consistently oriented meshes ([`TriMesh::is_solid`]) are solids: a shape inside
//!   one intersects it, a ray starting inside hits it at `t = 0`, a point inside projects to
//!   itself; inside is where the winding number is not zero, also for a mesh that passes
//!   through itself ([`TriMesh`]). Open meshes are surfaces. Sphere sets, compounds and fields
//!   are solids.
//! - Bad input is an error value, never a panic and never a silent `false`: a non-finite
//!   placement or argument, a singular placement where the query must invert it, an invalid
//!   shape ([`QueryError`]). A pair of kinds for which a query has no algorithm answers
//!   [`QueryError::Unsupported`]; the answers that are estimates rather than exact are listed
//!   below.
//!
//! # What is exact and what is not
//!
//! Exact up to `f32` rounding: every query between convex shapes, meshes and sphere sets (and
//! compounds of them), except the ones listed here.
//!
//! - Penetration depths where a mesh takes part are estimates: two meshes give the depth of their
//!   deepest touching region (see [`crate::mesh::MeshInstance::mesh_contacts`]); a convex shape
//!   against a mesh gives the deepest contact with one triangle, or, when the shape lies inside a
//!   solid mesh without touching its surface, the distance that moves the shape out through the
//!   nearest surface point.
//! - Fields: `intersects` is conservative (it may answer `true` for solids that come within
//!   about a thousandth of their size of each other without touching); ray casts stop within
//!   [`FIELD_RAY_TOLERANCE`] of the surface; point projections of points outside are found by
//!   Newton steps on the field and are estimates. Contacts, manifolds, distances and shape casts
//!   with a field are [`QueryError::Unsupported`].
//! - Shape casts of two meshes advance conservatively by distance over speed (no contact is
//!   ever skipped) and stop after [`CAST_MAX_STEPS`] steps; a cast still apart then reports the
//!   last time with its positive separation. Sphere sets and compounds cast part by part, a
//!   convex shape against a mesh triangle by triangle, each with the convex cast.
//!
//! Part ids: a [`Contact`] or [`PartManifold`] names the part of each shape it lies on: the
//! triangle id of a mesh, the ball index of a sphere set, the child index of a compound, 0 for a
//! convex shape or a field. Two meshes give one manifold per touching region, with the region's
//! index as both part ids.

mod cached;
mod compound;
mod d2;
mod field_pair;
mod mesh_pair;
mod pair;
mod single;

pub use cached::{PairCache, contact_manifolds_cached, intersects_cached};
pub use compound::{Compound, CompoundError};
pub use d2::*;
pub use pair::{CAST_MAX_STEPS, cast_shape, contact, contact_manifolds, distance, intersects};
pub use single::{FIELD_RAY_TOLERANCE, bounds, cast_ray, contains_point, project_point};

pub use crate::narrow::{Contact, ContactManifold, ManifoldPoint, PartManifold, ShapeCastHit};

use std::sync::Arc;

use glam::Affine3A;

use crate::field::Field3;
use crate::mesh::{SphereSet, TriMesh};
use crate::narrow::NarrowError;
use crate::shape::ConvexShape;

/// Every kind of shape kollide can query, as one closed enum.
///
/// Meshes, sphere sets, fields and compounds are shared (`Arc`): one built structure, placed
/// by as many maps as there are objects using it.
#[derive(Clone)]
pub enum Shape {
    /// A convex shape, exact under any affine placement.
    Convex(ConvexShape),
    /// A triangle mesh: a solid when closed and consistently oriented, a surface otherwise.
    Mesh(Arc<TriMesh>),
    /// A union of balls (an ellipsoid each under a non-uniform placement).
    SphereSet(Arc<SphereSet>),
    /// The solid where a field is `<= 0` (analytic fields, grids sampled from meshes, their
    /// combinations).
    Field(Arc<dyn Field3 + Send + Sync>),
    /// Many shapes with local placements under a BVH.
    Compound(Arc<Compound>),
}

impl std::fmt::Debug for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shape::Convex(s) => f.debug_tuple("Convex").field(s).finish(),
            Shape::Mesh(m) => write!(f, "Mesh({} triangles)", m.triangle_count()),
            Shape::SphereSet(s) => write!(f, "SphereSet({} balls)", s.spheres().len()),
            Shape::Field(_) => write!(f, "Field"),
            Shape::Compound(c) => write!(f, "Compound({} children)", c.children().len()),
        }
    }
}

impl Shape {
    /// The kind of the shape.
    pub fn kind(&self) -> Kind {
        match self {
            Shape::Convex(_) => Kind::Convex,
            Shape::Mesh(_) => Kind::Mesh,
            Shape::SphereSet(_) => Kind::SphereSet,
            Shape::Field(_) => Kind::Field,
            Shape::Compound(_) => Kind::Compound,
        }
    }
}

/// The kind of a [`Shape`], without its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Convex,
    Mesh,
    SphereSet,
    Field,
    Compound,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 5] = [Kind::Convex, Kind::Mesh, Kind::SphereSet, Kind::Field, Kind::Compound];
}

/// Which operand of a query an error is about: A (the only one of a single-shape query) or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    A,
    B,
}

/// Why a query was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryError {
    /// A placement has a NaN or infinite entry.
    NonFinitePlacement(Operand),
    /// The query must invert this placement (meshes, fields and compounds are queried in their
    /// own frame, rays and points in the shape's), and it is singular.
    SingularPlacement(Operand),
    /// A convex shape has a negative or non-finite parameter ([`ConvexShape::is_valid`]).
    InvalidShape(Operand),
    /// A query argument is NaN (or infinite where it must be finite); names the argument.
    NonFiniteArgument(&'static str),
    /// The field has no bounds, and the query needs them.
    Unbounded(Operand),
    /// The query has no algorithm for this pair of kinds (`b` is `None` for a single-shape
    /// query).
    Unsupported { query: &'static str, a: Kind, b: Option<Kind> },
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryError::NonFinitePlacement(o) => write!(f, "the placement of shape {o:?} is not finite"),
            QueryError::SingularPlacement(o) => write!(f, "the placement of shape {o:?} is singular"),
            QueryError::InvalidShape(o) => write!(f, "shape {o:?} has a negative or non-finite parameter"),
            QueryError::NonFiniteArgument(what) => write!(f, "the argument `{what}` is NaN or not finite"),
            QueryError::Unbounded(o) => write!(f, "shape {o:?} is an unbounded field"),
            QueryError::Unsupported { query, a, b: Some(b) } => {
                write!(f, "`{query}` is not supported between {a:?} and {b:?}")
            }
            QueryError::Unsupported { query, a, b: None } => write!(f, "`{query}` is not supported on {a:?}"),
        }
    }
}

impl std::error::Error for QueryError {}

/// Checks one operand: a finite placement, invertible when the kind is queried in its own frame,
/// and a valid convex shape.
fn check_operand(shape: &Shape, to_world: &Affine3A, which: Operand) -> Result<(), QueryError> {
    if !(to_world.matrix3.is_finite() && to_world.translation.is_finite()) {
        return Err(QueryError::NonFinitePlacement(which));
    }
    match shape {
        Shape::Convex(c) if !c.is_valid() => Err(QueryError::InvalidShape(which)),
        Shape::Convex(_) => Ok(()),
        _ if !invertible(to_world) => Err(QueryError::SingularPlacement(which)),
        _ => Ok(()),
    }
}

/// Whether the map has an inverse with finite entries (determinant not negligible against the
/// entries' size, as [`crate::mesh::MeshInstance::new`] asks).
fn invertible(map: &Affine3A) -> bool {
    let m = map.matrix3;
    let scale = m.x_axis.abs().max(m.y_axis.abs()).max(m.z_axis.abs()).max_element();
    // The inverse is checked too: the size threshold underflows for scales near 1e-13.
    m.determinant().abs() > 1e-18 * scale * scale * scale && map.inverse().is_finite()
}

/// The error of a narrow-phase call, with the operands in query order (`swapped`: the call had
/// B first).
fn from_narrow(error: NarrowError, swapped: bool) -> QueryError {
    let operand = |i: u8| if (i == 0) != swapped { Operand::A } else { Operand::B };
    match error {
        NarrowError::InvalidShape(i) => QueryError::InvalidShape(operand(i)),
        NarrowError::NonFinite => QueryError::NonFiniteArgument("placement or query argument"),
    }
}

#[cfg(test)]
mod tests;
