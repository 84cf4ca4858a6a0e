//! 2D twins of the primitive tests: point in polygon, segments, circles, rays.

mod overlap;
pub mod polygon;
mod ray;

pub use overlap::*;
pub use polygon::*;
pub use ray::*;
