//! Mesh-against-mesh workloads: boolean overlap, contact manifolds, the pair cache and affine
//! placements.
//!
//! Both libraries build their meshes from the same vertices and indices. parry takes rigid poses
//! only, so every row against parry uses rigid relative poses (a rotation and a translation):
//! kollide places A at the identity and B by the same `Affine3A` (two `MeshInstance`s; each query
//! forms the relative map once), parry takes B's pose in A. Affine placements are measured
//! against kollide itself (`meshmesh/scaled-instance`). parry treats meshes as surfaces while kollide treats
//! closed meshes as solids, so poses where one mesh lies inside the other without crossing it are
//! left out when the batches are drawn (none of the rows' shapes come close to that anyway).
//!
//! Batches alternate hits and misses, chosen by kollide's answer when they are drawn; the
//! agreement test checks parry's answers item by item. Random-close poses place B's centre at a
//! random direction from A's, at a distance drawn around the one where the meshes start to touch;
//! misses closer than [`MIN_GAP`] are left out (see there).

use std::cell::{Cell, RefCell};
use std::path::Path;
use std::sync::Arc;

use glam::{Affine3A, Mat3, Quat, Vec3};
use kollide::mesh::io::{MeshData, load};
use kollide::mesh::{MeshContact, MeshInstance, MeshMeshCache, MeshOverlap, TriMesh};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::shapes;
use parry3d::math::Pose;
use parry3d::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d::shape::TriMesh as ParryMesh;
use rand::Rng;

use super::{PARRY3D, Rigid, Workload};
use crate::harness::{Batch, Prepared};

/// Builds and prepares a row's inputs: `prepare(items, seed)`.
type Prepare = fn(usize, u64) -> Option<Box<dyn Prepared>>;

fn row(
    name: &'static str,
    metric: &'static str,
    peer: &'static str,
    items: usize,
    check_items: usize,
    balanced: bool,
    prepare: Prepare,
) -> Workload {
    Workload { name, metric, ns_per_unit: 1e3, peer, items, check_items, balanced, prepare }
}

pub fn workloads() -> Vec<Workload> {
    vec![
        row("meshmesh/torus80k/near-miss", "µs/test", PARRY3D, 20, 2, false, near_miss),
        row("meshmesh/torus80k/random-close", "µs/test", PARRY3D, 200, 6, true, |n, seed| {
            random_close(torus80k(), torus80k(), n, seed)
        }),
        row("meshmesh/asteroid50k/random-close", "µs/test", PARRY3D, 100, 6, true, |n, seed| {
            random_close(asteroid50k(1), asteroid50k(2), n, seed)
        }),
        // The vendored CGAL remeshes: bunny 75,408 triangles, armadillo 52,000.
        row("meshmesh/bunny-armadillo/random-close", "µs/test", PARRY3D, 100, 6, true, |n, seed| {
            random_close(real("cgal_bunny00.off")?, real("cgal_armadillo.off")?, n, seed)
        }),
        row(
            "meshmesh/cached-repeat",
            "µs/test (peer: kollide without cache)",
            "kollide, no cache",
            100,
            6,
            false,
            cached_repeat,
        ),
        row("meshmesh/asteroid50k/contacts", "µs/query", PARRY3D, 40, 4, true, contacts),
        row(
            "meshmesh/scaled-instance",
            "µs/test (peer: kollide, shape baked into the mesh)",
            "kollide, baked",
            100,
            6,
            true,
            scaled_instance,
        ),
    ]
}

/// The torus of `mesh.rs`: 80,000 triangles, major radius 1, minor 0.35, around z.
fn torus80k() -> MeshData {
    shapes::torus(1.0, 0.35, 400, 100)
}

/// A procedural asteroid of 50,000 triangles, about 2.5 units across.
fn asteroid50k(seed: u64) -> MeshData {
    shapes::asteroid(seed, 50_000)
}

/// A vendored mesh, centred and scaled so that its largest box extent is 2.5 (like the
/// asteroids), the same vertices for both libraries.
fn real(name: &str) -> Option<MeshData> {
    let mut data = load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(name)).ok()?;
    let (lo, hi) = data
        .vertices
        .iter()
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let (center, scale) = ((lo + hi) * 0.5, 2.5 / (hi - lo).max_element());
    for v in &mut data.vertices {
        *v = (*v - center) * scale;
    }
    Some(data)
}

fn ours(data: &MeshData) -> Arc<TriMesh> {
    Arc::new(TriMesh::new(data.vertices.clone(), data.triangles.clone()).expect("valid mesh"))
}

/// A placed at the identity and B by `map`, for kollide's world-space pair queries.
fn placed(a: &Arc<TriMesh>, b: &Arc<TriMesh>, map: Affine3A) -> (MeshInstance, MeshInstance) {
    let place = |mesh: &Arc<TriMesh>, map| MeshInstance::new(mesh.clone(), map).expect("invertible");
    (place(a, Affine3A::IDENTITY), place(b, map))
}

fn theirs(data: &MeshData) -> ParryMesh {
    ParryMesh::new(data.vertices.clone(), data.triangles.clone()).expect("valid mesh")
}

/// Overlap on the parry side: `intersection_test` of the two meshes, B placed by `pose` in A.
fn parry_intersects(a: &ParryMesh, b: &ParryMesh, pose: &Pose) -> bool {
    parry3d::query::intersection_test(&Pose::IDENTITY, a, pose, b).is_ok_and(|i| i.intersecting)
}

/// Draws `n` poses from `candidate`, alternating hits and misses by `answer` (`None`: drop the
/// candidate).
fn alternate<T>(n: usize, mut candidate: impl FnMut() -> T, answer: impl Fn(&T) -> Option<bool>) -> Vec<T> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let c = candidate();
        if answer(&c) == Some(out.len() % 2 == 0) {
            out.push(c);
        }
    }
    out
}

/// Random rotation, and B's box centre at a random direction from A's at a distance uniform in
/// `[0.3, 0.7]` times the sum of the two boxes' half diagonals (the range where random
/// orientations of these shapes start to touch).
fn close_pose(rng: &mut TestRng, a: &TriMesh, b: &TriMesh) -> Rigid {
    let rotation = random::rotation3(rng);
    let reach = 0.5 * (a.bounds().size().length() + b.bounds().size().length());
    let offset = random::unit3(rng) * reach * rng.random_range(0.3..0.7);
    // B's box centre lands at A's box centre plus the offset.
    let translation = a.bounds().center() + offset - rotation * b.bounds().center();
    Rigid { rotation, translation }
}

/// The smallest gap between the surfaces of a miss drawn for a row against parry. parry's
/// triangle test (GJK with a tolerance) reports triangles up to about 0.01 apart as
/// intersecting: on the random-close batches of these meshes (2.5 units across) it said "hit"
/// for pairs 0.0098, 0.0069 and 0.0057 apart at their closest (distances checked by brute
/// force), which would count as disagreements.
const MIN_GAP: f32 = 0.03;

/// kollide's answer for B placed by `map` in A, with containment told apart: `None` when one mesh
/// is inside the other without crossing it (parry, with surfaces only, would say no) and for
/// misses closer than [`MIN_GAP`].
fn surface_answer(a: &Arc<TriMesh>, b: &Arc<TriMesh>, map: Affine3A) -> Option<bool> {
    let (a, b) = placed(a, b, map);
    match a.mesh_overlap(&b, None) {
        None => a.mesh_distance(&b, MIN_GAP).is_none().then_some(false),
        Some(MeshOverlap::Triangles { .. }) => Some(true),
        Some(_) => None,
    }
}

/// Two interlocked tori (chain links), 0.05 apart at their closest: B's tube circle lies in A's
/// xz plane, centred 0.75 from A's centre, so both tube centre lines pass 0.75 from each other
/// (two radii of 0.35, a gap of 0.05, a little more for the faceted tubes). Each item spins B
/// about its own axis by a random angle, which moves its facets.
fn near_miss(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let data = torus80k();
    let (a, b) = (ours(&data), ours(&data));
    let (pa, pb) = (theirs(&data), theirs(&data));
    let mut rng = random::rng(seed);
    let poses: Vec<Rigid> = (0..n)
        .map(|_| Rigid {
            rotation: Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)
                * Quat::from_rotation_z(rng.random_range(0.0..std::f32::consts::TAU)),
            translation: Vec3::new(0.75, 0.0, 0.0),
        })
        .collect();
    let pairs = poses.iter().map(|p| placed(&a, &b, p.affine())).collect();
    Some(Box::new(Batch::new(
        pairs,
        poses.iter().map(Rigid::pose).collect(),
        |(x, y): &(MeshInstance, MeshInstance)| x.intersects_mesh(y, None),
        move |pose: &Pose| parry_intersects(&pa, &pb, pose),
    )))
}

/// Random close rigid poses, half of them touching.
fn random_close(da: MeshData, db: MeshData, n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let (a, b) = (ours(&da), ours(&db));
    let (pa, pb) = (theirs(&da), theirs(&db));
    let mut rng = random::rng(seed);
    let poses = alternate(n, || close_pose(&mut rng, &a, &b), |p| surface_answer(&a, &b, p.affine()));
    Some(Box::new(Batch::new(
        poses.iter().map(|p| placed(&a, &b, p.affine())).collect(),
        poses.iter().map(Rigid::pose).collect(),
        |(x, y): &(MeshInstance, MeshInstance)| x.intersects_mesh(y, None),
        move |pose: &Pose| parry_intersects(&pa, &pb, pose),
    )))
}

/// Two asteroids crossing each other; each item re-tests a pose moved slightly (0.2° and 0.002
/// units, about 1/1000 of their size) from the one its cache last saw. kollide with the cache
/// against kollide without: the peer column is kollide's cold query. After the first pass the
/// cache holds the witness of the moved pose itself, which is what a simulation step that
/// barely moves sees as well.
fn cached_repeat(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let (a, b) = (ours(&asteroid50k(1)), ours(&asteroid50k(2)));
    let mut rng = random::rng(seed);
    let mut items = Vec::with_capacity(n);
    while items.len() < n {
        let pose = close_pose(&mut rng, &a, &b).affine();
        let turn = Quat::from_axis_angle(random::unit3(&mut rng), 0.0035);
        let moved =
            Affine3A::from_translation(random::unit3(&mut rng) * 0.002) * Affine3A::from_quat(turn) * pose;
        let mut cache = MeshMeshCache::new();
        if surface_answer(&a, &b, pose) == Some(true) && surface_answer(&a, &b, moved) == Some(true) {
            let (x, y) = placed(&a, &b, pose);
            x.intersects_mesh(&y, Some(&mut cache));
            items.push((placed(&a, &b, moved), Cell::new(cache)));
        }
    }
    let cold: Vec<(MeshInstance, MeshInstance)> = items.iter().map(|i| i.0.clone()).collect();
    Some(Box::new(Batch::new(
        items,
        cold,
        |((x, y), cache): &((MeshInstance, MeshInstance), Cell<MeshMeshCache>)| {
            let mut c = cache.get();
            let hit = x.intersects_mesh(y, Some(&mut c));
            cache.set(c);
            hit
        },
        |(x, y): &(MeshInstance, MeshInstance)| x.intersects_mesh(y, None),
    )))
}

/// Full contact manifolds of two asteroids at random close poses, half touching. kollide:
/// `mesh_contacts` (at most four points per touching region); parry: `contact_manifolds` of the
/// default dispatcher with no prediction and a fresh workspace per query, as kollide keeps no
/// state between queries (one manifold per touching triangle pair). The answer compared is
/// whether any contact was found; both sides reuse their output vectors.
fn contacts(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let (da, db) = (asteroid50k(1), asteroid50k(2));
    let (a, b) = (ours(&da), ours(&db));
    let (pa, pb) = (theirs(&da), theirs(&db));
    let mut rng = random::rng(seed);
    let poses = alternate(n, || close_pose(&mut rng, &a, &b), |p| surface_answer(&a, &b, p.affine()));
    let out = RefCell::new(Vec::<MeshContact>::new());
    let peer_out = RefCell::new(Vec::<ContactManifold<(), ()>>::new());
    Some(Box::new(Batch::new(
        poses.iter().map(|p| placed(&a, &b, p.affine())).collect(),
        poses.iter().map(Rigid::pose).collect(),
        move |(x, y): &(MeshInstance, MeshInstance)| {
            let out = &mut *out.borrow_mut();
            out.clear();
            x.mesh_contacts(y, out) > 0
        },
        move |pose: &Pose| {
            let manifolds = &mut *peer_out.borrow_mut();
            manifolds.clear();
            let mut workspace = None;
            DefaultQueryDispatcher
                .contact_manifolds(pose, &pa, &pb, 0.0, manifolds, &mut workspace)
                .expect("supported pair");
            manifolds.iter().any(|m| !m.points.is_empty())
        },
    )))
}

/// A non-uniform scale with a shear: the placement's linear part before the rotation.
fn stretch(scale: Vec3, shear: f32) -> Mat3 {
    Mat3::from_cols(Vec3::X, Vec3::new(shear, 1.0, 0.0), Vec3::new(0.0, shear, 1.0))
        * Mat3::from_diagonal(scale)
}

/// Two asteroids, each stretched non-uniformly and sheared, at random close rigid poses. kollide
/// places the original meshes by the affine maps `pose · stretch` (instances); the peer column is
/// kollide on meshes built from the stretched vertices, placed by the rigid poses alone: the same
/// geometry, so the ratio is the cost of the affine placement (target: scaled time at most 1.3
/// times the baked time, i.e. a "speedup" of at least 0.77).
fn scaled_instance(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let (da, db) = (asteroid50k(1), asteroid50k(2));
    let (sa, sb) = (stretch(Vec3::new(1.4, 0.7, 1.0), 0.3), stretch(Vec3::new(0.8, 1.3, 1.1), -0.25));
    let baked = |data: &MeshData, s: Mat3| {
        Arc::new(
            TriMesh::new(data.vertices.iter().map(|&v| s * v).collect(), data.triangles.clone())
                .expect("valid"),
        )
    };
    let (ba, bb) = (baked(&da, sa), baked(&db, sb));
    let (a, b) = (ours(&da), ours(&db));
    let mut rng = random::rng(seed);
    let poses = alternate(
        n,
        || {
            let wa = Affine3A::from_rotation_translation(
                random::rotation3(&mut rng),
                random::point3(&mut rng, 3.0),
            );
            (wa, close_pose(&mut rng, &ba, &bb))
        },
        |(_, p)| surface_answer(&ba, &bb, p.affine()),
    );
    let place =
        |mesh: &Arc<TriMesh>, map: Affine3A| MeshInstance::new(mesh.clone(), map).expect("invertible");
    let scaled = poses
        .iter()
        .map(|(wa, p)| {
            let wb = *wa * p.affine();
            (place(&a, *wa * Affine3A::from_mat3(sa)), place(&b, wb * Affine3A::from_mat3(sb)))
        })
        .collect();
    let unscaled = poses.iter().map(|(wa, p)| (place(&ba, *wa), place(&bb, *wa * p.affine()))).collect();
    Some(Box::new(Batch::new(
        scaled,
        unscaled,
        |(x, y): &(MeshInstance, MeshInstance)| x.intersects_mesh(y, None),
        |(x, y): &(MeshInstance, MeshInstance)| x.intersects_mesh(y, None),
    )))
}
