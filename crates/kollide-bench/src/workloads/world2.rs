//! `world2/*`: kollide's 2D collision world ([`World2`]) against rapier2d 0.36's collision
//! pipeline, with the method of [`super::world`]'s step rows: the same scene on both sides
//! (shapes from the same parameters and points, at the same poses, converted to each library's
//! types before any timing), single-threaded on both sides (rapier2d with its default features).
//!
//! # `world2/crowd10k/step` (ms/step)
//!
//! [`crowd_scene`]: 10,000 moving balls, boxes, capsules and hexagons and a few hundred fixed
//! level polygons. Each moving object's poses over [`FRAMES`] frames (60 per second) are computed
//! once; each side replays them forward, backward, forward (a ping-pong, so nothing teleports),
//! with its own cursor carried over between batches. One timed step, on either side: set the
//! placement of every moving collider to the next frame, update (broad phase, filters, narrow
//! phase with contact manifolds, events), read the step's collision events and keep a running
//! count of touching pairs from them. The scene is inserted and stepped once while preparing, so
//! the first step, in which every pair begins, is not timed.
//!
//! - kollide: [`World2::set_placement`], [`World2::step`], [`World2::events`] (`ContactBegan`,
//!   `ContactEnded`); default colliders (manifolds for touching pairs), the level polygons
//!   `fixed` (no fixed–fixed pairs).
//! - rapier2d: colliders without rigid bodies in a `CollisionPipeline` (prediction distance 0),
//!   moved by `Collider::set_position`, events collected by an `EventHandler` into a vector; solid
//!   (non-sensor) colliders, whose contact pairs always compute manifolds. A collider without a
//!   body counts as fixed: the moving ones enable `ActiveCollisionTypes::all()` (so their pairs
//!   with each other and with the level are computed), the level polygons keep the default types
//!   (no fixed–fixed pairs, as in kollide); all enable `ActiveEvents::COLLISION_EVENTS`.
//!
//! Touching: for kollide the pairs whose shapes intersect, for rapier the contact pairs with an
//! active contact (a contact point at a distance below 0); for convex shapes both are "the solids
//! overlap", up to grazing contacts at rounding level. The agreement check (untimed) steps both
//! sides and compares the touching pair sets step by step, within [`tolerated`] pairs.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Mutex;

use glam::{Affine2, Vec2};
use kollide::query::Shape2;
use kollide::shape::{Ball2, Capsule2, ConvexPolygon2, ConvexShape2, Cuboid2};
use kollide::world::{ColliderDesc2, ColliderHandle, EventKind, World2};
use kollide_testkit::random::{self, TestRng};
use parry2d::math::Pose;
use rand::Rng;
use rapier2d::prelude as rp;

use super::Workload;
use super::world::{DT, FRAMES, Replay, replay, tolerated};
use crate::harness::{Agreement, Prepared};

/// The peer of every row here.
pub const RAPIER2D: &str = "rapier2d 0.36";

/// Moving objects of the scene (10,000; a tenth of that in the unit tests, at the same density).
const OBJECTS: usize = if cfg!(test) { 1_000 } else { 10_000 };

pub fn workloads() -> Vec<Workload> {
    vec![Workload {
        name: "world2/crowd10k/step",
        metric: "ms/step",
        ns_per_unit: 1e6,
        peer: RAPIER2D,
        items: 32,
        check_items: 6,
        balanced: false,
        prepare: |n, seed| Some(Box::new(Steps::new(&crowd_scene(seed), n))),
    }]
}

// ---------------------------------------------------------------------------------------------
// The scene: plain data that both sides are built from.
// ---------------------------------------------------------------------------------------------

/// The shape of one object.
#[derive(Clone, Debug)]
enum Body {
    Ball {
        radius: f32,
    },
    Cuboid {
        half_extents: Vec2,
    },
    /// Along the y axis, as both libraries define it.
    Capsule {
        half_height: f32,
        radius: f32,
    },
    /// A convex polygon through these points, counter-clockwise (strictly convex, so both
    /// libraries keep every point).
    Polygon {
        points: Vec<Vec2>,
    },
}

/// A rigid 2D pose: a rotation by `angle`, then a translation.
#[derive(Clone, Copy, Debug)]
struct Pose2 {
    angle: f32,
    translation: Vec2,
}

impl Pose2 {
    fn affine(&self) -> Affine2 {
        Affine2::from_angle_translation(self.angle, self.translation)
    }

    fn pose(&self) -> Pose {
        Pose::new(self.translation, self.angle)
    }
}

/// The scene: moving bodies with their poses over [`FRAMES`] frames, and fixed level polygons.
struct Scene {
    bodies: Vec<Body>,
    /// `frames[k][i]`: the pose of moving body `i` in frame `k`.
    frames: Vec<Vec<Pose2>>,
    /// The level's polygons, fixed at their poses.
    level: Vec<(Body, Pose2)>,
}

/// `n` points at increasing angles on a circle of `radius`, each angle moved by up to a fifth of
/// the spacing (strictly convex, counter-clockwise).
fn round_polygon(rng: &mut TestRng, n: usize, radius: f32) -> Body {
    let start = rng.random_range(0.0..std::f32::consts::TAU);
    let points = (0..n)
        .map(|i| {
            let angle = start + (i as f32 + rng.random_range(-0.2..0.2)) * std::f32::consts::TAU / n as f32;
            Vec2::from_angle(angle) * radius
        })
        .collect();
    Body::Polygon { points }
}

/// A moving body, cycled by `i`: a box, a ball, a capsule or a hexagon, 0.3 to 0.6 in bounding
/// radius.
fn crowd_body(rng: &mut TestRng, i: usize) -> Body {
    match i % 4 {
        0 => Body::Cuboid { half_extents: Vec2::new(rng.random_range(0.2..0.4), rng.random_range(0.2..0.4)) },
        1 => Body::Ball { radius: rng.random_range(0.3..0.5) },
        2 => Body::Capsule { half_height: rng.random_range(0.1..0.25), radius: rng.random_range(0.2..0.3) },
        _ => {
            let radius = rng.random_range(0.35..0.55);
            round_polygon(rng, 6, radius)
        }
    }
}

/// Spacing of the standing crowd's lattice.
const CROWD_SPACING: f32 = 0.8;

/// `world2/crowd10k/step`: [`OBJECTS`] moving bodies and fixed level polygons.
///
/// - The standing crowd: half of the bodies on a lattice of spacing 0.8, 100 wide (for 10,000
///   objects), each jittered by up to 0.1 and randomly turned, so that each touches a few
///   neighbours (most of the scene's touching pairs); each sways in place (up to 0.03 units and
///   0.05 radians, periods of 0.3 to 1 second). A row of fixed boxes, the floor, lies under it,
///   touching its lowest row.
/// - The walkers: the other half spread uniformly over an area of 100 × 60 above the crowd
///   (scaled with the count), walking at 1 to 5 units per second in random directions and
///   turning at 0.5 to 3 radians per second, among 150 fixed level polygons (4 to 6 vertices,
///   1 to 2.5 across, one in each cell of a coarse grid, so they never touch each other).
fn crowd_scene(seed: u64) -> Scene {
    let mut rng = random::rng(seed ^ 0x6372_6f77);
    let scale = (OBJECTS as f32 / 10_000.0).sqrt();
    let standing = OBJECTS / 2;
    let width = (100.0 * scale).round() as usize;
    let mut bodies = Vec::with_capacity(OBJECTS);
    let mut motions: Vec<Box<dyn Fn(usize) -> Pose2>> = Vec::with_capacity(OBJECTS);
    for i in 0..standing {
        bodies.push(crowd_body(&mut rng, i));
        let cell = Vec2::new((i % width) as f32, (i / width) as f32);
        let base = Pose2 {
            angle: rng.random_range(0.0..std::f32::consts::TAU),
            translation: (cell - Vec2::new(0.5 * width as f32, 0.0)) * CROWD_SPACING
                + random::point2(&mut rng, 0.1),
        };
        let (shift, turn) = (random::point2(&mut rng, 0.03), rng.random_range(-0.05..0.05));
        let omega = std::f32::consts::TAU / rng.random_range(0.3..1.0);
        let phase = rng.random_range(0.0..std::f32::consts::TAU);
        motions.push(Box::new(move |k| {
            let wave = (omega * k as f32 * DT + phase).sin();
            Pose2 { angle: base.angle + turn * wave, translation: base.translation + shift * wave }
        }));
    }
    let crowd_top = (standing / width) as f32 * CROWD_SPACING;
    let (walk_half, walk_center) =
        (Vec2::new(50.0, 30.0) * scale, Vec2::new(0.0, crowd_top + 5.0 + 30.0 * scale));
    for i in standing..OBJECTS {
        bodies.push(crowd_body(&mut rng, i));
        let start = Pose2 {
            angle: rng.random_range(0.0..std::f32::consts::TAU),
            translation: walk_center
                + walk_half * Vec2::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)),
        };
        let velocity =
            Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU)) * rng.random_range(1.0..5.0);
        let spin = rng.random_range(0.5..3.0) * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        motions.push(Box::new(move |k| {
            let time = k as f32 * DT;
            Pose2 { angle: start.angle + spin * time, translation: start.translation + velocity * time }
        }));
    }
    let frames = (0..FRAMES).map(|k| motions.iter().map(|m| m(k)).collect()).collect();
    // The floor: boxes 2 wide just under the lowest row (whose bodies reach down to about -0.6).
    let mut level = Vec::new();
    let floor_width = width as f32 * CROWD_SPACING;
    for j in 0..(floor_width / 2.0).ceil() as usize {
        let x = -0.5 * floor_width + 2.0 * j as f32;
        level.push((
            Body::Cuboid { half_extents: Vec2::new(0.99, 0.5) },
            Pose2 { angle: 0.0, translation: Vec2::new(x, -0.8) },
        ));
    }
    // Level polygons among the walkers: one per cell of a 15 × 10 grid.
    let (columns, rows) = (15, 10);
    let cell = 2.0 * walk_half / Vec2::new(columns as f32, rows as f32);
    for c in 0..columns {
        for r in 0..rows {
            let corner = walk_center - walk_half + cell * Vec2::new(c as f32, r as f32);
            let radius = rng.random_range(0.5f32..1.25).min(0.45 * cell.min_element());
            let center = corner + 0.5 * cell + random::point2(&mut rng, 0.5 * cell.min_element() - radius);
            let n = rng.random_range(4..=6);
            let body = round_polygon(&mut rng, n, radius);
            level.push((body, Pose2 { angle: 0.0, translation: center }));
        }
    }
    Scene { bodies, frames, level }
}

fn kollide_shape(body: &Body) -> Shape2 {
    Shape2::Convex(match body {
        Body::Ball { radius } => ConvexShape2::Ball(Ball2::new(*radius)),
        Body::Cuboid { half_extents } => ConvexShape2::Cuboid(Cuboid2::new(*half_extents)),
        Body::Capsule { half_height, radius } => ConvexShape2::Capsule(Capsule2::new(*half_height, *radius)),
        Body::Polygon { points } => {
            ConvexShape2::Polygon(ConvexPolygon2::new(points).expect("a strictly convex polygon"))
        }
    })
}

fn rapier_shape(body: &Body) -> rp::SharedShape {
    match body {
        Body::Ball { radius } => rp::SharedShape::ball(*radius),
        Body::Cuboid { half_extents: h } => rp::SharedShape::cuboid(h.x, h.y),
        Body::Capsule { half_height, radius } => rp::SharedShape::capsule_y(*half_height, *radius),
        Body::Polygon { points } => {
            rp::SharedShape::convex_polyline(points.clone()).expect("a strictly convex polygon")
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The two sides.
// ---------------------------------------------------------------------------------------------

/// kollide's side: the world, the moving colliders' handles in scene order, their placements in
/// every frame.
struct KollideSide {
    world: World2,
    handles: Vec<ColliderHandle>,
    frames: Vec<Vec<Affine2>>,
    replay: Replay,
    /// Touching pairs, kept up to date from the events.
    touching: usize,
}

impl KollideSide {
    /// Inserts the scene at frame 0 and steps once. User data: the moving bodies' indices, then
    /// the level's after them.
    fn new(scene: &Scene) -> Self {
        let frames: Vec<Vec<Affine2>> =
            scene.frames.iter().map(|frame| frame.iter().map(Pose2::affine).collect()).collect();
        let mut world = World2::new();
        let handles = scene
            .bodies
            .iter()
            .zip(&frames[0])
            .enumerate()
            .map(|(i, (body, &placement))| {
                let desc = ColliderDesc2::new(kollide_shape(body), placement).with_user_data(i as u64);
                world.insert(desc).expect("a valid collider")
            })
            .collect();
        for (j, (body, pose)) in scene.level.iter().enumerate() {
            let desc = ColliderDesc2::new(kollide_shape(body), pose.affine())
                .fixed(true)
                .with_user_data((scene.bodies.len() + j) as u64);
            world.insert(desc).expect("a valid collider");
        }
        let mut side = Self { world, handles, frames, replay: Replay::default(), touching: 0 };
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

/// rapier's side: a collision pipeline over colliders without bodies.
struct RapierSide {
    pipeline: rp::CollisionPipeline,
    islands: rp::IslandManager,
    broad_phase: rp::BroadPhaseBvh,
    narrow_phase: rp::NarrowPhase,
    bodies: rp::RigidBodySet,
    colliders: rp::ColliderSet,
    collector: Collector,
    handles: Vec<rp::ColliderHandle>,
    frames: Vec<Vec<Pose>>,
    replay: Replay,
    touching: usize,
}

impl RapierSide {
    /// Inserts the scene at frame 0 and steps once; user data as on kollide's side.
    fn new(scene: &Scene) -> Self {
        let frames: Vec<Vec<Pose>> =
            scene.frames.iter().map(|frame| frame.iter().map(Pose2::pose).collect()).collect();
        let mut colliders = rp::ColliderSet::new();
        let handles = scene
            .bodies
            .iter()
            .zip(&frames[0])
            .enumerate()
            .map(|(i, (body, &pose))| {
                colliders.insert(
                    rp::ColliderBuilder::new(rapier_shape(body))
                        .position(pose)
                        .active_collision_types(rp::ActiveCollisionTypes::all())
                        .active_events(rp::ActiveEvents::COLLISION_EVENTS)
                        .user_data(i as u128),
                )
            })
            .collect();
        for (j, (body, pose)) in scene.level.iter().enumerate() {
            colliders.insert(
                rp::ColliderBuilder::new(rapier_shape(body))
                    .position(pose.pose())
                    .active_events(rp::ActiveEvents::COLLISION_EVENTS)
                    .user_data((scene.bodies.len() + j) as u128),
            );
        }
        let mut side = Self {
            pipeline: rp::CollisionPipeline::new(),
            islands: rp::IslandManager::new(),
            broad_phase: rp::BroadPhaseBvh::new(),
            narrow_phase: rp::NarrowPhase::new(),
            bodies: rp::RigidBodySet::new(),
            colliders,
            collector: Collector::default(),
            handles,
            frames,
            replay: Replay::default(),
            touching: 0,
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

    /// The contact pairs with at least one active contact, as scene indices `(smaller, larger)`.
    fn pairs(&self) -> HashSet<(u32, u32)> {
        let index = |a: rp::ColliderHandle, b: rp::ColliderHandle| {
            let (a, b) = (self.colliders[a].user_data as u32, self.colliders[b].user_data as u32);
            (a.min(b), a.max(b))
        };
        self.narrow_phase
            .contact_pairs()
            .filter(|p| p.has_any_active_contact())
            .map(|p| index(p.collider1, p.collider2))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// The step row.
// ---------------------------------------------------------------------------------------------

/// Both worlds, stepped `items` times per pass.
struct Steps {
    kollide: RefCell<KollideSide>,
    rapier: RefCell<RapierSide>,
    items: usize,
    note: RefCell<String>,
}

impl Steps {
    fn new(scene: &Scene, items: usize) -> Self {
        Self {
            kollide: RefCell::new(KollideSide::new(scene)),
            rapier: RefCell::new(RapierSide::new(scene)),
            items,
            note: RefCell::new(String::new()),
        }
    }
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
    /// symmetric difference must be within [`tolerated`]. Each side's count kept from its events
    /// must equal its own set of touching pairs.
    fn check(&self) -> Agreement {
        let mut agreement = Agreement {
            items: self.items,
            kollide_hits: 0,
            peer_hits: 0,
            mismatches: 0,
            first_mismatch: None,
        };
        let (mut kollide_total, mut rapier_total, mut differ) = (0, 0, 0);
        let mut consistent = true;
        for i in 0..self.items {
            let k = self.kollide.borrow_mut().step();
            let r = self.rapier.borrow_mut().step();
            agreement.kollide_hits += usize::from(k > 0);
            agreement.peer_hits += usize::from(r > 0);
            let (ours, theirs) = (self.kollide.borrow().pairs(), self.rapier.borrow().pairs());
            consistent &= ours.len() == k && theirs.len() == r;
            let diff = ours.symmetric_difference(&theirs).count();
            kollide_total += ours.len();
            rapier_total += theirs.len();
            differ += diff;
            if diff > tolerated(ours.len().max(theirs.len())) {
                agreement.mismatches += 1;
                agreement.first_mismatch.get_or_insert(i);
            }
        }
        let steps = self.items.max(1) as f64;
        let mut note = self.note.borrow_mut();
        let _ = write!(
            note,
            "touching pairs per step: kollide {:.0}, rapier {:.0}; differing {:.1} per step",
            kollide_total as f64 / steps,
            rapier_total as f64 / steps,
            differ as f64 / steps
        );
        if !consistent {
            note.push_str("; **event counts differ from the touching sets**");
            agreement.mismatches = agreement.items;
        }
        agreement
    }

    fn note(&self) -> Option<String> {
        Some(self.note.borrow().clone())
    }
}
