//! Ray casts in 3D: planes, spheres, boxes, capsules and triangles.
//!
//! Every cast takes a [`Ray3`] `origin + t * dir` and a limit `max_t`, and reports only hits with
//! `t ∈ [0, max_t]`, where `t` is measured in units of `dir` (which need not be unit length).
//!
//! Shared contract (each function adds its own cases):
//!
//! - **Valid rays.** `origin` must be finite and `dir · dir` a positive normal `f32`
//!   (`f32::MIN_POSITIVE ≤ dir · dir ≤ f32::MAX`, roughly `1e-19 < |dir| < 1.8e19`). Any other ray,
//!   in particular a zero `dir`, gets `None`: it has no direction for a hit normal to face, so ask a
//!   containment test instead.
//! - **Limits.** `max_t` may be `+∞`. A negative or NaN `max_t` gets `None`.
//! - **Solids.** Spheres, boxes and capsules are closed solids. A ray whose origin lies in the solid
//!   (inside or on its boundary) hits at `t = 0` with normal `-dir / |dir|`. Otherwise the hit is the
//!   first boundary point, with the outward unit surface normal there, which faces the ray
//!   (`normal · dir ≤ 0`, up to rounding for tangent hits). Touching (a tangent ray) counts as a hit.
//! - **Bad shapes.** A shape with a non-finite coordinate or a negative size is empty: `None`.
//!   Sizes of zero are valid, lower-dimensional shapes (a point, a segment, a flat box) and are hit
//!   only where the ray actually meets them.
//! - **Range.** Coordinates are assumed small enough that their squares and products stay finite
//!   (below about 1e18); beyond that a cast may miss, or report a hit that is finite and within
//!   `[0, max_t]` but not meaningful.
//!
//! Triangles are two-sided surfaces, cast with the watertight test of Woop, Benthin and Wald; see
//! [`ray_triangle`].

// Tests are written as `!(accepting condition)` so that NaN, which fails every comparison, always
// takes the rejecting branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::bounds::{Aabb3, Obb3, Sphere};
use crate::math::{Mat3A, Ray3, Vec3, Vec3A};
use glam::{DVec3, Vec3Swizzles};

use super::Plane3;

/// Where a ray first meets a plane, sphere, box or capsule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Ray parameter of the hit, in `[0, max_t]`; the point is `ray.at(t)`.
    pub t: f32,
    /// Unit normal at the hit, facing against the ray (`normal · dir ≤ 0`).
    pub normal: Vec3,
}

/// Whether the ray and `max_t` satisfy the module's validity contract (`dd = dir · dir`).
/// Evaluated without short-circuiting: one branch for the caller.
#[inline(always)]
fn ray_ok(ray: &Ray3, dd: f32, max_t: f32) -> bool {
    finite(ray.origin) & dir_ok(dd, max_t)
}

/// [`ray_ok`] without the origin (for casts that check a finite difference from it instead).
#[inline(always)]
fn dir_ok(dd: f32, max_t: f32) -> bool {
    (f32::MIN_POSITIVE..=f32::MAX).contains(&dd) & (max_t >= 0.0)
}

/// `hit` if the inputs were valid and its `t` is finite (not overflowed).
///
/// The casts run on unchecked input, where NaN or ±∞ coordinates can only produce a miss or a
/// meaningless hit (floating-point arithmetic never traps), and check the input only when they
/// found a hit: valid queries that miss pay nothing for validation.
#[inline(always)]
fn accept(hit: RayHit, inputs_ok: bool) -> Option<RayHit> {
    (inputs_ok & (hit.t < f32::INFINITY)).then_some(hit)
}

/// Whether every component of `v` is finite, without a branch per component: `0 · x` is `±0` for
/// finite `x` and NaN for `±∞` and NaN, and a NaN term makes the sum NaN.
#[inline(always)]
fn finite(v: Vec3) -> bool {
    (v * 0.0).element_sum() == 0.0
}

/// The hit reported when the origin lies in a solid: `t = 0`, normal `-dir / |dir|`.
#[inline]
fn origin_inside_hit(dir: Vec3, dd: f32) -> RayHit {
    RayHit { t: 0.0, normal: dir * (-1.0 / dd.sqrt()) }
}

/// The unit normal at `v`, a point relative to the center of a sphere (or the axis of a cylinder)
/// of radius `radius > 0`, with `inv_r = 1 / radius`; `-dir / |dir|` for a zero radius, where `v` is
/// rounding noise.
///
/// `|v|` equals the radius up to rounding, so `n = v / r` has `|n|² = 1 + ε` with tiny ε, and one
/// Newton step for `1/√x` at `x = 1`, `n (3 − |n|²) / 2`, makes it unit to within `3ε²/8` without
/// a square root. When |ε| > 1e-3 (extreme scales, a zero radius) it normalizes exactly instead.
#[inline]
fn round_normal(v: Vec3, inv_r: f32, radius: f32, dir: Vec3, dd: f32) -> Vec3 {
    let n = v * inv_r;
    let n2 = n.length_squared();
    if (n2 - 1.0).abs() <= 1e-3 {
        return n * (1.5 - 0.5 * n2);
    }
    let len2 = v.length_squared();
    if radius > 0.0 && len2 >= f32::MIN_POSITIVE {
        v * len2.sqrt().recip()
    } else {
        origin_inside_hit(dir, dd).normal
    }
}

/// Casts a ray against a two-sided plane.
///
/// Returns the crossing with `t ∈ [0, max_t]` and the plane normal oriented against the ray
/// (`plane.normal` when `normal · dir ≤ 0`, else `-plane.normal`). A ray whose origin lies exactly on
/// the plane hits at `t = 0`; this includes a ray lying in the plane, which gets `plane.normal`. A
/// ray parallel to the plane and off it misses. `None` for an invalid ray or `max_t` (see the module
/// docs), a non-finite plane, or a zero normal. The normal should be unit length; if it is not, `t` is
/// still exact and the reported normal is `±plane.normal` as given.
#[inline]
pub fn ray_plane(ray: &Ray3, max_t: f32, plane: &Plane3) -> Option<RayHit> {
    let n = plane.normal;
    let denom = n.dot(ray.dir);
    let dist = n.dot(ray.origin) - plane.d;
    let normal = if denom > 0.0 { -n } else { n };
    // A parallel ray off the plane gives ±∞ or NaN: rejected here or by `accept`.
    let t = if dist == 0.0 { 0.0 } else { -dist / denom };
    if !(t >= 0.0 && t <= max_t) {
        return None;
    }
    let dd = ray.dir.length_squared();
    let plane_ok = finite(n) & (plane.d * 0.0 == 0.0) & (n != Vec3::ZERO);
    accept(RayHit { t, normal }, ray_ok(ray, dd, max_t) & plane_ok)
}

/// Casts a ray against a solid sphere.
///
/// See the module docs for the shared contract. A zero radius is the single point `center`, hit
/// only when the ray passes through it exactly (its normal is then `-dir / |dir|`); a negative or
/// NaN radius is empty.
///
/// The quadratic is solved in the cancellation-free form of Haines, Günther and Akenine-Möller,
/// "Precision Improvements for Ray/Sphere Intersection" (Ray Tracing Gems, ch. 7), with Ericson's
/// early outs (*Real-Time Collision Detection*, §5.3.2).
#[inline]
pub fn ray_sphere(ray: &Ray3, max_t: f32, sphere: &Sphere) -> Option<RayHit> {
    let (dd, r) = (ray.dir.length_squared(), sphere.radius);
    let f = ray.origin - sphere.center;
    let hit = cast_ball(f, ray.dir, dd, r, max_t)?;
    // A finite `f` means a finite origin and center (a difference that overflows is out of range).
    accept(hit, dir_ok(dd, max_t) & finite(f) & (0.0..f32::INFINITY).contains(&r))
}

/// The sphere cast on unchecked input (see [`accept`]): `f = origin - center`, `dd = dir · dir`.
#[inline]
fn cast_ball(f: Vec3, d: Vec3, dd: f32, radius: f32, max_t: f32) -> Option<RayHit> {
    // 1/r for the normal, issued first so that its latency overlaps the work below.
    let inv_r = 1.0 / radius;
    // |f + t d|² = r²  ⇔  dd t² + 2 b t + c = 0 with b = f·d, c = f·f − r².
    let r2 = radius * radius;
    let c = f.length_squared() - r2;
    if c <= 0.0 {
        return Some(origin_inside_hit(d, dd));
    }
    let b = f.dot(d);
    // Outside and not approaching the center: both roots (if any) are negative.
    if !(b < 0.0) {
        return None;
    }
    // The discriminant b² − dd·c = dd·r² − |f × d|² (Lagrange's identity). |f × d| = |d|·(distance
    // from the center to the line), so this is Haines et al.'s dd·(r² − |l|²), l the offset from the
    // center to the closest point of the line: its error grows like |f|/r instead of the (|f|/r)² of
    // the cancellation in b² − dd·c when the origin is far from a small sphere.
    let disc = dd * r2 - f.cross(d).length_squared();
    if !(disc >= 0.0) {
        return None;
    }
    // Near root c / q with q = −b + √(b² − dd c): both terms of q are positive, so no cancellation
    // (Numerical Recipes §5.6; Haines et al.).
    let q = -b + disc.sqrt();
    let t = c / q;
    if !(t <= max_t) {
        return None;
    }
    Some(RayHit { t, normal: round_normal(f + t * d, inv_r, radius, d, dd) })
}

/// The first point where a ray enters an axis-aligned box `[min, max]`, clipped to
/// `t ∈ [0, max_t]` (meaningful for a valid ray and box; computed on unchecked input, see
/// [`accept`]).
enum BoxEntry {
    /// The origin lies in the closed box.
    Inside,
    /// The ray enters through a face at `t > 0`; `normal` is that face's outward axis.
    Face { t: f32, normal: Vec3A },
}

/// Slab test (Kay and Kajiya 1986; Ericson §5.3.3) with the parallel case made explicit, so a zero
/// direction component or an origin exactly on a face never produces `0 · ∞ = NaN`.
#[inline]
fn cast_box(o: Vec3A, d: Vec3A, min: Vec3A, max: Vec3A, max_t: f32) -> Option<BoxEntry> {
    let inv = d.recip();
    let t1 = (min - o) * inv;
    let t2 = (max - o) * inv;
    // A component whose reciprocal overflows (zero or subnormal) moves the ray by less than
    // f32::MAX⁻¹ per unit t across that slab: the ray is inside the slab for all t or never.
    let parallel = inv.abs().cmpeq(Vec3A::INFINITY);
    let in_slab = o.cmpge(min) & o.cmple(max);
    let always = Vec3A::select(in_slab, Vec3A::NEG_INFINITY, Vec3A::INFINITY);
    let near = Vec3A::select(parallel, always, t1.min(t2));
    let far = Vec3A::select(parallel, -always, t1.max(t2));
    let enter = near.max_element();
    let exit = far.min_element();
    if !(enter <= exit && exit >= 0.0 && enter <= max_t) {
        return None;
    }
    if enter <= 0.0 {
        return Some(BoxEntry::Inside);
    }
    // The entry face is on the axis whose slab is entered last; its outward normal opposes d.
    let normal = if near.x == enter {
        Vec3A::new(-d.x.signum(), 0.0, 0.0)
    } else if near.y == enter {
        Vec3A::new(0.0, -d.y.signum(), 0.0)
    } else {
        Vec3A::new(0.0, 0.0, -d.z.signum())
    };
    Some(BoxEntry::Face { t: enter, normal })
}

/// Casts a ray against a solid axis-aligned box.
///
/// See the module docs for the shared contract. Direction components of zero and origins exactly on
/// a face are handled exactly (a ray sliding along a face touches the box). At an edge or corner the
/// normal is the one of a face meeting there. An inverted box (`min > max` on some axis) is empty:
/// `None`; a zero-extent box is a face, segment or point and is hit where the ray meets it.
#[inline]
pub fn ray_aabb(ray: &Ray3, max_t: f32, aabb: &Aabb3) -> Option<RayHit> {
    let dd = ray.dir.length_squared();
    let hit = match cast_box(ray.origin.into(), ray.dir.into(), aabb.min.into(), aabb.max.into(), max_t)? {
        BoxEntry::Inside => origin_inside_hit(ray.dir, dd),
        BoxEntry::Face { t, normal } => RayHit { t, normal: normal.into() },
    };
    let box_ok = finite(aabb.min) & finite(aabb.max) & aabb.min.cmple(aabb.max).all();
    accept(hit, ray_ok(ray, dd, max_t) & box_ok)
}

/// Casts a ray against a solid oriented box.
///
/// The ray is expressed in the box frame (`axesᵀ (origin − center)`, `axesᵀ dir`), cast against
/// `[-half_extents, half_extents]` as in [`ray_aabb`], and the face normal is mapped back to world
/// space (a column of `axes`, possibly negated). See the module docs for the shared contract. A
/// negative half extent makes the box empty (`None`); `axes` must be orthonormal (not checked; a
/// non-finite `axes` gives `None`).
#[inline]
pub fn ray_obb(ray: &Ray3, max_t: f32, obb: &Obb3) -> Option<RayHit> {
    let h = obb.half_extents;
    let rel = ray.origin - obb.center;
    let (ax, ay, az) = (obb.axes.x_axis, obb.axes.y_axis, obb.axes.z_axis);
    let o = Vec3A::new(ax.dot(rel), ay.dot(rel), az.dot(rel));
    let d = Vec3A::new(ax.dot(ray.dir), ay.dot(ray.dir), az.dot(ray.dir));
    let dd = ray.dir.length_squared();
    let hit = match cast_box(o, d, -Vec3A::from(h), h.into(), max_t)? {
        BoxEntry::Inside => origin_inside_hit(ray.dir, dd),
        BoxEntry::Face { t, normal } => RayHit { t, normal: obb.axes * Vec3::from(normal) },
    };
    let axes_ok = finite(ax) & finite(ay) & finite(az);
    let obb_ok = finite(obb.center) & axes_ok & finite(h) & h.cmpge(Vec3::ZERO).all();
    accept(hit, ray_ok(ray, dd, max_t) & obb_ok)
}

/// Casts a ray against a solid capsule: every point within `radius` of the segment `a b`.
///
/// See the module docs for the shared contract. `a == b` is a sphere; a zero radius is the segment
/// itself (hit only where the ray passes through it exactly, with normal `-dir / |dir|`); a negative
/// or NaN radius is empty.
///
/// Method (after Ericson §5.3.7): if the origin is outside, find where the ray enters the infinite
/// cylinder around line `ab`. If that point lies between the end discs it is the hit. Otherwise the
/// first point of the capsule is on the end sphere on that side: the ray is inside the infinite
/// cylinder from there on, the only part of the capsule beyond that end disc is its end sphere, and
/// the disc itself lies inside that sphere.
#[inline]
pub fn ray_capsule(ray: &Ray3, max_t: f32, a: Vec3, b: Vec3, radius: f32) -> Option<RayHit> {
    let dd = ray.dir.length_squared();
    let hit = cast_capsule(ray, dd, max_t, a, b, radius)?;
    let capsule_ok = finite(a) & finite(b) & (0.0..f32::INFINITY).contains(&radius);
    accept(hit, ray_ok(ray, dd, max_t) & capsule_ok)
}

/// The capsule cast on unchecked input (see [`accept`]).
#[inline(always)]
fn cast_capsule(ray: &Ray3, dd: f32, max_t: f32, a: Vec3, b: Vec3, radius: f32) -> Option<RayHit> {
    let d = ray.dir;
    let ba = b - a;
    let oa = ray.origin - a;
    let baba = ba.length_squared();
    let r2 = radius * radius;
    if !(baba >= f32::MIN_POSITIVE) {
        // |b − a| < 1.1e-19: a sphere, within far less than any rounding of the coordinates.
        return cast_ball(oa, d, dd, radius, max_t);
    }
    let (inv_baba, inv_r) = (1.0 / baba, 1.0 / radius);
    // Axial coordinates are kept multiplied by |ba|², so the segment spans [0, baba].
    let s_origin = oa.dot(ba);
    let closest = (s_origin * inv_baba).clamp(0.0, 1.0);
    if (oa - closest * ba).length_squared() <= r2 {
        return Some(origin_inside_hit(d, dd));
    }
    let d_axial = d.dot(ba);
    // Components perpendicular to the axis: |op + t dp|² = r² on the infinite cylinder.
    let dp = d - (d_axial * inv_baba) * ba;
    let aq = dp.length_squared();
    let op = oa - (s_origin * inv_baba) * ba;
    let c = op.length_squared() - r2;
    let s_enter = if c > 0.0 {
        // Outside the infinite cylinder: same cancellation-free solution as `cast_ball`.
        let bq = op.dot(dp);
        if !(bq < 0.0) {
            return None; // moving away from (or parallel to) the axis: never enters
        }
        let disc = aq * r2 - op.cross(dp).length_squared();
        if !(disc >= 0.0) {
            return None;
        }
        let t = c / (-bq + disc.sqrt());
        if !(t <= max_t) {
            return None; // the capsule lies inside the cylinder: it is entered no earlier
        }
        let s = s_origin + t * d_axial;
        if s >= 0.0 && s <= baba {
            return Some(RayHit { t, normal: round_normal(op + t * dp, inv_r, radius, d, dd) });
        }
        s
    } else {
        // Already inside the infinite cylinder (but outside the capsule): beyond one end.
        s_origin
    };
    let cap = if s_enter + s_enter < baba { a } else { b };
    cast_ball(ray.origin - cap, d, dd, radius, max_t)
}

/// Where a ray crosses a triangle: `t` and the barycentric coordinates of the hit point
/// `(1 − u − v)·a + u·b + v·c`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleHit {
    /// Ray parameter of the hit, in `[0, max_t]`.
    pub t: f32,
    /// Weight of vertex `b`, in `[0, 1]`.
    pub u: f32,
    /// Weight of vertex `c`, in `[0, 1]`; `u + v ≤ 1` up to rounding.
    pub v: f32,
    /// `true` when the ray hits the front side, the one `(b − a) × (c − a)` points to
    /// (`dir · ((b − a) × (c − a)) < 0`), `false` for the back side.
    pub front: bool,
}

impl TriangleHit {
    /// The unit geometric normal of `tri` facing against the ray: `(b − a) × (c − a)` normalized,
    /// negated when the ray hit the back side.
    ///
    /// Pass the triangle this hit came from. The result is unit length and its direction accurate
    /// to `f32` rounding for any triangle [`ray_triangle`] can hit, however thin; for exactly
    /// collinear vertices (never hit) it is `Vec3::ZERO`.
    pub fn normal(&self, tri: &[Vec3; 3]) -> Vec3 {
        let n = cross_f64(tri);
        let len2 = n.length_squared();
        if !(len2 > 0.0) {
            return Vec3::ZERO;
        }
        let scale = len2.sqrt().recip();
        (n * if self.front { scale } else { -scale }).as_vec3()
    }
}

/// `(b − a) × (c − a)` in `f64`, with every component's direction error far below `f32`
/// rounding; exactly zero only for exactly collinear vertices.
///
/// From `f32` inputs each edge component has relative error at most `u = 2⁻⁵³` (it is exact
/// unless the two coordinates' exponents differ by more than 29) and each product adds one more
/// rounding, so component `i = p_i − q_i` of the computed cross product is within
/// `3u (|p_i| + |q_i|) + u |n_i|` of the exact one. Its norm is thus off by less than
/// `4√3 u · max_i(|p_i| + |q_i|)`; when that is below `2⁻²⁶ |n|` the direction is right to a
/// quarter of an `f32` ulp. Otherwise (slivers thinner than about 1e-7 rad) the components come
/// from Shewchuk's exact orientation predicates. No `f32` input overflows or underflows here.
#[inline]
fn cross_f64(tri: &[Vec3; 3]) -> DVec3 {
    let [a, b, c] = tri.map(|p| p.as_dvec3());
    let (e1, e2) = (b - a, c - a);
    let p = e1.yzx() * e2.zxy();
    let q = e1.zxy() * e2.yzx();
    let n = p - q;
    let bound = (p.abs() + q.abs()).max_element() * (4.0 * 3f64.sqrt() * f64::EPSILON / 2.0);
    if n.length_squared() > (bound * bound) * (1u64 << 52) as f64 { n } else { DVec3::from(exact_cross(tri)) }
}

/// The orientation predicate of three points projected on a coordinate plane.
#[inline]
fn orient(p: [f32; 2], q: [f32; 2], r: [f32; 2]) -> f64 {
    use robust::Coord;
    robust::orient2d(Coord { x: p[0], y: p[1] }, Coord { x: q[0], y: q[1] }, Coord { x: r[0], y: r[1] })
}

/// `(b − a) × (c − a)` with each component's sign exact: the x, y, z components are twice the
/// signed areas of the projections on the yz, zx and xy planes.
fn exact_cross(tri: &[Vec3; 3]) -> [f64; 3] {
    let [a, b, c] = *tri;
    [
        orient([a.y, a.z], [b.y, b.z], [c.y, c.z]),
        orient([a.z, a.x], [b.z, b.x], [c.z, c.x]),
        orient([a.x, a.y], [b.x, b.y], [c.x, c.y]),
    ]
}

/// Whether the vertices of a finite triangle are not exactly collinear. Only evaluated on the hit
/// path.
///
/// Fast filter: with `e1 = b − a`, `e2 = c − a` rounded, each component of the `f32` cross product
/// `e1 × e2` is within `3u (|e1_j e2_k| + |e1_k e2_j|)` (u = 2⁻²⁴, plus higher-order terms) of the
/// exact cross product of the exact edges, so a component above `8u (…)` proves the exact cross
/// product nonzero. Only slivers thinner than about 1e-6 rad fail the filter and go to the
/// exact orientation predicates.
#[inline]
fn has_area(tri: &[Vec3; 3]) -> bool {
    let [a, b, c] = tri.map(Vec3A::from);
    let (e1, e2) = (b - a, c - a);
    // (e1 × e2)_i = p_i − q_i with p = e1.yzx · e2.zxy and q = e1.zxy · e2.yzx.
    let p = e1.yzx() * e2.zxy();
    let q = e1.zxy() * e2.yzx();
    (p - q).abs().cmpgt((p.abs() + q.abs()) * (4.0 * f32::EPSILON)).any() || has_area_exact(tri)
}

/// [`has_area`] by Shewchuk's exact orientation predicates on the three coordinate planes.
#[cold]
fn has_area_exact(tri: &[Vec3; 3]) -> bool {
    exact_cross(tri) != [0.0; 3]
}

/// The axis of the largest `|dir|` component (the paper's `kz`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Axis {
    X,
    Y,
    Z,
}

/// Per-ray precomputation for [`ray_triangle_with`]: the ray origin and the shear that maps the ray
/// into "ray space", where it runs along `+z` from the 2D origin (Woop, Benthin and Wald,
/// "Watertight Ray/Triangle Intersection", JCGT 2(1), 2013, §3).
///
/// Build it once per ray and test it against many triangles (a BVH leaf loop).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayTriangleSetup {
    origin: Vec3,
    /// `kz`; `kx` and `ky` follow it cyclically, so `(kx, ky, kz)` is right-handed.
    kz: Axis,
    /// `(dir[kx] / dir[kz], dir[ky] / dir[kz], 1 / dir[kz])`; all NaN for an invalid ray, so that
    /// every triangle test fails.
    shear: [f32; 3],
    /// Sign of `dir[kz]`: with the cyclic axis order it relates the sign of the projected area to
    /// the side hit.
    dz_positive: bool,
}

impl RayTriangleSetup {
    /// Precomputes the ray-space transform of `ray`. An invalid ray (see the module docs) yields a
    /// setup with which every triangle test returns `None`.
    pub fn new(ray: &Ray3) -> Self {
        let d = ray.dir;
        let ad = d.abs();
        // The dominant axis picked without branches (random rays would mispredict them): x on
        // ties with y or z, then y on ties with z, as `ray_triangle` picks it.
        let x_wins = (ad.x >= ad.y) & (ad.x >= ad.z);
        let y_wins = !x_wins & (ad.y >= ad.z);
        let k = 2 - 2 * usize::from(x_wins) - usize::from(y_wins);
        // Per `kz`, the axes `kx, ky, kz` (cyclic order).
        const AXES: [[usize; 3]; 3] = [[1, 2, 0], [2, 0, 1], [0, 1, 2]];
        let [x, y, z] = AXES[k.min(2)];
        let c = d.to_array();
        let (dx, dy, dz) = (c[x], c[y], c[z]);
        let kz = [Axis::X, Axis::Y, Axis::Z][z];
        Self::with_axis(ray, kz, [dx, dy, dz], 1.0 / dz, ray_ok(ray, d.length_squared(), 0.0))
    }

    /// The setup for dominant axis `kz`, the direction components `[dx, dy, dz]` in the order
    /// `kx, ky, kz` and `inv = 1 / dz`; with `valid == false` every test fails.
    #[inline(always)]
    fn with_axis(ray: &Ray3, kz: Axis, [dx, dy, dz]: [f32; 3], inv: f32, valid: bool) -> Self {
        Self {
            origin: ray.origin,
            kz,
            shear: if valid { [dx * inv, dy * inv, inv] } else { [f32::NAN; 3] },
            dz_positive: dz > 0.0,
        }
    }
}

/// The three corners as SIMD vectors, each by one 16-byte read; the fourth lane of each holds
/// another coordinate of the triangle, which the test never reads.
#[inline(always)]
fn load_corners(tri: &[Vec3; 3]) -> [Vec3A; 3] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_ps, _mm_shuffle_ps};
        const { assert!(size_of::<[Vec3; 3]>() == 9 * size_of::<f32>()) };
        let p = tri.as_ptr().cast::<f32>();
        // SAFETY: SSE is part of the x86_64 baseline, and the nine floats of `tri` are contiguous
        // (`Vec3` is three `f32`). The unaligned reads cover floats 0..4, 3..7 and 5..9: all inside
        // `tri`. The last one starts a float early and the shuffle moves that float to the end.
        unsafe {
            let c = _mm_loadu_ps(p.add(5));
            [
                _mm_loadu_ps(p).into(),
                _mm_loadu_ps(p.add(3)).into(),
                _mm_shuffle_ps::<0b00_11_10_01>(c, c).into(),
            ]
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    tri.map(Vec3A::from)
}

/// Casts a ray against a triangle, two-sided and watertight.
///
/// Returns the hit with `t ∈ [0, max_t]`, its barycentric coordinates and the side hit. The test is
/// the watertight algorithm of Woop, Benthin and Wald (JCGT 2013): the vertices are moved into a
/// sheared ray space where the ray is the `+z` axis, and the three 2D edge functions are evaluated
/// at the origin; when one is exactly zero in `f32` all three are recomputed in `f64`, where products
/// of `f32` values are exact, so every sign is the exact sign for the transformed vertices. Each
/// vertex is transformed the same way whichever triangle it belongs to and an edge's function is
/// exactly negated for the neighbour that shares it, so a ray through a shared edge or vertex of a
/// closed mesh hits at least one of the triangles around it; it may hit several.
///
/// Boundaries count (edges and vertices are hit). Triangles with exactly collinear vertices (zero
/// area, repeated vertices) and triangles with a non-finite vertex never hit. A ray lying in the
/// triangle's plane (zero area in ray space) does not hit; a ray within rounding of that plane may or
/// may not. An invalid ray or `max_t` (see the module docs) gives `None`.
///
/// For many triangles against one ray, build a [`RayTriangleSetup`] once and call
/// [`ray_triangle_with`]; `ray_triangle(ray, ..)` returns exactly what
/// `ray_triangle_with(&RayTriangleSetup::new(ray), ..)` returns.
#[inline]
pub fn ray_triangle(ray: &Ray3, max_t: f32, tri: &[Vec3; 3]) -> Option<TriangleHit> {
    // RayTriangleSetup::new and ray_triangle_with fused: the dominant axis is branched on once, and
    // the ray's validity is checked only on the hit path (an invalid ray that reaches it is
    // rejected there; a zero direction already fails earlier, through NaN).
    let d = ray.dir;
    let ad = d.abs();
    // All three reciprocals at once, issued before the branch so that its latency overlaps it.
    let inv = Vec3A::ONE / Vec3A::from(d);
    let check = Some(ray);
    if (ad.x >= ad.y) & (ad.x >= ad.z) {
        let setup = RayTriangleSetup::with_axis(ray, Axis::X, [d.y, d.z, d.x], inv.x, true);
        watertight::<1, 2, 0>(&setup, max_t, tri, check)
    } else if ad.y >= ad.z {
        let setup = RayTriangleSetup::with_axis(ray, Axis::Y, [d.z, d.x, d.y], inv.y, true);
        watertight::<2, 0, 1>(&setup, max_t, tri, check)
    } else {
        let setup = RayTriangleSetup::with_axis(ray, Axis::Z, [d.x, d.y, d.z], inv.z, true);
        watertight::<0, 1, 2>(&setup, max_t, tri, check)
    }
}

/// [`ray_triangle`] with the per-ray work done in advance.
#[inline]
pub fn ray_triangle_with(setup: &RayTriangleSetup, max_t: f32, tri: &[Vec3; 3]) -> Option<TriangleHit> {
    match setup.kz {
        Axis::X => watertight::<1, 2, 0>(setup, max_t, tri, None),
        Axis::Y => watertight::<2, 0, 1>(setup, max_t, tri, None),
        Axis::Z => watertight::<0, 1, 2>(setup, max_t, tri, None),
    }
}

/// The watertight test with the axis order `(X, Y, Z) = (kx, ky, kz)` fixed at compile time.
/// `unchecked_ray` is the ray of a setup built without its validity check, to be checked on the hit
/// path.
///
/// The three vertices are processed side by side: one SIMD lane per vertex (`a`, `b`, `c`), one
/// vector per ray-space coordinate.
#[inline(always)]
fn watertight<const X: usize, const Y: usize, const Z: usize>(
    setup: &RayTriangleSetup,
    max_t: f32,
    tri: &[Vec3; 3],
    unchecked_ray: Option<&Ray3>,
) -> Option<TriangleHit> {
    let [sx, sy, sz] = setup.shear;
    // Ray-space coordinates: relative to the origin, sheared so that the ray becomes the z axis
    // through the 2D origin (z is left unscaled until the end). Every vertex goes through the same
    // operations in the same order, whichever triangle it belongs to.
    let origin = Vec3A::from(setup.origin);
    let [a, b, c] = load_corners(tri);
    let relative = Mat3A::from_cols(a - origin, b - origin, c - origin).transpose();
    let axes = [relative.x_axis, relative.y_axis, relative.z_axis];
    let z = axes[Z];
    let x = axes[X] - sx * z;
    let y = axes[Y] - sy * z;
    // Edge functions e(P, Q) = Q.x·P.y − Q.y·P.x of edges bc, ca, ab at the 2D origin, lane by lane:
    // the scaled barycentric weights of a, b and c. f32 rounding is monotone, so a nonzero value has
    // the exact sign; only an exact zero is ambiguous, and is recomputed in f64, where products of
    // two f32 are exact. e(Q, P) is exactly −e(P, Q), so neighbours sharing an edge agree on its side.
    let mut e = x.zxy() * y.yzx() - y.zxy() * x.yzx();
    if e.cmpeq(Vec3A::ZERO).any() {
        e = Vec3A::from(exact_edge_functions(x.to_array(), y.to_array()));
    }
    // Two-sided: all weights of one sign (zeros allowed). NaN fails both comparisons.
    if !(e.cmpge(Vec3A::ZERO).all() | e.cmple(Vec3A::ZERO).all()) {
        return None;
    }
    let det = e.x + e.y + e.z;
    if det == 0.0 {
        return None;
    }
    // Scaled hit distance t·det = sz · Σ e_i·z_i; compare against [0, max_t·|det|] without dividing,
    // after flipping it by the sign of det.
    let ez = e * z;
    let t_scaled = sz * (ez.x + ez.y + ez.z);
    let sign = det.to_bits() & 0x8000_0000;
    let t_pos = f32::from_bits(t_scaled.to_bits() ^ sign);
    if !(t_pos >= 0.0 && t_pos <= max_t * det.abs()) {
        return None;
    }
    // Hit path only. `+ 0.0` turns −0 into +0 and `min` absorbs the rounding. A finite det means
    // finite vertices (an infinite coordinate makes an edge function infinite or NaN); an
    // overflowed t, an unchecked invalid ray and a degenerate triangle are rejected.
    let inv = det.recip();
    let t = (t_scaled * inv + 0.0).min(max_t);
    if !(det.abs() < f32::INFINITY && t < f32::INFINITY)
        || unchecked_ray.is_some_and(|ray| !(ray.origin.is_finite() && dir_ok(ray.dir.length_squared(), 0.0)))
        || !has_area(tri)
    {
        return None;
    }
    Some(TriangleHit {
        t,
        u: e.y * inv,
        v: e.z * inv,
        // The projected area relates to the 3D normal n by det = −(n · dir) / dir[kz].
        front: (det > 0.0) == setup.dz_positive,
    })
}

/// The edge functions of [`ray_triangle_with`] in `f64` (the rare path when an `f32` value is 0).
#[cold]
fn exact_edge_functions(x: [f32; 3], y: [f32; 3]) -> [f32; 3] {
    let (x, y) = (x.map(f64::from), y.map(f64::from));
    let e = |p: usize, q: usize| (x[q] * y[p] - y[q] * x[p]) as f32;
    [e(1, 2), e(2, 0), e(0, 1)]
}

/// Intersects the segment `p → q` with a triangle: [`ray_triangle`] on the ray `(p, q − p)` with
/// `max_t = 1`, so `t ∈ [0, 1]` is the fraction of the way from `p` to `q`. A zero-length segment
/// (`p == q`) or non-finite endpoints give `None`.
#[inline]
pub fn segment_triangle(p: Vec3, q: Vec3, tri: &[Vec3; 3]) -> Option<TriangleHit> {
    ray_triangle(&Ray3::from_segment(p, q), 1.0, tri)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Mat3;

    fn ray(o: [f32; 3], d: [f32; 3]) -> Ray3 {
        Ray3::new(Vec3::from(o), Vec3::from(d))
    }

    fn unit_box() -> Aabb3 {
        Aabb3::new(Vec3::splat(-1.0), Vec3::splat(1.0))
    }

    const TRI: [Vec3; 3] = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];

    /// Calls every 3D cast on `r` and checks that each returns `None`.
    fn all_miss(r: &Ray3, max_t: f32) {
        let plane = Plane3 { normal: Vec3::Z, d: 0.0 };
        let obb = Obb3::new(Vec3::ZERO, Mat3::IDENTITY, Vec3::ONE);
        assert_eq!(ray_plane(r, max_t, &plane), None);
        assert_eq!(ray_sphere(r, max_t, &Sphere::new(Vec3::ZERO, 1.0)), None);
        assert_eq!(ray_aabb(r, max_t, &unit_box()), None);
        assert_eq!(ray_obb(r, max_t, &obb), None);
        assert_eq!(ray_capsule(r, max_t, Vec3::ZERO, Vec3::X, 1.0), None);
        assert_eq!(ray_triangle(r, max_t, &TRI), None);
    }

    #[test]
    fn invalid_rays_and_limits_miss_everything() {
        // The origin (0.2, 0.2, 0) lies in every shape, so any accepted query would hit.
        let o = [0.2, 0.2, 0.0];
        all_miss(&ray(o, [0.0, 0.0, 0.0]), 1.0);
        all_miss(&ray(o, [1e-30, 0.0, 0.0]), 1.0);
        all_miss(&ray(o, [f32::NAN, 0.0, 1.0]), 1.0);
        all_miss(&ray(o, [f32::INFINITY, 0.0, 1.0]), 1.0);
        all_miss(&ray([f32::NAN, 0.0, 0.0], [0.0, 0.0, 1.0]), 1.0);
        all_miss(&ray([f32::NEG_INFINITY, 0.0, 0.0], [0.0, 0.0, 1.0]), 1.0);
        all_miss(&ray(o, [0.0, 0.0, 1.0]), -1.0);
        all_miss(&ray(o, [0.0, 0.0, 1.0]), f32::NAN);
        all_miss(&ray(o, [0.0, 0.0, 1.0]), f32::NEG_INFINITY);
    }

    #[test]
    fn infinite_max_t_is_allowed() {
        let r = ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]);
        let hit = ray_sphere(&r, f32::INFINITY, &Sphere::new(Vec3::ZERO, 1.0)).unwrap();
        assert_eq!(hit.t, 4.0);
        assert_eq!(ray_triangle(&r, f32::INFINITY, &TRI).unwrap().t, 5.0);
    }

    #[test]
    fn plane_hits_from_both_sides_and_in_plane() {
        let plane = Plane3 { normal: Vec3::Z, d: 2.0 };
        let down = ray_plane(&ray([0.0, 0.0, 5.0], [0.0, 0.0, -2.0]), 10.0, &plane).unwrap();
        assert_eq!((down.t, down.normal), (1.5, Vec3::Z));
        let up = ray_plane(&ray([0.0, 0.0, 0.0], [0.0, 0.0, 4.0]), 10.0, &plane).unwrap();
        assert_eq!((up.t, up.normal), (0.5, -Vec3::Z));
        assert_eq!(ray_plane(&ray([0.0, 0.0, 0.0], [0.0, 0.0, 4.0]), 0.4, &plane), None);
        // Parallel: off the plane misses, in the plane hits at t = 0.
        assert_eq!(ray_plane(&ray([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]), 10.0, &plane), None);
        let inside = ray_plane(&ray([3.0, 0.0, 2.0], [1.0, 0.0, 0.0]), 10.0, &plane).unwrap();
        assert_eq!((inside.t, inside.normal), (0.0, Vec3::Z));
        // Pointing away misses; bad planes miss.
        assert_eq!(ray_plane(&ray([0.0, 0.0, 5.0], [0.0, 0.0, 1.0]), 10.0, &plane), None);
        let r = ray([0.0, 0.0, 2.0], [0.0, 0.0, 1.0]);
        let zero = Plane3 { normal: Vec3::ZERO, d: 0.0 };
        let nan = Plane3 { normal: Vec3::Z, d: f32::NAN };
        assert_eq!(ray_plane(&r, 1.0, &zero), None);
        assert_eq!(ray_plane(&r, 1.0, &nan), None);
    }

    #[test]
    fn sphere_entry_inside_tangent_and_degenerate_radius() {
        let s = Sphere::new(Vec3::new(0.0, 0.0, 0.0), 2.0);
        let hit = ray_sphere(&ray([-10.0, 0.0, 0.0], [4.0, 0.0, 0.0]), 5.0, &s).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec3::X));
        assert_eq!(ray_sphere(&ray([-10.0, 0.0, 0.0], [4.0, 0.0, 0.0]), 1.9, &s), None);
        // Tangent ray touches.
        let hit = ray_sphere(&ray([-10.0, 2.0, 0.0], [1.0, 0.0, 0.0]), 20.0, &s).unwrap();
        assert_eq!((hit.t, hit.normal), (10.0, Vec3::Y));
        // Moving away misses; origin inside (or on the surface) hits at t = 0 with −dir.
        assert_eq!(ray_sphere(&ray([-10.0, 0.0, 0.0], [-1.0, 0.0, 0.0]), 20.0, &s), None);
        let hit = ray_sphere(&ray([0.5, 0.0, 0.0], [0.0, 3.0, 0.0]), 1.0, &s).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::Y));
        let hit = ray_sphere(&ray([2.0, 0.0, 0.0], [0.0, 0.0, 1.0]), 1.0, &s).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::Z));
        // Zero radius: a point, hit only through it.
        let p = Sphere::new(Vec3::new(1.0, 0.0, 0.0), 0.0);
        let hit = ray_sphere(&ray([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]), 5.0, &p).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec3::X));
        assert_eq!(ray_sphere(&ray([-1.0, 0.1, 0.0], [1.0, 0.0, 0.0]), 5.0, &p), None);
        // Negative, NaN and infinite radii are empty.
        let r = ray([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        for radius in [-1.0, f32::NAN, f32::INFINITY] {
            assert_eq!(ray_sphere(&r, 5.0, &Sphere::new(Vec3::ZERO, radius)), None);
        }
        let bad = Sphere::new(Vec3::new(f32::NAN, 0.0, 0.0), 1.0);
        assert_eq!(ray_sphere(&r, 5.0, &bad), None);
    }

    #[test]
    fn sphere_far_origin_keeps_precision() {
        // The naive discriminant b² − a·c cancels completely here (b² ≈ a·c ≈ 1e16, r² = 1e-2):
        // it cannot tell a hit at offset 0.05 from a miss at offset 0.11.
        let s = Sphere::new(Vec3::ZERO, 0.1);
        let hit = ray_sphere(&ray([-1e8, 0.05, 0.0], [1.0, 0.0, 0.0]), f32::INFINITY, &s).unwrap();
        let expected = 1e8 - (0.1f64 * 0.1 - 0.05 * 0.05).sqrt();
        assert!((f64::from(hit.t) - expected).abs() <= 8.0, "{}", hit.t);
        assert_eq!(ray_sphere(&ray([-1e8, 0.11, 0.0], [1.0, 0.0, 0.0]), f32::INFINITY, &s), None);
        // At 1e4 the hit point is resolved to f32 spacing (1e-3) and so is the normal.
        let hit = ray_sphere(&ray([-1e4, 0.05, 0.0], [1.0, 0.0, 0.0]), f32::INFINITY, &s).unwrap();
        assert!((f64::from(hit.t) - (1e4 - 0.0866)).abs() < 2e-3, "{}", hit.t);
        assert!((hit.normal - Vec3::new(-0.866_025_4, 0.5, 0.0)).length() < 2e-2);
    }

    #[test]
    fn aabb_faces_axis_parallel_rays_and_origin_on_face() {
        let b = unit_box();
        let hit = ray_aabb(&ray([-3.0, 0.0, 0.0], [2.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (1.0, -Vec3::X));
        let hit = ray_aabb(&ray([0.5, 4.0, 0.5], [0.0, -1.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (3.0, Vec3::Y));
        // Parallel to a slab and outside it: miss, even with max_t = ∞.
        assert_eq!(ray_aabb(&ray([-3.0, 2.0, 0.0], [1.0, 0.0, 0.0]), f32::INFINITY, &b), None);
        // Sliding exactly along a face (origin coordinate == max, dir component 0) touches.
        let hit = ray_aabb(&ray([-3.0, 1.0, 0.0], [1.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec3::X));
        let hit = ray_aabb(&ray([-3.0, 1.0, -1.0], [1.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!(hit.t, 2.0);
        // Origin on a face: t = 0 whether entering or leaving, normal −dir.
        let hit = ray_aabb(&ray([1.0, 0.0, 0.0], [-2.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, Vec3::X));
        let hit = ray_aabb(&ray([1.0, 0.0, 0.0], [2.0, 0.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::X));
        // Corner graze.
        let hit = ray_aabb(&ray([-2.0, -2.0, 1.0], [1.0, 1.0, 0.0]), 5.0, &b).unwrap();
        assert_eq!(hit.t, 1.0);
        assert!(hit.normal == -Vec3::X || hit.normal == -Vec3::Y);
        // −0.0 direction components behave like +0.0.
        let hit = ray_aabb(&ray([0.0, 0.0, 5.0], [-0.0, -0.0, -1.0]), 5.0, &b).unwrap();
        assert_eq!((hit.t, hit.normal), (4.0, Vec3::Z));
    }

    #[test]
    fn aabb_degenerate_and_inverted_boxes() {
        let r = ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]);
        let flat = Aabb3::new(Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, 1.0, 0.0));
        let hit = ray_aabb(&r, 10.0, &flat).unwrap();
        assert_eq!((hit.t, hit.normal), (5.0, -Vec3::Z));
        let point = Aabb3::new(Vec3::ZERO, Vec3::ZERO);
        assert_eq!(ray_aabb(&r, 10.0, &point).unwrap().t, 5.0);
        let inverted = Aabb3::new(Vec3::new(1.0, -1.0, -1.0), Vec3::new(-1.0, 1.0, 1.0));
        assert_eq!(ray_aabb(&r, 10.0, &inverted), None);
        let nan = Aabb3::new(Vec3::splat(f32::NAN), Vec3::ONE);
        assert_eq!(ray_aabb(&r, 10.0, &nan), None);
        let inf = Aabb3::new(Vec3::splat(f32::NEG_INFINITY), Vec3::ONE);
        assert_eq!(ray_aabb(&r, 10.0, &inf), None);
    }

    #[test]
    fn obb_rotated_face_normal_in_world() {
        let rot = Mat3::from_rotation_z(std::f32::consts::FRAC_PI_4);
        let obb = Obb3::new(Vec3::new(1.0, 0.0, 0.0), rot, Vec3::new(1.0, 2.0, 3.0));
        let hit = ray_obb(&ray([1.0, 0.0, 10.0], [0.0, 0.0, -1.0]), 20.0, &obb).unwrap();
        assert!((hit.t - 7.0).abs() < 1e-6);
        assert!((hit.normal - Vec3::Z).length() < 1e-6);
        // Along the box's local −x axis from outside.
        let r = Ray3::new(Vec3::new(1.0, 0.0, 0.0) + rot * Vec3::new(5.0, 0.0, 0.0), rot * -Vec3::X);
        let hit = ray_obb(&r, 20.0, &obb).unwrap();
        assert!((hit.t - 4.0).abs() < 1e-5);
        assert!((hit.normal - rot * Vec3::X).length() < 1e-6);
        // Inside: t = 0, normal = −dir (world).
        let hit = ray_obb(&ray([1.0, 0.0, 0.0], [0.0, 2.0, 0.0]), 1.0, &obb).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::Y));
        let negative = Obb3::new(Vec3::ZERO, Mat3::IDENTITY, Vec3::new(1.0, -1.0, 1.0));
        assert_eq!(ray_obb(&ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]), 10.0, &negative), None);
        let nan_axes = Obb3::new(Vec3::ZERO, Mat3::NAN, Vec3::ONE);
        assert_eq!(ray_obb(&ray([0.0, 0.0, -5.0], [0.0, 0.0, 1.0]), 10.0, &nan_axes), None);
    }

    #[test]
    fn capsule_band_caps_inside_and_degenerate() {
        let (a, b) = (Vec3::new(0.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 0.0));
        // Band.
        let hit = ray_capsule(&ray([2.0, 5.0, 0.0], [0.0, -1.0, 0.0]), 10.0, a, b, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (4.0, Vec3::Y));
        // Along the axis into each cap.
        let hit = ray_capsule(&ray([-5.0, 0.0, 0.0], [1.0, 0.0, 0.0]), 10.0, a, b, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (4.0, -Vec3::X));
        let hit = ray_capsule(&ray([9.0, 0.0, 0.0], [-2.0, 0.0, 0.0]), 10.0, a, b, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, Vec3::X));
        // Entering the infinite cylinder beyond an end, then the cap.
        let hit = ray_capsule(&ray([-0.5, 5.0, 0.0], [0.0, -1.0, 0.0]), 10.0, a, b, 1.0).unwrap();
        let expected = 5.0 - (1.0f32 - 0.25).sqrt();
        assert!((hit.t - expected).abs() < 1e-6);
        // Parallel to the axis outside the cylinder: miss.
        assert_eq!(ray_capsule(&ray([-5.0, 1.5, 0.0], [1.0, 0.0, 0.0]), 10.0, a, b, 1.0), None);
        // Inside.
        let hit = ray_capsule(&ray([3.0, 0.5, 0.0], [0.0, 0.0, 1.0]), 10.0, a, b, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (0.0, -Vec3::Z));
        // a == b: a sphere.
        let hit = ray_capsule(&ray([0.0, 0.0, -3.0], [0.0, 0.0, 1.0]), 10.0, a, a, 1.0).unwrap();
        assert_eq!((hit.t, hit.normal), (2.0, -Vec3::Z));
        // Zero radius: the segment itself.
        let hit = ray_capsule(&ray([1.0, 3.0, 0.0], [0.0, -1.0, 0.0]), 10.0, a, b, 0.0).unwrap();
        assert_eq!((hit.t, hit.normal), (3.0, Vec3::Y));
        assert_eq!(ray_capsule(&ray([1.0, 3.0, 0.1], [0.0, -1.0, 0.0]), 10.0, a, b, 0.0), None);
        // Bad radius or endpoints.
        let r = ray([2.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        assert_eq!(ray_capsule(&r, 10.0, a, b, -1.0), None);
        assert_eq!(ray_capsule(&r, 10.0, a, b, f32::NAN), None);
        assert_eq!(ray_capsule(&r, 10.0, a, Vec3::NAN, 1.0), None);
    }

    /// Slivers down to exactly collinear: the filtered `f64` cross product points where the exact
    /// one does. The cases where one corner is tiny and the other two lie on a line through the
    /// origin round the `f64` edges onto that line, so they fail if the filter lets every triangle
    /// through.
    #[test]
    fn sliver_normals_follow_the_exact_cross_product() {
        use kollide_testkit::random::{point3, rng, unit3};
        let mut rng = rng(17);
        let mut exact_path = 0;
        for i in 0..20_000 {
            let tri = if i % 2 == 0 {
                // c on the line through a and b, moved off it by 10^-(i % 12) in a random direction.
                let (a, b) = (point3(&mut rng, 100.0), point3(&mut rng, 100.0));
                let s: f32 = rand::Rng::random_range(&mut rng, -2.0..2.0);
                let off = if i % 13 == 0 { Vec3::ZERO } else { unit3(&mut rng) * 10f32.powi(-(i % 12)) };
                [a, b, a + s * (b - a) + off]
            } else {
                let tiny = point3(&mut rng, 1.0) * 10f32.powi(-(i % 30));
                let b = point3(&mut rng, 100.0).round();
                [tiny, b, 2.0 * b]
            };
            let exact = DVec3::from(exact_cross(&tri));
            let fast = cross_f64(&tri);
            if exact == DVec3::ZERO {
                assert_eq!(fast, DVec3::ZERO, "{tri:?}");
                continue;
            }
            exact_path += usize::from(fast == exact);
            let angle = fast.normalize().cross(exact.normalize()).length();
            assert!(angle < 1e-6 && fast.dot(exact) > 0.0, "{tri:?}: {fast} vs exact {exact}");
        }
        assert!(exact_path > 100, "the exact path ran {exact_path} times");
    }

    #[test]
    fn triangle_barycentrics_sides_and_normal() {
        let r = ray([0.25, 0.5, 2.0], [0.0, 0.0, -1.0]);
        let hit = ray_triangle(&r, 5.0, &TRI).unwrap();
        assert_eq!((hit.t, hit.u, hit.v, hit.front), (2.0, 0.25, 0.5, true));
        assert_eq!(hit.normal(&TRI), Vec3::Z);
        let r = ray([0.25, 0.5, -2.0], [0.0, 0.0, 4.0]);
        let hit = ray_triangle(&r, 5.0, &TRI).unwrap();
        assert_eq!((hit.t, hit.front), (0.5, false));
        assert_eq!(hit.normal(&TRI), -Vec3::Z);
        // Every dominant axis and sign.
        for axis in 0..3 {
            for s in [-1.0f32, 1.0] {
                let rot = Mat3::from_cols_array(&[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
                let rot = (0..axis).fold(Mat3::IDENTITY, |m, _| rot * m);
                let tri = TRI.map(|p| rot * p);
                let dir = rot * Vec3::new(0.01, 0.02, -s);
                let o = rot * Vec3::new(0.2, 0.3, s);
                let hit = ray_triangle(&Ray3::new(o, dir), 5.0, &tri).unwrap();
                assert_eq!(hit.front, s > 0.0, "axis {axis} sign {s}");
                assert!((hit.t - 1.0).abs() < 1e-6);
                let n = hit.normal(&tri);
                assert!(n.dot(dir) < 0.0);
                let p = (1.0 - hit.u - hit.v) * tri[0] + hit.u * tri[1] + hit.v * tri[2];
                assert!((p - o - hit.t * dir).length() < 1e-6);
            }
        }
    }

    #[test]
    fn triangle_edges_vertices_and_limits() {
        // Edges and vertices count.
        for target in [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.5, 0.5, 0.0)] {
            let r = Ray3::new(target + Vec3::Z, -Vec3::Z);
            assert_eq!(ray_triangle(&r, 2.0, &TRI).unwrap().t, 1.0);
        }
        let r = ray([0.6, 0.6, 1.0], [0.0, 0.0, -1.0]);
        assert_eq!(ray_triangle(&r, 2.0, &TRI), None);
        // max_t is inclusive; behind the origin misses.
        let r = ray([0.2, 0.2, 1.0], [0.0, 0.0, -1.0]);
        assert_eq!(ray_triangle(&r, 1.0, &TRI).unwrap().t, 1.0);
        assert_eq!(ray_triangle(&r, 0.999, &TRI), None);
        let r = ray([0.2, 0.2, 1.0], [0.0, 0.0, 1.0]);
        assert_eq!(ray_triangle(&r, 9.0, &TRI), None);
        // Origin on the triangle: t = 0.
        let r = ray([0.2, 0.2, 0.0], [0.0, 1.0, -1.0]);
        assert_eq!(ray_triangle(&r, 9.0, &TRI).unwrap().t, 0.0);
    }

    #[test]
    fn exact_edge_sign_decides_between_neighbours() {
        // Edge BC passes 2^-46 from the ray, on A's far side. In f32 both products of the edge
        // function round to 1 + 2^-22, giving 0 ("on the edge") for both triangles sharing BC; the
        // f64 fallback gives the exact signs, so exactly one of them is hit.
        let e = f32::EPSILON;
        let b = Vec3::new(1.0 + 2.0 * e, 1.0 + e, 0.0);
        let c = Vec3::new(-(1.0 + e), -1.0, 0.0);
        let a = Vec3::new(-1.0, 1.0, 0.0);
        let d = Vec3::new(1.0, -1.0, 0.0);
        let r = ray([0.0, 0.0, 1.0], [0.0, 0.0, -1.0]);
        assert_eq!(ray_triangle(&r, 2.0, &[a, b, c]), None);
        assert_eq!(ray_triangle(&r, 2.0, &[c, b, d]).map(|h| h.t), Some(1.0));
    }

    #[test]
    fn triangle_degenerate_inputs_never_hit() {
        let r = ray([0.5, 0.0, 1.0], [0.0, 0.0, -1.0]);
        let repeated = [Vec3::ZERO, Vec3::X, Vec3::ZERO];
        let collinear = [Vec3::ZERO, Vec3::X, Vec3::new(2.0, 0.0, 0.0)];
        let point = [Vec3::X; 3];
        for tri in [repeated, collinear, point] {
            assert_eq!(ray_triangle(&r, 9.0, &tri), None);
        }
        // Collinear but not axis aligned, hit through an interior point of the segment.
        let collinear = [Vec3::new(1.0, 2.0, 3.0), Vec3::new(3.0, 3.0, 4.0), Vec3::new(7.0, 5.0, 6.0)];
        for dir in [Vec3::new(0.3, -1.0, 0.2), Vec3::new(1.0, 1.0, -3.0)] {
            let r = Ray3::new(Vec3::new(5.0, 4.0, 5.0) - dir, dir);
            assert_eq!(ray_triangle(&r, 9.0, &collinear), None);
        }
        // Non-finite vertices.
        let r = ray([0.2, 0.2, 1.0], [0.0, 0.0, -1.0]);
        let inf = [Vec3::ZERO, Vec3::new(f32::INFINITY, 0.0, 0.0), Vec3::Y];
        let nan = [Vec3::ZERO, Vec3::X, Vec3::new(0.0, f32::NAN, 0.0)];
        assert_eq!(ray_triangle(&r, 9.0, &inf), None);
        assert_eq!(ray_triangle(&r, 9.0, &nan), None);
        // A ray in the triangle's plane does not hit.
        let r = ray([-1.0, 0.2, 0.0], [1.0, 0.0, 0.0]);
        assert_eq!(ray_triangle(&r, 9.0, &TRI), None);
    }

    #[test]
    fn segment_triangle_uses_unit_parameter() {
        let hit = segment_triangle(Vec3::new(0.2, 0.2, 1.0), Vec3::new(0.2, 0.2, -3.0), &TRI).unwrap();
        assert_eq!(hit.t, 0.25);
        assert_eq!(segment_triangle(Vec3::new(0.2, 0.2, 1.0), Vec3::new(0.2, 0.2, 0.5), &TRI), None);
        let p = Vec3::new(0.2, 0.2, 0.0);
        assert_eq!(segment_triangle(p, p, &TRI), None);
    }

    #[test]
    fn setup_is_reusable_across_triangles() {
        let r = ray([0.1, 0.1, 5.0], [0.0, 0.0, -1.0]);
        let setup = RayTriangleSetup::new(&r);
        for z in [0.0f32, 1.0, 2.0, 9.0] {
            let tri = TRI.map(|p| p + Vec3::Z * z);
            assert_eq!(ray_triangle_with(&setup, 10.0, &tri), ray_triangle(&r, 10.0, &tri));
        }
    }

    /// The branch-free choice of the dominant axis in `RayTriangleSetup::new` agrees with the
    /// branches of the fused `ray_triangle` on every tie between direction components.
    #[test]
    fn setup_picks_the_dominant_axis_as_the_fused_test_does_on_ties() {
        let tri = [Vec3::new(-1.0, -1.0, -1.0), Vec3::new(2.0, 0.5, 0.0), Vec3::new(0.0, 2.0, 1.5)];
        let mut checked = 0;
        for x in [-1.0f32, 0.0, 1.0] {
            for y in [-1.0f32, 0.0, 1.0] {
                for z in [-1.0f32, 0.0, 1.0] {
                    let d = Vec3::new(x, y, z);
                    for origin in [-3.0 * d, Vec3::new(0.2, 0.3, 0.1) - 3.0 * d] {
                        let r = Ray3::new(origin, d);
                        let fused = ray_triangle(&r, 10.0, &tri);
                        assert_eq!(ray_triangle_with(&RayTriangleSetup::new(&r), 10.0, &tri), fused, "{d}");
                        checked += usize::from(fused.is_some());
                    }
                }
            }
        }
        assert!(checked > 20, "only {checked} hits: the ties would go untested");
    }
}
