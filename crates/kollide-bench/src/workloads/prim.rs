//! `prim/*`: single primitive tests on random inputs, kollide against parry3d.
//!
//! Every generator is tuned so that about half of the items are hits (the table's note prints the
//! measured rate), so that both the early-out and the full path of each test are exercised.
//! Each parry call is the most specialised entry point parry itself would dispatch to for the
//! same question, called directly, so that the comparison does not charge parry for its
//! dynamic dispatch.

use glam::{Mat3, Vec3};
use kollide::bounds::{Aabb3, Obb3, Sphere};
use kollide::math::Ray3;
use kollide::primitive::{ray_triangle, test_sphere_triangle, test_triangle_triangle};
use kollide_testkit::random::{self, TestRng};
use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::math::Pose;
use parry3d::query::details::{
    intersection_test_cuboid_cuboid, intersection_test_point_query_ball,
    intersection_test_support_map_support_map,
};
use parry3d::query::{Ray, RayCast};
use parry3d::shape::{Ball, Cuboid, Triangle};
use rand::Rng;

use super::{PARRY3D, Workload};
use crate::harness::{Batch, Prepared};

/// Items per batch: small enough to stay in the L2 cache, so the tests' arithmetic is measured
/// rather than memory bandwidth.
const ITEMS: usize = 4096;

pub fn workloads() -> Vec<Workload> {
    let prim = |name, metric, prepare| Workload {
        name,
        metric,
        ns_per_unit: 1.0,
        peer: PARRY3D,
        items: ITEMS,
        check_items: 1000,
        balanced: true,
        prepare,
    };
    vec![
        prim("prim/ray-aabb", "ns/ray", ray_aabb),
        prim("prim/ray-triangle", "ns/ray", ray_triangle_workload),
        prim("prim/tri-tri", "ns/test", tri_tri),
        prim("prim/obb-obb", "ns/test", obb_obb),
        prim("prim/sphere-triangle", "ns/test", sphere_triangle),
        prim("prim/aabb-aabb", "ns/test", aabb_aabb),
    ]
}

fn extents(rng: &mut TestRng, lo: f32, hi: f32) -> Vec3 {
    Vec3::new(rng.random_range(lo..hi), rng.random_range(lo..hi), rng.random_range(lo..hi))
}

fn aabb(rng: &mut TestRng, center_half: f32, lo: f32, hi: f32) -> Aabb3 {
    let center = random::point3(rng, center_half);
    let half = extents(rng, lo, hi);
    Aabb3::new(center - half, center + half)
}

fn to_parry_aabb(b: &Aabb3) -> Aabb {
    Aabb::new(b.min, b.max)
}

fn to_parry_triangle(t: &[Vec3; 3]) -> Triangle {
    Triangle::new(t[0], t[1], t[2])
}

/// A ray from a point in `[-from, from)³` aimed at `target`, reaching it at `t = 1`, with
/// `max_t` around 1 so that the range limit also decides some items.
fn aimed_ray(rng: &mut TestRng, from: f32, target: Vec3) -> (Ray3, f32) {
    let origin = random::point3(rng, from);
    let max_t = rng.random_range(0.6..1.6);
    (Ray3::new(origin, target - origin), max_t)
}

/// Barycentric weights, positive and summing to 1 (not uniform over the triangle; any interior
/// point will do).
fn barycentric(rng: &mut TestRng) -> [f32; 3] {
    let w: [f32; 3] = [rng.random_range(0.01..1.0), rng.random_range(0.01..1.0), rng.random_range(0.01..1.0)];
    let sum = w[0] + w[1] + w[2];
    w.map(|x| x / sum)
}

fn combine(w: [f32; 3], p: [Vec3; 3]) -> Vec3 {
    w[0] * p[0] + w[1] * p[1] + w[2] * p[2]
}

/// Ray against box, entry parameter: kollide `Aabb3::ray_interval` (its entry `t`) against
/// parry's `Aabb::cast_local_ray` with `solid = true` (entry `t`, 0 from inside).
fn ray_aabb(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let kollide: Vec<(Ray3, f32, Aabb3)> = (0..n)
        .map(|_| {
            let b = aabb(&mut rng, 0.5, 0.2, 1.0);
            let target = random::point3(&mut rng, 0.8);
            let (ray, max_t) = aimed_ray(&mut rng, 2.5, target);
            (ray, max_t, b)
        })
        .collect();
    let peer: Vec<(Ray, f32, Aabb)> =
        kollide.iter().map(|(r, max_t, b)| (Ray::new(r.origin, r.dir), *max_t, to_parry_aabb(b))).collect();
    Some(Box::new(Batch::new(
        kollide,
        peer,
        |(ray, max_t, b): &(Ray3, f32, Aabb3)| b.ray_interval(ray, *max_t).map(|(t0, _)| t0),
        |(ray, max_t, b): &(Ray, f32, Aabb)| b.cast_local_ray(ray, *max_t, true),
    )))
}

/// Ray against triangle, hit parameter: kollide `ray_triangle` against parry's
/// `Triangle::cast_local_ray` (both two-sided).
fn ray_triangle_workload(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let kollide: Vec<(Ray3, f32, [Vec3; 3])> = (0..n)
        .map(|_| {
            let tri = random::triangle3(&mut rng, Vec3::ZERO, 1.0);
            // Aim at `a + r1 (b - a) + r2 (c - a)` with `r1, r2` uniform in `[0, 0.7)`: inside
            // the triangle for about 84% of the rays, reached within `max_t` by 60%.
            let (r1, r2): (f32, f32) = (rng.random_range(0.0..0.7), rng.random_range(0.0..0.7));
            let target = tri[0] + r1 * (tri[1] - tri[0]) + r2 * (tri[2] - tri[0]);
            let (ray, max_t) = aimed_ray(&mut rng, 2.0, target);
            (ray, max_t, tri)
        })
        .collect();
    let peer: Vec<(Ray, f32, Triangle)> = kollide
        .iter()
        .map(|(r, max_t, t)| (Ray::new(r.origin, r.dir), *max_t, to_parry_triangle(t)))
        .collect();
    Some(Box::new(Batch::new(
        kollide,
        peer,
        |(ray, max_t, tri): &(Ray3, f32, [Vec3; 3])| ray_triangle(ray, *max_t, tri).map(|h| h.t),
        |(ray, max_t, tri): &(Ray, f32, Triangle)| tri.cast_local_ray(ray, *max_t, true),
    )))
}

/// Triangle against triangle, yes/no: kollide `test_triangle_triangle` against parry's GJK
/// support-map test, which is what `parry3d::query::intersection_test` dispatches a triangle
/// pair to. Both triangles are in one frame, so parry's relative pose is the identity.
fn tri_tri(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let kollide: Vec<([Vec3; 3], [Vec3; 3])> = (0..n)
        .map(|_| {
            // Triangle `b` passes through a point `q` near an interior point of `a`; the
            // distance of `q` from `a` sets the hit rate.
            let a = random::triangle3(&mut rng, Vec3::ZERO, 1.0);
            let q = combine(barycentric(&mut rng), a) + random::point3(&mut rng, 0.4);
            let offsets = [(); 3].map(|_| random::point3(&mut rng, 1.0));
            let shift = q - combine(barycentric(&mut rng), offsets);
            (a, offsets.map(|o| o + shift))
        })
        .collect();
    let peer: Vec<(Triangle, Triangle)> =
        kollide.iter().map(|(a, b)| (to_parry_triangle(a), to_parry_triangle(b))).collect();
    Some(Box::new(Batch::new(
        kollide,
        peer,
        |(a, b): &([Vec3; 3], [Vec3; 3])| test_triangle_triangle(a, b),
        |(a, b): &(Triangle, Triangle)| intersection_test_support_map_support_map(&Pose::IDENTITY, a, b),
    )))
}

/// Oriented box against oriented box, yes/no: kollide `Obb3::overlaps` against parry's
/// `intersection_test_cuboid_cuboid` (its SAT, what its dispatcher uses for two cuboids).
///
/// Fairness: kollide takes both boxes in world space and computes their relative frame inside
/// the timed call. parry's API instead takes the pose of box 2 relative to box 1, which a caller
/// holding two world poses would compute with `pose1.inv_mul(&pose2)`. We nevertheless give
/// parry that relative pose precomputed, outside the timing: parry is timed on exactly the
/// work its own SAT does, and kollide is additionally charged for its relative-frame setup, so
/// any advantage shown for kollide is conservative.
fn obb_obb(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let mut kollide = Vec::with_capacity(n);
    let mut peer = Vec::with_capacity(n);
    for _ in 0..n {
        let mut placed = || {
            let center = random::point3(&mut rng, 1.2);
            let rotation = random::rotation3(&mut rng);
            let half = extents(&mut rng, 0.2, 1.0);
            let obb = Obb3::new(center, Mat3::from_quat(rotation), half);
            (obb, Pose::from_parts(center, rotation), Cuboid::new(half))
        };
        let (a, pose_a, cuboid_a) = placed();
        let (b, pose_b, cuboid_b) = placed();
        kollide.push((a, b));
        peer.push((pose_a.inv_mul(&pose_b), cuboid_a, cuboid_b));
    }
    Some(Box::new(Batch::new(
        kollide,
        peer,
        |(a, b): &(Obb3, Obb3)| a.overlaps(b),
        |(pose12, a, b): &(Pose, Cuboid, Cuboid)| intersection_test_cuboid_cuboid(pose12, a, b),
    )))
}

/// Solid ball against triangle, yes/no: kollide `test_sphere_triangle` against parry's
/// `intersection_test_point_query_ball` (closest point on the triangle to the ball's centre),
/// the function its dispatcher reaches for a triangle/ball pair, called with the triangle as
/// the reference frame so that no pose inversion is timed.
fn sphere_triangle(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let kollide: Vec<(Sphere, [Vec3; 3])> = (0..n)
        .map(|_| {
            let tri = random::triangle3(&mut rng, Vec3::ZERO, 1.0);
            let center = random::point3(&mut rng, 0.7);
            let radius = rng.random_range(0.1..1.0);
            (Sphere::new(center, radius), tri)
        })
        .collect();
    let peer: Vec<(Pose, Triangle, Ball)> = kollide
        .iter()
        .map(|(s, t)| {
            let ball_in_triangle_frame = Pose::from_translation(s.center);
            (ball_in_triangle_frame, to_parry_triangle(t), Ball::new(s.radius))
        })
        .collect();
    Some(Box::new(Batch::new(
        kollide,
        peer,
        |(s, tri): &(Sphere, [Vec3; 3])| test_sphere_triangle(s, tri),
        |(pose12, tri, ball): &(Pose, Triangle, Ball)| {
            intersection_test_point_query_ball(pose12, tri, ball).intersecting
        },
    )))
}

/// Box against box, yes/no: kollide `Aabb3::overlaps` against parry's `Aabb::intersects`.
fn aabb_aabb(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let kollide: Vec<(Aabb3, Aabb3)> =
        (0..n).map(|_| (aabb(&mut rng, 1.0, 0.2, 1.0), aabb(&mut rng, 1.0, 0.2, 1.0))).collect();
    let peer: Vec<(Aabb, Aabb)> = kollide.iter().map(|(a, b)| (to_parry_aabb(a), to_parry_aabb(b))).collect();
    Some(Box::new(Batch::new(
        kollide,
        peer,
        |(a, b): &(Aabb3, Aabb3)| a.overlaps(b),
        |(a, b): &(Aabb, Aabb)| a.intersects(b),
    )))
}
