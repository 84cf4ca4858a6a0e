//! Brute-force twins of the mesh queries: every answer from a scan over all triangles, with no
//! BVH, and an inside/outside reference from the generalized winding number.

use glam::{DVec3, Vec3};
use kollide::bounds::{Aabb3, Obb3, Sphere};
use kollide::math::Ray3;
use kollide::primitive::{closest_point_triangle, ray_triangle, test_sphere_triangle, test_triangle_aabb};

/// Corners of every triangle, by triangle id.
pub fn corners(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Vec<[Vec3; 3]> {
    triangles.iter().map(|t| t.map(|i| vertices[i as usize])).collect()
}

/// The smallest hit parameter over all triangles, with the id of a triangle hit there.
pub fn ray_closest(tris: &[[Vec3; 3]], ray: &Ray3, max_t: f32) -> Option<(f32, u32)> {
    tris.iter()
        .enumerate()
        .filter_map(|(i, t)| ray_triangle(ray, max_t, t).map(|h| (h.t, i as u32)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

/// Ids of all triangles the ray hits within `[0, max_t]`, ascending.
pub fn ray_all(tris: &[[Vec3; 3]], ray: &Ray3, max_t: f32) -> Vec<u32> {
    (0..tris.len() as u32).filter(|&i| ray_triangle(ray, max_t, &tris[i as usize]).is_some()).collect()
}

/// Ids of all triangles the ball touches, ascending.
pub fn sphere_triangles(tris: &[[Vec3; 3]], sphere: &Sphere) -> Vec<u32> {
    (0..tris.len() as u32).filter(|&i| test_sphere_triangle(sphere, &tris[i as usize])).collect()
}

/// Ids of all triangles touching the box, ascending.
pub fn aabb_triangles(tris: &[[Vec3; 3]], aabb: &Aabb3) -> Vec<u32> {
    (0..tris.len() as u32).filter(|&i| test_triangle_aabb(&tris[i as usize], aabb)).collect()
}

/// Ids of all triangles touching the oriented box, ascending (each triangle moved into the box
/// frame and tested against `[-h, h]`).
pub fn obb_triangles(tris: &[[Vec3; 3]], obb: &Obb3) -> Vec<u32> {
    let local_box = Aabb3::new(-obb.half_extents, obb.half_extents);
    let to_local = obb.axes.transpose();
    (0..tris.len() as u32)
        .filter(|&i| test_triangle_aabb(&tris[i as usize].map(|p| to_local * (p - obb.center)), &local_box))
        .collect()
}

/// The smallest distance from `p` to any triangle.
pub fn distance(tris: &[[Vec3; 3]], p: Vec3) -> f32 {
    tris.iter().map(|t| (closest_point_triangle(p, t).point - p).length()).fold(f32::INFINITY, f32::min)
}

/// The generalized winding number of a closed triangle mesh around `p`: the sum of the signed
/// solid angles of its triangles divided by 4π, in `f64` (Van Oosterom and Strackee, "The solid
/// angle of a plane triangle", IEEE TBME 1983). About 1 inside an outward-wound closed mesh,
/// about 0 outside.
pub fn winding_number(tris: &[[Vec3; 3]], p: Vec3) -> f64 {
    let p = p.as_dvec3();
    let total: f64 = tris
        .iter()
        .map(|t| {
            let [a, b, c]: [DVec3; 3] = t.map(|v| v.as_dvec3() - p);
            let (la, lb, lc) = (a.length(), b.length(), c.length());
            let numerator = a.dot(b.cross(c));
            let denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
            2.0 * numerator.atan2(denominator)
        })
        .sum();
    total / (4.0 * std::f64::consts::PI)
}

/// Every pair of triangle ids `(i, j)`, `i < j`, that meet other than in what they share
/// ([`kollide::mesh::triangles_self_intersect`]): all pairs scanned, with no BVH, in order.
pub fn self_intersecting_pairs(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Vec<(u32, u32)> {
    let boxes: Vec<Aabb3> = corners(vertices, triangles)
        .iter()
        .map(|[a, b, c]| Aabb3::new(a.min(*b).min(*c), a.max(*b).max(*c)))
        .collect();
    let mut pairs = Vec::new();
    for i in 0..triangles.len() {
        for j in i + 1..triangles.len() {
            // Triangles that meet have overlapping boxes: the box test only saves time.
            if boxes[i].overlaps(&boxes[j])
                && kollide::mesh::triangles_self_intersect(vertices, triangles[i], triangles[j])
            {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}
