//! Seeded random geometry for tests and benchmarks.

use glam::{Affine3A, Mat3, Quat, Vec2, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generator every test and benchmark uses: ChaCha8, reproducible across platforms.
pub type TestRng = ChaCha8Rng;

/// A generator seeded with `seed`.
pub fn rng(seed: u64) -> TestRng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A point with every coordinate uniform in `[-half, half)`.
pub fn point3(rng: &mut TestRng, half: f32) -> Vec3 {
    Vec3::new(rng.random_range(-half..half), rng.random_range(-half..half), rng.random_range(-half..half))
}

/// A point with every coordinate uniform in `[-half, half)`.
pub fn point2(rng: &mut TestRng, half: f32) -> Vec2 {
    Vec2::new(rng.random_range(-half..half), rng.random_range(-half..half))
}

/// A uniformly distributed unit vector.
pub fn unit3(rng: &mut TestRng) -> Vec3 {
    loop {
        let v = point3(rng, 1.0);
        let len2 = v.length_squared();
        if len2 > 1e-4 && len2 <= 1.0 {
            return v / len2.sqrt();
        }
    }
}

/// A uniformly distributed rotation.
pub fn rotation3(rng: &mut TestRng) -> Quat {
    // Shoemake's method: uniform on the unit 3-sphere of quaternions.
    let (u1, u2, u3): (f32, f32, f32) = (rng.random(), rng.random(), rng.random());
    let tau = std::f32::consts::TAU;
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    Quat::from_xyzw(a * (tau * u2).sin(), a * (tau * u2).cos(), b * (tau * u3).sin(), b * (tau * u3).cos())
        .normalize()
}

/// A triangle with vertices uniform in a cube of half-size `size` around `center`.
pub fn triangle3(rng: &mut TestRng, center: Vec3, size: f32) -> [Vec3; 3] {
    [center + point3(rng, size), center + point3(rng, size), center + point3(rng, size)]
}

/// A random affine map: rotation, non-uniform scale in `[0.2, 5]`, shear up to 0.5, an optional
/// reflection, and a translation within `[-translation, translation)³`.
pub fn affine3(rng: &mut TestRng, translation: f32) -> Affine3A {
    let scale = Vec3::new(rng.random_range(0.2..5.0), rng.random_range(0.2..5.0), rng.random_range(0.2..5.0));
    let shear = Mat3::from_cols(
        Vec3::X,
        Vec3::new(rng.random_range(-0.5..0.5), 1.0, 0.0),
        Vec3::new(rng.random_range(-0.5..0.5), rng.random_range(-0.5..0.5), 1.0),
    );
    let reflect =
        if rng.random_bool(0.2) { Mat3::from_diagonal(Vec3::new(-1.0, 1.0, 1.0)) } else { Mat3::IDENTITY };
    let linear = Mat3::from_quat(rotation3(rng)) * shear * Mat3::from_diagonal(scale) * reflect;
    Affine3A::from_mat3_translation(linear, point3(rng, translation))
}

/// A random analytic field near the origin, about a unit across: a ball, a box or a torus, and a
/// description of it for failure messages.
pub fn analytic_field(
    rng: &mut TestRng,
) -> (std::sync::Arc<dyn kollide::field::Field3 + Send + Sync>, String) {
    use kollide::field::{BallField, CuboidField, TorusField};
    use std::sync::Arc;
    let center = point3(rng, 0.2);
    match rng.random_range(0..3) {
        0 => {
            let f = BallField::new(center, rng.random_range(0.3..1.2)).expect("a valid ball");
            (Arc::new(f), format!("{f:?}"))
        }
        1 => {
            let half =
                Vec3::new(rng.random_range(0.2..1.2), rng.random_range(0.2..1.2), rng.random_range(0.2..1.2));
            let f = CuboidField::new(center, half).expect("a valid box");
            (Arc::new(f), format!("{f:?}"))
        }
        _ => {
            let major = rng.random_range(0.5..1.0);
            let f = TorusField::new(center, major, rng.random_range(0.15..0.45)).expect("a valid torus");
            (Arc::new(f), format!("{f:?}"))
        }
    }
}
