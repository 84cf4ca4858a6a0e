//! A shared mesh placed in the world by any affine map.

use super::query::{MeshPointProjection, MeshRayHit, MeshSphereContact, PolylineHit};
use super::trimesh::TriMesh;
use crate::bounds::{Aabb3, Obb3, Sphere};
use crate::math::Ray3;
use crate::primitive::{TriangleFeature, closest_point_triangle, test_sphere_triangle, test_triangle_aabb};
use glam::{Affine3A, Mat3, Vec3, Vec4};
use std::sync::Arc;

/// A [`TriMesh`] placed by an affine map: rotation, translation, non-uniform scale, shear or
/// reflection. Creating one costs a 3×3 inverse; the mesh and its BVH are shared, never copied or
/// rebuilt, so thousands of instances of a few meshes cost little more than the meshes (seed 001).
///
/// Queries take and return world-space values. They run in mesh space through the inverse map:
/// rays keep their parameter `t` under an affine map, so ray casts are exact; sphere, box and
/// point queries cull in mesh space with conservative bounds and decide every candidate triangle
/// exactly in world space (the triangle's corners mapped to the world), so their answers do not
/// depend on the placement beyond `f32` rounding.
#[derive(Clone, Debug)]
pub struct MeshInstance {
    to_world: Affine3A,
    to_local_linear: Mat3,
    to_local_translation: Vec3,
    /// Smallest singular value of the world map's linear part: world lengths are at least this
    /// times mesh-space lengths, which bounds world distances from mesh-space ones.
    min_stretch: f32,
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
            PlacementError::Singular { determinant } => {
                write!(f, "the placement is singular (determinant {determinant})")
            }
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
        Ok(MeshInstance {
            to_world,
            to_local_linear,
            to_local_translation,
            min_stretch: smallest_singular_value(linear),
            mesh,
        })
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

    /// A mesh-space hit mapped back: the world point at `t` and the world normal (the inverse
    /// transpose of the map applied to the mesh normal), facing against the world ray.
    fn world_hit(&self, ray: &Ray3, hit: MeshRayHit) -> MeshRayHit {
        let normal = (self.to_local_linear.transpose() * hit.normal).normalize_or_zero();
        let normal = if normal.dot(ray.dir) > 0.0 { -normal } else { normal };
        MeshRayHit { point: ray.at(hit.t), normal, ..hit }
    }

    /// The closest hit within `[0, max_t]`; see [`TriMesh::cast_ray`].
    pub fn cast_ray(&self, ray: &Ray3, max_t: f32) -> Option<MeshRayHit> {
        self.mesh.cast_ray(&self.local_ray(ray), max_t).map(|hit| self.world_hit(ray, hit))
    }

    /// True if the ray hits the mesh within `[0, max_t]`.
    pub fn intersects_ray(&self, ray: &Ray3, max_t: f32) -> bool {
        self.mesh.intersects_ray(&self.local_ray(ray), max_t)
    }

    /// Every hit within `[0, max_t]`, appended in increasing `t`.
    pub fn cast_ray_all(&self, ray: &Ray3, max_t: f32, hits: &mut Vec<MeshRayHit>) {
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
    pub fn cast_rays(&self, rays: &[(Ray3, f32)], out: &mut Vec<Option<MeshRayHit>>) {
        out.clear();
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            rays.par_iter().map(|(ray, max_t)| self.cast_ray(ray, *max_t)).collect_into_vec(out);
        }
        #[cfg(not(feature = "parallel"))]
        out.extend(rays.iter().map(|(ray, max_t)| self.cast_ray(ray, *max_t)));
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

    /// The mesh-space box that contains the world ball (the exact box of the ellipsoid it maps
    /// to: half extent `r·|row i|` of the inverse map on axis `i`).
    fn local_box_of_sphere(&self, sphere: &Sphere) -> Aabb3 {
        let l = self.to_local_linear.transpose(); // columns of lᵀ are rows of l
        let half = sphere.radius * Vec3::new(l.x_axis.length(), l.y_axis.length(), l.z_axis.length());
        Aabb3::from_center_half_extents(self.to_local(sphere.center), half)
    }

    /// True if the world ball touches a triangle of the placed mesh (surface semantics, as
    /// [`TriMesh::intersects_sphere`]).
    pub fn intersects_sphere(&self, sphere: &Sphere) -> bool {
        if !(sphere.radius >= 0.0) || !sphere.center.is_finite() {
            return false;
        }
        let cull = self.local_box_of_sphere(sphere);
        !self.mesh.bvh().traverse(
            |node| node.overlap_mask(cull.min, cull.max),
            |mut range| !range.any(|k| test_sphere_triangle(sphere, &self.world_corners(k))),
        )
    }

    /// Appends the ids of every triangle the world ball touches.
    pub fn sphere_triangles(&self, sphere: &Sphere, out: &mut Vec<u32>) {
        if !(sphere.radius >= 0.0) || !sphere.center.is_finite() {
            return;
        }
        let cull = self.local_box_of_sphere(sphere);
        self.mesh.bvh().traverse(
            |node| node.overlap_mask(cull.min, cull.max),
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
        let inside = self.contains_point(c) == Some(true);
        let limit = if self.mesh.is_solid() { f32::INFINITY } else { sphere.radius };
        let (proj, k) = self.closest_in_slots(c, limit)?;
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
        Some(MeshSphereContact { point: proj.point, normal, depth, triangle: proj.triangle })
    }

    /// Best-first closest point in world distance. Mesh-space box distances `d` bound world
    /// distances from below by `min_stretch · d`, so a node is skipped when that bound exceeds the
    /// best world distance found.
    fn closest_in_slots(&self, p: Vec3, max_distance: f32) -> Option<(MeshPointProjection, u32)> {
        if !p.is_finite() || !(max_distance >= 0.0) {
            return None;
        }
        let local = self.to_local(p);
        // Limits are kept in mesh-space squared units: world d² ≤ L ⇔ mesh bound d² ≤ L / s².
        let inv_stretch2 = 1.0 / (self.min_stretch * self.min_stretch);
        let to_limit = |world_d2: f32| (world_d2 * inv_stretch2).min(f32::MAX);
        let initial = if max_distance.is_finite() { to_limit(max_distance * max_distance) } else { f32::MAX };
        let mut best: Option<(u32, Vec3, TriangleFeature, f32)> = None;
        self.mesh.bvh().traverse_ordered(
            initial,
            |node, limit| {
                let d2 = node.distance_squared(local);
                (d2, d2.cmple(Vec4::splat(limit)).bitmask())
            },
            |range, _| {
                let mut improved = None;
                for k in range {
                    let c = closest_point_triangle(p, &self.world_corners(k));
                    let d2 = (c.point - p).length_squared();
                    let in_range = !max_distance.is_finite() || d2 <= max_distance * max_distance;
                    if in_range && best.is_none_or(|(_, _, _, b)| d2 < b) {
                        best = Some((k, c.point, c.feature, d2));
                        improved = Some(to_limit(d2));
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

/// The smallest singular value of `m`: the square root of the smallest eigenvalue of `mᵀm`,
/// from the closed-form roots of its characteristic cubic (Smith, "Eigenvalues of a symmetric
/// 3×3 matrix", CACM 1961), shrunk by a small relative margin so that it stays a lower bound
/// despite rounding.
fn smallest_singular_value(m: Mat3) -> f32 {
    let a = (m.transpose() * m).to_cols_array_2d().map(|c| c.map(f64::from));
    let p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    let q = (a[0][0] + a[1][1] + a[2][2]) / 3.0;
    let smallest = if p1 == 0.0 {
        a[0][0].min(a[1][1]).min(a[2][2])
    } else {
        let p2 = (a[0][0] - q).powi(2) + (a[1][1] - q).powi(2) + (a[2][2] - q).powi(2) + 2.0 * p1;
        let p = (p2 / 6.0).sqrt();
        let b = |i: usize, j: usize| (a[i][j] - if i == j { q } else { 0.0 }) / p;
        let det_b = b(0, 0) * (b(1, 1) * b(2, 2) - b(1, 2) * b(2, 1))
            - b(0, 1) * (b(1, 0) * b(2, 2) - b(1, 2) * b(2, 0))
            + b(0, 2) * (b(1, 0) * b(2, 1) - b(1, 1) * b(2, 0));
        let phi = (det_b / 2.0).clamp(-1.0, 1.0).acos() / 3.0;
        q + 2.0 * p * (phi + 2.0 * std::f64::consts::PI / 3.0).cos()
    };
    (smallest.max(0.0).sqrt() * (1.0 - 1e-4)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_singular_value_of_known_maps() {
        let close = |a: f32, b: f32| (a - b).abs() <= 1e-3 * b.max(1e-6);
        assert!(close(smallest_singular_value(Mat3::from_diagonal(Vec3::new(3.0, 0.5, 2.0))), 0.5));
        let rotation = Mat3::from_rotation_y(0.7) * Mat3::from_rotation_x(-1.1);
        assert!(close(
            smallest_singular_value(rotation * Mat3::from_diagonal(Vec3::new(2.0, 4.0, 0.25))),
            0.25
        ));
        // A shear: σ_min of [[1, k], [0, 1]] is sqrt(1 + k²/2 - k·sqrt(1 + k²/4)).
        let k = 0.8f32;
        let shear = Mat3::from_cols(Vec3::X, Vec3::new(k, 1.0, 0.0), Vec3::Z);
        let expected = (1.0 + k * k / 2.0 - k * (1.0 + k * k / 4.0).sqrt()).sqrt();
        assert!(close(smallest_singular_value(shear), expected));
        assert!(smallest_singular_value(shear) <= expected);
    }
}
