use glam::{Affine2, Affine3A, Mat2, Quat, Vec2, Vec3};
use std::ops::Mul;

/// A 2D rotation stored as the cosine and sine of its angle.
///
/// Composition and application need no trigonometry; only [`Rot2::from_angle`] and
/// [`Rot2::angle`] call `sin_cos` / `atan2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rot2 {
    pub cos: f32,
    pub sin: f32,
}

impl Rot2 {
    pub const IDENTITY: Self = Self { cos: 1.0, sin: 0.0 };

    /// Rotation by `angle` radians, counter-clockwise.
    pub fn from_angle(angle: f32) -> Self {
        let (sin, cos) = angle.sin_cos();
        Self { cos, sin }
    }

    /// The angle in `(-π, π]`.
    pub fn angle(self) -> f32 {
        self.sin.atan2(self.cos)
    }

    /// Rotates `v` counter-clockwise by this rotation.
    #[inline]
    pub fn rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(self.cos * v.x - self.sin * v.y, self.sin * v.x + self.cos * v.y)
    }

    /// Rotates `v` by the inverse of this rotation.
    #[inline]
    pub fn inverse_rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(self.cos * v.x + self.sin * v.y, -self.sin * v.x + self.cos * v.y)
    }

    /// The inverse rotation.
    #[inline]
    pub fn inverse(self) -> Self {
        Self { cos: self.cos, sin: -self.sin }
    }

    /// The rotation matrix (columns are the rotated x and y axes).
    pub fn to_mat2(self) -> Mat2 {
        Mat2::from_cols(Vec2::new(self.cos, self.sin), Vec2::new(-self.sin, self.cos))
    }
}

impl Mul for Rot2 {
    type Output = Rot2;
    /// `a * b` applies `b` first, then `a`.
    #[inline]
    fn mul(self, rhs: Rot2) -> Rot2 {
        Rot2 { cos: self.cos * rhs.cos - self.sin * rhs.sin, sin: self.sin * rhs.cos + self.cos * rhs.sin }
    }
}

/// A rigid 2D placement: rotate, then translate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose2 {
    pub rotation: Rot2,
    pub translation: Vec2,
}

impl Pose2 {
    pub const IDENTITY: Self = Self { rotation: Rot2::IDENTITY, translation: Vec2::ZERO };

    pub fn new(translation: Vec2, angle: f32) -> Self {
        Self { rotation: Rot2::from_angle(angle), translation }
    }

    #[inline]
    pub fn transform_point(&self, p: Vec2) -> Vec2 {
        self.rotation.rotate(p) + self.translation
    }

    #[inline]
    pub fn transform_vector(&self, v: Vec2) -> Vec2 {
        self.rotation.rotate(v)
    }

    #[inline]
    pub fn inverse_transform_point(&self, p: Vec2) -> Vec2 {
        self.rotation.inverse_rotate(p - self.translation)
    }

    pub fn inverse(&self) -> Self {
        let rotation = self.rotation.inverse();
        Self { rotation, translation: -rotation.rotate(self.translation) }
    }

    pub fn to_affine(&self) -> Affine2 {
        Affine2::from_mat2_translation(self.rotation.to_mat2(), self.translation)
    }
}

impl Mul for Pose2 {
    type Output = Pose2;
    /// `a * b` places by `b` first, then by `a` (so `a_from_c = a_from_b * b_from_c`).
    #[inline]
    fn mul(self, rhs: Pose2) -> Pose2 {
        Pose2 { rotation: self.rotation * rhs.rotation, translation: self.transform_point(rhs.translation) }
    }
}

/// A rigid 3D placement: rotate by a unit quaternion, then translate.
///
/// The rotation must be normalized; constructors that take one do not renormalize.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose3 {
    pub rotation: Quat,
    pub translation: Vec3,
}

impl Pose3 {
    pub const IDENTITY: Self = Self { rotation: Quat::IDENTITY, translation: Vec3::ZERO };

    pub fn new(translation: Vec3, rotation: Quat) -> Self {
        Self { rotation, translation }
    }

    pub fn from_translation(translation: Vec3) -> Self {
        Self { rotation: Quat::IDENTITY, translation }
    }

    pub fn from_rotation(rotation: Quat) -> Self {
        Self { rotation, translation: Vec3::ZERO }
    }

    #[inline]
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    #[inline]
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation * v
    }

    #[inline]
    pub fn inverse_transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation.inverse() * (p - self.translation)
    }

    #[inline]
    pub fn inverse_transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation.inverse() * v
    }

    pub fn inverse(&self) -> Self {
        let rotation = self.rotation.inverse();
        Self { rotation, translation: -(rotation * self.translation) }
    }

    /// The pose of `other` expressed in this pose's frame: `self⁻¹ · other`.
    pub fn relative(&self, other: &Pose3) -> Pose3 {
        self.inverse() * *other
    }

    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_rotation_translation(self.rotation, self.translation)
    }
}

impl Mul for Pose3 {
    type Output = Pose3;
    /// `a * b` places by `b` first, then by `a` (so `a_from_c = a_from_b * b_from_c`).
    #[inline]
    fn mul(self, rhs: Pose3) -> Pose3 {
        Pose3 { rotation: self.rotation * rhs.rotation, translation: self.transform_point(rhs.translation) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose3_inverse_round_trips() {
        let pose =
            Pose3::new(Vec3::new(1.0, -2.0, 3.0), Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0));
        let p = Vec3::new(0.5, 4.0, -7.0);
        let back = pose.inverse().transform_point(pose.transform_point(p));
        assert!((back - p).length() < 1e-5);
        assert!((pose.inverse_transform_point(pose.transform_point(p)) - p).length() < 1e-5);
        let composed = (pose * pose.inverse()).transform_point(p);
        assert!((composed - p).length() < 1e-5);
    }

    #[test]
    fn pose3_matches_affine() {
        let pose = Pose3::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.7));
        let p = Vec3::new(-3.0, 0.25, 9.0);
        assert!((pose.to_affine().transform_point3(p) - pose.transform_point(p)).length() < 1e-5);
    }

    #[test]
    fn pose2_composition_and_inverse() {
        let a = Pose2::new(Vec2::new(1.0, 2.0), 0.5);
        let b = Pose2::new(Vec2::new(-3.0, 0.5), -1.25);
        let p = Vec2::new(0.3, -0.7);
        let ab = (a * b).transform_point(p);
        assert!((ab - a.transform_point(b.transform_point(p))).length() < 1e-5);
        assert!((a.inverse().transform_point(a.transform_point(p)) - p).length() < 1e-5);
        assert!((a.inverse_transform_point(a.transform_point(p)) - p).length() < 1e-5);
        assert!((a.to_affine().transform_point2(p) - a.transform_point(p)).length() < 1e-5);
        assert!((Rot2::from_angle(0.5).angle() - 0.5).abs() < 1e-6);
    }
}
