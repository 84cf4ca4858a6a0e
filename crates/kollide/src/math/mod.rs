//! Math foundation: glam re-exports, rigid poses, rays, tests and maps for affine placements, and
//! the shared tolerances.
//!
//! kollide computes in `f32` with glam types. Rigid placements are [`Pose2`] and [`Pose3`];
//! general affine placements (non-uniform scale, shear, reflection) use glam's [`Affine2`] and
//! [`Affine3A`] directly; [`is_similarity`], [`is_rigid`], [`map_normal`] and [`largest_stretch`]
//! tell what such a map does to shapes.

mod affine;
mod pose;
mod ray;
pub mod tolerances;

pub use affine::{both_rigid, is_rigid, is_similarity, largest_stretch, map_normal};
pub use glam::{Affine2, Affine3A, Mat2, Mat3, Mat3A, Mat4, Quat, Vec2, Vec3, Vec3A, Vec4};
pub use pose::{Pose2, Pose3, Rot2};
pub use ray::{Ray2, Ray3};
