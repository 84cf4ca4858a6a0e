//! `sat2/sweep`: a convex polygon moving by a velocity past or into a static one, the motion
//! resolved to a velocity that does not enter it; kollide's `motion::resolve_motion2` against
//! parry2d's shape cast and the slide it implies.
//!
//! Inputs: pairs of random convex polygons of up to 8 vertices about 2 across
//! (`reference_sat::random_convex_polygon`), apart, the moving one 3 to 5 away with a velocity
//! aimed near the other, so that about half of the paths hit (the table's note prints the rate).
//! Both sides get the same world vertices and velocity.
//!
//! - kollide: `resolve_motion2` with the edge-normal and velocity axes
//!   (`SatAxes::EDGES_AND_VELOCITY`); a hit is `would_have_collided`, and the resolved velocity is
//!   folded into the checksum.
//! - parry2d: `query::cast_shapes` of the two `ConvexPolygon`s (identity poses, the moving one
//!   with the velocity, the other still; `max_time_of_impact` 1, target distance 0,
//!   `stop_at_penetration` true), then the slide it implies: the velocity up to the time of
//!   impact, plus the remaining velocity with its component along the hit normal (`normal1`)
//!   removed when it points into the obstacle. A hit is an impact within the velocity.
//!
//! The agreement check compares hit or miss only: the two slides differ by design (the SAT
//! resolution takes the longest of its axes' candidates and stops a skin short of contact; the
//! cast slides along the contact normal from the time of impact).

use glam::Vec2;
use kollide::motion::{SatAxes, resolve_motion2};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_sat::{apart_exact, random_convex_polygon};
use parry2d::math::Pose;
use parry2d::query::{ShapeCastOptions, cast_shapes};
use parry2d::shape::ConvexPolygon;
use rand::Rng;

use super::Workload;
use crate::harness::{Answer, Batch, Prepared};

/// The peer of this row.
const PARRY2D: &str = "parry2d 0.31";

/// Items per batch.
const ITEMS: usize = 2048;

pub fn workloads() -> Vec<Workload> {
    vec![Workload {
        name: "sat2/sweep",
        metric: "ns/query",
        ns_per_unit: 1.0,
        peer: PARRY2D,
        items: ITEMS,
        check_items: 1000,
        balanced: true,
        prepare: sweep,
    }]
}

/// A resolved motion: whether the path hit, and the velocity to apply.
#[derive(Clone, Copy, Debug)]
struct Slide {
    hit: bool,
    velocity: Vec2,
}

impl Answer for Slide {
    #[inline(always)]
    fn is_hit(self) -> bool {
        self.hit
    }

    #[inline(always)]
    fn bits(self) -> u64 {
        u64::from(self.velocity.x.to_bits()) ^ (u64::from(self.velocity.y.to_bits()) << 32)
    }

    /// Hit or miss (the slides differ by design; see the module).
    fn agrees(self, other: Self) -> bool {
        self.hit == other.hit
    }
}

/// One moving polygon, one static polygon and a velocity, apart at the start.
fn triple(rng: &mut TestRng) -> (Vec<Vec2>, Vec<Vec2>, Vec2) {
    loop {
        let target = random::point2(rng, 0.5);
        let stationary = random_convex_polygon(rng, target, 1.0, 8);
        let direction = Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU));
        let start = target + direction * rng.random_range(3.0..5.0);
        let moving = random_convex_polygon(rng, start, 1.0, 8);
        let aim = target + direction.perp() * rng.random_range(-1.8..1.8) - start;
        let velocity = aim * rng.random_range(0.5..2.0);
        if stationary.len() >= 3 && moving.len() >= 3 && apart_exact(&moving, Vec2::ZERO, &stationary) {
            return (moving, stationary, velocity);
        }
    }
}

type KollideInput = (Vec<Vec2>, Vec<Vec2>, Vec2);
type PeerInput = (ConvexPolygon, ConvexPolygon, Vec2);

fn sweep(n: usize, seed: u64) -> Option<Box<dyn Prepared>> {
    let mut rng = random::rng(seed);
    let triples: Vec<KollideInput> = (0..n).map(|_| triple(&mut rng)).collect();
    // Each side's inputs are allocated one after the other, compact in memory.
    let kollide: Vec<KollideInput> = triples.iter().map(|(m, s, v)| (m.clone(), s.clone(), *v)).collect();
    let polygon = |p: &[Vec2]| ConvexPolygon::from_convex_polyline(p.to_vec()).expect("a convex polygon");
    let peer: Vec<PeerInput> = triples.iter().map(|(m, s, v)| (polygon(m), polygon(s), *v)).collect();
    let axes = SatAxes::EDGES_AND_VELOCITY;
    let options = ShapeCastOptions {
        max_time_of_impact: 1.0,
        target_distance: 0.0,
        stop_at_penetration: true,
        ..Default::default()
    };
    Some(Box::new(Batch::new(
        kollide,
        peer,
        move |(moving, stationary, velocity): &KollideInput| {
            let r = resolve_motion2(moving, stationary, *velocity, &axes).expect("valid input");
            Slide { hit: r.would_have_collided, velocity: r.velocity }
        },
        move |(moving, stationary, velocity): &PeerInput| {
            let identity = Pose::IDENTITY;
            match cast_shapes(&identity, *velocity, moving, &identity, Vec2::ZERO, stationary, options) {
                Ok(Some(hit)) => {
                    let toi = hit.time_of_impact;
                    let rest = *velocity * (1.0 - toi);
                    let into = rest.dot(hit.normal1).max(0.0);
                    Slide { hit: true, velocity: *velocity * toi + rest - hit.normal1 * into }
                }
                _ => Slide { hit: false, velocity: *velocity },
            }
        },
    )))
}
