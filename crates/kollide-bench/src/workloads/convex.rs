//! `convex/<pair>/<query>`: convex pairs, kollide's `narrow` against parry3d's `query`.
//!
//! Every batch mixes deeply penetrating poses and near misses (about half each; the table's note
//! prints the measured contact rate). Both sides get the same shapes and world poses and compute
//! the relative placement themselves: kollide's `distance`, `contact` and `contact_manifold`
//! against parry's `query::distance`, `query::contact` and its dispatcher's
//! `contact_manifold_convex_convex`, each side reusing one output manifold (so parry does not
//! allocate).
//! Manifold answers are compared by their deepest point; every answer loosely (see [`Loose`]).

use std::cell::RefCell;

use glam::{Affine3A, Quat, Vec3};
use kollide::narrow::{self, ContactManifold, GjkCache};
use kollide::shape::{Ball, Capsule, ConvexHull, ConvexShape, Cuboid, Cylinder, Triangle};
use kollide_testkit::random::{self, TestRng};
use parry3d::math::Pose;
use parry3d::query::{self as pq, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry3d::shape::SharedShape;
use rand::Rng;

use super::{PARRY3D, Workload};
use crate::harness::{Answer, Batch, Prepared};

/// A separation compared loosely: both `None`, or within `3e-3 + 2%` of each other.
///
/// Used where parry's answer is measurably approximate, so that the agreement check compares the
/// two libraries and not parry's tolerances: its capsule distances and contacts come from GJK on
/// the rounded shapes and stop up to ~3e-3 away from the exact value (checked against
/// `kollide_testkit::reference_convex`, which agrees with kollide to 1e-6), and its manifold
/// points in deep overlaps are measured along its reference face, up to ~1% deeper than the
/// penetration depth (which kollide's deepest manifold point equals).
#[derive(Clone, Copy, Debug)]
pub(super) struct Loose(pub(super) Option<f32>);

impl Answer for Loose {
    fn is_hit(self) -> bool {
        self.0.is_some()
    }

    fn bits(self) -> u64 {
        self.0.map_or(0, |t| u64::from(t.to_bits()))
    }

    fn agrees(self, other: Self) -> bool {
        match (self.0, other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => (a - b).abs() <= 3e-3 + 2e-2 * a.abs().max(b.abs()),
            _ => false,
        }
    }
}

/// Items per batch.
const ITEMS: usize = 2048;
/// Contact and manifold prediction distance: zero, so near misses are "no contact" on both sides
/// and measure each library's early-outs. (With a positive prediction, parry's manifolds for
/// separated box–triangle pairs are sometimes empty or far from its own `contact`, which would
/// make the comparison measure that.)
const PREDICTION: f32 = 0.0;

pub fn workloads() -> Vec<Workload> {
    macro_rules! rows {
        ($($pair:literal => $make:expr),* $(,)?) => {
            vec![$(
                row(concat!("convex/", $pair, "/distance"), |n, s| distance(n, s, $make), false),
                row(concat!("convex/", $pair, "/contact"), |n, s| contact(n, s, $make), true),
                row(concat!("convex/", $pair, "/manifold"), |n, s| manifold(n, s, $make), true),
            )*]
        };
    }
    rows!(
        "ball-ball" => pair_ball,
        "box-box" => pair_box,
        "capsule-capsule" => pair_capsule,
        "cylinder-cylinder" => pair_cylinder,
        "hull32-hull32" => pair_hull,
        "box-triangle" => pair_box_triangle,
    )
}

fn row(name: &'static str, prepare: fn(usize, u64) -> Option<Box<dyn Prepared>>, balanced: bool) -> Workload {
    Workload {
        name,
        metric: "ns/query",
        ns_per_unit: 1.0,
        peer: PARRY3D,
        items: ITEMS,
        check_items: 1000,
        balanced,
        prepare,
    }
}

/// One shape on both sides, and its bounding radius.
type Made = (ConvexShape, SharedShape, f32);

fn size(rng: &mut TestRng, lo: f32, hi: f32) -> f32 {
    rng.random_range(lo..hi)
}

fn ball(rng: &mut TestRng) -> Made {
    let r = size(rng, 0.3, 1.0);
    (Ball::new(r).into(), SharedShape::ball(r), r)
}

fn cuboid(rng: &mut TestRng) -> Made {
    let h = Vec3::new(size(rng, 0.3, 1.0), size(rng, 0.3, 1.0), size(rng, 0.3, 1.0));
    (Cuboid::new(h).into(), SharedShape::cuboid(h.x, h.y, h.z), h.length())
}

fn capsule(rng: &mut TestRng) -> Made {
    let (h, r) = (size(rng, 0.3, 1.0), size(rng, 0.2, 0.5));
    (Capsule::new(h, r).into(), SharedShape::capsule_y(h, r), h + r)
}

fn cylinder(rng: &mut TestRng) -> Made {
    let (h, r) = (size(rng, 0.3, 1.0), size(rng, 0.3, 0.8));
    (Cylinder::new(h, r).into(), SharedShape::cylinder(h, r), (h * h + r * r).sqrt())
}

fn hull32(rng: &mut TestRng) -> Made {
    let points: Vec<Vec3> = (0..32).map(|_| random::unit3(rng) * size(rng, 0.6, 1.0)).collect();
    let hull = ConvexHull::new(&points).expect("random points span a volume");
    let peer = SharedShape::convex_hull(&points).expect("random points span a volume");
    (hull.into(), peer, 1.0)
}

fn triangle(rng: &mut TestRng) -> Made {
    let t = random::triangle3(rng, Vec3::ZERO, 1.0);
    let r = t.iter().map(|p| p.length()).fold(0.0, f32::max);
    (Triangle::new(t[0], t[1], t[2]).into(), SharedShape::triangle(t[0], t[1], t[2]), r)
}

type Pair = fn(&mut TestRng) -> (Made, Made);

fn pair_ball(rng: &mut TestRng) -> (Made, Made) {
    (ball(rng), ball(rng))
}
fn pair_box(rng: &mut TestRng) -> (Made, Made) {
    (cuboid(rng), cuboid(rng))
}
fn pair_capsule(rng: &mut TestRng) -> (Made, Made) {
    (capsule(rng), capsule(rng))
}
fn pair_cylinder(rng: &mut TestRng) -> (Made, Made) {
    (cylinder(rng), cylinder(rng))
}
fn pair_hull(rng: &mut TestRng) -> (Made, Made) {
    (hull32(rng), hull32(rng))
}
fn pair_box_triangle(rng: &mut TestRng) -> (Made, Made) {
    (cuboid(rng), triangle(rng))
}

/// A pair's inputs on both sides.
type KollideInput = (ConvexShape, Affine3A, ConvexShape, Affine3A);
type PeerInput = (SharedShape, Pose, SharedShape, Pose);

/// Random pairs: half deeply penetrating (centres within 40% of the bounding radii's sum), half
/// near misses (B pushed out along the line of centres until it is within 0.1 of A, measured
/// with kollide's distance outside any timing).
fn inputs(n: usize, seed: u64, pair: Pair) -> (Vec<KollideInput>, Vec<PeerInput>) {
    let mut rng = random::rng(seed);
    let mut kollide = Vec::with_capacity(n);
    let mut peer = Vec::with_capacity(n);
    for i in 0..n {
        let ((ka, pa, ra), (kb, pb, rb)) = pair(&mut rng);
        let (qa, qb) = (random::rotation3(&mut rng), random::rotation3(&mut rng));
        let ta = random::point3(&mut rng, 2.0);
        let dir = random::unit3(&mut rng);
        let mut tb = ta + dir * rng.random_range(0.0..0.4) * (ra + rb);
        if i % 2 == 1 {
            // Near miss: bisect the offset along `dir` for a gap in (0, 0.1].
            let gap = |t: Vec3| {
                narrow::distance(&ka, &pose(qa, ta), &kb, &pose(qb, t), &mut GjkCache::default())
                    .unwrap_or(0.0)
            };
            let (mut lo, mut hi) = (0.0f32, 2.0 * (ra + rb) + 1.0);
            let target = rng.random_range(0.005..0.1);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if gap(ta + dir * mid) < target { lo = mid } else { hi = mid }
            }
            tb = ta + dir * hi;
        }
        kollide.push((ka, pose(qa, ta), kb, pose(qb, tb)));
        peer.push((pa, Pose::from_parts(ta, qa), pb, Pose::from_parts(tb, qb)));
    }
    (kollide, peer)
}

fn pose(q: Quat, t: Vec3) -> Affine3A {
    Affine3A::from_rotation_translation(q, t)
}

fn distance(n: usize, seed: u64, pair: Pair) -> Option<Box<dyn Prepared>> {
    let (k, p) = inputs(n, seed, pair);
    Some(Box::new(Batch::new(
        k,
        p,
        |(a, am, b, bm): &KollideInput| Loose(narrow::distance(a, am, b, bm, &mut GjkCache::default()).ok()),
        |(a, am, b, bm): &PeerInput| {
            Loose(pq::distance(am, a.as_ref(), bm, b.as_ref()).ok().map(|d| d.distance))
        },
    )))
}

fn contact(n: usize, seed: u64, pair: Pair) -> Option<Box<dyn Prepared>> {
    let (k, p) = inputs(n, seed, pair);
    Some(Box::new(Batch::new(
        k,
        p,
        |(a, am, b, bm): &KollideInput| {
            Loose(
                narrow::contact(a, am, b, bm, PREDICTION, &mut GjkCache::default())
                    .ok()
                    .flatten()
                    .map(|c| c.separation),
            )
        },
        |(a, am, b, bm): &PeerInput| {
            Loose(pq::contact(am, a.as_ref(), bm, b.as_ref(), PREDICTION).ok().flatten().map(|c| c.dist))
        },
    )))
}

fn manifold(n: usize, seed: u64, pair: Pair) -> Option<Box<dyn Prepared>> {
    let (k, p) = inputs(n, seed, pair);
    let manifold = RefCell::new(ContactManifold::default());
    let peer_manifold = RefCell::new(pq::ContactManifold::<(), ()>::new());
    Some(Box::new(Batch::new(
        k,
        p,
        move |(a, am, b, bm): &KollideInput| {
            let mut m = manifold.borrow_mut();
            if narrow::contact_manifold(a, am, b, bm, PREDICTION, &mut GjkCache::default(), &mut m).is_err() {
                return Loose(None);
            }
            Loose(m.points().iter().map(|p| p.separation).reduce(f32::min))
        },
        move |(a, am, b, bm): &PeerInput| {
            let mut m = peer_manifold.borrow_mut();
            m.clear();
            let pos12 = am.inv_mul(bm);
            let result = DefaultQueryDispatcher.contact_manifold_convex_convex(
                &pos12,
                a.as_ref(),
                b.as_ref(),
                None,
                None,
                PREDICTION,
                &mut m,
            );
            if result.is_err() {
                return Loose(None);
            }
            Loose(m.points.iter().map(|p| p.dist).reduce(f32::min))
        },
    )))
}
