//! Brute-force twins of sphere sets: every ball against every triangle, containment by the
//! generalized winding number, and mapped balls (ellipsoids) sampled on their surface.

use crate::reference_mesh::winding_number;
use crate::reference_primitive::point_triangle_distance_squared_reference;
use glam::{Affine3A, DVec3, Vec3};
use kollide::bounds::Sphere;

/// How a set of balls (in its own frame) meets a mesh's triangles (in mesh space) placed by
/// `self_in_mesh`: the least `distance − radius` over every ball and triangle, the triangles
/// mapped into the set's frame by the inverse map (as kollide does, in f32) and the distance
/// taken in f64; and whether some ball's center, mapped into mesh space, has a winding number
/// above one half (inside the closed mesh).
pub fn set_against_mesh(spheres: &[Sphere], triangles: &[[Vec3; 3]], self_in_mesh: &Affine3A) -> (f64, bool) {
    let to_self = self_in_mesh.inverse();
    let mapped: Vec<[Vec3; 3]> = triangles.iter().map(|t| t.map(|c| to_self.transform_point3(c))).collect();
    let margin = spheres
        .iter()
        .flat_map(|s| {
            mapped.iter().map(move |t| {
                point_triangle_distance_squared_reference(s.center, t).sqrt() - f64::from(s.radius)
            })
        })
        .fold(f64::INFINITY, f64::min);
    let inside =
        spheres.iter().any(|s| winding_number(triangles, self_in_mesh.transform_point3(s.center)) > 0.5);
    (margin, inside)
}

/// `n` points spread over the unit sphere (a Fibonacci lattice).
pub fn unit_sphere_points(n: usize) -> Vec<DVec3> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - y * y).sqrt();
            let phi = golden * i as f64;
            DVec3::new(r * phi.cos(), y, r * phi.sin())
        })
        .collect()
}

/// The least `distance − radius` between a ball of `a` and a sampled point of a ball of `b`
/// mapped by `b_in_a` (an ellipsoid), over the `samples` surface points and the center of each
/// mapped ball. Sampling can only overestimate the true gap, so a negative answer proves an
/// overlap.
pub fn sets_sampled_gap(a: &[Sphere], b: &[Sphere], b_in_a: &Affine3A, samples: &[DVec3]) -> f64 {
    let m = b_in_a.matrix3.as_dmat3();
    let t = b_in_a.translation.as_dvec3();
    let mut gap = f64::INFINITY;
    for sb in b {
        let center = m * sb.center.as_dvec3() + t;
        let points =
            std::iter::once(center).chain(samples.iter().map(|u| center + m * (*u * f64::from(sb.radius))));
        for p in points {
            for sa in a {
                gap = gap.min(p.distance(sa.center.as_dvec3()) - f64::from(sa.radius));
            }
        }
    }
    gap
}
