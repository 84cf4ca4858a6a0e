//! The `convex` scene: pairs of convex shapes (balls, capsules, boxes, cylinders, cones, 32-point
//! hulls, rounded boxes) under rigid and under sheared, non-uniformly scaled placements, asked for
//! their distance, contact and contact manifold; rays against the shapes; and a box sliding over a
//! bumpy 20,000-triangle grid, whose contact normals show whether the mesh's internal edges bump it.

use std::cell::RefCell;

use glam::{Affine3A, Mat3, Quat, Vec3};
use kollide::math::Ray3;
use kollide::mesh::TriMesh;
use kollide::narrow::{
    ContactManifold, GjkCache, InternalEdges, cast_ray, contact, contact_manifold, convex_mesh_manifolds,
    distance,
};
use kollide::shape::{Ball, Capsule, Cone, ConvexHull, ConvexShape, Cuboid, Cylinder, Rounded};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::shapes;
use rand::Rng;

use super::{Row, Scene, Settings, time_tests};

pub const SCENE: Scene = Scene {
    name: "convex",
    about: "convex pairs (GJK, EPA, separating axes, manifolds) under rigid and affine maps, a box on a mesh",
    run,
};

/// One of the scene's shapes, each about one unit across.
fn random_shape(rng: &mut TestRng) -> ConvexShape {
    let size = |rng: &mut TestRng| rng.random_range(0.2..0.5);
    match rng.random_range(0..7) {
        0 => ConvexShape::Ball(Ball::new(size(rng))),
        1 => ConvexShape::Capsule(Capsule::new(size(rng), size(rng))),
        2 => ConvexShape::Cuboid(Cuboid::new(Vec3::new(size(rng), size(rng), size(rng)))),
        3 => ConvexShape::Cylinder(Cylinder::new(size(rng), size(rng))),
        4 => ConvexShape::Cone(Cone::new(size(rng), size(rng))),
        5 => {
            let points: Vec<Vec3> = (0..32).map(|_| random::point3(rng, 0.5)).collect();
            ConvexShape::Hull(ConvexHull::new(&points).expect("32 random points span a volume"))
        }
        _ => ConvexShape::RoundedCuboid(Rounded::new(Cuboid::new(Vec3::splat(size(rng))), 0.05)),
    }
}

/// A placement near the origin: rigid, or (when `affine`) with a non-uniform scale and a shear.
fn placement(rng: &mut TestRng, affine: bool) -> Affine3A {
    let rotation = Mat3::from_quat(random::rotation3(rng));
    let linear = if affine {
        let scale =
            Vec3::new(rng.random_range(0.6..1.5), rng.random_range(0.6..1.5), rng.random_range(0.6..1.5));
        let shear = Mat3::from_cols(Vec3::X, Vec3::new(rng.random_range(-0.4..0.4), 1.0, 0.0), Vec3::Z);
        rotation * shear * Mat3::from_diagonal(scale)
    } else {
        rotation
    };
    Affine3A::from_mat3_translation(linear, random::point3(rng, 0.6))
}

/// Two shapes with their placements.
struct Pair {
    a: ConvexShape,
    a_map: Affine3A,
    b: ConvexShape,
    b_map: Affine3A,
}

fn pairs(rng: &mut TestRng, n: usize, affine: bool) -> Vec<Pair> {
    (0..n)
        .map(|_| Pair {
            a: random_shape(rng),
            a_map: placement(rng, affine),
            b: random_shape(rng),
            b_map: placement(rng, affine),
        })
        .collect()
}

fn run(settings: &Settings, notes: &mut Vec<String>) -> Vec<Row> {
    let mut rng = random::rng(settings.seed);
    // GJK and EPA cost about a microsecond: fewer pairs than primitive tests.
    let n = (settings.items / 8).max(16);
    let rigid = pairs(&mut rng, n, false);
    let affine = pairs(&mut rng, n, true);
    let cache = RefCell::new(GjkCache::default());
    let manifold = RefCell::new(ContactManifold::default());
    let touching = |p: &Pair| {
        distance(&p.a, &p.a_map, &p.b, &p.b_map, &mut cache.borrow_mut()).expect("valid shapes") == 0.0
    };
    let contact_of = |p: &Pair| {
        contact(&p.a, &p.a_map, &p.b, &p.b_map, 0.0, &mut cache.borrow_mut()).expect("valid shapes").is_some()
    };
    let manifold_of = |p: &Pair| {
        let out = &mut manifold.borrow_mut();
        contact_manifold(&p.a, &p.a_map, &p.b, &p.b_map, 0.0, &mut cache.borrow_mut(), out)
            .expect("valid shapes");
        !out.is_empty()
    };
    let rays: Vec<(ConvexShape, Affine3A, Ray3)> = (0..n)
        .map(|_| {
            let shape = random_shape(&mut rng);
            let map = placement(&mut rng, true);
            let origin = random::unit3(&mut rng) * 3.0;
            (shape, map, Ray3::new(origin, random::point3(&mut rng, 0.7) - origin))
        })
        .collect();

    let rows = vec![
        time_tests("distance, rigid", "narrow::distance", &rigid, settings, touching),
        time_tests("distance, sheared", "narrow::distance", &affine, settings, touching),
        time_tests("contact, rigid", "narrow::contact", &rigid, settings, contact_of),
        time_tests("contact, sheared", "narrow::contact", &affine, settings, contact_of),
        time_tests("manifold, rigid", "narrow::contact_manifold", &rigid, settings, manifold_of),
        time_tests("manifold, sheared", "narrow::contact_manifold", &affine, settings, manifold_of),
        time_tests("ray vs sheared shape", "narrow::cast_ray", &rays, settings, |(shape, map, ray)| {
            cast_ray(shape, map, ray, 1.0).expect("valid ray and shape").is_some()
        }),
        slide(settings, notes),
    ];
    notes.push(format!(
        "{n} random pairs of 7 shape kinds (balls, capsules, boxes, cylinders, cones, 32-point hulls, rounded \
         boxes); sheared pairs are scaled by 0.6 to 1.5 per axis and sheared by up to 0.4"
    ));
    rows
}

/// A box sliding over a gently bumpy 20,000-triangle grid, resting on it, one manifold query per
/// step; the note gives the worst angle between a contact normal and its triangle's face normal.
fn slide(settings: &Settings, notes: &mut Vec<String>) -> Row {
    let mut data = shapes::grid(100);
    let height = |x: f32, y: f32| 0.05 * (3.0 * x).sin() * (2.0 * y).cos();
    for v in &mut data.vertices {
        v.z = height(v.x, v.y);
    }
    let mesh = TriMesh::new(data.vertices, data.triangles).expect("generated grids are valid");
    let half = Vec3::new(0.05, 0.03, 0.02);
    let block = ConvexShape::Cuboid(Cuboid::new(half));
    let steps = (settings.items / 8).max(64);
    let poses: Vec<Affine3A> = (0..steps)
        .map(|step| {
            let s = step as f32 / steps as f32;
            let (x, y) = (-0.8 + 1.6 * s, -0.6 + 1.1 * s);
            Affine3A::from_rotation_translation(
                Quat::from_rotation_z(3.0 * s),
                Vec3::new(x, y, height(x, y) + 0.0198),
            )
        })
        .collect();
    let out = RefCell::new(Vec::new());
    let worst = RefCell::new(0.0f32);
    let row = time_tests(
        "box sliding on a 20k-triangle grid",
        "narrow::convex_mesh_manifolds",
        &poses,
        settings,
        |pose| {
            let out = &mut out.borrow_mut();
            convex_mesh_manifolds(&block, pose, &mesh, &Affine3A::IDENTITY, InternalEdges::Remove, 0.0, out)
                .expect("valid box and placement");
            for m in out.iter() {
                let [a, b, c] = mesh.triangle(m.part_b).expect("ids come from the mesh");
                let face = (b - a).cross(c - a).normalize();
                let angle = m.manifold.normal.dot(-face).clamp(-1.0, 1.0).acos().to_degrees();
                let mut worst = worst.borrow_mut();
                *worst = worst.max(angle);
            }
            !out.is_empty()
        },
    );
    notes.push(format!(
        "sliding box: worst contact normal {:.3}° off its triangle's face normal (internal edges give no bumps)",
        worst.borrow()
    ));
    row
}
