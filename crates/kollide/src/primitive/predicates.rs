//! Exact orientation predicates on `f32` points.
//!
//! Each predicate first evaluates its determinant in `f32` with a forward error bound and returns
//! the sign when the bound proves it. Only when the value is too close to zero to be sure does it
//! fall back to Shewchuk's adaptive exact arithmetic (the `robust` crate), on the same inputs
//! widened to `f64` (which is exact). The sign returned is therefore always the sign of the exact
//! determinant of the given `f32` coordinates.
//!
//! Inputs must be finite; for NaN or infinite coordinates the sign is unspecified (but the call
//! does not panic). Callers that accept arbitrary input check finiteness first.

use glam::{Vec2, Vec3, Vec3A, Vec3Swizzles};

/// Multiplier of the permanent in the `f32` forward error bound of a 3×3 determinant evaluated as
/// `((b - a) × (c - a)) · (d - a)`.
///
/// With unit roundoff `u = 2⁻²⁴`: each difference carries a relative error `u`; each cross-product
/// component `u_y v_z - u_z v_y` then errs by at most `4u (|u_y v_z| + |u_z v_y|)`; the products
/// with `d - a` add `2u` and the two additions of the dot product `2u` of the running sum, for a
/// total below `8u · P` where `P = Σ_i (|u_j v_k| + |u_k v_j|) |w_i|` is the permanent (first order
/// in `u`). `16u = 8 ε` leaves a factor-two margin for the second-order terms and for rounding in
/// the computation of `P` itself.
const ORIENT3D_BOUND: f32 = 8.0 * f32::EPSILON;

/// The same bound for `(b - a) × (c - a)` in 2D, a 2×2 determinant (`4u` in the derivation above).
const ORIENT2D_BOUND: f32 = 4.0 * f32::EPSILON;

/// Absolute slack added to every bound so that results in the subnormal range, where relative
/// error analysis no longer holds, always take the exact path.
const UNDERFLOW_SLACK: f32 = f32::MIN_POSITIVE;

/// Sign of the orientation of `d` relative to the plane through `a`, `b`, `c`:
/// `+1` if `d` lies on the side that `(b - a) × (c - a)` points into, `-1` on the other side, `0`
/// if the four points are coplanar (exactly, including when `a`, `b`, `c` are collinear).
#[inline]
pub fn orient3d(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> i32 {
    PlaneOrientation::new(a, b, c).side(d)
}

/// Sign of the orientation of the 2D triangle `a`, `b`, `c`: `+1` if counter-clockwise (`c` left of
/// the directed line `a → b`), `-1` if clockwise, `0` if exactly collinear.
#[inline]
pub fn orient2d(a: Vec2, b: Vec2, c: Vec2) -> i32 {
    let u = b - a;
    let v = c - a;
    let (l, r) = (u.x * v.y, u.y * v.x);
    let det = l - r;
    let bound = ORIENT2D_BOUND * (l.abs() + r.abs()) + UNDERFLOW_SLACK;
    if det > bound {
        1
    } else if det < -bound {
        -1
    } else {
        orient2d_exact(a, b, c)
    }
}

fn orient2d_exact(a: Vec2, b: Vec2, c: Vec2) -> i32 {
    let coord = |p: Vec2| robust::Coord { x: p.x as f64, y: p.y as f64 };
    sign_f64(robust::orient2d(coord(a), coord(b), coord(c)))
}

/// The exact orientation of `d` relative to the plane `a, b, c`, in this module's sign convention.
pub(crate) fn orient3d_exact(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> i32 {
    let coord = |p: Vec3| robust::Coord3D { x: p.x as f64, y: p.y as f64, z: p.z as f64 };
    // Shewchuk's orient3d is positive when `d` lies below the plane seen with a, b, c
    // counter-clockwise, that is opposite to (b - a) × (c - a): negate it.
    -sign_f64(robust::orient3d(coord(a), coord(b), coord(c), coord(d)))
}

#[inline]
fn sign_f64(x: f64) -> i32 {
    (x > 0.0) as i32 - (x < 0.0) as i32
}

/// The plane through three points, prepared for many exact side tests.
///
/// Holds the `f32` normal `(b - a) × (c - a)` together with its permanent (the same products
/// summed in absolute value), from which each side test derives its error bound.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlaneOrientation {
    pub a: Vec3A,
    pub normal: Vec3A,
    normal_permanent: Vec3A,
    points: [Vec3; 3],
}

impl PlaneOrientation {
    #[inline]
    pub fn new(a: Vec3, b: Vec3, c: Vec3) -> Self {
        let a_simd = Vec3A::from(a);
        let u = Vec3A::from(b) - a_simd;
        let v = Vec3A::from(c) - a_simd;
        let plus = u.yzx() * v.zxy();
        let minus = u.zxy() * v.yzx();
        Self {
            a: a_simd,
            normal: plus - minus,
            normal_permanent: plus.abs() + minus.abs(),
            points: [a, b, c],
        }
    }

    /// The exact sign of the orientation of `d` and an `f32` approximation of the determinant
    /// that carries that same sign (it is `0.0` exactly when the sign is `0`).
    #[inline]
    pub fn side_and_value(&self, d: Vec3) -> (i32, f32) {
        let w = Vec3A::from(d) - self.a;
        let det = self.normal.dot(w);
        let bound = ORIENT3D_BOUND * self.normal_permanent.dot(w.abs()) + UNDERFLOW_SLACK;
        if det > bound {
            (1, det)
        } else if det < -bound {
            (-1, det)
        } else {
            let [a, b, c] = self.points;
            let sign = orient3d_exact(a, b, c, d);
            let value = match sign {
                0 => 0.0,
                // Keep the magnitude when the rounded value already has the exact sign.
                s if (det > 0.0) == (s > 0) && det != 0.0 => det,
                s => s as f32 * f32::MIN_POSITIVE,
            };
            (sign, value)
        }
    }

    /// The exact sign of the orientation of `d`; see [`orient3d`].
    #[inline]
    pub fn side(&self, d: Vec3) -> i32 {
        self.side_and_value(d).0
    }

    /// True if the three points are exactly collinear (the normal is exactly zero).
    #[inline]
    pub fn is_degenerate(&self) -> bool {
        // Each normal component errs by at most 4u times its permanent (see ORIENT3D_BOUND);
        // one component clearly non-zero proves the triangle non-degenerate.
        let bound = self.normal_permanent * ORIENT2D_BOUND + Vec3A::splat(UNDERFLOW_SLACK);
        if self.normal.abs().cmpgt(bound).any() {
            return false;
        }
        let [a, b, c] = self.points;
        (0..3).all(|axis| {
            let (pa, pb, pc) = (drop_axis(a, axis), drop_axis(b, axis), drop_axis(c, axis));
            orient2d_exact(pa, pb, pc) == 0
        })
    }
}

/// The 2D point left after deleting coordinate `axis` (0 = x, 1 = y, 2 = z) of `p`, keeping the
/// remaining two in cyclic order (y, z), (z, x), (x, y), so that a triangle whose normal has a
/// positive `axis` component stays counter-clockwise.
#[inline]
pub(crate) fn drop_axis(p: Vec3, axis: usize) -> Vec2 {
    match axis {
        0 => Vec2::new(p.y, p.z),
        1 => Vec2::new(p.z, p.x),
        _ => Vec2::new(p.x, p.y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orient3d_sign_convention() {
        let (a, b, c) = (Vec3::ZERO, Vec3::X, Vec3::Y);
        assert_eq!(orient3d(a, b, c, Vec3::Z), 1);
        assert_eq!(orient3d(a, b, c, -Vec3::Z), -1);
        assert_eq!(orient3d(a, b, c, Vec3::new(5.0, -3.0, 0.0)), 0);
        assert_eq!(orient3d_exact(a, b, c, Vec3::Z), 1);
    }

    #[test]
    fn orient2d_sign_convention() {
        assert_eq!(orient2d(Vec2::ZERO, Vec2::X, Vec2::Y), 1);
        assert_eq!(orient2d(Vec2::ZERO, Vec2::Y, Vec2::X), -1);
        assert_eq!(orient2d(Vec2::ZERO, Vec2::X, Vec2::new(7.0, 0.0)), 0);
    }

    #[test]
    fn near_degenerate_inputs_take_the_exact_path() {
        // d is off the plane by one ulp-scale step: the f32 evaluation cannot decide, the exact
        // one can, and the answer must match the sign of the true offset.
        let a = Vec3::new(0.1, 0.2, 0.3);
        let b = Vec3::new(1.1, 0.7, 0.3);
        let c = Vec3::new(0.4, 1.9, 0.3);
        let on = Vec3::new(0.5, 0.5, 0.3);
        assert_eq!(orient3d(a, b, c, on), 0);
        let above = Vec3::new(0.5, 0.5, f32::from_bits(0.3f32.to_bits() + 1));
        let below = Vec3::new(0.5, 0.5, f32::from_bits(0.3f32.to_bits() - 1));
        assert_eq!(orient3d(a, b, c, above), 1);
        assert_eq!(orient3d(a, b, c, below), -1);
        // 2D: points on a line with inexact slope.
        let p = Vec2::new(0.1, 0.1);
        let q = Vec2::new(0.3, 0.3);
        let r = Vec2::new(0.7, 0.7);
        assert_eq!(orient2d(p, q, r), orient2d_exact(p, q, r));
    }

    #[test]
    fn degenerate_planes_are_detected_exactly() {
        let collinear = PlaneOrientation::new(Vec3::ZERO, Vec3::new(1.0, 2.0, 3.0), Vec3::new(3.0, 6.0, 9.0));
        assert!(collinear.is_degenerate());
        let thin = PlaneOrientation::new(
            Vec3::ZERO,
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(3.0, 6.0, f32::from_bits(9.0f32.to_bits() + 1)),
        );
        assert!(!thin.is_degenerate());
        let point = PlaneOrientation::new(Vec3::ONE, Vec3::ONE, Vec3::ONE);
        assert!(point.is_degenerate());
    }

    #[test]
    fn huge_and_tiny_coordinates_do_not_overflow_the_sign() {
        let s = 1e30f32;
        assert_eq!(orient3d(Vec3::ZERO, Vec3::X * s, Vec3::Y * s, Vec3::Z * s), 1);
        let t = 1e-30f32;
        assert_eq!(orient3d(Vec3::ZERO, Vec3::X * t, Vec3::Y * t, Vec3::Z * t), 1);
        assert_eq!(orient3d(Vec3::ZERO, Vec3::X * t, Vec3::Y * t, -Vec3::Z * t), -1);
    }
}
