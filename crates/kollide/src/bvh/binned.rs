//! The split choice of the build: build records, binning by box center, and the plane of least
//! SAH cost.

use super::SAH_DEPTH;
use super::partition::{median_split, partition};
use glam::{Mat3A, Vec3A, Vec4};

/// The spare fourth lane of a record's `min` holds the id as the bits `ID_TAG | id`: for ids
/// below 2²⁸ that is a normal float in `[2, 2³³)`, so arithmetic that the SIMD lanes do on it
/// alongside x, y and z (and then ignore) never meets a NaN or a denormal.
const ID_TAG: u32 = 0x4000_0000;

/// The build record of one primitive: 32 bytes, its box with the id in the spare lane (see
/// [`ID_TAG`]); `max.w` is zero.
#[derive(Clone, Copy, Debug)]
pub(super) struct Record {
    min: Vec4,
    max: Vec4,
}

impl Record {
    /// Packs a box and an id below [`MAX_PRIMITIVES`](super::MAX_PRIMITIVES).
    #[inline]
    pub(super) fn new(min: Vec3A, max: Vec3A, id: u32) -> Record {
        Record { min: min.extend(f32::from_bits(ID_TAG | id)), max: max.extend(0.0) }
    }

    #[inline]
    pub(super) fn min(&self) -> Vec3A {
        Vec3A::from_vec4(self.min)
    }

    #[inline]
    pub(super) fn max(&self) -> Vec3A {
        Vec3A::from_vec4(self.max)
    }

    #[inline]
    pub(super) fn id(&self) -> u32 {
        self.min.w.to_bits() & !ID_TAG
    }

    /// Twice the center of the box (the factor cancels everywhere it is used).
    #[inline]
    pub(super) fn center2(&self) -> Vec3A {
        Vec3A::from_vec4(self.min + self.max)
    }
}

/// One bin of one axis during binning: the box around the records whose center falls in it, with
/// their count in the spare lane of `max` (`min.w` is unused). A record's `max.w` is zero, so
/// `max(bin.max, record.max) + (-0, -0, -0, 1)` grows the box and counts the record in one step;
/// adding `-0` leaves every coordinate exactly as it is.
#[derive(Clone, Copy, Debug)]
struct Bin {
    min: Vec4,
    max: Vec4,
}

impl Bin {
    /// A bin with no record.
    const EMPTY: Bin = Bin {
        min: Vec4::INFINITY,
        max: Vec4::new(f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0),
    };

    #[inline]
    fn add(&mut self, p: &Record) {
        self.min = self.min.min(p.min);
        self.max = self.max.max(p.max) + Vec4::new(-0.0, -0.0, -0.0, 1.0);
    }

    /// The box of the bin (inverted if empty).
    #[inline]
    fn bounds(&self) -> (Vec3A, Vec3A) {
        (Vec3A::from_vec4(self.min), Vec3A::from_vec4(self.max))
    }

    /// The number of records in the bin (exact in `f32`: a binned range or sample holds at most
    /// a few hundred records).
    #[inline]
    fn count(&self) -> f32 {
        self.max.w
    }
}

/// Packs `(id, min, max)` boxes into build records and returns them with their span.
pub(super) fn pack_all(boxes: impl Iterator<Item = (u32, Vec3A, Vec3A)>) -> (Vec<Record>, Span) {
    let mut span = Span::empty();
    // `collect` over an iterator of known length writes the records without a capacity check per
    // record, whose possible call into the allocator would keep the bounds out of registers.
    let prims: Vec<Record> = boxes
        .map(|(id, min, max)| {
            let p = Record::new(min, max, id);
            span.min = span.min.min(min);
            span.max = span.max.max(max);
            p
        })
        .collect();
    span.end = prims.len() as u32;
    (prims, span)
}

/// Per axis, `bins · (1 − 1e-6) / extent` (at most `f32::MAX`) where `extent` is positive and
/// finite, else `0`: multiplying a center offset in `[0, extent]` by it gives a bin coordinate in
/// `[0, bins)`.
#[inline]
fn bin_scale(extent: Vec3A, bins: usize) -> Vec3A {
    let scale = (Vec3A::splat(bins as f32 * (1.0 - 1e-6)) / extent).min(Vec3A::splat(f32::MAX));
    Vec3A::select(extent.cmpgt(Vec3A::ZERO) & extent.is_finite_mask(), scale, Vec3A::ZERO)
}

/// Per axis, the bin of the doubled center `c`, see [`bin_of`].
#[inline]
fn bins_of(c: Vec3A, origin: Vec3A, scale: Vec3A, last: f32) -> [usize; 3] {
    let t = bin_coordinates((c - origin) * scale, Vec3A::splat(last));
    [bin_of(t.x), bin_of(t.y), bin_of(t.z)]
}

/// The SAH cost measure of the box `[min, max]`: half its surface area; zero for an inverted box.
#[inline]
pub(super) fn half_area(min: Vec3A, max: Vec3A) -> f32 {
    let d = (max - min).max(Vec3A::ZERO);
    d.x * d.y + d.y * d.z + d.z * d.x
}

/// [`half_area`] of three boxes at once, in the lanes of the result.
#[inline]
fn half_areas(min: [Vec3A; 3], max: [Vec3A; 3]) -> Vec3A {
    let extent = |k: usize| (max[k] - min[k]).max(Vec3A::ZERO);
    // Rows: the x, y and z extents of the three boxes.
    let t = Mat3A::from_cols(extent(0), extent(1), extent(2)).transpose();
    t.x_axis * t.y_axis + t.y_axis * t.z_axis + t.z_axis * t.x_axis
}

/// Build parameters.
#[derive(Clone, Copy, Debug)]
pub(super) struct BuildParams {
    /// A range with more primitives than this is always split; `1..=MAX_LEAF_SIZE`.
    pub max_leaf: usize,
    /// SAH cost of visiting a node, relative to one primitive test.
    pub traversal_cost: f32,
}

impl BuildParams {
    /// Whether a split of SAH cost `cost` (`A_left N_left + A_right N_right`) beats a leaf.
    ///
    /// In units of one primitive test: a leaf costs `n`, a split `traversal + cost / A_parent`
    /// (the probability of visiting a child being its area over the parent's).
    fn worth_splitting(self, n: usize, parent_area: f32, cost: f32) -> bool {
        if n > self.max_leaf {
            return true;
        }
        let relative = if parent_area > 0.0 { cost / parent_area } else { n as f32 };
        self.traversal_cost + relative < n as f32
    }

    /// Whether `n` primitives make a leaf whatever their split would cost: they fit in one, and
    /// a split (whose relative cost is never negative) cannot beat the leaf's `n`.
    fn always_leaf(self, n: usize) -> bool {
        n <= self.max_leaf && n as f32 <= self.traversal_cost
    }
}

/// Bins per axis for large ranges. Wald (2007) finds 16 bins within a few percent of the full
/// SAH sweep.
const BIN_COUNT: usize = 16;

/// The most bins per axis for ranges below [`MANY`] primitives (see [`bins_for`]).
const FEW_BINS: usize = 8;

/// Ranges with at least this many primitives use [`BIN_COUNT`] bins.
const MANY: usize = 64;

/// Bins per axis for a range of `n` primitives: [`BIN_COUNT`] from [`MANY`] on. Below, where
/// clearing and sweeping the bins costs as much as binning the primitives, half as many bins as
/// primitives, from 4 to [`FEW_BINS`]: against [`FEW_BINS`] throughout, the build does less work
/// for a tree of about the same SAH cost (bunny and torus benchmarks).
fn bins_for(n: usize) -> usize {
    if n >= MANY { BIN_COUNT } else { (n / 2).clamp(4, FEW_BINS) }
}

/// Ranges with at least this many primitives bin a sample of [`SAMPLES`] to `2 · SAMPLES` of
/// them. On the bunny and torus benchmarks, samples eight times larger barely lower the tree's
/// SAH cost, while halving them raises it (and the node visits of rays) more than it shortens
/// the build.
const SAMPLED: usize = 2 * SAMPLES;

/// See [`SAMPLED`].
const SAMPLES: usize = 256;

/// A contiguous run `start..end` of the build records, with its box and its depth in the binary
/// split hierarchy.
#[derive(Clone, Copy, Debug)]
pub(super) struct Span {
    pub start: u32,
    pub end: u32,
    pub depth: u32,
    pub min: Vec3A,
    pub max: Vec3A,
}

impl Span {
    #[inline]
    pub(super) fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// An empty span at 0 with inverted bounds, to grow.
    pub(super) fn empty() -> Self {
        Span { start: 0, end: 0, depth: 0, min: Vec3A::INFINITY, max: Vec3A::NEG_INFINITY }
    }

    /// Adds a record's box to the box.
    #[inline(always)]
    pub(super) fn grow(&mut self, p: &Record) {
        self.min = self.min.min(p.min());
        self.max = self.max.max(p.max());
    }

    /// The span over `prims[start..end]`, bounds computed by one pass.
    pub(super) fn over(prims: &[Record], start: usize, end: usize, depth: u32) -> Self {
        let mut span = Span { start: start as u32, end: end as u32, depth, ..Span::empty() };
        for p in &prims[start..end] {
            span.grow(p);
        }
        span
    }
}

/// Chooses and applies splits; owns the bins so they are not re-created per range.
pub(super) struct Splitter {
    params: BuildParams,
    /// Per axis, per bin: the box and the number of records.
    bins: [[Bin; BIN_COUNT]; 3],
}

/// A split plane: the primitives whose bin on `axis` is below `bin` go left.
#[derive(Clone, Copy, Debug)]
struct Plane {
    axis: usize,
    bin: usize,
    /// `A_left · N_left + A_right · N_right`.
    cost: f32,
    left_min: Vec3A,
    left_max: Vec3A,
    right_min: Vec3A,
    right_max: Vec3A,
}

impl Splitter {
    pub(super) fn new(params: BuildParams) -> Self {
        Self { params, bins: [[Bin::EMPTY; BIN_COUNT]; 3] }
    }

    /// Splits `span` in two (reordering its records), or returns `None` to make it a leaf.
    pub(super) fn split(&mut self, prims: &mut [Record], span: &Span) -> Option<(Span, Span)> {
        let n = span.len();
        if n <= 1 || self.params.always_leaf(n) {
            return None;
        }
        if span.depth as usize >= SAH_DEPTH {
            return (n > self.params.max_leaf).then(|| median_split(prims, span));
        }
        self.binned_split(prims, span)
    }

    /// The binned SAH split of a range. (Sampled ranges are always larger than a leaf, so their
    /// cost, counted in samples, only ranks planes.)
    fn binned_split(&mut self, prims: &mut [Record], span: &Span) -> Option<(Span, Span)> {
        let n = span.len();
        let bins = bins_for(n);
        // The bins divide the range's box, doubled like the centers (which it contains), rather
        // than the bounds of the centers themselves: those would cost one more pass over the
        // records of every partition, for a tree of about the same SAH cost (bunny and torus
        // benchmarks).
        let (low, high) = (span.min * 2.0, span.max * 2.0);
        let scale = bin_scale(high - low, bins);
        // Large ranges choose their plane from an evenly strided sample (sampling the cost
        // function as in Hunt, Mark and Stoll, "Fast kd-tree Construction with an Adaptive
        // Error-Bounded Heuristic", 2006). The children's boxes then come from the partition.
        let step = if n >= SAMPLED { n / SAMPLES } else { 1 };
        let range = &mut prims[span.start as usize..span.end as usize];
        let Some(plane) = self.best_plane(range, step, bins, low, scale) else {
            // No axis has two non-empty bins (the centers coincide, or crowd inside a box that
            // large records stretch): the median is as good a split as any.
            return (n > self.params.max_leaf).then(|| median_split(prims, span));
        };
        if !self.params.worth_splitting(n, half_area(span.min, span.max), plane.cost) {
            return None;
        }
        // The bin is a non-decreasing function of the center (see `bin_coordinates`), so the
        // records that bin left are exactly those whose center is at most the last value that
        // bins left: the partition compares one float per record instead of recomputing bins.
        // The doubled box brackets that value: its low corner bins to 0, its high one to the last
        // bin, and `plane.bin` lies in between.
        let axis = plane.axis;
        let last = (bins - 1) as f32;
        let bin = |c: f32| bins_of(Vec3A::splat(c), low, scale, last)[axis];
        let guess = low[axis] + plane.bin as f32 / scale[axis];
        let threshold = last_below(low[axis], high[axis], guess, |c| bin(c) < plane.bin);
        let (mid, mut left, mut right) = if step > 1 {
            partition::<true>(range, axis, threshold)
        } else {
            let (mid, mut left, mut right) = partition::<false>(range, axis, threshold);
            (left.min, left.max) = (plane.left_min, plane.left_max);
            (right.min, right.max) = (plane.right_min, plane.right_max);
            (mid, left, right)
        };
        let mid = span.start + mid as u32;
        let depth = span.depth + 1;
        (left.start, left.end, left.depth) = (span.start, mid, depth);
        (right.start, right.end, right.depth) = (mid, span.end, depth);
        Some((left, right))
    }

    /// Bins every `step`-th record of `range` on every axis and returns the plane of least SAH
    /// cost, or `None` if no axis has two non-empty bins.
    fn best_plane(
        &mut self,
        range: &[Record],
        step: usize,
        bins: usize,
        origin: Vec3A,
        scale: Vec3A,
    ) -> Option<Plane> {
        let last = (bins - 1) as f32;
        for axis_bins in &mut self.bins {
            axis_bins[..bins].fill(Bin::EMPTY);
        }
        for p in range.iter().step_by(step) {
            let b = bins_of(p.center2(), origin, scale, last);
            for (axis_bins, &b) in self.bins.iter_mut().zip(&b) {
                axis_bins[b].add(p);
            }
        }
        // Sweep all axes at once (SIMD lanes = axes): right to left for `A · N` of bins[i..],
        // then left to right for the cost of each plane.
        let all_bins = &self.bins;
        let count_at = |i: usize| Vec3A::from_array(std::array::from_fn(|a| all_bins[a][i].count()));
        let grow = |lo: &mut [Vec3A; 3], hi: &mut [Vec3A; 3], i: usize| {
            for a in 0..3 {
                let (min, max) = all_bins[a][i].bounds();
                (lo[a], hi[a]) = (lo[a].min(min), hi[a].max(max));
            }
        };
        let mut right_cost = [Vec3A::ZERO; BIN_COUNT];
        let (mut lo, mut hi, mut count) = ([Vec3A::INFINITY; 3], [Vec3A::NEG_INFINITY; 3], Vec3A::ZERO);
        for i in (1..bins).rev() {
            grow(&mut lo, &mut hi, i);
            count += count_at(i);
            right_cost[i] = half_areas(lo, hi) * count;
        }
        let n = Vec3A::splat(range.len().div_ceil(step) as f32);
        let (mut best_cost, mut best_bin) = (Vec3A::INFINITY, Vec3A::ZERO);
        let (mut lo, mut hi, mut count) = ([Vec3A::INFINITY; 3], [Vec3A::NEG_INFINITY; 3], Vec3A::ZERO);
        for (i, &right) in right_cost.iter().enumerate().take(bins).skip(1) {
            grow(&mut lo, &mut hi, i - 1);
            count += count_at(i - 1);
            let cost = half_areas(lo, hi) * count + right;
            // A plane with every primitive on one side is no split.
            let better = cost.cmplt(best_cost) & count.cmpgt(Vec3A::ZERO) & count.cmplt(n);
            best_cost = Vec3A::select(better, cost, best_cost);
            best_bin = Vec3A::select(better, Vec3A::splat(i as f32), best_bin);
        }
        let axis = (1..3).fold(0, |best, a| if best_cost[a] < best_cost[best] { a } else { best });
        let (cost, bin) = (best_cost[axis], best_bin[axis] as usize);
        if bin == 0 {
            return None;
        }
        let union = |r: std::ops::Range<usize>| {
            all_bins[axis][r]
                .iter()
                .map(Bin::bounds)
                .fold((Vec3A::INFINITY, Vec3A::NEG_INFINITY), |(lo, hi), (min, max)| {
                    (lo.min(min), hi.max(max))
                })
        };
        let (left_min, left_max) = union(0..bin);
        let (right_min, right_max) = union(bin..bins);
        Some(Plane { axis, bin, cost, left_min, left_max, right_min, right_max })
    }
}

/// The largest float `x` in `[lo, hi]` with `left(x)`, for a predicate that holds at `lo`,
/// fails at `hi` and, along the floats in increasing order, never holds again once it failed.
/// `lo` and `hi` must not be NaN.
///
/// The search runs over the floats themselves (their order keys), so the answer is exact: an
/// exponential search from `guess` (an estimate of the answer) brackets it, bisection finishes.
/// With a guess a few ulps off that takes a handful of evaluations, and at most about 64.
fn last_below(lo: f32, hi: f32, guess: f32, left: impl Fn(f32) -> bool) -> f32 {
    let (mut lo, mut hi) = (order_key(lo), order_key(hi));
    let guess = order_key(guess);
    let mut step = 1u32;
    if lo < guess && guess < hi {
        if left(from_order_key(guess)) {
            lo = guess;
            while hi - lo > step {
                if !left(from_order_key(lo + step)) {
                    hi = lo + step;
                    break;
                }
                lo += step;
                step = step.saturating_mul(2);
            }
        } else {
            hi = guess;
            while hi - lo > step {
                if left(from_order_key(hi - step)) {
                    lo = hi - step;
                    break;
                }
                hi -= step;
                step = step.saturating_mul(2);
            }
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if left(from_order_key(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    from_order_key(lo)
}

/// A key that orders floats like their values (`-0` just below `+0`): flip every bit of a
/// negative float, the sign bit of a positive one. NaNs land beyond the infinities.
#[inline]
fn order_key(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits >> 31 == 1 { !bits } else { bits | 0x8000_0000 }
}

/// The inverse of [`order_key`].
#[inline]
fn from_order_key(key: u32) -> f32 {
    f32::from_bits(if key >> 31 == 1 { key & 0x7FFF_FFFF } else { !key })
}

/// Adding 2²³ to a float in `[0, 2²²)` rounds it to an integer held in the low mantissa bits.
const ROUNDING: f32 = 8_388_608.0;

/// Bin coordinates `t` (center offsets times the bin scale, in `[0, bins)` for centers within
/// the binned range) made ready for [`bin_of`]: `t − 0.5` clamped to `[0, last]`, plus
/// [`ROUNDING`]. Bin `k` thus holds the `t` in about `[k, k + 1)` (the rounding is to nearest
/// even, so a `t` of exactly `k + 1` may stay in bin `k`). Every step is monotone, so the bin is a
/// non-decreasing function of the center, and any value (even NaN) gives a bin in range.
#[inline]
fn bin_coordinates(t: Vec3A, last: Vec3A) -> Vec3A {
    (t - Vec3A::splat(0.5)).max(Vec3A::ZERO).min(last) + Vec3A::splat(ROUNDING)
}

/// The bin index held in a lane of [`bin_coordinates`]; the mask keeps it in `0..BIN_COUNT`
/// whatever the lane holds.
#[inline]
fn bin_of(rounded: f32) -> usize {
    rounded.to_bits() as usize & (BIN_COUNT - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::MAX_PRIMITIVES;

    fn params(max_leaf: usize) -> BuildParams {
        BuildParams { max_leaf, traversal_cost: 1.0 }
    }

    #[test]
    fn large_ids_survive_packing() {
        let id = MAX_PRIMITIVES as u32 - 1;
        let p = Record::new(Vec3A::splat(-3.0), Vec3A::splat(5.0), id);
        assert_eq!(p.id(), id);
        assert_eq!(p.min().to_array(), [-3.0; 3]);
        assert_eq!(p.center2().to_array(), [2.0; 3]);
        assert!(p.min.w.is_normal());
    }

    #[test]
    fn order_keys_order_like_values_and_round_trip() {
        let values = [
            f32::NEG_INFINITY,
            -f32::MAX,
            -1.5,
            -f32::MIN_POSITIVE,
            -0.0,
            0.0,
            1e-45,
            1.0,
            f32::MAX,
            f32::INFINITY,
        ];
        for w in values.windows(2) {
            assert!(order_key(w[0]) < order_key(w[1]), "{} {}", w[0], w[1]);
        }
        for v in values {
            assert_eq!(from_order_key(order_key(v)).to_bits(), v.to_bits());
        }
    }

    #[test]
    fn last_below_finds_the_exact_boundary() {
        let mut rng = kollide_testkit::random::rng(11);
        for _ in 0..kollide_testkit::cases(10_000) {
            let a = kollide_testkit::random::point3(&mut rng, 100.0);
            let (lo, hi) = (a.x.min(a.y), a.x.max(a.y));
            if lo == hi {
                continue;
            }
            // A threshold anywhere in [lo, hi), and a guess that may be far off.
            let t = lo + (hi - lo) * (a.z / 200.0 + 0.5).clamp(0.0, 0.999);
            if t >= hi {
                continue;
            }
            let expected = t;
            for guess in [t, lo, hi, a.z, f32::NAN, t + 1e-3] {
                assert_eq!(last_below(lo, hi, guess, |x| x <= expected), expected);
            }
        }
        // The binning predicate itself, on a range where bins are a few ulps wide.
        let (origin, extent) = (1.0e6f32, 0.5f32);
        let scale = bin_scale(Vec3A::splat(extent), BIN_COUNT);
        let bin = |c: f32| bins_of(Vec3A::splat(c), Vec3A::splat(origin), scale, 15.0)[0];
        for plane in 1..BIN_COUNT {
            let t = last_below(origin, origin + extent, origin + plane as f32 / scale.x, |c| bin(c) < plane);
            assert!(bin(t) < plane && bin(t.next_up()) >= plane, "plane {plane}");
        }
    }

    #[test]
    fn last_below_takes_a_handful_of_evaluations_from_a_close_guess() {
        let mut rng = kollide_testkit::random::rng(14);
        for _ in 0..kollide_testkit::cases(1_000) {
            let a = kollide_testkit::random::point3(&mut rng, 100.0);
            let (lo, hi) = (a.x.min(a.y) - 1.0, a.x.max(a.y) + 1.0);
            let t = from_order_key(order_key(lo) + (order_key(hi) - order_key(lo)) / 2);
            for ulps in [-4i32, -1, 1, 4] {
                let guess = from_order_key(order_key(t).wrapping_add_signed(ulps));
                let evaluations = std::cell::Cell::new(0);
                let found = last_below(lo, hi, guess, |x| {
                    evaluations.set(evaluations.get() + 1);
                    x <= t
                });
                assert_eq!(found, t);
                assert!(evaluations.get() <= 6, "{} evaluations {ulps} ulps off", evaluations.get());
            }
        }
    }

    #[test]
    fn half_area_is_half_the_surface_area() {
        let (mins, maxs) = (
            [Vec3A::ZERO, Vec3A::splat(-1.0), Vec3A::ONE],
            [Vec3A::new(1.0, 2.0, 3.0), Vec3A::new(1.0, 0.0, 3.0), Vec3A::ZERO],
        );
        // 1·2 + 2·3 + 3·1; 2·1 + 1·4 + 4·2; an inverted box.
        let expected = [11.0, 14.0, 0.0];
        let lanes = half_areas(mins, maxs);
        for k in 0..3 {
            assert_eq!(half_area(mins[k], maxs[k]), expected[k]);
            assert_eq!(lanes[k], expected[k]);
        }
    }

    #[test]
    fn a_split_is_worth_it_only_when_cheaper_than_the_leaf() {
        let p = params(4);
        // A leaf of n costs n; a split 1 (the node) + cost / parent area.
        assert!(!p.worth_splitting(2, 1.0, 1.5));
        assert!(p.worth_splitting(4, 1.0, 2.0));
        assert!(p.worth_splitting(5, 1.0, 100.0), "more than max_leaf always splits");
        assert!(!p.worth_splitting(2, 0.0, 0.0), "a flat parent prices the split at n");
        assert!(p.always_leaf(1) && !p.always_leaf(2) && !p.always_leaf(5));
    }

    #[test]
    fn binned_splits_take_the_cheapest_plane_between_bins() {
        // Every plane between bins on every axis, scored from the records themselves, for ranges
        // small enough to be binned whole.
        let mut rng = kollide_testkit::random::rng(12);
        let params = params(4);
        let union = |s: &[(u32, Vec3A, Vec3A)]| {
            s.iter().fold((Vec3A::INFINITY, Vec3A::NEG_INFINITY), |(lo, hi), b| (lo.min(b.1), hi.max(b.2)))
        };
        for case in 0..kollide_testkit::cases(10_000) {
            let n = 2 + case % (SAMPLED - 2);
            let boxes: Vec<(u32, Vec3A, Vec3A)> = (0..n as u32)
                .map(|i| {
                    let c = Vec3A::from(kollide_testkit::random::point3(&mut rng, 10.0));
                    let h = Vec3A::from(kollide_testkit::random::point3(&mut rng, 2.0)).abs();
                    (i, c - h, c + h)
                })
                .collect();
            let (mut prims, root) = pack_all(boxes.iter().copied());
            let split = Splitter::new(params).split(&mut prims, &root);
            let bins = bins_for(n);
            let low = root.min * 2.0;
            let scale = bin_scale(root.max * 2.0 - low, bins);
            let mut best = f32::INFINITY;
            for axis in 0..3 {
                for plane in 1..bins {
                    let (left, right): (Vec<_>, Vec<_>) = boxes
                        .iter()
                        .partition(|b| bins_of(b.1 + b.2, low, scale, (bins - 1) as f32)[axis] < plane);
                    if left.is_empty() || right.is_empty() {
                        continue;
                    }
                    let ((l0, l1), (r0, r1)) = (union(&left), union(&right));
                    let cost = half_area(l0, l1) * left.len() as f32 + half_area(r0, r1) * right.len() as f32;
                    best = best.min(cost);
                }
            }
            match split {
                Some((l, r)) => {
                    let cost =
                        half_area(l.min, l.max) * l.len() as f32 + half_area(r.min, r.max) * r.len() as f32;
                    assert!(cost <= best * (1.0 + 1e-5), "case {case}: {cost} vs best {best}");
                    // The sides hold the records of their boxes.
                    for (side, span) in [(&prims[..l.len()], l), (&prims[l.len()..], r)] {
                        let expected = Span::over(side, 0, side.len(), 0);
                        assert_eq!((span.min, span.max), (expected.min, expected.max), "case {case}");
                    }
                }
                None => {
                    assert!(n <= params.max_leaf, "case {case}");
                    assert!(!params.worth_splitting(n, half_area(root.min, root.max), best * (1.0 - 1e-5)));
                }
            }
        }
    }
}
