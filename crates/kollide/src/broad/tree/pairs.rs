//! Incremental pair finding of [`DynamicTree`]: only the objects edited since the last call are
//! queried, and their pairs merged with the previous ones.

use super::DynamicTree;
use crate::broad::{BroadBounds, PairEvents, ordered, sort_pairs};

impl<B: BroadBounds> DynamicTree<B> {
    /// Fills `events` from the pairs of the previous call in `events.pairs` and the current
    /// pairs of the `moved` objects (present ones; `listed` marks them and the removed ones).
    ///
    /// The moved objects are queried against the tree; a pair of two moved objects is kept from
    /// the query of the smaller id. The previous pairs that touch no marked object stand; the
    /// others are compared with the pairs found, by one merge walk.
    pub(super) fn incremental_pairs(&mut self, moved: &[u32], events: &mut PairEvents) {
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
