//! The 4-wide 3D BVH: nodes hold their four children's boxes in SoA lanes so one SIMD step tests
//! a query against all four.

use super::build::MAX_DEPTH;
use crate::bounds::Aabb3;
use crate::math::Ray3;
use glam::{BVec4A, Vec3, Vec3A, Vec4};
use std::mem::MaybeUninit;
use std::ops::Range;

/// A node with up to four children, their boxes stored SoA: `bounds[axis]` holds the four
/// children's minimum coordinates on `axis` and `bounds[3 + axis]` their maxima.
///
/// `child[i]` encodes what the child is: `0` is an empty slot (the root, node 0, is nobody's
/// child), a value below 2²⁸ is the index of an inner node, and otherwise the top four bits hold a
/// primitive count `1..=15` and the low 28 bits the first primitive (in leaf order) of a leaf.
/// Empty slots have the box `[+∞, +∞]`, which no finite query reaches. 128 bytes, aligned to a
/// cache-line pair.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Node4 {
    pub bounds: [Vec4; 6],
    pub child: [u32; 4],
}

/// What a child slot of a [`Node4`] refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Child {
    Empty,
    Inner(u32),
    /// Primitives `first .. first + count` in leaf order.
    Leaf {
        first: u32,
        count: u32,
    },
}

const LEAF_SHIFT: u32 = 28;
const INDEX_MASK: u32 = (1 << LEAF_SHIFT) - 1;

/// The largest number of primitives a [`Bvh3`] can hold.
pub const MAX_PRIMITIVES: usize = INDEX_MASK as usize;

/// Traversal stack size: a tree is at most `MAX_DEPTH` deep and each level pushes at most three
/// siblings besides the child it descends into.
pub(crate) const STACK_SIZE: usize = 3 * MAX_DEPTH + 4;

impl Child {
    #[inline]
    pub fn decode(code: u32) -> Child {
        match (code >> LEAF_SHIFT, code) {
            (_, 0) => Child::Empty,
            (0, index) => Child::Inner(index),
            (count, code) => Child::Leaf { first: code & INDEX_MASK, count },
        }
    }

    pub(super) fn encode(self) -> u32 {
        match self {
            Child::Empty => 0,
            Child::Inner(index) => index,
            Child::Leaf { first, count } => (count << LEAF_SHIFT) | first,
        }
    }
}

impl Node4 {
    pub(super) const EMPTY: Node4 = Node4 { bounds: [Vec4::INFINITY; 6], child: [0; 4] };

    /// The box of child `lane`.
    #[inline]
    pub fn child_box(&self, lane: usize) -> Aabb3 {
        let b = &self.bounds;
        Aabb3::new(
            Vec3::new(b[0][lane], b[1][lane], b[2][lane]),
            Vec3::new(b[3][lane], b[4][lane], b[5][lane]),
        )
    }

    pub(super) fn set_child(&mut self, lane: usize, child: Child, min: Vec3A, max: Vec3A) {
        for axis in 0..3 {
            self.bounds[axis][lane] = min[axis];
            self.bounds[3 + axis][lane] = max[axis];
        }
        self.child[lane] = child.encode();
    }

    /// The box around all non-empty children.
    fn bounds(&self) -> Aabb3 {
        (0..4)
            .filter(|&lane| self.child[lane] != 0)
            .fold(Aabb3::EMPTY, |b, lane| b.merge(&self.child_box(lane)))
    }

    /// Lanes whose box overlaps the closed box `[min, max]`, as a 4-bit mask.
    #[inline]
    pub fn overlap_mask(&self, min: Vec3, max: Vec3) -> u32 {
        let b = &self.bounds;
        let overlap = b[0].cmple(Vec4::splat(max.x))
            & b[3].cmpge(Vec4::splat(min.x))
            & b[1].cmple(Vec4::splat(max.y))
            & b[4].cmpge(Vec4::splat(min.y))
            & b[2].cmple(Vec4::splat(max.z))
            & b[5].cmpge(Vec4::splat(min.z));
        overlap.bitmask()
    }

    /// Squared distances from `p` to the four child boxes (zero inside).
    #[inline]
    pub fn distance_squared(&self, p: Vec3) -> Vec4 {
        let axis = |lo: Vec4, hi: Vec4, x: f32| {
            let x = Vec4::splat(x);
            (lo - x).max(x - hi).max(Vec4::ZERO)
        };
        let b = &self.bounds;
        let dx = axis(b[0], b[3], p.x);
        let dy = axis(b[1], b[4], p.y);
        let dz = axis(b[2], b[5], p.z);
        dx * dx + dy * dy + dz * dz
    }

    /// Slab test of a ray against the four child boxes: the entry parameters and the mask of lanes
    /// hit within `[0, max_t]`.
    ///
    /// Per axis the ray enters through the plane it meets first (the minimum for a positive
    /// direction, the maximum for a negative one) and leaves through the other, so no per-lane
    /// min/max is needed (Williams et al., "An Efficient and Robust Ray–Box Intersection
    /// Algorithm", JGT 2005).
    #[inline]
    pub fn ray_entry(&self, ray: &RayBoxSetup, max_t: f32) -> (Vec4, u32) {
        let b = &self.bounds;
        let t = |plane: usize, axis: usize| b[plane] * ray.inv_dir[axis] - ray.origin_scaled[axis];
        let enter = t(ray.near[0], 0).max(t(ray.near[1], 1)).max(t(ray.near[2], 2).max(Vec4::ZERO));
        let exit = t(ray.far[0], 0).min(t(ray.far[1], 1)).min(t(ray.far[2], 2).min(Vec4::splat(max_t)));
        let hit: BVec4A = enter.cmple(exit);
        (enter, hit.bitmask())
    }
}

/// Per-ray constants of the SIMD slab test.
///
/// The slab test computes `t = (plane - origin) / dir` as `plane · (1/dir) - origin · (1/dir)`.
/// A direction component of zero is replaced by `±1e-30` (sign kept) so that `1/dir` stays finite
/// and no `0 · ∞ = NaN` arises for a ray lying in a slab plane; the resulting `t` values are
/// `±1e30`-scaled, which orders them correctly against any finite box.
#[derive(Clone, Copy, Debug)]
pub struct RayBoxSetup {
    inv_dir: [Vec4; 3],
    origin_scaled: [Vec4; 3],
    /// Per axis, the index into [`Node4::bounds`] of the plane the ray enters through, and of the
    /// one it leaves through.
    near: [usize; 3],
    far: [usize; 3],
}

impl RayBoxSetup {
    pub fn new(ray: &Ray3) -> Self {
        let tiny = |d: f32| if d.abs() < 1e-30 { 1e-30f32.copysign(d) } else { d };
        let inv = Vec3::new(1.0 / tiny(ray.dir.x), 1.0 / tiny(ray.dir.y), 1.0 / tiny(ray.dir.z));
        let scaled = ray.origin * inv;
        let near = |axis: usize| if inv[axis] >= 0.0 { axis } else { 3 + axis };
        let far = |axis: usize| if inv[axis] >= 0.0 { 3 + axis } else { axis };
        Self {
            inv_dir: [Vec4::splat(inv.x), Vec4::splat(inv.y), Vec4::splat(inv.z)],
            origin_scaled: [Vec4::splat(scaled.x), Vec4::splat(scaled.y), Vec4::splat(scaled.z)],
            near: [near(0), near(1), near(2)],
            far: [far(0), far(1), far(2)],
        }
    }
}

/// A bounding volume hierarchy over 3D boxes with four children per node.
///
/// Built by binned SAH (each primitive in exactly one leaf, at most 15 per leaf), then collapsed
/// from binary to 4-wide. Primitives are identified by their index in the slice given to
/// [`Bvh3::build`]; [`Bvh3::leaf_order`] lists them in the order leaves refer to, so a caller can
/// store per-primitive data in leaf order and read a leaf as one contiguous run.
#[derive(Clone, Debug, Default)]
pub struct Bvh3 {
    pub(super) nodes: Vec<Node4>,
    pub(super) leaf_order: Vec<u32>,
}

impl Bvh3 {
    /// True if the hierarchy holds no primitive.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The nodes; node 0 is the root.
    pub fn nodes(&self) -> &[Node4] {
        &self.nodes
    }

    /// Primitive ids (indices into the slice given at build time) in leaf order.
    pub fn leaf_order(&self) -> &[u32] {
        &self.leaf_order
    }

    /// The box around everything, or [`Aabb3::EMPTY`] for an empty hierarchy.
    pub fn bounds(&self) -> Aabb3 {
        self.nodes.first().map_or(Aabb3::EMPTY, Node4::bounds)
    }

    /// Heap bytes used by nodes and the leaf order.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node4>() + self.leaf_order.capacity() * size_of::<u32>()
    }

    /// Recomputes every box bottom-up after primitives moved; `leaf_box(k)` is the new box of the
    /// `k`-th primitive in leaf order. The tree shape is kept (quality degrades if primitives move
    /// far; rebuild then).
    pub fn refit(&mut self, mut leaf_box: impl FnMut(u32) -> Aabb3) {
        // Children always have larger indices than their parent, so a reverse sweep sees every
        // child before its parent.
        for i in (0..self.nodes.len()).rev() {
            let mut node = self.nodes[i];
            for lane in 0..4 {
                let b = match Child::decode(node.child[lane]) {
                    Child::Empty => continue,
                    Child::Inner(index) => self.nodes[index as usize].bounds(),
                    Child::Leaf { first, count } => {
                        (first..first + count).fold(Aabb3::EMPTY, |b, k| b.merge(&leaf_box(k)))
                    }
                };
                let child = Child::decode(node.child[lane]);
                node.set_child(lane, child, b.min.into(), b.max.into());
            }
            self.nodes[i] = node;
        }
    }

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
        let mut stack = [0u32; STACK_SIZE];
        let mut len = 1;
        // Node 0 is the root; it is never a child, so the stack can hold inner-node indices only.
        while len > 0 {
            len -= 1;
            let node = &self.nodes[stack[len] as usize];
            let mut mask = node_mask(node);
            while mask != 0 {
                let lane = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                match Child::decode(node.child[lane]) {
                    Child::Empty => {}
                    Child::Inner(index) => {
                        stack[len] = index;
                        len += 1;
                    }
                    Child::Leaf { first, count } => {
                        if !leaf(first..first + count) {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }

    /// Best-first traversal: visits leaves in increasing order of a per-child key, skipping every
    /// child whose key exceeds the current limit.
    ///
    /// `node_keys(node, limit)` returns the keys of the four children (e.g. ray entry parameters
    /// or squared distances) and the mask of children worth visiting at all under `limit`.
    /// `leaf(range, limit)` tests a leaf and returns a new, smaller limit if it found something.
    /// Returns the final limit if any leaf lowered it.
    ///
    /// The nearest child is descended into directly; only its siblings go on the stack.
    #[inline]
    pub fn traverse_ordered(
        &self,
        limit: f32,
        mut node_keys: impl FnMut(&Node4, f32) -> (Vec4, u32),
        mut leaf: impl FnMut(Range<u32>, f32) -> Option<f32>,
    ) -> Option<f32> {
        if self.nodes.is_empty() || limit.is_nan() || limit < 0.0 {
            return None;
        }
        let mut limit = limit;
        let mut found = false;
        let mut stack = TraversalStack::new();
        let mut node = &self.nodes[0];
        loop {
            let (keys, mask) = node_keys(node, limit);
            let next = if mask == 0 {
                None
            } else if mask & (mask - 1) == 0 {
                // One child (the common case deep in the tree): descend, no sorting.
                let lane = mask.trailing_zeros() as usize;
                Some((node.child[lane], keys[lane]))
            } else {
                {
                    // Sort the hit children near to far (at most four: insertion), push all but
                    // the nearest, farthest deepest.
                    let keys = keys.to_array();
                    let mut hits = [(0u32, 0.0f32); 4];
                    let mut n = 0;
                    let mut rest = mask;
                    while rest != 0 {
                        let lane = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        let item = (node.child[lane], keys[lane]);
                        let mut k = n;
                        while k > 0 && hits[k - 1].1 > item.1 {
                            hits[k] = hits[k - 1];
                            k -= 1;
                        }
                        hits[k] = item;
                        n += 1;
                    }
                    for &item in hits[1..n].iter().rev() {
                        if let Child::Inner(index) = Child::decode(item.0) {
                            prefetch(&self.nodes[index as usize]);
                        }
                        stack.push(item);
                    }
                    Some(hits[0])
                }
            };
            let mut next = next;
            // Leaves are tested as soon as they are the nearest candidate; then the stack is
            // popped until an inner node within the limit comes up.
            loop {
                let Some((code, key)) = next.take().or_else(|| stack.pop()) else {
                    return found.then_some(limit);
                };
                if key > limit {
                    continue;
                }
                match Child::decode(code) {
                    Child::Inner(index) => {
                        node = &self.nodes[index as usize];
                        break;
                    }
                    Child::Leaf { first, count } => {
                        if let Some(t) = leaf(first..first + count, limit) {
                            limit = t;
                            found = true;
                        }
                    }
                    Child::Empty => {}
                }
            }
        }
    }

    /// Front-to-back traversal for the closest ray hit: [`Bvh3::traverse_ordered`] keyed by the
    /// parameter at which the ray enters each box, within `[0, max_t]`.
    #[inline]
    pub fn cast_ray(
        &self,
        ray: &Ray3,
        max_t: f32,
        leaf: impl FnMut(Range<u32>, f32) -> Option<f32>,
    ) -> Option<f32> {
        let setup = RayBoxSetup::new(ray);
        self.traverse_ordered(max_t.min(f32::MAX), |node, limit| node.ray_entry(&setup, limit), leaf)
    }
}

/// Asks the CPU to start loading `node` into the cache (both of its cache lines); a hint only.
#[inline(always)]
fn prefetch(node: &Node4) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = (node as *const Node4).cast::<i8>();
        // SAFETY: prefetching has no effect on program state and SSE is part of the x86_64
        // baseline; the pointers come from a live reference.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = node;
}

/// The fixed-size stack of best-first traversals: `(child code, key)` pairs.
///
/// It lives on the call stack and is not zeroed: only slots below `len` are ever read, and each
/// of them was written by `push` first. A tree is at most `MAX_DEPTH` levels deep and each level
/// pushes at most three siblings, so `STACK_SIZE` slots always suffice; `push` checks the bound
/// anyway and a violation is an internal bug that stops the program rather than corrupting memory.
struct TraversalStack {
    items: [MaybeUninit<(u32, f32)>; STACK_SIZE],
    len: usize,
}

impl TraversalStack {
    #[inline(always)]
    fn new() -> Self {
        Self { items: [const { MaybeUninit::uninit() }; STACK_SIZE], len: 0 }
    }

    #[inline(always)]
    fn push(&mut self, item: (u32, f32)) {
        self.items[self.len].write(item);
        self.len += 1;
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(u32, f32)> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: every slot below the old `len` was written by `push` and not moved out since
        // (the pair is `Copy`).
        Some(unsafe { self.items[self.len].assume_init() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kollide_testkit::random;

    fn random_boxes(n: usize, seed: u64) -> Vec<Aabb3> {
        let mut rng = random::rng(seed);
        (0..n)
            .map(|_| {
                let c = random::point3(&mut rng, 10.0);
                let h = random::point3(&mut rng, 0.5).abs();
                Aabb3::new(c - h, c + h)
            })
            .collect()
    }

    fn check_structure(bvh: &Bvh3, boxes: &[Aabb3]) {
        let mut seen = vec![0u32; boxes.len()];
        for node in bvh.nodes() {
            for lane in 0..4 {
                match Child::decode(node.child[lane]) {
                    Child::Empty => {}
                    Child::Inner(i) => {
                        assert!(node.child_box(lane).contains(&bvh.nodes()[i as usize].bounds()))
                    }
                    Child::Leaf { first, count } => {
                        for k in first..first + count {
                            let id = bvh.leaf_order()[k as usize] as usize;
                            seen[id] += 1;
                            assert!(node.child_box(lane).contains(&boxes[id]));
                        }
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "every primitive in exactly one leaf");
    }

    #[test]
    fn structure_and_box_queries_match_brute_force() {
        for n in [0, 1, 3, 4, 5, 16, 100, 2000] {
            let boxes = random_boxes(n, n as u64);
            let bvh = Bvh3::build(&boxes);
            check_structure(&bvh, &boxes);
            let queries = random_boxes(200, 99);
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
        for i in 0..2000 {
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
    fn refit_follows_moved_primitives() {
        let mut boxes = random_boxes(500, 8);
        let mut bvh = Bvh3::build(&boxes);
        for b in &mut boxes {
            *b = Aabb3::new(b.min * 1.5 + Vec3::X, b.max * 1.5 + Vec3::X);
        }
        let order = bvh.leaf_order().to_vec();
        bvh.refit(|k| boxes[order[k as usize] as usize]);
        check_structure(&bvh, &boxes);
    }

    #[test]
    fn invalid_boxes_are_left_out() {
        let boxes = [
            Aabb3::new(Vec3::ZERO, Vec3::ONE),
            Aabb3::new(Vec3::NAN, Vec3::ONE),
            Aabb3::EMPTY,
            Aabb3::new(Vec3::ZERO, Vec3::new(f32::INFINITY, 1.0, 1.0)),
        ];
        let bvh = Bvh3::build(&boxes);
        assert_eq!(bvh.leaf_order(), &[0]);
        assert_eq!(bvh.bounds(), boxes[0]);
        assert!(Bvh3::build(&[]).is_empty());
        assert_eq!(Bvh3::build(&[]).cast_ray(&Ray3::new(Vec3::ZERO, Vec3::X), 1.0, |_, _| Some(0.0)), None);
    }
}
