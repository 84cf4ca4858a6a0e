//! The watertight ray promise end to end: rays aimed exactly at the vertices and at edge points of
//! closed real meshes (and of scaled and sheared instances of them) against brute force.
//!
//! Two checks per ray:
//! - *Nothing lost*: the BVH queries (closest hit, `t` only, any hit, all hits, segments) find the
//!   same nearest `t` as `ray_triangle` run on every triangle. The BVH's box tests are conservative
//!   against rounding, so a triangle the watertight test hits is never behind a rejected box.
//! - *No pass-through*: the origin is outside the solid and the point just beyond the target
//!   (`t = 1 + 1e-3`) is inside by an f64 winding number, so the ray crossed the surface by then;
//!   the reported hit must not lie farther. Rays that only touch the surface at the target (a
//!   vertex on the silhouette) leave that point outside and are checked by the first rule only.

use kollide::bounds::{Aabb2, Aabb3};
use kollide::broad::{
    BroadBounds, BroadPhase, BruteForce, DynamicTree, PairEvents, SpatialHash, SweepAndPrune, TreeSettings,
};
use kollide::math::{Affine3A, Ray2, Ray3, Vec2, Vec3};
use kollide::mesh::io::load;
use kollide::mesh::{MeshInstance, TriMesh};
use kollide::primitive::ray_triangle;
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_mesh as brute;
use rand::Rng;
use std::path::Path;
use std::sync::Arc;

/// Rays per mesh in mesh space, and per mesh through random affine instances (before the
/// `KOLLIDE_CASES` scale of [`cases`]).
const RAYS_LOCAL: usize = 10_000;
const RAYS_INSTANCED: usize = 7_000;

/// How far past the target the inside test looks, as a fraction of the ray's length.
const BEYOND: f32 = 1e-3;

fn asset(name: &str) -> TriMesh {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(name);
    let data = load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    TriMesh::from_data(data).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The vendored closed meshes: scans, a CAD model with sharp edges and flat faces, a link of two
/// tubes, a body with separate legs.
const CLOSED_MESHES: [&str; 6] = [
    "sphere_pyvista_840.ply",
    "ant_pyvista_912.ply",
    "bunny_npm_3674.obj",
    "cgal_elephant.off",
    "cgal_knot2.off",
    "cgal_fandisk.off",
];

/// A vertex (half the time) or a point on an edge of a random triangle, in mesh space.
fn target(rng: &mut TestRng, tris: &[[Vec3; 3]]) -> Vec3 {
    let tri = tris[rng.random_range(0..tris.len())];
    let corner = rng.random_range(0..3);
    if rng.random_bool(0.5) {
        tri[corner]
    } else {
        let s: f32 = rng.random();
        tri[corner].lerp(tri[(corner + 1) % 3], s)
    }
}

/// A ray from outside the solid through `target` at `t = 1`: the origin a random distance away
/// (0.01 to 3 mesh sizes), resampled while the f64 winding number puts it inside.
fn aimed_ray(rng: &mut TestRng, target: Vec3, size: f32, inside: impl Fn(Vec3) -> bool) -> Ray3 {
    loop {
        let distance = size * 10f32.powf(rng.random_range(-2.0..0.5));
        let origin = target + random::unit3(rng) * distance;
        if !inside(origin) {
            return Ray3::new(origin, target - origin);
        }
    }
}

/// Whether `found` is `expected` up to the rounding of `t`: at a shared vertex or edge the
/// triangles around it are hit at one point, but their computed `t` differ in the last bits, and
/// the closest-hit traversal, which prunes with the best `t` found so far, may return any of them.
fn same_hit(found: Option<f32>, expected: Option<f32>) -> bool {
    match (found, expected) {
        (Some(found), Some(expected)) => (found - expected).abs() <= 4.0 * f32::EPSILON * expected,
        (found, expected) => found == expected,
    }
}

/// Whether the local point `p` is inside the solid by more than `f32` can resolve at the scale of
/// the coordinates involved (`scale`, the largest magnitude): a ray grazing a face crosses into
/// the solid by less than that, where no `f32` test can tell it from touching.
fn robustly_inside(tris: &[[Vec3; 3]], p: Vec3, scale: f32) -> bool {
    brute::winding_number(tris, p).abs() >= 0.5 && brute::distance(tris, p) > 64.0 * f32::EPSILON * scale
}

/// Both checks for one ray, given whether it robustly crossed into the solid by `t = 1 + BEYOND`
/// ([`crosses`]). Returns a failure message, if any.
fn check_ray(closest_t: Option<f32>, expected_t: Option<f32>, crossed: bool) -> Option<String> {
    if expected_t.is_some() && !same_hit(closest_t, expected_t) {
        return Some(format!("lost: brute force t = {expected_t:?}, BVH {closest_t:?}"));
    }
    if crossed && !closest_t.is_some_and(|t| t <= 1.0 + BEYOND) {
        return Some(format!("passed through: hit {closest_t:?}, inside at t = {}", 1.0 + BEYOND));
    }
    None
}

/// Whether the ray has robustly entered the solid by `t = 1 + BEYOND` (its origin is outside).
fn crosses(tris: &[[Vec3; 3]], ray: &Ray3, to_local: impl Fn(Vec3) -> Vec3) -> bool {
    let (origin, beyond) = (to_local(ray.origin), to_local(ray.at(1.0 + BEYOND)));
    let scale = tris.iter().flatten().chain([&origin]).fold(0.0f32, |m, p| m.max(p.abs().max_element()));
    robustly_inside(tris, beyond, scale)
}

#[test]
fn rays_aimed_at_vertices_and_edges_are_never_lost_nor_pass_through() {
    let mut rng = random::rng(23);
    let mut failures = Vec::new();
    let mut crossings = 0;
    for name in CLOSED_MESHES {
        let mesh = asset(name);
        assert!(mesh.is_solid(), "{name} should be closed");
        let tris = brute::corners(mesh.vertices(), mesh.triangles());
        let size = mesh.bounds().size().length();
        let inside = |p: Vec3| brute::winding_number(&tris, p).abs() >= 0.5;
        for i in 0..cases(RAYS_LOCAL) {
            let target = target(&mut rng, &tris);
            let ray = aimed_ray(&mut rng, target, size, inside);
            let expected = brute::ray_closest(&tris, &ray, f32::INFINITY).map(|(t, _)| t);
            let closest = mesh.cast_ray(&ray, f32::INFINITY).map(|hit| hit.t);
            let crossed = crosses(&tris, &ray, |p| p);
            crossings += usize::from(crossed);
            let mut answers =
                vec![("cast_ray", closest), ("cast_ray_t", mesh.cast_ray_t(&ray, f32::INFINITY))];
            let mut all = Vec::new();
            mesh.cast_ray_all(&ray, f32::INFINITY, &mut all);
            answers.push(("cast_ray_all", all.first().map(|hit| hit.t)));
            for (query, t) in answers {
                if let Some(failure) = check_ray(t, expected, crossed) {
                    failures.push(format!("{name} ray {i} {query}: {failure}; {ray:?}"));
                }
            }
            // A segment past the target is a ray of its own (its direction rounds differently).
            let (a, b) = (ray.origin, ray.at(1.5));
            let segment_expected = brute::ray_closest(&tris, &Ray3::from_segment(a, b), 1.0).map(|(t, _)| t);
            let segment = mesh.cast_segment(a, b).map(|hit| hit.t);
            if !same_hit(segment, segment_expected) {
                failures.push(format!(
                    "{name} ray {i} cast_segment: {segment:?}, brute force {segment_expected:?}"
                ));
            }
            if mesh.intersects_ray(&ray, f32::INFINITY) != expected.is_some() {
                failures.push(format!("{name} ray {i} intersects_ray: brute force {expected:?}; {ray:?}"));
            }
        }
        let shared = Arc::new(mesh);
        for i in 0..cases(RAYS_INSTANCED) {
            let to_world = random::affine3(&mut rng, 2.0);
            let instance = MeshInstance::new(shared.clone(), to_world).expect("random maps are invertible");
            let to_local = to_world.inverse();
            let world_target = to_world.transform_point3(target(&mut rng, &tris));
            let world_size = size * to_world.matrix3.x_axis.length().max(1.0);
            let world_inside = |p: Vec3| inside(to_local.transform_point3(p));
            let ray = aimed_ray(&mut rng, world_target, world_size, world_inside);
            let crossed = crosses(&tris, &ray, |p| to_local.transform_point3(p));
            crossings += usize::from(crossed);
            let closest = instance.cast_ray_t(&ray, f32::INFINITY);
            // The instance's own mesh-space ray is rounded differently from any the test could
            // build, so only the f64 check applies (with `expected` unknown).
            if let Some(failure) = check_ray(closest, None, crossed) {
                failures.push(format!("{name} instance ray {i}: {failure}; {ray:?}, {to_world:?}"));
            }
            if instance.intersects_ray(&ray, f32::INFINITY) != closest.is_some() {
                failures.push(format!("{name} instance ray {i}: intersects_ray disagrees with {closest:?}"));
            }
        }
    }
    let total = CLOSED_MESHES.len() * (cases(RAYS_LOCAL) + cases(RAYS_INSTANCED));
    assert!(CLOSED_MESHES.len() * (RAYS_LOCAL + RAYS_INSTANCED) >= 100_000);
    // Most rays cross the surface at their target, so the pass-through check has teeth.
    assert!(crossings > total / 3, "only {crossings} of {total} rays cross at their target");
    assert!(failures.is_empty(), "{} of {total} rays failed:\n{}", failures.len(), failures.join("\n"));
}

/// Regression (issue 23): a lone triangle's corner lay on its BVH node's box face, and the
/// SIMD slab test's rounding rejected the box the ray touches, so the mesh lost a hit that
/// `ray_triangle` finds at `t = 1`.
#[test]
fn ray_aimed_at_a_lone_triangles_corner_is_not_lost() {
    let tri = [
        Vec3::new(-0.4872365, 0.63948965, -0.19987154),
        Vec3::new(-0.95293856, -0.8773682, -0.848124),
        Vec3::new(-0.053580046, -0.44269347, 0.0862236),
    ];
    let ray = Ray3::new(
        Vec3::new(3.6265528, -1.0888267, -1.2894074),
        Vec3::new(-4.5794916, 0.21145844, 0.44128335),
    );
    let expected = ray_triangle(&ray, f32::INFINITY, &tri).map(|hit| hit.t);
    assert_eq!(expected, Some(1.0));
    let mesh = TriMesh::new(tri.to_vec(), vec![[0, 1, 2]]).unwrap();
    assert_eq!(mesh.cast_ray(&ray, f32::INFINITY).map(|hit| hit.t), expected);
    assert_eq!(mesh.cast_ray_t(&ray, f32::INFINITY), expected);
    assert!(mesh.intersects_ray(&ray, f32::INFINITY));
    let instance = MeshInstance::new(Arc::new(mesh), Affine3A::IDENTITY).unwrap();
    assert_eq!(instance.cast_ray_t(&ray, f32::INFINITY), expected);
}

/// About 6% of rays aimed at a lone random triangle's corners were lost before the slab tests
/// became conservative; now none is, for the closest, any and all-hits queries.
#[test]
fn rays_aimed_at_lone_triangle_corners_are_never_lost() {
    let mut rng = random::rng(6);
    let mut lost = 0;
    for _ in 0..cases(20_000) {
        let tri = random::triangle3(&mut rng, Vec3::ZERO, 1.0);
        let target = tri[rng.random_range(0..3)];
        let origin = random::point3(&mut rng, 4.0);
        let ray = Ray3::new(origin, target - origin);
        let Some(expected) = ray_triangle(&ray, f32::INFINITY, &tri).map(|hit| hit.t) else { continue };
        let Ok(mesh) = TriMesh::new(tri.to_vec(), vec![[0, 1, 2]]) else { continue };
        let mut all = Vec::new();
        mesh.cast_ray_all(&ray, f32::INFINITY, &mut all);
        let found = [mesh.cast_ray_t(&ray, f32::INFINITY), all.first().map(|hit| hit.t)];
        lost += usize::from(found != [Some(expected); 2] || !mesh.intersects_ray(&ray, f32::INFINITY));
    }
    assert_eq!(lost, 0);
}

/// A ray that touches a box in exact arithmetic, by the slab test in `f64` on the `f32` inputs
/// (exact up to a relative `1e-15`, far below the `f32` rounding the broad phases must absorb).
fn touches_exactly<const D: usize>(lo: [f32; D], hi: [f32; D], o: [f32; D], d: [f32; D], max_t: f32) -> bool {
    let (mut enter, mut exit) = (0.0f64, f64::from(max_t));
    for a in 0..D {
        let (lo, hi, o, d) = (f64::from(lo[a]), f64::from(hi[a]), f64::from(o[a]), f64::from(d[a]));
        if d == 0.0 {
            if o < lo || o > hi {
                return false;
            }
            continue;
        }
        let (t1, t2) = ((lo - o) / d, (hi - o) / d);
        enter = enter.max(t1.min(t2));
        exit = exit.min(t1.max(t2));
    }
    enter <= exit * (1.0 + 1e-12)
}

/// Boxes and the rays aimed at their corners and edge points, in `D` dimensions: `(lo, hi)` per
/// box, `(origin, dir, max_t)` per ray with the target at `t = 1`.
type BoxScene<const D: usize> = (Vec<([f32; D], [f32; D])>, Vec<([f32; D], [f32; D], f32)>);

fn box_scene<const D: usize>(rng: &mut TestRng, boxes: usize, rays: usize) -> BoxScene<D> {
    let boxes: Vec<_> = (0..boxes)
        .map(|_| {
            let c: [f32; D] = std::array::from_fn(|_| rng.random_range(-50.0..50.0));
            let h: [f32; D] = std::array::from_fn(|_| rng.random_range(0.1..5.0));
            (std::array::from_fn(|a| c[a] - h[a]), std::array::from_fn(|a| c[a] + h[a]))
        })
        .collect();
    let rays = (0..rays)
        .map(|_| {
            let (lo, hi) = boxes[rng.random_range(0..boxes.len())];
            // A corner, with one coordinate free along its edge half the time.
            let free = if rng.random_bool(0.5) { rng.random_range(0..D) } else { D };
            let target: [f32; D] = std::array::from_fn(|a| {
                if a == free {
                    rng.random_range(lo[a]..hi[a])
                } else if rng.random_bool(0.5) {
                    lo[a]
                } else {
                    hi[a]
                }
            });
            let origin: [f32; D] = std::array::from_fn(|_| rng.random_range(-120.0..120.0));
            let max_t = if rng.random_bool(0.3) { 1.0 } else { f32::INFINITY };
            (origin, std::array::from_fn(|a| target[a] - origin[a]), max_t)
        })
        .collect();
    (boxes, rays)
}

/// Every broad phase reports every box a ray touches in exact arithmetic, for rays aimed exactly
/// at box corners and edges (and reports no box the ray misses by more than rounding).
fn broad_phase_rays_are_conservative<B: BroadBounds, const D: usize>(
    make_box: impl Fn([f32; D], [f32; D]) -> B,
    make_ray: impl Fn([f32; D], [f32; D]) -> B::Ray,
) {
    let mut rng = random::rng(29 + D as u64);
    let (boxes, rays) = box_scene::<D>(&mut rng, 2_000, cases(10_000));
    let phases: Vec<(&str, Box<dyn BroadPhase<B>>)> = vec![
        ("brute force", Box::new(BruteForce::<B>::new())),
        ("sweep and prune", Box::new(SweepAndPrune::<B>::new())),
        ("spatial hash", Box::new(SpatialHash::<B>::new())),
        ("dynamic tree", Box::new(DynamicTree::<B>::with_settings(TreeSettings { margin: Some(0.0) }))),
    ];
    for (name, mut phase) in phases {
        for (id, &(lo, hi)) in boxes.iter().enumerate() {
            phase.insert(id as u32, make_box(lo, hi)).unwrap();
        }
        // Sweep and prune answers queries from its sorted columns, built with the pairs.
        phase.find_pairs(&mut PairEvents::default());
        let (mut lost, mut extra, mut out) = (0, 0, Vec::new());
        for &(o, d, max_t) in &rays {
            out.clear();
            phase.query_ray(&make_ray(o, d), max_t, &mut out);
            for (id, &(lo, hi)) in boxes.iter().enumerate() {
                let reported = out.contains(&(id as u32));
                lost += usize::from(!reported && touches_exactly(lo, hi, o, d, max_t));
                // Within rounding of touching: scaled-up limits, a slightly longer ray.
                let grown_t = if max_t.is_finite() { max_t * 1.0001 } else { max_t };
                let near: [f32; D] = std::array::from_fn(|a| (hi[a] - lo[a]) * 1e-4);
                let (lo, hi) =
                    (std::array::from_fn(|a| lo[a] - near[a]), std::array::from_fn(|a| hi[a] + near[a]));
                extra += usize::from(reported && !touches_exactly(lo, hi, o, d, grown_t));
            }
        }
        assert_eq!(
            (lost, extra),
            (0, 0),
            "{name} in {D}D: rays that lost a touched box, reported a missed one"
        );
    }
}

#[test]
fn broad_phase_rays_aimed_at_box_corners_are_never_lost() {
    broad_phase_rays_are_conservative::<Aabb3, 3>(
        |lo, hi| Aabb3::new(Vec3::from(lo), Vec3::from(hi)),
        |o, d| Ray3::new(Vec3::from(o), Vec3::from(d)),
    );
    broad_phase_rays_are_conservative::<Aabb2, 2>(
        |lo, hi| Aabb2::new(Vec2::from(lo), Vec2::from(hi)),
        |o, d| Ray2::new(Vec2::from(o), Vec2::from(d)),
    );
}

/// Regression (found by the `trimesh_new` fuzz target): a ray with a zero direction component
/// running in the plane of a node box's face, through an edge lying in that face. The old slab
/// test replaced the zero by `±1e-30`, which put the exit at `t = 0` and dropped the box.
#[test]
fn ray_running_in_a_box_face_plane_reaches_the_edge_on_it() {
    let tri = vec![Vec3::new(-1.0, -8.0, 0.0), Vec3::new(1.0, -8.0, 0.0), Vec3::new(0.0, -9.0, 0.0)];
    let mesh = TriMesh::new(tri.clone(), vec![[0, 1, 2]]).unwrap();
    for dir in [Vec3::new(0.0, 0.0, 1.0), Vec3::new(0.125, -0.0, 1.0)] {
        let ray = Ray3::new(Vec3::new(0.0, -8.0, -5.0), dir);
        let expected = ray_triangle(&ray, f32::INFINITY, &[tri[0], tri[1], tri[2]]).map(|hit| hit.t);
        assert_eq!(expected, Some(5.0), "{dir}");
        assert_eq!(mesh.cast_ray_t(&ray, f32::INFINITY), expected, "{dir}");
        assert!(mesh.intersects_ray(&ray, f32::INFINITY), "{dir}");
    }
}

/// Checks that a mesh of `tris` finds what `ray_triangle` finds on each of them (the closest `t`,
/// up to the rounding of `t`), by the closest, `t`-only and any-hit queries.
fn assert_mesh_finds_brute_force_hit(tris: &[[Vec3; 3]], ray: &Ray3) {
    let expected = brute::ray_closest(tris, ray, f32::INFINITY).map(|(t, _)| t);
    assert!(expected.is_some(), "the ray hits a triangle");
    let vertices = tris.iter().flatten().copied().collect();
    let triangles = (0..tris.len() as u32).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect();
    let mesh = TriMesh::new(vertices, triangles).unwrap();
    assert!(same_hit(mesh.cast_ray(ray, f32::INFINITY).map(|hit| hit.t), expected));
    assert!(same_hit(mesh.cast_ray_t(ray, f32::INFINITY), expected));
    assert!(mesh.intersects_ray(ray, f32::INFINITY));
}

/// Regression (`trimesh_new` fuzz target): a direction with a subnormal component, whose
/// reciprocal overflows to infinity. The ray reaches the box only at its corner, where the
/// triangle test (on vertices rounded to the origin's scale) hits just before it; the box test
/// now pads the boxes by the rounding at the scale of the scene ([`kollide::bvh::RAY_BOX_PAD`]).
#[test]
fn ray_with_a_subnormal_direction_component_is_not_lost() {
    let tri = [Vec3::new(-11.75, 7.75, -1e-40), Vec3::new(-6.0, 2.0, -1e-40), Vec3::new(-6.0, 7.75, -5.75)];
    let ray = Ray3::new(Vec3::new(7.75, -5.25, 0.0), Vec3::new(-19.5, 13.0, -1e-40));
    assert_mesh_finds_brute_force_hit(&[tri], &ray);
}

/// Regression (`load_stl` fuzz target): a triangle with coordinates up to 4e21 is hit at the
/// ray's origin, which lies 4.25 from its box: far below the rounding of coordinates that
/// size, which the triangle test works at, but outside the box, which the unpadded slab test
/// trusted exactly.
#[test]
fn ray_starting_on_a_huge_triangle_within_its_rounding_is_not_lost() {
    let huge = [
        Vec3::new(-3.3827585e-13, 5.794829e-39, 6973554700.0),
        Vec3::new(1.5903269e-29, 4.103959e-16, 2.632622e-37),
        Vec3::new(8189.8438, 3.2323227e-24, -3.7036337e21),
    ];
    let ray = Ray3::new(Vec3::new(4.5, 4.25, -4.0), Vec3::new(-3.4822104, -4.5046473, 4.8640523));
    assert_mesh_finds_brute_force_hit(&[huge], &ray);
    // With small triangles hit first (near t = 0.79, before the ray reaches the huge one's box
    // at 0.94), the traversal pruned that box by their hit.
    let mut tris: Vec<[Vec3; 3]> = (0..16)
        .map(|i| {
            let c = ray.at(0.79) + Vec3::new(0.0, 0.0, 3.0 * i as f32);
            [c + Vec3::new(-1.0, 0.0, -1.0), c + Vec3::new(1.0, 0.0, -1.0), c + Vec3::new(0.0, 0.0, 1.0)]
        })
        .collect();
    tris.push(huge);
    assert_mesh_finds_brute_force_hit(&tris, &ray);
}

/// Regression (`trimesh_new` and `mesh_queries` fuzz targets): a ray from the first corner of a
/// triangle of subnormal size, almost in its plane. In `f32` the hit parameter overflowed, and
/// `ray_triangle` rejected it for `max_t = ∞` but clamped it to a finite `max_t` (the BVH casts
/// with `max_t` lowered to `f32::MAX`: a hit at `t = f32::MAX`). The `f64` path for tiny
/// triangles gets the exact answer, the corner at `t = 0`, whatever the limit, and the mesh
/// agrees.
#[test]
fn a_ray_from_the_corner_of_a_subnormal_triangle_hits_at_zero_at_any_limit() {
    let tri = [Vec3::new(0.0, 0.0, -1e-40), Vec3::new(0.0, 1e-20, -1e-40), Vec3::new(1e-20, 0.0, -1e-40)];
    let ray = Ray3::new(Vec3::new(-0.0, 0.0, -1e-40), Vec3::new(8.2499996e-20, -3.75e-21, -7.5e-20));
    let mesh = TriMesh::new(tri.to_vec(), vec![[0, 1, 2]]).unwrap();
    for max_t in [f32::INFINITY, f32::MAX, 1e30, 0.0] {
        assert_eq!(ray_triangle(&ray, max_t, &tri).map(|hit| hit.t), Some(0.0), "max_t {max_t}");
        assert_eq!(mesh.cast_ray_t(&ray, max_t), Some(0.0), "max_t {max_t}");
        assert!(mesh.intersects_ray(&ray, max_t));
    }
}

/// Regression (`mesh_queries` and `trimesh_new` fuzz targets): a tiny negative `max_t` whose
/// product with the triangle's determinant underflows to -0 let a hit at the origin through,
/// clamped to the negative `max_t`. A negative limit finds nothing, as for every ray query.
#[test]
fn a_tiny_negative_max_t_finds_nothing() {
    let tri = [Vec3::new(0.5, 0.5, 0.5), Vec3::new(1.0, 0.5, 0.5), Vec3::new(0.5, 0.5, 1.0)];
    let ray = Ray3::new(Vec3::splat(0.5), Vec3::new(0.5, 1.1754944e-38, 3.3835944e-33));
    for max_t in [-3.75e-11, -1e-40] {
        assert_eq!(ray_triangle(&ray, max_t, &tri).map(|hit| hit.t), None, "max_t {max_t}");
    }
    assert!(ray_triangle(&ray, 0.0, &tri).is_some(), "the origin lies on the triangle");
}
