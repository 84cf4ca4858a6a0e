//! Box and ray queries of [`DynamicTree`]: through the grid columns when they are present (with
//! the loose objects beside them), else down the tree.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{DynamicTree, LEAF, NULL, is_leaf};
use crate::broad::{BroadBounds, QueryStats};

impl<B: BroadBounds> DynamicTree<B> {
    /// Calls `leaf(id)` for every object in the tree whose box passes `test`, descending only into
    /// boxes that pass it (so `test` must hold for a box whenever it holds for a box inside it).
    /// Returns the boxes tested.
    #[inline]
    pub(super) fn traverse(&self, test: impl Fn(&B) -> bool, mut leaf: impl FnMut(u32)) -> u32 {
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
    pub(super) fn loosen(&mut self, id: u32) {
        if self.columns.is_some() {
            self.loose.push(id);
            if self.loose.len() > 16 + self.slots.len() / 1024 {
                self.columns = None;
                self.loose.clear();
            }
        }
    }

    /// Appends the loose objects whose boxes pass `test`; returns how many were tested.
    pub(super) fn test_loose(&self, test: impl Fn(&B) -> bool, out: &mut Vec<u32>) -> u32 {
        for &id in &self.loose {
            if test(&self.slots.boxes[self.slots.slot_of[id as usize] as usize]) {
                out.push(id);
            }
        }
        self.loose.len() as u32
    }

    /// Clears `out` and fills it with the ascending ids of the objects whose boxes pass `test`.
    pub(super) fn collect(&self, test: impl Fn(&B) -> bool, out: &mut Vec<u32>) -> QueryStats {
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
}

thread_local! {
    /// The heap of best-first casts, reused (a nested cast from a visitor finds it taken and
    /// allocates its own).
    static CAST_HEAP: std::cell::Cell<Vec<Reverse<u64>>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A heap key ordering entries `t >= 0` first and child codes second: non-negative floats order
/// as their bit patterns.
fn cast_key(t: f32, code: u32) -> Reverse<u64> {
    let bits = if t > 0.0 { t.to_bits() } else { 0 };
    Reverse((u64::from(bits) << 32) | u64::from(code))
}

impl<B: BroadBounds> DynamicTree<B> {
    /// [`BroadPhase::cast_box`](crate::broad::BroadPhase::cast_box) on the built tree: a
    /// best-first descent keyed by the entry into each node's box grown by `half` (a child's box
    /// lies inside its parent's, so its entry is no earlier), leaves popped in entry order, with
    /// the objects still waiting for insertion entered as leaves at the start.
    pub(super) fn cast_box_best_first(
        &self,
        ray: &B::Ray,
        half: [f32; 3],
        reach: f32,
        visit: &mut dyn FnMut(u32, f32) -> f32,
    ) {
        let entry = |b: &B, limit: f32| super::super::grown(b, half).ray_entry(ray, limit);
        let mut heap = BinaryHeap::from(CAST_HEAP.take());
        heap.clear();
        if self.root != NULL {
            let root_box = if is_leaf(self.root) {
                self.slots.boxes[self.slots.slot_of[(self.root & !LEAF) as usize] as usize]
            } else {
                self.root_fat
            };
            if let Some(t) = entry(&root_box, reach) {
                heap.push(cast_key(t, self.root));
            }
        }
        for &id in &self.pending {
            if let Some(slot) = self.slots.slot(id).filter(|&s| !self.slots.extra[s].placed)
                && let Some(t) = entry(&self.slots.boxes[slot], reach)
            {
                heap.push(cast_key(t, LEAF | id));
            }
        }
        let mut limit = reach;
        let mut last_leaf = None;
        while let Some(Reverse(key)) = heap.pop() {
            let (t, code) = (f32::from_bits((key >> 32) as u32), key as u32);
            if t > limit {
                break;
            }
            if is_leaf(code) {
                // The pending list may repeat an id; equal keys pop together.
                if last_leaf == Some(key) {
                    continue;
                }
                last_leaf = Some(key);
                limit = limit.min(visit(code & !LEAF, t));
                if limit < 0.0 {
                    break;
                }
                continue;
            }
            let node = &self.nodes[code as usize];
            for lane in 0..2 {
                if let Some(child_t) = entry(&node.boxes[lane], limit) {
                    heap.push(cast_key(child_t, node.child[lane]));
                }
            }
        }
        CAST_HEAP.set(heap.into_vec());
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
