//! `kollide`: the command-line face of the kollide collision library.

mod check;
mod demo;
mod info;

use clap::{Parser, Subcommand};

/// kollide: fast, exact collision detection in 2D and 3D.
///
/// Without a subcommand, runs `kollide demo`.
#[derive(Parser, Debug)]
#[command(name = "kollide", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run demo scenes of collision tests on random inputs (the default command).
    ///
    /// Every kind of test runs on a batch of seeded random inputs; the table shows how many tests
    /// were made, how many hit, and how fast (time per test, tests per second).
    Demo(demo::DemoArgs),
    /// Test two mesh files against each other, B placed in A's frame by an affine map.
    ///
    /// Prints whether they intersect (with solid semantics for closed meshes), the intersecting
    /// triangle pairs and the contacts (points, normals from A to B, depths), or the distance
    /// when apart, each with the time it took; `--sdf` adds the test of A's vertices
    /// against B's sampled signed-distance field.
    Check(check::CheckArgs),
    /// Print the version, build profile, enabled features and available query families.
    Info,
}

fn main() {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Demo(demo::DemoArgs::default())) {
        Command::Demo(args) => demo::run(&args),
        Command::Check(args) => {
            if let Err(message) = check::run(&args) {
                eprintln!("kollide check: {message}");
                std::process::exit(1);
            }
        }
        Command::Info => info::run(),
    }
}
