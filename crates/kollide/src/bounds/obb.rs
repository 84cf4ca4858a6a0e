use glam::{Mat3, Vec3};

/// An oriented box: `center + axes * u` for every `u` with `|u| <= half_extents` componentwise.
///
/// The columns of `axes` are the box's local x, y, z axes and must be orthonormal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obb3 {
    pub center: Vec3,
    pub axes: Mat3,
    pub half_extents: Vec3,
}

impl Obb3 {
    pub fn new(center: Vec3, axes: Mat3, half_extents: Vec3) -> Self {
        Self { center, axes, half_extents }
    }
}
