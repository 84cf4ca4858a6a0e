//! Queries on a [`TriMesh`] in its own (local) space: rays, segments and polylines, spheres,
//! boxes, points. Placed instances ([`super::MeshInstance`]) map their queries into this space.

use super::trimesh::TriMesh;
use crate::bounds::{Aabb3, Obb3, Sphere};
use crate::bvh::ray_limit;
use crate::math::Ray3;
use crate::primitive::{
    RayHit3, RayTriangleSetup, TriangleCrossing, TriangleFeature, closest_point_triangle,
    distance_squared_lower_bound_triangles4, ray_triangle_with, test_sphere_triangle, test_triangle_aabb,
};
use glam::{Vec3, Vec4};

/// The first hit along a polyline: which segment and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolylineHit {
    /// Segment `i` runs from `points[i]` to `points[i + 1]`.
    pub segment: usize,
    /// The hit, with `t ∈ [0, 1]` along that segment.
    pub hit: RayHit3,
}

/// The closest point of a mesh to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshPointProjection {
    pub point: Vec3,
    pub distance: f32,
    /// The triangle the closest point lies on.
    pub triangle: u32,
    /// Which feature of that triangle it lies on.
    pub feature: TriangleFeature,
}

/// The deepest contact between a mesh (A) and a sphere (B).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshSphereContact {
    /// The point of the mesh surface closest to the sphere's center.
    pub point: Vec3,
    /// Unit normal from the mesh to the sphere: moving the sphere along it separates them.
    pub normal: Vec3,
    /// Signed distance, `<= 0` (the ball touches or penetrates): minus how far the sphere must
    /// move along `normal` to only touch.
    pub separation: f32,
    pub triangle: u32,
}

impl TriMesh {
    /// The closest hit of the ray within `[0, max_t]`, or `None`: `t`, the triangle's unit
    /// geometric normal facing against the ray, and the triangle's id as the hit's `part` (its
    /// barycentric weights at `ray.at(t)` from [`TriMesh::barycentric`]). Triangles are two-sided
    /// and the test is watertight (see [`crate::primitive::ray_triangle`]).
    pub fn cast_ray(&self, ray: &Ray3, max_t: f32) -> Option<RayHit3> {
        let (k, hit) = self.closest_ray_slot(ray, max_t)?;
        Some(self.ray_hit(k, hit))
    }

    /// The parameter `t` of the closest hit within `[0, max_t]`, or `None`: [`TriMesh::cast_ray`]
    /// without the rest of the hit record (normal and triangle), for callers
    /// that only need how far the ray gets.
    pub fn cast_ray_t(&self, ray: &Ray3, max_t: f32) -> Option<f32> {
        self.closest_ray_slot(ray, max_t).map(|(_, hit)| hit.t)
    }

    /// The closest hit within `[0, max_t]` and the leaf slot of its triangle: front-to-back
    /// traversal, each leaf's triangles tested in order with the limit lowered by every hit.
    fn closest_ray_slot(&self, ray: &Ray3, max_t: f32) -> Option<(u32, TriangleCrossing)> {
        let setup = RayTriangleSetup::new(ray);
        let mut best = None;
        // The leaf test is forced inline: called out of line, its call costs a frame and the
        // reload of the traversal's per-ray vectors at every leaf.
        self.bvh().cast_ray(
            ray,
            max_t,
            #[inline(always)]
            |range, limit| {
                self.prefetch_slots(range.clone());
                let mut limit = limit;
                let mut found = None;
                for k in range {
                    if let Some(hit) = ray_triangle_with(&setup, limit, self.slot_corners(k)) {
                        limit = hit.t;
                        found = Some(limit);
                        best = Some((k, hit));
                    }
                }
                found
            },
        )?;
        best
    }

    /// True if the ray hits any triangle within `[0, max_t]`; stops at the first hit found.
    pub fn intersects_ray(&self, ray: &Ray3, max_t: f32) -> bool {
        let Some(max_t) = ray_limit(max_t) else { return false };
        let setup = RayTriangleSetup::new(ray);
        // Near to far by each node's stored order for the ray's octant, not sorted by entry
        // parameter as for the closest hit: a search that stops at the first hit needs no limit,
        // so a few more node visits cost less than sorting every node's children.
        self.bvh().cast_ray_any(
            ray,
            max_t,
            #[inline(always)]
            |mut range| {
                self.prefetch_slots(range.clone());
                range.any(|k| ray_triangle_with(&setup, max_t, self.slot_corners(k)).is_some())
            },
        )
    }

    /// Every hit within `[0, max_t]`, appended to `hits` in increasing `t`. A ray through a shared
    /// edge or vertex may report each triangle around it.
    pub fn cast_ray_all(&self, ray: &Ray3, max_t: f32, hits: &mut Vec<RayHit3>) {
        let Some(max_t) = ray_limit(max_t) else { return };
        let setup = RayTriangleSetup::new(ray);
        let boxes = self.bvh().ray_box_setup(ray);
        let start = hits.len();
        self.bvh().traverse(
            |node| node.ray_entry(&boxes, max_t).1,
            |range| {
                for k in range {
                    if let Some(hit) = ray_triangle_with(&setup, max_t, self.slot_corners(k)) {
                        hits.push(self.ray_hit(k, hit));
                    }
                }
                true
            },
        );
        hits[start..].sort_by(|a, b| a.t.total_cmp(&b.t).then(a.part.cmp(&b.part)));
    }

    /// The closest hit of the segment `a → b` (`t ∈ [0, 1]`).
    pub fn cast_segment(&self, a: Vec3, b: Vec3) -> Option<RayHit3> {
        self.cast_ray(&Ray3::from_segment(a, b), 1.0)
    }

    /// The first hit along the polyline `points[0] → points[1] → …` (a bendy beam, such as a rope or a curved shot): the
    /// segments are tested in order and the first one that hits returns its closest hit.
    pub fn cast_polyline(&self, points: &[Vec3]) -> Option<PolylineHit> {
        points
            .windows(2)
            .enumerate()
            .find_map(|(segment, w)| self.cast_segment(w[0], w[1]).map(|hit| PolylineHit { segment, hit }))
    }

    /// True if the solid ball touches the mesh: some triangle, or, for a solid mesh, the inside
    /// (a ball whose centre is inside).
    pub fn intersects_sphere(&self, sphere: &Sphere) -> bool {
        if !(sphere.radius >= 0.0) {
            return false;
        }
        self.sphere_touches_surface(sphere) || self.contains_point(sphere.center) == Some(true)
    }

    /// True if the solid ball touches some triangle: the surface only, also for a solid mesh (a
    /// ball entirely inside a closed mesh does not touch it).
    pub fn sphere_touches_surface(&self, sphere: &Sphere) -> bool {
        let r2 = sphere.radius * sphere.radius;
        !self.bvh().traverse(
            |node| sphere_mask(node, sphere.center, r2),
            |mut range| !range.any(|k| test_sphere_triangle(sphere, self.slot_corners(k))),
        )
    }

    /// Appends the ids of every triangle the ball touches to `out` (in no particular order).
    pub fn sphere_triangles(&self, sphere: &Sphere, out: &mut Vec<u32>) {
        let r2 = sphere.radius * sphere.radius;
        self.bvh().traverse(
            |node| sphere_mask(node, sphere.center, r2),
            |range| {
                out.extend(
                    range
                        .filter(|&k| test_sphere_triangle(sphere, self.slot_corners(k)))
                        .map(|k| self.slot_id(k)),
                );
                true
            },
        );
    }

    /// The deepest contact of the ball with the mesh, or `None` if they do not touch.
    ///
    /// For a solid mesh the ball also collides when its center is inside (even far from the
    /// surface): the depth (minus the separation) is then `radius + distance to the surface` and
    /// the normal points out of the mesh. For a surface mesh the depth is `radius - distance to the closest triangle` and
    /// the normal points from that triangle to the center. When the center lies exactly on the
    /// surface the normal is the surface's pseudo-normal there (solid) or the triangle normal.
    pub fn sphere_contact(&self, sphere: &Sphere) -> Option<MeshSphereContact> {
        if !(sphere.radius >= 0.0) || !sphere.center.is_finite() {
            return None;
        }
        let c = sphere.center;
        // Touching the surface: decided by the closest point within the radius. Otherwise the
        // ball can only collide by lying deep inside, which needs the unbounded search.
        let (proj, k, inside) = match self.closest_in_slots(c, sphere.radius) {
            Some((proj, k)) => (proj, k, self.is_solid() && self.is_inside_at(c, &proj, k)),
            None if self.contains_point(c) == Some(true) => {
                let (proj, k) = self.closest_in_slots(c, f32::INFINITY)?;
                (proj, k, true)
            }
            None => return None,
        };
        let away = c - proj.point;
        let surface_normal = || {
            let n = self.pseudo_normal(k, proj.feature);
            if n == Vec3::ZERO { face_normal(self.slot_corners(k)) } else { n }
        };
        let (normal, depth) = if inside {
            ((-away).try_normalize().unwrap_or_else(surface_normal), sphere.radius + proj.distance)
        } else if proj.distance <= sphere.radius {
            (away.try_normalize().unwrap_or_else(surface_normal), sphere.radius - proj.distance)
        } else {
            return None;
        };
        Some(MeshSphereContact { point: proj.point, normal, separation: -depth, triangle: proj.triangle })
    }

    /// Appends the ids of every triangle that touches the closed box.
    pub fn aabb_triangles(&self, aabb: &Aabb3, out: &mut Vec<u32>) {
        if !aabb.is_valid() {
            return;
        }
        self.bvh().traverse(
            |node| node.overlap_mask(aabb.min, aabb.max),
            |range| {
                out.extend(
                    range
                        .filter(|&k| test_triangle_aabb(self.slot_corners(k), aabb))
                        .map(|k| self.slot_id(k)),
                );
                true
            },
        );
    }

    /// Appends the ids of every triangle that touches the oriented box.
    pub fn obb_triangles(&self, obb: &Obb3, out: &mut Vec<u32>) {
        let cull = obb.aabb();
        if !cull.is_valid() || !obb.half_extents.cmpge(Vec3::ZERO).all() {
            return;
        }
        // Exact leaf test in the box's frame, where it is the AABB [-h, h].
        let local_box = Aabb3::new(-obb.half_extents, obb.half_extents);
        let to_local = obb.axes.transpose();
        self.bvh().traverse(
            |node| node.overlap_mask(cull.min, cull.max),
            |range| {
                out.extend(
                    range
                        .filter(|&k| {
                            let local = self.slot_corners(k).map(|p| to_local * (p - obb.center));
                            test_triangle_aabb(&local, &local_box)
                        })
                        .map(|k| self.slot_id(k)),
                );
                true
            },
        );
    }

    /// The closest point of the mesh to `p` within `max_distance`, or `None` if no triangle is
    /// that close (or `p` is not finite).
    pub fn closest_point(&self, p: Vec3, max_distance: f32) -> Option<MeshPointProjection> {
        self.closest_in_slots(p, max_distance).map(|(proj, _)| proj)
    }

    /// For a solid mesh, whether `p` lies inside or on the surface; `None` for surface meshes or
    /// a non-finite `p`. Inside is where the winding number is not zero (see [`TriMesh`]).
    ///
    /// Decided by the angle-weighted pseudo-normal at the closest surface point, which is correct
    /// for points arbitrarily close to edges and vertices (up to the rounding of the closest-point
    /// computation, far below 1e-6 of the mesh size). For a mesh that passes through itself, by
    /// the signed count of a ray's crossings instead.
    pub fn contains_point(&self, p: Vec3) -> Option<bool> {
        let solid = self.solid()?;
        if !p.is_finite() {
            return None;
        }
        if solid.self_intersecting {
            return Some(self.inside_by_winding(p));
        }
        if let Some(inside) = self.inside_by_ray(p) {
            return Some(inside);
        }
        let (proj, k) = self.closest_in_slots(p, f32::INFINITY)?;
        Some(self.is_inside_by(p, &proj, k))
    }

    /// The fast inside test: cast a ray from `p`; if its first hit lies well inside a triangle
    /// (away from every edge), `p` is inside exactly when the ray leaves through that triangle's
    /// back, i.e. sees its inner side. `None` when the first hit is near an edge or vertex, where
    /// the side is decided by the pseudo-normal test instead.
    fn inside_by_ray(&self, p: Vec3) -> Option<bool> {
        if !self.bounds().contains_point(p) {
            return Some(false);
        }
        // A fixed direction not parallel to any coordinate plane or diagonal, so axis-aligned
        // meshes are never hit edge-on.
        let ray = Ray3::new(p, Vec3::new(0.5773, 0.6131, 0.5391));
        let Some((_, hit)) = self.closest_ray_slot(&ray, f32::MAX) else { return Some(false) };
        if hit.t == 0.0 {
            return Some(true); // on the surface
        }
        let margin = (1.0 - hit.u - hit.v).min(hit.u).min(hit.v);
        let outward_front = self.solid()?.orientation > 0.0;
        (margin > 1e-3).then_some(hit.front != outward_front)
    }

    /// For a solid mesh, the signed distance from `p` to the surface: negative inside, positive
    /// outside, with the sign of [`TriMesh::contains_point`]; `None` for surface meshes or a
    /// non-finite `p`. The magnitude is the distance to the nearest triangle. Where the mesh
    /// passes through itself some triangles lie inside the solid, so there it is a lower bound of
    /// the distance to the solid's boundary.
    pub fn signed_distance(&self, p: Vec3) -> Option<f32> {
        if !self.is_solid() {
            return None;
        }
        let (proj, k) = self.closest_in_slots(p, f32::INFINITY)?;
        Some(if self.is_inside_at(p, &proj, k) { -proj.distance } else { proj.distance })
    }

    /// The inside test of a solid mesh at `p`, whose closest surface point `proj` lies in slot
    /// `k`: the pseudo-normal there, or for a mesh that passes through itself the winding number
    /// (as [`TriMesh::contains_point`]).
    fn is_inside_at(&self, p: Vec3, proj: &MeshPointProjection, k: u32) -> bool {
        if self.solid().is_some_and(|s| s.self_intersecting) {
            self.inside_by_winding(p)
        } else {
            self.is_inside_by(p, proj, k)
        }
    }

    /// Whether the winding number of the (solid) surface around `p` is not zero, or `p` lies on
    /// the surface.
    ///
    /// The winding number of a closed surface is the signed number of times any ray from `p`
    /// crosses it: +1 leaving through a triangle's back, -1 through its front. A crossing counts
    /// once only when it lies clearly inside one triangle; a ray that meets an edge or a vertex
    /// (or lies in a triangle's plane there) may be counted by both triangles or by neither, so
    /// the next of a few fixed directions is tried. If all of them graze an edge, the sum of
    /// the triangles' solid angles decides (Van Oosterom and Strackee, "The solid angle of a
    /// plane triangle", IEEE TBME 1983), visiting every triangle.
    fn inside_by_winding(&self, p: Vec3) -> bool {
        if !self.bounds().contains_point(p) {
            return false;
        }
        let winding = WINDING_DIRECTIONS
            .iter()
            .find_map(|&dir| self.ray_winding(p, dir))
            .unwrap_or_else(|| self.solid_angle_winding(p));
        winding != 0 || self.closest_in_slots(p, 0.0).is_some()
    }

    /// The signed crossing count of the ray from `p` along `dir` (see
    /// [`TriMesh::inside_by_winding`]), `1` if the ray starts on a triangle, `None` if some
    /// crossing lies within [`WINDING_EDGE_MARGIN`] (barycentric) of a triangle's edge.
    fn ray_winding(&self, p: Vec3, dir: Vec3) -> Option<i32> {
        let ray = Ray3::new(p, dir);
        let max_t = ray_limit(f32::MAX)?;
        let setup = RayTriangleSetup::new(&ray);
        let boxes = self.bvh().ray_box_setup(&ray);
        let mut winding = Some(0);
        self.bvh().traverse(
            |node| node.ray_entry(&boxes, max_t).1,
            |range| {
                for k in range {
                    let Some(hit) = ray_triangle_with(&setup, max_t, self.slot_corners(k)) else { continue };
                    let margin = (1.0 - hit.u - hit.v).min(hit.u).min(hit.v);
                    winding = match winding {
                        _ if hit.t == 0.0 => Some(1),
                        Some(w) if margin > WINDING_EDGE_MARGIN => Some(w + if hit.front { -1 } else { 1 }),
                        _ => None,
                    };
                    if winding.is_none() || hit.t == 0.0 {
                        return false;
                    }
                }
                true
            },
        );
        winding
    }

    /// The winding number around `p` from the sum of the triangles' signed solid angles in
    /// `f64`, rounded to the nearest integer (see [`TriMesh::inside_by_winding`]).
    #[cold]
    fn solid_angle_winding(&self, p: Vec3) -> i32 {
        let p = p.as_dvec3();
        let total: f64 = (0..self.triangle_count() as u32)
            .map(|k| {
                let [a, b, c] = self.slot_corners(k).map(|v| v.as_dvec3() - p);
                let (la, lb, lc) = (a.length(), b.length(), c.length());
                let numerator = a.dot(b.cross(c));
                let denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
                2.0 * numerator.atan2(denominator)
            })
            .sum();
        (total / (4.0 * std::f64::consts::PI)).round() as i32
    }

    fn ray_hit(&self, k: u32, crossing: TriangleCrossing) -> RayHit3 {
        RayHit3 { t: crossing.t, normal: crossing.normal(self.slot_corners(k)), part: self.slot_id(k) }
    }

    /// The barycentric weights of the corners of triangle `triangle` at `p` (mesh space), for a
    /// point on the triangle such as a ray hit's `ray.at(t)`: the weights of `p`'s projection
    /// onto the triangle's plane, `None` for an unknown id or a triangle without area.
    pub fn barycentric(&self, triangle: u32, p: Vec3) -> Option<Vec3> {
        let [a, b, c] = self.triangle(triangle)?;
        // Cramer's rule on the normal equations of p - a = u (b - a) + v (c - a).
        let (e1, e2, d) = ((b - a).as_dvec3(), (c - a).as_dvec3(), (p - a).as_dvec3());
        let (d11, d12, d22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
        let (d1, d2) = (d.dot(e1), d.dot(e2));
        let det = d11 * d22 - d12 * d12;
        if !(det > 0.0) {
            return None;
        }
        let u = (d22 * d1 - d12 * d2) / det;
        let v = (d11 * d2 - d12 * d1) / det;
        Some(Vec3::new((1.0 - u - v) as f32, u as f32, v as f32))
    }

    /// Best-first closest point search; also returns the leaf slot of the winning triangle.
    fn closest_in_slots(&self, p: Vec3, max_distance: f32) -> Option<(MeshPointProjection, u32)> {
        if !p.is_finite() || !(max_distance >= 0.0) {
            return None;
        }
        let max_d2 = if max_distance.is_finite() { max_distance * max_distance } else { f32::INFINITY };
        // The traversal limit falls with every triangle found and with every node whose tight
        // child boxes bound the answer from above (`min_max_distance_squared`), widened by a
        // relative 1e-5 so that its rounding cannot prune the true nearest triangle. The bound
        // is computed from differences to `p` (relative rounding error), unlike a triangle's
        // closest point, so a triangle is kept as the best by its own distance, not by the limit.
        let mut best: Option<(u32, _, f32)> = None;
        self.bvh().traverse_ordered(
            max_d2.min(f32::MAX),
            |node, limit| {
                let upper = node.min_max_distance_squared(p).min_element() * (1.0 + 1e-5);
                *limit = limit.min(upper);
                let d2 = node.distance_squared(p);
                (d2, d2.cmple(Vec4::splat(*limit)).bitmask())
            },
            |range, limit| {
                self.prefetch_slots(range.clone());
                let mut limit = limit;
                let mut found = None;
                // Four triangles at a time get a cheap lower bound of their distance; only those
                // it cannot rule out against the current limit get the exact closest point.
                for first in range.clone().step_by(4) {
                    let lanes = (range.end - first).min(4);
                    let bounds =
                        distance_squared_lower_bound_triangles4(p, &self.slot_triangles4(first, range.end));
                    // Widened by 80 ulps, so that rounding in the bound does not skip a triangle
                    // that ties with the best so far (the brute-force scan would keep either).
                    let mut mask =
                        !bounds.cmpgt(Vec4::splat(limit * (1.0 + 1e-5))).bitmask() & ((1 << lanes) - 1);
                    while mask != 0 {
                        let lane = mask.trailing_zeros();
                        mask &= mask - 1;
                        if bounds[lane as usize] > limit * (1.0 + 1e-5) {
                            continue;
                        }
                        let k = first + lane;
                        let c = closest_point_triangle(p, self.slot_corners(k));
                        let d2 = (c.point - p).length_squared();
                        if best.is_none_or(|(_, _, d)| d2 < d) {
                            best = Some((k, c, d2));
                            if d2 < limit {
                                limit = d2;
                                found = Some(d2);
                            }
                        }
                    }
                }
                found
            },
        );
        let (k, c, d2) = best.filter(|&(_, _, d2)| d2 <= max_d2)?;
        let proj = MeshPointProjection {
            point: c.point,
            distance: d2.sqrt(),
            triangle: self.slot_id(k),
            feature: c.feature,
        };
        Some((proj, k))
    }

    /// Inside test at a closest point: the sign of `(p - q) · n` with the pseudo-normal of the
    /// feature `q` lies on. Points on the surface count as inside.
    fn is_inside_by(&self, p: Vec3, proj: &MeshPointProjection, k: u32) -> bool {
        let n = self.pseudo_normal(k, proj.feature);
        (p - proj.point).dot(n) <= 0.0
    }

    /// The outward angle-weighted pseudo-normal (not normalized) of a feature of the triangle in
    /// slot `k`; zero for surface meshes.
    fn pseudo_normal(&self, k: u32, feature: TriangleFeature) -> Vec3 {
        let Some(solid) = self.solid() else { return Vec3::ZERO };
        let n = match feature {
            TriangleFeature::Face => face_normal(self.slot_corners(k)),
            TriangleFeature::Edge(i) => {
                let across = solid.neighbors[k as usize][i as usize];
                let other =
                    if across == u32::MAX { Vec3::ZERO } else { face_normal(self.slot_corners(across)) };
                face_normal(self.slot_corners(k)) + other
            }
            TriangleFeature::Vertex(i) => {
                let id = self.slot_id(k);
                solid.vertex_normals[self.triangles()[id as usize][i as usize] as usize]
            }
        };
        n * solid.orientation
    }
}

/// The ray directions [`TriMesh::inside_by_winding`] tries in turn: not parallel to a coordinate
/// plane or diagonal (axis-aligned meshes are never met edge-on), and not coplanar, so that no
/// triangle's plane holds all three.
const WINDING_DIRECTIONS: [Vec3; 3] = [
    Vec3::new(0.5773, 0.6131, 0.5391),
    Vec3::new(-0.6963, 0.2181, 0.6838),
    Vec3::new(0.2718, -0.8412, 0.4675),
];

/// How far (in barycentric coordinates) a crossing must lie from a triangle's edges to count
/// in [`TriMesh::ray_winding`]: far above the rounding of the watertight test's coordinates (a
/// few ulps), so a crossing this clear is inside that triangle and no neighbour's.
const WINDING_EDGE_MARGIN: f32 = 1e-5;

/// Children whose box is within `sqrt(r2)` of `center`.
#[inline]
fn sphere_mask(node: &crate::bvh::Node4, center: Vec3, r2: f32) -> u32 {
    node.distance_squared(center).cmple(Vec4::splat(r2)).bitmask()
}

/// Unit normal `(b - a) × (c - a)`, zero for a degenerate triangle.
#[inline]
fn face_normal(t: &[Vec3; 3]) -> Vec3 {
    (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero()
}
