//! Convex shapes in 2D, the twins of the 3D shapes: plain structs with their support functions
//! and closed-form local queries.
//!
//! The conventions of the [3D shapes](super) hold: every shape lives in its own local frame
//! (centred on the origin; capsules along `+y`) and is placed by an [`Affine2`] (rotation,
//! translation, non-uniform scale, shear, reflection), handled exactly through the support
//! function, `support(M·S + t, d) = M·support(S, Mᵀd) + t` ([`PlacedSupport2`]): a scaled
//! [`Ball2`] is an exact ellipse. Shapes with a radius are a core plus a disc
//! ([`ConvexShape2::margin`]). Local queries here (ray casts, point projection, boxes, mass
//! properties) are closed forms in the local frame; placed and pair queries are in
//! [`crate::narrow`].

mod basic;
mod convex;
mod mass;
mod polygon;

pub use basic::{Ball2, Capsule2, Cuboid2, Segment2, Triangle2, closest_points_segments2, segment_closest_params2};
pub use convex::{ConvexShape2, ShapeKind2};
pub use mass::MassProperties2;
pub use polygon::{ConvexPolygon2, PolygonError};

use glam::{Affine2, Mat2, Vec2};

use crate::bounds::Aabb2;

/// A convex set in the plane described by its support function.
pub trait SupportMap2 {
    /// A point of the set that is farthest along `dir` (`argmax_{x ∈ S} x·dir`; any one of them when
    /// several tie). `dir` need not be unit length; for a zero `dir` any point of the set.
    fn support(&self, dir: Vec2) -> Vec2;

    /// The exact bounding box of the set under `map`, from four support points: the extent along
    /// world axis `i` is `eᵢ · (M s + t)` with `s = support(Mᵀ eᵢ)` (and `-eᵢ` for the minimum).
    fn aabb_under(&self, map: &Affine2) -> Aabb2 {
        let placed = PlacedSupport2::new(self, map);
        let max = Vec2::new(placed.support(Vec2::X).x, placed.support(Vec2::Y).y);
        let min = Vec2::new(placed.support(-Vec2::X).x, placed.support(-Vec2::Y).y);
        Aabb2::new(min, max)
    }
}

impl<S: SupportMap2 + ?Sized> SupportMap2 for &S {
    #[inline(always)]
    fn support(&self, dir: Vec2) -> Vec2 {
        (**self).support(dir)
    }
}

/// A support map placed by an affine map: `support(M·S + t, d) = M·support(S, Mᵀd) + t`.
#[derive(Clone, Copy, Debug)]
pub struct PlacedSupport2<'a, S: ?Sized> {
    shape: &'a S,
    m: Mat2,
    mt: Mat2,
    t: Vec2,
}

impl<'a, S: SupportMap2 + ?Sized> PlacedSupport2<'a, S> {
    /// `shape` placed by `map`.
    #[inline]
    pub fn new(shape: &'a S, map: &Affine2) -> Self {
        Self { shape, m: map.matrix2, mt: map.matrix2.transpose(), t: map.translation }
    }
}

impl<S: SupportMap2 + ?Sized> SupportMap2 for PlacedSupport2<'_, S> {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        self.m * self.shape.support(self.mt * dir) + self.t
    }
}

/// The point of a solid 2D shape closest to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointProjection2 {
    /// The closest point of the (solid) shape: the query point itself when it is inside.
    pub point: Vec2,
    /// Whether the query point lies in the shape (boundary included).
    pub inside: bool,
}

impl PointProjection2 {
    #[inline]
    pub(crate) fn inside(p: Vec2) -> Self {
        Self { point: p, inside: true }
    }

    #[inline]
    pub(crate) fn outside(q: Vec2) -> Self {
        Self { point: q, inside: false }
    }
}
