//! The world against a brute-force model (`kollide_testkit::reference_world::ModelWorld`): seeded
//! random sequences of edits (insert, remove, `set_placement`, `set_motion`, `set_filter` with
//! layers and positive and negative groups, `set_user_data`, the pair rule switched on and off,
//! edits through stale handles) and steps, on mixed scenes: convex shapes of every kind,
//! compounds, shared meshes (open and closed, convex and concave) under affine maps, sphere
//! sets, some sensors and some fixed colliders.
//!
//! The model tests every pair with the exact `query::intersects` every step, with the world's
//! rules written out again. After every step the world must give:
//!
//! - the same touching pairs, and the same events as a set (kinds included, no repeats; the
//!   pairs of a removed collider end at the next step, under its stale handle);
//! - the events in the documented order: the pairs dropped from the candidates (a collider
//!   removed, a filter or the pair rule now against it) first, then the pairs whose contact
//!   changed, each group in slot order;
//! - contacts of exactly the touching non-sensor pairs (and, with a prediction distance, pairs
//!   within it), in slot order, with unit manifold normals;
//! - the same colliders (handles, placements, filters, user data);
//!
//! and between the edits and the next step, the latest step's touching pairs and contacts
//! without those of removed colliders.
//!
//! Settings vary by sequence (prediction distances, lookahead), always with
//! `reuse_distance = 0`, where answers are exact. Moves mix small nudges (translations, turns,
//! changes of size), jumps, repeated placements and velocities; some removals free slots that
//! insertions reuse before the next step.
//!
//! Other tests: two worlds given the same edits on dense scenes (above 64 candidate pairs, where
//! the narrow phase runs on threads with `parallel`) give the same events in the same order and
//! the same manifolds bit for bit; every broad phase gives the same steps and scene query
//! answers; with `reuse_distance > 0`, every difference from the model is explained by an
//! earlier step within the distance.
//!
//! Inputs avoid the known degenerate cases of the convex narrow phase (issue 30: boxes resting
//! on boxes nearly axis-aligned, zero-height cones): rotations are random, shapes at least 0.2
//! across. Two library failures outside the world remain (issue 30's zero normals from EPA, and
//! convex-mesh manifolds that lose a penetrating contact): they are counted, printed, capped at
//! one in a thousand, and reproduced by `#[ignore]`d tests at the end of this file.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use glam::Vec3;
use kollide::query::{self, Shape};
use kollide::world::{
    Collider3, ColliderDesc3, ColliderHandle, CollisionEvent, CollisionFilter, EventKind, World3, WorldError,
    WorldSettings,
};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_world::{
    ModelCollider, ModelPairRule, ModelWorld, SceneMix, SceneRoles, event_set, nudged, random_desc,
    random_filter, random_placement,
};
use rand::Rng;

/// Sequences of the main test, and steps in each.
const SEQUENCES: usize = 100;
const STEPS: usize = 200;

// ---------------------------------------------------------------------------------------------
// Pair rules: the world's closures and the model's mirrors

/// The pair rules a sequence switches between: asymmetric in A and B (so a call with the
/// operands swapped would show), on user data and slots.
fn rule_allows(rule: usize, a: ColliderHandle, a_data: u64, b: ColliderHandle, b_data: u64) -> bool {
    match rule {
        1 => (3 * a_data + b_data) % 5 != 0,
        _ => (a.index() + 2 * b.index()) % 7 != 0 || b_data > 8,
    }
}

/// The world's closure for `rule`; it counts calls with A's slot not below B's.
fn world_rule(
    rule: usize,
    misordered: Arc<AtomicUsize>,
) -> Box<dyn kollide::world::PairFilter<kollide::world::Dim3>> {
    Box::new(move |a: ColliderHandle, ca: &Collider3, b: ColliderHandle, cb: &Collider3| {
        if a.index() >= b.index() {
            misordered.fetch_add(1, Ordering::Relaxed);
        }
        rule_allows(rule, a, ca.user_data(), b, cb.user_data())
    })
}

fn model_rule(rule: usize) -> ModelPairRule {
    Box::new(move |a, ca: &ModelCollider, b, cb: &ModelCollider| {
        rule_allows(rule, a, ca.user_data, b, cb.user_data)
    })
}

// ---------------------------------------------------------------------------------------------
// The driver: the same edits on the world and the model

#[derive(Default, Debug)]
struct Counts {
    steps: usize,
    touching: usize,
    /// Events by kind: contact began, ended, sensor began, ended.
    events: [usize; 4],
    /// Ended events of pairs whose collider was removed, or that a filter or rule dropped.
    dropped: usize,
    contacts: usize,
    /// Contacts within the prediction distance that do not touch.
    predicted: usize,
    manifolds: usize,
    /// Touching non-sensor pairs without a manifold, within rounding of grazing.
    grazing_without_manifold: usize,
    /// Touching non-sensor pairs with a mesh, penetrating, without a manifold (a known library
    /// failure, see `convex_against_mesh_manifolds_keep_a_penetrating_contact`).
    mesh_manifold_lost: usize,
    stale_edits: usize,
    /// Replacements whose new collider took the old one's slot.
    slot_reuses: usize,
    rule_steps: usize,
    inserts: usize,
    removes: usize,
    moves: usize,
    filter_edits: usize,
    max_pairs: usize,
    /// Manifolds with a zero normal from a penetrating convex pair (issue 30).
    issue_30: usize,
    /// Pair answers within rounding of touching where the world and the model differ.
    borderline: usize,
}

/// A second world given the same edits (its handles have another world's tag: mapped).
struct Twin {
    world: World3,
    handles: HashMap<ColliderHandle, ColliderHandle>,
    misordered: Arc<AtomicUsize>,
}

/// How colliders move between steps.
#[derive(Clone, Copy, Debug)]
struct Motion {
    /// The chance that a moving (a fixed) collider moves in a step.
    moving: f64,
    fixed: f64,
    /// Per-axis shift and turn (radians) of a small nudge, and the share of jumps elsewhere.
    shift: f32,
    turn: f32,
    jumps: f64,
    /// The largest relative change of size of a nudge (one nudge in four), about the placement's
    /// origin.
    rescale: f32,
}

impl Motion {
    const DEFAULT: Self =
        Self { moving: 0.3, fixed: 0.02, shift: 0.12, turn: 0.15, jumps: 0.05, rescale: 0.15 };
}

struct Driver {
    world: World3,
    twin: Option<Twin>,
    motion: Motion,
    model: ModelWorld,
    rng: TestRng,
    half: f32,
    mix: SceneMix,
    roles: SceneRoles,
    min_len: usize,
    max_len: usize,
    removed: Vec<ColliderHandle>,
    misordered: Arc<AtomicUsize>,
    /// The rule in force (0: none), and whether this sequence switches rules.
    rule: usize,
    rules: bool,
    /// What the latest edits were, for failure messages.
    log: Vec<String>,
    counts: Counts,
}

impl Driver {
    fn new(seed: u64, settings: WorldSettings, len: usize, rules: bool) -> Self {
        Driver {
            world: World3::with_settings(settings),
            twin: None,
            motion: Motion::DEFAULT,
            model: ModelWorld::new(),
            rng: random::rng(seed),
            // About half an object's volume of free space per object: a few contacts each.
            half: 0.8 * (len as f32).cbrt(),
            mix: SceneMix::SOLIDS,
            roles: SceneRoles { sensor: 0.12, fixed: 0.15 },
            min_len: len / 2,
            max_len: len + len / 2,
            removed: Vec::new(),
            misordered: Arc::new(AtomicUsize::new(0)),
            rule: 0,
            rules,
            log: Vec::new(),
            counts: Counts::default(),
        }
    }

    /// Gives a twin world the same edits from now on (call before any edit).
    fn with_twin(mut self) -> Self {
        assert!(self.model.is_empty());
        let settings = *self.world.settings();
        self.twin = Some(Twin {
            world: World3::with_settings(settings),
            handles: HashMap::new(),
            misordered: Arc::new(AtomicUsize::new(0)),
        });
        self
    }

    fn populate(&mut self, len: usize) {
        for _ in 0..len {
            self.insert();
        }
        if self.rules {
            self.set_rule(1);
        }
    }

    fn handles(&self) -> Vec<ColliderHandle> {
        self.model.handles()
    }

    fn pick(&mut self) -> Option<ColliderHandle> {
        let handles = self.handles();
        (!handles.is_empty()).then(|| handles[self.rng.random_range(0..handles.len())])
    }

    fn insert(&mut self) {
        let desc = random_desc(&mut self.rng, self.mix, self.roles, self.half);
        let h = self.world.insert(desc.clone()).expect("a valid collider");
        self.model.insert(h, &desc);
        self.twin_insert(h, &desc);
        self.log.push(format!("insert {h:?}: {:?} at {:?}", desc.shape, desc.placement));
        self.counts.inserts += 1;
    }

    fn twin_insert(&mut self, h: ColliderHandle, desc: &ColliderDesc3) {
        if let Some(t) = &mut self.twin {
            let th = t.world.insert(desc.clone()).expect("a valid collider");
            assert_eq!((th.index(), th.generation()), (h.index(), h.generation()));
            t.handles.insert(h, th);
        }
    }

    /// Runs an edit on the twin with its handle for `h`.
    fn on_twin(&mut self, h: ColliderHandle, edit: impl FnOnce(&mut World3, ColliderHandle)) {
        if let Some(t) = &mut self.twin {
            edit(&mut t.world, t.handles[&h]);
        }
    }

    fn remove(&mut self, h: ColliderHandle) {
        let c = self.world.remove(h).expect("a live collider");
        assert_eq!(c.placement(), &self.model.get(h).unwrap().placement);
        self.model.remove(h);
        self.on_twin(h, |w, th| {
            w.remove(th).unwrap();
        });
        self.removed.push(h);
        self.log.push(format!("remove {h:?}"));
        self.counts.removes += 1;
    }

    /// Removes a collider and inserts another where it was: the new one takes the freed slot
    /// (and likely the old one's contacts) under a new generation.
    fn replace(&mut self) {
        let Some(h) = self.pick() else { return };
        let old = self.model.get(h).unwrap().clone();
        self.remove(h);
        let mut desc = random_desc(&mut self.rng, self.mix, self.roles, self.half);
        if self.rng.random_bool(0.5) {
            desc.shape = old.shape;
        }
        desc.placement = old.placement;
        let new = self.world.insert(desc.clone()).expect("a valid collider");
        self.model.insert(new, &desc);
        self.twin_insert(new, &desc);
        self.log.push(format!("replace {h:?} by {new:?}: {:?}", desc.shape));
        if new.index() == h.index() {
            self.counts.slot_reuses += 1;
        }
    }

    fn set_rule(&mut self, rule: usize) {
        self.rule = rule;
        if rule == 0 {
            self.world.set_pair_filter(None);
            self.model.set_pair_rule(None);
        } else {
            self.world.set_pair_filter(Some(world_rule(rule, self.misordered.clone())));
            self.model.set_pair_rule(Some(model_rule(rule)));
        }
        if let Some(t) = &mut self.twin {
            t.world.set_pair_filter((rule != 0).then(|| world_rule(rule, t.misordered.clone())));
        }
        self.log.push(format!("pair rule {rule}"));
    }

    /// Moves a collider: a nudge (teleport or with a velocity), a jump elsewhere, or the same
    /// placement again.
    fn move_collider(&mut self, h: ColliderHandle) {
        let old = self.model.get(h).unwrap().placement;
        let m = self.motion;
        let placement = match self.rng.random_range(0.0..1.0) {
            x if x < m.jumps => random_placement(&mut self.rng, self.half),
            x if x < m.jumps + 0.05 => old,
            x if x < m.jumps + 0.25 => nudged(&mut self.rng, &old, 4.0 * m.shift, 4.0 * m.turn, self.half),
            _ => nudged(&mut self.rng, &old, m.shift, m.turn, self.half),
        };
        let mut placement = placement;
        if m.rescale > 0.0 && self.rng.random_bool(0.25) {
            // Grow or shrink, back towards unit size when far from it.
            let size = placement.matrix3.determinant().abs().cbrt();
            let (lo, hi) = match size {
                s if s > 1.5 => (1.0 - m.rescale, 1.0),
                s if s < 0.4 => (1.0, 1.0 + m.rescale),
                _ => (1.0 - m.rescale, 1.0 + m.rescale),
            };
            placement.matrix3 *= self.rng.random_range(lo..hi);
        }
        if self.rng.random_bool(0.5) {
            let velocity =
                if self.rng.random_bool(0.1) { Vec3::ZERO } else { random::point3(&mut self.rng, 6.0) };
            self.world.set_motion(h, placement, velocity).expect("a valid motion");
            assert_eq!(self.world.collider(h).unwrap().velocity(), Some(velocity));
            self.on_twin(h, |w, th| w.set_motion(th, placement, velocity).unwrap());
            self.log.push(format!("set_motion {h:?} {placement:?} {velocity}"));
        } else {
            self.world.set_placement(h, placement).expect("a valid placement");
            assert_eq!(self.world.collider(h).unwrap().velocity(), None);
            self.on_twin(h, |w, th| w.set_placement(th, placement).unwrap());
            self.log.push(format!("set_placement {h:?} {placement:?}"));
        }
        self.model.set_placement(h, placement);
        self.counts.moves += 1;
    }

    /// An edit through a removed collider's handle: refused, nothing changes.
    fn stale_edit(&mut self) {
        let Some(&h) = self.removed.get(self.rng.random_range(0..self.removed.len().max(1))) else { return };
        let placement = random_placement(&mut self.rng, self.half);
        let result = match self.rng.random_range(0..5) {
            0 => self.world.set_placement(h, placement),
            1 => self.world.set_motion(h, placement, Vec3::X),
            2 => self.world.set_filter(h, CollisionFilter::NONE),
            3 => self.world.set_user_data(h, 99),
            _ => self.world.remove(h).map(|_| ()),
        };
        assert_eq!(result, Err(WorldError::StaleHandle(h)));
        assert!(!self.world.contains(h));
        self.on_twin(h, |w, th| assert_eq!(w.set_placement(th, placement), Err(WorldError::StaleHandle(th))));
        self.counts.stale_edits += 1;
    }

    /// The edits between two steps.
    fn edit(&mut self) {
        self.log.clear();
        let handles = self.handles();
        for &h in &handles {
            let fixed = self.model.get(h).unwrap().fixed;
            if self.rng.random_bool(if fixed { self.motion.fixed } else { self.motion.moving }) {
                self.move_collider(h);
            }
        }
        // Removals before insertions half of the time, so that freed slots are reused before the
        // next step (the pairs of the slot's old collider must end, the new one's begin).
        let removes_first = self.rng.random_bool(0.5);
        for pass in 0..2 {
            if (pass == 0) == removes_first {
                if self.rng.random_bool(0.15) && self.model.len() > self.min_len {
                    for _ in 0..self.rng.random_range(1..=2) {
                        let h = self.pick().unwrap();
                        self.remove(h);
                    }
                }
            } else if self.rng.random_bool(0.15) && self.model.len() < self.max_len {
                for _ in 0..self.rng.random_range(1..=2) {
                    self.insert();
                }
            }
        }
        if self.rng.random_bool(0.08) {
            self.replace();
        }
        if self.rng.random_bool(0.1) {
            let h = self.pick().unwrap();
            let filter =
                if self.rng.random_bool(0.3) { CollisionFilter::ALL } else { random_filter(&mut self.rng) };
            self.world.set_filter(h, filter).unwrap();
            self.model.set_filter(h, filter);
            self.on_twin(h, |w, th| w.set_filter(th, filter).unwrap());
            self.log.push(format!("set_filter {h:?} {filter:?}"));
            self.counts.filter_edits += 1;
        }
        if self.rng.random_bool(0.1) {
            let h = self.pick().unwrap();
            let data = self.rng.random_range(0..16);
            self.world.set_user_data(h, data).unwrap();
            self.model.set_user_data(h, data);
            self.on_twin(h, |w, th| w.set_user_data(th, data).unwrap());
            self.log.push(format!("set_user_data {h:?} {data}"));
        }
        if self.rules && self.rng.random_bool(0.04) {
            let rule = self.rng.random_range(0..3);
            self.set_rule(rule);
        }
        if self.rng.random_bool(0.03) {
            self.stale_edit();
        }
    }

    fn step(&mut self) {
        self.world.step();
        self.model.step();
        if let Some(t) = &mut self.twin {
            t.world.step();
        }
        self.counts.steps += 1;
        if self.rule != 0 {
            self.counts.rule_steps += 1;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The checks after a step

/// Known library failures printed so far (the first few are printed in full).
static PRINTED: AtomicUsize = AtomicUsize::new(0);

/// Whether the shape is a mesh or a compound with a mesh child.
fn has_mesh(shape: &Shape) -> bool {
    match shape {
        Shape::Mesh(_) => true,
        Shape::Compound(c) => c.children().iter().any(|(child, _)| has_mesh(child)),
        _ => false,
    }
}

fn key(a: ColliderHandle, b: ColliderHandle) -> (u32, u32) {
    (a.index(), b.index())
}

fn is_ended(kind: EventKind) -> bool {
    matches!(kind, EventKind::ContactEnded | EventKind::SensorEnded)
}

/// Whether the events are in the documented order: a split into the dropped pairs (ended
/// events only, slot order) and the changed pairs (slot order), with the events that must be in
/// each group (`first`, `second`) on their side.
fn in_documented_order(events: &[CollisionEvent], first: &[usize], second: &[usize]) -> bool {
    let ascending = |s: &[CollisionEvent]| s.windows(2).all(|w| key(w[0].a, w[0].b) < key(w[1].a, w[1].b));
    (0..=events.len()).any(|k| {
        let (head, tail) = events.split_at(k);
        ascending(head)
            && ascending(tail)
            && head.iter().all(|e| is_ended(e.kind))
            && first.iter().all(|&i| i < k)
            && second.iter().all(|&i| i >= k)
    })
}

/// Whether the pair is within rounding of touching: its exact contact (the query layer without
/// a cache) has a separation of at most `1e-5` of the scene's scale either way. There the world's
/// warm-started GJK and the model's cold one may answer differently, both within `f32`
/// accuracy. Found at ten times the default cases (sequence 315 of
/// `steps_equal_the_brute_force_model`, step 96): a cylinder and a rounded cuboid 7.3e-6 apart
/// (the `f64` reference distance), which `query::intersects` calls touching and
/// `intersects_cached`, warm from the previous step, not.
fn borderline(d: &Driver, a: ColliderHandle, b: ColliderHandle) -> bool {
    let (Some(ca), Some(cb)) = (d.model.get(a), d.model.get(b)) else { return false };
    let reach = |h: ColliderHandle| {
        let bounds = d.world.collider(h).unwrap().bounds();
        bounds.min.abs().max(bounds.max.abs()).max_element()
    };
    let tol = 1e-5 * (1.0 + reach(a).max(reach(b)));
    query::contact(&ca.shape, &ca.placement, &cb.shape, &cb.placement, tol)
        .ok()
        .flatten()
        .is_some_and(|c| c.separation.abs() <= tol)
}

/// Compares the touching pairs; where they differ only on borderline pairs, the model takes
/// the world's answers (counted and printed, capped by the test).
fn accept_borderline(d: &mut Driver) -> Result<(), String> {
    let touching: Vec<_> = d.world.touching_pairs().collect();
    let expected = d.model.touching_pairs();
    if touching == expected {
        return Ok(());
    }
    let extra: Vec<_> = touching.iter().filter(|p| !expected.contains(p)).copied().collect();
    let missing: Vec<_> = expected.iter().filter(|p| !touching.contains(p)).copied().collect();
    if let Some(&(a, b)) = extra.iter().chain(&missing).find(|&&(a, b)| !borderline(d, a, b)) {
        let (ca, cb) = (d.model.get(a).unwrap(), d.model.get(b).unwrap());
        return Err(format!(
            "touching pairs: extra {extra:?}, missing {missing:?}\n  A = {:?} at {:?}\n  B = {:?} at {:?}",
            ca.shape, ca.placement, cb.shape, cb.placement
        ));
    }
    for (&(a, b), touches) in extra.iter().map(|p| (p, true)).chain(missing.iter().map(|p| (p, false))) {
        if PRINTED.fetch_add(1, Ordering::Relaxed) < 3 {
            let (ca, cb) = (d.model.get(a).unwrap(), d.model.get(b).unwrap());
            println!(
                "borderline pair: world touching {touches}, model not\n  A = {:?} at {:?}\n  B = {:?} at {:?}",
                ca.shape, ca.placement, cb.shape, cb.placement
            );
        }
        d.model.accept(a, b, touches);
        d.counts.borderline += 1;
    }
    Ok(())
}

/// The world against the model after a step; `Err` describes the first difference.
fn check_step(d: &mut Driver) -> Result<(), String> {
    accept_borderline(d)?;
    let (world, model) = (&d.world, &d.model);
    let settings = *world.settings();
    // The colliders.
    if world.len() != model.len() {
        return Err(format!("len {} vs model {}", world.len(), model.len()));
    }
    let handles: Vec<ColliderHandle> = world.colliders().map(|(h, _)| h).collect();
    if handles != model.handles() {
        return Err(format!("handles {handles:?} vs model {:?}", model.handles()));
    }
    for (h, c) in world.colliders() {
        let m = model.get(h).unwrap();
        if c.placement() != &m.placement || c.filter() != m.filter || c.user_data() != m.user_data {
            return Err(format!("collider {h:?} differs from the model"));
        }
        if c.is_sensor() != m.sensor || c.is_fixed() != m.fixed {
            return Err(format!("collider {h:?}: roles differ from the model"));
        }
    }
    // Touching pairs.
    let touching: Vec<_> = world.touching_pairs().collect();
    let expected = model.touching_pairs();
    if touching != expected {
        let extra: Vec<_> = touching.iter().filter(|p| !expected.contains(p)).collect();
        let missing: Vec<_> = expected.iter().filter(|p| !touching.contains(p)).collect();
        return Err(format!("touching pairs: extra {extra:?}, missing {missing:?}"));
    }
    d.counts.touching += touching.len();
    // Events as sets.
    let (events, repeats) = event_set(world.events());
    if repeats {
        return Err(format!("repeated events: {:?}", world.events()));
    }
    if events != model.events() {
        let extra: Vec<_> = events.iter().filter(|e| !model.events().contains(e)).collect();
        let missing: Vec<_> = model.events().iter().filter(|e| !events.contains(e)).collect();
        return Err(format!("events: extra {extra:?}, missing {missing:?}"));
    }
    // Events in order: the dropped pairs (a collider gone, a rule against the pair) first, the
    // pairs still candidates (live, allowed, tight boxes overlapping) after.
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for (i, e) in world.events().iter().enumerate() {
        if e.a.index() >= e.b.index() {
            return Err(format!("event {e:?}: A's slot is not below B's"));
        }
        d.counts.events[match e.kind {
            EventKind::ContactBegan => 0,
            EventKind::ContactEnded => 1,
            EventKind::SensorBegan => 2,
            EventKind::SensorEnded => 3,
        }] += 1;
        let live = model.contains(e.a) && model.contains(e.b);
        if !live || !model.allowed(e.a, e.b) {
            first.push(i);
            d.counts.dropped += 1;
        } else if !is_ended(e.kind)
            || world.collider(e.a).unwrap().bounds().overlaps(world.collider(e.b).unwrap().bounds())
        {
            second.push(i);
        }
    }
    if !in_documented_order(world.events(), &first, &second) {
        return Err(format!(
            "events out of the documented order: {:?} (dropped {first:?}, candidates {second:?})",
            world.events()
        ));
    }
    // Contacts: the touching non-sensor pairs, and with a prediction distance pairs within it.
    let mut contact_pairs = BTreeSet::new();
    let mut last = None;
    for c in world.contacts() {
        d.counts.contacts += 1;
        if last.is_some_and(|k| k >= key(c.a, c.b)) {
            return Err(format!("contacts out of slot order at {:?}", (c.a, c.b)));
        }
        last = Some(key(c.a, c.b));
        let (Some(ca), Some(cb)) = (model.get(c.a), model.get(c.b)) else {
            return Err(format!("contact {:?} of a removed collider", (c.a, c.b)));
        };
        if ca.sensor || cb.sensor {
            return Err(format!("contact {:?} with a sensor", (c.a, c.b)));
        }
        let model_touching = model.touching(c.a, c.b).is_some();
        if c.touching != model_touching {
            return Err(format!(
                "contact {:?}: touching {} vs model {model_touching}",
                (c.a, c.b),
                c.touching
            ));
        }
        if c.touching {
            contact_pairs.insert((c.a, c.b));
            if c.manifolds.is_empty() {
                // A touching pair without a manifold: allowed only within rounding of grazing,
                // and (a known library failure) for a convex shape against a mesh.
                let depth = query::contact(&ca.shape, &ca.placement, &cb.shape, &cb.placement, 0.0)
                    .unwrap()
                    .map_or(0.0, |contact| -contact.separation);
                if depth <= 1e-4 {
                    d.counts.grazing_without_manifold += 1;
                } else if has_mesh(&ca.shape) || has_mesh(&cb.shape) {
                    d.counts.mesh_manifold_lost += 1;
                    if PRINTED.fetch_add(1, Ordering::Relaxed) < 3 {
                        println!(
                            "known (convex-mesh manifolds lost, see `convex_against_mesh_manifolds_keep_a_penetrating_contact`): \
                             depth {depth}, no manifold\n  A = {:?} placed by {:?}\n  B = {:?} placed by {:?}",
                            ca.shape, ca.placement, cb.shape, cb.placement
                        );
                    }
                } else {
                    return Err(format!(
                        "contact {:?}: touching {depth} deep without a manifold",
                        (c.a, c.b)
                    ));
                }
            }
        } else {
            d.counts.predicted += 1;
            if settings.prediction <= 0.0 || c.manifolds.is_empty() {
                return Err(format!("contact {:?} neither touching nor predicted", (c.a, c.b)));
            }
            let distance = query::distance(&ca.shape, &ca.placement, &cb.shape, &cb.placement).unwrap();
            if distance > settings.prediction * 1.01 + 1e-4 {
                return Err(format!(
                    "predicted contact {:?} at distance {distance}, prediction {}",
                    (c.a, c.b),
                    settings.prediction
                ));
            }
        }
        for m in c.manifolds {
            d.counts.manifolds += 1;
            let n = m.manifold.normal;
            let points = m.manifold.points();
            if n == Vec3::ZERO && points.iter().all(|p| p.separation <= 0.0) {
                // Issue 30: EPA gave up on a penetrating convex pair (here a convex shape and a
                // mesh triangle); see `issue_30_cone_against_a_mesh_triangle_gets_a_unit_normal`.
                d.counts.issue_30 += 1;
                if PRINTED.fetch_add(1, Ordering::Relaxed) < 3 {
                    println!(
                        "issue 30 (zero normal of a penetrating pair): {m:?}\n  A = {:?} placed by {:?}\n  B = {:?} placed by {:?}",
                        ca.shape, ca.placement, cb.shape, cb.placement
                    );
                }
                continue;
            }
            if !((n.length() - 1.0).abs() < 1e-3) {
                return Err(format!(
                    "contact {:?}: normal {n} is not unit: {m:?}\n  A = {:?} placed by {:?}\n  B = {:?} placed by {:?}",
                    (c.a, c.b),
                    ca.shape,
                    ca.placement,
                    cb.shape,
                    cb.placement
                ));
            }
            if points.is_empty() || points.len() > 4 || points.iter().any(|p| !p.separation.is_finite()) {
                return Err(format!("contact {:?}: manifold {m:?}", (c.a, c.b)));
            }
            if points.iter().all(|p| p.separation > settings.prediction + 1e-3) {
                return Err(format!("contact {:?}: every point beyond the prediction: {m:?}", (c.a, c.b)));
            }
        }
    }
    let expected: BTreeSet<_> =
        model.touching_pairs().into_iter().filter(|&(a, b)| model.touching(a, b) == Some(false)).collect();
    if contact_pairs != expected {
        return Err(format!(
            "touching contacts: extra {:?}, missing {:?}",
            contact_pairs.difference(&expected).collect::<Vec<_>>(),
            expected.difference(&contact_pairs).collect::<Vec<_>>()
        ));
    }
    // `contacts_of` is `contacts` with one collider.
    if let Some(&h) = handles.first() {
        let of: Vec<_> = world.contacts_of(h).map(|c| (c.a, c.b)).collect();
        let all: Vec<_> = world.contacts().filter(|c| c.a == h || c.b == h).map(|c| (c.a, c.b)).collect();
        if of != all {
            return Err(format!("contacts_of {h:?}: {of:?} vs {all:?}"));
        }
    }
    if d.misordered.load(Ordering::Relaxed) > 0 {
        return Err("the pair rule was called with A's slot not below B's".into());
    }
    Ok(())
}

/// Between edits and the next step: the touching pairs and contacts are the latest step's,
/// without the pairs of removed colliders.
fn check_between(d: &Driver) -> Result<(), String> {
    let touching: Vec<_> = d.world.touching_pairs().collect();
    if touching != d.model.touching_pairs() {
        return Err(format!("touching pairs {touching:?} vs model {:?}", d.model.touching_pairs()));
    }
    for c in d.world.contacts() {
        if !(d.model.contains(c.a) && d.model.contains(c.b)) {
            return Err(format!("contact {:?} of a removed collider", (c.a, c.b)));
        }
        if c.touching && d.model.touching(c.a, c.b) != Some(false) {
            return Err(format!(
                "contact {:?} not a touching non-sensor pair of the latest step",
                (c.a, c.b)
            ));
        }
    }
    if d.world.len() != d.model.len() {
        return Err(format!("len {} vs model {}", d.world.len(), d.model.len()));
    }
    Ok(())
}

/// Runs one sequence; panics with a reproduction on the first difference.
fn run_sequence(seq: usize, settings: WorldSettings, steps: usize, total: &mut Counts) {
    let mut rng = random::rng(0x776f_726c_6400_0000 + seq as u64);
    let len = rng.random_range(10..=28);
    let rules = seq % 3 == 1;
    let mut d = Driver::new(rng.random(), settings, len, rules);
    d.populate(len);
    for step in 0..steps {
        if step > 0 {
            d.edit();
            if let Err(what) = check_between(&d) {
                panic!(
                    "sequence {seq} (settings {settings:?}), after the edits before step {step}: {what}\n  edits:\n    {}",
                    d.log.join("\n    ")
                );
            }
        }
        d.step();
        if let Err(what) = check_step(&mut d) {
            panic!(
                "sequence {seq} (settings {settings:?}), step {step}: {what}\n  edits before the step:\n    {}",
                d.log.join("\n    ")
            );
        }
        d.counts.max_pairs = d.counts.max_pairs.max(d.world.touching_pairs().count());
    }
    let c = &d.counts;
    for (field, value) in [
        (&mut total.steps, c.steps),
        (&mut total.touching, c.touching),
        (&mut total.dropped, c.dropped),
        (&mut total.contacts, c.contacts),
        (&mut total.predicted, c.predicted),
        (&mut total.manifolds, c.manifolds),
        (&mut total.grazing_without_manifold, c.grazing_without_manifold),
        (&mut total.mesh_manifold_lost, c.mesh_manifold_lost),
        (&mut total.stale_edits, c.stale_edits),
        (&mut total.slot_reuses, c.slot_reuses),
        (&mut total.rule_steps, c.rule_steps),
        (&mut total.inserts, c.inserts),
        (&mut total.removes, c.removes),
        (&mut total.moves, c.moves),
        (&mut total.filter_edits, c.filter_edits),
        (&mut total.issue_30, c.issue_30),
        (&mut total.borderline, c.borderline),
    ] {
        *field += value;
    }
    for i in 0..4 {
        total.events[i] += c.events[i];
    }
    total.max_pairs = total.max_pairs.max(c.max_pairs);
}

/// The settings of sequence `seq`: default, prediction distances, lookaheads; reuse always 0.
fn settings_of(seq: usize) -> WorldSettings {
    match seq % 4 {
        0 => WorldSettings::default(),
        1 => WorldSettings { prediction: 0.05, ..WorldSettings::default() },
        2 => WorldSettings { lookahead: 0.3, reuse_distance: 0.0, ..WorldSettings::default() },
        _ => WorldSettings { prediction: 0.2, lookahead: 0.0, reuse_distance: 0.0 },
    }
}

#[test]
fn steps_equal_the_brute_force_model() {
    let start = Instant::now();
    let mut total = Counts::default();
    let sequences = kollide_testkit::cases(SEQUENCES);
    for seq in 0..sequences {
        run_sequence(seq, settings_of(seq), STEPS, &mut total);
    }
    println!("{sequences} sequences of {STEPS} steps in {:.1?}: {total:?}", start.elapsed());
    // Known library failures: counted, printed above, capped at one in a thousand manifolds.
    assert!(total.issue_30 * 1000 <= total.manifolds.max(1000), "issue 30 more often than known: {total:?}");
    assert!(
        total.borderline * 10_000 <= total.touching.max(10_000),
        "borderline more often than rounding explains: {total:?}"
    );
    assert!(
        total.mesh_manifold_lost * 1000 <= total.contacts.max(1000),
        "convex-mesh manifolds lost more often than known: {total:?}"
    );
    // Not vacuous: every kind of event, drops, predicted contacts, manifolds.
    assert!(total.events.iter().all(|&n| n > 0), "{total:?}");
    assert!(total.dropped > 0 && total.predicted > 0 && total.manifolds > 0, "{total:?}");
    assert!(total.stale_edits > 0 && total.rule_steps > 0 && total.filter_edits > 0, "{total:?}");
    assert!(total.slot_reuses > 0 && total.removes > 0 && total.inserts > 0, "{total:?}");
}

// ---------------------------------------------------------------------------------------------
// Determinism

/// Compares the twin world's latest step with the world's: events in order, contacts with their
/// manifolds bit for bit, touching pairs (handles by slot and generation: the twin's carry
/// another world's tag).
fn compare_twin(d: &Driver) -> Result<(), String> {
    let t = d.twin.as_ref().expect("a twin");
    let id = |h: ColliderHandle| (h.index(), h.generation());
    let events = |w: &World3| w.events().iter().map(|e| (id(e.a), id(e.b), e.kind)).collect::<Vec<_>>();
    if events(&d.world) != events(&t.world) {
        return Err(format!("events differ:\n  {:?}\n  {:?}", events(&d.world), events(&t.world)));
    }
    let contacts = |w: &World3| {
        w.contacts().map(|c| (id(c.a), id(c.b), c.touching, format!("{:?}", c.manifolds))).collect::<Vec<_>>()
    };
    if contacts(&d.world) != contacts(&t.world) {
        return Err("contacts or manifolds differ".into());
    }
    let touching = |w: &World3| w.touching_pairs().map(|(a, b)| (id(a), id(b))).collect::<Vec<_>>();
    if touching(&d.world) != touching(&t.world) {
        return Err("touching pairs differ".into());
    }
    Ok(())
}

/// A lower bound of the world's candidate pairs: the live pairs the rules allow whose tight
/// boxes overlap (the broad phase's boxes contain the tight ones).
fn candidate_pairs(d: &Driver) -> usize {
    let handles = d.model.handles();
    let mut n = 0;
    for (i, &a) in handles.iter().enumerate() {
        for &b in &handles[i + 1..] {
            let (ba, bb) = (d.world.collider(a).unwrap().bounds(), d.world.collider(b).unwrap().bounds());
            n += usize::from(ba.overlaps(bb) && d.model.allowed(a, b));
        }
    }
    n
}

/// Two worlds given the same edits give the same events in the same order, and the same
/// contacts bit for bit, step after step, on dense scenes of about 60 colliders with well above
/// 64 candidate pairs: where the narrow phase runs on rayon's threads with `parallel` (thread
/// scheduling must not reach the answers or their order). Both also equal the model.
#[test]
fn the_same_edits_give_the_same_events_in_the_same_order() {
    let start = Instant::now();
    let sequences = kollide_testkit::cases(6);
    let (mut most_candidates, mut total) = (0, Counts::default());
    for seq in 0..sequences {
        let mut rng = random::rng(0x7477_696e_0000_0000 + seq as u64);
        let len = rng.random_range(50..=70);
        let mut d = Driver::new(rng.random(), settings_of(seq), len, seq % 2 == 0).with_twin();
        // Denser than the model test: a few times as many touching pairs per collider.
        d.half = 0.6 * (len as f32).cbrt();
        d.populate(len);
        for step in 0..STEPS / 2 {
            if step > 0 {
                d.edit();
            }
            d.step();
            let result = check_step(&mut d).and_then(|()| compare_twin(&d));
            if let Err(what) = result {
                panic!("sequence {seq}, step {step}: {what}\n  edits:\n    {}", d.log.join("\n    "));
            }
            most_candidates = most_candidates.max(candidate_pairs(&d));
        }
        total.events.iter_mut().zip(d.counts.events).for_each(|(t, n)| *t += n);
    }
    println!(
        "{sequences} twin sequences in {:.1?}: most candidate pairs {most_candidates}, events {:?}",
        start.elapsed(),
        total.events
    );
    assert!(most_candidates > 4 * 64, "the scenes must run the parallel narrow phase");
    assert!(total.events.iter().all(|&n| n > 0));
}

// ---------------------------------------------------------------------------------------------
// Broad phases

/// A handle as (slot, generation), so that worlds compare.
type Id = (u32, u32);

/// What a step gives.
#[derive(Debug, PartialEq)]
struct StepRecord {
    touching: Vec<(Id, Id)>,
    /// Sorted: the order of the dropped pairs depends on the broad phase's (fat) boxes.
    events: Vec<(Id, Id, EventKind)>,
    /// Pair, touching, number of manifolds.
    contacts: Vec<(Id, Id, bool, usize)>,
    /// The closest hit of a random ray (slot, generation, t), and a random box's colliders.
    ray: Option<(Id, f32)>,
    boxed: Vec<Id>,
}

/// One random sequence on a world over the broad phase `B`: the same random draws whatever `B`
/// (handles are picked by their place among the live ones, which all worlds share).
fn record_sequence<B: kollide::broad::BroadPhase<kollide::bounds::Aabb3>>(
    broad: B,
    seed: u64,
    steps: usize,
) -> Vec<StepRecord> {
    use glam::Affine3A;
    use kollide::math::Ray3;
    use kollide::world::{QueryFilter, World};
    let id = |h: ColliderHandle| (h.index(), h.generation());
    let settings = WorldSettings { prediction: 0.05, ..WorldSettings::default() };
    let mut world = World::<kollide::world::Dim3, B>::with_broad_phase(broad, settings);
    let mut rng = random::rng(seed);
    let len = rng.random_range(15..=35);
    let half = 0.8 * (len as f32).cbrt();
    let (mix, roles) = (SceneMix::SOLIDS, SceneRoles { sensor: 0.1, fixed: 0.15 });
    let mut live: Vec<ColliderHandle> = Vec::new();
    for _ in 0..len {
        live.push(world.insert(random_desc(&mut rng, mix, roles, half)).unwrap());
    }
    let mut records = Vec::new();
    for _ in 0..steps {
        for &h in &live {
            if rng.random_bool(0.3) {
                let old: Affine3A = *world.collider(h).unwrap().placement();
                let to = if rng.random_bool(0.05) {
                    random_placement(&mut rng, half)
                } else {
                    nudged(&mut rng, &old, 0.15, 0.15, half)
                };
                if rng.random_bool(0.5) {
                    world.set_motion(h, to, random::point3(&mut rng, 6.0)).unwrap();
                } else {
                    world.set_placement(h, to).unwrap();
                }
            }
        }
        if rng.random_bool(0.15) && live.len() > 8 {
            let h = live.remove(rng.random_range(0..live.len()));
            world.remove(h).unwrap();
        }
        if rng.random_bool(0.15) {
            live.push(world.insert(random_desc(&mut rng, mix, roles, half)).unwrap());
        }
        if rng.random_bool(0.1) {
            let h = live[rng.random_range(0..live.len())];
            world.set_filter(h, random_filter(&mut rng)).unwrap();
        }
        world.step();
        let mut events: Vec<_> = world.events().iter().map(|e| (id(e.a), id(e.b), e.kind)).collect();
        events.sort_by_key(|e| (e.0, e.1, e.2 as u8));
        let ray = Ray3::new(random::point3(&mut rng, 1.2 * half), random::unit3(&mut rng));
        let max_t = if rng.random_bool(0.3) { f32::INFINITY } else { rng.random_range(0.0..3.0 * half) };
        let center = random::point3(&mut rng, half);
        let region = kollide::bounds::Aabb3::new(center - Vec3::splat(0.5), center + Vec3::splat(0.5));
        let mut boxed = Vec::new();
        world.overlap_box(&region, &QueryFilter::new(), &mut boxed).unwrap();
        records.push(StepRecord {
            touching: world.touching_pairs().map(|(a, b)| (id(a), id(b))).collect(),
            events,
            contacts: world.contacts().map(|c| (id(c.a), id(c.b), c.touching, c.manifolds.len())).collect(),
            ray: world.cast_ray(&ray, max_t, &QueryFilter::new()).unwrap().map(|(h, hit)| (id(h), hit.t)),
            boxed: boxed.into_iter().map(id).collect(),
        });
    }
    records
}

/// Every broad phase (brute force, sweep and prune, spatial hash, dynamic tree) gives the same
/// steps (touching pairs, events as sets, contacts) and the same scene query answers on the same
/// random sequences: the step's merge of the broad phase's pairs and the scene queries' gathering
/// rely on each broad phase's contract (sorted pairs, conservative boxes), not on one of them.
#[test]
fn every_broad_phase_gives_the_same_steps() {
    use kollide::bounds::Aabb3;
    use kollide::broad::{BruteForce, DynamicTree, SpatialHash, SweepAndPrune};
    for seq in 0..kollide_testkit::cases(10) {
        let seed = 0x6272_6f61_6400_0000 + seq as u64;
        let reference = record_sequence(BruteForce::<Aabb3>::new(), seed, STEPS / 2);
        for (name, records) in [
            ("sweep and prune", record_sequence(SweepAndPrune::<Aabb3>::new(), seed, STEPS / 2)),
            ("spatial hash", record_sequence(SpatialHash::<Aabb3>::new(), seed, STEPS / 2)),
            ("dynamic tree", record_sequence(DynamicTree::<Aabb3>::new(), seed, STEPS / 2)),
        ] {
            for (step, (r, x)) in reference.iter().zip(&records).enumerate() {
                assert_eq!(x, r, "sequence {seq}, step {step}: {name} against brute force");
            }
        }
        assert!(reference.iter().any(|r| !r.events.is_empty() && r.ray.is_some() && !r.boxed.is_empty()));
    }
}

// ---------------------------------------------------------------------------------------------
// Reuse of unmoved pairs

/// With `reuse_distance` r, a pair whose colliders each moved at most r keeps its answer; one
/// whose collider moved farther is recomputed. A cube of half size 1 shrunk to half size 0.5 in
/// place moves its corners by 0.87 (> r = 0.6), so its contact with a big ball touching its old
/// corner must end (the ball's box still overlaps the cube's: the pair stays a candidate).
/// Found by reasoning on the displacement bound, which measured the change at the corners of
/// the *new* box: a point now at `q` came from `old(new⁻¹(q))`, not from `q`; for a shrinking
/// shape the new box is smaller than where its points came from, and the bound said 0.43.
#[test]
fn reuse_recomputes_a_pair_whose_collider_shrank_beyond_the_distance() {
    use glam::Affine3A;
    use kollide::shape::{Ball, ConvexShape, Cuboid};
    use kollide::world::ColliderDesc3;
    let settings = WorldSettings { reuse_distance: 0.6, ..WorldSettings::default() };
    let mut world = World3::with_settings(settings);
    let cube = Shape::Convex(ConvexShape::Cuboid(Cuboid::new(Vec3::ONE)));
    // Radius 3, 1.5 from the origin along the diagonal: 0.23 into the cube's corner (1, 1, 1),
    // 0.63 from the shrunk cube's corner; its box reaches down to -0.40 on every axis.
    let ball = Shape::Convex(ConvexShape::Ball(Ball::new(3.0)));
    let center = Vec3::ONE.normalize() * 4.5;
    let a = world.insert(ColliderDesc3::new(cube, Affine3A::IDENTITY)).unwrap();
    let b = world.insert(ColliderDesc3::new(ball, Affine3A::from_translation(center))).unwrap();
    world.step();
    assert_eq!(world.touching_pairs().collect::<Vec<_>>(), [(a, b)]);
    // Half the size in place: the corner (1, 1, 1) goes to (0.5, 0.5, 0.5), 0.87 away.
    world.set_placement(a, Affine3A::from_scale(Vec3::splat(0.5))).unwrap();
    assert!(world.collider(a).unwrap().bounds().overlaps(world.collider(b).unwrap().bounds()));
    world.step();
    assert_eq!(
        world.touching_pairs().count(),
        0,
        "the cube's corners moved 0.87 > 0.6: the pair must be recomputed"
    );
    assert_eq!(world.events(), [CollisionEvent { a, b, kind: EventKind::ContactEnded }]);
}

/// A flattened convex shape (a singular placement, which convex shapes accept) that moves
/// farther than `reuse_distance` is recomputed: a ball flattened to a disk tilted 45°, touching a
/// small ball, moved 0.14 away along its normal with r = 0.1 (the boxes still overlap).
/// Found by reasoning on the displacement bound: the inverse of a singular placement has
/// infinite and NaN entries, and `f32::max` drops NaN, so the bound came out 0.
#[test]
fn reuse_recomputes_a_pair_whose_flattened_collider_moved_beyond_the_distance() {
    use glam::{Affine3A, Mat3, Quat};
    use kollide::shape::{Ball, ConvexShape};
    use kollide::world::ColliderDesc3;
    let settings = WorldSettings { reuse_distance: 0.1, ..WorldSettings::default() };
    let mut world = World3::with_settings(settings);
    let disk = Mat3::from_quat(Quat::from_rotation_y(std::f32::consts::FRAC_PI_4))
        * Mat3::from_diagonal(Vec3::new(1.0, 1.0, 0.0));
    let ball = |r| Shape::Convex(ConvexShape::Ball(Ball::new(r)));
    let a = world.insert(ColliderDesc3::new(ball(1.0), Affine3A::from_mat3(disk))).unwrap();
    // 0.28 from the disk's plane, radius 0.3.
    let b = world
        .insert(ColliderDesc3::new(ball(0.3), Affine3A::from_translation(Vec3::new(0.2, 0.0, 0.2))))
        .unwrap();
    world.step();
    assert_eq!(world.touching_pairs().collect::<Vec<_>>(), [(a, b)]);
    // 0.14 along the normal: 0.42 from the ball's centre.
    world.set_placement(a, Affine3A::from_mat3_translation(disk, Vec3::new(-0.1, 0.0, -0.1))).unwrap();
    assert!(world.collider(a).unwrap().bounds().overlaps(world.collider(b).unwrap().bounds()));
    world.step();
    assert_eq!(world.touching_pairs().count(), 0, "the disk moved 0.14 > 0.1: the pair must be recomputed");
    assert_eq!(world.events(), [CollisionEvent { a, b, kind: EventKind::ContactEnded }]);
}

/// The largest distance a point of the shape moved from `old` to `new`, over its local sample
/// points (on the shape: a lower bound of the largest over the whole shape).
fn sampled_displacement(samples: &[Vec3], old: &glam::Affine3A, new: &glam::Affine3A) -> f32 {
    samples.iter().map(|&p| new.transform_point3(p).distance(old.transform_point3(p))).fold(0.0, f32::max)
}

/// With `reuse_distance` r > 0 the world may keep a pair's answer while its colliders each
/// moved at most r since the pair's last narrow phase, so it may differ from the model; every
/// difference must be explained: some earlier step at which both colliders were where they
/// moved at most r from (measured on sample points of the shapes, a lower bound, so a real
/// explanation is never missed) and at which the model's answer was the world's. The events must
/// still be the changes of the world's own touching pairs. Colliders move a little (translations,
/// turns, changes of size) so that answers are reused often.
#[test]
fn reuse_keeps_answers_only_while_colliders_moved_less_than_the_distance() {
    use kollide_testkit::reference_query::RefPlaced;
    let start = Instant::now();
    let (mut differences, mut steps) = (0, 0);
    for seq in 0..kollide_testkit::cases(20) {
        let mut rng = random::rng(0x7265_7573_6500_0000 + seq as u64);
        let len = rng.random_range(10..=28);
        // Small nudges about r = 0.04, or (one sequence in three) large changes of size about
        // r = 0.25.
        let r = if seq % 3 == 2 { 0.25 } else { 0.04 };
        let settings =
            WorldSettings { reuse_distance: r, prediction: [0.0, 0.05][seq % 2], ..WorldSettings::default() };
        let mut d = Driver::new(rng.random(), settings, len, seq % 3 == 1);
        d.motion = match seq % 3 {
            0 => Motion { moving: 0.5, fixed: 0.02, shift: 0.012, turn: 0.015, jumps: 0.02, rescale: 0.04 },
            1 => Motion { moving: 0.5, fixed: 0.02, shift: 0.003, turn: 0.003, jumps: 0.02, rescale: 0.08 },
            _ => Motion { moving: 0.5, fixed: 0.02, shift: 0.01, turn: 0.01, jumps: 0.02, rescale: 0.5 },
        };
        d.populate(len);
        let mut samples: HashMap<ColliderHandle, Vec<Vec3>> = HashMap::new();
        let mut history: Vec<HashMap<ColliderHandle, glam::Affine3A>> = Vec::new();
        let mut before: Vec<(ColliderHandle, ColliderHandle, bool)> = Vec::new();
        for step in 0..STEPS {
            if step > 0 {
                d.edit();
            }
            d.step();
            steps += 1;
            let (world, model) = (&d.world, &d.model);
            history.push(model.colliders().map(|(h, c)| (h, c.placement)).collect());
            for (h, c) in model.colliders() {
                samples
                    .entry(h)
                    .or_insert_with(|| RefPlaced::new(&c.shape, &glam::Affine3A::IDENTITY).surface_samples());
            }
            let fail = |what: String| -> ! {
                panic!("sequence {seq}, step {step}: {what}\n  edits:\n    {}", d.log.join("\n    "))
            };
            // The events are the changes of the world's touching pairs.
            let sensor =
                |a, b| model.get(a).is_some_and(|c| c.sensor) || model.get(b).is_some_and(|c| c.sensor);
            let now: Vec<_> = world.touching_pairs().map(|(a, b)| (a, b, sensor(a, b))).collect();
            let mut expected = Vec::new();
            for &(a, b, was_sensor) in &before {
                if !now.iter().any(|&(x, y, _)| (x, y) == (a, b)) {
                    let kind = if was_sensor { EventKind::SensorEnded } else { EventKind::ContactEnded };
                    expected.push(CollisionEvent { a, b, kind });
                }
            }
            for &(a, b, is_sensor) in &now {
                if !before.iter().any(|&(x, y, _)| (x, y) == (a, b)) {
                    let kind = if is_sensor { EventKind::SensorBegan } else { EventKind::ContactBegan };
                    expected.push(CollisionEvent { a, b, kind });
                }
            }
            let (events, repeats) = event_set(world.events());
            if repeats || events != event_set(&expected).0 {
                fail(format!("events {events:?} are not the changes of the touching pairs {expected:?}"));
            }
            // Every difference from the model is explained by an earlier step.
            let handles = model.handles();
            for (i, &x) in handles.iter().enumerate() {
                for &y in &handles[i + 1..] {
                    let (a, b) = kollide_testkit::reference_world::ordered(x, y);
                    let world_touching = now.iter().any(|&(p, q, _)| (p, q) == (a, b));
                    if world_touching == model.touching(a, b).is_some() {
                        continue;
                    }
                    differences += 1;
                    let (ca, cb) = (model.get(a).unwrap(), model.get(b).unwrap());
                    // Within rounding of touching either answer is right (see `borderline`).
                    let explained = borderline(&d, a, b)
                        || history.iter().rev().any(|then| {
                            let (Some(pa), Some(pb)) = (then.get(&a), then.get(&b)) else { return false };
                            sampled_displacement(&samples[&a], pa, &ca.placement) <= r * 1.001
                                && sampled_displacement(&samples[&b], pb, &cb.placement) <= r * 1.001
                                && query::intersects(&ca.shape, pa, &cb.shape, pb).unwrap() == world_touching
                        });
                    if !explained {
                        fail(format!(
                            "pair {:?}: world touching {world_touching}, model not, and no earlier step within {r} explains it\n  A = {:?} at {:?}\n  B = {:?} at {:?}",
                            (a, b),
                            ca.shape,
                            ca.placement,
                            cb.shape,
                            cb.placement
                        ));
                    }
                }
            }
            before = now;
        }
    }
    println!(
        "{steps} steps with reuse in {:.1?}: {differences} pair answers kept from earlier steps",
        start.elapsed()
    );
    assert!(differences > 0, "the test must see reused answers");
}

// ---------------------------------------------------------------------------------------------
// Known library failures met by the model test (outside the world), reproduced

/// Found by `steps_equal_the_brute_force_model` (sequence 57, step 99): a cone against triangle
/// 61 of the asteroid mesh, penetrating, gets a manifold with a zero normal (separation -0.0,
/// witness points 0.35 apart): EPA gave up (issue 30). Reproduced on the triangle alone under
/// the mesh's placement (the same triangle in world coordinates at the identity is fine).
#[test]
#[ignore = "issue 30: EPA gives up on a cone against a triangle and the manifold has a zero normal"]
fn issue_30_cone_against_a_mesh_triangle_gets_a_unit_normal() {
    use glam::{Affine3A, Vec3A};
    use kollide::shape::{Cone, ConvexShape, Triangle};
    let cone = Shape::Convex(ConvexShape::Cone(Cone { half_height: 0.8233406, radius: 1.1844348 }));
    let cone_at = Affine3A::from_cols(
        Vec3A::new(0.20055304, -0.6541283, -0.72931147),
        Vec3A::new(0.44286287, 0.72456515, -0.5280888),
        Vec3A::new(0.8738715, -0.217075, 0.4350028),
        Vec3A::new(0.12162912, 1.6870533, -0.45428103),
    );
    let triangle = Shape::Convex(ConvexShape::Triangle(Triangle {
        points: [
            Vec3::new(-0.4111084, -0.055328157, 0.65042734),
            Vec3::new(-0.7347351, -0.25957763, 0.4906787),
            Vec3::new(-0.44484347, -0.4734631, 0.73436093),
        ],
    }));
    let triangle_at = Affine3A::from_cols(
        Vec3A::new(0.6829577, 0.15969871, -0.37378675),
        Vec3A::new(0.15391645, -0.935356, -0.6674068),
        Vec3A::new(-0.79184103, 0.37557837, -0.9183134),
        Vec3A::new(0.47194436, 0.5315982, -0.80353487),
    );
    assert!(query::intersects(&cone, &cone_at, &triangle, &triangle_at).unwrap());
    let mut out = Vec::new();
    query::contact_manifolds(&cone, &cone_at, &triangle, &triangle_at, 0.05, &mut out).unwrap();
    assert!(!out.is_empty());
    for m in &out {
        assert!((m.manifold.normal.length() - 1.0).abs() < 1e-3, "{m:?}");
    }
}

/// Found by `steps_equal_the_brute_force_model`: a rounded triangle 0.14 deep in an
/// icosahedron mesh (both under affine maps) intersects it, and `query::contact` finds the
/// penetration on triangle 2 (separation -0.1415), but `contact_manifolds` gives no manifold
/// at all with a prediction of 0 or 0.01 (in both operand orders), one with 0.1. The query
/// matrix promises manifolds "non-empty when intersecting". About one touching convex-mesh
/// pair in 10,000 of the model test (rounded triangles, triangles and rounded cones against the
/// open grid, the icosahedron, the torus, and compounds with a mesh child). The convex-mesh
/// manifolds are in `narrow::mesh`, outside the world.
#[test]
#[ignore = "library: convex-mesh contact_manifolds lose a penetrating contact (narrow::mesh, not the world)"]
fn convex_against_mesh_manifolds_keep_a_penetrating_contact() {
    use glam::{Affine3A, Vec3A};
    use kollide::mesh::TriMesh;
    use kollide::shape::{ConvexShape, Rounded, Triangle};
    let a = Shape::Convex(ConvexShape::RoundedTriangle(Rounded {
        inner: Triangle {
            points: [
                Vec3::new(0.59465265, -0.39520335, 0.53273416),
                Vec3::new(0.3979442, -0.6052253, -0.039229155),
                Vec3::new(0.08913994, -0.5166242, 0.35131764),
            ],
        },
        radius: 0.065317824,
    }));
    let a_at = Affine3A::from_cols(
        Vec3A::new(-0.15842323, -0.3495736, -0.30949366),
        Vec3A::new(-0.45013532, -0.15804139, 0.36743495),
        Vec3A::new(-0.74278027, 0.99387676, -0.5506142),
        Vec3A::new(-0.17541713, 0.10177976, -0.7113402),
    );
    let b = Shape::Mesh(Arc::new(TriMesh::from_data(kollide_testkit::shapes::icosphere(0)).unwrap()));
    let b_at = Affine3A::from_cols(
        Vec3A::new(1.0211011, 0.47355577, -0.2313707),
        Vec3A::new(-0.019649923, -0.38791153, -1.1889377),
        Vec3A::new(-0.46812975, 1.185002, -0.5798155),
        Vec3A::new(-0.20542765, 1.1548212, -0.54375494),
    );
    assert!(query::intersects(&a, &a_at, &b, &b_at).unwrap());
    let contact = query::contact(&a, &a_at, &b, &b_at, 0.0).unwrap().unwrap();
    assert!(contact.separation < -0.1, "{contact:?}");
    let mut out = Vec::new();
    query::contact_manifolds(&a, &a_at, &b, &b_at, 0.0, &mut out).unwrap();
    assert!(!out.is_empty(), "no manifold for a contact {} deep", -contact.separation);
}
