//! Placeholder: filled in by the convex workloads.

use super::Workload;

pub fn workloads() -> Vec<Workload> {
    Vec::new()
}
