//! Convex shape against a large triangle mesh: a box resting on a bumpy 1M-triangle grid.
//!
//! kollide: [`convex_mesh_manifolds`] with internal edges removed ([`InternalEdges::Remove`]);
//! parry: `contact_manifolds` of the default dispatcher between a cuboid and a `TriMesh` built
//! with `FIX_INTERNAL_EDGES` (its own internal-edge correction), with a fresh workspace per
//! query, as kollide keeps no state between queries. Both return one manifold per touching
//! triangle. Each item is one pose: the box (about 3 × 2 grid cells) at a random spot and yaw,
//! either sunk 10% of its height into the surface or lifted clear of it by the same amount; the
//! answer is whether any contact was found.

use glam::{Affine3A, Quat, Vec3};
use kollide::mesh::TriMesh;
use kollide::narrow::{InternalEdges, convex_mesh_manifolds};
use kollide::shape::{ConvexShape, Cuboid};
use kollide_testkit::random;
use kollide_testkit::shapes;
use parry3d::math::Pose;
use parry3d::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d::shape::{Cuboid as ParryCuboid, TriMesh as ParryMesh, TriMeshFlags};
use rand::Rng;

use super::{PARRY3D, Workload};
use crate::harness::{Batch, Prepared};

pub fn workloads() -> Vec<Workload> {
    vec![Workload {
        name: "convex/box-vs-mesh1m/manifold",
        metric: "ns/query",
        ns_per_unit: 1.0,
        peer: PARRY3D,
        items: 2_000,
        check_items: 200,
        balanced: true,
        prepare: box_on_grid,
    }]
}

/// The surface height of the bumpy grid.
fn height(x: f32, y: f32) -> f32 {
    0.02 * (5.0 * x).sin() * (4.0 * y).cos()
}

fn box_on_grid(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    // 2 · 708² = 1,002,528 triangles over [-1, 1]², cells 0.0028 wide.
    let mut data = shapes::grid(708);
    for v in &mut data.vertices {
        v.z = height(v.x, v.y);
    }
    let ours = TriMesh::new(data.vertices.clone(), data.triangles.clone()).expect("valid mesh");
    let theirs = ParryMesh::with_flags(data.vertices, data.triangles, TriMeshFlags::FIX_INTERNAL_EDGES)
        .expect("valid mesh");
    let half = Vec3::new(0.004, 0.003, 0.002);
    let mut rng = random::rng(seed);
    let poses: Vec<(Quat, Vec3)> = (0..n)
        .map(|i| {
            let (x, y) = (rng.random_range(-0.9..0.9), rng.random_range(-0.9..0.9));
            let yaw = Quat::from_rotation_z(rng.random_range(0.0..std::f32::consts::TAU));
            // The bumps tilt the surface by at most ~6°, so a box lifted by a fifth of its
            // height clears it and one sunk by a tenth touches.
            let lift = if i % 2 == 0 { -0.2 * half.z } else { 0.5 * half.z };
            (yaw, Vec3::new(x, y, height(x, y) + half.z + lift))
        })
        .collect();
    let shape = ConvexShape::Cuboid(Cuboid::new(half));
    let cuboid = ParryCuboid::new(half);
    let kollide_poses: Vec<Affine3A> =
        poses.iter().map(|&(q, t)| Affine3A::from_rotation_translation(q, t)).collect();
    let peer_poses: Vec<Pose> = poses.iter().map(|&(q, t)| Pose::from_parts(t, q)).collect();
    let out = std::cell::RefCell::new(Vec::new());
    let peer_out = std::cell::RefCell::new(Vec::<ContactManifold<(), ()>>::new());
    Some(Box::new(Batch::new(
        kollide_poses,
        peer_poses,
        move |pose: &Affine3A| {
            let out = &mut *out.borrow_mut();
            convex_mesh_manifolds(&shape, pose, &ours, &Affine3A::IDENTITY, InternalEdges::Remove, 0.0, out)
                .expect("valid input");
            !out.is_empty()
        },
        move |pose: &Pose| {
            let manifolds = &mut *peer_out.borrow_mut();
            manifolds.clear();
            let mut workspace = None;
            DefaultQueryDispatcher
                .contact_manifolds(&pose.inverse(), &cuboid, &theirs, 0.0, manifolds, &mut workspace)
                .expect("supported pair");
            manifolds.iter().any(|m| !m.points.is_empty())
        },
    )))
}
