//! `World2` against the brute-force 2D world (`kollide_testkit::reference_world2::ModelWorld2`:
//! every pair tested every step with `query::intersects2`, the world's rules written out again,
//! scene queries run on every collider the filter lets through).
//!
//! - Steps: seeded random sequences of edits (insert, remove, replace into a freed slot,
//!   `set_placement`, `set_motion` with velocities, `set_filter` with layers and groups,
//!   `set_user_data`, the pair rule switched on and off, edits through stale and foreign handles)
//!   and steps, on scenes of every 2D kind: convex shapes of every kind, compounds, polylines
//!   (open, closed, one-sided) and triangle meshes (concave, with a hole, a soup with a
//!   degenerate triangle) under rigid, scaled, sheared and reflected placements, some sensors and
//!   fixed colliders. After every step: the same touching pairs, the same events as a set (no
//!   repeats, A's slot below B's, in the documented order), contacts of exactly the touching
//!   non-sensor pairs (and the pairs within the prediction distance) with unit normals and one
//!   or two finite points; between edits and the next step, the latest step's pairs without those
//!   of removed colliders.
//! - Scene queries: `cast_ray`, `cast_ray_all`, ray visitors that skip at the collider level,
//!   `cast_shape`, `overlap_shape`, `overlap_box`, `colliders_at_point` and `colliders_within`
//!   against brute force, with random query filters, between random edits.
//! - Bad input: every refused edit returns its error and leaves the world as the model says;
//!   bad query arguments are refused before anything is visited.
//! - Named: a box sliding along a one-sided chain of collinear segments gets only upward
//!   normals; the `standing_surfaces` example finds exactly the expected surfaces.
//!
//! 12,000 steps and 10,000 queries by default (scaled by `KOLLIDE_CASES`).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::{Affine2, Vec2};
use kollide::bounds::Aabb2;
use kollide::math::Ray2;
use kollide::primitive::d2::RayHit2;
use kollide::query::{self, Operand, Polyline2, QueryError, Shape2};
use kollide::shape::{Ball2, ConvexShape2, Cuboid2};
use kollide::world::{
    Collider2, ColliderDesc2, ColliderHandle, ColliderVisit, CollisionEvent, CollisionFilter, Dim2,
    EventKind, HitVisit, PairFilter, QueryFilter, Visitor, World2, WorldError, WorldSettings,
};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_world::{SceneRoles, event_set, random_filter};
use kollide_testkit::reference_world2::{
    ModelCollider2, ModelPairRule2, ModelWorld2, SceneMix2, nudged2, random_desc2, random_placement2,
    random_scene_shape2,
};
use rand::Rng;

#[allow(dead_code)]
#[path = "../examples/standing_surfaces.rs"]
mod standing_surfaces;

/// Sequences of the step test, and steps in each.
const SEQUENCES: usize = 80;
const STEPS: usize = 150;
/// Scene queries over all scenes, and scenes.
const QUERIES: usize = 10_000;
const SCENES: usize = 15;
/// Relative tolerance of hit times (the world clips its reach as it goes; casts converge to a
/// tolerance that depends on the reach).
const TOL: f32 = 1e-4;

// ---------------------------------------------------------------------------------------------
// Steps

/// The pair rules a sequence switches between: asymmetric in A and B, on user data and slots.
fn rule_allows(rule: usize, a: ColliderHandle, a_data: u64, b: ColliderHandle, b_data: u64) -> bool {
    match rule {
        1 => (3 * a_data + b_data) % 5 != 0,
        _ => (a.index() + 2 * b.index()) % 7 != 0 || b_data > 8,
    }
}

/// The world's closure for `rule`; it counts calls with A's slot not below B's.
fn world_rule(rule: usize, misordered: Arc<AtomicUsize>) -> Box<dyn PairFilter<Dim2>> {
    Box::new(move |a: ColliderHandle, ca: &Collider2, b: ColliderHandle, cb: &Collider2| {
        if a.index() >= b.index() {
            misordered.fetch_add(1, Ordering::Relaxed);
        }
        rule_allows(rule, a, ca.user_data(), b, cb.user_data())
    })
}

fn model_rule(rule: usize) -> ModelPairRule2 {
    Box::new(move |a, ca, b, cb| rule_allows(rule, a, ca.user_data, b, cb.user_data))
}

#[derive(Default, Debug)]
struct Counts {
    steps: usize,
    touching: usize,
    /// Touching pairs with a compound, a polyline, a mesh (either side).
    touching_kinds: [usize; 3],
    events: [usize; 4],
    dropped: usize,
    contacts: usize,
    predicted: usize,
    /// Predicted contacts of pairs beyond the prediction distance (a known failure, capped).
    predicted_beyond: usize,
    manifolds: usize,
    /// Touching pairs without a manifold: a one-sided chain with the shape behind it, or grazing.
    one_sided_without_manifold: usize,
    /// Touching pairs of a one-sided chain and a shape in front of a segment it touches, without
    /// a manifold (a known failure, capped).
    one_sided_front_lost: usize,
    /// Touching pairs of segments without a manifold (a known failure, capped).
    crossing_segments_without_manifold: usize,
    grazing_without_manifold: usize,
    stale_edits: usize,
    foreign_edits: usize,
    slot_reuses: usize,
    rule_steps: usize,
    moves: usize,
    filter_edits: usize,
    /// Pair answers within rounding of touching where the world and the model differ.
    borderline: usize,
}

struct Driver {
    world: World2,
    model: ModelWorld2,
    /// A handle of another world, for foreign edits.
    foreign: ColliderHandle,
    rng: TestRng,
    half: f32,
    len: usize,
    removed: Vec<ColliderHandle>,
    misordered: Arc<AtomicUsize>,
    rule: usize,
    rules: bool,
    log: Vec<String>,
    counts: Counts,
}

/// A handle of another 2D world.
fn foreign_handle() -> ColliderHandle {
    let mut other = World2::new();
    other
        .insert(ColliderDesc2::new(Shape2::Convex(ConvexShape2::Ball(Ball2::new(1.0))), Affine2::IDENTITY))
        .unwrap()
}

impl Driver {
    fn new(seed: u64, settings: WorldSettings, len: usize, rules: bool) -> Self {
        Driver {
            world: World2::with_settings(settings),
            model: ModelWorld2::new(),
            foreign: foreign_handle(),
            rng: random::rng(seed),
            // About twice an object's area of free space per object: a few contacts each.
            half: 0.9 * (len as f32).sqrt(),
            len,
            removed: Vec::new(),
            misordered: Arc::new(AtomicUsize::new(0)),
            rule: 0,
            rules,
            log: Vec::new(),
            counts: Counts::default(),
        }
    }

    fn pick(&mut self) -> Option<ColliderHandle> {
        let handles = self.model.handles();
        (!handles.is_empty()).then(|| handles[self.rng.random_range(0..handles.len())])
    }

    fn desc(&mut self) -> ColliderDesc2 {
        random_desc2(&mut self.rng, SceneMix2::ALL, SceneRoles { sensor: 0.12, fixed: 0.15 }, self.half)
    }

    fn insert(&mut self, desc: ColliderDesc2) -> ColliderHandle {
        let h = self.world.insert(desc.clone()).expect("a valid collider");
        self.model.insert(h, &desc);
        self.log.push(format!("insert {h:?}: {:?} at {:?}", desc.shape, desc.placement));
        h
    }

    fn remove(&mut self, h: ColliderHandle) {
        let c = self.world.remove(h).expect("a live collider");
        assert_eq!(c.placement(), &self.model.get(h).unwrap().placement);
        self.model.remove(h);
        self.removed.push(h);
        self.log.push(format!("remove {h:?}"));
    }

    fn set_rule(&mut self, rule: usize) {
        self.rule = rule;
        self.world.set_pair_filter((rule != 0).then(|| world_rule(rule, self.misordered.clone())));
        self.model.set_pair_rule((rule != 0).then(|| model_rule(rule)));
        self.log.push(format!("pair rule {rule}"));
    }

    /// A nudge (a teleport or with a velocity), a jump elsewhere, the same placement again, or a
    /// change of size.
    fn move_collider(&mut self, h: ColliderHandle) {
        let old = self.model.get(h).unwrap().placement;
        let rng = &mut self.rng;
        let mut placement = match rng.random_range(0..20) {
            0 => random_placement2(rng, self.half),
            1 => old,
            2..6 => nudged2(rng, &old, 0.5, 0.6, self.half),
            _ => nudged2(rng, &old, 0.12, 0.15, self.half),
        };
        if rng.random_bool(0.2) {
            let size = placement.matrix2.determinant().abs().sqrt();
            let (lo, hi) = if size > 1.5 {
                (0.85, 1.0)
            } else if size < 0.4 {
                (1.0, 1.15)
            } else {
                (0.85, 1.15)
            };
            placement.matrix2 *= rng.random_range(lo..hi);
        }
        if rng.random_bool(0.5) {
            let velocity = if rng.random_bool(0.1) { Vec2::ZERO } else { random::point2(rng, 6.0) };
            self.world.set_motion(h, placement, velocity).expect("a valid motion");
            assert_eq!(self.world.collider(h).unwrap().velocity(), Some(velocity));
            self.log.push(format!("set_motion {h:?} {placement:?} {velocity}"));
        } else {
            self.world.set_placement(h, placement).expect("a valid placement");
            assert_eq!(self.world.collider(h).unwrap().velocity(), None);
            self.log.push(format!("set_placement {h:?} {placement:?}"));
        }
        self.model.set_placement(h, placement);
        self.counts.moves += 1;
    }

    /// An edit through a removed collider's handle or another world's: refused.
    fn bad_handle_edit(&mut self) {
        let foreign = self.rng.random_bool(0.3) || self.removed.is_empty();
        let h =
            if foreign { self.foreign } else { self.removed[self.rng.random_range(0..self.removed.len())] };
        let expected = if foreign { WorldError::ForeignHandle(h) } else { WorldError::StaleHandle(h) };
        let placement = random_placement2(&mut self.rng, self.half);
        let result = match self.rng.random_range(0..6) {
            0 => self.world.set_placement(h, placement),
            1 => self.world.set_motion(h, placement, Vec2::X),
            2 => self.world.set_filter(h, CollisionFilter::NONE),
            3 => self.world.set_user_data(h, 99),
            4 => self.world.collider(h).map(|_| ()),
            _ => self.world.remove(h).map(|_| ()),
        };
        assert_eq!(result, Err(expected));
        assert!(!self.world.contains(h));
        if foreign { self.counts.foreign_edits += 1 } else { self.counts.stale_edits += 1 }
    }

    fn edit(&mut self) {
        self.log.clear();
        for h in self.model.handles() {
            let fixed = self.model.get(h).unwrap().fixed;
            if self.rng.random_bool(if fixed { 0.02 } else { 0.3 }) {
                self.move_collider(h);
            }
        }
        let removes_first = self.rng.random_bool(0.5);
        for pass in 0..2 {
            if (pass == 0) == removes_first {
                if self.rng.random_bool(0.15) && self.model.len() > self.len / 2 {
                    let h = self.pick().unwrap();
                    self.remove(h);
                }
            } else if self.rng.random_bool(0.15) && self.model.len() < self.len + self.len / 2 {
                let desc = self.desc();
                self.insert(desc);
            }
        }
        if self.rng.random_bool(0.08) {
            // A replacement at the same place: the new collider takes the freed slot.
            let h = self.pick().unwrap();
            let old = self.model.get(h).unwrap().clone();
            self.remove(h);
            let mut desc = self.desc();
            if self.rng.random_bool(0.5) {
                desc.shape = old.shape;
            }
            desc.placement = old.placement;
            let new = self.insert(desc);
            self.counts.slot_reuses += usize::from(new.index() == h.index());
        }
        if self.rng.random_bool(0.1) {
            let h = self.pick().unwrap();
            let filter =
                if self.rng.random_bool(0.3) { CollisionFilter::ALL } else { random_filter(&mut self.rng) };
            self.world.set_filter(h, filter).unwrap();
            self.model.set_filter(h, filter);
            self.log.push(format!("set_filter {h:?} {filter:?}"));
            self.counts.filter_edits += 1;
        }
        if self.rng.random_bool(0.1) {
            let h = self.pick().unwrap();
            let data = self.rng.random_range(0..16);
            self.world.set_user_data(h, data).unwrap();
            self.model.set_user_data(h, data);
        }
        if self.rules && self.rng.random_bool(0.04) {
            let rule = self.rng.random_range(0..3);
            self.set_rule(rule);
        }
        if self.rng.random_bool(0.05) {
            self.bad_handle_edit();
        }
    }
}

fn key(a: ColliderHandle, b: ColliderHandle) -> (u32, u32) {
    (a.index(), b.index())
}

fn is_ended(kind: EventKind) -> bool {
    matches!(kind, EventKind::ContactEnded | EventKind::SensorEnded)
}

/// Whether the events split into the dropped pairs (ended events, slot order) and the changed
/// pairs (slot order), with the events of `first` and `second` on their sides.
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

/// Whether the pair is within rounding of touching: its exact contact has a separation of at
/// most `1e-5` of the scene's scale either way (the world's warm-started GJK and the model's
/// cold one may answer differently there).
fn borderline(d: &Driver, a: ColliderHandle, b: ColliderHandle) -> bool {
    let (Some(ca), Some(cb)) = (d.model.get(a), d.model.get(b)) else { return false };
    let tol = 1e-5 * (1.0 + 2.0 * d.half);
    query::contact2(&ca.shape, &ca.placement, &cb.shape, &cb.placement, tol)
        .ok()
        .flatten()
        .is_some_and(|c| c.separation.abs() <= tol)
}

/// Takes the world's answers for borderline pairs into the model (counted); any other
/// difference is an error.
fn accept_borderline(d: &mut Driver) -> Result<(), String> {
    let touching: Vec<_> = d.world.touching_pairs().collect();
    let expected = d.model.touching_pairs();
    let extra: Vec<_> = touching.iter().filter(|p| !expected.contains(p)).copied().collect();
    let missing: Vec<_> = expected.iter().filter(|p| !touching.contains(p)).copied().collect();
    for (&(a, b), touches) in extra.iter().map(|p| (p, true)).chain(missing.iter().map(|p| (p, false))) {
        if !borderline(d, a, b) {
            let (ca, cb) = (d.model.get(a).unwrap(), d.model.get(b).unwrap());
            return Err(format!(
                "touching pairs: extra {extra:?}, missing {missing:?}\n  A = {:?} at {:?}\n  B = {:?} at {:?}",
                ca.shape, ca.placement, cb.shape, cb.placement
            ));
        }
        d.model.accept(a, b, touches);
        d.counts.borderline += 1;
    }
    Ok(())
}

/// 0 for a compound, 1 for a polyline, 2 for a mesh.
fn composite_kind(shape: &Shape2) -> Option<usize> {
    match shape {
        Shape2::Convex(_) => None,
        Shape2::Compound(_) => Some(0),
        Shape2::Polyline(_) => Some(1),
        Shape2::Mesh(_) => Some(2),
    }
}

/// Whether a shape has segments among its parts (a segment, a polyline, a compound with a
/// segment child).
fn has_segments(shape: &Shape2) -> bool {
    let segment = |s: &ConvexShape2| matches!(s, ConvexShape2::Segment(_));
    match shape {
        Shape2::Convex(s) => segment(s),
        Shape2::Compound(c) => c.children().iter().any(|(s, _)| segment(s)),
        Shape2::Polyline(_) => true,
        Shape2::Mesh(_) => false,
    }
}

/// The convex parts of a placed shape, each with its placement.
fn parts(c: &ModelCollider2) -> Vec<(ConvexShape2, Affine2)> {
    match &c.shape {
        Shape2::Convex(s) => vec![(s.clone(), c.placement)],
        Shape2::Compound(k) => k.children().iter().map(|(s, m)| (s.clone(), c.placement * *m)).collect(),
        Shape2::Polyline(p) => (0..p.segment_count())
            .map(|i| (ConvexShape2::Segment(p.segment(i).segment), c.placement))
            .collect(),
        Shape2::Mesh(m) => {
            (0..m.triangles().len()).map(|i| (ConvexShape2::Triangle(m.triangle(i)), c.placement)).collect()
        }
    }
}

/// Whether every part of `other` that touches a segment of the one-sided `chain` has its origin
/// behind that segment (the documented rule: a one-sided chain ignores shapes whose origin lies
/// behind it), so that the pair touches without a manifold.
fn every_touching_part_is_behind(chain: &ModelCollider2, other: &ModelCollider2) -> bool {
    let to_chain = chain.placement.inverse();
    let segments = parts(chain);
    parts(other).iter().all(|(part, at)| {
        segments.iter().all(|(segment, chain_at)| {
            let ConvexShape2::Segment(s) = segment else { unreachable!("a chain's parts are segments") };
            let touches = query::intersects2(
                &Shape2::Convex(segment.clone()),
                chain_at,
                &Shape2::Convex(part.clone()),
                at,
            );
            let d = s.b - s.a;
            let origin = to_chain.transform_point2(at.translation);
            !touches.unwrap() || Vec2::new(d.y, -d.x).dot(origin - s.a) < 0.0
        })
    })
}

/// Known library failures printed so far.
static PRINTED: AtomicUsize = AtomicUsize::new(0);

/// Prints the first few known library failures met.
fn known(what: &str, pair: &str) {
    if PRINTED.fetch_add(1, Ordering::Relaxed) < 3 {
        println!("known failure, {what}: {pair}");
    }
}

/// The world against the model after a step.
fn check_step(d: &mut Driver) -> Result<(), String> {
    accept_borderline(d)?;
    let (world, model) = (&d.world, &d.model);
    let prediction = world.settings().prediction;
    let handles: Vec<ColliderHandle> = world.colliders().map(|(h, _)| h).collect();
    if handles != model.handles() {
        return Err(format!("handles {handles:?} vs model {:?}", model.handles()));
    }
    for (h, c) in world.colliders() {
        let m = model.get(h).unwrap();
        if c.placement() != &m.placement || c.filter() != m.filter || c.user_data() != m.user_data {
            return Err(format!("collider {h:?} differs from the model"));
        }
    }
    for (a, b) in world.touching_pairs() {
        d.counts.touching += 1;
        let kind = |h| composite_kind(&model.get(h).unwrap().shape);
        for i in 0..3 {
            d.counts.touching_kinds[i] += usize::from(kind(a) == Some(i) || kind(b) == Some(i));
        }
    }
    let (events, repeats) = event_set(world.events());
    if repeats || events != model.events() {
        return Err(format!("events {:?} vs model {:?}", world.events(), model.events()));
    }
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for (i, e) in world.events().iter().enumerate() {
        if e.a.index() >= e.b.index() {
            return Err(format!("event {e:?}: A's slot is not below B's"));
        }
        d.counts.events[[
            EventKind::ContactBegan,
            EventKind::ContactEnded,
            EventKind::SensorBegan,
            EventKind::SensorEnded,
        ]
        .iter()
        .position(|k| *k == e.kind)
        .unwrap()] += 1;
        if !(model.contains(e.a) && model.contains(e.b) && model.allowed(e.a, e.b)) {
            first.push(i);
            d.counts.dropped += 1;
        } else if !is_ended(e.kind)
            || world.collider(e.a).unwrap().bounds().overlaps(world.collider(e.b).unwrap().bounds())
        {
            second.push(i);
        }
    }
    if !in_documented_order(world.events(), &first, &second) {
        return Err(format!("events out of the documented order: {:?}", world.events()));
    }
    let mut contact_pairs = BTreeSet::new();
    for c in world.contacts() {
        d.counts.contacts += 1;
        let (ca, cb) = (model.get(c.a).unwrap(), model.get(c.b).unwrap());
        let pair = format!(
            "{:?}\n  A = {:?} at {:?}\n  B = {:?} at {:?}",
            (c.a, c.b),
            ca.shape,
            ca.placement,
            cb.shape,
            cb.placement
        );
        if ca.sensor || cb.sensor || c.touching != model.touching(c.a, c.b).is_some() {
            return Err(format!("contact {pair}: touching {} or a sensor", c.touching));
        }
        if c.touching {
            contact_pairs.insert((c.a, c.b));
            if c.manifolds.is_empty() {
                let depth = query::contact2(&ca.shape, &ca.placement, &cb.shape, &cb.placement, 0.0)
                    .unwrap()
                    .map_or(0.0, |contact| -contact.separation);
                let one_sided = |chain: &ModelCollider2, other: &ModelCollider2| {
                    matches!(&chain.shape, Shape2::Polyline(p) if p.is_one_sided())
                        && !matches!(other.shape, Shape2::Polyline(_))
                };
                let behind =
                    |chain, other| one_sided(chain, other) && every_touching_part_is_behind(chain, other);
                if behind(ca, cb) || behind(cb, ca) {
                    d.counts.one_sided_without_manifold += 1;
                } else if one_sided(ca, cb) || one_sided(cb, ca) {
                    // A known narrow-phase failure (see
                    // `a_shape_in_front_of_a_one_sided_chain_at_a_convex_joint_gets_a_manifold`).
                    d.counts.one_sided_front_lost += 1;
                    known("a one-sided chain lost a contact in front", &pair);
                } else if has_segments(&ca.shape) && has_segments(&cb.shape) {
                    // A known narrow-phase failure (see `crossing_segments_touch_and_get_a_manifold`).
                    d.counts.crossing_segments_without_manifold += 1;
                    known("crossing segments without a manifold", &pair);
                } else if depth <= 1e-4 {
                    d.counts.grazing_without_manifold += 1;
                } else {
                    return Err(format!("contact {pair}: touching {depth} deep without a manifold"));
                }
            }
        } else {
            d.counts.predicted += 1;
            let distance = query::distance2(&ca.shape, &ca.placement, &cb.shape, &cb.placement).unwrap();
            if prediction <= 0.0 || c.manifolds.is_empty() {
                return Err(format!("contact {pair}: not touching, at distance {distance}"));
            }
            if distance > prediction * 1.01 + 1e-4 {
                // A known narrow-phase failure (see
                // `a_pair_beyond_the_prediction_distance_gets_no_manifold`): separated polygons
                // whose closest features are two vertices get the separating-axis bound of their
                // distance, which may be within the prediction when the distance is not. The
                // points must still not overstate the distance.
                let deepest = c.manifolds.iter().flat_map(|m| m.manifold.points()).map(|p| p.separation);
                if deepest.fold(f32::INFINITY, f32::min) > distance + 1e-4 {
                    return Err(format!(
                        "contact {pair}: predicted at distance {distance}: {:?}",
                        c.manifolds
                    ));
                }
                d.counts.predicted_beyond += 1;
                known(&format!("a manifold at distance {distance}"), &pair);
            }
        }
        for m in c.manifolds {
            d.counts.manifolds += 1;
            let (n, points) = (m.manifold.normal, m.manifold.points());
            if !((n.length() - 1.0).abs() < 1e-3)
                || points.is_empty()
                || points.iter().any(|p| !p.separation.is_finite())
                || points.iter().all(|p| p.separation > prediction + 1e-3)
            {
                return Err(format!("contact {pair}: manifold {m:?}"));
            }
        }
    }
    let expected: BTreeSet<_> =
        model.touching_pairs().into_iter().filter(|&(a, b)| model.touching(a, b) == Some(false)).collect();
    if contact_pairs != expected {
        return Err(format!("touching contacts {contact_pairs:?} vs model {expected:?}"));
    }
    if d.misordered.load(Ordering::Relaxed) > 0 {
        return Err("the pair rule was called with A's slot not below B's".into());
    }
    Ok(())
}

/// Between edits and the next step: the latest step's pairs without those of removed colliders.
fn check_between(d: &Driver) -> Result<(), String> {
    let touching: Vec<_> = d.world.touching_pairs().collect();
    if touching != d.model.touching_pairs() || d.world.len() != d.model.len() {
        return Err(format!("touching pairs {touching:?} vs model {:?}", d.model.touching_pairs()));
    }
    for c in d.world.contacts() {
        if !(d.model.contains(c.a) && d.model.contains(c.b)) {
            return Err(format!("contact {:?} of a removed collider", (c.a, c.b)));
        }
    }
    Ok(())
}

fn settings_of(seq: usize) -> WorldSettings {
    match seq % 4 {
        0 => WorldSettings::default(),
        1 => WorldSettings { prediction: 0.05, ..WorldSettings::default() },
        2 => WorldSettings { lookahead: 0.3, ..WorldSettings::default() },
        _ => WorldSettings { prediction: 0.2, lookahead: 0.0, reuse_distance: 0.0 },
    }
}

#[test]
fn steps_equal_the_brute_force_model() {
    let mut total = Counts::default();
    let sequences = kollide_testkit::cases(SEQUENCES);
    for seq in 0..sequences {
        let settings = settings_of(seq);
        let mut rng = random::rng(0x776f_726c_6432_0000 + seq as u64);
        let len = rng.random_range(10..=30);
        let mut d = Driver::new(rng.random(), settings, len, seq % 3 == 1);
        for _ in 0..len {
            let desc = d.desc();
            d.insert(desc);
        }
        if d.rules {
            d.set_rule(1);
        }
        for step in 0..STEPS {
            if step > 0 {
                d.edit();
                if let Err(what) = check_between(&d) {
                    panic!(
                        "sequence {seq} ({settings:?}), before step {step}: {what}\n  {}",
                        d.log.join("\n  ")
                    );
                }
            }
            d.world.step();
            d.model.step();
            d.counts.steps += 1;
            d.counts.rule_steps += usize::from(d.rule != 0);
            if let Err(what) = check_step(&mut d) {
                panic!(
                    "sequence {seq} ({settings:?}), step {step}: {what}\n  edits:\n  {}",
                    d.log.join("\n  ")
                );
            }
        }
        let c = &d.counts;
        total.steps += c.steps;
        total.touching += c.touching;
        for i in 0..4 {
            total.events[i] += c.events[i];
        }
        for i in 0..3 {
            total.touching_kinds[i] += c.touching_kinds[i];
        }
        total.dropped += c.dropped;
        total.contacts += c.contacts;
        total.predicted += c.predicted;
        total.predicted_beyond += c.predicted_beyond;
        total.manifolds += c.manifolds;
        total.one_sided_without_manifold += c.one_sided_without_manifold;
        total.crossing_segments_without_manifold += c.crossing_segments_without_manifold;
        total.one_sided_front_lost += c.one_sided_front_lost;
        total.grazing_without_manifold += c.grazing_without_manifold;
        total.stale_edits += c.stale_edits;
        total.foreign_edits += c.foreign_edits;
        total.slot_reuses += c.slot_reuses;
        total.rule_steps += c.rule_steps;
        total.moves += c.moves;
        total.filter_edits += c.filter_edits;
        total.borderline += c.borderline;
    }
    println!("{sequences} sequences of {STEPS} steps: {total:?}");
    assert!(total.borderline * 10_000 <= total.touching.max(10_000), "borderline too often: {total:?}");
    assert!(
        total.predicted_beyond * 20 <= total.predicted.max(20),
        "predicted beyond the distance: {total:?}"
    );
    assert!(total.crossing_segments_without_manifold * 1000 <= total.touching.max(1000), "{total:?}");
    assert!(total.one_sided_front_lost * 10_000 <= total.touching.max(10_000), "{total:?}");
    // Not vacuous: every kind of event and of shape in contact, drops, predictions, bad handles.
    assert!(total.events.iter().all(|&n| n > 0) && total.touching_kinds.iter().all(|&n| n > 0), "{total:?}");
    assert!(total.dropped > 0 && total.predicted > 0 && total.manifolds > 0, "{total:?}");
    assert!(total.stale_edits > 0 && total.foreign_edits > 0 && total.rule_steps > 0, "{total:?}");
    assert!(total.slot_reuses > 0 && total.filter_edits > 0, "{total:?}");
}

// ---------------------------------------------------------------------------------------------
// Scene queries

/// A scene: the world and the brute-force model with the same colliders.
struct Scene {
    world: World2,
    model: ModelWorld2,
    rng: TestRng,
    half: f32,
}

impl Scene {
    fn new(seed: u64) -> Self {
        let mut rng = random::rng(seed);
        let len = rng.random_range(12..=40);
        let half = 0.9 * (len as f32).sqrt();
        let mut scene = Scene { world: World2::new(), model: ModelWorld2::new(), rng, half };
        for _ in 0..len {
            scene.insert();
        }
        scene
    }

    fn insert(&mut self) {
        let desc =
            random_desc2(&mut self.rng, SceneMix2::ALL, SceneRoles { sensor: 0.15, fixed: 0.2 }, self.half);
        let h = self.world.insert(desc.clone()).unwrap();
        self.model.insert(h, &desc);
    }

    /// Random edits (not followed by a step: queries see every edit at once), then a step one
    /// time in three.
    fn edit(&mut self) {
        for h in self.model.handles() {
            if self.rng.random_bool(0.2) {
                let old = self.model.get(h).unwrap().placement;
                let placement = if self.rng.random_bool(0.1) {
                    random_placement2(&mut self.rng, self.half)
                } else {
                    nudged2(&mut self.rng, &old, 0.3, 0.3, self.half)
                };
                if self.rng.random_bool(0.5) {
                    self.world.set_motion(h, placement, random::point2(&mut self.rng, 5.0)).unwrap();
                } else {
                    self.world.set_placement(h, placement).unwrap();
                }
                self.model.set_placement(h, placement);
            }
        }
        let handles = self.model.handles();
        let h = handles[self.rng.random_range(0..handles.len())];
        if self.rng.random_bool(0.3) && self.model.len() > 8 {
            self.world.remove(h).unwrap();
            self.model.remove(h);
        } else if self.rng.random_bool(0.2) {
            let filter = random_filter(&mut self.rng);
            self.world.set_filter(h, filter).unwrap();
            self.model.set_filter(h, filter);
        }
        if self.rng.random_bool(0.3) && self.model.len() < 45 {
            self.insert();
        }
        if self.rng.random_bool(0.3) {
            self.world.step();
        }
    }
}

/// A query filter's owned parts.
#[derive(Clone, Debug, Default)]
struct FilterSpec {
    bits: Option<CollisionFilter>,
    exclude: Vec<ColliderHandle>,
    exclude_sensors: bool,
    exclude_fixed: bool,
    /// Skip colliders whose slot is `r` modulo `m`.
    predicate: Option<(u32, u32)>,
}

fn random_filter_spec(rng: &mut TestRng, handles: &[ColliderHandle]) -> FilterSpec {
    if rng.random_bool(0.5) {
        return FilterSpec::default();
    }
    FilterSpec {
        bits: rng.random_bool(0.4).then(|| random_filter(rng)),
        exclude: (0..rng.random_range(0..=3)).map(|_| handles[rng.random_range(0..handles.len())]).collect(),
        exclude_sensors: rng.random_bool(0.3),
        exclude_fixed: rng.random_bool(0.2),
        predicate: rng.random_bool(0.3).then(|| {
            let m = rng.random_range(2..4);
            (m, rng.random_range(0..m))
        }),
    }
}

#[derive(Default, Debug)]
struct QueryCounts {
    rays: usize,
    ray_hits: usize,
    casts: usize,
    cast_hits: usize,
    overlaps: usize,
    overlap_hits: usize,
    points: usize,
    point_hits: usize,
    within: usize,
    within_hits: usize,
}

fn close(t: f32, expected: f32, tol: f32) -> bool {
    (t - expected).abs() <= tol * (1.0 + expected.abs())
}

/// A ray visitor that skips odd slots at the collider level and keeps the closest hit.
#[derive(Default)]
struct EvenSlots {
    offered: Vec<ColliderHandle>,
    best: Option<(ColliderHandle, f32)>,
}

impl Visitor<Dim2, RayHit2> for EvenSlots {
    fn collider(&mut self, handle: ColliderHandle, _: &Collider2) -> ColliderVisit {
        if handle.index() % 2 == 1 {
            return ColliderVisit::Skip;
        }
        self.offered.push(handle);
        ColliderVisit::Test
    }

    fn hit(&mut self, handle: ColliderHandle, _: &Collider2, hit: &RayHit2) -> HitVisit {
        if self.best.is_none_or(|(_, t)| hit.t < t) {
            self.best = Some((handle, hit.t));
        }
        HitVisit::Clip
    }
}

fn check_ray(scene: &mut Scene, filter: &QueryFilter, counts: &mut QueryCounts) -> Result<(), String> {
    let rng = &mut scene.rng;
    let ray = Ray2::new(random::point2(rng, 1.3 * scene.half), random::point2(rng, 2.0));
    let max_t = match rng.random_range(0..10) {
        0..3 => f32::INFINITY,
        3 => -1.0,
        _ => rng.random_range(0.0..3.0 * scene.half) / ray.dir.length().max(0.3),
    };
    let (world, model) = (&scene.world, &scene.model);
    counts.rays += 1;
    let hits = model.ray_hits(&ray, max_t, filter);
    counts.ray_hits += usize::from(!hits.is_empty());
    let least = hits.iter().map(|(_, hit)| hit.t).fold(f32::INFINITY, f32::min);
    let t_of = |h: ColliderHandle| hits.iter().find(|(x, _)| *x == h).map(|(_, hit)| hit.t);
    let repro = format!("ray {ray:?} up to {max_t}: brute force {hits:?}");
    match world.cast_ray(&ray, max_t, filter).map_err(|e| format!("cast_ray: {e}"))? {
        None if hits.is_empty() => {}
        Some((h, hit)) if t_of(h).is_some_and(|own| close(own, least, TOL)) && close(hit.t, least, TOL) => {}
        other => return Err(format!("cast_ray: {other:?}; {repro}")),
    }
    let mut all = Vec::new();
    world.cast_ray_all(&ray, max_t, filter, &mut all).map_err(|e| format!("cast_ray_all: {e}"))?;
    let sorted = all.windows(2).all(|w| w[0].1.t <= w[1].1.t);
    all.sort_by_key(|(h, _)| *h);
    if !sorted
        || all.len() != hits.len()
        || all.iter().zip(&hits).any(|((h, hit), (e, expected))| h != e || !close(hit.t, expected.t, TOL))
    {
        return Err(format!("cast_ray_all: {all:?}; {repro}"));
    }
    // The collider level: only even slots are tested; the closest of their hits.
    let mut even = EvenSlots::default();
    world.visit_ray(&ray, max_t, filter, &mut even).map_err(|e| format!("visit_ray: {e}"))?;
    let even_least = hits.iter().filter(|(h, _)| h.index() % 2 == 0).map(|(_, hit)| hit.t).reduce(f32::min);
    if even.best.map(|(_, t)| t).is_some() != even_least.is_some()
        || even
            .best
            .zip(even_least)
            .is_some_and(|((h, t), least)| h.index() % 2 == 1 || !close(t, least, TOL))
        || even.offered.iter().any(|h| h.index() % 2 == 1)
    {
        return Err(format!("even-slot visitor: {:?}; {repro}", even.best));
    }
    Ok(())
}

/// A query shape: any scene kind, at a random placement, shrunk.
fn query_shape(scene: &mut Scene) -> (Shape2, Affine2) {
    let shape = random_scene_shape2(&mut scene.rng, SceneMix2::ALL);
    let mut placement = random_placement2(&mut scene.rng, 1.2 * scene.half);
    placement.matrix2 *= scene.rng.random_range(0.4..1.0);
    (shape, placement)
}

fn check_cast(scene: &mut Scene, filter: &QueryFilter, counts: &mut QueryCounts) -> Result<(), String> {
    let (shape, placement) = query_shape(scene);
    let rng = &mut scene.rng;
    let velocity = if rng.random_bool(0.05) { Vec2::ZERO } else { random::point2(rng, 4.0) };
    let speed = velocity.length().max(0.5);
    let max_t =
        if rng.random_bool(0.15) { f32::INFINITY } else { rng.random_range(0.0..2.0 * scene.half) / speed };
    let (world, model) = (&scene.world, &scene.model);
    counts.casts += 1;
    let hits = model.cast_hits(&shape, &placement, velocity, max_t, filter);
    counts.cast_hits += usize::from(!hits.is_empty());
    let least = hits.iter().map(|(_, hit)| hit.t).fold(f32::INFINITY, f32::min);
    let t_of = |h: ColliderHandle| hits.iter().find(|(x, _)| *x == h).map(|(_, hit)| hit.t);
    let repro = format!(
        "cast of {shape:?} at {placement:?} by {velocity} up to {max_t}: brute force {:?}",
        hits.iter().map(|(h, hit)| (h.index(), hit.t)).collect::<Vec<_>>()
    );
    // A cast's time converges to a distance tolerance: in time units, relative to the speed.
    let tol = TOL * (1.0 + 1.0 / speed);
    let found = world
        .cast_shape(&shape, &placement, velocity, max_t, filter)
        .map_err(|e| format!("cast_shape: {e}"))?;
    match found {
        None if hits.is_empty() => Ok(()),
        Some((h, hit)) if t_of(h).is_some_and(|own| close(own, least, tol)) && close(hit.t, least, tol) => {
            Ok(())
        }
        other => Err(format!("cast_shape: {other:?}; {repro}")),
    }
}

fn check_region(scene: &mut Scene, filter: &QueryFilter, counts: &mut QueryCounts) -> Result<(), String> {
    let slot_ordered = |list: &[ColliderHandle]| list.windows(2).all(|w| w[0].index() < w[1].index());
    let mut got = Vec::new();
    match scene.rng.random_range(0..3) {
        0 => {
            let (shape, placement) = query_shape(scene);
            counts.overlaps += 1;
            let expected = scene.model.overlapping(&shape, &placement, filter);
            counts.overlap_hits += usize::from(!expected.is_empty());
            scene.world.overlap_shape(&shape, &placement, filter, &mut got).map_err(|e| format!("{e}"))?;
            if !slot_ordered(&got) || got != expected {
                return Err(format!(
                    "overlap_shape of {shape:?} at {placement:?}: {got:?}, brute force {expected:?}"
                ));
            }
            let region = Aabb2::new(random::point2(&mut scene.rng, scene.half), Vec2::ZERO);
            let region = Aabb2::new(region.min, region.min + random::point2(&mut scene.rng, 1.5).abs());
            let cuboid = Shape2::Convex(ConvexShape2::Cuboid(Cuboid2::new(region.half_extents())));
            let expected =
                scene.model.overlapping(&cuboid, &Affine2::from_translation(region.center()), filter);
            scene.world.overlap_box(&region, filter, &mut got).map_err(|e| format!("{e}"))?;
            if got != expected {
                return Err(format!("overlap_box {region:?}: {got:?}, brute force {expected:?}"));
            }
        }
        1 => {
            let p = random::point2(&mut scene.rng, 1.1 * scene.half);
            counts.points += 1;
            let expected = scene.model.containing(p, filter);
            counts.point_hits += usize::from(!expected.is_empty());
            scene.world.colliders_at_point(p, filter, &mut got).map_err(|e| format!("{e}"))?;
            if !slot_ordered(&got) || got != expected {
                return Err(format!("colliders_at_point {p}: {got:?}, brute force {expected:?}"));
            }
        }
        _ => {
            let (shape, placement) = query_shape(scene);
            let max_distance = scene.rng.random_range(0.0..1.5);
            counts.within += 1;
            let mut expected = scene.model.within(&shape, &placement, max_distance, filter);
            counts.within_hits += usize::from(!expected.is_empty());
            expected.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
            let mut within = Vec::new();
            scene
                .world
                .colliders_within(&shape, &placement, max_distance, filter, &mut within)
                .map_err(|e| format!("{e}"))?;
            if within != expected {
                return Err(format!(
                    "colliders_within {max_distance} of {shape:?} at {placement:?}: {within:?}, brute force {expected:?}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn scene_queries_equal_brute_force() {
    let mut counts = QueryCounts::default();
    let queries = kollide_testkit::cases(QUERIES);
    let per_scene = queries.div_ceil(SCENES);
    for s in 0..SCENES {
        let mut scene = Scene::new(0x7175_6572_7932_0000 + s as u64);
        for q in 0..per_scene {
            if q % 10 == 0 {
                scene.edit();
            }
            let spec = random_filter_spec(&mut scene.rng, &scene.model.handles());
            let predicate = spec.predicate.map(|(m, r)| move |h: ColliderHandle| h.index() % m != r);
            let filter = QueryFilter {
                bits: spec.bits.unwrap_or(CollisionFilter::ALL),
                exclude: &spec.exclude,
                exclude_sensors: spec.exclude_sensors,
                exclude_fixed: spec.exclude_fixed,
                predicate: predicate.as_ref().map(|p| p as &(dyn Fn(ColliderHandle) -> bool + Sync)),
            };
            let result = match scene.rng.random_range(0..10) {
                0..4 => check_ray(&mut scene, &filter, &mut counts),
                4..6 => check_cast(&mut scene, &filter, &mut counts),
                _ => check_region(&mut scene, &filter, &mut counts),
            };
            if let Err(what) = result {
                panic!("scene {s}, query {q}: {what}\n  filter {spec:?}");
            }
        }
    }
    println!("{queries} queries: {counts:?}");
    // Not vacuous: hits and misses of every query.
    let c = &counts;
    for (n, hits) in [
        (c.rays, c.ray_hits),
        (c.casts, c.cast_hits),
        (c.overlaps, c.overlap_hits),
        (c.points, c.point_hits),
        (c.within, c.within_hits),
    ] {
        assert!(hits > 0 && hits < n, "{counts:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input

/// What a refused edit must leave as it was: each collider's handle, placement, filter, user
/// data, velocity and box, and the latest step's touching pairs.
fn snapshot(world: &World2) -> String {
    let colliders: Vec<_> = world
        .colliders()
        .map(|(h, c)| (h, *c.placement(), c.filter(), c.user_data(), c.velocity(), *c.bounds()))
        .collect();
    format!("{colliders:?} {:?}", world.touching_pairs().collect::<Vec<_>>())
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

fn non_finite_placements() -> Vec<Affine2> {
    let mut out = Vec::new();
    for bad in [NAN, INF, -INF] {
        out.push(Affine2::from_translation(Vec2::new(0.0, bad)));
        let mut m = Affine2::IDENTITY;
        m.matrix2.y_axis.x = bad;
        out.push(m);
    }
    out
}

/// A zero axis, a rank-one map.
fn singular_placements() -> [Affine2; 2] {
    [
        Affine2::from_scale(Vec2::new(1.0, 0.0)),
        Affine2::from_mat2(glam::Mat2::from_cols(Vec2::new(1.0, 2.0), Vec2::new(-0.5, -1.0))),
    ]
}

fn invalid_convex_shapes() -> Vec<Shape2> {
    use kollide::shape::Capsule2;
    [
        ConvexShape2::Ball(Ball2::new(-1.0)),
        ConvexShape2::Ball(Ball2::new(NAN)),
        ConvexShape2::Capsule(Capsule2::new(0.5, -0.1)),
        ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(1.0, INF))),
    ]
    .map(Shape2::Convex)
    .to_vec()
}

/// Runs a bad edit: it must return `expected` and change nothing.
fn refuse(
    d: &mut Driver,
    what: &str,
    expected: WorldError,
    edit: impl FnOnce(&mut World2) -> Result<(), WorldError>,
) {
    let before = snapshot(&d.world);
    let result = edit(&mut d.world);
    assert_eq!(result, Err(expected), "{what}");
    assert_eq!(snapshot(&d.world), before, "{what} changed the world");
}

#[test]
fn bad_edits_change_nothing() {
    let query = |e| WorldError::Query(e);
    let mut d = Driver::new(5, WorldSettings::default(), 20, false);
    for _ in 0..20 {
        let desc = d.desc();
        d.insert(desc);
    }
    // A ball for the overflows: every placement's box grows with its radius.
    let ball = ColliderDesc2::new(Shape2::Convex(ConvexShape2::Ball(Ball2::new(0.5))), Affine2::IDENTITY);
    let mut b = d.insert(ball.clone());
    let rounds = kollide_testkit::cases(300);
    let mut refused = 0;
    for round in 0..rounds {
        d.edit();
        if !d.world.contains(b) {
            b = d.insert(ball.clone());
        }
        let h = d.pick().unwrap();
        let composite = !matches!(d.model.get(h).unwrap().shape, Shape2::Convex(_));
        let good = d.desc();
        let bad_placement = non_finite_placements()[round % 6];
        let non_finite = query(QueryError::NonFinitePlacement(Operand::A));
        refuse(&mut d, "insert, non-finite", non_finite, |w| {
            w.insert(ColliderDesc2 { placement: bad_placement, ..good.clone() }).map(|_| ())
        });
        refuse(&mut d, "set_placement, non-finite", non_finite, |w| w.set_placement(h, bad_placement));
        refuse(&mut d, "set_motion, non-finite", non_finite, |w| w.set_motion(h, bad_placement, Vec2::X));
        let shape = invalid_convex_shapes()[round % 4].clone();
        refuse(&mut d, "insert, invalid shape", query(QueryError::InvalidShape(Operand::A)), |w| {
            w.insert(ColliderDesc2 { shape, ..good.clone() }).map(|_| ())
        });
        let singular = singular_placements()[round % 2];
        let polyline = Polyline2::new(&[Vec2::ZERO, Vec2::X], false, false).unwrap();
        refuse(&mut d, "insert, singular polyline", query(QueryError::SingularPlacement(Operand::A)), |w| {
            w.insert(ColliderDesc2::new(polyline.into(), singular)).map(|_| ())
        });
        if composite {
            let e = query(QueryError::SingularPlacement(Operand::A));
            refuse(&mut d, "set_placement, singular", e, |w| w.set_placement(h, singular));
        }
        // A box beyond `f32::MAX`, and a look-ahead box beyond it.
        let far = Affine2::from_scale_angle_translation(Vec2::splat(1e38), 0.0, Vec2::new(f32::MAX, 0.0));
        refuse(&mut d, "set_placement, overflowing", WorldError::UnboundedShape, |w| w.set_placement(b, far));
        refuse(&mut d, "insert, overflowing", WorldError::UnboundedShape, |w| {
            w.insert(ColliderDesc2 { placement: far, ..ball.clone() }).map(|_| ())
        });
        let edge = Affine2::from_translation(Vec2::new(3.39e38, 0.0));
        for velocity in [Vec2::new(NAN, 0.0), Vec2::new(0.0, -INF), Vec2::new(f32::MAX, 0.0)] {
            refuse(&mut d, "set_motion, velocity", WorldError::NonFiniteVelocity, |w| {
                w.set_motion(b, edge, velocity)
            });
        }
        let stale = d.removed.last().copied().unwrap_or(d.foreign);
        let expected = if d.world.contains(stale) {
            unreachable!()
        } else if stale == d.foreign {
            WorldError::ForeignHandle(stale)
        } else {
            WorldError::StaleHandle(stale)
        };
        refuse(&mut d, "remove, stale", expected, |w| w.remove(stale).map(|_| ()));
        refuse(&mut d, "set_filter, stale", expected, |w| w.set_filter(stale, CollisionFilter::NONE));
        refused += 13;
        d.world.step();
        d.model.step();
        if let Err(what) = check_step(&mut d) {
            panic!("round {round}, the step after refused edits: {what}");
        }
    }
    assert!(refused > 0 && d.counts.touching > 0, "{:?}", d.counts);
}

#[test]
fn bad_query_arguments_are_refused_before_any_visit() {
    let mut scene = Scene::new(11);
    for _ in 0..20 {
        scene.edit();
    }
    let world = &scene.world;
    let filter = QueryFilter::new();
    let arg = |what| Err(WorldError::Query(QueryError::NonFiniteArgument(what)));
    let visits = AtomicUsize::new(0);
    let mut ray_visitor = |_: ColliderHandle, _: &Collider2, _: &RayHit2| {
        visits.fetch_add(1, Ordering::Relaxed);
        HitVisit::Continue
    };
    for (origin, dir, max_t, expected) in [
        (Vec2::new(NAN, 0.0), Vec2::X, 10.0, arg("ray")),
        (Vec2::ZERO, Vec2::new(0.0, INF), 10.0, arg("ray")),
        (Vec2::ZERO, Vec2::X, NAN, arg("max_t")),
    ] {
        assert_eq!(world.visit_ray(&Ray2::new(origin, dir), max_t, &filter, &mut ray_visitor), expected);
        assert_eq!(world.cast_ray(&Ray2::new(origin, dir), max_t, &filter).map(|_| ()), expected);
    }
    let ball = Shape2::Convex(ConvexShape2::Ball(Ball2::new(0.5)));
    let polyline: Shape2 = Polyline2::new(&[Vec2::ZERO, Vec2::X, Vec2::Y], true, false).unwrap().into();
    let id = Affine2::IDENTITY;
    let mut cast_visitor = |_: ColliderHandle, _: &Collider2, _: &kollide::narrow::ShapeCastHit2| {
        visits.fetch_add(1, Ordering::Relaxed);
        HitVisit::Continue
    };
    let q = |e| Err(WorldError::Query(e));
    for (shape, placement, velocity, max_t, expected) in [
        (invalid_convex_shapes()[0].clone(), id, Vec2::X, 1.0, q(QueryError::InvalidShape(Operand::A))),
        (
            ball.clone(),
            non_finite_placements()[0],
            Vec2::X,
            1.0,
            q(QueryError::NonFinitePlacement(Operand::A)),
        ),
        (
            polyline.clone(),
            singular_placements()[0],
            Vec2::X,
            1.0,
            q(QueryError::SingularPlacement(Operand::A)),
        ),
        (ball.clone(), id, Vec2::new(NAN, 0.0), 1.0, Err(WorldError::NonFiniteVelocity)),
        (ball.clone(), id, Vec2::X, NAN, arg("max_t")),
    ] {
        assert_eq!(
            world.visit_shape_cast(&shape, &placement, velocity, max_t, &filter, &mut cast_visitor),
            expected
        );
        if max_t.is_finite() && velocity.is_finite() {
            let mut out = Vec::new();
            assert_eq!(world.overlap_shape(&shape, &placement, &filter, &mut out), expected);
            let mut within = Vec::new();
            assert_eq!(world.colliders_within(&shape, &placement, 1.0, &filter, &mut within), expected);
        }
    }
    let mut out = vec![ColliderHandle::clone(&scene.model.handles()[0])];
    for region in [
        Aabb2::new(Vec2::ONE, Vec2::ZERO),
        Aabb2::new(Vec2::new(NAN, 0.0), Vec2::ONE),
        Aabb2::new(Vec2::ZERO, Vec2::splat(INF)),
    ] {
        assert_eq!(world.overlap_box(&region, &filter, &mut out), arg("region"));
        assert!(out.is_empty());
    }
    assert_eq!(world.colliders_at_point(Vec2::new(0.0, NAN), &filter, &mut out), arg("point"));
    let mut within = Vec::new();
    for max_distance in [NAN, -1.0, INF] {
        assert_eq!(
            world.colliders_within(&ball, &id, max_distance, &filter, &mut within),
            arg("max_distance")
        );
    }
    assert_eq!(visits.load(Ordering::Relaxed), 0);
}

/// A convex collider flattened by a singular placement is accepted (pair queries allow it, as in
/// 3D); ray and point queries that reach it must not fail for the whole query (3D answers "no
/// hit" for a flattened convex shape, see `query::cast_ray`).
#[test]
fn a_flattened_convex_collider_does_not_break_ray_and_point_queries() {
    let mut world = World2::new();
    let flat = Affine2::from_scale(Vec2::new(1.0, 0.0));
    let ball = Shape2::Convex(ConvexShape2::Ball(Ball2::new(1.0)));
    let h =
        world.insert(ColliderDesc2::new(ball.clone(), flat)).expect("a flattened convex shape is accepted");
    let other =
        world.insert(ColliderDesc2::new(ball, Affine2::from_translation(Vec2::new(0.5, 0.0)))).unwrap();
    world.step();
    assert_eq!(world.touching_pairs().collect::<Vec<_>>(), vec![(h, other)]);
    let filter = QueryFilter::new();
    // Along the flattened ball's line: the ray meets its (flat) box.
    let hit = world.cast_ray(&Ray2::new(Vec2::new(-5.0, 0.0), Vec2::X), 10.0, &filter);
    assert!(matches!(hit, Ok(Some(_))), "{hit:?}");
    let mut out = Vec::new();
    assert_eq!(world.colliders_at_point(Vec2::new(0.6, 0.0), &filter, &mut out), Ok(()));
}

/// A triangle and a segment 0.058 apart, closest at a vertex of each, with a prediction distance
/// of 0.05 (found by `steps_equal_the_brute_force_model`: a star mesh's triangle and a sheared
/// segment): beyond the prediction, no manifold. The narrow phase's polygon manifold takes the
/// triangle's edge as the reference face, keeps the segment's end beyond that edge's extent
/// (`point_a` off the triangle) and reports a separation of 0.045, within the prediction and
/// below the distance (Box2D measures separated polygons by their closest features instead).
#[test]
fn a_pair_beyond_the_prediction_distance_gets_no_manifold() {
    let triangle = ConvexShape2::Triangle(kollide::shape::Triangle2::new(
        Vec2::new(-0.001956, -0.8567296),
        Vec2::new(0.000724, 0.0022568),
        Vec2::new(-0.221901, -0.55200655),
    ));
    let segment = ConvexShape2::Segment(kollide::shape::Segment2::new(
        Vec2::new(0.3179952, 0.3479976),
        Vec2::new(0.0459613, 0.03872945),
    ));
    let (a, b, id) = (Shape2::Convex(triangle), Shape2::Convex(segment), Affine2::IDENTITY);
    let distance = query::distance2(&a, &id, &b, &id).unwrap();
    assert!((distance - 0.0581).abs() < 1e-3, "{distance}");
    let mut manifolds = Vec::new();
    query::contact_manifolds2(&a, &id, &b, &id, 0.05, &mut manifolds).unwrap();
    assert!(
        manifolds.is_empty(),
        "manifolds at distance {distance} with a prediction of 0.05: {manifolds:?}"
    );
}

/// Two segments crossing at an angle, 0.1 and 0.05 deep (their `contact2`), touch, in the query
/// layer and in a world, and get a manifold. The narrow phase's segment pair measures a distance
/// of about 1e-7 (the rounding of the crossing point) and calls them apart.
#[test]
fn crossing_segments_touch_and_get_a_manifold() {
    let segment =
        |a: Vec2, b: Vec2| Shape2::Convex(ConvexShape2::Segment(kollide::shape::Segment2::new(a, b)));
    let floor = segment(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0));
    let id = Affine2::IDENTITY;
    for tilted in [
        segment(Vec2::new(0.2, -0.1), Vec2::new(-0.3, 1.0)),
        segment(Vec2::new(0.9, -0.05), Vec2::new(0.5, 1.0)),
    ] {
        let contact =
            query::contact2(&floor, &id, &tilted, &id, 0.0).unwrap().expect("crossing segments touch");
        assert!(contact.separation < -0.04, "{contact:?}");
        assert_eq!(query::intersects2(&floor, &id, &tilted, &id), Ok(true), "{tilted:?} crossing the floor");
        let mut world = World2::new();
        world.insert(ColliderDesc2::new(floor.clone(), id)).unwrap();
        world.insert(ColliderDesc2::new(tilted.clone(), id)).unwrap();
        world.step();
        let pairs: Vec<_> = world.contacts().collect();
        assert!(
            pairs.len() == 1 && !pairs[0].manifolds.is_empty(),
            "{tilted:?} crossing the floor: no manifold"
        );
    }
}

/// A capsule deep in a one-sided zigzag chain (found by `steps_equal_the_brute_force_model` at
/// ten times its cases): its origin lies in front of segment 2, which it touches near the convex
/// joint with segment 3 (whose line passes just in front of the origin), so the chain collides
/// with it; the pair touches but gets no manifold. Segment 2's own manifold is replaced, its
/// normal being outside the segment's cone, by a recomputation on the segment's face that finds
/// no point.
#[test]
fn a_shape_in_front_of_a_one_sided_chain_at_a_convex_joint_gets_a_manifold() {
    let points = [
        (-0.8, 0.08938226),
        (-0.4, -0.2540838),
        (0.0, -0.0666911),
        (0.40000004, 0.16451576),
        (0.8, -0.324728),
    ];
    let points: Vec<Vec2> = points.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
    let chain: Shape2 = Polyline2::new(&points, false, true).unwrap().into();
    let chain_at = Affine2::from_mat2_translation(
        glam::Mat2::from_cols(Vec2::new(-0.5336979, 0.6869334), Vec2::new(-0.6869334, -0.5336979)),
        Vec2::new(1.6786184, -1.0512928),
    );
    let capsule = Shape2::Convex(ConvexShape2::Capsule(kollide::shape::Capsule2::new(0.3950614, 0.28834212)));
    let capsule_at = Affine2::from_mat2_translation(
        glam::Mat2::from_cols(Vec2::new(-0.3387495, 0.94087654), Vec2::new(-0.94087654, -0.3387495)),
        Vec2::new(1.4169208, -0.56826264),
    );
    // In front of segment 2 (from points[2] to points[3]), which it touches.
    let origin = chain_at.inverse().transform_point2(capsule_at.translation);
    let d = points[3] - points[2];
    assert!(Vec2::new(d.y, -d.x).dot(origin - points[2]) > 0.1);
    let segment = Shape2::Convex(ConvexShape2::Segment(kollide::shape::Segment2::new(points[2], points[3])));
    assert_eq!(query::intersects2(&segment, &chain_at, &capsule, &capsule_at), Ok(true));
    let mut manifolds = Vec::new();
    query::contact_manifolds2(&chain, &chain_at, &capsule, &capsule_at, 0.0, &mut manifolds).unwrap();
    assert!(!manifolds.is_empty(), "a capsule in front of a segment it touches: no manifold");
}

// ---------------------------------------------------------------------------------------------
// Named scenes

/// A box sliding over the joints of a one-sided chain of collinear segments (a floor made of
/// 20 unit segments) at small, changing depths: every contact normal, from the chain to the box,
/// points straight up; none catches on a joint (a ghost contact would point along the floor).
#[test]
fn a_box_sliding_along_a_one_sided_chain_gets_only_upward_normals() {
    // The segments run from right to left, so their right-hand normals point up.
    let points: Vec<Vec2> = (0..=20).map(|i| Vec2::new(10.0 - i as f32, 0.0)).collect();
    let mut world = World2::new();
    let floor = Polyline2::new(&points, false, true).unwrap();
    let chain = world.insert(ColliderDesc2::new(floor.into(), Affine2::IDENTITY).fixed(true)).unwrap();
    let half = Vec2::new(0.5, 0.25);
    let mover = world
        .insert(ColliderDesc2::new(
            Shape2::Convex(ConvexShape2::Cuboid(Cuboid2::new(half))),
            Affine2::IDENTITY,
        ))
        .unwrap();
    let steps = 1000;
    let (mut manifolds, mut points_seen) = (0, 0);
    for k in 0..steps {
        let x = -8.0 + 16.0 * k as f32 / steps as f32;
        let depth = 0.001 + 0.01 * (1.0 + (k as f32 * 0.37).sin());
        let placement = Affine2::from_translation(Vec2::new(x, half.y - depth));
        world.set_motion(mover, placement, Vec2::new(16.0 * 60.0 / steps as f32, 0.0)).unwrap();
        world.step();
        let pairs: Vec<_> = world.contacts_of(mover).collect();
        assert_eq!(pairs.len(), 1, "step {k}: the box touches the floor");
        for m in pairs[0].manifolds {
            let up = if pairs[0].a == chain { m.manifold.normal } else { -m.manifold.normal };
            assert!((up - Vec2::Y).length() < 1e-4, "step {k} at x = {x}: normal {up} (a ghost contact)");
            for p in m.manifold.points() {
                assert!(
                    (p.separation + depth).abs() < 1e-4,
                    "step {k}: separation {} at depth {depth}",
                    p.separation
                );
            }
            manifolds += 1;
            points_seen += m.manifold.len();
        }
    }
    assert!(manifolds >= steps && points_seen >= 2 * steps, "{manifolds} manifolds, {points_seen} points");
}

/// The `standing_surfaces` example's level: each entity stands on exactly the surfaces (and
/// parts) the level was built with, and the flags select geometry or entities.
#[test]
fn the_standing_surfaces_example_finds_every_surface() {
    use standing_surfaces::{Flags, build_level, standing_surfaces};
    let level = build_level();
    let named = |entity: &str, flags: Flags| -> Vec<(String, Vec<u32>)> {
        standing_surfaces(&level, level.entity(entity), flags)
            .into_iter()
            .map(|s| (level.name(s.collider).to_string(), s.parts))
            .collect()
    };
    let of =
        |list: &[(&str, &[u32])]| list.iter().map(|(n, p)| (n.to_string(), p.to_vec())).collect::<Vec<_>>();
    let both = Flags::GEOMETRY | Flags::ENTITIES;
    assert_eq!(named("player", both), of(&[("pressure plate", &[0]), ("slime", &[0])]));
    assert_eq!(named("player", Flags::GEOMETRY), of(&[("pressure plate", &[0])]));
    assert_eq!(named("player", Flags::ENTITIES), of(&[("slime", &[0])]));
    assert_eq!(named("slime", both), of(&[("terrain", &[0])]));
    assert_eq!(named("crate", both), of(&[("terrain", &[0])]));
    assert_eq!(named("top crate", both), of(&[("crate", &[0])]));
    assert_eq!(named("top crate", Flags::GEOMETRY), of(&[]));
    assert_eq!(named("knight", both), of(&[("terrain", &[0, 1])]));
    assert_eq!(named("goblin", both), of(&[("terrain", &[1])]));
    assert_eq!(named("bird", both), of(&[]));
}
