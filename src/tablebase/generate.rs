//! Retrograde solving of sub-spaces, and the one-ply consistency check of solved tables.
//!
//! Sub-spaces (w, b) and (b, w) are solved together: a move without a mill leads from one to the
//! other (the side to move changes). A mill leads into the smaller, already solved (b - 1, w),
//! or wins at once when it leaves the opponent two pieces; such moves are the "conversions",
//! valued once from the smaller table by [`Value::after_mill`].
//!
//! The algorithm, level by level (a level is a distance in plies):
//!
//! - Setup: for every position, the best conversion, and the number of *distinct* positions
//!   (after symmetry) its other moves lead to. Counting distinct slots, and decrementing each
//!   predecessor slot once per solved child slot, keeps the counters exact under symmetry.
//! - Seeds: no move at all is a loss at 0; a winning conversion is a win at 1 (101 if the
//!   100-ply rule spoils it, see [`Value::after_mill`]); a position whose only moves are losing
//!   conversions is a loss at their distance.
//! - Level n: every unsolved predecessor (found by un-moving) of a loss at n - 1 is a win at n;
//!   every predecessor of a win at n - 1 loses one from its counter, and when it reaches zero
//!   and its conversions all lose, it is a loss at n (or at its conversions' distance if that
//!   is larger, picked up when that level is seeded).
//! - When a level finds nothing and no seed lies ahead, whatever is unsolved is a draw.
//!
//! The levels run in parallel. A level walks only the chunks of slots that the level before
//! solved something in; the updates it makes to predecessors are buffered by region of the
//! table (4 MB of slot words) and each region is then updated by one thread, so the random
//! accesses stay in the cache and need no atomic read-modify-write. Seeds are set by a
//! compare-exchange from "unknown". Each slot is one packed word (value, counter of unsolved
//! children, conversion summary): four bytes a slot while solving.
//!
//! While solving, slots are keyed by the side not to move (the files by the side to move, so
//! the last pass maps every slot): the predecessors of a solved position then share one key,
//! and a chunk of the setup shares its conversions' blocks of the smaller table.

use super::format::{Table, TbError};
use super::hugepages;
use super::index::{SubIndex, UsKey};
use super::mapped::TableFile;
use super::value::{Value, LIMIT, UNKNOWN};
use crate::bitboard::Bitboard;
use crate::topology::Topology;
use crate::types::{Point, Rules};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

const FULL: u32 = 0xff_ffff;

fn chunk_flags(slots: usize) -> Vec<AtomicBool> {
    (0..slots.div_ceil(1 << CHUNK_BITS))
        .map(|_| AtomicBool::new(false))
        .collect()
}

fn slot_bits(slots: usize) -> Vec<AtomicU64> {
    (0..slots.div_ceil(64)).map(|_| AtomicU64::new(0)).collect()
}

/// Conversion summaries kept per position during solving.
const C_NONE: u8 = 0;
const C_WIN1: u8 = 1;
const C_WIN_SPOILT: u8 = 2;
const C_DRAW: u8 = 3;
const C_LOSS_SPOILT: u8 = 4;
const C_LOSS1: u8 = 5;
/// Counter mark of slots that are not canonical (no real counter exceeds 64).
const NOT_CANONICAL: u8 = 0xff;

fn conv_code(v: Option<Value>) -> u8 {
    match v {
        None => C_NONE,
        Some(Value::Win(1)) => C_WIN1,
        Some(Value::Win(_)) => C_WIN_SPOILT,
        Some(Value::Draw) => C_DRAW,
        Some(Value::Loss(1)) => C_LOSS1,
        Some(Value::Loss(_)) => C_LOSS_SPOILT,
    }
}

/// If all other moves lose, the distance of the loss the conversions impose (`None`: a
/// conversion draws or wins, so the position never loses).
fn conv_loss_floor(c: u8) -> Option<u16> {
    match c {
        C_NONE => Some(0),
        C_LOSS1 => Some(1),
        C_LOSS_SPOILT => Some(LIMIT + 1),
        _ => None,
    }
}

/// What a solve reports.
#[derive(Clone, Debug, Default)]
pub struct SolveStats {
    /// Slots of the solved tables, all of them.
    pub slots: u64,
    /// Canonical positions among them.
    pub positions: u64,
    /// Distance levels that found positions.
    pub levels: u32,
    /// Seconds spent on setup (move generation and conversion look-ups).
    pub setup_secs: f64,
    /// Seconds in total.
    pub secs: f64,
}

/// One slot while solving, packed into a word so that updating a predecessor touches one
/// cache line (the levels are bound by random accesses into tables of up to a billion slots):
/// the value (bits 0..16, [`UNKNOWN`] until solved), the counter of unsolved distinct children
/// (bits 16..24, [`NOT_CANONICAL`] for slots that are nobody's canonical form) and the
/// conversion summary (bits 24..32).
#[inline(always)]
const fn pack(value: u16, counter: u8, conv: u8) -> u32 {
    value as u32 | (counter as u32) << 16 | (conv as u32) << 24
}

#[inline(always)]
const fn value_of(word: u32) -> u16 {
    word as u16
}

#[inline(always)]
const fn counter_of(word: u32) -> u8 {
    (word >> 16) as u8
}

#[inline(always)]
const fn conv_of(word: u32) -> u8 {
    (word >> 24) as u8
}

const COUNTER_ONE: u32 = 1 << 16;

struct Work {
    idx: SubIndex,
    slots: Vec<AtomicU32>,
    /// Per chunk of slots, whether the level before holds a slot solved in it...
    solved_before: Vec<AtomicBool>,
    /// ... and whether the current level solved one: most of the hundreds of levels solve
    /// few positions, so the next level looks only at the marked chunks.
    solved_now: Vec<AtomicBool>,
    /// The same per slot, a bit each: a marked chunk's frontier is found from 128 bytes of
    /// bits instead of its 4 KB of slot words (scanning slot words cost job 4v6 nine times
    /// what its updates cost: 117 slots read per frontier slot).
    bits_before: Vec<AtomicU64>,
    bits_now: Vec<AtomicU64>,
    /// Which of those are losses: a frontier slot's predecessors learn what they learn
    /// without its word being read (a cache miss for most frontier slots of a sparse level).
    lost_before: Vec<AtomicU64>,
    lost_now: Vec<AtomicU64>,
}

/// Slots per chunk of [`Work::solved_now`].
const CHUNK_BITS: u32 = 10;

/// Words of [`Work::bits_now`] per chunk.
const CHUNK_WORDS: usize = 1 << (CHUNK_BITS - 6);

/// Slots per region of a level's updates (4 MB of slot words: the last-level cache holds one).
const PART_BITS: u32 = 20;

/// Frontier chunks whose updates are buffered at a time (up to 4 M slots: typically tens of
/// millions of updates, 4 bytes each).
const BATCH_CHUNKS: usize = 4096;

/// Chunks with at least this many frontier slots are walked slot by slot
/// ([`SubIndex::for_each_slot_in`]); sparser ones unrank their frontier slots.
const DENSE_CHUNK: usize = 48;

/// How many random reads ahead a prefetch is issued.
const PREFETCH_AHEAD: usize = 16;

/// How far ahead the last pass asks for the solving slots it gathers: they lie anywhere in
/// up to 4 GB, where the updates' lie in a region in the cache (64 took job 5v6 of nine 2.8 s
/// to map where 16 took 3.2 s, one thread).
const MAP_AHEAD: usize = 64;

/// Asks the cache for the line of `x` ahead of its use (a hint; nothing is read).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no effect on memory contents and cannot fault.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Tag of an update from a lost child (the predecessor wins); the slot number is below 2^31.
const WIN_TAG: u32 = 1 << 31;

impl Work {
    /// Stores a value into an unknown slot, and marks its chunk.
    #[inline]
    fn solve(&self, i: usize, v: Value) -> bool {
        let mut word = self.slots[i].load(Relaxed);
        loop {
            if value_of(word) != UNKNOWN {
                return false;
            }
            // The counter may change under us: retry with the word as it is now.
            match self.slots[i].compare_exchange_weak(
                word,
                word & !0xffff | v.to_u16() as u32,
                Relaxed,
                Relaxed,
            ) {
                Ok(_) => break,
                Err(now) => word = now,
            }
        }
        // Seeds are set by threads whose ranges may share a word of bits.
        self.bits_now[i >> 6].fetch_or(1 << (i & 63), Relaxed);
        if let Value::Loss(_) = v {
            self.lost_now[i >> 6].fetch_or(1 << (i & 63), Relaxed);
        }
        self.mark_chunk(i);
        true
    }

    /// Applies one update of level `n` (see `WIN_TAG`) to its slot. Only the thread that owns
    /// the slot's region calls this during a level, so loads and stores need no
    /// read-modify-write; whether the slot was solved by it.
    #[inline]
    fn update(&self, u: u32, n: u16) -> bool {
        let p = (u & !WIN_TAG) as usize;
        let slot = &self.slots[p];
        let word = slot.load(Relaxed);
        if value_of(word) != UNKNOWN {
            return false;
        }
        if u & WIN_TAG != 0 {
            slot.store(word & !0xffff | Value::Win(n).to_u16() as u32, Relaxed);
            self.mark_owned(p, false);
            return true;
        }
        // Never below zero: one decrement per distinct child.
        let word = word - COUNTER_ONE;
        if counter_of(word) == 0 && conv_loss_floor(conv_of(word)).is_some_and(|f| f <= n) {
            slot.store(word & !0xffff | Value::Loss(n).to_u16() as u32, Relaxed);
            self.mark_owned(p, true);
            return true;
        }
        slot.store(word, Relaxed);
        false
    }

    /// Marks a slot solved by the thread that owns its region (a region's words of bits are
    /// its own, so no read-modify-write).
    #[inline]
    fn mark_owned(&self, i: usize, lost: bool) {
        let bits = &self.bits_now[i >> 6];
        bits.store(bits.load(Relaxed) | 1 << (i & 63), Relaxed);
        if lost {
            let bits = &self.lost_now[i >> 6];
            bits.store(bits.load(Relaxed) | 1 << (i & 63), Relaxed);
        }
        self.mark_chunk(i);
    }

    #[inline]
    fn mark_chunk(&self, i: usize) {
        let flag = &self.solved_now[i >> CHUNK_BITS];
        // A load first: the line stays shared while the flag is already set.
        if !flag.load(Relaxed) {
            flag.store(true, Relaxed);
        }
    }
}

/// Calls `f(us_after, to, closes_mill)` for every move of the side owning `us`, until `f`
/// returns false.
#[inline(always)]
fn for_each_move<F: FnMut(u32, usize, bool) -> bool>(
    topo: &Topology,
    fly: bool,
    us: u32,
    them: u32,
    mut f: F,
) {
    let empty = !(us | them) & FULL;
    let mut froms = us;
    while froms != 0 {
        let from = froms.trailing_zeros() as usize;
        froms &= froms - 1;
        let mut dests = if fly {
            empty
        } else {
            topo.adjacent[from].0 & empty
        };
        while dests != 0 {
            let to = dests.trailing_zeros() as usize;
            dests &= dests - 1;
            let after = us ^ (1 << from) ^ (1 << to);
            if !f(
                after,
                to,
                topo.closes_mill(Bitboard(after), Point::from_index(to)),
            ) {
                return;
            }
        }
    }
}

/// The moves of the side owning `us` without a symmetry to merge children: how many close no
/// mill, and the best of `mill_value(us_after)` over those that close one. The mills are found
/// from the lines (a line with two of our points and an empty third is closed by every move
/// to that point from off the line), the other moves are counted, not made; once a mill wins
/// at once (`Value::Win(1)`) nothing else is needed, and the count returned is 0.
#[inline(always)]
fn count_moves(
    topo: &Topology,
    fly: bool,
    us: u32,
    them: u32,
    mill_value: &mut impl FnMut(u32) -> Value,
) -> (u8, Option<Value>) {
    let empty = !(us | them) & FULL;
    // Points that close a mill, and those that close two (a move there from anywhere does).
    let (mut ready, mut twice) = (0u32, 0u32);
    let mut line_at = [0u32; 24];
    for &l in &topo.lines[..topo.line_count] {
        if l & them == 0 && (l & us).count_ones() == 2 {
            let p = (l & !us).trailing_zeros() as usize;
            twice |= ready & 1 << p;
            ready |= 1 << p;
            line_at[p] = l;
        }
    }
    let mut best: Option<Value> = None;
    let mut mills = 0;
    while ready != 0 {
        let to = ready.trailing_zeros() as usize;
        ready &= ready - 1;
        let movers = if fly { us } else { topo.adjacent[to].0 & us };
        let mut froms = if twice >> to & 1 != 0 {
            movers
        } else {
            movers & !line_at[to]
        };
        mills += froms.count_ones();
        while froms != 0 {
            let from = froms.trailing_zeros();
            froms &= froms - 1;
            let v = mill_value(us ^ 1 << from ^ 1 << to);
            let v = best.map_or(v, |b| b.max(v));
            best = Some(v);
            if v == Value::Win(1) {
                return (0, best);
            }
        }
    }
    let moves = if fly {
        us.count_ones() * empty.count_ones()
    } else {
        let mut froms = us;
        let mut moves = 0;
        while froms != 0 {
            moves += (topo.adjacent[froms.trailing_zeros() as usize].0 & empty).count_ones();
            froms &= froms - 1;
        }
        moves
    };
    ((moves - mills) as u8, best)
}

/// Solves sub-spaces (w, b) and (b, w) (one table when w == b). `smaller` must hold the tables
/// (b - 1, w) and (w - 1, b) where those have at least 3 pieces a side. `progress` receives a
/// line now and then. The tables come back as (w, b), then (b, w).
pub fn solve_pair(
    rules: Rules,
    w: u8,
    b: u8,
    smaller: &HashMap<(u8, u8), Table>,
    progress: &mut dyn FnMut(&str),
) -> Result<(Vec<Table>, SolveStats), String> {
    let mut tables = Vec::new();
    let stats = solve_pair_with(
        rules,
        w,
        b,
        smaller,
        &mut |x, y| Err(format!("the table {x}v{y} is not given")),
        &mut |t| {
            tables.push(t);
            Ok(())
        },
        progress,
    )?;
    tables.reverse();
    Ok((tables, stats))
}

/// [`solve_pair`] within less memory: a smaller table that `smaller` lacks is asked of `load`
/// just before the setup that reads it and dropped after it, and each solved table goes to
/// `emit` as soon as it is made, (b, w) first and (w, b) last, so that the caller can write it
/// and let it go before the next is made. The peak is then the solving words of both tables
/// (4 bytes a slot) and the larger of one smaller table and one solved table (2 bytes a slot):
/// 5.4 GB for nine's biggest job, where holding everything took 9.65 GB.
pub fn solve_pair_with(
    rules: Rules,
    w: u8,
    b: u8,
    smaller: &HashMap<(u8, u8), Table>,
    load: &mut dyn FnMut(u8, u8) -> Result<Table, String>,
    emit: &mut dyn FnMut(Table) -> Result<(), String>,
    progress: &mut dyn FnMut(&str),
) -> Result<SolveStats, String> {
    // What jobs before freed: their peak is theirs, not this one's.
    hugepages::release_free_memory();
    let start = Instant::now();
    let topo = Topology::of(rules.variant);
    let pieces = rules.variant.pieces();
    if w < 3 || b < 3 || w > pieces || b > pieces {
        return Err(format!("{w}v{b} is not a sub-space of {}", rules.variant));
    }
    let shapes: Vec<(u8, u8)> = if w == b {
        vec![(w, b)]
    } else {
        vec![(w, b), (b, w)]
    };
    let other = |t: usize| if shapes.len() == 2 { t ^ 1 } else { 0 };
    // While solving, the slots of (x, y) are keyed by the side *not* to move: the index of
    // sub-space (y, x) applied to (other, mover). All predecessors of a position share its
    // mover as their other side, so a level computes one key per solved position instead of
    // one per predecessor. The files keep the usual index; the last pass maps the slots.
    let indexes: Vec<SubIndex> = shapes
        .iter()
        .map(|&(x, y)| SubIndex::new(rules.variant, y, x))
        .collect();
    let file_indexes: Vec<SubIndex> = shapes
        .iter()
        .map(|&(x, y)| SubIndex::new(rules.variant, x, y))
        .collect();

    // Setup, one table at a time, each with the smaller table its mills lead into (read for
    // this setup only when the caller does not hold it: nothing after the setup reads it).
    let mut setups = Vec::new();
    for (t, &(x, y)) in shapes.iter().enumerate() {
        let idx = indexes[t];
        let loaded;
        let conv_t = match (y > 3).then(|| smaller.get(&(y - 1, x))) {
            None => None,
            Some(Some(held)) => Some(held),
            Some(None) => {
                loaded = load(y - 1, x).map_err(|e| format!("solving {x}v{y}: {e}"))?;
                Some(&loaded)
            }
        };
        let fly = rules.flying && x == 3;
        // Four bytes a slot while solving (value, counter, conversion): the biggest jobs of
        // nine hold a billion slots.
        let spu = idx.slots_per_us();
        let mut words = hugepages::filled(idx.len(), pack(UNKNOWN, NOT_CANONICAL, C_NONE));
        // A chunk of slots shares the side not to move, so its conversions, which remove one
        // of that side's pieces, read as many blocks of the smaller table (of one mover set
        // each) as there are pieces to remove: a few hundred kilobytes, in the cache, where the
        // table has up to two gigabytes. A mill's value depends only on the mover's set after
        // it (`them` is the chunk's), which several moves of the chunk's positions reach:
        // each is valued once, in `memo` (by its offset in the chunk).
        words.par_chunks_mut(spu).enumerate().for_each_init(
            Vec::<u16>::new,
            |memo, (ci, words)| {
                // The side not to move, the same for every slot of the chunk: every child
                // has it to move.
                let them = idx.us_set(ci);
                let symmetric = idx.us_set_is_symmetric(ci);
                // The keys of the smaller table's mover after each removal.
                let mut rkeys = [UsKey::default(); 12];
                let mut nk = 0;
                if let Some(ct) = conv_t {
                    for r in topo.removable(Bitboard(them)) {
                        let key = ct.index().key(them & !(1 << r.index()));
                        // The chunk reads these blocks at random: asked for all at once,
                        // their lines come at the memory's rate instead of one miss a read.
                        for line in ct.entries()[ct.index().slots_of(&key)].chunks(32) {
                            prefetch(&line[0]);
                        }
                        rkeys[nk] = key;
                        nk += 1;
                    }
                    memo.clear();
                    memo.resize(spu, UNKNOWN);
                }
                let mut mill_value = |after: u32| {
                    let Some(ct) = conv_t else {
                        return Value::Win(1);
                    };
                    let m = &mut memo[idx.offset_in_us_set(ci, after) as usize];
                    if *m == UNKNOWN {
                        let (cidx, entries) = (ct.index(), ct.entries());
                        let mut best = Value::Loss(0);
                        for k in &rkeys[..nk] {
                            let v = Value::from_u16(entries[cidx.index_with(k, after) as usize])
                                .expect("entries were checked when the table was read");
                            best = best.max(Value::after_mill(v));
                            if best == Value::Win(1) {
                                break;
                            }
                        }
                        *m = best.to_u16();
                    }
                    Value::from_u16(*m).expect("a memo holds values")
                };
                let mut i = 0;
                idx.for_each_them(ci, |us, canonical| {
                    let slot = i;
                    i += 1;
                    if !canonical {
                        return;
                    }
                    if !symmetric {
                        let (n, conv) = count_moves(topo, fly, us, them, &mut mill_value);
                        words[slot] = pack(UNKNOWN, n, conv_code(conv));
                        return;
                    }
                    let mut kids = [0u32; 64];
                    let mut n = 0;
                    let mut conv: Option<Value> = None;
                    for_each_move(topo, fly, us, them, |after, _to, mill| {
                        if mill {
                            let v = mill_value(after);
                            let best = conv.map_or(v, |c| c.max(v));
                            conv = Some(best);
                            // Nothing beats a mill that wins at once, and the position's
                            // counter is never read: it is solved at level 1, before any
                            // won child can count down (the first frontier holds losses).
                            return best != Value::Win(1);
                        }
                        // Without a symmetry every move is a child of its own (see below),
                        // and the count is all the setup needs.
                        if symmetric {
                            kids[n] = idx.smallest_image(ci, after);
                        }
                        n += 1;
                        true
                    });
                    // Different moves lead to different positions with the same `them`,
                    // which are one position only by a symmetry fixing `them`.
                    let mut distinct = n;
                    if symmetric && n > 0 {
                        let kids = &mut kids[..n];
                        kids.sort_unstable();
                        distinct = 1 + kids.windows(2).filter(|p| p[0] != p[1]).count();
                    }
                    words[slot] = pack(UNKNOWN, distinct as u8, conv_code(conv));
                });
            },
        );
        setups.push((idx, words));
    }
    // The marks of the levels only now, after the smaller tables are gone.
    let mut works: Vec<Work> = setups
        .into_iter()
        .map(|(idx, words)| Work {
            idx,
            // Same layout: collected in place, without a second buffer.
            slots: words.into_iter().map(AtomicU32::new).collect(),
            solved_before: chunk_flags(idx.len()),
            solved_now: chunk_flags(idx.len()),
            bits_before: slot_bits(idx.len()),
            bits_now: slot_bits(idx.len()),
            lost_before: slot_bits(idx.len()),
            lost_now: slot_bits(idx.len()),
        })
        .collect();
    let setup_secs = start.elapsed().as_secs_f64();
    // Slots of the files (the solving slots are as many positions in a different layout).
    let slots: u64 = file_indexes.iter().map(|f| f.len() as u64).sum();
    let positions: u64 = works
        .iter()
        .map(|w| {
            w.slots
                .par_iter()
                .filter(|s| counter_of(s.load(Relaxed)) != NOT_CANONICAL)
                .count() as u64
        })
        .sum();
    progress(&format!(
        "{} {w}v{b}: {positions} positions in {slots} slots, setup {setup_secs:.1}s",
        rules
    ));

    let mut n: u16 = 0;
    let mut levels = 0;
    let mut last_report = Instant::now();
    // Per thread, the buckets of a batch's updates, kept from batch to batch so that their
    // memory is allocated (and faulted in) once.
    let mut pool: Vec<Vec<Vec<u32>>> = Vec::new();
    // What the levels cost, for the debug log: chunks visited, frontier slots, predecessor
    // updates, and the seconds spent making and applying them.
    let (mut visited, mut fronts, mut updates) = (0u64, 0u64, 0u64);
    let (mut gen_secs, mut upd_secs) = (0f64, 0f64);
    loop {
        let mut found = 0u64;
        if n > 0 {
            let won = Value::Win(n - 1).to_u16();
            let lost = Value::Loss(n - 1).to_u16();
            for (t, &(_, y)) in shapes.iter().enumerate() {
                let work = &works[t];
                let pw = &works[other(t)];
                // The predecessors' mover is the side that is not to move here.
                let fly = rules.flying && y == 3;
                // Every predecessor of a frontier slot, tagged with what it learns: a lost
                // child makes it a win, a won child takes one from its counter.
                let bits = &work.bits_before;
                let is_frontier = |i: u32| bits[i as usize >> 6].load(Relaxed) >> (i & 63) & 1 != 0;
                // A frontier slot holds (them, us) with `us` to move; its predecessors have
                // `them` un-moved and to move, and are keyed by `us`: one key for all, and
                // each one's image is its position's image with one point's image moved.
                let pidx = &pw.idx;
                let lost_bits = &work.lost_before;
                let preds_of = |i: u32, them: u32, us: u32, out: &mut Vec<Vec<u32>>| {
                    let is_lost = lost_bits[i as usize >> 6].load(Relaxed) >> (i & 63) & 1 != 0;
                    debug_assert!({
                        let v = value_of(work.slots[i as usize].load(Relaxed));
                        v == if is_lost { lost } else { won }
                    });
                    let tag = if is_lost { WIN_TAG } else { 0 };
                    let key = pidx.key(us);
                    let image = pidx.image(&key, them);
                    let empty = !(us | them) & FULL;
                    let mut preds = [0u32; 64];
                    let mut np = 0;
                    let mut tos = them;
                    while tos != 0 {
                        let to = tos.trailing_zeros() as usize;
                        tos &= tos - 1;
                        if topo.closes_mill(Bitboard(them), Point::from_index(to)) {
                            continue;
                        }
                        let without = image ^ pidx.point_image(&key, to);
                        let mut froms = if fly {
                            empty
                        } else {
                            topo.adjacent[to].0 & empty
                        };
                        while froms != 0 {
                            let from = froms.trailing_zeros() as usize;
                            froms &= froms - 1;
                            preds[np] =
                                pidx.index_of_image(&key, without | pidx.point_image(&key, from));
                            np += 1;
                        }
                    }
                    let preds = &mut preds[..np];
                    // Predecessors differ in the mover's set only (`us` stays): they share
                    // slots only by a symmetry fixing `us`.
                    if key.is_symmetric() {
                        preds.sort_unstable();
                    }
                    for k in 0..np {
                        if k > 0 && preds[k] == preds[k - 1] {
                            continue;
                        }
                        let p = preds[k];
                        out[(p >> PART_BITS) as usize].push(p | tag);
                    }
                };
                let parts = pw.slots.len().div_ceil(1 << PART_BITS);
                let frontier: Vec<usize> = (0..work.solved_before.len())
                    .into_par_iter()
                    .filter(|&c| work.solved_before[c].load(Relaxed))
                    .collect();
                let len = work.slots.len();
                let tasks = rayon::current_num_threads().max(1);
                visited += frontier.len() as u64;
                for batch in frontier.chunks(BATCH_CHUNKS) {
                    let t0 = Instant::now();
                    // Updates go to buckets by the region of the table they touch, and each
                    // region is then updated by one thread: the random accesses of a region
                    // stay in the cache and need no atomic read-modify-write.
                    let per_task = batch.len().div_ceil(tasks).max(1);
                    pool.resize_with(tasks, Vec::new);
                    for buckets in pool.iter_mut() {
                        buckets.resize_with(parts, Vec::new);
                        buckets.iter_mut().for_each(Vec::clear);
                    }
                    fronts += batch
                        .par_chunks(per_task)
                        .zip(pool.par_iter_mut())
                        .map(|(cs, out)| {
                            // Counted per task: a shared counter would bounce between cores.
                            let mut task_fronts = 0u64;
                            for &c in cs {
                                let lo = (c << CHUNK_BITS) as u32;
                                let hi = len.min((c + 1) << CHUNK_BITS) as u32;
                                let words =
                                    &bits[c * CHUNK_WORDS..bits.len().min((c + 1) * CHUNK_WORDS)];
                                let wanted: usize = words
                                    .iter()
                                    .map(|b| b.load(Relaxed).count_ones() as usize)
                                    .sum();
                                task_fronts += wanted as u64;
                                if wanted >= DENSE_CHUNK {
                                    work.idx.for_each_slot_in(
                                        lo,
                                        hi,
                                        is_frontier,
                                        |i, them, us| preds_of(i, them, us, out),
                                    );
                                } else {
                                    for (k, b) in words.iter().enumerate() {
                                        let mut m = b.load(Relaxed);
                                        while m != 0 {
                                            let i = lo + (k as u32) * 64 + m.trailing_zeros();
                                            m &= m - 1;
                                            let (them, us, _) = work.idx.unrank(i);
                                            preds_of(i, them, us, out);
                                        }
                                    }
                                }
                            }
                            task_fronts
                        })
                        .sum::<u64>();
                    let t1 = Instant::now();
                    gen_secs += (t1 - t0).as_secs_f64();
                    updates += pool.iter().flatten().map(|b| b.len() as u64).sum::<u64>();
                    let buckets = &pool;
                    found += (0..parts)
                        .into_par_iter()
                        .map(|part| {
                            let mut newly = 0u64;
                            for task in buckets {
                                let ups = &task[part];
                                for (k, &u) in ups.iter().enumerate() {
                                    if let Some(&ahead) = ups.get(k + PREFETCH_AHEAD) {
                                        prefetch(&pw.slots[(ahead & !WIN_TAG) as usize]);
                                    }
                                    newly += pw.update(u, n) as u64;
                                }
                            }
                            newly
                        })
                        .sum::<u64>();
                    upd_secs += t1.elapsed().as_secs_f64();
                }
            }
        }
        if n == 0 || n == 1 || n == LIMIT + 1 {
            for work in &works {
                found += (0..work.slots.len())
                    .into_par_iter()
                    .with_min_len(1 << 12)
                    .map(|i| {
                        let word = work.slots[i].load(Relaxed);
                        let c = counter_of(word);
                        if c == NOT_CANONICAL || value_of(word) != UNKNOWN {
                            return 0u64;
                        }
                        let conv = conv_of(word);
                        let v = if conv == C_WIN1 && n == 1 {
                            Value::Win(1)
                        } else if conv == C_WIN_SPOILT && n == LIMIT + 1 {
                            Value::Win(n)
                        } else if c == 0 && conv_loss_floor(conv) == Some(n) {
                            Value::Loss(n)
                        } else {
                            return 0;
                        };
                        work.solve(i, v) as u64
                    })
                    .sum::<u64>();
            }
        }
        for work in &mut works {
            std::mem::swap(&mut work.solved_before, &mut work.solved_now);
            std::mem::swap(&mut work.bits_before, &mut work.bits_now);
            std::mem::swap(&mut work.lost_before, &mut work.lost_now);
            // What the level before last marked: only its chunks have bits to clear.
            let (bits, lost) = (&work.bits_now, &work.lost_now);
            work.solved_now.par_iter().enumerate().for_each(|(c, f)| {
                if f.load(Relaxed) {
                    f.store(false, Relaxed);
                    let words = c * CHUNK_WORDS..bits.len().min((c + 1) * CHUNK_WORDS);
                    bits[words.clone()].iter().for_each(|b| b.store(0, Relaxed));
                    lost[words].iter().for_each(|b| b.store(0, Relaxed));
                }
            });
        }
        if last_report.elapsed().as_secs_f64() >= 2.0 {
            last_report = Instant::now();
            progress(&format!(
                "{} {w}v{b}: level {n}, {found} positions, {:.1}s",
                rules,
                start.elapsed().as_secs_f64()
            ));
        }
        log::trace!("{w}v{b} level {n}: {found} solved");
        if found > 0 {
            levels += 1;
            n += 1;
            if n >= super::value::MAX_DISTANCE {
                return Err(format!("{w}v{b}: distances beyond the encoding"));
            }
        } else if n < 1 {
            n = 1;
        } else if n < LIMIT + 1 {
            n = LIMIT + 1;
        } else {
            break;
        }
    }

    // The update buffers hold up to hundreds of megabytes: not kept beside a mapped table.
    drop(pool);
    hugepages::release_free_memory();
    log::debug!(
        "{w}v{b} levels: {visited} chunks visited ({} slots), {fronts} frontier slots, \
         {updates} updates; {gen_secs:.1}s making them, {upd_secs:.1}s applying them, \
         {:.1}s in all after a setup of {setup_secs:.1}s",
        visited << CHUNK_BITS,
        start.elapsed().as_secs_f64() - setup_secs
    );
    let map_start = Instant::now();
    // Unsolved canonical positions are draws. Each slot of a file is mapped to the solving
    // slot of its position (keyed the other way, always a canonical one), whose value it
    // takes. One table at a time, (b, w) first (its file is written first: the (w, b) file
    // marks a finished job), each solving array dropped once its entries are out and each
    // table handed over before the next is made; the levels' marks are dropped first.
    let held: Vec<(SubIndex, Vec<AtomicU32>)> =
        works.into_iter().map(|w| (w.idx, w.slots)).collect();
    for (((idx, slots), &(x, y)), file) in held
        .into_iter()
        .zip(&shapes)
        .zip(file_indexes)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        let draw = Value::Draw.to_u16();
        let final_value = |word: u32| match value_of(word) {
            UNKNOWN => draw,
            v => v,
        };
        // On huge pages: a later job of the same run looks its conversions up in this table
        // at random, and with small pages most of those look-ups would miss the TLB.
        let mut entries: Vec<u16> = hugepages::filled(file.len(), 0);
        // A file's slots in order are solving slots at random: their numbers are collected
        // per `us` set and then read with prefetches running ahead.
        entries
            .par_chunks_mut(file.slots_per_us())
            .enumerate()
            .for_each_init(Vec::<u32>::new, |at, (ci, out)| {
                at.clear();
                let us = file.us_set(ci);
                file.for_each_them(ci, |them, _| at.push(idx.index(them, us)));
                for (k, e) in out.iter_mut().enumerate() {
                    if let Some(&ahead) = at.get(k + MAP_AHEAD) {
                        prefetch(&slots[ahead as usize]);
                    }
                    *e = final_value(slots[at[k] as usize].load(Relaxed));
                }
            });
        drop(slots);
        emit(Table::from_entries(rules, x, y, entries))?;
    }
    log::debug!(
        "{w}v{b} mapped to the files' layout in {:.1}s",
        map_start.elapsed().as_secs_f64()
    );
    let secs = start.elapsed().as_secs_f64();
    Ok(SolveStats {
        slots,
        positions,
        levels,
        setup_secs,
        secs,
    })
}

/// Where a check one ply deep reads the values of children: a table in memory or a mapped
/// file.
pub trait Values {
    /// The stored value of the position with piece sets `us` (to move) and `them`.
    fn value_of(&self, us: u32, them: u32) -> Result<Value, TbError>;
}

impl Values for Table {
    #[inline]
    fn value_of(&self, us: u32, them: u32) -> Result<Value, TbError> {
        Ok(self.get(us, them))
    }
}

impl Values for TableFile {
    #[inline]
    fn value_of(&self, us: u32, them: u32) -> Result<Value, TbError> {
        self.get(us, them)
    }
}

/// The value of position (us to move, them) computed from its children one ply deep: `same`
/// is the table (b, w), `conv` the table (b - 1, w) (`None` when b == 3).
pub fn value_from_children(
    rules: Rules,
    us: u32,
    them: u32,
    same: &Table,
    conv: Option<&Table>,
) -> Value {
    value_from_children_with(rules, us, them, same, conv).expect("tables in memory")
}

/// [`value_from_children`] over any source of values, such as mapped files.
pub fn value_from_children_with<S: Values + ?Sized, C: Values + ?Sized>(
    rules: Rules,
    us: u32,
    them: u32,
    same: &S,
    conv: Option<&C>,
) -> Result<Value, TbError> {
    let topo = Topology::of(rules.variant);
    let fly = rules.flying && us.count_ones() == 3;
    let mut best: Option<Value> = None;
    let mut err = None;
    for_each_move(topo, fly, us, them, |after, _to, mill| {
        let v = if mill {
            match conv {
                None => Ok(Value::Win(1)),
                Some(t) => {
                    let mut best = Ok(Value::Loss(0));
                    for r in topo.removable(Bitboard(them)) {
                        best = best.and_then(|b: Value| {
                            t.value_of(them & !(1 << r.index()), after)
                                .map(|v| b.max(Value::after_mill(v)))
                        });
                    }
                    best
                }
            }
        } else {
            same.value_of(them, after).map(Value::parent)
        };
        match v {
            Ok(v) => best = Some(best.map_or(v, |b| b.max(v))),
            Err(e) => err = Some(e),
        }
        err.is_none()
    });
    match err {
        Some(e) => Err(e),
        None => Ok(best.unwrap_or(Value::Loss(0))),
    }
}

/// Checks every slot of `table` (w, b) against its children: `same` is (b, w), `conv` is
/// (b - 1, w) or `None` when b == 3. Returns the number of slots checked, or the first few
/// disagreements.
pub fn verify_table(table: &Table, same: &Table, conv: Option<&Table>) -> Result<u64, String> {
    let idx = *table.index();
    let bad: Vec<String> = (0..idx.len() as u32)
        .into_par_iter()
        .with_min_len(1 << 12)
        .filter_map(|i| {
            let (us, them, _) = idx.unrank(i);
            let want = value_from_children(table.rules, us, them, same, conv);
            let got = Value::from_u16(table.entries()[i as usize]);
            (got != Some(want)).then(|| {
                format!("slot {i} (us {us:#08x}, them {them:#08x}): stored {got:?}, children say {want}")
            })
        })
        .take_any(5)
        .collect();
    if bad.is_empty() {
        Ok(idx.len() as u64)
    } else {
        Err(bad.join("\n"))
    }
}
