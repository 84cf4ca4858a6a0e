//! Mass properties (unit density) and their accumulation over tetrahedra.

use glam::{DMat3, DVec3, Mat3, Vec3};

/// Mass properties of a solid of unit density: mass equals `volume`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Volume (= mass at unit density).
    pub volume: f32,
    /// Centre of mass in the shape's local frame.
    pub center: Vec3,
    /// Inertia tensor about `center`, in the shape's local frame axes.
    pub inertia: Mat3,
}

/// Sums volume, first and second moments of tetrahedra `(o, a, b, c)` in `f64`.
///
/// For a tetrahedron with one vertex at the origin and edge vectors `a, b, c` (`d = det[a b c]`, six
/// times its signed volume), `∫ x dV = d/24 (a + b + c)` and
/// `∫ x xᵀ dV = d/120 (a aᵀ + b bᵀ + c cᵀ + s sᵀ)` with `s = a + b + c` (the canonical
/// tetrahedron's covariance mapped by `[a b c]`; see Blow and Binstock, "How to find the inertia
/// tensor (or other mass properties) of a 3D solid body represented by a triangle mesh", 2004).
/// Signed volumes let a closed, outward-wound surface be summed against any origin.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MomentSum {
    six_volume: f64,
    first: DVec3,
    second: DMat3,
}

impl Default for MomentSum {
    /// Nothing summed (note that glam's `DMat3::default()` is the identity, not zero).
    fn default() -> Self {
        Self { six_volume: 0.0, first: DVec3::ZERO, second: DMat3::ZERO }
    }
}

impl MomentSum {
    /// Adds the tetrahedron `(origin, a, b, c)`, signed by the orientation of `a, b, c`.
    pub(crate) fn add_tetrahedron(&mut self, a: DVec3, b: DVec3, c: DVec3) {
        let d = a.dot(b.cross(c));
        let s = a + b + c;
        let outer = |v: DVec3| DMat3::from_cols(v * v.x, v * v.y, v * v.z);
        self.six_volume += d;
        self.first += s * (d / 24.0);
        self.second += (outer(a) + outer(b) + outer(c) + outer(s)) * (d / 120.0);
    }

    /// The mass properties of the summed solid, with points relative to `origin`; a solid of zero
    /// volume has its centre at `origin` and zero inertia.
    pub(crate) fn finish(&self, origin: DVec3) -> MassProperties {
        let volume = self.six_volume / 6.0;
        if !(volume.abs() > 0.0) {
            return MassProperties { volume: 0.0, center: origin.as_vec3(), inertia: Mat3::ZERO };
        }
        let center = self.first / volume;
        // Second moment about the centroid (parallel-axis theorem), then I = tr(C) 1 − C.
        let c =
            self.second - DMat3::from_cols(center * center.x, center * center.y, center * center.z) * volume;
        let inertia = DMat3::from_diagonal(DVec3::splat(c.x_axis.x + c.y_axis.y + c.z_axis.z)) - c;
        MassProperties {
            volume: volume as f32,
            center: (center + origin).as_vec3(),
            inertia: inertia.as_mat3(),
        }
    }
}
