//! The fixed-capacity stack of every traversal: no recursion, no allocation.

use super::MAX_DEPTH;
use std::mem::MaybeUninit;

/// Capacity for the traversal of one tree: a tree is at most [`MAX_DEPTH`] deep and each level
/// pushes at most three siblings besides the child it descends into, plus the slots that
/// [`TraversalStack::push_first`] (three) and [`TraversalStack::push_ordered_but_nearest`]
/// (four) may write past the top.
pub(super) const STACK_SIZE: usize = 3 * MAX_DEPTH + 4;

/// Capacity for the descent of two trees together: each step pops one pair and pushes at most
/// four, and a path opens at most [`MAX_DEPTH`] nodes of each tree, so at most `2 · MAX_DEPTH`
/// steps each leave three more pairs than they took.
pub(super) const PAIR_STACK_SIZE: usize = 6 * MAX_DEPTH + 4;

/// A stack of `N` slots on the call stack: node indices, children packed as
/// `key bits << 32 | code`, or pairs of nodes.
///
/// It is not zeroed: only slots below `len` are ever read, and each of them was written by a
/// push first. The capacities above always suffice for the traversals they are named for; every
/// push checks the bound anyway, and a violation is an internal bug that stops the program rather
/// than corrupting memory.
pub(super) struct TraversalStack<T, const N: usize> {
    items: [MaybeUninit<T>; N],
    len: usize,
}

impl<T: Copy, const N: usize> TraversalStack<T, N> {
    #[inline(always)]
    pub(super) fn new() -> Self {
        Self { items: [const { MaybeUninit::uninit() }; N], len: 0 }
    }

    #[inline(always)]
    pub(super) fn push(&mut self, item: T) {
        self.items[self.len].write(item);
        self.len += 1;
    }

    /// Pushes `items[..count]` (`count <= 3`) without a branch on `count`: all three are written
    /// and the length grows by `count`, so the slots past it are overwritten later unread.
    #[inline(always)]
    pub(super) fn push_first(&mut self, items: [T; 3], count: usize) {
        for (slot, item) in self.items[self.len..self.len + 3].iter_mut().zip(items) {
            slot.write(item);
        }
        self.len += count.min(3);
    }

    /// Pushes the codes of the lanes in `mask` but the nearest, far to near in `order` (a
    /// [`Node4::order`](super::Node4::order) entry, nearest lane in the low bits), and returns the
    /// nearest (`None` for an empty mask). Without a branch: all four codes are written, the
    /// length grows by one for each lane in `mask` after the first, and a conditional move keeps
    /// the last one in `mask`. Returned in a register, the nearest code is at hand one
    /// store-to-load forwarding sooner than from the stack.
    #[inline(always)]
    pub(super) fn push_ordered_but_nearest(&mut self, codes: &[T; 4], order: u8, mask: u32) -> Option<T> {
        let slots = &mut self.items[self.len..self.len + 4];
        let mut count = 0;
        let mut nearest = codes[0];
        for shift in [6, 4, 2, 0] {
            let lane = usize::from(order >> shift) & 3;
            let hit = (mask >> lane) as usize & 1;
            slots[count & 3].write(codes[lane]);
            nearest = if hit != 0 { codes[lane] } else { nearest };
            count += hit;
        }
        self.len += count.saturating_sub(1);
        (count != 0).then_some(nearest)
    }

    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: every slot below the old `len` was written by a push and not moved out since
        // (`T` is `Copy`).
        Some(unsafe { self.items[self.len].assume_init() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// For every order and mask, the nearest lane in the mask comes back and the others come off
    /// the stack near to far, above what was on it before.
    #[test]
    fn push_but_nearest_returns_the_nearest_and_stacks_the_rest() {
        let codes = [10u32, 11, 12, 13];
        for permutation in 0..24usize {
            // The `permutation`-th ordering of the lanes, nearest first.
            let mut lanes: Vec<u8> = vec![0, 1, 2, 3];
            let mut rest = permutation;
            let near_to_far: Vec<u8> = (1..=4)
                .rev()
                .map(|n| {
                    let lane = lanes.remove(rest % n);
                    rest /= n;
                    lane
                })
                .collect();
            let order = near_to_far.iter().enumerate().fold(0u8, |o, (rank, &lane)| o | lane << (2 * rank));
            for mask in 0..16u32 {
                let mut stack = TraversalStack::<u32, STACK_SIZE>::new();
                stack.push(99);
                let nearest = stack.push_ordered_but_nearest(&codes, order, mask);
                let mut expected =
                    near_to_far.iter().filter(|&&lane| mask >> lane & 1 != 0).map(|&l| codes[l as usize]);
                assert_eq!(nearest, expected.next(), "order {near_to_far:?} mask {mask:#b}");
                let popped: Vec<u32> = std::iter::from_fn(|| stack.pop()).collect();
                let mut want: Vec<u32> = expected.collect();
                want.push(99);
                assert_eq!(popped, want, "order {near_to_far:?} mask {mask:#b}");
            }
        }
    }

    /// `push_first` keeps the first `count` items, in order, whatever it wrote past them.
    #[test]
    fn push_first_keeps_count_items() {
        for count in 0..=3 {
            let mut stack = TraversalStack::<u32, STACK_SIZE>::new();
            stack.push_first([1, 2, 3], count);
            stack.push(7);
            let popped: Vec<u32> = std::iter::from_fn(|| stack.pop()).collect();
            let mut want: Vec<u32> = [1, 2, 3][..count].to_vec();
            want.push(7);
            want.reverse();
            assert_eq!(popped, want);
        }
    }
}
