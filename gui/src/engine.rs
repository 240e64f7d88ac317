//! One engine process spoken to through the text protocol (protocol.md): start, the `uci`
//! handshake, commands with their answers in order (`isready` as the fence), searches, stop.
//!
//! Every line written to the engine is composed here or in `session.rs` from typed, checked
//! values; nothing a page sends reaches the engine as text.

use serde::Serialize;
use std::collections::VecDeque;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// How long an engine may take to answer `isready` or a query before it counts as hung.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the `uci` handshake may take.
pub const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `readyok` may take after `TablePath`: Millstone answers it once every table file
/// is checked, seconds for the complete set of nine from the page cache, more from a cold disk.
pub const TABLES_TIMEOUT: Duration = Duration::from_secs(300);

/// Why the engine cannot be used any more.
#[derive(Debug, Clone)]
pub enum EngineError {
    /// The process exited or closed its output.
    Crashed(String),
    /// It did not answer in time.
    Hung(String),
    /// It could not be started.
    Spawn(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Crashed(s) => write!(f, "the engine crashed: {s}"),
            EngineError::Hung(s) => write!(f, "the engine stopped answering: {s}"),
            EngineError::Spawn(s) => write!(f, "the engine could not be started: {s}"),
        }
    }
}

/// An option as the engine announced it in `uci`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UciOption {
    pub name: String,
    pub kind: String,
    pub default: Option<String>,
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub vars: Vec<String>,
}

/// Parses `option name <name> type <t> [default <d>] [min <n>] [max <n>] [var <v>]*`.
pub fn parse_option(line: &str) -> Option<UciOption> {
    let t: Vec<&str> = line.split_whitespace().collect();
    if t.first() != Some(&"option") || t.get(1) != Some(&"name") {
        return None;
    }
    let keys = ["type", "default", "min", "max", "var"];
    let type_at = t.iter().position(|w| *w == "type")?;
    let name = t[2..type_at].join(" ");
    if name.is_empty() {
        return None;
    }
    let mut opt = UciOption {
        name,
        kind: String::new(),
        default: None,
        min: None,
        max: None,
        vars: Vec::new(),
    };
    let mut i = type_at;
    while i < t.len() {
        let key = t[i];
        let mut j = i + 1;
        while j < t.len() && !keys.contains(&t[j]) {
            j += 1;
        }
        let val = t[i + 1..j].join(" ");
        match key {
            "type" => opt.kind = val,
            "default" => opt.default = Some(val),
            "min" => opt.min = val.parse().ok(),
            "max" => opt.max = val.parse().ok(),
            "var" => opt.vars.push(val),
            _ => {}
        }
        i = j;
    }
    Some(opt)
}

/// A score as the engine reports it.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(tag = "kind", content = "value", rename_all = "lowercase")]
pub enum Score {
    Cp(i64),
    Mate(i64),
}

impl Score {
    /// A number for comparisons and the graph, from the same point of view: a mate counts as
    /// 100000 less its distance.
    pub fn scalar(self) -> i64 {
        match self {
            Score::Cp(c) => c,
            Score::Mate(n) if n > 0 => 100_000 - n,
            Score::Mate(n) => -100_000 - n,
        }
    }
    pub fn neg(self) -> Score {
        match self {
            Score::Cp(c) => Score::Cp(-c),
            Score::Mate(n) => Score::Mate(-n),
        }
    }
    /// Win (1), draw-ish (0) or loss (-1) verdict: a mate, or an endgame-table result (a cp
    /// value beyond 19000, protocol.md "Scores").
    pub fn verdict(self) -> i32 {
        match self {
            Score::Mate(n) if n > 0 => 1,
            Score::Mate(_) => -1,
            Score::Cp(c) if c >= TB_CP => 1,
            Score::Cp(c) if c <= -TB_CP => -1,
            Score::Cp(_) => 0,
        }
    }
}

/// `cp` values from here on are endgame-table wins (protocol.md, "Scores").
pub const TB_CP: i64 = 19000;

/// One `info` line of a search.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Info {
    pub depth: Option<u64>,
    pub seldepth: Option<u64>,
    pub multipv: Option<u64>,
    pub score: Option<Score>,
    pub bound: Option<String>,
    pub wdl: Option<[u64; 3]>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub tbhits: Option<u64>,
    pub hashfull: Option<u64>,
    pub time: Option<u64>,
    pub pv: Vec<String>,
}

/// Parses an `info` line that carries search data (not `info string`).
pub fn parse_info(line: &str) -> Option<Info> {
    let t: Vec<&str> = line.split_whitespace().collect();
    if t.first() != Some(&"info") || t.get(1) == Some(&"string") {
        return None;
    }
    let mut info = Info::default();
    let num = |i: usize| t.get(i).and_then(|s| s.parse::<u64>().ok());
    let mut i = 1;
    while i < t.len() {
        match t[i] {
            "depth" => info.depth = num(i + 1),
            "seldepth" => info.seldepth = num(i + 1),
            "multipv" => info.multipv = num(i + 1),
            "nodes" => info.nodes = num(i + 1),
            "nps" => info.nps = num(i + 1),
            "tbhits" => info.tbhits = num(i + 1),
            "hashfull" => info.hashfull = num(i + 1),
            "time" => info.time = num(i + 1),
            "score" => {
                let v = t.get(i + 2).and_then(|s| s.parse::<i64>().ok());
                info.score = match (t.get(i + 1), v) {
                    (Some(&"cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some(&"mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => None,
                };
                i += 3;
                continue;
            }
            "lowerbound" | "upperbound" => {
                info.bound = Some(t[i].to_string());
                i += 1;
                continue;
            }
            "wdl" => {
                if let (Some(w), Some(d), Some(l)) = (num(i + 1), num(i + 2), num(i + 3)) {
                    info.wdl = Some([w, d, l]);
                }
                i += 4;
                continue;
            }
            "pv" => {
                info.pv = t[i + 1..]
                    .iter()
                    .filter(|m| crate::validate::is_move_token(m))
                    .map(|m| m.to_string())
                    .collect();
                break;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    Some(info)
}

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    /// Lines read while waiting for something else: search output to handle later.
    deferred: VecDeque<String>,
    pub pid: u32,
    pub name: String,
    pub options: Vec<UciOption>,
    /// Whether a `go` was accepted and its `bestmove` not yet read.
    pub searching: bool,
}

impl Engine {
    /// Starts the engine and does the `uci` handshake.
    pub async fn start(cmd: &[String]) -> Result<Engine, EngineError> {
        let (prog, args) = cmd
            .split_first()
            .ok_or_else(|| EngineError::Spawn("no engine command".into()))?;
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| EngineError::Spawn(format!("{prog}: {e}")))?;
        let pid = child.id().unwrap_or(0);
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel(4096);
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        // An over-long line is cut: the protocol's lines are short.
                        buf.truncate(1 << 16);
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        log::trace!("engine> {line}");
                        if tx.send(line).await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut engine = Engine {
            child,
            stdin,
            lines: rx,
            deferred: VecDeque::new(),
            pid,
            name: prog.clone(),
            options: Vec::new(),
            searching: false,
        };
        engine.send("uci").await?;
        loop {
            let line = engine.next_line(START_TIMEOUT).await?;
            if line == "uciok" {
                break;
            }
            if let Some(n) = line.strip_prefix("id name ") {
                engine.name = n.trim().to_string();
            } else if let Some(o) = parse_option(&line) {
                engine.options.push(o);
            }
        }
        log::info!("engine '{}' started, pid {}", engine.name, engine.pid);
        Ok(engine)
    }

    /// The option with this name (case-insensitive), as announced.
    pub fn option(&self, name: &str) -> Option<&UciOption> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// Writes one line. The caller composes it from checked values only.
    pub async fn send(&mut self, line: &str) -> Result<(), EngineError> {
        debug_assert!(!line.contains('\n') && !line.contains('\r'));
        log::debug!("engine< {line}");
        let mut data = line.as_bytes().to_vec();
        data.push(b'\n');
        self.stdin
            .write_all(&data)
            .await
            .map_err(|e| self.crash_reason(e.to_string()))?;
        self.stdin
            .flush()
            .await
            .map_err(|e| self.crash_reason(e.to_string()))
    }

    fn crash_reason(&mut self, what: String) -> EngineError {
        match self.child.try_wait() {
            Ok(Some(status)) => EngineError::Crashed(format!("exited with {status}")),
            _ => EngineError::Crashed(what),
        }
    }

    /// The next line from the engine, waiting at most `timeout`.
    pub async fn next_line(&mut self, timeout: Duration) -> Result<String, EngineError> {
        match tokio::time::timeout(timeout, self.lines.recv()).await {
            Ok(Some(l)) => Ok(l),
            Ok(None) => {
                // Give the process a moment to be reaped so the status can be named.
                let status = tokio::time::timeout(Duration::from_millis(500), self.child.wait())
                    .await
                    .ok()
                    .and_then(|r| r.ok());
                Err(EngineError::Crashed(match status {
                    Some(s) => format!("it exited ({s})"),
                    None => "it closed its output".into(),
                }))
            }
            Err(_) => Err(EngineError::Hung(format!(
                "no answer within {} ms",
                timeout.as_millis()
            ))),
        }
    }

    /// The next line for the main loop: kept-back lines first, then the pipe.
    pub async fn recv(&mut self) -> Option<String> {
        if let Some(l) = self.deferred.pop_front() {
            return Some(l);
        }
        self.lines.recv().await
    }

    /// Sends the commands, then `isready`, and returns the answer lines (`response ...` and
    /// `info string error: ...`, in order) that came before `readyok`. Search output read
    /// meanwhile is kept for the main loop.
    pub async fn sync(&mut self, cmds: &[String]) -> Result<Vec<String>, EngineError> {
        self.sync_within(cmds, ANSWER_TIMEOUT).await
    }

    /// [`Engine::sync`], waiting up to `timeout` for each line.
    pub async fn sync_within(
        &mut self,
        cmds: &[String],
        timeout: Duration,
    ) -> Result<Vec<String>, EngineError> {
        for c in cmds {
            self.send(c).await?;
        }
        self.send("isready").await?;
        let mut answers = Vec::new();
        loop {
            let line = self.next_line(timeout).await?;
            if line == "readyok" {
                return Ok(answers);
            }
            if line.starts_with("response")
                || line.starts_with("info string error")
                || line.starts_with("value ")
                || line.starts_with("values ")
            {
                answers.push(line);
            } else if line.starts_with("info") || line.starts_with("bestmove") {
                self.deferred.push_back(line);
            } else {
                log::debug!("engine line ignored: {line}");
            }
        }
    }

    /// `query <what>`: Ok(value) for `response <value>`, Err(message) for an error line.
    pub async fn query(&mut self, what: &str) -> Result<Result<String, String>, EngineError> {
        let answers = self.sync(&[format!("query {what}")]).await?;
        Ok(match answers.first() {
            Some(a) if a.starts_with("response") => {
                Ok(a.strip_prefix("response").unwrap_or("").trim().to_string())
            }
            Some(a) => Err(a.clone()),
            None => Err("no answer".into()),
        })
    }

    /// Stops a running search and waits for its `bestmove`; its output is thrown away.
    pub async fn stop(&mut self) -> Result<(), EngineError> {
        if !self.searching {
            return Ok(());
        }
        // The search may have ended already, its lines kept back.
        let had_best = self.deferred.iter().any(|l| l.starts_with("bestmove"));
        self.deferred.clear();
        self.searching = false;
        if had_best {
            return Ok(());
        }
        self.send("stop").await?;
        loop {
            let line = self.next_line(ANSWER_TIMEOUT).await?;
            if line.starts_with("bestmove") {
                return Ok(());
            }
        }
    }

    /// Asks the process to quit and kills it if it does not.
    pub async fn shutdown(mut self) {
        let _ = self.send("quit").await;
        if tokio::time::timeout(Duration::from_millis(300), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
        let _ = self.child.wait().await;
        log::info!("engine pid {} ended", self.pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_scores_are_verdicts() {
        assert_eq!(Score::Cp(19975).verdict(), 1);
        assert_eq!(Score::Cp(-19000).verdict(), -1);
        assert_eq!(Score::Cp(1800).verdict(), 0);
        assert_eq!(Score::Mate(-3).verdict(), -1);
    }

    #[test]
    fn options() {
        let o =
            parse_option("option name Move Overhead type spin default 30 min 0 max 5000").unwrap();
        assert_eq!(o.name, "Move Overhead");
        assert_eq!((o.min, o.max), (Some(0), Some(5000)));
        let o = parse_option("option name UCI_Variant type combo default nine var nine var twelve")
            .unwrap();
        assert_eq!(o.vars, vec!["nine", "twelve"]);
        let o = parse_option("option name Clear Hash type button").unwrap();
        assert_eq!(o.kind, "button");
        assert!(parse_option("option name  type spin").is_none());
    }

    #[test]
    fn info() {
        let i = parse_info("info depth 4 seldepth 5 multipv 2 score cp -16 wdl 94 756 150 nodes 1519 nps 3595172 hashfull 0 tbhits 0 time 0 pv d7 b6 f6 b4").unwrap();
        assert_eq!(i.depth, Some(4));
        assert_eq!(i.multipv, Some(2));
        assert_eq!(i.score, Some(Score::Cp(-16)));
        assert_eq!(i.wdl, Some([94, 756, 150]));
        assert_eq!(i.pv, vec!["d7", "b6", "f6", "b4"]);
        let i = parse_info("info depth 0 score mate 0").unwrap();
        assert_eq!(i.score, Some(Score::Mate(0)));
        assert!(parse_info("info string hello").is_none());
    }
}
