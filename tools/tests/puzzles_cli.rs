//! `mill-tb puzzles` through the real binary, on tables up to 8 pieces (moving and placing
//! phase): self-play games from a late placing position and from a moving position, and the
//! games of a record file. Every puzzle written is checked independently against the tables:
//! its value, exactly one keeping move (the one written), a legal line, and failing moves that
//! fail with legal replies. Bad input is refused with a message, never a panic.

mod common;
use common::{args, run, run_ok, scratch};
use millstone::tablebase::{Tablebase, Wdl};
use millstone::{Game, Move, Position, Rules};
use millstone_tools::puzzles::Puzzle;
use std::collections::HashSet;

const TB: &str = env!("CARGO_BIN_EXE_mill-tb");
/// Placing: two pieces in hand each (the 8-piece tables hold every continuation).
const PLACING: &str = "W../.../.../B....B/.../W../... w 2 2 0 8";
/// Moving: four white pieces against three black ones.
const MOVING: &str = "W.W/.../.B./B....W/.../.W./..B w 0 0 0 30";

fn read(path: &std::path::Path) -> Vec<Puzzle> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The checks of one puzzle against the tables, made here without the tool's code.
fn check(tb: &Tablebase, p: &Puzzle) {
    let rules = Rules::default();
    let pos = Position::from_fen(&p.fen, rules).unwrap();
    assert_eq!(pos.side_to_move().to_string(), p.side, "{p:?}");
    let value = tb
        .wdl(&pos)
        .unwrap_or_else(|| panic!("not in the tables: {p:?}"));
    let want = if p.value == "win" {
        Wdl::Win
    } else {
        Wdl::Draw
    };
    assert_eq!(value, want, "{p:?}");
    let legal = pos.legal_moves();
    assert_eq!(legal.len(), p.legal, "{p:?}");
    let mut keeping = Vec::new();
    for &m in legal.iter() {
        let mut child = pos;
        child.make(m);
        let v = tb.wdl(&child).unwrap().flip();
        if v == value {
            keeping.push(m.to_string());
        }
    }
    assert_eq!(keeping, vec![p.solution.clone()], "{p:?}");
    assert_eq!(p.fails, p.legal - 1);
    assert_eq!(p.refutations.len(), p.fails);
    // The line plays legally from the position, the solution first.
    assert_eq!(p.line.first(), Some(&p.solution));
    let mut game = Game::new(pos);
    for m in &p.line {
        let mv: Move = m.parse().unwrap();
        game.play(mv)
            .unwrap_or_else(|e| panic!("line move {m}: {e}: {p:?}"));
    }
    // Each failing move fails, and its reply is legal after it and keeps the opponent's gain.
    for r in &p.refutations {
        let mv: Move = r.mv.parse().unwrap();
        assert!(legal.contains(mv), "{r:?}");
        let mut child = pos;
        child.make(mv);
        let v = tb.wdl(&child).unwrap().flip();
        assert!(v < value, "{r:?} does not fail: {p:?}");
        if let Some(reply) = &r.reply {
            let rm: Move = reply.parse().unwrap();
            assert!(child.legal_moves().contains(rm), "{r:?}");
            let mut after = child;
            after.make(rm);
            assert_eq!(tb.wdl(&after).unwrap(), v, "{r:?} reply gives back: {p:?}");
        }
    }
    assert!(["easy", "medium", "hard"].contains(&p.grade.as_str()));
}

#[test]
fn puzzles_from_self_play_and_records() {
    let dir = scratch("puzzles");
    let d = dir.to_str().unwrap();
    run_ok(
        TB,
        &args(&["generate", "--max-pieces", "8", "--placing", "--dir", d]),
    );
    let tb = Tablebase::open(&dir).unwrap();

    // A draw two plies before the 100-ply rule (a self-play game once reached it): the line stops
    // where the rule ends the game, so that a game accepts all of it.
    let late = ".../.WB/.../.....W/W../.BB/.W. w 0 0 98 79";
    let late = Position::from_fen(late, Rules::default()).unwrap();
    let p = millstone_tools::puzzles::puzzle_at(&tb, &late, 1, "late").expect("a puzzle");
    assert_eq!(p.line.len(), 2, "{p:?}");
    check(&tb, &p);

    let out = dir.join("p.jsonl");
    let o = out.to_str().unwrap();
    let (summary, _) = run_ok(
        TB,
        &args(&[
            "puzzles",
            "--dir",
            d,
            "--fen",
            PLACING,
            "--games",
            "6",
            "--movetime",
            "5",
            "--random-plies",
            "2",
            "--seed",
            "7",
            "--out",
            o,
        ]),
    );
    // Placing positions of 8 pieces rarely have a single keeping move (the complete tables
    // give many: docs/gui.md); whatever is written is checked.
    assert!(summary.contains("puzzles from 6 games"), "{summary}");
    let placing = read(&out);
    let mut fens = HashSet::new();
    for (i, p) in placing.iter().enumerate() {
        assert_eq!(p.id, i + 1);
        assert!(fens.insert(p.fen.clone()), "twice: {}", p.fen);
        check(&tb, p);
    }

    // From a moving position, with --min-fail: wins have their distance and a line to the mill.
    let (summary, _) = run_ok(
        TB,
        &args(&[
            "puzzles",
            "--dir",
            d,
            "--fen",
            MOVING,
            "--games",
            "6",
            "--movetime",
            "5",
            "--random-plies",
            "3",
            "--min-fail",
            "2",
            "--out",
            o,
        ]),
    );
    let moving = read(&out);
    assert!(!moving.is_empty(), "{summary}");
    for p in &moving {
        check(&tb, p);
        assert!(p.fails >= 2);
        if p.value == "win" {
            // The line ends with the winner's move: its mill, or the blockade.
            assert!(p.plies.is_some(), "a moving win has its distance: {p:?}");
            assert!(p.line.len() % 2 == 1, "{p:?}");
        }
    }

    // A record file (as mill-match writes it, fields it does not need left out) is walked too.
    let records = dir.join("games.jsonl");
    let line = &moving[0].line;
    std::fs::write(
        &records,
        format!(
            "{}\n\n{}\n",
            serde_json::json!({"variant": "nine", "flying": true, "fen": moving[0].fen, "moves": line}),
            serde_json::json!({"fen": moving[moving.len() - 1].fen}),
        ),
    )
    .unwrap();
    let (summary, _) = run_ok(
        TB,
        &args(&[
            "puzzles",
            "--dir",
            d,
            "--games",
            "0",
            "--games-file",
            records.to_str().unwrap(),
            "--out",
            o,
        ]),
    );
    let from_file = read(&out);
    assert!(
        from_file.iter().any(|p| p.fen == moving[0].fen),
        "{summary}"
    );
    let last = &moving[moving.len() - 1].fen;
    assert!(from_file.iter().any(|p| &p.fen == last), "{summary}");
    for p in &from_file {
        check(&tb, p);
    }

    // Bad input: a clear message and exit code 1, no panic.
    let refused = |a: &[&str], want: &str| {
        let r = run(TB, &args(a));
        let err = String::from_utf8_lossy(&r.stderr).into_owned();
        assert_eq!(r.status.code(), Some(1), "{a:?}: {err}");
        assert!(err.contains(want), "{a:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    let junk = dir.join("junk.jsonl");
    std::fs::write(&junk, "{\"fen\": \"W../... w 2 2 0 8\"}\nnot json\n").unwrap();
    let j = junk.to_str().unwrap();
    refused(
        &["puzzles", "--dir", d, "--games", "0", "--games-file", j],
        "junk.jsonl:1",
    );
    std::fs::write(&junk, "\nnot json\n").unwrap();
    refused(
        &["puzzles", "--dir", d, "--games", "0", "--games-file", j],
        "junk.jsonl:2: not a JSON game record",
    );
    let empty = scratch("puzzles-empty");
    refused(
        &["puzzles", "--dir", empty.to_str().unwrap(), "--games", "1"],
        "no moving-phase tables",
    );
    refused(
        &["puzzles", "--dir", "/nonexistent/tables", "--games", "1"],
        "no such table directory",
    );
    refused(
        &["puzzles", "--dir", d, "--fen", "W../... w", "--games", "1"],
        "--fen",
    );
}
