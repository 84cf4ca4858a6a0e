//! The tolerances named by the conventions and shared across layers (see `docs/conventions.md`,
//! *Robustness and tolerances*). Both are dimensionless (they bound sines and cosines), so they
//! hold at any scale.
//!
//! A tolerance that belongs to one algorithm is a named constant beside it, documented by the
//! functions whose answers it changes: the `1e-5` of [`is_similarity`](super::is_similarity) and
//! [`is_rigid`](super::is_rigid), the narrow phase's manifold and mesh-edge angles
//! (`mesh::ACTIVE_EDGE_ANGLE`), and so on.

/// Relative tolerance of `f32` results (`8 ε`, a few roundings): quantities of magnitude `m`
/// closer than `REL_EPSILON · m` are not told apart. `primitive::Plane3::from_points` refuses
/// three points as collinear when the sine of the angle at the first is below it.
pub const REL_EPSILON: f32 = 8.0 * f32::EPSILON;

/// Added to the absolute rotation terms of the OBB/OBB separating-axis test
/// (`bounds::Obb3::overlaps`) so that the cross product of two nearly parallel edges (a near-zero
/// axis) cannot report a false separation (Gottschalk, Lin, Manocha 1996; Ericson, *Real-Time
/// Collision Detection*, §4.4.1).
pub const SAT_PARALLEL_EPSILON: f32 = 1e-6;
