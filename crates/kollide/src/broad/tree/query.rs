//! Box and ray queries of [`DynamicTree`]: through the grid columns when they are present (with
//! the loose objects beside them), else down the tree.

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
        stack.push(self.root, 0.0);
        let mut tested = 0;
        while let Some((n, _)) = stack.pop() {
            let node = &self.nodes[n as usize];
            tested += 2;
            for lane in (0..2).rev() {
                if test(&node.boxes[lane]) {
                    let code = node.child[lane];
                    if is_leaf(code) {
                        leaf(code & !LEAF);
                    } else {
                        stack.push(code, 0.0);
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

/// A traversal stack of child codes, each with a key (a cast's entry; unused by plain
/// traversals): 64 entries inline, more on the heap.
struct Stack {
    inline: [(u32, f32); 64],
    len: usize,
    spill: Vec<(u32, f32)>,
}

impl Stack {
    #[inline]
    fn new() -> Self {
        Self { inline: [(0, 0.0); 64], len: 0, spill: Vec::new() }
    }

    #[inline]
    fn push(&mut self, code: u32, key: f32) {
        if self.len < self.inline.len() {
            self.inline[self.len] = (code, key);
            self.len += 1;
        } else {
            self.spill.push((code, key));
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<(u32, f32)> {
        if let Some(item) = self.spill.pop() {
            Some(item)
        } else if self.len > 0 {
            self.len -= 1;
            Some(self.inline[self.len])
        } else {
            None
        }
    }
}
