//! Every tolerance kollide uses, in one place. See `docs/conventions.md`.
//!
//! kollide computes in `f32`. Absolute tolerances assume coordinates of order 1 to 10⁴ (metres in a
//! game level); where a test must work at any scale, it uses a relative tolerance scaled by the
//! magnitude of its inputs instead.

/// Relative tolerance for comparing quantities computed in `f32` from inputs of magnitude `m`:
/// two results closer than `REL_EPSILON * m` are treated as equal.
pub const REL_EPSILON: f32 = 8.0 * f32::EPSILON;

/// Added to the absolute rotation terms of the OBB/OBB separating-axis test so that the cross
/// product of two nearly parallel edges (a near-zero axis) cannot report a false separation
/// (Gottschalk, Lin, Manocha 1996; Ericson, *Real-Time Collision Detection*, §4.4.1).
pub const SAT_PARALLEL_EPSILON: f32 = 1e-6;

/// Squared length below which a direction is treated as zero (a degenerate ray, a zero-area
/// triangle normal, a zero-length segment).
pub const DEGENERATE_LENGTH_SQUARED: f32 = 1e-24;
