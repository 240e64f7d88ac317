//! `mill-tb`: generate, plan, verify, describe and probe the moving-phase endgame tables, and
//! solve placing-phase positions down to them.

use clap::{Parser, Subcommand, ValueEnum};
use millstone::solve::{SolveError, Solver};
use millstone::tablebase::{
    file_name, job_of, parse_file_name, plan, solve_pair_with, value_from_children_with,
    verify_table, Job, Table, TableFile, Tablebase, TbError, Value, Wdl,
};
use millstone::{Color, Game, Move, Position, Rules, Variant};
use millstone_tools::record::GameRecord;
use millstone_tools::{progress, resources, setup};
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

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

#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
enum PlanFormat {
    /// A Makefile: one target per job (`make -j N`).
    Make,
    /// The jobs and their inputs as JSON.
    Json,
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
    /// Print the verdict of the tables on a position and the value of each move.
    Probe {
        /// The directory (default: the data directory's `tables`).
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

/// `--dir`, or the data directory's tables.
fn tables(dir: Option<PathBuf>) -> Result<PathBuf, String> {
    millstone::datadir::tables_or_default(dir)
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
        } => {
            let rules = Rules::new(variant, !no_flying);
            let dir = tables(dir)?;
            let (budget, how) = resources::memory_budget(memory.as_deref())?;
            match only {
                Some(job) if job.starts_with('p') => {
                    millstone_tools::placing::generate_only(rules, &job, &dir)
                }
                Some(job) => generate_only(rules, &job, &dir),
                None => {
                    let max_pieces = max_pieces.expect("clap requires it");
                    let max_side = max_side.unwrap_or(variant.pieces());
                    if max_pieces < 6 {
                        return Err("--max-pieces must be at least 6 (3 v 3)".into());
                    }
                    // The same estimate as `setup`'s, for the steps this run makes.
                    let mut steps: Vec<setup::Step> = plan(rules, max_pieces, max_side)
                        .into_iter()
                        .map(setup::Step::Moving)
                        .collect();
                    let sectors = millstone::tablebase::placing::Sector::all(rules, max_pieces);
                    if placing && !sectors.is_empty() {
                        steps.push(setup::Step::Placing {
                            max_material: max_pieces,
                            sectors,
                        });
                    }
                    let s = setup::Setup {
                        rules,
                        max_pieces,
                        steps,
                    };
                    let needs = setup::needs(&s, &dir, rayon::current_num_threads());
                    setup::check(&needs, None, budget)
                        .map_err(|e| format!("{e} (memory budget: {how})"))?;
                    let keep = needs.keeps_tables(budget);
                    say_how_tables_are_held(&needs, keep, budget, &how);
                    generate(rules, max_pieces, max_side, &dir, keep).and_then(|()| {
                        if placing {
                            millstone_tools::placing::generate(rules, max_pieces, &dir)
                        } else {
                            Ok(())
                        }
                    })
                }
            }
        }
        Command::Setup {
            variant,
            no_flying,
            memory,
            dir,
            max_pieces,
            disk,
            dry_run,
        } => run_setup(
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
        } => print_plan(
            Rules::new(variant, !no_flying),
            max_pieces,
            max_side.unwrap_or(variant.pieces()),
            format,
            &dir,
            &mill_tb,
            placing,
        ),
        Command::Verify { dir, sample, seed } => verify(&tables(dir)?, sample, seed),
        Command::Info { dir } => info(&tables(dir)?),
        Command::Crosscheck {
            dir,
            hash_mb,
            book: Some(book),
            book_plies,
            fen,
            for_side,
            ..
        } => millstone_tools::placing::book_check(
            &tables(dir)?,
            &book,
            fen.as_deref(),
            book_plies,
            hash_mb,
            side(for_side.as_deref())?,
        )
        .and_then(|c| {
            let n: u64 = c.per_ply.iter().sum();
            for (ply, k) in c.per_ply.iter().enumerate() {
                eprintln!("book ply {ply}: {k} positions");
            }
            eprintln!(
                "{n} book positions over {} plies, {} solver nodes beyond the book, {} mismatches",
                c.per_ply.len(),
                c.nodes,
                c.mismatches.len()
            );
            none_or_listed(c.mismatches)
        }),
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
        } => millstone_tools::placing::crosscheck(
            &tables(dir)?,
            Rules::new(variant, !no_flying),
            per_ply,
            seed,
            hash_mb,
            seconds.map(std::time::Duration::from_secs),
        )
        .and_then(|c| {
            let n: u64 = c.per_ply.iter().map(|&(_, n)| n).sum();
            eprintln!(
                "{n} positions over {} plies, {} solver nodes, {} mismatches",
                c.per_ply.len(),
                c.nodes,
                c.mismatches.len()
            );
            none_or_listed(c.mismatches)
        }),
        Command::Probe {
            dir,
            fen,
            variant,
            no_flying,
        } => probe(&tables(dir)?, &fen, Rules::new(variant, !no_flying)),
        Command::Audit {
            dir,
            jsonl,
            player,
            verbose,
            placing,
            hash_mb,
            book,
        } => {
            let dir = tables(dir)?;
            let placing = if placing {
                audit_placing(
                    &dir,
                    &jsonl,
                    player.as_deref(),
                    hash_mb,
                    book.as_deref(),
                    verbose,
                )
            } else {
                Ok(())
            };
            let moving = audit(&dir, &jsonl, player.as_deref(), verbose);
            placing.and(moving)
        }
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
        } => {
            let rules = Rules::new(variant, !no_flying);
            let for_side = side(for_side.as_deref())?;
            let out = match out {
                Some(o) => o,
                None => millstone::datadir::default_book(rules).ok_or(
                    "no book file: give --out, or set MILLSTONE_DATA (no home directory is known)",
                )?,
            };
            let (budget, how) = resources::memory_budget(memory.as_deref())?;
            let need = ((hash_mb as u64) << 20) + (1 << 30);
            if let Some(b) = budget.filter(|&b| need > b) {
                return Err(format!(
                    "not enough memory, nothing done: the solver's table of {hash_mb} MiB and 1 GiB for the tables need {}, the budget is {} ({how}); give a smaller --hash-mb",
                    resources::human(need),
                    resources::human(b)
                ));
            }
            if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            book(
                &tables(dir)?,
                &out,
                plies,
                fen.as_deref(),
                rules,
                hash_mb,
                std::time::Duration::from_secs(checkpoint_secs.max(1)),
                for_side,
            )
        }
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
        } => solve(
            &tables(dir)?,
            &fen,
            Rules::new(variant, !no_flying),
            &SolveOptions {
                hash_mb,
                moves,
                checkpoint,
                checkpoint_every: std::time::Duration::from_secs(checkpoint_secs.max(1)),
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
        } => {
            let rules = Rules::new(variant, !no_flying);
            let dir = tables(dir)?;
            let out = out.unwrap_or_else(|| dir.join(millstone_tools::puzzles::file_name(rules)));
            let opts = millstone_tools::puzzles::Options {
                rules,
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
            };
            millstone_tools::puzzles::run(&dir, &out, &opts)
        }
    }
}

fn is_not_found(e: &TbError) -> bool {
    matches!(e, TbError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
}

/// Whether a job's files are all present and sound: header, W/D/L part, index and every
/// block's checksum (without decoding the blocks).
fn job_done(job: &Job, dir: &Path) -> Result<(), TbError> {
    for &(x, y) in &job.tables {
        let f = TableFile::open(&dir.join(file_name(job.rules, x, y)), job.rules, x, y)?;
        f.check_blocks()?;
    }
    Ok(())
}

/// Runs one job unless its files are done; `cache` holds decoded tables and receives the job's
/// own tables when `keep` is set. With `hold_inputs` the job's inputs missing from `cache` are
/// read into it first; without, each is read from its file just for the setup that needs it.
fn run_job(
    job: &Job,
    dir: &Path,
    cache: &mut HashMap<(u8, u8), Table>,
    keep: bool,
    hold_inputs: bool,
    totals: &mut (u64, f64),
) -> Result<bool, String> {
    let rules = job.rules;
    let name = job.name();
    match job_done(job, dir) {
        Ok(()) => {
            progress::line(&format!("{rules} {name}: valid files exist, skipped"));
            return Ok(false);
        }
        Err(e) if !is_not_found(&e) => progress::line(&format!("{e}; solving again")),
        Err(_) => {}
    }
    let read = |x: u8, y: u8| {
        Table::read(&dir.join(file_name(rules, x, y)), rules, x, y).map_err(|e| {
            let (a, b) = job_of(x, y);
            format!("{name} needs {x}v{y} (job {a}v{b}): {e}")
        })
    };
    if hold_inputs {
        for &(x, y) in &job.reads {
            if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry((x, y)) {
                slot.insert(read(x, y)?);
            }
        }
    }
    reset_peak_memory();
    let mut made = Vec::new();
    let mut write_secs = 0.0;
    // The solver hands over (b, w) first and (w, b) last: the presence of the (w, b) file
    // means the job is done.
    let mut stats = solve_pair_with(
        rules,
        job.w,
        job.b,
        cache,
        &mut |x, y| read(x, y),
        &mut |t| {
            let t0 = Instant::now();
            t.write(&dir.join(file_name(rules, t.w, t.b)))
                .map_err(|e| e.to_string())?;
            write_secs += t0.elapsed().as_secs_f64();
            if keep {
                made.push(t);
            }
            Ok(())
        },
        &mut |line| progress::line(line),
    )?;
    stats.secs -= write_secs;
    let rate = stats.positions as f64 / stats.secs.max(1e-9);
    // VmHWM counts kibibytes; shown in the units `/usr/bin/time -v` and the estimates use.
    let peak = peak_memory().map_or(String::new(), |kib| {
        format!(", peak memory {}", resources::human(kib * 1024))
    });
    progress::line(&format!(
        "{rules} {name}: solved {} positions ({} slots), {} levels, setup {:.1}s, total {:.1}s, {:.2} M positions/s, written in {write_secs:.1}s{peak}",
        stats.positions,
        stats.slots,
        stats.levels,
        stats.setup_secs,
        stats.secs,
        rate / 1e6
    ));
    totals.0 += stats.positions;
    totals.1 += stats.secs;
    for t in made {
        cache.insert((t.w, t.b), t);
    }
    Ok(true)
}

/// Resets the process's peak resident size, so that each job reports its own (Linux: writing
/// 5 to `clear_refs`; elsewhere nothing happens and no peak is reported).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The peak resident size since the last reset, in kB (`VmHWM`; it includes the tables the
/// job read and those kept for later jobs).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn parse_job(s: &str) -> Option<(u8, u8)> {
    let (w, b) = s.split_once('v')?;
    Some((w.parse().ok()?, b.parse().ok()?))
}

fn generate_only(rules: Rules, job: &str, dir: &Path) -> Result<(), String> {
    let (w, b) = parse_job(job).ok_or_else(|| format!("--only {job}: expected WvB, as 3v4"))?;
    let n = rules.variant.pieces();
    if !(3..=n).contains(&w) || !(3..=n).contains(&b) {
        return Err(format!("{w}v{b} is not a sub-space of {}", rules.variant));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let job = Job::new(rules, w, b);
    run_job(&job, dir, &mut HashMap::new(), false, false, &mut (0, 0.0)).map(|_| ())
}

/// States, before a run of moving jobs, whether they keep tables between jobs.
fn say_how_tables_are_held(needs: &setup::Needs, keep: bool, budget: Option<u64>, how: &str) {
    let budget = budget.map_or("none".into(), resources::human);
    if keep {
        log::info!("memory budget {budget} ({how}): tables later jobs read are kept in memory");
    } else {
        progress::line(&format!(
            "memory budget {budget} ({how}) is below the {} that keeping tables between jobs needs: each job reads its inputs from the files, peak about {}",
            resources::human(needs.memory),
            resources::human(needs.lean_memory)
        ));
    }
}

/// Generates the moving jobs up to `max_pieces` into `dir`; `keep`: see [`run_jobs`].
fn generate(
    rules: Rules,
    max_pieces: u8,
    max_side: u8,
    dir: &Path,
    keep: bool,
) -> Result<(), String> {
    if max_pieces < 6 {
        return Err("--max-pieces must be at least 6 (3 v 3)".into());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let jobs = plan(rules, max_pieces, max_side);
    let progress = progress::Progress::new("generate", slots_left(&jobs, dir), "slots");
    run_jobs(&jobs, dir, &progress, keep)
}

/// Slots of the jobs whose files are not all in `dir`.
fn slots_left(jobs: &[Job], dir: &Path) -> u64 {
    jobs.iter()
        .filter(|j| !j.files().iter().all(|f| dir.join(f).is_file()))
        .map(|j| j.slots())
        .sum()
}

/// Runs `jobs` (inputs first) into `dir`. With `keep`, the tables later jobs read stay in
/// memory (each file is read once); without, no table is held between jobs (each job reads its
/// inputs from the files, one at a time: the peak is the biggest job's own, 5.5 GB for nine
/// instead of 9.65).
fn run_jobs(
    jobs: &[Job],
    dir: &Path,
    progress: &progress::Progress,
    keep: bool,
) -> Result<(), String> {
    let start = Instant::now();
    let mut cache: HashMap<(u8, u8), Table> = HashMap::new();
    let mut totals = (0u64, 0f64);
    for (k, job) in jobs.iter().enumerate() {
        // Keep in memory only the tables this or a later job reads (the biggest jobs of nine
        // read 1 to 2 GB of them).
        let needed = |t: &(u8, u8)| jobs[k..].iter().any(|j| j.reads.contains(t));
        cache.retain(|t, _| needed(t));
        let keep_own = keep
            && job
                .tables
                .iter()
                .any(|t| jobs[k + 1..].iter().any(|j| j.reads.contains(t)));
        progress.note(format!("job {}", job.name()));
        if run_job(job, dir, &mut cache, keep_own, keep, &mut totals)? {
            progress.inc(job.slots());
        }
    }
    let (solved_positions, solve_secs) = totals;
    progress::line(&format!(
        "done in {:.1}s: solved {solved_positions} positions in {solve_secs:.1}s of solving ({:.2} M positions/s)",
        start.elapsed().as_secs_f64(),
        solved_positions as f64 / solve_secs.max(1e-9) / 1e6
    ));
    Ok(())
}

/// `mill-tb setup`: states the needs, refuses what does not fit, then runs the steps.
fn run_setup(
    rules: Rules,
    memory: Option<&str>,
    disk: Option<&str>,
    dir: PathBuf,
    max_pieces: u8,
    dry_run: bool,
) -> Result<(), String> {
    let s = setup::Setup::new(rules, max_pieces)?;
    let threads = rayon::current_num_threads();
    let needs = setup::needs(&s, &dir, threads);
    let (budget, how) = resources::memory_budget(memory)?;
    let free = match disk {
        Some(d) => Some(resources::parse_size(d).map_err(|e| format!("--disk: {e}"))?),
        None => resources::free_disk(&dir),
    };
    for l in setup::describe(&s, &needs, &dir, threads) {
        eprintln!("{l}");
    }
    eprintln!(
        "disk budget {}{}; memory budget {} ({how})",
        free.map_or("unknown".into(), resources::human),
        if disk.is_some() {
            " (--disk)"
        } else {
            " (free space)"
        },
        budget.map_or("none".into(), resources::human)
    );
    if dry_run {
        for (step, c) in s.steps.iter().zip(s.costs()) {
            eprintln!(
                "  {}{}: {} positions, disk {}, peak memory {} ({} holding no table between jobs), {} of one thread",
                step.name(),
                if step.present(&dir) { " (done)" } else { "" },
                c.slots,
                resources::human(c.disk),
                resources::human(c.memory),
                resources::human(c.lean_memory),
                resources::human_secs(c.thread_secs)
            );
        }
    }
    setup::check(&needs, free, budget)?;
    if dry_run {
        return Ok(());
    }
    let keep = needs.keeps_tables(budget);
    say_how_tables_are_held(&needs, keep, budget, &how);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let start = Instant::now();
    let progress = progress::Progress::new("setup", needs.slots, "positions");
    let jobs: Vec<Job> = s
        .steps
        .iter()
        .filter_map(|st| match st {
            setup::Step::Moving(j) => Some(Job::new(rules, j.w, j.b)),
            _ => None,
        })
        .collect();
    run_jobs(&jobs, &dir, &progress, keep)?;
    for step in &s.steps {
        if let setup::Step::Placing {
            max_material,
            sectors,
        } = step
        {
            let left: u64 = sectors
                .iter()
                .filter(|x| !dir.join(x.file_name()).is_file())
                .map(|x| x.slots())
                .sum();
            progress.note(step.name());
            // The placing generator writes its own lines: the bar waits meanwhile.
            progress.suspend(|| millstone_tools::placing::generate(rules, *max_material, &dir))?;
            progress.inc(left);
        }
    }
    drop(progress);
    eprintln!(
        "setup done in {:.1}s: {} holds the tables of {rules} up to {max_pieces} pieces",
        start.elapsed().as_secs_f64(),
        dir.display()
    );
    if millstone::datadir::default_tables().as_deref() == Some(dir.as_path()) {
        eprintln!("the engine and mill-gui find them with no option");
    } else {
        eprintln!(
            "not the data directory: give the engine `setoption name TablePath value {}`",
            dir.display()
        );
    }
    Ok(())
}

fn print_plan(
    rules: Rules,
    max_pieces: u8,
    max_side: u8,
    format: PlanFormat,
    dir: &Path,
    mill_tb: &str,
    with_placing: bool,
) -> Result<(), String> {
    if max_pieces < 6 {
        return Err("--max-pieces must be at least 6 (3 v 3)".into());
    }
    let jobs = plan(rules, max_pieces, max_side);
    let placing_jobs = if with_placing {
        millstone_tools::placing::plan(rules, max_pieces)
    } else {
        Vec::new()
    };
    let flags = format!(
        "--variant {}{}",
        rules.variant.name(),
        if rules.flying { "" } else { " --no-flying" }
    );
    let target = |j: &Job| format!("$(DIR)/{}", file_name(rules, j.w, j.b));
    match format {
        PlanFormat::Make => {
            let mut out = String::new();
            out.push_str(&format!(
                "# Endgame tables of {rules}, up to {max_pieces} pieces ({} jobs).\n\
                 # Generated by: mill-tb plan {flags} --max-pieces {max_pieces} --max-side {max_side}\n\
                 # Run with `make -j N -f THIS`; finished jobs are skipped. Each target is the\n\
                 # job's file, which is renamed into place last. On Slurm, run every job through\n\
                 # srun with its own estimated memory and time limit: make -j 64 -f THIS SRUN=srun\n\
                 # (SRUN may carry more flags, e.g. SRUN='srun --partition=big').\n\n\
                 MILL_TB ?= {mill_tb}\nDIR ?= {}\nSRUN ?=\n\
                 # $(call launch,MiB,minutes): srun with the job's resources when SRUN is set.\n\
                 launch = $(if $(SRUN),$(SRUN) --ntasks=1 --mem=$(1)M --time=$(2),)\n\n",
                jobs.len(),
                dir.display()
            ));
            let names: Vec<String> = jobs
                .iter()
                .map(|j| j.name())
                .chain(placing_jobs.iter().map(|j| j.name.clone()))
                .collect();
            out.push_str(&format!(
                ".PHONY: all {}\nall: {}\n\n",
                names.join(" "),
                names.join(" ")
            ));
            for j in &jobs {
                let inputs: Vec<String> = j
                    .inputs
                    .iter()
                    .map(|&(x, y)| target(&Job::new(rules, x, y)))
                    .collect();
                let e = millstone_tools::estimate::moving(j);
                out.push_str(&format!(
                    "# {}: {} slots, about {} MiB of memory, {} s, {} KiB of files\n{}: {}\n",
                    j.name(),
                    j.slots(),
                    e.memory_mib(),
                    e.seconds,
                    e.output >> 10,
                    j.name(),
                    target(j)
                ));
                // Order-only: a job waits for its inputs to exist, not for their dates.
                out.push_str(&format!(
                    "{}:{}\n\t@mkdir -p $(DIR)\n\t$(call launch,{},{}) $(MILL_TB) generate {flags} --only {} --dir $(DIR)\n\n",
                    target(j),
                    if inputs.is_empty() {
                        String::new()
                    } else {
                        format!(" | {}", inputs.join(" "))
                    },
                    e.memory_mib(),
                    e.time_limit_minutes(),
                    j.name()
                ));
            }
            let placing_file = |name: &str| {
                placing_jobs
                    .iter()
                    .find(|p| p.name == name)
                    .map_or_else(|| name.to_string(), |p| p.file.clone())
            };
            for j in &placing_jobs {
                let e = millstone_tools::estimate::placing(j);
                out.push_str(&format!(
                    "# {}: {} slots, about {} MiB of memory, {} s, {} KiB of files\n{}: $(DIR)/{}\n$(DIR)/{}: | {}\n\t@mkdir -p $(DIR)\n\t$(call launch,{},{}) $(MILL_TB) generate {flags} --only {} --dir $(DIR)\n\n",
                    j.sector,
                    j.slots,
                    e.memory_mib(),
                    e.seconds,
                    e.output >> 10,
                    j.name,
                    j.file,
                    j.file,
                    // The jobs it waits for, by the file each writes last (a moving job's
                    // partner table, which a sector may read, has no target of its own).
                    j.inputs
                        .iter()
                        .map(|name| match jobs.iter().find(|m| m.name() == *name) {
                            Some(m) => target(m),
                            None => format!("$(DIR)/{}", placing_file(name)),
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                    e.memory_mib(),
                    e.time_limit_minutes(),
                    j.name
                ));
            }
            print!("{out}");
        }
        PlanFormat::Json => {
            let jobs_json: Vec<serde_json::Value> = jobs
                .iter()
                .map(|j| {
                    let e = millstone_tools::estimate::moving(j);
                    serde_json::json!({
                        "name": j.name(),
                        "tables": j.tables.iter().map(|&(x, y)| format!("{x}v{y}")).collect::<Vec<_>>(),
                        "files": j.files(),
                        "reads": j.reads.iter().map(|&(x, y)| format!("{x}v{y}")).collect::<Vec<_>>(),
                        "inputs": j.inputs.iter().map(|&(x, y)| format!("{x}v{y}")).collect::<Vec<_>>(),
                        "slots": j.slots(),
                        "memory_bytes": e.memory,
                        "seconds": e.seconds,
                        "output_bytes": e.output,
                        "srun": format!("--mem={}M --time={}", e.memory_mib(), e.time_limit_minutes()),
                        "command": format!("{mill_tb} generate {flags} --only {} --dir {}", j.name(), dir.display()),
                    })
                })
                .collect();
            let placing_json: Vec<serde_json::Value> = placing_jobs
                .iter()
                .map(|j| {
                    let e = millstone_tools::estimate::placing(j);
                    serde_json::json!({
                        "name": j.name,
                        "ply": j.sector.ply,
                        "files": [j.file],
                        "reads": j.reads,
                        "inputs": j.inputs,
                        "slots": j.slots,
                        "memory_bytes": j.memory,
                        "seconds": e.seconds,
                        "output_bytes": e.output,
                        "srun": format!("--mem={}M --time={}", e.memory_mib(), e.time_limit_minutes()),
                        "command": format!("{mill_tb} generate {flags} --only {} --dir {}", j.name, dir.display()),
                    })
                })
                .collect();
            let doc = serde_json::json!({
                "variant": rules.variant.name(),
                "flying": rules.flying,
                "max_pieces": max_pieces,
                "max_side": max_side,
                "jobs": jobs_json,
                "placing_jobs": placing_json,
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
            );
        }
    }
    Ok(())
}

/// The tables of a directory, smallest first.
fn tables_in(dir: &Path) -> Result<Vec<(Rules, u8, u8)>, String> {
    let mut found: Vec<(Rules, u8, u8)> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| parse_file_name(&e.file_name().to_string_lossy()))
        .collect();
    found.sort_by_key(|&(r, w, b)| (r.variant.pieces(), !r.flying, w + b, w));
    if found.is_empty() {
        return Err(format!("no table files in {}", dir.display()));
    }
    Ok(found)
}

fn info(dir: &Path) -> Result<(), String> {
    println!(
        "{:<16} {:>11} {:>11} {:>11} {:>11} {:>11} {:>4} {:>4} {:>4} {:>9} {:>11} {:>11} {:>6}",
        "table",
        "slots",
        "positions",
        "wins",
        "draws",
        "losses",
        "mill",
        "maxW",
        "maxL",
        "spoilt",
        "bytes",
        "v1 bytes",
        "ratio"
    );
    let mut failures = 0;
    for (rules, w, b) in tables_in(dir)? {
        let name = file_name(rules, w, b);
        let f = match TableFile::open(&dir.join(&name), rules, w, b) {
            Ok(f) => f,
            Err(e) => {
                failures += 1;
                println!("{:<16} {e}", name.trim_end_matches(".mtb"));
                continue;
            }
        };
        let s = f.stats();
        let v1 = 32 + 2 * s.slots;
        println!(
            "{:<16} {:>11} {:>11} {:>11} {:>11} {:>11} {:>4} {:>4} {:>4} {:>9} {:>11} {:>11} {:>6.1}",
            name.trim_end_matches(".mtb"),
            s.slots,
            s.positions,
            s.wins,
            s.draws,
            s.losses,
            s.real_max,
            s.max_win,
            s.max_loss,
            s.spoilt_wins + s.spoilt_losses,
            f.file_len(),
            v1,
            v1 as f64 / f.file_len() as f64
        );
    }
    println!(
        "(per position up to symmetry; mill: longest distance to the next mill within the 100-ply \
         rule; spoilt: wins and losses the 100-ply rule turns into draws; v1 bytes: the old \
         2-byte-a-slot format)"
    );
    failures += millstone_tools::placing::info(dir)?;
    if failures > 0 {
        Err(format!("{failures} file(s) could not be read"))
    } else {
        Ok(())
    }
}

/// Checks `n` random slots of sub-space (w, b) one ply deep through the mapped files.
fn verify_sample(
    tb: &Tablebase,
    rules: Rules,
    w: u8,
    b: u8,
    n: u64,
    seed: u64,
) -> Result<u64, String> {
    let table = tb.load(rules, w, b).map_err(|e| e.to_string())?;
    let same = tb.load(rules, b, w).map_err(|e| e.to_string())?;
    let conv = if b > 3 {
        Some(tb.load(rules, b - 1, w).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let slots = table.index().len() as u32;
    let bad: Vec<String> = (0..n as usize)
        .into_par_iter()
        .with_min_len(256)
        .filter_map(|k| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(
                seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            );
            let i = rng.gen_range(0..slots);
            let (us, them, _) = table.index().unrank(i);
            let got = table.value_at(i);
            let want = value_from_children_with(rules, us, them, &*same, conv.as_deref());
            match (got, want) {
                (Ok(g), Ok(w)) if g == w => None,
                (Ok(g), Ok(w)) => Some(format!(
                    "slot {i} (us {us:#08x}, them {them:#08x}): stored {g}, children say {w}"
                )),
                (Err(e), _) | (_, Err(e)) => Some(format!("slot {i}: {e}")),
            }
        })
        .take_any(5)
        .collect();
    if bad.is_empty() {
        Ok(n)
    } else {
        Err(bad.join("\n"))
    }
}

fn verify(dir: &Path, sample: Option<u64>, seed: u64) -> Result<(), String> {
    let found = tables_in(dir)?;
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let mut failures = 0;
    let start = Instant::now();
    let read = |x: u8, y: u8, rules: Rules| {
        Table::read(&dir.join(file_name(rules, x, y)), rules, x, y).map_err(|e| e.to_string())
    };
    let progress = progress::Progress::new("verify", found.len() as u64, "tables");
    for (rules, w, b) in found {
        progress.note(format!("{w}v{b}"));
        let t0 = Instant::now();
        let result = match sample {
            Some(n) => verify_sample(&tb, rules, w, b, n, seed),
            None => (|| {
                let table = read(w, b, rules)?;
                let same = if w == b {
                    None
                } else {
                    Some(read(b, w, rules)?)
                };
                let conv = if b > 3 {
                    Some(read(b - 1, w, rules)?)
                } else {
                    None
                };
                verify_table(&table, same.as_ref().unwrap_or(&table), conv.as_ref())
            })(),
        };
        match result {
            Ok(n) => progress::line(&format!(
                "{rules} {w}v{b}: {n} slots consistent ({:.1}s)",
                t0.elapsed().as_secs_f64()
            )),
            Err(e) => {
                failures += 1;
                progress::line(&format!("{rules} {w}v{b}: FAILED\n{e}"));
            }
        }
        progress.inc(1);
    }
    drop(progress);
    let (_, placing_failures) = millstone_tools::placing::verify(dir, sample, seed)?;
    failures += placing_failures;
    eprintln!("verify done in {:.1}s", start.elapsed().as_secs_f64());
    if failures > 0 {
        Err(format!("{failures} table(s) failed verification"))
    } else {
        Ok(())
    }
}

fn describe(wdl: Wdl, plies: u16) -> String {
    match wdl {
        Wdl::Win => format!("win, next mill in {plies} plies"),
        Wdl::Loss => format!("loss, next mill in {plies} plies"),
        Wdl::Draw => "draw".to_string(),
        Wdl::CursedWin => format!("draw by the 100-ply rule (cursed win, key {plies})"),
        Wdl::BlessedLoss => format!("draw by the 100-ply rule (blessed loss, key {plies})"),
    }
}

fn probe(dir: &Path, fen: &str, rules: Rules) -> Result<(), String> {
    let pos = Position::from_fen(fen, rules).map_err(|e| e.to_string())?;
    if !pos.is_moving_phase() {
        return millstone_tools::placing::probe(dir, &pos);
    }
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let us = pos.side_to_move();
    let (w, b) = (pos.pieces(us).count() as u8, pos.pieces(!us).count() as u8);
    if w >= 3 && b >= 3 {
        // Surface a damaged or missing file instead of a bare "not in the tables".
        tb.load(rules, w, b).map_err(|e| e.to_string())?;
    }
    let p = tb
        .probe(&pos)
        .ok_or_else(|| format!("{w}v{b} is not in the tables of {}", dir.display()))?;
    print!("{}", pos.diagram());
    println!("{} to move, {w}v{b}, counter {}", us, pos.rule50());
    println!("verdict: {}", describe(p.wdl, p.plies_to_mill));
    if p.value != Value::Draw {
        println!("stored: {}", p.value);
    }
    match tb.probe_root(&pos) {
        Some(root) => {
            println!("best move: {}", root.best);
            for (m, mp) in root.moves {
                println!("  {m:<10} {}", describe(mp.wdl, mp.plies_to_mill));
            }
        }
        None => println!("no move values (game over, or a needed table is missing)"),
    }
    Ok(())
}

/// What `mill-tb solve` does besides solving.
struct SolveOptions {
    hash_mb: usize,
    moves: bool,
    checkpoint: Option<PathBuf>,
    checkpoint_every: std::time::Duration,
    symmetry: bool,
}

fn solve(dir: &Path, fen: &str, rules: Rules, opts: &SolveOptions) -> Result<(), String> {
    let pos = Position::from_fen(fen, rules).map_err(|e| format!("bad position: {e}"))?;
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let mut solver = Solver::new(&tb, rules, opts.hash_mb).map_err(|e| e.to_string())?;
    if !opts.symmetry {
        solver.set_symmetry(false);
    }
    if let Some(path) = &opts.checkpoint {
        if path.exists() {
            let t = std::time::Instant::now();
            let n = solver
                .load_checkpoint(path)
                .map_err(|e| format!("checkpoint: {e}"))?;
            eprintln!(
                "resumed from {}: {n} proven entries in {:.1}s",
                path.display(),
                t.elapsed().as_secs_f64()
            );
        }
        solver.set_checkpoint(path, opts.checkpoint_every);
    }
    // The CLI's own progress line, whatever RUST_LOG says: a long solve should not look hung.
    solver.set_progress(std::time::Duration::from_secs(3), |p| {
        eprintln!(
            "  {} nodes, {} probes, {:.1}s, {:.0} nodes/s, table {}‰ full",
            p.nodes,
            p.probes,
            p.elapsed.as_secs_f64(),
            p.nodes as f64 / p.elapsed.as_secs_f64().max(1e-9),
            p.tt_fill
        )
    });
    let explain = |e: SolveError| match &e {
        // Say why a present file could not be used (damaged, wrong rules) where it is one.
        SolveError::MissingTable { own, opp, .. } => match tb.load(rules, *own, *opp) {
            Err(TbError::Io { .. }) | Ok(_) => e.to_string(),
            Err(why) => format!("{e} ({why})"),
        },
        _ => e.to_string(),
    };
    let s = solver.solve(&pos).map_err(explain)?;
    print!("{}", pos.diagram());
    println!(
        "{} to move, in hand {} (white) and {} (black), {rules}",
        pos.side_to_move(),
        pos.in_hand(Color::White),
        pos.in_hand(Color::Black)
    );
    println!("value: {}", wdl_word(s.value));
    if let Some(m) = s.best {
        println!("keeping move: {m}");
    }
    println!(
        "nodes {} probes {} time {:.3}s nodes/s {}",
        s.nodes,
        s.probes,
        s.elapsed.as_secs_f64(),
        s.nps()
    );
    let tt = solver.tt_stats();
    println!(
        "table: {} of {} entries used ({:.1}%), {} replaced, hits {} of {} look-ups",
        tt.used,
        tt.capacity,
        100.0 * tt.used as f64 / tt.capacity.max(1) as f64,
        tt.replaced,
        tt.hits,
        tt.probes
    );
    if opts.moves {
        let all = solver.keeping_moves(&pos).map_err(explain)?;
        println!("moves ({}):", all.len());
        for (m, v) in all {
            let keeps = if v == s.value { "  keeps" } else { "" };
            println!("  {:<10} {}{keeps}", m.to_string(), wdl_word(v));
        }
    }
    Ok(())
}

/// A check's outcome: done when it found no mismatch, else the mismatches, a line each.
fn none_or_listed(mismatches: Vec<String>) -> Result<(), String> {
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(mismatches.join("\n"))
    }
}

#[allow(clippy::too_many_arguments)]
fn book(
    dir: &Path,
    out: &Path,
    plies: u32,
    fen: Option<&str>,
    rules: Rules,
    hash_mb: usize,
    every: std::time::Duration,
    for_side: Option<Color>,
) -> Result<(), String> {
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let mut solver = Solver::new(&tb, rules, hash_mb).map_err(|e| e.to_string())?;
    if out.exists() {
        let n = solver
            .load_checkpoint(out)
            .map_err(|e| format!("cannot resume from {}: {e}", out.display()))?;
        eprintln!("resumed from {}: {n} proven entries", out.display());
    }
    solver.set_checkpoint(out, every);
    let start = std::time::Instant::now();
    let root = match fen {
        Some(f) => Position::from_fen(f, rules).map_err(|e| format!("bad position: {e}"))?,
        None => Position::new(rules),
    };
    let mut level = vec![root];
    let mut counts = [0u64; 3];
    for ply in 0..plies {
        let t = std::time::Instant::now();
        let mut nodes = 0u64;
        let mut proofs = 0u64;
        let bar =
            progress::Progress::new(&format!("book ply {ply}"), level.len() as u64, "positions");
        // Each position with the moves the next ply follows.
        let mut followed: Vec<(Position, Vec<Move>)> = Vec::with_capacity(level.len());
        for pos in &level {
            bar.inc(1);
            // The side the book is for wins here: one proven winning move is all it needs.
            if for_side == Some(pos.side_to_move()) {
                let (v, best) = solver
                    .value_and_best(pos)
                    .map_err(|e| format!("{pos}: {e}"))?;
                nodes += solver.nodes();
                if let (Wdl::Win, Some(best)) = (v, best) {
                    counts[0] += 1;
                    proofs += 1;
                    solver.pin(pos);
                    let mut child = *pos;
                    child.make(best);
                    solver.pin(&child);
                    log::debug!("{pos}: Win by {best}");
                    followed.push((*pos, vec![best]));
                    continue;
                }
            }
            let (v, keep) = solver
                .value_keeping(pos)
                .map_err(|e| format!("{pos}: {e}"))?;
            nodes += solver.nodes();
            counts[match v {
                Wdl::Win => 0,
                Wdl::Loss => 2,
                _ => 1,
            }] += 1;
            log::debug!(
                "{pos}: {v:?}, {} of {} moves keep it",
                keep.len(),
                pos.legal_moves().len()
            );
            // The book keeps these entries: the engine's root asks for every child.
            solver.pin(pos);
            let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
            for &m in &moves {
                let mut child = *pos;
                child.make(m);
                solver.pin(&child);
            }
            followed.push((*pos, moves));
        }
        drop(bar);
        let how = if for_side.is_some() {
            format!(" ({proofs} won by the book's side: one winning move proven and followed)")
        } else {
            String::new()
        };
        eprintln!(
            "ply {ply}: {} positions solved with every move{how} in {:.1}s ({nodes} nodes); {:.0}s in all",
            level.len(),
            t.elapsed().as_secs_f64(),
            start.elapsed().as_secs_f64()
        );
        level = millstone_tools::placing::next_ply_through(&followed, &solver);
    }
    let n = solver
        .save_checkpoint(out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let bytes = std::fs::metadata(out).map_or(0, |m| m.len());
    let kind = match for_side {
        Some(c) => format!(" for {}", if c == Color::White { "White" } else { "Black" }),
        None => String::new(),
    };
    println!(
        "book {}: {plies} plies of {rules}{kind}, {} positions won, {} drawn, {} lost for the side to move; {n} proven entries, {bytes} bytes, {:.1}s",
        out.display(),
        counts[0],
        counts[1],
        counts[2],
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The side of `--for`.
fn side(s: Option<&str>) -> Result<Option<Color>, String> {
    match s {
        None => Ok(None),
        Some("white" | "w") => Ok(Some(Color::White)),
        Some("black" | "b") => Ok(Some(Color::Black)),
        Some(o) => Err(format!("--for {o}: expected white or black")),
    }
}

fn wdl_word(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "win",
        Wdl::Loss => "loss",
        _ => "draw",
    }
}

/// The first position of a game in the moving phase (both hands empty), if it gets there.
fn moving_phase_start(rec: &GameRecord) -> Result<Option<Position>, String> {
    let variant: Variant = rec
        .variant
        .parse()
        .map_err(|e| format!("game {}: variant {}: {e}", rec.game, rec.variant))?;
    let rules = Rules::new(variant, rec.flying);
    let start = Position::from_fen(&rec.fen, rules)
        .map_err(|e| format!("game {}: position {}: {e}", rec.game, rec.fen))?;
    let mut game = Game::new(start);
    if game.position().is_moving_phase() {
        return Ok(Some(*game.position()));
    }
    for (ply, m) in rec.moves.iter().enumerate() {
        let mv = m
            .parse()
            .map_err(|e| format!("game {} ply {}: {m}: {e}", rec.game, ply + 1))?;
        game.play(mv)
            .map_err(|e| format!("game {} ply {}: {m}: {e}", rec.game, ply + 1))?;
        if game.position().is_moving_phase() {
            return Ok(Some(*game.position()));
        }
    }
    Ok(None)
}

/// The game records of a JSONL file.
fn read_records(jsonl: &Path) -> Result<Vec<GameRecord>, String> {
    let text = std::fs::read_to_string(jsonl).map_err(|e| format!("{}: {e}", jsonl.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line)
                .map_err(|e| format!("{}:{}: not a game record: {e}", jsonl.display(), n + 1))
        })
        .collect()
}

/// Solves each placing-phase position where an audited side moved, and the position after its
/// move: the move kept the value when the child's value is the parent's, seen from the other
/// side. One solver for all games, so common openings are solved once.
fn audit_placing(
    dir: &Path,
    jsonl: &Path,
    player: Option<&str>,
    hash_mb: usize,
    book: Option<&Path>,
    verbose: bool,
) -> Result<(), String> {
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let records = read_records(jsonl)?;
    let bar = progress::Progress::new("audit --placing", records.len() as u64, "games");
    let mut solver: Option<Solver> = None;
    let (mut checked, mut kept, mut undecided) = (0u32, 0u32, 0u32);
    let mut spoilt = Vec::new();
    let start = std::time::Instant::now();
    for rec in &records {
        bar.inc(1);
        let variant: Variant = rec
            .variant
            .parse()
            .map_err(|e| format!("game {}: variant {}: {e}", rec.game, rec.variant))?;
        let rules = Rules::new(variant, rec.flying);
        if solver.as_ref().is_none_or(|s| s.rules() != rules) {
            let mut s = Solver::new(&tb, rules, hash_mb).map_err(|e| e.to_string())?;
            if let Some(b) = book {
                s.load_checkpoint(b).map_err(|e| format!("book: {e}"))?;
            }
            solver = Some(s);
        }
        let solver = solver.as_mut().expect("just made");
        let mut pos = Position::from_fen(&rec.fen, rules)
            .map_err(|e| format!("game {}: position {}: {e}", rec.game, rec.fen))?;
        for (ply, m) in rec.moves.iter().enumerate() {
            if pos.is_moving_phase() || pos.outcome().is_some() {
                break;
            }
            let mv: millstone::Move = m
                .parse()
                .map_err(|e| format!("game {} ply {}: {m}: {e}", rec.game, ply + 1))?;
            if !pos.legal_moves().contains(mv) {
                return Err(format!(
                    "game {} ply {}: {m} is not legal",
                    rec.game,
                    ply + 1
                ));
            }
            let mover = pos.side_to_move();
            let name = if mover == Color::White {
                &rec.white
            } else {
                &rec.black
            };
            let mut child = pos;
            child.make(mv);
            if player.is_none_or(|p| p == name) {
                checked += 1;
                // The placing tables answer at once where they exist; the solver elsewhere.
                let mut value = |p: &Position| match tb.wdl(p) {
                    Some(w) => Ok(w),
                    None => solver.solve(p).map(|s| s.value),
                };
                match (value(&pos), value(&child)) {
                    (Ok(before), Ok(after)) => {
                        if after.flip() == before {
                            kept += 1;
                        } else {
                            spoilt.push(format!(
                                "game {} ply {}: {name} ({mover}) played {m} in {pos}: {} -> {}",
                                rec.game,
                                ply + 1,
                                wdl_word(before),
                                wdl_word(after.flip())
                            ));
                        }
                        if verbose {
                            println!(
                                "game {} ply {}: {m} keeps {}",
                                rec.game,
                                ply + 1,
                                wdl_word(before)
                            );
                        }
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        undecided += 1;
                        println!("game {} ply {}: not decided: {e}", rec.game, ply + 1);
                    }
                }
            }
            pos = child;
        }
    }
    println!(
        "placing phase of {} games: {checked} moves of {} checked in {:.0}s: {kept} kept the proven value, {} gave it away, {undecided} not decided",
        records.len(),
        player.unwrap_or("each side"),
        start.elapsed().as_secs_f64(),
        spoilt.len()
    );
    for line in &spoilt {
        println!("{line}");
    }
    if spoilt.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} placing moves gave away a proven value",
            spoilt.len()
        ))
    }
}

fn audit(dir: &Path, jsonl: &Path, player: Option<&str>, verbose: bool) -> Result<(), String> {
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    // Per audited side: verdict at the start of the moving phase -> (wins, draws, losses).
    let mut table: std::collections::BTreeMap<&'static str, [u32; 3]> = Default::default();
    let (mut games, mut uncovered, mut no_moving) = (0u32, 0u32, 0u32);
    let mut lost_from_level = Vec::new();
    let records = read_records(jsonl)?;
    let bar = progress::Progress::new("audit", records.len() as u64, "games");
    for rec in records {
        bar.inc(1);
        games += 1;
        let Some(pos) = moving_phase_start(&rec)? else {
            no_moving += 1;
            continue;
        };
        let Some(probe) = tb.probe(&pos) else {
            uncovered += 1;
            if verbose {
                println!(
                    "game {}: moving phase at {pos} is not in the tables",
                    rec.game
                );
            }
            continue;
        };
        let white_wdl = if pos.side_to_move() == Color::White {
            probe.wdl.real()
        } else {
            probe.wdl.real().flip()
        };
        for (color, name) in [(Color::White, &rec.white), (Color::Black, &rec.black)] {
            if player.is_some_and(|p| p != name) {
                continue;
            }
            let wdl = if color == Color::White {
                white_wdl
            } else {
                white_wdl.flip()
            };
            let verdict = match wdl {
                Wdl::Win => "won",
                Wdl::Loss => "lost",
                _ => "drawn",
            };
            let result = match (rec.result.as_str(), color) {
                ("1-0", Color::White) | ("0-1", Color::Black) => 0,
                ("1/2-1/2", _) => 1,
                ("1-0", _) | ("0-1", _) => 2,
                (other, _) => return Err(format!("game {}: result {other}", rec.game)),
            };
            table.entry(verdict).or_default()[result] += 1;
            if verdict != "lost" && result == 2 {
                lost_from_level.push(format!(
                    "game {}: {name} ({color}) lost ({}) from a {verdict} position: {pos}",
                    rec.game, rec.reason
                ));
            }
            if verbose {
                println!(
                    "game {}: {name} ({color}) {verdict} at {pos}, result {}",
                    rec.game, rec.result
                );
            }
        }
    }
    println!(
        "{games} games; {} reached the moving phase inside the tables ({uncovered} outside, {no_moving} never moved)",
        games - uncovered - no_moving
    );
    println!(
        "{:<28} {:>6} {:>6} {:>6}",
        format!("verdict of {}", player.unwrap_or("each side")),
        "won",
        "drawn",
        "lost"
    );
    for (verdict, [w, d, l]) in &table {
        println!(
            "{:<28} {w:>6} {d:>6} {l:>6}",
            format!("{verdict} at the moving phase")
        );
    }
    for line in &lost_from_level {
        println!("{line}");
    }
    if lost_from_level.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} games lost from a position the tables called won or drawn",
            lost_from_level.len()
        ))
    }
}
