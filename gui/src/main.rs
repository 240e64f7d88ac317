//! `mill-gui`: a local web app to play and analyse the mill game in the browser. It serves one
//! page and runs one engine process per browser tab, spoken to through protocol.md.

mod engine;
mod puzzles;
mod records;
mod remote;
mod session;
mod validate;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use clap::Parser;
use session::{Config, Session};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// Play and analyse Nine and Twelve Men's Morris in the browser, against any engine that
/// speaks protocol.md.
#[derive(Parser, Debug)]
#[command(name = "mill-gui", version)]
struct Cli {
    /// Port to listen on; 0 picks a free one (the URL printed names it).
    #[arg(long, default_value_t = 7766)]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Open the page in the system browser.
    #[arg(long)]
    open: bool,
    /// Endgame tables directory, given to the engine as TablePath (default: none given, so
    /// the engine uses its data directory's, see `mill-tb setup`).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// A table server (`mill-serve`, docs/server.md), `http://host:port`: the exact values of
    /// the hints and the review come from it instead of the engine's tables, so no table files
    /// are needed here. The engine's own play is not changed by it (it uses --tables, or its
    /// data directory's tables, if any).
    #[arg(long, value_name = "URL")]
    tables_url: Option<String>,
    /// Opening book of `mill-tb book`, given to the engine as BookPath, with --tables (without
    /// both, the engine uses its data directory's tables and book, if any).
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// Puzzles of `mill-tb puzzles` for the Puzzles tab (default: `puzzles-nine-fly.jsonl` in
    /// the tables' folder, if there is one).
    #[arg(long, value_name = "FILE")]
    puzzles: Option<PathBuf>,
    /// Most engine processes at once (one per open tab).
    #[arg(long, default_value_t = 4)]
    max_engines: usize,
    /// The engine command and its arguments (put it last: every word after it is the
    /// engine's). Default: `millstone` next to this program, else on PATH.
    #[arg(long, num_args = 1.., allow_hyphen_values = true, value_name = "CMD [ARGS]")]
    engine: Vec<String>,
}

struct App {
    cfg: Arc<Config>,
    slots: Arc<Semaphore>,
}

const INDEX: &str = include_str!("../web/index.html");
const STYLE: &str = include_str!("../web/style.css");
const APP_JS: &str = include_str!("../web/app.js");
const BOARD_JS: &str = include_str!("../web/board.js");
const ICON: &str = include_str!("../web/icon.svg");
/// The page's texts, one file per language (every key in each: `tests/translations.rs`).
const LANGS: [(&str, &str); 5] = [
    ("/lang/en.json", include_str!("../web/lang/en.json")),
    ("/lang/it.json", include_str!("../web/lang/it.json")),
    ("/lang/fr.json", include_str!("../web/lang/fr.json")),
    ("/lang/de.json", include_str!("../web/lang/de.json")),
    ("/lang/ru.json", include_str!("../web/lang/ru.json")),
];

fn asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

/// The engine beside this program, building it with cargo when it is missing from a cargo
/// target folder (so that `cargo run --release -p mill-gui` works on a fresh checkout), else
/// the first `millstone` on PATH (as `cargo install` puts it).
fn default_engine() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().ok_or("no folder")?.to_path_buf();
    let name = format!("millstone{}", std::env::consts::EXE_SUFFIX);
    let engine = dir.join(&name);
    if engine.exists() {
        return Ok(engine);
    }
    // target/<profile>/mill-gui: the workspace is two folders up.
    let profile = dir.file_name().and_then(|p| p.to_str()).unwrap_or("");
    let root = dir.parent().and_then(Path::parent);
    if let Some(root) = root.filter(|r| r.join("Cargo.toml").exists()) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        eprintln!(
            "mill-gui: {} is missing; building it with cargo",
            engine.display()
        );
        let mut cmd = std::process::Command::new(cargo);
        cmd.current_dir(root)
            .args(["build", "-p", "millstone", "--bin", "millstone"]);
        if profile == "release" {
            cmd.arg("--release");
        }
        let ok = cmd.status().map(|s| s.success()).unwrap_or(false);
        if ok && engine.exists() {
            return Ok(engine);
        }
    }
    if let Some(on_path) = on_path(&name) {
        return Ok(on_path);
    }
    Err(format!(
        "no engine at {} nor on PATH (build it with `cargo build --release -p millstone`, install it with `cargo install --path .`, or name one with --engine)",
        engine.display()
    ))
}

/// The first file called `name` in the folders of PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[tokio::main]
async fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cli = Cli::parse();
    let engine = if cli.engine.is_empty() {
        match default_engine() {
            Ok(p) => vec![p.to_string_lossy().into_owned()],
            Err(e) => {
                eprintln!("mill-gui: {e}");
                std::process::exit(2);
            }
        }
    } else {
        cli.engine.clone()
    };
    let tables = match &cli.tables {
        Some(t) => {
            let t = t.canonicalize().unwrap_or_else(|_| t.clone());
            let s = t.to_string_lossy().into_owned();
            if !t.is_dir() || s.contains(['\n', '\r']) {
                eprintln!("mill-gui: --tables {s}: not a folder");
                std::process::exit(2);
            }
            Some(s)
        }
        None => None,
    };
    let book = match &cli.book {
        Some(b) => {
            let b = b.canonicalize().unwrap_or_else(|_| b.clone());
            let s = b.to_string_lossy().into_owned();
            if !b.is_file() || s.contains(['\n', '\r']) || tables.is_none() {
                eprintln!("mill-gui: --book {s}: not a file, or no --tables");
                std::process::exit(2);
            }
            Some(s)
        }
        None => None,
    };
    let puzzles = match cli
        .puzzles
        .clone()
        .or_else(|| puzzles::default_file(tables.as_deref()))
    {
        Some(f) => match puzzles::load(&f) {
            Ok(v) => {
                eprintln!("mill-gui: {} puzzles from {}", v.len(), f.display());
                Some(Arc::new(v))
            }
            Err(e) => {
                eprintln!("mill-gui: --puzzles {e}");
                std::process::exit(2);
            }
        },
        None => None,
    };
    let tables_url = match &cli.tables_url {
        Some(u) => match remote::parse_url(u) {
            Ok(base) => {
                let r = Arc::new(remote::RemoteTables::new(base));
                // Said once at the start, beside it: a server that is down (or slow) now may
                // be up by the first hint, so this is no reason to stop or to wait.
                let about = r.clone();
                tokio::spawn(async move {
                    match about.describe().await {
                        Ok(what) => log::info!(
                            "exact values from the table server {}: {what}",
                            about.url()
                        ),
                        Err(e) => log::warn!(
                            "the table server {} does not answer ({e}); hints are estimates until it does",
                            about.url()
                        ),
                    }
                });
                Some(r)
            }
            Err(e) => {
                eprintln!("mill-gui: --tables-url {e}");
                std::process::exit(2);
            }
        },
        None => None,
    };
    let max = cli.max_engines.max(1);
    let app = Arc::new(App {
        cfg: Arc::new(Config {
            engine,
            tables,
            book,
            max_engines: max,
            puzzles,
            tables_url,
        }),
        slots: Arc::new(Semaphore::new(max)),
    });
    let mut router = Router::new();
    for (path, body) in LANGS {
        router = router.route(
            path,
            get(move || async move { asset("application/json; charset=utf-8", body) }),
        );
    }
    let router = router
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX) }),
        )
        .route("/style.css", get(|| async { asset("text/css", STYLE) }))
        .route(
            "/app.js",
            get(|| async { asset("text/javascript", APP_JS) }),
        )
        .route(
            "/board.js",
            get(|| async { asset("text/javascript", BOARD_JS) }),
        )
        .route("/icon.svg", get(|| async { asset("image/svg+xml", ICON) }))
        .route("/ws", get(ws_handler))
        .with_state(app.clone());
    let listener = match tokio::net::TcpListener::bind((cli.host.as_str(), cli.port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mill-gui: cannot listen on {}:{}: {e}", cli.host, cli.port);
            std::process::exit(2);
        }
    };
    let addr = listener.local_addr().expect("bound address");
    let url = format!("http://{addr}/");
    println!(
        "mill-gui: serving {url} (engine: {})",
        app.cfg.engine.join(" ")
    );
    if cli.open {
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        if let Err(e) = std::process::Command::new(opener).arg(&url).spawn() {
            eprintln!("mill-gui: could not start a browser ({opener}: {e}); open {url} yourself");
        }
    }
    if let Err(e) = axum::serve(listener, router).await {
        eprintln!("mill-gui: {e}");
    }
}

/// A page from another site must not drive the engine: the Origin, when sent, must be ours.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
        return true;
    };
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        == Some(host)
}

async fn ws_handler(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(app): State<Arc<App>>,
) -> Response {
    if !same_origin(&headers) {
        return (StatusCode::FORBIDDEN, "cross-origin WebSocket refused").into_response();
    }
    ws.max_message_size(1 << 20)
        .on_upgrade(move |socket| tab(socket, app))
}

async fn tab(mut socket: WebSocket, app: Arc<App>) {
    let permit = match app.slots.clone().try_acquire_owned() {
        Ok(p) => p,
        Err(_) => {
            let m = session::all_engines_busy(app.cfg.max_engines);
            log::warn!("tab refused: all {} engines in use", app.cfg.max_engines);
            let _ = socket.send(Message::Text(m.to_string().into())).await;
            let _ = socket.send(Message::Close(None)).await;
            return;
        }
    };
    log::info!("tab opened");
    Session::new(app.cfg.clone()).run(socket).await;
    drop(permit);
    log::info!("tab closed");
}
