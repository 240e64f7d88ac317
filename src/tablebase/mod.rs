//! Perfect endgame tables for the moving phase, computed by our own retrograde analysis.
//!
//! # What is covered
//!
//! A *sub-space* (w, b) of a rule set (variant, flying) holds every moving-phase position (both
//! hands empty) where the side to move has `w` pieces and the other side `b`, with
//! `3 <= w, b <= pieces of the variant`. Positions are stored from the side to move's view, so
//! White to move and Black to move share a table. Symmetric positions (16 board symmetries:
//! the square's 8, each with or without swapping the inner and outer rings) share a slot.
//!
//! # What is stored
//!
//! A [`Value`] per position: win, draw or loss for the side to move, and for a win or loss the
//! distance in plies to the next *conversion* under best play (the winner hurries, the loser
//! delays). A conversion is the ply that closes a mill, or the arrival at a position where the
//! side to move has no move (and so loses). This is the mill game's counterpart of chess's DTZ:
//! every mill resets the 100-ply counter, so what matters is how far the next one is.
//!
//! # The 100-ply rule and the stored distance
//!
//! With the counter at `c` plies, a conversion `d` plies away happens in time exactly when
//! `c + d <= 100` (a mill at the 100th ply still counts, and a side without a move at counter
//! 100 still loses, since a loss takes precedence over the draw). The generator takes this into
//! account across conversions: a mill into a position whose own result is spoilt by the rule
//! (a win needing more than 100 plies to its next mill, counting from 0 after the mill) is
//! valued as if it were 100 plies further away. Hence:
//!
//! - `Win(d)` with `d + c <= 100`: a real win under our rules, reached by the moves that keep
//!   the distance falling (see [`Tablebase::probe_root`]). The distance is exact.
//! - `Win(d)` with `d + c > 100`: the side would win without the 100-ply rule, but with the
//!   counter at `c` the game is a draw with best defence ([`Wdl::CursedWin`]). Above 100 the
//!   stored distance is only an ordering key (it may include the 100-ply penalty above).
//! - Losses mirror wins ([`Wdl::BlessedLoss`]).
//! - `Draw`: neither side can force a conversion it wants; that is a draw whatever the counter.
//!
//! [`Tablebase::probe`] takes the counter from [`Position::rule50`] and reports these cases;
//! the search must use the [`Wdl`] it returns, never `Value::Win` alone.
//!
//! # Threefold repetition
//!
//! The tables ignore game history. Repetition never changes a value: along best play the
//! winner's distance falls with every ply, so no position repeats before the next conversion,
//! and a side that cannot win loses nothing by repeating. The one thing a table cannot see is
//! a position that *already* occurred twice earlier in the game: the search should still apply
//! its repetition check to the moves [`Tablebase::probe_root`] proposes.
//!
//! # Probing from the search
//!
//! ```no_run
//! use millstone::tablebase::{Tablebase, Wdl};
//! use millstone::{Position, Rules};
//! let tb = Tablebase::open("tables").expect("a directory");
//! let pos = Position::from_fen("W.W/.../.../B....B/.../.../W.B b 0 0 10 30", Rules::default())
//!     .unwrap();
//! // In the tree: the result under the rules, from one byte of the W/D/L part.
//! let snapshot = tb.snapshot(pos.rules());
//! if let Some(wdl) = snapshot.probe_wdl(&pos) {
//!     println!("{wdl:?}");
//! }
//! // Exact, with the distance (decodes a block: for the root and tools).
//! if let Some(p) = tb.probe(&pos) {
//!     let decisive = matches!(p.wdl, Wdl::Win | Wdl::Loss);
//!     println!("{:?} in {} plies (decisive: {decisive})", p.wdl, p.plies_to_mill);
//! }
//! if let Some(root) = tb.probe_root(&pos) {
//!     println!("best move {}", root.best);
//! }
//! ```
//!
//! - [`Snapshot::probe_wdl`] (and [`Tablebase::probe_wdl`]) is the tree's probe: `Win`,
//!   `Draw` or `Loss` under the rules with the position's counter (cursed wins and blessed
//!   losses are `Draw`), always equal to `probe(pos).wdl.real()`. One index computation and
//!   two byte loads from the mapped file; the distance is read only when the counter is so far
//!   on that a win or loss of that group of 64 slots could come too late (see the docs of
//!   [`format`](mod@format)). About 0.4 us a probe on random positions of the 10-piece set.
//! - [`Tablebase::probe`] and [`Snapshot::probe`] return the exact [`Probe`] with the stored
//!   distance: they decode one 8192-slot distance block (tens of microseconds; the last block
//!   is kept per thread). `None` outside the tables (placing phase, sub-space not generated,
//!   or a damaged file or block, which is logged once).
//! - [`Tablebase::probe_root`] values every legal move and picks the fastest win, else the
//!   draw, else the slowest loss, with the counter taken into account.
//! - [`Tablebase`] is `Sync` and [`Snapshot`] a cheap handle on it: share them between search
//!   threads. [`Tablebase::open`] lists the directory and opens nothing; each sub-space's file
//!   is mapped (`memmap2`, never read whole) and checked on its first probe, through a
//!   `OnceLock` per sub-space, so later probes take no lock, and a sub-space without a file
//!   costs an array look-up. The check reads the file's whole W/D/L part (a few hundred MB for
//!   the biggest sub-spaces of nine), so [`Tablebase::preload`] does it ahead on a thread of
//!   its own; until that thread is done, a one-byte W/D/L probe (the search's) of a file it
//!   has not checked yet misses instead of waiting, and a probe of a value with its distance
//!   (a root's) reads the file unchecked: the distance block is checked against its own sum
//!   and the value against the W/D/L digit, so a damaged part gives no answer, never a wrong one.
//!
//! Files are produced by `mill-tb generate` (the `millstone-tools` crate); the layout is in
//! the docs of [`format`](mod@format) (and [`Header`]), the algorithm in [`solve_pair`], the
//! jobs of a run and their dependencies in [`plan`]. `mill-tb verify` re-derives every stored value from its
//! children one ply deep; since wins and losses are checked with exact distances that fall
//! towards a conversion, a table that passes is the true solution. `verify --sample N` does so
//! for N random slots per sub-space through the mapped files.
//!
//! # Sizes and speed (measured on 2 shared cores)
//!
//! A slot per symmetry class plus a few percent of unused twins; 1.73 bits a slot for the W/D/L
//! part and typically 0.5 to 3 for the compressed distances. For `nine` with flying, all
//! sub-spaces up to 10 pieces (3 v 3 ... 5 v 5, 3 v 7, 7 v 3) are 156 million positions in 173
//! million slots, 63 MB of files (345 MB in the old 2-byte format), about 150 s of CPU to
//! generate with 420 MB peak memory (one job at a time); up to 8 pieces take 8 to 13 seconds.

pub mod format;
mod generate;
pub(crate) mod hugepages;
pub(crate) mod index;
mod mapped;
pub mod placing;
mod plan;
pub mod sample;
pub(crate) mod symmetry;
mod value;

pub use format::{
    digit_of, file_name, fnv1a64, Header, Table, TableStats, TbError, BLOCK_SLOTS, DIGIT_LOSS,
    DIGIT_OTHER, DIGIT_WIN, GROUP_SLOTS, HEADER_LEN, MAGIC, VERSION, ZSTD_LEVEL,
};
pub use generate::{
    solve_pair, solve_pair_with, value_from_children, value_from_children_with, verify_table,
    SolveStats, Values,
};
pub use index::{colex_rank, SubIndex, UsKey, BINOM};
pub use mapped::TableFile;
pub use plan::{job_of, plan, Job};
pub use symmetry::Symmetries;
pub use value::{Value, MAX_DISTANCE};

use crate::moves::Move;
use crate::position::{Position, HUNDRED_PLIES};
use crate::types::{Rules, Variant};
use placing::{PlacingFile, Sector};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The result of a position under our rules, given the 100-ply counter.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// It would lose without the 100-ply rule; with the counter as it is, a draw.
    BlessedLoss,
    /// Neither side can force a win.
    Draw,
    /// It would win without the 100-ply rule; with the counter as it is, a draw.
    CursedWin,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// The result for the other side.
    pub const fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The result under the game's rules: cursed wins and blessed losses are draws.
    pub const fn real(self) -> Wdl {
        match self {
            Wdl::BlessedLoss | Wdl::CursedWin => Wdl::Draw,
            other => other,
        }
    }
}

/// What a probe says about a position.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Probe {
    /// The result for the side to move with the position's 100-ply counter.
    pub wdl: Wdl,
    /// Plies to the next mill (or blockade) under best play; 0 for a draw. Exact for `Win` and
    /// `Loss`; for cursed wins and blessed losses an ordering key (see the module docs).
    pub plies_to_mill: u16,
    /// The stored, counter-independent value.
    pub value: Value,
}

impl Probe {
    /// The probe of a stored value with the 100-ply counter at `rule50`.
    pub fn from_value(value: Value, rule50: u16) -> Probe {
        let left = HUNDRED_PLIES.saturating_sub(rule50);
        let wdl = match value {
            Value::Win(d) if d <= left => Wdl::Win,
            Value::Win(_) => Wdl::CursedWin,
            Value::Draw => Wdl::Draw,
            Value::Loss(d) if d <= left => Wdl::Loss,
            Value::Loss(_) => Wdl::BlessedLoss,
        };
        Probe {
            wdl,
            plies_to_mill: value.distance(),
            value,
        }
    }
}

/// What [`Tablebase::probe_root`] says: the best move and every move's value.
#[derive(Clone, Debug)]
pub struct RootProbe {
    /// The best move: fastest win, else a draw (a cursed win before a plain draw), else the
    /// slowest loss.
    pub best: Move,
    /// The position's value, which is the best move's.
    pub probe: Probe,
    /// Every legal move with its value for the side making it, best first.
    pub moves: Vec<(Move, Probe)>,
}

/// Sub-spaces per rule set in the lookup arrays: by `own * 13 + opp` piece counts.
const PER_RULES: usize = 13 * 13;

/// The slot of a rule set's sub-space (w, b) in the lookup arrays.
#[inline(always)]
fn key(rules: Rules, w: usize, b: usize) -> usize {
    let r = (rules.variant == Variant::Twelve) as usize * 2 + rules.flying as usize;
    r * PER_RULES + w * 13 + b
}

/// Parses `nine-fly-3v4.mtb` into its rule set and sub-space.
pub fn parse_file_name(name: &str) -> Option<(Rules, u8, u8)> {
    let stem = name.strip_suffix(".mtb")?;
    let mut parts = stem.split('-');
    let variant: Variant = parts.next()?.parse().ok()?;
    let flying = match parts.next()? {
        "fly" => true,
        "nofly" => false,
        _ => return None,
    };
    let (w, b) = parts.next()?.split_once('v')?;
    if parts.next().is_some() {
        return None;
    }
    let (w, b): (u8, u8) = (w.parse().ok()?, b.parse().ok()?);
    let n = variant.pieces();
    (3..=n).contains(&w).then_some(())?;
    (3..=n).contains(&b).then_some(())?;
    Some((Rules::new(variant, flying), w, b))
}

struct Inner {
    dir: PathBuf,
    /// Which sub-spaces have a file (listed once at open): a sub-space without one is a miss
    /// that never touches the file system.
    present: Vec<bool>,
    /// Each sub-space's file, opened and checked on its first probe; `None` when missing or
    /// damaged. After the first probe a `OnceLock` read is one atomic load: no lock.
    files: Vec<OnceLock<Option<Arc<TableFile>>>>,
    /// Whether [`Tablebase::preload`] is still opening files: until it is done, a file it has
    /// not opened yet is a miss rather than a wait (its check reads the whole W/D/L part, up to
    /// a few hundred MB for the biggest sub-spaces of nine, and the engine is playing).
    preloading: AtomicBool,
    /// While the preload has not checked a file yet: the file opened for the probes that decode
    /// a distance block, each answer checked by the block's sum and the W/D/L digit
    /// ([`Inner::value_file`]), so that a root read early in an engine's life is answered.
    provisional: Vec<OnceLock<Option<Arc<TableFile>>>>,
    /// Which placing-phase sectors have a file, by [`placing_key`].
    placing_present: Vec<bool>,
    /// Each sector's file, opened (header and block index checked) on its first probe.
    placing_files: Vec<OnceLock<Option<Arc<PlacingFile>>>>,
    /// See [`Tablebase::simulate_slow_reads`].
    read_delay_us: std::sync::atomic::AtomicU64,
    /// Set while a search runs (see [`Tablebase::set_busy`]).
    busy: AtomicBool,
}

/// Table files smaller than this are opened and checked at once by [`Tablebase::preload`] as
/// the engine calls it (all of them up to 10 pieces); bigger ones on its thread.
pub const PRELOAD_SYNC_BYTES: u64 = 32 << 20;

/// The longest a background check waits before its next megabyte while a search runs.
const BUSY_PAUSE: std::time::Duration = std::time::Duration::from_millis(200);

/// Bytes of the first plies' placing files that a preload reads ahead (all of nine's up to
/// ply 11, about 30 MB).
pub const WARM_PLACING_BYTES: u64 = 32 << 20;

/// Sectors per rule set in the placing lookup arrays: by ply, then pieces of each side.
const PLACING_PER_RULES: usize = 24 * 13 * 13;

/// The slot of a placing sector in the lookup arrays.
#[inline(always)]
fn placing_key(s: Sector) -> usize {
    let r = (s.rules.variant == Variant::Twelve) as usize * 2 + s.rules.flying as usize;
    r * PLACING_PER_RULES + s.ply as usize * 169 + s.m as usize * 13 + s.o as usize
}

impl Inner {
    /// The file of a placing sector, opened now if nobody did yet; `None` if missing or damaged.
    fn placing_file(&self, s: Sector) -> Option<&PlacingFile> {
        let k = placing_key(s);
        if !self.placing_present[k] {
            return None;
        }
        self.placing_files[k]
            .get_or_init(|| {
                let path = self.dir.join(s.file_name());
                match PlacingFile::open(&path, s) {
                    Ok(f) => Some(Arc::new(f)),
                    Err(e) => {
                        log::warn!("placing table ignored: {e}");
                        None
                    }
                }
            })
            .as_deref()
    }

    /// The file of a sub-space, opened now if nobody did yet (waiting for another thread
    /// that is opening it); a miss while a preload runs and has not got to it.
    #[inline]
    fn file(&self, rules: Rules, w: usize, b: usize) -> Option<&TableFile> {
        if w > 12 || b > 12 {
            return None;
        }
        let k = key(rules, w, b);
        if !self.present[k] {
            return None;
        }
        if let Some(f) = self.files[k].get() {
            return f.as_deref();
        }
        if self.preloading.load(Ordering::Acquire) {
            return None;
        }
        self.open_now(rules, w, b)
    }

    /// The file of a sub-space for [`TableFile::get`] (a value with its distance): the checked
    /// file; while a preload has not checked it yet, the file opened without the check of its
    /// W/D/L part (header and block index only: about a megabyte for nine's biggest, not the
    /// part's hundreds of MB), whose answers are each checked on their own. The second field says
    /// whether the file is checked whole ([`TableFile::wdl`] reads only such files). A file
    /// the check found damaged gives nothing, even where its blocks still decode.
    fn value_file(&self, rules: Rules, w: usize, b: usize) -> Option<(&TableFile, bool)> {
        if w > 12 || b > 12 || !self.present[key(rules, w, b)] {
            return None;
        }
        let k = key(rules, w, b);
        if let Some(f) = self.files[k].get() {
            return f.as_deref().map(|t| (t, true));
        }
        if !self.preloading.load(Ordering::Acquire) {
            return self.open_now(rules, w, b).map(|t| (t, true));
        }
        self.provisional[k]
            .get_or_init(|| {
                let path = self.dir.join(file_name(rules, w as u8, b as u8));
                match TableFile::open_for_values(&path, rules, w as u8, b as u8) {
                    Ok(t) => Some(Arc::new(t)),
                    Err(e) => {
                        log::warn!("endgame table ignored: {e}");
                        None
                    }
                }
            })
            .as_deref()
            .map(|t| (t, false))
    }

    /// Opens and checks the file now (or waits for the thread that is doing it).
    fn open_now(&self, rules: Rules, w: usize, b: usize) -> Option<&TableFile> {
        self.open_paced(rules, w, b, &|| {})
    }

    /// While a search runs, the background check reads a megabyte each [`BUSY_PAUSE`] at most:
    /// its reads would take the disk and the memory from the search's.
    fn pace(&self) {
        let t = std::time::Instant::now();
        while self.busy.load(Ordering::Relaxed) && t.elapsed() < BUSY_PAUSE {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// [`Inner::open_now`], calling `pace` before each megabyte of the check.
    fn open_paced(&self, rules: Rules, w: usize, b: usize, pace: &dyn Fn()) -> Option<&TableFile> {
        let k = key(rules, w, b);
        self.files[k]
            .get_or_init(|| {
                let path = self.dir.join(file_name(rules, w as u8, b as u8));
                match TableFile::open_paced(&path, rules, w as u8, b as u8, pace) {
                    Ok(t) => Some(Arc::new(t)),
                    Err(e) => {
                        log::warn!("endgame table ignored: {e}");
                        None
                    }
                }
            })
            .as_deref()
    }
}

/// The tables of one rule set, for probing without locks from every search thread. Cheap to
/// take and to clone: files are opened on the first probe of their sub-space.
#[derive(Clone)]
pub struct Snapshot {
    rules: Rules,
    inner: Arc<Inner>,
    count: usize,
    in_memory_only: bool,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Snapshot({}, {} files)", self.rules, self.count)
    }
}

impl Snapshot {
    /// How many sub-spaces of the rule set have a file (not yet checked: a damaged file is
    /// counted, and found out on its first probe).
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The sub-space file of a position, `None` outside the tables.
    #[inline(always)]
    fn file_of(&self, pos: &Position) -> Option<(&TableFile, u32, u32)> {
        if !pos.is_moving_phase() || pos.rules() != self.rules {
            return None;
        }
        let us = pos.side_to_move();
        let (own, opp) = (pos.pieces(us), pos.pieces(us.other()));
        let t = self
            .inner
            .file(self.rules, own.count() as usize, opp.count() as usize)?;
        Some((t, own.0, opp.0))
    }

    /// The result of a position for the side to move, with its 100-ply counter, and the
    /// stored distance; `None` when no table covers it. Exact, but it decodes a distance block
    /// (microseconds): the tree should use [`Snapshot::probe_wdl`]. Positions already decided
    /// by the rules are the search's business.
    #[inline]
    pub fn probe(&self, pos: &Position) -> Option<Probe> {
        let (t, us, them) = self.file_of(pos)?;
        let v = t.get(us, them).ok()?;
        Some(Probe::from_value(v, pos.rule50()))
    }

    /// The result under the rules for the side to move, with its 100-ply counter: `Win`,
    /// `Draw` or `Loss` only (a cursed win or blessed loss is a `Draw`), always equal to
    /// `probe(pos).wdl.real()`. Reads one byte of the W/D/L part, unless the counter is close
    /// enough to 100 that the distance matters. `None` outside the tables.
    #[inline]
    pub fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        let (t, us, them) = self.file_of(pos)?;
        if self.in_memory_only {
            return t.wdl_in_memory(us, them, pos.rule50());
        }
        t.wdl(us, them, pos.rule50())
    }

    /// This snapshot's [`Snapshot::probe_wdl`] misses instead of waiting for the disk where
    /// the byte it needs is not in memory: for a search, which must stop on time however cold the files are. Forgets which pages were
    /// in memory before, as the kernel may have dropped some since.
    pub fn in_memory_only(mut self) -> Snapshot {
        for f in self.inner.files.iter().filter_map(|f| f.get()).flatten() {
            if f.header().rules == self.rules {
                f.forget_residency();
            }
        }
        self.in_memory_only = true;
        self
    }
}

/// A directory of table files, each mapped and checked on the first probe of its sub-space.
pub struct Tablebase {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tablebase({})", self.inner.dir.display())
    }
}

impl Tablebase {
    /// Tables in `dir`; fails only if `dir` is not a readable directory. Lists the directory
    /// once; files are opened on first use (a file added later needs a new `open`).
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, TbError> {
        let dir = dir.as_ref().to_path_buf();
        let entries = std::fs::read_dir(&dir).map_err(|e| TbError::Io {
            path: dir.clone(),
            source: e,
        })?;
        let mut present = vec![false; 4 * PER_RULES];
        let mut placing_present = vec![false; 4 * PLACING_PER_RULES];
        for e in entries.filter_map(|e| e.ok()) {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some((rules, w, b)) = parse_file_name(&name) {
                present[key(rules, w as usize, b as usize)] = true;
            } else if let Some(s) = Sector::parse_file_name(&name) {
                placing_present[placing_key(s)] = true;
            }
        }
        Ok(Tablebase {
            inner: Arc::new(Inner {
                dir,
                present,
                files: (0..4 * PER_RULES).map(|_| OnceLock::new()).collect(),
                preloading: AtomicBool::new(false),
                provisional: (0..4 * PER_RULES).map(|_| OnceLock::new()).collect(),
                placing_present,
                placing_files: (0..4 * PLACING_PER_RULES)
                    .map(|_| OnceLock::new())
                    .collect(),
                read_delay_us: std::sync::atomic::AtomicU64::new(0),
                busy: AtomicBool::new(false),
            }),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// The path of a sub-space's file.
    pub fn path(&self, rules: Rules, w: u8, b: u8) -> PathBuf {
        self.inner.dir.join(file_name(rules, w, b))
    }

    /// Maps and checks a sub-space's file now, reporting why it cannot be used (this does not
    /// go through the cache, so it also sees files added after [`Tablebase::open`]).
    pub fn load(&self, rules: Rules, w: u8, b: u8) -> Result<Arc<TableFile>, TbError> {
        TableFile::open(&self.path(rules, w, b), rules, w, b).map(Arc::new)
    }

    /// Opens and checks the files of `rules`: those under `sync_bytes` (by file size) now,
    /// the others, biggest first, on a thread of their own, so that the engine answers at once
    /// and never waits for the check of a big file. Until that thread is done, the search's
    /// one-byte probes of a file it has not checked yet miss (the search goes on with its
    /// evaluation), while the probes of a value with its distance (a root's, the solver's) read
    /// the file unchecked, each answer checked on its own (the block's sum, the W/D/L digit);
    /// while a search runs ([`Tablebase::set_busy`]) the check reads slowly. Returns the
    /// thread (if any).
    pub fn preload(&self, rules: Rules, sync_bytes: u64) -> Option<std::thread::JoinHandle<()>> {
        self.preload_then(rules, sync_bytes, |_| {})
    }

    /// [`Tablebase::preload`], and on its thread (if one is needed: a set with big files),
    /// before the big files, the placing phase's files of `rules` are opened (header and block
    /// index) and the small ones of the first plies kept in memory, the hot part of the
    /// placing tables; then `on_done` gets a line that says what was done and how long it took.
    pub fn preload_then(
        &self,
        rules: Rules,
        sync_bytes: u64,
        on_done: impl FnOnce(String) + Send + 'static,
    ) -> Option<std::thread::JoinHandle<()>> {
        let mut later = Vec::new();
        for w in 3..=rules.variant.pieces() {
            for b in 3..=rules.variant.pieces() {
                if !self.inner.present[key(rules, w as usize, b as usize)] {
                    continue;
                }
                let len = std::fs::metadata(self.path(rules, w, b)).map_or(0, |m| m.len());
                if len < sync_bytes {
                    self.inner.open_now(rules, w as usize, b as usize);
                } else {
                    later.push((len, w, b));
                }
            }
        }
        if later.is_empty() {
            return None;
        }
        later.sort_unstable_by(|a, b| b.cmp(a));
        let me = Tablebase {
            inner: self.inner.clone(),
        };
        me.inner.preloading.store(true, Ordering::Release);
        let spawned = std::thread::Builder::new()
            .name("table-preload".into())
            .spawn(move || {
                yield_to_searches();
                let inner = &me.inner;
                // The first plies first: every game's first table moves read them, a cold
                // engine's within its first second, while the big files' check takes seconds
                // to minutes and its reads would queue before theirs.
                let start = std::time::Instant::now();
                let (sectors, ahead, locked) = me.warm_placing(rules);
                let placing = start.elapsed();
                for &(_, w, b) in &later {
                    inner.open_paced(rules, w as usize, b as usize, &|| inner.pace());
                }
                inner.preloading.store(false, Ordering::Release);
                let line =
                    format!(
                    "endgame tables ready: {} big files of {rules} checked in {:.1}s; {sectors} \
                     placing sectors opened, {:.1} MB of the first plies {}, in {:.1}s before",
                    later.len(),
                    (start.elapsed() - placing).as_secs_f64(),
                    ahead as f64 / 1e6,
                    if locked { "locked in memory" } else { "read ahead" },
                    placing.as_secs_f64()
                );
                log::info!("{line}");
                on_done(line);
            });
        match spawned {
            Ok(handle) => Some(handle),
            Err(e) => {
                log::warn!("endgame tables: no preload thread ({e}); files open on first use");
                self.inner.preloading.store(false, Ordering::Release);
                None
            }
        }
    }

    /// Opens every placing sector file of `rules` (its header and block index are read and
    /// checked) and keeps those of the first plies whose files are small
    /// ([`WARM_PLACING_BYTES`] in all) in memory: every game passes through them, but each
    /// only for a moment, so a kernel that pages out what was idle for a minute (Linux's
    /// DAMON reclaim on virtual machines; any kernel under memory pressure) would make each
    /// game's first table moves wait for the disk. They are locked (`mlock`) where the
    /// process may lock that much, else read ahead. Returns the sectors opened, the bytes
    /// kept, and whether they are locked.
    fn warm_placing(&self, rules: Rules) -> (usize, u64, bool) {
        let mut sectors = Sector::all(rules, 2 * rules.variant.pieces());
        sectors.sort_by_key(|s| s.ply);
        let (mut opened, mut ahead, mut locked) = (0, 0u64, true);
        for s in sectors {
            let Some(f) = self.placing_table(s) else {
                continue;
            };
            opened += 1;
            if ahead + f.header().file_len <= WARM_PLACING_BYTES {
                ahead += f.header().file_len;
                if locked {
                    if let Err(e) = f.lock_in_memory() {
                        log::debug!("placing tables not locked in memory ({e}): read ahead");
                        locked = false;
                    }
                }
                if !locked {
                    f.read_ahead();
                }
            }
        }
        (opened, ahead, locked && ahead > 0)
    }

    /// Whether a [`Tablebase::preload`] is still opening files (they miss until it is done).
    pub fn is_preloading(&self) -> bool {
        self.inner.preloading.load(Ordering::Acquire)
    }

    /// The file of a sub-space, opened on first use; `None` if it is missing or damaged.
    pub fn table(&self, rules: Rules, w: u8, b: u8) -> Option<&TableFile> {
        self.inner.file(rules, w as usize, b as usize)
    }

    /// The stored value of a position, independent of the 100-ply counter; `None` outside the
    /// tables. Positions where the game is already over by the rules of the position get their
    /// value directly: fewer than three pieces, or a full `twelve` board, need no table.
    pub fn value(&self, pos: &Position) -> Option<Value> {
        if !pos.is_moving_phase() {
            return None;
        }
        let us = pos.side_to_move();
        let (own, opp) = (pos.pieces(us), pos.pieces(us.other()));
        if own.count() < 3 {
            return Some(Value::Loss(0));
        }
        if opp.count() < 3 {
            return None;
        }
        if pos.variant() == Variant::Twelve && pos.empty().is_empty() {
            return Some(Value::Draw);
        }
        let (t, _) =
            self.inner
                .value_file(pos.rules(), own.count() as usize, opp.count() as usize)?;
        t.get(own.0, opp.0).ok()
    }

    /// The tables of a rule set for the search: no file is opened here.
    pub fn snapshot(&self, rules: Rules) -> Snapshot {
        let base = key(rules, 0, 0);
        let count = self.inner.present[base..base + PER_RULES]
            .iter()
            .filter(|&&p| p)
            .count();
        Snapshot {
            rules,
            inner: self.inner.clone(),
            count,
            in_memory_only: false,
        }
    }

    /// The result of a position for the side to move, with its 100-ply counter.
    pub fn probe(&self, pos: &Position) -> Option<Probe> {
        self.value(pos).map(|v| Probe::from_value(v, pos.rule50()))
    }

    /// The result under the rules only (see [`Snapshot::probe_wdl`]): the fast probe.
    pub fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        self.snapshot(pos.rules()).probe_wdl(pos)
    }

    /// How many placing-phase sectors of a rule set have a file.
    pub fn placing_count(&self, rules: Rules) -> usize {
        let base = placing_key(Sector {
            rules,
            ply: 0,
            m: 0,
            o: 0,
        });
        self.inner.placing_present[base..base + PLACING_PER_RULES]
            .iter()
            .filter(|&&p| p)
            .count()
    }

    /// Whether every placing sector of the rule set has a file (not yet checked).
    pub fn covers_placing_phase(&self, rules: Rules) -> bool {
        Sector::all(rules, 2 * rules.variant.pieces())
            .iter()
            .all(|&s| self.inner.placing_present[placing_key(s)])
    }

    /// The counts of wins, draws and losses for the side to move among the positions of the
    /// table that holds `pos` (its sub-space or placing sector; wins and losses the 100-ply
    /// rule spoils count as draws), from the file's header; `None` where no table holds it.
    pub fn sector_counts(&self, pos: &Position) -> Option<[u64; 3]> {
        if pos.is_moving_phase() {
            let us = pos.side_to_move();
            let (own, opp) = (pos.pieces(us).count(), pos.pieces(us.other()).count());
            let (t, _) = self
                .inner
                .value_file(pos.rules(), own as usize, opp as usize)?;
            let s = t.stats();
            Some([s.wins, s.draws + s.spoilt_wins + s.spoilt_losses, s.losses])
        } else {
            let s = self.placing_table(placing::sector_of(pos)?)?.header().stats;
            Some([s.wins, s.draws, s.losses])
        }
    }

    /// The file of a placing sector, opened on first use; `None` if missing or damaged.
    pub fn placing_table(&self, s: Sector) -> Option<&PlacingFile> {
        self.inner.placing_file(s)
    }

    /// The result under the rules for the side to move, in either phase: the rules' own ends
    /// first (no table asked), then the placing tables or the moving phase's with the
    /// position's 100-ply counter. `None` outside the tables.
    pub fn wdl(&self, pos: &Position) -> Option<Wdl> {
        if let Some(o) = pos.outcome() {
            return Some(match o.winner() {
                Some(c) if c == pos.side_to_move() => Wdl::Win,
                Some(_) => Wdl::Loss,
                None => Wdl::Draw,
            });
        }
        if pos.is_moving_phase() {
            // The W/D/L part alone (one byte), as Snapshot::probe_wdl reads it: the distance
            // block would cost microseconds.
            let us = pos.side_to_move();
            let (own, opp) = (pos.pieces(us), pos.pieces(us.other()));
            let (t, checked) =
                self.inner
                    .value_file(pos.rules(), own.count() as usize, opp.count() as usize)?;
            if !checked {
                // Its W/D/L byte alone is not checked yet: the value, checked, says it.
                let v = t.get(own.0, opp.0).ok()?;
                return Some(Probe::from_value(v, pos.rule50()).wdl.real());
            }
            return t.wdl(own.0, opp.0, pos.rule50());
        }
        let s = placing::sector_of(pos)?;
        let us = pos.side_to_move();
        let f = self.placing_table(s)?;
        let d = f.get(pos.pieces(us).0, pos.pieces(us.other()).0).ok()?;
        Some(placing::wdl_of_digit(d))
    }

    /// The value of `pos` for the side to move, in either phase: the moving phase's with its
    /// distance ([`Tablebase::probe`]), the placing phase's W/D/L only (`plies_to_mill` 0).
    /// `None` outside the tables, or where the game is over in the placing phase.
    pub fn probe_any(&self, pos: &Position) -> Option<Probe> {
        self.simulated_read();
        if pos.is_moving_phase() {
            return self.probe(pos);
        }
        if pos.outcome().is_some() {
            return None;
        }
        self.wdl(pos).map(placing_probe)
    }

    /// The value of legal move `m` for the side making it: in the moving phase the stored
    /// value one ply back (a mill resets the distance), with the position's counter; in the
    /// placing phase the child's W/D/L ([`Tablebase::wdl`]) flipped. `None` where the child is
    /// outside the tables (or its file or block is damaged).
    pub fn probe_move(&self, pos: &Position, m: Move) -> Option<Probe> {
        self.simulated_read();
        let mut child = *pos;
        child.make(m);
        if !pos.is_moving_phase() {
            return self.wdl(&child).map(|w| placing_probe(w.flip()));
        }
        let cv = self.value(&child)?;
        let v = if m.removal().is_some() {
            Value::after_mill(cv)
        } else {
            cv.parent()
        };
        Some(Probe::from_value(v, pos.rule50()))
    }

    /// Asks the kernel to read ahead what the probes of every move of `pos` will touch (the
    /// children's blocks), without waiting for it, so that a cold root's reads overlap instead
    /// of following one another. Opens the children's files if need be (that part waits).
    pub fn prefetch_children(&self, pos: &Position) {
        for &m in pos.legal_moves().iter() {
            let mut child = *pos;
            child.make(m);
            if child.outcome().is_some() {
                continue;
            }
            let us = child.side_to_move();
            let (own, opp) = (child.pieces(us), child.pieces(us.other()));
            if child.is_moving_phase() {
                let rules = child.rules();
                let file = self
                    .inner
                    .value_file(rules, own.count() as usize, opp.count() as usize);
                if let Some((t, _)) = file {
                    // A moving root reads its children's distances, a placing one their W/D/L.
                    t.prefetch(t.index().index(own.0, opp.0), pos.is_moving_phase());
                }
            } else if let Some(f) = placing::sector_of(&child).and_then(|s| self.placing_table(s)) {
                f.prefetch(f.slot(own.0, opp.0));
            }
        }
    }

    /// Tells the background check of the files ([`Tablebase::preload`]) that a search runs
    /// (`true`) or not: while one does, the check reads slowly, so as not to take the disk and
    /// the memory from the search.
    pub fn set_busy(&self, busy: bool) {
        self.inner.busy.store(busy, Ordering::Relaxed);
    }

    /// Makes every [`Tablebase::probe_any`] and [`Tablebase::probe_move`] take at least `d`
    /// longer, as a slow or cold disk would: for tests of the engine's deadlines.
    #[doc(hidden)]
    pub fn simulate_slow_reads(&self, d: std::time::Duration) {
        self.inner
            .read_delay_us
            .store(d.as_micros() as u64, Ordering::Relaxed);
    }

    /// Makes the files not opened yet behave as while [`Tablebase::preload`] runs and has
    /// not got to them (`true`), or as after it: for tests of what a young engine knows.
    #[doc(hidden)]
    pub fn simulate_preloading(&self, on: bool) {
        self.inner.preloading.store(on, Ordering::Release);
    }

    fn simulated_read(&self) {
        let us = self.inner.read_delay_us.load(Ordering::Relaxed);
        if us > 0 {
            std::thread::sleep(std::time::Duration::from_micros(us));
        }
    }

    /// Every legal move's value and the best move; `None` if the game is over here or some
    /// move leads outside the available tables. The best move is the fastest win, else a draw
    /// (in the placing phase, where values have no distance, the first in the generator's
    /// order), else the slowest loss.
    pub fn probe_root(&self, pos: &Position) -> Option<RootProbe> {
        if pos.outcome().is_some() && !pos.is_moving_phase() {
            return None;
        }
        let mut moves = Vec::new();
        for &m in pos.legal_moves().iter() {
            moves.push((m, self.probe_move(pos, m)?));
        }
        // Stable sort: among equals the move generator's order decides.
        if pos.is_moving_phase() {
            moves.sort_by_key(|&(_, p)| std::cmp::Reverse(p.value));
        } else {
            moves.sort_by_key(|&(_, p)| std::cmp::Reverse(p.wdl));
        }
        let &(best, _) = moves.first()?;
        let probe = if pos.is_moving_phase() {
            Probe::from_value(moves[0].1.value, pos.rule50())
        } else {
            moves[0].1
        };
        Some(RootProbe { best, probe, moves })
    }
}

/// Lowers the calling thread's priority (Linux: nice 10, a tenth of a normal thread's share
/// of a busy core): the check of the big files (seconds of checksums) must not take much time
/// from the searches of a game that starts meanwhile, yet it must end, because until it does
/// it keeps reading and the roots in its files wait for it. (At idle priority it starved under
/// two games on two cores, and on a small machine its reads went on evicting the engine's own
/// pages for the whole match.)
fn yield_to_searches() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid has no preconditions; setpriority on one thread of this process.
        let r = unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, 10)
        };
        if r != 0 {
            log::debug!(
                "table preload at normal priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// A placing-phase W/D/L as a probe without a distance.
fn placing_probe(w: Wdl) -> Probe {
    let value = match w {
        Wdl::Win => Value::Win(0),
        Wdl::Loss => Value::Loss(0),
        _ => Value::Draw,
    };
    Probe {
        wdl: w,
        plies_to_mill: 0,
        value,
    }
}
