//! Convex polygons, built from any point set by a hull, optionally rounded.

use glam::Vec2;

use super::basic::{closest_on_segment2, project_on_disc};
use super::{PointProjection2, SupportMap2};
use crate::bounds::{Aabb2, Circle};
use crate::math::Ray2;
use crate::primitive::d2::{RayHit2, ray_circle, ray_polygon};
use crate::primitive::orient2d;

/// Why a point set has no polygon hull.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolygonError {
    /// A coordinate is NaN or infinite (or the radius is negative or not finite).
    NonFinite,
    /// Fewer than three points that are not all on one line: the hull has no area.
    Degenerate,
}

impl std::fmt::Display for PolygonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PolygonError::NonFinite => write!(f, "a coordinate or the radius is not finite"),
            PolygonError::Degenerate => write!(f, "the points span no area"),
        }
    }
}

impl std::error::Error for PolygonError {}

/// A convex polygon (counter-clockwise, strictly convex: no repeated vertices, no three collinear),
/// plus a rounding `radius` (the polygon's Minkowski sum with a disc; 0 for a sharp polygon).
///
/// `normals[i]` is the outward unit normal of the edge from `vertices[i]` to `vertices[i + 1]`
/// (cyclically).
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon2 {
    vertices: Vec<Vec2>,
    normals: Vec<Vec2>,
    radius: f32,
}

impl ConvexPolygon2 {
    /// The convex hull of `points` (any order, duplicates and interior points allowed), by
    /// Andrew's monotone chain with the exact orientation predicate: vertices that lie on an edge
    /// of the hull are dropped, so the result is strictly convex.
    pub fn new(points: &[Vec2]) -> Result<Self, PolygonError> {
        Self::rounded(points, 0.0)
    }

    /// The hull of `points` rounded by `radius` (finite, non-negative).
    pub fn rounded(points: &[Vec2], radius: f32) -> Result<Self, PolygonError> {
        if !(radius.is_finite() && radius >= 0.0) || points.iter().any(|p| !p.is_finite()) {
            return Err(PolygonError::NonFinite);
        }
        let vertices = hull(points);
        if vertices.len() < 3 {
            return Err(PolygonError::Degenerate);
        }
        let normals = edge_normals(&vertices);
        if normals.iter().any(|n| !n.is_finite()) {
            return Err(PolygonError::NonFinite);
        }
        Ok(Self { vertices, normals, radius })
    }

    /// The box as a polygon.
    pub fn from_box(half_extents: Vec2) -> Result<Self, PolygonError> {
        let h = half_extents;
        Self::new(&[Vec2::new(h.x, -h.y), h, Vec2::new(-h.x, h.y), -h])
    }

    /// The counter-clockwise vertices.
    #[inline]
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices
    }

    /// The outward unit edge normals (`normals()[i]` for the edge leaving `vertices()[i]`).
    #[inline]
    pub fn normals(&self) -> &[Vec2] {
        &self.normals
    }

    /// The rounding radius.
    #[inline]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The index of a vertex farthest along `dir`.
    #[inline]
    pub fn support_index(&self, dir: Vec2) -> usize {
        let mut best = 0;
        let mut best_dot = f32::NEG_INFINITY;
        for (i, v) in self.vertices.iter().enumerate() {
            let d = v.dot(dir);
            if d > best_dot {
                best = i;
                best_dot = d;
            }
        }
        best
    }

    /// The box in the local frame (radius included).
    pub fn local_aabb(&self) -> Aabb2 {
        let mut b = Aabb2::new(self.vertices[0], self.vertices[0]);
        for &v in &self.vertices[1..] {
            b.grow(v);
        }
        b.expanded(self.radius)
    }

    /// Whether `p` (local frame) lies in the core polygon, boundary included.
    fn core_contains(&self, p: Vec2) -> bool {
        self.vertices.iter().zip(&self.normals).all(|(&v, &n)| n.dot(p - v) <= 0.0)
    }

    /// The first hit of a ray (local frame) with the solid (rounded) polygon. A rounded polygon is
    /// the union of its core, one box per edge (the edge swept outward by the radius) and one disc
    /// per vertex; the first hit of a union of solids is the earliest first hit of its members.
    pub fn cast_ray(&self, ray: &Ray2, max_t: f32) -> Option<RayHit2> {
        let core = ray_polygon(ray, max_t, &self.vertices);
        if self.radius == 0.0 {
            return core;
        }
        let n = self.vertices.len();
        let mut best = core;
        let mut keep = |hit: Option<RayHit2>| {
            if let Some(h) = hit {
                if best.is_none_or(|b| h.t < b.t) {
                    best = Some(h);
                }
            }
        };
        for i in 0..n {
            let (a, b) = (self.vertices[i], self.vertices[(i + 1) % n]);
            let out = self.normals[i] * self.radius;
            keep(ray_polygon(ray, max_t, &[a, b, b + out, a + out]));
            keep(ray_circle(ray, max_t, &Circle::new(a, self.radius)));
        }
        best
    }

    /// The point of the solid (rounded) polygon closest to `p` (local frame).
    pub fn project_point(&self, p: Vec2) -> PointProjection2 {
        if self.core_contains(p) {
            return PointProjection2::inside(p);
        }
        let n = self.vertices.len();
        let mut closest = self.vertices[0];
        let mut best = f32::INFINITY;
        for i in 0..n {
            let q = closest_on_segment2(p, self.vertices[i], self.vertices[(i + 1) % n]);
            let d = q.distance_squared(p);
            if d < best {
                best = d;
                closest = q;
            }
        }
        project_on_disc(p, closest, self.radius)
    }
}

impl SupportMap2 for ConvexPolygon2 {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        self.vertices[self.support_index(dir)] + super::basic::disc_support(self.radius, dir)
    }
}

/// The strictly convex hull, counter-clockwise (Andrew 1979: sort by x then y, build the lower
/// and upper chains, popping every vertex that does not turn left). Collinear and repeated points
/// pop because the turn test is strict and exact.
fn hull(points: &[Vec2]) -> Vec<Vec2> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    sorted.dedup();
    if sorted.len() < 3 {
        return sorted;
    }
    let mut lower = half_hull(sorted.iter().copied());
    let mut upper = half_hull(sorted.iter().rev().copied());
    // Each chain's last point starts the other chain.
    lower.pop();
    upper.pop();
    lower.append(&mut upper);
    lower
}

/// One chain of the monotone-chain hull over points sorted along it.
fn half_hull(points: impl Iterator<Item = Vec2>) -> Vec<Vec2> {
    let mut chain: Vec<Vec2> = Vec::new();
    for p in points {
        while chain.len() >= 2 && orient2d(chain[chain.len() - 2], chain[chain.len() - 1], p) <= 0 {
            chain.pop();
        }
        chain.push(p);
    }
    chain
}

/// The outward unit normals of a counter-clockwise loop's edges.
fn edge_normals(vertices: &[Vec2]) -> Vec<Vec2> {
    let n = vertices.len();
    (0..n)
        .map(|i| {
            let e = vertices[(i + 1) % n] - vertices[i];
            Vec2::new(e.y, -e.x).normalize_or_zero()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_drops_interior_collinear_and_repeated_points() {
        let pts = [
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(2.0, 2.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 2.0),
            Vec2::new(2.0, 2.0),
        ];
        let poly = ConvexPolygon2::new(&pts).unwrap();
        assert_eq!(poly.vertices(), &[Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0), Vec2::new(2.0, 2.0), Vec2::new(0.0, 2.0)]);
        assert_eq!(poly.normals()[0], Vec2::new(0.0, -1.0));
    }

    #[test]
    fn degenerate_and_non_finite_point_sets_are_refused() {
        let line = [Vec2::ZERO, Vec2::X, Vec2::X * 2.0];
        assert_eq!(ConvexPolygon2::new(&line), Err(PolygonError::Degenerate));
        assert_eq!(ConvexPolygon2::new(&[]), Err(PolygonError::Degenerate));
        assert_eq!(ConvexPolygon2::new(&[Vec2::ZERO, Vec2::X, Vec2::NAN]), Err(PolygonError::NonFinite));
        assert_eq!(ConvexPolygon2::rounded(&[Vec2::ZERO, Vec2::X, Vec2::Y], -1.0), Err(PolygonError::NonFinite));
    }
}
