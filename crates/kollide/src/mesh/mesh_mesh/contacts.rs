//! Contact manifolds of two meshes: a few points per touching region, with a normal and a
//! signed separation (minus a penetration estimate).
//!
//! # Method
//!
//! 1. Every intersecting triangle pair is found by the descent of the overlap query, and where
//!    the two triangles meet is computed: the segment where they cross, or for coplanar pairs
//!    the corners and edge crossings of their common area. These points lie on both surfaces.
//! 2. Pairs are grouped into regions: two pairs are in one region when their triangles of A, or
//!    their triangles of B, share a vertex (union-find). A region is one connected patch of the
//!    intersection curves, with close patches merged when one mesh's triangles span both.
//! 3. The region's normal is the vector area of A's surface inside B, `∫ n_A dA` over that
//!    patch, normalized. By Stokes it depends only on the patch's boundary, the intersection
//!    curve: `½ Σ s × e` over its segments `s → e`, each oriented along `n_A × n_B` (the outward
//!    normals of the pair's triangles), which runs counter-clockwise around the patch seen from
//!    outside A. It points from A into B, and it is also `-∫ n_B dA` over B's surface inside A
//!    (the two patches close the common volume), the direction in which moving B shrinks the
//!    common volume fastest. When that vector vanishes (coplanar touching, curves that are not
//!    loops), the sum over the region's pairs of `n_A - n_B` is used instead. Open meshes have
//!    no outside; their triangles' front side (counter-clockwise winding) is taken as outward.
//! 4. The penetration (the contacts' `-separation`) estimates how far B must move along the
//!    normal `n` to separate the region. The
//!    corners of each mesh inside the other solid are found first. Which corners of the
//!    intersecting triangles lie inside is decided by parity: along an edge, the side changes at
//!    each crossing of the other mesh's triangles (watertight segment tests against the
//!    triangles the edge's triangle meets), so one exact inside test per connected set of
//!    corners decides them all; edges whose crossings come near an edge or corner are not
//!    trusted. For a solid mesh, the triangles enclosed by the region (reached from inside
//!    corners across edges without crossing an intersecting triangle) are inside too. The
//!    penetration is then the largest distance, over the few deepest of those points on each side (measured
//!    along `n` from the centroid of the region's points), from the point to where a ray along
//!    `n` (for B's points) or `-n` (for A's points) leaves the other solid: for convex solids
//!    this is the separating distance along `n` unless an edge-edge contact decides it. For two
//!    balls it is the sum of the two cap heights, for boxes the face overlap. Without such a ray
//!    (the other mesh is a surface, or no ray leaves it from inside) it falls back to the sum of
//!    the two sides' deepest points' heights beyond the centroid; for a surface, a corner counts
//!    as inside when it lies behind the plane of a triangle its triangle crosses (front side
//!    out), and nothing is flooded, so penetrations deeper than about one triangle are
//!    underestimated.
//! 5. Each region keeps at most four points: the extreme point along a tangent, the point
//!    farthest from it, and the points farthest on each side of the line through those two
//!    (measured in the plane of the normal), which span the region's contact area.
//!
//! A mesh inside a solid one without crossing it gives one contact from the containment
//! witness (see [`MeshContact`]).

use super::distance::closest_triangle_triangle;
use super::{Relative, Witness, containment, descend, inside};
use crate::math::Ray3;
use crate::mesh::topology::UnionFind;
use crate::mesh::trimesh::TriMesh;
use crate::primitive::{
    TriangleIntersection, closest_point_triangle, closest_points_segment_segment,
    intersect_triangle_triangle, segment_triangle,
};
use glam::{Affine3A, Mat3, Vec3};

/// One point of a contact manifold of two meshes, in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshContact {
    /// Where the surfaces cross: a point on both of them, up to rounding. For a containment
    /// contact (no triangles cross, one mesh inside the other solid) the contained vertex.
    pub point: Vec3,
    /// The region's unit normal, from A to B: moving B along it separates the region.
    pub normal: Vec3,
    /// The region's signed separation along `normal`: `<= 0`, zero for touching surfaces, minus
    /// the penetration estimate for crossing ones (see the module documentation; for a
    /// containment contact, minus the vertex's distance to the containing surface).
    pub separation: f32,
    /// The touching region the point belongs to, `0 .. regions`.
    pub region: u32,
}

/// Appends the contact manifold of A and B (placed in A's mesh space by `rel`) to `out`, with
/// A's space mapped by `frame` (A's placement in the world: points, normals and separations in
/// the world), and returns the number of touching regions (0 when the meshes do not overlap).
/// Pairs are found in A's mesh space; the meeting points are computed there and mapped.
pub(crate) fn contacts_in_frame(
    a: &TriMesh,
    b: &TriMesh,
    rel: &Relative,
    frame: &Affine3A,
    out: &mut Vec<MeshContact>,
) -> usize {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    descend(a, b, rel, |ka, kb| {
        pairs.push((ka, kb));
        true
    });
    if pairs.is_empty() {
        return containment_contact(a, b, rel, frame, out);
    }
    let b_frame = *frame * rel.to_a;
    let sign = |m: &Affine3A| if Mat3::from(m.matrix3).determinant() < 0.0 { -1.0 } else { 1.0 };
    let orient_a = a.solid().map_or(1.0, |s| s.orientation) * sign(frame);
    let orient_b = b.solid().map_or(1.0, |s| s.orientation) * sign(&b_frame);
    let a_ids = |k: u32| a.triangles()[a.slot_id(k) as usize];
    let b_ids = |k: u32| b.triangles()[b.slot_id(k) as usize];

    // Regions: union-find over pairs, joined through shared vertices of A or of B.
    let mut sets = UnionFind::new(pairs.len());
    let (mut a_first, mut b_first) = (vec![u32::MAX; a.vertices().len()], vec![u32::MAX; b.vertices().len()]);
    for (i, &(ka, kb)) in pairs.iter().enumerate() {
        for (first, ids) in [(&mut a_first, a_ids(ka)), (&mut b_first, b_ids(kb))] {
            for v in ids {
                let j = first[v as usize];
                if j == u32::MAX {
                    first[v as usize] = i as u32;
                } else {
                    sets.union(i as u32, j);
                }
            }
        }
    }
    drop((a_first, b_first));
    // Regions are numbered in the order of their first pair.
    let mut region_of_root = vec![u32::MAX; pairs.len()];
    let mut regions = 0;
    let region: Vec<usize> = (0..pairs.len() as u32)
        .map(|i| {
            let r = sets.find(i) as usize;
            if region_of_root[r] == u32::MAX {
                region_of_root[r] = regions as u32;
                regions += 1;
            }
            region_of_root[r] as usize
        })
        .collect();

    // Meeting points, normals, crossing segments.
    let mut points: Vec<Vec<Vec3>> = vec![Vec::new(); regions];
    let mut normal_sum = vec![Vec3::ZERO; regions];
    // (region, start, end) of the crossing segments, oriented along `n_A × n_B`.
    let mut segments = Vec::with_capacity(pairs.len());
    let mut meet = Vec::with_capacity(16);
    for (i, &(ka, kb)) in pairs.iter().enumerate() {
        let r = region[i];
        let ta = *a.slot_corners(ka);
        let tb = rel.map_b_triangle(b.slot_corners(kb));
        meet.clear();
        let crossing = meeting_points(&ta, &tb, &mut meet);
        points[r].extend(meet.iter().map(|&p| frame.transform_point3(p)));
        let fa = ta.map(|p| frame.transform_point3(p));
        let fb = b.slot_corners(kb).map(|p| b_frame.transform_point3(p));
        let na = (fa[1] - fa[0]).cross(fa[2] - fa[0]).normalize_or_zero() * orient_a;
        let nb = (fb[1] - fb[0]).cross(fb[2] - fb[0]).normalize_or_zero() * orient_b;
        normal_sum[r] += na - nb;
        if crossing && meet.len() == 2 {
            let (s, e) = (frame.transform_point3(meet[0]), frame.transform_point3(meet[1]));
            segments.push(if (e - s).dot(na.cross(nb)) >= 0.0 { (r, s, e) } else { (r, e, s) });
        }
    }

    // The vertices of each mesh inside the other, as (region, frame point).
    let placed_a = PlacedMesh { mesh: a, to_a: None, frame: *frame, orientation: orient_a };
    let placed_b = PlacedMesh { mesh: b, to_a: Some(rel.to_a), frame: *frame, orientation: orient_b };
    let a_pairs: Vec<(u32, u32, usize)> =
        pairs.iter().zip(&region).map(|(&(ka, kb), &r)| (ka, kb, r)).collect();
    let b_pairs: Vec<(u32, u32, usize)> =
        pairs.iter().zip(&region).map(|(&(ka, kb), &r)| (kb, ka, r)).collect();
    let a_deep = deep_points(&placed_a, &placed_b, a_pairs, |p| inside(b, rel.to_b.transform_point3(p)));
    let b_deep = deep_points(&placed_b, &placed_a, b_pairs, |p| inside(a, p));

    let fallback = (b.bounds().transformed(&b_frame).center() - a.bounds().transformed(frame).center())
        .try_normalize()
        .unwrap_or(Vec3::Z);
    let centers: Vec<Vec3> =
        points.iter().map(|p| p.iter().sum::<Vec3>() / (p.len().max(1) as f32)).collect();
    // Vector areas around the centres (exact for closed loops whatever the centre) and the
    // curves' lengths.
    let (mut area, mut length) = (vec![Vec3::ZERO; regions], vec![0.0f32; regions]);
    for &(r, s, e) in &segments {
        area[r] += 0.5 * (s - centers[r]).cross(e - centers[r]);
        length[r] += s.distance(e);
    }
    // A loop of length L encloses a vector area of at most L² / 4π; far less means no loop.
    let normals: Vec<Vec3> = (0..regions)
        .map(|r| {
            let by_area = (area[r].length() > 1e-4 * length[r] * length[r]).then(|| area[r].try_normalize());
            by_area.flatten().or_else(|| normal_sum[r].try_normalize()).unwrap_or(fallback)
        })
        .collect();
    // The plane measure of each side, and each side's deepest corners by it for the ray measure.
    let (mut depth_a, mut depth_b) = (vec![0.0f32; regions], vec![0.0f32; regions]);
    let (mut a_top, mut b_top) = (vec![Deepest::default(); regions], vec![Deepest::default(); regions]);
    for &(r, p) in &a_deep {
        let m = normals[r].dot(p - centers[r]);
        depth_a[r] = depth_a[r].max(m);
        a_top[r].offer(m, p);
    }
    for &(r, p) in &b_deep {
        let m = -normals[r].dot(p - centers[r]);
        depth_b[r] = depth_b[r].max(m);
        b_top[r].offer(m, p);
    }
    let a_from_frame = frame.inverse();
    let b_from_frame = rel.to_b * a_from_frame;
    for r in 0..regions {
        let n = normals[r];
        let by_ray = a_top[r]
            .points()
            .filter_map(|p| exit_distance(b, &b_from_frame, p, -n))
            .chain(b_top[r].points().filter_map(|p| exit_distance(a, &a_from_frame, p, n)))
            .reduce(f32::max);
        let depth = by_ray.unwrap_or(depth_a[r] + depth_b[r]);
        // `0.0 - depth`, not `-depth`: touching gives +0.
        let separation = if depth.is_finite() { 0.0 - depth.max(0.0) } else { 0.0 };
        let mut keep = [usize::MAX; 4];
        let kept = representatives(&points[r], normals[r], &mut keep);
        out.extend(keep[..kept].iter().map(|&i| MeshContact {
            point: points[r][i],
            normal: normals[r],
            separation,
            region: r as u32,
        }));
    }
    regions
}

/// The few deepest points of one side of a region by the plane measure.
#[derive(Clone, Copy, Default)]
struct Deepest {
    items: [(f32, Vec3); DEEPEST],
    len: usize,
}

/// How many of each side's deepest corners per region are measured by a ray.
const DEEPEST: usize = 4;

impl Deepest {
    /// Keeps `p` if it is among the deepest so far (a point already kept is not kept twice).
    fn offer(&mut self, measure: f32, p: Vec3) {
        if self.items[..self.len].iter().any(|x| x.1 == p) {
            return;
        }
        if self.len < DEEPEST {
            self.items[self.len] = (measure, p);
            self.len += 1;
            return;
        }
        let (i, least) = (0..DEEPEST)
            .map(|i| (i, self.items[i].0))
            .fold((0, f32::INFINITY), |m, x| if x.1 < m.1 { x } else { m });
        if measure > least {
            self.items[i] = (measure, p);
        }
    }

    fn points(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.items[..self.len].iter().map(|x| x.1)
    }
}

/// How far from `p` (a frame point inside solid `mesh`) along the unit frame direction `dir`
/// the ray leaves `mesh`: the first surface hit, if the ray crosses it from inside (toward the
/// outer side of the triangle hit); `None` otherwise and for a surface mesh. `from_frame` maps
/// the frame to the mesh's space; an affine map keeps the ray parameter, so the distance is in
/// the frame.
fn exit_distance(mesh: &TriMesh, from_frame: &Affine3A, p: Vec3, dir: Vec3) -> Option<f32> {
    let solid = mesh.solid()?;
    let ray = Ray3::new(from_frame.transform_point3(p), from_frame.transform_vector3(dir));
    let hit = mesh.cast_ray(&ray, f32::MAX)?;
    let t = mesh.triangle(hit.part)?;
    let outward = (t[1] - t[0]).cross(t[2] - t[0]) * solid.orientation;
    (outward.dot(ray.dir) > 0.0).then_some(hit.t)
}

/// The points where two intersecting triangles meet: the crossing segment's ends, or for
/// coplanar triangles the corners of each inside the other and the edge crossings (within a
/// rounding tolerance of their size). True for a crossing segment.
fn meeting_points(p: &[Vec3; 3], q: &[Vec3; 3], out: &mut Vec<Vec3>) -> bool {
    match intersect_triangle_triangle(p, q) {
        Some(TriangleIntersection::Segment { start, end }) => {
            out.push(start);
            if end != start {
                out.push(end);
            }
            return true;
        }
        Some(TriangleIntersection::Coplanar) => {
            let reach = p.iter().chain(q).fold(0.0f32, |m, v| m.max(v.abs().max_element()));
            let tolerance = (4e-6 * reach) * (4e-6 * reach);
            for (x, y) in [(p, q), (q, p)] {
                out.extend(
                    x.iter()
                        .filter(|&&c| (closest_point_triangle(c, y).point - c).length_squared() <= tolerance),
                );
            }
            for i in 0..3 {
                for j in 0..3 {
                    let c = closest_points_segment_segment(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3]);
                    if c.distance_squared <= tolerance {
                        out.push(c.point_a);
                    }
                }
            }
            if out.is_empty() {
                out.push(closest_triangle_triangle(p, q).1);
            }
        }
        None => {}
    }
    false
}

/// The smallest barycentric weight and segment parameter of a crossing that is trusted to be a
/// single, transversal crossing (far above the rounding of both, about `1e-7`).
const CLEAR_CROSSING: f32 = 1e-5;

/// One mesh of the pair as the contacts see it: its map into A's space (`None` for A itself,
/// whose triangles are used as stored), the map of A's space into the frame, and the sign that
/// makes its triangle normals outward in the frame.
struct PlacedMesh<'m> {
    mesh: &'m TriMesh,
    to_a: Option<Affine3A>,
    frame: Affine3A,
    orientation: f32,
}

impl PlacedMesh<'_> {
    /// Slot `k`'s corners in A's space, rounded as in the descent.
    fn in_a(&self, k: u32) -> [Vec3; 3] {
        let t = *self.mesh.slot_corners(k);
        self.to_a.map_or(t, |m| t.map(|p| m.transform_point3(p)))
    }

    fn ids(&self, k: u32) -> [u32; 3] {
        self.mesh.triangles()[self.mesh.slot_id(k) as usize]
    }
}

/// The frame points (with their region) of the vertices of `own`'s intersecting triangles that
/// lie inside `other`, and of the triangles they enclose. `pairs` are `(own slot, other slot,
/// region)`; `inside_other` tells whether a point of A's space is inside `other` (false if it is
/// not solid).
///
/// When `other` is solid, the vertices are classified by parity: along an edge of an
/// intersecting triangle, the side changes at each crossing of the other mesh's triangles that
/// cross this triangle (watertight segment tests), so each connected set of those vertices needs
/// one inside test (each vertex its own when `other` passes through itself). Otherwise a vertex counts as inside when it lies behind the plane of a
/// triangle it crosses (front side outward). When `own` is solid too, the triangles reached
/// from the inside vertices across edges, without crossing an intersecting triangle, are inside
/// as well (flood over edge neighbours).
fn deep_points(
    own: &PlacedMesh,
    other: &PlacedMesh,
    mut pairs: Vec<(u32, u32, usize)>,
    inside_other: impl Fn(Vec3) -> bool,
) -> Vec<(usize, Vec3)> {
    pairs.sort_unstable();
    let mesh = own.mesh;
    // Vertex id -> its index among the ring vertices (u32::MAX: not a ring vertex).
    let mut local = vec![u32::MAX; mesh.vertices().len()];
    let mut ring_vertices: Vec<(u32, Vec3)> = Vec::new();
    let mut parent: Vec<u32> = Vec::new();
    // Parity of each ring vertex relative to its union-find parent.
    let mut parity: Vec<bool> = Vec::new();
    fn root_parity(parent: &mut [u32], parity: &mut [bool], i: u32) -> (u32, bool) {
        let (mut r, mut flip) = (i, false);
        while parent[r as usize] != r {
            flip ^= parity[r as usize];
            r = parent[r as usize];
        }
        // Compress the path: every node on it now points at the root with its total parity.
        let (mut j, mut acc) = (i, flip);
        while parent[j as usize] != j {
            let (up, step) = (parent[j as usize], parity[j as usize]);
            parent[j as usize] = r;
            parity[j as usize] = acc;
            acc ^= step;
            j = up;
        }
        (r, flip)
    }
    let solid_other = other.mesh.is_solid();
    // Parity links sides only where each crossing enters or leaves the solid: not when the other
    // mesh passes through itself (a crossing may go from inside to inside, winding 1 to 2), where
    // every vertex gets its own inside test.
    let link = solid_other && !other.mesh.solid().is_some_and(|s| s.self_intersecting);
    let mut plane_inside: Vec<bool> = Vec::new();
    for run in pairs.chunk_by(|x, y| x.0 == y.0) {
        let k = run[0].0;
        let (ids, corners) = (own.ids(k), own.in_a(k));
        for (&v, &p) in ids.iter().zip(&corners) {
            if local[v as usize] == u32::MAX {
                local[v as usize] = ring_vertices.len() as u32;
                ring_vertices.push((v, p));
                parent.push(parent.len() as u32);
                parity.push(false);
                plane_inside.push(false);
            }
        }
        if link {
            for e in 0..3 {
                let (p, q) = (corners[e], corners[(e + 1) % 3]);
                // Crossings near an edge or corner of either triangle may be counted twice or
                // be tangent: such edges tell nothing, and their ends are linked otherwise or
                // tested themselves.
                let (mut crossings, mut clear) = (0, true);
                for x in run {
                    if let Some(hit) = segment_triangle(p, q, &other.in_a(x.1)) {
                        crossings += 1;
                        let margin = hit.u.min(hit.v).min(1.0 - hit.u - hit.v).min(hit.t).min(1.0 - hit.t);
                        clear &= margin > CLEAR_CROSSING;
                    }
                }
                if !clear {
                    continue;
                }
                let (i, j) = (local[ids[e] as usize], local[ids[(e + 1) % 3] as usize]);
                let ((ri, pi), (rj, pj)) =
                    (root_parity(&mut parent, &mut parity, i), root_parity(&mut parent, &mut parity, j));
                if ri != rj {
                    parent[ri as usize] = rj;
                    parity[ri as usize] = pi ^ pj ^ (crossings % 2 == 1);
                }
            }
        } else if !solid_other {
            let fa = corners.map(|p| own.frame.transform_point3(p));
            for x in run {
                let tb = other.in_a(x.1).map(|p| other.frame.transform_point3(p));
                let nb = (tb[1] - tb[0]).cross(tb[2] - tb[0]) * other.orientation;
                for (&v, &p) in ids.iter().zip(&fa) {
                    if nb.dot(p - tb[0]) < 0.0 {
                        plane_inside[local[v as usize] as usize] = true;
                    }
                }
            }
        }
    }
    let inside: Vec<bool> = if solid_other {
        let mut root_inside: Vec<Option<bool>> = vec![None; ring_vertices.len()];
        (0..ring_vertices.len() as u32)
            .map(|i| {
                let (r, flip) = root_parity(&mut parent, &mut parity, i);
                let at_root = *root_inside[r as usize].get_or_insert_with(|| {
                    // The root's own side, from the vertex's position in A's space.
                    inside_other(ring_vertices[r as usize].1)
                });
                at_root ^ flip
            })
            .collect()
    } else {
        plane_inside
    };
    let mut deep = Vec::new();
    for &(k, _, r) in &pairs {
        for (v, p) in own.ids(k).into_iter().zip(own.in_a(k)) {
            if inside[local[v as usize] as usize] {
                deep.push((r, own.frame.transform_point3(p)));
            }
        }
    }
    // The enclosed patches of a solid: flood from the ring across edges with both ends inside.
    let Some(solid) = mesh.solid() else { return deep };
    let vertex_inside = |v: u32| local[v as usize] != u32::MAX && inside[local[v as usize] as usize];
    // 1: intersecting triangle, 2: reached by the flood.
    let mut state = vec![0u8; mesh.triangle_count()];
    for &(k, ..) in &pairs {
        state[k as usize] = 1;
    }
    let mut todo = Vec::new();
    for run in pairs.chunk_by(|x, y| x.0 == y.0) {
        let (k, r) = (run[0].0, run[0].2);
        let ids = own.ids(k);
        for e in 0..3 {
            let next = solid.neighbors[k as usize][e];
            if next == u32::MAX
                || state[next as usize] != 0
                || !vertex_inside(ids[e])
                || !vertex_inside(ids[(e + 1) % 3])
            {
                continue;
            }
            state[next as usize] = 2;
            todo.push(next);
            while let Some(n) = todo.pop() {
                deep.extend(own.in_a(n).map(|p| (r, own.frame.transform_point3(p))));
                for &m in &solid.neighbors[n as usize] {
                    if m != u32::MAX && state[m as usize] == 0 {
                        state[m as usize] = 2;
                        todo.push(m);
                    }
                }
            }
        }
    }
    deep
}

/// Indices of at most four points spanning `points` in the plane across `normal`: the extreme
/// along a tangent, the farthest from it, and the farthest on each side of the line through
/// those two. Returns how many were written to `keep`.
fn representatives(points: &[Vec3], normal: Vec3, keep: &mut [usize; 4]) -> usize {
    let argmax = |f: &dyn Fn(Vec3) -> f32| {
        points
            .iter()
            .enumerate()
            .fold((0, f32::NEG_INFINITY), |best, (i, &p)| if f(p) > best.1 { (i, f(p)) } else { best })
    };
    if points.is_empty() {
        return 0;
    }
    let tangent = normal.any_orthonormal_vector();
    let (first, _) = argmax(&|p| tangent.dot(p));
    let origin = points[first];
    keep[0] = first;
    let mut kept = 1;
    let (second, far) = argmax(&|p| (p - origin).length_squared());
    if far > 0.0 {
        keep[kept] = second;
        kept += 1;
        let side = normal.cross(points[second] - origin);
        let (left, l) = argmax(&|p| side.dot(p - origin));
        let (right, r) = argmax(&|p| -side.dot(p - origin));
        for (i, d) in [(left, l), (right, r)] {
            if d > 0.0 {
                keep[kept] = i;
                kept += 1;
            }
        }
    }
    kept
}

/// The contact of a mesh inside the other solid, if one is: at the contained vertex, along the
/// way to the containing surface's closest point (B pushed out: from the vertex of B toward A's
/// surface; A pushed out: from A's surface point toward the vertex of A, reversed).
fn containment_contact(
    a: &TriMesh,
    b: &TriMesh,
    rel: &Relative,
    frame: &Affine3A,
    out: &mut Vec<MeshContact>,
) -> usize {
    let (point, normal) = match containment(a, b, rel) {
        Witness::BVertexInA(v) => {
            let p = rel.to_a.transform_point3(b.vertices()[v as usize]);
            let q = a.closest_point(p, f32::INFINITY).map_or(p, |c| c.point);
            let (p, q) = (frame.transform_point3(p), frame.transform_point3(q));
            (p, q - p)
        }
        Witness::AVertexInB(u) => {
            let p = a.vertices()[u as usize];
            let b_frame = *frame * rel.to_a;
            let p = frame.transform_point3(p);
            let q = b.closest_point(rel.to_b.transform_point3(a.vertices()[u as usize]), f32::INFINITY);
            (p, p - q.map_or(p, |c| b_frame.transform_point3(c.point)))
        }
        _ => return 0,
    };
    let separation = -normal.length();
    out.push(MeshContact { point, normal: normal.try_normalize().unwrap_or(Vec3::Z), separation, region: 0 });
    1
}
