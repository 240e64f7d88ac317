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

/// A test engine that logs what it receives to `log`.
fn logging_engine(name: &str, seed: u64, think_ms: u64, log: &std::path::Path) -> Vec<String> {
    args(&[
        "--engine",
        &format!("cmd={TESTENGINE}"),
        &format!("name={name}"),
        &format!("arg=--seed={seed}"),
        &format!("arg=--think-ms={think_ms}"),
        &format!("arg=--log={}", log.display()),
    ])
}

/// What a pondering engine's log says about each ponder search: the game (start position
/// and moves before the predicted one), the predicted move, and the commands that followed
/// up to the next `go`-less command sequence.
struct PonderSearch {
    fen: String,
    before: Vec<String>,
    predicted: String,
    next: Vec<String>,
}

fn ponder_searches(log: &std::path::Path) -> Vec<PonderSearch> {
    let text = std::fs::read_to_string(log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !l.starts_with("go ponder") {
            continue;
        }
        let pos = lines[i - 1];
        let (head, moves) = pos
            .split_once(" moves ")
            .expect("a ponder position has moves");
        let fen = head.trim_start_matches("position fen ").to_string();
        let mut before: Vec<String> = moves.split_whitespace().map(String::from).collect();
        let predicted = before.pop().unwrap();
        let next = lines[i + 1..lines.len().min(i + 4)]
            .iter()
            .map(|s| s.to_string())
            .collect();
        out.push(PonderSearch {
            fen,
            before,
            predicted,
            next,
        });
    }
    out
}

/// Checks every ponder search of `log` against the games: `ponderhit` exactly when the
/// opponent played the predicted move, else `stop` and then (if the game went on) the real
/// position and a normal `go`. Returns (hits, misses).
fn check_ponder_flow(
    log: &std::path::Path,
    recs: &[millstone_tools::record::GameRecord],
) -> (usize, usize) {
    let (mut hits, mut misses) = (0, 0);
    for s in ponder_searches(log) {
        let rec = recs
            .iter()
            .find(|r| r.fen == s.fen && r.moves.starts_with(&s.before))
            .expect("the ponder search belongs to a game");
        let k = s.before.len();
        if rec.moves.len() == k + 1 {
            // The game ended with the opponent's move (by the rules or an adjudication):
            // stopped, whatever the prediction.
            assert_eq!(s.next[0], "stop", "{:?}", s.next);
            continue;
        }
        match rec.moves.get(k) {
            Some(actual) if *actual == s.predicted => {
                assert_eq!(s.next[0], "ponderhit", "{:?}", s.next);
                hits += 1;
            }
            Some(actual) => {
                assert_eq!(s.next[0], "stop", "{:?}", s.next);
                let pos = format!("moves {} {actual}", s.before.join(" "));
                assert!(s.next[1].ends_with(&pos), "{:?} after {pos}", s.next);
                assert!(s.next[2].starts_with("go wtime"), "{:?}", s.next);
                misses += 1;
            }
            // The game ended before the opponent moved (adjudication, or its fault).
            None => assert_eq!(s.next[0], "stop", "{:?}", s.next),
        }
    }
    (hits, misses)
}

fn ponder_match(tag: &str, seeds: [u64; 2], think: [u64; 2], extra: &[&str]) -> PonderRun {
    let d = scratch(&format!("ponder-{tag}"));
    let logs = [d.join("a.log"), d.join("b.log")];
    let jsonl = d.join("games.jsonl");
    let mut a = logging_engine("a", seeds[0], think[0], &logs[0]);
    a.extend(logging_engine("b", seeds[1], think[1], &logs[1]));
    a.extend(args(&[
        "--ponder",
        "--games",
        "2",
        "--random-opening",
        "2",
        "--seed",
        "1",
        "--jsonl",
        jsonl.to_str().unwrap(),
        "-q",
    ]));
    a.extend(args(extra));
    let (out, _) = run_ok(MATCH, &a);
    PonderRun {
        recs: records(&jsonl),
        logs,
        out,
    }
}

struct PonderRun {
    recs: Vec<millstone_tools::record::GameRecord>,
    logs: [std::path::PathBuf; 2],
    out: String,
}

/// The summary's ponder hits agree with the logs.
fn check_ponder_summary(r: &PonderRun, counts: [(usize, usize); 2]) {
    let want: Vec<String> = ["a", "b"]
        .iter()
        .zip(counts)
        .map(|(n, (h, m))| format!("{n} {h}/{}", h + m))
        .collect();
    let line = format!("Ponder hits: {}", want.join(", "));
    assert!(r.out.contains(&line), "{line} in\n{}", r.out);
}

/// The clock of `name` as each `go` it received gave it, against the start time less its
/// recorded move times before that position: equal to the millisecond per move (times are
/// truncated to milliseconds).
fn check_clock_charges(run: &PonderRun, which: usize, base_ms: i64) {
    let name = ["a", "b"][which];
    let text = std::fs::read_to_string(&run.logs[which]).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut games = run.recs.iter();
    let mut rec = None;
    let mut checked = 0;
    for (i, l) in lines.iter().enumerate() {
        if *l == "ucinewgame" {
            rec = games.next();
            continue;
        }
        if !l.starts_with("go ") {
            continue;
        }
        let r = rec.unwrap();
        let white = r.white == name;
        let mut plies = lines[i - 1]
            .split_once(" moves ")
            .map_or(0, |(_, m)| m.split_whitespace().count());
        if l.starts_with("go ponder") {
            plies -= 1;
        }
        // This engine's moves before the position.
        let used: i64 = r.times_ms[..plies]
            .iter()
            .enumerate()
            .filter(|(k, _)| (k % 2 == 0) == white)
            .map(|(_, t)| *t as i64)
            .sum();
        let n = if white { plies.div_ceil(2) } else { plies / 2 } as i64;
        let key = if white { "wtime" } else { "btime" };
        let t: Vec<&str> = l.split_whitespace().collect();
        let at = t.iter().position(|x| *x == key).unwrap();
        let clock: i64 = t[at + 1].parse().unwrap();
        let expected = base_ms - used;
        assert!(
            (clock - expected).abs() <= n + 1,
            "{name}: '{l}' after {n} moves using {used} ms (expected {expected})"
        );
        checked += 1;
    }
    assert!(checked >= 8, "{name}: {checked} go commands");
}

#[test]
fn ponder_hits_when_predictions_match() {
    // The same seed: each test engine predicts exactly what the other plays.
    let r = ponder_match(
        "hits",
        [4, 4],
        [20, 200],
        &["--tc", "10+0", "--max-plies", "16"],
    );
    let mut counts = [(0, 0); 2];
    for (i, log) in r.logs.iter().enumerate() {
        let text = std::fs::read_to_string(log).unwrap();
        assert!(text.contains("setoption name Ponder value true"), "{text}");
        let (hits, misses) = check_ponder_flow(log, &r.recs);
        assert!(hits >= 10, "engine {i}: {hits} hits");
        assert_eq!(misses, 0, "engine {i}");
        counts[i] = (hits, misses);
    }
    check_ponder_summary(&r, counts);
    for rec in &r.recs {
        assert_eq!(rec.reason, "maxplies", "{rec:?}");
        // a thinks 20 ms a move, b 200: a's time is counted from ponderhit, not from the
        // start of its ponder search during b's 200 ms (the bound leaves room for a loaded
        // machine).
        let a_white = rec.white == "a";
        for (i, t) in rec.times_ms.iter().enumerate() {
            if (i % 2 == 0) == a_white {
                assert!(*t >= 20 && *t < 150, "a's move {i}: {t} ms");
            }
        }
    }
}

#[test]
fn ponder_misses_stop_and_search_again() {
    let r = ponder_match(
        "misses",
        [4, 5],
        [20, 200],
        &["--tc", "10+0", "--max-plies", "24"],
    );
    let mut all = (0, 0);
    let mut counts = [(0, 0); 2];
    for (i, log) in r.logs.iter().enumerate() {
        let (h, m) = check_ponder_flow(log, &r.recs);
        all = (all.0 + h, all.1 + m);
        counts[i] = (h, m);
    }
    assert!(all.1 >= 10, "{all:?}");
    check_ponder_summary(&r, counts);
    for rec in &r.recs {
        assert_eq!(rec.reason, "maxplies", "{rec:?}");
        let a_white = rec.white == "a";
        for (i, t) in rec.times_ms.iter().enumerate() {
            if (i % 2 == 0) == a_white {
                assert!(*t >= 20 && *t < 150, "a's move {i}: {t} ms");
            }
        }
    }
}

#[test]
fn ponder_charges_clocks_from_ponderhit() {
    for (tag, seeds) in [("clock-hit", [6, 6]), ("clock-miss", [6, 7])] {
        let r = ponder_match(tag, seeds, [30, 60], &["--tc", "5+0", "--max-plies", "12"]);
        for which in 0..2 {
            check_clock_charges(&r, which, 5000);
        }
    }
    // With --movetime the ponder search gets the move time too.
    let r = ponder_match(
        "movetime",
        [6, 6],
        [10, 10],
        &["--movetime", "200", "--max-plies", "8"],
    );
    let text = std::fs::read_to_string(&r.logs[0]).unwrap();
    assert!(text.contains("go ponder movetime 200"), "{text}");
    // Without --ponder, no pondering (though the engines name a ponder move).
    let d = scratch("ponder-off");
    let log = d.join("a.log");
    let mut a = logging_engine("a", 6, 0, &log);
    a.extend(args(&[
        "--engine",
        "builtin=greedy",
        "--depth",
        "1",
        "--games",
        "2",
        "-q",
    ]));
    let (out, _) = run_ok(MATCH, &a);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("ponder"), "{text}");
    assert!(!out.contains("Ponder"), "{out}");
}

#[test]
fn time_losses_and_crashes_while_pondering() {
    // 400 ms a move on a 1 s clock: the third move, after a ponderhit, overruns.
    let r = ponder_match(
        "timeout",
        [8, 8],
        [400, 10],
        &["--tc", "1+0", "--timemargin", "50"],
    );
    for rec in &r.recs {
        assert_eq!(rec.reason, "timeout", "{rec:?}");
        let a_white = rec.white == "a";
        assert_eq!(rec.result, if a_white { "0-1" } else { "1-0" });
        let n = rec.moves.len();
        let a_moves = if a_white { n.div_ceil(2) } else { n / 2 };
        assert_eq!(a_moves, 2, "{rec:?}");
        assert!(rec.detail.contains("after ponderhit"), "{}", rec.detail);
    }
    let text = std::fs::read_to_string(&r.logs[0]).unwrap();
    assert!(text.contains("ponderhit"), "{text}");
    // An engine that dies when asked to ponder at ply 5 or later loses by a crash at its next
    // move; it is restarted for the next game.
    let d = scratch("ponder-crash");
    let jsonl = d.join("games.jsonl");
    let log = d.join("b.log");
    let mut a = args(&[
        "--engine",
        &format!("cmd={TESTENGINE}"),
        "arg=--crash-at-ply=5",
        "arg=--seed=3",
        "name=crashy",
    ]);
    a.extend(logging_engine("b", 3, 0, &log));
    a.extend(args(&[
        "--ponder",
        "--tc",
        "5+0",
        "--games",
        "2",
        "--jsonl",
        jsonl.to_str().unwrap(),
        "-q",
    ]));
    let (out, _) = run_ok(MATCH, &a);
    assert!(out.contains("W/D/L 0/0/2"), "{out}");
    for rec in records(&jsonl) {
        assert_eq!(rec.reason, "crash", "{rec:?}");
        assert!(rec.moves.len() >= 5 && rec.moves.len() <= 6, "{rec:?}");
        assert!(rec.detail.contains("crashed after"), "{}", rec.detail);
    }
}

#[test]
fn engines_hung_in_a_ponder_search_lose_on_time_and_are_restarted() {
    let d = scratch("ponder-deaf");
    let jsonl = d.join("games.jsonl");
    let log = d.join("deaf.log");
    let mut a = logging_engine("deaf", 2, 0, &log);
    a.extend(args(&["arg=--deaf-ponder"]));
    a.extend(logging_engine("b", 3, 0, &d.join("b.log")));
    a.extend(args(&[
        "--ponder",
        "--tc",
        "0.5+0",
        "--timemargin",
        "50",
        "--games",
        "2",
        "--jsonl",
        jsonl.to_str().unwrap(),
        "-q",
    ]));
    let (out, _) = run_ok(MATCH, &a);
    assert!(out.contains("W/D/L 0/0/2"), "{out}");
    for rec in records(&jsonl) {
        assert_eq!(rec.reason, "timeout", "{rec:?}");
        assert!(
            rec.detail.contains("after ponderhit") || rec.detail.contains("after a missed ponder"),
            "{}",
            rec.detail
        );
    }
    // Unusable after its hang: a fresh process for the second game.
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().filter(|l| *l == "uci").count(), 2, "{text}");
}

#[test]
fn real_engine_ponders() {
    let Some(exe) = real_engine() else {
        return;
    };
    let spec = millstone_tools::protocol::ProcessSpec {
        cmd: exe.clone(),
        ..Default::default()
    };
    let p = millstone_tools::protocol::EngineProcess::start(
        &spec,
        &[],
        std::time::Duration::from_secs(3),
    )
    .unwrap();
    assert!(p.has_option("Ponder"), "the engine offers Ponder");
    drop(p);
    let d = scratch("real-ponder");
    let jsonl = d.join("games.jsonl");
    let log = d.join("te.log");
    let mut a = args(&[
        "--engine",
        &format!("cmd={}", exe.display()),
        "name=millstone",
        "option.Hash=8",
    ]);
    a.extend(logging_engine("te", 1, 0, &log));
    a.extend(args(&[
        "--ponder",
        "--tc",
        "2+0.05",
        "--games",
        "2",
        "--random-opening",
        "2",
        "--seed",
        "1",
        "--max-plies",
        "60",
        "--jsonl",
        jsonl.to_str().unwrap(),
        "-q",
    ]));
    run_ok(MATCH, &a);
    let recs = records(&jsonl);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert!(
            !["crash", "stall", "illegal", "timeout"].contains(&r.reason.as_str()),
            "{r:?}"
        );
    }
}

/// `movetime=` of one `--engine` gives that engine its own time a move (time odds): its `go`
/// carries it, its moves are allowed it, and the other engine keeps the match's.
#[test]
fn an_engine_may_have_its_own_move_time() {
    let d = scratch("own_movetime");
    let (slow_log, fast_log) = (d.join("slow.log"), d.join("fast.log"));
    let jsonl = d.join("games.jsonl");
    let mut a = logging_engine("slow", 1, 120, &slow_log);
    a.push("movetime=400".into());
    a.extend(logging_engine("fast", 2, 0, &fast_log));
    a.extend(args(&[
        "--movetime",
        "30",
        "--timemargin",
        "20",
        "--games",
        "2",
        "--max-plies",
        "6",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]));
    let (out, _) = run_ok(MATCH, &a);
    let recs = records(&jsonl);
    assert_eq!(recs.len(), 2, "{out}");
    for r in &recs {
        // 120 ms a move would lose at the match's 30 + 20 ms; the slow engine's own 400 holds.
        assert_eq!(r.reason, "maxplies", "{r:?}");
    }
    let info = recs[0]
        .match_info
        .as_ref()
        .expect("the first record carries the match");
    assert!(info.limits.contains("slow movetime 400"), "{}", info.limits);
    let gos = |log: &std::path::Path| -> Vec<String> {
        let text = std::fs::read_to_string(log).unwrap();
        text.lines()
            .filter(|l| l.starts_with("go"))
            .map(String::from)
            .collect()
    };
    let (slow, fast) = (gos(&slow_log), gos(&fast_log));
    assert!(!slow.is_empty() && !fast.is_empty());
    assert!(slow.iter().all(|g| g == "go movetime 400"), "{slow:?}");
    assert!(fast.iter().all(|g| g == "go movetime 30"), "{fast:?}");
    // Only engines search: a built-in with a move time is refused with a message.
    let out = run(
        MATCH,
        &args(&[
            "--engine",
            "builtin=random",
            "movetime=5",
            "--engine",
            "builtin=greedy",
            "--depth",
            "1",
        ]),
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("movetime="));
}
