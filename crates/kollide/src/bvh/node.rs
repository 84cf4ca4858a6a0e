//! The 4-wide node: four children's boxes in SoA lanes, so one SIMD step tests a query against
//! all four, and the codes that say what each child is.

use crate::bounds::Aabb3;
use crate::math::Ray3;
use glam::{BVec4A, Vec3, Vec3A, Vec4};
use std::ops::Range;

/// A node with up to four children, their boxes stored SoA: `bounds[axis]` holds the four
/// children's minimum coordinates on `axis` and `bounds[3 + axis]` their maxima.
///
/// `child[i]` encodes what the child is: `0` is an empty slot (the root, node 0, is nobody's
/// child), a value below 2²⁸ is the index of an inner node, and otherwise the top four bits hold a
/// primitive count `1..=MAX_LEAF_SIZE` and the low 28 bits the first primitive (in leaf order) of
/// a leaf ([`Child::decode`]).
/// Empty slots have the box `[+∞, +∞]`, which no finite query reaches.
///
/// `order[octant]` lists the lanes from near to far for rays of that direction octant (bit `a` of
/// `octant` set when the direction is negative on axis `a`), two bits per lane, nearest in the low
/// bits: the lanes sorted by the projection of their box centers onto the octant's diagonal,
/// empty slots last. It steers traversals that need a good order but not an exact one.
///
/// 128 bytes, aligned to a cache-line pair.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Node4 {
    pub bounds: [Vec4; 6],
    pub child: [u32; 4],
    pub order: [u8; 8],
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

/// A child code's bits above this hold a leaf's primitive count; those below, a node index or a
/// leaf's first primitive.
pub(super) const LEAF_SHIFT: u32 = 28;
pub(super) const INDEX_MASK: u32 = (1 << LEAF_SHIFT) - 1;

/// The largest number of primitives a [`Bvh3`](super::Bvh3) can hold.
pub const MAX_PRIMITIVES: usize = INDEX_MASK as usize;

/// The most primitives a leaf holds: the largest count its code's top four bits can hold.
pub const MAX_LEAF_SIZE: usize = (u32::MAX >> LEAF_SHIFT) as usize;

/// The node index of an inner child's code (`1 ..= INDEX_MASK`; one unsigned comparison), or `None`
/// for a leaf or an empty slot.
#[inline(always)]
pub(super) fn inner_index(code: u32) -> Option<usize> {
    (code.wrapping_sub(1) < INDEX_MASK).then_some(code as usize)
}

/// The leaf-order range of a leaf child's code, or `None` for an inner child or an empty slot.
#[inline(always)]
pub(super) fn leaf_range(code: u32) -> Option<Range<u32>> {
    let count = code >> LEAF_SHIFT;
    let first = code & INDEX_MASK;
    (count != 0).then_some(first..first + count)
}

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
    pub(super) const EMPTY: Node4 =
        Node4 { bounds: [Vec4::INFINITY; 6], child: [0; 4], order: [0b11_10_01_00; 8] };

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

    /// Sets [`Node4::order`] from the current child boxes.
    ///
    /// A lane's rank in an octant is the number of lanes with a smaller key, plus those with the
    /// same key and a smaller index; four SIMD comparisons give all four ranks.
    pub(super) fn update_order(&mut self) {
        let b = &self.bounds;
        // Halved before the sum, so that no finite box overflows to an infinite center.
        let center = [(b[0] + b[3]) * 0.5, (b[1] + b[4]) * 0.5, (b[2] + b[5]) * 0.5];
        let filled = BVec4A::from(self.child.map(|code| code != 0));
        let count = Vec4::splat(self.child.iter().filter(|&&code| code != 0).count() as f32);
        // The lane of each rank, found by comparison (float-to-integer casts cost more).
        let pack = |rank: Vec4| {
            (0..4).fold(0, |order, r| {
                order | (rank.cmpeq(Vec4::splat(r as f32)).bitmask().trailing_zeros() as u8 & 3) << (2 * r)
            })
        };
        // Octants 0 to 3 (positive z) are ranked; octant `7 - o` has the opposite diagonal, so
        // its filled lanes rank in reverse (`count - 1 - rank`) and its empty ones the same.
        for octant in 0..4 {
            let signed = |axis: usize| if octant >> axis & 1 == 0 { center[axis] } else { -center[axis] };
            // Filled lanes are kept finite, below the key +∞ of the empty ones, which thus rank
            // last; a NaN (a box refitted around NaN coordinates) becomes `-MAX` (SSE `max`
            // returns its second operand, and `f32::max` the number), so the ranks always form
            // a permutation and no child is ever left out of the order.
            let sum =
                (signed(0) + signed(1) + center[2]).max(Vec4::splat(-f32::MAX)).min(Vec4::splat(f32::MAX));
            let key = Vec4::select(filled, sum, Vec4::INFINITY);
            let mut rank = Vec4::ZERO;
            for (other, &k) in key.to_array().iter().enumerate() {
                let later = BVec4A::new(false, other < 1, other < 2, other < 3);
                let before = Vec4::splat(k).cmplt(key) | (Vec4::splat(k).cmpeq(key) & later);
                rank += Vec4::select(before, Vec4::ONE, Vec4::ZERO);
            }
            self.order[octant] = pack(rank);
            self.order[7 - octant] = pack(Vec4::select(filled, count - Vec4::ONE - rank, rank));
        }
    }

    /// The box around all non-empty children.
    pub(super) fn bounds(&self) -> Aabb3 {
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

    /// Upper bounds of the squared distances from `p` to the nearest point of each child's
    /// contents, valid when the child boxes are tight (every face touches the contents, as for
    /// boxes of triangles); `+inf` for empty children.
    ///
    /// Each face of a tight box holds a point of the contents, so the distance to the contents is
    /// at most the distance to the farthest point of any one face; the best face is one of the
    /// three nearer ones (Roussopoulos et al., "Nearest neighbor queries", SIGMOD 1995, MINMAXDIST).
    /// Per axis `near` is the squared distance to the nearer plane and `far` to the farther one;
    /// the face on axis `k` is then at most `near_k + far_i + far_j` away.
    #[inline]
    pub fn min_max_distance_squared(&self, p: Vec3) -> Vec4 {
        let b = &self.bounds;
        let axis = |lo: Vec4, hi: Vec4, x: f32| {
            let x = Vec4::splat(x);
            let (to_lo, to_hi) = ((x - lo) * (x - lo), (hi - x) * (hi - x));
            (to_lo.min(to_hi), to_lo.max(to_hi))
        };
        let (near_x, far_x) = axis(b[0], b[3], p.x);
        let (near_y, far_y) = axis(b[1], b[4], p.y);
        let (near_z, far_z) = axis(b[2], b[5], p.z);
        (near_x + far_y + far_z).min(far_x + near_y + far_z).min(far_x + far_y + near_z)
    }

    /// Slab test of a ray against the four child boxes: the entry parameters and the mask of lanes
    /// hit within `[0, max_t]`.
    ///
    /// Per axis the ray enters through the plane it meets first (the minimum for a positive
    /// direction, the maximum for a negative one) and leaves through the other, so no per-lane
    /// min/max is needed (Williams et al., "An Efficient and Robust Ray–Box Intersection
    /// Algorithm", JGT 2005). Conservative against rounding: the boxes are padded (see
    /// [`RayBoxSetup`]), so a ray that touches a box in exact arithmetic, or passes it closer than
    /// the ray/triangle test's rounding, reaches the triangles inside.
    ///
    /// NaN-safe by operand order: SSE `max`/`min` return their second operand when either is NaN,
    /// and the innermost second operands are `0` and `max_t`. A NaN `t` (`0 · ∞` for a ray with a
    /// zero direction component whose origin lies on that slab's plane, running inside the plane)
    /// thus drops its plane's constraint instead of rejecting the box, and `enter`, `exit` are
    /// never NaN.
    #[inline]
    pub fn ray_entry(&self, ray: &RayBoxSetup, max_t: f32) -> (Vec4, u32) {
        let b = &self.bounds;
        let enter_t = |axis: usize| (b[ray.near[axis]] - ray.origin_enter[axis]) * ray.inv_dir[axis];
        let exit_t = |axis: usize| (b[ray.far[axis]] - ray.origin_exit[axis]) * ray.inv_dir[axis];
        let enter = enter_t(0).max(enter_t(1)).max(enter_t(2).max(Vec4::ZERO));
        let exit = exit_t(0).min(exit_t(1)).min(exit_t(2).min(Vec4::splat(max_t)));
        let hit: BVec4A = enter.cmple(exit);
        (enter, hit.bitmask())
    }
}

/// A ray's `max_t` as the limit of [`Node4::ray_entry`]: `None` when no `t` qualifies (a NaN or
/// negative `max_t`), else `max_t` lowered to at most `f32::MAX`. The limit is kept finite so that
/// empty slots, whose box `[+∞, +∞]` a ray may enter at `t = +∞`, never pass the test; checking
/// first matters, since `f32::min` turns a NaN into the other operand, that is, into no limit.
#[inline]
pub(crate) fn ray_limit(max_t: f32) -> Option<f32> {
    (max_t >= 0.0).then(|| max_t.min(f32::MAX))
}

/// Per-ray constants of the SIMD slab test: the origin and `1/dir`, splatted.
///
/// The boxes are padded on every side by [`RAY_BOX_PAD`] times the ray's reach `R`: the largest
/// coordinate magnitude of the origin and of the scene relative to it. The pad moves the origin
/// forward by it along each axis for the entry planes and back for the exit planes, so it costs
/// no instruction per node. It covers two roundings:
/// - the slab test's own: `t = (plane - origin) · (1/dir)` takes three roundings (the
///   reciprocal, the difference, the product) and the padded origin one, about `4u R` in
///   position (`u = 2⁻²⁴`), so a ray that touches a box exactly is never rejected (the signs of
///   `t` are exact);
/// - the ray/triangle test's: it decides exactly, but on vertices translated to the origin and
///   sheared along the ray, which moves them by up to about `16u R`, so a triangle it hits may
///   lie that far outside its box, which no scaling of `t` covers when the ray runs almost
///   parallel to a face of the box (or has a subnormal direction component).
///
/// A zero direction component gives `1/dir = ±∞` (the sign of the zero), so that axis's `t`
/// values are `±∞` of the right sign: the slab holds the whole ray or none of it. A subnormal
/// component overflows to the same. The origin on one of the (padded) slab's planes gives
/// `0 · ∞ = NaN`, which [`Node4::ray_entry`] drops.
#[derive(Clone, Copy, Debug)]
pub struct RayBoxSetup {
    /// The origin moved by the pad: forward (along the direction's signs) for the entry planes,
    /// back for the exit planes.
    origin_enter: [Vec4; 3],
    origin_exit: [Vec4; 3],
    inv_dir: [Vec4; 3],
    /// Per axis, the index into [`Node4::bounds`] of the plane the ray enters through, and of the
    /// one it leaves through.
    near: [usize; 3],
    far: [usize; 3],
    /// The direction's octant, the index into [`Node4::order`].
    pub(super) octant: usize,
}

/// The pad of [`RayBoxSetup`] relative to the ray's reach: `2⁻¹⁹ = 32u`, twice the larger of
/// the two roundings it covers. The ray/triangle test's shear `x' = (x - o_x) - S_x (z - o_z)`
/// (with `|S_x| <= 1`) moves a vertex by at most about `4u` of twice the reach on each of two axes.
pub const RAY_BOX_PAD: f32 = 1.0 / (1 << 19) as f32;

impl RayBoxSetup {
    /// The setup for testing `ray` against boxes inside `scene` (a tree's root box, which sets
    /// the pad).
    pub fn new(ray: &Ray3, scene: &Aabb3) -> Self {
        let inv = Vec3A::ONE / Vec3A::from(ray.dir);
        // A negative `1/dir` (sign bit set, including `-∞` for a direction of -0) enters through
        // the maximum.
        let negative = inv.is_negative_bitmask();
        let near = |axis: usize| axis + 3 * ((negative >> axis) & 1) as usize;
        let far = |axis: usize| 3 - 3 * ((negative >> axis) & 1) as usize + axis;
        let o = Vec3A::from(ray.origin);
        let reach = (Vec3A::from(scene.max) - o)
            .abs()
            .max((Vec3A::from(scene.min) - o).abs())
            .max(o.abs())
            .max_element();
        let forward = Vec3A::splat(RAY_BOX_PAD * reach).copysign(inv);
        let splat = |v: Vec3A| [Vec4::splat(v.x), Vec4::splat(v.y), Vec4::splat(v.z)];
        Self {
            origin_enter: splat(o + forward),
            origin_exit: splat(o - forward),
            inv_dir: [Vec4::splat(inv.x), Vec4::splat(inv.y), Vec4::splat(inv.z)],
            near: [near(0), near(1), near(2)],
            far: [far(0), far(1), far(2)],
            octant: negative as usize,
        }
    }

    /// The setup for boxes grown by `half` on each axis (a moving box's half extents): the
    /// entry planes move toward the origin by `half`, the exit planes away from it.
    pub fn grown(mut self, half: Vec3A) -> Self {
        for axis in 0..3 {
            let toward = half[axis].copysign(self.inv_dir[axis].x);
            self.origin_enter[axis] += Vec4::splat(toward);
            self.origin_exit[axis] -= Vec4::splat(toward);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Huge, infinite-centered and NaN boxes still give every octant a permutation of the lanes.
    #[test]
    fn order_is_a_permutation_for_any_boxes() {
        let mut node = Node4::EMPTY;
        let huge = Vec3A::splat(f32::MAX);
        node.set_child(0, Child::Inner(1), huge, huge);
        node.set_child(1, Child::Inner(2), -huge, -huge);
        node.set_child(2, Child::Inner(3), Vec3A::NAN, Vec3A::ONE);
        for filled in 1..=4 {
            node.child[filled..].fill(0);
            node.update_order();
            for order in node.order {
                let mut lanes: Vec<u8> = (0..4).map(|rank| order >> (2 * rank) & 3).collect();
                lanes.sort_unstable();
                assert_eq!(lanes, [0, 1, 2, 3]);
            }
            node.child = [1, 2, 3, 4];
        }
    }

    /// The SIMD distances agree with the scalar box distance, and the MINMAXDIST bound lies
    /// between it and the farthest corner.
    #[test]
    fn distances_match_the_child_boxes() {
        let mut rng = kollide_testkit::random::rng(13);
        for _ in 0..kollide_testkit::cases(10_000) {
            let mut node = Node4::EMPTY;
            for lane in 0..4 {
                let (a, b) = (
                    kollide_testkit::random::point3(&mut rng, 2.0),
                    kollide_testkit::random::point3(&mut rng, 2.0),
                );
                node.set_child(lane, Child::Inner(lane as u32 + 1), a.min(b).into(), a.max(b).into());
            }
            let p = kollide_testkit::random::point3(&mut rng, 4.0);
            let (near, upper) = (node.distance_squared(p), node.min_max_distance_squared(p));
            for lane in 0..4 {
                let b = node.child_box(lane);
                let exact = b.distance_squared_to_point(p);
                assert!((near[lane] - exact).abs() <= 1e-5 * (1.0 + exact), "{} vs {exact}", near[lane]);
                let farthest = (p - b.center()).abs() + b.half_extents();
                assert!(upper[lane] >= near[lane] - 1e-5 && upper[lane] <= farthest.length_squared() + 1e-4);
            }
        }
    }

    /// Codes round-trip, and the fast decoders agree with [`Child::decode`].
    #[test]
    fn codes_round_trip() {
        let children = [
            Child::Empty,
            Child::Inner(1),
            Child::Inner(INDEX_MASK),
            Child::Leaf { first: 0, count: 1 },
            Child::Leaf { first: INDEX_MASK, count: MAX_LEAF_SIZE as u32 },
        ];
        for child in children {
            let code = child.encode();
            assert_eq!(Child::decode(code), child);
            let range = match child {
                Child::Leaf { first, count } => Some(first..first + count),
                _ => None,
            };
            assert_eq!(leaf_range(code), range);
            let inner = match child {
                Child::Inner(index) => Some(index as usize),
                _ => None,
            };
            assert_eq!(inner_index(code), inner);
        }
    }
}
