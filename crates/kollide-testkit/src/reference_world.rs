//! A brute-force collision world, the reference of the world suites (`world_model`,
//! `world_queries`, `world_edits` for `World3`, `world2` for `World2`): colliders in a map by
//! handle, and a step that tests every pair of colliders with the query layer's exact
//! `intersects` (no broad phase, no pair table kept across steps, no warm starts, no reuse of
//! unmoved pairs). It is written once over the world's dimension trait `Dim`, through
//! [`ModelDim`], which calls the query layer's own entry points (`query::intersects` and the
//! others for [`Dim3`], `query::intersects2` and the others for `Dim2`, in
//! [`crate::reference_world2`]) rather than the world's `Dim` implementation.
//!
//! The world's rules are written out again from their documentation rather than called:
//! two fixed colliders never touch; layers and groups ([`filter_allows`], Box2D's rule, tested
//! both ways); the caller's pair rule, called with the lower slot first; a pair with a sensor
//! gives sensor events; a pair stops touching, with an `ended` event at the next step, when a
//! collider is removed, filtered out or moved apart. Scene queries ([`ModelWorld::ray_hits`] and
//! the others) run the single-shape or pair query on every collider the filter lets through.
//!
//! The only shortcuts are pure: a pair is not tested again while neither placement changed
//! (the query is a function of the shapes and placements), and a pair whose bounding balls
//! (from the testkit's reference boxes, not the library's) are apart is not tested.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

use glam::{Affine3A, Mat3, Quat, Vec3};
use kollide::bounds::Sphere;
use kollide::broad::BroadBounds;
use kollide::math::Ray3;
use kollide::mesh::{SphereSet, TriMesh};
use kollide::primitive::RayHit3;
use kollide::query::{self, Compound, QueryError, Shape, ShapeCastHit};
use kollide::shape::{ConvexShape, ShapeKind};
use kollide::world::{
    ColliderDesc, ColliderDesc3, ColliderHandle, CollisionEvent, CollisionFilter, Dim, Dim3, EventKind,
    QueryFilter,
};
use rand::Rng;

use crate::random::{self, TestRng};
use crate::reference_convex::random_shape;
use crate::reference_query::RefPlaced;
use crate::shapes;

/// The ray of a dimension's scene queries.
pub type RayOf<D> = <<D as Dim>::Bounds as BroadBounds>::Ray;

/// What the model needs of a dimension besides the world's [`Dim`] types: the query layer's own
/// entry points, called directly (not through the `Dim` implementation the world runs), and a
/// bounding ball of a shape from the testkit's reference boxes.
pub trait ModelDim: Dim {
    /// A ball `(centre, radius)` around the shape in its own frame, from a reference box
    /// (infinite radius when unknown).
    fn local_ball(shape: &Self::Shape) -> (Self::Vector, f32);
    /// A ball around the shape under `placement`, from its local ball: the centre mapped, the
    /// radius times the Frobenius norm of the linear part (at least its largest stretch), padded
    /// for rounding.
    fn world_ball(local: (Self::Vector, f32), placement: &Self::Placement) -> (Self::Vector, f32);
    /// Whether two balls are apart.
    fn balls_apart(a: (Self::Vector, f32), b: (Self::Vector, f32)) -> bool;
    /// The query layer's uncached `intersects`.
    fn ref_intersects(
        a: &Self::Shape,
        a_to_world: &Self::Placement,
        b: &Self::Shape,
        b_to_world: &Self::Placement,
    ) -> Result<bool, QueryError>;
    /// The query layer's `cast_ray`.
    fn ref_cast_ray(
        shape: &Self::Shape,
        to_world: &Self::Placement,
        ray: &RayOf<Self>,
        max_t: f32,
    ) -> Result<Option<Self::RayHit>, QueryError>;
    /// The query layer's `cast_shape` (A stays, B moves).
    fn ref_cast_shape(
        a: &Self::Shape,
        a_to_world: &Self::Placement,
        b: &Self::Shape,
        b_to_world: &Self::Placement,
        velocity: Self::Vector,
        max_t: f32,
    ) -> Result<Option<Self::CastHit>, QueryError>;
    /// The query layer's `contains_point`.
    fn ref_contains_point(
        shape: &Self::Shape,
        to_world: &Self::Placement,
        p: Self::Vector,
    ) -> Result<bool, QueryError>;
    /// The query layer's `distance`.
    fn ref_distance(
        a: &Self::Shape,
        a_to_world: &Self::Placement,
        b: &Self::Shape,
        b_to_world: &Self::Placement,
    ) -> Result<f32, QueryError>;
}

impl ModelDim for Dim3 {
    fn local_ball(shape: &Shape) -> (Vec3, f32) {
        let (lo, hi) = RefPlaced::new(shape, &Affine3A::IDENTITY).bounds();
        let radius = if (hi - lo).is_finite() { (hi - lo).length() / 2.0 } else { f32::INFINITY };
        ((lo + hi) / 2.0, radius)
    }

    fn world_ball(local: (Vec3, f32), placement: &Affine3A) -> (Vec3, f32) {
        let m = placement.matrix3;
        let norm = (m.x_axis.length_squared() + m.y_axis.length_squared() + m.z_axis.length_squared()).sqrt();
        let center = placement.transform_point3(local.0);
        let radius = local.1 * norm;
        (center, radius + 1e-5 * (1.0 + radius + center.abs().max_element()))
    }

    fn balls_apart(a: (Vec3, f32), b: (Vec3, f32)) -> bool {
        a.0.distance(b.0) > a.1 + b.1
    }

    fn ref_intersects(a: &Shape, pa: &Affine3A, b: &Shape, pb: &Affine3A) -> Result<bool, QueryError> {
        query::intersects(a, pa, b, pb)
    }

    fn ref_cast_ray(
        shape: &Shape,
        to_world: &Affine3A,
        ray: &Ray3,
        max_t: f32,
    ) -> Result<Option<RayHit3>, QueryError> {
        query::cast_ray(shape, to_world, ray, max_t)
    }

    fn ref_cast_shape(
        a: &Shape,
        pa: &Affine3A,
        b: &Shape,
        pb: &Affine3A,
        velocity: Vec3,
        max_t: f32,
    ) -> Result<Option<ShapeCastHit>, QueryError> {
        query::cast_shape(a, pa, b, pb, velocity, max_t)
    }

    fn ref_contains_point(shape: &Shape, to_world: &Affine3A, p: Vec3) -> Result<bool, QueryError> {
        query::contains_point(shape, to_world, p)
    }

    fn ref_distance(a: &Shape, pa: &Affine3A, b: &Shape, pb: &Affine3A) -> Result<f32, QueryError> {
        query::distance(a, pa, b, pb)
    }
}

/// The layer rule between two colliders (and between a query's bits and a collider): the same
/// non-zero group decides alone (positive: always, negative: never); otherwise each one's
/// memberships must share a bit with the other's mask.
pub fn filter_allows(a: &CollisionFilter, b: &CollisionFilter) -> bool {
    if a.group != 0 && a.group == b.group {
        return a.group > 0;
    }
    (a.memberships & b.mask) != 0 && (b.memberships & a.mask) != 0
}

/// A collider of the model.
#[derive(Clone, Debug)]
pub struct ModelCollider<D: ModelDim = Dim3> {
    pub shape: D::Shape,
    pub placement: D::Placement,
    pub filter: CollisionFilter,
    pub sensor: bool,
    pub fixed: bool,
    pub user_data: u64,
    /// A ball around the shape in its own frame (centre, radius), from the reference box.
    local_ball: (D::Vector, f32),
}

impl<D: ModelDim> ModelCollider<D> {
    pub fn new(desc: &ColliderDesc<D>) -> Self {
        Self {
            shape: desc.shape.clone(),
            placement: desc.placement,
            filter: desc.filter,
            sensor: desc.sensor,
            fixed: desc.fixed,
            user_data: desc.user_data,
            local_ball: D::local_ball(&desc.shape),
        }
    }

    /// A ball around the placed shape ([`ModelDim::world_ball`]).
    fn world_ball(&self) -> (D::Vector, f32) {
        D::world_ball(self.local_ball, &self.placement)
    }
}

/// A pair rule of the model: the mirror of a world's `PairFilter`, on the model's colliders.
pub type ModelPairRule<D = Dim3> =
    Box<dyn Fn(ColliderHandle, &ModelCollider<D>, ColliderHandle, &ModelCollider<D>) -> bool>;

/// The pair of two handles with the lower slot first (the world's order of A and B).
pub fn ordered(a: ColliderHandle, b: ColliderHandle) -> (ColliderHandle, ColliderHandle) {
    if a.index() < b.index() { (a, b) } else { (b, a) }
}

/// Counters of the model's work.
#[derive(Clone, Copy, Debug, Default)]
pub struct ModelStats {
    pub steps: usize,
    /// Exact `intersects` calls.
    pub tested: usize,
    /// Pairs skipped because their bounding balls are apart.
    pub culled: usize,
    /// Pairs whose answer was known from the same placements.
    pub remembered: usize,
    /// Events of each kind, over all steps: began, ended, sensor began, sensor ended.
    pub events: [usize; 4],
}

/// A pair's answer with the placements it was computed at.
type Memo<D> = (<D as Dim>::Placement, <D as Dim>::Placement, bool);

/// The brute-force world (see the module).
pub struct ModelWorld<D: ModelDim = Dim3> {
    colliders: BTreeMap<ColliderHandle, ModelCollider<D>>,
    /// The pairs touching after the latest step, and whether each has a sensor.
    touching: BTreeMap<(ColliderHandle, ColliderHandle), bool>,
    events: Vec<CollisionEvent>,
    rule: Option<ModelPairRule<D>>,
    /// The answer of each pair tested, with the placements it was tested at.
    memo: HashMap<(ColliderHandle, ColliderHandle), Memo<D>>,
    pub stats: ModelStats,
}

impl<D: ModelDim> Default for ModelWorld<D> {
    fn default() -> Self {
        Self {
            colliders: BTreeMap::new(),
            touching: BTreeMap::new(),
            events: Vec::new(),
            rule: None,
            memo: HashMap::new(),
            stats: ModelStats::default(),
        }
    }
}

impl<D: ModelDim> ModelWorld<D> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a collider under the handle the world gave it.
    pub fn insert(&mut self, handle: ColliderHandle, desc: &ColliderDesc<D>) {
        let old = self.colliders.insert(handle, ModelCollider::new(desc));
        assert!(old.is_none(), "handle {handle:?} inserted twice");
    }

    pub fn remove(&mut self, handle: ColliderHandle) {
        self.colliders.remove(&handle).expect("removing a live collider");
    }

    pub fn set_placement(&mut self, handle: ColliderHandle, placement: D::Placement) {
        self.colliders.get_mut(&handle).expect("a live collider").placement = placement;
    }

    pub fn set_filter(&mut self, handle: ColliderHandle, filter: CollisionFilter) {
        self.colliders.get_mut(&handle).expect("a live collider").filter = filter;
    }

    pub fn set_user_data(&mut self, handle: ColliderHandle, user_data: u64) {
        self.colliders.get_mut(&handle).expect("a live collider").user_data = user_data;
    }

    pub fn set_pair_rule(&mut self, rule: Option<ModelPairRule<D>>) {
        self.rule = rule;
    }

    pub fn len(&self) -> usize {
        self.colliders.len()
    }

    pub fn is_empty(&self) -> bool {
        self.colliders.is_empty()
    }

    pub fn contains(&self, handle: ColliderHandle) -> bool {
        self.colliders.contains_key(&handle)
    }

    pub fn get(&self, handle: ColliderHandle) -> Option<&ModelCollider<D>> {
        self.colliders.get(&handle)
    }

    /// Live handles, by handle order (slot order within one world).
    pub fn handles(&self) -> Vec<ColliderHandle> {
        self.colliders.keys().copied().collect()
    }

    pub fn colliders(&self) -> impl Iterator<Item = (ColliderHandle, &ModelCollider<D>)> {
        self.colliders.iter().map(|(h, c)| (*h, c))
    }

    /// Whether the rules let the two colliders touch (A has the lower slot).
    pub fn allowed(&self, a: ColliderHandle, b: ColliderHandle) -> bool {
        let (ca, cb) = (&self.colliders[&a], &self.colliders[&b]);
        !(ca.fixed && cb.fixed)
            && filter_allows(&ca.filter, &cb.filter)
            && self.rule.as_ref().is_none_or(|r| r(a, ca, b, cb))
    }

    /// Tests every pair, and replaces the events by what changed since the previous step.
    pub fn step(&mut self) {
        self.stats.steps += 1;
        let handles = self.handles();
        let mut now = BTreeMap::new();
        for (i, &x) in handles.iter().enumerate() {
            for &y in &handles[i + 1..] {
                let (a, b) = ordered(x, y);
                if self.allowed(a, b) && self.touches(a, b) {
                    let sensor = self.colliders[&a].sensor || self.colliders[&b].sensor;
                    now.insert((a, b), sensor);
                }
            }
        }
        let colliders = &self.colliders;
        self.memo.retain(|(a, b), _| colliders.contains_key(a) && colliders.contains_key(b));
        self.events.clear();
        for (&(a, b), &sensor) in &self.touching {
            if !now.contains_key(&(a, b)) {
                let kind = if sensor { EventKind::SensorEnded } else { EventKind::ContactEnded };
                self.events.push(CollisionEvent { a, b, kind });
            }
        }
        for (&(a, b), &sensor) in &now {
            if !self.touching.contains_key(&(a, b)) {
                let kind = if sensor { EventKind::SensorBegan } else { EventKind::ContactBegan };
                self.events.push(CollisionEvent { a, b, kind });
            }
        }
        for e in &self.events {
            self.stats.events[kind_index(e.kind)] += 1;
        }
        sort_events(&mut self.events);
        self.touching = now;
    }

    /// The exact answer for a pair (A has the lower slot).
    fn touches(&mut self, a: ColliderHandle, b: ColliderHandle) -> bool {
        let (ca, cb) = (&self.colliders[&a], &self.colliders[&b]);
        if let Some(&(pa, pb, answer)) = self.memo.get(&(a, b))
            && pa == ca.placement
            && pb == cb.placement
        {
            self.stats.remembered += 1;
            return answer;
        }
        let answer = if D::balls_apart(ca.world_ball(), cb.world_ball()) {
            self.stats.culled += 1;
            false
        } else {
            self.stats.tested += 1;
            D::ref_intersects(&ca.shape, &ca.placement, &cb.shape, &cb.placement)
                .unwrap_or_else(|e| panic!("intersects refused an accepted pair {a:?} {b:?}: {e}"))
        };
        self.memo.insert((a, b), (ca.placement, cb.placement, answer));
        answer
    }

    /// Takes `touching` as the latest step's answer for the pair (A has the lower slot) instead
    /// of the exact one, and mends the step's events to match: for pairs within rounding of
    /// touching, where the caller accepts either answer (see the `world_model` suite).
    pub fn accept(&mut self, a: ColliderHandle, b: ColliderHandle, touching: bool) {
        let sensor = self.colliders[&a].sensor || self.colliders[&b].sensor;
        if self.touching.contains_key(&(a, b)) == touching {
            return;
        }
        let (began, ended) = if sensor {
            (EventKind::SensorBegan, EventKind::SensorEnded)
        } else {
            (EventKind::ContactBegan, EventKind::ContactEnded)
        };
        // The exact answer's event of this step goes, or the accepted answer's comes.
        let (undone, done) = if touching {
            self.touching.insert((a, b), sensor);
            (ended, began)
        } else {
            self.touching.remove(&(a, b));
            (began, ended)
        };
        match self.events.iter().position(|e| (e.a, e.b, e.kind) == (a, b, undone)) {
            Some(i) => {
                self.events.remove(i);
            }
            None => self.events.push(CollisionEvent { a, b, kind: done }),
        }
        sort_events(&mut self.events);
    }

    /// The events of the latest step, sorted (see [`sort_events`]).
    pub fn events(&self) -> &[CollisionEvent] {
        &self.events
    }

    /// The pairs touching at the latest step whose colliders are both still live, sorted.
    pub fn touching_pairs(&self) -> Vec<(ColliderHandle, ColliderHandle)> {
        self.touching.keys().filter(|(a, b)| self.contains(*a) && self.contains(*b)).copied().collect()
    }

    /// Whether the pair touched at the latest step (A has the lower slot), and with a sensor.
    pub fn touching(&self, a: ColliderHandle, b: ColliderHandle) -> Option<bool> {
        self.touching.get(&(a, b)).copied()
    }

    /// Whether a scene query with this filter sees the collider (written from `QueryFilter`'s
    /// documentation).
    pub fn sees(&self, filter: &QueryFilter, handle: ColliderHandle, c: &ModelCollider<D>) -> bool {
        if (filter.exclude_sensors && c.sensor) || (filter.exclude_fixed && c.fixed) {
            return false;
        }
        filter_allows(&filter.bits, &c.filter)
            && !filter.exclude.contains(&handle)
            && filter.predicate.is_none_or(|p| p(handle))
    }

    fn seen<'a>(
        &'a self,
        filter: &'a QueryFilter,
    ) -> impl Iterator<Item = (ColliderHandle, &'a ModelCollider<D>)> + 'a {
        self.colliders().filter(move |(h, c)| self.sees(filter, *h, c))
    }

    /// Every seen collider the ray hits within `[0, max_t]`, with its hit, by handle.
    pub fn ray_hits(
        &self,
        ray: &RayOf<D>,
        max_t: f32,
        filter: &QueryFilter,
    ) -> Vec<(ColliderHandle, D::RayHit)> {
        self.seen(filter)
            .filter_map(|(h, c)| {
                let hit = D::ref_cast_ray(&c.shape, &c.placement, ray, max_t).expect("a valid ray");
                hit.map(|hit| (h, hit))
            })
            .collect()
    }

    /// Every seen collider (as A) that B, moving by `t · velocity`, touches within `[0, max_t]`,
    /// with the hit, by handle; kinds without a shape cast are left out.
    pub fn cast_hits(
        &self,
        shape: &D::Shape,
        placement: &D::Placement,
        velocity: D::Vector,
        max_t: f32,
        filter: &QueryFilter,
    ) -> Vec<(ColliderHandle, D::CastHit)> {
        self.seen(filter)
            .filter_map(|(h, c)| {
                match D::ref_cast_shape(&c.shape, &c.placement, shape, placement, velocity, max_t) {
                    Ok(hit) => hit.map(|hit| (h, hit)),
                    Err(QueryError::Unsupported { .. }) => None,
                    Err(e) => panic!("cast_shape refused valid arguments: {e}"),
                }
            })
            .collect()
    }

    /// The seen colliders (as A) that touch or overlap the placed shape, by handle.
    pub fn overlapping(
        &self,
        shape: &D::Shape,
        placement: &D::Placement,
        filter: &QueryFilter,
    ) -> Vec<ColliderHandle> {
        self.seen(filter)
            .filter(|(_, c)| {
                D::ref_intersects(&c.shape, &c.placement, shape, placement).expect("valid shapes")
            })
            .map(|(h, _)| h)
            .collect()
    }

    /// The seen colliders whose solids contain the point, by handle.
    pub fn containing(&self, p: D::Vector, filter: &QueryFilter) -> Vec<ColliderHandle> {
        self.seen(filter)
            .filter(|(_, c)| D::ref_contains_point(&c.shape, &c.placement, p).expect("a valid point"))
            .map(|(h, _)| h)
            .collect()
    }

    /// The seen colliders (as A) within `max_distance` of the placed shape, with their
    /// distances, by handle; kinds without a distance query are left out.
    pub fn within(
        &self,
        shape: &D::Shape,
        placement: &D::Placement,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Vec<(ColliderHandle, f32)> {
        self.seen(filter)
            .filter_map(|(h, c)| match D::ref_distance(&c.shape, &c.placement, shape, placement) {
                Ok(d) => (d <= max_distance).then_some((h, d)),
                Err(QueryError::Unsupported { .. }) => None,
                Err(e) => panic!("distance refused valid shapes: {e}"),
            })
            .collect()
    }
}

fn kind_index(kind: EventKind) -> usize {
    match kind {
        EventKind::ContactBegan => 0,
        EventKind::ContactEnded => 1,
        EventKind::SensorBegan => 2,
        EventKind::SensorEnded => 3,
    }
}

/// Sorts events by slots, generations and kind: the order in which two lists of the same
/// events are compared as sets.
pub fn sort_events(events: &mut [CollisionEvent]) {
    events
        .sort_by_key(|e| (e.a.index(), e.a.generation(), e.b.index(), e.b.generation(), kind_index(e.kind)));
}

/// The events as a sorted list, and whether any repeats.
pub fn event_set(events: &[CollisionEvent]) -> (Vec<CollisionEvent>, bool) {
    let mut sorted = events.to_vec();
    sort_events(&mut sorted);
    let unique: BTreeSet<_> = sorted
        .iter()
        .map(|e| (e.a.index(), e.a.generation(), e.b.index(), e.b.generation(), kind_index(e.kind)))
        .collect();
    let repeats = unique.len() != sorted.len();
    (sorted, repeats)
}

// ---------------------------------------------------------------------------------------------
// Random scenes for the world suites

/// The shared meshes of the world suites, built once: small, so that brute force stays fast.
pub struct SceneMeshes {
    /// Whole colliders: a cube (12 triangles, corners at ±0.5), an icosahedron (20), an
    /// icosphere (80), a torus (48), an open grid (18) and an asteroid (180, about 2.5 across).
    pub whole: Vec<(Arc<TriMesh>, &'static str)>,
    /// Compound children: the cube, the icosahedron, the open grid.
    pub small: Vec<(Arc<TriMesh>, &'static str)>,
}

/// The meshes of [`SceneMeshes`].
pub fn scene_meshes() -> &'static SceneMeshes {
    static MESHES: OnceLock<SceneMeshes> = OnceLock::new();
    MESHES.get_or_init(|| {
        let build = |data| Arc::new(TriMesh::from_data(data).expect("a valid generated mesh"));
        let cube = build(shapes::cube());
        let icosahedron = build(shapes::icosphere(0));
        let grid = build(shapes::grid(3));
        let whole = vec![
            (cube.clone(), "cube"),
            (icosahedron.clone(), "icosahedron"),
            (build(shapes::icosphere(1)), "icosphere"),
            (build(shapes::torus(0.7, 0.3, 6, 4)), "torus"),
            (grid.clone(), "open grid"),
            (build(shapes::asteroid(7, 180)), "asteroid"),
        ];
        SceneMeshes { whole, small: vec![(cube, "cube"), (icosahedron, "icosahedron"), (grid, "open grid")] }
    })
}

/// Which kinds a random scene draws, with weights.
#[derive(Clone, Copy, Debug)]
pub struct SceneMix {
    pub convex: u32,
    pub mesh: u32,
    pub sphere_set: u32,
    pub compound: u32,
    pub field: u32,
}

impl SceneMix {
    /// Convex shapes, meshes, sphere sets and compounds; no fields.
    pub const SOLIDS: Self = Self { convex: 9, mesh: 5, sphere_set: 3, compound: 3, field: 0 };
    /// [`SceneMix::SOLIDS`] and a few analytic fields.
    pub const WITH_FIELDS: Self = Self { convex: 9, mesh: 5, sphere_set: 3, compound: 3, field: 1 };
}

/// A random convex shape about a unit across (any kind but the degenerate ones of issue 30:
/// [`random_shape`] draws no zero-height cone).
pub fn random_convex(rng: &mut TestRng) -> ConvexShape {
    let kind = ShapeKind::ALL[rng.random_range(0..ShapeKind::ALL.len())];
    random_shape(rng, kind)
}

fn random_sphere_set(rng: &mut TestRng) -> Shape {
    let n = rng.random_range(2..=4);
    let spheres = (0..n)
        .map(|_| Sphere { center: random::point3(rng, 0.5), radius: rng.random_range(0.15..0.5) })
        .collect();
    Shape::SphereSet(Arc::new(SphereSet::new(spheres).expect("valid balls")))
}

/// A compound child's placement: rotation, scale in `[0.5, 1.2]`, some shear, within 0.6.
fn child_placement(rng: &mut TestRng) -> Affine3A {
    let scale = Vec3::new(rng.random_range(0.5..1.2), rng.random_range(0.5..1.2), rng.random_range(0.5..1.2));
    let shear = Mat3::from_cols(Vec3::X, Vec3::new(rng.random_range(-0.3..0.3), 1.0, 0.0), Vec3::Z);
    let linear = Mat3::from_quat(random::rotation3(rng)) * shear * Mat3::from_diagonal(scale);
    Affine3A::from_mat3_translation(linear, random::point3(rng, 0.6))
}

fn random_compound(rng: &mut TestRng) -> Shape {
    let meshes = scene_meshes();
    let small = meshes.small[rng.random_range(0..meshes.small.len())].0.clone();
    let mut children = vec![
        (Shape::Convex(random_convex(rng)), child_placement(rng)),
        (Shape::Mesh(small), child_placement(rng)),
        (random_sphere_set(rng), child_placement(rng)),
    ];
    if rng.random_bool(0.5) {
        children.remove(rng.random_range(0..3));
    }
    Shape::Compound(Arc::new(Compound::new(children).expect("valid children")))
}

/// A random shape of the mix, about a unit across under a unit placement.
pub fn random_scene_shape(rng: &mut TestRng, mix: SceneMix) -> Shape {
    let total = mix.convex + mix.mesh + mix.sphere_set + mix.compound + mix.field;
    let mut pick = rng.random_range(0..total);
    for (weight, kind) in
        [(mix.convex, 0), (mix.mesh, 1), (mix.sphere_set, 2), (mix.compound, 3), (mix.field, 4)]
    {
        if pick >= weight {
            pick -= weight;
            continue;
        }
        return match kind {
            0 => Shape::Convex(random_convex(rng)),
            1 => {
                let meshes = scene_meshes();
                Shape::Mesh(meshes.whole[rng.random_range(0..meshes.whole.len())].0.clone())
            }
            2 => random_sphere_set(rng),
            3 => random_compound(rng),
            _ => Shape::Field(random::analytic_field(rng).0),
        };
    }
    unreachable!("the pick is below the total weight")
}

/// A random linear map: rigid, uniformly scaled (`[0.5, 1.2]`), or scaled per axis (`[0.4, 1.4]`)
/// with shear up to 0.3 and a reflection one time in five.
pub fn random_linear(rng: &mut TestRng) -> Mat3 {
    let rotation = Mat3::from_quat(random::rotation3(rng));
    match rng.random_range(0..3) {
        0 => rotation,
        1 => rotation * rng.random_range(0.5f32..1.2),
        _ => {
            let scale =
                Vec3::new(rng.random_range(0.4..1.4), rng.random_range(0.4..1.4), rng.random_range(0.4..1.4));
            let shear = Mat3::from_cols(
                Vec3::X,
                Vec3::new(rng.random_range(-0.3..0.3), 1.0, 0.0),
                Vec3::new(rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3), 1.0),
            );
            let reflect = if rng.random_bool(0.2) {
                Mat3::from_diagonal(Vec3::new(-1.0, 1.0, 1.0))
            } else {
                Mat3::IDENTITY
            };
            rotation * shear * Mat3::from_diagonal(scale) * reflect
        }
    }
}

/// A random placement of a scene shape, translated within `[-half, half)³`.
pub fn random_placement(rng: &mut TestRng, half: f32) -> Affine3A {
    Affine3A::from_mat3_translation(random_linear(rng), random::point3(rng, half))
}

/// The placement moved a little: turned by up to `turn` radians about a random axis through its
/// origin, translated by up to `shift` per axis, and kept within `[-half, half]³`.
pub fn nudged(rng: &mut TestRng, placement: &Affine3A, shift: f32, turn: f32, half: f32) -> Affine3A {
    let rotation = Mat3::from_quat(Quat::from_axis_angle(random::unit3(rng), rng.random_range(-turn..turn)));
    let mut t: Vec3 = placement.translation.into();
    t += random::point3(rng, shift);
    t = t.clamp(Vec3::splat(-half), Vec3::splat(half));
    Affine3A::from_mat3_translation(rotation * Mat3::from(placement.matrix3), t)
}

/// A random collision filter: every layer most of the time, else random layers among three and
/// sometimes a group (positive or negative).
pub fn random_filter(rng: &mut TestRng) -> CollisionFilter {
    let mut filter = if rng.random_bool(0.5) {
        CollisionFilter::ALL
    } else {
        CollisionFilter::new(
            rng.random_range(0..8u64),
            rng.random_range(0..8u64) | u64::from(rng.random_bool(0.3)) << 40,
        )
    };
    if rng.random_bool(0.3) {
        filter.group = [-2, -1, 1, 2][rng.random_range(0..4)];
    }
    filter
}

/// Shares of sensors and fixed colliders in a random scene.
#[derive(Clone, Copy, Debug)]
pub struct SceneRoles {
    pub sensor: f64,
    pub fixed: f64,
}

/// A random collider of the mix within `[-half, half)³`, with random roles, filter and user
/// data (below 16).
pub fn random_desc(rng: &mut TestRng, mix: SceneMix, roles: SceneRoles, half: f32) -> ColliderDesc3 {
    let shape = random_scene_shape(rng, mix);
    let mut placement = random_placement(rng, half);
    if let Shape::Mesh(mesh) = &shape {
        // The asteroid is 2.5 across: halved like the others' unit size.
        if mesh.triangle_count() > 100 {
            placement.matrix3 *= 0.5;
        }
    }
    let filter = if rng.random_bool(0.6) { CollisionFilter::ALL } else { random_filter(rng) };
    ColliderDesc3::new(shape, placement)
        .with_filter(filter)
        .sensor(rng.random_bool(roles.sensor))
        .fixed(rng.random_bool(roles.fixed))
        .with_user_data(rng.random_range(0..16))
}
