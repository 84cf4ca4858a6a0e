//! Closed-form fields and their combinations.

use super::{Field3, FieldError};
use crate::bounds::Aabb3;
use crate::primitive::closest_point_segment;
use glam::{Affine3A, Vec2, Vec3, Vec3A};

/// Unit vector of `v`, or zero for a zero (or non-finite) `v`.
#[inline]
fn unit_or_zero(v: Vec3) -> Vec3 {
    v.normalize_or_zero()
}

/// `Err(InvalidParameter(what))` unless `ok`.
fn check(ok: bool, what: &'static str) -> Result<(), FieldError> {
    if ok { Ok(()) } else { Err(FieldError::InvalidParameter(what)) }
}

/// The exact signed distance to a ball.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BallField {
    pub center: Vec3,
    pub radius: f32,
}

impl BallField {
    /// A ball; `Err` for a non-finite center or a radius that is not finite and positive.
    pub fn new(center: Vec3, radius: f32) -> Result<Self, FieldError> {
        check(center.is_finite(), "ball center")?;
        check(radius.is_finite() && radius > 0.0, "ball radius")?;
        Ok(Self { center, radius })
    }
}

impl Field3 for BallField {
    fn value(&self, p: Vec3) -> f32 {
        (p - self.center).length() - self.radius
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let d = p - self.center;
        (d.length() - self.radius, unit_or_zero(d))
    }

    fn lipschitz(&self) -> f32 {
        1.0
    }

    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        Some(Aabb3::from_center_half_extents(self.center, Vec3::splat(self.radius + level)))
    }
}

/// The exact signed distance to an axis-aligned box (rotate it with [`PlacedField`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CuboidField {
    pub center: Vec3,
    pub half_extents: Vec3,
}

impl CuboidField {
    /// A box; `Err` for a non-finite center or half extents that are not finite and positive.
    pub fn new(center: Vec3, half_extents: Vec3) -> Result<Self, FieldError> {
        check(center.is_finite(), "cuboid center")?;
        check(half_extents.is_finite() && half_extents.min_element() > 0.0, "cuboid half extents")?;
        Ok(Self { center, half_extents })
    }
}

impl Field3 for CuboidField {
    fn value(&self, p: Vec3) -> f32 {
        // Per axis, how far beyond the face `p` is (negative inside): outside, the distance is
        // the length of the positive parts; inside, the largest (least negative) one.
        let q = (p - self.center).abs() - self.half_extents;
        q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let d = p - self.center;
        let q = d.abs() - self.half_extents;
        let outside = q.max(Vec3::ZERO);
        let sign = Vec3::ONE.copysign(d);
        if q.max_element() > 0.0 {
            let length = outside.length();
            (length, outside / length * sign)
        } else {
            // Inside: the nearest face's normal (the first of equally near ones).
            let axis = if q.x >= q.y && q.x >= q.z {
                0
            } else if q.y >= q.z {
                1
            } else {
                2
            };
            let mut gradient = Vec3::ZERO;
            gradient[axis] = sign[axis];
            (q[axis], gradient)
        }
    }

    fn lipschitz(&self) -> f32 {
        1.0
    }

    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        Some(Aabb3::from_center_half_extents(self.center, self.half_extents + Vec3::splat(level)))
    }
}

/// The exact signed distance to a capsule: the points within `radius` of the segment `a → b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CapsuleField {
    pub a: Vec3,
    pub b: Vec3,
    pub radius: f32,
}

impl CapsuleField {
    /// A capsule (`a == b` is a ball); `Err` for non-finite ends or a radius that is not finite
    /// and positive.
    pub fn new(a: Vec3, b: Vec3, radius: f32) -> Result<Self, FieldError> {
        check(a.is_finite() && b.is_finite(), "capsule segment")?;
        check(radius.is_finite() && radius > 0.0, "capsule radius")?;
        Ok(Self { a, b, radius })
    }
}

impl Field3 for CapsuleField {
    fn value(&self, p: Vec3) -> f32 {
        (p - closest_point_segment(p, self.a, self.b).point).length() - self.radius
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let d = p - closest_point_segment(p, self.a, self.b).point;
        (d.length() - self.radius, unit_or_zero(d))
    }

    fn lipschitz(&self) -> f32 {
        1.0
    }

    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        let r = Vec3::splat(self.radius + level);
        Some(Aabb3::new(self.a.min(self.b) - r, self.a.max(self.b) + r))
    }
}

/// The exact signed distance to a torus around the z axis through `center`: the points within
/// `minor` of the circle of radius `major` in the plane `z = center.z`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TorusField {
    pub center: Vec3,
    pub major: f32,
    pub minor: f32,
}

impl TorusField {
    /// A torus; `Err` for a non-finite center or radii that are not finite with
    /// `0 < minor` and `0 ≤ major`.
    pub fn new(center: Vec3, major: f32, minor: f32) -> Result<Self, FieldError> {
        check(center.is_finite(), "torus center")?;
        check(major.is_finite() && major >= 0.0, "torus major radius")?;
        check(minor.is_finite() && minor > 0.0, "torus minor radius")?;
        Ok(Self { center, major, minor })
    }
}

impl Field3 for TorusField {
    fn value(&self, p: Vec3) -> f32 {
        let d = p - self.center;
        Vec2::new(d.truncate().length() - self.major, d.z).length() - self.minor
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        // In the half-plane through the axis and `p`, the torus is a disc around (major, 0).
        let d = p - self.center;
        let radial = d.truncate().length();
        let q = Vec2::new(radial - self.major, d.z);
        let length = q.length();
        let out = unit_or_zero(Vec3::new(q.x, 0.0, q.y));
        // Back to 3D: the in-plane x axis is the radial direction (any one on the axis itself).
        let radial_dir = if radial > 0.0 { d.truncate() / radial } else { Vec2::X };
        (length - self.minor, Vec3::new(out.x * radial_dir.x, out.x * radial_dir.y, out.z))
    }

    fn lipschitz(&self) -> f32 {
        1.0
    }

    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        let r = self.major + self.minor + level;
        Some(Aabb3::from_center_half_extents(self.center, Vec3::new(r, r, self.minor + level)))
    }
}

/// One bump of a [`MetaballField`]: density `weight · (1 − d²/radius²)³` within `radius` of
/// `center`, zero beyond (Wyvill's soft-object kernel: smooth, with compact support).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metaball {
    pub center: Vec3,
    pub radius: f32,
    pub weight: f32,
}

/// A metaball solid (a blobby density): where the summed density of the balls exceeds
/// `threshold`. The field is `threshold − density`, so it is negative inside as every field here;
/// it is not a distance (its slope varies), and its Lipschitz bound is the sum of each kernel's
/// steepest slope, `weight · 1.7173 / radius`.
#[derive(Clone, Debug, PartialEq)]
pub struct MetaballField {
    balls: Vec<Metaball>,
    threshold: f32,
    lipschitz: f32,
}

/// The kernel's steepest slope times its radius: `max 6x(1 − x²)²` over `x ∈ [0, 1]`, reached at
/// `x = 1/√5`, is `96 / (25√5) ≈ 1.71730`; rounded up.
const KERNEL_SLOPE: f32 = 1.7174;

impl MetaballField {
    /// `Err` for an empty set of balls, a ball with a non-finite center, a radius that is not
    /// finite and positive or a weight that is not finite and non-negative, or a threshold that is
    /// not finite and positive.
    pub fn new(balls: Vec<Metaball>, threshold: f32) -> Result<Self, FieldError> {
        check(!balls.is_empty(), "metaballs: no balls")?;
        for ball in &balls {
            check(ball.center.is_finite(), "metaball center")?;
            check(ball.radius.is_finite() && ball.radius > 0.0, "metaball radius")?;
            check(ball.weight.is_finite() && ball.weight >= 0.0, "metaball weight")?;
        }
        check(threshold.is_finite() && threshold > 0.0, "metaball threshold")?;
        let lipschitz = balls.iter().map(|b| b.weight * KERNEL_SLOPE / b.radius).sum();
        Ok(Self { balls, threshold, lipschitz })
    }

    pub fn balls(&self) -> &[Metaball] {
        &self.balls
    }

    pub fn threshold(&self) -> f32 {
        self.threshold
    }
}

impl Field3 for MetaballField {
    fn value(&self, p: Vec3) -> f32 {
        let density: f32 = self
            .balls
            .iter()
            .map(|b| {
                let x = 1.0 - (p - b.center).length_squared() / (b.radius * b.radius);
                if x > 0.0 { b.weight * x * x * x } else { 0.0 }
            })
            .sum();
        self.threshold - density
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let mut density = 0.0;
        let mut slope = Vec3::ZERO;
        for b in &self.balls {
            let d = p - b.center;
            let r2 = b.radius * b.radius;
            let x = 1.0 - d.length_squared() / r2;
            if x > 0.0 {
                density += b.weight * x * x * x;
                // d/dp of w x³ with x = 1 − |d|²/r² is w · 3x² · (−2d / r²).
                slope += d * (-6.0 * b.weight * x * x / r2);
            }
        }
        (self.threshold - density, -slope)
    }

    fn lipschitz(&self) -> f32 {
        self.lipschitz
    }

    /// Outside every ball's box the density is zero and the field equals the threshold, so there
    /// is a box for levels below the threshold only.
    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        (level < self.threshold).then(|| {
            self.balls.iter().fold(Aabb3::EMPTY, |acc, b| {
                acc.merge(&Aabb3::from_center_half_extents(b.center, Vec3::splat(b.radius)))
            })
        })
    }
}

/// The union of two solids: `min(a, b)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Union<A, B>(pub A, pub B);

impl<A: Field3, B: Field3> Field3 for Union<A, B> {
    fn value(&self, p: Vec3) -> f32 {
        self.0.value(p).min(self.1.value(p))
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let (a, b) = (self.0.value_and_gradient(p), self.1.value_and_gradient(p));
        if b.0 < a.0 { b } else { a }
    }

    fn lipschitz(&self) -> f32 {
        self.0.lipschitz().max(self.1.lipschitz())
    }

    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        Some(self.0.bounds_beyond(level)?.merge(&self.1.bounds_beyond(level)?))
    }
}

/// The intersection of two solids: `max(a, b)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Intersection<A, B>(pub A, pub B);

impl<A: Field3, B: Field3> Field3 for Intersection<A, B> {
    fn value(&self, p: Vec3) -> f32 {
        self.0.value(p).max(self.1.value(p))
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let (a, b) = (self.0.value_and_gradient(p), self.1.value_and_gradient(p));
        if b.0 > a.0 { b } else { a }
    }

    fn lipschitz(&self) -> f32 {
        self.0.lipschitz().max(self.1.lipschitz())
    }

    /// Beyond either operand's box the maximum exceeds `level`: the overlap of the two boxes (an
    /// inverted box when they are disjoint: the solid is empty).
    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        match (self.0.bounds_beyond(level), self.1.bounds_beyond(level)) {
            (Some(a), Some(b)) => Some(Aabb3::new(a.min.max(b.min), a.max.min(b.max))),
            (a, b) => a.or(b),
        }
    }
}

/// Solid `a` with solid `b` cut away: `max(a, −b)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Subtraction<A, B>(pub A, pub B);

impl<A: Field3, B: Field3> Field3 for Subtraction<A, B> {
    fn value(&self, p: Vec3) -> f32 {
        self.0.value(p).max(-self.1.value(p))
    }

    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let a = self.0.value_and_gradient(p);
        let (b, gb) = self.1.value_and_gradient(p);
        if -b > a.0 { (-b, -gb) } else { a }
    }

    fn lipschitz(&self) -> f32 {
        self.0.lipschitz().max(self.1.lipschitz())
    }

    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        self.0.bounds_beyond(level)
    }
}

/// The union of two solids with the crease between them filled: the quadratic smooth minimum
/// `min(a, b) − u² / (4k)` with `u = max(k − |a − b|, 0)` (Quilez, "smooth minimum"), which
/// differs from `min(a, b)` only where the two values are within `k` of each other, and by at most
/// `k / 4`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SmoothUnion<A, B> {
    pub a: A,
    pub b: B,
    /// The blend width `k > 0`, in field units.
    pub k: f32,
}

impl<A: Field3, B: Field3> SmoothUnion<A, B> {
    /// `Err` for a blend width that is not finite and positive.
    pub fn new(a: A, b: B, k: f32) -> Result<Self, FieldError> {
        check(k.is_finite() && k > 0.0, "smooth union blend width")?;
        Ok(Self { a, b, k })
    }
}

impl<A: Field3, B: Field3> Field3 for SmoothUnion<A, B> {
    fn value(&self, p: Vec3) -> f32 {
        let (a, b) = (self.a.value(p), self.b.value(p));
        let u = (self.k - (a - b).abs()).max(0.0);
        a.min(b) - u * u / (4.0 * self.k)
    }

    /// With `u = k − |a − b|` (positive in the blend), the derivative of `min − u²/(4k)` is the
    /// convex combination `(1 − w) ∇min + w ∇max` with `w = u / (2k) ∈ [0, ½]`.
    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let (a, ga) = self.a.value_and_gradient(p);
        let (b, gb) = self.b.value_and_gradient(p);
        let ((low, g_low), g_high) = if a <= b { ((a, ga), gb) } else { ((b, gb), ga) };
        let u = (self.k - (a - b).abs()).max(0.0);
        let w = u / (2.0 * self.k);
        (low - u * u / (4.0 * self.k), g_low * (1.0 - w) + g_high * w)
    }

    /// The gradient is a convex combination of the operands' gradients.
    fn lipschitz(&self) -> f32 {
        self.a.lipschitz().max(self.b.lipschitz())
    }

    /// The value is at least `min(a, b) − k/4`, so it exceeds `level` beyond both operands' boxes
    /// for `level + k/4`.
    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        let level = level + 0.25 * self.k;
        Some(self.a.bounds_beyond(level)?.merge(&self.b.bounds_beyond(level)?))
    }
}

/// A field placed in the world by an invertible affine map: `value(p) = field(to_local(p))`.
///
/// The solid is mapped exactly, whatever the map (a ball under non-uniform scale is an ellipsoid).
/// Values stay in the field's own units, so under scaling they are no longer world distances:
/// signs, the surface and the gradient direction are exact, and the Lipschitz bound grows by the
/// norm of the inverse map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedField<F> {
    field: F,
    to_world: Affine3A,
    to_local: Affine3A,
    lipschitz: f32,
}

impl<F: Field3> PlacedField<F> {
    /// `Err(NotInvertible)` for a map that is singular or has a non-finite entry.
    pub fn new(field: F, to_world: Affine3A) -> Result<Self, FieldError> {
        let det = to_world.matrix3.determinant();
        if !to_world.is_finite() || !(det.abs() > 0.0) {
            return Err(FieldError::NotInvertible);
        }
        let to_local = to_world.inverse();
        if !to_local.is_finite() {
            return Err(FieldError::NotInvertible);
        }
        // The Frobenius norm bounds the spectral norm of the inverse's linear part.
        let m = to_local.matrix3;
        let frobenius =
            (m.x_axis.length_squared() + m.y_axis.length_squared() + m.z_axis.length_squared()).sqrt();
        let lipschitz = field.lipschitz() * frobenius;
        Ok(Self { field, to_world, to_local, lipschitz })
    }

    pub fn field(&self) -> &F {
        &self.field
    }

    pub fn to_world(&self) -> &Affine3A {
        &self.to_world
    }
}

impl<F: Field3> Field3 for PlacedField<F> {
    fn value(&self, p: Vec3) -> f32 {
        self.field.value(self.to_local.transform_point3(p))
    }

    /// The chain rule: `∇(f ∘ L)(p) = Lᵀ ∇f(L p)` for the inverse's linear part `L`.
    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let (value, gradient) = self.field.value_and_gradient(self.to_local.transform_point3(p));
        (value, Vec3::from(self.to_local.matrix3.transpose() * Vec3A::from(gradient)))
    }

    fn lipschitz(&self) -> f32 {
        self.lipschitz
    }

    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        Some(self.field.bounds_beyond(level)?.transformed(&self.to_world))
    }
}
