//! EPA in the plane and the contact of two shapes with margins.
//!
//! The expanding polygon: start from a triangle of `A - B` vertices that holds the origin (GJK's
//! last simplex, grown when the cores only touch), take the edge closest to the origin, add the
//! support point along its outward normal, and stop when that point is no farther out than the
//! edge (polygons: a repeated vertex, exactly) or the edge is within [`EPA_RELATIVE`] of the
//! polygon's size of it (smooth shapes). The new point replaces the chain of edges it sees, so the
//! polygon stays convex (the vertices it hides are removed by exact orientation tests) and every
//! edge distance stays a lower bound of the depth; the closest edge gives the depth, the normal
//! and, through the origin's projection on it, the deepest points of both cores.

use glam::Vec2;

use super::gjk::{Gjk2, GjkCache2, Simplex2, Vertex2, gjk2, margin_ok, support_vertex};
use crate::math::tolerances::REL_EPSILON;
use crate::primitive::orient2d;
use crate::shape::SupportMap2;

/// Iteration cap (one support point each): smooth shapes reach [`EPA_RELATIVE`] in a few dozen.
const MAX_ITERATIONS: usize = 64;
/// The polygon's capacity: the first triangle and one vertex per iteration.
const MAX_VERTICES: usize = MAX_ITERATIONS + 3;
/// The stopping tolerance: the new support point is within `EPA_RELATIVE` times the polygon's
/// largest vertex of the closest edge's line. It bounds the depth error of smooth shapes.
const EPA_RELATIVE: f32 = 1e-6;
/// A Minkowski difference thinner than this (relative to its vertices) has no interior.
const FLAT_RELATIVE: f32 = 2.0 * REL_EPSILON;

/// The contact of two shapes (cores plus margins): their signed separation along the normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penetration2 {
    /// Unit normal from A to B: moving B along it separates the shapes fastest.
    pub normal: Vec2,
    /// Signed separation of the full shapes (margins included): the distance when apart,
    /// `-depth` (the minimum translation distance) when they overlap.
    pub separation: f32,
    /// The point of A farthest along `normal` (deepest in B when they overlap).
    pub point_a: Vec2,
    /// The point of B farthest against `normal`; `point_b - point_a = separation · normal`.
    pub point_b: Vec2,
}

impl Penetration2 {
    /// The answer to bad input: infinitely far apart.
    const INVALID: Self =
        Self { normal: Vec2::ZERO, separation: f32::INFINITY, point_a: Vec2::ZERO, point_b: Vec2::ZERO };

    /// The contact of the full shapes from the cores' `normal`, signed core separation and core
    /// witnesses: each point moves out by its margin along the normal.
    fn with_margins(normal: Vec2, core: f32, pa: Vec2, pb: Vec2, margin_a: f32, margin_b: f32) -> Self {
        Self {
            normal,
            separation: core - margin_a - margin_b,
            point_a: pa + normal * margin_a,
            point_b: pb - normal * margin_b,
        }
    }
}

/// The contact of two shapes, each a core support map plus a disk of radius `margin`, in one
/// common frame: GJK when the cores are apart (the margins only subtracted, so the shapes may
/// still overlap by up to their sum), EPA on the cores when they overlap.
///
/// The separation is exact for polygons up to rounding; for smooth cores it is within `1e-6` of
/// the distance when apart (see [`gjk_distance2`](super::gjk_distance2)) and at most `1e-6` of the
/// Minkowski difference's size short of the depth when the cores overlap (EPA's tolerance; at its
/// iteration cap, the closest edge found). Cores whose Minkowski difference has no interior (a
/// segment touching a collinear segment, two points at one place) have depth 0 along a normal of
/// the segment pointing from A's extent to B's (`(0, 1)` for two points).
///
/// Bad input (a negative, NaN or infinite margin, a non-finite support point) gives
/// `separation = ∞` with zero normal and points.
pub fn contact2<A, B>(a: &A, margin_a: f32, b: &B, margin_b: f32, cache: &mut GjkCache2) -> Penetration2
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    if !(margin_ok(margin_a) && margin_ok(margin_b)) {
        cache.clear();
        return Penetration2::INVALID;
    }
    match gjk2(a, b, f32::INFINITY, cache) {
        Gjk2::Separated { v, simplex } => {
            let distance = v.length();
            let (pa, pb) = simplex.witnesses();
            Penetration2::with_margins(-v / distance, distance, pa, pb, margin_a, margin_b)
        }
        Gjk2::Overlapping { simplex } => overlap_contact(a, margin_a, b, margin_b, &simplex),
        Gjk2::Invalid => Penetration2::INVALID,
    }
}

/// The contact of shapes whose cores overlap, from GJK's simplex holding the origin.
pub(super) fn overlap_contact<A, B>(a: &A, margin_a: f32, b: &B, margin_b: f32, simplex: &Simplex2) -> Penetration2
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    match epa2(a, b, simplex) {
        Some(p) => Penetration2::with_margins(p.normal, -p.depth, p.point_a, p.point_b, margin_a, margin_b),
        None => Penetration2::INVALID,
    }
}

/// A penetration of the cores: `normal` (unit, A to B), `depth ≥ 0`, deepest points with
/// `point_a - point_b = depth · normal`.
struct CorePenetration {
    normal: Vec2,
    depth: f32,
    point_a: Vec2,
    point_b: Vec2,
}

/// A polygon vertex with the edge that leaves it (to the next vertex, counter-clockwise).
#[derive(Clone, Copy, Default)]
struct Corner {
    vertex: Vertex2,
    /// Outward unit normal of the edge.
    normal: Vec2,
    /// Distance of the edge's line from the origin (`∞` for a zero-length edge, never chosen).
    distance: f32,
}

/// The convex polygon of `A - B` vertices EPA grows, counter-clockwise.
struct Polygon {
    corners: [Corner; MAX_VERTICES],
    len: usize,
}

impl Polygon {
    fn new(triangle: [Vertex2; 3]) -> Self {
        let mut polygon = Self { corners: [Corner::default(); MAX_VERTICES], len: 3 };
        for (corner, vertex) in polygon.corners.iter_mut().zip(triangle) {
            corner.vertex = vertex;
        }
        (0..3).for_each(|i| polygon.update_edge(i));
        polygon
    }

    fn next(&self, i: usize) -> usize {
        if i + 1 == self.len { 0 } else { i + 1 }
    }

    fn prev(&self, i: usize) -> usize {
        if i == 0 { self.len - 1 } else { i - 1 }
    }

    fn w(&self, i: usize) -> Vec2 {
        self.corners[i].vertex.w
    }

    /// Recomputes the edge leaving corner `i`; its outward normal is the edge turned clockwise.
    fn update_edge(&mut self, i: usize) {
        let (p, q) = (self.w(i), self.w(self.next(i)));
        let e = q - p;
        let normal = Vec2::new(e.y, -e.x).normalize_or_zero();
        let corner = &mut self.corners[i];
        corner.normal = normal;
        corner.distance = if normal == Vec2::ZERO { f32::INFINITY } else { normal.dot(p) };
    }

    fn closest_edge(&self) -> usize {
        (0..self.len).min_by(|&i, &j| self.corners[i].distance.total_cmp(&self.corners[j].distance)).unwrap_or(0)
    }

    fn remove(&mut self, i: usize) {
        self.corners.copy_within(i + 1..self.len, i);
        self.len -= 1;
    }

    /// Inserts `vertex`, which lies beyond edge `k`, after corner `k`, and removes the corners
    /// it hides (those no longer turning left), keeping the polygon the convex hull.
    fn insert(&mut self, k: usize, vertex: Vertex2) {
        self.corners.copy_within(k + 1..self.len, k + 2);
        self.corners[k + 1] = Corner { vertex, ..Corner::default() };
        self.len += 1;
        let mut at = k + 1;
        while self.len > 3 {
            let (before, after) = (self.next(at), self.next(self.next(at)));
            if orient2d(vertex.w, self.w(before), self.w(after)) > 0 {
                break;
            }
            self.remove(before);
            if before < at {
                at -= 1;
            }
        }
        while self.len > 3 {
            let (before, behind) = (self.prev(at), self.prev(self.prev(at)));
            if orient2d(self.w(behind), self.w(before), vertex.w) > 0 {
                break;
            }
            self.remove(before);
            if before < at {
                at -= 1;
            }
        }
        let before = self.prev(at);
        self.update_edge(before);
        self.update_edge(at);
    }
}

/// EPA from GJK's simplex holding the origin; `None` on a non-finite support point.
fn epa2<A, B>(a: &A, b: &B, simplex: &Simplex2) -> Option<CorePenetration>
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    let (pa, pb) = simplex.witnesses();
    let triangle = match initial_triangle(a, b, simplex)? {
        Ok(triangle) => triangle,
        Err(normal) => return Some(CorePenetration { normal, depth: 0.0, point_a: pa, point_b: pb }),
    };
    let mut polygon = Polygon::new(triangle);
    let mut scale = triangle.iter().fold(0.0f32, |m, v| m.max(v.w.abs().max_element()));
    for _ in 0..MAX_ITERATIONS {
        let best = polygon.closest_edge();
        let Corner { normal, distance, .. } = polygon.corners[best];
        let vertex = support_vertex(a, b, normal)?;
        scale = scale.max(vertex.w.abs().max_element());
        let gap = normal.dot(vertex.w) - distance;
        let repeated = vertex.w == polygon.w(best) || vertex.w == polygon.w(polygon.next(best));
        if !(gap > EPA_RELATIVE * scale) || repeated || polygon.len == MAX_VERTICES {
            break;
        }
        polygon.insert(best, vertex);
    }
    // The origin's projection on the closest edge, as a weight along it.
    let best = polygon.closest_edge();
    let Corner { vertex: p, normal, distance } = polygon.corners[best];
    let q = polygon.corners[polygon.next(best)].vertex;
    let e = q.w - p.w;
    let ee = e.length_squared();
    let t = if ee > 0.0 { (-p.w.dot(e) / ee).clamp(0.0, 1.0) } else { 0.0 };
    Some(CorePenetration {
        normal,
        depth: distance.max(0.0),
        point_a: p.a.lerp(q.a, t),
        point_b: p.b.lerp(q.b, t),
    })
}

/// A counter-clockwise triangle of `A - B` vertices holding the origin, grown from GJK's simplex
/// (a triangle holding it, or a point or segment through it when the cores only touch); `Err`
/// with the contact normal when `A - B` is flat (a point or a segment: depth 0). `None` on a
/// non-finite support point.
fn initial_triangle<A, B>(a: &A, b: &B, simplex: &Simplex2) -> Option<Result<[Vertex2; 3], Vec2>>
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    let [mut p, mut q, r] = simplex.v;
    let mut scale = simplex.v[..simplex.len].iter().fold(0.0f32, |m, v| m.max(v.w.abs().max_element()));
    if simplex.len == 3 {
        // GJK's triangle holds the origin and has a non-zero area (its test is exact).
        if orient2d(p.w, q.w, r.w) < 0 {
            std::mem::swap(&mut p, &mut q);
        }
        return Some(Ok([p, q, r]));
    }
    if simplex.len == 1 {
        // The farthest of four axis supports from the single vertex.
        let mut far = (0.0f32, p);
        for dir in [Vec2::X, Vec2::NEG_X, Vec2::Y, Vec2::NEG_Y] {
            let v = support_vertex(a, b, dir)?;
            scale = scale.max(v.w.abs().max_element());
            let d = (v.w - p.w).length();
            if d > far.0 {
                far = (d, v);
            }
        }
        if !(far.0 > FLAT_RELATIVE * scale) {
            return Some(Err(Vec2::Y));
        }
        q = far.1;
    }
    // A segment through the origin: the support on the side where `A - B` extends farther.
    let n = (q.w - p.w).perp().normalize_or_zero();
    let (up, down) = (support_vertex(a, b, n)?, support_vertex(a, b, -n)?);
    scale = scale.max(up.w.abs().max_element()).max(down.w.abs().max_element());
    let (h_up, h_down) = (n.dot(up.w - p.w), -n.dot(down.w - p.w));
    if !(h_up.max(h_down) > FLAT_RELATIVE * scale) {
        // Flat along the segment: its normal, from A's extent toward B's (twice the difference
        // of the midpoints of their supports along it).
        let toward_b = (b.support(n) + b.support(-n)) - (a.support(n) + a.support(-n));
        return Some(Err(if toward_b.dot(n) < 0.0 { -n } else { n }));
    }
    // `n` is `p → q` turned counter-clockwise: the vertex above makes a counter-clockwise
    // triangle, the one below a clockwise one.
    Some(Ok(if h_up >= h_down { [p, q, up] } else { [q, p, down] }))
}
