use glam::{Affine2, Affine3A, BVec3A, Vec2, Vec3, Vec3A};

use crate::math::{Ray2, Ray3};

/// An axis-aligned box in 3D: every point `p` with `min <= p <= max` componentwise.
///
/// The box is closed: points on its faces are inside, and boxes that share only a face, an edge or
/// a corner overlap. A box with `min > max` on some axis is *inverted* and stands for the empty
/// set; [`Aabb3::EMPTY`] is the canonical one. Each method says how it treats inverted boxes and
/// NaN coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb3 {
    pub min: Vec3,
    pub max: Vec3,
}

/// An axis-aligned box in 2D: every point `p` with `min <= p <= max` componentwise.
///
/// The same API and conventions as [`Aabb3`], with [`Vec2`], [`Ray2`] and [`Affine2`];
/// "surface area" is the perimeter and "volume" is [`Aabb2::area`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb2 {
    pub min: Vec2,
    pub max: Vec2,
}

/// The small interface that the generic BVH and broad phases need from a bounding box.
///
/// Implemented by [`Aabb2`] and [`Aabb3`]; every method forwards to the inherent method of the same
/// name, whose documentation gives the exact contract (boundaries, empty boxes, NaN).
pub trait Bounds: Copy {
    /// The point type (`Vec2` or `Vec3`).
    type Point: Copy;

    /// The empty box, the identity of [`Bounds::merge`] (`min = +∞`, `max = -∞`).
    fn empty() -> Self;

    /// The smallest box containing both boxes.
    fn merge(&self, other: &Self) -> Self;

    /// Whether the two closed boxes share at least one point.
    fn overlaps(&self, other: &Self) -> bool;

    /// Whether `other` lies inside `self` (boundaries included).
    fn contains(&self, other: &Self) -> bool;

    /// The cost measure of the surface area heuristic: surface area in 3D, perimeter in 2D;
    /// zero for empty (inverted) boxes.
    fn surface_area(&self) -> f32;

    /// The center point.
    fn center(&self) -> Self::Point;
}

/// The factor by which the slab tests of boxes ([`Aabb3::ray_interval`], [`Aabb2::ray_interval`],
/// the broad phases) scale the exit parameter before comparing it with the entry, so that a ray
/// that touches a box in exact arithmetic (aimed at its corner, say) is never rejected by
/// rounding. BVH traversals pad their boxes instead (`bvh::RAY_BOX_PAD`).
///
/// Each slab parameter `t = (b - o) · (1/d)` takes three roundings (the reciprocal, the
/// difference, the product), so the computed `t̃` has `|t̃ - t| ≤ γ₃ |t|` with `γ₃ = 3u / (1 - 3u)`
/// and `u = 2⁻²⁴`; the signs are exact. If `entry ≤ exit` exactly, then `entry~ ≤ exit~ · (1 + γ₃) /
/// (1 - γ₃)`, just under `1 + 6u`; `1 + 8u = 1 + 4ε` also covers the rounding of the scaling
/// product, `(1 + γ₃) / (1 - γ₄) < 1 + 8u` (Ize, "Robust BVH Ray Traversal", JCGT 2(2), 2013; Pharr, Jakob, Humphreys, *Physically Based
/// Rendering*, §3.9.2). The entry is left as computed, so the boxes reached are a superset of
/// the exact ones, larger by a relative `4ε` of the distance along the ray.
pub const SLAB_EXIT_SCALE: f32 = 1.0 + 4.0 * f32::EPSILON;

/// Per lane `if a > b { a } else { b }`: `max`, with a NaN in `a` replaced by `b`.
///
/// On x86 glam's `max` is `maxps(a, b)`, which is defined as exactly this (one instruction); on
/// other targets glam may use NaN-propagating instructions, so the comparison is spelled out.
#[inline(always)]
fn max_or(a: Vec3A, b: Vec3A) -> Vec3A {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        a.max(b)
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        Vec3A::select(a.cmpgt(b), a, b)
    }
}

/// Per lane `if a < b { a } else { b }`: `min`, with a NaN in `a` replaced by `b`. See [`max_or`].
#[inline(always)]
fn min_or(a: Vec3A, b: Vec3A) -> Vec3A {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        a.min(b)
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        Vec3A::select(a.cmplt(b), a, b)
    }
}

/// `max(acc, x)`, except that a NaN `x` is ignored and a NaN `acc` is kept.
#[inline(always)]
fn max_keep_acc(acc: f32, x: f32) -> f32 {
    if x > acc { x } else { acc }
}

/// `min(acc, x)`, except that a NaN `x` is ignored and a NaN `acc` is kept.
#[inline(always)]
fn min_keep_acc(acc: f32, x: f32) -> f32 {
    if x < acc { x } else { acc }
}

impl Aabb3 {
    /// The empty box: `min = +∞`, `max = -∞` on every axis.
    ///
    /// It is the identity of [`Aabb3::merge`] and [`Aabb3::grow`], [`Aabb3::is_empty`] is `true`,
    /// it overlaps nothing, contains no point, and every box contains it.
    pub const EMPTY: Self = Self { min: Vec3::INFINITY, max: Vec3::NEG_INFINITY };

    /// The box with the given corners. No check: `min > max` on some axis gives an inverted box.
    #[inline]
    pub fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// The box `center ± half_extents`. A negative half extent gives an inverted (empty) box.
    #[inline]
    pub fn from_center_half_extents(center: Vec3, half_extents: Vec3) -> Self {
        Self { min: center - half_extents, max: center + half_extents }
    }

    /// The smallest box containing every point, or `None` if `points` is empty or some point has a
    /// NaN or infinite coordinate.
    pub fn from_points(points: &[Vec3]) -> Option<Self> {
        let (&first, rest) = points.split_first()?;
        let (mut min, mut max) = (first, first);
        let mut finite = first.is_finite();
        for &p in rest {
            min = min.min(p);
            max = max.max(p);
            finite &= p.is_finite();
        }
        finite.then_some(Self { min, max })
    }

    /// Whether the box is inverted on some axis (`min > max`), i.e. contains no point.
    ///
    /// [`Aabb3::EMPTY`] is empty; a zero-extent box (`min == max`) is not; a box whose only
    /// defect is a NaN coordinate is not empty (and not valid either, see [`Aabb3::is_valid`]).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.min.cmpgt(self.max).any()
    }

    /// Whether every coordinate is finite and `min <= max` on every axis.
    #[inline]
    pub fn is_valid(&self) -> bool {
        self.min.is_finite() & self.max.is_finite() & self.min.cmple(self.max).all()
    }

    /// The center `(min + max) / 2`. NaN components for [`Aabb3::EMPTY`] (`∞ - ∞`).
    #[inline]
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Half the size, `(max - min) / 2`; negative on the inverted axes of an inverted box.
    #[inline]
    pub fn half_extents(&self) -> Vec3 {
        (self.max - self.min) * 0.5
    }

    /// The edge lengths `max - min`; negative on the inverted axes of an inverted box.
    #[inline]
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }

    /// The surface area `2 (xy + yz + zx)`, the cost measure of the surface area heuristic.
    ///
    /// 0 for an empty (inverted) box and for a box with a NaN coordinate.
    #[inline]
    pub fn surface_area(&self) -> f32 {
        let s = self.size();
        let area = 2.0 * (s.x * s.y + s.y * s.z + s.z * s.x);
        if s.cmpge(Vec3::ZERO).all() { area } else { 0.0 }
    }

    /// The volume `x y z`; 0 for a flat box, an empty (inverted) box and a box with a NaN
    /// coordinate.
    #[inline]
    pub fn volume(&self) -> f32 {
        let s = self.size();
        if s.cmpge(Vec3::ZERO).all() { s.x * s.y * s.z } else { 0.0 }
    }

    /// The smallest box containing both: componentwise `min` of the mins and `max` of the maxes.
    ///
    /// [`Aabb3::EMPTY`] is the identity. Merging with another inverted box is the componentwise
    /// formula (it may un-invert an axis). NaN follows glam's `min`/`max`: a NaN in `other` is
    /// kept, a NaN in `self` is replaced by `other`'s coordinate.
    #[inline]
    pub fn merge(&self, other: &Self) -> Self {
        Self { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// Enlarges the box in place to contain `p`. Growing [`Aabb3::EMPTY`] by `p` gives the
    /// zero-extent box at `p`.
    #[inline]
    pub fn grow(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// The box moved outwards by `margin` on every side (`min - margin`, `max + margin`).
    ///
    /// A negative margin shrinks the box and may invert it. [`Aabb3::EMPTY`] stays empty for any
    /// finite margin.
    #[inline]
    pub fn expanded(&self, margin: f32) -> Self {
        Self { min: self.min - Vec3::splat(margin), max: self.max + Vec3::splat(margin) }
    }

    /// Whether the two closed boxes share a point (touching faces, edges or corners count).
    ///
    /// Branchless: six comparisons combined with `&`. Inverted boxes are not checked for (speed);
    /// the answer is the componentwise interval test on the stored coordinates, which is `false`
    /// whenever either box is [`Aabb3::EMPTY`]. Any NaN coordinate makes it `false`.
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        (self.min.x <= other.max.x)
            & (other.min.x <= self.max.x)
            & (self.min.y <= other.max.y)
            & (other.min.y <= self.max.y)
            & (self.min.z <= other.max.z)
            & (other.min.z <= self.max.z)
    }

    /// Whether `other ⊆ self` (shared boundaries count as inside).
    ///
    /// An empty (inverted) `other` is the empty set and is contained in every box, including an
    /// empty one; a non-empty `other` is never inside an empty `self`. Any NaN coordinate in a
    /// non-empty `other`, or in `self`, makes it `false`.
    #[inline]
    pub fn contains(&self, other: &Self) -> bool {
        (self.min.cmple(other.min) & other.max.cmple(self.max)).all() | other.is_empty()
    }

    /// Whether `p` is inside the closed box. `false` for empty boxes and for any NaN.
    #[inline]
    pub fn contains_point(&self, p: Vec3) -> bool {
        (self.min.cmple(p) & p.cmple(self.max)).all()
    }

    /// The point of the box closest to `p` (`p` itself if inside): `p` clamped to `[min, max]`.
    ///
    /// On an inverted axis the result is `max` on that axis, so for [`Aabb3::EMPTY`] it is
    /// `(-∞, -∞, -∞)` and [`Aabb3::distance_squared_to_point`] is `+∞`.
    #[inline]
    pub fn closest_point(&self, p: Vec3) -> Vec3 {
        p.max(self.min).min(self.max)
    }

    /// The squared distance from `p` to the box, 0 if `p` is inside. `+∞` for [`Aabb3::EMPTY`].
    #[inline]
    pub fn distance_squared_to_point(&self, p: Vec3) -> f32 {
        (self.closest_point(p) - p).length_squared()
    }

    /// The parameter interval `[entry, exit]` of the ray inside the closed box, clipped to
    /// `[0, max_t]`, or `None` if the ray misses the box within that range.
    ///
    /// An origin inside the box gives `entry = 0`; a ray that only grazes an edge or corner gives
    /// `entry == exit`. Conservative against rounding: a ray that touches the box in exact
    /// arithmetic is never missed ([`SLAB_EXIT_SCALE`]). Components of `dir` equal to 0 are
    /// handled by IEEE infinities in `1 / dir` (see [`Aabb3::ray_interval_inv`] for the
    /// origin-on-a-slab-plane case): a ray running inside a face plane hits the box. `None` if `dir` has a NaN or infinite component, the
    /// origin has a NaN component, `max_t` is NaN or negative, or the box is inverted (so
    /// [`Aabb3::EMPTY`] is never hit) or has a NaN coordinate. A zero `dir` gives
    /// `Some((0, max_t))` if the origin is inside, else `None` (also for `max_t = ∞`: the entry is
    /// always finite).
    #[inline]
    pub fn ray_interval(&self, ray: &Ray3, max_t: f32) -> Option<(f32, f32)> {
        let o = Vec3A::from(ray.origin);
        let dir = Vec3A::from(ray.dir);
        // 1/dir of a finite dir is never NaN; an infinite dir would give inv = 0 (meaningless).
        self.slab_interval(o, Vec3A::ONE / dir, max_t, dir.is_finite_mask())
    }

    /// [`Aabb3::ray_interval`] with the reciprocal direction `inv_dir = 1 / dir` precomputed (for
    /// many boxes against one ray).
    ///
    /// Slab test (Kay & Kajiya 1986; Williams et al. 2005): on axis `i` the ray is inside the
    /// slab for `t` between `t₁ = (min - o) inv` and `t₂ = (max - o) inv`. Each axis contributes
    /// `near = min(max(t₁, 0), max(t₂, 0))` and `far = max(min(t₁, max_t), min(t₂, max_t))`;
    /// the interval is `[max near, min far]`.
    ///
    /// NaN case: when `dir` is 0 on an axis (`inv = ±∞`) and the origin lies exactly on one of that
    /// slab's planes, `0 · ∞` is NaN. The ray then runs inside the plane, which belongs to the
    /// closed slab, so that axis must not constrain `t`. The inner `max(t, 0)` and `min(t, max_t)`
    /// are written as `if t > 0 { t } else { 0 }` and `if t < max_t { t } else { max_t }`, which
    /// turn a NaN into the neutral bound, while the other plane of the slab gives `±∞` of the
    /// right sign, so the answer agrees with [`Aabb3::contains_point`] along the whole ray (Tavian
    /// Barnes, "Fast, branchless ray/bounding box intersections, part 3: boundaries", 2022).
    ///
    /// `None` if `origin` or `inv_dir` has a NaN component, `max_t` is NaN or negative, or the box
    /// is inverted or has a NaN coordinate. An infinite `inv_dir` component means a zero `dir`
    /// component; a zero `inv_dir` component (an infinite `dir`) is not meaningful.
    #[inline]
    pub fn ray_interval_inv(&self, origin: Vec3, inv_dir: Vec3, max_t: f32) -> Option<(f32, f32)> {
        let inv = Vec3A::from(inv_dir);
        self.slab_interval(Vec3A::from(origin), inv, max_t, !inv.is_nan_mask())
    }

    /// The slab test shared by the two ray entry points; `ok` is the caller's direction check.
    #[inline(always)]
    fn slab_interval(&self, o: Vec3A, inv: Vec3A, max_t: f32, ok: BVec3A) -> Option<(f32, f32)> {
        let (bmin, bmax) = (Vec3A::from(self.min), Vec3A::from(self.max));
        let lo = (bmin - o) * inv;
        let hi = (bmax - o) * inv;
        let (zero, end) = (Vec3A::ZERO, Vec3A::splat(max_t));
        let near = min_or(max_or(lo, zero), max_or(hi, zero));
        let far = max_or(min_or(lo, end), min_or(hi, end));
        // `near` has no NaN; `far` is NaN only if `max_t` is, and then the test below fails.
        let t0 = max_keep_acc(max_keep_acc(near.x, near.y), near.z);
        let t1 = min_keep_acc(min_keep_acc(far.x, far.y), far.z);
        let valid = (bmin.cmple(bmax) & !o.is_nan_mask() & ok).all();
        // A box reached only "at t = ∞" (a zero `dir` from outside with `max_t = ∞`) is missed.
        // A graze that rounding put just outside comes back as `entry == exit`.
        (valid & (t0 <= t1 * SLAB_EXIT_SCALE) & (t0 < f32::INFINITY)).then_some((t0, t1.max(t0)))
    }

    /// The exact bounding box of this box mapped by `transform` (non-uniform scale, shear and
    /// reflection allowed).
    ///
    /// Arvo, "Transforming axis-aligned bounding boxes", Graphics Gems (1990): the image of the
    /// box is a parallelepiped centred at `M c + t` whose extent along world axis `i` is
    /// `Σ_j |M_ij| h_j`, i.e. the new half extents are `|M| h`. Exact up to f32 rounding.
    ///
    /// An empty (inverted) box or one with a NaN coordinate gives [`Aabb3::EMPTY`].
    #[inline]
    pub fn transformed(&self, transform: &Affine3A) -> Self {
        if !self.min.cmple(self.max).all() {
            return Self::EMPTY;
        }
        let c = transform.transform_point3a(Vec3A::from(self.center()));
        let h = self.half_extents();
        let m = &transform.matrix3;
        let e = m.x_axis.abs() * h.x + m.y_axis.abs() * h.y + m.z_axis.abs() * h.z;
        Self { min: (c - e).into(), max: (c + e).into() }
    }
}

impl Bounds for Aabb3 {
    type Point = Vec3;

    #[inline]
    fn empty() -> Self {
        Self::EMPTY
    }

    #[inline]
    fn merge(&self, other: &Self) -> Self {
        Aabb3::merge(self, other)
    }

    #[inline]
    fn overlaps(&self, other: &Self) -> bool {
        Aabb3::overlaps(self, other)
    }

    #[inline]
    fn contains(&self, other: &Self) -> bool {
        Aabb3::contains(self, other)
    }

    #[inline]
    fn surface_area(&self) -> f32 {
        Aabb3::surface_area(self)
    }

    #[inline]
    fn center(&self) -> Vec3 {
        Aabb3::center(self)
    }
}

impl Aabb2 {
    /// The empty box: `min = +∞`, `max = -∞`. See [`Aabb3::EMPTY`].
    pub const EMPTY: Self = Self { min: Vec2::INFINITY, max: Vec2::NEG_INFINITY };

    /// The box with the given corners. No check: `min > max` on some axis gives an inverted box.
    #[inline]
    pub fn new(min: Vec2, max: Vec2) -> Self {
        Self { min, max }
    }

    /// The box `center ± half_extents`. A negative half extent gives an inverted (empty) box.
    #[inline]
    pub fn from_center_half_extents(center: Vec2, half_extents: Vec2) -> Self {
        Self { min: center - half_extents, max: center + half_extents }
    }

    /// The smallest box containing every point, or `None` if `points` is empty or some point has a
    /// NaN or infinite coordinate.
    pub fn from_points(points: &[Vec2]) -> Option<Self> {
        let (&first, rest) = points.split_first()?;
        let (mut min, mut max) = (first, first);
        let mut finite = first.is_finite();
        for &p in rest {
            min = min.min(p);
            max = max.max(p);
            finite &= p.is_finite();
        }
        finite.then_some(Self { min, max })
    }

    /// Whether the box is inverted on some axis (`min > max`). See [`Aabb3::is_empty`].
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.min.cmpgt(self.max).any()
    }

    /// Whether every coordinate is finite and `min <= max` on every axis.
    #[inline]
    pub fn is_valid(&self) -> bool {
        self.min.is_finite() & self.max.is_finite() & self.min.cmple(self.max).all()
    }

    /// The center `(min + max) / 2`. NaN components for [`Aabb2::EMPTY`].
    #[inline]
    pub fn center(&self) -> Vec2 {
        (self.min + self.max) * 0.5
    }

    /// Half the size, `(max - min) / 2`; negative on inverted axes.
    #[inline]
    pub fn half_extents(&self) -> Vec2 {
        (self.max - self.min) * 0.5
    }

    /// The edge lengths `max - min`; negative on inverted axes.
    #[inline]
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }

    /// The perimeter `2 (x + y)`, the 2D cost measure of the surface area heuristic.
    ///
    /// 0 for an empty (inverted) box and for a box with a NaN coordinate.
    #[inline]
    pub fn surface_area(&self) -> f32 {
        let s = self.size();
        if s.cmpge(Vec2::ZERO).all() { 2.0 * (s.x + s.y) } else { 0.0 }
    }

    /// The area `x y`; 0 for a flat, empty (inverted) or NaN box.
    #[inline]
    pub fn area(&self) -> f32 {
        let s = self.size();
        if s.cmpge(Vec2::ZERO).all() { s.x * s.y } else { 0.0 }
    }

    /// The smallest box containing both. See [`Aabb3::merge`] for empty boxes and NaN.
    #[inline]
    pub fn merge(&self, other: &Self) -> Self {
        Self { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// Enlarges the box in place to contain `p`. See [`Aabb3::grow`].
    #[inline]
    pub fn grow(&mut self, p: Vec2) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// The box moved outwards by `margin` on every side. See [`Aabb3::expanded`].
    #[inline]
    pub fn expanded(&self, margin: f32) -> Self {
        Self { min: self.min - Vec2::splat(margin), max: self.max + Vec2::splat(margin) }
    }

    /// Whether the two closed boxes share a point. Branchless; see [`Aabb3::overlaps`] for
    /// inverted boxes (`false` with [`Aabb2::EMPTY`]) and NaN (`false`).
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        (self.min.x <= other.max.x)
            & (other.min.x <= self.max.x)
            & (self.min.y <= other.max.y)
            & (other.min.y <= self.max.y)
    }

    /// Whether `other ⊆ self`; an empty `other` is inside every box. See [`Aabb3::contains`].
    #[inline]
    pub fn contains(&self, other: &Self) -> bool {
        (self.min.cmple(other.min) & other.max.cmple(self.max)).all() | other.is_empty()
    }

    /// Whether `p` is inside the closed box. `false` for empty boxes and for any NaN.
    #[inline]
    pub fn contains_point(&self, p: Vec2) -> bool {
        (self.min.cmple(p) & p.cmple(self.max)).all()
    }

    /// `p` clamped to `[min, max]`. See [`Aabb3::closest_point`] for inverted boxes.
    #[inline]
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        p.max(self.min).min(self.max)
    }

    /// The squared distance from `p` to the box, 0 if inside, `+∞` for [`Aabb2::EMPTY`].
    #[inline]
    pub fn distance_squared_to_point(&self, p: Vec2) -> f32 {
        (self.closest_point(p) - p).length_squared()
    }

    /// The parameter interval of the ray inside the closed box, clipped to `[0, max_t]`.
    /// Same contract as [`Aabb3::ray_interval`].
    #[inline]
    pub fn ray_interval(&self, ray: &Ray2, max_t: f32) -> Option<(f32, f32)> {
        self.slab_interval(ray.origin, ray.dir.recip(), max_t, ray.dir.is_finite())
    }

    /// [`Aabb2::ray_interval`] with `inv_dir = 1 / dir` precomputed. Same slab test and NaN
    /// handling as [`Aabb3::ray_interval_inv`].
    #[inline]
    pub fn ray_interval_inv(&self, origin: Vec2, inv_dir: Vec2, max_t: f32) -> Option<(f32, f32)> {
        self.slab_interval(origin, inv_dir, max_t, !inv_dir.is_nan())
    }

    /// The slab test of [`Aabb3::ray_interval_inv`] in 2D; `ok` is the caller's direction check.
    #[inline(always)]
    fn slab_interval(&self, o: Vec2, inv: Vec2, max_t: f32, ok: bool) -> Option<(f32, f32)> {
        let lo = (self.min - o) * inv;
        let hi = (self.max - o) * inv;
        // `if a > b { a } else { b }`: NaN in `a` gives `b` (see `Aabb3::ray_interval_inv`).
        let pick_max = |a: f32, b: f32| if a > b { a } else { b };
        let pick_min = |a: f32, b: f32| if a < b { a } else { b };
        let near_x = pick_min(pick_max(lo.x, 0.0), pick_max(hi.x, 0.0));
        let near_y = pick_min(pick_max(lo.y, 0.0), pick_max(hi.y, 0.0));
        let far_x = pick_max(pick_min(lo.x, max_t), pick_min(hi.x, max_t));
        let far_y = pick_max(pick_min(lo.y, max_t), pick_min(hi.y, max_t));
        let t0 = max_keep_acc(near_x, near_y);
        let t1 = min_keep_acc(far_x, far_y);
        let valid = self.min.cmple(self.max).all() & !o.is_nan() & ok;
        // A box reached only "at t = ∞" (a zero `dir` from outside with `max_t = ∞`) is missed;
        // a graze that rounding put just outside comes back as `entry == exit`.
        (valid & (t0 <= t1 * SLAB_EXIT_SCALE) & (t0 < f32::INFINITY)).then_some((t0, t1.max(t0)))
    }

    /// The exact bounding box of this box under `transform`: center mapped, half extents
    /// `|M| h` (Arvo 1990). An empty box or one with a NaN coordinate gives [`Aabb2::EMPTY`].
    #[inline]
    pub fn transformed(&self, transform: &Affine2) -> Self {
        if !self.min.cmple(self.max).all() {
            return Self::EMPTY;
        }
        let c = transform.transform_point2(self.center());
        let h = self.half_extents();
        let m = &transform.matrix2;
        let e = m.x_axis.abs() * h.x + m.y_axis.abs() * h.y;
        Self { min: c - e, max: c + e }
    }
}

impl Bounds for Aabb2 {
    type Point = Vec2;

    #[inline]
    fn empty() -> Self {
        Self::EMPTY
    }

    #[inline]
    fn merge(&self, other: &Self) -> Self {
        Aabb2::merge(self, other)
    }

    #[inline]
    fn overlaps(&self, other: &Self) -> bool {
        Aabb2::overlaps(self, other)
    }

    #[inline]
    fn contains(&self, other: &Self) -> bool {
        Aabb2::contains(self, other)
    }

    #[inline]
    fn surface_area(&self) -> f32 {
        Aabb2::surface_area(self)
    }

    #[inline]
    fn center(&self) -> Vec2 {
        Aabb2::center(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat3;

    fn unit() -> Aabb3 {
        Aabb3::new(Vec3::ZERO, Vec3::ONE)
    }

    #[test]
    fn empty_is_identity_and_overlaps_nothing() {
        let b = Aabb3::new(Vec3::new(-1.0, 2.0, 0.5), Vec3::new(3.0, 4.0, 0.5));
        assert!(Aabb3::EMPTY.is_empty());
        assert!(!Aabb3::EMPTY.is_valid());
        assert_eq!(Aabb3::EMPTY.merge(&b), b);
        assert_eq!(b.merge(&Aabb3::EMPTY), b);
        assert!(!Aabb3::EMPTY.overlaps(&b) && !b.overlaps(&Aabb3::EMPTY));
        assert!(!Aabb3::EMPTY.overlaps(&Aabb3::EMPTY));
        assert!(b.contains(&Aabb3::EMPTY) && Aabb3::EMPTY.contains(&Aabb3::EMPTY));
        assert!(!Aabb3::EMPTY.contains(&b));
        assert!(!Aabb3::EMPTY.contains_point(Vec3::ZERO));
        assert_eq!(Aabb3::EMPTY.surface_area(), 0.0);
        assert_eq!(Aabb3::EMPTY.volume(), 0.0);
        assert_eq!(Aabb3::EMPTY.distance_squared_to_point(Vec3::ZERO), f32::INFINITY);
        let mut g = Aabb3::EMPTY;
        g.grow(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(g, Aabb3::new(Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 2.0, 3.0)));
        assert!(Aabb3::EMPTY.expanded(5.0).is_empty());
        assert!(Aabb2::EMPTY.is_empty() && !Aabb2::EMPTY.overlaps(&Aabb2::EMPTY));
    }

    #[test]
    fn measures() {
        let b = Aabb3::new(Vec3::ZERO, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(b.surface_area(), 22.0);
        assert_eq!(b.volume(), 6.0);
        assert_eq!(b.center(), Vec3::new(0.5, 1.0, 1.5));
        assert_eq!(b.half_extents(), Vec3::new(0.5, 1.0, 1.5));
        let r = Aabb2::new(Vec2::ZERO, Vec2::new(2.0, 3.0));
        assert_eq!(r.surface_area(), 10.0);
        assert_eq!(r.area(), 6.0);
        assert_eq!(
            Aabb3::from_center_half_extents(Vec3::ONE, Vec3::splat(0.5)),
            Aabb3::new(Vec3::splat(0.5), Vec3::splat(1.5))
        );
    }

    #[test]
    fn touching_boxes_overlap() {
        let a = unit();
        let face = Aabb3::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
        let corner = Aabb3::new(Vec3::ONE, Vec3::splat(2.0));
        let apart = Aabb3::new(Vec3::new(1.0 + 1e-6, 0.0, 0.0), Vec3::splat(2.0));
        assert!(a.overlaps(&face) && a.overlaps(&corner));
        assert!(!a.overlaps(&apart));
        assert!(a.contains_point(Vec3::ONE));
    }

    #[test]
    fn ray_interval_basic_and_degenerate_directions() {
        let b = unit();
        let r = Ray3::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::X);
        assert_eq!(b.ray_interval(&r, 10.0), Some((1.0, 2.0)));
        assert_eq!(b.ray_interval(&r, 1.5), Some((1.0, 1.5)));
        assert_eq!(b.ray_interval(&r, 0.5), None);
        // Origin inside.
        let r = Ray3::new(Vec3::splat(0.5), Vec3::new(0.0, 0.0, -1.0));
        assert_eq!(b.ray_interval(&r, 10.0), Some((0.0, 0.5)));
        // Sliding along a face plane: dir.y = 0 and origin.y = 0 (0 * inf = NaN case).
        let r = Ray3::new(Vec3::new(-1.0, 0.0, 0.5), Vec3::X);
        assert_eq!(b.ray_interval(&r, 10.0), Some((1.0, 2.0)));
        let r = Ray3::new(Vec3::new(-1.0, 1.0, 0.5), Vec3::new(1.0, -0.0, 0.0));
        assert_eq!(b.ray_interval(&r, 10.0), Some((1.0, 2.0)));
        // Along an edge of a zero-thickness box.
        let flat = Aabb3::new(Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0));
        let r = Ray3::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::X);
        assert_eq!(flat.ray_interval(&r, 10.0), Some((1.0, 2.0)));
        // Parallel outside.
        let r = Ray3::new(Vec3::new(-1.0, 1.5, 0.5), Vec3::X);
        assert_eq!(b.ray_interval(&r, 10.0), None);
        // Zero direction.
        let zero_in = Ray3::new(Vec3::splat(0.5), Vec3::ZERO);
        let zero_out = Ray3::new(Vec3::splat(1.5), Vec3::ZERO);
        assert_eq!(b.ray_interval(&zero_in, 3.0), Some((0.0, 3.0)));
        assert_eq!(b.ray_interval(&zero_out, 3.0), None);
        // Grazing a corner.
        let r = Ray3::new(Vec3::new(0.0, 2.0, 1.0), Vec3::new(1.0, -1.0, 0.0));
        assert_eq!(b.ray_interval(&r, 10.0), Some((1.0, 1.0)));
    }

    #[test]
    fn ray_interval_bad_input() {
        let b = unit();
        let r = Ray3::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::X);
        assert_eq!(Aabb3::EMPTY.ray_interval(&r, 10.0), None);
        assert_eq!(b.ray_interval(&r, f32::NAN), None);
        assert_eq!(b.ray_interval(&r, -1.0), None);
        let nan_o = Ray3::new(Vec3::new(f32::NAN, 0.5, 0.5), Vec3::X);
        let nan_d = Ray3::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::new(1.0, f32::NAN, 0.0));
        let inf_d = Ray3::new(Vec3::new(-1.0, 0.5, 0.5), Vec3::new(f32::INFINITY, 0.0, 0.0));
        assert_eq!(b.ray_interval(&nan_o, 10.0), None);
        assert_eq!(b.ray_interval(&nan_d, 10.0), None);
        assert_eq!(b.ray_interval(&inf_d, 10.0), None);
        let inverted = Aabb3::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 1.0));
        assert_eq!(inverted.ray_interval(&r, 10.0), None);
        let nan_box = Aabb3::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE);
        assert_eq!(nan_box.ray_interval(&r, 10.0), None);
        let r2 = Ray2::new(Vec2::new(-1.0, 0.0), Vec2::X);
        let sq = Aabb2::new(Vec2::ZERO, Vec2::ONE);
        assert_eq!(sq.ray_interval(&r2, 5.0), Some((1.0, 2.0)));
        assert_eq!(Aabb2::EMPTY.ray_interval(&r2, 5.0), None);
    }

    #[test]
    fn transformed_rotation_and_empty() {
        let b = Aabb3::new(Vec3::splat(-1.0), Vec3::splat(1.0));
        let rot = Affine3A::from_mat3(Mat3::from_rotation_z(std::f32::consts::FRAC_PI_4));
        let t = b.transformed(&rot);
        let s = std::f32::consts::SQRT_2;
        assert!((t.max - Vec3::new(s, s, 1.0)).abs().max_element() < 1e-6);
        assert!(Aabb3::EMPTY.transformed(&rot).is_empty());
        let t2 = Aabb2::EMPTY.transformed(&Affine2::from_angle(0.3));
        assert!(t2.is_empty());
    }

    #[test]
    fn from_points_rejects_bad_input() {
        assert_eq!(Aabb3::from_points(&[]), None);
        assert_eq!(Aabb3::from_points(&[Vec3::ZERO, Vec3::NAN]), None);
        assert_eq!(Aabb3::from_points(&[Vec3::INFINITY]), None);
        assert_eq!(Aabb3::from_points(&[Vec3::ONE, -Vec3::ONE]), Some(Aabb3::new(-Vec3::ONE, Vec3::ONE)));
        assert_eq!(Aabb2::from_points(&[Vec2::new(f32::NAN, 0.0)]), None);
    }
}
