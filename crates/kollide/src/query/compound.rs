//! Compounds: many shapes with local placements under one BVH (a convex decomposition, a level
//! made of pieces).

use glam::Affine3A;

use super::pair::{PlacedShape, bounds_of, region_in_frame};
use super::{Kind, Shape};
use crate::bounds::Aabb3;
use crate::bvh::Bvh3;

/// Shapes placed in a common frame by local affine maps, with a BVH over their boxes in that
/// frame. A compound is a solid: the union of its children.
///
/// Children may be of any kind but a compound (no nesting) or an unbounded field.
#[derive(Clone, Debug)]
pub struct Compound {
    children: Vec<(Shape, Affine3A)>,
    bvh: Bvh3,
    bounds: Aabb3,
}

/// Why a compound could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompoundError {
    /// No child given.
    Empty,
    /// The child at this index is a compound (compounds do not nest).
    Nested(usize),
    /// The child at this index has a non-finite or singular placement, is an invalid convex shape
    /// or an unbounded field.
    InvalidChild(usize),
}

impl std::fmt::Display for CompoundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompoundError::Empty => write!(f, "a compound needs at least one child"),
            CompoundError::Nested(i) => write!(f, "child {i} is a compound; compounds do not nest"),
            CompoundError::InvalidChild(i) => {
                write!(f, "child {i} has a bad placement or shape, or is an unbounded field")
            }
        }
    }
}

impl std::error::Error for CompoundError {}

impl Compound {
    /// A compound of `children`, each a shape and its placement in the compound's frame.
    pub fn new(children: Vec<(Shape, Affine3A)>) -> Result<Self, CompoundError> {
        if children.is_empty() {
            return Err(CompoundError::Empty);
        }
        let mut boxes = Vec::with_capacity(children.len());
        for (i, (shape, to_compound)) in children.iter().enumerate() {
            if shape.kind() == Kind::Compound {
                return Err(CompoundError::Nested(i));
            }
            let bounds =
                super::single::bounds(shape, to_compound).map_err(|_| CompoundError::InvalidChild(i))?;
            if !bounds.is_valid() {
                return Err(CompoundError::InvalidChild(i));
            }
            boxes.push(bounds);
        }
        let bounds = boxes.iter().fold(Aabb3::EMPTY, |acc, b| acc.merge(b));
        Ok(Self { bvh: Bvh3::build(&boxes), children, bounds })
    }

    /// The children and their placements in the compound's frame, in the order given.
    pub fn children(&self) -> &[(Shape, Affine3A)] {
        &self.children
    }

    /// The box of every child, in the compound's frame.
    pub fn local_bounds(&self) -> Aabb3 {
        self.bounds
    }

    /// Visits the children whose world box may overlap the world box `region` (every child
    /// when `None`), as `visit(index, shape, child_to_world)`, until `visit` returns `false`.
    pub(crate) fn visit_children(
        &self,
        to_world: &Affine3A,
        region: Option<&Aabb3>,
        mut visit: impl FnMut(u32, &Shape, &Affine3A) -> bool,
    ) {
        let mut child = |i: u32| {
            let (shape, to_compound) = &self.children[i as usize];
            let child_to_world = *to_world * *to_compound;
            if let Some(r) = region
                && bounds_of(&PlacedShape { shape, to_world: &child_to_world })
                    .is_some_and(|b| !b.overlaps(r))
            {
                return true;
            }
            visit(i, shape, &child_to_world)
        };
        let Some(region) = region else {
            for i in 0..self.children.len() as u32 {
                if !child(i) {
                    return;
                }
            }
            return;
        };
        // The region in the compound's frame: the box of its image under the inverse map
        // contains every point that can reach it.
        let local = region_in_frame(region, to_world);
        if local.is_empty() || !local.overlaps(&self.bounds) {
            return;
        }
        let order = self.bvh.leaf_order();
        self.bvh.traverse(
            |node| node.overlap_mask(local.min, local.max),
            |range| range.into_iter().all(|k| child(order[k as usize])),
        );
    }
}
