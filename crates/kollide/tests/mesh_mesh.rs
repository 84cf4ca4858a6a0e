//! Mesh against mesh (placed instances) under random affine maps (rotation, non-uniform scale,
//! shear, reflection) against brute force over all triangle pairs: overlap with solid semantics
//! (containment included), all intersecting pairs, distance, contacts; the pair cache; bad input.
//!
//! Most cases place A at the identity and B by a map, so that the world is A's mesh space and
//! the reference maps B's triangles exactly as the query does.

use std::path::Path;
use std::sync::Arc;

use glam::{Affine3A, Mat3, Vec3};
use kollide::mesh::io::{MeshData, load};
use kollide::mesh::{MeshContact, MeshError, MeshInstance, MeshMeshCache, MeshOverlap, TriMesh};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_mesh_mesh::{self as brute, RefMesh, RefOverlap};
use kollide_testkit::shapes;
use rand::Rng;

fn asset(name: &str) -> MeshData {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(name);
    load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn mesh(data: MeshData) -> Arc<TriMesh> {
    Arc::new(TriMesh::new(data.vertices, data.triangles).unwrap())
}

/// A at the identity and B placed by `map`.
fn placed(a: &Arc<TriMesh>, b: &Arc<TriMesh>, map: &Affine3A) -> (MeshInstance, MeshInstance) {
    (MeshInstance::new(a.clone(), Affine3A::IDENTITY).unwrap(), MeshInstance::new(b.clone(), *map).unwrap())
}

/// An icosphere with zero-area triangles added: a point (one index three times), a segment
/// (a repeated index) and a sliver through a new vertex on an edge.
fn degenerate_sphere() -> Arc<TriMesh> {
    let mut data = shapes::icosphere(1);
    let [a, b, _] = data.triangles[0];
    let mid = (data.vertices[a as usize] + data.vertices[b as usize]) * 0.5;
    data.vertices.push(mid);
    let m = data.vertices.len() as u32 - 1;
    data.triangles.extend([[a, a, a], [a, b, a], [a, m, b]]);
    mesh(data)
}

/// Meshes of at most 5k triangles: (name, mesh, how often it is drawn).
fn meshes() -> Vec<(&'static str, Arc<TriMesh>, u32)> {
    vec![
        ("torus576", mesh(shapes::torus(1.0, 0.35, 24, 12)), 4),
        ("icosphere320", mesh(shapes::icosphere(2)), 4),
        ("asteroid980", mesh(shapes::asteroid(3, 1000)), 4),
        ("grid200 (open)", mesh(shapes::grid(10)), 2),
        ("degenerate", degenerate_sphere(), 2),
        ("teapot992 (open)", mesh(asset("teapot_npm_992.obj")), 2),
        ("sphere840", mesh(asset("sphere_pyvista_840.ply")), 2),
        ("bunny3674", mesh(asset("bunny_npm_3674.obj")), 1),
    ]
}

fn pick<'m>(
    rng: &mut TestRng,
    meshes: &'m [(&'static str, Arc<TriMesh>, u32)],
) -> &'m (&'static str, Arc<TriMesh>, u32) {
    let total: u32 = meshes.iter().map(|m| m.2).sum();
    let mut r = rng.random_range(0..total);
    for m in meshes {
        if r < m.2 {
            return m;
        }
        r -= m.2;
    }
    unreachable!()
}

/// The unit cube `[0, 1]³`, closed.
fn cube() -> Arc<TriMesh> {
    let v: Vec<Vec3> =
        (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32)).collect();
    let t = vec![
        [0, 2, 3],
        [0, 3, 1],
        [4, 5, 7],
        [4, 7, 6],
        [0, 1, 5],
        [0, 5, 4],
        [2, 6, 7],
        [2, 7, 3],
        [0, 4, 6],
        [0, 6, 2],
        [1, 3, 7],
        [1, 7, 5],
    ];
    Arc::new(TriMesh::new(v, t).unwrap())
}

fn reference(mesh: &TriMesh) -> RefMesh<'_> {
    RefMesh { vertices: mesh.vertices(), triangles: mesh.triangles(), solid: mesh.is_solid() }
}

fn size(mesh: &TriMesh) -> f32 {
    mesh.bounds().size().max_element()
}

/// A random affine map (rotation, non-uniform scale, shear, maybe a reflection) whose linear
/// part has a size drawn from `scale`, centred near `at` so that B's box centre lands within `spread`.
fn random_map(
    rng: &mut TestRng,
    b: &TriMesh,
    scale: std::ops::Range<f32>,
    at: Vec3,
    spread: f32,
) -> Affine3A {
    let scale = rng.random_range(scale);
    let map = random::affine3(rng, 1.0);
    let linear = Mat3::from(map.matrix3) * (scale / Mat3::from(map.matrix3).x_axis.length().max(1e-3));
    let center = at + random::point3(rng, spread);
    Affine3A::from_mat3_translation(linear, center - linear * b.bounds().center())
}

/// A random pose of B in A: mostly B about as large as A and near it (about half of them
/// touching), sometimes B small inside A's box (containment of B in A), sometimes B large around
/// A (containment of A in B).
fn random_pose(rng: &mut TestRng, a: &TriMesh, b: &TriMesh) -> Affine3A {
    let (sa, sb) = (size(a), size(b));
    let center = a.bounds().center();
    match rng.random_range(0..10) {
        0..=1 => random_map(rng, b, 0.03 * sa / sb..0.15 * sa / sb, center, 0.3 * sa),
        2 => random_map(rng, b, 2.5 * sa / sb..5.0 * sa / sb, center, 0.15 * sa),
        _ => random_map(rng, b, 0.4 * sa / sb..1.2 * sa / sb, center, 0.6 * sa),
    }
}

fn kind(overlap: Option<MeshOverlap>) -> RefOverlap {
    match overlap {
        None => RefOverlap::Disjoint,
        Some(MeshOverlap::Triangles { .. }) => RefOverlap::Triangles,
        Some(MeshOverlap::AInsideB { .. }) => RefOverlap::AInsideB,
        Some(MeshOverlap::BInsideA { .. }) => RefOverlap::BInsideA,
    }
}

/// The boolean test, the kind of overlap and the witness pair equal brute force on 10,000 random
/// affine poses of every pair of meshes.
#[test]
fn overlap_equals_brute_force_under_random_affine_maps() {
    let meshes = meshes();
    let mut rng = random::rng(41);
    let mut counts = [0usize; 4];
    let n = cases(10_000);
    for case in 0..n {
        let (name_a, a, _) = pick(&mut rng, &meshes);
        let (name_b, b, _) = pick(&mut rng, &meshes);
        let map = random_pose(&mut rng, a, b);
        let expected = brute::overlap(&reference(a), &reference(b), &map);
        let (ia, ib) = placed(a, b, &map);
        let overlap = ia.mesh_overlap(&ib, None);
        assert_eq!(kind(overlap), expected, "case {case}: {name_a} vs {name_b}, {map:?}");
        assert_eq!(ia.intersects_mesh(&ib, None), expected != RefOverlap::Disjoint, "case {case}");
        if let Some(MeshOverlap::Triangles { a: ta, b: tb }) = overlap {
            let tb = b.triangle(tb).unwrap().map(|p| map.transform_point3(p));
            assert!(kollide::primitive::test_triangle_triangle(&a.triangle(ta).unwrap(), &tb), "case {case}");
        }
        if let Some(MeshOverlap::AInsideB { depth } | MeshOverlap::BInsideA { depth }) = overlap {
            assert!(depth.is_finite() && depth >= 0.0, "case {case}: {depth}");
        }
        counts[expected as usize] += 1;
    }
    eprintln!("disjoint, triangles, A in B, B in A: {counts:?}");
    assert!(counts[0] > n / 5 && counts[1] > n / 5, "{counts:?}");
    assert!(counts[2] > n / 50 && counts[3] > n / 50, "{counts:?}");
}

/// Far from the origin (coordinates about 5,000, where an `f32` ulp is 0.0005), the node tests'
/// rounding margins still never cull a pair the exact test accepts.
#[test]
fn overlap_far_from_the_origin_equals_brute_force() {
    let offset = Vec3::new(5000.0, -4000.0, 3000.0);
    let shifted = |data: MeshData| {
        let vertices = data.vertices.iter().map(|&v| v * 10.0 + offset).collect();
        Arc::new(TriMesh::new(vertices, data.triangles).unwrap())
    };
    let meshes = [
        shifted(shapes::torus(1.0, 0.35, 24, 12)),
        shifted(shapes::asteroid(3, 1000)),
        shifted(shapes::grid(10)),
    ];
    let mut rng = random::rng(48);
    let mut hits = 0;
    let n = cases(10_000);
    for case in 0..n {
        let a = &meshes[rng.random_range(0..meshes.len())];
        let b = &meshes[rng.random_range(0..meshes.len())];
        let map = random_pose(&mut rng, a, b);
        let expected = brute::overlap(&reference(a), &reference(b), &map);
        let (ia, ib) = placed(a, b, &map);
        assert_eq!(kind(ia.mesh_overlap(&ib, None)), expected, "case {case}");
        hits += usize::from(expected != RefOverlap::Disjoint);
    }
    assert!(hits > n / 3, "{hits}");
}

/// Exactly touching cubes (a shared face, edge or corner, under every signed permutation of the
/// axes: quarter turns and reflections), and sheared cubes touching at one corner: all arithmetic
/// is exact, so touching must be found, and a gap of one part in a million must not.
#[test]
fn exactly_touching_cubes() {
    let cube = cube();
    let check = |map: Affine3A, gap: Vec3| {
        assert_ne!(
            brute::overlap(&reference(&cube), &reference(&cube), &map),
            RefOverlap::Disjoint,
            "{map:?}"
        );
        let (ia, ib) = placed(&cube, &cube, &map);
        assert!(ia.intersects_mesh(&ib, None), "{map:?}");
        let apart = Affine3A::from_translation(gap * 1e-6) * map;
        assert_eq!(brute::overlap(&reference(&cube), &reference(&cube), &apart), RefOverlap::Disjoint);
        let (ia, ib) = placed(&cube, &cube, &apart);
        assert!(!ia.intersects_mesh(&ib, None), "{apart:?}");
    };
    for perm in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
        for signs in 0..8 {
            let mut cols = [Vec3::ZERO; 3];
            for (axis, &to) in perm.iter().enumerate() {
                cols[axis][to] = if signs >> axis & 1 == 1 { -1.0 } else { 1.0 };
            }
            let linear = Mat3::from_cols(cols[0], cols[1], cols[2]);
            // The image is a unit cube again; move its min corner to the touching position.
            let image_min = cube.bounds().transformed(&Affine3A::from_mat3(linear)).min;
            for touch in [Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::ONE] {
                check(Affine3A::from_mat3_translation(linear, touch - image_min), touch);
            }
        }
    }
    // Sheared and stretched with positive entries: the image of the corner (0, 0, 0) is the
    // translation, and the rest of the image lies beyond it on every axis.
    for linear in [
        Mat3::from_cols(Vec3::new(1.0, 1.0, 0.0), Vec3::new(0.0, 1.0, 1.0), Vec3::new(0.0, 0.0, 2.0)),
        Mat3::from_cols(Vec3::new(3.0, 0.0, 1.0), Vec3::new(0.0, 0.5, 0.0), Vec3::new(1.0, 1.0, 1.0)),
    ] {
        check(Affine3A::from_mat3_translation(linear, Vec3::ONE), Vec3::ONE);
    }
}

/// Every intersecting pair, as a set, equals the brute-force set.
#[test]
fn intersecting_triangles_equal_brute_force() {
    let meshes = meshes();
    let mut rng = random::rng(42);
    let mut pairs = Vec::new();
    let mut nonempty = 0;
    let n = cases(10_000);
    for case in 0..n {
        let (_, a, _) = pick(&mut rng, &meshes);
        let (_, b, _) = pick(&mut rng, &meshes);
        let map = random_pose(&mut rng, a, b);
        let expected =
            brute::intersecting_pairs(&reference(a).mapped(&Affine3A::IDENTITY), &reference(b).mapped(&map));
        pairs.clear();
        let (ia, ib) = placed(a, b, &map);
        ia.intersecting_triangles(&ib, &mut pairs);
        pairs.sort_unstable();
        assert_eq!(pairs, expected, "case {case}");
        nonempty += usize::from(!pairs.is_empty());
    }
    assert!(nonempty > n / 4, "{nonempty}");
}

/// Distance and closest points equal brute force (in f64 on the same mapped triangles) within
/// a tolerance relative to the meshes' size; the limit `max_distance` is honoured.
#[test]
fn distance_equals_brute_force() {
    let meshes = [
        mesh(shapes::icosphere(1)),
        mesh(shapes::torus(1.0, 0.35, 12, 6)),
        mesh(shapes::asteroid(5, 200)),
        mesh(shapes::grid(6)),
    ];
    let mut rng = random::rng(43);
    let mut touching = 0;
    let n = cases(10_000);
    for case in 0..n {
        let a = &meshes[rng.random_range(0..meshes.len())];
        let b = &meshes[rng.random_range(0..meshes.len())];
        let map = random_map(
            &mut rng,
            b,
            0.3 * size(a) / size(b)..1.5 * size(a) / size(b),
            a.bounds().center(),
            0.8 * size(a),
        );
        let (ta, tb) = (reference(a).mapped(&Affine3A::IDENTITY), reference(b).mapped(&map));
        let expected = brute::distance(&ta, &tb) as f32;
        let reach = a.bounds().max.abs().max(a.bounds().min.abs()).max_element()
            + map.translation.abs().max_element();
        let tolerance = 1e-5 * reach + 1e-4 * expected;
        let (ia, ib) = placed(a, b, &map);
        let found = ia.mesh_distance(&ib, f32::INFINITY).unwrap();
        assert!(
            (found.distance - expected).abs() <= tolerance,
            "case {case}: {} vs {expected}",
            found.distance
        );
        // The points lie on the triangles reported, as far apart as the distance says.
        let on =
            |p: Vec3, t: &[Vec3; 3]| (kollide::primitive::closest_point_triangle(p, t).point - p).length();
        assert!(on(found.point_a, &ta[found.triangle_a as usize]) <= tolerance, "case {case}");
        assert!(on(found.point_b, &tb[found.triangle_b as usize]) <= tolerance, "case {case}");
        assert!((found.point_a.distance(found.point_b) - found.distance).abs() <= tolerance, "case {case}");
        // The limit.
        if expected > 2.0 * tolerance {
            assert_eq!(ia.mesh_distance(&ib, 0.5 * expected), None, "case {case}");
        }
        assert!(ia.mesh_distance(&ib, expected + tolerance).is_some(), "case {case}");
        touching += usize::from(expected == 0.0);
    }
    assert!((n * 3 / 25..n * 22 / 25).contains(&touching), "{touching}");
}

/// A query with a cache answers as one without, along random walks of small motions (the cache
/// holding the last witness), and with a cache left by another pair of meshes.
#[test]
fn cached_queries_answer_as_cold_ones() {
    let meshes = meshes();
    let mut rng = random::rng(44);
    let mut reused = 0;
    let mut foreign = MeshMeshCache::new();
    // 170 walks of 60 steps: 10,200 cached queries.
    let walks = cases(170);
    for walk in 0..walks {
        let (_, a, _) = pick(&mut rng, &meshes);
        let (_, b, _) = pick(&mut rng, &meshes);
        let mut map = random_pose(&mut rng, a, b);
        let step = 0.01 * size(a);
        let mut cache = MeshMeshCache::new();
        for i in 0..60 {
            let turn = glam::Quat::from_axis_angle(random::unit3(&mut rng), rng.random_range(-0.02..0.02));
            map =
                Affine3A::from_translation(random::point3(&mut rng, step)) * Affine3A::from_quat(turn) * map;
            let (ia, ib) = placed(a, b, &map);
            let cold = ia.intersects_mesh(&ib, None);
            let had = cache.has_witness();
            let warm = ia.intersects_mesh(&ib, Some(&mut cache));
            assert_eq!(warm, cold, "walk {walk} step {i}");
            assert_eq!(cache.has_witness(), cold, "walk {walk} step {i}");
            reused += usize::from(had && warm);
            assert_eq!(ia.mesh_overlap(&ib, Some(&mut foreign)).is_some(), cold, "walk {walk} step {i}");
        }
    }
    assert!(reused > walks * 5, "{reused}");
    let mut cache = MeshMeshCache::new();
    let (ia, ib) = placed(&meshes[0].1, &meshes[1].1, &Affine3A::IDENTITY);
    assert!(ia.intersects_mesh(&ib, Some(&mut cache)) && cache.has_witness());
    cache.clear();
    assert!(!cache.has_witness());
}

/// Placed instances: the answer in world space equals brute force on the world triangles, except
/// where the surfaces are within rounding of touching (the instance query runs in A's space).
#[test]
fn instances_equal_brute_force_in_world_space() {
    let meshes = meshes();
    let mut rng = random::rng(45);
    for case in 0..cases(10_000) {
        let (_, a, _) = pick(&mut rng, &meshes);
        let (_, b, _) = pick(&mut rng, &meshes);
        let rel = random_pose(&mut rng, a, b);
        let wa = random::affine3(&mut rng, 3.0);
        let (ia, ib) =
            (MeshInstance::new(a.clone(), wa).unwrap(), MeshInstance::new(b.clone(), wa * rel).unwrap());
        let (ra, rb) = (reference(a), reference(b));
        let world_a: Vec<Vec3> = a.vertices().iter().map(|&p| wa.transform_point3(p)).collect();
        let world = brute::overlap(
            &RefMesh { vertices: &world_a, triangles: a.triangles(), solid: a.is_solid() },
            &rb,
            &(wa * rel),
        );
        let found = ia.intersects_mesh(&ib, None);
        if found != (world != RefOverlap::Disjoint) {
            let gap = brute::distance(&ra.mapped(&wa), &rb.mapped(&(wa * rel)));
            assert!(
                gap < 1e-4 * f64::from(ia.bounds().size().max_element()),
                "case {case}: {found} {world:?} {gap}"
            );
        }
        assert_eq!(ia.mesh_overlap(&ib, None).is_some(), found, "case {case}");
        // Distance in world space (its brute force is costly: on one case in a hundred).
        if case % 100 == 0 && a.triangle_count().max(b.triangle_count()) <= 1000 {
            let d = ia.mesh_distance(&ib, f32::INFINITY).unwrap();
            let expected = brute::distance(&ra.mapped(&wa), &rb.mapped(&(wa * rel))) as f32;
            let scale = ia.bounds().size().max_element().max(ib.bounds().size().max_element());
            assert!(
                (d.distance - expected).abs() <= 1e-4 * scale,
                "case {case}: {} vs {expected}",
                d.distance
            );
        }
    }
}

/// Containment depth: a small ball at the centre of a large one is inside it at the distance
/// from its surface vertex to the large sphere (about R - r), measured in the world.
#[test]
fn containment_depth() {
    let ball = mesh(shapes::icosphere(3));
    let small = Affine3A::from_scale(Vec3::splat(0.25));
    let (ia, ib) = placed(&ball, &ball, &small);
    match ia.mesh_overlap(&ib, None) {
        Some(MeshOverlap::BInsideA { depth }) => assert!((depth - 0.75).abs() < 0.02, "{depth}"),
        other => panic!("{other:?}"),
    }
    let (ia, ib) = placed(&ball, &ball, &Affine3A::from_scale(Vec3::splat(4.0)));
    match ia.mesh_overlap(&ib, None) {
        Some(MeshOverlap::AInsideB { depth }) => assert!((depth - 3.0).abs() < 0.05, "{depth}"),
        other => panic!("{other:?}"),
    }
    // World scale 2 doubles the depth.
    let ia = MeshInstance::new(ball.clone(), Affine3A::from_scale(Vec3::splat(2.0))).unwrap();
    let ib = MeshInstance::new(ball.clone(), Affine3A::from_scale(Vec3::splat(0.5))).unwrap();
    match ia.mesh_overlap(&ib, None) {
        Some(MeshOverlap::BInsideA { depth }) => assert!((depth - 1.5).abs() < 0.04, "{depth}"),
        other => panic!("{other:?}"),
    }
    // A surface (open mesh) contains nothing: a small grid inside the ball intersects it, a
    // small ball beside the grid does not, although inside the grid's box.
    let grid = mesh(shapes::grid(4));
    let (ia, ib) = placed(&ball, &grid, &small);
    assert!(matches!(ia.mesh_overlap(&ib, None), Some(MeshOverlap::BInsideA { .. })));
    let (ia, ib) = placed(&grid, &ball, &(Affine3A::from_translation(Vec3::new(0.0, 0.0, 0.5)) * small));
    assert_eq!(ia.mesh_overlap(&ib, None), None);
}

/// Bad input: no empty mesh can be built; instances refuse non-finite and singular maps;
/// placements whose relative map leaves `f32` range give the documented "no" answers; NaN or
/// negative distance limits give `None`.
#[test]
fn bad_input() {
    assert_eq!(TriMesh::new(Vec::new(), Vec::new()).unwrap_err(), MeshError::NoTriangles);
    let a = mesh(shapes::icosphere(1));
    let nan = Affine3A::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
    let inf = Affine3A::from_scale(Vec3::new(f32::INFINITY, 1.0, 1.0));
    let flat = Affine3A::from_scale(Vec3::new(1.0, 1.0, 0.0));
    let tiny = Affine3A::from_scale(Vec3::splat(1e-30));
    for map in [nan, inf, flat, tiny] {
        assert!(MeshInstance::new(a.clone(), map).is_err(), "{map:?}");
    }
    // Each placement is finite, but B seen from A lies beyond `f32` range.
    let far =
        |x: f32| MeshInstance::new(a.clone(), Affine3A::from_translation(Vec3::new(x, 0.0, 0.0))).unwrap();
    let (ia, ib) = (far(-3e38), far(3e38));
    let mut cache = MeshMeshCache::new();
    let (ia0, ia1) = placed(&a, &a, &Affine3A::IDENTITY);
    assert!(ia0.intersects_mesh(&ia1, Some(&mut cache)) && cache.has_witness());
    assert!(!ia.intersects_mesh(&ib, Some(&mut cache)));
    assert!(cache.has_witness(), "a bad map leaves the cache as it was");
    assert_eq!(ia.mesh_overlap(&ib, None), None);
    let mut pairs = Vec::new();
    ia.intersecting_triangles(&ib, &mut pairs);
    assert!(pairs.is_empty());
    let mut contacts = Vec::new();
    assert_eq!(ia.mesh_contacts(&ib, &mut contacts), 0);
    assert!(contacts.is_empty());
    let (ia, ib) = placed(&a, &a, &Affine3A::from_translation(Vec3::X * 3.0));
    for max in [f32::NAN, -1.0] {
        assert_eq!(ia.mesh_distance(&ib, max), None);
    }
    // Touching exactly (a shared face): distance zero, overlapping; a hair apart: disjoint.
    let cube = cube();
    assert!(cube.is_solid());
    let (ia, ib) = placed(&cube, &cube, &Affine3A::from_translation(Vec3::X));
    assert!(ia.intersects_mesh(&ib, None));
    assert_eq!(ia.mesh_distance(&ib, 0.0).unwrap().distance, 0.0);
    let (ia, ib) = placed(&cube, &cube, &Affine3A::from_translation(Vec3::X * 1.0001));
    assert!(!ia.intersects_mesh(&ib, None));
}

/// Distance from `p` to the surface of `mesh` placed by `map` (brute force).
fn surface_distance(mesh: &TriMesh, map: &Affine3A, p: Vec3) -> f32 {
    kollide_testkit::reference_mesh::distance(&reference(mesh).mapped(map), p)
}

/// The contacts of A at the identity and B placed by `map`, appended to `out`; the number of
/// regions.
fn contacts(a: &Arc<TriMesh>, b: &Arc<TriMesh>, map: &Affine3A, out: &mut Vec<MeshContact>) -> usize {
    let (ia, ib) = placed(a, b, map);
    ia.mesh_contacts(&ib, out)
}

/// Checks one region of a manifold against a known normal and penetration depth (the
/// separation's opposite), with every point on both surfaces.
fn check_region(
    contacts: &[MeshContact],
    a: (&TriMesh, &Affine3A),
    b: (&TriMesh, &Affine3A),
    normal: Vec3,
    depth: f32,
) {
    assert!((1..=4).contains(&contacts.len()), "{contacts:?}");
    for c in contacts {
        assert!(c.normal.dot(normal) > 0.995, "{c:?} vs {normal}");
        assert!((c.separation + depth).abs() < 0.02 * (1.0 + depth), "{c:?} vs {depth}");
        assert!(surface_distance(a.0, a.1, c.point) < 1e-4, "{c:?}");
        assert!(surface_distance(b.0, b.1, c.point) < 1e-4, "{c:?}");
    }
}

/// Balls and boxes with known contacts: the normal points from A to B, the separation is minus
/// the penetration (the sum of the caps' heights for two balls), the points lie on both surfaces.
#[test]
fn contacts_of_known_shapes() {
    let ball = mesh(shapes::icosphere(4));
    let id = Affine3A::IDENTITY;
    let mut out = Vec::new();
    // Two unit balls 1.8 apart: penetration 0.2 along +x.
    let beside = Affine3A::from_translation(Vec3::new(1.8, 0.0, 0.0));
    assert_eq!(contacts(&ball, &ball, &beside, &mut out), 1);
    check_region(&out, (&ball, &id), (&ball, &beside), Vec3::X, 0.2);
    // A box of side 2 under a ball: the ball dips 0.2 into the top face, 0.1 in the unit cube's
    // own space.
    let block =
        Affine3A::from_scale_rotation_translation(Vec3::splat(2.0), glam::Quat::IDENTITY, Vec3::splat(-1.0));
    let cube = cube();
    let above = Affine3A::from_translation(Vec3::new(0.3, -0.2, 1.8));
    out.clear();
    assert_eq!(contacts(&cube, &ball, &(block.inverse() * above), &mut out), 1);
    check_region(&out, (&cube, &id), (&ball, &(block.inverse() * above)), Vec3::Z, 0.1);
    // The same from the ball: the normal turns around.
    out.clear();
    assert_eq!(contacts(&ball, &cube, &(above.inverse() * block), &mut out), 1);
    check_region(&out, (&ball, &id), (&cube, &(above.inverse() * block)), -Vec3::Z, 0.2);
    // A narrow box standing 0.02 deep on the middle of a wide one: four points at the corners
    // of its foot, normal +z, depth 0.02.
    let standing = Affine3A::from_scale_rotation_translation(
        Vec3::new(0.5, 0.5, 1.0),
        glam::Quat::IDENTITY,
        Vec3::new(0.25, 0.25, 0.98),
    );
    out.clear();
    assert_eq!(contacts(&cube, &cube, &standing, &mut out), 1);
    check_region(&out, (&cube, &id), (&cube, &standing), Vec3::Z, 0.02);
    assert_eq!(out.len(), 4);
    // Shifted over the edge: the normal is the common volume's gradient, which leans a little
    // toward the slivers of side faces inside the other box; the depth along it is still 0.02
    // (the deepest corners' ray distances to the other surface).
    let shifted = Affine3A::from_translation(Vec3::new(0.25, 0.5, 0.98));
    out.clear();
    assert_eq!(contacts(&cube, &cube, &shifted, &mut out), 1);
    assert!(out.iter().all(|c| c.normal.z > 0.995 && (c.separation + 0.02).abs() < 0.002), "{out:?}");
    // Resting exactly on the top face (coplanar touching): normal +z, depth 0, the corners of
    // the common face area.
    let resting = Affine3A::from_translation(Vec3::new(0.25, 0.5, 1.0));
    out.clear();
    assert_eq!(contacts(&cube, &cube, &resting, &mut out), 1);
    check_region(&out, (&cube, &id), (&cube, &resting), Vec3::Z, 0.0);
    assert_eq!(out.len(), 4);
    // Placed instances measure in the world: both scaled by 3, penetration 0.6.
    let ia = MeshInstance::new(ball.clone(), Affine3A::from_scale(Vec3::splat(3.0))).unwrap();
    let ib = MeshInstance::new(ball.clone(), Affine3A::from_scale(Vec3::splat(3.0)) * beside).unwrap();
    out.clear();
    assert_eq!(ia.mesh_contacts(&ib, &mut out), 1);
    check_region(&out, (&ball, ia.to_world()), (&ball, ib.to_world()), Vec3::X, 0.6);
    // Random pairs of balls: penetration r1 + r2 - d along the line of centres, in the world.
    let mut rng = random::rng(47);
    for case in 0..60 {
        let (r1, r2): (f32, f32) = (rng.random_range(0.5..2.0), rng.random_range(0.5..2.0));
        let overlap = rng.random_range(0.05..0.5) * r1.min(r2);
        let c1 = random::point3(&mut rng, 5.0);
        let c2 = c1 + random::unit3(&mut rng) * (r1 + r2 - overlap);
        let place = |r: f32, c: Vec3, q: glam::Quat| {
            MeshInstance::new(ball.clone(), Affine3A::from_scale_rotation_translation(Vec3::splat(r), q, c))
                .unwrap()
        };
        let ia = place(r1, c1, random::rotation3(&mut rng));
        let ib = place(r2, c2, random::rotation3(&mut rng));
        out.clear();
        assert_eq!(ia.mesh_contacts(&ib, &mut out), 1, "case {case}");
        let tolerance = 0.005 * r1.max(r2);
        for c in &out {
            assert!(c.normal.dot((c2 - c1).normalize()) > 0.999, "case {case}: {c:?}");
            assert!((c.separation + overlap).abs() < tolerance, "case {case}: {} vs {overlap}", c.separation);
        }
    }
    // Containment: one contact from the contained vertex toward the containing surface.
    out.clear();
    assert_eq!(
        contacts(
            &ball,
            &ball,
            &(Affine3A::from_translation(Vec3::X * 0.5) * Affine3A::from_scale(Vec3::splat(0.25))),
            &mut out
        ),
        1
    );
    assert_eq!(out.len(), 1);
    assert!(out[0].separation < -0.2 && out[0].separation > -0.8, "{:?}", out[0]);
    // Apart: nothing.
    out.clear();
    assert_eq!(contacts(&ball, &ball, &Affine3A::from_translation(Vec3::X * 2.01), &mut out), 0);
    assert!(out.is_empty());
}

/// Under random affine maps: contacts exist exactly when the meshes intersect, at most four per
/// region, every crossing point on both surfaces (also for placed instances), unit normals,
/// finite separations `<= 0`; for two convex bodies (ellipsoids) meeting in one loop with centres at least 1
/// apart, the normal points from A's centre toward B's.
#[test]
fn contacts_lie_on_both_surfaces_under_random_maps() {
    let meshes = meshes();
    let mut rng = random::rng(46);
    let mut out = Vec::new();
    let mut touching = 0;
    let n = cases(10_000);
    for case in 0..n {
        let (_, a, _) = pick(&mut rng, &meshes);
        let (_, b, _) = pick(&mut rng, &meshes);
        let map = random_pose(&mut rng, a, b);
        out.clear();
        let regions = contacts(a, b, &map, &mut out);
        let (ia, ib) = placed(a, b, &map);
        let overlap = ia.mesh_overlap(&ib, None);
        assert_eq!(regions > 0, overlap.is_some(), "case {case}");
        let tolerance = 1e-4
            * size(a).max(
                size(b) * Mat3::from(map.matrix3).abs().to_cols_array().iter().fold(0.0f32, |m, x| m.max(*x)),
            );
        for r in 0..regions as u32 {
            let n = out.iter().filter(|c| c.region == r).count();
            assert!((1..=4).contains(&n), "case {case}: {n} points in region {r}");
        }
        let curves =
            brute::crossing_segments(&reference(a).mapped(&Affine3A::IDENTITY), &reference(b).mapped(&map));
        for c in &out {
            assert!(
                (c.normal.length() - 1.0).abs() < 1e-4 && c.separation.is_finite() && c.separation <= 0.0,
                "case {case}: {c:?}"
            );
            if matches!(overlap, Some(MeshOverlap::Triangles { .. })) {
                assert!(surface_distance(a, &Affine3A::IDENTITY, c.point) <= tolerance, "case {case}: {c:?}");
                assert!(surface_distance(b, &map, c.point) <= tolerance, "case {case}: {c:?}");
                // On the intersection curves found by brute force.
                let off = curves
                    .iter()
                    .map(|&(s, e)| {
                        (kollide::primitive::closest_point_segment(c.point, s, e).point - c.point).length()
                    })
                    .fold(f32::INFINITY, f32::min);
                assert!(off <= tolerance, "case {case}: {c:?} is {off} off the curves");
            }
        }
        touching += usize::from(regions > 0);
    }
    assert!(touching > n * 3 / 8, "{touching}");
    // Placed instances (sheared, scaled, reflected): world points on both world surfaces, as
    // many regions as the mesh-space query finds.
    for case in 0..100 {
        let (_, a, _) = pick(&mut rng, &meshes);
        let (_, b, _) = pick(&mut rng, &meshes);
        let rel = random_pose(&mut rng, a, b);
        let wa = random::affine3(&mut rng, 3.0);
        let ia = MeshInstance::new(a.clone(), wa).unwrap();
        let ib = MeshInstance::new(b.clone(), wa * rel).unwrap();
        out.clear();
        let regions = ia.mesh_contacts(&ib, &mut out);
        if !matches!(ia.mesh_overlap(&ib, None), Some(MeshOverlap::Triangles { .. })) {
            continue;
        }
        assert!(regions > 0, "case {case}");
        let scale = ia.bounds().size().max_element().max(ib.bounds().size().max_element());
        for c in &out {
            assert!(
                (c.normal.length() - 1.0).abs() < 1e-4 && c.separation.is_finite() && c.separation <= 0.0,
                "case {case}"
            );
            assert!(surface_distance(a, &wa, c.point) <= 1e-4 * scale, "case {case}: {c:?}");
            assert!(surface_distance(b, &(wa * rel), c.point) <= 1e-4 * scale, "case {case}: {c:?}");
        }
    }
    // Ellipsoids (affine images of a ball) crossing each other.
    let ball = mesh(shapes::icosphere(3));
    let (mut agree, mut single) = (0, 0);
    for _ in 0..300 {
        let map = random_map(&mut rng, &ball, 0.5..1.5, Vec3::ZERO, 1.5);
        out.clear();
        // Two loops (a long ellipsoid through another) are two regions; one loop is one.
        if contacts(&ball, &ball, &map, &mut out) != 1 {
            continue;
        }
        let toward_b = Vec3::from(map.translation);
        if toward_b.length() < 1.0 {
            continue; // centres close together tell no direction
        }
        agree += usize::from(out[0].normal.dot(toward_b) > 0.0);
        single += 1;
    }
    eprintln!("ellipsoid normals toward B: {agree} of {single}");
    assert!(single > 80 && agree == single, "{agree} of {single}");
}
