//! The query matrix (issue 22): every ordered pair of [`Kind`]s (5 × 5 cells) × every pair
//! query (`intersects`, `contact`, `contact_manifolds`, `distance`, `cast_shape`), 1,000 seeded
//! random cases per cell, each checked against the brute-force references of
//! `kollide_testkit::reference_query` (every convex piece against every convex piece, membership
//! by winding numbers and inverse maps), or, where a field takes part, against a sampled
//! reference.
//!
//! Placements mix rigid maps, uniform scales and non-uniform scales in `[0.3, 3]` with shear up to
//! 0.5 (and reflections); the second shape is aimed at the first so that about a third to a half
//! of the cases intersect, and every cell asserts that it saw both intersecting and separated
//! cases (and both hits and misses of the shape cast), so it cannot pass vacuously.
//!
//! Every case also runs with the operands swapped, and with bad placements (NaN, singular).
//! Failures are collected per cell (check, case index, seed and the inputs to reproduce it) and
//! asserted at the end. Library failures that are known and not yet fixed are listed in
//! [`KNOWN_FAILURES`]: they are still counted and printed, but do not fail the cell.
//!
//! Tolerances are relative: `TOL · scale`, where `scale` is the largest of the two shapes' world
//! box diagonals and their translations. The answers compared are `f32` computations over
//! coordinates of that size (GJK, closest points, mapped vertices), whose rounding errors are a
//! few units of `1e-7 · scale` per step; `1e-4 · scale` leaves room for the iterative solvers
//! (GJK stops at a relative `1e-6`-ish accuracy, shape casts at `1e-5 · (1 + |translation|)`)
//! while staying far below any real mistake (a wrong triangle or a missed containment is off by
//! a fraction of the shapes' size). A pair whose reference answer is within the tolerance of
//! touching (distance, or deepest evidence of overlap, at most `TOL · scale`) is *borderline*:
//! there `intersects` may go either way; those cases are counted and printed.
//!
//! What each cell promises (exact, estimate, conservative, unsupported) is in
//! `docs/query-matrix.md`. Set `QUERY_MATRIX_CASES` to run fewer cases while working on it, and
//! `QUERY_MATRIX_VERBOSE` to print every known failure with its case.

use std::sync::{Arc, OnceLock};

use glam::{Affine3A, Mat3, Vec3};
use kollide::bounds::Sphere;
use kollide::mesh::{SphereSet, TriMesh};
use kollide::query::{self, Compound, Kind, Operand, PartManifold, QueryError, Shape};
use kollide::shape::{ConvexShape, ShapeKind};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_convex::{self, RefShape, random_shape};
use kollide_testkit::reference_query::{self as reference, RefPlaced};
use kollide_testkit::shapes;
use rand::Rng;

/// Cases per cell.
const CASES: usize = 1000;
/// Relative tolerance of exact answers (see the module).
const TOL: f32 = 1e-4;
/// Steps of the time grid that checks shape casts.
const CAST_STEPS: usize = 32;
/// Samples per axis of the sampled reference for fields.
const FIELD_GRID: usize = 12;
/// The largest share of field cases that may answer `intersects = true` without a common
/// sample (the answer is conservative within about `1e-3` of the smaller size).
const FIELD_CONSERVATIVE_SHARE: f64 = 0.10;

/// A library failure found by this matrix and not fixed yet. A failure of one of its checks in
/// one of its cells, in a case that shows its signature, is printed and counted but does not fail
/// the test; any other failure does.
struct KnownFailure {
    id: &'static str,
    /// What is wrong, and a minimal reproduction.
    what: &'static str,
    cells: &'static [(Kind, Kind)],
    checks: &'static [&'static str],
    /// Whether the case shows this failure, from the library's own answers on the shapes' parts
    /// (so that another mistake in the same cell is not taken for this one).
    signature: fn(&Case) -> bool,
}

use Kind::Convex as C;

/// Library failures found by this matrix (the library is being edited elsewhere; see each
/// entry for a minimal reproduction).
const KNOWN_FAILURES: &[KnownFailure] = &[KnownFailure {
    id: "epa-curved-depth",
    what: "narrow::contact of two penetrating curved shapes under non-uniform maps (EPA on a \
               polytope approximation) misses the documented 1e-5 relative accuracy: the claimed \
               separation is not the separation along its own normal. Repro (seed 0x6d61747269780000 \
               case 219): Cylinder(half_height 0.88974243, radius 0.7862236) placed by matrix \
               [(-1.6590223, 2.1921706, 0.5629096), (0.36016303, -0.16445926, 0.46911743), \
               (-2.1687016, -0.6464903, 2.2065918)] (columns) + (-1.4382491, 1.6289907, 1.4381595), \
               against Ball(1.1456265) placed by [(0.36508608, 0.19112052, -0.041451406), \
               (1.2633829, -0.88251245, 1.0460138), (0.12982935, -2.710043, -1.2799293)] + \
               (0.7172499, -1.9501159, 0.21095502): separation -1.4282913, but the separation along \
               its normal is -1.432914 and the f64 reference's search finds -1.4298005.",
    cells: &[(C, C)],
    checks: &["contact (f64 reference)"],
    signature: epa_inconsistent,
}];

/// Cases per cell: `QUERY_MATRIX_CASES` when set (an absolute count), else [`CASES`] scaled by
/// `KOLLIDE_CASES` like every property suite ([`kollide_testkit::cases`]).
fn cases() -> usize {
    std::env::var("QUERY_MATRIX_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| kollide_testkit::cases(CASES))
}

// ---------------------------------------------------------------------------------------------
// Shapes

/// The small meshes of the matrix, built once (brute force over every triangle pair stays fast).
struct Meshes {
    /// Closed: a unit cube (12 triangles), an icosphere (80), a torus (64). Open: a grid (50).
    whole: Vec<(Arc<TriMesh>, &'static str)>,
    /// Compound children: the cube, an icosahedron (20), a grid (18).
    small: Vec<(Arc<TriMesh>, &'static str)>,
}

fn cube() -> TriMesh {
    TriMesh::from_data(shapes::cube()).unwrap()
}

fn meshes() -> &'static Meshes {
    static MESHES: OnceLock<Meshes> = OnceLock::new();
    MESHES.get_or_init(|| {
        let cube = Arc::new(cube());
        let icosphere = Arc::new(TriMesh::from_data(shapes::icosphere(1)).unwrap());
        let torus = Arc::new(TriMesh::from_data(shapes::torus(0.7, 0.3, 8, 4)).unwrap());
        let grid = Arc::new(TriMesh::from_data(shapes::grid(5)).unwrap());
        let icosahedron = Arc::new(TriMesh::from_data(shapes::icosphere(0)).unwrap());
        let small_grid = Arc::new(TriMesh::from_data(shapes::grid(3)).unwrap());
        for (m, solid) in
            [(&cube, true), (&icosphere, true), (&torus, true), (&grid, false), (&icosahedron, true)]
        {
            assert_eq!(m.is_solid(), solid);
        }
        assert_eq!(
            [&cube, &icosphere, &torus, &grid].map(|m| m.triangle_count()),
            [12, 80, 64, 50],
            "the matrix's mesh sizes"
        );
        Meshes {
            whole: vec![
                (cube.clone(), "cube"),
                (icosphere, "icosphere"),
                (torus, "torus"),
                (grid, "open grid"),
            ],
            small: vec![(cube, "cube"), (icosahedron, "icosahedron"), (small_grid, "open grid")],
        }
    })
}

fn random_convex(rng: &mut TestRng) -> (Shape, String) {
    let kind = ShapeKind::ALL[rng.random_range(0..ShapeKind::ALL.len())];
    let c = random_shape(rng, kind);
    let desc = describe_convex(&c);
    (Shape::Convex(c), desc)
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

fn random_sphere_set(rng: &mut TestRng) -> (Shape, String) {
    let n = rng.random_range(2..=5);
    let spheres: Vec<Sphere> = (0..n)
        .map(|_| Sphere { center: random::point3(rng, 0.6), radius: rng.random_range(0.15..0.6) })
        .collect();
    let desc = format!("SphereSet({spheres:?})");
    (Shape::SphereSet(Arc::new(SphereSet::new(spheres).unwrap())), desc)
}

fn random_field(rng: &mut TestRng) -> (Shape, String) {
    let (field, desc) = random::analytic_field(rng);
    (Shape::Field(field), desc)
}

/// A local placement of a compound child: rotation, scale in `[0.5, 1.5]`, some shear, a
/// translation within 0.7.
fn child_placement(rng: &mut TestRng) -> Affine3A {
    let scale = Vec3::new(rng.random_range(0.5..1.5), rng.random_range(0.5..1.5), rng.random_range(0.5..1.5));
    let shear = Mat3::from_cols(Vec3::X, Vec3::new(rng.random_range(-0.3..0.3), 1.0, 0.0), Vec3::Z);
    let linear = Mat3::from_quat(random::rotation3(rng)) * shear * Mat3::from_diagonal(scale);
    Affine3A::from_mat3_translation(linear, random::point3(rng, 0.7))
}

fn random_compound(rng: &mut TestRng, meshes: &Meshes) -> (Shape, String) {
    let (convex, convex_desc) = random_convex(rng);
    let (mesh, mesh_name) = meshes.small[rng.random_range(0..meshes.small.len())].clone();
    let (set, set_desc) = random_sphere_set(rng);
    let mut children = vec![
        (convex, child_placement(rng), convex_desc),
        (Shape::Mesh(mesh), child_placement(rng), format!("Mesh({mesh_name})")),
        (set, child_placement(rng), set_desc),
    ];
    // Two or three children: drop one at random half of the time.
    if rng.random_bool(0.5) {
        children.remove(rng.random_range(0..3));
    }
    let desc = format!(
        "Compound[{}]",
        children.iter().map(|(_, m, d)| format!("{d} placed by {m:?}")).collect::<Vec<_>>().join("; ")
    );
    let compound = Compound::new(children.into_iter().map(|(s, m, _)| (s, m)).collect()).unwrap();
    (Shape::Compound(Arc::new(compound)), desc)
}

fn random_shape_of(kind: Kind, rng: &mut TestRng, meshes: &Meshes) -> (Shape, String) {
    match kind {
        Kind::Convex => random_convex(rng),
        Kind::Mesh => {
            let (mesh, name) = meshes.whole[rng.random_range(0..meshes.whole.len())].clone();
            (Shape::Mesh(mesh), format!("Mesh({name})"))
        }
        Kind::SphereSet => random_sphere_set(rng),
        Kind::Field => random_field(rng),
        Kind::Compound => random_compound(rng, meshes),
    }
}

/// A placement without translation: rigid, uniformly scaled (`[0.3, 3]`), or non-uniformly scaled
/// (`[0.3, 3]` per axis) with shear up to 0.5 and a reflection one time in five.
fn random_linear(rng: &mut TestRng) -> Affine3A {
    let rotation = Mat3::from_quat(random::rotation3(rng));
    let linear = match rng.random_range(0..3) {
        0 => rotation,
        1 => rotation * rng.random_range(0.3f32..3.0),
        _ => {
            let scale =
                Vec3::new(rng.random_range(0.3..3.0), rng.random_range(0.3..3.0), rng.random_range(0.3..3.0));
            let shear = Mat3::from_cols(
                Vec3::X,
                Vec3::new(rng.random_range(-0.5..0.5), 1.0, 0.0),
                Vec3::new(rng.random_range(-0.5..0.5), rng.random_range(-0.5..0.5), 1.0),
            );
            let reflect = if rng.random_bool(0.2) {
                Mat3::from_diagonal(Vec3::new(-1.0, 1.0, 1.0))
            } else {
                Mat3::IDENTITY
            };
            rotation * shear * Mat3::from_diagonal(scale) * reflect
        }
    };
    Affine3A::from_mat3_translation(linear, Vec3::ZERO)
}

// ---------------------------------------------------------------------------------------------
// Cases

struct Case {
    seed: u64,
    index: usize,
    a: Shape,
    a_desc: String,
    ma: Affine3A,
    b: Shape,
    b_desc: String,
    mb: Affine3A,
    /// B's velocity in the shape cast (aimed roughly at A), over `t ∈ [0, 1]`.
    velocity: Vec3,
    prediction: f32,
}

impl Case {
    fn repro(&self) -> String {
        format!(
            "seed {:#x} case {}:\n    A = {} placed by {:?}\n    B = {} placed by {:?}\n    velocity {:?}, prediction {}",
            self.seed, self.index, self.a_desc, self.ma, self.b_desc, self.mb, self.velocity, self.prediction
        )
    }
}

/// How far apart the shapes are placed, as a fraction of the sum of their boxes' reach along
/// the line between them: below 1 the boxes overlap.
const AIM: std::ops::Range<f32> = 0.25..1.05;

fn make_case(ka: Kind, kb: Kind, seed: u64, index: usize, meshes: &Meshes) -> Case {
    let rng = &mut random::rng(seed.wrapping_mul(0x1_0000_0001).wrapping_add(index as u64));
    let (a, a_desc) = random_shape_of(ka, rng, meshes);
    let (b, b_desc) = random_shape_of(kb, rng, meshes);
    let mut ma = random_linear(rng);
    ma.translation = random::point3(rng, 2.0).into();
    let mut mb = random_linear(rng);
    // Aim B at A: B's box centre on a random line through A's box centre, at a random fraction
    // of the boxes' combined reach along it.
    let (la, ha) = RefPlaced::new(&a, &ma).bounds();
    let (lb, hb) = RefPlaced::new(&b, &mb).bounds();
    let (ca, ea, cb, eb) = ((la + ha) / 2.0, (ha - la) / 2.0, (lb + hb) / 2.0, (hb - lb) / 2.0);
    let u = random::unit3(rng);
    let reach = ea.dot(u.abs()) + eb.dot(u.abs());
    let offset = u * reach * rng.random_range(AIM);
    mb.translation = (ca + offset - cb).into();
    // B's velocity: back along the offset, 0.2 to 1.2 times it, plus a random part up to 1.5
    // times it (about half the casts hit).
    let velocity = -offset * rng.random_range(0.2..1.2)
        + random::unit3(rng) * offset.length() * rng.random_range(0.0..1.5);
    let size = (ha - la).length().min((hb - lb).length());
    let prediction = rng.random_range(0.0..0.5) * size;
    Case { seed, index, a, a_desc, ma, b, b_desc, mb, velocity, prediction }
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping

#[derive(Default)]
struct Counts {
    cases: usize,
    /// Cases the reference (brute force or sampled) finds intersecting.
    intersecting: usize,
    /// Cases within the tolerance of touching.
    borderline: usize,
    /// `intersects` disagreed with the reference on a borderline case (allowed).
    borderline_mismatch: usize,
    manifolds_nonempty: usize,
    cast_hits: usize,
    cast_hits_at_zero: usize,
    /// Casts that stopped after their step limit still apart (documented).
    cast_unconverged: usize,
    /// Grid times of casts at which B touches A within the tolerance (allowed).
    cast_borderline: usize,
    /// Swapped contacts that differ in points or normal while both are valid (ties).
    swap_ties: usize,
    /// Field cells: `intersects` true with no sample in both shapes.
    field_unsampled_true: usize,
    /// Field cells: `intersects` answers differently with the operands swapped.
    field_swap_differs: usize,
}

struct Cell {
    a: Kind,
    b: Kind,
    seed: u64,
    counts: Counts,
    failures: Vec<Failure>,
    /// Failures of [`KNOWN_FAILURES`], by id.
    known: Vec<(&'static str, Failure)>,
}

struct Failure {
    check: &'static str,
    case: usize,
    what: String,
    repro: String,
}

impl Cell {
    fn fail(&mut self, check: &'static str, case: &Case, what: String) {
        let known = KNOWN_FAILURES.iter().find(|k| {
            k.cells.contains(&(self.a, self.b)) && k.checks.contains(&check) && (k.signature)(case)
        });
        let failure = Failure { check, case: case.index, what, repro: case.repro() };
        match known {
            Some(k) => self.known.push((k.id, failure)),
            None => self.failures.push(failure),
        }
    }

    fn finish(self) {
        let c = &self.counts;
        let pct = |x: usize| 100.0 * x as f64 / c.cases.max(1) as f64;
        println!(
            "{:?} x {:?} (seed {:#x}): {} cases; intersecting {} ({:.1}%), borderline {} (mismatched {}), \
             manifolds non-empty {} ({:.1}%), cast hits {} ({:.1}%, {} at t = 0, {} unconverged, {} borderline grid times), swap ties {}, \
             field true without a common sample {} ({:.1}%), field swapped answer differs {}",
            self.a,
            self.b,
            self.seed,
            c.cases,
            c.intersecting,
            pct(c.intersecting),
            c.borderline,
            c.borderline_mismatch,
            c.manifolds_nonempty,
            pct(c.manifolds_nonempty),
            c.cast_hits,
            pct(c.cast_hits),
            c.cast_hits_at_zero,
            c.cast_unconverged,
            c.cast_borderline,
            c.swap_ties,
            c.field_unsampled_true,
            pct(c.field_unsampled_true),
            c.field_swap_differs,
        );
        let summarize = |list: &[Failure]| {
            let mut checks: Vec<&str> = list.iter().map(|f| f.check).collect();
            checks.sort();
            checks.dedup();
            checks
                .iter()
                .map(|check| format!("{check}: {}", list.iter().filter(|f| f.check == *check).count()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // Per check: the first failure in full, then up to 8 more by case and message.
        let details = |list: &[Failure]| {
            let mut out = String::new();
            let mut per_check = std::collections::HashMap::new();
            for f in list {
                let n = per_check.entry(f.check).or_insert(0);
                *n += 1;
                let what: String = f.what.chars().take(400).collect();
                if *n == 1 {
                    out += &format!(
                        "  [{:?} x {:?}] {}: case {}: {what}\n    {}\n",
                        self.a, self.b, f.check, f.case, f.repro
                    );
                } else if *n <= 9 {
                    out += &format!("  [{:?} x {:?}] {}: case {}: {what}\n", self.a, self.b, f.check, f.case);
                }
            }
            out
        };
        for k in KNOWN_FAILURES {
            let hits: Vec<&Failure> =
                self.known.iter().filter(|(id, _)| *id == k.id).map(|(_, f)| f).collect();
            if !hits.is_empty() {
                let list: Vec<Failure> = hits
                    .iter()
                    .map(|f| Failure {
                        check: f.check,
                        case: f.case,
                        what: f.what.clone(),
                        repro: f.repro.clone(),
                    })
                    .collect();
                let mut cases: Vec<usize> = hits.iter().map(|f| f.case).collect();
                cases.dedup();
                println!("  known failure {} ({} cases): {}", k.id, cases.len(), summarize(&list));
                if std::env::var_os("QUERY_MATRIX_VERBOSE").is_some() {
                    println!("    {}", k.what);
                    print!("{}", details(&list));
                }
            }
        }
        if !self.failures.is_empty() {
            panic!(
                "{:?} x {:?}: {} failures ({})\n{}",
                self.a,
                self.b,
                self.failures.len(),
                summarize(&self.failures),
                details(&self.failures)
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Checks

/// What the reference says about one placement of the pair.
struct Reference {
    ra: RefPlaced,
    rb: RefPlaced,
    intersects: bool,
    /// 0 when intersecting.
    distance: f32,
    /// Within the tolerance of touching.
    borderline: bool,
}

impl Reference {
    fn new(a: &Shape, ma: &Affine3A, b: &Shape, mb: &Affine3A, tol: f32) -> Self {
        let ra = RefPlaced::new(a, ma);
        let rb = RefPlaced::new(b, mb);
        let intersects = reference::intersects(&ra, &rb);
        let distance = if intersects { 0.0 } else { reference::distance(&ra, &rb) };
        let borderline = if intersects { reference::overlap_depth(&ra, &rb) <= tol } else { distance <= tol };
        Reference { ra, rb, intersects, distance, borderline }
    }
}

/// Whether the placed shape is or holds a mesh (mesh-mesh penetration depths are estimates that
/// differ with the operands' order).
fn has_mesh(s: &Shape) -> bool {
    match s {
        Shape::Mesh(_) => true,
        Shape::Compound(c) => c.children().iter().any(|(s, _)| matches!(s, Shape::Mesh(_))),
        _ => false,
    }
}

fn moved(m: &Affine3A, by: Vec3) -> Affine3A {
    let mut out = *m;
    out.translation += glam::Vec3A::from(by);
    out
}

/// The tolerance of exact answers for a case: `TOL` times the largest of the shapes' world box
/// diagonals and translations (see the module).
fn tolerance(case: &Case) -> f32 {
    let scale_of =
        |s: &Shape, m: &Affine3A| RefPlaced::new(s, m).size().max(m.translation.abs().max_element());
    TOL * scale_of(&case.a, &case.ma).max(scale_of(&case.b, &case.mb))
}

/// A world tolerance as a tolerance in the frame of `map`: times the largest stretch of the
/// inverse (bounded by its Frobenius norm).
fn local_tolerance(map: &Affine3A, tol: f32) -> f64 {
    let inverse = glam::Mat3::from(map.matrix3).inverse().as_dmat3();
    let frobenius =
        (inverse.x_axis.length_squared() + inverse.y_axis.length_squared() + inverse.z_axis.length_squared())
            .sqrt();
    f64::from(tol) * frobenius
}

fn unit(v: Vec3) -> bool {
    (v.length() - 1.0).abs() <= 1e-3
}

/// Whether B moved by `t · velocity` intersects A by the reference; `Err` with the depth when
/// it intersects but only within `tol` (borderline).
fn intersects_at(case: &Case, ra: &RefPlaced, t: f32, tol: f32) -> Result<bool, f32> {
    let rb = RefPlaced::new(&case.b, &moved(&case.mb, case.velocity * t));
    if !reference::intersects(ra, &rb) {
        return Ok(false);
    }
    let depth = reference::overlap_depth(ra, &rb);
    if depth <= tol { Err(depth) } else { Ok(true) }
}

fn check_case(case: &Case, cell: &mut Cell) {
    let (a, ma, b, mb) = (&case.a, &case.ma, &case.b, &case.mb);
    let tol = tolerance(case);
    let r = Reference::new(a, ma, b, mb, tol);
    cell.counts.intersecting += r.intersects as usize;
    cell.counts.borderline += r.borderline as usize;

    // intersects
    let hit = query::intersects(a, ma, b, mb);
    let hit_swapped = query::intersects(b, mb, a, ma);
    match (hit, hit_swapped) {
        (Ok(h), Ok(hs)) => {
            if h != r.intersects {
                if r.borderline {
                    cell.counts.borderline_mismatch += 1;
                } else {
                    cell.fail("intersects", case, format!("expected {}, got {h}", r.intersects));
                }
            }
            if hs != h && !r.borderline {
                cell.fail("intersects swapped", case, format!("A, B gives {h}, B, A gives {hs}"));
            }
        }
        other => cell.fail("intersects", case, format!("error {other:?}")),
    }

    // Composites: the library's answers on every pair of leaves (balls, children) together must
    // give the reference answer too (this still checks the leaf pairs where the composite answer
    // itself is a known failure).
    if (is_composite(a) || is_composite(b)) && !r.borderline {
        let parts = parts_intersect(case);
        if parts != r.intersects {
            cell.fail(
                "intersects (parts)",
                case,
                format!("expected {}, the parts give {parts}", r.intersects),
            );
        }
    }

    // distance
    match (query::distance(a, ma, b, mb), query::distance(b, mb, a, ma)) {
        (Ok(d), Ok(ds)) => {
            let ok = if r.intersects && !r.borderline { d == 0.0 } else { (d - r.distance).abs() <= tol };
            if !ok {
                cell.fail("distance", case, format!("expected {}, got {d} (tolerance {tol})", r.distance));
            }
            if (d - ds).abs() > tol {
                cell.fail("distance swapped", case, format!("A, B gives {d}, B, A gives {ds}"));
            }
        }
        other => cell.fail("distance", case, format!("error {other:?}")),
    }

    check_contact(case, cell, &r, tol);
    check_manifolds(case, cell, &r, tol);
    check_cast(case, cell, &r, tol);
}

fn check_contact(case: &Case, cell: &mut Cell, r: &Reference, tol: f32) {
    let (a, ma, b, mb) = (&case.a, &case.ma, &case.b, &case.mb);
    let c = match query::contact(a, ma, b, mb, f32::INFINITY) {
        Ok(Some(c)) => c,
        other => return cell.fail("contact", case, format!("max_distance = ∞ gave {other:?}")),
    };
    if !unit(c.normal) {
        cell.fail("contact", case, format!("normal not unit: {c:?}"));
    }
    let apart = !r.intersects && !r.borderline;
    if apart {
        let gap = c.point_b - c.point_a;
        let (da, db) = (r.ra.point_distance(c.point_a), r.rb.point_distance(c.point_b));
        if (c.separation - r.distance).abs() > tol
            || (gap.length() - c.separation).abs() > tol
            || (c.normal * c.separation - gap).length() > tol
            || da > tol
            || db > tol
        {
            cell.fail(
                "contact",
                case,
                format!(
                    "apart at {}: got {c:?} (point_a {da} from A, point_b {db} from B; tolerance {tol})",
                    r.distance
                ),
            );
        }
    } else if c.separation > tol + if r.borderline { tol } else { 0.0 } {
        cell.fail("contact", case, format!("intersecting (borderline {}): got {c:?}", r.borderline));
    }

    // Two convex shapes: the contact against the f64 shapes of `reference_convex`, which share no
    // code with the narrow phase. The separation along the contact's own normal (`gap`, a lower
    // bound of the signed distance for every direction) must be the claimed separation, no
    // direction found by the reference's dense search may separate more (the claim is the
    // maximum), and the points must lie on the shapes.
    if let (Shape::Convex(x), Shape::Convex(y)) = (a, b)
        && !r.borderline
    {
        let (fa, fb) = (RefShape::new(x, ma), RefShape::new(y, mb));
        let along_normal = reference_convex::gap(&fa, &fb, c.normal.as_dvec3().normalize()) as f32;
        let searched = reference_convex::signed_distance(&fa, &fb) as f32;
        let on_a = fa.contains_within(c.point_a.as_dvec3(), local_tolerance(ma, tol));
        let on_b = fb.contains_within(c.point_b.as_dvec3(), local_tolerance(mb, tol));
        if (along_normal - c.separation).abs() > tol || searched > c.separation + tol || !on_a || !on_b {
            cell.fail(
                "contact (f64 reference)",
                case,
                format!(
                    "got {c:?}: separation along its normal {along_normal}, the reference's search finds \
                     {searched}, point_a on A {on_a}, point_b on B {on_b} (tolerance {tol})"
                ),
            );
        }
    }
    // Composites of convex parts (no mesh): a penetrating contact is the deepest pair of parts
    // (the least narrow-phase contact separation over every pair of pieces).
    if r.intersects && !r.borderline && !has_mesh(a) && !has_mesh(b) && (is_composite(a) || is_composite(b)) {
        let expected = reference::deepest_pair_separation(&r.ra, &r.rb);
        if (c.separation - expected).abs() > tol {
            cell.fail(
                "contact depth",
                case,
                format!("expected separation {expected}, got {c:?} (tolerance {tol})"),
            );
        }
    }

    // A finite max_distance: nothing below the distance, the contact above it; a penetrating
    // pair has a contact for every max_distance.
    if apart && r.distance > 4.0 * tol {
        match query::contact(a, ma, b, mb, r.distance * 0.5) {
            Ok(None) => {}
            other => cell.fail(
                "contact",
                case,
                format!("max_distance {} < distance {}: got {other:?}", r.distance * 0.5, r.distance),
            ),
        }
        let above = r.distance * 1.25 + 2.0 * tol;
        match query::contact(a, ma, b, mb, above) {
            Ok(Some(c)) if (c.separation - r.distance).abs() <= tol => {}
            other => cell.fail(
                "contact",
                case,
                format!("max_distance {above} > distance {}: got {other:?}", r.distance),
            ),
        }
    }
    if r.intersects && !r.borderline {
        match query::contact(a, ma, b, mb, 0.0) {
            Ok(Some(c)) if c.separation <= tol => {}
            other => cell.fail("contact", case, format!("penetrating, max_distance 0: got {other:?}")),
        }
    }

    // Swapped: the mirror (points swapped, normal flipped); a penetrating pair of meshes may
    // give another estimate, then both only need to penetrate.
    let s = match query::contact(b, mb, a, ma, f32::INFINITY) {
        Ok(Some(s)) => s,
        other => return cell.fail("contact swapped", case, format!("got {other:?}")),
    };
    let mesh_estimates = has_mesh(a) && has_mesh(b) && !apart;
    if mesh_estimates {
        if s.separation > 2.0 * tol {
            cell.fail("contact swapped", case, format!("A, B gives {c:?}, B, A gives {s:?}"));
        }
    } else if (s.separation - c.separation).abs() > tol {
        cell.fail("contact swapped", case, format!("A, B gives {c:?}, B, A gives {s:?}"));
    } else if apart
        && ((s.point_a - c.point_b).length() > tol
            || (s.point_b - c.point_a).length() > tol
            || (s.normal + c.normal).length() > 1e-2)
    {
        // Several closest pairs at the same distance (a tie) are all valid: check the swapped
        // one on its own.
        let gap = s.point_a - s.point_b;
        if r.rb.point_distance(s.point_a) <= tol
            && r.ra.point_distance(s.point_b) <= tol
            && (gap.length() - r.distance).abs() <= tol
        {
            cell.counts.swap_ties += 1;
        } else {
            cell.fail("contact swapped", case, format!("A, B gives {c:?}, B, A gives {s:?}"));
        }
    }
}

fn check_manifolds(case: &Case, cell: &mut Cell, r: &Reference, tol: f32) {
    let (a, ma, b, mb) = (&case.a, &case.ma, &case.b, &case.mb);
    let prediction = case.prediction;
    let mut out: Vec<PartManifold> = Vec::new();
    for (swapped, result) in [
        (false, query::contact_manifolds(a, ma, b, mb, prediction, &mut out)),
        (true, query::contact_manifolds(b, mb, a, ma, prediction, &mut Vec::new())),
    ] {
        if let Err(e) = result {
            cell.fail("contact_manifolds", case, format!("swapped {swapped}: error {e:?}"));
        }
    }
    let points: Vec<_> = out.iter().flat_map(|m| m.manifold.points().iter().copied()).collect();
    cell.counts.manifolds_nonempty += !points.is_empty() as usize;
    let within = r.intersects || r.distance <= prediction;
    if !r.borderline {
        if !within && r.distance > prediction + tol && !points.is_empty() {
            cell.fail(
                "contact_manifolds",
                case,
                format!("distance {} > prediction {prediction}, got {out:?}", r.distance),
            );
        }
        if (r.intersects || r.distance < prediction - tol) && points.is_empty() {
            cell.fail(
                "contact_manifolds",
                case,
                format!(
                    "distance {} (intersecting {}) within prediction {prediction}, got none",
                    r.distance, r.intersects
                ),
            );
        }
    }
    // With a mesh, a contact on a triangle's internal edge is turned to the face normal and its
    // separation measured along it: the distance to the triangle's plane, which may be less than
    // the distance to the triangle, so only the upper bound applies.
    let with_mesh = has_mesh(a) || has_mesh(b);
    for m in &out {
        if m.manifold.is_empty() || !unit(m.manifold.normal) {
            cell.fail("contact_manifolds", case, format!("empty manifold or normal not unit: {m:?}"));
        }
        for p in m.manifold.points() {
            // No point claims more than the prediction, and when apart none is closer than the
            // distance (the points lie on the shapes, the normal separates their pieces).
            let too_close = !with_mesh && !r.intersects && p.separation < r.distance - tol;
            if p.separation > prediction + tol || too_close {
                cell.fail(
                    "contact_manifolds",
                    case,
                    format!("point {p:?} (distance {}, prediction {prediction}) in {m:?}", r.distance),
                );
            }
        }
    }
}

fn check_cast(case: &Case, cell: &mut Cell, r: &Reference, tol: f32) {
    let (a, ma, b, mb) = (&case.a, &case.ma, &case.b, &case.mb);
    let max_t = 1.0f32;
    let speed = case.velocity.length();
    let tol_t = tol / speed.max(f32::MIN_POSITIVE);
    let hit = match query::cast_shape(a, ma, b, mb, case.velocity, max_t) {
        Ok(h) => h,
        Err(e) => return cell.fail("cast_shape", case, format!("error {e:?}")),
    };
    // The grid of times at which B must not intersect A.
    let end = match hit {
        Some(h) => h.t - tol_t,
        None => max_t,
    };
    if let Some(h) = hit {
        cell.counts.cast_hits += 1;
        cell.counts.cast_hits_at_zero += (h.t == 0.0) as usize;
        if !(0.0..=max_t).contains(&h.t) || !unit(h.contact.normal) {
            cell.fail("cast_shape", case, format!("bad hit {h:?}"));
        }
        let rb = RefPlaced::new(b, &moved(mb, case.velocity * h.t));
        let d = reference::distance(&r.ra, &rb);
        if h.contact.separation <= tol {
            if d > tol {
                cell.fail(
                    "cast_shape",
                    case,
                    format!("hit {h:?}, but the distance then is {d} (tolerance {tol})"),
                );
            }
        } else {
            // Stopped after its step limit still apart: documented; the reported separation
            // must still be the distance then.
            cell.counts.cast_unconverged += 1;
            if (d - h.contact.separation).abs() > tol {
                cell.fail("cast_shape", case, format!("unconverged hit {h:?}, but the distance then is {d}"));
            }
        }
    }
    if end >= 0.0 {
        for k in 0..CAST_STEPS {
            let t = end * k as f32 / (CAST_STEPS - 1) as f32;
            match intersects_at(case, &r.ra, t, tol) {
                Ok(false) => {}
                Ok(true) => {
                    cell.fail(
                        "cast_shape",
                        case,
                        format!("got {hit:?}, but B moved by t = {t} already intersects A (tolerance in t {tol_t})"),
                    );
                    break;
                }
                Err(_) => cell.counts.cast_borderline += 1,
            }
        }
    }
}

/// Field cells: `intersects` against the sampled reference; everything else `Unsupported`.
fn check_field_case(case: &Case, cell: &mut Cell) {
    let (a, ma, b, mb) = (&case.a, &case.ma, &case.b, &case.mb);
    let (ra, rb) = (RefPlaced::new(a, ma), RefPlaced::new(b, mb));
    let sampled = reference::sampled_overlap(&ra, &rb, FIELD_GRID);
    cell.counts.intersecting += (sampled.common > 0) as usize;
    let answers = [(false, query::intersects(a, ma, b, mb)), (true, query::intersects(b, mb, a, ma))];
    // The branch and bound may settle a near-touching pair differently in the two orders (both
    // answers are then checked against the samples).
    cell.counts.field_swap_differs += (answers[0].1 != answers[1].1) as usize;
    for (swapped, result) in answers {
        match result {
            Ok(false) if sampled.common > 0 => cell.fail(
                "intersects",
                case,
                format!(
                    "swapped {swapped}: false, but {} of {} samples lie in both",
                    sampled.common, sampled.total
                ),
            ),
            Ok(true) if sampled.common == 0 && !swapped => cell.counts.field_unsampled_true += 1,
            Ok(_) => {}
            Err(e) => cell.fail("intersects", case, format!("swapped {swapped}: error {e:?}")),
        }
    }
    if is_composite(a) || is_composite(b) {
        let parts = parts_intersect(case);
        if !parts && sampled.common > 0 {
            cell.fail(
                "intersects (parts)",
                case,
                format!(
                    "the parts give false, but {} of {} samples lie in both",
                    sampled.common, sampled.total
                ),
            );
        }
    }
    let unsupported = |result: Result<(), QueryError>, query: &str, first: Kind, second: Kind| match result {
        Err(QueryError::Unsupported { query: q, a, b }) if q == query && a == first && b == Some(second) => {
            None
        }
        Err(QueryError::Unsupported { query: q, a, b }) => Some((
            "unsupported kinds",
            format!(
                "{query}: Unsupported names {q:?} for {a:?} and {b:?}, expected {first:?} and {second:?}"
            ),
        )),
        other => Some(("unsupported", format!("{query}: expected Unsupported, got {other:?}"))),
    };
    let (ka, kb) = (a.kind(), b.kind());
    let v = case.velocity;
    let mut out = Vec::new();
    let results = [
        unsupported(query::contact(a, ma, b, mb, f32::INFINITY).map(drop), "contact", ka, kb),
        unsupported(query::contact(b, mb, a, ma, case.prediction).map(drop), "contact", kb, ka),
        unsupported(
            query::contact_manifolds(a, ma, b, mb, case.prediction, &mut out),
            "contact_manifolds",
            ka,
            kb,
        ),
        unsupported(
            query::contact_manifolds(b, mb, a, ma, case.prediction, &mut out),
            "contact_manifolds",
            kb,
            ka,
        ),
        unsupported(query::distance(a, ma, b, mb).map(drop), "distance", ka, kb),
        unsupported(query::distance(b, mb, a, ma).map(drop), "distance", kb, ka),
        unsupported(query::cast_shape(a, ma, b, mb, v, 1.0).map(drop), "cast_shape", ka, kb),
        unsupported(query::cast_shape(b, mb, a, ma, -v, 1.0).map(drop), "cast_shape", kb, ka),
    ];
    for (check, what) in results.into_iter().flatten() {
        cell.fail(check, case, what);
    }
}

/// NaN placements name their operand; singular ones too where the query must invert them
/// (every kind but convex shapes, which stay valid flattened).
fn check_bad_input(case: &Case, cell: &mut Cell) {
    let (a, ma, b, mb) = (&case.a, &case.ma, &case.b, &case.mb);
    let nan = Affine3A::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
    let mut nan_matrix = *ma;
    nan_matrix.matrix3.y_axis.z = f32::INFINITY;
    let flat = |m: &Affine3A| {
        Affine3A::from_mat3_translation(
            Mat3::from(m.matrix3) * Mat3::from_diagonal(Vec3::new(1.0, 1.0, 0.0)),
            m.translation.into(),
        )
    };
    let run = |ma: &Affine3A, mb: &Affine3A| -> [(&'static str, Result<(), QueryError>); 5] {
        let mut out = Vec::new();
        [
            ("intersects", query::intersects(a, ma, b, mb).map(drop)),
            ("contact", query::contact(a, ma, b, mb, f32::INFINITY).map(drop)),
            ("contact_manifolds", query::contact_manifolds(a, ma, b, mb, case.prediction, &mut out)),
            ("distance", query::distance(a, ma, b, mb).map(drop)),
            ("cast_shape", query::cast_shape(a, ma, b, mb, case.velocity, 1.0).map(drop)),
        ]
    };
    // NaN arguments name themselves.
    let mut out = Vec::new();
    let v = case.velocity;
    for (query, result, expected) in [
        ("contact", query::contact(a, ma, b, mb, f32::NAN).map(drop), "max_distance"),
        ("contact_manifolds", query::contact_manifolds(a, ma, b, mb, f32::NAN, &mut out), "prediction"),
        (
            "cast_shape",
            query::cast_shape(a, ma, b, mb, Vec3::new(f32::NAN, v.y, v.z), 1.0).map(drop),
            "velocity",
        ),
        ("cast_shape", query::cast_shape(a, ma, b, mb, v, f32::NAN).map(drop), "max_t"),
    ] {
        if result != Err(QueryError::NonFiniteArgument(expected)) {
            cell.fail("bad input", case, format!("{query} with a NaN {expected}: got {result:?}"));
        }
    }
    let mut expect = |ma: &Affine3A, mb: &Affine3A, expected: QueryError, what: &str| {
        for (query, result) in run(ma, mb) {
            if result != Err(expected) {
                cell.fail(
                    "bad input",
                    case,
                    format!("{query} with {what}: expected {expected:?}, got {result:?}"),
                );
            }
        }
    };
    expect(&nan, mb, QueryError::NonFinitePlacement(Operand::A), "a NaN placement of A");
    expect(
        &nan_matrix,
        mb,
        QueryError::NonFinitePlacement(Operand::A),
        "an infinite matrix entry in A's placement",
    );
    expect(ma, &nan, QueryError::NonFinitePlacement(Operand::B), "a NaN placement of B");
    expect(&nan, &nan, QueryError::NonFinitePlacement(Operand::A), "NaN placements of both");
    if a.kind() != Kind::Convex {
        expect(&flat(ma), mb, QueryError::SingularPlacement(Operand::A), "a singular placement of A");
    }
    if b.kind() != Kind::Convex {
        expect(ma, &flat(mb), QueryError::SingularPlacement(Operand::B), "a singular placement of B");
    }
    // A flattened convex shape is still a shape: no error (but where a field takes part).
    if a.kind() == Kind::Convex && b.kind() != Kind::Field {
        for (query, result) in run(&flat(ma), mb) {
            if let Err(e) = result {
                cell.fail("bad input", case, format!("{query} with a flattened convex A: error {e:?}"));
            }
        }
    }
    if b.kind() == Kind::Convex && a.kind() != Kind::Field {
        for (query, result) in run(ma, &flat(mb)) {
            if let Err(e) = result {
                cell.fail("bad input", case, format!("{query} with a flattened convex B: error {e:?}"));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Signatures of the known failures

/// The leaves of a placed shape (convex shapes, meshes, fields): a sphere set's balls, a
/// compound's children's leaves, with their world placements.
fn leaves(shape: &Shape, map: &Affine3A, out: &mut Vec<(Shape, Affine3A)>) {
    match shape {
        Shape::SphereSet(set) => {
            for ball in set.spheres() {
                let at = *map * Affine3A::from_translation(ball.center);
                out.push((Shape::Convex(kollide::shape::Ball::new(ball.radius).into()), at));
            }
        }
        Shape::Compound(compound) => {
            for (child, to_compound) in compound.children() {
                leaves(child, &(*map * *to_compound), out);
            }
        }
        _ => out.push((shape.clone(), *map)),
    }
}

fn leaves_of(shape: &Shape, map: &Affine3A) -> Vec<(Shape, Affine3A)> {
    let mut out = Vec::new();
    leaves(shape, map, &mut out);
    out
}

fn is_composite(s: &Shape) -> bool {
    matches!(s, Shape::SphereSet(_) | Shape::Compound(_))
}

/// Whether some leaf of A intersects some leaf of B, by the library, in both orders.
fn parts_intersect(case: &Case) -> bool {
    let (la, lb) = (leaves_of(&case.a, &case.ma), leaves_of(&case.b, &case.mb));
    la.iter().any(|(x, mx)| {
        lb.iter().any(|(y, my)| {
            query::intersects(x, mx, y, my) == Ok(true) || query::intersects(y, my, x, mx) == Ok(true)
        })
    })
}

/// Two convex shapes, one curved, penetrate, and the contact's separation is not the separation
/// along its own normal.
fn epa_inconsistent(case: &Case) -> bool {
    let (Shape::Convex(x), Shape::Convex(y)) = (&case.a, &case.b) else { return false };
    let polytope = |s: &ConvexShape| {
        matches!(s, ConvexShape::Cuboid(_) | ConvexShape::Triangle(_) | ConvexShape::Hull(_))
    };
    let Ok(Some(c)) = query::contact(&case.a, &case.ma, &case.b, &case.mb, f32::INFINITY) else {
        return false;
    };
    let (fa, fb) = (RefShape::new(x, &case.ma), RefShape::new(y, &case.mb));
    let along_normal = reference_convex::gap(&fa, &fb, c.normal.as_dvec3().normalize()) as f32;
    !(polytope(x) && polytope(y))
        && c.separation < 0.0
        && (along_normal - c.separation).abs() > tolerance(case)
}

// ---------------------------------------------------------------------------------------------
// The cells

fn run_cell(ka: Kind, kb: Kind) {
    let index = |k: Kind| Kind::ALL.iter().position(|&x| x == k).unwrap() as u64;
    let seed = 0x6d61_7472_6978_0000 + 16 * index(ka) + index(kb);
    let meshes = meshes();
    let mut cell =
        Cell { a: ka, b: kb, seed, counts: Counts::default(), failures: Vec::new(), known: Vec::new() };
    let field = ka == Kind::Field || kb == Kind::Field;
    for i in 0..cases() {
        let case = make_case(ka, kb, seed, i, meshes);
        cell.counts.cases += 1;
        if field {
            check_field_case(&case, &mut cell);
        } else {
            check_case(&case, &mut cell);
        }
        check_bad_input(&case, &mut cell);
    }
    // Not vacuous: both intersecting and separated cases, in a useful proportion, and for the
    // exact cells both hits and misses of casts and both empty and non-empty manifolds.
    let c = &cell.counts;
    let share = c.intersecting as f64 / c.cases.max(1) as f64;
    let mut vacuous = Vec::new();
    if !(0.2..=0.7).contains(&share) {
        vacuous.push(format!("intersecting share {share:.2} outside [0.2, 0.7]"));
    }
    if !field {
        let cast = c.cast_hits as f64 / c.cases.max(1) as f64;
        let manifolds = c.manifolds_nonempty as f64 / c.cases.max(1) as f64;
        if !(0.1..=0.9).contains(&cast) {
            vacuous.push(format!("cast hit share {cast:.2} outside [0.1, 0.9]"));
        }
        if !(0.1..=0.9).contains(&manifolds) {
            vacuous.push(format!("non-empty manifold share {manifolds:.2} outside [0.1, 0.9]"));
        }
    } else if c.field_unsampled_true as f64 > FIELD_CONSERVATIVE_SHARE * c.cases as f64 {
        vacuous.push(format!(
            "{} of {} cases answer true without a common sample (more than {FIELD_CONSERVATIVE_SHARE})",
            c.field_unsampled_true, c.cases
        ));
    }
    for what in vacuous {
        cell.failures.push(Failure { check: "coverage", case: c.cases, what, repro: String::new() });
    }
    cell.finish();
}

macro_rules! cells {
    ($($name:ident: $a:ident x $b:ident,)*) => {
        $(
            #[test]
            fn $name() {
                run_cell(Kind::$a, Kind::$b);
            }
        )*
    };
}

cells! {
    convex_x_convex: Convex x Convex,
    convex_x_mesh: Convex x Mesh,
    convex_x_sphere_set: Convex x SphereSet,
    convex_x_field: Convex x Field,
    convex_x_compound: Convex x Compound,
    mesh_x_convex: Mesh x Convex,
    mesh_x_mesh: Mesh x Mesh,
    mesh_x_sphere_set: Mesh x SphereSet,
    mesh_x_field: Mesh x Field,
    mesh_x_compound: Mesh x Compound,
    sphere_set_x_convex: SphereSet x Convex,
    sphere_set_x_mesh: SphereSet x Mesh,
    sphere_set_x_sphere_set: SphereSet x SphereSet,
    sphere_set_x_field: SphereSet x Field,
    sphere_set_x_compound: SphereSet x Compound,
    field_x_convex: Field x Convex,
    field_x_mesh: Field x Mesh,
    field_x_sphere_set: Field x SphereSet,
    field_x_field: Field x Field,
    field_x_compound: Field x Compound,
    compound_x_convex: Compound x Convex,
    compound_x_mesh: Compound x Mesh,
    compound_x_sphere_set: Compound x SphereSet,
    compound_x_field: Compound x Field,
    compound_x_compound: Compound x Compound,
}

#[test]
fn known_failures_are_listed() {
    for k in KNOWN_FAILURES {
        println!("KNOWN_FAILURES {}: checks {:?} in cells {:?}\n  {}", k.id, k.checks, k.cells, k.what);
        assert!(!k.cells.is_empty() && !k.checks.is_empty());
    }
}

#[test]
fn the_matrix_covers_every_pair_of_kinds() {
    // The macro above lists 25 cells; this pins that Kind has the 5 kinds they name.
    assert_eq!(Kind::ALL.len(), 5);
}

/// Prints one case in detail: `QUERY_MATRIX_PROBE="SphereSet SphereSet 5" cargo test --test
/// query_matrix probe -- --ignored --nocapture`.
#[test]
#[ignore]
fn probe() {
    let spec = std::env::var("QUERY_MATRIX_PROBE").expect("QUERY_MATRIX_PROBE=\"A B index\"");
    let words: Vec<&str> = spec.split_whitespace().collect();
    let kind = |w: &str| *Kind::ALL.iter().find(|k| format!("{k:?}") == w).expect("a kind");
    let (ka, kb, index) = (kind(words[0]), kind(words[1]), words[2].parse::<usize>().unwrap());
    let position = |k: Kind| Kind::ALL.iter().position(|&x| x == k).unwrap() as u64;
    let seed = 0x6d61_7472_6978_0000 + 16 * position(ka) + position(kb);
    let case = make_case(ka, kb, seed, index, meshes());
    println!("{}", case.repro());
    let (a, ma, b, mb) = (&case.a, &case.ma, &case.b, &case.mb);
    let (ra, rb) = (RefPlaced::new(a, ma), RefPlaced::new(b, mb));
    println!("bounds A {:?} / query {:?}", ra.bounds(), query::bounds(a, ma));
    println!("bounds B {:?} / query {:?}", rb.bounds(), query::bounds(b, mb));
    if ka != Kind::Field && kb != Kind::Field {
        for (i, p) in ra.pieces().iter().enumerate() {
            for (j, q) in rb.pieces().iter().enumerate() {
                let mut cache = Default::default();
                if kollide::narrow::intersects(&p.shape, &p.map, &q.shape, &q.map, &mut cache).unwrap() {
                    println!(
                        "pieces {i} x {j} intersect: {:?} at {:?} / {:?} at {:?}",
                        p.shape, p.map, q.shape, q.map
                    );
                }
            }
        }
        for p in ra.points() {
            if rb.contains(*p) {
                println!("point {p} of A in B");
            }
        }
        for p in rb.points() {
            if ra.contains(*p) {
                println!("point {p} of B in A");
            }
        }
        for (i, (x, mx)) in leaves_of(a, ma).iter().enumerate() {
            for (j, (y, my)) in leaves_of(b, mb).iter().enumerate() {
                println!(
                    "leaves {i} x {j}: intersects {:?}, distance {:?}",
                    query::intersects(x, mx, y, my),
                    query::distance(x, mx, y, my)
                );
            }
        }
        println!(
            "reference: intersects {}, distance {}, depth {}",
            reference::intersects(&ra, &rb),
            reference::distance(&ra, &rb),
            reference::overlap_depth(&ra, &rb)
        );
        println!("intersects {:?} / {:?}", query::intersects(a, ma, b, mb), query::intersects(b, mb, a, ma));
        println!("distance {:?} / {:?}", query::distance(a, ma, b, mb), query::distance(b, mb, a, ma));
        println!(
            "contact {:?}\n   swapped {:?}",
            query::contact(a, ma, b, mb, f32::INFINITY),
            query::contact(b, mb, a, ma, f32::INFINITY)
        );
        let mut out = Vec::new();
        println!("manifolds {:?} {out:?}", query::contact_manifolds(a, ma, b, mb, case.prediction, &mut out));
        println!("cast {:?}", query::cast_shape(a, ma, b, mb, case.velocity, 1.0));
    } else {
        println!("sampled {:?}", reference::sampled_overlap(&ra, &rb, FIELD_GRID));
        println!("intersects {:?} / {:?}", query::intersects(a, ma, b, mb), query::intersects(b, mb, a, ma));
    }
}
