//! kollide: fast, exact collision detection in 2D and 3D.
//!
//! The crate is layered; each layer uses only the ones above it in this list:
//!
//! - [`math`]: glam re-exports, rigid poses, rays, affine-map helpers, tolerances.
//! - [`bounds`]: bounding volumes ([`bounds::Aabb3`], [`bounds::Sphere`], [`bounds::Obb3`],
//!   [`bounds::Kdop`], and their 2D twins).
//! - [`primitive`]: pure geometric tests on raw points: closest points, overlap tests, exact
//!   predicates, ray casts ([`primitive::RayHit3`], the one 3D ray hit).
//! - [`shape`]: convex shapes (ball, capsule, cuboid, cylinder, cone, triangle, convex hull,
//!   rounded; and the 2D `Ball2`, `Capsule2`, `Cuboid2`, `Segment2`, `Triangle2`,
//!   `ConvexPolygon2`) with support functions and closed-form single-shape queries under affine
//!   maps.
//! - [`bvh`]: 4-wide bounding volume hierarchies over boxes (binned SAH, SIMD traversal, pair
//!   descent).
//! - [`broad`]: broad phases over changing sets of boxes (dynamic tree, sweep and prune, spatial
//!   hash, brute force), one interface in 2D and 3D.
//! - [`skeleton`]: animated skeletons carrying balls and capsules, updated once a frame into flat
//!   arrays, and many projectiles against many skeletons.
//! - [`mesh`]: triangle meshes with their BVH, placed instances, mesh against mesh, sphere sets,
//!   file loading and topology.
//! - [`narrow`]: convex pairs in 3D and 2D: GJK distance, EPA penetration, separating-axis fast
//!   paths, contact manifolds, ray and shape casts; convex shapes against meshes; 2D chains
//!   without ghost contacts.
//! - [`field`]: signed-distance and density fields, grids sampled from meshes, spatial
//!   signatures, point sets and fields against fields.
//! - [`query`]: one contract for every pair of shape kinds ([`query::Shape`]: convex, mesh,
//!   sphere set, field, compound; [`query::Shape2`]: convex, compound (concave polygons with
//!   holes), polyline, triangle soup) and every pair query, with errors for bad input.
//! - [`world`]: collision worlds (`World3`, `World2`) written once over a dimension trait:
//!   handles, filters, steps with events and manifolds, scene queries with visitors.
//! - [`motion`]: seed 003's separating-axis motion resolution of 2D convex polygons.
//!
//! Conventions (frames, signs, tolerances) are in `docs/conventions.md`.

pub mod bounds;
pub mod broad;
pub mod bvh;
pub mod field;
pub mod math;
pub mod mesh;
pub mod motion;
pub mod narrow;
pub mod primitive;
pub mod query;
pub mod shape;
pub mod skeleton;
pub mod world;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
