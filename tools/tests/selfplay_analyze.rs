//! `mill-selfplay` and `mill-analyze` end to end.

mod common;
use common::*;
use millstone::{Game, Move, Position, Rules};
use serde_json::Value;

fn selfplay(extra: &[&str]) -> Vec<Value> {
    let mut a = args(&[
        "--games",
        "4",
        "--depth",
        "2",
        "--random-opening",
        "4",
        "--seed",
        "7",
        "--threads",
        "2",
        "--hash",
        "2",
        "--max-plies",
        "120",
        "-q",
    ]);
    a.extend(args(extra));
    let (out, err) = run_ok(SELFPLAY, &a);
    assert!(err.contains("4 games"), "{err}");
    out.lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

#[test]
fn selfplay_games_replay_and_repeat() {
    let a = selfplay(&[]);
    assert!(!a.is_empty());
    // Each game's positions follow from each other by the recorded moves.
    let rules = Rules::default();
    let mut games: std::collections::BTreeMap<u64, Vec<&Value>> = Default::default();
    for v in &a {
        games
            .entry(v["game"].as_u64().unwrap())
            .or_default()
            .push(v);
    }
    assert_eq!(games.len(), 4);
    for rows in games.values() {
        let mut game =
            Game::new(Position::from_fen(rows[0]["fen"].as_str().unwrap(), rules).unwrap());
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(r["ply"].as_u64().unwrap() as usize, i);
            assert_eq!(game.position().to_fen(), r["fen"].as_str().unwrap());
            let m: Move = r["move"].as_str().unwrap().parse().unwrap();
            game.play(m).unwrap();
            let res = r["result"].as_f64().unwrap();
            assert!([0.0, 0.5, 1.0].contains(&res));
            assert!(
                r["score"].as_str().unwrap().starts_with("cp ")
                    || r["score"].as_str().unwrap().starts_with("mate ")
            );
        }
        let last = rows.last().unwrap();
        match last["reason"].as_str().unwrap() {
            "maxplies" => assert_eq!(rows.len(), 120),
            reason => {
                let o = game.outcome().expect("the game ended by the rules");
                assert_eq!(o.reason().name(), reason);
                assert_eq!(o.result_str(), last["game_result"].as_str().unwrap());
            }
        }
    }
    // Fixed depth and seed: the same games again.
    assert_eq!(a, selfplay(&[]));
    // Randomness in move choice still gives legal, seeded games.
    let t1 = selfplay(&["--temperature", "1.0", "--random-moves", "2"]);
    let t2 = selfplay(&["--temperature", "1.0", "--random-moves", "2"]);
    assert_eq!(t1, t2);
    assert!(t1.iter().any(|v| v["random"].as_bool().unwrap()));
}

#[test]
fn analyze_text_and_jsonl() {
    let d = scratch("analyze");
    let file = d.join("positions.txt");
    let start = Position::new(Rules::default()).to_fen();
    std::fs::write(
        &file,
        format!(
            "# positions\n{start}\n\nmoves d6 a1 d7\nfen {start} moves d6\nmoves d6 d6\nWW./.../.../....../.../.../BB. w 7 7 0 3\nrubbish here\n"
        ),
    )
    .unwrap();
    let out = run(
        ANALYZE,
        &args(&[
            "--file",
            file.to_str().unwrap(),
            "--depth",
            "3",
            "--multipv",
            "2",
            "--format",
            "jsonl",
        ]),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(":6:"), "{stderr}");
    assert!(stderr.contains(":8:"), "{stderr}");
    assert!(stderr.contains("2 line(s) failed"), "{stderr}");
    let v: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v.len(), 4);
    assert_eq!(v[0]["line"], 2);
    for p in &v {
        let lines = p["lines"].as_array().unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["move"], p["bestmove"]);
        let wdl: u64 = lines[0]["wdl"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum();
        assert_eq!(wdl, 1000);
        assert_eq!(lines[0]["depth"], 3);
    }
    // White closes the mill a7 d7 g7 at once.
    assert!(
        v[3]["bestmove"].as_str().unwrap().starts_with("g7x"),
        "{}",
        v[3]
    );
    // Text from stdin.
    let mut child = std::process::Command::new(ANALYZE)
        .args(["--depth", "2"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"moves d6 a1\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("bestmove "), "{text}");
    assert!(text.contains("wdl "), "{text}");
}

/// With tables, a placing-phase position shows the solver's proven value and the moves that
/// keep it (text and JSONL); the library's solver agrees.
#[test]
fn analyze_shows_proven_values_in_the_placing_phase() {
    use millstone::solve::Solver;
    use millstone::tablebase::{Tablebase, Wdl};
    let d = scratch("analyze-proven");
    let ds = d.to_str().unwrap();
    run_ok(
        env!("CARGO_BIN_EXE_mill-tb"),
        &args(&["generate", "--max-pieces", "7", "--dir", ds]),
    );
    let fen = "W../.../.../B....B/.../.../... w 2 2 0 8";
    let file = d.join("p.txt");
    std::fs::write(&file, format!("{fen}\n")).unwrap();
    let rules = Rules::default();
    let tb = Tablebase::open(&d).unwrap();
    let (value, keep) = Solver::new(&tb, rules, 16)
        .unwrap()
        .value_keeping(&Position::from_fen(fen, rules).unwrap())
        .unwrap();
    let word = match value {
        Wdl::Win => "win",
        Wdl::Loss => "loss",
        _ => "draw",
    };
    let f = file.to_str().unwrap();
    let (text, _) = run_ok(
        ANALYZE,
        &args(&["--file", f, "--depth", "2", "--tables", ds]),
    );
    let want = format!(
        "proven (solver): {word}, {} of {} moves keep it:",
        keep.len(),
        Position::from_fen(fen, rules).unwrap().legal_moves().len()
    );
    assert!(text.contains(&want), "{want}\n{text}");
    let (json, _) = run_ok(
        ANALYZE,
        &args(&[
            "--file", f, "--depth", "2", "--tables", ds, "--format", "jsonl",
        ]),
    );
    let v: Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(v["proven"]["value"], word);
    let kept: Vec<String> = keep.iter().map(|m| m.to_string()).collect();
    assert_eq!(v["proven"]["keeping"], serde_json::json!(kept));
    // The engine searched only keeping moves: its best move is one of them.
    assert!(
        kept.contains(&v["bestmove"].as_str().unwrap().to_string()),
        "{v}"
    );

    // With the placing tables a position's value and keeping moves come from them, equal to
    // the solver's, with every move's value.
    run_ok(
        env!("CARGO_BIN_EXE_mill-tb"),
        &args(&["generate", "--max-pieces", "8", "--placing", "--dir", ds]),
    );
    let fen = "W../.../.../B....B/.../W../... w 2 2 0 8";
    std::fs::write(&file, format!("{fen}\n")).unwrap();
    let pos = Position::from_fen(fen, rules).unwrap();
    let tb = Tablebase::open(&d).unwrap();
    let (value, keep) = Solver::new(&tb, rules, 16)
        .unwrap()
        .value_keeping(&pos)
        .unwrap();
    let word = match value {
        Wdl::Win => "win",
        Wdl::Loss => "loss",
        _ => "draw",
    };
    let (json, _) = run_ok(
        ANALYZE,
        &args(&[
            "--file", f, "--depth", "2", "--tables", ds, "--format", "jsonl",
        ]),
    );
    let v: Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(v["proven"]["source"], "tables", "{v}");
    assert_eq!(v["proven"]["value"], word);
    let mut from_tables: Vec<String> = v["proven"]["keeping"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    let mut kept: Vec<String> = keep.iter().map(|m| m.to_string()).collect();
    from_tables.sort();
    kept.sort();
    assert_eq!(from_tables, kept);
    let values = v["proven"]["values"].as_array().unwrap();
    assert_eq!(values.len(), pos.legal_moves().len(), "{v}");
    let keeping_values = values.iter().filter(|mv| mv[1] == word).count();
    assert_eq!(keeping_values, kept.len(), "{v}");
    assert!(
        v["table"].as_str().unwrap().contains("placing tables"),
        "{v}"
    );
}
