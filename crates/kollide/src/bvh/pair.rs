//! The simultaneous descent of two trees: pairs of nodes, one of each tree, opened until pairs of
//! leaves remain, with a fixed-size stack.

use super::node::{INDEX_MASK, leaf_range};
use super::stack::{PAIR_STACK_SIZE, TraversalStack};
use super::{Bvh3, Node4};
use std::ops::Range;

/// One of the two trees of a pair descent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tree {
    A,
    B,
}

/// A pair of subtrees waiting in a pair descent: a child code of each tree (the roots, which are
/// nobody's children, are coded 0) and what the caller keeps with the pair.
#[derive(Clone, Copy)]
struct NodePair<T> {
    a: u32,
    b: u32,
    data: T,
}

/// The pairs a descent opens from one node of a pair: the node's child in a lane, with the
/// pair's node of the other tree.
pub(crate) struct ChildPairs<'s, T> {
    stack: &'s mut TraversalStack<NodePair<T>, PAIR_STACK_SIZE>,
    node: &'s Node4,
    tree: Tree,
    other: u32,
}

impl<T: Copy> ChildPairs<'_, T> {
    /// Queues the pair of the opened node's child `lane` (`0..4`) and the other node, with the
    /// caller's `data` for it. Each lane may be pushed once; an empty lane is ignored. The pair
    /// pushed last is visited first.
    #[inline(always)]
    pub(crate) fn push(&mut self, lane: usize, data: T) {
        let child = self.node.child[lane & 3];
        if child == 0 {
            return;
        }
        let (a, b) = match self.tree {
            Tree::A => (child, self.other),
            Tree::B => (self.other, child),
        };
        self.stack.push(NodePair { a, b, data });
    }
}

impl Bvh3 {
    /// Descends this tree (A) and `other` (B) together, depth first from the pair of roots (whose
    /// data is `root`), and returns `false` if `leaves` stopped it.
    ///
    /// A pair of two leaves goes to `leaves(range of A, range of B, data)` (leaf-order ranges),
    /// which returns `false` to stop. Any other pair is split by opening one of its nodes: a leaf
    /// is never opened, and between two inner nodes `larger(data)` chooses (usually the one with
    /// the larger box, so that the boxes of a pair stay of similar size). `children(data, tree,
    /// node, pairs)` then tests the opened node's children against the pair's other node and
    /// pushes the child pairs worth visiting, each with its data.
    ///
    /// The caller tests the roots before calling; an empty tree visits nothing.
    #[inline]
    pub(crate) fn descend_pairs<T: Copy>(
        &self,
        other: &Bvh3,
        root: T,
        mut larger: impl FnMut(&T) -> Tree,
        mut children: impl FnMut(&T, Tree, &Node4, &mut ChildPairs<'_, T>),
        mut leaves: impl FnMut(Range<u32>, Range<u32>, &T) -> bool,
    ) -> bool {
        if self.nodes.is_empty() || other.nodes.is_empty() {
            return true;
        }
        let mut stack = TraversalStack::<NodePair<T>, PAIR_STACK_SIZE>::new();
        stack.push(NodePair { a: 0, b: 0, data: root });
        while let Some(pair) = stack.pop() {
            let (a_leaf, b_leaf) = (leaf_range(pair.a), leaf_range(pair.b));
            let tree = match (a_leaf, b_leaf) {
                (Some(a), Some(b)) => {
                    if !leaves(a, b, &pair.data) {
                        return false;
                    }
                    continue;
                }
                (None, Some(_)) => Tree::A,
                (Some(_), None) => Tree::B,
                (None, None) => larger(&pair.data),
            };
            // An inner code is its node's index, and the roots' code 0 is node 0.
            let (node, other_code) = match tree {
                Tree::A => (&self.nodes[(pair.a & INDEX_MASK) as usize], pair.b),
                Tree::B => (&other.nodes[(pair.b & INDEX_MASK) as usize], pair.a),
            };
            let mut pairs = ChildPairs { stack: &mut stack, node, tree, other: other_code };
            children(&pair.data, tree, node, &mut pairs);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::tree::tests::random_boxes;
    use super::*;
    use crate::bounds::Aabb3;
    use glam::Vec3;

    /// The pairs of leaves the descent reaches (opening the node with the larger box, keeping
    /// the children whose box overlaps the other node's) hold every overlapping pair of boxes.
    #[test]
    fn pair_descent_finds_every_overlapping_pair() {
        for (n, m) in [(1, 1), (1, 50), (300, 7), (2000, 1500)] {
            let (xs, ys) = (random_boxes(n, n as u64), random_boxes(m, 1000 + m as u64));
            let (a, b) = (Bvh3::build(&xs), Bvh3::build(&ys));
            let mut found = Vec::new();
            let finished = a.descend_pairs(
                &b,
                (a.bounds(), b.bounds()),
                |(x, y)| if x.size().element_sum() >= y.size().element_sum() { Tree::A } else { Tree::B },
                |&(x, y), tree, node, pairs| {
                    let other = if tree == Tree::A { y } else { x };
                    for lane in 0..4 {
                        let child = node.child_box(lane);
                        if child.overlaps(&other) {
                            pairs.push(lane, if tree == Tree::A { (child, y) } else { (x, child) });
                        }
                    }
                },
                |ra, rb, _| {
                    for i in ra {
                        for j in rb.clone() {
                            let (p, q) = (a.leaf_order()[i as usize], b.leaf_order()[j as usize]);
                            if xs[p as usize].overlaps(&ys[q as usize]) {
                                found.push((p, q));
                            }
                        }
                    }
                    true
                },
            );
            assert!(finished);
            found.sort_unstable();
            let expected: Vec<(u32, u32)> = (0..n as u32)
                .flat_map(|p| (0..m as u32).map(move |q| (p, q)))
                .filter(|&(p, q)| xs[p as usize].overlaps(&ys[q as usize]))
                .collect();
            assert_eq!(found, expected, "{n} by {m} boxes");
            // Stopped at the first pair of leaves.
            let mut visits = 0;
            let finished = a.descend_pairs(
                &b,
                (),
                |_| Tree::A,
                |_, _, _, pairs| (0..4).for_each(|lane| pairs.push(lane, ())),
                |_, _, _| {
                    visits += 1;
                    false
                },
            );
            assert!(!finished && visits == 1);
        }
        let (empty, one) = (Bvh3::build(&[]), Bvh3::build(&[Aabb3::new(Vec3::ZERO, Vec3::ONE)]));
        assert!(empty.descend_pairs(&one, (), |_| Tree::A, |_, _, _, _| {}, |_, _, _| false));
    }
}
