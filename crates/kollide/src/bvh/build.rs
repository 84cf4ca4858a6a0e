//! Binned SAH construction of a binary BVH, generic over the dimension.
//!
//! Each primitive is a box; it goes entirely to the side of the split its box center falls on, so
//! every primitive ends up in exactly one leaf (no duplication, seed 000). Split candidates are the
//! planes between `BIN_COUNT` equal bins of the center range on every axis, scored by the surface
//! area heuristic (MacDonald and Booth 1990; binning after Wald, "On fast Construction of SAH-based
//! Bounding Volume Hierarchies", 2007).
//!
//! The build is iterative (an explicit task list, no recursion) and moves primitive records in
//! place, so every pass over a node's primitives reads memory sequentially.

use super::wide::{Bvh3, Child, MAX_PRIMITIVES, Node4};
use crate::bounds::Aabb3;
use glam::{Vec2, Vec3A};

/// The vector operations the builder needs, for `Vec2` (2D) and `Vec3A` (3D).
pub(crate) trait BuildVector: Copy + Send + Sync + 'static {
    const DIM: usize;
    const INFINITY: Self;
    const NEG_INFINITY: Self;
    fn min(self, other: Self) -> Self;
    fn max(self, other: Self) -> Self;
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    fn axis(self, axis: usize) -> f32;
    /// The SAH cost measure of the box `[min, max]`: half its surface area (3D) or perimeter (2D);
    /// zero for an inverted box.
    fn half_area(min: Self, max: Self) -> f32;
}

impl BuildVector for Vec3A {
    const DIM: usize = 3;
    const INFINITY: Self = Vec3A::INFINITY;
    const NEG_INFINITY: Self = Vec3A::NEG_INFINITY;
    #[inline]
    fn min(self, other: Self) -> Self {
        Vec3A::min(self, other)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        Vec3A::max(self, other)
    }
    #[inline]
    fn add(self, other: Self) -> Self {
        self + other
    }
    #[inline]
    fn sub(self, other: Self) -> Self {
        self - other
    }
    #[inline]
    fn axis(self, axis: usize) -> f32 {
        self[axis]
    }
    #[inline]
    fn half_area(min: Self, max: Self) -> f32 {
        let d = (max - min).max(Vec3A::ZERO);
        d.x * d.y + d.y * d.z + d.z * d.x
    }
}

impl BuildVector for Vec2 {
    const DIM: usize = 2;
    const INFINITY: Self = Vec2::INFINITY;
    const NEG_INFINITY: Self = Vec2::NEG_INFINITY;
    #[inline]
    fn min(self, other: Self) -> Self {
        Vec2::min(self, other)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        Vec2::max(self, other)
    }
    #[inline]
    fn add(self, other: Self) -> Self {
        self + other
    }
    #[inline]
    fn sub(self, other: Self) -> Self {
        self - other
    }
    #[inline]
    fn axis(self, axis: usize) -> f32 {
        self[axis]
    }
    #[inline]
    fn half_area(min: Self, max: Self) -> f32 {
        let d = (max - min).max(Vec2::ZERO);
        d.x + d.y
    }
}

/// One primitive during the build: its box and its caller-given id.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BuildPrim<V> {
    pub min: V,
    pub max: V,
    pub id: u32,
}

impl<V: BuildVector> BuildPrim<V> {
    #[inline]
    fn center2(&self) -> V {
        // Twice the center; the factor cancels in binning.
        self.min.add(self.max)
    }
}

/// A node of the binary tree: a box and either two children or a run of primitives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BinaryNode<V> {
    pub min: V,
    pub max: V,
    pub kind: BinaryKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinaryKind {
    /// Children at `left` and `left + 1`.
    Inner { left: u32 },
    /// Primitives `first .. first + count` of [`BinaryTree::order`].
    Leaf { first: u32, count: u32 },
}

/// A binary BVH: nodes (root at 0) and the primitive ids in leaf order.
pub(crate) struct BinaryTree<V> {
    pub nodes: Vec<BinaryNode<V>>,
    pub order: Vec<u32>,
}

/// Build parameters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BuildParams {
    /// A node with more primitives than this is always split.
    pub max_leaf: usize,
    /// SAH cost of visiting a node, relative to one primitive test.
    pub traversal_cost: f32,
}

const BIN_COUNT: usize = 16;

/// Below this depth SAH chooses splits; deeper nodes are split at the median, which halves the
/// count each level. So a tree over `n < 2^28` primitives is at most `SAH_DEPTH + 28` deep, which
/// bounds the traversal stacks.
pub(crate) const SAH_DEPTH: usize = 36;

/// The deepest a tree built here can be (root at depth 0).
pub(crate) const MAX_DEPTH: usize = SAH_DEPTH + 28;

#[derive(Clone, Copy)]
struct Bin<V> {
    min: V,
    max: V,
    count: u32,
}

impl<V: BuildVector> Bin<V> {
    const EMPTY: Self = Self { min: V::INFINITY, max: V::NEG_INFINITY, count: 0 };
}

struct Task {
    node: usize,
    start: usize,
    end: usize,
    depth: usize,
}

/// Builds a binary BVH over `prims` (reordered in place into leaf order). `prims` must hold fewer
/// than 2²⁸ primitives with finite boxes.
pub(crate) fn build_binary<V: BuildVector>(prims: &mut [BuildPrim<V>], params: BuildParams) -> BinaryTree<V> {
    let mut nodes = Vec::with_capacity(2 * prims.len() / params.max_leaf.max(1) + 1);
    let (min, max) = bounds_of(prims);
    nodes.push(BinaryNode { min, max, kind: BinaryKind::Leaf { first: 0, count: prims.len() as u32 } });
    let mut tasks = vec![Task { node: 0, start: 0, end: prims.len(), depth: 0 }];
    while let Some(task) = tasks.pop() {
        let node = nodes[task.node];
        let range = &mut prims[task.start..task.end];
        let Some(split) = choose_split(range, node.min, node.max, task.depth, params) else {
            nodes[task.node].kind = BinaryKind::Leaf { first: task.start as u32, count: range.len() as u32 };
            continue;
        };
        let mid = task.start + split.left_count;
        let left = nodes.len();
        nodes.push(BinaryNode {
            min: split.left_min,
            max: split.left_max,
            kind: BinaryKind::Leaf { first: 0, count: 0 },
        });
        nodes.push(BinaryNode {
            min: split.right_min,
            max: split.right_max,
            kind: BinaryKind::Leaf { first: 0, count: 0 },
        });
        nodes[task.node].kind = BinaryKind::Inner { left: left as u32 };
        tasks.push(Task { node: left + 1, start: mid, end: task.end, depth: task.depth + 1 });
        tasks.push(Task { node: left, start: task.start, end: mid, depth: task.depth + 1 });
    }
    BinaryTree { nodes, order: prims.iter().map(|p| p.id).collect() }
}

fn bounds_of<V: BuildVector>(prims: &[BuildPrim<V>]) -> (V, V) {
    prims.iter().fold((V::INFINITY, V::NEG_INFINITY), |(lo, hi), p| (lo.min(p.min), hi.max(p.max)))
}

/// A chosen split, applied: `range[..left_count]` went left.
struct Split<V> {
    left_count: usize,
    left_min: V,
    left_max: V,
    right_min: V,
    right_max: V,
}

/// Picks and applies the split of `range` (box `[min, max]`), or `None` to make it a leaf.
fn choose_split<V: BuildVector>(
    range: &mut [BuildPrim<V>],
    min: V,
    max: V,
    depth: usize,
    params: BuildParams,
) -> Option<Split<V>> {
    let n = range.len();
    if n <= 1 {
        return None;
    }
    let (center_min, center_max) = range
        .iter()
        .fold((V::INFINITY, V::NEG_INFINITY), |(lo, hi), p| (lo.min(p.center2()), hi.max(p.center2())));
    let extent = center_max.sub(center_min);
    if depth < SAH_DEPTH {
        if let Some(plane) = best_sah_plane(range, center_min, extent, min, max, params) {
            return Some(partition_at(range, plane, center_min, extent));
        }
        if n <= params.max_leaf {
            return None;
        }
    } else if n <= params.max_leaf {
        return None;
    }
    Some(median_split(range, extent))
}

/// A split plane: primitives whose bin on `axis` is below `bin` go left.
#[derive(Clone, Copy)]
struct Plane {
    axis: usize,
    bin: usize,
}

#[inline]
fn bin_index(center2: f32, lo: f32, scale: f32) -> usize {
    // `as usize` saturates (NaN gives 0), and the min keeps the top edge in the last bin.
    (((center2 - lo) * scale) as usize).min(BIN_COUNT - 1)
}

#[inline]
fn bin_scale(extent: f32) -> f32 {
    if extent > 0.0 { BIN_COUNT as f32 * (1.0 - 1e-6) / extent } else { 0.0 }
}

/// The SAH-best plane over all axes, if it beats making `range` a leaf.
fn best_sah_plane<V: BuildVector>(
    range: &[BuildPrim<V>],
    center_min: V,
    extent: V,
    min: V,
    max: V,
    params: BuildParams,
) -> Option<Plane> {
    let n = range.len();
    let mut bins = [[Bin::<V>::EMPTY; BIN_COUNT]; 3];
    let scales: [f32; 3] =
        std::array::from_fn(|axis| if axis < V::DIM { bin_scale(extent.axis(axis)) } else { 0.0 });
    for p in range {
        let c = p.center2();
        for axis in 0..V::DIM {
            let bin = &mut bins[axis][bin_index(c.axis(axis), center_min.axis(axis), scales[axis])];
            bin.min = bin.min.min(p.min);
            bin.max = bin.max.max(p.max);
            bin.count += 1;
        }
    }
    // Cost of a leaf, and of a split, in units of "one primitive test over the parent's area":
    // SAH(split) = traversal + (A_left N_left + A_right N_right) / A_parent.
    let parent_area = V::half_area(min, max);
    let leaf_cost = n as f32;
    let mut best: Option<(f32, Plane)> = None;
    for (axis, axis_bins) in bins.iter().enumerate().take(V::DIM) {
        if scales[axis] == 0.0 {
            continue;
        }
        // Right-to-left sweep: area and count of bins[i..].
        let mut right_cost = [0.0f32; BIN_COUNT];
        let (mut lo, mut hi, mut count) = (V::INFINITY, V::NEG_INFINITY, 0u32);
        for i in (1..BIN_COUNT).rev() {
            lo = lo.min(axis_bins[i].min);
            hi = hi.max(axis_bins[i].max);
            count += axis_bins[i].count;
            right_cost[i] = V::half_area(lo, hi) * count as f32;
        }
        let (mut lo, mut hi, mut count) = (V::INFINITY, V::NEG_INFINITY, 0u32);
        for i in 1..BIN_COUNT {
            lo = lo.min(axis_bins[i - 1].min);
            hi = hi.max(axis_bins[i - 1].max);
            count += axis_bins[i - 1].count;
            if count == 0 || count as usize == n {
                continue;
            }
            let cost = V::half_area(lo, hi) * count as f32 + right_cost[i];
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, Plane { axis, bin: i }));
            }
        }
    }
    let (cost, plane) = best?;
    let split_cost = params.traversal_cost + if parent_area > 0.0 { cost / parent_area } else { n as f32 };
    (n > params.max_leaf || split_cost < leaf_cost).then_some(plane)
}

/// Moves the primitives of bins below `plane.bin` to the front; returns the two sides' boxes.
fn partition_at<V: BuildVector>(
    range: &mut [BuildPrim<V>],
    plane: Plane,
    center_min: V,
    extent: V,
) -> Split<V> {
    let (lo, scale) = (center_min.axis(plane.axis), bin_scale(extent.axis(plane.axis)));
    let goes_left = |p: &BuildPrim<V>| bin_index(p.center2().axis(plane.axis), lo, scale) < plane.bin;
    let (mut i, mut j) = (0, range.len());
    while i < j {
        if goes_left(&range[i]) {
            i += 1;
        } else {
            j -= 1;
            range.swap(i, j);
        }
    }
    split_with_bounds(range, i)
}

/// Splits at the median center along the axis of largest center extent (used below
/// [`SAH_DEPTH`] and when all centers coincide).
fn median_split<V: BuildVector>(range: &mut [BuildPrim<V>], extent: V) -> Split<V> {
    let axis = (0..V::DIM).fold(0, |best, a| if extent.axis(a) > extent.axis(best) { a } else { best });
    let mid = range.len() / 2;
    range.select_nth_unstable_by(mid, |a, b| a.center2().axis(axis).total_cmp(&b.center2().axis(axis)));
    split_with_bounds(range, mid)
}

fn split_with_bounds<V: BuildVector>(range: &[BuildPrim<V>], mid: usize) -> Split<V> {
    let (left_min, left_max) = bounds_of(&range[..mid]);
    let (right_min, right_max) = bounds_of(&range[mid..]);
    Split { left_count: mid, left_min, left_max, right_min, right_max }
}

// ---- From the binary tree to the 4-wide [`Bvh3`] ----

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

    /// [`Bvh3::build`] with explicit settings (`max_leaf_size` is clamped to `1..=15`).
    pub fn build_with(boxes: &[Aabb3], settings: BvhSettings) -> Bvh3 {
        let mut prims: Vec<BuildPrim<Vec3A>> = boxes
            .iter()
            .take(MAX_PRIMITIVES)
            .enumerate()
            .filter(|(_, b)| b.is_valid())
            .map(|(i, b)| BuildPrim { min: b.min.into(), max: b.max.into(), id: i as u32 })
            .collect();
        if prims.is_empty() {
            return Bvh3::default();
        }
        let params = BuildParams {
            max_leaf: settings.max_leaf_size.clamp(1, 15),
            traversal_cost: settings.traversal_cost.max(0.0),
        };
        let tree = build_binary(&mut prims, params);
        Bvh3 { nodes: collapse(&tree), leaf_order: tree.order }
    }
}

/// Collapses a binary tree into 4-wide nodes: each wide node takes a binary node's two children
/// and keeps replacing the inner child of largest surface area by its own two children until it
/// has four children or only leaves.
fn collapse(tree: &BinaryTree<Vec3A>) -> Vec<Node4> {
    let binary = &tree.nodes;
    let mut nodes = vec![Node4::EMPTY];
    let root = binary[0];
    if let BinaryKind::Leaf { first, count } = root.kind {
        nodes[0].set_child(0, Child::Leaf { first, count }, root.min, root.max);
    }
    let BinaryKind::Inner { left: root_left } = root.kind else { return nodes };
    // (left child of a binary inner node, the wide node it becomes)
    let mut pending = vec![(root_left as usize, 0usize)];
    while let Some((left, w)) = pending.pop() {
        let mut children = [left, left + 1, 0, 0];
        let mut n = 2;
        while n < 4 {
            let mut widest: Option<(usize, usize, f32)> = None;
            for (k, &c) in children[..n].iter().enumerate() {
                if let BinaryKind::Inner { left } = binary[c].kind {
                    let area = half_area(&binary[c]);
                    if widest.is_none_or(|(_, _, a)| area > a) {
                        widest = Some((k, left as usize, area));
                    }
                }
            }
            let Some((k, grandchild, _)) = widest else { break };
            children[k] = grandchild;
            children[n] = grandchild + 1;
            n += 1;
        }
        for (lane, &c) in children[..n].iter().enumerate() {
            let child = match binary[c].kind {
                BinaryKind::Leaf { first, count } => Child::Leaf { first, count },
                BinaryKind::Inner { left } => {
                    nodes.push(Node4::EMPTY);
                    pending.push((left as usize, nodes.len() - 1));
                    Child::Inner((nodes.len() - 1) as u32)
                }
            };
            nodes[w].set_child(lane, child, binary[c].min, binary[c].max);
        }
    }
    nodes
}

fn half_area(node: &BinaryNode<Vec3A>) -> f32 {
    let d = node.max - node.min;
    d.x * d.y + d.y * d.z + d.z * d.x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prims_on_a_line(n: usize) -> Vec<BuildPrim<Vec3A>> {
        (0..n)
            .map(|i| {
                let c = Vec3A::new(i as f32, 0.0, 0.0);
                BuildPrim { min: c - Vec3A::splat(0.4), max: c + Vec3A::splat(0.4), id: i as u32 }
            })
            .collect()
    }

    fn check_tree(tree: &BinaryTree<Vec3A>, prims: &[BuildPrim<Vec3A>], max_leaf: usize) {
        let mut seen = vec![false; prims.len()];
        let mut stack = vec![(0usize, 0usize)];
        let mut max_depth = 0;
        while let Some((i, depth)) = stack.pop() {
            max_depth = max_depth.max(depth);
            let node = tree.nodes[i];
            match node.kind {
                BinaryKind::Inner { left } => {
                    for child in [left as usize, left as usize + 1] {
                        let c = tree.nodes[child];
                        assert!(c.min.cmpge(node.min).all() && c.max.cmple(node.max).all());
                        stack.push((child, depth + 1));
                    }
                }
                BinaryKind::Leaf { first, count } => {
                    assert!(count >= 1 && count as usize <= max_leaf.max(1) || prims.len() <= max_leaf);
                    for p in &prims[first as usize..(first + count) as usize] {
                        assert!(p.min.cmpge(node.min).all() && p.max.cmple(node.max).all());
                        assert!(!seen[p.id as usize], "primitive in two leaves");
                        seen[p.id as usize] = true;
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s), "primitive missing");
        assert!(max_depth <= MAX_DEPTH);
    }

    #[test]
    fn every_primitive_in_exactly_one_leaf() {
        let params = BuildParams { max_leaf: 4, traversal_cost: 1.0 };
        for n in [1, 2, 3, 5, 17, 100, 1000] {
            let mut prims = prims_on_a_line(n);
            let tree = build_binary(&mut prims, params);
            check_tree(&tree, &prims, params.max_leaf);
            assert_eq!(tree.order, prims.iter().map(|p| p.id).collect::<Vec<_>>());
        }
    }

    #[test]
    fn coincident_centers_fall_back_to_median_splits() {
        let params = BuildParams { max_leaf: 2, traversal_cost: 1.0 };
        let mut prims: Vec<_> =
            (0..1000).map(|i| BuildPrim { min: Vec3A::splat(-1.0), max: Vec3A::splat(1.0), id: i }).collect();
        let tree = build_binary(&mut prims, params);
        check_tree(&tree, &prims, params.max_leaf);
    }

    #[test]
    fn degenerate_chain_depth_stays_bounded() {
        // Exponentially spaced boxes make SAH peel one primitive per level; the depth cap must
        // switch to median splits.
        let params = BuildParams { max_leaf: 1, traversal_cost: 1.0 };
        let mut prims: Vec<_> = (0..3000)
            .map(|i| {
                let c = Vec3A::new(1.01f32.powi(i), 0.0, 0.0);
                BuildPrim { min: c, max: c + Vec3A::splat(1e-3), id: i as u32 }
            })
            .collect();
        let tree = build_binary(&mut prims, params);
        check_tree(&tree, &prims, params.max_leaf);
    }
}
