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
    let orient = |a: Coord<f64>, b: Coord<f64>, c: Coord<f64>| orient2d(a, b, c);
    let zero = Vec2::ZERO;
    let mut any_edge = false;
    // Lines through the stationary polygon's edges, against the moving polygon at both ends.
    let mut prev = stationary[stationary.len() - 1];
    for &b in stationary {
        let a = std::mem::replace(&mut prev, b);
        if a == b {
            continue;
        }
        any_edge = true;
        let (ca, cb) = (coord(a, zero), coord(b, zero));
        let mut own = Sides::default();
        stationary.iter().for_each(|&p| own.add(orient(ca, cb, coord(p, zero))));
        let mut other = Sides::default();
        for &p in moving {
            other.add(orient(ca, cb, coord(p, from)));
            if swept {
                other.add(orient(ca, cb, coord(p, to)));
            }
        }
        if own.separates(other) {
            return true;
        }
    }
    // Lines through the moving polygon's edges at both ends: the stationary polygon moved back.
    let mut prev = moving[moving.len() - 1];
    for &b in moving {
        let a = std::mem::replace(&mut prev, b);
        if a == b {
            continue;
        }
        any_edge = true;
        let (ca, cb) = (coord(a, zero), coord(b, zero));
        let mut own = Sides::default();
        moving.iter().for_each(|&p| own.add(orient(ca, cb, coord(p, zero))));
        let mut other = Sides::default();
        for &p in stationary {
            other.add(orient(ca, cb, coord(p, -from)));
            if swept {
                other.add(orient(ca, cb, coord(p, -to)));
            }
        }
        if own.separates(other) {
            return true;
        }
    }
    if !swept {
        return !any_edge;
    }
    // Lines parallel to the motion: every stationary vertex on one closed side of every line
    // through a moving vertex, the same side for all.
    let mut sides = Sides::default();
    for &m in moving {
        let (ca, cb) = (coord(m, from), coord(m, to));
        stationary.iter().for_each(|&p| sides.add(orient(ca, cb, coord(p, zero))));
        if sides.left && sides.right {
            return false;
        }
    }
    true
}
