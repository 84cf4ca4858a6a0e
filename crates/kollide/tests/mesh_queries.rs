//! Every BVH-accelerated mesh query against its brute-force twin (a scan of all triangles), on
//! procedural asteroids and tori and on vendored real meshes, 10,000 random queries each.

use kollide::bounds::{Aabb3, Obb3, Sphere};
use kollide::math::{Mat3, Ray3, Vec3};
use kollide::mesh::TriMesh;
use kollide::mesh::io::{MeshData, load};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_mesh as brute;
use kollide_testkit::shapes;
use rand::Rng;
use std::path::Path;

const QUERIES: usize = 10_000;

fn asset(name: &str) -> MeshData {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(name);
    load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The meshes every query is checked on: (name, data, expected closed).
fn meshes() -> Vec<(&'static str, MeshData, bool)> {
    vec![
        ("asteroid5k", shapes::asteroid(11, 5_000), true),
        ("torus", shapes::torus(1.0, 0.35, 60, 40), true),
        ("bunny3674", asset("bunny_npm_3674.obj"), true),
        ("elephant", asset("cgal_elephant.off"), true),
        ("teapot (open)", asset("teapot_npm_992.obj"), false),
        // A CAD mesh listed in triangle strips: its BVH is built over runs of triangles.
        ("fandisk", asset("cgal_fandisk.off"), true),
    ]
}

/// A ray from a sphere around the mesh toward a random point in its box, so most rays hit.
fn random_ray(rng: &mut TestRng, bounds: &Aabb3) -> (Ray3, f32) {
    let c = bounds.center();
    let r = bounds.size().length();
    let origin = c + random::unit3(rng) * r;
    let target = bounds.min + random::point3(rng, 0.5).mul_add(Vec3::ONE, Vec3::splat(0.5)) * bounds.size();
    let max_t = if rng.random_bool(0.2) { rng.random_range(0.5..1.2) } else { f32::INFINITY };
    (Ray3::new(origin, target - origin), max_t)
}

fn random_point_near(rng: &mut TestRng, bounds: &Aabb3) -> Vec3 {
    let grown = bounds.expanded(0.1 * bounds.size().max_element());
    grown.min + (random::point3(rng, 0.5) + Vec3::splat(0.5)) * grown.size()
}

fn random_sphere(rng: &mut TestRng, bounds: &Aabb3) -> Sphere {
    let scale = bounds.size().max_element();
    Sphere::new(random_point_near(rng, bounds), rng.random_range(0.0..0.08) * scale)
}

#[test]
fn ray_queries_equal_brute_force() {
    for (name, data, _) in meshes() {
        let tris = brute::corners(&data.vertices, &data.triangles);
        let mesh = TriMesh::from_data(data).unwrap();
        let mut rng = random::rng(1);
        let mut hits = 0;
        let mut all = Vec::new();
        for _ in 0..cases(QUERIES) {
            let (ray, max_t) = random_ray(&mut rng, &mesh.bounds());
            let expected = brute::ray_closest(&tris, &ray, max_t);
            let got = mesh.cast_ray(&ray, max_t);
            match (got, expected) {
                (Some(hit), Some((t, _))) => {
                    hits += 1;
                    assert_eq!(hit.t, t, "{name}: closest t");
                    // The reported triangle really is hit there, and the normal faces the ray.
                    let own =
                        kollide::primitive::ray_triangle(&ray, max_t, &tris[hit.part as usize]).unwrap();
                    assert_eq!(own.t, t, "{name}: reported triangle");
                    assert!(hit.normal.dot(ray.dir) <= 0.0 && (hit.normal.length() - 1.0).abs() < 1e-5);
                    let bary = mesh.barycentric(hit.part, ray.at(hit.t)).unwrap();
                    assert!((bary.element_sum() - 1.0).abs() < 1e-5 && bary.min_element() > -1e-3, "{bary}");
                }
                (None, None) => {}
                (got, expected) => panic!("{name}: {got:?} vs brute force {expected:?} for {ray:?}"),
            }
            assert_eq!(mesh.intersects_ray(&ray, max_t), expected.is_some(), "{name}: any hit");
            assert_eq!(mesh.cast_ray_t(&ray, max_t), expected.map(|(t, _)| t), "{name}: closest t only");
            all.clear();
            mesh.cast_ray_all(&ray, max_t, &mut all);
            assert!(all.windows(2).all(|w| w[0].t <= w[1].t), "{name}: all hits sorted");
            let mut ids: Vec<u32> = all.iter().map(|h| h.part).collect();
            ids.sort_unstable();
            assert_eq!(ids, brute::ray_all(&tris, &ray, max_t), "{name}: all hits");
        }
        assert!(hits > cases(QUERIES) / 4, "{name}: only {hits} hits; the test would be weak");
    }
}

#[test]
fn polyline_returns_the_first_segment_that_hits() {
    let data = shapes::torus(1.0, 0.35, 60, 40);
    let tris = brute::corners(&data.vertices, &data.triangles);
    let mesh = TriMesh::from_data(data).unwrap();
    let mut rng = random::rng(2);
    for _ in 0..cases(QUERIES) {
        let points: Vec<Vec3> = (0..6).map(|_| random::point3(&mut rng, 1.6)).collect();
        let expected = points.windows(2).enumerate().find_map(|(i, w)| {
            brute::ray_closest(&tris, &Ray3::from_segment(w[0], w[1]), 1.0).map(|(t, _)| (i, t))
        });
        let got = mesh.cast_polyline(&points).map(|h| (h.segment, h.hit.t));
        assert_eq!(got, expected);
    }
}

#[test]
fn sphere_queries_equal_brute_force() {
    for (name, data, _) in meshes() {
        let tris = brute::corners(&data.vertices, &data.triangles);
        let mesh = TriMesh::from_data(data).unwrap();
        let mut rng = random::rng(3);
        let (mut touching, mut found) = (0, Vec::new());
        for _ in 0..cases(QUERIES) {
            let sphere = random_sphere(&mut rng, &mesh.bounds());
            let expected = brute::sphere_triangles(&tris, &sphere);
            found.clear();
            mesh.sphere_triangles(&sphere, &mut found);
            found.sort_unstable();
            assert_eq!(found, expected, "{name}: {sphere:?}");
            assert_eq!(mesh.sphere_touches_surface(&sphere), !expected.is_empty(), "{name}");
            let inside = mesh.contains_point(sphere.center) == Some(true);
            assert_eq!(mesh.intersects_sphere(&sphere), !expected.is_empty() || inside, "{name}");
            touching += !expected.is_empty() as usize;
        }
        assert!(
            touching > cases(QUERIES) / 10 && touching < cases(QUERIES) * 9 / 10,
            "{name}: {touching} touching"
        );
    }
}

#[test]
fn box_queries_equal_brute_force() {
    for (name, data, _) in meshes() {
        let tris = brute::corners(&data.vertices, &data.triangles);
        let mesh = TriMesh::from_data(data).unwrap();
        let scale = mesh.bounds().size().max_element();
        let mut rng = random::rng(4);
        let mut found = Vec::new();
        for _ in 0..cases(QUERIES) {
            let center = random_point_near(&mut rng, &mesh.bounds());
            let half = (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * 0.15 * scale;
            let aabb = Aabb3::from_center_half_extents(center, half);
            found.clear();
            mesh.aabb_triangles(&aabb, &mut found);
            found.sort_unstable();
            assert_eq!(found, brute::aabb_triangles(&tris, &aabb), "{name}: {aabb:?}");
            let obb = Obb3::new(center, Mat3::from_quat(random::rotation3(&mut rng)), half);
            found.clear();
            mesh.obb_triangles(&obb, &mut found);
            found.sort_unstable();
            assert_eq!(found, brute::obb_triangles(&tris, &obb), "{name}: {obb:?}");
        }
    }
}

#[test]
fn closest_point_equals_brute_force() {
    for (name, data, _) in meshes() {
        let tris = brute::corners(&data.vertices, &data.triangles);
        let mesh = TriMesh::from_data(data).unwrap();
        let mut rng = random::rng(5);
        for i in 0..cases(QUERIES) {
            let p = random_point_near(&mut rng, &mesh.bounds());
            let expected = brute::distance(&tris, p);
            let got = mesh.closest_point(p, f32::INFINITY).unwrap();
            assert_eq!(got.distance, expected, "{name}: closest distance from {p}");
            assert!(((got.point - p).length() - got.distance).abs() <= 1e-6 * (1.0 + got.distance));
            // A bounded search finds the same point when it is in range and nothing otherwise.
            let bound = expected * if i % 2 == 0 { 1.5 } else { 0.5 };
            assert_eq!(mesh.closest_point(p, bound).is_some(), expected <= bound, "{name}");
        }
    }
}

#[test]
fn closest_point_equals_brute_force_at_every_scale_and_distance() {
    // Regression (fuzz): at large coordinates a triangle's distance bound overflowed and skipped
    // the nearest face. Meshes of size 1e-15..1e12, points 1..10^6 sizes from the centre.
    let data = shapes::asteroid(3, 500);
    let mut rng = random::rng(6);
    for i in 0..cases(QUERIES) {
        let scale = 10f32.powi(rng.random_range(-15..=12));
        let vertices = data.vertices.iter().map(|&v| v * scale).collect();
        let mesh = TriMesh::new(vertices, data.triangles.clone()).unwrap();
        let tris = brute::corners(mesh.vertices(), mesh.triangles());
        let p = random::unit3(&mut rng) * scale * 10f32.powi(rng.random_range(0..=6));
        let expected = brute::distance(&tris, p);
        let got = mesh.closest_point(p, f32::INFINITY).unwrap().distance;
        // Equal up to the order of evaluation: the rounding of the coordinates relative to `p`.
        let reach = p.length() + mesh.bounds().size().length();
        assert!(
            (got - expected).abs() <= 4e-6 * reach,
            "case {i}: {got} vs {expected} at {p}, scale {scale}"
        );
    }
}

/// Points close to the surface: a random point of a random triangle moved along the face normal
/// by 1e-5 to 1e-4 of the mesh size (either side), with a third of them near an edge or vertex.
fn near_surface_point(rng: &mut TestRng, tris: &[[Vec3; 3]], scale: f32) -> Vec3 {
    let t = tris[rng.random_range(0..tris.len())];
    let (mut u, mut v): (f32, f32) = (rng.random(), rng.random());
    if u + v > 1.0 {
        (u, v) = (1.0 - u, 1.0 - v);
    }
    match rng.random_range(0..3) {
        0 => u *= 1e-3,                     // near edge a–c
        1 => (u, v) = (u * 1e-3, v * 1e-3), // near vertex a
        _ => {}
    }
    let p = t[0] + u * (t[1] - t[0]) + v * (t[2] - t[0]);
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
    let offset = rng.random_range(1e-5..1e-4) * scale * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
    p + n * offset
}

#[test]
fn inside_outside_equals_winding_number() {
    // (mesh, points far from and near the surface): 100,000+ points in all. The pseudo-normal
    // test assumes no self-intersection, so the self-intersecting ant (winding 2 inside its
    // overlapping legs) is not among them.
    let solids = [
        ("sphere840", asset("sphere_pyvista_840.ply"), 40_000),
        ("bunny3674", asset("bunny_npm_3674.obj"), 25_000),
        ("elephant", asset("cgal_elephant.off"), 15_000),
        ("asteroid5k", shapes::asteroid(11, 5_000), 12_000),
        ("torus", shapes::torus(1.0, 0.35, 60, 40), 12_000),
        ("fandisk", asset("cgal_fandisk.off"), 12_000),
    ];
    let mut total = 0;
    for (name, data, count) in solids {
        let tris = brute::corners(&data.vertices, &data.triangles);
        let mesh = TriMesh::from_data(data).unwrap();
        assert!(mesh.is_solid(), "{name} must be closed and consistently oriented");
        let scale = mesh.bounds().size().max_element();
        let mut rng = random::rng(6);
        let mut inside = 0;
        let count = cases(count);
        for i in 0..count {
            let p = if i % 2 == 0 {
                random_point_near(&mut rng, &mesh.bounds())
            } else {
                near_surface_point(&mut rng, &tris, scale)
            };
            let w = brute::winding_number(&tris, p);
            assert!(
                (w - w.round()).abs() < 1e-6 && (w.round() == 0.0 || w.round() == 1.0),
                "{name}: winding {w} at {p}"
            );
            let expected = w.round() == 1.0;
            assert_eq!(mesh.contains_point(p), Some(expected), "{name}: point {p}, winding {w}");
            let sd = mesh.signed_distance(p).unwrap();
            assert_eq!(sd <= 0.0, expected, "{name}: signed distance sign at {p}");
            inside += expected as usize;
        }
        assert!(inside > count / 10, "{name}: only {inside} inside");
        total += count;
    }
    assert!(total >= cases(100_000));
}

#[test]
fn surface_meshes_have_no_inside() {
    let mesh = TriMesh::from_data(asset("teapot_npm_992.obj")).unwrap();
    assert!(!mesh.is_solid());
    assert_eq!(mesh.contains_point(mesh.bounds().center()), None);
    assert_eq!(mesh.signed_distance(Vec3::ZERO), None);
}

#[test]
fn sphere_contact_uses_solid_semantics() {
    let mesh = TriMesh::from_data(shapes::icosphere(3)).unwrap();
    // Deep inside: still a contact, pushing out.
    let c = mesh.sphere_contact(&Sphere::new(Vec3::new(0.1, 0.0, 0.0), 0.2)).unwrap();
    assert!(c.separation < -1.0 && c.normal.x > 0.9, "{c:?}");
    // Just outside, touching.
    let c = mesh.sphere_contact(&Sphere::new(Vec3::new(1.1, 0.0, 0.0), 0.2)).unwrap();
    assert!(c.separation < -0.09 && c.separation > -0.11 && c.normal.x > 0.99, "{c:?}");
    // Apart.
    assert_eq!(mesh.sphere_contact(&Sphere::new(Vec3::new(1.5, 0.0, 0.0), 0.2)), None);
    assert!(
        !mesh.sphere_touches_surface(&Sphere::new(Vec3::ZERO, 0.2)),
        "the surface test ignores the inside"
    );
    assert!(mesh.intersects_sphere(&Sphere::new(Vec3::ZERO, 0.2)), "the solid test does not");
    let open = TriMesh::from_data(shapes::grid(4)).unwrap();
    assert!(
        !open.intersects_sphere(&Sphere::new(Vec3::new(0.0, 0.0, 3.0), 0.2)),
        "an open mesh has no inside"
    );
}

/// A baked copy: the same triangles with vertices moved by the map (exactly the points an
/// instance computes for its triangles).
fn baked(data: &MeshData, to_world: &kollide::math::Affine3A) -> MeshData {
    MeshData {
        vertices: data.vertices.iter().map(|&v| to_world.transform_point3(v)).collect(),
        triangles: data.triangles.clone(),
    }
}

#[test]
fn instances_equal_baked_copies_under_random_affine_maps() {
    use kollide::mesh::MeshInstance;
    use std::sync::Arc;
    let mut rng = random::rng(8);
    for (name, data, closed) in meshes() {
        let shared = Arc::new(TriMesh::new(data.vertices.clone(), data.triangles.clone()).unwrap());
        let (mut rays, mut ray_mismatch) = (0, 0);
        for _ in 0..5 {
            let to_world = random::affine3(&mut rng, 10.0);
            let instance = MeshInstance::new(shared.clone(), to_world).unwrap();
            let world = baked(&data, &to_world);
            let tris = brute::corners(&world.vertices, &world.triangles);
            let bake = TriMesh::from_data(world).unwrap();
            assert_eq!(bake.is_solid(), closed);
            let bounds = bake.bounds();
            let scale = bounds.size().max_element();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..cases(QUERIES) / 5 {
                // Rays: the same up to rounding (mesh-space vs world-space arithmetic). A miss on
                // one side is allowed only at a triangle's rim, where rounding decides.
                let (ray, max_t) = random_ray(&mut rng, &bounds);
                rays += 1;
                let hit = instance.cast_ray(&ray, max_t);
                assert_eq!(instance.cast_ray_t(&ray, max_t), hit.map(|h| h.t), "{name}: instance t only");
                match (hit, bake.cast_ray(&ray, max_t)) {
                    (Some(x), Some(y)) => {
                        if (x.t - y.t).abs() > 1e-3 * (1.0 + y.t.abs()) {
                            ray_mismatch += 1;
                        } else {
                            assert!(x.normal.dot(ray.dir) <= 0.0);
                            assert!(
                                (ray.at(x.t) - ray.at(y.t)).length() <= 1e-3 * scale,
                                "{name}: hit points"
                            );
                        }
                    }
                    (None, None) => {}
                    (x, y) => {
                        let h = x.or(y).unwrap();
                        let bary = bake.barycentric(h.part, ray.at(h.t)).unwrap();
                        let rim = bary.min_element() < 1e-3;
                        assert!(rim, "{name}: instance {x:?} vs baked {y:?}");
                        ray_mismatch += 1;
                    }
                }
                // Spheres, boxes, closest points: candidate triangles are decided on identical
                // world corners, so the answers are identical.
                let sphere = random_sphere(&mut rng, &bounds);
                a.clear();
                b.clear();
                instance.sphere_triangles(&sphere, &mut a);
                bake.sphere_triangles(&sphere, &mut b);
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "{name}: sphere triangles");
                assert_eq!(a, brute::sphere_triangles(&tris, &sphere));
                assert_eq!(instance.sphere_touches_surface(&sphere), !b.is_empty());
                let inside = instance.contains_point(sphere.center) == Some(true);
                assert_eq!(instance.intersects_sphere(&sphere), !b.is_empty() || inside);
                let center = random_point_near(&mut rng, &bounds);
                let half = (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * 0.15 * scale;
                let aabb = Aabb3::from_center_half_extents(center, half);
                a.clear();
                instance.aabb_triangles(&aabb, &mut a);
                a.sort_unstable();
                assert_eq!(a, brute::aabb_triangles(&tris, &aabb), "{name}: box triangles");
                let obb = Obb3::new(center, Mat3::from_quat(random::rotation3(&mut rng)), half);
                a.clear();
                instance.obb_triangles(&obb, &mut a);
                a.sort_unstable();
                assert_eq!(a, brute::obb_triangles(&tris, &obb), "{name}: oriented box triangles");
                let p = random_point_near(&mut rng, &bounds);
                let d = instance.closest_point(p, f32::INFINITY).unwrap().distance;
                assert_eq!(d, brute::distance(&tris, p), "{name}: closest distance");
                if closed && d > 1e-3 * scale {
                    let w = brute::winding_number(&tris, p).abs().round();
                    assert_eq!(instance.contains_point(p), Some(w == 1.0), "{name}: inside at {p}");
                    let sd = instance.signed_distance(p).unwrap();
                    assert_eq!(sd.abs(), d);
                }
            }
        }
        assert!(ray_mismatch * 200 <= rays, "{name}: {ray_mismatch} of {rays} rays differ beyond rounding");
    }
}

/// The batch calls answer every item as the one-item call does, in order, bad items included
/// (parallel with the `parallel` feature, sequential without; the results are the same).
#[test]
fn batch_queries_equal_one_by_one() {
    use kollide::mesh::MeshInstance;
    use std::sync::Arc;
    let mut rng = random::rng(12);
    let data = asset("cgal_bunny00.off");
    let shared = Arc::new(TriMesh::from_data(data).unwrap());
    let instance = MeshInstance::new(shared, random::affine3(&mut rng, 10.0)).unwrap();
    let bounds = instance.bounds();
    let mut rays: Vec<(Ray3, f32)> = (0..cases(QUERIES)).map(|_| random_ray(&mut rng, &bounds)).collect();
    let mut spheres: Vec<Sphere> = (0..cases(QUERIES)).map(|_| random_sphere(&mut rng, &bounds)).collect();
    // Bad items get the one-item call's documented answer (a miss), not an error for the batch.
    rays.push((Ray3::new(Vec3::NAN, Vec3::X), 1.0));
    rays.push((Ray3::new(bounds.center(), Vec3::ZERO), f32::INFINITY));
    rays.push((Ray3::new(bounds.center(), Vec3::X), f32::NAN));
    spheres.push(Sphere::new(Vec3::splat(f32::INFINITY), 1.0));
    spheres.push(Sphere::new(bounds.center(), f32::NAN));

    let mut hits = vec![None; 3];
    instance.cast_rays(&rays, &mut hits);
    let one_by_one: Vec<_> = rays.iter().map(|(ray, max_t)| instance.cast_ray(ray, *max_t)).collect();
    assert_eq!(hits, one_by_one);
    let mut any = vec![true; 5];
    instance.intersects_rays(&rays, &mut any);
    let one_by_one: Vec<bool> =
        rays.iter().map(|(ray, max_t)| instance.intersects_ray(ray, *max_t)).collect();
    assert_eq!(any, one_by_one);
    assert_eq!(any, hits.iter().map(Option::is_some).collect::<Vec<_>>(), "any hit iff a closest hit");
    let hit_count = any.iter().filter(|&&h| h).count();
    assert!(
        hit_count > cases(QUERIES) / 10 && hit_count < cases(QUERIES),
        "{hit_count} hits: the rays test both cases"
    );
    assert!(!any[cases(QUERIES)..].iter().any(|&h| h), "bad rays miss");
    let mut touched = vec![true; 7];
    instance.intersects_spheres(&spheres, &mut touched);
    let one_by_one: Vec<bool> = spheres.iter().map(|s| instance.intersects_sphere(s)).collect();
    assert_eq!(touched, one_by_one);
    assert!(!touched[cases(QUERIES)..].iter().any(|&t| t), "bad balls touch nothing");

    instance.intersects_rays(&[], &mut any);
    assert!(any.is_empty(), "the output is cleared first");
}

#[test]
fn bad_placements_and_inputs_are_refused() {
    use kollide::math::Affine3A;
    use kollide::mesh::{MeshError, MeshInstance, PlacementError};
    use std::sync::Arc;
    let mesh = Arc::new(TriMesh::from_data(shapes::icosphere(1)).unwrap());
    let flat = Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0));
    assert!(matches!(MeshInstance::new(mesh.clone(), flat), Err(PlacementError::Singular { .. })));
    let nan = Affine3A::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
    assert_eq!(MeshInstance::new(mesh.clone(), nan).unwrap_err(), PlacementError::NonFinite);
    let tiny = MeshInstance::new(mesh.clone(), Affine3A::from_scale(Vec3::splat(1e-4))).unwrap();
    assert!(tiny.contains_point(Vec3::ZERO).unwrap());
    assert_eq!(TriMesh::new(vec![Vec3::ZERO], vec![]).unwrap_err(), MeshError::NoTriangles);
    assert!(matches!(
        TriMesh::new(vec![Vec3::ZERO, Vec3::X], vec![[0, 1, 2]]),
        Err(MeshError::IndexOutOfRange { triangle: 0, corner: 2, index: 2, vertex_count: 2 })
    ));
    assert!(matches!(
        TriMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::NAN], vec![[0, 1, 2]]),
        Err(MeshError::NonFiniteVertex { index: 2, .. })
    ));
    // Degenerate triangles are kept and never reported by rays.
    let degenerate =
        TriMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0], vec![[0, 1, 2], [0, 0, 1]]).unwrap();
    assert_eq!(degenerate.cast_ray(&Ray3::new(Vec3::new(0.5, 0.0, 1.0), -Vec3::Z), 10.0), None);
    // Queries with NaN answer "nothing".
    let instance = MeshInstance::new(mesh, Affine3A::IDENTITY).unwrap();
    assert_eq!(instance.cast_ray(&Ray3::new(Vec3::NAN, Vec3::X), 10.0), None);
    assert!(!instance.intersects_sphere(&Sphere::new(Vec3::NAN, 1.0)));
    assert_eq!(instance.closest_point(Vec3::NAN, 1.0), None);
    assert_eq!(instance.contains_point(Vec3::new(f32::INFINITY, 0.0, 0.0)), None);
}

/// Regression: the ray queries clamped `max_t` to `f32::MAX` with `f32::min`, which returns the
/// number when the other operand is NaN, so a NaN limit searched the whole ray and hit.
#[test]
fn a_nan_or_negative_ray_limit_finds_nothing() {
    use kollide::math::Affine3A;
    use kollide::mesh::MeshInstance;
    use std::sync::Arc;
    let mesh = Arc::new(TriMesh::from_data(shapes::icosphere(2)).unwrap());
    let instance = MeshInstance::new(mesh.clone(), Affine3A::from_scale(Vec3::new(2.0, 1.0, 0.5))).unwrap();
    let ray = Ray3::new(Vec3::new(0.1, 0.2, -5.0), Vec3::Z);
    assert!(mesh.intersects_ray(&ray, f32::INFINITY), "the ray does hit without a bad limit");
    for max_t in [f32::NAN, -1.0, f32::NEG_INFINITY] {
        assert_eq!(mesh.cast_ray(&ray, max_t), None, "max_t {max_t}");
        assert_eq!(mesh.cast_ray_t(&ray, max_t), None, "max_t {max_t}");
        assert!(!mesh.intersects_ray(&ray, max_t), "max_t {max_t}");
        let mut hits = Vec::new();
        mesh.cast_ray_all(&ray, max_t, &mut hits);
        assert!(hits.is_empty(), "max_t {max_t}");
        assert_eq!(instance.cast_ray(&ray, max_t), None, "max_t {max_t}");
        assert!(!instance.intersects_ray(&ray, max_t), "max_t {max_t}");
        instance.cast_ray_all(&ray, max_t, &mut hits);
        assert!(hits.is_empty(), "max_t {max_t}");
    }
}

#[test]
fn moved_vertices_refit_the_bvh() {
    let data = shapes::torus(1.0, 0.35, 30, 20);
    let mut mesh = TriMesh::from_data(data.clone()).unwrap();
    let moved: Vec<Vec3> = data.vertices.iter().map(|v| *v * Vec3::new(2.0, 1.0, 0.5) + Vec3::X).collect();
    mesh.set_vertices(moved.clone()).unwrap();
    let tris = brute::corners(&moved, &data.triangles);
    let mut rng = random::rng(9);
    for _ in 0..cases(QUERIES) {
        let (ray, max_t) = random_ray(&mut rng, &mesh.bounds());
        assert_eq!(
            mesh.cast_ray(&ray, max_t).map(|h| h.t),
            brute::ray_closest(&tris, &ray, max_t).map(|x| x.0)
        );
        let p = random_point_near(&mut rng, &mesh.bounds());
        assert_eq!(mesh.closest_point(p, f32::INFINITY).unwrap().distance, brute::distance(&tris, p));
    }
    assert!(mesh.set_vertices(vec![Vec3::ZERO]).is_err());
}

#[test]
fn an_instance_costs_at_most_128_bytes() {
    assert!(size_of::<kollide::mesh::MeshInstance>() <= 128, "{}", size_of::<kollide::mesh::MeshInstance>());
}

/// `bounds_under` contains the box of the mapped triangle corners (the brute-force box) under
/// random affine maps, far from the origin too, is within a few percent of the mesh's size of it,
/// and is never larger than the mapped root box.
#[test]
fn bounds_under_contains_the_mapped_corners_and_is_nearly_tight() {
    let mut rng = random::rng(91);
    for (name, data, _) in meshes() {
        let mesh = TriMesh::new(data.vertices.clone(), data.triangles.clone()).unwrap();
        let corners: Vec<Vec3> =
            data.triangles.iter().flat_map(|t| t.map(|i| data.vertices[i as usize])).collect();
        let mut worst = 0.0f32;
        for _ in 0..cases(QUERIES) / 6 {
            let far = if rng.random_bool(0.5) { 1e4 } else { 1.0 };
            let to_world = random::affine3(&mut rng, far);
            let exact = Aabb3::from_points(
                &corners.iter().map(|&p| to_world.transform_point3(p)).collect::<Vec<_>>(),
            )
            .unwrap();
            let bounds = mesh.bounds_under(&to_world);
            let root = mesh.bounds().transformed(&to_world);
            assert!(bounds.contains(&exact), "{name}: {bounds:?} misses {exact:?} under {to_world:?}");
            assert!(root.contains(&bounds), "{name}: {bounds:?} beyond the mapped root box {root:?}");
            let size = exact.size().max_element();
            worst = worst.max(((bounds.max - exact.max).max(exact.min - bounds.min)).max_element() / size);
        }
        assert!(worst < 0.05, "{name}: {worst} of the size beyond the exact box");
    }
}
