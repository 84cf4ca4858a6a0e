//! A spatial hash of fattened boxes.

use super::{
    BroadBounds, BroadPhase, BroadPhaseError, Pair, PairEvents, QueryStats, Slots, ordered, sort_pairs,
};
use std::collections::HashMap;

/// How a [`SpatialHash`] sizes its cells and fattens its boxes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HashSettings {
    /// Edge length of the cubic (square in 2D) cells; `None` chooses it at the first refresh
    /// that has objects: twice the mean largest box extent (1 if every box is a point).
    pub cell_size: Option<f32>,
    /// Fattening, as a fraction of the cell size: an object is bucketed by its box grown by
    /// `margin · cell_size` and re-bucketed only when its box leaves that fattened box.
    pub margin: f32,
    /// Objects whose fattened box spans more cells than this are not bucketed; they are kept in
    /// one list and tested against everything.
    pub max_cells_per_object: u32,
}

impl Default for HashSettings {
    fn default() -> Self {
        Self { cell_size: None, margin: 0.125, max_cells_per_object: 64 }
    }
}

/// Integer cell coordinates (`z = 0` in 2D).
type CellKey = [i32; 3];

/// One occupied cell.
#[derive(Clone, Debug)]
struct Cell {
    key: CellKey,
    ids: Vec<u32>,
}

/// Where an object is bucketed.
#[derive(Clone, Copy, Debug)]
struct Placement<B> {
    /// The fattened box the object was bucketed with.
    fat: B,
    /// Inclusive cell range of `fat`; `None` when the object is oversized or not yet bucketed.
    cells: Option<(CellKey, CellKey)>,
    /// Whether the object is in the oversized list.
    oversized: bool,
}

/// A uniform grid of hashed cells: each object is recorded in every cell its fattened box
/// touches, and only objects that share a cell are tested against each other.
///
/// Edits only record the new tight box; [`SpatialHash::refresh`] (called by
/// [`BroadPhase::find_pairs`]) re-buckets the objects whose tight box left their fattened box, so a
/// slowly moving object costs nothing most frames. A pair that shares several cells is reported by
/// the cell at the lowest corner of their common cell range only, so no pair is found twice.
///
/// Queries use the cells when they are fresh and scan all objects after unrefreshed edits; both
/// give the same ids.
#[derive(Clone, Debug)]
pub struct SpatialHash<B: BroadBounds> {
    settings: HashSettings,
    /// The cell size in use; 0 until chosen.
    cell_size: f32,
    slots: Slots<B, Placement<B>>,
    cells: Vec<Cell>,
    cell_of: HashMap<CellKey, u32>,
    /// Inclusive key range around every cell occupied since the hash last emptied (it grows
    /// as cells fill and is not shrunk when they empty); `None` when no cell is occupied.
    occupied: Option<(CellKey, CellKey)>,
    oversized: Vec<u32>,
    /// Ids edited since the last refresh (may repeat).
    moved: Vec<u32>,
    stale: bool,
    scratch: Vec<Pair>,
}

impl<B: BroadBounds> Default for SpatialHash<B> {
    fn default() -> Self {
        Self::with_settings(HashSettings::default())
    }
}

impl<B: BroadBounds> SpatialHash<B> {
    /// An empty hash with the default settings (automatic cell size).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty hash with the given settings. A cell size that is not finite and positive, a
    /// negative or NaN margin are replaced by the defaults.
    pub fn with_settings(settings: HashSettings) -> Self {
        let defaults = HashSettings::default();
        let settings = HashSettings {
            cell_size: settings.cell_size.filter(|&c| c.is_finite() && c > 0.0),
            margin: if settings.margin >= 0.0 && settings.margin.is_finite() {
                settings.margin
            } else {
                defaults.margin
            },
            max_cells_per_object: settings.max_cells_per_object.max(1),
        };
        Self {
            settings,
            cell_size: settings.cell_size.unwrap_or(0.0),
            slots: Slots::default(),
            cells: Vec::new(),
            cell_of: HashMap::new(),
            occupied: None,
            oversized: Vec::new(),
            moved: Vec::new(),
            stale: false,
            scratch: Vec::new(),
        }
    }

    /// The cell size in use (0 before an automatic size has been chosen).
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Number of occupied cells.
    pub fn occupied_cells(&self) -> usize {
        self.cells.len()
    }

    /// Re-buckets every object edited since the last refresh whose box left its fattened box.
    pub fn refresh(&mut self) {
        if !self.stale {
            return;
        }
        if self.cell_size == 0.0 {
            self.cell_size = automatic_cell_size(&self.slots.boxes);
            self.moved.clear();
            self.moved.extend_from_slice(&self.slots.ids);
        }
        let moved = std::mem::take(&mut self.moved);
        for &id in &moved {
            let Some(slot) = self.slots.slot(id) else { continue };
            let placement = self.slots.extra[slot];
            let tight = self.slots.boxes[slot];
            let bucketed = placement.oversized || placement.cells.is_some();
            if bucketed && placement.fat.contains(&tight) {
                continue;
            }
            self.unbucket(id, placement);
            let fat = tight.expanded(self.settings.margin * self.cell_size);
            self.slots.extra[slot] = self.bucket(id, fat);
        }
        self.moved = moved;
        self.moved.clear();
        if self.cells.is_empty() {
            self.occupied = None;
        }
        self.stale = false;
    }

    /// The inclusive cell range of a box, or `None` if it spans more than the allowed cells.
    fn cell_range(&self, b: &B) -> Option<(CellKey, CellKey)> {
        let inv = 1.0 / self.cell_size;
        let (mut lo, mut hi) = ([0i32; 3], [0i32; 3]);
        let mut count = 1u64;
        for axis in 0..B::DIM {
            // Saturating float → int casts keep far-away boxes finite; they share edge cells.
            lo[axis] = (b.lo(axis) * inv).floor() as i32;
            hi[axis] = (b.hi(axis) * inv).floor() as i32;
            // Up to 2³² cells per axis: the product of three overflows `u64`, so it saturates.
            count = count.saturating_mul((i64::from(hi[axis]) - i64::from(lo[axis]) + 1).max(1) as u64);
        }
        (count <= u64::from(self.settings.max_cells_per_object)).then_some((lo, hi))
    }

    fn bucket(&mut self, id: u32, fat: B) -> Placement<B> {
        let Some((lo, hi)) = self.cell_range(&fat) else {
            self.oversized.push(id);
            return Placement { fat, cells: None, oversized: true };
        };
        self.occupied = Some(match self.occupied {
            None => (lo, hi),
            Some((a, b)) => {
                (std::array::from_fn(|k| a[k].min(lo[k])), std::array::from_fn(|k| b[k].max(hi[k])))
            }
        });
        for_each_cell((lo, hi), |key| {
            let next = self.cells.len() as u32;
            let index = *self.cell_of.entry(key).or_insert(next);
            if index == next {
                self.cells.push(Cell { key, ids: Vec::new() });
            }
            self.cells[index as usize].ids.push(id);
        });
        Placement { fat, cells: Some((lo, hi)), oversized: false }
    }

    fn unbucket(&mut self, id: u32, placement: Placement<B>) {
        if placement.oversized {
            self.oversized.retain(|&o| o != id);
        }
        let Some((lo, hi)) = placement.cells else { return };
        for_each_cell((lo, hi), |key| {
            let Some(&index) = self.cell_of.get(&key) else { return };
            let cell = &mut self.cells[index as usize];
            if let Some(k) = cell.ids.iter().position(|&o| o == id) {
                cell.ids.swap_remove(k);
            }
            if cell.ids.is_empty() {
                // Move the last cell into the hole and fix its map entry.
                self.cell_of.remove(&key);
                self.cells.swap_remove(index as usize);
                if let Some(moved) = self.cells.get(index as usize) {
                    self.cell_of.insert(moved.key, index);
                }
            }
        });
    }

    /// Clears `out` and fills it with the ascending ids of the objects that pass `test`, looking at
    /// the cells of `region` (a box) when it spans few enough cells and at every object otherwise.
    fn collect(&self, region: &B, test: impl Fn(&B) -> bool, out: &mut Vec<u32>) -> QueryStats {
        // An inverted region can still overlap boxes under the componentwise test: scan for it.
        let usable = !self.stale && self.cell_size > 0.0 && region.is_valid();
        match usable.then(|| self.cell_range(region)).flatten() {
            Some((lo, hi)) => self.collect_cells(|visit| for_each_cell((lo, hi), visit), test, out),
            None => self.collect_all(test, out),
        }
    }

    /// [`SpatialHash::collect`] over the objects of the cells `cells` enumerates (it calls its
    /// argument once per cell key; a key may repeat) and the oversized objects.
    fn collect_cells(
        &self,
        cells: impl FnOnce(&mut dyn FnMut(CellKey)),
        test: impl Fn(&B) -> bool,
        out: &mut Vec<u32>,
    ) -> QueryStats {
        out.clear();
        let tight = |id: u32| &self.slots.boxes[self.slots.slot_of[id as usize] as usize];
        let mut stats = QueryStats::default();
        cells(&mut |key| {
            stats.visited += 1;
            if let Some(&index) = self.cell_of.get(&key) {
                for &id in &self.cells[index as usize].ids {
                    stats.tested += 1;
                    if test(tight(id)) {
                        out.push(id);
                    }
                }
            }
        });
        for &id in &self.oversized {
            stats.tested += 1;
            if test(tight(id)) {
                out.push(id);
            }
        }
        out.sort_unstable();
        out.dedup();
        stats
    }

    /// [`SpatialHash::collect`] over every object.
    fn collect_all(&self, test: impl Fn(&B) -> bool, out: &mut Vec<u32>) -> QueryStats {
        out.clear();
        let (ids, boxes) = (&self.slots.ids, &self.slots.boxes);
        out.extend((0..boxes.len()).filter(|&s| test(&boxes[s])).map(|s| ids[s]));
        out.sort_unstable();
        let n = boxes.len() as u32;
        QueryStats { visited: n, tested: n }
    }

    /// The walk through the cells the ray's points with `t ∈ [0, max_t]` lie in, clipped to the
    /// occupied cells; `None` (scan instead) when the cells are stale, the ray or limit is NaN or
    /// infinite (a scan answers those), the cells lie too far out for `f32` cell coordinates, or
    /// the walk would visit more cells than there are objects.
    fn ray_walk(&self, ray: &B::Ray, max_t: f32) -> Option<RayWalk> {
        /// Cell coordinates up to this size are exact in `f32`.
        const FAR: f32 = (1 << 24) as f32;
        if self.stale || self.cell_size <= 0.0 || !(max_t >= 0.0) {
            return None;
        }
        let Some((lo, hi)) = self.occupied else {
            return Some(RayWalk::EMPTY);
        };
        let inv = 1.0 / self.cell_size;
        // The walk runs in cell units: cell `k` along an axis spans `[k, k + 1)`.
        let (origin, dir) = B::ray_parts(ray);
        let (origin, dir) = (origin.map(|v| v * inv), dir.map(|v| v * inv));
        let far = |v: &f32| !(v.abs() < FAR);
        if origin.iter().chain(&dir).any(far) || lo.iter().chain(&hi).any(|&k| far(&(k as f32))) {
            return None;
        }
        let (mut t0, mut t1) = (0.0f32, max_t);
        // The occupied cells, one more on each side against rounding (the keys are clamped).
        for axis in 0..B::DIM {
            let (lo, hi) = (lo[axis] as f32 - 1.0, hi[axis] as f32 + 2.0);
            let d = dir[axis];
            if d == 0.0 {
                if !(lo <= origin[axis] && origin[axis] <= hi) {
                    return Some(RayWalk::EMPTY);
                }
                continue;
            }
            let (a, b) = ((lo - origin[axis]) / d, (hi - origin[axis]) / d);
            (t0, t1) = (t0.max(a.min(b)), t1.min(a.max(b)));
        }
        if !(t0 <= t1) {
            return Some(RayWalk::EMPTY);
        }
        let major = (0..B::DIM).fold(0, |m, a| if dir[a].abs() > dir[m].abs() { a } else { m });
        if dir[major] != 0.0 && !(RayWalk::slack(FAR) / dir[major].abs()).is_finite() {
            // So slow a ray that the slabs' slack overflows in `t`.
            return None;
        }
        let walk = RayWalk { origin, dir, dim: B::DIM, major, t: (t0, t1), lo, hi };
        (walk.slab_count() <= self.slots.len() as u64).then_some(walk)
    }
}

/// The cells along a ray segment, in cell units (the cell of key `k` spans `[k, k + 1)` on each
/// axis): the points `origin + dir · t` for `t` in `t`, within the key range `lo..=hi`.
///
/// The segment is cut into slabs one cell thick along its major axis (the largest direction
/// component), so that the other coordinates move by at most one cell per slab, and each slab
/// visits the cells of its piece's box. Pieces and boxes are grown by [`RayWalk::slack`], so that
/// rounding (here, in the ray tests and in the bucketing) never drops a cell the segment touches;
/// an extra cell only costs its tests.
#[derive(Clone, Copy, Debug)]
struct RayWalk {
    origin: [f32; 3],
    dir: [f32; 3],
    dim: usize,
    major: usize,
    t: (f32, f32),
    lo: CellKey,
    hi: CellKey,
}

impl RayWalk {
    /// A walk that visits no cell.
    const EMPTY: RayWalk =
        RayWalk { origin: [0.0; 3], dir: [0.0; 3], dim: 0, major: 0, t: (1.0, 0.0), lo: [0; 3], hi: [0; 3] };

    /// The point at `t`.
    fn at(&self, t: f32) -> [f32; 3] {
        std::array::from_fn(|a| self.origin[a] + self.dir[a] * t)
    }

    /// How far, in cells, a coordinate `v` (in cells) is trusted: a thousandth of a cell, plus
    /// many times the rounding error of coordinates of that size.
    fn slack(v: f32) -> f32 {
        1e-3 + v.abs() * 1e-5
    }

    /// The key of coordinate `v` on `axis`, clamped to the walk's range.
    fn key(&self, axis: usize, v: f32) -> i32 {
        (v.floor() as i32).clamp(self.lo[axis], self.hi[axis])
    }

    /// The first and last slab (keys along the major axis), one wider at each end than the
    /// segment's ends; `None` for an empty walk.
    fn slabs(&self) -> Option<(i32, i32)> {
        if self.dim == 0 || !(self.t.0 <= self.t.1) {
            return None;
        }
        let m = self.major;
        let (a, b) = (self.at(self.t.0)[m], self.at(self.t.1)[m]);
        let (first, last) = (self.key(m, a.min(b)), self.key(m, a.max(b)));
        Some((first.saturating_sub(1).max(self.lo[m]), last.saturating_add(1).min(self.hi[m])))
    }

    /// The number of slabs.
    fn slab_count(&self) -> u64 {
        self.slabs().map_or(0, |(first, last)| (i64::from(last) - i64::from(first) + 1) as u64)
    }

    /// Calls `visit` for the cells of every slab (a cell may come more than once).
    fn for_each_cell(&self, visit: &mut dyn FnMut(CellKey)) {
        let Some((first, last)) = self.slabs() else { return };
        let m = self.major;
        let d = self.dir[m];
        if d == 0.0 {
            // No direction: the segment is one point.
            let p = self.at(self.t.0);
            return for_each_cell(self.cells_around(p, p, None), &mut *visit);
        }
        for k in first..=last {
            // The part of the segment within the slab `[k, k + 1)` of the major axis, grown.
            let (near, far) = (k as f32 - self.origin[m], k as f32 + 1.0 - self.origin[m]);
            let grow = Self::slack(k as f32) / d.abs();
            let (a, b) = (near / d, far / d);
            let (ta, tb) = ((a.min(b) - grow).max(self.t.0 - grow), (a.max(b) + grow).min(self.t.1 + grow));
            if ta <= tb {
                for_each_cell(self.cells_around(self.at(ta), self.at(tb), Some(k)), &mut *visit);
            }
        }
    }

    /// The key range of the box around the points `a` and `b`, grown by the slack; on the major
    /// axis only `major_key` if given.
    fn cells_around(&self, a: [f32; 3], b: [f32; 3], major_key: Option<i32>) -> (CellKey, CellKey) {
        let (mut lo, mut hi) = ([0i32; 3], [0i32; 3]);
        for axis in 0..self.dim {
            if let Some(k) = major_key.filter(|_| axis == self.major) {
                (lo[axis], hi[axis]) = (k, k);
            } else {
                let (low, high) = (a[axis].min(b[axis]), a[axis].max(b[axis]));
                lo[axis] = self.key(axis, low - Self::slack(low));
                hi[axis] = self.key(axis, high + Self::slack(high));
            }
        }
        (lo, hi)
    }
}

/// Calls `f` for every cell key in the inclusive range.
fn for_each_cell((lo, hi): (CellKey, CellKey), mut f: impl FnMut(CellKey)) {
    for z in lo[2]..=hi[2] {
        for y in lo[1]..=hi[1] {
            for x in lo[0]..=hi[0] {
                f([x, y, z]);
            }
        }
    }
}

/// Twice the mean largest extent of the boxes, or 1 if that is not finite and positive.
fn automatic_cell_size<B: BroadBounds>(boxes: &[B]) -> f32 {
    let sum: f64 = boxes
        .iter()
        .map(|b| (0..B::DIM).map(|axis| f64::from(b.hi(axis) - b.lo(axis))).fold(0.0, f64::max))
        .sum();
    let size = (2.0 * sum / boxes.len().max(1) as f64) as f32;
    if size.is_finite() && size > 0.0 { size } else { 1.0 }
}

impl<B: BroadBounds> BroadPhase<B> for SpatialHash<B> {
    fn insert(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError> {
        self.slots.check_insert(id, &bounds)?;
        self.slots.push(id, bounds, Placement { fat: bounds, cells: None, oversized: false });
        self.moved.push(id);
        self.stale = true;
        Ok(())
    }

    fn update(&mut self, id: u32, bounds: B) -> Result<(), BroadPhaseError> {
        let slot = self.slots.check_update(id, &bounds)?;
        self.slots.boxes[slot] = bounds;
        self.moved.push(id);
        self.stale = true;
        Ok(())
    }

    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError> {
        let slot = self.slots.slot(id).ok_or(BroadPhaseError::UnknownId(id))?;
        let (placement, _) = self.slots.swap_remove(slot);
        self.unbucket(id, placement);
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
        let slots = &self.slots;
        let slot = |id: u32| slots.slot_of[id as usize] as usize;
        self.scratch.clear();
        for cell in &self.cells {
            for (i, &a) in cell.ids.iter().enumerate() {
                let (sa, range_a) = (slot(a), slots.extra[slot(a)].cells);
                for &b in &cell.ids[i + 1..] {
                    let sb = slot(b);
                    // Report the pair only in the lowest cell of the two ranges' intersection.
                    if let (Some((lo_a, _)), Some((lo_b, _))) = (range_a, slots.extra[sb].cells) {
                        let owner = [0, 1, 2].map(|k| lo_a[k].max(lo_b[k]));
                        if owner != cell.key {
                            continue;
                        }
                    }
                    if slots.boxes[sa].overlaps(&slots.boxes[sb]) {
                        self.scratch.push(ordered(a, b));
                    }
                }
            }
        }
        // Oversized objects against everything (a pair of two oversized objects is found twice;
        // `sort_pairs` drops the repeat).
        for &a in &self.oversized {
            let box_a = slots.boxes[slot(a)];
            for s in 0..slots.len() {
                let b = slots.ids[s];
                if b != a && box_a.overlaps(&slots.boxes[s]) {
                    self.scratch.push(ordered(a, b));
                }
            }
        }
        sort_pairs(&mut self.scratch);
        events.advance(&mut self.scratch);
    }

    fn query_box(&self, query: &B, out: &mut Vec<u32>) -> QueryStats {
        self.collect(query, |b| b.overlaps(query), out)
    }

    fn query_ray(&self, ray: &B::Ray, max_t: f32, out: &mut Vec<u32>) -> QueryStats {
        let test = |b: &B| b.ray_entry(ray, max_t).is_some();
        match self.ray_walk(ray, max_t) {
            Some(walk) => self.collect_cells(|visit| walk.for_each_cell(visit), test, out),
            None => self.collect_all(test, out),
        }
    }
}
