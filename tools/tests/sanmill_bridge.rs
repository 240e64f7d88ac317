//! `mill-sanmill` end to end, with the test engine speaking Sanmill's dialect in place of
//! Sanmill (which CI does not build): whole matches through the bridge in both variants, the
//! commands Sanmill receives, and the bridge's own answers to bad input.

mod common;
use common::*;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The `--engine` tokens of the test engine behind the bridge, logging what it is sent.
fn bridged(name: &str, seed: u64, log: &std::path::Path) -> Vec<String> {
    args(&[
        "--engine",
        &format!("cmd={SANMILL_BRIDGE}"),
        &format!("name={name}"),
        &format!("arg={TESTENGINE}"),
        "arg=--sanmill",
        &format!("arg=--seed={seed}"),
        &format!("arg=--log={}", log.display()),
        "option.SkillLevel=30",
    ])
}

#[test]
fn matches_through_the_bridge_are_legal_in_both_variants() {
    for (variant, flying) in [("nine", true), ("twelve", false)] {
        let d = scratch(&format!("bridge-{variant}"));
        let (log, jsonl) = (d.join("sanmill.log"), d.join("games.jsonl"));
        let mut a = bridged("sanmill", 4, &log);
        if !flying {
            a.push("--no-flying".into());
        }
        a.extend(args(&[
            "--engine",
            "builtin=greedy",
            "--variant",
            variant,
            "--movetime",
            "200",
            "--timemargin",
            "1000",
            "--games",
            "8",
            "--random-opening",
            "2",
            "--seed",
            "9",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ]));
        let (out, _) = run_ok(MATCH, &a);
        // `records` replays every game through the library: each move was legal.
        let recs = records(&jsonl);
        assert_eq!(recs.len(), 8, "{out}");
        let mut mills = 0;
        for r in &recs {
            assert!(
                !["crash", "stall", "illegal", "timeout"].contains(&r.reason.as_str()),
                "{r:?}"
            );
            let side = usize::from(r.white != "sanmill");
            mills += r
                .moves
                .iter()
                .skip(side)
                .step_by(2)
                .filter(|m| m.contains('x'))
                .count();
        }
        // Its mills came back as our one-token moves, removal included.
        assert!(
            mills > 0,
            "{variant}: the bridged engine closed no mill in 8 games"
        );
        let log = std::fs::read_to_string(&log).unwrap();
        let pieces = if variant == "twelve" { "12" } else { "9" };
        assert!(
            log.contains(&format!("setoption name PiecesCount value {pieces}")),
            "{log}"
        );
        assert!(
            log.contains(&format!("setoption name MayFly value {flying}")),
            "{log}"
        );
        assert!(log.contains("setoption name SkillLevel value 30"), "{log}");
        assert!(log.contains("setoption name MoveTime value 1"), "{log}");
        // Removals go to Sanmill as moves of their own, its positions as its own strings.
        let positions: Vec<&str> = log.lines().filter(|l| l.starts_with("position")).collect();
        assert!(
            positions
                .iter()
                .any(|l| l.split(' ').any(|t| t.starts_with('x'))),
            "{log}"
        );
        for l in &positions {
            let moves = l.split(" moves ").nth(1).unwrap_or("");
            assert!(
                moves
                    .split(' ')
                    .all(|t| t.starts_with('x') || !t.contains('x')),
                "{l}"
            );
        }
        assert!(positions
            .iter()
            .any(|l| l.starts_with("position fen ") && l.contains(" p p ")));
        assert!(
            log.lines().all(|l| !l.starts_with("go ")),
            "Sanmill's go takes no limits"
        );
    }
}

/// The bridge's own side of the protocol: the handshake (Sanmill's options but the rules and
/// Ponder, ours added), errors for bad input, a move after them, and a prompt quit.
#[test]
fn the_bridge_answers_bad_input_and_plays_on() {
    let mut child = Command::new(SANMILL_BRIDGE)
        .args([TESTENGINE, "--sanmill"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines() {
            let Ok(l) = l else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    let mut ask = |cmd: &str, until: &str| -> Vec<String> {
        writeln!(stdin, "{cmd}").unwrap();
        stdin.flush().unwrap();
        let mut got = Vec::new();
        loop {
            let l = rx
                .recv_timeout(Duration::from_secs(10))
                .unwrap_or_else(|_| panic!("no '{until}' after '{cmd}': {got:?}"));
            let done = l.starts_with(until);
            got.push(l);
            if done {
                return got;
            }
        }
    };
    let hello = ask("uci", "uciok");
    assert!(
        hello[0].starts_with("id name mill-testengine (through mill-sanmill)"),
        "{hello:?}"
    );
    assert!(hello
        .iter()
        .any(|l| l.starts_with("option name SkillLevel")));
    assert!(hello
        .iter()
        .any(|l| l.starts_with("option name UCI_Variant")));
    assert!(!hello.iter().any(|l| l.starts_with("option name Ponder")));
    assert!(!hello
        .iter()
        .any(|l| l.starts_with("option name PiecesCount")));
    assert_eq!(ask("isready", "readyok"), ["readyok"]);
    for bad in [
        "position startpos moves zz",
        "position startpos moves d6 d6",
        "position fen W../.../... w 9 9 0 1",
        "setoption name UCI_Variant value thirteen",
        "frobnicate",
    ] {
        let got = ask(bad, "info string error:");
        assert_eq!(got.len(), 1, "{bad}: {got:?}");
    }
    // A position string of ours (Sanmill gets its own) and a legal move of it back.
    let fen = "W../.../.../W....B/.../.B./... w 7 7 0 3";
    let got = ask(&format!("position fen {fen}\nisready"), "readyok");
    assert_eq!(got, ["readyok"]);
    let got = ask("go movetime 100", "bestmove");
    let mv: millstone::Move = got.last().unwrap()["bestmove ".len()..].parse().unwrap();
    let pos = millstone::Position::from_fen(fen, Default::default()).unwrap();
    assert!(pos.legal_moves().contains(mv), "{mv} in {fen}");
    writeln!(stdin, "quit").unwrap();
    for _ in 0..200 {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the bridge did not quit");
}
