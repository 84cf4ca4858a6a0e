//! The `solids` scene (seeds 000 and 001): pairs of concave asteroids tested against each other
//! every frame under scaled and sheared placements, and the cheaper stand-ins of the seeds: a set
//! of 29 spheres around an asteroid, and an asteroid's sampled signed-distance field with its
//! spatial signature, tested against another asteroid's vertices.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

use glam::{Affine3A, Mat3, Vec3};
use kollide::field::{GridField, PointFieldStats, SpatialSignature, first_point_inside};
use kollide::mesh::{MeshInstance, MeshMeshCache, SphereSet, TriMesh};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::shapes;
use rand::Rng;

use super::{Row, Scene, Settings, time_tests};

pub const SCENE: Scene = Scene {
    name: "solids",
    about: "asteroid vs asteroid under affine maps, sphere-set and distance-field stand-ins",
    run,
};

/// A typical sphere count for a character's stand-in.
const SPHERES: usize = 29;

/// B's placement in A's frame: a random rotation, scale and shear, at a distance where about
/// half of the pairs touch.
fn close_placement(rng: &mut TestRng, size: f32) -> Affine3A {
    let scale = Vec3::new(rng.random_range(0.6..1.4), rng.random_range(0.6..1.4), rng.random_range(0.6..1.4));
    let shear = Mat3::from_cols(Vec3::X, Vec3::new(rng.random_range(-0.3..0.3), 1.0, 0.0), Vec3::Z);
    let linear = Mat3::from_quat(random::rotation3(rng)) * shear * Mat3::from_diagonal(scale);
    Affine3A::from_mat3_translation(linear, random::unit3(rng) * size * rng.random_range(0.5..0.9))
}

fn run(settings: &Settings, notes: &mut Vec<String>) -> Vec<Row> {
    let mut rng = random::rng(settings.seed);
    let triangles = if settings.items < 4096 { 2_000 } else { 20_000 };
    let asteroid = |seed: u64| {
        let data = shapes::asteroid(seed, triangles);
        Arc::new(TriMesh::new(data.vertices, data.triangles).expect("generated meshes are valid"))
    };
    let (a, b) = (asteroid(settings.seed * 100), asteroid(settings.seed * 100 + 1));
    let size = a.bounds().size().max_element();

    // Mesh against mesh is far heavier than a ray: fewer pairs per row.
    let pairs: Vec<Affine3A> = (0..settings.items / 16).map(|_| close_placement(&mut rng, size)).collect();
    // The same pairs a frame later: a small extra rotation and shift.
    let nudge =
        Affine3A::from_rotation_translation(glam::Quat::from_rotation_y(0.01), Vec3::splat(0.002 * size));
    // A placed at the identity, so that the world is A's frame; B placed by each pair's map.
    let place =
        |mesh: &Arc<TriMesh>, map| MeshInstance::new(mesh.clone(), map).expect("invertible placement");
    let ia = place(&a, Affine3A::IDENTITY);
    let placed_b: Vec<MeshInstance> = pairs.iter().map(|&map| place(&b, map)).collect();
    let caches: Vec<RefCell<MeshMeshCache>> =
        pairs.iter().map(|_| RefCell::new(MeshMeshCache::new())).collect();
    for (ib, cache) in placed_b.iter().zip(&caches) {
        ia.intersects_mesh(ib, Some(&mut cache.borrow_mut()));
    }
    let moved: Vec<(usize, MeshInstance)> =
        pairs.iter().enumerate().map(|(i, &map)| (i, place(&b, nudge * map))).collect();

    let started = Instant::now();
    let set = SphereSet::cover_mesh(&b, SPHERES).expect("a mesh and a positive count");
    let cover_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let grid = GridField::from_mesh(&b, size / 48.0).expect("closed asteroid, moderate grid");
    let signature = SpatialSignature::from_grid(&grid, 1).expect("grid-sized signature");
    let field_ms = started.elapsed().as_secs_f64() * 1e3;
    // Maps from A's frame into B's, for the tests that run in B's frame.
    let a_in_b: Vec<Affine3A> = pairs.iter().map(|m| m.inverse()).collect();

    if let Some(volume) = set.cover_volume(&b, 32) {
        notes.push(format!(
            "{} balls cover asteroid B's surface (built in {cover_ms:.1} ms); they reach {:.0}% past its volume",
            set.spheres().len(),
            100.0 * volume.excess / volume.mesh
        ));
    }
    let [nx, ny, nz] = grid.dims();
    notes.push(format!(
        "B's distance grid: {nx}×{ny}×{nz} samples ({:.1} MB) and signature built in {field_ms:.0} ms; \
         error bound {:.3} of a {size:.2} asteroid",
        grid.memory_bytes() as f64 / 1e6,
        grid.interpolation_error()
    ));
    let (set_hits, solid_hits) = pairs.iter().zip(&placed_b).fold((0, 0), |(s, m), (map, ib)| {
        (
            s + usize::from(set.intersects_mesh(map, &a, &Affine3A::IDENTITY)),
            m + usize::from(ia.intersects_mesh(ib, None)),
        )
    });
    notes.push(format!(
        "of {} close pairs, {solid_hits} intersect as solids and the sphere stand-in reports {set_hits}",
        pairs.len()
    ));

    let stats = RefCell::new(PointFieldStats::default());
    let rows = vec![
        time_tests(
            "asteroid vs asteroid (solid, sheared)",
            "MeshInstance::intersects_mesh",
            &placed_b,
            settings,
            |ib| ia.intersects_mesh(ib, None),
        ),
        time_tests(
            "same pairs a frame later, cached",
            "MeshInstance::intersects_mesh",
            &moved,
            settings,
            |(i, ib)| ia.intersects_mesh(ib, Some(&mut caches[*i].borrow_mut())),
        ),
        time_tests(
            "29 spheres (set of B) vs asteroid A",
            "SphereSet::intersects_mesh",
            &pairs,
            settings,
            |map| set.intersects_mesh(map, &a, &Affine3A::IDENTITY),
        ),
        time_tests(
            "A's vertices vs B's distance grid",
            "field::first_point_inside",
            &a_in_b,
            settings,
            |map| {
                first_point_inside(
                    a.vertices(),
                    map,
                    &grid,
                    &Affine3A::IDENTITY,
                    Some(&signature),
                    &mut stats.borrow_mut(),
                )
                .is_some()
            },
        ),
    ];
    let stats = stats.into_inner();
    let total = (stats.pruned + stats.evaluated).max(1);
    notes.push(format!(
        "the spatial signature skipped {:.1}% of the vertices tested against the grid",
        100.0 * stats.pruned as f64 / total as f64
    ));
    rows
}
