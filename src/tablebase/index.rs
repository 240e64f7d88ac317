//! Indexing of a sub-space: positions (us, them) with `w` and `b` pieces, reduced by symmetry.
//!
//! Scheme (near-perfect, simple to check):
//!
//! 1. The `us` sets of size `w` fall into orbits under the symmetries. The canonical `us` set of
//!    an orbit is its numerically smallest member; they are numbered in increasing order.
//! 2. A position's canonical form maps `us` onto its canonical set with some symmetry `g`, and
//!    among all such `g` (they differ by the stabiliser of the canonical set) takes the one that
//!    gives the smallest `them` set.
//! 3. index = canonical `us` number * C(24 - w, b) + colex rank of `them` among the
//!    `24 - w` points left free by the canonical `us`.
//!
//! Slots whose `them` set is not the smallest of its stabiliser orbit are never the canonical
//! form of anything; they exist only when the canonical `us` set has a non-trivial stabiliser,
//! which is rare, so the waste is a few percent. Tables fill those slots with the value of their
//! canonical twin, so every slot of a file holds a true value.

use super::symmetry::Symmetries;
use crate::types::Variant;
use std::sync::OnceLock;

/// Binomial coefficients C(n, k) for n, k <= 24.
pub const BINOM: [[u32; 25]; 25] = {
    let mut t = [[0u32; 25]; 25];
    let mut n = 0;
    while n < 25 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// Colex rank of a set among the sets of its size: the sum of C(p_i, i) over its points
/// p_1 < p_2 < ... (i from 1). For sets of one size this is also their numeric order.
/// `bits` must lie within the 24 points.
#[inline(always)]
pub fn colex_rank(bits: u32) -> u32 {
    debug_assert!(bits < 1 << 24);
    // A byte's share depends only on the byte and on how many points lie below it, so three
    // look-ups replace a step per point; this runs for every child in the generator.
    let (b0, b1, b2) = (bits & 0xff, (bits >> 8) & 0xff, bits >> 16);
    let c1 = b0.count_ones() as usize;
    let c2 = c1 + b1.count_ones() as usize;
    COLEX_BYTES[b0 as usize]
        + COLEX_BYTES[(1 + c1) * 256 + b1 as usize]
        + COLEX_BYTES[(10 + c2) * 256 + b2 as usize]
}

/// [`colex_rank`] one point at a time, to build and check the byte tables.
const fn colex_rank_slow(mut bits: u32) -> u32 {
    let mut r = 0;
    let mut i = 1;
    while bits != 0 {
        r += BINOM[bits.trailing_zeros() as usize][i];
        i += 1;
        bits &= bits - 1;
    }
    r
}

/// Byte shares of [`colex_rank`]: row 0 is the low byte; rows 1 + c (c = 0..=8) the middle byte
/// with c points below it; rows 10 + c (c = 0..=16) the high byte with c points below.
static COLEX_BYTES: [u32; 27 * 256] = {
    let mut t = [0u32; 27 * 256];
    let mut row = 0;
    while row < 27 {
        let (k, c) = if row == 0 {
            (0, 0)
        } else if row < 10 {
            (1, row - 1)
        } else {
            (2, row - 10)
        };
        let mut byte = 0;
        while byte < 256 {
            // c points below the byte at 0..c, then the byte's own points in place.
            let below = if c == 0 { 0 } else { (1u32 << c) - 1 };
            let set = below | (byte as u32) << (8 * k);
            t[row * 256 + byte] = colex_rank_slow(set) - colex_rank_slow(below);
            byte += 1;
        }
        row += 1;
    }
    t
};

/// The `us` sets of one size for one variant: orbits, canonical members and stabilisers.
#[derive(Debug)]
pub struct UsIndex {
    /// Canonical sets in increasing order.
    pub canon: Vec<u32>,
    /// For each canonical set, the symmetries that fix it, as a bit mask (bit 0: identity).
    pub stab: Vec<u16>,
    /// For each set (by colex rank): canonical number << 5 | whether the canonical set has a
    /// symmetry other than the identity << 4 | a symmetry mapping it there: a key of a set
    /// without a symmetry loads this word only.
    map: Vec<u32>,
}

impl UsIndex {
    fn build(syms: &Symmetries, w: usize) -> UsIndex {
        let total = BINOM[24][w] as usize;
        let mut map = Vec::with_capacity(total);
        let mut canon = Vec::new();
        let mut stab = Vec::new();
        let mut s: u32 = (1u32 << w) - 1;
        for rank in 0..total {
            debug_assert_eq!(colex_rank(s), rank as u32);
            let (mut best, mut best_g) = (s, 0);
            for g in 1..syms.len() {
                let t = syms.apply(g, s);
                if t < best {
                    best = t;
                    best_g = g;
                }
            }
            if best == s {
                let mut mask = 0u16;
                for g in 0..syms.len() {
                    if syms.apply(g, s) == s {
                        mask |= 1 << g;
                    }
                }
                map.push((canon.len() as u32) << 5 | ((mask != 1) as u32) << 4);
                canon.push(s);
                stab.push(mask);
            } else {
                // The orbit's minimum is numerically smaller, so it was numbered already.
                let e = map[colex_rank(best) as usize] & !15;
                map.push(e | best_g as u32);
            }
            if w == 0 || rank + 1 == total {
                break;
            }
            // Next set of the same size in numeric order (Gosper's hack).
            let c = s & s.wrapping_neg();
            let r = s + c;
            s = (((r ^ s) >> 2) / c) | r;
        }
        UsIndex { canon, stab, map }
    }

    /// The index of the `us` sets of size `w` (computed once per variant and size).
    pub fn of(variant: Variant, w: usize) -> &'static UsIndex {
        static CACHE: OnceLock<Vec<OnceLock<UsIndex>>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| (0..50).map(|_| OnceLock::new()).collect());
        let slot = match variant {
            Variant::Nine => w,
            Variant::Twelve => 25 + w,
        };
        cache[slot].get_or_init(|| UsIndex::build(Symmetries::of(variant), w))
    }
}

/// The part of a slot computation that depends on the `us` set only (see [`SubIndex::key`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct UsKey {
    base: u32,
    g: u8,
    stab: u16,
    free: u32,
    us: u32,
}

impl UsKey {
    /// Whether a symmetry other than the identity fixes the `us` set. Only then can two
    /// different `them` sets share a slot under this key.
    #[inline]
    pub fn is_symmetric(&self) -> bool {
        self.stab != 1
    }

    /// For a canonical `us` set without a symmetry, the first slot of its `them` sets: the
    /// slot of `them` is then this plus the colex rank of `them` among the free points, which
    /// the placing generator computes incrementally. `None` otherwise.
    #[inline]
    pub fn plain_base(&self) -> Option<u32> {
        (self.g == 0 && self.stab == 1).then_some(self.base)
    }
}

/// The index of one sub-space: `w` pieces for the side to move, `b` for the other side.
#[derive(Clone, Copy, Debug)]
pub struct SubIndex {
    /// Pieces of the side to move.
    pub w: u8,
    /// Pieces of the other side.
    pub b: u8,
    slots: u32,
    us: &'static UsIndex,
    syms: &'static Symmetries,
}

impl SubIndex {
    /// The index of sub-space (w, b) of a variant; `w + b <= 24`.
    pub fn new(variant: Variant, w: u8, b: u8) -> SubIndex {
        assert!(w as usize + b as usize <= 24);
        SubIndex {
            w,
            b,
            slots: BINOM[24 - w as usize][b as usize],
            us: UsIndex::of(variant, w as usize),
            syms: Symmetries::of(variant),
        }
    }

    /// Number of slots (entries of the table).
    pub fn len(&self) -> usize {
        self.us.canon.len() * self.slots as usize
    }

    /// Whether the sub-space has no slot (never, for legal sizes).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The slot of the position with these piece sets (`us` has `w` points, `them` has `b`,
    /// disjoint).
    #[inline]
    pub fn index(&self, us: u32, them: u32) -> u32 {
        self.index_with(&self.key(us), them)
    }

    /// What the slot of a position takes from its `us` set alone: the generator indexes all
    /// children of a position with one key, since the mover's opponent is the child's mover.
    #[inline]
    pub fn key(&self, us: u32) -> UsKey {
        debug_assert_eq!(us.count_ones(), self.w as u32);
        let e = self.us.map[colex_rank(us) as usize];
        let ci = (e >> 5) as usize;
        let g = (e & 15) as u8;
        UsKey {
            base: ci as u32 * self.slots,
            g,
            // Most canonical sets have no symmetry: their stabiliser is not loaded.
            stab: if e & 16 != 0 { self.us.stab[ci] } else { 1 },
            free: !self.syms.apply(g as usize, us) & 0xff_ffff,
            us,
        }
    }

    /// [`SubIndex::index`] of (`key`'s us set, `them`).
    #[inline]
    pub fn index_with(&self, key: &UsKey, them: u32) -> u32 {
        debug_assert_eq!(them.count_ones(), self.b as u32);
        debug_assert_eq!(key.us & them, 0);
        self.index_of_image(key, self.image(key, them))
    }

    /// The image of a `them` set under the symmetry that `key` maps its `us` set with.
    #[inline(always)]
    pub fn image(&self, key: &UsKey, them: u32) -> u32 {
        self.syms.apply(key.g as usize, them)
    }

    /// [`SubIndex::image`] of one point, as a set. Images are unions of these: the generator
    /// finds a predecessor's image from its position's image by moving one point's image.
    #[inline(always)]
    pub fn point_image(&self, key: &UsKey, p: usize) -> u32 {
        self.syms.point(key.g as usize, p)
    }

    /// The slots of `key`'s `us` set: every [`SubIndex::index_with`] of the key lies in them.
    #[inline]
    pub fn slots_of(&self, key: &UsKey) -> std::ops::Range<usize> {
        key.base as usize..(key.base + self.slots) as usize
    }

    /// [`SubIndex::index_with`] of a `them` set given by its [`SubIndex::image`] `t`.
    #[inline(always)]
    pub fn index_of_image(&self, key: &UsKey, t: u32) -> u32 {
        key.base + rank_in_free(self.min_image(key.stab, t), key.free)
    }

    /// The smallest image of `t` under the symmetries fixing the `ci`-th canonical `us` set:
    /// two `them` sets give the same position with that set iff their smallest images agree.
    #[inline]
    pub fn smallest_image(&self, ci: usize, t: u32) -> u32 {
        self.min_image(self.us.stab[ci], t)
    }

    /// The smallest image of `t` under the symmetries of mask `st`.
    #[inline(always)]
    fn min_image(&self, st: u16, t: u32) -> u32 {
        let mut m = st & !1;
        let mut best = t;
        while m != 0 {
            best = best.min(self.syms.apply(m.trailing_zeros() as usize, t));
            m &= m - 1;
        }
        best
    }

    /// Where the position (`ci`-th canonical `us` set, `t`) lies among that set's slots, as
    /// it is, without a symmetry: its slot is `ci * slots_per_us()` plus this.
    #[inline]
    pub fn offset_in_us_set(&self, ci: usize, t: u32) -> u32 {
        rank_in_free(t, !self.us.canon[ci] & 0xff_ffff)
    }

    /// Whether a symmetry other than the identity fixes the `ci`-th canonical `us` set.
    #[inline]
    pub fn us_set_is_symmetric(&self, ci: usize) -> bool {
        self.us.stab[ci] != 1
    }

    /// Number of canonical `us` sets; slots `ci * slots_per_us() ..` belong to the `ci`-th.
    pub fn us_count(&self) -> usize {
        self.us.canon.len()
    }

    /// Number of slots per canonical `us` set: C(24 - w, b).
    pub fn slots_per_us(&self) -> usize {
        self.slots as usize
    }

    /// The `ci`-th canonical `us` set.
    pub fn us_set(&self, ci: usize) -> u32 {
        self.us.canon[ci]
    }

    /// Calls `f(them, canonical)` for the slots of the `ci`-th canonical `us` set in slot order.
    /// Stepping to the next `them` set is a few operations where
    /// [`SubIndex::unrank`] searches every point, and the generator visits every slot.
    #[inline]
    pub fn for_each_them<F: FnMut(u32, bool)>(&self, ci: usize, mut f: F) {
        let u = self.us.canon[ci];
        let st = self.us.stab[ci];
        let dep = Deposit::new(!u & 0xff_ffff);
        let mut c: u32 = (1u32 << self.b) - 1;
        for n in 0..self.slots {
            let t = dep.apply(c);
            f(t, st == 1 || self.smallest_under(st, t));
            if c == 0 || n + 1 == self.slots {
                break;
            }
            c = next_combination(c);
        }
    }

    /// Calls `f(slot, us, them)` for the slots `lo..hi` for which `want(slot)` holds, in slot
    /// order. It steps from slot to slot as [`SubIndex::for_each_them`] does and maps only the
    /// wanted slots onto the board: when many slots of a range are wanted (the dense levels of
    /// the generator), that costs a fraction of an [`SubIndex::unrank`] per slot.
    pub fn for_each_slot_in<W, F>(&self, lo: u32, hi: u32, mut want: W, mut f: F)
    where
        W: FnMut(u32) -> bool,
        F: FnMut(u32, u32, u32),
    {
        let mut i = lo;
        while i < hi {
            let ci = (i / self.slots) as usize;
            let end = hi.min((ci as u32 + 1) * self.slots);
            let u = self.us.canon[ci];
            let dep = Deposit::new(!u & 0xff_ffff);
            let mut c = colex_unrank(i % self.slots, self.b as usize);
            loop {
                if want(i) {
                    f(i, u, dep.apply(c));
                }
                i += 1;
                if i == end {
                    break;
                }
                c = next_combination(c);
            }
        }
    }

    /// Whether `t` is the smallest of its images under the symmetries of mask `st`.
    #[inline]
    fn smallest_under(&self, st: u16, t: u32) -> bool {
        let mut m = st & !1;
        while m != 0 {
            if self.syms.apply(m.trailing_zeros() as usize, t) < t {
                return false;
            }
            m &= m - 1;
        }
        true
    }

    /// The position stored in a slot, and whether the slot is the canonical form of it.
    pub fn unrank(&self, idx: u32) -> (u32, u32, bool) {
        let ci = (idx / self.slots) as usize;
        let u = self.us.canon[ci];
        let t = deposit_slow(
            colex_unrank(idx % self.slots, self.b as usize),
            !u & 0xff_ffff,
        );
        let st = self.us.stab[ci];
        (u, t, st == 1 || self.smallest_under(st, t))
    }
}

/// The set of `k` numbers (bits 0..24) with colex rank `r` among the sets of its size.
#[inline]
fn colex_unrank(mut r: u32, k: usize) -> u32 {
    let mut c = 0u32;
    let mut hi = 24;
    for i in (1..=k).rev() {
        // The largest p with C(p, i) <= r is the i-th number of the set.
        let mut p = hi - 1;
        while BINOM[p][i] > r {
            p -= 1;
        }
        r -= BINOM[p][i];
        c |= 1 << p;
        hi = p;
    }
    c
}

/// The next set of as many numbers in colex (numeric) order; `c` must not be empty.
#[inline(always)]
pub(crate) fn next_combination(c: u32) -> u32 {
    let t = c | (c - 1);
    (t + 1) | (((!t & (t + 1)) - 1) >> (c.trailing_zeros() + 1))
}

/// Maps a set of free-point numbers (bit j: the j-th point of `free` in increasing order) onto
/// the board, one point at a time.
fn deposit_slow(c: u32, mut free: u32) -> u32 {
    let mut t = 0;
    let mut j = 0;
    while free != 0 {
        let low = free & free.wrapping_neg();
        if c & (1 << j) != 0 {
            t |= low;
        }
        free &= free - 1;
        j += 1;
    }
    t
}

/// [`deposit_slow`] by byte tables built for one set of free points: three look-ups a set.
pub(crate) struct Deposit([[u32; 256]; 3]);

impl Deposit {
    pub(crate) fn new(mut free: u32) -> Deposit {
        let mut dep = [[0u32; 256]; 3];
        for d in dep.iter_mut() {
            let mut pts = [0u32; 8];
            for pt in pts.iter_mut() {
                if free != 0 {
                    *pt = free & free.wrapping_neg();
                    free &= free - 1;
                }
            }
            for x in 1..256usize {
                d[x] = d[x & (x - 1)] | pts[x.trailing_zeros() as usize];
            }
        }
        Deposit(dep)
    }

    #[inline(always)]
    pub(crate) fn apply(&self, c: u32) -> u32 {
        self.0[0][(c & 0xff) as usize]
            | self.0[1][((c >> 8) & 0xff) as usize]
            | self.0[2][((c >> 16) & 0xff) as usize]
    }
}

/// Colex rank of `t` as a subset of the points of `free`, numbered in increasing order: the
/// points of `t` are packed down onto the free-point numbers byte by byte ([`PEXT8`]), then
/// ranked by [`colex_rank`]. Every predecessor the generator finds is indexed through this.
#[inline(always)]
pub(crate) fn rank_in_free(t: u32, free: u32) -> u32 {
    debug_assert_eq!(t & !free, 0);
    let (f0, f1, f2) = (free & 0xff, (free >> 8) & 0xff, free >> 16);
    let c = PEXT8[f0 as usize][(t & 0xff) as usize] as u32
        | (PEXT8[f1 as usize][((t >> 8) & 0xff) as usize] as u32) << f0.count_ones()
        | (PEXT8[f2 as usize][(t >> 16) as usize] as u32) << (free & 0xffff).count_ones();
    colex_rank(c)
}

/// `PEXT8[mask][x]`: the bits of `x` at the positions of `mask`, packed to the bottom (what
/// the BMI2 instruction `pext` does, for one byte).
static PEXT8: [[u8; 256]; 256] = {
    let mut t = [[0u8; 256]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut x = 0;
        while x < 256 {
            let (mut out, mut j, mut bit) = (0u8, 0, 0);
            while bit < 8 {
                if mask & (1 << bit) != 0 {
                    if x & (1 << bit) != 0 {
                        out |= 1 << j;
                    }
                    j += 1;
                }
                bit += 1;
            }
            t[mask][x] = out;
            x += 1;
        }
        mask += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(BINOM[24][3], 2024);
        assert_eq!(BINOM[21][3], 1330);
        assert_eq!(BINOM[24][12], 2_704_156);
        assert_eq!(BINOM[3][5], 0);
    }

    #[test]
    fn colex_rank_by_bytes_matches_point_by_point() {
        for bits in 0..1u32 << 24 {
            assert_eq!(colex_rank(bits), colex_rank_slow(bits), "{bits:#x}");
        }
    }

    #[test]
    fn for_each_them_walks_the_slots_in_order() {
        for variant in [Variant::Nine, Variant::Twelve] {
            for (w, b) in [(3, 3), (4, 5), (3, 0), (1, 1), (12, 12), (9, 3)] {
                let sub = SubIndex::new(variant, w, b);
                for ci in (0..sub.us_count()).step_by(7) {
                    let base = (ci * sub.slots_per_us()) as u32;
                    let mut i = base;
                    sub.for_each_them(ci, |t, canonical| {
                        let (_, t0, c0) = sub.unrank(i);
                        assert_eq!((t, canonical), (t0, c0), "{w}v{b} slot {i}");
                        assert_eq!(base + sub.offset_in_us_set(ci, t), i);
                        i += 1;
                    });
                    assert_eq!(
                        sub.us_set(ci),
                        sub.unrank((ci * sub.slots_per_us()) as u32).0
                    );
                    assert_eq!(i as usize, (ci + 1) * sub.slots_per_us());
                }
            }
        }
    }

    #[test]
    fn for_each_slot_in_agrees_with_unrank() {
        for variant in [Variant::Nine, Variant::Twelve] {
            for (w, b) in [(3, 3), (4, 5), (5, 7), (9, 8)] {
                let sub = SubIndex::new(variant, w, b);
                let len = sub.len() as u32;
                // Ranges across `us` sets, and every other slot wanted.
                for lo in (0..len).step_by((len / 13) as usize + 1) {
                    let hi = len.min(lo + 3 * sub.slots_per_us() as u32 / 2 + 5);
                    let mut next = lo;
                    sub.for_each_slot_in(
                        lo,
                        hi,
                        |i| i % 2 == 0,
                        |i, u, t| {
                            assert!(i >= next && i % 2 == 0);
                            next = i + 1;
                            let (u0, t0, _) = sub.unrank(i);
                            assert_eq!((u, t), (u0, t0), "{w}v{b} slot {i}");
                        },
                    );
                    assert!(next + 2 >= hi);
                }
            }
        }
    }

    #[test]
    fn rank_in_free_by_bytes_matches_point_by_point() {
        // The rank point by point: the position of each point among the free ones.
        fn slow(mut t: u32, free: u32) -> u32 {
            let (mut r, mut i) = (0, 1);
            while t != 0 {
                let p = t.trailing_zeros();
                r += BINOM[(free & ((1u32 << p) - 1)).count_ones() as usize][i];
                i += 1;
                t &= t - 1;
            }
            r
        }
        let mut x: u32 = 0x9e37_79b9;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let free = x & 0xff_ffff;
            let t = free & x.rotate_left(11);
            assert_eq!(rank_in_free(t, free), slow(t, free), "{t:#x} in {free:#x}");
        }
    }

    #[test]
    fn next_combination_steps_in_numeric_order() {
        for k in 1..=12u32 {
            let mut c = (1u32 << k) - 1;
            // Every set below 2^16, so that the check of what lies between stays cheap.
            while c < 1 << 16 {
                let n = next_combination(c);
                assert!(n > c && n.count_ones() == k);
                assert!((c + 1..n).all(|x| x.count_ones() != k));
                c = n;
            }
        }
    }

    #[test]
    fn unrank_inverts_index_and_covers_orbits() {
        for variant in [Variant::Nine, Variant::Twelve] {
            let sub = SubIndex::new(variant, 3, 3);
            let syms = Symmetries::of(variant);
            let mut canon_slots = 0u64;
            let mut orbit_sum = 0u64;
            for idx in 0..sub.len() as u32 {
                let (u, t, canonical) = sub.unrank(idx);
                assert_eq!(u.count_ones(), 3);
                assert_eq!(t.count_ones(), 3);
                assert_eq!(u & t, 0);
                if canonical {
                    assert_eq!(sub.index(u, t), idx);
                    canon_slots += 1;
                    let mut images: Vec<(u32, u32)> = (0..syms.len())
                        .map(|g| (syms.apply(g, u), syms.apply(g, t)))
                        .collect();
                    images.sort_unstable();
                    images.dedup();
                    for &(a, b) in &images {
                        assert_eq!(sub.index(a, b), idx);
                    }
                    orbit_sum += images.len() as u64;
                } else {
                    assert_ne!(sub.index(u, t), idx);
                }
            }
            // The orbits of the canonical slots partition all positions.
            assert_eq!(orbit_sum, 2024 * 1330);
            assert!(canon_slots * 16 >= 2024 * 1330);
        }
    }
}
