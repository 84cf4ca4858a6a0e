//! `kollide`: the command-line face of the kollide collision library.

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
    /// Print the version, build profile, enabled features and available query families.
    Info,
}

fn main() {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Demo(demo::DemoArgs::default())) {
        Command::Demo(args) => demo::run(&args),
        Command::Info => info::run(),
    }
}
