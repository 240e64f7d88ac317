//! Shared by the tests: start `mill-gui` on a free port, a reference engine to check the page
//! against, and the paths of the built programs.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The folder of the built programs (target/<profile>).
pub fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mill-gui"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A program of the workspace, built by `cargo test --workspace` (or by hand).
pub fn program(name: &str) -> PathBuf {
    let p = bin_dir().join(name);
    assert!(
        p.exists(),
        "{} is missing: run `cargo build --release --workspace` (or `cargo test --workspace --release`)",
        p.display()
    );
    p
}

/// A running `mill-gui`, killed when dropped.
pub struct Server {
    pub child: Child,
    pub url: String,
    pub port: u16,
}

/// An empty data directory, so that the tests see no tables or books but those they name
/// (a developer's machine may hold the complete set in the real one).
pub fn empty_data_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("mill-gui-tests-data-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("make the empty data directory");
    d
}

impl Server {
    pub fn start(extra: &[&str], engine: &[String]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mill-gui"));
        cmd.args(["--port", "0"]).args(extra);
        if !engine.is_empty() {
            cmd.arg("--engine").args(engine);
        }
        let mut child = cmd
            .env(
                "RUST_LOG",
                std::env::var("RUST_LOG").unwrap_or("warn".into()),
            )
            .env("MILLSTONE_DATA", empty_data_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start mill-gui");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).expect("mill-gui prints its URL");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in '{line}'"))
            .to_string();
        let port = url
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_ne!(port, 0, "the real port is printed");
        // Keep reading stdout so the server never blocks on it.
        std::thread::spawn(move || {
            let mut s = String::new();
            while out.read_line(&mut s).map(|n| n > 0).unwrap_or(false) {
                s.clear();
            }
        });
        Server { child, url, port }
    }

    pub fn with_millstone(extra: &[&str]) -> Server {
        Server::start(
            extra,
            &[program("millstone").to_string_lossy().into_owned()],
        )
    }

    pub fn ws_url(&self) -> String {
        format!("ws://127.0.0.1:{}/ws", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An engine of our own, to check what the page shows against.
pub struct RefEngine {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
}

impl RefEngine {
    pub fn start() -> RefEngine {
        let mut child = Command::new(program("millstone"))
            .env("MILLSTONE_DATA", empty_data_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start millstone");
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        RefEngine { child, stdin, out }
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn line(&mut self) -> String {
        let mut s = String::new();
        self.out.read_line(&mut s).unwrap();
        assert!(!s.is_empty(), "reference engine closed");
        s.trim_end().to_string()
    }

    /// Sends a command and a query; returns the response value (panics on an error line).
    pub fn query(&mut self, setup: &str, what: &str) -> String {
        if !setup.is_empty() {
            self.send(setup);
        }
        self.send(&format!("query {what}"));
        loop {
            let l = self.line();
            if let Some(v) = l.strip_prefix("response") {
                return v.trim().to_string();
            }
            if l.starts_with("info string error") {
                panic!("reference engine refused '{setup}': {l}");
            }
        }
    }

    pub fn position(moves: &str, fen: Option<&str>) -> String {
        let base = match fen {
            Some(f) => format!("position fen {f}"),
            None => "position startpos".to_string(),
        };
        if moves.trim().is_empty() {
            base
        } else {
            format!("{base} moves {moves}")
        }
    }

    /// The best move at a depth.
    pub fn best(&mut self, setup: &str, depth: u32) -> String {
        self.send(setup);
        self.send(&format!("go depth {depth}"));
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            assert!(Instant::now() < deadline, "reference engine too slow");
            let l = self.line();
            // `bestmove <move> [ponder <reply>]`
            if let Some(b) = l.strip_prefix("bestmove ") {
                return b.split_whitespace().next().unwrap_or("").to_string();
            }
        }
    }
}

impl Drop for RefEngine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether a process still runs (a zombie counts as gone).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

/// An engine that forwards to millstone until the Nth `go`, then crashes (or hangs).
pub fn wrapper(mode: &str, at: u32) -> String {
    let dir = bin_dir().join("gui-test-engines");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{mode}-{at}.sh"));
    let action = if mode == "crash" {
        "kill -9 $pid; exit 3"
    } else {
        "while true; do sleep 1; done"
    };
    let script = format!(
        r#"#!/bin/bash
f=$(mktemp -u); mkfifo "$f"
"{engine}" < "$f" &
pid=$!
exec 3>"$f"; rm -f "$f"
n=0
while IFS= read -r line; do
  case "$line" in go*) n=$((n+1)); if [ "$n" -ge {at} ]; then {action}; fi;; esac
  printf '%s\n' "$line" >&3
done
kill $pid
"#,
        engine = program("millstone").display()
    );
    std::fs::write(&path, script).unwrap();
    path.to_string_lossy().into_owned()
}

/// Small tables of nine: the moving phase up to 8 pieces, the placing sectors up to 8 pieces
/// of material (seconds to make), once per test binary.
pub fn small_tables() -> PathBuf {
    use millstone::tablebase::{file_name, placing, plan, solve_pair, Table};
    use millstone::Rules;
    use std::collections::HashMap;
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let rules = Rules::default();
        let dir = std::env::temp_dir().join(format!("mill-gui-tables-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut solved: HashMap<(u8, u8), Table> = HashMap::new();
        for job in plan(rules, 8, rules.variant.pieces()) {
            let (ts, _) = solve_pair(rules, job.w, job.b, &solved, &mut |_| {}).unwrap();
            for t in ts {
                t.write(&dir.join(file_name(rules, t.w, t.b))).unwrap();
                solved.insert((t.w, t.b), t);
            }
        }
        placing::generate(&dir, rules, 8, |_| {}).unwrap();
        dir
    })
    .clone()
}
