use glam::{Mat3, Vec3};

use super::Aabb3;
use crate::math::{Pose3, tolerances::SAT_PARALLEL_EPSILON};

/// An oriented box: `center + axes * u` for every `u` with `|u| <= half_extents` componentwise.
///
/// The columns of `axes` are the box's local x, y, z axes and must be orthonormal. The box is
/// closed: boundary points are inside and touching boxes overlap. A negative half extent stands
/// for the empty set: such a box contains and overlaps nothing. Zero half extents (flat boxes,
/// segments, points) are valid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obb3 {
    pub center: Vec3,
    pub axes: Mat3,
    pub half_extents: Vec3,
}

impl Obb3 {
    /// The box of the given center, orthonormal axes (columns) and half extents. No check.
    #[inline]
    pub fn new(center: Vec3, axes: Mat3, half_extents: Vec3) -> Self {
        Self { center, axes, half_extents }
    }

    /// The same box as `aabb`, with identity axes. An inverted box gives negative half extents
    /// (an empty oriented box); [`Aabb3::EMPTY`] gives a NaN center and `-∞` half extents, which
    /// also contain and overlap nothing.
    #[inline]
    pub fn from_aabb(aabb: &Aabb3) -> Self {
        Self { center: aabb.center(), axes: Mat3::IDENTITY, half_extents: aabb.half_extents() }
    }

    /// A box fitted to the points by principal component analysis, or `None` if `points` is empty
    /// or some point has a NaN or infinite coordinate.
    ///
    /// The axes are the eigenvectors of the covariance matrix of the points (Gottschalk, Lin,
    /// Manocha, "OBBTree", SIGGRAPH 1996, §4; Ericson, *Real-Time Collision Detection*, §4.4.3),
    /// found by a cyclic Jacobi eigen-solver in f64, ordered by decreasing variance and made
    /// right-handed. Along each axis the box spans exactly the projections of the points (the
    /// center is moved to the middle of that range), so it is tight on all six faces.
    ///
    /// Degenerate inputs still give an orthonormal frame: all points equal gives the identity axes
    /// and zero extents; collinear or coplanar points give zero extents across the line or plane
    /// (exactly zero when the line or plane is axis-aligned, else of the order of f32 rounding).
    /// Half extents are rounded up so that every point is inside when its projection is evaluated
    /// exactly; an f32 [`Obb3::contains_point`] may reject a boundary point by rounding (relative
    /// `1e-6` of the box size).
    pub fn from_points_covariance(points: &[Vec3]) -> Option<Self> {
        if points.is_empty() || !points.iter().all(|p| p.is_finite()) {
            return None;
        }
        let to64 = |p: &Vec3| [f64::from(p.x), f64::from(p.y), f64::from(p.z)];
        let n = points.len() as f64;
        let mut mean = [0.0f64; 3];
        for p in points {
            let p = to64(p);
            for i in 0..3 {
                mean[i] += p[i];
            }
        }
        let mean = mean.map(|m| m / n);
        let mut cov = [[0.0f64; 3]; 3];
        for p in points {
            let p = to64(p);
            let d = [p[0] - mean[0], p[1] - mean[1], p[2] - mean[2]];
            for i in 0..3 {
                for j in i..3 {
                    cov[i][j] += d[i] * d[j];
                }
            }
        }
        cov[1][0] = cov[0][1];
        cov[2][0] = cov[0][2];
        cov[2][1] = cov[1][2];
        let axes = principal_axes(cov);
        let axes64 = axes.map(|a| to64(&a));

        // Tight range of the projections on each axis; the center is the middle of the ranges.
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for p in points {
            let p = to64(p);
            for k in 0..3 {
                let s = dot3(&p, &axes64[k]);
                lo[k] = lo[k].min(s);
                hi[k] = hi[k].max(s);
            }
        }
        let mut center = [0.0f64; 3];
        for k in 0..3 {
            let mid = 0.5 * (lo[k] + hi[k]);
            for i in 0..3 {
                center[i] += mid * axes64[k][i];
            }
        }
        let center = Vec3::new(center[0] as f32, center[1] as f32, center[2] as f32);

        // Half extents measured from the rounded center, rounded up.
        let c64 = to64(&center);
        let mut reach = [0.0f64; 3];
        for p in points {
            let p = to64(p);
            let d = [p[0] - c64[0], p[1] - c64[1], p[2] - c64[2]];
            for k in 0..3 {
                reach[k] = reach[k].max(dot3(&d, &axes64[k]).abs());
            }
        }
        let half_extents = Vec3::from_array(reach.map(round_up_to_f32));
        Some(Self { center, axes: Mat3::from_cols(axes[0], axes[1], axes[2]), half_extents })
    }

    /// Whether `p` is inside the closed box, by change of basis: the coordinates
    /// `u = axesᵀ (p - center)` of `p` in the box frame must satisfy `|u| <= half_extents`.
    /// `false` for negative half extents and for any NaN.
    #[inline]
    pub fn contains_point(&self, p: Vec3) -> bool {
        self.local_coords(p).abs().cmple(self.half_extents).all()
    }

    /// The point of the box closest to `p` (`p` itself if inside): the box-frame coordinates
    /// clamped to `[-half_extents, half_extents]`, mapped back. With a negative half extent (an
    /// empty box) the clamp is applied as written and the result is not meaningful.
    #[inline]
    pub fn closest_point(&self, p: Vec3) -> Vec3 {
        let u = self.local_coords(p).max(-self.half_extents).min(self.half_extents);
        self.center + self.axes * u
    }

    /// The 8 corners: corner `i` is `center + Σ_k s_k half_extents_k axes_k` with `s_k = +1` if
    /// bit `k` of `i` is set, else `-1` (so corner 0 is the all-minus corner, 7 the all-plus).
    pub fn corners(&self) -> [Vec3; 8] {
        let ex = self.axes.x_axis * self.half_extents.x;
        let ey = self.axes.y_axis * self.half_extents.y;
        let ez = self.axes.z_axis * self.half_extents.z;
        std::array::from_fn(|i| {
            let s = |bit: usize| if i & (1 << bit) != 0 { 1.0 } else { -1.0 };
            self.center + ex * s(0) + ey * s(1) + ez * s(2)
        })
    }

    /// The tightest axis-aligned box around this box: half extents `|axes| half_extents`
    /// (Arvo 1990). A negative half extent gives an inverted (empty) box.
    #[inline]
    pub fn aabb(&self) -> Aabb3 {
        let m = &self.axes;
        let h = self.half_extents;
        let e = m.x_axis.abs() * h.x + m.y_axis.abs() * h.y + m.z_axis.abs() * h.z;
        Aabb3::from_center_half_extents(self.center, e)
    }

    /// The box placed by `pose`: center mapped, axes rotated, extents unchanged.
    #[inline]
    pub fn transformed_by(&self, pose: &Pose3) -> Self {
        Self {
            center: pose.transform_point(self.center),
            axes: Mat3::from_quat(pose.rotation) * self.axes,
            half_extents: self.half_extents,
        }
    }

    /// Whether the two closed boxes share a point, by the 15-axis separating axis test
    /// (Gottschalk, Lin, Manocha, "OBBTree", SIGGRAPH 1996; Ericson, *Real-Time Collision
    /// Detection*, §4.4.1).
    ///
    /// Everything is expressed in `self`'s frame: `R = Aᵀ B` (the axes of `other` in `self`'s
    /// frame) and `t = Aᵀ (c_B - c_A)`. On a candidate axis `L` the boxes are separated iff
    /// `|t · L| > r_A + r_B`, with the projected radii `r = Σ_k e_k |axis_k · L|`. The axes are
    /// tried in the order: 3 face normals of `self`, 3 of `other`, then the 9 edge cross products
    /// `A_i × B_j`, returning at the first separating one. Every `|R_ij|` is increased by
    /// [`SAT_PARALLEL_EPSILON`] so that a near-zero cross product of nearly parallel edges cannot
    /// report a false separation; the test is therefore conservative by about that amount (boxes
    /// closer than ~`1e-6 · size` to touching may be reported as overlapping).
    ///
    /// Touching counts as overlapping. `false` if either box has a negative half extent (empty)
    /// or any input is NaN (each comparison is written so that NaN means "separated").
    #[inline]
    pub fn overlaps(&self, other: &Obb3) -> bool {
        let (a, b) = (self, other);
        let ea = a.half_extents;
        let eb = b.half_extents;
        let non_negative = (ea.x >= 0.0) & (ea.y >= 0.0) & (ea.z >= 0.0);
        if !(non_negative & (eb.x >= 0.0) & (eb.y >= 0.0) & (eb.z >= 0.0)) {
            return false;
        }
        let (a0, a1, a2) = (a.axes.x_axis, a.axes.y_axis, a.axes.z_axis);
        let (b0, b1, b2) = (b.axes.x_axis, b.axes.y_axis, b.axes.z_axis);
        let d = b.center - a.center;
        let eps = SAT_PARALLEL_EPSILON;

        // Axes of A: L = A_i, t_i = d · A_i, r_A = e_A,i, r_B = Σ_j e_B,j |R_ij|.
        let r0 = Vec3::new(a0.dot(b0), a0.dot(b1), a0.dot(b2));
        let q0 = r0.abs() + eps;
        let t0 = d.dot(a0);
        if separated(t0.abs(), ea.x + eb.dot(q0)) {
            return false;
        }
        let r1 = Vec3::new(a1.dot(b0), a1.dot(b1), a1.dot(b2));
        let q1 = r1.abs() + eps;
        let t1 = d.dot(a1);
        if separated(t1.abs(), ea.y + eb.dot(q1)) {
            return false;
        }
        let r2 = Vec3::new(a2.dot(b0), a2.dot(b1), a2.dot(b2));
        let q2 = r2.abs() + eps;
        let t2 = d.dot(a2);
        if separated(t2.abs(), ea.z + eb.dot(q2)) {
            return false;
        }

        // Axes of B: L = B_j = column j of R in A's frame, t · L = Σ_i t_i R_ij.
        if separated(
            (t0 * r0.x + t1 * r1.x + t2 * r2.x).abs(),
            ea.x * q0.x + ea.y * q1.x + ea.z * q2.x + eb.x,
        ) {
            return false;
        }
        if separated(
            (t0 * r0.y + t1 * r1.y + t2 * r2.y).abs(),
            ea.x * q0.y + ea.y * q1.y + ea.z * q2.y + eb.y,
        ) {
            return false;
        }
        if separated(
            (t0 * r0.z + t1 * r1.z + t2 * r2.z).abs(),
            ea.x * q0.z + ea.y * q1.z + ea.z * q2.z + eb.z,
        ) {
            return false;
        }

        // Edge axes L = A_i × B_j = e_i × R_{·j} in A's frame. With (i, i', i'') and (j, j', j'')
        // the cyclic index triples: t · L = t_i'' R_i'j - t_i' R_i''j,
        // r_A = e_A,i' |R_i''j| + e_A,i'' |R_i'j| and r_B = e_B,j' |R_ij''| + e_B,j'' |R_ij'|
        // (using A_k · (A_i × B_j) = ±R_mj and B_k · (A_i × B_j) = ±R_im for the third index m).
        // i = 0 (rows: 0 -> r0/q0, 1 -> r1/q1, 2 -> r2/q2).
        if separated((t2 * r1.x - t1 * r2.x).abs(), ea.y * q2.x + ea.z * q1.x + eb.y * q0.z + eb.z * q0.y) {
            return false;
        }
        if separated((t2 * r1.y - t1 * r2.y).abs(), ea.y * q2.y + ea.z * q1.y + eb.z * q0.x + eb.x * q0.z) {
            return false;
        }
        if separated((t2 * r1.z - t1 * r2.z).abs(), ea.y * q2.z + ea.z * q1.z + eb.x * q0.y + eb.y * q0.x) {
            return false;
        }
        // i = 1.
        if separated((t0 * r2.x - t2 * r0.x).abs(), ea.z * q0.x + ea.x * q2.x + eb.y * q1.z + eb.z * q1.y) {
            return false;
        }
        if separated((t0 * r2.y - t2 * r0.y).abs(), ea.z * q0.y + ea.x * q2.y + eb.z * q1.x + eb.x * q1.z) {
            return false;
        }
        if separated((t0 * r2.z - t2 * r0.z).abs(), ea.z * q0.z + ea.x * q2.z + eb.x * q1.y + eb.y * q1.x) {
            return false;
        }
        // i = 2.
        if separated((t1 * r0.x - t0 * r1.x).abs(), ea.x * q1.x + ea.y * q0.x + eb.y * q2.z + eb.z * q2.y) {
            return false;
        }
        if separated((t1 * r0.y - t0 * r1.y).abs(), ea.x * q1.y + ea.y * q0.y + eb.z * q2.x + eb.x * q2.z) {
            return false;
        }
        (t1 * r0.z - t0 * r1.z).abs() <= ea.x * q1.z + ea.y * q0.z + eb.x * q2.y + eb.y * q2.x
    }

    /// `axesᵀ (p - center)`: the coordinates of `p` in the box frame.
    #[inline]
    fn local_coords(&self, p: Vec3) -> Vec3 {
        self.axes.transpose() * (p - self.center)
    }
}

/// Whether the distance `d` between projected centers exceeds the sum `r` of projected radii,
/// i.e. the axis separates. Written as `!(d <= r)` so that a NaN on either side counts as
/// separated, which makes the overlap test answer `false` for NaN input.
#[inline(always)]
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn separated(d: f32, r: f32) -> bool {
    !(d <= r)
}

#[inline]
fn dot3(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The smallest f32 not below `x` (`x` finite and non-negative).
fn round_up_to_f32(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x { f32::from_bits(f.to_bits() + 1) } else { f }
}

/// Orthonormal, right-handed eigenvectors of the symmetric matrix `a`, ordered by decreasing
/// eigenvalue, as f32 vectors.
fn principal_axes(a: [[f64; 3]; 3]) -> [Vec3; 3] {
    let (values, vectors) = symmetric_eigen3(a);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
    let column = |k: usize| [vectors[0][k], vectors[1][k], vectors[2][k]];
    // Re-orthonormalise (Gram-Schmidt) and take the third axis as the cross product, so the frame
    // is orthonormal and right-handed to f64 precision before rounding to f32.
    let u = normalized(column(order[0]));
    let v = column(order[1]);
    let v = normalized([v[0] - dot3(&u, &v) * u[0], v[1] - dot3(&u, &v) * u[1], v[2] - dot3(&u, &v) * u[2]]);
    let w = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    let to32 = |x: [f64; 3]| Vec3::new(x[0] as f32, x[1] as f32, x[2] as f32);
    [to32(u), to32(v), to32(w)]
}

fn normalized(v: [f64; 3]) -> [f64; 3] {
    let len = dot3(&v, &v).sqrt();
    v.map(|x| x / len)
}

/// Eigenvalues and eigenvectors (the columns of the returned matrix) of a symmetric 3x3 matrix,
/// by the cyclic Jacobi method (Golub & Van Loan, *Matrix Computations*, §8.5; the rotation
/// formulas of Press et al., *Numerical Recipes*, §11.1).
///
/// Each step applies the plane rotation `P` in the `(p, q)` plane that zeroes `a_pq`:
/// `θ = (a_qq - a_pp) / (2 a_pq)`, `t = sgn(θ) / (|θ| + √(θ² + 1))` (the smaller root of
/// `t² + 2tθ - 1 = 0`), `c = 1/√(t² + 1)`, `s = t c`; then `A ← Pᵀ A P` and `V ← V P`. Sweeps
/// repeat until the off-diagonal part is negligible (quadratic convergence; a handful of sweeps).
fn symmetric_eigen3(mut a: [[f64; 3]; 3]) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _sweep in 0..32 {
        let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        let diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if off <= 1e-32 * diag || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            // For huge θ, θ² overflows to ∞ and t becomes 0: a negligible rotation, skipped.
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A ← A P (columns p and q), then A ← Pᵀ A (rows p and q); V ← V P.
            for row in a.iter_mut().chain(v.iter_mut()) {
                let (xp, xq) = (row[p], row[q]);
                row[p] = c * xp - s * xq;
                row[q] = s * xp + c * xq;
            }
            let (row_p, row_q) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
            a[q] = std::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
        }
    }
    ([a[0][0], a[1][1], a[2][2]], v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    fn unit_box() -> Obb3 {
        Obb3::new(Vec3::ZERO, Mat3::IDENTITY, Vec3::ONE)
    }

    #[test]
    fn jacobi_diagonalises() {
        let a = [[4.0, 1.0, -2.0], [1.0, 3.0, 0.5], [-2.0, 0.5, 1.0]];
        let (vals, v) = symmetric_eigen3(a);
        for k in 0..3 {
            for i in 0..3 {
                let av: f64 = (0..3).map(|j| a[i][j] * v[j][k]).sum();
                assert!((av - vals[k] * v[i][k]).abs() < 1e-12);
            }
        }
        // Already diagonal and zero matrices.
        let (vals, v) = symmetric_eigen3([[2.0, 0.0, 0.0], [0.0, 5.0, 0.0], [0.0, 0.0, 0.0]]);
        assert_eq!(vals, [2.0, 5.0, 0.0]);
        assert_eq!(v[0], [1.0, 0.0, 0.0]);
        let (vals, _) = symmetric_eigen3([[0.0; 3]; 3]);
        assert_eq!(vals, [0.0; 3]);
    }

    #[test]
    fn contains_and_closest() {
        let rot = Mat3::from_quat(Quat::from_rotation_z(0.5));
        let b = Obb3::new(Vec3::new(1.0, 2.0, 3.0), rot, Vec3::new(1.0, 2.0, 0.5));
        for c in b.corners() {
            assert!(b.aabb().expanded(1e-5).contains_point(c));
            assert!((b.closest_point(c) - c).length() < 1e-5);
        }
        assert!(b.contains_point(b.center));
        let far = b.center + rot * Vec3::new(3.0, 0.0, 0.0);
        assert!(!b.contains_point(far));
        let cp = b.closest_point(far);
        assert!((cp - (b.center + rot * Vec3::X)).length() < 1e-5);
    }

    #[test]
    fn sat_face_edge_and_touching() {
        let a = unit_box();
        let touching = Obb3::new(Vec3::new(2.0, 0.0, 0.0), Mat3::IDENTITY, Vec3::ONE);
        let apart = Obb3::new(Vec3::new(2.01, 0.0, 0.0), Mat3::IDENTITY, Vec3::ONE);
        assert!(a.overlaps(&touching) && !a.overlaps(&apart));
        // Edge-edge separation: p's edge along z at x = √2 faces q's edge along y at x = √2 + g;
        // only the axis z × y = -x separates them.
        let ry = Mat3::from_quat(Quat::from_rotation_y(std::f32::consts::FRAC_PI_4));
        let rz = Mat3::from_quat(Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
        let s = std::f32::consts::SQRT_2;
        let p = Obb3::new(Vec3::ZERO, rz, Vec3::ONE);
        let q_sep = Obb3::new(Vec3::new(2.0 * s + 0.1, 0.0, 0.0), ry, Vec3::ONE);
        let q_hit = Obb3::new(Vec3::new(2.0 * s - 0.1, 0.0, 0.0), ry, Vec3::ONE);
        assert!(!p.overlaps(&q_sep) && !q_sep.overlaps(&p));
        assert!(p.overlaps(&q_hit) && q_hit.overlaps(&p));
    }

    #[test]
    fn bad_input() {
        let a = unit_box();
        let empty = Obb3::new(Vec3::ZERO, Mat3::IDENTITY, Vec3::new(1.0, -1.0, 1.0));
        assert!(!a.overlaps(&empty) && !empty.overlaps(&a) && !empty.contains_point(Vec3::ZERO));
        let nan = Obb3::new(Vec3::NAN, Mat3::IDENTITY, Vec3::ONE);
        assert!(!a.overlaps(&nan) && !nan.overlaps(&a) && !nan.contains_point(Vec3::ZERO));
        let flat = Obb3::new(Vec3::ZERO, Mat3::IDENTITY, Vec3::new(1.0, 1.0, 0.0));
        assert!(flat.overlaps(&a) && flat.contains_point(Vec3::new(0.5, -1.0, 0.0)));
        let from_empty = Obb3::from_aabb(&Aabb3::EMPTY);
        assert!(!from_empty.overlaps(&a) && !from_empty.contains_point(Vec3::ZERO));
        assert_eq!(Obb3::from_points_covariance(&[]), None);
        assert_eq!(Obb3::from_points_covariance(&[Vec3::ONE, Vec3::NAN]), None);
    }

    #[test]
    fn covariance_degenerate_inputs() {
        let same = Obb3::from_points_covariance(&[Vec3::ONE; 4]).unwrap();
        assert_eq!(same.half_extents, Vec3::ZERO);
        assert_eq!(same.center, Vec3::ONE);
        assert_eq!(same.axes, Mat3::IDENTITY);
        let line: Vec<Vec3> = (0..10).map(|i| Vec3::new(1.0, 1.0, 0.0) * i as f32).collect();
        let b = Obb3::from_points_covariance(&line).unwrap();
        assert!((b.half_extents.x - 4.5 * 2f32.sqrt()).abs() < 1e-5);
        assert!(b.half_extents.y < 1e-5 && b.half_extents.z < 1e-5);
        assert!((b.axes.determinant() - 1.0).abs() < 1e-5);
        let plane = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0), Vec3::new(0.3, 0.2, 0.0)];
        let b = Obb3::from_points_covariance(&plane).unwrap();
        assert_eq!(b.half_extents.z, 0.0);
        assert!(
            (b.axes.transpose() * b.axes - Mat3::IDENTITY).abs().to_cols_array().iter().all(|x| *x < 1e-6)
        );
    }
}
