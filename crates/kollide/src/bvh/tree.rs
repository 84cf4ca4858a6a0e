//! [`Bvh3`]: the nodes and the leaf order, and refitting after primitives move.

use super::{Child, Node4, RayBoxSetup};
use crate::bounds::Aabb3;
use crate::math::Ray3;

/// A bounding volume hierarchy over 3D boxes with four children per node.
///
/// Built by binned SAH, each primitive in exactly one leaf of at most
/// [`MAX_LEAF_SIZE`](super::MAX_LEAF_SIZE) primitives. Primitives are identified by their index
/// in the slice given to [`Bvh3::build`]; [`Bvh3::leaf_order`] lists them in the order leaves
/// refer to, so a caller can store per-primitive data in leaf order and read a leaf as one
/// contiguous run.
#[derive(Clone, Debug)]
pub struct Bvh3 {
    pub(super) nodes: Vec<Node4>,
    pub(super) leaf_order: Vec<u32>,
    /// The root's box, kept by every build and refit: each ray cast needs it for its setup.
    pub(super) bounds: Aabb3,
}

/// The box of the root (node 0), or [`Aabb3::EMPTY`] for no nodes.
pub(super) fn root_bounds(nodes: &[Node4]) -> Aabb3 {
    nodes.first().map_or(Aabb3::EMPTY, Node4::bounds)
}

impl Default for Bvh3 {
    fn default() -> Self {
        Bvh3 { nodes: Vec::new(), leaf_order: Vec::new(), bounds: Aabb3::EMPTY }
    }
}

impl Bvh3 {
    /// True if the hierarchy holds no primitive.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The nodes; node 0 is the root.
    pub fn nodes(&self) -> &[Node4] {
        &self.nodes
    }

    /// Primitive ids (indices into the slice given at build time) in leaf order.
    pub fn leaf_order(&self) -> &[u32] {
        &self.leaf_order
    }

    /// The box around everything, or [`Aabb3::EMPTY`] for an empty hierarchy.
    pub fn bounds(&self) -> Aabb3 {
        self.bounds
    }

    /// The per-ray constants of [`Node4::ray_entry`] for testing `ray` against this tree's boxes.
    pub fn ray_box_setup(&self, ray: &Ray3) -> RayBoxSetup {
        RayBoxSetup::new(ray, &self.bounds())
    }

    /// Heap bytes used by nodes and the leaf order.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node4>() + self.leaf_order.capacity() * size_of::<u32>()
    }

    /// Recomputes every box bottom-up after primitives moved; `leaf_box(k)` is the new box of the
    /// `k`-th primitive in leaf order. The tree shape is kept (quality degrades if primitives move
    /// far; rebuild then).
    pub fn refit(&mut self, mut leaf_box: impl FnMut(u32) -> Aabb3) {
        // Children always have larger indices than their parent, so a reverse sweep sees every
        // child before its parent.
        for i in (0..self.nodes.len()).rev() {
            let mut node = self.nodes[i];
            for lane in 0..4 {
                let b = match Child::decode(node.child[lane]) {
                    Child::Empty => continue,
                    Child::Inner(index) => self.nodes[index as usize].bounds(),
                    Child::Leaf { first, count } => {
                        (first..first + count).fold(Aabb3::EMPTY, |b, k| b.merge(&leaf_box(k)))
                    }
                };
                let child = Child::decode(node.child[lane]);
                node.set_child(lane, child, b.min.into(), b.max.into());
            }
            node.update_order();
            self.nodes[i] = node;
        }
        self.bounds = root_bounds(&self.nodes);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::math::Ray3;
    use glam::Vec3;
    use kollide_testkit::random;

    pub(in crate::bvh) fn random_boxes(n: usize, seed: u64) -> Vec<Aabb3> {
        let mut rng = random::rng(seed);
        (0..n)
            .map(|_| {
                let c = random::point3(&mut rng, 10.0);
                let h = random::point3(&mut rng, 0.5).abs();
                Aabb3::new(c - h, c + h)
            })
            .collect()
    }

    pub(in crate::bvh) fn check_structure(bvh: &Bvh3, boxes: &[Aabb3]) {
        let mut seen = vec![0u32; boxes.len()];
        for node in bvh.nodes() {
            for lane in 0..4 {
                match Child::decode(node.child[lane]) {
                    Child::Empty => {}
                    Child::Inner(i) => {
                        assert!(node.child_box(lane).contains(&bvh.nodes()[i as usize].bounds()))
                    }
                    Child::Leaf { first, count } => {
                        for k in first..first + count {
                            let id = bvh.leaf_order()[k as usize] as usize;
                            seen[id] += 1;
                            assert!(node.child_box(lane).contains(&boxes[id]));
                        }
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "every primitive in exactly one leaf");
        for node in bvh.nodes() {
            check_order(node);
        }
    }

    /// Every octant's order lists each lane once, the children by their centers' projection onto
    /// the octant's diagonal, empty slots last.
    fn check_order(node: &Node4) {
        for (octant, &order) in node.order.iter().enumerate() {
            let lanes: Vec<usize> = (0..4).map(|rank| usize::from(order >> (2 * rank)) & 3).collect();
            let mut sorted = lanes.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3], "octant {octant}: {lanes:?}");
            let diagonal = Vec3::select(
                glam::BVec3::new(octant & 1 != 0, octant & 2 != 0, octant & 4 != 0),
                -Vec3::ONE,
                Vec3::ONE,
            );
            let key = |lane: usize| match node.child[lane] {
                0 => f32::INFINITY,
                _ => node.child_box(lane).center().dot(diagonal),
            };
            for pair in lanes.windows(2) {
                assert!(key(pair[0]) <= key(pair[1]), "octant {octant}: lanes {lanes:?} out of order");
            }
        }
    }

    #[test]
    fn refit_follows_moved_primitives() {
        let mut boxes = random_boxes(500, 8);
        let mut bvh = Bvh3::build(&boxes);
        for b in &mut boxes {
            *b = Aabb3::new(b.min * 1.5 + Vec3::X, b.max * 1.5 + Vec3::X);
        }
        let order = bvh.leaf_order().to_vec();
        bvh.refit(|k| boxes[order[k as usize] as usize]);
        check_structure(&bvh, &boxes);
    }

    #[test]
    fn memory_counts_the_nodes_and_the_leaf_order() {
        let bvh = Bvh3::build(&random_boxes(500, 8));
        let used = size_of_val(bvh.nodes()) + size_of_val(bvh.leaf_order());
        assert!(used > 0 && bvh.memory_bytes() >= used && bvh.memory_bytes() <= 2 * used);
    }

    #[test]
    fn invalid_boxes_are_left_out() {
        let boxes = [
            Aabb3::new(Vec3::ZERO, Vec3::ONE),
            Aabb3::new(Vec3::NAN, Vec3::ONE),
            Aabb3::EMPTY,
            Aabb3::new(Vec3::ZERO, Vec3::new(f32::INFINITY, 1.0, 1.0)),
        ];
        let bvh = Bvh3::build(&boxes);
        assert_eq!(bvh.leaf_order(), &[0]);
        assert_eq!(bvh.bounds(), boxes[0]);
        assert!(Bvh3::build(&[]).is_empty());
        assert_eq!(Bvh3::build(&[]).cast_ray(&Ray3::new(Vec3::ZERO, Vec3::X), 1.0, |_, _| Some(0.0)), None);
    }
}
