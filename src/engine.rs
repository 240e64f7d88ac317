//! The façade the protocol and the tools drive: options, the shared table, the thread pool,
//! and searches that run in the background and can be stopped at any moment.

use crate::game::Game;
use crate::search::{self, Info, Limits, SearchResult, Searcher, Shared};
use crate::tablebase::Tablebase;
use crate::tt::TranspositionTable;
use crate::types::Rules;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// Receives each finished iteration's lines while a search runs (called from the search thread).
pub type Reporter = Box<dyn FnMut(&Info) + Send>;

/// Default table size in MiB.
pub const DEFAULT_HASH_MB: usize = 16;
/// Largest table size in MiB.
pub const MAX_HASH_MB: usize = 65536;
/// Most search threads.
pub const MAX_THREADS: usize = 256;

/// The engine: owns the table and the threads, runs one search at a time.
pub struct Engine {
    tt: Arc<TranspositionTable>,
    hash_mb: usize,
    threads: usize,
    pool: Arc<rayon::ThreadPool>,
    stop: Arc<AtomicBool>,
    worker: Option<JoinHandle<SearchResult>>,
    tablebase: Option<Arc<Tablebase>>,
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
        }
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

    /// Uses the endgame tables in `dir` (none when `None`), and reads those of `rules` now so
    /// that the first search does not pay for it. Returns how many sub-spaces of `rules` are
    /// present. On error the previous tables stay.
    pub fn set_table_path(&mut self, dir: Option<&str>, rules: Rules) -> Result<usize, String> {
        self.stop_and_wait();
        let Some(dir) = dir else {
            self.tablebase = None;
            return Ok(0);
        };
        let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
        let n = tb.snapshot(rules).len();
        self.tablebase = Some(Arc::new(tb));
        Ok(n)
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
        done: Box<dyn FnOnce(SearchResult) + Send>,
    ) {
        self.stop_and_wait();
        let stop = Arc::new(AtomicBool::new(false));
        self.stop = stop.clone();
        let tt = self.tt.clone();
        let pool = self.pool.clone();
        let threads = self.threads;
        let game = game.clone();
        let tb = self.tablebase.clone();
        self.worker = Some(std::thread::spawn(move || {
            let result = run(
                &tt,
                &pool,
                threads,
                &stop,
                tb.as_deref(),
                &game,
                &limits,
                report,
            );
            done(result.clone());
            result
        }));
    }

    /// Searches to the limits and returns the result (blocking). Used by tools and tests.
    pub fn search(&mut self, game: &Game, limits: &Limits, report: Reporter) -> SearchResult {
        self.stop_and_wait();
        let stop = Arc::new(AtomicBool::new(false));
        self.stop = stop.clone();
        run(
            &self.tt,
            &self.pool,
            self.threads,
            &stop,
            self.tablebase.as_deref(),
            game,
            limits,
            report,
        )
    }
}

/// At a root the tables cover, keeps only the moves that keep the table's result: the one
/// fastest win or slowest loss (the search could not see the 100-ply rule's deadline), or every
/// move that keeps a draw (the search may still pick the one that sets the most problems).
/// Returns whether the tables covered the root.
fn restrict_to_table_moves(tb: &Tablebase, game: &Game, limits: &mut Limits) -> bool {
    use crate::tablebase::Wdl;
    if game.outcome().is_some() {
        return false;
    }
    let Some(root) = tb.probe_root(game.position()) else {
        return false;
    };
    let wanted = root.probe.wdl.real();
    let keep: Vec<_> = match wanted {
        Wdl::Win | Wdl::Loss => vec![root.best],
        _ => root
            .moves
            .iter()
            .filter(|(_, p)| p.wdl.real() == Wdl::Draw)
            .map(|&(m, _)| m)
            .collect(),
    };
    let keep: Vec<_> = if limits.searchmoves.is_empty() {
        keep
    } else {
        keep.into_iter()
            .filter(|m| limits.searchmoves.contains(m))
            .collect()
    };
    // A user's searchmoves that the table rejects all are searched as asked.
    if !keep.is_empty() {
        log::debug!(
            "endgame table at the root: {wanted:?}, {} moves kept",
            keep.len()
        );
        limits.searchmoves = keep;
    }
    true
}

/// Runs one search on `threads` threads of `pool` (Lazy SMP: all threads search the same
/// position and meet in the shared table; the main thread's result is played).
#[allow(clippy::too_many_arguments)]
fn run(
    tt: &TranspositionTable,
    pool: &rayon::ThreadPool,
    threads: usize,
    stop: &AtomicBool,
    tablebase: Option<&Tablebase>,
    game: &Game,
    limits: &Limits,
    mut report: Reporter,
) -> SearchResult {
    tt.new_search();
    let pos = game.position();
    let snapshot = tablebase
        .map(|tb| tb.snapshot(pos.rules()))
        .filter(|s| !s.is_empty());
    let mut limits = limits.clone();
    let root_hit = tablebase.is_some_and(|tb| restrict_to_table_moves(tb, game, &mut limits));
    let limits = &limits;
    let shared = Shared {
        tt,
        stop,
        nodes: AtomicU64::new(0),
        tbhits: AtomicU64::new(root_hit as u64),
        start: Instant::now(),
        budget: search::budget_for(limits, pos),
        node_limit: limits.nodes,
        tb: snapshot.as_ref(),
    };
    let mut main_result = None;
    pool.scope(|s| {
        for id in 1..threads {
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
        let r = main.iterate(limits, &mut *report);
        // An infinite search reports its move only when told to stop, even if it has
        // nothing left to search.
        while limits.infinite && !shared.stop.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // The main thread decides: once it is done, the helpers stop too.
        shared.stop.store(true, Ordering::Relaxed);
        main_result = Some(r);
    });
    let mut r = main_result.expect("the main thread ran");
    r.nodes = shared.nodes.load(Ordering::Relaxed);
    r
}
