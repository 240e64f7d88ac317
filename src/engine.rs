//! The façade the protocol and the tools drive: options, the shared table, the thread pool,
//! and searches that run in the background and can be stopped at any moment.

use crate::game::Game;
use crate::moves::Move;
use crate::nnue::{self, Network};
use crate::search::{self, Info, Limits, SearchResult, Searcher, Shared};
use crate::skill::Skill;
use crate::solve::{Checkpoint, Solver};
use crate::tablebase::Tablebase;
use crate::tt::TranspositionTable;
use crate::types::Rules;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::fallible::OpponentModel;
use crate::table_root::{self, solved_score, Waiter};
use crate::tablebase::PRELOAD_SYNC_BYTES;

/// How the moves that keep a table's value are narrowed (the `TableChoice` option).
pub use crate::table_root::TableChoice;

/// Receives each finished iteration's lines while a search runs (called from the search thread).
pub type Reporter = Box<dyn FnMut(&Info) + Send>;

/// Receives `(depth, move, 1-based move number)` as the root starts a move, about once a second
/// in long searches (called from the search thread).
pub type CurrMoveReporter = Box<dyn FnMut(i32, Move, usize) + Send>;

/// Default table size in MiB.
pub const DEFAULT_HASH_MB: usize = 16;
/// Largest table size in MiB.
pub const MAX_HASH_MB: usize = 65536;
/// Most search threads.
pub const MAX_THREADS: usize = 256;
/// Default size of the placing-phase solver's table in MiB.
pub const DEFAULT_SOLVE_HASH_MB: usize = 64;

/// The engine: owns the table and the threads, runs one search at a time.
pub struct Engine {
    tt: Arc<TranspositionTable>,
    hash_mb: usize,
    threads: usize,
    pool: Arc<rayon::ThreadPool>,
    stop: Arc<AtomicBool>,
    worker: Option<JoinHandle<SearchResult>>,
    tablebase: Option<Arc<Tablebase>>,
    /// The thread checking the big table files (see [`Engine::wait_for_tables`]).
    preload: Option<std::thread::JoinHandle<()>>,
    /// The placing-phase solver, kept from move to move (what it proved stays true), made on
    /// the first search that needs it; with the book's entries in its table.
    solver: Arc<Mutex<Option<Solver<'static>>>>,
    book: Option<Arc<Checkpoint>>,
    solve_hash_mb: usize,
    /// The rules the solver is made for (those of the last [`Engine::set_table_path`] or
    /// [`Engine::set_rules`]).
    rules: Rules,
    ultra_strong: bool,
    table_choice: TableChoice,
    /// The opponent `TableChoice::Expected` plays against.
    opponent: OpponentModel,
    skill: Skill,
    /// Set while the running search ponders.
    pondering: Arc<AtomicBool>,
    /// When the running search began, and when its clock did (see [`Shared::clock_origin_us`]).
    search_start: Instant,
    clock_origin_us: Arc<AtomicU64>,
    /// Whether the search evaluates with a network (where one exists for the variant).
    use_nnue: bool,
    /// A network loaded by `EvalFile`, used for its variant instead of the built-in one.
    eval_file: Option<Arc<Network>>,
    /// What a draw by the game's rules found in the search costs the side to move at the root,
    /// in centipieces (the `Contempt` option).
    contempt: i32,
    /// What such a draw costs the side to move in a drawn root the tables cover, where the
    /// search chooses among drawing moves only (the `TableContempt` option).
    table_contempt: i32,
    /// Told when a background check of the tables' files ends (see [`Engine::on_tables_ready`]).
    tables_ready: Option<Arc<dyn Fn(String) + Send + Sync>>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

fn build_pool(threads: usize) -> Arc<rayon::ThreadPool> {
    Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("millstone-search-{i}"))
            .build()
            .expect("a thread pool of this size can be built"),
    )
}

impl Engine {
    /// An engine with the default table and one thread.
    pub fn new() -> Engine {
        Engine::with_hash_mb(DEFAULT_HASH_MB)
    }

    /// An engine with a table of `mb` MiB and one thread.
    pub fn with_hash_mb(mb: usize) -> Engine {
        Engine {
            tt: Arc::new(TranspositionTable::new(mb.clamp(1, MAX_HASH_MB))),
            hash_mb: mb.clamp(1, MAX_HASH_MB),
            threads: 1,
            pool: build_pool(1),
            stop: Arc::new(AtomicBool::new(false)),
            worker: None,
            tablebase: None,
            preload: None,
            solver: Arc::new(Mutex::new(None)),
            book: None,
            solve_hash_mb: DEFAULT_SOLVE_HASH_MB,
            rules: Rules::default(),
            ultra_strong: true,
            table_choice: TableChoice::default(),
            opponent: OpponentModel::default(),
            skill: Skill::full(),
            pondering: Arc::new(AtomicBool::new(false)),
            search_start: Instant::now(),
            clock_origin_us: Arc::new(AtomicU64::new(0)),
            use_nnue: true,
            eval_file: None,
            contempt: search::DEFAULT_CONTEMPT,
            table_contempt: table_root::DEFAULT_TABLE_CONTEMPT,
            tables_ready: None,
        }
    }

    /// Evaluates with the network (`true`, the default) or with the hand-tuned terms.
    pub fn set_use_nnue(&mut self, on: bool) {
        self.use_nnue = on;
    }

    /// Whether the search evaluates with a network where one exists (the `UseNNUE` option).
    pub fn uses_nnue(&self) -> bool {
        self.use_nnue
    }

    /// Sets what a draw by the game's rules (a repetition, the 100-ply rule, twelve's full board)
    /// that the search finds costs the side to move at the root (centipieces; negative: a draw
    /// is sought). Proven draws of the tables and the book keep their value.
    pub fn set_contempt(&mut self, cp: i32) {
        self.contempt = cp;
    }

    /// The contempt in use (the `Contempt` option).
    pub fn contempt(&self) -> i32 {
        self.contempt
    }

    /// Sets what a draw by the game's rules that the search finds costs the side to move at a
    /// drawn root the tables cover (centipieces). There the search chooses among the drawing
    /// moves only, so the contempt cannot give the draw away: it prefers the lines where the
    /// game goes on, and the opponent must keep finding drawing moves. It takes the place of
    /// [`Engine::set_contempt`]'s value in those roots alone.
    pub fn set_table_contempt(&mut self, cp: i32) {
        self.table_contempt = cp;
    }

    /// The contempt in drawn roots the tables cover (the `TableContempt` option).
    pub fn table_contempt(&self) -> i32 {
        self.table_contempt
    }

    /// Uses this network for its variant instead of the built-in one; `None` goes back to the
    /// built-in networks.
    pub fn set_eval_file(&mut self, net: Option<Network>) {
        self.eval_file = net.map(Arc::new);
    }

    /// The network a search under `rules` evaluates with: `None` when the hand-tuned
    /// evaluation is chosen or no network exists for the rules.
    pub fn network(&self, rules: Rules) -> Option<Arc<Network>> {
        network_for(self.use_nnue, self.eval_file.as_ref(), rules)
    }

    /// Plays at this strength from the next search on.
    pub fn set_skill(&mut self, skill: Skill) {
        self.skill = skill;
    }

    /// The strength setting.
    pub fn skill(&self) -> Skill {
        self.skill
    }

    /// Whether the running search ponders (waits for `ponderhit` or `stop`).
    pub fn is_pondering(&self) -> bool {
        self.is_searching() && self.pondering.load(Ordering::SeqCst)
    }

    /// The predicted move was played: the ponder search becomes a normal one, its clock
    /// starting now. Does nothing when no search ponders.
    pub fn ponderhit(&self) {
        let us = self.search_start.elapsed().as_micros() as u64;
        self.clock_origin_us.store(us, Ordering::SeqCst);
        self.pondering.store(false, Ordering::SeqCst);
    }

    /// Resizes the table (clearing it). Waits for a running search to end first.
    pub fn set_hash_mb(&mut self, mb: usize) {
        self.try_set_hash_mb(mb).expect("memory for the table");
    }

    /// Resizes the table (clearing it), or keeps the old one and says why when the memory
    /// cannot be had. Waits for a running search to end first.
    pub fn try_set_hash_mb(&mut self, mb: usize) -> Result<(), String> {
        self.stop_and_wait();
        let mb = mb.clamp(1, MAX_HASH_MB);
        // Free the old table first so that old and new never need to fit together.
        self.tt = Arc::new(TranspositionTable::new(1));
        match TranspositionTable::try_new(mb) {
            Ok(tt) => {
                self.tt = Arc::new(tt);
                Ok(())
            }
            Err(e) => {
                self.tt = Arc::new(TranspositionTable::new(self.hash_mb));
                Err(e)
            }
        }
        .map(|()| self.hash_mb = mb)
    }

    /// Sets the number of search threads. Waits for a running search to end first.
    pub fn set_threads(&mut self, n: usize) {
        self.stop_and_wait();
        let n = n.clamp(1, MAX_THREADS);
        if n != self.threads {
            self.threads = n;
            self.pool = build_pool(n);
        }
    }

    /// Uses the endgame tables in `dir` (none when `None`) and opens those of `rules` (see
    /// [`Tablebase::preload`]). Returns how many sub-spaces of `rules` are present. On error
    /// the previous tables stay.
    pub fn set_table_path(&mut self, dir: Option<&str>, rules: Rules) -> Result<usize, String> {
        self.stop_and_wait();
        let Some(dir) = dir else {
            self.tablebase = None;
            self.make_solver();
            return Ok(0);
        };
        let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
        let n = tb.snapshot(rules).len();
        // Small files (all of them up to 10 pieces) are checked now; the big ones of a full set
        // in the background, so that neither this call nor the first search waits for them.
        let ready = self.tables_ready.clone();
        self.preload = tb.preload_then(rules, PRELOAD_SYNC_BYTES, move |line| {
            if let Some(f) = ready {
                f(line)
            }
        });
        self.tablebase = Some(Arc::new(tb));
        self.rules = rules;
        self.make_solver();
        Ok(n)
    }

    /// Loads now what the first search under `rules` would otherwise load on its clock (the
    /// built-in network, read from the binary: a disk read when the page cache is cold).
    pub fn warm_up(&self, rules: Rules) {
        let _ = network_for(self.use_nnue, self.eval_file.as_ref(), rules);
    }

    /// Calls `f` with a line saying what was done when a check of big table files, which
    /// [`Engine::set_table_path`] leaves to a thread of its own, ends (from that thread).
    pub fn on_tables_ready(&mut self, f: Arc<dyn Fn(String) + Send + Sync>) {
        self.tables_ready = Some(f);
    }

    /// How many placing-phase sectors of `rules` the tables hold, and whether that is all of
    /// them (then every placing root is answered from the tables).
    pub fn placing_sectors(&self, rules: Rules) -> (usize, bool) {
        self.tablebase.as_ref().map_or((0, false), |tb| {
            (tb.placing_count(rules), tb.covers_placing_phase(rules))
        })
    }

    /// Uses the proven values in `path` (a file of `mill-tb book` or a checkpoint of `mill-tb
    /// solve`) from the next search on, or none. Returns the book's entries and rules; on
    /// error the previous book stays.
    pub fn set_book_path(&mut self, path: Option<&str>) -> Result<(usize, Rules), String> {
        self.stop_and_wait();
        let book = match path {
            None => None,
            Some(p) => Some(Arc::new(
                Checkpoint::read(std::path::Path::new(p)).map_err(|e| e.to_string())?,
            )),
        };
        let summary = book
            .as_ref()
            .map_or((0, Rules::default()), |b| (b.len(), b.rules()));
        self.book = book;
        self.make_solver();
        Ok(summary)
    }

    /// Sets the size of the placing-phase solver's table in MiB (cleared; made on the next
    /// search that needs it).
    pub fn set_solve_hash_mb(&mut self, mb: usize) {
        self.stop_and_wait();
        self.solve_hash_mb = mb.clamp(1, MAX_HASH_MB);
        self.make_solver();
    }

    /// The rules of the coming games: the placing-phase solver is made for them now.
    pub fn set_rules(&mut self, rules: Rules) {
        if rules != self.rules {
            self.stop_and_wait();
            self.rules = rules;
            self.make_solver();
        }
    }

    /// Among the moves that keep a proven value (the tables' or the solver's), lets the search
    /// choose by its evaluation (`true`, the default: what sets a fallible opponent the most
    /// problems) or plays the first one found (`false`: perfect, but no more than that).
    pub fn set_ultra_strong(&mut self, on: bool) {
        self.ultra_strong = on;
    }

    /// How the moves that keep a table's draw or placing value are narrowed before the search
    /// chooses among them (see [`TableChoice`]).
    pub fn set_table_choice(&mut self, choice: TableChoice) {
        self.table_choice = choice;
    }

    /// The fallible opponent [`TableChoice::Expected`] plays against.
    pub fn opponent_model(&self) -> OpponentModel {
        self.opponent
    }

    /// The depth of the fallible opponent's search that [`TableChoice::Expected`] takes the
    /// expected score against (clamped to 1..=[`OpponentModel::MAX_DEPTH`]).
    pub fn set_opponent_depth(&mut self, depth: u8) {
        self.opponent = OpponentModel::with_depth(depth);
    }

    /// (Re)makes the placing-phase solver for the tables, book and rules set: here, when
    /// options change, because a big table and book take a while to set up, which no search
    /// under a clock can afford.
    fn make_solver(&mut self) {
        let mut guard = self.solver.lock().unwrap_or_else(|e| e.into_inner());
        *guard = None;
        if let Some(tb) = &self.tablebase {
            *guard = new_solver(tb, self.rules, self.solve_hash_mb, self.book.as_deref());
        }
    }

    /// Waits until every table file of the last [`Engine::set_table_path`] is checked, so
    /// that the search sees all of them (for tests and tools; a game need not wait).
    pub fn wait_for_tables(&mut self) {
        if let Some(h) = self.preload.take() {
            let _ = h.join();
        }
    }

    /// Whether the table files of the last [`Engine::set_table_path`] are still being checked
    /// (until then placing-phase roots are not solved: `isready` waits for this).
    pub fn tables_loading(&self) -> bool {
        self.preload.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// A stand-in for a long check of big table files, for the protocol's tests.
    #[cfg(test)]
    pub(crate) fn pretend_tables_load_for(&mut self, d: std::time::Duration) {
        self.preload = Some(std::thread::spawn(move || std::thread::sleep(d)));
    }

    /// The endgame tables of the last [`Engine::set_table_path`], if any.
    pub fn tablebase(&self) -> Option<&Arc<Tablebase>> {
        self.tablebase.as_ref()
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Forgets all search results (a new game).
    pub fn clear(&mut self) {
        self.stop_and_wait();
        self.tt.clear();
    }

    /// Whether a search is running.
    pub fn is_searching(&self) -> bool {
        self.worker.as_ref().is_some_and(|w| !w.is_finished())
    }

    /// Asks the running search to stop; it reports its best move promptly.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Waits for the running search, if any, and returns its result.
    pub fn wait(&mut self) -> Option<SearchResult> {
        self.worker.take().map(|w| w.join().expect("search thread"))
    }

    fn stop_and_wait(&mut self) {
        self.stop();
        self.wait();
    }

    /// Starts a search of the game's current position in the background. `report` gets each
    /// iteration's lines, `done` the final result; both are called on the search thread.
    pub fn start(
        &mut self,
        game: &Game,
        limits: Limits,
        report: Reporter,
        currmove: Option<CurrMoveReporter>,
        done: Box<dyn FnOnce(SearchResult) + Send>,
    ) {
        let ctx = self.prepare(&limits);
        let game = game.clone();
        self.worker = Some(std::thread::spawn(move || {
            let result = run(&ctx, &game, &limits, report, currmove);
            done(result.clone());
            result
        }));
    }

    /// Searches to the limits and returns the result (blocking). Used by tools and tests.
    pub fn search(&mut self, game: &Game, limits: &Limits, report: Reporter) -> SearchResult {
        let ctx = self.prepare(limits);
        run(&ctx, game, limits, report, None)
    }

    /// Ends the previous search and gathers what the next one shares with the engine.
    fn prepare(&mut self, limits: &Limits) -> RunContext {
        self.stop_and_wait();
        self.stop = Arc::new(AtomicBool::new(false));
        self.pondering = Arc::new(AtomicBool::new(limits.ponder));
        self.clock_origin_us = Arc::new(AtomicU64::new(0));
        self.search_start = Instant::now();
        RunContext {
            tt: self.tt.clone(),
            pool: self.pool.clone(),
            threads: self.threads,
            stop: self.stop.clone(),
            pondering: self.pondering.clone(),
            clock_origin_us: self.clock_origin_us.clone(),
            start: self.search_start,
            tablebase: self.tablebase.clone(),
            solver: self.solver.clone(),
            book: self.book.clone(),
            solve_hash_mb: self.solve_hash_mb,
            ultra_strong: self.ultra_strong,
            table_choice: self.table_choice,
            opponent: self.opponent,
            skill: self.skill,
            use_nnue: self.use_nnue,
            eval_file: self.eval_file.clone(),
            contempt: self.contempt,
            table_contempt: self.table_contempt,
        }
    }
}

/// An `EvalFile` network serves both rule sets of its variant (a file does not say which it
/// was trained on); the built-in ones follow the rules.
fn network_for(use_nnue: bool, file: Option<&Arc<Network>>, rules: Rules) -> Option<Arc<Network>> {
    if !use_nnue {
        return None;
    }
    file.filter(|n| n.variant == rules.variant)
        .cloned()
        .or_else(|| nnue::builtin(rules))
}

/// What one search shares with the engine that started it.
struct RunContext {
    tt: Arc<TranspositionTable>,
    pool: Arc<rayon::ThreadPool>,
    threads: usize,
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
    clock_origin_us: Arc<AtomicU64>,
    start: Instant,
    tablebase: Option<Arc<Tablebase>>,
    solver: Arc<Mutex<Option<Solver<'static>>>>,
    book: Option<Arc<Checkpoint>>,
    solve_hash_mb: usize,
    ultra_strong: bool,
    table_choice: TableChoice,
    opponent: OpponentModel,
    skill: Skill,
    use_nnue: bool,
    eval_file: Option<Arc<Network>>,
    contempt: i32,
    table_contempt: i32,
}

/// Pieces in hand (both sides together) up to which a placing-phase root is solved without a
/// clock (`go depth`, `go nodes`): that many plies to the moving phase, a few thousand nodes.
const SOLVE_IN_HAND: u8 = 4;

/// How long a solve may take when the search has no clock and the root has more in hand.
const SOLVE_UNTIMED: std::time::Duration = std::time::Duration::from_secs(1);

/// A placing-phase solver with room for twice the book's entries (so that loading it evicts
/// next to nothing) and the book in its table; `None`, with a warning, without the memory.
fn new_solver(
    tb: &Tablebase,
    rules: Rules,
    hash_mb: usize,
    book: Option<&Checkpoint>,
) -> Option<Solver<'static>> {
    let book_mb = book.map_or(0, |b| (b.len() * 32).div_ceil(1 << 20));
    let mut s = Solver::new(tb, rules, hash_mb.max(book_mb.next_power_of_two()))
        .map_err(|e| log::warn!("no placing-phase solver: {e}"))
        .ok()?;
    if let Some(book) = book {
        if let Err(e) = s.absorb(book) {
            log::warn!("book not used: {e}");
        }
    }
    Some(s)
}

/// Nodes a placing-phase root with this many pieces in hand (both sides) takes to solve with
/// the value of every move, from a cold solver table: about three times the solve alone, as
/// measured along a game of nine with the complete tables (docs/solving.md, "What a solve costs along
/// one game"); twelve's are larger, where its tables exist at all.
const SOLVE_NODES: [u64; 19] = [
    10,
    30,
    150,
    450,
    1_200,
    4_500,
    9_000,
    30_000,
    180_000,
    450_000,
    1_200_000,
    3_600_000,
    10_000_000,
    15_000_000,
    30_000_000,
    75_000_000,
    150_000_000,
    300_000_000,
    540_000_000,
];

/// Nodes per second the solver reaches at least (half the table probes miss the cache).
const SOLVE_NPS: u64 = 1_000_000;

/// Whether a solve of a root with `in_hand` pieces in hand is likely to end within `time`.
fn solve_fits(in_hand: u8, time: std::time::Duration) -> bool {
    let need = SOLVE_NODES
        .get(in_hand as usize)
        .copied()
        .unwrap_or(u64::MAX);
    time.as_secs_f64() * SOLVE_NPS as f64 >= need as f64
}

/// Whether the tables hold every sub-space of the moving phase of `rules` (3 to n pieces a
/// side), so that no moving-phase move needs a search.
fn covers_moving_phase(tb: &Tablebase, rules: Rules) -> bool {
    let n = rules.variant.pieces() as usize;
    tb.snapshot(rules).len() >= (n - 2) * (n - 2)
}

/// In the placing phase, solves the root exactly over the tables (from the book and what
/// earlier moves proved, within half the move's time: a proof is worth more than a deeper
/// search, and a solve cut short leaves its proofs for the next move) and keeps only the root
/// moves that keep the value; the search then chooses among them by its evaluation, which is
/// what gives a fallible opponent the most chances. Returns the root's exact score, or `None`
/// when it is not solved (a table missing or not yet checked, out of time, stopped, other rules):
/// then `limits` is untouched and the search decides alone.
fn restrict_to_solved_moves(ctx: &RunContext, game: &Game, limits: &mut Limits) -> Option<i32> {
    let tb = ctx.tablebase.as_deref()?;
    let pos = game.position();
    if pos.is_moving_phase() || game.outcome().is_some() || tb.is_preloading() {
        return None;
    }
    let in_hand = pos.in_hand(crate::Color::White) + pos.in_hand(crate::Color::Black);
    let deadline = match search::budget_for(limits, pos) {
        Some(b) if !b.fixed && covers_moving_phase(tb, pos.rules()) => {
            // With every moving-phase sub-space in the tables, each move after the placing
            // phase is a table move at depth 1: the clock belongs to the placing phase. The
            // first placements past the book are the costly ones to solve (each later one is
            // smaller and starts from what the earlier proved), so each takes a share as if
            // half our placements were left, within the move's hard limit.
            let us = pos.side_to_move();
            let left = limits.clock.time[us.index()].unwrap_or_default();
            let usable = left.saturating_sub(limits.move_overhead);
            let share = usable / (pos.in_hand(us) as u32 / 2 + 2);
            (b.soft / 2).max(share.min(b.hard))
        }
        // A solve the budget is unlikely to finish only gets a sliver: enough for a root
        // that the book or an earlier move already proved, and the search keeps its time.
        Some(b) if !solve_fits(in_hand, b.soft / 2) => b.soft / 16,
        Some(b) => b.soft / 2,
        None if in_hand <= SOLVE_IN_HAND => std::time::Duration::MAX,
        None => SOLVE_UNTIMED,
    };
    let mut guard = ctx.solver.lock().unwrap_or_else(|e| e.into_inner());
    // Made when the options were set; only a position of other rules than announced needs a
    // new one here (a library user who never called `Engine::set_rules`).
    if guard.as_ref().is_none_or(|s| s.rules() != pos.rules()) {
        *guard = new_solver(tb, pos.rules(), ctx.solve_hash_mb, ctx.book.as_deref());
    }
    let solver = guard.as_mut()?;
    solver.set_deadline(Instant::now().checked_add(deadline));
    solver.set_stop(Some(ctx.stop.clone()));
    // Cut short after the value, the moves proven so far (at least the solver's own) still
    // keep it: perfect play needs one, the choice among them is the search's.
    let allowed = |m: &Move| limits.searchmoves.is_empty() || limits.searchmoves.contains(m);
    let (value, moves, complete) = match solver.value_keeping_partly(pos) {
        Ok(solved) => solved,
        Err(e) => {
            log::debug!("placing root not solved: {e}");
            // The value is open, but what the table proves (a book's bound, earlier moves'
            // proofs) may already name moves that keep a draw or a win: the search keeps to
            // those, and reports its own score.
            if let Some((floor, moves)) = solver.proven_floor(pos) {
                let keep: Vec<Move> = moves.into_iter().filter(allowed).collect();
                if !keep.is_empty() {
                    log::debug!(
                        "placing root: {} moves proven to keep {floor:?}",
                        keep.len()
                    );
                    limits.searchmoves = keep;
                }
            }
            return None;
        }
    };
    let mut keep: Vec<Move> = moves.into_iter().filter(allowed).collect();
    if !ctx.ultra_strong {
        keep.truncate(1);
    }
    log::debug!(
        "solved placing root: {value:?}, {} moves kept{}",
        keep.len(),
        if complete { "" } else { " (not all checked)" }
    );
    if !keep.is_empty() {
        limits.searchmoves = keep;
    }
    Some(solved_score(pos, value))
}

/// Runs one search on the context's threads (Lazy SMP: all threads search the same position
/// and meet in the shared table; the main thread's result is played).
///
/// Two things are layered on the plain search here. At a root the tables cover, every line
/// reports the table's verdict instead of the search's score, which cannot see the 100-ply
/// deadline. A weakened [`Skill`] searches several lines to its depth limit and picks one.
fn run(
    ctx: &RunContext,
    game: &Game,
    limits: &Limits,
    mut report: Reporter,
    mut currmove: Option<CurrMoveReporter>,
) -> SearchResult {
    ctx.tt.new_search();
    let pos = game.position();
    let tablebase = ctx.tablebase.as_deref();
    // The background check of the tables' files slows down while this search runs.
    struct Busy<'a>(Option<&'a Tablebase>);
    impl Drop for Busy<'_> {
        fn drop(&mut self) {
            if let Some(tb) = self.0 {
                tb.set_busy(false);
            }
        }
    }
    if let Some(tb) = tablebase {
        tb.set_busy(true);
    }
    let _busy = Busy(tablebase);
    // The tree's probes never wait for the disk: a page not in memory is a miss.
    let snapshot = tablebase
        .map(|tb| tb.snapshot(pos.rules()))
        .filter(|s| !s.is_empty())
        .map(|s| s.in_memory_only());
    let mut limits = limits.clone();
    let waiter = Waiter {
        start: ctx.start,
        budget: search::budget_for(&limits, pos),
        stop: &ctx.stop,
        pondering: &ctx.pondering,
        clock_origin_us: &ctx.clock_origin_us,
    };
    let skill = ctx.skill;
    // The weaker levels keep the hand-tuned evaluation: their Elo (docs/strength.md) was
    // calibrated with it, and the network would make each of them stronger than it says.
    let net = network_for(
        ctx.use_nnue && skill.is_full(),
        ctx.eval_file.as_ref(),
        pos.rules(),
    );
    // The weaker levels play the placing phase by their search alone; the moving phase's
    // tables are every level's (their search probes them anyway).
    let reading = ctx.tablebase.as_ref().and_then(|tb| {
        let wanted = if pos.is_moving_phase() {
            game.outcome().is_none()
        } else {
            ctx.skill.is_full()
        };
        wanted.then(|| {
            let first = ctx.tt.probe(pos.hash()).and_then(|e| e.mv);
            let choosing = table_root::Choosing {
                choice: ctx.table_choice,
                narrow: ctx.ultra_strong,
                model: ctx.opponent,
                net: net.clone(),
            };
            table_root::read(tb, pos, first, &choosing, &waiter)
        })
    });
    let table_scores = reading
        .as_ref()
        .filter(|_| pos.is_moving_phase())
        .and_then(|r| {
            table_root::restrict_moving(r, pos, game.hashes(), &mut limits, ctx.ultra_strong)
        });
    let placing_tables = reading
        .as_ref()
        .filter(|_| !pos.is_moving_phase())
        .and_then(|r| table_root::restrict_placing(r, pos, &mut limits, ctx.ultra_strong));
    // A root the tables cover but could not read in time is not solved either: the solver
    // reads the same files.
    let tables_cover = reading
        .as_ref()
        .is_some_and(|r| !r.outside && (r.value.is_some() || !r.moves.is_empty()));
    let solved = if placing_tables.is_some() {
        placing_tables
    } else if table_scores.is_none() && !tables_cover && ctx.skill.is_full() {
        restrict_to_solved_moves(ctx, game, &mut limits)
    } else {
        None
    };
    // A drawn root whose drawing moves the search chooses among: the tree searches through
    // the tables' draws (`Shared::search_draws`), in the moving phase too, where a table root
    // otherwise stops at depth 1. Scored 0 and cut off, every drawing move looked the same,
    // and the choice was the move ordering's first (docs/merciless.md).
    let search_draws = ctx.ultra_strong
        && (table_scores.is_some() || placing_tables.is_some())
        && reading.as_ref().and_then(table_root::root_wdl) == Some(crate::tablebase::Wdl::Draw);
    if table_scores.is_some() && !search_draws {
        // Every child of a covered root is a table hit, so deeper iterations learn nothing.
        limits.depth = Some(1);
    }
    let mut table_lines: Vec<(Move, Vec<Move>)> = Vec::new();
    let user_multipv = limits.multipv.max(1);
    if !skill.is_full() {
        limits.multipv = user_multipv.max(skill.lines());
        limits.depth = Some(
            limits
                .depth
                .map_or(skill.depth_limit(), |d| d.min(skill.depth_limit())),
        );
    }
    let limits = &limits;
    let shared = Shared {
        tt: &ctx.tt,
        stop: &ctx.stop,
        nodes: AtomicU64::new(0),
        tbhits: AtomicU64::new((table_scores.is_some() || placing_tables.is_some()) as u64),
        start: ctx.start,
        budget: search::budget_for(limits, pos),
        node_limit: limits.nodes,
        tb: snapshot.as_ref(),
        search_draws,
        pondering: &ctx.pondering,
        clock_origin_us: &ctx.clock_origin_us,
        net: net.as_deref(),
        // In a drawn covered root no line can lose the draw, so a contempt of its own there
        // costs nothing (docs/merciless.md, "`TableContempt`"). The weaker levels play
        // without a contempt, as their Elo was calibrated (docs/strength.md).
        contempt: if search_draws {
            ctx.table_contempt
        } else if skill.is_full() {
            ctx.contempt
        } else {
            0
        },
    };
    // The last full set of lines (one iteration's), for the skill's choice.
    let root_count = game
        .legal_moves()
        .iter()
        .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
        .count();
    let full_set = limits.multipv.clamp(1, root_count.max(1));
    let mut lines: Vec<(Move, i32)> = Vec::new();
    let mut pending: Vec<(Move, i32)> = Vec::new();
    let mut on_line = |info: &Info| {
        let mut info = info.clone();
        if let Some(s) = solved {
            // Every move searched keeps the solved value (a lost root searches all, and all
            // lose), so each line carries the verdict.
            info.score = s;
            info.bound = crate::tt::Bound::Exact;
            info.proven = true;
        }
        if let Some(scores) = &table_scores {
            if let Some(&(_, s)) = info
                .pv
                .first()
                .and_then(|m| scores.iter().find(|(t, _)| t == m))
            {
                info.score = s;
                info.bound = crate::tt::Bound::Exact;
                info.proven = true;
                let first = info.pv[0];
                let tb = ctx
                    .tablebase
                    .as_ref()
                    .expect("table scores come from the tables");
                if !table_lines.iter().any(|(m, _)| *m == first) {
                    table_lines.push((first, table_root::line(tb, game, first, &waiter)));
                }
                let line = table_lines.iter().find(|(m, _)| *m == first);
                info.pv = line.expect("just added").1.clone();
            }
        }
        if let Some(&m) = info.pv.first() {
            if info.multipv == 1 {
                pending.clear();
            }
            pending.push((m, info.score));
            if pending.len() == full_set {
                lines = std::mem::take(&mut pending);
            }
        }
        if info.multipv <= user_multipv {
            report(&info);
        }
    };
    let mut main_result = None;
    ctx.pool.scope(|s| {
        for id in 1..ctx.threads {
            let shared = &shared;
            s.spawn(move |_| {
                let mut helper = Searcher::new(shared, id, game, &limits.searchmoves);
                let helper_limits = Limits {
                    multipv: 1,
                    ..limits.clone()
                };
                helper.iterate(&helper_limits, &mut |_| {});
            });
        }
        let mut main = Searcher::new(&shared, 0, game, &limits.searchmoves);
        if let Some(cb) = currmove.as_mut() {
            main.set_currmove_reporter(&mut **cb);
        }
        let r = main.iterate(limits, &mut on_line);
        // An infinite or pondering search reports its move only when told to stop (or, when
        // pondering, after `ponderhit`), even if it has nothing left to search.
        while (limits.infinite || shared.pondering.load(Ordering::Relaxed))
            && !shared.stop.load(Ordering::Relaxed)
        {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // The main thread decides: once it is done, the helpers stop too.
        shared.stop.store(true, Ordering::Relaxed);
        main_result = Some(r);
    });
    let mut r = main_result.expect("the main thread ran");
    r.nodes = shared.nodes.load(Ordering::Relaxed);
    if let Some(s) = solved {
        r.score = s;
    }
    if let Some(scores) = &table_scores {
        if let Some(&(_, s)) = r.best.and_then(|b| scores.iter().find(|(m, _)| *m == b)) {
            r.score = s;
        }
    }
    if !skill.is_full() && lines.len() > 1 {
        if let Some(m) = skill.pick(&lines, pos.hash()) {
            if Some(m) != r.best {
                let &(_, score) = lines.iter().find(|(l, _)| *l == m).expect("a line's move");
                r.best = Some(m);
                r.score = score;
                r.pv = vec![m];
                r.ponder = None;
            }
        }
    }
    if r.ponder.is_none() {
        r.ponder = r.best.and_then(|b| expected_reply(&ctx.tt, game, b));
    }
    r
}

/// The reply the table expects after `best`, when the search's line ended at it.
fn expected_reply(tt: &TranspositionTable, game: &Game, best: Move) -> Option<Move> {
    // The game, not the bare position: a move that repeats a position a third time ends the
    // game, and then there is no reply to expect.
    let mut after = game.clone();
    after.play(best).ok()?;
    if after.outcome().is_some() {
        return None;
    }
    let pos = after.position();
    let reply = tt.probe(pos.hash())?.mv?;
    pos.legal_moves().contains(reply).then_some(reply)
}
