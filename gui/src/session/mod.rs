//! One browser tab: its engine process, its game, and the requests of its page.
//!
//! The page sends typed JSON requests; this side checks each of them and composes every
//! engine command itself. The game record lives here; the page draws what it is sent.
//!
//! Here: the requests' dispatch, the engine's lines, the position at the cursor and the state
//! sent to the page. Beside it, each concern in its own file: `play` (moves, take back, resign,
//! players and time), `analysis` (the infinite search, lines shown, MultiPV), `records`
//! (position strings, PGN and JSONL), `review`, `hints`, `puzzles`, `options`, `clock`, and
//! `link` (the engine process: start, failure, restart).

/// `refusal!("e_key", "English text with {name}", name = value, ...)`: a [`Refusal`], its
/// text made from the template, which is also the English text of `e_key` in the page's
/// language files (tests/translations.rs holds the two equal).
macro_rules! refusal {
    ($key:literal, $text:literal $(, $name:ident = $val:expr)* $(,)?) => {{
        $(let $name: String = ($val).to_string();)*
        $crate::session::Refusal {
            key: $key,
            text: format!($text $(, $name = $name)*),
            vars: vec![$((stringify!($name), $name)),*],
            cause: None,
        }
    }};
}

/// `bad!(...)`: the request is refused, with a [`refusal!`] for the page.
macro_rules! bad {
    ($($t:tt)*) => {
        Err($crate::session::Failure::Bad(refusal!($($t)*)))
    };
}

mod analysis;
mod clock;
pub(crate) mod hints;
mod link;
mod options;
mod play;
mod puzzles;
mod records;
mod review;

use crate::engine::{parse_info, Engine, EngineError, Info, Score};
use crate::records::{cut, mills_from_fen};
use crate::validate::{is_fen, is_move_token, MAX_REQUEST};
use axum::extract::ws::{Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the server was started with.
#[derive(Debug, Clone)]
pub struct Config {
    pub engine: Vec<String>,
    pub tables: Option<String>,
    pub book: Option<String>,
    pub max_engines: usize,
    /// The puzzles of `--puzzles` (checked at start).
    pub puzzles: Option<Arc<Vec<crate::puzzles::Puzzle>>>,
    /// The table server of `--tables-url`: the exact values of hints and review come from it
    /// instead of the engine.
    pub tables_url: Option<Arc<crate::remote::RemoteTables>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    Human,
    Engine,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Limit {
    Movetime { ms: u64 },
    Depth { depth: u64 },
    Clock { base_ms: u64, inc_ms: u64 },
}

/// A request from the page.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    NewGame { variant: String, flying: bool },
    Move { token: String },
    Goto { ply: usize },
    Takeback,
    Resign,
    SetFen { fen: String },
    LoadPgn { text: String },
    LoadJsonl { line: String },
    ExportPgn,
    SetPlayers { white: Player, black: Player },
    SetLimit { limit: Limit },
    SetOption { name: String, value: Option<String> },
    Analyse { on: bool, multipv: u64 },
    Hints { on: bool },
    Preview { moves: Vec<String> },
    PreviewEnd,
    Review { movetime: u64 },
    ReviewStop,
    PuzzleStart { id: Option<usize> },
    PuzzleHint,
    PuzzleLine,
    Go,
    Ping,
}

#[derive(Debug, Clone, PartialEq)]
enum Search {
    Idle,
    Play { started: Instant, limit_ms: u64 },
    Analysis,
    Review { index: usize, started: Instant },
}

#[derive(Debug, Clone, Default)]
struct PosInfo {
    fen: String,
    legal: Vec<String>,
    gameover: bool,
    result: String,
    reason: String,
    white_to_move: bool,
    mills: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
struct Mark {
    ply: usize,
    kind: &'static str,
    best: Option<String>,
    drop: i64,
}

struct Review {
    movetime: u64,
    results: Vec<Option<(Score, String)>>,
    /// Per position, every move's exact value where the tables give them.
    values: Vec<Option<Vec<hints::MoveValue>>>,
}

/// A request refused, as the page is told: the key of the text in the page's language files,
/// the values of the text's `{name}` places, and the English text (for the log, and for a
/// page without the key). The engine's failures are told the same way, with their cause (a
/// text of its own, put in the place `{cause}`).
pub(crate) struct Refusal {
    key: &'static str,
    vars: Vec<(&'static str, String)>,
    text: String,
    cause: Option<Box<Refusal>>,
}

impl Refusal {
    /// The fields the page reads: `message`, `key`, `vars` and, where there is one, `cause`
    /// (the same fields again).
    fn fields(&self) -> serde_json::Map<String, Value> {
        let vars: serde_json::Map<String, Value> = self
            .vars
            .iter()
            .map(|(k, v)| (k.to_string(), Value::from(v.as_str())))
            .collect();
        let mut m = serde_json::Map::new();
        m.insert("message".into(), Value::from(self.text.as_str()));
        m.insert("key".into(), Value::from(self.key));
        m.insert("vars".into(), Value::Object(vars));
        if let Some(c) = &self.cause {
            m.insert("cause".into(), Value::Object(c.fields()));
        }
        m
    }

    /// A message of `type` (with `extra` fields such as a status) that carries this text.
    fn message_of(&self, kind: &str, extra: Value) -> Value {
        let mut m = self.fields();
        m.insert("type".into(), Value::from(kind));
        if let Value::Object(x) = extra {
            m.extend(x);
        }
        Value::Object(m)
    }

    fn message(&self) -> Value {
        self.message_of("error", Value::Null)
    }

    /// This text, made with `cause`'s English text in its place `{cause}`, with `cause` itself
    /// for the page to translate.
    fn because(mut self, cause: Refusal) -> Refusal {
        self.cause = Some(Box::new(cause));
        self
    }
}

/// The engine's failure in the page's words.
fn engine_failure(e: &EngineError) -> Refusal {
    match e {
        EngineError::Crashed(s) => {
            refusal!("e_engine_crashed", "the engine crashed: {why}", why = s)
        }
        EngineError::Hung(s) => refusal!(
            "e_engine_hung",
            "the engine stopped answering: {why}",
            why = s
        ),
        EngineError::Spawn(s) => refusal!(
            "e_engine_spawn",
            "the engine could not be started: {why}",
            why = s
        ),
    }
}

/// The message of a tab refused because every engine is in use.
pub fn all_engines_busy(max: usize) -> Value {
    refusal!(
        "e_all_engines_busy",
        "All {n} engines are in use (mill-gui --max-engines {n}): close another tab and reload this one.",
        n = max
    )
    .message_of("fatal", Value::Null)
}

/// Why a request failed: the page's fault (a message for it) or the engine's.
enum Failure {
    Bad(Refusal),
    Engine(EngineError),
}

impl From<EngineError> for Failure {
    fn from(e: EngineError) -> Self {
        Failure::Engine(e)
    }
}

type Res<T> = Result<T, Failure>;

/// How often a running infinite search is checked with `isready`.
const PING_EVERY: Duration = Duration::from_secs(10);

/// The options the page sets through its own controls or never (the server's choice).
const RESERVED_OPTIONS: [&str; 6] = [
    "UCI_Variant",
    "Flying",
    "MultiPV",
    "TablePath",
    "BookPath",
    "UCI_ShowWDL",
];

pub struct Session {
    cfg: Arc<Config>,
    engine: Option<Engine>,
    outbox: Option<tokio::sync::mpsc::UnboundedSender<String>>,
    variant: String,
    flying: bool,
    start_fen: String,
    startpos_fen: String,
    moves: Vec<String>,
    cursor: usize,
    /// Per position 0..=len: a score from White's point of view, if known.
    evals: Vec<Option<Score>>,
    marks: Vec<Mark>,
    pos: PosInfo,
    /// The result at the end of the move list, when over: by the rules or by resign/time.
    end_rules: Option<(String, String)>,
    end_forced: Option<(String, String)>,
    players: [Player; 2],
    limit: Limit,
    clocks: [i64; 2],
    turn_start: Instant,
    search: Search,
    last_info: Option<Info>,
    last_think_ms: Option<u64>,
    analysis_on: bool,
    multipv: u64,
    engine_multipv: u64,
    option_values: Vec<(String, String)>,
    preview: bool,
    review: Option<Review>,
    paused: bool,
    has_mills_query: bool,
    restarts: Vec<Instant>,
    /// When a long search was last checked with `isready`.
    ping_at: Instant,
    /// Whether the page shows hints (every legal move's value).
    hints_on: bool,
    /// The values of the position at the cursor, when hints are on.
    hints: Option<hints::Values>,
    /// The engine answered `values` with an error: it has no such command.
    values_unsupported: bool,
    /// The engine refused `values expected` (it predates it): hints ask plain `values`.
    expected_unsupported: bool,
    /// The Puzzles tab.
    puzzles: puzzles::Puzzles,
}

fn msg(v: Value) -> String {
    v.to_string()
}

impl Session {
    pub fn new(cfg: Arc<Config>) -> Session {
        Session {
            cfg,
            engine: None,
            outbox: None,
            variant: "nine".into(),
            flying: true,
            start_fen: String::new(),
            startpos_fen: String::new(),
            moves: Vec::new(),
            cursor: 0,
            evals: vec![None],
            marks: Vec::new(),
            pos: PosInfo::default(),
            end_rules: None,
            end_forced: None,
            players: [Player::Human, Player::Engine],
            limit: Limit::Movetime { ms: 1000 },
            clocks: [0, 0],
            turn_start: Instant::now(),
            search: Search::Idle,
            last_info: None,
            last_think_ms: None,
            analysis_on: false,
            multipv: 1,
            engine_multipv: 1,
            option_values: Vec::new(),
            preview: false,
            review: None,
            paused: false,
            has_mills_query: true,
            restarts: Vec::new(),
            ping_at: Instant::now(),
            hints_on: false,
            hints: None,
            values_unsupported: false,
            expected_unsupported: false,
            puzzles: puzzles::Puzzles::default(),
        }
    }

    /// Sends a message to the page at once (a writer task owns the socket's sending half).
    fn push(&mut self, v: Value) {
        if let Some(o) = &self.outbox {
            let _ = o.send(msg(v));
        }
    }

    fn error(&mut self, r: Refusal) {
        log::info!("request refused: {}", r.text);
        self.push(r.message());
    }

    fn eng(&mut self) -> Res<&mut Engine> {
        match self.engine.as_mut() {
            Some(e) => Ok(e),
            None => bad!("e_no_engine", "no engine is running"),
        }
    }

    /// The main loop of the tab.
    pub async fn run(mut self, socket: WebSocket) {
        let (mut sink, mut stream) = socket.split();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        self.outbox = Some(tx);
        let writer = tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                if sink.send(Message::Text(m.into())).await.is_err() {
                    break;
                }
            }
            let _ = sink.close().await;
        });
        if let Err(e) = self.start_engine().await {
            self.push(engine_failure(&e).message_of("fatal", Value::Null));
            self.outbox = None;
            let _ = writer.await;
            return;
        }
        if let Err(f) = self.reset_game("nine", true, None).await {
            self.fail(f).await;
        }
        self.after_change().await;
        loop {
            if writer.is_finished() {
                break;
            }
            let deadline = self.deadline();
            tokio::select! {
                m = stream.next() => match m {
                    Some(Ok(Message::Text(t))) => self.on_text(t.as_str()).await,
                    Some(Ok(Message::Binary(_))) => self.error(refusal!("e_binary", "binary messages are not understood")),
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => {}
                },
                line = recv_line(&mut self.engine) => self.on_engine_line(line).await,
                _ = sleep_until(deadline) => self.on_deadline().await,
            }
        }
        self.close().await;
        self.outbox = None;
        writer.abort();
    }

    async fn on_text(&mut self, text: &str) {
        if text.len() > MAX_REQUEST {
            return self.error(refusal!(
                "e_too_long",
                "request of {bytes} bytes refused (the limit is {limit})",
                bytes = text.len(),
                limit = MAX_REQUEST
            ));
        }
        let req: Request = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                return self.error(refusal!(
                    "e_bad_request",
                    "bad request: {why}",
                    why = cut(&e.to_string())
                ))
            }
        };
        log::debug!("request {req:?}");
        let r = self.handle(req).await;
        if let Err(f) = r {
            self.fail(f).await;
        }
    }

    async fn handle(&mut self, req: Request) -> Res<()> {
        match req {
            Request::Ping => {
                self.push(json!({"type": "pong"}));
                Ok(())
            }
            Request::NewGame { variant, flying } => {
                self.stop_all().await?;
                self.reset_game(&variant, flying, None).await?;
                self.after_change().await;
                Ok(())
            }
            Request::Move { token } => self.human_move(token).await,
            Request::Goto { ply } => {
                if self.review.is_some() {
                    return bad!(
                        "e_review_running_stop",
                        "a review is running; stop it first"
                    );
                }
                if matches!(self.search, Search::Play { .. }) {
                    return bad!(
                        "e_engine_thinking",
                        "the engine is thinking; wait for its move"
                    );
                }
                self.stop_all().await?;
                self.preview = false;
                self.cursor = ply.min(self.moves.len());
                self.after_change().await;
                Ok(())
            }
            Request::Takeback => self.takeback().await,
            Request::Resign => self.resign().await,
            Request::SetFen { fen } => self.set_fen(fen).await,
            Request::LoadPgn { text } => self.load_pgn(&text).await,
            Request::LoadJsonl { line } => self.load_jsonl(&line).await,
            Request::ExportPgn => self.export_pgn(),
            Request::SetPlayers { white, black } => self.set_players(white, black).await,
            Request::SetLimit { limit } => self.set_limit(limit).await,
            Request::SetOption { name, value } => self.set_option(name, value).await,
            Request::Analyse { on: true, .. } if self.puzzle_solving() => {
                self.send_state();
                bad!(
                    "e_puzzle_no_analysis",
                    "no analysis while a puzzle is being solved"
                )
            }
            Request::Analyse { on, multipv } => self.analyse(on, multipv).await,
            Request::Hints { on } if on && self.puzzle_solving() => {
                self.send_state();
                bad!(
                    "e_puzzle_no_hints",
                    "no table hints while a puzzle is being solved: use the puzzle's hint"
                )
            }
            Request::Hints { on } => {
                self.hints_on = on;
                if matches!(self.search, Search::Analysis) {
                    self.stop_all().await?;
                }
                self.after_change().await;
                Ok(())
            }
            Request::Preview { moves } => self.preview(moves).await,
            Request::PreviewEnd => {
                if self.preview {
                    self.preview = false;
                    self.after_change().await;
                }
                Ok(())
            }
            Request::Review { movetime } => self.start_review(movetime).await,
            Request::ReviewStop => {
                if self.review.is_some() {
                    self.stop_all().await?;
                    self.finish_review();
                    self.after_change().await;
                }
                Ok(())
            }
            Request::PuzzleStart { id } => self.puzzle_start(id).await,
            Request::PuzzleHint => self.puzzle_hint(),
            Request::PuzzleLine => self.puzzle_line().await,
            Request::Go => self.let_engine_move().await,
        }
    }

    /// Stops whatever search runs.
    async fn stop_all(&mut self) -> Res<()> {
        if self.search != Search::Idle {
            self.eng()?.stop().await?;
            self.search = Search::Idle;
        }
        Ok(())
    }

    /// The options of the rules and a new game at the start (or at `fen`).
    async fn apply_rules(&mut self, variant: &str, flying: bool) -> Res<()> {
        let e = self.eng()?;
        let mut cmds = Vec::new();
        match e.option("UCI_Variant") {
            Some(o) => {
                let v = o.vars.iter().find(|x| x.eq_ignore_ascii_case(variant));
                match v {
                    Some(v) => cmds.push(format!("setoption name {} value {v}", o.name)),
                    None => {
                        return bad!(
                            "e_no_variant",
                            "the engine has no variant '{variant}'",
                            variant = cut(variant)
                        )
                    }
                }
            }
            None if variant != "nine" => return bad!("e_only_nine", "the engine plays only nine"),
            None => {}
        }
        match e.option("Flying") {
            Some(o) => cmds.push(format!("setoption name {} value {flying}", o.name)),
            None if !flying => return bad!("e_no_flying", "the engine has no Flying option"),
            None => {}
        }
        cmds.push("ucinewgame".into());
        cmds.push("position startpos".into());
        let answers = e.sync(&cmds).await?;
        if let Some(a) = answers.first() {
            return bad!(
                "e_rules_refused",
                "the engine refused the rules: {why}",
                why = strip_error(a)
            );
        }
        Ok(())
    }

    async fn reset_game(&mut self, variant: &str, flying: bool, fen: Option<String>) -> Res<()> {
        let variant = variant.to_ascii_lowercase();
        if variant != "nine" && variant != "twelve" {
            return bad!(
                "e_unknown_variant",
                "unknown variant '{variant}'",
                variant = cut(&variant)
            );
        }
        self.apply_rules(&variant, flying).await?;
        let startpos = match self.eng()?.query("fen").await? {
            Ok(f) if is_fen(&f) => f,
            Ok(f) => {
                return bad!(
                    "e_odd_fen",
                    "the engine's position string '{fen}' is odd",
                    fen = cut(&f)
                )
            }
            Err(e) => {
                return bad!(
                    "e_no_query_fen",
                    "the engine has no query fen: {why}",
                    why = e
                )
            }
        };
        let start = match fen {
            Some(f) => {
                let answers = self.eng()?.sync(&[format!("position fen {f}")]).await?;
                if let Some(a) = answers.first() {
                    // Back to the game that was on.
                    let (v, fl) = (self.variant.clone(), self.flying);
                    self.apply_rules(&v, fl).await?;
                    Box::pin(self.after_change()).await;
                    return bad!(
                        "e_position_refused",
                        "position refused: {why}",
                        why = strip_error(a)
                    );
                }
                match self.eng()?.query("fen").await? {
                    Ok(f) => f,
                    Err(e) => {
                        return bad!(
                            "e_no_query_fen",
                            "the engine has no query fen: {why}",
                            why = e
                        )
                    }
                }
            }
            None => startpos.clone(),
        };
        self.variant = variant;
        self.flying = flying;
        self.startpos_fen = startpos;
        self.start_fen = start;
        self.clear_game();
        Ok(())
    }

    fn clear_game(&mut self) {
        self.moves.clear();
        self.cursor = 0;
        self.evals = vec![None];
        self.marks.clear();
        self.end_forced = None;
        self.end_rules = None;
        self.review = None;
        self.preview = false;
        self.paused = false;
        self.last_info = None;
        self.last_think_ms = None;
        self.leave_puzzle();
        if let Limit::Clock { base_ms, .. } = self.limit {
            self.clocks = [base_ms as i64, base_ms as i64];
        }
        self.turn_start = Instant::now();
    }

    fn position_cmd(&self, moves: &[String]) -> String {
        let mut cmd = format!("position fen {}", self.start_fen);
        if !moves.is_empty() {
            cmd.push_str(" moves ");
            cmd.push_str(&moves.join(" "));
        }
        cmd
    }

    /// Sets the engine to the position at the cursor and asks it everything about it.
    async fn refresh(&mut self) -> Res<()> {
        let cmd = self.position_cmd(&self.moves[..self.cursor]);
        let with_mills = self.has_mills_query;
        let mut cmds = vec![cmd];
        for q in [
            "fen",
            "legalmoves",
            "gameover",
            "result",
            "reason",
            "p1turn",
        ] {
            cmds.push(format!("query {q}"));
        }
        if with_mills {
            cmds.push("query mills".into());
        }
        let answers = self.eng()?.sync(&cmds).await?;
        let n = cmds.len() - 1;
        if answers.len() != n {
            // The position itself was refused (its error line comes first).
            return bad!(
                "e_engine_position",
                "the engine refused the position: {why}",
                why = answers.first().map(|a| strip_error(a)).unwrap_or_default()
            );
        }
        let val = |i: usize| -> Option<String> {
            answers[i]
                .strip_prefix("response")
                .map(|v| v.trim().to_string())
        };
        let fen = val(0).unwrap_or_default();
        let legal: Vec<String> = val(1)
            .unwrap_or_default()
            .split_whitespace()
            .filter(|m| is_move_token(m))
            .map(|m| m.to_string())
            .collect();
        let gameover = val(2).as_deref() == Some("true");
        let result = val(3).unwrap_or_else(|| "none".into());
        let reason = val(4).unwrap_or_else(|| "none".into());
        let white_to_move = match val(5).as_deref() {
            Some("true") => true,
            Some("false") => false,
            _ => fen.split(' ').nth(1) != Some("b"),
        };
        let twelve = self.variant == "twelve";
        let mills = if with_mills {
            match val(6) {
                Some(v) => v
                    .split_whitespace()
                    .filter(|p| crate::validate::is_point(p))
                    .map(|p| p.to_string())
                    .collect(),
                None => {
                    log::info!("the engine has no `query mills`; mills are read off the board");
                    self.has_mills_query = false;
                    mills_from_fen(&fen, twelve)
                }
            }
        } else {
            mills_from_fen(&fen, twelve)
        };
        self.pos = PosInfo {
            fen,
            legal,
            gameover,
            result,
            reason,
            white_to_move,
            mills,
        };
        if self.cursor == self.moves.len() {
            self.end_rules = if gameover {
                Some((self.pos.result.clone(), self.pos.reason.clone()))
            } else {
                None
            };
        }
        Ok(())
    }

    /// After any change: refresh, send the state, start what should run.
    async fn after_change(&mut self) {
        if self.engine.is_none() {
            return self.send_state();
        }
        // A search of the position before the change ends first (its lines are dropped).
        if let Err(f) = self.stop_all().await {
            self.send_state();
            return self.fail(f).await;
        }
        if let Err(f) = self.refresh().await {
            self.send_state();
            return self.fail(f).await;
        }
        if let Err(f) = self.fetch_hints().await {
            self.send_state();
            return self.fail(f).await;
        }
        if let Err(f) = self.start_search().await {
            self.send_state();
            return self.fail(f).await;
        }
        self.send_state();
    }

    async fn go(&mut self, params: String) -> Res<()> {
        let e = self.eng()?;
        let answers = e.sync(&[format!("go {params}")]).await?;
        if let Some(a) = answers.first() {
            return bad!(
                "e_engine_go",
                "the engine refused go: {why}",
                why = strip_error(a)
            );
        }
        e.searching = true;
        Ok(())
    }

    async fn start_search(&mut self) -> Res<()> {
        if self.search != Search::Idle {
            return Ok(());
        }
        self.last_info = None;
        if self.engine_to_move() {
            self.set_multipv(1).await?;
            let (params, limit_ms) = match self.limit {
                Limit::Movetime { ms } => (format!("movetime {ms}"), ms),
                Limit::Depth { depth } => (format!("depth {depth}"), 600_000),
                Limit::Clock { inc_ms, .. } => {
                    let side = if self.pos.white_to_move { 0 } else { 1 };
                    let mut c = self.clocks;
                    c[side] -= self.clock_elapsed();
                    let (w, b) = (c[0].max(1), c[1].max(1));
                    (
                        format!("wtime {w} btime {b} winc {inc_ms} binc {inc_ms}"),
                        c[side].max(1) as u64,
                    )
                }
            };
            self.go(params).await?;
            self.search = Search::Play {
                started: Instant::now(),
                limit_ms,
            };
        } else if (self.analysis_on || self.hints_need_search())
            && !self.preview
            && self.review.is_none()
        {
            // Estimate hints want a score for every move; the analysis panel shows its first lines.
            let k = if self.hints_need_search() {
                self.hint_lines().max(self.multipv)
            } else {
                self.multipv
            };
            self.set_multipv(k).await?;
            self.go("infinite".into()).await?;
            self.search = Search::Analysis;
            self.ping_at = Instant::now();
        }
        Ok(())
    }

    fn send_state(&mut self) {
        let may_move = self.human_may_move();
        let legal = if may_move {
            self.pos.legal.clone()
        } else {
            Vec::new()
        };
        let end = self.end_forced.clone().or(self.end_rules.clone());
        let running = self.clock_side();
        let mut clocks = self.clocks;
        if let Some(s) = running {
            clocks[s] -= self.clock_elapsed();
        }
        let evals: Vec<Value> = self
            .evals
            .iter()
            .map(|e| match e {
                Some(s) => json!(s),
                None => Value::Null,
            })
            .collect();
        let thinking = matches!(self.search, Search::Play { .. });
        let review = self.review.as_ref().map(|r| {
            json!({"done": r.results.iter().filter(|x| x.is_some()).count(), "total": r.results.len()})
        });
        let v = json!({
            "type": "state",
            "variant": self.variant,
            "flying": self.flying,
            "start_fen": self.start_fen,
            "fen": self.pos.fen,
            "legal": legal,
            "white_to_move": self.pos.white_to_move,
            "gameover": self.pos.gameover,
            "result": self.pos.result,
            "reason": self.pos.reason,
            "mills": self.pos.mills,
            "moves": self.moves,
            "cursor": self.cursor,
            "last_move": if self.cursor > 0 { Some(self.moves[self.cursor - 1].clone()) } else { None },
            "end": end.map(|(r, why)| json!({"result": r, "reason": why})),
            "players": self.players,
            "limit": self.limit,
            "clocks": {"white": clocks[0], "black": clocks[1], "running": running.map(|s| if s == 0 { "white" } else { "black" })},
            "thinking": thinking,
            "analysis": self.analysis_on,
            "multipv": self.multipv,
            "hints": self.hints_json(),
            "evals": evals,
            "marks": self.marks,
            "review": review,
            "preview": self.preview,
            "paused": self.paused,
            "last_think_ms": self.last_think_ms,
            "puzzle": self.puzzle_json(),
        });
        self.push(v);
    }

    async fn on_engine_line(&mut self, line: Option<String>) {
        let Some(line) = line else {
            let err = match self.engine.as_mut() {
                Some(e) => e.next_line(Duration::from_millis(1)).await.err(),
                None => None,
            };
            let err = err.unwrap_or(EngineError::Crashed("it closed its output".into()));
            return self.fail(err.into()).await;
        };
        if let Some(info) = parse_info(&line) {
            return self.on_info(info);
        }
        if let Some(best) = line.strip_prefix("bestmove") {
            let best = best.split_whitespace().next().unwrap_or("").to_string();
            if let Some(e) = self.engine.as_mut() {
                e.searching = false;
            }
            let search = std::mem::replace(&mut self.search, Search::Idle);
            let r = match search {
                Search::Play { started, .. } => self.engine_move(best, started).await,
                Search::Review { index, .. } => {
                    let score = self
                        .last_info
                        .as_ref()
                        .and_then(|i| i.score)
                        .unwrap_or(Score::Cp(0));
                    if let Some(r) = self.review.as_mut() {
                        r.results[index] = Some((score, best));
                    }
                    let r = self.next_review_position().await;
                    if let Some(rv) = &self.review {
                        let done = rv.results.iter().filter(|x| x.is_some()).count();
                        let total = rv.results.len();
                        self.push(json!({"type": "review_progress", "done": done, "total": total}));
                    }
                    r
                }
                _ => Ok(()),
            };
            if let Err(f) = r {
                self.fail(f).await;
            }
            return;
        }
        if let Some(s) = line.strip_prefix("info string ") {
            let s: String = s.chars().take(300).collect();
            self.push(json!({"type": "engine_says", "text": s}));
        }
    }
}

fn strip_error(a: &str) -> String {
    a.strip_prefix("info string error: ")
        .unwrap_or(a)
        .chars()
        .take(200)
        .collect()
}

async fn recv_line(engine: &mut Option<Engine>) -> Option<String> {
    match engine {
        Some(e) => e.recv().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(t: Option<Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t.into()).await,
        None => std::future::pending().await,
    }
}
