//! The `platformer` scene (seed 003): a level of convex polygons (ground blocks, slopes,
//! floating platforms) and a crowd of box-shaped walkers under gravity. Each frame every walker's
//! motion is resolved in one pass by the separating-axis motion resolution against the level and
//! the other walkers the broad phase finds near its path (never a step-and-halve loop), then the
//! walkers are moved and the broad phase updated.

use std::cell::RefCell;

use glam::Vec2;
use kollide::bounds::Aabb2;
use kollide::broad::{BroadPhase, DynamicTree};
use kollide::motion::{SatAxes, resolve_motion_among2};
use kollide_testkit::random::{self, TestRng};
use rand::Rng;

use super::{Row, Scene, Settings, time_tests};

pub const SCENE: Scene = Scene {
    name: "platformer",
    about: "200 walkers on a level of blocks, slopes and platforms, moved by SAT motion resolution (seed 003)",
    run,
};

const WALKERS: usize = 200;
const DT: f32 = 1.0 / 60.0;
const GRAVITY: f32 = -30.0;
const FRAMES: usize = 240;
/// Half a walker's width and height.
const HALF: Vec2 = Vec2::new(0.4, 0.8);

/// A box as a counter-clockwise polygon.
fn rectangle(min: Vec2, max: Vec2) -> Vec<Vec2> {
    vec![min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)]
}

/// The level: ground blocks with ramps up and down between them, and floating platforms.
fn level(rng: &mut TestRng) -> Vec<Vec<Vec2>> {
    let mut polygons = Vec::new();
    let mut x = -120.0f32;
    let mut height = 0.0f32;
    while x < 120.0 {
        let width = rng.random_range(3.0..8.0);
        polygons.push(rectangle(Vec2::new(x, -5.0), Vec2::new(x + width, height)));
        x += width;
        // A slope to the next block's height.
        let next = (height + rng.random_range(-1.5..1.5)).clamp(-2.0, 4.0);
        let run = rng.random_range(2.0..4.0);
        let (lo, hi) = (height.min(next), height.max(next));
        polygons.push(rectangle(Vec2::new(x, -5.0), Vec2::new(x + run, lo)));
        if hi > lo {
            let rising = next > height;
            let peak = if rising { Vec2::new(x + run, hi) } else { Vec2::new(x, hi) };
            polygons.push(vec![Vec2::new(x, lo), Vec2::new(x + run, lo), peak]);
        }
        x += run;
        height = next;
        if rng.random_bool(0.5) {
            let px = x - rng.random_range(0.0..6.0);
            let py = height + rng.random_range(3.0..6.0);
            polygons.push(rectangle(Vec2::new(px, py), Vec2::new(px + 3.0, py + 0.5)));
        }
    }
    polygons
}

/// The scene: level polygons (ids `0..level`), walkers (ids after them), one broad phase over
/// both.
struct Platformer {
    polygons: Vec<Vec<Vec2>>,
    level: usize,
    velocities: Vec<Vec2>,
    broad: DynamicTree<Aabb2>,
    axes: SatAxes,
    found: Vec<u32>,
    grounded: usize,
}

impl Platformer {
    fn new(rng: &mut TestRng) -> Self {
        let mut polygons = level(rng);
        let level = polygons.len();
        let mut velocities = Vec::new();
        for _ in 0..WALKERS {
            let c = Vec2::new(rng.random_range(-110.0..110.0), rng.random_range(8.0..20.0));
            polygons.push(rectangle(c - HALF, c + HALF));
            velocities.push(Vec2::new(rng.random_range(-4.0..4.0), 0.0));
        }
        let mut broad = DynamicTree::new();
        for (id, polygon) in polygons.iter().enumerate() {
            let bounds = Aabb2::from_points(polygon).expect("finite polygons");
            broad.insert(id as u32, bounds).expect("fresh ids");
        }
        Self {
            polygons,
            level,
            velocities,
            broad,
            axes: SatAxes::EDGES_AND_VELOCITY,
            found: Vec::new(),
            grounded: 0,
        }
    }

    /// One frame: gravity, then every walker's displacement resolved against what its path can
    /// reach; a walker whose fall was stopped stands (its vertical speed is zeroed), one whose
    /// walk was stopped turns around.
    fn step(&mut self) -> usize {
        self.grounded = 0;
        for w in 0..WALKERS {
            let id = self.level + w;
            let mut velocity = self.velocities[w];
            velocity.y += GRAVITY * DT;
            let wanted = velocity * DT;
            let polygons = &self.polygons;
            let resolved = resolve_motion_among2(
                &polygons[id],
                wanted,
                &self.broad,
                |other| (other as usize != id).then(|| polygons[other as usize].as_slice()),
                &self.axes,
                &mut self.found,
            )
            .map_or(Vec2::ZERO, |r| r.velocity);
            if wanted.y < 0.0 && resolved.y > wanted.y * 0.5 {
                velocity.y = 0.0;
                self.grounded += 1;
            }
            if resolved.x.abs() < wanted.x.abs() * 0.25 {
                velocity.x = -velocity.x;
            }
            self.velocities[w] = velocity;
            for p in &mut self.polygons[id] {
                *p += resolved;
            }
            let bounds = Aabb2::from_points(&self.polygons[id]).expect("finite polygons");
            self.broad.update(id as u32, bounds).expect("inserted");
        }
        self.grounded
    }
}

fn run(settings: &Settings, notes: &mut Vec<String>) -> Vec<Row> {
    let mut rng = random::rng(settings.seed);
    let scene = RefCell::new(Platformer::new(&mut rng));
    let frames: Vec<usize> = (0..if settings.items < 1000 { 10 } else { FRAMES }).collect();
    let mut grounded = 0;
    for _ in &frames {
        grounded = scene.borrow_mut().step();
    }
    let level = scene.borrow().level;
    notes.push(format!(
        "{level} level polygons, {WALKERS} walkers; after {} frames {grounded} walkers stand on the ground, \
         slopes, platforms or each other",
        frames.len()
    ));
    vec![time_tests(
        "frame: resolve 200 walkers' motion",
        "motion::resolve_motion_among2",
        &frames,
        settings,
        |_| scene.borrow_mut().step() > 0,
    )]
}
