//! `mill-tb probe`: the tables' verdict on one position and on each of its moves; a placing
//! position goes to [`crate::placing::probe`].

use millstone::tablebase::{Tablebase, Value, Wdl};
use millstone::{Position, Rules};
use std::path::Path;

/// A value with its distance, and the 100-ply rule's draws named as such.
fn describe(wdl: Wdl, plies: u16) -> String {
    match wdl {
        Wdl::Win => format!("win, next mill in {plies} plies"),
        Wdl::Loss => format!("loss, next mill in {plies} plies"),
        Wdl::Draw => "draw".to_string(),
        Wdl::CursedWin => format!("draw by the 100-ply rule (cursed win, key {plies})"),
        Wdl::BlessedLoss => format!("draw by the 100-ply rule (blessed loss, key {plies})"),
    }
}

/// `mill-tb probe`: the position's verdict and every move's value; a missing or damaged file
/// is reported as such rather than as a position outside the tables.
pub fn probe(dir: &Path, fen: &str, rules: Rules) -> Result<(), String> {
    let pos = Position::from_fen(fen, rules).map_err(|e| e.to_string())?;
    if !pos.is_moving_phase() {
        return crate::placing::probe(dir, &pos);
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

/// A value in the word the other commands print, the 100-ply rule's draws as draws.
pub(crate) fn wdl_word(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "win",
        Wdl::Loss => "loss",
        _ => "draw",
    }
}
