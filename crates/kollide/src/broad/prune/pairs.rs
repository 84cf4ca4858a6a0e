//! Batch pair finding in [`Columns`]: each column swept along its sweep axis, four boxes per
//! test.

use super::{Block, Columns};
use crate::broad::{BroadBounds, Pair, ordered};
use glam::Vec4;

impl<B: BroadBounds> Columns<B> {
    /// Appends every overlapping pair `(smaller id, larger id)`, each once, in no particular order.
    /// Only for columns placed by the boxes themselves and not edited since.
    pub(in crate::broad) fn pairs(&self, out: &mut Vec<Pair>) {
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
