//! Broad-phase workloads: full pair finding, moving frames, box and ray queries over many boxes.
//!
//! The peer is parry's `Bvh`, used the way rapier's broad phase uses it: built from the boxes (or
//! updated with `insert_or_update_partially` and `refit`), then traversed against itself
//! (`traverse_bvtt_single_tree`) for the overlapping pairs; pair sets and began/ended events are
//! kept in a `HashSet`, as a broad phase must. kollide's default broad phase runs under the plain
//! names, each other implementation under a suffix (`@sap`, `@hash`).

use std::cell::RefCell;
use std::collections::HashSet;

use glam::Vec3;
use kollide::bounds::Aabb3;
use kollide::broad::{BroadPhase, DynamicTree, PairEvents, SpatialHash, SweepAndPrune};
use kollide::math::Ray3;
use kollide_testkit::random::{self, TestRng};
use parry3d::bounding_volume::{Aabb, BoundingVolume};
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhNode, BvhWorkspace};
use parry3d::query::Ray;
use rand::Rng;

use super::{PARRY3D, Workload};
use crate::harness::{Batch, Prepared};

/// A kollide broad phase as a boxed trait object, so one workload body serves every implementation.
type Phase = Box<dyn BroadPhase<Aabb3>>;

/// A broad-phase constructor and the names of its seven rows.
type Implementation = (fn() -> Phase, [&'static str; 7]);

/// The implementations measured; the first is kollide's default broad phase
/// ([`kollide::broad::DefaultBroadPhase`], the dynamic tree) and gets the plain names.
const IMPLEMENTATIONS: [Implementation; 3] = [
    (
        || Box::new(DynamicTree::<Aabb3>::new()),
        [
            "broad/terdiman10k/full",
            "broad/terdiman100k/full",
            "broad/moving100k/frame",
            "broad/moving100k-fast/frame",
            "broad/query-box/100k",
            "broad/query-ray/100k",
            "broad/drift100k/frame",
        ],
    ),
    (
        || Box::new(SweepAndPrune::<Aabb3>::new()),
        [
            "broad/terdiman10k/full@sap",
            "broad/terdiman100k/full@sap",
            "broad/moving100k/frame@sap",
            "broad/moving100k-fast/frame@sap",
            "broad/query-box/100k@sap",
            "broad/query-ray/100k@sap",
            "broad/drift100k/frame@sap",
        ],
    ),
    (
        || Box::new(SpatialHash::<Aabb3>::new()),
        [
            "broad/terdiman10k/full@hash",
            "broad/terdiman100k/full@hash",
            "broad/moving100k/frame@hash",
            "broad/moving100k-fast/frame@hash",
            "broad/query-box/100k@hash",
            "broad/query-ray/100k@hash",
            "broad/drift100k/frame@hash",
        ],
    ),
];

pub fn workloads() -> Vec<Workload> {
    let mut all = rows::<0>();
    all.extend(rows::<1>());
    all.extend(rows::<2>());
    all
}

/// The rows of implementation `I`.
fn rows<const I: usize>() -> Vec<Workload> {
    let names = IMPLEMENTATIONS[I].1;
    let row = |name, metric: &'static str, items, check_items, balanced, prepare| Workload {
        name,
        metric,
        ns_per_unit: if metric.starts_with("ms") { 1e6 } else { 1.0 },
        peer: PARRY3D,
        items,
        check_items,
        balanced,
        prepare,
    };
    vec![
        row(names[0], "ms/run", 1, 1, false, |_, seed| full(10_000, seed, IMPLEMENTATIONS[I].0)),
        row(names[1], "ms/run", 1, 1, false, |_, seed| full(100_000, seed, IMPLEMENTATIONS[I].0)),
        row(names[2], "ms/frame", 10, 3, false, |n, seed| moving(n, seed, SLOW, false, IMPLEMENTATIONS[I].0)),
        row(names[3], "ms/frame", 10, 3, false, |n, seed| moving(n, seed, FAST, false, IMPLEMENTATIONS[I].0)),
        row(names[6], "ms/frame", 10, 3, false, |n, seed| moving(n, seed, SLOW, true, IMPLEMENTATIONS[I].0)),
        row(names[4], "ns/query", 10_000, 500, false, |n, seed| query_box(n, seed, IMPLEMENTATIONS[I].0)),
        row(names[5], "ns/query", 10_000, 500, false, |n, seed| query_ray(n, seed, IMPLEMENTATIONS[I].0)),
    ]
}

/// Terdiman's test scene: `n` boxes with centers uniform in `[-2048, 2048)³` and half extents
/// uniform in `[0, 128)`.
fn terdiman_boxes(rng: &mut TestRng, n: usize) -> Vec<Aabb3> {
    (0..n)
        .map(|_| {
            let c = random::point3(rng, 2048.0);
            let h = Vec3::new(
                rng.random_range(0.0..128.0),
                rng.random_range(0.0..128.0),
                rng.random_range(0.0..128.0),
            );
            Aabb3::from_center_half_extents(c, h)
        })
        .collect()
}

fn to_parry(b: &Aabb3) -> Aabb {
    Aabb::new(b.min, b.max)
}

/// Every overlapping pair of `bvh`'s leaves, `(smaller, larger)`, through the self traversal.
/// parry reports leaf pairs whose boxes overlap (closed test, like kollide's).
fn parry_pairs(bvh: &Bvh, workspace: &mut BvhWorkspace, out: &mut Vec<(u32, u32)>) {
    out.clear();
    bvh.traverse_bvtt_single_tree::<false>(workspace, &mut |a, b| {
        out.push(if a < b { (a, b) } else { (b, a) })
    });
}

/// Full pair finding from scratch: a new broad phase, every box inserted, pairs found once.
/// The answer is the pair count.
fn full(n: usize, seed: u64, make: fn() -> Phase) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let boxes = terdiman_boxes(&mut rng, n);
    let peer_boxes: Vec<Aabb> = boxes.iter().map(to_parry).collect();
    Some(Box::new(Batch::new(
        vec![boxes],
        vec![peer_boxes],
        move |boxes: &Vec<Aabb3>| {
            let mut phase = make();
            for (id, b) in boxes.iter().enumerate() {
                phase.insert(id as u32, *b).expect("valid box");
            }
            let mut events = PairEvents::default();
            phase.find_pairs(&mut events);
            events.pairs.len() as u64
        },
        |boxes: &Vec<Aabb>| {
            let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, boxes);
            let mut pairs = Vec::new();
            parry_pairs(&bvh, &mut BvhWorkspace::default(), &mut pairs);
            pairs.len() as u64
        },
    )))
}

/// One frame of the moving scene: the objects that move, each with its two boxes (home and
/// away); a frame sends each of them to the box it is not in.
type Frame = Vec<(u32, [Aabb3; 2])>;

/// How the moving objects of [`moving`] move; each side of a workload keeps its own.
enum Motion {
    /// Back and forth: which box of [`Frame`] each object is in, flipped by every frame that
    /// moves it, so any sequence of frames, repeated any number of times, keeps moving objects.
    Toggle(Vec<bool>),
    /// Steadily one way: how many times each object has moved; its `k`-th move takes it to its
    /// home box shifted `k` times by the frame's offset (away box minus home box).
    Drift(Vec<u32>),
}

impl Motion {
    fn new(drift: bool, n: usize) -> Self {
        if drift { Motion::Drift(vec![0; n]) } else { Motion::Toggle(vec![false; n]) }
    }

    /// Moves object `id` and returns its new box.
    fn next(&mut self, id: u32, boxes: &[Aabb3; 2]) -> Aabb3 {
        match self {
            Motion::Toggle(away) => {
                let away = &mut away[id as usize];
                *away = !*away;
                boxes[usize::from(*away)]
            }
            Motion::Drift(steps) => {
                let steps = &mut steps[id as usize];
                *steps += 1;
                let shift = (boxes[1].min - boxes[0].min) * *steps as f32;
                Aabb3::new(boxes[0].min + shift, boxes[0].max + shift)
            }
        }
    }
}

/// The largest move per axis of `broad/moving100k/frame`: within the margin a broad phase would
/// fatten these boxes by, so a fattening broad phase rarely restructures.
const SLOW: f32 = 8.0;

/// The largest move per axis of `broad/moving100k-fast/frame`: most moves leave any fattened box.
const FAST: f32 = 32.0;

/// 100,000 Terdiman boxes, of which a different 10% move each frame (frame `f` moves the objects
/// `k % 10 == f % 10` by their velocity, up to `speed` per axis, or back; with `drift`, always on
/// by their velocity, so the scene spreads as the runs go on). Each item is a frame: apply the
/// moves, then report the pairs that began and ended; the answer is their total count.
fn moving(
    frames: usize,
    seed: u64,
    speed: f32,
    drift: bool,
    make: fn() -> Phase,
) -> Option<Box<dyn Prepared>> {
    const N: usize = 100_000;
    let mut rng = random::rng(seed);
    let boxes = terdiman_boxes(&mut rng, N);
    let velocity: Vec<Vec3> = (0..N).map(|_| random::point3(&mut rng, speed)).collect();
    let frames: Vec<Frame> = (0..frames)
        .map(|f| {
            (0..N)
                .filter(|k| k % 10 == f % 10)
                .map(|k| {
                    let away = Aabb3::new(boxes[k].min + velocity[k], boxes[k].max + velocity[k]);
                    (k as u32, [boxes[k], away])
                })
                .collect()
        })
        .collect();

    let mut phase = make();
    for (id, b) in boxes.iter().enumerate() {
        phase.insert(id as u32, *b).expect("valid box");
    }
    let mut events = PairEvents::default();
    phase.find_pairs(&mut events);
    let kollide = RefCell::new((phase, events, Motion::new(drift, N)));

    let peer = RefCell::new(ParryBroadPhase::new(&boxes, Motion::new(drift, N)));
    Some(Box::new(Batch::new(
        frames.clone(),
        frames,
        move |frame: &Frame| {
            let (phase, events, motion) = &mut *kollide.borrow_mut();
            for (id, boxes) in frame {
                phase.update(*id, motion.next(*id, boxes)).expect("known id, valid box");
            }
            phase.find_pairs(events);
            (events.began.len() + events.ended.len()) as u64
        },
        move |frame: &Frame| peer.borrow_mut().frame(frame),
    )))
}

/// parry's `Bvh` as rapier's broad phase drives it: partial updates with change detection, a refit,
/// then the self traversal restricted to changed subtrees for new pairs; ended pairs are the known
/// pairs with a moved member whose boxes no longer overlap. parry marks a leaf changed only when
/// it leaves its box fattened by a positive margin, so leaves are fattened by [`PEER_MARGIN`] and
/// the candidate pairs filtered by the tight boxes, which makes the pair set exact.
/// The fattening of moved leaves in the peer's tree: tiny against the moves (up to 8 or 32 per
/// axis), so every move re-marks its leaf.
const PEER_MARGIN: f32 = 1e-3;

struct ParryBroadPhase {
    bvh: Bvh,
    workspace: BvhWorkspace,
    boxes: Vec<Aabb>,
    pairs: HashSet<(u32, u32)>,
    moved: Vec<bool>,
    candidates: Vec<(u32, u32)>,
    motion: Motion,
}

impl ParryBroadPhase {
    fn new(boxes: &[Aabb3], motion: Motion) -> Self {
        let boxes: Vec<Aabb> = boxes.iter().map(to_parry).collect();
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &boxes);
        let mut workspace = BvhWorkspace::default();
        let mut candidates = Vec::new();
        parry_pairs(&bvh, &mut workspace, &mut candidates);
        let pairs = candidates.iter().copied().collect();
        let moved = vec![false; boxes.len()];
        Self { bvh, workspace, boxes, pairs, moved, candidates, motion }
    }

    /// Applies the frame's moves and returns the number of pairs that began and ended.
    fn frame(&mut self, frame: &Frame) -> u64 {
        for (id, boxes) in frame {
            let id = *id;
            let b = to_parry(&self.motion.next(id, boxes));
            self.boxes[id as usize] = b;
            self.moved[id as usize] = true;
            self.bvh.insert_or_update_partially(b, id, PEER_MARGIN);
        }
        self.bvh.refit(&mut self.workspace);
        self.candidates.clear();
        let candidates = &mut self.candidates;
        self.bvh.traverse_bvtt_single_tree::<true>(&mut self.workspace, &mut |a, b| {
            candidates.push(if a < b { (a, b) } else { (b, a) });
        });
        let (boxes, moved) = (&self.boxes, &self.moved);
        let mut began = 0u64;
        for &(a, b) in &self.candidates {
            if boxes[a as usize].intersects(&boxes[b as usize]) {
                began += u64::from(self.pairs.insert((a, b)));
            }
        }
        let before = self.pairs.len();
        self.pairs.retain(|&(a, b)| {
            !(moved[a as usize] || moved[b as usize]) || boxes[a as usize].intersects(&boxes[b as usize])
        });
        let ended = (before - self.pairs.len()) as u64;
        for (id, _) in frame {
            self.moved[*id as usize] = false;
        }
        began + ended
    }
}

/// 100,000 Terdiman boxes and query boxes of the same size distribution; the answer is the number
/// of boxes found.
fn query_box(n: usize, seed: u64, make: fn() -> Phase) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let boxes = terdiman_boxes(&mut rng, 100_000);
    let queries = terdiman_boxes(&mut rng, n);
    let (phase, bvh) = static_scene(&boxes, make);
    let out = RefCell::new(Vec::new());
    let peer_queries: Vec<Aabb> = queries.iter().map(to_parry).collect();
    Some(Box::new(Batch::new(
        queries,
        peer_queries,
        move |q: &Aabb3| {
            let out = &mut *out.borrow_mut();
            phase.query_box(q, out);
            out.len() as u64
        },
        move |q: &Aabb| bvh.intersect_aabb(q).count() as u64,
    )))
}

/// 100,000 Terdiman boxes and rays from random points toward random points with `max_t = 1`
/// (segments about 4000 long); the answer is the number of boxes hit.
fn query_ray(n: usize, seed: u64, make: fn() -> Phase) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let boxes = terdiman_boxes(&mut rng, 100_000);
    let rays: Vec<Ray3> = (0..n)
        .map(|_| {
            let from = random::point3(&mut rng, 2048.0);
            Ray3::new(from, random::point3(&mut rng, 2048.0) - from)
        })
        .collect();
    let (phase, bvh) = static_scene(&boxes, make);
    let out = RefCell::new(Vec::new());
    let peer_rays: Vec<Ray> = rays.iter().map(|r| Ray::new(r.origin, r.dir)).collect();
    Some(Box::new(Batch::new(
        rays,
        peer_rays,
        move |ray: &Ray3| {
            let out = &mut *out.borrow_mut();
            phase.query_ray(ray, 1.0, out);
            out.len() as u64
        },
        move |ray: &Ray| bvh.leaves(|node: &BvhNode| node.cast_ray(ray, 1.0) < f32::MAX).count() as u64,
    )))
}

/// The static scene of the query workloads, for both sides, with kollide's structure refreshed.
fn static_scene(boxes: &[Aabb3], make: fn() -> Phase) -> (Phase, Bvh) {
    let mut phase = make();
    for (id, b) in boxes.iter().enumerate() {
        phase.insert(id as u32, *b).expect("valid box");
    }
    phase.find_pairs(&mut PairEvents::default());
    let peer: Vec<Aabb> = boxes.iter().map(to_parry).collect();
    (phase, Bvh::from_leaves(BvhBuildStrategy::Binned, &peer))
}
