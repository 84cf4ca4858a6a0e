//! References for the fields of `kollide::field`: signed distances by sampling or by a second
//! formula, and gradients by finite differences.

use glam::{DVec3, Vec3};

/// Signed distance to the box `center ± half`, from the faces: outside, the distance to the
/// clamped point; inside, minus the distance to the nearest face plane.
pub fn cuboid_signed_distance(p: Vec3, center: Vec3, half: Vec3) -> f64 {
    let (p, c, h) = (p.as_dvec3(), center.as_dvec3(), half.as_dvec3());
    let clamped = p.clamp(c - h, c + h);
    if clamped != p {
        return clamped.distance(p);
    }
    let to_faces = [
        p.x - (c.x - h.x),
        (c.x + h.x) - p.x,
        p.y - (c.y - h.y),
        (c.y + h.y) - p.y,
        p.z - (c.z - h.z),
        (c.z + h.z) - p.z,
    ];
    -to_faces.into_iter().fold(f64::INFINITY, f64::min)
}

/// Distance from `p` to the nearest of `samples` points of the segment `a → b`, minus `radius`:
/// an upper bound of the capsule's signed distance, within half the sample spacing of it.
pub fn capsule_signed_distance_sampled(p: Vec3, a: Vec3, b: Vec3, radius: f32, samples: usize) -> f64 {
    let (p, a, b) = (p.as_dvec3(), a.as_dvec3(), b.as_dvec3());
    (0..=samples)
        .map(|i| (a + (b - a) * (i as f64 / samples as f64)).distance(p))
        .fold(f64::INFINITY, f64::min)
        - f64::from(radius)
}

/// Distance from `p` to the nearest of `samples` points of the circle of radius `major` around
/// the z axis through `center`, minus `minor`: within `major · π / samples` above the torus's
/// signed distance.
pub fn torus_signed_distance_sampled(p: Vec3, center: Vec3, major: f32, minor: f32, samples: usize) -> f64 {
    let d = (p - center).as_dvec3();
    (0..samples)
        .map(|i| {
            let angle = std::f64::consts::TAU * i as f64 / samples as f64;
            DVec3::new(angle.cos(), angle.sin(), 0.0) * f64::from(major)
        })
        .map(|q| q.distance(d))
        .fold(f64::INFINITY, f64::min)
        - f64::from(minor)
}

/// Central finite differences of `f` at `p` with step `h`, in `f64`.
pub fn finite_difference_gradient(f: impl Fn(DVec3) -> f64, p: DVec3, h: f64) -> DVec3 {
    let axis = |e: DVec3| (f(p + e * h) - f(p - e * h)) / (2.0 * h);
    DVec3::new(axis(DVec3::X), axis(DVec3::Y), axis(DVec3::Z))
}
