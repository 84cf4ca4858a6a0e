//! Signed-distance and density fields: a solid described by a scalar function instead
//! of triangles, tested against point sets and against other fields.
//!
//! A [`Field3`] is negative inside its solid, positive outside and zero on the surface, like
//! [`crate::mesh::TriMesh::signed_distance`]. A density in the seed's sense (positive inside) is
//! the negated field. Each field states a Lipschitz bound `L` (`|f(p) − f(q)| ≤ L |p − q|`): `1`
//! for exact signed distances, more for densities such as metaballs. That bound is what makes
//! pruning sound: a cell of half-diagonal `r` whose center has `f(c) > L r` lies entirely outside.
//!
//! - [`BallField`], [`CuboidField`], [`CapsuleField`], [`TorusField`]: exact signed distances.
//! - [`MetaballField`]: a density of smooth bumps, thresholded.
//! - [`Union`], [`Intersection`], [`Subtraction`], [`SmoothUnion`]: combinations.
//! - [`PlacedField`]: any field under an invertible affine map (non-uniform scale and shear included).
//! - [`GridField`]: a sampled signed distance built from a closed mesh (or any field),
//!   trilinearly interpolated, with a stated error bound.
//! - [`SpatialSignature`]: a bit grid of the cells where a field can be inside, checked before the
//!   field is evaluated.
//! - [`first_point_inside`], [`field_contacts`]: a point set (e.g. mesh vertices) against a field;
//!   [`fields_intersect`]: two fields against each other.

mod analytic;
mod contact;
mod grid;
mod signature;

pub use analytic::*;
pub use contact::*;
pub use grid::*;
pub use signature::*;

use crate::bounds::Aabb3;
use glam::Vec3;
use std::fmt;

/// A scalar field over 3D space whose negative region is a solid.
///
/// Contract for every implementation: `value` never panics, and is finite for finite `p` (a NaN
/// `p` gives NaN); the gradient is that of `value` where it is differentiable and a one-sided
/// limit elsewhere (zero only where no direction is preferred, e.g. at a ball's center);
/// `lipschitz` bounds the slope of `value` everywhere.
pub trait Field3 {
    /// The field at `p`.
    fn value(&self, p: Vec3) -> f32;

    /// The field and its gradient at `p`. The gradient points toward increasing values, i.e. out
    /// of the solid.
    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3);

    /// An upper bound `L` of the field's slope: `|f(p) − f(q)| ≤ L |p − q|` for all `p`, `q`.
    fn lipschitz(&self) -> f32;

    /// A box outside of which the value exceeds `level` (`level ≥ 0`); `None` when there is no
    /// such box (an unbounded solid, or a field that never rises above `level`).
    fn bounds_beyond(&self, level: f32) -> Option<Aabb3>;

    /// A box outside of which the field is positive: the solid lies inside it.
    fn bounds(&self) -> Option<Aabb3> {
        self.bounds_beyond(0.0)
    }
}

impl<F: Field3 + ?Sized> Field3 for &F {
    fn value(&self, p: Vec3) -> f32 {
        (**self).value(p)
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        (**self).value_and_gradient(p)
    }

    fn lipschitz(&self) -> f32 {
        (**self).lipschitz()
    }

    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        (**self).bounds_beyond(level)
    }
}

/// Why a field could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldError {
    /// A parameter is NaN, infinite or out of its range; the message names it.
    InvalidParameter(&'static str),
    /// A mesh-based field needs a closed, consistently oriented mesh (see
    /// [`crate::mesh::TriMesh::is_solid`]).
    NotSolid,
    /// The region to sample is empty or unbounded.
    NoBounds,
    /// The grid would have more cells than the given limit.
    TooManyCells { cells: u64, limit: u64 },
    /// The affine map of a [`PlacedField`] is not invertible or not finite.
    NotInvertible,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldError::InvalidParameter(what) => write!(f, "invalid field parameter: {what}"),
            FieldError::NotSolid => write!(f, "the mesh is not closed and consistently oriented"),
            FieldError::NoBounds => write!(f, "the region to sample is empty or unbounded"),
            FieldError::TooManyCells { cells, limit } => {
                write!(f, "the grid would have {cells} cells, more than the limit of {limit}")
            }
            FieldError::NotInvertible => write!(f, "the placement is not an invertible, finite affine map"),
        }
    }
}

impl std::error::Error for FieldError {}
