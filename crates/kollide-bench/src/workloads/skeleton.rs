//! `skeleton/bullets600-vs-300x16` (ms/frame): 600 bullets against 300 animated 16-bone
//! skeletons in 2D, kollide's [`Skeleton2`] and [`SkeletonQuery2`] against parry2d 0.31 rebuilding
//! a [`Compound`] of balls per skeleton every frame.
//!
//! The scene is plain data both sides consume: every bone carries a ball; the skeletons walk
//! across a 240 × 120 field, their joint angles sines of time (amplitudes 0.2 to 0.8 radians,
//! 0.3 to 1 cycles per second, per skeleton and bone), their roots swaying; the bullets (radius
//! 0.1 to 0.25) fly straight at 15 to 40 units per second, wrapping around the field. Each
//! frame's bone placements (a turn and an offset, as glam's `Affine2` for kollide and as parry's
//! `Pose` for parry, both made from the same angle and offset), root placements and bullets
//! (centre, radius, displacement over the frame: the capsule it sweeps) are computed once, for
//! [`FRAMES`] frames at 60 per second: the replayed animation. A side replays them forward,
//! backward, forward (a ping-pong), each with its own cursor. About 90 bullet-bone pairs touch
//! per frame.
//!
//! One timed frame:
//!
//! - kollide: for each skeleton, the frame's local transforms copied into
//!   [`Skeleton2::locals_mut`] and [`Skeleton2::update`] with the root's placement (world
//!   transforms, world circles, bounds, into reused arrays); then one
//!   [`SkeletonQuery2::moving_balls`] of all bullets against all skeletons into a reused vector.
//! - parry: for each skeleton, the world pose of each bone composed root to leaf from the same
//!   angles and offsets (parry's `Pose` products), then a [`Compound`] of the skeleton's balls
//!   (one `SharedShape` per bone, built once and shared) at those positions, rebuilt (parry's
//!   compounds are immutable; its constructor builds the part BVH); a [`Bvh`] over the compounds'
//!   boxes, rebuilt (binned) every frame; then for each bullet its swept [`Capsule`] and its box,
//!   the compounds whose box it meets (`Bvh::intersect_aabb`), in each the parts whose box it
//!   meets (the compound's own BVH, the traversal parry's composite queries run), and for each
//!   part [`intersection_test`] of the capsule against the ball. Per-part tests, rather than
//!   one `intersection_test` against the whole compound, because a hit names its bone (parry's
//!   compound test stops at the first part). A plain loop over the 300 compound boxes per bullet
//!   instead of the BVH measured the same within noise (the compounds' rebuilds dominate the
//!   peer's frame); the BVH, parry's own structure for this, is kept.
//!
//! Both sides report the set of `(bullet, skeleton, bone)` pairs that touch; the agreement check
//! (untimed) compares the sets frame by frame.
//!
//! The variant `skeleton/bullets600-vs-300x16@per-node` (left out of `--quick` unless filtered
//! for) runs on kollide's side the straightforward version the design replaces (Scharf,
//! "Optimising animation based collision volumes"): the local transforms are copied in as above,
//! but no update runs; for each bullet, each skeleton and each bone, the bone's world transform is
//! recomputed by walking up to the root and a [`Circle`] made from it on the fly, then tested
//! with the same distance test, without bounds or a broad phase. The peer is the same.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::hint::black_box;

use glam::{Affine2, Vec2};
use kollide::bounds::Circle;
use kollide::primitive::closest_point_segment;
use kollide::skeleton::{MovingBall2, NodeVolume, Skeleton2, SkeletonHit, SkeletonNode2, SkeletonQuery2};
use kollide_testkit::random::{self, TestRng};
use parry2d::bounding_volume::Aabb;
use parry2d::math::Pose;
use parry2d::partitioning::{Bvh, BvhBuildStrategy};
use parry2d::query::intersection_test;
use parry2d::shape::{Capsule, Compound, SharedShape};
use rand::Rng;

use super::{PARRY2D, Workload};
use crate::harness::{Agreement, Prepared};

/// Frames of precomputed motion; the replay runs `0, 1, ..., FRAMES - 1, FRAMES - 2, ..., 0, 1, ...`.
const FRAMES: usize = 33;
/// Seconds per frame.
const DT: f32 = 1.0 / 60.0;
const SKELETONS: usize = 300;
const BULLETS: usize = 600;
/// Half the field's width and height.
const FIELD: Vec2 = Vec2::new(120.0, 60.0);

/// One bone of the template skeleton: parent, offset from the parent's origin, ball radius.
struct Bone {
    parent: Option<u32>,
    offset: Vec2,
    radius: f32,
}

/// A 16-bone figure, about 3.5 units tall: pelvis, spine, chest, head, two three-bone arms from
/// the chest and two three-bone legs from the pelvis.
const BONES: [Bone; 16] = {
    const fn bone(parent: Option<u32>, x: f32, y: f32, radius: f32) -> Bone {
        Bone { parent, offset: Vec2::new(x, y), radius }
    }
    [
        bone(None, 0.0, 0.0, 0.35),
        bone(Some(0), 0.0, 0.5, 0.3),
        bone(Some(1), 0.0, 0.5, 0.35),
        bone(Some(2), 0.0, 0.6, 0.3),
        bone(Some(2), -0.45, 0.1, 0.15),
        bone(Some(4), 0.0, -0.5, 0.12),
        bone(Some(5), 0.0, -0.45, 0.1),
        bone(Some(2), 0.45, 0.1, 0.15),
        bone(Some(7), 0.0, -0.5, 0.12),
        bone(Some(8), 0.0, -0.45, 0.1),
        bone(Some(0), -0.2, -0.2, 0.2),
        bone(Some(10), 0.0, -0.6, 0.17),
        bone(Some(11), 0.0, -0.55, 0.12),
        bone(Some(0), 0.2, -0.2, 0.2),
        bone(Some(13), 0.0, -0.6, 0.17),
        bone(Some(14), 0.0, -0.55, 0.12),
    ]
};

/// A bone's local placement: a turn by `angle` about its origin, which sits at its offset in the
/// parent's frame.
#[derive(Clone, Copy, Debug)]
struct Joint {
    angle: f32,
    offset: Vec2,
}

impl Joint {
    fn affine(&self) -> Affine2 {
        Affine2::from_angle_translation(self.angle, self.offset)
    }

    fn pose(&self) -> Pose {
        Pose::new(self.offset, self.angle)
    }
}

/// One frame of the scene, in each side's types: `affines[s * 16 + b]` and `poses[s * 16 + b]`
/// place bone `b` of skeleton `s` (the root's is its world placement), from the same [`Joint`];
/// and the bullets.
struct Frame {
    affines: Vec<Affine2>,
    poses: Vec<Pose>,
    bullets: Vec<MovingBall2>,
}

/// `(x, y)` wrapped into the field.
fn wrap(p: Vec2) -> Vec2 {
    (p + FIELD).rem_euclid(2.0 * FIELD) - FIELD
}

/// The scene's frames (see the module).
fn scene(seed: u64) -> Vec<Frame> {
    let mut rng: TestRng = random::rng(seed ^ 0x736b_656c);
    struct Walker {
        start: Vec2,
        velocity: Vec2,
        omega: f32,
        amplitude: [f32; 16],
        phase: [f32; 16],
    }
    let walkers: Vec<Walker> = (0..SKELETONS)
        .map(|_| Walker {
            start: random::point2(&mut rng, 1.0) * FIELD,
            velocity: Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
                * rng.random_range(1.0..3.0),
            omega: std::f32::consts::TAU * rng.random_range(0.3..1.0),
            amplitude: std::array::from_fn(|_| rng.random_range(0.2..0.8)),
            phase: std::array::from_fn(|_| rng.random_range(0.0..std::f32::consts::TAU)),
        })
        .collect();
    let bullets: Vec<(Vec2, Vec2, f32)> = (0..BULLETS)
        .map(|_| {
            let velocity =
                Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU)) * rng.random_range(15.0..40.0);
            (random::point2(&mut rng, 1.0) * FIELD, velocity, rng.random_range(0.1..0.25))
        })
        .collect();
    (0..FRAMES)
        .map(|k| {
            let time = k as f32 * DT;
            let mut joints = Vec::with_capacity(SKELETONS * BONES.len());
            for w in &walkers {
                for (b, bone) in BONES.iter().enumerate() {
                    let wave = (w.omega * time + w.phase[b]).sin();
                    joints.push(match bone.parent {
                        None => Joint { angle: 0.1 * wave, offset: w.start + w.velocity * time },
                        Some(_) => Joint { angle: w.amplitude[b] * wave, offset: bone.offset },
                    });
                }
            }
            let bullets = bullets
                .iter()
                .map(|&(start, velocity, radius)| MovingBall2 {
                    center: wrap(start + velocity * time),
                    radius,
                    displacement: velocity * DT,
                })
                .collect();
            Frame {
                affines: joints.iter().map(Joint::affine).collect(),
                poses: joints.iter().map(Joint::pose).collect(),
                bullets,
            }
        })
        .collect()
}

/// The frame the replay shows after `steps` steps.
fn frame_of(steps: usize) -> usize {
    let period = 2 * (FRAMES - 1);
    let k = steps % period;
    if k < FRAMES { k } else { period - k }
}

/// What kollide's side runs per frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `Skeleton2::update`, then `SkeletonQuery2::moving_balls`.
    Update,
    /// Every bone's world transform walked to the root for every bullet, circles on the fly.
    PerNode,
}

/// A hit, as both sides report it: `(bullet, skeleton, bone)`.
type Triple = (u32, u32, u32);

struct KollideSide {
    skeletons: Vec<Skeleton2>,
    query: SkeletonQuery2,
    hits: Vec<SkeletonHit>,
    mode: Mode,
    steps: usize,
}

impl KollideSide {
    fn new(mode: Mode) -> Self {
        let nodes: Vec<SkeletonNode2> = BONES
            .iter()
            .map(|b| SkeletonNode2 {
                parent: b.parent,
                local: Affine2::from_translation(b.offset),
                volume: NodeVolume::Ball { radius: b.radius },
            })
            .collect();
        let skeletons = (0..SKELETONS).map(|_| Skeleton2::new(&nodes).expect("a valid skeleton")).collect();
        Self { skeletons, query: SkeletonQuery2::new(), hits: Vec::new(), mode, steps: 0 }
    }

    /// One timed frame; returns the number of hits.
    fn step(&mut self, frames: &[Frame]) -> usize {
        self.steps += 1;
        let frame = &frames[frame_of(self.steps)];
        for (skeleton, affines) in self.skeletons.iter_mut().zip(frame.affines.chunks_exact(BONES.len())) {
            // The root's placement is its world placement; its local map stays the identity.
            skeleton.locals_mut()[1..].copy_from_slice(&affines[1..]);
            if self.mode == Mode::Update {
                skeleton.update(&affines[0]);
            }
        }
        match self.mode {
            Mode::Update => self.query.moving_balls(&self.skeletons, &frame.bullets, &mut self.hits),
            Mode::PerNode => per_node(&self.skeletons, frame, &mut self.hits),
        }
        self.hits.len()
    }

    fn hit_set(&self) -> BTreeSet<Triple> {
        self.hits.iter().map(|h| (h.projectile, h.skeleton, h.node)).collect()
    }
}

/// The straightforward version: every bullet against every bone of every skeleton, the bone's
/// world transform walked up to the root each time and its circle made on the fly.
fn per_node(skeletons: &[Skeleton2], frame: &Frame, hits: &mut Vec<SkeletonHit>) {
    hits.clear();
    for (bullet, b) in frame.bullets.iter().zip(0u32..) {
        let (p0, p1) = (bullet.center.extend(0.0), (bullet.center + bullet.displacement).extend(0.0));
        for ((skeleton, affines), s) in
            skeletons.iter().zip(frame.affines.chunks_exact(BONES.len())).zip(0u32..)
        {
            let root = affines[0];
            for node in 0..skeleton.len() as u32 {
                let Some(NodeVolume::Ball { radius }) = skeleton.volume(node) else { continue };
                let mut world = skeleton.locals()[node as usize];
                let mut parent = skeleton.parent(node);
                while let Some(p) = parent {
                    world = skeleton.locals()[p as usize] * world;
                    parent = skeleton.parent(p);
                }
                let circle = Circle::new((root * world).translation, radius);
                let center = circle.center.extend(0.0);
                let reach = circle.radius + bullet.radius;
                if closest_point_segment(center, p0, p1).point.distance_squared(center) <= reach * reach {
                    hits.push(SkeletonHit { projectile: b, skeleton: s, node });
                }
            }
        }
    }
}

struct ParrySide {
    /// One ball per bone, shared by every compound.
    balls: Vec<SharedShape>,
    /// World pose of every bone of every skeleton (scratch).
    world: Vec<Pose>,
    compounds: Vec<Compound>,
    hits: Vec<Triple>,
    steps: usize,
}

impl ParrySide {
    fn new() -> Self {
        Self {
            balls: BONES.iter().map(|b| SharedShape::ball(b.radius)).collect(),
            world: vec![Pose::IDENTITY; SKELETONS * BONES.len()],
            compounds: Vec::with_capacity(SKELETONS),
            hits: Vec::new(),
            steps: 0,
        }
    }

    /// One timed frame; returns the number of hits.
    fn step(&mut self, frames: &[Frame]) -> usize {
        self.steps += 1;
        let frame = &frames[frame_of(self.steps)];
        let n = BONES.len();
        for (world, poses) in self.world.chunks_exact_mut(n).zip(frame.poses.chunks_exact(n)) {
            for (b, bone) in BONES.iter().enumerate() {
                let local = poses[b];
                world[b] = match bone.parent {
                    None => local,
                    Some(p) => world[p as usize] * local,
                };
            }
        }
        self.compounds.clear();
        for world in self.world.chunks_exact(n) {
            let parts = world
                .iter()
                .zip(&self.balls)
                .map(|(pose, ball)| (Pose::from_translation(pose.translation), ball.clone()));
            self.compounds.push(Compound::new(parts.collect()));
        }
        let bvh = Bvh::from_iter(
            BvhBuildStrategy::Binned,
            self.compounds.iter().enumerate().map(|(s, c)| (s, *c.local_aabb())),
        );
        self.hits.clear();
        for (bullet, b) in frame.bullets.iter().zip(0u32..) {
            let capsule = Capsule::new(bullet.center, bullet.center + bullet.displacement, bullet.radius);
            let aabb: Aabb = capsule.local_aabb();
            for s in bvh.intersect_aabb(&aabb) {
                let compound = &self.compounds[s as usize];
                for part in compound.bvh().intersect_aabb(&aabb) {
                    let (pose, ball) = &compound.shapes()[part as usize];
                    let touching = intersection_test(&Pose::IDENTITY, &capsule, pose, ball.as_ref())
                        .is_ok_and(|t| t.intersecting);
                    if touching {
                        self.hits.push((b, s, part));
                    }
                }
            }
        }
        self.hits.len()
    }

    fn hit_set(&self) -> BTreeSet<Triple> {
        self.hits.iter().copied().collect()
    }
}

/// The row: both sides, stepped `items` frames per pass.
struct Bullets {
    frames: Vec<Frame>,
    kollide: RefCell<KollideSide>,
    parry: RefCell<ParrySide>,
    items: usize,
    note: RefCell<String>,
}

/// `passes` batches of `items` frames; the frames of the last batch with at least one hit.
fn replay(items: usize, passes: usize, mut step: impl FnMut() -> usize) -> usize {
    let mut hits = 0;
    for _ in 0..passes {
        hits = (0..items).filter(|_| black_box(step()) > 0).count();
    }
    hits
}

impl Prepared for Bullets {
    fn items(&self) -> usize {
        self.items
    }

    fn run_kollide(&self, passes: usize) -> usize {
        let side = &mut *self.kollide.borrow_mut();
        replay(self.items, passes, || side.step(&self.frames))
    }

    fn run_peer(&self, passes: usize) -> usize {
        let side = &mut *self.parry.borrow_mut();
        replay(self.items, passes, || side.step(&self.frames))
    }

    /// Steps both sides `items` frames; a frame agrees when both report the same set of hits.
    fn check(&self) -> Agreement {
        let mut agreement = Agreement {
            items: self.items,
            kollide_hits: 0,
            peer_hits: 0,
            mismatches: 0,
            first_mismatch: None,
        };
        let (mut total, mut differ) = (0, 0);
        for i in 0..self.items {
            let k = self.kollide.borrow_mut().step(&self.frames);
            let p = self.parry.borrow_mut().step(&self.frames);
            agreement.kollide_hits += usize::from(k > 0);
            agreement.peer_hits += usize::from(p > 0);
            let (ours, theirs) = (self.kollide.borrow().hit_set(), self.parry.borrow().hit_set());
            let diff = ours.symmetric_difference(&theirs).count();
            total += ours.len();
            differ += diff;
            if diff > 0 || ours.len() != k {
                agreement.mismatches += 1;
                agreement.first_mismatch.get_or_insert(i);
            }
        }
        let frames = self.items.max(1) as f64;
        let _ = write!(
            self.note.borrow_mut(),
            "hits per frame {:.0}, differing {:.1}",
            total as f64 / frames,
            differ as f64 / frames
        );
        agreement
    }

    fn note(&self) -> Option<String> {
        Some(self.note.borrow().clone())
    }
}

fn prepare(items: usize, seed: u64, mode: Mode) -> Option<Box<dyn Prepared>> {
    Some(Box::new(Bullets {
        frames: scene(seed),
        kollide: RefCell::new(KollideSide::new(mode)),
        parry: RefCell::new(ParrySide::new()),
        items,
        note: RefCell::new(String::new()),
    }))
}

pub fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            name: "skeleton/bullets600-vs-300x16",
            metric: "ms/frame",
            ns_per_unit: 1e6,
            peer: PARRY2D,
            items: 32,
            check_items: 4,
            balanced: false,
            prepare: |n, seed| prepare(n, seed, Mode::Update),
        },
        Workload {
            name: "skeleton/bullets600-vs-300x16@per-node",
            metric: "ms/frame",
            ns_per_unit: 1e6,
            peer: PARRY2D,
            // Tens of milliseconds per frame on kollide's side: a few frames per batch.
            items: 8,
            check_items: 2,
            balanced: false,
            prepare: |n, seed| prepare(n, seed, Mode::PerNode),
        },
    ]
}
