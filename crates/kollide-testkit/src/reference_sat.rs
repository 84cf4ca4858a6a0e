//! References for the separating-axis motion resolution (`kollide::motion::resolve_motion2`).
//!
//! - Exact apartness of convex polygons, at a translation and along a straight path, in integer
//!   arithmetic: the `f32` numbers of a question are integers on the grid of the finest unit in
//!   the last place among them, so coordinates become `i128` fixed-point numbers, sums of
//!   translates are exact, and orientation signs come from 256-bit products. Two convex sets
//!   are apart when a line has one on each closed side; the lines tried are those through the
//!   edges of both exact convex hulls (complete for convex sets, degenerate ones included), and a
//!   path is apart when the convex hull of the start and end positions is.
//! - An `f64` enumeration of the seed's candidate velocities, which bounds the length of the best
//!   one from below (candidates that are accepted with a margin) and from above (candidates
//!   accepted within the margin).
//! - A signed separation in `f64` (the largest gap over the edge normals), to check that a
//!   resolution from an overlap does not go deeper.
//! - The obstacles-in-turn rule of `resolve_motion_among2` written out over a plain list.
//! - Random convex polygons (exact strict hulls of random points) for tests and benchmarks.

use std::cmp::Ordering;

use glam::{DVec2, Vec2};
use kollide::motion::{MAX_RESOLUTION_PASSES, MotionResolution2, SatAxes, resolve_motion2};
use rand::Rng;

use crate::random::TestRng;

/// A point in fixed point: coordinates times `2^scale` for the scale of the question (see
/// [`Grid`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Fixed2 {
    x: i128,
    y: i128,
}

/// The fixed-point grid of one question: every `f32` number it involves times `2^scale` is an
/// integer (orientation signs do not depend on the scale).
#[derive(Clone, Copy)]
struct Grid {
    scale: i32,
}

impl Grid {
    /// The coarsest grid holding every number of `values` (the finest unit in the last place
    /// among them).
    fn new(values: impl IntoIterator<Item = f32>) -> Self {
        let finest = values
            .into_iter()
            .filter(|x| *x != 0.0)
            .map(|x| {
                // x = mantissa · 2^exponent with an integer mantissa; its lowest set bit is its unit.
                let bits = x.to_bits();
                let (biased, mantissa) = ((bits >> 23) & 0xff, bits & 0x7f_ffff);
                let (exponent, mantissa) =
                    if biased == 0 { (-149, mantissa) } else { (biased as i32 - 150, mantissa | 0x80_0000) };
                exponent + mantissa.trailing_zeros() as i32
            })
            .min()
            .unwrap_or(0);
        Self { scale: -finest }
    }

    /// `x · 2^scale` as an integer.
    ///
    /// # Panics
    ///
    /// If that is `2^120` or more in magnitude (numbers spanning more than about 96 binary orders of
    /// magnitude in one question).
    fn fixed(self, x: f32) -> i128 {
        let t = f64::from(x) * 2f64.powi(self.scale);
        assert!(
            t.fract() == 0.0 && t.abs() < 2f64.powi(120),
            "reference_sat: {x} does not fit the fixed-point grid"
        );
        t as i128
    }

    fn point(self, p: Vec2, shift: Vec2) -> Fixed2 {
        Fixed2 { x: self.fixed(p.x) + self.fixed(shift.x), y: self.fixed(p.y) + self.fixed(shift.y) }
    }
}

/// The grid of a question about these polygons and shifts.
fn grid_of(polygons: [&[Vec2]; 2], shifts: &[Vec2]) -> Grid {
    Grid::new(polygons.iter().flat_map(|p| p.iter()).chain(shifts).flat_map(|p| [p.x, p.y]))
}

/// `a · b` as a sign and a 256-bit magnitude `(high, low)`, for `|a|, |b| < 2^127`.
fn wide_product(a: i128, b: i128) -> (bool, u128, u128) {
    const LOW: u128 = u64::MAX as u128;
    let (x, y) = (a.unsigned_abs(), b.unsigned_abs());
    let (x1, x0, y1, y0) = (x >> 64, x & LOW, y >> 64, y & LOW);
    let (middle, carry) = (x0 * y1).overflowing_add(x1 * y0);
    let (low, carry_low) = (x0 * y0).overflowing_add(middle << 64);
    let high = x1 * y1 + (middle >> 64) + (u128::from(carry) << 64) + u128::from(carry_low);
    let negative = (a < 0) != (b < 0) && (high | low) != 0;
    (negative, high, low)
}

/// Compares two signed wide products.
fn compare_wide(p: (bool, u128, u128), q: (bool, u128, u128)) -> Ordering {
    match (p.0, q.0) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => (p.1, p.2).cmp(&(q.1, q.2)),
        (true, true) => (q.1, q.2).cmp(&(p.1, p.2)),
    }
}

/// The exact sign of `(b - a) × (c - a)`: `Greater` when `a, b, c` turn counter-clockwise.
fn orient(a: Fixed2, b: Fixed2, c: Fixed2) -> Ordering {
    let left = wide_product(b.x - a.x, c.y - a.y);
    let right = wide_product(b.y - a.y, c.x - a.x);
    compare_wide(left, right)
}

/// The strictly convex hull, counter-clockwise (Andrew's monotone chain with exact turns): one
/// point for coincident points, two for collinear ones.
fn hull(mut points: Vec<Fixed2>) -> Vec<Fixed2> {
    points.sort();
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let mut chain: Vec<Fixed2> = Vec::with_capacity(2 * points.len());
    for pass in 0..2 {
        let start = chain.len();
        let ordered: Box<dyn Iterator<Item = &Fixed2>> =
            if pass == 0 { Box::new(points.iter()) } else { Box::new(points.iter().rev()) };
        for &p in ordered {
            while chain.len() >= start + 2
                && orient(chain[chain.len() - 2], chain[chain.len() - 1], p) != Ordering::Greater
            {
                chain.pop();
            }
            chain.push(p);
        }
        chain.pop();
    }
    chain
}

/// Whether a line has the convex hull `a` on one closed side and `b` on the other, trying the
/// lines through the edges of both.
fn hulls_apart(a: &[Fixed2], b: &[Fixed2]) -> bool {
    let separated_by_edges_of = |own: &[Fixed2], other: &[Fixed2]| {
        (0..own.len()).any(|i| {
            let (p, q) = (own[i], own[(i + 1) % own.len()]);
            if p == q {
                return false;
            }
            let sides = |points: &[Fixed2]| {
                points.iter().fold((false, false), |(l, r), &c| match orient(p, q, c) {
                    Ordering::Greater => (true, r),
                    Ordering::Less => (l, true),
                    Ordering::Equal => (l, r),
                })
            };
            let ((own_left, own_right), (other_left, other_right)) = (sides(own), sides(other));
            (!own_right && !other_left) || (!own_left && !other_right)
        })
    };
    if a.len() < 2 && b.len() < 2 {
        return true; // two points
    }
    separated_by_edges_of(a, b) || separated_by_edges_of(b, a)
}

/// Exact: whether the polygon `moving` translated by `shift` and the polygon `stationary` are
/// apart (touching counts as apart). Both are taken as the convex hulls of their vertices.
pub fn apart_exact(moving: &[Vec2], shift: Vec2, stationary: &[Vec2]) -> bool {
    let grid = grid_of([moving, stationary], &[shift]);
    let m = hull(moving.iter().map(|&p| grid.point(p, shift)).collect());
    let s = hull(stationary.iter().map(|&p| grid.point(p, Vec2::ZERO)).collect());
    hulls_apart(&m, &s)
}

/// Exact: whether `moving` stays apart from `stationary` while translated by `t · velocity` for
/// every `t` in `[0, 1]` (the hull of both end positions is apart from it).
pub fn path_apart_exact(moving: &[Vec2], velocity: Vec2, stationary: &[Vec2]) -> bool {
    let grid = grid_of([moving, stationary], &[velocity]);
    let swept = moving.iter().flat_map(|&p| [grid.point(p, Vec2::ZERO), grid.point(p, velocity)]).collect();
    let s = hull(stationary.iter().map(|&p| grid.point(p, Vec2::ZERO)).collect());
    hulls_apart(&hull(swept), &s)
}

/// The strictly convex hull of `points` (exact turns), counter-clockwise: a convex polygon for
/// the tests whatever the rounding of the points.
pub fn strict_hull(points: &[Vec2]) -> Vec<Vec2> {
    let grid = grid_of([points, &[]], &[]);
    let unit = 2f64.powi(-grid.scale);
    let fixed = points.iter().map(|&p| grid.point(p, Vec2::ZERO)).collect();
    hull(fixed).iter().map(|p| Vec2::new((p.x as f64 * unit) as f32, (p.y as f64 * unit) as f32)).collect()
}

/// A random convex polygon around `center` of radius about `size`: the strict hull of 3 to
/// `max_points` random points on an ellipse (at least a triangle unless the points are
/// degenerate).
pub fn random_convex_polygon(rng: &mut TestRng, center: Vec2, size: f32, max_points: usize) -> Vec<Vec2> {
    let n = rng.random_range(3..=max_points.max(3));
    let (rx, ry) = (size * rng.random_range(0.3..1.0), size * rng.random_range(0.3..1.0));
    let turn = rng.random_range(0.0..std::f32::consts::TAU);
    let (s, c) = turn.sin_cos();
    let points: Vec<Vec2> = (0..n)
        .map(|_| {
            let a = rng.random_range(0.0..std::f32::consts::TAU);
            let local = Vec2::new(rx * a.cos(), ry * a.sin());
            center + Vec2::new(c * local.x - s * local.y, s * local.x + c * local.y)
        })
        .collect();
    strict_hull(&points)
}

/// `p`'s coordinates in `f64`, moved by `shift`.
fn f64_point(p: Vec2, shift: Vec2) -> DVec2 {
    p.as_dvec2() + shift.as_dvec2()
}

/// The unit normals (`f64`) of the nonzero edges of a closed loop.
fn normals_f64(points: &[Vec2]) -> Vec<DVec2> {
    (0..points.len())
        .filter_map(|i| {
            let e = points[(i + 1) % points.len()].as_dvec2() - points[i].as_dvec2();
            (e != DVec2::ZERO).then(|| e.perp().normalize())
        })
        .collect()
}

fn project_f64(points: &[Vec2], shift: Vec2, n: DVec2) -> (f64, f64) {
    points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &p| {
        let x = f64_point(p, shift).dot(n);
        (lo.min(x), hi.max(x))
    })
}

/// The largest gap over both polygons' edge normals between `moving` moved by `shift` and
/// `stationary`, in `f64`: positive apart, negative overlapping (minus the penetration depth).
/// `+∞` when neither polygon has an edge.
pub fn separation_f64(moving: &[Vec2], shift: Vec2, stationary: &[Vec2]) -> f64 {
    let mut axes = normals_f64(moving);
    axes.extend(normals_f64(stationary));
    if axes.is_empty() {
        return f64::INFINITY;
    }
    axes.iter()
        .map(|&n| {
            let (m0, m1) = project_f64(moving, shift, n);
            let (s0, s1) = project_f64(stationary, Vec2::ZERO, n);
            (s0 - m1).max(m0 - s1)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Bounds on the length of the best candidate velocity (see [`candidate_bounds`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CandidateBounds {
    /// The longest candidate accepted with the margin to spare (0 if none).
    pub certain: f64,
    /// The longest candidate accepted within the margin (0 if none).
    pub possible: f64,
}

/// The seed's candidates in `f64` for a moving polygon apart from the stationary one at the start
/// whose path collides: for every axis `axes` offers (edge normals, the velocity's direction and
/// perpendicular, the fixed directions), from the side the moving polygon starts on, the velocity
/// corrected along the axis so that the end touches, kept if it is not longer than the input and
/// not against it. "Certain" candidates pass these rules, and start apart on their axis, by
/// `margin` (a length); "possible" ones pass them within `margin`.
pub fn candidate_bounds(
    moving: &[Vec2],
    stationary: &[Vec2],
    velocity: Vec2,
    axes: &SatAxes,
    margin: f64,
) -> CandidateBounds {
    let v = velocity.as_dvec2();
    let mut list = Vec::new();
    if axes.edge_normals {
        list.extend(normals_f64(moving));
        list.extend(normals_f64(stationary));
    }
    if axes.velocity && v != DVec2::ZERO {
        let u = v.normalize();
        list.extend([u, u.perp()]);
    }
    list.extend(axes.basic().iter().map(|n| n.as_dvec2().normalize()));
    let speed = v.length();
    let mut bounds = CandidateBounds { certain: 0.0, possible: 0.0 };
    for n in list {
        let (m0, m1) = project_f64(moving, Vec2::ZERO, n);
        let (s0, s1) = project_f64(stationary, Vec2::ZERO, n);
        let d = v.dot(n);
        let (below, above) = (s0 - m1, m0 - s1);
        let (start, end, correction) =
            if below >= above { (below, below - d, below - d) } else { (above, above + d, -above - d) };
        if start < -margin {
            continue;
        }
        // No correction needed on an axis proving the path apart: the input itself (possible only,
        // since the caller's path collides).
        let c = if end >= 0.0 { v } else { v + n * correction };
        let (length, along) = (c.length(), c.dot(v));
        let certain = start >= margin && end < 0.0 && length <= speed - margin && along >= margin * speed;
        let possible = length <= speed + margin && along >= -margin * speed;
        if certain {
            bounds.certain = bounds.certain.max(length);
        }
        if possible {
            bounds.possible = bounds.possible.max(length);
        }
    }
    bounds
}

/// `kollide::motion::resolve_motion_among2`'s rule over a plain list of obstacles (in the order
/// given): each resolved in turn with the velocity the previous ones left, whole passes repeated
/// until one changes nothing or `MAX_RESOLUTION_PASSES` have run (then zero); flags combined as
/// "any", `were`/`would` from the first pass, `will` from the last (`were` after giving up).
///
/// # Panics
///
/// On input `resolve_motion2` refuses.
pub fn resolve_among_by_list(
    moving: &[Vec2],
    velocity: Vec2,
    obstacles: &[&[Vec2]],
    axes: &SatAxes,
) -> MotionResolution2 {
    let mut current = velocity;
    let (mut were, mut would) = (false, false);
    for pass in 0..MAX_RESOLUTION_PASSES {
        let before = current;
        let mut will = false;
        for obstacle in obstacles {
            let r = resolve_motion2(moving, obstacle, current, axes).expect("valid input");
            if pass == 0 {
                were |= r.were_colliding;
                would |= r.would_have_collided;
            }
            will |= r.will_collide;
            current = r.velocity;
        }
        if current.x.to_bits() == before.x.to_bits() && current.y.to_bits() == before.y.to_bits() {
            return MotionResolution2 {
                were_colliding: were,
                would_have_collided: would,
                will_collide: will,
                velocity: current,
            };
        }
    }
    MotionResolution2 {
        were_colliding: were,
        would_have_collided: would,
        will_collide: were,
        velocity: Vec2::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f32, y: f32, half: f32) -> Vec<Vec2> {
        vec![
            Vec2::new(x - half, y - half),
            Vec2::new(x + half, y - half),
            Vec2::new(x + half, y + half),
            Vec2::new(x - half, y + half),
        ]
    }

    #[test]
    fn wide_products_compare_exactly() {
        let big = 1i128 << 120;
        assert_eq!(compare_wide(wide_product(big, big), wide_product(big, big - 1)), Ordering::Greater);
        assert_eq!(compare_wide(wide_product(-big, big), wide_product(big, -big)), Ordering::Equal);
        assert_eq!(compare_wide(wide_product(-3, 5), wide_product(2, -7)), Ordering::Less);
        // Carries between the 64-bit limbs, against a product that fits: (2^64 - 1)² and
        // (2^64 - 1)(2^64 + 1) = 2^128 - 1.
        let m = (1i128 << 64) - 1;
        assert_eq!(wide_product(m, m), (false, 0, (m as u128) * (m as u128)));
        assert_eq!(wide_product(m, m + 2), (false, 0, u128::MAX));
        assert_eq!(wide_product(m + 1, -(m + 1)), (true, 1, 0));
        assert_eq!(compare_wide(wide_product(0, -5), wide_product(0, 5)), Ordering::Equal);
    }

    #[test]
    fn touching_squares_are_apart_and_overlapping_ones_are_not() {
        let a = square(0.0, 0.0, 1.0);
        assert!(apart_exact(&a, Vec2::ZERO, &square(2.0, 0.0, 1.0)));
        assert!(apart_exact(&a, Vec2::ZERO, &square(2.0, 2.0, 1.0)));
        assert!(!apart_exact(&a, Vec2::ZERO, &square(1.9, 0.5, 1.0)));
        assert!(!apart_exact(&a, Vec2::new(0.2, 0.0), &square(2.0, 0.0, 1.0)));
        // Crossing segments overlap; collinear ones and points never do.
        let (h, v) =
            ([Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)], [Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0)]);
        assert!(!apart_exact(&h, Vec2::ZERO, &v));
        assert!(apart_exact(&h, Vec2::new(0.5, 0.0), &h));
        assert!(apart_exact(&[Vec2::ZERO], Vec2::ZERO, &[Vec2::ZERO]));
        assert!(!apart_exact(&[Vec2::ZERO], Vec2::ZERO, &a));
    }

    #[test]
    fn a_path_through_a_thin_wall_is_not_apart() {
        let wall = [Vec2::new(0.0, -5.0), Vec2::new(0.1, -5.0), Vec2::new(0.1, 5.0), Vec2::new(0.0, 5.0)];
        let a = square(-2.0, 0.0, 0.5);
        assert!(apart_exact(&a, Vec2::new(4.0, 0.0), &wall));
        assert!(!path_apart_exact(&a, Vec2::new(4.0, 0.0), &wall));
        assert!(path_apart_exact(&a, Vec2::new(1.5, 0.0), &wall));
        assert!(path_apart_exact(&a, Vec2::new(4.0, 20.0), &wall));
        // Collinear points hull to their two ends.
        let line = [Vec2::ZERO, Vec2::new(2.0, 2.0), Vec2::new(1.0, 1.0)];
        assert_eq!(strict_hull(&line), vec![Vec2::ZERO, Vec2::new(2.0, 2.0)]);
    }
}
