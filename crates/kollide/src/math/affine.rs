//! Tests and maps for the linear part `M` of an affine placement `x ↦ M x + t`.
//!
//! Points map by `M`, directions of support queries by `Mᵀ` (see [`crate::shape::PlacedSupport`]), plane
//! normals by the inverse transpose `(M⁻¹)ᵀ` ([`map_normal`]). Under a similarity `M = s R` (`R`
//! orthogonal, `s > 0`) balls stay balls and distances scale by `s` ([`is_similarity`]); under a
//! rigid map (`s = 1`, [`is_rigid`]) distances are kept, so a query may run in the placed shape's
//! own frame. [`largest_stretch`] bounds how far any other map moves a point from a ball's centre.

use glam::{Affine3A, Mat3A, Vec3A, Vec3Swizzles};

/// `M Mᵀ` as its diagonal `(|row 0|², |row 1|², |row 2|²)` and off-diagonal
/// `(row 0 · row 1, row 1 · row 2, row 2 · row 0)`.
///
/// `M Mᵀ = Σ over the columns c of c cᵀ`: its diagonal is `Σ c ⊙ c` and its off-diagonal
/// `Σ c ⊙ c.yzx`, all lanes at once and without a transpose.
#[inline(always)]
fn gram(m: &Mat3A) -> (Vec3A, Vec3A) {
    let (x, y, z) = (m.x_axis, m.y_axis, m.z_axis);
    let diag = x * x + y * y + z * z;
    let off = x * x.yzx() + y * y.yzx() + z * z.yzx();
    (diag, off)
}

/// The uniform scale `s` if the linear part `M` of `map` is `s · R` with `R` orthogonal (a
/// rotation or a reflection) and `s > 0`: `M Mᵀ = s² I` (equivalently `MᵀM = s² I`: rows, and
/// columns, pairwise orthogonal and of equal length), to a relative tolerance of `1e-5`. `None`
/// otherwise (non-uniform scale, shear, singular or non-finite maps). Under a similarity, balls
/// stay balls and distances scale by `s`.
#[inline]
pub fn is_similarity(map: &Affine3A) -> Option<f32> {
    let (diag, off) = gram(&map.matrix3);
    let s2 = diag.x;
    let tol = Vec3A::splat(1e-5 * s2);
    // One branch: NaN fails every comparison; an infinite s² makes `diag - s2` NaN.
    let ok = (s2 > 0.0)
        & map.translation.is_finite()
        & (diag - Vec3A::splat(s2)).abs().cmple(tol).all()
        & off.abs().cmple(tol).all();
    ok.then(|| s2.sqrt())
}

/// Whether `m` is orthonormal to `1e-5` (a rotation or a reflection): every entry of `M Mᵀ - I`
/// is at most `1e-5` in magnitude. `false` for non-finite matrices.
#[inline]
pub fn is_rigid(m: &Mat3A) -> bool {
    let (diag, off) = gram(m);
    let t = Vec3A::splat(1e-5);
    (diag - Vec3A::ONE).abs().cmple(t).all() & off.abs().cmple(t).all()
}

/// Whether both `a` and `b` are orthonormal, by one bound on both: the sum over the two matrices
/// of `|M Mᵀ - I|`, entry by entry, is at most `1e-5` (stricter than [`is_rigid`] for each). One
/// comparison for the two maps of a pair query. `false` for non-finite matrices.
#[inline(always)]
pub fn both_rigid(a: &Mat3A, b: &Mat3A) -> bool {
    let error = |m: &Mat3A| {
        let (diag, off) = gram(m);
        (diag - Vec3A::ONE).abs() + off.abs()
    };
    // NaN fails the comparison.
    (error(a) + error(b)).cmple(Vec3A::splat(1e-5)).all()
}

/// The unit normal, under `m`, of a plane whose normal is `n`: `(M⁻¹)ᵀ n`, normalised; zero when
/// it vanishes.
///
/// `(M⁻¹)ᵀ = cof(M) / det(M)`, so `(M⁻¹)ᵀ n ∝ cof(M) n`: the cofactor matrix (columns
/// `y × z`, `z × x`, `x × y` of `M`'s columns) avoids the inverse, and only the determinant's sign
/// is needed to keep the normal on the side it was on. A singular `M` still gives the normal of
/// the image when its rank is 2 (the cofactors of a rank-2 matrix span its image's normal).
#[inline]
pub fn map_normal(m: &Mat3A, n: Vec3A) -> Vec3A {
    let cof = Mat3A::from_cols(m.y_axis.cross(m.z_axis), m.z_axis.cross(m.x_axis), m.x_axis.cross(m.y_axis));
    let v = cof * n;
    let v = if m.determinant() < 0.0 { -v } else { v };
    v.normalize_or_zero()
}

/// The largest factor by which `m` stretches a vector (its spectral norm), rounded up: the square
/// root of the largest eigenvalue of `mᵀm`, by the closed form for symmetric 3×3 matrices (the
/// trigonometric solution of the characteristic cubic; O. K. Smith, "Eigenvalues of a symmetric
/// 3 × 3 matrix", CACM 1961). A ball of radius `r` maps into the ball of radius
/// `r · largest_stretch(m)` around its mapped centre; for a similarity all three stretches are
/// equal and that ball is exact.
pub fn largest_stretch(m: &Mat3A) -> f32 {
    let a = m.transpose() * *m;
    let (a00, a11, a22) = (f64::from(a.x_axis.x), f64::from(a.y_axis.y), f64::from(a.z_axis.z));
    let (a01, a02, a12) = (f64::from(a.y_axis.x), f64::from(a.z_axis.x), f64::from(a.z_axis.y));
    let off = a01 * a01 + a02 * a02 + a12 * a12;
    let q = (a00 + a11 + a22) / 3.0;
    let p2 = (a00 - q).powi(2) + (a11 - q).powi(2) + (a22 - q).powi(2) + 2.0 * off;
    let largest = if p2 <= 1e-30 * q * q {
        q
    } else {
        let p = (p2 / 6.0).sqrt();
        // det((A − qI) / p) / 2, clamped against rounding.
        let (b00, b11, b22) = ((a00 - q) / p, (a11 - q) / p, (a22 - q) / p);
        let (b01, b02, b12) = (a01 / p, a02 / p, a12 / p);
        let det =
            b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02) + b02 * (b01 * b12 - b11 * b02);
        let phi = (det / 2.0).clamp(-1.0, 1.0).acos() / 3.0;
        q + 2.0 * p * phi.cos()
    };
    // The f32 products above err by a few ulps of the largest entry; 1e-5 covers them.
    (largest.max(0.0).sqrt() * (1.0 + 1e-5)) as f32
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;

    #[test]
    fn similarity_and_rigidity() {
        let r = Quat::from_rotation_z(0.7) * Quat::from_rotation_x(-0.3);
        let rigid = Affine3A::from_rotation_translation(r, Vec3::ONE);
        assert!(is_rigid(&rigid.matrix3) && both_rigid(&rigid.matrix3, &Mat3A::IDENTITY));
        assert!((is_similarity(&rigid).unwrap() - 1.0).abs() < 1e-6);
        let scaled = Affine3A::from_scale_rotation_translation(Vec3::splat(2.5), r, Vec3::ZERO);
        assert!((is_similarity(&scaled).unwrap() - 2.5).abs() < 1e-5);
        assert!(!is_rigid(&scaled.matrix3) && !both_rigid(&scaled.matrix3, &Mat3A::IDENTITY));
        let reflection = Mat3A::from_diagonal(Vec3::new(1.0, -1.0, 1.0));
        assert!(is_rigid(&reflection));
        assert!(is_similarity(&Affine3A::from_scale(Vec3::new(1.0, 2.0, 1.0))).is_none());
        assert!(!is_rigid(&Mat3A::from_cols_array(&[f32::NAN; 9])));
        assert!(!both_rigid(&Mat3A::IDENTITY, &Mat3A::from_cols_array(&[f32::NAN; 9])));
    }

    #[test]
    fn normals_stay_normal_to_mapped_planes() {
        let mut m = Mat3A::from_cols(
            Vec3A::new(1.0, 0.2, 0.0),
            Vec3A::new(0.4, 2.0, 0.1),
            Vec3A::new(0.0, -0.3, 0.7),
        );
        for flip in [false, true] {
            if flip {
                m.x_axis = -m.x_axis;
            }
            let n = Vec3A::new(0.3, -0.8, 0.5).normalize();
            let (u, v) = (n.any_orthonormal_pair().0, n.any_orthonormal_pair().1);
            let mapped = map_normal(&m, n);
            assert!((mapped.length() - 1.0).abs() < 1e-6);
            assert!(mapped.dot(m * u).abs() < 1e-5 && mapped.dot(m * v).abs() < 1e-5);
            // The side is kept: the point n in front of the plane maps in front of its image.
            assert!(mapped.dot(m * n) > 0.0);
        }
    }

    #[test]
    fn largest_stretch_bounds_every_direction() {
        let m =
            Mat3A::from_cols(Vec3A::new(1.0, 0.5, 0.0), Vec3A::new(0.0, 2.0, 0.3), Vec3A::new(0.2, 0.0, 0.5));
        let s = largest_stretch(&m);
        let mut best = 0.0f32;
        for i in 0..2000 {
            let (t, p) = (i as f32 * 0.618_034, i as f32 * 0.001_57);
            let d = Vec3A::new(t.cos() * p.sin(), t.sin() * p.sin(), p.cos());
            best = best.max((m * d).length());
        }
        assert!(s >= best && s <= best * 1.001, "{s} {best}");
        let diagonal = largest_stretch(&Mat3A::from_diagonal(Vec3::new(1.0, 3.0, 2.0)));
        assert!((3.0..3.0001).contains(&diagonal), "{diagonal}");
        let r = Mat3A::from_quat(Quat::from_rotation_y(1.1));
        assert!((largest_stretch(&(r * 1.5)) - 1.5).abs() < 1e-4);
    }
}
