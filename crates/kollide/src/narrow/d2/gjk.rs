//! GJK in the plane: distance, closest points and the overlap test of two support maps with
//! margins, and the simplex the other 2D algorithms start from.
//!
//! The iteration is van den Bergen's, as in the 3D `narrow::gjk`: `v` is the point of the current
//! simplex closest to the origin, the next vertex is the support point of `A - B` along `-v`, and
//! the loop stops when `|v|² - v·w` (which bounds `|v| (|v| - dist)` from above) falls below
//! [`GJK_RELATIVE`]` |v|²` or below its own rounding noise, or when `w` is already a vertex (how
//! it ends on polygons, exactly). In the plane the simplex is at most a triangle, and its solver
//! decides every side with the exact orientation predicate [`orient2d`], so the overlap decision
//! is exact for the computed vertices `w = a - b`:
//!
//! - the origin is in a triangle when no edge has it strictly outside (closed: touching counts);
//! - the closest point of an edge is the projection `e⊥ (e⊥·p) / |e|²` on its line, normal to the
//!   computed edge whatever its length, on the side the exact predicate gives; an origin on the
//!   line (or on the wrong side by rounding) is on the edge: the cores touch.

use glam::Vec2;

use crate::math::tolerances::REL_EPSILON;
use crate::primitive::orient2d;
use crate::shape::SupportMap2;

/// Iteration cap of the GJK loop: polygons of `n` vertices end in about `n` steps or fewer, and
/// smooth shapes halve the angle the simplex spans at each step, reaching [`GJK_RELATIVE`] in
/// about a dozen.
const MAX_ITERATIONS: usize = 64;

/// Relative tolerance of the stopping test `|v|² - v·w ≤ GJK_RELATIVE |v|²`: the distance of
/// smooth shapes is found within `GJK_RELATIVE` of itself (polygons end on a repeated vertex).
const GJK_RELATIVE: f32 = 1e-6;

/// A caller-owned warm start for one pair of shapes: the search directions of the last simplex.
/// Any content is valid (only the number of iterations depends on it, never the answer, up to
/// the tolerances); a default cache is empty.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GjkCache2 {
    dirs: [Vec2; 3],
    len: u8,
}

impl GjkCache2 {
    /// Forgets the warm start.
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Whether the cache holds a warm start.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A warm start from one search direction `dir` (from A toward B, such as a separating axis):
    /// the first support points are A's farthest along `dir` and B's farthest against it.
    pub fn from_direction(dir: Vec2) -> Self {
        Self { dirs: [dir, Vec2::ZERO, Vec2::ZERO], len: 1 }
    }
}

/// The distance between two shapes, each a core support map plus a disk of radius `margin`
/// (see [`gjk_distance2`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distance2 {
    /// Distance between the full shapes (margins included); 0 when they touch or overlap.
    pub distance: f32,
    /// Closest point of the full shape A. When only the margins overlap, the core witness moved
    /// out by A's margin along `normal` (then `point_b - point_a` points against `normal`); when
    /// the cores overlap, a point of both cores.
    pub point_a: Vec2,
    /// Closest point of the full shape B, as `point_a` (the core witness moved back by B's
    /// margin); equal to `point_a` when the cores overlap.
    pub point_b: Vec2,
    /// Unit direction from A to B; `(0, 0)` only when the cores overlap (or on bad input).
    pub normal: Vec2,
    /// Whether the cores touch or overlap (GJK found the origin in their Minkowski difference).
    pub cores_overlap: bool,
}

impl Distance2 {
    /// The answer to non-finite input: infinitely far apart.
    const INVALID: Self = Self {
        distance: f32::INFINITY,
        point_a: Vec2::ZERO,
        point_b: Vec2::ZERO,
        normal: Vec2::ZERO,
        cores_overlap: false,
    };
}

/// A vertex of the Minkowski difference `A - B`: `w = a - b` with `a = support_A(dir)` and
/// `b = support_B(-dir)`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Vertex2 {
    pub a: Vec2,
    pub b: Vec2,
    pub w: Vec2,
    pub dir: Vec2,
}

impl Vertex2 {
    #[inline]
    fn is_finite(&self) -> bool {
        self.a.is_finite() && self.b.is_finite() && self.w.is_finite()
    }
}

#[inline]
pub(super) fn support_vertex<A, B>(a: &A, b: &B, dir: Vec2) -> Option<Vertex2>
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    let (pa, pb) = (a.support(dir), b.support(-dir));
    let vertex = Vertex2 { a: pa, b: pb, w: pa - pb, dir };
    vertex.is_finite().then_some(vertex)
}

/// A simplex of 1 to 3 vertices with the barycentric weights of its point closest to the origin.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Simplex2 {
    pub v: [Vertex2; 3],
    pub weights: [f32; 3],
    pub len: usize,
}

impl Simplex2 {
    /// `Σ λᵢ aᵢ` and `Σ λᵢ bᵢ`: the witness points of the closest point.
    pub fn witnesses(&self) -> (Vec2, Vec2) {
        let mut pa = Vec2::ZERO;
        let mut pb = Vec2::ZERO;
        for (v, &w) in self.v[..self.len].iter().zip(&self.weights) {
            pa += v.a * w;
            pb += v.b * w;
        }
        (pa, pb)
    }

    /// The largest coordinate magnitude of the vertices' support points: the scale of their
    /// rounding errors.
    pub fn coordinate_scale(&self) -> f32 {
        self.v[..self.len]
            .iter()
            .fold(0.0f32, |m, v| m.max(v.a.abs().max_element()).max(v.b.abs().max_element()))
    }

    /// Replaces the simplex by the smallest face holding its point closest to the origin and
    /// returns that point; `None` when the origin is in the triangle (the weights are then its
    /// barycentric coordinates).
    fn solve(&mut self) -> Option<Vec2> {
        let w = [self.v[0].w, self.v[1].w, self.v[2].w];
        match self.len {
            1 => {
                self.weights = [1.0, 0.0, 0.0];
                Some(w[0])
            }
            2 => {
                let (point, [u, v]) = closest_on_segment(w[0], w[1]);
                self.reduce([u, v, 0.0]);
                Some(point)
            }
            _ => match closest_on_triangle(w) {
                Ok((point, weights)) => {
                    self.reduce(weights);
                    Some(point)
                }
                Err(weights) => {
                    self.weights = weights;
                    None
                }
            },
        }
    }

    /// Keeps the vertices of positive weight, in order, with their weights.
    fn reduce(&mut self, weights: [f32; 3]) {
        let mut len = 0;
        for (i, &w) in weights.iter().enumerate().take(self.len) {
            if w > 0.0 {
                self.v[len] = self.v[i];
                self.weights[len] = w;
                len += 1;
            }
        }
        if len == 0 {
            // Unreachable for finite vertices (the weights sum to 1); keep the newest.
            self.v[0] = self.v[self.len - 1];
            self.weights[0] = 1.0;
            len = 1;
        }
        self.len = len;
    }
}

/// The point of segment `p q` closest to the origin with its barycentric weights; `(0, 0)` when
/// the origin is on the segment (exactly, or within the rounding of the projection).
fn closest_on_segment(p: Vec2, q: Vec2) -> (Vec2, [f32; 2]) {
    let e = q - p;
    let ee = e.length_squared();
    // Voronoi regions of the endpoints: the origin projects before p or after q.
    let (past_p, before_q) = (-p.dot(e), q.dot(e));
    if !(past_p > 0.0) || !(ee >= f32::MIN_POSITIVE) {
        return (p, [1.0, 0.0]);
    }
    if !(before_q > 0.0) {
        return (q, [0.0, 1.0]);
    }
    let sum = past_p + before_q;
    let weights = [before_q / sum, past_p / sum];
    // The origin is left of p → q exactly when `e⊥·p = e.perp_dot(p) < 0`: the computed height
    // must have the sign the exact predicate gives, else it is rounding noise.
    let height = e.perp_dot(p);
    let side = orient2d(p, q, Vec2::ZERO) as f32;
    if !(height * side < 0.0) {
        return (Vec2::ZERO, weights);
    }
    (e.perp() * (height / ee), weights)
}

/// The point of triangle `p` closest to the origin with its barycentric weights, or `Err` with
/// the origin's barycentric coordinates when the origin is in it (boundary included). A
/// collinear triangle is the union of its edges.
fn closest_on_triangle(p: [Vec2; 3]) -> Result<(Vec2, [f32; 3]), [f32; 3]> {
    let turn = orient2d(p[0], p[1], p[2]);
    // outside[k]: the origin is strictly outside the edge opposite vertex k (whose barycentric
    // coordinate is then negative); on a collinear triangle every edge is a candidate.
    let outside: [bool; 3] =
        std::array::from_fn(|k| turn == 0 || orient2d(p[(k + 1) % 3], p[(k + 2) % 3], Vec2::ZERO) == -turn);
    if !outside.iter().any(|&o| o) {
        // Inside: λₖ ∝ pᵢ × pⱼ (twice the signed area of the origin with the opposite edge), in
        // f64, where the products of f32 coordinates are exact: GJK's triangles are often
        // slivers (thin shapes), whose weights f32 would get wrong; rounding may still make one
        // slightly negative.
        let area = std::array::from_fn::<f64, 3, _>(|k| {
            let (u, v) = (p[(k + 1) % 3].as_dvec2(), p[(k + 2) % 3].as_dvec2());
            (u.perp_dot(v) * f64::from(turn)).max(0.0)
        });
        let sum: f64 = area.iter().sum();
        let weights = if sum > 0.0 { area.map(|x| (x / sum) as f32) } else { [1.0 / 3.0; 3] };
        return Err(weights);
    }
    let mut best: Option<(f32, Vec2, [f32; 3])> = None;
    for k in (0..3).filter(|&k| outside[k]) {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let (point, [wi, wj]) = closest_on_segment(p[i], p[j]);
        let d2 = point.length_squared();
        if best.is_none_or(|b| d2 < b.0) {
            let mut weights = [0.0; 3];
            weights[i] = wi;
            weights[j] = wj;
            best = Some((d2, point, weights));
        }
    }
    let (_, point, weights) = best.unwrap_or((0.0, Vec2::ZERO, [1.0 / 3.0; 3]));
    Ok((point, weights))
}

/// The outcome of the GJK loop.
#[derive(Clone, Copy, Debug)]
pub(super) enum Gjk2 {
    /// The cores are apart: `v = Σ λᵢ wᵢ ≠ 0` is the point of `A - B` closest to the origin (or,
    /// after an early out, a point of it farther than the requested bound).
    Separated { v: Vec2, simplex: Simplex2 },
    /// The origin is in (or on the boundary of) `A - B`; the simplex holds it.
    Overlapping { simplex: Simplex2 },
    /// A support point was not finite, or squared coordinates overflow.
    Invalid,
}

/// GJK distance between the cores `a` and `b`. With `max_distance` finite, stops as soon as
/// they are proven farther apart than it.
pub(super) fn gjk2<A, B>(a: &A, b: &B, max_distance: f32, cache: &mut GjkCache2) -> Gjk2
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    let outcome = run(a, b, max_distance, cache);
    match &outcome {
        Gjk2::Separated { simplex, .. } | Gjk2::Overlapping { simplex } => {
            cache.len = simplex.len as u8;
            for (dir, v) in cache.dirs.iter_mut().zip(&simplex.v[..simplex.len]) {
                *dir = v.dir;
            }
        }
        Gjk2::Invalid => cache.clear(),
    }
    outcome
}

fn run<A, B>(a: &A, b: &B, max_distance: f32, cache: &GjkCache2) -> Gjk2
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    let mut simplex = Simplex2::default();
    let dirs = if cache.len == 0 { &[Vec2::X][..] } else { &cache.dirs[..usize::from(cache.len).min(3)] };
    for &dir in dirs {
        let Some(vertex) = support_vertex(a, b, dir) else { return Gjk2::Invalid };
        simplex.v[simplex.len] = vertex;
        simplex.len += 1;
    }
    let Some(mut v) = simplex.solve() else { return Gjk2::Overlapping { simplex } };
    let mut v2 = v.length_squared();
    let mut max_w2 = simplex.v[..simplex.len].iter().fold(0.0f32, |m, s| m.max(s.w.length_squared()));
    let max2 = max_distance * max_distance;
    for _ in 0..MAX_ITERATIONS {
        if !max_w2.is_finite() {
            return Gjk2::Invalid;
        }
        if !(v2 >= f32::MIN_POSITIVE) {
            // Zero (or below the smallest normal square): the origin is on the simplex.
            return Gjk2::Overlapping { simplex };
        }
        let Some(vertex) = support_vertex(a, b, -v) else { return Gjk2::Invalid };
        let vw = v.dot(vertex.w);
        // `v·w / |v|` is a lower bound of the distance (the line through w normal to v separates).
        if vw > 0.0 && vw * vw > max2 * v2 {
            break;
        }
        max_w2 = max_w2.max(vertex.w.length_squared());
        // Converged: within the relative tolerance, within the rounding noise of `v·w` (a few
        // ulps of `|v| |w|`), or `w` is already a vertex.
        let gap = v2 - vw;
        if gap <= GJK_RELATIVE * v2
            || gap * gap <= REL_EPSILON * REL_EPSILON * v2 * max_w2
            || simplex.v[..simplex.len].iter().any(|s| s.w == vertex.w)
        {
            break;
        }
        let mut next = simplex;
        next.v[next.len] = vertex;
        next.len += 1;
        let Some(p) = next.solve() else { return Gjk2::Overlapping { simplex: next } };
        let p2 = p.length_squared();
        // The gap above its noise proves (in exact arithmetic) that the new simplex holds a
        // closer point; near a vertex of `A - B` the squared lengths may differ by less than
        // their rounding while the directions still differ to first order, so the new simplex,
        // which holds the newest support point, wins ties. A larger `p2` is rounding gone wrong.
        if !(p2 <= v2 * (1.0 + 4.0 * f32::EPSILON)) {
            break;
        }
        (simplex, v, v2) = (next, p, p2);
    }
    Gjk2::Separated { v, simplex }
}

/// Whether a margin is valid: finite and non-negative.
#[inline]
pub(super) fn margin_ok(margin: f32) -> bool {
    (0.0..f32::INFINITY).contains(&margin)
}

/// The distance between two shapes, each a core support map plus a disk of radius `margin` (the
/// Minkowski sum), given in one common frame: GJK on the cores, margins subtracted.
///
/// The distance is exact for polygons up to rounding and `1e-6` of itself (GJK ends on a repeated
/// vertex), and within `1e-6` of itself plus a few ulps of the coordinates for smooth cores. The
/// cache warm-starts the search from the last simplex of the same pair (see [`GjkCache2`]).
///
/// Bad input: a negative, NaN or infinite margin, a non-finite support point, or coordinates
/// beyond about `1e19` (whose squares overflow) give `distance = ∞`, zero points and normal, and
/// `cores_overlap = false` (and clear the cache).
pub fn gjk_distance2<A, B>(a: &A, margin_a: f32, b: &B, margin_b: f32, cache: &mut GjkCache2) -> Distance2
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    if !(margin_ok(margin_a) && margin_ok(margin_b)) {
        cache.clear();
        return Distance2::INVALID;
    }
    match gjk2(a, b, f32::INFINITY, cache) {
        Gjk2::Separated { v, simplex } => {
            let distance = v.length();
            let normal = -v / distance;
            let (pa, pb) = simplex.witnesses();
            Distance2 {
                distance: (distance - margin_a - margin_b).max(0.0),
                point_a: pa + normal * margin_a,
                point_b: pb - normal * margin_b,
                normal,
                cores_overlap: false,
            }
        }
        Gjk2::Overlapping { simplex } => {
            let (pa, pb) = simplex.witnesses();
            let point = (pa + pb) * 0.5;
            Distance2 {
                distance: 0.0,
                point_a: point,
                point_b: point,
                normal: Vec2::ZERO,
                cores_overlap: true,
            }
        }
        Gjk2::Invalid => Distance2::INVALID,
    }
}

/// Whether two shapes (cores plus margins, as in [`gjk_distance2`]) touch or overlap. GJK stops
/// at the first direction that separates the cores by more than the margins.
///
/// Exact for polygons without margins up to the rounding of the vertices `a - b` (the origin's
/// containment is decided by exact predicates); with margins, shapes whose cores' distance
/// exceeds the margins' sum by less than GJK's tolerance (`1e-6` of the distance, see
/// [`gjk_distance2`]) may be reported either way. Bad input (as in [`gjk_distance2`]) gives
/// `false`.
pub fn gjk_intersects2<A, B>(a: &A, margin_a: f32, b: &B, margin_b: f32, cache: &mut GjkCache2) -> bool
where
    A: SupportMap2 + ?Sized,
    B: SupportMap2 + ?Sized,
{
    if !(margin_ok(margin_a) && margin_ok(margin_b)) {
        cache.clear();
        return false;
    }
    let margins = margin_a + margin_b;
    match gjk2(a, b, margins, cache) {
        Gjk2::Separated { v, .. } => v.length() <= margins,
        Gjk2::Overlapping { .. } => true,
        Gjk2::Invalid => false,
    }
}
