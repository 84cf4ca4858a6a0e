//! [`ConvexShape2`]: every 2D convex shape as one closed enum.

use glam::{Affine2, Vec2};

use super::{
    Ball2, Capsule2, ConvexPolygon2, Cuboid2, MassProperties2, PointProjection2, Segment2, SupportMap2,
    Triangle2,
};
use crate::bounds::Aabb2;
use crate::math::Ray2;
use crate::primitive::d2::RayHit2;

/// The kind of a [`ConvexShape2`], without its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind2 {
    Ball,
    Capsule,
    Cuboid,
    Segment,
    Triangle,
    Polygon,
}

impl ShapeKind2 {
    /// Every kind, in declaration order.
    pub const ALL: [ShapeKind2; 6] = [
        ShapeKind2::Ball,
        ShapeKind2::Capsule,
        ShapeKind2::Cuboid,
        ShapeKind2::Segment,
        ShapeKind2::Triangle,
        ShapeKind2::Polygon,
    ];
}

/// Every 2D convex shape, as one closed enum: the 2D pair queries in [`crate::narrow`] are a
/// `match` over it.
///
/// Each shape is a *core* (a point, a segment or a polygon) plus a disc of [`margin`](Self::margin)
/// radius (Box2D's rounded polygons): balls, capsules and rounded polygons have a margin, boxes,
/// segments and sharp polygons none.
#[derive(Clone, Debug, PartialEq)]
pub enum ConvexShape2 {
    Ball(Ball2),
    Capsule(Capsule2),
    Cuboid(Cuboid2),
    Segment(Segment2),
    Triangle(Triangle2),
    Polygon(ConvexPolygon2),
}

/// Applies `$body` to the shape inside every variant of `$self`, bound as `$s`.
macro_rules! each {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            ConvexShape2::Ball($s) => $body,
            ConvexShape2::Capsule($s) => $body,
            ConvexShape2::Cuboid($s) => $body,
            ConvexShape2::Segment($s) => $body,
            ConvexShape2::Triangle($s) => $body,
            ConvexShape2::Polygon($s) => $body,
        }
    };
}

impl ConvexShape2 {
    /// The shape's kind.
    pub fn kind(&self) -> ShapeKind2 {
        match self {
            ConvexShape2::Ball(_) => ShapeKind2::Ball,
            ConvexShape2::Capsule(_) => ShapeKind2::Capsule,
            ConvexShape2::Cuboid(_) => ShapeKind2::Cuboid,
            ConvexShape2::Segment(_) => ShapeKind2::Segment,
            ConvexShape2::Triangle(_) => ShapeKind2::Triangle,
            ConvexShape2::Polygon(_) => ShapeKind2::Polygon,
        }
    }

    /// Whether every parameter is finite and every size non-negative (polygons are checked when
    /// built).
    #[inline]
    pub fn is_valid(&self) -> bool {
        let size = |x: f32| x.is_finite() && x >= 0.0;
        match self {
            ConvexShape2::Ball(s) => size(s.radius),
            ConvexShape2::Capsule(s) => size(s.half_height) && size(s.radius),
            ConvexShape2::Cuboid(s) => size(s.half_extents.x) && size(s.half_extents.y),
            ConvexShape2::Segment(s) => s.a.is_finite() && s.b.is_finite(),
            ConvexShape2::Triangle(s) => s.a.is_finite() && s.b.is_finite() && s.c.is_finite(),
            ConvexShape2::Polygon(_) => true,
        }
    }

    /// The radius of the disc added to the core.
    #[inline]
    pub fn margin(&self) -> f32 {
        match self {
            ConvexShape2::Ball(s) => s.radius,
            ConvexShape2::Capsule(s) => s.radius,
            ConvexShape2::Polygon(s) => s.radius(),
            ConvexShape2::Cuboid(_) | ConvexShape2::Segment(_) | ConvexShape2::Triangle(_) => 0.0,
        }
    }

    /// The core's vertices (1 for a ball, 2 for a capsule or segment, the polygon's for the
    /// rest), counter-clockwise for polygons (a degenerate triangle's are collinear), written into `out`; returns how many. `None` when
    /// `out` is too short (a polygon with more vertices than `out` holds).
    #[inline]
    pub fn core_vertices(&self, out: &mut [Vec2]) -> Option<usize> {
        let write = |out: &mut [Vec2], v: &[Vec2]| {
            out.get_mut(..v.len())?.copy_from_slice(v);
            Some(v.len())
        };
        match self {
            ConvexShape2::Ball(_) => write(out, &[Vec2::ZERO]),
            ConvexShape2::Capsule(s) => write(out, &s.segment()),
            ConvexShape2::Cuboid(s) => write(out, &s.vertices()),
            ConvexShape2::Segment(s) => write(out, &[s.a, s.b]),
            ConvexShape2::Triangle(s) => write(out, &s.vertices()),
            ConvexShape2::Polygon(s) => write(out, s.vertices()),
        }
    }

    /// The support of the core (the shape without its margin).
    #[inline]
    pub fn core_support(&self, dir: Vec2) -> Vec2 {
        match self {
            ConvexShape2::Ball(_) => Vec2::ZERO,
            ConvexShape2::Capsule(s) => {
                Vec2::new(0.0, if dir.y >= 0.0 { s.half_height } else { -s.half_height })
            }
            ConvexShape2::Cuboid(s) => s.support(dir),
            ConvexShape2::Segment(s) => s.support(dir),
            ConvexShape2::Triangle(s) => s.support(dir),
            ConvexShape2::Polygon(s) => s.vertices()[s.support_index(dir)],
        }
    }

    /// The box in the local frame.
    pub fn local_aabb(&self) -> Aabb2 {
        each!(self, s => s.local_aabb())
    }

    /// The exact box of the shape under `map` (a scaled ball is an exact ellipse).
    pub fn aabb(&self, map: &Affine2) -> Aabb2 {
        self.aabb_under(map)
    }

    /// The first hit of a ray (local frame) with the solid shape.
    pub fn cast_ray(&self, ray: &Ray2, max_t: f32) -> Option<RayHit2> {
        each!(self, s => s.cast_ray(ray, max_t))
    }

    /// The point of the solid shape closest to `p` (local frame).
    pub fn project_point(&self, p: Vec2) -> PointProjection2 {
        each!(self, s => s.project_point(p))
    }

    /// Mass properties at unit density in the local frame; `None` for shapes of zero area
    /// (segments, zero sizes).
    pub fn mass_properties(&self) -> Option<MassProperties2> {
        match self {
            ConvexShape2::Ball(s) => s.mass_properties(),
            ConvexShape2::Capsule(s) => s.mass_properties(),
            ConvexShape2::Cuboid(s) => s.mass_properties(),
            ConvexShape2::Segment(_) => None,
            ConvexShape2::Triangle(s) => s.mass_properties(),
            ConvexShape2::Polygon(s) => s.mass_properties(),
        }
    }
}

impl SupportMap2 for ConvexShape2 {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        each!(self, s => s.support(dir))
    }
}
