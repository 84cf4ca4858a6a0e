//! The collision world: colliders of any shape kind added, moved and removed by handle; a step
//! that finds which pairs began and stopped touching and their contact manifolds, cheaply when
//! little changed; scene queries through one visitor traversal.
//!
//! # A step
//!
//! Edits (insert, move, remove, filter changes) update the broad phase at once. [`World::step`]
//! then runs the broad phase's pair finding, drops the pairs its rules exclude (two fixed
//! colliders, layers and groups, the caller's [`PairFilter`]), and runs the narrow phase on the
//! rest with a memory per pair kept across steps ([`Dim::PairCache`]: GJK warm starts, mesh
//! overlap witnesses). A pair neither of whose colliders moved since its last narrow phase is
//! not recomputed; with [`WorldSettings::reuse_distance`] above zero, neither is a pair whose
//! colliders each moved less than that. The step's [`events`](World::events) list the pairs that
//! began or stopped touching; [`contacts`](World::contacts) the touching pairs (and, with a
//! [`prediction`](WorldSettings::prediction) distance, the nearly touching ones) with their
//! manifolds, whose feature ids let a solver warm-start. Manifolds are computed for pairs with
//! a collider that asks for them ([`ColliderDesc::contacts`], the default).
//!
//! "Touching" is [`query::intersects`](crate::query::intersects): closed shapes touch when they
//! share a point, solids also when one is inside the other (for two convex shapes within
//! rounding of touching, the warm-started GJK may answer either way; see
//! [`PairCache`](crate::query::PairCache)). A sensor takes part in
//! events (its own kinds) but gets no manifolds.
//!
//! # Bad input
//!
//! Every edit is checked before anything changes: a stale or foreign handle, a shape or placement
//! the query layer refuses, a non-finite velocity give an error and leave the world as it was.
//!
//! # Dimensions
//!
//! Handles, filters, the pair table and its events, the broad phase and the scene queries are
//! written once over [`Dim`]; [`World3`] is the world of [`Dim3`] ([`query::Shape`] under
//! [`Affine3A`]), [`World2`] the world of [`Dim2`] ([`query::Shape2`] under [`Affine2`]).
//!
//! [`query::Shape`]: crate::query::Shape
//! [`Affine3A`]: glam::Affine3A
//! [`query::Shape2`]: crate::query::Shape2
//! [`Affine2`]: glam::Affine2

mod dim;
mod edit;
mod filter;
mod handle;
mod scene;
mod step;

pub use dim::{Dim, Dim2, Dim3};
pub use filter::{CollisionFilter, PairFilter, QueryFilter};
pub use handle::{ColliderHandle, MAX_COLLIDERS};
pub use scene::{ColliderVisit, HitVisit, RayCast, Visitor};
pub use step::ContactPair;

use crate::broad::{BroadPhase, DefaultBroadPhase, PairEvents};
use crate::query::QueryError;
use handle::Slots;
use step::PairState;

/// The world of 3D shapes.
pub type World3 = World<Dim3>;
/// The world of 2D shapes.
pub type World2 = World<Dim2>;
/// A description of a 2D collider.
pub type ColliderDesc2 = ColliderDesc<Dim2>;
/// A 2D collider.
pub type Collider2 = Collider<Dim2>;
/// A description of a 3D collider.
pub type ColliderDesc3 = ColliderDesc<Dim3>;
/// A 3D collider.
pub type Collider3 = Collider<Dim3>;

/// Why an edit or a query was refused. The world is unchanged after an error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WorldError {
    /// The handle's collider was removed.
    StaleHandle(ColliderHandle),
    /// The handle belongs to another world.
    ForeignHandle(ColliderHandle),
    /// The shape, placement or a query argument was refused by the query layer.
    Query(QueryError),
    /// A velocity with a NaN or infinite component.
    NonFiniteVelocity,
    /// The shape's box under its placement overflows.
    UnboundedShape,
    /// The world holds [`MAX_COLLIDERS`] colliders.
    Full,
}

impl From<QueryError> for WorldError {
    fn from(e: QueryError) -> Self {
        WorldError::Query(e)
    }
}

impl std::fmt::Display for WorldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorldError::StaleHandle(h) => write!(f, "collider {h:?} was removed"),
            WorldError::ForeignHandle(h) => write!(f, "collider {h:?} belongs to another world"),
            WorldError::Query(e) => write!(f, "{e}"),
            WorldError::NonFiniteVelocity => write!(f, "the velocity is not finite"),
            WorldError::UnboundedShape => write!(f, "the shape's box is not finite"),
            WorldError::Full => write!(f, "the world holds {MAX_COLLIDERS} colliders"),
        }
    }
}

impl std::error::Error for WorldError {}

/// What happened to a pair in a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// Two colliders (neither a sensor) began touching.
    ContactBegan,
    /// Two colliders (neither a sensor) stopped touching, or one of them was removed or filtered
    /// out.
    ContactEnded,
    /// A sensor began touching a collider.
    SensorBegan,
    /// A sensor stopped touching a collider (or one of them was removed or filtered out).
    SensorEnded,
}

/// A pair that began or stopped touching. `a` has the lower slot; after a removal the removed
/// collider's handle is stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CollisionEvent {
    pub a: ColliderHandle,
    pub b: ColliderHandle,
    pub kind: EventKind,
}

/// Settings of a world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldSettings {
    /// Pairs within this distance get manifolds (with positive separations) besides the touching
    /// ones, for solvers that want speculative contacts. `>= 0`; 0 by default.
    pub prediction: f32,
    /// How far ahead (in the velocity's time unit) the broad phase boxes of a collider moved with
    /// a velocity reach ([`World::set_motion`]), so that it finds the pairs of the coming motion.
    pub lookahead: f32,
    /// A pair whose colliders each moved at most this far (every point of each) since the pair's
    /// last narrow phase keeps its touching state and manifolds. 0 (the default) recomputes every
    /// pair that moved at all: exact answers every step.
    pub reuse_distance: f32,
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self { prediction: 0.0, lookahead: 1.0 / 60.0, reuse_distance: 0.0 }
    }
}

/// A collider to insert: a shape, its placement, and how it takes part in collisions.
#[derive(Clone, Debug)]
pub struct ColliderDesc<D: Dim> {
    pub shape: D::Shape,
    pub placement: D::Placement,
    pub filter: CollisionFilter,
    /// A sensor reports overlaps ([`EventKind::SensorBegan`]) but has no contacts.
    pub sensor: bool,
    /// A fixed (static) collider is never tested against another fixed collider.
    pub fixed: bool,
    /// Whether its touching pairs get contact manifolds (a pair gets them when either collider
    /// asks). Colliders that only need to know what they touch (the events) save the manifolds'
    /// cost, which for two meshes is most of the narrow phase.
    pub contacts: bool,
    /// Anything the caller wants to find again from a handle.
    pub user_data: u64,
}

impl<D: Dim> ColliderDesc<D> {
    /// A moving, non-sensor collider in every layer.
    pub fn new(shape: D::Shape, placement: D::Placement) -> Self {
        Self {
            shape,
            placement,
            filter: CollisionFilter::ALL,
            sensor: false,
            fixed: false,
            contacts: true,
            user_data: 0,
        }
    }

    pub fn with_filter(self, filter: CollisionFilter) -> Self {
        Self { filter, ..self }
    }

    pub fn sensor(self, sensor: bool) -> Self {
        Self { sensor, ..self }
    }

    pub fn fixed(self, fixed: bool) -> Self {
        Self { fixed, ..self }
    }

    pub fn contacts(self, contacts: bool) -> Self {
        Self { contacts, ..self }
    }

    pub fn with_user_data(self, user_data: u64) -> Self {
        Self { user_data, ..self }
    }
}

/// A collider in a world.
#[derive(Clone, Debug)]
pub struct Collider<D: Dim> {
    shape: D::Shape,
    placement: D::Placement,
    filter: CollisionFilter,
    sensor: bool,
    fixed: bool,
    contacts: bool,
    user_data: u64,
    /// The tight world box at the placement.
    bounds: D::Bounds,
    /// The velocity of the latest [`World::set_motion`], `None` after other moves.
    velocity: Option<D::Vector>,
    /// The first step that sees the latest edit of the shape's placement.
    moved_at: u64,
}

impl<D: Dim> Collider<D> {
    pub fn shape(&self) -> &D::Shape {
        &self.shape
    }

    pub fn placement(&self) -> &D::Placement {
        &self.placement
    }

    pub fn filter(&self) -> CollisionFilter {
        self.filter
    }

    pub fn is_sensor(&self) -> bool {
        self.sensor
    }

    pub fn is_fixed(&self) -> bool {
        self.fixed
    }

    /// Whether its touching pairs get contact manifolds ([`ColliderDesc::contacts`]).
    pub fn wants_contacts(&self) -> bool {
        self.contacts
    }

    pub fn user_data(&self) -> u64 {
        self.user_data
    }

    /// The tight world box of the placed shape.
    pub fn bounds(&self) -> &D::Bounds {
        &self.bounds
    }

    /// The velocity given with the latest move, if any.
    pub fn velocity(&self) -> Option<D::Vector> {
        self.velocity
    }
}

/// A world of colliders over the broad phase `B` ([`DefaultBroadPhase`] unless chosen with
/// [`World::with_broad_phase`]). See the [module](self) for what a step does.
pub struct World<D: Dim, B = DefaultBroadPhase<<D as Dim>::Bounds>> {
    colliders: Slots<Collider<D>>,
    broad: B,
    broad_events: PairEvents,
    /// The candidate pairs of the latest step, sorted by slots.
    pairs: Vec<PairState<D>>,
    /// The previous step's pair list, kept for its memory.
    spare_pairs: Vec<PairState<D>>,
    events: Vec<CollisionEvent>,
    settings: WorldSettings,
    pair_filter: Option<Box<dyn PairFilter<D>>>,
    /// Steps taken.
    steps: u64,
}

impl<D: Dim> World<D> {
    /// An empty world with default settings.
    pub fn new() -> Self {
        Self::with_settings(WorldSettings::default())
    }

    /// An empty world.
    pub fn with_settings(settings: WorldSettings) -> Self {
        Self::with_broad_phase(DefaultBroadPhase::default(), settings)
    }
}

impl<D: Dim> Default for World<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D: Dim, B: BroadPhase<D::Bounds>> World<D, B> {
    /// An empty world over the given (empty) broad phase. Settings that are NaN or negative are
    /// replaced by zero.
    pub fn with_broad_phase(broad: B, settings: WorldSettings) -> Self {
        let clean = |x: f32| if x >= 0.0 { x } else { 0.0 };
        let settings = WorldSettings {
            prediction: clean(settings.prediction),
            lookahead: clean(settings.lookahead),
            reuse_distance: clean(settings.reuse_distance),
        };
        Self {
            colliders: Slots::default(),
            broad,
            broad_events: PairEvents::default(),
            pairs: Vec::new(),
            spare_pairs: Vec::new(),
            events: Vec::new(),
            settings,
            pair_filter: None,
            steps: 0,
        }
    }

    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Number of colliders.
    pub fn len(&self) -> usize {
        self.colliders.len()
    }

    pub fn is_empty(&self) -> bool {
        self.colliders.len() == 0
    }

    /// Whether the handle names a collider of this world.
    pub fn contains(&self, handle: ColliderHandle) -> bool {
        self.colliders.slot(handle).is_ok()
    }

    pub fn collider(&self, handle: ColliderHandle) -> Result<&Collider<D>, WorldError> {
        self.colliders.get(handle)
    }

    /// Every collider with its handle, in slot order.
    pub fn colliders(&self) -> impl Iterator<Item = (ColliderHandle, &Collider<D>)> {
        self.colliders.iter()
    }

    /// The broad phase (for its queries and statistics).
    pub fn broad_phase(&self) -> &B {
        &self.broad
    }

    /// Sets (or with `None` removes) the caller's pair rule, applied from the next step.
    pub fn set_pair_filter(&mut self, filter: Option<Box<dyn PairFilter<D>>>) {
        self.pair_filter = filter;
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Bytes held by the world's own structures (colliders, pairs and their manifolds, events),
    /// not counting the broad phase or shapes shared with `Arc`.
    pub fn memory_bytes(&self) -> usize {
        let pairs = |list: &Vec<PairState<D>>| {
            list.capacity() * std::mem::size_of::<PairState<D>>()
                + list
                    .iter()
                    .map(|p| p.manifolds.capacity() * std::mem::size_of::<D::Manifold>())
                    .sum::<usize>()
        };
        self.colliders.memory_bytes()
            + pairs(&self.pairs)
            + pairs(&self.spare_pairs)
            + self.events.capacity() * std::mem::size_of::<CollisionEvent>()
            + (self.broad_events.pairs.capacity()
                + self.broad_events.began.capacity()
                + self.broad_events.ended.capacity())
                * std::mem::size_of::<crate::broad::Pair>()
    }
}
