//! Sphere sets: covers hold every surface point of real and procedural meshes; set against mesh
//! equals brute force under random affine maps (containment included); set against set is exact
//! for similarities and never misses an overlap otherwise; bad input is refused.

use std::path::Path;

use glam::{Affine3A, Mat3, Quat, Vec3};
use kollide::bounds::Sphere;
use kollide::mesh::io::load;
use kollide::mesh::{SphereSet, SphereSetError, TriMesh};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_mesh::corners;
use kollide_testkit::reference_sphere_set as reference;
use kollide_testkit::shapes;
use rand::Rng;

fn asteroid(seed: u64, triangles: usize) -> TriMesh {
    let data = shapes::asteroid(seed, triangles);
    TriMesh::new(data.vertices, data.triangles).unwrap()
}

fn bunny() -> TriMesh {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/cgal_bunny00.off");
    TriMesh::from_data(load(&path).unwrap()).unwrap()
}

/// Points spread over every triangle: its corners, its centroid and `per_triangle` random points.
fn surface_points(mesh: &TriMesh, rng: &mut TestRng, per_triangle: usize) -> Vec<Vec3> {
    let mut points = Vec::new();
    for t in corners(mesh.vertices(), mesh.triangles()) {
        points.extend(t);
        points.push((t[0] + t[1] + t[2]) / 3.0);
        for _ in 0..per_triangle {
            let (mut u, mut v) = (rng.random_range(0.0..1.0f32), rng.random_range(0.0..1.0f32));
            if u + v > 1.0 {
                (u, v) = (1.0 - u, 1.0 - v);
            }
            points.push(t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v);
        }
    }
    points
}

#[test]
fn covers_hold_every_surface_point() {
    let mut rng = random::rng(1);
    for (name, mesh, per_triangle) in [("asteroid", asteroid(2, 3000), 4), ("bunny", bunny(), 1)] {
        let points = surface_points(&mesh, &mut rng, per_triangle);
        let mut excess = Vec::new();
        for count in [1, 8, 29, 64] {
            let set = SphereSet::cover_mesh(&mesh, count).unwrap();
            assert!(
                !set.spheres().is_empty() && set.spheres().len() <= count,
                "{name}: {}",
                set.spheres().len()
            );
            let uncovered =
                points.iter().filter(|p| !set.spheres().iter().any(|s| s.contains_point(**p))).count();
            assert_eq!(
                uncovered, 0,
                "{name} with {count} balls: {uncovered} surface points outside every ball"
            );
            let volume = set.cover_volume(&mesh, 24).unwrap();
            assert!(
                volume.mesh > 0.0 && volume.union >= volume.excess && volume.excess >= 0.0,
                "{name}: {volume:?}"
            );
            // The union holds most of the mesh: every ball holds a patch and reaches inside.
            assert!(volume.union - volume.excess > 0.3 * volume.mesh, "{name} with {count}: {volume:?}");
            excess.push(volume.excess);
        }
        assert!(excess[3] < excess[1] && excess[1] < excess[0], "{name}: excess by count {excess:?}");
    }
}

/// A random placement of the set in mesh space: a random affine map, or a small similarity
/// around a point of the mesh's box (so that some sets lie inside the solid).
fn placement(rng: &mut TestRng, mesh: &TriMesh) -> Affine3A {
    let size = mesh.bounds().size().max_element();
    if rng.random_bool(0.3) {
        let at = mesh.bounds().center() + random::point3(rng, 0.3 * size);
        Affine3A::from_scale_rotation_translation(
            Vec3::splat(rng.random_range(0.05..0.2)),
            random::rotation3(rng),
            at,
        )
    } else {
        let map = random::affine3(rng, 1.2 * size);
        // Scale the linear part so the set is about as large as the mesh.
        let linear = Mat3::from(map.matrix3) * (0.6 * size / map.matrix3.x_axis.length().max(1e-3));
        Affine3A::from_mat3_translation(linear, map.translation.into())
    }
}

#[test]
fn set_against_mesh_equals_brute_force() {
    let mut rng = random::rng(3);
    let set = SphereSet::cover_mesh(&asteroid(4, 800), 29).unwrap();
    for mesh in [asteroid(5, 1200), open_grid()] {
        let triangles = corners(mesh.vertices(), mesh.triangles());
        let scale = mesh.bounds().size().max_element();
        let (mut hits, mut inside_only, mut checked) = (0, 0, 0);
        // 5,000 per mesh: 10,000 cases.
        let n = cases(5_000);
        for _ in 0..n {
            let map = placement(&mut rng, &mesh);
            let (margin, inside) = reference::set_against_mesh(set.spheres(), &triangles, &map);
            let inside = inside && mesh.is_solid();
            // Boundary cases, where f32 rounding may decide either way, are not compared.
            if margin.abs() < 1e-5 * f64::from(scale) && !inside {
                continue;
            }
            let expected = margin < 0.0 || inside;
            // The same relative placement, with the mesh placed in the world too.
            let mesh_to_world =
                Affine3A::from_rotation_translation(Quat::from_rotation_z(0.3), Vec3::new(2.0, -1.0, 0.5));
            assert_eq!(
                set.intersects_mesh(&(mesh_to_world * map), &mesh, &mesh_to_world),
                expected,
                "margin {margin}, inside {inside}, map {map:?}"
            );
            hits += usize::from(expected);
            inside_only += usize::from(inside && margin > 0.0);
            checked += 1;
        }
        assert!(
            checked > n * 19 / 20 && hits > n / 10 && hits < checked - n / 10,
            "{hits} hits of {checked}"
        );
        if mesh.is_solid() {
            assert!(inside_only > n / 100, "only {inside_only} sets inside the solid without touching it");
        }
    }
}

/// An open mesh (a grid of triangles): a set counts only when it touches the surface.
fn open_grid() -> TriMesh {
    let data = shapes::grid(20);
    let mesh = TriMesh::new(data.vertices, data.triangles).unwrap();
    assert!(!mesh.is_solid());
    mesh
}

#[test]
fn set_against_set_is_exact_for_similarities_and_conservative_otherwise() {
    let mut rng = random::rng(6);
    let a = SphereSet::cover_mesh(&asteroid(7, 800), 29).unwrap();
    let b = SphereSet::cover_mesh(&asteroid(8, 800), 12).unwrap();
    let samples = reference::unit_sphere_points(400);
    let (mut similar_hits, mut general_hits) = (0, 0);
    let n = cases(10_000);
    for i in 0..n {
        let map = if i % 2 == 0 {
            let scale = rng.random_range(0.3..3.0) * if rng.random_bool(0.2) { -1.0 } else { 1.0 };
            Affine3A::from_scale_rotation_translation(
                Vec3::splat(scale),
                random::rotation3(&mut rng),
                random::point3(&mut rng, 3.0),
            )
        } else {
            random::affine3(&mut rng, 8.0)
        };
        let got = a.intersects_set(&Affine3A::IDENTITY, &b, &map);
        if i % 2 == 0 {
            // Exact: the mapped balls are balls of radius r·|scale|.
            let s = map.matrix3.x_axis.length();
            let gap = b
                .spheres()
                .iter()
                .flat_map(|sb| {
                    a.spheres().iter().map(move |sa| {
                        let c = map.transform_point3(sb.center).as_dvec3();
                        c.distance(sa.center.as_dvec3()) - f64::from(sa.radius) - f64::from(sb.radius * s)
                    })
                })
                .fold(f64::INFINITY, f64::min);
            if gap.abs() > 1e-4 {
                assert_eq!(got, gap < 0.0, "similarity {map:?}: gap {gap}");
                similar_hits += usize::from(got);
            }
        } else {
            let gap = reference::sets_sampled_gap(a.spheres(), b.spheres(), &map, &samples);
            if gap < -1e-4 {
                assert!(got, "a sampled overlap of {gap} was missed under {map:?}");
            }
            general_hits += usize::from(got);
        }
    }
    assert!(similar_hits > n / 20 && similar_hits < n * 9 / 20, "{similar_hits} similarity hits");
    assert!(general_hits > n / 20 && general_hits < n * 9 / 20, "{general_hits} general hits");
}

#[test]
fn swapped_similarity_queries_agree() {
    let mut rng = random::rng(9);
    let a = SphereSet::cover_mesh(&asteroid(10, 600), 16).unwrap();
    let b = SphereSet::cover_mesh(&asteroid(11, 600), 16).unwrap();
    let mut compared = 0;
    let n = cases(10_000);
    for _ in 0..n {
        let map =
            Affine3A::from_rotation_translation(random::rotation3(&mut rng), random::point3(&mut rng, 2.5));
        let (ab, ba) = (
            a.intersects_set(&Affine3A::IDENTITY, &b, &map),
            b.intersects_set(&map, &a, &Affine3A::IDENTITY),
        );
        // Rigid maps are exact both ways; only rounding at tangency may differ.
        if ab != ba {
            let gap = reference::sets_sampled_gap(a.spheres(), b.spheres(), &map, &[]);
            assert!(gap.abs() < 1e-4, "swapped answers differ at gap {gap}");
        }
        compared += 1;
    }
    assert_eq!(compared, n);
}

#[test]
fn bad_input_is_refused_or_answered() {
    assert_eq!(SphereSet::new(Vec::new()).unwrap_err(), SphereSetError::Empty);
    let ok = Sphere::new(Vec3::ZERO, 1.0);
    for (bad, index) in [
        (Sphere::new(Vec3::NAN, 1.0), 1),
        (Sphere::new(Vec3::ZERO, -1.0), 1),
        (Sphere::new(Vec3::ZERO, f32::INFINITY), 1),
        (Sphere::new(Vec3::ZERO, f32::NAN), 1),
    ] {
        assert_eq!(SphereSet::new(vec![ok, bad]).unwrap_err(), SphereSetError::InvalidSphere(index));
    }
    let mesh = asteroid(12, 400);
    assert_eq!(SphereSet::cover_mesh(&mesh, 0).unwrap_err(), SphereSetError::Empty);
    assert!(SphereSet::new(vec![ok]).unwrap().cover_volume(&mesh, 0).is_none());
    // More balls asked than triangles: one per triangle at most.
    let one = TriMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]]).unwrap();
    let set = SphereSet::cover_mesh(&one, 10).unwrap();
    assert_eq!(set.spheres().len(), 1);
    assert!(set.cover_volume(&one, 8).is_none(), "an open mesh has no volume");
    // A degenerate triangle is covered too.
    let flat = TriMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0], vec![[0, 1, 2]]).unwrap();
    let set = SphereSet::cover_mesh(&flat, 1).unwrap();
    assert!(set.spheres()[0].contains_point(Vec3::X * 2.0) && set.spheres()[0].contains_point(Vec3::ZERO));
    // Maps that are not finite or not invertible give no intersection, never a panic.
    let set = SphereSet::cover_mesh(&mesh, 8).unwrap();
    for map in [
        Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0)),
        Affine3A::from_translation(Vec3::NAN),
        Affine3A::from_scale_rotation_translation(Vec3::splat(f32::INFINITY), Quat::IDENTITY, Vec3::ZERO),
    ] {
        assert!(!set.intersects_mesh(&map, &mesh, &Affine3A::IDENTITY));
        assert!(!set.intersects_mesh(&Affine3A::IDENTITY, &mesh, &map));
        assert!(!set.intersects_set(&Affine3A::IDENTITY, &set, &map) || map.is_finite());
        assert!(!set.intersects_set(&map, &set, &Affine3A::IDENTITY) || map.is_finite());
    }
    assert!(
        set.intersects_mesh(&Affine3A::IDENTITY, &mesh, &Affine3A::IDENTITY),
        "a cover touches its own mesh"
    );
    assert!(set.intersects_set(&Affine3A::IDENTITY, &set, &Affine3A::IDENTITY));
}
