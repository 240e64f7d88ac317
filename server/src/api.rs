//! The routes, the errors and the headers of the service.
//!
//! Every answer is JSON (the page and its assets aside); every refusal is a 4xx with
//! `{"error": "..."}`. Table work is blocking I/O on mapped files, so it runs on tokio's
//! blocking threads, at most `--max-concurrent` at a time: a burst queues (up to
//! [`QUEUE_WAIT`], then 503) instead of starving the threads that accept connections.

use crate::answer::{self, SectorKey};
use crate::cache::Cache;
use crate::coverage::RuleSet;
use crate::explorer;
use crate::limits::RateLimit;
use crate::query::{quote, rules_name, Params, QueryError, MAX_QUERY_BYTES};
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use millstone::tablebase::placing::Sector;
use millstone::tablebase::Tablebase;
use millstone::{Position, Rules};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// How long a request waits for a turn at the tables before it is refused with 503.
pub const QUEUE_WAIT: Duration = Duration::from_secs(10);

/// Answers never change (the tables are the truth), so clients and proxies may keep them.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// An answer with unknown parts may improve when more tables are installed.
const SHORT: &str = "public, max-age=300";

/// The server's settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Answers kept in memory.
    pub cache: usize,
    /// Table requests worked on at once.
    pub max_concurrent: usize,
    /// Requests a second per client address, if limited.
    pub rate_limit: Option<u32>,
    /// Read every table file once at the start (see [`AppState::warm_up`]).
    pub prefetch: bool,
}

/// What every request shares.
pub struct AppState {
    tb: Arc<Tablebase>,
    rule_sets: Vec<RuleSet>,
    cache: Cache,
    work: Arc<Semaphore>,
    settings: Settings,
    rate: Option<RateLimit>,
    ready: AtomicBool,
    started: Instant,
}

impl AppState {
    /// The state for tables `tb` holding `rule_sets`.
    pub fn new(tb: Tablebase, rule_sets: Vec<RuleSet>, settings: Settings) -> Arc<AppState> {
        Arc::new(AppState {
            tb: Arc::new(tb),
            rule_sets,
            cache: Cache::new(settings.cache),
            work: Arc::new(Semaphore::new(settings.max_concurrent.max(1))),
            rate: settings.rate_limit.map(RateLimit::new),
            settings,
            ready: AtomicBool::new(false),
            started: Instant::now(),
        })
    }

    fn serves(&self, rules: Rules) -> bool {
        self.rule_sets.iter().any(|r| r.rules == rules)
    }

    /// Opens and checks every file now, on a thread of its own, so that no request pays for
    /// a file's first use (the check reads a file's whole W/D/L part, up to 400 MB for nine).
    /// With `prefetch`, it then reads every file once, so that the distance blocks of the
    /// first answers come from the page cache rather than the disk. Requests are served
    /// meanwhile; one that needs a file not yet open opens it or waits for it, and
    /// `/api/v1/info` says `"ready": false` until all this is done.
    pub fn warm_up(self: &Arc<Self>) {
        let st = self.clone();
        let spawned = std::thread::Builder::new()
            .name("warm-up".into())
            .spawn(move || {
                let t = Instant::now();
                for r in &st.rule_sets {
                    st.tb.preload(r.rules, u64::MAX);
                    for s in Sector::all(r.rules, 2 * r.rules.variant.pieces()) {
                        st.tb.placing_table(s);
                    }
                }
                log::info!(
                    "tables open and checked in {:.1}s",
                    t.elapsed().as_secs_f64()
                );
                if st.settings.prefetch {
                    let t = Instant::now();
                    let bytes = st.prefetch();
                    log::info!(
                        "prefetch: {:.1} GB of table files read in {:.1}s",
                        bytes as f64 / 1e9,
                        t.elapsed().as_secs_f64()
                    );
                }
                st.ready.store(true, Ordering::Release);
            });
        if let Err(e) = spawned {
            log::warn!("no warm-up thread ({e}); files open on first use");
            self.ready.store(true, Ordering::Release);
        }
    }

    /// Reads every table file of the served rule sets once (names from the library), so the
    /// kernel keeps their pages; returns the bytes read.
    fn prefetch(&self) -> u64 {
        let mut paths = Vec::new();
        for r in &self.rule_sets {
            let n = r.rules.variant.pieces();
            for w in 3..=n {
                for b in 3..=n {
                    paths.push(self.tb.path(r.rules, w, b));
                }
            }
            for s in Sector::all(r.rules, 2 * n) {
                paths.push(self.tb.dir().join(s.file_name()));
            }
        }
        let mut buf = vec![0u8; 1 << 20];
        let mut total = 0;
        for p in paths.iter().filter(|p| p.is_file()) {
            let read = std::fs::File::open(p).and_then(|mut f| {
                let mut n = 0u64;
                loop {
                    match std::io::Read::read(&mut f, &mut buf)? {
                        0 => return Ok(n),
                        k => n += k as u64,
                    }
                }
            });
            match read {
                Ok(n) => total += n,
                Err(e) => log::warn!("prefetch {}: {e}", p.display()),
            }
        }
        total
    }
}

/// A refusal: its status and the message for `{"error": message}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message }).to_string();
        (
            self.status,
            [
                (header::CONTENT_TYPE, "application/json"),
                // A refusal is about this request, not the resource: never kept.
                (header::CACHE_CONTROL, "no-store"),
            ],
            body,
        )
            .into_response()
    }
}

/// A refusal with its status.
pub fn error(status: StatusCode, message: impl Into<String>) -> ApiError {
    ApiError {
        status,
        message: message.into(),
    }
}

fn bad(e: QueryError) -> ApiError {
    error(StatusCode::BAD_REQUEST, e.0)
}

fn json(bytes: Bytes, cache_control: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, cache_control),
        ],
        bytes,
    )
        .into_response()
}

/// The query of a table route, its size checked first (414) and then its keys (400).
fn params(uri: &Uri, known: &[&str]) -> Result<Params, ApiError> {
    if uri.query().is_some_and(|q| q.len() > MAX_QUERY_BYTES) {
        return Err(error(
            StatusCode::URI_TOO_LONG,
            format!("query string over {MAX_QUERY_BYTES} bytes"),
        ));
    }
    Params::parse(uri.query(), known).map_err(bad)
}

fn served(st: &AppState, rules: Rules) -> Result<(), ApiError> {
    if st.serves(rules) {
        Ok(())
    } else {
        Err(error(
            StatusCode::NOT_FOUND,
            format!("this server has no tables of {rules}"),
        ))
    }
}

/// Runs table work on a blocking thread once a permit is free.
async fn with_tables<T: Send + 'static>(
    st: &Arc<AppState>,
    work: impl FnOnce(&Tablebase) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let permit = match tokio::time::timeout(QUEUE_WAIT, st.work.clone().acquire_owned()).await {
        Ok(Ok(p)) => p,
        _ => {
            return Err(error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is busy; try again",
            ))
        }
    };
    let tb = st.tb.clone();
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(&tb)
    })
    .await
    .map_err(|e| {
        log::error!("table work failed: {e}");
        error(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
    })
}

/// `GET /api/v1/position?fen=...&variant=nine|twelve&flying=true|false`.
async fn position(State(st): State<Arc<AppState>>, uri: Uri) -> Result<Response, ApiError> {
    let p = params(&uri, &["fen", "variant", "flying"])?;
    let rules = p.rules().map_err(bad)?;
    served(&st, rules)?;
    let pos = match p.get("fen") {
        None => Position::new(rules),
        Some(f) => Position::from_fen(f, rules).map_err(|e| {
            error(
                StatusCode::BAD_REQUEST,
                format!("bad position {}: {e}", quote(f)),
            )
        })?,
    };
    let key = format!("{}|{}", rules_name(rules), pos.to_fen());
    if let Some(b) = st.cache.get(&key) {
        // Only complete answers are cached (see below).
        return Ok(json(b, IMMUTABLE));
    }
    let (bytes, complete) = with_tables(&st, move |tb| {
        let a = answer::position(tb, &pos);
        (serde_json::to_vec(&a), !a.has_unknown())
    })
    .await?;
    let bytes = Bytes::from(bytes.map_err(|e| {
        log::error!("answer not serialisable: {e}");
        error(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
    })?);
    if complete {
        st.cache.insert(key, bytes.clone());
        Ok(json(bytes, IMMUTABLE))
    } else {
        Ok(json(bytes, SHORT))
    }
}

/// `GET /api/v1/sector?variant=..&flying=..` with `fen=...` (the position's sector), or
/// `w=..&b=..` (a moving sub-space: pieces of the side to move, of the other side), or
/// `ply=..&w=..&b=..` (a placing sector after `ply` placements).
async fn sector(State(st): State<Arc<AppState>>, uri: Uri) -> Result<Response, ApiError> {
    let p = params(&uri, &["fen", "variant", "flying", "w", "b", "ply"])?;
    let rules = p.rules().map_err(bad)?;
    served(&st, rules)?;
    let n = rules.variant.pieces();
    let (w, b, ply) = (
        p.number("w", n).map_err(bad)?,
        p.number("b", n).map_err(bad)?,
        p.number("ply", 2 * n).map_err(bad)?,
    );
    let key = match (p.get("fen"), w, b, ply) {
        (Some(f), None, None, None) => {
            let pos = Position::from_fen(f, rules).map_err(|e| {
                error(
                    StatusCode::BAD_REQUEST,
                    format!("bad position {}: {e}", quote(f)),
                )
            })?;
            answer::sector_key_of(&pos).ok_or_else(|| {
                error(StatusCode::BAD_REQUEST, "the position belongs to no sector")
            })?
        }
        (None, Some(w), Some(b), None) if (3..=n).contains(&w) && (3..=n).contains(&b) => {
            SectorKey::Moving(w, b)
        }
        (None, Some(w), Some(b), Some(ply)) => Sector::new(rules, ply, w, b)
            .filter(|s| s.is_stored())
            .map(SectorKey::Placing)
            .ok_or_else(|| {
                error(
                    StatusCode::BAD_REQUEST,
                    format!("no placing sector of {rules} has ply {ply}, {w} v {b}"),
                )
            })?,
        _ => {
            return Err(error(
                StatusCode::BAD_REQUEST,
                format!("name a sector by fen, by w and b (3 to {n} each), or by ply, w and b"),
            ))
        }
    };
    let stats = with_tables(&st, move |tb| answer::sector(tb, rules, key)).await?;
    match stats {
        Some(s) => Ok(json(
            Bytes::from(serde_json::to_vec(&s).unwrap_or_default()),
            IMMUTABLE,
        )),
        None => Err(error(
            StatusCode::NOT_FOUND,
            "this server has no table of that sector",
        )),
    }
}

/// `GET /api/v1/info`: what the server serves and how it is doing.
async fn info(State(st): State<Arc<AppState>>, uri: Uri) -> Result<Response, ApiError> {
    // No parameters: a query here is a mistake worth saying, not something to ignore.
    params(&uri, &[])?;
    let body = serde_json::json!({
        "server": "mill-serve",
        "version": env!("CARGO_PKG_VERSION"),
        "api": "v1",
        "ready": st.ready.load(Ordering::Acquire),
        "uptime_s": st.started.elapsed().as_secs(),
        "rule_sets": st.rule_sets,
        "cache": st.cache.stats(),
        "limits": {
            "max_concurrent": st.settings.max_concurrent,
            "rate_limit_per_s": st.rate.as_ref().map(|r| r.per_second()),
            "max_query_bytes": MAX_QUERY_BYTES,
            "mainline_cap": answer::MAINLINE_CAP,
        },
    });
    Ok(json(Bytes::from(body.to_string()), "no-cache"))
}

async fn not_found(uri: Uri) -> ApiError {
    let path = uri.path();
    error(
        StatusCode::NOT_FOUND,
        format!(
            "no route {} (see /api/v1/info, /api/v1/position, /api/v1/sector)",
            quote(path)
        ),
    )
}

async fn method_not_allowed(method: Method) -> Response {
    let mut r = error(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("method {} not allowed; use GET", quote(method.as_str())),
    )
    .into_response();
    r.headers_mut().insert(
        header::ALLOW,
        HeaderValue::from_static("GET, HEAD, OPTIONS"),
    );
    r
}

/// The answer to a CORS preflight: any origin may GET.
async fn preflight() -> Response {
    (
        StatusCode::NO_CONTENT,
        [
            (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD, OPTIONS"),
            (header::ACCESS_CONTROL_MAX_AGE, "86400"),
        ],
    )
        .into_response()
}

/// Every answer may be read by any page (CORS) and is never sniffed as another type.
async fn common_headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// One line a request at debug level (`RUST_LOG=debug`): method, path, status, time.
async fn access_log(req: Request, next: Next) -> Response {
    if !log::log_enabled!(log::Level::Debug) {
        return next.run(req).await;
    }
    let (method, uri) = (req.method().clone(), req.uri().clone());
    let t = Instant::now();
    let r = next.run(req).await;
    let target = uri.to_string();
    log::debug!(
        "{method} {} {} {:.2} ms",
        quote(&target),
        r.status().as_u16(),
        t.elapsed().as_secs_f64() * 1000.0
    );
    r
}

/// The per-client rate limit (429), when one is set; the client is the peer address.
async fn rate_limit(State(st): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    if let Some(rate) = &st.rate {
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        if let Some(ip) = peer {
            if !rate.allow(ip) {
                let mut r = error(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!("over {} requests a second", rate.per_second()),
                )
                .into_response();
                r.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return r;
            }
        }
    }
    next.run(req).await
}

/// The whole service.
pub fn router(st: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/api/v1/info", get(info).options(preflight))
        .route("/api/v1/position", get(position).options(preflight))
        .route("/api/v1/sector", get(sector).options(preflight))
        .route_layer(axum::middleware::from_fn_with_state(st.clone(), rate_limit));
    explorer::routes()
        .merge(api)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::map_response(common_headers))
        .layer(axum::middleware::from_fn(access_log))
        .with_state(st)
}
