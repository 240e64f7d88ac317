//! The network in floating point: what training changes, and the reference that the integer
//! inference is checked against.
//!
//! The shape is the integer network's ([`super::Network`]): the first layer, shared by both
//! views, maps the sparse features to `hidden` values per view (one of [`super::WIDTHS`]);
//! the side to move's values and then the other side's, each clipped to `[0, 1]`, feed two
//! dense layers clipped the same way, and the last layer gives three logits (win, draw, loss
//! for the side to move). A bucketed network has a set of dense layers per stage of the game
//! ([`super::bucket`]), stored one after the other in each dense vector; their number is the
//! vectors' length over one set's.

use super::features::{self, List};
use super::{bucket_of, HIDDEN, L1, L2, MAX_HIDDEN, OUTPUTS};
use crate::position::Position;
use rand::Rng;

/// Largest magnitude of a first-layer weight or bias: with at most
/// [`features::MAX_ACTIVE`] features on, the integer accumulator (255 per unit) stays inside
/// an `i16`.
pub const FT_CLIP: f32 = 1.7;
/// Largest magnitude of a dense layer's weight (256 per unit in an `i16`).
pub const DENSE_CLIP: f32 = 64.0;

/// Every weight and bias, row-major, one row per output unit (the first layer: one row per
/// feature).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// First layer: `features::COUNT` rows of `hidden` (the biases' length).
    pub ft_w: Vec<f32>,
    /// First layer's biases.
    pub ft_b: Vec<f32>,
    /// Second layer: `L1` rows of `2 * hidden` (each bucket's in turn, as for every dense
    /// weight and bias below).
    pub l1_w: Vec<f32>,
    /// Second layer's biases.
    pub l1_b: Vec<f32>,
    /// Third layer: `L2` rows of `L1`.
    pub l2_w: Vec<f32>,
    /// Third layer's biases.
    pub l2_b: Vec<f32>,
    /// Output layer: `OUTPUTS` rows of `L2`.
    pub out_w: Vec<f32>,
    /// Output biases.
    pub out_b: Vec<f32>,
}

/// Every intermediate value of one forward pass, for the backward pass.
#[derive(Clone, Debug)]
pub struct Activations {
    /// The first layer's sums, side to move first (before clipping): the first `2 * hidden`.
    pub acc: [f32; 2 * MAX_HIDDEN],
    /// Second layer's sums.
    pub z1: [f32; L1],
    /// Third layer's sums.
    pub z2: [f32; L2],
    /// The logits.
    pub out: [f32; OUTPUTS],
}

/// Clipped ReLU.
#[inline]
pub fn crelu(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

impl FloatNet {
    /// A network with small random weights (He-style scaling for the dense layers) and one
    /// set of dense layers (the first networks' shape).
    pub fn random(rng: &mut impl Rng) -> FloatNet {
        FloatNet::random_with(rng, 1)
    }

    /// A network of the first width with small random weights and `buckets` sets of dense
    /// layers.
    pub fn random_with(rng: &mut impl Rng, buckets: usize) -> FloatNet {
        FloatNet::random_shaped(rng, HIDDEN, buckets)
    }

    /// A network with small random weights, `hidden` first-layer units per view and `buckets`
    /// sets of dense layers.
    pub fn random_shaped(rng: &mut impl Rng, hidden: usize, buckets: usize) -> FloatNet {
        let mut uniform = |n: usize, scale: f32| -> Vec<f32> {
            (0..n).map(|_| rng.gen_range(-scale..scale)).collect()
        };
        FloatNet {
            ft_w: uniform(features::COUNT * hidden, 0.1),
            ft_b: vec![0.1; hidden],
            l1_w: uniform(
                buckets * L1 * 2 * hidden,
                (6.0 / (2 * hidden) as f32).sqrt(),
            ),
            l1_b: vec![0.0; buckets * L1],
            l2_w: uniform(buckets * L2 * L1, (6.0 / L1 as f32).sqrt()),
            l2_b: vec![0.0; buckets * L2],
            out_w: uniform(buckets * OUTPUTS * L2, (6.0 / L2 as f32).sqrt()),
            out_b: vec![0.0; buckets * OUTPUTS],
        }
    }

    /// First-layer units per view.
    pub fn hidden(&self) -> usize {
        self.ft_b.len()
    }

    /// Sets of dense layers.
    pub fn buckets(&self) -> usize {
        self.l1_b.len() / L1
    }

    /// The same network with `buckets` sets of dense layers, each a copy of a one-set
    /// network's: it evaluates every position as before, and a training from it lets each
    /// stage's set go its own way (a warm start for a bucketed network).
    pub fn with_buckets(&self, buckets: usize) -> FloatNet {
        assert_eq!(self.buckets(), 1, "only a network of one set is copied");
        let rep = |v: &Vec<f32>| v.repeat(buckets);
        FloatNet {
            ft_w: self.ft_w.clone(),
            ft_b: self.ft_b.clone(),
            l1_w: rep(&self.l1_w),
            l1_b: rep(&self.l1_b),
            l2_w: rep(&self.l2_w),
            l2_b: rep(&self.l2_b),
            out_w: rep(&self.out_w),
            out_b: rep(&self.out_b),
        }
    }

    /// The forward pass from the two views' active features (side to move's first), through
    /// the dense layers of `bucket`.
    pub fn forward_features(&self, stm: &[u16], other: &[u16], bucket: usize) -> Activations {
        let h = self.hidden();
        let mut acc = [0f32; 2 * MAX_HIDDEN];
        for (half, list) in [stm, other].into_iter().enumerate() {
            let a = &mut acc[half * h..(half + 1) * h];
            a.copy_from_slice(&self.ft_b);
            for &f in list {
                let row = &self.ft_w[f as usize * h..(f as usize + 1) * h];
                for (x, w) in a.iter_mut().zip(row) {
                    *x += w;
                }
            }
        }
        let x0: Vec<f32> = acc[..2 * h].iter().map(|&v| crelu(v)).collect();
        let (l1_w, l1_b) = (self.l1_w_of(bucket), &self.l1_b[bucket * L1..][..L1]);
        let mut z1 = [0f32; L1];
        for (k, z) in z1.iter_mut().enumerate() {
            let row = &l1_w[k * 2 * h..(k + 1) * 2 * h];
            *z = l1_b[k] + row.iter().zip(&x0).map(|(w, x)| w * x).sum::<f32>();
        }
        let (l2_w, l2_b) = (self.l2_w_of(bucket), &self.l2_b[bucket * L2..][..L2]);
        let mut z2 = [0f32; L2];
        for (k, z) in z2.iter_mut().enumerate() {
            let row = &l2_w[k * L1..(k + 1) * L1];
            *z = l2_b[k] + row.iter().zip(&z1).map(|(w, &x)| w * crelu(x)).sum::<f32>();
        }
        let (out_w, out_b) = (
            self.out_w_of(bucket),
            &self.out_b[bucket * OUTPUTS..][..OUTPUTS],
        );
        let mut out = [0f32; OUTPUTS];
        for (k, o) in out.iter_mut().enumerate() {
            let row = &out_w[k * L2..(k + 1) * L2];
            *o = out_b[k] + row.iter().zip(&z2).map(|(w, &x)| w * crelu(x)).sum::<f32>();
        }
        Activations { acc, z1, z2, out }
    }

    /// The second layer's weights of `bucket`.
    pub fn l1_w_of(&self, bucket: usize) -> &[f32] {
        let n = L1 * 2 * self.hidden();
        &self.l1_w[bucket * n..][..n]
    }

    /// The third layer's weights of `bucket`.
    pub fn l2_w_of(&self, bucket: usize) -> &[f32] {
        &self.l2_w[bucket * L2 * L1..][..L2 * L1]
    }

    /// The output layer's weights of `bucket`.
    pub fn out_w_of(&self, bucket: usize) -> &[f32] {
        &self.out_w[bucket * OUTPUTS * L2..][..OUTPUTS * L2]
    }

    /// The logits (win, draw, loss for the side to move) of a position.
    pub fn logits(&self, pos: &Position) -> [f32; OUTPUTS] {
        let us = pos.side_to_move();
        let (mut a, mut b) = (List::new(), List::new());
        features::active(pos, us, &mut a);
        features::active(pos, us.other(), &mut b);
        self.forward_features(a.as_slice(), b.as_slice(), bucket_of(pos, self.buckets()))
            .out
    }

    /// Keeps every weight inside what the integer network can hold.
    pub fn clip(&mut self) {
        for w in self.ft_w.iter_mut().chain(self.ft_b.iter_mut()) {
            *w = w.clamp(-FT_CLIP, FT_CLIP);
        }
        for w in self
            .l1_w
            .iter_mut()
            .chain(self.l2_w.iter_mut())
            .chain(self.out_w.iter_mut())
        {
            *w = w.clamp(-DENSE_CLIP, DENSE_CLIP);
        }
    }

    /// Every parameter as one list of slices, in a fixed order (for optimizers).
    pub fn params_mut(&mut self) -> [&mut Vec<f32>; 8] {
        [
            &mut self.ft_w,
            &mut self.ft_b,
            &mut self.l1_w,
            &mut self.l1_b,
            &mut self.l2_w,
            &mut self.l2_b,
            &mut self.out_w,
            &mut self.out_b,
        ]
    }

    /// Zeros of the same shape (a gradient or an optimizer's moment).
    pub fn zeros_like(&self) -> FloatNet {
        let z = |v: &Vec<f32>| vec![0.0; v.len()];
        FloatNet {
            ft_w: z(&self.ft_w),
            ft_b: z(&self.ft_b),
            l1_w: z(&self.l1_w),
            l1_b: z(&self.l1_b),
            l2_w: z(&self.l2_w),
            l2_b: z(&self.l2_b),
            out_w: z(&self.out_w),
            out_b: z(&self.out_b),
        }
    }
}
