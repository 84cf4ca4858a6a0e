//! Test support for kollide: seeded random generators and brute-force references that the
//! accelerated and closed-form queries are checked against.
//!
//! References here are deliberately simple and independent of the code they check (sampling,
//! exhaustive axis enumeration, exact integer arithmetic), never a call into the same routine.

pub mod random;
pub mod reference_bounds;
pub mod reference_convex;
pub mod reference_convex2;
pub mod reference_field;
pub mod reference_mesh;
pub mod reference_mesh_mesh;
pub mod reference_primitive;
pub mod reference_query;
pub mod reference_ray;
pub mod reference_sat;
pub mod reference_shape2;
pub mod reference_skeleton;
pub mod reference_sphere_set;
pub mod reference_tri_tri;
pub mod reference_world;
pub mod reference_world2;
pub mod shapes;
pub mod topojson;

use proptest::test_runner::{Config, RngAlgorithm, RngSeed};

/// The number of random cases a property suite runs: `n` times the scale factor in the
/// `KOLLIDE_CASES` environment variable (a positive number, 1 when unset; at least one case).
///
/// Every property suite sizes its loops (and [`proptest_config`] its runs) through this one
/// function, so `KOLLIDE_CASES=10 cargo test ...` is a long run of every suite at ten times its
/// default strength and `KOLLIDE_CASES=0.1` a quick one. Suites whose brute-force reference is too
/// costly for 10,000 cases in CI pass a smaller default; ARCHITECTURE.md lists them.
///
/// # Panics
///
/// If `KOLLIDE_CASES` is set but is not a positive finite number (a typo must not silently run
/// the default count).
pub fn cases(n: usize) -> usize {
    let scale = match std::env::var("KOLLIDE_CASES") {
        Ok(s) => match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 => x,
            _ => panic!("KOLLIDE_CASES={s:?}: expected a positive scale factor such as 0.1 or 10"),
        },
        Err(_) => 1.0,
    };
    ((n as f64 * scale).round() as usize).max(1)
}

/// A proptest configuration with a fixed seed (runs are reproducible) and no failure files;
/// `cases` is scaled by [`cases`] (the `KOLLIDE_CASES` factor).
pub fn proptest_config(cases: u32) -> Config {
    Config {
        cases: crate::cases(cases as usize).min(u32::MAX as usize) as u32,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x6b6f_6c6c_6964_6521),
        failure_persistence: None,
        ..Config::default()
    }
}
