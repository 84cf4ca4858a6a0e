//! Box pruning in the columns of a coarse grid: batch pair finding, and a compact static layout
//! for box and ray queries.
//!
//! This file builds and edits the columns; `pairs` sweeps them for every overlapping pair and
//! `query` answers box and ray queries from them.

mod pairs;
mod query;

use super::BroadBounds;
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
        // A zero, infinite or NaN cell, or a subnormal one whose inverse overflows, makes a grid
        // of one column.
        let inv_cell = if cell > 0.0 && (1.0 / cell).is_finite() { 1.0 / cell } else { 0.0 };
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
    /// exits the branch predictor mostly misses.
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
}

/// The indices of `boxes` by ascending lower bound on `axis` (radix sort of finite floats).
fn sweep_order<B: BroadBounds>(boxes: &[B], axis: usize) -> Vec<u32> {
    let mut keys: Vec<u64> =
        boxes.iter().enumerate().map(|(i, b)| (u64::from(sortable(b.lo(axis))) << 32) | i as u64).collect();
    super::radix_sort_high32(&mut keys);
    keys.iter().map(|&k| k as u32).collect()
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
    use super::Columns;
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
}
