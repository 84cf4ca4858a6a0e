//! Many projectiles against many skeletons: a sort-and-sweep over the skeletons' boxes, then the
//! exact tests of each projectile against the node volumes of the skeletons its box meets.

use std::borrow::Borrow;

use super::{BOX_PAD, D2, D3, Skeleton, SkeletonSpace, WorldBall, WorldCapsule};
use crate::broad::BroadBounds;
use crate::math::Ray3;
use crate::primitive::{closest_points_segment_segment, ray_capsule};

/// A ball moving over a frame: it sweeps the capsule from `center` to `center + displacement`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovingBall<D: SkeletonSpace> {
    /// The centre at the start of the frame.
    pub center: D::Vector,
    pub radius: f32,
    /// The motion over the frame (a velocity times the frame's duration).
    pub displacement: D::Vector,
}

/// A ray or segment `ray.origin + t · ray.dir` for `t ∈ [0, max_t]` (the segment `a → b` is the
/// ray `(a, b - a)` with `max_t = 1`; `max_t` may be `+∞`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayProjectile<D: SkeletonSpace> {
    pub ray: D::Ray,
    pub max_t: f32,
}

/// A moving ball of the plane.
pub type MovingBall2 = MovingBall<D2>;
/// A moving ball of space.
pub type MovingBall3 = MovingBall<D3>;
/// A ray or segment of the plane.
pub type RayProjectile2 = RayProjectile<D2>;
/// A ray or segment of space.
pub type RayProjectile3 = RayProjectile<D3>;
/// Scratch space of queries against [`Skeleton2`](super::Skeleton2)s.
pub type SkeletonQuery2 = SkeletonQuery<D2>;
/// Scratch space of queries against [`Skeleton3`](super::Skeleton3)s.
pub type SkeletonQuery3 = SkeletonQuery<D3>;

/// Projectile `projectile` touches the volume of node `node` of skeleton `skeleton` (indices
/// into the slices given to the query).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SkeletonHit {
    pub projectile: u32,
    pub skeleton: u32,
    pub node: u32,
}

/// Ray `projectile` meets the volume of node `node` of skeleton `skeleton` first at parameter
/// `t` (0 when its origin is inside).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkeletonRayHit {
    pub projectile: u32,
    pub skeleton: u32,
    pub node: u32,
    pub t: f32,
}

/// The scratch arrays of the projectile queries, kept by the caller so that a query allocates
/// nothing once they have grown to the number of skeletons.
///
/// Each query sorts the skeletons' [boxes](Skeleton::bounds) along the axis on which their
/// centres spread most, then, for each projectile, visits the skeletons whose box starts within
/// the projectile's box's reach on that axis (two binary searches), tests their boxes, and tests
/// the node volumes of those that overlap with the exact tests. Boxes are padded (see
/// [`Skeleton::bounds`]) so that no hit of the exact tests is lost to rounding.
///
/// The sort is redone by every query, from nothing: animated skeletons all move every frame and
/// each is queried once per frame, so the incremental structures of [`crate::broad`] would pay for
/// updates (re-insertion, fattened bounds) that a sort of a few hundred boxes does not.
#[derive(Clone, Debug)]
pub struct SkeletonQuery<D: SkeletonSpace> {
    axis: usize,
    /// `(lower bound on axis, skeleton)` of every skeleton with a non-empty box, sorted.
    sorted: Vec<(f32, u32)>,
    /// The boxes in `sorted`'s order.
    boxes: Vec<D::Aabb>,
    /// The largest extent along `axis` of those boxes.
    max_extent: f32,
    /// The skeletons one projectile's box meets.
    candidates: Vec<u32>,
}

impl<D: SkeletonSpace> Default for SkeletonQuery<D> {
    fn default() -> Self {
        Self::new()
    }
}

/// `x` clamped to `[0, 1]`; NaN gives 0.
#[inline(always)]
fn clamp01(x: f32) -> f32 {
    if x > 0.0 { x.min(1.0) } else { 0.0 }
}

/// The box of `lo` and `hi` padded by [`BOX_PAD`] of their largest finite coordinate.
#[inline]
fn padded<D: SkeletonSpace>(lo: D::Vector, hi: D::Vector) -> D::Aabb {
    let pad = D::splat(BOX_PAD * D::max_abs_finite(lo).max(D::max_abs_finite(hi)) + f32::MIN_POSITIVE);
    D::aabb(lo - pad, hi + pad)
}

/// Whether the moving ball `p` touches the ball `b`: the distance from `b`'s centre to the
/// segment `p` sweeps is at most the sum of the radii. `inv_dd = 1 / |displacement|²` (0 for a
/// ball at rest). NaN anywhere: `false`.
#[inline(always)]
fn moving_ball_touches_ball<D: SkeletonSpace>(p: &MovingBall<D>, inv_dd: f32, b: &WorldBall<D>) -> bool {
    let to_center = b.center - p.center;
    let t = clamp01(D::dot(to_center, p.displacement) * inv_dd);
    let gap = to_center - p.displacement * t;
    let reach = b.radius + p.radius;
    D::dot(gap, gap) <= reach * reach
}

/// Whether the moving ball `p` touches the capsule `c`: the distance between the segment `p`
/// sweeps and the capsule's segment ([`closest_points_segment_segment`]) is at most the sum of
/// the radii. NaN anywhere: `false`.
#[inline]
fn moving_ball_touches_capsule<D: SkeletonSpace>(p: &MovingBall<D>, c: &WorldCapsule<D>) -> bool {
    let (p0, p1) = (D::to_vec3(p.center), D::to_vec3(p.center + p.displacement));
    let closest = closest_points_segment_segment(p0, p1, D::to_vec3(c.a), D::to_vec3(c.b));
    let reach = c.radius + p.radius;
    closest.distance_squared <= reach * reach
}

/// Where the ray enters the capsule, by [`ray_capsule`]. In 2D the ray and the capsule lie in
/// the plane `z = 0`, whose section of the 3D capsule is exactly the 2D one, so the parameter is
/// the 2D answer.
#[inline]
fn ray_enters_capsule<D: SkeletonSpace>(r: &RayProjectile<D>, c: &WorldCapsule<D>) -> Option<f32> {
    let (origin, dir) = D::ray_parts(&r.ray);
    let ray = Ray3::new(D::to_vec3(origin), D::to_vec3(dir));
    ray_capsule(&ray, r.max_t, D::to_vec3(c.a), D::to_vec3(c.b), c.radius).map(|hit| hit.t)
}

impl<D: SkeletonSpace> SkeletonQuery<D> {
    /// Empty scratch arrays.
    pub fn new() -> Self {
        Self { axis: 0, sorted: Vec::new(), boxes: Vec::new(), max_extent: 0.0, candidates: Vec::new() }
    }

    /// Every pair of a moving ball and a node volume that touch (closed sets: touching counts),
    /// written to `hits` after clearing it, sorted by projectile, then skeleton, then node.
    ///
    /// A ball sweeps the capsule between its centre at the start and at the end of the frame;
    /// it hits a node's world ball or capsule when that capsule and the volume share a point,
    /// tested exactly up to `f32` rounding (distance from a point, or between two segments, to
    /// the sum of the radii). Balls with a non-finite field or a negative radius hit nothing;
    /// only the first `u32::MAX` projectiles and skeletons are looked at. The skeletons are as of
    /// their latest [`update`](Skeleton::update).
    pub fn moving_balls<S: Borrow<Skeleton<D>>>(
        &mut self,
        skeletons: &[S],
        projectiles: &[MovingBall<D>],
        hits: &mut Vec<SkeletonHit>,
    ) {
        hits.clear();
        self.sort_skeletons(skeletons);
        for (p, i) in projectiles.iter().zip(0u32..) {
            let finite = D::is_finite(p.center) && D::is_finite(p.displacement);
            if !(finite && (0.0..f32::INFINITY).contains(&p.radius)) {
                continue;
            }
            let end = p.center + p.displacement;
            let r = D::splat(p.radius);
            let bounds = padded::<D>(D::min(p.center, end) - r, D::max(p.center, end) + r);
            self.gather(&bounds);
            let dd = D::dot(p.displacement, p.displacement);
            let inv_dd = if dd > 0.0 { 1.0 / dd } else { 0.0 };
            for &s in &self.candidates {
                let skeleton = skeletons[s as usize].borrow();
                let first = hits.len();
                for ball in &skeleton.balls {
                    if moving_ball_touches_ball(p, inv_dd, ball) {
                        hits.push(SkeletonHit { projectile: i, skeleton: s, node: ball.node });
                    }
                }
                let from_capsules = hits.len();
                for capsule in &skeleton.capsules {
                    if moving_ball_touches_capsule(p, capsule) {
                        hits.push(SkeletonHit { projectile: i, skeleton: s, node: capsule.node });
                    }
                }
                if from_capsules > first && hits.len() > from_capsules {
                    hits[first..].sort_unstable_by_key(|h| h.node);
                }
            }
        }
    }

    /// Every pair of a ray and a node volume it meets within `[0, max_t]`, with the parameter
    /// where it enters the volume (0 from inside), written to `hits` after clearing it, sorted by
    /// projectile, then skeleton, then node.
    ///
    /// Balls are cast by [`SkeletonSpace::ray_ball`], capsules by [`ray_capsule`]. Rays that break
    /// the primitive ray contract (`crate::primitive#ray-casts`: a non-finite origin, a zero or
    /// non-finite direction, a negative or NaN `max_t`) hit nothing; only the first `u32::MAX`
    /// projectiles and skeletons are looked at.
    pub fn rays<S: Borrow<Skeleton<D>>>(
        &mut self,
        skeletons: &[S],
        projectiles: &[RayProjectile<D>],
        hits: &mut Vec<SkeletonRayHit>,
    ) {
        hits.clear();
        self.sort_skeletons(skeletons);
        for (r, i) in projectiles.iter().zip(0u32..) {
            let (origin, dir) = D::ray_parts(&r.ray);
            let dd = D::dot(dir, dir);
            let valid = (f32::MIN_POSITIVE..=f32::MAX).contains(&dd) && r.max_t >= 0.0;
            if !(valid && D::is_finite(origin)) {
                continue;
            }
            // A finite reach keeps `0 · reach` out of the end point (no NaN); the end may be
            // infinite.
            let end = origin + dir * r.max_t.min(f32::MAX);
            self.gather(&padded::<D>(D::min(origin, end), D::max(origin, end)));
            for &s in &self.candidates {
                let skeleton = skeletons[s as usize].borrow();
                let first = hits.len();
                for ball in &skeleton.balls {
                    if let Some(t) = D::ray_ball(&r.ray, r.max_t, ball.center, ball.radius) {
                        hits.push(SkeletonRayHit { projectile: i, skeleton: s, node: ball.node, t });
                    }
                }
                let from_capsules = hits.len();
                for capsule in &skeleton.capsules {
                    if let Some(t) = ray_enters_capsule(r, capsule) {
                        hits.push(SkeletonRayHit { projectile: i, skeleton: s, node: capsule.node, t });
                    }
                }
                if from_capsules > first && hits.len() > from_capsules {
                    hits[first..].sort_unstable_by_key(|h| h.node);
                }
            }
        }
    }

    /// Sorts the non-empty skeleton boxes along the axis of largest spread of their centres.
    fn sort_skeletons<S: Borrow<Skeleton<D>>>(&mut self, skeletons: &[S]) {
        let dim = <D::Aabb as BroadBounds>::DIM;
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let non_empty = |b: &D::Aabb| (0..dim).all(|a| b.lo(a) <= b.hi(a));
        for skeleton in skeletons {
            let b = skeleton.borrow().bounds;
            if non_empty(&b) {
                for a in 0..dim {
                    let center = 0.5 * b.lo(a) + 0.5 * b.hi(a);
                    (lo[a], hi[a]) = (lo[a].min(center), hi[a].max(center));
                }
            }
        }
        self.axis = (0..dim).fold(0, |best, a| if hi[a] - lo[a] > hi[best] - lo[best] { a } else { best });
        let axis = self.axis;
        self.sorted.clear();
        for (skeleton, s) in skeletons.iter().zip(0u32..) {
            let b = skeleton.borrow().bounds;
            if non_empty(&b) {
                self.sorted.push((b.lo(axis), s));
            }
        }
        self.sorted.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        self.boxes.clear();
        self.max_extent = 0.0;
        for &(_, s) in &self.sorted {
            let b = skeletons[s as usize].borrow().bounds;
            self.max_extent = self.max_extent.max(b.hi(axis) - b.lo(axis));
            self.boxes.push(b);
        }
    }

    /// Fills `candidates` with the skeletons whose boxes overlap `bounds`, ascending.
    ///
    /// A box that overlaps `bounds` starts at or before `bounds`' end on the sweep axis and at
    /// most the largest extent before its start; the reach is widened by `1e-5` of the extent
    /// and of the coordinate, far beyond the rounding of the subtraction, so no overlapping box
    /// falls outside the window.
    #[inline]
    fn gather(&mut self, bounds: &D::Aabb) {
        self.candidates.clear();
        let (start, end) = (bounds.lo(self.axis), bounds.hi(self.axis));
        let reach = start - (self.max_extent * (1.0 + 1e-5) + start.abs() * 1e-5);
        let first = self.sorted.partition_point(|e| e.0 < reach);
        let last = self.sorted.partition_point(|e| e.0 <= end);
        for k in first..last.max(first) {
            if self.boxes[k].overlaps_simd(bounds) {
                self.candidates.push(self.sorted[k].1);
            }
        }
        self.candidates.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use glam::{Affine2, Vec2, Vec3};

    use super::*;
    use crate::math::Ray2;
    use crate::skeleton::{NodeVolume, Skeleton2, SkeletonNode2};

    fn two_ball_skeleton(at: Vec2) -> Skeleton2 {
        let mut skeleton = Skeleton2::new(&[
            SkeletonNode2 {
                parent: None,
                local: Affine2::IDENTITY,
                volume: NodeVolume::Ball { radius: 1.0 },
            },
            SkeletonNode2 {
                parent: Some(0),
                local: Affine2::from_translation(Vec2::new(3.0, 0.0)),
                volume: NodeVolume::Capsule { half_height: 1.0, radius: 0.5 },
            },
        ])
        .unwrap();
        skeleton.update(&Affine2::from_translation(at));
        skeleton
    }

    #[test]
    fn touching_counts_and_order_is_projectile_skeleton_node() {
        let skeletons = [two_ball_skeleton(Vec2::ZERO), two_ball_skeleton(Vec2::new(0.0, 10.0))];
        let mut query = SkeletonQuery2::new();
        let mut hits = Vec::new();
        // A ball sweeping along y = 0 from x = -5 to 5 touches both nodes of skeleton 0; the
        // second, touching node 1's capsule exactly at its top (y = 1 + 0.5 = 1.5), also counts.
        let projectiles = [
            MovingBall2 { center: Vec2::new(20.0, 20.0), radius: 0.1, displacement: Vec2::ZERO },
            MovingBall2 { center: Vec2::new(-5.0, 0.0), radius: 0.2, displacement: Vec2::new(10.0, 0.0) },
            MovingBall2 { center: Vec2::new(3.0, 2.5), radius: 0.5, displacement: Vec2::new(0.0, 6.0) },
            MovingBall2 { center: Vec2::new(3.0, 2.5), radius: 0.5, displacement: Vec2::new(0.0, -0.5) },
        ];
        query.moving_balls(&skeletons, &projectiles, &mut hits);
        let triples: Vec<_> = hits.iter().map(|h| (h.projectile, h.skeleton, h.node)).collect();
        assert_eq!(triples, [(1, 0, 0), (1, 0, 1), (2, 1, 1), (3, 0, 1)]);
        let rays = [RayProjectile2 { ray: Ray2::new(Vec2::new(-5.0, 0.0), Vec2::X), max_t: f32::INFINITY }];
        let mut ray_hits = Vec::new();
        query.rays(&skeletons, &rays, &mut ray_hits);
        assert_eq!(ray_hits.len(), 2);
        assert_eq!((ray_hits[0].node, ray_hits[0].t), (0, 4.0));
        assert_eq!((ray_hits[1].node, ray_hits[1].t), (1, 7.5));
        // The 2D capsule cast through the 3D primitive is the plane section.
        let ray = Ray3::new(Vec3::new(-5.0, 0.0, 0.0), Vec3::X);
        let direct = ray_capsule(&ray, 10.0, Vec3::new(3.0, -1.0, 0.0), Vec3::new(3.0, 1.0, 0.0), 0.5);
        assert_eq!(direct.map(|h| h.t), Some(7.5));
    }
}
