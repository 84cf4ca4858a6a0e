//! Convex shapes against triangle meshes: the BVH query equals a scan of every triangle, active
//! edges are the creases of the surface, and a box sliding over flat or gently curved grids gets
//! face normals at every step (no ghost bumps), where free-standing triangles would bump it.

use glam::{Affine3A, Quat, Vec3};
use kollide::mesh::TriMesh;
use kollide::narrow::{
    ContactManifold, GjkCache, InternalEdges, NarrowError, PartManifold, contact_manifold,
    convex_mesh_manifolds,
};
use kollide::shape::{Ball, Capsule, ConvexShape, Cuboid, Triangle};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::shapes;
use rand::Rng;

fn mesh_of(data: kollide::mesh::io::MeshData) -> TriMesh {
    TriMesh::new(data.vertices, data.triangles).unwrap()
}

/// A 20,000-triangle grid over `[-1, 1]²`, bent by `height(x, y)`.
fn grid(height: impl Fn(f32, f32) -> f32) -> TriMesh {
    let mut data = shapes::grid(100);
    for v in &mut data.vertices {
        v.z = height(v.x, v.y);
    }
    mesh_of(data)
}

fn face_normal(mesh: &TriMesh, id: u32) -> Vec3 {
    let [a, b, c] = mesh.triangle(id).unwrap();
    (b - a).cross(c - a).normalize()
}

/// The largest angle (degrees) between a manifold normal and its triangle's face normal (the
/// normal points from the box down into the mesh, so against the upward face normal).
fn worst_angle(mesh: &TriMesh, manifolds: &[PartManifold]) -> f32 {
    manifolds
        .iter()
        .map(|m| m.manifold.normal.dot(-face_normal(mesh, m.part_b)).clamp(-1.0, 1.0).acos().to_degrees())
        .fold(0.0, f32::max)
}

/// Slides a box over `mesh` resting at `rest(x, y)`, sunk by 1% of its height, in 600 steps
/// along a diagonal with a turning yaw; returns the worst normal angle with and without the
/// edge data, and the number of steps with contacts.
fn slide(mesh: &TriMesh, rest: impl Fn(f32, f32) -> f32) -> (f32, f32, usize) {
    let half = Vec3::new(0.05, 0.03, 0.02);
    let shape = ConvexShape::Cuboid(Cuboid::new(half));
    let (mut with, mut without, mut touching) = (0.0f32, 0.0f32, 0);
    let mut out = Vec::new();
    for step in 0..600 {
        let s = step as f32 / 600.0;
        let (x, y) = (-0.8 + 1.6 * s, -0.6 + 1.1 * s);
        let pose = Affine3A::from_rotation_translation(
            Quat::from_rotation_z(3.0 * s),
            Vec3::new(x, y, rest(x, y) + half.z * 0.99),
        );
        convex_mesh_manifolds(&shape, &pose, mesh, &Affine3A::IDENTITY, InternalEdges::Remove, 0.0, &mut out)
            .unwrap();
        touching += usize::from(!out.is_empty());
        with = with.max(worst_angle(mesh, &out));
        convex_mesh_manifolds(&shape, &pose, mesh, &Affine3A::IDENTITY, InternalEdges::Keep, 0.0, &mut out)
            .unwrap();
        without = without.max(worst_angle(mesh, &out));
    }
    (with, without, touching)
}

#[test]
fn a_box_sliding_on_a_flat_grid_gets_face_normals() {
    let mesh = grid(|_, _| 0.0);
    assert_eq!(mesh.triangle_count(), 20_000);
    let (with, without, touching) = slide(&mesh, |_, _| 0.0);
    assert_eq!(touching, 600, "the sunk box touches the grid at every step");
    assert!(with < 1.0, "a ghost bump of {with}° with internal edges removed");
    assert!(without > 5.0, "free-standing triangles should tilt some normals ({without}°)");
}

#[test]
fn a_box_sliding_on_a_gently_curved_grid_gets_face_normals() {
    let height = |x: f32, y: f32| 0.05 * (2.0 * x).sin() + 0.03 * (3.0 * y).cos();
    let mesh = grid(height);
    // The box rests on the surface at its center; over a curved surface some corners sink more.
    let (with, _, touching) = slide(&mesh, height);
    assert!(touching > 500, "{touching} steps with contact");
    assert!(with < 1.0, "a ghost bump of {with}° on the curved grid");
}

#[test]
fn active_edges_are_the_creases() {
    let flat = grid(|_, _| 0.0);
    // Triangle 0 is the corner cell's lower triangle: edges 0 (bottom, boundary) and 1 (shared
    // with its right neighbour, flat) and 2 (the cell's diagonal, flat).
    assert!(flat.is_edge_active(0, 0));
    assert!(!flat.is_edge_active(0, 1) && !flat.is_edge_active(0, 2));
    let interior =
        (0..flat.triangle_count() as u32).filter(|&t| (0..3).all(|e| !flat.is_edge_active(t, e))).count();
    assert!(interior > 19_000, "{interior} triangles with only internal edges");
    // A convex solid: every edge is a crease.
    let ball = mesh_of(shapes::icosphere(2));
    assert!((0..ball.triangle_count() as u32).all(|t| (0..3).all(|e| ball.is_edge_active(t, e))));
    // A concave fold (two triangles meeting in a valley) has an inactive shared edge.
    let valley = TriMesh::new(
        vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(-1.0, 0.5, 0.5),
            Vec3::new(1.0, 0.5, 0.5),
        ],
        vec![[0, 1, 2], [1, 0, 3]],
    )
    .unwrap();
    assert!(!valley.is_edge_active(0, 0) && !valley.is_edge_active(1, 0), "the valley's shared edge");
    let ridge = TriMesh::new(
        vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(-1.0, 0.5, -0.5),
            Vec3::new(1.0, 0.5, -0.5),
        ],
        vec![[0, 1, 2], [1, 0, 3]],
    )
    .unwrap();
    // Seen from +z the ridge is convex: counter-clockwise triangles face up.
    let up = face_normal(&ridge, 0).z > 0.0;
    assert_eq!(ridge.is_edge_active(0, 0), up, "the ridge's shared edge is a crease when the faces face up");
}

fn random_shape(rng: &mut TestRng) -> ConvexShape {
    match rng.random_range(0..3) {
        0 => ConvexShape::Ball(Ball::new(rng.random_range(0.05..0.4))),
        1 => ConvexShape::Cuboid(Cuboid::new(Vec3::new(
            rng.random_range(0.05..0.4),
            rng.random_range(0.05..0.4),
            rng.random_range(0.05..0.4),
        ))),
        _ => ConvexShape::Capsule(Capsule::new(rng.random_range(0.05..0.3), rng.random_range(0.05..0.2))),
    }
}

/// Without edge data the BVH query is exactly the per-triangle manifold of every triangle within
/// the prediction, found by scanning all of them.
#[test]
fn mesh_manifolds_equal_a_scan_of_every_triangle() {
    let mut rng = random::rng(21);
    let mesh = mesh_of(shapes::asteroid(22, 800));
    let mut out = Vec::new();
    let mut manifold = ContactManifold::default();
    let mut touching = 0;
    let n = cases(10_000);
    for _ in 0..n {
        let shape = random_shape(&mut rng);
        let mesh_map = random::affine3(&mut rng, 0.5);
        let near = mesh.bounds().center() + random::unit3(&mut rng) * rng.random_range(0.0..1.5);
        let shape_map =
            Affine3A::from_rotation_translation(random::rotation3(&mut rng), mesh_map.transform_point3(near));
        let prediction = rng.random_range(0.0..0.05);
        convex_mesh_manifolds(
            &shape,
            &shape_map,
            &mesh,
            &mesh_map,
            InternalEdges::Keep,
            prediction,
            &mut out,
        )
        .unwrap();
        let mut expected = Vec::new();
        for id in 0..mesh.triangle_count() as u32 {
            let [a, b, c] = mesh.triangle(id).unwrap();
            let triangle = ConvexShape::Triangle(Triangle::new(a, b, c));
            let mut cache = GjkCache::default();
            if contact_manifold(
                &shape,
                &shape_map,
                &triangle,
                &mesh_map,
                prediction,
                &mut cache,
                &mut manifold,
            )
            .is_ok()
                && !manifold.is_empty()
            {
                expected.push(PartManifold { part_a: 0, part_b: id, manifold });
            }
        }
        assert_eq!(out, expected);
        touching += usize::from(!out.is_empty());
    }
    assert!(touching > n / 5 && touching < n * 9 / 10, "{touching} of {n} poses touch");
}

#[test]
fn bad_input_is_an_error_and_degenerate_triangles_are_harmless() {
    let mesh = grid(|_, _| 0.0);
    let shape = ConvexShape::Ball(Ball::new(0.1));
    let at = Affine3A::from_translation(Vec3::new(0.0, 0.0, 0.05));
    let mut out = Vec::new();
    let id = Affine3A::IDENTITY;
    assert_eq!(
        convex_mesh_manifolds(&shape, &at, &mesh, &id, InternalEdges::Keep, f32::NAN, &mut out),
        Err(NarrowError::NonFinite)
    );
    let flat = Affine3A::from_scale(Vec3::new(1.0, 1.0, 0.0));
    assert_eq!(
        convex_mesh_manifolds(&shape, &at, &mesh, &flat, InternalEdges::Keep, 0.0, &mut out),
        Err(NarrowError::NonFinite)
    );
    let nan = Affine3A::from_translation(Vec3::NAN);
    assert_eq!(
        convex_mesh_manifolds(&shape, &nan, &mesh, &id, InternalEdges::Keep, 0.0, &mut out),
        Err(NarrowError::NonFinite)
    );
    let bad = ConvexShape::Ball(Ball::new(-1.0));
    assert_eq!(
        convex_mesh_manifolds(&bad, &at, &mesh, &id, InternalEdges::Keep, 0.0, &mut out),
        Err(NarrowError::InvalidShape(0))
    );
    // A mesh of degenerate triangles (collinear corners, repeated vertices): no panic.
    let degenerate = TriMesh::new(
        vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0, Vec3::Y],
        vec![[0, 1, 2], [0, 0, 3], [0, 1, 3]],
    )
    .unwrap();
    let ball = Affine3A::from_translation(Vec3::new(0.5, 0.1, 0.05));
    convex_mesh_manifolds(&shape, &ball, &degenerate, &id, InternalEdges::Remove, 0.01, &mut out).unwrap();
    assert!(out.iter().any(|m| m.part_b == 2), "the proper triangle is touched: {out:?}");
    assert!(degenerate.is_edge_active(99, 0), "an unknown triangle's edges count as active");
}

/// A contact on a boundary edge keeps its own normal when internal edges are removed: a ball
/// beside the edge x = 1 of a two-triangle square, touching it from the side. The first
/// triangle's corners put that edge first and the shared (internal) diagonal second, so that a
/// mix-up of which corner's weight marks which edge would take the point for an internal one
/// (found by the mutation run).
#[test]
fn a_contact_on_a_boundary_edge_keeps_its_normal() {
    let vertices = vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
    let mesh = TriMesh::new(vertices, vec![[1, 2, 0], [2, 3, 0]]).unwrap();
    let ball = ConvexShape::Ball(Ball::new(0.33));
    let pose = Affine3A::from_translation(Vec3::new(1.3, 0.5, -0.1));
    let (mut keep, mut remove) = (Vec::new(), Vec::new());
    let identity = Affine3A::IDENTITY;
    convex_mesh_manifolds(&ball, &pose, &mesh, &identity, InternalEdges::Keep, 0.0, &mut keep).unwrap();
    convex_mesh_manifolds(&ball, &pose, &mesh, &identity, InternalEdges::Remove, 0.0, &mut remove).unwrap();
    assert_eq!((keep.len(), remove.len()), (1, 1));
    let (kept, removed) = (keep[0].manifold.normal, remove[0].manifold.normal);
    assert!(removed.dot(kept) > 0.9999, "{removed} vs {kept}");
    assert!(removed.z.abs() < 0.5, "the edge's normal, not the face's: {removed}");
}
