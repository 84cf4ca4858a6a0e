//! SAH construction of a 4-wide BVH, generic over the dimension.
//!
//! Each primitive is a box; it goes entirely to the side of a split its box center falls on, so
//! every primitive ends up in exactly one leaf (no duplication, seed 000). Splits minimise the
//! surface area heuristic (MacDonald and Booth 1990), top-down:
//!
//! - Ranges are binned by box center: the candidate planes lie between equal bins of the range's
//!   box on every axis (Wald, "On fast Construction of SAH-based Bounding Volume Hierarchies",
//!   2007); [`BIN_COUNT`] bins, fewer below [`MANY`] primitives ([`bins_for`]). From [`SAMPLED`]
//!   primitives on, only an evenly strided sample of about [`SAMPLES`] is binned: the plane it
//!   picks is about as good, and the binning pass, whose cost per primitive is the highest of the
//!   build, shrinks to nothing at the top of the tree. The chosen plane is applied by a partition
//!   in place ([`partition`]: branch-free while the range fits in cache, Hoare's beyond) that
//!   also gathers the children's boxes when sampled (otherwise the bins on each side give them).
//!   Down to the smallest ranges the bins score about as well as the exact SAH sweep over every
//!   split between neighbours: on the bunny and torus benchmarks the tree's SAH cost differs by
//!   under 0.01%, for 9% fewer instructions than a sweep of ranges of up to 16 primitives.
//! - Past [`SAH_DEPTH`] levels, ranges are split at the median, which bounds the depth.
//!
//! The wide nodes are assembled while splitting, as a binary-to-wide collapse would do it: a wide
//! node starts from one binary split of its range and keeps splitting the child of largest
//! surface area that is not a leaf until it has four children. No binary tree is stored.
//!
//! The build is iterative (explicit work lists, no recursion) and moves 32-byte primitive records
//! in place, so every pass over a range reads memory sequentially.

use super::wide::{Bvh3, Child, MAX_PRIMITIVES, Node4};
use crate::bounds::Aabb3;
use glam::{Mat3A, Vec2, Vec3A, Vec4};

/// The vector operations the builder needs, for `Vec2` (2D) and `Vec3A` (3D), and the packed
/// record of one primitive during the build.
pub(crate) trait BuildVector: Copy + Send + Sync + 'static {
    const DIM: usize;
    const INFINITY: Self;
    const NEG_INFINITY: Self;
    /// A primitive's box and id, packed as small as the dimension allows.
    type Prim: Copy + Send + Sync;
    /// One bin of one axis during binning: the box around the records whose center falls in it,
    /// and their count.
    type Bin: Copy;
    /// A bin with no record.
    const EMPTY_BIN: Self::Bin;
    /// Packs a box and an id below [`MAX_PRIMITIVES`].
    fn pack(min: Self, max: Self, id: u32) -> Self::Prim;
    fn prim_min(p: &Self::Prim) -> Self;
    fn prim_max(p: &Self::Prim) -> Self;
    fn prim_id(p: &Self::Prim) -> u32;
    /// Twice the center of the primitive's box (the factor cancels everywhere it is used).
    fn prim_center2(p: &Self::Prim) -> Self;
    /// Adds a record to a bin.
    fn bin_add(bin: &mut Self::Bin, p: &Self::Prim);
    /// The box of a bin (inverted if empty).
    fn bin_box(bin: &Self::Bin) -> (Self, Self);
    /// The number of records in a bin (exact in `f32`: a binned range or sample holds at most a
    /// few hundred records).
    fn bin_count(bin: &Self::Bin) -> f32;
    fn splat(v: f32) -> Self;
    fn min(self, other: Self) -> Self;
    fn max(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    fn mul(self, other: Self) -> Self;
    fn axis(self, axis: usize) -> f32;
    /// Per axis, `bins · (1 − 1e-6) / extent` (at most `f32::MAX`) where `extent` is positive and
    /// finite, else `0`: multiplying a center offset in `[0, extent]` by it gives a bin coordinate
    /// in `[0, bins)`.
    fn bin_scale(extent: Self, bins: usize) -> Self;
    /// Per axis, the bin of the doubled center `c` (the unused lanes are zero), see [`bin_of`].
    fn bins_of(c: Self, origin: Self, scale: Self, last: f32) -> [usize; 3];
    /// The SAH cost measure of the box `[min, max]`: half its surface area (3D) or perimeter (2D);
    /// zero for an inverted box.
    fn half_area(min: Self, max: Self) -> f32;
    /// [`BuildVector::half_area`] of three boxes at once, in the lanes of the result.
    fn half_areas(min: [Self; 3], max: [Self; 3]) -> Vec3A;
}

/// The spare fourth lane of a 3D record's `min` holds the id as the bits `ID_TAG | id`: for ids
/// below 2²⁸ that is a normal float in `[2, 2³³)`, so arithmetic that the SIMD lanes do on it
/// alongside x, y and z (and then ignore) never meets a NaN or a denormal.
const ID_TAG: u32 = 0x4000_0000;

/// The 3D build record: 32 bytes, the box with the id in the spare lane (see [`ID_TAG`]); `max.w`
/// is zero.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prim3 {
    min: Vec4,
    max: Vec4,
}

/// A 3D bin: the box, with the count in the spare lane of `max` (`min.w` is unused). A record's
/// `max.w` is zero, so `max(bin.max, record.max) + (-0, -0, -0, 1)` grows the box and counts the
/// record in one step; adding `-0` leaves every coordinate exactly as it is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bin3 {
    min: Vec4,
    max: Vec4,
}

impl BuildVector for Vec3A {
    const DIM: usize = 3;
    const INFINITY: Self = Vec3A::INFINITY;
    const NEG_INFINITY: Self = Vec3A::NEG_INFINITY;
    type Prim = Prim3;
    type Bin = Bin3;
    const EMPTY_BIN: Bin3 = Bin3 {
        min: Vec4::INFINITY,
        max: Vec4::new(f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0),
    };
    #[inline]
    fn pack(min: Self, max: Self, id: u32) -> Prim3 {
        Prim3 { min: min.extend(f32::from_bits(ID_TAG | id)), max: max.extend(0.0) }
    }
    #[inline]
    fn prim_min(p: &Prim3) -> Self {
        Vec3A::from_vec4(p.min)
    }
    #[inline]
    fn prim_max(p: &Prim3) -> Self {
        Vec3A::from_vec4(p.max)
    }
    #[inline]
    fn prim_id(p: &Prim3) -> u32 {
        p.min.w.to_bits() & !ID_TAG
    }
    #[inline]
    fn prim_center2(p: &Prim3) -> Self {
        Vec3A::from_vec4(p.min + p.max)
    }
    #[inline]
    fn bin_add(bin: &mut Bin3, p: &Prim3) {
        bin.min = bin.min.min(p.min);
        bin.max = bin.max.max(p.max) + Vec4::new(-0.0, -0.0, -0.0, 1.0);
    }
    #[inline]
    fn bin_box(bin: &Bin3) -> (Self, Self) {
        (Vec3A::from_vec4(bin.min), Vec3A::from_vec4(bin.max))
    }
    #[inline]
    fn bin_count(bin: &Bin3) -> f32 {
        bin.max.w
    }
    #[inline]
    fn splat(v: f32) -> Self {
        Vec3A::splat(v)
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        Vec3A::min(self, other)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        Vec3A::max(self, other)
    }
    #[inline]
    fn sub(self, other: Self) -> Self {
        self - other
    }
    #[inline]
    fn mul(self, other: Self) -> Self {
        self * other
    }
    #[inline]
    fn axis(self, axis: usize) -> f32 {
        self[axis]
    }
    #[inline]
    fn bin_scale(extent: Self, bins: usize) -> Self {
        let scale = (Vec3A::splat(bins as f32 * (1.0 - 1e-6)) / extent).min(Vec3A::splat(f32::MAX));
        Vec3A::select(extent.cmpgt(Vec3A::ZERO) & extent.is_finite_mask(), scale, Vec3A::ZERO)
    }
    #[inline]
    fn bins_of(c: Self, origin: Self, scale: Self, last: f32) -> [usize; 3] {
        let t = bin_coordinates(c.sub(origin).mul(scale), Vec3A::splat(last));
        [bin_of(t.x), bin_of(t.y), bin_of(t.z)]
    }
    #[inline]
    fn half_area(min: Self, max: Self) -> f32 {
        let d = (max - min).max(Vec3A::ZERO);
        d.x * d.y + d.y * d.z + d.z * d.x
    }
    #[inline]
    fn half_areas(min: [Self; 3], max: [Self; 3]) -> Vec3A {
        let extent = |k: usize| (max[k] - min[k]).max(Vec3A::ZERO);
        // Rows: the x, y and z extents of the three boxes.
        let t = Mat3A::from_cols(extent(0), extent(1), extent(2)).transpose();
        t.x_axis * t.y_axis + t.y_axis * t.z_axis + t.z_axis * t.x_axis
    }
}

/// The 2D build record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prim2 {
    min: Vec2,
    max: Vec2,
    id: u32,
}

/// A 2D bin.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bin2 {
    min: Vec2,
    max: Vec2,
    count: f32,
}

impl BuildVector for Vec2 {
    const DIM: usize = 2;
    const INFINITY: Self = Vec2::INFINITY;
    const NEG_INFINITY: Self = Vec2::NEG_INFINITY;
    type Prim = Prim2;
    type Bin = Bin2;
    const EMPTY_BIN: Bin2 = Bin2 { min: Vec2::INFINITY, max: Vec2::NEG_INFINITY, count: 0.0 };
    #[inline]
    fn pack(min: Self, max: Self, id: u32) -> Prim2 {
        Prim2 { min, max, id }
    }
    #[inline]
    fn prim_min(p: &Prim2) -> Self {
        p.min
    }
    #[inline]
    fn prim_max(p: &Prim2) -> Self {
        p.max
    }
    #[inline]
    fn prim_id(p: &Prim2) -> u32 {
        p.id
    }
    #[inline]
    fn prim_center2(p: &Prim2) -> Self {
        p.min + p.max
    }
    #[inline]
    fn bin_add(bin: &mut Bin2, p: &Prim2) {
        (bin.min, bin.max, bin.count) = (bin.min.min(p.min), bin.max.max(p.max), bin.count + 1.0);
    }
    #[inline]
    fn bin_box(bin: &Bin2) -> (Self, Self) {
        (bin.min, bin.max)
    }
    #[inline]
    fn bin_count(bin: &Bin2) -> f32 {
        bin.count
    }
    #[inline]
    fn splat(v: f32) -> Self {
        Vec2::splat(v)
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        Vec2::min(self, other)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        Vec2::max(self, other)
    }
    #[inline]
    fn sub(self, other: Self) -> Self {
        self - other
    }
    #[inline]
    fn mul(self, other: Self) -> Self {
        self * other
    }
    #[inline]
    fn axis(self, axis: usize) -> f32 {
        self[axis]
    }
    #[inline]
    fn bin_scale(extent: Self, bins: usize) -> Self {
        let scale = (Vec2::splat(bins as f32 * (1.0 - 1e-6)) / extent).min(Vec2::splat(f32::MAX));
        Vec2::select(extent.cmpgt(Vec2::ZERO) & extent.is_finite_mask(), scale, Vec2::ZERO)
    }
    #[inline]
    fn bins_of(c: Self, origin: Self, scale: Self, last: f32) -> [usize; 3] {
        let t = (c - origin) * scale;
        let t = (t - Vec2::splat(0.5)).max(Vec2::ZERO).min(Vec2::splat(last)) + Vec2::splat(ROUNDING);
        [bin_of(t.x), bin_of(t.y), 0]
    }
    #[inline]
    fn half_area(min: Self, max: Self) -> f32 {
        let d = (max - min).max(Vec2::ZERO);
        d.x + d.y
    }
    #[inline]
    fn half_areas(min: [Self; 3], max: [Self; 3]) -> Vec3A {
        Vec3A::from_array(std::array::from_fn(|k| Self::half_area(min[k], max[k])))
    }
}

/// A wide node the builder fills: up to four children, each with its box.
pub(crate) trait WideNode<V>: Copy {
    /// A node with four empty slots.
    const EMPTY: Self;
    fn set_child(&mut self, lane: usize, child: Child, min: V, max: V);
}

impl WideNode<Vec3A> for Node4 {
    const EMPTY: Self = Node4::EMPTY;
    #[inline]
    fn set_child(&mut self, lane: usize, child: Child, min: Vec3A, max: Vec3A) {
        Node4::set_child(self, lane, child, min, max);
    }
}

/// Build parameters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BuildParams {
    /// A range with more primitives than this is always split; `1..=15`.
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
/// primitives, from 4 to [`FEW_BINS`]: against [`FEW_BINS`] throughout, the build takes 7% fewer
/// instructions and the tree's SAH cost grows by at most 0.12% (bunny and torus benchmarks).
fn bins_for(n: usize) -> usize {
    if n >= MANY { BIN_COUNT } else { (n / 2).clamp(4, FEW_BINS) }
}

/// Ranges with at least this many primitives bin a sample of [`SAMPLES`] to `2 · SAMPLES` of
/// them. Over the bunny and torus benchmarks the tree's SAH cost stays within 0.6% of binning
/// samples eight times larger; samples of 128 cost 1.2% more on the bunny (node visits of rays
/// 2% more) for a build 3.5% faster.
const SAMPLED: usize = 2 * SAMPLES;

/// See [`SAMPLED`].
const SAMPLES: usize = 256;

/// Below this depth SAH chooses splits; deeper ranges are split at the median, which halves the
/// count each level. So a tree over `n < 2^28` primitives is at most `SAH_DEPTH + 28` binary
/// levels deep (the wide tree is shallower), which bounds the traversal stacks.
pub(crate) const SAH_DEPTH: usize = 36;

/// The deepest a tree built here can be (root at depth 0).
pub(crate) const MAX_DEPTH: usize = SAH_DEPTH + 28;

/// A contiguous run `start..end` of the build records, with its box and its depth in the binary
/// split hierarchy.
#[derive(Clone, Copy, Debug)]
struct Span<V> {
    start: u32,
    end: u32,
    depth: u32,
    min: V,
    max: V,
}

impl<V: BuildVector> Span<V> {
    #[inline]
    fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// An empty span at 0 with inverted bounds, to grow.
    fn empty() -> Self {
        Span { start: 0, end: 0, depth: 0, min: V::INFINITY, max: V::NEG_INFINITY }
    }

    /// Adds a record's box to the box.
    #[inline(always)]
    fn grow(&mut self, p: &V::Prim) {
        self.min = self.min.min(V::prim_min(p));
        self.max = self.max.max(V::prim_max(p));
    }

    /// The span over `prims[start..end]`, bounds computed by one pass.
    fn over(prims: &[V::Prim], start: usize, end: usize, depth: u32) -> Self {
        let mut span = Span { start: start as u32, end: end as u32, depth, ..Span::empty() };
        for p in &prims[start..end] {
            span.grow(p);
        }
        span
    }
}

/// Builds the wide nodes over `prims` (reordered in place into leaf order; node 0 is the root)
/// and returns them. `prims` must be non-empty, hold fewer than 2²⁸ primitives, all with finite
/// boxes; `root` must be their span.
fn build_wide<V: BuildVector, N: WideNode<V>>(
    prims: &mut [V::Prim],
    root: Span<V>,
    params: BuildParams,
) -> Vec<N> {
    let mut splitter = Splitter::<V>::new(params);
    // Leaves hold one to two primitives on average and nodes two to four children: a third of
    // the primitive count is a generous bound (the unused tail is released below).
    let mut nodes: Vec<N> = Vec::with_capacity(prims.len() / 3 + 1);
    nodes.push(N::EMPTY);
    let Some((left, right)) = splitter.split(prims, &root) else {
        nodes[0].set_child(0, leaf_child(&root), root.min, root.max);
        return nodes;
    };
    // (a wide node, the two halves of the binary split of its range)
    let mut tasks = vec![(0usize, left, right)];
    while let Some((node, left, right)) = tasks.pop() {
        // The children so far, their areas, and whether each is known to be a leaf.
        let mut spans = [left, right, left, left];
        let mut areas = [V::half_area(left.min, left.max), V::half_area(right.min, right.max), 0.0, 0.0];
        let mut leaf = [false; 4];
        let mut count = 2;
        // Replace the largest child that is not a leaf by its two halves, as a collapse of the
        // binary tree would (the largest inner child by surface area).
        while count < 4 {
            let mut widest: Option<usize> = None;
            for k in 0..count {
                if !leaf[k] && widest.is_none_or(|w| areas[k] > areas[w]) {
                    widest = Some(k);
                }
            }
            let Some(k) = widest else { break };
            match splitter.split(prims, &spans[k]) {
                None => leaf[k] = true,
                Some((a, b)) => {
                    (spans[k], spans[count]) = (a, b);
                    (areas[k], areas[count]) = (V::half_area(a.min, a.max), V::half_area(b.min, b.max));
                    count += 1;
                }
            }
        }
        // The children: leaves, or new wide nodes that start from their own split.
        for lane in 0..count {
            let s = &spans[lane];
            match if leaf[lane] { None } else { splitter.split(prims, s) } {
                None => nodes[node].set_child(lane, leaf_child(s), s.min, s.max),
                Some((a, b)) => {
                    let child = nodes.len();
                    nodes[node].set_child(lane, Child::Inner(child as u32), s.min, s.max);
                    nodes.push(N::EMPTY);
                    tasks.push((child, a, b));
                }
            }
        }
    }
    nodes.shrink_to_fit();
    nodes
}

fn leaf_child<V: BuildVector>(span: &Span<V>) -> Child {
    Child::Leaf { first: span.start, count: span.end - span.start }
}

/// Chooses and applies splits; owns the bins so they are not re-created per range.
struct Splitter<V: BuildVector> {
    params: BuildParams,
    /// Per axis, per bin: the box and the number of records.
    bins: [[V::Bin; BIN_COUNT]; 3],
}

/// A split plane: the primitives whose bin on `axis` is below `bin` go left.
#[derive(Clone, Copy, Debug)]
struct Plane<V> {
    axis: usize,
    bin: usize,
    /// `A_left · N_left + A_right · N_right`.
    cost: f32,
    left_min: V,
    left_max: V,
    right_min: V,
    right_max: V,
}

impl<V: BuildVector> Splitter<V> {
    fn new(params: BuildParams) -> Self {
        Self { params, bins: [[V::EMPTY_BIN; BIN_COUNT]; 3] }
    }

    /// Splits `span` in two (reordering its records), or returns `None` to make it a leaf.
    fn split(&mut self, prims: &mut [V::Prim], span: &Span<V>) -> Option<(Span<V>, Span<V>)> {
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
    fn binned_split(&mut self, prims: &mut [V::Prim], span: &Span<V>) -> Option<(Span<V>, Span<V>)> {
        let n = span.len();
        let bins = bins_for(n);
        // The bins divide the range's box, doubled like the centers (which it contains), rather
        // than the bounds of the centers themselves: those would cost one more pass over the
        // records of every partition, and the tree's SAH cost changes by under 0.5% on the bunny
        // and torus benchmarks.
        let (low, high) = (span.min.mul(V::splat(2.0)), span.max.mul(V::splat(2.0)));
        let scale = V::bin_scale(high.sub(low), bins);
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
        if !self.params.worth_splitting(n, V::half_area(span.min, span.max), plane.cost) {
            return None;
        }
        // The bin is a non-decreasing function of the center (see `bin_coordinates`), so the
        // records that bin left are exactly those whose center is at most the last value that
        // bins left: the partition compares one float per record instead of recomputing bins.
        // The doubled box brackets that value: its low corner bins to 0, its high one to the last
        // bin, and `plane.bin` lies in between.
        let axis = plane.axis;
        let last = (bins - 1) as f32;
        let bin = |c: f32| V::bins_of(V::splat(c), low, scale, last)[axis];
        let guess = low.axis(axis) + plane.bin as f32 / scale.axis(axis);
        let threshold = last_below(low.axis(axis), high.axis(axis), guess, |c| bin(c) < plane.bin);
        let (mid, mut left, mut right) = if step > 1 {
            partition::<V, true>(range, axis, threshold)
        } else {
            let (mid, mut left, mut right) = partition::<V, false>(range, axis, threshold);
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
        range: &[V::Prim],
        step: usize,
        bins: usize,
        origin: V,
        scale: V,
    ) -> Option<Plane<V>> {
        let last = (bins - 1) as f32;
        for axis_bins in &mut self.bins {
            axis_bins[..bins].fill(V::EMPTY_BIN);
        }
        for p in range.iter().step_by(step) {
            let b = V::bins_of(V::prim_center2(p), origin, scale, last);
            for (axis_bins, &b) in self.bins.iter_mut().zip(&b).take(V::DIM) {
                V::bin_add(&mut axis_bins[b], p);
            }
        }
        // Sweep all axes at once (SIMD lanes = axes; a missing third axis has empty bins):
        // right to left for `A · N` of bins[i..], then left to right for the cost of each plane.
        let all_bins = &self.bins;
        let count_at = |i: usize| Vec3A::from_array(std::array::from_fn(|a| V::bin_count(&all_bins[a][i])));
        let grow = |lo: &mut [V; 3], hi: &mut [V; 3], i: usize| {
            for a in 0..3 {
                let (min, max) = V::bin_box(&all_bins[a][i]);
                (lo[a], hi[a]) = (lo[a].min(min), hi[a].max(max));
            }
        };
        let mut right_cost = [Vec3A::ZERO; BIN_COUNT];
        let (mut lo, mut hi, mut count) = ([V::INFINITY; 3], [V::NEG_INFINITY; 3], Vec3A::ZERO);
        for i in (1..bins).rev() {
            grow(&mut lo, &mut hi, i);
            count += count_at(i);
            right_cost[i] = V::half_areas(lo, hi) * count;
        }
        let n = Vec3A::splat(range.len().div_ceil(step) as f32);
        let (mut best_cost, mut best_bin) = (Vec3A::INFINITY, Vec3A::ZERO);
        let (mut lo, mut hi, mut count) = ([V::INFINITY; 3], [V::NEG_INFINITY; 3], Vec3A::ZERO);
        for (i, &right) in right_cost.iter().enumerate().take(bins).skip(1) {
            grow(&mut lo, &mut hi, i - 1);
            count += count_at(i - 1);
            let cost = V::half_areas(lo, hi) * count + right;
            // A plane with every primitive on one side is no split.
            let better = cost.cmplt(best_cost) & count.cmpgt(Vec3A::ZERO) & count.cmplt(n);
            best_cost = Vec3A::select(better, cost, best_cost);
            best_bin = Vec3A::select(better, Vec3A::splat(i as f32), best_bin);
        }
        let axis = (1..V::DIM).fold(0, |best, a| if best_cost[a] < best_cost[best] { a } else { best });
        let (cost, bin) = (best_cost[axis], best_bin[axis] as usize);
        if bin == 0 {
            return None;
        }
        let union = |r: std::ops::Range<usize>| {
            all_bins[axis][r]
                .iter()
                .map(V::bin_box)
                .fold((V::INFINITY, V::NEG_INFINITY), |(lo, hi), (min, max)| (lo.min(min), hi.max(max)))
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

/// Ranges of more records than this (1 MiB of 32-byte records, about a core's L2 cache) are
/// partitioned by [`hoare_partition`], smaller ones by [`lomuto_partition`].
const CACHED: usize = 1 << 15;

/// Moves the records whose doubled center on `axis` is at most `threshold` to the front and
/// returns how many went left, with the spans of both sides: their boxes if `BOXES`, else empty
/// spans (the caller knows the boxes from the bins).
///
/// Cached ranges take Lomuto's branch-free scheme, whose cost does not depend on how predictable
/// the sides are; larger ones Hoare's (also without branches on the sides), which reads each
/// record once and writes only those it moves, since there memory traffic is what costs.
fn partition<V: BuildVector, const BOXES: bool>(
    range: &mut [V::Prim],
    axis: usize,
    threshold: f32,
) -> (usize, Span<V>, Span<V>) {
    if range.len() > CACHED {
        hoare_partition::<V, BOXES>(range, axis, threshold)
    } else {
        lomuto_partition::<V, BOXES>(range, axis, threshold)
    }
}

/// [`partition`] by Lomuto's scheme without branches: each record is swapped with the first one
/// that went right, and the left count grows by its side. The boxes, if asked for, are then
/// gathered by one sequential pass over each side.
fn lomuto_partition<V: BuildVector, const BOXES: bool>(
    range: &mut [V::Prim],
    axis: usize,
    threshold: f32,
) -> (usize, Span<V>, Span<V>) {
    // One loop per axis, so that reading the center's coordinate is a fixed lane.
    let mid = match axis {
        0 => lomuto_swaps::<V, 0>(range, threshold),
        1 => lomuto_swaps::<V, 1>(range, threshold),
        _ => lomuto_swaps::<V, 2>(range, threshold),
    };
    let mut left = Span::empty();
    let mut right = Span::empty();
    if BOXES {
        range[..mid].iter().for_each(|p| left.grow(p));
        range[mid..].iter().for_each(|p| right.grow(p));
    }
    (mid, left, right)
}

/// The swaps of [`lomuto_partition`] on axis `AXIS`; returns how many records went left.
fn lomuto_swaps<V: BuildVector, const AXIS: usize>(range: &mut [V::Prim], threshold: f32) -> usize {
    let mut mid = 0;
    for i in 0..range.len() {
        // Both records in registers, so the swap does not go through a temporary in memory.
        let (p, q) = (range[i], range[mid]);
        let goes_left = V::prim_center2(&p).axis(AXIS) <= threshold;
        range[i] = q;
        range[mid] = p;
        mid += usize::from(goes_left);
    }
    mid
}

/// [`partition`] by Hoare's scheme: the first record from the left that goes right is swapped
/// with the first from the right that goes left, and so on.
///
/// The records are classified a block at each end at a time, without branches, as in
/// BlockQuicksort (Edelkamp and Weiß, "BlockQuicksort: How Branch Mispredictions don't affect
/// Quicksort", 2016): the offsets of the records on the wrong side are listed, then swapped in
/// pairs; a block whose records are all in place is done, and its bounds are gathered while it is
/// in cache. The pairs are the same as one record at a time, which finishes the last blocks.
fn hoare_partition<V: BuildVector, const BOXES: bool>(
    range: &mut [V::Prim],
    axis: usize,
    threshold: f32,
) -> (usize, Span<V>, Span<V>) {
    const BLOCK: usize = 128;
    let goes_left = |p: &V::Prim| V::prim_center2(p).axis(axis) <= threshold;
    let grow = |span: &mut Span<V>, p: &V::Prim| {
        if BOXES {
            span.grow(p);
        }
    };
    let mut left = Span::empty();
    let mut right = Span::empty();
    let (mut i, mut j) = (0, range.len());
    // The offsets of the records that go right in `range[i..i + BLOCK]` (from `i`) and of those
    // that go left in `range[j - BLOCK..j]` (from `j - 1`); those at `*_done..*_count` are still
    // to be swapped.
    let mut wrong_left = [0u8; BLOCK];
    let mut wrong_right = [0u8; BLOCK];
    let (mut left_done, mut left_count, mut right_done, mut right_count) = (0, 0, 0, 0);
    while j - i >= 2 * BLOCK {
        if left_done == left_count {
            (left_done, left_count) = (0, 0);
            for (k, p) in range[i..i + BLOCK].iter().enumerate() {
                wrong_left[left_count] = k as u8;
                left_count += usize::from(!goes_left(p));
            }
        }
        if right_done == right_count {
            (right_done, right_count) = (0, 0);
            for (k, p) in range[j - BLOCK..j].iter().rev().enumerate() {
                wrong_right[right_count] = k as u8;
                right_count += usize::from(goes_left(p));
            }
        }
        let pairs = (left_count - left_done).min(right_count - right_done);
        for (&a, &b) in wrong_left[left_done..left_done + pairs].iter().zip(&wrong_right[right_done..]) {
            range.swap(i + a as usize, j - 1 - b as usize);
        }
        (left_done, right_done) = (left_done + pairs, right_done + pairs);
        if left_done == left_count {
            for p in &range[i..i + BLOCK] {
                grow(&mut left, p);
            }
            i += BLOCK;
        }
        if right_done == right_count {
            for p in &range[j - BLOCK..j] {
                grow(&mut right, p);
            }
            j -= BLOCK;
        }
    }
    loop {
        while i < j {
            let p = &range[i];
            if !goes_left(p) {
                break;
            }
            grow(&mut left, p);
            i += 1;
        }
        while i < j {
            let p = &range[j - 1];
            if goes_left(p) {
                break;
            }
            grow(&mut right, p);
            j -= 1;
        }
        if i == j {
            break;
        }
        // range[i] goes right and range[j - 1] goes left (so i < j - 1): swap them.
        range.swap(i, j - 1);
        grow(&mut left, &range[i]);
        grow(&mut right, &range[j - 1]);
        i += 1;
        j -= 1;
    }
    (i, left, right)
}

/// Splits at the median center along the axis of largest extent (used past
/// [`SAH_DEPTH`] and when all centers coincide).
fn median_split<V: BuildVector>(prims: &mut [V::Prim], span: &Span<V>) -> (Span<V>, Span<V>) {
    let extent = span.max.sub(span.min);
    let axis = (0..V::DIM).fold(0, |best, a| if extent.axis(a) > extent.axis(best) { a } else { best });
    let (start, end) = (span.start as usize, span.end as usize);
    let mid = (end - start) / 2;
    prims[start..end].select_nth_unstable_by(mid, |a, b| {
        V::prim_center2(a).axis(axis).total_cmp(&V::prim_center2(b).axis(axis))
    });
    let mid = start + mid;
    (Span::over(prims, start, mid, span.depth + 1), Span::over(prims, mid, end, span.depth + 1))
}

/// Packs `(id, min, max)` boxes into build records and returns them with their span.
fn pack_all<V: BuildVector>(boxes: impl Iterator<Item = (u32, V, V)>) -> (Vec<V::Prim>, Span<V>) {
    let mut span = Span::<V>::empty();
    // `collect` over an iterator of known length writes the records without a capacity check per
    // record, whose possible call into the allocator would keep the bounds out of registers.
    let prims: Vec<V::Prim> = boxes
        .map(|(id, min, max)| {
            let p = V::pack(min, max, id);
            span.min = span.min.min(min);
            span.max = span.max.max(max);
            p
        })
        .collect();
    span.end = prims.len() as u32;
    (prims, span)
}

// ---- The 3D entry points ----

/// Build settings for [`Bvh3::build_with`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BvhSettings {
    /// Most primitives per leaf, `1..=15`.
    pub max_leaf_size: usize,
    /// SAH cost of a node visit relative to one primitive test.
    pub traversal_cost: f32,
}

impl Default for BvhSettings {
    fn default() -> Self {
        Self { max_leaf_size: 4, traversal_cost: 1.0 }
    }
}

impl Bvh3 {
    /// Builds the hierarchy over `boxes` with default settings.
    ///
    /// Boxes that are inverted or have a non-finite coordinate are left out (no query can reach
    /// them); [`Bvh3::leaf_order`] then lists fewer primitives than `boxes` has. Only the first
    /// [`MAX_PRIMITIVES`] boxes are used.
    pub fn build(boxes: &[Aabb3]) -> Bvh3 {
        Self::build_with(boxes, BvhSettings::default())
    }

    /// [`Bvh3::build`] with explicit settings (`max_leaf_size` is clamped to `1..=15`, a negative
    /// or NaN `traversal_cost` counts as zero).
    pub fn build_with(boxes: &[Aabb3], settings: BvhSettings) -> Bvh3 {
        let valid = boxes
            .iter()
            .take(MAX_PRIMITIVES)
            .enumerate()
            .filter(|(_, b)| b.is_valid())
            .map(|(i, b)| (i as u32, Vec3A::from(b.min), Vec3A::from(b.max)));
        Self::build_from_boxes(valid, settings)
    }

    /// Builds over `(id, min, max)` boxes computed on the fly. The caller guarantees what
    /// [`Bvh3::build_with`] checks: finite boxes with `min <= max`, ids below
    /// [`MAX_PRIMITIVES`], at most that many boxes.
    pub(crate) fn build_from_boxes(
        boxes: impl Iterator<Item = (u32, Vec3A, Vec3A)>,
        settings: BvhSettings,
    ) -> Bvh3 {
        let (mut prims, root) = pack_all(boxes);
        if prims.is_empty() {
            return Bvh3::default();
        }
        let params = BuildParams {
            max_leaf: settings.max_leaf_size.clamp(1, 15),
            traversal_cost: settings.traversal_cost.max(0.0),
        };
        let mut nodes = build_wide::<Vec3A, Node4>(&mut prims, root, params);
        nodes.iter_mut().for_each(Node4::update_order);
        let leaf_order = prims.iter().map(<Vec3A as BuildVector>::prim_id).collect();
        Bvh3 { nodes, leaf_order }
    }

    /// Builds over groups of consecutive ids that the tree keeps in one leaf: group `k` holds the
    /// ids `starts[k]..starts[k + 1]` and `boxes` gives its box with id `k`.
    ///
    /// Binning a fraction of the records makes the build that much shorter where the groups are
    /// large. `settings` count groups, and `max_leaf_size` is clamped to `1..=15 / longest group`
    /// so that a leaf holds at most 15 ids; the tree's leaf ranges and [`Bvh3::leaf_order`] count
    /// ids. The caller guarantees what [`Bvh3::build_from_boxes`] asks of the boxes, and `starts`
    /// rising strictly from 0 by at most 15, one entry longer than `boxes`.
    pub(crate) fn build_from_groups(
        boxes: impl Iterator<Item = (u32, Vec3A, Vec3A)>,
        starts: &[u32],
        settings: BvhSettings,
    ) -> Bvh3 {
        let longest = starts.windows(2).map(|run| run[1] - run[0]).max().unwrap_or(1).clamp(1, 15);
        let most = 15 / longest as usize;
        let settings = BvhSettings { max_leaf_size: settings.max_leaf_size.clamp(1, most), ..settings };
        let Bvh3 { mut nodes, leaf_order: group_order } = Self::build_from_boxes(boxes, settings);
        // `position[g]`: where the `g`-th group in leaf order starts among the ids.
        let mut position = Vec::with_capacity(group_order.len() + 1);
        let mut leaf_order = Vec::with_capacity(starts.last().map_or(0, |&n| n as usize));
        for &group in &group_order {
            position.push(leaf_order.len() as u32);
            leaf_order.extend(starts[group as usize]..starts[group as usize + 1]);
        }
        position.push(leaf_order.len() as u32);
        for code in nodes.iter_mut().flat_map(|node| &mut node.child) {
            if let Child::Leaf { first, count } = Child::decode(*code) {
                let (first, end) = (position[first as usize], position[(first + count) as usize]);
                *code = Child::Leaf { first, count: end - first }.encode();
            }
        }
        Bvh3 { nodes, leaf_order }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wide node of the 2D tests: child boxes as plain arrays.
    #[derive(Clone, Copy, Debug)]
    struct Node2 {
        child: [Child; 4],
        min: [Vec2; 4],
        max: [Vec2; 4],
    }

    impl WideNode<Vec2> for Node2 {
        const EMPTY: Self = Node2 { child: [Child::Empty; 4], min: [Vec2::ZERO; 4], max: [Vec2::ZERO; 4] };
        fn set_child(&mut self, lane: usize, child: Child, min: Vec2, max: Vec2) {
            self.child[lane] = child;
            self.min[lane] = min;
            self.max[lane] = max;
        }
    }

    fn params(max_leaf: usize) -> BuildParams {
        BuildParams { max_leaf, traversal_cost: 1.0 }
    }

    /// Builds a 3D tree over the boxes and checks it: every primitive in exactly one leaf, child
    /// boxes tight around their contents, leaves within the size limit, depth within
    /// [`MAX_DEPTH`], children after their parents. Returns the number of wide levels.
    fn build_and_check(boxes: &[(Vec3A, Vec3A)], max_leaf: usize) -> usize {
        let (mut prims, root) =
            pack_all(boxes.iter().enumerate().map(|(i, &(min, max))| (i as u32, min, max)));
        let nodes = build_wide::<Vec3A, Node4>(&mut prims, root, params(max_leaf));
        let order: Vec<u32> = prims.iter().map(<Vec3A as BuildVector>::prim_id).collect();
        let mut seen = vec![false; boxes.len()];
        let mut stack = vec![(0usize, 1usize)];
        let mut levels = 0;
        while let Some((i, depth)) = stack.pop() {
            levels = levels.max(depth);
            let node = nodes[i];
            for lane in 0..4 {
                let b = node.child_box(lane);
                let (lo, hi) = match Child::decode(node.child[lane]) {
                    Child::Empty => continue,
                    Child::Inner(child) => {
                        assert!(child as usize > i, "children come after their parent");
                        stack.push((child as usize, depth + 1));
                        let inner = nodes[child as usize];
                        let bounds = (0..4)
                            .filter(|&l| inner.child[l] != 0)
                            .fold(Aabb3::EMPTY, |acc, l| acc.merge(&inner.child_box(l)));
                        (bounds.min, bounds.max)
                    }
                    Child::Leaf { first, count } => {
                        assert!(count >= 1 && count as usize <= max_leaf.max(1) || boxes.len() <= max_leaf);
                        let mut bounds = Aabb3::EMPTY;
                        for &id in &order[first as usize..(first + count) as usize] {
                            let (min, max) = boxes[id as usize];
                            bounds = bounds.merge(&Aabb3::new(min.into(), max.into()));
                            assert!(!seen[id as usize], "primitive in two leaves");
                            seen[id as usize] = true;
                        }
                        (bounds.min, bounds.max)
                    }
                };
                assert_eq!((b.min, b.max), (lo, hi), "child box is the tight box of its contents");
            }
        }
        assert!(seen.iter().all(|&s| s), "primitive missing");
        assert!(levels <= MAX_DEPTH);
        levels
    }

    fn boxes_on_a_line(n: usize) -> Vec<(Vec3A, Vec3A)> {
        (0..n)
            .map(|i| {
                let c = Vec3A::new(i as f32, 0.0, 0.0);
                (c - Vec3A::splat(0.4), c + Vec3A::splat(0.4))
            })
            .collect()
    }

    #[test]
    fn every_primitive_in_exactly_one_leaf() {
        for n in [1, 2, 3, 5, 12, 13, 17, 63, 64, 100, 1000, 5000] {
            for max_leaf in [1, 4, 15] {
                build_and_check(&boxes_on_a_line(n), max_leaf);
            }
        }
    }

    #[test]
    fn random_boxes_of_mixed_sizes() {
        let mut rng = kollide_testkit::random::rng(3);
        for n in [7, 50, 700, 20_000] {
            let boxes: Vec<_> = (0..n)
                .map(|i| {
                    let c = Vec3A::from(kollide_testkit::random::point3(&mut rng, 100.0));
                    let h = Vec3A::from(kollide_testkit::random::point3(
                        &mut rng,
                        if i % 10 == 0 { 30.0 } else { 1.0 },
                    ))
                    .abs();
                    (c - h, c + h)
                })
                .collect();
            build_and_check(&boxes, 4);
        }
    }

    #[test]
    fn groups_stay_together_in_one_leaf() {
        let mut rng = kollide_testkit::random::rng(5);
        for n in [1, 2, 3, 9, 200, 5000] {
            // Ids 0..n in groups of one to four, each id with its own random box.
            let boxes: Vec<Aabb3> = (0..n)
                .map(|_| {
                    let c = kollide_testkit::random::point3(&mut rng, 50.0);
                    let h = kollide_testkit::random::point3(&mut rng, 1.0).abs();
                    Aabb3::new(c - h, c + h)
                })
                .collect();
            let mut starts = vec![0u32];
            while (*starts.last().unwrap() as usize) < n {
                let next = starts.last().unwrap() + rand::Rng::random_range(&mut rng, 1..=4);
                starts.push(next.min(n as u32));
            }
            let group_boxes = starts.windows(2).enumerate().map(|(k, run)| {
                let b = boxes[run[0] as usize..run[1] as usize].iter().fold(Aabb3::EMPTY, |a, b| a.merge(b));
                (k as u32, Vec3A::from(b.min), Vec3A::from(b.max))
            });
            let bvh = Bvh3::build_from_groups(
                group_boxes,
                &starts,
                BvhSettings { max_leaf_size: 15, ..Default::default() },
            );
            let mut sorted = bvh.leaf_order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n as u32).collect::<Vec<_>>(), "every id once");
            let mut leaves = 0;
            for node in &bvh.nodes {
                for lane in 0..4 {
                    let Child::Leaf { first, count } = Child::decode(node.child[lane]) else { continue };
                    leaves += count;
                    assert!((1..=15).contains(&count), "n = {n}: leaf of {count}");
                    let ids = &bvh.leaf_order[first as usize..(first + count) as usize];
                    let bounds = ids.iter().fold(Aabb3::EMPTY, |a, &id| a.merge(&boxes[id as usize]));
                    assert_eq!(node.child_box(lane), bounds, "leaf box is tight");
                    for &id in ids {
                        let group = starts.partition_point(|&s| s <= id) - 1;
                        let (start, end) = (starts[group], starts[group + 1]);
                        assert!((start..end).all(|other| ids.contains(&other)), "group {group} split");
                    }
                }
            }
            assert_eq!(leaves as usize, n);
        }
    }

    #[test]
    fn coincident_centers_fall_back_to_median_splits() {
        let boxes = vec![(Vec3A::splat(-1.0), Vec3A::splat(1.0)); 1000];
        build_and_check(&boxes, 2);
        // Points (zero-area boxes) at one place.
        build_and_check(&vec![(Vec3A::ONE, Vec3A::ONE); 100], 4);
    }

    #[test]
    fn degenerate_chain_depth_stays_bounded() {
        // Exponentially spaced boxes make SAH peel one primitive per level; the depth cap must
        // switch to median splits.
        let boxes: Vec<_> = (0..3000)
            .map(|i| {
                let c = Vec3A::new(1.01f32.powi(i), 0.0, 0.0);
                (c, c + Vec3A::splat(1e-3))
            })
            .collect();
        build_and_check(&boxes, 1);
    }

    #[test]
    fn large_ids_survive_packing() {
        let id = MAX_PRIMITIVES as u32 - 1;
        let p = <Vec3A as BuildVector>::pack(Vec3A::splat(-3.0), Vec3A::splat(5.0), id);
        assert_eq!(<Vec3A as BuildVector>::prim_id(&p), id);
        assert_eq!(<Vec3A as BuildVector>::prim_min(&p).to_array(), [-3.0; 3]);
        assert_eq!(<Vec3A as BuildVector>::prim_center2(&p).to_array(), [2.0; 3]);
        assert!(p.min.w.is_normal());
    }

    #[test]
    fn huge_coordinates_still_build() {
        // Doubled boxes overflow to infinity; such axes are never binned, and every box still
        // lands in exactly one leaf with a containing parent box.
        let mut boxes = boxes_on_a_line(300);
        for (i, b) in boxes.iter_mut().enumerate() {
            let big = Vec3A::new(f32::MAX, -f32::MAX, 0.0) * (if i % 2 == 0 { 1.0 } else { 0.99 });
            *b = (b.0 + big, b.1 + big);
        }
        build_and_check(&boxes, 4);
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
        for _ in 0..2000 {
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
        let scale = <Vec3A as BuildVector>::bin_scale(Vec3A::splat(extent), BIN_COUNT);
        let bin =
            |c: f32| <Vec3A as BuildVector>::bins_of(Vec3A::splat(c), Vec3A::splat(origin), scale, 15.0)[0];
        for plane in 1..BIN_COUNT {
            let t = last_below(origin, origin + extent, origin + plane as f32 / scale.x, |c| bin(c) < plane);
            assert!(bin(t) < plane && bin(t.next_up()) >= plane, "plane {plane}");
        }
    }

    #[test]
    fn both_partition_schemes_split_by_the_threshold_with_tight_bounds() {
        let mut rng = kollide_testkit::random::rng(13);
        for n in [0, 1, 2, 7, 100, 1000] {
            let boxes: Vec<(u32, Vec3A, Vec3A)> = (0..n as u32)
                .map(|i| {
                    // Small-integer centers, so that many tie with the threshold.
                    let c = Vec3A::from(kollide_testkit::random::point3(&mut rng, 5.0)).round();
                    let h = Vec3A::from(kollide_testkit::random::point3(&mut rng, 1.0)).abs();
                    (i, c - h, c + h)
                })
                .collect();
            for (axis, threshold) in [(0, 0.0), (1, -3.0), (2, 20.0), (0, -20.0)] {
                for hoare in [false, true] {
                    let (mut prims, _) = pack_all(boxes.iter().copied());
                    let (mid, left, right) = if hoare {
                        hoare_partition::<Vec3A, true>(&mut prims, axis, threshold)
                    } else {
                        lomuto_partition::<Vec3A, true>(&mut prims, axis, threshold)
                    };
                    let goes_left = |p: &Prim3| <Vec3A as BuildVector>::prim_center2(p)[axis] <= threshold;
                    assert!(prims[..mid].iter().all(goes_left) && !prims[mid..].iter().any(goes_left));
                    let mut ids: Vec<u32> = prims.iter().map(<Vec3A as BuildVector>::prim_id).collect();
                    ids.sort_unstable();
                    assert!(ids.iter().copied().eq(0..n as u32), "every record kept once");
                    for (side, span) in [(&prims[..mid], left), (&prims[mid..], right)] {
                        let expected = Span::<Vec3A>::over(side, 0, side.len(), 0);
                        assert_eq!((span.min, span.max), (expected.min, expected.max));
                    }
                }
            }
        }
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
        for case in 0..3000 {
            let n = 2 + case % (SAMPLED - 2);
            let boxes: Vec<(u32, Vec3A, Vec3A)> = (0..n as u32)
                .map(|i| {
                    let c = Vec3A::from(kollide_testkit::random::point3(&mut rng, 10.0));
                    let h = Vec3A::from(kollide_testkit::random::point3(&mut rng, 2.0)).abs();
                    (i, c - h, c + h)
                })
                .collect();
            let (mut prims, root) = pack_all(boxes.iter().copied());
            let split = Splitter::<Vec3A>::new(params).split(&mut prims, &root);
            let bins = bins_for(n);
            let low = root.min * 2.0;
            let scale = Vec3A::bin_scale(root.max * 2.0 - low, bins);
            let mut best = f32::INFINITY;
            for axis in 0..3 {
                for plane in 1..bins {
                    let (left, right): (Vec<_>, Vec<_>) = boxes.iter().partition(|b| {
                        Vec3A::bins_of(b.1 + b.2, low, scale, (bins - 1) as f32)[axis] < plane
                    });
                    if left.is_empty() || right.is_empty() {
                        continue;
                    }
                    let ((l0, l1), (r0, r1)) = (union(&left), union(&right));
                    let cost = Vec3A::half_area(l0, l1) * left.len() as f32
                        + Vec3A::half_area(r0, r1) * right.len() as f32;
                    best = best.min(cost);
                }
            }
            match split {
                Some((l, r)) => {
                    let cost = Vec3A::half_area(l.min, l.max) * l.len() as f32
                        + Vec3A::half_area(r.min, r.max) * r.len() as f32;
                    assert!(cost <= best * (1.0 + 1e-5), "case {case}: {cost} vs best {best}");
                    // The sides hold the records of their boxes.
                    for (side, span) in [(&prims[..l.len()], l), (&prims[l.len()..], r)] {
                        let expected = Span::<Vec3A>::over(side, 0, side.len(), 0);
                        assert_eq!((span.min, span.max), (expected.min, expected.max), "case {case}");
                    }
                }
                None => {
                    assert!(n <= params.max_leaf, "case {case}");
                    assert!(!params.worth_splitting(
                        n,
                        Vec3A::half_area(root.min, root.max),
                        best * (1.0 - 1e-5)
                    ));
                }
            }
        }
    }

    #[test]
    fn builds_in_2d() {
        let boxes: Vec<(u32, Vec2, Vec2)> = (0..500)
            .map(|i| {
                let c = Vec2::new((i % 25) as f32, (i / 25) as f32);
                (i, c - Vec2::splat(0.3), c + Vec2::splat(0.3))
            })
            .collect();
        let (mut prims, root) = pack_all(boxes.iter().copied());
        let nodes = build_wide::<Vec2, Node2>(&mut prims, root, params(4));
        let mut seen = vec![0; boxes.len()];
        for node in &nodes {
            for lane in 0..4 {
                if let Child::Leaf { first, count } = node.child[lane] {
                    for p in &prims[first as usize..(first + count) as usize] {
                        let (_, min, max) = boxes[p.id as usize];
                        assert!(min.cmpge(node.min[lane]).all() && max.cmple(node.max[lane]).all());
                        seen[p.id as usize] += 1;
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }
}
