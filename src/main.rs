//! The `millstone` command line.

use clap::{Parser, Subcommand};
use millstone::{perft, Position, Rules, Variant};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "millstone",
    version,
    about = "A strong engine for the mill game"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count move paths to a depth, split by root move.
    Perft {
        /// Plies to count.
        depth: u32,
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// Turn flying off.
        #[arg(long)]
        no_flying: bool,
        /// Start from this position string instead of the start position.
        #[arg(long)]
        fen: Option<String>,
    },
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Perft {
            depth,
            variant,
            no_flying,
            fen,
        }) => {
            let rules = Rules::new(variant, !no_flying);
            let mut pos = match fen {
                Some(f) => match Position::from_fen(&f, rules) {
                    Ok(p) => p,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                },
                None => Position::new(rules),
            };
            let t = Instant::now();
            let mut total = 0;
            for (m, n) in perft::divide(&mut pos, depth) {
                println!("{m}: {n}");
                total += n;
            }
            if depth == 0 {
                total = 1;
            }
            println!("nodes {total}");
            log::info!("perft {depth}: {:.3}s", t.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("the protocol loop is not built yet");
            ExitCode::FAILURE
        }
    }
}
