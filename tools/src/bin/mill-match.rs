//! `mill-match`: engine-vs-engine matches and tournaments of protocol engines and built-in
//! players, refereed by the library.

use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, ValueEnum};
use millstone::tablebase::Tablebase;
use millstone::{Rules, Variant};
use millstone_tools::input::parse_openings;
use millstone_tools::referee::{Settings, TimeControl};
use millstone_tools::stats::Sprt;
use millstone_tools::tournament::{self, Config, EngineEntry, Openings};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Copy, Clone, Debug, ValueEnum)]
enum Order {
    Sequential,
    Random,
}

/// Plays matches between engines that speak the protocol (and built-in players), with the
/// library as referee; prints progress on stderr and the summary on stdout.
#[derive(Parser, Debug)]
#[command(
    name = "mill-match",
    version,
    after_help = "Examples:\n  mill-match --engine cmd=target/release/millstone name=new --engine builtin=greedy --tc 5+0.05 --games 20\n  mill-match --engine builtin=random --engine builtin=greedy --depth 1 --games 100 --random-opening 4 --seed 1 --jsonl games.jsonl\n  mill-match --engine cmd=./a --engine cmd=./b --movetime 100 --games 1000 --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 --concurrency 2\n\nA match in two runs, then its results (see mill-match merge --help):\n  mill-match --engine cmd=./a --engine cmd=./b --tc 10+0.1 --games 1000 --seed 1 --shard 1/2 --jsonl s1.jsonl\n  mill-match --engine cmd=./a --engine cmd=./b --tc 10+0.1 --games 1000 --seed 1 --shard 2/2 --jsonl s2.jsonl\n  mill-match merge s1.jsonl s2.jsonl"
)]
struct Cli {
    /// An engine: key=value settings: name=NAME, cmd=PATH, arg=ARG (repeatable), dir=DIR,
    /// option.NAME=VALUE (repeatable, sent with setoption), movetime=MS (its own time a move
    /// in place of --movetime: time odds), or builtin=random|greedy.
    /// Give two or more; more than two play a round robin (or a gauntlet).
    #[arg(long = "engine", value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append, required = true)]
    engine: Vec<String>,
    /// The first engine plays all others, instead of everyone playing everyone.
    #[arg(long)]
    gauntlet: bool,
    /// nine or twelve.
    #[arg(long, default_value = "nine")]
    variant: Variant,
    /// Turn flying off.
    #[arg(long)]
    no_flying: bool,
    /// Clock per game: seconds+increment, e.g. 10+0.1.
    #[arg(long, value_name = "SECS+INC")]
    tc: Option<TimeControl>,
    /// Fixed time per move in milliseconds.
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Fixed search depth.
    #[arg(long)]
    depth: Option<u32>,
    /// Fixed node count.
    #[arg(long)]
    nodes: Option<u64>,
    /// How far an engine may overrun its time before it loses, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 100)]
    timemargin: u64,
    /// How long to wait for a move in depth/nodes games (and for the handshake) before the
    /// engine counts as stalled, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    stall_timeout: u64,
    /// Games per pairing, played in colour-swapped pairs from the same opening.
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Games played at the same time (each worker thread runs its own engine processes).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Start fresh engine processes for every game (default: reuse them per worker).
    #[arg(long)]
    restart: bool,
    /// Opening book: one position a line (position string, `fen ... moves ...`, or
    /// `moves ...` from the start); `#` comments and blank lines are fine.
    #[arg(long, value_name = "FILE", conflicts_with = "random_opening")]
    openings: Option<PathBuf>,
    /// Order of the book's openings.
    #[arg(long, value_enum, default_value = "sequential")]
    order: Order,
    /// Openings of this many random plies from the start, seeded.
    #[arg(long, value_name = "K")]
    random_opening: Option<usize>,
    /// Seed for openings and built-in players (default: from the clock); written to every
    /// record.
    #[arg(long)]
    seed: Option<u64>,
    /// Draw after N plies in a row without a mill.
    #[arg(long, value_name = "N")]
    adjudicate_draw_plies: Option<usize>,
    /// Draw after N plies in all.
    #[arg(long, value_name = "N")]
    max_plies: Option<usize>,
    /// End a game as soon as its position is in the endgame tables of DIR (for nine with the
    /// complete set: at the first position of the moving phase), with the tables' result for
    /// the 100-ply counter as it stands. The tables do not see the game's repetition history.
    #[arg(long, value_name = "DIR")]
    tb_adjudicate: Option<PathBuf>,
    /// Sequential probability ratio test for two engines; stops the match when decided.
    /// E.g. --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..=4)]
    sprt: Vec<String>,
    /// Games played before an SPRT decision may stop the match.
    #[arg(long, value_name = "N", default_value_t = 20)]
    sprt_min_games: usize,
    /// Write the games as PGN-like text.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Write the games as JSON lines.
    #[arg(long, value_name = "FILE")]
    jsonl: Option<PathBuf>,
    /// Event name in the records.
    #[arg(long, default_value = "mill-match")]
    event: String,
    /// No progress lines.
    #[arg(long, short)]
    quiet: bool,
    /// Play only shard K of N (1-based), for splitting a match over N runs: each opening pair
    /// (one pairing's two colour-swapped games of an opening) is in exactly one shard, with
    /// the game numbers, openings and seeds of the whole match (give every shard the same
    /// --seed). Merge the shards' --jsonl files with `mill-match merge`. A shard does not stop
    /// on an SPRT decision.
    #[arg(long, value_name = "K/N", value_parser = tournament::parse_shard)]
    shard: Option<(usize, usize)>,
    /// Engines think on the opponent's time: `setoption name Ponder value true`, then
    /// `go ponder` on the move they predict after each of their moves, `ponderhit` when the
    /// opponent plays it (their clock runs from then), `stop` otherwise.
    #[arg(long)]
    ponder: bool,
}

/// `mill-match merge`: rebuilds a match's results from the JSONL records of its shards.
#[derive(Parser, Debug)]
#[command(
    name = "mill-match merge",
    bin_name = "mill-match merge",
    version,
    after_help = "Example:\n  mill-match --shard 1/2 ... --jsonl s1.jsonl; mill-match --shard 2/2 ... --jsonl s2.jsonl\n  mill-match merge s1.jsonl s2.jsonl --jsonl all.jsonl"
)]
struct MergeCli {
    /// The JSONL files written by the shards (`--jsonl`), in any order.
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
    /// Write all games, in schedule order, as JSON lines.
    #[arg(long, value_name = "FILE")]
    jsonl: Option<PathBuf>,
    /// Write all games, in schedule order, as PGN-like text.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// No line on stderr about what was merged.
    #[arg(long, short)]
    quiet: bool,
}

fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|a| a == "merge") {
        let cli = MergeCli::parse_from(std::env::args_os().skip(1));
        return match merge(cli) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("mill-match: error: {e}");
                ExitCode::from(2)
            }
        };
    }
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let groups: Vec<Vec<String>> = matches
        .get_occurrences::<String>("engine")
        .map(|o| o.map(|v| v.map(String::clone).collect()).collect())
        .unwrap_or_default();
    match run(cli, groups) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mill-match: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli, groups: Vec<Vec<String>>) -> Result<ExitCode, String> {
    let rules = Rules::new(cli.variant, !cli.no_flying);
    let engines = groups
        .iter()
        .enumerate()
        .map(|(i, g)| EngineEntry::parse(g).map_err(|e| format!("--engine #{}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    if cli.shard.is_some() && cli.seed.is_none() {
        return Err(
            "--shard needs --seed: every shard of a match must play its openings and seeds".into(),
        );
    }
    let seed = cli.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let openings = if let Some(path) = &cli.openings {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let fens = parse_openings(&text, &path.display().to_string(), rules).map_err(|errs| {
            format!(
                "bad opening book ({} bad lines):\n  {}",
                errs.len(),
                errs.join("\n  ")
            )
        })?;
        Openings::Book {
            fens,
            random_order: matches!(cli.order, Order::Random),
        }
    } else if let Some(k) = cli.random_opening {
        Openings::Random(k)
    } else {
        Openings::Start
    };
    let sprt = if cli.sprt.is_empty() {
        None
    } else {
        Some(Sprt::from_args(&cli.sprt).map_err(|e| format!("--sprt: {e}"))?)
    };
    let tablebase = match &cli.tb_adjudicate {
        Some(dir) => Some(Arc::new(
            Tablebase::open(dir).map_err(|e| format!("--tb-adjudicate: {e}"))?,
        )),
        None => None,
    };
    let config = Config {
        engines,
        gauntlet: cli.gauntlet,
        games: cli.games,
        concurrency: cli.concurrency.max(1),
        openings,
        seed,
        settings: Settings {
            rules,
            tc: cli.tc,
            movetime: cli.movetime.map(Duration::from_millis),
            depth: cli.depth,
            nodes: cli.nodes,
            timemargin: Duration::from_millis(cli.timemargin),
            stall_timeout: Duration::from_millis(cli.stall_timeout.max(1)),
            adjudicate_draw_plies: cli.adjudicate_draw_plies,
            max_plies: cli.max_plies,
            ponder: cli.ponder,
            tablebase,
        },
        sprt,
        sprt_min_games: cli.sprt_min_games,
        restart_each_game: cli.restart,
        pgn: cli.pgn,
        jsonl: cli.jsonl,
        event: cli.event,
        progress: !cli.quiet,
        shard: cli.shard,
    };
    tournament::validate(&config)?;
    if !cli.quiet {
        let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
        eprintln!(
            "mill-match: {} ({}), {} game(s) per pairing, seed {}",
            names.join(", "),
            rules,
            config.games,
            seed
        );
        if let Some((k, n)) = config.shard {
            eprintln!(
                "mill-match: shard {k}/{n}: {} of the match's {} games{}",
                tournament::games_to_play(&config).len(),
                tournament::schedule(&config).len(),
                if config.sprt.is_some() {
                    " (no SPRT stop in a shard: merge the shards for the verdict)"
                } else {
                    ""
                }
            );
        }
    }
    let result = tournament::run(&config)?;
    print!("{}", tournament::summary(&config, &result));
    Ok(ExitCode::SUCCESS)
}

fn merge(cli: MergeCli) -> Result<(), String> {
    let m = tournament::merge(&cli.files)?;
    if !cli.quiet {
        let missing: Vec<String> = {
            let have: std::collections::HashSet<usize> =
                m.result.records.iter().map(|r| r.game).collect();
            (1..=m.info.scheduled)
                .filter(|g| !have.contains(g))
                .map(|g| g.to_string())
                .collect()
        };
        let shards: Vec<String> = m.shards_seen.iter().map(|s| s.to_string()).collect();
        eprintln!(
            "mill-match: merged {} games from {} file(s): shard(s) {} of {}",
            m.result.records.len(),
            cli.files.len(),
            shards.join(", "),
            m.info.shards
        );
        if !missing.is_empty() {
            let shown: Vec<&str> = missing.iter().take(20).map(|s| s.as_str()).collect();
            eprintln!(
                "mill-match: warning: {} of {} games are missing: {}{}",
                missing.len(),
                m.info.scheduled,
                shown.join(", "),
                if missing.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            );
        }
    }
    tournament::write_records(&m.result.records, cli.pgn.as_ref(), cli.jsonl.as_ref())?;
    print!("{}", tournament::merged_summary(&m));
    Ok(())
}
