//! Convex shapes against meshes, and meshes against meshes, in world space.
//!
//! A convex shape meets a mesh's triangles one by one, each a convex [`Triangle`] placed by the
//! mesh's map, found through the mesh's BVH from the shape's box. A solid mesh also contains its
//! inside: a shape that touches no triangle may lie inside the mesh (one point of the shape
//! decides it) or the mesh inside the shape (one vertex per connected component decides it).

use std::sync::Arc;

use glam::{Affine3A, Vec3, Vec3A};

use super::pair::{PlacedShape, region_in_frame};
use super::{Contact, PartManifold, QueryError, Shape, ShapeCastHit, from_narrow};
use crate::bounds::Aabb3;
use crate::mesh::{MeshInstance, TriMesh};
use crate::narrow::{self, ContactManifold, GjkCache};
use crate::shape::{Ball, ConvexShape, PlacedSupport, SupportMap, Triangle};

/// The pieces of a placed convex shape (A) and a placed mesh (B).
struct ConvexMesh<'a> {
    convex: &'a ConvexShape,
    convex_to_world: &'a Affine3A,
    mesh: &'a Arc<TriMesh>,
    mesh_to_world: &'a Affine3A,
}

impl<'a> ConvexMesh<'a> {
    fn new(a: &'a PlacedShape, b: &'a PlacedShape) -> Self {
        let (Shape::Convex(convex), Shape::Mesh(mesh)) = (a.shape, b.shape) else {
            unreachable!("the dispatch passes a convex shape and a mesh")
        };
        Self { convex, convex_to_world: a.to_world, mesh, mesh_to_world: b.to_world }
    }

    /// Visits the triangles (id and the triangle as a convex shape in mesh space) whose boxes
    /// overlap the world box `region`, until `visit` returns `false`. The region is taken to
    /// mesh space as the box of its image, which contains every point that can reach it.
    fn visit_triangles(&self, region: &Aabb3, mut visit: impl FnMut(u32, &ConvexShape) -> bool) {
        let local = region_in_frame(region, self.mesh_to_world);
        if local.is_empty() {
            return;
        }
        let mesh = self.mesh;
        mesh.bvh().traverse(
            |node| node.overlap_mask(local.min, local.max),
            |range| {
                for k in range {
                    let corners = *mesh.slot_corners(k);
                    let tri_box = Aabb3::from_points(&corners).unwrap_or(Aabb3::EMPTY);
                    if !tri_box.overlaps(&local) {
                        continue;
                    }
                    let triangle = ConvexShape::Triangle(Triangle { points: corners });
                    if !visit(mesh.slot_id(k), &triangle) {
                        return false;
                    }
                }
                true
            },
        );
    }

    /// A point inside the convex shape (world): the mean of its six axis support points.
    fn inner_point(&self) -> Vec3 {
        let placed = PlacedSupport::new(self.convex, self.convex_to_world);
        let sum = [Vec3A::X, Vec3A::Y, Vec3A::Z]
            .into_iter()
            .map(|d| placed.support(d) + placed.support(-d))
            .fold(Vec3A::ZERO, |s, p| s + p);
        (sum / 6.0).into()
    }

    fn instance(&self) -> Option<MeshInstance> {
        MeshInstance::new(self.mesh.clone(), *self.mesh_to_world).ok()
    }

    /// Whether the solid mesh contains the world point.
    fn mesh_contains(&self, p: Vec3) -> bool {
        self.mesh.is_solid()
            && self.mesh.contains_point(self.mesh_to_world.inverse().transform_point3(p)) == Some(true)
    }

    /// A vertex of the mesh inside the convex shape, one per connected component tested.
    fn vertex_inside_convex(&self) -> Option<Vec3> {
        self.mesh.component_seeds().iter().find_map(|&v| {
            let p = self.mesh_to_world.transform_point3(self.mesh.vertices()[v as usize]);
            narrow::project_point(self.convex, self.convex_to_world, p).is_ok_and(|q| q.inside).then_some(p)
        })
    }

    /// The contact of the shape deep inside the solid mesh (no triangle touched): the shape
    /// leaves through the surface point `q` nearest its inner point `p`, moving along
    /// `n = (q - p) / |q - p|` until its last point passes the tangent plane at `q`, a distance
    /// `q · n - min_{x ∈ A} x · n`.
    fn contained_contact(&self) -> Option<Contact> {
        let p = self.inner_point();
        let instance = self.instance()?;
        let q = instance.closest_point(p, f32::INFINITY)?;
        let out = (q.point - p).try_normalize().unwrap_or(Vec3::Y);
        let placed = PlacedSupport::new(self.convex, self.convex_to_world);
        let trailing: Vec3 = placed.support(Vec3A::from(-out)).into();
        let depth = (q.point - trailing).dot(out).max(0.0);
        Some(Contact {
            point_a: trailing,
            point_b: trailing + out * depth,
            normal: -out,
            separation: -depth,
            part_a: 0,
            part_b: q.triangle,
        })
    }

    /// The contact of the mesh inside the convex shape (no triangle touched), from the vertex
    /// `v` found inside: the shape's contact with that point.
    fn vertex_contact(&self, v: Vec3) -> Option<Contact> {
        let point = ConvexShape::Ball(Ball::new(0.0));
        let at = Affine3A::from_translation(v);
        narrow::contact(
            self.convex,
            self.convex_to_world,
            &point,
            &at,
            f32::INFINITY,
            &mut GjkCache::default(),
        )
        .ok()
        .flatten()
    }
}

pub(crate) fn convex_mesh_intersects(a: &PlacedShape, b: &PlacedShape) -> bool {
    let pair = ConvexMesh::new(a, b);
    let mut touching = false;
    let region = pair.convex.aabb(pair.convex_to_world);
    pair.visit_triangles(&region, |_, triangle| {
        touching = narrow::intersects(
            pair.convex,
            pair.convex_to_world,
            triangle,
            pair.mesh_to_world,
            &mut GjkCache::default(),
        )
        .unwrap_or(false);
        !touching
    });
    touching || pair.mesh_contains(pair.inner_point()) || pair.vertex_inside_convex().is_some()
}

/// The deepest (or closest) contact with one triangle, then containment.
pub(crate) fn convex_mesh_contact(
    a: &PlacedShape,
    b: &PlacedShape,
    max_distance: f32,
) -> Result<Option<Contact>, QueryError> {
    let pair = ConvexMesh::new(a, b);
    // The triangles worth a contact lie within `reach` of the shape's box: `max_distance`, or
    // when unbounded the distance to any one triangle (the one nearest the shape's inner point
    // is a good one), grown against the rounding of that distance.
    let mut reach = max_distance;
    if !reach.is_finite()
        && let Some(q) = pair.instance().and_then(|i| i.closest_point(pair.inner_point(), f32::INFINITY))
        && let Some(points) = pair.mesh.triangle(q.triangle)
    {
        let triangle = ConvexShape::Triangle(Triangle { points });
        let d = narrow::distance(
            pair.convex,
            pair.convex_to_world,
            &triangle,
            pair.mesh_to_world,
            &mut GjkCache::default(),
        )
        .map_err(|e| from_narrow(e, false))?;
        reach = d * (1.0 + 1e-4) + 1e-6;
    }
    let region = pair.convex.aabb(pair.convex_to_world).expanded(reach.min(f32::MAX));
    let mut best: Option<Contact> = None;
    let mut result = Ok(());
    pair.visit_triangles(&region, |id, triangle| {
        match narrow::contact(
            pair.convex,
            pair.convex_to_world,
            triangle,
            pair.mesh_to_world,
            max_distance,
            &mut GjkCache::default(),
        ) {
            Ok(Some(c)) if best.is_none_or(|b| c.separation < b.separation) => {
                best = Some(Contact { part_a: 0, part_b: id, ..c });
            }
            Ok(_) => {}
            Err(e) => result = Err(from_narrow(e, false)),
        }
        result.is_ok()
    });
    result?;
    if best.is_some_and(|c| c.separation <= 0.0) {
        return Ok(best);
    }
    if pair.mesh_contains(pair.inner_point()) {
        return Ok(pair.contained_contact());
    }
    if let Some(v) = pair.vertex_inside_convex() {
        return Ok(pair.vertex_contact(v));
    }
    Ok(best.filter(|c| c.separation <= max_distance))
}

/// One manifold per touching triangle (internal edges removed), or the containment contact.
pub(crate) fn convex_mesh_manifolds(
    a: &PlacedShape,
    b: &PlacedShape,
    prediction: f32,
    out: &mut Vec<PartManifold>,
) -> Result<(), QueryError> {
    let pair = ConvexMesh::new(a, b);
    let run = |dest: &mut Vec<PartManifold>| {
        let edges = narrow::InternalEdges::Remove;
        narrow::convex_mesh_manifolds(
            pair.convex,
            pair.convex_to_world,
            pair.mesh,
            pair.mesh_to_world,
            edges,
            prediction,
            dest,
        )
    };
    // The narrow phase clears its output: it writes into `out` directly when that is empty (a
    // top-level query), into scratch appended after the parts found so far otherwise.
    let first = out.len();
    if first == 0 {
        run(out)
    } else {
        let mut tail = Vec::new();
        let result = run(&mut tail);
        out.append(&mut tail);
        result
    }
    .map_err(|e| from_narrow(e, false))?;
    if out.len() == first {
        let contact = if pair.mesh_contains(pair.inner_point()) {
            pair.contained_contact()
        } else {
            pair.vertex_inside_convex().and_then(|v| pair.vertex_contact(v))
        };
        if let Some(c) = contact {
            out.push(single_point(&c));
        }
    }
    Ok(())
}

/// The earliest hit over the triangles the sweep reaches (B moves by `t · velocity`); `t = 0`
/// when the shapes overlap at the start.
pub(crate) fn convex_mesh_cast(
    a: &PlacedShape,
    b: &PlacedShape,
    velocity: Vec3,
    max_t: f32,
) -> Result<Option<ShapeCastHit>, QueryError> {
    // Put the convex shape first for the triangle walk, and remember whether it is the one
    // that moves.
    let (convex_side, mesh_side, convex_moves) = match a.shape {
        Shape::Convex(_) => (a, b, false),
        _ => (b, a, true),
    };
    let pair = ConvexMesh::new(convex_side, mesh_side);
    if convex_mesh_intersects(convex_side, mesh_side) {
        let contact = convex_mesh_contact(convex_side, mesh_side, f32::INFINITY)?;
        let contact = if convex_moves { contact.map(super::pair::mirror_contact) } else { contact };
        return Ok(contact.map(|contact| ShapeCastHit { t: 0.0, contact }));
    }
    // The region of the mesh (at its start) that the convex shape reaches relative to it.
    let relative = if convex_moves { velocity } else { -velocity };
    let start = pair.convex.aabb(pair.convex_to_world);
    let d = relative * max_t;
    let region = if d.is_finite() {
        Aabb3::new(start.min + d.min(Vec3::ZERO), start.max + d.max(Vec3::ZERO))
    } else {
        Aabb3::new(Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX))
    };
    let mut best: Option<ShapeCastHit> = None;
    let mut limit = max_t;
    let mut result = Ok(());
    pair.visit_triangles(&region, |id, triangle| {
        let hit = if convex_moves {
            narrow::cast_shape(
                triangle,
                pair.mesh_to_world,
                pair.convex,
                pair.convex_to_world,
                velocity,
                limit,
                &mut GjkCache::default(),
            )
            .map(|h| h.map(|h| ShapeCastHit { contact: Contact { part_a: id, part_b: 0, ..h.contact }, ..h }))
        } else {
            narrow::cast_shape(
                pair.convex,
                pair.convex_to_world,
                triangle,
                pair.mesh_to_world,
                velocity,
                limit,
                &mut GjkCache::default(),
            )
            .map(|h| h.map(|h| ShapeCastHit { contact: Contact { part_a: 0, part_b: id, ..h.contact }, ..h }))
        };
        match hit {
            Ok(Some(h)) if best.is_none_or(|b| h.t < b.t) => {
                limit = h.t;
                best = Some(h);
            }
            Ok(_) => {}
            Err(e) => result = Err(from_narrow(e, false)),
        }
        result.is_ok()
    });
    result.map(|()| best)
}

/// Both placed meshes as instances (the query checked both placements are invertible).
fn instances(a: &PlacedShape, b: &PlacedShape) -> Option<(MeshInstance, MeshInstance)> {
    let (Shape::Mesh(x), Shape::Mesh(y)) = (a.shape, b.shape) else { return None };
    Some((MeshInstance::new(x.clone(), *a.to_world).ok()?, MeshInstance::new(y.clone(), *b.to_world).ok()?))
}

pub(crate) fn mesh_mesh_intersects(a: &PlacedShape, b: &PlacedShape) -> bool {
    let (Shape::Mesh(x), Shape::Mesh(y)) = (a.shape, b.shape) else { return false };
    // Run in A's mesh space: B placed there by `a_to_world⁻¹ · b_to_world` (the query checked
    // that A's placement is invertible).
    x.intersects_mesh(y, &(a.to_world.inverse() * *b.to_world), None)
}

/// The deepest region's deepest point when the meshes overlap, else the closest points.
pub(crate) fn mesh_mesh_contact(a: &PlacedShape, b: &PlacedShape, max_distance: f32) -> Option<Contact> {
    let (x, y) = instances(a, b)?;
    let mut points = Vec::new();
    if x.mesh_contacts(&y, &mut points) > 0 {
        let deepest = points.iter().min_by(|p, q| p.separation.total_cmp(&q.separation))?;
        return Some(Contact {
            point_a: deepest.point,
            point_b: deepest.point + deepest.normal * deepest.separation,
            normal: deepest.normal,
            separation: deepest.separation,
            part_a: deepest.region,
            part_b: deepest.region,
        });
    }
    let d = x.mesh_distance(&y, max_distance)?;
    let normal = (d.point_b - d.point_a).try_normalize().unwrap_or(Vec3::ZERO);
    Some(Contact {
        point_a: d.point_a,
        point_b: d.point_b,
        normal,
        separation: d.distance,
        part_a: d.triangle_a,
        part_b: d.triangle_b,
    })
}

/// One manifold per touching region, or one point when apart within `prediction`.
pub(crate) fn mesh_mesh_manifolds(
    a: &PlacedShape,
    b: &PlacedShape,
    prediction: f32,
    out: &mut Vec<PartManifold>,
) {
    let Some((x, y)) = instances(a, b) else { return };
    let mut points = Vec::new();
    let regions = x.mesh_contacts(&y, &mut points);
    if regions == 0 {
        if let Some(c) = mesh_mesh_contact(a, b, prediction) {
            out.push(single_point(&c));
        }
        return;
    }
    let first = out.len();
    out.extend((0..regions as u32).map(|r| PartManifold {
        part_a: r,
        part_b: r,
        manifold: ContactManifold::default(),
    }));
    for (id, p) in points.iter().enumerate() {
        let m = &mut out[first + p.region as usize].manifold;
        m.normal = p.normal;
        m.push(p.point, p.point + p.normal * p.separation, p.separation, id as u32);
    }
}

/// A one-point manifold from a contact.
fn single_point(c: &Contact) -> PartManifold {
    let mut manifold = ContactManifold::default();
    manifold.push(c.point_a, c.point_b, c.separation, 0);
    manifold.normal = c.normal;
    PartManifold { part_a: c.part_a, part_b: c.part_b, manifold }
}
