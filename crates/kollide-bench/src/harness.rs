//! The measuring harness: prepared input batches, alternating timing, medians, agreement checks.
//!
//! A workload prepares identical inputs for kollide and for the peer (converted to each library's
//! types before any timing), then [`measure`] times both over the whole batch, alternating, and
//! keeps the median per-item time of each side.

use std::hint::black_box;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use crate::workloads::Workload;

/// One query answer, as both sides report it.
///
/// The harness counts hits, folds `bits` into a black-boxed checksum (so the optimiser must
/// compute the whole answer, not only whether there was one) and compares the two sides' answers
/// item by item with `agrees`.
pub trait Answer: Copy {
    /// Whether this answer counts as a hit (for the hit rate).
    fn is_hit(self) -> bool;
    /// A few bits of the answer for the checksum.
    fn bits(self) -> u64;
    /// Whether two answers to the same question agree (within a tolerance for real numbers).
    fn agrees(self, other: Self) -> bool;
}

impl Answer for bool {
    #[inline(always)]
    fn is_hit(self) -> bool {
        self
    }

    #[inline(always)]
    fn bits(self) -> u64 {
        u64::from(self)
    }

    fn agrees(self, other: Self) -> bool {
        self == other
    }
}

/// A count (pairs found, objects hit), a hit when nonzero; both sides must count exactly alike.
impl Answer for u64 {
    #[inline(always)]
    fn is_hit(self) -> bool {
        self > 0
    }

    #[inline(always)]
    fn bits(self) -> u64 {
        self
    }

    fn agrees(self, other: Self) -> bool {
        self == other
    }
}

/// A ray parameter, `None` for a miss.
impl Answer for Option<f32> {
    #[inline(always)]
    fn is_hit(self) -> bool {
        self.is_some()
    }

    #[inline(always)]
    fn bits(self) -> u64 {
        self.map_or(0, |t| u64::from(t.to_bits()))
    }

    /// Both miss, or both hit at parameters equal to a relative tolerance of 1e-3.
    fn agrees(self, other: Self) -> bool {
        match (self, other) {
            (None, None) => true,
            (Some(a), Some(b)) => (a - b).abs() <= 1e-3 * a.abs().max(b.abs()).max(1.0),
            _ => false,
        }
    }
}

/// Item-by-item comparison of both sides' answers on the whole batch (not timed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agreement {
    /// Items in the batch.
    pub items: usize,
    /// Hits reported by kollide.
    pub kollide_hits: usize,
    /// Hits reported by the peer.
    pub peer_hits: usize,
    /// Items on which the two answers do not agree.
    pub mismatches: usize,
    /// The first disagreeing item, if any.
    pub first_mismatch: Option<usize>,
}

impl Agreement {
    /// The largest number of disagreeing items that still counts as agreement: 0.1 % of the
    /// batch. Random f32 inputs put a few items within rounding of a boundary (touching), where
    /// two correct implementations may legitimately answer differently; more than that is a bug
    /// in one of them.
    pub fn tolerated_mismatches(&self) -> usize {
        self.items / 1000
    }

    /// Whether the two sides agree up to [`Self::tolerated_mismatches`].
    pub fn ok(&self) -> bool {
        self.mismatches <= self.tolerated_mismatches()
    }

    /// kollide's hit rate in `[0, 1]`.
    pub fn hit_rate(&self) -> f64 {
        self.kollide_hits as f64 / self.items.max(1) as f64
    }
}

/// A workload's inputs, prepared for both sides, ready to be timed.
pub trait Prepared {
    /// Items (queries) in one pass over the batch.
    fn items(&self) -> usize;
    /// Runs kollide `passes` times over the batch; returns the number of hits of one pass.
    fn run_kollide(&self, passes: usize) -> usize;
    /// Runs the peer `passes` times over the batch; returns the number of hits of one pass.
    fn run_peer(&self, passes: usize) -> usize;
    /// Compares both sides' answers item by item.
    fn check(&self) -> Agreement;
    /// Anything the row's note should add (a memory figure, what the agreement check compared),
    /// read after [`measure`].
    fn note(&self) -> Option<String> {
        None
    }
}

/// The common case: one query per input item on each side, with per-side input types.
pub struct Batch<K, P, A, FK, FP> {
    kollide_inputs: Vec<K>,
    peer_inputs: Vec<P>,
    kollide: FK,
    peer: FP,
    answer: PhantomData<fn() -> A>,
}

impl<K, P, A, FK, FP> Batch<K, P, A, FK, FP>
where
    A: Answer,
    FK: Fn(&K) -> A,
    FP: Fn(&P) -> A,
{
    /// A batch; `kollide_inputs[i]` and `peer_inputs[i]` must describe the same question.
    pub fn new(kollide_inputs: Vec<K>, peer_inputs: Vec<P>, kollide: FK, peer: FP) -> Self {
        assert_eq!(kollide_inputs.len(), peer_inputs.len());
        Self { kollide_inputs, peer_inputs, kollide, peer, answer: PhantomData }
    }
}

/// The timed loop. Every input goes through `black_box` (so nothing is hoisted or specialised on
/// known data) and every answer is folded into a checksum that is black-boxed at the end (so no
/// query is optimised away).
#[inline(never)]
fn run_passes<I, A: Answer>(inputs: &[I], query: &impl Fn(&I) -> A, passes: usize) -> usize {
    let mut hits = 0usize;
    let mut checksum = 0u64;
    for _ in 0..passes {
        hits = 0;
        for input in inputs {
            let answer = query(black_box(input));
            hits += usize::from(answer.is_hit());
            checksum = checksum.wrapping_add(answer.bits());
        }
    }
    black_box(checksum);
    black_box(hits)
}

impl<K, P, A, FK, FP> Prepared for Batch<K, P, A, FK, FP>
where
    A: Answer,
    FK: Fn(&K) -> A,
    FP: Fn(&P) -> A,
{
    fn items(&self) -> usize {
        self.kollide_inputs.len()
    }

    fn run_kollide(&self, passes: usize) -> usize {
        run_passes(&self.kollide_inputs, &self.kollide, passes)
    }

    fn run_peer(&self, passes: usize) -> usize {
        run_passes(&self.peer_inputs, &self.peer, passes)
    }

    fn check(&self) -> Agreement {
        let mut agreement = Agreement {
            items: self.items(),
            kollide_hits: 0,
            peer_hits: 0,
            mismatches: 0,
            first_mismatch: None,
        };
        for (i, (k, p)) in self.kollide_inputs.iter().zip(&self.peer_inputs).enumerate() {
            let (a, b) = ((self.kollide)(k), (self.peer)(p));
            agreement.kollide_hits += usize::from(a.is_hit());
            agreement.peer_hits += usize::from(b.is_hit());
            if !a.agrees(b) {
                agreement.mismatches += 1;
                agreement.first_mismatch.get_or_insert(i);
            }
        }
        agreement
    }
}

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Timed repeats of (kollide batch, peer batch); the median of each side is reported.
    pub repeats: usize,
    /// Minimum duration of one timed batch of each side (well above timer resolution).
    pub min_batch: Duration,
    /// Untimed running of both sides before measuring (caches, branch predictors, clocks).
    pub warm_up: Duration,
    /// Whether this is a `--quick` run (smaller batches, see [`Settings::items`]).
    pub quick: bool,
}

impl Settings {
    /// Settings for `--quick` (the whole suite well under a minute) or for a full run.
    pub fn new(quick: bool) -> Self {
        if quick {
            Self {
                repeats: 7,
                min_batch: Duration::from_millis(3),
                warm_up: Duration::from_millis(20),
                quick,
            }
        } else {
            Self {
                repeats: 15,
                min_batch: Duration::from_millis(10),
                warm_up: Duration::from_millis(100),
                quick,
            }
        }
    }
}

impl Settings {
    /// Items per batch for `workload`: its full count, or a quarter of it with `--quick` (never
    /// fewer than its agreement-test count), which keeps heavy workloads short while every item
    /// still runs on the same inputs as in a full run.
    pub fn items(&self, workload: &Workload) -> usize {
        if self.quick { (workload.items / 4).max(workload.check_items) } else { workload.items }
    }
}

/// The result of measuring one workload.
#[derive(Clone, Copy, Debug)]
pub struct Measurement {
    /// Median nanoseconds per item for kollide.
    pub kollide_ns: f64,
    /// Median nanoseconds per item for the peer.
    pub peer_ns: f64,
    /// The item-by-item comparison.
    pub agreement: Agreement,
}

impl Measurement {
    /// `peer / kollide`: above 1 means kollide is faster.
    pub fn speedup(&self) -> f64 {
        self.peer_ns / self.kollide_ns
    }
}

fn seconds(run: impl FnOnce() -> usize) -> f64 {
    let start = Instant::now();
    black_box(run());
    start.elapsed().as_secs_f64()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 { values[mid] } else { 0.5 * (values[mid - 1] + values[mid]) }
}

/// Measures one prepared workload: agreement check, warm-up, calibration of the passes per batch,
/// then `repeats` alternating timings (the order kollide/peer flips every repeat so neither side
/// always runs on a freshly warmed or a freshly cooled core).
pub fn measure(prepared: &dyn Prepared, settings: &Settings) -> Measurement {
    let agreement = prepared.check();
    let items = prepared.items().max(1) as f64;

    // Warm-up, which also gives a first estimate of one pass of each side.
    let warm_until = Instant::now() + settings.warm_up;
    let (mut one_kollide, mut one_peer) = (f64::INFINITY, f64::INFINITY);
    loop {
        one_kollide = one_kollide.min(seconds(|| prepared.run_kollide(1)));
        one_peer = one_peer.min(seconds(|| prepared.run_peer(1)));
        if Instant::now() >= warm_until {
            break;
        }
    }
    // Each side gets its own pass count, so that a side a thousand times slower than the other
    // (a rebuild against a free operation) is not run a thousand times longer than needed.
    let passes_for = |one: f64| (settings.min_batch.as_secs_f64() / one.max(1e-9)).ceil().max(1.0) as usize;
    let (kollide_passes, peer_passes) = (passes_for(one_kollide), passes_for(one_peer));
    let time_kollide =
        || seconds(|| prepared.run_kollide(kollide_passes)) * 1e9 / (kollide_passes as f64 * items);
    let time_peer = || seconds(|| prepared.run_peer(peer_passes)) * 1e9 / (peer_passes as f64 * items);

    let mut kollide = Vec::with_capacity(settings.repeats);
    let mut peer = Vec::with_capacity(settings.repeats);
    for repeat in 0..settings.repeats {
        if repeat % 2 == 0 {
            kollide.push(time_kollide());
            peer.push(time_peer());
        } else {
            peer.push(time_peer());
            kollide.push(time_kollide());
        }
    }
    Measurement { kollide_ns: median(&mut kollide), peer_ns: median(&mut peer), agreement }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_answers_agree_within_tolerance_only() {
        assert!(Some(1.0f32).agrees(Some(1.0005)));
        assert!(!Some(1.0f32).agrees(Some(1.01)));
        assert!(!Some(1.0f32).agrees(None));
        assert!(None::<f32>.agrees(None));
    }

    #[test]
    fn check_counts_hits_and_mismatches() {
        let batch =
            Batch::new(vec![1, 2, 3, 4], vec![1, 2, 3, 5], |&x: &i32| x % 2 == 0, |&x: &i32| x % 2 == 0);
        let agreement = batch.check();
        assert_eq!(agreement.kollide_hits, 2);
        assert_eq!(agreement.peer_hits, 1);
        assert_eq!(agreement.mismatches, 1);
        assert_eq!(agreement.first_mismatch, Some(3));
        assert!(!agreement.ok());
        assert_eq!(batch.run_kollide(3), 2);
        assert_eq!(batch.run_peer(1), 1);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
