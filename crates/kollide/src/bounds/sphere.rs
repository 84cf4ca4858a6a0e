use glam::{Vec2, Vec3};

/// A solid ball: every point within `radius` of `center`.
///
/// The ball is closed (boundary points are inside; tangent balls overlap). A negative radius
/// stands for the empty set: it contains and overlaps nothing. A zero radius is the single point
/// `center`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center: Vec3,
    pub radius: f32,
}

/// A solid disc: every point within `radius` of `center`. The 2D twin of [`Sphere`], with the
/// same conventions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    pub center: Vec2,
    pub radius: f32,
}

impl Sphere {
    /// The ball of the given center and radius. No check (see the type for negative radii).
    #[inline]
    pub fn new(center: Vec3, radius: f32) -> Self {
        Self { center, radius }
    }

    /// Whether `p` lies in the closed ball: `|p - center|² <= radius²` and `radius >= 0`.
    /// `false` for a negative radius and for any NaN.
    #[inline]
    pub fn contains_point(&self, p: Vec3) -> bool {
        (self.radius >= 0.0) & ((p - self.center).length_squared() <= self.radius * self.radius)
    }

    /// Whether the two closed balls share a point: `|c₁ - c₂|² <= (r₁ + r₂)²`, both radii
    /// non-negative. `false` if either radius is negative or anything is NaN.
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        let r = self.radius + other.radius;
        (self.radius >= 0.0)
            & (other.radius >= 0.0)
            & ((other.center - self.center).length_squared() <= r * r)
    }

    /// The smallest ball containing both balls.
    ///
    /// If one ball contains the other, that ball is returned unchanged. Otherwise the result spans
    /// the two far ends on the line through the centers: radius `(d + r₁ + r₂) / 2`. The radius is
    /// then raised if needed so that both balls are inside despite the rounding of the center.
    /// An empty ball (negative radius) is the identity: the other ball is returned. NaN in either
    /// input gives NaN fields.
    pub fn merge(&self, other: &Self) -> Self {
        if other.radius < 0.0 {
            return *self;
        }
        if self.radius < 0.0 {
            return *other;
        }
        let delta = other.center - self.center;
        let d = delta.length();
        if d + other.radius <= self.radius {
            return *self;
        }
        if d + self.radius <= other.radius {
            return *other;
        }
        let radius = (d + self.radius + other.radius) * 0.5;
        let center = self.center + delta * ((radius - self.radius) / d);
        let radius = radius
            .max(center.distance(self.center) + self.radius)
            .max(center.distance(other.center) + other.radius);
        Self { center, radius }
    }

    /// The minimal enclosing ball of the points, or `None` if `points` is empty or some point has
    /// a NaN or infinite coordinate.
    ///
    /// Welzl's algorithm (1991) in Gärtner's move-to-front form (Gärtner, "Fast and robust
    /// smallest enclosing balls", ESA 1999), run iteratively with an explicit stack of at most 5
    /// frames, after a deterministic shuffle (expected linear time). Ball centers are computed in
    /// f64; support points that are affinely dependent on the current support set (duplicates,
    /// collinear or coplanar points) are skipped, so degenerate inputs are handled. Allocates one
    /// copy of the input.
    ///
    /// Guarantee: the radius is the largest distance from the (f32) center to any input point,
    /// evaluated in f64 and rounded up, so every point is inside when distances are evaluated
    /// exactly (an f32 [`Sphere::contains_point`] may still reject a boundary point by rounding,
    /// about `1e-7` of the coordinate magnitude). The radius is minimal up to rounding: it exceeds
    /// the exact minimum `r` by at most `1e-6 · (r + max |coordinate|)` (the f32 rounding of the
    /// center dominates).
    pub fn from_points(points: &[Vec3]) -> Option<Self> {
        let copy = finite_copy(points, Vec3::to_array)?;
        let center = minimal_ball_center(copy);
        Some(Self::enclosing_from_center(points, center))
    }

    /// A near-minimal enclosing ball by Ritter's method ("An efficient bounding sphere", Graphics
    /// Gems, 1990), or `None` if `points` is empty or some point is not finite.
    ///
    /// Linear time without allocation: a diameter guess from two farthest-point searches, then one
    /// growing pass (in f64), then a pass that sets the radius to the largest distance from the
    /// final center (rounded up), so it always encloses every point (evaluated exactly). The radius
    /// is typically 5-20% larger than the minimal one and never smaller (up to rounding).
    pub fn from_points_fast(points: &[Vec3]) -> Option<Self> {
        if points.is_empty() || !points.iter().all(|p| p.is_finite()) {
            return None;
        }
        let center = ritter_center(points.iter().map(|p| p.to_array().map(f64::from)));
        Some(Self::enclosing_from_center(points, center))
    }

    /// The ball centred at `center` (rounded to f32) with the smallest radius holding `points`.
    fn enclosing_from_center(points: &[Vec3], center: [f64; 3]) -> Self {
        let center = center.map(|c| c as f32);
        let radius = enclosing_radius(points.iter().map(|p| p.to_array()), center);
        Self { center: Vec3::from_array(center), radius }
    }
}

impl Circle {
    /// The disc of the given center and radius. No check (see [`Sphere`] for negative radii).
    #[inline]
    pub fn new(center: Vec2, radius: f32) -> Self {
        Self { center, radius }
    }

    /// Whether `p` lies in the closed disc. `false` for a negative radius and for any NaN.
    #[inline]
    pub fn contains_point(&self, p: Vec2) -> bool {
        (self.radius >= 0.0) & ((p - self.center).length_squared() <= self.radius * self.radius)
    }

    /// Whether the two closed discs share a point. See [`Sphere::overlaps`].
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        let r = self.radius + other.radius;
        (self.radius >= 0.0)
            & (other.radius >= 0.0)
            & ((other.center - self.center).length_squared() <= r * r)
    }

    /// The smallest disc containing both. Same contract as [`Sphere::merge`].
    pub fn merge(&self, other: &Self) -> Self {
        if other.radius < 0.0 {
            return *self;
        }
        if self.radius < 0.0 {
            return *other;
        }
        let delta = other.center - self.center;
        let d = delta.length();
        if d + other.radius <= self.radius {
            return *self;
        }
        if d + self.radius <= other.radius {
            return *other;
        }
        let radius = (d + self.radius + other.radius) * 0.5;
        let center = self.center + delta * ((radius - self.radius) / d);
        let radius = radius
            .max(center.distance(self.center) + self.radius)
            .max(center.distance(other.center) + other.radius);
        Self { center, radius }
    }

    /// The minimal enclosing disc (Welzl / Gärtner move-to-front). Same algorithm, guarantees and
    /// `None` cases as [`Sphere::from_points`].
    pub fn from_points(points: &[Vec2]) -> Option<Self> {
        let copy = finite_copy(points, Vec2::to_array)?;
        let center = minimal_ball_center(copy);
        Some(Self::enclosing_from_center(points, center))
    }

    /// A near-minimal enclosing disc by Ritter's method. Same contract as
    /// [`Sphere::from_points_fast`].
    pub fn from_points_fast(points: &[Vec2]) -> Option<Self> {
        if points.is_empty() || !points.iter().all(|p| p.is_finite()) {
            return None;
        }
        let center = ritter_center(points.iter().map(|p| p.to_array().map(f64::from)));
        Some(Self::enclosing_from_center(points, center))
    }

    fn enclosing_from_center(points: &[Vec2], center: [f64; 2]) -> Self {
        let center = center.map(|c| c as f32);
        let radius = enclosing_radius(points.iter().map(|p| p.to_array()), center);
        Self { center: Vec2::from_array(center), radius }
    }
}

// ---------------------------------------------------------------------------------------------
// Shared D-dimensional machinery (D = 2 or 3) for the minimal and the Ritter balls.

/// A copy of the points as arrays, or `None` if empty or some coordinate is not finite.
fn finite_copy<P: Copy, const D: usize>(
    points: &[P],
    to_array: impl Fn(&P) -> [f32; D],
) -> Option<Vec<[f32; D]>> {
    if points.is_empty() {
        return None;
    }
    let copy: Vec<[f32; D]> = points.iter().map(to_array).collect();
    copy.iter().flatten().all(|c| c.is_finite()).then_some(copy)
}

#[inline]
fn to_f64<const D: usize>(p: [f32; D]) -> [f64; D] {
    p.map(f64::from)
}

#[inline]
fn dot<const D: usize>(a: &[f64; D], b: &[f64; D]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[inline]
fn dist2<const D: usize>(a: &[f64; D], b: &[f64; D]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// The smallest f32 radius `r` with `|p - center| <= r` for every point, distances in f64.
fn enclosing_radius<const D: usize>(points: impl Iterator<Item = [f32; D]>, center: [f32; D]) -> f32 {
    let c = to_f64(center);
    let r2 = points.map(|p| dist2(&to_f64(p), &c)).fold(0.0, f64::max);
    let r = r2.sqrt();
    let f = r as f32;
    // Round up: the next f32 above `f` when the conversion rounded down (r >= 0, finite).
    if f64::from(f) < r { f32::from_bits(f.to_bits() + 1) } else { f }
}

/// Ritter's center: the midpoint of an approximate diameter, moved to cover every point.
fn ritter_center<const D: usize>(points: impl Iterator<Item = [f64; D]> + Clone) -> [f64; D] {
    let farthest_from = |q: [f64; D]| {
        points
            .clone()
            .fold((q, -1.0), |(best, bd), p| {
                let d = dist2(&p, &q);
                if d > bd { (p, d) } else { (best, bd) }
            })
            .0
    };
    let first = points.clone().next().unwrap_or([0.0; D]);
    let y = farthest_from(first);
    let z = farthest_from(y);
    let mut center: [f64; D] = std::array::from_fn(|i| 0.5 * (y[i] + z[i]));
    let mut radius = 0.5 * dist2(&y, &z).sqrt();
    for p in points {
        let d2 = dist2(&p, &center);
        if d2 > radius * radius {
            // Grow to the ball spanning `p` and the opposite end of the old ball.
            let d = d2.sqrt();
            let new_radius = 0.5 * (radius + d);
            let f = (new_radius - radius) / d;
            for i in 0..D {
                center[i] += f * (p[i] - center[i]);
            }
            radius = new_radius;
        }
    }
    center
}

/// At most `D + 1 <= 4` support points in the dimensions we use (2 and 3).
const MAX_SUPPORT: usize = 4;

/// A point is treated as outside the current ball only if its squared distance exceeds the
/// squared radius by this relative amount (f64 rounding of the center is far below it).
const EXCESS_RELATIVE: f64 = 1e-12;

/// A new support point is refused when its offset from the affine hull of the current support
/// set, squared, is below this fraction of its squared distance to the first support point: it
/// is then (numerically) a duplicate, collinear or coplanar, and no ball has it on its boundary
/// together with the others at a sensible size.
const DEPENDENT_RELATIVE: f64 = 1e-12;

/// The support set of the move-to-front algorithm with, for each prefix of it, the smallest ball
/// having that prefix on its boundary (Gärtner 1999, §3: the center moves orthogonally to the
/// affine hull of the previous support points, found by Gram-Schmidt).
struct Support<const D: usize> {
    len: usize,
    /// Support points 1.. minus point 0, orthogonalised (Gram-Schmidt), and their squared norms.
    ortho: [[f64; D]; MAX_SUPPORT],
    ortho_len2: [f64; MAX_SUPPORT],
    /// `centers[i]`, `radii2[i]`: the smallest ball through support points `0..=i`.
    centers: [[f64; D]; MAX_SUPPORT],
    radii2: [f64; MAX_SUPPORT],
    first: [f64; D],
}

impl<const D: usize> Support<D> {
    fn new() -> Self {
        Self {
            len: 0,
            ortho: [[0.0; D]; MAX_SUPPORT],
            ortho_len2: [0.0; MAX_SUPPORT],
            centers: [[0.0; D]; MAX_SUPPORT],
            radii2: [0.0; MAX_SUPPORT],
            first: [0.0; D],
        }
    }

    /// Adds `p` to the support set and computes the smallest ball through the new set; returns
    /// `false` (and changes nothing) if `p` is affinely dependent on the current set.
    ///
    /// With `c`, `r²` the ball through the current set (its center lies in their affine hull) and
    /// `q` the component of `p - first` orthogonal to that hull, the new center is `c + f q`: all
    /// old support points stay equidistant because `q` is orthogonal to their hull, and
    /// `|p - c - f q|² = r² + f² |q|²` gives `f = (|p - c|² - r²) / (2 |q|²)`, using
    /// `q · (p - c) = |q|²`.
    fn push(&mut self, p: [f64; D]) -> bool {
        let m = self.len;
        if m == 0 {
            self.first = p;
            self.centers[0] = p;
            self.radii2[0] = 0.0;
            self.len = 1;
            return true;
        }
        let v: [f64; D] = std::array::from_fn(|i| p[i] - self.first[i]);
        let mut q = v;
        for j in 1..m {
            let f = dot(&self.ortho[j], &q) / self.ortho_len2[j];
            for (qi, oi) in q.iter_mut().zip(&self.ortho[j]) {
                *qi -= f * oi;
            }
        }
        let z = dot(&q, &q);
        if z <= DEPENDENT_RELATIVE * dot(&v, &v) {
            return false;
        }
        let c = self.centers[m - 1];
        let e = dist2(&p, &c) - self.radii2[m - 1];
        let f = e / (2.0 * z);
        self.centers[m] = std::array::from_fn(|i| c[i] + f * q[i]);
        self.radii2[m] = self.radii2[m - 1] + 0.5 * f * e;
        self.ortho[m] = q;
        self.ortho_len2[m] = z;
        self.len = m + 1;
        true
    }
}

/// The center of the minimal enclosing ball of `points` (non-empty, finite), in f64.
///
/// Move-to-front Welzl: `mb(L, S)` scans the list `L`; a point outside the current ball joins the
/// support set `S`, the scan restarts recursively on the part of the list before it, and the point
/// is then moved to the front of the list. The recursion depth is the support size (at most
/// `D + 1`), so it runs on an explicit stack of `(end, position)` frames.
fn minimal_ball_center<const D: usize>(mut points: Vec<[f32; D]>) -> [f64; D] {
    const { assert!(D < MAX_SUPPORT) };
    shuffle(&mut points);
    let mut support = Support::<D>::new();
    let mut center = [0.0; D];
    // Negative: the initial "ball" contains nothing, so the first point is pushed.
    let mut radius2 = -1.0;
    let mut frames = [(0usize, 0usize); MAX_SUPPORT + 1];
    frames[0] = (points.len(), 0);
    let mut depth = 0;
    loop {
        let (end, k) = frames[depth];
        if k == end || support.len == D + 1 {
            if depth == 0 {
                break;
            }
            // Return from mb(L[..end], S ∪ {p}): pop p and move it to the front of the list.
            depth -= 1;
            support.len -= 1;
            let j = frames[depth].1;
            points[..=j].rotate_right(1);
            frames[depth].1 = j + 1;
            continue;
        }
        let p = to_f64(points[k]);
        if dist2(&p, &center) - radius2 > EXCESS_RELATIVE * radius2.max(0.0) && support.push(p) {
            center = support.centers[support.len - 1];
            radius2 = support.radii2[support.len - 1];
            depth += 1;
            frames[depth] = (k, 0);
            continue;
        }
        frames[depth].1 = k + 1;
    }
    center
}

/// A deterministic Fisher-Yates shuffle (xorshift64*), so that Welzl's expected linear running
/// time holds for any input order, including adversarial sorted ones.
fn shuffle<T>(items: &mut [T]) {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..items.len()).rev() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        let j = ((r >> 32) * (i as u64 + 1)) >> 32;
        items.swap(i, j as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encloses(s: &Sphere, points: &[Vec3]) -> bool {
        points.iter().all(|p| p.distance(s.center) <= s.radius * (1.0 + 1e-6) + 1e-6)
    }

    #[test]
    fn sphere_basics_and_bad_radius() {
        let s = Sphere::new(Vec3::ZERO, 1.0);
        assert!(s.contains_point(Vec3::X));
        assert!(!s.contains_point(Vec3::new(1.0, 0.1, 0.0)));
        assert!(s.overlaps(&Sphere::new(Vec3::new(2.0, 0.0, 0.0), 1.0)));
        assert!(!s.overlaps(&Sphere::new(Vec3::new(2.1, 0.0, 0.0), 1.0)));
        let point = Sphere::new(Vec3::ONE, 0.0);
        assert!(point.contains_point(Vec3::ONE) && !point.contains_point(Vec3::ZERO));
        let empty = Sphere::new(Vec3::ZERO, -1.0);
        assert!(!empty.contains_point(Vec3::ZERO));
        assert!(!empty.overlaps(&Sphere::new(Vec3::ZERO, 5.0)));
        assert!(!Sphere::new(Vec3::ZERO, 5.0).overlaps(&empty));
        assert_eq!(empty.merge(&s), s);
        assert_eq!(s.merge(&empty), s);
        assert!(!Sphere::new(Vec3::NAN, 1.0).contains_point(Vec3::ZERO));
        let c = Circle::new(Vec2::ZERO, -0.5);
        assert!(!c.contains_point(Vec2::ZERO) && !c.overlaps(&c));
    }

    #[test]
    fn merge_cases() {
        let a = Sphere::new(Vec3::ZERO, 1.0);
        let b = Sphere::new(Vec3::new(4.0, 0.0, 0.0), 1.0);
        let m = a.merge(&b);
        assert!((m.center - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-6);
        assert!((m.radius - 3.0).abs() < 1e-6);
        let inner = Sphere::new(Vec3::new(0.2, 0.0, 0.0), 0.5);
        assert_eq!(a.merge(&inner), a);
        assert_eq!(inner.merge(&a), a);
        assert_eq!(a.merge(&a), a);
        let c = Circle::new(Vec2::ZERO, 1.0).merge(&Circle::new(Vec2::new(0.0, 2.0), 0.0));
        assert!((c.center - Vec2::new(0.0, 0.5)).length() < 1e-6 && (c.radius - 1.5).abs() < 1e-6);
    }

    #[test]
    fn minimal_sphere_known_cases() {
        // Regular tetrahedron: circumsphere.
        let t = [
            Vec3::new(1.0, 1.0, 1.0),
            Vec3::new(1.0, -1.0, -1.0),
            Vec3::new(-1.0, 1.0, -1.0),
            Vec3::new(-1.0, -1.0, 1.0),
        ];
        let s = Sphere::from_points(&t).unwrap();
        assert!(s.center.length() < 1e-6 && (s.radius - 3f32.sqrt()).abs() < 1e-6);
        // Obtuse triangle: the diameter of its longest side.
        let tri = [Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), Vec3::new(2.0, 0.5, 0.0)];
        let s = Sphere::from_points(&tri).unwrap();
        assert!((s.radius - 2.0).abs() < 1e-6 && (s.center - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-6);
        // Duplicates and a single point.
        let s = Sphere::from_points(&[Vec3::ONE; 5]).unwrap();
        assert_eq!(s, Sphere::new(Vec3::ONE, 0.0));
        // Collinear points.
        let line: Vec<Vec3> = (0..50).map(|i| Vec3::new(1.0, 2.0, 3.0) * i as f32).collect();
        let s = Sphere::from_points(&line).unwrap();
        assert!(encloses(&s, &line));
        assert!((s.radius - 49.0 * 14f32.sqrt() * 0.5).abs() < 1e-3);
        // Coplanar, cocircular points: the unit circle in z = 0.
        let ring: Vec<Vec3> = (0..64)
            .map(|i| {
                let a = i as f32 * std::f32::consts::TAU / 64.0;
                Vec3::new(a.cos(), a.sin(), 0.0)
            })
            .collect();
        let s = Sphere::from_points(&ring).unwrap();
        assert!(encloses(&s, &ring) && (s.radius - 1.0).abs() < 1e-5);
        let ring2: Vec<Vec2> = ring.iter().map(|p| p.truncate()).collect();
        let c = Circle::from_points(&ring2).unwrap();
        assert!((c.radius - 1.0).abs() < 1e-5 && c.center.length() < 1e-5);
    }

    #[test]
    fn from_points_bad_input() {
        assert_eq!(Sphere::from_points(&[]), None);
        assert_eq!(Sphere::from_points_fast(&[]), None);
        assert_eq!(Sphere::from_points(&[Vec3::ZERO, Vec3::NAN]), None);
        assert_eq!(Sphere::from_points_fast(&[Vec3::INFINITY]), None);
        assert_eq!(Circle::from_points(&[]), None);
        assert_eq!(Circle::from_points(&[Vec2::new(0.0, f32::NEG_INFINITY)]), None);
        assert_eq!(Circle::from_points_fast(&[Vec2::NAN]), None);
    }

    #[test]
    fn ritter_encloses_large_set() {
        let pts: Vec<Vec3> = (0..1000)
            .map(|i| {
                let f = i as f32;
                Vec3::new((f * 0.37).sin() * 3.0, (f * 1.3).cos(), (f * 0.11).sin() * 2.0)
            })
            .collect();
        let fast = Sphere::from_points_fast(&pts).unwrap();
        let min = Sphere::from_points(&pts).unwrap();
        assert!(encloses(&fast, &pts) && encloses(&min, &pts));
        assert!(fast.radius >= min.radius * (1.0 - 1e-6));
    }
}
