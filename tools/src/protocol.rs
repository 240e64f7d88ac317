//! The client side of the engine protocol: an engine as a subprocess, spoken to over its
//! standard input and output, with every wait bounded by a deadline.
//!
//! A reader thread turns the engine's output into lines on a channel, so a crashed engine
//! (end of output) and a stalled one (no line before the deadline) are told apart from a
//! slow one without blocking the runner.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How to start an engine process and what to set in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcessSpec {
    /// The program.
    pub cmd: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory, if not the runner's.
    pub dir: Option<PathBuf>,
    /// `setoption name <id> value <x>` pairs sent after the handshake, in order.
    pub options: Vec<(String, String)>,
    /// Its own time a move, in place of the match's `--movetime`: time odds, or an engine
    /// that is only measured at one speed.
    pub movetime: Option<Duration>,
}

/// Why talking to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The process could not start, exited, or closed its pipes.
    Crashed(String),
    /// No expected answer before the deadline.
    Timeout(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Crashed(s) => write!(f, "engine crashed: {s}"),
            EngineError::Timeout(s) => write!(f, "engine timed out: {s}"),
        }
    }
}

impl std::error::Error for EngineError {}

/// What an engine answered to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoReply {
    /// The move token after `bestmove`, as sent (empty if nothing followed).
    pub bestmove: String,
    /// The move after `ponder` in `bestmove X ponder Y`: the reply the engine expects.
    pub ponder: Option<String>,
    /// The last main-line score before it: `cp 35` or `mate -3`.
    pub score: Option<String>,
    /// The depth of that line.
    pub depth: Option<u32>,
    /// Time from sending `go` to reading `bestmove`.
    pub elapsed: Duration,
}

enum Line {
    Text(String),
    Eof,
}

/// A running engine process.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Line>,
    /// The name from `id name`, if the engine sent one.
    pub id_name: Option<String>,
    /// The `option ...` lines of the handshake.
    pub option_lines: Vec<String>,
    dead: bool,
}

impl fmt::Debug for EngineProcess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EngineProcess")
            .field("pid", &self.child.id())
            .field("id_name", &self.id_name)
            .finish()
    }
}

impl EngineProcess {
    /// Starts the program and does the handshake (`uci` ... `uciok`), then sends the options
    /// and waits for `readyok`. Each wait is bounded by `timeout`.
    pub fn start(
        spec: &ProcessSpec,
        pre_options: &[(String, String)],
        timeout: Duration,
    ) -> Result<EngineProcess, EngineError> {
        let mut cmd = Command::new(&spec.cmd);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(d) = &spec.dir {
            cmd.current_dir(d);
        }
        let mut child = cmd.spawn().map_err(|e| {
            EngineError::Crashed(format!("cannot start {}: {e}", spec.cmd.display()))
        })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("engine-reader".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => {
                            let _ = tx.send(Line::Eof);
                            return;
                        }
                        Ok(_) => {
                            let s = String::from_utf8_lossy(&buf).trim().to_string();
                            if tx.send(Line::Text(s)).is_err() {
                                return;
                            }
                        }
                    }
                }
            })
            .expect("spawn reader thread");
        let mut p = EngineProcess {
            child,
            stdin,
            rx,
            id_name: None,
            option_lines: Vec::new(),
            dead: false,
        };
        p.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = p.recv(deadline, "no uciok after uci")?;
            if let Some(name) = line.strip_prefix("id name ") {
                p.id_name = Some(name.trim().to_string());
            } else if line.starts_with("option ") {
                p.option_lines.push(line);
            } else if line == "uciok" {
                break;
            }
        }
        for (name, value) in pre_options.iter().chain(spec.options.iter()) {
            p.send(&format!("setoption name {name} value {value}"))?;
        }
        p.sync(timeout)?;
        Ok(p)
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        if self.dead {
            return Err(EngineError::Crashed("the process has exited".into()));
        }
        let r = writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush());
        r.map_err(|e| {
            self.dead = true;
            EngineError::Crashed(format!("{} ({e})", self.exit_status()))
        })
    }

    fn exit_status(&mut self) -> String {
        // Give a dying process a moment to be reaped so that its status can be told.
        for _ in 0..20 {
            if let Ok(Some(st)) = self.child.try_wait() {
                return format!("process exited with {st}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        "output closed".to_string()
    }

    fn recv(&mut self, deadline: Instant, what: &str) -> Result<String, EngineError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(Line::Text(s)) => Ok(s),
            Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.dead = true;
                Err(EngineError::Crashed(self.exit_status()))
            }
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout(what.to_string())),
        }
    }

    /// `isready` and wait for `readyok`.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.recv(deadline, "no readyok after isready")? != "readyok" {}
        Ok(())
    }

    /// `ucinewgame` and a sync.
    pub fn new_game(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("ucinewgame")?;
        self.sync(timeout)
    }

    /// Sends the position and `go <go_args>`, then reads until `bestmove` or the deadline.
    /// At the deadline the engine is told to `stop` and given `grace` to answer; its late
    /// answer is discarded and the error says it timed out.
    pub fn go(
        &mut self,
        position: &str,
        go_args: &str,
        deadline: Instant,
        grace: Duration,
    ) -> Result<GoReply, EngineError> {
        self.send(position)?;
        let t0 = Instant::now();
        self.send(format!("go {go_args}").trim_end())?;
        self.read_bestmove(t0, deadline, grace)
    }

    /// Starts a ponder search: the position (with the predicted reply as its last move) and
    /// `go ponder <go_args>`. The engine answers only after [`ponderhit`](Self::ponderhit) or
    /// [`stop_ponder`](Self::stop_ponder).
    pub fn go_ponder(&mut self, position: &str, go_args: &str) -> Result<(), EngineError> {
        self.send(position)?;
        self.send(format!("go ponder {go_args}").trim_end())
    }

    /// `ponderhit`: the predicted move was played, the ponder search becomes a normal one.
    /// Reads until `bestmove` as [`go`](Self::go) does; `elapsed` counts from the
    /// `ponderhit`. Info lines of the ponder phase count for the score.
    pub fn ponderhit(
        &mut self,
        deadline: Instant,
        grace: Duration,
    ) -> Result<GoReply, EngineError> {
        let t0 = Instant::now();
        self.send("ponderhit")?;
        self.read_bestmove(t0, deadline, grace)
    }

    /// `stop` to a ponder search whose prediction missed, and reads (and discards) its
    /// `bestmove`, waiting until `deadline`. An engine that does not answer in time is marked
    /// dead (it must be restarted) and the error says it timed out.
    pub fn stop_ponder(&mut self, deadline: Instant) -> Result<(), EngineError> {
        self.send("stop")?;
        loop {
            match self.recv(deadline, "no bestmove after stop of a ponder search") {
                Ok(l) if l.split_whitespace().next() == Some("bestmove") => return Ok(()),
                Ok(_) => {}
                Err(e) => {
                    self.dead = true;
                    return Err(e);
                }
            }
        }
    }

    fn read_bestmove(
        &mut self,
        t0: Instant,
        deadline: Instant,
        grace: Duration,
    ) -> Result<GoReply, EngineError> {
        let mut score = None;
        let mut depth = None;
        loop {
            let line = match self.recv(deadline, "no bestmove in time") {
                Ok(l) => l,
                Err(EngineError::Timeout(msg)) => {
                    // Let it answer the stop so that it can be used again; otherwise the
                    // caller must restart it.
                    if self.send("stop").is_err() {
                        return Err(EngineError::Timeout(msg));
                    }
                    let until = Instant::now() + grace;
                    loop {
                        match self.recv(until, "") {
                            Ok(l) if l.starts_with("bestmove") => break,
                            Ok(_) => {}
                            Err(_) => {
                                self.dead = true;
                                break;
                            }
                        }
                    }
                    return Err(EngineError::Timeout(msg));
                }
                Err(e) => return Err(e),
            };
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("bestmove") => {
                    let bestmove = tokens.next().unwrap_or("").to_string();
                    let ponder = match (tokens.next(), tokens.next()) {
                        (Some("ponder"), Some(m)) => Some(m.to_string()),
                        _ => None,
                    };
                    return Ok(GoReply {
                        bestmove,
                        ponder,
                        score,
                        depth,
                        elapsed: t0.elapsed(),
                    });
                }
                Some("info") => {
                    let (s, d) = parse_info(&line);
                    if s.is_some() {
                        score = s;
                        depth = d.or(depth);
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether the engine offered an option of this name in the handshake.
    pub fn has_option(&self, name: &str) -> bool {
        self.option_lines.iter().any(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let at = t.iter().position(|x| *x == "name");
            let end = t.iter().position(|x| *x == "type").unwrap_or(t.len());
            at.is_some_and(|a| a < end && t[a + 1..end].join(" ").eq_ignore_ascii_case(name))
        })
    }

    /// Whether the process is known to be unusable (crashed, or did not answer a stop).
    pub fn is_dead(&self) -> bool {
        self.dead
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// The main-line score and depth of an `info` line: `(Some("cp 35"), Some(8))`. Lines of
/// other principal variations (`multipv 2` and up) and lines without a score give `None`.
pub fn parse_info(line: &str) -> (Option<String>, Option<u32>) {
    let t: Vec<&str> = line.split_whitespace().collect();
    let mut score = None;
    let mut depth = None;
    let mut i = 1;
    while i < t.len() {
        match t[i] {
            "multipv" if t.get(i + 1).is_some_and(|v| *v != "1") => return (None, None),
            "depth" => depth = t.get(i + 1).and_then(|d| d.parse().ok()),
            "score" => {
                if let (Some(&kind @ ("cp" | "mate")), Some(v)) = (t.get(i + 1), t.get(i + 2)) {
                    if let Ok(v) = v.parse::<i64>() {
                        score = Some(format!("{kind} {v}"));
                    }
                }
            }
            "pv" | "string" => break,
            _ => {}
        }
        i += 1;
    }
    (score, depth)
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.dead && self.send("quit").is_ok() {
            for _ in 0..20 {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines() {
        assert_eq!(
            parse_info("info depth 8 seldepth 12 score cp -35 nodes 100 pv d6 a1"),
            (Some("cp -35".into()), Some(8))
        );
        assert_eq!(
            parse_info("info depth 3 multipv 1 score mate 2 pv d6"),
            (Some("mate 2".into()), Some(3))
        );
        assert_eq!(
            parse_info("info depth 3 multipv 2 score cp 5"),
            (None, None)
        );
        assert_eq!(parse_info("info string score cp 5"), (None, None));
        assert_eq!(parse_info("info score cp x"), (None, None));
    }
}
