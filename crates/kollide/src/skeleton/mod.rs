//! Animated skeletons carrying collision volumes, updated once a frame into flat arrays, and
//! queries of many projectiles against many skeletons.
//!
//! A [`Skeleton`] is a tree of nodes stored parent first: each node has an optional parent (an
//! earlier node), a local transform (any affine map: rigid, scaled, sheared) and a
//! [`NodeVolume`] (none, a ball, or a capsule along its local `+y` axis). Once a frame the caller
//! sets the local transforms ([`Skeleton::set_local`], [`Skeleton::locals_mut`]) and calls
//! [`Skeleton::update`], one root-to-leaf pass that writes every node's world transform, the
//! world volumes ([`WorldBall`], [`WorldCapsule`]) and a bounding box and ball of the whole
//! skeleton into arrays reused from frame to frame: after the first frame nothing allocates.
//!
//! A [`SkeletonQuery`] then tests many projectiles against many skeletons: moving balls (the
//! capsule a ball sweeps over a frame, [`MovingBall`]) and rays or segments
//! ([`RayProjectile`]), reporting every `(projectile, skeleton, node)` hit into a caller-owned
//! vector. The skeletons' boxes go through a sort-and-sweep broad phase, then the node volumes
//! through exact primitive tests.
//!
//! This is the design of P. Scharf, "Optimising animation based collision volumes" (`GameDev<T>`
//! blog): compute world volumes once per frame, root to leaf, into flat arrays, instead of
//! walking to the root for every node each time a projectile asks.
//!
//! # Volumes under non-uniform scale
//!
//! A ball under an affine map is an ellipse (an ellipsoid). A node's world ball is centred at the
//! image of the node's origin, with the local radius times an upper bound on the largest stretch
//! of the node's world map (its spectral norm, [`SkeletonSpace::stretch_bound`], at most `2e-5`
//! above it): the smallest ball around that centre that is sure to cover the image. Under a
//! rigid map or a uniform scale the cover is the exact image (up to that rounding). A capsule
//! maps to the capsule between its mapped end points with its radius scaled the same way, which
//! covers the image for the same reason (the image is the mapped segment swept by the image of
//! the ball).
//!
//! # Bad input
//!
//! - Construction ([`Skeleton::new`]) refuses a parent that is not an earlier node and a radius or
//!   half height that is negative, NaN or infinite ([`SkeletonError`]). An empty skeleton is
//!   valid: it has no volumes, an empty bounding box and ball, and is never hit.
//! - Transforms are not checked when set. A node whose world volume has a NaN or infinite
//!   coordinate or radius (from a non-finite local or root transform, or an overflow) gets a world
//!   volume whose every field is NaN: it is never hit and the bounding volumes leave it out.
//!   [`Skeleton::update`] returns how many such volumes there are.
//! - Queries skip projectiles with a non-finite field or a negative radius, and rays that break
//!   the primitive ray contract (`crate::primitive#ray-casts`: a zero direction, a negative or
//!   NaN `max_t`): they hit nothing.
//! - As for the primitive tests, coordinates, radii and displacements are assumed small enough
//!   that their squares stay finite (below about `1e18`); beyond that a query may miss.

mod query;
mod space;

pub use query::*;
pub use space::{D2, D3, SkeletonSpace};

use std::fmt;

/// The volume a node carries, in the node's local frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum NodeVolume {
    /// No volume: the node only places its children.
    #[default]
    None,
    /// The ball (circle in 2D) of this radius around the node's origin.
    Ball { radius: f32 },
    /// The capsule around the segment from `-half_height` to `+half_height` along the node's
    /// local `y` axis, of this radius.
    Capsule { half_height: f32, radius: f32 },
}

/// One node of a skeleton, as given to [`Skeleton::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkeletonNode<D: SkeletonSpace> {
    /// The node this one hangs from, an earlier node; `None` for a root, placed by the map given
    /// to [`Skeleton::update`].
    pub parent: Option<u32>,
    /// The node's placement in its parent's frame (`parent_from_node`).
    pub local: D::Transform,
    /// The node's volume in its own frame.
    pub volume: NodeVolume,
}

/// A node's ball in world space, written by [`Skeleton::update`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldBall<D: SkeletonSpace> {
    pub center: D::Vector,
    pub radius: f32,
    /// The node carrying the ball.
    pub node: u32,
}

/// A node's capsule in world space: every point within `radius` of the segment `a b`, written by
/// [`Skeleton::update`]. `a` is the image of the local `-y` end, `b` of the `+y` end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldCapsule<D: SkeletonSpace> {
    pub a: D::Vector,
    pub b: D::Vector,
    pub radius: f32,
    /// The node carrying the capsule.
    pub node: u32,
}

/// Why [`Skeleton::new`] or [`Skeleton::set_local`] refused its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkeletonError {
    /// Node `node` names a parent that is not an earlier node (`parent >= node`).
    ParentNotBefore { node: u32, parent: u32 },
    /// Node `node` has a volume with a negative, NaN or infinite radius or half height.
    InvalidVolume { node: u32 },
    /// More nodes than node indices (`u32`) can name.
    TooManyNodes,
    /// A node index at or beyond the number of nodes.
    NodeOutOfRange { node: u32 },
}

impl fmt::Display for SkeletonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ParentNotBefore { node, parent } => {
                write!(f, "node {node} names parent {parent}, which is not an earlier node")
            }
            Self::InvalidVolume { node } => {
                write!(f, "node {node} has a negative, NaN or infinite radius or half height")
            }
            Self::TooManyNodes => write!(f, "more skeleton nodes than u32 indices"),
            Self::NodeOutOfRange { node } => write!(f, "node {node} is beyond the skeleton's nodes"),
        }
    }
}

impl std::error::Error for SkeletonError {}

/// The parent of a root in [`Skeleton`]'s parent array.
const NO_PARENT: u32 = u32::MAX;

/// Relative padding of a skeleton's bounding box, and of a projectile's box in the queries, of
/// their largest coordinate: far above the rounding of the boxes' own corners and of the exact
/// node tests behind them, so the box tests never reject a hit those tests would report.
pub(crate) const BOX_PAD: f32 = 1e-5;

/// A tree of nodes carrying collision volumes, with the world volumes of its latest
/// [`update`](Skeleton::update) in flat arrays. See the [module](self).
#[derive(Clone, Debug)]
pub struct Skeleton<D: SkeletonSpace> {
    /// Parent of each node, [`NO_PARENT`] for roots; always an earlier node.
    parents: Vec<u32>,
    locals: Vec<D::Transform>,
    volumes: Vec<NodeVolume>,
    /// `(node, radius)` of each ball node, in node order.
    ball_nodes: Vec<(u32, f32)>,
    /// `(node, half height, radius)` of each capsule node, in node order.
    capsule_nodes: Vec<(u32, f32, f32)>,
    world: Vec<D::Transform>,
    balls: Vec<WorldBall<D>>,
    capsules: Vec<WorldCapsule<D>>,
    bounds: D::Aabb,
    bounding_ball: D::Ball,
}

/// A plane skeleton carrying circles and capsules.
pub type Skeleton2 = Skeleton<D2>;
/// A skeleton in space carrying spheres and capsules.
pub type Skeleton3 = Skeleton<D3>;
/// A node of a [`Skeleton2`].
pub type SkeletonNode2 = SkeletonNode<D2>;
/// A node of a [`Skeleton3`].
pub type SkeletonNode3 = SkeletonNode<D3>;
/// A world circle of a [`Skeleton2`].
pub type WorldBall2 = WorldBall<D2>;
/// A world sphere of a [`Skeleton3`].
pub type WorldBall3 = WorldBall<D3>;
/// A world capsule of a [`Skeleton2`].
pub type WorldCapsule2 = WorldCapsule<D2>;
/// A world capsule of a [`Skeleton3`].
pub type WorldCapsule3 = WorldCapsule<D3>;

/// Whether a radius or half height is usable: finite and not negative.
fn valid_size(x: f32) -> bool {
    (0.0..f32::INFINITY).contains(&x)
}

impl<D: SkeletonSpace> Skeleton<D> {
    /// A skeleton of the given nodes, parents first, updated once with the identity as the
    /// root's placement.
    ///
    /// Errors: a parent that is not an earlier node, a volume whose radius or half height is
    /// negative, NaN or infinite, or more than `u32::MAX` nodes. Transforms are not checked (see
    /// the [module](self#bad-input)). An empty list gives an empty skeleton.
    pub fn new(nodes: &[SkeletonNode<D>]) -> Result<Self, SkeletonError> {
        if nodes.len() >= NO_PARENT as usize {
            return Err(SkeletonError::TooManyNodes);
        }
        let (mut ball_nodes, mut capsule_nodes) = (Vec::new(), Vec::new());
        for (i, n) in nodes.iter().enumerate() {
            let node = i as u32;
            if let Some(parent) = n.parent.filter(|&p| p >= node) {
                return Err(SkeletonError::ParentNotBefore { node, parent });
            }
            match n.volume {
                NodeVolume::None => {}
                NodeVolume::Ball { radius } if valid_size(radius) => ball_nodes.push((node, radius)),
                NodeVolume::Capsule { half_height, radius }
                    if valid_size(half_height) && valid_size(radius) =>
                {
                    capsule_nodes.push((node, half_height, radius))
                }
                _ => return Err(SkeletonError::InvalidVolume { node }),
            }
        }
        let nan = D::splat(f32::NAN);
        let mut skeleton = Self {
            parents: nodes.iter().map(|n| n.parent.unwrap_or(NO_PARENT)).collect(),
            locals: nodes.iter().map(|n| n.local).collect(),
            volumes: nodes.iter().map(|n| n.volume).collect(),
            world: vec![D::IDENTITY; nodes.len()],
            balls: ball_nodes
                .iter()
                .map(|&(node, _)| WorldBall { center: nan, radius: f32::NAN, node })
                .collect(),
            capsules: capsule_nodes
                .iter()
                .map(|&(node, ..)| WorldCapsule { a: nan, b: nan, radius: f32::NAN, node })
                .collect(),
            ball_nodes,
            capsule_nodes,
            bounds: D::aabb(D::splat(f32::INFINITY), D::splat(f32::NEG_INFINITY)),
            bounding_ball: D::ball(nan, -1.0),
        };
        skeleton.update(&D::IDENTITY);
        Ok(skeleton)
    }

    /// The number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// Whether the skeleton has no nodes.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// The parent of `node`: `None` for a root or a node out of range.
    #[inline]
    pub fn parent(&self, node: u32) -> Option<u32> {
        self.parents.get(node as usize).copied().filter(|&p| p != NO_PARENT)
    }

    /// The volume of `node` in its own frame; `None` for a node out of range.
    #[inline]
    pub fn volume(&self, node: u32) -> Option<NodeVolume> {
        self.volumes.get(node as usize).copied()
    }

    /// The local transforms (`parent_from_node`), by node.
    #[inline]
    pub fn locals(&self) -> &[D::Transform] {
        &self.locals
    }

    /// The local transforms, to be set for the next [`update`](Self::update).
    #[inline]
    pub fn locals_mut(&mut self) -> &mut [D::Transform] {
        &mut self.locals
    }

    /// Sets the local transform of `node` for the next [`update`](Self::update). Error
    /// [`SkeletonError::NodeOutOfRange`] (and no change) for a node out of range.
    #[inline]
    pub fn set_local(&mut self, node: u32, local: D::Transform) -> Result<(), SkeletonError> {
        let slot = self.locals.get_mut(node as usize).ok_or(SkeletonError::NodeOutOfRange { node })?;
        *slot = local;
        Ok(())
    }

    /// The world transform (`world_from_node`) of every node, by node, as of the latest update.
    #[inline]
    pub fn world_transforms(&self) -> &[D::Transform] {
        &self.world
    }

    /// The world balls of the nodes carrying one, in node order, as of the latest update.
    #[inline]
    pub fn balls(&self) -> &[WorldBall<D>] {
        &self.balls
    }

    /// The world capsules of the nodes carrying one, in node order, as of the latest update.
    #[inline]
    pub fn capsules(&self) -> &[WorldCapsule<D>] {
        &self.capsules
    }

    /// A box containing every finite world volume, padded by `1e-5` of its largest coordinate;
    /// empty (inverted, `min = +∞`, `max = -∞`) when there is none.
    #[inline]
    pub fn bounds(&self) -> D::Aabb {
        self.bounds
    }

    /// A ball containing every finite world volume (centred on the box of the volumes); radius
    /// `-1` (empty) when there is none.
    #[inline]
    pub fn bounding_ball(&self) -> D::Ball {
        self.bounding_ball
    }

    /// Computes every node's world transform (`world_from_node = world_from_parent ·
    /// parent_from_node`, the roots' parent map being `root_to_world`) in one pass from the roots
    /// to the leaves, then the world volumes and the bounding box and ball, into the arrays of the
    /// previous frame. Returns the number of volumes that are not finite (stored as NaN, never hit;
    /// see the [module](self#bad-input)). Allocates nothing.
    pub fn update(&mut self, root_to_world: &D::Transform) -> usize {
        for i in 0..self.parents.len() {
            let parent = self.parents[i];
            let from_parent = if parent == NO_PARENT { *root_to_world } else { self.world[parent as usize] };
            self.world[i] = from_parent * self.locals[i];
        }
        let nan = D::splat(f32::NAN);
        let (mut lo, mut hi) = (D::splat(f32::INFINITY), D::splat(f32::NEG_INFINITY));
        let mut non_finite = 0;
        for (ball, &(node, radius)) in self.balls.iter_mut().zip(&self.ball_nodes) {
            let world = &self.world[node as usize];
            let (center, radius) = (D::origin(world), radius * D::stretch_bound(world));
            if D::is_finite(center) && radius < f32::INFINITY {
                (ball.center, ball.radius) = (center, radius);
                let r = D::splat(radius);
                (lo, hi) = (D::min(lo, center - r), D::max(hi, center + r));
            } else {
                (ball.center, ball.radius) = (nan, f32::NAN);
                non_finite += 1;
            }
        }
        for (capsule, &(node, half_height, radius)) in self.capsules.iter_mut().zip(&self.capsule_nodes) {
            let world = &self.world[node as usize];
            let (center, half) = (D::origin(world), D::y_axis(world) * half_height);
            let (a, b, radius) = (center - half, center + half, radius * D::stretch_bound(world));
            if D::is_finite(a) && D::is_finite(b) && radius < f32::INFINITY {
                (capsule.a, capsule.b, capsule.radius) = (a, b, radius);
                let r = D::splat(radius);
                (lo, hi) = (D::min(lo, D::min(a, b) - r), D::max(hi, D::max(a, b) + r));
            } else {
                (capsule.a, capsule.b, capsule.radius) = (nan, nan, f32::NAN);
                non_finite += 1;
            }
        }
        self.set_bounds(lo, hi);
        non_finite
    }

    /// Stores the padded box `[lo, hi]` of the finite volumes and the ball around its centre.
    fn set_bounds(&mut self, lo: D::Vector, hi: D::Vector) {
        if !(D::dot(hi - lo, D::splat(1.0)) >= 0.0) {
            // No finite volume: lo = +∞ and hi = -∞ (the sum of the extents is -∞).
            self.bounds = D::aabb(lo, hi);
            self.bounding_ball = D::ball(D::splat(f32::NAN), -1.0);
            return;
        }
        let pad = D::splat(BOX_PAD * D::max_abs_finite(lo).max(D::max_abs_finite(hi)) + f32::MIN_POSITIVE);
        self.bounds = D::aabb(lo - pad, hi + pad);
        let center = (lo + hi) * 0.5;
        let reach = |p: D::Vector| D::dot(p - center, p - center).sqrt();
        let mut radius = 0.0f32;
        for ball in self.balls.iter().filter(|b| b.radius >= 0.0) {
            radius = radius.max(reach(ball.center) + ball.radius);
        }
        for capsule in self.capsules.iter().filter(|c| c.radius >= 0.0) {
            radius = radius.max(reach(capsule.a).max(reach(capsule.b)) + capsule.radius);
        }
        // The difference, the length and the sum each round by at most half an ulp: 1e-6 covers
        // them, so every volume is inside in exact arithmetic.
        self.bounding_ball = D::ball(center, radius * (1.0 + 1e-6));
    }
}
