//! `mill-tb book`: the opening book, every position of the first plies solved with each of its
//! moves, saved as the solver's proven bounds for the engine's `BookPath`; or, with `--for`, one
//! side's proof of a win, far smaller.

use crate::{progress, resources};
use millstone::solve::Solver;
use millstone::tablebase::{Tablebase, Wdl};
use millstone::{Color, Move, Position, Rules};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `mill-tb book`: checks `--for`, the book's path (the data directory's by default) and the
/// memory budget before the tables are opened, so that a run that cannot finish says so at
/// once; then solves into `out`, resuming from it when it exists and saving it every `every`.
#[allow(clippy::too_many_arguments)]
pub fn book(
    dir: Option<PathBuf>,
    out: Option<PathBuf>,
    memory: Option<&str>,
    plies: u32,
    fen: Option<&str>,
    rules: Rules,
    hash_mb: usize,
    every: Duration,
    for_side: Option<&str>,
) -> Result<(), String> {
    let for_side = super::side(for_side)?;
    let out = match out {
        Some(o) => o,
        None => millstone::datadir::default_book(rules).ok_or(
            "no book file: give --out, or set MILLSTONE_DATA (no home directory is known)",
        )?,
    };
    let (budget, how) = resources::memory_budget(memory)?;
    let need = ((hash_mb as u64) << 20) + (1 << 30);
    if let Some(b) = budget.filter(|&b| need > b) {
        return Err(format!(
            "not enough memory, nothing done: the solver's table of {hash_mb} MiB and 1 GiB for the tables need {}, the budget is {} ({how}); give a smaller --hash-mb",
            resources::human(need),
            resources::human(b)
        ));
    }
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    build(
        &super::tables(dir)?,
        &out,
        plies,
        fen,
        rules,
        hash_mb,
        every,
        for_side,
    )
}

/// Solves the book's plies into `out`, level by level.
#[allow(clippy::too_many_arguments)]
fn build(
    dir: &Path,
    out: &Path,
    plies: u32,
    fen: Option<&str>,
    rules: Rules,
    hash_mb: usize,
    every: Duration,
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
        level = crate::placing::next_ply_through(&followed, &solver);
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
