//! The answer a position must get, computed from the library alone (`Tablebase::probe`, `wdl`
//! and `probe_root`, none of [`answer`](crate::answer)'s shortcuts): what the API's tests and
//! `mill-serve-load --agree` compare the server's answers with.

use crate::answer::MAINLINE_CAP;
use millstone::tablebase::{Tablebase, Wdl};
use millstone::Position;
use serde_json::Value;

/// The fields of an answer that [`expected`] gives and a comparison checks.
pub const COMPARED: [&str; 6] = ["category", "plies", "moves", "mainline", "phase", "fen"];

/// The API's name of a result.
pub fn category(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
        Wdl::CursedWin => "cursed-win",
        Wdl::BlessedLoss => "blessed-loss",
    }
}

/// The answer's [`COMPARED`] fields for a position whose every move the tables value; `None`
/// where some move leads outside them (a partial set answers those moves `unknown`).
pub fn expected(tb: &Tablebase, pos: &Position) -> Option<Value> {
    let moving = pos.is_moving_phase();
    let (cat, plies) = if pos.outcome().is_some() || !moving {
        (tb.wdl(pos).map(category), None)
    } else {
        let p = tb.probe(pos);
        (
            p.map(|p| category(p.wdl)),
            p.filter(|p| matches!(p.wdl, Wdl::Win | Wdl::Loss))
                .map(|p| p.plies_to_mill),
        )
    };
    let mut moves = Vec::new();
    let mut line = Vec::new();
    if pos.outcome().is_none() {
        let root = tb.probe_root(pos)?;
        for (m, p) in &root.moves {
            let mut c = *pos;
            c.make(*m);
            let plies =
                (moving && matches!(p.wdl, Wdl::Win | Wdl::Loss)).then_some(p.plies_to_mill);
            moves.push(serde_json::json!({
                "move": m.to_string(), "category": category(p.wdl), "plies": plies, "fen": c.to_fen()
            }));
        }
        // Best play: probe_root's best move, ply after ply, to a mill, the end or the cap.
        let mut p = *pos;
        let mut best = Some(root.best);
        while let Some(m) = best {
            line.push(m.to_string());
            p.make(m);
            if m.removal().is_some() || line.len() >= MAINLINE_CAP || p.outcome().is_some() {
                break;
            }
            best = tb.probe_root(&p).map(|r| r.best);
        }
    }
    Some(serde_json::json!({
        "category": cat.unwrap_or("unknown"), "plies": plies, "moves": moves, "mainline": line,
        "phase": if moving { "moving" } else { "placing" }, "fen": pos.to_fen(),
    }))
}

/// The first of [`COMPARED`] where `got` differs from `want`, if any.
pub fn first_difference(got: &Value, want: &Value) -> Option<&'static str> {
    COMPARED.into_iter().find(|&k| got[k] != want[k])
}
