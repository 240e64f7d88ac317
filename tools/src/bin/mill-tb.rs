//! `mill-tb`: generate, plan, verify, describe and probe the moving-phase endgame tables, and
//! solve placing-phase positions down to them.

use clap::{Parser, Subcommand};
use millstone::{Rules, Variant};
use millstone_tools::puzzles;
use millstone_tools::tb::plan::PlanFormat;
use millstone_tools::tb::solve::SolveOptions;
use millstone_tools::tb::{
    self, audit, book, generate, keeprate, latency, plan, probe, sample, solve, tables, verify,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "mill-tb",
    version,
    about = "Perfect endgame tables for the moving phase of the mill game"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve every sub-space up to a number of pieces, smallest first, or one job (`--only`);
    /// existing valid files are kept (the run resumes where it stopped).
    Generate {
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// Solve the rule set without flying.
        #[arg(long)]
        no_flying: bool,
        /// Largest number of pieces on the board, both sides together (at least 6).
        #[arg(long, required_unless_present = "only")]
        max_pieces: Option<u8>,
        /// Largest number of pieces of one side (default: the variant's).
        #[arg(long)]
        max_side: Option<u8>,
        /// Solve one job only: sub-space WvB and its partner BvW, such as `3v4`, or one
        /// placing sector, such as `p17-8v9`. The files of its inputs (see `mill-tb plan`)
        /// must be in `--dir`.
        #[arg(long)]
        only: Option<String>,
        /// Then the placing phase's sectors up to as many pieces (board and hands together),
        /// every position of a game with that much material exact; with the variant's whole
        /// material (18 for nine), every position of the game.
        #[arg(long)]
        placing: bool,
        /// Where the files go (default: the data directory's `tables`, see `mill-tb setup`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Memory budget, such as 6G (default: the machine's memory less a tenth): refused at
        /// once, with the figures, when the estimated peak exceeds it.
        #[arg(long)]
        memory: Option<String>,
    },
    /// Everything perfect play needs for one rule set, into the data directory: the moving
    /// phase's tables, then the placing phase's (with them no book is needed). States the disk,
    /// memory and time it needs first, and refuses at once when the disk or the memory budget
    /// is too small. Resumable: finished files are kept, a damaged or missing one is made again.
    Setup {
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// The rule set without flying.
        #[arg(long)]
        no_flying: bool,
        /// Memory budget, such as 6G (default: the machine's memory less a tenth).
        #[arg(long)]
        memory: Option<String>,
        /// Where the tables go (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Stop at a partial set: at most this many pieces (default: the whole game, 18 for
        /// nine, 24 for twelve).
        #[arg(long)]
        max_pieces: Option<u8>,
        /// Disk budget, such as 10G (default: the free space where the tables go).
        #[arg(long)]
        disk: Option<String>,
        /// Only state what it would do and need, step by step.
        #[arg(long)]
        dry_run: bool,
    },
    /// Print the jobs of a generation run and their dependencies, as a Makefile or as JSON.
    Plan {
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// The rule set without flying.
        #[arg(long)]
        no_flying: bool,
        /// Largest number of pieces on the board.
        #[arg(long)]
        max_pieces: u8,
        /// Largest number of pieces of one side (default: the variant's).
        #[arg(long)]
        max_side: Option<u8>,
        /// Output format.
        #[arg(long, value_enum, default_value = "make")]
        format: PlanFormat,
        /// The table directory the Makefile uses by default (`make DIR=...` overrides it).
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// The mill-tb the Makefile runs by default (`make MILL_TB=...` overrides it).
        #[arg(long, default_value = "mill-tb")]
        mill_tb: String,
        /// Also the placing phase's sectors up to as many pieces (board and hands).
        #[arg(long)]
        placing: bool,
    },
    /// Check the tables of a directory against their children, one ply deep: every slot, or
    /// `--sample N` random slots per sub-space through the mapped files.
    Verify {
        /// The directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Check this many random slots per sub-space instead of all.
        #[arg(long)]
        sample: Option<u64>,
        /// Seed of the sample.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Compare random positions of every ply of the placing tables with the alpha-beta solver
    /// (which reads only the moving phase's tables): an independent check.
    Crosscheck {
        /// The directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// The rule set without flying.
        #[arg(long)]
        no_flying: bool,
        /// Positions per ply.
        #[arg(long, default_value_t = 100)]
        per_ply: u64,
        /// Seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Solver table size in MiB.
        #[arg(long, default_value_t = 1024)]
        hash_mb: usize,
        /// Stop each ply after this many seconds (the positions done are reported).
        #[arg(long)]
        seconds: Option<u64>,
        /// Compare with this opening book instead (`mill-tb book`'s file): every position of
        /// its first `--book-plies` plies, its value and the moves that keep it.
        #[arg(long)]
        book: Option<PathBuf>,
        /// Plies of the book to compare.
        #[arg(long, default_value_t = 5)]
        book_plies: u32,
        /// The book's first position, as given to `mill-tb book --fen` (default: the start).
        #[arg(long)]
        fen: Option<String>,
        /// The book is one side's proof (`mill-tb book --for SIDE`): where that side is to
        /// move, the tables must give the book's value and keep it by the book's move, which
        /// alone is followed; every position of the other side is compared in full.
        #[arg(long = "for", value_name = "SIDE", requires = "book")]
        for_side: Option<String>,
    },
    /// Print each table's positions, wins, draws and losses (per position), longest distances,
    /// results spoilt by the 100-ply rule and file size (from the headers: instant).
    Info {
        /// The directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Write positions labelled with their exact result (win, draw or loss for the side to
    /// move): as games reach them (mixed-strength play from random openings), uniformly
    /// over each sector and sub-space, or as the search evaluates them (from roots as games
    /// reach them); the same seed gives the same file.
    Sample {
        /// The table directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The output file.
        #[arg(long, short)]
        out: PathBuf,
        /// How many positions.
        #[arg(long, short = 'n', default_value_t = 1_000_000)]
        count: usize,
        /// games, uniform or search.
        #[arg(long, default_value = "games")]
        distribution: millstone::tablebase::sample::Distribution,
        /// The seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also read the plies to the next mill of decided moving-phase positions (slower).
        #[arg(long)]
        distances: bool,
        /// Keep only one phase's positions: any, placing or moving (games stop where the
        /// moving phase begins with placing). With `search`, the phase of the roots searched
        /// from: a placing root's search evaluates moving positions too, and they are kept.
        #[arg(long, default_value = "any")]
        phase: millstone::tablebase::sample::Phase,
        /// With `--distribution search` (refused with the others): the network the searches
        /// use (default: the built-in one of the variant).
        #[arg(long)]
        eval_file: Option<PathBuf>,
        /// bin (16-byte records, for mill-train and numpy) or text.
        #[arg(long, value_enum, default_value = "bin")]
        format: sample::Format,
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// The rule set without flying.
        #[arg(long)]
        no_flying: bool,
    },
    /// Measure how often an engine (by default the millstone beside mill-tb, without tables)
    /// keeps the exact value in game-like positions where some move gives it away, half of
    /// them placing, half moving, at a fixed time a move.
    Keeprate {
        /// The table directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The engine to measure.
        #[arg(long)]
        engine: Option<PathBuf>,
        /// `NAME=VALUE`: an option for the engine (after Threads 1, TablePath <empty> and
        /// BookPath <empty>); repeat for several.
        #[arg(long = "option")]
        options: Vec<String>,
        /// Positions of each phase.
        #[arg(long, default_value_t = 2000)]
        per_phase: usize,
        /// Milliseconds a move.
        #[arg(long, default_value_t = 100)]
        movetime: u64,
        /// Nodes a move (`go nodes N`) instead of a time: the same answers however busy the
        /// machine is, for comparing builds (the figure is the time's).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        nodes: Option<u64>,
        /// Engines side by side (each one thread).
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// The seed of the positions (the training data used seeds below 1000).
        #[arg(long, default_value_t = 1000)]
        seed: u64,
        /// Write each position that lost the value, with the move played, to this file.
        #[arg(long)]
        failures: Option<PathBuf>,
        /// Play only one phase's positions, the same ones as with both: any, placing or
        /// moving.
        #[arg(long, default_value = "any")]
        phase: millstone::tablebase::sample::Phase,
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// The rule set without flying.
        #[arg(long)]
        no_flying: bool,
    },
    /// Print the verdict of the tables on a position and the value of each move.
    Probe {
        /// The directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The position string (not with --bench).
        #[arg(long, required_unless_present = "bench", conflicts_with = "bench")]
        fen: Option<String>,
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// The rule set without flying.
        #[arg(long)]
        no_flying: bool,
        /// Instead of one position, time the probes of N game-like positions of each phase
        /// (p50, p99, max), warm, and cold first with --cold.
        #[arg(long, value_name = "N")]
        bench: Option<usize>,
        /// With --bench: drop the page cache first (root only), so that the first pass reads
        /// the disk as a machine whose tables do not fit in memory does.
        #[arg(long, requires = "bench")]
        cold: bool,
        /// With --bench: uniform positions instead of game-like ones.
        #[arg(long, requires = "bench")]
        uniform: bool,
        /// With --bench: the seed of the positions.
        #[arg(long, default_value_t = 1, requires = "bench")]
        seed: u64,
    },
    /// Replay the games of a `mill-match` or `mill-selfplay` JSONL file and compare each result
    /// with the tables' verdict where the moving phase began: a side that stood at least level
    /// there and lost the game is reported (and makes the exit code 1).
    Audit {
        /// The table directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The games (`--jsonl` of mill-match).
        #[arg(long)]
        jsonl: PathBuf,
        /// Audit this player only (its name in the records); default: both sides of every game.
        #[arg(long)]
        player: Option<String>,
        /// Print a line for every game, not only the summary and the games lost from level.
        #[arg(long)]
        verbose: bool,
        /// Also value every placing-phase move of the audited side, before and after it (from
        /// the placing tables where they exist, else by a solve), and report each move that
        /// gave away the position's proven value (exit code 1 then).
        #[arg(long)]
        placing: bool,
        /// With --placing: the solver's table size in MiB.
        #[arg(long, default_value_t = 4096)]
        hash_mb: usize,
        /// With --placing: a book (or solve checkpoint) to start the solver from.
        #[arg(long)]
        book: Option<PathBuf>,
    },
    /// Build an opening book: solve every position of the first PLIES plies of the placing
    /// phase (every reply of either side included, one of each class of symmetric positions)
    /// with the value of each move, and save the proven values for the engine's `BookPath`
    /// (the bounds of every big subtree, and those of the book's positions and their children).
    /// Resumable: an existing OUT is read first and saved again as the work goes on.
    Book {
        /// The table directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The book file to write (default: the data directory's `books/<variant>-<fly|nofly>.book`).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Memory budget, such as 6G (default: the machine's memory less a tenth): the solver's
        /// table (`--hash-mb`) and 1 GiB for the mapped tables must fit in it.
        #[arg(long)]
        memory: Option<String>,
        /// Plies from the start: positions at ply 0..PLIES-1 are solved with all their moves.
        #[arg(long, default_value_t = 2)]
        plies: u32,
        /// Start from this position instead of the start of the game.
        #[arg(long)]
        fen: Option<String>,
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// The rule set without flying.
        #[arg(long)]
        no_flying: bool,
        /// Solver table size in MiB.
        #[arg(long, default_value_t = 4096)]
        hash_mb: usize,
        /// Seconds between saves of OUT.
        #[arg(long, default_value_t = 300)]
        checkpoint_secs: u64,
        /// A book for one side (white or black) only: where that side is to move and wins, the
        /// book proves one winning move and follows it alone; every reply of the other side,
        /// and every move where the side does not win, is followed as in the full book. The
        /// proof of a win, far smaller than the full book of as many plies.
        #[arg(long = "for", value_name = "SIDE")]
        for_side: Option<String>,
    },
    /// Solve a placing-phase position exactly: a full-width search of the placing tree with
    /// the tables' values where the moving phase begins (see `millstone::solve`).
    Solve {
        /// The table directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The position string.
        #[arg(long)]
        fen: String,
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// The rule set without flying.
        #[arg(long)]
        no_flying: bool,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 256)]
        hash_mb: usize,
        /// Also print every legal move's exact value.
        #[arg(long)]
        moves: bool,
        /// Resume from this checkpoint if it exists, and save the proven bounds of big
        /// subtrees to it while solving (written to FILE.tmp, then renamed).
        #[arg(long)]
        checkpoint: Option<PathBuf>,
        /// Seconds between checkpoints.
        #[arg(long, default_value_t = 300)]
        checkpoint_secs: u64,
        /// Key the transposition table by the exact position, not by its class under the
        /// board's 16 symmetries (slower; an independent second run).
        #[arg(long)]
        no_symmetry: bool,
    },
    /// Make puzzles from real games: positions where the side to move has a win or a draw and
    /// exactly one legal move keeps it, graded, deduplicated under the board's symmetries, and
    /// written one JSON object a line (docs/gui.md; `mill-gui --puzzles FILE` serves them).
    Puzzles {
        /// The table directory (default: the data directory's `tables`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The file to write (default: `puzzles-<variant>-<fly|nofly>.jsonl` in the table directory).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Self-play games of the built-in engine to walk.
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// The engine's time per move in self-play, in milliseconds.
        #[arg(long, default_value_t = 20)]
        movetime: u64,
        /// Seed of the self-play games' random openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Uniformly random plies at the start of each self-play game.
        #[arg(long, default_value_t = 4)]
        random_plies: usize,
        /// Start every self-play game from this position (then the random plies).
        #[arg(long)]
        fen: Option<String>,
        /// The longest self-play game in plies.
        #[arg(long, default_value_t = 300)]
        max_plies: usize,
        /// Also walk these games: `mill-match --jsonl` records or `mill-selfplay` lines.
        #[arg(long, value_name = "FILE")]
        games_file: Option<PathBuf>,
        /// Keep a position only when at least this many legal moves fail.
        #[arg(long, default_value_t = 1)]
        min_fail: usize,
        /// Self-play workers (default: the cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Each engine's hash table in MiB.
        #[arg(long, default_value_t = 16)]
        hash_mb: usize,
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// The rule set without flying.
        #[arg(long)]
        no_flying: bool,
    },
}

fn main() -> ExitCode {
    env_logger::init();
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mill-tb: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Generate {
            variant,
            no_flying,
            max_pieces,
            max_side,
            only,
            placing,
            dir,
            memory,
        } => generate::generate(
            Rules::new(variant, !no_flying),
            &tables(dir)?,
            memory.as_deref(),
            only.as_deref(),
            max_pieces,
            max_side,
            placing,
        ),
        Command::Setup {
            variant,
            no_flying,
            memory,
            dir,
            max_pieces,
            disk,
            dry_run,
        } => generate::setup(
            Rules::new(variant, !no_flying),
            memory.as_deref(),
            disk.as_deref(),
            tables(dir)?,
            max_pieces.unwrap_or(2 * variant.pieces()),
            dry_run,
        ),
        Command::Plan {
            variant,
            no_flying,
            max_pieces,
            max_side,
            format,
            dir,
            mill_tb,
            placing,
        } => plan::print_plan(
            Rules::new(variant, !no_flying),
            max_pieces,
            max_side.unwrap_or(variant.pieces()),
            format,
            &dir,
            &mill_tb,
            placing,
        ),
        Command::Verify { dir, sample, seed } => verify::verify(&tables(dir)?, sample, seed),
        Command::Info { dir } => verify::info(&tables(dir)?),
        Command::Crosscheck {
            dir,
            hash_mb,
            book: Some(book),
            book_plies,
            fen,
            for_side,
            ..
        } => verify::crosscheck_book(
            &tables(dir)?,
            &book,
            fen.as_deref(),
            book_plies,
            hash_mb,
            for_side.as_deref(),
        ),
        Command::Crosscheck {
            dir,
            variant,
            no_flying,
            per_ply,
            seed,
            hash_mb,
            seconds,
            book: None,
            ..
        } => verify::crosscheck(
            &tables(dir)?,
            Rules::new(variant, !no_flying),
            per_ply,
            seed,
            hash_mb,
            seconds.map(Duration::from_secs),
        ),
        Command::Sample {
            dir,
            out,
            count,
            distribution,
            seed,
            distances,
            phase,
            eval_file,
            format,
            variant,
            no_flying,
        } => sample::sample(
            &tables(dir)?,
            &out,
            count,
            &millstone::tablebase::sample::SampleOptions {
                rules: Rules::new(variant, !no_flying),
                distribution,
                seed,
                distances,
                phase,
            },
            eval_file.as_deref(),
            format,
        ),
        Command::Keeprate {
            dir,
            engine,
            options,
            per_phase,
            movetime,
            nodes,
            jobs,
            seed,
            failures,
            phase,
            variant,
            no_flying,
        } => {
            let options = options
                .iter()
                .map(|o| {
                    o.split_once('=')
                        .map(|(n, v)| (n.to_string(), v.to_string()))
                        .ok_or_else(|| format!("--option {o}: expected NAME=VALUE"))
                })
                .collect::<Result<Vec<_>, String>>()?;
            let engine = engine.unwrap_or_else(keeprate::engine_beside_me);
            keeprate::keeprate(
                &tables(dir)?,
                &engine,
                &keeprate::Options {
                    rules: Rules::new(variant, !no_flying),
                    per_phase,
                    movetime,
                    nodes,
                    jobs,
                    seed,
                    options,
                    failures,
                    phase,
                },
            )
        }
        Command::Probe {
            dir,
            fen,
            variant,
            no_flying,
            bench,
            cold,
            uniform,
            seed,
        } => {
            let rules = Rules::new(variant, !no_flying);
            match (fen, bench) {
                (_, Some(per_phase)) => latency::bench(
                    &tables(dir)?,
                    &latency::Options {
                        rules,
                        per_phase,
                        seed,
                        uniform,
                        cold,
                    },
                ),
                (Some(fen), None) => probe::probe(&tables(dir)?, &fen, rules),
                (None, None) => Err("--fen or --bench".into()),
            }
        }
        Command::Audit {
            dir,
            jsonl,
            player,
            verbose,
            placing,
            hash_mb,
            book,
        } => audit::audit(
            &tables(dir)?,
            &jsonl,
            player.as_deref(),
            verbose,
            placing,
            hash_mb,
            book.as_deref(),
        ),
        Command::Book {
            dir,
            out,
            plies,
            fen,
            variant,
            no_flying,
            hash_mb,
            checkpoint_secs,
            memory,
            for_side,
        } => book::book(
            dir,
            out,
            memory.as_deref(),
            plies,
            fen.as_deref(),
            Rules::new(variant, !no_flying),
            hash_mb,
            Duration::from_secs(checkpoint_secs.max(1)),
            for_side.as_deref(),
        ),
        Command::Solve {
            dir,
            fen,
            variant,
            no_flying,
            hash_mb,
            moves,
            checkpoint,
            checkpoint_secs,
            no_symmetry,
        } => solve::solve(
            &tables(dir)?,
            &fen,
            Rules::new(variant, !no_flying),
            &SolveOptions {
                hash_mb,
                moves,
                checkpoint,
                checkpoint_every: Duration::from_secs(checkpoint_secs.max(1)),
                symmetry: !no_symmetry,
            },
        ),
        Command::Puzzles {
            dir,
            out,
            games,
            movetime,
            seed,
            random_plies,
            fen,
            max_plies,
            games_file,
            min_fail,
            threads,
            hash_mb,
            variant,
            no_flying,
        } => tb::puzzles(
            &tables(dir)?,
            out,
            &puzzles::Options {
                rules: Rules::new(variant, !no_flying),
                games,
                movetime_ms: movetime,
                seed,
                random_plies,
                fen,
                max_plies,
                games_file,
                min_fail,
                threads: threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                hash_mb,
            },
        ),
    }
}
