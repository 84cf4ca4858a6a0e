//! A mesh's support function `h(r) = max_p r · p` sampled on a grid of directions, which bounds
//! the box of the mesh under any affine map from above, within a few percent of the mesh's size
//! of the exact box, at the cost of six table lookups instead of a pass over the vertices.
//!
//! # Method
//!
//! The directions are the vertices of an `N × N` grid on the octahedral map of the unit
//! octahedron `|x| + |y| + |z| = 1` (the octahedral normal encoding, Meyer et al., "On
//! Floating-Point Normal Vectors", 2010): the upper half `z >= 0` fills the diamond
//! `|u| + |v| <= 1` of the square `[-1, 1]²` as `(x, y)`, the lower half is folded into the four
//! corners. Each grid cell is split into two triangles along the diagonal that the fold lines
//! follow, so each triangle lies within one face of the octahedron, where the map is affine.
//!
//! A support function is positively homogeneous and subadditive, so for a direction `r` whose
//! octahedron point `q = r / |r|₁` has barycentric coordinates `β` in the triangle of grid
//! points `q₀, q₁, q₂`:
//!
//! `h(r) = |r|₁ h(Σ βₖ qₖ) <= |r|₁ Σ βₖ h(qₖ)`,
//!
//! an upper bound from three stored values. The world box of the mesh under `x → M x + t` has
//! `max_i = t_i + h(row_i(M))` and `min_i = t_i - h(-row_i(M))`. With a grid spacing of
//! `2 / N` the bound exceeds the exact support by a small fraction of the mesh's size.

use glam::{Affine3A, Vec3};

use crate::bounds::Aabb3;

/// Grid cells per side of the octahedral map (even, so that the fold lines follow cell
/// diagonals): 1089 directions, about 4 KB, boxes within about 4% of the size of the exact box
/// on the vendored meshes under random affine maps.
const N: usize = 32;

/// The support function of a point set on `(N + 1)²` directions.
#[derive(Clone, Debug)]
pub(crate) struct SupportGrid {
    /// `h(q)` at grid vertex `(i, j)`, at `i * (N + 1) + j`, rounded up.
    values: Vec<f32>,
    /// Bound on the rounding of one stored value and of a lookup: a few ulps of the largest
    /// coordinate magnitude.
    slack: f32,
}

/// The octahedron point (`|q|₁ = 1`) of the map point `(u, v)`.
fn unfold(u: f32, v: f32) -> Vec3 {
    let z = 1.0 - u.abs() - v.abs();
    if z >= 0.0 {
        Vec3::new(u, v, z)
    } else {
        Vec3::new((1.0 - v.abs()).copysign(u), (1.0 - u.abs()).copysign(v), z)
    }
}

impl SupportGrid {
    /// The grid of a point set given by its support function, whose points' coordinates are at
    /// most `reach` in magnitude.
    pub fn new(reach: f32, support: impl Fn(Vec3) -> f32) -> Self {
        let mut values = Vec::with_capacity((N + 1) * (N + 1));
        for i in 0..=N {
            for j in 0..=N {
                values.push(support(unfold(grid_coordinate(i), grid_coordinate(j))));
            }
        }
        Self { values, slack: 8.0 * f32::EPSILON * reach }
    }

    /// An upper bound on `max_p r · p`.
    pub fn support(&self, r: Vec3) -> f32 {
        let norm = r.x.abs() + r.y.abs() + r.z.abs();
        if !(norm > 0.0) {
            return 0.0;
        }
        let q = r / norm;
        let (u, v) = if q.z >= 0.0 {
            (q.x, q.y)
        } else {
            ((1.0 - q.y.abs()).copysign(q.x), (1.0 - q.x.abs()).copysign(q.y))
        };
        let half = N as f32 / 2.0;
        let (x, y) = ((u + 1.0) * half, (v + 1.0) * half);
        let (i, j) = ((x as usize).min(N - 1), (y as usize).min(N - 1));
        let (fx, fy) = ((x - i as f32).clamp(0.0, 1.0), (y - j as f32).clamp(0.0, 1.0));
        let at = |di: usize, dj: usize| self.values[(i + di) * (N + 1) + j + dj];
        // Cells where u and v have the same sign are split along the anti-diagonal (the fold
        // lines there are `u + v = ±1`), the others along the main diagonal (`u - v = ±1`).
        let same_sign = (i >= N / 2) == (j >= N / 2);
        let sum = if same_sign {
            if fx + fy <= 1.0 {
                (1.0 - fx - fy) * at(0, 0) + fx * at(1, 0) + fy * at(0, 1)
            } else {
                (fx + fy - 1.0) * at(1, 1) + (1.0 - fy) * at(1, 0) + (1.0 - fx) * at(0, 1)
            }
        } else if fx >= fy {
            (1.0 - fx) * at(0, 0) + (fx - fy) * at(1, 0) + fy * at(1, 1)
        } else {
            (1.0 - fy) * at(0, 0) + (fy - fx) * at(0, 1) + fx * at(1, 1)
        };
        norm * (sum + self.slack)
    }

    /// A box containing the points under the map; the caller intersects it with any other
    /// bound it has.
    pub fn bounds(&self, to_world: &Affine3A) -> Aabb3 {
        let rows = to_world.matrix3.transpose();
        let t = Vec3::from(to_world.translation);
        let mut min = Vec3::ZERO;
        let mut max = Vec3::ZERO;
        for (axis, row) in [rows.x_axis, rows.y_axis, rows.z_axis].into_iter().enumerate() {
            let row = Vec3::from(row);
            let (lo, hi) = (t[axis] - self.support(-row), t[axis] + self.support(row));
            // The additions round by half an ulp of their result.
            let pad = f32::EPSILON * lo.abs().max(hi.abs());
            min[axis] = lo - pad;
            max[axis] = hi + pad;
        }
        Aabb3::new(min, max)
    }

    pub fn memory_bytes(&self) -> usize {
        self.values.capacity() * size_of::<f32>()
    }
}

fn grid_coordinate(i: usize) -> f32 {
    -1.0 + 2.0 * i as f32 / N as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat3, Quat};

    /// A fixed pseudo-random sequence in `[-1, 1)`.
    fn sequence(seed: u64) -> impl FnMut() -> f32 {
        let mut state = seed;
        move || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        }
    }

    fn grid_of(points: &[Vec3]) -> SupportGrid {
        let reach = points.iter().fold(0.0f32, |m, p| m.max(p.abs().max_element()));
        SupportGrid::new(reach, |q| points.iter().fold(f32::NEG_INFINITY, |m, &p| m.max(q.dot(p))))
    }

    #[test]
    fn the_support_bound_is_above_the_exact_support_and_close_to_it() {
        let mut next = sequence(7);
        let points: Vec<Vec3> = (0..500).map(|_| Vec3::new(next() * 3.0, next(), next() * 0.5)).collect();
        let grid = grid_of(&points);
        let mut worst = 0.0f32;
        for _ in 0..20_000 {
            let r = Vec3::new(next(), next(), next()) * 10f32.powf(next() * 3.0);
            let exact = points.iter().fold(f32::NEG_INFINITY, |m, &p| m.max(r.dot(p)));
            let bound = grid.support(r);
            assert!(bound >= exact, "direction {r}: bound {bound} below the support {exact}");
            worst = worst.max((bound - exact) / (r.length() * 3.0));
        }
        // The grid spacing keeps the excess to a few percent of the size.
        assert!(worst < 0.05, "excess {worst} of the size");
    }

    #[test]
    fn the_box_under_any_map_contains_the_mapped_points() {
        let mut next = sequence(11);
        let points: Vec<Vec3> = (0..300).map(|_| Vec3::new(next(), next(), next())).collect();
        let grid = grid_of(&points);
        for _ in 0..2_000 {
            let linear = Mat3::from_quat(Quat::from_scaled_axis(Vec3::new(next(), next(), next()) * 3.0))
                * Mat3::from_cols(Vec3::new(next(), next(), next()) * 2.0, Vec3::Y * 3.0 * next(), Vec3::Z);
            let map = Affine3A::from_mat3_translation(linear, Vec3::new(next(), next(), next()) * 1e4);
            let bounds = grid.bounds(&map);
            let exact =
                Aabb3::from_points(&points.iter().map(|&p| map.transform_point3(p)).collect::<Vec<_>>())
                    .unwrap();
            assert!(bounds.contains(&exact), "{bounds:?} does not contain {exact:?}");
        }
    }
}
