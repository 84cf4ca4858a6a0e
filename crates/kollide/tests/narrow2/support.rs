//! Random shapes, placements and pairs, and the contract checks shared by the tests.

use std::f32::consts::PI;

use glam::{Affine2, Mat2, Vec2};
use kollide::narrow::{Contact2, ContactManifold2};
use kollide::shape::{Ball2, Capsule2, ConvexPolygon2, ConvexShape2, Cuboid2, Segment2, Triangle2};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_convex2::max_over_directions;
use kollide_testkit::reference_shape2::{PlacedShape2, placed_gap2, placed_signed_distance2};
use rand::Rng;

pub fn rng(seed: u64) -> TestRng {
    random::rng(0x2d2a_0002 ^ seed)
}

/// The shape kinds: the six of `ConvexShape2`, polygons sharp and rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ball,
    Capsule,
    Cuboid,
    Segment,
    Triangle,
    Polygon,
    Rounded,
}

pub const KINDS: [Kind; 7] =
    [Kind::Ball, Kind::Capsule, Kind::Cuboid, Kind::Segment, Kind::Triangle, Kind::Polygon, Kind::Rounded];

/// How a shape is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Rigid,
    /// Uniform scale in `[0.2, 5]`, a reflection one time in three.
    Similarity,
    /// Per-axis scales in `[0.4, 2.5]`, a shear up to 0.8, a reflection one time in four.
    Affine,
}

pub const CLASSES: [Class; 3] = [Class::Rigid, Class::Similarity, Class::Affine];

/// `x` to `y` on a log scale.
fn log_uniform(rng: &mut TestRng, x: f32, y: f32) -> f32 {
    rng.random_range(x.ln()..y.ln()).exp()
}

/// The convex hull of random points (3 to 12, so polygons of more than eight vertices occur),
/// rounded by `radius`.
fn polygon(rng: &mut TestRng, size: f32, radius: f32) -> ConvexPolygon2 {
    loop {
        let n = rng.random_range(3..=12);
        let points: Vec<Vec2> = (0..n).map(|_| random::point2(rng, size)).collect();
        if let Ok(p) = ConvexPolygon2::rounded(&points, radius)
            && kollide::shape::ConvexShape2::Polygon(p.clone())
                .mass_properties()
                .is_some_and(|m| m.area > 0.05 * size * size)
        {
            return p;
        }
    }
}

/// A random shape of `kind`, about 0.3 to 1.5 across, with rare degenerate sizes (a zero ball, a
/// capsule of zero height, a segment that is a point).
pub fn shape(rng: &mut TestRng, kind: Kind) -> ConvexShape2 {
    let size = rng.random_range(0.3..1.5);
    match kind {
        Kind::Ball => ConvexShape2::Ball(Ball2::new(if rng.random_bool(0.02) { 0.0 } else { size })),
        Kind::Capsule => {
            let h = if rng.random_bool(0.1) { 0.0 } else { rng.random_range(0.1..1.0) * size };
            ConvexShape2::Capsule(Capsule2::new(h, rng.random_range(0.1..0.6) * size))
        }
        Kind::Cuboid => {
            let x = rng.random_range(0.1..1.0) * size;
            let y = if rng.random_bool(0.2) { x } else { rng.random_range(0.1..1.0) * size };
            ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(x, y)))
        }
        Kind::Segment => {
            let a = random::point2(rng, size);
            let b = if rng.random_bool(0.02) { a } else { random::point2(rng, size) };
            ConvexShape2::Segment(Segment2::new(a, b))
        }
        Kind::Triangle => loop {
            let [a, b, c] = [0; 3].map(|_| random::point2(rng, size));
            if (b - a).perp_dot(c - a).abs() > 0.02 * size * size {
                break ConvexShape2::Triangle(Triangle2::new(a, b, c));
            }
        },
        Kind::Polygon => ConvexShape2::Polygon(polygon(rng, size, 0.0)),
        Kind::Rounded => {
            let r = rng.random_range(0.05..0.4) * size;
            ConvexShape2::Polygon(polygon(rng, size, r))
        }
    }
}

/// A rotation: one time in five an exact quarter turn (axes on the world's axes).
fn rotation(rng: &mut TestRng) -> Mat2 {
    if rng.random_bool(0.2) {
        let quarter = [Mat2::IDENTITY, Mat2::from_cols(Vec2::Y, Vec2::NEG_X), -Mat2::IDENTITY];
        quarter[rng.random_range(0..3)]
    } else {
        Mat2::from_angle(rng.random_range(-PI..PI))
    }
}

/// A linear map of `class`.
pub fn linear(rng: &mut TestRng, class: Class) -> Mat2 {
    let rot = rotation(rng);
    match class {
        Class::Rigid => rot,
        Class::Similarity => {
            let s = log_uniform(rng, 0.2, 5.0);
            let flip = if rng.random_bool(1.0 / 3.0) { -1.0 } else { 1.0 };
            rot * Mat2::from_diagonal(Vec2::new(s, flip * s))
        }
        Class::Affine => {
            let (sx, sy) = (log_uniform(rng, 0.4, 2.5), log_uniform(rng, 0.4, 2.5));
            let shear = if rng.random_bool(0.7) { rng.random_range(-0.8..0.8) } else { 0.0 };
            let flip = if rng.random_bool(0.25) { -1.0 } else { 1.0 };
            rot * Mat2::from_cols(Vec2::new(flip * sx, 0.0), Vec2::new(shear, sy))
        }
    }
}

pub fn placement(rng: &mut TestRng, class: Class, translation: Vec2) -> Affine2 {
    Affine2::from_mat2_translation(linear(rng, class), translation)
}

/// A pair of placed shapes with its reference signed distance and tolerance.
#[derive(Clone)]
pub struct Case {
    pub a: ConvexShape2,
    pub ma: Affine2,
    pub b: ConvexShape2,
    pub mb: Affine2,
    pub ra: PlacedShape2,
    pub rb: PlacedShape2,
    /// The reference signed distance.
    pub sd: f64,
    /// The sum of the placed shapes' sizes.
    pub size: f64,
    /// `1e-5` of the size plus `2e-6` of the coordinates.
    pub tol: f64,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "A {:?} at {:?}, B {:?} at {:?}, signed distance {}",
            self.a, self.ma, self.b, self.mb, self.sd
        )
    }
}

/// Where B goes relative to A.
#[derive(Clone, Copy, Debug)]
enum Regime {
    Anywhere,
    Touching,
    Deep,
    OnAxis,
}

impl Case {
    pub fn new(a: ConvexShape2, ma: Affine2, b: ConvexShape2, mb: Affine2) -> Self {
        let (ra, rb) = (PlacedShape2::new(&a, &ma), PlacedShape2::new(&b, &mb));
        let sd = placed_signed_distance2(&ra, &rb);
        let size = ra.size() + rb.size();
        let tol = 1e-5 * size + 2e-6 * ra.coordinates().max(rb.coordinates());
        Self { a, ma, b, mb, ra, rb, sd, size, tol }
    }

    /// Case `i`: kinds and A's placement class cycle with `i` (every ordered pair of kinds under
    /// every class), the rest at random; one case in eight far from the origin.
    pub fn random(rng: &mut TestRng, i: usize) -> Self {
        Self::random_of(rng, i, &KINDS, &CLASSES)
    }

    /// [`Case::random`] over the given kinds and placement classes.
    pub fn random_of(rng: &mut TestRng, i: usize, kinds: &[Kind], classes: &[Class]) -> Self {
        let n = kinds.len();
        let (ka, kb) = (kinds[i % n], kinds[(i / n) % n]);
        let class_a = classes[(i / (n * n)) % classes.len()];
        let class_b = classes[rng.random_range(0..classes.len())];
        let (a, b) = (shape(rng, ka), shape(rng, kb));
        let far = rng.random_bool(0.125);
        let center = random::point2(rng, if far { 1e4 } else { 1.0 });
        let ma = placement(rng, class_a, center);
        let mut mb = placement(rng, class_b, center);
        let (sa, sb) = (PlacedShape2::new(&a, &ma).size(), PlacedShape2::new(&b, &mb).size());
        let reach = (sa + sb) as f32;
        let direction = Vec2::from_angle(rng.random_range(-PI..PI));
        let regime =
            [Regime::Anywhere, Regime::Touching, Regime::Deep, Regime::OnAxis][rng.random_range(0..4)];
        match regime {
            Regime::Anywhere | Regime::Touching => {
                mb.translation += direction * rng.random_range(0.0..1.3) * reach;
            }
            Regime::Deep => {
                if !rng.random_bool(0.25) {
                    mb.translation += random::point2(rng, 0.2 * sa.min(sb).max(0.01) as f32);
                }
            }
            Regime::OnAxis => {
                let axis = ma.matrix2.col(rng.random_range(0..2)).normalize();
                mb.translation += axis * rng.random_range(-1.3..1.3) * reach;
                if class_b == Class::Rigid {
                    // B's axes along A's (or across them).
                    let turn = if rng.random_bool(0.5) {
                        Mat2::IDENTITY
                    } else {
                        Mat2::from_cols(Vec2::Y, Vec2::NEG_X)
                    };
                    mb.matrix2 = Mat2::from_cols(axis, axis.perp()) * turn;
                }
            }
        }
        if let Regime::Touching = regime {
            // Move B along the best direction until the gap is the target: a shallow overlap or
            // a near miss.
            let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let target = sign * (sa + sb) * 10f64.powf(rng.random_range(-4.0..-1.0));
            for _ in 0..3 {
                let (ra, rb) = (PlacedShape2::new(&a, &ma), PlacedShape2::new(&b, &mb));
                let (sd, u) = max_over_directions(|u| placed_gap2(&ra, &rb, u));
                mb.translation += (u * (target - sd)).as_vec2();
            }
        }
        Self::new(a, ma, b, mb)
    }

    /// A prediction distance: 0, a tenth of the size, infinite, or negative.
    pub fn prediction(&self, rng: &mut TestRng) -> f32 {
        match rng.random_range(0..10) {
            0..3 => 0.0,
            3..6 => (0.1 * self.size) as f32,
            6..8 => f32::INFINITY,
            _ => (-0.05 * self.size) as f32,
        }
    }

    /// Checks a contact of A and B (world space) against the reference: the separation is the
    /// signed distance, the points lie on their shapes `separation` apart along the unit normal,
    /// and moving B by the depth along the normal separates the shapes.
    pub fn check_contact(&self, c: &Contact2, what: &str) {
        let tol = self.tol;
        let (pa, pb, n, sep) =
            (c.point_a.as_dvec2(), c.point_b.as_dvec2(), c.normal.as_dvec2(), c.separation as f64);
        assert!((n.length() - 1.0).abs() <= 1e-5, "{what}: normal");
        assert!((sep - self.sd).abs() <= tol, "{what}: separation vs {}", self.sd);
        assert!(((pb - pa) - n * sep).length() <= 2.0 * tol, "{what}: points vs separation");
        let (da, db) = (self.ra.signed_distance_to_point(pa), self.rb.signed_distance_to_point(pb));
        assert!(da.abs() <= tol && db.abs() <= tol, "{what}: points off their shapes by {da}, {db}");
        let gap = placed_gap2(&self.ra, &self.rb, n);
        assert!(gap >= sep - tol, "{what}: the gap along the normal is {gap}");
        assert_eq!((c.part_a, c.part_b), (0, 0), "{what}");
    }

    /// The documented hysteresis of a manifold's reference face (`1e-4` of the longer first edge
    /// or the larger half extent; each at most twice the size).
    pub fn hysteresis(&self) -> f64 {
        2e-4 * self.size
    }

    /// Checks a manifold within `prediction`: at most two points with distinct ids, each
    /// separated along the unit normal by at least the signed distance and at most the
    /// prediction (less the hysteresis of the reference face), its points in their shapes and
    /// `separation` apart along the normal.
    pub fn check_manifold(&self, m: &ContactManifold2, prediction: f32, what: &str) {
        let tol = self.tol;
        assert!(m.len() <= 2 && m.points().len() == m.len(), "{what}");
        if m.is_empty() {
            assert_eq!(m.normal, Vec2::ZERO, "{what}: an empty manifold has no normal");
            return;
        }
        let n = m.normal.as_dvec2();
        assert!((n.length() - 1.0).abs() <= 1e-5, "{what}: normal");
        if m.len() == 2 {
            assert_ne!(m.points()[0].id, m.points()[1].id, "{what}: ids");
        }
        for p in m.points() {
            let (pa, pb, sep) = (p.point_a.as_dvec2(), p.point_b.as_dvec2(), p.separation as f64);
            assert!(p.separation <= prediction, "{what}: point beyond the prediction");
            assert!(
                sep >= self.sd - tol - self.hysteresis(),
                "{what}: separation {sep} below the signed distance"
            );
            assert!(((pb - pa) - n * sep).length() <= 2.0 * tol, "{what}: points vs separation");
            let (da, db) = (self.ra.signed_distance_to_point(pa), self.rb.signed_distance_to_point(pb));
            assert!(da <= tol && db <= tol, "{what}: points outside their shapes by {da}, {db}");
        }
    }
}
