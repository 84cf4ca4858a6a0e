//! Mass properties of 2D shapes (unit density: mass equals area).

use std::f64::consts::PI;

use glam::{DVec2, Vec2};

use super::{Ball2, Capsule2, ConvexPolygon2, Cuboid2, Triangle2};

/// Mass properties of a solid of unit density: mass equals `area`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties2 {
    /// Area (= mass at unit density).
    pub area: f32,
    /// Centre of mass in the shape's local frame.
    pub center: Vec2,
    /// Moment of inertia about `center` (the polar moment `∫ |x - center|² dA`).
    pub inertia: f32,
}

/// Area, first moment and polar second moment about the origin, summed in `f64`.
#[derive(Clone, Copy, Debug, Default)]
struct Moments {
    area: f64,
    first: DVec2,
    polar: f64,
}

impl Moments {
    /// Adds the triangle `(a, b, c)`, signed by its orientation: area `A = ½ (b - a) × (c - a)`,
    /// `∫ x dA = A (a + b + c) / 3`, `∫ |x|² dA = A/6 (|a|² + |b|² + |c|² + a·b + b·c + c·a)` (the
    /// moments of the canonical triangle mapped affinely).
    fn add_triangle(&mut self, a: DVec2, b: DVec2, c: DVec2) {
        let area = 0.5 * (b - a).perp_dot(c - a);
        self.area += area;
        self.first += (a + b + c) * (area / 3.0);
        self.polar += area / 6.0 * (a.dot(a) + b.dot(b) + c.dot(c) + a.dot(b) + b.dot(c) + c.dot(a));
    }

    /// Adds a circular sector of `radius` about `apex` spanning `angle` around the unit bisector
    /// `mid`: area `θ r²/2`, `∫ (x - apex) dA = ⅔ r³ sin(θ/2) mid`, `∫ |x - apex|² dA = θ r⁴/4`, moved
    /// to the origin by `∫ |x|² = ∫ |x - p|² + 2 p·∫ (x - p) + |p|² A`.
    fn add_sector(&mut self, apex: DVec2, radius: f64, angle: f64, mid: DVec2) {
        let area = 0.5 * angle * radius * radius;
        let offset = mid * (2.0 / 3.0 * radius.powi(3) * (0.5 * angle).sin());
        self.area += area;
        self.first += apex * area + offset;
        self.polar += angle * radius.powi(4) / 4.0 + 2.0 * apex.dot(offset) + apex.dot(apex) * area;
    }

    /// The properties about the centroid (parallel-axis theorem); `None` for zero area.
    fn finish(&self) -> Option<MassProperties2> {
        if !(self.area > 0.0) {
            return None;
        }
        let center = self.first / self.area;
        let inertia = self.polar - center.dot(center) * self.area;
        Some(MassProperties2 { area: self.area as f32, center: center.as_vec2(), inertia: inertia.max(0.0) as f32 })
    }
}

impl Ball2 {
    /// Area `π r²`, inertia `½ m r²`; `None` for a zero radius.
    pub fn mass_properties(&self) -> Option<MassProperties2> {
        let mut m = Moments::default();
        m.add_sector(DVec2::ZERO, self.radius as f64, 2.0 * PI, DVec2::Y);
        m.finish()
    }
}

impl Capsule2 {
    /// The box between the end discs plus the two half discs; `None` for a zero radius.
    pub fn mass_properties(&self) -> Option<MassProperties2> {
        let (h, r) = (self.half_height as f64, self.radius as f64);
        let mut m = Moments::default();
        let [a, b, c, d] = [DVec2::new(r, -h), DVec2::new(r, h), DVec2::new(-r, h), DVec2::new(-r, -h)];
        m.add_triangle(a, b, c);
        m.add_triangle(a, c, d);
        m.add_sector(DVec2::new(0.0, h), r, PI, DVec2::Y);
        m.add_sector(DVec2::new(0.0, -h), r, PI, -DVec2::Y);
        m.finish()
    }
}

impl Cuboid2 {
    /// Area `4 hx hy`, inertia `m (hx² + hy²) / 3`; `None` for a zero extent.
    pub fn mass_properties(&self) -> Option<MassProperties2> {
        let h = self.half_extents.as_dvec2();
        let area = 4.0 * h.x * h.y;
        (area > 0.0).then(|| MassProperties2 {
            area: area as f32,
            center: Vec2::ZERO,
            inertia: (area * (h.x * h.x + h.y * h.y) / 3.0) as f32,
        })
    }
}

impl Triangle2 {
    /// `None` for a degenerate (zero-area) triangle.
    pub fn mass_properties(&self) -> Option<MassProperties2> {
        let [a, b, c] = self.vertices().map(|p| p.as_dvec2());
        let mut m = Moments::default();
        m.add_triangle(a, b, c);
        m.finish()
    }
}

impl ConvexPolygon2 {
    /// Exact for rounded polygons too: the core, one box per edge (the edge swept outward by the
    /// radius) and one sector per vertex, spanning the turn between its two edge normals (the
    /// sectors make up one whole disc).
    pub fn mass_properties(&self) -> Option<MassProperties2> {
        let v: Vec<DVec2> = self.vertices().iter().map(|p| p.as_dvec2()).collect();
        let normals: Vec<DVec2> = self.normals().iter().map(|p| p.as_dvec2()).collect();
        let n = v.len();
        let r = self.radius() as f64;
        let mut m = Moments::default();
        for i in 1..n - 1 {
            m.add_triangle(v[0], v[i], v[i + 1]);
        }
        if r > 0.0 {
            for i in 0..n {
                let (a, b, out) = (v[i], v[(i + 1) % n], normals[i] * r);
                m.add_triangle(a, b + out, b);
                m.add_triangle(a, a + out, b + out);
                let before = normals[(i + n - 1) % n];
                let angle = before.perp_dot(normals[i]).atan2(before.dot(normals[i]));
                m.add_sector(a, r, angle, (before + normals[i]).normalize_or(normals[i]));
            }
        }
        m.finish()
    }
}
