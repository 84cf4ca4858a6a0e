//! The exact decision of the separating-axis motion resolution, for the cases within the `f32`
//! error bound of contact: orientation tests (the `robust` crate) on the exact geometry.

use robust::{Coord, orient2d};

use crate::math::Vec2;

/// Which sides of a line some points lie strictly on.
#[derive(Clone, Copy, Default)]
struct Sides {
    left: bool,
    right: bool,
}

impl Sides {
    fn add(&mut self, orientation: f64) {
        self.left |= orientation > 0.0;
        self.right |= orientation < 0.0;
    }

    /// Whether the line has `self` on one closed side and `other` on the other.
    fn separates(self, other: Sides) -> bool {
        (!self.right && !other.left) || (!self.left && !other.right)
    }
}

/// `p + t` in `f64` (exact unless the exponents of a coordinate pair differ by more than 29).
fn coord(p: Vec2, t: Vec2) -> Coord<f64> {
    Coord { x: f64::from(p.x) + f64::from(t.x), y: f64::from(p.y) + f64::from(t.y) }
}

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
    // through a moving vertex, the same side for all.
    let mut sides = Sides::default();
    for &m in moving {
        let (ca, cb) = (coord(m, from), coord(m, to));
        stationary.iter().for_each(|&p| sides.add(orient2d(ca, cb, coord(p, Vec2::ZERO))));
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
        let (ca, cb) = (coord(a, Vec2::ZERO), coord(b, Vec2::ZERO));
        let mut own_sides = Sides::default();
        own.iter().for_each(|&p| own_sides.add(orient2d(ca, cb, coord(p, Vec2::ZERO))));
        let mut other_sides = Sides::default();
        for &shift in shifts {
            other.iter().for_each(|&p| other_sides.add(orient2d(ca, cb, coord(p, shift))));
        }
        if own_sides.separates(other_sides) {
            return (true, true);
        }
    }
    (false, any_edge)
}
