//! Concave polygons with holes as compounds of their convex pieces.

use glam::{Affine2, Vec2};

use super::composite::{CompositeError2, Compound2};
use crate::primitive::d2::{DecomposeError, decompose_polygon2};
use crate::shape::{ConvexPolygon2, ConvexShape2};

/// Why a polygon could not become a compound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PolygonCompoundError {
    /// The decomposition refused the rings (see [`DecomposeError`]).
    Decompose(DecomposeError),
    /// A piece could not be built (see [`CompositeError2`]).
    Composite(CompositeError2),
}

impl std::fmt::Display for PolygonCompoundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PolygonCompoundError::Decompose(e) => write!(f, "decomposition: {e:?}"),
            PolygonCompoundError::Composite(e) => write!(f, "compound: {e}"),
        }
    }
}

impl std::error::Error for PolygonCompoundError {}

impl Compound2 {
    /// The solid polygon bounded by `outer` with `holes` cut out (either winding), decomposed
    /// once into convex pieces ([`decompose_polygon2`]), each a child [`ConvexPolygon2`] at the
    /// identity. Child `i` is piece `i`; the union of the children is the polygon.
    pub fn from_polygon(outer: &[Vec2], holes: &[&[Vec2]]) -> Result<Self, PolygonCompoundError> {
        let pieces = decompose_polygon2(outer, holes).map_err(PolygonCompoundError::Decompose)?;
        let mut children = Vec::with_capacity(pieces.len());
        for (i, piece) in pieces.iter().enumerate() {
            // The pieces are strictly convex and counter-clockwise, so the hull keeps every vertex.
            let polygon = ConvexPolygon2::new(piece)
                .map_err(|_| PolygonCompoundError::Composite(CompositeError2::InvalidPart(i)))?;
            children.push((ConvexShape2::Polygon(polygon), Affine2::IDENTITY));
        }
        Compound2::new(children).map_err(PolygonCompoundError::Composite)
    }
}
