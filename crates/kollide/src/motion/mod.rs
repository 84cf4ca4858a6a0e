//! Motion: how far things may move before they collide.
//!
//! This layer sits on top of the rest of the library (it may use everything to its left in
//! ARCHITECTURE.md's order). It will hold time-of-impact queries, separating-axis motion
//! resolution and character movers; for now it holds the separating-axis motion resolution of
//! 2D convex polygons ([`resolve_motion2`], against many obstacles through a broad phase
//! [`resolve_motion_among2`]).

mod sat2;

pub use sat2::{
    MAX_COORDINATE, MAX_RESOLUTION_PASSES, MOTION_SKIN, MotionResolution2, SatAxes, SatError,
    resolve_motion_among2, resolve_motion2,
};
