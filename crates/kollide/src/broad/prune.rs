//! Box pruning in the columns of a coarse grid: batch pair finding, and a compact static layout
//! for box and ray queries.

use super::{BroadBounds, Pair, QueryStats, ordered};
use glam::Vec4;

/// Objects spanning more columns than this are kept apart and tested against everything.
const MAX_COLUMNS_PER_OBJECT: usize = 16;

/// While [`Columns`] are built, an entry is an object index (below 2²⁶) in the bits of
/// `INDEX_MASK` and two flags from bit `FIRST_SHIFT` on.
const FIRST_SHIFT: u32 = 30;
const INDEX_MASK: u32 = (1 << FIRST_SHIFT) - 1;

/// Four boxes of one column, structure of arrays (two cache lines), for tests of four at a time.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Block {
    lo: [Vec4; 3],
    hi: [Vec4; 3],
    id: [u32; 4],
    /// The lanes whose box starts in this block's column on each grid axis (its first column
    /// there is this one), as 4-bit masks; padding lanes are set.
    first: [u8; 2],
}

impl Block {
    /// Padding: lower bounds `+∞` and upper bounds `-∞` overlap nothing and end every sweep.
    const PADDING: Block =
        Block { lo: [Vec4::INFINITY; 3], hi: [Vec4::NEG_INFINITY; 3], id: [0; 4], first: [0b1111; 2] };

    /// The lanes whose boxes overlap the box `(lo, hi)` (splatted), as a 4-bit mask.
    #[inline(always)]
    fn overlap_mask(&self, lo: &[Vec4; 3], hi: &[Vec4; 3], dim: usize) -> u32 {
        let mut hit = self.lo[0].cmple(hi[0]) & self.hi[0].cmpge(lo[0]);
        for a in 1..dim {
            hit &= self.lo[a].cmple(hi[a]) & self.hi[a].cmpge(lo[a]);
        }
        hit.bitmask()
    }

    /// The lanes that may report a pair with, or a query answer for, a box whose first columns
    /// on the grid axes are this block's column where `first` is set: the pair's owner (see
    /// [`Columns`]) is this column when, on each grid axis, one of the two starts here.
    #[inline(always)]
    fn owned_mask(&self, first: [bool; 2]) -> u32 {
        let either = |g: usize| u32::from(self.first[g]) | if first[g] { 0b1111 } else { 0 };
        either(0) & either(1)
    }

    /// The lanes whose boxes the ray meets: the slab test of `Aabb3::ray_interval` and
    /// `Aabb2::ray_interval` (on the first `dim` axes), operation for operation, four lanes at a
    /// time, so the answers are the same (NaN cases included: a NaN slab bound is neutral).
    #[inline(always)]
    fn ray_mask(&self, ray: &RaySlabs, dim: usize) -> u32 {
        let zero = Vec4::ZERO;
        let (mut t0, mut t1) = (zero, zero);
        let mut valid = self.lo[0].cmple(self.hi[0]);
        for a in 0..dim {
            let lo = (self.lo[a] - ray.origin[a]) * ray.inv_dir[a];
            let hi = (self.hi[a] - ray.origin[a]) * ray.inv_dir[a];
            let near = pick_min(pick_max(lo, zero), pick_max(hi, zero));
            let far = pick_max(pick_min(lo, ray.max_t), pick_min(hi, ray.max_t));
            if a == 0 {
                (t0, t1) = (near, far);
            } else {
                t0 = pick_max(near, t0);
                t1 = pick_min(far, t1);
                valid &= self.lo[a].cmple(self.hi[a]);
            }
        }
        (valid & t0.cmple(t1)).bitmask()
    }

    /// The bounds of lane `k`.
    #[inline]
    fn lane(&self, k: usize) -> ([f32; 3], [f32; 3]) {
        (self.lo.map(|v| v.as_ref()[k]), self.hi.map(|v| v.as_ref()[k]))
    }
}

/// Boxes sorted along one axis (the sweep axis) inside the columns of a uniform grid over the other
/// axes (strips in 2D).
///
/// Box pruning (Terdiman 2002) sorts boxes along one axis and tests each box only against the
/// boxes whose lower bound lies within its extent on that axis. On its own it tests about
/// `n² · extent / span` pairs, which stays quadratic when boxes are not small against the scene, so
/// here each box is recorded in every column its box touches (cells three times the mean box
/// extent), and pruning runs per column. A pair or a query answer found in several columns is reported only
/// by the column at the lowest corner of the intersection of the column ranges. The sweep axis is
/// the one along which the box centers spread most. Boxes spanning more than
/// [`MAX_COLUMNS_PER_OBJECT`] columns are kept in a separate list.
///
/// Each object is placed (columns, sweep order) by a placement box that encloses its box: the box
/// itself, or a fattened one ([`Columns::with_slack`]). An object whose new box stays inside its
/// placement box is moved in place ([`Columns::update`]); one whose box leaves it, or a removed
/// one, is dropped from the columns. Sweeps and searches go by the placement boxes' lower bounds
/// and extents, tests by the boxes, so answers stay exact.
#[derive(Clone, Debug)]
pub(super) struct Columns<B> {
    axis: usize,
    /// The grid axes (the second unused in 2D).
    grid_axes: [usize; 2],
    /// Grid origin, reciprocal cell size and cells per grid axis.
    origin: [f32; 2],
    cell: f32,
    inv_cell: f32,
    counts: [u32; 2],
    /// Column `c` holds blocks `starts[c]..starts[c + 1]`: its entries by ascending lower bound on
    /// `axis`, four to a block, the last block padded with entries that overlap nothing.
    starts: Vec<u32>,
    blocks: Vec<Block>,
    /// The lower bound on `axis` of the placement box of each block's first lane, densely (the
    /// sweeps stop at the first block that starts beyond reach).
    block_first: Vec<f32>,
    /// The largest lower bound on `axis` of the placement boxes in each block (its last lane's,
    /// `+∞` for padding), densely, for searches that touch few cache lines.
    block_last: Vec<f32>,
    /// The largest extent along `axis` of a placement box.
    max_extent: f32,
    /// Boxes spanning too many columns, with their ids, sorted by lower bound on `axis`.
    big: Vec<(B, u32)>,
    /// Every box, sorted by lower bound on `axis`, and the largest extent along `axis` (only kept
    /// when there are big boxes, which are swept along it).
    all: Vec<(B, u32)>,
    all_max_extent: f32,
    /// Whether the placement boxes are the boxes and nothing was edited (what [`Columns::pairs`]
    /// needs).
    exact: bool,
    /// Where each object is stored, for edits (built at the first edit when not built with
    /// slack).
    index: Option<Index<B>>,
}

/// Where the objects of [`Columns`] are stored, by id.
#[derive(Clone, Debug)]
struct Index<B> {
    /// Object `id`'s places are `places[starts[id]..starts[id + 1]]`: lane `4 · block + lane`,
    /// or `BIG | k` for `big[k]`.
    starts: Vec<u32>,
    places: Vec<u32>,
    /// Beside each object's first place: its placement box, or an empty box once it is dropped.
    placed: Vec<B>,
}

/// Marks a place in the list of big boxes.
const BIG: u32 = 1 << 31;

impl<B: BroadBounds> Columns<B> {
    /// Builds the columns for objects `ids` with boxes `boxes`, along the axis where the box
    /// centers spread most.
    pub(super) fn new(ids: &[u32], boxes: &[B]) -> Self {
        let axis = spread_axis(boxes);
        Self::with_order(ids, boxes, boxes, axis, &sweep_order(boxes, axis))
    }

    /// Builds the columns for objects `ids` with boxes `boxes`, placed by the enclosing boxes
    /// `placed`.
    pub(super) fn with_slack(ids: &[u32], boxes: &[B], placed: &[B]) -> Self {
        let axis = spread_axis(placed);
        let mut columns = Self::with_order(ids, boxes, placed, axis, &sweep_order(placed, axis));
        columns.exact = false;
        let mut slot_of = vec![0u32; ids.iter().map(|&id| id as usize + 1).max().unwrap_or(0)];
        for (slot, &id) in ids.iter().enumerate() {
            slot_of[id as usize] = slot as u32;
        }
        columns.index = Some(columns.build_index(|id, _| placed[slot_of[id as usize] as usize]));
        columns
    }

    /// Builds the columns with sweep axis `axis`, placing object `i` by `placed[i]`, given the
    /// indices sorted by the lower bound of `placed` on `axis`.
    pub(super) fn with_order(ids: &[u32], boxes: &[B], placed: &[B], axis: usize, order: &[u32]) -> Self {
        let n = boxes.len();
        let grid_axes = [(axis + 1) % B::DIM, (axis + 2) % B::DIM];
        let dims = B::DIM - 1;

        let mut lo = [f32::INFINITY; 2];
        let mut hi = [f32::NEG_INFINITY; 2];
        let mut extent_sum = 0.0f64;
        for b in placed {
            for g in 0..dims {
                lo[g] = lo[g].min(b.lo(grid_axes[g]));
                hi[g] = hi[g].max(b.hi(grid_axes[g]));
                extent_sum += f64::from(b.hi(grid_axes[g]) - b.lo(grid_axes[g]));
            }
        }
        // Cells three times the mean extent (fewer copies of each box for a few more tests than
        // at the mean extent itself; measured best on uniform scenes), at most about 4n columns
        // in all and 2¹⁶ per axis.
        let max_per_axis =
            if dims == 1 { 4.0 * n as f32 } else { (4.0 * n as f32).sqrt() }.clamp(1.0, 65_535.0);
        let mut cell = (3.0 * extent_sum / (n * dims).max(1) as f64) as f32;
        for g in 0..dims {
            cell = cell.max((hi[g] - lo[g]) / max_per_axis);
        }
        let inv_cell = if cell > 0.0 && cell.is_finite() { 1.0 / cell } else { 0.0 };
        let mut grid = Self {
            axis,
            grid_axes,
            origin: if n == 0 { [0.0; 2] } else { lo },
            cell,
            inv_cell,
            counts: [1, 1],
            starts: Vec::new(),
            blocks: Vec::new(),
            block_first: Vec::new(),
            block_last: Vec::new(),
            max_extent: 0.0,
            big: Vec::new(),
            all: Vec::new(),
            all_max_extent: 0.0,
            exact: true,
            index: None,
        };
        if n == 0 {
            grid.starts = vec![0, 0];
            return grid;
        }
        grid.counts = std::array::from_fn(|g| if g < dims { grid.cell_of(g, hi[g]) + 1 } else { 1 });
        let columns = (grid.counts[0] * grid.counts[1]) as usize;

        // Column ranges, counts per column, then entries in sweep order.
        let ranges: Vec<([u32; 2], [u32; 2])> = placed.iter().map(|b| grid.range(b)).collect();
        let is_big = |(first, last): &([u32; 2], [u32; 2])| {
            ((last[0] - first[0] + 1) * (last[1] - first[1] + 1)) as usize > MAX_COLUMNS_PER_OBJECT
        };
        let mut sizes = vec![0u32; columns];
        for range in &ranges {
            if !is_big(range) {
                grid.for_each_column(range, |column, _| sizes[column] += 1);
            }
        }
        // Entries per column in sweep order (a counting sort): the object's index, with bit
        // `FIRST_SHIFT + g` set when the column is the object's first on grid axis `g`. Indices
        // are below 2²⁶ (ids are unique and at most `MAX_ID`), so the flags fit above them.
        let mut entry_starts = vec![0u32; columns + 1];
        let mut starts = vec![0u32; columns + 1];
        for c in 0..columns {
            entry_starts[c + 1] = entry_starts[c] + sizes[c];
            starts[c + 1] = starts[c] + sizes[c].div_ceil(4);
        }
        let mut entries = vec![0u32; entry_starts[columns] as usize];
        let mut filled = entry_starts.clone();
        let mut max_extent = 0.0f32;
        for &i in order {
            let (first, last) = ranges[i as usize];
            if is_big(&ranges[i as usize]) {
                grid.big.push((boxes[i as usize], ids[i as usize]));
                continue;
            }
            let p = &placed[i as usize];
            max_extent = max_extent.max(p.hi(axis) - p.lo(axis));
            grid.for_each_column(&(first, last), |column, flags| {
                entries[filled[column] as usize] = i | flags << FIRST_SHIFT;
                filled[column] += 1;
            });
        }
        // Blocks written whole, column by column, four entries at a time.
        let blocks_len = starts[columns] as usize;
        let mut blocks = Vec::with_capacity(blocks_len);
        grid.block_first = Vec::with_capacity(blocks_len);
        grid.block_last = Vec::with_capacity(blocks_len);
        for column in entry_starts.windows(2) {
            for four in entries[column[0] as usize..column[1] as usize].chunks(4) {
                let mut block = Block { first: [0; 2], ..Block::PADDING };
                for (lane, &entry) in four.iter().enumerate() {
                    let i = (entry & INDEX_MASK) as usize;
                    let (lo, hi) = boxes[i].corners();
                    for a in 0..3 {
                        // Array indexing: `Vec4`'s own indexing matches on the lane.
                        block.lo[a].as_mut()[lane] = lo[a];
                        block.hi[a].as_mut()[lane] = hi[a];
                    }
                    block.id[lane] = ids[i];
                    block.first[0] |= ((entry >> FIRST_SHIFT & 1) as u8) << lane;
                    block.first[1] |= ((entry >> (FIRST_SHIFT + 1) & 1) as u8) << lane;
                }
                blocks.push(block);
                let placed_lo = |entry: u32| placed[(entry & INDEX_MASK) as usize].lo(axis);
                grid.block_first.push(placed_lo(four[0]));
                grid.block_last.push(if four.len() == 4 { placed_lo(four[3]) } else { f32::INFINITY });
            }
        }
        if !grid.big.is_empty() {
            grid.all = order.iter().map(|&i| (placed[i as usize], ids[i as usize])).collect();
            grid.all_max_extent = placed.iter().map(|b| b.hi(axis) - b.lo(axis)).fold(0.0, f32::max);
        }
        grid.starts = starts;
        grid.blocks = blocks;
        grid.max_extent = max_extent;
        grid
    }

    /// The places of every object (counting sort of the lanes by id), with the placement box
    /// of each, `placement(id, first place)`.
    fn build_index(&self, placement: impl Fn(u32, u32) -> B) -> Index<B> {
        let mut lanes: Vec<(u32, u32)> = Vec::with_capacity(4 * self.blocks.len() + self.big.len());
        for (k, block) in self.blocks.iter().enumerate() {
            for lane in 0..4 {
                if block.lo[0].as_ref()[lane] <= block.hi[0].as_ref()[lane] {
                    lanes.push((block.id[lane], (4 * k + lane) as u32));
                }
            }
        }
        lanes.extend(self.big.iter().enumerate().map(|(k, (_, id))| (*id, BIG | k as u32)));
        let ids = lanes.iter().map(|&(id, _)| id as usize + 1).max().unwrap_or(0);
        let mut starts = vec![0u32; ids + 1];
        for &(id, _) in &lanes {
            starts[id as usize + 1] += 1;
        }
        for id in 0..ids {
            starts[id + 1] += starts[id];
        }
        let mut next = starts.clone();
        let mut places = vec![0u32; lanes.len()];
        for &(id, place) in &lanes {
            places[next[id as usize] as usize] = place;
            next[id as usize] += 1;
        }
        let mut placed = vec![B::empty(); places.len()];
        for id in 0..ids {
            let first = starts[id] as usize;
            if first < starts[id + 1] as usize {
                placed[first] = placement(id as u32, places[first]);
            }
        }
        Index { starts, places, placed }
    }

    /// The index, built from the lanes when the columns were placed by the boxes themselves.
    fn index(&mut self) -> &mut Index<B> {
        if self.index.is_none() {
            let index = self.build_index(|_, place| {
                if place & BIG != 0 {
                    self.big[(place & !BIG) as usize].0
                } else {
                    let (lo, hi) = self.blocks[place as usize / 4].lane(place as usize % 4);
                    B::from_lo_hi(lo, hi)
                }
            });
            self.index = Some(index);
        }
        self.exact = false;
        self.index.as_mut().expect("just built")
    }

    /// The position of object `id`'s placement box in the index, if it is in the columns.
    fn entry(&mut self, id: u32) -> Option<usize> {
        let index = self.index();
        let first = *index.starts.get(id as usize)? as usize;
        let present = first < *index.starts.get(id as usize + 1)? as usize && index.placed[first].is_valid();
        present.then_some(first)
    }

    /// Writes `bounds` in every place of object `id`.
    fn write(&mut self, id: u32, bounds: &B) {
        let index = self.index.as_ref().expect("edits build the index");
        let places =
            &index.places[index.starts[id as usize] as usize..index.starts[id as usize + 1] as usize];
        let (lo, hi) = bounds.corners();
        for &place in places {
            if place & BIG != 0 {
                self.big[(place & !BIG) as usize].0 = *bounds;
            } else {
                let block = &mut self.blocks[place as usize / 4];
                let lane = place as usize % 4;
                for a in 0..3 {
                    block.lo[a].as_mut()[lane] = lo[a];
                    block.hi[a].as_mut()[lane] = hi[a];
                }
            }
        }
    }

    /// Moves object `id` to the valid box `bounds`: in place when it is in the columns and `bounds`
    /// lies inside its placement box (`Some(true)`); otherwise, when it is in the columns, it is
    /// dropped from them (`Some(false)`). `None`: it is not in the columns.
    pub(super) fn update(&mut self, id: u32, bounds: &B) -> Option<bool> {
        let entry = self.entry(id)?;
        if self.index().placed[entry].contains(bounds) {
            self.write(id, bounds);
            Some(true)
        } else {
            self.remove(id);
            Some(false)
        }
    }

    /// Drops object `id` from the columns; whether it was in them.
    pub(super) fn remove(&mut self, id: u32) -> bool {
        let Some(entry) = self.entry(id) else {
            return false;
        };
        self.index().placed[entry] = B::empty();
        // Bounds `+∞..-∞` overlap nothing, as padding does.
        self.write(id, &B::from_lo_hi([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]));
        true
    }

    /// The cell of coordinate `x` on grid axis `g` (not clamped above).
    #[inline]
    fn cell_of(&self, g: usize, x: f32) -> u32 {
        ((x - self.origin[g]) * self.inv_cell) as u32
    }

    /// The inclusive column range of a box, clamped to the grid.
    #[inline]
    fn range(&self, b: &B) -> ([u32; 2], [u32; 2]) {
        let mut first = [0u32; 2];
        let mut last = [0u32; 2];
        for g in 0..B::DIM - 1 {
            let top = self.counts[g] - 1;
            first[g] = self.cell_of(g, b.lo(self.grid_axes[g])).min(top);
            last[g] = self.cell_of(g, b.hi(self.grid_axes[g])).min(top);
        }
        (first, last)
    }

    /// Calls `visit(column, flags)` for every column of the inclusive range, where bit `g` of
    /// `flags` is set when the column is the range's first on grid axis `g`.
    ///
    /// Most ranges span one or two columns per axis (cells are three times the mean extent);
    /// those take a straight path of at most four visits instead of the nested loops, whose
    /// exits the branch predictor mostly misses (building the columns of 10,000 boxes: 220 →
    /// 190 µs).
    #[inline(always)]
    fn for_each_column(&self, (first, last): &([u32; 2], [u32; 2]), mut visit: impl FnMut(usize, u32)) {
        let (span0, span1) = (last[0] - first[0], last[1] - first[1]);
        let width = self.counts[0];
        if span0 <= 1 && span1 <= 1 {
            let corner = first[1] * width + first[0];
            visit(corner as usize, 0b11);
            if span0 == 1 {
                visit(corner as usize + 1, 0b10);
            }
            if span1 == 1 {
                visit((corner + width) as usize, 0b01);
                if span0 == 1 {
                    visit((corner + width) as usize + 1, 0b00);
                }
            }
            return;
        }
        for c1 in first[1]..=last[1] {
            for c0 in first[0]..=last[0] {
                let flags = u32::from(c0 == first[0]) | u32::from(c1 == first[1]) << 1;
                visit((c1 * width + c0) as usize, flags);
            }
        }
    }

    /// The blocks of column `(c0, c1)`.
    #[inline]
    fn column(&self, c0: u32, c1: u32) -> std::ops::Range<usize> {
        let c = (c1 * self.counts[0] + c0) as usize;
        self.starts[c] as usize..self.starts[c + 1] as usize
    }

    /// Appends every overlapping pair `(smaller id, larger id)`, each once, in no particular order.
    /// Only for columns placed by the boxes themselves and not edited since.
    pub(super) fn pairs(&self, out: &mut Vec<Pair>) {
        debug_assert!(self.exact);
        // Every block test writes its four candidate pairs and advances the length by the hits,
        // without a branch per hit (they are unpredictable); `out` is kept four pairs longer than
        // the pairs found and cut at the end.
        let mut len = out.len();
        for column in self.starts.windows(2) {
            let (start, end) = (column[0] as usize, column[1] as usize);
            for k in start..end {
                len = self.sweep_lane::<0>(k, end, out, len);
                len = self.sweep_lane::<1>(k, end, out, len);
                len = self.sweep_lane::<2>(k, end, out, len);
                len = self.sweep_lane::<3>(k, end, out, len);
            }
        }
        out.truncate(len);
        // Big boxes against everything, along the full order: every box whose lower bound lies in
        // `[lo - largest extent, hi]`. A pair of two big boxes is taken by the first in that order.
        for (rank, (a, id)) in self.big.iter().enumerate() {
            let start =
                self.all.partition_point(|(b, _)| b.lo(self.axis) < a.lo(self.axis) - self.all_max_extent);
            for (b, other) in &self.all[start..] {
                if b.lo(self.axis) > a.hi(self.axis) {
                    break;
                }
                if other == id || !a.overlaps_simd(b) {
                    continue;
                }
                let other_rank = self.big.binary_search_by(|(c, i)| {
                    c.lo(self.axis).total_cmp(&b.lo(self.axis)).then(i.cmp(other))
                });
                if other_rank.is_ok_and(|r| r < rank) {
                    continue;
                }
                out.push(ordered(*id, *other));
            }
        }
    }

    /// The pairs of lane `LANE` of block `k` (of a column ending at block `end`) with the later
    /// lanes of its block, then with the following blocks while they start within its reach;
    /// written at `out[len..]` (see [`append_pairs`]). Returns the new count. The lane is a
    /// constant so that its bounds are taken out of the block without a loop.
    #[inline(always)]
    fn sweep_lane<const LANE: usize>(
        &self,
        k: usize,
        end: usize,
        out: &mut Vec<Pair>,
        mut len: usize,
    ) -> usize {
        let (axis, dim) = (self.axis, B::DIM);
        let block = &self.blocks[k];
        let lo4 = block.lo.map(|v| Vec4::splat(v.as_ref()[LANE]));
        let hi4 = block.hi.map(|v| Vec4::splat(v.as_ref()[LANE]));
        let reach = block.hi[axis].as_ref()[LANE];
        if !(block.lo[axis].as_ref()[LANE] <= reach) {
            return len; // padding
        }
        let id = block.id[LANE];
        let first = [block.first[0] >> LANE & 1 != 0, block.first[1] >> LANE & 1 != 0];
        let mask = block.overlap_mask(&lo4, &hi4, dim) & (0b1110 << LANE) & 0b1111;
        len = append_pairs(out, len, id, block, mask & block.owned_mask(first));
        for (other, &other_lo) in self.blocks[k + 1..end].iter().zip(&self.block_first[k + 1..end]) {
            if other_lo > reach {
                break;
            }
            let mask = other.overlap_mask(&lo4, &hi4, dim) & other.owned_mask(first);
            len = append_pairs(out, len, id, other, mask);
        }
        len
    }

    /// Appends the ids of the boxes that overlap the valid box `query` (in no particular order) and
    /// returns the work done.
    pub(super) fn query_box(&self, query: &B, out: &mut Vec<u32>) -> QueryStats {
        let mut stats = QueryStats::default();
        let (first, last) = self.range(query);
        let (lo, hi) = query.corners();
        let (lo4, hi4) = (lo.map(Vec4::splat), hi.map(Vec4::splat));
        let (from, to) = (lo[self.axis] - self.max_extent, hi[self.axis]);
        // Branch-free appends, as in `pairs`.
        let mut len = out.len();
        for c1 in first[1]..=last[1] {
            for c0 in first[0]..=last[0] {
                stats.visited += 1;
                let starts_here = [c0 == first[0], c1 == first[1]];
                let range = self.column(c0, c1);
                // Blocks from the first whose last lower bound reaches `from`.
                let start = range.start + first_reaching(&self.block_last[range.clone()], from);
                for (block, &block_lo) in
                    self.blocks[start..range.end].iter().zip(&self.block_first[start..range.end])
                {
                    if block_lo > to {
                        break;
                    }
                    stats.tested += 4;
                    if out.len() < len + 4 {
                        out.resize((2 * out.len()).max(len + 64), 0);
                    }
                    let mask = block.overlap_mask(&lo4, &hi4, B::DIM) & block.owned_mask(starts_here);
                    for m in 0..4 {
                        out[len] = block.id[m];
                        len += (mask >> m & 1) as usize;
                    }
                }
            }
        }
        out.truncate(len);
        for (b, id) in &self.big {
            stats.tested += 1;
            if b.overlaps_simd(query) {
                out.push(*id);
            }
        }
        stats
    }

    /// Appends the ids of the boxes that `ray` meets within `[0, max_t]` (in no particular order,
    /// possibly repeated) and returns the work done. The ray must have a finite origin, a finite
    /// nonzero direction and `max_t >= 0`.
    ///
    /// The columns are walked slab by slab along the first grid axis; within each slab, the ray's
    /// parameter interval gives the columns it crosses along the second axis, and within each
    /// column the range of the sweep coordinate it covers. A box the ray meets is found in the
    /// column of the point where it meets it: its lower bound on the sweep axis lies within that
    /// range, widened by the largest extent below. Slabs and ranges are widened by a small
    /// tolerance so that rounding never drops a column; the exact ray test decides.
    pub(super) fn query_ray(&self, ray: &B::Ray, max_t: f32, out: &mut Vec<u32>) -> QueryStats {
        let mut stats = QueryStats::default();
        let (o, d) = B::ray_parts(ray);
        let slabs = RaySlabs::new(&o, &d, max_t);
        // Branch-free appends, as in `pairs`.
        let mut len = out.len();
        // The parameter interval of the ray inside slab `[a, b]` of `axis`, widened by `pad`.
        let slab = |axis: usize, a: f32, b: f32, pad: f32| -> (f32, f32) {
            if d[axis] == 0.0 {
                if o[axis] >= a - pad && o[axis] <= b + pad { (0.0, max_t) } else { (1.0, 0.0) }
            } else {
                let (ta, tb) = ((a - pad - o[axis]) / d[axis], (b + pad - o[axis]) / d[axis]);
                (ta.min(tb).max(0.0), ta.max(tb).min(max_t))
            }
        };
        // The coordinate on `axis` at parameter `t` (no `0 · ∞`).
        let at = |axis: usize, t: f32| if d[axis] == 0.0 { o[axis] } else { o[axis] + d[axis] * t };
        // Slab `c` of grid axis `g`; the first and last reach to infinity (boxes are clamped in).
        let bounds = |g: usize, c: u32| {
            let a = self.origin[g] + c as f32 * self.cell;
            let lo = if c == 0 { f32::NEG_INFINITY } else { a };
            let hi = if c + 1 == self.counts[g] { f32::INFINITY } else { a + self.cell };
            (lo, hi)
        };
        let pad = self.cell * 1e-3;
        let dims = B::DIM - 1;
        for c0 in 0..self.counts[0] {
            let (lo0, hi0) = bounds(0, c0);
            let (t0, t1) = slab(self.grid_axes[0], lo0, hi0, pad);
            if !(t0 <= t1) {
                continue;
            }
            let (c1_first, c1_last) = if dims == 1 {
                (0, 0)
            } else {
                let g1 = self.grid_axes[1];
                let (y0, y1) = (at(g1, t0), at(g1, t1));
                let top = self.counts[1] - 1;
                (self.cell_of(1, y0.min(y1) - pad).min(top), self.cell_of(1, y0.max(y1) + pad).min(top))
            };
            for c1 in c1_first..=c1_last {
                let (s0, s1) = if dims == 1 {
                    (t0, t1)
                } else {
                    let (lo1, hi1) = bounds(1, c1);
                    let (u0, u1) = slab(self.grid_axes[1], lo1, hi1, pad);
                    (u0.max(t0), u1.min(t1))
                };
                if !(s0 <= s1) {
                    continue;
                }
                stats.visited += 1;
                let ax = self.axis;
                let (x0, x1) = (at(ax, s0), at(ax, s1));
                let tolerance = pad + x0.abs().max(x1.abs()) * 1e-5;
                let (from, to) = (x0.min(x1) - self.max_extent - tolerance, x0.max(x1) + tolerance);
                // The box of the ray's piece in this column (widened): the box met at a point of
                // that piece overlaps it.
                let piece =
                    |t: f32| std::array::from_fn::<f32, 3, _>(|a| if a < B::DIM { at(a, t) } else { 0.0 });
                let (p0, p1) = (piece(s0), piece(s1));
                let near: [Vec4; 3] = std::array::from_fn(|a| {
                    let x = p0[a].min(p1[a]);
                    Vec4::splat(x - pad - x.abs() * 1e-5)
                });
                let far: [Vec4; 3] = std::array::from_fn(|a| {
                    let x = p0[a].max(p1[a]);
                    Vec4::splat(x + pad + x.abs() * 1e-5)
                });
                let range = self.column(c0, c1);
                let start = range.start + first_reaching(&self.block_last[range.clone()], from);
                for (block, &block_lo) in
                    self.blocks[start..range.end].iter().zip(&self.block_first[start..range.end])
                {
                    if block_lo > to {
                        break;
                    }
                    stats.tested += 4;
                    if out.len() < len + 4 {
                        out.resize((2 * out.len()).max(len + 64), 0);
                    }
                    let mask = block.overlap_mask(&near, &far, B::DIM) & block.ray_mask(&slabs, B::DIM);
                    for m in 0..4 {
                        out[len] = block.id[m];
                        len += (mask >> m & 1) as usize;
                    }
                }
            }
        }
        out.truncate(len);
        for (b, id) in &self.big {
            stats.tested += 1;
            if b.ray_entry(ray, max_t).is_some() {
                out.push(*id);
            }
        }
        stats
    }
}

/// A ray prepared for slab tests of four boxes at once: origin, reciprocal direction and `max_t`
/// splatted.
struct RaySlabs {
    origin: [Vec4; 3],
    inv_dir: [Vec4; 3],
    max_t: Vec4,
}

impl RaySlabs {
    /// The ray `(o, d)` (finite, `d` finite) up to `max_t`.
    fn new(o: &[f32; 3], d: &[f32; 3], max_t: f32) -> Self {
        Self {
            origin: o.map(Vec4::splat),
            inv_dir: d.map(|x| Vec4::splat(1.0 / x)),
            max_t: Vec4::splat(max_t),
        }
    }
}

/// Per lane `if a > b { a } else { b }` (a NaN `a` gives `b`).
#[inline(always)]
fn pick_max(a: Vec4, b: Vec4) -> Vec4 {
    Vec4::select(a.cmpgt(b), a, b)
}

/// Per lane `if a < b { a } else { b }` (a NaN `a` gives `b`).
#[inline(always)]
fn pick_min(a: Vec4, b: Vec4) -> Vec4 {
    Vec4::select(a.cmplt(b), a, b)
}

/// The indices of `boxes` by ascending lower bound on `axis` (radix sort of finite floats).
fn sweep_order<B: BroadBounds>(boxes: &[B], axis: usize) -> Vec<u32> {
    let mut keys: Vec<u64> =
        boxes.iter().enumerate().map(|(i, b)| (u64::from(sortable(b.lo(axis))) << 32) | i as u64).collect();
    super::radix_sort_high32(&mut keys);
    keys.iter().map(|&k| k as u32).collect()
}

/// Writes the pairs of `id` with the lanes of `block` in `mask` at `out[len..]`, growing `out`
/// as needed, and returns the new count. All four lanes are written and the count advanced by
/// the mask bits, without a branch per hit (hits are unpredictable).
#[inline(always)]
fn append_pairs(out: &mut Vec<Pair>, mut len: usize, id: u32, block: &Block, mask: u32) -> usize {
    if out.len() < len + 4 {
        out.resize((2 * out.len()).max(len + 1024), (0, 0));
    }
    for m in 0..4 {
        out[len] = ordered(id, block.id[m]);
        len += (mask >> m & 1) as usize;
    }
    len
}

/// The number of values of ascending `sorted` below `x` (a NaN `x` counts none): a guess by
/// linear interpolation between the first and the second-to-last value (the last may be padding;
/// the lower bounds in a column spread fairly evenly), then doubling steps from the guess and a
/// binary search, so that the search touches few cache lines.
#[inline]
fn first_reaching(sorted: &[f32], x: f32) -> usize {
    let n = sorted.len();
    if n < 16 {
        return sorted.partition_point(|&v| v < x);
    }
    let (first, last) = (sorted[0], sorted[n - 2]);
    let guess = ((x - first) / (last - first) * n as f32) as usize;
    let guess = if guess < n { guess } else { n - 1 };
    // Widen [lo, hi) around the guess until it brackets the answer.
    let (mut lo, mut hi) = (guess, guess + 1);
    let mut step = 1;
    while lo > 0 && !(sorted[lo - 1] < x) {
        lo = lo.saturating_sub(step);
        step *= 2;
    }
    step = 1;
    while hi < n && sorted[hi - 1] < x {
        hi = (hi + step).min(n);
        step *= 2;
    }
    lo + sorted[lo..hi].partition_point(|&v| v < x)
}

/// The axis along which the box centers spread most (largest range).
fn spread_axis<B: BroadBounds>(boxes: &[B]) -> usize {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for b in boxes {
        for axis in 0..B::DIM {
            let c = b.lo(axis) + b.hi(axis);
            lo[axis] = lo[axis].min(c);
            hi[axis] = hi[axis].max(c);
        }
    }
    (0..B::DIM).max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b]))).unwrap_or(0)
}

/// A `u32` in the order of the finite float `x`.
#[inline]
fn sortable(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits & (1 << 31) != 0 { !bits } else { bits | (1 << 31) }
}

#[cfg(test)]
mod tests {
    use super::{Columns, first_reaching};
    use crate::bounds::{Aabb2, Aabb3};
    use glam::{Vec2, Vec3};

    /// `for_each_column`'s short path (spans of one or two columns per axis) and its loops visit
    /// the same columns with the same flags as the plain double loop, in 3D and 2D.
    #[test]
    fn column_visits_match_the_plain_double_loop() {
        let boxes3: Vec<Aabb3> = (0..64)
            .map(|i| Aabb3::new(Vec3::splat(i as f32 * 3.0), Vec3::splat(i as f32 * 3.0 + 1.0)))
            .collect();
        let ids: Vec<u32> = (0..64).collect();
        let grid3 = Columns::new(&ids, &boxes3);
        let boxes2: Vec<Aabb2> = (0..64)
            .map(|i| Aabb2::new(Vec2::splat(i as f32 * 3.0), Vec2::splat(i as f32 * 3.0 + 1.0)))
            .collect();
        let grid2 = Columns::new(&ids, &boxes2);
        for (counts, visit) in [
            (
                grid3.counts,
                &(|r: &([u32; 2], [u32; 2]), out: &mut Vec<(usize, u32)>| {
                    grid3.for_each_column(r, |c, f| out.push((c, f)))
                }) as &dyn Fn(&([u32; 2], [u32; 2]), &mut Vec<(usize, u32)>),
            ),
            (
                grid2.counts,
                &(|r: &([u32; 2], [u32; 2]), out: &mut Vec<(usize, u32)>| {
                    grid2.for_each_column(r, |c, f| out.push((c, f)))
                }),
            ),
        ] {
            for f0 in 0..counts[0] {
                for f1 in 0..counts[1] {
                    for s0 in 0..4.min(counts[0] - f0) {
                        for s1 in 0..4.min(counts[1] - f1) {
                            let range = ([f0, f1], [f0 + s0, f1 + s1]);
                            let mut expected = Vec::new();
                            for c1 in f1..=f1 + s1 {
                                for c0 in f0..=f0 + s0 {
                                    let flags = u32::from(c0 == f0) | u32::from(c1 == f1) << 1;
                                    expected.push(((c1 * counts[0] + c0) as usize, flags));
                                }
                            }
                            let mut got = Vec::new();
                            visit(&range, &mut got);
                            got.sort_unstable();
                            expected.sort_unstable();
                            assert_eq!(got, expected, "range {range:?} in a {counts:?} grid");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn first_reaching_counts_the_values_below_like_a_binary_search() {
        // Uneven spreads, repeats, a padded (infinite) end, and probes everywhere around them.
        let mut state = 12345u32;
        let mut next = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1 << 24) as f32
        };
        for case in 0..400usize {
            let n = case % 70;
            let mut values: Vec<f32> = (0..n).map(|_| (next() * 100.0).powi(1 + (case % 3) as i32)).collect();
            values.sort_by(f32::total_cmp);
            if case % 4 == 0 && n > 0 {
                values[n - 1] = f32::INFINITY;
            }
            let mut probes: Vec<f32> = values.clone();
            probes.extend((0..20).map(|_| next() * 1.2e6 - 1e5));
            probes.extend([f32::NEG_INFINITY, f32::INFINITY, f32::NAN, -0.0]);
            for x in probes {
                let expected = values.partition_point(|&v| v < x);
                assert_eq!(first_reaching(&values, x), expected, "case {case}, x {x}");
            }
        }
    }
}
