//! The learned evaluation: a small NNUE-style network trained on the exact values of the tables
//! (`mill-train`), run in integers.
//!
//! Inputs are sparse ([`features`]); the first layer's sums for each view live in an
//! [`Accumulator`] that a move updates by the few features it turns on and off, so that a node
//! pays only for the dense layers. The network's three outputs are the win, draw and loss
//! chances of the side to move; the search reads their expected score as centipieces through
//! the same logistic curve that [`crate::search::wdl`] shows scores with.
//!
//! Quantization: the first layer's weights are stored as `round(255 w)` in `i16`, so a clipped
//! value `[0, 1]` is `[0, 255]`; the dense layers' weights as `round(256 w)`, their sums shifted
//! back by 8 bits. The float network ([`float::FloatNet`]) is the reference; the tests bound the
//! difference.

pub mod features;
pub mod file;
pub mod float;

use crate::position::Position;
use crate::types::{Color, Rules, Variant};
use features::List;
use std::sync::{Arc, OnceLock};

/// First-layer units per view of the first networks (the built-in ones of both variants).
pub const HIDDEN: usize = 128;
/// First-layer units per view of the widest network a file may hold, twice the first
/// networks' (tried for nine: docs/nnue.md, "A wider first layer"). A network's width is one
/// of [`WIDTHS`].
pub const MAX_HIDDEN: usize = 256;
/// The widths a network file may have.
pub const WIDTHS: [usize; 2] = [HIDDEN, MAX_HIDDEN];
/// Units of the second layer.
pub const L1: usize = 32;
/// Units of the third layer.
pub const L2: usize = 32;
/// Outputs: win, draw, loss for the side to move.
pub const OUTPUTS: usize = 3;
/// Dense-layer sets of a bucketed network ([`bucket`]); a network of one set (the first
/// files') reads every position with it.
pub const BUCKETS: usize = 8;
/// A clipped activation of 1.0.
pub const QA: i32 = 255;
/// A dense weight of 1.0.
pub const QB: i32 = 256;
/// `log2(QB)`.
const QB_SHIFT: u32 = 8;
/// Centipieces per unit of the expected score's logit: the curve of [`crate::search::wdl`].
const SCORE_SCALE: f64 = 292.0;
/// The largest evaluation the network gives, far below the tables' and the mates' scores.
pub const MAX_SCORE: i32 = 4000;

/// A network in integers, ready for the search.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// The variant it was trained for.
    pub variant: Variant,
    /// What the file says of its training (data, seed, sizes), shown by `eval`.
    pub description: String,
    /// The file's checksum (FNV-1a 64 of its contents), to tell nets apart.
    pub checksum: u64,
    /// Whether the file has the neighbourhood features (the first networks' shape has not:
    /// their rows are zero, and a move need not compute them).
    pub(crate) neighbourhoods: bool,
    /// Dense-layer sets: 1, or [`BUCKETS`] chosen by the game's stage ([`bucket`]).
    pub buckets: usize,
    /// First-layer units per view, one of [`WIDTHS`].
    pub hidden: usize,
    pub(crate) ft_w: Vec<i16>,
    pub(crate) ft_b: Vec<i16>,
    pub(crate) l1_w: Vec<i16>,
    pub(crate) l1_b: Vec<i32>,
    pub(crate) l2_w: Vec<i16>,
    pub(crate) l2_b: Vec<i32>,
    pub(crate) out_w: Vec<i16>,
    pub(crate) out_b: Vec<i32>,
    /// `l1_w` and `l2_w` by input pairs ([`by_input_pairs`]), the layout the search reads.
    pub(crate) l1_pairs: Vec<PairBlock>,
    pub(crate) l2_pairs: Vec<PairBlock>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({}, {:016x}, {})",
            self.variant.name(),
            self.checksum,
            self.description
        )
    }
}

/// Which of `buckets` dense-layer sets reads a position: with one set, 0; with [`BUCKETS`],
/// the placing phase in six stages of equal length by the placements made, then the moving
/// phase, and last a moving phase where a side is down to three pieces (where flying, if the
/// rules have it, changes what the pieces can do). The first layer is shared: it is most of
/// the weights and all of the incremental update, and a stage's own dense layers cost nothing
/// at run time but their memory (about 18 KB a set).
#[inline]
pub fn bucket(variant: Variant, hands: [u8; 2], on_board: [u32; 2], buckets: usize) -> usize {
    if buckets == 1 {
        return 0;
    }
    let total = 2 * variant.pieces() as usize;
    let in_hand = (hands[0] + hands[1]) as usize;
    if in_hand > 0 {
        (total - in_hand) * 6 / total
    } else if on_board[0].min(on_board[1]) <= 3 {
        7
    } else {
        6
    }
}

/// [`bucket`] of a position.
#[inline]
pub fn bucket_of(pos: &Position, buckets: usize) -> usize {
    bucket(
        pos.variant(),
        [pos.in_hand(Color::White), pos.in_hand(Color::Black)],
        [
            pos.pieces(Color::White).count(),
            pos.pieces(Color::Black).count(),
        ],
        buckets,
    )
}

/// The first layer's sums of both views (White's, Black's), unclipped: the network's
/// `hidden` first values of each view, the rest zero.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Accumulator {
    /// By view: `[White's, Black's]`.
    pub values: [[i16; MAX_HIDDEN]; 2],
}

impl Accumulator {
    /// The sums of `pos` computed from scratch.
    pub fn new(net: &Network, pos: &Position) -> Accumulator {
        let mut acc = Accumulator {
            values: [[0; MAX_HIDDEN]; 2],
        };
        let mut list = List::new();
        for view in Color::ALL {
            features::active(pos, view, &mut list);
            let v = &mut acc.values[view.index()][..net.hidden];
            v.copy_from_slice(&net.ft_b);
            apply_rows(v, net, &[], list.as_slice());
        }
        acc
    }

    /// The sums after a move from `before` to `after`, from this accumulator of `before`.
    #[inline]
    pub fn updated(&self, net: &Network, before: &Position, after: &Position) -> Accumulator {
        let mut acc = *self;
        acc.update(net, before, after);
        acc
    }

    /// Makes these sums those of `after`, from `parent`'s sums of `before`: the search's lazy
    /// update. Only the network's width is copied (a narrow network's sums are half the array).
    #[inline]
    pub fn update_from(
        &mut self,
        parent: &Accumulator,
        net: &Network,
        before: &Position,
        after: &Position,
    ) {
        for (v, p) in self.values.iter_mut().zip(&parent.values) {
            v[..net.hidden].copy_from_slice(&p[..net.hidden]);
        }
        self.update(net, before, after);
    }

    /// Makes these sums of `before` those of `after`, in place.
    #[inline]
    pub fn update(&mut self, net: &Network, before: &Position, after: &Position) {
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            // SAFETY: the processor has AVX2 (checked just above).
            return unsafe { self.update_avx2(net, before, after) };
        }
        self.update_generic(net, before, after)
    }

    /// The same code compiled for AVX2 (the row additions in 16 lanes).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn update_avx2(&mut self, net: &Network, before: &Position, after: &Position) {
        self.update_generic(net, before, after)
    }

    #[inline(always)]
    fn update_generic(&mut self, net: &Network, before: &Position, after: &Position) {
        let (mut removed, mut added) = (List::new(), List::new());
        features::changed(
            before,
            after,
            Color::White,
            net.neighbourhoods,
            &mut removed,
            &mut added,
        );
        for view in Color::ALL {
            if view == Color::Black {
                // Black's difference is White's with the owners swapped.
                removed.mirror();
                added.mirror();
            }
            apply_rows(
                &mut self.values[view.index()][..net.hidden],
                net,
                removed.as_slice(),
                added.as_slice(),
            );
        }
    }
}

/// Takes the `removed` rows from a view's sums and adds the `added` ones, a chunk of the sums
/// at a time: the chunk stays in registers while every row passes over it, where a row at a
/// time would load and store the whole accumulator for each.
#[inline(always)]
fn apply_rows(v: &mut [i16], net: &Network, removed: &[u16], added: &[u16]) {
    // The width as a constant, so that the chunks' loop is unrolled as it was before networks
    // had a width of their own (a run-time width cost 15 % of the search's speed).
    if let Ok(v) = <&mut [i16; HIDDEN]>::try_from(&mut *v) {
        apply_rows_of(v, net, removed, added)
    } else {
        apply_rows_of::<MAX_HIDDEN>(v.try_into().unwrap(), net, removed, added)
    }
}

#[inline(always)]
fn apply_rows_of<const H: usize>(v: &mut [i16; H], net: &Network, removed: &[u16], added: &[u16]) {
    const CHUNK: usize = 64;
    for c in (0..H).step_by(CHUNK) {
        let mut x: [i16; CHUNK] = v[c..c + CHUNK].try_into().unwrap();
        for &f in removed {
            for (x, w) in x.iter_mut().zip(&net.row(f)[c..c + CHUNK]) {
                *x = x.wrapping_sub(*w);
            }
        }
        for &f in added {
            for (x, w) in x.iter_mut().zip(&net.row(f)[c..c + CHUNK]) {
                *x = x.wrapping_add(*w);
            }
        }
        v[c..c + CHUNK].copy_from_slice(&x);
    }
}

/// `i16` dot product in `i32`, in a shape the compiler turns into multiply-add instructions.
#[inline(always)]
fn dot_generic(a: &[i16], b: &[i16]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    let mut lanes = [0i32; 16];
    for (ca, cb) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        for i in 0..16 {
            lanes[i] += ca[i] as i32 * cb[i] as i32;
        }
    }
    let tail = a.len() - a.len() % 16;
    let mut s: i32 = lanes.iter().sum();
    for i in tail..a.len() {
        s += a[i] as i32 * b[i] as i32;
    }
    s
}

/// AVX2's multiply-add, 16 products an instruction: the dense layers are most of a node's
/// cost, and the baseline x86-64 target the binary is built for has only SSE2.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// Whether this processor has AVX2 (the standard library caches the answer).
    #[inline(always)]
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }

    /// `a . b` for slices of a multiple of 16.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn dot(a: &[i16], b: &[i16]) -> i32 {
        assert!(a.len() == b.len() && a.len().is_multiple_of(16));
        let mut acc = _mm256_setzero_si256();
        let mut i = 0;
        while i < a.len() {
            // SAFETY: i + 16 <= len for both slices (asserted above); unaligned loads.
            let (x, y) = unsafe {
                (
                    _mm256_loadu_si256(a.as_ptr().add(i) as *const __m256i),
                    _mm256_loadu_si256(b.as_ptr().add(i) as *const __m256i),
                )
            };
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, y));
            i += 16;
        }
        let s = _mm_add_epi32(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256::<1>(acc),
        );
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
        _mm_cvtsi128_si32(s)
    }

    /// [`super::dense_pairs_generic`] in AVX2: each pair of inputs that is not zero is
    /// broadcast and multiplied with its block of weights, 8 outputs an instruction; the pairs
    /// that are zero are found 8 at a time by a compare.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn dense_pairs(x: &[i16], w: &[super::PairBlock], b: &[i32], out: &mut [i16; 32]) {
        assert!(x.len().is_multiple_of(16) && w.len() >= x.len() / 2 && b.len() >= 32);
        let zero = _mm256_setzero_si256();
        // SAFETY: every load is within the slices (asserted above: pair p < len / 2 reads
        // block p, 64-byte aligned; the chunk c reads x[16 c .. 16 c + 16]; the bias 32
        // values); the other loads and the stores are unaligned.
        unsafe {
            let mut s = [
                _mm256_loadu_si256(b.as_ptr() as *const __m256i),
                _mm256_loadu_si256(b.as_ptr().add(8) as *const __m256i),
                _mm256_loadu_si256(b.as_ptr().add(16) as *const __m256i),
                _mm256_loadu_si256(b.as_ptr().add(24) as *const __m256i),
            ];
            for c in 0..x.len() / 16 {
                let v = _mm256_loadu_si256(x.as_ptr().add(16 * c) as *const __m256i);
                let zeros = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero)));
                let mut live = !zeros as u32 & 0xff;
                while live != 0 {
                    let p = 8 * c + live.trailing_zeros() as usize;
                    live &= live - 1;
                    let pair =
                        _mm256_set1_epi32((x.as_ptr().add(2 * p) as *const i32).read_unaligned());
                    let block = w.as_ptr().add(p) as *const __m256i;
                    for (q, s) in s.iter_mut().enumerate() {
                        let wq = _mm256_load_si256(block.add(q));
                        *s = _mm256_add_epi32(*s, _mm256_madd_epi16(pair, wq));
                    }
                }
            }
            let (half, top) = (
                _mm256_set1_epi32(super::QB / 2),
                _mm256_set1_epi32(super::QA),
            );
            let clip = |s: __m256i| {
                let s = _mm256_srai_epi32::<{ super::QB_SHIFT as i32 }>(_mm256_add_epi32(s, half));
                _mm256_min_epi32(_mm256_max_epi32(s, zero), top)
            };
            // packs interleaves the two halves' lanes; the permute puts them back in order.
            for (i, o) in out.chunks_exact_mut(16).enumerate() {
                let packed = _mm256_packs_epi32(clip(s[2 * i]), clip(s[2 * i + 1]));
                let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
                _mm256_storeu_si256(o.as_mut_ptr() as *mut __m256i, ordered);
            }
        }
    }
}

/// A dense layer with clipped output: `out[k] = clamp(round((b[k] + w[k] . x) / 256), 0, QA)`,
/// by rows: the reference for [`dense_pairs_generic`] in the tests.
#[cfg(test)]
fn dense<const N: usize>(x: &[i16], w: &[i16], b: &[i32], out: &mut [i16; N]) {
    let n = x.len();
    for (k, o) in out.iter_mut().enumerate() {
        let s = b[k] + dot_generic(x, &w[k * n..(k + 1) * n]);
        *o = clip(s);
    }
}

/// A dense layer's sum shifted back to the activations' scale and clipped to `[0, QA]`.
#[inline(always)]
fn clip(s: i32) -> i16 {
    ((s + QB / 2) >> QB_SHIFT).clamp(0, QA) as i16
}

/// The weights of a dense layer of 32 outputs for one pair of inputs `(2p, 2p + 1)`: each
/// output's two weights side by side, aligned so that AVX2 reads them in four whole loads.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct PairBlock([i16; 64]);
const _: () = assert!(
    L1 == 32 && L2 == 32,
    "a PairBlock holds the weights of 32 outputs"
);

/// A dense layer's weights (rows of `inputs` for 32 outputs, any number of sets one after the
/// other) rearranged by input pairs ([`PairBlock`]). A layer then adds, for each pair of inputs
/// that is not zero, one block to all its sums at once: three quarters of the clipped inputs
/// are zero, so most blocks are skipped, and no sum needs a horizontal reduction.
fn by_input_pairs(w: &[i16], inputs: usize) -> Vec<PairBlock> {
    let mut out = Vec::with_capacity(w.len() / 64);
    for set in w.chunks_exact(32 * inputs) {
        for p in 0..inputs / 2 {
            let mut block = PairBlock([0; 64]);
            for (k, b) in block.0.chunks_exact_mut(2).enumerate() {
                b.copy_from_slice(&set[k * inputs + 2 * p..][..2]);
            }
            out.push(block);
        }
    }
    out
}

/// A dense layer of 32 outputs with clipped output, `x` even and `w` its [`PairBlock`]s: the
/// same sums as [`dense`] (integers, any order).
#[inline(always)]
fn dense_pairs_generic(x: &[i16], w: &[PairBlock], b: &[i32], out: &mut [i16; 32]) {
    let mut s: [i32; 32] = b.try_into().unwrap();
    for (pair, block) in x.chunks_exact(2).zip(w) {
        let (x0, x1) = (pair[0] as i32, pair[1] as i32);
        if x0 | x1 == 0 {
            continue;
        }
        for (s, w) in s.iter_mut().zip(block.0.chunks_exact(2)) {
            *s += x0 * w[0] as i32 + x1 * w[1] as i32;
        }
    }
    for (o, s) in out.iter_mut().zip(s) {
        *o = clip(s);
    }
}

impl Network {
    /// The first-layer weights of feature `f`.
    #[inline]
    fn row(&self, f: u16) -> &[i16] {
        let (f, h) = (f as usize, self.hidden);
        &self.ft_w[f * h..(f + 1) * h]
    }

    /// The three logits (win, draw, loss for the side to move of `pos`, whose sums `acc`
    /// holds), in units of `QA * QB`.
    #[inline]
    pub fn raw_output(&self, acc: &Accumulator, pos: &Position) -> [i32; OUTPUTS] {
        let (us, b) = (pos.side_to_move(), bucket_of(pos, self.buckets));
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            // SAFETY: the processor has AVX2 (checked just above).
            return unsafe { self.raw_output_avx2(acc, us, b) };
        }
        self.raw_output_with(acc, us, b, dot_generic, dense_pairs_generic)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn raw_output_avx2(&self, acc: &Accumulator, us: Color, b: usize) -> [i32; OUTPUTS] {
        self.raw_output_with(
            acc,
            us,
            b,
            |a, b| avx2::dot(a, b),
            |x, w, b, out| avx2::dense_pairs(x, w, b, out),
        )
    }

    #[inline(always)]
    fn raw_output_with(
        &self,
        acc: &Accumulator,
        us: Color,
        bucket: usize,
        dot: impl Fn(&[i16], &[i16]) -> i32,
        layer: impl Fn(&[i16], &[PairBlock], &[i32], &mut [i16; 32]) + Copy,
    ) -> [i32; OUTPUTS] {
        // The width as a constant (see `apply_rows`).
        let (x0, h) = if self.hidden == HIDDEN {
            (self.inputs_of::<HIDDEN>(acc, us), HIDDEN)
        } else {
            (self.inputs_of::<MAX_HIDDEN>(acc, us), MAX_HIDDEN)
        };
        let (w1, w2, w3) = (h, L1 / 2, OUTPUTS * L2);
        let mut h1 = [0i16; L1];
        layer(
            &x0[..2 * h],
            &self.l1_pairs[bucket * w1..][..w1],
            &self.l1_b[bucket * L1..][..L1],
            &mut h1,
        );
        let mut h2 = [0i16; L2];
        layer(
            &h1,
            &self.l2_pairs[bucket * w2..][..w2],
            &self.l2_b[bucket * L2..][..L2],
            &mut h2,
        );
        let (out_w, out_b) = (
            &self.out_w[bucket * w3..][..w3],
            &self.out_b[bucket * OUTPUTS..][..OUTPUTS],
        );
        let mut out = [0i32; OUTPUTS];
        for (k, o) in out.iter_mut().enumerate() {
            *o = out_b[k] + dot(&h2, &out_w[k * L2..(k + 1) * L2]);
        }
        out
    }

    /// The first dense layer's inputs: the side to move's sums, then the other side's,
    /// clipped to `[0, QA]` (the first `2 H` values).
    #[inline(always)]
    fn inputs_of<const H: usize>(&self, acc: &Accumulator, us: Color) -> [i16; 2 * MAX_HIDDEN] {
        let mut x0 = [0i16; 2 * MAX_HIDDEN];
        for (half, view) in [us, us.other()].into_iter().enumerate() {
            let values: &[i16; H] = acc.values[view.index()][..H].try_into().unwrap();
            for (x, &v) in x0[half * H..][..H].iter_mut().zip(values) {
                *x = v.clamp(0, QA as i16);
            }
        }
        x0
    }

    /// The logits by the layers' rows, as the networks were first run: the reference the
    /// tests hold the pairs' layout to.
    #[cfg(test)]
    fn raw_output_reference(&self, acc: &Accumulator, pos: &Position) -> [i32; OUTPUTS] {
        let (us, bucket, h) = (
            pos.side_to_move(),
            bucket_of(pos, self.buckets),
            self.hidden,
        );
        let x0 = if h == HIDDEN {
            self.inputs_of::<HIDDEN>(acc, us)
        } else {
            self.inputs_of::<MAX_HIDDEN>(acc, us)
        };
        let x0 = &x0[..2 * h];
        let (w1, w2, w3) = (L1 * 2 * h, L2 * L1, OUTPUTS * L2);
        let mut h1 = [0i16; L1];
        dense(
            x0,
            &self.l1_w[bucket * w1..][..w1],
            &self.l1_b[bucket * L1..],
            &mut h1,
        );
        let mut h2 = [0i16; L2];
        dense(
            &h1,
            &self.l2_w[bucket * w2..][..w2],
            &self.l2_b[bucket * L2..],
            &mut h2,
        );
        let out_w = &self.out_w[bucket * w3..][..w3];
        std::array::from_fn(|k| {
            self.out_b[bucket * OUTPUTS + k] + dot_generic(&h2, &out_w[k * L2..][..L2])
        })
    }

    /// The logits as floats, comparable with [`float::FloatNet::logits`].
    pub fn logits(&self, acc: &Accumulator, pos: &Position) -> [f32; OUTPUTS] {
        self.raw_output(acc, pos)
            .map(|o| o as f32 / (QA * QB) as f32)
    }

    /// Win, draw and loss chances for the side to move, in permille adding up to 1000.
    pub fn wdl(&self, acc: &Accumulator, pos: &Position) -> (u32, u32, u32) {
        let p = probabilities(self.logits(acc, pos));
        let w = (p[0] * 1000.0).round() as u32;
        let l = (p[2] * 1000.0).round() as u32;
        let w = w.min(1000);
        let l = l.min(1000 - w);
        (w, 1000 - w - l, l)
    }

    /// The evaluation for the search: the expected score's logit in centipieces, from the side
    /// to move's view.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, pos: &Position) -> i32 {
        score_of_logits(self.logits(acc, pos))
    }

    /// The evaluation of a position from scratch (no accumulator kept).
    pub fn evaluate_position(&self, pos: &Position) -> i32 {
        self.evaluate(&Accumulator::new(self, pos), pos)
    }
}

/// Softmax of three logits.
pub fn probabilities(l: [f32; OUTPUTS]) -> [f32; OUTPUTS] {
    let m = l[0].max(l[1]).max(l[2]);
    let e = l.map(|x| (x - m).exp());
    let s = e[0] + e[1] + e[2];
    e.map(|x| x / s)
}

/// The expected score `win + draw / 2` as centipieces: `SCORE_SCALE * ln(e / (1 - e))`,
/// computed from the logits without losing precision near 0 and 1.
pub fn score_of_logits(l: [f32; OUTPUTS]) -> i32 {
    score_and_certainty(l).0
}

/// [`score_of_logits`] and the likeliest result's probability in permille, from one set of
/// exponentials: the search asks for both at every leaf it evaluates.
#[inline]
pub fn score_and_certainty(l: [f32; OUTPUTS]) -> (i32, u16) {
    let m = l[0].max(l[1]).max(l[2]) as f64;
    let (w, d, lo) = (
        (l[0] as f64 - m).exp(),
        (l[1] as f64 - m).exp(),
        (l[2] as f64 - m).exp(),
    );
    let s = SCORE_SCALE * ((w + d / 2.0).ln() - (lo + d / 2.0).ln());
    // The likeliest result's exponential is exp(0) = 1.
    let sure = (1000.0 / (w + d + lo)) as u16;
    ((s.round() as i32).clamp(-MAX_SCORE, MAX_SCORE), sure)
}

/// The network built into the binary for a rule set. Nine has one for both rules, flying
/// being one of its inputs. Twelve has two: each was trained on the tables of its own rules,
/// and twelve's drawn positions and endings differ with flying (docs/nnue.md, "Twelve with
/// flying: a network of its own"). Each network's flying row is settled: the feature was
/// always on or always off in its training, so it reads only the rest of the position.
pub fn builtin(rules: Rules) -> Option<Arc<Network>> {
    static NINE: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    static TWELVE: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    static TWELVE_FLYING: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    let (cell, bytes, name) = match (rules.variant, rules.flying) {
        (Variant::Nine, _) => (&NINE, file::NINE, "nine"),
        (Variant::Twelve, false) => (&TWELVE, file::TWELVE, "twelve"),
        (Variant::Twelve, true) => (&TWELVE_FLYING, file::TWELVE_FLYING, "twelve with flying"),
    };
    let variant = rules.variant;
    cell.get_or_init(|| match file::parse(bytes) {
        Ok(n) if n.variant == variant => Some(Arc::new(n)),
        Ok(n) => {
            log::error!(
                "the built-in network of {name} is one of {}",
                n.variant.name()
            );
            None
        }
        Err(e) => {
            log::error!("the built-in network of {name} is damaged: {e}");
            None
        }
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::float::FloatNet;
    use super::*;
    use rand::{Rng, SeedableRng};

    fn random_net(seed: u64, variant: Variant, hidden: usize) -> Network {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let f = FloatNet::random_shaped(&mut rng, hidden, 1);
        file::parse(&file::to_bytes(&f, variant, "test")).unwrap()
    }

    /// Incremental updates along random games (both variants, flying on and off, both widths)
    /// equal a fresh accumulator at every position; for twelve also with its built-in
    /// networks: without flying of the first shape, whose updates leave the neighbourhoods
    /// out, and with flying with them (its fine-tune from the first gave them weights).
    #[test]
    fn incremental_accumulator_equals_fresh() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let nets = [
            random_net(3, Variant::Nine, HIDDEN),
            random_net(3, Variant::Nine, MAX_HIDDEN),
            random_net(3, Variant::Twelve, HIDDEN),
            random_net(3, Variant::Twelve, MAX_HIDDEN),
            Network::clone(&builtin(Rules::new(Variant::Twelve, false)).unwrap()),
            Network::clone(&builtin(Rules::new(Variant::Twelve, true)).unwrap()),
        ];
        for net in nets {
            let variant = net.variant;
            for flying in [false, true] {
                for _ in 0..30 {
                    let mut pos = Position::new(Rules::new(variant, flying));
                    let mut acc = Accumulator::new(&net, &pos);
                    let mut stack = vec![(pos, acc)];
                    for _ in 0..150 {
                        if pos.outcome().is_some() {
                            break;
                        }
                        // Sometimes take a few moves back, as the search does.
                        if stack.len() > 3 && rng.gen_bool(0.2) {
                            let back = rng.gen_range(1..stack.len() - 1);
                            stack.truncate(stack.len() - back);
                            (pos, acc) = *stack.last().unwrap();
                            assert_eq!(acc, Accumulator::new(&net, &pos));
                            continue;
                        }
                        let moves = pos.legal_moves();
                        let m = moves[rng.gen_range(0..moves.len())];
                        let mut next = pos;
                        next.make(m);
                        acc = acc.updated(&net, &pos, &next);
                        pos = next;
                        assert_eq!(acc, Accumulator::new(&net, &pos), "{pos}");
                        stack.push((pos, acc));
                    }
                }
            }
        }
    }

    /// The AVX2 path (where the processor has it) equals the portable one.
    #[test]
    fn avx2_equals_generic() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let net = random_net(8, Variant::Nine, MAX_HIDDEN);
        let mut pos = Position::new(Rules::default());
        for _ in 0..40 {
            if pos.outcome().is_some() {
                break;
            }
            let acc = Accumulator::new(&net, &pos);
            let (us, b) = (pos.side_to_move(), bucket_of(&pos, net.buckets));
            assert_eq!(
                net.raw_output(&acc, &pos),
                net.raw_output_with(&acc, us, b, dot_generic, dense_pairs_generic)
            );
            let moves = pos.legal_moves();
            let m = moves[rng.gen_range(0..moves.len())];
            let mut next = pos;
            next.make(m);
            let mut generic = acc;
            generic.update_generic(&net, &pos, &next);
            assert_eq!(acc.updated(&net, &pos, &next), generic);
            pos = next;
        }
        let a: Vec<i16> = (0..256).map(|_| rng.gen_range(-300..300)).collect();
        let b: Vec<i16> = (0..256).map(|_| rng.gen_range(-2000..2000)).collect();
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            // SAFETY: checked just above.
            assert_eq!(unsafe { avx2::dot(&a, &b) }, dot_generic(&a, &b));
        }
    }

    /// The layers by input pairs, which skip the pairs that are zero, give the sums of the
    /// layers by rows, on every path this processor has: for the built-in networks and random
    /// networks of both widths, along random games (each position read by its stage's set), the
    /// sums made sparse on purpose (whole pairs zero, single zeros, all zero, none zero).
    #[test]
    fn layers_by_pairs_equal_layers_by_rows() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut nets: Vec<Network> = BUILTIN_RULES
            .map(|r| Network::clone(&builtin(r).unwrap()))
            .into();
        nets.push(random_net(6, Variant::Nine, HIDDEN));
        nets.push(random_net(7, Variant::Nine, MAX_HIDDEN));
        for net in &nets {
            for game in 0..12 {
                let mut pos = Position::new(Rules::new(net.variant, game % 2 == 0));
                for _ in 0..120 {
                    if pos.outcome().is_some() {
                        break;
                    }
                    let mut acc = Accumulator::new(net, &pos);
                    let zero_share = [0.0, 0.5, 0.9, 1.0][rng.gen_range(0..4)];
                    for v in acc.values.iter_mut() {
                        for x in v[..net.hidden].chunks_mut(2) {
                            if rng.gen_bool(zero_share) {
                                x.fill(0);
                            } else if rng.gen_bool(0.3) {
                                x[rng.gen_range(0..2)] = rng.gen_range(-50..0);
                            }
                        }
                    }
                    let (us, b) = (pos.side_to_move(), bucket_of(&pos, net.buckets));
                    let reference = net.raw_output_reference(&acc, &pos);
                    assert_eq!(net.raw_output(&acc, &pos), reference, "{pos}");
                    assert_eq!(
                        net.raw_output_with(&acc, us, b, dot_generic, dense_pairs_generic),
                        reference
                    );
                    let moves = pos.legal_moves();
                    pos.make(moves[rng.gen_range(0..moves.len())]);
                }
            }
        }
    }

    #[test]
    fn probabilities_and_score_are_consistent() {
        let p = probabilities([0.0, 0.0, 0.0]);
        assert!((p[0] - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(score_of_logits([0.0, 0.0, 0.0]), 0);
        assert!(score_of_logits([3.0, 0.0, -3.0]) > 300);
        assert_eq!(
            score_of_logits([1.0, 0.5, -2.0]),
            -score_of_logits([-2.0, 0.5, 1.0])
        );
        assert_eq!(score_of_logits([80.0, 0.0, -80.0]), MAX_SCORE);
        for l in [
            [0.0, 0.0, 0.0],
            [1.0, 0.5, -2.0],
            [-3.0, 2.5, 0.25],
            [9.0, -1.0, -9.0],
        ] {
            let (e, sure) = score_and_certainty(l);
            assert_eq!(e, score_of_logits(l));
            let p = probabilities(l);
            let want = p[0].max(p[1]).max(p[2]) * 1000.0;
            assert!((sure as f32 - want).abs() <= 1.0, "{l:?}: {sure} {want}");
        }
    }

    /// The rule sets with a built-in network of their own.
    const BUILTIN_RULES: [Rules; 3] = [
        Rules::new(Variant::Nine, true),
        Rules::new(Variant::Twelve, false),
        Rules::new(Variant::Twelve, true),
    ];

    /// Each rule set gets a network of its variant: nine one for both rules, twelve one of
    /// its own for each. Every one reads a position with flying as the same position without
    /// (each was trained on one setting of the feature, and its row is settled by
    /// `mill-train`), so the choice of network is all that the rule changes in the evaluation.
    #[test]
    fn builtin_networks_follow_the_rules() {
        for rules in BUILTIN_RULES {
            let net = builtin(rules).expect("every rule set has a net");
            assert_eq!(net.variant, rules.variant);
        }
        let nine = [true, false].map(|f| builtin(Rules::new(Variant::Nine, f)).unwrap());
        assert_eq!(nine[0].checksum, nine[1].checksum);
        let twelve = [false, true].map(|f| builtin(Rules::new(Variant::Twelve, f)).unwrap());
        assert_ne!(twelve[0].checksum, twelve[1].checksum);
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        for net in twelve {
            for _ in 0..20 {
                let mut with = Position::new(Rules::new(Variant::Twelve, true));
                let mut without = Position::new(Rules::new(Variant::Twelve, false));
                for _ in 0..rng.gen_range(0..60) {
                    let moves = without.legal_moves();
                    if without.outcome().is_some() || moves.is_empty() {
                        break;
                    }
                    let m = moves[rng.gen_range(0..moves.len())];
                    if !with.legal_moves().contains(m) {
                        break;
                    }
                    with.make(m);
                    without.make(m);
                }
                assert_eq!(
                    net.evaluate_position(&with),
                    net.evaluate_position(&without)
                );
            }
        }
    }
}
