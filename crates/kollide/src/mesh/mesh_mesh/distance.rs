//! The distance between two meshes' surfaces: a best-first descent of node pairs, bounded by the
//! closest pair of triangles found so far.

use super::{BoxMap, MappedLeaf, MeshDistance, ROUNDING};
use crate::bvh::Tree;
use crate::mesh::trimesh::TriMesh;
use crate::primitive::{
    TriangleIntersection, closest_point_triangle, closest_points_segment_segment, intersect_triangle_triangle,
};
use glam::{Affine3A, Vec3};
use std::cell::Cell;

/// A pair of nodes in the distance descent: their boxes mapped into the common frame (center and
/// half extents, Arvo) and the squared distance between them less the rounding allowance, which
/// bounds the squared distance of any two of their triangles from below.
#[derive(Clone, Copy)]
struct FrameBoxes {
    key: f32,
    a: (Vec3, Vec3),
    b: (Vec3, Vec3),
}

/// Closest points of the surfaces of A (placed by `fa`) and B (placed by `fb`), measured in the
/// common frame both maps lead to (see the [module documentation](self)); `None` if farther than
/// `max_distance`, for a NaN or negative `max_distance` and for a non-finite map.
///
/// Best-first by node pairs: a pair's key is the squared distance between the frame boxes of its
/// two nodes (each node box mapped by its own map, Arvo), shrunk by a rounding allowance, so it
/// bounds the distance of any two triangles below; pairs whose key exceeds the best distance so
/// far are dropped. Leaves' triangles are mapped into the frame once per leaf visit.
pub(crate) fn distance_in_frame(
    a: &TriMesh,
    fa: &Affine3A,
    b: &TriMesh,
    fb: &Affine3A,
    max_distance: f32,
) -> Option<MeshDistance> {
    if !(max_distance >= 0.0) || !fa.is_finite() || !fb.is_finite() {
        return None;
    }
    let (ma, mb) = (BoxMap::new(fa, Vec3::ZERO), BoxMap::new(fb, Vec3::ZERO));
    let (a_root, b_root) = (a.bounds(), b.bounds());
    let (a_frame, b_frame) = (a_root.transformed(fa), b_root.transformed(fb));
    // Every frame coordinate is below `reach`; rounding of mapped points and boxes stays within
    // a few ulps of it.
    let reach = a_frame.min.abs().max(a_frame.max.abs()).max(b_frame.min.abs().max(b_frame.max.abs()));
    let slack = reach.max_element() * ROUNDING as f32;
    if !slack.is_finite() {
        return None;
    }
    let key = |(ca, ha): (Vec3, Vec3), (cb, hb): (Vec3, Vec3)| {
        let gap = ((ca - cb).abs() - ha - hb - Vec3::splat(slack)).max(Vec3::ZERO);
        gap.length_squared()
    };
    let limit = Cell::new(if max_distance.is_finite() {
        (max_distance * max_distance).min(f32::MAX)
    } else {
        f32::MAX
    });
    let mut best: Option<(f32, Vec3, Vec3, u32, u32)> = None;
    let (root_a, root_b) = (ma.map_box(a_root.min, a_root.max), mb.map_box(b_root.min, b_root.max));
    let root = FrameBoxes { key: key(root_a, root_b), a: root_a, b: root_b };
    let (mut a_leaf, mut b_leaf) = (MappedLeaf::new(), MappedLeaf::new());
    a.bvh().descend_pairs(
        b.bvh(),
        root,
        |p| if p.a.1.element_sum() >= p.b.1.element_sum() { Tree::A } else { Tree::B },
        |p, tree, node, pairs| {
            // A pair whose key passed the limit since it was pushed is dropped.
            if p.key > limit.get() {
                return;
            }
            let mut children = [(0, *p); 4];
            let mut count = 0;
            for lane in (0..4).filter(|&lane| node.child[lane] != 0) {
                let bx = node.child_box(lane);
                let child = match tree {
                    Tree::A => {
                        let a = ma.map_box(bx.min, bx.max);
                        FrameBoxes { key: key(a, p.b), a, ..*p }
                    }
                    Tree::B => {
                        let b = mb.map_box(bx.min, bx.max);
                        FrameBoxes { key: key(p.a, b), b, ..*p }
                    }
                };
                if child.key <= limit.get() {
                    children[count] = (lane, child);
                    count += 1;
                }
            }
            // Nearest pushed last, so visited first.
            children[..count].sort_unstable_by(|x, y| y.1.key.total_cmp(&x.1.key));
            for &(lane, child) in &children[..count] {
                pairs.push(lane, child);
            }
        },
        |a_slots, b_slots, p| {
            if p.key > limit.get() {
                return true;
            }
            let (af, bf) = (a_slots.start, b_slots.start);
            a_leaf.load(a, a_slots, fa);
            b_leaf.load(b, b_slots, fb);
            for i in 0..a_leaf.len {
                for j in 0..b_leaf.len {
                    let gap = (b_leaf.lo[j] - a_leaf.hi[i]).max(a_leaf.lo[i] - b_leaf.hi[j]).max(Vec3::ZERO)
                        - Vec3::splat(slack);
                    if gap.max(Vec3::ZERO).length_squared() > limit.get() {
                        continue;
                    }
                    let (d2, pa, pb) = closest_triangle_triangle(&a_leaf.tris[i], &b_leaf.tris[j]);
                    if d2 <= limit.get() && best.is_none_or(|(bd, ..)| d2 < bd) {
                        limit.set(d2);
                        best = Some((d2, pa, pb, af + i as u32, bf + j as u32));
                        if d2 == 0.0 {
                            return false; // nothing is closer than touching
                        }
                    }
                }
            }
            true
        },
    );
    let (d2, point_a, point_b, ka, kb) = best?;
    Some(MeshDistance {
        distance: d2.sqrt(),
        point_a,
        point_b,
        triangle_a: a.slot_id(ka),
        triangle_b: b.slot_id(kb),
    })
}

/// Squared distance and closest points of two closed triangles: zero and a common point when
/// they meet (exact test), otherwise the best of the nine edge pairs and the six corners against
/// the other triangle, where the closest pair of two disjoint triangles always lies.
pub(crate) fn closest_triangle_triangle(p: &[Vec3; 3], q: &[Vec3; 3]) -> (f32, Vec3, Vec3) {
    let meet = intersect_triangle_triangle(p, q);
    if let Some(TriangleIntersection::Segment { start, .. }) = meet {
        return (0.0, start, start);
    }
    let mut best = (f32::INFINITY, p[0], q[0]);
    let mut keep = |d2: f32, x: Vec3, y: Vec3| {
        if d2 < best.0 {
            best = (d2, x, y);
        }
    };
    for i in 0..3 {
        for j in 0..3 {
            let c = closest_points_segment_segment(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3]);
            keep(c.distance_squared, c.point_a, c.point_b);
        }
    }
    for i in 0..3 {
        let c = closest_point_triangle(p[i], q).point;
        keep((c - p[i]).length_squared(), p[i], c);
        let c = closest_point_triangle(q[i], p).point;
        keep((c - q[i]).length_squared(), c, q[i]);
    }
    if meet.is_some() {
        // Coplanar overlap: the best pair found is (up to rounding) a common point.
        return (0.0, best.1, best.1);
    }
    best
}
