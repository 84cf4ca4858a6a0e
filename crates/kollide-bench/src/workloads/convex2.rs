//! `convex2/<pair>/<query>`: 2D convex pairs, kollide's 2D `narrow` queries against parry2d's
//! `query`, with the method of [`super::convex`]: identical shapes and world poses on both sides,
//! half deeply penetrating and half near misses, each side computing the relative placement
//! itself; kollide's `distance2`, `contact2` and `contact_manifold2` against parry2d's
//! `query::distance`, `query::contact` and its dispatcher's `contact_manifold_convex_convex`,
//! each side reusing one output manifold. Distances and contacts are compared as in
//! [`super::convex`]; manifolds by [`Depth`].

use std::cell::RefCell;

use glam::{Affine2, Vec2};
use kollide::narrow::{self, ContactManifold2, GjkCache2};
use kollide::shape::{Ball2, Capsule2, ConvexPolygon2, ConvexShape2, Cuboid2, Segment2};
use kollide_testkit::random::{self, TestRng};
use parry2d::math::Pose;
use parry2d::query::{self as pq, DefaultQueryDispatcher, PersistentQueryDispatcher};
use parry2d::shape::SharedShape;
use rand::Rng;

use super::convex::Loose;
use super::{PARRY2D, Workload};
use crate::harness::{Answer, Batch, Prepared};

/// A manifold's deepest separation, compared by contact or no contact only. kollide's deepest
/// manifold point is the minimum translation distance (its contact's separation, checked against
/// f64 references in `crates/kollide/tests/narrow2`); parry2d's manifolds in deep overlaps report
/// points both shallower and deeper than its own `query::contact` (its capsule pairs by up to a
/// third of the depth either way, measured against the same references), so their depths are not
/// compared.
#[derive(Clone, Copy, Debug)]
struct Depth(Option<f32>);

impl Answer for Depth {
    fn is_hit(self) -> bool {
        self.0.is_some()
    }

    fn bits(self) -> u64 {
        Loose(self.0).bits()
    }

    fn agrees(self, other: Self) -> bool {
        self.0.is_some() == other.0.is_some()
    }
}

/// Items per batch.
const ITEMS: usize = 2048;
/// Contact and manifold prediction distance (see [`super::convex`]).
const PREDICTION: f32 = 0.0;

pub fn workloads() -> Vec<Workload> {
    macro_rules! rows {
        ($($pair:literal => $make:expr),* $(,)?) => {
            vec![$(
                row(concat!("convex2/", $pair, "/distance"), |n, s| distance(n, s, $make), false),
                row(concat!("convex2/", $pair, "/contact"), |n, s| contact(n, s, $make), true),
                row(concat!("convex2/", $pair, "/manifold"), |n, s| manifold(n, s, $make), true),
            )*]
        };
    }
    rows!(
        "circle-circle" => |r| (ball(r), ball(r)),
        "box-box" => |r| (cuboid(r), cuboid(r)),
        "capsule-capsule" => |r| (capsule(r), capsule(r)),
        "polygon8-polygon8" => |r| (polygon8(r), polygon8(r)),
        "box-segment" => |r| (cuboid(r), segment(r)),
    )
}

fn row(name: &'static str, prepare: fn(usize, u64) -> Option<Box<dyn Prepared>>, balanced: bool) -> Workload {
    Workload {
        name,
        metric: "ns/query",
        ns_per_unit: 1.0,
        peer: PARRY2D,
        items: ITEMS,
        check_items: 1000,
        balanced,
        prepare,
    }
}

/// One shape on both sides, and its bounding radius.
type Made = (ConvexShape2, SharedShape, f32);

fn size(rng: &mut TestRng, lo: f32, hi: f32) -> f32 {
    rng.random_range(lo..hi)
}

fn ball(rng: &mut TestRng) -> Made {
    let r = size(rng, 0.3, 1.0);
    (ConvexShape2::Ball(Ball2::new(r)), SharedShape::ball(r), r)
}

fn cuboid(rng: &mut TestRng) -> Made {
    let h = Vec2::new(size(rng, 0.3, 1.0), size(rng, 0.3, 1.0));
    (ConvexShape2::Cuboid(Cuboid2::new(h)), SharedShape::cuboid(h.x, h.y), h.length())
}

fn capsule(rng: &mut TestRng) -> Made {
    let (h, r) = (size(rng, 0.3, 1.0), size(rng, 0.2, 0.5));
    (ConvexShape2::Capsule(Capsule2::new(h, r)), SharedShape::capsule_y(h, r), h + r)
}

/// A polygon of eight vertices: eight points at increasing angles on a wobbly circle (always
/// strictly convex, so both libraries keep all eight).
fn polygon8(rng: &mut TestRng) -> Made {
    let scale = size(rng, 0.5, 1.0);
    let start = size(rng, 0.0, std::f32::consts::TAU);
    let points: Vec<Vec2> = (0..8)
        .map(|i| {
            let angle = start + (i as f32 + size(rng, -0.2, 0.2)) * std::f32::consts::TAU / 8.0;
            Vec2::from_angle(angle) * scale
        })
        .collect();
    let poly = ConvexPolygon2::new(&points).expect("eight points on a circle span an area");
    let peer = SharedShape::convex_polyline(points).expect("eight points on a circle span an area");
    (ConvexShape2::Polygon(poly), peer, scale)
}

fn segment(rng: &mut TestRng) -> Made {
    let half = Vec2::from_angle(size(rng, 0.0, std::f32::consts::TAU)) * size(rng, 0.3, 1.0);
    (ConvexShape2::Segment(Segment2::new(-half, half)), SharedShape::segment(-half, half), half.length())
}

type Pair = fn(&mut TestRng) -> (Made, Made);
type KollideInput = (ConvexShape2, Affine2, ConvexShape2, Affine2);
type PeerInput = (SharedShape, Pose, SharedShape, Pose);

fn pose(angle: f32, t: Vec2) -> Affine2 {
    Affine2::from_angle_translation(angle, t)
}

/// Random pairs: half deeply penetrating, half near misses (B pushed out along the line of
/// centres until it is within 0.1 of A, measured with kollide's distance outside any timing).
fn inputs(n: usize, seed: u64, pair: Pair) -> (Vec<KollideInput>, Vec<PeerInput>) {
    let mut rng = random::rng(seed);
    let mut kollide = Vec::with_capacity(n);
    let mut peer = Vec::with_capacity(n);
    for i in 0..n {
        let ((ka, pa, ra), (kb, pb, rb)) = pair(&mut rng);
        let (qa, qb) = (size(&mut rng, -3.2, 3.2), size(&mut rng, -3.2, 3.2));
        let ta = Vec2::new(size(&mut rng, -2.0, 2.0), size(&mut rng, -2.0, 2.0));
        let dir = Vec2::from_angle(size(&mut rng, 0.0, std::f32::consts::TAU));
        let mut tb = ta + dir * rng.random_range(0.0..0.4) * (ra + rb);
        if i % 2 == 1 {
            let gap = |t: Vec2| {
                narrow::distance2(&ka, &pose(qa, ta), &kb, &pose(qb, t), &mut GjkCache2::default())
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
        peer.push((pa, Pose::new(ta, qa), pb, Pose::new(tb, qb)));
    }
    (kollide, peer)
}

fn distance(n: usize, seed: u64, pair: Pair) -> Option<Box<dyn Prepared>> {
    let (k, p) = inputs(n, seed, pair);
    Some(Box::new(Batch::new(
        k,
        p,
        |(a, am, b, bm): &KollideInput| {
            Loose(narrow::distance2(a, am, b, bm, &mut GjkCache2::default()).ok())
        },
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
                narrow::contact2(a, am, b, bm, PREDICTION, &mut GjkCache2::default())
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
    let manifold = RefCell::new(ContactManifold2::default());
    let peer_manifold = RefCell::new(pq::ContactManifold::<(), ()>::new());
    Some(Box::new(Batch::new(
        k,
        p,
        move |(a, am, b, bm): &KollideInput| {
            let mut m = manifold.borrow_mut();
            if narrow::contact_manifold2(a, am, b, bm, PREDICTION, &mut GjkCache2::default(), &mut m).is_err()
            {
                return Depth(None);
            }
            Depth(m.points().iter().map(|p| p.separation).reduce(f32::min))
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
                return Depth(None);
            }
            Depth(m.points.iter().map(|p| p.dist).reduce(f32::min))
        },
    )))
}
