//! `kollide-bench`: kollide against its peers, side by side, in one process.
//!
//! Each workload prepares identical inputs for both libraries, then times them alternately over
//! the whole batch and reports the median per-item time of each and the speedup
//! (`peer / kollide`). Run it in release: `cargo run --release -p kollide-bench -- --quick`.

mod harness;
mod report;
mod workloads;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Side-by-side benchmarks of kollide against parry, printed as a markdown table.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Fewer, shorter repeats on smaller batches, and without the variant rows (`name@variant`:
    /// kollide's other implementations and settings) unless `--filter` names them: the suite
    /// finishes in under a minute.
    #[arg(long)]
    quick: bool,
    /// Run only the workloads whose name contains this string (e.g. `prim/` or `ray`).
    #[arg(long, value_name = "S")]
    filter: Option<String>,
    /// Also write the results as a JSON array to this file.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let malloc = pin_malloc_thresholds();
    let settings = harness::Settings::new(args.quick);
    let selected: Vec<_> = workloads::all()
        .into_iter()
        .filter(|w| match args.filter.as_deref() {
            Some(f) => w.name.contains(f),
            None => !(args.quick && w.name.contains('@')),
        })
        .collect();

    println!("# kollide-bench");
    println!();
    println!("- machine: {}", report::machine());
    println!("- date: {} (UTC)", report::today());
    println!(
        "- mode: {}, {} repeats, batches of at least {} ms, median per item",
        if args.quick { "quick" } else { "full" },
        settings.repeats,
        settings.min_batch.as_millis()
    );
    println!("- malloc: {malloc}");
    if cfg!(debug_assertions) {
        println!("- WARNING: debug build; the numbers mean nothing. Use `--release`.");
    }
    println!();

    let mut rows = Vec::with_capacity(selected.len());
    for workload in &selected {
        eprint!("running {} ... ", workload.name);
        let start = std::time::Instant::now();
        let Some(prepared) = (workload.prepare)(settings.items(workload), workloads::SEED) else {
            eprintln!("skipped (data not present; see scripts/fetch-meshes.sh)");
            continue;
        };
        let prepared_in = start.elapsed();
        let measurement = harness::measure(prepared.as_ref(), &settings);
        eprintln!(
            "done in {:.1} s (inputs {:.1} s)",
            start.elapsed().as_secs_f64(),
            prepared_in.as_secs_f64()
        );
        let mut row = report::Row::new(workload, &measurement);
        if let Some(note) = prepared.note() {
            row.note.push_str("; ");
            row.note.push_str(&note);
        }
        rows.push(row);
    }
    for figure in workloads::figures() {
        if args.filter.as_deref().is_none_or(|f| figure.name.contains(f))
            && let Some((kollide, peer)) = (figure.compute)()
        {
            rows.push(report::Row::figure(figure.name, figure.metric, workloads::PARRY3D, kollide, peer));
        }
    }
    if rows.is_empty() {
        eprintln!("no workload or figure name contains {:?}", args.filter.unwrap_or_default());
        return ExitCode::FAILURE;
    }
    print!("{}", report::table(&rows));

    if let Some(path) = &args.json {
        if let Err(e) = std::fs::write(path, report::json(&rows)) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!();
        println!("JSON written to {}", path.display());
    }
    ExitCode::SUCCESS
}

/// Fixes glibc malloc's mmap and trim thresholds (256 MiB each), so that large blocks freed by one
/// timed run stay in the heap for the next one.
///
/// By default glibc adapts both thresholds to the blocks freed so far, and whether a run's large
/// buffers come from fresh, page-faulting memory then depends on which block happens to lie at the
/// top of the heap: an unrelated change to allocation order once added 15 ms to both libraries'
/// `broad/terdiman100k/full` runs (300,000 more page faults). Pinned, the same work costs the same
/// in every build. Both libraries run under the same setting.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn pin_malloc_thresholds() -> &'static str {
    // glibc's `<malloc.h>`: `int mallopt(int param, int value)`.
    const M_TRIM_THRESHOLD: i32 = -1;
    const M_MMAP_THRESHOLD: i32 = -3;
    unsafe extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const LIMIT: i32 = 256 << 20;
    // SAFETY: `mallopt` only changes allocator settings; it is called before any other thread
    // exists, and both parameters take any positive value.
    let pinned = unsafe { mallopt(M_TRIM_THRESHOLD, LIMIT) == 1 && mallopt(M_MMAP_THRESHOLD, LIMIT) == 1 };
    if pinned {
        "glibc, trim and mmap thresholds pinned at 256 MiB"
    } else {
        "glibc defaults (pinning failed)"
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn pin_malloc_thresholds() -> &'static str {
    "system default"
}
