//! Convex shapes in 2D, the twins of the 3D shapes: plain structs with their support functions.

use glam::Vec2;

/// A convex set in the plane described by its support function.
pub trait SupportMap2 {
    /// A point of the set that is farthest along `dir` (`argmax_{x ∈ S} x·dir`; any one of them when
    /// several tie). `dir` need not be unit length; for a zero `dir` any point of the set.
    fn support(&self, dir: Vec2) -> Vec2;
}

impl<S: SupportMap2 + ?Sized> SupportMap2 for &S {
    #[inline(always)]
    fn support(&self, dir: Vec2) -> Vec2 {
        (**self).support(dir)
    }
}
