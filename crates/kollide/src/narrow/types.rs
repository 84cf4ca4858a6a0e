//! The public result and error types of the pair queries.

use glam::Vec3;

/// Why a narrow-phase query was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowError {
    /// A shape parameter is negative or not finite (see
    /// [`ConvexShape::is_valid`](crate::shape::ConvexShape::is_valid)); `0` for the first shape,
    /// `1` for the second.
    InvalidShape(u8),
    /// A placement (or the query point or ray) has a NaN or infinite component.
    NonFinite,
}

impl std::fmt::Display for NarrowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NarrowError::InvalidShape(i) => write!(f, "shape {i} has a negative or non-finite parameter"),
            NarrowError::NonFinite => write!(f, "non-finite placement or query input"),
        }
    }
}

impl std::error::Error for NarrowError {}

/// A contact between two shapes: the closest points when apart, the deepest points when
/// penetrating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// The point of A (world space).
    pub point_a: Vec3,
    /// The point of B (world space).
    pub point_b: Vec3,
    /// Unit normal from A to B.
    pub normal: Vec3,
    /// Signed distance: positive apart, negative penetrating (`point_b - point_a = separation ·
    /// normal` up to rounding).
    pub separation: f32,
    /// The part of A the contact lies on: a triangle id for a mesh, a child index for a compound,
    /// a ball index for a sphere set; 0 for a convex shape.
    pub part_a: u32,
    /// The part of B the contact lies on: a triangle id for a mesh, a child index for a compound,
    /// a ball index for a sphere set; 0 for a convex shape.
    pub part_b: u32,
}

/// Where a moving shape first touches another: the time of impact and the contact then.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastHit {
    /// The time of impact, in `[0, max_t]`, in units of the velocity.
    pub t: f32,
    /// The contact at time `t` (B moved by `t · velocity`); `separation` is within the cast's
    /// tolerance of zero, or negative when the shapes already overlap at `t = 0`.
    pub contact: Contact,
}
