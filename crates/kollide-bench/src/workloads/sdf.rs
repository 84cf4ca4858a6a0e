//! Field workloads: a point set against a sampled signed-distance grid.
//!
//! A's point set is the ~1,000 vertices of an asteroid; B is a 50k-triangle asteroid, sampled
//! into a [`GridField`] of 64 cells along its longest side, with the exact [`SpatialSignature`]
//! of that grid. Each item is one check under one pose (rotation, translation, uniform scale):
//! is any of A's points inside B? kollide answers from the grid (the signature first); the peer,
//! parry, answers the same question with `contains_point` on B's triangle mesh (oriented, with
//! pseudo-normals). Both map the points into B's frame. The grid is within its error bound `e`
//! of the exact distance, so poses are kept only when the exact answer is decided by more than
//! `e` (the deepest point is deeper than `e`, or every point is farther than `e`): there both
//! must agree.

use glam::{Affine3A, Vec3};
use kollide::field::{GridField, PointFieldStats, SpatialSignature, first_point_inside};
use kollide::mesh::TriMesh;
use kollide_testkit::random;
use kollide_testkit::shapes;
use parry3d::query::PointQuery;
use parry3d::shape::{TriMesh as ParryMesh, TriMeshFlags};
use rand::Rng;

use super::{PARRY3D, Workload};
use crate::harness::{Batch, Prepared};

pub fn workloads() -> Vec<Workload> {
    let row = |name, prepare| Workload {
        name,
        metric: "µs/check",
        ns_per_unit: 1e3,
        peer: PARRY3D,
        items: 200,
        check_items: 40,
        balanced: true,
        prepare,
    };
    vec![
        row("sdf/points1k-vs-grid", |n, seed| points_vs_grid(n, seed, true)),
        row("sdf/points1k-vs-grid@no-signature", |n, seed| points_vs_grid(n, seed, false)),
    ]
}

/// One check: A's points mapped into B's frame by `pose`.
#[derive(Clone, Copy)]
struct Check {
    pose: Affine3A,
}

fn points_vs_grid(n: usize, seed: u64, with_signature: bool) -> Option<Box<dyn Prepared>> {
    let a = shapes::asteroid(seed, 2000);
    let b_data = shapes::asteroid(seed ^ 1, 50_000);
    let b = TriMesh::new(b_data.vertices.clone(), b_data.triangles.clone()).expect("valid mesh");
    let size = b.bounds().size().max_element();
    let grid = GridField::from_mesh(&b, size / 64.0).expect("closed mesh, moderate grid");
    let signature = SpatialSignature::from_grid(&grid, 1).expect("grid-sized signature");
    let bound = grid.interpolation_error();
    let theirs =
        ParryMesh::with_flags(b_data.vertices, b_data.triangles, TriMeshFlags::ORIENTED).expect("valid mesh");

    let mut rng = random::rng(seed);
    let mut checks = Vec::with_capacity(n);
    while checks.len() < n {
        let pose = Affine3A::from_scale_rotation_translation(
            Vec3::splat(rng.random_range(0.3..0.6)),
            random::rotation3(&mut rng),
            random::unit3(&mut rng) * size * rng.random_range(0.35..0.75),
        );
        let deepest = a
            .vertices
            .iter()
            .map(|&p| b.signed_distance(pose.transform_point3(p)).unwrap_or(f32::NAN))
            .fold(f32::INFINITY, f32::min);
        if deepest.abs() > bound + 1e-4 * size {
            checks.push(Check { pose });
        }
    }

    let points = a.vertices;
    let peer_points = points.clone();
    let signature = with_signature.then_some(signature);
    Some(Box::new(Batch::new(
        checks.clone(),
        checks,
        move |c: &Check| {
            first_point_inside(
                &points,
                &c.pose,
                &grid,
                &Affine3A::IDENTITY,
                signature.as_ref(),
                &mut PointFieldStats::default(),
            )
            .is_some()
        },
        move |c: &Check| peer_points.iter().any(|&p| theirs.contains_local_point(c.pose.transform_point3(p))),
    )))
}
