//! The 2D narrow phase over support maps (`gjk_distance2`, `gjk_intersects2`, `contact2`,
//! `cast_shapes2`, `cast_ray_support2`) against the `f64` references of
//! `kollide_testkit::reference_convex2`: random convex polygons (hulls of 3 to 12 random points,
//! some squashed into needles), segments, points and ellipses (the unit disk under a random 2x2
//! matrix), each with a margin of zero or a random radius, near the origin and `1e4` away from it;
//! then bad input, degenerate pairs and warm starts.
//!
//! Tolerances (see `tolerance`): polygons `1e-6` of the pair's size plus `1e-6` of the
//! coordinates (the rounding of `f32` support points); pairs with an ellipse `1e-5` of the size
//! plus `2e-6` of the coordinates (GJK's and EPA's stated `1e-6` of the distance or depth).

use glam::{DVec2, Mat2, Vec2};
use kollide::math::Ray2;
use kollide::narrow::{
    CastHit2, GjkCache2, cast_ray_support2, cast_shapes2, gjk_distance2, gjk_intersects2,
    penetration2 as contact2,
};
use kollide::shape::SupportMap2;
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_convex2::{
    RefShape2, convex_hull2, first_reach2, gap2, polygon_depth2, polygon_distance2, polygons_overlap2,
    ray_entry2, ray_rounded_polygon2, ray_support2, signed_distance2,
};
use rand::Rng;

fn rng(seed: u64) -> TestRng {
    random::rng(0x0616_be92 ^ seed)
}

/// A shape core as the lead's 2D shapes give them: a polygon's vertices (a point, a segment or a
/// counter-clockwise hull) or a disk under a linear map.
#[derive(Clone, Debug)]
enum Core {
    Polygon(Vec<Vec2>),
    Ellipse { center: Vec2, matrix: Mat2 },
}

impl SupportMap2 for Core {
    fn support(&self, dir: Vec2) -> Vec2 {
        match self {
            Core::Polygon(v) => {
                v.iter().copied().reduce(|best, p| if p.dot(dir) > best.dot(dir) { p } else { best }).unwrap()
            }
            // support(M·disk, d) = M · normalize(Mᵀ d).
            Core::Ellipse { center, matrix } => {
                *center + *matrix * (matrix.transpose() * dir).normalize_or_zero()
            }
        }
    }
}

#[derive(Clone, Debug)]
struct Shape {
    core: Core,
    margin: f32,
}

impl Shape {
    fn reference(&self) -> RefShape2 {
        match &self.core {
            Core::Polygon(v) => RefShape2::polygon(v, self.margin),
            Core::Ellipse { center, matrix } => RefShape2::ellipse(*center, *matrix, self.margin),
        }
    }

    /// The largest coordinate magnitude of the core's support points along the axes.
    fn coordinates(&self) -> f64 {
        [Vec2::X, Vec2::Y, Vec2::NEG_X, Vec2::NEG_Y]
            .iter()
            .map(|&d| self.core.support(d).abs().max_element() as f64 + self.margin as f64)
            .fold(0.0, f64::max)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Polygon,
    Segment,
    Point,
    Ellipse,
}

const POLYGONAL: [Kind; 4] = [Kind::Polygon, Kind::Polygon, Kind::Segment, Kind::Point];
const ANY: [Kind; 5] = [Kind::Polygon, Kind::Segment, Kind::Point, Kind::Ellipse, Kind::Ellipse];

fn core(rng: &mut TestRng, kind: Kind, center: Vec2, size: f32) -> Core {
    match kind {
        Kind::Polygon => loop {
            let n = rng.random_range(3..=12);
            let mut points: Vec<Vec2> = (0..n).map(|_| random::point2(rng, size)).collect();
            if rng.random_bool(0.1) {
                // A needle: squashed to a thousandth across a random direction.
                let (s, c) = rng.random_range(0.0..std::f32::consts::PI).sin_cos();
                let axis = Vec2::new(c, s);
                for p in &mut points {
                    *p -= axis * (axis.dot(*p) * 0.999);
                }
            }
            let hull = convex_hull2(&points.iter().map(|p| *p + center).collect::<Vec<_>>());
            if hull.len() >= 3 {
                break Core::Polygon(hull);
            }
        },
        Kind::Segment => {
            Core::Polygon(vec![center + random::point2(rng, size), center + random::point2(rng, size)])
        }
        Kind::Point => Core::Polygon(vec![center + random::point2(rng, 0.1 * size)]),
        Kind::Ellipse => {
            // M = R(α) · diag(s₁, s₂) · R(β), axis ratio at most 1:20.
            let rot = |a: f32| Mat2::from_angle(a);
            let s1 = rng.random_range(0.1..1.0) * size;
            let s2 = s1 * rng.random_range(0.05..1.0);
            let (alpha, beta) = (rng.random_range(0.0..6.3), rng.random_range(0.0..6.3));
            let m = rot(alpha) * Mat2::from_diagonal(Vec2::new(s1, s2)) * rot(beta);
            Core::Ellipse { center, matrix: m }
        }
    }
}

fn shape(rng: &mut TestRng, kinds: &[Kind], center: Vec2) -> Shape {
    let kind = kinds[rng.random_range(0..kinds.len())];
    let size = rng.random_range(0.2..1.5);
    let core = core(rng, kind, center, size);
    let margin = if rng.random_bool(0.5) { 0.0 } else { rng.random_range(0.0..0.3) * size };
    Shape { core, margin }
}

/// A pair of shapes around one centre, B offset by up to `spread` per axis; one pair in eight far
/// from the origin (both moved by up to `1e4`).
fn pair(rng: &mut TestRng, kinds_a: &[Kind], kinds_b: &[Kind], spread: f32) -> (Shape, Shape) {
    let far = rng.random_bool(0.125);
    let center = random::point2(rng, if far { 1e4 } else { 1.0 });
    let a = shape(rng, kinds_a, center);
    let offset = random::point2(rng, spread);
    let b = shape(rng, kinds_b, center + offset);
    if rng.random_bool(0.5) { (a, b) } else { (b, a) }
}

/// Polygons: `1e-6` of the pair's size plus `1e-6` of the coordinates; ellipses `1e-5` of the size
/// and `2e-6` of the coordinates (which bound the distance: GJK's `1e-6` of it).
fn tolerance(a: &Shape, b: &Shape) -> f64 {
    let (ra, rb) = (a.reference(), b.reference());
    let smooth = matches!(a.core, Core::Ellipse { .. }) || matches!(b.core, Core::Ellipse { .. });
    let (relative, rounding) = if smooth { (1e-5, 2e-6) } else { (1e-6, 1e-6) };
    relative * (ra.size() + rb.size()) + rounding * a.coordinates().max(b.coordinates())
}

/// The signed distance of the cores (`-depth` when they overlap), exact for polygons.
fn core_signed_distance(a: &RefShape2, b: &RefShape2) -> f64 {
    match (a.vertices(), b.vertices()) {
        (Some(va), Some(vb)) if polygons_overlap2(va, vb) => -polygon_depth2(va, vb).0,
        (Some(va), Some(vb)) => polygon_distance2(va, vb),
        _ => signed_distance2(&a.core_only(), &b.core_only()).0,
    }
}

/// Checks a `gjk_distance2` answer against the reference; returns whether the cores overlap.
fn check_distance(a: &Shape, b: &Shape, case: usize) -> bool {
    let (ra, rb) = (a.reference(), b.reference());
    let tol = tolerance(a, b);
    let margins = (a.margin + b.margin) as f64;
    let d = gjk_distance2(&a.core, a.margin, &b.core, b.margin, &mut GjkCache2::default());
    let core = core_signed_distance(&ra, &rb);
    let expected = (core - margins).max(0.0);
    assert!(
        (d.distance as f64 - expected).abs() <= tol,
        "case {case}: distance {} vs {expected} ({a:?}, {b:?})",
        d.distance
    );
    if core.abs() > tol {
        assert_eq!(d.cores_overlap, core < 0.0, "case {case}: cores_overlap vs {core} ({a:?}, {b:?})");
    }
    let (pa, pb, n) = (d.point_a.as_dvec2(), d.point_b.as_dvec2(), d.normal.as_dvec2());
    if d.cores_overlap {
        assert!(d.distance == 0.0 && d.normal == Vec2::ZERO && d.point_a == d.point_b, "case {case}: {d:?}");
        for r in [&ra, &rb] {
            let off = r.core_only().signed_distance_to_point(pa);
            assert!(off <= tol, "case {case}: {pa} {off} outside a core ({a:?}, {b:?}) {d:?}");
        }
    } else {
        assert!((n.length() - 1.0).abs() <= 1e-5, "case {case}: normal {n}");
        // The normal achieves the cores' distance (it is the separating direction), and the
        // points are on the full shapes' surfaces, `core - margins` apart along it.
        let gap = gap2(&ra.core_only(), &rb.core_only(), n);
        assert!(gap >= core - tol, "case {case}: gap {gap} along {n}, distance {core} ({a:?}, {b:?}) {d:?}");
        assert!(((pb - pa) - n * (core - margins)).length() <= 2.0 * tol, "case {case}: points {pa} {pb}");
        assert!(ra.signed_distance_to_point(pa).abs() <= tol, "case {case}: {pa} not on A");
        assert!(rb.signed_distance_to_point(pb).abs() <= tol, "case {case}: {pb} not on B");
    }
    d.cores_overlap
}

#[test]
fn distance_of_polygons_segments_and_points_matches_the_exact_reference() {
    let mut rng = rng(1);
    let mut overlapping = 0;
    let n = cases(20_000);
    for case in 0..n {
        let (a, b) = pair(&mut rng, &POLYGONAL, &POLYGONAL, 1.5);
        overlapping += usize::from(check_distance(&a, &b, case));
    }
    assert!(overlapping > n / 10 && overlapping < n * 9 / 10, "{overlapping} of {n} overlapping");
}

#[test]
fn distance_of_ellipses_matches_the_direction_search() {
    let mut rng = rng(2);
    let mut overlapping = 0;
    let n = cases(10_000);
    for case in 0..n {
        let (a, b) = pair(&mut rng, &[Kind::Ellipse], &ANY, 1.5);
        overlapping += usize::from(check_distance(&a, &b, case));
    }
    assert!(overlapping > n / 10 && overlapping < n * 9 / 10, "{overlapping} of {n} overlapping");
}

#[test]
fn intersects_agrees_with_the_reference_outside_a_band() {
    let mut rng = rng(3);
    let (mut decided, mut yes) = (0, 0);
    for case in 0..cases(20_000) {
        let (a, b) = pair(&mut rng, &ANY, &ANY, 1.5);
        let (ra, rb) = (a.reference(), b.reference());
        let full = core_signed_distance(&ra, &rb) - (a.margin + b.margin) as f64;
        let got = gjk_intersects2(&a.core, a.margin, &b.core, b.margin, &mut GjkCache2::default());
        let distance =
            gjk_distance2(&a.core, a.margin, &b.core, b.margin, &mut GjkCache2::default()).distance;
        let tol = tolerance(&a, &b);
        if full.abs() > tol {
            assert_eq!(
                got,
                full <= 0.0,
                "case {case}: intersects {got}, signed distance {full} ({a:?}, {b:?})"
            );
            assert_eq!(got, distance == 0.0, "case {case}: intersects {got}, distance {distance}");
            decided += 1;
            yes += usize::from(got);
        }
    }
    assert!(
        decided > cases(19_000) && yes > decided / 10 && yes < decided * 9 / 10,
        "{decided} decided, {yes} overlapping"
    );
}

/// Checks a `contact2` answer against the reference signed distance (exact for polygons).
fn check_contact(a: &Shape, b: &Shape, case: usize) -> bool {
    let (ra, rb) = (a.reference(), b.reference());
    let tol = tolerance(a, b);
    let margins = (a.margin + b.margin) as f64;
    let c = contact2(&a.core, a.margin, &b.core, b.margin, &mut GjkCache2::default());
    let core = core_signed_distance(&ra, &rb);
    let expected = core - margins;
    let sep = c.separation as f64;
    assert!((sep - expected).abs() <= tol, "case {case}: separation {sep} vs {expected} ({a:?}, {b:?})");
    let (pa, pb, n) = (c.point_a.as_dvec2(), c.point_b.as_dvec2(), c.normal.as_dvec2());
    assert!((n.length() - 1.0).abs() <= 1e-5, "case {case}: normal {n}");
    assert!(((pb - pa) - n * sep).length() <= 2.0 * tol, "case {case}: {pb} - {pa} vs {sep} {n}");
    // The normal is the best direction: the gap along it is the signed distance.
    let gap = gap2(&ra, &rb, n);
    assert!(gap >= expected - tol, "case {case}: gap {gap} along {n} vs {expected} ({a:?}, {b:?})");
    // The points are the full shapes' extreme points along the normal.
    assert!((ra.support_value(n) - n.dot(pa)).abs() <= tol, "case {case}: {pa} not A's support along {n}");
    assert!(
        (rb.support_value(-n) + n.dot(pb)).abs() <= tol,
        "case {case}: {pb} not B's support along {}",
        -n
    );
    assert!(ra.signed_distance_to_point(pa).abs() <= tol, "case {case}: {pa} not on A ({a:?}, {b:?}) {c:?}");
    assert!(rb.signed_distance_to_point(pb).abs() <= tol, "case {case}: {pb} not on B ({a:?}, {b:?}) {c:?}");
    if sep < 0.0 {
        // Moving B by the depth (and a little more) along the normal separates the shapes.
        let moved = rb.translated(n * (-sep + 2.0 * tol));
        let after = core_signed_distance(&ra, &moved) - margins;
        assert!(after > 0.0, "case {case}: still {after} after moving B by the depth {}", -sep);
    }
    core < 0.0
}

#[test]
fn contact_of_polygons_matches_the_separating_axis_depth() {
    let mut rng = rng(4);
    let mut deep = 0;
    let n = cases(20_000);
    for case in 0..n {
        let (a, b) = pair(&mut rng, &POLYGONAL, &POLYGONAL, 0.8);
        deep += usize::from(check_contact(&a, &b, case));
    }
    assert!(deep > n / 3, "only {deep} of {n} with overlapping cores");
}

#[test]
fn contact_of_ellipses_matches_the_direction_search() {
    let mut rng = rng(5);
    let mut deep = 0;
    let n = cases(10_000);
    for case in 0..n {
        let (a, b) = pair(&mut rng, &[Kind::Ellipse], &ANY, 0.8);
        deep += usize::from(check_contact(&a, &b, case));
    }
    assert!(deep > n / 3, "only {deep} of {n} with overlapping cores");
}

/// Deep overlaps of round shapes near each other's centres: the depth varies slowly with the
/// direction, EPA's edges converge slowly (it may stop at its cap and refine its best direction),
/// and any direction near the best is nearly as good.
#[test]
fn contact_of_deeply_overlapping_round_shapes() {
    let mut rng = rng(10);
    for case in 0..cases(10_000) {
        let spread = if rng.random_bool(0.125) { 1e4 } else { 1.0 };
        let center = random::point2(&mut rng, spread);
        let size = rng.random_range(0.5..1.5);
        let matrix = Mat2::from_angle(rng.random_range(0.0..6.3))
            * Mat2::from_diagonal(Vec2::new(size, size * rng.random_range(0.7..1.0)));
        let a = Shape { core: Core::Ellipse { center, matrix }, margin: 0.0 };
        let inner = center + random::point2(&mut rng, 0.1 * size);
        let b = match rng.random_range(0..4) {
            0 => Shape { core: Core::Polygon(vec![inner]), margin: 0.0 },
            1 => Shape { core: Core::Ellipse { center: inner, matrix: matrix * 0.3 }, margin: 0.0 },
            k => Shape {
                core: core(&mut rng, [Kind::Polygon, Kind::Segment][k - 2], inner, 0.2 * size),
                margin: 0.0,
            },
        };
        let (a, b) = if rng.random_bool(0.5) { (a, b) } else { (b, a) };
        assert!(check_contact(&a, &b, case), "case {case}: the cores should overlap");
    }
}

/// A cast of B toward A, from farther away, aimed near A with some misses.
fn cast_case(rng: &mut TestRng, kinds: &[Kind]) -> (Shape, Shape, Vec2, f32, f32) {
    let (a, b) = pair(rng, kinds, kinds, 4.0);
    let (ca, cb) = (a.core.support(Vec2::X), b.core.support(Vec2::X));
    let aim = (ca - cb) + random::point2(rng, 1.5);
    let max_t = rng.random_range(0.3..2.0);
    let velocity = aim * rng.random_range(0.5..1.5);
    let target = if rng.random_bool(0.5) { 0.0 } else { rng.random_range(0.0..0.2) };
    (a, b, velocity, max_t, target)
}

/// Checks a cast against the first times the reference puts the shapes within `target + tol`
/// (`near`) and deeper than `target - tol` (`deep`): a hit lies between them, a miss only when
/// the sweep never gets deep.
fn check_cast(
    hit: Option<CastHit2>,
    near: Option<f64>,
    deep: Option<f64>,
    tol_t: f64,
    case: usize,
    what: &dyn Fn() -> String,
) -> bool {
    match hit {
        Some(hit) => {
            let t = hit.t as f64;
            let near = near.unwrap_or_else(|| panic!("case {case}: hit at {t}, never near ({})", what()));
            assert!(t >= near - tol_t, "case {case}: hit at {t} before {near} ({})", what());
            if let Some(deep) = deep {
                assert!(t <= deep + tol_t, "case {case}: hit at {t} after {deep} ({})", what());
            }
            assert!((hit.normal.length() - 1.0).abs() <= 1e-5, "case {case}: {hit:?}");
            true
        }
        None => {
            assert!(deep.is_none(), "case {case}: miss, but deep at {deep:?} ({})", what());
            false
        }
    }
}

#[test]
fn cast_of_polygons_matches_bisection_of_the_reference_distance() {
    let mut rng = rng(6);
    let mut hits = 0;
    let n = cases(10_000);
    for case in 0..n {
        let (a, b, velocity, max_t, target) = cast_case(&mut rng, &POLYGONAL);
        let (ra, rb) = (a.reference(), b.reference());
        let tol = tolerance(&a, &b);
        let margins = (a.margin + b.margin) as f64;
        let v = velocity.as_dvec2();
        let va = ra.vertices().unwrap();
        let distance = |t: f64| polygon_distance2(va, rb.translated(v * t).vertices().unwrap()) - margins;
        let level = target as f64;
        let near = first_reach2(distance, level + tol, max_t as f64);
        let deep = first_reach2(distance, level - tol, max_t as f64);
        let hit = cast_shapes2(&a.core, a.margin, &b.core, b.margin, velocity, max_t, target);
        let what = || format!("{a:?}, {b:?}, v {velocity}, max_t {max_t}, target {target}");
        if check_cast(hit, near, deep, 1e-9, case, &what) {
            hits += 1;
            let hit = hit.unwrap();
            let moved = rb.translated(v * hit.t as f64);
            assert!(
                moved.signed_distance_to_point(hit.point.as_dvec2()).abs() <= tol,
                "case {case}: point ({})",
                what()
            );
            let gap = gap2(&ra, &moved, hit.normal.as_dvec2());
            // After a motion, the normal separates the shapes by their distance (the contact at
            // t = 0 is contact2's, checked above).
            let at_hit = distance(hit.t as f64);
            assert!(
                hit.t == 0.0 || gap >= at_hit - 2.0 * tol,
                "case {case}: gap {gap}, distance {at_hit}, {hit:?} ({})",
                what()
            );
        }
    }
    assert!(hits > n / 4 && hits < n * 3 / 4, "{hits} hits of {n}");
}

#[test]
fn cast_of_ellipses_matches_the_reference_entry_time() {
    let mut rng = rng(7);
    let mut hits = 0;
    let n = cases(10_000);
    for case in 0..n {
        let (a, b, velocity, max_t, target) = cast_case(&mut rng, &ANY);
        let (ra, rb) = (a.reference(), b.reference());
        let tol = tolerance(&a, &b);
        // B + t·v within s of A ⇔ t·v ∈ (A - B) ⊕ disk(s), support h_A(u) + h_B(-u) + s.
        let reach = |s: f64| {
            let h = |u: DVec2| ra.support_value(u) + rb.support_value(-u) + s;
            ray_entry2(h, DVec2::ZERO, velocity.as_dvec2(), max_t as f64).map(|(t, _)| t)
        };
        let level = target as f64;
        let (near, deep) = (reach(level + tol), reach(level - tol));
        let hit = cast_shapes2(&a.core, a.margin, &b.core, b.margin, velocity, max_t, target);
        let what = || format!("{a:?}, {b:?}, v {velocity}, max_t {max_t}, target {target}");
        if check_cast(hit, near, deep, 1e-7, case, &what) {
            hits += 1;
            let hit = hit.unwrap();
            let moved = rb.translated(velocity.as_dvec2() * hit.t as f64);
            let off = moved.signed_distance_to_point(hit.point.as_dvec2());
            assert!(off.abs() <= tol, "case {case}: point {off} off B, {hit:?} ({})", what());
        }
    }
    assert!(hits > n / 4 && hits < n * 3 / 4, "{hits} hits of {n}");
}

#[test]
fn ray_cast_matches_the_references() {
    let mut rng = rng(8);
    let (mut hits, mut exact) = (0, 0);
    let n = cases(20_000);
    for case in 0..n {
        let center = random::point2(&mut rng, 1.0);
        let s = shape(&mut rng, &ANY, center);
        let r = s.reference();
        let origin = s.core.support(Vec2::X) + random::point2(&mut rng, 3.0);
        let aim = s.core.support(random::point2(&mut rng, 1.0)) + random::point2(&mut rng, 0.5) - origin;
        let ray = Ray2::new(origin, aim * rng.random_range(0.2..2.0));
        let max_t = rng.random_range(0.2..3.0);
        let (o, d) = (origin.as_dvec2(), ray.dir.as_dvec2());
        let tol = tolerance(&s, &s) * 0.5 + 1e-6 * origin.abs().max_element() as f64;
        let expected = match r.vertices() {
            Some(v) => ray_rounded_polygon2(v, r.margin, o, d, max_t as f64),
            None => ray_support2(&r, o, d, max_t as f64),
        };
        let reach = |s: f64| ray_entry2(|u| r.support_value(u) + s, o, d, max_t as f64).map(|(t, _)| t);
        let (near, deep) = (reach(tol), reach(-tol));
        let hit = cast_ray_support2(&s.core, s.margin, &ray, max_t);
        let what = || format!("{s:?}, {ray:?}, max_t {max_t}, expected {expected:?}");
        let as_cast = hit.map(|h| CastHit2 { t: h.t, point: ray.at(h.t), normal: h.normal });
        if !check_cast(as_cast, near, deep, 1e-7, case, &what) {
            continue;
        }
        hits += 1;
        let hit = hit.unwrap();
        let (t, normal) = (hit.t as f64, hit.normal.as_dvec2());
        if t == 0.0 {
            assert!((hit.normal + ray.dir.normalize()).length() <= 1e-6, "case {case}: {hit:?} ({})", what());
            continue;
        }
        // An outward normal at the hit point, facing against the ray.
        let p = o + d * t;
        assert!(r.support_value(normal) - normal.dot(p) <= tol, "case {case}: normal {normal} ({})", what());
        assert!(normal.dot(d) <= tol * d.length(), "case {case}: normal {normal} along the ray ({})", what());
        // Against the exact hit when the ray is not grazing.
        if let Some((t_ref, n_ref)) = expected
            && -n_ref.dot(d.normalize()) > 0.1
            && t_ref > 0.0
        {
            assert!(
                (t - t_ref).abs() * d.length() <= 20.0 * tol,
                "case {case}: t {t} vs {t_ref} ({})",
                what()
            );
            exact += 1;
        }
    }
    assert!(hits > n / 4 && exact > n / 8, "{hits} hits, {exact} compared with the exact t, of {n}");
}

#[test]
fn warm_starts_give_the_same_answers() {
    let mut rng = rng(9);
    for case in 0..cases(10_000) {
        let (a, b) = pair(&mut rng, &ANY, &ANY, 1.5);
        let tol = tolerance(&a, &b);
        let fresh = gjk_distance2(&a.core, a.margin, &b.core, b.margin, &mut GjkCache2::default());
        // A cache left by another pair, and one left by this pair a moment earlier.
        let (c, d) = pair(&mut rng, &ANY, &ANY, 1.5);
        let mut stale = GjkCache2::default();
        gjk_distance2(&c.core, c.margin, &d.core, d.margin, &mut stale);
        assert!(!stale.is_empty());
        let earlier = Shape { core: shifted(&b.core, random::point2(&mut rng, 0.2)), margin: b.margin };
        let mut recent = GjkCache2::default();
        contact2(&a.core, a.margin, &earlier.core, earlier.margin, &mut recent);
        for cache in [&mut stale, &mut recent] {
            let mut contact_cache = *cache;
            let warm = gjk_distance2(&a.core, a.margin, &b.core, b.margin, cache);
            assert!(
                (warm.distance - fresh.distance).abs() as f64 <= tol,
                "case {case}: {warm:?} vs {fresh:?}"
            );
            if warm.cores_overlap != fresh.cores_overlap {
                let core = core_signed_distance(&a.reference(), &b.reference());
                assert!(
                    core.abs() <= tol,
                    "case {case}: overlap {warm:?} vs {fresh:?}, signed distance {core}"
                );
            }
            let cold = contact2(&a.core, a.margin, &b.core, b.margin, &mut GjkCache2::default());
            let hot = contact2(&a.core, a.margin, &b.core, b.margin, &mut contact_cache);
            assert!(
                (hot.separation - cold.separation).abs() as f64 <= 2.0 * tol,
                "case {case}: {hot:?} vs {cold:?}"
            );
        }
        let mut cleared = stale;
        cleared.clear();
        assert!(cleared.is_empty() && cleared == GjkCache2::default());
    }
}

fn shifted(core: &Core, offset: Vec2) -> Core {
    match core {
        Core::Polygon(v) => Core::Polygon(v.iter().map(|p| *p + offset).collect()),
        Core::Ellipse { center, matrix } => Core::Ellipse { center: *center + offset, matrix: *matrix },
    }
}

fn square(center: Vec2) -> Core {
    Core::Polygon(
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| center + Vec2::new(x, y)).to_vec(),
    )
}

/// A support map that answers `bad` once it has answered `good` calls.
struct Failing {
    core: Core,
    good: std::cell::Cell<usize>,
    bad: Vec2,
}

impl SupportMap2 for Failing {
    fn support(&self, dir: Vec2) -> Vec2 {
        let left = self.good.get();
        if left == 0 {
            return self.bad;
        }
        self.good.set(left - 1);
        self.core.support(dir)
    }
}

#[test]
fn non_finite_support_points_give_the_documented_answers() {
    // Every value a broken support map may give (1e20: squares overflow), after 0 to 40 good
    // answers, as either shape, in overlapping, touching-margin and separated pairs.
    let bads =
        [Vec2::NAN, Vec2::new(f32::INFINITY, 0.0), Vec2::new(0.0, f32::NEG_INFINITY), Vec2::new(1e20, 0.0)];
    for bad in bads {
        for good in 0..40 {
            for offset in [Vec2::new(1.0, 0.3), Vec2::new(2.1, 0.0), Vec2::new(5.0, 1.0)] {
                let failing = || Failing { core: square(Vec2::ZERO), good: std::cell::Cell::new(good), bad };
                let other = square(offset);
                let check = |d: kollide::narrow::Distance2, which: &str| {
                    let valid = d.distance.is_finite();
                    assert!(
                        !d.distance.is_nan() && d.point_a.is_finite() && d.point_b.is_finite(),
                        "{which}: {d:?}"
                    );
                    if !valid {
                        assert_eq!(
                            (d.normal, d.cores_overlap, d.point_a),
                            (Vec2::ZERO, false, Vec2::ZERO),
                            "{which}"
                        );
                    }
                };
                let mut cache = GjkCache2::default();
                let d = gjk_distance2(&failing(), 0.05, &other, 0.05, &mut cache);
                check(d, "A");
                assert_eq!(d.distance.is_finite(), !cache.is_empty(), "{bad} after {good}: {d:?}");
                check(gjk_distance2(&other, 0.05, &failing(), 0.05, &mut GjkCache2::default()), "B");
                let c = contact2(&failing(), 0.05, &other, 0.05, &mut GjkCache2::default());
                assert!(
                    !c.separation.is_nan()
                        && c.point_a.is_finite()
                        && c.point_b.is_finite()
                        && c.normal.is_finite()
                );
                if c.separation.is_infinite() {
                    assert_eq!((c.normal, c.point_a, c.point_b), (Vec2::ZERO, Vec2::ZERO, Vec2::ZERO));
                }
                let hit = cast_shapes2(&other, 0.05, &failing(), 0.05, Vec2::new(-4.0, 0.0), 2.0, 0.0);
                assert!(
                    hit.is_none_or(|h| h.t.is_finite() && h.point.is_finite() && h.normal.is_finite()),
                    "{hit:?}"
                );
                let ray = Ray2::new(offset * 2.0, -offset);
                let hit = cast_ray_support2(&failing(), 0.05, &ray, 2.0);
                assert!(hit.is_none_or(|h| h.t.is_finite() && h.normal.is_finite()), "{hit:?}");
                if good == 0 {
                    // Bad from the first call: the documented answers exactly.
                    assert_eq!(d.distance, f32::INFINITY);
                    assert!(!gjk_intersects2(&failing(), 0.05, &other, 0.05, &mut GjkCache2::default()));
                    assert!(!gjk_intersects2(&other, 0.05, &failing(), 0.05, &mut GjkCache2::default()));
                    assert_eq!(c.separation, f32::INFINITY);
                    assert_eq!(cast_shapes2(&failing(), 0.0, &other, 0.0, Vec2::X, 9.0, 0.0), None);
                    assert_eq!(cast_ray_support2(&failing(), 0.0, &ray, 9.0), None);
                }
            }
        }
    }
}

#[test]
fn bad_arguments_give_the_documented_answers() {
    let (a, b) = (square(Vec2::ZERO), square(Vec2::new(3.0, 0.0)));
    let overlapping = square(Vec2::new(1.5, 0.0));
    let mut cache = GjkCache2::default();
    for bad in [f32::NAN, -1.0, f32::INFINITY, f32::NEG_INFINITY] {
        for (ma, mb) in [(bad, 0.1), (0.1, bad)] {
            let d = gjk_distance2(&a, ma, &overlapping, mb, &mut cache);
            assert_eq!((d.distance, d.normal, d.cores_overlap), (f32::INFINITY, Vec2::ZERO, false));
            assert!(cache.is_empty());
            assert!(!gjk_intersects2(&a, ma, &overlapping, mb, &mut cache));
            let c = contact2(&a, ma, &overlapping, mb, &mut cache);
            assert_eq!((c.separation, c.normal), (f32::INFINITY, Vec2::ZERO));
            assert_eq!(cast_shapes2(&a, ma, &b, mb, Vec2::new(-1.0, 0.0), 5.0, 0.0), None);
        }
        assert_eq!(cast_shapes2(&a, 0.1, &b, 0.1, Vec2::new(-1.0, 0.0), 5.0, bad), None, "target {bad}");
        assert_eq!(cast_ray_support2(&a, bad, &Ray2::new(Vec2::new(-5.0, 0.0), Vec2::X), 9.0), None);
    }
    // Velocities and limits.
    let toward = Vec2::new(-1.0, 0.0);
    for v in [Vec2::new(f32::NAN, 0.0), Vec2::new(f32::NEG_INFINITY, 0.0), Vec2::new(-1.0, f32::INFINITY)] {
        assert_eq!(cast_shapes2(&a, 0.0, &b, 0.0, v, 5.0, 0.0), None, "{v}");
    }
    for max_t in [f32::NAN, -1.0, f32::NEG_INFINITY] {
        assert_eq!(cast_shapes2(&a, 0.0, &b, 0.0, toward, max_t, 0.0), None, "{max_t}");
        assert_eq!(cast_shapes2(&a, 0.0, &overlapping, 0.0, toward, max_t, 0.0), None, "{max_t}");
    }
    let hit = cast_shapes2(&a, 0.0, &b, 0.0, toward, f32::INFINITY, 0.0).unwrap();
    assert_eq!((hit.t, hit.normal), (1.0, Vec2::X));
    assert_eq!(cast_shapes2(&a, 0.0, &b, 0.0, toward, 0.99, 0.0), None);
    // Zero velocity: a hit at 0 only within the target; moving away: a miss.
    assert_eq!(cast_shapes2(&a, 0.0, &b, 0.0, Vec2::ZERO, 5.0, 0.0), None);
    assert_eq!(cast_shapes2(&a, 0.0, &b, 0.0, -toward, 5.0, 0.0), None);
    let hit = cast_shapes2(&a, 0.4, &b, 0.4, Vec2::ZERO, 5.0, 0.25).unwrap();
    assert_eq!((hit.t, hit.normal), (0.0, Vec2::X));
    assert!((hit.point - Vec2::new(1.6, hit.point.y)).length() < 1e-6, "{hit:?}");
    let hit = cast_shapes2(&a, 0.0, &overlapping, 0.0, Vec2::ZERO, 5.0, 0.0).unwrap();
    assert_eq!((hit.t, hit.normal), (0.0, Vec2::X));
    // Rays: the primitive contract.
    let origin = Vec2::new(-5.0, 0.5);
    for (o, d) in [
        (origin, Vec2::ZERO),
        (origin, Vec2::new(1e-30, 0.0)),
        (origin, Vec2::new(f32::NAN, 0.0)),
        (origin, Vec2::new(f32::INFINITY, 0.0)),
        (Vec2::new(f32::NAN, 0.0), Vec2::X),
        (Vec2::new(0.0, f32::INFINITY), Vec2::X),
    ] {
        assert_eq!(cast_ray_support2(&a, 0.0, &Ray2::new(o, d), 9.0), None, "{o} {d}");
    }
    for max_t in [f32::NAN, -1.0] {
        assert_eq!(cast_ray_support2(&a, 0.0, &Ray2::new(origin, Vec2::X), max_t), None);
    }
    let hit = cast_ray_support2(&a, 0.5, &Ray2::new(origin, Vec2::new(2.0, 0.0)), f32::INFINITY).unwrap();
    assert!((hit.t - 1.75).abs() < 1e-6 && hit.normal == -Vec2::X, "{hit:?}");
    let inside =
        cast_ray_support2(&a, 0.0, &Ray2::new(Vec2::new(0.3, 0.2), Vec2::new(0.0, -2.0)), 9.0).unwrap();
    assert_eq!((inside.t, inside.normal), (0.0, Vec2::Y));
}

#[test]
fn degenerate_pairs() {
    let point = |x: f32, y: f32| Core::Polygon(vec![Vec2::new(x, y)]);
    let segment =
        |a: (f32, f32), b: (f32, f32)| Core::Polygon(vec![Vec2::new(a.0, a.1), Vec2::new(b.0, b.1)]);
    let fresh = GjkCache2::default;
    // Two points at one place: touching cores, depth 0 along (0, 1).
    let p = point(0.25, -0.5);
    let d = gjk_distance2(&p, 0.0, &p, 0.0, &mut fresh());
    assert!(d.cores_overlap && d.distance == 0.0 && d.point_a == Vec2::new(0.25, -0.5), "{d:?}");
    let c = contact2(&p, 0.5, &p, 0.25, &mut fresh());
    assert_eq!((c.separation, c.normal), (-0.75, Vec2::Y));
    assert_eq!((c.point_a, c.point_b), (Vec2::new(0.25, 0.0), Vec2::new(0.25, -0.75)));
    // Two points apart: the exact distance and direction.
    let d = gjk_distance2(&point(0.0, 0.0), 0.5, &point(3.0, 4.0), 1.0, &mut fresh());
    assert_eq!((d.distance, d.normal, d.cores_overlap), (3.5, Vec2::new(0.6, 0.8), false));
    assert_eq!((d.point_a, d.point_b), (Vec2::new(0.3, 0.4), Vec2::new(2.4, 3.2)));
    // Collinear overlapping segments: a flat Minkowski difference, depth 0 across it.
    let (s, t) = (segment((-1.0, 0.0), (1.0, 0.0)), segment((0.5, 0.0), (3.0, 0.0)));
    assert!(gjk_intersects2(&s, 0.0, &t, 0.0, &mut fresh()));
    let c = contact2(&s, 0.1, &t, 0.2, &mut fresh());
    assert!(
        (c.separation + 0.3).abs() < 1e-6
            && c.normal.x.abs() < 1e-6
            && (c.normal.length() - 1.0).abs() < 1e-6,
        "{c:?}"
    );
    // A point on a segment, and at its end.
    let c = contact2(&segment((-1.0, 0.0), (1.0, 0.0)), 0.0, &point(0.5, 0.0), 0.0, &mut fresh());
    assert!(c.separation.abs() < 1e-6 && c.normal.x.abs() < 1e-6, "{c:?}");
    let d = gjk_distance2(&segment((-1.0, 0.0), (1.0, 0.0)), 0.0, &point(1.0, 0.0), 0.0, &mut fresh());
    assert!(d.distance == 0.0, "{d:?}");
    // Crossing segments: the depth is the lesser of the two overlaps.
    let c = contact2(
        &segment((-1.0, 0.0), (1.0, 0.0)),
        0.0,
        &segment((0.2, -0.3), (0.2, 2.0)),
        0.0,
        &mut fresh(),
    );
    assert!((c.separation + 0.3).abs() < 1e-6 && (c.normal - Vec2::Y).length() < 1e-6, "{c:?}");
    // Squares sharing an edge touch; repeated vertices change nothing.
    let (a, b) = (square(Vec2::ZERO), square(Vec2::new(2.0, 0.7)));
    let d = gjk_distance2(&a, 0.0, &b, 0.0, &mut fresh());
    assert_eq!(d.distance, 0.0);
    assert!(gjk_intersects2(&a, 0.0, &b, 0.0, &mut fresh()));
    let c = contact2(&a, 0.0, &b, 0.0, &mut fresh());
    assert!(c.separation.abs() < 1e-6 && (c.normal - Vec2::X).length() < 1e-6, "{c:?}");
    let Core::Polygon(v) = square(Vec2::new(2.5, 0.7)) else { unreachable!() };
    let repeated = Core::Polygon(vec![v[0], v[0], v[1], v[2], v[2], v[2], v[3]]);
    let d = gjk_distance2(&a, 0.0, &repeated, 0.0, &mut fresh());
    assert!((d.distance - 0.5).abs() < 1e-6 && d.normal == Vec2::X, "{d:?}");
    // Far from the origin: the exact distance of two squares 1e4 away.
    let (a, b) = (square(Vec2::splat(1e4)), square(Vec2::new(1e4 + 2.25, 1e4 + 0.5)));
    let d = gjk_distance2(&a, 0.0, &b, 0.0, &mut fresh());
    assert!((d.distance - 0.25).abs() < 2e-3 && d.normal == Vec2::X, "{d:?}");
}
