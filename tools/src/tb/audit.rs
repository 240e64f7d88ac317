//! `mill-tb audit`: the games of a match or self-play file held against the tables, to find
//! where an engine lost what it had: a level position at the start of the moving phase that it
//! lost, and with `--placing` each placing move that gave away a proven value.

use super::probe::wdl_word;
use crate::progress;
use crate::record::GameRecord;
use millstone::solve::Solver;
use millstone::tablebase::{Tablebase, Wdl};
use millstone::{Color, Game, Position, Rules, Variant};
use std::path::Path;

/// `mill-tb audit`: the placing phase's audit first when asked for, then the moving phase's;
/// both always run, so that one report holds both, and the placing error comes first.
pub fn audit(
    dir: &Path,
    jsonl: &Path,
    player: Option<&str>,
    verbose: bool,
    placing: bool,
    hash_mb: usize,
    book: Option<&Path>,
) -> Result<(), String> {
    let placing = if placing {
        audit_placing(dir, jsonl, player, hash_mb, book, verbose)
    } else {
        Ok(())
    };
    let moving = audit_moving(dir, jsonl, player, verbose);
    placing.and(moving)
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

/// Compares each game's result with the tables' verdict where its moving phase began.
fn audit_moving(
    dir: &Path,
    jsonl: &Path,
    player: Option<&str>,
    verbose: bool,
) -> Result<(), String> {
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
