//! The façade the protocol and the tools drive: options, the shared table, the thread pool,
//! and searches that run in the background and can be stopped at any moment.

use crate::game::Game;
use crate::search::{self, Info, Limits, SearchResult, Searcher, Shared};
use crate::tt::TranspositionTable;
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
        self.worker = Some(std::thread::spawn(move || {
            let result = run(&tt, &pool, threads, &stop, &game, &limits, report);
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
            game,
            limits,
            report,
        )
    }
}

/// Runs one search on `threads` threads of `pool` (Lazy SMP: all threads search the same
/// position and meet in the shared table; the main thread's result is played).
fn run(
    tt: &TranspositionTable,
    pool: &rayon::ThreadPool,
    threads: usize,
    stop: &AtomicBool,
    game: &Game,
    limits: &Limits,
    mut report: Reporter,
) -> SearchResult {
    tt.new_search();
    let shared = Shared {
        tt,
        stop,
        nodes: AtomicU64::new(0),
        start: Instant::now(),
        budget: search::budget_for(limits, game.position()),
        node_limit: limits.nodes,
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
