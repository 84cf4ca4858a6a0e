//! Brute-force twins of mesh against mesh: every triangle pair tested (no BVH), containment by
//! the generalized winding number, distances in `f64`.
//!
//! B's triangles are mapped into A's space with [`Affine3A::transform_point3`], the rounding
//! kollide documents its answers for, so exact answers compare equal.

use crate::reference_mesh::winding_number;
use crate::reference_primitive::{
    point_triangle_distance_squared_reference, segment_segment_distance_squared_reference,
};
use glam::{Affine3A, Vec3};
use kollide::primitive::{TriangleIntersection, intersect_triangle_triangle, test_triangle_triangle};

/// A mesh for the references: vertices, triangles, and whether it is a solid (closed and
/// consistently oriented; the caller says).
pub struct RefMesh<'m> {
    pub vertices: &'m [Vec3],
    pub triangles: &'m [[u32; 3]],
    pub solid: bool,
}

impl RefMesh<'_> {
    /// Corners of every triangle mapped by `map`, by triangle id.
    pub fn mapped(&self, map: &Affine3A) -> Vec<[Vec3; 3]> {
        self.triangles.iter().map(|t| t.map(|i| map.transform_point3(self.vertices[i as usize]))).collect()
    }
}

fn tri_box(t: &[Vec3; 3]) -> (Vec3, Vec3) {
    (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]))
}

fn boxes_touch(a: (Vec3, Vec3), b: (Vec3, Vec3)) -> bool {
    a.0.cmple(b.1).all() && b.0.cmple(a.1).all()
}

/// Every intersecting pair `(id in a, id in b)`, sorted. A pair whose boxes do not touch cannot
/// intersect, which only saves time.
pub fn intersecting_pairs(a: &[[Vec3; 3]], b: &[[Vec3; 3]]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    scan_pairs(a, b, |i, j| {
        out.push((i, j));
        true
    });
    out
}

/// True if some triangle of `a` meets some triangle of `b`.
pub fn any_pair(a: &[[Vec3; 3]], b: &[[Vec3; 3]]) -> bool {
    !scan_pairs(a, b, |_, _| false)
}

fn scan_pairs(a: &[[Vec3; 3]], b: &[[Vec3; 3]], mut found: impl FnMut(u32, u32) -> bool) -> bool {
    let a_boxes: Vec<_> = a.iter().map(tri_box).collect();
    let b_boxes: Vec<_> = b.iter().map(tri_box).collect();
    let all = |boxes: &[(Vec3, Vec3)]| {
        boxes.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), b| (lo.min(b.0), hi.max(b.1)))
    };
    let (a_all, b_all) = (all(&a_boxes), all(&b_boxes));
    let a_near: Vec<usize> = (0..a.len()).filter(|&i| boxes_touch(a_boxes[i], b_all)).collect();
    let b_near: Vec<usize> = (0..b.len()).filter(|&j| boxes_touch(b_boxes[j], a_all)).collect();
    for &i in &a_near {
        for &j in &b_near {
            if boxes_touch(a_boxes[i], b_boxes[j])
                && test_triangle_triangle(&a[i], &b[j])
                && !found(i as u32, j as u32)
            {
                return false;
            }
        }
    }
    true
}

/// The intersection curves of two triangle sets: the segment where each pair of crossing
/// triangles meets (coplanar pairs are left out), from all pairs in the order of
/// [`intersecting_pairs`].
pub fn crossing_segments(a: &[[Vec3; 3]], b: &[[Vec3; 3]]) -> Vec<(Vec3, Vec3)> {
    intersecting_pairs(a, b)
        .into_iter()
        .filter_map(|(i, j)| match intersect_triangle_triangle(&a[i as usize], &b[j as usize]) {
            Some(TriangleIntersection::Segment { start, end }) => Some((start, end)),
            _ => None,
        })
        .collect()
}

/// One vertex per connected component (triangles sharing a vertex index are connected), by
/// flood fill over a vertex-to-triangle index.
pub fn component_vertices(triangles: &[[u32; 3]], vertex_count: usize) -> Vec<u32> {
    let mut by_vertex: Vec<Vec<usize>> = vec![Vec::new(); vertex_count];
    for (t, tri) in triangles.iter().enumerate() {
        for &v in tri {
            by_vertex[v as usize].push(t);
        }
    }
    let mut done = vec![false; triangles.len()];
    let mut seeds = Vec::new();
    for start in 0..triangles.len() {
        if done[start] {
            continue;
        }
        seeds.push(triangles[start][0]);
        done[start] = true;
        let mut todo = vec![start];
        while let Some(t) = todo.pop() {
            for &v in &triangles[t] {
                for &u in &by_vertex[v as usize] {
                    if !done[u] {
                        done[u] = true;
                        todo.push(u);
                    }
                }
            }
        }
    }
    seeds
}

/// How the solids (or surfaces) overlap, by brute force in A's space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefOverlap {
    Disjoint,
    Triangles,
    /// No triangles meet; a component of A lies inside solid B.
    AInsideB,
    /// No triangles meet; a component of B lies inside solid A.
    BInsideA,
}

/// The solid-semantics overlap of `a` and `b` placed by `b_in_a`: a triangle pair meets, or a
/// component of one lies inside the other solid (a vertex with winding number about ±1; the
/// sign flips under reflections).
pub fn overlap(a: &RefMesh, b: &RefMesh, b_in_a: &Affine3A) -> RefOverlap {
    let a_tris = a.mapped(&Affine3A::IDENTITY);
    let b_tris = b.mapped(b_in_a);
    if any_pair(&a_tris, &b_tris) {
        return RefOverlap::Triangles;
    }
    if a.solid
        && component_vertices(b.triangles, b.vertices.len())
            .iter()
            .any(|&v| winding_number(&a_tris, b_in_a.transform_point3(b.vertices[v as usize])).abs() > 0.5)
    {
        return RefOverlap::BInsideA;
    }
    if b.solid
        && component_vertices(a.triangles, a.vertices.len())
            .iter()
            .any(|&u| winding_number(&b_tris, a.vertices[u as usize]).abs() > 0.5)
    {
        return RefOverlap::AInsideB;
    }
    RefOverlap::Disjoint
}

/// The distance between two triangle sets in `f64`: zero if a pair meets (exact test), else the
/// smallest distance over all edge pairs and corner-triangle pairs of all triangle pairs.
pub fn distance(a: &[[Vec3; 3]], b: &[[Vec3; 3]]) -> f64 {
    let mut best = f64::INFINITY;
    for p in a {
        for q in b {
            if test_triangle_triangle(p, q) {
                return 0.0;
            }
            for i in 0..3 {
                for j in 0..3 {
                    let d = segment_segment_distance_squared_reference(
                        p[i],
                        p[(i + 1) % 3],
                        q[j],
                        q[(j + 1) % 3],
                    );
                    best = best.min(d);
                }
                best = best.min(point_triangle_distance_squared_reference(p[i], q));
                best = best.min(point_triangle_distance_squared_reference(q[i], p));
            }
        }
    }
    best.sqrt()
}
