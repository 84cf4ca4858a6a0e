//! Separating-axis motion resolution of 2D convex polygons (seed 003): how a polygon may move along
//! a velocity without entering another, decided in one pass over a set of axes.
//!
//! For every axis `n` (unit length) both polygons are projected onto `n`, giving the intervals
//! `[m0, m1]` (moving) and `[s0, s1]` (stationary); the velocity projects to `d = v · n`. The gap
//! on the side the moving polygon starts on (`s0 - m1` below, `m0 - s1` above, whichever is
//! larger) tells whether they overlap on `n` now, the same gap after adding `d` whether they do at
//! the end, and the smaller of the two whether the whole straight path stays apart on `n` (the
//! moving interval slides linearly). The smallest correction `c` along `n` that leaves the end
//! apart on that same side gives a candidate velocity `v + c n`. As in the seed, a candidate
//! longer than `v` or pointing against it (`candidate · v < 0`) is rejected, and the longest
//! remaining candidate is the answer.
//!
//! Which axes decide what:
//!
//! - The flags use the complete set of the separating axis theorem for a translating polygon:
//!   both polygons' edge normals and the velocity's perpendicular (the path misses the obstacle
//!   exactly when the segment `[0, v]` misses the Minkowski difference, whose edges are the
//!   polygons' edges). These axes are always projected; [`SatAxes`] chooses the axes that offer
//!   candidates: edge normals, the velocity's direction (stop short along the motion) and its
//!   perpendicular, and `k` fixed directions.
//! - A candidate comes only from an axis on which the polygons start apart, and keeps the moving
//!   polygon on the side of the axis it started on: it is then apart on that axis at both ends,
//!   hence along the whole straight path (no tunnelling through thin obstacles).
//!
//! Rounding. Gaps are computed in `f32` and carry a proven error bound (`ROUNDING` below). A
//! decision is taken in `f32` when the gap is farther than the bound from zero, and otherwise by
//! exact orientation tests on the exact geometry (the edge lines, and the lines parallel to the
//! motion through the moving polygon's vertices; translated vertices are never rounded). Corrections aim for a gap
//! of [`MOTION_SKIN`] (relative) beyond contact, so the polygons they leave apart stay provably
//! apart, and the next call starting from there is decided in `f32` again.

use std::fmt;
use std::ops::ControlFlow::{self, Break, Continue};

use crate::bounds::Aabb2;
use crate::broad::BroadPhase;
use crate::math::{Vec2, Vec4};
use glam::BVec4A;

mod batch;
mod exact;

use batch::{Batch, unit};
use exact::apart_exact;

/// The largest magnitude accepted for a vertex coordinate or a velocity component: `1e18`. Beyond
/// it the squares this algorithm forms could overflow `f32`.
pub const MAX_COORDINATE: f32 = 1e18;

/// Bound on the rounding error of an `f32` gap, relative to the scale `A + V` of the problem (`A`
/// the largest vertex coordinate magnitude, `V` the largest velocity component magnitude).
///
/// A gap is `fl(fl(ŝ - m̂) ∓ fl(w · n))` with `ŝ`, `m̂` computed extreme projections. With
/// `u = ε / 2`, `|p| ≤ √2 A`, `|w| ≤ |v| ≤ √2 V` and `|n| ≤ 1 + 2u`, each two-term dot product is
/// off by at most `γ₂ |p| |n| ≤ 2.9 u A` (`2.9 u V` for the velocity), and the two subtractions
/// add `u` of their results, `2.9 u A` and `u (5.7 A + 1.5 V)`: `11.4 u A + 4.4 u V` in all. The
/// axis is a rounded unit vector within `2u` of the direction of the exact edge normal or
/// velocity perpendicular; turning it by `θ` moves a gap between points within `√2 (A + V)` of
/// the origin by at most `θ · 2√2 (A + V) ≤ 5.7 u (A + V)`, so a gap below minus the bound on
/// every axis of the complete set also means an exact overlap. Total `17.1 u A + 10.1 u V`, below
/// `24 u (A + V)`.
const ROUNDING: f32 = 12.0 * f32::EPSILON;

/// The gap a corrected velocity leaves on the axis that stopped it, relative to the problem's
/// scale (largest vertex coordinate magnitude plus largest velocity component magnitude): three
/// times the rounding bound of the `f32` gaps, about `4.3e-6`. A polygon stopped against another
/// at coordinates around 10 rests about `4e-5` away from it.
pub const MOTION_SKIN: f32 = 3.0 * ROUNDING;

/// How many times [`resolve_motion_among2`] goes through the obstacles it found before giving up
/// on a velocity that every obstacle leaves unchanged (and answers zero).
pub const MAX_RESOLUTION_PASSES: usize = 4;

/// How many doubtful candidates (within rounding of contact) a resolution keeps for the exact
/// test, longest first.
const DOUBTFUL: usize = 4;

/// The four outputs of a motion resolution (seed 003).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionResolution2 {
    /// The polygons overlap at the start (their interiors meet: no line has one on each closed
    /// side; touching is not overlapping).
    pub were_colliding: bool,
    /// Moving by the input velocity makes them overlap: anywhere along the straight path when
    /// they start apart; at the end position when they start overlapping (every path from an
    /// overlap begins in overlap).
    pub would_have_collided: bool,
    /// Moving by [`velocity`](Self::velocity) leaves them overlapping at the end. Always `false`
    /// when they start apart.
    pub will_collide: bool,
    /// The velocity to apply: the input itself (the same bits) when it does not collide, a
    /// shorter one that does not collide when some axis offers one, zero when none does.
    pub velocity: Vec2,
}

/// Why a motion resolution was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatError {
    /// The moving polygon has no vertex.
    EmptyMoving,
    /// The stationary polygon has no vertex.
    EmptyStationary,
    /// The moving polygon's vertex at this index is NaN, infinite or beyond [`MAX_COORDINATE`].
    MovingVertex(usize),
    /// The stationary polygon's vertex at this index is NaN, infinite or beyond
    /// [`MAX_COORDINATE`].
    StationaryVertex(usize),
    /// The velocity is NaN, infinite or has a component beyond [`MAX_COORDINATE`].
    Velocity,
    /// [`resolve_motion_among2`]: the obstacle with this id has no vertex or a bad one.
    Obstacle(u32),
}

impl fmt::Display for SatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyMoving => write!(f, "the moving polygon has no vertex"),
            Self::EmptyStationary => write!(f, "the stationary polygon has no vertex"),
            Self::MovingVertex(i) => write!(f, "vertex {i} of the moving polygon is not finite or too large"),
            Self::StationaryVertex(i) => {
                write!(f, "vertex {i} of the stationary polygon is not finite or too large")
            }
            Self::Velocity => write!(f, "the velocity is not finite or too large"),
            Self::Obstacle(id) => {
                write!(f, "obstacle {id} has no vertex or one that is not finite or too large")
            }
        }
    }
}

impl std::error::Error for SatError {}

/// Which axes offer candidate velocities. The flags do not depend on it: they always use the
/// complete set (both polygons' edge normals and the velocity's perpendicular).
///
/// The seed's remark: with edge normals only, two boxes offer nothing but the x and y axes, so a
/// box moving at an angle misses the ideal axis; the velocity's direction and fixed directions
/// fill that gap.
#[derive(Clone, Debug, PartialEq)]
pub struct SatAxes {
    /// Both polygons' edge normals: slides along the faces that stop the motion.
    pub edge_normals: bool,
    /// The velocity's direction (stopping short along the motion) and its perpendicular.
    pub velocity: bool,
    /// Fixed unit directions, evenly spaced over a half turn (an axis and its opposite are the
    /// same axis); see [`SatAxes::with_basic`].
    basic: Vec<Vec2>,
}

impl SatAxes {
    /// Edge normals only, as in the seed.
    pub const EDGES: Self = Self::new(true, false);
    /// Edge normals and the velocity's direction and perpendicular (the default).
    pub const EDGES_AND_VELOCITY: Self = Self::new(true, true);
    /// A sensible count of fixed directions for [`SatAxes::with_basic`]: 8 (every 22.5°).
    pub const DEFAULT_BASIC: usize = 8;
    /// The largest count of fixed directions; larger requests are clamped to it.
    pub const MAX_BASIC: usize = 1024;

    /// The chosen kinds, without fixed directions.
    pub const fn new(edge_normals: bool, velocity: bool) -> Self {
        Self { edge_normals, velocity, basic: Vec::new() }
    }

    /// Every kind: edge normals, velocity and [`SatAxes::DEFAULT_BASIC`] fixed directions.
    pub fn all() -> Self {
        Self::EDGES_AND_VELOCITY.with_basic(Self::DEFAULT_BASIC)
    }

    /// The same axes plus `k` fixed directions at angles `π i / k`, `i = 0..k` (clamped to
    /// [`SatAxes::MAX_BASIC`]; 0 removes them). The directions along the coordinate axes are
    /// exact.
    pub fn with_basic(mut self, k: usize) -> Self {
        let k = k.min(Self::MAX_BASIC);
        self.basic = (0..k)
            .map(|i| {
                // Exact quarter turns, so that a box's faces get exactly axis-aligned normals.
                if 2 * i == k {
                    return Vec2::Y;
                }
                let (sin, cos) = (std::f64::consts::PI * i as f64 / k as f64).sin_cos();
                Vec2::new(cos as f32, sin as f32)
            })
            .collect();
        self
    }

    /// The fixed directions.
    pub fn basic(&self) -> &[Vec2] {
        &self.basic
    }
}

impl Default for SatAxes {
    fn default() -> Self {
        Self::EDGES_AND_VELOCITY
    }
}

/// Resolves the motion of the convex polygon `moving` by `velocity` against the convex polygon
/// `stationary`, both given by their vertices in world space (either winding; a point or a
/// segment is a valid polygon).
///
/// - Apart at the start: the input velocity when the straight path never overlaps (the same
///   bits); otherwise the longest candidate (see the module documentation) that is not longer
///   than the input and does not point against it, with which the polygons stay apart along the
///   whole straight path and end at least about [`MOTION_SKIN`] (relative) apart on the axis that
///   stopped the motion; zero when no axis offers one. `will_collide` is `false`.
/// - Overlapping at the start: the input when the end position is apart; otherwise the longest
///   accepted candidate that leaves the end apart (moving out of the overlap); otherwise the
///   input with its component deeper into the axis of least overlap removed, so that the overlap
///   measured on that axis, and with it the penetration depth, does not grow.
///
/// Exactness: every answer of "apart" (a flag, a returned velocity) holds for the exact
/// translates of the given vertices (touching counts as apart), decided by a proven `f32` error
/// bound and, within that bound of contact, by exact orientation tests. Convexity is not checked: a polygon that is
/// not convex is projected as its convex hull but tried on its own edge normals, which can report
/// a collision that is not there and, from such an overlap, answer a velocity that enters the
/// hulls.
///
/// Errors: an empty polygon, a vertex or velocity component that is NaN, infinite or beyond
/// [`MAX_COORDINATE`].
pub fn resolve_motion2(
    moving: &[Vec2],
    stationary: &[Vec2],
    velocity: Vec2,
    axes: &SatAxes,
) -> Result<MotionResolution2, SatError> {
    let m = check_polygon(moving).map_err(|bad| bad.map_or(SatError::EmptyMoving, SatError::MovingVertex))?;
    let s = check_polygon(stationary)
        .map_err(|bad| bad.map_or(SatError::EmptyStationary, SatError::StationaryVertex))?;
    let v = check_velocity(velocity)?;
    Ok(resolve_checked(moving, stationary, velocity, axes, m, s, v))
}

/// Resolves the motion of `moving` by `velocity` against the obstacles of `broad` that its reach
/// can meet, each obstacle's polygon given by `obstacle(id)` (ids it answers `None` for, such as the
/// moving object's own, are ignored); `found` is scratch space for the broad phase's answer.
///
/// The reach is the box of `moving` grown by the velocity's length on every side, which holds
/// every path a resolved velocity (never longer than the input) can take. The obstacles in it are
/// resolved in turn, by ascending id, each with the velocity the previous ones left; then again,
/// until a whole pass leaves the velocity unchanged (every obstacle then agrees with it) or
/// [`MAX_RESOLUTION_PASSES`] passes have run, after which the answer is zero. The flags combine
/// the obstacles' as "any": `were_colliding` and `would_have_collided` from the first pass (the
/// first obstacle the input collides with still sees the input), `will_collide` from the last
/// (after giving up: `were_colliding`).
///
/// The answer is exactly that of the same passes over every obstacle of `broad` in ascending id
/// order, since an obstacle outside the reach leaves every velocity unchanged.
///
/// Errors: those of [`resolve_motion2`] for `moving` and `velocity`, and
/// [`SatError::Obstacle`] for the first obstacle found whose polygon is empty or has a bad vertex.
pub fn resolve_motion_among2<'o, B: BroadPhase<Aabb2> + ?Sized>(
    moving: &[Vec2],
    velocity: Vec2,
    broad: &B,
    obstacle: impl Fn(u32) -> Option<&'o [Vec2]>,
    axes: &SatAxes,
    found: &mut Vec<u32>,
) -> Result<MotionResolution2, SatError> {
    let m = check_polygon(moving).map_err(|bad| bad.map_or(SatError::EmptyMoving, SatError::MovingVertex))?;
    let v = check_velocity(velocity)?;
    let reach = Aabb2::from_points(moving).expect("checked: finite, not empty");
    // |v| ≤ |v.x| + |v.y|; the pad keeps rounding of the grown box from cutting a path short.
    let grow = (velocity.x.abs() + velocity.y.abs()) * (1.0 + 4.0 * f32::EPSILON) + ROUNDING * (m + v);
    broad.query_box(&reach.expanded(grow), found);

    let mut current = velocity;
    let (mut were, mut would) = (false, false);
    for pass in 0..MAX_RESOLUTION_PASSES {
        let mut will = false;
        let before = current;
        for &id in found.iter() {
            let Some(polygon) = obstacle(id) else { continue };
            let s = check_polygon(polygon).map_err(|_| SatError::Obstacle(id))?;
            let r = resolve_checked(moving, polygon, current, axes, m, s, largest_component(current));
            if pass == 0 {
                were |= r.were_colliding;
                would |= r.would_have_collided;
            }
            will |= r.will_collide;
            current = r.velocity;
        }
        if current.to_array().map(f32::to_bits) == before.to_array().map(f32::to_bits) {
            return Ok(MotionResolution2 {
                were_colliding: were,
                would_have_collided: would,
                will_collide: will,
                velocity: current,
            });
        }
    }
    Ok(MotionResolution2 {
        were_colliding: were,
        would_have_collided: would,
        will_collide: were,
        velocity: Vec2::ZERO,
    })
}

/// The polygon's largest coordinate magnitude, or `Err(None)` when empty, `Err(Some(i))` for a
/// bad vertex `i`.
fn check_polygon(points: &[Vec2]) -> Result<f32, Option<usize>> {
    if points.is_empty() {
        return Err(None);
    }
    // Written so that NaN is invalid too.
    let valid = |a: Vec2| (a.x <= MAX_COORDINATE) & (a.y <= MAX_COORDINATE);
    let (mut scale, mut all_valid) = (0.0f32, true);
    for p in points {
        let a = p.abs();
        all_valid &= valid(a);
        scale = larger(scale, larger(a.x, a.y));
    }
    if all_valid { Ok(scale) } else { Err(points.iter().position(|p| !valid(p.abs()))) }
}

/// The larger of two numbers (the second if either is NaN).
#[inline(always)]
fn larger(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// The velocity's largest component magnitude.
fn check_velocity(v: Vec2) -> Result<f32, SatError> {
    let size = largest_component(v);
    if v.is_finite() && size <= MAX_COORDINATE { Ok(size) } else { Err(SatError::Velocity) }
}

/// `max(|v.x|, |v.y|)`.
fn largest_component(v: Vec2) -> f32 {
    v.x.abs().max(v.y.abs())
}

/// The resolution of validated input (`m`, `s`: the polygons' largest coordinate magnitudes, `v`:
/// the velocity's largest component magnitude).
fn resolve_checked(
    moving: &[Vec2],
    stationary: &[Vec2],
    velocity: Vec2,
    axes: &SatAxes,
    m: f32,
    s: f32,
    v: f32,
) -> MotionResolution2 {
    let free = MotionResolution2 {
        were_colliding: false,
        would_have_collided: false,
        will_collide: false,
        velocity,
    };
    let err = ROUNDING * (m.max(s) + v);
    let problem = Problem {
        moving,
        stationary,
        velocity,
        direction: (velocity != Vec2::ZERO).then(|| unit(velocity)),
        err,
        skin: 3.0 * err,
        speed2: length2(velocity),
        speed2_f32: velocity.length_squared(),
    };
    let mut scan = Scan::new();
    match problem.for_each_batch(axes, |batch| scan.visit(&problem, batch)) {
        // An axis proved the path apart; or there was none: two points at rest (a line through
        // both, any line if they coincide, has one on each closed side).
        Break(()) | Continue(false) => return free,
        Continue(true) => {}
    }
    let (start, path, end) = (scan.start.max_element(), scan.path.max_element(), scan.end.max_element());

    let apart = if start >= err {
        true
    } else if start < -err {
        false
    } else {
        apart_exact(moving, stationary, Vec2::ZERO, Vec2::ZERO)
    };
    if apart {
        let collides = path < -err || !apart_exact(moving, stationary, Vec2::ZERO, velocity);
        if !collides {
            return free;
        }
        // A doubtful candidate is used only if it beats the certified ones and passes the exact
        // test of its whole path; the longest that does.
        let certified = scan.certified();
        let best = scan
            .doubtful
            .iter()
            .flatten()
            .take_while(|d| certified.is_none_or(|c| d.length2 > c.length2))
            .find(|d| apart_exact(moving, stationary, Vec2::ZERO, d.velocity))
            .or(certified.as_ref());
        let velocity = best.map_or(Vec2::ZERO, |b| b.velocity);
        return MotionResolution2 {
            were_colliding: false,
            would_have_collided: true,
            will_collide: false,
            velocity,
        };
    }

    let end_apart = if end >= err {
        true
    } else if end < -err {
        false
    } else {
        apart_exact(moving, stationary, velocity, velocity)
    };
    if end_apart {
        return MotionResolution2 { were_colliding: true, ..free };
    }
    if let Some(escape) = problem.escape(axes) {
        return MotionResolution2 {
            were_colliding: true,
            would_have_collided: true,
            will_collide: false,
            velocity: escape.velocity,
        };
    }
    let velocity = problem.not_deeper(scan.shallowest());
    MotionResolution2 {
        were_colliding: true,
        would_have_collided: true,
        will_collide: !problem.end_apart(axes, velocity),
        velocity,
    }
}

/// One validated resolution problem.
struct Problem<'a> {
    moving: &'a [Vec2],
    stationary: &'a [Vec2],
    velocity: Vec2,
    /// The velocity's direction (`None` for zero).
    direction: Option<Vec2>,
    /// The rounding bound of every `f32` gap (`ROUNDING` times the scale).
    err: f32,
    /// The gap corrections aim for ([`MOTION_SKIN`] times the scale).
    skin: f32,
    /// `|velocity|²` in `f64`, for the rejection rules.
    speed2: f64,
    /// `|velocity|²` in `f32`, for the same rules decided four lanes at a time.
    speed2_f32: f32,
}

/// An accepted candidate velocity.
#[derive(Clone, Copy)]
struct Candidate {
    velocity: Vec2,
    length2: f64,
}

/// What one pass over the axes gathers, lane by lane (see [`Batch`]).
struct Scan {
    /// The largest start gap: the polygons start apart when it is positive.
    start: Vec4,
    /// The largest path gap (the smaller of start and end gap on the start side): the straight
    /// path stays apart when it is positive.
    path: Vec4,
    /// The largest end gap on either side: the end position is apart when it is positive.
    end: Vec4,
    /// The axis where the largest start gap was found, and whether the moving polygon starts
    /// below (1) or above (0) the stationary one on it.
    shallowest: (Vec4, Vec4, Vec4),
    /// Lane by lane, the squared length (`f32`, negative for none) and the velocity of the
    /// longest candidate proven in `f32` to keep the path apart.
    longest: (Vec4, Vec4, Vec4),
    /// The longest candidates within rounding of keeping the path apart (to be checked exactly),
    /// longest first.
    doubtful: [Option<Candidate>; DOUBTFUL],
}

impl Scan {
    fn new() -> Self {
        let none = Vec4::NEG_INFINITY;
        Self {
            start: none,
            path: none,
            end: none,
            shallowest: (Vec4::ZERO, Vec4::ZERO, Vec4::ZERO),
            longest: (Vec4::splat(-1.0), Vec4::ZERO, Vec4::ZERO),
            doubtful: [None; DOUBTFUL],
        }
    }

    /// Records a batch's gaps and candidates. Breaks when an axis proves the straight path
    /// apart.
    fn visit(&mut self, p: &Problem, batch: &Batch) -> ControlFlow<()> {
        let d = batch.nx * p.velocity.x + batch.ny * p.velocity.y;
        let (below, above) = (batch.below, batch.above);
        let start_below = below.cmpge(above);
        let start = Vec4::select(start_below, below, above);
        let end = Vec4::select(start_below, below - d, above + d);
        let path = start.min(end);
        let err = Vec4::splat(p.err);
        if path.cmpge(err).any() {
            return Break(());
        }
        let shallower = start.cmpgt(self.start);
        self.shallowest = (
            Vec4::select(shallower, batch.nx, self.shallowest.0),
            Vec4::select(shallower, batch.ny, self.shallowest.1),
            Vec4::select(shallower, Vec4::select(start_below, Vec4::ONE, Vec4::ZERO), self.shallowest.2),
        );
        self.start = self.start.max(start);
        self.path = self.path.max(path);
        self.end = self.end.max((below - d).max(above + d));
        // Candidates stay on the start side (those from an overlapping start are gathered only
        // when the start turns out to overlap, by `Problem::escape`): each lane's velocity
        // corrected along its axis so that the end gap on the start side is the skin (see
        // `Problem::corrected`, the same arithmetic lane by lane).
        let skin = Vec4::splat(p.skin);
        let offering = (start.cmpge(-err) & end.cmplt(skin)).bitmask() & batch.offers;
        if offering == 0 {
            return Continue(());
        }
        let c = Vec4::select(start_below, below - skin, skin - above) - d;
        let (wx, wy) = (Vec4::splat(p.velocity.x) + batch.nx * c, Vec4::splat(p.velocity.y) + batch.ny * c);
        let wn = wx * batch.nx + wy * batch.ny;
        let end_gap = Vec4::select(start_below, below - wn, above + wn);
        let accepted = p.accepted(wx, wy, offering);
        let certified = accepted & (start.cmpge(err) & end_gap.cmpge(err)).bitmask();
        let candidate = |lane: usize| {
            let w = Vec2::new(wx[lane], wy[lane]);
            Candidate { velocity: w, length2: length2(w) }
        };
        // The longest certified candidate so far is kept lane by lane, without a branch.
        let l2 = wx * wx + wy * wy;
        let longer = lane_mask(certified) & l2.cmpgt(self.longest.0);
        self.longest = (
            Vec4::select(longer, l2, self.longest.0),
            Vec4::select(longer, wx, self.longest.1),
            Vec4::select(longer, wy, self.longest.2),
        );
        let mut doubtful = accepted & !certified & end_gap.cmpge(-err).bitmask();
        while doubtful != 0 {
            let lane = doubtful.trailing_zeros() as usize;
            doubtful &= doubtful - 1;
            self.offer_doubtful(candidate(lane));
        }
        Continue(())
    }

    /// The longest certified candidate (the first lane on a tie).
    fn certified(&self) -> Option<Candidate> {
        let (l2, wx, wy) = self.longest;
        let lane = (0..4).fold(0, |best, lane| if l2[lane] > l2[best] { lane } else { best });
        (l2[lane] >= 0.0).then(|| {
            let w = Vec2::new(wx[lane], wy[lane]);
            Candidate { velocity: w, length2: length2(w) }
        })
    }

    /// The axis of least overlap at the start and whether the moving polygon is below on it.
    fn shallowest(&self) -> (Vec2, bool) {
        let lane = (0..4).fold(0, |best, lane| if self.start[lane] > self.start[best] { lane } else { best });
        (Vec2::new(self.shallowest.0[lane], self.shallowest.1[lane]), self.shallowest.2[lane] == 1.0)
    }

    /// Inserts `c` among the longest doubtful candidates (after those of equal length).
    fn offer_doubtful(&mut self, mut c: Candidate) {
        for slot in &mut self.doubtful {
            match slot {
                Some(kept) if kept.length2 >= c.length2 => {}
                _ => match slot.replace(c) {
                    Some(shorter) => c = shorter,
                    None => return,
                },
            }
        }
    }
}

/// Keeps the longer of `best` and `c` (the first on a tie).
fn offer(best: &mut Option<Candidate>, c: Candidate) {
    if best.is_none_or(|b| c.length2 > b.length2) {
        *best = Some(c);
    }
}

impl Problem<'_> {
    fn for_each_batch(
        &self,
        axes: &SatAxes,
        visit: impl FnMut(&Batch) -> ControlFlow<()>,
    ) -> ControlFlow<(), bool> {
        batch::for_each_batch(self.moving, self.stationary, self.direction, axes, visit)
    }

    /// From an overlapping start: the longest candidate proven in `f32` to leave the end apart,
    /// each axis correcting towards the side where the end is nearer to apart.
    fn escape(&self, axes: &SatAxes) -> Option<Candidate> {
        let mut best = None;
        let _ = self.for_each_batch(axes, |batch| {
            for lane in (0..4).filter(|&lane| batch.offers & (1 << lane) != 0) {
                let (below, above) = (batch.below[lane], batch.above[lane]);
                let n = batch.axis(lane);
                let d = self.velocity.dot(n);
                let (end_below, end_above) = (below - d, above + d);
                if end_below.max(end_above) < self.skin {
                    if let Some((c, end_gap)) = self.corrected(n, end_below >= end_above, below, above, d) {
                        if end_gap >= self.err {
                            offer(&mut best, c);
                        }
                    }
                }
            }
            Continue(())
        });
        best
    }

    /// The velocity corrected along `n` so that the end gap on the given side is the skin, with
    /// its end gap recomputed in `f32` (how far the correction really got), if the seed's
    /// rejection rules accept it (not longer than the input, not against it).
    fn corrected(
        &self,
        n: Vec2,
        below_side: bool,
        below: f32,
        above: f32,
        d: f32,
    ) -> Option<(Candidate, f32)> {
        // The wanted w · n: below, s0 - (m1 + w·n) = skin; above, (m0 + w·n) - s1 = skin.
        let wanted = if below_side { below - self.skin } else { self.skin - above };
        let w = self.velocity + n * (wanted - d);
        if !self.accepts(w) {
            return None;
        }
        let wn = w.dot(n);
        let end_gap = if below_side { below - wn } else { above + wn };
        Some((Candidate { velocity: w, length2: length2(w) }, end_gap))
    }

    /// The seed's rejection rules: `w` is not longer than the velocity and not against it
    /// (`w · v ≥ 0`), decided in `f64` (exact products).
    fn accepts(&self, w: Vec2) -> bool {
        let along = f64::from(w.x) * f64::from(self.velocity.x) + f64::from(w.y) * f64::from(self.velocity.y);
        length2(w) <= self.speed2 && along >= 0.0
    }

    /// [`accepts`](Self::accepts) of the velocities `(wx, wy)` lane by lane, for the lanes set
    /// in `lanes`, as a bit mask. Decided in `f32` where its rounding cannot change the answer:
    /// a sum of two products is within `2u` of its magnitude sum (plus `2^-148` for subnormal
    /// products), so margins of `16u` on the lengths and of `4u` of the magnitude sum on `w · v`
    /// leave the answer certain; the other lanes go through `f64`.
    fn accepted(&self, wx: Vec4, wy: Vec4, lanes: u32) -> u32 {
        let (vx, vy) = (Vec4::splat(self.velocity.x), Vec4::splat(self.velocity.y));
        let (l2, along) = (wx * wx + wy * wy, wx * vx + wy * vy);
        let slack =
            (wx.abs() * vx.abs() + wy.abs() * vy.abs()) * (2.0 * f32::EPSILON) + 4.0 * f32::from_bits(1);
        let (mut sure, mut unsure) = (0, lanes);
        if self.speed2_f32 >= 1e-30 {
            let short = Vec4::splat(self.speed2_f32 * (1.0 - 8.0 * f32::EPSILON));
            let long = Vec4::splat(self.speed2_f32 * (1.0 + 8.0 * f32::EPSILON));
            sure = (l2.cmple(short) & along.cmpge(slack)).bitmask() & lanes;
            let refused = (l2.cmpgt(long) | along.cmplt(-slack)).bitmask();
            unsure = lanes & !sure & !refused;
        }
        while unsure != 0 {
            let lane = unsure.trailing_zeros() as usize;
            unsure &= unsure - 1;
            if self.accepts(Vec2::new(wx[lane], wy[lane])) {
                sure |= 1 << lane;
            }
        }
        sure
    }

    /// From an overlapping start: the velocity without its component deeper into the shallowest
    /// axis (shortened by a few ulps if rounding made it longer than the input; zero if even that
    /// fails).
    fn not_deeper(&self, (axis, below): (Vec2, bool)) -> Vec2 {
        let v = self.velocity;
        let d = v.dot(axis);
        let deeper = if below { d > 0.0 } else { d < 0.0 };
        if !deeper {
            return v;
        }
        let mut w = v - axis * d;
        for _ in 0..2 {
            if self.accepts(w) {
                return w;
            }
            w *= 1.0 - 2.0 * f32::EPSILON;
        }
        Vec2::ZERO
    }

    /// Whether the moving polygon translated by `w` is apart from the stationary one.
    fn end_apart(&self, axes: &SatAxes, w: Vec2) -> bool {
        let mut end = Vec4::NEG_INFINITY;
        let err = Vec4::splat(self.err);
        let _ = self.for_each_batch(axes, |batch| {
            let d = batch.nx * w.x + batch.ny * w.y;
            end = end.max((batch.below - d).max(batch.above + d));
            if end.cmpge(err).any() { Break(()) } else { Continue(()) }
        });
        let end = end.max_element();
        if end >= self.err {
            true
        } else if end < -self.err {
            false
        } else {
            apart_exact(self.moving, self.stationary, w, w)
        }
    }
}

/// The lanes set in the bit mask `bits`.
#[inline]
fn lane_mask(bits: u32) -> BVec4A {
    BVec4A::new(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0)
}

/// `|w|²` in `f64` (exact products).
#[inline]
fn length2(w: Vec2) -> f64 {
    f64::from(w.x) * f64::from(w.x) + f64::from(w.y) * f64::from(w.y)
}
