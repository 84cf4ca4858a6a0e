use glam::Vec3;

/// The plane of points `x` with `normal · x = d`. `normal` is unit length.
///
/// The front (positive) side is the one `normal` points into.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane3 {
    pub normal: Vec3,
    pub d: f32,
}

/// Where a point or a volume lies relative to a plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaneSide {
    /// Entirely on the side the normal points into.
    Front,
    /// Entirely on the other side.
    Back,
    /// Touching or crossing the plane (for a point: on it, within the tolerance given).
    Intersecting,
}
