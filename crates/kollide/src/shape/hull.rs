//! Convex hulls of point sets (quickhull) with merged planar faces.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use glam::{Affine3A, DVec3, Vec3, Vec3A, Vec4};

use super::mass::MomentSum;
use super::{MassProperties, PointProjection, SupportMap};
use crate::bounds::Aabb3;
use crate::math::Ray3;
use crate::primitive::{RayHit3, closest_point_triangle};

/// Why a convex hull could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HullError {
    /// No points.
    Empty,
    /// The point at this index has a NaN or infinite coordinate.
    NonFinite { index: usize },
    /// Fewer than four affinely independent points (all points coincide, or lie on one line or
    /// one plane, within the hull tolerance): the hull has no volume.
    Degenerate,
}

impl fmt::Display for HullError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HullError::Empty => write!(f, "no points"),
            HullError::NonFinite { index } => write!(f, "point {index} is not finite"),
            HullError::Degenerate => write!(f, "fewer than 4 affinely independent points"),
        }
    }
}

impl std::error::Error for HullError {}

/// A planar face of a hull: a convex polygon of hull vertices, counter-clockwise seen from
/// outside, with its outward plane `normal · x = offset`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullFace {
    /// Unit outward normal.
    pub normal: Vec3,
    /// `normal · v ≤ offset` for every hull vertex `v` (equality, up to rounding, on the face).
    pub offset: f32,
    first: u32,
    len: u32,
}

#[derive(Debug, PartialEq)]
struct HullData {
    vertices: Vec<Vec3>,
    /// The vertices in groups of four, structure of arrays (`[xs, ys, zs]`), the last group padded
    /// with copies of vertex 0: the support function's layout.
    lanes: Vec<[Vec4; 3]>,
    /// The face normals in the same layout (padded with face 0's normal), for
    /// [`ConvexHull::supporting_face`].
    normal_lanes: Vec<[Vec4; 3]>,
    triangles: Vec<[u32; 3]>,
    faces: Vec<HullFace>,
    face_vertices: Vec<u32>,
    local_aabb: Aabb3,
}

/// A solid convex polytope: the convex hull of a point set. Cheap to clone (shared data).
///
/// Built by [`ConvexHull::new`] with quickhull in `f64`. Points within the hull tolerance
/// `1e-6 · s` of the current hull (`s`, the largest coordinate magnitude of the input after
/// centring on its bounding box) are treated as inside, so duplicate and coplanar input points
/// never create slivers or zero-area faces; adjacent triangles that are coplanar to that tolerance
/// are merged into one polygonal [`HullFace`].
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    data: Arc<HullData>,
}

/// The relative hull tolerance (see [`ConvexHull`]).
const HULL_TOLERANCE: f64 = 1e-6;

/// A triangle of the hull under construction.
struct BuildFace {
    v: [u32; 3],
    normal: DVec3,
    offset: f64,
    outside: Vec<u32>,
    alive: bool,
}

impl BuildFace {
    fn new(points: &[DVec3], v: [u32; 3]) -> Self {
        let [a, b, c] = v.map(|i| points[i as usize]);
        let normal = (b - a).cross(c - a).normalize_or_zero();
        Self { v, normal, offset: normal.dot(a), outside: Vec::new(), alive: true }
    }

    fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }
}

impl ConvexHull {
    /// The convex hull of `points` (any order, duplicates and coplanar points allowed).
    ///
    /// Errors: [`HullError::Empty`] for no points, [`HullError::NonFinite`] for the first
    /// non-finite point, [`HullError::Degenerate`] if the points do not span a volume.
    pub fn new(points: &[Vec3]) -> Result<Self, HullError> {
        if points.is_empty() {
            return Err(HullError::Empty);
        }
        if let Some(index) = points.iter().position(|p| !p.is_finite()) {
            return Err(HullError::NonFinite { index });
        }
        let bounds = Aabb3::from_points(points).ok_or(HullError::Empty)?;
        let center = bounds.center().as_dvec3();
        let pts: Vec<DVec3> = points.iter().map(|p| p.as_dvec3() - center).collect();
        let scale = pts.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
        let eps = HULL_TOLERANCE * scale;
        if !(scale > 0.0) {
            return Err(HullError::Degenerate);
        }

        let (mut faces, start) = initial_tetrahedron(&pts, eps)?;
        let mut edges: HashMap<(u32, u32), usize> = HashMap::new();
        for (f, face) in faces.iter().enumerate() {
            add_edges(&mut edges, face.v, f);
        }
        // Assign every point to the first face it is outside of.
        for i in 0..pts.len() as u32 {
            if start.contains(&i) {
                continue;
            }
            if let Some(face) = faces.iter_mut().find(|f| f.distance(pts[i as usize]) > eps) {
                face.outside.push(i);
            }
        }

        let mut stack = Vec::new();
        let mut visible = Vec::new();
        let mut horizon = Vec::new();
        let mut orphans = Vec::new();
        let mut cursor = 0;
        while cursor < faces.len() {
            if !faces[cursor].alive || faces[cursor].outside.is_empty() {
                cursor += 1;
                continue;
            }
            // The farthest point above this face is a hull vertex.
            let face = &faces[cursor];
            let eye = *face
                .outside
                .iter()
                .max_by(|&&a, &&b| face.distance(pts[a as usize]).total_cmp(&face.distance(pts[b as usize])))
                .unwrap_or(&face.outside[0]);
            let p = pts[eye as usize];
            // The connected set of faces that see the eye, by flood fill from this face.
            visible.clear();
            stack.clear();
            stack.push(cursor);
            faces[cursor].alive = false;
            while let Some(f) = stack.pop() {
                visible.push(f);
                let v = faces[f].v;
                for k in 0..3 {
                    let (a, b) = (v[k], v[(k + 1) % 3]);
                    if let Some(&g) = edges.get(&(b, a))
                        && faces[g].alive
                        && faces[g].distance(p) > eps
                    {
                        faces[g].alive = false;
                        stack.push(g);
                    }
                }
            }
            // Horizon: edges of visible faces whose neighbour is not visible.
            horizon.clear();
            for &f in &visible {
                let v = faces[f].v;
                for k in 0..3 {
                    let (a, b) = (v[k], v[(k + 1) % 3]);
                    if edges.get(&(b, a)).is_some_and(|&g| faces[g].alive) {
                        horizon.push((a, b));
                    }
                }
            }
            orphans.clear();
            for &f in &visible {
                remove_edges(&mut edges, faces[f].v);
                orphans.append(&mut faces[f].outside);
            }
            let first_new = faces.len();
            for &(a, b) in &horizon {
                let face = BuildFace::new(&pts, [a, b, eye]);
                add_edges(&mut edges, face.v, faces.len());
                faces.push(face);
            }
            for &q in &orphans {
                if q == eye {
                    continue;
                }
                let pq = pts[q as usize];
                if let Some(face) = faces[first_new..].iter_mut().find(|f| f.distance(pq) > eps) {
                    face.outside.push(q);
                }
            }
        }

        Ok(Self { data: Arc::new(finish(points, &faces, eps)) })
    }

    /// The hull's vertices (a subset of the input points).
    pub fn vertices(&self) -> &[Vec3] {
        &self.data.vertices
    }

    /// The boundary triangulated, wound outward, indices into [`Self::vertices`].
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.data.triangles
    }

    /// The planar faces (coplanar triangles merged).
    pub fn faces(&self) -> &[HullFace] {
        &self.data.faces
    }

    /// The vertex indices of `face`, counter-clockwise seen from outside.
    pub fn face_vertices(&self, face: &HullFace) -> &[u32] {
        &self.data.face_vertices[face.first as usize..(face.first + face.len) as usize]
    }

    /// The bounding box in the shape's local frame.
    pub fn local_aabb(&self) -> Aabb3 {
        self.data.local_aabb
    }

    /// Vertex `i` read from the support function's layout (which GJK has just brought into the
    /// cache), or the origin for an index out of range.
    pub fn lane_vertex(&self, i: u32) -> Vec3A {
        let (group, lane) = (i as usize / 4, i as usize % 4);
        self.data
            .lanes
            .get(group)
            .map_or(Vec3A::ZERO, |[xs, ys, zs]| Vec3A::new(xs[lane], ys[lane], zs[lane]))
    }

    /// The index (into [`Self::faces`]) of the face whose normal is closest to `dir` (largest
    /// `normal · dir`; 0 for a NaN direction): a scan over the normals four at a time.
    pub fn supporting_face(&self, dir: Vec3A) -> usize {
        let (dx, dy, dz) = (Vec4::splat(dir.x), Vec4::splat(dir.y), Vec4::splat(dir.z));
        let mut best = Vec4::NEG_INFINITY;
        let mut group = Vec4::ZERO;
        for (k, [xs, ys, zs]) in self.data.normal_lanes.iter().enumerate() {
            let d = *xs * dx + *ys * dy + *zs * dz;
            let better = d.cmpgt(best);
            best = Vec4::select(better, d, best);
            group = Vec4::select(better, Vec4::splat(k as f32), group);
        }
        let lane = best.cmpeq(Vec4::splat(best.max_element())).bitmask().trailing_zeros() as usize & 3;
        let index = group[lane] as usize * 4 + lane;
        if index < self.data.faces.len() { index } else { 0 }
    }

    /// Exact: the box of the mapped vertices.
    pub fn aabb(&self, map: &Affine3A) -> Aabb3 {
        let mut min = Vec3A::INFINITY;
        let mut max = Vec3A::NEG_INFINITY;
        for &v in &self.data.vertices {
            let p = map.transform_point3a(v.into());
            min = min.min(p);
            max = max.max(p);
        }
        Aabb3::new(min.into(), max.into())
    }

    /// Ray against the intersection of the face half-spaces (Cyrus–Beck clipping); from inside,
    /// `t = 0`. `None` for invalid rays (see [`crate::primitive`]).
    pub fn ray_cast(&self, ray: &Ray3, max_t: f32) -> Option<RayHit3> {
        let (o, d) = (ray.origin, ray.dir);
        let dd = d.length_squared();
        if !(dd >= f32::MIN_POSITIVE && dd.is_finite() && max_t >= 0.0 && o.is_finite()) {
            return None;
        }
        let (mut t0, mut t1) = (0.0f32, max_t);
        let mut normal = None;
        for face in &self.data.faces {
            let (num, den) = (face.offset - face.normal.dot(o), face.normal.dot(d));
            if den == 0.0 {
                if num < 0.0 {
                    return None;
                }
            } else if den < 0.0 {
                // Entering this half-space at t = num / den.
                let t = num / den;
                if t > t0 {
                    t0 = t;
                    normal = Some(face.normal);
                }
            } else {
                t1 = t1.min(num / den);
            }
            if t0 > t1 {
                return None;
            }
        }
        Some(RayHit3 { part: 0, t: t0, normal: normal.unwrap_or(-d / dd.sqrt()) })
    }

    /// Inside when on the inner side of every face plane; otherwise the closest point over the
    /// boundary triangles.
    pub fn project_point(&self, p: Vec3) -> PointProjection {
        if self.data.faces.iter().all(|f| f.normal.dot(p) <= f.offset) {
            return PointProjection::inside(p);
        }
        let mut best = (f32::INFINITY, p);
        for t in &self.data.triangles {
            let tri = t.map(|i| self.data.vertices[i as usize]);
            let q = closest_point_triangle(p, &tri).point;
            let d2 = q.distance_squared(p);
            if d2 < best.0 {
                best = (d2, q);
            }
        }
        PointProjection::outside_or_on(p, best.1)
    }

    /// Exact for the polytope: summed signed tetrahedra from the vertex centroid over the boundary
    /// triangles, in `f64`.
    pub fn mass_properties(&self) -> MassProperties {
        let vs = &self.data.vertices;
        let origin = vs.iter().fold(DVec3::ZERO, |s, v| s + v.as_dvec3()) / vs.len().max(1) as f64;
        let mut sum = MomentSum::default();
        for t in &self.data.triangles {
            let [a, b, c] = t.map(|i| vs[i as usize].as_dvec3() - origin);
            sum.add_tetrahedron(a, b, c);
        }
        sum.finish(origin)
    }
}

impl SupportMap for ConvexHull {
    /// The vertex with the largest `dir · v`: a scan over the vertices four at a time that keeps
    /// the best vertex's coordinates per lane (no index, so no dependent load at the end).
    #[inline]
    fn support(&self, dir: Vec3A) -> Vec3A {
        let (dx, dy, dz) = (Vec4::splat(dir.x), Vec4::splat(dir.y), Vec4::splat(dir.z));
        let lanes = &self.data.lanes;
        let Some([x0, y0, z0]) = lanes.first() else { return Vec3A::ZERO };
        let (mut bx, mut by, mut bz) = (*x0, *y0, *z0);
        let mut best = bx * dx + by * dy + bz * dz;
        for [xs, ys, zs] in &lanes[1..] {
            let d = *xs * dx + *ys * dy + *zs * dz;
            let better = d.cmpgt(best);
            best = Vec4::select(better, d, best);
            bx = Vec4::select(better, *xs, bx);
            by = Vec4::select(better, *ys, by);
            bz = Vec4::select(better, *zs, bz);
        }
        // A NaN direction matches no lane: lane 0 (the first vertex of some group).
        let lane = best.cmpeq(Vec4::splat(best.max_element())).bitmask().trailing_zeros() as usize & 3;
        Vec3A::new(bx[lane], by[lane], bz[lane])
    }
}

fn add_edges(edges: &mut HashMap<(u32, u32), usize>, v: [u32; 3], face: usize) {
    for k in 0..3 {
        edges.insert((v[k], v[(k + 1) % 3]), face);
    }
}

fn remove_edges(edges: &mut HashMap<(u32, u32), usize>, v: [u32; 3]) {
    for k in 0..3 {
        edges.remove(&(v[k], v[(k + 1) % 3]));
    }
}

/// Four extreme points spanning a volume larger than the tolerance, as four outward faces.
fn initial_tetrahedron(pts: &[DVec3], eps: f64) -> Result<(Vec<BuildFace>, [u32; 4]), HullError> {
    let far = |score: &dyn Fn(DVec3) -> f64| -> (u32, f64) {
        pts.iter().enumerate().fold((0, f64::NEG_INFINITY), |best, (i, &p)| {
            let s = score(p);
            if s > best.1 { (i as u32, s) } else { best }
        })
    };
    // The point farthest from the bounding-box centre (the origin), then the point farthest from it.
    let (i0, _) = far(&|p| p.length_squared());
    let p0 = pts[i0 as usize];
    let (i1, d01) = far(&|p| p.distance_squared(p0));
    if d01.sqrt() <= eps {
        return Err(HullError::Degenerate);
    }
    let p1 = pts[i1 as usize];
    let axis = (p1 - p0).normalize();
    let (i2, d2) = far(&|p| {
        let r = p - p0;
        (r - axis * r.dot(axis)).length_squared()
    });
    if d2.sqrt() <= eps {
        return Err(HullError::Degenerate);
    }
    let p2 = pts[i2 as usize];
    let n = (p1 - p0).cross(p2 - p0).normalize();
    let (i3, d3) = far(&|p| n.dot(p - p0).abs());
    if d3 <= eps {
        return Err(HullError::Degenerate);
    }
    // Wind so that the fourth point is behind the first face.
    let (a, b) = if n.dot(pts[i3 as usize] - p0) > 0.0 { (i1, i0) } else { (i0, i1) };
    let tris = [[a, b, i2], [b, a, i3], [i2, b, i3], [a, i2, i3]];
    Ok((tris.iter().map(|&v| BuildFace::new(pts, v)).collect(), [i0, i1, i2, i3]))
}

/// Compacts the alive faces, merges coplanar neighbours into polygons and computes planes.
fn finish(input: &[Vec3], faces: &[BuildFace], eps: f64) -> HullData {
    let alive: Vec<&BuildFace> = faces.iter().filter(|f| f.alive).collect();
    let mut remap: HashMap<u32, u32> = HashMap::new();
    let mut vertices = Vec::new();
    let triangles: Vec<[u32; 3]> = alive
        .iter()
        .map(|f| {
            f.v.map(|i| {
                *remap.entry(i).or_insert_with(|| {
                    vertices.push(input[i as usize]);
                    vertices.len() as u32 - 1
                })
            })
        })
        .collect();
    let dverts: Vec<DVec3> = vertices.iter().map(|v| v.as_dvec3()).collect();
    let normals: Vec<DVec3> = alive.iter().map(|f| f.normal).collect();
    let mut owner: HashMap<(u32, u32), usize> = HashMap::new();
    for (t, v) in triangles.iter().enumerate() {
        for k in 0..3 {
            owner.insert((v[k], v[(k + 1) % 3]), t);
        }
    }

    // Flood-fill groups of coplanar triangles (normals within ~0.1° and vertices within the
    // tolerance of the seed's plane).
    let mut group = vec![usize::MAX; triangles.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for seed in 0..triangles.len() {
        if group[seed] != usize::MAX {
            continue;
        }
        let (n, off) = (normals[seed], normals[seed].dot(dverts[triangles[seed][0] as usize]));
        let id = groups.len();
        let mut members = vec![seed];
        group[seed] = id;
        let mut i = 0;
        while i < members.len() {
            let v = triangles[members[i]];
            i += 1;
            for k in 0..3 {
                let Some(&g) = owner.get(&(v[(k + 1) % 3], v[k])) else { continue };
                let coplanar = normals[g].dot(n) >= 1.0 - 1e-6
                    && triangles[g].iter().all(|&j| (n.dot(dverts[j as usize]) - off).abs() <= 4.0 * eps);
                if group[g] == usize::MAX && coplanar {
                    group[g] = id;
                    members.push(g);
                }
            }
        }
        groups.push(members);
    }

    let mut hull_faces = Vec::new();
    let mut face_vertices = Vec::new();
    for members in &groups {
        // A group whose boundary is not one simple, convex loop (nearly coplanar triangles can
        // meet at a slight ridge and form a dart) stays as separate triangles.
        let seed_normal = normals[members[0]];
        let loops: Vec<Vec<u32>> = match boundary_loop(&triangles, members) {
            Some(l) if is_convex(&l, &dverts, seed_normal) => vec![l],
            _ => members.iter().map(|&t| triangles[t].to_vec()).collect(),
        };
        for l in loops {
            // Newell's normal (area weighted), then the plane through the farthest vertex.
            let mut n = DVec3::ZERO;
            for k in 0..l.len() {
                let (a, b) = (dverts[l[k] as usize], dverts[l[(k + 1) % l.len()] as usize]);
                n += a.cross(b);
            }
            let n = n.normalize_or_zero();
            let offset = l.iter().map(|&j| n.dot(dverts[j as usize])).fold(f64::NEG_INFINITY, f64::max);
            hull_faces.push(HullFace {
                normal: n.as_vec3(),
                offset: offset as f32,
                first: face_vertices.len() as u32,
                len: l.len() as u32,
            });
            face_vertices.extend_from_slice(&l);
        }
    }
    let local_aabb = Aabb3::from_points(&vertices).unwrap_or(Aabb3::EMPTY);
    let lanes = soa_lanes(&vertices);
    let normals: Vec<Vec3> = hull_faces.iter().map(|f| f.normal).collect();
    let normal_lanes = soa_lanes(&normals);
    HullData { vertices, lanes, normal_lanes, triangles, faces: hull_faces, face_vertices, local_aabb }
}

/// Points in groups of four as structure of arrays (`[xs, ys, zs]`), the last group padded with
/// copies of the first point.
fn soa_lanes(points: &[Vec3]) -> Vec<[Vec4; 3]> {
    points
        .chunks(4)
        .map(|c| {
            let v = |i: usize| *c.get(i).unwrap_or(&points[0]);
            let (a, b, c, d) = (v(0), v(1), v(2), v(3));
            [Vec4::new(a.x, b.x, c.x, d.x), Vec4::new(a.y, b.y, c.y, d.y), Vec4::new(a.z, b.z, c.z, d.z)]
        })
        .collect()
}

/// Whether the loop turns left (about `normal`) at every vertex, to a tolerance of 1e-9 of the
/// squared edge lengths.
fn is_convex(l: &[u32], verts: &[DVec3], normal: DVec3) -> bool {
    (0..l.len()).all(|k| {
        let (a, b, c) = (
            verts[l[k] as usize],
            verts[l[(k + 1) % l.len()] as usize],
            verts[l[(k + 2) % l.len()] as usize],
        );
        let (e, f) = (b - a, c - b);
        e.cross(f).dot(normal) >= -1e-9 * e.length_squared().max(f.length_squared())
    })
}

/// The boundary of a group of triangles as one loop of vertices, or `None` if it is not one
/// simple loop.
fn boundary_loop(triangles: &[[u32; 3]], members: &[usize]) -> Option<Vec<u32>> {
    let in_group: std::collections::HashSet<(u32, u32)> = members
        .iter()
        .flat_map(|&t| {
            let v = triangles[t];
            (0..3).map(move |k| (v[k], v[(k + 1) % 3]))
        })
        .collect();
    let mut next: HashMap<u32, u32> = HashMap::new();
    for &(a, b) in &in_group {
        if !in_group.contains(&(b, a)) && next.insert(a, b).is_some() {
            return None;
        }
    }
    let &start = next.keys().min()?;
    let mut l = vec![start];
    let mut cur = next[&start];
    while cur != start {
        if l.len() > next.len() {
            return None;
        }
        l.push(cur);
        cur = *next.get(&cur)?;
    }
    if l.len() != next.len() {
        return None;
    }
    Some(l)
}
