//! `mill-serve`: the perfect tables over HTTP (see docs/server.md).

use clap::Parser;
use millstone::tablebase::Tablebase;
use millstone_server::api::{self, AppState, Settings};
use millstone_server::coverage;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "mill-serve",
    version,
    about = "Perfect answers of the tables over HTTP: a JSON API and an explorer page"
)]
struct Cli {
    /// The table directory (default: the data directory's tables).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR")]
    listen: SocketAddr,
    /// Answers kept in memory (about 2 KB each; 0 turns the cache off).
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    cache: usize,
    /// Requests worked on at the tables at once (default: twice the cores).
    #[arg(long, value_name = "N")]
    max_concurrent: Option<usize>,
    /// Requests a second per client address (429 beyond); unlimited if not given.
    #[arg(long, value_name = "N")]
    rate_limit: Option<u32>,
    /// Read every table file once at the start, so the first answers do not wait for the
    /// disk (the files' size in page cache, which the kernel gives back under pressure).
    #[arg(long)]
    prefetch: bool,
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    log::info!("shutting down");
}

fn fail(msg: String) -> ! {
    log::error!("{msg}");
    eprintln!("mill-serve: {msg}");
    std::process::exit(2);
}

#[tokio::main]
async fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cli = Cli::parse();
    let dir = match cli
        .tables
        .clone()
        .or_else(millstone::datadir::default_tables)
    {
        Some(d) => d,
        None => fail("no --tables and no data directory (set MILLSTONE_DATA)".into()),
    };
    let tb = Tablebase::open(&dir).unwrap_or_else(|e| fail(format!("--tables: {e}")));
    let rule_sets = coverage::scan(&dir, &tb)
        .unwrap_or_else(|e| fail(format!("--tables {}: {e}", dir.display())));
    if rule_sets.is_empty() {
        log::warn!(
            "no table files in {}: every answer will be unknown",
            dir.display()
        );
    }
    for r in &rule_sets {
        log::info!(
            "serving {} {}: {}/{} moving sub-spaces, {}/{} placing sectors{}",
            r.variant,
            if r.flying { "flying" } else { "no flying" },
            r.moving_subspaces,
            r.moving_subspaces_total,
            r.placing_sectors,
            r.placing_sectors_total,
            if r.is_complete() {
                " (complete)"
            } else {
                " (partial)"
            }
        );
    }
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let settings = Settings {
        cache: cli.cache,
        max_concurrent: cli.max_concurrent.unwrap_or(2 * cores).max(1),
        rate_limit: cli.rate_limit.filter(|&r| r > 0),
        prefetch: cli.prefetch,
    };
    let state = AppState::new(tb, rule_sets, settings);
    state.warm_up();
    let listener = tokio::net::TcpListener::bind(cli.listen)
        .await
        .unwrap_or_else(|e| fail(format!("--listen {}: {e}", cli.listen)));
    let addr = listener
        .local_addr()
        .unwrap_or_else(|e| fail(format!("--listen: {e}")));
    // The one line on stdout: scripts and tests read the real port from it (with --listen :0).
    println!("mill-serve listening on http://{addr}/");
    log::info!("tables from {}", dir.display());
    let app = api::router(state).into_make_service_with_connect_info::<SocketAddr>();
    if let Err(e) = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown())
        .await
    {
        fail(format!("server: {e}"));
    }
}
