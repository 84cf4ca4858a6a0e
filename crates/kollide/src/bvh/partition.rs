//! Applying a split: the records of a range partitioned in place by their centers.

use super::binned::{Record, Span};

/// Ranges of more records than this (1 MiB of 32-byte records, about a core's L2 cache) are
/// partitioned by [`hoare_partition`], smaller ones by [`lomuto_partition`].
const CACHED: usize = 1 << 15;

/// Moves the records whose doubled center on `axis` is at most `threshold` to the front and
/// returns how many went left, with the spans of both sides: their boxes if `BOXES`, else empty
/// spans (the caller knows the boxes from the bins).
///
/// Cached ranges take Lomuto's branch-free scheme, whose cost does not depend on how predictable
/// the sides are; larger ones Hoare's (also without branches on the sides), which reads each
/// record once and writes only those it moves, since there memory traffic is what costs.
pub(super) fn partition<const BOXES: bool>(
    range: &mut [Record],
    axis: usize,
    threshold: f32,
) -> (usize, Span, Span) {
    if range.len() > CACHED {
        hoare_partition::<BOXES>(range, axis, threshold)
    } else {
        lomuto_partition::<BOXES>(range, axis, threshold)
    }
}

/// [`partition`] by Lomuto's scheme without branches: each record is swapped with the first one
/// that went right, and the left count grows by its side. The boxes, if asked for, are then
/// gathered by one sequential pass over each side.
fn lomuto_partition<const BOXES: bool>(
    range: &mut [Record],
    axis: usize,
    threshold: f32,
) -> (usize, Span, Span) {
    // One loop per axis, so that reading the center's coordinate is a fixed lane.
    let mid = match axis {
        0 => lomuto_swaps::<0>(range, threshold),
        1 => lomuto_swaps::<1>(range, threshold),
        _ => lomuto_swaps::<2>(range, threshold),
    };
    let mut left = Span::empty();
    let mut right = Span::empty();
    if BOXES {
        range[..mid].iter().for_each(|p| left.grow(p));
        range[mid..].iter().for_each(|p| right.grow(p));
    }
    (mid, left, right)
}

/// The swaps of [`lomuto_partition`] on axis `AXIS`; returns how many records went left.
fn lomuto_swaps<const AXIS: usize>(range: &mut [Record], threshold: f32) -> usize {
    let mut mid = 0;
    for i in 0..range.len() {
        // Both records in registers, so the swap does not go through a temporary in memory.
        let (p, q) = (range[i], range[mid]);
        let goes_left = p.center2()[AXIS] <= threshold;
        range[i] = q;
        range[mid] = p;
        mid += usize::from(goes_left);
    }
    mid
}

/// [`partition`] by Hoare's scheme: the first record from the left that goes right is swapped
/// with the first from the right that goes left, and so on.
///
/// The records are classified a block at each end at a time, without branches, as in
/// BlockQuicksort (Edelkamp and Weiß, "BlockQuicksort: How Branch Mispredictions don't affect
/// Quicksort", 2016): the offsets of the records on the wrong side are listed, then swapped in
/// pairs; a block whose records are all in place is done, and its bounds are gathered while it is
/// in cache. The pairs are the same as one record at a time, which finishes the last blocks.
fn hoare_partition<const BOXES: bool>(
    range: &mut [Record],
    axis: usize,
    threshold: f32,
) -> (usize, Span, Span) {
    const BLOCK: usize = 128;
    let goes_left = |p: &Record| p.center2()[axis] <= threshold;
    let grow = |span: &mut Span, p: &Record| {
        if BOXES {
            span.grow(p);
        }
    };
    let mut left = Span::empty();
    let mut right = Span::empty();
    let (mut i, mut j) = (0, range.len());
    // The offsets of the records that go right in `range[i..i + BLOCK]` (from `i`) and of those
    // that go left in `range[j - BLOCK..j]` (from `j - 1`); those at `*_done..*_count` are still
    // to be swapped.
    let mut wrong_left = [0u8; BLOCK];
    let mut wrong_right = [0u8; BLOCK];
    let (mut left_done, mut left_count, mut right_done, mut right_count) = (0, 0, 0, 0);
    while j - i >= 2 * BLOCK {
        if left_done == left_count {
            (left_done, left_count) = (0, 0);
            for (k, p) in range[i..i + BLOCK].iter().enumerate() {
                wrong_left[left_count] = k as u8;
                left_count += usize::from(!goes_left(p));
            }
        }
        if right_done == right_count {
            (right_done, right_count) = (0, 0);
            for (k, p) in range[j - BLOCK..j].iter().rev().enumerate() {
                wrong_right[right_count] = k as u8;
                right_count += usize::from(goes_left(p));
            }
        }
        let pairs = (left_count - left_done).min(right_count - right_done);
        for (&a, &b) in wrong_left[left_done..left_done + pairs].iter().zip(&wrong_right[right_done..]) {
            range.swap(i + a as usize, j - 1 - b as usize);
        }
        (left_done, right_done) = (left_done + pairs, right_done + pairs);
        if left_done == left_count {
            for p in &range[i..i + BLOCK] {
                grow(&mut left, p);
            }
            i += BLOCK;
        }
        if right_done == right_count {
            for p in &range[j - BLOCK..j] {
                grow(&mut right, p);
            }
            j -= BLOCK;
        }
    }
    loop {
        while i < j {
            let p = &range[i];
            if !goes_left(p) {
                break;
            }
            grow(&mut left, p);
            i += 1;
        }
        while i < j {
            let p = &range[j - 1];
            if goes_left(p) {
                break;
            }
            grow(&mut right, p);
            j -= 1;
        }
        if i == j {
            break;
        }
        // range[i] goes right and range[j - 1] goes left (so i < j - 1): swap them.
        range.swap(i, j - 1);
        grow(&mut left, &range[i]);
        grow(&mut right, &range[j - 1]);
        i += 1;
        j -= 1;
    }
    (i, left, right)
}

/// Splits at the median center along the axis of largest extent (used past
/// [`SAH_DEPTH`](super::SAH_DEPTH) and when all centers coincide).
pub(super) fn median_split(prims: &mut [Record], span: &Span) -> (Span, Span) {
    let extent = span.max - span.min;
    let axis = (0..3).fold(0, |best, a| if extent[a] > extent[best] { a } else { best });
    let (start, end) = (span.start as usize, span.end as usize);
    let mid = (end - start) / 2;
    prims[start..end].select_nth_unstable_by(mid, |a, b| a.center2()[axis].total_cmp(&b.center2()[axis]));
    let mid = start + mid;
    (Span::over(prims, start, mid, span.depth + 1), Span::over(prims, mid, end, span.depth + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::binned::pack_all;
    use glam::Vec3A;

    #[test]
    fn both_partition_schemes_split_by_the_threshold_with_tight_bounds() {
        let mut rng = kollide_testkit::random::rng(13);
        for n in [0, 1, 2, 7, 100, 1000] {
            let boxes: Vec<(u32, Vec3A, Vec3A)> = (0..n as u32)
                .map(|i| {
                    // Small-integer centers, so that many tie with the threshold.
                    let c = Vec3A::from(kollide_testkit::random::point3(&mut rng, 5.0)).round();
                    let h = Vec3A::from(kollide_testkit::random::point3(&mut rng, 1.0)).abs();
                    (i, c - h, c + h)
                })
                .collect();
            for (axis, threshold) in [(0, 0.0), (1, -3.0), (2, 20.0), (0, -20.0)] {
                for hoare in [false, true] {
                    let (mut prims, _) = pack_all(boxes.iter().copied());
                    let (mid, left, right) = if hoare {
                        hoare_partition::<true>(&mut prims, axis, threshold)
                    } else {
                        lomuto_partition::<true>(&mut prims, axis, threshold)
                    };
                    let goes_left = |p: &Record| p.center2()[axis] <= threshold;
                    assert!(prims[..mid].iter().all(goes_left) && !prims[mid..].iter().any(goes_left));
                    let mut ids: Vec<u32> = prims.iter().map(Record::id).collect();
                    ids.sort_unstable();
                    assert!(ids.iter().copied().eq(0..n as u32), "every record kept once");
                    for (side, span) in [(&prims[..mid], left), (&prims[mid..], right)] {
                        let expected = Span::over(side, 0, side.len(), 0);
                        assert_eq!((span.min, span.max), (expected.min, expected.max));
                    }
                }
            }
        }
    }
}
