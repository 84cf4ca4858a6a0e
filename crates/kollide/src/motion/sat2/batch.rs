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
    /// Whether each axis offers candidates (see [`SatAxes`]).
    pub offers: [bool; 4],
}

impl Batch {
    /// The axis of `lane`.
    pub fn axis(&self, lane: usize) -> Vec2 {
        Vec2::new(self.nx[lane], self.ny[lane])
    }
}

/// Calls `visit` on batches holding every axis: the velocity's perpendicular and direction (from
/// its unit `direction`, if nonzero), the stationary then the moving polygon's edge normals, the
/// fixed directions. The velocity's axes come first since the perpendicular proves most misses.
pub(super) fn for_each_batch(
    moving: &[Vec2],
    stationary: &[Vec2],
    direction: Option<Vec2>,
    axes: &SatAxes,
    visit: impl FnMut(&Batch) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let mut filler = Filler { moving, stationary, dirs: [Vec2::ZERO; 4], offers: [false; 4], len: 0, visit };
    if let Some(u) = direction {
        filler.push(u.perp(), axes.velocity)?;
        if axes.velocity {
            filler.push(u, true)?;
        }
    }
    for polygon in [stationary, moving] {
        let mut prev = polygon[polygon.len() - 1];
        for &p in polygon {
            let edge = p - prev;
            prev = p;
            if edge != Vec2::ZERO {
                filler.push(edge.perp(), axes.edge_normals)?;
            }
        }
    }
    for &n in axes.basic() {
        filler.push(n, true)?;
    }
    filler.flush()
}

/// Gathers directions four at a time.
struct Filler<'a, F> {
    moving: &'a [Vec2],
    stationary: &'a [Vec2],
    /// Nonzero directions, not yet normalised.
    dirs: [Vec2; 4],
    offers: [bool; 4],
    len: usize,
    visit: F,
}

impl<F: FnMut(&Batch) -> ControlFlow<()>> Filler<'_, F> {
    #[inline]
    fn push(&mut self, dir: Vec2, offers: bool) -> ControlFlow<()> {
        self.dirs[self.len] = dir;
        self.offers[self.len] = offers;
        self.len += 1;
        if self.len == 4 { self.flush() } else { Continue(()) }
    }

    /// Normalises and projects the gathered directions and visits them.
    fn flush(&mut self) -> ControlFlow<()> {
        if self.len == 0 {
            return Continue(());
        }
        for lane in self.len..4 {
            self.dirs[lane] = self.dirs[0];
            self.offers[lane] = false;
        }
        self.len = 0;
        let d = &self.dirs;
        let (mut nx, mut ny) = (Vec4::new(d[0].x, d[1].x, d[2].x, d[3].x), Vec4::new(d[0].y, d[1].y, d[2].y, d[3].y));
        let len2 = nx * nx + ny * ny;
        if len2.cmpgt(Vec4::splat(1e-30)).all() && len2.is_finite() {
            let inv = len2.sqrt().recip();
            (nx, ny) = (nx * inv, ny * inv);
        } else {
            for lane in 0..4 {
                let n = unit(d[lane]);
                (nx[lane], ny[lane]) = (n.x, n.y);
            }
        }
        let (m0, m1) = project(self.moving, nx, ny);
        let (s0, s1) = project(self.stationary, nx, ny);
        (self.visit)(&Batch { nx, ny, below: s0 - m1, above: m0 - s1, offers: self.offers })
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
