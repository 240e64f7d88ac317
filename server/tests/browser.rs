//! The explorer page in a real browser (headless Chromium through chromedriver), clicked as a
//! person would: a link shows its position, every legal move is coloured by its value as the
//! API gives it, clicks play a slide, a mill with its removal and a placement, and the URL
//! follows so a link shows the position.
//!
//! Without chromedriver the test is skipped, except under CI=true, where it fails (the
//! convention of mill-gui's browser tests). When it ran and passed it writes the marker
//! target/server-browser-tests.ok, which .ci/run checks.

mod common;

use common::{tables, Server};
use fantoccini::{Client, ClientBuilder, Locator};
use millstone_server::client::{encode, position_target, Conn};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

struct Driver {
    child: Child,
    profile: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn browser() -> Option<(Driver, Client)> {
    let driver_bin = std::env::var("CHROMEDRIVER").unwrap_or(CHROMEDRIVER.into());
    if !std::path::Path::new(&driver_bin).exists() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{driver_bin} is missing under CI=true: the browser test must run (apt-get install -y chromium chromium-driver)");
        }
        eprintln!("SKIPPED: the explorer's browser test needs {driver_bin} (apt-get install chromium chromium-driver)");
        return None;
    }
    let port = free_port();
    let child = Command::new(&driver_bin)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let profile =
        std::env::temp_dir().join(format!("mill-serve-chrome-{}-{port}", std::process::id()));
    let driver = Driver {
        child,
        profile: profile.clone(),
    };
    let chromium = std::env::var("CHROMIUM").unwrap_or("/usr/bin/chromium".into());
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,900",
                format!("--user-data-dir={}", profile.display())]
        }),
    );
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    loop {
        match ClientBuilder::new(connector.clone())
            .capabilities(caps.clone())
            .connect(&url)
            .await
        {
            Ok(c) => return Some((driver, c)),
            Err(e) => {
                assert!(
                    Instant::now() < deadline,
                    "cannot start a browser session: {e}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

type R<T> = Result<T, String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The page's state in one round trip: the answer shown, the URL, the hints on the board
/// (point -> colour class) and the colour actually painted for the first win hint.
async fn page(c: &Client) -> R<Value> {
    c.execute(
        r#"const v = document.getElementById('verdict');
           const hints = {};
           for (const h of document.querySelectorAll('#board .hint')) hints[h.dataset.hint] = h.dataset.result;
           const win = document.querySelector('#board .hint-win .hint-ring, #board .hint-win .hint-dot');
           const paint = win ? getComputedStyle(win).getPropertyValue(win.classList.contains('hint-ring') ? 'stroke' : 'fill') : '';
           return {state: document.body.dataset.state, fen: v.dataset.fen || '', category: v.dataset.category || '',
             url: location.search, hints, winPaint: paint,
             listed: [...document.querySelectorAll('#moves li')].map(l => [l.dataset.move, l.dataset.category])};"#,
        vec![],
    )
    .await
    .map_err(err)
}

async fn wait_for<F: Fn(&Value) -> bool>(c: &Client, what: &str, f: F) -> R<Value> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let s = page(c).await?;
        if f(&s) {
            return Ok(s);
        }
        if Instant::now() > deadline {
            return Err(format!("timed out waiting for {what}; page: {s}"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn click_point(c: &Client, p: &str) -> R<()> {
    c.find(Locator::Css(&format!("[data-point=\"{p}\"]")))
        .await
        .map_err(err)?
        .click()
        .await
        .map_err(err)
}

/// The colour class the page must give a category (the 100-ply rule's draws are draws).
fn colour(cat: &str) -> &str {
    match cat {
        "cursed-win" | "blessed-loss" => "draw",
        c => c,
    }
}

/// The hints the page must draw for an answer with nothing selected: one a point, the best
/// move's colour (the list is best first): the piece to move, or the point to place on.
fn expected_hints(answer: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for m in answer["moves"].as_array().unwrap() {
        let tok = m["move"].as_str().unwrap();
        let base = tok.split('x').next().unwrap();
        let point = base.split('-').next().unwrap().to_string();
        out.entry(point)
            .or_insert_with(|| colour(m["category"].as_str().unwrap()).to_string());
    }
    out
}

fn hints_of(s: &Value) -> BTreeMap<String, String> {
    s["hints"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
        .collect()
}

async fn answer(api: &mut Conn, fen: &str) -> Value {
    let r = api.get(&position_target(fen, "nine", true)).await.unwrap();
    assert_eq!(r.status, 200);
    r.json().unwrap()
}

/// Shown from a link, with the API's colours, and the list of moves in the API's order.
async fn shows(c: &Client, api: &mut Conn, fen: &str) -> R<Value> {
    let want = answer(api, fen).await;
    let s = wait_for(c, "the position", |s| {
        s["state"] == "ready" && s["fen"] == fen
    })
    .await?;
    if hints_of(&s) != expected_hints(&want) {
        return Err(format!(
            "hints {:?}, the API's moves give {:?}",
            hints_of(&s),
            expected_hints(&want)
        ));
    }
    let listed: Vec<Value> = want["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| json!([m["move"], m["category"]]))
        .collect();
    if s["listed"].as_array().unwrap() != &listed {
        return Err(format!("listed {} , API {listed:?}", s["listed"]));
    }
    if s["category"] != want["category"] {
        return Err(format!(
            "verdict {} , API {}",
            s["category"], want["category"]
        ));
    }
    Ok(want)
}

async fn explore(c: &Client, server: &Server) -> R<()> {
    let mut api = Conn::new(&server.addr);
    // Three against three, White to move, flying: wins, a draw or losses among the moves.
    let fen = "W.W/.../.../B....B/.../W../..B w 0 0 0 20";
    let link = format!(
        "{}/?fen={}&variant=nine&flying=true",
        server.url(),
        encode(fen.as_bytes())
    );
    c.goto(&link).await.map_err(err)?;
    let a = shows(c, &mut api, fen).await?;
    let before = hints_of(&page(c).await?);
    let colours: std::collections::BTreeSet<&String> = before.values().collect();
    if colours.len() < 2 {
        return Err(format!(
            "the test position should show several colours: {before:?}"
        ));
    }
    let paint = page(c).await?["winPaint"]
        .as_str()
        .unwrap_or("")
        .to_string();
    if paint != "rgb(60, 181, 90)" {
        return Err(format!("a winning move is painted {paint:?}, not green"));
    }
    // A slide without a mill: click the piece (its targets get their colours), then the point.
    let m = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| !m["move"].as_str().unwrap().contains('x'))
        .ok_or("no quiet move")?
        .clone();
    let tok = m["move"].as_str().unwrap();
    let (from, to) = tok.split_once('-').ok_or("not a slide")?;
    click_point(c, from).await?;
    let sel = wait_for(c, "the targets", |s| hints_of(s).contains_key(to)).await?;
    let want_targets: BTreeMap<String, String> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| {
            let t = m["move"].as_str().unwrap().split('x').next().unwrap();
            let (f, d) = t.split_once('-')?;
            (f == from).then(|| {
                (
                    d.to_string(),
                    colour(m["category"].as_str().unwrap()).to_string(),
                )
            })
        })
        .fold(BTreeMap::new(), |mut acc, (k, v)| {
            acc.entry(k).or_insert(v);
            acc
        });
    if hints_of(&sel) != want_targets {
        return Err(format!(
            "targets of {from}: {:?}, API {want_targets:?}",
            hints_of(&sel)
        ));
    }
    click_point(c, to).await?;
    let next = m["fen"].as_str().unwrap();
    let after = shows(c, &mut api, next).await?;
    let s = page(c).await?;
    if !s["url"]
        .as_str()
        .unwrap()
        .contains(&encode(next.as_bytes()).replace("%20", "+"))
        && !s["url"]
            .as_str()
            .unwrap()
            .contains(&encode(next.as_bytes()))
    {
        return Err(format!("the URL {} does not hold {next}", s["url"]));
    }
    if hints_of(&s) == before {
        return Err("the colours did not change after the move".into());
    }
    // Back in history: the first position again.
    c.back().await.map_err(err)?;
    shows(c, &mut api, fen).await?;
    // A mill: piece, point, then the piece to remove.
    let mill = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"].as_str().unwrap().contains('x'))
        .ok_or("no mill move")?
        .clone();
    let tok = mill["move"].as_str().unwrap();
    let (base, removed) = tok.split_once('x').unwrap();
    let (from, to) = base.split_once('-').unwrap();
    click_point(c, from).await?;
    wait_for(c, "the targets", |s| hints_of(s).contains_key(to)).await?;
    click_point(c, to).await?;
    wait_for(c, "the removals", |s| hints_of(s).contains_key(removed)).await?;
    click_point(c, removed).await?;
    shows(c, &mut api, mill["fen"].as_str().unwrap()).await?;
    // A placement, from a link to a placing position.
    let placing = "W../.../.../B....B/.../W../... w 2 2 0 8";
    let link = format!(
        "{}/?fen={}&variant=nine&flying=true",
        server.url(),
        encode(placing.as_bytes())
    );
    c.goto(&link).await.map_err(err)?;
    let p = shows(c, &mut api, placing).await?;
    let first = p["moves"][0].clone();
    let point = first["move"].as_str().unwrap().split('x').next().unwrap();
    click_point(c, point).await?;
    if first["move"].as_str().unwrap().contains('x') {
        let r = first["move"].as_str().unwrap().split('x').nth(1).unwrap();
        wait_for(c, "the removals", |s| hints_of(s).contains_key(r)).await?;
        click_point(c, r).await?;
    }
    shows(c, &mut api, first["fen"].as_str().unwrap()).await?;
    let _ = after;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explorer_plays_and_colours_moves() {
    let Some((_driver, c)) = browser().await else {
        return;
    };
    let server = Server::start(tables(), &[]);
    let r = explore(&c, &server).await;
    if r.is_err() {
        if let Ok(png) = c.screenshot().await {
            let _ = std::fs::write(
                std::env::temp_dir().join("mill-serve-explorer-failure.png"),
                png,
            );
        }
    }
    let _ = c.close().await;
    r.unwrap();
    // The marker .ci/run checks: the browser test ran and passed.
    let target = PathBuf::from(env!("CARGO_BIN_EXE_mill-serve"))
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .to_path_buf();
    std::fs::write(target.join("server-browser-tests.ok"), "ok\n").unwrap();
}
