//! The `millstone` command line: the protocol loop by default, or perft and bench.

use clap::{Parser, Subcommand};
use millstone::protocol::{self, format};
use millstone::{bench, perft, Position, Rules, Variant};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "millstone",
    version,
    about = "A strong engine for the mill game",
    long_about = "A strong engine for the mill game. Without a subcommand it speaks the text \
                  protocol (UCI grammar, see protocol.md) on stdin and stdout."
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
    /// Search the fixed bench positions; the last line is `<nodes> nodes <nps> nps`.
    Bench {
        /// Search depth.
        #[arg(default_value_t = bench::DEFAULT_DEPTH)]
        depth: i32,
        /// Table size in MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Use the endgame tables in this directory (the node count then differs).
        #[arg(long)]
        tables: Option<String>,
        /// Evaluate with the hand-tuned terms instead of the network (UseNNUE false).
        #[arg(long)]
        hand: bool,
    },
}

fn print(lines: &[String]) {
    for l in lines {
        println!("{l}");
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .format_timestamp_millis()
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
            print(&format::perft(&perft::divide(&mut pos, depth), depth));
            log::info!("perft {depth}: {:.3}s", t.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Some(Command::Bench {
            depth,
            hash,
            tables,
            hand,
        }) => {
            if let Err(e) = millstone::tt::check_size(hash) {
                eprintln!("error: --hash {hash}: {e}");
                return ExitCode::from(2);
            }
            match bench::run_with_tables(depth.clamp(1, 64), hash, tables.as_deref(), !hand) {
                Ok(r) => {
                    print(&format::bench(&r));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: --tables: {e}");
                    ExitCode::from(2)
                }
            }
        }
        None => {
            protocol::run_stdio();
            // A search may still be winding down; it has been told to stop and nothing it
            // could still say matters after `quit`.
            std::process::exit(0)
        }
    }
}
