//! The casts of [`DynamicTree`] ([`BroadPhase::cast_box`]): through a static 4-wide BVH over
//! the objects' tight boxes, built on the first cast after an edit and kept until the next one.
//! The dynamic tree's own boxes enclose fattened leaves, which a query pays for in boxes entered
//! for nothing; a game that casts many rays per frame pays one build per frame instead.

use std::sync::OnceLock;

use glam::{Vec3, Vec3A, Vec4};

use super::DynamicTree;
use crate::bounds::Aabb3;
use crate::broad::{BroadBounds, grown};
use crate::bvh::{Bvh3, RayBoxSetup};
use crate::math::Ray3;

/// The static hierarchy of the casts, over the boxes of the objects at build time.
#[derive(Clone, Debug)]
pub(super) struct CastTree<B> {
    bvh: Bvh3,
    /// Per leaf slot of `bvh`: the object's id and tight box.
    ids: Vec<u32>,
    boxes: Vec<B>,
}

/// The lazily built [`CastTree`] of a [`DynamicTree`]; emptied by every edit.
pub(super) type CastCache<B> = OnceLock<CastTree<B>>;

impl<B: BroadBounds> DynamicTree<B> {
    /// Builds the cast tree over the current tight boxes (in 3D coordinates; `z = 0` in 2D).
    fn cast_tree(&self) -> &CastTree<B> {
        self.casts.get_or_init(|| {
            let as_3d = |b: &B| {
                let (lo, hi) = b.corners();
                Aabb3::new(lo.into(), hi.into())
            };
            let bvh = Bvh3::build(&self.slots.boxes.iter().map(as_3d).collect::<Vec<_>>());
            let order = bvh.leaf_order();
            let ids = order.iter().map(|&slot| self.slots.ids[slot as usize]).collect();
            let boxes = order.iter().map(|&slot| self.slots.boxes[slot as usize]).collect();
            CastTree { bvh, ids, boxes }
        })
    }

    /// [`BroadPhase::cast_box`](crate::broad::BroadPhase::cast_box) with a finite reach: the cast
    /// tree's ordered traversal (nearer children first, each node's four boxes tested at once,
    /// grown by `half` through the ray setup), each leaf's objects by the exact entry into their
    /// grown boxes.
    pub(super) fn cast_box_in_tree(
        &self,
        ray: &B::Ray,
        half: [f32; 3],
        reach: f32,
        visit: &mut dyn FnMut(u32, f32) -> f32,
    ) {
        let tree = self.cast_tree();
        if tree.ids.is_empty() {
            return;
        }
        let (origin, dir) = B::ray_parts(ray);
        let ray3 = Ray3::new(Vec3::from(origin), Vec3::from(dir));
        let setup = RayBoxSetup::new(&ray3, &tree.bvh.bounds()).grown(Vec3A::from(half));
        let inv_dir = dir.map(|d| 1.0 / d);
        tree.bvh.traverse_ordered(
            reach,
            |node, limit| {
                let (keys, mask) = node.ray_entry(&setup, *limit);
                (keys.max(Vec4::ZERO), mask)
            },
            |range, limit| {
                let mut limit_now = limit;
                for k in range {
                    let (id, bounds) = (tree.ids[k as usize], &tree.boxes[k as usize]);
                    if let Some(t) = grown(bounds, half).ray_entry_inv(origin, inv_dir, limit_now) {
                        limit_now = limit_now.min(visit(id, t));
                        if limit_now < 0.0 {
                            // A negative limit ends the traversal: every key is above it.
                            return Some(-1.0);
                        }
                    }
                }
                (limit_now < limit).then_some(limit_now)
            },
        );
    }
}
