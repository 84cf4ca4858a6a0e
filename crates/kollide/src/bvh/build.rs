//! SAH construction of the 4-wide BVH.
//!
//! Each primitive is a box; it goes entirely to the side of a split its box center falls on, so
//! every primitive ends up in exactly one leaf (none is duplicated). Splits minimise the
//! surface area heuristic (MacDonald and Booth 1990), top-down:
//!
//! - Ranges are binned by box center ([`binned`](super::binned)): the candidate planes lie
//!   between equal bins of the range's box on every axis (Wald, "On fast Construction of
//!   SAH-based Bounding Volume Hierarchies", 2007). Large ranges bin only an evenly strided
//!   sample: the plane it picks is about as good, and the binning pass, whose cost per primitive
//!   is the highest of the build, shrinks to nothing at the top of the tree. The chosen plane is
//!   applied by a partition in place ([`partition`](super::partition)) that also gathers the
//!   children's boxes when sampled (otherwise the bins on each side give them). Down to the
//!   smallest ranges the bins score about as well as the exact SAH sweep over every split
//!   between neighbours, for less work.
//! - Past [`SAH_DEPTH`](super::SAH_DEPTH) levels, ranges are split at the median, which bounds
//!   the depth.
//!
//! The wide nodes are assembled while splitting, as a binary-to-wide collapse would do it: a wide
//! node starts from one binary split of its range and keeps splitting the child of largest
//! surface area that is not a leaf until it has four children. No binary tree is stored.
//!
//! The build is iterative (explicit work lists, no recursion) and moves 32-byte primitive records
//! in place, so every pass over a range reads memory sequentially.

use super::binned::{BuildParams, Record, Span, Splitter, half_area, pack_all};
use super::tree::root_bounds;
use super::{Bvh3, Child, MAX_LEAF_SIZE, MAX_PRIMITIVES, Node4};
use crate::bounds::Aabb3;
use glam::Vec3A;

/// Builds the wide nodes over `prims` (reordered in place into leaf order; node 0 is the root)
/// and returns them. `prims` must be non-empty, hold fewer than 2²⁸ primitives, all with finite
/// boxes; `root` must be their span.
fn build_wide(prims: &mut [Record], root: Span, params: BuildParams) -> Vec<Node4> {
    let mut splitter = Splitter::new(params);
    // Leaves hold one to two primitives on average and nodes two to four children: a third of
    // the primitive count is a generous bound (the unused tail is released below).
    let mut nodes: Vec<Node4> = Vec::with_capacity(prims.len() / 3 + 1);
    nodes.push(Node4::EMPTY);
    let Some((left, right)) = splitter.split(prims, &root) else {
        nodes[0].set_child(0, leaf_child(&root), root.min, root.max);
        return nodes;
    };
    // (a wide node, the two halves of the binary split of its range)
    let mut tasks = vec![(0usize, left, right)];
    while let Some((node, left, right)) = tasks.pop() {
        // The children so far, their areas, and whether each is known to be a leaf.
        let mut spans = [left, right, left, left];
        let mut areas = [half_area(left.min, left.max), half_area(right.min, right.max), 0.0, 0.0];
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
                    (areas[k], areas[count]) = (half_area(a.min, a.max), half_area(b.min, b.max));
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
                    nodes.push(Node4::EMPTY);
                    tasks.push((child, a, b));
                }
            }
        }
    }
    nodes.shrink_to_fit();
    nodes
}

fn leaf_child(span: &Span) -> Child {
    Child::Leaf { first: span.start, count: span.end - span.start }
}

/// Build settings for [`Bvh3::build_with`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BvhSettings {
    /// Most primitives per leaf, `1..=MAX_LEAF_SIZE`.
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

    /// [`Bvh3::build`] with explicit settings (`max_leaf_size` is clamped to
    /// `1..=MAX_LEAF_SIZE`, a negative or NaN `traversal_cost` counts as zero).
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
            max_leaf: settings.max_leaf_size.clamp(1, MAX_LEAF_SIZE),
            traversal_cost: settings.traversal_cost.max(0.0),
        };
        let mut nodes = build_wide(&mut prims, root, params);
        nodes.iter_mut().for_each(Node4::update_order);
        let leaf_order = prims.iter().map(Record::id).collect();
        let bounds = root_bounds(&nodes);
        Bvh3 { nodes, leaf_order, bounds }
    }

    /// Builds over groups of consecutive ids that the tree keeps in one leaf: group `k` holds the
    /// ids `starts[k]..starts[k + 1]` and `boxes` gives its box with id `k`.
    ///
    /// Binning a fraction of the records makes the build that much shorter where the groups are
    /// large. `settings` count groups, and `max_leaf_size` is clamped to
    /// `1..=MAX_LEAF_SIZE / longest group` so that a leaf holds at most [`MAX_LEAF_SIZE`] ids;
    /// the tree's leaf ranges and [`Bvh3::leaf_order`] count ids. The caller guarantees what
    /// [`Bvh3::build_from_boxes`] asks of the boxes, and `starts` rising strictly from 0 by at
    /// most [`MAX_LEAF_SIZE`], one entry longer than `boxes`.
    pub(crate) fn build_from_groups(
        boxes: impl Iterator<Item = (u32, Vec3A, Vec3A)>,
        starts: &[u32],
        settings: BvhSettings,
    ) -> Bvh3 {
        let longest =
            starts.windows(2).map(|run| run[1] - run[0]).max().unwrap_or(1).clamp(1, MAX_LEAF_SIZE as u32);
        let most = MAX_LEAF_SIZE / longest as usize;
        let settings = BvhSettings { max_leaf_size: settings.max_leaf_size.clamp(1, most), ..settings };
        let Bvh3 { mut nodes, leaf_order: group_order, bounds } = Self::build_from_boxes(boxes, settings);
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
        Bvh3 { nodes, leaf_order, bounds }
    }
}

#[cfg(test)]
mod tests {
    use super::super::MAX_DEPTH;
    use super::*;

    fn params(max_leaf: usize) -> BuildParams {
        BuildParams { max_leaf, traversal_cost: 1.0 }
    }

    /// Builds a 3D tree over the boxes and checks it: every primitive in exactly one leaf, child
    /// boxes tight around their contents, leaves within the size limit, depth within
    /// [`MAX_DEPTH`], children after their parents. Returns the number of wide levels.
    fn build_and_check(boxes: &[(Vec3A, Vec3A)], max_leaf: usize) -> usize {
        let (mut prims, root) =
            pack_all(boxes.iter().enumerate().map(|(i, &(min, max))| (i as u32, min, max)));
        let nodes = build_wide(&mut prims, root, params(max_leaf));
        let order: Vec<u32> = prims.iter().map(Record::id).collect();
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
}
