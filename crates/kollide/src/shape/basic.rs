//! The closed-form shapes: ball, capsule, cuboid, cylinder, cone and triangle.

use glam::{Affine3A, Mat3, Mat3A, Vec3, Vec3A};

use super::{MassProperties, PointProjection, SupportMap};
use crate::bounds::{Aabb3, Sphere};
use crate::math::Ray3;
use crate::primitive::{
    RayHit3, closest_point_segment, closest_point_triangle, ray_aabb, ray_capsule, ray_sphere, ray_triangle,
};

/// `|row i of M|` for the three rows: the half extents of the image of the unit ball under `M`.
#[inline]
pub(super) fn row_norms(map: &Affine3A) -> Vec3A {
    let m = &map.matrix3;
    (m.x_axis * m.x_axis + m.y_axis * m.y_axis + m.z_axis * m.z_axis).sqrt()
}

/// A solid ball of `radius` centred on the origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    /// Radius (≥ 0).
    pub radius: f32,
}

impl Ball {
    /// The shape with these parameters (unchecked; see `ConvexShape::is_valid`).
    pub fn new(radius: f32) -> Self {
        Self { radius }
    }

    /// The bounding box in the shape's local frame.
    pub fn local_aabb(&self) -> Aabb3 {
        Aabb3::from_center_half_extents(Vec3::ZERO, Vec3::splat(self.radius))
    }

    /// The exact box of the ellipsoid `M·ball + t`: half extent `r |row i of M|` on axis `i`.
    pub fn aabb(&self, map: &Affine3A) -> Aabb3 {
        let e = row_norms(map) * self.radius;
        Aabb3::new((map.translation - e).into(), (map.translation + e).into())
    }

    /// The first hit of a local-frame ray with the solid shape (`None` for a miss or an invalid
    /// ray, see [`crate::primitive`]); from inside, `t = 0`.
    pub fn ray_cast(&self, ray: &Ray3, max_t: f32) -> Option<RayHit3> {
        ray_sphere(ray, max_t, &Sphere::new(Vec3::ZERO, self.radius))
    }

    /// The point of the solid shape closest to `p`, in the local frame.
    pub fn project_point(&self, p: Vec3) -> PointProjection {
        let len2 = p.length_squared();
        if len2 <= self.radius * self.radius {
            PointProjection::inside(p)
        } else {
            PointProjection { point: p * (self.radius / len2.sqrt()), inside: false }
        }
    }

    /// `V = 4/3 π r³`, `I = 2/5 V r²` on every axis.
    pub fn mass_properties(&self) -> MassProperties {
        let r = self.radius;
        let volume = 4.0 / 3.0 * std::f32::consts::PI * r * r * r;
        MassProperties {
            volume,
            center: Vec3::ZERO,
            inertia: Mat3::from_diagonal(Vec3::splat(0.4 * volume * r * r)),
        }
    }
}

impl SupportMap for Ball {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        dir.normalize_or_zero() * self.radius
    }
}

/// A solid capsule: every point within `radius` of the segment from `(0, -half_height, 0)` to
/// `(0, half_height, 0)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    /// Half the length of the core segment (≥ 0).
    pub half_height: f32,
    /// Radius around the segment (≥ 0).
    pub radius: f32,
}

impl Capsule {
    /// The shape with these parameters (unchecked; see `ConvexShape::is_valid`).
    pub fn new(half_height: f32, radius: f32) -> Self {
        Self { half_height, radius }
    }

    /// The end points of the core segment, bottom then top.
    #[inline]
    pub fn segment(&self) -> [Vec3; 2] {
        [Vec3::new(0.0, -self.half_height, 0.0), Vec3::new(0.0, self.half_height, 0.0)]
    }

    /// The bounding box in the shape's local frame.
    pub fn local_aabb(&self) -> Aabb3 {
        let r = self.radius;
        Aabb3::from_center_half_extents(Vec3::ZERO, Vec3::new(r, self.half_height + r, r))
    }

    /// The exact box: the mapped segment's box grown by the ellipsoid's extents `r |row i of M|`.
    pub fn aabb(&self, map: &Affine3A) -> Aabb3 {
        let axis = map.matrix3.y_axis * self.half_height;
        let e = axis.abs() + row_norms(map) * self.radius;
        Aabb3::new((map.translation - e).into(), (map.translation + e).into())
    }

    /// The first hit of a local-frame ray with the solid shape (`None` for a miss or an invalid
    /// ray, see [`crate::primitive`]); from inside, `t = 0`.
    pub fn ray_cast(&self, ray: &Ray3, max_t: f32) -> Option<RayHit3> {
        let [a, b] = self.segment();
        ray_capsule(ray, max_t, a, b, self.radius)
    }

    /// The point of the solid shape closest to `p`, in the local frame.
    pub fn project_point(&self, p: Vec3) -> PointProjection {
        let [a, b] = self.segment();
        let q = closest_point_segment(p, a, b).point;
        let d = p - q;
        let len2 = d.length_squared();
        if len2 <= self.radius * self.radius {
            PointProjection::inside(p)
        } else {
            PointProjection { point: q + d * (self.radius / len2.sqrt()), inside: false }
        }
    }

    /// A cylinder of length `L = 2 h` plus a ball of radius `r` split in two hemispheres. Each
    /// hemisphere of volume `V_h` has inertia `2/5 V_h r²` about its flat face's diameter and its
    /// centroid `3r/8` from that face; moving it to the capsule centre (`L/2 + 3r/8` away) by the
    /// parallel-axis theorem gives `V_h (2/5 r² + L²/4 + 3 L r/8)` about a transverse axis.
    pub fn mass_properties(&self) -> MassProperties {
        let (r, l) = (self.radius, 2.0 * self.half_height);
        let pi = std::f32::consts::PI;
        let cyl = pi * r * r * l;
        let ball = 4.0 / 3.0 * pi * r * r * r;
        let axial = cyl * r * r / 2.0 + ball * 0.4 * r * r;
        let transverse =
            cyl * (l * l / 12.0 + r * r / 4.0) + ball * (0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0);
        MassProperties {
            volume: cyl + ball,
            center: Vec3::ZERO,
            inertia: Mat3::from_diagonal(Vec3::new(transverse, axial, transverse)),
        }
    }

    /// The support point of the core segment.
    #[inline]
    pub(crate) fn core_support(&self, dir: Vec3A) -> Vec3A {
        Vec3A::new(0.0, self.half_height.copysign(dir.y), 0.0)
    }
}

impl SupportMap for Capsule {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        self.core_support(dir) + dir.normalize_or_zero() * self.radius
    }
}

/// A solid box `[-half_extents, half_extents]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    /// Half extents along x, y, z (each ≥ 0).
    pub half_extents: Vec3,
}

impl Cuboid {
    /// The shape with these parameters (unchecked; see `ConvexShape::is_valid`).
    pub fn new(half_extents: Vec3) -> Self {
        Self { half_extents }
    }

    /// The bounding box in the shape's local frame.
    pub fn local_aabb(&self) -> Aabb3 {
        Aabb3::from_center_half_extents(Vec3::ZERO, self.half_extents)
    }

    /// The exact box of the parallelepiped (Arvo's `|M| h`, see [`Aabb3::transformed`]).
    pub fn aabb(&self, map: &Affine3A) -> Aabb3 {
        self.local_aabb().transformed(map)
    }

    /// The first hit of a local-frame ray with the solid shape (`None` for a miss or an invalid
    /// ray, see [`crate::primitive`]); from inside, `t = 0`.
    pub fn ray_cast(&self, ray: &Ray3, max_t: f32) -> Option<RayHit3> {
        ray_aabb(ray, max_t, &self.local_aabb())
    }

    /// The point of the solid shape closest to `p`, in the local frame.
    pub fn project_point(&self, p: Vec3) -> PointProjection {
        PointProjection::outside_or_on(p, p.clamp(-self.half_extents, self.half_extents))
    }

    /// `V = 8 hx hy hz`, `Iₓ = V (hy² + hz²) / 3` and its cyclic twins.
    pub fn mass_properties(&self) -> MassProperties {
        let h = self.half_extents;
        let volume = 8.0 * h.x * h.y * h.z;
        let h2 = h * h;
        let inertia = Vec3::new(h2.y + h2.z, h2.x + h2.z, h2.x + h2.y) * (volume / 3.0);
        MassProperties { volume, center: Vec3::ZERO, inertia: Mat3::from_diagonal(inertia) }
    }
}

impl SupportMap for Cuboid {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        Vec3A::from(self.half_extents).copysign(dir)
    }
}

/// The unit radial direction `(x, 0, z) / |(x, 0, z)|` of `v`, or zero on the axis.
#[inline]
fn radial(v: Vec3A) -> Vec3A {
    let r = Vec3A::new(v.x, 0.0, v.z);
    let len2 = r.length_squared();
    if len2 > 0.0 { r * len2.sqrt().recip() } else { Vec3A::ZERO }
}

/// A solid cylinder of `radius` around the `y` axis, from `y = -half_height` to `y = half_height`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cylinder {
    /// Half the height along y (≥ 0).
    pub half_height: f32,
    /// Radius of the discs (≥ 0).
    pub radius: f32,
}

impl Cylinder {
    /// The shape with these parameters (unchecked; see `ConvexShape::is_valid`).
    pub fn new(half_height: f32, radius: f32) -> Self {
        Self { half_height, radius }
    }

    /// The bounding box in the shape's local frame.
    pub fn local_aabb(&self) -> Aabb3 {
        let r = self.radius;
        Aabb3::from_center_half_extents(Vec3::ZERO, Vec3::new(r, self.half_height, r))
    }

    /// Exact: the mapped axis segment's box grown by the mapped disc's extents. The disc
    /// `{u x̂ + w ẑ : u² + w² ≤ r²}` maps to an ellipse whose extent along axis `i` is
    /// `r |(M_i0, M_i2)|`.
    pub fn aabb(&self, map: &Affine3A) -> Aabb3 {
        let m = &map.matrix3;
        let disc = (m.x_axis * m.x_axis + m.z_axis * m.z_axis).sqrt() * self.radius;
        let e = (m.y_axis * self.half_height).abs() + disc;
        Aabb3::new((map.translation - e).into(), (map.translation + e).into())
    }

    /// The ray's interval in the slab `|y| ≤ h` intersected with its interval in the infinite
    /// cylinder `x² + z² ≤ r²` (a quadratic); the entry is whichever starts later, and the normal
    /// is the cap's or the side's accordingly. `None` for invalid rays and shapes, as in
    /// [`crate::primitive`].
    pub fn ray_cast(&self, ray: &Ray3, max_t: f32) -> Option<RayHit3> {
        let (h, r) = (self.half_height, self.radius);
        let (o, d) = (ray.origin, ray.dir);
        let dd = d.length_squared();
        if !(dd >= f32::MIN_POSITIVE && dd.is_finite() && max_t >= 0.0 && o.is_finite())
            || !(h >= 0.0 && r >= 0.0 && h.is_finite() && r.is_finite())
        {
            return None;
        }
        // Slab interval.
        let (mut t0, mut t1, cap_normal);
        if d.y != 0.0 {
            let inv = 1.0 / d.y;
            let (ta, tb) = ((-h - o.y) * inv, (h - o.y) * inv);
            (t0, t1) = (ta.min(tb), ta.max(tb));
            cap_normal = Vec3::new(0.0, -d.y.signum(), 0.0);
        } else if o.y.abs() <= h {
            (t0, t1) = (f32::NEG_INFINITY, f32::INFINITY);
            cap_normal = Vec3::ZERO;
        } else {
            return None;
        }
        // Infinite-cylinder interval: |o⊥ + t d⊥|² = r² with a = |d⊥|², b = o⊥·d⊥, c = |o⊥|² − r².
        let (a, b, c) = (d.x * d.x + d.z * d.z, o.x * d.x + o.z * d.z, o.x * o.x + o.z * o.z - r * r);
        let mut side = false;
        if a > 0.0 {
            let disc = b * b - a * c;
            if disc < 0.0 {
                return None;
            }
            // Cancellation-free roots: q = -(b + sign(b) √disc), roots q / a and c / q.
            let q = -(b + disc.sqrt().copysign(b));
            let (ra, rb) = (q / a, if q != 0.0 { c / q } else { q / a });
            let (c0, c1) = (ra.min(rb), ra.max(rb));
            if c0 > t0 {
                t0 = c0;
                side = true;
            }
            t1 = t1.min(c1);
        } else if c > 0.0 {
            return None;
        }
        if t0 > t1 || t1 < 0.0 || t0 > max_t {
            return None;
        }
        if t0 <= 0.0 {
            return Some(RayHit3 { part: 0, t: 0.0, normal: -d / dd.sqrt() });
        }
        let normal = if side {
            let p = o + t0 * d;
            Vec3::from(radial(p.into()))
        } else {
            cap_normal
        };
        Some(RayHit3 { part: 0, t: t0, normal })
    }

    /// The closest point in the half plane through the axis that holds `p`: clamp the radial
    /// distance to `r` and the height to `[-h, h]`.
    pub fn project_point(&self, p: Vec3) -> PointProjection {
        let rho = (p.x * p.x + p.z * p.z).sqrt();
        let y = p.y.clamp(-self.half_height, self.half_height);
        if rho <= self.radius {
            return PointProjection::outside_or_on(p, Vec3::new(p.x, y, p.z));
        }
        let s = self.radius / rho;
        PointProjection { point: Vec3::new(p.x * s, y, p.z * s), inside: false }
    }

    /// `V = π r² H` with `H = 2h`; `I_y = V r² / 2`, `I_x = I_z = V (3 r² + H²) / 12`.
    pub fn mass_properties(&self) -> MassProperties {
        let (r, hh) = (self.radius, 2.0 * self.half_height);
        let volume = std::f32::consts::PI * r * r * hh;
        let transverse = volume * (3.0 * r * r + hh * hh) / 12.0;
        MassProperties {
            volume,
            center: Vec3::ZERO,
            inertia: Mat3::from_diagonal(Vec3::new(transverse, volume * r * r / 2.0, transverse)),
        }
    }
}

impl SupportMap for Cylinder {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        // `radial(dir) * radius` with the radius in the numerator: one division after the square
        // root instead of a reciprocal and two products.
        let r = Vec3A::new(dir.x, 0.0, dir.z);
        let len2 = r.length_squared();
        let rim = if len2 > 0.0 { r * self.radius / Vec3A::splat(len2.sqrt()) } else { Vec3A::ZERO };
        rim + Vec3A::new(0.0, self.half_height.copysign(dir.y), 0.0)
    }

    /// `m (k (uₓ, 0, u_z) + (0, ±h, 0)) = k (uₓ m₀ + u_z m₂) ± h m₁` with `u = mᵀ dir` and
    /// `k = radius / |(uₓ, u_z)|`: the rim direction in the frame is formed while the square root
    /// and the division run, instead of after them.
    #[inline(always)]
    fn support_under(&self, m: &Mat3A, mt: &Mat3A, dir: Vec3A) -> Vec3A {
        let u = *mt * dir;
        let len2 = u.x * u.x + u.z * u.z;
        let rim = m.x_axis * u.x + m.z_axis * u.z;
        let rim = if len2 > 0.0 { rim * self.radius / Vec3A::splat(len2.sqrt()) } else { Vec3A::ZERO };
        rim + m.y_axis * self.half_height.copysign(u.y)
    }
}

/// A solid cone around the `y` axis: apex `(0, half_height, 0)`, base disc of `radius` at
/// `y = -half_height`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cone {
    /// Half the height along y (≥ 0).
    pub half_height: f32,
    /// Radius of the base disc (≥ 0).
    pub radius: f32,
}

impl Cone {
    /// The shape with these parameters (unchecked; see `ConvexShape::is_valid`).
    pub fn new(half_height: f32, radius: f32) -> Self {
        Self { half_height, radius }
    }

    /// The bounding box in the shape's local frame.
    pub fn local_aabb(&self) -> Aabb3 {
        let (h, r) = (self.half_height, self.radius);
        Aabb3::new(Vec3::new(-r, -h, -r), Vec3::new(r, h, r))
    }

    /// Exact: the box of the apex merged with the box of the mapped base disc (see
    /// [`Cylinder::aabb`]).
    pub fn aabb(&self, map: &Affine3A) -> Aabb3 {
        let m = &map.matrix3;
        let disc = (m.x_axis * m.x_axis + m.z_axis * m.z_axis).sqrt() * self.radius;
        let axis = m.y_axis * self.half_height;
        let (apex, base) = (map.translation + axis, map.translation - axis);
        Aabb3::new(apex.min(base - disc).into(), apex.max(base + disc).into())
    }

    /// The closest point lies in the half plane through the axis that holds `p`, where the cone is
    /// the triangle `(0, h), (r, -h), (0, -h)` in (radial, height) coordinates.
    pub fn project_point(&self, p: Vec3) -> PointProjection {
        let (h, r) = (self.half_height, self.radius);
        let rho = (p.x * p.x + p.z * p.z).sqrt();
        let tri = [Vec3::new(0.0, h, 0.0), Vec3::new(r, -h, 0.0), Vec3::new(0.0, -h, 0.0)];
        let q = closest_point_triangle(Vec3::new(rho, p.y, 0.0), &tri).point;
        let inside = p.y >= -h && rho * (2.0 * h) <= r * (h - p.y);
        if inside {
            return PointProjection::inside(p);
        }
        let u = Vec3::from(radial(p.into()));
        let u = if u == Vec3::ZERO { Vec3::X } else { u };
        PointProjection { point: Vec3::new(u.x * q.x, q.y, u.z * q.x), inside: false }
    }

    /// `V = π r² H / 3` with `H = 2h`; the centroid is `H/4` above the base (`y = -h/2`);
    /// `I_y = 3/10 V r²`, `I_x = I_z = V (3/20 r² + 3/80 H²)` about the centroid.
    pub fn mass_properties(&self) -> MassProperties {
        let (r, hh) = (self.radius, 2.0 * self.half_height);
        let volume = std::f32::consts::PI * r * r * hh / 3.0;
        let transverse = volume * (0.15 * r * r + 0.0375 * hh * hh);
        MassProperties {
            volume,
            center: Vec3::new(0.0, -0.5 * self.half_height, 0.0),
            inertia: Mat3::from_diagonal(Vec3::new(transverse, 0.3 * volume * r * r, transverse)),
        }
    }
}

impl SupportMap for Cone {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        let apex = Vec3A::new(0.0, self.half_height, 0.0);
        let rim = radial(dir) * self.radius - apex;
        if rim.dot(dir) > apex.dot(dir) { rim } else { apex }
    }
}

/// A solid (flat) triangle `[a, b, c]`; winding as in `docs/conventions.md`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// The vertices `[a, b, c]`.
    pub points: [Vec3; 3],
}

impl Triangle {
    /// The shape with these parameters (unchecked; see `ConvexShape::is_valid`).
    pub fn new(a: Vec3, b: Vec3, c: Vec3) -> Self {
        Self { points: [a, b, c] }
    }

    /// The bounding box in the shape's local frame.
    pub fn local_aabb(&self) -> Aabb3 {
        let [a, b, c] = self.points;
        Aabb3::new(a.min(b).min(c), a.max(b).max(c))
    }

    /// The exact bounding box of the shape placed by `map`.
    pub fn aabb(&self, map: &Affine3A) -> Aabb3 {
        let [a, b, c] = self.points.map(|p| map.transform_point3a(p.into()));
        Aabb3::new(a.min(b).min(c).into(), a.max(b).max(c).into())
    }

    /// Two-sided, watertight ([`ray_triangle`]); the normal faces against the ray. A zero-area
    /// triangle is never hit.
    pub fn ray_cast(&self, ray: &Ray3, max_t: f32) -> Option<RayHit3> {
        let hit = ray_triangle(ray, max_t, &self.points)?;
        let [a, b, c] = self.points;
        let n = (b - a).cross(c - a).normalize_or_zero();
        Some(RayHit3 { part: 0, t: hit.t, normal: if n.dot(ray.dir) > 0.0 { -n } else { n } })
    }

    /// The point of the solid shape closest to `p`, in the local frame.
    pub fn project_point(&self, p: Vec3) -> PointProjection {
        PointProjection::outside_or_on(p, closest_point_triangle(p, &self.points).point)
    }

    /// A flat set: zero volume and inertia, centre at the centroid.
    pub fn mass_properties(&self) -> MassProperties {
        let [a, b, c] = self.points;
        MassProperties { volume: 0.0, center: (a + b + c) / 3.0, inertia: Mat3::ZERO }
    }
}

impl SupportMap for Triangle {
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        let [a, b, c] = self.points.map(Vec3A::from);
        let (da, db, dc) = (a.dot(dir), b.dot(dir), c.dot(dir));
        if da >= db && da >= dc {
            a
        } else if db >= dc {
            b
        } else {
            c
        }
    }
}
