//! A signed-distance field sampled on a regular grid.

use super::{Field3, FieldError};
use crate::bounds::Aabb3;
use crate::mesh::TriMesh;
use glam::Vec3;

/// The most grid vertices a [`GridField`] may have (256 MiB of values).
pub const MAX_GRID_VERTICES: u64 = 1 << 26;

/// Grid cells of margin around the sampled solid, so that every boundary sample lies outside it.
const MARGIN_CELLS: f32 = 2.0;

/// A field sampled at the vertices of a regular grid and interpolated trilinearly in between.
///
/// Built from a closed mesh ([`GridField::from_mesh`], the mesh's exact signed distance at each
/// vertex) or from any bounded field ([`GridField::from_field`]). The grid covers the solid's box
/// plus two cells on every side. Inside the grid the value is the trilinear interpolant; outside
/// it, the value at the nearest grid point plus the distance to it, so it keeps growing and stays
/// positive.
///
/// Error bound: where the source has slope at most `L`, the interpolant is a weighted mean of the
/// eight corner samples, each within `L |p − corner|` of the source at `p`, and with the trilinear
/// weights the mean of `|p − corner|` is at most `√(Σ h² t(1 − t)) ≤ (√3 / 2) h`. So inside the grid
/// `|grid(p) − source(p)| ≤ (√3 / 2) L h` plus the rounding of the samples
/// ([`GridField::interpolation_error`]). A point farther than that inside (outside) the source's
/// solid is inside (outside) the grid's.
#[derive(Clone, Debug, PartialEq)]
pub struct GridField {
    /// Position of grid vertex `(0, 0, 0)`.
    origin: Vec3,
    cell: f32,
    /// Vertices per axis, at least 2.
    dims: [usize; 3],
    /// Samples, x fastest: vertex `(i, j, k)` at `i + dims[0] (j + dims[1] k)`.
    values: Vec<f32>,
    /// Per axis, the largest sample difference between neighbours divided by the cell size.
    slopes: Vec3,
    /// The source's Lipschitz bound.
    source_lipschitz: f32,
}

impl GridField {
    /// Samples the signed distance of a closed mesh (its [`TriMesh::signed_distance`]) with cubic
    /// cells of side `cell`.
    ///
    /// `Err(NotSolid)` for a mesh that is not closed and consistently oriented, `Err` for a `cell`
    /// that is not finite and positive, and `Err(TooManyCells)` beyond [`MAX_GRID_VERTICES`].
    pub fn from_mesh(mesh: &TriMesh, cell: f32) -> Result<Self, FieldError> {
        Self::from_mesh_with_progress(mesh, cell, |_, _| {})
    }

    /// [`GridField::from_mesh`] reporting progress: `progress(done, total)` is called on the
    /// calling thread after each batch of grid slices, the last time with `done == total`.
    pub fn from_mesh_with_progress(
        mesh: &TriMesh,
        cell: f32,
        progress: impl FnMut(usize, usize),
    ) -> Result<Self, FieldError> {
        if !mesh.is_solid() {
            return Err(FieldError::NotSolid);
        }
        // A solid mesh is validated, so its box is finite; the sample is `None` only for a
        // non-finite point, which the grid never produces.
        Self::sample_source(mesh.bounds(), cell, 1.0, progress, |p| {
            mesh.signed_distance(p).unwrap_or(f32::INFINITY)
        })
    }

    /// Samples any bounded field with cubic cells of side `cell`.
    ///
    /// `Err(NoBounds)` for a field without [`Field3::bounds`] or with an empty one; otherwise as
    /// [`GridField::from_mesh`].
    pub fn from_field(field: &(impl Field3 + Sync), cell: f32) -> Result<Self, FieldError> {
        let bounds = field.bounds().ok_or(FieldError::NoBounds)?;
        Self::sample_source(bounds, cell, field.lipschitz(), |_, _| {}, |p| field.value(p))
    }

    fn sample_source(
        solid: Aabb3,
        cell: f32,
        source_lipschitz: f32,
        mut progress: impl FnMut(usize, usize),
        source: impl Fn(Vec3) -> f32 + Sync,
    ) -> Result<Self, FieldError> {
        if !(cell.is_finite() && cell > 0.0) {
            return Err(FieldError::InvalidParameter("grid cell size"));
        }
        if !solid.is_valid() {
            return Err(FieldError::NoBounds);
        }
        let origin = solid.min - Vec3::splat(MARGIN_CELLS * cell);
        let span = solid.size() / cell + Vec3::splat(2.0 * MARGIN_CELLS);
        let counts = span.ceil() + Vec3::ONE;
        let cells = f64::from(counts.x) * f64::from(counts.y) * f64::from(counts.z);
        if !(cells <= MAX_GRID_VERTICES as f64) {
            let cells = if cells.is_finite() { cells as u64 } else { u64::MAX };
            return Err(FieldError::TooManyCells { cells, limit: MAX_GRID_VERTICES });
        }
        let dims = [counts.x as usize, counts.y as usize, counts.z as usize];
        let slice = dims[0] * dims[1];
        let mut values = vec![0.0f32; slice * dims[2]];
        let fill = |k: usize, out: &mut [f32]| {
            for (index, value) in out.iter_mut().enumerate() {
                let (i, j) = (index % dims[0], index / dims[0]);
                *value = source(origin + Vec3::new(i as f32, j as f32, k as f32) * cell);
            }
        };
        // Slices in batches, so that progress is reported from the calling thread.
        const BATCH: usize = 8;
        for (batch, chunk) in values.chunks_mut(slice * BATCH).enumerate() {
            #[cfg(feature = "parallel")]
            {
                use rayon::prelude::*;
                chunk.par_chunks_mut(slice).enumerate().for_each(|(k, out)| fill(batch * BATCH + k, out));
            }
            #[cfg(not(feature = "parallel"))]
            for (k, out) in chunk.chunks_mut(slice).enumerate() {
                fill(batch * BATCH + k, out);
            }
            progress(((batch + 1) * BATCH).min(dims[2]), dims[2]);
        }
        let slopes = sample_slopes(&values, dims) / cell;
        Ok(Self { origin, cell, dims, values, slopes, source_lipschitz })
    }

    /// The cell side.
    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    /// Grid vertices per axis.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// The box the grid covers.
    pub fn grid_bounds(&self) -> Aabb3 {
        let size = Vec3::new((self.dims[0] - 1) as f32, (self.dims[1] - 1) as f32, (self.dims[2] - 1) as f32);
        Aabb3::new(self.origin, self.origin + size * self.cell)
    }

    /// The bound on `|grid(p) − source(p)|` inside the grid from interpolation, `(√3 / 2) L h`
    /// (see the type's docs), not counting the rounding of the samples themselves.
    pub fn interpolation_error(&self) -> f32 {
        0.5 * 3f32.sqrt() * self.source_lipschitz * self.cell
    }

    /// Heap bytes of the samples.
    pub fn memory_bytes(&self) -> usize {
        self.values.capacity() * size_of::<f32>()
    }

    /// The sample at grid vertex `(i, j, k)`.
    #[inline]
    pub(super) fn sample(&self, i: usize, j: usize, k: usize) -> f32 {
        self.values[i + self.dims[0] * (j + self.dims[1] * k)]
    }

    /// The cell of `p` (clamped into the grid), the local coordinates `t ∈ [0, 1]³` in it, and the
    /// offset from the nearest grid point to `p` (zero inside the grid).
    #[inline]
    fn locate(&self, p: Vec3) -> ([usize; 3], Vec3, Vec3) {
        let last = Vec3::new((self.dims[0] - 1) as f32, (self.dims[1] - 1) as f32, (self.dims[2] - 1) as f32);
        let q = (p - self.origin) / self.cell;
        // `max` then `min` turn a NaN coordinate into 0 (the value is then NaN through `outside`).
        let clamped = q.max(Vec3::ZERO).min(last);
        let base = clamped.floor().min(last - Vec3::ONE);
        let cell = [base.x as usize, base.y as usize, base.z as usize];
        (cell, clamped - base, (q - clamped) * self.cell)
    }

    /// The eight samples of cell `c`, indexed by `x + 2y + 4z` of the corner.
    #[inline]
    fn corners(&self, c: [usize; 3]) -> [f32; 8] {
        std::array::from_fn(|n| self.sample(c[0] + (n & 1), c[1] + ((n >> 1) & 1), c[2] + (n >> 2)))
    }
}

/// Per axis, the largest absolute difference between neighbouring samples.
fn sample_slopes(values: &[f32], dims: [usize; 3]) -> Vec3 {
    let mut slopes = Vec3::ZERO;
    let strides = [1, dims[0], dims[0] * dims[1]];
    for (axis, &stride) in strides.iter().enumerate() {
        let mut largest = 0.0f32;
        for (index, &v) in values.iter().enumerate() {
            let coordinate = (index / stride) % dims[axis];
            if coordinate + 1 < dims[axis] {
                largest = largest.max((values[index + stride] - v).abs());
            }
        }
        slopes[axis] = largest;
    }
    slopes
}

/// Linear interpolation.
#[inline]
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

impl Field3 for GridField {
    fn value(&self, p: Vec3) -> f32 {
        let (cell, t, outside) = self.locate(p);
        let v = self.corners(cell);
        let x = [lerp(v[0], v[1], t.x), lerp(v[2], v[3], t.x), lerp(v[4], v[5], t.x), lerp(v[6], v[7], t.x)];
        let y = [lerp(x[0], x[1], t.y), lerp(x[2], x[3], t.y)];
        lerp(y[0], y[1], t.z) + outside.length()
    }

    /// Inside the grid, the interpolant's derivative; outside, the derivative along the axes on
    /// which `p` is within the grid plus the unit direction away from it.
    fn value_and_gradient(&self, p: Vec3) -> (f32, Vec3) {
        let (cell, t, outside) = self.locate(p);
        let v = self.corners(cell);
        let x = [lerp(v[0], v[1], t.x), lerp(v[2], v[3], t.x), lerp(v[4], v[5], t.x), lerp(v[6], v[7], t.x)];
        let y = [lerp(x[0], x[1], t.y), lerp(x[2], x[3], t.y)];
        let value = lerp(y[0], y[1], t.z);
        // Differences along one axis, interpolated along the other two.
        let dx = [v[1] - v[0], v[3] - v[2], v[5] - v[4], v[7] - v[6]];
        let d_dx = lerp(lerp(dx[0], dx[1], t.y), lerp(dx[2], dx[3], t.y), t.z);
        let d_dy = lerp(x[1] - x[0], x[3] - x[2], t.z);
        let d_dz = y[1] - y[0];
        let inner = Vec3::new(d_dx, d_dy, d_dz) / self.cell;
        let distance = outside.length();
        if distance > 0.0 {
            let free = Vec3::select(outside.cmpeq(Vec3::ZERO), inner, Vec3::ZERO);
            (value + distance, free + outside / distance)
        } else {
            (value, inner)
        }
    }

    /// From the samples: per axis the interpolant's derivative is a mean of neighbour differences
    /// over the cell size, so its length is at most the norm of the per-axis largest ones;
    /// outside the grid, the axes away from it have slope 1 instead.
    fn lipschitz(&self) -> f32 {
        self.slopes.max(Vec3::ONE).length()
    }

    /// Every boundary sample is positive (the grid extends beyond the solid), and outside the
    /// grid the value grows by the distance to it.
    fn bounds_beyond(&self, level: f32) -> Option<Aabb3> {
        let grid = self.grid_bounds();
        Some(Aabb3::new(grid.min - Vec3::splat(level), grid.max + Vec3::splat(level)))
    }
}
