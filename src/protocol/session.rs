//! The dispatch loop's state and what each command does to it.
//!
//! Rules that keep the engine consistent whatever arrives (protocol.md, "Commands during a
//! search"):
//!
//! - Every command is checked completely before it changes anything; a bad one gets exactly one
//!   `info string error: ...` line and changes nothing, a running search included.
//! - `position`, `setoption` and `ucinewgame` stop a running search first (its `bestmove` is
//!   written as usual), then take effect.
//! - `go`, `perft` and `bench` are refused while a search runs. `perft` and `bench` run in the
//!   background like a search (a *job*): `isready` is answered meanwhile, `stop` ends them, and
//!   `quit` does not wait for them.
//! - `stop` waits for the search's `bestmove` (or the job's last line), so the next command
//!   sees no search.
//! - "A search runs" means: `go` was accepted and its `bestmove` has not been written yet. The
//!   search thread clears the flag under the output lock as it writes `bestmove`, so a GUI that
//!   answers `bestmove` at once with `go` is never told a search still runs.

use super::command::{parse, quote, Command, CommandError, Go, MoveToken, Query, Start};
use super::format;
use super::options::{Options, PathChoice, Setting};
use super::output::Output;
use super::reader::Input;
use crate::bench;
use crate::datadir;
use crate::engine::Engine;
use crate::fallible::Judge;
use crate::game::Game;
use crate::moves::Move;
use crate::perft;
use crate::position::Position;
use crate::search::{Info, SearchResult};
use crate::skill::Skill;
use crate::types::Rules;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long `values expected` spends on the opponent model before it answers with the scores
/// it has (the moves in the tables' order, best value first, get theirs first).
const VALUES_EXPECTED_BUDGET: Duration = Duration::from_millis(200);

/// Whether the loop goes on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` or the end of the input.
    Quit,
}

/// The longest `isready` waits for the tables' files to be checked.
pub const READY_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// The engine as the protocol sees it: the search engine, the game, the options.
pub struct Session {
    engine: Engine,
    rules: Rules,
    game: Game,
    options: Options,
    out: Output,
    /// Set from an accepted `go`, `perft` or `bench` until its last line is written.
    searching: Arc<AtomicBool>,
    /// A running `perft` or `bench`.
    job: Option<Job>,
    /// The seed of a weakened engine's choices while `Skill Seed` is 0: new for each process.
    process_seed: u64,
    /// When an `isready` came while the tables were being checked: `readyok` waits for them,
    /// [`READY_WAIT`] at most.
    ready_pending: Option<std::time::Instant>,
    /// `TablePath` and `BookPath` as set (`<default>` until a `setoption` says otherwise).
    table_choice: PathChoice,
    book_choice: PathChoice,
    /// Whether the tables and the book have been opened (at the first `uci` or `ugi`, or the
    /// first `setoption` of each).
    tables_applied: bool,
    book_applied: bool,
}

/// `perft` or `bench` running in the background.
struct Job {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<()>,
}

impl Session {
    /// A session with default options at the start of `nine`.
    pub fn new(out: Output) -> Session {
        let rules = Rules::default();
        let mut engine = Engine::new();
        let ready = out.clone();
        engine.on_tables_ready(Arc::new(move |line| {
            ready.line(&format!("info string {line}"));
        }));
        Session {
            engine,
            rules,
            game: Game::from_rules(rules),
            options: Options::default(),
            out,
            searching: Arc::new(AtomicBool::new(false)),
            job: None,
            process_seed: rand::random::<u64>() | 1,
            ready_pending: None,
            table_choice: PathChoice::Default,
            book_choice: PathChoice::Default,
            tables_applied: false,
            book_applied: false,
        }
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Whether a search runs (its `bestmove` is not written yet).
    pub fn is_searching(&self) -> bool {
        self.searching.load(Ordering::SeqCst)
    }

    /// Handles one input event.
    pub fn handle(&mut self, event: Input) -> Flow {
        match event {
            Input::Line(line) => self.handle_line(&line),
            Input::Bad(e) => {
                self.out.line(&format::error(&e));
                Flow::Continue
            }
            Input::Eof => Flow::Quit,
        }
    }

    /// Handles one line of text.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        log::debug!("<< {line}");
        let result = match parse(line) {
            Ok(None) => Ok(Flow::Continue),
            Ok(Some(cmd)) => self.execute(cmd),
            // Errors inside a known command get its name in front, as the dispatch's own do.
            Err(
                e @ (CommandError::Unknown(_)
                | CommandError::Missing { .. }
                | CommandError::Unexpected { .. }),
            ) => Err(e.to_string()),
            Err(e) => {
                let cmd = line.split_whitespace().next().unwrap_or_default();
                Err(format!("{cmd}: {e}"))
            }
        };
        match result {
            Ok(flow) => flow,
            Err(msg) => {
                self.out.line(&format::error(&msg));
                Flow::Continue
            }
        }
    }

    /// Whether a `readyok` is still owed (the tables are being checked); writes it once they
    /// are, or [`READY_WAIT`] after the `isready`. While one is owed, the loop holds back every
    /// later command but `quit` (and a `stop` that nothing held back precedes).
    pub fn owes_readyok(&mut self) -> bool {
        if let Some(since) = self.ready_pending {
            if !self.engine.tables_loading() || since.elapsed() >= READY_WAIT {
                self.ready_pending = None;
                self.out.line(&format::readyok());
            }
        }
        self.ready_pending.is_some()
    }

    /// Tells a running search to stop without waiting: the process is about to end.
    pub fn shutdown(&mut self) {
        self.engine.stop();
        // Taking the lock waits for a line being written, so the process never ends mid-line.
        drop(self.out.lock());
    }

    /// Stops the running search or job, if any, and waits for its last line.
    fn stop_search(&mut self) {
        if self.is_searching() {
            self.engine.stop();
        }
        // Also reaps a search that has just ended on its own.
        self.engine.wait();
        if let Some(job) = self.job.take() {
            job.stop.store(true, Ordering::SeqCst);
            if job.handle.join().is_err() {
                log::error!("a perft or bench thread panicked");
                self.searching.store(false, Ordering::SeqCst);
            }
        }
    }

    fn refuse_while_searching(&self, what: &str) -> Result<(), String> {
        if !self.is_searching() {
            Ok(())
        } else if self.job.as_ref().is_some_and(|j| !j.handle.is_finished()) {
            Err(format!(
                "{what}: perft or bench is running; send stop (or wait for its last line) first"
            ))
        } else {
            Err(format!(
                "{what}: a search is running; send stop and wait for bestmove first"
            ))
        }
    }

    /// The strength the options ask for.
    fn skill(&self) -> Skill {
        let o = &self.options;
        let seed = if o.skill_seed == 0 {
            self.process_seed
        } else {
            o.skill_seed
        };
        if o.limit_strength {
            Skill::from_elo(o.elo, seed)
        } else {
            Skill::level(o.skill_level, seed)
        }
    }

    /// Runs `work` in the background as a job: it gets the stop flag, writes its own lines and
    /// returns its final one, which is written under the output lock together with clearing
    /// the busy flag (so a command that reads that line never finds the engine busy).
    fn start_job(&mut self, work: impl FnOnce(&AtomicBool, &Output) -> String + Send + 'static) {
        // Reap a job that finished on its own.
        self.stop_search();
        let stop = Arc::new(AtomicBool::new(false));
        let out = self.out.clone();
        let flag = self.searching.clone();
        let job_stop = stop.clone();
        self.searching.store(true, Ordering::SeqCst);
        let handle = std::thread::spawn(move || {
            let last = work(&job_stop, &out);
            let mut w = out.lock();
            flag.store(false, Ordering::SeqCst);
            w.line(&last);
        });
        self.job = Some(Job { stop, handle });
    }

    fn execute(&mut self, cmd: Command) -> Result<Flow, String> {
        match cmd {
            Command::Uci => {
                self.out.lines(&format::handshake(false));
                self.open_defaults();
            }
            Command::Ugi => {
                self.out.lines(&format::handshake(true));
                self.open_defaults();
            }
            // A GUI takes `readyok` to mean that the engine plays at full strength from the next
            // `go`, so it waits for the tables' files to be checked, but not for long: a GUI or
            // harness that times the handshake must not lose the engine to a slow disk. The
            // moves read from a file still being checked wait for it within their time.
            Command::IsReady if self.engine.tables_loading() => {
                self.ready_pending = Some(std::time::Instant::now())
            }
            Command::IsReady => {
                // The first `go` of a process must not pay for loading the network.
                self.engine.warm_up(self.rules);
                self.out.line(&format::readyok())
            }
            Command::Debug(_) => {}
            Command::SetOption { name, value } => {
                let setting = Options::parse(&name, value.as_deref()).map_err(|e| e.to_string())?;
                self.stop_search();
                self.apply(setting)?;
            }
            Command::NewGame => {
                self.stop_search();
                self.engine.clear();
                self.game = Game::from_rules(self.rules);
            }
            Command::Position { start, moves } => {
                let game = self.build_game(&start, &moves)?;
                self.stop_search();
                self.game = game;
            }
            Command::Go(go) => self.go(&go)?,
            Command::Stop => self.stop_search(),
            Command::PonderHit => {
                if self.engine.is_pondering() {
                    self.engine.ponderhit();
                }
            }
            Command::Quit => return Ok(Flow::Quit),
            Command::Query(q) => self.query(q),
            Command::Display => self.out.lines(&format::display(&self.game)),
            Command::Eval => {
                let pos = self.game.position();
                let net = self.engine.network(pos.rules());
                self.out.lines(&format::eval(pos, net.as_deref()))
            }
            Command::Values { expected } => self.values(expected),
            Command::Perft(depth) => {
                self.refuse_while_searching("perft")?;
                let mut pos = *self.game.position();
                self.start_job(move |stop, out| {
                    let mut total = 0;
                    let done = perft::divide_until(&mut pos, depth, stop, |m, n| {
                        total += n;
                        out.line(&format::perft_move(m, n));
                    });
                    match (done, depth) {
                        (true, 0) => format::perft_total(1),
                        (true, _) => format::perft_total(total),
                        (false, _) => format::info_string("perft stopped"),
                    }
                });
            }
            Command::Bench(depth) => {
                self.refuse_while_searching("bench")?;
                let depth = depth.unwrap_or(bench::DEFAULT_DEPTH);
                let nnue = self.engine.uses_nnue();
                self.start_job(move |stop, out| {
                    let r = bench::run_until(depth, 16, None, nnue, stop, |l| {
                        out.line(&format::bench_line(l));
                    });
                    match r {
                        Ok(Some(r)) => format::bench_total(&r),
                        Ok(None) => format::info_string("bench stopped"),
                        Err(e) => format::error(&e),
                    }
                });
            }
        }
        Ok(Flow::Continue)
    }

    fn apply(&mut self, setting: Setting) -> Result<(), String> {
        let mut rules = self.rules;
        match setting {
            Setting::Hash(mb) => self
                .engine
                .try_set_hash_mb(mb)
                .map_err(|e| format!("setoption: Hash {mb}: {e}; the table keeps its size"))?,
            Setting::Threads(n) => self.engine.set_threads(n),
            Setting::MultiPv(n) => self.options.multipv = n,
            Setting::Variant(v) => rules.variant = v,
            Setting::Flying(f) => rules.flying = f,
            Setting::MoveOverhead(ms) => self.options.move_overhead = ms,
            Setting::ShowWdl(b) => self.options.show_wdl = b,
            Setting::ClearHash => self.engine.clear(),
            // UCI's way for a GUI to say it may send `go ponder`; pondering needs no setup.
            Setting::Ponder(_) => {}
            Setting::SkillLevel(l) => self.options.skill_level = l,
            Setting::LimitStrength(b) => self.options.limit_strength = b,
            Setting::Elo(e) => self.options.elo = e,
            Setting::SkillSeed(s) => self.options.skill_seed = s,
            Setting::SolveHash(mb) => self.engine.set_solve_hash_mb(mb),
            Setting::UltraStrong(on) => self.engine.set_ultra_strong(on),
            Setting::TableChoice(c) => self.engine.set_table_choice(c),
            Setting::UltraStrongOpponent(d) => self.engine.set_opponent_depth(d),
            Setting::Contempt(cp) => {
                // The table's scores of drawn lines carry the old contempt.
                if cp != self.engine.contempt() {
                    self.engine.clear();
                }
                self.engine.set_contempt(cp);
            }
            Setting::TableContempt(cp) => {
                if cp != self.engine.table_contempt() {
                    self.engine.clear();
                }
                self.engine.set_table_contempt(cp);
            }
            Setting::UseNnue(on) => {
                // The table keeps each node's static evaluation: another evaluator's would
                // mislead the pruning.
                if on != self.engine.uses_nnue() {
                    self.engine.clear();
                }
                self.engine.set_use_nnue(on);
            }
            Setting::EvalFile(choice) => match choice {
                PathChoice::Default | PathChoice::Off => {
                    self.engine.set_eval_file(None);
                    self.engine.clear();
                    self.out.line("info string EvalFile: the built-in networks");
                }
                PathChoice::Path(p) => {
                    let net = crate::nnue::file::load(std::path::Path::new(&p)).map_err(|e| {
                        format!("setoption: EvalFile {p}: {e}; the network in use is kept")
                    })?;
                    self.out.line(&format!(
                        "info string EvalFile: {p}, a network of {} (checksum {:016x})",
                        net.variant.name(),
                        net.checksum
                    ));
                    self.engine.set_eval_file(Some(net));
                    self.engine.clear();
                }
            },
            Setting::BookPath(choice) => {
                self.set_book(&choice)?;
                self.book_choice = choice;
                self.book_applied = true;
            }
            Setting::TablePath(choice) => {
                self.set_tables(&choice)?;
                self.table_choice = choice;
                self.tables_applied = true;
            }
        }
        if rules != self.rules {
            // A position of one rule set means nothing under another.
            self.rules = rules;
            self.game = Game::from_rules(rules);
            self.engine.set_rules(rules);
            // The data directory holds one book per rule set.
            if self.book_applied && self.book_choice == PathChoice::Default {
                if let Err(e) = self.set_book(&PathChoice::Default) {
                    self.out.line(&format!("info string book: none ({e})"));
                }
            }
        }
        Ok(())
    }

    /// Opens the data directory's tables and book where no `setoption` chose others, once,
    /// and says what it found (protocol.md, "The data directory").
    fn open_defaults(&mut self) {
        if self.tables_applied && self.book_applied {
            return;
        }
        if !self.tables_applied {
            self.tables_applied = true;
            let choice = self.table_choice.clone();
            if let Err(e) = self.set_tables(&choice) {
                self.out
                    .line(&format!("info string endgame tables: none ({e})"));
            }
        }
        if !self.book_applied {
            self.book_applied = true;
            let choice = self.book_choice.clone();
            if let Err(e) = self.set_book(&choice) {
                self.out.line(&format!("info string book: none ({e})"));
            }
        }
    }

    /// Uses the tables `choice` names and says what they hold; on error the previous ones stay.
    fn set_tables(&mut self, choice: &PathChoice) -> Result<(), String> {
        // For the data directory's: where it is and why, after the usual line.
        let mut note = String::new();
        let dir = match choice {
            PathChoice::Off => None,
            PathChoice::Path(d) => Some(d.clone()),
            PathChoice::Default => {
                let Some((root, source)) = datadir::root() else {
                    self.engine
                        .set_table_path(None, self.rules)
                        .map_err(|e| format!("setoption: TablePath: {e}"))?;
                    self.out.line(&format!(
                        "info string endgame tables: none (no data directory: set {})",
                        datadir::ENV
                    ));
                    return Ok(());
                };
                note = format!(
                    " (data directory {}, {})",
                    root.display(),
                    source.describe()
                );
                let d = datadir::tables_in(&root);
                if !d.is_dir() {
                    self.engine
                        .set_table_path(None, self.rules)
                        .map_err(|e| format!("setoption: TablePath: {e}"))?;
                    let what = if d.exists() {
                        "is not a directory"
                    } else {
                        "does not exist"
                    };
                    self.out.line(&format!(
                        "info string endgame tables: none ({} {what}; `mill-tb setup` makes them){note}",
                        d.display()
                    ));
                    return Ok(());
                }
                Some(d.display().to_string())
            }
        };
        let n = self
            .engine
            .set_table_path(dir.as_deref(), self.rules)
            .map_err(|e| format!("setoption: TablePath: {e}"))?;
        if let Some(d) = dir {
            self.out.line(&format!(
                "info string endgame tables: {n} sub-spaces of {} in {d}{note}",
                self.rules
            ));
            let (sectors, complete) = self.engine.placing_sectors(self.rules);
            if sectors > 0 {
                self.out.line(&format!(
                    "info string placing tables: {sectors} sectors of {} in {d}{}",
                    self.rules,
                    if complete {
                        " (complete: every placing position)"
                    } else {
                        ""
                    }
                ));
            }
        }
        Ok(())
    }

    /// Uses the book `choice` names and says what it holds; on error the previous one stays.
    fn set_book(&mut self, choice: &PathChoice) -> Result<(), String> {
        let path = match choice {
            PathChoice::Off => None,
            PathChoice::Path(p) => Some(p.clone()),
            PathChoice::Default => match datadir::default_book(self.rules) {
                Some(p) if p.is_file() => Some(p.display().to_string()),
                found => {
                    self.engine
                        .set_book_path(None)
                        .map_err(|e| format!("setoption: BookPath: {e}"))?;
                    let why = if self.engine.placing_sectors(self.rules).1 {
                        "not needed: the placing tables cover the placing phase"
                    } else {
                        "the placing phase is searched, or solved over the tables"
                    };
                    let place = found.map_or("no data directory".to_string(), |p| {
                        format!("no {}", p.display())
                    });
                    self.out
                        .line(&format!("info string book: none ({place}; {why})"));
                    return Ok(());
                }
            },
        };
        let (n, book_rules) = self
            .engine
            .set_book_path(path.as_deref())
            .map_err(|e| format!("setoption: BookPath: {e}; the previous book stays"))?;
        if let Some(p) = path {
            let note = if book_rules == self.rules {
                String::new()
            } else {
                format!(" (not the current rules, {})", self.rules)
            };
            self.out.line(&format!(
                "info string book: {n} proven positions of {book_rules} in {p}{note}"
            ));
        }
        Ok(())
    }

    /// The game `position` describes, or why there is none. Touches nothing.
    fn build_game(&self, start: &Start, moves: &[MoveToken]) -> Result<Game, String> {
        let pos = match start {
            Start::StartPos => Position::new(self.rules),
            Start::Fen(s) => Position::from_fen(s, self.rules)
                .map_err(|e| format!("position: bad position string: {e}"))?,
        };
        let mut game = Game::new(pos);
        for (i, t) in moves.iter().enumerate() {
            game.play(t.mv)
                .map_err(|e| format!("position: move {} {}: {e}", i + 1, quote(&t.text)))?;
        }
        Ok(game)
    }

    fn go(&mut self, go: &Go) -> Result<(), String> {
        self.refuse_while_searching("go")?;
        let show_wdl = self.options.show_wdl;
        if let Some(o) = self.game.outcome() {
            let mut w = self.out.lock();
            w.line(&format::game_over_info(o, show_wdl));
            w.line(&format::bestmove(None, None));
            return Ok(());
        }
        let legal = self.game.legal_moves();
        for (i, t) in go.searchmoves.iter().enumerate() {
            if !legal.contains(t.mv) {
                return Err(format!(
                    "go: searchmoves: move {} {} is not legal here",
                    i + 1,
                    quote(&t.text)
                ));
            }
        }
        let limits = go.limits(
            self.options.multipv,
            Duration::from_millis(self.options.move_overhead),
        );
        let out = self.out.clone();
        let report = Box::new(move |i: &Info| out.line(&format::info(i, show_wdl)));
        let out = self.out.clone();
        let currmove =
            Box::new(move |depth: i32, m: Move, n: usize| out.line(&format::currmove(depth, m, n)));
        let out = self.out.clone();
        let flag = self.searching.clone();
        let done = Box::new(move |r: SearchResult| {
            let mut w = out.lock();
            flag.store(false, Ordering::SeqCst);
            w.line(&format::bestmove(r.best, r.ponder));
        });
        self.engine.set_skill(self.skill());
        self.searching.store(true, Ordering::SeqCst);
        self.engine
            .start(&self.game, limits, report, Some(currmove), done);
        Ok(())
    }

    /// `values`: every legal move's result from the tables, or why there is none. Reads the
    /// tables only, so it is answered at once, also while a search runs; `expected` adds the
    /// opponent model's shallow searches (milliseconds at its default depth).
    fn values(&self, expected: bool) {
        let pos = self.game.position();
        let line = if self.game.outcome().is_some() {
            format::values_none("gameover")
        } else if let Some(tb) = self.engine.tablebase() {
            match tb.probe_root(pos) {
                Some(root) if expected => {
                    let net = self.engine.network(pos.rules());
                    let judge = Judge::new(tb, net.as_deref(), self.engine.opponent_model());
                    let depth = self.engine.opponent_model().depth;
                    let never = AtomicBool::new(false);
                    // A move whose replies leave the tables has no expected score, nor one
                    // left when the budget is spent: the session answers nothing else
                    // meanwhile, `stop` and `quit` included, and a flying endgame's 50 moves
                    // of 50 replies each take half a second at depth 2.
                    let start = std::time::Instant::now();
                    let scores: Vec<Option<f64>> = root
                        .moves
                        .iter()
                        .map(|&(m, _)| {
                            (start.elapsed() < VALUES_EXPECTED_BUDGET)
                                .then(|| judge.expected_after(pos, m, depth, &never))
                                .flatten()
                        })
                        .collect();
                    return self
                        .out
                        .lines(&format::values_expected(&root.moves, &scores));
                }
                Some(root) => return self.out.lines(&format::values(&root.moves)),
                None if self.engine.tables_loading() => format::values_none("loading"),
                None => format::values_none("uncovered"),
            }
        } else {
            format::values_none("notables")
        };
        self.out.line(&line);
    }

    fn query(&self, q: Query) {
        let outcome = self.game.outcome();
        let line = match q {
            Query::GameOver => format::response(&outcome.is_some().to_string()),
            Query::P1Turn => format::response(
                &(self.game.position().side_to_move() == crate::types::Color::White).to_string(),
            ),
            Query::Result => format::response(outcome.map_or("none", |o| o.result_str())),
            Query::Reason => format::response(outcome.map_or("none", |o| o.reason().name())),
            Query::Fen => format::response(&self.game.position().to_fen()),
            Query::LegalMoves => format::legal_moves(&self.game),
            Query::Mills => format::mills(self.game.position()),
        };
        self.out.line(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::Mutex;

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Buf {
        fn take(&self) -> Vec<String> {
            let v = std::mem::take(&mut *self.0.lock().unwrap());
            String::from_utf8(v)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect()
        }
    }

    fn session() -> (Session, Buf) {
        let buf = Buf::default();
        (Session::new(Output::new(buf.clone())), buf)
    }

    /// Runs the loop of `session` on a pipe in the background: the writer and the loop.
    fn serve_on_pipe(session: Session) -> (std::io::PipeWriter, std::thread::JoinHandle<()>) {
        let (r, w) = std::io::pipe().unwrap();
        let h =
            std::thread::spawn(move || super::super::serve(session, std::io::BufReader::new(r)));
        (w, h)
    }

    #[test]
    fn readyok_waits_for_the_tables_and_quit_does_not() {
        let (mut s, buf) = session();
        s.engine.pretend_tables_load_for(Duration::from_millis(600));
        let (mut w, h) = serve_on_pipe(s);
        writeln!(w, "isready\nbogus\nisready").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            buf.take().is_empty(),
            "nothing before the tables are checked"
        );
        // The held commands come after the owed readyok, in order.
        let mut lines = Vec::new();
        let t = std::time::Instant::now();
        while lines.len() < 3 && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
            lines.extend(buf.take());
        }
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(lines[0], "readyok");
        assert!(lines[1].starts_with("info string error"), "{lines:?}");
        assert_eq!(lines[2], "readyok");
        writeln!(w, "quit").unwrap();
        h.join().unwrap();

        let (mut s, buf) = session();
        s.engine.pretend_tables_load_for(Duration::from_secs(30));
        let (mut w, h) = serve_on_pipe(s);
        let t = std::time::Instant::now();
        writeln!(w, "isready\nuci\nquit").unwrap();
        h.join().unwrap();
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "quit is obeyed at once"
        );
        assert!(buf.take().is_empty());

        // A check that takes long holds `readyok` back for a second, no more.
        let (mut s, buf) = session();
        s.engine.pretend_tables_load_for(Duration::from_secs(30));
        let (mut w, h) = serve_on_pipe(s);
        let t = std::time::Instant::now();
        writeln!(w, "isready").unwrap();
        let mut lines = Vec::new();
        while lines.is_empty() && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
            lines.extend(buf.take());
        }
        assert_eq!(lines, ["readyok"]);
        let waited = t.elapsed();
        assert!(
            waited >= READY_WAIT && waited < READY_WAIT * 3,
            "{waited:?}"
        );
        writeln!(w, "quit").unwrap();
        h.join().unwrap();
    }

    #[test]
    fn position_is_all_or_nothing() {
        let (mut s, buf) = session();
        s.handle_line("position startpos moves d6 a1");
        let fen = s.game().position().to_fen();
        s.handle_line("position startpos moves d7 d6 d7");
        let out = buf.take();
        assert_eq!(out.len(), 1);
        assert!(
            out[0].starts_with("info string error: position: move 3 'd7'"),
            "{out:?}"
        );
        assert_eq!(s.game().position().to_fen(), fen);
    }

    #[test]
    fn variant_change_resets_the_position() {
        let (mut s, buf) = session();
        s.handle_line("position startpos moves d6");
        s.handle_line("setoption name UCI_Variant value twelve");
        s.handle_line("query fen");
        assert_eq!(
            buf.take(),
            ["response .../.../.../....../.../.../... w 12 12 0 1"]
        );
    }

    #[test]
    fn go_and_stop() {
        let (mut s, buf) = session();
        s.handle_line("go depth 2");
        s.handle_line("stop");
        assert!(!s.is_searching());
        let out = buf.take();
        assert_eq!(out.iter().filter(|l| l.starts_with("bestmove")).count(), 1);
    }
}
