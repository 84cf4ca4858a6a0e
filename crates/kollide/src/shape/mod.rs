//! Convex shapes in 3D: plain structs with their single-shape queries.
//!
//! Every shape lives in its own local frame (centred on the origin; axial shapes along `+y`) and is
//! placed in the world by an [`Affine3A`]: rotation, translation, non-uniform scale, shear or
//! reflection. A placed convex shape is handled exactly through its support function,
//! `support(M·S + t, d) = M·support(S, Mᵀd) + t` (see [`PlacedSupport`]): a scaled [`Ball`] is an exact
//! ellipsoid and a sheared [`Cuboid`] an exact parallelepiped, never a tessellation. Affine
//! placements are the only placement type (a rigid [`crate::math::Pose3`] converts with
//! `to_affine`), so one code path serves rigid and general maps.
//!
//! Shapes with a *radius* ([`Ball`], [`Capsule`] and every [`Rounded`] shape) are a *core* (a point,
//! a segment, a polytope…) plus a ball of that radius (a Minkowski sum). [`SupportMap::support`] is
//! the support of the whole shape; [`ConvexShape::core_support`] and [`ConvexShape::margin`] expose
//! the split, which the narrow phase uses to run GJK on the (cheaper, sharper) cores.
//!
//! Per-shape queries here are the closed forms in the shape's local frame (ray casts, point
//! projection, bounding boxes, mass properties). Queries that need GJK (ray casts against cones and
//! rounded shapes, point projection under non-rigid maps, every pair query) are in
//! [`crate::narrow`].
//!
//! Shape parameters (radii, half extents, half heights) must be finite and non-negative; a zero
//! parameter is a valid, lower-dimensional shape (a zero-radius ball is a point, a zero-height
//! cylinder a disc). [`ConvexShape::is_valid`] checks this; the narrow phase refuses invalid shapes
//! with an error.

mod basic;
mod convex;
mod d2;
mod hull;
mod mass;
mod rounded;

pub use basic::{Ball, Capsule, Cone, Cuboid, Cylinder, Triangle};
pub use convex::{ConvexShape, Core, PlacedSupport, ShapeKind};
pub use d2::*;
pub use hull::{ConvexHull, HullError, HullFace};
pub use mass::MassProperties;
pub use rounded::Rounded;

use glam::{Affine3A, Mat3A, Vec3, Vec3A};

use crate::bounds::Aabb3;

/// A convex set described by its support function.
pub trait SupportMap {
    /// A point of the set that is farthest along `dir` (`argmax_{x ∈ S} x·dir`; any one of them when
    /// several tie). `dir` need not be unit length; for a zero `dir` any point of the set.
    fn support(&self, dir: Vec3A) -> Vec3A;

    /// The support of the set placed by the linear map `m` (with `mt = mᵀ`) along `dir`:
    /// `m · support(mᵀ dir)`. Shapes override it where reassociating the products shortens the
    /// dependency chain.
    #[inline(always)]
    fn support_under(&self, m: &Mat3A, mt: &Mat3A, dir: Vec3A) -> Vec3A {
        *m * self.support(*mt * dir)
    }

    /// The exact bounding box of the set under `map`, from six support points: the extent along
    /// world axis `i` is `eᵢ · (M s + t)` with `s = support(Mᵀ eᵢ)` (and `-eᵢ` for the minimum).
    fn aabb_under(&self, map: &Affine3A) -> Aabb3 {
        let placed = PlacedSupport::new(self, map);
        let mut min = Vec3A::ZERO;
        let mut max = Vec3A::ZERO;
        for (i, axis) in [Vec3A::X, Vec3A::Y, Vec3A::Z].into_iter().enumerate() {
            max[i] = placed.support(axis)[i];
            min[i] = placed.support(-axis)[i];
        }
        Aabb3::new(min.into(), max.into())
    }
}

/// The closed-form local queries a shape needs to be the core of a [`Rounded`] shape.
pub trait ConvexCore: SupportMap {
    /// The bounding box in the shape's local frame.
    fn local_aabb(&self) -> Aabb3;
    /// The exact bounding box under `map`.
    fn aabb(&self, map: &Affine3A) -> Aabb3;
    /// The point of the solid shape closest to `p`, in the local frame.
    fn project_point(&self, p: Vec3) -> PointProjection;
}

/// The point of a solid shape closest to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointProjection {
    /// The closest point of the (solid) shape: the query point itself when it is inside.
    pub point: Vec3,
    /// Whether the query point lies in the shape (boundary included).
    pub inside: bool,
}

impl PointProjection {
    /// The projection of `p` given its closest point `q` on the shape's boundary or in it.
    #[inline]
    fn outside_or_on(p: Vec3, q: Vec3) -> Self {
        if p == q { Self { point: p, inside: true } } else { Self { point: q, inside: false } }
    }

    /// `p` itself, inside.
    #[inline]
    fn inside(p: Vec3) -> Self {
        Self { point: p, inside: true }
    }
}
