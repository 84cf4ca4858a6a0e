//! The axes of the separating-axis motion resolution in batches of four, normalised and projected
//! together (one SIMD lane per axis, so no sum or extremum crosses lanes).

use std::ops::ControlFlow::{self, Continue};

use super::SatAxes;
use crate::math::{Vec2, Vec4};

/// Up to four unit axes and both polygons' gaps on them. Lanes past `len` repeat lane 0 and
/// offer nothing, so that extrema over all four lanes are those over the axes.
pub(super) struct Batch {
    pub nx: Vec4,
    pub ny: Vec4,
    /// The gap with the moving polygon below the stationary one, `s0 - m1` (negative when the
    /// projections overlap).
    pub below: Vec4,
    /// The gap with the moving polygon above, `m0 - s1`.
    pub above: Vec4,
    /// Which axes offer candidates (see [`SatAxes`]), one bit per lane.
    pub offers: u32,
}

impl Batch {
    /// The axis of `lane`.
    pub fn axis(&self, lane: usize) -> Vec2 {
        Vec2::new(self.nx[lane], self.ny[lane])
    }
}

/// Calls `visit` on batches holding every axis: the velocity's perpendicular and direction (from
/// its unit `direction`, if nonzero; the direction offers candidates only if `axes.velocity`),
/// the stationary then the moving polygon's edge normals, the fixed directions. The velocity's
/// axes come first since the perpendicular proves most misses. Returns `Continue(false)` when
/// there was no axis at all.
pub(super) fn for_each_batch(
    moving: &[Vec2],
    stationary: &[Vec2],
    direction: Option<Vec2>,
    axes: &SatAxes,
    mut visit: impl FnMut(&Batch) -> ControlFlow<()>,
) -> ControlFlow<(), bool> {
    let mut any = direction.is_some();
    if let Some(u) = direction {
        // A batch of its own, built in registers: it settles most misses before any edge is
        // looked at.
        let p = u.perp();
        let (nx, ny) = (Vec4::new(p.x, u.x, p.x, u.x), Vec4::new(p.y, u.y, p.y, u.y));
        let (m0, m1) = project(moving, nx, ny);
        let (s0, s1) = project(stationary, nx, ny);
        let offers = if axes.velocity { 0b11 } else { 0 };
        visit(&Batch { nx, ny, below: s0 - m1, above: m0 - s1, offers })?;
    }
    // Directions are gathered in a buffer before any is projected, so that loading four of
    // them at once does not wait on the stores that wrote them one by one.
    let mut buffer = Directions { x: [0.0; CAPACITY], y: [0.0; CAPACITY], offers: 0, len: 0 };
    let mut project_all = |buffer: &mut Directions| -> ControlFlow<()> {
        any |= buffer.len > 0;
        buffer.pad();
        // Each batch is normalised one step ahead of its projection, so that its divisions
        // overlap the projection before it.
        buffer.normalise(0);
        buffer.normalise(4);
        for start in (0..buffer.len).step_by(8) {
            buffer.normalise(start + 8);
            buffer.normalise(start + 12);
            let [first, second] = buffer.batches(start, moving, stationary);
            visit(&first)?;
            if start + 4 < buffer.len {
                visit(&second)?;
            }
        }
        (buffer.len, buffer.offers) = (0, 0);
        Continue(())
    };
    for polygon in [stationary, moving] {
        let mut prev = polygon[polygon.len() - 1];
        for &p in polygon {
            let edge = p - prev;
            prev = p;
            if edge != Vec2::ZERO {
                if buffer.len == CAPACITY {
                    project_all(&mut buffer)?;
                }
                buffer.push(edge.perp(), axes.edge_normals);
            }
        }
    }
    for &n in axes.basic() {
        if buffer.len == CAPACITY {
            project_all(&mut buffer)?;
        }
        buffer.push(n, true);
    }
    project_all(&mut buffer)?;
    Continue(any)
}

/// Directions gathered before projection (a multiple of four).
const CAPACITY: usize = 16;

/// Nonzero directions, not yet normalised, coordinates apart.
struct Directions {
    x: [f32; CAPACITY],
    y: [f32; CAPACITY],
    /// Which directions offer candidates, one bit each.
    offers: u32,
    len: usize,
}

impl Directions {
    /// Appends a direction (the caller keeps `len < CAPACITY`).
    #[inline]
    fn push(&mut self, dir: Vec2, offers: bool) {
        (self.x[self.len], self.y[self.len]) = (dir.x, dir.y);
        self.offers |= u32::from(offers) << self.len;
        self.len += 1;
    }

    /// Fills the last batch with copies of its first direction (offering nothing).
    fn pad(&mut self) {
        let first = self.len & !3;
        if first < self.len {
            for lane in self.len..first + 4 {
                (self.x[lane], self.y[lane]) = (self.x[first], self.y[first]);
            }
        }
    }

    /// Scales the four directions from `start`, if there are any, to unit length.
    #[inline]
    fn normalise(&mut self, start: usize) {
        if start >= self.len {
            return;
        }
        let (nx, ny) = (Vec4::from_slice(&self.x[start..]), Vec4::from_slice(&self.y[start..]));
        let len2 = nx * nx + ny * ny;
        if len2.cmpgt(Vec4::splat(1e-30)).all() && len2.is_finite() {
            let inv = len2.sqrt().recip();
            (nx * inv).write_to_slice(&mut self.x[start..]);
            (ny * inv).write_to_slice(&mut self.y[start..]);
        } else {
            for lane in start..start + 4 {
                let n = unit(Vec2::new(self.x[lane], self.y[lane]));
                (self.x[lane], self.y[lane]) = (n.x, n.y);
            }
        }
    }

    /// The eight (normalised) directions from `start` as two batches, with both polygons' gaps
    /// on them (the second batch is meaningless past `len`).
    #[inline]
    fn batches(&self, start: usize, moving: &[Vec2], stationary: &[Vec2]) -> [Batch; 2] {
        let n = [0, 4]
            .map(|at| (Vec4::from_slice(&self.x[start + at..]), Vec4::from_slice(&self.y[start + at..])));
        let m = project_pair(moving, n);
        let s = project_pair(stationary, n);
        [0, 1].map(|i| Batch {
            nx: n[i].0,
            ny: n[i].1,
            below: s[i].0 - m[i].1,
            above: m[i].0 - s[i].1,
            offers: (self.offers >> (start + 4 * i)) & 0b1111,
        })
    }
}

/// `(min, max)` over the points of their projections onto four axes, lane by lane (each
/// `x n.x + y n.y`, rounded as `Vec2::dot`).
#[inline]
fn project(points: &[Vec2], nx: Vec4, ny: Vec4) -> (Vec4, Vec4) {
    let (mut lo, mut hi) = (Vec4::INFINITY, Vec4::NEG_INFINITY);
    for p in points {
        let x = nx * p.x + ny * p.y;
        lo = lo.min(x);
        hi = hi.max(x);
    }
    (lo, hi)
}

/// [`project`] onto two groups of four axes in one pass over the points.
#[inline]
fn project_pair(points: &[Vec2], n: [(Vec4, Vec4); 2]) -> [(Vec4, Vec4); 2] {
    let (mut lo, mut hi) = ([Vec4::INFINITY; 2], [Vec4::NEG_INFINITY; 2]);
    for p in points {
        for i in 0..2 {
            let x = n[i].0 * p.x + n[i].1 * p.y;
            lo[i] = lo[i].min(x);
            hi[i] = hi[i].max(x);
        }
    }
    [(lo[0], hi[0]), (lo[1], hi[1])]
}

/// The nonzero `e` scaled to unit length. Vectors whose squared length leaves the normal range
/// of `f32` are scaled in `f64`.
pub(super) fn unit(e: Vec2) -> Vec2 {
    let len2 = e.length_squared();
    if len2 > 1e-30 && len2.is_finite() {
        e * len2.sqrt().recip()
    } else {
        let d = e.as_dvec2();
        (d / d.length()).as_vec2()
    }
}
