//! Placeholder: filled in by the meshmesh workloads.

use super::Workload;

pub fn workloads() -> Vec<Workload> {
    Vec::new()
}
