//! `mill-tb puzzles`: puzzles made from the tables, not by hand.
//!
//! Positions come from real games: self-play between two instances of the library's engine at
//! a short move time (from random openings, or from a given position), and/or the games of
//! `mill-match` JSONL records and the positions of `mill-selfplay` lines. Every position is
//! probed; one becomes a puzzle when the side to move has a win or a draw and exactly one legal
//! move keeps that value (the rules' result, the 100-ply counter included). Positions are
//! deduplicated under the board's 16 symmetries.
//!
//! The file has one JSON object a line ([`Puzzle`]); docs/gui.md describes it and `mill-gui
//! --puzzles FILE` serves it.

use crate::analysis::search_lines;
use millstone::position::HUNDRED_PLIES;
use millstone::search::Limits;
use millstone::tablebase::{Symmetries, Tablebase, Wdl};
use millstone::{Engine, Game, Move, Position, Rules};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// What `mill-tb puzzles` was asked for.
#[derive(Clone, Debug)]
pub struct Options {
    /// The rule set.
    pub rules: Rules,
    /// Self-play games to play (0: only the games of `games_file`).
    pub games: usize,
    /// The engine's time per move in self-play.
    pub movetime_ms: u64,
    /// Seed of the random openings.
    pub seed: u64,
    /// Uniformly random plies at the start of each self-play game.
    pub random_plies: usize,
    /// Start every self-play game here (then the random plies) instead of the start.
    pub fen: Option<String>,
    /// A longest self-play game.
    pub max_plies: usize,
    /// Games or positions to read: `mill-match` JSONL records or `mill-selfplay` lines.
    pub games_file: Option<PathBuf>,
    /// Keep a position only when at least this many legal moves fail.
    pub min_fail: usize,
    /// Self-play workers.
    pub threads: usize,
    /// Each engine's hash table in MiB.
    pub hash_mb: usize,
}

/// A failing move, with the reply that refutes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refutation {
    /// The failing move.
    #[serde(rename = "move")]
    pub mv: String,
    /// Its value for the side making it: `draw` or `loss`.
    pub value: String,
    /// The tables' best reply (none where the move ends the game).
    pub reply: Option<String>,
}

/// One puzzle: a line of the puzzle file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Puzzle {
    /// 1-based number in the file.
    pub id: usize,
    /// `nine` or `twelve`.
    pub variant: String,
    /// Whether flying is on.
    pub flying: bool,
    /// The position string.
    pub fen: String,
    /// The side to move, `white` or `black`.
    pub side: String,
    /// What the side to move keeps with the one move: `win` or `draw`.
    pub value: String,
    /// The only move that keeps it.
    #[serde(rename = "move")]
    pub solution: String,
    /// For a moving-phase win: plies to the next mill under best play.
    pub plies: Option<u16>,
    /// The forced line, the solution first: for a win up to the winner's next mill (or the
    /// end), for a draw the solution and the three best plies after it.
    pub line: Vec<String>,
    /// Legal moves in the position.
    pub legal: usize,
    /// Legal moves that fail (legal - 1).
    pub fails: usize,
    /// `easy`, `medium` or `hard` (see [`grade`]).
    pub grade: String,
    /// Every failing move and its refutation.
    pub refutations: Vec<Refutation>,
    /// Where the position came from (`selfplay game 3 ply 41`, `FILE line 7 ply 12`).
    pub source: String,
}

/// The grade of a puzzle. A win: the winner's moves in the forced line beyond the first, plus
/// one when more than 10 moves fail; 0-1 easy, 2 medium, more hard. A draw: by the failing
/// moves, up to 3 easy, up to 10 medium, more hard.
pub fn grade(value: Wdl, fails: usize, line_plies: usize) -> &'static str {
    let many = match fails {
        0..=3 => 0,
        4..=10 => 1,
        _ => 2,
    };
    let points = match value {
        Wdl::Win => line_plies.saturating_sub(1) / 2 + (fails > 10) as usize,
        _ => many,
    };
    match points {
        0 | 1 if value == Wdl::Win => "easy",
        2 if value == Wdl::Win => "medium",
        0 => "easy",
        1 => "medium",
        _ => "hard",
    }
}

/// A position of a game and where it came from.
struct Found {
    pos: Position,
    source: String,
}

/// The class of a position under the board's symmetries, with the side and the hands.
fn class_key(pos: &Position) -> (u32, u32, u8, u8, u8) {
    let sym = Symmetries::of(pos.variant());
    let (w, b) = (
        pos.pieces(millstone::Color::White).0,
        pos.pieces(millstone::Color::Black).0,
    );
    let (cw, cb) = (0..sym.len())
        .map(|g| (sym.apply(g, w), sym.apply(g, b)))
        .min()
        .expect("the identity is a symmetry");
    (
        cw,
        cb,
        (pos.side_to_move() == millstone::Color::White) as u8,
        pos.in_hand(millstone::Color::White),
        pos.in_hand(millstone::Color::Black),
    )
}

/// A reproducible seed per game.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// One self-play game: every position where the game was still on.
fn play_game(opts: &Options, start: &Position, engine: &mut Engine, id: usize) -> Vec<Found> {
    let mut rng = StdRng::seed_from_u64(mix(opts.seed ^ mix(id as u64)));
    engine.clear();
    let mut game = Game::new(*start);
    for _ in 0..opts.random_plies {
        let legal = game.legal_moves();
        let Some(&m) = legal.as_slice().choose(&mut rng) else {
            break;
        };
        if game.play(m).is_err() || game.outcome().is_some() {
            break;
        }
    }
    let mut out = Vec::new();
    let limits = Limits {
        clock: millstone::timeman::Clock {
            movetime: Some(Duration::from_millis(opts.movetime_ms.max(1))),
            ..Default::default()
        },
        multipv: 1,
        ..Limits::default()
    };
    while game.outcome().is_none() && game.moves().len() < opts.max_plies {
        out.push(Found {
            pos: *game.position(),
            source: format!("selfplay game {} ply {}", id + 1, game.moves().len()),
        });
        let (r, _) = search_lines(engine, &game, &limits);
        let Some(m) = r.best else { break };
        if game.play(m).is_err() {
            break;
        }
    }
    out
}

/// The positions of a file of `mill-match` records (`moves`, replayed from `fen`) or
/// `mill-selfplay` lines (a `fen` alone).
pub fn read_games(path: &Path, rules: Rules) -> Result<Vec<(Position, String)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path.display();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |what: String| format!("{name}:{}: {what}", n + 1);
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| at(format!("not a JSON game record: {e}")))?;
        if let Some(var) = v.get("variant").and_then(|x| x.as_str()) {
            let fly = v.get("flying").and_then(|x| x.as_bool()).unwrap_or(true);
            if var != rules.variant.name() || fly != rules.flying {
                return Err(at(format!(
                    "a game of {var} (flying {fly}), not of the rules asked for"
                )));
            }
        }
        let fen = v.get("fen").and_then(|x| x.as_str());
        let start = match fen {
            Some(f) => Position::from_fen(f, rules).map_err(|e| at(format!("{f}: {e}")))?,
            None => Position::new(rules),
        };
        match v.get("moves") {
            Some(serde_json::Value::Array(moves)) => {
                let mut game = Game::new(start);
                for (ply, m) in moves.iter().enumerate() {
                    if game.outcome().is_some() {
                        break;
                    }
                    out.push((*game.position(), format!("{name} line {} ply {ply}", n + 1)));
                    let m = m.as_str().unwrap_or("");
                    let mv: Move = m
                        .parse()
                        .map_err(|e| at(format!("ply {}: {m}: {e}", ply + 1)))?;
                    game.play(mv)
                        .map_err(|e| at(format!("ply {}: {m}: {e}", ply + 1)))?;
                }
            }
            Some(_) => return Err(at("\"moves\" is not a list".into())),
            None if fen.is_some() => out.push((start, format!("{name} line {}", n + 1))),
            None => return Err(at("neither a game record nor a position line".into())),
        }
    }
    Ok(out)
}

/// The puzzle in a position, if it is one.
pub fn puzzle_at(tb: &Tablebase, pos: &Position, min_fail: usize, source: &str) -> Option<Puzzle> {
    if pos.outcome().is_some() {
        return None;
    }
    let root = tb.probe_root(pos)?;
    let value = root.probe.wdl.real();
    if value == Wdl::Loss {
        return None;
    }
    let keeping: Vec<_> = root
        .moves
        .iter()
        .filter(|(_, p)| p.wdl.real() == value)
        .collect();
    let fails = root.moves.len() - keeping.len();
    if keeping.len() != 1 || fails < min_fail.max(1) {
        return None;
    }
    let (solution, sp) = *keeping[0];
    let plies = (value == Wdl::Win && pos.is_moving_phase()).then_some(sp.plies_to_mill);
    let max = match value {
        Wdl::Win => 40,
        _ => 4,
    };
    // The solution, then the tables' best move of each side in turn, until the puzzle side's
    // next mill or the end (a win; for any value also the 100-ply rule, which the position
    // alone does not know: a game would refuse a line past it), or `max` plies.
    let side = pos.side_to_move();
    let mut line = vec![solution];
    let mut cur = *pos;
    cur.make(solution);
    let mut done = value == Wdl::Win && solution.removal().is_some();
    while !done && line.len() < max && cur.outcome().is_none() && cur.rule50() < HUNDRED_PLIES {
        let Some(r) = tb.probe_root(&cur) else { break };
        let mover = cur.side_to_move();
        line.push(r.best);
        cur.make(r.best);
        done = value == Wdl::Win && mover == side && r.best.removal().is_some();
    }
    let mut refutations = Vec::new();
    for &(m, p) in &root.moves {
        if m == solution {
            continue;
        }
        let mut child = *pos;
        child.make(m);
        let reply = if child.outcome().is_some() {
            None
        } else {
            tb.probe_root(&child).map(|r| r.best.to_string())
        };
        refutations.push(Refutation {
            mv: m.to_string(),
            value: if p.wdl.real() == Wdl::Loss {
                "loss"
            } else {
                "draw"
            }
            .into(),
            reply,
        });
    }
    let line_plies = plies.map_or(line.len(), usize::from);
    Some(Puzzle {
        id: 0,
        variant: pos.variant().name().into(),
        flying: pos.rules().flying,
        fen: pos.to_fen(),
        side: pos.side_to_move().to_string(),
        value: if value == Wdl::Win { "win" } else { "draw" }.into(),
        solution: solution.to_string(),
        plies,
        line: line.iter().map(|m| m.to_string()).collect(),
        legal: root.moves.len(),
        fails,
        grade: grade(value, fails, line_plies).into(),
        refutations,
        source: source.into(),
    })
}

/// What a run found.
pub struct Report {
    /// The puzzles, numbered from 1.
    pub puzzles: Vec<Puzzle>,
    /// Games played or read.
    pub games: usize,
    /// Positions walked (before deduplication).
    pub positions: usize,
    /// Distinct positions probed.
    pub distinct: usize,
}

/// Plays and reads the games, and keeps the puzzles.
pub fn make(tb: &Tablebase, opts: &Options) -> Result<Report, String> {
    let rules = opts.rules;
    let start = match &opts.fen {
        Some(f) => Position::from_fen(f, rules).map_err(|e| format!("--fen {f}: {e}"))?,
        None => Position::new(rules),
    };
    let mut found: Vec<Found> = Vec::new();
    let mut games = 0;
    if let Some(path) = &opts.games_file {
        let read = read_games(path, rules)?;
        games += read
            .iter()
            .map(|(_, s)| s.split(" ply").next().unwrap_or(""))
            .collect::<HashSet<_>>()
            .len();
        found.extend(read.into_iter().map(|(pos, source)| Found { pos, source }));
    }
    if opts.games > 0 {
        let next = AtomicUsize::new(0);
        let slots: Mutex<Vec<Vec<Found>>> = Mutex::new((0..opts.games).map(|_| vec![]).collect());
        // One plain thread and one engine per worker (as mill-selfplay does).
        std::thread::scope(|scope| {
            for _ in 0..opts.threads.clamp(1, opts.games) {
                scope.spawn(|| {
                    let mut engine = Engine::with_hash_mb(opts.hash_mb);
                    engine.set_rules(rules);
                    loop {
                        let id = next.fetch_add(1, Ordering::Relaxed);
                        if id >= opts.games {
                            break;
                        }
                        let g = play_game(opts, &start, &mut engine, id);
                        slots.lock().expect("no worker panics")[id] = g;
                    }
                });
            }
        });
        games += opts.games;
        found.extend(
            slots
                .into_inner()
                .expect("no worker panics")
                .into_iter()
                .flatten(),
        );
    }
    let positions = found.len();
    let mut seen = HashSet::new();
    found.retain(|f| seen.insert(class_key(&f.pos)));
    let distinct = found.len();
    let mut puzzles: Vec<Puzzle> = found
        .par_iter()
        .filter_map(|f| puzzle_at(tb, &f.pos, opts.min_fail, &f.source))
        .collect();
    for (i, p) in puzzles.iter_mut().enumerate() {
        p.id = i + 1;
    }
    Ok(Report {
        puzzles,
        games,
        positions,
        distinct,
    })
}

/// Writes the puzzles, one JSON object a line.
pub fn write(path: &Path, puzzles: &[Puzzle]) -> Result<(), String> {
    let mut text = String::new();
    for p in puzzles {
        text.push_str(&serde_json::to_string(p).map_err(|e| e.to_string())?);
        text.push('\n');
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The default file name: `puzzles-nine-fly.jsonl`.
pub fn file_name(rules: Rules) -> String {
    let fly = if rules.flying { "fly" } else { "nofly" };
    format!("puzzles-{}-{fly}.jsonl", rules.variant.name())
}

/// `mill-tb puzzles`: opens the tables, makes the puzzles, writes them and prints a summary.
pub fn run(dir: &Path, out: &Path, opts: &Options) -> Result<(), String> {
    if !dir.is_dir() {
        return Err(format!("{}: no such table directory", dir.display()));
    }
    let tb = Tablebase::open(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if tb.snapshot(opts.rules).is_empty() {
        return Err(format!(
            "{}: no moving-phase tables of {} (flying {}); make them with `mill-tb generate`",
            dir.display(),
            opts.rules.variant.name(),
            opts.rules.flying
        ));
    }
    let t = std::time::Instant::now();
    let r = make(&tb, opts)?;
    write(out, &r.puzzles)?;
    let count = |f: &dyn Fn(&Puzzle) -> bool| r.puzzles.iter().filter(|p| f(p)).count();
    println!(
        "{} puzzles from {} games ({} positions, {} distinct) in {:.1} s: {} win, {} draw; easy {}, medium {}, hard {}; written to {}",
        r.puzzles.len(),
        r.games,
        r.positions,
        r.distinct,
        t.elapsed().as_secs_f64(),
        count(&|p| p.value == "win"),
        count(&|p| p.value == "draw"),
        count(&|p| p.grade == "easy"),
        count(&|p| p.grade == "medium"),
        count(&|p| p.grade == "hard"),
        out.display()
    );
    if tb.placing_count(opts.rules) == 0 {
        println!("(no placing-phase tables: only moving-phase positions could become puzzles)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades() {
        assert_eq!(grade(Wdl::Draw, 1, 4), "easy");
        assert_eq!(grade(Wdl::Draw, 6, 4), "medium");
        assert_eq!(grade(Wdl::Draw, 12, 4), "hard");
        // A mill at once among 53 failing moves is easy; a mill in 5 plies is not.
        assert_eq!(grade(Wdl::Win, 53, 1), "easy");
        assert_eq!(grade(Wdl::Win, 2, 5), "medium");
        assert_eq!(grade(Wdl::Win, 12, 5), "hard");
        assert_eq!(grade(Wdl::Win, 2, 9), "hard");
    }

    #[test]
    fn symmetric_positions_share_a_class() {
        let rules = Rules::default();
        let a = Position::from_fen("W../.../.../B....B/.../W../... w 2 2 0 8", rules).unwrap();
        let b = Position::from_fen("..W/.../.../B....B/.../..W/... w 2 2 0 8", rules).unwrap();
        assert_eq!(class_key(&a), class_key(&b));
    }
}
