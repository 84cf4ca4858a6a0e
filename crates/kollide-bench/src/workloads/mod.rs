//! The list of workloads. To add one, write a `prepare` function that builds a [`Prepared`] batch
//! (usually a [`crate::harness::Batch`]) and append a [`Workload`] to [`all`].

mod broad;
mod convex;
mod convex2;
mod convex_mesh;
mod mesh;
mod meshmesh;
mod prim;
mod query;
mod sat2;
mod sdf;
mod skeleton;
mod world;
mod world2;

use glam::{Affine3A, Quat, Vec3};
use parry3d::math::Pose;

use crate::harness::Prepared;

/// A rigid pose: rotation, then translation (the part of a placement both libraries take).
#[derive(Clone, Copy, Debug)]
struct Rigid {
    rotation: Quat,
    translation: Vec3,
}

impl Rigid {
    fn affine(&self) -> Affine3A {
        Affine3A::from_rotation_translation(self.rotation, self.translation)
    }

    fn pose(&self) -> Pose {
        Pose::from_parts(self.translation, self.rotation)
    }
}

/// The peer every workload in this file is compared against.
pub const PARRY3D: &str = "parry3d 0.31";
/// The peer of the 2D workloads.
pub const PARRY2D: &str = "parry2d 0.31";

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
    /// Items used by the unit test that checks kollide and the peer agree (small for heavy
    /// items such as whole-mesh builds).
    #[cfg_attr(not(test), allow(dead_code))] // read by the agreement test only
    pub check_items: usize,
    /// Whether about half of the items should be hits (the unit test checks the rate); false for
    /// workloads without a hit/miss answer, such as builds.
    #[cfg_attr(not(test), allow(dead_code))] // read by the agreement test only
    pub balanced: bool,
    /// Builds the inputs for both sides from a seed: `prepare(items, seed)`. `None` when the
    /// workload's data is missing (e.g. a mesh fetched by `scripts/fetch-meshes.sh`).
    pub prepare: fn(usize, u64) -> Option<Box<dyn Prepared>>,
}

/// The seed every workload's inputs are generated from.
pub const SEED: u64 = 0x6b6f_6c6c_6964_6542;

/// Every workload, in the order they are run and printed.
pub fn all() -> Vec<Workload> {
    let mut all = prim::workloads();
    all.extend(mesh::workloads());
    all.extend(meshmesh::workloads());
    all.extend(broad::workloads());
    all.extend(convex::workloads());
    all.extend(convex2::workloads());
    all.extend(convex_mesh::workloads());
    all.extend(sdf::workloads());
    all.extend(query::workloads());
    all.extend(world::workloads());
    all.extend(world2::workloads());
    all.extend(skeleton::workloads());
    all.extend(sat2::workloads());
    all
}

/// A figure that is not a timing (memory per triangle), smaller being better on both sides.
pub struct Figure {
    /// Unique name, matched by `--filter` like a workload's.
    pub name: &'static str,
    /// The unit of the values, e.g. `bytes/tri`.
    pub metric: &'static str,
    /// `(kollide, peer)`, computed only when the figure is selected; `None` when its data is
    /// missing.
    pub compute: fn() -> Option<(f64, f64)>,
}

/// Every figure, in the order they are printed after the workloads.
pub fn figures() -> Vec<Figure> {
    mesh::figures()
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
            let Some(prepared) = (workload.prepare)(workload.check_items, SEED) else {
                eprintln!("{}: data not present, skipped", workload.name);
                continue;
            };
            let agreement = prepared.check();
            assert_eq!(agreement.items, workload.check_items, "{}", workload.name);
            assert!(
                agreement.ok(),
                "{}: kollide and {} disagree: {agreement:?}",
                workload.name,
                workload.peer
            );
            let rate = agreement.hit_rate();
            if workload.balanced {
                assert!((0.2..=0.8).contains(&rate), "{}: hit rate {rate} is far from 50%", workload.name);
            }
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
