//! Ray casts against triangles: two-sided and watertight (Woop, Benthin and Wald), with
//! barycentric coordinates; per-ray setup for casting one ray against many triangles.
//!
//! The rays follow the shared contract of the [`primitive`](crate::primitive#ray-casts) casts: an
//! invalid ray or `max_t` gets `None`.

// Tests are written as `!(accepting condition)` so that NaN, which fails every comparison, always
// takes the rejecting branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::math::{Mat3A, Ray3, Vec3, Vec3A};
use glam::{DVec3, Vec3Swizzles};

use super::ray::{dir_ok, ray_ok};

/// Where a ray crosses a triangle: `t` and the barycentric coordinates of the hit point
/// `(1 − u − v)·a + u·b + v·c`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleCrossing {
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

impl TriangleCrossing {
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
    /// Precomputes the ray-space transform of `ray`. An invalid ray (see the [shared contract])
    /// yields a setup with which every triangle test returns `None`.
    ///
    /// [shared contract]: crate::primitive#ray-casts
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
/// closed mesh hits at least one of the triangles around it; it may hit several. A triangle so
/// close to the origin (within about 2⁻³⁰) that the hit distance would underflow `f32` is finished
/// in `f64` with the same signs.
///
/// Boundaries count (edges and vertices are hit). Triangles with exactly collinear vertices (zero
/// area, repeated vertices) and triangles with a non-finite vertex never hit. A ray lying in the
/// triangle's plane (zero area in ray space) does not hit; a ray within rounding of that plane may
/// or may not. An invalid ray or `max_t` (see the [shared contract]) gives `None`.
///
/// For many triangles against one ray, build a [`RayTriangleSetup`] once and call
/// [`ray_triangle_with`]; `ray_triangle(ray, ..)` returns exactly what
/// `ray_triangle_with(&RayTriangleSetup::new(ray), ..)` returns.
///
/// [shared contract]: crate::primitive#ray-casts
#[inline]
pub fn ray_triangle(ray: &Ray3, max_t: f32, tri: &[Vec3; 3]) -> Option<TriangleCrossing> {
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
pub fn ray_triangle_with(setup: &RayTriangleSetup, max_t: f32, tri: &[Vec3; 3]) -> Option<TriangleCrossing> {
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
) -> Option<TriangleCrossing> {
    let sz = setup.shear[2];
    let [x, y, z] = ray_space::<X, Y, Z>(setup, tri);
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
    if det.abs() < TINY_DET {
        return tiny_triangle::<X, Y, Z>(setup, max_t, tri, unchecked_ray);
    }
    // Scaled hit distance t·det = sz · Σ e_i·z_i; compare against [0, max_t·|det|] without dividing,
    // after flipping it by the sign of det.
    let ez = e * z;
    let t_scaled = sz * (ez.x + ez.y + ez.z);
    let sign = det.to_bits() & 0x8000_0000;
    let t_pos = f32::from_bits(t_scaled.to_bits() ^ sign);
    // Underflow moves the products towards zero, never across it: a tiny triangle (see
    // `TINY_DET`) is redone whichever way this test goes.
    if !(t_pos >= 0.0 && t_pos <= max_t * det.abs()) {
        return None;
    }
    // Hit path only. `+ 0.0` turns −0 into +0 and `min` absorbs the rounding. A finite det means
    // finite vertices (an infinite coordinate makes an edge function infinite or NaN); an
    // overflowed t, an unchecked invalid ray and a degenerate triangle are rejected. The overflow
    // is tested before the clamp: `min(max_t)` would turn an infinite `t` into any finite `max_t`
    // (a hit at `t = max_t`), and the answer would depend on the limit.
    let inv = det.recip();
    let t = t_scaled * inv + 0.0;
    // A negative `max_t` passes the scaled test above when `max_t · |det|` underflows to -0.
    if !(det.abs() < f32::INFINITY && t < f32::INFINITY && max_t >= 0.0)
        || unchecked_ray.is_some_and(|ray| !(ray.origin.is_finite() && dir_ok(ray.dir.length_squared(), 0.0)))
        || !has_area(tri)
    {
        return None;
    }
    Some(TriangleCrossing {
        t: t.min(max_t),
        u: e.y * inv,
        v: e.z * inv,
        // The projected area relates to the 3D normal n by det = −(n · dir) / dir[kz].
        front: (det > 0.0) == setup.dz_positive,
    })
}

/// The corners' ray-space coordinates `[x, y, z]` (one vector per axis, one lane per corner):
/// relative to the origin, sheared so that the ray becomes the z axis through the 2D origin (z is
/// left unscaled until the end). Every vertex goes through the same operations in the same order,
/// whichever triangle it belongs to.
#[inline(always)]
fn ray_space<const X: usize, const Y: usize, const Z: usize>(
    setup: &RayTriangleSetup,
    tri: &[Vec3; 3],
) -> [Vec3A; 3] {
    let [sx, sy, _] = setup.shear;
    let origin = Vec3A::from(setup.origin);
    let [a, b, c] = load_corners(tri);
    let relative = Mat3A::from_cols(a - origin, b - origin, c - origin).transpose();
    let axes = [relative.x_axis, relative.y_axis, relative.z_axis];
    let z = axes[Z];
    [axes[X] - sx * z, axes[Y] - sy * z, z]
}

/// Below this `|det|` (the projected double area, of the order of the squared coordinates
/// relative to the origin) the products `e_i · z_i` of the hit distance can underflow `f32`: a
/// triangle within about 2⁻³⁰ of the origin, or one seen exactly edge-on.
const TINY_DET: f32 = 1.0 / (1u64 << 60) as f32;

/// The last checks of [`tiny_triangle`]'s hit path, the same as [`watertight`] makes on its own:
/// the triangle has area, and a ray whose validity was not checked by its setup is valid.
#[inline(always)]
fn hit_allowed(tri: &[Vec3; 3], unchecked_ray: Option<&Ray3>) -> bool {
    unchecked_ray.is_none_or(|ray| ray.origin.is_finite() && dir_ok(ray.dir.length_squared(), 0.0))
        && has_area(tri)
}

/// [`watertight`] for `|det| <` [`TINY_DET`], in `f64` from the same `f32` ray-space coordinates
/// ([`ray_space`]): the edge functions are exact there, so their signs are the `f32` path's and
/// neighbours still agree, and `Σ e_i · z_i` cannot underflow. Inlined: an out-of-line call on
/// this path, though never taken, slows the common path down.
#[inline(always)]
fn tiny_triangle<const X: usize, const Y: usize, const Z: usize>(
    setup: &RayTriangleSetup,
    max_t: f32,
    tri: &[Vec3; 3],
    unchecked_ray: Option<&Ray3>,
) -> Option<TriangleCrossing> {
    let [x, y, z] = ray_space::<X, Y, Z>(setup, tri).map(|v| v.as_dvec3().to_array());
    let edge = |p: usize, q: usize| x[q] * y[p] - y[q] * x[p];
    let e = [edge(1, 2), edge(2, 0), edge(0, 1)];
    if !(e.iter().all(|&w| w >= 0.0) || e.iter().all(|&w| w <= 0.0)) {
        return None;
    }
    let det = e[0] + e[1] + e[2];
    let t_scaled = f64::from(setup.shear[2]) * (e[0] * z[0] + e[1] * z[1] + e[2] * z[2]);
    let t = t_scaled / det + 0.0;
    if !(det != 0.0 && t >= 0.0 && t <= f64::from(max_t) && max_t >= 0.0 && hit_allowed(tri, unchecked_ray)) {
        return None;
    }
    Some(TriangleCrossing {
        t: (t as f32).min(max_t),
        u: (e[1] / det) as f32,
        v: (e[2] / det) as f32,
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
pub fn segment_triangle(p: Vec3, q: Vec3, tri: &[Vec3; 3]) -> Option<TriangleCrossing> {
    ray_triangle(&Ray3::from_segment(p, q), 1.0, tri)
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Mat3;

    fn ray(o: [f32; 3], d: [f32; 3]) -> Ray3 {
        Ray3::new(Vec3::from(o), Vec3::from(d))
    }

    const TRI: [Vec3; 3] = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];

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
