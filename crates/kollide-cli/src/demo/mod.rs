//! `kollide demo`: scenes of collision tests on seeded random inputs, timed and counted.
//!
//! A scene is a function that generates its inputs and returns one [`Row`] per kind of test,
//! each made with [`time_tests`]. To add a scene, write it in its own module and append it to
//! [`SCENES`].

mod asteroids;
mod bullets;
mod convex;
mod crowd;
mod platformer;
mod primitives;
mod solids;
mod world;

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Options of `kollide demo`.
#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Small inputs and a single timed pass per test (for smoke tests and debug builds).
    #[arg(long)]
    pub quick: bool,
    /// Seed of the random inputs (the same seed gives the same inputs and hit counts).
    // `allow_hyphen_values`: `--seed -1` is refused as a bad seed, not as an unknown option.
    #[arg(long, default_value_t = DEFAULT_SEED, allow_hyphen_values = true)]
    pub seed: u64,
    /// Run only the scenes whose names contain this text.
    #[arg(long)]
    pub scene: Option<String>,
}

/// The seed used when none is given.
const DEFAULT_SEED: u64 = 1;

impl Default for DemoArgs {
    /// The options of a bare `kollide demo` (what plain `kollide` runs).
    fn default() -> Self {
        Self { quick: false, seed: DEFAULT_SEED, scene: None }
    }
}

/// What every scene is told: how big to make its inputs, how long to time, which seed.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Inputs (tests) per row.
    pub items: usize,
    /// Keep repeating a row's batch until this much time has been spent timing it.
    pub min_time: Duration,
    pub seed: u64,
}

/// One scene: a named group of rows.
pub struct Scene {
    pub name: &'static str,
    pub about: &'static str,
    /// Runs the scene: its rows, and lines of notes about the scene (sizes, averages) to print
    /// below them.
    pub run: fn(&Settings, &mut Vec<String>) -> Vec<Row>,
}

/// Every scene, in the order `kollide demo` runs them.
pub const SCENES: &[Scene] = &[
    primitives::SCENE,
    asteroids::SCENE,
    solids::SCENE,
    convex::SCENE,
    crowd::SCENE,
    world::SCENE,
    bullets::SCENE,
    platformer::SCENE,
];

/// The outcome of timing one kind of test over a batch of inputs.
#[derive(Clone, Debug)]
pub struct Row {
    /// What was tested, in words (e.g. "ray vs box").
    pub what: &'static str,
    /// The kollide function that answered.
    pub api: &'static str,
    /// Tests in one pass over the batch.
    pub tests: usize,
    /// Tests that answered "hit" in one pass.
    pub hits: usize,
    /// Mean nanoseconds per test over all timed passes.
    pub ns_per_test: f64,
}

/// Runs `test` on every input (one untimed pass to count hits and warm up, then timed passes
/// until `settings.min_time` has elapsed, at least one) and returns the row.
pub fn time_tests<I>(
    what: &'static str,
    api: &'static str,
    inputs: &[I],
    settings: &Settings,
    test: impl Fn(&I) -> bool,
) -> Row {
    let pass = || {
        let mut hits = 0usize;
        for input in inputs {
            hits += usize::from(test(black_box(input)));
        }
        black_box(hits)
    };
    let hits = pass();
    let start = Instant::now();
    let mut passes = 0usize;
    loop {
        black_box(pass());
        passes += 1;
        if start.elapsed() >= settings.min_time {
            break;
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    Row {
        what,
        api,
        tests: inputs.len(),
        hits,
        ns_per_test: elapsed * 1e9 / (passes * inputs.len().max(1)) as f64,
    }
}

/// Formats rows as an aligned table (text left, numbers right).
pub fn format_rows(rows: &[Row]) -> String {
    let header = ["test", "kollide function", "tests", "hits", "time/test", "tests/s"];
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            let rate = 100.0 * r.hits as f64 / r.tests.max(1) as f64;
            [
                r.what.to_string(),
                r.api.to_string(),
                r.tests.to_string(),
                format!("{} ({rate:.0}%)", r.hits),
                format_duration(r.ns_per_test),
                format_rate(1e9 / r.ns_per_test),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        out.push(' ');
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            if i < 2 {
                out.push_str(&format!(" {c:<w$}"));
            } else {
                out.push_str(&format!(" {c:>w$}"));
            }
        }
        out.push('\n');
    };
    line(&header.map(String::from));
    for row in &cells {
        line(row);
    }
    out
}

/// A duration in nanoseconds with a unit that keeps 3–4 significant digits.
fn format_duration(ns: f64) -> String {
    match ns {
        ns if ns < 1e3 => format!("{ns:.1} ns"),
        ns if ns < 1e6 => format!("{:.1} µs", ns / 1e3),
        ns => format!("{:.2} ms", ns / 1e6),
    }
}

/// A rate per second, with a k/M suffix.
fn format_rate(per_second: f64) -> String {
    match per_second {
        r if r < 1e4 => format!("{r:.0}"),
        r if r < 1e7 => format!("{:.0}k", r / 1e3),
        r => format!("{:.1}M", r / 1e6),
    }
}

/// `kollide demo`.
pub fn run(args: &DemoArgs) {
    let settings = if args.quick {
        Settings { items: 512, min_time: Duration::ZERO, seed: args.seed }
    } else {
        Settings { items: 16_384, min_time: Duration::from_millis(40), seed: args.seed }
    };
    println!(
        "kollide demo: {} tests of each kind on random inputs (seed {}){}",
        settings.items,
        settings.seed,
        if args.quick { ", quick" } else { "" }
    );
    if cfg!(debug_assertions) {
        println!("(debug build: timings are not representative; build with --release)");
    }
    for scene in
        SCENES.iter().filter(|s| args.scene.as_ref().is_none_or(|name| s.name.contains(name.as_str())))
    {
        println!();
        println!("scene {}: {}", scene.name, scene.about);
        println!();
        let start = Instant::now();
        let mut notes = Vec::new();
        let rows = (scene.run)(&settings, &mut notes);
        print!("{}", format_rows(&rows));
        println!();
        for note in notes {
            println!("  {note}");
        }
        println!(
            "  {} kinds of test, {} tests, {:.2} s",
            rows.len(),
            rows.iter().map(|r| r.tests).sum::<usize>(),
            start.elapsed().as_secs_f64()
        );
    }
}
