//! Property tests of the ray casts (`kollide::primitive::{ray_*, segment_triangle}` and
//! `kollide::primitive::d2::ray_*`) against the independent references in
//! `kollide_testkit::reference_ray`.
//!
//! Solids are checked against signed distance functions: a miss must keep the whole ray outside
//! (by a margin), a hit must lie on the surface on the entering side of the deepest point, its
//! normal must be unit, face the ray and support the solid there. Rays whose reference answer is
//! within the margin of tangent ("grazing") are not judged; `case_mix_is_balanced` asserts they are
//! rare and that hits and misses are both common. Triangles are checked against Möller–Trumbore in
//! `f64` away from edges, and for watertightness on closed meshes hit exactly at shared vertices and
//! edge midpoints.

use glam::{DVec2, DVec3};
use kollide::bounds::{Aabb2, Aabb3, Circle, Obb3, Sphere};
use kollide::math::{Mat3, Pose3, Ray2, Ray3, Vec2, Vec3};
use kollide::primitive::d2::{self, RayHit2};
use kollide::primitive::{
    Plane3, RayHit3, RayTriangleSetup, ray_aabb, ray_capsule, ray_obb, ray_plane, ray_sphere, ray_triangle,
    ray_triangle_with, segment_triangle,
};
use kollide_testkit::proptest_config;
use kollide_testkit::random::{TestRng, point2, point3, rng, rotation3, triangle3, unit3};
use kollide_testkit::reference_ray::*;
use proptest::prelude::*;
use rand::Rng;

/// How a randomized case came out against its reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Hit,
    Miss,
    /// Within the reference's margin of a boundary case: not judged.
    Skipped,
}

type CaseResult = Result<Outcome, TestCaseError>;

/// A randomized case generator and checker, keyed by seed.
type Case = fn(u64) -> CaseResult;

fn log_uniform(rng: &mut TestRng, lo: f32, hi: f32) -> f32 {
    rng.random_range(lo.ln()..hi.ln()).exp()
}

/// A random offset in the cube of half-size `spread` (zero for a zero spread).
fn offset3(rng: &mut TestRng, spread: f32) -> Vec3 {
    if spread > 0.0 { point3(rng, spread) } else { Vec3::ZERO }
}

fn offset2(rng: &mut TestRng, spread: f32) -> Vec2 {
    if spread > 0.0 { point2(rng, spread) } else { Vec2::ZERO }
}

/// A random ray: the origin anywhere in the scene or near `target`, the direction usually aimed
/// at a point within `spread` of `target`, of random length, and a random `max_t` (sometimes ∞,
/// often short enough to cut hits off). With `zero_components`, direction components are
/// sometimes exactly zero.
fn random_ray3(
    rng: &mut TestRng,
    target: Vec3,
    spread: f32,
    aim_spread: f32,
    zero_components: bool,
) -> (Ray3, f32) {
    let origin = if rng.random_bool(0.7) { point3(rng, 25.0) } else { target + offset3(rng, spread) };
    let aim = if rng.random_bool(0.85) { target + offset3(rng, aim_spread) - origin } else { unit3(rng) };
    let mut dir = aim.normalize_or(Vec3::X);
    if zero_components {
        let mut c = dir.to_array();
        for x in &mut c {
            if rng.random_bool(0.1) {
                *x = 0.0;
            }
        }
        if c != [0.0; 3] {
            dir = Vec3::from(c).normalize();
        }
    }
    dir *= log_uniform(rng, 1e-2, 1e2);
    let reach = ((target - origin).length() + spread) / dir.length();
    let max_t = if rng.random_bool(0.25) { f32::INFINITY } else { rng.random_range(0.0..1.5) * reach };
    (Ray3::new(origin, dir), max_t)
}

/// The 2D twin of [`random_ray3`].
fn random_ray2(
    rng: &mut TestRng,
    target: Vec2,
    spread: f32,
    aim_spread: f32,
    zero_components: bool,
) -> (Ray2, f32) {
    let origin = if rng.random_bool(0.7) { point2(rng, 25.0) } else { target + offset2(rng, spread) };
    let aim = if rng.random_bool(0.85) {
        target + offset2(rng, aim_spread) - origin
    } else {
        Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
    };
    let mut dir = aim.normalize_or(Vec2::X);
    if zero_components && rng.random_bool(0.3) {
        dir = if rng.random_bool(0.5) {
            Vec2::new(dir.x.signum(), 0.0)
        } else {
            Vec2::new(0.0, dir.y.signum())
        };
    }
    dir *= log_uniform(rng, 1e-2, 1e2);
    let reach = ((target - origin).length() + spread) / dir.length();
    let max_t = if rng.random_bool(0.25) { f32::INFINITY } else { rng.random_range(0.0..1.5) * reach };
    (Ray2::new(origin, dir), max_t)
}

/// A reported hit reduced to what the convex-solid check needs, in `f64`.
struct HitView {
    t: f32,
    normal_len: f64,
    /// `normal · dir / |dir|`.
    facing: f64,
    /// `h(normal) − normal · hit point`: zero when the plane through the hit point supports the solid.
    support_gap: f64,
    /// `|normal + dir / |dir||`: zero for the origin-inside normal.
    inside_err: f64,
}

/// Checks a solid cast against the signed distance `g(t)` along the ray (see the file docs).
/// `scale` is the magnitude of the coordinates involved; tolerances are relative to it.
fn check_convex(
    g: &dyn Fn(f64) -> f64,
    dir_len: f64,
    max_t: f32,
    got: Option<HitView>,
    scale: f64,
) -> CaseResult {
    let tol = 2e-5 * scale;
    let margin = 2e-4 * scale;
    let t_cap = if max_t.is_finite() { f64::from(max_t) } else { (100.0 + scale) / dir_len };
    let reference = first_hit_convex(g, t_cap, margin);
    if let Some(h) = &got {
        prop_assert!(h.t >= 0.0 && h.t <= max_t, "t {} outside [0, {max_t}]", h.t);
        prop_assert!((h.normal_len - 1.0).abs() < 1e-5, "normal length {}", h.normal_len);
        prop_assert!(h.facing <= 1e-5, "normal does not face the ray: {}", h.facing);
        let t = f64::from(h.t);
        if h.t == 0.0 {
            prop_assert!(g(0.0) <= tol, "t = 0 but origin outside by {}", g(0.0));
            prop_assert!(h.inside_err < 1e-5, "inside normal is not -dir: {}", h.inside_err);
        } else {
            prop_assert!(g(t).abs() <= tol, "hit point off the surface by {}", g(t));
            prop_assert!(g(0.0) >= -tol, "origin inside ({}) but t = {}", g(0.0), t);
            prop_assert!(h.support_gap <= tol, "normal not supporting: {}", h.support_gap);
        }
    }
    match reference {
        ConvexCast::Miss => {
            prop_assert!(got.is_none(), "reference misses, cast hit at {}", got.unwrap().t);
            Ok(Outcome::Miss)
        }
        ConvexCast::Hit { t, t_deepest } => {
            prop_assert!(got.is_some(), "reference hits at t = {t}, cast missed");
            let h = got.unwrap();
            if h.t > 0.0 {
                prop_assert!(f64::from(h.t) < t_deepest, "reported the exit, not the entry");
            }
            let slack = 1e-2 * scale / dir_len;
            prop_assert!((f64::from(h.t) - t).abs() <= slack, "t {} vs reference {t}", h.t);
            Ok(Outcome::Hit)
        }
        ConvexCast::Grazing => Ok(Outcome::Skipped),
    }
}

fn check_solid3(
    ray: &Ray3,
    max_t: f32,
    got: Option<RayHit3>,
    sdf: impl Fn(DVec3) -> f64,
    support: impl Fn(DVec3) -> f64,
    scale: f64,
) -> CaseResult {
    let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
    let view = got.map(|h| {
        let n = h.normal.as_dvec3();
        let p = o + f64::from(h.t) * d;
        HitView {
            t: h.t,
            normal_len: n.length(),
            facing: n.dot(d) / d.length(),
            support_gap: support(n) - n.dot(p),
            inside_err: (n + d / d.length()).length(),
        }
    });
    check_convex(&|t| sdf(o + t * d), d.length(), max_t, view, scale)
}

fn check_solid2(
    ray: &Ray2,
    max_t: f32,
    got: Option<RayHit2>,
    sdf: impl Fn(DVec2) -> f64,
    support: impl Fn(DVec2) -> f64,
    scale: f64,
) -> CaseResult {
    let (o, d) = (ray.origin.as_dvec2(), ray.dir.as_dvec2());
    let view = got.map(|h| {
        let n = h.normal.as_dvec2();
        let p = o + f64::from(h.t) * d;
        HitView {
            t: h.t,
            normal_len: n.length(),
            facing: n.dot(d) / d.length(),
            support_gap: support(n) - n.dot(p),
            inside_err: (n + d / d.length()).length(),
        }
    });
    check_convex(&|t| sdf(o + t * d), d.length(), max_t, view, scale)
}

fn scale3(ray: &Ray3, center: Vec3, size: f32) -> f64 {
    f64::from(1.0 + ray.origin.length() + center.length() + size)
}

fn scale2(ray: &Ray2, center: Vec2, size: f32) -> f64 {
    f64::from(1.0 + ray.origin.length() + center.length() + size)
}

// --- 3D solids -------------------------------------------------------------------------------

fn sphere_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let s = Sphere::new(point3(&mut rng, 10.0), rng.random_range(0.1..5.0));
    let (ray, max_t) = random_ray3(&mut rng, s.center, 1.5 * s.radius, 0.9 * s.radius, false);
    let (c, r) = (s.center.as_dvec3(), f64::from(s.radius));
    check_solid3(
        &ray,
        max_t,
        ray_sphere(&ray, max_t, &s),
        |p| sd_sphere(p, c, r),
        |n| support_sphere(n, c, r),
        scale3(&ray, s.center, s.radius),
    )
}

fn aabb_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let center = point3(&mut rng, 10.0);
    let half = Vec3::new(rng.random_range(0.1..5.0), rng.random_range(0.1..5.0), rng.random_range(0.1..5.0));
    let b = Aabb3::new(center - half, center + half);
    let (mut ray, max_t) =
        random_ray3(&mut rng, center, 1.5 * half.max_element(), 0.9 * half.max_element(), true);
    // Sometimes put the origin exactly on a face plane.
    if rng.random_bool(0.15) {
        let i = rng.random_range(0..3);
        ray.origin[i] = if rng.random_bool(0.5) { b.min[i] } else { b.max[i] };
    }
    let (lo, hi) = (b.min.as_dvec3(), b.max.as_dvec3());
    check_solid3(
        &ray,
        max_t,
        ray_aabb(&ray, max_t, &b),
        |p| sd_box(p, lo, hi),
        |n| support_box(n, lo, hi),
        scale3(&ray, center, half.max_element()),
    )
}

fn random_obb(rng: &mut TestRng) -> Obb3 {
    let half = Vec3::new(rng.random_range(0.1..5.0), rng.random_range(0.1..5.0), rng.random_range(0.1..5.0));
    Obb3::new(point3(rng, 10.0), Mat3::from_quat(rotation3(rng)), half)
}

fn check_obb(ray: &Ray3, max_t: f32, obb: &Obb3, got: Option<RayHit3>) -> CaseResult {
    let c = obb.center.as_dvec3();
    let axes = [obb.axes.x_axis, obb.axes.y_axis, obb.axes.z_axis].map(|a| a.as_dvec3());
    let h = obb.half_extents.as_dvec3();
    check_solid3(
        ray,
        max_t,
        got,
        |p| sd_obb(p, c, axes, h),
        |n| support_obb(n, c, axes, h),
        scale3(ray, obb.center, obb.half_extents.max_element()),
    )
}

fn obb_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let obb = random_obb(&mut rng);
    let (ray, max_t) = random_ray3(
        &mut rng,
        obb.center,
        1.5 * obb.half_extents.max_element(),
        0.9 * obb.half_extents.max_element(),
        true,
    );
    check_obb(&ray, max_t, &obb, ray_obb(&ray, max_t, &obb))
}

struct Capsule {
    a: Vec3,
    b: Vec3,
    radius: f32,
}

fn random_capsule(rng: &mut TestRng) -> Capsule {
    let a = point3(rng, 10.0);
    let b = if rng.random_bool(0.1) { a } else { a + point3(rng, 6.0) };
    Capsule { a, b, radius: rng.random_range(0.1..3.0) }
}

fn check_capsule(ray: &Ray3, max_t: f32, cap: &Capsule, got: Option<RayHit3>) -> CaseResult {
    let (a, b, r) = (cap.a.as_dvec3(), cap.b.as_dvec3(), f64::from(cap.radius));
    check_solid3(
        ray,
        max_t,
        got,
        |p| sd_capsule(p, a, b, r),
        |n| support_capsule(n, a, b, r),
        scale3(ray, cap.a, (cap.b - cap.a).length() + cap.radius),
    )
}

fn capsule_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let cap = random_capsule(&mut rng);
    let mid = (cap.a + cap.b) * 0.5;
    let spread = (cap.b - cap.a).length() * 0.5 + 1.5 * cap.radius;
    // Some rays run parallel to the axis.
    let (mut ray, max_t) = random_ray3(&mut rng, mid, spread, 0.6 * spread, false);
    if rng.random_bool(0.15) && cap.a != cap.b {
        let len = ray.dir.length();
        ray.dir = (cap.b - cap.a).normalize() * len * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
    }
    check_capsule(&ray, max_t, &cap, ray_capsule(&ray, max_t, cap.a, cap.b, cap.radius))
}

fn plane_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let plane = Plane3 { normal: unit3(&mut rng), d: rng.random_range(-10.0..10.0) };
    let (ray, max_t) = random_ray3(&mut rng, plane.normal * plane.d, 10.0, 6.0, true);
    let got = ray_plane(&ray, max_t, &plane);
    let (n, o, d) = (plane.normal.as_dvec3(), ray.origin.as_dvec3(), ray.dir.as_dvec3());
    let s0 = n.dot(o) - f64::from(plane.d);
    let nd = n.dot(d);
    if let Some(h) = got {
        prop_assert!(h.t >= 0.0 && h.t <= max_t);
        prop_assert!(h.normal == plane.normal || h.normal == -plane.normal);
        prop_assert!(h.normal.dot(ray.dir) <= 0.0);
    }
    let scale = f64::from(1.0 + ray.origin.length() + plane.d.abs());
    let cos = nd.abs() / d.length();
    if cos < 1e-3 {
        return Ok(Outcome::Skipped);
    }
    let t = -s0 / nd;
    // f32 rounding of the distance travelled, amplified by 1/cos for oblique rays, in units of t.
    let tol = 1e-6 * (scale + (t * d.length()).abs()) / (cos * d.length());
    let max_t = f64::from(max_t);
    if t >= tol && t <= max_t - tol {
        prop_assert!(got.is_some(), "reference hit at {t}");
        let h = got.unwrap();
        prop_assert!((f64::from(h.t) - t).abs() <= tol, "t {} vs {t}", h.t);
        prop_assert!(h.normal.as_dvec3().dot(d) < 0.0);
        Ok(Outcome::Hit)
    } else if t <= -tol || t >= max_t + tol {
        prop_assert!(got.is_none(), "reference t {t} outside [0, {max_t}]");
        Ok(Outcome::Miss)
    } else {
        Ok(Outcome::Skipped)
    }
}

// --- Triangles --------------------------------------------------------------------------------

struct TriangleCase {
    ray: Ray3,
    max_t: f32,
    tri: [Vec3; 3],
    /// Use `segment_triangle(origin, origin + dir)` (then `max_t` is 1).
    segment: bool,
}

fn random_triangle_case(rng: &mut TestRng) -> TriangleCase {
    let size = log_uniform(rng, 0.1, 10.0);
    let center = point3(rng, 10.0);
    let tri = triangle3(rng, center, size);
    // Half the rays aim inside the triangle, half anywhere in a margin around it.
    let (mut w1, mut w2) = if rng.random_bool(0.5) {
        (rng.random_range(0.0f32..1.0), rng.random_range(0.0f32..1.0))
    } else {
        (rng.random_range(-0.25f32..1.25), rng.random_range(-0.25f32..1.25))
    };
    if (0.0..=1.0).contains(&w1) && (0.0..=1.0).contains(&w2) && w1 + w2 > 1.0 {
        (w1, w2) = (1.0 - w1, 1.0 - w2);
    }
    let target = tri[0] + w1 * (tri[1] - tri[0]) + w2 * (tri[2] - tri[0]);
    let (mut ray, mut max_t) = random_ray3(rng, target, 2.0 * size, 0.0, false);
    let segment = rng.random_bool(0.3);
    if segment {
        ray.dir *=
            if max_t.is_finite() { max_t } else { 2.0 * (target - ray.origin).length() / ray.dir.length() };
        max_t = 1.0;
    }
    TriangleCase { ray, max_t, tri, segment }
}

fn cast_triangle(c: &TriangleCase) -> Option<kollide::primitive::TriangleCrossing> {
    if c.segment {
        segment_triangle(c.ray.origin, c.ray.origin + c.ray.dir, &c.tri)
    } else {
        ray_triangle(&c.ray, c.max_t, &c.tri)
    }
}

/// The reference verdict for a triangle case: a hit expected (with the tolerances for its `t` and
/// barycentric weights), a miss expected, or a skip when the ray is within margins of an edge, the
/// plane, `t = 0` or `max_t`.
enum TriangleVerdict {
    Hit { r: LinePlaneHit, tol_t: f64, tol_w: f64 },
    Miss,
    Skip,
}

fn triangle_verdict(ray: &Ray3, max_t: f32, tri: &[Vec3; 3]) -> TriangleVerdict {
    let Some(r) = moller_trumbore(ray.origin, ray.dir, tri) else {
        return TriangleVerdict::Skip;
    };
    let cos = r.cos_angle.abs();
    if cos < 1e-2 {
        return TriangleVerdict::Skip;
    }
    // Magnitude of the coordinates: rounding errors (from `vertex − origin` on) are relative to it.
    let scale = 1.0 + tri.iter().map(|p| p.length()).fold(ray.origin.length(), f32::max) as f64;
    // The smallest altitude: a position error δ changes a barycentric weight by up to δ / altitude.
    let [a, b, c] = tri.map(|p| p.as_dvec3());
    let longest = (b - a).length().max((c - b).length()).max((a - c).length());
    let altitude = (b - a).cross(c - a).length() / longest;
    let dir_len = ray.dir.as_dvec3().length();
    // f32 rounding is about 1e-7 of the coordinates' magnitude; the margins allow 30 times that, the
    // tolerances 10 times, divided by what converts a position error into each quantity.
    let margin_w = 3e-6 * scale / (cos * altitude);
    let margin_t = 3e-6 * scale / (cos * dir_len);
    let w_min = r.weights.iter().copied().fold(f64::INFINITY, f64::min);
    let max_t = f64::from(max_t);
    if w_min > margin_w && r.t > margin_t && r.t < max_t - margin_t {
        TriangleVerdict::Hit { r, tol_t: margin_t / 3.0, tol_w: margin_w / 3.0 }
    } else if w_min < -margin_w || r.t < -margin_t || r.t > max_t + margin_t {
        TriangleVerdict::Miss
    } else {
        TriangleVerdict::Skip
    }
}

fn triangle_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let c = random_triangle_case(&mut rng);
    let got = cast_triangle(&c);
    // The fused single-ray path and the per-ray setup path agree bit for bit.
    let with = ray_triangle_with(&RayTriangleSetup::new(&c.ray), c.max_t, &c.tri);
    prop_assert_eq!(ray_triangle(&c.ray, c.max_t, &c.tri), with);
    if let Some(h) = got {
        prop_assert!(h.t >= 0.0 && h.t <= c.max_t);
        prop_assert!(h.u >= 0.0 && h.v >= 0.0 && h.u + h.v <= 1.0 + 1e-6, "{h:?}");
        let n = h.normal(&c.tri);
        prop_assert!((n.length() - 1.0).abs() < 1e-5);
        prop_assert!(n.dot(c.ray.dir) <= 0.0, "normal {n} faces dir {}", c.ray.dir);
    }
    match triangle_verdict(&c.ray, c.max_t, &c.tri) {
        TriangleVerdict::Hit { r, tol_t, tol_w } => {
            prop_assert!(got.is_some(), "reference hit {r:?}");
            let h = got.unwrap();
            prop_assert!((f64::from(h.t) - r.t).abs() <= tol_t, "t {} vs {}", h.t, r.t);
            prop_assert!((f64::from(h.u) - r.weights[1]).abs() <= tol_w, "u {} vs {r:?}", h.u);
            prop_assert!((f64::from(h.v) - r.weights[2]).abs() <= tol_w, "v {} vs {r:?}", h.v);
            prop_assert_eq!(h.front, r.cos_angle < 0.0);
            let [a, b, cc] = c.tri.map(|p| p.as_dvec3());
            let n_ref = (b - a).cross(cc - a).normalize() * -r.cos_angle.signum();
            prop_assert!((h.normal(&c.tri).as_dvec3() - n_ref).length() < 1e-4);
            Ok(Outcome::Hit)
        }
        TriangleVerdict::Miss => {
            prop_assert!(got.is_none(), "reference misses, cast {got:?}");
            Ok(Outcome::Miss)
        }
        TriangleVerdict::Skip => Ok(Outcome::Skipped),
    }
}

// --- 2D solids --------------------------------------------------------------------------------

fn circle_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let circle = Circle::new(point2(&mut rng, 10.0), rng.random_range(0.1..5.0));
    let (ray, max_t) = random_ray2(&mut rng, circle.center, 1.5 * circle.radius, 0.9 * circle.radius, false);
    let (c, r) = (circle.center.as_dvec2(), f64::from(circle.radius));
    check_solid2(
        &ray,
        max_t,
        d2::ray_circle(&ray, max_t, &circle),
        |p| sd_circle(p, c, r),
        |n| support_circle(n, c, r),
        scale2(&ray, circle.center, circle.radius),
    )
}

fn aabb2_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let center = point2(&mut rng, 10.0);
    let half = Vec2::new(rng.random_range(0.1..5.0), rng.random_range(0.1..5.0));
    let b = Aabb2::new(center - half, center + half);
    let (mut ray, max_t) =
        random_ray2(&mut rng, center, 1.5 * half.max_element(), 0.9 * half.max_element(), true);
    if rng.random_bool(0.15) {
        let i = rng.random_range(0..2);
        ray.origin[i] = if rng.random_bool(0.5) { b.min[i] } else { b.max[i] };
    }
    let (lo, hi) = (b.min.as_dvec2(), b.max.as_dvec2());
    check_solid2(
        &ray,
        max_t,
        d2::ray_aabb2(&ray, max_t, &b),
        |p| sd_box2(p, lo, hi),
        |n| support_box2(n, lo, hi),
        scale2(&ray, center, half.max_element()),
    )
}

/// A convex polygon: 3 to 10 points at sorted random angles on a random ellipse, rotated, either
/// winding.
fn random_convex_polygon(rng: &mut TestRng) -> Vec<Vec2> {
    let k = rng.random_range(3..=10);
    let mut angles: Vec<f32> = (0..k).map(|_| rng.random_range(0.0..std::f32::consts::TAU)).collect();
    angles.sort_by(f32::total_cmp);
    let radii = Vec2::new(rng.random_range(0.2..5.0), rng.random_range(0.2..5.0));
    let rot = Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU));
    let center = point2(rng, 10.0);
    let mut poly: Vec<Vec2> =
        angles.iter().map(|&a| center + rot.rotate(Vec2::from_angle(a) * radii)).collect();
    if rng.random_bool(0.5) {
        poly.reverse();
    }
    poly
}

fn polygon_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let poly = random_convex_polygon(&mut rng);
    let center = poly.iter().copied().sum::<Vec2>() / poly.len() as f32;
    let size = poly.iter().map(|p| (*p - center).length()).fold(0.0, f32::max);
    let (ray, max_t) = random_ray2(&mut rng, center, 1.2 * size, 0.7 * size, true);
    let got = d2::ray_polygon(&ray, max_t, &poly);
    let dpoly: Vec<DVec2> = poly.iter().map(|p| p.as_dvec2()).collect();
    let area2: f64 = (0..dpoly.len()).map(|i| dpoly[i].perp_dot(dpoly[(i + 1) % dpoly.len()])).sum();
    if area2.abs() < 1e-3 {
        // Nearly collinear points: too thin to judge.
        return Ok(Outcome::Skipped);
    }
    check_solid2(
        &ray,
        max_t,
        got,
        |p| sd_convex_polygon(p, &dpoly),
        |n| support_polygon(n, &dpoly),
        scale2(&ray, center, size),
    )
}

fn segment2_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let a = point2(&mut rng, 10.0);
    let b = a + point2(&mut rng, 8.0);
    let target = a.lerp(b, rng.random_range(-0.3..1.3));
    let (ray, max_t) = random_ray2(&mut rng, target, 4.0, 0.0, true);
    let got = d2::ray_segment(&ray, max_t, a, b);
    if let Some(h) = got {
        prop_assert!(h.t >= 0.0 && h.t <= max_t);
        prop_assert!((h.normal.length() - 1.0).abs() < 1e-5);
        prop_assert!(h.normal.dot(ray.dir) <= 0.0);
    }
    // Reference: solve o + t d = a + s (b − a) by Cramer's rule in f64.
    let (o, d) = (ray.origin.as_dvec2(), ray.dir.as_dvec2());
    let (a, b) = (a.as_dvec2(), b.as_dvec2());
    let e = b - a;
    let det = d.x * (-e.y) - d.y * (-e.x);
    let cos = det.abs() / (d.length() * e.length());
    if cos < 1e-2 {
        return Ok(Outcome::Skipped);
    }
    let w = a - o;
    let t = (w.x * (-e.y) - w.y * (-e.x)) / det;
    let s = (d.x * w.y - d.y * w.x) / det;
    let scale = 1.0 + o.length() + a.length() + b.length();
    let (tol_t, tol_s) = (1e-4 * scale / d.length(), 1e-4 * scale / e.length());
    let max_t = f64::from(max_t);
    if t > tol_t && t < max_t - tol_t && s > tol_s && s < 1.0 - tol_s {
        prop_assert!(got.is_some(), "reference t {t} s {s}");
        let h = got.unwrap();
        prop_assert!((f64::from(h.t) - t).abs() <= tol_t, "t {} vs {t}", h.t);
        let n = h.normal.as_dvec2();
        prop_assert!(n.dot(e).abs() < 1e-5 * e.length(), "normal not perpendicular");
        Ok(Outcome::Hit)
    } else if t < -tol_t || t > max_t + tol_t || s < -tol_s || s > 1.0 + tol_s {
        prop_assert!(got.is_none(), "reference t {t} s {s}, cast {got:?}");
        Ok(Outcome::Miss)
    } else {
        Ok(Outcome::Skipped)
    }
}

// --- Watertightness ---------------------------------------------------------------------------

/// A random closed mesh and a point strictly inside it. Mesh kinds: a random octahedron, an
/// icosphere (0 or 1 subdivisions), a bipyramid with 4–16 triangles per apex fan (all randomly
/// scaled, rotated and moved), or an axis-aligned octahedron with integer coordinates whose rays
/// are axis-aligned or diagonal, so edge functions are exactly zero.
fn random_closed_mesh(rng: &mut TestRng) -> (ClosedMesh, Vec3, f32, bool) {
    let kind = rng.random_range(0..4);
    if kind == 3 {
        let radii = [(); 6].map(|_| rng.random_range(1..=5) as f32);
        let shift = Vec3::new(
            rng.random_range(-5..=5) as f32,
            rng.random_range(-5..=5) as f32,
            rng.random_range(-5..=5) as f32,
        );
        return (octahedron(radii).mapped(|p| p + shift), shift, 0.0, true);
    }
    let mesh = match kind {
        0 => octahedron([(); 6].map(|_| rng.random_range(0.5..2.0))),
        1 => icosphere(rng.random_range(0..=1)),
        _ => {
            let k = rng.random_range(4..=16);
            let step = std::f32::consts::TAU / k as f32;
            let ring: Vec<Vec2> = (0..k)
                .map(|i| {
                    let angle = (i as f32 + rng.random_range(-0.25..0.25)) * step;
                    Vec2::from_angle(angle) * rng.random_range(0.7..1.3)
                })
                .collect();
            bipyramid(&ring, rng.random_range(0.5..2.0), rng.random_range(0.5..2.0))
        }
    };
    let scale = log_uniform(rng, 0.1, 10.0);
    let pose = Pose3::new(point3(rng, 10.0), rotation3(rng));
    let mesh = mesh.mapped(|p| pose.transform_point(p * scale));
    // Every mesh kind contains the ball of radius 0.2 around its local origin; the jitter cube
    // (half-size 0.05) stays well inside it.
    (mesh, pose.translation, 0.05 * scale, false)
}

/// Triangles of `mesh` hit by `ray` (through the per-ray setup), as their `t` values.
fn mesh_hits(mesh: &ClosedMesh, ray: &Ray3) -> Vec<f32> {
    let setup = RayTriangleSetup::new(ray);
    (0..mesh.triangles.len())
        .filter_map(|i| ray_triangle_with(&setup, f32::INFINITY, &mesh.triangle(i)))
        .map(|h| h.t)
        .collect()
}

fn watertight_case(seed: u64) -> Result<(), TestCaseError> {
    let mut rng = rng(seed);
    let (mesh, center, jitter, exact) = random_closed_mesh(&mut rng);
    let edges = mesh.edges();
    for _ in 0..6 {
        let target = if rng.random_bool(0.4) {
            mesh.vertices[rng.random_range(0..mesh.vertices.len())]
        } else {
            let [i, j] = edges[rng.random_range(0..edges.len())];
            (mesh.vertices[i] + mesh.vertices[j]) * 0.5
        };
        // From inside: exactly one crossing, and it must not slip through.
        let origin = if exact { center } else { center + point3(&mut rng, jitter) };
        let inner = Ray3::new(origin, target - origin);
        prop_assert!(!mesh_hits(&mesh, &inner).is_empty(), "ray from inside through {target} escaped");
        // From outside along the line through the interior: an entry before the interior point
        // (t = 1) and an exit after it.
        let k = rng.random_range(1.5f32..4.0);
        let far = if exact { center + (target - center) * k.round() } else { origin + (target - origin) * k };
        let outer = Ray3::new(far, origin - far);
        let hits = mesh_hits(&mesh, &outer);
        prop_assert!(hits.iter().any(|&t| t < 1.0), "entry near {target} slipped through");
        prop_assert!(hits.iter().any(|&t| t > 1.0), "exit slipped through");
    }
    Ok(())
}

// --- Invariances ------------------------------------------------------------------------------

/// Rigid motion of ray and triangle together keeps hit/miss (away from margins) and `t`.
fn triangle_rigid_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let c = random_triangle_case(&mut rng);
    let pose = Pose3::new(point3(&mut rng, 10.0), rotation3(&mut rng));
    let moved_ray = Ray3::new(pose.transform_point(c.ray.origin), pose.transform_vector(c.ray.dir));
    let moved_tri = c.tri.map(|p| pose.transform_point(p));
    let before = ray_triangle(&c.ray, c.max_t, &c.tri);
    let after = ray_triangle(&moved_ray, c.max_t, &moved_tri);
    // Judge with the looser tolerances of the two placements (their coordinates differ in size).
    match (triangle_verdict(&c.ray, c.max_t, &c.tri), triangle_verdict(&moved_ray, c.max_t, &moved_tri)) {
        (TriangleVerdict::Hit { tol_t, tol_w, .. }, TriangleVerdict::Hit { tol_t: t2, tol_w: w2, .. }) => {
            prop_assert!(before.is_some() && after.is_some());
            let (b, a) = (before.unwrap(), after.unwrap());
            let (tol_t, tol_w) = (2.0 * tol_t.max(t2), 2.0 * tol_w.max(w2));
            prop_assert!(f64::from((a.t - b.t).abs()) <= tol_t, "t {} became {}", b.t, a.t);
            prop_assert!(f64::from((a.u - b.u).abs()) <= tol_w, "u {} became {}", b.u, a.u);
            prop_assert!(f64::from((a.v - b.v).abs()) <= tol_w, "v {} became {}", b.v, a.v);
            prop_assert_eq!(a.front, b.front);
            Ok(Outcome::Hit)
        }
        (TriangleVerdict::Miss, TriangleVerdict::Miss) => {
            prop_assert!(before.is_none() && after.is_none());
            Ok(Outcome::Miss)
        }
        _ => Ok(Outcome::Skipped),
    }
}

/// Scaling `dir` by a positive factor `k` (and `max_t` by `1/k`) divides `t` by `k`.
fn triangle_dir_scale_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let c = random_triangle_case(&mut rng);
    let k = log_uniform(&mut rng, 1e-3, 1e3);
    let scaled = Ray3::new(c.ray.origin, c.ray.dir * k);
    let before = ray_triangle(&c.ray, c.max_t, &c.tri);
    let after = ray_triangle(&scaled, c.max_t / k, &c.tri);
    match triangle_verdict(&c.ray, c.max_t, &c.tri) {
        TriangleVerdict::Hit { tol_t, tol_w, .. } => {
            prop_assert!(before.is_some() && after.is_some());
            let (b, a) = (before.unwrap(), after.unwrap());
            let t_scaled = f64::from(a.t) * f64::from(k);
            prop_assert!((t_scaled - f64::from(b.t)).abs() <= 2.0 * tol_t, "{t_scaled} vs {}", b.t);
            prop_assert!(f64::from((a.u - b.u).abs()) <= 2.0 * tol_w, "u {} became {}", b.u, a.u);
            prop_assert!(f64::from((a.v - b.v).abs()) <= 2.0 * tol_w, "v {} became {}", b.v, a.v);
            Ok(Outcome::Hit)
        }
        TriangleVerdict::Miss => {
            prop_assert!(before.is_none() && after.is_none());
            Ok(Outcome::Miss)
        }
        TriangleVerdict::Skip => Ok(Outcome::Skipped),
    }
}

/// Scaling `dir` by a power of two `k` (and `max_t` by `1/k`) divides every cast's `t` by `k`
/// exactly and keeps normals and barycentrics bit for bit: the casts are homogeneous in `dir`.
fn power_of_two_scale_case(seed: u64) -> Result<(), TestCaseError> {
    let mut rng = rng(seed);
    let k = 2f32.powi(rng.random_range(-10..=10));
    let center = point3(&mut rng, 10.0);
    let (ray, max_t) = random_ray3(&mut rng, center, 5.0, 3.0, true);
    let scaled = Ray3::new(ray.origin, ray.dir * k);
    let same = |a: Option<RayHit3>, b: Option<RayHit3>| match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.t / k == b.t && a.normal == b.normal,
        _ => false,
    };
    let sphere = Sphere::new(center, rng.random_range(0.1..5.0));
    let aabb = Aabb3::new(center - 2.0, center + Vec3::new(1.0, 3.0, 0.5));
    let obb = random_obb(&mut rng);
    let cap = random_capsule(&mut rng);
    let plane = Plane3 { normal: unit3(&mut rng), d: rng.random_range(-10.0..10.0) };
    let tri = triangle3(&mut rng, center, 5.0);
    let mt = max_t / k;
    prop_assert!(same(ray_sphere(&ray, max_t, &sphere), ray_sphere(&scaled, mt, &sphere)));
    prop_assert!(same(ray_aabb(&ray, max_t, &aabb), ray_aabb(&scaled, mt, &aabb)));
    prop_assert!(same(ray_obb(&ray, max_t, &obb), ray_obb(&scaled, mt, &obb)));
    prop_assert!(same(ray_plane(&ray, max_t, &plane), ray_plane(&scaled, mt, &plane)));
    prop_assert!(same(
        ray_capsule(&ray, max_t, cap.a, cap.b, cap.radius),
        ray_capsule(&scaled, mt, cap.a, cap.b, cap.radius)
    ));
    let (a, b) = (ray_triangle(&ray, max_t, &tri), ray_triangle(&scaled, mt, &tri));
    prop_assert_eq!(a.map(|h| (h.t / k, h.u, h.v, h.front)), b.map(|h| (h.t, h.u, h.v, h.front)));

    let c2 = center.truncate();
    let (ray2, max_t2) = random_ray2(&mut rng, c2, 5.0, 3.0, true);
    let scaled2 = Ray2::new(ray2.origin, ray2.dir * k);
    let mt2 = max_t2 / k;
    let same2 = |a: Option<RayHit2>, b: Option<RayHit2>| match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.t / k == b.t && a.normal == b.normal,
        _ => false,
    };
    let circle = Circle::new(c2, rng.random_range(0.1..5.0));
    let box2 = Aabb2::new(c2 - 1.0, c2 + Vec2::new(2.0, 0.5));
    let poly = random_convex_polygon(&mut rng);
    let (sa, sb) = (c2 + point2(&mut rng, 5.0), c2 + point2(&mut rng, 5.0));
    prop_assert!(same2(d2::ray_circle(&ray2, max_t2, &circle), d2::ray_circle(&scaled2, mt2, &circle)));
    prop_assert!(same2(d2::ray_aabb2(&ray2, max_t2, &box2), d2::ray_aabb2(&scaled2, mt2, &box2)));
    prop_assert!(same2(d2::ray_polygon(&ray2, max_t2, &poly), d2::ray_polygon(&scaled2, mt2, &poly)));
    prop_assert!(same2(d2::ray_segment(&ray2, max_t2, sa, sb), d2::ray_segment(&scaled2, mt2, sa, sb)));
    Ok(())
}

/// Rigid motion of ray and solid together keeps the answer (away from grazing) and `t`.
fn solid_rigid_case(seed: u64) -> CaseResult {
    let mut rng = rng(seed);
    let pose = Pose3::new(point3(&mut rng, 10.0), rotation3(&mut rng));
    let rot = Mat3::from_quat(pose.rotation);
    let move_ray = |r: &Ray3| Ray3::new(pose.transform_point(r.origin), pose.transform_vector(r.dir));
    if rng.random_bool(0.5) {
        let obb = random_obb(&mut rng);
        let (ray, max_t) = random_ray3(
            &mut rng,
            obb.center,
            1.5 * obb.half_extents.max_element(),
            0.9 * obb.half_extents.max_element(),
            true,
        );
        let before = ray_obb(&ray, max_t, &obb);
        let outcome = check_obb(&ray, max_t, &obb, before)?;
        let moved = Obb3::new(pose.transform_point(obb.center), rot * obb.axes, obb.half_extents);
        let after = ray_obb(&move_ray(&ray), max_t, &moved);
        compare_moved(outcome, before, after)
    } else {
        let cap = random_capsule(&mut rng);
        let (ray, max_t) =
            random_ray3(&mut rng, cap.a, 2.0 * cap.radius + 3.0, 0.6 * (2.0 * cap.radius + 3.0), false);
        let before = ray_capsule(&ray, max_t, cap.a, cap.b, cap.radius);
        let outcome = check_capsule(&ray, max_t, &cap, before)?;
        let (a, b) = (pose.transform_point(cap.a), pose.transform_point(cap.b));
        let after = ray_capsule(&move_ray(&ray), max_t, a, b, cap.radius);
        compare_moved(outcome, before, after)
    }
}

fn compare_moved(outcome: Outcome, before: Option<RayHit3>, after: Option<RayHit3>) -> CaseResult {
    match outcome {
        Outcome::Hit => {
            prop_assert!(after.is_some(), "moved ray missed");
            let (b, a) = (before.unwrap(), after.unwrap());
            prop_assert!((a.t - b.t).abs() <= 1e-3 * b.t.max(1.0), "t {} became {}", b.t, a.t);
            Ok(Outcome::Hit)
        }
        Outcome::Miss => {
            prop_assert!(after.is_none(), "moved ray hit");
            Ok(Outcome::Miss)
        }
        Outcome::Skipped => Ok(Outcome::Skipped),
    }
}

// --- Bad input ----------------------------------------------------------------------------------

fn wild(rng: &mut TestRng) -> f32 {
    match rng.random_range(0..12) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => 0.0,
        4 => -0.0,
        5 => 1e-30,
        6 => -1e30,
        7 => f32::MAX,
        8 => f32::MIN_POSITIVE,
        _ => rng.random_range(-10.0..10.0),
    }
}

fn wild3(rng: &mut TestRng) -> Vec3 {
    Vec3::new(wild(rng), wild(rng), wild(rng))
}

fn wild2(rng: &mut TestRng) -> Vec2 {
    Vec2::new(wild(rng), wild(rng))
}

/// Arbitrary values (NaN, ±∞, ±0, tiny, huge): no panic; any NaN in the ray or `max_t` gives `None`;
/// a reported `t` is in `[0, max_t]` and a reported normal is finite.
fn bad_input_case(seed: u64) -> Result<(), TestCaseError> {
    let mut rng = rng(seed);
    let ray = Ray3::new(wild3(&mut rng), wild3(&mut rng));
    let max_t = wild(&mut rng);
    let nan_ray = ray.origin.is_nan() || ray.dir.is_nan() || max_t.is_nan();
    let check = |h: Option<RayHit3>| -> Result<(), TestCaseError> {
        if let Some(h) = h {
            prop_assert!(!nan_ray);
            prop_assert!(h.t >= 0.0 && h.t <= max_t && h.t.is_finite(), "{h:?}");
            prop_assert!(h.normal.is_finite(), "{h:?}");
        }
        Ok(())
    };
    let plane = Plane3 { normal: wild3(&mut rng), d: wild(&mut rng) };
    check(ray_plane(&ray, max_t, &plane))?;
    check(ray_sphere(&ray, max_t, &Sphere::new(wild3(&mut rng), wild(&mut rng))))?;
    check(ray_aabb(&ray, max_t, &Aabb3::new(wild3(&mut rng), wild3(&mut rng))))?;
    let axes = Mat3::from_cols(wild3(&mut rng), wild3(&mut rng), wild3(&mut rng));
    let obb = Obb3::new(wild3(&mut rng), axes, wild3(&mut rng));
    check(ray_obb(&ray, max_t, &obb))?; // axes need not be orthonormal here
    check(ray_capsule(&ray, max_t, wild3(&mut rng), wild3(&mut rng), wild(&mut rng)))?;
    let tri = [wild3(&mut rng), wild3(&mut rng), wild3(&mut rng)];
    let with = ray_triangle_with(&RayTriangleSetup::new(&ray), max_t, &tri);
    prop_assert_eq!(ray_triangle(&ray, max_t, &tri).map(|h| h.t.to_bits()), with.map(|h| h.t.to_bits()));
    if let Some(h) = ray_triangle(&ray, max_t, &tri) {
        prop_assert!(!nan_ray && tri.iter().all(|p| p.is_finite()));
        prop_assert!(h.t >= 0.0 && h.t <= max_t && h.t.is_finite(), "{h:?}");
        prop_assert!((h.normal(&tri).length() - 1.0).abs() < 1e-5);
    }
    let _ = segment_triangle(wild3(&mut rng), wild3(&mut rng), &tri);

    let ray2 = Ray2::new(wild2(&mut rng), wild2(&mut rng));
    let nan_ray2 = ray2.origin.is_nan() || ray2.dir.is_nan() || max_t.is_nan();
    let check2 = |h: Option<RayHit2>| -> Result<(), TestCaseError> {
        if let Some(h) = h {
            prop_assert!(!nan_ray2);
            prop_assert!(h.t >= 0.0 && h.t <= max_t && h.t.is_finite(), "{h:?}");
            prop_assert!(h.normal.is_finite(), "{h:?}");
        }
        Ok(())
    };
    check2(d2::ray_circle(&ray2, max_t, &Circle::new(wild2(&mut rng), wild(&mut rng))))?;
    check2(d2::ray_aabb2(&ray2, max_t, &Aabb2::new(wild2(&mut rng), wild2(&mut rng))))?;
    check2(d2::ray_segment(&ray2, max_t, wild2(&mut rng), wild2(&mut rng)))?;
    let n = rng.random_range(0..6);
    let poly: Vec<Vec2> = (0..n).map(|_| wild2(&mut rng)).collect();
    check2(d2::ray_polygon(&ray2, max_t, &poly))?;
    Ok(())
}

/// Exactly collinear triangles (small integer coordinates, including repeated vertices) are never
/// hit, even by rays aimed exactly at a point of the segment they span.
fn zero_area_case(seed: u64) -> Result<(), TestCaseError> {
    let mut rng = rng(seed);
    let int3 = |rng: &mut TestRng, h: i32| {
        Vec3::new(
            rng.random_range(-h..=h) as f32,
            rng.random_range(-h..=h) as f32,
            rng.random_range(-h..=h) as f32,
        )
    };
    let a = int3(&mut rng, 20);
    let e = int3(&mut rng, 5);
    let (i, j) = (rng.random_range(-3..=3) as f32, rng.random_range(-3..=3) as f32);
    let mut tri = [a, a + e, a + i * e];
    tri.swap(0, rng.random_range(0..3));
    let target = a + j * 0.5 * e;
    let origin = target + int3(&mut rng, 10);
    if origin == target {
        return Ok(());
    }
    let ray = Ray3::new(origin, target - origin);
    prop_assert_eq!(ray_triangle(&ray, f32::INFINITY, &tri), None);
    prop_assert_eq!(segment_triangle(origin, target, &tri), None);
    Ok(())
}

// --- Properties ---------------------------------------------------------------------------------

proptest! {
    #![proptest_config(proptest_config(10_000))]

    #[test]
    fn sphere_matches_reference(seed in any::<u64>()) { sphere_case(seed)?; }

    #[test]
    fn aabb_matches_reference(seed in any::<u64>()) { aabb_case(seed)?; }

    #[test]
    fn obb_matches_reference(seed in any::<u64>()) { obb_case(seed)?; }

    #[test]
    fn capsule_matches_reference(seed in any::<u64>()) { capsule_case(seed)?; }

    #[test]
    fn plane_matches_reference(seed in any::<u64>()) { plane_case(seed)?; }

    #[test]
    fn triangle_matches_moller_trumbore(seed in any::<u64>()) { triangle_case(seed)?; }

    /// Scaling the whole scene (origin and corners) by a power of two is exact and leaves `t`,
    /// the weights and the side unchanged: also where the coordinates are so small (down to
    /// 2⁻¹⁰⁰) that the hit distance's products underflow `f32` (the `f64` path takes over).
    #[test]
    fn triangle_hits_are_invariant_under_power_of_two_scales(seed in any::<u64>(), exp in -100i32..=0) {
        let mut rng = rng(seed);
        let c = random_triangle_case(&mut rng);
        let scale = 2f32.powi(exp);
        let scaled_ray = Ray3::new(c.ray.origin * scale, c.ray.dir);
        let unit = ray_triangle(&c.ray, c.max_t, &c.tri);
        let scaled = ray_triangle(&scaled_ray, c.max_t * scale, &c.tri.map(|p| p * scale));
        // Subnormal coordinates lose bits in the scaling itself: compare where all stay normal.
        if c.tri.iter().chain([&c.ray.origin]).all(|p| (*p * scale).abs().cmpge(Vec3::splat(f32::MIN_POSITIVE)).all() || p.abs().max_element() == 0.0) {
            prop_assert_eq!(unit.is_some(), scaled.is_some(), "{:?} vs {:?}", unit, scaled);
            if let (Some(u), Some(s)) = (unit, scaled) {
                prop_assert!((f64::from(s.t) - f64::from(u.t) * f64::from(scale)).abs() <= 1e-5 * f64::from(u.t * scale).max(1e-30), "{u:?} vs {s:?}");
                prop_assert!((s.u - u.u).abs() <= 1e-5 && (s.v - u.v).abs() <= 1e-5 && s.front == u.front);
            }
        }
    }

    #[test]
    fn circle_matches_reference(seed in any::<u64>()) { circle_case(seed)?; }

    #[test]
    fn aabb2_matches_reference(seed in any::<u64>()) { aabb2_case(seed)?; }

    #[test]
    fn polygon_matches_reference(seed in any::<u64>()) { polygon_case(seed)?; }

    #[test]
    fn segment2_matches_reference(seed in any::<u64>()) { segment2_case(seed)?; }

    #[test]
    fn triangles_are_watertight_on_closed_meshes(seed in any::<u64>()) { watertight_case(seed)?; }

    #[test]
    fn triangle_is_invariant_under_rigid_motion(seed in any::<u64>()) {
        triangle_rigid_case(seed)?;
    }

    #[test]
    fn triangle_t_scales_inversely_with_dir(seed in any::<u64>()) {
        triangle_dir_scale_case(seed)?;
    }

    #[test]
    fn solids_are_invariant_under_rigid_motion(seed in any::<u64>()) { solid_rigid_case(seed)?; }

    #[test]
    fn power_of_two_dir_scaling_is_exact(seed in any::<u64>()) { power_of_two_scale_case(seed)?; }

    #[test]
    fn bad_input_never_panics(seed in any::<u64>()) { bad_input_case(seed)?; }

    #[test]
    fn zero_area_triangles_never_hit(seed in any::<u64>()) { zero_area_case(seed)?; }
}

/// The randomized cases are informative: each kind yields both hits and misses often, and the
/// skipped (near-boundary) cases are rare. Runs the same case functions as the properties.
#[test]
fn case_mix_is_balanced() {
    let kinds: [(&str, Case); 13] = [
        ("sphere", sphere_case),
        ("aabb", aabb_case),
        ("obb", obb_case),
        ("capsule", capsule_case),
        ("plane", plane_case),
        ("triangle", triangle_case),
        ("circle", circle_case),
        ("aabb2", aabb2_case),
        ("polygon", polygon_case),
        ("segment2", segment2_case),
        ("triangle rigid", triangle_rigid_case),
        ("triangle scale", triangle_dir_scale_case),
        ("solid rigid", solid_rigid_case),
    ];
    let n = 4000;
    let mut failures = Vec::new();
    for (name, case) in kinds {
        let (mut hit, mut miss, mut skip) = (0, 0, 0);
        for seed in 0..n {
            match case(seed) {
                Ok(Outcome::Hit) => hit += 1,
                Ok(Outcome::Miss) => miss += 1,
                Ok(Outcome::Skipped) => skip += 1,
                Err(e) => panic!("{name} seed {seed}: {e}"),
            }
        }
        eprintln!("{name}: {hit} hits, {miss} misses, {skip} skipped of {n}");
        if hit < n / 5 || miss < n / 5 || skip > n / 25 {
            failures.push(name);
        }
    }
    assert!(failures.is_empty(), "unbalanced case mix (see above): {failures:?}");
}
