//! `mill-tb keeprate`: how often an engine keeps the exact value in positions where some move
//! gives it away, judged by the tables: the measure of issue 35 for an evaluation without
//! tables (docs/nnue.md).
//!
//! The positions are game-like: those of the library's sampler ([`Distribution::Games`],
//! mixed-strength play from random openings) with its own seed, kept when at least one legal
//! move changes the result for the worse, half in the placing phase and half in the moving
//! phase. Each is sent as `position fen` (counter 0, no history, so the tables' value at
//! counter 0 is the truth) with `go movetime` (or `go nodes`), to engines with `Threads 1`
//! and no tables or book unless `--option` says otherwise.

use crate::protocol::{EngineProcess, ProcessSpec};
use millstone::tablebase::sample::{Distribution, Phase};
use millstone::tablebase::{Tablebase, Wdl};
use millstone::{Move, Position, Rules};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What `keeprate` measures and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// The rules.
    pub rules: Rules,
    /// Positions of each phase.
    pub per_phase: usize,
    /// Milliseconds a move.
    pub movetime: u64,
    /// Nodes a move instead of the time, where set.
    pub nodes: Option<u64>,
    /// Engines run side by side.
    pub jobs: usize,
    /// The sampler's seed.
    pub seed: u64,
    /// `setoption` pairs, after `Threads 1`, `TablePath <empty>`, `BookPath <empty>`.
    pub options: Vec<(String, String)>,
    /// Where to write each position that lost the value, with the move and the values.
    pub failures: Option<PathBuf>,
    /// Only this phase's positions ([`Phase::Any`]: both).
    pub phase: Phase,
}

fn rank(w: Wdl) -> i8 {
    match w.real() {
        Wdl::Win => 1,
        Wdl::Loss => -1,
        _ => 0,
    }
}

/// The value for the side to move and each move's value for the side making it.
fn values(tb: &Tablebase, pos: &Position) -> Option<(i8, Vec<(Move, i8)>)> {
    let v = rank(tb.wdl(pos)?);
    let mut moves = Vec::new();
    for &m in pos.legal_moves().iter() {
        let mut c = *pos;
        c.make(m);
        moves.push((m, -rank(tb.wdl(&c)?)));
    }
    Some((v, moves))
}

/// The test positions: game-like, each with a move that loses value; placing ones first.
pub fn positions(tb: &Tablebase, opts: &Options) -> Result<Vec<Position>, String> {
    let loses_somewhere = |pos: &Position| {
        values(tb, pos).is_some_and(|(v, moves)| moves.iter().any(|&(_, mv)| mv < v))
    };
    super::sample::by_phase(
        tb,
        opts.rules,
        Distribution::Games,
        opts.seed,
        opts.per_phase,
        200_000,
        loses_somewhere,
    )
}

/// `mill-tb keeprate`: prints the keep rate per phase and overall.
pub fn keeprate(dir: &Path, engine: &Path, opts: &Options) -> Result<(), String> {
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    if !tb.covers_placing_phase(opts.rules) {
        return Err(format!(
            "keeprate needs every placing table of {} in {} (mill-tb setup makes them)",
            opts.rules,
            dir.display()
        ));
    }
    let t0 = Instant::now();
    let mut list = positions(&tb, opts)?;
    list.retain(|p| opts.phase.keeps(p));
    eprintln!(
        "keeprate: {} positions ({} placing, {} moving) chosen in {:.1}s",
        list.len(),
        list.iter().filter(|p| !p.is_moving_phase()).count(),
        list.iter().filter(|p| p.is_moving_phase()).count(),
        t0.elapsed().as_secs_f64()
    );
    let mut pre = vec![
        (
            "UCI_Variant".to_string(),
            opts.rules.variant.name().to_string(),
        ),
        ("Flying".to_string(), opts.rules.flying.to_string()),
        ("Threads".to_string(), "1".to_string()),
        ("TablePath".to_string(), "<empty>".to_string()),
        ("BookPath".to_string(), "<empty>".to_string()),
    ];
    pre.extend(opts.options.iter().cloned());
    let spec = ProcessSpec {
        cmd: engine.to_path_buf(),
        ..Default::default()
    };
    let next = AtomicUsize::new(0);
    // kept[phase], total[phase], and the failures' lines.
    let results = Mutex::new(([0usize; 2], [0usize; 2], Vec::<String>::new(), 0u128));
    let timeout = Duration::from_secs(30);
    let errors: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..opts.jobs.max(1))
            .map(|_| {
                s.spawn(|| -> Result<(), String> {
                    let mut e = EngineProcess::start(&spec, &pre, timeout)
                        .map_err(|e| format!("{}: {e}", engine.display()))?;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(pos) = list.get(i) else {
                            return Ok(());
                        };
                        e.new_game(timeout).map_err(|e| e.to_string())?;
                        let fen = pos.to_fen();
                        // A node limit has no time to add: the timeout alone bounds it.
                        let (limit, budget) = match opts.nodes {
                            Some(n) => (format!("nodes {n}"), 0),
                            None => (format!("movetime {}", opts.movetime), opts.movetime),
                        };
                        let deadline = Instant::now() + Duration::from_millis(budget) + timeout;
                        let r = e
                            .go(
                                &format!("position fen {fen}"),
                                &limit,
                                deadline,
                                Duration::from_secs(5),
                            )
                            .map_err(|e| e.to_string())?;
                        let (v, moves) = values(&tb, pos).expect("checked when chosen");
                        let played = moves
                            .iter()
                            .find(|(m, _)| m.to_string() == r.bestmove)
                            .ok_or_else(|| format!("{fen}: illegal bestmove {}", r.bestmove))?;
                        let phase = pos.is_moving_phase() as usize;
                        let mut g = results.lock().unwrap();
                        g.1[phase] += 1;
                        g.3 = g.3.max(r.elapsed.as_millis());
                        if played.1 == v {
                            g.0[phase] += 1;
                        } else {
                            let word = |x: i8| ["loss", "draw", "win"][(x + 1) as usize];
                            g.2.push(format!(
                                "{fen}\t{}\t{} -> {}",
                                r.bestmove,
                                word(v),
                                word(played.1)
                            ));
                        }
                        let done = g.1[0] + g.1[1];
                        if done % 500 == 0 {
                            eprintln!(
                                "keeprate: {done}/{} ({:.0}s)",
                                list.len(),
                                t0.elapsed().as_secs_f64()
                            );
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().unwrap().err())
            .collect()
    });
    if let Some(e) = errors.first() {
        return Err(e.clone());
    }
    let (kept, total, failures, longest) = results.into_inner().unwrap();
    if let Some(path) = &opts.failures {
        std::fs::write(path, failures.join("\n") + "\n")
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let pct = |k: usize, n: usize| 100.0 * k as f64 / n.max(1) as f64;
    let opts_text: Vec<String> = opts
        .options
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    println!(
        "keeprate {} {} [{}]: placing {}/{} ({:.2}%), moving {}/{} ({:.2}%), all {:.2}%; longest move {longest} ms",
        opts.rules,
        match opts.nodes {
            Some(n) => format!("nodes {n}"),
            None => format!("movetime {}", opts.movetime),
        },
        opts_text.join(" "),
        kept[0],
        total[0],
        pct(kept[0], total[0]),
        kept[1],
        total[1],
        pct(kept[1], total[1]),
        pct(kept[0] + kept[1], total[0] + total[1]),
    );
    Ok(())
}

/// The `millstone` beside this program, else the one on PATH.
pub fn engine_beside_me() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("millstone")))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("millstone"))
}
