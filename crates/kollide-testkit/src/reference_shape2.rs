//! Independent `f64` references for the public 2D shapes placed by affine maps
//! (`kollide::shape::ConvexShape2` under `glam::Affine2`): the answers of
//! `kollide::narrow::{distance2, intersects2, contact2, cast_ray2, project_point2,
//! contains_point2, cast_shape2}` and of the shapes' mass properties.
//!
//! A placed shape is a *core* (the image of the shape's points: one point, a segment or a convex
//! polygon) plus the image of its disc, `D · (unit disk)` with `D = r M` (an ellipse under a
//! non-uniform map, a circle under a similarity, nothing for shapes without a radius). Its
//! support function is `h(u) = max_core u·x + |Dᵀ u|`, computed from the shape's parameters in
//! `f64`, never through kollide's support functions.
//!
//! Where the disc stays a circle (or is absent) the references are exact, from
//! [`reference_convex2`](crate::reference_convex2)'s polygon routines with the circle as a margin:
//! distances by vertex–edge distances, overlap by edge crossings, depths by the separating-axis
//! theorem over every edge normal, rays against the rounded polygon's edges and vertex circles.
//! Otherwise they come from the direction search over the support function
//! ([`max_over_directions`]), exact to about `1e-12` of the size for the moderate axis ratios of
//! the tests.

use glam::{Affine2, DMat2, DVec2};
use kollide::shape::ConvexShape2;

use crate::reference_convex2::{
    RefCore2, RefShape2, max_over_directions, polygon_depth2, polygon_distance2, polygons_overlap2,
    ray_entry2, ray_rounded_polygon2,
};

/// A convex shape placed in the plane, in `f64`: a core plus the image of a disc.
#[derive(Clone, Debug)]
pub struct PlacedShape2 {
    /// The core's hull: one point, two (a segment) or a counter-clockwise polygon.
    pub core: Vec<DVec2>,
    /// The placed disc `disc · (unit disk)` (zero for a shape without a radius).
    pub disc: DMat2,
}

/// The points of a shape's core and its radius, from its public parameters (local frame).
fn local_core(shape: &ConvexShape2) -> (Vec<DVec2>, f64) {
    let d = |v: glam::Vec2| v.as_dvec2();
    match shape {
        ConvexShape2::Ball(s) => (vec![DVec2::ZERO], s.radius as f64),
        ConvexShape2::Capsule(s) => {
            let h = s.half_height as f64;
            (vec![DVec2::new(0.0, -h), DVec2::new(0.0, h)], s.radius as f64)
        }
        ConvexShape2::Cuboid(s) => {
            let h = d(s.half_extents);
            (vec![DVec2::new(h.x, -h.y), h, DVec2::new(-h.x, h.y), -h], 0.0)
        }
        ConvexShape2::Segment(s) => (vec![d(s.a), d(s.b)], 0.0),
        ConvexShape2::Triangle(s) => (vec![d(s.a), d(s.b), d(s.c)], 0.0),
        ConvexShape2::Polygon(s) => (s.vertices().iter().map(|&v| d(v)).collect(), s.radius() as f64),
    }
}

/// The convex hull of `points` in `f64` (Andrew's monotone chain), counter-clockwise, without
/// collinear vertices: one point, the two extreme points of collinear ones, or a polygon.
pub fn hull_f64(points: &[DVec2]) -> Vec<DVec2> {
    let mut pts = points.to_vec();
    pts.sort_by(|p, q| p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let turn = |a: DVec2, b: DVec2, c: DVec2| (b - a).perp_dot(c - a);
    let mut hull: Vec<DVec2> = Vec::with_capacity(2 * pts.len());
    for pass in 0..2 {
        let start = hull.len();
        for i in 0..pts.len() {
            let p = if pass == 0 { pts[i] } else { pts[pts.len() - 1 - i] };
            while hull.len() >= start + 2 && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    if hull.len() < 3 {
        return vec![pts[0], pts[pts.len() - 1]];
    }
    hull
}

impl PlacedShape2 {
    /// `shape` placed by `map`: `M x + t` for every core point, the disc `r M`.
    pub fn new(shape: &ConvexShape2, map: &Affine2) -> Self {
        let (points, radius) = local_core(shape);
        let m = map.matrix2.as_dmat2();
        let t = map.translation.as_dvec2();
        let placed: Vec<DVec2> = points.iter().map(|&p| m * p + t).collect();
        Self { core: hull_f64(&placed), disc: m * radius }
    }

    /// The shape moved by `offset`.
    pub fn translated(&self, offset: DVec2) -> Self {
        Self { core: self.core.iter().map(|&p| p + offset).collect(), disc: self.disc }
    }

    /// The support function `h(u) = max over x in the shape of u·x` for a unit `u`.
    pub fn support_value(&self, u: DVec2) -> f64 {
        let core = self.core.iter().map(|p| p.dot(u)).fold(f64::NEG_INFINITY, f64::max);
        core + (self.disc.transpose() * u).length()
    }

    /// The radius of the disc when it is a circle (or absent) to `1e-9` relative: then the exact
    /// polygon references apply.
    pub fn circle_radius(&self) -> Option<f64> {
        let (x, y) = (self.disc.x_axis, self.disc.y_axis);
        let (xx, yy) = (x.length_squared(), y.length_squared());
        let tol = 1e-9 * xx.max(yy);
        ((xx - yy).abs() <= tol && x.dot(y).abs() <= tol).then_some(0.5 * (xx + yy)).map(f64::sqrt)
    }

    /// The shape as a [`RefShape2`]: the polygon with its circle as the margin when
    /// [`circle_radius`](Self::circle_radius) is some (exact routines), else the core as given and
    /// the disc left out (use [`support_value`](Self::support_value) instead).
    pub fn exact(&self) -> Option<RefShape2> {
        let radius = self.circle_radius()?;
        Some(RefShape2 { core: RefCore2::Polygon(self.core.clone()), margin: radius })
    }

    /// The largest half-width over 64 directions: the shape's size for tolerances.
    pub fn size(&self) -> f64 {
        (0..64)
            .map(|i| {
                let u = unit(i as f64 * std::f64::consts::PI / 64.0);
                0.5 * (self.support_value(u) + self.support_value(-u))
            })
            .fold(0.0, f64::max)
    }

    /// The largest coordinate magnitude of the shape's points (for the rounding of `f32`
    /// coordinates).
    pub fn coordinates(&self) -> f64 {
        [DVec2::X, DVec2::Y, DVec2::NEG_X, DVec2::NEG_Y]
            .iter()
            .map(|&u| self.support_value(u).abs())
            .fold(0.0, f64::max)
    }

    /// The signed distance from `p` to the shape: positive outside, minus the distance to the
    /// boundary inside. Exact with a circle; otherwise `max over unit u of (u·p - h(u))`.
    pub fn signed_distance_to_point(&self, p: DVec2) -> f64 {
        match self.exact() {
            Some(r) => r.signed_distance_to_point(p),
            None => max_over_directions(|u| u.dot(p) - self.support_value(u)).0,
        }
    }

    /// The first hit of the ray `origin + t·dir`, `t ∈ [0, max_t]`, with the solid shape and the
    /// outward unit normal there (`-dir/|dir|` from inside).
    pub fn ray(&self, origin: DVec2, dir: DVec2, max_t: f64) -> Option<(f64, DVec2)> {
        match self.circle_radius() {
            Some(r) => ray_rounded_polygon2(&self.core, r, origin, dir, max_t),
            None => ray_entry2(|u| self.support_value(u), origin, dir, max_t),
        }
    }

    /// The first hit of the ray with the shape grown by `by` (shrunk for a negative `by`: the
    /// points at least `-by` deep), by the direction search: the support function `h(u) + by`.
    pub fn ray_offset(&self, by: f64, origin: DVec2, dir: DVec2, max_t: f64) -> Option<(f64, DVec2)> {
        ray_entry2(|u| self.support_value(u) + by, origin, dir, max_t)
    }

    /// `(area, centre of mass, polar moment about the centre)` at unit density, from the polygon
    /// through the shape's support points in `samples` directions (inscribed: exact for polygons,
    /// within `O(1/samples²)` of a curved boundary), by the shoelace moments in `f64`.
    pub fn mass_by_boundary(&self, samples: usize) -> (f64, DVec2, f64) {
        let boundary: Vec<DVec2> = (0..samples)
            .map(|i| {
                let u = unit(i as f64 * std::f64::consts::TAU / samples as f64);
                let core = self
                    .core
                    .iter()
                    .copied()
                    .fold(self.core[0], |b, p| if p.dot(u) > b.dot(u) { p } else { b });
                // The disc's support along u: D · normalize(Dᵀ u).
                let w = self.disc.transpose() * u;
                let len = w.length();
                core + if len > 0.0 { self.disc * (w / len) } else { DVec2::ZERO }
            })
            .collect();
        let (mut area, mut first, mut polar) = (0.0, DVec2::ZERO, 0.0);
        for i in 0..samples {
            let (a, b) = (boundary[i], boundary[(i + 1) % samples]);
            // The triangle (0, a, b): area a×b/2, centroid (a+b)/3, ∫|x|² = A/6 (|a|²+|b|²+a·b).
            let cross = a.perp_dot(b);
            area += cross / 2.0;
            first += (a + b) * (cross / 6.0);
            polar += cross / 12.0 * (a.dot(a) + b.dot(b) + a.dot(b));
        }
        let center = first / area;
        (area, center, polar - center.dot(center) * area)
    }
}

fn unit(theta: f64) -> DVec2 {
    DVec2::new(theta.cos(), theta.sin())
}

/// The gap between A and B along the unit `u` (from A to B): `min_B u·x - max_A u·x`; at most
/// their signed distance, equal to it along the best direction.
pub fn placed_gap2(a: &PlacedShape2, b: &PlacedShape2, u: DVec2) -> f64 {
    -a.support_value(u) - b.support_value(-u)
}

/// The signed distance of two placed shapes (the distance when apart, minus the minimum
/// translation distance when they overlap): exact when both discs are circles, else the direction
/// search over [`placed_gap2`].
pub fn placed_signed_distance2(a: &PlacedShape2, b: &PlacedShape2) -> f64 {
    match (a.circle_radius(), b.circle_radius()) {
        (Some(ra), Some(rb)) => {
            let core = if polygons_overlap2(&a.core, &b.core) {
                -polygon_depth2(&a.core, &b.core).0
            } else {
                polygon_distance2(&a.core, &b.core)
            };
            core - ra - rb
        }
        _ => max_over_directions(|u| placed_gap2(a, b, u)).0,
    }
}

/// The first time `t ∈ [0, max_t]` at which B moved by `t·velocity` comes within `level` of A
/// (`level` may be negative: that deep), or `None`: the entry of the ray `t·velocity` into
/// `(A - B) ⊕ disk(level)`, whose support function is `h_A(u) + h_B(-u) + level`.
pub fn placed_reach2(
    a: &PlacedShape2,
    b: &PlacedShape2,
    velocity: DVec2,
    max_t: f64,
    level: f64,
) -> Option<f64> {
    let h = |u: DVec2| a.support_value(u) + b.support_value(-u) + level;
    if velocity == DVec2::ZERO {
        let now = max_over_directions(|u| -h(u)).0;
        return (now <= 0.0).then_some(0.0);
    }
    ray_entry2(h, DVec2::ZERO, velocity, max_t).map(|(t, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat2, Vec2};
    use kollide::shape::{Ball2, Capsule2, Cuboid2};

    /// The exact and the searched signed distances agree on circles (a similarity placement).
    #[test]
    fn exact_and_searched_distances_agree() {
        let map = Affine2::from_mat2_translation(Mat2::from_angle(0.3) * 1.5, Vec2::new(0.2, -0.1));
        let a = PlacedShape2::new(&ConvexShape2::Capsule(Capsule2::new(0.7, 0.3)), &map);
        let box_map = Affine2::from_mat2_translation(Mat2::from_angle(-0.8), Vec2::new(1.4, 0.9));
        for offset in [Vec2::ZERO, Vec2::new(0.9, 0.1), Vec2::new(2.0, 1.0)] {
            let mut m = box_map;
            m.translation += offset;
            let b = PlacedShape2::new(&ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(0.5, 0.2))), &m);
            let exact = placed_signed_distance2(&a, &b);
            let searched = max_over_directions(|u| placed_gap2(&a, &b, u)).0;
            assert!((exact - searched).abs() < 1e-9, "{exact} vs {searched}");
        }
    }

    #[test]
    fn mass_of_a_disc_by_its_boundary() {
        let disc = PlacedShape2::new(&ConvexShape2::Ball(Ball2::new(2.0)), &Affine2::IDENTITY);
        let (area, center, inertia) = disc.mass_by_boundary(1 << 14);
        let pi = std::f64::consts::PI;
        assert!((area - 4.0 * pi).abs() < 1e-6 && center.length() < 1e-9);
        assert!((inertia - 0.5 * 4.0 * pi * 4.0).abs() < 1e-5, "{inertia}");
    }
}
