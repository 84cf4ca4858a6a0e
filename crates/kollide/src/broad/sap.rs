//! Sweep and prune along one axis, kept sorted incrementally, pruned in grid columns.

use super::prune::Columns;
use super::{
    BroadBounds, BroadPhase, BroadPhaseError, Pair, PairEvents, QueryStats, Slots, ray_usable, sort_pairs,
};

/// One object in the sweep order: its id and its lower bound on the sweep axis.
#[derive(Clone, Copy, Debug)]
struct Entry {
    lo: f32,
    id: u32,
}

/// Sweep and prune ("box pruning", Terdiman 2002): the objects are kept sorted by the
/// lower bound of their box on one axis, and a sweep over that order tests each object only
/// against the objects whose lower bound lies inside its extent. The sweep runs separately in
/// the columns of a coarse grid over the other axes (see the module notes), which keeps it fast
/// when boxes are not small against the scene.
///
/// The order is refreshed by [`SweepAndPrune::refresh`] (which [`BroadPhase::find_pairs`] calls):
/// an insertion sort, linear in the number of objects when they moved little since the last
/// refresh, or a full sort after many insertions or a change of axis; then the columns are
/// rebuilt from it. The axis is the one along which the box centers spread most (largest
/// variance), chosen again at every refresh with some hysteresis.
///
/// Queries are answered from the columns when they are fresh and by scanning every object after
/// edits that have not been refreshed yet; both give the same ids.
#[derive(Clone, Debug)]
pub struct SweepAndPrune<B: BroadBounds> {
    slots: Slots<B, ()>,
    /// Every object, sorted by `lo` on `axis` after a refresh; new objects are appended.
    order: Vec<Entry>,
    axis: usize,
    /// The columns of the last refresh.
    columns: Option<Columns<B>>,
    /// Whether an edit happened since the last refresh.
    stale: bool,
    /// Objects removed since the last refresh (their entries are still in `order`).
    removed: usize,
    /// Objects inserted since the last refresh (their entries are at the end of `order`).
    inserted: usize,
    scratch: Vec<Pair>,
}

impl<B: BroadBounds> Default for SweepAndPrune<B> {
    fn default() -> Self {
        Self {
            slots: Slots::default(),
            order: Vec::new(),
            axis: 0,
            columns: None,
            stale: false,
            removed: 0,
            inserted: 0,
            scratch: Vec::new(),
        }
    }
}

impl<B: BroadBounds> SweepAndPrune<B> {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current sweep axis (0 = x, 1 = y, 2 = z).
    pub fn axis(&self) -> usize {
        self.axis
    }

    /// Brings the sweep order up to date with every edit since the last refresh.
    pub fn refresh(&mut self) {
        if !self.stale {
            return;
        }
        let Self { slots, order, .. } = self;
        if self.removed > 0 {
            // An id removed and inserted again since the last refresh has two entries, and the
            // slot test keeps both: keep the first.
            let mut seen = vec![false; slots.len()];
            order.retain(|e| slots.slot(e.id).is_some_and(|s| !std::mem::replace(&mut seen[s], true)));
        }
        let axis = best_axis(&slots.boxes, self.axis);
        for e in order.iter_mut() {
            e.lo = slots.boxes[slots.slot_of[e.id as usize] as usize].lo(axis);
        }
        // Many new entries (unsorted at the end) or a new axis (no useful order): sort from scratch.
        // Otherwise the order is nearly sorted and insertion sort is linear plus the moves.
        if axis != self.axis || self.inserted > order.len() / 8 {
            order.sort_unstable_by(|a, b| a.lo.total_cmp(&b.lo).then(a.id.cmp(&b.id)));
        } else {
            insertion_sort(order);
        }
        self.axis = axis;
        let sorted: Vec<u32> = order.iter().map(|e| slots.slot_of[e.id as usize]).collect();
        self.columns = Some(Columns::with_order(&slots.ids, &slots.boxes, &slots.boxes, axis, &sorted));
        self.stale = false;
        self.removed = 0;
        self.inserted = 0;
    }

    /// Clears `out` and fills it with the ascending ids of the objects that pass `test`: from the
    /// columns by `query` when they are fresh and `query` gives an answer, else by a scan.
    fn collect(
        &self,
        query: impl FnOnce(&Columns<B>, &mut Vec<u32>) -> Option<QueryStats>,
        test: impl Fn(&B) -> bool,
        out: &mut Vec<u32>,
    ) -> QueryStats {
        out.clear();
        let fresh = self.columns.as_ref().filter(|_| !self.stale);
        if let Some(stats) = fresh.and_then(|c| query(c, out)) {
            out.sort_unstable();
            out.dedup();
            return stats;
        }
        let (ids, boxes) = (&self.slots.ids, &self.slots.boxes);
        out.extend((0..boxes.len()).filter(|&s| test(&boxes[s])).map(|s| ids[s]));
        out.sort_unstable();
        let n = boxes.len() as u32;
        QueryStats { visited: n, tested: n }
    }
}

/// Sorts nearly sorted entries by `(lo, id)` in place.
fn insertion_sort(order: &mut [Entry]) {
    let key = |e: &Entry| (e.lo, e.id);
    for i in 1..order.len() {
        let e = order[i];
        let mut j = i;
        while j > 0 && key(&order[j - 1]).partial_cmp(&key(&e)) == Some(std::cmp::Ordering::Greater) {
            order[j] = order[j - 1];
            j -= 1;
        }
        order[j] = e;
    }
}

/// The axis along which the box centers have the largest variance; `current` is kept unless
/// another axis spreads at least 20% more (so the axis does not flip every frame).
fn best_axis<B: BroadBounds>(boxes: &[B], current: usize) -> usize {
    if boxes.is_empty() {
        return current;
    }
    let n = boxes.len() as f64;
    let mut variance = [0.0f64; 3];
    for (axis, v) in variance.iter_mut().enumerate().take(B::DIM) {
        let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
        for b in boxes {
            let c = 0.5 * (f64::from(b.lo(axis)) + f64::from(b.hi(axis)));
            sum += c;
            sum_sq += c * c;
        }
        *v = sum_sq / n - (sum / n) * (sum / n);
    }
    let best = (0..B::DIM).max_by(|&a, &b| variance[a].total_cmp(&variance[b])).unwrap_or(current);
    if variance[best] > 1.2 * variance[current] { best } else { current }
}

impl<B: BroadBounds> BroadPhase<B> for SweepAndPrune<B> {
    fn insert(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError> {
        self.slots.check_insert(id, &bounds)?;
        self.slots.push(id, bounds, ());
        self.order.push(Entry { lo: bounds.lo(self.axis), id });
        self.inserted += 1;
        self.stale = true;
        Ok(())
    }

    fn update(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError> {
        let slot = self.slots.check_update(id, &bounds)?;
        self.slots.boxes[slot] = bounds;
        self.stale = true;
        Ok(())
    }

    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError> {
        let slot = self.slots.slot(id).ok_or(BroadPhaseError::UnknownId(id))?;
        self.slots.swap_remove(slot);
        self.removed += 1;
        self.stale = true;
        Ok(())
    }

    fn len(&self) -> usize {
        self.slots.len()
    }

    fn bounds(&self, id: u32) -> Option<B> {
        self.slots.slot(id).map(|s| self.slots.boxes[s])
    }

    fn find_pairs(&mut self, events: &mut PairEvents) {
        self.refresh();
        self.scratch.clear();
        if let Some(columns) = &self.columns {
            columns.pairs(&mut self.scratch);
        }
        sort_pairs(&mut self.scratch);
        events.advance(&mut self.scratch);
    }

    fn query_box(&self, query: &B, out: &mut Vec<u32>) -> QueryStats {
        // An inverted box can still pass the componentwise test: it is scanned for.
        let valid = query.is_valid();
        self.collect(|c, out| valid.then(|| c.query_box(query, out)), |b| b.overlaps(query), out)
    }

    fn query_ray(&self, ray: &B::Ray, max_t: f32, out: &mut Vec<u32>) -> QueryStats {
        let usable = ray_usable::<B>(ray, max_t);
        self.collect(
            |c, out| usable.then(|| c.query_ray(ray, max_t, out)),
            |b| b.ray_entry(ray, max_t).is_some(),
            out,
        )
    }
}
