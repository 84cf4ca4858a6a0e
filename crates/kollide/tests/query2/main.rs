//! The 2D query layer (`kollide::query::{intersects2, contact2, contact_manifolds2,
//! distance2, cast_shape2, cast_ray2, contains_point2, bounds2}` and the cached forms) on
//! compounds, polylines (open, closed, one-sided) and triangle meshes, against brute force over
//! their parts: every pair of parts through the convex queries of `kollide::narrow` (and
//! `chain_segment_manifold2` for polyline segments), without a BVH. Random shapes under rigid,
//! similarity and affine placements; then chains (no ghost contacts, one-sided chains) and the
//! country map (points and rays against the winding-number reference on the rings).

use glam::{Affine2, Vec2};
use kollide::math::Ray2;
use kollide::narrow::{self, ChainSegment2, ContactManifold2, GjkCache2};
use kollide::query::{self, Compound2, PairCache2, PartManifold2, Polyline2, QueryError, Shape2, TriMesh2};
use kollide::shape::{ConvexShape2, Triangle2};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use rand::Rng;

#[path = "../narrow2/support.rs"]
#[allow(dead_code)]
mod support;

mod chains;
mod countries;

use support::{CLASSES, Class, KINDS, linear, shape};

fn rng(seed: u64) -> TestRng {
    random::rng(0x9e27_0002 ^ seed)
}

/// One convex part of a placed shape: a convex shape or a chain segment, with its placement.
#[derive(Clone, Debug)]
enum Part {
    Convex(ConvexShape2),
    Chain(ChainSegment2),
}

impl Part {
    fn convex(&self) -> ConvexShape2 {
        match self {
            Part::Convex(s) => s.clone(),
            Part::Chain(c) => ConvexShape2::Segment(c.segment),
        }
    }
}

/// Every part of a placed shape, with its id and world placement (no BVH).
fn parts(shape: &Shape2, to_world: &Affine2) -> Vec<(u32, Part, Affine2)> {
    match shape {
        Shape2::Convex(s) => vec![(0, Part::Convex(s.clone()), *to_world)],
        Shape2::Compound(c) => c
            .children()
            .iter()
            .enumerate()
            .map(|(i, (s, m))| (i as u32, Part::Convex(s.clone()), *to_world * *m))
            .collect(),
        Shape2::Polyline(p) => {
            (0..p.segment_count()).map(|i| (i as u32, Part::Chain(p.segment(i)), *to_world)).collect()
        }
        Shape2::Mesh(m) => (0..m.triangles().len())
            .map(|i| (i as u32, Part::Convex(ConvexShape2::Triangle(m.triangle(i))), *to_world))
            .collect(),
    }
}

/// A random compound of 1 to 6 children of every kind, each under its own placement.
fn compound(rng: &mut TestRng) -> Compound2 {
    let n = rng.random_range(1..=6);
    let children = (0..n)
        .map(|_| {
            let kind = KINDS[rng.random_range(0..KINDS.len())];
            let class = CLASSES[rng.random_range(0..CLASSES.len())];
            let s = shape(rng, kind);
            let m = Affine2::from_mat2_translation(linear(rng, class) * 0.5, random::point2(rng, 1.0));
            (s, m)
        })
        .collect();
    Compound2::new(children).unwrap()
}

/// A random walk of 3 to 12 points: open or closed, two- or one-sided.
fn polyline(rng: &mut TestRng) -> Polyline2 {
    let n = rng.random_range(3..=12);
    let mut p = random::point2(rng, 1.0);
    let mut heading = rng.random_range(-3.2..3.2f32);
    let points: Vec<Vec2> = (0..n)
        .map(|_| {
            let q = p;
            heading += rng.random_range(-1.2..1.2);
            p += Vec2::from_angle(heading) * rng.random_range(0.1..0.6);
            q
        })
        .collect();
    Polyline2::new(&points, rng.random_bool(0.4), rng.random_bool(0.3)).unwrap()
}

/// A random triangle soup over 5 to 14 vertices, some triangles degenerate.
fn trimesh(rng: &mut TestRng) -> TriMesh2 {
    let nv = rng.random_range(5..15);
    let vertices: Vec<Vec2> = (0..nv).map(|_| random::point2(rng, 1.2)).collect();
    let nt = rng.random_range(1..10);
    let triangles = (0..nt)
        .map(|_| {
            let mut t = [0; 3].map(|_| rng.random_range(0..nv as u32));
            if rng.random_bool(0.05) {
                t[2] = t[1];
            }
            t
        })
        .collect();
    TriMesh2::new(vertices, triangles).unwrap()
}

/// A random shape of each of the four kinds in turn (`which` cycles).
fn shape2(rng: &mut TestRng, which: usize) -> Shape2 {
    match which % 4 {
        0 => {
            let kind = KINDS[rng.random_range(0..KINDS.len())];
            Shape2::Convex(shape(rng, kind))
        }
        1 => compound(rng).into(),
        2 => polyline(rng).into(),
        _ => trimesh(rng).into(),
    }
}

/// A pair of placed shapes: the kinds cycle with `i`, placements at random (composites are
/// never singular), B within reach of A.
fn pair(rng: &mut TestRng, i: usize) -> (Shape2, Affine2, Shape2, Affine2) {
    let (a, b) = (shape2(rng, i), shape2(rng, i / 4));
    let classes = [Class::Rigid, Class::Similarity, Class::Affine];
    let (ca, cb) = (classes[(i / 16) % 3], classes[rng.random_range(0..3)]);
    let far = rng.random_bool(0.1);
    let center = random::point2(rng, if far { 1e3 } else { 1.0 });
    let ma = Affine2::from_mat2_translation(linear(rng, ca), center);
    let mb = Affine2::from_mat2_translation(linear(rng, cb), center + random::point2(rng, 3.0));
    (a, ma, b, mb)
}

/// The tolerance for answers that may differ by a warm start or by the part pairs visited: `1e-5`
/// of the shapes' extent plus `2e-6` of the coordinates.
fn tolerance(a: &Shape2, ma: &Affine2, b: &Shape2, mb: &Affine2) -> f64 {
    let (ba, bb) = (query::bounds2(a, ma).unwrap(), query::bounds2(b, mb).unwrap());
    let extent = (ba.max - ba.min).max_element().max((bb.max - bb.min).max_element()) as f64;
    let coords = ba.min.abs().max(ba.max.abs()).max(bb.min.abs()).max(bb.max.abs()).max_element() as f64;
    1e-5 * extent + 2e-6 * coords
}

/// The manifold of two parts, as the query layer defines it (chain segments without ghost
/// contacts, a chain as B flipped from A's view).
fn part_manifold(pa: &Part, ma: &Affine2, pb: &Part, mb: &Affine2, prediction: f32) -> ContactManifold2 {
    let mut out = ContactManifold2::default();
    let mut cache = GjkCache2::default();
    match (pa, pb) {
        (Part::Chain(seg), Part::Convex(s)) => {
            narrow::chain_segment_manifold2(seg, ma, s, mb, prediction, &mut cache, &mut out).unwrap()
        }
        (Part::Convex(s), Part::Chain(seg)) => {
            narrow::chain_segment_manifold2(seg, mb, s, ma, prediction, &mut cache, &mut out).unwrap();
            out.flip();
        }
        _ => narrow::contact_manifold2(&pa.convex(), ma, &pb.convex(), mb, prediction, &mut cache, &mut out)
            .unwrap(),
    }
    out
}

fn kind(s: &Shape2) -> &'static str {
    match s {
        Shape2::Convex(_) => "convex",
        Shape2::Compound(_) => "compound",
        Shape2::Polyline(_) => "polyline",
        Shape2::Mesh(_) => "mesh",
    }
}

#[test]
fn pair_queries_equal_brute_force_over_the_parts() {
    let mut rng = rng(1);
    let n = cases(10_000);
    let (mut hits, mut manifolds, mut casts) = (0, 0, 0);
    let mut memory = PairCache2::default();
    for i in 0..n {
        let (a, ma, b, mb) = pair(&mut rng, i);
        let tol = tolerance(&a, &ma, &b, &mb);
        let what = format!("{i}: {} at {ma:?}, {} at {mb:?}", kind(&a), kind(&b));
        let (pa, pb) = (parts(&a, &ma), parts(&b, &mb));
        let mut brute_hit = false;
        let mut brute_distance = f64::INFINITY;
        let prediction = if rng.random_bool(0.5) { 0.0 } else { rng.random_range(0.0..0.5) };
        let mut brute_contact: Option<narrow::Contact2> = None;
        let mut brute_manifolds = Vec::new();
        let velocity =
            (ma.translation - mb.translation) * rng.random_range(0.2..1.5) + random::point2(&mut rng, 0.5);
        let mut brute_cast: Option<f32> = None;
        let mut cache = GjkCache2::default();
        for (ia, a_part, a_map) in &pa {
            for (ib, b_part, b_map) in &pb {
                let (sa, sb) = (a_part.convex(), b_part.convex());
                brute_hit |= narrow::intersects2(&sa, a_map, &sb, b_map, &mut cache).unwrap();
                let d = narrow::distance2(&sa, a_map, &sb, b_map, &mut cache).unwrap() as f64;
                brute_distance = brute_distance.min(d);
                if let Some(c) = narrow::contact2(&sa, a_map, &sb, b_map, prediction, &mut cache).unwrap()
                    && brute_contact.is_none_or(|b| c.separation < b.separation)
                {
                    brute_contact = Some(narrow::Contact2 { part_a: *ia, part_b: *ib, ..c });
                }
                let m = part_manifold(a_part, a_map, b_part, b_map, prediction);
                if !m.is_empty() {
                    brute_manifolds.push(PartManifold2 { part_a: *ia, part_b: *ib, manifold: m });
                }
                if let Some(h) =
                    narrow::cast_shape2(&sa, a_map, &sb, b_map, velocity, 1.0, &mut cache).unwrap()
                    && brute_cast.is_none_or(|t| h.t < t)
                {
                    brute_cast = Some(h.t);
                }
            }
        }
        // intersects2 (and its cached form) exactly; the distance to the tolerance.
        let hit = query::intersects2(&a, &ma, &b, &mb).unwrap();
        assert_eq!(hit, brute_hit, "{what}: intersects");
        assert_eq!(query::intersects2_cached(&a, &ma, &b, &mb, &mut memory).unwrap(), hit, "{what}");
        hits += usize::from(hit);
        let d = query::distance2(&a, &ma, &b, &mb).unwrap() as f64;
        assert!((d - brute_distance).abs() <= tol, "{what}: distance {d} vs {brute_distance}");
        assert_eq!(d == 0.0, hit, "{what}: distance {d}, intersects {hit}");
        // contact2: the least separation, from the parts it names.
        let contact = query::contact2(&a, &ma, &b, &mb, prediction).unwrap();
        match (contact, brute_contact) {
            (None, None) => {}
            (Some(c), Some(r)) => {
                assert!((c.separation - r.separation).abs() as f64 <= tol, "{what}: {c:?} vs {r:?}");
                let (_, part_a, map_a) = &pa[c.part_a as usize];
                let (_, part_b, map_b) = &pb[c.part_b as usize];
                let own = narrow::contact2(
                    &part_a.convex(),
                    map_a,
                    &part_b.convex(),
                    map_b,
                    prediction,
                    &mut cache,
                )
                .unwrap()
                .unwrap_or_else(|| panic!("{what}: {c:?} names parts apart"));
                assert!((own.separation - c.separation).abs() as f64 <= tol, "{what}: {c:?} vs {own:?}");
            }
            (c, r) => panic!("{what}: contact {c:?}, brute force {r:?}"),
        }
        // contact_manifolds2 (and cached): the same part pairs, the same manifolds.
        let mut got = Vec::new();
        query::contact_manifolds2(&a, &ma, &b, &mb, prediction, &mut got).unwrap();
        let mut cached = Vec::new();
        query::contact_manifolds2_cached(&a, &ma, &b, &mb, prediction, &mut memory, &mut cached).unwrap();
        for list in [&mut got, &mut cached, &mut brute_manifolds] {
            list.sort_by_key(|m| (m.part_a, m.part_b));
        }
        let keys = |l: &[PartManifold2]| l.iter().map(|m| (m.part_a, m.part_b)).collect::<Vec<_>>();
        assert_eq!(keys(&got), keys(&brute_manifolds), "{what}: manifold parts");
        assert_eq!(keys(&cached), keys(&brute_manifolds), "{what}: cached manifold parts");
        for (g, r) in got.iter().zip(&brute_manifolds).chain(cached.iter().zip(&brute_manifolds)) {
            same_manifold(&g.manifold, &r.manifold, tol, &what);
        }
        manifolds += got.len();
        // cast_shape2: the first time over every pair of parts.
        let hit = query::cast_shape2(&a, &ma, &b, &mb, velocity, 1.0).unwrap();
        match (hit, brute_cast) {
            (None, None) => {}
            (Some(h), Some(t)) => {
                let tol_t = tol / velocity.length().max(1e-3) as f64;
                assert!((h.t - t).abs() as f64 <= tol_t, "{what}: cast at {} vs {t}", h.t);
                casts += 1;
            }
            (h, t) => panic!("{what}: cast {h:?}, brute force {t:?}"),
        }
    }
    assert!(hits > n / 5 && manifolds > n / 4 && casts > n / 5, "{hits} {manifolds} {casts}");
}

/// Two manifolds of one pair of parts, possibly from different warm starts: the same points and
/// separations (the normal of a deep contact between curved shapes is only as accurate as the
/// depth is flat around it, so it is not compared).
fn same_manifold(got: &ContactManifold2, reference: &ContactManifold2, tol: f64, what: &str) {
    assert_eq!(got.len(), reference.len(), "{what}: {got:?} vs {reference:?}");
    for (p, q) in got.points().iter().zip(reference.points()) {
        assert!((p.separation - q.separation).abs() as f64 <= tol, "{what}: {got:?} vs {reference:?}");
    }
}

#[test]
fn rays_points_and_bounds_equal_brute_force_over_the_parts() {
    let mut rng = rng(2);
    let n = cases(12_000);
    let (mut hits, mut inside) = (0, 0);
    for i in 0..n {
        let s = shape2(&mut rng, i);
        let class = CLASSES[(i / 4) % 3];
        let m = Affine2::from_mat2_translation(linear(&mut rng, class), random::point2(&mut rng, 1.0));
        let ps = parts(&s, &m);
        let tol = tolerance(&s, &m, &s, &m);
        let what = format!("{i}: {} at {m:?}", kind(&s));
        // Bounds hold every part.
        let bounds = query::bounds2(&s, &m).unwrap();
        for (_, p, pm) in &ps {
            let b = p.convex().aabb(pm);
            let slack = 1e-5 * (bounds.max - bounds.min).max_element() + 1e-6;
            assert!(b.min.cmpge(bounds.min - slack).all() && b.max.cmple(bounds.max + slack).all(), "{what}");
        }
        // Rays: the first hit over every part.
        let origin = m.translation + random::point2(&mut rng, 3.0);
        let dir = m.translation + random::point2(&mut rng, 1.0) - origin;
        let max_t = if rng.random_bool(0.1) { f32::INFINITY } else { rng.random_range(0.3..2.0) };
        let ray = Ray2::new(origin, dir);
        let brute = ps
            .iter()
            .filter_map(|(id, p, pm)| {
                narrow::cast_ray2(&p.convex(), pm, &ray, max_t).unwrap().map(|h| (h, *id))
            })
            .min_by(|x, y| x.0.t.total_cmp(&y.0.t));
        let hit = query::cast_ray2(&s, &m, &ray, max_t).unwrap();
        match (hit, brute) {
            (None, None) => {}
            (Some(h), Some((r, _))) => {
                assert!((h.t - r.t).abs() as f64 * dir.length() as f64 <= tol, "{what}: {h:?} vs {r:?}");
                let (_, p, pm) = &ps[h.part as usize];
                let own = narrow::cast_ray2(&p.convex(), pm, &ray, max_t).unwrap();
                assert_eq!(own.map(|o| o.t), Some(h.t), "{what}: {h:?} names part {}", h.part);
                hits += 1;
            }
            (h, r) => panic!("{what}: ray {ray:?} to {max_t}: {h:?} vs {r:?}"),
        }
        // Points: in some part.
        let p = m.translation + random::point2(&mut rng, 1.5);
        let brute = ps.iter().any(|(_, part, pm)| narrow::contains_point2(&part.convex(), pm, p).unwrap());
        assert_eq!(query::contains_point2(&s, &m, p).unwrap(), brute, "{what}: {p}");
        inside += usize::from(brute);
    }
    assert!(hits > n / 4 && inside > n / 20, "{hits} hits, {inside} inside");
}

#[test]
fn bad_input_is_refused_with_the_operand() {
    let shapes: Vec<Shape2> = (0..4).map(|k| shape2(&mut rng(3), k)).collect();
    let id = Affine2::IDENTITY;
    let nan = Affine2::from_translation(Vec2::new(f32::NAN, 0.0));
    let flat = Affine2::from_mat2(glam::Mat2::from_cols(Vec2::X, Vec2::ZERO));
    for s in &shapes {
        for other in &shapes {
            use kollide::query::Operand::{A, B};
            assert_eq!(query::intersects2(s, &nan, other, &id), Err(QueryError::NonFinitePlacement(A)));
            assert_eq!(query::distance2(s, &id, other, &nan), Err(QueryError::NonFinitePlacement(B)));
            assert_eq!(
                query::contact2(s, &id, other, &id, f32::NAN),
                Err(QueryError::NonFiniteArgument("prediction"))
            );
            let mut out = vec![PartManifold2::default()];
            assert_eq!(
                query::contact_manifolds2(s, &id, other, &id, f32::NAN, &mut out),
                Err(QueryError::NonFiniteArgument("prediction"))
            );
            assert!(out.is_empty());
            let v = Vec2::new(f32::INFINITY, 0.0);
            assert_eq!(
                query::cast_shape2(s, &id, other, &id, v, 1.0),
                Err(QueryError::NonFiniteArgument("velocity"))
            );
            assert_eq!(
                query::cast_shape2(s, &id, other, &id, Vec2::X, f32::NAN),
                Err(QueryError::NonFiniteArgument("max_t"))
            );
            // Composites are queried in their own frame: a singular placement is refused.
            if !matches!(s, Shape2::Convex(_)) {
                assert_eq!(query::intersects2(s, &flat, other, &id), Err(QueryError::SingularPlacement(A)));
            } else {
                assert!(query::intersects2(s, &flat, other, &id).is_ok());
            }
        }
        let ray = Ray2::new(Vec2::new(f32::NAN, 0.0), Vec2::X);
        assert_eq!(query::cast_ray2(s, &id, &ray, 1.0), Err(QueryError::NonFiniteArgument("ray")));
        let ray = Ray2::new(Vec2::ZERO, Vec2::X);
        assert_eq!(query::cast_ray2(s, &id, &ray, f32::NAN), Err(QueryError::NonFiniteArgument("max_t")));
        assert_eq!(query::contains_point2(s, &id, Vec2::NAN), Err(QueryError::NonFiniteArgument("p")));
        assert_eq!(query::bounds2(s, &nan), Err(QueryError::NonFinitePlacement(kollide::query::Operand::A)));
    }
    let bad = Shape2::Convex(ConvexShape2::Triangle(Triangle2::new(Vec2::ZERO, Vec2::X, Vec2::NAN)));
    assert_eq!(
        query::intersects2(&shapes[1], &id, &bad, &id),
        Err(QueryError::InvalidShape(kollide::query::Operand::B))
    );
    // Composites refuse bad parts when built.
    use kollide::query::CompositeError2;
    assert_eq!(Compound2::new(vec![]).err(), Some(CompositeError2::Empty));
    assert_eq!(Polyline2::new(&[Vec2::ZERO, Vec2::ZERO], false, false).err(), Some(CompositeError2::Empty));
    assert_eq!(
        Polyline2::new(&[Vec2::ZERO, Vec2::NAN], false, false).err(),
        Some(CompositeError2::InvalidPart(1))
    );
    assert_eq!(TriMesh2::new(vec![Vec2::ZERO], vec![[0, 0, 1]]).err(), Some(CompositeError2::BadIndex(0)));
    let singular = Affine2::from_mat2(glam::Mat2::ZERO);
    let child = ConvexShape2::Ball(kollide::shape::Ball2::new(1.0));
    assert_eq!(Compound2::new(vec![(child, singular)]).err(), Some(CompositeError2::InvalidPart(0)));
}
