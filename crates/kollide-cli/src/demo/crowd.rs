//! The `crowd` scene (seeds 001 and 004): a broad phase tracking many boxes of mixed sizes, a
//! quarter of which move every frame, with per-frame update and pair-event timings for each
//! broad-phase implementation, then box and ray queries against the settled scene.

use std::cell::RefCell;

use glam::Vec3;
use kollide::bounds::Aabb3;
use kollide::broad::{BroadPhase, DynamicTree, PairEvents, SpatialHash, SweepAndPrune};
use kollide::math::Ray3;
use kollide_testkit::random::{self, TestRng};
use rand::Rng;

use super::{Row, Scene, Settings, time_tests};

pub const SCENE: Scene = Scene {
    name: "crowd",
    about: "broad phase: boxes of mixed sizes, a quarter moving each frame; pair events per frame",
    run,
};

/// Frames in one cycle of the motion (every mover is back where it started after them).
const FRAMES: usize = 60;

/// A constructor of a broad phase and the name of the implementation.
type Implementation = (&'static str, &'static str, fn() -> Box<dyn BroadPhase<Aabb3>>);

/// The implementations the scene compares; the API names are what the rows print.
const IMPLEMENTATIONS: [Implementation; 3] = [
    ("frame, dynamic tree (default)", "DynamicTree: update + find_pairs", || {
        Box::new(DynamicTree::<Aabb3>::new())
    }),
    ("frame, spatial hash", "SpatialHash: update + find_pairs", || Box::new(SpatialHash::<Aabb3>::new())),
    ("frame, sweep and prune", "SweepAndPrune: update + find_pairs", || {
        Box::new(SweepAndPrune::<Aabb3>::new())
    }),
];

/// One object: where it rests and how it moves (movers orbit their rest position once per cycle).
struct Object {
    home: Vec3,
    half: Vec3,
    /// Zero for objects that never move.
    orbit: Vec3,
    /// A second orbit axis, perpendicular to `orbit`'s radius vector.
    swing: Vec3,
}

impl Object {
    fn bounds_at(&self, frame: usize) -> Aabb3 {
        let angle = std::f32::consts::TAU * frame as f32 / FRAMES as f32;
        let center = self.home + self.orbit * angle.cos() + self.swing * angle.sin();
        Aabb3::from_center_half_extents(center, self.half)
    }
}

/// `n` objects in a cube sized so that each overlaps about two others: mostly crates and people
/// (half extents 0.25 to 1), one in a hundred a building (up to 8).
fn objects(rng: &mut TestRng, n: usize) -> Vec<Object> {
    let side = 2.2 * (n as f32).cbrt();
    (0..n)
        .map(|i| {
            let size = if i % 100 == 0 { rng.random_range(2.0..8.0) } else { rng.random_range(0.25..1.0) };
            let half = Vec3::new(size, size * rng.random_range(0.5..2.0), size);
            let moving = i % 4 == 0;
            let radius = if moving { rng.random_range(0.5..3.0) } else { 0.0 };
            let orbit = random::unit3(rng) * radius;
            let swing = orbit.any_orthonormal_vector() * radius;
            Object { home: random::point3(rng, side), half, orbit, swing }
        })
        .collect()
}

fn run(settings: &Settings, notes: &mut Vec<String>) -> Vec<Row> {
    let mut rng = random::rng(settings.seed);
    let objects = objects(&mut rng, settings.items);
    // The moves of each frame: the ids of the movers and their new boxes.
    let frames: Vec<Vec<(u32, Aabb3)>> = (0..FRAMES)
        .map(|f| {
            objects
                .iter()
                .enumerate()
                .filter(|(_, o)| o.orbit != Vec3::ZERO)
                .map(|(id, o)| (id as u32, o.bounds_at(f)))
                .collect()
        })
        .collect();
    let movers = frames[0].len();

    let mut rows = Vec::new();
    let mut settled = None;
    for (what, api, make) in IMPLEMENTATIONS {
        let mut phase = make();
        for (id, o) in objects.iter().enumerate() {
            phase.insert(id as u32, o.bounds_at(0)).expect("valid boxes, fresh ids");
        }
        let mut events = PairEvents::default();
        phase.find_pairs(&mut events);
        // Frames run, pairs, began and ended events, summed over every pass (warm-up included).
        let state = RefCell::new((phase, events, [0usize; 4]));
        // A frame "hits" when some pair began or ended in it.
        let row = time_tests(what, api, &frames, settings, |moves| {
            let (phase, events, totals) = &mut *state.borrow_mut();
            for &(id, b) in moves {
                phase.update(id, b).expect("known id, valid box");
            }
            phase.find_pairs(events);
            for (total, count) in
                totals.iter_mut().zip([1, events.pairs.len(), events.began.len(), events.ended.len()])
            {
                *total += count;
            }
            !(events.began.is_empty() && events.ended.is_empty())
        });
        let (phase, _, [frames_run, pairs, began, ended]) = state.into_inner();
        if settled.is_none() {
            let per_frame = |total: usize| total as f64 / frames_run as f64;
            notes.push(format!(
                "{} objects, {movers} moving per frame; per frame on average: {:.0} overlapping pairs, {:.1} \
                 began, {:.1} ended",
                objects.len(),
                per_frame(pairs),
                per_frame(began),
                per_frame(ended),
            ));
            settled = Some(phase);
        }
        rows.push(row);
    }
    let phase = settled.expect("at least one implementation");

    // Queries against the settled scene of the first implementation.
    let side = 2.2 * (objects.len() as f32).cbrt();
    let boxes: Vec<Aabb3> = (0..settings.items)
        .map(|_| {
            Aabb3::from_center_half_extents(
                random::point3(&mut rng, side),
                Vec3::splat(rng.random_range(0.5..2.0)),
            )
        })
        .collect();
    let rays: Vec<Ray3> = (0..settings.items)
        .map(|_| {
            let from = random::point3(&mut rng, side);
            Ray3::new(from, random::unit3(&mut rng) * side * 0.25)
        })
        .collect();
    let found = RefCell::new(Vec::new());
    rows.push(time_tests("query: objects in a box", "BroadPhase::query_box", &boxes, settings, |q| {
        let found = &mut *found.borrow_mut();
        phase.query_box(q, found);
        !found.is_empty()
    }));
    rows.push(time_tests("query: objects a ray crosses", "BroadPhase::query_ray", &rays, settings, |r| {
        let found = &mut *found.borrow_mut();
        phase.query_ray(r, 1.0, found);
        !found.is_empty()
    }));
    rows
}
