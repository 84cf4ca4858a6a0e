//! A dynamic bounding-box tree with fattened leaves and incremental pairs.

use super::prune::Columns;
use super::{
    BroadBounds, BroadPhase, BroadPhaseError, Pair, PairEvents, QueryStats, Slots, ordered, ray_usable,
    sort_pairs,
};
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
///   displacement prediction: an object moving steadily stays inside for a few moves). While it stays near the fattened box the leaf was inserted with (within
///   the latter's largest extent of it), the leaf keeps its place and the enclosures above it are
///   refitted, several times cheaper than a new insertion, and an object that moves back and forth
///   soon stops leaving its fattened box; otherwise the leaf is taken out and inserted again with
///   its box grown by the margin.
/// - Insertions are deferred to [`DynamicTree::refresh`] (which [`BroadPhase::find_pairs`] calls):
///   many at once, or into an empty tree, rebuild the whole tree top down (binned surface area
///   heuristic) instead, and only when the tree is next needed.
/// - [`BroadPhase::find_pairs`] is incremental: only objects edited since the last call are
///   queried, and their answers merged with the previous pairs in one pass that also gives the
///   began and ended pairs. When more than a quarter of the objects were edited, or `events`
///   is not the value passed to the previous call, it finds all pairs in one batch instead (box
///   pruning in grid columns, as [`super::SweepAndPrune`] does).
/// - Next to the tree, the objects are kept in grid columns (as after a batch pair finding), a
///   more compact layout that answers queries, and the queries of incremental pair finding,
///   several times faster. Objects that move inside their placement box there are moved in place;
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

/// A candidate sibling in the branch-and-bound search: the growth of its ancestors, its child
/// code and its enclosure.
#[derive(Clone, Copy, Debug)]
struct Candidate<B>(f32, u32, B);

impl<B> PartialEq for Candidate<B> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl<B> Eq for Candidate<B> {}

impl<B> PartialOrd for Candidate<B> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<B> Ord for Candidate<B> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
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

    /// The enclosure of the child in `lane` of node `n`.
    #[inline]
    fn lane_enclosure(&self, n: u32, lane: usize) -> B {
        let node = &self.nodes[n as usize];
        let code = node.child[lane];
        if is_leaf(code) { self.proxy(code & !LEAF).fat } else { node.boxes[lane] }
    }

    /// The enclosure of inner node `n`.
    fn enclosure(&self, n: u32) -> B {
        self.lane_enclosure(n, 0).merge(&self.lane_enclosure(n, 1))
    }

    /// Records that child `code` now hangs in `lane` of node `n` (or is the root if `n` is NULL).
    fn set_parent(&mut self, code: u32, n: u32, lane: usize) {
        if is_leaf(code) {
            let proxy = self.proxy_mut(code & !LEAF);
            proxy.parent = n;
            proxy.lane = lane as u8;
        } else {
            self.nodes[code as usize].parent = n;
        }
    }

    /// The lane of child code `code` in node `n`.
    fn lane_of(&self, n: u32, code: u32) -> usize {
        usize::from(self.nodes[n as usize].child[1] == code)
    }

    fn alloc(&mut self, node: Node<B>) -> u32 {
        if let Some(n) = self.free.pop() {
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    /// Rebuilds the tree over every object, top down, splitting each range of objects by a binned
    /// surface area heuristic over the centers of the fattened boxes; then the boxes are computed
    /// bottom up.
    fn rebuild(&mut self, margin: f32) {
        self.nodes.clear();
        self.free.clear();
        self.root = NULL;
        self.root_fat = B::empty();
        let n = self.slots.len();
        if n == 0 {
            return;
        }
        for (proxy, tight) in self.slots.extra.iter_mut().zip(&self.slots.boxes) {
            let fat = tight.expanded(margin);
            *proxy = Proxy { fat, home: fat, parent: NULL, lane: 0, placed: true };
        }
        let mut items: Vec<(B, u32)> =
            self.slots.extra.iter().enumerate().map(|(slot, p)| (p.fat, slot as u32)).collect();
        self.nodes.reserve(n - 1);
        // Work items: the range of `items`, the parent node and the lane to fill. Ranges are taken
        // left first, so nodes are numbered in depth-first preorder and children follow their
        // parent.
        let mut work = vec![(0usize, n, NULL, 0usize)];
        while let Some((start, end, parent, lane)) = work.pop() {
            let code = if end - start == 1 {
                LEAF | self.slots.ids[items[start].1 as usize]
            } else {
                self.nodes.len() as u32
            };
            if parent == NULL {
                self.root = code;
            } else {
                self.nodes[parent as usize].child[lane] = code;
            }
            if is_leaf(code) {
                let proxy = &mut self.slots.extra[items[start].1 as usize];
                (proxy.parent, proxy.lane) = (parent, lane as u8);
                continue;
            }
            let mid = start + split(&mut items[start..end]);
            self.nodes.push(Node { boxes: [B::empty(); 2], child: [NULL; 2], parent });
            work.push((mid, end, code, 1));
            work.push((start, mid, code, 0));
        }
        // Children follow their parents, so a backward sweep sees every child first. `enclosures`
        // holds each node's enclosure for its parent.
        let mut enclosures = vec![B::empty(); self.nodes.len()];
        for n in (0..self.nodes.len()).rev() {
            let mut enclosure = B::empty();
            for lane in 0..2 {
                let code = self.nodes[n].child[lane];
                let (lane_box, lane_fat) = if is_leaf(code) {
                    let slot = self.slots.slot_of[(code & !LEAF) as usize] as usize;
                    (self.slots.boxes[slot], self.slots.extra[slot].fat)
                } else {
                    (enclosures[code as usize], enclosures[code as usize])
                };
                self.nodes[n].boxes[lane] = lane_box;
                enclosure = enclosure.merge(&lane_fat);
            }
            enclosures[n] = enclosure;
        }
        self.root_fat = if is_leaf(self.root) { self.proxy(self.root & !LEAF).fat } else { enclosures[0] };
    }

    /// Adds object `id` (with its `fat` box set, not yet placed) to the tree.
    fn insert_leaf(&mut self, id: u32) {
        let leaf = LEAF | id;
        let slot = self.slots.slot_of[id as usize] as usize;
        let (fat, tight) = (self.slots.extra[slot].fat, self.slots.boxes[slot]);
        self.slots.extra[slot].placed = true;
        self.slots.extra[slot].home = fat;
        if self.root == NULL {
            self.root = leaf;
            self.root_fat = fat;
            self.set_parent(leaf, NULL, 0);
            return;
        }
        let (sibling, sibling_fat) = self.best_sibling(&fat);
        let sibling_box = if is_leaf(sibling) {
            self.slots.boxes[self.slots.slot_of[(sibling & !LEAF) as usize] as usize]
        } else {
            sibling_fat
        };
        let old_parent = if is_leaf(sibling) {
            self.proxy(sibling & !LEAF).parent
        } else {
            self.nodes[sibling as usize].parent
        };
        let n = self.alloc(Node { boxes: [sibling_box, tight], child: [sibling, leaf], parent: old_parent });
        if old_parent == NULL {
            self.root = n;
        } else {
            let lane = self.lane_of(old_parent, sibling);
            self.nodes[old_parent as usize].child[lane] = n;
        }
        self.set_parent(sibling, n, 0);
        self.set_parent(leaf, n, 1);
        self.refit_from(n, true);
    }

    /// The child code that, made the sibling of a new leaf with enclosure `leaf`, adds the least
    /// total surface area to the tree, and its enclosure. The cost of sibling `s` is
    /// `area(s ∪ leaf)` plus, for every ancestor `a` of `s`, the growth `area(a ∪ leaf) - area(a)`;
    /// a subtree whose ancestors already grow by more than the best cost found (less
    /// `area(leaf)`, the least any sibling costs) is not searched.
    fn best_sibling(&mut self, leaf: &B) -> (u32, B) {
        let leaf_area = leaf.surface_area();
        let mut best = (self.root_fat.merge(leaf).surface_area(), self.root, self.root_fat);
        self.heap.clear();
        self.heap.push(Reverse(Candidate(0.0, self.root, self.root_fat)));
        while let Some(Reverse(Candidate(inherited, code, fat))) = self.heap.pop() {
            if inherited + leaf_area >= best.0 {
                break;
            }
            let merged_area = fat.merge(leaf).surface_area();
            let cost = inherited + merged_area;
            if cost < best.0 {
                best = (cost, code, fat);
            }
            if !is_leaf(code) {
                let inherited = inherited + merged_area - fat.surface_area();
                if inherited + leaf_area < best.0 {
                    for lane in 0..2 {
                        let child = self.nodes[code as usize].child[lane];
                        let child_fat = self.lane_enclosure(code, lane);
                        self.heap.push(Reverse(Candidate(inherited, child, child_fat)));
                    }
                }
            }
        }
        (best.1, best.2)
    }

    /// Recomputes the enclosures from node `n` up to the root, rotating each node if `rotate`.
    fn refit_from(&mut self, mut n: u32, rotate: bool) {
        while n != NULL {
            if rotate {
                self.rotate(n);
            }
            let enclosure = self.enclosure(n);
            let parent = self.nodes[n as usize].parent;
            if parent == NULL {
                self.root_fat = enclosure;
            } else {
                let lane = self.lane_of(parent, n);
                self.nodes[parent as usize].boxes[lane] = enclosure;
            }
            n = parent;
        }
    }

    /// Swaps a child of `n` with a grandchild on the other side when that lowers the surface
    /// area of the inner child that changes (the enclosure of `n` stays the same).
    fn rotate(&mut self, n: u32) {
        let node = self.nodes[n as usize];
        // (area change, lane of the child that moves down, lane of the grandchild that moves up)
        let mut best: Option<(f32, usize, usize)> = None;
        for near in 0..2 {
            let far = node.child[1 - near];
            if is_leaf(far) {
                continue;
            }
            let near_fat = self.lane_enclosure(n, near);
            let far_area = node.boxes[1 - near].surface_area();
            for out in 0..2 {
                let area = near_fat.merge(&self.lane_enclosure(far, 1 - out)).surface_area();
                let delta = area - far_area;
                if delta < best.map_or(0.0, |b| b.0) {
                    best = Some((delta, near, out));
                }
            }
        }
        let Some((_, near, out)) = best else { return };
        let far = node.child[1 - near];
        let (near_code, near_box) = (node.child[near], node.boxes[near]);
        let far_node = self.nodes[far as usize];
        let (out_code, out_box) = (far_node.child[out], far_node.boxes[out]);
        self.nodes[n as usize].child[near] = out_code;
        self.nodes[n as usize].boxes[near] = out_box;
        self.nodes[far as usize].child[out] = near_code;
        self.nodes[far as usize].boxes[out] = near_box;
        self.set_parent(out_code, n, near);
        self.set_parent(near_code, far, out);
        self.nodes[n as usize].boxes[1 - near] = self.enclosure(far);
    }

    /// Gives object `id`'s leaf (placed) the fattened box `fat`, or, while that stays near the box
    /// the leaf was inserted with (within its largest extent of it), the union of `fat` and its
    /// current fattened box: in place, refitting the enclosures above it. A farther move takes the
    /// leaf out and inserts it again with `fat`. Refitting costs a walk to the root, several times
    /// less than a search for the best sibling.
    fn replace_leaf(&mut self, id: u32, fat: B) {
        let proxy = *self.proxy(id);
        let reach = (0..B::DIM).map(|axis| proxy.home.hi(axis) - proxy.home.lo(axis)).fold(0.0, f32::max);
        let grown = proxy.fat.merge(&fat);
        if proxy.parent != NULL && proxy.home.expanded(reach).contains(&grown) {
            self.proxy_mut(id).fat = grown;
            self.refit_from(proxy.parent, false);
        } else {
            self.remove_leaf(id);
            self.proxy_mut(id).fat = fat;
            self.insert_leaf(id);
        }
    }

    /// Detaches object `id`'s leaf from the tree.
    fn remove_leaf(&mut self, id: u32) {
        let proxy = *self.proxy(id);
        self.proxy_mut(id).placed = false;
        let parent = proxy.parent;
        if parent == NULL {
            self.root = NULL;
            self.root_fat = B::empty();
            return;
        }
        let lane = 1 - usize::from(proxy.lane);
        let node = self.nodes[parent as usize];
        let (sibling, sibling_box) = (node.child[lane], node.boxes[lane]);
        self.free.push(parent);
        let grand = node.parent;
        if grand == NULL {
            self.root = sibling;
            self.set_parent(sibling, NULL, 0);
            self.root_fat = if is_leaf(sibling) { self.proxy(sibling & !LEAF).fat } else { sibling_box };
        } else {
            let grand_lane = self.lane_of(grand, parent);
            self.nodes[grand as usize].child[grand_lane] = sibling;
            self.nodes[grand as usize].boxes[grand_lane] = sibling_box;
            self.set_parent(sibling, grand, grand_lane);
            self.refit_from(grand, false);
        }
    }

    /// Calls `leaf(id)` for every object in the tree whose box passes `test`, descending only into
    /// boxes that pass it (so `test` must hold for a box whenever it holds for a box inside it).
    /// Returns the boxes tested.
    #[inline]
    fn traverse(&self, test: impl Fn(&B) -> bool, mut leaf: impl FnMut(u32)) -> u32 {
        if self.root == NULL {
            return 0;
        }
        if is_leaf(self.root) {
            let id = self.root & !LEAF;
            if test(&self.slots.boxes[self.slots.slot_of[id as usize] as usize]) {
                leaf(id);
            }
            return 1;
        }
        let mut stack = Stack::new();
        stack.push(self.root);
        let mut tested = 0;
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            tested += 2;
            for lane in (0..2).rev() {
                if test(&node.boxes[lane]) {
                    let code = node.child[lane];
                    if is_leaf(code) {
                        leaf(code & !LEAF);
                    } else {
                        stack.push(code);
                    }
                }
            }
        }
        tested
    }

    /// Records that object `id` is missing from the columns, and drops them when too many are.
    fn loosen(&mut self, id: u32) {
        if self.columns.is_some() {
            self.loose.push(id);
            if self.loose.len() > 16 + self.slots.len() / 1024 {
                self.columns = None;
                self.loose.clear();
            }
        }
    }

    /// Appends the loose objects whose boxes pass `test`; returns how many were tested.
    fn test_loose(&self, test: impl Fn(&B) -> bool, out: &mut Vec<u32>) -> u32 {
        for &id in &self.loose {
            if test(&self.slots.boxes[self.slots.slot_of[id as usize] as usize]) {
                out.push(id);
            }
        }
        self.loose.len() as u32
    }

    /// Clears `out` and fills it with the ascending ids of the objects whose boxes pass `test`.
    fn collect(&self, test: impl Fn(&B) -> bool, out: &mut Vec<u32>) -> QueryStats {
        out.clear();
        if self.unbuilt {
            // No tree yet (a batch pair finding did not need it): every object, in slot order.
            let (ids, boxes) = (&self.slots.ids, &self.slots.boxes);
            out.extend((0..boxes.len()).filter(|&s| test(&boxes[s])).map(|s| ids[s]));
            out.sort_unstable();
            let n = boxes.len() as u32;
            return QueryStats { visited: n, tested: n };
        }
        let mut tested = self.traverse(&test, |id| out.push(id));
        let visited = tested;
        for &id in &self.pending {
            if let Some(slot) = self.slots.slot(id) {
                if !self.slots.extra[slot].placed {
                    tested += 1;
                    if test(&self.slots.boxes[slot]) {
                        out.push(id);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        QueryStats { visited, tested }
    }

    /// Fills `events` from the pairs of the previous call in `events.pairs` and the current
    /// pairs of the `moved` objects (present ones; `listed` marks them and the removed ones).
    ///
    /// The moved objects are queried against the tree; a pair of two moved objects is kept from
    /// the query of the smaller id. The previous pairs that touch no marked object stand; the
    /// others are compared with the pairs found, by one merge walk.
    fn incremental_pairs(&mut self, moved: &[u32], events: &mut PairEvents) {
        let mut found = std::mem::take(&mut self.scratch);
        found.clear();
        let mut near = Vec::new();
        let (mut tree_tests, mut tree_queries) = (0usize, 0usize);
        for &a in moved {
            let slot = self.slots.slot_of[a as usize] as usize;
            let tight = self.slots.boxes[slot];
            let listed = &self.listed;
            let mut keep = |b: u32| {
                if b != a && (!listed.get(b) || a < b) {
                    found.push(ordered(a, b));
                }
            };
            if let Some(columns) = &self.columns {
                near.clear();
                columns.query_box(&tight, &mut near);
                self.test_loose(|b| b.overlaps_simd(&tight), &mut near);
                near.iter().for_each(|&b| keep(b));
            } else {
                tree_tests += self.traverse(|b| b.overlaps_simd(&tight), keep) as usize;
                tree_queries += 1;
            }
        }
        if tree_queries > 0 {
            self.tree_tests_per_query = tree_tests as f32 / tree_queries as f32;
        }
        sort_pairs(&mut found);
        // One merge walk of the previous pairs and the pairs found, both ascending: a found pair
        // that was not there began; a previous pair of a marked object that was not found ended;
        // every other previous pair stands. The new list goes to a reused buffer, and the
        // previous one becomes the buffer of the next call.
        let old = std::mem::take(&mut events.pairs);
        let mut pairs = std::mem::take(&mut self.spare);
        pairs.clear();
        pairs.reserve(old.len() + found.len());
        events.began.clear();
        events.ended.clear();
        let (mut i, mut j) = (0, 0);
        while i < old.len() {
            let p = old[i];
            if j < found.len() && found[j] <= p {
                let f = found[j];
                if f < p {
                    events.began.push(f);
                } else {
                    i += 1;
                }
                pairs.push(f);
                j += 1;
            } else {
                // `|`, not `||`: both bits are cheap and the outcome is unpredictable.
                if self.listed.get(p.0) | self.listed.get(p.1) {
                    events.ended.push(p);
                } else {
                    pairs.push(p);
                }
                i += 1;
            }
        }
        events.began.extend_from_slice(&found[j..]);
        pairs.extend_from_slice(&found[j..]);
        events.pairs = pairs;
        self.spare = old;
        self.scratch = found;
    }
}

/// Splits `items` (fattened boxes and slots) in two non-empty parts by a binned surface area
/// heuristic along the axis where the box centers spread most (in half when the centers
/// coincide). Returns the size of the first part.
fn split<B: BroadBounds>(items: &mut [(B, u32)]) -> usize {
    const BINS: usize = 12;
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for (b, _) in items.iter() {
        let (l, h) = b.corners();
        for axis in 0..B::DIM {
            let c = l[axis] + h[axis];
            lo[axis] = lo[axis].min(c);
            hi[axis] = hi[axis].max(c);
        }
    }
    let axis = (0..B::DIM).max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b]))).unwrap_or(0);
    let extent = hi[axis] - lo[axis];
    let half = items.len() / 2;
    if !(extent > 0.0 && extent.is_finite()) {
        return half;
    }
    let scale = BINS as f32 / extent;
    let bin = |b: &B| (((b.lo(axis) + b.hi(axis) - lo[axis]) * scale) as usize).min(BINS - 1);
    let mut counts = [0usize; BINS];
    let mut boxes = [B::empty(); BINS];
    for (b, _) in items.iter() {
        let k = bin(b);
        counts[k] += 1;
        boxes[k] = boxes[k].merge(b);
    }
    // Areas of every suffix of bins, then the cheapest split point from the left.
    let mut right_area = [0.0f32; BINS];
    let mut acc = B::empty();
    for k in (1..BINS).rev() {
        acc = acc.merge(&boxes[k]);
        right_area[k] = acc.surface_area();
    }
    let (mut best_cost, mut best_bin) = (f32::INFINITY, 0);
    let (mut left, mut left_count) = (B::empty(), 0usize);
    for k in 1..BINS {
        left = left.merge(&boxes[k - 1]);
        left_count += counts[k - 1];
        let right_count = items.len() - left_count;
        if left_count == 0 || right_count == 0 {
            continue;
        }
        let cost = left.surface_area() * left_count as f32 + right_area[k] * right_count as f32;
        if cost < best_cost {
            (best_cost, best_bin) = (cost, k);
        }
    }
    if best_bin == 0 {
        return half;
    }
    let (mut i, mut j) = (0, items.len());
    while i < j {
        if bin(&items[i].0) < best_bin {
            i += 1;
        } else {
            j -= 1;
            items.swap(i, j);
        }
    }
    i
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

/// A traversal stack: 64 entries inline, more on the heap.
struct Stack {
    inline: [u32; 64],
    len: usize,
    spill: Vec<u32>,
}

impl Stack {
    #[inline]
    fn new() -> Self {
        Self { inline: [0; 64], len: 0, spill: Vec::new() }
    }

    #[inline]
    fn push(&mut self, n: u32) {
        if self.len < self.inline.len() {
            self.inline[self.len] = n;
            self.len += 1;
        } else {
            self.spill.push(n);
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<u32> {
        if let Some(n) = self.spill.pop() {
            Some(n)
        } else if self.len > 0 {
            self.len -= 1;
            Some(self.inline[self.len])
        } else {
            None
        }
    }
}

impl<B: BroadBounds> BroadPhase<B> for DynamicTree<B> {
    fn insert(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError> {
        self.slots.check_insert(id, &bounds)?;
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
            // its last ones averaged (about 50 for sparse scenes, where rebuilding does not pay,
            // and 250 for Terdiman's 100k boxes, where it halves the queries' time).
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

    /// A fifth of the objects drift steadily one way each frame (as in `broad/drift100k`) and keep
    /// leaving their fattened boxes, so the tree is reshaped every frame and the columns are
    /// dropped; in a dense scene their queries through the tree are costly enough that the columns
    /// are rebuilt anyway. Pairs and events equal brute force every frame, and that rebuild path
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
