//! The node hierarchy of [`DynamicTree`]: top-down rebuild, insertion at the sibling of least
//! added surface area with rotations on the way up, removal and refits.

use super::{DynamicTree, LEAF, NULL, Node, Proxy, is_leaf};
use crate::broad::BroadBounds;
use std::cmp::Reverse;

/// A candidate sibling in the branch-and-bound search: the growth of its ancestors, its child
/// code and its enclosure.
#[derive(Clone, Copy, Debug)]
pub(super) struct Candidate<B>(f32, u32, B);

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

impl<B: BroadBounds> DynamicTree<B> {
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
    pub(super) fn rebuild(&mut self, margin: f32) {
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
    pub(super) fn insert_leaf(&mut self, id: u32) {
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
    /// leaf out and inserts it again with `fat`. Refitting is one walk to the root, without the
    /// search for the best sibling and the rotations of an insertion.
    pub(super) fn replace_leaf(&mut self, id: u32, fat: B) {
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
    pub(super) fn remove_leaf(&mut self, id: u32) {
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
