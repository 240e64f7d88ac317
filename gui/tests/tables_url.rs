//! `mill-gui --tables-url`: the hints and the review's proofs from a real `mill-serve` equal
//! those from the same tables given to the engine (`--tables`), position by position and mark
//! by mark; and a table server that is down, silent, talks garbage or not HTTP, or sends too
//! much leaves the page working
//! without exact values (the reason said, the search's estimates), within the client's timeout
//! once and at once after that.

mod common;

use common::{program, small_tables, Server};
use futures_util::{SinkExt, StreamExt};
use millstone::tablebase::sample::{sample, Distribution, SampleOptions};
use millstone::tablebase::{Tablebase, Wdl};
use millstone::{Position, Rules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio_tungstenite::{connect_async, tungstenite::Message, MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

/// A running `mill-serve` over a directory, killed when dropped.
struct MillServe {
    child: Child,
    url: String,
}

/// `GET path` with a fresh connection: the status line's code and the body.
fn http_get(addr: &str, path: &str) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut text = String::new();
    s.read_to_string(&mut text)?;
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    Ok((code, body))
}

impl MillServe {
    fn start(dir: &std::path::Path) -> MillServe {
        let mut child = Command::new(program("mill-serve"))
            .arg("--tables")
            .arg(dir)
            .args(["--listen", "127.0.0.1:0"])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start mill-serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("mill-serve prints its address");
        let addr = line
            .split("http://")
            .nth(1)
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim()
            .trim_end_matches('/')
            .to_string();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (code, body) = http_get(&addr, "/api/v1/info").expect("info answers");
            assert_eq!(code, 200, "{body}");
            let v: Value = serde_json::from_str(&body).unwrap();
            if v["ready"] == true {
                break;
            }
            assert!(Instant::now() < deadline, "mill-serve not ready in 60 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        MillServe {
            child,
            url: format!("http://{addr}"),
        }
    }
}

impl Drop for MillServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn connect(s: &Server) -> Ws {
    let (ws, _) = connect_async(s.ws_url()).await.expect("connect");
    ws
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next `state` message for which `f` holds (others are skipped), within `secs`.
async fn state_where(ws: &mut Ws, what: &str, secs: u64, f: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = tokio::time::timeout(left, ws.next())
            .await
            .unwrap_or_else(|_| panic!("no state with {what} within {secs} s"));
        match m {
            Some(Ok(Message::Text(t))) => {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if v["type"] == "error" {
                    panic!("refused while waiting for {what}: {v}");
                }
                if v["type"] == "state" && f(&v) {
                    return v;
                }
            }
            Some(Ok(_)) => {}
            other => panic!("socket ended waiting for {what}: {other:?}"),
        }
    }
}

/// A tab with two human players and hints on.
async fn tab(s: &Server) -> Ws {
    let mut ws = connect(s).await;
    state_where(&mut ws, "the start", 30, |_| true).await;
    send(
        &mut ws,
        json!({"type": "set_players", "white": "human", "black": "human"}),
    )
    .await;
    send(&mut ws, json!({"type": "hints", "on": true})).await;
    state_where(&mut ws, "hints on", 30, |v| !v["hints"].is_null()).await;
    ws
}

/// Sets the position and returns the state's hints once they are there.
async fn hints_at(ws: &mut Ws, fen: &str) -> Value {
    send(ws, json!({"type": "set_fen", "fen": fen})).await;
    let st = state_where(ws, &format!("the position {fen}"), 30, |v| {
        v["fen"] == fen && !v["hints"].is_null()
    })
    .await;
    st["hints"].clone()
}

/// The hints the tables give (what the engine's `values` prints, as the page gets it).
fn hints_of_tables(tb: &Tablebase, pos: &Position) -> Value {
    if pos.outcome().is_some() {
        return json!({"source": "none", "why": "gameover"});
    }
    let Some(root) = tb.probe_root(pos) else {
        return json!({"source": "search", "why": "uncovered"});
    };
    let moves: Vec<Value> = root
        .moves
        .iter()
        .map(|(m, p)| {
            let (result, plies) = match p.wdl.real() {
                Wdl::Win => ("win", Some(p.plies_to_mill).filter(|&d| d > 0)),
                Wdl::Loss => ("loss", Some(p.plies_to_mill).filter(|&d| d > 0)),
                _ => ("draw", None),
            };
            json!({"move": m.to_string(), "result": result, "plies": plies})
        })
        .collect();
    json!({"source": "tables", "moves": moves})
}

/// The engine's own hints as the table server's would be: its `values expected` gives the
/// moves an expected score (checked here: within 0 to 1, a trap exactly where a draw's reaches
/// 0.55; the first move always has one, the last may not, when the engine's 200 ms for the
/// model run out under load) and orders the moves of one value by it; without those scores,
/// in the tables' order.
fn plain_values(mut hints: Value, want: &Value) -> Value {
    let Some(moves) = hints["moves"].as_array_mut() else {
        return hints;
    };
    if let Some(first) = moves.first() {
        assert!(first["expected"].is_f64(), "no score: {first}");
    }
    for m in moves.iter_mut() {
        let e = m["expected"].as_f64().unwrap_or(0.5);
        assert!((0.0..=1.0).contains(&e), "{m}");
        let trap = m["result"] == "draw" && m["expected"].is_f64() && e >= 0.55;
        assert_eq!(m.get("trap").is_some_and(|t| t == true), trap, "{m}");
        let o = m.as_object_mut().unwrap();
        o.remove("expected");
        o.remove("trap");
    }
    let rank = |m: &Value| match m["result"].as_str() {
        Some("win") => 0,
        Some("draw") => 1,
        _ => 2,
    };
    assert!(
        moves.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])),
        "best value first: {moves:?}"
    );
    let order: Vec<&Value> = want["moves"]
        .as_array()
        .map(|w| w.iter().map(|m| &m["move"]).collect())
        .unwrap_or_default();
    moves.sort_by_key(|m| order.iter().position(|o| **o == m["move"]));
    hints
}

/// Covered positions of both phases: uniform picks of the tables, moving-phase counters at
/// random, many near 100, so that the 100-ply rule's draws (cursed wins) come up too.
fn positions(tb: &Tablebase, n: usize) -> Vec<Position> {
    let mut out = covered(tb, n, 11);
    // Both phases for sure: the positions of the browser test.
    for fen in [
        "W../.../.../B....B/.../W../... w 2 2 0 8",
        "W.W/.../.../B....B/.../W../..B w 0 0 0 20",
    ] {
        out.push(Position::from_fen(fen, Rules::default()).unwrap());
    }
    // A few where some move's win or loss is spoiled by the 100-ply rule (a draw for the
    // engine; the server names it apart), rare in a uniform pick.
    let spoiled = |p: &Position| {
        tb.probe_root(p).is_some_and(|r| {
            r.moves
                .iter()
                .any(|(_, p)| matches!(p.wdl, Wdl::CursedWin | Wdl::BlessedLoss))
        })
    };
    out.extend(covered(tb, 4000, 12).into_iter().filter(spoiled).take(4));
    out
}

fn covered(tb: &Tablebase, n: usize, seed: u64) -> Vec<Position> {
    let rules = Rules::default();
    let opts = SampleOptions {
        rules,
        distribution: Distribution::Uniform,
        seed,
        distances: false,
        phase: millstone::tablebase::sample::Phase::Any,
    };
    let mut rng = StdRng::seed_from_u64(seed);
    sample(tb, n, &opts)
        .unwrap()
        .into_iter()
        .map(|s| {
            let pos = s.position();
            if !pos.is_moving_phase() {
                return pos;
            }
            let fen = pos.to_fen();
            let mut f: Vec<String> = fen.split(' ').map(str::to_string).collect();
            // Half of them near the limit, where the long wins turn into draws.
            let counter = if rng.gen_bool(0.5) {
                rng.gen_range(85..=99u32)
            } else {
                rng.gen_range(0..85u32)
            };
            f[4] = counter.to_string();
            f[5] = "120".into();
            Position::from_fen(&f.join(" "), rules).unwrap()
        })
        .collect()
}

/// A short game from a covered position in which the first move loses the value and best
/// play follows: the review must mark the first "lost" and the others "kept".
fn line_with_a_lost_move(tb: &Tablebase, starts: &[Position]) -> (String, Vec<String>) {
    let class = |w: Wdl| match w.real() {
        Wdl::Win => 2,
        Wdl::Draw => 1,
        _ => 0,
    };
    for start in starts {
        if start.outcome().is_some() {
            continue;
        }
        let Some(root) = tb.probe_root(start) else {
            continue;
        };
        let best = root.moves.iter().map(|(_, p)| class(p.wdl)).max().unwrap();
        let Some(&(worse, _)) = root.moves.iter().find(|(_, p)| class(p.wdl) < best) else {
            continue;
        };
        let mut pos = *start;
        let mut line = vec![worse.to_string()];
        pos.make(worse);
        for _ in 0..3 {
            if pos.outcome().is_some() {
                break;
            }
            let Some(r) = tb.probe_root(&pos) else { break };
            line.push(r.best.to_string());
            pos.make(r.best);
        }
        if line.len() >= 3 {
            return (start.to_fen(), line);
        }
    }
    panic!("no position with a move that loses the value");
}

/// Plays the line from `fen`, reviews it, and returns the marks.
async fn review_marks(ws: &mut Ws, fen: &str, line: &[String]) -> Value {
    hints_at(ws, fen).await;
    for (i, m) in line.iter().enumerate() {
        send(ws, json!({"type": "move", "token": m})).await;
        state_where(ws, &format!("move {m}"), 30, |v| {
            v["moves"].as_array().map(|a| a.len()) == Some(i + 1)
        })
        .await;
    }
    send(ws, json!({"type": "review", "movetime": 20})).await;
    state_where(ws, "the review to start", 30, |v| !v["review"].is_null()).await;
    let st = state_where(ws, "the review's end", 90, |v| v["review"].is_null()).await;
    st["marks"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_and_review_from_a_table_server_equal_the_local_tables() {
    let dir = small_tables();
    let tb = Tablebase::open(&dir).unwrap();
    let serve = MillServe::start(&dir);
    let local = Server::with_millstone(&["--tables", dir.to_str().unwrap()]);
    let remote = Server::with_millstone(&["--tables-url", &serve.url]);
    let (mut lw, mut rw) = (tab(&local).await, tab(&remote).await);

    let positions = positions(&tb, 40);
    let (mut exact, mut placing, mut spoiled) = (0, 0, 0);
    for pos in &positions {
        let fen = pos.to_fen();
        let want = hints_of_tables(&tb, pos);
        let l = plain_values(hints_at(&mut lw, &fen).await, &want);
        let r = hints_at(&mut rw, &fen).await;
        assert_eq!(l, want, "local hints of {fen}");
        assert_eq!(r, want, "hints from the server of {fen}");
        if want["source"] == "tables" {
            exact += 1;
            placing += usize::from(!pos.is_moving_phase());
            let root = tb.probe_root(pos).unwrap();
            spoiled += usize::from(
                root.moves
                    .iter()
                    .any(|(_, p)| matches!(p.wdl, Wdl::CursedWin | Wdl::BlessedLoss)),
            );
        }
    }
    assert!(
        exact >= 30 && placing >= 3 && spoiled >= 1,
        "{exact} exact, {placing} placing, {spoiled} with 100-ply draws"
    );
    eprintln!(
        "{exact} positions with exact hints ({placing} placing, {spoiled} with 100-ply draws)"
    );

    // The review proves the same marks: the lost move and the kept ones.
    let (fen, line) = line_with_a_lost_move(&tb, &positions);
    let lm = review_marks(&mut lw, &fen, &line).await;
    let rm = review_marks(&mut rw, &fen, &line).await;
    assert_eq!(lm, rm, "marks of {line:?} from {fen}");
    let kinds: Vec<&str> = rm
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    let mut want = vec!["kept"; line.len()];
    want[0] = "lost";
    assert_eq!(kinds, want, "marks {rm} of {line:?} from {fen}");
}

/// A fake table server: accepts connections on a free port and does `what` with each.
fn fake_server(what: &'static str) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in l.incoming().flatten() {
            match what {
                // Reads the request and never answers.
                "silent" => held.push(s),
                _ => {
                    let mut s = s;
                    let mut buf = [0u8; 4096];
                    let _ = s.read(&mut buf);
                    let _ = match what {
                        // Not HTTP at all.
                        "babble" => s.write_all(b"SSH-2.0-OpenSSH_9.6\r\nhello\r\n\r\n"),
                        // A body far over any answer's size.
                        "huge" => {
                            let n = 3 << 20;
                            write!(
                                s,
                                "HTTP/1.1 200 OK\r\nContent-Length: {n}\r\nConnection: close\r\n\r\n{}",
                                " ".repeat(n)
                            )
                        }
                        _ => {
                            let body =
                                "{\"category\": \"win\", \"moves\": [{\"move\": \"<script>\"";
                            write!(
                                s,
                                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                                body.len()
                            )
                        }
                    };
                }
            }
        }
    });
    format!("http://{addr}")
}

/// A port with nothing listening.
fn dead_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    format!("http://127.0.0.1:{port}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_silent_or_garbage_server_leaves_the_page_working() {
    for (kind, url) in [
        ("dead", dead_url()),
        ("silent", fake_server("silent")),
        ("garbage", fake_server("garbage")),
        ("babble", fake_server("babble")),
        ("huge", fake_server("huge")),
    ] {
        let s = Server::with_millstone(&["--tables-url", &url]);
        let mut ws = connect(&s).await;
        state_where(&mut ws, "the start", 30, |_| true).await;
        send(
            &mut ws,
            json!({"type": "set_players", "white": "human", "black": "human"}),
        )
        .await;
        // The first ask waits at most the client's 3 s timeout.
        let t = Instant::now();
        send(&mut ws, json!({"type": "hints", "on": true})).await;
        let st = state_where(&mut ws, "hints on", 10, |v| !v["hints"].is_null()).await;
        assert_eq!(
            st["hints"],
            json!({"source": "search", "why": "server"}),
            "{kind}"
        );
        assert!(
            t.elapsed() < Duration::from_secs(6),
            "{kind}: {:?}",
            t.elapsed()
        );
        // The server is left alone for a while: the next move does not wait for it.
        let t = Instant::now();
        send(&mut ws, json!({"type": "move", "token": "d6"})).await;
        let st = state_where(&mut ws, "the move", 10, |v| v["moves"] == json!(["d6"])).await;
        assert_eq!(st["hints"]["why"], "server", "{kind}");
        assert!(
            t.elapsed() < Duration::from_millis(1500),
            "{kind}: {:?}",
            t.elapsed()
        );
        // And the page works on: the search estimates every move, the game goes on.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = tokio::time::timeout(left, ws.next())
                .await
                .unwrap_or_else(|_| panic!("{kind}: no estimates"));
            let Some(Ok(Message::Text(t))) = m else {
                panic!("{kind}: socket ended")
            };
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == "info" && v["info"]["pv"][0].is_string() {
                break;
            }
        }
        send(&mut ws, json!({"type": "move", "token": "d5"})).await;
        state_where(&mut ws, "the next move", 10, |v| {
            v["moves"] == json!(["d6", "d5"])
        })
        .await;
    }
}

#[test]
fn a_bad_tables_url_is_refused_at_start() {
    for (url, says) in [
        ("ftp://127.0.0.1:1", "give an http:// URL"),
        ("https://tables.example.org", "https is not supported"),
        ("http://127.0.0.1:1/?fen=x", "no query"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mill-gui"))
            .args(["--port", "0", "--tables-url", url, "--engine", "true"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {err}");
        assert!(
            err.contains("--tables-url") && err.contains(says),
            "{url}: {err}"
        );
    }
}
