//! Decoding helpers shared by the fuzz targets: numbers that reach the corners of `f32` (zero,
//! subnormal, huge, infinite, NaN) often, small meshes, affine placements, and the brute-force
//! checks of a loaded or built mesh.
//!
//! Every helper reads from an [`Unstructured`] and falls back to a plain value when the input runs
//! out, so a target never fails to decode.

use arbitrary::Unstructured;
use glam::{Affine3A, Mat3, Quat, Vec3};
use kollide::bounds::Sphere;
use kollide::math::Ray3;
use kollide::mesh::TriMesh;
use kollide::mesh::io::{MeshData, MeshLoadError};
use kollide::primitive::{closest_point_triangle, ray_triangle};

/// Values at the edges of `f32`, drawn often so that every target meets them.
const SPECIAL: [f32; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    f32::MIN_POSITIVE,
    1e-45, // the smallest subnormal
    -1e-40,
    1e-20,
    1e20,
    3.0e38,
    -3.0e38,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::EPSILON,
];

/// A small "ordinary" number: a multiple of 1/8 in [-8, 8].
pub fn small(u: &mut Unstructured) -> f32 {
    u.int_in_range(-64i32..=64).unwrap_or(1) as f32 / 8.0
}

/// Any `f32`: mostly small numbers, often a special value, a small number scaled by a power of
/// ten over the whole range, or raw bits.
pub fn float(u: &mut Unstructured) -> f32 {
    match u.int_in_range(0u8..=9).unwrap_or(0) {
        0..=4 => small(u),
        5 | 6 => SPECIAL[u.choose_index(SPECIAL.len()).unwrap_or(0)],
        7 | 8 => small(u) * 10f32.powi(u.int_in_range(-45i32..=38).unwrap_or(0)),
        _ => f32::from_bits(u.arbitrary().unwrap_or(0)),
    }
}

/// A finite `f32` (the non-finite draws of [`float`] become small numbers).
pub fn finite(u: &mut Unstructured) -> f32 {
    let x = float(u);
    if x.is_finite() { x } else { small(u) }
}

pub fn vec3(u: &mut Unstructured, f: fn(&mut Unstructured) -> f32) -> Vec3 {
    Vec3::new(f(u), f(u), f(u))
}

/// An affine placement: the identity, a rigid map, a scaled rotation, or any 3×4 matrix of
/// [`float`]s (singular, huge, subnormal and non-finite ones included).
pub fn affine(u: &mut Unstructured) -> Affine3A {
    match u.int_in_range(0u8..=3).unwrap_or(0) {
        0 => Affine3A::IDENTITY,
        1 | 2 => {
            let axis = vec3(u, small).try_normalize().unwrap_or(Vec3::Z);
            let rotation = Quat::from_axis_angle(axis, small(u));
            let scale = if u.arbitrary().unwrap_or(false) { vec3(u, float) } else { Vec3::ONE };
            Affine3A::from_scale_rotation_translation(scale, rotation, vec3(u, float))
        }
        _ => Affine3A::from_mat3_translation(
            Mat3::from_cols(vec3(u, float), vec3(u, float), vec3(u, float)),
            vec3(u, float),
        ),
    }
}

/// Vertices and triangles for `TriMesh::new`: a fixed closed mesh (tetrahedron or cube, scaled
/// and moved by [`float`]s), or 1 to 12 arbitrary vertices with indices that may be out of range.
pub fn mesh_parts(u: &mut Unstructured) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    match u.int_in_range(0u8..=2).unwrap_or(0) {
        0 | 1 => {
            let (vertices, triangles) = if u.arbitrary().unwrap_or(false) { tetrahedron() } else { cube() };
            let (scale, offset) = (float(u), vec3(u, float));
            (vertices.into_iter().map(|v| v * scale + offset).collect(), triangles)
        }
        _ => {
            let n = u.int_in_range(1u32..=12).unwrap_or(3);
            let vertices: Vec<Vec3> = (0..n).map(|_| vec3(u, float)).collect();
            let count = u.int_in_range(1usize..=16).unwrap_or(1);
            // Mostly valid indices; now and then one past the end or far out.
            let index = |u: &mut Unstructured| match u.int_in_range(0u8..=15).unwrap_or(0) {
                0 => n,
                1 => u32::MAX,
                _ => u.int_in_range(0..=n - 1).unwrap_or(0),
            };
            let triangles = (0..count).map(|_| [index(u), index(u), index(u)]).collect();
            (vertices, triangles)
        }
    }
}

pub fn tetrahedron() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    (vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z], vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
}

/// The unit cube around the origin, faces wound outward (the testkit's).
pub fn cube() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let cube = kollide_testkit::shapes::cube();
    (cube.vertices, cube.triangles)
}

/// A ray and its `max_t`: through a point of the mesh (a vertex, a corner midpoint, or the
/// box's centre) from an arbitrary origin, or entirely arbitrary.
pub fn ray_at(u: &mut Unstructured, mesh: &TriMesh) -> (Ray3, f32) {
    let target = point_near(u, mesh);
    let origin = if u.arbitrary().unwrap_or(false) { target + vec3(u, small) } else { vec3(u, float) };
    let (ray, max_t) = match u.int_in_range(0u8..=3).unwrap_or(0) {
        0 => (Ray3::new(vec3(u, float), vec3(u, float)), float(u)),
        1 => (Ray3::new(origin, target - origin), 1.0),
        _ => (Ray3::new(origin, target - origin), f32::INFINITY),
    };
    (ray, max_t)
}

/// A point at or near the mesh (a vertex, an edge midpoint, the box centre, moved a little), or
/// an arbitrary one.
pub fn point_near(u: &mut Unstructured, mesh: &TriMesh) -> Vec3 {
    let vertices = mesh.vertices();
    let pick = |u: &mut Unstructured| vertices[u.choose_index(vertices.len()).unwrap_or(0)];
    match u.int_in_range(0u8..=4).unwrap_or(0) {
        0 => pick(u),
        1 => (pick(u) + pick(u)) * 0.5,
        2 => mesh.bounds().center() + vec3(u, small) * mesh.bounds().size(),
        3 => pick(u) + vec3(u, float),
        _ => vec3(u, float),
    }
}

/// The closest `t` of the ray over every triangle by [`ray_triangle`], the reference of
/// `TriMesh::cast_ray`.
pub fn brute_ray_t(mesh: &TriMesh, ray: &Ray3, max_t: f32) -> Option<f32> {
    (0..mesh.triangle_count() as u32)
        .filter_map(|id| ray_triangle(ray, max_t, &mesh.triangle(id)?))
        .map(|hit| hit.t)
        .min_by(f32::total_cmp)
}

/// The distance of `p` to the mesh over every triangle by [`closest_point_triangle`].
pub fn brute_distance(mesh: &TriMesh, p: Vec3) -> Option<f32> {
    (0..mesh.triangle_count() as u32)
        .filter_map(|id| Some(closest_point_triangle(p, &mesh.triangle(id)?).point.distance(p)))
        .min_by(f32::total_cmp)
}

/// Checks `cast_ray` and `closest_point` of `mesh` against the brute force, for rays and points
/// drawn from `u`; panics with the input on a mismatch.
///
/// Rays: neither may find a hit the other misses, and the BVH's closest `t` must be the brute
/// force's up to the rounding of `t` (both use the same watertight test on the same coordinates,
/// but the triangles around a vertex or edge hit there get `t` values a few ulps apart, and the
/// BVH's pruning by the best `t` so far may keep any of them).
/// Closest points: the distances must agree within `1e-5` of the scale of the coordinates
/// involved (the mesh's extent, `|p|` and the distance itself): both take the least over the same
/// per-triangle closest points, but may evaluate the distance in a different order.
pub fn check_mesh_against_brute_force(u: &mut Unstructured, mesh: &TriMesh) {
    for _ in 0..u.int_in_range(1u8..=4).unwrap_or(1) {
        let (ray, max_t) = ray_at(u, mesh);
        let fast = mesh.cast_ray(&ray, max_t).map(|hit| hit.t);
        let brute = brute_ray_t(mesh, &ray, max_t);
        let same = match (fast, brute) {
            (Some(f), Some(b)) => (f - b).abs() <= 4.0 * f32::EPSILON * b,
            (f, b) => f == b,
        };
        if !same {
            let hit = (0..mesh.triangle_count() as u32)
                .filter_map(|id| {
                    Some((ray_triangle(&ray, max_t, &mesh.triangle(id)?)?.t, mesh.triangle(id)?))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0));
            let found = mesh.cast_ray(&ray, max_t).and_then(|hit| mesh.triangle(hit.part));
            panic!(
                "cast_ray {fast:?} (triangle {found:?}) vs brute force {brute:?} (triangle {hit:?}): ray {ray:?} max_t {max_t}"
            );
        }
        assert_eq!(mesh.cast_ray_t(&ray, max_t), fast, "cast_ray_t vs cast_ray: {ray:?} {max_t}");
        if mesh.intersects_ray(&ray, max_t) != fast.is_some() {
            panic!("intersects_ray vs cast_ray {fast:?}: ray {ray:?} max_t {max_t}");
        }
    }
    for _ in 0..u.int_in_range(1u8..=4).unwrap_or(1) {
        let p = point_near(u, mesh);
        let fast = mesh.closest_point(p, f32::INFINITY).map(|c| c.distance);
        let brute = if p.is_finite() { brute_distance(mesh, p) } else { None };
        match (fast, brute) {
            (Some(f), Some(b)) if b.is_finite() => {
                let b_box = mesh.bounds();
                let scale = b_box.min.abs().max(b_box.max.abs()).max_element() + p.abs().max_element() + b;
                assert!(
                    (f - b).abs() <= 1e-5 * scale,
                    "closest_point {f} vs brute force {b}: p {p:?}, mesh {:?} {:?}",
                    mesh.vertices(),
                    mesh.triangles()
                );
            }
            // Distances that overflow f32 (points near f32::MAX): no exact reference.
            (_, Some(b)) if !b.is_finite() => {}
            (f, b) => assert_eq!(f.is_some(), b.is_some(), "closest_point {f:?} vs brute force {b:?}: {p:?}"),
        }
    }
}

/// A loader target: `read` on the raw bytes never panics, and a mesh that loads and builds
/// answers rays and closest points as the brute force does (drawn from the file's own bytes) and
/// every other query without a panic.
pub fn check_loader(data: &[u8], read: impl FnOnce(&[u8]) -> Result<MeshData, MeshLoadError>) {
    let Ok(loaded) = read(data) else { return };
    let Ok(mesh) = TriMesh::from_data(loaded) else { return };
    let mut u = Unstructured::new(data);
    check_mesh_against_brute_force(&mut u, &mesh);
    exercise_mesh(&mut u, &mesh);
}

/// Runs the other mesh queries once each on inputs drawn from `u`, for panics only.
pub fn exercise_mesh(u: &mut Unstructured, mesh: &TriMesh) {
    let p = point_near(u, mesh);
    let _ = mesh.contains_point(p);
    let _ = mesh.signed_distance(p);
    let _ = mesh.is_solid();
    let _ = mesh.topology();
    let sphere = Sphere::new(p, float(u));
    let _ = mesh.intersects_sphere(&sphere);
    let _ = mesh.sphere_contact(&sphere);
    let (ray, max_t) = ray_at(u, mesh);
    let mut hits = Vec::new();
    mesh.cast_ray_all(&ray, max_t, &mut hits);
    let _ = mesh.cast_segment(ray.origin, ray.at(max_t.min(1e30)));
}
