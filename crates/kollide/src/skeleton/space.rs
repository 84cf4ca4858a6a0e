//! The dimension of a skeleton: its vector, transform, ball, box and ray types and the few
//! operations on them that the skeleton's update and queries need.

use std::fmt::Debug;
use std::ops::{Add, Mul, Sub};

use glam::{Affine2, Affine3A, Mat2, Mat3A, Vec2, Vec3, Vec3A};

use crate::bounds::{Aabb2, Aabb3, Circle, Sphere};
use crate::broad::BroadBounds;
use crate::math::{Ray2, Ray3, largest_stretch};
use crate::primitive::d2::ray_circle;
use crate::primitive::ray_sphere;

/// A dimension of skeletons: the types of its points, placements, balls, boxes and rays.
///
/// Implemented by the zero-sized markers [`D2`] and [`D3`]; [`Skeleton`](super::Skeleton) and
/// [`SkeletonQuery`](super::SkeletonQuery) are written once over it.
pub trait SkeletonSpace: Copy + Debug + Default + Send + Sync + 'static {
    /// A point or displacement: [`Vec2`] or [`Vec3`].
    type Vector: Copy
        + Debug
        + PartialEq
        + Send
        + Sync
        + Add<Output = Self::Vector>
        + Sub<Output = Self::Vector>
        + Mul<f32, Output = Self::Vector>;
    /// A node's placement, any affine map: [`Affine2`] or [`Affine3A`]. `a * b` applies `b` first.
    type Transform: Copy + Debug + PartialEq + Send + Sync + Mul<Output = Self::Transform>;
    /// A solid ball: [`Circle`] or [`Sphere`].
    type Ball: Copy + Debug + PartialEq + Send + Sync;
    /// A box: [`Aabb2`] or [`Aabb3`].
    type Aabb: BroadBounds + Send + Sync;
    /// A ray: [`Ray2`] or [`Ray3`].
    type Ray: Copy + Debug + PartialEq + Send + Sync;

    /// The identity transform.
    const IDENTITY: Self::Transform;

    /// `(s, s, ..)`.
    fn splat(s: f32) -> Self::Vector;
    /// `a · b`.
    fn dot(a: Self::Vector, b: Self::Vector) -> f32;
    /// The componentwise minimum.
    fn min(a: Self::Vector, b: Self::Vector) -> Self::Vector;
    /// The componentwise maximum.
    fn max(a: Self::Vector, b: Self::Vector) -> Self::Vector;
    /// The largest absolute value among the finite components (0 when there is none).
    fn max_abs_finite(v: Self::Vector) -> f32;
    /// Whether every component is finite.
    fn is_finite(v: Self::Vector) -> bool;
    /// The vector in 3D (`z = 0` in 2D), for the primitive tests that exist in 3D only.
    fn to_vec3(v: Self::Vector) -> Vec3;

    /// Where `t` maps the origin (its translation).
    fn origin(t: &Self::Transform) -> Self::Vector;
    /// The image under `t`'s linear part of the unit `+y` axis.
    fn y_axis(t: &Self::Transform) -> Self::Vector;
    /// An upper bound on the largest factor by which `t`'s linear part stretches a vector (its
    /// spectral norm), at most `2e-5` (relative) above it; NaN or infinite for a map with a
    /// non-finite entry.
    fn stretch_bound(t: &Self::Transform) -> f32;

    /// The ball of the given centre and radius.
    fn ball(center: Self::Vector, radius: f32) -> Self::Ball;
    /// The box of the given corners.
    fn aabb(min: Self::Vector, max: Self::Vector) -> Self::Aabb;
    /// A ray's origin and direction.
    fn ray_parts(ray: &Self::Ray) -> (Self::Vector, Self::Vector);
    /// The parameter at which `ray` enters the closed ball within `[0, max_t]` (0 from inside),
    /// by the primitive cast ([`ray_circle`], [`ray_sphere`]).
    fn ray_ball(ray: &Self::Ray, max_t: f32, center: Self::Vector, radius: f32) -> Option<f32>;
}

/// The plane: [`Vec2`], [`Affine2`], [`Circle`], [`Aabb2`], [`Ray2`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct D2;

/// Space: [`Vec3`], [`Affine3A`], [`Sphere`], [`Aabb3`], [`Ray3`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct D3;

/// Largest finite `|x|` among `values`, 0 when none is finite.
#[inline]
fn max_abs_finite(values: &[f32]) -> f32 {
    values.iter().filter(|x| x.is_finite()).fold(0.0, |m, x| m.max(x.abs()))
}

/// The spectral norm of a 2×2 matrix, rounded up, by the closed form of its singular values.
///
/// For `M = [[a, b], [c, d]]` (columns `(a, c)` and `(b, d)`), writing `M` as the sum of a
/// scaled rotation `[[p, -q], [q, p]]` and a scaled reflection `[[r, s], [s, -r]]` with
/// `p = (a + d) / 2`, `q = (c - b) / 2`, `r = (a - d) / 2`, `s = (b + c) / 2` gives the singular
/// values `|(p, q)| ± |(r, s)|` (Blinn, "Consider the lowly 2×2 matrix", IEEE CG&A 1996); the
/// largest is the sum. Evaluated in `f64`, whose rounding is far below the `2e-7` added before
/// rounding to `f32`, so that the result, and a radius multiplied by it in `f32`, is never below
/// the exact value.
pub(super) fn largest_stretch2(m: &Mat2) -> f32 {
    let (a, c) = (f64::from(m.x_axis.x), f64::from(m.x_axis.y));
    let (b, d) = (f64::from(m.y_axis.x), f64::from(m.y_axis.y));
    // Squares of f32 values cannot overflow f64: no need for `hypot`.
    let rotation = ((a + d).powi(2) + (c - b).powi(2)).sqrt();
    let reflection = ((a - d).powi(2) + (b + c).powi(2)).sqrt();
    ((rotation + reflection) * 0.5 * (1.0 + 2e-7)) as f32
}

/// An upper bound on the spectral norm of a 3×3 matrix, at most `2e-5` above it.
///
/// When the Gram matrix `G = MᵀM` is diagonal to `1e-5` of its largest diagonal entry (rigid and
/// similarity maps, scales along the axes), Gershgorin's bound on its largest eigenvalue,
/// `max_i Σ_j |G_ij|`, is within `2e-5` of that eigenvalue (so its root within `1e-5` of the
/// norm) and costs no trigonometry; `1e-6` more covers the `f32` rounding of `G`. Otherwise
/// [`largest_stretch`] (a closed-form eigenvalue, rounded up by `1e-5`).
pub(super) fn stretch_bound3(m: &Mat3A) -> f32 {
    let (x, y, z) = (m.x_axis, m.y_axis, m.z_axis);
    if !(x.is_finite() & y.is_finite() & z.is_finite()) {
        // `max` below skips NaN: decide non-finite maps first.
        return f32::NAN;
    }
    let diag = Vec3A::new(x.dot(x), y.dot(y), z.dot(z));
    let (xy, yz, zx) = (x.dot(y).abs(), y.dot(z).abs(), z.dot(x).abs());
    let largest = diag.max_element();
    if xy.max(yz).max(zx) <= 1e-5 * largest {
        let rows = diag + Vec3A::new(xy + zx, xy + yz, yz + zx);
        rows.max_element().sqrt() * (1.0 + 1e-6)
    } else if !(largest < f32::INFINITY) {
        // Finite entries whose squares overflow: the bound is not finite either.
        largest
    } else {
        largest_stretch(m)
    }
}

impl SkeletonSpace for D2 {
    type Vector = Vec2;
    type Transform = Affine2;
    type Ball = Circle;
    type Aabb = Aabb2;
    type Ray = Ray2;

    const IDENTITY: Affine2 = Affine2::IDENTITY;

    #[inline(always)]
    fn splat(s: f32) -> Vec2 {
        Vec2::splat(s)
    }

    #[inline(always)]
    fn dot(a: Vec2, b: Vec2) -> f32 {
        a.dot(b)
    }

    #[inline(always)]
    fn min(a: Vec2, b: Vec2) -> Vec2 {
        a.min(b)
    }

    #[inline(always)]
    fn max(a: Vec2, b: Vec2) -> Vec2 {
        a.max(b)
    }

    #[inline]
    fn max_abs_finite(v: Vec2) -> f32 {
        max_abs_finite(&v.to_array())
    }

    #[inline(always)]
    fn is_finite(v: Vec2) -> bool {
        v.is_finite()
    }

    #[inline(always)]
    fn to_vec3(v: Vec2) -> Vec3 {
        v.extend(0.0)
    }

    #[inline(always)]
    fn origin(t: &Affine2) -> Vec2 {
        t.translation
    }

    #[inline(always)]
    fn y_axis(t: &Affine2) -> Vec2 {
        t.matrix2.y_axis
    }

    #[inline]
    fn stretch_bound(t: &Affine2) -> f32 {
        largest_stretch2(&t.matrix2)
    }

    #[inline(always)]
    fn ball(center: Vec2, radius: f32) -> Circle {
        Circle { center, radius }
    }

    #[inline(always)]
    fn aabb(min: Vec2, max: Vec2) -> Aabb2 {
        Aabb2 { min, max }
    }

    #[inline(always)]
    fn ray_parts(ray: &Ray2) -> (Vec2, Vec2) {
        (ray.origin, ray.dir)
    }

    #[inline]
    fn ray_ball(ray: &Ray2, max_t: f32, center: Vec2, radius: f32) -> Option<f32> {
        ray_circle(ray, max_t, &Circle { center, radius }).map(|hit| hit.t)
    }
}

impl SkeletonSpace for D3 {
    type Vector = Vec3;
    type Transform = Affine3A;
    type Ball = Sphere;
    type Aabb = Aabb3;
    type Ray = Ray3;

    const IDENTITY: Affine3A = Affine3A::IDENTITY;

    #[inline(always)]
    fn splat(s: f32) -> Vec3 {
        Vec3::splat(s)
    }

    #[inline(always)]
    fn dot(a: Vec3, b: Vec3) -> f32 {
        a.dot(b)
    }

    #[inline(always)]
    fn min(a: Vec3, b: Vec3) -> Vec3 {
        a.min(b)
    }

    #[inline(always)]
    fn max(a: Vec3, b: Vec3) -> Vec3 {
        a.max(b)
    }

    #[inline]
    fn max_abs_finite(v: Vec3) -> f32 {
        max_abs_finite(&v.to_array())
    }

    #[inline(always)]
    fn is_finite(v: Vec3) -> bool {
        v.is_finite()
    }

    #[inline(always)]
    fn to_vec3(v: Vec3) -> Vec3 {
        v
    }

    #[inline(always)]
    fn origin(t: &Affine3A) -> Vec3 {
        t.translation.into()
    }

    #[inline(always)]
    fn y_axis(t: &Affine3A) -> Vec3 {
        t.matrix3.y_axis.into()
    }

    #[inline]
    fn stretch_bound(t: &Affine3A) -> f32 {
        stretch_bound3(&t.matrix3)
    }

    #[inline(always)]
    fn ball(center: Vec3, radius: f32) -> Sphere {
        Sphere { center, radius }
    }

    #[inline(always)]
    fn aabb(min: Vec3, max: Vec3) -> Aabb3 {
        Aabb3 { min, max }
    }

    #[inline(always)]
    fn ray_parts(ray: &Ray3) -> (Vec3, Vec3) {
        (ray.origin, ray.dir)
    }

    #[inline]
    fn ray_ball(ray: &Ray3, max_t: f32, center: Vec3, radius: f32) -> Option<f32> {
        ray_sphere(ray, max_t, &Sphere { center, radius }).map(|hit| hit.t)
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;

    /// The largest singular value by brute force: the longest image of 20,000 unit vectors,
    /// in `f64`.
    fn sampled_stretch(columns: &[Vec3]) -> f64 {
        let dim = columns.len();
        let mut best = 0.0f64;
        for i in 0..20_000 {
            let (t, p) = (f64::from(i) * 0.618_034 * std::f64::consts::TAU, f64::from(i) / 20_000.0);
            let d = if dim == 2 {
                [t.cos(), t.sin(), 0.0]
            } else {
                let z = 2.0 * p - 1.0;
                let s = (1.0 - z * z).sqrt();
                [s * t.cos(), s * t.sin(), z]
            };
            let mut image = [0.0f64; 3];
            for (c, &w) in columns.iter().zip(&d) {
                for k in 0..3 {
                    image[k] += f64::from(c[k]) * w;
                }
            }
            best = best.max(image.iter().map(|x| x * x).sum::<f64>().sqrt());
        }
        best
    }

    #[test]
    fn stretch_bounds_cover_the_norm_tightly() {
        let cases2 = [
            Mat2::from_cols(Vec2::new(1.0, 0.5), Vec2::new(-0.3, 2.0)),
            Mat2::from_angle(0.7) * 2.5,
            Mat2::from_diagonal(Vec2::new(0.2, -3.0)),
            Mat2::from_cols(Vec2::new(1.0, 2.0), Vec2::new(2.0, 4.0)),
            Mat2::ZERO,
        ];
        for m in cases2 {
            let exact = sampled_stretch(&[m.x_axis.extend(0.0), m.y_axis.extend(0.0)]);
            let bound = f64::from(largest_stretch2(&m));
            assert!(
                bound >= exact * (1.0 - 1e-8) && bound <= exact * (1.0 + 1e-6) + 1e-30,
                "{m}: {bound} {exact}"
            );
        }
        let r = Mat3A::from_quat(Quat::from_rotation_y(1.1) * Quat::from_rotation_x(0.4));
        let cases3 = [
            r,
            r * 1.5,
            Mat3A::from_diagonal(Vec3::new(1.0, 3.0, 2.0)),
            r * Mat3A::from_diagonal(Vec3::new(1.0, 3.0, 0.5)),
            Mat3A::from_cols(Vec3A::new(1.0, 0.5, 0.0), Vec3A::new(0.0, 2.0, 0.3), Vec3A::new(0.2, 0.0, 0.5)),
        ];
        for m in cases3 {
            let exact = sampled_stretch(&[m.x_axis.into(), m.y_axis.into(), m.z_axis.into()]);
            let bound = f64::from(stretch_bound3(&m));
            // The sampled norm is below the true one by at most a few 1e-5.
            assert!(bound >= exact * (1.0 - 1e-8) && bound <= exact * (1.0 + 1e-4), "{m}: {bound} {exact}");
        }
        assert!(largest_stretch2(&Mat2::from_cols_array(&[f32::NAN; 4])).is_nan());
        assert!(!stretch_bound3(&Mat3A::from_cols_array(&[f32::NAN; 9])).is_finite());
        let huge = Mat3A::from_diagonal(Vec3::new(f32::INFINITY, 1.0, 1.0));
        assert!(!stretch_bound3(&huge).is_finite());
    }
}
