//! The straightforward twin of `kollide::skeleton`: each node's world transform recomputed by
//! walking up to the root, each world volume computed on its own in `f64`, every projectile
//! tested against every node, without bounding volumes or a broad phase.
//!
//! The world transforms are the same `f32` products as the library's (`world_from_parent ·
//! parent_from_node`, the root's parent map first), so they agree bit for bit; everything after
//! them is independent and in `f64`: the largest stretch of a map by Jacobi eigenvalues of
//! `MᵀM`, distances between segments as the minimum over the endpoint distances and the
//! interior stationary point, and ray entries by bisection of the convex distance along the
//! ray. Each answer carries its signed gap so that a suite can set apart the pairs within
//! rounding of touching.

use glam::{Affine2, Affine3A, DVec3};
use kollide::skeleton::{D2, D3, MovingBall, NodeVolume, RayProjectile, SkeletonNode, SkeletonSpace};

/// What the reference reads from a skeleton dimension: the `f64` parts of transforms and vectors,
/// in 3D (`z = 0` in 2D).
pub trait RefSpace: SkeletonSpace {
    /// The columns of `t`'s linear part (the third zero in 2D) and its translation.
    fn parts(t: &Self::Transform) -> ([DVec3; 3], DVec3);
    /// The vector in `f64`, in 3D.
    fn wide(v: Self::Vector) -> DVec3;
}

impl RefSpace for D2 {
    fn parts(t: &Affine2) -> ([DVec3; 3], DVec3) {
        let m = t.matrix2;
        (
            [m.x_axis.extend(0.0).as_dvec3(), m.y_axis.extend(0.0).as_dvec3(), DVec3::ZERO],
            Self::wide(t.translation),
        )
    }

    fn wide(v: glam::Vec2) -> DVec3 {
        v.extend(0.0).as_dvec3()
    }
}

impl RefSpace for D3 {
    fn parts(t: &Affine3A) -> ([DVec3; 3], DVec3) {
        let m = t.matrix3;
        ([m.x_axis.as_dvec3(), m.y_axis.as_dvec3(), m.z_axis.as_dvec3()], t.translation.as_dvec3())
    }

    fn wide(v: glam::Vec3) -> DVec3 {
        v.as_dvec3()
    }
}

/// The world transform of `node`: its ancestors collected by walking up the parent links, then
/// multiplied from the root down (`root_to_world · local(root) · ... · local(node)`).
pub fn world_transform<D: SkeletonSpace>(
    nodes: &[SkeletonNode<D>],
    root_to_world: &D::Transform,
    node: usize,
) -> D::Transform {
    let mut chain = vec![node];
    while let Some(parent) = nodes[*chain.last().expect("not empty")].parent {
        chain.push(parent as usize);
    }
    chain.iter().rev().fold(*root_to_world, |world, &i| world * nodes[i].local)
}

/// The largest singular value of the matrix with the given columns: the square root of the
/// largest eigenvalue of `MᵀM`, by cyclic Jacobi rotations in `f64`.
pub fn spectral_norm(columns: &[DVec3; 3]) -> f64 {
    let mut g = [[0.0f64; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            g[i][j] = columns[i].dot(columns[j]);
        }
    }
    for _sweep in 0..64 {
        let off = g[0][1].abs() + g[0][2].abs() + g[1][2].abs();
        let scale = g[0][0].abs() + g[1][1].abs() + g[2][2].abs();
        if !(off > 1e-300 + 1e-17 * scale) {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if g[p][q] == 0.0 {
                continue;
            }
            // The rotation that zeroes g[p][q] (Golub and Van Loan, §8.5.2).
            let theta = (g[q][q] - g[p][p]) / (2.0 * g[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for row in g.iter_mut() {
                let (gkp, gkq) = (row[p], row[q]);
                row[p] = c * gkp - s * gkq;
                row[q] = s * gkp + c * gkq;
            }
            let (row_p, row_q) = (g[p], g[q]);
            g[p] = std::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
            g[q] = std::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
        }
    }
    g[0][0].max(g[1][1]).max(g[2][2]).max(0.0).sqrt()
}

/// A node's volume in world space, in `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RefVolume {
    /// The ball of `radius` around `center`.
    Ball { center: DVec3, radius: f64 },
    /// The points within `radius` of the segment `a b` (`a` the image of the local `-y` end).
    Capsule { a: DVec3, b: DVec3, radius: f64 },
}

impl RefVolume {
    /// The segment at the core of the volume (a point for a ball) and the radius around it.
    pub fn core(&self) -> (DVec3, DVec3, f64) {
        match *self {
            Self::Ball { center, radius } => (center, center, radius),
            Self::Capsule { a, b, radius } => (a, b, radius),
        }
    }
}

/// The world volume of `node` under `world` (its world transform): the image of its origin (and
/// of its `±half_height` ends along `y`), the radius times the map's [`spectral_norm`]. `None`
/// for a node without a volume or whose world volume is not finite.
pub fn world_volume<D: RefSpace>(volume: NodeVolume, world: &D::Transform) -> Option<RefVolume> {
    let (columns, origin) = D::parts(world);
    let stretch = spectral_norm(&columns);
    let v = match volume {
        NodeVolume::None => return None,
        NodeVolume::Ball { radius } => {
            RefVolume::Ball { center: origin, radius: f64::from(radius) * stretch }
        }
        NodeVolume::Capsule { half_height, radius } => {
            let half = columns[1] * f64::from(half_height);
            RefVolume::Capsule { a: origin - half, b: origin + half, radius: f64::from(radius) * stretch }
        }
    };
    let (a, b, r) = v.core();
    (a.is_finite() && b.is_finite() && r.is_finite() && r <= f64::from(f32::MAX)).then_some(v)
}

/// The parameter in `[0, 1]` of the point of segment `a b` closest to `p`.
fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let len2 = ab.length_squared();
    if len2 > 0.0 { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 }
}

/// The distance between segments `p0 p1` and `q0 q1`, and the parameter along `p0 p1` of a
/// closest point: the smallest of the four endpoint-to-segment distances and, when the
/// stationary point of `|P(s) - Q(t)|²` lies inside the unit square, the distance there (a convex
/// quadratic over a square is smallest there or on an edge, and on an edge it is an
/// endpoint-to-segment distance).
pub fn segment_segment_distance(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> (f64, f64) {
    let (u, v) = (p1 - p0, q1 - q0);
    let at = |s: f64, t: f64| (p0 + u * s).distance(q0 + v * t);
    let mut best = (f64::INFINITY, 0.0);
    let mut consider = |s: f64, t: f64| {
        let d = at(s, t);
        if d < best.0 {
            best = (d, s);
        }
    };
    consider(0.0, closest_on_segment(p0, q0, q1));
    consider(1.0, closest_on_segment(p1, q0, q1));
    consider(closest_on_segment(q0, p0, p1), 0.0);
    consider(closest_on_segment(q1, p0, p1), 1.0);
    // ∂/∂s and ∂/∂t of |p0 - q0 + s u - t v|² vanish at the solution of this 2×2 system.
    let w = p0 - q0;
    let (uu, uv, vv, uw, vw) = (u.dot(u), u.dot(v), v.dot(v), u.dot(w), v.dot(w));
    let det = uu * vv - uv * uv;
    if det > 1e-12 * uu * vv {
        let s = (uv * vw - vv * uw) / det;
        let t = (uu * vw - uv * uw) / det;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            consider(s, t);
        }
    }
    best
}

/// One pair of a projectile and a node volume, with its signed gap (the distance between the
/// projectile and the volume, negative or zero when they touch) and, for rays, the entry
/// parameter when they touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefPair {
    pub projectile: u32,
    pub skeleton: u32,
    pub node: u32,
    pub gap: f64,
    pub t: Option<f64>,
    /// The size of what was compared: 1 plus the distances from the origin of the volume's
    /// core ends and of the projectile's start, plus both radii. Tolerances on `gap` are
    /// relative to it.
    pub scale: f64,
}

/// [`RefPair::scale`] of a volume and a projectile starting at `start` with radius `radius`.
fn pair_scale(volume: &RefVolume, start: DVec3, radius: f64) -> f64 {
    let (a, b, r) = volume.core();
    1.0 + a.length().max(b.length()) + start.length() + r + radius
}

/// A skeleton as the reference sees it: its nodes (with the current local transforms) and its
/// root's placement.
pub type RefSkeleton<'a, D> = (&'a [SkeletonNode<D>], <D as SkeletonSpace>::Transform);

/// Every node volume of every skeleton, as `(skeleton, node, volume)`, by walking to the root
/// for each node.
pub fn world_volumes<D: RefSpace>(skeletons: &[RefSkeleton<'_, D>]) -> Vec<(u32, u32, RefVolume)> {
    let mut out = Vec::new();
    for (s, (nodes, root)) in skeletons.iter().enumerate() {
        for (i, node) in nodes.iter().enumerate() {
            if let Some(v) = world_volume::<D>(node.volume, &world_transform(nodes, root, i)) {
                out.push((s as u32, i as u32, v));
            }
        }
    }
    out
}

/// Every pair of a moving ball and a node volume whose gap is at most `band` times the pair's
/// [scale](RefPair::scale): the distance
/// between the segment the ball's centre sweeps and the volume's core, minus both radii. Balls
/// with a non-finite field or a negative radius are left out.
pub fn moving_ball_pairs<D: RefSpace>(
    skeletons: &[RefSkeleton<'_, D>],
    projectiles: &[MovingBall<D>],
    band: f64,
) -> Vec<RefPair> {
    let volumes = world_volumes(skeletons);
    let mut out = Vec::new();
    for (i, p) in projectiles.iter().enumerate() {
        let (c, d) = (D::wide(p.center), D::wide(p.displacement));
        if !(c.is_finite() && d.is_finite() && p.radius >= 0.0 && p.radius.is_finite()) {
            continue;
        }
        for &(skeleton, node, volume) in &volumes {
            let (a, b, r) = volume.core();
            let gap = segment_segment_distance(c, c + d, a, b).0 - r - f64::from(p.radius);
            let scale = pair_scale(&volume, c, f64::from(p.radius));
            if gap <= band * scale {
                out.push(RefPair { projectile: i as u32, skeleton, node, gap, t: None, scale });
            }
        }
    }
    out
}

/// Every pair of a ray and a node volume whose gap is at most `band` times the pair's
/// [scale](RefPair::scale): the distance between the
/// part `t ∈ [0, max_t]` of the ray and the volume, with the first `t` at which the ray is in the
/// volume when the gap is not positive (by bisection: the distance to a convex set is convex
/// along the ray, so it falls until its minimum). Rays with a non-finite origin or direction, a
/// zero direction or a negative or NaN `max_t` are left out.
pub fn ray_pairs<D: RefSpace>(
    skeletons: &[RefSkeleton<'_, D>],
    projectiles: &[RayProjectile<D>],
    band: f64,
) -> Vec<RefPair> {
    let volumes = world_volumes(skeletons);
    let mut out = Vec::new();
    for (i, r) in projectiles.iter().enumerate() {
        let (origin, dir) = D::ray_parts(&r.ray);
        let (o, d) = (D::wide(origin), D::wide(dir));
        let len = d.length();
        if !(o.is_finite() && d.is_finite() && len > 0.0 && r.max_t >= 0.0) {
            continue;
        }
        for &(skeleton, node, volume) in &volumes {
            let (a, b, radius) = volume.core();
            // Beyond `far` every point of the ray is farther than `2 (|ab| + r)` from the core's
            // midpoint, outside the volume by more than its size: the answer lies before it.
            let mid = (a + b) * 0.5;
            let far = (o.distance(mid) + 2.0 * (a.distance(b) + radius) + 1.0) / len;
            let reach = f64::from(r.max_t).min(far);
            let end = o + d * reach;
            let (distance, s) = segment_segment_distance(o, end, a, b);
            let gap = distance - radius;
            let scale = pair_scale(&volume, o, 0.0);
            if gap > band * scale {
                continue;
            }
            let outside = |t: f64| {
                let p = o + d * t;
                p.distance(a + (b - a) * closest_on_segment(p, a, b)) > radius
            };
            let t = (gap <= 0.0).then(|| {
                if !outside(0.0) {
                    return 0.0;
                }
                let (mut lo, mut hi) = (0.0, s * reach);
                for _ in 0..200 {
                    let t = 0.5 * (lo + hi);
                    if outside(t) { lo = t } else { hi = t }
                }
                hi
            });
            out.push(RefPair { projectile: i as u32, skeleton, node, gap, t, scale });
        }
    }
    out
}
