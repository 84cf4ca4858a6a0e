//! Independent references for triangle/triangle overlap.
//!
//! Both decide overlap by the separating axis theorem over an exhaustive candidate set, a method
//! unrelated to the orientation-predicate algorithm they check.

use glam::{DVec3, I64Vec3, Vec3};

/// Candidate separating directions for the convex hulls of two point sets of up to three points
/// each (triangles, segments, points).
///
/// Two disjoint compact convex sets are strictly separated by the plane orthogonal to the vector
/// joining their closest points, and that vector is orthogonal to the affine hulls of the two
/// features containing the closest points. With `D` = edges of both sets plus all differences
/// between a point of one and a point of the other, it is therefore (up to scale) a member of `D`
/// (point–point), a cross product `x × y` of two members (edge–edge, point–face, and every pair
/// involving a face), or `x × (x × y)` (point–edge: orthogonal to the edge, in the plane of edge and
/// point). Zero vectors are skipped.
fn candidate_axes<V: Copy + PartialEq>(
    a: &[V; 3],
    b: &[V; 3],
    sub: impl Fn(V, V) -> V,
    cross: impl Fn(V, V) -> V,
    zero: V,
) -> Vec<V> {
    let mut d = Vec::with_capacity(15);
    for t in [a, b] {
        for i in 0..3 {
            d.push(sub(t[(i + 1) % 3], t[i]));
        }
    }
    for &p in a {
        for &q in b {
            d.push(sub(q, p));
        }
    }
    let mut axes: Vec<V> = d.clone();
    let mut crosses = Vec::new();
    for i in 0..d.len() {
        for j in i + 1..d.len() {
            crosses.push(cross(d[i], d[j]));
        }
    }
    for &x in &d {
        for &c in &crosses {
            axes.push(cross(x, c));
        }
    }
    axes.extend(crosses);
    axes.retain(|&v| v != zero);
    axes
}

/// Exact overlap of two closed triangles with small integer coordinates (each `|x| <= 1000`),
/// degenerate ones included, in 64-bit integer arithmetic.
pub fn triangles_overlap_exact(a: &[I64Vec3; 3], b: &[I64Vec3; 3]) -> bool {
    let axes = candidate_axes(a, b, |p, q| p - q, |p, q| p.cross(q), I64Vec3::ZERO);
    !axes.iter().any(|&axis| {
        let pa = a.map(|p| p.dot(axis));
        let pb = b.map(|p| p.dot(axis));
        let (amin, amax) = (pa.iter().min().unwrap(), pa.iter().max().unwrap());
        let (bmin, bmax) = (pb.iter().min().unwrap(), pb.iter().max().unwrap());
        amax < bmin || bmax < amin
    })
}

/// Signed separation margin of two triangles in `f64`: the largest gap between their projections
/// over all candidate axes (positive: separated by that distance along some axis; negative or
/// zero: overlapping). Near zero the sign is not reliable; callers skip such cases.
pub fn triangle_separation_margin(a: &[Vec3; 3], b: &[Vec3; 3]) -> f64 {
    let a = a.map(|p| p.as_dvec3());
    let b = b.map(|p| p.as_dvec3());
    let axes = candidate_axes(&a, &b, |p, q| p - q, |p, q| p.cross(q), DVec3::ZERO);
    axes.iter()
        .filter(|axis| axis.length_squared() > 1e-30)
        .map(|&axis| {
            let n = axis.normalize();
            let pa = a.map(|p| p.dot(n));
            let pb = b.map(|p| p.dot(n));
            let amin = pa.iter().cloned().fold(f64::INFINITY, f64::min);
            let amax = pa.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let bmin = pb.iter().cloned().fold(f64::INFINITY, f64::min);
            let bmax = pb.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            (bmin - amax).max(amin - bmax)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Distance from `p` to the closed triangle `t`, in `f64`, as the minimum over the plane
/// projection (when it falls inside) and the three edges.
pub fn point_triangle_distance(p: Vec3, t: &[Vec3; 3]) -> f64 {
    let p = p.as_dvec3();
    let [a, b, c] = t.map(|v| v.as_dvec3());
    let seg = |a: DVec3, b: DVec3| {
        let ab = b - a;
        let len2 = ab.length_squared();
        let s = if len2 > 0.0 { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
        (a + ab * s - p).length()
    };
    let mut best = seg(a, b).min(seg(b, c)).min(seg(c, a));
    let n = (b - a).cross(c - a);
    if n.length_squared() > 0.0 {
        let q = p - n * ((p - a).dot(n) / n.length_squared());
        let inside = [(a, b), (b, c), (c, a)].iter().all(|&(u, v)| (v - u).cross(q - u).dot(n) >= 0.0);
        if inside {
            best = best.min((q - p).length());
        }
    }
    best
}
