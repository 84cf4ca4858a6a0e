//! The closed convex-shape enum and affine placement through support mapping.

use glam::{Affine3A, Mat3A, Vec3, Vec3A};

use super::{
    Ball, Capsule, Cone, ConvexCore, ConvexHull, Cuboid, Cylinder, MassProperties, PointProjection, Rounded,
    SupportMap, Triangle,
};
use crate::bounds::Aabb3;

/// A convex shape under an affine map `x ↦ M x + t`, as a support map:
/// `support(d) = M · support_S(Mᵀ d) + t` (the maximiser of `d · (M x + t)` over `x ∈ S` is the
/// maximiser of `(Mᵀ d) · x`). Exact for every invertible or singular `M`.
#[derive(Clone, Copy, Debug)]
pub struct PlacedSupport<'a, S: ?Sized> {
    shape: &'a S,
    matrix: Mat3A,
    transpose: Mat3A,
    translation: Vec3A,
}

impl<'a, S: ?Sized> PlacedSupport<'a, S> {
    /// `shape` placed by `map`.
    #[inline]
    pub fn new(shape: &'a S, map: &Affine3A) -> Self {
        Self { shape, matrix: map.matrix3, transpose: map.matrix3.transpose(), translation: map.translation }
    }

    /// The placed shape.
    #[inline]
    pub fn shape(&self) -> &'a S {
        self.shape
    }
}

impl<S: SupportMap + ?Sized> SupportMap for PlacedSupport<'_, S> {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        self.shape.support_under(&self.matrix, &self.transpose, dir) + self.translation
    }
}

impl<S: SupportMap + ?Sized> SupportMap for &S {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        (**self).support(dir)
    }

    #[inline(always)]
    fn support_under(&self, m: &Mat3A, mt: &Mat3A, dir: Vec3A) -> Vec3A {
        (**self).support_under(m, mt, dir)
    }
}

/// The kind of a [`ConvexShape`], without its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    Ball,
    Capsule,
    Cuboid,
    Cylinder,
    Cone,
    Triangle,
    Hull,
    RoundedCuboid,
    RoundedCylinder,
    RoundedCone,
    RoundedTriangle,
    RoundedHull,
}

impl ShapeKind {
    /// Every kind, in declaration order.
    pub const ALL: [ShapeKind; 12] = [
        ShapeKind::Ball,
        ShapeKind::Capsule,
        ShapeKind::Cuboid,
        ShapeKind::Cylinder,
        ShapeKind::Cone,
        ShapeKind::Triangle,
        ShapeKind::Hull,
        ShapeKind::RoundedCuboid,
        ShapeKind::RoundedCylinder,
        ShapeKind::RoundedCone,
        ShapeKind::RoundedTriangle,
        ShapeKind::RoundedHull,
    ];
}

/// Every convex shape kollide knows, as one closed enum: pair queries in [`crate::narrow`] are a
/// `match` over it.
#[derive(Clone, Debug, PartialEq)]
pub enum ConvexShape {
    Ball(Ball),
    Capsule(Capsule),
    Cuboid(Cuboid),
    Cylinder(Cylinder),
    Cone(Cone),
    Triangle(Triangle),
    Hull(ConvexHull),
    RoundedCuboid(Rounded<Cuboid>),
    RoundedCylinder(Rounded<Cylinder>),
    RoundedCone(Rounded<Cone>),
    RoundedTriangle(Rounded<Triangle>),
    RoundedHull(Rounded<ConvexHull>),
}

/// Applies `$body` to the shape inside every variant of `$self`, bound as `$s`.
macro_rules! each {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            ConvexShape::Ball($s) => $body,
            ConvexShape::Capsule($s) => $body,
            ConvexShape::Cuboid($s) => $body,
            ConvexShape::Cylinder($s) => $body,
            ConvexShape::Cone($s) => $body,
            ConvexShape::Triangle($s) => $body,
            ConvexShape::Hull($s) => $body,
            ConvexShape::RoundedCuboid($s) => $body,
            ConvexShape::RoundedCylinder($s) => $body,
            ConvexShape::RoundedCone($s) => $body,
            ConvexShape::RoundedTriangle($s) => $body,
            ConvexShape::RoundedHull($s) => $body,
        }
    };
}

impl ConvexShape {
    /// The shape's kind.
    pub fn kind(&self) -> ShapeKind {
        match self {
            ConvexShape::Ball(_) => ShapeKind::Ball,
            ConvexShape::Capsule(_) => ShapeKind::Capsule,
            ConvexShape::Cuboid(_) => ShapeKind::Cuboid,
            ConvexShape::Cylinder(_) => ShapeKind::Cylinder,
            ConvexShape::Cone(_) => ShapeKind::Cone,
            ConvexShape::Triangle(_) => ShapeKind::Triangle,
            ConvexShape::Hull(_) => ShapeKind::Hull,
            ConvexShape::RoundedCuboid(_) => ShapeKind::RoundedCuboid,
            ConvexShape::RoundedCylinder(_) => ShapeKind::RoundedCylinder,
            ConvexShape::RoundedCone(_) => ShapeKind::RoundedCone,
            ConvexShape::RoundedTriangle(_) => ShapeKind::RoundedTriangle,
            ConvexShape::RoundedHull(_) => ShapeKind::RoundedHull,
        }
    }

    /// Whether every parameter is finite and non-negative (a hull is valid by construction).
    pub fn is_valid(&self) -> bool {
        // Finite and non-negative (NaN fails both comparisons).
        let ok = |x: f32| (0.0..f32::INFINITY).contains(&x);
        let tri_ok = |t: &Triangle| t.points.iter().all(|p| p.is_finite());
        match self {
            ConvexShape::Ball(s) => ok(s.radius),
            ConvexShape::Capsule(s) => ok(s.radius) && ok(s.half_height),
            ConvexShape::Cuboid(s) => {
                let h = Vec3A::from(s.half_extents);
                (h.cmpge(Vec3A::ZERO) & h.cmplt(Vec3A::INFINITY)).all()
            }
            ConvexShape::Cylinder(s) => ok(s.radius) && ok(s.half_height),
            ConvexShape::Cone(s) => ok(s.radius) && ok(s.half_height),
            ConvexShape::Triangle(s) => tri_ok(s),
            ConvexShape::Hull(_) => true,
            ConvexShape::RoundedCuboid(s) => {
                ok(s.radius) && s.inner.half_extents.to_array().into_iter().all(ok)
            }
            ConvexShape::RoundedCylinder(s) => ok(s.radius) && ok(s.inner.radius) && ok(s.inner.half_height),
            ConvexShape::RoundedCone(s) => ok(s.radius) && ok(s.inner.radius) && ok(s.inner.half_height),
            ConvexShape::RoundedTriangle(s) => ok(s.radius) && tri_ok(&s.inner),
            ConvexShape::RoundedHull(s) => ok(s.radius),
        }
    }

    /// The radius of the ball the shape is a Minkowski sum with: the ball's and the capsule's
    /// radius, a rounded shape's rounding radius, 0 for the others.
    #[inline]
    pub fn margin(&self) -> f32 {
        match self {
            ConvexShape::Ball(s) => s.radius,
            ConvexShape::Capsule(s) => s.radius,
            ConvexShape::RoundedCuboid(s) => s.radius,
            ConvexShape::RoundedCylinder(s) => s.radius,
            ConvexShape::RoundedCone(s) => s.radius,
            ConvexShape::RoundedTriangle(s) => s.radius,
            ConvexShape::RoundedHull(s) => s.radius,
            _ => 0.0,
        }
    }

    /// The support point of the core (the shape without its [`Self::margin`]): the centre of a
    /// ball, the segment of a capsule, the inner shape of a rounded one, the shape itself
    /// otherwise. `support(d) = core_support(d) + margin · d / |d|`.
    #[inline]
    pub fn core_support(&self, dir: Vec3A) -> Vec3A {
        match self {
            ConvexShape::Ball(_) => Vec3A::ZERO,
            ConvexShape::Capsule(s) => s.core_support(dir),
            ConvexShape::Cuboid(s) => s.support(dir),
            ConvexShape::Cylinder(s) => s.support(dir),
            ConvexShape::Cone(s) => s.support(dir),
            ConvexShape::Triangle(s) => s.support(dir),
            ConvexShape::Hull(s) => s.support(dir),
            ConvexShape::RoundedCuboid(s) => s.inner.support(dir),
            ConvexShape::RoundedCylinder(s) => s.inner.support(dir),
            ConvexShape::RoundedCone(s) => s.inner.support(dir),
            ConvexShape::RoundedTriangle(s) => s.inner.support(dir),
            ConvexShape::RoundedHull(s) => s.inner.support(dir),
        }
    }

    /// The core as a support map (see [`Self::core_support`]).
    #[inline]
    pub fn core(&self) -> Core<'_> {
        Core(self)
    }

    /// The bounding box in the shape's local frame.
    pub fn local_aabb(&self) -> Aabb3 {
        each!(self, s => s.local_aabb())
    }

    /// The exact bounding box of the shape placed by `map`.
    pub fn aabb(&self, map: &Affine3A) -> Aabb3 {
        each!(self, s => s.aabb(map))
    }

    /// The point of the solid shape closest to `p`, in the shape's local frame.
    pub fn project_point(&self, p: Vec3) -> PointProjection {
        each!(self, s => s.project_point(p))
    }

    /// Mass properties at unit density, or `None` for rounded cones, triangles and hulls (not
    /// provided yet).
    pub fn mass_properties(&self) -> Option<MassProperties> {
        match self {
            ConvexShape::Ball(s) => Some(s.mass_properties()),
            ConvexShape::Capsule(s) => Some(s.mass_properties()),
            ConvexShape::Cuboid(s) => Some(s.mass_properties()),
            ConvexShape::Cylinder(s) => Some(s.mass_properties()),
            ConvexShape::Cone(s) => Some(s.mass_properties()),
            ConvexShape::Triangle(s) => Some(s.mass_properties()),
            ConvexShape::Hull(s) => Some(s.mass_properties()),
            ConvexShape::RoundedCuboid(s) => Some(s.mass_properties()),
            ConvexShape::RoundedCylinder(s) => Some(s.mass_properties()),
            _ => None,
        }
    }
}

impl SupportMap for ConvexShape {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        each!(self, s => s.support(dir))
    }
}

/// The core of a [`ConvexShape`] (the shape without its margin) as a support map.
#[derive(Clone, Copy, Debug)]
pub struct Core<'a>(&'a ConvexShape);

impl SupportMap for Core<'_> {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        self.0.core_support(dir)
    }
}

macro_rules! from_shape {
    ($($ty:ty => $variant:ident),* $(,)?) => {
        $(impl From<$ty> for ConvexShape {
            fn from(s: $ty) -> Self {
                ConvexShape::$variant(s)
            }
        })*
    };
}

from_shape!(
    Ball => Ball,
    Capsule => Capsule,
    Cuboid => Cuboid,
    Cylinder => Cylinder,
    Cone => Cone,
    Triangle => Triangle,
    ConvexHull => Hull,
    Rounded<Cuboid> => RoundedCuboid,
    Rounded<Cylinder> => RoundedCylinder,
    Rounded<Cone> => RoundedCone,
    Rounded<Triangle> => RoundedTriangle,
    Rounded<ConvexHull> => RoundedHull,
);

/// The closed-form local queries of the basic shapes as a trait, for [`Rounded`].
macro_rules! core_impl {
    ($($ty:ty),*) => {
        $(impl ConvexCore for $ty {
            #[inline]
            fn local_aabb(&self) -> Aabb3 {
                <$ty>::local_aabb(self)
            }

            #[inline]
            fn aabb(&self, map: &Affine3A) -> Aabb3 {
                <$ty>::aabb(self, map)
            }

            #[inline]
            fn project_point(&self, p: Vec3) -> PointProjection {
                <$ty>::project_point(self, p)
            }
        })*
    };
}

core_impl!(Ball, Capsule, Cuboid, Cylinder, Cone, Triangle, ConvexHull);
