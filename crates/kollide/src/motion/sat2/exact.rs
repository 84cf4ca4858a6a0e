//! The exact decision of the separating-axis motion resolution, for the cases within the `f32`
//! error bound of contact: orientation tests on the exact geometry (the translated vertices are
//! never rounded: every orientation is a sum of exact products of the given `f32` numbers, whose
//! sign is found by an `f64` filter and, when that cannot tell, by exact expansion arithmetic).

use std::cmp::Ordering;

use crate::math::Vec2;

/// Exact: whether the moving polygon, translated by every point of the segment `from → to`, stays
/// apart from the stationary polygon (some line has the swept polygon on one closed side and the
/// stationary one on the other). The lines to try are those through either polygon's edges and,
/// when sweeping, the lines parallel to the motion through the moving polygon's vertices (the
/// Minkowski difference's edges and the segment's direction).
pub(super) fn apart_exact(moving: &[Vec2], stationary: &[Vec2], from: Vec2, to: Vec2) -> bool {
    let swept = from != to;
    let (ends, back): (&[Vec2], &[Vec2]) =
        if swept { (&[from, to], &[-from, -to]) } else { (&[from], &[-from]) };
    // Lines through the stationary polygon's edges, against the moving polygon at both ends;
    // lines through the moving polygon's edges at both ends, that is against the stationary
    // polygon moved back.
    let (separated, stationary_edge) = edge_line_separates(stationary, moving, ends);
    if separated {
        return true;
    }
    let (separated, moving_edge) = edge_line_separates(moving, stationary, back);
    if separated {
        return true;
    }
    if !swept {
        // No edge at all: two points, which a line through both has on either side.
        return !(stationary_edge || moving_edge);
    }
    // Lines parallel to the motion: every stationary vertex on one closed side of every line
    // through a moving vertex, the same side for all. The line through `m + from` and `m + to`
    // has `s` on the side of `(to - from) × (s - m - from)`.
    let mut sides = Sides::default();
    for &m in moving {
        for &s in stationary {
            sides.add(cross_sign(
                [to.x, -from.x],
                [to.y, -from.y],
                [s.x, -m.x, -from.x],
                [s.y, -m.y, -from.y],
            ));
        }
        if sides.left && sides.right {
            return false;
        }
    }
    true
}

/// Whether a line through an edge of `own` has `own` on one closed side and the points of
/// `other`, moved by each of `shifts`, on the other; and whether `own` has an edge at all.
fn edge_line_separates(own: &[Vec2], other: &[Vec2], shifts: &[Vec2]) -> (bool, bool) {
    let mut any_edge = false;
    let mut prev = own[own.len() - 1];
    for &b in own {
        let a = std::mem::replace(&mut prev, b);
        if a == b {
            continue;
        }
        any_edge = true;
        // The side of `p` is that of `(b - a) × (p - a)`.
        let (ux, uy) = ([b.x, -a.x], [b.y, -a.y]);
        let mut own_sides = Sides::default();
        own.iter().for_each(|p| own_sides.add(cross_sign(ux, uy, [p.x, -a.x, 0.0], [p.y, -a.y, 0.0])));
        let mut other_sides = Sides::default();
        for &t in shifts {
            other
                .iter()
                .for_each(|p| other_sides.add(cross_sign(ux, uy, [p.x, t.x, -a.x], [p.y, t.y, -a.y])));
        }
        if own_sides.separates(other_sides) {
            return (true, true);
        }
    }
    (false, any_edge)
}

/// Which sides of a line some points lie strictly on.
#[derive(Clone, Copy, Default)]
struct Sides {
    left: bool,
    right: bool,
}

impl Sides {
    fn add(&mut self, side: Ordering) {
        self.left |= side == Ordering::Greater;
        self.right |= side == Ordering::Less;
    }

    /// Whether the line has `self` on one closed side and `other` on the other.
    fn separates(self, other: Sides) -> bool {
        (!self.right && !other.left) || (!self.left && !other.right)
    }
}

/// The exact sign of `u × w = u.x w.y - u.y w.x`, each coordinate given as a sum of `f32`
/// numbers: the sum of the twelve products, each exact in `f64`.
fn cross_sign(ux: [f32; 2], uy: [f32; 2], wx: [f32; 3], wy: [f32; 3]) -> Ordering {
    let mut terms = [0.0f64; 12];
    for (i, (a, b)) in ux.iter().flat_map(|&a| wy.map(|b| (a, b))).enumerate() {
        terms[i] = f64::from(a) * f64::from(b);
    }
    for (i, (a, b)) in uy.iter().flat_map(|&a| wx.map(|b| (a, b))).enumerate() {
        terms[6 + i] = -(f64::from(a) * f64::from(b));
    }
    sum_sign(&terms)
}

/// The exact sign of a sum of `f64` numbers.
///
/// Filter: recursive summation of `n` terms is off by at most `γ_{n-1} Σ|t|` (Higham, *Accuracy
/// and Stability of Numerical Algorithms*, §4.2), below `(n + 1) ε Σ|t|`. Beyond it, the terms
/// are summed exactly into a nonoverlapping expansion (Shewchuk, *Adaptive Precision
/// Floating-Point Arithmetic and Fast Robust Geometric Predicates*, 1997: Grow-Expansion with
/// zero elimination, Two-Sum), whose sign is that of its largest component, the last nonzero one.
fn sum_sign(terms: &[f64; 12]) -> Ordering {
    let (sum, magnitude) = terms.iter().fold((0.0f64, 0.0f64), |(s, m), &t| (s + t, m + t.abs()));
    if sum.abs() > (terms.len() as f64 + 1.0) * f64::EPSILON * magnitude {
        return if sum > 0.0 { Ordering::Greater } else { Ordering::Less };
    }
    let mut expansion = [0.0f64; 12];
    let mut len = 0;
    for &t in terms {
        let mut q = t;
        let mut kept = 0;
        for i in 0..len {
            let (s, e) = two_sum(q, expansion[i]);
            q = s;
            if e != 0.0 {
                expansion[kept] = e;
                kept += 1;
            }
        }
        expansion[kept] = q;
        len = kept + 1;
    }
    let largest = expansion[..len].iter().rev().find(|&&c| c != 0.0).copied().unwrap_or(0.0);
    largest.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// `a + b` as the rounded sum and its exact error (Knuth's Two-Sum).
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let b_virtual = s - a;
    let a_virtual = s - b_virtual;
    (s, (a - a_virtual) + (b - b_virtual))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_cancelling_below_f64_precision_have_the_exact_sign() {
        let mut terms = [0.0; 12];
        terms[0] = 1.0;
        terms[1] = 1e-30;
        terms[2] = -1.0;
        assert_eq!(sum_sign(&terms), Ordering::Greater);
        terms[3] = -2e-30;
        assert_eq!(sum_sign(&terms), Ordering::Less);
        terms[4] = 1e-30;
        assert_eq!(sum_sign(&terms), Ordering::Equal);
    }

    #[test]
    fn a_point_moved_by_a_tiny_shift_across_a_line_changes_side() {
        // The line y = 1 through (0, 1) → (1, 1); the point (0.5, 1) moved by ±1e-30 in y.
        let (ux, uy) = ([1.0, -0.0], [1.0, -1.0]);
        assert_eq!(cross_sign(ux, uy, [0.5, 0.0, -0.0], [1.0, 1e-30, -1.0]), Ordering::Greater);
        assert_eq!(cross_sign(ux, uy, [0.5, 0.0, -0.0], [1.0, -1e-30, -1.0]), Ordering::Less);
        assert_eq!(cross_sign(ux, uy, [0.5, 0.0, -0.0], [1.0, 0.0, -1.0]), Ordering::Equal);
    }
}
