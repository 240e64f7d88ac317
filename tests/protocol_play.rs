//! What GUIs and tournament managers expect of a game in progress, through the real binary:
//! fixed move times used whole, the tables' verdict at a covered root under every limit,
//! pondering, `go mate`, `currmove`, negative clocks, strength levels, and `perft`/`bench`
//! running like a search.

mod engine_process;

use engine_process::{bestmove_and_ponder, check_legal, Engine};
use millstone::search::{TB_BOUND, TB_WIN};
use millstone::tablebase::{file_name, solve_pair, Tablebase, Wdl};
use millstone::{Game, Move, Position, Rules, Variant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The `score` of an `info` line, as (kind, value).
fn score_of(line: &str) -> (String, i64) {
    let mut w = line.split(' ').skip_while(|&t| t != "score").skip(1);
    let kind = w.next().unwrap_or_else(|| panic!("no score in {line}"));
    let v = w.next().unwrap().parse().unwrap();
    (kind.to_string(), v)
}

fn info_lines(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" score "))
        .collect()
}

/// Positions a few plies into random games of nine, where a search has real choices.
fn middlegame_positions(n: usize, seed: u64) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut g = Game::from_rules(Rules::default());
        let plies = rng.gen_range(4..14);
        for _ in 0..plies {
            let legal = g.legal_moves();
            if g.outcome().is_some() {
                break;
            }
            g.play(legal[rng.gen_range(0..legal.len())]).unwrap();
        }
        if g.outcome().is_none() && g.legal_moves().len() > 1 {
            out.push(g);
        }
    }
    out
}

fn position_line(g: &Game) -> String {
    let moves: Vec<String> = g.moves().iter().map(|m| m.to_string()).collect();
    format!("position startpos moves {}", moves.join(" "))
}

#[test]
fn movetime_is_used_whole() {
    let mut e = Engine::start();
    e.send("setoption name Move Overhead value 10");
    let given = 500u64;
    let mut measured = 0;
    for g in middlegame_positions(10, 1) {
        e.send(&position_line(&g));
        e.sync();
        let t = Instant::now();
        let lines = e.go(&format!("movetime {given}"));
        let used = t.elapsed().as_millis() as u64;
        check_legal(&g, &lines);
        let last = info_lines(&lines).pop().cloned().unwrap();
        // A forced result found may stop early, as the protocol allows.
        if score_of(&last).0 == "mate" {
            continue;
        }
        measured += 1;
        assert!(
            used * 10 >= given * 9 && used * 10 <= given * 11,
            "movetime {given} used {used} ms ({last})"
        );
    }
    assert!(
        measured >= 8,
        "only {measured} positions without a forced result"
    );
}

/// Nine without flying, 3 v 3, into a fresh directory.
fn nofly_tables() -> PathBuf {
    let rules = Rules::new(Variant::Nine, false);
    let dir = std::env::temp_dir().join(format!("millstone-play-tbs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (ts, _) = solve_pair(rules, 3, 3, &HashMap::new(), &mut |_| {}).unwrap();
    for t in ts {
        t.write(&dir.join(file_name(rules, t.w, t.b))).unwrap();
    }
    dir
}

#[test]
fn covered_root_reports_the_table_verdict_under_every_limit() {
    let dir = nofly_tables();
    let rules = Rules::new(Variant::Nine, false);
    let tb = Tablebase::open(&dir).unwrap();
    // The example: won, the next mill 25 plies away; and a drawn and a lost root.
    let fens = [
        ".W./.BB/.B./..W.../W../.../... w 0 0 0 30",
        ".W./.BB/.B./..W.../W../.../... b 0 0 0 30",
        "B../..B/.../W...../.../.BW/W.. w 0 0 0 10",
    ];
    let mut e = Engine::start();
    e.send("setoption name Flying value false");
    e.send("setoption name UCI_ShowWDL value true");
    e.send(&format!("setoption name TablePath value {}", dir.display()));
    assert!(e.sync()[0].starts_with("info string endgame tables: 1 sub-spaces"));
    let mut verdicts = Vec::new();
    for fen in fens {
        let pos = Position::from_fen(fen, rules).unwrap();
        let root = tb.probe_root(&pos).expect("covered");
        let want = match root.probe.wdl {
            Wdl::Win => TB_WIN as i64 - root.probe.plies_to_mill as i64,
            Wdl::Loss => -(TB_WIN as i64 - root.probe.plies_to_mill as i64),
            _ => 0,
        };
        verdicts.push(root.probe.wdl);
        for limit in [
            "movetime 300",
            "nodes 5000",
            "depth 6",
            "wtime 3000 btime 3000 winc 10 binc 10",
        ] {
            e.send(&format!("position fen {fen}"));
            let lines = e.go(limit);
            check_legal(&Game::new(pos), &lines);
            let infos = info_lines(&lines);
            for l in [infos[0], infos[infos.len() - 1]] {
                assert_eq!(
                    score_of(l),
                    ("cp".to_string(), want),
                    "{fen} go {limit}: {l}"
                );
                // A proven verdict carries its exact W/D/L, a draw included.
                let exact = match want.signum() {
                    1 => " wdl 1000 0 0 ",
                    -1 => " wdl 0 0 1000 ",
                    _ => " wdl 0 1000 0 ",
                };
                assert!(l.contains(exact), "{fen} go {limit}: {l}");
            }
            assert!(want == 0 || want.abs() >= TB_BOUND as i64);
            let best: Move = bestmove_and_ponder(&lines).0.parse().unwrap();
            let kept = root.moves.iter().find(|(m, _)| *m == best).unwrap().1.wdl;
            assert_eq!(
                kept.real(),
                root.probe.wdl.real(),
                "{fen}: {best} spoils it"
            );
        }
    }
    assert!(verdicts.contains(&Wdl::Win), "{verdicts:?}");
    assert!(verdicts.contains(&Wdl::Draw), "{verdicts:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ponder_ponderhit_and_stop() {
    let mut e = Engine::start();
    e.send("uci");
    let uci = e.until("uciok");
    assert!(uci
        .iter()
        .any(|l| l == "option name Ponder type check default false"));
    e.send("setoption name Ponder value true");
    // A reply to ponder on comes with the move.
    e.send("position startpos moves d6 a1 d5");
    let lines = e.go("depth 8");
    let (best, ponder) = bestmove_and_ponder(&lines);
    let ponder = ponder.expect("a ponder move after a depth-8 search");
    // Ponder on the predicted reply: nothing ends the search but ponderhit or stop.
    e.send(&format!("position startpos moves d6 a1 d5 {best} {ponder}"));
    e.send("go ponder movetime 200");
    std::thread::sleep(Duration::from_millis(600));
    let early = e.sync();
    assert!(
        early.iter().all(|l| !l.starts_with("bestmove")),
        "bestmove while pondering: {early:?}"
    );
    let t = Instant::now();
    e.send("ponderhit");
    let lines = e.until("bestmove");
    let after = t.elapsed();
    // The clock starts at ponderhit: about 200 ms, less the overhead.
    assert!(
        after >= Duration::from_millis(120) && after < Duration::from_millis(1500),
        "{after:?}"
    );
    let mut g = Game::from_rules(Rules::default());
    for m in ["d6", "a1", "d5", best.as_str(), ponder.as_str()] {
        g.play(m.parse().unwrap()).unwrap();
    }
    check_legal(&g, &lines);
    // A ponder miss: stop ends it at once with a bestmove, then the real search follows.
    e.send("go ponder wtime 5000 btime 5000");
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    e.send("stop");
    e.until("bestmove");
    assert!(t.elapsed() < Duration::from_millis(500));
    // Pondering a deep limit that is reached: still no bestmove before ponderhit.
    e.send("go ponder depth 2");
    std::thread::sleep(Duration::from_millis(300));
    assert!(e.sync().iter().all(|l| !l.starts_with("bestmove")));
    e.send("ponderhit");
    e.until("bestmove");
    assert!(e.is_alive());
}

#[test]
fn go_mate_finds_a_forced_win_and_stops() {
    let mut e = Engine::start();
    // White (three pieces, flying) closes a7-a4-a1 with b4-a4 and leaves Black two pieces.
    let fen = "W.B/.../.B./.W..../.../.../W.B w 0 0 0 20";
    e.send(&format!("position fen {fen}"));
    let t = Instant::now();
    let lines = e.go("mate 2");
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "go mate 2 took {:?}",
        t.elapsed()
    );
    let last = info_lines(&lines).pop().unwrap().clone();
    let (kind, n) = score_of(&last);
    assert_eq!(kind, "mate", "{last}");
    assert!((1..=2).contains(&n), "{last}");
    let g = Game::new(Position::from_fen(fen, Rules::default()).unwrap());
    check_legal(&g, &lines);
}

#[test]
fn negative_clock_is_read_as_zero_and_a_move_is_played() {
    let mut e = Engine::start();
    e.send("position startpos moves d6 a1");
    let t = Instant::now();
    let lines = e.go("wtime -250 btime 1000 winc -5");
    assert!(t.elapsed() < Duration::from_secs(2));
    let mut g = Game::from_rules(Rules::default());
    g.play("d6".parse().unwrap()).unwrap();
    g.play("a1".parse().unwrap()).unwrap();
    check_legal(&g, &lines);
}

#[test]
fn currmove_in_long_searches() {
    let mut e = Engine::start();
    e.send("position startpos moves d6 a1 d5");
    let lines = e.go("movetime 2600");
    let cur: Vec<&String> = lines.iter().filter(|l| l.contains(" currmove ")).collect();
    assert!(!cur.is_empty(), "no currmove line in 2.6 s");
    assert!(cur.len() <= 4, "more than about one a second: {cur:?}");
    let mut g = Game::from_rules(Rules::default());
    for m in ["d6", "a1", "d5"] {
        g.play(m.parse().unwrap()).unwrap();
    }
    let legal = g.legal_moves();
    for l in cur {
        let w: Vec<&str> = l.split(' ').collect();
        assert_eq!(
            (w[0], w[1], w[3], w[5]),
            ("info", "depth", "currmove", "currmovenumber")
        );
        assert!(legal.contains(w[4].parse().unwrap()), "{l}");
        let k: usize = w[6].parse().unwrap();
        assert!((1..=legal.len()).contains(&k), "{l}");
    }
}

#[test]
fn perft_and_bench_run_like_a_search() {
    let mut e = Engine::start();
    e.send("perft 9");
    std::thread::sleep(Duration::from_millis(100));
    assert!(e.sync().iter().all(|l| !l.starts_with("nodes")));
    e.send("go depth 1");
    assert!(e.sync()[0].contains("perft or bench is running"));
    let t = Instant::now();
    e.send("stop");
    assert_eq!(
        e.until("info string").last().unwrap(),
        "info string perft stopped"
    );
    assert!(t.elapsed() < Duration::from_millis(500));
    // The engine plays on after a stopped perft, and a finished one still counts right.
    e.send("perft 3");
    assert_eq!(e.until("nodes").last().unwrap(), "nodes 12144");
    e.send("bench 30");
    std::thread::sleep(Duration::from_millis(100));
    e.sync();
    e.send("stop");
    assert_eq!(
        e.until("info string").last().unwrap(),
        "info string bench stopped"
    );
    let lines = e.go("depth 2");
    check_legal(&Game::from_rules(Rules::default()), &lines);
    // quit during perft 9 exits at once.
    e.send("perft 9");
    std::thread::sleep(Duration::from_millis(100));
    e.send("quit");
    let exit = e.wait_exit(Duration::from_secs(2)).expect("exits");
    assert!(
        exit < Duration::from_millis(50),
        "quit during perft took {exit:?}"
    );
}

/// Plays `plies` plies from the start with the engine on both sides at `options`.
fn play_levels(options: &[&str], go: &str, plies: usize) -> Vec<String> {
    let mut e = Engine::start();
    for o in options {
        e.send(&format!("setoption name {o}"));
    }
    let mut g = Game::from_rules(Rules::default());
    let mut moves = Vec::new();
    while moves.len() < plies && g.outcome().is_none() {
        e.send(&position_line(&g));
        let lines = e.go(go);
        check_legal(&g, &lines);
        let m = bestmove_and_ponder(&lines).0;
        g.play(m.parse().unwrap()).unwrap();
        moves.push(m);
    }
    moves
}

#[test]
fn every_level_plays_legal_moves_and_a_fixed_seed_reproduces() {
    for level in [0, 1, 5, 10, 15, 19, 20] {
        let opts = [
            format!("Skill Level value {level}"),
            "Skill Seed value 9".to_string(),
        ];
        let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
        play_levels(&opts, "movetime 20", 12);
    }
    play_levels(
        &["UCI_LimitStrength value true", "UCI_Elo value 1200"],
        "movetime 20",
        12,
    );
    // One thread and a depth limit: the same seed gives the same game, another seed another.
    let a = play_levels(
        &["Skill Level value 3", "Skill Seed value 42"],
        "depth 8",
        30,
    );
    let b = play_levels(
        &["Skill Level value 3", "Skill Seed value 42"],
        "depth 8",
        30,
    );
    assert_eq!(a, b);
    let seeds: Vec<Vec<String>> = (1..=4)
        .map(|s| {
            let seed = format!("Skill Seed value {s}");
            play_levels(&["Skill Level value 3", &seed], "depth 8", 30)
        })
        .collect();
    assert!(seeds.iter().any(|g| *g != a), "the seed changes nothing");
}

#[test]
fn query_mills_lists_the_points_in_closed_mills() {
    let mut e = Engine::start();
    assert_eq!(e.query("mills"), "");
    e.send("position fen WWW/.../.../B...../.../.B./B.B b 0 0 0 20");
    assert_eq!(e.query("mills"), "a7 d7 g7");
    // Both colours, each point once even where two mills cross (a1 in a1-d1-g1 and a1-a4-a7).
    e.send("position fen W.W/.../.B./W...../B.B/.../WWW b 0 0 0 20");
    assert_eq!(e.query("mills"), "a1 d1 g1 a4 a7");
    e.send("setoption name UCI_Variant value twelve");
    e.send("position fen W../W../W../....../.../.B./BB. b 0 0 0 30");
    assert_eq!(e.query("mills"), "c5 b6 a7");
}
