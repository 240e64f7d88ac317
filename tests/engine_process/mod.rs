//! The engine binary driven over pipes, shared by the protocol tests. Every read has a
//! timeout, so a silent engine fails a test instead of hanging the suite.
#![allow(dead_code)]

use millstone::{Game, Move};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(20);

pub struct Engine {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    rx: Receiver<String>,
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_command(Command::new(env!("CARGO_BIN_EXE_millstone")))
    }

    /// The engine started by `cmd` (its environment set by the caller), over pipes.
    pub fn start_command(mut cmd: Command) -> Engine {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the engine starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        let s = String::from_utf8(buf.clone()).expect("output is UTF-8");
                        if tx.send(s.trim_end_matches('\n').to_string()).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stdin = child.stdin.take();
        Engine { child, stdin, rx }
    }

    pub fn send_bytes(&mut self, b: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(b).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    pub fn recv(&self, timeout: Duration) -> Option<String> {
        match self.rx.recv_timeout(timeout) {
            Ok(l) => Some(l),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// All lines up to and including the first that starts with `prefix`.
    pub fn until(&self, prefix: &str) -> Vec<String> {
        let deadline = Instant::now() + TIMEOUT;
        let mut v = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let l = self
                .recv(left)
                .unwrap_or_else(|| panic!("no '{prefix}' line in time; got {v:?}"));
            let done = l.starts_with(prefix);
            v.push(l);
            if done {
                return v;
            }
        }
    }

    /// Sends `isready` and returns what came before `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut v = self.until("readyok");
        v.pop();
        v
    }

    pub fn query(&mut self, what: &str) -> String {
        self.send(&format!("query {what}"));
        let l = self.until("response").pop().unwrap();
        l.strip_prefix("response").unwrap().trim().to_string()
    }

    /// Sends a `go` and returns its lines, `bestmove` last.
    pub fn go(&mut self, args: &str) -> Vec<String> {
        self.send(&format!("go {args}"));
        self.until("bestmove")
    }

    pub fn is_alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Waits for the process to end; its exit time.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<Duration> {
        let t = Instant::now();
        while t.elapsed() < limit {
            if self.child.try_wait().unwrap().is_some() {
                return Some(t.elapsed());
            }
            thread::sleep(Duration::from_millis(1));
        }
        None
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of the last line, `bestmove <move> [ponder <move>]`.
pub fn bestmove_of(lines: &[String]) -> String {
    bestmove_and_ponder(lines).0
}

/// The move and the expected reply of the last line, `bestmove <move> [ponder <move>]`.
pub fn bestmove_and_ponder(lines: &[String]) -> (String, Option<String>) {
    let l = lines.last().unwrap();
    let rest = l.strip_prefix("bestmove ").unwrap();
    let mut words = rest.split(' ');
    let best = words.next().unwrap().to_string();
    match (words.next(), words.next(), words.next()) {
        (None, _, _) => (best, None),
        (Some("ponder"), Some(p), None) => (best, Some(p.to_string())),
        _ => panic!("bad bestmove line {l:?}"),
    }
}

pub fn position_cmd(moves: &[Move]) -> String {
    let mut s = "position startpos moves".to_string();
    for m in moves {
        s.push(' ');
        s.push_str(&m.to_string());
    }
    s
}

/// Checks a `go`'s lines against the game: the best move and every pv's first move are legal.
pub fn check_legal(game: &Game, lines: &[String]) {
    let legal = game.legal_moves();
    for l in lines {
        if let Some(pv) = l.split(" pv ").nth(1) {
            let first: Move = pv.split(' ').next().unwrap().parse().unwrap();
            assert!(legal.contains(first), "pv move {first} illegal in {l}");
        }
    }
    let best = bestmove_of(lines);
    if game.outcome().is_some() {
        assert_eq!(best, "0000");
    } else {
        let m: Move = best.parse().unwrap();
        assert!(
            legal.contains(m),
            "bestmove {best} illegal in {:?}",
            game.position()
        );
        if let (_, Some(p)) = bestmove_and_ponder(lines) {
            let mut after = game.clone();
            after.play(m).unwrap();
            let p: Move = p.parse().unwrap();
            assert!(
                after.legal_moves().contains(p),
                "ponder move {p} illegal after {best}"
            );
        }
    }
}
