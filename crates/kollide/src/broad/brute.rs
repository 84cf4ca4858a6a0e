//! The reference broad phase: every pair, every box.

use super::{
    BroadBounds, BroadPhase, BroadPhaseError, Pair, PairEvents, QueryStats, Slots, ordered, sort_pairs,
};

/// Tests every pair of objects and every object against each query: `O(n²)` pairs, `O(n)`
/// queries. The reference the other broad phases are tested against, and a fine choice below a
/// few dozen objects.
#[derive(Clone, Debug)]
pub struct BruteForce<B: BroadBounds> {
    slots: Slots<B, ()>,
    scratch: Vec<Pair>,
}

impl<B: BroadBounds> Default for BruteForce<B> {
    fn default() -> Self {
        Self { slots: Slots::default(), scratch: Vec::new() }
    }
}

impl<B: BroadBounds> BruteForce<B> {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<B: BroadBounds> BroadPhase<B> for BruteForce<B> {
    fn insert(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError> {
        self.slots.check_insert(id, &bounds)?;
        self.slots.push(id, bounds, ());
        Ok(())
    }

    fn update(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError> {
        let slot = self.slots.check_update(id, &bounds)?;
        self.slots.boxes[slot] = bounds;
        Ok(())
    }

    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError> {
        let slot = self.slots.slot(id).ok_or(BroadPhaseError::UnknownId(id))?;
        self.slots.swap_remove(slot);
        Ok(())
    }

    fn len(&self) -> usize {
        self.slots.len()
    }

    fn bounds(&self, id: u32) -> Option<B> {
        self.slots.slot(id).map(|s| self.slots.boxes[s])
    }

    fn find_pairs(&mut self, events: &mut PairEvents) {
        let (ids, boxes) = (&self.slots.ids, &self.slots.boxes);
        self.scratch.clear();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if boxes[i].overlaps(&boxes[j]) {
                    self.scratch.push(ordered(ids[i], ids[j]));
                }
            }
        }
        sort_pairs(&mut self.scratch);
        events.advance(&mut self.scratch);
    }

    fn query_box(&self, query: &B, out: &mut Vec<u32>) -> QueryStats {
        out.clear();
        let (ids, boxes) = (&self.slots.ids, &self.slots.boxes);
        out.extend((0..boxes.len()).filter(|&i| boxes[i].overlaps(query)).map(|i| ids[i]));
        out.sort_unstable();
        let n = boxes.len() as u32;
        QueryStats { visited: n, tested: n }
    }

    fn query_ray(&self, ray: &B::Ray, max_t: f32, out: &mut Vec<u32>) -> QueryStats {
        out.clear();
        let (ids, boxes) = (&self.slots.ids, &self.slots.boxes);
        out.extend((0..boxes.len()).filter(|&i| boxes[i].ray_entry(ray, max_t).is_some()).map(|i| ids[i]));
        out.sort_unstable();
        let n = boxes.len() as u32;
        QueryStats { visited: n, tested: n }
    }
}
