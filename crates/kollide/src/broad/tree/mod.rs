//! A dynamic bounding-box tree with fattened leaves and incremental pairs.
//!
//! This file holds the tree's data and its [`BroadPhase`] interface; `nodes` edits the node
//! hierarchy (rebuild, insertion with rotations, removal), `query` walks it (and the grid columns
//! beside it) for box and ray queries, and `pairs` finds pairs incrementally.

mod cast;
mod nodes;
mod pairs;
mod query;

use super::prune::Columns;
use super::{
    BroadBounds, BroadPhase, BroadPhaseError, Pair, PairEvents, QueryStats, Slots, cast_reach, ray_usable,
    sort_pairs,
};
use nodes::Candidate;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How a [`DynamicTree`] fattens its leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TreeSettings {
    /// Fattening of the leaves: an object's leaf encloses its box grown by `margin` on every side,
    /// and the tree changes only when the box leaves that fattened box. `None` chooses it when the
    /// tree is first built: 1/16 of the mean largest extent of the boxes.
    pub margin: Option<f32>,
}

/// No node (a parent or root that does not exist).
const NULL: u32 = u32::MAX;

/// Marks a child code as a leaf; the low bits are the object id (ids are at most `MAX_ID < 2³¹`).
const LEAF: u32 = 1 << 31;

/// Whether a child code (not [`NULL`]) is a leaf.
#[inline(always)]
fn is_leaf(code: u32) -> bool {
    code & LEAF != 0
}

/// An inner node: two children, each an inner node or a leaf (one object), with their boxes stored
/// here so that a traversal tests both children without loading them.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Node<B> {
    /// A leaf child's tight box, or an inner child's enclosure: the union of the enclosures of its
    /// children, where a leaf's enclosure is its fattened box. So a box contains everything below
    /// it even while leaves move inside their fattened boxes.
    boxes: [B; 2],
    /// Child codes: an inner node index, or `LEAF | id`.
    child: [u32; 2],
    /// The parent node, or [`NULL`] for the root.
    parent: u32,
}

/// Per-object data.
#[derive(Clone, Copy, Debug)]
struct Proxy<B> {
    /// The object's fattened box: its leaf's enclosure (see `replace_leaf`).
    fat: B,
    /// The fattened box the leaf was inserted with (moves near it refit the leaf in place).
    home: B,
    /// The inner node holding the object's leaf, or [`NULL`] when the leaf is the root or the
    /// insertion is pending.
    parent: u32,
    /// The lane of the leaf in `parent`.
    lane: u8,
    /// Whether the object is in the tree (not waiting for insertion).
    placed: bool,
}

/// A dynamic bounding-box tree in the style of Box2D and Bullet: one leaf per object, holding a
/// fattened box so that small moves do not touch the tree.
///
/// - Insertion picks the sibling that adds the least surface area to the tree (surface area
///   heuristic, found by branch and bound: Bittner et al. 2012; Catto, GDC 2019), then rotates
///   nodes on the way up where a swap of a child and a grandchild lowers the area (Kopta et al.
///   2012).
/// - When an object's box leaves its fattened box, the fattened box grows to enclose also the box
///   grown by the margin and stretched twice its last move further along it (Box2D's
///   displacement prediction: an object moving steadily stays inside for a few moves). While it
///   stays near the fattened box the leaf was inserted with (within the latter's largest extent of
///   it), the leaf keeps its place and the enclosures above it are refitted (one walk to the root,
///   no search for a sibling), and an object that moves back and forth soon stops leaving its
///   fattened box; otherwise the leaf is taken out and inserted again with its box grown by the
///   margin.
/// - Insertions are deferred to [`DynamicTree::refresh`] (which [`BroadPhase::find_pairs`] calls):
///   many at once, or into an empty tree, rebuild the whole tree top down (binned surface area
///   heuristic) instead, and only when the tree is next needed.
/// - [`BroadPhase::find_pairs`] is incremental: only objects edited since the last call are
///   queried, and their answers merged with the previous pairs in one pass that also gives the
///   began and ended pairs. When more than a quarter of the objects were edited, or `events`
///   is not the value passed to the previous call, it finds all pairs in one batch instead (box
///   pruning in grid columns, as [`super::SweepAndPrune`] does).
/// - Next to the tree, the objects are kept in grid columns (as after a batch pair finding), a
///   more compact layout (contiguous, tested four boxes at a time, no pointer chasing) that
///   answers queries, and the queries of incremental pair finding. Objects that move inside their placement box there are moved in place;
///   the others, and new objects, are tested one by one until there are too many of them (16
///   plus 1/1024 of the objects), when the columns are dropped and the tree answers. They are built
///   again, with the fattened boxes of the tree, by the next pair finding after which the tree
///   kept its shape (no insertion, removal or move out of a fattened box), or sooner when the
///   moved objects' queries through the tree would cost more than the rebuild (objects drifting
///   steadily one way in a dense scene).
/// - Each node stores the boxes of its two children, so a traversal step tests both without
///   loading them; a leaf child's box is its tight box, so leaves are tested exactly.
///
/// Queries are always exact: pending objects are tested one by one.
#[derive(Clone, Debug)]
pub struct DynamicTree<B: BroadBounds> {
    /// The fattening in use; `None` until chosen.
    margin: Option<f32>,
    slots: Slots<B, Proxy<B>>,
    nodes: Vec<Node<B>>,
    free: Vec<u32>,
    /// The root's child code, or [`NULL`] for an empty tree.
    root: u32,
    /// The root's enclosure.
    root_fat: B,
    /// Whether the tree is due for a rebuild over every object (its nodes are then meaningless;
    /// queries use `columns`, which is then always present).
    unbuilt: bool,
    /// Objects waiting for insertion (may hold removed ids and repeats).
    pending: Vec<u32>,
    /// Objects edited since the last pair finding (may hold removed ids), each once.
    moved: Vec<u32>,
    /// Whether each id is in `moved`, one bit per id (compact: read for every pair).
    listed: Marks,
    /// The number of pairs of the last pair finding, to recognize the `events` it filled.
    pair_count: usize,
    /// A compact copy of the objects for queries (see the type notes), when present.
    columns: Option<Columns<B>>,
    /// The static hierarchy of the casts, built on the first cast after an edit.
    casts: cast::CastCache<B>,
    /// The objects missing from `columns` (inserted since, or moved out of their placement box),
    /// each once; `columns` is dropped when they become too many.
    loose: Vec<u32>,
    /// Whether an insertion, a removal or a move out of a fattened box changed the tree since the
    /// last pair finding.
    reshaped: bool,
    scratch: Vec<Pair>,
    /// The buffer of the next pair list (the previous list's, reused).
    spare: Vec<Pair>,
    /// The box tests per query of the last moved objects queried through the tree (0 before).
    tree_tests_per_query: f32,
    heap: BinaryHeap<Reverse<Candidate<B>>>,
}

impl<B: BroadBounds> Default for DynamicTree<B> {
    fn default() -> Self {
        Self::with_settings(TreeSettings::default())
    }
}

impl<B: BroadBounds> DynamicTree<B> {
    /// An empty tree with the default settings (automatic margin).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty tree with the given settings. A negative, NaN or infinite margin is replaced by
    /// the automatic one.
    pub fn with_settings(settings: TreeSettings) -> Self {
        Self {
            margin: settings.margin.filter(|m| *m >= 0.0 && m.is_finite()),
            slots: Slots::default(),
            nodes: Vec::new(),
            free: Vec::new(),
            root: NULL,
            root_fat: B::empty(),
            unbuilt: false,
            pending: Vec::new(),
            moved: Vec::new(),
            listed: Marks::default(),
            pair_count: 0,
            columns: None,
            casts: cast::CastCache::default(),
            loose: Vec::new(),
            reshaped: false,
            scratch: Vec::new(),
            spare: Vec::new(),
            tree_tests_per_query: 0.0,
            heap: BinaryHeap::new(),
        }
    }

    /// The leaf fattening in use (`None` before an automatic margin has been chosen).
    pub fn margin(&self) -> Option<f32> {
        self.margin
    }

    /// Inserts the pending objects: one by one into a populated tree, or by rebuilding the whole
    /// tree when the tree is empty or the pending objects outnumber the ones in it.
    pub fn refresh(&mut self) {
        self.refresh_lazily();
        self.ensure_tree();
    }

    /// [`DynamicTree::refresh`], except that a whole rebuild is only noted (`unbuilt`), for the
    /// next edit or incremental pair finding to do: a batch pair finding does not need the tree.
    fn refresh_lazily(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let margin = *self.margin.get_or_insert_with(|| automatic_margin(&self.slots.boxes));
        let in_tree = self.slots.len() - self.pending.len().min(self.slots.len());
        if self.unbuilt || self.root == NULL || self.pending.len() > in_tree {
            self.pending.clear();
            self.unbuilt = true;
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        for &id in &pending {
            let Some(slot) = self.slots.slot(id) else { continue };
            if !self.slots.extra[slot].placed {
                self.slots.extra[slot].fat = self.slots.boxes[slot].expanded(margin);
                self.insert_leaf(id);
            }
        }
        self.pending = pending;
        self.pending.clear();
    }

    /// Adds `id` to `moved` unless it is there.
    #[inline]
    fn list_moved(&mut self, id: u32) {
        if !self.listed.get(id) {
            self.listed.set(id, true);
            self.moved.push(id);
        }
    }

    /// Builds the tree if a rebuild is due.
    fn ensure_tree(&mut self) {
        if self.unbuilt {
            self.unbuilt = false;
            self.rebuild(self.margin.unwrap_or(0.0));
        }
    }

    fn proxy(&self, id: u32) -> &Proxy<B> {
        &self.slots.extra[self.slots.slot_of[id as usize] as usize]
    }

    fn proxy_mut(&mut self, id: u32) -> &mut Proxy<B> {
        &mut self.slots.extra[self.slots.slot_of[id as usize] as usize]
    }
}

/// How many moves ahead a fattened box reaches along an object's last move.
const PREDICTED_MOVES: f32 = 2.0;

/// The fattened box of an object that moved from `previous` to `bounds`: grown by `margin` on
/// every side and stretched [`PREDICTED_MOVES`] times the move further along it on each axis, so
/// that an object moving steadily stays inside for a few moves (Box2D's displacement prediction).
fn predicted<B: BroadBounds>(bounds: &B, previous: &B, margin: f32) -> B {
    let (lo, hi) = bounds.corners();
    let (plo, phi) = previous.corners();
    let mut fat_lo = [0.0; 3];
    let mut fat_hi = [0.0; 3];
    for axis in 0..B::DIM {
        let step = PREDICTED_MOVES * 0.5 * ((lo[axis] + hi[axis]) - (plo[axis] + phi[axis]));
        // A NaN or infinite step (from a previous box far away) stretches nothing.
        let step = if step.is_finite() { step } else { 0.0 };
        fat_lo[axis] = lo[axis] - margin + step.min(0.0);
        fat_hi[axis] = hi[axis] + margin + step.max(0.0);
    }
    B::from_lo_hi(fat_lo, fat_hi)
}

/// 1/16 of the mean largest extent of the boxes.
fn automatic_margin<B: BroadBounds>(boxes: &[B]) -> f32 {
    let sum: f64 = boxes
        .iter()
        .map(|b| (0..B::DIM).map(|axis| f64::from(b.hi(axis) - b.lo(axis))).fold(0.0, f64::max))
        .sum();
    let margin = (sum / boxes.len().max(1) as f64 / 16.0) as f32;
    if margin.is_finite() { margin } else { 0.0 }
}

/// A set of ids as one bit per id.
#[derive(Clone, Debug, Default)]
struct Marks(Vec<u64>);

impl Marks {
    #[inline]
    fn get(&self, id: u32) -> bool {
        self.0.get(id as usize / 64).is_some_and(|w| w >> (id % 64) & 1 != 0)
    }

    #[inline]
    fn set(&mut self, id: u32, on: bool) {
        let word = id as usize / 64;
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        let bit = 1u64 << (id % 64);
        if on { self.0[word] |= bit } else { self.0[word] &= !bit }
    }
}

impl<B: BroadBounds> BroadPhase<B> for DynamicTree<B> {
    fn insert(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError> {
        self.slots.check_insert(id, &bounds)?;
        self.casts.drop_tree();
        self.ensure_tree();
        self.reshaped = true;
        self.loosen(id);
        let proxy = Proxy { fat: bounds, home: bounds, parent: NULL, lane: 0, placed: false };
        self.slots.push(id, bounds, proxy);
        self.pending.push(id);
        self.list_moved(id);
        Ok(())
    }

    fn update(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError> {
        let slot = self.slots.check_update(id, &bounds)?;
        self.casts.note_move();
        self.ensure_tree();
        if let Some(columns) = &mut self.columns {
            if columns.update(id, &bounds) == Some(false) {
                self.loosen(id);
            }
        }
        let previous = std::mem::replace(&mut self.slots.boxes[slot], bounds);
        let Proxy { fat, parent, lane, placed, .. } = self.slots.extra[slot];
        self.list_moved(id);
        if placed {
            if parent != NULL {
                self.nodes[parent as usize].boxes[usize::from(lane)] = bounds;
            }
            if !fat.contains(&bounds) {
                self.reshaped = true;
                let new_fat = predicted(&bounds, &previous, self.margin.unwrap_or(0.0));
                self.replace_leaf(id, new_fat);
            }
        }
        Ok(())
    }

    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError> {
        let slot = self.slots.slot(id).ok_or(BroadPhaseError::UnknownId(id))?;
        self.casts.drop_tree();
        self.ensure_tree();
        self.reshaped = true;
        if let Some(columns) = &mut self.columns {
            if !columns.remove(id) {
                self.loose.retain(|&x| x != id);
            }
        }
        if self.slots.extra[slot].placed {
            self.remove_leaf(id);
        }
        self.slots.swap_remove(slot);
        self.list_moved(id);
        Ok(())
    }

    fn len(&self) -> usize {
        self.slots.len()
    }

    fn bounds(&self, id: u32) -> Option<B> {
        self.slots.slot(id).map(|s| self.slots.boxes[s])
    }

    fn find_pairs(&mut self, events: &mut PairEvents) {
        self.refresh_lazily();
        let marked = std::mem::take(&mut self.moved);
        // Many edits, or `events` not from the last call: all pairs from scratch.
        let incremental = events.pairs.len() == self.pair_count && marked.len() * 4 <= self.slots.len();
        if incremental {
            self.ensure_tree();
            // The columns are rebuilt when the tree is settled, or when the moved objects'
            // queries through the tree would cost more than the rebuild even if the next frame
            // drops the columns again (objects drifting steadily one way). A rebuild costs about
            // as much as 16 box tests per object; a query through the tree costs the box tests
            // its last ones averaged (few in sparse scenes, where rebuilding does not pay; many
            // in dense ones).
            let tree_tests = marked.len() as f32 * self.tree_tests_per_query;
            if self.columns.is_none() && (!self.reshaped || tree_tests >= 16.0 * self.slots.len() as f32) {
                let fat: Vec<B> = self.slots.extra.iter().map(|p| p.fat).collect();
                self.columns = Some(Columns::with_slack(&self.slots.ids, &self.slots.boxes, &fat));
                self.loose.clear();
            }
            let mut moved: Vec<u32> =
                marked.iter().copied().filter(|&id| self.slots.slot(id).is_some()).collect();
            if self.columns.is_none() {
                // Neighbouring leaves one after the other: their queries share most of their paths.
                moved.sort_unstable_by_key(|&id| self.proxy(id).parent);
            }
            self.incremental_pairs(&moved, events);
        } else {
            let mut pairs = std::mem::take(&mut self.scratch);
            pairs.clear();
            let columns = Columns::new(&self.slots.ids, &self.slots.boxes);
            columns.pairs(&mut pairs);
            self.columns = Some(columns);
            self.loose.clear();
            sort_pairs(&mut pairs);
            events.advance(&mut pairs);
            self.scratch = pairs;
        }
        for &id in &marked {
            self.listed.set(id, false);
        }
        self.moved = marked;
        self.moved.clear();
        self.reshaped = false;
        self.pair_count = events.pairs.len();
    }

    fn query_box(&self, query: &B, out: &mut Vec<u32>) -> QueryStats {
        // An inverted box can still pass the componentwise test; the tree handles it.
        if let Some(columns) = self.columns.as_ref().filter(|_| query.is_valid()) {
            out.clear();
            let mut stats = columns.query_box(query, out);
            stats.tested += self.test_loose(|b| b.overlaps_simd(query), out);
            out.sort_unstable();
            return stats;
        }
        self.collect(|b| b.overlaps_simd(query), out)
    }

    fn cast_box(&self, ray: &B::Ray, half: [f32; 3], max_t: f32, visit: &mut dyn FnMut(u32, f32) -> f32) {
        if let Some(reach) = cast_reach::<B>(ray, half, max_t) {
            self.cast_box_in_tree(ray, half, reach, visit);
        }
    }

    fn query_ray(&self, ray: &B::Ray, max_t: f32, out: &mut Vec<u32>) -> QueryStats {
        if let Some(columns) = self.columns.as_ref().filter(|_| ray_usable::<B>(ray, max_t)) {
            out.clear();
            let mut stats = columns.query_ray(ray, max_t, out);
            stats.tested += self.test_loose(|b| b.ray_entry(ray, max_t).is_some(), out);
            out.sort_unstable();
            out.dedup();
            return stats;
        }
        self.collect(|b| b.ray_entry(ray, max_t).is_some(), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::{Aabb2, Aabb3};
    use crate::broad::BruteForce;
    use glam::{Vec2, Vec3};
    use kollide_testkit::random;
    use rand::Rng;

    #[test]
    fn predicted_boxes_stretch_along_the_move() {
        let previous = Aabb3::new(Vec3::ZERO, Vec3::ONE);
        let moved = Aabb3::new(Vec3::new(1.0, -0.5, 0.0), Vec3::new(2.0, 0.5, 1.0));
        let fat = predicted(&moved, &previous, 0.25);
        assert_eq!(fat, Aabb3::new(Vec3::new(0.75, -1.75, -0.25), Vec3::new(4.25, 0.75, 1.25)));
        // A step that overflows stretches nothing: the margin alone.
        let far = Aabb3::new(Vec3::splat(-f32::MAX), Vec3::splat(-f32::MAX));
        assert_eq!(predicted(&moved, &far, 0.25), moved.expanded(0.25));
        let fat2 = predicted(
            &Aabb2::new(Vec2::new(1.0, 0.0), Vec2::new(2.0, 1.0)),
            &Aabb2::new(Vec2::ZERO, Vec2::ONE),
            0.0,
        );
        assert_eq!(fat2, Aabb2::new(Vec2::new(1.0, 0.0), Vec2::new(4.0, 1.0)));
    }

    /// A fifth of the objects drift steadily one way each frame and keep leaving their fattened
    /// boxes, so the tree is reshaped every frame and the columns are dropped; in a dense scene
    /// their queries through the tree are costly enough that the columns are rebuilt anyway. Pairs and events equal brute force every frame, and that rebuild path
    /// is taken.
    #[test]
    fn steady_drift_frames_match_brute_force() {
        let mut rng = random::rng(77);
        let count = 3000u32;
        let mut boxes: Vec<Aabb3> = (0..count)
            .map(|_| {
                let h = Vec3::new(
                    rng.random_range(0.0..6.0),
                    rng.random_range(0.0..6.0),
                    rng.random_range(0.0..6.0),
                );
                Aabb3::from_center_half_extents(random::point3(&mut rng, 40.0), h)
            })
            .collect();
        let velocity: Vec<Vec3> = (0..count).map(|_| random::point3(&mut rng, 1.5)).collect();
        let mut tree = DynamicTree::<Aabb3>::new();
        let mut reference = BruteForce::<Aabb3>::new();
        for (id, b) in boxes.iter().enumerate() {
            tree.insert(id as u32, *b).unwrap();
            reference.insert(id as u32, *b).unwrap();
        }
        let (mut events, mut expected) = (PairEvents::default(), PairEvents::default());
        let mut rebuilt_after_reshape = 0;
        for frame in 0..30u32 {
            for id in (0..count).filter(|&id| (id + frame) % 5 == 0) {
                let b = &mut boxes[id as usize];
                *b = Aabb3::new(b.min + velocity[id as usize], b.max + velocity[id as usize]);
                tree.update(id, *b).unwrap();
                reference.update(id, *b).unwrap();
            }
            let dropped_and_reshaped = tree.columns.is_none() && tree.reshaped;
            tree.find_pairs(&mut events);
            reference.find_pairs(&mut expected);
            assert_eq!(events, expected, "frame {frame}");
            if dropped_and_reshaped && tree.columns.is_some() {
                rebuilt_after_reshape += 1;
            }
        }
        assert!(
            rebuilt_after_reshape >= 5,
            "columns rebuilt after a reshape in only {rebuilt_after_reshape} frames"
        );
    }
}
