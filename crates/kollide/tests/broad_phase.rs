//! Every broad phase against an independent model (a sorted map of boxes, all pairs by a double
//! loop, events by set difference) over long random edit sequences in 2D and 3D.

use kollide::bounds::{Aabb2, Aabb3};
use kollide::broad::{
    BroadBounds, BroadPhase, BroadPhaseError, BruteForce, DynamicTree, HashSettings, MAX_ID, PairEvents,
    SpatialHash, SweepAndPrune, TreeSettings,
};
use kollide::math::{Ray2, Ray3, Vec2, Vec3};
use kollide_testkit::cases;
use kollide_testkit::random::{TestRng, rng};
use rand::Rng;
use std::collections::{BTreeMap, BTreeSet};

/// How the objects of a scene are spread.
#[derive(Clone, Copy, Debug)]
enum Scene {
    /// Centers uniform in a cube, similar sizes.
    Uniform,
    /// Centers in a few tight clusters (many overlaps, crowded cells).
    Clustered,
    /// Sizes spread over four orders of magnitude (huge boxes next to tiny ones).
    MixedSizes,
}

/// Dimension-specific pieces of the test: random boxes and rays.
trait TestBounds: BroadBounds {
    fn random_box(rng: &mut TestRng, center: [f32; 3], half: [f32; 3]) -> Self;
    fn random_ray(rng: &mut TestRng) -> Self::Ray;
}

impl TestBounds for Aabb3 {
    fn random_box(_: &mut TestRng, c: [f32; 3], h: [f32; 3]) -> Self {
        Aabb3::from_center_half_extents(Vec3::from(c), Vec3::from(h))
    }

    fn random_ray(rng: &mut TestRng) -> Ray3 {
        let o = Vec3::new(
            rng.random_range(-120.0..120.0),
            rng.random_range(-120.0..120.0),
            rng.random_range(-120.0..120.0),
        );
        let d =
            Vec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let (o, d) = special_ray(rng, o.to_array(), d.to_array(), 3);
        Ray3::new(Vec3::from(o), Vec3::from(d))
    }
}

impl TestBounds for Aabb2 {
    fn random_box(_: &mut TestRng, c: [f32; 3], h: [f32; 3]) -> Self {
        Aabb2::from_center_half_extents(Vec2::new(c[0], c[1]), Vec2::new(h[0], h[1]))
    }

    fn random_ray(rng: &mut TestRng) -> Ray2 {
        let o = Vec2::new(rng.random_range(-120.0..120.0), rng.random_range(-120.0..120.0));
        let d = Vec2::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let (o, d) = special_ray(rng, [o.x, o.y, 0.0], [d.x, d.y, 0.0], 2);
        Ray2::new(Vec2::new(o[0], o[1]), Vec2::new(d[0], d[1]))
    }
}

/// Sometimes makes the ray parallel to an axis plane (a zero direction component) or starts it
/// on round coordinates (on cell and box boundaries).
fn special_ray(rng: &mut TestRng, mut o: [f32; 3], mut d: [f32; 3], dim: usize) -> ([f32; 3], [f32; 3]) {
    if rng.random_bool(0.3) {
        d[rng.random_range(0..dim)] = 0.0;
    }
    if rng.random_bool(0.2) {
        o = o.map(|x| (x / 4.0).round() * 4.0);
    }
    (o, d)
}

struct Generator {
    scene: Scene,
    clusters: Vec<[f32; 3]>,
}

impl Generator {
    fn new(rng: &mut TestRng, scene: Scene) -> Self {
        let clusters = (0..4).map(|_| [(); 3].map(|_| rng.random_range(-80.0..80.0))).collect();
        Self { scene, clusters }
    }

    fn center(&self, rng: &mut TestRng) -> [f32; 3] {
        match self.scene {
            Scene::Clustered => {
                let c = self.clusters[rng.random_range(0..self.clusters.len())];
                c.map(|x| x + rng.random_range(-6.0..6.0))
            }
            Scene::Uniform => [(); 3].map(|_| rng.random_range(-30.0..30.0)),
            Scene::MixedSizes => [(); 3].map(|_| rng.random_range(-100.0..100.0)),
        }
    }

    fn half(&self, rng: &mut TestRng) -> [f32; 3] {
        match self.scene {
            Scene::Uniform => [(); 3].map(|_| rng.random_range(0.5..6.0)),
            Scene::Clustered => [(); 3].map(|_| rng.random_range(0.2..2.0)),
            // Log-uniform in [0.01, 100], some of them zero-extent on one axis.
            Scene::MixedSizes => [(); 3]
                .map(|_| if rng.random_bool(0.05) { 0.0 } else { 10f32.powf(rng.random_range(-2.0..2.0)) }),
        }
    }

    fn random_box<B: TestBounds>(&self, rng: &mut TestRng) -> B {
        let (c, h) = (self.center(rng), self.half(rng));
        B::random_box(rng, c, h)
    }

    /// A small move of `b` (most objects drift a little each frame) or, sometimes, a jump.
    fn moved<B: TestBounds>(&self, rng: &mut TestRng, b: &B) -> B {
        if rng.random_bool(0.1) {
            return self.random_box(rng);
        }
        let c = [0, 1, 2].map(|k| if k < B::DIM { 0.5 * (b.lo(k) + b.hi(k)) } else { 0.0 });
        let h = [0, 1, 2].map(|k| if k < B::DIM { 0.5 * (b.hi(k) - b.lo(k)) } else { 0.0 });
        let c = c.map(|x| x + rng.random_range(-0.5..0.5));
        B::random_box(rng, c, h)
    }
}

/// The model: boxes by id; all answers by brute force over it.
struct Model<B> {
    boxes: BTreeMap<u32, B>,
    pairs: BTreeSet<(u32, u32)>,
}

impl<B: BroadBounds> Model<B> {
    fn pairs_now(&self) -> BTreeSet<(u32, u32)> {
        let all: Vec<_> = self.boxes.iter().collect();
        let mut pairs = BTreeSet::new();
        for (i, (a, ba)) in all.iter().enumerate() {
            for (b, bb) in &all[i + 1..] {
                if ba.overlaps(bb) {
                    pairs.insert((**a, **b));
                }
            }
        }
        pairs
    }
}

/// Runs one random edit sequence on `phase` and the model side by side, finding pairs every
/// `pairs_every` steps; panics on a difference.
fn run<B: TestBounds>(
    phase: &mut dyn BroadPhase<B>,
    name: &str,
    scene: Scene,
    seed: u64,
    steps: usize,
    pairs_every: usize,
) {
    let mut rng = rng(seed);
    let generator = Generator::new(&mut rng, scene);
    let mut model = Model { boxes: BTreeMap::new(), pairs: BTreeSet::new() };
    let mut events = PairEvents::default();
    let mut out = Vec::new();
    let mut next_id = 0u32;
    let (mut began_total, mut ended_total) = (0, 0);
    for step in 0..steps {
        let ctx = format!("{name} {scene:?} seed {seed} step {step}");
        let roll = rng.random_range(0..100);
        if roll < 20 || model.boxes.len() < 10 {
            // Ids are mostly dense, sometimes reused after a removal.
            let id = next_id;
            next_id += 1 + rng.random_range(0..2);
            let b = generator.random_box::<B>(&mut rng);
            phase.insert(id, b).unwrap();
            model.boxes.insert(id, b);
        } else if roll < 60 {
            // Move a batch of objects (10% of them), as a frame would.
            let ids: Vec<u32> = model.boxes.keys().copied().collect();
            for _ in 0..(ids.len() / 10).max(1) {
                let id = ids[rng.random_range(0..ids.len())];
                let b = generator.moved(&mut rng, &model.boxes[&id]);
                phase.update(id, b).unwrap();
                model.boxes.insert(id, b);
            }
        } else if roll < 72 {
            let ids: Vec<u32> = model.boxes.keys().copied().collect();
            let id = ids[rng.random_range(0..ids.len())];
            phase.remove(id).unwrap();
            model.boxes.remove(&id);
        } else if roll < 86 {
            let q = generator.random_box::<B>(&mut rng);
            phase.query_box(&q, &mut out);
            let expected: Vec<u32> =
                model.boxes.iter().filter(|(_, b)| b.overlaps(&q)).map(|(&id, _)| id).collect();
            assert_eq!(out, expected, "{ctx}: query_box");
        } else if rng.random_bool(0.5) {
            check_cast_box(phase, &model, &mut rng, &ctx);
        } else {
            let ray = B::random_ray(&mut rng);
            let max_t = if rng.random_bool(0.3) { f32::INFINITY } else { rng.random_range(0.0..300.0) };
            phase.query_ray(&ray, max_t, &mut out);
            let expected: Vec<u32> = model
                .boxes
                .iter()
                .filter(|(_, b)| b.ray_entry(&ray, max_t).is_some())
                .map(|(&id, _)| id)
                .collect();
            assert_eq!(out, expected, "{ctx}: query_ray");
        }
        assert_eq!(phase.len(), model.boxes.len(), "{ctx}: len");
        if step % pairs_every == 0 {
            phase.find_pairs(&mut events);
            let now = model.pairs_now();
            let began: Vec<_> = now.difference(&model.pairs).copied().collect();
            let ended: Vec<_> = model.pairs.difference(&now).copied().collect();
            assert_eq!(events.pairs, now.iter().copied().collect::<Vec<_>>(), "{ctx}: pairs");
            assert_eq!(events.began, began, "{ctx}: began");
            assert_eq!(events.ended, ended, "{ctx}: ended");
            began_total += began.len();
            ended_total += ended.len();
            model.pairs = now;
        }
    }
    // The sequence must exercise the events, or the comparison above proves little.
    assert!(
        began_total > 20 && ended_total > 20,
        "{name} {scene:?}: {began_total} began, {ended_total} ended"
    );
}

/// `cast_box` visits each of the model's boxes grown by the half extents that the ray enters
/// within its reach once, with the exact entry, and a visitor that clips the reach at its `k`-th
/// object sees every box entered no later than that, and none entered later after the clip.
fn check_cast_box<B: TestBounds>(phase: &dyn BroadPhase<B>, model: &Model<B>, rng: &mut TestRng, ctx: &str) {
    let ray = B::random_ray(rng);
    let max_t = if rng.random_bool(0.3) { f32::INFINITY } else { rng.random_range(0.0..300.0) };
    let half: [f32; 3] =
        if rng.random_bool(0.3) { [0.0; 3] } else { std::array::from_fn(|_| rng.random_range(0.0..4.0)) };
    let clip_at = rng.random_range(1..6);
    let mut got = Vec::new();
    let mut clip = f32::INFINITY;
    phase.cast_box(&ray, half, max_t, &mut |id, t| {
        got.push((id, t, clip));
        if got.len() == clip_at {
            clip = t;
        }
        clip
    });
    let (origin, dir) = B::ray_parts(&ray);
    let mut entries: Vec<(u32, f32)> = Vec::new();
    if origin.iter().chain(&dir).all(|x| x.is_finite()) {
        let reach = max_t.min(f32::MAX);
        entries = model
            .boxes
            .iter()
            .filter_map(|(&id, b)| {
                let (lo, hi) = b.corners();
                let grown = B::from_lo_hi(
                    std::array::from_fn(|i| lo[i] - half[i]),
                    std::array::from_fn(|i| hi[i] + half[i]),
                );
                Some((id, grown.ray_entry(&ray, reach)?))
            })
            .collect();
    }
    let what = format!("{ctx}: cast_box with half extents {half:?}, clipped at the {clip_at}th");
    let mut ids: Vec<u32> = got.iter().map(|v| v.0).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), got.len(), "{what}: an object visited twice");
    for &(id, t, clip_then) in &got {
        let exact = entries.iter().find(|e| e.0 == id).map(|e| e.1);
        assert_eq!(exact, Some(t), "{what}: object {id} visited at {t}");
        assert!(t <= clip_then, "{what}: object {id} entered at {t}, beyond the reach {clip_then}");
    }
    for &(id, t) in entries.iter().filter(|e| e.1 <= clip) {
        assert!(got.iter().any(|v| v.0 == id), "{what}: object {id} entered at {t} never visited");
    }
}

fn all_phases<B: TestBounds + 'static>() -> Vec<(&'static str, Box<dyn BroadPhase<B>>)> {
    vec![
        ("brute force", Box::new(BruteForce::<B>::new())),
        ("sweep and prune", Box::new(SweepAndPrune::<B>::new())),
        ("spatial hash", Box::new(SpatialHash::<B>::new())),
        (
            "spatial hash, small cells",
            Box::new(SpatialHash::<B>::with_settings(HashSettings {
                cell_size: Some(1.5),
                margin: 0.5,
                max_cells_per_object: 16,
            })),
        ),
        ("dynamic tree", Box::new(DynamicTree::<B>::new())),
        (
            "dynamic tree, no margin",
            Box::new(DynamicTree::<B>::with_settings(TreeSettings { margin: Some(0.0) })),
        ),
    ]
}

fn run_all<B: TestBounds + 'static>() {
    for (scene_index, scene) in [Scene::Uniform, Scene::Clustered, Scene::MixedSizes].into_iter().enumerate()
    {
        for seed in 0..3u64 {
            // Pairs after every step (few edits between calls: incremental paths) or every
            // seventh (many edits: batch paths).
            for pairs_every in [1, 7] {
                for (name, mut phase) in all_phases::<B>() {
                    let seed = seed * 10 + scene_index as u64;
                    run::<B>(phase.as_mut(), name, scene, seed, 1200, pairs_every);
                }
            }
        }
    }
}

#[test]
fn broad_phases_match_the_model_in_3d() {
    run_all::<Aabb3>();
}

#[test]
fn broad_phases_match_the_model_in_2d() {
    run_all::<Aabb2>();
}

#[test]
fn bad_edits_are_refused_and_change_nothing() {
    fn check<B: TestBounds + 'static>(valid: B, nan: B, inverted: B) {
        for (name, mut phase) in all_phases::<B>() {
            phase.insert(1, valid).unwrap();
            assert_eq!(phase.insert(1, valid), Err(BroadPhaseError::DuplicateId(1)), "{name}");
            assert_eq!(phase.insert(2, nan), Err(BroadPhaseError::InvalidBounds(2)), "{name}");
            assert_eq!(phase.insert(3, inverted), Err(BroadPhaseError::InvalidBounds(3)), "{name}");
            assert_eq!(
                phase.insert(MAX_ID + 1, valid),
                Err(BroadPhaseError::IdTooLarge(MAX_ID + 1)),
                "{name}"
            );
            assert_eq!(phase.update(7, valid), Err(BroadPhaseError::UnknownId(7)), "{name}");
            assert_eq!(phase.update(1, nan), Err(BroadPhaseError::InvalidBounds(1)), "{name}");
            assert_eq!(phase.remove(7), Err(BroadPhaseError::UnknownId(7)), "{name}");
            assert_eq!(phase.len(), 1, "{name}");
            assert_eq!(phase.bounds(1), Some(valid), "{name}");
            // A NaN query finds nothing; the valid object is still found.
            let mut out = Vec::new();
            phase.query_box(&nan, &mut out);
            assert!(out.is_empty(), "{name}");
            phase.query_box(&valid, &mut out);
            assert_eq!(out, [1], "{name}");
            let mut events = PairEvents::default();
            phase.find_pairs(&mut events);
            assert!(events.pairs.is_empty(), "{name}");
            phase.remove(1).unwrap();
            assert!(phase.is_empty(), "{name}");
        }
    }
    let n = f32::NAN;
    check(
        Aabb3::new(Vec3::ZERO, Vec3::ONE),
        Aabb3::new(Vec3::new(n, 0.0, 0.0), Vec3::ONE),
        Aabb3::new(Vec3::ONE, Vec3::ZERO),
    );
    check(
        Aabb2::new(Vec2::ZERO, Vec2::ONE),
        Aabb2::new(Vec2::new(0.0, n), Vec2::ONE),
        Aabb2::new(Vec2::ONE, Vec2::ZERO),
    );
}

#[test]
fn removed_objects_end_their_pairs_and_ids_can_be_reused() {
    for (name, mut phase) in all_phases::<Aabb3>() {
        let unit = Aabb3::new(Vec3::ZERO, Vec3::ONE);
        let touching = Aabb3::new(Vec3::X, Vec3::new(2.0, 1.0, 1.0));
        phase.insert(0, unit).unwrap();
        phase.insert(5, touching).unwrap();
        let mut events = PairEvents::default();
        phase.find_pairs(&mut events);
        assert_eq!(events.began, [(0, 5)], "{name}: touching boxes overlap");
        phase.remove(5).unwrap();
        phase.find_pairs(&mut events);
        assert_eq!((events.pairs.len(), events.ended.as_slice()), (0, &[(0, 5)][..]), "{name}");
        phase.insert(5, unit).unwrap();
        phase.find_pairs(&mut events);
        assert_eq!(events.began, [(0, 5)], "{name}: reused id");
    }
}

#[test]
fn dense_scenes_with_many_pairs_match_the_model() {
    // Hundreds of large, heavily overlapping boxes (tens of thousands of pairs, so the batch
    // paths sort large pair lists), some spanning the whole scene, moved twice.
    let mut rng = rng(77);
    let mut model = Model { boxes: BTreeMap::new(), pairs: BTreeSet::new() };
    let random_box = |rng: &mut TestRng, big: bool| {
        let c = Vec3::new(
            rng.random_range(-20.0..20.0),
            rng.random_range(-20.0..20.0),
            rng.random_range(-20.0..20.0),
        );
        let h = if big { Vec3::splat(60.0) } else { Vec3::splat(rng.random_range(1.0..12.0)) };
        Aabb3::from_center_half_extents(c, h)
    };
    for id in 0..600u32 {
        model.boxes.insert(id * 2, random_box(&mut rng, id % 50 == 0));
    }
    let expected = model.pairs_now();
    assert!(expected.len() > 20_000, "{} pairs", expected.len());
    for (name, mut phase) in all_phases::<Aabb3>() {
        let mut events = PairEvents::default();
        for (&id, b) in &model.boxes {
            phase.insert(id, *b).unwrap();
        }
        phase.find_pairs(&mut events);
        assert_eq!(events.pairs, expected.iter().copied().collect::<Vec<_>>(), "{name}: pairs");
        let mut moved = model.boxes.clone();
        for round in 0..2 {
            let before: BTreeSet<_> = Model { boxes: moved.clone(), pairs: BTreeSet::new() }.pairs_now();
            for (&id, b) in moved.iter_mut() {
                if (id / 2) % (3 + round) == 0 {
                    *b = random_box(&mut rng, false);
                    phase.update(id, *b).unwrap();
                }
            }
            let now = Model { boxes: moved.clone(), pairs: BTreeSet::new() }.pairs_now();
            phase.find_pairs(&mut events);
            assert_eq!(events.pairs, now.iter().copied().collect::<Vec<_>>(), "{name} round {round}: pairs");
            let began: Vec<_> = now.difference(&before).copied().collect();
            let ended: Vec<_> = before.difference(&now).copied().collect();
            assert_eq!((events.began.len(), events.ended.len()), (began.len(), ended.len()), "{name}");
            assert_eq!(events.began, began, "{name} round {round}: began");
            assert_eq!(events.ended, ended, "{name} round {round}: ended");
        }
    }
}

/// Frames of a moving scene: most objects drift inside their fattened boxes, a few jump, and
/// some frames insert or remove objects, so a structure that keeps a compact copy of the scene
/// moves objects in place, sets some apart, drops the copy and builds it again. Pairs, events and
/// queries are compared with brute force every frame.
/// The end of a frame of [`run_frames`] and [`run_fast_frames`]: `queries` random box queries and
/// as many ray queries, then the pairs and events, each compared with brute force.
fn check_frame<B: TestBounds + 'static>(
    phase: &mut dyn BroadPhase<B>,
    reference: &mut BruteForce<B>,
    generator: &Generator,
    rng: &mut TestRng,
    [events, expected]: [&mut PairEvents; 2],
    queries: usize,
    ctx: &str,
) {
    let (mut out, mut expected_out) = (Vec::new(), Vec::new());
    for _ in 0..queries {
        let q = generator.random_box::<B>(rng);
        phase.query_box(&q, &mut out);
        reference.query_box(&q, &mut expected_out);
        assert_eq!(out, expected_out, "{ctx}: query_box");
        let ray = B::random_ray(rng);
        phase.query_ray(&ray, 200.0, &mut out);
        reference.query_ray(&ray, 200.0, &mut expected_out);
        assert_eq!(out, expected_out, "{ctx}: query_ray");
    }
    phase.find_pairs(events);
    reference.find_pairs(expected);
    assert_eq!(events, expected, "{ctx}: pairs and events");
}

/// Frames per run of [`run_frames`], and box (and ray) queries per frame: 4 seeds × 60 frames ×
/// 21 × 2 queries = 10,080 queries per structure and dimension.
const SMALL_MOVE_FRAMES: usize = 60;
const SMALL_MOVE_QUERIES: usize = 21;

fn run_frames<B: TestBounds + 'static>(seed: u64) {
    let mut rng = rng(seed);
    let generator = Generator::new(&mut rng, Scene::Uniform);
    let phases: Vec<(&str, Box<dyn BroadPhase<B>>)> = vec![
        ("dynamic tree", Box::new(DynamicTree::<B>::new())),
        ("sweep and prune", Box::new(SweepAndPrune::<B>::new())),
        ("spatial hash", Box::new(SpatialHash::<B>::new())),
    ];
    for (name, mut phase) in phases {
        let mut reference = BruteForce::<B>::new();
        let mut rng = kollide_testkit::random::rng(seed + 1);
        let mut next_id = 0u32;
        for _ in 0..400 {
            let b = generator.random_box::<B>(&mut rng);
            phase.insert(next_id, b).unwrap();
            reference.insert(next_id, b).unwrap();
            next_id += 1;
        }
        let (mut events, mut expected) = (PairEvents::default(), PairEvents::default());
        for frame in 0..SMALL_MOVE_FRAMES as u32 {
            let ctx = format!("{name} seed {seed} frame {frame}");
            let ids: Vec<u32> = (0..next_id).filter(|&id| reference.bounds(id).is_some()).collect();
            for &id in ids.iter().filter(|&&id| (id + frame) % 5 == 0) {
                let b = reference.bounds(id).unwrap();
                // Drifts far smaller than the boxes; one object in fifty jumps anywhere.
                let b = if rng.random_bool(0.02) {
                    generator.random_box::<B>(&mut rng)
                } else {
                    let c = [0, 1, 2].map(|k| if k < B::DIM { 0.5 * (b.lo(k) + b.hi(k)) } else { 0.0 });
                    let h = [0, 1, 2].map(|k| if k < B::DIM { 0.5 * (b.hi(k) - b.lo(k)) } else { 0.0 });
                    let d = rng.random_range(-0.02..0.02) * h.iter().fold(0.0f32, |m, &x| m.max(x));
                    B::random_box(&mut rng, c.map(|x| x + d), h)
                };
                phase.update(id, b).unwrap();
                reference.update(id, b).unwrap();
            }
            if frame % 9 == 4 {
                for _ in 0..3 {
                    let b = generator.random_box::<B>(&mut rng);
                    phase.insert(next_id, b).unwrap();
                    reference.insert(next_id, b).unwrap();
                    next_id += 1;
                }
                let id = ids[rng.random_range(0..ids.len())];
                phase.remove(id).unwrap();
                reference.remove(id).unwrap();
            }
            check_frame(
                phase.as_mut(),
                &mut reference,
                &generator,
                &mut rng,
                [&mut events, &mut expected],
                cases(SMALL_MOVE_QUERIES),
                &ctx,
            );
        }
    }
}

#[test]
fn frames_of_small_moves_match_brute_force() {
    for seed in 0..4 {
        run_frames::<Aabb3>(100 + seed);
        run_frames::<Aabb2>(200 + seed);
    }
}

/// Frames where a fifth of the objects move farther than the fattening margin, toggling between
/// a home box and a shifted one (as in the `moving100k-fast` benchmark), and some jump anywhere:
/// a dynamic tree refits leaves in place or inserts them again, and sets apart many objects from
/// its compact copy in one frame. Pairs, events and queries are compared with brute force every
/// frame.
/// Box (and ray) queries per frame of [`run_fast_frames`]: 2 seeds × 40 frames × 63 × 2 queries
/// = 10,080 queries per structure and dimension.
const FAST_MOVE_QUERIES: usize = 63;

fn run_fast_frames<B: TestBounds + 'static>(seed: u64) {
    let mut rng = rng(seed);
    let generator = Generator::new(&mut rng, Scene::Uniform);
    let phases: Vec<(&str, Box<dyn BroadPhase<B>>)> = vec![
        ("dynamic tree", Box::new(DynamicTree::<B>::new())),
        (
            "dynamic tree, margin 0.1",
            Box::new(DynamicTree::<B>::with_settings(TreeSettings { margin: Some(0.1) })),
        ),
        ("sweep and prune", Box::new(SweepAndPrune::<B>::new())),
    ];
    for (name, mut phase) in phases {
        let mut reference = BruteForce::<B>::new();
        let mut rng = kollide_testkit::random::rng(seed + 1);
        let count = 2000u32;
        let mut homes = Vec::new();
        let mut shifts = Vec::new();
        for id in 0..count {
            let b = generator.random_box::<B>(&mut rng);
            phase.insert(id, b).unwrap();
            reference.insert(id, b).unwrap();
            homes.push(b);
            shifts.push([(); 3].map(|_| rng.random_range(-4.0..4.0f32)));
        }
        let (mut events, mut expected) = (PairEvents::default(), PairEvents::default());
        for frame in 0..40u32 {
            let ctx = format!("{name} seed {seed} frame {frame}");
            for id in (0..count).filter(|&id| (id + frame) % 5 == 0) {
                let b = if rng.random_bool(0.02) {
                    generator.random_box::<B>(&mut rng)
                } else {
                    let home = homes[id as usize];
                    let s = if (id + frame) % 10 == 0 { [0.0; 3] } else { shifts[id as usize] };
                    let lo = [0, 1, 2].map(|k| if k < B::DIM { home.lo(k) + s[k] } else { 0.0 });
                    let hi = [0, 1, 2].map(|k| if k < B::DIM { home.hi(k) + s[k] } else { 0.0 });
                    B::from_lo_hi(lo, hi)
                };
                phase.update(id, b).unwrap();
                reference.update(id, b).unwrap();
            }
            check_frame(
                phase.as_mut(),
                &mut reference,
                &generator,
                &mut rng,
                [&mut events, &mut expected],
                cases(FAST_MOVE_QUERIES),
                &ctx,
            );
        }
    }
}

#[test]
fn frames_of_moves_beyond_the_margin_match_brute_force() {
    for seed in 0..2 {
        run_fast_frames::<Aabb3>(300 + seed);
        run_fast_frames::<Aabb2>(400 + seed);
    }
}

#[test]
fn rays_along_box_faces_match_brute_force() {
    // Integer boxes and rays from integer points along axes and diagonals: origins on faces,
    // edges and corners, directions with zero components, so every slab-test boundary case
    // (`0 · ∞`, touching at `t = 0` or `t = max_t`) goes through the structures' fast paths.
    fn check<B: TestBounds + 'static>(ray: impl Fn([f32; 3], [f32; 3]) -> B::Ray) {
        let mut rng = rng(5);
        let int = |rng: &mut TestRng| rng.random_range(-8i32..=8) as f32;
        let phases: Vec<(&str, Box<dyn BroadPhase<B>>)> = vec![
            ("dynamic tree", Box::new(DynamicTree::<B>::new())),
            ("sweep and prune", Box::new(SweepAndPrune::<B>::new())),
            ("spatial hash", Box::new(SpatialHash::<B>::new())),
        ];
        let boxes: Vec<B> = (0..300)
            .map(|_| {
                let c = [(); 3].map(|_| int(&mut rng));
                let h = [(); 3].map(|_| rng.random_range(0..=3) as f32 * 0.5);
                B::random_box(&mut rng, c, h)
            })
            .collect();
        let mut reference = BruteForce::<B>::new();
        for (id, b) in boxes.iter().enumerate() {
            reference.insert(id as u32, *b).unwrap();
        }
        for (name, mut phase) in phases {
            for (id, b) in boxes.iter().enumerate() {
                phase.insert(id as u32, *b).unwrap();
            }
            phase.find_pairs(&mut PairEvents::default());
            let (mut out, mut expected) = (Vec::new(), Vec::new());
            for _ in 0..cases(10_000) {
                let o = [(); 3].map(|_| int(&mut rng) * 0.5);
                let d = [(); 3].map(|_| rng.random_range(-1i32..=1) as f32);
                let max_t = [0.0, 1.0, 5.5, f32::INFINITY][rng.random_range(0..4)];
                let r = ray(o, d);
                phase.query_ray(&r, max_t, &mut out);
                reference.query_ray(&r, max_t, &mut expected);
                assert_eq!(out, expected, "{name}: ray {o:?} {d:?} up to {max_t}");
            }
        }
    }
    check::<Aabb3>(|o, d| Ray3::new(Vec3::from(o), Vec3::from(d)));
    check::<Aabb2>(|o, d| Ray2::new(Vec2::new(o[0], o[1]), Vec2::new(d[0], d[1])));
}

#[test]
fn zero_direction_rays_and_inverted_boxes_after_a_batch_pair_finding() {
    // A dynamic tree filled at once finds its pairs without building its tree; queries the grid
    // cannot answer (a ray with a zero direction, an inverted box) must still see every object.
    let mut phase = DynamicTree::<Aabb3>::new();
    for id in 0..100u32 {
        let c = Vec3::new(id as f32, 0.0, 0.0);
        phase.insert(id, Aabb3::from_center_half_extents(c, Vec3::splat(0.75))).unwrap();
    }
    phase.find_pairs(&mut PairEvents::default());
    let mut out = Vec::new();
    phase.query_ray(&Ray3::new(Vec3::new(10.5, 0.0, 0.0), Vec3::ZERO), 1.0, &mut out);
    assert_eq!(out, [10, 11]);
    let inverted = Aabb3::new(Vec3::new(5.0, 1.0, 1.0), Vec3::new(4.0, -1.0, -1.0));
    let mut expected = Vec::new();
    let mut reference = BruteForce::<Aabb3>::new();
    for id in 0..100u32 {
        reference.insert(id, phase.bounds(id).unwrap()).unwrap();
    }
    reference.query_box(&inverted, &mut expected);
    phase.query_box(&inverted, &mut out);
    assert_eq!(out, expected);
}

#[test]
fn spatial_hash_rays_walk_the_cells_they_cross() {
    // Long rays through a large sparse grid, far from the origin, with unfattened boxes (margin
    // 0, so a box touching a cell face is bucketed on one side only), many rays along cell faces
    // and some barely moving: the cell walk must find exactly what a scan finds, and visit a
    // small part of the grid doing it.
    fn check<B: TestBounds + 'static>(ray: impl Fn([f32; 3], [f32; 3]) -> B::Ray, dim: usize) {
        let mut rng = rng(31);
        let offset = 10_000.0;
        let mut phase = SpatialHash::<B>::with_settings(HashSettings {
            cell_size: Some(0.7),
            margin: 0.0,
            max_cells_per_object: 64,
        });
        let mut reference = BruteForce::<B>::new();
        let n = 4000u32;
        for id in 0..n {
            // Centers and half extents on a grid of half cells: faces often lie on cell faces,
            // up to rounding (0.7 has no exact float).
            let c = [(); 3].map(|_| offset + (rng.random_range(-200i32..=200) as f32) * 0.35);
            let h = [(); 3].map(|_| rng.random_range(0..=4) as f32 * 0.35);
            let b = B::random_box(&mut rng, c, h);
            phase.insert(id, b).unwrap();
            reference.insert(id, b).unwrap();
        }
        phase.find_pairs(&mut PairEvents::default());
        let (mut out, mut expected) = (Vec::new(), Vec::new());
        let mut tested = 0u64;
        let rays = cases(10_000);
        for _ in 0..rays {
            let o = [(); 3].map(|_| offset + (rng.random_range(-240i32..=240) as f32) * 0.35);
            let d = if rng.random_bool(0.02) {
                // Barely moving, down to subnormal speeds.
                [(); 3].map(|_| [0.0, 1e-30, -1e-39, 1e-20][rng.random_range(0..4)])
            } else if rng.random_bool(0.5) {
                // Along axes and diagonals, from points on cell faces and edges.
                [(); 3].map(|_| rng.random_range(-1i32..=1) as f32 * 37.0)
            } else {
                [(); 3].map(|_| rng.random_range(-50.0..50.0))
            };
            let max_t = [1.0, 2.5, f32::INFINITY][rng.random_range(0..3)];
            let r = ray(o, d);
            tested += u64::from(phase.query_ray(&r, max_t, &mut out).tested);
            reference.query_ray(&r, max_t, &mut expected);
            assert_eq!(out, expected, "{dim}D ray {o:?} {d:?} up to {max_t}");
        }
        // A scan would test every object for every ray.
        let mean = tested as f64 / rays as f64;
        assert!(mean < f64::from(n) / 4.0, "{dim}D: {mean} boxes tested per ray of {n}");
    }
    check::<Aabb3>(|o, d| Ray3::new(Vec3::from(o), Vec3::from(d)), 3);
    check::<Aabb2>(|o, d| Ray2::new(Vec2::new(o[0], o[1]), Vec2::new(d[0], d[1])), 2);
}
