//! `world/*`: kollide's collision world ([`World3`]) against rapier3d 0.36's collision pipeline
//! and query pipeline, on identical scenes, single-threaded on both sides (rapier3d with its
//! default features, which leave out `parallel`).
//!
//! The scenes are made by plain functions ([`asteroid_scene`], [`convex_scene`]) that both sides
//! consume: the same shapes (from the same vertices and parameters) at the same rigid poses,
//! converted to each library's types before any timing.
//!
//! # Step rows (`world/*/step`, ms/step)
//!
//! Each object's poses over [`FRAMES`] frames (60 per simulated second) are computed once; a
//! side replays them forward, then backward, then forward again (a ping-pong, so the replay never
//! teleports anything), each side with its own cursor, carrying on from wherever its previous
//! batch stopped. One timed step, on either side, is: set every collider's placement to the next
//! frame, update (broad phase, filters, narrow phase, events), read the step's collision events
//! and keep a running count of touching pairs from them. The scene is inserted and stepped once
//! while preparing, so the first step, in which every pair begins, is not timed.
//!
//! - kollide: [`World3::set_placement`], [`World3::step`], [`World3::events`] (`ContactBegan`,
//!   `ContactEnded`).
//! - rapier: colliders without rigid bodies (the collision pipeline's stand-alone use), moved by
//!   `Collider::set_position`, then `CollisionPipeline::step` with a prediction distance of 0 and
//!   an event handler that collects the `CollisionEvent`s (`Started`, `Stopped`) into a vector.
//!   Rapier treats a collider without a body as fixed and by default skips fixed–fixed pairs, so
//!   every collider enables `ActiveCollisionTypes::all()`, and `ActiveEvents::COLLISION_EVENTS`.
//!
//! `world/asteroids10k/step` is the row, whose step is "move all + update + events": both
//! sides are asked for the began/ended events alone, kollide's colliders with
//! `ColliderDesc::contacts(false)`, rapier's sensors (parry's intersection test instead of
//! manifolds, its only events-only mode). Its variant `world/asteroids10k/step@manifolds` (left
//! out of `--quick` unless filtered for) and `world/convex10k/step` compute contact manifolds for
//! the touching pairs on both sides (kollide's default colliders; rapier's non-sensor colliders
//! always do); see [`Mode`].
//!
//! What each side counts as touching: kollide, the pairs whose shapes intersect (exactly; a closed
//! mesh is the solid it bounds, so a small asteroid wholly inside a big one touches it); rapier,
//! the contact pairs with at least one active contact, i.e. a contact point at a distance below
//! the prediction distance 0 (penetrating), or for sensors the pairs its intersection test finds. For convex shapes both are "the solids overlap", up to
//! grazing contacts at rounding level. For meshes rapier sees surfaces only (parry's trimesh
//! against trimesh manifolds are triangle-pair contacts), so a pair where one asteroid lies inside
//! the other without the surfaces crossing touches for kollide and not for rapier; the agreement
//! check (untimed) compares the pair sets step by step with those containment pairs set apart.
//!
//! # Query rows (`world/query-*/10k`, ns/query)
//!
//! One frame of the `convex10k` scene, both worlds stepped once (rapier's query pipeline is a
//! view on its broad phase's tree). Closest hits: kollide's [`World3::cast_ray`] and
//! [`World3::cast_shape`] against rapier's `QueryPipeline::cast_ray` (solid) and
//! `QueryPipeline::cast_shape` (stopping at penetration), obtained from
//! `BroadPhaseBvh::as_query_pipeline` per query (a handful of references). Both sides treat
//! shapes as solids: a ray or a cast shape that starts inside a collider hits it at `t = 0`. The
//! answer compared is the hit's `t`.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::{Arc, Mutex};

use glam::{Affine3A, Quat, Vec3};
use kollide::math::Ray3;
use kollide::mesh::io::MeshData;
use kollide::mesh::{MeshInstance, MeshOverlap, TriMesh};
use kollide::query::Shape;
use kollide::shape::{Ball, Capsule, ConvexHull, ConvexShape, Cuboid};
use kollide::world::{ColliderDesc3, ColliderHandle, EventKind, QueryFilter, World3};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::shapes;
use parry3d::math::Pose;
use rand::Rng;
use rapier3d::prelude as rp;

use super::{Rigid, Workload};
use crate::harness::{Agreement, Answer, Batch, Prepared};

/// The peer of every row here.
pub const RAPIER3D: &str = "rapier3d 0.36";

/// Frames of each step scene's precomputed motion; the replay runs `0, 1, ..., FRAMES - 1,
/// FRAMES - 2, ..., 1, 0, 1, ...`.
pub(super) const FRAMES: usize = 33;
/// Seconds per frame.
pub(super) const DT: f32 = 1.0 / 60.0;

/// Objects in each scene (10,000; a tenth of that in the unit tests, which run the whole scene
/// in a light-optimised build, at the same density).
const OBJECTS: usize = if cfg!(test) { 1_000 } else { 10_000 };

/// Unique asteroid meshes of `world/asteroids10k/step`, shared by all instances on kollide's side.
const UNIQUE_ASTEROIDS: usize = 15;
/// Triangles of each asteroid (about; `shapes::asteroid` rounds to its own subdivision).
const ASTEROID_TRIANGLES: usize = 2_000;

pub fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            // The row: one step is "move all + update + events", so both sides are asked
            // for the events alone (see the module).
            name: "world/asteroids10k/step",
            metric: "ms/step",
            ns_per_unit: 1e6,
            peer: RAPIER3D,
            items: 10,
            check_items: 2,
            balanced: false,
            prepare: |n, seed| Some(Box::new(Steps::new(&asteroid_scene(seed), n, Mode::EventsOnly))),
        },
        Workload {
            name: "world/asteroids10k/step@manifolds",
            metric: "ms/step",
            ns_per_unit: 1e6,
            peer: RAPIER3D,
            // rapier takes about three quarters of a second per step here: 10 steps per batch.
            items: 10,
            check_items: 2,
            balanced: false,
            prepare: |n, seed| Some(Box::new(Steps::new(&asteroid_scene(seed), n, Mode::Contacts))),
        },
        Workload {
            name: "world/convex10k/step",
            metric: "ms/step",
            ns_per_unit: 1e6,
            peer: RAPIER3D,
            items: 16,
            check_items: 3,
            balanced: false,
            prepare: |n, seed| Some(Box::new(Steps::new(&convex_scene(seed), n, Mode::Contacts))),
        },
        Workload {
            name: "world/query-ray/10k",
            metric: "ns/query",
            ns_per_unit: 1.0,
            peer: RAPIER3D,
            items: 10_000,
            check_items: 500,
            balanced: true,
            prepare: query_ray,
        },
        Workload {
            name: "world/query-shape/10k",
            metric: "ns/query",
            ns_per_unit: 1.0,
            peer: RAPIER3D,
            items: 4_096,
            // Grazing casts differ about once in 2,000 (see `query_shape`); the check tolerates
            // one in 1,000.
            check_items: 1_000,
            balanced: true,
            prepare: query_shape,
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// Scenes: plain data that both sides are built from.
// ---------------------------------------------------------------------------------------------

/// The shape of one object of a scene.
#[derive(Clone, Debug)]
enum Body {
    Ball {
        radius: f32,
    },
    Cuboid {
        half_extents: Vec3,
    },
    /// Around the y axis, as both libraries define it.
    Capsule {
        half_height: f32,
        radius: f32,
    },
    /// The convex hull of these points.
    Hull {
        points: Vec<Vec3>,
    },
    /// Unique mesh `mesh` of the scene, scaled by `scale` along its own axes before the rigid
    /// pose: kollide places the shared mesh by the affine map `pose · diag(scale)`, rapier gets a
    /// copy of the mesh with the scale applied to its vertices (it places shapes by rigid poses
    /// only).
    Asteroid {
        mesh: usize,
        scale: Vec3,
    },
}

/// A scene: shapes and their rigid poses over [`FRAMES`] frames.
struct Scene {
    /// Unique meshes that [`Body::Asteroid`] refers to.
    meshes: Vec<MeshData>,
    bodies: Vec<Body>,
    /// `frames[k][i]`: the pose of body `i` in frame `k`.
    frames: Vec<Vec<Rigid>>,
}

/// Poses over [`FRAMES`] frames of a body drifting at `velocity` and tumbling at `spin` (a
/// world-space angular velocity, radians per second) from `start`.
fn drift(start: Rigid, velocity: Vec3, spin: Vec3) -> impl Fn(usize) -> Rigid {
    move |k| {
        let time = k as f32 * DT;
        Rigid {
            rotation: Quat::from_scaled_axis(spin * time) * start.rotation,
            translation: start.translation + velocity * time,
        }
    }
}

/// Lays out `n` bodies' frames from a per-body motion.
fn frames(motions: &[Box<dyn Fn(usize) -> Rigid>]) -> Vec<Vec<Rigid>> {
    (0..FRAMES).map(|k| motions.iter().map(|m| m(k)).collect()).collect()
}

/// Half the side of the cube the asteroids fill, for 10,000 of them (scaled with the count so
/// that the density stays the same): chosen so that about 600 pairs touch in any frame (each a
/// deep overlap for rapier's trimesh manifolds: about a second per step for rapier at a
/// thousand pairs).
const ASTEROID_FIELD_HALF: f32 = 130.0;

/// `world/asteroids10k/step`: [`OBJECTS`] instances of [`UNIQUE_ASTEROIDS`] concave asteroid
/// meshes of about [`ASTEROID_TRIANGLES`] triangles each (about 2.5 units across), each scaled
/// by 0.5 to 3 along its own axes, randomly rotated, spread uniformly over a cube, drifting at 1
/// to 4 units per second and tumbling at 0.3 to 1.5 radians per second.
fn asteroid_scene(seed: u64) -> Scene {
    let mut rng = random::rng(seed);
    let meshes: Vec<MeshData> = (0..UNIQUE_ASTEROIDS)
        .map(|i| shapes::asteroid(seed.wrapping_add(i as u64), ASTEROID_TRIANGLES))
        .collect();
    let half = ASTEROID_FIELD_HALF * (OBJECTS as f32 / 10_000.0).cbrt();
    let mut bodies = Vec::with_capacity(OBJECTS);
    let mut motions: Vec<Box<dyn Fn(usize) -> Rigid>> = Vec::with_capacity(OBJECTS);
    for i in 0..OBJECTS {
        let scale =
            Vec3::new(rng.random_range(0.5..3.0), rng.random_range(0.5..3.0), rng.random_range(0.5..3.0));
        bodies.push(Body::Asteroid { mesh: i % UNIQUE_ASTEROIDS, scale });
        let start =
            Rigid { rotation: random::rotation3(&mut rng), translation: random::point3(&mut rng, half) };
        let velocity = random::unit3(&mut rng) * rng.random_range(1.0..4.0);
        let spin = random::unit3(&mut rng) * rng.random_range(0.3..1.5);
        motions.push(Box::new(drift(start, velocity, spin)));
    }
    Scene { meshes, bodies, frames: frames(&motions) }
}

/// A random box, ball, capsule or convex hull (cycled by `i`), with a bounding radius of 0.3 to
/// 0.65.
fn convex_body(rng: &mut TestRng, i: usize) -> Body {
    match i % 4 {
        0 => Body::Cuboid {
            half_extents: Vec3::new(
                rng.random_range(0.2..0.4),
                rng.random_range(0.2..0.4),
                rng.random_range(0.2..0.4),
            ),
        },
        1 => Body::Ball { radius: rng.random_range(0.3..0.55) },
        2 => Body::Capsule { half_height: rng.random_range(0.1..0.3), radius: rng.random_range(0.2..0.35) },
        _ => {
            let radius = rng.random_range(0.35..0.6);
            Body::Hull {
                points: (0..24).map(|_| random::unit3(rng) * radius * rng.random_range(0.7..1.0)).collect(),
            }
        }
    }
}

/// `world/convex10k/step` (and the query rows' scene): [`OBJECTS`] boxes, balls, capsules and
/// convex hulls, half of them in a dense pile, half in a free cloud above it.
///
/// - The pile: a 25 × 25 × 8 lattice (for 10,000 objects; 8 layers of fewer for fewer objects)
///   of spacing 0.8, each object jittered by up to 0.1 and randomly rotated, so that each
///   touches a few neighbours (most of the scene's 6,000 touching pairs), as in a settled pile;
///   each wobbles in place (up to 0.02 units and 0.03 radians, periods of 0.3 to 1 second), as
///   a pile does under a solver.
/// - The cloud: the other half spread uniformly over a 60 × 60 × 30 box above the pile (scaled
///   with the count), drifting at 1 to 5 units per second and tumbling at 0.5 to 3 radians per
///   second; a few hundred pairs touch there at a time.
fn convex_scene(seed: u64) -> Scene {
    const PILE_SPACING: f32 = 0.8;
    let mut rng = random::rng(seed ^ 0x636f_6e76);
    let pile = OBJECTS / 2;
    let layers = 8;
    let side = ((pile / layers) as f32).sqrt().ceil() as usize;
    let mut bodies = Vec::with_capacity(OBJECTS);
    let mut motions: Vec<Box<dyn Fn(usize) -> Rigid>> = Vec::with_capacity(OBJECTS);
    for i in 0..pile {
        bodies.push(convex_body(&mut rng, i));
        let cell = Vec3::new((i % side) as f32, ((i / side) % side) as f32, (i / (side * side)) as f32);
        let base = Rigid {
            rotation: random::rotation3(&mut rng),
            translation: (cell - Vec3::new(side as f32 * 0.5, side as f32 * 0.5, 0.0)) * PILE_SPACING
                + random::point3(&mut rng, 0.1),
        };
        let (shift, turn) = (random::unit3(&mut rng) * 0.02, random::unit3(&mut rng) * 0.03);
        let omega = std::f32::consts::TAU / rng.random_range(0.3..1.0);
        let phase = rng.random_range(0.0..std::f32::consts::TAU);
        motions.push(Box::new(move |k| {
            let wave = (omega * k as f32 * DT + phase).sin();
            Rigid {
                rotation: Quat::from_scaled_axis(turn * wave) * base.rotation,
                translation: base.translation + shift * wave,
            }
        }));
    }
    let scale = (OBJECTS as f32 / 10_000.0).cbrt();
    let (cloud_half, cloud_center) =
        (Vec3::new(30.0, 30.0, 15.0) * scale, Vec3::new(0.0, 0.0, 10.0 + 15.0 * scale));
    for i in pile..OBJECTS {
        bodies.push(convex_body(&mut rng, i));
        let start = Rigid {
            rotation: random::rotation3(&mut rng),
            translation: cloud_center + random::point3(&mut rng, 1.0) * cloud_half,
        };
        let velocity = random::unit3(&mut rng) * rng.random_range(1.0..5.0);
        let spin = random::unit3(&mut rng) * rng.random_range(0.5..3.0);
        motions.push(Box::new(drift(start, velocity, spin)));
    }
    Scene { meshes: Vec::new(), bodies, frames: frames(&motions) }
}

// ---------------------------------------------------------------------------------------------
// The two worlds.
// ---------------------------------------------------------------------------------------------

/// A body's scale (the identity for convex shapes, whose placements are rigid).
fn scale_of(body: &Body) -> Vec3 {
    match body {
        Body::Asteroid { scale, .. } => *scale,
        _ => Vec3::ONE,
    }
}

fn kollide_convex(body: &Body) -> ConvexShape {
    match body {
        Body::Ball { radius } => Ball::new(*radius).into(),
        Body::Cuboid { half_extents } => Cuboid::new(*half_extents).into(),
        Body::Capsule { half_height, radius } => Capsule::new(*half_height, *radius).into(),
        Body::Hull { points } => ConvexHull::new(points).expect("random points span a volume").into(),
        Body::Asteroid { .. } => unreachable!("not convex"),
    }
}

fn rapier_shape(body: &Body, meshes: &[MeshData]) -> rp::SharedShape {
    match body {
        Body::Ball { radius } => rp::SharedShape::ball(*radius),
        Body::Cuboid { half_extents: h } => rp::SharedShape::cuboid(h.x, h.y, h.z),
        Body::Capsule { half_height, radius } => rp::SharedShape::capsule_y(*half_height, *radius),
        Body::Hull { points } => rp::SharedShape::convex_hull(points).expect("random points span a volume"),
        Body::Asteroid { mesh, scale } => {
            let data = &meshes[*mesh];
            let vertices = data.vertices.iter().map(|&v| v * *scale).collect();
            rp::SharedShape::trimesh(vertices, data.triangles.clone()).expect("a valid asteroid")
        }
    }
}

/// What a step row asks of both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Contact events with manifolds: kollide's default colliders; rapier's solid colliders
    /// (its contact pairs always compute manifolds).
    Contacts,
    /// Began/ended events only, no manifolds (`world/asteroids10k/step`): kollide's colliders with
    /// `ColliderDesc::contacts(false)`; rapier's sensors, whose pairs run parry's intersection
    /// test instead of its manifolds (its only events-only mode).
    EventsOnly,
}

/// kollide's side of a scene: the world, the handles in scene order, the placements of every
/// frame.
struct KollideSide {
    world: World3,
    handles: Vec<ColliderHandle>,
    /// The unique meshes (for the memory figure and the containment check).
    meshes: Vec<Arc<TriMesh>>,
    /// Each body's unique mesh, if it is a mesh.
    mesh_of: Vec<Option<usize>>,
    /// `frames[k][i]`: body `i`'s placement in frame `k`.
    frames: Vec<Vec<Affine3A>>,
    replay: Replay,
    /// Touching pairs, kept up to date from the events.
    touching: usize,
}

impl KollideSide {
    /// Inserts the scene at frame 0 and steps once (every pair begins there).
    fn new(scene: &Scene, mode: Mode) -> Self {
        let meshes: Vec<Arc<TriMesh>> = scene
            .meshes
            .iter()
            .map(|m| Arc::new(TriMesh::new(m.vertices.clone(), m.triangles.clone()).expect("a valid mesh")))
            .collect();
        let frames: Vec<Vec<Affine3A>> = scene
            .frames
            .iter()
            .map(|frame| {
                frame
                    .iter()
                    .zip(&scene.bodies)
                    .map(|(pose, body)| pose.affine() * Affine3A::from_scale(scale_of(body)))
                    .collect()
            })
            .collect();
        let mut world = World3::new();
        let handles: Vec<ColliderHandle> = scene
            .bodies
            .iter()
            .zip(&frames[0])
            .enumerate()
            .map(|(i, (body, &placement))| {
                let shape = match body {
                    Body::Asteroid { mesh, .. } => Shape::Mesh(meshes[*mesh].clone()),
                    convex => Shape::Convex(kollide_convex(convex)),
                };
                world
                    .insert(
                        ColliderDesc3::new(shape, placement)
                            .contacts(mode == Mode::Contacts)
                            .with_user_data(i as u64),
                    )
                    .expect("a valid collider")
            })
            .collect();
        let mesh_of = scene
            .bodies
            .iter()
            .map(|body| match body {
                Body::Asteroid { mesh, .. } => Some(*mesh),
                _ => None,
            })
            .collect();
        let mut side =
            Self { world, handles, meshes, mesh_of, frames, replay: Replay::default(), touching: 0 };
        side.world.step();
        side.touching = side.world.touching_pairs().count();
        side
    }

    /// One timed step: the next frame's placements, the update, the events.
    fn step(&mut self) -> usize {
        let frame = &self.frames[self.replay.next()];
        for (&handle, &placement) in self.handles.iter().zip(frame) {
            self.world.set_placement(handle, placement).expect("a live handle and a valid placement");
        }
        self.world.step();
        for event in self.world.events() {
            match event.kind {
                EventKind::ContactBegan => self.touching += 1,
                EventKind::ContactEnded => self.touching -= 1,
                _ => {}
            }
        }
        self.touching
    }

    /// The touching pairs, as scene indices `(smaller, larger)`.
    fn pairs(&self) -> HashSet<(u32, u32)> {
        let index = |h| self.world.collider(h).expect("a live handle").user_data() as u32;
        self.world
            .touching_pairs()
            .map(|(a, b)| {
                let (a, b) = (index(a), index(b));
                (a.min(b), a.max(b))
            })
            .collect()
    }
}

/// Collects rapier's collision events, as a user's handler would.
#[derive(Default)]
struct Collector {
    events: Mutex<Vec<rp::CollisionEvent>>,
}

impl rp::EventHandler for Collector {
    fn handle_collision_event(
        &self,
        _bodies: &rp::RigidBodySet,
        _colliders: &rp::ColliderSet,
        event: rp::CollisionEvent,
        _contact_pair: Option<&rp::ContactPair>,
    ) {
        self.events.lock().expect("not poisoned").push(event);
    }

    fn handle_contact_force_event(
        &self,
        _dt: f32,
        _bodies: &rp::RigidBodySet,
        _colliders: &rp::ColliderSet,
        _contact_pair: &rp::ContactPair,
        _total_force_magnitude: f32,
    ) {
    }

    fn handle_soft_body_tear_event(&self, _soft_bodies: &rp::SoftBodySet, _event: &rp::SoftBodyTearEvent) {}
}

/// rapier's side of a scene: a collision pipeline over colliders without bodies.
struct RapierSide {
    pipeline: rp::CollisionPipeline,
    islands: rp::IslandManager,
    broad_phase: rp::BroadPhaseBvh,
    narrow_phase: rp::NarrowPhase,
    bodies: rp::RigidBodySet,
    colliders: rp::ColliderSet,
    collector: Collector,
    handles: Vec<rp::ColliderHandle>,
    mode: Mode,
    /// `frames[k][i]`: body `i`'s pose in frame `k`.
    frames: Vec<Vec<Pose>>,
    replay: Replay,
    /// Touching pairs, kept up to date from the events.
    touching: usize,
    /// Bytes of the colliders' shapes (parry's `total_memory_size` of each mesh copy).
    shape_bytes: usize,
}

impl RapierSide {
    /// Inserts the scene at frame 0 and steps once (every pair begins there).
    fn new(scene: &Scene, mode: Mode) -> Self {
        let frames: Vec<Vec<Pose>> =
            scene.frames.iter().map(|frame| frame.iter().map(Rigid::pose).collect()).collect();
        let mut colliders = rp::ColliderSet::new();
        let mut shape_bytes = 0;
        let handles = scene
            .bodies
            .iter()
            .zip(&frames[0])
            .enumerate()
            .map(|(i, (body, &pose))| {
                let shape = rapier_shape(body, &scene.meshes);
                if let Some(mesh) = shape.as_trimesh() {
                    shape_bytes += mesh.total_memory_size();
                }
                colliders.insert(
                    rp::ColliderBuilder::new(shape)
                        .position(pose)
                        .sensor(mode == Mode::EventsOnly)
                        .active_collision_types(rp::ActiveCollisionTypes::all())
                        .active_events(rp::ActiveEvents::COLLISION_EVENTS)
                        .user_data(i as u128),
                )
            })
            .collect();
        let mut side = Self {
            pipeline: rp::CollisionPipeline::new(),
            islands: rp::IslandManager::new(),
            broad_phase: rp::BroadPhaseBvh::new(),
            narrow_phase: rp::NarrowPhase::new(),
            bodies: rp::RigidBodySet::new(),
            colliders,
            collector: Collector::default(),
            handles,
            mode,
            frames,
            replay: Replay::default(),
            touching: 0,
            shape_bytes,
        };
        side.update();
        side.touching = side.pairs().len();
        side.collector.events.lock().expect("not poisoned").clear();
        side
    }

    fn update(&mut self) {
        self.pipeline.step(
            0.0,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &(),
            &self.collector,
        );
    }

    /// One timed step: the next frame's poses, the update, the events.
    fn step(&mut self) -> usize {
        let frame = &self.frames[self.replay.next()];
        for (&handle, &pose) in self.handles.iter().zip(frame) {
            self.colliders[handle].set_position(pose);
        }
        self.update();
        let mut events = self.collector.events.lock().expect("not poisoned");
        for event in events.drain(..) {
            match event {
                rp::CollisionEvent::Started(..) => self.touching += 1,
                rp::CollisionEvent::Stopped(..) => self.touching -= 1,
            }
        }
        drop(events);
        self.touching
    }

    /// The touching pairs (at least one active contact; for sensors, intersecting), as scene
    /// indices `(smaller, larger)`.
    fn pairs(&self) -> HashSet<(u32, u32)> {
        let index = |a: rp::ColliderHandle, b: rp::ColliderHandle| {
            let (a, b) = (self.colliders[a].user_data as u32, self.colliders[b].user_data as u32);
            (a.min(b), a.max(b))
        };
        match self.mode {
            Mode::Contacts => self
                .narrow_phase
                .contact_pairs()
                .filter(|p| p.has_any_active_contact())
                .map(|p| index(p.collider1, p.collider2))
                .collect(),
            Mode::EventsOnly => self
                .narrow_phase
                .intersection_pairs()
                .filter(|&(_, _, intersecting)| intersecting)
                .map(|(a, b, _)| index(a, b))
                .collect(),
        }
    }
}

/// The ping-pong cursor over [`FRAMES`] frames: `1, 2, ..., FRAMES - 1, FRAMES - 2, ..., 0, 1,
/// ...` (frame 0 is where the scene was inserted).
#[derive(Default)]
pub(super) struct Replay {
    steps: usize,
}

impl Replay {
    /// Advances by one step; returns the frame to show.
    pub(super) fn next(&mut self) -> usize {
        self.steps += 1;
        frame_of(self.steps)
    }
}

// ---------------------------------------------------------------------------------------------
// Step rows.
// ---------------------------------------------------------------------------------------------

/// A step row: both worlds, stepped `items` times per pass.
struct Steps {
    kollide: RefCell<KollideSide>,
    rapier: RefCell<RapierSide>,
    items: usize,
    /// Whether the scene's closed meshes may contain one another (see the module doc).
    solids: bool,
    /// The memory figure (mesh scenes) and the agreement details, for the row's note.
    note: RefCell<String>,
}

impl Steps {
    fn new(scene: &Scene, items: usize, mode: Mode) -> Self {
        let kollide = KollideSide::new(scene, mode);
        let rapier = RapierSide::new(scene, mode);
        let solids = !scene.meshes.is_empty();
        let mut note = String::new();
        if !scene.meshes.is_empty() {
            let meshes: usize = kollide.meshes.iter().map(|m| m.memory().total()).sum();
            let world = kollide.world.memory_bytes();
            let _ = write!(
                note,
                "memory: kollide {:.1} MB ({} meshes {:.1} MB + world {:.1} MB: colliders, pairs, \
                 manifolds, without the broad phase), rapier {:.0} MB ({} TriMesh copies: vertices, \
                 indices, BVH; without its colliders and phases)",
                (meshes + world) as f64 / 1e6,
                kollide.meshes.len(),
                meshes as f64 / 1e6,
                world as f64 / 1e6,
                rapier.shape_bytes as f64 / 1e6,
                rapier.handles.len(),
            );
        }
        Self {
            kollide: RefCell::new(kollide),
            rapier: RefCell::new(rapier),
            items,
            solids,
            note: RefCell::new(note),
        }
    }

    /// kollide's touching pairs in which one closed mesh lies inside the other without the
    /// surfaces crossing (rapier, with surfaces only, does not count them).
    fn containments(&self, pairs: &HashSet<(u32, u32)>) -> HashSet<(u32, u32)> {
        if !self.solids {
            return HashSet::new();
        }
        let side = self.kollide.borrow();
        let frame = &side.frames[frame_of(side.replay.steps)];
        let instance = |i: u32| {
            let mesh = side.mesh_of[i as usize].expect("mesh scenes hold meshes only");
            MeshInstance::new(side.meshes[mesh].clone(), frame[i as usize]).expect("invertible")
        };
        pairs
            .iter()
            .copied()
            .filter(|&(a, b)| {
                matches!(
                    instance(a).mesh_overlap(&instance(b), None),
                    Some(MeshOverlap::AInsideB { .. } | MeshOverlap::BInsideA { .. })
                )
            })
            .collect()
    }
}

/// `passes` batches of `items` steps; the steps of the last batch that left touching pairs.
pub(super) fn replay(items: usize, passes: usize, mut step: impl FnMut() -> usize) -> usize {
    let mut hits = 0;
    for _ in 0..passes {
        hits = (0..items).filter(|_| black_box(step()) > 0).count();
    }
    hits
}

/// The frame the replay cursor shows after `steps` steps.
fn frame_of(steps: usize) -> usize {
    let period = 2 * (FRAMES - 1);
    let k = steps % period;
    if k < FRAMES { k } else { period - k }
}

/// Pairs that may differ between the two sides' sets in one step and still count as agreement:
/// 0.5% of the pairs, at least 2 (grazing contacts, where the two libraries' rounding and
/// tolerances decide differently).
pub(super) fn tolerated(pairs: usize) -> usize {
    (pairs / 200).max(2)
}

impl Prepared for Steps {
    fn items(&self) -> usize {
        self.items
    }

    fn run_kollide(&self, passes: usize) -> usize {
        let side = &mut *self.kollide.borrow_mut();
        replay(self.items, passes, || side.step())
    }

    fn run_peer(&self, passes: usize) -> usize {
        let side = &mut *self.rapier.borrow_mut();
        replay(self.items, passes, || side.step())
    }

    /// Steps both sides `items` times and compares their touching pairs step by step: the
    /// symmetric difference of the pair sets, kollide's containment pairs set apart (see the
    /// module doc), must be within [`tolerated`]. Each side's count kept from its events must also
    /// equal its own set of touching pairs.
    fn check(&self) -> Agreement {
        let mut agreement = Agreement {
            items: self.items,
            kollide_hits: 0,
            peer_hits: 0,
            mismatches: 0,
            first_mismatch: None,
        };
        let (mut kollide_total, mut rapier_total, mut contained, mut differ) = (0, 0, 0, 0);
        let mut event_counts_ok = true;
        for i in 0..self.items {
            let k = self.kollide.borrow_mut().step();
            let r = self.rapier.borrow_mut().step();
            agreement.kollide_hits += usize::from(k > 0);
            agreement.peer_hits += usize::from(r > 0);
            let ours = self.kollide.borrow().pairs();
            let theirs = self.rapier.borrow().pairs();
            event_counts_ok &= ours.len() == k && theirs.len() == r;
            let inside = self.containments(&ours.difference(&theirs).copied().collect());
            let diff = ours.symmetric_difference(&theirs).filter(|p| !inside.contains(p)).count();
            kollide_total += ours.len();
            rapier_total += theirs.len();
            contained += inside.len();
            differ += diff;
            if diff > tolerated(ours.len().max(theirs.len())) {
                agreement.mismatches += 1;
                agreement.first_mismatch.get_or_insert(i);
            }
        }
        let steps = self.items.max(1) as f64;
        let mut note = self.note.borrow_mut();
        if !note.is_empty() {
            note.push_str("; ");
        }
        let _ = write!(
            note,
            "touching pairs per step: kollide {:.0}, rapier {:.0}; differing {:.1} per step",
            kollide_total as f64 / steps,
            rapier_total as f64 / steps,
            differ as f64 / steps
        );
        if self.solids {
            let _ = write!(
                note,
                " besides {:.1} containments (kollide only, solid meshes)",
                contained as f64 / steps
            );
        }
        if !event_counts_ok {
            note.push_str("; **event counts differ from the touching sets**");
        }
        agreement
    }

    fn note(&self) -> Option<String> {
        Some(self.note.borrow().clone())
    }
}

// ---------------------------------------------------------------------------------------------
// Query rows.
// ---------------------------------------------------------------------------------------------

/// One frame of the `convex10k` scene for the query rows: both worlds stepped once at frame 0,
/// the objects' centres and the box around them grown by 2 units.
struct QueryScene {
    ours: KollideSide,
    theirs: RapierSide,
    centres: Vec<Vec3>,
    lo: Vec3,
    hi: Vec3,
}

impl QueryScene {
    fn new(seed: u64) -> Self {
        let scene = convex_scene(seed);
        let centres: Vec<Vec3> = scene.frames[0].iter().map(|p| p.translation).collect();
        let (lo, hi) =
            centres.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &c| (lo.min(c), hi.max(c)));
        let margin = Vec3::splat(2.0);
        Self {
            ours: KollideSide::new(&scene, Mode::Contacts),
            theirs: RapierSide::new(&scene, Mode::Contacts),
            centres,
            lo: lo - margin,
            hi: hi + margin,
        }
    }

    /// A point uniform in the box.
    fn origin(&self, rng: &mut TestRng) -> Vec3 {
        self.lo + Vec3::new(rng.random(), rng.random(), rng.random()) * (self.hi - self.lo)
    }

    /// A unit direction: for even `i` uniform, for odd `i` towards a random object's centre moved
    /// by up to 1 unit along each axis (a line of sight to something, which hits more often than
    /// a random direction through the sparse cloud).
    fn direction(&self, rng: &mut TestRng, i: usize, from: Vec3) -> Vec3 {
        if i.is_multiple_of(2) {
            return random::unit3(rng);
        }
        let target = self.centres[rng.random_range(0..self.centres.len())] + random::point3(rng, 1.0);
        (target - from).try_normalize().unwrap_or(Vec3::X)
    }

    /// rapier's query pipeline over its broad phase's tree (a few references, made per query).
    fn pipeline(&self) -> rp::QueryPipeline<'_> {
        let theirs = &self.theirs;
        theirs.broad_phase.as_query_pipeline(
            theirs.narrow_phase.query_dispatcher(),
            &theirs.bodies,
            &theirs.colliders,
            rp::QueryFilter::default(),
        )
    }
}

/// Reach of the rays and shape casts, in scene units (objects are about 1 across, the scene's
/// box about 64 × 64 × 44): about half the queries hit something within it.
const QUERY_REACH: f32 = 30.0;

/// Closest-hit rays from random points of the scene's box, half in random directions and half
/// towards random objects (see [`QueryScene::direction`]), reaching [`QUERY_REACH`]; the answer
/// is the hit's `t` (unit directions, so a distance).
///
/// The agreement check has found one kind of difference: a ray that grazes a hull's vertex (the
/// ray passes 2e-6 from the hull, by brute force), which parry counts as a hit and kollide not.
fn query_ray(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let scene = Arc::new(QueryScene::new(seed));
    let mut rng = random::rng(seed ^ 0x7261_7973);
    let rays: Vec<Ray3> = (0..n)
        .map(|i| {
            let origin = scene.origin(&mut rng);
            Ray3::new(origin, scene.direction(&mut rng, i, origin))
        })
        .collect();
    let peer_rays: Vec<rp::Ray> = rays.iter().map(|r| rp::Ray::new(r.origin, r.dir)).collect();
    let (ours, theirs) = (scene.clone(), scene);
    let filter = QueryFilter::new();
    Some(Box::new(Batch::new(
        rays,
        peer_rays,
        move |ray: &Ray3| {
            ours.ours.world.cast_ray(ray, QUERY_REACH, &filter).ok().flatten().map(|(_, hit)| hit.t)
        },
        move |ray: &rp::Ray| theirs.pipeline().cast_ray(ray, QUERY_REACH, true).map(|(_, t)| t),
    )))
}

/// A shape-cast time of impact (over `t` in `[0, 1]`, the velocity being the whole motion),
/// compared by the distance between the two stopping points: within 0.01 units (objects are about
/// 1 across). parry's casts of rounded shapes stop up to about 6e-3 units past the contact: a
/// ball against a capsule at its `t`, where kollide's stops at a separation of 2e-7, overlaps
/// (parry's own distance there is 0).
#[derive(Clone, Copy, Debug)]
struct Toi(Option<f32>);

impl Answer for Toi {
    fn is_hit(self) -> bool {
        self.0.is_some()
    }

    fn bits(self) -> u64 {
        self.0.map_or(0, |t| u64::from(t.to_bits()))
    }

    fn agrees(self, other: Self) -> bool {
        match (self.0, other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => (a - b).abs() * QUERY_REACH <= 1e-2,
            _ => false,
        }
    }
}

/// One linear shape cast: the shape, its start placement, its velocity.
type Cast<S, P> = (S, P, Vec3);

/// Closest-hit linear casts of small shapes (balls, boxes, capsules, 0.05 to 0.3 across their
/// half extents) from random rigid poses in the scene's box, along directions drawn as the rays'
/// are, over [`QUERY_REACH`] (velocity = direction × reach, `max_t` = 1). rapier stops at
/// penetration: a shape that starts inside a collider hits it at `t = 0`, as in kollide.
///
/// The agreement check has found two kinds of difference, about one in 2,000 casts each: a
/// grazing cast, where kollide stops at a separation of 1e-4 to 3e-4 (within its cast tolerance,
/// `1e-5 · (1 + |translation|)`, 3e-4 here; parry's distance there agrees) and parry finds no hit
/// (a ball along a box, a ball along a hull); and a ball starting 5e-3 deep in a capsule, for which
/// parry's `cast_shapes` (with `stop_at_penetration`) finds no hit although its own `distance` of
/// the two is 0.
fn query_shape(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let scene = Arc::new(QueryScene::new(seed));
    let mut rng = random::rng(seed ^ 0x6361_7374);
    let casts: Vec<Cast<Body, Rigid>> = (0..n)
        .map(|i| {
            let body = match i % 3 {
                0 => Body::Ball { radius: rng.random_range(0.1..0.3) },
                1 => Body::Cuboid {
                    half_extents: Vec3::new(
                        rng.random_range(0.05..0.3),
                        rng.random_range(0.05..0.3),
                        rng.random_range(0.05..0.3),
                    ),
                },
                _ => Body::Capsule {
                    half_height: rng.random_range(0.1..0.3),
                    radius: rng.random_range(0.05..0.2),
                },
            };
            let pose = Rigid { rotation: random::rotation3(&mut rng), translation: scene.origin(&mut rng) };
            let direction = scene.direction(&mut rng, i / 3, pose.translation);
            (body, pose, direction * QUERY_REACH)
        })
        .collect();
    let ours_in: Vec<Cast<Shape, Affine3A>> =
        casts.iter().map(|(b, p, v)| (Shape::Convex(kollide_convex(b)), p.affine(), *v)).collect();
    let theirs_in: Vec<Cast<rp::SharedShape, Pose>> =
        casts.iter().map(|(b, p, v)| (rapier_shape(b, &[]), p.pose(), *v)).collect();
    let options = parry3d::query::ShapeCastOptions::with_max_time_of_impact(1.0);
    let (ours, theirs) = (scene.clone(), scene);
    let filter = QueryFilter::new();
    Some(Box::new(Batch::new(
        ours_in,
        theirs_in,
        move |(shape, placement, velocity): &Cast<Shape, Affine3A>| {
            let hit = ours.ours.world.cast_shape(shape, placement, *velocity, 1.0, &filter);
            Toi(hit.ok().flatten().map(|(_, hit)| hit.t))
        },
        move |(shape, pose, velocity): &Cast<rp::SharedShape, Pose>| {
            Toi(theirs
                .pipeline()
                .cast_shape(pose, *velocity, &**shape, options)
                .map(|(_, hit)| hit.time_of_impact))
        },
    )))
}
