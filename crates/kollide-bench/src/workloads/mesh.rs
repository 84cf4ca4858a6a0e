//! Triangle-mesh workloads: BVH builds, ray casts, sphere and point queries, instancing, memory.
//!
//! kollide's `TriMesh` and parry's `TriMesh` are built from the same vertices and indices; every
//! query runs on identical inputs, single-threaded. Rays are incoherent: from random points on a
//! sphere around the mesh toward random points in its box.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Affine3A, Vec3};
use kollide::bounds::{Aabb3, Sphere};
use kollide::math::Ray3;
use kollide::mesh::io::{MeshData, load};
use kollide::mesh::{MeshInstance, TriMesh};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::shapes;
use parry3d::math::Pose;
use parry3d::query::{PointQuery, Ray, RayCast};
use parry3d::shape::{Ball, TriMesh as ParryMesh};
use rand::Rng;

use super::{Figure, PARRY3D, Workload};
use crate::harness::{Answer, Batch, Prepared};

/// Queries per batch.
const QUERIES: usize = 10_000;

pub fn workloads() -> Vec<Workload> {
    let build = |name, prepare| Workload {
        name,
        metric: "ms/build",
        ns_per_unit: 1e6,
        peer: PARRY3D,
        items: 1,
        check_items: 1,
        balanced: false,
        prepare,
    };
    let query = |name, metric, balanced, prepare| Workload {
        name,
        metric,
        ns_per_unit: 1.0,
        peer: PARRY3D,
        items: QUERIES,
        check_items: 500,
        balanced,
        prepare,
    };
    vec![
        build("build/bunny75k", |_, _| build_workload(bunny())),
        build("build/torus1m", |_, _| build_workload(Some(torus1m()))),
        query("ray/torus80k/closest", "ns/ray", false, |n, seed| ray_closest(Some(torus80k()), n, seed)),
        query("ray/bunny75k/closest", "ns/ray", false, |n, seed| ray_closest(bunny(), n, seed)),
        query("ray/torus1m/closest", "ns/ray", false, |n, seed| ray_closest(Some(torus1m()), n, seed)),
        query("ray/dragon871k/closest", "ns/ray", false, |n, seed| ray_closest(dragon(), n, seed)),
        query("ray/bunny75k/closest-t", "ns/ray", false, |n, seed| ray_closest_t(bunny(), n, seed)),
        query("ray/bunny75k/any", "ns/ray", false, |n, seed| ray_any(bunny(), n, seed)),
        query("sphere/bunny75k/overlap", "ns/test", true, |n, seed| sphere_overlap(bunny(), n, seed)),
        query("point/bunny75k/closest", "ns/query", false, |n, seed| point_closest(bunny(), n, seed)),
        Workload {
            name: "instance/bunny75k/scaled",
            metric: "ns/instance",
            ns_per_unit: 1.0,
            peer: PARRY3D,
            items: 16,
            check_items: 2,
            balanced: false,
            prepare: |n, seed| scaled_instance(bunny(), n, seed),
        },
    ]
}

/// Heap bytes per triangle of each library's mesh (vertices, indices, BVH, and whatever else
/// the mesh keeps), for the vendored bunny.
pub fn figures() -> Vec<Figure> {
    vec![Figure { name: "mem/bunny75k", metric: "bytes/tri", compute: bunny_memory }]
}

fn bunny_memory() -> Option<(f64, f64)> {
    let data = bunny()?;
    let tris = data.triangles.len() as f64;
    let ours = TriMesh::new(data.vertices.clone(), data.triangles.clone()).expect("valid mesh");
    let theirs = ParryMesh::new(data.vertices, data.triangles).expect("valid mesh");
    Some((ours.memory().total() as f64 / tris, theirs.heap_memory_size() as f64 / tris))
}

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets")
}

/// The Stanford bunny as remeshed by CGAL: 75,408 triangles, closed (vendored).
fn bunny() -> Option<MeshData> {
    load(&assets().join("cgal_bunny00.off")).ok()
}

/// The Stanford dragon, 871,414 triangles, when `scripts/fetch-meshes.sh` has fetched it.
fn dragon() -> Option<MeshData> {
    load(&assets().join("fetched/dragon_vrip.ply")).ok()
}

fn torus80k() -> MeshData {
    shapes::torus(1.0, 0.35, 400, 100)
}

fn torus1m() -> MeshData {
    shapes::torus(1.0, 0.35, 1000, 500)
}

/// Both libraries' meshes over the same data.
fn both(data: MeshData) -> (TriMesh, ParryMesh) {
    let ours = TriMesh::new(data.vertices.clone(), data.triangles.clone()).expect("valid mesh");
    let theirs = ParryMesh::new(data.vertices, data.triangles).expect("valid mesh");
    (ours, theirs)
}

/// One build per item. Both sides receive fresh copies of the vertex and index arrays, since both
/// constructors take ownership; the copy is timed on both sides alike.
fn build_workload(data: Option<MeshData>) -> Option<Box<dyn Prepared>> {
    let data = Arc::new(data?);
    let peer_data = data.clone();
    Some(Box::new(Batch::new(
        vec![data],
        vec![peer_data],
        |d: &Arc<MeshData>| {
            TriMesh::new(d.vertices.clone(), d.triangles.clone()).map(|m| m.triangle_count()).is_ok()
        },
        |d: &Arc<MeshData>| {
            ParryMesh::new(d.vertices.clone(), d.triangles.clone()).map(|m| m.indices().len()).is_ok()
        },
    )))
}

fn random_rays(rng: &mut TestRng, bounds: &Aabb3, n: usize) -> Vec<Ray3> {
    let center = bounds.center();
    let radius = bounds.size().length();
    (0..n)
        .map(|_| {
            let origin = center + random::unit3(rng) * radius;
            let target = bounds.min + (random::point3(rng, 0.5) + Vec3::splat(0.5)) * bounds.size();
            Ray3::new(origin, target - origin)
        })
        .collect()
}

fn to_parry_ray(r: &Ray3) -> Ray {
    Ray::new(r.origin, r.dir)
}

/// The same incoherent rays for both libraries, each asked by its own query (generic, so the
/// queries inline into the timed loop as before).
fn ray_workload<A: Answer + 'static>(
    data: Option<MeshData>,
    n: usize,
    seed: u64,
    ours: impl Fn(&TriMesh, &Ray3) -> A + 'static,
    theirs: impl Fn(&ParryMesh, &Ray) -> A + 'static,
) -> Option<Box<dyn Prepared>> {
    let (mesh, peer_mesh) = both(data?);
    let rays = random_rays(&mut random::rng(seed), &mesh.bounds(), n);
    let peer_rays = rays.iter().map(to_parry_ray).collect();
    Some(Box::new(Batch::new(
        rays,
        peer_rays,
        move |r: &Ray3| ours(&mesh, r),
        move |r: &Ray| theirs(&peer_mesh, r),
    )))
}

/// The closest hit as each library reports it in full: kollide's `cast_ray` (t, point, normal,
/// triangle, barycentrics) against parry's `cast_local_ray_and_get_normal` (t, normal, feature).
fn ray_closest(data: Option<MeshData>, n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    ray_workload(
        data,
        n,
        seed,
        |m, r| m.cast_ray(r, f32::MAX).map(|h| h.t),
        |m, r| m.cast_local_ray_and_get_normal(r, f32::MAX, false).map(|h| h.time_of_impact),
    )
}

/// The closest hit's `t` alone: kollide's `cast_ray_t` against parry's `cast_local_ray`.
fn ray_closest_t(data: Option<MeshData>, n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    ray_workload(data, n, seed, |m, r| m.cast_ray_t(r, f32::MAX), |m, r| m.cast_local_ray(r, f32::MAX, false))
}

fn ray_any(data: Option<MeshData>, n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    ray_workload(
        data,
        n,
        seed,
        |m, r| m.intersects_ray(r, f32::MAX),
        |m, r| m.intersects_local_ray(r, f32::MAX),
    )
}

/// Balls around random points of the mesh's box, sized so about half touch the surface.
fn sphere_overlap(data: Option<MeshData>, n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let (ours, theirs) = both(data?);
    let bounds = ours.bounds();
    let scale = bounds.size().max_element();
    let mut rng = random::rng(seed);
    let spheres: Vec<Sphere> = (0..n)
        .map(|_| {
            let c = bounds.min + (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * bounds.size();
            Sphere::new(c, rng.random_range(0.02..0.16) * scale)
        })
        .collect();
    let peer = spheres.iter().map(|s| (Pose::from_translation(s.center), Ball::new(s.radius))).collect();
    let identity = Pose::IDENTITY;
    Some(Box::new(Batch::new(
        spheres,
        peer,
        move |s: &Sphere| ours.sphere_touches_surface(s),
        move |(pose, ball): &(Pose, Ball)| {
            parry3d::query::intersection_test(pose, ball, &identity, &theirs).is_ok_and(|i| i.intersecting)
        },
    )))
}

fn point_closest(data: Option<MeshData>, n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let (ours, theirs) = both(data?);
    let grown = ours.bounds().expanded(0.1 * ours.bounds().size().max_element());
    let mut rng = random::rng(seed);
    let points: Vec<Vec3> = (0..n)
        .map(|_| grown.min + (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * grown.size())
        .collect();
    Some(Box::new(Batch::new(
        points.clone(),
        points,
        move |p: &Vec3| ours.closest_point(*p, f32::INFINITY).map(|c| c.distance),
        move |p: &Vec3| Some((theirs.project_local_point(*p, false).point - *p).length()),
    )))
}

/// A new non-uniformly scaled instance of an existing mesh. kollide places the shared mesh by an
/// affine map; parry has to copy the mesh and scale it (`TriMesh::scaled`), which also refits its
/// BVH. The parry side includes the copy, since the original is still needed for other instances.
fn scaled_instance(data: Option<MeshData>, n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let (ours, theirs) = both(data?);
    let (ours, theirs) = (Arc::new(ours), Arc::new(theirs));
    let mut rng = random::rng(seed);
    let scales: Vec<Vec3> = (0..n)
        .map(|_| {
            Vec3::new(rng.random_range(0.5..2.0), rng.random_range(0.5..2.0), rng.random_range(0.5..2.0))
        })
        .collect();
    Some(Box::new(Batch::new(
        scales.clone(),
        scales,
        move |s: &Vec3| MeshInstance::new(ours.clone(), Affine3A::from_scale(*s)).is_err(),
        move |s: &Vec3| (*theirs).clone().scaled(*s).indices().is_empty(),
    )))
}
