//! Closed meshes that pass through themselves: the self-intersecting pairs of the topology report
//! against the all-pairs scan and a count derived by hand, and one definition of inside (the
//! winding number) shared by `contains_point`, the sign of `signed_distance` and the queries built
//! on them, checked against an `f64` winding number on points near the intersection curves.

use glam::{Affine3A, Quat, Vec3};
use kollide::bounds::Sphere;
use kollide::math::Ray3;
use kollide::mesh::io::{self, MeshData};
use kollide::mesh::{MeshInstance, TriMesh};
use kollide::primitive::{TriangleIntersection, intersect_triangle_triangle};
use kollide::query::{self, Shape};
use kollide_testkit::random::{TestRng, affine3, point3, rng, rotation3, unit3};
use kollide_testkit::reference_mesh::{corners, distance, self_intersecting_pairs, winding_number};
use kollide_testkit::shapes::{cube, icosphere, torus};
use rand::Rng;
use std::path::Path;
use std::sync::Arc;

/// `parts` merged into one mesh, each placed by its map (indices offset, no vertex shared).
fn merged(parts: &[(MeshData, Affine3A)]) -> MeshData {
    let mut out = MeshData { vertices: Vec::new(), triangles: Vec::new() };
    for (part, map) in parts {
        let base = out.vertices.len() as u32;
        out.vertices.extend(part.vertices.iter().map(|&v| map.transform_point3(v)));
        out.triangles.extend(part.triangles.iter().map(|t| t.map(|i| i + base)));
    }
    out
}

/// The unit cube pierced along x by a rod (a box of 2 × 0.2 × 0.2) through the open interior of
/// one triangle of each of the cube's faces x = ±0.5; both wound outward.
///
/// The cube's faces x = ±0.5 are split along y + z = 0 and the rod's cross-section lies where
/// y + z >= 0.15, so the rod meets one cube triangle on each face. Each of the rod's four long
/// faces crosses the plane x = ±0.5 in a segment that its diagonal (from x = -1 to x = 1) splits
/// between its two triangles. So 8 rod triangles × 2 cube triangles = 16 pairs; the rod's caps
/// (x = ±1) and the cube's other faces meet nothing.
fn pierced_cube() -> MeshData {
    let rod = Affine3A::from_scale_rotation_translation(
        Vec3::new(2.0, 0.2, 0.2),
        Quat::IDENTITY,
        Vec3::new(0.0, 0.2, 0.15),
    );
    merged(&[(cube(), Affine3A::IDENTITY), (cube(), rod)])
}

/// Two tetrahedra with a common apex (one vertex index) that pass through each other: pairs
/// around the shared vertex cross elsewhere too.
fn tetrahedra_sharing_a_vertex() -> MeshData {
    let vertices = vec![
        Vec3::ZERO,
        Vec3::new(1.0, -0.5, -0.5),
        Vec3::new(1.0, 0.6, -0.4),
        Vec3::new(1.0, 0.0, 0.7),
        Vec3::new(1.2, -0.4, 0.5),
        Vec3::new(0.9, 0.5, 0.45),
        Vec3::new(1.1, -0.1, -0.6),
    ];
    // Outward: the base faces away from the apex.
    let tetra = |[a, b, c]: [u32; 3]| vec![[0, b, a], [0, c, b], [0, a, c], [a, b, c]];
    let mut triangles = tetra([1, 2, 3]);
    triangles.extend(tetra([4, 5, 6]));
    MeshData { vertices, triangles }
}

/// Two icospheres of radius 1 and a random radius, rotated, their centres 0.6 to 1.4 apart.
fn overlapping_spheres(rng: &mut TestRng) -> MeshData {
    let second = Affine3A::from_scale_rotation_translation(
        Vec3::splat(rng.random_range(0.5..1.2)),
        rotation3(rng),
        unit3(rng) * rng.random_range(0.6..1.4),
    );
    merged(&[(icosphere(2), Affine3A::from_quat(rotation3(rng))), (icosphere(2), second)])
}

fn build(data: &MeshData) -> TriMesh {
    TriMesh::new(data.vertices.clone(), data.triangles.clone()).unwrap()
}

fn pairs_by_bvh(mesh: &TriMesh) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    mesh.self_intersecting_pairs(&mut pairs);
    pairs.sort_unstable();
    pairs
}

/// The BVH's pairs are the all-pairs scan's, the report counts them, and no pair repeats.
fn check_pairs(data: &MeshData, what: &str) -> Vec<(u32, u32)> {
    let mesh = build(data);
    let found = pairs_by_bvh(&mesh);
    let expected = self_intersecting_pairs(&data.vertices, &data.triangles);
    assert_eq!(found, expected, "{what}");
    assert_eq!(mesh.topology().self_intersecting_pairs, Some(found.len()), "{what}");
    found
}

#[test]
fn the_report_counts_the_derived_pairs() {
    let pairs = check_pairs(&pierced_cube(), "pierced cube");
    assert_eq!(pairs.len(), 16);
    // Every pair is one cube triangle (ids 0..12) with one rod triangle.
    assert!(pairs.iter().all(|&(i, j)| i < 12 && j >= 12));
    let mesh = build(&pierced_cube());
    assert!(mesh.is_solid());

    let pairs = check_pairs(&tetrahedra_sharing_a_vertex(), "tetrahedra sharing a vertex");
    let data = tetrahedra_sharing_a_vertex();
    let sharing = |&(i, j): &(u32, u32)| {
        data.triangles[i as usize].iter().any(|v| data.triangles[j as usize].contains(v))
    };
    assert!(pairs.iter().any(sharing), "{pairs:?}");
    assert!(build(&data).is_solid());
}

#[test]
fn meshes_without_self_intersections_report_none() {
    for (data, what) in [(cube(), "cube"), (icosphere(3), "icosphere"), (torus(1.0, 0.35, 40, 20), "torus")] {
        assert_eq!(build(&data).topology().self_intersecting_pairs, Some(0), "{what}");
    }
    // The index-only report cannot see positions.
    let data = pierced_cube();
    assert_eq!(kollide::mesh::topology(&data.triangles, data.vertices.len()).self_intersecting_pairs, None);
}

/// 60 random closed pairs of spheres and 100 random triangle soups over few vertices (so that
/// triangles share edges and vertices), against the all-pairs scan.
#[test]
fn bvh_pairs_match_the_all_pairs_scan_on_random_meshes() {
    let mut rng = rng(0x5e1f);
    for case in 0..60 {
        check_pairs(&overlapping_spheres(&mut rng), &format!("spheres {case}"));
    }
    let mut total = 0;
    for case in 0..100 {
        let n = rng.random_range(4..40u32);
        let vertices: Vec<Vec3> = (0..n).map(|_| point3(&mut rng, 1.0)).collect();
        let triangles: Vec<[u32; 3]> =
            (0..rng.random_range(1..120)).map(|_| [0; 3].map(|_| rng.random_range(0..n))).collect();
        total += check_pairs(&MeshData { vertices, triangles }, &format!("soup {case}")).len();
    }
    assert!(total > 100, "the soups should intersect themselves often: {total}");
}

#[test]
fn bvh_pairs_match_the_all_pairs_scan_on_real_meshes() {
    let mut teapot = 0;
    for name in
        ["teapot_npm_992.obj", "ant_pyvista_912.ply", "sphere_pyvista_840.ply", "spider_assimp_1368.obj"]
    {
        let data = io::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(name)).unwrap();
        let n = check_pairs(&data, name).len();
        if name.starts_with("teapot") {
            teapot = n;
        }
    }
    // The teapot's spout and handle pass through its body.
    assert!(teapot > 0);
}

/// Points near the intersection curves: on the segments where the pairs meet, moved by up to
/// `1e-2`, `1e-3` or `1e-4` of the mesh's size in a random direction.
fn near_curves(data: &MeshData, pairs: &[(u32, u32)], count: usize, rng: &mut TestRng) -> Vec<Vec3> {
    let tris = corners(&data.vertices, &data.triangles);
    let segments: Vec<(Vec3, Vec3)> = pairs
        .iter()
        .filter_map(|&(i, j)| match intersect_triangle_triangle(&tris[i as usize], &tris[j as usize]) {
            Some(TriangleIntersection::Segment { start, end }) => Some((start, end)),
            _ => None,
        })
        .collect();
    assert!(!segments.is_empty());
    let size = build(data).bounds().size().max_element();
    (0..count)
        .map(|k| {
            let (a, b) = segments[rng.random_range(0..segments.len())];
            let scale = [1e-2, 1e-3, 1e-4][k % 3] * size;
            a.lerp(b, rng.random()) + unit3(rng) * rng.random_range(0.0..scale)
        })
        .collect()
}

/// `contains_point` and the sign of `signed_distance` agree on every point, `signed_distance`'s
/// magnitude is the distance to the nearest triangle, and both follow the `f64` winding number
/// except within rounding of the surface, where either answer is right. Returns how many points
/// were inside and how many were compared with the winding number.
fn check_inside(data: &MeshData, points: &[Vec3], what: &str) -> (usize, usize) {
    let mesh = build(data);
    assert!(mesh.is_solid(), "{what}");
    let tris = corners(&data.vertices, &data.triangles);
    let size = mesh.bounds().size().max_element();
    let (mut inside_count, mut compared) = (0, 0);
    for &p in points {
        let inside = mesh.contains_point(p).unwrap();
        let sd = mesh.signed_distance(p).unwrap();
        assert_eq!(inside, sd <= 0.0, "{what}: {p} contains {inside}, signed distance {sd}");
        let d = distance(&tris, p);
        assert!((sd.abs() - d).abs() <= 1e-6 * size, "{what}: {p}: {sd} vs {d}");
        let w = winding_number(&tris, p);
        if d > 1e-6 * size && (w - w.round()).abs() < 1e-3 {
            compared += 1;
            assert_eq!(inside, w.round() != 0.0, "{what}: {p} winding {w}, contains {inside}");
        }
        inside_count += usize::from(inside);
    }
    (inside_count, compared)
}

/// 10,000 points near the intersection curves and 2,000 in the box around the pierced cube.
#[test]
fn inside_follows_the_winding_number_near_the_intersections() {
    let data = pierced_cube();
    let pairs = self_intersecting_pairs(&data.vertices, &data.triangles);
    let mut rng = rng(0x1d5);
    let mut points = near_curves(&data, &pairs, 10_000, &mut rng);
    points.extend((0..2_000).map(|_| point3(&mut rng, 1.2)));
    let (inside, compared) = check_inside(&data, &points, "pierced cube");
    assert!(compared >= points.len() * 95 / 100, "{compared} of {}", points.len());
    assert!(inside > points.len() / 4 && inside < points.len() * 3 / 4, "{inside}");
    // Some points are inside both parts (winding 2) next to a buried face.
    let tris = corners(&data.vertices, &data.triangles);
    assert!(points.iter().filter(|&&p| winding_number(&tris, p).round() == 2.0).count() > 1_000);
}

/// Ten pairs of overlapping spheres (640 triangles), 1,000 points each, 800 near the curves.
#[test]
fn inside_follows_the_winding_number_on_overlapping_spheres() {
    let mut rng = rng(0xba11);
    for case in 0..10 {
        let data = overlapping_spheres(&mut rng);
        let pairs = self_intersecting_pairs(&data.vertices, &data.triangles);
        let mut points = near_curves(&data, &pairs, 800, &mut rng);
        points.extend((0..200).map(|_| point3(&mut rng, 2.5)));
        let (_, compared) = check_inside(&data, &points, &format!("spheres {case}"));
        assert!(compared >= points.len() * 95 / 100, "case {case}: {compared}");
    }
    // The shared-vertex tetrahedra, everywhere around their apex.
    let data = tetrahedra_sharing_a_vertex();
    let points: Vec<Vec3> = (0..2_000).map(|_| Vec3::new(0.6, 0.0, 0.0) + point3(&mut rng, 0.7)).collect();
    check_inside(&data, &points, "tetrahedra sharing a vertex");
}

/// A mesh that does not pass through itself keeps the pseudo-normal answers, which agree with
/// the winding number.
#[test]
fn solids_without_self_intersections_are_unchanged() {
    let mut rng = rng(0x70);
    let data = torus(1.0, 0.35, 40, 20);
    let points: Vec<Vec3> = (0..3_000).map(|_| point3(&mut rng, 1.5)).collect();
    let (inside, compared) = check_inside(&data, &points, "torus");
    assert!(inside > 100 && compared >= 2_990);
}

/// Instances under affine maps, the sphere queries and the query layer follow the same inside.
#[test]
fn placed_and_query_layer_answers_follow_contains_point() {
    let data = pierced_cube();
    let mesh = Arc::new(build(&data));
    let pairs = self_intersecting_pairs(&data.vertices, &data.triangles);
    let mut rng = rng(0x9a7);
    let points = near_curves(&data, &pairs, 2_000, &mut rng);
    let shape = Shape::Mesh(mesh.clone());
    let mut checked = 0;
    for (k, &local) in points.iter().enumerate() {
        let inside = mesh.contains_point(local).unwrap();
        // Mesh space: a ball of radius zero collides exactly when the point is inside or on it.
        let ball = Sphere::new(local, 0.0);
        assert_eq!(mesh.intersects_sphere(&ball), inside, "{local}");
        let contact = mesh.sphere_contact(&Sphere::new(local, 1e-3));
        if inside {
            assert!(contact.is_some_and(|c| c.separation <= -1e-3), "{local}: {contact:?}");
        }
        // World space, under a random affine map (a fresh one every 100 points). The world
        // point maps back to mesh space with rounding, which may move it across the surface:
        // points that close are left out.
        let map = affine3(&mut kollide_testkit::random::rng(k as u64 / 100), 10.0);
        let p = map.transform_point3(local);
        let instance = MeshInstance::new(mesh.clone(), map).unwrap();
        let world_inside = instance.contains_point(p).unwrap();
        // Zero (on the surface) is either; otherwise the sign is the inside test's.
        let sd = instance.signed_distance(p).unwrap();
        assert!(sd == 0.0 || (sd < 0.0) == world_inside, "{p}: {sd}, {world_inside}");
        if mesh.closest_point(local, 1e-4).is_some() {
            continue;
        }
        checked += 1;
        assert_eq!(world_inside, inside, "{p}");
        assert_eq!(query::contains_point(&shape, &map, p).unwrap(), inside, "{p}");
        let ray = Ray3::new(p, unit3(&mut rng));
        let hit = query::cast_ray(&shape, &map, &ray, f32::MAX).unwrap();
        if inside {
            assert_eq!(hit.map(|h| h.t), Some(0.0), "{p}: a ray from inside starts in the solid");
        } else {
            assert!(hit.is_none_or(|h| h.t > 0.0), "{p}: {hit:?}");
        }
    }
    assert!(checked > points.len() / 2, "{checked}");
}
