//! The 2D shapes made of convex parts: compounds, polylines (chains) and triangle meshes, each
//! with a BVH over its parts' boxes in its own frame.
//!
//! The BVH is the 3D one ([`Bvh3`]) over flat boxes (`z` from 0 to 0): one tree, one traversal,
//! written once; a 2D query box is a flat box too, and boxes that share `z = 0` overlap exactly
//! when their 2D boxes do.

use glam::{Affine2, Vec2};

use crate::bounds::{Aabb2, Aabb3};
use crate::bvh::Bvh3;
use crate::narrow::ChainSegment2;
use crate::shape::{ConvexShape2, Segment2, Triangle2};

/// Why a 2D composite shape could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompositeError2 {
    /// Nothing given (no child, fewer than two distinct points, no triangle).
    Empty,
    /// The part (child, point or triangle) at this index has a non-finite coordinate, an invalid
    /// shape or a singular placement.
    InvalidPart(usize),
    /// The triangle at this index refers to a vertex that does not exist.
    BadIndex(usize),
}

impl std::fmt::Display for CompositeError2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompositeError2::Empty => write!(f, "the shape has no parts"),
            CompositeError2::InvalidPart(i) => write!(f, "part {i} is not finite, invalid or singularly placed"),
            CompositeError2::BadIndex(i) => write!(f, "triangle {i} has a vertex index out of range"),
        }
    }
}

impl std::error::Error for CompositeError2 {}

/// A flat 3D box for a 2D box.
#[inline]
fn flat(b: &Aabb2) -> Aabb3 {
    Aabb3::new(b.min.extend(0.0), b.max.extend(0.0))
}

/// A BVH over 2D boxes and the box of them all.
#[derive(Clone, Debug)]
struct FlatBvh {
    bvh: Bvh3,
    bounds: Aabb2,
}

impl FlatBvh {
    fn new(boxes: &[Aabb2]) -> Self {
        let flat_boxes: Vec<Aabb3> = boxes.iter().map(flat).collect();
        let bounds = boxes.iter().fold(Aabb2::EMPTY, |acc, b| acc.merge(b));
        Self { bvh: Bvh3::build(&flat_boxes), bounds }
    }

    /// Visits the parts whose box overlaps `local` (in the shape's frame), until `visit` returns
    /// `false`; returns `false` if stopped.
    fn visit(&self, local: &Aabb2, mut visit: impl FnMut(u32) -> bool) -> bool {
        if !local.overlaps(&self.bounds) {
            return true;
        }
        let order = self.bvh.leaf_order();
        let (min, max) = (local.min.extend(0.0), local.max.extend(0.0));
        self.bvh.traverse(|node| node.overlap_mask(min, max), |range| range.into_iter().all(|k| visit(order[k as usize])))
    }
}

/// The box, in a shape's frame, of the points the world box `region` holds (the whole plane when
/// the map cannot be inverted into finite numbers).
pub(crate) fn region_in_frame2(region: &Aabb2, to_world: &Affine2) -> Aabb2 {
    let local = region.transformed(&to_world.inverse());
    if local.min.is_nan() || local.max.is_nan() { Aabb2::new(Vec2::NEG_INFINITY, Vec2::INFINITY) } else { local }
}

/// Convex shapes placed in a common frame by local affine maps, with a BVH over their boxes. A
/// compound is a solid: the union of its children (a concave polygon with holes is stored as its
/// convex pieces, see [`Compound2::from_polygon`]).
#[derive(Clone, Debug)]
pub struct Compound2 {
    children: Vec<(ConvexShape2, Affine2)>,
    tree: FlatBvh,
}

impl Compound2 {
    /// A compound of `children`, each a convex shape and its placement in the compound's frame
    /// (finite and invertible).
    pub fn new(children: Vec<(ConvexShape2, Affine2)>) -> Result<Self, CompositeError2> {
        if children.is_empty() {
            return Err(CompositeError2::Empty);
        }
        let mut boxes = Vec::with_capacity(children.len());
        for (i, (shape, to_compound)) in children.iter().enumerate() {
            let det = to_compound.matrix2.determinant();
            if !shape.is_valid() || !to_compound.is_finite() || !(det.abs() > 0.0) {
                return Err(CompositeError2::InvalidPart(i));
            }
            boxes.push(shape.aabb(to_compound));
        }
        Ok(Self { tree: FlatBvh::new(&boxes), children })
    }

    /// The children and their placements in the compound's frame, in the order given.
    pub fn children(&self) -> &[(ConvexShape2, Affine2)] {
        &self.children
    }

    /// The box of every child, in the compound's frame.
    pub fn local_bounds(&self) -> Aabb2 {
        self.tree.bounds
    }

    /// Visits the children whose box overlaps `local` (compound frame) as `visit(index, shape,
    /// child_to_compound)`, until `visit` returns `false`; returns `false` if stopped.
    pub fn visit_children(&self, local: &Aabb2, mut visit: impl FnMut(u32, &ConvexShape2, &Affine2) -> bool) -> bool {
        self.tree.visit(local, |i| {
            let (shape, to_compound) = &self.children[i as usize];
            visit(i, shape, to_compound)
        })
    }
}

/// A chain of segments through `points` (open, or closed back to the first point): a curve, not
/// a solid. Shapes slide along it without catching on its interior vertices (no ghost contacts:
/// each segment knows its neighbours, see [`ChainSegment2`]). A one-sided chain collides only
/// with shapes on the side of its segments' right-hand normals (`(d.y, -d.x)` for a segment along
/// `d`: the outside of a counter-clockwise loop), so shapes pass through it from behind.
#[derive(Clone, Debug)]
pub struct Polyline2 {
    points: Vec<Vec2>,
    closed: bool,
    one_sided: bool,
    tree: FlatBvh,
}

impl Polyline2 {
    /// The chain through `points` (consecutive repeated points are dropped; at least two distinct
    /// points, three for a closed chain).
    pub fn new(points: &[Vec2], closed: bool, one_sided: bool) -> Result<Self, CompositeError2> {
        if let Some(i) = points.iter().position(|p| !p.is_finite()) {
            return Err(CompositeError2::InvalidPart(i));
        }
        let mut kept: Vec<Vec2> = Vec::with_capacity(points.len());
        for &p in points {
            if kept.last() != Some(&p) {
                kept.push(p);
            }
        }
        if closed && kept.len() > 1 && kept.first() == kept.last() {
            kept.pop();
        }
        if kept.len() < 2 || (closed && kept.len() < 3) {
            return Err(CompositeError2::Empty);
        }
        let count = if closed { kept.len() } else { kept.len() - 1 };
        let boxes: Vec<Aabb2> = (0..count)
            .map(|i| {
                let (a, b) = (kept[i], kept[(i + 1) % kept.len()]);
                Aabb2::new(a.min(b), a.max(b))
            })
            .collect();
        Ok(Self { tree: FlatBvh::new(&boxes), points: kept, closed, one_sided })
    }

    /// The points (without a repeated closing point).
    pub fn points(&self) -> &[Vec2] {
        &self.points
    }

    /// Whether the chain closes back to its first point.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Whether shapes collide only on the right-hand side of the segments.
    pub fn is_one_sided(&self) -> bool {
        self.one_sided
    }

    /// The number of segments.
    pub fn segment_count(&self) -> usize {
        if self.closed { self.points.len() } else { self.points.len() - 1 }
    }

    /// Segment `i` with its neighbours' far ends (the ghost vertices).
    pub fn segment(&self, i: usize) -> ChainSegment2 {
        let n = self.points.len();
        let at = |k: usize| self.points[k % n];
        let ghost_before = if self.closed { Some(at(i + n - 1)) } else { i.checked_sub(1).map(|k| self.points[k]) };
        let ghost_after = if self.closed || i + 2 < n { Some(at(i + 2)) } else { None };
        ChainSegment2 { segment: Segment2::new(at(i), at(i + 1)), ghost_before, ghost_after, one_sided: self.one_sided }
    }

    /// The box of the chain, in its frame.
    pub fn local_bounds(&self) -> Aabb2 {
        self.tree.bounds
    }

    /// Visits the segments whose box overlaps `local` (chain frame), until `visit` returns
    /// `false`; returns `false` if stopped.
    pub fn visit_segments(&self, local: &Aabb2, mut visit: impl FnMut(u32, &ChainSegment2) -> bool) -> bool {
        self.tree.visit(local, |i| visit(i, &self.segment(i as usize)))
    }
}

/// A 2D triangle soup: the solid union of its triangles, with a BVH over them.
#[derive(Clone, Debug)]
pub struct TriMesh2 {
    vertices: Vec<Vec2>,
    triangles: Vec<[u32; 3]>,
    tree: FlatBvh,
}

impl TriMesh2 {
    /// The mesh of `triangles` over `vertices` (finite; indices in range; degenerate triangles are
    /// allowed and count as segments).
    pub fn new(vertices: Vec<Vec2>, triangles: Vec<[u32; 3]>) -> Result<Self, CompositeError2> {
        if triangles.is_empty() {
            return Err(CompositeError2::Empty);
        }
        if let Some(i) = vertices.iter().position(|p| !p.is_finite()) {
            return Err(CompositeError2::InvalidPart(i));
        }
        let mut boxes = Vec::with_capacity(triangles.len());
        for (i, t) in triangles.iter().enumerate() {
            if t.iter().any(|&k| k as usize >= vertices.len()) {
                return Err(CompositeError2::BadIndex(i));
            }
            let [a, b, c] = t.map(|k| vertices[k as usize]);
            boxes.push(Aabb2::new(a.min(b).min(c), a.max(b).max(c)));
        }
        Ok(Self { tree: FlatBvh::new(&boxes), vertices, triangles })
    }

    /// The vertices.
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices
    }

    /// The triangles, as vertex indices.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Triangle `i`.
    pub fn triangle(&self, i: usize) -> Triangle2 {
        let [a, b, c] = self.triangles[i].map(|k| self.vertices[k as usize]);
        Triangle2::new(a, b, c)
    }

    /// The box of the mesh, in its frame.
    pub fn local_bounds(&self) -> Aabb2 {
        self.tree.bounds
    }

    /// Visits the triangles whose box overlaps `local` (mesh frame) as convex shapes, until
    /// `visit` returns `false`; returns `false` if stopped.
    pub fn visit_triangles(&self, local: &Aabb2, mut visit: impl FnMut(u32, &ConvexShape2) -> bool) -> bool {
        self.tree.visit(local, |i| visit(i, &ConvexShape2::Triangle(self.triangle(i as usize))))
    }
}
