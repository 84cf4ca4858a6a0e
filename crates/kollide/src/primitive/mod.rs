//! The "book" layer: pure geometric tests on raw points and bounding volumes.
//!
//! Naming: `closest_*` returns closest points, `test_*` answers a yes/no overlap question,
//! `intersect_*` returns where two things meet, `classify_*` says on which side something lies,
//! `ray_*` casts a ray. 2D twins live in [`d2`].

mod closest;
pub mod d2;
mod overlap;
mod plane;
mod predicates;
mod ray;
mod ray_triangle;
mod tri_tri;

pub use closest::*;
pub use overlap::*;
pub use plane::*;
pub use predicates::*;
pub use ray::*;
pub use ray_triangle::*;
pub use tri_tri::*;
