//! The `asteroids` scene (seeds 000 and 001): a field of a few unique concave asteroid meshes,
//! each built once, placed many times by random affine maps (non-uniform scale, shear, rotation),
//! then hit by rays, bendy beams, bullets (spheres) and point probes.

use std::sync::Arc;
use std::time::Instant;

use glam::{Affine3A, Mat3, Vec3};
use kollide::bounds::Sphere;
use kollide::math::Ray3;
use kollide::mesh::{MeshInstance, TriMesh};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::shapes;
use rand::Rng;

use super::{Row, Scene, Settings, time_tests};

pub const SCENE: Scene = Scene {
    name: "asteroids",
    about: "15 unique concave asteroid meshes, many scaled and sheared instances sharing them",
    run,
};

/// Unique meshes: a few shapes shared by many instances.
const UNIQUE: usize = 15;

fn placement(rng: &mut TestRng) -> Affine3A {
    let scale = Vec3::new(rng.random_range(0.5..3.0), rng.random_range(0.5..3.0), rng.random_range(0.5..3.0));
    let shear = Mat3::from_cols(Vec3::X, Vec3::new(rng.random_range(-0.3..0.3), 1.0, 0.0), Vec3::Z);
    let linear = Mat3::from_quat(random::rotation3(rng)) * shear * Mat3::from_diagonal(scale);
    Affine3A::from_mat3_translation(linear, random::point3(rng, 2.0))
}

fn run(settings: &Settings, notes: &mut Vec<String>) -> Vec<Row> {
    let mut rng = random::rng(settings.seed);
    let triangles = if settings.items < 4096 { 2_000 } else { 20_000 };

    // Building the unique meshes (BVH included) is timed as one row of its own.
    let start = Instant::now();
    let meshes: Vec<Arc<TriMesh>> = (0..UNIQUE)
        .map(|i| {
            let data = shapes::asteroid(settings.seed * 100 + i as u64, triangles);
            Arc::new(TriMesh::new(data.vertices, data.triangles).expect("generated meshes are valid"))
        })
        .collect();
    let build_ns = start.elapsed().as_secs_f64() * 1e9 / UNIQUE as f64;
    let solid = meshes.iter().filter(|m| m.is_solid()).count();
    let mesh_bytes: usize = meshes.iter().map(|m| m.memory().total()).sum();

    let instances: Vec<MeshInstance> = (0..settings.items)
        .map(|i| {
            MeshInstance::new(meshes[i % UNIQUE].clone(), placement(&mut rng)).expect("invertible placement")
        })
        .collect();
    // Each query targets one instance: rays from outside aimed into its box, spheres and points in
    // and around its box.
    let rays: Vec<(usize, Ray3)> = (0..settings.items)
        .map(|i| {
            let b = instances[i].bounds();
            let origin = b.center() + random::unit3(&mut rng) * b.size().length();
            let target = b.min + (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * b.size();
            (i, Ray3::new(origin, target - origin))
        })
        .collect();
    let beams: Vec<(usize, Vec<Vec3>)> = rays
        .iter()
        .map(|&(i, ray)| {
            // A bendy beam: the ray split into 8 segments, each bent a little sideways.
            let bend = random::unit3(&mut rng) * 0.05 * ray.dir.length();
            (i, (0..=8).map(|k| ray.at(k as f32 / 8.0) + bend * ((k * (8 - k)) as f32 / 16.0)).collect())
        })
        .collect();
    let probes: Vec<(usize, Vec3)> = (0..settings.items)
        .map(|i| {
            let b = instances[i].bounds();
            (i, b.min + (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * b.size())
        })
        .collect();
    let bullets: Vec<(usize, Sphere)> = probes
        .iter()
        .map(|&(i, p)| (i, Sphere::new(p, 0.05 * instances[i].bounds().size().max_element())))
        .collect();

    notes.push(format!(
        "{UNIQUE} unique meshes ({:.1} MB in all), {} instances of {} bytes each",
        mesh_bytes as f64 / 1e6,
        instances.len(),
        size_of::<MeshInstance>()
    ));
    let build = Row {
        what: if triangles < 10_000 {
            "build asteroid mesh + BVH (~2k tris)"
        } else {
            "build asteroid mesh + BVH (~20k tris)"
        },
        api: "TriMesh::new",
        tests: UNIQUE,
        hits: solid,
        ns_per_test: build_ns,
    };
    vec![
        build,
        time_tests("place a shared mesh (scale + shear)", "MeshInstance::new", &instances, settings, |m| {
            MeshInstance::new(m.mesh().clone(), *m.to_world()).is_ok()
        }),
        time_tests(
            "ray vs placed asteroid (closest hit)",
            "MeshInstance::cast_ray",
            &rays,
            settings,
            |(i, r)| instances[*i].cast_ray(r, f32::INFINITY).is_some(),
        ),
        time_tests(
            "ray vs placed asteroid (any hit)",
            "MeshInstance::intersects_ray",
            &rays,
            settings,
            |(i, r)| instances[*i].intersects_ray(r, f32::INFINITY),
        ),
        time_tests(
            "bendy beam (8 segments) vs asteroid",
            "MeshInstance::cast_polyline",
            &beams,
            settings,
            |(i, b)| instances[*i].cast_polyline(b).is_some(),
        ),
        time_tests(
            "bullet (sphere) vs asteroid surface",
            "MeshInstance::intersects_sphere",
            &bullets,
            settings,
            |(i, s)| instances[*i].intersects_sphere(s),
        ),
        time_tests(
            "bullet contact (solid, deepest)",
            "MeshInstance::sphere_contact",
            &bullets,
            settings,
            |(i, s)| instances[*i].sphere_contact(s).is_some(),
        ),
        time_tests("point inside asteroid", "MeshInstance::contains_point", &probes, settings, |(i, p)| {
            instances[*i].contains_point(*p) == Some(true)
        }),
    ]
}
