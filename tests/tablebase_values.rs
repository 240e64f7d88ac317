//! `values`: every legal move's exact result from the tables, driven through the binary. Small
//! tables of nine (moving phase up to 8 pieces, placing sectors up to 8 pieces of material) are
//! made here; the engine's lines must equal `Tablebase::probe_root` (what `mill-tb probe`
//! reads) move for move, and every position without a table value says why.

mod engine_process;
mod small_tables;

use engine_process::Engine;
use millstone::tablebase::{Tablebase, Wdl};
use millstone::{Position, Rules};
use std::path::PathBuf;

const MATERIAL: u8 = 8;

fn tables(name: &str) -> PathBuf {
    small_tables::make(Rules::default(), MATERIAL, &format!("values-{name}"))
}

/// The `values` answer: the `value` lines, then the last line.
fn values(e: &mut Engine) -> (Vec<String>, String) {
    e.send("values");
    let mut lines = e.until("values ");
    let last = lines.pop().unwrap();
    (lines, last)
}

/// The lines the tables' root probe gives for `fen`.
fn expected(tb: &Tablebase, fen: &str) -> Vec<String> {
    let pos = Position::from_fen(fen, Rules::default()).unwrap();
    let root = tb.probe_root(&pos).expect("covered");
    assert_eq!(root.moves.len(), pos.legal_moves().len());
    root.moves
        .iter()
        .map(|(m, p)| {
            let (w, d) = match p.wdl.real() {
                Wdl::Win => ("win", p.plies_to_mill),
                Wdl::Loss => ("loss", p.plies_to_mill),
                _ => ("draw", 0),
            };
            if d > 0 {
                format!("value {m} {w} plies {d}")
            } else {
                format!("value {m} {w}")
            }
        })
        .collect()
}

#[test]
fn values_come_from_the_tables_and_say_why_when_they_cannot() {
    let dir = tables("all");
    let tb = Tablebase::open(&dir).unwrap();
    let mut e = Engine::start();

    // No tables at all.
    let (l, last) = values(&mut e);
    assert!(l.is_empty(), "{l:?}");
    assert_eq!(last, "values none notables");

    e.send(&format!("setoption name TablePath value {}", dir.display()));
    e.sync();

    // The start is far outside these small tables.
    let (l, last) = values(&mut e);
    assert!(l.is_empty(), "{l:?}");
    assert_eq!(last, "values none uncovered");

    // A placing position of the placing tables: the last four placements.
    let placing_fen = "W../.../.../B....B/.../W../... w 2 2 0 8";
    e.send(&format!("position fen {placing_fen}"));
    let (l, last) = values(&mut e);
    let want = expected(&tb, placing_fen);
    assert_eq!(l, want);
    assert_eq!(last, format!("values {} moves", want.len()));

    // A moving position of 3 v 3 with flying: distances where the tables give one, and the
    // moves that close a mill carry their removal.
    let moving_fen = "W.W/.../.../B....B/.../W../..B w 0 0 0 20";
    e.send(&format!("position fen {moving_fen}"));
    let (l, last) = values(&mut e);
    let want = expected(&tb, moving_fen);
    assert_eq!(l, want);
    assert_eq!(last, format!("values {} moves", want.len()));
    assert!(l.iter().any(|v| v.contains(" plies ")), "{l:?}");
    assert!(l.iter().any(|v| v.contains('x')), "{l:?}");

    // The same position after moves: the game's moves are played first.
    e.send(&format!("position fen {moving_fen} moves a7-d7"));
    let (l, _) = values(&mut e);
    let pos_after = {
        let mut p = Position::from_fen(moving_fen, Rules::default()).unwrap();
        let m = p
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.to_string() == "a7-d7")
            .unwrap();
        p.make(m);
        p
    };
    assert_eq!(l, expected(&tb, &pos_after.to_fen()));

    // `values expected`: the same moves and values, each with the expected score the library's
    // opponent model gives it (the engine's built-in network evaluating), best value first and
    // the higher expectation first within one.
    e.send(&format!("position fen {placing_fen}"));
    e.send("values expected");
    let mut l = e.until("values ");
    let last = l.pop().unwrap();
    let plain = expected(&tb, placing_fen);
    assert_eq!(last, format!("values {} moves", plain.len()));
    let pos = Position::from_fen(placing_fen, Rules::default()).unwrap();
    let net = millstone::nnue::builtin(millstone::Rules::default());
    let judge = millstone::fallible::Judge::new(
        &tb,
        net.as_deref(),
        millstone::fallible::OpponentModel::default(),
    );
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut previous: Option<(String, f64)> = None;
    for (i, line) in l.iter().enumerate() {
        // The engine gives the model 200 ms: on a loaded machine the last moves may go
        // without a score, never the first.
        let Some((head, e_str)) = line.split_once(" expected ") else {
            assert!(i > 0 && plain.contains(line), "{line}");
            continue;
        };
        assert!(plain.contains(&head.to_string()), "{line}");
        let e: f64 = e_str.parse().unwrap();
        let m = *pos
            .legal_moves()
            .iter()
            .find(|m| head.split(' ').nth(1) == Some(&m.to_string()))
            .unwrap();
        let want = judge
            .expected_after(
                &pos,
                m,
                millstone::fallible::OpponentModel::DEFAULT_DEPTH,
                &never,
            )
            .unwrap();
        assert!((e - want).abs() < 0.0006, "{line}: {want}");
        let word = head.split(' ').nth(2).unwrap().to_string();
        if let Some((w, pe)) = &previous {
            assert!(*w != word || *pe >= e, "{l:?}");
        }
        previous = Some((word, e));
    }
    e.send("values expected please");
    let l = e.until("info string error");
    assert!(l.last().unwrap().contains("values"), "{l:?}");
    e.send(&format!("position fen {moving_fen} moves a7-d7"));

    // Bad input is one error line, and the engine goes on answering.
    e.send("values everything");
    let l = e.until("info string error");
    assert!(l.last().unwrap().contains("values"), "{l:?}");
    assert_eq!(e.query("p1turn"), "false");

    // While a search runs, `values` is answered at once and `stop` still ends the search.
    e.send("position startpos");
    e.send("go infinite");
    let (_, last) = values(&mut e);
    assert_eq!(last, "values none uncovered");
    e.send("stop");
    e.until("bestmove");
    e.send("quit");
    assert!(e.wait_exit(std::time::Duration::from_secs(5)).is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_finished_game_has_no_values() {
    let mut e = Engine::start();
    // White closes a mill and takes Black's third piece: Black, to move, has lost.
    e.send("position fen WW./.../.../B....B/.../W../..B w 0 0 0 20 moves b2-g7xa4");
    e.sync();
    assert_eq!(e.query("gameover"), "true");
    let (l, last) = values(&mut e);
    assert!(l.is_empty(), "{l:?}");
    assert_eq!(last, "values none gameover");
}
