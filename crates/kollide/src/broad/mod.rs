//! Broad phases: which boxes of a changing set overlap, without testing every pair.
//!
//! Every implementation answers the same questions through [`BroadPhase`], in 2D ([`Aabb2`]) and
//! 3D ([`Aabb3`]):
//!
//! - [`BruteForce`]: every pair, every box. The reference the others are tested against.
//! - [`SweepAndPrune`]: boxes kept sorted by their lower bound on one axis (insertion sort, which
//!   is linear on the nearly sorted order of the previous frame), then swept ("box pruning") in
//!   the columns of a coarse grid over the other axes.
//! - [`SpatialHash`]: a uniform grid of hashed cells holding fattened boxes, so that an object
//!   that moves a little is not re-bucketed.
//! - [`DynamicTree`] ([`DefaultBroadPhase`]): a tree of fattened boxes, changed only when a box
//!   leaves its fattened box; pairs are found incrementally, from the objects edited since the
//!   last call, or in one batch of box pruning after many edits.
//!
//! The grid columns of box pruning also serve as a compact layout for box and ray queries: for
//! [`SweepAndPrune`] while nothing has been edited since the last pair finding, for
//! [`DynamicTree`] also through edits (objects that stay inside their fattened boxes are moved in
//! place), where they answer the queries of incremental pair finding too.
//!
//! Objects are named by caller-chosen `u32` ids (at most [`MAX_ID`]; keep them dense, since the
//! id → slot table grows to the largest id). Boxes are closed: touching boxes overlap. The answers
//! of every implementation are exactly [`BruteForce`]'s on the tight boxes the caller gave, in the
//! same deterministic order, whatever fattening or cells they use inside.

mod brute;
mod hash;
mod prune;
mod sap;
mod tree;

pub use brute::BruteForce;
pub use hash::{HashSettings, SpatialHash};
pub use sap::SweepAndPrune;
pub use tree::{DynamicTree, TreeSettings};

/// The broad phase to use when in doubt: [`DynamicTree`]. It finds pairs from scratch and answers
/// the queries of a static scene with the same grid columns as [`SweepAndPrune`], and on a moving
/// scene it queries only the objects that moved.
pub type DefaultBroadPhase<B> = DynamicTree<B>;

use crate::bounds::{Aabb2, Aabb3, Bounds};
use crate::math::{Ray2, Ray3, Vec2};
use glam::{Vec3A, Vec4};
use std::fmt;

/// The largest object id a broad phase accepts.
pub const MAX_ID: u32 = (1 << 26) - 1;

/// What a broad phase needs from a box type beyond [`Bounds`]: per-axis access and ray clipping.
/// Implemented for [`Aabb2`] and [`Aabb3`].
pub trait BroadBounds: Bounds + PartialEq + fmt::Debug {
    /// Number of axes (2 or 3).
    const DIM: usize;
    /// The matching ray type.
    type Ray: Copy;
    /// Lower bound on `axis` (`axis < DIM`).
    fn lo(&self, axis: usize) -> f32;
    /// Upper bound on `axis` (`axis < DIM`).
    fn hi(&self, axis: usize) -> f32;
    /// Whether every coordinate is finite and `lo <= hi` on every axis.
    fn is_valid(&self) -> bool;
    /// The box grown by `margin` on every side.
    fn expanded(&self, margin: f32) -> Self;
    /// Where the ray enters the closed box within `[0, max_t]` (0 from inside), if it does.
    fn ray_entry(&self, ray: &Self::Ray, max_t: f32) -> Option<f32>;
    /// [`ray_entry`](Self::ray_entry) of a finite ray given by its origin and `inv_dir = 1 / dir`
    /// (as 3-arrays, `z` ignored in 2D), the same answer without the division per box.
    fn ray_entry_inv(&self, origin: [f32; 3], inv_dir: [f32; 3], max_t: f32) -> Option<f32>;
    /// The ray's origin and direction as 3-vectors (`z = 0` in 2D).
    fn ray_parts(ray: &Self::Ray) -> ([f32; 3], [f32; 3]);
    /// The box with the given bounds on its `DIM` axes (later components are ignored).
    fn from_lo_hi(lo: [f32; 3], hi: [f32; 3]) -> Self;
    /// [`Bounds::overlaps`] by one SIMD comparison and no branch, for hot loops whose answers are
    /// unpredictable. The same answer, NaN included (any NaN coordinate: `false`).
    fn overlaps_simd(&self, other: &Self) -> bool;
    /// The lower and upper bounds as 3-arrays (`0` beyond `DIM`).
    fn corners(&self) -> ([f32; 3], [f32; 3]);
}

impl BroadBounds for Aabb3 {
    const DIM: usize = 3;
    type Ray = Ray3;

    #[inline]
    fn lo(&self, axis: usize) -> f32 {
        self.min[axis]
    }

    #[inline]
    fn hi(&self, axis: usize) -> f32 {
        self.max[axis]
    }

    #[inline]
    fn is_valid(&self) -> bool {
        Aabb3::is_valid(self)
    }

    #[inline]
    fn expanded(&self, margin: f32) -> Self {
        Aabb3::expanded(self, margin)
    }

    #[inline]
    fn ray_entry(&self, ray: &Ray3, max_t: f32) -> Option<f32> {
        self.ray_interval(ray, max_t).map(|(entry, _)| entry)
    }

    #[inline]
    fn ray_entry_inv(&self, origin: [f32; 3], inv_dir: [f32; 3], max_t: f32) -> Option<f32> {
        self.ray_interval_inv(origin.into(), inv_dir.into(), max_t).map(|(entry, _)| entry)
    }

    #[inline]
    fn ray_parts(ray: &Ray3) -> ([f32; 3], [f32; 3]) {
        (ray.origin.to_array(), ray.dir.to_array())
    }

    #[inline]
    fn from_lo_hi(lo: [f32; 3], hi: [f32; 3]) -> Self {
        Aabb3::new(lo.into(), hi.into())
    }

    #[inline(always)]
    fn overlaps_simd(&self, other: &Self) -> bool {
        let (a_min, a_max) = (Vec3A::from(self.min), Vec3A::from(self.max));
        let (b_min, b_max) = (Vec3A::from(other.min), Vec3A::from(other.max));
        (a_min.cmple(b_max) & b_min.cmple(a_max)).all()
    }

    #[inline]
    fn corners(&self) -> ([f32; 3], [f32; 3]) {
        (self.min.to_array(), self.max.to_array())
    }
}

impl BroadBounds for Aabb2 {
    const DIM: usize = 2;
    type Ray = Ray2;

    #[inline]
    fn lo(&self, axis: usize) -> f32 {
        self.min[axis]
    }

    #[inline]
    fn hi(&self, axis: usize) -> f32 {
        self.max[axis]
    }

    #[inline]
    fn is_valid(&self) -> bool {
        Aabb2::is_valid(self)
    }

    #[inline]
    fn expanded(&self, margin: f32) -> Self {
        Aabb2::expanded(self, margin)
    }

    #[inline]
    fn ray_entry(&self, ray: &Ray2, max_t: f32) -> Option<f32> {
        self.ray_interval(ray, max_t).map(|(entry, _)| entry)
    }

    #[inline]
    fn ray_entry_inv(&self, origin: [f32; 3], inv_dir: [f32; 3], max_t: f32) -> Option<f32> {
        let (o, inv) = (Vec2::new(origin[0], origin[1]), Vec2::new(inv_dir[0], inv_dir[1]));
        self.ray_interval_inv(o, inv, max_t).map(|(entry, _)| entry)
    }

    #[inline]
    fn ray_parts(ray: &Ray2) -> ([f32; 3], [f32; 3]) {
        (ray.origin.extend(0.0).to_array(), ray.dir.extend(0.0).to_array())
    }

    #[inline]
    fn from_lo_hi(lo: [f32; 3], hi: [f32; 3]) -> Self {
        Aabb2::new(Vec2::new(lo[0], lo[1]), Vec2::new(hi[0], hi[1]))
    }

    #[inline(always)]
    fn overlaps_simd(&self, other: &Self) -> bool {
        let lo = Vec4::new(self.min.x, self.min.y, other.min.x, other.min.y);
        let hi = Vec4::new(other.max.x, other.max.y, self.max.x, self.max.y);
        lo.cmple(hi).all()
    }

    #[inline]
    fn corners(&self) -> ([f32; 3], [f32; 3]) {
        ([self.min.x, self.min.y, 0.0], [self.max.x, self.max.y, 0.0])
    }
}

/// Why a broad-phase edit was refused. The broad phase is unchanged after an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BroadPhaseError {
    /// [`BroadPhase::insert`] of an id that is already present.
    DuplicateId(u32),
    /// [`BroadPhase::update`] or [`BroadPhase::remove`] of an id that is not present.
    UnknownId(u32),
    /// An id above [`MAX_ID`].
    IdTooLarge(u32),
    /// A box with a NaN or infinite coordinate, or `min > max` on some axis.
    InvalidBounds(u32),
}

impl fmt::Display for BroadPhaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateId(id) => write!(f, "object {id} is already in the broad phase"),
            Self::UnknownId(id) => write!(f, "object {id} is not in the broad phase"),
            Self::IdTooLarge(id) => write!(f, "object id {id} is above the largest id {MAX_ID}"),
            Self::InvalidBounds(id) => write!(f, "object {id} has a box that is not finite and ordered"),
        }
    }
}

impl std::error::Error for BroadPhaseError {}

/// An unordered pair of object ids, stored as `(smaller, larger)`.
pub type Pair = (u32, u32);

/// The overlapping pairs of the latest [`BroadPhase::find_pairs`] call and how they changed since
/// the call before it.
///
/// Pass the same value to every call: it carries the previous pairs that `began` and `ended` are
/// measured against. All three lists are sorted ascending and hold each pair once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairEvents {
    /// Every pair whose boxes overlap now.
    pub pairs: Vec<Pair>,
    /// Pairs that overlap now and did not at the previous call.
    pub began: Vec<Pair>,
    /// Pairs that overlapped at the previous call and do not now, including pairs with a removed
    /// object.
    pub ended: Vec<Pair>,
}

impl PairEvents {
    /// Replaces `pairs` by `current` (sorted ascending, without repeats) and fills `began` and
    /// `ended` with the difference, by one merge walk. `current` receives the old pairs, so its
    /// buffer can be reused.
    pub fn advance(&mut self, current: &mut Vec<Pair>) {
        debug_assert!(current.windows(2).all(|w| w[0] < w[1]));
        self.began.clear();
        self.ended.clear();
        let (old, new) = (&self.pairs, &*current);
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < new.len() {
            match old[i].cmp(&new[j]) {
                std::cmp::Ordering::Less => {
                    self.ended.push(old[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    self.began.push(new[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
            }
        }
        self.ended.extend_from_slice(&old[i..]);
        self.began.extend_from_slice(&new[j..]);
        std::mem::swap(&mut self.pairs, current);
    }
}

/// Work done by one query: for comparing structures and tuning, not for correctness.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueryStats {
    /// Structure elements visited: cells of a hash, sorted entries of a sweep, all objects for
    /// brute force.
    pub visited: u32,
    /// Box tests against object boxes.
    pub tested: u32,
}

/// The common interface of the broad phases.
///
/// Edits are checked: an error leaves the structure unchanged. Queries never fail; they report ids
/// whose (tight) boxes satisfy the query, in ascending id order.
pub trait BroadPhase<B: BroadBounds> {
    /// Adds object `id` with box `bounds`.
    fn insert(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError>;
    /// Moves object `id` to box `bounds`.
    fn update(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError>;
    /// Removes object `id`.
    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError>;
    /// Number of objects.
    fn len(&self) -> usize;
    /// Whether there are no objects.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The box of object `id`, as last given.
    fn bounds(&self, id: u32) -> Option<B>;
    /// Finds every pair of objects whose boxes overlap and updates `events` (see [`PairEvents`]).
    fn find_pairs(&mut self, events: &mut PairEvents);
    /// Appends to `out` (after clearing it) the ids of the objects whose boxes overlap `query`.
    fn query_box(&self, query: &B, out: &mut Vec<u32>) -> QueryStats;
    /// Appends to `out` (after clearing it) the ids of the objects whose boxes the ray meets within
    /// `[0, max_t]`, by the boxes' own ray test (`Aabb3::ray_interval`): a NaN or infinite ray or
    /// `max_t` meets nothing, a zero direction meets the boxes that contain the origin.
    fn query_ray(&self, ray: &B::Ray, max_t: f32, out: &mut Vec<u32>) -> QueryStats;
    /// Visits the objects whose boxes a box of half extents `half` meets as its centre moves
    /// along the ray for `t` in `[0, max_t]` (`half` zero on every axis: the ray itself), each
    /// once, with its first-touch `t`: the entry of the ray into the object's box grown by
    /// `half`. `visit(id, t)` returns the reach from then on: objects first touched beyond it are
    /// skipped, and a negative reach ends the query. The order is near to far but not sorted:
    /// every object touched within the final reach is visited. A ray or `half` that is not
    /// finite, a NaN or negative `max_t` visit nothing; an infinite `max_t` reaches as far as
    /// `f32` goes.
    ///
    /// The default gathers the candidates with [`query_box`](Self::query_box) over the swept
    /// region and visits them by increasing `t`; [`DynamicTree`] descends a static 4-wide BVH
    /// over the tight boxes (built by the first cast after an edit), nearer children first, so
    /// a reach clipped by an early hit prunes the rest.
    fn cast_box(&self, ray: &B::Ray, half: [f32; 3], max_t: f32, visit: &mut dyn FnMut(u32, f32) -> f32) {
        cast_box_gathered(self, ray, half, max_t, visit);
    }
}

/// [`BroadPhase::cast_box`] by a box query over the swept region and a sort.
fn cast_box_gathered<B: BroadBounds, P: BroadPhase<B> + ?Sized>(
    phase: &P,
    ray: &B::Ray,
    half: [f32; 3],
    max_t: f32,
    visit: &mut dyn FnMut(u32, f32) -> f32,
) {
    let Some(reach) = cast_reach::<B>(ray, half, max_t) else { return };
    let (origin, dir) = B::ray_parts(ray);
    let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
    for axis in 0..3 {
        let end = origin[axis] + dir[axis] * reach;
        lo[axis] = origin[axis].min(end) - half[axis];
        hi[axis] = origin[axis].max(end) + half[axis];
    }
    let mut region = B::from_lo_hi(lo, hi);
    if !region.is_valid() {
        region = B::from_lo_hi([-f32::MAX; 3], [f32::MAX; 3]);
    }
    let mut ids = Vec::new();
    phase.query_box(&region, &mut ids);
    let mut entries: Vec<(f32, u32)> = ids
        .iter()
        .filter_map(|&id| Some((grown(&phase.bounds(id)?, half).ray_entry(ray, reach)?, id)))
        .collect();
    entries.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    let mut limit = reach;
    for (t, id) in entries {
        if t > limit {
            break;
        }
        limit = limit.min(visit(id, t));
        if limit < 0.0 {
            break;
        }
    }
}

/// The reach of a [`BroadPhase::cast_box`] (`max_t` capped at `f32::MAX`), or `None` when it visits
/// nothing.
fn cast_reach<B: BroadBounds>(ray: &B::Ray, half: [f32; 3], max_t: f32) -> Option<f32> {
    let (origin, dir) = B::ray_parts(ray);
    let finite = origin.iter().chain(&dir).chain(&half).all(|x| x.is_finite());
    (finite && max_t >= 0.0).then(|| max_t.min(f32::MAX))
}

/// `bounds` grown by `half` on each axis.
pub(crate) fn grown<B: BroadBounds>(bounds: &B, half: [f32; 3]) -> B {
    let (lo, hi) = bounds.corners();
    B::from_lo_hi(std::array::from_fn(|i| lo[i] - half[i]), std::array::from_fn(|i| hi[i] + half[i]))
}

/// Dense storage shared by the implementations: objects in slots `0..len`, and an id → slot table.
#[derive(Clone, Debug)]
struct Slots<B, E> {
    /// Object id of each slot.
    ids: Vec<u32>,
    /// Tight box of each slot.
    boxes: Vec<B>,
    /// Implementation data of each slot.
    extra: Vec<E>,
    /// `slot_of[id]`, [`NO_SLOT`] for absent ids.
    slot_of: Vec<u32>,
}

const NO_SLOT: u32 = u32::MAX;

impl<B: BroadBounds, E> Default for Slots<B, E> {
    fn default() -> Self {
        Self { ids: Vec::new(), boxes: Vec::new(), extra: Vec::new(), slot_of: Vec::new() }
    }
}

impl<B: BroadBounds, E> Slots<B, E> {
    fn len(&self) -> usize {
        self.ids.len()
    }

    fn slot(&self, id: u32) -> Option<usize> {
        self.slot_of.get(id as usize).filter(|&&s| s != NO_SLOT).map(|&s| s as usize)
    }

    /// Checks an insertion without doing it.
    fn check_insert(&self, id: u32, bounds: &B) -> Result<(), BroadPhaseError> {
        if id > MAX_ID {
            Err(BroadPhaseError::IdTooLarge(id))
        } else if self.slot(id).is_some() {
            Err(BroadPhaseError::DuplicateId(id))
        } else if !bounds.is_valid() {
            Err(BroadPhaseError::InvalidBounds(id))
        } else {
            Ok(())
        }
    }

    /// Checks an update and returns the slot.
    fn check_update(&self, id: u32, bounds: &B) -> Result<usize, BroadPhaseError> {
        let slot = self.slot(id).ok_or(BroadPhaseError::UnknownId(id))?;
        if bounds.is_valid() { Ok(slot) } else { Err(BroadPhaseError::InvalidBounds(id)) }
    }

    /// Adds a checked object in the last slot and returns that slot.
    fn push(&mut self, id: u32, bounds: B, extra: E) -> usize {
        let slot = self.ids.len();
        if self.slot_of.len() <= id as usize {
            self.slot_of.resize(id as usize + 1, NO_SLOT);
        }
        self.slot_of[id as usize] = slot as u32;
        self.ids.push(id);
        self.boxes.push(bounds);
        self.extra.push(extra);
        slot
    }

    /// Removes the object in `slot` by moving the last object into it. Returns the removed
    /// object's data and, if an object moved, its old slot (the last one).
    fn swap_remove(&mut self, slot: usize) -> (E, Option<usize>) {
        let last = self.ids.len() - 1;
        self.slot_of[self.ids[slot] as usize] = NO_SLOT;
        self.ids.swap_remove(slot);
        self.boxes.swap_remove(slot);
        let extra = self.extra.swap_remove(slot);
        if slot != last {
            self.slot_of[self.ids[slot] as usize] = slot as u32;
            (extra, Some(last))
        } else {
            (extra, None)
        }
    }
}

/// Sorts `pairs` (each already `(smaller, larger)`) and drops repeats.
///
/// Large lists are sorted by radix on the key `(a << bits) | b`, where `bits` is the width of the
/// largest id: one pass on the top digit into buckets of about 8192 pairs (which fit in cache),
/// then each bucket by least significant digit passes of at most 11 bits.
fn sort_pairs(pairs: &mut Vec<Pair>) {
    if pairs.len() < 4096 {
        pairs.sort_unstable();
        pairs.dedup();
        return;
    }
    let largest = pairs.iter().map(|p| p.1).max().unwrap_or(0);
    let bits = (u32::BITS - largest.leading_zeros()).max(1);
    let key = |p: &Pair| (u64::from(p.0) << bits) | u64::from(p.1);
    let top = (pairs.len() / 8192).max(1).next_power_of_two().trailing_zeros().min(12).min(2 * bits);
    let low = 2 * bits - top;
    let mut other = vec![(0u32, 0u32); pairs.len()];
    let mut starts = vec![0usize; (1 << top) + 1];
    if top == 0 {
        starts[1] = pairs.len();
        std::mem::swap(pairs, &mut other);
    } else {
        for p in pairs.iter() {
            starts[(key(p) >> low) as usize + 1] += 1;
        }
        for d in 1..starts.len() {
            starts[d] += starts[d - 1];
        }
        let mut next = starts.clone();
        for p in pairs.iter() {
            let d = &mut next[(key(p) >> low) as usize];
            other[*d] = *p;
            *d += 1;
        }
    }
    let passes = low.div_ceil(11).max(1);
    let width = low.div_ceil(passes);
    let mask = (1u64 << width) - 1;
    let mut counts = vec![0usize; 1 << width];
    for bucket in starts.windows(2) {
        let range = bucket[0]..bucket[1];
        let (mut from, mut to) = (&mut other[range.clone()], &mut pairs[range]);
        for pass in 0..passes {
            let shift = pass * width;
            counts.fill(0);
            for p in from.iter() {
                counts[((key(p) >> shift) & mask) as usize] += 1;
            }
            let mut sum = 0;
            for c in counts.iter_mut() {
                (*c, sum) = (sum, sum + *c);
            }
            for p in from.iter() {
                let d = &mut counts[((key(p) >> shift) & mask) as usize];
                to[*d] = *p;
                *d += 1;
            }
            std::mem::swap(&mut from, &mut to);
        }
        // After an even number of passes the bucket is back in `other`.
        if passes % 2 == 0 {
            to.copy_from_slice(from);
        }
    }
    pairs.dedup();
}

/// Sorts by the high 32 bits, stably (least significant digit radix sort, 11-bit digits).
pub(super) fn radix_sort_high32(keys: &mut Vec<u64>) {
    let mut other = vec![0u64; keys.len()];
    for shift in [32, 43, 54] {
        let digit = |k: u64| ((k >> shift) & 0x7ff) as usize;
        let mut counts = vec![0usize; 2049];
        for &k in keys.iter() {
            counts[digit(k) + 1] += 1;
        }
        if counts.contains(&keys.len()) {
            continue;
        }
        for d in 1..counts.len() {
            counts[d] += counts[d - 1];
        }
        for &k in keys.iter() {
            let d = digit(k);
            other[counts[d]] = k;
            counts[d] += 1;
        }
        std::mem::swap(keys, &mut other);
    }
}

/// `(min(a, b), max(a, b))`.
#[inline]
fn ordered(a: u32, b: u32) -> Pair {
    if a < b { (a, b) } else { (b, a) }
}

/// Whether the ray can be walked through a structure: finite origin, finite nonzero direction and
/// `max_t >= 0` (other rays are answered by scanning every box).
fn ray_usable<B: BroadBounds>(ray: &B::Ray, max_t: f32) -> bool {
    let (o, d) = B::ray_parts(ray);
    o.iter().chain(&d).all(|x| x.is_finite()) && d.iter().any(|&x| x != 0.0) && max_t >= 0.0
}

#[cfg(test)]
mod tests {
    use super::{MAX_ID, Pair, sort_pairs};

    #[test]
    fn sort_pairs_sorts_and_drops_repeats_like_the_standard_sort() {
        let mut state = 987_654_321u64;
        let mut next = move |bound: u32| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % u64::from(bound)) as u32
        };
        // Small and large lists, narrow and full id ranges, many repeats.
        for (len, largest) in [(100, 50), (5000, 2), (5000, 300), (20_000, 100_000), (20_000, MAX_ID)] {
            let mut pairs: Vec<Pair> = (0..len)
                .map(|_| {
                    let (a, b) = (next(largest + 1), next(largest + 1));
                    (a.min(b), a.max(b))
                })
                .collect();
            let mut expected = pairs.clone();
            expected.sort_unstable();
            expected.dedup();
            sort_pairs(&mut pairs);
            assert_eq!(pairs, expected, "{len} pairs, ids up to {largest}");
        }
    }
}
