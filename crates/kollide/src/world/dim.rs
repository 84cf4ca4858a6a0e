//! The small trait a world needs from its dimension: the shape, placement and bounds types, and
//! the handful of exact queries the world and its scene queries run. Everything else in
//! [`world`](super) is written once over it.

use std::fmt::Debug;

use glam::{Affine2, Affine3A, Vec2, Vec3, Vec3A};

use crate::bounds::{Aabb2, Aabb3};
use crate::broad::BroadBounds;
use crate::math::{Ray2, Ray3};
use crate::narrow::ShapeCastHit2;
use crate::primitive::RayHit3;
use crate::primitive::d2::RayHit2;
use crate::query::{self, PairCache, PairCache2, PartManifold, PartManifold2, QueryError, Shape, Shape2, ShapeCastHit};
use crate::shape::{ConvexShape, ConvexShape2, Cuboid, Cuboid2};

/// A dimension of worlds: the types of its shapes and the queries on them.
///
/// Every query returns [`QueryError`] on bad input and is never called by the world with a
/// shape and placement that [`Dim::bounds`] refused.
pub trait Dim: Sized + Send + Sync + 'static {
    /// A shape of this dimension.
    type Shape: Clone + Debug + Send + Sync;
    /// A placement (any affine map).
    type Placement: Copy + Debug + PartialEq + Send + Sync;
    /// A vector (velocities, points).
    type Vector: Copy + Debug + PartialEq + Send + Sync;
    /// The broad phase's boxes; their ray type is the scene queries' ray.
    type Bounds: BroadBounds + Copy + Send + Sync;
    /// One contact manifold of a pair (with the parts it lies on).
    type Manifold: Clone + Debug + Send + Sync;
    /// The memory of one pair between steps.
    type PairCache: Default + Clone + Debug + Send + Sync;
    /// A ray hit, with its parameter `t`.
    type RayHit: Copy + Debug + Send + Sync;
    /// A shape cast hit, with its time `t`.
    type CastHit: Copy + Debug + Send + Sync;

    /// The world box of the placed shape; the check that the shape and placement are valid.
    fn bounds(shape: &Self::Shape, placement: &Self::Placement) -> Result<Self::Bounds, QueryError>;
    /// The box covering `bounds` and `bounds` moved by `displacement`.
    fn swept(bounds: &Self::Bounds, displacement: Self::Vector) -> Self::Bounds;
    /// `v · s`.
    fn scaled(v: Self::Vector, s: f32) -> Self::Vector;
    /// Whether every component is finite.
    fn is_finite(v: Self::Vector) -> bool;
    /// The box of one point.
    fn point_bounds(p: Self::Vector) -> Self::Bounds;
    /// The ray from `origin` along `dir`.
    fn ray(origin: Self::Vector, dir: Self::Vector) -> <Self::Bounds as BroadBounds>::Ray;
    /// The centre of a box.
    fn center(bounds: &Self::Bounds) -> Self::Vector;
    /// `bounds` grown on each axis by the half extents of `by` (the Minkowski sum of the boxes
    /// with `by` centred at the origin).
    fn grown_by(bounds: &Self::Bounds, by: &Self::Bounds) -> Self::Bounds;

    /// An upper bound on how far any point of the shape moved when its placement changed from
    /// `old` to `new` (infinite when unknown).
    fn displacement_bound(shape: &Self::Shape, old: &Self::Placement, new: &Self::Placement) -> f32;
    /// Whether A and B touch or overlap.
    fn intersects(
        a: &Self::Shape,
        a_to_world: &Self::Placement,
        b: &Self::Shape,
        b_to_world: &Self::Placement,
        cache: &mut Self::PairCache,
    ) -> Result<bool, QueryError>;
    /// The contact manifolds of A and B within `prediction`, into `out` (cleared first).
    fn manifolds(
        a: &Self::Shape,
        a_to_world: &Self::Placement,
        b: &Self::Shape,
        b_to_world: &Self::Placement,
        prediction: f32,
        cache: &mut Self::PairCache,
        out: &mut Vec<Self::Manifold>,
    ) -> Result<(), QueryError>;
    /// The distance between A and B (0 when they touch).
    fn distance(
        a: &Self::Shape,
        a_to_world: &Self::Placement,
        b: &Self::Shape,
        b_to_world: &Self::Placement,
    ) -> Result<f32, QueryError>;
    /// The first hit of the ray with the solid shape within `[0, max_t]`.
    fn cast_ray(
        shape: &Self::Shape,
        to_world: &Self::Placement,
        ray: &<Self::Bounds as BroadBounds>::Ray,
        max_t: f32,
    ) -> Result<Option<Self::RayHit>, QueryError>;
    /// The ray parameter of a hit.
    fn ray_hit_t(hit: &Self::RayHit) -> f32;
    /// When B, moving by `t · velocity`, first touches A (which stays) within `[0, max_t]`.
    fn cast_shape(
        a: &Self::Shape,
        a_to_world: &Self::Placement,
        b: &Self::Shape,
        b_to_world: &Self::Placement,
        velocity: Self::Vector,
        max_t: f32,
    ) -> Result<Option<Self::CastHit>, QueryError>;
    /// The time of a cast hit.
    fn cast_hit_t(hit: &Self::CastHit) -> f32;
    /// Whether the solid shape contains the point.
    fn contains_point(
        shape: &Self::Shape,
        to_world: &Self::Placement,
        p: Self::Vector,
    ) -> Result<bool, QueryError>;
    /// The box as a shape and its placement.
    fn box_shape(bounds: &Self::Bounds) -> (Self::Shape, Self::Placement);
}

/// Three dimensions: [`Shape`] placed by [`Affine3A`], through the [`query`] layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dim3;

impl Dim for Dim3 {
    type Shape = Shape;
    type Placement = Affine3A;
    type Vector = Vec3;
    type Bounds = Aabb3;
    type Manifold = PartManifold;
    type PairCache = PairCache;
    type RayHit = RayHit3;
    type CastHit = ShapeCastHit;

    fn bounds(shape: &Shape, placement: &Affine3A) -> Result<Aabb3, QueryError> {
        query::bounds(shape, placement)
    }

    fn swept(bounds: &Aabb3, displacement: Vec3) -> Aabb3 {
        Aabb3::new(bounds.min + displacement.min(Vec3::ZERO), bounds.max + displacement.max(Vec3::ZERO))
    }

    fn scaled(v: Vec3, s: f32) -> Vec3 {
        v * s
    }

    fn is_finite(v: Vec3) -> bool {
        v.is_finite()
    }

    fn point_bounds(p: Vec3) -> Aabb3 {
        Aabb3::new(p, p)
    }

    fn ray(origin: Vec3, dir: Vec3) -> Ray3 {
        Ray3::new(origin, dir)
    }

    fn center(bounds: &Aabb3) -> Vec3 {
        bounds.center()
    }

    fn grown_by(bounds: &Aabb3, by: &Aabb3) -> Aabb3 {
        let half = by.half_extents();
        Aabb3::new(bounds.min - half, bounds.max + half)
    }

    /// A local point's displacement `(new - old)(p)` is affine in `p`, so its length, a convex
    /// function, is largest at a corner of the shape's local box.
    fn displacement_bound(shape: &Shape, old: &Affine3A, new: &Affine3A) -> f32 {
        let Ok(local) = query::bounds(shape, &Affine3A::IDENTITY) else { return f32::INFINITY };
        let (linear, shift) = (new.matrix3 - old.matrix3, new.translation - old.translation);
        let (lo, hi) = (Vec3A::from(local.min), Vec3A::from(local.max));
        let mut largest = 0.0f32;
        for corner in 0..8 {
            let pick = |bit: usize| if corner & bit == 0 { 0.0 } else { 1.0 };
            let p = lo + (hi - lo) * Vec3A::new(pick(1), pick(2), pick(4));
            let moved = (linear * p + shift).length();
            // `f32::max` would drop a NaN.
            if moved.is_nan() {
                return f32::INFINITY;
            }
            largest = largest.max(moved);
        }
        largest
    }

    fn intersects(
        a: &Shape,
        a_to_world: &Affine3A,
        b: &Shape,
        b_to_world: &Affine3A,
        cache: &mut PairCache,
    ) -> Result<bool, QueryError> {
        query::intersects_cached(a, a_to_world, b, b_to_world, cache)
    }

    fn manifolds(
        a: &Shape,
        a_to_world: &Affine3A,
        b: &Shape,
        b_to_world: &Affine3A,
        prediction: f32,
        cache: &mut PairCache,
        out: &mut Vec<PartManifold>,
    ) -> Result<(), QueryError> {
        query::contact_manifolds_cached(a, a_to_world, b, b_to_world, prediction, cache, out)
    }

    fn distance(
        a: &Shape,
        a_to_world: &Affine3A,
        b: &Shape,
        b_to_world: &Affine3A,
    ) -> Result<f32, QueryError> {
        query::distance(a, a_to_world, b, b_to_world)
    }

    fn cast_ray(
        shape: &Shape,
        to_world: &Affine3A,
        ray: &Ray3,
        max_t: f32,
    ) -> Result<Option<RayHit3>, QueryError> {
        query::cast_ray(shape, to_world, ray, max_t)
    }

    fn ray_hit_t(hit: &RayHit3) -> f32 {
        hit.t
    }

    fn cast_shape(
        a: &Shape,
        a_to_world: &Affine3A,
        b: &Shape,
        b_to_world: &Affine3A,
        velocity: Vec3,
        max_t: f32,
    ) -> Result<Option<ShapeCastHit>, QueryError> {
        query::cast_shape(a, a_to_world, b, b_to_world, velocity, max_t)
    }

    fn cast_hit_t(hit: &ShapeCastHit) -> f32 {
        hit.t
    }

    fn contains_point(shape: &Shape, to_world: &Affine3A, p: Vec3) -> Result<bool, QueryError> {
        query::contains_point(shape, to_world, p)
    }

    fn box_shape(bounds: &Aabb3) -> (Shape, Affine3A) {
        let cuboid = ConvexShape::Cuboid(Cuboid::new(bounds.half_extents()));
        (Shape::Convex(cuboid), Affine3A::from_translation(bounds.center()))
    }
}

/// Two dimensions: [`Shape2`] placed by [`Affine2`], through the [`query`] layer's 2D queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dim2;

impl Dim for Dim2 {
    type Shape = Shape2;
    type Placement = Affine2;
    type Vector = Vec2;
    type Bounds = Aabb2;
    type Manifold = PartManifold2;
    type PairCache = PairCache2;
    type RayHit = RayHit2;
    type CastHit = ShapeCastHit2;

    fn bounds(shape: &Shape2, placement: &Affine2) -> Result<Aabb2, QueryError> {
        query::bounds2(shape, placement)
    }

    fn swept(bounds: &Aabb2, displacement: Vec2) -> Aabb2 {
        Aabb2::new(bounds.min + displacement.min(Vec2::ZERO), bounds.max + displacement.max(Vec2::ZERO))
    }

    fn scaled(v: Vec2, s: f32) -> Vec2 {
        v * s
    }

    fn is_finite(v: Vec2) -> bool {
        v.is_finite()
    }

    fn point_bounds(p: Vec2) -> Aabb2 {
        Aabb2::new(p, p)
    }

    fn ray(origin: Vec2, dir: Vec2) -> Ray2 {
        Ray2::new(origin, dir)
    }

    fn center(bounds: &Aabb2) -> Vec2 {
        bounds.center()
    }

    fn grown_by(bounds: &Aabb2, by: &Aabb2) -> Aabb2 {
        let half = by.half_extents();
        Aabb2::new(bounds.min - half, bounds.max + half)
    }

    /// As [`Dim3::displacement_bound`]: the largest displacement of a corner of the local box.
    fn displacement_bound(shape: &Shape2, old: &Affine2, new: &Affine2) -> f32 {
        let Ok(local) = query::bounds2(shape, &Affine2::IDENTITY) else { return f32::INFINITY };
        let (linear, shift) = (new.matrix2 - old.matrix2, new.translation - old.translation);
        let mut largest = 0.0f32;
        for corner in [local.min, Vec2::new(local.max.x, local.min.y), local.max, Vec2::new(local.min.x, local.max.y)] {
            let moved = (linear * corner + shift).length();
            if moved.is_nan() {
                return f32::INFINITY;
            }
            largest = largest.max(moved);
        }
        largest
    }

    fn intersects(
        a: &Shape2,
        a_to_world: &Affine2,
        b: &Shape2,
        b_to_world: &Affine2,
        cache: &mut PairCache2,
    ) -> Result<bool, QueryError> {
        query::intersects2_cached(a, a_to_world, b, b_to_world, cache)
    }

    fn manifolds(
        a: &Shape2,
        a_to_world: &Affine2,
        b: &Shape2,
        b_to_world: &Affine2,
        prediction: f32,
        cache: &mut PairCache2,
        out: &mut Vec<PartManifold2>,
    ) -> Result<(), QueryError> {
        query::contact_manifolds2_cached(a, a_to_world, b, b_to_world, prediction, cache, out)
    }

    fn distance(a: &Shape2, a_to_world: &Affine2, b: &Shape2, b_to_world: &Affine2) -> Result<f32, QueryError> {
        query::distance2(a, a_to_world, b, b_to_world)
    }

    fn cast_ray(shape: &Shape2, to_world: &Affine2, ray: &Ray2, max_t: f32) -> Result<Option<RayHit2>, QueryError> {
        query::cast_ray2(shape, to_world, ray, max_t)
    }

    fn ray_hit_t(hit: &RayHit2) -> f32 {
        hit.t
    }

    fn cast_shape(
        a: &Shape2,
        a_to_world: &Affine2,
        b: &Shape2,
        b_to_world: &Affine2,
        velocity: Vec2,
        max_t: f32,
    ) -> Result<Option<ShapeCastHit2>, QueryError> {
        query::cast_shape2(a, a_to_world, b, b_to_world, velocity, max_t)
    }

    fn cast_hit_t(hit: &ShapeCastHit2) -> f32 {
        hit.t
    }

    fn contains_point(shape: &Shape2, to_world: &Affine2, p: Vec2) -> Result<bool, QueryError> {
        query::contains_point2(shape, to_world, p)
    }

    fn box_shape(bounds: &Aabb2) -> (Shape2, Affine2) {
        let cuboid = ConvexShape2::Cuboid(Cuboid2::new(bounds.half_extents()));
        (Shape2::Convex(cuboid), Affine2::from_translation(bounds.center()))
    }
}
