//! `mill-match` end to end: real matches between engine processes (the test engine, the
//! broken-engine script, the real engine when it speaks the protocol) and built-in players,
//! with every recorded game replayed through the library.

mod common;
use common::*;

#[test]
fn round_robin_records_replay() {
    let d = scratch("rr");
    let jsonl = d.join("games.jsonl");
    let pgn = d.join("games.pgn");
    let (out, err) = run_ok(
        MATCH,
        &args(&[
            "--engine",
            &format!("cmd={TESTENGINE}"),
            "name=te",
            "arg=--seed",
            "arg=3",
            "--engine",
            "builtin=random",
            "--engine",
            "builtin=greedy",
            "--depth",
            "1",
            "--games",
            "4",
            "--random-opening",
            "4",
            "--seed",
            "5",
            "--concurrency",
            "2",
            "--jsonl",
            jsonl.to_str().unwrap(),
            "--pgn",
            pgn.to_str().unwrap(),
        ]),
    );
    let recs = records(&jsonl);
    assert_eq!(recs.len(), 12);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.game, i + 1);
        assert_eq!(r.seed, 5);
        assert_eq!(r.variant, "nine");
        assert!(r.flying);
        assert_ne!(r.fen, millstone::Position::new(Default::default()).to_fen());
        assert!(!r.reason.is_empty());
    }
    // The test engine reports scores; the built-ins do not.
    let te_white = recs.iter().find(|r| r.white == "te").unwrap();
    assert_eq!(te_white.scores[0].as_deref(), Some("cp 0"));
    let pgn_text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(pgn_text.matches("[Event ").count(), 12);
    assert!(pgn_text.contains("[FEN \""));
    assert!(pgn_text.contains("[Seed \"5\"]"));
    assert!(out.contains("rank"), "{out}");
    for name in ["te", "random", "greedy"] {
        assert!(out.contains(name), "{out}");
    }
    assert!(
        err.lines().filter(|l| l.starts_with("[")).count() >= 12,
        "{err}"
    );
    assert!(err.contains("[12/12]"), "{err}");
}

fn fault_match(mode: &str, extra: &[&str]) -> Vec<millstone_tools::record::GameRecord> {
    let d = scratch(&format!("fault-{mode}-{}", extra.len()));
    let jsonl = d.join("games.jsonl");
    let mut a = args(&[
        "--engine",
        &format!("cmd={TESTENGINE}"),
        "name=te",
        "--engine",
        &format!("cmd={}", broken()),
        &format!("arg={mode}"),
        "name=broken",
        "--games",
        "2",
        "--stall-timeout",
        "400",
        "--jsonl",
        jsonl.to_str().unwrap(),
        "-q",
    ]);
    a.extend(args(extra));
    let (out, _) = run_ok(MATCH, &a);
    assert!(out.contains("W/D/L 2/0/0"), "{mode}: {out}");
    let recs = records(&jsonl);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        let broken_white = r.white == "broken";
        assert_eq!(r.result, if broken_white { "0-1" } else { "1-0" }, "{r:?}");
    }
    recs
}

#[test]
fn faults_lose_with_the_right_reason() {
    for (mode, reason) in [
        ("crash", "crash"),
        ("exit", "crash"),
        ("stall", "stall"),
        ("nouci", "stall"),
        ("illegal", "illegal"),
        ("garbage", "illegal"),
    ] {
        let recs = fault_match(mode, &["--depth", "2"]);
        for r in &recs {
            assert_eq!(r.reason, reason, "{mode}: {r:?}");
            assert!(r.detail.starts_with("broken "), "{}", r.detail);
        }
        if mode == "illegal" {
            assert_eq!(recs[0].illegal_move.as_deref(), Some("a1-d1"));
        }
    }
    // With a clock, not answering is a loss on time.
    for r in fault_match("stall", &["--tc", "0.2+0.01", "--timemargin", "50"]) {
        assert_eq!(r.reason, "timeout", "{r:?}");
    }
    for r in fault_match("stall", &["--movetime", "100"]) {
        assert_eq!(r.reason, "timeout", "{r:?}");
    }
}

#[test]
fn crashed_engines_are_restarted() {
    let d = scratch("restart");
    let jsonl = d.join("games.jsonl");
    run_ok(
        MATCH,
        &args(&[
            "--engine",
            &format!("cmd={TESTENGINE}"),
            "arg=--crash-at-ply",
            "arg=5",
            "name=crashy",
            "--engine",
            "builtin=greedy",
            "--depth",
            "1",
            "--games",
            "4",
            "--jsonl",
            jsonl.to_str().unwrap(),
            "-q",
        ]),
    );
    let recs = records(&jsonl);
    assert_eq!(recs.len(), 4);
    for r in &recs {
        // Every game got a fresh process that played until ply 5.
        assert_eq!(r.reason, "crash", "{r:?}");
        assert!(r.moves.len() >= 5, "{r:?}");
    }
}

#[test]
fn clock_games_run_without_timeouts() {
    let d = scratch("clock");
    let jsonl = d.join("games.jsonl");
    run_ok(
        MATCH,
        &args(&[
            "--engine",
            &format!("cmd={TESTENGINE}"),
            "arg=--search",
            "name=searcher",
            "--engine",
            &format!("cmd={TESTENGINE}"),
            "name=random",
            "option.Seed=7",
            "--tc",
            "5+0.05",
            "--games",
            "2",
            "--variant",
            "twelve",
            "--no-flying",
            "--max-plies",
            "60",
            "--jsonl",
            jsonl.to_str().unwrap(),
            "-q",
        ]),
    );
    for r in records(&jsonl) {
        assert_eq!(r.variant, "twelve");
        assert!(!r.flying);
        assert!(r.moves.len() <= 60);
        assert!(!["timeout", "stall", "crash", "illegal"].contains(&r.reason.as_str()));
        assert_eq!(r.times_ms.len(), r.moves.len());
    }
}

fn seeded_match(seed: &str, tag: &str) -> Vec<millstone_tools::record::GameRecord> {
    let d = scratch(&format!("seeded-{tag}"));
    let jsonl = d.join("games.jsonl");
    run_ok(
        MATCH,
        &args(&[
            "--engine",
            &format!("cmd={TESTENGINE}"),
            "arg=--search",
            "name=search",
            "--engine",
            &format!("cmd={TESTENGINE}"),
            "name=random",
            "--engine",
            "builtin=greedy",
            "--gauntlet",
            "--depth",
            "2",
            "--games",
            "4",
            "--random-opening",
            "6",
            "--seed",
            seed,
            "--concurrency",
            "2",
            "--adjudicate-draw-plies",
            "40",
            "--jsonl",
            jsonl.to_str().unwrap(),
            "-q",
        ]),
    );
    records(&jsonl)
}

#[test]
fn seeded_matches_are_reproducible() {
    let a = seeded_match("42", "a");
    let b = seeded_match("42", "b");
    let c = seeded_match("43", "c");
    assert_eq!(a.len(), 8);
    assert!(a.iter().all(|r| r.white == "search" || r.black == "search"));
    let key = |r: &millstone_tools::record::GameRecord| {
        (
            r.fen.clone(),
            r.moves.clone(),
            r.result.clone(),
            r.reason.clone(),
        )
    };
    let ka: Vec<_> = a.iter().map(key).collect();
    let kb: Vec<_> = b.iter().map(key).collect();
    assert_eq!(ka, kb, "same seed, same games");
    // Pairs share their opening; another seed gives other openings.
    assert_eq!(a[0].fen, a[1].fen);
    assert_ne!(a[0].fen, c[0].fen);
}

#[test]
fn sprt_stops_and_greedy_beats_random() {
    let d = scratch("sprt");
    let jsonl = d.join("games.jsonl");
    let (out, err) = run_ok(
        MATCH,
        &args(&[
            "--engine",
            "builtin=greedy",
            "--engine",
            "builtin=random",
            "--depth",
            "1",
            "--games",
            "1000",
            "--random-opening",
            "2",
            "--seed",
            "1",
            "--sprt",
            "elo0=0",
            "elo1=50",
            "alpha=0.05",
            "beta=0.05",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ]),
    );
    let recs = records(&jsonl);
    assert!(recs.len() < 1000, "SPRT did not stop: {} games", recs.len());
    assert!(recs.len() >= 20, "SPRT stopped before --sprt-min-games");
    assert!(out.contains("H1 accepted"), "{out}");
    assert!(err.contains("SPRT decided"), "{err}");
    let greedy_points: f64 = recs
        .iter()
        .map(|r| match (r.result.as_str(), r.white == "greedy") {
            ("1-0", true) | ("0-1", false) => 1.0,
            ("1/2-1/2", _) => 0.5,
            _ => 0.0,
        })
        .sum();
    assert!(
        greedy_points / recs.len() as f64 > 0.75,
        "greedy scored {greedy_points} of {}",
        recs.len()
    );
}

#[test]
fn greedy_clearly_beats_random_over_many_games() {
    let (out, _) = run_ok(
        MATCH,
        &args(&[
            "--engine",
            "builtin=random",
            "--engine",
            "builtin=greedy",
            "--depth",
            "1",
            "--games",
            "100",
            "--random-opening",
            "2",
            "--seed",
            "8",
            "--concurrency",
            "2",
            "-q",
        ]),
    );
    let line = out
        .lines()
        .find(|l| l.starts_with("random vs greedy"))
        .unwrap();
    let score: f64 = line
        .split("score ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(score < 0.2, "random scored {score} against greedy: {line}");
}

#[test]
fn bad_opening_books_and_arguments_are_reported() {
    let d = scratch("book");
    let book = d.join("book.txt");
    std::fs::write(
        &book,
        "# openings\n\nmoves d6 a1\nmoves d6 d6\n.../.../.../....../.../.../... w 9 9 0 1\nnonsense\n",
    )
    .unwrap();
    let base = [
        "--engine",
        "builtin=random",
        "--engine",
        "builtin=greedy",
        "--depth",
        "1",
    ];
    let mut a = args(&base);
    a.extend(args(&["--openings", book.to_str().unwrap()]));
    let out = run(MATCH, &a);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("book.txt:4:"), "{err}");
    assert!(err.contains("book.txt:6:"), "{err}");
    assert!(!err.contains("book.txt:3:"), "{err}");
    // A good book, in random order.
    std::fs::write(&book, "# ok\nmoves d6 a1\n\nmoves g7\n").unwrap();
    let jsonl = d.join("g.jsonl");
    let mut a = args(&base);
    a.extend(args(&[
        "--openings",
        book.to_str().unwrap(),
        "--order",
        "random",
        "--seed",
        "3",
        "--games",
        "4",
        "-q",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]));
    run_ok(MATCH, &a);
    let recs = records(&jsonl);
    let mut idx: Vec<usize> = recs.iter().map(|r| r.opening_index).collect();
    idx.sort();
    assert_eq!(idx, vec![0, 0, 1, 1]);
    // One engine, or no time control: a clear error.
    let out = run(
        MATCH,
        &args(&["--engine", "builtin=random", "--depth", "1"]),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("two or more engines"));
    let out = run(
        MATCH,
        &args(&["--engine", "builtin=random", "--engine", "builtin=greedy"]),
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("time control"));
}

#[test]
fn help_is_there() {
    for bin in [MATCH, SELFPLAY, ANALYZE, TESTENGINE] {
        let (out, _) = run_ok(bin, &args(&["--help"]));
        assert!(out.contains("Usage"), "{bin}: {out}");
    }
}

#[test]
fn real_engine_plays_a_match() {
    let Some(exe) = real_engine() else {
        return;
    };
    let d = scratch("real");
    let jsonl = d.join("games.jsonl");
    run_ok(
        MATCH,
        &args(&[
            "--engine",
            &format!("cmd={}", exe.display()),
            "name=millstone",
            "option.Hash=8",
            "--engine",
            "builtin=greedy",
            "--depth",
            "3",
            "--games",
            "2",
            "--random-opening",
            "2",
            "--seed",
            "1",
            "--max-plies",
            "200",
            "--jsonl",
            jsonl.to_str().unwrap(),
            "-q",
        ]),
    );
    let recs = records(&jsonl);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert!(
            !["crash", "stall", "illegal", "timeout"].contains(&r.reason.as_str()),
            "{r:?}"
        );
    }
}
