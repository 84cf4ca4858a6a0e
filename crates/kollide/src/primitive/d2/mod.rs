//! 2D twins of the primitive tests: point in polygon, segments, circles, rays.
//!
//! # Ray casts
//!
//! The contract of the [3D casts](crate::primitive#ray-casts), in the plane:
//!
//! - **Valid rays.** `origin` must be finite and `dir · dir` a positive normal `f32`
//!   (`f32::MIN_POSITIVE ≤ dir · dir ≤ f32::MAX`); any other ray, in particular a zero `dir`, gets
//!   `None`. `max_t` may be `+∞`; a negative or NaN `max_t` gets `None`. Hits have `t ∈ [0, max_t]`
//!   in units of `dir`.
//! - **Solids.** Circles, boxes and polygons are closed solids: a ray whose origin lies in one
//!   (inside or on its boundary) hits at `t = 0` with normal `-dir / |dir|`; otherwise the hit is the
//!   first boundary point with the outward unit normal there (`normal · dir ≤ 0`, up to rounding for
//!   tangent hits). Touching counts.
//! - **Bad shapes.** Non-finite coordinates or a negative size make a shape empty: `None`.
//! - **Range.** Coordinates are assumed small enough that their squares and products stay finite
//!   (below about 1e18); beyond that a cast may miss, or report a hit that is finite and within
//!   `[0, max_t]` but not meaningful.
//!
//! # Point in polygon
//!
//! A polygon is a `&[Vec2]` vertex loop, implicitly closed (the last vertex joins the first), in
//! either winding. Repeated vertices (zero-length edges) are allowed and change nothing. Every
//! side test is the exact orientation predicate [`crate::primitive::orient2d`], so points off the
//! boundary are classified exactly for the given `f32` coordinates.
//!
//! **Self-intersecting loops.** [`point_in_polygon_crossing`] uses the even-odd rule (inside when a
//! ray from the point crosses the loop an odd number of times) and [`point_in_polygon_winding`]
//! the nonzero rule (inside when the loop winds around the point a nonzero number of times). They
//! agree on simple polygons. For a pentagram drawn as one loop, the central pentagon has winding
//! number ±2: inside by the nonzero rule, outside by the even-odd rule. [`point_in_convex_polygon`]
//! assumes a convex loop; for any other loop its answer is unspecified (but it does not panic).
//!
//! **Points on the boundary.** [`point_in_convex_polygon`] counts the boundary as inside (closed).
//! The crossing and winding tests use one half-open rule instead, the one that makes polygons tile
//! the plane: a point exactly on an edge or a vertex is classified as the point displaced by an
//! infinitesimal amount to the right (`+x`), and then, if still ambiguous, upward (`+y`). In
//! practice: an edge crossing the horizontal line through `p` counts only if `p` is strictly left
//! of it, and a vertex at exactly `p.y` counts as below the line. Consequently a point on an edge
//! shared by two adjacent polygons of a tiling (sharing the edge with opposite orientations) is
//! inside exactly one of them, and a point on the boundary of a single polygon is inside on its
//! left and bottom sides and outside on its right and top sides (for a counter-clockwise square:
//! its left and bottom edges and its bottom-left corner belong to it).
//!
//! **Bad input.** Fewer than 3 vertices: never inside (winding number 0). Any non-finite
//! coordinate (NaN, ±∞) in the point or the polygon: `false` (winding number 0).

mod decompose;
mod overlap;
mod polygon;
mod ray;

pub use decompose::*;
pub use overlap::*;
pub use polygon::*;
pub use ray::*;
