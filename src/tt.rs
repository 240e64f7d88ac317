//! The transposition table shared by all search threads.
//!
//! Each entry is two `AtomicU64`s: the packed data and the key XOR the data. A reader accepts an
//! entry only when `stored_key ^ data == key`, so a torn write (two threads storing the same slot
//! at once, each word from a different writer) shows up as a key mismatch and is ignored rather
//! than trusted. That makes relaxed atomics enough: no locks, no `unsafe`, and a lost or torn
//! entry costs only a little search work. Buckets of four entries fill one 64-byte cache line;
//! the bucket index is the high half of `key * bucket_count` (multiply-high), which spreads keys
//! evenly for any table size.

use crate::moves::Move;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// What a stored score says about the true value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    /// No information (an empty slot).
    None = 0,
    /// The true value is at most the score (fail-low).
    Upper = 1,
    /// The true value is at least the score (fail-high).
    Lower = 2,
    /// The score is exact.
    Exact = 3,
}

impl Bound {
    fn from_bits(b: u64) -> Bound {
        match b & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }
}

/// A decoded table entry.
#[derive(Copy, Clone, Debug)]
pub struct TtEntry {
    /// The best or refuting move found, if any.
    pub mv: Option<Move>,
    /// The score, with win/loss distances relative to the stored node (see `score_to_tt`).
    pub score: i32,
    /// The static evaluation of the node.
    pub eval: i32,
    /// The depth searched.
    pub depth: i32,
    /// What the score means.
    pub bound: Bound,
}

// Data word layout (bits): 0..16 move, 16..32 score (i16), 32..48 eval (i16), 48..56 depth (u8,
// offset by DEPTH_OFFSET so quiescence depths fit), 56..58 bound, 58..64 generation.
const DEPTH_OFFSET: i32 = 16;

fn pack(mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound, gen: u8) -> u64 {
    let m = mv.map_or(0, |m| m.to_u16()) as u64;
    let s = (score as i16 as u16) as u64;
    let e = (eval as i16 as u16) as u64;
    let d = (depth + DEPTH_OFFSET).clamp(0, 255) as u64;
    m | s << 16 | e << 32 | d << 48 | (bound as u64) << 56 | ((gen & 63) as u64) << 58
}

fn unpack(data: u64) -> TtEntry {
    TtEntry {
        mv: Move::from_u16(data as u16),
        score: (data >> 16) as u16 as i16 as i32,
        eval: (data >> 32) as u16 as i16 as i32,
        depth: ((data >> 48) & 255) as i32 - DEPTH_OFFSET,
        bound: Bound::from_bits(data >> 56),
    }
}

#[derive(Default)]
struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

#[repr(align(64))]
#[derive(Default)]
struct Bucket {
    slots: [Slot; 4],
}

/// A fixed-size, lock-free hash table of search results.
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one bucket). Panics if memory runs out; see
    /// [`TranspositionTable::try_new`].
    pub fn new(mb: usize) -> TranspositionTable {
        Self::try_new(mb).expect("memory for the transposition table")
    }

    /// A table of about `mb` mebibytes, or an error when the memory cannot be had. Sizes beyond
    /// the memory the system reports available are refused up front: the table is written in
    /// full when it is made, and overcommitted memory would end the process instead.
    pub fn try_new(mb: usize) -> Result<TranspositionTable, String> {
        check_size(mb)?;
        let bytes = mb.max(1).saturating_mul(1024 * 1024);
        let count = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut buckets = Vec::new();
        buckets
            .try_reserve_exact(count)
            .map_err(|e| format!("cannot allocate {mb} MiB: {e}"))?;
        buckets.resize_with(count, Bucket::default);
        Ok(TranspositionTable {
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// The table size in mebibytes.
    pub fn size_mb(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>() / (1024 * 1024)
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for b in &self.buckets {
            for s in &b.slots {
                s.key.store(0, Ordering::Relaxed);
                s.data.store(0, Ordering::Relaxed);
            }
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed) & 63
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        let idx = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[idx]
    }

    /// Asks the processor to start loading a position's bucket: a move calls it as soon as
    /// the child's key is known, so the child's probe finds the line in the cache.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: a prefetch only hints the cache; SSE is part of every x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks a position up.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        for s in &self.bucket(key).slots {
            let data = s.data.load(Ordering::Relaxed);
            if data != 0 && s.key.load(Ordering::Relaxed) ^ data == key {
                return Some(unpack(data));
            }
        }
        None
    }

    /// Stores a result. Replaces the same position's entry (keeping its move if the new result
    /// has none), else the slot that is emptiest, oldest and shallowest.
    #[inline]
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let gen = self.generation();
        let bucket = self.bucket(key);
        let mut victim = &bucket.slots[0];
        let mut victim_worth = i32::MAX;
        for s in &bucket.slots {
            let data = s.data.load(Ordering::Relaxed);
            if data == 0 {
                victim = s;
                break;
            }
            if s.key.load(Ordering::Relaxed) ^ data == key {
                let old = unpack(data);
                // A shallower non-exact result must not evict a deeper one of this position.
                if bound != Bound::Exact && depth < old.depth - 2 {
                    return;
                }
                let mv = mv.or(old.mv);
                let new = pack(mv, score, eval, depth, bound, gen);
                s.data.store(new, Ordering::Relaxed);
                s.key.store(key ^ new, Ordering::Relaxed);
                return;
            }
            let age = (gen.wrapping_sub((data >> 58) as u8)) & 63;
            let worth = ((data >> 48) & 255) as i32 - 8 * age as i32;
            if worth < victim_worth {
                victim_worth = worth;
                victim = s;
            }
        }
        let new = pack(mv, score, eval, depth, bound, gen);
        victim.data.store(new, Ordering::Relaxed);
        victim.key.store(key ^ new, Ordering::Relaxed);
    }

    /// Permille of slots used by the current search, sampled from the first 1000 slots.
    pub fn hashfull(&self) -> u32 {
        let gen = self.generation() as u64;
        let mut used = 0u32;
        let mut seen = 0;
        for b in self.buckets.iter().take(250) {
            for s in &b.slots {
                let d = s.data.load(Ordering::Relaxed);
                seen += 1;
                if d != 0 && (d >> 58) == gen {
                    used += 1;
                }
            }
        }
        (used * 1000).checked_div(seen).unwrap_or(0)
    }
}

/// Whether tables of `mb` MiB in all fit in the memory the system reports available (90% of
/// it), without allocating anything.
pub fn check_size(mb: usize) -> Result<(), String> {
    let bytes = mb.max(1).saturating_mul(1024 * 1024);
    match available_memory() {
        Some(avail) if bytes as u64 > avail / 10 * 9 => Err(format!(
            "{mb} MiB is more than the {} MiB of memory available",
            avail / (1024 * 1024)
        )),
        _ => Ok(()),
    }
}

/// Available memory in bytes as Linux reports it; `None` elsewhere.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        let m: Move = "d6-d5xa1".parse().unwrap();
        tt.store(0xDEAD_BEEF_1234, Some(m), -1234, 56, 7, Bound::Lower);
        let e = tt.probe(0xDEAD_BEEF_1234).unwrap();
        assert_eq!(e.mv, Some(m));
        assert_eq!(
            (e.score, e.eval, e.depth, e.bound),
            (-1234, 56, 7, Bound::Lower)
        );
        assert!(tt.probe(0xDEAD_BEEF_1235).is_none());
        tt.store(0xDEAD_BEEF_1234, None, 5, 0, 9, Bound::Exact);
        let e = tt.probe(0xDEAD_BEEF_1234).unwrap();
        assert_eq!(e.mv, Some(m), "the move survives a store without one");
        assert_eq!(e.depth, 9);
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF_1234).is_none());
    }

    #[test]
    fn absurd_sizes_are_refused() {
        assert!(TranspositionTable::try_new(1 << 40).is_err());
    }

    #[test]
    fn negative_depth_round_trips() {
        let tt = TranspositionTable::new(1);
        tt.store(42, None, 0, 0, -3, Bound::Upper);
        assert_eq!(tt.probe(42).unwrap().depth, -3);
    }
}
