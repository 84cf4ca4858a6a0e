//! The casts of [`DynamicTree`] ([`BroadPhase::cast_box`]): through a static 4-wide BVH over
//! the objects' tight boxes, built by the first cast after an insertion or removal, and refitted
//! (its shape kept, its boxes recomputed bottom-up) by the first cast after objects moved. The
//! dynamic tree's own boxes enclose fattened leaves, which a query pays for in boxes entered for
//! nothing; a game that moves everything and casts every frame pays one refit per frame.

use std::sync::{RwLock, RwLockReadGuard};

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
    /// Per leaf slot of `bvh`: the object's slot in the dynamic tree, its id and its tight box.
    slots: Vec<u32>,
    ids: Vec<u32>,
    boxes: Vec<B>,
}

/// The lazily built [`CastTree`] of a [`DynamicTree`]: dropped by insertions and removals,
/// marked for a refit by moves.
#[derive(Debug)]
pub(super) struct CastCache<B> {
    state: RwLock<CastState<B>>,
}

impl<B> Default for CastCache<B> {
    fn default() -> Self {
        Self { state: RwLock::new(CastState::default()) }
    }
}

#[derive(Clone, Debug)]
struct CastState<B> {
    tree: Option<CastTree<B>>,
    /// Objects moved since the tree was fitted.
    moved: bool,
}

impl<B> Default for CastState<B> {
    fn default() -> Self {
        Self { tree: None, moved: false }
    }
}

impl<B: Clone> Clone for CastCache<B> {
    fn clone(&self) -> Self {
        let state = self.state.read().unwrap_or_else(|e| e.into_inner()).clone();
        Self { state: RwLock::new(state) }
    }
}

impl<B> CastCache<B> {
    /// After an insertion or removal: the tree no longer lists the objects.
    pub fn drop_tree(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        *state = CastState::default();
    }

    /// After a move: the tree's boxes are stale.
    pub fn note_move(&mut self) {
        self.state.get_mut().unwrap_or_else(|e| e.into_inner()).moved = true;
    }
}

impl<B: BroadBounds> DynamicTree<B> {
    /// The cast tree over the current tight boxes (in 3D coordinates; `z = 0` in 2D): built if
    /// absent, refitted if objects moved since. The slots of a tree's objects are those it was
    /// built with (only insertions and removals reorder slots, and they drop the tree).
    fn cast_tree(&self) -> RwLockReadGuard<'_, CastState<B>> {
        let lock = &self.casts.state;
        let read = || lock.read().unwrap_or_else(|e| e.into_inner());
        {
            let state = read();
            if state.tree.is_some() && !state.moved {
                return state;
            }
        }
        {
            let mut state = lock.write().unwrap_or_else(|e| e.into_inner());
            let as_3d = |b: &B| {
                let (lo, hi) = b.corners();
                Aabb3::new(lo.into(), hi.into())
            };
            let moved = state.moved;
            match &mut state.tree {
                None => {
                    let bvh = Bvh3::build(&self.slots.boxes.iter().map(as_3d).collect::<Vec<_>>());
                    let order = bvh.leaf_order();
                    let slots = order.to_vec();
                    let ids = order.iter().map(|&slot| self.slots.ids[slot as usize]).collect();
                    let boxes = order.iter().map(|&slot| self.slots.boxes[slot as usize]).collect();
                    state.tree = Some(CastTree { bvh, slots, ids, boxes });
                }
                Some(tree) if moved => {
                    for (k, &slot) in tree.slots.iter().enumerate() {
                        tree.boxes[k] = self.slots.boxes[slot as usize];
                    }
                    let boxes = &tree.boxes;
                    tree.bvh.refit(|k| as_3d(&boxes[k as usize]));
                }
                Some(_) => {}
            }
            state.moved = false;
        }
        read()
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
        let state = self.cast_tree();
        let Some(tree) = state.tree.as_ref().filter(|t| !t.ids.is_empty()) else { return };
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
