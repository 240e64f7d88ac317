//! `mill-serve-load` against a real server: the fuzzer's malformed requests must all be 4xx
//! refusals (it exits non-zero otherwise), a short load run must see no error, and the
//! agreement check must find the answers equal to the library's.

mod common;

use common::{tables, Server};
use std::process::Command;

fn load(server: &Server, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mill-serve-load"))
        .args([
            "--addr",
            &server.addr,
            "--pid",
            &server.child.id().to_string(),
        ])
        .args(args)
        .output()
        .expect("run mill-serve-load");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "mill-serve-load {args:?} failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn fuzzing_gets_only_4xx_and_the_server_lives() {
    let server = Server::start(tables(), &[]);
    let out = load(
        &server,
        &["--fuzz", "5000", "--clients", "8", "--seed", "3"],
    );
    assert!(
        out.contains("answers that were not 4xx: 0; server alive afterwards: true"),
        "{out}"
    );
    // Every kind of malformed request was sent.
    for kind in [
        "bad escape",
        "huge query",
        "traversal",
        "raw bytes",
        "wrong method",
        "impossible position",
    ] {
        assert!(out.contains(kind), "{kind} missing:\n{out}");
    }
}

#[test]
fn a_short_load_run_has_no_errors() {
    let server = Server::start(tables(), &["--cache", "1000"]);
    let out = load(
        &server,
        &["--duration", "2", "--games", "50", "--clients", "8"],
    );
    assert!(out.contains("errors (not 200): 0"), "{out}");
    assert!(out.contains("answers/s"), "{out}");
    assert!(out.contains("RssAnon"), "{out}");
}

#[test]
fn the_agreement_check_compares_answers_with_the_library() {
    let server = Server::start(tables(), &[]);
    let dir = tables().display().to_string();
    let out = load(
        &server,
        &[
            "--agree", "60", "--games", "300", "--tables", &dir, "--seed", "5",
        ],
    );
    // Random games reach the small tables' positions only near their ends; enough of them.
    let line = out
        .lines()
        .find(|l| l.starts_with("agreement: "))
        .unwrap_or_default();
    let compared: usize = line
        .trim_start_matches("agreement: ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(compared >= 60, "{out}");
    assert!(line.contains(" 0 differ"), "{out}");
}
