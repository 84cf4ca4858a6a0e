//! The world's scene queries against brute force over every collider
//! (`kollide_testkit::reference_world::ModelWorld`: the single-shape or pair query of the query
//! layer on every collider the filter lets through, the filter written out again from its
//! documentation).
//!
//! Random scenes of mixed kinds (convex shapes, meshes, sphere sets, compounds, a few analytic
//! fields, some sensors and fixed colliders, random layers and groups) are queried between random
//! edits that are not followed by a step (the queries must see every edit at once) and steps.
//! Each query takes a random filter: the query's own layers and group, excluded handles, a
//! predicate, sensors or fixed colliders excluded, or none.
//!
//! - `cast_ray`: the closest hit's `t` within `1e-4` (relative) of the brute-force least; the
//!   handle may differ only on a tie. Rays have non-unit directions, finite or infinite `max_t`,
//!   a few are zero or negative.
//! - `cast_ray_any`: a hit exactly when brute force has one, and a collider brute force hits.
//! - `cast_ray_all`: the same colliders, each with brute force's `t`, sorted by `t`.
//! - Visitors on rays: one that keeps the least `t` and clips finds the closest hit; one that
//!   stops at the first hit returns a valid hit, the first in candidate order (colliders are
//!   offered by increasing box entry, every collider offered before it has no hit); one that
//!   skips colliders at the collider level finds the closest among the others; one that
//!   continues is offered every collider brute force hits, and only colliders the filter sees.
//! - `cast_shape` (the collider is A, the moving shape B, as `query::cast_shape`): the earliest
//!   `t` within tolerance, ties as for rays; a visitor that continues gets brute force's set of
//!   hits.
//! - `overlap_shape`, `overlap_box`, `colliders_at_point`: the same colliders, in slot order;
//!   `colliders_within`: the same colliders and distances, by increasing distance.
//! - `cast_rays`: each answer equals `cast_ray`'s (on threads with `parallel`).
//!
//! 10,000 queries over all scenes by default (scaled by `KOLLIDE_CASES`).

use kollide::broad::BroadPhase;
use std::time::Instant;

use glam::{Affine3A, Vec3};
use kollide::bounds::Aabb3;
use kollide::math::Ray3;
use kollide::query::{self, Shape};
use kollide::shape::{ConvexShape, Cuboid};
use kollide::world::{
    Collider3, ColliderHandle, ColliderVisit, CollisionFilter, HitVisit, QueryFilter, Visitor, World3,
    WorldSettings,
};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_world::{
    ModelWorld, SceneMix, SceneRoles, nudged, random_desc, random_filter, random_placement,
    random_scene_shape,
};
use rand::Rng;

/// Queries over all scenes, and scenes.
const QUERIES: usize = 10_000;
const SCENES: usize = 20;
/// Relative tolerance of hit times: the world and brute force run the same per-collider query,
/// but the world's reach shrinks as it clips, and casts converge to a tolerance that depends on it.
const TOL: f32 = 1e-4;

/// A scene: the world and the brute-force model with the same colliders.
struct Scene {
    world: World3,
    model: ModelWorld,
    rng: TestRng,
    half: f32,
}

impl Scene {
    fn new(seed: u64) -> Self {
        let mut rng = random::rng(seed);
        let len = rng.random_range(12..=40);
        let half = 0.8 * (len as f32).cbrt();
        let mut scene = Scene {
            world: World3::with_settings(WorldSettings::default()),
            model: ModelWorld::new(),
            rng,
            half,
        };
        for _ in 0..len {
            scene.insert();
        }
        scene
    }

    fn insert(&mut self) {
        let desc = random_desc(
            &mut self.rng,
            SceneMix::WITH_FIELDS,
            SceneRoles { sensor: 0.15, fixed: 0.2 },
            self.half,
        );
        let h = self.world.insert(desc.clone()).unwrap();
        self.model.insert(h, &desc);
    }

    /// Random edits, then a step one time in three.
    fn edit(&mut self) {
        for h in self.model.handles() {
            if self.rng.random_bool(0.2) {
                let old = self.model.get(h).unwrap().placement;
                let placement = if self.rng.random_bool(0.1) {
                    random_placement(&mut self.rng, self.half)
                } else {
                    nudged(&mut self.rng, &old, 0.3, 0.3, self.half)
                };
                if self.rng.random_bool(0.5) {
                    self.world.set_motion(h, placement, random::point3(&mut self.rng, 5.0)).unwrap();
                } else {
                    self.world.set_placement(h, placement).unwrap();
                }
                self.model.set_placement(h, placement);
            }
        }
        if self.rng.random_bool(0.3) && self.model.len() > 8 {
            let handles = self.model.handles();
            let h = handles[self.rng.random_range(0..handles.len())];
            self.world.remove(h).unwrap();
            self.model.remove(h);
        }
        if self.rng.random_bool(0.3) && self.model.len() < 45 {
            self.insert();
        }
        if self.rng.random_bool(0.2) {
            let handles = self.model.handles();
            let h = handles[self.rng.random_range(0..handles.len())];
            let filter = random_filter(&mut self.rng);
            self.world.set_filter(h, filter).unwrap();
            self.model.set_filter(h, filter);
        }
        if self.rng.random_bool(0.3) {
            self.world.step();
        }
    }
}

/// A query filter's owned parts.
#[derive(Clone, Debug)]
struct FilterSpec {
    bits: CollisionFilter,
    exclude: Vec<ColliderHandle>,
    exclude_sensors: bool,
    exclude_fixed: bool,
    /// Skip colliders whose slot is `r` modulo `m`.
    predicate: Option<(u32, u32)>,
}

fn random_filter_spec(rng: &mut TestRng, handles: &[ColliderHandle]) -> FilterSpec {
    let mut spec = FilterSpec {
        bits: CollisionFilter::ALL,
        exclude: Vec::new(),
        exclude_sensors: false,
        exclude_fixed: false,
        predicate: None,
    };
    if rng.random_bool(0.5) {
        return spec;
    }
    if rng.random_bool(0.4) {
        spec.bits = random_filter(rng);
    }
    if rng.random_bool(0.3) {
        for _ in 0..rng.random_range(1..=3) {
            spec.exclude.push(handles[rng.random_range(0..handles.len())]);
        }
    }
    spec.exclude_sensors = rng.random_bool(0.3);
    spec.exclude_fixed = rng.random_bool(0.2);
    if rng.random_bool(0.3) {
        let m = rng.random_range(2..4);
        spec.predicate = Some((m, rng.random_range(0..m)));
    }
    spec
}

/// The world's view of a collider: which box entries order the candidates.
fn box_entry(bounds: &Aabb3, ray: &Ray3, max_t: f32) -> Option<f32> {
    // Written again (slabs in f64), not `Aabb3::ray_interval`.
    let (mut near, mut far) = (0.0f64, f64::from(max_t));
    for i in 0..3 {
        let (o, d) = (f64::from(ray.origin[i]), f64::from(ray.dir[i]));
        let (lo, hi) = (f64::from(bounds.min[i]), f64::from(bounds.max[i]));
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (t1, t2) = ((lo - o) / d, (hi - o) / d);
        near = near.max(t1.min(t2));
        far = far.min(t1.max(t2));
    }
    (near <= far).then_some(near as f32)
}

#[derive(Default, Debug)]
struct Counts {
    rays: usize,
    ray_hits: usize,
    infinite_rays: usize,
    ties: usize,
    casts: usize,
    cast_hits: usize,
    overlaps: usize,
    overlap_hits: usize,
    boxes: usize,
    points: usize,
    point_hits: usize,
    within: usize,
    within_hits: usize,
    batches: usize,
    /// Stopping visitors whose hit came after colliders without one (candidate order tested).
    stops_after_misses: usize,
    /// Ray visitors running a nested query at each hit.
    nested: usize,
}

/// Runs one random query of a random kind on the scene and checks it; `Err` describes the first
/// mistake.
fn query_once(scene: &mut Scene, counts: &mut Counts) -> Result<(), String> {
    let handles = scene.model.handles();
    let spec = random_filter_spec(&mut scene.rng, &handles);
    let predicate = spec.predicate.map(|(m, r)| move |h: ColliderHandle| h.index() % m != r);
    let filter = QueryFilter {
        bits: spec.bits,
        exclude: &spec.exclude,
        exclude_sensors: spec.exclude_sensors,
        exclude_fixed: spec.exclude_fixed,
        predicate: predicate.as_ref().map(|p| p as &(dyn Fn(ColliderHandle) -> bool + Sync)),
    };
    let kind = scene.rng.random_range(0..100);
    let result = match kind {
        0..45 => check_ray(scene, &filter, counts),
        45..60 => check_cast(scene, &filter, counts),
        60..72 => check_overlap(scene, &filter, counts),
        72..80 => check_box(scene, &filter, counts),
        80..90 => check_point(scene, &filter, counts),
        _ => check_within(scene, &filter, counts),
    };
    result.map_err(|what| format!("{what}\n  filter {spec:?}"))
}

fn random_ray(scene: &mut Scene) -> (Ray3, f32) {
    let rng = &mut scene.rng;
    let origin = random::point3(rng, 1.3 * scene.half);
    let dir = match rng.random_range(0..50) {
        0 => Vec3::ZERO,
        _ => random::unit3(rng) * rng.random_range(0.3..3.0),
    };
    let max_t = match rng.random_range(0..10) {
        0..3 => f32::INFINITY,
        3 => -1.0,
        _ => rng.random_range(0.0..3.0 * scene.half) / dir.length().max(0.3),
    };
    (Ray3::new(origin, dir), max_t)
}

fn close(t: f32, expected: f32) -> bool {
    (t - expected).abs() <= TOL * (1.0 + expected.abs())
}

fn check_ray(scene: &mut Scene, filter: &QueryFilter, counts: &mut Counts) -> Result<(), String> {
    let (ray, max_t) = random_ray(scene);
    let (world, model) = (&scene.world, &scene.model);
    counts.rays += 1;
    counts.infinite_rays += usize::from(max_t == f32::INFINITY);
    let hits = model.ray_hits(&ray, max_t, filter);
    let t_of = |h: ColliderHandle| hits.iter().find(|(x, _)| *x == h).map(|(_, hit)| hit.t);
    let least = hits.iter().map(|(_, hit)| hit.t).fold(f32::INFINITY, f32::min);
    let repro = format!(
        "ray {ray:?} max_t {max_t}: brute force {:?}",
        hits.iter().map(|(h, hit)| (h.index(), hit.t)).collect::<Vec<_>>()
    );
    counts.ray_hits += usize::from(!hits.is_empty());
    // The closest hit.
    let closest = world.cast_ray(&ray, max_t, filter).map_err(|e| format!("cast_ray: {e}"))?;
    match closest {
        None if hits.is_empty() => {}
        Some((h, hit)) if !hits.is_empty() => {
            if !close(hit.t, least) {
                return Err(format!("cast_ray: t {} for {h:?}, least {least}; {repro}", hit.t));
            }
            let own = t_of(h).ok_or_else(|| format!("cast_ray: {h:?} is no hit of brute force; {repro}"))?;
            if !close(own, least) || !close(hit.t, own) {
                return Err(format!("cast_ray: {h:?} at {}, its own hit at {own}; {repro}", hit.t));
            }
            counts.ties += usize::from(hits.iter().filter(|(_, x)| close(x.t, least)).count() > 1);
        }
        other => return Err(format!("cast_ray: {other:?}; {repro}")),
    }
    // Any hit.
    let any = world.cast_ray_any(&ray, max_t, filter).map_err(|e| format!("cast_ray_any: {e}"))?;
    if any.is_some() == hits.is_empty() || any.is_some_and(|h| t_of(h).is_none()) {
        return Err(format!("cast_ray_any: {any:?}; {repro}"));
    }
    // All hits.
    let mut all = Vec::new();
    world.cast_ray_all(&ray, max_t, filter, &mut all).map_err(|e| format!("cast_ray_all: {e}"))?;
    let mut got: Vec<ColliderHandle> = all.iter().map(|(h, _)| *h).collect();
    got.sort();
    let expected: Vec<ColliderHandle> = hits.iter().map(|(h, _)| *h).collect();
    if got != expected
        || all.iter().any(|(h, hit)| !close(hit.t, t_of(*h).unwrap_or(f32::NAN)))
        || all.windows(2).any(|w| w[0].1.t > w[1].1.t)
    {
        return Err(format!(
            "cast_ray_all: {:?}; {repro}",
            all.iter().map(|(h, hit)| (h.index(), hit.t)).collect::<Vec<_>>()
        ));
    }
    // A visitor keeping the least `t` and clipping.
    let mut best: Option<(ColliderHandle, f32)> = None;
    world
        .visit_ray(&ray, max_t, filter, &mut |h, _: &Collider3, hit: &kollide::primitive::RayHit3| {
            if best.is_none_or(|(_, t)| hit.t < t) {
                best = Some((h, hit.t));
            }
            HitVisit::Clip
        })
        .map_err(|e| format!("visit_ray: {e}"))?;
    if best.is_some() == hits.is_empty() || best.is_some_and(|(h, t)| !close(t, least) || t_of(h).is_none()) {
        return Err(format!("clipping visitor: {best:?}; {repro}"));
    }
    // A visitor that stops at the first hit, recording the candidates offered.
    let mut stopper = Recorder {
        offered: Vec::new(),
        hits: Vec::new(),
        skip: None,
        stop_after: None,
        on_hit: HitVisit::Stop,
    };
    world.visit_ray(&ray, max_t, filter, &mut stopper).map_err(|e| format!("visit_ray: {e}"))?;
    if stopper.hits.len() > 1
        || stopper.hits.first().is_some_and(|&(h, t)| t_of(h).is_none_or(|own| !close(t, own)))
    {
        return Err(format!("stopping visitor: {:?}; {repro}", stopper.hits));
    }
    if stopper.hits.is_empty() != hits.is_empty() {
        return Err(format!("stopping visitor found {:?}; {repro}", stopper.hits));
    }
    if let Some(&(h, _)) = stopper.hits.first() {
        // The hit is the last collider offered; those before it have no hit.
        if stopper.offered.last() != Some(&h)
            || stopper.offered[..stopper.offered.len() - 1].iter().any(|&x| t_of(x).is_some())
        {
            return Err(format!("stopping visitor: offered {:?}, hit {h:?}; {repro}", stopper.offered));
        }
        counts.stops_after_misses += usize::from(stopper.offered.len() > 1);
    }
    check_candidates(world, &ray, max_t, &stopper.offered).map_err(|e| format!("{e}; {repro}"))?;
    // Queries nested in a visitor (the outer query holds the shared scratch buffers): each hit
    // collider's box overlaps what brute force says, and the outer query still gets every hit.
    if counts.rays % 8 == 0 {
        let mut nested: Result<Vec<ColliderHandle>, String> = Ok(Vec::new());
        world
            .visit_ray(&ray, max_t, filter, &mut |h, c: &Collider3, _: &kollide::primitive::RayHit3| {
                let region = *c.bounds();
                let mut inner = Vec::new();
                let cuboid = Shape::Convex(ConvexShape::Cuboid(Cuboid::new((region.max - region.min) / 2.0)));
                let at = Affine3A::from_translation((region.min + region.max) / 2.0);
                let expected = model.overlapping(&cuboid, &at, &QueryFilter::new());
                let result = world.overlap_box(&region, &QueryFilter::new(), &mut inner);
                match &mut nested {
                    Ok(seen) if result.is_ok() && inner == expected => {
                        seen.push(h);
                        HitVisit::Continue
                    }
                    _ => {
                        nested = Err(format!(
                            "nested overlap_box of {h:?}: {result:?} {inner:?}, brute force {expected:?}"
                        ));
                        HitVisit::Stop
                    }
                }
            })
            .map_err(|e| format!("visit_ray: {e}"))?;
        let mut seen = nested.map_err(|e| format!("{e}; {repro}"))?;
        seen.sort();
        if seen != hits.iter().map(|(h, _)| *h).collect::<Vec<_>>() {
            return Err(format!("visitor with nested queries hit {seen:?}; {repro}"));
        }
        counts.nested += 1;
    }
    // A visitor that continues: offered every collider hit, and only colliders the filter sees.
    let mut all_visitor = Recorder {
        offered: Vec::new(),
        hits: Vec::new(),
        skip: None,
        stop_after: None,
        on_hit: HitVisit::Continue,
    };
    world.visit_ray(&ray, max_t, filter, &mut all_visitor).map_err(|e| format!("visit_ray: {e}"))?;
    for &(h, _) in &hits {
        if !all_visitor.offered.contains(&h) {
            return Err(format!("continuing visitor: {h:?} hit but never offered; {repro}"));
        }
    }
    for &h in &all_visitor.offered {
        let c = model.get(h).ok_or_else(|| format!("offered a removed collider {h:?}"))?;
        if !model.sees(filter, h, c) {
            return Err(format!("continuing visitor: offered {h:?}, which the filter hides"));
        }
    }
    check_candidates(world, &ray, max_t, &all_visitor.offered).map_err(|e| format!("{e}; {repro}"))?;
    // A visitor that skips odd slots at the collider level and clips: the closest even hit.
    let mut skipper = Recorder {
        offered: Vec::new(),
        hits: Vec::new(),
        skip: Some(2),
        stop_after: None,
        on_hit: HitVisit::Clip,
    };
    world.visit_ray(&ray, max_t, filter, &mut skipper).map_err(|e| format!("visit_ray: {e}"))?;
    let even_least =
        hits.iter().filter(|(h, _)| h.index() % 2 == 0).map(|(_, hit)| hit.t).fold(f32::INFINITY, f32::min);
    let skipper_least = skipper.hits.iter().map(|&(_, t)| t).fold(f32::INFINITY, f32::min);
    if skipper.hits.iter().any(|(h, _)| h.index() % 2 == 1)
        || (even_least.is_finite() != skipper_least.is_finite())
        || (even_least.is_finite() && !close(skipper_least, even_least))
    {
        return Err(format!("skipping visitor: {:?}, least even {even_least}; {repro}", skipper.hits));
    }
    // A visitor that stops at the collider level after three candidates.
    let mut limited = Recorder {
        offered: Vec::new(),
        hits: Vec::new(),
        skip: None,
        stop_after: Some(3),
        on_hit: HitVisit::Continue,
    };
    world.visit_ray(&ray, max_t, filter, &mut limited).map_err(|e| format!("visit_ray: {e}"))?;
    if limited.offered.len() > 4
        || limited.offered[..limited.offered.len().min(3)]
            != all_visitor.offered[..all_visitor.offered.len().min(3)]
    {
        return Err(format!(
            "collider-level stop: offered {:?}, in full {:?}",
            limited.offered, all_visitor.offered
        ));
    }
    Ok(())
}

/// The offered colliders are offered once each, and the ray meets each one's box in the broad
/// phase (which for a collider moved with a velocity also covers the look-ahead) within the
/// reach. (The order is nearer subtrees first, not sorted: not checked.)
fn check_candidates(
    world: &World3,
    ray: &Ray3,
    max_t: f32,
    offered: &[ColliderHandle],
) -> Result<(), String> {
    let reach = max_t.min(f32::MAX);
    let mut seen = offered.to_vec();
    seen.sort();
    seen.dedup();
    if seen.len() != offered.len() {
        return Err(format!("a candidate offered twice: {offered:?}"));
    }
    for &h in offered {
        let broad_box =
            world.broad_phase().bounds(h.index()).ok_or_else(|| format!("{h:?} not in the broad phase"))?;
        if box_entry(&broad_box, ray, reach).is_none() {
            return Err(format!("candidate {h:?} whose box the ray misses"));
        }
    }
    Ok(())
}

/// A visitor recording what it is offered and what it hits: skips slots divisible by `skip`
/// plus one (odd slots for 2), stops at the collider level after `stop_after` colliders, and
/// answers `on_hit` to every hit.
struct Recorder {
    offered: Vec<ColliderHandle>,
    hits: Vec<(ColliderHandle, f32)>,
    skip: Option<u32>,
    stop_after: Option<usize>,
    on_hit: HitVisit,
}

impl Visitor<kollide::world::Dim3, kollide::primitive::RayHit3> for Recorder {
    fn collider(&mut self, handle: ColliderHandle, _: &Collider3) -> ColliderVisit {
        if self.stop_after.is_some_and(|n| self.offered.len() >= n) {
            return ColliderVisit::Stop;
        }
        if self.skip.is_some_and(|m| handle.index() % m == 1) {
            return ColliderVisit::Skip;
        }
        self.offered.push(handle);
        ColliderVisit::Test
    }

    fn hit(&mut self, handle: ColliderHandle, _: &Collider3, hit: &kollide::primitive::RayHit3) -> HitVisit {
        self.hits.push((handle, hit.t));
        self.on_hit
    }
}

/// A moving shape for casts and overlaps: mostly convex, some sphere sets and compounds (and,
/// for overlaps only, meshes).
fn moving_shape(scene: &mut Scene, overlap: bool) -> (Shape, Affine3A) {
    let rng = &mut scene.rng;
    let mix = if overlap {
        SceneMix::SOLIDS
    } else {
        SceneMix { convex: 12, mesh: 0, sphere_set: 3, compound: 1, field: 0 }
    };
    let shape = random_scene_shape(rng, mix);
    let mut placement = random_placement(rng, 1.2 * scene.half);
    placement.matrix3 *= rng.random_range(0.4..1.0);
    (shape, placement)
}

fn check_cast(scene: &mut Scene, filter: &QueryFilter, counts: &mut Counts) -> Result<(), String> {
    let (shape, placement) = moving_shape(scene, false);
    let rng = &mut scene.rng;
    // Standing still one time in twenty: only what it overlaps now, at t = 0.
    let velocity =
        if rng.random_bool(0.05) { Vec3::ZERO } else { random::unit3(rng) * rng.random_range(0.5..4.0) };
    let speed = velocity.length().max(0.5);
    let max_t =
        if rng.random_bool(0.15) { f32::INFINITY } else { rng.random_range(0.0..2.0 * scene.half) / speed };
    let (world, model) = (&scene.world, &scene.model);
    counts.casts += 1;
    let hits = model.cast_hits(&shape, &placement, velocity, max_t, filter);
    let t_of = |h: ColliderHandle| hits.iter().find(|(x, _)| *x == h).map(|(_, hit)| hit.t);
    let least = hits.iter().map(|(_, hit)| hit.t).fold(f32::INFINITY, f32::min);
    counts.cast_hits += usize::from(!hits.is_empty());
    let repro = format!(
        "cast of {shape:?} at {placement:?} by {velocity} up to {max_t}: brute force {:?}",
        hits.iter().map(|(h, hit)| (h.index(), hit.t)).collect::<Vec<_>>()
    );
    let found = world
        .cast_shape(&shape, &placement, velocity, max_t, filter)
        .map_err(|e| format!("cast_shape: {e}"))?;
    // A cast's time converges to a distance tolerance: in time units, relative to the speed.
    let tol = |t: f32| TOL * (1.0 + t.abs()) * (1.0 + 1.0 / speed);
    match found {
        None if hits.is_empty() => {}
        Some((h, hit)) if !hits.is_empty() => {
            let own =
                t_of(h).ok_or_else(|| format!("cast_shape: {h:?} is no hit of brute force; {repro}"))?;
            if (hit.t - least).abs() > tol(least) || (own - least).abs() > tol(least) {
                return Err(format!(
                    "cast_shape: {h:?} at {} (its own {own}), least {least}; {repro}",
                    hit.t
                ));
            }
        }
        other => return Err(format!("cast_shape: {other:?}; {repro}")),
    }
    // A visitor that continues gets every hit.
    let mut got = Vec::new();
    world
        .visit_shape_cast(
            &shape,
            &placement,
            velocity,
            max_t,
            filter,
            &mut |h, _: &Collider3, hit: &query::ShapeCastHit| {
                got.push((h, hit.t));
                HitVisit::Continue
            },
        )
        .map_err(|e| format!("visit_shape_cast: {e}"))?;
    got.sort_by_key(|(h, _)| *h);
    let expected: Vec<_> = hits.iter().map(|(h, hit)| (*h, hit.t)).collect();
    if got.len() != expected.len()
        || got.iter().zip(&expected).any(|(g, e)| g.0 != e.0 || (g.1 - e.1).abs() > tol(e.1))
    {
        return Err(format!(
            "continuing cast visitor: {:?}; {repro}",
            got.iter().map(|(h, t)| (h.index(), *t)).collect::<Vec<_>>()
        ));
    }
    Ok(())
}

fn slot_ordered(list: &[ColliderHandle]) -> bool {
    list.windows(2).all(|w| w[0].index() < w[1].index())
}

fn check_overlap(scene: &mut Scene, filter: &QueryFilter, counts: &mut Counts) -> Result<(), String> {
    let (shape, placement) = moving_shape(scene, true);
    counts.overlaps += 1;
    let expected = scene.model.overlapping(&shape, &placement, filter);
    counts.overlap_hits += usize::from(!expected.is_empty());
    let mut got = Vec::new();
    scene
        .world
        .overlap_shape(&shape, &placement, filter, &mut got)
        .map_err(|e| format!("overlap_shape: {e}"))?;
    if !slot_ordered(&got) {
        return Err(format!("overlap_shape: not in slot order: {got:?}"));
    }
    got.sort();
    if got != expected {
        return Err(format!(
            "overlap_shape of {shape:?} at {placement:?}: {got:?}, brute force {expected:?}"
        ));
    }
    Ok(())
}

fn check_box(scene: &mut Scene, filter: &QueryFilter, counts: &mut Counts) -> Result<(), String> {
    let rng = &mut scene.rng;
    let center = random::point3(rng, 1.2 * scene.half);
    let half = Vec3::new(rng.random_range(0.0..1.5), rng.random_range(0.0..1.5), rng.random_range(0.0..1.5));
    let region = Aabb3::new(center - half, center + half);
    counts.boxes += 1;
    // The box as a cuboid, written again.
    let cuboid = Shape::Convex(ConvexShape::Cuboid(Cuboid::new(half)));
    let expected = scene.model.overlapping(&cuboid, &Affine3A::from_translation(center), filter);
    let mut got = Vec::new();
    scene.world.overlap_box(&region, filter, &mut got).map_err(|e| format!("overlap_box: {e}"))?;
    if !slot_ordered(&got) {
        return Err(format!("overlap_box: not in slot order: {got:?}"));
    }
    got.sort();
    if got != expected {
        return Err(format!("overlap_box {region:?}: {got:?}, brute force {expected:?}"));
    }
    Ok(())
}

fn check_point(scene: &mut Scene, filter: &QueryFilter, counts: &mut Counts) -> Result<(), String> {
    // Points at collider centres half of the time (most random points are in nothing).
    let handles = scene.model.handles();
    let rng = &mut scene.rng;
    let p = if rng.random_bool(0.5) {
        let h = handles[rng.random_range(0..handles.len())];
        let b = scene.world.collider(h).unwrap().bounds();
        (b.min + b.max) / 2.0 + random::point3(rng, 0.2)
    } else {
        random::point3(rng, 1.2 * scene.half)
    };
    counts.points += 1;
    let expected = scene.model.containing(p, filter);
    counts.point_hits += usize::from(!expected.is_empty());
    let mut got = Vec::new();
    scene.world.colliders_at_point(p, filter, &mut got).map_err(|e| format!("colliders_at_point: {e}"))?;
    if !slot_ordered(&got) {
        return Err(format!("colliders_at_point: not in slot order: {got:?}"));
    }
    got.sort();
    if got != expected {
        return Err(format!("colliders_at_point {p}: {got:?}, brute force {expected:?}"));
    }
    Ok(())
}

fn check_within(scene: &mut Scene, filter: &QueryFilter, counts: &mut Counts) -> Result<(), String> {
    let (shape, placement) = moving_shape(scene, false);
    let max_distance = scene.rng.random_range(0.0..1.0);
    counts.within += 1;
    let expected = scene.model.within(&shape, &placement, max_distance, filter);
    counts.within_hits += usize::from(!expected.is_empty());
    let mut got = Vec::new();
    scene
        .world
        .colliders_within(&shape, &placement, max_distance, filter, &mut got)
        .map_err(|e| format!("colliders_within: {e}"))?;
    if got.windows(2).any(|w| w[0].1 > w[1].1) {
        return Err(format!("colliders_within: not by distance: {got:?}"));
    }
    got.sort_by_key(|(h, _)| *h);
    if got.len() != expected.len() || got.iter().zip(&expected).any(|(g, e)| g.0 != e.0 || g.1 != e.1) {
        return Err(format!(
            "colliders_within {max_distance} of {shape:?} at {placement:?}: {got:?}, brute force {expected:?}"
        ));
    }
    Ok(())
}

/// A batch of rays through `cast_rays` (on threads with `parallel` above 64 rays) equals
/// `cast_ray` on each.
fn check_batch(scene: &mut Scene, counts: &mut Counts) -> Result<(), String> {
    let n = scene.rng.random_range(1..200);
    let rays: Vec<(Ray3, f32)> = (0..n).map(|_| random_ray(scene)).collect();
    let filter = QueryFilter::new();
    let mut out = Vec::new();
    scene.world.cast_rays(&rays, &filter, &mut out);
    counts.batches += 1;
    if out.len() != rays.len() {
        return Err(format!("cast_rays: {} answers for {} rays", out.len(), rays.len()));
    }
    for ((ray, max_t), got) in rays.iter().zip(&out) {
        let one = scene.world.cast_ray(ray, *max_t, &filter);
        let same = match (got, &one) {
            (Ok(Some((h, x))), Ok(Some((k, y)))) => {
                h == k && x.t == y.t && x.normal == y.normal && x.part == y.part
            }
            (Ok(None), Ok(None)) => true,
            (Err(e), Err(f)) => e == f,
            _ => false,
        };
        if !same {
            return Err(format!("cast_rays: {got:?}, cast_ray {one:?} for {ray:?} up to {max_t}"));
        }
    }
    Ok(())
}

#[test]
fn scene_queries_equal_brute_force() {
    let start = Instant::now();
    let queries = kollide_testkit::cases(QUERIES);
    let scenes = SCENES.min(queries);
    let mut counts = Counts::default();
    for s in 0..scenes {
        let mut scene = Scene::new(0x7175_6572_7900_0000 + s as u64);
        let per_scene = queries / scenes + usize::from(s < queries % scenes);
        for q in 0..per_scene {
            if q % 25 == 24 {
                scene.edit();
            }
            if q % 100 == 10 {
                check_batch(&mut scene, &mut counts)
                    .unwrap_or_else(|what| panic!("scene {s}, query {q}: {what}"));
            }
            query_once(&mut scene, &mut counts).unwrap_or_else(|what| panic!("scene {s}, query {q}: {what}"));
        }
    }
    println!("{queries} queries on {scenes} scenes in {:.1?}: {counts:?}", start.elapsed());
    // Not vacuous: hits and misses of every kind.
    let c = &counts;
    for (name, hits, total) in [
        ("rays", c.ray_hits, c.rays),
        ("casts", c.cast_hits, c.casts),
        ("overlaps", c.overlap_hits, c.overlaps),
        ("points", c.point_hits, c.points),
        ("within", c.within_hits, c.within),
    ] {
        assert!(hits > total / 10 && hits < total, "{name}: {hits} of {total} hit: {counts:?}");
    }
    assert!(c.infinite_rays > 0 && c.stops_after_misses > 0 && c.boxes > 0 && c.batches > 0, "{counts:?}");
    assert!(c.nested > 0, "{counts:?}");
}
