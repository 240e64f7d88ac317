//! The protocol, driven through the real binary over pipes (see `engine_process`).

mod engine_process;

use engine_process::{bestmove_of, check_legal, position_cmd, Engine};
use millstone::{Game, Position, Rules, Variant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

#[test]
fn handshake() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok");
    assert!(lines[0].starts_with("id name Millstone "));
    assert_eq!(lines[1], "id author The Millstone developers");
    for opt in [
        "option name Hash type spin default 16 min 1 max 65536",
        "option name Threads type spin default 1 min 1 max 256",
        "option name MultiPV type spin default 1 min 1 max 64",
        "option name UCI_Variant type combo default nine var nine var twelve",
        "option name Flying type check default true",
        "option name Move Overhead type spin default 30 min 0 max 5000",
        "option name UCI_ShowWDL type check default false",
        "option name Clear Hash type button",
        "option name TablePath type string default <default>",
        "option name BookPath type string default <default>",
        "option name SolveHash type spin default 64 min 1 max 65536",
        "option name UltraStrong type check default true",
        "option name TableChoice type combo default search var search var fewest-keeping var most-failing var expected var sector var mirror var crowd",
        "option name UltraStrongOpponent type spin default 2 min 1 max 6",
        "option name Contempt type spin default 50 min -1000 max 1000",
        "option name TableContempt type spin default 50 min -1000 max 1000",
    ] {
        assert!(lines.iter().any(|l| l == opt), "{opt} missing");
    }
    e.send("ugi");
    assert_eq!(e.until("ugiok").last().unwrap(), "ugiok");
    assert!(e.sync().is_empty());
}

/// Plays a game to its end with the engine choosing both sides, through `position ... moves`.
fn self_play(variant: Variant, flying: bool) {
    let mut e = Engine::start();
    e.send("uginewgame");
    e.send(&format!("setoption name UCI_Variant value {variant}"));
    e.send(&format!("setoption name Flying value {flying}"));
    let mut game = Game::from_rules(Rules::new(variant, flying));
    assert_eq!(e.query("fen"), game.position().to_fen());
    loop {
        e.send(&position_cmd(game.moves()));
        assert_eq!(
            e.query("p1turn"),
            (game.position().side_to_move() == millstone::Color::White).to_string()
        );
        let lines = e.go("depth 2");
        check_legal(&game, &lines);
        let best = bestmove_of(&lines);
        if best == "0000" {
            break;
        }
        game.play(best.parse().unwrap()).unwrap();
        assert!(game.moves().len() < 1000, "the game does not end");
    }
    let o = game.outcome().expect("the game is over");
    assert_eq!(e.query("gameover"), "true");
    assert_eq!(e.query("result"), o.result_str());
    assert_eq!(e.query("reason"), o.reason().name());
    assert_eq!(e.query("legalmoves"), "");
    assert_eq!(e.query("fen"), game.position().to_fen());
    e.send("ucinewgame");
    assert_eq!(e.query("result"), "none");
    assert_eq!(e.query("reason"), "none");
    assert_eq!(e.query("gameover"), "false");
    assert!(e.sync().is_empty());
}

#[test]
fn self_play_nine_to_the_end() {
    self_play(Variant::Nine, true);
}

#[test]
fn self_play_twelve_to_the_end() {
    self_play(Variant::Twelve, true);
}

#[test]
fn self_play_nine_without_flying() {
    self_play(Variant::Nine, false);
}

#[test]
fn decided_position_gets_bestmove_0000() {
    let mut e = Engine::start();
    let fen = "WWW/.../.../....../.../.B./B.. b 0 0 0 20";
    e.send(&format!("position fen {fen}"));
    assert_eq!(e.query("fen"), fen);
    let lines = e.go("depth 5");
    assert_eq!(lines, ["info depth 0 score mate 0", "bestmove 0000"]);
    let lines = e.go("infinite");
    assert_eq!(lines.last().unwrap(), "bestmove 0000");
    assert_eq!(e.query("result"), "1-0");
    assert_eq!(e.query("reason"), "material");
    assert!(e.sync().is_empty());
}

#[test]
fn removal_as_its_own_token() {
    let mut e = Engine::start();
    e.send("position startpos moves a7 a1 d7 d1 g7 xd1");
    assert!(e.sync().is_empty());
    assert_eq!(e.query("fen"), "WWW/.../.../....../.../.../B.. b 6 7 0 3");
    e.send("position startpos moves a7 a1 d7 d1 g7xd1");
    assert_eq!(e.query("fen"), "WWW/.../.../....../.../.../B.. b 6 7 0 3");
}

/// Sends each bad input and checks it gets exactly one error line and changes nothing.
fn assert_rejected(e: &mut Engine, input: &[u8], must_contain: &str) {
    let before = e.query("fen");
    e.send_bytes(input);
    let out = e.sync();
    let shown = String::from_utf8_lossy(&input[..input.len().min(80)]).to_string();
    assert_eq!(out.len(), 1, "{shown}: {out:?}");
    assert!(
        out[0].starts_with("info string error: "),
        "{shown}: {out:?}"
    );
    assert!(
        out[0].contains(must_contain),
        "{shown}: {out:?} lacks {must_contain}"
    );
    assert_eq!(e.query("fen"), before, "{shown} changed the position");
}

#[test]
fn bad_input_gets_one_error_and_changes_nothing() {
    let mut e = Engine::start();
    e.send("position startpos moves d6 a1 d5");
    let cases: &[(&[u8], &str)] = &[
        (b"foo", "unknown command 'foo'"),
        (b"  Uci  ", "unknown command 'Uci'"),
        (b"uci extra", "unexpected 'extra'"),
        (b"xa1", "unknown command"),
        (b"position", "missing"),
        (b"position middle", "unexpected 'middle'"),
        (b"position startpos d6", "unexpected 'd6'"),
        (
            b"position startpos moves d6 a1 d6",
            "move 3 'd6': d6 is occupied",
        ),
        (b"position startpos moves d6 zz", "move 2 'zz'"),
        (b"position startpos moves d6-d5", "move 1 'd6-d5'"),
        (b"position startpos moves xa1", "move 1 'xa1'"),
        (b"position startpos moves a7 a1 d7 d1 g7", "move 5 'g7'"),
        (
            b"position startpos moves a7 a1 d7 d1 g7 xg7",
            "move 5 'g7 xg7'",
        ),
        (
            b"position startpos moves a7 a1 d7 d1 g7 xb2",
            "move 5 'g7 xb2'",
        ),
        (b"position fen", "6 fields"),
        (b"position fen W.. w 9 9", "6 fields"),
        (
            b"position fen .../.../.../....../.../... w 9 9 0 1",
            "7 ranks",
        ),
        (
            b"position fen .../.../.../....../.../.../... x 9 9 0 1",
            "side to move",
        ),
        (
            b"position fen .../.../.../....../.../.../... w 10 9 0 1",
            "position string",
        ),
        (
            b"position fen .../.../.../....../.../.../... w -1 9 0 1",
            "position string",
        ),
        (
            b"position fen WWW/WWW/WWW/WWWWWW/.../.../... b 0 9 0 9",
            "position string",
        ),
        (
            b"position fen .Q./.../.../....../.../.../... w 9 9 0 1",
            "position string",
        ),
        (b"setoption name Nope value 1", "unknown option 'Nope'"),
        (b"setoption", "missing"),
        (b"setoption name", "missing"),
        (b"setoption name Hash", "needs a value"),
        (b"setoption name Hash value 0", "1 to 65536"),
        (b"setoption name Hash value 65537", "1 to 65536"),
        (b"setoption name Hash value big", "1 to 65536"),
        (b"setoption name Threads value 257", "1 to 256"),
        (b"setoption name MultiPV value -3", "1 to 64"),
        (b"setoption name Move Overhead value 5001", "0 to 5000"),
        (b"setoption name Contempt value 1001", "-1000 to 1000"),
        (b"setoption name Contempt value -1001", "-1000 to 1000"),
        (b"setoption name Contempt value a lot", "-1000 to 1000"),
        (b"setoption name TableContempt value 1001", "-1000 to 1000"),
        (b"setoption name TableContempt value none", "-1000 to 1000"),
        (b"setoption name Flying value maybe", "true or false"),
        (b"setoption name UCI_Variant value eleven", "nine or twelve"),
        (
            b"setoption name TablePath value /no/such/dir",
            "TablePath: ",
        ),
        (b"setoption name BookPath value /no/such/book", "BookPath: "),
        (b"setoption name SolveHash value 0", "1 to 65536"),
        (b"setoption name UCI_Variant value twelve", "x"),
        (b"go depth -1", "negative"),
        (b"go movetime -100", "negative"),
        (b"go mate", "missing"),
        (b"go nodes many", "not a number"),
        (b"go depth", "missing"),
        (b"go ponderx", "unexpected 'ponderx'"),
        (b"go searchmoves", "missing"),
        (b"go searchmoves zz", "move 1 'zz'"),
        (b"go searchmoves d1 a1", "move 2 'a1' is not legal"),
        (b"query", "missing"),
        (b"query everything", "unexpected 'everything'"),
        (b"perft", "missing"),
        (b"perft -1", "negative"),
        (b"bench x", "not a number"),
        (b"debug maybe", "unexpected"),
        (b"\xff\xfe bad utf8", "invalid UTF-8"),
        (b"isready \xc3", "invalid UTF-8"),
        (&[b'a'; 100_000], "bytes ignored"),
        (&[b'g'; 60_000], "unknown command 'ggg"),
    ];
    for &(input, msg) in cases {
        if input == b"setoption name UCI_Variant value twelve" {
            // Not an error: it resets the position. Check that separately below.
            continue;
        }
        assert_rejected(&mut e, input, msg);
    }
    // Empty and blank lines are ignored silently.
    e.send("");
    e.send("   \t ");
    e.send_bytes(b"\r");
    assert!(e.sync().is_empty());
    // `stop` with nothing running is silent too.
    e.send("stop");
    assert!(e.sync().is_empty());
    // A variant change resets the position to the new start.
    e.send("setoption name uci_variant value TWELVE");
    assert!(e.sync().is_empty());
    assert_eq!(e.query("fen"), ".../.../.../....../.../.../... w 12 12 0 1");
    assert!(e.is_alive());
}

#[test]
fn huge_numbers_are_clamped() {
    let mut e = Engine::start();
    let lines = e.go("depth 0");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 1 ")),
        "{lines:?}"
    );
    let lines = e.go("depth 99999999999999999999999 movetime 30");
    assert!(lines.last().unwrap().starts_with("bestmove "));
    for args in [
        "movetime 99999999999999999999999",
        "nodes 99999999999999999999999",
        "wtime 99999999999999999999 btime 99999999999999999999 winc 99999999999999999999 \
         binc 99999999999999999999 movestogo 99999999999999999999",
        "p1time 18446744073709551615 p2time 1",
    ] {
        e.send(&format!("go {args}"));
        thread::sleep(Duration::from_millis(30));
        e.send("stop");
        let lines = e.until("bestmove");
        check_legal(&Game::from_rules(Rules::default()), &lines);
    }
    let lines = e.go("wtime 0 btime 0");
    check_legal(&Game::from_rules(Rules::default()), &lines);
    e.send("perft 99999999999999999999");
    // Clamped to 32 but still far too deep to finish: the loop is busy; quit cannot be served
    // before it ends, so just make sure the process is alive and kill it.
    assert!(e.is_alive());
}

#[test]
fn commands_during_a_search() {
    let mut e = Engine::start();
    e.send("position startpos moves d6");
    e.send("go infinite");
    thread::sleep(Duration::from_millis(50));
    // Refused, and the search goes on.
    for (cmd, msg) in [
        ("go depth 3", "a search is running"),
        ("perft 1", "a search is running"),
        ("bench 1", "a search is running"),
        ("position startpos moves d6 d6", "move 2 'd6'"),
        ("setoption name Hash value 0", "1 to 65536"),
    ] {
        e.send(cmd);
        let out = e.sync();
        let errors: Vec<_> = out
            .iter()
            .filter(|l| l.starts_with("info string"))
            .collect();
        assert_eq!(errors.len(), 1, "{cmd}: {out:?}");
        assert!(errors[0].contains(msg), "{cmd}: {errors:?}");
        assert!(
            !out.iter().any(|l| l.starts_with("bestmove")),
            "{cmd}: {out:?}"
        );
    }
    // Read-only commands are served during the search.
    assert_eq!(e.query("fen"), ".../.W./.../....../.../.../... b 8 9 0 1");
    e.send("d");
    assert!(e.sync().iter().any(|l| l.starts_with("Position: ")));
    // `position` stops the search (its bestmove comes first), then takes effect.
    e.send("position startpos moves d6 d5");
    let best = e.until("bestmove");
    check_legal(
        &Game::new(
            Position::from_fen(".../.W./.../....../.../.../... b 8 9 0 1", Rules::default())
                .unwrap(),
        ),
        &best,
    );
    assert_eq!(e.query("fen"), ".../.W./.B./....../.../.../... w 8 8 0 2");
    // So do `setoption` and `ucinewgame`.
    e.send("go infinite");
    thread::sleep(Duration::from_millis(30));
    e.send("setoption name MultiPV value 3");
    e.until("bestmove");
    let lines = e.go("depth 3");
    assert!(lines.iter().any(|l| l.contains(" multipv 3 ")), "{lines:?}");
    e.send("go infinite");
    thread::sleep(Duration::from_millis(30));
    e.send("ucinewgame");
    e.until("bestmove");
    assert_eq!(e.query("fen"), ".../.../.../....../.../.../... w 9 9 0 1");
    // A `go` right after a `bestmove` is never refused.
    for _ in 0..20 {
        let lines = e.go("depth 1");
        assert!(
            lines.iter().all(|l| !l.starts_with("info string")),
            "{lines:?}"
        );
    }
    assert!(e.sync().is_empty());
}

#[test]
fn stop_answers_promptly() {
    let mut e = Engine::start();
    let mut worst = Duration::ZERO;
    for threads in [1, 2] {
        e.send(&format!("setoption name Threads value {threads}"));
        for i in 0..4 {
            e.send(&position_cmd(&[]));
            e.send("go infinite");
            thread::sleep(Duration::from_millis(100 + 50 * i));
            let t = Instant::now();
            e.send("stop");
            let lines = e.until("bestmove");
            let dt = t.elapsed();
            worst = worst.max(dt);
            check_legal(&Game::from_rules(Rules::default()), &lines);
            assert!(dt < Duration::from_millis(100), "stop took {dt:?}");
        }
    }
    eprintln!("stop latency: worst {worst:?}");
    assert!(e.sync().is_empty());
}

#[test]
fn quit_and_end_of_input_mid_search_exit_promptly() {
    for how in ["quit", "eof"] {
        let mut e = Engine::start();
        e.send("go infinite");
        thread::sleep(Duration::from_millis(100));
        let t = Instant::now();
        if how == "quit" {
            e.send("quit");
        } else {
            e.stdin = None;
        }
        let dt = e.wait_exit(Duration::from_secs(2)).map(|_| t.elapsed());
        let dt = dt.unwrap_or_else(|| panic!("{how}: the engine did not exit"));
        eprintln!("{how} mid-search: exit after {dt:?}");
        assert!(dt < Duration::from_millis(200), "{how}: {dt:?}");
    }
}

/// Random and mutated lines must never crash the engine or make it deaf.
#[test]
fn fuzz_lines() {
    const WORDS: &[&str] = &[
        "uci",
        "ugi",
        "isready",
        "ucinewgame",
        "position",
        "startpos",
        "fen",
        "moves",
        "go",
        "depth",
        "nodes",
        "movetime",
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "infinite",
        "searchmoves",
        "p1time",
        "p2inc",
        "stop",
        "query",
        "gameover",
        "result",
        "fen",
        "legalmoves",
        "reason",
        "p1turn",
        "setoption",
        "name",
        "value",
        "MultiPV",
        "Flying",
        "UCI_Variant",
        "twelve",
        "nine",
        "true",
        "false",
        "Move",
        "Overhead",
        "UCI_ShowWDL",
        "Clear",
        "Hash",
        "d6",
        "a1",
        "d6-d5",
        "d6xa1",
        "xa1",
        "g7-a1xd1",
        "0",
        "1",
        "2",
        "-1",
        "99999999999999999999",
        "W.B/.W./..B/.B..W./.../W../...",
        "w",
        "b",
        "9",
        "12",
        "",
        "\t",
        "é",
        "\u{0}",
        "x",
    ];
    const SEEDS: &[&str] = &[
        "position startpos moves d6 a1 d5",
        "position fen W.B/.W./..B/.B..W./.../W../... w 5 5 0 5 moves a1",
        "go depth 2",
        "go nodes 300 searchmoves d6 a1",
        "setoption name MultiPV value 2",
        "setoption name UCI_Variant value twelve",
        "query legalmoves",
        "isready",
    ];
    let mut rng = StdRng::seed_from_u64(0x5eed_1234);
    let mut e = Engine::start();
    let mut sent = 0;
    while sent < 3000 {
        let mut line: Vec<u8> = match rng.gen_range(0..3) {
            0 => (0..rng.gen_range(0..40)).map(|_| rng.gen()).collect(),
            1 => {
                let n = rng.gen_range(1..10);
                let w: Vec<&str> = (0..n)
                    .map(|_| WORDS[rng.gen_range(0..WORDS.len())])
                    .collect();
                w.join(" ").into_bytes()
            }
            _ => {
                let mut l = SEEDS[rng.gen_range(0..SEEDS.len())].as_bytes().to_vec();
                for _ in 0..rng.gen_range(1..4) {
                    let i = rng.gen_range(0..=l.len());
                    match rng.gen_range(0..3) {
                        0 if i < l.len() => {
                            l.remove(i);
                        }
                        1 => l.insert(i, rng.gen()),
                        _ => l.insert(i, b' '),
                    }
                }
                l
            }
        };
        line.retain(|&b| b != b'\n');
        let text = String::from_utf8_lossy(&line).to_lowercase();
        let first = text.split_whitespace().next().unwrap_or("");
        // Leave out what would end the run or take unbounded time or memory.
        if ["quit", "perft", "bench", "d", "eval"].contains(&first)
            || text.contains("hash")
            || text.contains("threads")
        {
            continue;
        }
        e.send_bytes(&line);
        if first == "go" {
            e.send("stop");
        }
        sent += 1;
    }
    e.send("stop");
    let out = e.sync();
    assert!(e.is_alive());
    for l in &out {
        let ok = [
            "info ",
            "bestmove ",
            "readyok",
            "response",
            "id ",
            "option ",
            "uciok",
            "ugiok",
        ]
        .iter()
        .any(|p| l.starts_with(p));
        assert!(ok, "unexpected output line {l:?}");
    }
    // Still fully working.
    e.send("ucinewgame");
    e.send("setoption name UCI_Variant value nine");
    e.send("position startpos");
    let lines = e.go("depth 2");
    check_legal(&Game::from_rules(Rules::default()), &lines);
}

/// Every move the engine prints is legal where it was asked, over many random positions of both
/// variants, with several lines and flying on and off.
#[test]
fn printed_moves_are_legal() {
    let mut rng = StdRng::seed_from_u64(42);
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 3");
    for (variant, flying) in [
        (Variant::Nine, true),
        (Variant::Nine, false),
        (Variant::Twelve, true),
        (Variant::Twelve, false),
    ] {
        e.send(&format!("setoption name UCI_Variant value {variant}"));
        e.send(&format!("setoption name Flying value {flying}"));
        for _ in 0..40 {
            let mut game = Game::from_rules(Rules::new(variant, flying));
            let plies = rng.gen_range(0..120);
            for _ in 0..plies {
                let legal = game.legal_moves();
                if legal.is_empty() {
                    break;
                }
                game.play(legal[rng.gen_range(0..legal.len())]).unwrap();
            }
            if rng.gen_bool(0.5) {
                e.send(&position_cmd(game.moves()));
            } else {
                // From the position string, the history (and so repetitions) is gone.
                game = Game::new(*game.position());
                e.send(&format!("position fen {}", game.position().to_fen()));
            }
            let lines = e.go(if rng.gen_bool(0.5) {
                "depth 3"
            } else {
                "nodes 3000"
            });
            check_legal(&game, &lines);
        }
    }
}

#[test]
fn perft_and_bench_match_the_command_line() {
    let cli = |args: &[&str]| -> Vec<String> {
        let out = Command::new(env!("CARGO_BIN_EXE_millstone"))
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    };
    let mut e = Engine::start();
    e.send("perft 3");
    let lines = e.until("nodes ");
    assert_eq!(lines, cli(&["perft", "3"]));
    assert_eq!(lines.last().unwrap(), "nodes 12144");
    e.send("setoption name UCI_Variant value twelve");
    e.send("perft 2");
    assert_eq!(
        e.until("nodes "),
        cli(&["perft", "2", "--variant", "twelve"])
    );
    e.send("bench 3");
    let mut ours = e.until("");
    while !ours.last().unwrap().ends_with(" nps") {
        ours.extend(e.until(""));
    }
    let theirs = cli(&["bench", "3"]);
    assert_eq!(ours.len(), theirs.len());
    assert_eq!(ours[..ours.len() - 1], theirs[..theirs.len() - 1]);
    let nodes = |l: &str| l.split(' ').next().unwrap().to_string();
    assert_eq!(nodes(ours.last().unwrap()), nodes(theirs.last().unwrap()));
}

#[test]
fn eval_and_display() {
    let mut e = Engine::start();
    e.send("position startpos moves d6");
    e.send("eval");
    let out = e.sync();
    assert!(out.iter().any(|l| l.starts_with("material")), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("total ")), "{out:?}");
    // Nine has a built-in network: its W/D/L (permille, adding up to 1000) comes last.
    let nnue: Vec<&str> = out.last().unwrap().split(' ').collect();
    assert_eq!(&nnue[..2], ["nnue", "wdl"], "{out:?}");
    let sum: u32 = nnue[2..5].iter().map(|x| x.parse::<u32>().unwrap()).sum();
    assert_eq!(sum, 1000, "{out:?}");
    e.send("setoption name UseNNUE value false");
    e.send("eval");
    let out = e.sync();
    assert!(out.last().unwrap().starts_with("nnue none"), "{out:?}");
    e.send("d");
    let out = e.sync();
    assert!(out.contains(&"Position: .../.W./.../....../.../.../... b 8 9 0 1".to_string()));
    assert!(out.iter().any(|l| l.starts_with("Hash: ")));
    assert!(out.iter().any(|l| l.starts_with("Legal moves: ")));
}

#[test]
fn show_wdl() {
    let mut e = Engine::start();
    let lines = e.go("depth 2");
    assert!(lines.iter().all(|l| !l.contains(" wdl ")));
    e.send("setoption name UCI_ShowWDL value true");
    let lines = e.go("depth 2");
    let info: Vec<_> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(!info.is_empty());
    for l in info {
        let parts: Vec<&str> = l.split(' ').collect();
        let i = parts.iter().position(|&p| p == "wdl").expect("wdl present");
        let sum: u32 = parts[i + 1..i + 4]
            .iter()
            .map(|p| p.parse::<u32>().unwrap())
            .sum();
        assert_eq!(sum, 1000, "{l}");
    }
}

#[test]
fn hash_beyond_memory_is_refused_and_the_engine_keeps_playing() {
    let mut e = Engine::start();
    e.send("position startpos moves d6 a1");
    assert_rejected(
        &mut e,
        b"setoption name Hash value 65536",
        "the table keeps its size",
    );
    let lines = e.go("depth 3");
    assert!(bestmove_of(&lines) != "0000");
}

/// `EvalFile`: a damaged or missing file is refused with a message and the network in use is
/// kept; a good file is taken; `<default>` goes back to the built-in one; play goes on.
#[test]
fn eval_file_refuses_damaged_networks() {
    let dir = std::env::temp_dir().join(format!("millstone-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.nnue");
    std::fs::write(&good, include_bytes!("../nets/nine.nnue")).unwrap();
    let bad = dir.join("bad.nnue");
    let mut bytes = include_bytes!("../nets/nine.nnue").to_vec();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&bad, &bytes).unwrap();

    let mut e = Engine::start();
    e.send("position startpos moves d6");
    e.send("eval");
    let before = e.sync().last().unwrap().clone();
    for (path, why) in [
        (bad.to_str().unwrap().to_string(), "checksum"),
        (
            dir.join("none.nnue").to_str().unwrap().to_string(),
            "cannot read",
        ),
    ] {
        e.send(&format!("setoption name EvalFile value {path}"));
        let out = e.sync();
        assert!(
            out.iter()
                .any(|l| l.starts_with("info string error") && l.contains(why)),
            "{out:?}"
        );
        e.send("eval");
        assert_eq!(e.sync().last().unwrap(), &before);
    }
    e.send(&format!("setoption name EvalFile value {}", good.display()));
    let out = e.sync();
    assert!(
        out.iter()
            .any(|l| l.contains("EvalFile: ") && l.contains("checksum")),
        "{out:?}"
    );
    e.send("setoption name EvalFile value <default>");
    e.sync();
    let out = e.go("depth 4");
    assert!(!bestmove_of(&out).is_empty(), "{out:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `setoption name Contempt` clears the hash only when the value changes (the table's drawn
/// lines carry the old contempt): the same search again finds its lines in the table after the
/// same value, and after another value and back it starts afresh, node for node.
#[test]
fn contempt_clears_the_hash_only_when_it_changes() {
    let mut e = Engine::start();
    e.send("setoption name TablePath value <empty>");
    e.send("setoption name BookPath value <empty>");
    e.send("position startpos moves d6 a1 d7");
    let nodes = |e: &mut Engine| -> u64 {
        let lines = e.go("depth 8");
        let info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth 8 "))
            .expect("an info line of the last depth");
        let mut words = info.split(' ').skip_while(|w| *w != "nodes");
        words.nth(1).unwrap().parse().unwrap()
    };
    let first = nodes(&mut e);
    // 50 is the default, the value the engine has.
    e.send("setoption name Contempt value 50");
    let kept = nodes(&mut e);
    e.send("setoption name Contempt value 10");
    e.send("setoption name Contempt value 50");
    let fresh = nodes(&mut e);
    assert!(
        kept < first,
        "{kept} nodes with the table kept, {first} at first"
    );
    assert_eq!(fresh, first);
}
