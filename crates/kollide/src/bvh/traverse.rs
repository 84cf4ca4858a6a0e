//! Traversals of one tree: unordered with a box test, ordered by a key with a shrinking limit
//! (closest ray hit, nearest point), and any-hit rays in each node's precomputed order.

use super::node::{LEAF_SHIFT, inner_index, leaf_range, ray_limit};
use super::stack::{STACK_SIZE, TraversalStack};
use super::{Bvh3, Node4};
use crate::math::Ray3;
use glam::Vec4;
use std::ops::Range;

impl Bvh3 {
    /// Visits, in no particular order, every leaf whose box passes `node_mask`, the test of one
    /// node's four child boxes (bit `i` set = visit child `i`). `leaf` receives each leaf's range
    /// of leaf-order indices and returns `false` to stop the traversal early.
    ///
    /// Returns `false` if stopped early.
    #[inline]
    pub fn traverse(
        &self,
        mut node_mask: impl FnMut(&Node4) -> u32,
        mut leaf: impl FnMut(Range<u32>) -> bool,
    ) -> bool {
        if self.nodes.is_empty() {
            return true;
        }
        // Node 0 is the root; it is never a child, so the stack holds inner-node indices only.
        // The last inner child a node keeps is entered directly, without a trip through the
        // stack; the others are pushed (the order is that of pushing them all).
        let mut stack = TraversalStack::<_, STACK_SIZE>::new();
        let mut index = 0;
        loop {
            let node = &self.nodes[index];
            let mut mask = node_mask(node);
            let mut next = None;
            while mask != 0 {
                let code = node.child[mask.trailing_zeros() as usize];
                mask &= mask - 1;
                if let Some(child) = inner_index(code) {
                    // Start loading every kept node now, so that the misses on siblings overlap.
                    prefetch(self.nodes.as_ptr().wrapping_add(child));
                    if let Some(earlier) = next.replace(child) {
                        stack.push(earlier as u32);
                    }
                } else if let Some(range) = leaf_range(code)
                    && !leaf(range)
                {
                    return false;
                }
            }
            index = match next.or_else(|| stack.pop().map(|i| i as usize)) {
                Some(index) => index,
                None => return true,
            };
        }
    }

    /// Ordered traversal: visits the children of every node in increasing order of a per-child
    /// key, skipping every child whose key exceeds the current limit.
    ///
    /// `node_keys(node, &mut limit)` returns the keys of the four children (e.g. ray entry
    /// parameters or squared distances) and the mask of children worth visiting at all under
    /// `limit`; it may lower `limit` when the node's boxes bound the final answer from above.
    /// `leaf(range, limit)` tests a leaf and returns a new, smaller limit if it found something.
    /// Returns the final limit if any leaf lowered it.
    ///
    /// Ordering is per node (depth first, nearest child first): the nearest hit child is entered
    /// directly and its siblings go on the stack farthest first, so they come back near to far.
    /// A popped entry whose key has meanwhile passed the limit is dropped unvisited.
    #[inline]
    pub fn traverse_ordered(
        &self,
        limit: f32,
        mut node_keys: impl FnMut(&Node4, &mut f32) -> (Vec4, u32),
        mut leaf: impl FnMut(Range<u32>, f32) -> Option<f32>,
    ) -> Option<f32> {
        if self.nodes.is_empty() || !(limit >= 0.0) {
            return None;
        }
        let mut limit = limit;
        let mut found = false;
        let mut stack = TraversalStack::<_, STACK_SIZE>::new();
        let mut node = &self.nodes[0];
        loop {
            self.prefetch_children(node);
            let (keys, mask) = node_keys(node, &mut limit);
            // The nearest hit child, if any: entered at once when inner, tested when a leaf.
            if mask != 0 {
                let code = Self::push_sorted(&mut stack, node, keys, mask);
                if let Some(index) = inner_index(code) {
                    node = &self.nodes[index];
                    continue;
                }
                if let Some(range) = leaf_range(code)
                    && let Some(t) = leaf(range, limit)
                {
                    limit = t;
                    found = true;
                }
            }
            // Pop until an inner node within the limit comes up, testing leaves on the way.
            loop {
                let Some(item) = stack.pop() else {
                    return found.then_some(limit);
                };
                let (code, key) = (item as u32, f32::from_bits((item >> 32) as u32));
                if !(key <= limit) {
                    continue;
                }
                if let Some(index) = inner_index(code) {
                    node = &self.nodes[index];
                    break;
                }
                if let Some(range) = leaf_range(code)
                    && let Some(t) = leaf(range, limit)
                {
                    limit = t;
                    found = true;
                }
            }
        }
    }

    /// One to four hit children (`mask`, not empty): sorts them by key, pushes all but the
    /// nearest farthest first, and returns the nearest's code. Without a branch on the number of
    /// children: on random rays that number is unpredictable, and sorting and pushing four costs
    /// less than the mispredictions of separate paths for one, two, and more children.
    ///
    /// Each child is packed as `key bits << 32 | code` (the stack holds them so; [`sort_items`]
    /// packs the four lanes in SSE registers rather than lane by lane) and the four lanes (missed
    /// ones as `u64::MAX`, which sort last) go through the optimal five-comparator sorting network
    /// for four inputs (Knuth, TAOCP vol. 3, §5.3.4). For keys `>= +0` (entry parameters, squared
    /// distances) the integer order of the bits is the order of the floats; other keys only make
    /// the order less useful, never the result wrong, since the limit is checked again when an
    /// entry is popped.
    #[inline(always)]
    fn push_sorted(stack: &mut TraversalStack<u64, STACK_SIZE>, node: &Node4, keys: Vec4, mask: u32) -> u32 {
        let mut v = sort_items(node, keys, mask);
        for (i, j) in [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)] {
            let (lo, hi) = (v[i].min(v[j]), v[i].max(v[j]));
            v[i] = lo;
            v[j] = hi;
        }
        // The siblings, farthest first: `v[n - 1], …, v[1]` are the first `n - 1` of these three.
        let n = mask.count_ones() as usize;
        let at = |k: usize| v[k & 3];
        stack.push_first([at(n.wrapping_sub(1)), at(n.wrapping_sub(2)), at(n.wrapping_sub(3))], n - 1);
        v[0] as u32
    }

    /// Starts loading every inner child of `node` before its boxes are tested, so that the wait
    /// for the child entered next overlaps the test (and the siblings visited later arrive
    /// meanwhile). A node's inner children are stored consecutively, so the lines fetched for
    /// children the test then rejects are mostly neighbours of the ones it keeps.
    ///
    /// Branch-free: a leaf or empty slot prefetches the root instead, which is always cached.
    #[inline(always)]
    fn prefetch_children(&self, node: &Node4) {
        for &code in &node.child {
            let index = if code >> LEAF_SHIFT == 0 { code as usize } else { 0 };
            // An inner child's index is in bounds; were it not, the hint would be void.
            prefetch(self.nodes.as_ptr().wrapping_add(index));
        }
    }

    /// Front-to-back traversal for the closest ray hit: [`Bvh3::traverse_ordered`] keyed by the
    /// parameter at which the ray enters each box, within `[0, max_t]`. A NaN or negative `max_t`
    /// finds nothing.
    #[inline]
    pub fn cast_ray(
        &self,
        ray: &Ray3,
        max_t: f32,
        leaf: impl FnMut(Range<u32>, f32) -> Option<f32>,
    ) -> Option<f32> {
        let max_t = ray_limit(max_t)?;
        let setup = self.ray_box_setup(ray);
        self.traverse_ordered(max_t, |node, limit| node.ray_entry(&setup, *limit), leaf)
    }

    /// Any-hit ray traversal: visits leaves whose box the ray crosses within `[0, max_t]`, roughly
    /// near to far, until `leaf` returns `true`. Returns whether it did.
    ///
    /// The order is the node's precomputed one for the ray's octant ([`Node4::order`]) rather
    /// than a sort by entry parameter: the search stops at the first hit, so it needs no limit
    /// and no key on the stack, and a push is a store per child. The nearest hit child is entered
    /// directly and only the others are pushed.
    #[inline]
    pub fn cast_ray_any(&self, ray: &Ray3, max_t: f32, mut leaf: impl FnMut(Range<u32>) -> bool) -> bool {
        let Some(max_t) = ray_limit(max_t).filter(|_| !self.nodes.is_empty()) else {
            return false;
        };
        let setup = self.ray_box_setup(ray);
        let mut stack = TraversalStack::<u32, STACK_SIZE>::new();
        let mut node = &self.nodes[0];
        loop {
            self.prefetch_children(node);
            let (_, mask) = node.ray_entry(&setup, max_t);
            let mut nearest = stack.push_ordered_but_nearest(&node.child, node.order[setup.octant], mask);
            // Take the nearest hit child, or else pop, until an inner node comes up, testing
            // leaves on the way.
            loop {
                let Some(code) = nearest.take().or_else(|| stack.pop()) else {
                    return false;
                };
                if let Some(index) = inner_index(code) {
                    node = &self.nodes[index];
                    break;
                }
                if let Some(range) = leaf_range(code)
                    && leaf(range)
                {
                    return true;
                }
            }
        }
    }
}

/// Asks the CPU to start loading `node` into the cache (both of its cache lines); a hint only.
#[inline(always)]
fn prefetch(node: *const Node4) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = node.cast::<i8>();
        // SAFETY: prefetching has no effect on program state and never faults, whatever the
        // address; SSE is part of the x86_64 baseline.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = node;
}

/// The children of `node` as sort items `key bits << 32 | code`, missed lanes (not in `mask`) as
/// `u64::MAX`: four SSE2 steps interleave the codes with the key bits.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn sort_items(node: &Node4, keys: Vec4, mask: u32) -> [u64; 4] {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86_64 baseline; the load reads the four codes of `node`.
    unsafe {
        let codes = _mm_loadu_si128(node.child.as_ptr().cast());
        let bits = _mm_and_si128(_mm_set1_epi32(mask as i32), _mm_setr_epi32(1, 2, 4, 8));
        let missed = _mm_cmpeq_epi32(bits, _mm_setzero_si128());
        let keys = _mm_or_si128(_mm_castps_si128(keys.into()), missed);
        let codes = _mm_or_si128(codes, missed);
        let (low, high) = (_mm_unpacklo_epi32(codes, keys), _mm_unpackhi_epi32(codes, keys));
        [
            _mm_cvtsi128_si64(low) as u64,
            _mm_cvtsi128_si64(_mm_unpackhi_epi64(low, low)) as u64,
            _mm_cvtsi128_si64(high) as u64,
            _mm_cvtsi128_si64(_mm_unpackhi_epi64(high, high)) as u64,
        ]
    }
}

/// See the x86_64 version.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn sort_items(node: &Node4, keys: Vec4, mask: u32) -> [u64; 4] {
    let keys = keys.to_array();
    std::array::from_fn(|lane| {
        if mask & (1 << lane) != 0 {
            (u64::from(keys[lane].to_bits()) << 32) | u64::from(node.child[lane])
        } else {
            u64::MAX
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::tree::tests::{check_structure, random_boxes};
    use super::*;
    use crate::bounds::Aabb3;
    use glam::Vec3;
    use kollide_testkit::{cases, random};

    #[test]
    fn structure_and_box_queries_match_brute_force() {
        for n in [0, 1, 3, 4, 5, 16, 100, 2000] {
            let boxes = random_boxes(n, n as u64);
            let bvh = Bvh3::build(&boxes);
            check_structure(&bvh, &boxes);
            // 1,250 queries per tree: 10,000 in all.
            let queries = random_boxes(cases(1250), 99);
            for q in &queries {
                let mut found = Vec::new();
                bvh.traverse(
                    |node| node.overlap_mask(q.min, q.max),
                    |range| {
                        found.extend(
                            range
                                .map(|k| bvh.leaf_order()[k as usize])
                                .filter(|&id| boxes[id as usize].overlaps(q)),
                        );
                        true
                    },
                );
                found.sort_unstable();
                let expected: Vec<u32> = (0..n as u32).filter(|&i| boxes[i as usize].overlaps(q)).collect();
                assert_eq!(found, expected);
            }
        }
    }

    #[test]
    fn closest_ray_entry_matches_brute_force() {
        let boxes = random_boxes(3000, 5);
        let bvh = Bvh3::build(&boxes);
        let mut rng = random::rng(6);
        for i in 0..cases(10_000) {
            let origin = random::point3(&mut rng, 15.0);
            let mut dir = random::point3(&mut rng, 1.0);
            if i % 10 == 0 {
                dir.x = 0.0; // axis-parallel planes exercise the zero-direction path
            }
            let ray = Ray3::new(origin, dir);
            let max_t = if i % 3 == 0 { 5.0 } else { f32::INFINITY };
            let expected =
                boxes.iter().filter_map(|b| b.ray_interval(&ray, max_t)).map(|(t, _)| t).reduce(f32::min);
            let got = bvh.cast_ray(&ray, max_t, |range, limit| {
                range
                    .filter_map(|k| boxes[bvh.leaf_order()[k as usize] as usize].ray_interval(&ray, limit))
                    .map(|(t, _)| t)
                    .reduce(f32::min)
            });
            match (got, expected) {
                (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{a} vs {b}"),
                (a, b) => assert_eq!(a.is_some(), b.is_some(), "{a:?} vs {b:?} for {ray:?}"),
            }
        }
    }

    #[test]
    fn any_ray_matches_brute_force() {
        let boxes = random_boxes(3000, 15);
        let bvh = Bvh3::build(&boxes);
        let mut rng = random::rng(16);
        let mut hits = 0;
        let n = cases(10_000);
        for i in 0..n {
            // Toward a random point of the boxes' region, so that about half the rays hit.
            let origin = random::point3(&mut rng, 15.0);
            let mut dir = random::point3(&mut rng, 10.0) - origin;
            if i % 10 == 0 {
                dir.y = 0.0;
            }
            let ray = Ray3::new(origin, dir);
            let max_t = [3.0, 15.0, f32::INFINITY][i % 3];
            // Only some boxes count as hits, so that the search often goes on past a leaf.
            let counts = |id: u32| id % 3 == 0 && boxes[id as usize].ray_interval(&ray, max_t).is_some();
            let expected = (0..boxes.len() as u32).any(counts);
            let got = bvh
                .cast_ray_any(&ray, max_t, |mut range| range.any(|k| counts(bvh.leaf_order()[k as usize])));
            assert_eq!(got, expected, "{ray:?} within {max_t}");
            hits += usize::from(got);
        }
        assert!((n / 5..n * 4 / 5).contains(&hits), "{hits} of {n} rays hit");
        assert!(!Bvh3::build(&[]).cast_ray_any(&Ray3::new(Vec3::ZERO, Vec3::X), 1.0, |_| true));
        assert!(!bvh.cast_ray_any(&Ray3::new(Vec3::ZERO, Vec3::X), f32::NAN, |_| true));
    }

    /// On a row of boxes, any-hit rays along the row reach the nearest box's leaf first.
    #[test]
    fn any_ray_visits_near_leaves_first() {
        let boxes: Vec<Aabb3> = (0..200)
            .map(|i| Aabb3::new(Vec3::new(i as f32, 0.0, 0.0), Vec3::new(i as f32 + 0.5, 1.0, 1.0)))
            .collect();
        let bvh = Bvh3::build(&boxes);
        for (origin, dir, nearest) in [
            (Vec3::new(-5.0, 0.5, 0.5), Vec3::new(1.0, 0.01, -0.01), 0),
            (Vec3::new(300.0, 0.5, 0.5), -Vec3::X, 199),
        ] {
            let mut first = None;
            bvh.cast_ray_any(&Ray3::new(origin, dir), f32::INFINITY, |range| {
                first = Some(range.map(|k| bvh.leaf_order()[k as usize]).collect::<Vec<_>>());
                true
            });
            assert!(first.as_ref().is_some_and(|ids| ids.contains(&nearest)), "{first:?}");
        }
    }
}
