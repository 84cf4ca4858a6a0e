//! The spatial signature: one bit per grid cell, set where the solid may be.

use super::{Field3, FieldError, GridField};
use crate::bounds::Aabb3;
use crate::mesh::TriMesh;
use crate::primitive::test_triangle_aabb;
use glam::Vec3;

/// The most cells a [`SpatialSignature`] may have (32 MiB of bits).
pub const MAX_SIGNATURE_CELLS: u64 = 1 << 28;

/// A bit grid over a box: a cell's bit is set when the solid may reach into the cell, clear when
/// the cell certainly lies outside. Points outside the box are outside the solid.
///
/// Checking a point costs a few multiplications and one bit load, far less than evaluating most
/// fields, so a point set tested against a field skips the evaluation for every point whose bit
/// is clear ([`super::first_point_inside`]). Each constructor says for which solid its clear bits
/// are a guarantee.
#[derive(Clone, Debug, PartialEq)]
pub struct SpatialSignature {
    origin: Vec3,
    cell: f32,
    dims: [usize; 3],
    bits: Vec<u64>,
}

impl SpatialSignature {
    /// The signature of a closed mesh: the cells any triangle touches (exact triangle–box
    /// test), plus the cells entirely inside the solid (decided at their center). Clear bits are a
    /// guarantee for the mesh's own solid ([`TriMesh::contains_point`]).
    ///
    /// `Err(NotSolid)` for a mesh that is not closed and consistently oriented; `Err` for a `cell`
    /// that is not finite and positive or a grid of more than [`MAX_SIGNATURE_CELLS`].
    pub fn from_mesh(mesh: &TriMesh, cell: f32) -> Result<Self, FieldError> {
        if !mesh.is_solid() {
            return Err(FieldError::NotSolid);
        }
        let mut signature = Self::around(mesh.bounds(), cell)?;
        let mut surface = vec![false; signature.cell_count()];
        // Cells are tested slightly grown, so that rounding where a point is binned cannot put a
        // surface point in a cell its triangle was not found to touch.
        let grow = 1e-4 * cell;
        for t in 0..mesh.triangle_count() as u32 {
            let Some(corners) = mesh.triangle(t) else { continue };
            let lo = signature.cell_of(corners[0].min(corners[1]).min(corners[2]));
            let hi = signature.cell_of(corners[0].max(corners[1]).max(corners[2]));
            for k in lo[2]..=hi[2] {
                for j in lo[1]..=hi[1] {
                    for i in lo[0]..=hi[0] {
                        let index = signature.index(i, j, k);
                        if !surface[index]
                            && test_triangle_aabb(&corners, &signature.cell_box(i, j, k).expanded(grow))
                        {
                            surface[index] = true;
                            signature.set(index);
                        }
                    }
                }
            }
        }
        // A cell no triangle touches lies entirely inside or entirely outside.
        for k in 0..signature.dims[2] {
            for j in 0..signature.dims[1] {
                for i in 0..signature.dims[0] {
                    let index = signature.index(i, j, k);
                    if !surface[index]
                        && mesh.contains_point(signature.cell_box(i, j, k).center()) == Some(true)
                    {
                        signature.set(index);
                    }
                }
            }
        }
        Ok(signature)
    }

    /// The signature of any bounded field from its Lipschitz bound `L`: a box of half-diagonal
    /// `r` whose center value exceeds `L r` holds no point with a value `≤ 0`. A cell that this
    /// does not clear is split into octants, down to [`FIELD_SUBDIVISIONS`] levels, and is clear
    /// when every octant is. Clear bits are a guarantee for the field.
    ///
    /// `Err(NoBounds)` for a field without bounds; otherwise as [`SpatialSignature::from_mesh`].
    pub fn from_field(field: &impl Field3, cell: f32) -> Result<Self, FieldError> {
        let bounds = field.bounds().ok_or(FieldError::NoBounds)?;
        let mut signature = Self::around(bounds, cell)?;
        let lipschitz = field.lipschitz();
        for k in 0..signature.dims[2] {
            for j in 0..signature.dims[1] {
                for i in 0..signature.dims[0] {
                    if !provably_outside(field, lipschitz, signature.cell_box(i, j, k), FIELD_SUBDIVISIONS) {
                        signature.set(signature.index(i, j, k));
                    }
                }
            }
        }
        Ok(signature)
    }

    /// The exact signature of a grid field, `cells` grid cells to a side per signature cell (at
    /// least 1): the trilinear interpolant lies between the least and the largest of its cell's
    /// corner samples, so a grid cell can be inside only if one of its samples is `≤ 0`; each
    /// such cell sets every signature cell its closed box touches. Clear bits are a guarantee for
    /// the grid field.
    pub fn from_grid(grid: &GridField, cells: usize) -> Result<Self, FieldError> {
        let cells = cells.max(1);
        let [nx, ny, nz] = grid.dims();
        let cell = grid.cell_size() * cells as f32;
        let dims = [(nx - 1).div_ceil(cells), (ny - 1).div_ceil(cells), (nz - 1).div_ceil(cells)];
        let mut signature = Self::with_grid(grid.grid_bounds().min, cell, dims)?;
        // The signature cells a grid cell's closed span `[g, g + 1]` touches, on one axis.
        let span = |g: usize, axis: usize| g / cells..=((g + 1) / cells).min(dims[axis] - 1);
        for k in 0..nz - 1 {
            for j in 0..ny - 1 {
                for i in 0..nx - 1 {
                    let inside =
                        (0..8).any(|n| !(grid.sample(i + (n & 1), j + ((n >> 1) & 1), k + (n >> 2)) > 0.0));
                    if !inside {
                        continue;
                    }
                    for z in span(k, 2) {
                        for y in span(j, 1) {
                            for x in span(i, 0) {
                                signature.set(signature.index(x, y, z));
                            }
                        }
                    }
                }
            }
        }
        Ok(signature)
    }

    /// An all-clear signature with cells of side `cell` over `bounds` and half a cell more on
    /// every side, so that rounding never bins a point of `bounds` outside the grid.
    fn around(bounds: Aabb3, cell: f32) -> Result<Self, FieldError> {
        if !(cell.is_finite() && cell > 0.0) {
            return Err(FieldError::InvalidParameter("signature cell size"));
        }
        if !bounds.is_valid() {
            return Err(FieldError::NoBounds);
        }
        let counts = (bounds.size() / cell + Vec3::ONE).ceil();
        let cells = f64::from(counts.x) * f64::from(counts.y) * f64::from(counts.z);
        if !(cells <= MAX_SIGNATURE_CELLS as f64) {
            let cells = if cells.is_finite() { cells as u64 } else { u64::MAX };
            return Err(FieldError::TooManyCells { cells, limit: MAX_SIGNATURE_CELLS });
        }
        let dims = [counts.x as usize, counts.y as usize, counts.z as usize];
        Self::with_grid(bounds.min - Vec3::splat(0.5 * cell), cell, dims)
    }

    /// An all-clear signature of `dims` cells of side `cell` from `origin`.
    fn with_grid(origin: Vec3, cell: f32, dims: [usize; 3]) -> Result<Self, FieldError> {
        let count = dims[0] as u64 * dims[1] as u64 * dims[2] as u64;
        if count > MAX_SIGNATURE_CELLS {
            return Err(FieldError::TooManyCells { cells: count, limit: MAX_SIGNATURE_CELLS });
        }
        Ok(Self { origin, cell, dims, bits: vec![0; (count as usize).div_ceil(64)] })
    }

    /// Whether the solid may contain `p`: `false` guarantees that `p` is outside (see the
    /// constructor used). A NaN `p` gives `true` (nothing is guaranteed about it).
    #[inline]
    pub fn may_contain(&self, p: Vec3) -> bool {
        let q = (p - self.origin) / self.cell;
        // `q >= 0` is false for NaN, which must not read as "outside": test for outside instead.
        let (x, y, z) = (q.x as isize, q.y as isize, q.z as isize);
        if q.is_nan() {
            return true;
        }
        let outside = q.x < 0.0
            || q.y < 0.0
            || q.z < 0.0
            || x >= self.dims[0] as isize
            || y >= self.dims[1] as isize
            || z >= self.dims[2] as isize;
        !outside && self.get(self.index(x as usize, y as usize, z as usize))
    }

    /// Cells per axis.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// The cell side.
    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    /// How many cells are set, of how many.
    pub fn occupancy(&self) -> (usize, usize) {
        (self.bits.iter().map(|w| w.count_ones() as usize).sum(), self.cell_count())
    }

    /// Heap bytes of the bits.
    pub fn memory_bytes(&self) -> usize {
        self.bits.capacity() * size_of::<u64>()
    }

    fn cell_count(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    #[inline]
    fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    #[inline]
    fn get(&self, index: usize) -> bool {
        self.bits[index / 64] >> (index % 64) & 1 != 0
    }

    fn set(&mut self, index: usize) {
        self.bits[index / 64] |= 1 << (index % 64);
    }

    /// The cell holding `p`, clamped into the grid.
    fn cell_of(&self, p: Vec3) -> [usize; 3] {
        let q = ((p - self.origin) / self.cell).max(Vec3::ZERO);
        std::array::from_fn(|axis| (q[axis] as usize).min(self.dims[axis] - 1))
    }

    fn cell_box(&self, i: usize, j: usize, k: usize) -> Aabb3 {
        let min = self.origin + Vec3::new(i as f32, j as f32, k as f32) * self.cell;
        Aabb3::new(min, min + Vec3::splat(self.cell))
    }
}

/// How many times [`SpatialSignature::from_field`] halves a cell it cannot clear whole: up to
/// `8³` evaluations for a cell on the surface, one for a cell far from it.
pub const FIELD_SUBDIVISIONS: u32 = 3;

/// True if the Lipschitz bound shows that `field > 0` throughout `cell`, trying the whole box
/// first and then its octants, `depth` levels down. A NaN value proves nothing.
fn provably_outside(field: &impl Field3, lipschitz: f32, cell: Aabb3, depth: u32) -> bool {
    let center = cell.center();
    let value = field.value(center);
    if value > lipschitz * 0.5 * cell.size().length() {
        return true;
    }
    if !(value > 0.0) || depth == 0 {
        return false;
    }
    (0..8).all(|n| {
        let corner = Vec3::new(
            if n & 1 == 0 { cell.min.x } else { cell.max.x },
            if n & 2 == 0 { cell.min.y } else { cell.max.y },
            if n & 4 == 0 { cell.min.z } else { cell.max.z },
        );
        provably_outside(field, lipschitz, Aabb3::new(center.min(corner), center.max(corner)), depth - 1)
    })
}
