//! `mill-tb`: generate, verify and probe the moving-phase endgame tables.

use clap::{Parser, Subcommand};
use millstone::tablebase::{
    file_name, solve_pair, verify_table, Table, Tablebase, TbError, Value, Wdl,
};
use millstone::{Position, Rules, Variant};
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

#[derive(Subcommand)]
enum Command {
    /// Solve every sub-space up to a number of pieces, smallest first; existing valid files are
    /// kept (the run resumes where it stopped).
    Generate {
        /// nine or twelve.
        #[arg(long, default_value = "nine")]
        variant: Variant,
        /// Solve the rule set without flying.
        #[arg(long)]
        no_flying: bool,
        /// Largest number of pieces on the board, both sides together (at least 6).
        #[arg(long)]
        max_pieces: u8,
        /// Largest number of pieces of one side (default: the variant's).
        #[arg(long)]
        max_side: Option<u8>,
        /// Where the files go.
        #[arg(long)]
        dir: PathBuf,
    },
    /// Check every value of every table in a directory against its children, one ply deep.
    Verify {
        /// The directory.
        #[arg(long)]
        dir: PathBuf,
    },
    /// Print each table's counts of wins, draws and losses (per slot), longest distances and
    /// results spoilt by the 100-ply rule.
    Info {
        /// The directory.
        #[arg(long)]
        dir: PathBuf,
    },
    /// Print the verdict of the tables on a position and the value of each move.
    Probe {
        /// The directory.
        #[arg(long)]
        dir: PathBuf,
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
}

fn main() -> ExitCode {
    env_logger::init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Generate {
            variant,
            no_flying,
            max_pieces,
            max_side,
            dir,
        } => generate(
            Rules::new(variant, !no_flying),
            max_pieces,
            max_side.unwrap_or(variant.pieces()),
            &dir,
        ),
        Command::Verify { dir } => verify(&dir),
        Command::Info { dir } => info(&dir),
        Command::Probe {
            dir,
            fen,
            variant,
            no_flying,
        } => probe(&dir, &fen, Rules::new(variant, !no_flying)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mill-tb: {e}");
            ExitCode::FAILURE
        }
    }
}

fn generate(rules: Rules, max_pieces: u8, max_side: u8, dir: &Path) -> Result<(), String> {
    let max_side = max_side.min(rules.variant.pieces());
    if max_pieces < 6 {
        return Err("--max-pieces must be at least 6 (3 v 3)".into());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let start = Instant::now();
    let mut prev: HashMap<(u8, u8), Table> = HashMap::new();
    let (mut solved_positions, mut solve_secs) = (0u64, 0f64);
    for total in 6..=max_pieces.min(2 * max_side) {
        let mut current: HashMap<(u8, u8), Table> = HashMap::new();
        for w in 3..=total / 2 {
            let b = total - w;
            if b > max_side {
                continue;
            }
            let shapes: Vec<(u8, u8)> = if w == b {
                vec![(w, b)]
            } else {
                vec![(w, b), (b, w)]
            };
            let existing: Result<Vec<Table>, TbError> = shapes
                .iter()
                .map(|&(x, y)| Table::read(&dir.join(file_name(rules, x, y)), rules, x, y))
                .collect();
            let tables = match existing {
                Ok(tables) => {
                    eprintln!("{rules} {w}v{b}: valid files exist, skipped");
                    tables
                }
                Err(e) => {
                    if !matches!(&e, TbError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
                    {
                        eprintln!("{e}; solving again");
                    }
                    let (tables, stats) =
                        solve_pair(rules, w, b, &prev, &mut |line| eprintln!("{line}"))?;
                    for t in &tables {
                        let path = dir.join(file_name(rules, t.w, t.b));
                        t.write(&path).map_err(|e| e.to_string())?;
                    }
                    let rate = stats.positions as f64 / stats.secs.max(1e-9);
                    eprintln!(
                        "{rules} {w}v{b}: solved {} positions ({} slots), {} levels, setup {:.1}s, total {:.1}s, {:.2} M positions/s",
                        stats.positions,
                        stats.slots,
                        stats.levels,
                        stats.setup_secs,
                        stats.secs,
                        rate / 1e6
                    );
                    solved_positions += stats.positions;
                    solve_secs += stats.secs;
                    tables
                }
            };
            for t in tables {
                current.insert((t.w, t.b), t);
            }
        }
        prev = current;
    }
    eprintln!(
        "done in {:.1}s: solved {solved_positions} positions in {solve_secs:.1}s of solving ({:.2} M positions/s)",
        start.elapsed().as_secs_f64(),
        solved_positions as f64 / solve_secs.max(1e-9) / 1e6
    );
    Ok(())
}

/// Parses `nine-fly-3v4.mtb` into its rule set and sub-space.
fn parse_name(name: &str) -> Option<(Rules, u8, u8)> {
    let stem = name.strip_suffix(".mtb")?;
    let mut parts = stem.split('-');
    let variant: Variant = parts.next()?.parse().ok()?;
    let flying = match parts.next()? {
        "fly" => true,
        "nofly" => false,
        _ => return None,
    };
    let (w, b) = parts.next()?.split_once('v')?;
    if parts.next().is_some() {
        return None;
    }
    Some((
        Rules::new(variant, flying),
        w.parse().ok()?,
        b.parse().ok()?,
    ))
}

/// The tables of a directory, smallest first.
fn tables_in(dir: &Path) -> Result<Vec<(Rules, u8, u8)>, String> {
    let mut found: Vec<(Rules, u8, u8)> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| parse_name(&e.file_name().to_string_lossy()))
        .collect();
    found.sort_by_key(|&(r, w, b)| (r.variant.pieces(), !r.flying, w + b, w));
    if found.is_empty() {
        return Err(format!("no table files in {}", dir.display()));
    }
    Ok(found)
}

fn info(dir: &Path) -> Result<(), String> {
    println!("table          slots       wins      draws     losses maxW maxL spoilt(>100)");
    for (rules, w, b) in tables_in(dir)? {
        let t = Table::read(&dir.join(file_name(rules, w, b)), rules, w, b)
            .map_err(|e| e.to_string())?;
        let (mut wins, mut draws, mut losses, mut max_w, mut max_l, mut spoilt) =
            (0u64, 0u64, 0u64, 0u16, 0u16, 0u64);
        for &e in t.entries() {
            match Value::from_u16(e) {
                Some(Value::Win(d)) => {
                    wins += 1;
                    max_w = max_w.max(d);
                    spoilt += (d > 100) as u64;
                }
                Some(Value::Loss(d)) => {
                    losses += 1;
                    max_l = max_l.max(d);
                    spoilt += (d > 100) as u64;
                }
                _ => draws += 1,
            }
        }
        println!(
            "{:<14} {:>9} {:>10} {:>10} {:>10} {:>4} {:>4} {:>6}",
            file_name(rules, w, b).trim_end_matches(".mtb"),
            t.entries().len(),
            wins,
            draws,
            losses,
            max_w,
            max_l,
            spoilt
        );
    }
    Ok(())
}

fn verify(dir: &Path) -> Result<(), String> {
    let found = tables_in(dir)?;
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let mut failures = 0;
    let start = Instant::now();
    for (rules, w, b) in found {
        let t0 = Instant::now();
        let get = |x: u8, y: u8| tb.load(rules, x, y).map_err(|e| e.to_string());
        let result = (|| {
            let table = get(w, b)?;
            let same = get(b, w)?;
            let conv = if b > 3 { Some(get(b - 1, w)?) } else { None };
            verify_table(&table, &same, conv.as_deref())
        })();
        match result {
            Ok(n) => eprintln!(
                "{rules} {w}v{b}: {n} slots consistent ({:.1}s)",
                t0.elapsed().as_secs_f64()
            ),
            Err(e) => {
                failures += 1;
                eprintln!("{rules} {w}v{b}: FAILED\n{e}");
            }
        }
    }
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
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    if !pos.is_moving_phase() {
        return Err("the tables cover the moving phase only (both hands empty)".into());
    }
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
