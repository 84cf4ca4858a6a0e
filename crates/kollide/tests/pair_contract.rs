//! Issue 22, "Must show": every public pair query follows the one contract of
//! `docs/conventions.md` ("Frames and placements", "Bad input", "Pair queries: one contract").
//!
//! One test per module: `narrow`, mesh instances (`mesh::MeshInstance`), sphere sets
//! (`mesh::SphereSet`), fields (`field`) and `query`. For each public pair query of the module, on a few hundred seeded random cases whose
//! placements mix rigid maps, similarities and `random::affine3` maps (non-uniform scale, shear,
//! reflection):
//!
//! 1. **Bad placements** (a NaN or an infinite translation or matrix entry, for A and then for B,
//!    and a singular map where the layer inverts the placement) give the documented answer,
//!    compared exactly: `Err(NarrowError::NonFinite)`, `MeshInstance::new(..) ==
//!    Err(PlacementError::NonFinite)`, `false`, `None`, nothing appended,
//!    `Err(QueryError::NonFinitePlacement(Operand::A))`, ... Singular placements that a layer
//!    documents as valid (convex shapes in `narrow` and `query`) must give no error.
//! 2. **Swapped operands** give the mirrored answer: booleans and distances equal, contacts with
//!    their points swapped, the normal negated and the same separation, manifolds with as many
//!    points, mirrored. Where two answers may both be right (several closest pairs at one
//!    distance, a face-to-face contact), the swapped answer is checked on its own against an
//!    independent reference instead (a *tie*, counted and printed). A query without a swapped
//!    twin (points against a field, a sphere set against a mesh, a convex shape against a mesh's
//!    triangles) is checked for placement invariance instead: moving both placements by one
//!    rigid map gives the same answer moved by that map.
//!
//! # Tolerances
//!
//! `tol = TOL · scale`, where `scale` is the largest of the two shapes' world box diagonals and
//! translations. The two orders compute the same answer in different frames (a query runs in
//! one operand's frame): `f32` computations over coordinates of size `scale`, each step rounding
//! by a few units of `1e-7 · scale`, plus iterative solvers (GJK stops at about `1e-6` relative,
//! shape casts at `1e-5 · (1 + |translation|)`). `1e-4 · scale` leaves room for those while
//! staying far below any real mistake (a wrong feature or triangle is off by a fraction of the
//! shapes' size). Normals are unit vectors compared within `NORMAL_TOL`, or `4 · tol / |d|` when
//! the separation `d` is so small that its direction is ill-conditioned.
//!
//! A pair within `tol` of touching is *borderline*: there a yes/no answer may go either way in
//! the two orders (documented for mesh pairs: "two meshes that touch or miss by less than about
//! `1e-6` of their coordinates' magnitude may be reported either way"); such mismatches are
//! allowed only after an independent reference shows the pair is borderline, and are counted.
//!
//! Penetration depths where two meshes take part are estimates computed in one mesh's frame
//! (`mesh/mesh_mesh/contacts.rs`); for those only the sign and that both orders report a contact
//! are compared.
//!
//! # Contradictions found
//!
//! Where a function's behaviour contradicts its own documentation, the documented answer is
//! asserted by an `#[ignore]`d test at the end of this file, with a minimal reproduction:
//!
//! - `narrow_contact_points_are_separation_times_normal_apart`: GJK/EPA contacts whose points are
//!   not `separation · normal` apart. The module tests allow exactly that signature (same
//!   separation, mirrored normals, one contact's points off its normal, the other right; see
//!   [`witness_off`]) and count it under "EPA witness", so that the rest stays checked.
//!   This is issue 28 (deep-penetration witness points); the test stays ignored until it is fixed.
//!
//! Every allowed difference (borderline, tie, EPA witness) is counted per check and printed
//! (`cargo test --test pair_contract -- --nocapture`).

use std::sync::Arc;

use glam::{Affine3A, Mat3, Vec3, Vec3A};
use kollide::bounds::{Aabb3, Sphere};
use kollide::field::{
    self, BallField, CuboidField, Field3, FieldContact, FieldError, FieldsIntersection, PointFieldStats,
};
use kollide::mesh::{
    MeshContact, MeshInstance, MeshMeshCache, MeshOverlap, PlacementError, SphereSet, TriMesh,
};
use kollide::narrow::{
    self, Contact, ContactManifold, GjkCache, InternalEdges, NarrowError, PartManifold, ShapeCastHit,
};
use kollide::primitive::{TriangleIntersection, intersect_triangle_triangle};
use kollide::query::{self, Compound, Kind, Operand, QueryError, Shape};
use kollide::shape::{ConvexShape, ShapeKind, Triangle};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_convex::{self, RefShape, random_shape};
use kollide_testkit::reference_query::{self as reference, RefPlaced};
use kollide_testkit::reference_sphere_set as reference_sets;
use kollide_testkit::shapes;
use rand::Rng;

/// Relative tolerance of answers that must agree (see the module).
const TOL: f32 = 1e-4;
/// Tolerance of unit normals that must agree (about half a degree).
const NORMAL_TOL: f32 = 1e-2;

const NARROW_CASES: usize = 300;
const MESH_CASES: usize = 300;
const SPHERE_SET_CASES: usize = 300;
const FIELD_CASES: usize = 300;
/// Per ordered pair of kinds (25 pairs).
const QUERY_CASES_PER_PAIR: usize = 12;

// ---------------------------------------------------------------------------------------------
// Placements and cases

/// The bad placements derived from a good one: a NaN translation, a NaN matrix entry, an
/// infinite translation and an infinite matrix entry.
fn non_finite(good: &Affine3A) -> [(&'static str, Affine3A); 4] {
    let (mut nan_t, mut nan_m, mut inf_t, mut inf_m) = (*good, *good, *good, *good);
    nan_t.translation.y = f32::NAN;
    nan_m.matrix3.z_axis.x = f32::NAN;
    inf_t.translation.x = f32::INFINITY;
    inf_m.matrix3.x_axis.y = f32::NEG_INFINITY;
    [
        ("a NaN translation", nan_t),
        ("a NaN matrix entry", nan_m),
        ("an infinite translation", inf_t),
        ("an infinite matrix entry", inf_m),
    ]
}

/// Singular placements derived from a good one: its third column zeroed (rank 2, space
/// flattened onto a plane) and its whole linear part zeroed (rank 0).
fn singular(good: &Affine3A) -> [(&'static str, Affine3A); 2] {
    let flat = Affine3A::from_mat3_translation(
        Mat3::from(good.matrix3) * Mat3::from_diagonal(Vec3::new(1.0, 1.0, 0.0)),
        good.translation.into(),
    );
    let zero = Affine3A::from_mat3_translation(Mat3::ZERO, good.translation.into());
    [("a flattening (rank 2) map", flat), ("a zero linear part", zero)]
}

/// A placement: rigid, a similarity (uniform scale in `[0.3, 3]`) or `random::affine3`
/// (non-uniform scale in `[0.2, 5]`, shear, a reflection one time in five), translated within 4.
fn placement(rng: &mut TestRng) -> Affine3A {
    let mut m = match rng.random_range(0..4) {
        0 => Affine3A::from_quat(random::rotation3(rng)),
        1 => Affine3A::from_mat3(Mat3::from_quat(random::rotation3(rng)) * rng.random_range(0.3f32..3.0)),
        _ => random::affine3(rng, 1.0),
    };
    m.translation = random::point3(rng, 4.0).into();
    m
}

/// A rigid map: a random rotation and a translation within 10.
fn rigid(rng: &mut TestRng) -> Affine3A {
    Affine3A::from_rotation_translation(random::rotation3(rng), random::point3(rng, 10.0))
}

/// Translates `mb` so that B's world box (`b`, for the current `mb`) sits on a random line
/// through the centre of A's (`a`), at a random fraction of their combined reach along it (below
/// 1 the boxes overlap, so about half the cases intersect). Returns the offset of B's box centre
/// from A's.
fn aim(rng: &mut TestRng, a: &Aabb3, b: &Aabb3, mb: &mut Affine3A) -> Vec3 {
    let u = random::unit3(rng);
    let reach = a.half_extents().dot(u.abs()) + b.half_extents().dot(u.abs());
    let offset = u * reach * rng.random_range(0.25f32..1.05);
    mb.translation += Vec3A::from(a.center() + offset - b.center());
    offset
}

/// B's velocity for a shape cast: back along the offset, 0.2 to 1.2 times it, plus a random part
/// up to 1.5 times it (about half the casts hit).
fn velocity_towards(rng: &mut TestRng, offset: Vec3) -> Vec3 {
    -offset * rng.random_range(0.2f32..1.2)
        + random::unit3(rng) * offset.length() * rng.random_range(0.0f32..1.5)
}

/// `TOL` times the largest of the world boxes' diagonals and the translations.
fn tolerance(boxes: &[Aabb3], maps: &[&Affine3A]) -> f32 {
    let sizes = boxes.iter().map(|b| (b.max - b.min).length());
    let moves = maps.iter().map(|m| m.translation.abs().max_element());
    TOL * sizes.chain(moves).fold(0.0, f32::max)
}

/// The tolerance for comparing two unit normals of contacts whose separation is `d`.
fn normal_tolerance(d: f32, tol: f32) -> f32 {
    NORMAL_TOL.max(4.0 * tol / d.abs())
}

fn moved(m: &Affine3A, by: Vec3) -> Affine3A {
    let mut out = *m;
    out.translation += Vec3A::from(by);
    out
}

/// A convex shape for a reproduction: hulls by their vertices (their debug form holds every
/// derived table).
fn describe_convex(c: &ConvexShape) -> String {
    match c {
        ConvexShape::Hull(h) => format!("Hull(ConvexHull::new(&{:?}))", h.vertices()),
        ConvexShape::RoundedHull(r) => {
            format!("RoundedHull(Rounded::new(ConvexHull::new(&{:?}), {}))", r.inner.vertices(), r.radius)
        }
        _ => format!("{c:?}"),
    }
}

fn random_convex(rng: &mut TestRng) -> ConvexShape {
    let kind = ShapeKind::ALL[rng.random_range(0..ShapeKind::ALL.len())];
    random_shape(rng, kind)
}

/// Counts printed at the end of a test (they show the checks were not vacuous).
#[derive(Debug, Default)]
struct Counts {
    cases: usize,
    intersecting: usize,
    hits: usize,
    nonempty: usize,
    /// Allowed differences between the orders, by check and kind: borderline pairs, ties, and
    /// the EPA witness contradiction (see [`witness_off`]), which
    /// `narrow_contact_points_are_separation_times_normal_apart` asserts.
    notes: std::collections::BTreeMap<&'static str, usize>,
}

impl Counts {
    fn note(&mut self, what: &'static str, n: usize) {
        if n > 0 {
            *self.notes.entry(what).or_default() += n;
        }
    }
}

/// Whether a contact's points disagree with its normal and separation: `narrow::Contact`
/// documents `point_b - point_a = separation · normal` up to rounding. Penetrating contacts of
/// GJK/EPA sometimes break it (one witness point slides along the contact plane, by up to the
/// shapes' size, while the normal and separation stay right): the signature of the contradiction
/// asserted by `narrow_contact_points_are_separation_times_normal_apart`.
fn witness_off(point_a: Vec3, point_b: Vec3, normal: Vec3, separation: f32, tol: f32) -> bool {
    (point_b - point_a - normal * separation).length() > tol
}

fn contact_witness_off(c: &Contact, tol: f32) -> bool {
    witness_off(c.point_a, c.point_b, c.normal, c.separation, tol)
}

/// Whether the mismatch of the manifolds `m` (A against B) and `s` (B against A) is the EPA
/// witness contradiction alone: one point each, the same separation, mirrored normals, and one
/// of them with points off its normal.
fn known_manifold_witness(m: &ContactManifold, s: &ContactManifold, tol: f32) -> bool {
    m.len() == 1
        && s.len() == 1
        && (m.points()[0].separation - s.points()[0].separation).abs() <= tol
        && (m.normal + s.normal).length() <= normal_tolerance(m.points()[0].separation, tol)
        && (manifold_witness_off(m, tol) || manifold_witness_off(s, tol))
}

/// A one-point manifold (the contact itself) whose point shows [`witness_off`].
fn manifold_witness_off(m: &ContactManifold, tol: f32) -> bool {
    m.len() == 1
        && witness_off(m.points()[0].point_a, m.points()[0].point_b, m.normal, m.points()[0].separation, tol)
}

// ---------------------------------------------------------------------------------------------
// Meshes

/// A unit cube around the origin (12 triangles), wound outward.
fn cube() -> TriMesh {
    TriMesh::from_data(shapes::cube()).unwrap()
}

/// Small meshes: closed (a cube, an icosphere of 80 triangles, a torus of 64) and open (a grid of
/// 50 triangles).
fn small_meshes() -> Vec<(&'static str, Arc<TriMesh>)> {
    let meshes = vec![
        ("cube", Arc::new(cube())),
        ("icosphere", Arc::new(TriMesh::from_data(shapes::icosphere(1)).unwrap())),
        ("torus", Arc::new(TriMesh::from_data(shapes::torus(0.7, 0.3, 8, 4)).unwrap())),
        ("open grid", Arc::new(TriMesh::from_data(shapes::grid(5)).unwrap())),
    ];
    for (name, m) in &meshes {
        assert_eq!(m.is_solid(), *name != "open grid", "{name}");
    }
    meshes
}

/// The triangles of `mesh` placed by `map`, by id.
fn world_triangles(mesh: &TriMesh, map: &Affine3A) -> Vec<[Vec3; 3]> {
    (0..mesh.triangle_count() as u32)
        .map(|id| mesh.triangle(id).unwrap().map(|p| map.transform_point3(p)))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// narrow

type ContactFn = fn(
    &ConvexShape,
    &Affine3A,
    &ConvexShape,
    &Affine3A,
    f32,
    &mut GjkCache,
) -> Result<Option<Contact>, NarrowError>;

/// Every narrow-phase pair query of two convex shapes, with the results reduced to success or the
/// error (and, for the manifold, whether `out` was cleared).
fn narrow_all(
    a: &ConvexShape,
    ma: &Affine3A,
    b: &ConvexShape,
    mb: &Affine3A,
    velocity: Vec3,
    prediction: f32,
) -> Vec<(&'static str, Result<(), NarrowError>)> {
    let fresh = GjkCache::default;
    let mut manifold = ContactManifold::default();
    manifold.normal = Vec3::Z;
    manifold.push(Vec3::ONE, Vec3::ONE, -1.0, 7);
    let manifold_result = narrow::contact_manifold(a, ma, b, mb, prediction, &mut fresh(), &mut manifold);
    let mut result = vec![
        ("distance", narrow::distance(a, ma, b, mb, &mut fresh()).map(drop)),
        ("intersects", narrow::intersects(a, ma, b, mb, &mut fresh()).map(drop)),
        ("contact", narrow::contact(a, ma, b, mb, prediction, &mut fresh()).map(drop)),
        ("contact (prediction ∞)", narrow::contact(a, ma, b, mb, f32::INFINITY, &mut fresh()).map(drop)),
        ("contact_gjk_epa", narrow::contact_gjk_epa(a, ma, b, mb, prediction, &mut fresh()).map(drop)),
        ("contact_manifold", manifold_result),
        ("cast_shape", narrow::cast_shape(a, ma, b, mb, velocity, 1.0, &mut fresh()).map(drop)),
    ];
    // "`out` is cleared first": an error leaves nothing in it either.
    if manifold_result.is_err() && !manifold.is_empty() {
        result.push(("contact_manifold (out not cleared)", Ok(())));
    }
    result
}

/// A contact checked on its own: unit normal, the separation along its normal (the `f64` support
/// functions of `reference_convex`) equal to the claimed one, and the points on their shapes.
fn convex_contact_valid(
    a: &ConvexShape,
    ma: &Affine3A,
    b: &ConvexShape,
    mb: &Affine3A,
    c: &Contact,
    tol: f32,
) -> Result<(), String> {
    let (fa, fb) = (RefShape::new(a, ma), RefShape::new(b, mb));
    if !((c.normal.length() - 1.0).abs() <= 1e-3) {
        return Err(format!("normal not unit: {c:?}"));
    }
    let along = reference_convex::gap(&fa, &fb, c.normal.as_dvec3().normalize()) as f32;
    if !((along - c.separation).abs() <= tol) {
        return Err(format!("separation along the normal is {along}, not {} ({c:?})", c.separation));
    }
    if contact_witness_off(c, tol) {
        return Err(format!("point_b - point_a is not separation · normal ({c:?})"));
    }
    let on_a = fa.contains_within(c.point_a.as_dvec3(), local_tolerance(ma, tol));
    let on_b = fb.contains_within(c.point_b.as_dvec3(), local_tolerance(mb, tol));
    if !(on_a && on_b) {
        return Err(format!("point_a on A {on_a}, point_b on B {on_b} ({c:?})"));
    }
    Ok(())
}

/// A world tolerance as one in the frame of `map`: times the largest stretch of the inverse
/// (bounded by its Frobenius norm).
fn local_tolerance(map: &Affine3A, tol: f32) -> f64 {
    let inverse = Mat3::from(map.matrix3).inverse().as_dmat3();
    let frobenius =
        (inverse.x_axis.length_squared() + inverse.y_axis.length_squared() + inverse.z_axis.length_squared())
            .sqrt();
    f64::from(tol) * frobenius
}

/// Whether the mismatch of `c` (A against B) and `s` (B against A) is the EPA witness
/// contradiction alone: the same separation, mirrored normals, and one of them with points off
/// its normal ([`witness_off`]).
fn known_epa_witness(c: &Contact, s: &Contact, tol: f32) -> bool {
    (c.separation - s.separation).abs() <= tol
        && (c.normal + s.normal).length() <= normal_tolerance(c.separation, tol)
        && (contact_witness_off(c, tol) || contact_witness_off(s, tol))
}

/// Whether `s` (B against A) is the mirror of `c` (A against B): points swapped, normal negated,
/// same separation.
fn contact_mirrored(c: &Contact, s: &Contact, tol: f32) -> bool {
    (s.point_a - c.point_b).length() <= tol
        && (s.point_b - c.point_a).length() <= tol
        && (s.normal + c.normal).length() <= normal_tolerance(c.separation, tol)
        && (s.separation - c.separation).abs() <= tol
}

/// Whether the manifold `s` (B against A) mirrors `m` (A against B): as many points, each point
/// of `m` matched by one of `s` with the points swapped and the same separation, the normal
/// negated.
fn manifold_mirrored(m: &ContactManifold, s: &ContactManifold, tol: f32) -> bool {
    if m.len() != s.len() {
        return false;
    }
    if m.is_empty() {
        return true;
    }
    let least = m.points().iter().map(|p| p.separation.abs()).fold(f32::INFINITY, f32::min);
    if !((m.normal + s.normal).length() <= normal_tolerance(least.max(tol * 100.0), tol)) {
        return false;
    }
    let mut used = vec![false; s.len()];
    m.points().iter().all(|p| {
        let found = s.points().iter().enumerate().position(|(k, q)| {
            !used[k]
                && (q.point_a - p.point_b).length() <= tol
                && (q.point_b - p.point_a).length() <= tol
                && (q.separation - p.separation).abs() <= tol
        });
        found.map(|k| used[k] = true).is_some()
    })
}

/// How the manifold of B against A agrees with the one of A against B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Agreement {
    /// [`manifold_mirrored`].
    Mirrored,
    /// Not within the tolerance of the mirror, but both right on their own: as many points, the
    /// same separations, normals mirrored within the tolerance their separations allow, every
    /// point on its shape and its pair `separation · normal` apart (points on curved surfaces
    /// are only known to about the square root of the distance's accuracy, and clipped face
    /// contacts may pick the other face of a near tie).
    Tie,
    /// [`known_manifold_witness`].
    KnownWitness,
    Differ,
}

/// Compares `m` (A against B) with `s` (B against A); `on_a` and `on_b` tell whether a world
/// point lies on A or B (within the tolerance).
fn compare_manifolds(
    m: &ContactManifold,
    s: &ContactManifold,
    tol: f32,
    on_a: impl Fn(Vec3) -> bool,
    on_b: impl Fn(Vec3) -> bool,
) -> Agreement {
    if manifold_mirrored(m, s, tol) {
        return Agreement::Mirrored;
    }
    // The EPA witness contradiction, the other manifold's points on their shapes.
    let on_shapes = |x: &ContactManifold, first: &dyn Fn(Vec3) -> bool, second: &dyn Fn(Vec3) -> bool| {
        manifold_witness_off(x, tol) || x.points().iter().all(|p| first(p.point_a) && second(p.point_b))
    };
    if known_manifold_witness(m, s, tol) && on_shapes(m, &on_a, &on_b) && on_shapes(s, &on_b, &on_a) {
        return Agreement::KnownWitness;
    }
    if m.len() != s.len() || m.is_empty() {
        return Agreement::Differ;
    }
    let separations = |x: &ContactManifold| {
        let mut v: Vec<f32> = x.points().iter().map(|p| p.separation).collect();
        v.sort_by(f32::total_cmp);
        v
    };
    let (sm, ss) = (separations(m), separations(s));
    let least = sm.iter().fold(f32::INFINITY, |l, x| l.min(x.abs()));
    // Clipped points are `separation` apart along the reference face's normal, within
    // `REFERENCE_COS = 0.9999` of the manifold's: off its normal by up to 0.015 of it.
    let consistent = |x: &ContactManifold| {
        x.points().iter().all(|p| {
            (p.point_b - p.point_a - x.normal * p.separation).length() <= tol + 0.015 * p.separation.abs()
        })
    };
    let same = sm.iter().zip(&ss).all(|(x, y)| (x - y).abs() <= tol)
        && (m.normal + s.normal).length() <= normal_tolerance(least, tol)
        && consistent(m)
        && consistent(s)
        && m.points().iter().all(|p| on_a(p.point_a) && on_b(p.point_b))
        && s.points().iter().all(|p| on_b(p.point_a) && on_a(p.point_b));
    if same { Agreement::Tie } else { Agreement::Differ }
}

/// Matches the manifolds of B against A (`swapped`) to those of A against B (`list`), parts
/// mirrored; manifolds left over on either side must lie at the prediction's edge (their least
/// separation within `tol` of it). Returns the agreements of the matched pairs, or the failure.
fn match_manifold_lists(
    list: &[PartManifold],
    swapped: &[PartManifold],
    prediction: f32,
    tol: f32,
    compare: impl Fn(&PartManifold, &PartManifold) -> Agreement,
) -> Result<Vec<Agreement>, String> {
    let mut used = vec![false; swapped.len()];
    let mut agreements = Vec::new();
    let mut unmatched = Vec::new();
    for m in list {
        let candidates =
            (0..swapped.len()).filter(|&k| swapped[k].part_a == m.part_b && swapped[k].part_b == m.part_a);
        let best = candidates
            .filter(|&k| !used[k])
            .map(|k| (k, compare(m, &swapped[k])))
            .filter(|(_, a)| *a != Agreement::Differ)
            .min_by_key(|(_, a)| *a as u8);
        match best {
            Some((k, a)) => {
                used[k] = true;
                agreements.push(a);
            }
            None => unmatched.push(*m),
        }
    }
    let left: Vec<PartManifold> = (0..swapped.len()).filter(|&k| !used[k]).map(|k| swapped[k]).collect();
    let at_edge = |m: &PartManifold| {
        let least = m.manifold.points().iter().map(|p| p.separation).fold(f32::INFINITY, f32::min);
        (least - prediction).abs() <= tol
    };
    if unmatched.iter().chain(&left).all(at_edge) {
        Ok(agreements)
    } else {
        Err(format!(
            "unmatched of A, B: {}\n    unmatched of B, A: {}",
            describe_parts(&unmatched),
            describe_parts(&left)
        ))
    }
}

/// A manifold for a failure message: its normal and its points (not the unused slots).
fn describe_manifold(m: &ContactManifold) -> String {
    let points: Vec<String> = m
        .points()
        .iter()
        .map(|p| format!("(a {:?}, b {:?}, separation {})", p.point_a, p.point_b, p.separation))
        .collect();
    format!("normal {:?}, points [{}]", m.normal, points.join(", "))
}

/// Manifolds with their parts for a failure message.
fn describe_parts(list: &[PartManifold]) -> String {
    let parts: Vec<String> = list
        .iter()
        .map(|m| format!("\n      parts ({}, {}): {}", m.part_a, m.part_b, describe_manifold(&m.manifold)))
        .collect();
    format!("{} manifolds{}", list.len(), parts.concat())
}

#[test]
fn narrow_pair_queries_follow_the_contract() {
    let seed = 0x6e61_7272_6f77_0001;
    let rng = &mut random::rng(seed);
    let mesh = TriMesh::from_data(shapes::icosphere(1)).unwrap();
    let mut counts = Counts::default();
    for index in 0..NARROW_CASES {
        let (a, b) = (random_convex(rng), random_convex(rng));
        let ma = placement(rng);
        let mut mb = placement(rng);
        let (box_a, box_b) = (a.aabb(&ma), b.aabb(&mb));
        let offset = aim(rng, &box_a, &box_b, &mut mb);
        let box_b = b.aabb(&mb);
        let velocity = velocity_towards(rng, offset);
        let size = (box_a.max - box_a.min).length().min((box_b.max - box_b.min).length());
        let prediction = rng.random_range(0.0f32..0.3) * size;
        let tol = tolerance(&[box_a, box_b], &[&ma, &mb]);
        let case = format!(
            "narrow case {index} (seed {seed:#x}):\n    A = {} placed by {ma:?}\n    B = {} placed by {mb:?}\n    \
             velocity {velocity:?}, prediction {prediction}, tolerance {tol}",
            describe_convex(&a),
            describe_convex(&b)
        );
        counts.cases += 1;

        // 1. Bad placements: NonFinite for every query; singular maps are valid placements here
        //    ("any invertible or singular affine maps", `narrow`'s module documentation).
        for (what, bad) in non_finite(&ma) {
            for (query, result) in narrow_all(&a, &bad, &b, &mb, velocity, prediction) {
                assert_eq!(result, Err(NarrowError::NonFinite), "{query} with {what} for A\n{case}");
            }
        }
        for (what, bad) in non_finite(&mb) {
            for (query, result) in narrow_all(&a, &ma, &b, &bad, velocity, prediction) {
                assert_eq!(result, Err(NarrowError::NonFinite), "{query} with {what} for B\n{case}");
            }
        }
        for (what, flat) in singular(&ma) {
            for (query, result) in narrow_all(&a, &flat, &b, &mb, velocity, prediction) {
                assert_eq!(result, Ok(()), "{query} with {what} for A (a valid placement)\n{case}");
            }
        }
        for (what, flat) in singular(&mb) {
            for (query, result) in narrow_all(&a, &ma, &b, &flat, velocity, prediction) {
                assert_eq!(result, Ok(()), "{query} with {what} for B (a valid placement)\n{case}");
            }
        }

        // 2. Swapped operands.
        let fresh = GjkCache::default;
        let d = narrow::distance(&a, &ma, &b, &mb, &mut fresh()).unwrap();
        let ds = narrow::distance(&b, &mb, &a, &ma, &mut fresh()).unwrap();
        assert!((d - ds).abs() <= tol, "distance: A, B gives {d}, B, A gives {ds}\n{case}");
        let hit = narrow::intersects(&a, &ma, &b, &mb, &mut fresh()).unwrap();
        let hit_swapped = narrow::intersects(&b, &mb, &a, &ma, &mut fresh()).unwrap();
        counts.intersecting += hit as usize;
        if hit != hit_swapped {
            // Borderline: the f64 reference's signed distance is within the tolerance of 0.
            let signed = reference_convex::signed_distance(&RefShape::new(&a, &ma), &RefShape::new(&b, &mb));
            assert!(
                signed.abs() <= f64::from(tol),
                "intersects: A, B gives {hit}, B, A gives {hit_swapped}; reference signed distance {signed}\n{case}"
            );
            counts.note("intersects (borderline)", 1);
        }

        for (name, query) in
            [("contact", narrow::contact as ContactFn), ("contact_gjk_epa", narrow::contact_gjk_epa)]
        {
            let c =
                query(&a, &ma, &b, &mb, f32::INFINITY, &mut fresh()).unwrap().expect("unbounded prediction");
            let s =
                query(&b, &mb, &a, &ma, f32::INFINITY, &mut fresh()).unwrap().expect("unbounded prediction");
            assert!(
                (c.separation - s.separation).abs() <= tol,
                "{name}: A, B gives {c:?}\n    B, A gives {s:?}\n{case}"
            );
            if !contact_mirrored(&c, &s, tol) {
                // Two right answers (a tie): each must hold on its own.
                let valid = convex_contact_valid(&a, &ma, &b, &mb, &c, tol)
                    .and_then(|()| convex_contact_valid(&b, &mb, &a, &ma, &s, tol));
                // The EPA witness contradiction: only if the other contact is right.
                let known = known_epa_witness(&c, &s, tol)
                    && (contact_witness_off(&c, tol)
                        || convex_contact_valid(&a, &ma, &b, &mb, &c, tol).is_ok())
                    && (contact_witness_off(&s, tol)
                        || convex_contact_valid(&b, &mb, &a, &ma, &s, tol).is_ok());
                match valid {
                    Ok(()) => counts.note("contact (tie)", 1),
                    Err(_) if known => counts.note("contact (EPA witness)", 1),
                    Err(e) => panic!(
                        "{name}: A, B gives {c:?}\n    B, A gives {s:?}\n    not mirrored, and {e}\n{case}"
                    ),
                }
            }
            // A bounded prediction: a contact in both orders or in neither (unless the distance
            // is within the tolerance of the prediction).
            let cp = query(&a, &ma, &b, &mb, prediction, &mut fresh()).unwrap();
            let sp = query(&b, &mb, &a, &ma, prediction, &mut fresh()).unwrap();
            if cp.is_some() != sp.is_some() {
                assert!(
                    (c.separation - prediction).abs() <= tol,
                    "{name} within {prediction}: A, B gives {cp:?}\n    B, A gives {sp:?}\n{case}"
                );
                counts.note("contact within prediction (borderline)", 1);
            }
        }

        let (mut m, mut ms) = (ContactManifold::default(), ContactManifold::default());
        narrow::contact_manifold(&a, &ma, &b, &mb, prediction, &mut fresh(), &mut m).unwrap();
        narrow::contact_manifold(&b, &mb, &a, &ma, prediction, &mut fresh(), &mut ms).unwrap();
        counts.nonempty += !m.is_empty() as usize;
        let (fa, fb) = (RefShape::new(&a, &ma), RefShape::new(&b, &mb));
        let (la, lb) = (local_tolerance(&ma, tol), local_tolerance(&mb, tol));
        match compare_manifolds(
            &m,
            &ms,
            tol,
            |p| fa.contains_within(p.as_dvec3(), la),
            |p| fb.contains_within(p.as_dvec3(), lb),
        ) {
            Agreement::Mirrored => {}
            Agreement::Tie => counts.note("contact_manifold (tie)", 1),
            Agreement::KnownWitness => counts.note("contact_manifold (EPA witness)", 1),
            Agreement::Differ if (d - prediction).abs() <= tol && m.is_empty() != ms.is_empty() => {
                counts.note("contact_manifold (prediction edge)", 1)
            }
            Agreement::Differ => panic!(
                "contact_manifold: A, B gives {}\n    B, A gives {}\n{case}",
                describe_manifold(&m),
                describe_manifold(&ms)
            ),
        }

        let cast = narrow::cast_shape(&a, &ma, &b, &mb, velocity, 1.0, &mut fresh()).unwrap();
        let cast_swapped = narrow::cast_shape(&b, &mb, &a, &ma, -velocity, 1.0, &mut fresh()).unwrap();
        check_cast_mirror(&cast, &cast_swapped, velocity, tol, &case, &mut counts, |h, hs| {
            let moved_b = moved(&mb, velocity * h.t);
            let moved_a = moved(&ma, -velocity * hs.t);
            convex_contact_valid(&a, &ma, &b, &moved_b, &h.contact, tol).is_ok()
                && convex_contact_valid(&b, &mb, &a, &moved_a, &hs.contact, tol).is_ok()
        });

        // convex_mesh_manifolds: the shape (A) against an icosphere's triangles (B).
        let shape = &a;
        let mm = placement(rng);
        let mut ms_ = placement(rng);
        let mesh_box = mesh.bounds().transformed(&mm);
        aim(rng, &mesh_box, &shape.aabb(&ms_), &mut ms_);
        let shape_box = shape.aabb(&ms_);
        let prediction = rng.random_range(0.0f32..0.2) * (shape_box.max - shape_box.min).length();
        let tol = tolerance(&[mesh_box, shape_box], &[&mm, &ms_]);
        let case = format!(
            "narrow convex-mesh case {index} (seed {seed:#x}):\n    shape {} placed by {ms_:?}\n    \
             icosphere(1) placed by {mm:?}\n    prediction {prediction}, tolerance {tol}",
            describe_convex(shape)
        );
        check_convex_mesh_manifolds(shape, &ms_, &mesh, &mm, prediction, tol, rng, &case, &mut counts);
    }
    println!("narrow: {counts:?}");
    assert!(counts.intersecting > NARROW_CASES / 5 && counts.hits > NARROW_CASES / 5, "{counts:?}");
}

/// Shape casts in both orders: B moves by `t · v` against a still A, or A by `-t · v` against a
/// still B; the same `t`, and the contact then mirrored (B's and A's points shifted by the
/// motion) or, for a tie, `valid_swapped` on its own.
fn check_cast_mirror(
    hit: &Option<ShapeCastHit>,
    swapped: &Option<ShapeCastHit>,
    velocity: Vec3,
    tol: f32,
    case: &str,
    counts: &mut Counts,
    valid_swapped: impl Fn(&ShapeCastHit, &ShapeCastHit) -> bool,
) {
    let speed = velocity.length();
    match (hit, swapped) {
        (None, None) => {}
        (Some(h), Some(hs)) => {
            counts.hits += 1;
            // `t` is known to a distance `tol` along the direction of approach.
            let closing = (-velocity.dot(h.contact.normal)).max(0.05 * speed);
            let tol_t = 2.0 * tol / closing.max(f32::MIN_POSITIVE);
            assert!(
                (h.t - hs.t).abs() <= tol_t,
                "cast_shape: A, B gives {h:?}\n    B, A gives {hs:?}\n{case}"
            );
            // B's point without B's motion, A's point with A's motion (`-ts · v`).
            let mirrored = Contact {
                point_a: h.contact.point_b - velocity * h.t,
                point_b: h.contact.point_a - velocity * hs.t,
                normal: -h.contact.normal,
                ..h.contact
            };
            let (c, s) = (mirrored, hs.contact);
            let same = (s.point_a - c.point_a).length() <= 2.0 * tol
                && (s.point_b - c.point_b).length() <= 2.0 * tol
                && (s.normal - c.normal).length() <= normal_tolerance(c.separation.max(tol), tol)
                && (s.separation - c.separation).abs() <= tol;
            if !same {
                if valid_swapped(h, hs) {
                    counts.note("cast_shape (tie)", 1);
                } else if (contact_witness_off(&h.contact, tol) || contact_witness_off(&hs.contact, tol))
                    && (s.separation - c.separation).abs() <= tol
                {
                    counts.note("cast_shape (EPA witness)", 1);
                } else {
                    panic!(
                        "cast_shape: A, B gives {h:?}\n    B, A gives {hs:?} (not the mirror, not valid alone)\n{case}"
                    );
                }
            }
        }
        (Some(h), None) | (None, Some(h)) => {
            // Only a grazing contact (B's motion nearly tangent to the contact) or one at the end
            // of the cast may be found in one order only.
            let grazing = velocity.dot(h.contact.normal).abs() <= 0.05 * speed || h.t >= 1.0 - 1e-3;
            assert!(grazing, "cast_shape: A, B gives {hit:?}\n    B, A gives {swapped:?}\n{case}");
            counts.note("cast_shape hit in one order (grazing)", 1);
        }
    }
}

/// `narrow::convex_mesh_manifolds`: bad placements, each manifold against `contact_manifold` of
/// the triangle and the shape (the swapped pair, mirrored), and placement invariance.
#[allow(clippy::too_many_arguments)]
fn check_convex_mesh_manifolds(
    shape: &ConvexShape,
    ms: &Affine3A,
    mesh: &TriMesh,
    mm: &Affine3A,
    prediction: f32,
    tol: f32,
    rng: &mut TestRng,
    case: &str,
    counts: &mut Counts,
) {
    let junk = || vec![PartManifold::default(); 2];
    let run = |ms: &Affine3A, mm: &Affine3A, edges: InternalEdges| {
        let mut out = junk();
        let result = narrow::convex_mesh_manifolds(shape, ms, mesh, mm, edges, prediction, &mut out);
        (result, out)
    };
    // 1. Bad placements: "NarrowError::NonFinite for a NaN prediction or a non-finite or singular
    //    placement" (the mesh's placement is inverted; the shape's singular placement is the
    //    subject of `narrow_convex_mesh_manifolds_refuses_a_singular_shape_placement`).
    for (what, bad) in non_finite(ms) {
        let (result, out) = run(&bad, mm, InternalEdges::Remove);
        assert_eq!(
            result,
            Err(NarrowError::NonFinite),
            "convex_mesh_manifolds with {what} for the shape\n{case}"
        );
        assert!(out.is_empty(), "convex_mesh_manifolds with {what} for the shape: out not cleared\n{case}");
    }
    for (what, bad) in non_finite(mm).into_iter().chain(singular(mm)) {
        let (result, out) = run(ms, &bad, InternalEdges::Remove);
        assert_eq!(
            result,
            Err(NarrowError::NonFinite),
            "convex_mesh_manifolds with {what} for the mesh\n{case}"
        );
        assert!(out.is_empty(), "convex_mesh_manifolds with {what} for the mesh: out not cleared\n{case}");
    }

    // 2a. The swapped twin per triangle: "for each triangle, what contact_manifold gives for the
    //     shape (A) and the triangle (B)", so the triangle against the shape, mirrored.
    let (result, out) = run(ms, mm, InternalEdges::Keep);
    result.unwrap();
    counts.nonempty += !out.is_empty() as usize;
    for pm in &out {
        assert_eq!(pm.part_a, 0, "{pm:?}\n{case}");
        let [p, q, r] = mesh.triangle(pm.part_b).unwrap();
        let triangle = ConvexShape::Triangle(Triangle::new(p, q, r));
        let mut swapped = ContactManifold::default();
        narrow::contact_manifold(
            &triangle,
            mm,
            shape,
            ms,
            prediction,
            &mut GjkCache::default(),
            &mut swapped,
        )
        .unwrap();
        let (fa, fb) = (RefShape::new(shape, ms), RefShape::new(&triangle, mm));
        let (la, lb) = (local_tolerance(ms, tol), local_tolerance(mm, tol));
        let agreement = compare_manifolds(
            &pm.manifold,
            &swapped,
            tol,
            |p| fa.contains_within(p.as_dvec3(), la),
            |p| fb.contains_within(p.as_dvec3(), lb),
        );
        match agreement {
            Agreement::Mirrored => continue,
            Agreement::Tie => {
                counts.note("convex_mesh_manifolds twin (tie)", 1);
                continue;
            }
            Agreement::KnownWitness => {
                counts.note("convex_mesh_manifolds twin (EPA witness)", 1);
                continue;
            }
            Agreement::Differ => {}
        }
        {
            let least = pm.manifold.points().iter().map(|p| p.separation).fold(f32::INFINITY, f32::min);
            assert!(
                swapped.is_empty() && (least - prediction).abs() <= tol,
                "convex_mesh_manifolds, triangle {}: {}\n    the triangle against the shape gives {}\n{case}",
                pm.part_b,
                describe_manifold(&pm.manifold),
                describe_manifold(&swapped)
            );
            counts.note("convex_mesh_manifolds twin (prediction edge)", 1);
        }
    }

    // 2b. Placement invariance, with and without internal-edge removal.
    let motion = rigid(rng);
    let normal_map = Mat3::from(motion.matrix3);
    for edges in [InternalEdges::Keep, InternalEdges::Remove] {
        let (_, out) = run(ms, mm, edges);
        let (result, out_moved) = run(&(motion * *ms), &(motion * *mm), edges);
        result.unwrap();
        let tol = tol + TOL * motion.translation.abs().max_element();
        let mut expected = Vec::new();
        for pm in &out {
            let mut m = ContactManifold::default();
            for p in pm.manifold.points() {
                m.push(
                    motion.transform_point3(p.point_a),
                    motion.transform_point3(p.point_b),
                    p.separation,
                    p.id,
                );
            }
            m.normal = normal_map * pm.manifold.normal;
            expected.push(PartManifold { manifold: m, ..*pm });
        }
        // Compared as "B against A" after flipping the moved list back (points swapped, normal
        // negated): the comparison of the same orientation, with its ties and allowances.
        let flipped: Vec<PartManifold> = out_moved
            .iter()
            .map(|m| {
                let mut f = ContactManifold::default();
                for p in m.manifold.points() {
                    f.push(p.point_b, p.point_a, p.separation, p.id);
                }
                f.normal = -m.manifold.normal;
                PartManifold { part_a: m.part_b, part_b: m.part_a, manifold: f }
            })
            .collect();
        let (moved_ms, moved_mm) = (motion * *ms, motion * *mm);
        let fa = RefShape::new(shape, &moved_ms);
        let la = local_tolerance(&moved_ms, tol);
        let compare = |m: &PartManifold, f: &PartManifold| {
            let [p, q, r] = mesh.triangle(m.part_b).unwrap();
            let fb = RefShape::new(&ConvexShape::Triangle(Triangle::new(p, q, r)), &moved_mm);
            let lb = local_tolerance(&moved_mm, tol);
            compare_manifolds(
                &m.manifold,
                &f.manifold,
                tol,
                |x| fa.contains_within(x.as_dvec3(), la),
                |x| fb.contains_within(x.as_dvec3(), lb),
            )
        };
        match match_manifold_lists(&expected, &flipped, prediction, tol, compare) {
            Ok(agreements) => {
                counts.note(
                    "convex_mesh_manifolds moved (tie)",
                    agreements.iter().filter(|a| **a == Agreement::Tie).count(),
                );
                counts.note(
                    "convex_mesh_manifolds moved (EPA witness)",
                    agreements.iter().filter(|a| **a == Agreement::KnownWitness).count(),
                );
                counts.note(
                    "convex_mesh_manifolds moved (prediction edge)",
                    (agreements.len() != expected.len() || agreements.len() != flipped.len()) as usize,
                );
            }
            Err(e) => panic!("convex_mesh_manifolds ({edges:?}) moved by {motion:?}:\n    {e}\n{case}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mesh instances

#[test]
fn mesh_instance_pair_queries_follow_the_contract() {
    let seed = 0x6d65_7368_0000_0001;
    let rng = &mut random::rng(seed);
    let meshes = small_meshes();
    let mut counts = Counts::default();
    for index in 0..MESH_CASES {
        let (name_a, a) = meshes[rng.random_range(0..meshes.len())].clone();
        let (name_b, b) = meshes[rng.random_range(0..meshes.len())].clone();
        let ma = placement(rng);
        let mut mb = placement(rng);
        aim(rng, &a.bounds().transformed(&ma), &b.bounds().transformed(&mb), &mut mb);
        let (box_a, box_b) = (a.bounds().transformed(&ma), b.bounds().transformed(&mb));
        let tol = tolerance(&[box_a, box_b], &[&ma, &mb]);
        let case = format!(
            "mesh case {index} (seed {seed:#x}):\n    A = {name_a} placed by {ma:?}\n    B = {name_b} placed by {mb:?}\n    tolerance {tol}"
        );
        counts.cases += 1;

        // 1. Bad placements: the instance refuses them ("Refuses non-finite and singular maps").
        for (what, bad) in non_finite(&ma) {
            let placed = MeshInstance::new(a.clone(), bad).map(drop);
            assert_eq!(placed, Err(PlacementError::NonFinite), "MeshInstance::new with {what}\n{case}");
        }
        for (what, bad) in singular(&ma) {
            let placed = MeshInstance::new(a.clone(), bad).map(drop);
            assert!(
                matches!(placed, Err(PlacementError::Singular { determinant }) if determinant == 0.0),
                "MeshInstance::new with {what}: {placed:?}\n{case}"
            );
        }
        // 2. Swapped operands.
        let x = MeshInstance::new(a.clone(), ma).unwrap();
        let y = MeshInstance::new(b.clone(), mb).unwrap();
        let (ta, tb) = (world_triangles(&a, &ma), world_triangles(&b, &mb));
        // Pairs of triangles within the tolerance of touching: they meet in world space in a
        // segment shorter than the tolerance, or not at all (but within it).
        let borderline_pair = |(i, j): (u32, u32)| {
            let (p, q) = (&ta[i as usize], &tb[j as usize]);
            let near = kollide_testkit::reference_mesh_mesh::distance(&[*p], &[*q]) <= f64::from(tol);
            near && match intersect_triangle_triangle(p, q) {
                None => true,
                Some(TriangleIntersection::Segment { start, end }) => start.distance(end) <= tol,
                Some(TriangleIntersection::Coplanar) => true,
            }
        };

        let mut pairs = Vec::new();
        x.intersecting_triangles(&y, &mut pairs);
        let mut swapped_pairs = Vec::new();
        y.intersecting_triangles(&x, &mut swapped_pairs);
        let mut mirrored_pairs: Vec<(u32, u32)> = swapped_pairs.iter().map(|&(j, i)| (i, j)).collect();
        pairs.sort_unstable();
        mirrored_pairs.sort_unstable();
        let only_one: Vec<(u32, u32)> = pairs
            .iter()
            .filter(|p| mirrored_pairs.binary_search(p).is_err())
            .chain(mirrored_pairs.iter().filter(|p| pairs.binary_search(p).is_err()))
            .copied()
            .collect();
        for &pair in &only_one {
            assert!(
                borderline_pair(pair),
                "intersecting_triangles: pair {pair:?} in one order only (A, B: {pairs:?}; B, A mirrored: {mirrored_pairs:?})\n{case}"
            );
        }
        counts.note("intersecting_triangles (borderline pairs)", !only_one.is_empty() as usize);
        let borderline = !only_one.is_empty();

        let hit = x.intersects_mesh(&y, None);
        let hit_swapped = y.intersects_mesh(&x, None);
        let mut cache = MeshMeshCache::new();
        assert_eq!(x.intersects_mesh(&y, Some(&mut cache)), hit, "intersects_mesh with a cache\n{case}");
        counts.intersecting += hit as usize;
        if hit != hit_swapped {
            assert!(
                borderline || kollide_testkit::reference_mesh_mesh::distance(&ta, &tb) <= f64::from(tol),
                "intersects_mesh: A, B gives {hit}, B, A gives {hit_swapped}\n{case}"
            );
            counts.note("intersects_mesh (borderline)", 1);
        }

        let overlap = x.mesh_overlap(&y, None);
        let overlap_swapped = y.mesh_overlap(&x, None);
        assert_eq!(overlap.is_some(), hit, "mesh_overlap {overlap:?} against intersects_mesh {hit}\n{case}");
        assert_eq!(
            overlap_swapped.is_some(),
            hit_swapped,
            "mesh_overlap {overlap_swapped:?}, swapped\n{case}"
        );
        match (overlap, overlap_swapped) {
            (Some(MeshOverlap::Triangles { a: i, b: j }), Some(MeshOverlap::Triangles { a: js, b: is })) => {
                // One witness each, not necessarily the same: each an intersecting pair.
                for pair in [(i, j), (is, js)] {
                    assert!(
                        pairs.binary_search(&pair).is_ok() || mirrored_pairs.binary_search(&pair).is_ok(),
                        "mesh_overlap: witness {pair:?} is no intersecting pair\n{case}"
                    );
                }
            }
            (Some(MeshOverlap::AInsideB { depth }), Some(MeshOverlap::BInsideA { depth: depth_swapped }))
            | (Some(MeshOverlap::BInsideA { depth }), Some(MeshOverlap::AInsideB { depth: depth_swapped })) =>
            {
                // Depths are estimates: only their sign.
                assert!(
                    depth >= 0.0 && depth_swapped >= 0.0,
                    "mesh_overlap: {overlap:?} / {overlap_swapped:?}\n{case}"
                );
            }
            (None, None) => {}
            _ => assert!(
                borderline,
                "mesh_overlap: A, B gives {overlap:?}, B, A gives {overlap_swapped:?}\n{case}"
            ),
        }

        let (mut contacts, mut contacts_swapped) = (Vec::new(), Vec::new());
        let regions = x.mesh_contacts(&y, &mut contacts);
        let regions_swapped = y.mesh_contacts(&x, &mut contacts_swapped);
        counts.nonempty += (regions > 0) as usize;
        assert_eq!(regions > 0, hit, "mesh_contacts: {regions} regions, intersects_mesh {hit}\n{case}");
        check_mesh_contacts(regions, &contacts, &case);
        check_mesh_contacts(regions_swapped, &contacts_swapped, &case);
        if !borderline {
            assert_eq!(
                regions, regions_swapped,
                "mesh_contacts: A, B gives {contacts:?}\n    B, A gives {contacts_swapped:?}\n{case}"
            );
            // Every region's normal is mirrored by one of the other order's regions.
            for c in &contacts {
                assert!(
                    contacts_swapped.iter().any(|s| (s.normal + c.normal).length() <= NORMAL_TOL),
                    "mesh_contacts: no region of B, A has the normal {:?} negated\n    A, B gives {contacts:?}\n    B, A gives {contacts_swapped:?}\n{case}",
                    c.normal
                );
            }
        }

        let near = x.mesh_distance(&y, f32::INFINITY).expect("unbounded");
        let near_swapped = y.mesh_distance(&x, f32::INFINITY).expect("unbounded");
        assert!(
            (near.distance - near_swapped.distance).abs() <= tol,
            "mesh_distance: A, B gives {near:?}\n    B, A gives {near_swapped:?}\n{case}"
        );
        let mirrored = (near_swapped.point_a - near.point_b).length() <= tol
            && (near_swapped.point_b - near.point_a).length() <= tol;
        if !mirrored && near.distance > tol {
            // A tie: the swapped points lie on their meshes, the distance apart.
            let on_b = y.closest_point(near_swapped.point_a, f32::INFINITY).unwrap().distance;
            let on_a = x.closest_point(near_swapped.point_b, f32::INFINITY).unwrap().distance;
            let apart = near_swapped.point_a.distance(near_swapped.point_b);
            assert!(
                on_a <= tol && on_b <= tol && (apart - near_swapped.distance).abs() <= tol,
                "mesh_distance: A, B gives {near:?}\n    B, A gives {near_swapped:?} (point on B {on_b} off, on A {on_a} off)\n{case}"
            );
            counts.note("mesh_distance (tie)", 1);
        }
        let limit = rng.random_range(0.0f32..2.0) * near.distance;
        let (bounded, bounded_swapped) = (x.mesh_distance(&y, limit), y.mesh_distance(&x, limit));
        assert!(
            bounded.is_some() == bounded_swapped.is_some() || (near.distance - limit).abs() <= tol,
            "mesh_distance within {limit}: A, B gives {bounded:?}\n    B, A gives {bounded_swapped:?}\n{case}"
        );
    }
    println!("mesh instances: {counts:?}");
    assert!(counts.intersecting > MESH_CASES / 5 && counts.intersecting < MESH_CASES * 4 / 5, "{counts:?}");
}

/// What holds for one order's mesh contacts on its own: unit normals, separations `<= 0`
/// (estimates: only the sign), region indices below the count, at most four points per region.
fn check_mesh_contacts(regions: usize, contacts: &[MeshContact], case: &str) {
    let mut per_region = vec![0; regions];
    for c in contacts {
        assert!(
            (c.normal.length() - 1.0).abs() <= 1e-3 && c.separation <= 0.0 && (c.region as usize) < regions,
            "mesh_contacts: {c:?} of {regions} regions\n{case}"
        );
        per_region[c.region as usize] += 1;
    }
    assert!(per_region.iter().all(|&n| (1..=4).contains(&n)), "mesh_contacts: {contacts:?}\n{case}");
}

// ---------------------------------------------------------------------------------------------
// Sphere sets

fn random_set(rng: &mut TestRng) -> SphereSet {
    let n = rng.random_range(1..=5);
    let spheres = (0..n)
        .map(|_| Sphere { center: random::point3(rng, 0.6), radius: rng.random_range(0.1f32..0.6) })
        .collect();
    SphereSet::new(spheres).unwrap()
}

/// A similarity: rotation, uniform scale in `[0.3, 3]`, translation within 2.
fn similarity(rng: &mut TestRng) -> Affine3A {
    let linear = Mat3::from_quat(random::rotation3(rng)) * rng.random_range(0.3f32..3.0);
    Affine3A::from_mat3_translation(linear, random::point3(rng, 2.0))
}

/// The world box of a set's balls under an affine map (each ball's ellipsoid box).
fn set_box(set: &SphereSet, map: &Affine3A) -> Aabb3 {
    set.spheres().iter().fold(Aabb3::EMPTY, |acc, s| {
        let m = Mat3::from(map.matrix3);
        let reach = Vec3::new(m.row(0).length(), m.row(1).length(), m.row(2).length()) * s.radius;
        let c = map.transform_point3(s.center);
        acc.merge(&Aabb3::new(c - reach, c + reach))
    })
}

/// The exact gap of two sets whose relative map `b_in_a` is a similarity of scale `scale`: the
/// least `|c_a - M c_b| - r_a - scale · r_b`, in A's frame, in `f64`.
fn similar_sets_gap(a: &SphereSet, b: &SphereSet, b_in_a: &Affine3A, scale: f64) -> f64 {
    let m = b_in_a.matrix3.as_dmat3();
    let t = b_in_a.translation.as_dvec3();
    let mut gap = f64::INFINITY;
    for sb in b.spheres() {
        let cb = m * sb.center.as_dvec3() + t;
        for sa in a.spheres() {
            gap = gap
                .min(cb.distance(sa.center.as_dvec3()) - f64::from(sa.radius) - scale * f64::from(sb.radius));
        }
    }
    gap
}

#[test]
fn sphere_set_pair_queries_follow_the_contract() {
    let seed = 0x7365_7473_0000_0001;
    let rng = &mut random::rng(seed);
    let meshes = small_meshes();
    let samples = reference_sets::unit_sphere_points(200);
    let mut counts = Counts::default();
    let mut conservative = 0;
    for index in 0..SPHERE_SET_CASES {
        counts.cases += 1;
        let (a, b) = (random_set(rng), random_set(rng));
        // Half the cases: a common non-uniform map `L` times two similarities, so the relative
        // map is a similarity (the exact case) under non-uniform world placements; the other
        // half: independent placements (the conservative case).
        let exact_case = rng.random_bool(0.5);
        let (ma, mut mb) = if exact_case {
            let l = random::affine3(rng, 3.0);
            (l * similarity(rng), l * similarity(rng))
        } else {
            (placement(rng), placement(rng))
        };
        // Aim B at A by a world translation of B (a translation in A's frame too, so the
        // relative map stays a similarity in the exact case).
        let (box_a, box_b) = (set_box(&a, &ma), set_box(&b, &mb));
        aim(rng, &box_a, &box_b, &mut mb);
        let tol = tolerance(&[box_a, set_box(&b, &mb)], &[&ma, &mb]);
        let case = format!(
            "sphere-set case {index} (seed {seed:#x}):\n    A = {:?} placed by {ma:?}\n    B = {:?} placed by {mb:?}\n    tolerance {tol}",
            a.spheres(),
            b.spheres()
        );

        // 1. Bad placements: "`false` for a placement that is not finite or not invertible".
        for (what, bad) in non_finite(&ma) {
            assert!(!a.intersects_set(&bad, &b, &mb), "intersects_set with {what} for A\n{case}");
        }
        for (what, bad) in non_finite(&mb) {
            assert!(!a.intersects_set(&ma, &b, &bad), "intersects_set with {what} for B\n{case}");
        }
        for (what, bad) in singular(&ma) {
            assert!(!a.intersects_set(&bad, &b, &mb), "intersects_set with {what} for A\n{case}");
        }
        // (A singular placement of B: see `sphere_set_intersects_set_refuses_a_singular_other_placement`.)

        // 2. Swapped operands.
        let hit = a.intersects_set(&ma, &b, &mb);
        let hit_swapped = b.intersects_set(&mb, &a, &ma);
        counts.intersecting += hit as usize;
        let b_in_a = ma.inverse() * mb;
        match kollide::math::is_similarity(&b_in_a) {
            Some(scale) => {
                // Exact both ways: equal unless within the tolerance of touching (in A's frame,
                // where the tolerance is `tol` over A's scale).
                if hit != hit_swapped {
                    let gap = similar_sets_gap(&a, &b, &b_in_a, f64::from(scale));
                    let local = local_tolerance(&ma, tol);
                    assert!(
                        gap.abs() <= local,
                        "intersects_set: A, B gives {hit}, B, A gives {hit_swapped}; exact gap {gap}\n{case}"
                    );
                    counts.note("intersects_set (borderline)", 1);
                }
            }
            None => {
                // Conservative: never misses an overlap, in either order; otherwise the orders
                // may differ (each inflates the other set's ellipsoids by its own stretch).
                conservative += (hit != hit_swapped) as usize;
                let gap = reference_sets::sets_sampled_gap(a.spheres(), b.spheres(), &b_in_a, &samples).min(
                    reference_sets::sets_sampled_gap(b.spheres(), a.spheres(), &b_in_a.inverse(), &samples),
                );
                if gap < 0.0 {
                    assert!(
                        hit && hit_swapped,
                        "intersects_set: A, B gives {hit}, B, A gives {hit_swapped}, but the sampled gap is {gap}\n{case}"
                    );
                }
            }
        }

        // intersects_mesh: no swapped twin in the module; placement invariance.
        let (name, mesh) = meshes[rng.random_range(0..meshes.len())].clone();
        let mm = placement(rng);
        let mut ms = placement(rng);
        let mesh_box = mesh.bounds().transformed(&mm);
        aim(rng, &mesh_box, &set_box(&a, &ms), &mut ms);
        let tol = tolerance(&[mesh_box, set_box(&a, &ms)], &[&mm, &ms]);
        let case = format!(
            "sphere-set-mesh case {index} (seed {seed:#x}):\n    set {:?} placed by {ms:?}\n    mesh {name} placed by {mm:?}\n    tolerance {tol}",
            a.spheres()
        );
        for (what, bad) in non_finite(&ms).into_iter().chain(singular(&ms)) {
            assert!(!a.intersects_mesh(&bad, &mesh, &mm), "intersects_mesh with {what} for the set\n{case}");
        }
        for (what, bad) in non_finite(&mm).into_iter().chain(singular(&mm)) {
            assert!(!a.intersects_mesh(&ms, &mesh, &bad), "intersects_mesh with {what} for the mesh\n{case}");
        }
        let touches = a.intersects_mesh(&ms, &mesh, &mm);
        let motion = rigid(rng);
        let touches_moved = a.intersects_mesh(&(motion * ms), &mesh, &(motion * mm));
        counts.nonempty += touches as usize;
        if touches != touches_moved {
            let self_in_mesh = mm.inverse() * ms;
            let triangles: Vec<[Vec3; 3]> =
                (0..mesh.triangle_count() as u32).map(|id| mesh.triangle(id).unwrap()).collect();
            let (margin, _) = reference_sets::set_against_mesh(a.spheres(), &triangles, &self_in_mesh);
            assert!(
                margin.abs() <= local_tolerance(&ms, tol),
                "intersects_mesh: {touches}, moved by {motion:?}: {touches_moved}; reference margin {margin}\n{case}"
            );
            counts.note("sphere set intersects_mesh moved (borderline)", 1);
        }
    }
    println!("sphere sets: {counts:?}, conservative answers that differ with the order {conservative}");
    assert!(
        counts.intersecting > SPHERE_SET_CASES / 5 && counts.nonempty > SPHERE_SET_CASES / 5,
        "{counts:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Fields

fn random_field(rng: &mut TestRng) -> (Arc<dyn Field3 + Send + Sync>, String) {
    random::analytic_field(rng)
}

/// The field's value at each point (the points placed by `mp`, the field by `mf`), through the
/// same composed map the queries use.
fn field_values(points: &[Vec3], mp: &Affine3A, field: &dyn Field3, mf: &Affine3A) -> Vec<f32> {
    let to_field = mf.inverse() * *mp;
    points.iter().map(|&p| field.value(to_field.transform_point3(p))).collect()
}

#[test]
fn field_pair_queries_follow_the_contract() {
    let seed = 0x6669_656c_6400_0001;
    let rng = &mut random::rng(seed);
    let sphere = shapes::icosphere(1).vertices;
    let mut counts = Counts::default();
    let mut undecided = 0;
    for index in 0..FIELD_CASES {
        counts.cases += 1;
        let (field, field_desc) = random_field(rng);
        let field: &dyn Field3 = &*field;
        // The points: an icosphere's 42 vertices, scaled, plus a few random points.
        let radius = rng.random_range(0.3f32..1.5);
        let mut points: Vec<Vec3> = sphere.iter().map(|&p| p * radius).collect();
        points.extend((0..8).map(|_| random::point3(rng, radius)));
        let mf = placement(rng);
        let mut mp = placement(rng);
        let field_box = field.bounds().unwrap().transformed(&mf);
        let points_box = Aabb3::from_points(&points).unwrap().transformed(&mp);
        aim(rng, &field_box, &points_box, &mut mp);
        let tol = tolerance(&[field_box, points_box], &[&mf, &mp]);
        let case = format!(
            "field case {index} (seed {seed:#x}):\n    points: icosphere(1) vertices times {radius} then {:?}, placed by {mp:?}\n    \
             field {field_desc} placed by {mf:?}\n    tolerance {tol}",
            &points[42..]
        );

        // 1. Bad placements: `None` / nothing "for a placement that is not finite or not
        //    invertible" (the field's placement is inverted; a singular placement of the points
        //    is the subject of `field_queries_refuse_a_singular_points_placement`).
        let first = |mp: &Affine3A, mf: &Affine3A| {
            field::first_point_inside(&points, mp, &field, mf, None, &mut PointFieldStats::default())
        };
        let contacts = |mp: &Affine3A, mf: &Affine3A| {
            let mut out =
                vec![FieldContact { index: 7, point: Vec3::ONE, normal: Vec3::Z, separation: -1.0 }];
            field::field_contacts(&points, mp, &field, mf, None, &mut out);
            out
        };
        for (what, bad) in non_finite(&mp) {
            assert_eq!(first(&bad, &mf), None, "first_point_inside with {what} for the points\n{case}");
            assert!(contacts(&bad, &mf).is_empty(), "field_contacts with {what} for the points\n{case}");
        }
        for (what, bad) in non_finite(&mf).into_iter().chain(singular(&mf)) {
            assert_eq!(first(&mp, &bad), None, "first_point_inside with {what} for the field\n{case}");
            assert!(contacts(&mp, &bad).is_empty(), "field_contacts with {what} for the field\n{case}");
        }
        //    `PlacedField`, the field's own placement: "`Err(NotInvertible)` for a map that is
        //    singular or has a non-finite entry".
        for (what, bad) in non_finite(&mf).into_iter().chain(singular(&mf)) {
            let placed = field::PlacedField::new(field, bad).map(drop);
            assert_eq!(placed, Err(FieldError::NotInvertible), "field::PlacedField::new with {what}\n{case}");
        }

        // 2. No swapped twin (points against a field): placement invariance under a rigid map.
        let found = first(&mp, &mf);
        let inside = contacts(&mp, &mf);
        counts.intersecting += found.is_some() as usize;
        assert_eq!(
            found,
            inside.first().map(|c| c.index as usize),
            "first_point_inside against field_contacts\n{case}"
        );
        let motion = rigid(rng);
        let (mp_moved, mf_moved) = (motion * mp, motion * mf);
        let found_moved = first(&mp_moved, &mf_moved);
        let inside_moved = contacts(&mp_moved, &mf_moved);
        assert_eq!(found_moved, inside_moved.first().map(|c| c.index as usize), "moved\n{case}");
        // Points within rounding of the surface may change sides: their value (in the field's
        // units) is within the tolerance over the field's stretch.
        let values = field_values(&points, &mp, field, &mf);
        let local = local_tolerance(&mf, tol) as f32;
        let changed: Vec<usize> = (0..points.len())
            .filter(|&i| {
                let a = inside.iter().any(|c| c.index as usize == i);
                let b = inside_moved.iter().any(|c| c.index as usize == i);
                a != b
            })
            .collect();
        for &i in &changed {
            assert!(
                values[i].abs() <= local,
                "field_contacts: point {i} (value {}) changes sides when both placements move by {motion:?}\n{case}",
                values[i]
            );
        }
        counts.note("field points changing sides (borderline)", !changed.is_empty() as usize);
        let normal_map = Mat3::from(motion.matrix3);
        let tol_moved = tol + TOL * motion.translation.abs().max_element();
        for c in &inside {
            let Some(m) = inside_moved.iter().find(|m| m.index == c.index) else { continue };
            let expected = motion.transform_point3(c.point);
            assert!(
                (m.point - expected).length() <= tol_moved
                    && (m.normal - normal_map * c.normal).length() <= NORMAL_TOL
                    && (m.separation - c.separation).abs() <= tol,
                "field_contacts: {c:?}, moved by {motion:?}: {m:?} (expected the point at {expected:?})\n{case}"
            );
        }
        counts.nonempty += !inside.is_empty() as usize;

        // fields_intersect: two fields in one frame (each through `PlacedField`), swapped. It is a
        // branch and bound with a tolerance: `Separated` is a proof and `Intersecting` comes
        // with a witness, so the two orders may differ only by `Undecided`.
        let (other, other_desc) = random_field(rng);
        let other: &dyn Field3 = &*other;
        let mo = {
            let mut m = placement(rng);
            let (fb, ob) =
                (field.bounds().unwrap().transformed(&mf), other.bounds().unwrap().transformed(&m));
            aim(rng, &fb, &ob, &mut m);
            m
        };
        let (pa, pb) =
            (field::PlacedField::new(field, mf).unwrap(), field::PlacedField::new(other, mo).unwrap());
        let size = field_box.size().length();
        let answers =
            [field::fields_intersect(&pa, &pb, 1e-3 * size), field::fields_intersect(&pb, &pa, 1e-3 * size)];
        let case = format!("{case}\n    other field {other_desc} placed by {mo:?}");
        for answer in answers {
            if let FieldsIntersection::Intersecting { point } = answer {
                assert!(
                    pa.value(point) <= 0.0 && pb.value(point) <= 0.0,
                    "fields_intersect: witness {point:?} not in both ({answers:?})\n{case}"
                );
            }
        }
        match answers {
            [FieldsIntersection::Separated, FieldsIntersection::Intersecting { .. }]
            | [FieldsIntersection::Intersecting { .. }, FieldsIntersection::Separated] => {
                panic!("fields_intersect: A, B gives {:?}, B, A gives {:?}\n{case}", answers[0], answers[1])
            }
            [FieldsIntersection::Undecided { .. }, _] | [_, FieldsIntersection::Undecided { .. }] => {
                undecided += 1
            }
            _ => {}
        }
    }
    println!("fields: {counts:?}, fields_intersect undecided in one order {undecided}");
    assert!(
        counts.intersecting > FIELD_CASES / 10 && counts.intersecting < FIELD_CASES * 4 / 5,
        "{counts:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// query

/// A shape of `kind` with a description for reproductions.
fn query_shape(kind: Kind, rng: &mut TestRng, meshes: &[(&'static str, Arc<TriMesh>)]) -> (Shape, String) {
    match kind {
        Kind::Convex => {
            let c = random_convex(rng);
            let desc = describe_convex(&c);
            (Shape::Convex(c), desc)
        }
        Kind::Mesh => {
            let (name, mesh) = meshes[rng.random_range(0..meshes.len())].clone();
            (Shape::Mesh(mesh), format!("Mesh({name})"))
        }
        Kind::SphereSet => {
            let set = random_set(rng);
            let desc = format!("SphereSet({:?})", set.spheres());
            (Shape::SphereSet(Arc::new(set)), desc)
        }
        Kind::Field => {
            let center = random::point3(rng, 0.2);
            let (f, desc): (Arc<dyn Field3 + Send + Sync>, String) = if rng.random_bool(0.5) {
                let f = BallField::new(center, rng.random_range(0.3..1.2)).unwrap();
                (Arc::new(f), format!("{f:?}"))
            } else {
                let half = Vec3::new(
                    rng.random_range(0.2..1.2),
                    rng.random_range(0.2..1.2),
                    rng.random_range(0.2..1.2),
                );
                let f = CuboidField::new(center, half).unwrap();
                (Arc::new(f), format!("{f:?}"))
            };
            (Shape::Field(f), desc)
        }
        Kind::Compound => {
            let child = |rng: &mut TestRng| {
                let linear = Mat3::from_quat(random::rotation3(rng)) * rng.random_range(0.5f32..1.2);
                Affine3A::from_mat3_translation(linear, random::point3(rng, 0.7))
            };
            let (convex, convex_desc) = query_shape(Kind::Convex, rng, meshes);
            let (mesh, mesh_desc) = query_shape(Kind::Mesh, rng, &meshes[..2]);
            let (set, set_desc) = query_shape(Kind::SphereSet, rng, meshes);
            let children = vec![(convex, child(rng)), (mesh, child(rng)), (set, child(rng))];
            let desc = format!(
                "Compound[{convex_desc} placed by {:?}; {mesh_desc} placed by {:?}; {set_desc} placed by {:?}]",
                children[0].1, children[1].1, children[2].1
            );
            (Shape::Compound(Arc::new(Compound::new(children).unwrap())), desc)
        }
    }
}

fn has_mesh(s: &Shape) -> bool {
    match s {
        Shape::Mesh(_) => true,
        Shape::Compound(c) => c.children().iter().any(|(s, _)| matches!(s, Shape::Mesh(_))),
        _ => false,
    }
}

fn ref_box(s: &Shape, m: &Affine3A) -> Aabb3 {
    let (min, max) = RefPlaced::new(s, m).bounds();
    Aabb3::new(min, max)
}

/// Every query pair query, reduced to success or the error.
fn query_all(
    a: &Shape,
    ma: &Affine3A,
    b: &Shape,
    mb: &Affine3A,
    velocity: Vec3,
    prediction: f32,
) -> [(&'static str, Result<(), QueryError>); 5] {
    let mut out = vec![PartManifold::default()];
    let manifolds = query::contact_manifolds(a, ma, b, mb, prediction, &mut out);
    let manifolds = if manifolds.is_err() && !out.is_empty() { Ok(()) } else { manifolds };
    [
        ("intersects", query::intersects(a, ma, b, mb).map(drop)),
        ("contact", query::contact(a, ma, b, mb, f32::INFINITY).map(drop)),
        ("contact_manifolds", manifolds),
        ("distance", query::distance(a, ma, b, mb).map(drop)),
        ("cast_shape", query::cast_shape(a, ma, b, mb, velocity, 1.0).map(drop)),
    ]
}

#[test]
fn query_pair_queries_follow_the_contract() {
    let seed = 0x7175_6572_7900_0001;
    let rng = &mut random::rng(seed);
    let meshes = small_meshes();
    let mut counts = Counts::default();
    let mut field_orders_differ = 0;
    for ka in Kind::ALL {
        for kb in Kind::ALL {
            for index in 0..QUERY_CASES_PER_PAIR {
                counts.cases += 1;
                let (a, a_desc) = query_shape(ka, rng, &meshes);
                let (b, b_desc) = query_shape(kb, rng, &meshes);
                let ma = placement(rng);
                let mut mb = placement(rng);
                let offset = aim(rng, &ref_box(&a, &ma), &ref_box(&b, &mb), &mut mb);
                let velocity = velocity_towards(rng, offset);
                let (box_a, box_b) = (ref_box(&a, &ma), ref_box(&b, &mb));
                let size = (box_a.max - box_a.min).length().min((box_b.max - box_b.min).length());
                let prediction = rng.random_range(0.0f32..0.3) * size;
                let tol = tolerance(&[box_a, box_b], &[&ma, &mb]);
                let case = format!(
                    "query {ka:?} x {kb:?} case {index} (seed {seed:#x}):\n    A = {a_desc} placed by {ma:?}\n    \
                     B = {b_desc} placed by {mb:?}\n    velocity {velocity:?}, prediction {prediction}, tolerance {tol}"
                );
                check_query_bad_input(&a, &ma, &b, &mb, velocity, prediction, &case);
                check_query_swapped(
                    &a,
                    &ma,
                    &b,
                    &mb,
                    velocity,
                    prediction,
                    tol,
                    &case,
                    &mut counts,
                    &mut field_orders_differ,
                );
            }
        }
    }
    println!("query: {counts:?}, field pairs whose intersects differ with the order {field_orders_differ}");
    assert!(counts.intersecting > counts.cases / 5 && counts.hits > counts.cases / 10, "{counts:?}");
}

/// "Bad input is an error value": a non-finite placement names its operand, a singular one too
/// where the query must invert it (every kind but convex shapes, which stay valid flattened).
fn check_query_bad_input(
    a: &Shape,
    ma: &Affine3A,
    b: &Shape,
    mb: &Affine3A,
    velocity: Vec3,
    prediction: f32,
    case: &str,
) {
    let expect = |ma: &Affine3A, mb: &Affine3A, expected: QueryError, what: &str| {
        for (query, result) in query_all(a, ma, b, mb, velocity, prediction) {
            assert_eq!(result, Err(expected), "{query} with {what}\n{case}");
        }
    };
    for (what, bad) in non_finite(ma) {
        expect(&bad, mb, QueryError::NonFinitePlacement(Operand::A), &format!("{what} for A"));
    }
    for (what, bad) in non_finite(mb) {
        expect(ma, &bad, QueryError::NonFinitePlacement(Operand::B), &format!("{what} for B"));
    }
    for (which, shape, good) in [(Operand::A, a, ma), (Operand::B, b, mb)] {
        for (what, flat) in singular(good) {
            let (fa, fb) = if which == Operand::A { (&flat, mb) } else { (ma, &flat) };
            if shape.kind() == Kind::Convex {
                for (query, result) in query_all(a, fa, b, fb, velocity, prediction) {
                    assert!(
                        !matches!(
                            result,
                            Err(QueryError::NonFinitePlacement(_) | QueryError::SingularPlacement(_))
                        ),
                        "{query} with {what} for the convex {which:?} (a valid placement): {result:?}\n{case}"
                    );
                }
            } else {
                expect(fa, fb, QueryError::SingularPlacement(which), &format!("{what} for {which:?}"));
            }
        }
    }
}

/// Whether the pair is within `tol` of touching, by the brute-force reference.
fn query_borderline(a: &Shape, ma: &Affine3A, b: &Shape, mb: &Affine3A, tol: f32) -> bool {
    let (ra, rb) = (RefPlaced::new(a, ma), RefPlaced::new(b, mb));
    if reference::intersects(&ra, &rb) {
        reference::overlap_depth(&ra, &rb) <= tol
    } else {
        reference::distance(&ra, &rb) <= tol
    }
}

#[allow(clippy::too_many_arguments)]
fn check_query_swapped(
    a: &Shape,
    ma: &Affine3A,
    b: &Shape,
    mb: &Affine3A,
    velocity: Vec3,
    prediction: f32,
    tol: f32,
    case: &str,
    counts: &mut Counts,
    field_orders_differ: &mut usize,
) {
    let fields = a.kind() == Kind::Field || b.kind() == Kind::Field;
    let hit = query::intersects(a, ma, b, mb).unwrap();
    let hit_swapped = query::intersects(b, mb, a, ma).unwrap();
    counts.intersecting += hit as usize;
    if hit != hit_swapped {
        if fields {
            // Conservative (documented): the `false` answer must still be right, no sample of the
            // reference lies in both.
            let sampled = reference::sampled_overlap(&RefPlaced::new(a, ma), &RefPlaced::new(b, mb), 12);
            assert_eq!(sampled.common, 0, "intersects: A, B gives {hit}, B, A gives {hit_swapped}\n{case}");
            *field_orders_differ += 1;
        } else {
            assert!(
                query_borderline(a, ma, b, mb, tol),
                "intersects: A, B gives {hit}, B, A gives {hit_swapped}\n{case}"
            );
            counts.note("intersects (borderline)", 1);
        }
    }

    if fields {
        // Everything but intersects is Unsupported, naming the kinds in the order given.
        let unsupported = |query: &'static str, first: &Shape, second: &Shape| {
            Err::<(), _>(QueryError::Unsupported { query, a: first.kind(), b: Some(second.kind()) })
        };
        let mut out = Vec::new();
        for (x, mx, y, my) in [(a, ma, b, mb), (b, mb, a, ma)] {
            assert_eq!(
                query::contact(x, mx, y, my, f32::INFINITY).map(drop),
                unsupported("contact", x, y),
                "{case}"
            );
            assert_eq!(query::distance(x, mx, y, my).map(drop), unsupported("distance", x, y), "{case}");
            assert_eq!(
                query::contact_manifolds(x, mx, y, my, prediction, &mut out),
                unsupported("contact_manifolds", x, y),
                "{case}"
            );
            assert_eq!(
                query::cast_shape(x, mx, y, my, velocity, 1.0).map(drop),
                unsupported("cast_shape", x, y),
                "{case}"
            );
        }
        return;
    }

    let d = query::distance(a, ma, b, mb).unwrap();
    let ds = query::distance(b, mb, a, ma).unwrap();
    assert!((d - ds).abs() <= tol, "distance: A, B gives {d}, B, A gives {ds}\n{case}");

    let c = query::contact(a, ma, b, mb, f32::INFINITY).unwrap().expect("max_distance ∞");
    let s = query::contact(b, mb, a, ma, f32::INFINITY).unwrap().expect("max_distance ∞");
    let mesh_estimates = has_mesh(a) && has_mesh(b) && (c.separation < -tol || s.separation < -tol);
    if mesh_estimates {
        // Both penetrating estimates: only the sign.
        assert!(
            c.separation <= tol && s.separation <= tol,
            "contact: A, B gives {c:?}\n    B, A gives {s:?}\n{case}"
        );
    } else {
        assert!(
            (c.separation - s.separation).abs() <= tol,
            "contact: A, B gives {c:?}\n    B, A gives {s:?}\n{case}"
        );
        let (ra, rb) = (RefPlaced::new(a, ma), RefPlaced::new(b, mb));
        // Points on their shapes (within the tolerance).
        let on_shapes = |c: &Contact, x: &RefPlaced, y: &RefPlaced| {
            x.point_distance(c.point_a).max(y.point_distance(c.point_b))
        };
        if !contact_mirrored(&c, &s, tol)
            && known_epa_witness(&c, &s, tol)
            && (contact_witness_off(&c, tol) || on_shapes(&c, &ra, &rb) <= tol)
            && (contact_witness_off(&s, tol) || on_shapes(&s, &rb, &ra) <= tol)
        {
            // The EPA witness contradiction, the other contact right.
            counts.note("contact (EPA witness)", 1);
        } else if !contact_mirrored(&c, &s, tol) {
            // A tie: each contact on its own (points on the shapes, `separation · normal` apart).
            let on = on_shapes(&c, &ra, &rb).max(on_shapes(&s, &rb, &ra));
            let along = (c.point_b - c.point_a - c.normal * c.separation)
                .length()
                .max((s.point_b - s.point_a - s.normal * s.separation).length());
            assert!(
                on <= tol && along <= tol,
                "contact: A, B gives {c:?}\n    B, A gives {s:?} (points {on} off the shapes, {along} off the normal)\n{case}"
            );
            counts.note("contact (tie)", 1);
        }
    }

    let (mut out, mut out_swapped) = (Vec::new(), Vec::new());
    query::contact_manifolds(a, ma, b, mb, prediction, &mut out).unwrap();
    query::contact_manifolds(b, mb, a, ma, prediction, &mut out_swapped).unwrap();
    counts.nonempty += !out.is_empty() as usize;
    let within_edge = (d - prediction).abs() <= tol;
    if has_mesh(a) && has_mesh(b) {
        // Regions and depths are estimates computed in one mesh's frame: both or neither.
        assert!(
            out.is_empty() == out_swapped.is_empty() || within_edge,
            "contact_manifolds: A, B gives {}\n    B, A gives {}\n{case}",
            describe_parts(&out),
            describe_parts(&out_swapped)
        );
    } else {
        let (ra, rb) = (RefPlaced::new(a, ma), RefPlaced::new(b, mb));
        let compare = |m: &PartManifold, s: &PartManifold| {
            compare_manifolds(
                &m.manifold,
                &s.manifold,
                tol,
                |p| ra.point_distance(p) <= tol,
                |p| rb.point_distance(p) <= tol,
            )
        };
        match match_manifold_lists(&out, &out_swapped, prediction, tol, compare) {
            Ok(agreements) => {
                counts.note(
                    "contact_manifolds (tie)",
                    agreements.iter().filter(|a| **a == Agreement::Tie).count(),
                );
                counts.note(
                    "contact_manifolds (EPA witness)",
                    agreements.iter().filter(|a| **a == Agreement::KnownWitness).count(),
                );
                counts.note(
                    "contact_manifolds (prediction edge)",
                    (out.len() != agreements.len() || out_swapped.len() != agreements.len()) as usize,
                );
            }
            Err(e) => panic!(
                "contact_manifolds: A, B gives {} manifolds, B, A gives {}:\n    {e}\n{case}",
                out.len(),
                out_swapped.len()
            ),
        }
    }

    let cast = query::cast_shape(a, ma, b, mb, velocity, 1.0).unwrap();
    let cast_swapped = query::cast_shape(b, mb, a, ma, -velocity, 1.0).unwrap();
    let estimates = has_mesh(a) && has_mesh(b);
    check_cast_mirror(&cast, &cast_swapped, velocity, tol, case, counts, |h, hs| {
        // Two meshes: estimates. Otherwise a tie: both touching (or overlapping at t = 0) then,
        // each contact's points on the shapes as they are placed at its time.
        let on = |c: &Contact, x: &RefPlaced, y: &RefPlaced| {
            x.point_distance(c.point_a) <= tol && y.point_distance(c.point_b) <= tol
        };
        estimates
            || (h.contact.separation <= tol
                && hs.contact.separation <= tol
                && on(&h.contact, &RefPlaced::new(a, ma), &RefPlaced::new(b, &moved(mb, velocity * h.t)))
                && on(&hs.contact, &RefPlaced::new(b, mb), &RefPlaced::new(a, &moved(ma, -velocity * hs.t))))
    });
}

// ---------------------------------------------------------------------------------------------
// Contradictions between a function's behaviour and its documentation (ignored until decided)

/// `SphereSet::intersects_set`: "`false` for a placement that is not finite or not invertible".
#[test]
fn sphere_set_intersects_set_refuses_a_singular_other_placement() {
    let ball = SphereSet::new(vec![Sphere { center: Vec3::ZERO, radius: 1.0 }]).unwrap();
    let flat = Affine3A::from_mat3(Mat3::from_diagonal(Vec3::new(1.0, 1.0, 0.0)));
    // The mirror refuses it (the flattened set's placement is inverted there).
    assert!(!ball.intersects_set(&flat, &ball, &Affine3A::IDENTITY));
    assert!(!ball.intersects_set(&Affine3A::IDENTITY, &ball, &flat));
}

/// `field::first_point_inside` and `field::field_contacts`: a singular points placement flattens
/// the points, which stay points (only the field's placement must be invertible).
#[test]
fn field_queries_accept_a_singular_points_placement() {
    let ball = BallField::new(Vec3::ZERO, 1.0).unwrap();
    let flat = Affine3A::from_mat3(Mat3::from_diagonal(Vec3::new(1.0, 1.0, 0.0)));
    let points = [Vec3::new(0.0, 0.0, 5.0)];
    let found = field::first_point_inside(
        &points,
        &flat,
        &ball,
        &Affine3A::IDENTITY,
        None,
        &mut PointFieldStats::default(),
    );
    let mut out = Vec::new();
    field::field_contacts(&points, &flat, &ball, &Affine3A::IDENTITY, None, &mut out);
    // (0, 0, 5) flattened is the ball's centre.
    assert_eq!(found, Some(0));
    assert_eq!(out.len(), 1);
}

/// `narrow::convex_mesh_manifolds`: a singular shape placement is accepted, as in every narrow
/// query (only the mesh's placement is inverted).
#[test]
fn narrow_convex_mesh_manifolds_accepts_a_singular_shape_placement() {
    let mesh = TriMesh::from_data(shapes::icosphere(1)).unwrap();
    let ball = ConvexShape::Ball(kollide::shape::Ball::new(0.5));
    let flat = Affine3A::from_mat3_translation(Mat3::from_diagonal(Vec3::new(1.0, 1.0, 0.0)), Vec3::X);
    let mut out = Vec::new();
    let result = narrow::convex_mesh_manifolds(
        &ball,
        &flat,
        &mesh,
        &Affine3A::IDENTITY,
        InternalEdges::Keep,
        0.0,
        &mut out,
    );
    assert_eq!(result, Ok(()));
}

/// `narrow::Contact`: "`point_b - point_a = separation · normal` up to rounding". About one
/// penetrating contact in ten from GJK/EPA breaks it (under rigid maps too): the separation and
/// the normal agree with the swapped call, but one witness point slides along the contact plane.
#[test]
#[ignore = "issue 28: narrow::contact of penetrating shapes (GJK/EPA path) returns points with \
            point_b - point_a != separation · normal (here 0.43 off for shapes of size 2), and not the mirror \
            of the swapped call"]
fn narrow_contact_points_are_separation_times_normal_apart() {
    use kollide::shape::{Cone, Cuboid};
    let cuboid = ConvexShape::Cuboid(Cuboid::new(Vec3::new(0.49016398, 0.99629825, 0.9422993)));
    let cone = ConvexShape::Cone(Cone::new(1.0243812, 1.0495305));
    let cone_to_world = Affine3A::from_mat3_translation(
        Mat3::from_cols(
            Vec3::new(0.113134995, -0.15026924, 0.9821507),
            Vec3::new(-0.43325084, 0.88210964, 0.18486956),
            Vec3::new(-0.8941447, -0.44643274, 0.034693144),
        ),
        Vec3::new(-1.4391205, 1.4843673, -1.173466),
    );
    let id = Affine3A::IDENTITY;
    let c = narrow::contact(&cuboid, &id, &cone, &cone_to_world, f32::INFINITY, &mut GjkCache::default())
        .unwrap()
        .unwrap();
    let s = narrow::contact(&cone, &cone_to_world, &cuboid, &id, f32::INFINITY, &mut GjkCache::default())
        .unwrap()
        .unwrap();
    // Same separation and mirrored normals both ways (about -0.3012, (∓0.576, ±0.818, 0)).
    assert!((c.separation - s.separation).abs() <= 1e-5 && (c.normal + s.normal).length() <= 1e-5);
    // The swapped call's points are consistent; the direct call's are 0.43 apart along z.
    assert!(!contact_witness_off(&s, 1e-4), "{s:?}");
    assert!(!contact_witness_off(&c, 1e-4), "{c:?}");
}
