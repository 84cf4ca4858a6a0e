//! Rounded shapes: a core shape plus a ball (Minkowski sum).

use glam::{Affine3A, Mat3, Vec3, Vec3A};

use super::basic::row_norms;
use super::{ConvexCore, Cuboid, Cylinder, MassProperties, PointProjection, SupportMap};
use crate::bounds::Aabb3;

/// Every point within `radius` of the solid `inner` shape: `inner ⊕ ball(radius)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rounded<S> {
    /// The core shape.
    pub inner: S,
    /// The rounding radius (≥ 0).
    pub radius: f32,
}

impl<S: ConvexCore> Rounded<S> {
    /// The shape with these parameters (unchecked; see `ConvexShape::is_valid`).
    pub fn new(inner: S, radius: f32) -> Self {
        Self { inner, radius }
    }

    /// The bounding box in the shape's local frame.
    pub fn local_aabb(&self) -> Aabb3 {
        self.inner.local_aabb().expanded(self.radius)
    }

    /// Exact: the inner shape's box under `map` grown by the mapped ball's extents
    /// `radius · |row i of M|` (the box of a Minkowski sum is the sum of the boxes).
    pub fn aabb(&self, map: &Affine3A) -> Aabb3 {
        let b = self.inner.aabb(map);
        let e = Vec3::from(row_norms(map) * self.radius);
        Aabb3::new(b.min - e, b.max + e)
    }

    /// The inner shape's closest point `q`, pushed `radius` towards `p`: the closest point of the
    /// sum is `q + radius (p - q) / |p - q|` when `|p - q| > radius`, and `p` itself otherwise.
    pub fn project_point(&self, p: Vec3) -> PointProjection {
        let q = self.inner.project_point(p).point;
        let d = p - q;
        let len2 = d.length_squared();
        if len2 <= self.radius * self.radius {
            PointProjection::inside(p)
        } else {
            PointProjection { point: q + d * (self.radius / len2.sqrt()), inside: false }
        }
    }
}

impl<S: SupportMap> SupportMap for Rounded<S> {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        self.inner.support(dir) + dir.normalize_or_zero() * self.radius
    }
}

impl Rounded<Cuboid> {
    /// Exact, by decomposition into the core box, six slabs on its faces, twelve quarter
    /// cylinders along its edges and eight ball octants at its corners (the Steiner decomposition
    /// of a box plus a ball). Every piece's second moments follow from a quarter disc's area
    /// `π r²/4`, first moment `r³/3` and second moment `π r⁴/16` about an edge, and a ball
    /// octant's volume `π r³/6`, first moment `π r⁴/16` and second moment `π r⁵/30` about a face.
    pub fn mass_properties(&self) -> MassProperties {
        let h = self.inner.half_extents.as_dvec3();
        let r = self.radius as f64;
        let pi = std::f64::consts::PI;
        let (disc, disc1, disc2) = (pi * r * r / 4.0, r * r * r / 3.0, pi * r.powi(4) / 16.0);
        let (oct, oct1, oct2) = (pi * r.powi(3) / 6.0, pi * r.powi(4) / 16.0, pi * r.powi(5) / 30.0);
        // ∫ x² dV over the whole shape, where `p` is the half extent along x and `q`, `s` the
        // other two.
        let second = |p: f64, q: f64, s: f64| {
            let slab_along = ((p + r).powi(3) - p.powi(3)) / 3.0 * 4.0 * q * s;
            let slabs_across = 2.0 * (2.0 * p.powi(3) / 3.0) * r * 2.0 * (q + s);
            let edges_along = 4.0 * (2.0 * p.powi(3) / 3.0) * disc;
            let offset_disc = p * p * disc + 2.0 * p * disc1 + disc2;
            let edges_across = 4.0 * 2.0 * (q + s) * offset_disc;
            let corners = 8.0 * (p * p * oct + 2.0 * p * oct1 + oct2);
            8.0 * p * q * s * p * p / 3.0
                + 2.0 * slab_along
                + slabs_across
                + edges_along
                + edges_across
                + corners
        };
        let (sx, sy, sz) = (second(h.x, h.y, h.z), second(h.y, h.x, h.z), second(h.z, h.x, h.y));
        let volume = 8.0 * h.x * h.y * h.z
            + 8.0 * r * (h.x * h.y + h.y * h.z + h.z * h.x)
            + 2.0 * pi * r * r * (h.x + h.y + h.z)
            + 4.0 / 3.0 * pi * r.powi(3);
        MassProperties {
            volume: volume as f32,
            center: Vec3::ZERO,
            inertia: Mat3::from_diagonal(Vec3::new((sy + sz) as f32, (sx + sz) as f32, (sx + sy) as f32)),
        }
    }
}

impl Rounded<Cylinder> {
    /// Exact, as a solid of revolution about `y`: its half-plane section is the rectangle
    /// `[0, R] × [-h, h]` grown by `ρ` (two rectangles and two quarter discs). With `A` that
    /// section, `V = 2π ∫ r dA`, `I_y = 2π ∫ r³ dA` and `I_x = I_z = 2π ∫ r y² dA + π ∫ r³ dA`;
    /// the quarter discs use their polar moments `∫ uᵃ vᵇ` (`u, v ≥ 0`, `u² + v² ≤ ρ²`).
    pub fn mass_properties(&self) -> MassProperties {
        let (big_r, h, rho) = (self.inner.radius as f64, self.inner.half_height as f64, self.radius as f64);
        let pi = std::f64::consts::PI;
        // (∫ r dA, ∫ r³ dA, ∫ r y² dA) over the section.
        let outer = big_r + rho;
        let mut m = [
            outer * outer / 2.0 * 2.0 * h,
            outer.powi(4) / 4.0 * 2.0 * h,
            outer * outer / 2.0 * 2.0 * h.powi(3) / 3.0,
        ];
        // The two caps [0, R] × ±[h, h + ρ].
        let cap_y2 = ((h + rho).powi(3) - h.powi(3)) / 3.0;
        m[0] += 2.0 * big_r * big_r / 2.0 * rho;
        m[1] += 2.0 * big_r.powi(4) / 4.0 * rho;
        m[2] += 2.0 * big_r * big_r / 2.0 * cap_y2;
        // The two quarter discs at (R, ±h): moments of u = r - R, v = |y| - h.
        let (m00, m10, m20, m11) =
            (pi * rho * rho / 4.0, rho.powi(3) / 3.0, pi * rho.powi(4) / 16.0, rho.powi(4) / 8.0);
        let (m30, m21) = (2.0 * rho.powi(5) / 15.0, rho.powi(5) / 15.0);
        let (m01, m02, m12) = (m10, m20, m21);
        m[0] += 2.0 * (big_r * m00 + m10);
        m[1] += 2.0 * (big_r.powi(3) * m00 + 3.0 * big_r * big_r * m10 + 3.0 * big_r * m20 + m30);
        m[2] += 2.0
            * (big_r * h * h * m00 + 2.0 * big_r * h * m01 + big_r * m02 + h * h * m10 + 2.0 * h * m11 + m12);
        let volume = 2.0 * pi * m[0];
        let axial = 2.0 * pi * m[1];
        let transverse = 2.0 * pi * m[2] + pi * m[1];
        MassProperties {
            volume: volume as f32,
            center: Vec3::ZERO,
            inertia: Mat3::from_diagonal(Vec3::new(transverse as f32, axial as f32, transverse as f32)),
        }
    }
}
