//! The `primitives` scene: every kind of primitive test once, on random inputs in a unit-sized
//! region, with generation parameters chosen so that a fair share of tests hit.

use glam::{Mat3, Vec2, Vec3};
use kollide::bounds::{Aabb3, Kdop14, Kdop26, Obb3, Sphere};
use kollide::math::Ray3;
use kollide::primitive::d2::{point_in_convex_polygon, point_in_polygon_crossing, point_in_polygon_winding};
use kollide::primitive::{
    Plane3, PlaneSide, RayTriangleSetup, classify_aabb_plane, closest_point_triangle,
    closest_points_segment_segment, ray_obb, ray_sphere, ray_triangle, ray_triangle_with, test_sphere_aabb,
    test_sphere_triangle, test_triangle_aabb, test_triangle_triangle,
};
use kollide_testkit::random::{self, TestRng};
use rand::Rng;

use super::{Row, Scene, Settings, time_tests};

pub const SCENE: Scene = Scene {
    name: "primitives",
    about: "single tests between rays, boxes, spheres, triangles, planes, polygons and k-DOPs",
    run,
};

fn extents(rng: &mut TestRng, lo: f32, hi: f32) -> Vec3 {
    Vec3::new(rng.random_range(lo..hi), rng.random_range(lo..hi), rng.random_range(lo..hi))
}

fn aabb(rng: &mut TestRng) -> Aabb3 {
    let center = random::point3(rng, 0.8);
    let half = extents(rng, 0.2, 0.8);
    Aabb3::new(center - half, center + half)
}

fn sphere(rng: &mut TestRng) -> Sphere {
    Sphere::new(random::point3(rng, 0.8), rng.random_range(0.1..0.8))
}

fn triangle(rng: &mut TestRng) -> [Vec3; 3] {
    let center = random::point3(rng, 0.5);
    random::triangle3(rng, center, 0.8)
}

/// A ray from a random point of `[-2.5, 2.5)³` aimed at `target`, reaching it at `t = 1`, with
/// `max_t` in `[0.6, 1.6)`.
fn ray_at(rng: &mut TestRng, target: Vec3) -> (Ray3, f32) {
    let origin = random::point3(rng, 2.5);
    (Ray3::new(origin, target - origin), rng.random_range(0.6..1.6))
}

/// The point `a + r1 (b - a) + r2 (c - a)` for `r1, r2` uniform in `[0, 0.7)`: inside the triangle
/// most of the time.
fn near_triangle(rng: &mut TestRng, t: &[Vec3; 3]) -> Vec3 {
    let (r1, r2): (f32, f32) = (rng.random_range(0.0..0.7), rng.random_range(0.0..0.7));
    t[0] + r1 * (t[1] - t[0]) + r2 * (t[2] - t[0])
}

/// A triangle through a random point within `jitter` of `p`.
fn triangle_through(rng: &mut TestRng, p: Vec3, jitter: f32) -> [Vec3; 3] {
    let q = p + random::point3(rng, jitter);
    let t = random::triangle3(rng, Vec3::ZERO, 0.8);
    let through = near_triangle(rng, &t);
    t.map(|v| v + q - through)
}

fn obb(rng: &mut TestRng) -> Obb3 {
    let axes = Mat3::from_quat(random::rotation3(rng));
    Obb3::new(random::point3(rng, 1.2), axes, extents(rng, 0.2, 1.0))
}

/// A star-shaped (concave) polygon around the origin with `n` spikes.
fn star(rng: &mut TestRng, n: usize) -> Vec<Vec2> {
    (0..2 * n)
        .map(|i| {
            let angle = i as f32 * std::f32::consts::PI / n as f32;
            let radius = if i % 2 == 0 { rng.random_range(0.8..1.0) } else { rng.random_range(0.3..0.5) };
            radius * Vec2::from_angle(angle)
        })
        .collect()
}

/// A regular `n`-gon of circumradius 1, counter-clockwise.
fn regular_polygon(n: usize) -> Vec<Vec2> {
    (0..n).map(|i| Vec2::from_angle(i as f32 * std::f32::consts::TAU / n as f32)).collect()
}

fn kdop_points(rng: &mut TestRng) -> Vec<Vec3> {
    let center = random::point3(rng, 0.6);
    (0..8).map(|_| center + random::point3(rng, 0.6)).collect()
}

fn run(settings: &Settings, _notes: &mut Vec<String>) -> Vec<Row> {
    let n = settings.items;
    let mut rng = random::rng(settings.seed);
    let rng = &mut rng;
    let mut rows = Vec::new();

    let inputs: Vec<_> = (0..n)
        .map(|_| {
            let b = aabb(rng);
            let target = b.center() + random::point3(rng, 0.6);
            (ray_at(rng, target), b)
        })
        .collect();
    rows.push(time_tests("ray vs box", "Aabb3::ray_interval", &inputs, settings, |((r, max_t), b)| {
        b.ray_interval(r, *max_t).is_some()
    }));

    let inputs: Vec<_> = (0..n)
        .map(|_| {
            let s = sphere(rng);
            let target = s.center + random::point3(rng, 0.6);
            (ray_at(rng, target), s)
        })
        .collect();
    rows.push(time_tests("ray vs sphere", "ray_sphere", &inputs, settings, |((r, max_t), s)| {
        ray_sphere(r, *max_t, s).is_some()
    }));

    let inputs: Vec<_> = (0..n)
        .map(|_| {
            let b = obb(rng);
            let target = b.center + random::point3(rng, 0.8);
            (ray_at(rng, target), b)
        })
        .collect();
    rows.push(time_tests("ray vs oriented box", "ray_obb", &inputs, settings, |((r, max_t), b)| {
        ray_obb(r, *max_t, b).is_some()
    }));

    let inputs: Vec<_> = (0..n)
        .map(|_| {
            let t = triangle(rng);
            let target = near_triangle(rng, &t);
            (ray_at(rng, target), t)
        })
        .collect();
    rows.push(time_tests("ray vs triangle", "ray_triangle", &inputs, settings, |((r, max_t), t)| {
        ray_triangle(r, *max_t, t).is_some()
    }));

    // One ray against many triangles: the per-ray setup is paid once.
    let (shared_ray, shared_max_t) = ray_at(rng, Vec3::ZERO);
    let setup = RayTriangleSetup::new(&shared_ray);
    let inputs: Vec<_> = (0..n)
        .map(|_| {
            let along = shared_ray.at(rng.random_range(0.0..1.2 * shared_max_t));
            triangle_through(rng, along, 0.3)
        })
        .collect();
    rows.push(time_tests("one ray vs many triangles", "ray_triangle_with", &inputs, settings, |t| {
        ray_triangle_with(&setup, shared_max_t, t).is_some()
    }));

    let inputs: Vec<_> = (0..n)
        .map(|_| {
            let a = triangle(rng);
            let p = near_triangle(rng, &a);
            (a, triangle_through(rng, p, 0.4))
        })
        .collect();
    rows.push(time_tests("triangle vs triangle", "test_triangle_triangle", &inputs, settings, |(a, b)| {
        test_triangle_triangle(a, b)
    }));

    let inputs: Vec<_> = (0..n).map(|_| (obb(rng), obb(rng))).collect();
    rows.push(time_tests("oriented box vs oriented box", "Obb3::overlaps", &inputs, settings, |(a, b)| {
        a.overlaps(b)
    }));

    let inputs: Vec<_> = (0..n).map(|_| (aabb(rng), aabb(rng))).collect();
    rows.push(time_tests("box vs box", "Aabb3::overlaps", &inputs, settings, |(a, b)| a.overlaps(b)));

    let inputs: Vec<_> = (0..n).map(|_| (sphere(rng), triangle(rng))).collect();
    rows.push(time_tests("sphere vs triangle", "test_sphere_triangle", &inputs, settings, |(s, t)| {
        test_sphere_triangle(s, t)
    }));

    let inputs: Vec<_> = (0..n).map(|_| (sphere(rng), aabb(rng))).collect();
    rows.push(time_tests("sphere vs box", "test_sphere_aabb", &inputs, settings, |(s, b)| {
        test_sphere_aabb(s, b)
    }));

    let inputs: Vec<_> = (0..n).map(|_| (triangle(rng), aabb(rng))).collect();
    rows.push(time_tests("triangle vs box", "test_triangle_aabb", &inputs, settings, |(t, b)| {
        test_triangle_aabb(t, b)
    }));

    let inputs: Vec<_> = (0..n)
        .map(|_| {
            let normal = random::unit3(rng);
            let plane = Plane3 { normal, d: rng.random_range(-1.0..1.0) };
            (plane, aabb(rng))
        })
        .collect();
    rows.push(time_tests(
        "box vs plane (hit = straddles)",
        "classify_aabb_plane",
        &inputs,
        settings,
        |(p, b)| classify_aabb_plane(b, p) == PlaneSide::Intersecting,
    ));

    let inputs: Vec<_> = (0..n)
        .map(|_| {
            let t = triangle(rng);
            (near_triangle(rng, &t) + random::point3(rng, 0.5), t)
        })
        .collect();
    rows.push(time_tests(
        "closest point on triangle (hit = within 0.3)",
        "closest_point_triangle",
        &inputs,
        settings,
        |(p, t)| closest_point_triangle(*p, t).point.distance_squared(*p) <= 0.09,
    ));

    let inputs: Vec<_> = (0..n).map(|_| [(); 4].map(|_| random::point3(rng, 1.0))).collect();
    rows.push(time_tests(
        "closest points of segments (hit = within 0.3)",
        "closest_points_segment_segment",
        &inputs,
        settings,
        |[a0, a1, b0, b1]| {
            let c = closest_points_segment_segment(*a0, *a1, *b0, *b1);
            c.distance_squared <= 0.09
        },
    ));

    let polygon = star(rng, 8);
    let points: Vec<Vec2> = (0..n).map(|_| random::point2(rng, 0.9)).collect();
    rows.push(time_tests(
        "point in 16-gon star (crossing rule)",
        "point_in_polygon_crossing",
        &points,
        settings,
        |p| point_in_polygon_crossing(*p, &polygon),
    ));
    rows.push(time_tests(
        "point in 16-gon star (winding rule)",
        "point_in_polygon_winding",
        &points,
        settings,
        |p| point_in_polygon_winding(*p, &polygon),
    ));
    let convex = regular_polygon(16);
    rows.push(time_tests("point in convex 16-gon", "point_in_convex_polygon", &points, settings, |p| {
        point_in_convex_polygon(*p, &convex)
    }));

    let inputs: Vec<_> = (0..n)
        .filter_map(|_| {
            Some((Kdop14::from_points(&kdop_points(rng))?, Kdop14::from_points(&kdop_points(rng))?))
        })
        .collect();
    rows.push(time_tests("14-DOP vs 14-DOP", "Kdop14::overlaps", &inputs, settings, |(a, b)| a.overlaps(b)));
    let inputs: Vec<_> = (0..n)
        .filter_map(|_| {
            Some((Kdop26::from_points(&kdop_points(rng))?, Kdop26::from_points(&kdop_points(rng))?))
        })
        .collect();
    rows.push(time_tests("26-DOP vs 26-DOP", "Kdop26::overlaps", &inputs, settings, |(a, b)| a.overlaps(b)));

    rows
}
