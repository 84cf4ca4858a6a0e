//! The list of workloads. To add one, write a `prepare` function that builds a [`Prepared`] batch
//! (usually a [`crate::harness::Batch`]) and append a [`Workload`] to [`all`].

mod prim;

use crate::harness::Prepared;

/// The peer every workload in this file is compared against.
pub const PARRY3D: &str = "parry3d 0.31";

/// One side-by-side benchmark.
pub struct Workload {
    /// Unique name, `family/what` (e.g. `prim/ray-aabb`); `--filter` matches substrings of it.
    pub name: &'static str,
    /// The unit of the reported values, e.g. `ns/test`.
    pub metric: &'static str,
    /// Nanoseconds in one unit of `metric` (1 for `ns/...`, 1e6 for `ms/...`).
    pub ns_per_unit: f64,
    /// The peer's name and version, as shown in the table and the JSON.
    pub peer: &'static str,
    /// Items (queries, builds, frames) per batch in a normal run.
    pub items: usize,
    /// Builds the inputs for both sides from a seed: `prepare(items, seed)`.
    pub prepare: fn(usize, u64) -> Box<dyn Prepared>,
}

/// The seed every workload's inputs are generated from.
pub const SEED: u64 = 0x6b6f_6c6c_6964_6542;

/// Every workload, in the order they are run and printed.
pub fn all() -> Vec<Workload> {
    prim::workloads()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every workload on a small batch, once, without timing: kollide and the peer must agree
    /// item by item (up to the harness's tolerance) and the hit rate must be neither 0 nor 1,
    /// otherwise the workload measures only one branch.
    #[test]
    fn every_workload_agrees_with_the_peer_on_a_small_batch() {
        let workloads = all();
        assert!(!workloads.is_empty());
        for workload in &workloads {
            let prepared = (workload.prepare)(1000, SEED);
            let agreement = prepared.check();
            assert_eq!(agreement.items, 1000, "{}", workload.name);
            assert!(
                agreement.ok(),
                "{}: kollide and {} disagree: {agreement:?}",
                workload.name,
                workload.peer
            );
            let rate = agreement.hit_rate();
            assert!((0.2..=0.8).contains(&rate), "{}: hit rate {rate} is far from 50%", workload.name);
            assert_eq!(prepared.run_kollide(1), agreement.kollide_hits);
            assert_eq!(prepared.run_peer(1), agreement.peer_hits);
        }
    }

    #[test]
    fn workload_names_are_unique() {
        let workloads = all();
        for (i, a) in workloads.iter().enumerate() {
            for b in &workloads[i + 1..] {
                assert_ne!(a.name, b.name);
            }
        }
    }
}
