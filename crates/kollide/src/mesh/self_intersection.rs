//! Self-intersections: the pairs of a mesh's triangles that meet other than in the corners they
//! share, found by descending the mesh's BVH against itself.

use super::trimesh::TriMesh;
use crate::bounds::Aabb3;
use crate::bvh::{Node4, Tree};
use crate::primitive::{PlaneOrientation, drop_axis, orient2d, segments_meet_2d, test_triangle_triangle};
use glam::{Vec2, Vec3};

/// True if the triangles with vertex indices `a` and `b` (into `vertices`) meet other than in
/// the vertices they share (by index) and the edge between two shared vertices; exact for the
/// given coordinates.
///
/// Triangles sharing an edge meet beyond it only when they are coplanar and fold onto each other
/// (their third corners on the same side of the edge). Triangles sharing one vertex meet beyond it
/// when they also cross or touch elsewhere. Triangles with the same three vertices, triangles
/// with a repeated index, triangles of zero area (exactly collinear corners: they bound nothing
/// and change no winding number) and triangles with an index out of range are never counted.
pub fn triangles_self_intersect(vertices: &[Vec3], a: [u32; 3], b: [u32; 3]) -> bool {
    let corners = |t: [u32; 3]| -> Option<[Vec3; 3]> {
        let [p, q, r] = t.map(|i| vertices.get(i as usize).copied());
        Some([p?, q?, r?])
    };
    let (Some(pa), Some(pb)) = (corners(a), corners(b)) else { return false };
    if has_repeat(&a) || has_repeat(&b) || zero_area(&pa) || zero_area(&pb) {
        return false;
    }
    // Shared corners as (corner of a, corner of b).
    let mut shared = [(0, 0); 3];
    let mut count = 0;
    for (i, &corner) in a.iter().enumerate() {
        if let Some(j) = b.iter().position(|&v| v == corner) {
            shared[count] = (i, j);
            count += 1;
        }
    }
    match count {
        0 => test_triangle_triangle(&pa, &pb),
        1 => {
            // Two closed convex sets with the common point v meet elsewhere iff they share a
            // segment [v, x]. Follow it from v: it leaves each triangle through the edge opposite
            // v, so its far end, the nearer exit, lies on the opposite edge of one triangle and
            // inside the other. Conversely an opposite edge never holds v (non-zero area).
            let (i, j) = shared[0];
            let (plane_a, plane_b) =
                (PlaneOrientation::new(pa[0], pa[1], pa[2]), PlaneOrientation::new(pb[0], pb[1], pb[2]));
            let far = |t: &[Vec3; 3], k: usize| (t[(k + 1) % 3], t[(k + 2) % 3]);
            let ((b1, b2), (a1, a2)) = (far(&pb, j), far(&pa, i));
            // One triangle's far corners strictly on one side of the other's plane: it meets that
            // plane in v alone (the common case around a vertex of a surface).
            let apart = |plane: &PlaneOrientation, p: Vec3, q: Vec3| {
                let s = plane.side(p);
                s != 0 && s == plane.side(q)
            };
            if apart(&plane_b, a1, a2) || apart(&plane_a, b1, b2) {
                return false;
            }
            segment_meets_triangle(a1, a2, &plane_b, &pb) || segment_meets_triangle(b1, b2, &plane_a, &pa)
        }
        2 => {
            // Non-coplanar triangles meet only on the line of their planes, which cuts each of
            // them in the shared edge alone. Coplanar ones overlap beyond it iff their third
            // corners lie on the same side of it.
            let off = |t: &[Vec3; 3], used: [usize; 2]| t[3 - used[0] - used[1]];
            let (c, d) = (off(&pa, [shared[0].0, shared[1].0]), off(&pb, [shared[0].1, shared[1].1]));
            let (e0, e1) = (pa[shared[0].0], pa[shared[1].0]);
            if PlaneOrientation::new(e0, e1, c).side(d) != 0 {
                return false;
            }
            // In the common plane, on a coordinate plane where the triangle keeps its area.
            (0..3).any(|axis| {
                let side = |p: Vec3| orient2d(drop_axis(e0, axis), drop_axis(e1, axis), drop_axis(p, axis));
                let sc = side(c);
                sc != 0 && sc == side(d)
            })
        }
        _ => false,
    }
}

/// True if the closed segment `p`–`q` meets the closed triangle `t` (of non-zero area, `plane`
/// its orientation); exact. A segment crossing the plane meets the triangle iff its line passes
/// on the same side of the three directed edges (orientations of the tetrahedra `p, q, t_i,
/// t_{i+1}` not of both signs); one lying in the plane goes to the general test.
fn segment_meets_triangle(p: Vec3, q: Vec3, plane: &PlaneOrientation, t: &[Vec3; 3]) -> bool {
    let (sp, sq) = (plane.side(p), plane.side(q));
    if sp == sq && sp != 0 {
        return false;
    }
    if sp == 0 && sq == 0 {
        // In the plane: in 2D on a coordinate plane where the triangle keeps its area, an
        // end inside or a crossing of an edge.
        let Some(axis) = (0..3).find(|&axis| {
            let [a, b, c] = t.map(|x| drop_axis(x, axis));
            orient2d(a, b, c) != 0
        }) else {
            return false;
        };
        let [a, b, c] = t.map(|x| drop_axis(x, axis));
        let (p, q) = (drop_axis(p, axis), drop_axis(q, axis));
        let inside = |x: Vec2| {
            let o = [orient2d(a, b, x), orient2d(b, c, x), orient2d(c, a, x)];
            !(o.contains(&1) && o.contains(&-1))
        };
        return inside(p)
            || inside(q)
            || [(a, b), (b, c), (c, a)].iter().any(|&(u, v)| segments_meet_2d(p, q, u, v));
    }
    let sides = [0, 1, 2].map(|k| PlaneOrientation::new(p, q, t[k]).side(t[(k + 1) % 3]));
    !(sides.contains(&1) && sides.contains(&-1))
}

fn has_repeat(t: &[u32; 3]) -> bool {
    t[0] == t[1] || t[1] == t[2] || t[0] == t[2]
}

fn zero_area(t: &[Vec3; 3]) -> bool {
    PlaneOrientation::new(t[0], t[1], t[2]).is_degenerate()
}

/// Which pair of subtrees a self-descent holds: a node with itself, a child of a node with that
/// node (its lane), or two different subtrees.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sharing {
    Same,
    ChildOf(usize),
    Apart,
}

#[derive(Clone, Copy)]
struct SelfPair {
    a: Aabb3,
    b: Aabb3,
    sharing: Sharing,
}

impl TriMesh {
    /// Calls `found(i, j)` with the leaf slots `i != j` of every pair of triangles that
    /// [`triangles_self_intersect`], each unordered pair once, until it returns `false`; returns
    /// `false` if it was stopped.
    ///
    /// The BVH is descended against itself. A node paired with itself opens into its children
    /// paired with it, and those into the children pairs `(i, j)` with `j >= i` only, so that
    /// two disjoint subtrees meet in one order; at a leaf paired with itself the slots pair
    /// `k < l`.
    pub(crate) fn for_each_self_intersection(&self, mut found: impl FnMut(u32, u32) -> bool) -> bool {
        let bvh = self.bvh();
        let root = SelfPair { a: bvh.bounds(), b: bvh.bounds(), sharing: Sharing::Same };
        // False to stop.
        let mut test = |k: u32, l: u32| {
            let (ck, cl) = (self.slot_corners(k), self.slot_corners(l));
            let (bk, bl) = (super::trimesh::triangle_box_of(ck), super::trimesh::triangle_box_of(cl));
            let ids = |s: u32| self.triangles()[self.slot_id(s) as usize];
            !(bk.overlaps(&bl) && triangles_self_intersect(self.vertices(), ids(k), ids(l))) || found(k, l)
        };
        bvh.descend_pairs(
            bvh,
            root,
            |p| match p.sharing {
                Sharing::Same => Tree::A,
                Sharing::ChildOf(_) => Tree::B,
                Sharing::Apart => {
                    if p.a.size().element_sum() >= p.b.size().element_sum() {
                        Tree::A
                    } else {
                        Tree::B
                    }
                }
            },
            |p, tree, node, pairs| match (p.sharing, tree) {
                // The children of a node are inside its box: no test.
                (Sharing::Same, _) => {
                    for lane in 0..4 {
                        pairs.push(
                            lane,
                            SelfPair { a: node.child_box(lane), sharing: Sharing::ChildOf(lane), ..*p },
                        );
                    }
                }
                (Sharing::ChildOf(i), _) => {
                    let mask = node.overlap_mask(p.a.min, p.a.max) & (0b1111 << i);
                    push_lanes(node, mask, pairs, |lane, bx| SelfPair {
                        b: bx,
                        sharing: if lane == i { Sharing::Same } else { Sharing::Apart },
                        ..*p
                    });
                }
                (Sharing::Apart, Tree::A) => {
                    let mask = node.overlap_mask(p.b.min, p.b.max);
                    push_lanes(node, mask, pairs, |_, bx| SelfPair { a: bx, ..*p });
                }
                (Sharing::Apart, Tree::B) => {
                    let mask = node.overlap_mask(p.a.min, p.a.max);
                    push_lanes(node, mask, pairs, |_, bx| SelfPair { b: bx, ..*p });
                }
            },
            |ra, rb, p| {
                if p.sharing == Sharing::Same {
                    ra.clone().all(|k| (k + 1..ra.end).all(|l| test(k, l)))
                } else {
                    ra.clone().all(|k| rb.clone().all(|l| test(k, l)))
                }
            },
        )
    }
}

/// Pushes the pair of each lane in `mask` (with its child box) made by `make`.
#[inline]
fn push_lanes(
    node: &Node4,
    mut mask: u32,
    pairs: &mut crate::bvh::ChildPairs<'_, SelfPair>,
    make: impl Fn(usize, Aabb3) -> SelfPair,
) {
    while mask != 0 {
        let lane = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        pairs.push(lane, make(lane, node.child_box(lane)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Corner 0 shared by index; the rest placed by the caller.
    fn pair(vertices: &[Vec3], a: [u32; 3], b: [u32; 3]) -> bool {
        let forward = triangles_self_intersect(vertices, a, b);
        assert_eq!(forward, triangles_self_intersect(vertices, b, a), "symmetric");
        forward
    }

    #[test]
    fn shared_edge_counts_only_when_folded() {
        let v = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.3, 0.4, 0.0), Vec3::new(0.3, -0.4, 0.0), Vec3::Z];
        assert!(pair(&v, [0, 1, 2], [1, 0, 3])); // folded onto each other, in one plane
        assert!(!pair(&v, [0, 1, 2], [1, 0, 4])); // flat continuation across the edge
        assert!(!pair(&v, [0, 1, 2], [1, 0, 5])); // a crease
        assert!(!pair(&v, [0, 1, 2], [0, 1, 2]) && !pair(&v, [0, 1, 2], [2, 1, 0]));
    }

    #[test]
    fn shared_vertex_counts_when_they_also_cross() {
        let v = [
            Vec3::ZERO,
            Vec3::new(1.0, -0.5, 0.0),
            Vec3::new(1.0, 0.5, 0.0),
            // A triangle from the origin that pierces the first one.
            Vec3::new(0.5, 0.0, -0.5),
            Vec3::new(0.5, 0.0, 0.5),
            // One that leaves the origin on the other side.
            Vec3::new(-1.0, 0.0, -0.5),
            Vec3::new(-1.0, 0.0, 0.5),
            // One in the same plane, in the first one's cone, and one beside it.
            Vec3::new(0.8, 0.1, 0.0),
            Vec3::new(-0.8, 0.1, 0.0),
        ];
        assert!(pair(&v, [0, 1, 2], [0, 3, 4]));
        assert!(!pair(&v, [0, 1, 2], [0, 5, 6]));
        assert!(pair(&v, [0, 1, 2], [0, 7, 4]));
        assert!(pair(&v, [0, 1, 2], [0, 2, 7]) && !pair(&v, [0, 1, 2], [0, 8, 2]));
        // The same crossing without the shared index is a plain intersection.
        let mut w = v.to_vec();
        w.push(Vec3::ZERO);
        assert!(pair(&w, [0, 1, 2], [9, 3, 4]) && pair(&w, [0, 1, 2], [9, 5, 6]));
    }

    #[test]
    fn degenerate_and_bad_triangles_are_never_counted() {
        let v = [
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            Vec3::new(0.5, 0.5, 0.0),
            Vec3::new(0.2, 0.2, -1.0),
            Vec3::new(0.2, 0.2, 1.0),
        ];
        assert!(pair(&v, [0, 1, 2], [3, 4, 5]));
        assert!(!pair(&v, [0, 1, 2], [4, 4, 5]));
        assert!(!pair(&v, [0, 1, 2], [3, 4, 9]));
        // Collinear corners: a segment through the triangle.
        let w = [
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            Vec3::new(0.2, 0.2, -1.0),
            Vec3::new(0.2, 0.2, 0.0),
            Vec3::new(0.2, 0.2, 1.0),
        ];
        assert!(!pair(&w, [0, 1, 2], [3, 4, 5]));
    }
}
