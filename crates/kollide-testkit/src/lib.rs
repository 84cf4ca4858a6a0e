//! Test support for kollide: seeded random generators and brute-force references that the
//! accelerated and closed-form queries are checked against.
//!
//! References here are deliberately simple and independent of the code they check (sampling,
//! exhaustive axis enumeration, exact integer arithmetic), never a call into the same routine.

pub mod random;
pub mod reference_bounds;
pub mod reference_convex;
pub mod reference_field;
pub mod reference_mesh;
pub mod reference_mesh_mesh;
pub mod reference_primitive;
pub mod reference_query;
pub mod reference_ray;
pub mod reference_sphere_set;
pub mod reference_tri_tri;
pub mod shapes;

use proptest::test_runner::{Config, RngAlgorithm, RngSeed};

/// A proptest configuration with a fixed seed (runs are reproducible) and no failure files.
pub fn proptest_config(cases: u32) -> Config {
    Config {
        cases,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x6b6f_6c6c_6964_6521),
        failure_persistence: None,
        ..Config::default()
    }
}
