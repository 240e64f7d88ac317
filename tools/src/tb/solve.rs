//! `mill-tb solve`: one placing-phase position solved exactly by [`millstone::solve`], with a
//! progress line and checkpoints, since a solve near the start of the game runs for hours.

use super::probe::wdl_word;
use millstone::solve::{SolveError, Solver};
use millstone::tablebase::{Tablebase, TbError};
use millstone::{Color, Position, Rules};
use std::path::{Path, PathBuf};

/// What `mill-tb solve` does besides solving.
pub struct SolveOptions {
    /// The transposition table's size in MiB.
    pub hash_mb: usize,
    /// Also print every legal move's value.
    pub moves: bool,
    /// Resumed from when it exists, and saved to as the solve goes on.
    pub checkpoint: Option<PathBuf>,
    /// Time between saves of the checkpoint.
    pub checkpoint_every: std::time::Duration,
    /// Key the table by the class under the board's symmetries; off for an independent run.
    pub symmetry: bool,
}

/// Solves the position and prints its value, a keeping move and the search's figures; a
/// missing table is explained by why its file could not be used where there is one.
pub fn solve(dir: &Path, fen: &str, rules: Rules, opts: &SolveOptions) -> Result<(), String> {
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
