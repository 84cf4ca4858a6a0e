//! Sequences of broad-phase operations (insert, update, remove, box and ray queries, pairs)
//! decoded from the input, applied to every broad phase behind `BroadPhase` (`DynamicTree`,
//! `SpatialHash`, `SweepAndPrune`) and to the reference `BruteForce`, in 3D and in 2D. After each
//! operation the answers must be the same: edits succeed or fail alike, queries report the same
//! ids, `find_pairs` the same pairs, began and ended events (compared as sorted sets).
//!
//! Query boxes are bounded to |coord| <= 1e4: `SpatialHash` box queries over huge boxes visit
//! every cell and hang (issue 29, a known limitation), so they are not fuzzed here. Object boxes
//! and rays are not bounded.
#![no_main]

use arbitrary::Unstructured;
use glam::{Vec2, Vec3};
use kollide::bounds::{Aabb2, Aabb3};
use kollide::broad::{
    BroadBounds, BroadPhase, BruteForce, DynamicTree, PairEvents, SpatialHash, SweepAndPrune,
};
use kollide::math::{Ray2, Ray3};
use kollide_fuzz::{float, small};
use libfuzzer_sys::fuzz_target;

/// The bound on query-box coordinates (see the module documentation).
const QUERY_LIMIT: f32 = 1e4;

/// Lower and upper corners: mostly ordinary boxes, sometimes any floats (inverted, NaN, huge).
fn corners(u: &mut Unstructured) -> ([f32; 3], [f32; 3]) {
    let lo = [small(u), small(u), small(u)];
    if u.ratio(1u8, 6).unwrap_or(false) {
        ([float(u), float(u), float(u)], [float(u), float(u), float(u)])
    } else {
        let size = [small(u).abs(), small(u).abs(), small(u).abs()];
        (lo, [lo[0] + size[0], lo[1] + size[1], lo[2] + size[2]])
    }
}

fn id(u: &mut Unstructured) -> u32 {
    if u.ratio(1u8, 32).unwrap_or(false) {
        u.arbitrary().unwrap_or(0)
    } else {
        u.int_in_range(0..=15).unwrap_or(0)
    }
}

fn sorted(mut ids: Vec<u32>) -> Vec<u32> {
    ids.sort_unstable();
    ids
}

/// Runs the operations on every broad phase of box type `B`; `ray` builds a ray from an origin
/// and a direction.
fn run<B: BroadBounds + Copy>(u: &mut Unstructured, ray: fn([f32; 3], [f32; 3]) -> B::Ray)
where
    B::Ray: std::fmt::Debug,
{
    let mut phases: Vec<(&str, Box<dyn BroadPhase<B>>)> = vec![
        ("BruteForce", Box::new(BruteForce::<B>::new())),
        ("DynamicTree", Box::new(DynamicTree::<B>::new())),
        ("SpatialHash", Box::new(SpatialHash::<B>::new())),
        ("SweepAndPrune", Box::new(SweepAndPrune::<B>::new())),
    ];
    let mut events: Vec<PairEvents> = phases.iter().map(|_| PairEvents::default()).collect();
    let mut out = Vec::new();
    let mut log = Vec::new();
    while !u.is_empty() {
        let op = u.int_in_range(0u8..=5).unwrap_or(0);
        let answers: Vec<String> = match op {
            0 | 1 => {
                let (id, (lo, hi)) = (id(u), corners(u));
                log.push(format!("{} {id} {lo:?} {hi:?}", if op == 0 { "insert" } else { "update" }));
                let b = B::from_lo_hi(lo, hi);
                phases
                    .iter_mut()
                    .map(|(_, p)| format!("{:?}", if op == 0 { p.insert(id, b) } else { p.update(id, b) }))
                    .collect()
            }
            2 => {
                let id = id(u);
                log.push(format!("remove {id}"));
                phases.iter_mut().map(|(_, p)| format!("{:?} len {}", p.remove(id), p.len())).collect()
            }
            3 => {
                let (lo, hi) = corners(u);
                let clamp = |c: [f32; 3]| c.map(|x| x.clamp(-QUERY_LIMIT, QUERY_LIMIT));
                let query = B::from_lo_hi(clamp(lo), clamp(hi));
                log.push(format!("query_box {query:?}"));
                phases
                    .iter()
                    .map(|(_, p)| {
                        p.query_box(&query, &mut out);
                        format!("{:?}", sorted(out.clone()))
                    })
                    .collect()
            }
            4 => {
                let (origin, dir) = ([float(u), float(u), float(u)], [float(u), float(u), float(u)]);
                let (r, max_t) = (ray(origin, dir), float(u));
                log.push(format!("query_ray {r:?} {max_t}"));
                phases
                    .iter()
                    .map(|(_, p)| {
                        p.query_ray(&r, max_t, &mut out);
                        format!("{:?}", sorted(out.clone()))
                    })
                    .collect()
            }
            _ => {
                log.push("find_pairs".to_string());
                phases
                    .iter_mut()
                    .zip(&mut events)
                    .map(|((_, p), e)| {
                        p.find_pairs(e);
                        format!("{:?} began {:?} ended {:?}", e.pairs, e.began, e.ended)
                    })
                    .collect()
            }
        };
        for ((name, _), answer) in phases.iter().zip(&answers).skip(1) {
            assert_eq!(answer, &answers[0], "{name} vs BruteForce after:\n{}", log.join("\n"));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    if u.arbitrary().unwrap_or(true) {
        run::<Aabb3>(&mut u, |o, d| Ray3::new(Vec3::from(o), Vec3::from(d)));
    } else {
        run::<Aabb2>(&mut u, |o, d| Ray2::new(Vec2::new(o[0], o[1]), Vec2::new(d[0], d[1])));
    }
});
