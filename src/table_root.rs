//! The tables at the engine's root: which moves keep the value, read within the move's time.
//!
//! A root the tables cover is answered by reading its own value and then every move's. On a
//! warm page cache that takes microseconds; on a cold disk each read may wait for the disk
//! (tens of milliseconds for a root, more while another process reads), and a page fault
//! cannot be interrupted. So the reads run on a thread of their own ([`within`]) while the
//! engine waits until they are done or the move's share of time for them is spent
//! ([`Waiter`]); then it plays from what is known: every move's value when all were read, else
//! the value-keeping moves found so far (the root's value is read first, so a move that matches
//! it keeps it), else the search, kept away from the moves already known to lose value. The
//! thread left behind stops after its current read, which still warms the cache for the next.
//!
//! The moves are read with the transposition table's move first (most often the one played),
//! and the kernel is asked to read ahead the children's blocks before the first is needed
//! ([`Tablebase::prefetch_children`]), so that a cold root waits for its reads side by side.

use crate::fallible::{self, Judge, OpponentModel};
use crate::game::Game;
use crate::moves::Move;
use crate::nnue::Network;
use crate::position::Position;
use crate::search::{Limits, TB_WIN};
use crate::tablebase::{Probe, Tablebase, Wdl};
use crate::timeman::TimeBudget;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The `TableContempt` option's default, in centipieces: what a repetition or a 100-ply draw
/// that the search finds costs the perfect side in a drawn root the tables cover. Against
/// Sanmill 7.4.6 it left 46 draws of 160 where 0 left 64; against `tgf` 37 of 200 where 0 left
/// 32, and against the engine without tables it changed nothing (docs/merciless.md,
/// "`TableContempt`").
pub const DEFAULT_TABLE_CONTEMPT: i32 = 50;

/// How the engine narrows the moves that keep a table's value (a draw of the moving phase, any
/// value of the placing phase) before its search picks one by evaluation. Every choice keeps the
/// value; they differ in what they leave a fallible opponent (`docs/placing.md`, "Choosing among
/// the keeping moves", has the matches that compare them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TableChoice {
    /// The search's evaluation alone: the network, trained on the tables' values of positions as
    /// games reach them, prefers the draws that players lose most often. The default: against
    /// Sanmill 7.4.6 it won 18 games of 40 (24 with the repetition rule of `restrict_moving`)
    /// where `Expected` won 10, and against the engine without tables as many as `Expected`
    /// (docs/merciless.md).
    #[default]
    Search,
    /// The moves after which the opponent has the fewest replies that keep its value.
    FewestKeeping,
    /// The moves after which the largest share of the opponent's replies give its value away.
    MostFailing,
    /// The moves with the best expected score against a model of a fallible opponent
    /// ([`crate::fallible`]): the replies it is likely to choose, valued by the tables. Against
    /// the engine without tables it won 75 games of 400 where `Search` won 52; against Sanmill,
    /// whose one-second searches see through a 2-ply model's traps, 10 of 40 where `Search`
    /// won 18 (docs/merciless.md).
    Expected,
    /// Malom's ranking: the moves into the sub-space where the opponent loses most often
    /// ([`crate::fallible::sector_rank`]; drawn roots only).
    Sector,
    /// The search's choice, but where the opponent, modelled as our own search without tables
    /// [`fallible::MIRROR_DEPTH`] plies deep, would answer one of the drawing moves with a
    /// losing reply, only such moves (drawn roots only). Against Sanmill 7.4.6 such a losing
    /// answer of the model was Sanmill's own answer after 3 of 8 moves, where Sanmill went
    /// wrong after 14 of 541 drawing moves in all (docs/merciless.md).
    Mirror,
    /// The search's choice among the drawing placements that the most members of a crowd of
    /// fallible players ([`fallible::CROWD`]: our own search without tables at 1 to 8 plies,
    /// with the network or the hand-tuned evaluation) answer with a losing reply, where at
    /// least [`fallible::CROWD_MIN_VOTES`] do (drawn placing roots only: against Sanmill no
    /// answer of the moving phase lost); elsewhere the search's own choice. Against Sanmill
    /// 7.4.6: 81 wins of 120 where `Search` won 77; the crowd at one vote 47 of 80
    /// (docs/merciless.md).
    Crowd,
}

impl TableChoice {
    /// The option's names, in [`TableChoice`]'s order.
    pub const NAMES: [&'static str; 7] = [
        "search",
        "fewest-keeping",
        "most-failing",
        "expected",
        "sector",
        "mirror",
        "crowd",
    ];

    /// The choice an option value names (any case).
    pub fn from_name(name: &str) -> Option<TableChoice> {
        let i = Self::NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))?;
        Some(
            [
                Self::Search,
                Self::FewestKeeping,
                Self::MostFailing,
                Self::Expected,
                Self::Sector,
                Self::Mirror,
                Self::Crowd,
            ][i],
        )
    }
}

/// How a root's keeping moves are narrowed: the choice, whether at all (`UltraStrong`), and the
/// opponent model with the evaluation its search uses.
#[derive(Clone)]
pub(crate) struct Choosing {
    pub choice: TableChoice,
    pub narrow: bool,
    pub model: OpponentModel,
    pub net: Option<Arc<Network>>,
}

/// When the engine stops waiting for the tables: at its share of the move's time on the clock
/// (none while pondering or without a clock), or at `stop`.
pub(crate) struct Waiter<'a> {
    /// When the search began.
    pub start: Instant,
    /// The move's budget (`None`: no clock).
    pub budget: Option<TimeBudget>,
    pub stop: &'a AtomicBool,
    pub pondering: &'a AtomicBool,
    /// Microseconds after `start` at which the clock began (the `ponderhit`).
    pub clock_origin_us: &'a AtomicU64,
}

impl Waiter<'_> {
    /// The share of the move's time the tables may take: most of a fixed move time (what is
    /// left is enough for the search to choose among the keeping moves, and all of it is the
    /// search's when the reads end early), and the planned time of a clock's move.
    fn share(b: &TimeBudget) -> Duration {
        if b.fixed {
            b.hard * 3 / 4
        } else {
            b.soft.min(b.hard * 3 / 4)
        }
    }

    /// The instant past which the engine plays from what it knows; `None` for no limit now.
    fn deadline(&self) -> Option<Instant> {
        if self.pondering.load(Ordering::Relaxed) {
            return None;
        }
        let origin = Duration::from_micros(self.clock_origin_us.load(Ordering::Relaxed));
        let b = self.budget.as_ref()?;
        Some(self.start + origin + Self::share(b))
    }

    /// How long to sleep before looking again; `None` once waiting is over.
    fn next_wait(&self) -> Option<Duration> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        // Looked at every few milliseconds even without a deadline, for `stop` and
        // `ponderhit`, which come without a notification.
        const POLL: Duration = Duration::from_millis(2);
        match self.deadline() {
            None => Some(POLL),
            Some(d) => {
                let left = d.checked_duration_since(Instant::now())?;
                (!left.is_zero()).then(|| left.min(POLL))
            }
        }
    }
}

/// Work done on a thread of its own, which publishes what it has found so far.
struct Job<T> {
    state: Mutex<(T, bool)>,
    done: Condvar,
    cancel: AtomicBool,
}

impl<T> Job<T> {
    fn update(&self, f: impl FnOnce(&mut T)) {
        f(&mut self.state.lock().unwrap_or_else(|e| e.into_inner()).0);
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Runs `work` on a thread of its own and returns what it published by the time it ended
/// (`true`) or the waiter gave up (`false`; the thread is then asked to stop after its
/// current read). Without a thread, nothing is read.
fn within<T: Clone + Send + 'static>(
    init: T,
    waiter: &Waiter,
    work: impl FnOnce(&Job<T>) + Send + 'static,
) -> (T, bool) {
    let job = Arc::new(Job {
        state: Mutex::new((init, false)),
        done: Condvar::new(),
        cancel: AtomicBool::new(false),
    });
    let theirs = job.clone();
    let spawned = std::thread::Builder::new()
        .name("table-root".into())
        .spawn(move || {
            work(&theirs);
            theirs.state.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
            theirs.done.notify_all();
        });
    if let Err(e) = spawned {
        log::warn!("no thread for the table reads ({e}): the search decides alone");
        return (
            job.state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .0
                .clone(),
            false,
        );
    }
    let mut state = job.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if state.1 {
            return (state.0.clone(), true);
        }
        let Some(wait) = waiter.next_wait() else {
            job.cancel.store(true, Ordering::Relaxed);
            return (state.0.clone(), false);
        };
        state = job
            .done
            .wait_timeout(state, wait)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

/// What the reads of a root found.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reading {
    /// The root's own value (`None` until read, and where no table holds the root itself).
    pub value: Option<Probe>,
    /// The moves read so far with their values for the side to move, in reading order.
    pub moves: Vec<(Move, Probe)>,
    /// A move leads outside the tables (or into a damaged block): the root is not theirs.
    pub outside: bool,
    /// Every legal move was read.
    pub complete: bool,
    /// The keeping moves the [`TableChoice`] ranks best, once every move is read.
    pub narrowed: Option<Vec<Move>>,
}

/// Reads the root's value and its moves' (see the module docs), `first` first, and narrows the
/// keeping moves as `choosing` says once they are all read; within the waiter's time. The
/// expected-score choice narrows again at each depth of its model's search, so a root cut short
/// keeps the deepest narrowing done.
pub(crate) fn read(
    tb: &Arc<Tablebase>,
    pos: &Position,
    first: Option<Move>,
    choosing: &Choosing,
    waiter: &Waiter,
) -> Reading {
    let mut order: Vec<Move> = pos.legal_moves().iter().copied().collect();
    if let Some(i) = first.and_then(|f| order.iter().position(|&m| m == f)) {
        order[..=i].rotate_right(1);
    }
    let tb = tb.clone();
    let pos = *pos;
    let choosing = choosing.clone();
    let (mut reading, _) = within(Reading::default(), waiter, move |job| {
        // A root outside the tables whose moves all lead into them (the last placement of a
        // set without placing tables) is theirs once every move is read.
        let value = tb.probe_any(&pos);
        job.update(|r| r.value = value);
        tb.prefetch_children(&pos);
        let mut moves = Vec::with_capacity(order.len());
        for &m in &order {
            if job.cancelled() {
                return;
            }
            let Some(p) = tb.probe_move(&pos, m) else {
                job.update(|r| r.outside = true);
                return;
            };
            moves.push((m, p));
            job.update(|r| r.moves.push((m, p)));
        }
        job.update(|r| r.complete = true);
        if !choosing.narrow || choosing.choice == TableChoice::Search {
            return;
        }
        // The keeping moves in the generator's order, as the choice has always ranked them.
        let best = moves.iter().map(|(_, p)| p.wdl.real()).max();
        let legal = pos.legal_moves();
        let keep: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| {
                moves
                    .iter()
                    .any(|(k, p)| k == m && Some(p.wdl.real()) == best)
            })
            .collect();
        match choosing.choice {
            TableChoice::Expected => {
                // Drawn roots only. Against a lost opponent every keeping move scores 1 (the
                // fastest win is the moving phase's choice, the search's in the placing phase).
                // In a lost root the model's chances are tiny and it overruled the search's
                // resistance: from a lost opening it saved 4 games of 50 where the search
                // saved 9 (docs/merciless.md).
                if best != Some(Wdl::Draw) || keep.len() < 2 {
                    return;
                }
                let judge = Judge::new(&tb, choosing.net.as_deref(), choosing.model);
                for depth in 1..=choosing.model.depth {
                    let Some(narrowed) =
                        narrow_by_expected(&judge, &pos, &keep, depth, &job.cancel)
                    else {
                        return;
                    };
                    job.update(|r| r.narrowed = Some(narrowed));
                }
            }
            TableChoice::Mirror => {
                if best != Some(Wdl::Draw) || keep.len() < 2 {
                    return;
                }
                let net = choosing.net.as_deref();
                if let Some(traps) = mirror_traps(&tb, net, &pos, &keep, &job.cancel) {
                    if !traps.is_empty() {
                        job.update(|r| r.narrowed = Some(traps));
                    }
                }
            }
            TableChoice::Crowd => {
                if best != Some(Wdl::Draw) || keep.len() < 2 || pos.is_moving_phase() {
                    return;
                }
                let net = choosing.net.as_deref();
                let mut votes = vec![0u32; keep.len()];
                for player in fallible::CROWD {
                    let net = if player.network { net } else { None };
                    let Some(traps) = traps_of(&tb, net, player.depth, &pos, &keep, &job.cancel)
                    else {
                        return;
                    };
                    for (v, &m) in votes.iter_mut().zip(&keep) {
                        *v += traps.contains(&m) as u32;
                    }
                    log::debug!("crowd votes after {player:?}: {votes:?} for {keep:?}");
                    if let Some(narrowed) = fallible::most_voted(&keep, &votes) {
                        job.update(|r| r.narrowed = Some(narrowed));
                    }
                }
            }
            TableChoice::Sector => {
                if best != Some(Wdl::Draw) || keep.len() < 2 {
                    return;
                }
                let ranks: Option<Vec<f64>> = keep
                    .iter()
                    .map(|&m| fallible::sector_rank(&tb, &pos, m))
                    .collect();
                if let Some(ranks) = ranks {
                    let top = ranks.iter().copied().fold(f64::MIN, f64::max);
                    let narrowed = keep
                        .iter()
                        .zip(&ranks)
                        .filter(|&(_, &r)| r >= top)
                        .map(|(&m, _)| m)
                        .collect();
                    job.update(|r| r.narrowed = Some(narrowed));
                }
            }
            _ => {
                let narrowed = narrow_by_choice(&tb, &pos, keep, choosing.choice, &job.cancel);
                job.update(|r| r.narrowed = narrowed);
            }
        }
    });
    // Read in any order, the moves are kept in the generator's, as `probe_root` gives them:
    // among equal values the engine's first choice does not depend on what was read first.
    let legal = pos.legal_moves();
    reading
        .moves
        .sort_by_key(|(m, _)| legal.iter().position(|l| l == m));
    reading
}

/// Expected scores this close count as equal: the model is no finer than that, and the search
/// then chooses among them by its evaluation.
const EXPECTED_TIE: f64 = 1e-3;

/// Keeps, of `keep`, the moves with the best expected score against the model searching
/// `depth` plies; `None` when stopped or where a reply leads outside the tables.
fn narrow_by_expected(
    judge: &Judge,
    pos: &Position,
    keep: &[Move],
    depth: u8,
    cancel: &AtomicBool,
) -> Option<Vec<Move>> {
    let scores: Vec<f64> = keep
        .iter()
        .map(|&m| judge.expected_after(pos, m, depth, cancel))
        .collect::<Option<_>>()?;
    let top = scores.iter().copied().fold(f64::MIN, f64::max);
    log::debug!(
        "expected scores at depth {depth}: {}",
        keep.iter()
            .zip(&scores)
            .map(|(m, s)| format!("{m} {s:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Some(
        keep.iter()
            .zip(&scores)
            .filter(|&(_, &s)| s >= top - EXPECTED_TIE)
            .map(|(&m, _)| m)
            .collect(),
    )
}

/// The moves of `keep` (drawing moves) after which our own search [`fallible::MIRROR_DEPTH`]
/// plies deep (evaluating with `net`, the hand-tuned terms where `None`), as the opponent,
/// answers with a reply that gives the opponent's draw away; `None` when cancelled or where a
/// position leads outside the tables.
pub(crate) fn mirror_traps(
    tb: &Tablebase,
    net: Option<&Network>,
    pos: &Position,
    keep: &[Move],
    cancel: &AtomicBool,
) -> Option<Vec<Move>> {
    let traps = traps_of(tb, net, fallible::MIRROR_DEPTH, pos, keep, cancel)?;
    log::debug!("mirror traps: {traps:?} of {} drawing moves", keep.len());
    Some(traps)
}

/// The moves of `keep` (drawing moves) after which our own search `depth` plies deep
/// (evaluating with `net`, the hand-tuned terms where `None`), as the opponent, answers with a
/// reply that gives the opponent's draw away; `None` when cancelled or where a position leads
/// outside the tables. Each answer is a fresh search's (an emptied table), so that it does not
/// depend on the order the moves are tried in.
fn traps_of(
    tb: &Tablebase,
    net: Option<&Network>,
    depth: u8,
    pos: &Position,
    keep: &[Move],
    cancel: &AtomicBool,
) -> Option<Vec<Move>> {
    let mut traps = Vec::new();
    // An answer is searched to its own `depth`; the model's softmax is not used here (and its
    // depth, clamped for `expected`, would misname the 8-ply players).
    let judge = Judge::new(tb, net, OpponentModel::default());
    for &m in keep {
        let mut child = *pos;
        child.make(m);
        if child.outcome().is_some() {
            continue;
        }
        // After a drawing move the opponent holds a draw: a reply that loses gives it away.
        let reply = judge.fresh_answer(&child, depth, cancel)?;
        if tb.probe_move(&child, reply)?.wdl.real() == Wdl::Loss {
            traps.push(m);
        }
    }
    Some(traps)
}

/// Keeps, of `keep` (moves that all keep the root's value), those the choice ranks best, from
/// the opponent's replies' values one ply on; all of them when a child is outside the tables.
/// `None` when cancelled.
fn narrow_by_choice(
    tb: &Tablebase,
    pos: &Position,
    keep: Vec<Move>,
    choice: TableChoice,
    cancel: &AtomicBool,
) -> Option<Vec<Move>> {
    if keep.len() < 2 {
        return Some(keep);
    }
    // (replies keeping the opponent's value, replies in all) after each move; a child where the
    // game is over leaves the opponent nothing to keep.
    let mut counts = Vec::with_capacity(keep.len());
    for &m in &keep {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        let mut child = *pos;
        child.make(m);
        if child.outcome().is_some() {
            counts.push((0u32, 1u32));
            continue;
        }
        let Some(root) = tb.probe_root(&child) else {
            return Some(keep);
        };
        let value = root.probe.wdl.real();
        let kept = root
            .moves
            .iter()
            .filter(|(_, p)| p.wdl.real() == value)
            .count();
        counts.push((kept as u32, root.moves.len() as u32));
    }
    // Smaller is better: the keeping count, or the keeping share (compared as fractions).
    let better = |a: (u32, u32), b: (u32, u32)| -> std::cmp::Ordering {
        match choice {
            TableChoice::FewestKeeping => a.0.cmp(&b.0),
            _ => (a.0 as u64 * b.1 as u64).cmp(&(b.0 as u64 * a.1 as u64)),
        }
    };
    let best = counts
        .iter()
        .copied()
        .min_by(|&a, &b| better(a, b))
        .expect("two moves or more");
    Some(
        keep.into_iter()
            .zip(counts)
            .filter(|&(_, c)| better(c, best).is_eq())
            .map(|(m, _)| m)
            .collect(),
    )
}

/// The score a table value gives a root move: `TB_WIN - plies to the next mill` for a win
/// (see [`TB_WIN`]), its negation for a loss, 0 for a draw, a cursed win or a blessed loss.
pub(crate) fn table_score(p: &Probe) -> i32 {
    let win = TB_WIN - p.plies_to_mill as i32;
    match p.wdl {
        Wdl::Win => win,
        Wdl::Loss => -win,
        _ => 0,
    }
}

/// The score of a solved placing-phase position (the tables' convention, see protocol.md):
/// `TB_WIN - P` for a win, P the plies left to the moving phase, its negation for a loss.
pub(crate) fn solved_score(pos: &Position, v: Wdl) -> i32 {
    let p = (pos.in_hand(crate::Color::White) + pos.in_hand(crate::Color::Black)) as i32;
    match v {
        Wdl::Win => TB_WIN - p,
        Wdl::Loss => -(TB_WIN - p),
        _ => 0,
    }
}

/// Where the value is known but no keeping move yet, the search keeps away from the moves
/// known to give it away (unless that leaves none of the user's `searchmoves`).
fn avoid_known_losers(reading: &Reading, want: Wdl, pos: &Position, limits: &mut Limits) {
    let losers: Vec<Move> = reading
        .moves
        .iter()
        .filter(|(_, p)| p.wdl.real() < want)
        .map(|&(m, _)| m)
        .collect();
    if losers.is_empty() {
        return;
    }
    let base: Vec<Move> = if limits.searchmoves.is_empty() {
        pos.legal_moves().iter().copied().collect()
    } else {
        limits.searchmoves.clone()
    };
    let rest: Vec<Move> = base.into_iter().filter(|m| !losers.contains(m)).collect();
    log::debug!(
        "tables cut short: value {want:?}, {} of the moves read give it away",
        losers.len()
    );
    if !rest.is_empty() {
        limits.searchmoves = rest;
    }
}

/// The moving phase: keeps only the moves that keep the table's result (the one fastest win or
/// slowest loss, which the search could not find within the 100-ply rule's deadline, or the
/// moves that keep a draw, for the search to choose the one that sets the most problems).
/// Returns the table's score of each move read, or `None` where the tables do not decide.
///
/// `seen` holds the keys of the game's positions ([`Game::hashes`]): a drawn root (with
/// `ultra_strong`) keeps only the draws that lead to a position not yet seen, where there are
/// any; a won root cut short before its fastest move was read plays the fastest win read so
/// far that repeats none of them. Left to the search, it chose among the wins its memory-only
/// probes saw, which are the quiet moves within the same sub-space (the mill's children, in a
/// smaller one, were the cold reads), and shuffled to threefold repetitions from won positions.
pub(crate) fn restrict_moving(
    reading: &Reading,
    pos: &Position,
    seen: &[u64],
    limits: &mut Limits,
    ultra_strong: bool,
) -> Option<Vec<(Move, i32)>> {
    if reading.outside {
        return None;
    }
    let mut by_value: Vec<(Move, Probe)> = reading.moves.clone();
    by_value.sort_by_key(|&(_, p)| std::cmp::Reverse(p.value));
    // The best move's value is the root's (fastest win, draw, or slowest loss): the best of
    // all moves once all are read, else one read so far that matches the root's own.
    let (target, wanted) = match (by_value.first(), reading.value) {
        (Some(&(_, p)), _) if reading.complete => (p.value, p.wdl.real()),
        (_, Some(root)) => (root.value, root.wdl.real()),
        _ => return None,
    };
    let allowed = |m: &Move| limits.searchmoves.is_empty() || limits.searchmoves.contains(m);
    let best = by_value
        .iter()
        .find(|(_, p)| p.value == target)
        .or_else(|| {
            (wanted == Wdl::Win)
                .then(|| {
                    by_value.iter().find(|(m, p)| {
                        p.wdl == Wdl::Win && allowed(m) && !seen.contains(&pos.hash_after(*m))
                    })
                })
                .flatten()
        });
    let keep: Vec<Move> = match (wanted, best) {
        (_, None) => Vec::new(),
        (Wdl::Win | Wdl::Loss, Some(&(m, _))) => vec![m],
        (_, Some(&(m, _))) if !ultra_strong => vec![m],
        _ => by_value
            .iter()
            .filter(|(_, p)| p.wdl.real() == Wdl::Draw)
            .map(|&(m, _)| m)
            .collect(),
    };
    let mut keep: Vec<Move> = keep.into_iter().filter(allowed).collect();
    if wanted == Wdl::Draw && ultra_strong {
        // A draw that returns to a position of the game lets the opponent repeat it for a
        // threefold draw, and leaves it positions it has already found its way through; a
        // new one may still go wrong. The search alone prefers the repetition whenever its
        // evaluation is below 0.
        let fresh: Vec<Move> = keep
            .iter()
            .copied()
            .filter(|m| !seen.contains(&pos.hash_after(*m)))
            .collect();
        if !fresh.is_empty() {
            keep = fresh;
        }
    }
    if let (Some(n), Wdl::Draw, true) = (&reading.narrowed, wanted, ultra_strong) {
        let narrowed: Vec<Move> = keep.iter().copied().filter(|m| n.contains(m)).collect();
        if !narrowed.is_empty() {
            keep = narrowed;
        }
    }
    if keep.is_empty() {
        avoid_known_losers(reading, wanted, pos, limits);
        return None;
    }
    log::debug!(
        "endgame table at the root: {wanted:?}, {} moves kept of {} read{}",
        keep.len(),
        reading.moves.len(),
        if reading.complete { "" } else { " (cut short)" }
    );
    limits.searchmoves = keep;
    Some(
        reading
            .moves
            .iter()
            .map(|(m, p)| (*m, table_score(p)))
            .collect(),
    )
}

/// The root's value as read: the best move's once every move is read, else the root's own.
pub(crate) fn root_wdl(reading: &Reading) -> Option<Wdl> {
    match reading.moves.iter().map(|(_, p)| p.wdl.real()).max() {
        Some(best) if reading.complete => Some(best),
        _ => reading.value.map(|v| v.wdl.real()),
    }
}

/// The placing phase: keeps the moves that keep the tables' value (every one: a placing win
/// has no distance to hurry, so the search chooses among them by its evaluation). Returns the
/// root's exact score in the solved convention ([`solved_score`]), or `None` where the tables
/// do not decide.
pub(crate) fn restrict_placing(
    reading: &Reading,
    pos: &Position,
    limits: &mut Limits,
    ultra_strong: bool,
) -> Option<i32> {
    if reading.outside {
        return None;
    }
    let value = root_wdl(reading)?;
    let allowed = |m: &Move| limits.searchmoves.is_empty() || limits.searchmoves.contains(m);
    let mut keep: Vec<Move> = reading
        .moves
        .iter()
        .filter(|(m, p)| p.wdl.real() == value && allowed(m))
        .map(|&(m, _)| m)
        .collect();
    if !ultra_strong {
        keep.truncate(1);
    } else if let Some(n) = &reading.narrowed {
        let narrowed: Vec<Move> = n.iter().copied().filter(|m| keep.contains(m)).collect();
        if !narrowed.is_empty() {
            keep = narrowed;
        }
    }
    if keep.is_empty() {
        avoid_known_losers(reading, value, pos, limits);
        return None;
    }
    log::debug!(
        "placing tables at the root: {value:?}, {} moves kept of {} read{}",
        keep.len(),
        reading.moves.len(),
        if reading.complete { "" } else { " (cut short)" }
    );
    limits.searchmoves = keep;
    Some(solved_score(pos, value))
}

/// The line the tables play after `first`: the winner hurrying to its next mill, the loser
/// delaying it, a draw kept; up to the end of the tables' knowledge, the game, 24 plies, or
/// the waiter's time.
pub(crate) fn line(tb: &Arc<Tablebase>, game: &Game, first: Move, waiter: &Waiter) -> Vec<Move> {
    const MAX_LINE: usize = 24;
    let tb = tb.clone();
    let game = game.clone();
    within(vec![first], waiter, move |job| {
        let mut g = game;
        if g.play(first).is_err() {
            return;
        }
        let mut len = 1;
        while len < MAX_LINE && g.outcome().is_none() && !job.cancelled() {
            let Some(root) = tb.probe_root(g.position()) else {
                break;
            };
            if g.play(root.best).is_err() {
                break;
            }
            job.update(|l| l.push(root.best));
            len += 1;
        }
    })
    .0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::Value;
    use crate::Rules;

    fn mv(pos: &Position, s: &str) -> Move {
        let m: Move = s.parse().unwrap();
        assert!(pos.legal_moves().contains(m), "{s}");
        m
    }

    /// A won root read only in part, its fastest move (the mill) not yet: the fastest win read
    /// so far is played, unless it repeats a position of the game; then the next fastest.
    #[test]
    fn a_won_root_cut_short_plays_the_fastest_win_read_that_repeats_nothing() {
        let pos = Position::from_fen(
            "WWW/B.W/WB./.WB.BB/W../.WB/BW. w 0 0 6 13",
            Rules::default(),
        )
        .unwrap();
        let win = |d| Probe::from_value(Value::Win(d), pos.rule50());
        let slow = mv(&pos, "d2-b2");
        let faster = mv(&pos, "b4-b2");
        let reading = Reading {
            value: Some(win(1)),
            moves: vec![(slow, win(5)), (faster, win(3))],
            ..Reading::default()
        };
        let mut limits = Limits::default();
        let scores = restrict_moving(&reading, &pos, &[pos.hash()], &mut limits, true);
        assert_eq!(limits.searchmoves, vec![faster]);
        assert_eq!(scores.map(|s| s.len()), Some(2));

        let mut limits = Limits::default();
        let seen = [pos.hash_after(faster), pos.hash()];
        restrict_moving(&reading, &pos, &seen, &mut limits, true);
        assert_eq!(limits.searchmoves, vec![slow]);

        // Every win read repeats: the search decides among all moves.
        let mut limits = Limits::default();
        let seen = [pos.hash_after(faster), pos.hash_after(slow)];
        assert!(restrict_moving(&reading, &pos, &seen, &mut limits, true).is_none());
        assert!(limits.searchmoves.is_empty());
    }

    /// A drawn root keeps the draws that lead to new positions: one that returns to a position
    /// of the game is dropped while another draw remains, and kept when it is the only one.
    #[test]
    fn a_drawn_root_keeps_the_draws_that_repeat_nothing() {
        let pos = Position::from_fen(
            "WWW/B.W/WB./.WB.BB/W../.WB/BW. w 0 0 6 13",
            Rules::default(),
        )
        .unwrap();
        let draw = Probe::from_value(Value::Draw, pos.rule50());
        let loss = Probe::from_value(Value::Loss(4), pos.rule50());
        let (a, b, c) = (mv(&pos, "d2-b2"), mv(&pos, "b4-b2"), mv(&pos, "f6-d6"));
        let reading = Reading {
            value: Some(draw),
            moves: vec![(a, draw), (b, draw), (c, loss)],
            complete: true,
            ..Reading::default()
        };
        let keep = |seen: &[u64], ultra: bool| {
            let mut limits = Limits::default();
            restrict_moving(&reading, &pos, seen, &mut limits, ultra).expect("the tables decide");
            limits.searchmoves
        };
        assert_eq!(keep(&[pos.hash()], true), vec![a, b]);
        assert_eq!(keep(&[pos.hash_after(a), pos.hash()], true), vec![b]);
        assert_eq!(keep(&[pos.hash_after(b), pos.hash()], true), vec![a]);
        // Both draws repeat: both stay (the loss never does).
        let both = [pos.hash_after(a), pos.hash_after(b), pos.hash()];
        assert_eq!(keep(&both, true), vec![a, b]);
        // Without UltraStrong the first draw is played, as before.
        assert_eq!(keep(&[pos.hash_after(a), pos.hash()], false), vec![a]);
    }
}
