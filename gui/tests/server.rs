//! The server without a browser: one engine per socket, killed on disconnect; the engine limit;
//! a crashing or hanging engine reported and restarted; hostile requests refused.

mod common;

use common::{alive, wrapper, Server};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::{connect_async, tungstenite::Message, MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

async fn connect(s: &Server) -> Ws {
    let (ws, _) = connect_async(s.ws_url()).await.expect("connect");
    ws
}

/// The next message of this type (others are skipped), within `secs`.
async fn next_of(ws: &mut Ws, ty: &str, secs: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = tokio::time::timeout(left, ws.next())
            .await
            .unwrap_or_else(|_| panic!("no '{ty}' message within {secs} s"));
        match m {
            Some(Ok(Message::Text(t))) => {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if v["type"] == ty {
                    return v;
                }
            }
            Some(Ok(_)) => {}
            other => panic!("socket ended waiting for '{ty}': {other:?}"),
        }
    }
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

async fn send_text(ws: &mut Ws, t: String) {
    ws.send(Message::Text(t.into())).await.unwrap();
}

async fn wait_dead(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        assert!(Instant::now() < deadline, "engine {pid} still runs");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_is_killed_when_its_socket_closes() {
    let s = Server::with_millstone(&[]);
    let mut ws = connect(&s).await;
    let hello = next_of(&mut ws, "hello", 10).await;
    let pid = hello["engine"]["pid"].as_u64().unwrap() as u32;
    let st = next_of(&mut ws, "state", 10).await;
    assert_eq!(st["fen"], ".../.../.../....../.../.../... w 9 9 0 1");
    assert_eq!(st["legal"].as_array().unwrap().len(), 24);
    assert!(alive(pid));
    // Start a search, then drop the socket without a close frame.
    send(
        &mut ws,
        json!({"type": "analyse", "on": true, "multipv": 2}),
    )
    .await;
    next_of(&mut ws, "info", 10).await;
    drop(ws);
    wait_dead(pid).await;
}

/// An engine that dies before its handshake: the tab gets a fatal message with the failure's
/// key and its cause, for the page to show in its language.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_dead_at_start_is_a_fatal_message_with_its_key() {
    let s = Server::start(&[], &["sh".into(), "-c".into(), "exit 3".into()]);
    let mut ws = connect(&s).await;
    let f = next_of(&mut ws, "fatal", 10).await;
    assert_eq!(f["key"], "e_engine_crashed", "{f}");
    let why = f["vars"]["why"].as_str().unwrap_or("");
    assert!(!why.is_empty(), "{f}");
    assert_eq!(
        f["message"].as_str().unwrap(),
        format!("the engine crashed: {why}"),
        "{f}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_engines_holds() {
    let s = Server::with_millstone(&["--max-engines", "2"]);
    let mut a = connect(&s).await;
    let mut b = connect(&s).await;
    let pa = next_of(&mut a, "hello", 10).await["engine"]["pid"]
        .as_u64()
        .unwrap() as u32;
    next_of(&mut b, "hello", 10).await;
    let mut c = connect(&s).await;
    let f = next_of(&mut c, "fatal", 10).await;
    assert!(
        f["message"].as_str().unwrap().contains("--max-engines 2"),
        "{f}"
    );
    // With the key of its text, for the page to show it in its language.
    assert_eq!(f["key"], "e_all_engines_busy", "{f}");
    assert_eq!(f["vars"]["n"], "2", "{f}");
    // Closing a tab frees its engine for the next one.
    a.close(None).await.unwrap();
    drop(a);
    wait_dead(pa).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut d = connect(&s).await;
    next_of(&mut d, "hello", 10).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crashing_engine_is_reported_and_restarted() {
    let s = Server::start(&[], &["bash".into(), wrapper("crash", 1)]);
    let mut ws = connect(&s).await;
    let pid = next_of(&mut ws, "hello", 10).await["engine"]["pid"]
        .as_u64()
        .unwrap() as u32;
    next_of(&mut ws, "state", 10).await;
    send(&mut ws, json!({"type": "move", "token": "d6"})).await;
    let st = next_of(&mut ws, "engine_status", 10).await;
    assert_eq!(st["status"], "crashed", "{st}");
    assert_eq!(st["key"], "e_engine_restarting", "{st}");
    assert_eq!(st["cause"]["key"], "e_engine_crashed", "{st}");
    let hello = next_of(&mut ws, "hello", 10).await;
    let pid2 = hello["engine"]["pid"].as_u64().unwrap() as u32;
    assert_ne!(pid, pid2);
    let st = next_of(&mut ws, "engine_status", 10).await;
    assert_eq!(st["status"], "restarted", "{st}");
    assert_eq!(st["key"], "e_engine_restarted_go", "{st}");
    let state = next_of(&mut ws, "state", 10).await;
    assert_eq!(state["moves"], json!(["d6"]), "the game survives the crash");
    assert_eq!(state["paused"], true);
    wait_dead(pid).await;
    // The new engine serves the game: both sides human now.
    send(
        &mut ws,
        json!({"type": "set_players", "white": "human", "black": "human"}),
    )
    .await;
    next_of(&mut ws, "state", 10).await;
    send(&mut ws, json!({"type": "move", "token": "a1"})).await;
    let state = next_of(&mut ws, "state", 10).await;
    assert_eq!(state["moves"], json!(["d6", "a1"]));
    assert_eq!(state["fen"], ".../.W./.../....../.../.../B.. w 8 8 0 2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hanging_engine_is_reported_and_restarted() {
    let s = Server::start(&[], &["bash".into(), wrapper("hang", 1)]);
    let mut ws = connect(&s).await;
    next_of(&mut ws, "hello", 10).await;
    next_of(&mut ws, "state", 10).await;
    send(&mut ws, json!({"type": "move", "token": "d6"})).await;
    let st = next_of(&mut ws, "engine_status", 20).await;
    assert_eq!(st["status"], "hung", "{st}");
    assert_eq!(st["cause"]["key"], "e_engine_hung", "{st}");
    let st = next_of(&mut ws, "engine_status", 20).await;
    assert_eq!(st["status"], "restarted", "{st}");
}

/// A language file of the page.
fn lang(code: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("web/lang")
        .join(format!("{code}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A text of the language files with its `{name}` places filled.
fn fill(template: &str, vars: &Value) -> String {
    let mut s = template.to_string();
    for (k, v) in vars.as_object().unwrap() {
        s = s.replace(&format!("{{{k}}}"), v.as_str().unwrap());
    }
    s
}

/// A refusal as the page gets it: a key of the language files and the values of its places,
/// which fill the English text to exactly the server's message; every other language's text
/// names the same places and reads otherwise.
fn check_refusal(e: &Value) {
    let (key, message) = (e["key"].as_str().unwrap(), e["message"].as_str().unwrap());
    let en = lang("en");
    let template = en[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is not in en.json: {e}"));
    assert_eq!(fill(template, &e["vars"]), message, "{e}");
    for code in ["it", "fr", "de", "ru"] {
        let t = lang(code)[key].as_str().unwrap().to_string();
        for k in e["vars"].as_object().unwrap().keys() {
            assert!(t.contains(&format!("{{{k}}}")), "{code}: {t} lacks {k}");
        }
        assert_ne!(fill(&t, &e["vars"]), message, "{code}: {key} untranslated");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_are_refused() {
    let s = Server::with_millstone(&[]);
    let mut ws = connect(&s).await;
    let pid = next_of(&mut ws, "hello", 10).await["engine"]["pid"]
        .as_u64()
        .unwrap() as u32;
    next_of(&mut ws, "state", 10).await;
    let long = "d".repeat(300_000);
    let bad: Vec<String> = vec![
        "not json".into(),
        json!({"type": "launch_missiles"}).to_string(),
        json!({"type": "move"}).to_string(),
        json!({"type": "move", "token": "d6\nquit"}).to_string(),
        json!({"type": "move", "token": "d6 xa1"}).to_string(),
        json!({"type": "move", "token": "h9"}).to_string(),
        json!({"type": "move", "token": "d6-d5"}).to_string(),
        json!({"type": "move", "token": long}).to_string(),
        json!({"type": "set_option", "name": "Hash\nquit", "value": "1"}).to_string(),
        json!({"type": "set_option", "name": "Hash", "value": "1\nquit"}).to_string(),
        json!({"type": "set_option", "name": "Hash", "value": "-5"}).to_string(),
        json!({"type": "set_option", "name": "Hash", "value": "99999999"}).to_string(),
        json!({"type": "set_option", "name": "TablePath", "value": "/etc"}).to_string(),
        json!({"type": "set_option", "name": "Nonexistent", "value": "1"}).to_string(),
        json!({"type": "set_fen", "fen": ".../.../.../....../.../.../... w 9 9 0 1\nquit"})
            .to_string(),
        json!({"type": "set_fen", "fen": "WWWWWWWWW/.../.../....../.../.../... w 9 9 0 1"})
            .to_string(),
        json!({"type": "load_pgn", "text": "1. d6 quit"}).to_string(),
        json!({"type": "load_pgn", "text": "1. d6 d6"}).to_string(),
        json!({"type": "load_jsonl", "line": "{\"variant\":\"nine\"}"}).to_string(),
        json!({"type": "preview", "moves": ["d6", "go infinite"]}).to_string(),
        json!({"type": "new_game", "variant": "chess", "flying": true}).to_string(),
        format!(
            "{{\"type\":\"load_pgn\",\"text\":\"{}\"}}",
            "1".repeat(300_000)
        ),
    ];
    let mut keys = Vec::new();
    for b in &bad {
        send_text(&mut ws, b.clone()).await;
        let e = next_of(&mut ws, "error", 10).await;
        check_refusal(&e);
        keys.push(e["key"].as_str().unwrap().to_string());
    }
    // A move that is no move, an illegal one, an unknown option, a refused position string.
    assert_eq!(keys[3], "e_not_move", "{keys:?}");
    assert_eq!(keys[6], "e_illegal", "{keys:?}");
    assert_eq!(keys[13], "e_no_option", "{keys:?}");
    assert_eq!(keys[15], "e_position_refused", "{keys:?}");
    assert!(alive(pid), "the engine survived");
    // Still usable, and the position untouched.
    send(
        &mut ws,
        json!({"type": "set_players", "white": "human", "black": "human"}),
    )
    .await;
    let st = next_of(&mut ws, "state", 10).await;
    assert_eq!(st["moves"], json!([]));
    send(&mut ws, json!({"type": "move", "token": "D6"})).await;
    let st = next_of(&mut ws, "state", 10).await;
    assert_eq!(st["moves"], json!(["d6"]));
    // A huge ply number is clamped.
    send(&mut ws, json!({"type": "goto", "ply": 1_000_000_000u64})).await;
    let st = next_of(&mut ws, "state", 10).await;
    assert_eq!(st["cursor"], 1);
    // Setting a real option within its range works.
    send(
        &mut ws,
        json!({"type": "set_option", "name": "hash", "value": "8"}),
    )
    .await;
    send(&mut ws, json!({"type": "ping"})).await;
    next_of(&mut ws, "pong", 10).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_origin_socket_is_refused() {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let s = Server::with_millstone(&[]);
    let mut req = s.ws_url().into_client_request().unwrap();
    req.headers_mut()
        .insert("Origin", "http://evil.example".parse().unwrap());
    assert!(connect_async(req).await.is_err());
    let mut req = s.ws_url().into_client_request().unwrap();
    let own = format!("http://127.0.0.1:{}", s.port);
    req.headers_mut().insert("Origin", own.parse().unwrap());
    let (mut ws, _) = connect_async(req).await.unwrap();
    next_of(&mut ws, "hello", 10).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_plays_review_and_pgn() {
    let s = Server::with_millstone(&[]);
    let mut ws = connect(&s).await;
    next_of(&mut ws, "hello", 10).await;
    next_of(&mut ws, "state", 10).await;
    send(
        &mut ws,
        json!({"type": "set_limit", "limit": {"kind": "depth", "depth": 3}}),
    )
    .await;
    next_of(&mut ws, "state", 10).await;
    send(&mut ws, json!({"type": "move", "token": "d6"})).await;
    // Our move, then the engine's.
    let deadline = Instant::now() + Duration::from_secs(20);
    let st = loop {
        assert!(Instant::now() < deadline);
        let st = next_of(&mut ws, "state", 20).await;
        if st["moves"].as_array().unwrap().len() == 2 {
            break st;
        }
    };
    assert!(st["last_think_ms"].is_u64());
    assert_eq!(st["legal"].as_array().unwrap().len(), 22);
    send(&mut ws, json!({"type": "export_pgn"})).await;
    let pgn = next_of(&mut ws, "pgn", 10).await;
    let text = pgn["text"].as_str().unwrap();
    assert!(
        text.contains("[Variant \"nine\"]") && text.contains("1. d6 "),
        "{text}"
    );
    // Review marks nothing worse than the engine's own moves at depth 3 or so; just check it runs.
    send(&mut ws, json!({"type": "review", "movetime": 30})).await;
    next_of(&mut ws, "review_progress", 10).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "review did not finish");
        let st = next_of(&mut ws, "state", 20).await;
        if st["review"].is_null() && st["evals"].as_array().unwrap().iter().all(|e| !e.is_null()) {
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_runs_out_and_loses_on_time() {
    let s = Server::with_millstone(&[]);
    let mut ws = connect(&s).await;
    next_of(&mut ws, "hello", 10).await;
    next_of(&mut ws, "state", 10).await;
    send(
        &mut ws,
        json!({"type": "set_players", "white": "human", "black": "human"}),
    )
    .await;
    next_of(&mut ws, "state", 10).await;
    send(
        &mut ws,
        json!({"type": "set_limit", "limit": {"kind": "clock", "base_ms": 1000, "inc_ms": 0}}),
    )
    .await;
    let st = next_of(&mut ws, "state", 10).await;
    assert_eq!(st["clocks"]["running"], "white");
    let t = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(10);
    let st = loop {
        assert!(Instant::now() < deadline, "no loss on time");
        let st = next_of(&mut ws, "state", 10).await;
        if !st["end"].is_null() {
            break st;
        }
    };
    assert!(t.elapsed() >= Duration::from_millis(900));
    assert_eq!(st["end"], json!({"result": "0-1", "reason": "timeout"}));
    assert_eq!(st["legal"], json!([]));
    // No move after the flag.
    send(&mut ws, json!({"type": "move", "token": "d6"})).await;
    next_of(&mut ws, "error", 10).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_against_engine_with_tables_dir() {
    let dir = common::bin_dir().join("gui-test-tables");
    std::fs::create_dir_all(&dir).unwrap();
    let s = Server::with_millstone(&["--tables", dir.to_str().unwrap()]);
    let mut ws = connect(&s).await;
    let hello = next_of(&mut ws, "hello", 10).await;
    assert_eq!(hello["tables"], true);
    // TablePath is the server's: the page is not offered it.
    let names: Vec<&str> = hello["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"TablePath") && names.contains(&"Hash"),
        "{names:?}"
    );
    let says = next_of(&mut ws, "engine_says", 10).await;
    assert!(
        says["text"].as_str().unwrap().contains("endgame tables"),
        "{says}"
    );
    send(
        &mut ws,
        json!({"type": "set_limit", "limit": {"kind": "depth", "depth": 1}}),
    )
    .await;
    send(
        &mut ws,
        json!({"type": "set_players", "white": "engine", "black": "engine"}),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < deadline, "the engines did not play on");
        let st = next_of(&mut ws, "state", 30).await;
        if st["moves"].as_array().unwrap().len() >= 8 {
            assert_eq!(st["legal"], json!([]), "no input while engines play");
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_follows_the_position() {
    let s = Server::with_millstone(&[]);
    let mut ws = connect(&s).await;
    next_of(&mut ws, "hello", 10).await;
    next_of(&mut ws, "state", 10).await;
    send(
        &mut ws,
        json!({"type": "set_players", "white": "human", "black": "human"}),
    )
    .await;
    send(
        &mut ws,
        json!({"type": "analyse", "on": true, "multipv": 2}),
    )
    .await;
    let i = next_of(&mut ws, "info", 10).await;
    assert_eq!(i["source"], "analysis");
    // A change that is not a move keeps the analysis going.
    send(
        &mut ws,
        json!({"type": "set_limit", "limit": {"kind": "depth", "depth": 5}}),
    )
    .await;
    next_of(&mut ws, "state", 10).await;
    next_of(&mut ws, "info", 10).await;
    // A move: the lines that follow are of the new position (Black to move).
    send(&mut ws, json!({"type": "move", "token": "d6"})).await;
    let st = next_of(&mut ws, "state", 10).await;
    assert_eq!(st["moves"], json!(["d6"]));
    let i = next_of(&mut ws, "info", 10).await;
    assert_eq!(i["white_to_move"], false);
    let pv0 = i["info"]["pv"][0].as_str().unwrap().to_string();
    assert!(
        st["legal"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == pv0.as_str()),
        "{pv0} is a legal move of the new position"
    );
    // Back to the start: analysis follows.
    send(&mut ws, json!({"type": "goto", "ply": 0})).await;
    next_of(&mut ws, "state", 10).await;
    let i = next_of(&mut ws, "info", 10).await;
    assert_eq!(i["white_to_move"], true);
}

/// Without tables the hints are the search's estimates: the state says why, and the search
/// reports one line for every legal move (MultiPV over all of them), each a different move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_without_tables_are_estimates_of_every_move() {
    let s = Server::with_millstone(&[]);
    let mut ws = connect(&s).await;
    next_of(&mut ws, "state", 10).await;
    send(
        &mut ws,
        json!({"type": "set_players", "white": "human", "black": "human"}),
    )
    .await;
    next_of(&mut ws, "state", 10).await;
    send(&mut ws, json!({"type": "hints", "on": true})).await;
    let st = next_of(&mut ws, "state", 10).await;
    assert_eq!(
        st["hints"],
        json!({"source": "search", "why": "notables"}),
        "{st}"
    );
    let legal = st["legal"].as_array().unwrap().len();
    assert_eq!(legal, 24);
    let mut firsts = std::collections::BTreeSet::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while firsts.len() < legal {
        assert!(
            Instant::now() < deadline,
            "only {} moves valued: {firsts:?}",
            firsts.len()
        );
        let m = next_of(&mut ws, "info", 30).await;
        assert_eq!(m["source"], "analysis");
        if let Some(mv) = m["info"]["pv"][0].as_str() {
            firsts.insert(mv.to_string());
        }
        assert!(m["info"]["multipv"].as_u64().unwrap_or(1) <= legal as u64);
    }
    // Hints off: the search of every move stops with them.
    send(&mut ws, json!({"type": "hints", "on": false})).await;
    let st = next_of(&mut ws, "state", 10).await;
    assert_eq!(st["hints"], Value::Null);
}

/// An engine from before `values expected` (it refuses the argument as such an engine does:
/// `values: unexpected 'expected'`): the hints are still the tables' values, from plain
/// `values`, with no expected scores and no traps.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_from_an_engine_without_values_expected() {
    let dir = common::small_tables();
    let engine = format!(
        "sed -u 's/^values expected$/values expected too/' | exec {}",
        common::program("millstone").display()
    );
    let s = Server::start(
        &["--tables", dir.to_str().unwrap()],
        &["bash".into(), "-c".into(), engine],
    );
    let mut ws = connect(&s).await;
    next_of(&mut ws, "state", 10).await;
    send(
        &mut ws,
        json!({"type": "set_players", "white": "human", "black": "human"}),
    )
    .await;
    let fen = "W.W/.../.../B....B/.../W../..B w 0 0 0 20";
    send(&mut ws, json!({"type": "set_fen", "fen": fen})).await;
    send(&mut ws, json!({"type": "hints", "on": true})).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let hints = loop {
        assert!(Instant::now() < deadline, "no hints from the tables");
        let st = next_of(&mut ws, "state", 20).await;
        if st["hints"]["source"] == "tables" {
            break st["hints"].clone();
        }
        assert_ne!(st["hints"]["source"], "search", "{st}");
    };
    let moves = hints["moves"].as_array().unwrap();
    assert!(moves.len() > 10, "{hints}");
    for m in moves {
        assert!(
            m.get("expected").is_none() && m.get("trap").is_none(),
            "{m}"
        );
    }
    // The same engine unwrapped gives the scores: the wrapper is what took them away.
    let s = Server::with_millstone(&["--tables", dir.to_str().unwrap()]);
    let mut ws = connect(&s).await;
    next_of(&mut ws, "state", 10).await;
    send(
        &mut ws,
        json!({"type": "set_players", "white": "human", "black": "human"}),
    )
    .await;
    send(&mut ws, json!({"type": "set_fen", "fen": fen})).await;
    send(&mut ws, json!({"type": "hints", "on": true})).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "no hints from the tables");
        let st = next_of(&mut ws, "state", 20).await;
        if st["hints"]["source"] == "tables" {
            let moves = st["hints"]["moves"].as_array().unwrap().clone();
            // The best moves first: the engine scores them first, and those it has no time
            // left for (its budget, protocol.md) come without a score.
            assert!(moves[0]["expected"].is_f64(), "{st}");
            assert!(
                moves.iter().filter(|m| m["expected"].is_f64()).count() * 2 >= moves.len(),
                "{st}"
            );
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
