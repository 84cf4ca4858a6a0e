//! With the `parallel` feature the world's narrow phase runs on rayon: the same events in the
//! same order, and the same contacts, as on one thread.
#![cfg(feature = "parallel")]

use std::sync::Arc;

use kollide::math::{Affine3A, Quat, Vec3};
use kollide::mesh::TriMesh;
use kollide::query::Shape;
use kollide::shape::ShapeKind;
use kollide::world::{ColliderDesc3, ColliderHandle, EventKind, World3};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_convex::random_shape;
use kollide_testkit::shapes;
use rand::Rng;

/// A dense cloud of convex shapes of every kind and a few asteroid meshes.
fn scene(rng: &mut TestRng) -> Vec<(Shape, Vec3, Quat)> {
    let data = shapes::asteroid(5, 300);
    let mesh = Arc::new(TriMesh::new(data.vertices, data.triangles).unwrap());
    (0..400)
        .map(|i| {
            let shape = if i % 40 == 0 {
                Shape::Mesh(mesh.clone())
            } else {
                Shape::Convex(random_shape(rng, ShapeKind::ALL[i % ShapeKind::ALL.len()]))
            };
            (shape, random::point3(rng, 6.0), random::rotation3(rng))
        })
        .collect()
}

/// One step's events (slots and kind) and contacts (slots and the manifolds, printed).
type Step = (Vec<(u32, u32, EventKind)>, Vec<(u32, u32, String)>);

/// Steps the scene through 30 random motions on a pool of `threads` threads and returns what
/// each step reported. Handles are compared by slot: the two worlds' handles differ in their tag.
fn run(threads: usize) -> Vec<Step> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut rng = random::rng(77);
        let bodies = scene(&mut rng);
        let mut world = World3::new();
        let handles: Vec<ColliderHandle> = bodies
            .iter()
            .map(|(shape, at, turn)| {
                world
                    .insert(ColliderDesc3::new(
                        shape.clone(),
                        Affine3A::from_rotation_translation(*turn, *at),
                    ))
                    .unwrap()
            })
            .collect();
        let mut steps = Vec::new();
        for _ in 0..30 {
            for (h, (_, at, turn)) in handles.iter().zip(&bodies) {
                if rng.random_bool(0.7) {
                    let moved = *at + random::point3(&mut rng, 0.5);
                    let turned = Quat::from_scaled_axis(random::unit3(&mut rng) * 0.3) * *turn;
                    world.set_placement(*h, Affine3A::from_rotation_translation(turned, moved)).unwrap();
                }
            }
            world.step();
            let events = world.events().iter().map(|e| (e.a.index(), e.b.index(), e.kind)).collect();
            let contacts =
                world.contacts().map(|c| (c.a.index(), c.b.index(), format!("{:?}", c.manifolds))).collect();
            steps.push((events, contacts));
        }
        steps
    })
}

#[test]
fn the_parallel_narrow_phase_gives_the_events_and_contacts_of_one_thread() {
    let one = run(1);
    let many = run(4);
    let events: usize = one.iter().map(|s| s.0.len()).sum();
    let contacts: usize = one.iter().map(|s| s.1.len()).sum();
    // Enough pairs for the narrow phase to be split between threads, and something to compare.
    assert!(events > 100 && contacts > 1000, "{events} events, {contacts} contacts");
    for (step, (a, b)) in one.iter().zip(&many).enumerate() {
        assert!(a.0 == b.0, "events of step {step} differ");
        assert!(a.1 == b.1, "contacts of step {step} differ");
    }
}
