//! The search: iterative deepening over a principal-variation alpha-beta with aspiration
//! windows, a quiescence search on mill closures, a shared transposition table, and Lazy SMP
//! across threads.
//!
//! The search never prints: the main thread hands each finished iteration to a reporter
//! callback as an [`Info`], and the caller formats it.

pub mod ordering;

use crate::eval::evaluate;
use crate::game::Game;
use crate::movegen;
use crate::moves::{Move, MoveList, MAX_MOVES};
use crate::nnue::{Accumulator, Network};
use crate::position::{Position, HUNDRED_PLIES};
use crate::tablebase::{Snapshot, Symmetries, Wdl};
use crate::timeman::{self, Clock, TimeBudget};
use crate::tt::{Bound, TranspositionTable};
use crate::types::Variant;
use ordering::{history_index, pick, score_move, OrderContext, HISTORY_SIZE};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The score of a won position at the root; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 32000;
/// Scores beyond this (in absolute value) are forced wins or losses.
pub const MATE_BOUND: i32 = MATE - 1000;
/// Above every score.
pub const INFINITE: i32 = MATE + 1;
/// A won endgame-table position scores `TB_WIN - P`: at a covered root P is the tables' exact
/// distance to the next mill, inside the tree the ply at which the search reached the table
/// (the tree reads only the W/D/L part). The tables know that the win is certain under the
/// rules but not how many moves it takes, so these scores stay below the mate range: the
/// protocol shows them as `cp` values of [`TB_BOUND`] and more, which no GUI can take for a
/// mate distance, and which are above every evaluation.
pub const TB_WIN: i32 = 20000;
/// Scores beyond this (in absolute value) and below [`MATE_BOUND`] are endgame-table wins or
/// losses: the next mill is at most 100 plies away and the search at most `MAX_PLY` deep.
pub const TB_BOUND: i32 = TB_WIN - 1000;
/// Nodes at least this deep without a table move are searched one ply shallower.
const IIR_DEPTH: i32 = 4;
/// Reverse futility pruning: the deepest remaining depth it applies at, and its margin a ply.
const RFP_DEPTH: i32 = 3;
const RFP_MARGIN: i32 = 120;
/// Singular extensions: from this depth on, a table move whose score no other move comes
/// within `SE_MARGIN` a ply of is searched one ply deeper.
const SE_DEPTH: i32 = 6;
const SE_MARGIN: i32 = 2;
/// The deepest ply the search reaches.
pub const MAX_PLY: usize = 128;
/// The deepest iteration.
pub const MAX_DEPTH: i32 = 100;

/// A bijective 64-bit mixer (SplitMix64's finaliser): the class keys are exact but dense in a
/// few bits, and the table picks its bucket from the key's high bits.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A score as the protocol shows it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipieces from the side to move's view.
    Cp(i32),
    /// A forced win (positive) or loss (negative) in this many full moves.
    Mate(i32),
}

impl Score {
    /// Converts an internal score.
    pub fn from_internal(s: i32) -> Score {
        if s >= MATE_BOUND {
            Score::Mate((MATE - s + 1) / 2)
        } else if s <= -MATE_BOUND {
            Score::Mate(-(MATE + s + 1) / 2)
        } else {
            Score::Cp(s)
        }
    }
}

/// Whether a score is decided (a forced win or loss, by the search or the tables), so that no
/// evaluation can change it.
#[inline]
pub fn is_decisive(s: i32) -> bool {
    s.abs() >= TB_BOUND
}

/// Win/draw/loss expectation in permille for a score, from the side to move's view.
///
/// Two logistic curves, for the win and the loss, placed so that the expected score
/// `win + draw/2` follows `1 / (1 + exp(-score/292))`, the curve that `mill-tune` fitted to
/// self-play results for the tuned evaluation, with about 45% draws at an even score.
pub fn wdl(score: i32) -> (u32, u32, u32) {
    const WDL_SHIFT: f64 = 225.0;
    const WDL_SCALE: f64 = 232.0;
    if score >= TB_BOUND {
        return (1000, 0, 0);
    }
    if score <= -TB_BOUND {
        return (0, 0, 1000);
    }
    let s = score as f64;
    let win = 1000.0 / (1.0 + (-(s - WDL_SHIFT) / WDL_SCALE).exp());
    let loss = 1000.0 / (1.0 + ((s + WDL_SHIFT) / WDL_SCALE).exp());
    let w = win.round() as u32;
    let l = loss.round() as u32;
    (w, 1000 - w - l, l)
}

/// What limits one search.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration.
    pub depth: Option<i32>,
    /// Stop after about this many nodes (checked every 1024 nodes).
    pub nodes: Option<u64>,
    /// The clock.
    pub clock: Clock,
    /// Search until stopped.
    pub infinite: bool,
    /// Only these root moves (all when empty).
    pub searchmoves: Vec<Move>,
    /// Number of principal variations to report.
    pub multipv: usize,
    /// Time kept back for communication per move.
    pub move_overhead: Duration,
    /// Pondering: no limit applies until the engine's `ponderhit` (the clock starts then).
    pub ponder: bool,
    /// Stop once a forced win in at most this many moves is found.
    pub mate: Option<u32>,
}

/// A finished iteration's line, for the reporter.
#[derive(Clone, Debug)]
pub struct Info {
    /// Iteration depth.
    pub depth: i32,
    /// Deepest ply reached.
    pub seldepth: i32,
    /// 1-based line number.
    pub multipv: usize,
    /// Internal score from the side to move's view.
    pub score: i32,
    /// Whether the score is exact or a bound.
    pub bound: Bound,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Table fill in permille.
    pub hashfull: u32,
    /// Time since the start.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// Endgame table hits.
    pub tbhits: u64,
    /// Whether the score is a proven result (the tables' or the solver's verdict on the root),
    /// so that its W/D/L is exact rather than the model's guess for a score.
    pub proven: bool,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move to play; `None` when the game is over.
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// Internal score of the best move.
    pub score: i32,
    /// Last completed depth.
    pub depth: i32,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// What all threads of one search share.
pub struct Shared<'a> {
    /// The table.
    pub tt: &'a TranspositionTable,
    /// Set to end the search.
    pub stop: &'a AtomicBool,
    /// Nodes of all threads, updated every 1024 nodes.
    pub nodes: AtomicU64,
    /// When the search began.
    pub start: Instant,
    /// The time budget, if the clock sets one.
    pub budget: Option<TimeBudget>,
    /// The node limit.
    pub node_limit: Option<u64>,
    /// Endgame tables, if any.
    pub tb: Option<&'a Snapshot>,
    /// The root is a proven draw whose drawing moves the search chooses among (`UltraStrong`):
    /// a table's draw in the tree is searched on instead of scored 0, so that the choice rests
    /// on the evaluation of where each draw leads however many of the tables' pages are in
    /// memory; a table's win or loss still ends its line.
    pub search_draws: bool,
    /// Table hits of all threads, updated with the node count.
    pub tbhits: AtomicU64,
    /// Set while the search ponders: limits wait until it is cleared by `ponderhit`.
    pub pondering: &'a AtomicBool,
    /// Microseconds after `start` at which the clock began (the `ponderhit`; 0 otherwise).
    pub clock_origin_us: &'a AtomicU64,
    /// The learned evaluation, if the search uses it (it must be the position's variant's);
    /// `None` for the hand-tuned one.
    pub net: Option<&'a Network>,
    /// What a draw by a repetition or the 100-ply rule costs the side to move at the root, in
    /// centipieces: with it the search steers away from a drawn line while it has one it
    /// scores no worse than the draw less this, and the opponent keeps chances to go wrong.
    /// The tables' proven draws and twelve's full board keep 0.
    pub contempt: i32,
}

impl Shared<'_> {
    /// Time on the clock since it began, or `None` while pondering.
    #[inline]
    pub fn clock_elapsed(&self) -> Option<Duration> {
        if self.pondering.load(Ordering::Relaxed) {
            return None;
        }
        let origin = Duration::from_micros(self.clock_origin_us.load(Ordering::Relaxed));
        Some(self.start.elapsed().saturating_sub(origin))
    }
}

/// Converts a score to the table's form: win/loss distances from this node instead of the root.
#[inline]
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= TB_BOUND {
        s + ply as i32
    } else if s <= -TB_BOUND {
        s - ply as i32
    } else {
        s
    }
}

#[inline]
fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= TB_BOUND {
        s - ply as i32
    } else if s <= -TB_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// Per-ply move storage, allocated once per search thread so nodes do not clear kilobytes of
/// stack each time.
struct Frame {
    moves: MoveList,
    scores: [i32; MAX_MOVES],
}

impl Frame {
    fn new() -> Frame {
        Frame {
            moves: MoveList::new(),
            scores: [0; MAX_MOVES],
        }
    }

    /// Brings the best-scored of the moves from `i` on to `i` and returns it.
    #[inline]
    fn pick(&mut self, i: usize) -> Move {
        let n = self.moves.len();
        pick(self.moves.as_mut_slice(), &mut self.scores[..n], i);
        self.moves[i]
    }
}

#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    score: i32,
    prev_score: i32,
    pv: Vec<Move>,
    seldepth: i32,
    bound: Bound,
}

/// Late-move reduction by depth and move number.
fn lmr_table() -> Box<[[i32; 64]; 64]> {
    let mut t = Box::new([[0; 64]; 64]);
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (0.5 + (d as f64).ln() * (m as f64).ln() / 2.2) as i32;
        }
    }
    t
}

/// One thread's search state.
pub struct Searcher<'a> {
    sh: &'a Shared<'a>,
    id: usize,
    pos: Position,
    /// Zobrist keys of the game so far and of the search path; the last is the current node's.
    keys: Vec<u64>,
    nodes: u64,
    unflushed: u64,
    tbhits: u64,
    seldepth: usize,
    stopped: bool,
    killers: Vec<[Option<Move>; 2]>,
    /// The move a singular search leaves out at its ply (that node's table move).
    excluded: [Option<Move>; MAX_PLY + 2],
    /// The depth of the iteration under way: extensions stop at twice its plies.
    root_depth: i32,
    history: Box<[[i32; HISTORY_SIZE]; 2]>,
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    lmr: Box<[[i32; 64]; 64]>,
    root_moves: Vec<RootMove>,
    frames: Vec<Frame>,
    currmove: Option<&'a mut (dyn FnMut(i32, Move, usize) + Send)>,
    last_currmove: Option<Instant>,
    /// Sees each position the search evaluates (`mill-tb sample --distribution search`).
    evaluated: Option<&'a mut (dyn FnMut(&Position) + Send)>,
    /// The network's first-layer sums along the current path, when the search uses the
    /// network: entry `k` belongs to `acc_pos[k]`, the path's `k`-th position. A move only
    /// pushes its position; the sums are brought up to date when a node is evaluated, so the
    /// nodes that never are (table cut-offs, repetitions, cached evaluations) cost nothing.
    accs: Vec<Accumulator>,
    acc_pos: Vec<Position>,
    /// How many entries of `accs` from the bottom hold the sums of their position.
    acc_ready: usize,
    /// Evaluations by Zobrist key: placements reach the same position in many orders, and
    /// the network's dense layers are the largest part of a node's cost.
    eval_cache: Vec<(u64, i32, u16)>,
    /// Unsure-leaf extensions on the current path (at most [`UNSURE_EXTENSIONS`]).
    unsure_extended: u32,
    /// The board's symmetries: placing positions are filed in the transposition table by
    /// their symmetry class.
    sym: &'static Symmetries,
    /// The main thread's: how often the best move changed between iterations lately (each
    /// change counts one, halved every iteration), and the last iteration's best move and
    /// score: a clock move's time follows them ([`timeman::iteration_share`]).
    instability: f64,
    last_best: Option<(Move, i32)>,
}

/// The `Contempt` option's default, in centipieces: against Sanmill 7.4.6 it won 55 of 80
/// games where 0 won 43, and it changed nothing measurable against itself, the perfect engine
/// or, with the full board left at 0, in twelve (docs/nnue.md, "Contempt").
pub const DEFAULT_CONTEMPT: i32 = 50;

/// A horizon node where the network's likeliest result (win, draw or loss) has less than this
/// chance, in permille, is searched one ply more ...
const UNSURE_BELOW: u16 = 700;
/// ... at most this many times on a path. Without tables, at 80,000 nodes a move (about 100 ms),
/// the placing positions of `mill-tb keeprate` kept rose from 3959 of 4000 to 3967 (twice the
/// nodes keep 3967; five other settings 3962 to 3968); games between bare engines did not
/// change (docs/nnue.md, "Unsure leaves searched deeper").
const UNSURE_EXTENSIONS: u32 = 2;

/// Entries of a searcher's evaluation cache (a power of two; 16 bytes each, so 512 KiB,
/// about a second-level cache).
const EVAL_CACHE_SIZE: usize = 1 << 15;

impl<'a> Searcher<'a> {
    /// A searcher for thread `id` from the current position of `game`.
    pub fn new(sh: &'a Shared<'a>, id: usize, game: &Game, searchmoves: &[Move]) -> Self {
        let pos = *game.position();
        let mut accs = Vec::new();
        let mut acc_pos = Vec::new();
        let mut eval_cache = Vec::new();
        if let Some(net) = sh.net {
            debug_assert_eq!(net.variant, pos.variant());
            // The path holds at most MAX_PLY + 1 positions: no node is entered past MAX_PLY.
            accs = vec![Accumulator::new(net, &pos); MAX_PLY + 3];
            acc_pos.reserve(MAX_PLY + 3);
            acc_pos.push(pos);
            // An empty slot's key is 0: a position whose hash is 0 would read 0 from it, a
            // 2^-64 chance, as for any collision of the transposition table.
            eval_cache = vec![(0, 0, 0); EVAL_CACHE_SIZE];
        }
        let root_moves = game
            .legal_moves()
            .iter()
            .filter(|m| searchmoves.is_empty() || searchmoves.contains(m))
            .map(|&mv| RootMove {
                mv,
                score: -INFINITE,
                prev_score: -INFINITE,
                pv: vec![mv],
                seldepth: 0,
                bound: Bound::Upper,
            })
            .collect();
        Searcher {
            sh,
            id,
            pos,
            keys: game.hashes().to_vec(),
            nodes: 0,
            unflushed: 0,
            tbhits: 0,
            seldepth: 0,
            stopped: false,
            killers: vec![[None; 2]; MAX_PLY + 1],
            excluded: [None; MAX_PLY + 2],
            root_depth: 1,
            history: Box::new([[0; HISTORY_SIZE]; 2]),
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            lmr: lmr_table(),
            root_moves,
            frames: (0..=MAX_PLY + 1).map(|_| Frame::new()).collect(),
            currmove: None,
            last_currmove: None,
            evaluated: None,
            accs,
            acc_pos,
            acc_ready: 1,
            eval_cache,
            unsure_extended: 0,
            sym: Symmetries::of(pos.variant()),
            instability: 0.0,
            last_best: None,
        }
    }

    /// Reports `(depth, move, 1-based number)` as the root starts a move, once the search has
    /// run a second and at most once a second (GUIs show it in long searches).
    pub fn set_currmove_reporter(&mut self, f: &'a mut (dyn FnMut(i32, Move, usize) + Send)) {
        self.currmove = Some(f);
    }

    /// Shows `f` every position whose static evaluation the search computes (not those its
    /// evaluation cache answers): the positions the evaluation is asked about, to train it on.
    pub fn set_evaluation_observer(&mut self, f: &'a mut (dyn FnMut(&Position) + Send)) {
        self.evaluated = Some(f);
    }

    fn report_currmove(&mut self, depth: i32, i: usize) {
        const EVERY: Duration = Duration::from_secs(1);
        let Some(f) = self.currmove.as_mut() else {
            return;
        };
        let now = Instant::now();
        let due = match self.last_currmove {
            Some(t) => now.duration_since(t) >= EVERY,
            None => now.duration_since(self.sh.start) >= EVERY,
        };
        if due {
            self.last_currmove = Some(now);
            f(depth, self.root_moves[i].mv, i + 1);
        }
    }

    /// Nodes this thread searched.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Counts a node and, every 1024, publishes the count and checks the limits.
    #[inline]
    fn tick(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
        if self.unflushed >= 1024 {
            let total = self.sh.nodes.fetch_add(self.unflushed, Ordering::Relaxed) + self.unflushed;
            self.unflushed = 0;
            if self.tbhits > 0 {
                self.sh.tbhits.fetch_add(self.tbhits, Ordering::Relaxed);
                self.tbhits = 0;
            }
            if self.is_main() {
                let clock = self.sh.clock_elapsed();
                let over_nodes = clock.is_some() && self.sh.node_limit.is_some_and(|n| total >= n);
                let over_time = match (self.sh.budget, clock) {
                    (Some(b), Some(t)) => t >= b.hard,
                    _ => false,
                };
                if over_nodes || over_time {
                    self.sh.stop.store(true, Ordering::Relaxed);
                }
            }
            if self.sh.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            }
        }
    }

    fn flush_nodes(&mut self) {
        self.sh.nodes.fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
        self.sh.tbhits.fetch_add(self.tbhits, Ordering::Relaxed);
        self.tbhits = 0;
    }

    /// Whether the current node repeats a position since the last irreversible move: scored as
    /// a draw, because the side that could repeat once can repeat again.
    #[inline]
    fn is_repetition(&self) -> bool {
        let n = self.keys.len() - 1;
        let cur = self.keys[n];
        let back = (self.pos.rule50() as usize).min(n);
        let mut i = 2;
        while i <= back {
            if self.keys[n - i] == cur {
                return true;
            }
            i += 2;
        }
        false
    }

    #[inline]
    fn make(&mut self, m: Move) -> crate::position::Undo {
        let u = self.pos.make(m);
        // A placing position's entry is found by its class key, which costs too much to
        // compute for every child (most are only evaluated): no prefetch for those.
        if self.pos.is_moving_phase() {
            self.sh.tt.prefetch(self.pos.hash());
        }
        self.keys.push(self.pos.hash());
        if self.sh.net.is_some() {
            self.acc_pos.push(self.pos);
        }
        u
    }

    #[inline]
    fn unmake(&mut self, m: Move, u: crate::position::Undo) {
        self.keys.pop();
        if self.sh.net.is_some() {
            self.acc_pos.pop();
            self.acc_ready = self.acc_ready.min(self.acc_pos.len());
        }
        self.pos.unmake(m, u);
    }

    /// The static evaluation of the current node from the side to move's view: the network's
    /// when the search has one, else the hand-tuned terms.
    #[inline]
    fn evaluate(&mut self) -> i32 {
        self.evaluate_sure().0
    }

    /// The evaluation, and the chance of the network's likeliest result in permille (1000 for
    /// the hand-tuned terms, which never ask for more depth).
    fn evaluate_sure(&mut self) -> (i32, u16) {
        let Some(net) = self.sh.net else {
            if let Some(f) = self.evaluated.as_mut() {
                f(&self.pos);
            }
            return (evaluate(&self.pos), 1000);
        };
        let key = self.pos.hash();
        let slot = key as usize & (EVAL_CACHE_SIZE - 1);
        let (k, e, sure) = self.eval_cache[slot];
        if k == key {
            return (e, sure);
        }
        if let Some(f) = self.evaluated.as_mut() {
            f(&self.pos);
        }
        let top = self.acc_pos.len() - 1;
        // The path's positions since the last ready entry, each from its parent's sums.
        for i in self.acc_ready..=top {
            let (done, rest) = self.accs.split_at_mut(i);
            rest[0].update_from(&done[i - 1], net, &self.acc_pos[i - 1], &self.acc_pos[i]);
        }
        self.acc_ready = top + 1;
        let logits = net.logits(&self.accs[top], &self.pos);
        let (e, sure) = crate::nnue::score_and_certainty(logits);
        self.eval_cache[slot] = (key, e, sure);
        (e, sure)
    }

    /// The node's transposition-table key and the symmetry that maps the node onto the key's
    /// orientation (in which the entry's move is stored). A placing position is filed by its
    /// class under the board's 16 symmetries: deep in the placing phase, where the pieces of
    /// the root and of its mirror images are all on the board, the mirror images of a
    /// position are reached as often as its transpositions. The moving phase keeps the
    /// incremental key: its repetitions make a node's score depend on its path anyway.
    #[inline]
    fn tt_key(&self) -> (u64, usize) {
        if self.pos.is_moving_phase() {
            return (self.pos.hash(), 0);
        }
        let (class, g) = self.sym.class_key(&self.pos);
        (mix64(class), g as usize)
    }

    /// A draw by the game's rules at `ply`, from the side to move's view: the root's side (to
    /// move at even plies; a null move counts a ply too) pays the contempt, its opponent gains it.
    #[inline]
    fn draw_score(&self, ply: usize) -> i32 {
        if ply.is_multiple_of(2) {
            -self.sh.contempt
        } else {
            self.sh.contempt
        }
    }

    /// Scores a position whose side to move cannot move or has too little material: a loss, or
    /// the twelve full-board draw. `None` while the game goes on.
    #[inline]
    fn terminal(&self, ply: usize) -> Option<i32> {
        let us = self.pos.side_to_move();
        if self.pos.material(us) < 3 {
            return Some(-MATE + ply as i32);
        }
        if !movegen::has_legal_move(&self.pos) {
            // The full board ends the placing phase, not a choice to stop playing on: priced
            // by the contempt, it cost the engine real positions to avoid (docs/nnue.md,
            // "Contempt").
            if self.pos.variant() == Variant::Twelve && self.pos.empty().is_empty() {
                return Some(0);
            }
            return Some(-MATE + ply as i32);
        }
        None
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = Some(m);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// What every node does first: count itself, clear its PV, and answer at once when the
    /// search is stopping (0, ignored by the callers) or the side to move has already lost.
    #[inline]
    fn enter(&mut self, ply: usize) -> Option<i32> {
        self.tick();
        self.pv_len[ply] = ply;
        if self.stopped {
            return Some(0);
        }
        self.seldepth = self.seldepth.max(ply);
        self.terminal(ply)
    }

    fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if let Some(s) = self.enter(ply) {
            return s;
        }
        if self.pos.rule50() >= HUNDRED_PLIES {
            return self.draw_score(ply);
        }
        let stand_pat = self.evaluate();
        if stand_pat >= beta || ply >= MAX_PLY {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let ctx = OrderContext::new(&self.pos);
        let side = self.pos.side_to_move().index();
        let frame = &mut self.frames[ply];
        frame.moves.clear();
        movegen::generate_mills(&self.pos, &mut frame.moves);
        let n = frame.moves.len();
        if n == 0 {
            return stand_pat;
        }
        for (i, &m) in frame.moves.iter().enumerate() {
            frame.scores[i] =
                score_move(&self.pos, &ctx, m, None, &[None, None], &self.history[side]);
        }
        let mut best = stand_pat;
        for i in 0..n {
            let m = self.frames[ply].pick(i);
            let u = self.make(m);
            let s = -self.qsearch(-beta, -alpha, ply + 1);
            self.unmake(m, u);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    self.update_pv(ply, m);
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn negamax(&mut self, mut alpha: i32, mut beta: i32, depth: i32, ply: usize) -> i32 {
        let pv_node = beta - alpha > 1;
        if depth <= 0 {
            // A leaf the network is unsure of gets one more ply: there a static guess is
            // least worth, and one ply often settles it.
            if self.unsure_extended < UNSURE_EXTENSIONS
                && self.sh.net.is_some()
                && ply < 2 * self.root_depth as usize
                && !self.stopped
                && self.pos.rule50() < HUNDRED_PLIES
                && self.evaluate_sure().1 < UNSURE_BELOW
            {
                self.unsure_extended += 1;
                let s = self.negamax(alpha, beta, 1, ply);
                self.unsure_extended -= 1;
                return s;
            }
            return self.qsearch(alpha, beta, ply);
        }
        if let Some(s) = self.enter(ply) {
            return s;
        }
        if self.pos.rule50() >= HUNDRED_PLIES || self.is_repetition() {
            return self.draw_score(ply);
        }
        if ply >= MAX_PLY {
            return self.evaluate();
        }
        // The tree reads the W/D/L part only (one byte); the distance to the next mill is the
        // root's business (probe_root), so table wins here score TB_WIN - ply.
        if let Some(wdl) = self.sh.tb.and_then(|tb| tb.probe_wdl(&self.pos)) {
            self.tbhits += 1;
            let win = TB_WIN - ply as i32;
            match wdl {
                Wdl::Win => return win,
                Wdl::Loss => return -win,
                _ if !self.sh.search_draws => return 0,
                _ => {}
            }
        }
        // A win found nearer the root cannot be improved on here.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        // A singular search shares its node's key but not its moves: it neither cuts off on
        // the table's entry nor stores one.
        let excluded = self.excluded[ply];
        let (key, g) = self.tt_key();
        let entry = self.sh.tt.probe(key);
        let tt_move = entry
            .and_then(|e| e.mv)
            .map(|m| self.sym.map_move(self.sym.inverse(g), m));
        if let Some(e) = entry.filter(|_| excluded.is_none()) {
            if !pv_node && e.depth >= depth {
                let s = score_from_tt(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                    Bound::None => false,
                };
                if usable {
                    return s;
                }
            }
        }
        // No table move this deep: the node was never searched well; a shallower look first
        // costs less and gives later visits a move (internal iterative reduction).
        let depth = if depth >= IIR_DEPTH && tt_move.is_none() && excluded.is_none() {
            depth - 1
        } else {
            depth
        };
        let static_eval = match entry {
            Some(e) if e.bound != Bound::None => e.eval,
            _ => self.evaluate(),
        };

        // Reverse futility: a frontier node whose static evaluation stands this far above beta
        // is not searched further (the margin grows with the depth left).
        if !pv_node
            && excluded.is_none()
            && depth <= RFP_DEPTH
            && !is_decisive(beta)
            && static_eval - RFP_MARGIN * depth >= beta
        {
            return static_eval;
        }

        // Null move, while placing only: a placement is almost never worse than passing, but
        // once pieces slide, blocked positions make zugzwang common.
        if !pv_node
            && excluded.is_none()
            && depth >= 3
            && self.pos.in_hand(self.pos.side_to_move()) > 0
            && static_eval >= beta
            && !is_decisive(beta)
        {
            let r = 2 + depth / 4;
            self.pos.toggle_side();
            self.keys.push(self.pos.hash());
            let s = -self.negamax(-beta, -beta + 1, depth - 1 - r, ply + 1);
            self.keys.pop();
            self.pos.toggle_side();
            if self.stopped {
                return 0;
            }
            if s >= beta {
                return if is_decisive(s) { beta } else { s };
            }
        }

        // Singular extension: when the table's move stands out (every other move fails low
        // against a bound a little below its score, searched at half the depth), that move's
        // line is forced and gets one ply more. When even the others reach beta, the node
        // fails high without its own search (multi-cut). Runs before this node's moves are
        // generated: the excluded search uses the same ply's frame.
        let mut tt_extension = 0;
        if let (Some(m), Some(e), None) = (tt_move, entry, excluded) {
            let tt_score = score_from_tt(e.score, ply);
            if depth >= SE_DEPTH
                && matches!(e.bound, Bound::Lower | Bound::Exact)
                && e.depth >= depth - 3
                && !is_decisive(tt_score)
                && (ply as i32) < 2 * self.root_depth
            {
                let singular_beta = tt_score - SE_MARGIN * depth;
                self.excluded[ply] = Some(m);
                let s = self.negamax(singular_beta - 1, singular_beta, (depth - 1) / 2, ply);
                self.excluded[ply] = None;
                if self.stopped {
                    return 0;
                }
                if s < singular_beta {
                    tt_extension = 1;
                } else if singular_beta >= beta && !is_decisive(s) {
                    return singular_beta;
                }
            }
        }

        let ctx = OrderContext::new(&self.pos);
        let side = self.pos.side_to_move().index();
        let killers = self.killers[ply];
        let frame = &mut self.frames[ply];
        frame.moves.clear();
        movegen::generate(&self.pos, &mut frame.moves);
        let n = frame.moves.len();
        for (i, &m) in frame.moves.iter().enumerate() {
            frame.scores[i] =
                score_move(&self.pos, &ctx, m, tt_move, &killers, &self.history[side]);
        }

        let orig_alpha = alpha;
        let mut best = -INFINITE;
        let mut best_move = None;
        let mut quiets_tried: [Option<Move>; 64] = [None; 64];
        let mut quiet_count = 0;
        for i in 0..n {
            let m = self.frames[ply].pick(i);
            if Some(m) == excluded {
                continue;
            }
            let order_score = self.frames[ply].scores[i];
            let is_mill = m.removal().is_some();
            let u = self.make(m);
            let new_depth = depth - 1 + if Some(m) == tt_move { tt_extension } else { 0 };
            let s = if i == 0 {
                -self.negamax(-beta, -alpha, new_depth, ply + 1)
            } else {
                let r = if depth >= 3 && i >= 3 && !is_mill && order_score < (1 << 20) {
                    let mut r = self.lmr[(depth as usize).min(63)][i.min(63)];
                    if pv_node {
                        r -= 1;
                    }
                    r.clamp(0, new_depth - 1)
                } else {
                    0
                };
                let mut s = -self.negamax(-alpha - 1, -alpha, new_depth - r, ply + 1);
                if s > alpha && r > 0 {
                    s = -self.negamax(-alpha - 1, -alpha, new_depth, ply + 1);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(-beta, -alpha, new_depth, ply + 1);
                }
                s
            };
            self.unmake(m, u);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if s >= beta {
                        if !is_mill {
                            self.reward_quiet(side, ply, m, depth, &quiets_tried[..quiet_count]);
                        }
                        break;
                    }
                }
            }
            if !is_mill && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = Some(m);
                quiet_count += 1;
            }
        }

        if excluded.is_some() {
            // With no move but the excluded one, the others fail low by definition.
            return if best == -INFINITE { alpha } else { best };
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > orig_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.sh.tt.store(
            key,
            best_move.or(tt_move).map(|m| self.sym.map_move(g, m)),
            score_to_tt(best, ply),
            static_eval,
            depth,
            bound,
        );
        best
    }

    /// A quiet move caused a cut-off: make it a killer and move history towards it and away
    /// from the quiet moves tried before it.
    fn reward_quiet(
        &mut self,
        side: usize,
        ply: usize,
        m: Move,
        depth: i32,
        tried: &[Option<Move>],
    ) {
        if self.killers[ply][0] != Some(m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(m);
        }
        let bonus = (depth * depth).min(400);
        let h = &mut self.history[side];
        let apply = |v: &mut i32, b: i32| *v += b - *v * b.abs() / 16384;
        apply(&mut h[history_index(m)], bonus * 32);
        for q in tried.iter().flatten() {
            apply(&mut h[history_index(*q)], -bonus * 32);
        }
    }

    /// Searches the root moves from `pv_idx` on with a window; returns the best score.
    fn search_root(&mut self, depth: i32, mut alpha: i32, beta: i32, pv_idx: usize) -> i32 {
        let mut best = -INFINITE;
        self.pv_len[0] = 0;
        for i in pv_idx..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            self.report_currmove(depth, i);
            self.seldepth = 0;
            let u = self.make(m);
            let s = if i == pv_idx {
                -self.negamax(-beta, -alpha, depth - 1, 1)
            } else {
                let mut s = -self.negamax(-alpha - 1, -alpha, depth - 1, 1);
                if s > alpha && s < beta {
                    s = -self.negamax(-beta, -alpha, depth - 1, 1);
                }
                s
            };
            self.unmake(m, u);
            if self.stopped {
                return best;
            }
            let rm = &mut self.root_moves[i];
            if i == pv_idx || s > alpha {
                rm.score = s;
                rm.seldepth = self.seldepth as i32;
                rm.bound = if s >= beta {
                    Bound::Lower
                } else if s <= alpha {
                    Bound::Upper
                } else {
                    Bound::Exact
                };
                rm.pv.clear();
                rm.pv.push(m);
                let len = self.pv_len[1];
                rm.pv.extend(self.pv[1][1..len].iter().flatten());
            } else {
                rm.score = -INFINITE;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    // Keep the new best first among the lines not yet fixed.
                    self.root_moves[pv_idx..=i].rotate_right(1);
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Iterative deepening. The main thread (id 0) reports each line through `report` and
    /// decides when to stop; helpers search the same tree through the shared table.
    pub fn iterate(&mut self, limits: &Limits, report: &mut dyn FnMut(&Info)) -> SearchResult {
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let multipv = limits.multipv.clamp(1, self.root_moves.len().max(1));
        let mut completed = 0;
        if self.root_moves.is_empty() {
            return SearchResult {
                best: None,
                ponder: None,
                score: 0,
                depth: 0,
                nodes: 0,
                pv: Vec::new(),
            };
        }
        let mut depth = 1;
        while depth <= max_depth {
            // Helpers skip some depths so that threads spread over different iterations.
            if !self.is_main() && depth > 1 && (depth + self.id as i32) % 3 == 0 {
                depth += 1;
                continue;
            }
            self.root_depth = depth;
            for rm in &mut self.root_moves {
                rm.prev_score = rm.score;
            }
            for pv_idx in 0..multipv {
                let prev = self.root_moves[pv_idx].prev_score;
                let mut delta = 30;
                let (mut alpha, mut beta) = if depth >= 4 && !is_decisive(prev) {
                    ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
                } else {
                    (-INFINITE, INFINITE)
                };
                loop {
                    let s = self.search_root(depth, alpha, beta, pv_idx);
                    // After a stop, unsearched moves still hold older, shallower scores: keep
                    // the order search_root left, which has the best move found so far first.
                    if self.stopped {
                        break;
                    }
                    self.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                    if s <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (s - delta).max(-INFINITE);
                    } else if s >= beta {
                        beta = (s + delta).min(INFINITE);
                    } else {
                        break;
                    }
                    delta += delta / 2;
                    if delta > 1000 {
                        alpha = -INFINITE;
                        beta = INFINITE;
                    }
                }
                if self.stopped {
                    break;
                }
                self.root_moves[..=pv_idx].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            }
            if self.is_main() && !self.stopped {
                self.flush_nodes();
                for line in 0..multipv {
                    let info = self.info(depth, line);
                    report(&info);
                }
            }
            if self.stopped {
                break;
            }
            completed = depth;
            if self.is_main() {
                let fall = self.note_best();
                if self.done_after_iteration(limits, depth, fall) {
                    break;
                }
            }
            depth += 1;
        }
        self.flush_nodes();
        // A stop cuts an iteration short: one more line, so that the last report shows the
        // move that will be played.
        if self.is_main() && self.stopped && self.root_moves[0].score > -INFINITE {
            let info = self.info(completed.max(1), 0);
            report(&info);
        }
        let best = &self.root_moves[0];
        SearchResult {
            best: Some(best.mv),
            ponder: best.pv.get(1).copied(),
            score: best.score,
            depth: completed,
            nodes: self.sh.nodes.load(Ordering::Relaxed),
            pv: best.pv.clone(),
        }
    }

    /// Records a finished iteration's best move and score for the clock's time use, and
    /// returns how far the score fell from the iteration before.
    fn note_best(&mut self) -> i32 {
        let (best, score) = (self.root_moves[0].mv, self.root_moves[0].score);
        let changed = self.last_best.is_some_and(|(mv, _)| mv != best);
        self.instability = self.instability / 2.0 + changed as u8 as f64;
        let fall = self.last_best.map_or(0, |(_, s)| s - score);
        self.last_best = Some((best, score));
        fall
    }

    /// Whether the main thread should start no new iteration after finishing `depth`. While
    /// pondering or searching without end, only `stop` ends the search (or `ponderhit`, which
    /// turns the limits on).
    fn done_after_iteration(&self, limits: &Limits, depth: i32, fall: i32) -> bool {
        let Some(elapsed) = self.sh.clock_elapsed() else {
            return false;
        };
        if limits.infinite {
            return false;
        }
        let best = self.root_moves[0].score;
        // A forced result within reach needs no deeper look.
        if best.abs() >= MATE_BOUND && MATE - best.abs() < depth {
            return true;
        }
        if let Some(n) = limits.mate {
            if best >= MATE_BOUND && (MATE - best + 1) / 2 <= n as i32 {
                return true;
            }
        }
        let Some(b) = self.sh.budget else {
            return false;
        };
        if self.root_moves.len() == 1 {
            return true;
        }
        // With a clock, an iteration started late would likely be cut off; a fixed move time
        // is meant to be used whole, and the hard limit ends the last iteration.
        let share = timeman::iteration_share(self.instability, fall);
        !b.fixed && elapsed >= b.soft.mul_f64(share)
    }

    fn info(&self, depth: i32, line: usize) -> Info {
        let rm = &self.root_moves[line];
        let time = self.sh.start.elapsed();
        let nodes = self.sh.nodes.load(Ordering::Relaxed);
        let nps = (nodes as f64 / time.as_secs_f64().max(1e-6)) as u64;
        Info {
            depth,
            seldepth: rm.seldepth.max(depth),
            multipv: line + 1,
            score: rm.score,
            bound: rm.bound,
            nodes,
            nps,
            hashfull: self.sh.tt.hashfull(),
            time,
            pv: rm.pv.clone(),
            tbhits: self.sh.tbhits.load(Ordering::Relaxed),
            proven: false,
        }
    }
}

/// The time budget of a search, from its limits and the side to move.
pub fn budget_for(limits: &Limits, pos: &Position) -> Option<TimeBudget> {
    if limits.infinite {
        return None;
    }
    let us = pos.side_to_move();
    timeman::budget(
        &limits.clock,
        us,
        pos.in_hand(us) as u32,
        limits.move_overhead,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Rules;
    use rand::{Rng, SeedableRng};

    /// Random walks with take-backs and passes (as the null move makes): every evaluation
    /// through the lazily updated sums and the cache equals a fresh one of the position.
    #[test]
    fn lazy_accumulator_and_cache_equal_fresh_evaluation() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        // Each built-in network once (nine has one network for both of its rule sets).
        for rules in [
            Rules::new(Variant::Nine, true),
            Rules::new(Variant::Twelve, false),
            Rules::new(Variant::Twelve, true),
        ] {
            let variant = rules.variant;
            let net = crate::nnue::builtin(rules).expect("a built-in network");
            let tt = TranspositionTable::new(1);
            let (stop, never, origin) = (
                AtomicBool::new(false),
                AtomicBool::new(false),
                AtomicU64::new(0),
            );
            let shared = Shared {
                tt: &tt,
                stop: &stop,
                nodes: AtomicU64::new(0),
                start: Instant::now(),
                budget: None,
                node_limit: None,
                tb: None,
                search_draws: false,
                tbhits: AtomicU64::new(0),
                pondering: &never,
                clock_origin_us: &origin,
                net: Some(&net),
                contempt: 0,
            };
            for flying in [false, true] {
                let game = Game::new(Position::new(Rules::new(variant, flying)));
                let mut s = Searcher::new(&shared, 0, &game, &[]);
                let mut checked = 0;
                for _ in 0..60 {
                    // `None` is a pass; take-backs undo in order.
                    let mut path = Vec::new();
                    for _ in 0..rng.gen_range(1..40) {
                        let moves = s.pos.legal_moves();
                        if s.pos.outcome().is_some() || moves.is_empty() {
                            break;
                        }
                        if rng.gen_bool(0.1) {
                            s.pos.toggle_side();
                            path.push(None);
                        } else {
                            let m = moves[rng.gen_range(0..moves.len())];
                            path.push(Some((m, s.make(m))));
                        }
                        if rng.gen_bool(0.5) {
                            let (e, sure) = s.evaluate_sure();
                            assert_eq!(e, net.evaluate_position(&s.pos));
                            // The chance the unsure-leaf extension reads, cached or fresh.
                            let (w, d, l) =
                                net.wdl(&crate::nnue::Accumulator::new(&net, &s.pos), &s.pos);
                            assert!(sure.abs_diff(w.max(d).max(l) as u16) <= 1, "{sure}");
                            checked += 1;
                        }
                        if rng.gen_bool(0.2) {
                            undo(&mut s, path.pop());
                        }
                    }
                    while let Some(step) = path.pop() {
                        undo(&mut s, Some(step));
                    }
                    assert_eq!(s.pos, *game.position());
                }
                assert!(checked > 200, "{checked} evaluations checked");
            }
        }
    }

    fn undo(s: &mut Searcher, step: Option<Option<(Move, crate::position::Undo)>>) {
        match step {
            Some(Some((m, u))) => s.unmake(m, u),
            Some(None) => s.pos.toggle_side(),
            None => {}
        }
    }
}
