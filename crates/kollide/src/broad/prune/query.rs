//! Box and ray queries in [`Columns`].

use super::{Block, Columns};
use crate::bounds::SLAB_EXIT_SCALE;
use crate::broad::{BroadBounds, QueryStats};
use glam::Vec4;

impl Block {
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
        (valid & t0.cmple(t1 * SLAB_EXIT_SCALE)).bitmask()
    }
}

impl<B: BroadBounds> Columns<B> {
    /// Appends the ids of the boxes that overlap the valid box `query` (in no particular order) and
    /// returns the work done.
    pub(in crate::broad) fn query_box(&self, query: &B, out: &mut Vec<u32>) -> QueryStats {
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
    pub(in crate::broad) fn query_ray(&self, ray: &B::Ray, max_t: f32, out: &mut Vec<u32>) -> QueryStats {
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

#[cfg(test)]
mod tests {
    use super::first_reaching;

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
