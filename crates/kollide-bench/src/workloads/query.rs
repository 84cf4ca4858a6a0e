//! `query/<pair>/<query>`: the cost of the `query` layer's dispatch. The peer is kollide itself,
//! calling the layer below directly with the same inputs: `narrow::contact` for convex pairs,
//! `MeshInstance::intersects_mesh` (instances built once, outside the timing) for meshes. A
//! speedup of 1 means the dispatch is free; the target is at least 0.95.

use std::sync::Arc;

use glam::{Affine3A, Mat3, Vec3};
use kollide::mesh::{MeshInstance, TriMesh};
use kollide::narrow::{self, GjkCache};
use kollide::query::{self, Shape};
use kollide::shape::{Ball, Capsule, ConvexHull, ConvexShape, Cuboid, Cylinder, Triangle};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::shapes;
use rand::Rng;

use super::Workload;
use crate::harness::{Batch, Prepared};

/// The peer of every row here: the layer below the dispatch.
const DIRECT: &str = "kollide, direct call";

pub fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            name: "query/convex-convex/contact",
            metric: "ns/query",
            ns_per_unit: 1.0,
            peer: DIRECT,
            items: 2048,
            check_items: 500,
            balanced: true,
            prepare: convex_contact,
        },
        Workload {
            name: "query/mesh-mesh/random-close",
            metric: "µs/test",
            ns_per_unit: 1e3,
            peer: DIRECT,
            items: 100,
            check_items: 6,
            balanced: true,
            prepare: mesh_random_close,
        },
    ]
}

/// A random convex shape of one of six kinds (cycled by `i`), about a unit across, and its
/// bounding radius.
fn convex(rng: &mut TestRng, i: usize) -> (ConvexShape, f32) {
    let mut size = |lo: f32, hi: f32| rng.random_range(lo..hi);
    match i % 6 {
        0 => {
            let h = Vec3::new(size(0.3, 1.0), size(0.3, 1.0), size(0.3, 1.0));
            (Cuboid::new(h).into(), h.length())
        }
        1 => {
            let (h, r) = (size(0.3, 1.0), size(0.2, 0.5));
            (Capsule::new(h, r).into(), h + r)
        }
        2 => {
            let (h, r) = (size(0.3, 1.0), size(0.3, 0.8));
            (Cylinder::new(h, r).into(), (h * h + r * r).sqrt())
        }
        3 => {
            let points: Vec<Vec3> =
                (0..32).map(|_| random::unit3(rng) * rng.random_range(0.6..1.0)).collect();
            (ConvexHull::new(&points).expect("random points span a volume").into(), 1.0)
        }
        4 => {
            let t = random::triangle3(rng, Vec3::ZERO, 1.0);
            let r = t.iter().map(|p| p.length()).fold(0.0, f32::max);
            (Triangle::new(t[0], t[1], t[2]).into(), r)
        }
        _ => {
            let r = size(0.3, 1.0);
            (Ball::new(r).into(), r)
        }
    }
}

type ConvexInput = (ConvexShape, Affine3A, ConvexShape, Affine3A);

/// Pairs of every mix of the six kinds at rigid world poses, alternating deep overlaps (centres
/// within 40% of the radii's sum) and misses (centres beyond the radii's sum).
fn convex_contact(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let inputs: Vec<ConvexInput> = (0..n)
        .map(|i| {
            let (a, ra) = convex(&mut rng, i);
            let (b, rb) = convex(&mut rng, i / 6 + i);
            let ta = random::point3(&mut rng, 2.0);
            let reach = if i % 2 == 0 { rng.random_range(0.0..0.4) } else { rng.random_range(1.05..1.5) };
            let tb = ta + random::unit3(&mut rng) * reach * (ra + rb);
            let pose =
                |rng: &mut TestRng, t: Vec3| Affine3A::from_rotation_translation(random::rotation3(rng), t);
            (a, pose(&mut rng, ta), b, pose(&mut rng, tb))
        })
        .collect();
    let shapes: Vec<(Shape, Affine3A, Shape, Affine3A)> = inputs
        .iter()
        .map(|(a, am, b, bm)| (Shape::Convex(a.clone()), *am, Shape::Convex(b.clone()), *bm))
        .collect();
    Some(Box::new(Batch::new(
        shapes,
        inputs,
        |(a, am, b, bm): &(Shape, Affine3A, Shape, Affine3A)| {
            query::contact(a, am, b, bm, 0.0).ok().flatten().map(|c| c.separation)
        },
        |(a, am, b, bm): &ConvexInput| {
            narrow::contact(a, am, b, bm, 0.0, &mut GjkCache::default()).ok().flatten().map(|c| c.separation)
        },
    )))
}

/// Two 50,000-triangle asteroids at random close world placements (rotated, stretched by up to
/// 1.5 along random axes), alternating hits and misses.
fn mesh_random_close(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let mesh = |seed| {
        let data = shapes::asteroid(seed, 50_000);
        Arc::new(TriMesh::new(data.vertices, data.triangles).expect("a valid asteroid"))
    };
    let (a, b) = (mesh(1), mesh(2));
    let mut rng = random::rng(seed);
    let place = |rng: &mut TestRng, t: Vec3| {
        let stretch =
            Vec3::new(rng.random_range(1.0..1.5), rng.random_range(1.0..1.5), rng.random_range(1.0..1.5));
        Affine3A::from_mat3_translation(
            Mat3::from_quat(random::rotation3(rng)) * Mat3::from_diagonal(stretch),
            t,
        )
    };
    let reach = 0.5 * (a.bounds().size().length() + b.bounds().size().length());
    let mut pairs: Vec<(MeshInstance, MeshInstance)> = Vec::with_capacity(n);
    while pairs.len() < n {
        let ta = random::point3(&mut rng, 5.0);
        let tb = ta + random::unit3(&mut rng) * reach * rng.random_range(0.3..0.8);
        let (am, bm) = (place(&mut rng, ta), place(&mut rng, tb));
        let x = MeshInstance::new(a.clone(), am).expect("invertible");
        let y = MeshInstance::new(b.clone(), bm).expect("invertible");
        if x.intersects_mesh(&y, None) == pairs.len().is_multiple_of(2) {
            pairs.push((x, y));
        }
    }
    let shapes: Vec<(Shape, Affine3A, Shape, Affine3A)> = pairs
        .iter()
        .map(|(x, y)| (Shape::Mesh(a.clone()), *x.to_world(), Shape::Mesh(b.clone()), *y.to_world()))
        .collect();
    Some(Box::new(Batch::new(
        shapes,
        pairs,
        |(a, am, b, bm): &(Shape, Affine3A, Shape, Affine3A)| {
            query::intersects(a, am, b, bm).unwrap_or(false)
        },
        |(x, y): &(MeshInstance, MeshInstance)| x.intersects_mesh(y, None),
    )))
}
