use glam::{Vec2, Vec3};

/// A 3D ray `origin + t * dir`. Queries take the parameter range `[0, max_t]` separately.
///
/// `dir` need not be unit length: `t` is measured in units of `dir`, so a segment from `a` to `b`
/// is the ray `(a, b - a)` with `max_t = 1`. A zero `dir` is allowed; every ray query documents
/// its answer for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray3 {
    pub origin: Vec3,
    pub dir: Vec3,
}

impl Ray3 {
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        Self { origin, dir }
    }

    /// The ray that covers the segment `a → b` for `t ∈ [0, 1]`.
    pub fn from_segment(a: Vec3, b: Vec3) -> Self {
        Self { origin: a, dir: b - a }
    }

    /// The point at parameter `t`.
    #[inline]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + t * self.dir
    }
}

/// A 2D ray `origin + t * dir`; see [`Ray3`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray2 {
    pub origin: Vec2,
    pub dir: Vec2,
}

impl Ray2 {
    pub fn new(origin: Vec2, dir: Vec2) -> Self {
        Self { origin, dir }
    }

    /// The ray that covers the segment `a → b` for `t ∈ [0, 1]`.
    pub fn from_segment(a: Vec2, b: Vec2) -> Self {
        Self { origin: a, dir: b - a }
    }

    #[inline]
    pub fn at(&self, t: f32) -> Vec2 {
        self.origin + t * self.dir
    }
}
