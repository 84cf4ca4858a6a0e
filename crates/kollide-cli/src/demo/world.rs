//! The `world` scene (seed 001's asteroid field as a collision world): thousands of instances of a
//! few unique concave asteroid meshes, each scaled non-uniformly, drifting and tumbling in a box;
//! every step moves them all, updates the world and reads its events. Then rays through the field.

use std::sync::Arc;
use std::time::Instant;

use glam::{Affine3A, Mat3, Quat, Vec3};
use kollide::math::Ray3;
use kollide::mesh::TriMesh;
use kollide::query::Shape;
use kollide::world::{ColliderDesc3, ColliderHandle, EventKind, QueryFilter, World3};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::shapes;
use rand::Rng;

use super::{Row, Scene, Settings, time_tests};

pub const SCENE: Scene = Scene {
    name: "world",
    about: "a collision world of 10,000 drifting, tumbling asteroids (15 shared meshes, scaled instances)",
    run,
};

/// Unique meshes shared by every instance.
const UNIQUE: usize = 15;
/// Steps of 1/60 s timed.
const STEPS: usize = 60;
const DT: f32 = 1.0 / 60.0;

/// One asteroid's motion: position, velocity, orientation, angular velocity, scale.
struct Body {
    position: Vec3,
    velocity: Vec3,
    rotation: Quat,
    spin: Vec3,
    scale: Vec3,
}

impl Body {
    fn placement(&self) -> Affine3A {
        Affine3A::from_mat3_translation(
            Mat3::from_quat(self.rotation) * Mat3::from_diagonal(self.scale),
            self.position,
        )
    }

    /// Drifts and tumbles for one step, bouncing off the walls of the cube `[-half, half]³`.
    fn advance(&mut self, half: f32) {
        self.position += self.velocity * DT;
        for axis in 0..3 {
            if self.position[axis].abs() > half && self.position[axis] * self.velocity[axis] > 0.0 {
                self.velocity[axis] = -self.velocity[axis];
            }
        }
        self.rotation = (Quat::from_scaled_axis(self.spin * DT) * self.rotation).normalize();
    }
}

fn run(settings: &Settings, notes: &mut Vec<String>) -> Vec<Row> {
    let mut rng = random::rng(settings.seed);
    let count = if settings.items < 4096 { 1_000 } else { 10_000 };
    let meshes: Vec<Arc<TriMesh>> = (0..UNIQUE)
        .map(|i| {
            let data = shapes::asteroid(settings.seed * 100 + i as u64, 2_000);
            Arc::new(TriMesh::new(data.vertices, data.triangles).expect("generated meshes are valid"))
        })
        .collect();
    // The density of `kollide-bench`'s `world/asteroids10k`: about 600 touching pairs among
    // 10,000 asteroids.
    let half = 130.0 * (count as f32 / 10_000.0).cbrt();
    let mut bodies: Vec<Body> = (0..count).map(|_| random_body(&mut rng, half)).collect();

    let mut world = World3::new();
    let handles: Vec<ColliderHandle> = bodies
        .iter()
        .enumerate()
        .map(|(i, body)| {
            let desc =
                ColliderDesc3::new(Shape::Mesh(meshes[i % UNIQUE].clone()), body.placement()).contacts(false);
            world.insert(desc.with_user_data(i as u64)).expect("valid placement")
        })
        .collect();
    world.step();

    let (mut began, mut ended, mut touching, mut candidates, mut worst) =
        (0usize, 0usize, 0usize, 0usize, 0f64);
    let start = Instant::now();
    for _ in 0..STEPS {
        let step_start = Instant::now();
        for (body, &handle) in bodies.iter_mut().zip(&handles) {
            body.advance(half);
            world.set_motion(handle, body.placement(), body.velocity).expect("valid placement");
        }
        world.step();
        for event in world.events() {
            match event.kind {
                EventKind::ContactBegan => began += 1,
                EventKind::ContactEnded => ended += 1,
                _ => {}
            }
        }
        touching += world.touching_pairs().count();
        candidates += world.candidate_pair_count();
        worst = worst.max(step_start.elapsed().as_secs_f64());
    }
    let step_ns = start.elapsed().as_secs_f64() * 1e9 / STEPS as f64;
    let mesh_bytes: usize = meshes.iter().map(|m| m.memory().total()).sum();
    notes.push(format!(
        "{count} asteroids in a cube of side {:.0}; per step: {:.2} ms mean, {:.2} ms worst, {:.0} candidate pairs, \
         {:.0} touching, {:.1} began and {:.1} ended events",
        2.0 * half,
        step_ns / 1e6,
        worst * 1e3,
        candidates as f64 / STEPS as f64,
        touching as f64 / STEPS as f64,
        began as f64 / STEPS as f64,
        ended as f64 / STEPS as f64,
    ));
    notes.push(format!(
        "memory: {:.1} MB of shared meshes, {:.1} MB of world (colliders, pairs, manifolds)",
        mesh_bytes as f64 / 1e6,
        world.memory_bytes() as f64 / 1e6
    ));
    let step_row = Row {
        what: "world step: move all + update + events",
        api: "World3::step",
        tests: STEPS,
        hits: touching / STEPS,
        ns_per_test: step_ns,
    };

    let rays: Vec<Ray3> = (0..settings.items)
        .map(|_| Ray3::new(random::point3(&mut rng, half), random::unit3(&mut rng)))
        .collect();
    let filter = QueryFilter::new();
    vec![
        step_row,
        time_tests("ray through the field (closest hit)", "World3::cast_ray", &rays, settings, |ray| {
            matches!(world.cast_ray(ray, 2.0 * half, &filter), Ok(Some(_)))
        }),
        time_tests("ray through the field (any hit)", "World3::cast_ray_any", &rays, settings, |ray| {
            matches!(world.cast_ray_any(ray, 2.0 * half, &filter), Ok(Some(_)))
        }),
    ]
}

fn random_body(rng: &mut TestRng, half: f32) -> Body {
    Body {
        position: random::point3(rng, half),
        velocity: random::unit3(rng) * rng.random_range(1.0..4.0),
        rotation: random::rotation3(rng),
        spin: random::unit3(rng) * rng.random_range(0.3..1.5),
        scale: Vec3::new(rng.random_range(0.5..3.0), rng.random_range(0.5..3.0), rng.random_range(0.5..3.0)),
    }
}
