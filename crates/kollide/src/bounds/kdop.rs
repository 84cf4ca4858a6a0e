use glam::Vec3;

/// A k-DOP (discrete oriented polytope) with `N = k/2` fixed slab directions: every point `p`
/// with `min[i] <= axes()[i] · p <= max[i]` for all `i`.
///
/// Only the three standard direction sets exist, as [`Kdop14`] (`N = 7`), [`Kdop18`] (`N = 9`)
/// and [`Kdop26`] (`N = 13`); naming any other `Kdop<N>` is a compile-time error (the type is
/// bounded by the sealed trait [`KdopAxes`], implemented only for those three `N`).
///
/// The directions have integer components in `{-1, 0, 1}` and are not normalized: slab `i` bounds
/// `d_i · p` itself (for example `x + y + z`, not `(x + y + z)/√3`). This makes the projections
/// additions only, and it changes nothing for comparisons between DOPs of the same type.
///
/// The DOP is closed (boundary points are inside, touching DOPs overlap). A DOP with
/// `min[i] > max[i]` on some slab is empty; [`Kdop::EMPTY`] is the canonical one.
///
/// ```compile_fail
/// // A 10-DOP has no direction table: rejected by the compiler.
/// let _ = kollide::bounds::Kdop::<5>::EMPTY;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kdop<const N: usize>
where
    KdopDirections: KdopAxes<N>,
{
    pub min: [f32; N],
    pub max: [f32; N],
}

/// The 14-DOP: 3 coordinate axes and the 4 cube diagonals.
pub type Kdop14 = Kdop<7>;
/// The 18-DOP: 3 coordinate axes and the 6 edge diagonals.
pub type Kdop18 = Kdop<9>;
/// The 26-DOP: 3 coordinate axes, 4 cube diagonals and 6 edge diagonals.
pub type Kdop26 = Kdop<13>;

/// The carrier of the slab direction tables: `KdopDirections: KdopAxes<N>` holds exactly for
/// `N` in `{7, 9, 13}`.
#[derive(Clone, Copy, Debug)]
pub struct KdopDirections;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::KdopDirections {}
}

/// The slab directions of a `Kdop<N>`, as integer sign triples. Sealed: implemented only for
/// `N = 7` (14-DOP), `N = 9` (18-DOP) and `N = 13` (26-DOP).
#[diagnostic::on_unimplemented(
    message = "`Kdop<{N}>` is not a k-DOP kollide supports",
    note = "use Kdop14 (N = 7), Kdop18 (N = 9) or Kdop26 (N = 13)"
)]
pub trait KdopAxes<const N: usize>: sealed::Sealed {
    /// The `N` directions; every component is -1, 0 or 1.
    const AXES: [[i8; 3]; N];
}

const COORDINATE: [[i8; 3]; 3] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
const CORNERS: [[i8; 3]; 4] = [[1, 1, 1], [1, 1, -1], [1, -1, 1], [1, -1, -1]];
const EDGES: [[i8; 3]; 6] = [[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, -1, 0], [1, 0, -1], [0, 1, -1]];

/// The concatenation of direction tables, evaluated at compile time.
const fn concat<const N: usize>(parts: &[&[[i8; 3]]]) -> [[i8; 3]; N] {
    let mut out = [[0i8; 3]; N];
    let mut n = 0;
    let mut p = 0;
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[n] = parts[p][i];
            n += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(n == N, "direction table length mismatch");
    out
}

impl KdopAxes<7> for KdopDirections {
    const AXES: [[i8; 3]; 7] = concat(&[&COORDINATE, &CORNERS]);
}

impl KdopAxes<9> for KdopDirections {
    const AXES: [[i8; 3]; 9] = concat(&[&COORDINATE, &EDGES]);
}

impl KdopAxes<13> for KdopDirections {
    const AXES: [[i8; 3]; 13] = concat(&[&COORDINATE, &CORNERS, &EDGES]);
}

/// `d · p` for a direction with components in `{-1, 0, 1}`: additions and negations only.
/// A zero component contributes `-0.0`, the exact identity of addition, so that the coordinate
/// axes give exactly `x`, `y`, `z`.
#[inline(always)]
fn project(d: [i8; 3], p: Vec3) -> f32 {
    #[inline(always)]
    fn term(sign: i8, v: f32) -> f32 {
        match sign {
            1 => v,
            -1 => -v,
            _ => -0.0,
        }
    }
    term(d[0], p.x) + term(d[1], p.y) + term(d[2], p.z)
}

impl<const N: usize> Kdop<N>
where
    KdopDirections: KdopAxes<N>,
{
    /// The empty DOP: `min = +∞`, `max = -∞` on every slab. Identity of [`Kdop::merge`]; it
    /// contains no point and overlaps nothing.
    pub const EMPTY: Self = Self { min: [f32::INFINITY; N], max: [f32::NEG_INFINITY; N] };

    /// The `N` slab directions (unnormalized, components in `{-1, 0, 1}`): first the coordinate
    /// axes, then for 14 and 26 the cube diagonals `(1, ±1, ±1)`, then for 18 and 26 the edge
    /// diagonals `(1,1,0), (1,0,1), (0,1,1), (1,-1,0), (1,0,-1), (0,1,-1)`.
    pub fn axes() -> [Vec3; N] {
        <KdopDirections as KdopAxes<N>>::AXES
            .map(|d| Vec3::new(f32::from(d[0]), f32::from(d[1]), f32::from(d[2])))
    }

    /// The projections `axes()[i] · p` of one point (as the DOP computes them).
    #[inline]
    fn projections(p: Vec3) -> [f32; N] {
        <KdopDirections as KdopAxes<N>>::AXES.map(|d| project(d, p))
    }

    /// The tightest DOP of this type around the points, or `None` if `points` is empty or some
    /// point has a NaN or infinite coordinate. Every input point then passes
    /// [`Kdop::contains_point`] exactly (the same projections are used).
    pub fn from_points(points: &[Vec3]) -> Option<Self> {
        if points.is_empty() || !points.iter().all(|p| p.is_finite()) {
            return None;
        }
        let mut dop = Self::EMPTY;
        for &p in points {
            let s = Self::projections(p);
            for ((lo, hi), si) in dop.min.iter_mut().zip(dop.max.iter_mut()).zip(s) {
                *lo = lo.min(si);
                *hi = hi.max(si);
            }
        }
        Some(dop)
    }

    /// Whether some slab is inverted (`min > max`), i.e. the DOP contains no point.
    #[inline]
    pub fn is_empty(&self) -> bool {
        (0..N).any(|i| self.min[i] > self.max[i])
    }

    /// The smallest DOP of this type containing both: slab-wise `min` of the mins and `max` of
    /// the maxes. [`Kdop::EMPTY`] is the identity; NaN bounds are dropped (`f32::min`/`max`).
    #[inline]
    pub fn merge(&self, other: &Self) -> Self {
        Self {
            min: std::array::from_fn(|i| self.min[i].min(other.min[i])),
            max: std::array::from_fn(|i| self.max[i].max(other.max[i])),
        }
    }

    /// Whether the slab intervals of the two DOPs overlap on every direction (branchless).
    ///
    /// This is the standard k-DOP test: conservative, never a false negative, but two disjoint
    /// DOPs whose only separating direction is not one of the `N` (an edge-edge direction) are
    /// reported as overlapping. Touching counts. `false` if either DOP is [`Kdop::EMPTY`] or any
    /// bound is NaN; other inverted DOPs get the slab-wise test on the stored bounds.
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        (0..N).fold(true, |acc, i| acc & (self.min[i] <= other.max[i]) & (other.min[i] <= self.max[i]))
    }

    /// Whether `p` lies in every slab. `false` for empty DOPs and for any NaN.
    #[inline]
    pub fn contains_point(&self, p: Vec3) -> bool {
        let s = Self::projections(p);
        (0..N).fold(true, |acc, i| acc & (self.min[i] <= s[i]) & (s[i] <= self.max[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_tables() {
        assert_eq!(Kdop14::axes().len(), 7);
        assert_eq!(Kdop18::axes().len(), 9);
        assert_eq!(Kdop26::axes().len(), 13);
        let axes = Kdop26::axes();
        // All 13 distinct up to sign.
        for i in 0..13 {
            for j in 0..i {
                assert!(axes[i] != axes[j] && axes[i] != -axes[j]);
            }
        }
        assert_eq!(Kdop14::axes()[3], Vec3::ONE);
        assert_eq!(Kdop18::axes()[8], Vec3::new(0.0, 1.0, -1.0));
    }

    #[test]
    fn cube_and_empty() {
        let cube: Vec<Vec3> =
            (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32)).collect();
        let d = Kdop14::from_points(&cube).unwrap();
        assert_eq!(d.min[3], 0.0);
        assert_eq!(d.max[3], 3.0);
        assert!(d.contains_point(Vec3::splat(0.5)) && d.contains_point(Vec3::ONE));
        assert!(!d.contains_point(Vec3::splat(1.01)));
        assert!(!d.is_empty() && Kdop14::EMPTY.is_empty());
        assert_eq!(Kdop14::EMPTY.merge(&d), d);
        assert!(!Kdop14::EMPTY.overlaps(&d) && !d.overlaps(&Kdop14::EMPTY));
        assert!(!Kdop26::EMPTY.contains_point(Vec3::ZERO));
        // Beyond the corner (1, 1, 1): the boxes touch there, but the x + y + z slab separates.
        let tip = Kdop14::from_points(&[Vec3::new(1.0, 1.0, 1.4), Vec3::new(1.4, 1.4, 1.0)]).unwrap();
        assert!(!tip.overlaps(&d) && !d.overlaps(&tip));
        assert!((0..3).all(|i| tip.min[i] <= d.max[i] && d.min[i] <= tip.max[i]));
    }

    #[test]
    fn bad_input() {
        assert_eq!(Kdop18::from_points(&[]), None);
        assert_eq!(Kdop18::from_points(&[Vec3::ZERO, Vec3::NAN]), None);
        assert_eq!(Kdop26::from_points(&[Vec3::NEG_INFINITY]), None);
        let d = Kdop18::from_points(&[Vec3::ONE]).unwrap();
        assert!(d.contains_point(Vec3::ONE) && d.overlaps(&d) && !d.is_empty());
        assert!(!d.contains_point(Vec3::NAN));
    }
}
