//! Contact manifolds by feature clipping.
//!
//! Given one contact (normal `n` from A to B), each shape contributes its *supporting feature*
//! along the normal (A along `n`, B along `-n`): a face polygon, an edge, or a single point. If one
//! of them is a face within [`REFERENCE_COS`] of the normal, it is the reference face and the other
//! feature (the incident one) is clipped against the planes through its edges
//! (Sutherland–Hodgman); every clipped point within `prediction` of the reference plane becomes a
//! contact point. Otherwise (edge against edge, curved surfaces) the manifold is the single contact.
//! More than four points are reduced to four that span the largest area.
//!
//! Supporting features map exactly under affine placements: the supporting set of `M·S + t` along
//! `d` is `M` times the supporting set of `S` along `Mᵀ d`. Curved caps (cylinder and cone discs)
//! are represented by their inscribed regular octagon, so their contact points lie in the true
//! contact region.

use glam::{Vec3, Vec3A};

use super::frame::{FrameContact, Side};
use crate::shape::{ConvexShape, SupportMap};

/// A face is the reference face when its normal is within this cosine of the contact normal.
const REFERENCE_COS: f32 = 0.9999;
/// A direction is a face's normal (cylinder and cone caps) above this cosine.
const FACE_COS: f32 = 0.999;
/// A direction is normal to a segment (capsule axis, cylinder and cone sides) below this sine.
const SEGMENT_SIN: f32 = 0.02;
/// Capacity of a feature polygon (hull faces with more vertices are used as single points).
const MAX_FEATURE: usize = 16;
/// Capacity of a clipped polygon.
const MAX_CLIP: usize = 2 * MAX_FEATURE;
/// Capacity of a feature of a box or a triangle (see [`build`]).
const SMALL_FEATURE: usize = 4;
/// Capacity of the clipped polygon of two features of at most eight points in all.
const SMALL_CLIP: usize = 2 * SMALL_FEATURE;

/// One point of a [`ContactManifold`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ManifoldPoint {
    /// The point on A (world space).
    pub point_a: Vec3,
    /// The point on B (world space).
    pub point_b: Vec3,
    /// Signed distance along the manifold normal: negative when penetrating.
    pub separation: f32,
    /// A feature id: the same pair of features (reference face, incident vertex or clipping edge)
    /// gives the same id from frame to frame, for warm starting a solver; the points of one
    /// manifold have distinct ids.
    pub id: u32,
}

/// Up to four contact points sharing one normal (from A to B).
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactManifold {
    /// Unit normal from A to B (zero when the manifold is empty).
    pub normal: Vec3,
    pub(super) points: [ManifoldPoint; 4],
    pub(super) len: usize,
}

impl ContactManifold {
    /// The contact points.
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.len]
    }

    /// The number of points (0 to 4).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no contact.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties the manifold: no points, a zero normal.
    pub fn clear(&mut self) {
        self.normal = Vec3::ZERO;
        self.len = 0;
    }

    /// Appends a point: `point_a` on A and `point_b` on B (world space), `separation` along
    /// [`normal`](Self::normal) (which the caller sets), feature id `id`. A manifold holds four
    /// points: a push beyond the fourth is ignored.
    pub fn push(&mut self, point_a: Vec3, point_b: Vec3, separation: f32, id: u32) {
        if self.len < 4 {
            self.points[self.len] = ManifoldPoint { point_a, point_b, separation, id };
            self.len += 1;
        }
    }

    pub(crate) fn map_to_world(&mut self, point: impl Fn(Vec3A) -> Vec3, vector: impl Fn(Vec3A) -> Vec3) {
        self.normal = vector(self.normal.into());
        for p in &mut self.points[..self.len] {
            p.point_a = point(p.point_a.into());
            p.point_b = point(p.point_b.into());
        }
    }
}

/// Equal normals and equal points (slots past the length are ignored).
impl PartialEq for ContactManifold {
    fn eq(&self, other: &Self) -> bool {
        self.normal == other.normal && self.points() == other.points()
    }
}

/// The contact manifold of one part of A with one part of B, for shapes made of parts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PartManifold {
    /// The part of A the contact lies on: a triangle id for a mesh, a child index for a
    /// compound, a ball index for a sphere set; 0 for a convex shape.
    pub part_a: u32,
    /// The part of B the contact lies on: a triangle id for a mesh, a child index for a
    /// compound, a ball index for a sphere set; 0 for a convex shape.
    pub part_b: u32,
    /// The contact points of the two parts, normal from A to B.
    pub manifold: ContactManifold,
}

/// A supporting feature in the query frame, of at most `N` points.
#[derive(Clone, Copy)]
struct Feature<const N: usize = MAX_FEATURE> {
    pts: [Vec3A; N],
    len: usize,
    /// Outward unit normal for a face, zero otherwise.
    normal: Vec3A,
    id: u32,
}

impl<const N: usize> Feature<N> {
    fn new() -> Self {
        Self { pts: [Vec3A::ZERO; N], len: 0, normal: Vec3A::ZERO, id: 0 }
    }

    /// Makes this the feature with these points (at most `N`).
    fn set(&mut self, points: &[Vec3A], normal: Vec3A, id: u32) {
        let len = points.len().min(N);
        self.pts[..len].copy_from_slice(&points[..len]);
        (self.len, self.normal, self.id) = (len, normal, id);
    }

    fn push(&mut self, p: Vec3A) {
        if self.len < N {
            self.pts[self.len] = p;
            self.len += 1;
        }
    }

    fn set_point(&mut self, p: Vec3A, id: u32) {
        self.set(&[p], Vec3A::ZERO, id);
    }

    fn set_disc(&mut self, center_y: f32, radius: f32, normal: Vec3A, id: u32) {
        self.set(&[], normal, id);
        for k in 0..8 {
            let (s, c) = (k as f32 * std::f32::consts::FRAC_PI_4).sin_cos();
            self.push(Vec3A::new(radius * c, center_y, radius * s));
        }
    }
}

/// The unit radial part of `d` (zero on the axis).
fn radial(d: Vec3A) -> Vec3A {
    Vec3A::new(d.x, 0.0, d.z).normalize_or_zero()
}

/// Writes to `f` the supporting feature of the side's local shape (its core when it has a
/// margin) along the local direction `d`, in local coordinates. (Features are filled in place:
/// returned by value, their point arrays were copied on every call.)
fn local_feature(side: &Side, d: Vec3A, f: &mut Feature) {
    use ConvexShape as S;
    if polygon_feature(side, d, f) {
        return;
    }
    let core = side.margin > 0.0;
    let dn = d.normalize_or_zero();
    match side.shape {
        S::Ball(_) if core => f.set_point(Vec3A::ZERO, 0),
        S::Capsule(c) if core => {
            if dn.y.abs() <= SEGMENT_SIN {
                let h = Vec3A::new(0.0, c.half_height, 0.0);
                f.set(&[-h, h], Vec3A::ZERO, 1);
            } else {
                f.set_point(c.core_support(d), 2 + u32::from(dn.y > 0.0));
            }
        }
        S::RoundedCuboid(r) if core => cuboid_feature(r.inner.half_extents.into(), dn, f),
        S::Cylinder(c) => cylinder_feature(c.half_height, c.radius, dn, side.shape, f),
        S::RoundedCylinder(r) if core => {
            cylinder_feature(r.inner.half_height, r.inner.radius, dn, side.shape, f)
        }
        S::Cone(c) => cone_feature(c.half_height, c.radius, dn, side.shape, f),
        S::RoundedCone(r) if core => cone_feature(r.inner.half_height, r.inner.radius, dn, side.shape, f),
        S::Hull(h) => hull_feature(h, dn, f),
        S::RoundedHull(r) if core => hull_feature(&r.inner, dn, f),
        // Curved whole shapes (a ball, capsule or rounded shape under a non-similar map).
        _ => f.set_point(side.shape.support(d), 0),
    }
}

/// [`local_feature`] for boxes and triangles (features of at most [`SMALL_FEATURE`] points);
/// `false`, and `f` untouched, for other shapes.
fn polygon_feature<const N: usize>(side: &Side, d: Vec3A, f: &mut Feature<N>) -> bool {
    use ConvexShape as S;
    let points = match side.shape {
        S::Cuboid(c) => {
            // A box face needs only the signs and the largest component of `d`: no normalisation.
            cuboid_feature(c.half_extents.into(), d, f);
            return true;
        }
        S::Triangle(t) => &t.points,
        S::RoundedTriangle(r) if side.margin > 0.0 => &r.inner.points,
        _ => return false,
    };
    // Neither `d` nor the triangle's normal needs normalising (see `triangle_feature`): a placed
    // normal is normalised in the frame, the identity's here.
    triangle_feature(points, d, f);
    if side.matrix.is_none() {
        f.normal = f.normal.normalize_or_zero();
    }
    true
}

/// Fills a feature of capacity `N` (see [`build`]).
trait Fill {
    fn fill(&mut self, side: &Side, d: Vec3A);
}

impl Fill for Feature<MAX_FEATURE> {
    #[inline]
    fn fill(&mut self, side: &Side, d: Vec3A) {
        local_feature(side, d, self);
    }
}

impl Fill for Feature<SMALL_FEATURE> {
    #[inline]
    fn fill(&mut self, side: &Side, d: Vec3A) {
        let polygon = polygon_feature(side, d, self);
        debug_assert!(polygon, "small features are for boxes and triangles");
    }
}

fn cuboid_feature<const N: usize>(h: Vec3A, d: Vec3A, f: &mut Feature<N>) {
    let a = d.abs();
    let i = if a.x >= a.y && a.x >= a.z {
        0
    } else if a.y >= a.z {
        1
    } else {
        2
    };
    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
    let sign = if d[i] < 0.0 { -1.0 } else { 1.0 };
    // The face's centre and half edges, from the unit axes (products pick one half extent).
    let n = Vec3A::AXES[i] * sign;
    let (c, u, v) = (n * h, Vec3A::AXES[j] * h, Vec3A::AXES[k] * h);
    f.set(&[c - u - v, c + u - v, c + u + v, c - u + v], n, 2 * i as u32 + u32::from(sign > 0.0));
}

fn cylinder_feature(h: f32, r: f32, d: Vec3A, shape: &ConvexShape, f: &mut Feature) {
    if d.y >= FACE_COS {
        f.set_disc(h, r, Vec3A::Y, 1);
    } else if d.y <= -FACE_COS {
        f.set_disc(-h, r, Vec3A::NEG_Y, 2);
    } else if d.y.abs() <= SEGMENT_SIN {
        let u = radial(d) * r;
        f.set(&[u - Vec3A::Y * h, u + Vec3A::Y * h], Vec3A::ZERO, 3);
    } else {
        f.set_point(shape.core_support(d), 4);
    }
}

fn cone_feature(h: f32, r: f32, d: Vec3A, shape: &ConvexShape, f: &mut Feature) {
    if d.y <= -FACE_COS {
        return f.set_disc(-h, r, Vec3A::NEG_Y, 1);
    }
    let u = radial(d);
    // The side's outward normal in the half plane of `u`: the line from the apex (0, h) to the rim
    // (r, -h) has direction (r, -2h), so its normal is (2h, r) / |(2h, r)|.
    let side = (u * 2.0 * h + Vec3A::Y * r).normalize_or_zero();
    if side != Vec3A::ZERO && side.dot(d) >= 1.0 - SEGMENT_SIN * SEGMENT_SIN / 2.0 {
        f.set(&[Vec3A::Y * h, u * r - Vec3A::Y * h], Vec3A::ZERO, 2);
    } else {
        f.set_point(shape.core_support(d), 3);
    }
}

/// The triangle's face when its normal `n` is within 60° of `d` (`|n·d| >= |n| |d| / 2`, squared:
/// no square root), else its edge farthest along `d`. The face normal is left unnormalised (the
/// caller normalises it in the frame); a zero-area triangle has no face.
fn triangle_feature<const N: usize>(t: &[Vec3; 3], d: Vec3A, f: &mut Feature<N>) {
    let p = t.map(Vec3A::from);
    let n = (p[1] - p[0]).cross(p[2] - p[0]);
    let (nd, n2) = (n.dot(d), n.length_squared());
    if nd * nd >= 0.25 * n2 * d.length_squared() && n2 > 0.0 && n2 < f32::INFINITY {
        let sign = if nd < 0.0 { -1.0 } else { 1.0 };
        f.set(&p, n * sign, u32::from(sign > 0.0));
    } else {
        // The edge through the two vertices farthest along `d`.
        let dots = p.map(|q| q.dot(d));
        let low = if dots[0] <= dots[1] && dots[0] <= dots[2] {
            0
        } else if dots[1] <= dots[2] {
            1
        } else {
            2
        };
        let (i, j) = ((low + 1) % 3, (low + 2) % 3);
        f.set(&[p[i], p[j]], Vec3A::ZERO, 2 + low as u32);
    }
}

fn hull_feature(h: &crate::shape::ConvexHull, d: Vec3A, f: &mut Feature) {
    let i = h.supporting_face(d);
    let Some(face) = h.faces().get(i) else { return f.set_point(Vec3A::ZERO, 0) };
    let verts = h.face_vertices(face);
    if verts.len() > MAX_FEATURE {
        return f.set_point(h.support(d), 0);
    }
    f.set(&[], face.normal.into(), i as u32);
    for &v in verts {
        f.push(h.lane_vertex(v));
    }
}

/// Writes to `f` the feature of a side along the frame direction `dir`, in the frame, pushed by
/// `offset`.
fn frame_feature<const N: usize>(side: &Side, dir: Vec3A, offset: Vec3A, f: &mut Feature<N>)
where
    Feature<N>: Fill,
{
    f.fill(side, side.dir_to_local(dir));
    for p in &mut f.pts[..f.len] {
        *p = side.place(*p) + offset;
    }
    if f.normal != Vec3A::ZERO {
        f.normal = side.normal_to_frame(f.normal);
    }
}

/// A point being clipped, with its id.
#[derive(Clone, Copy, Default)]
struct ClipPoint {
    p: Vec3A,
    id: u32,
    /// The line that the polygon's side from this point to the next lies on: incident edge `k`
    /// (`k`), or the reference face's side plane `e` (`LINE_OF_PLANE + e`).
    line: u32,
}

/// [`ClipPoint::line`] of the reference face's side plane 0 (planes count up from here).
const LINE_OF_PLANE: u32 = 0x20;

/// Clips the incident feature against the side planes of the reference face (Sutherland–Hodgman;
/// a segment or a point is clipped as such). Returns the number of points written.
///
/// Ids: an incident vertex keeps its index; the point where side plane `e` cuts a line is
/// `0x100 (e + 1) | line` (see [`ClipPoint::line`]). A line crosses a plane once, so the ids of
/// one clipped polygon are distinct, and they depend only on which features meet there. Each plane
/// adds at most one point, so buffers of `incident.len + reference.len` points suffice (`N` is at
/// least that, or [`MAX_CLIP`]).
fn clip<const N: usize, const F: usize>(
    reference: &Feature<F>,
    incident: &Feature<F>,
    out: &mut [ClipPoint; N],
) -> usize {
    // Two buffers used alternately: `out` holds the polygon before each plane.
    let mut buf = [ClipPoint::default(); N];
    let mut n = incident.len;
    // A segment's two vertices both start its one line.
    let segment = u32::from(n <= 2);
    for (i, (o, &p)) in out.iter_mut().zip(&incident.pts[..n]).enumerate() {
        *o = ClipPoint { p, id: i as u32, line: i as u32 * (1 - segment) };
    }
    let r = &reference.pts[..reference.len];
    let centroid = r.iter().fold(Vec3A::ZERO, |s, &p| s + p) / r.len() as f32;
    let (mut src, mut dst) = (out, &mut buf);
    let mut in_out = true;
    for e in 0..r.len() {
        let (p0, p1) = (r[e], r[(e + 1) % r.len()]);
        let mut side = (p1 - p0).cross(reference.normal);
        if side.dot(centroid - p0) > 0.0 {
            side = -side;
        }
        let dist = |q: Vec3A| side.dot(q - p0);
        let edge_id = 0x100 * (e as u32 + 1);
        let mut m = 0;
        if n <= 2 {
            // A point or a segment.
            let a = src[0];
            let b = src[n - 1];
            let (da, db) = (dist(a.p), dist(b.p));
            if da > 0.0 && db > 0.0 {
                return 0;
            }
            let cut = |x: ClipPoint, y: ClipPoint, dx: f32, dy: f32| ClipPoint {
                p: x.p + (y.p - x.p) * (dx / (dx - dy)),
                id: edge_id | x.line,
                line: x.line,
            };
            dst[m] = if da > 0.0 { cut(a, b, da, db) } else { a };
            m += 1;
            if n == 2 {
                dst[m] = if db > 0.0 { cut(b, a, db, da) } else { b };
                m += 1;
            }
        } else {
            for i in 0..n {
                let (a, b) = (src[i], src[(i + 1) % n]);
                let (da, db) = (dist(a.p), dist(b.p));
                if da <= 0.0 && m < N {
                    dst[m] = a;
                    m += 1;
                }
                if (da <= 0.0) != (db <= 0.0) && m < N {
                    // Leaving, the polygon goes on along the plane to where it comes back in;
                    // entering, along the line it came in on.
                    let line = if da <= 0.0 { LINE_OF_PLANE + e as u32 } else { a.line };
                    let p = a.p + (b.p - a.p) * (da / (da - db));
                    dst[m] = ClipPoint { p, id: edge_id | a.line, line };
                    m += 1;
                }
            }
        }
        n = m;
        if n == 0 {
            return 0;
        }
        std::mem::swap(&mut src, &mut dst);
        in_out = !in_out;
    }
    if !in_out {
        // The result is in `buf` (now `src`); `dst` is `out`.
        dst[..n].copy_from_slice(&src[..n]);
    }
    n
}

/// Builds the manifold of a contact in the query frame.
///
/// Boxes and triangles against each other use features of [`SMALL_FEATURE`] points: the same
/// steps and results, on arrays a quarter the size to set up.
pub(crate) fn build(a: &Side, b: &Side, c: &FrameContact, prediction: f32, out: &mut ContactManifold) {
    if is_polygon(a) && is_polygon(b) {
        build_with::<SMALL_FEATURE>(a, b, c, prediction, out);
    } else {
        build_with::<MAX_FEATURE>(a, b, c, prediction, out);
    }
}

/// Whether the side's features are those of [`polygon_feature`].
fn is_polygon(side: &Side) -> bool {
    use ConvexShape as S;
    match side.shape {
        S::Cuboid(_) | S::Triangle(_) => true,
        S::RoundedTriangle(_) => side.margin > 0.0,
        _ => false,
    }
}

/// [`build`] with features of capacity `N`.
fn build_with<const N: usize>(
    a: &Side,
    b: &Side,
    c: &FrameContact,
    prediction: f32,
    out: &mut ContactManifold,
) where
    Feature<N>: Fill,
{
    let n = c.normal;
    let (mut fa, mut fb) = (Feature::<N>::new(), Feature::<N>::new());
    frame_feature(a, n, Vec3A::ZERO, &mut fa);
    frame_feature(b, -n, Vec3A::ZERO, &mut fb);
    let align_a = if fa.len >= 3 { fa.normal.dot(n) } else { -1.0 };
    let align_b = if fb.len >= 3 { -fb.normal.dot(n) } else { -1.0 };
    if align_a.max(align_b) >= REFERENCE_COS {
        let reference_is_a = align_a >= align_b;
        // The incident feature is taken along the reference face's normal (not the contact
        // normal), so that swapping A and B, which keeps the reference face, keeps it too.
        // (When the reference normal is the contact normal, the incident feature is the one
        // already found along it.) Features are shifted in place, never moved.
        let shift = |f: &mut Feature<N>, offset: Vec3A| {
            for p in &mut f.pts[..f.len] {
                *p += offset;
            }
        };
        let mut other;
        let (reference, margin, incident) = if reference_is_a {
            let incident = if fa.normal == n {
                shift(&mut fb, -n * b.margin);
                &fb
            } else {
                other = Feature::new();
                frame_feature(b, -fa.normal, -fa.normal * b.margin, &mut other);
                &other
            };
            (&mut fa, a.margin, incident)
        } else {
            let incident = if fb.normal == -n {
                shift(&mut fa, n * a.margin);
                &fa
            } else {
                other = Feature::new();
                frame_feature(a, -fb.normal, -fb.normal * a.margin, &mut other);
                &other
            };
            (&mut fb, b.margin, incident)
        };
        let normal_shift = reference.normal * margin;
        shift(reference, normal_shift);
        if clipped_points(reference, incident, reference_is_a, prediction, out) {
            return;
        }
    }
    out.normal = n.into();
    out.points[0] = ManifoldPoint {
        point_a: c.point_a.into(),
        point_b: c.point_b.into(),
        separation: c.separation,
        id: (fa.id << 16) | fb.id,
    };
    out.len = 1;
}

/// Clips `incident` against the `reference` face and writes the clipped points within
/// `prediction` of the reference plane (at most four, see [`reduce`]) to `out`; `false` when
/// there is none.
fn clipped_points<const F: usize>(
    reference: &Feature<F>,
    incident: &Feature<F>,
    reference_is_a: bool,
    prediction: f32,
    out: &mut ContactManifold,
) -> bool {
    // Box faces and triangles against each other need small buffers, cheaper to set up than full
    // ones.
    if incident.len + reference.len <= SMALL_CLIP {
        clipped_points_in::<SMALL_CLIP, F>(reference, incident, reference_is_a, prediction, out)
    } else {
        clipped_points_in::<MAX_CLIP, F>(reference, incident, reference_is_a, prediction, out)
    }
}

/// [`clipped_points`] with buffers of `C` points (at least `incident.len + reference.len`).
fn clipped_points_in<const C: usize, const F: usize>(
    reference: &Feature<F>,
    incident: &Feature<F>,
    reference_is_a: bool,
    prediction: f32,
    out: &mut ContactManifold,
) -> bool {
    let mut buffer = [ClipPoint::default(); C];
    let k = clip(reference, incident, &mut buffer);
    let clipped = &buffer[..k];
    let nr = reference.normal;
    let point = |q: &ClipPoint| {
        let s = (q.p - reference.pts[0]).dot(nr);
        let on_ref = q.p - nr * s;
        let (pa, pb) = if reference_is_a { (on_ref, q.p) } else { (q.p, on_ref) };
        let id = (reference.id << 20) | (u32::from(reference_is_a) << 19) | (q.id & 0x7ffff);
        ManifoldPoint { point_a: pa.into(), point_b: pb.into(), separation: s, id }
    };
    let kept = |q: &&ClipPoint| (q.p - reference.pts[0]).dot(nr) <= prediction;
    let count = clipped.iter().filter(kept).count();
    if count == 0 {
        return false;
    }
    out.normal = (if reference_is_a { nr } else { -nr }).into();
    if count <= 4 {
        for (slot, q) in out.points.iter_mut().zip(clipped.iter().filter(kept)) {
            *slot = point(q);
        }
        out.len = count;
    } else {
        let mut candidates = [ManifoldPoint::default(); C];
        for (slot, q) in candidates.iter_mut().zip(clipped.iter().filter(kept)) {
            *slot = point(q);
        }
        reduce::<C>(&candidates[..count], out);
    }
    true
}

/// Keeps at most four of the points, chosen so that swapping A and B keeps the same ones: the
/// deepest point (among points within rounding of the deepest, the extreme one along a tangent
/// fixed by the normal's line), the point farthest from it, the point making the largest triangle
/// with those two, and the point farthest on the other side of their line. (`C`: the capacity
/// of the scratch buffer, at least the number of points.)
fn reduce<const C: usize>(points: &[ManifoldPoint], out: &mut ContactManifold) {
    if points.len() <= 4 {
        out.points[..points.len()].copy_from_slice(points);
        out.len = points.len();
        return;
    }
    let normal = Vec3A::from(out.normal);
    let canonical =
        if normal.x > 0.0 || (normal.x == 0.0 && (normal.y > 0.0 || (normal.y == 0.0 && normal.z > 0.0))) {
            normal
        } else {
            -normal
        };
    let tangent = canonical.any_orthonormal_vector();
    let mut mid = [Vec3A::ZERO; C];
    for (m, p) in mid.iter_mut().zip(points) {
        *m = (Vec3A::from(p.point_a) + Vec3A::from(p.point_b)) * 0.5;
    }
    // The first index of the largest `f` (generic, not `dyn`: the closures inline; each value
    // computed once).
    fn argmax(len: usize, f: impl Fn(usize) -> f32) -> usize {
        let first = (0, f(0));
        (1..len).map(|i| (i, f(i))).fold(first, |best, x| if x.1 > best.1 { x } else { best }).0
    }
    let count = points.len();
    // The deepest point always stays (ties within rounding broken by the tangent, not by order).
    let deepest = points.iter().map(|p| p.separation).fold(f32::INFINITY, f32::min);
    let band = deepest + 1e-5 * (1.0 + deepest.abs());
    let i0 =
        argmax(count, |i| if points[i].separation <= band { mid[i].dot(tangent) } else { f32::NEG_INFINITY });
    let i1 = argmax(count, |i| mid[i].distance_squared(mid[i0]));
    let area = |i: usize| (mid[i1] - mid[i0]).cross(mid[i] - mid[i0]).dot(canonical);
    let i2 = argmax(count, |i| area(i).abs());
    let sign = if area(i2) < 0.0 { 1.0 } else { -1.0 };
    let i3 = argmax(count, |i| sign * area(i));
    let mut len = 0;
    for i in [i0, i1, i2, i3] {
        if !out.points[..len].iter().any(|q| *q == points[i]) {
            out.points[len] = points[i];
            len += 1;
        }
    }
    out.len = len;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrow::GjkCache;
    use crate::narrow::contact::contact_in_frame;
    use crate::narrow::frame::{PairInput, setup};
    use crate::shape::{Cuboid, Triangle};
    use glam::{Affine3A, Quat};
    use kollide_testkit::random;
    use rand::Rng;

    /// More than four clipped points reduce to the same four in both orders of the pair, for
    /// normals along every axis in both directions (the canonical tangent of `n` and `-n`): a
    /// box resting on a box turned about the normal, an octagon of equally deep points.
    /// Found by the mutation run (issue 23): the normals along x, z and -y keep different points
    /// in the two orders.
    #[test]
    #[ignore = "issue 30: resting boxes reduce to different points when the pair is swapped"]
    fn reduction_keeps_the_same_points_when_the_pair_is_swapped() {
        let cuboid: ConvexShape = Cuboid::new(Vec3::ONE).into();
        for axis in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z] {
            // Off centre and not at 45°, so that only the depths tie.
            let offset = axis * 1.9 + axis.any_orthonormal_vector() * 0.13;
            let turned = Affine3A::from_rotation_translation(Quat::from_axis_angle(axis, 0.6), offset);
            let mut manifolds = [ContactManifold::default(), ContactManifold::default()];
            let pairs = [(&Affine3A::IDENTITY, &turned), (&turned, &Affine3A::IDENTITY)];
            for ((a_to_world, b_to_world), out) in pairs.into_iter().zip(&mut manifolds) {
                let mut cache = GjkCache::default();
                crate::narrow::contact_manifold(
                    &cuboid, a_to_world, &cuboid, b_to_world, 0.0, &mut cache, out,
                )
                .unwrap();
            }
            let mids = |m: &ContactManifold| {
                let mut mids: Vec<[f32; 3]> = m
                    .points()
                    .iter()
                    .map(|p| ((p.point_a + p.point_b) * 0.5 * 1e4).round().to_array())
                    .collect();
                mids.sort_by(|a, b| a.partial_cmp(b).unwrap());
                mids
            };
            assert_eq!(manifolds[0].len(), 4, "{axis}");
            assert_eq!(mids(&manifolds[0]), mids(&manifolds[1]), "{axis}");
        }
    }

    /// Box–triangle manifolds from small features equal, bit for bit and with the same ids, the
    /// manifolds from full ones, on random pairs in both orders: deep and near (a positive
    /// prediction), rigid, similar and sheared placements, and resting pairs (the triangle flat
    /// under an axis-aligned box, where the box face and the triangle tie as reference faces).
    #[test]
    fn small_features_give_the_general_manifolds() {
        let mut rng = random::rng(41);
        let (mut checked, mut multi) = (0, 0);
        for i in 0..12_000 {
            let half =
                Vec3::new(rng.random_range(0.2..1.0), rng.random_range(0.2..1.0), rng.random_range(0.2..1.0));
            let cuboid: ConvexShape = Cuboid::new(half).into();
            let resting = i % 6 == 0;
            let mut t = random::triangle3(&mut rng, Vec3::ZERO, 1.0);
            if resting {
                for p in &mut t {
                    p.y = 0.0;
                }
            }
            let triangle: ConvexShape = Triangle::new(t[0], t[1], t[2]).into();
            let rotation = if resting { Quat::IDENTITY } else { random::rotation3(&mut rng) };
            let offset = random::point3(&mut rng, 0.2);
            let box_map = match i % 4 {
                0 | 1 => Affine3A::from_rotation_translation(rotation, offset),
                2 => Affine3A::from_scale_rotation_translation(
                    Vec3::splat(rng.random_range(0.5..2.0)),
                    rotation,
                    offset,
                ),
                _ => random::affine3(&mut rng, 0.2),
            };
            let lift = if resting { half.y * box_map.matrix3.y_axis.length() } else { 0.0 };
            let reach = if resting { 0.0 } else { rng.random_range(0.0..1.5) };
            let to = Vec3::from(box_map.translation) - Vec3::Y * (lift + rng.random_range(-0.05..0.05))
                + random::unit3(&mut rng) * reach;
            let triangle_map = match i % 3 {
                0 => Affine3A::from_translation(to),
                1 => Affine3A::from_rotation_translation(
                    if resting { Quat::IDENTITY } else { random::rotation3(&mut rng) },
                    to,
                ),
                _ => {
                    let m = random::affine3(&mut rng, 1.0);
                    Affine3A::from_mat3_translation(m.matrix3.into(), to)
                }
            };
            let prediction = if i % 2 == 0 { 0.0 } else { 0.2 };
            let pairs = [
                (&cuboid, &box_map, &triangle, &triangle_map),
                (&triangle, &triangle_map, &cuboid, &box_map),
            ];
            for (a, a_to_world, b, b_to_world) in pairs {
                let (_, sa, sb) = setup(&PairInput::new(a, a_to_world, b, b_to_world).unwrap());
                let Some(c) = contact_in_frame(&sa, &sb, prediction, &mut GjkCache::default()) else {
                    continue;
                };
                let (mut small, mut full) = (ContactManifold::default(), ContactManifold::default());
                build_with::<SMALL_FEATURE>(&sa, &sb, &c, prediction, &mut small);
                build_with::<MAX_FEATURE>(&sa, &sb, &c, prediction, &mut full);
                assert_eq!(small.normal, full.normal, "case {i}");
                assert_eq!(small.points(), full.points(), "case {i}");
                checked += 1;
                multi += usize::from(full.len() > 1);
            }
        }
        assert!(checked > 10_000 && multi > 3_000, "{checked} manifolds, {multi} with several points");
    }

    /// A manifold keeps its first four points; equality looks at the points in use only.
    #[test]
    fn push_keeps_four_points_and_clear_empties() {
        let mut m = ContactManifold::default();
        for i in 0..6 {
            m.push(Vec3::X * i as f32, Vec3::Y, -0.1, i);
        }
        assert_eq!(m.len(), 4);
        assert_eq!(m.points().iter().map(|p| p.id).collect::<Vec<_>>(), [0, 1, 2, 3]);
        m.normal = Vec3::Z;
        m.clear();
        assert!(m.is_empty() && m.normal == Vec3::ZERO);
        assert_eq!(m, ContactManifold::default());
    }
}
