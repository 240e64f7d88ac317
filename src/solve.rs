//! An exact solver for the placing phase: win, draw or loss under best play, down to the
//! moving-phase endgame tables.
//!
//! # What it computes
//!
//! The placing phase is a finite game tree: every ply puts a piece from a hand on the board, so
//! the moving phase begins after exactly as many plies as there are pieces in hand, and no
//! position can repeat on the way (the hands shrink). Its leaves are the first positions of the
//! moving phase, where the tables ([`crate::tablebase`]) know the exact result under our rules,
//! the 100-ply rule included (its counter is 0 there). So a minimax over the placing tree with
//! table values at its leaves is the game's true value; nothing is estimated.
//!
//! # Why null windows
//!
//! Values are only -1, 0 and 1. [`Solver::solve`] asks two yes/no questions, each an
//! alpha-beta search with a window one step wide: first "does the side to move get at least a
//! draw?", then, only if so, "does it win?". A null-window node stops at the first move that
//! answers its question, so most nodes look at one or two moves; a full window would keep
//! searching a node after a draw is found, looking for a win. The first question is the cheap one
//! in mill positions (draws are common and one drawing move suffices), and its bounds stay in
//! the transposition table to prune the second.
//!
//! # What the transposition table stores
//!
//! A flat array of 64-byte buckets of four entries, its size fixed at creation
//! ([`Solver::new`]'s `hash_mb`). An entry holds an exact key: the smallest
//! [`Position::repetition_key`] (board, side to move, hands: collision free, and in the placing
//! phase the whole state, since the 100-ply counter is 0 and no history matters) among the
//! position's 16 images under the board's symmetries, which share one value; a lower and an
//! upper bound on the value; the move that last proved a bound, in the key's orientation (tried
//! first next time); and the log2 of the nodes its subtree took. The symmetric key costs 15
//! set images a node and saved a factor of 3.6 in nodes on a position 4 plies into nine
//! (50 M instead of 184 M nodes, 25 s instead of 75 s). Bounds are facts about the position, independent of the path and of the
//! window that found them, so a second bound for the same key is merged with the first
//! (the larger lower bound, the smaller upper bound) and entries stay valid from one solve to
//! the next. A new key takes a bucket's free entry, else the entry whose subtree was cheapest
//! to compute.
//!
//! # Checkpoints
//!
//! [`Solver::save_checkpoint`] writes the entries whose subtrees took at least 2^10 nodes
//! (key, bounds, move: 13 bytes each, FNV-1a checksum at the end); loading them into a fresh
//! solver is sound because bounds are path independent, and a resumed solve then skips every
//! big subtree already proven. The same file serves as an opening book: the engine loads it
//! into its own solver (`BookPath`), so positions it covers are answered at once.
//!
//! # The tables' edge
//!
//! A moving-phase position is valued by [`Snapshot::probe_wdl`]; one that the rules already
//! decide ([`Position::outcome`]: no legal move, fewer than three pieces, the full board of
//! twelve) needs no table. If the directory lacks the sub-space of a leaf the search reaches,
//! the solve stops with [`SolveError::MissingTable`], naming the sub-space: the solver never
//! guesses. (Alpha-beta might have cut that leaf off with another move order; the error is
//! reported whenever the search actually needs the leaf, so whether a position near the edge
//! is decided can depend on the table's size and on what earlier solves left in it, but a
//! value, when given, is always exact.)
//!
//! ```no_run
//! use millstone::solve::Solver;
//! use millstone::tablebase::Tablebase;
//! use millstone::{Position, Rules};
//! let tb = Tablebase::open("tables").unwrap();
//! let rules = Rules::default();
//! let mut solver = Solver::new(&tb, rules, 64).unwrap();
//! let pos = Position::from_fen("W../.../.../B....B/.../W../... w 2 2 0 8", rules).unwrap();
//! match solver.solve(&pos) {
//!     Ok(s) => println!("{:?} after {} nodes", s.value, s.nodes),
//!     Err(e) => println!("cannot decide: {e}"),
//! }
//! ```

use crate::moves::{Move, MAX_MOVES};
use crate::position::{Outcome, Position};
use crate::tablebase::symmetry::Symmetries;
use crate::tablebase::{file_name, Snapshot, Tablebase, Wdl};
use crate::types::{Rules, Variant};
use std::fmt;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often (at most) progress is reported.
const REPORT_EVERY: Duration = Duration::from_secs(3);

/// Largest table the solver accepts, in MiB.
pub const MAX_HASH_MB: usize = 1 << 20;

/// Why a position could not be solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// The search reached a moving-phase position whose sub-space has no (usable) table file.
    MissingTable {
        /// The rule set.
        rules: Rules,
        /// Pieces of the side to move at that leaf.
        own: u8,
        /// Pieces of the other side.
        opp: u8,
        /// The leaf, as a position string.
        fen: String,
    },
    /// The position is played under other rules than the solver's tables.
    WrongRules {
        /// The solver's rules.
        solver: Rules,
        /// The position's.
        position: Rules,
    },
    /// The transposition table could not be allocated.
    OutOfMemory {
        /// The size asked for, in MiB.
        hash_mb: usize,
    },
    /// The deadline of [`Solver::set_deadline`] passed first.
    OutOfTime,
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::MissingTable {
                rules,
                own,
                opp,
                fen,
            } => write!(
                f,
                "cannot decide: the tables lack sub-space {own}v{opp} of {rules} (file {}), \
                 needed for {fen}",
                file_name(*rules, *own, *opp)
            ),
            SolveError::WrongRules { solver, position } => write!(
                f,
                "the position is played under {position}, the solver's tables are {solver}"
            ),
            SolveError::OutOfMemory { hash_mb } => {
                write!(f, "cannot allocate a {hash_mb} MiB transposition table")
            }
            SolveError::OutOfTime => write!(f, "the deadline passed before the solve ended"),
        }
    }
}

impl std::error::Error for SolveError {}

/// A solved position.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The result for the side to move under best play: `Win`, `Draw` or `Loss`.
    pub value: Wdl,
    /// A move that keeps the value (for a loss, the first move searched); `None` when the game
    /// is already over or the position is in the moving phase (valued by the tables alone).
    pub best: Option<Move>,
    /// Nodes visited by this solve (positions entered, leaves included).
    pub nodes: u64,
    /// Table probes among them.
    pub probes: u64,
    /// Wall time.
    pub elapsed: Duration,
}

impl Solved {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// What the progress callback gets now and then.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Nodes since the solve (or [`Solver::keeping_moves`]) began.
    pub nodes: u64,
    /// Table probes since then.
    pub probes: u64,
    /// Time since then.
    pub elapsed: Duration,
    /// Transposition table entries in use, in permille.
    pub tt_fill: u32,
}

/// Transposition table counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TtStats {
    /// Entries in the table.
    pub capacity: u64,
    /// Entries holding a position.
    pub used: u64,
    /// Look-ups that found their position.
    pub hits: u64,
    /// Look-ups.
    pub probes: u64,
    /// Stores that evicted another position.
    pub replaced: u64,
}

/// A key no position has: [`Position::repetition_key`] uses 57 bits.
const EMPTY_KEY: u64 = u64::MAX;

#[derive(Clone, Copy)]
struct Entry {
    key: u64,
    /// `Move::to_u16`, 0 for none.
    mv: u16,
    lower: i8,
    upper: i8,
    /// log2 of the nodes the subtree took: what eviction weighs.
    work: u8,
}

const EMPTY_ENTRY: Entry = Entry {
    key: EMPTY_KEY,
    mv: 0,
    lower: -1,
    upper: 1,
    work: 0,
};

/// Four entries, one cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Bucket([Entry; 4]);

struct Table {
    buckets: Vec<Bucket>,
    stats: TtStats,
}

impl Table {
    fn with_buckets(n: usize) -> Option<Table> {
        let n = n.max(1);
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(n).ok()?;
        buckets.resize(n, Bucket([EMPTY_ENTRY; 4]));
        Some(Table {
            buckets,
            stats: TtStats {
                capacity: 4 * n as u64,
                ..TtStats::default()
            },
        })
    }

    /// The bucket of a key: the repetition key is a bit layout, not a hash, so it is mixed
    /// (splitmix64's finaliser) before the multiply-high maps it onto the buckets.
    #[inline(always)]
    fn bucket(&self, key: u64) -> usize {
        let mut z = key;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    fn clear(&mut self) {
        self.buckets.fill(Bucket([EMPTY_ENTRY; 4]));
        self.stats = TtStats {
            capacity: self.stats.capacity,
            ..TtStats::default()
        };
    }

    #[inline]
    fn probe(&mut self, key: u64) -> Option<Entry> {
        self.stats.probes += 1;
        let b = self.bucket(key);
        let e = self.buckets[b].0.iter().find(|e| e.key == key).copied();
        self.stats.hits += e.is_some() as u64;
        e
    }

    #[inline]
    fn store(&mut self, key: u64, lower: i8, upper: i8, mv: Option<Move>, work: u8) {
        let b = self.bucket(key);
        let bucket = &mut self.buckets[b].0;
        if let Some(e) = bucket.iter_mut().find(|e| e.key == key) {
            e.upper = e.upper.min(upper);
            debug_assert!(
                e.lower.max(lower) <= e.upper,
                "contradicting bounds for {key:#x}"
            );
            // The move must prove the entry's lower bound: a move that proved a weaker one
            // (from another window) does not replace it.
            if let Some(m) = mv.filter(|_| lower >= e.lower) {
                e.mv = m.to_u16();
            }
            e.lower = e.lower.max(lower);
            e.work = e.work.max(work);
            return;
        }
        let victim = bucket
            .iter_mut()
            .min_by_key(|e| {
                if e.key == EMPTY_KEY {
                    -1
                } else {
                    e.work as i32
                }
            })
            .expect("four entries");
        if victim.key == EMPTY_KEY {
            self.stats.used += 1;
        } else {
            self.stats.replaced += 1;
        }
        *victim = Entry {
            key,
            mv: mv.map_or(0, Move::to_u16),
            lower,
            upper,
            work,
        };
    }

    fn fill_permille(&self) -> u32 {
        (self.stats.used * 1000 / self.stats.capacity.max(1)) as u32
    }
}

/// The value of a game the rules have ended, for the side to move.
fn outcome_value(o: Outcome, pos: &Position) -> i8 {
    match o.winner() {
        None => 0,
        Some(w) if w == pos.side_to_move() => 1,
        Some(_) => -1,
    }
}

fn to_wdl(v: i8) -> Wdl {
    match v {
        1 => Wdl::Win,
        0 => Wdl::Draw,
        _ => Wdl::Loss,
    }
}

fn from_wdl(w: Wdl) -> i8 {
    match w.real() {
        Wdl::Win => 1,
        Wdl::Loss => -1,
        _ => 0,
    }
}

/// Ordering weights: the table's move, then mills (taking a piece that threatens a mill
/// first), then blocks of the opponent's mills-to-be, then moves that make a threat of our
/// own; the point's mobility breaks ties.
const ORDER_TT: i32 = 1 << 20;
const ORDER_MILL: i32 = 1 << 12;
const ORDER_TAKES_THREAT: i32 = 1 << 10;
const ORDER_BLOCK: i32 = 1 << 8;
const ORDER_THREAT: i32 = 1 << 5;

/// The exact solver. Single-threaded; its table lives as long as it does, so solving many
/// positions of one game with one solver reuses everything already proven.
pub struct Solver<'a> {
    tables: Snapshot,
    rules: Rules,
    tt: Table,
    nodes: u64,
    probes: u64,
    start: Instant,
    last_report: Instant,
    report_every: Duration,
    progress: Option<ProgressFn<'a>>,
    deadline: Option<Instant>,
    stop: Option<Arc<AtomicBool>>,
    /// The board's symmetries when the table's keys are reduced by them (see
    /// [`Solver::set_symmetry`]).
    symmetry: Option<&'static Symmetries>,
    checkpoint: Option<Checkpointing>,
}

/// Where and how often [`Solver::set_checkpoint`] saves.
struct Checkpointing {
    path: PathBuf,
    every: Duration,
    last: Instant,
}

/// Entries of at least 2^10 nodes go into a checkpoint: a resumed run repeats the small
/// subtrees, which is cheap, and the file stays a small fraction of the table.
pub const CHECKPOINT_MIN_WORK: u8 = 10;

const CHECKPOINT_MAGIC: &[u8; 8] = b"MSSOLVE1";

/// Bytes of one checkpoint entry: key (8), move (2), lower and upper bound, work.
const CHECKPOINT_RECORD: usize = 13;

fn decode_record(rec: &[u8]) -> (u64, Option<Move>, i8, i8, u8) {
    let key = u64::from_le_bytes(rec[..8].try_into().expect("8 bytes"));
    let mv = Move::from_u16(u16::from_le_bytes([rec[8], rec[9]]));
    (key, mv, rec[10] as i8, rec[11] as i8, rec[12])
}

/// The proven bounds of a checkpoint or book file ([`Solver::save_checkpoint`]), checked and
/// held in memory, ready to go into any number of solvers ([`Solver::absorb`]).
pub struct Checkpoint {
    rules: Rules,
    symmetric: bool,
    records: Vec<u8>,
}

impl Checkpoint {
    /// Reads and checks a file: its checksum, its header and every entry's bounds. A damaged,
    /// truncated or foreign file is an error that says which.
    pub fn read(path: &Path) -> io::Result<Checkpoint> {
        let bad = |why: &str| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {why}", path.display()),
            )
        };
        let mut bytes = Vec::new();
        std::fs::File::open(path)?.read_to_end(&mut bytes)?;
        let head = CHECKPOINT_MAGIC.len() + 4;
        if bytes.len() < head + 8 || bytes[..CHECKPOINT_MAGIC.len()] != CHECKPOINT_MAGIC[..] {
            return Err(bad("not a solver checkpoint or book"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let mut hash = Fnv::new();
        hash.update(body);
        if hash.0.to_le_bytes() != sum {
            return Err(bad("checksum mismatch (damaged or truncated)"));
        }
        let h = &body[CHECKPOINT_MAGIC.len()..head];
        let variant = match h[0] {
            0 => Variant::Nine,
            1 => Variant::Twelve,
            _ => return Err(bad("unknown variant")),
        };
        if h[1] > 1 || h[2] > 1 {
            return Err(bad("bad header"));
        }
        let records = &body[head..];
        if records.len() % CHECKPOINT_RECORD != 0 {
            return Err(bad("truncated entry"));
        }
        for rec in records.chunks_exact(CHECKPOINT_RECORD) {
            let (_, _, lower, upper, _) = decode_record(rec);
            if !(-1..=1).contains(&lower) || !(lower..=1).contains(&upper) {
                return Err(bad("an entry with impossible bounds"));
            }
        }
        Ok(Checkpoint {
            rules: Rules::new(variant, h[1] == 1),
            symmetric: h[2] == 1,
            records: records.to_vec(),
        })
    }

    /// The rules it was written for.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Entries.
    pub fn len(&self) -> usize {
        self.records.len() / CHECKPOINT_RECORD
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// FNV-1a, 64 bits: the checkpoint's checksum (as the table files').
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The progress callback of [`Solver::set_progress`].
type ProgressFn<'a> = Box<dyn FnMut(&Progress) + Send + 'a>;

impl<'a> Solver<'a> {
    /// A solver for positions of `rules`, with the tables of `tb` and a transposition table of
    /// `hash_mb` MiB (at least one bucket).
    pub fn new(tb: &Tablebase, rules: Rules, hash_mb: usize) -> Result<Solver<'a>, SolveError> {
        if hash_mb > MAX_HASH_MB {
            return Err(SolveError::OutOfMemory { hash_mb });
        }
        let buckets = (hash_mb << 20) / std::mem::size_of::<Bucket>();
        Self::with_buckets(tb, rules, buckets).ok_or(SolveError::OutOfMemory { hash_mb })
    }

    /// A solver whose table holds `entries` positions (rounded up to a bucket of four): for
    /// tests of the replacement with tables far smaller than a tree.
    pub fn with_entries(tb: &Tablebase, rules: Rules, entries: usize) -> Solver<'a> {
        Self::with_buckets(tb, rules, entries.div_ceil(4)).expect("a small table")
    }

    fn with_buckets(tb: &Tablebase, rules: Rules, buckets: usize) -> Option<Solver<'a>> {
        let now = Instant::now();
        Some(Solver {
            tables: tb.snapshot(rules),
            rules,
            tt: Table::with_buckets(buckets)?,
            nodes: 0,
            probes: 0,
            start: now,
            last_report: now,
            report_every: REPORT_EVERY,
            progress: None,
            deadline: None,
            stop: None,
            symmetry: Some(Symmetries::of(rules.variant)),
            checkpoint: None,
        })
    }

    /// Whether the table's keys are reduced by the board's 16 symmetries (the default): a
    /// position and its mirror images share one entry, since symmetric positions have the same
    /// value. Off, every orientation is a key of its own, as the plain repetition key (tests
    /// compare the two; a checkpoint is only read back by a solver of the same setting). Clears
    /// the table.
    pub fn set_symmetry(&mut self, on: bool) {
        self.symmetry = on.then(|| Symmetries::of(self.rules.variant));
        self.tt.clear();
    }

    /// Saves the proven bounds of costly positions to `path` every `every` during solves (and
    /// at the end of each), so that a killed run resumes by [`Solver::load_checkpoint`].
    pub fn set_checkpoint(&mut self, path: &Path, every: Duration) {
        self.checkpoint = Some(Checkpointing {
            path: path.to_path_buf(),
            every,
            last: Instant::now(),
        });
    }

    /// Writes every entry whose subtree took at least 2^[`CHECKPOINT_MIN_WORK`] nodes: the
    /// work a resumed run would otherwise repeat, in a file of a few bytes per entry. Written to
    /// a temporary name and renamed, so a kill leaves the previous checkpoint whole.
    pub fn save_checkpoint(&self, path: &Path) -> io::Result<u64> {
        let tmp = path.with_extension("tmp");
        let mut out = BufWriter::new(std::fs::File::create(&tmp)?);
        let mut hash = Fnv::new();
        let mut header = Vec::from(&CHECKPOINT_MAGIC[..]);
        header.push((self.rules.variant == Variant::Twelve) as u8);
        header.push(self.rules.flying as u8);
        header.push(self.symmetry.is_some() as u8);
        header.push(0);
        out.write_all(&header)?;
        hash.update(&header);
        let mut n = 0u64;
        for b in &self.tt.buckets {
            for e in
                b.0.iter()
                    .filter(|e| e.key != EMPTY_KEY && e.work >= CHECKPOINT_MIN_WORK)
            {
                let mut rec = [0u8; CHECKPOINT_RECORD];
                rec[..8].copy_from_slice(&e.key.to_le_bytes());
                rec[8..10].copy_from_slice(&e.mv.to_le_bytes());
                rec[10] = e.lower as u8;
                rec[11] = e.upper as u8;
                rec[12] = e.work;
                out.write_all(&rec)?;
                hash.update(&rec);
                n += 1;
            }
        }
        out.write_all(&hash.0.to_le_bytes())?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(n)
    }

    /// Reads a checkpoint of [`Solver::save_checkpoint`] into the table; returns the entries
    /// read. A file of other rules or another symmetry setting, or a damaged one, is refused
    /// with an error and nothing of it is used.
    pub fn load_checkpoint(&mut self, path: &Path) -> io::Result<u64> {
        let c = Checkpoint::read(path)?;
        self.absorb(&c).map_err(|why| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {why}", path.display()),
            )
        })
    }

    /// Puts every entry of `c` into the table (they are facts, so they merge with what the
    /// table holds); returns how many. Refused when `c` is of other rules or keys.
    pub fn absorb(&mut self, c: &Checkpoint) -> Result<u64, String> {
        if c.rules != self.rules {
            return Err(format!(
                "written for other rules ({}, the solver's are {})",
                c.rules, self.rules
            ));
        }
        if c.symmetric != self.symmetry.is_some() {
            return Err("written with another symmetry setting".into());
        }
        for rec in c.records.chunks_exact(CHECKPOINT_RECORD) {
            let (key, mv, lower, upper, work) = decode_record(rec);
            self.tt.store(key, lower, upper, mv, work);
        }
        Ok(c.len() as u64)
    }

    /// Marks the table's entry of `pos` (if it has one) as costly, so that checkpoints keep it
    /// and replacement spares it: a book pins its positions and their children, whose bounds
    /// answer the engine's questions at the board however cheap they were to prove.
    pub fn pin(&mut self, pos: &Position) {
        let (key, _) = self.key(pos);
        let b = self.tt.bucket(key);
        if let Some(e) = self.tt.buckets[b].0.iter_mut().find(|e| e.key == key) {
            e.work = e.work.max(CHECKPOINT_MIN_WORK);
        }
    }

    /// What the table already holds about `pos` for the side to move: its bounds (each of
    /// -1 loss, 0 draw, 1 win) and the log2 of the nodes that proved them; `None` if nothing.
    pub fn known(&mut self, pos: &Position) -> Option<(i8, i8, u8)> {
        let (key, _) = self.key(pos);
        self.tt.probe(key).map(|e| (e.lower, e.upper, e.work))
    }

    /// What is proven about a placing position without searching: the best result the side
    /// to move is sure of, a draw or a win, and the moves proven to reach at least it (a child
    /// the game or the tables end, or whose bound in the solver's table says so); `None` when
    /// no move is proven to avoid a loss. For a solve cut short before the value: the engine
    /// then still never plays a move that gives a proven draw or win away (in the 1 s matches,
    /// each such miss had a book bound of at least a draw and a handful of moves proving it).
    pub fn proven_floor(&mut self, pos: &Position) -> Option<(Wdl, Vec<Move>)> {
        self.check_rules(pos).ok()?;
        if pos.is_moving_phase() || pos.outcome().is_some() {
            return None;
        }
        let mut floors: Vec<(Move, i8)> = Vec::new();
        for &m in pos.legal_moves().iter() {
            let mut child = *pos;
            child.make(m);
            // The child's upper bound for its mover, if one is proven.
            let upper = if let Some(o) = child.outcome() {
                Some(outcome_value(o, &child))
            } else if child.is_moving_phase() {
                self.leaf(&child).ok()
            } else {
                self.known(&child).map(|(_, upper, _)| upper)
            };
            if let Some(u) = upper {
                floors.push((m, -u));
            }
        }
        let best = floors.iter().map(|&(_, f)| f).max()?;
        if best < 0 {
            return None;
        }
        let moves = floors
            .into_iter()
            .filter(|&(_, f)| f == best)
            .map(|(m, _)| m)
            .collect();
        Some((to_wdl(best), moves))
    }

    /// The key the table files `pos` under: equal for two positions exactly when one is the
    /// other's image under a board symmetry (with [`Solver::set_symmetry`] on).
    pub fn class_key(&self, pos: &Position) -> u64 {
        self.key(pos).0
    }

    /// The table key of `pos` and the symmetry that maps `pos` onto the key's orientation.
    #[inline]
    fn key(&self, pos: &Position) -> (u64, u8) {
        match self.symmetry {
            Some(sym) => sym.class_key(pos),
            None => (pos.repetition_key(), 0),
        }
    }

    /// A move of the position in its own orientation, seen in the key's (symmetry `g`).
    fn canonical_move(&self, g: u8, m: Move) -> Move {
        match self.symmetry {
            Some(sym) => sym.map_move(g as usize, m),
            None => m,
        }
    }

    /// The inverse of [`Solver::canonical_move`].
    fn oriented(&self, g: u8, m: Move) -> Move {
        match self.symmetry {
            Some(sym) => sym.map_move(sym.inverse(g as usize), m),
            None => m,
        }
    }

    /// Calls `f` during a solve, at most once per `every` (checked every 4096 nodes), instead
    /// of the default log line (`log::info!` about every three seconds).
    pub fn set_progress(&mut self, every: Duration, f: impl FnMut(&Progress) + Send + 'a) {
        self.report_every = every;
        self.progress = Some(Box::new(f));
    }

    /// Solves end with [`SolveError::OutOfTime`] once `deadline` has passed (checked every 256
    /// nodes; what was proven stays in the table). `None`: no limit.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Solves also end with [`SolveError::OutOfTime`] once `stop` is set (checked as the
    /// deadline is): how the engine's `stop` reaches a solve.
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.stop = stop;
    }

    fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The rules of its positions.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Nodes of the last solve (or [`Solver::value_keeping`], [`Solver::keeping_moves`]).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The transposition table's counters, accumulated over every solve of this solver.
    pub fn tt_stats(&self) -> TtStats {
        self.tt.stats
    }

    /// The exact value of `pos` for the side to move.
    pub fn solve(&mut self, pos: &Position) -> Result<Solved, SolveError> {
        self.check_rules(pos)?;
        self.begin();
        let mut p = *pos;
        let (value, best) = self.value(&mut p)?;
        Ok(self.finish(value, best))
    }

    /// The exact value of `pos` and a move that keeps it, as [`Solver::solve`] gives them, but
    /// without saving the checkpoint at the end: for a caller that solves many positions and
    /// saves at its own pace (`mill-tb book --for`).
    pub fn value_and_best(&mut self, pos: &Position) -> Result<(Wdl, Option<Move>), SolveError> {
        self.check_rules(pos)?;
        self.begin();
        let mut p = *pos;
        let (value, best) = self.value(&mut p)?;
        Ok((to_wdl(value), best))
    }

    /// Every legal move with its exact value for the side making it, in move-generator order;
    /// the moves whose value equals the position's keep it. Empty when the game is over.
    pub fn keeping_moves(&mut self, pos: &Position) -> Result<Vec<(Move, Wdl)>, SolveError> {
        self.check_rules(pos)?;
        self.begin();
        let mut p = *pos;
        let mut out = Vec::new();
        if p.outcome().is_some() {
            return Ok(out);
        }
        for &m in pos.legal_moves().iter() {
            let undo = p.make(m);
            let r = self.value(&mut p);
            p.unmake(m, undo);
            out.push((m, to_wdl(-r?.0)));
        }
        Ok(out)
    }

    /// The exact value of `pos` and the moves that keep it: the solver's own move first, then
    /// the others in move-generator order (every move when the position is lost). Cheaper
    /// than [`Solver::keeping_moves`]: once the value is known, one null-window question per
    /// move decides whether it keeps it.
    pub fn value_keeping(&mut self, pos: &Position) -> Result<(Wdl, Vec<Move>), SolveError> {
        match self.value_keeping_partly(pos)? {
            (v, keep, true) => Ok((v, keep)),
            _ => Err(SolveError::OutOfTime),
        }
    }

    /// [`Solver::value_keeping`], but when the deadline (or stop) comes after the value and at
    /// least one keeping move are proven, the moves proven so far, with `false`: for the
    /// engine, which needs one proven move to play perfectly and more only to choose.
    pub fn value_keeping_partly(
        &mut self,
        pos: &Position,
    ) -> Result<(Wdl, Vec<Move>, bool), SolveError> {
        self.check_rules(pos)?;
        self.begin();
        let mut p = *pos;
        if let Some(o) = p.outcome() {
            return Ok((to_wdl(outcome_value(o, pos)), Vec::new(), true));
        }
        let (v, best) = self.value(&mut p)?;
        let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
        if v == -1 {
            return Ok((Wdl::Loss, moves, true));
        }
        // The solve's own move is checked first: it keeps the value, and its subtree was just
        // proven, so even a deadline right after the value leaves one proven move.
        if let Some(i) = best.and_then(|b| moves.iter().position(|&m| m == b)) {
            moves[..=i].rotate_right(1);
        }
        let mut keep = Vec::new();
        for m in moves {
            // The move keeps `v` iff the child's value is at most -v: a window just above it.
            let undo = p.make(m);
            let r = self.search(&mut p, -v, -v + 1);
            p.unmake(m, undo);
            match r {
                Ok((c, _)) if c <= -v => keep.push(m),
                Ok(_) => {}
                Err(SolveError::OutOfTime) if !keep.is_empty() => {
                    return Ok((to_wdl(v), keep, false))
                }
                Err(e) => return Err(e),
            }
        }
        Ok((to_wdl(v), keep, true))
    }

    fn check_rules(&self, pos: &Position) -> Result<(), SolveError> {
        if pos.rules() == self.rules {
            Ok(())
        } else {
            Err(SolveError::WrongRules {
                solver: self.rules,
                position: pos.rules(),
            })
        }
    }

    fn begin(&mut self) {
        self.nodes = 0;
        self.probes = 0;
        self.start = Instant::now();
        self.last_report = self.start;
    }

    /// Saves the checkpoint of [`Solver::set_checkpoint`]; a failure is logged, not fatal (the
    /// solve itself is still right, only a resume would lose the work since the last save).
    fn write_checkpoint(&mut self) {
        let Some(c) = &self.checkpoint else { return };
        let t = Instant::now();
        match self.save_checkpoint(&c.path) {
            Ok(n) => log::info!(
                "checkpoint: {n} entries to {} in {:.1}s",
                c.path.display(),
                t.elapsed().as_secs_f64()
            ),
            Err(e) => log::warn!("checkpoint {} not written: {e}", c.path.display()),
        }
        if let Some(c) = self.checkpoint.as_mut() {
            c.last = Instant::now();
        }
    }

    fn finish(&mut self, value: i8, best: Option<Move>) -> Solved {
        self.write_checkpoint();
        Solved {
            value: to_wdl(value),
            best,
            nodes: self.nodes,
            probes: self.probes,
            elapsed: self.start.elapsed(),
        }
    }

    /// The exact value by two null-window tests (see the module docs), and a move keeping it.
    fn value(&mut self, pos: &mut Position) -> Result<(i8, Option<Move>), SolveError> {
        let (v, m) = self.search(pos, -1, 0)?;
        if v < 0 {
            return Ok((-1, m));
        }
        let (w, wm) = self.search(pos, 0, 1)?;
        Ok(if w > 0 { (1, wm) } else { (0, m) })
    }

    /// Fail-soft alpha-beta: the result `v` is exact when `alpha < v < beta`, an upper bound on
    /// the true value when `v <= alpha` and a lower bound when `v >= beta`. With the move that
    /// reached `v` (none at leaves).
    fn search(
        &mut self,
        pos: &mut Position,
        mut alpha: i8,
        beta: i8,
    ) -> Result<(i8, Option<Move>), SolveError> {
        self.nodes += 1;
        if self.nodes & 0xff == 0 && self.out_of_time() {
            return Err(SolveError::OutOfTime);
        }
        if self.nodes & 0xfff == 0 {
            self.report();
        }
        if let Some(o) = pos.outcome() {
            return Ok((outcome_value(o, pos), None));
        }
        if pos.is_moving_phase() {
            return self.leaf(pos).map(|v| (v, None));
        }
        let (key, g) = self.key(pos);
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(key) {
            tt_move = Move::from_u16(e.mv).map(|m| self.oriented(g, m));
            if e.lower >= beta || e.lower == e.upper {
                return Ok((e.lower, tt_move));
            }
            if e.upper <= alpha {
                return Ok((e.upper, tt_move));
            }
        }
        let alpha0 = alpha;
        let nodes0 = self.nodes;
        let mut moves = pos.legal_moves();
        let mut scores = [0i32; MAX_MOVES];
        order(pos, moves.as_slice(), &mut scores, tt_move);
        let mut best = i8::MIN;
        let mut best_move = None;
        let n = moves.len();
        for i in 0..n {
            crate::search::ordering::pick(moves.as_mut_slice(), &mut scores[..n], i);
            let m = moves[i];
            let undo = pos.make(m);
            let r = self.search(pos, -beta, -alpha);
            pos.unmake(m, undo);
            let v = -r?.0;
            if v > best {
                best = v;
                best_move = Some(m);
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        // Outcome is None, so there was a move and `best` is a value.
        let (lower, upper, proven) = if best <= alpha0 {
            (-1, best, None)
        } else if best >= beta {
            (best, 1, best_move)
        } else {
            (best, best, best_move)
        };
        let work = 64 - (self.nodes - nodes0).leading_zeros() as u8;
        let proven = proven.map(|m| self.canonical_move(g, m));
        self.tt.store(key, lower, upper, proven, work);
        Ok((best, best_move))
    }

    /// A moving-phase position the rules have not decided: the tables' value.
    #[inline]
    fn leaf(&mut self, pos: &Position) -> Result<i8, SolveError> {
        self.probes += 1;
        match self.tables.probe_wdl(pos) {
            Some(w) => Ok(from_wdl(w)),
            None => {
                let us = pos.side_to_move();
                Err(SolveError::MissingTable {
                    rules: self.rules,
                    own: pos.pieces(us).count() as u8,
                    opp: pos.pieces(us.other()).count() as u8,
                    fen: pos.to_fen(),
                })
            }
        }
    }

    fn report(&mut self) {
        let now = Instant::now();
        if let Some(c) = &self.checkpoint {
            if now.duration_since(c.last) >= c.every {
                self.write_checkpoint();
            }
        }
        if now.duration_since(self.last_report) < self.report_every {
            return;
        }
        self.last_report = now;
        let p = Progress {
            nodes: self.nodes,
            probes: self.probes,
            elapsed: now.duration_since(self.start),
            tt_fill: self.tt.fill_permille(),
        };
        match self.progress.as_mut() {
            Some(f) => f(&p),
            None => log::info!(
                "solve: {} nodes, {} probes, {:.0} nodes/s, table {}‰ full",
                p.nodes,
                p.probes,
                p.nodes as f64 / p.elapsed.as_secs_f64().max(1e-9),
                p.tt_fill
            ),
        }
    }
}

/// Scores `moves` for [`crate::search::ordering::pick`]: higher first.
fn order(pos: &Position, moves: &[Move], scores: &mut [i32], tt_move: Option<Move>) {
    let topo = pos.topology();
    let us = pos.side_to_move();
    let own = pos.pieces(us).0;
    let opp = pos.pieces(us.other()).0;
    let empty = pos.empty().0;
    // The opponent's lines of two with the third point free: landing there blocks a mill,
    // taking one of their pieces breaks it.
    let mut opp_threats = 0;
    let mut opp_threat_pieces = 0;
    for &line in topo.lines() {
        if (opp & line).count_ones() == 2 && line & empty != 0 {
            opp_threats |= line & empty;
            opp_threat_pieces |= line & opp;
        }
    }
    for (m, s) in moves.iter().zip(scores.iter_mut()) {
        if Some(*m) == tt_move {
            *s = ORDER_TT;
            continue;
        }
        let to = m.to();
        let rest = m.from().map_or(own, |f| own & !(1 << f.index()));
        let mut score = topo.adjacent[to.index()].count() as i32;
        if let Some(r) = m.removal() {
            score += ORDER_MILL;
            if opp_threat_pieces & (1 << r.index()) != 0 {
                score += ORDER_TAKES_THREAT;
            }
        }
        if opp_threats & (1 << to.index()) != 0 {
            score += ORDER_BLOCK;
        }
        for &line in &topo.lines_through[to.index()] {
            // Padding masks use a bit above the board, so they never count as two-and-a-gap.
            if (rest & line).count_ones() == 1 && (empty & line).count_ones() == 2 {
                score += ORDER_THREAT;
            }
        }
        *s = score;
    }
}
