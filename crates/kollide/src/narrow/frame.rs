//! The frame a pair query runs in, and each shape placed in it as a support map.

use glam::{Affine3A, Mat3A, Vec3, Vec3A};

use super::types::{Contact, NarrowError};
use crate::math::{is_rigid, is_similarity, map_normal};
use crate::shape::{ConvexShape, SupportMap};

/// The frame a pair query runs in: `world = rotation · x + origin`.
#[derive(Clone, Copy)]
pub(crate) struct Frame {
    rotation: Option<Mat3A>,
    origin: Vec3A,
}

impl Frame {
    /// A point of the frame in world space.
    #[inline]
    pub fn point(&self, p: Vec3A) -> Vec3 {
        match self.rotation {
            Some(r) => (r * p + self.origin).into(),
            None => (p + self.origin).into(),
        }
    }

    /// A vector of the frame in world space.
    #[inline]
    pub fn vector(&self, v: Vec3A) -> Vec3 {
        match self.rotation {
            Some(r) => (r * v).into(),
            None => v.into(),
        }
    }
}

/// One shape placed in the query frame, as a support map of its core (when the placement is a
/// similarity) or of the whole shape (margin 0).
#[derive(Clone, Copy)]
pub(crate) struct Side<'a> {
    pub shape: &'a ConvexShape,
    /// `None`: the identity.
    pub matrix: Option<(Mat3A, Mat3A)>,
    pub translation: Vec3A,
    /// The margin in the frame, or 0 when the whole shape is the support map.
    pub margin: f32,
    /// The uniform scale of the placement, if it is a similarity.
    pub scale: Option<f32>,
}

impl Side<'_> {
    #[inline]
    fn local_support(&self, d: Vec3A) -> Vec3A {
        if self.margin > 0.0 { self.shape.core_support(d) } else { self.shape.support(d) }
    }

    /// Maps a local point into the frame.
    #[inline]
    pub fn place(&self, p: Vec3A) -> Vec3A {
        match self.matrix {
            Some((m, _)) => m * p + self.translation,
            None => p + self.translation,
        }
    }

    /// A frame direction in the shape's local frame, for support queries (`Mᵀ d`).
    #[inline]
    pub fn dir_to_local(&self, d: Vec3A) -> Vec3A {
        match self.matrix {
            Some((_, mt)) => mt * d,
            None => d,
        }
    }

    /// A local face normal in the frame (inverse transpose, normalised).
    #[inline]
    pub fn normal_to_frame(&self, n: Vec3A) -> Vec3A {
        match self.matrix {
            // Under a similarity s R, (M⁻¹)ᵀ = M / s².
            Some((m, _)) if self.scale.is_some() => (m * n).normalize_or_zero(),
            Some((m, _)) => map_normal(&m, n),
            None => n,
        }
    }
}

impl SupportMap for Side<'_> {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        match self.matrix {
            Some((m, mt)) => m * self.local_support(mt * dir) + self.translation,
            None => self.local_support(dir) + self.translation,
        }
    }
}

/// A side whose shape has no margin and whose kind is known: its support without the dispatch
/// over shape kinds, so that GJK and EPA are compiled for the pair (see [`with_support_maps`]).
#[derive(Clone, Copy)]
pub(crate) struct Typed<'a, S> {
    pub side: &'a Side<'a>,
    pub shape: &'a S,
}

impl<S: SupportMap> SupportMap for Typed<'_, S> {
    #[inline(always)]
    fn support(&self, dir: Vec3A) -> Vec3A {
        match self.side.matrix {
            Some((m, mt)) => self.shape.support_under(&m, &mt, dir) + self.side.translation,
            None => self.shape.support(dir) + self.side.translation,
        }
    }
}

/// Evaluates `$body` with `$x` and `$y` bound to support maps of the sides `$a` and `$b`: typed
/// ([`Typed`]) for the common pairs of shapes without margin, the sides themselves otherwise.
macro_rules! with_support_maps {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {{
        use $crate::narrow::frame::{Side, Typed};
        use $crate::shape::ConvexShape as S;
        let (a, b): (&Side, &Side) = ($a, $b);
        match (a.shape, b.shape) {
            (S::Cuboid(p), S::Cuboid(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            (S::Cuboid(p), S::Triangle(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            (S::Triangle(p), S::Cuboid(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            (S::Cylinder(p), S::Cylinder(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            (S::Hull(p), S::Hull(q)) => {
                let ($x, $y) = (&Typed { side: a, shape: p }, &Typed { side: b, shape: q });
                $body
            }
            _ => {
                let ($x, $y) = (a, b);
                $body
            }
        }
    }};
}
pub(crate) use with_support_maps;

/// Whether every component of the placement is finite.
pub(crate) fn finite(map: &Affine3A) -> bool {
    map.matrix3.is_finite() && map.translation.is_finite()
}

/// The input of a pair query, checked: both shapes valid ([`ConvexShape::is_valid`]) and both
/// placements finite. The closed forms for balls and capsules run before it is built (they screen
/// their own input, see `closed_form.rs`); everything past them starts from it.
#[derive(Clone, Copy)]
pub(crate) struct PairInput<'a> {
    a: &'a ConvexShape,
    a_to_world: &'a Affine3A,
    b: &'a ConvexShape,
    b_to_world: &'a Affine3A,
}

impl<'a> PairInput<'a> {
    /// The pair, or why it is refused: [`NarrowError::InvalidShape`] for the first invalid shape,
    /// else [`NarrowError::NonFinite`] for a non-finite placement.
    #[inline(always)]
    pub fn new(
        a: &'a ConvexShape,
        a_to_world: &'a Affine3A,
        b: &'a ConvexShape,
        b_to_world: &'a Affine3A,
    ) -> Result<Self, NarrowError> {
        if !a.is_valid() {
            return Err(NarrowError::InvalidShape(0));
        }
        if !b.is_valid() {
            return Err(NarrowError::InvalidShape(1));
        }
        if !finite(a_to_world) || !finite(b_to_world) {
            return Err(NarrowError::NonFinite);
        }
        Ok(Self { a, a_to_world, b, b_to_world })
    }
}

/// The query frame of the pair and both sides in it (inlined, so that the sides are built in
/// place).
#[inline(always)]
pub(crate) fn setup<'a>(pair: &PairInput<'a>) -> (Frame, Side<'a>, Side<'a>) {
    let PairInput { a, a_to_world, b, b_to_world } = *pair;
    let side = |shape: &'a ConvexShape, m: Mat3A, t: Vec3A, identity: bool| {
        let scale =
            if identity { Some(1.0) } else { is_similarity(&Affine3A { matrix3: m, translation: t }) };
        Side {
            shape,
            matrix: (!identity).then(|| (m, m.transpose())),
            translation: t,
            margin: scale.map_or(0.0, |s| shape.margin() * s),
            scale,
        }
    };
    let delta = b_to_world.translation - a_to_world.translation;
    if is_rigid(&a_to_world.matrix3) {
        let rt = a_to_world.matrix3.transpose();
        let frame = Frame { rotation: Some(a_to_world.matrix3), origin: a_to_world.translation };
        (
            frame,
            side(a, Mat3A::IDENTITY, Vec3A::ZERO, true),
            side(b, rt * b_to_world.matrix3, rt * delta, false),
        )
    } else {
        let frame = Frame { rotation: None, origin: a_to_world.translation };
        (frame, side(a, a_to_world.matrix3, Vec3A::ZERO, false), side(b, b_to_world.matrix3, delta, false))
    }
}

/// A contact in the query frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameContact {
    pub point_a: Vec3A,
    pub point_b: Vec3A,
    pub normal: Vec3A,
    pub separation: f32,
}

impl FrameContact {
    /// The same contact seen from the other shape.
    pub fn swapped(self) -> Self {
        Self {
            point_a: self.point_b,
            point_b: self.point_a,
            normal: -self.normal,
            separation: self.separation,
        }
    }

    /// The contact as is (its frame is the world).
    #[inline]
    pub fn world(self) -> Contact {
        Contact {
            point_a: self.point_a.into(),
            point_b: self.point_b.into(),
            normal: self.normal.into(),
            separation: self.separation,
            part_a: 0,
            part_b: 0,
        }
    }

    pub fn to_world(self, frame: &Frame) -> Contact {
        Contact {
            point_a: frame.point(self.point_a),
            point_b: frame.point(self.point_b),
            normal: frame.vector(self.normal),
            separation: self.separation,
            part_a: 0,
            part_b: 0,
        }
    }
}
