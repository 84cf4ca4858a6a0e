//! A shared mesh placed in the world by any affine map.

use super::mesh_mesh::{
    MeshContact, MeshDistance, MeshMeshCache, MeshOverlap, Relative, contacts_in_frame, distance_in_frame,
    overlap_in_frame,
};
use super::query::{MeshPointProjection, MeshSphereContact, PolylineHit};
use super::trimesh::TriMesh;
use crate::bounds::{Aabb3, Obb3, Sphere};
use crate::bvh::Node4;
use crate::math::Ray3;
use crate::primitive::{
    RayHit3, TriangleFeature, closest_point_triangle, test_sphere_triangle, test_triangle_aabb,
};
use glam::{Affine3A, Mat3, Vec3, Vec4};
use std::sync::Arc;

/// A [`TriMesh`] placed by an affine map: rotation, translation, non-uniform scale, shear or
/// reflection. Creating one costs a 3×3 inverse; the mesh and its BVH are shared, never copied or
/// rebuilt, so thousands of instances of a few meshes cost little more than the meshes.
///
/// Queries take and return world-space values. They run in mesh space through the inverse map:
/// rays keep their parameter `t` under an affine map, so ray casts are exact; sphere, box and
/// point queries cull the mesh's BVH with conservative bounds of the mapped node boxes and decide
/// every candidate triangle exactly in world space (the triangle's corners mapped to the world), so their answers do not
/// depend on the placement beyond `f32` rounding.
#[derive(Clone, Debug)]
pub struct MeshInstance {
    to_world: Affine3A,
    to_local_linear: Mat3,
    to_local_translation: Vec3,
    mesh: Arc<TriMesh>,
}

/// Why an instance could not be placed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlacementError {
    /// The map has a non-finite entry.
    NonFinite,
    /// The map collapses space (determinant zero or too small to invert in `f32`).
    Singular { determinant: f32 },
}

impl std::fmt::Display for PlacementError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlacementError::NonFinite => write!(f, "the placement has a non-finite entry"),
            PlacementError::Singular { determinant } => write!(
                f,
                "the placement is singular or cannot be inverted in f32 (determinant {determinant:e}, \
                 against entries of its size)"
            ),
        }
    }
}

impl std::error::Error for PlacementError {}

impl MeshInstance {
    /// Places `mesh` by `to_world` (mesh space → world space). Refuses non-finite and singular
    /// maps.
    pub fn new(mesh: Arc<TriMesh>, to_world: Affine3A) -> Result<MeshInstance, PlacementError> {
        let linear = Mat3::from(to_world.matrix3);
        if !to_world.is_finite() {
            return Err(PlacementError::NonFinite);
        }
        let determinant = linear.determinant();
        let scale = linear.to_cols_array().iter().fold(0.0f32, |m, x| m.max(x.abs()));
        // Relative to the entries' size, so that tiny but well-conditioned scales are accepted.
        if !(determinant.abs() > 1e-18 * scale * scale * scale) {
            return Err(PlacementError::Singular { determinant });
        }
        let to_local_linear = linear.inverse();
        let to_local_translation = -(to_local_linear * Vec3::from(to_world.translation));
        // The relative test above passes a tiny determinant when the size threshold underflows
        // (scales near 1e-13), and a far translation can overflow under a large inverse: the
        // inverse itself must be finite, as every query maps through it.
        if !(to_local_linear.is_finite() && to_local_translation.is_finite()) {
            return Err(PlacementError::Singular { determinant });
        }
        Ok(MeshInstance { to_world, to_local_linear, to_local_translation, mesh })
    }

    pub fn mesh(&self) -> &Arc<TriMesh> {
        &self.mesh
    }

    pub fn to_world(&self) -> &Affine3A {
        &self.to_world
    }

    /// The world box around the placed mesh (the exact box of the mesh's BVH root box under the
    /// map, so slightly larger than the tightest box of the placed vertices).
    pub fn bounds(&self) -> Aabb3 {
        self.mesh.bounds().transformed(&self.to_world)
    }

    #[inline]
    fn to_local(&self, p: Vec3) -> Vec3 {
        self.to_local_linear * p + self.to_local_translation
    }

    #[inline]
    fn world_corners(&self, k: u32) -> [Vec3; 3] {
        self.mesh.slot_corners(k).map(|p| self.to_world.transform_point3(p))
    }

    /// The ray in mesh space: same parameter `t` for the same point.
    #[inline]
    fn local_ray(&self, ray: &Ray3) -> Ray3 {
        Ray3::new(self.to_local(ray.origin), self.to_local_linear * ray.dir)
    }

    /// A mesh-space hit mapped back: the world normal (the inverse transpose of the map applied to
    /// the mesh normal), facing against the world ray; `t` is the same in both spaces.
    fn world_hit(&self, ray: &Ray3, hit: RayHit3) -> RayHit3 {
        let normal = (self.to_local_linear.transpose() * hit.normal).normalize_or_zero();
        let normal = if normal.dot(ray.dir) > 0.0 { -normal } else { normal };
        RayHit3 { normal, ..hit }
    }

    /// The barycentric weights of the corners of triangle `triangle` at the world point `p`
    /// (see [`TriMesh::barycentric`]; an affine map keeps barycentric weights).
    pub fn barycentric(&self, triangle: u32, p: Vec3) -> Option<Vec3> {
        self.mesh.barycentric(triangle, self.to_local(p))
    }

    /// The closest hit within `[0, max_t]`; see [`TriMesh::cast_ray`].
    pub fn cast_ray(&self, ray: &Ray3, max_t: f32) -> Option<RayHit3> {
        self.mesh.cast_ray(&self.local_ray(ray), max_t).map(|hit| self.world_hit(ray, hit))
    }

    /// The parameter `t` of the closest hit within `[0, max_t]`; see [`TriMesh::cast_ray_t`]. The
    /// placement maps the whole ray, so `t` is the same in world and mesh space.
    pub fn cast_ray_t(&self, ray: &Ray3, max_t: f32) -> Option<f32> {
        self.mesh.cast_ray_t(&self.local_ray(ray), max_t)
    }

    /// True if the ray hits the mesh within `[0, max_t]`.
    pub fn intersects_ray(&self, ray: &Ray3, max_t: f32) -> bool {
        self.mesh.intersects_ray(&self.local_ray(ray), max_t)
    }

    /// Every hit within `[0, max_t]`, appended in increasing `t`.
    pub fn cast_ray_all(&self, ray: &Ray3, max_t: f32, hits: &mut Vec<RayHit3>) {
        let start = hits.len();
        self.mesh.cast_ray_all(&self.local_ray(ray), max_t, hits);
        for hit in &mut hits[start..] {
            *hit = self.world_hit(ray, *hit);
        }
    }

    /// The first hit along a polyline of world points; see [`TriMesh::cast_polyline`].
    pub fn cast_polyline(&self, points: &[Vec3]) -> Option<PolylineHit> {
        points.windows(2).enumerate().find_map(|(segment, w)| {
            let ray = Ray3::from_segment(w[0], w[1]);
            self.cast_ray(&ray, 1.0).map(|hit| PolylineHit { segment, hit })
        })
    }

    /// Casts many rays (each with its own `max_t`), writing one result per ray into `out`
    /// (`out` is cleared first). Parallel over rays with the `parallel` feature.
    pub fn cast_rays(&self, rays: &[(Ray3, f32)], out: &mut Vec<Option<RayHit3>>) {
        out.clear();
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            rays.par_iter().map(|(ray, max_t)| self.cast_ray(ray, *max_t)).collect_into_vec(out);
        }
        #[cfg(not(feature = "parallel"))]
        out.extend(rays.iter().map(|(ray, max_t)| self.cast_ray(ray, *max_t)));
    }

    /// Any-hit tests for many rays (each with its own `max_t`), writing one answer per ray into
    /// `out` (cleared first): shadow rays in bulk. Parallel over rays with the `parallel` feature.
    pub fn intersects_rays(&self, rays: &[(Ray3, f32)], out: &mut Vec<bool>) {
        out.clear();
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            rays.par_iter().map(|(ray, max_t)| self.intersects_ray(ray, *max_t)).collect_into_vec(out);
        }
        #[cfg(not(feature = "parallel"))]
        out.extend(rays.iter().map(|(ray, max_t)| self.intersects_ray(ray, *max_t)));
    }

    /// Tests many balls, writing one answer per ball into `out` (cleared first). Parallel over
    /// balls with the `parallel` feature.
    pub fn intersects_spheres(&self, spheres: &[Sphere], out: &mut Vec<bool>) {
        out.clear();
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            spheres.par_iter().map(|s| self.intersects_sphere(s)).collect_into_vec(out);
        }
        #[cfg(not(feature = "parallel"))]
        out.extend(spheres.iter().map(|s| self.intersects_sphere(s)));
    }

    /// True if the world ball touches the placed mesh: a triangle, or, for a solid mesh, the
    /// inside (as [`TriMesh::intersects_sphere`]).
    pub fn intersects_sphere(&self, sphere: &Sphere) -> bool {
        if !(sphere.radius >= 0.0) {
            return false;
        }
        self.sphere_touches_surface(sphere) || self.contains_point(sphere.center) == Some(true)
    }

    /// True if the world ball touches a triangle of the placed mesh: the surface only (as
    /// [`TriMesh::sphere_touches_surface`]).
    pub fn sphere_touches_surface(&self, sphere: &Sphere) -> bool {
        if !(sphere.radius >= 0.0) || !sphere.center.is_finite() {
            return false;
        }
        let r2 = Vec4::splat(sphere.radius * sphere.radius);
        !self.mesh.bvh().traverse(
            |node| self.world_distance_squared(node, sphere.center).cmple(r2).bitmask(),
            |mut range| !range.any(|k| test_sphere_triangle(sphere, &self.world_corners(k))),
        )
    }

    /// Appends the ids of every triangle the world ball touches.
    pub fn sphere_triangles(&self, sphere: &Sphere, out: &mut Vec<u32>) {
        if !(sphere.radius >= 0.0) || !sphere.center.is_finite() {
            return;
        }
        let r2 = Vec4::splat(sphere.radius * sphere.radius);
        self.mesh.bvh().traverse(
            |node| self.world_distance_squared(node, sphere.center).cmple(r2).bitmask(),
            |range| {
                out.extend(
                    range
                        .filter(|&k| test_sphere_triangle(sphere, &self.world_corners(k)))
                        .map(|k| self.mesh.slot_id(k)),
                );
                true
            },
        );
    }

    /// Appends the ids of every triangle touching the world box.
    pub fn aabb_triangles(&self, aabb: &Aabb3, out: &mut Vec<u32>) {
        if !aabb.is_valid() {
            return;
        }
        let cull = aabb.transformed(&self.to_local_affine());
        self.mesh.bvh().traverse(
            |node| node.overlap_mask(cull.min, cull.max),
            |range| {
                out.extend(
                    range
                        .filter(|&k| test_triangle_aabb(&self.world_corners(k), aabb))
                        .map(|k| self.mesh.slot_id(k)),
                );
                true
            },
        );
    }

    /// Appends the ids of every triangle touching the world oriented box.
    pub fn obb_triangles(&self, obb: &Obb3, out: &mut Vec<u32>) {
        let world_cull = obb.aabb();
        if !world_cull.is_valid() || !obb.half_extents.cmpge(Vec3::ZERO).all() {
            return;
        }
        let cull = world_cull.transformed(&self.to_local_affine());
        let local_box = Aabb3::new(-obb.half_extents, obb.half_extents);
        let to_box = obb.axes.transpose();
        self.mesh.bvh().traverse(
            |node| node.overlap_mask(cull.min, cull.max),
            |range| {
                out.extend(
                    range
                        .filter(|&k| {
                            let local = self.world_corners(k).map(|p| to_box * (p - obb.center));
                            test_triangle_aabb(&local, &local_box)
                        })
                        .map(|k| self.mesh.slot_id(k)),
                );
                true
            },
        );
    }

    /// The other instance's mesh space mapped into this one's: `self⁻¹ · other`.
    fn relative(&self, other: &MeshInstance) -> Affine3A {
        self.to_local_affine() * other.to_world
    }

    /// True if the placed meshes intersect: some triangles touch or cross, or one lies inside
    /// the other where that other is solid (see the mesh-against-mesh section of the
    /// [module](super)). Runs in this instance's mesh space, with `other` placed by
    /// `self⁻¹ · other`.
    pub fn intersects_mesh(&self, other: &MeshInstance, cache: Option<&mut MeshMeshCache>) -> bool {
        self.mesh.intersects_mesh(&other.mesh, &self.relative(other), cache)
    }

    /// How the placed meshes overlap (a witness, see [`MeshOverlap`]). The containment depth is
    /// measured in world space.
    pub fn mesh_overlap(
        &self,
        other: &MeshInstance,
        cache: Option<&mut MeshMeshCache>,
    ) -> Option<MeshOverlap> {
        let rel = Relative::new(&self.mesh, &other.mesh, &self.relative(other))?;
        overlap_in_frame(&self.mesh, &other.mesh, &rel, cache, &self.to_world)
    }

    /// Appends every intersecting pair `(triangle of self, triangle of other)` (ids), in no
    /// particular order. Surfaces only: containment adds no pairs.
    pub fn intersecting_triangles(&self, other: &MeshInstance, out: &mut Vec<(u32, u32)>) {
        self.mesh.intersecting_triangles(&other.mesh, &self.relative(other), out);
    }

    /// Appends the contact manifold of the placed meshes in world space (points, unit normals
    /// from this instance to `other`, separations measured in the world; see [`MeshContact`]):
    /// at most four points per touching region, one point when a mesh lies inside a solid one.
    /// Returns the number of touching regions.
    pub fn mesh_contacts(&self, other: &MeshInstance, out: &mut Vec<MeshContact>) -> usize {
        let Some(rel) = Relative::new(&self.mesh, &other.mesh, &self.relative(other)) else { return 0 };
        contacts_in_frame(&self.mesh, &other.mesh, &rel, &self.to_world, out)
    }

    /// The closest points of the placed surfaces in world space (world points and distance), if
    /// at most `max_distance` apart (`f32::INFINITY` for no limit; none for a NaN or negative
    /// limit). Both meshes' triangles are mapped to the world, so the distance is the world
    /// distance whatever the placements. It is the distance between the surfaces: a mesh inside a
    /// solid one is at a positive distance from it although the solids overlap.
    pub fn mesh_distance(&self, other: &MeshInstance, max_distance: f32) -> Option<MeshDistance> {
        distance_in_frame(&self.mesh, &self.to_world, &other.mesh, &other.to_world, max_distance)
    }

    fn to_local_affine(&self) -> Affine3A {
        Affine3A::from_mat3_translation(self.to_local_linear, self.to_local_translation)
    }

    /// The closest point of the placed mesh to the world point `p` within `max_distance` (world
    /// units), or `None`.
    pub fn closest_point(&self, p: Vec3, max_distance: f32) -> Option<MeshPointProjection> {
        self.closest_in_slots(p, max_distance).map(|(proj, _)| proj)
    }

    /// For a solid mesh, whether the world point is inside or on the placed surface (decided in
    /// mesh space, where the answer is the same because the map is a bijection).
    pub fn contains_point(&self, p: Vec3) -> Option<bool> {
        self.mesh.contains_point(self.to_local(p))
    }

    /// For a solid mesh, the signed world distance from `p` to the placed surface (negative
    /// inside).
    pub fn signed_distance(&self, p: Vec3) -> Option<f32> {
        let inside = self.contains_point(p)?;
        let (proj, _) = self.closest_in_slots(p, f32::INFINITY)?;
        Some(if inside { -proj.distance } else { proj.distance })
    }

    /// The deepest contact of the world ball with the placed mesh; see
    /// [`TriMesh::sphere_contact`] for the solid and surface semantics.
    pub fn sphere_contact(&self, sphere: &Sphere) -> Option<MeshSphereContact> {
        if !(sphere.radius >= 0.0) || !sphere.center.is_finite() {
            return None;
        }
        let c = sphere.center;
        // Touching the surface: decided by the closest point within the radius (inside or not by
        // the mesh-space test). Otherwise only a ball deep inside collides.
        let (proj, k, inside) = match self.closest_in_slots(c, sphere.radius) {
            Some((proj, k)) => (proj, k, self.contains_point(c) == Some(true)),
            None if self.contains_point(c) == Some(true) => {
                let (proj, k) = self.closest_in_slots(c, f32::INFINITY)?;
                (proj, k, true)
            }
            None => return None,
        };
        let away = c - proj.point;
        let face = || {
            let [a, b, cc] = self.world_corners(k);
            let n = (b - a).cross(cc - a).normalize_or_zero();
            // Face normals of a reflected placement point inward; the solid's own sense wins.
            if self.to_world.matrix3.determinant() < 0.0 { -n } else { n }
        };
        let (normal, depth) = if inside {
            ((-away).try_normalize().unwrap_or_else(face), sphere.radius + proj.distance)
        } else if proj.distance <= sphere.radius {
            (away.try_normalize().unwrap_or_else(face), sphere.radius - proj.distance)
        } else {
            return None;
        };
        Some(MeshSphereContact { point: proj.point, normal, separation: -depth, triangle: proj.triangle })
    }

    /// Lower bounds of the squared world distances from `p` to the four children of a node: the
    /// distance to the world box around each mapped child box (Arvo's box of a box under an
    /// affine map), shrunk by a few ulps so that rounding cannot lift it above the truth.
    #[inline]
    fn world_distance_squared(&self, node: &Node4, p: Vec3) -> Vec4 {
        let m = self.to_world.matrix3;
        let t = self.to_world.translation;
        let b = &node.bounds;
        let center = [(b[0] + b[3]) * 0.5, (b[1] + b[4]) * 0.5, (b[2] + b[5]) * 0.5];
        let half = [(b[3] - b[0]) * 0.5, (b[4] - b[1]) * 0.5, (b[5] - b[2]) * 0.5];
        let mut d2 = Vec4::ZERO;
        for axis in 0..3 {
            let r = m.row(axis);
            let c = center[0] * r.x + center[1] * r.y + center[2] * r.z + Vec4::splat(t[axis]);
            let h = half[0] * r.x.abs() + half[1] * r.y.abs() + half[2] * r.z.abs();
            let gap = ((Vec4::splat(p[axis]) - c).abs() - h).max(Vec4::ZERO);
            d2 += gap * gap;
        }
        d2 * (1.0 - 1e-5)
    }

    /// Best-first closest point in world distance. Each child box is keyed by the world distance
    /// to the world box around the mapped box (Arvo's box of a box under an affine map), which is
    /// a lower bound of the distance to anything inside it.
    fn closest_in_slots(&self, p: Vec3, max_distance: f32) -> Option<(MeshPointProjection, u32)> {
        if !p.is_finite() || !(max_distance >= 0.0) {
            return None;
        }
        let initial =
            if max_distance.is_finite() { (max_distance * max_distance).min(f32::MAX) } else { f32::MAX };
        let mut best: Option<(u32, Vec3, TriangleFeature, f32)> = None;
        self.mesh.bvh().traverse_ordered(
            initial,
            |node, limit| {
                let d2 = self.world_distance_squared(node, p);
                (d2, d2.cmple(Vec4::splat(*limit)).bitmask())
            },
            |range, _| {
                let mut improved = None;
                for k in range {
                    let c = closest_point_triangle(p, &self.world_corners(k));
                    let d2 = (c.point - p).length_squared();
                    if d2 <= initial && best.is_none_or(|(_, _, _, b)| d2 < b) {
                        best = Some((k, c.point, c.feature, d2));
                        improved = Some(d2);
                    }
                }
                improved
            },
        );
        let (k, point, feature, d2) = best?;
        let proj =
            MeshPointProjection { point, distance: d2.sqrt(), triangle: self.mesh.slot_id(k), feature };
        Some((proj, k))
    }
}
