//! EPA: penetration depth and direction of two overlapping convex support maps.
//!
//! The expanding polytope algorithm (van den Bergen 2001): start from a tetrahedron of `A - B`
//! vertices that holds the origin, repeatedly take the polytope face closest to the origin, add the
//! support point along its normal, and stop when that point is no farther than the face. The
//! closest face then gives the penetration depth, the direction (from A to B) and, through the
//! barycentric coordinates of the origin's projection, the witness points on both shapes.

use glam::Vec3A;

use super::gjk::{Simplex, Vertex, support_vertex};
use crate::shape::SupportMap;

const MAX_VERTICES: usize = 68;
const MAX_FACES: usize = 128;
const MAX_ITERATIONS: usize = 64;

#[derive(Clone, Copy, Default)]
struct Face {
    v: [u8; 3],
    normal: Vec3A,
    distance: f32,
}

/// A penetration: `normal` (unit, A to B), `depth ≥ 0`, deepest points `point_a` of A and
/// `point_b` of B (`point_a - point_b = depth · normal`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Penetration {
    pub normal: Vec3A,
    pub depth: f32,
    pub point_a: Vec3A,
    pub point_b: Vec3A,
}

/// The affine hull of a flat Minkowski difference (one with no interior).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Flat {
    /// A single point.
    Point,
    /// A segment along this unit direction.
    Line(Vec3A),
    /// A planar set with this unit normal.
    Plane(Vec3A),
}

impl Flat {
    /// A unit direction normal to the flat set, as close as possible to `hint`.
    pub fn normal_towards(self, hint: Vec3A) -> Vec3A {
        let n = match self {
            Flat::Point => hint,
            Flat::Line(d) => hint - d * hint.dot(d),
            Flat::Plane(n) => n * if n.dot(hint) < 0.0 { -1.0 } else { 1.0 },
        };
        let n = n.normalize_or_zero();
        if n != Vec3A::ZERO {
            return n;
        }
        match self {
            Flat::Line(d) => d.any_orthonormal_vector(),
            Flat::Plane(n) => n,
            Flat::Point => Vec3A::Y,
        }
    }
}

/// Grows a GJK simplex holding the origin into a tetrahedron of non-zero volume, or says why the
/// Minkowski difference is flat (then it has no interior and its penetration depth is zero).
fn blow_up(a: &impl SupportMap, b: &impl SupportMap, s: &mut Simplex, eps: f32) -> Result<(), Flat> {
    const AXES: [Vec3A; 6] = [Vec3A::X, Vec3A::NEG_X, Vec3A::Y, Vec3A::NEG_Y, Vec3A::Z, Vec3A::NEG_Z];
    if s.len == 1 {
        let found = AXES.iter().map(|&d| support_vertex(a, b, d)).find(|v| (v.w - s.v[0].w).length() > eps);
        let Some(v) = found else { return Err(Flat::Point) };
        s.v[1] = v;
        s.len = 2;
    }
    if s.len == 2 {
        let d = (s.v[1].w - s.v[0].w).normalize_or_zero();
        let axis = if d.x.abs() < 0.57 {
            Vec3A::X
        } else if d.y.abs() < 0.57 {
            Vec3A::Y
        } else {
            Vec3A::Z
        };
        let e1 = d.cross(axis).normalize_or_zero();
        let e2 = d.cross(e1);
        let mut found = None;
        for k in 0..6 {
            let angle = k as f32 * std::f32::consts::FRAC_PI_3;
            let dir = e1 * angle.cos() + e2 * angle.sin();
            let v = support_vertex(a, b, dir);
            let r = v.w - s.v[0].w;
            if (r - d * r.dot(d)).length() > eps {
                found = Some(v);
                break;
            }
        }
        let Some(v) = found else { return Err(Flat::Line(d)) };
        s.v[2] = v;
        s.len = 3;
    }
    if s.len == 3 {
        let n = (s.v[1].w - s.v[0].w).cross(s.v[2].w - s.v[0].w).normalize_or_zero();
        let up = support_vertex(a, b, n);
        let down = support_vertex(a, b, -n);
        let (du, dd) = (n.dot(up.w - s.v[0].w), -n.dot(down.w - s.v[0].w));
        // The origin is in the triangle's plane (up to rounding): either side gives a tetrahedron
        // holding it; take the taller one.
        let v = if du >= dd { up } else { down };
        if du.max(dd) <= eps {
            return Err(Flat::Plane(n));
        }
        s.v[3] = v;
        s.len = 4;
    }
    Ok(())
}

/// EPA from a GJK simplex holding the origin; `Err` if the Minkowski difference is flat.
pub(crate) fn epa(a: &impl SupportMap, b: &impl SupportMap, simplex: &Simplex) -> Result<Penetration, Flat> {
    let mut s = *simplex;
    let scale = s.v[..s.len].iter().fold(0.0f32, |m, v| m.max(v.w.abs().max_element()));
    let eps = 1e-6 * (1.0 + scale);
    blow_up(a, b, &mut s, eps)?;
    let mut verts = [Vertex::default(); MAX_VERTICES];
    verts[..4].copy_from_slice(&s.v);
    let mut nv = 4;
    // An interior point of the polytope orients the faces outward even when the origin is on
    // the boundary.
    let inner = (s.v[0].w + s.v[1].w + s.v[2].w + s.v[3].w) * 0.25;
    let mut faces = [Face::default(); MAX_FACES];
    let mut nf = 0;
    let make = |verts: &[Vertex], i: u8, j: u8, k: u8| -> Face {
        let (p, q, r) = (verts[i as usize].w, verts[j as usize].w, verts[k as usize].w);
        let mut n = (q - p).cross(r - p).normalize_or_zero();
        let mut v = [i, j, k];
        if n.dot(p - inner) < 0.0 {
            n = -n;
            v = [i, k, j];
        }
        Face { v, normal: n, distance: n.dot(p) }
    };
    for [i, j, k] in [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]] {
        faces[nf] = make(&verts, i, j, k);
        nf += 1;
    }
    let mut best = faces[0];
    for _ in 0..MAX_ITERATIONS {
        let Some(&f) = faces[..nf].iter().min_by(|x, y| x.distance.total_cmp(&y.distance)) else { break };
        best = f;
        if f.normal == Vec3A::ZERO {
            break;
        }
        let w = support_vertex(a, b, f.normal);
        let gap = f.normal.dot(w.w) - f.distance;
        if gap <= 1e-5 * (1.0 + f.distance.abs()) || nv == MAX_VERTICES {
            break;
        }
        verts[nv] = w;
        let new = nv as u8;
        nv += 1;
        // Remove every face the new point sees; the edges left once are the horizon.
        let mut horizon: [(u8, u8); 64] = [(0, 0); 64];
        let mut nh = 0;
        let mut i = 0;
        while i < nf {
            let face = faces[i];
            if face.normal.dot(w.w - verts[face.v[0] as usize].w) <= 0.0 {
                i += 1;
                continue;
            }
            for k in 0..3 {
                let (p, q) = (face.v[k], face.v[(k + 1) % 3]);
                if let Some(pos) = horizon[..nh].iter().position(|&e| e == (q, p)) {
                    horizon[pos] = horizon[nh - 1];
                    nh -= 1;
                } else if nh < horizon.len() {
                    horizon[nh] = (p, q);
                    nh += 1;
                }
            }
            faces[i] = faces[nf - 1];
            nf -= 1;
        }
        if nf + nh > MAX_FACES {
            break;
        }
        for &(p, q) in &horizon[..nh] {
            faces[nf] = make(&verts, p, q, new);
            nf += 1;
        }
        if nf == 0 {
            break;
        }
    }
    // Barycentric coordinates of the origin's projection on the closest face.
    let [i, j, k] = best.v.map(|x| verts[x as usize]);
    let p = best.normal * best.distance;
    let (e0, e1, e2) = (j.w - i.w, k.w - i.w, p - i.w);
    let (d00, d01, d11, d20, d21) = (e0.dot(e0), e0.dot(e1), e1.dot(e1), e2.dot(e0), e2.dot(e1));
    let denom = d00 * d11 - d01 * d01;
    let (mut u, mut v) = if denom.abs() > 0.0 {
        ((d11 * d20 - d01 * d21) / denom, (d00 * d21 - d01 * d20) / denom)
    } else {
        (0.0, 0.0)
    };
    if !(u >= 0.0 && v >= 0.0 && u + v <= 1.0) {
        // Into the triangle; a NaN weight (from a face of overflowed or NaN vertices) becomes 0.
        u = if u > 0.0 { u.min(1.0) } else { 0.0 };
        v = if v > 0.0 { v.min(1.0 - u) } else { 0.0 };
    }
    let point_a = i.a * (1.0 - u - v) + j.a * u + k.a * v;
    let point_b = i.b() * (1.0 - u - v) + j.b() * u + k.b() * v;
    Ok(Penetration { normal: best.normal, depth: best.distance.max(0.0), point_a, point_b })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Cuboid;
    use glam::Vec3;

    /// A GJK simplex of one point (two shapes touching at the origin of the difference) grows
    /// into a tetrahedron of non-zero volume.
    #[test]
    fn blow_up_grows_one_point_into_a_tetrahedron() {
        let (a, b) = (Cuboid::new(Vec3::ONE), Cuboid::new(Vec3::new(0.5, 0.25, 0.75)));
        let mut s = Simplex::default();
        s.v[0] = support_vertex(&a, &b, Vec3A::X);
        s.len = 1;
        assert!(blow_up(&a, &b, &mut s, 1e-6).is_ok());
        assert_eq!(s.len, 4);
        let [p0, p1, p2, p3] = s.v.map(|v| v.w);
        assert!((p1 - p0).cross(p2 - p0).dot(p3 - p0).abs() > 1e-3);
    }
}
