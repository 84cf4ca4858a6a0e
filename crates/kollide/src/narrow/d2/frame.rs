//! The frame of a 2D pair query and the shapes placed in it as proxies.
//!
//! A pair query runs in one frame `F` whose metric is the world's (a rotation, a reflection and a
//! translation away from it), centred on A so that pairs far from the origin keep their
//! precision. When A's placement is a similarity `M_a = s R` the frame is A's own (scaled back
//! by `s`): A's core is placed by `s I`, B's by `s M_a⁻¹ M_b`. Otherwise the frame has the world's
//! axes at A's origin, and each core is placed by its own linear map.
//!
//! A *proxy* is a core placed in the frame as at most [`MAX_PROXY`] points with outward edge
//! normals, plus a disc radius: a shape whose placement in the frame is a similarity (the disc
//! stays a disc) or whose margin is zero (the core is all there is). Shapes that are neither (a
//! ball or a capsule under a non-uniform scale, an ellipse) go through the support-map
//! algorithms instead.

use glam::{Affine2, Mat2, Vec2};

use crate::shape::{ConvexShape2, SupportMap2};

/// Capacity of a proxy: polygons with more vertices use the support-map algorithms.
pub(crate) const MAX_PROXY: usize = 8;

/// The uniform scale `s` if `m = s R` with `R` orthogonal, to a relative tolerance of `1e-5`.
#[inline]
pub(crate) fn similarity_scale(m: &Mat2) -> Option<f32> {
    let (x, y) = (m.x_axis, m.y_axis);
    let (xx, yy, xy) = (x.dot(x), y.dot(y), x.dot(y));
    let tol = 1e-5 * xx;
    ((xx > 0.0) & xx.is_finite() & ((xx - yy).abs() <= tol) & (xy.abs() <= tol)).then(|| xx.sqrt())
}

/// Whether `m` is orthonormal to `1e-5` (a rotation or a reflection); `false` for non-finite
/// matrices.
#[inline(always)]
pub(crate) fn is_rigid2(m: &Mat2) -> bool {
    let (x, y) = (m.x_axis, m.y_axis);
    let error = (x.dot(x) - 1.0).abs() + (y.dot(y) - 1.0).abs() + x.dot(y).abs();
    error <= 1e-5
}

/// A pair's frame: `world = to_world · p + origin` (`to_world` orthogonal up to the similarity
/// tolerance), and the maps placing each core in it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairFrame2 {
    pub to_world: Mat2,
    pub origin: Vec2,
    pub a: Affine2,
    pub b: Affine2,
}

impl PairFrame2 {
    /// The frame of A and B; `None` when a placement is not finite. Singular placements are
    /// allowed (a shape collapsed onto a line or a point).
    #[inline]
    pub fn new(a_to_world: &Affine2, b_to_world: &Affine2) -> Option<Self> {
        if !(a_to_world.is_finite() && b_to_world.is_finite()) {
            return None;
        }
        let shift = b_to_world.translation - a_to_world.translation;
        match similarity_scale(&a_to_world.matrix2) {
            Some(s) => {
                let to_frame = a_to_world.matrix2.inverse() * s;
                Some(Self {
                    to_world: a_to_world.matrix2 * s.recip(),
                    origin: a_to_world.translation,
                    a: Affine2::from_mat2(Mat2::from_diagonal(Vec2::splat(s))),
                    b: Affine2::from_mat2_translation(to_frame * b_to_world.matrix2, to_frame * shift),
                })
            }
            None => Some(Self {
                to_world: Mat2::IDENTITY,
                origin: a_to_world.translation,
                a: Affine2::from_mat2(a_to_world.matrix2),
                b: Affine2::from_mat2_translation(b_to_world.matrix2, shift),
            }),
        }
    }

    /// A frame point in world space.
    #[inline]
    pub fn point_to_world(&self, p: Vec2) -> Vec2 {
        self.to_world * p + self.origin
    }

    /// A frame direction in world space (unit length kept).
    #[inline]
    pub fn vector_to_world(&self, v: Vec2) -> Vec2 {
        self.to_world * v
    }

    /// A world direction in the frame.
    #[inline]
    pub fn vector_from_world(&self, v: Vec2) -> Vec2 {
        self.to_world.transpose() * v
    }
}

/// A core placed in the pair frame: counter-clockwise points with the outward unit normals of
/// the edges leaving them, and the disc radius in the frame. The slots past `count` repeat the
/// first point, so that loops over all [`MAX_PROXY`] slots (without a branch on the count) find
/// the same extremes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proxy2 {
    pub points: [Vec2; MAX_PROXY],
    pub normals: [Vec2; MAX_PROXY],
    pub count: usize,
    pub radius: f32,
}

/// The outward normals of [`crate::shape::Cuboid2::vertices`]' edges.
const BOX_NORMALS: [Vec2; 4] = [Vec2::X, Vec2::Y, Vec2::NEG_X, Vec2::NEG_Y];

impl Proxy2 {
    /// An empty proxy, to be filled by [`Proxy2::set`].
    pub const EMPTY: Self =
        Self { points: [Vec2::ZERO; MAX_PROXY], normals: [Vec2::ZERO; MAX_PROXY], count: 0, radius: 0.0 };

    /// Places `shape` by `map` into `self`; `false` when it has no proxy (see the module
    /// documentation), `map` is singular (a polygon collapsed onto a line has no edge normals) or
    /// the core is a flat loop (a triangle with collinear corners). Repeated points are dropped:
    /// a box of zero width is a segment, one of zero size a point.
    #[inline]
    pub fn set(&mut self, shape: &ConvexShape2, map: &Affine2) -> bool {
        let m = map.matrix2;
        let det = m.determinant();
        if !(det.abs() > 0.0) {
            return false;
        }
        let scale = similarity_scale(&m);
        let margin = shape.margin();
        self.radius = match scale {
            Some(s) => margin * s,
            None if margin == 0.0 => 0.0,
            None => return false,
        };
        let reflect = det < 0.0;
        // Under a similarity without reflection the stored unit normals only rotate.
        let rotate = match scale {
            Some(s) if !reflect => Some(m * (1.0 / s)),
            _ => None,
        };
        match (shape, rotate) {
            (ConvexShape2::Ball(_), _) => {
                self.count = 1;
                self.points = [map.translation; MAX_PROXY];
                return true;
            }
            (ConvexShape2::Cuboid(c), Some(r)) if c.half_extents.cmpgt(Vec2::ZERO).all() => {
                self.place(&c.vertices(), map, false);
                for (n, local) in self.normals.iter_mut().zip(BOX_NORMALS) {
                    *n = r * local;
                }
                return true;
            }
            (ConvexShape2::Polygon(p), Some(r)) if p.vertices().len() <= MAX_PROXY => {
                self.place(p.vertices(), map, false);
                for (n, &local) in self.normals.iter_mut().zip(p.normals()) {
                    *n = r * local;
                }
                return true;
            }
            _ => {}
        }
        let mut local = [Vec2::ZERO; MAX_PROXY];
        let Some(count) = shape.core_vertices(&mut local) else { return false };
        self.place(&local[..count], map, reflect);
        self.drop_repeated_points();
        self.set_normals();
        // A loop of three or more points must span an area (a flat one, such as a triangle with
        // collinear corners, has no outward normals at its ends): else the support-map path.
        self.count < 3 || self.spans_area()
    }

    /// Drops repeated consecutive points (cyclically): a box of zero width is a segment, one of
    /// zero size a point.
    #[inline]
    fn drop_repeated_points(&mut self) {
        let mut kept = 0;
        for i in 0..self.count {
            if kept == 0 || self.points[i] != self.points[kept - 1] {
                self.points[kept] = self.points[i];
                kept += 1;
            }
        }
        while kept > 1 && self.points[kept - 1] == self.points[0] {
            kept -= 1;
        }
        self.count = kept;
    }

    /// Whether the loop's area exceeds `1e-6` of its longest edge squared (a sliver thinner than
    /// that is flat to rounding), with every edge normal defined.
    #[inline]
    fn spans_area(&self) -> bool {
        let n = self.count;
        let (mut twice_area, mut longest) = (0.0f32, 0.0f32);
        for i in 0..n {
            let (p, q) = (self.points[i], self.points[if i + 1 == n { 0 } else { i + 1 }]);
            twice_area += (p - self.points[0]).perp_dot(q - self.points[0]);
            longest = longest.max(p.distance_squared(q));
        }
        twice_area > 1e-6 * longest && self.normals[..n].iter().all(|n| *n != Vec2::ZERO)
    }

    /// `shape` placed by `map`, or `None` (see [`Proxy2::set`]).
    #[inline]
    pub fn new(shape: &ConvexShape2, map: &Affine2) -> Option<Self> {
        let mut proxy = Self::EMPTY;
        proxy.set(shape, map).then_some(proxy)
    }

    /// The points of a local loop placed by `map`; a reflection reverses the winding, so the loop
    /// is read backwards to keep it counter-clockwise.
    #[inline(always)]
    fn place(&mut self, local: &[Vec2], map: &Affine2, reflect: bool) {
        let count = local.len();
        self.count = count;
        for i in 0..count {
            let j = if reflect { count - 1 - i } else { i };
            self.points[i] = map.matrix2 * local[j] + map.translation;
        }
        let first = self.points[0];
        self.points[count..].fill(first);
    }

    /// The outward normals from the points: `normals[i]` is the right-hand perpendicular of the
    /// edge from point `i` to point `i + 1` (a segment has the two opposite normals of its two
    /// sides).
    #[inline]
    fn set_normals(&mut self) {
        let n = self.count;
        if n < 2 {
            return;
        }
        for i in 0..n {
            let e = self.points[if i + 1 == n { 0 } else { i + 1 }] - self.points[i];
            self.normals[i] = Vec2::new(e.y, -e.x).normalize_or_zero();
        }
    }
}

impl SupportMap2 for Proxy2 {
    /// The core's support (without the radius).
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        let mut best = self.points[0];
        let mut best_dot = best.dot(dir);
        for &p in &self.points[1..self.count] {
            let d = p.dot(dir);
            if d > best_dot {
                best = p;
                best_dot = d;
            }
        }
        best
    }
}

/// A shape placed in the pair frame for the support-map algorithms: its core when the map is a
/// similarity (the margin, scaled, is carried beside it), else the whole shape.
pub(crate) struct Placed<'a> {
    shape: &'a ConvexShape2,
    m: Mat2,
    mt: Mat2,
    t: Vec2,
    core_only: bool,
}

impl<'a> Placed<'a> {
    /// The placed shape and the margin carried beside it.
    #[inline]
    pub fn new(shape: &'a ConvexShape2, map: &Affine2) -> (Self, f32) {
        let m = map.matrix2;
        let scale = similarity_scale(&m);
        let margin = shape.margin();
        let core_only = scale.is_some() && margin > 0.0;
        let placed = Self { shape, m, mt: m.transpose(), t: map.translation, core_only };
        (placed, if core_only { margin * scale.unwrap_or(0.0) } else { 0.0 })
    }
}

impl SupportMap2 for Placed<'_> {
    #[inline]
    fn support(&self, dir: Vec2) -> Vec2 {
        let d = self.mt * dir;
        let local = if self.core_only { self.shape.core_support(d) } else { self.shape.support(d) };
        self.m * local + self.t
    }
}
