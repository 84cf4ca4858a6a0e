//! Convex shapes against triangle meshes: one contact manifold per touching triangle, found
//! through the mesh's BVH, with internal edges removed.
//!
//! # Internal edges
//!
//! A convex shape sliding over a flat or gently curved mesh touches triangle edges that are not
//! edges of the surface: the edge between two coplanar triangles. Tested alone, a triangle lets
//! the shape escape sideways across such an edge, and that escape can be shorter than the true
//! one, so the contact normal tilts toward the edge: a "ghost bump". [`TriMesh::is_edge_active`] tells each
//! triangle edge *active* when the surface really bends outward there by more than
//! [`ACTIVE_EDGE_ANGLE`](crate::mesh::ACTIVE_EDGE_ANGLE) (a convex crease) or when the edge has no single neighbour (a boundary
//! or non-manifold edge). A triangle contact whose normal is not the face normal and whose points
//! on the triangle lie only on inactive edges (or on vertices all of whose edges in this triangle
//! are inactive) is turned to the face normal, with its separations measured along it. This is
//! the idea of Bullet's internal-edge utility and Jolt's active edges, written for our manifolds.
//!
//! Activity is decided in mesh space; an affine placement keeps flat edges flat and convex ones
//! convex (a reflection flips both normals), so the flags hold for every instance.

use glam::{Affine3A, Mat3, Vec3, Vec3A};

use super::contact::contact_in_frame;
use super::frame::{PairInput, Side, setup};
use super::gjk::GjkCache;
use super::manifold::{ContactManifold, PartManifold, build as build_manifold};
use super::types::NarrowError;
use crate::bounds::{Aabb3, Obb3};
use crate::math::is_similarity;
use crate::mesh::{TriMesh, triangle_box_of};
use crate::primitive::test_triangle_aabb;
use crate::shape::{ConvexShape, Triangle};

/// A manifold normal within this cosine of the face normal is the face normal.
const FACE_NORMAL_COS: f32 = 0.999_999;

/// A contact point is on an edge when the barycentric weight of the opposite vertex is below
/// this.
const ON_EDGE: f32 = 1e-3;

/// Whether [`convex_mesh_manifolds`] removes the contacts' internal edges (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InternalEdges {
    /// Contacts on edges inside flat or gently curved patches get the face normal.
    Remove,
    /// Each triangle is a free-standing triangle.
    Keep,
}

/// One manifold per triangle of `mesh` (placed by `mesh_to_world`) within `prediction` of the
/// shape (placed by `shape_to_world`), appended to `out` after clearing it: for each triangle,
/// what [`contact_manifold`](super::contact_manifold) gives for the shape (A) and the triangle
/// (B), as a [`PartManifold`] with `part_a = 0` and `part_b` the triangle's id, sorted by
/// triangle id. With [`InternalEdges::Remove`], contacts on internal edges get the face normal
/// (see the module).
///
/// Errors: [`NarrowError::InvalidShape`]`(0)` for an invalid shape, [`NarrowError::NonFinite`]
/// for a NaN prediction, a non-finite placement or a singular mesh placement (the shape's may be
/// singular, as in every narrow query).
pub fn convex_mesh_manifolds(
    shape: &ConvexShape,
    shape_to_world: &Affine3A,
    mesh: &TriMesh,
    mesh_to_world: &Affine3A,
    internal_edges: InternalEdges,
    prediction: f32,
    out: &mut Vec<PartManifold>,
) -> Result<(), NarrowError> {
    out.clear();
    if prediction.is_nan() {
        return Err(NarrowError::NonFinite);
    }
    let prediction = prediction.max(0.0);
    // The pair's query frame and the shape's side are the same for every triangle: checked and
    // set up once (as `contact_manifold` would per call), then each triangle is swapped in.
    let placeholder = ConvexShape::Triangle(Triangle::new(Vec3::ZERO, Vec3::X, Vec3::Y));
    let pair = PairInput::new(shape, shape_to_world, &placeholder, mesh_to_world)?;
    let to_mesh = mesh_to_world.inverse();
    if !to_mesh.is_finite() {
        return Err(NarrowError::NonFinite);
    }
    // Candidate triangles as `id << 32 | leaf slot` (sorting them sorts by id), from the BVH.
    let mut candidates: Vec<u64> = Vec::new();
    match (is_similarity(shape_to_world), is_similarity(mesh_to_world)) {
        // Both maps keep boxes boxes: the shape's oriented box in mesh space culls exactly.
        (Some(shape_scale), Some(mesh_scale)) => {
            let local = shape.local_aabb();
            let to_mesh_linear = Mat3::from(to_mesh.matrix3) * Mat3::from(shape_to_world.matrix3);
            let axes = to_mesh_linear * (1.0 / (shape_scale / mesh_scale));
            // The maps are similarities to 1e-5 relative: grow the box by 1e-4 of its size.
            let half = local.size() * 0.5 * (shape_scale / mesh_scale) + prediction / mesh_scale;
            let half = half + half.max_element() * 1e-4;
            let center = to_mesh.transform_point3(shape_to_world.transform_point3(local.center()));
            let obb = Obb3::new(center, axes, half);
            // A box's own separating-axis test is the exact one: no need to run it twice.
            let exact = !matches!(shape, ConvexShape::Cuboid(_));
            let (to_box, local_box) = (axes.transpose(), Aabb3::new(-half, half));
            collect_triangles(mesh, &obb.aabb(), &mut candidates, |c| {
                !exact || test_triangle_aabb(&c.map(|p| to_box * (p - center)), &local_box)
            });
        }
        _ => {
            // The shape's world box, grown by the prediction, boxed again in mesh space.
            let world = shape.aabb(shape_to_world);
            let query = Aabb3::new(world.min - prediction, world.max + prediction).transformed(&to_mesh);
            collect_triangles(mesh, &query, &mut candidates, |c| test_triangle_aabb(c, &query));
        }
    }
    candidates.sort_unstable();

    // Face normals map by the inverse transpose (see `math::map_normal`); the inverse is at hand.
    let normal_map = to_mesh.matrix3.transpose();
    let (frame, shape_side, triangle_side) = setup(&pair);
    let mut manifold = ContactManifold::default();
    for key in candidates {
        let (id, corners) = ((key >> 32) as u32, mesh.slot_corners(key as u32));
        let triangle = ConvexShape::Triangle(Triangle::new(corners[0], corners[1], corners[2]));
        let side = Side { shape: &triangle, ..triangle_side };
        let Some(contact) = contact_in_frame(&shape_side, &side, prediction, &mut GjkCache::default()) else {
            continue;
        };
        manifold.clear();
        build_manifold(&shape_side, &side, &contact, prediction, &mut manifold);
        if manifold.is_empty() {
            continue;
        }
        manifold.map_to_world(|p| frame.point(p), |v| frame.vector(v));
        let mut result = PartManifold { part_a: 0, part_b: id, manifold };
        if internal_edges == InternalEdges::Remove {
            let area_normal = Vec3A::from((corners[1] - corners[0]).cross(corners[2] - corners[0]));
            let face = Vec3::from(normal_map * area_normal).normalize_or_zero();
            // The shape's center above the face means the normal from it points down into it.
            let height = (shape_to_world.translation - mesh_to_world.transform_point3a(corners[0].into()))
                .dot(face.into());
            let down = if height > 0.0 || (height == 0.0 && result.manifold.normal.dot(face) < 0.0) {
                -face
            } else {
                face
            };
            remove_internal_edge(&mut result, mesh, corners, &to_mesh, down, prediction);
        }
        if !result.manifold.is_empty() {
            out.push(result);
        }
    }
    Ok(())
}

/// Appends `id << 32 | slot` (the triangle's id and leaf slot) of every triangle whose box
/// overlaps `cull` (mesh space) and that passes `keep`.
///
/// The leaves are gathered first and their triangles requested from memory at once, then tested:
/// on a large mesh each leaf is a cache miss, and this way the misses overlap.
fn collect_triangles(mesh: &TriMesh, cull: &Aabb3, out: &mut Vec<u64>, keep: impl Fn(&[Vec3; 3]) -> bool) {
    if !cull.is_valid() {
        return;
    }
    let first = out.len();
    mesh.bvh().traverse(
        |node| node.overlap_mask(cull.min, cull.max),
        |range| {
            mesh.prefetch_slots(range.clone());
            out.push(u64::from(range.start) << 32 | u64::from(range.end));
            true
        },
    );
    let leaves = out.len() - first;
    for i in first..first + leaves {
        let (start, end) = ((out[i] >> 32) as u32, out[i] as u32);
        for k in start..end {
            let corners = mesh.slot_corners(k);
            if triangle_box_of(corners).overlaps(cull) && keep(corners) {
                out.push(u64::from(mesh.slot_id(k)) << 32 | u64::from(k));
            }
        }
    }
    out.drain(first..first + leaves);
}

/// Turns `m` to the face normal `target` (world, unit, pointing from the shape's side of the
/// triangle into it) when its points on the triangle touch only inactive edges; see the module.
fn remove_internal_edge(
    m: &mut PartManifold,
    mesh: &TriMesh,
    corners: &[Vec3; 3],
    to_mesh: &Affine3A,
    target: Vec3,
    prediction: f32,
) {
    let (triangle, m) = (m.part_b, &mut m.manifold);
    if target == Vec3::ZERO || m.normal.dot(target) >= FACE_NORMAL_COS {
        return;
    }
    let on_active_edge = m.points().iter().any(|p| {
        let weights = barycentric(corners, to_mesh.transform_point3(p.point_b));
        // Edge i runs from corner i to corner i + 1: the weight of corner i + 2 vanishes on it.
        (0..3).any(|i| weights[(i + 2) % 3] < ON_EDGE && mesh.is_edge_active(triangle, i))
    });
    if on_active_edge {
        return;
    }
    m.normal = target;
    let mut kept = 0;
    for k in 0..m.len {
        let mut p = m.points[k];
        p.separation = (p.point_b - p.point_a).dot(target);
        if p.separation <= prediction {
            m.points[kept] = p;
            kept += 1;
        }
    }
    m.len = kept;
}

/// Barycentric weights of `p` (projected on the triangle's plane) for the corners; all equal
/// for a degenerate triangle, so that no edge counts as touched.
fn barycentric(t: &[Vec3; 3], p: Vec3) -> [f32; 3] {
    let (e0, e1, d) = (t[1] - t[0], t[2] - t[0], p - t[0]);
    let (d00, d01, d11) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
    let (d20, d21) = (d.dot(e0), d.dot(e1));
    let denom = d00 * d11 - d01 * d01;
    if !(denom > 0.0) {
        return [1.0 / 3.0; 3];
    }
    let v = (d11 * d20 - d01 * d21) / denom;
    let w = (d00 * d21 - d01 * d20) / denom;
    [1.0 - v - w, v, w]
}
