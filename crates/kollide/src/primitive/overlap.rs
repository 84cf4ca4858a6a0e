//! Yes/no overlap tests and plane classification for spheres, boxes and triangles (3D).
//!
//! Every set is closed: touching counts as overlapping. Contracts shared by every function here:
//!
//! - **Degenerate volumes** are the lower-dimensional sets they are: a zero radius is a point, a
//!   zero extent a flat box, a zero-area triangle a segment or a point.
//! - **Empty volumes**: an inverted box (`min > max` on some axis), a negative radius or a negative
//!   OBB half extent is empty and overlaps nothing (`false`).
//! - **Non-finite input** (NaN or ±∞ in any coordinate, radius, extent or plane): the `test_*`
//!   functions answer `false`, the `classify_*` functions answer [`PlaneSide::Intersecting`] (no
//!   side can be proven).
//! - **Range**: coordinates are assumed to stay below about `1e18` in magnitude so that squared
//!   distances do not overflow; beyond that the answers are unspecified (but never a panic).

use glam::{Vec3, Vec3A};

use super::closest::{DEGENERATE_SIN2_F64, Vector3, triangle_region, well_shaped};

use super::{Plane3, PlaneSide, TriangleFeature};
use crate::bounds::{Aabb3, Obb3, Sphere};

/// True if `r` is a usable radius: finite and not negative (NaN fails).
#[inline(always)]
fn radius_ok(r: f32) -> bool {
    (0.0..f32::INFINITY).contains(&r)
}

/// True if the box is non-empty and finite: `0 <= max - min < ∞` on every axis (NaN fails).
#[inline(always)]
fn aabb_ok(b: &Aabb3) -> bool {
    let extent = b.max - b.min;
    (extent.cmpge(Vec3::ZERO) & extent.cmplt(Vec3::INFINITY)).all()
}

/// Whether two solid spheres share a point: `|c_a - c_b|² <= (r_a + r_b)²`.
///
/// Zero radii are points. A negative radius (an empty sphere) or any non-finite value gives
/// `false`. Symmetric.
#[inline]
pub fn test_sphere_sphere(a: &Sphere, b: &Sphere) -> bool {
    let r = a.radius + b.radius;
    let d2 = (a.center - b.center).length_squared();
    d2 <= r * r && radius_ok(a.radius) && radius_ok(b.radius) && a.center.is_finite() && b.center.is_finite()
}

/// The per-axis distance from `c` to the slabs of `b`: `max(min - c, c - max, 0)`, zero inside
/// the slab. For a valid box at most one of the two differences is positive.
#[inline(always)]
fn slab_excess(c: Vec3, b: &Aabb3) -> Vec3 {
    (b.min - c).max(c - b.max).max(Vec3::ZERO)
}

/// Whether a solid sphere and a box share a point, exactly: the squared distance from the
/// sphere's center to the box is at most `r²` (Arvo, "A simple method for box-sphere
/// intersection testing", Graphics Gems, 1990; Ericson §5.2.5).
///
/// A zero radius tests the center for containment. An inverted box, a negative radius or any
/// non-finite value gives `false`.
#[inline]
pub fn test_sphere_aabb(sphere: &Sphere, aabb: &Aabb3) -> bool {
    let d = slab_excess(sphere.center, aabb);
    d.length_squared() <= sphere.radius * sphere.radius
        && radius_ok(sphere.radius)
        && aabb_ok(aabb)
        && sphere.center.is_finite()
}

/// The cheap, conservative sphere/box test, for culling: is the center inside the box grown by
/// `r` on every side? Equivalently, is every per-axis distance from the center to the box's
/// slabs at most `r`?
///
/// It reports `true` whenever [`test_sphere_aabb`] does (never a false negative), and also for
/// spheres that miss the box near one of its edges or corners: false positives need the center
/// to lie beyond the box on two or three axes at once (a center within the box's extent on two
/// axes gets the exact answer). It compares the same squared per-axis distances the exact test
/// sums, so "no false negative" holds exactly in `f32`, not only up to rounding: a sum of
/// non-negative rounded terms is never smaller than any of its terms. Same answers for degenerate
/// and non-finite input as [`test_sphere_aabb`].
#[inline]
pub fn test_sphere_aabb_conservative(sphere: &Sphere, aabb: &Aabb3) -> bool {
    let d = slab_excess(sphere.center, aabb);
    (d * d).cmple(Vec3::splat(sphere.radius * sphere.radius)).all()
        && radius_ok(sphere.radius)
        && aabb_ok(aabb)
        && sphere.center.is_finite()
}

/// Whether a solid sphere and an oriented box share a point: the center is taken into the box's
/// frame (`axesᵀ (c - center)`) and tested like [`test_sphere_aabb`].
///
/// The box's axes must be orthonormal (not checked). A negative half extent (empty box), a
/// negative radius or any non-finite value gives `false`.
#[inline]
pub fn test_sphere_obb(sphere: &Sphere, obb: &Obb3) -> bool {
    let rel = sphere.center - obb.center;
    let local = Vec3::new(obb.axes.x_axis.dot(rel), obb.axes.y_axis.dot(rel), obb.axes.z_axis.dot(rel));
    let h = obb.half_extents;
    let d = (local.abs() - h).max(Vec3::ZERO);
    d.length_squared() <= sphere.radius * sphere.radius
        && radius_ok(sphere.radius)
        && (h.cmpge(Vec3::ZERO) & h.cmplt(Vec3::INFINITY)).all()
        && local.is_finite()
        && obb.axes.is_finite()
}

/// Whether two boxes share a point (their intervals overlap on all three axes, closed).
///
/// An inverted box or any non-finite coordinate gives `false`. Symmetric.
#[inline]
pub fn test_aabb_aabb(a: &Aabb3, b: &Aabb3) -> bool {
    (a.min.cmple(b.max) & b.min.cmple(a.max)).all() && aabb_ok(a) && aabb_ok(b)
}

/// Signed distance `s` of the center of `aabb` from `plane` and the box's projected radius
/// `r = h · |n|` on the normal: the box spans `[s - r, s + r]` along the normal (Ericson §5.2.3).
#[inline(always)]
fn aabb_plane_interval(aabb: &Aabb3, plane: &Plane3) -> (f32, f32) {
    let center = (aabb.min + aabb.max) * 0.5;
    let half = (aabb.max - aabb.min) * 0.5;
    (plane.signed_distance(center), half.dot(plane.normal.abs()))
}

/// The side of `plane` the box lies on: `Front` if every point of the box has positive signed
/// distance, `Back` if every point has negative signed distance, `Intersecting` if the box
/// touches or crosses the plane.
///
/// Center/extent form (Ericson §5.2.3): the box projects on the normal to `[s - r, s + r]` with `s`
/// the center's signed distance and `r = h · |n|`. The normal need not be unit length for the
/// answer to be right. An inverted box or a non-finite value gives
/// `Intersecting` (no side can be proven; [`test_aabb_plane`] answers `false` for them).
#[inline]
pub fn classify_aabb_plane(aabb: &Aabb3, plane: &Plane3) -> PlaneSide {
    let (s, r) = aabb_plane_interval(aabb, plane);
    side_of_interval(s, r, aabb.min.cmple(aabb.max).all())
}

/// `Front` / `Back` if `[s - r, s + r]` lies strictly on one side of 0, else `Intersecting`;
/// `Intersecting` also when `valid` is false or a value is NaN.
#[inline(always)]
fn side_of_interval(s: f32, r: f32, valid: bool) -> PlaneSide {
    if !valid {
        PlaneSide::Intersecting
    } else if s > r {
        PlaneSide::Front
    } else if s < -r {
        PlaneSide::Back
    } else {
        PlaneSide::Intersecting
    }
}

/// Whether the box touches or crosses the plane: `|s| <= r` in the notation of
/// [`classify_aabb_plane`]. An inverted box or any non-finite value gives `false`.
#[inline]
pub fn test_aabb_plane(aabb: &Aabb3, plane: &Plane3) -> bool {
    let (s, r) = aabb_plane_interval(aabb, plane);
    s.abs() <= r && aabb_ok(aabb) && plane.normal.is_finite() && plane.d.is_finite()
}

/// Signed distance of the OBB's center from the plane and its projected radius
/// `r = Σ h_i |n · axis_i|` (Ericson §5.2.3: the box axes projected on the normal).
#[inline(always)]
fn obb_plane_interval(obb: &Obb3, plane: &Plane3) -> (f32, f32) {
    let n = plane.normal;
    let projected = Vec3::new(obb.axes.x_axis.dot(n), obb.axes.y_axis.dot(n), obb.axes.z_axis.dot(n));
    (plane.signed_distance(obb.center), obb.half_extents.dot(projected.abs()))
}

/// The side of `plane` the oriented box lies on, as [`classify_aabb_plane`], with the projected
/// radius `Σ h_i |n · axis_i|`. The axes must be orthonormal (not checked). A negative half extent
/// or a non-finite value gives `Intersecting`.
#[inline]
pub fn classify_obb_plane(obb: &Obb3, plane: &Plane3) -> PlaneSide {
    let (s, r) = obb_plane_interval(obb, plane);
    side_of_interval(s, r, obb.half_extents.cmpge(Vec3::ZERO).all())
}

/// Whether the oriented box touches or crosses the plane. A negative half extent or any
/// non-finite value gives `false`.
#[inline]
pub fn test_obb_plane(obb: &Obb3, plane: &Plane3) -> bool {
    let (s, r) = obb_plane_interval(obb, plane);
    let h = obb.half_extents;
    s.abs() <= r
        && (h.cmpge(Vec3::ZERO) & h.cmplt(Vec3::INFINITY)).all()
        && obb.center.is_finite()
        && obb.axes.is_finite()
        && plane.normal.is_finite()
        && plane.d.is_finite()
}

/// Whether a solid sphere and a solid triangle share a point: the squared distance from the
/// center to the triangle is at most `r²`.
///
/// Two steps: a plane-distance reject (`((p - a) · n)² > r² |n|²` with `n = (b - a) × (c - a)`,
/// no square root), then the Voronoi-region walk of [`super::closest_point_triangle`] reduced to
/// squared distances: a vertex region compares `|p - v|²`, an edge region compares the squared
/// distance to the edge's line as `|e × (p - v)|² <= r² |e|²` (no division), and the face region
/// is already decided by the plane test. Like `closest_point_triangle`, nearly degenerate
/// triangles (where the `f32` normal is unreliable) are redone in `f64`, and zero-area triangles
/// are answered from their edges. Either winding. A zero radius tests the center for lying on the
/// triangle (exactly for small-integer input, otherwise up to rounding). Negative radius or any
/// non-finite value: `false`.
#[inline]
pub fn test_sphere_triangle(sphere: &Sphere, tri: &[Vec3; 3]) -> bool {
    let r2 = sphere.radius * sphere.radius;
    let a = Vec3A::from(tri[0]);
    let b = Vec3A::from(tri[1]);
    let c = Vec3A::from(tri[2]);
    let p = Vec3A::from(sphere.center);
    let ab = b - a;
    let ac = c - a;
    let n = ab.cross(ac);
    let hit = if well_shaped(ab, ac, n) {
        // The reject is exact in real arithmetic: the plane distance is `|dist| / |n|`.
        let dist = (p - a).dot(n);
        if dist * dist > r2 * n.length_squared() {
            return false;
        }
        within_triangle(p, a, b, c, r2)
    } else {
        within_sliver_triangle(sphere, tri)
    };
    hit && radius_ok(sphere.radius) && (a.is_finite() & b.is_finite() & c.is_finite() & p.is_finite())
}

/// Whether `p` is within squared distance `r2` of the triangle, for a triangle whose plane test
/// (`plane distance² <= r2`) has passed: the region walk decides vertex and edge regions, and the
/// face region is a hit.
#[inline(always)]
fn within_triangle<V: Vector3>(p: V, a: V, b: V, c: V, r2: V::Scalar) -> bool {
    let Some((feature, ..)) = triangle_region(p, a, b, c) else {
        return within_edges(p, a, b, c, r2);
    };
    match feature {
        TriangleFeature::Vertex(i) => {
            let d = p - [a, b, c][usize::from(i)];
            d.dot3(d) <= r2
        }
        TriangleFeature::Edge(0) => within_line(p, a, b, r2),
        TriangleFeature::Edge(1) => within_line(p, b, c, r2),
        TriangleFeature::Edge(_) => within_line(p, c, a, r2),
        TriangleFeature::Face => true,
    }
}

/// `|e × (p - u)|² <= r2 |e|²` with `e = v - u`: the squared distance from `p` to the line
/// through `u` and `v` is at most `r2`, without a division.
#[inline(always)]
fn within_line<V: Vector3>(p: V, u: V, v: V, r2: V::Scalar) -> bool {
    let e = v - u;
    let x = e.cross3(p - u);
    x.dot3(x) <= r2 * e.dot3(e)
}

/// Whether `p` is within squared distance `r2` of one of the triangle's three edges.
#[cold]
fn within_edges<V: Vector3>(p: V, a: V, b: V, c: V, r2: V::Scalar) -> bool {
    let zero = V::Scalar::from(0.0);
    [(a, b), (b, c), (c, a)].into_iter().any(|(u, v)| {
        let (e, w) = (v - u, p - u);
        let along = w.dot3(e);
        if along <= zero {
            w.dot3(w) <= r2
        } else if along >= e.dot3(e) {
            (p - v).dot3(p - v) <= r2
        } else {
            within_line(p, u, v, r2)
        }
    })
}

/// [`test_sphere_triangle`] for slivers and zero-area triangles, in `f64`.
#[cold]
fn within_sliver_triangle(sphere: &Sphere, tri: &[Vec3; 3]) -> bool {
    let [a, b, c] = tri.map(Vec3::as_dvec3);
    let p = sphere.center.as_dvec3();
    let r2 = f64::from(sphere.radius) * f64::from(sphere.radius);
    let (ab, ac) = (b - a, c - a);
    let n = ab.cross(ac);
    if n.length_squared() > DEGENERATE_SIN2_F64 * ab.length_squared() * ac.length_squared() {
        let dist = (p - a).dot(n);
        dist * dist <= r2 * n.length_squared() && within_triangle(p, a, b, c, r2)
    } else {
        within_edges(p, a, b, c, r2)
    }
}

/// Whether a solid triangle and a box share a point.
///
/// Akenine-Möller's separating-axis test ("Fast 3D triangle-box overlap testing", JGT 2001) on
/// the 13 candidate axes, in the box's centered frame: the 3 box axes (the triangle's bounding
/// box against the box), the triangle normal, and the 9 cross products of the box axes with the
/// triangle edges, cheapest first, each returning as soon as it separates.
///
/// Exact up to `f32` rounding for every triangle, exact for inputs whose products are exact
/// (small integers, halves...). Zero-area triangles are still answered exactly: their normal is
/// the zero vector (a harmless axis that separates nothing), and the remaining axes are exactly
/// the ones a segment needs (box axes and box axes × the segment direction; the triangle's
/// non-zero edges are all parallel to it) or a point needs (box axes). The normal axis projects
/// all three vertices rather than assuming they share one value, so that a nearly degenerate
/// triangle with a poorly determined normal cannot be separated by mistake. Either winding. An
/// inverted box or any non-finite value gives `false`.
#[inline]
pub fn test_triangle_aabb(tri: &[Vec3; 3], aabb: &Aabb3) -> bool {
    let center = (aabb.min + aabb.max) * 0.5;
    let h = (aabb.max - aabb.min) * 0.5;
    let v0 = tri[0] - center;
    let v1 = tri[1] - center;
    let v2 = tri[2] - center;

    // Box axes: the triangle's bounding box against [-h, h].
    let lo = v0.min(v1).min(v2);
    let hi = v0.max(v1).max(v2);
    if (lo.cmpgt(h) | hi.cmplt(-h)).any() {
        return false;
    }

    let e0 = v1 - v0;
    let e1 = v2 - v1;
    let e2 = v0 - v2;

    // Triangle normal: the box projects to [-r, r], the triangle to [min p_i, max p_i].
    let n = e0.cross(e1);
    let r = h.dot(n.abs());
    let (p0, p1, p2) = (n.dot(v0), n.dot(v1), n.dot(v2));
    if p0.min(p1).min(p2) > r || p0.max(p1).max(p2) < -r {
        return false;
    }

    // Box axis × edge. For axis u_x × e = (0, -e_z, e_y) the projection of v is
    // `e_y v_z - e_z v_y` and the box radius `h_y |e_z| + h_z |e_y|`; likewise for y and z. The
    // two vertices of the edge project to the same value, so only one of them and the opposite
    // vertex are projected.
    if separated_by_edge_axes(e0, v0, v2, h)
        || separated_by_edge_axes(e1, v1, v0, h)
        || separated_by_edge_axes(e2, v2, v1, h)
    {
        return false;
    }

    (h.cmpge(Vec3::ZERO) & h.cmplt(Vec3::INFINITY)).all()
        && v0.is_finite()
        && v1.is_finite()
        && v2.is_finite()
}

/// The three axes `u_i × e` for edge `e` from vertex `on_edge`, with `opposite` the third vertex.
#[inline(always)]
fn separated_by_edge_axes(e: Vec3, on_edge: Vec3, opposite: Vec3, h: Vec3) -> bool {
    let f = e.abs();
    let sep = |p: f32, q: f32, r: f32| p.min(q) > r || p.max(q) < -r;
    sep(e.y * on_edge.z - e.z * on_edge.y, e.y * opposite.z - e.z * opposite.y, h.y * f.z + h.z * f.y)
        || sep(e.z * on_edge.x - e.x * on_edge.z, e.z * opposite.x - e.x * opposite.z, h.x * f.z + h.z * f.x)
        || sep(e.x * on_edge.y - e.y * on_edge.x, e.x * opposite.y - e.y * opposite.x, h.x * f.y + h.y * f.x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat3;

    const NAN: f32 = f32::NAN;
    const INF: f32 = f32::INFINITY;

    fn unit_box() -> Aabb3 {
        Aabb3 { min: Vec3::ZERO, max: Vec3::ONE }
    }

    #[test]
    fn sphere_sphere_touching_and_bad_input() {
        let a = Sphere { center: Vec3::ZERO, radius: 1.0 };
        let b = Sphere { center: Vec3::new(3.0, 0.0, 0.0), radius: 2.0 };
        assert!(test_sphere_sphere(&a, &b) && test_sphere_sphere(&b, &a));
        let c = Sphere { center: Vec3::new(3.0, 0.0, 0.0), radius: 1.5 };
        assert!(!test_sphere_sphere(&a, &c));
        let point = Sphere { center: Vec3::X, radius: 0.0 };
        assert!(test_sphere_sphere(&a, &point));
        assert!(test_sphere_sphere(&point, &point));
        let negative = Sphere { center: Vec3::ZERO, radius: -0.5 };
        assert!(!test_sphere_sphere(&negative, &Sphere { center: Vec3::ZERO, radius: 10.0 }));
        for bad in
            [Sphere { center: Vec3::splat(NAN), radius: 1.0 }, Sphere { center: Vec3::ZERO, radius: NAN }]
        {
            assert!(!test_sphere_sphere(&a, &bad) && !test_sphere_sphere(&bad, &a));
        }
        assert!(!test_sphere_sphere(&a, &Sphere { center: Vec3::ZERO, radius: INF }));
        let far = Sphere { center: Vec3::splat(INF), radius: 1.0 };
        assert!(!test_sphere_sphere(&far, &far));
    }

    #[test]
    fn sphere_aabb_exact_and_conservative_at_a_corner() {
        let b = unit_box();
        // Center off the corner (1,1,1) by (0.5,0.5,0.5): distance √0.75 ≈ 0.866.
        let s = Sphere { center: Vec3::splat(1.5), radius: 0.8 };
        assert!(!test_sphere_aabb(&s, &b));
        assert!(test_sphere_aabb_conservative(&s, &b));
        let s = Sphere { center: Vec3::splat(1.5), radius: 0.9 };
        assert!(test_sphere_aabb(&s, &b) && test_sphere_aabb_conservative(&s, &b));
        // Touching a face; zero radius on the surface; inside.
        assert!(test_sphere_aabb(&Sphere { center: Vec3::new(2.0, 0.5, 0.5), radius: 1.0 }, &b));
        assert!(test_sphere_aabb(&Sphere { center: Vec3::new(1.0, 0.5, 0.5), radius: 0.0 }, &b));
        assert!(test_sphere_aabb(&Sphere { center: Vec3::splat(0.5), radius: 0.0 }, &b));
        assert!(!test_sphere_aabb(&Sphere { center: Vec3::new(1.01, 0.5, 0.5), radius: 0.0 }, &b));
    }

    #[test]
    fn sphere_aabb_bad_input() {
        let s = Sphere { center: Vec3::splat(0.5), radius: 1.0 };
        let inverted = Aabb3 { min: Vec3::ONE, max: Vec3::ZERO };
        let flat = Aabb3 { min: Vec3::ZERO, max: Vec3::new(1.0, 1.0, 0.0) };
        assert!(test_sphere_aabb(&s, &flat) && test_sphere_aabb_conservative(&s, &flat));
        let bad_boxes = [
            inverted,
            Aabb3 { min: Vec3::splat(NAN), max: Vec3::ONE },
            Aabb3 { min: Vec3::ZERO, max: Vec3::new(1.0, INF, 1.0) },
        ];
        for b in bad_boxes {
            assert!(!test_sphere_aabb(&s, &b) && !test_sphere_aabb_conservative(&s, &b));
        }
        let bad_spheres = [
            Sphere { center: Vec3::new(NAN, 0.5, 0.5), radius: 1.0 },
            Sphere { center: Vec3::splat(0.5), radius: NAN },
            Sphere { center: Vec3::splat(0.5), radius: -1.0 },
            Sphere { center: Vec3::splat(0.5), radius: INF },
            Sphere { center: Vec3::new(INF, 0.5, 0.5), radius: 1.0 },
        ];
        for s in bad_spheres {
            assert!(
                !test_sphere_aabb(&s, &unit_box()) && !test_sphere_aabb_conservative(&s, &unit_box()),
                "{s:?}"
            );
        }
    }

    #[test]
    fn sphere_obb_rotated() {
        // A unit cube rotated 45° about z: its corner reaches √2 along x.
        let obb = Obb3 {
            center: Vec3::ZERO,
            axes: Mat3::from_rotation_z(std::f32::consts::FRAC_PI_4),
            half_extents: Vec3::ONE,
        };
        assert!(test_sphere_obb(&Sphere { center: Vec3::new(1.5, 0.0, 0.0), radius: 0.1 }, &obb));
        assert!(!test_sphere_obb(&Sphere { center: Vec3::new(1.6, 0.0, 0.0), radius: 0.1 }, &obb));
        assert!(test_sphere_obb(&Sphere { center: Vec3::new(1.6, 0.0, 0.0), radius: 0.2 }, &obb));
        let empty = Obb3 { half_extents: Vec3::new(1.0, -1.0, 1.0), ..obb };
        assert!(!test_sphere_obb(&Sphere { center: Vec3::ZERO, radius: 5.0 }, &empty));
        let nan_axes = Obb3 { axes: Mat3::from_cols(Vec3::X, Vec3::Y, Vec3::splat(NAN)), ..obb };
        assert!(!test_sphere_obb(&Sphere { center: Vec3::ZERO, radius: 5.0 }, &nan_axes));
        assert!(!test_sphere_obb(&Sphere { center: Vec3::ZERO, radius: NAN }, &obb));
        let point_box = Obb3 { half_extents: Vec3::ZERO, ..obb };
        assert!(test_sphere_obb(&Sphere { center: Vec3::X, radius: 1.0 }, &point_box));
    }

    #[test]
    fn aabb_aabb_cases() {
        let a = unit_box();
        let touching = Aabb3 { min: Vec3::new(1.0, 1.0, 1.0), max: Vec3::splat(2.0) };
        assert!(test_aabb_aabb(&a, &touching) && test_aabb_aabb(&touching, &a));
        let apart = Aabb3 { min: Vec3::new(1.01, 0.0, 0.0), max: Vec3::splat(2.0) };
        assert!(!test_aabb_aabb(&a, &apart));
        let inverted_inside = Aabb3 { min: Vec3::splat(0.6), max: Vec3::splat(0.4) };
        assert!(!test_aabb_aabb(&a, &inverted_inside) && !test_aabb_aabb(&inverted_inside, &a));
        let nan = Aabb3 { min: Vec3::splat(NAN), max: Vec3::ONE };
        assert!(!test_aabb_aabb(&a, &nan) && !test_aabb_aabb(&nan, &a));
        let point = Aabb3 { min: Vec3::splat(0.5), max: Vec3::splat(0.5) };
        assert!(test_aabb_aabb(&a, &point));
    }

    #[test]
    fn aabb_and_obb_plane_classification() {
        let b = unit_box();
        let plane = |normal: Vec3, d: f32| Plane3 { normal, d };
        assert_eq!(classify_aabb_plane(&b, &plane(Vec3::Z, -0.5)), PlaneSide::Front);
        assert_eq!(classify_aabb_plane(&b, &plane(Vec3::Z, 1.5)), PlaneSide::Back);
        assert_eq!(classify_aabb_plane(&b, &plane(Vec3::Z, 1.0)), PlaneSide::Intersecting);
        assert!(test_aabb_plane(&b, &plane(Vec3::Z, 1.0)));
        let diag = Vec3::ONE.normalize();
        assert_eq!(classify_aabb_plane(&b, &plane(diag, 1.7)), PlaneSide::Intersecting);
        assert_eq!(classify_aabb_plane(&b, &plane(-diag, 0.1)), PlaneSide::Back);
        let inverted = Aabb3 { min: Vec3::ONE, max: Vec3::ZERO };
        assert_eq!(classify_aabb_plane(&inverted, &plane(Vec3::Z, 5.0)), PlaneSide::Intersecting);
        assert!(!test_aabb_plane(&inverted, &plane(Vec3::Z, 0.5)));
        assert_eq!(classify_aabb_plane(&b, &plane(Vec3::Z, NAN)), PlaneSide::Intersecting);
        assert!(!test_aabb_plane(&b, &plane(Vec3::new(NAN, 0.0, 1.0), 0.5)));

        let obb = Obb3 {
            center: Vec3::ZERO,
            axes: Mat3::from_rotation_z(std::f32::consts::FRAC_PI_4),
            half_extents: Vec3::ONE,
        };
        assert_eq!(classify_obb_plane(&obb, &plane(Vec3::X, 1.4)), PlaneSide::Intersecting);
        assert_eq!(classify_obb_plane(&obb, &plane(Vec3::X, 1.5)), PlaneSide::Back);
        assert_eq!(classify_obb_plane(&obb, &plane(-Vec3::X, 1.5)), PlaneSide::Back);
        assert_eq!(classify_obb_plane(&obb, &plane(Vec3::X, -1.5)), PlaneSide::Front);
        assert!(test_obb_plane(&obb, &plane(Vec3::Y, 1.4)));
        let empty = Obb3 { half_extents: -Vec3::ONE, ..obb };
        assert_eq!(classify_obb_plane(&empty, &plane(Vec3::X, 5.0)), PlaneSide::Intersecting);
        assert!(!test_obb_plane(&empty, &plane(Vec3::X, 0.0)));
        assert!(!test_obb_plane(&Obb3 { center: Vec3::splat(NAN), ..obb }, &plane(Vec3::X, 0.0)));
    }

    #[test]
    fn sphere_triangle_regions_and_degenerate() {
        let tri = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)];
        let s = |x: f32, y: f32, z: f32, r: f32| Sphere { center: Vec3::new(x, y, z), radius: r };
        assert!(test_sphere_triangle(&s(0.5, 0.5, 1.0, 1.0), &tri)); // face, touching
        assert!(!test_sphere_triangle(&s(0.5, 0.5, 1.0, 0.99), &tri));
        assert!(test_sphere_triangle(&s(-1.0, -1.0, 0.0, 1.5), &tri)); // vertex 0
        assert!(!test_sphere_triangle(&s(-1.0, -1.0, 0.0, 1.4), &tri));
        assert!(test_sphere_triangle(&s(2.0, 2.0, 0.0, 1.5), &tri)); // edge 1 at distance √2
        assert!(!test_sphere_triangle(&s(2.0, 2.0, 0.0, 1.4), &tri));
        assert!(test_sphere_triangle(&s(0.5, 0.5, 0.0, 0.0), &tri)); // zero radius on the face
        // Zero-area triangles: a segment along x from 0 to 2 (middle vertex first), and a point.
        let seg = [Vec3::X, Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)];
        assert!(test_sphere_triangle(&s(1.5, 1.0, 0.0, 1.0), &seg));
        assert!(!test_sphere_triangle(&s(1.5, 1.0, 0.0, 0.99), &seg));
        assert!(!test_sphere_triangle(&s(3.5, 0.0, 0.0, 1.4), &seg));
        let pinched = [Vec3::ZERO, Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0)];
        assert!(test_sphere_triangle(&s(2.0, 1.0, 0.0, 1.0), &pinched));
        assert!(!test_sphere_triangle(&s(2.0, 1.0, 0.0, 0.99), &pinched));
        let point = [Vec3::ONE; 3];
        assert!(test_sphere_triangle(&s(1.0, 1.0, 2.0, 1.0), &point));
        assert!(!test_sphere_triangle(&s(1.0, 1.0, 2.0, 0.99), &point));
    }

    #[test]
    fn sphere_triangle_bad_input_is_false() {
        let tri = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)];
        let inside = Sphere { center: Vec3::new(0.5, 0.5, 0.0), radius: 1.0 };
        assert!(test_sphere_triangle(&inside, &tri));
        assert!(!test_sphere_triangle(&Sphere { radius: -1.0, ..inside }, &tri));
        assert!(!test_sphere_triangle(&Sphere { radius: NAN, ..inside }, &tri));
        assert!(!test_sphere_triangle(&Sphere { radius: INF, ..inside }, &tri));
        for bad in [NAN, INF, -INF] {
            for axis in 0..3 {
                let mut center = inside.center;
                center[axis] = bad;
                assert!(!test_sphere_triangle(&Sphere { center, ..inside }, &tri));
                for vertex in 0..3 {
                    let mut t = tri;
                    t[vertex][axis] = bad;
                    assert!(!test_sphere_triangle(&inside, &t), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn triangle_aabb_cases() {
        let b = unit_box();
        let tri = |a: [f32; 3], b: [f32; 3], c: [f32; 3]| [Vec3::from(a), Vec3::from(b), Vec3::from(c)];
        // A big triangle slicing through the middle of the box.
        assert!(test_triangle_aabb(&tri([-5.0, -5.0, 0.5], [5.0, -5.0, 0.5], [0.0, 5.0, 0.5]), &b));
        // Separated by the normal only: the plane x + y + z = 3.1 misses the corner (1,1,1).
        assert!(!test_triangle_aabb(&tri([3.1, 0.0, 0.0], [0.0, 3.1, 0.0], [0.0, 0.0, 3.1]), &b));
        assert!(test_triangle_aabb(&tri([3.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 3.0]), &b));
        // Separated only by the edge axis z × (-1, 1, 0) ∝ (1, 1, 0): the edge from (2.1, 0) to
        // (0, 2.1) passes outside the box edge x = y = 1, and the triangle leans away from it.
        let near = tri([2.1, 0.0, 0.5], [0.0, 2.1, 0.5], [3.0, 3.0, 5.0]);
        assert!(!test_triangle_aabb(&near, &b));
        let touching = tri([2.0, 0.0, 0.5], [0.0, 2.0, 0.5], [3.0, 3.0, 5.0]);
        assert!(test_triangle_aabb(&touching, &b));
    }

    #[test]
    fn triangle_aabb_degenerate_triangles() {
        let b = unit_box();
        // A segment passing diagonally just outside the edge x = y = 1 (separated by z × dir).
        let seg = [Vec3::new(2.1, 0.0, 0.5), Vec3::new(0.0, 2.1, 0.5), Vec3::new(1.05, 1.05, 0.5)];
        assert!(!test_triangle_aabb(&seg, &b));
        let seg = [Vec3::new(2.0, 0.0, 0.5), Vec3::new(1.0, 1.0, 0.5), Vec3::new(0.0, 2.0, 0.5)];
        assert!(test_triangle_aabb(&seg, &b));
        // A segment through the box, with a repeated vertex.
        let seg = [Vec3::splat(-1.0), Vec3::splat(-1.0), Vec3::splat(2.0)];
        assert!(test_triangle_aabb(&seg, &b));
        // Points.
        assert!(test_triangle_aabb(&[Vec3::ONE; 3], &b));
        assert!(!test_triangle_aabb(&[Vec3::splat(1.01); 3], &b));
    }

    #[test]
    fn triangle_aabb_bad_input() {
        let tri = [Vec3::splat(-5.0), Vec3::new(5.0, -5.0, 0.5), Vec3::new(0.0, 5.0, 0.5)];
        let b = unit_box();
        assert!(!test_triangle_aabb(&tri, &Aabb3 { min: Vec3::ONE, max: Vec3::ZERO }));
        assert!(!test_triangle_aabb(&tri, &Aabb3 { min: Vec3::ZERO, max: Vec3::new(1.0, NAN, 1.0) }));
        assert!(!test_triangle_aabb(&tri, &Aabb3 { min: Vec3::splat(-INF), max: Vec3::splat(INF) }));
        let flat = Aabb3 { min: Vec3::ZERO, max: Vec3::new(1.0, 1.0, 0.0) };
        assert!(test_triangle_aabb(
            &[Vec3::new(0.0, 0.0, -1.0), Vec3::new(1.0, 0.0, 1.0), Vec3::new(0.0, 1.0, 1.0)],
            &flat
        ));
        for bad in [NAN, INF, -INF] {
            for vertex in 0..3 {
                for axis in 0..3 {
                    let mut t = tri;
                    t[vertex][axis] = bad;
                    assert!(!test_triangle_aabb(&t, &b), "{t:?}");
                }
            }
        }
    }
}
