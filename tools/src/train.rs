//! `mill-train`: fits the network of `millstone::nnue` to labelled positions from the tables.
//!
//! Written here rather than in a Python framework: the network is small and sparse (a few dozen
//! active features of 6,473, then 256 -> 32 -> 32 -> 3), so a plain backward pass on the CPU keeps
//! both cores busy without a runtime of gigabytes, and the float network it trains is the very
//! `FloatNet` whose quantized form the engine runs (no export step that could drift).
//!
//! The loss is the cross-entropy of the softmax of the three logits against the exact result
//! (win, draw or loss for the side to move); Adam with a learning rate that falls linearly to a
//! tenth over the run; every weight clipped after each step to what the integer network holds.
//! Everything is a function of the seed and the data: the split into training and held-out
//! samples, the order of each epoch, the initial weights, and the sums (each batch is cut into a
//! fixed number of parts whose gradients are added in order, whatever the number of threads).

use millstone::nnue::features::{self, List};
use millstone::nnue::float::{crelu, FloatNet};
use millstone::nnue::{bucket, L1, L2, MAX_HIDDEN, OUTPUTS};
use millstone::tablebase::sample::Sample;
use millstone::topology::Topology;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;

/// Parts a batch is cut into (fixed, so that results do not depend on the threads).
const PARTS: usize = 16;

/// How to train.
#[derive(Clone, Debug)]
pub struct Config {
    /// Passes over the training samples.
    pub epochs: usize,
    /// Samples per step.
    pub batch: usize,
    /// Adam's step size at the start (it falls linearly to a tenth).
    pub lr: f32,
    /// The seed of the split, the order and the initial weights.
    pub seed: u64,
    /// The share of samples held out for validation.
    pub holdout: f64,
    /// Sets of dense layers of a fresh network (1, or `millstone::nnue::BUCKETS`: one per
    /// stage of the game).
    pub buckets: usize,
    /// First-layer units per view of a fresh network (one of `millstone::nnue::WIDTHS`).
    pub hidden: usize,
}

/// Loss and accuracy over a set of samples, by phase.
#[derive(Clone, Copy, Debug, Default)]
pub struct Metrics {
    /// Samples per phase (placing, moving).
    pub count: [u64; 2],
    /// Sum of cross-entropies per phase.
    pub loss: [f64; 2],
    /// Samples whose most likely output is the true result, per phase.
    pub correct: [u64; 2],
}

impl Metrics {
    fn add(&mut self, o: &Metrics) {
        for i in 0..2 {
            self.count[i] += o.count[i];
            self.loss[i] += o.loss[i];
            self.correct[i] += o.correct[i];
        }
    }

    /// Mean loss over both phases.
    pub fn mean_loss(&self) -> f64 {
        (self.loss[0] + self.loss[1]) / (self.count[0] + self.count[1]).max(1) as f64
    }

    /// One line: loss and accuracy overall and per phase.
    pub fn summary(&self) -> String {
        let acc = |i: usize| 100.0 * self.correct[i] as f64 / self.count[i].max(1) as f64;
        let all = 100.0 * (self.correct[0] + self.correct[1]) as f64
            / (self.count[0] + self.count[1]).max(1) as f64;
        format!(
            "loss {:.4}, accuracy {all:.2}% (placing {:.2}% of {}, moving {:.2}% of {})",
            self.mean_loss(),
            acc(0),
            self.count[0],
            acc(1),
            self.count[1]
        )
    }
}

/// The target class of a sample: 0 win, 1 draw, 2 loss (the logits' order).
fn class(s: &Sample) -> usize {
    (1 - s.result) as usize
}

/// The dense-layer set that reads a sample, of `buckets`.
fn bucket_of(s: &Sample, buckets: usize) -> usize {
    bucket(
        s.rules.variant,
        s.hand,
        [s.white.count_ones(), s.black.count_ones()],
        buckets,
    )
}

/// Both views' active features, side to move's first (straight from the sets: building a
/// checked `Position` would cost more than the features).
fn inputs(s: &Sample, a: &mut List, b: &mut List) {
    let topo = Topology::of(s.rules.variant);
    let us = s.side.index();
    let sets = [s.white, s.black];
    let hands = [s.hand[0] as usize, s.hand[1] as usize];
    let flying = s.rules.flying;
    features::active_sets(
        topo,
        [sets[us], sets[1 - us]],
        [hands[us], hands[1 - us]],
        flying,
        a,
    );
    features::active_sets(
        topo,
        [sets[1 - us], sets[us]],
        [hands[1 - us], hands[us]],
        flying,
        b,
    );
}

fn softmax(l: &[f32; OUTPUTS]) -> [f32; OUTPUTS] {
    let m = l.iter().fold(f32::MIN, |a, &b| a.max(b));
    let e = l.map(|x| (x - m).exp());
    let s: f32 = e.iter().sum();
    e.map(|x| x / s)
}

/// Adds the gradient of one sample's loss (scaled by `scale`) to `g`; returns its metrics.
// Indices read as the layers' equations (row k, input i) across four arrays at once.
#[allow(clippy::needless_range_loop)]
fn backward(net: &FloatNet, s: &Sample, scale: f32, g: &mut FloatNet) -> Metrics {
    let (mut la, mut lb) = (List::new(), List::new());
    inputs(s, &mut la, &mut lb);
    let b = bucket_of(s, net.buckets());
    let act = net.forward_features(la.as_slice(), lb.as_slice(), b);
    let y = class(s);
    let p = softmax(&act.out);
    let mut m = Metrics::default();
    let phase = !s.is_placing() as usize;
    m.count[phase] = 1;
    m.loss[phase] = -(p[y].max(1e-12) as f64).ln();
    let argmax = (0..OUTPUTS).max_by(|&i, &j| p[i].total_cmp(&p[j])).unwrap();
    m.correct[phase] = (argmax == y) as u64;

    let mut dout = p;
    dout[y] -= 1.0;
    for d in &mut dout {
        *d *= scale;
    }
    // Output layer, then the two dense layers, each through the clipped ReLU's gradient.
    // Only the sample's bucket of each dense layer takes part.
    let h = net.hidden();
    let (w1, w2, w3) = (L1 * 2 * h, L2 * L1, OUTPUTS * L2);
    let h2 = act.z2.map(crelu);
    let mut dh2 = [0f32; L2];
    dense_backward(
        &dout,
        &h2,
        net.out_w_of(b),
        &mut g.out_w[b * w3..][..w3],
        &mut g.out_b[b * OUTPUTS..][..OUTPUTS],
        &mut dh2,
    );
    let dz2 = clipped_gradient(&act.z2, dh2);
    let h1 = act.z1.map(crelu);
    let mut dh1 = [0f32; L1];
    dense_backward(
        &dz2,
        &h1,
        net.l2_w_of(b),
        &mut g.l2_w[b * w2..][..w2],
        &mut g.l2_b[b * L2..][..L2],
        &mut dh1,
    );
    let dz1 = clipped_gradient(&act.z1, dh1);
    let x0: Vec<f32> = act.acc[..2 * h].iter().map(|&v| crelu(v)).collect();
    let mut dx0 = [0f32; 2 * MAX_HIDDEN];
    dense_backward(
        &dz1,
        &x0,
        net.l1_w_of(b),
        &mut g.l1_w[b * w1..][..w1],
        &mut g.l1_b[b * L1..][..L1],
        &mut dx0[..2 * h],
    );
    // First layer, shared by both views.
    let dacc_both = clipped_gradient(&act.acc, dx0);
    for (half, list) in [la.as_slice(), lb.as_slice()].into_iter().enumerate() {
        let dacc = &dacc_both[half * h..(half + 1) * h];
        for i in 0..h {
            g.ft_b[i] += dacc[i];
        }
        for &f in list {
            let row = &mut g.ft_w[f as usize * h..(f as usize + 1) * h];
            for i in 0..h {
                row[i] += dacc[i];
            }
        }
    }
    m
}

/// One dense layer backwards: from the gradient `dz` of its sums, adds to its weights' and
/// biases' gradients (`gw`, `gb`, one row of `w` per output) and to its input's (`dx`).
fn dense_backward(
    dz: &[f32],
    x: &[f32],
    w: &[f32],
    gw: &mut [f32],
    gb: &mut [f32],
    dx: &mut [f32],
) {
    let n = x.len();
    for (k, &d) in dz.iter().enumerate() {
        if d == 0.0 {
            continue;
        }
        gb[k] += d;
        let (w, gw) = (&w[k * n..(k + 1) * n], &mut gw[k * n..(k + 1) * n]);
        for i in 0..n {
            gw[i] += d * x[i];
            dx[i] += d * w[i];
        }
    }
}

/// The gradient through a clipped ReLU: it passes only where the sum was inside (0, 1).
fn clipped_gradient<const N: usize>(z: &[f32; N], dh: [f32; N]) -> [f32; N] {
    std::array::from_fn(|i| if z[i] > 0.0 && z[i] < 1.0 { dh[i] } else { 0.0 })
}

/// Loss and accuracy of `net` over `samples`.
pub fn evaluate(net: &FloatNet, samples: &[Sample]) -> Metrics {
    samples
        .par_chunks(4096)
        .map(|chunk| {
            let mut m = Metrics::default();
            let (mut la, mut lb) = (List::new(), List::new());
            for s in chunk {
                inputs(s, &mut la, &mut lb);
                let b = bucket_of(s, net.buckets());
                let p = softmax(&net.forward_features(la.as_slice(), lb.as_slice(), b).out);
                let y = class(s);
                let phase = !s.is_placing() as usize;
                m.count[phase] += 1;
                m.loss[phase] += -(p[y].max(1e-12) as f64).ln();
                let argmax = (0..OUTPUTS).max_by(|&i, &j| p[i].total_cmp(&p[j])).unwrap();
                m.correct[phase] += (argmax == y) as u64;
            }
            m
        })
        .reduce(Metrics::default, |mut a, b| {
            a.add(&b);
            a
        })
}

/// The static accuracy of the integer network (its most likely result against the truth) and
/// of the hand-tuned evaluation's sign (draw within a band of `±T` centipieces, the best `T` of
/// a few reported), per phase and then per stage of the game (`millstone::nnue::bucket` with
/// every set: six placing stages by placements made, the moving phase, a side down to three
/// pieces; stages without samples left out): the measure docs/nnue.md reports.
pub fn check(net: &millstone::nnue::Network, samples: &[Sample]) -> Vec<String> {
    const BANDS: [i32; 5] = [0, 25, 50, 100, 200];
    const ROWS: usize = 2 + millstone::nnue::BUCKETS;
    // [row][0: net, 1..: hand with each band], correct counts; and totals per row. Rows: the
    // two phases, then the stages.
    let (correct, totals) = samples
        .par_chunks(8192)
        .map(|chunk| {
            let mut c = [[0u64; 1 + BANDS.len()]; ROWS];
            let mut t = [0u64; ROWS];
            for s in chunk {
                let pos = s.position();
                let rows = [
                    !s.is_placing() as usize,
                    2 + bucket_of(s, millstone::nnue::BUCKETS),
                ];
                let acc = millstone::nnue::Accumulator::new(net, &pos);
                let (w, d, l) = net.wdl(&acc, &pos);
                let guess = if w >= d && w >= l {
                    1
                } else if l > d {
                    -1
                } else {
                    0
                };
                let e = millstone::eval::evaluate(&pos);
                let hand_right = BANDS.map(|band| {
                    let g = if e > band {
                        1
                    } else if e < -band {
                        -1
                    } else {
                        0
                    };
                    g == s.result
                });
                for r in rows {
                    t[r] += 1;
                    c[r][0] += (guess == s.result) as u64;
                    for (b, &right) in hand_right.iter().enumerate() {
                        c[r][1 + b] += right as u64;
                    }
                }
            }
            (c, t)
        })
        .reduce(
            || ([[0u64; 1 + BANDS.len()]; ROWS], [0u64; ROWS]),
            |(mut a, mut t), (b, u)| {
                for p in 0..ROWS {
                    for i in 0..a[p].len() {
                        a[p][i] += b[p][i];
                    }
                    t[p] += u[p];
                }
                (a, t)
            },
        );
    let pct = |k: u64, n: u64| 100.0 * k as f64 / n.max(1) as f64;
    let mut out = vec![format!(
        "{:<8} {:>9} {:>8} {}",
        "phase",
        "positions",
        "network",
        BANDS.map(|b| format!("hand±{b:<4}")).join(" ")
    )];
    for p in 0..ROWS {
        if p >= 2 && totals[p] == 0 {
            continue;
        }
        let name = match p {
            0 => "placing".to_string(),
            1 => "moving".to_string(),
            _ => format!("stage {}", p - 2),
        };
        let hands: Vec<String> = (0..BANDS.len())
            .map(|b| format!("{:>8.2}%", pct(correct[p][1 + b], totals[p])))
            .collect();
        out.push(format!(
            "{name:<8} {:>9} {:>7.2}% {}",
            totals[p],
            pct(correct[p][0], totals[p]),
            hands.join(" ")
        ));
    }
    out
}

/// Adam's state.
struct Adam {
    m: FloatNet,
    v: FloatNet,
    t: i32,
}

impl Adam {
    fn step(&mut self, net: &mut FloatNet, g: &mut FloatNet, lr: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        const EPS: f32 = 1e-8;
        self.t += 1;
        let c1 = 1.0 - B1.powi(self.t);
        let c2 = 1.0 - B2.powi(self.t);
        for (((w, gr), m), v) in net
            .params_mut()
            .into_iter()
            .zip(g.params_mut())
            .zip(self.m.params_mut())
            .zip(self.v.params_mut())
        {
            for i in 0..w.len() {
                let gi = gr[i];
                m[i] = B1 * m[i] + (1.0 - B1) * gi;
                v[i] = B2 * v[i] + (1.0 - B2) * gi * gi;
                w[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + EPS);
                gr[i] = 0.0;
            }
        }
        net.clip();
    }
}

/// Adds `b` into `a`, parameter by parameter.
fn add_into(a: &mut FloatNet, b: &FloatNet) {
    for (x, y) in a.params_mut().into_iter().zip([
        &b.ft_w, &b.ft_b, &b.l1_w, &b.l1_b, &b.l2_w, &b.l2_b, &b.out_w, &b.out_b,
    ]) {
        for (p, q) in x.iter_mut().zip(y.iter()) {
            *p += q;
        }
    }
}

/// What [`settle`] changed: first-layer rows folded into the biases and rows zeroed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Settled {
    /// Features on in every sample's both views (flying, where the data is of one rule).
    pub folded: Vec<usize>,
    /// Features on in no sample's view.
    pub zeroed: Vec<usize>,
}

/// Makes the network answer for inputs the data never showed as for the ones it did. A feature
/// on in every sample (the flying rule, when all the data is of one rule set) is only a bias
/// to the training: its row is folded into the first layer's biases; a feature never on kept
/// its random first weights, which mean nothing: its row is zeroed. Then both settings of such
/// a feature give the trained answer, and every position like the data's is evaluated exactly
/// as before (the sums are the same).
pub fn settle(net: &mut FloatNet, samples: &[Sample]) -> Settled {
    let (on, all) = samples
        .par_chunks(1 << 16)
        .map(|chunk| {
            let mut on = vec![0u64; features::COUNT];
            let (mut a, mut b) = (List::new(), List::new());
            for s in chunk {
                inputs(s, &mut a, &mut b);
                for &f in a.as_slice().iter().chain(b.as_slice()) {
                    on[f as usize] += 1;
                }
            }
            (on, 2 * chunk.len() as u64)
        })
        .reduce(
            || (vec![0u64; features::COUNT], 0),
            |(mut x, n), (y, m)| {
                x.iter_mut().zip(&y).for_each(|(x, y)| *x += y);
                (x, n + m)
            },
        );
    let mut out = Settled::default();
    if samples.is_empty() {
        return out;
    }
    let h = net.hidden();
    for (f, &count) in on.iter().enumerate() {
        let row = f * h..(f + 1) * h;
        if count == all {
            for (b, w) in net.ft_b.iter_mut().zip(&mut net.ft_w[row]) {
                *b += *w;
                *w = 0.0;
            }
            out.folded.push(f);
        } else if count == 0 {
            net.ft_w[row].fill(0.0);
            out.zeroed.push(f);
        }
    }
    out
}

/// Splits samples into training and held-out sets, by the seed.
pub fn split(mut samples: Vec<Sample>, cfg: &Config) -> (Vec<Sample>, Vec<Sample>) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed);
    samples.shuffle(&mut rng);
    let held = ((samples.len() as f64) * cfg.holdout).round() as usize;
    let valid = samples.split_off(samples.len() - held.min(samples.len()));
    (samples, valid)
}

/// Trains a network; `report` hears each epoch's number, training metrics and held-out
/// metrics.
pub fn train(
    train: &[Sample],
    valid: &[Sample],
    cfg: &Config,
    report: impl FnMut(usize, &Metrics, &Metrics),
) -> FloatNet {
    let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed ^ 0x5eed);
    let net = FloatNet::random_shaped(&mut rng, cfg.hidden, cfg.buckets);
    fit(net, rng, train, valid, cfg, report)
}

/// Trains on from `init` (a fine-tune: `mill-train --init`), as [`train`] does from random
/// weights; Adam's moments start at zero, so a step size lower than a fresh run's keeps the
/// first steps from undoing what `init` knows.
pub fn train_from(
    init: FloatNet,
    train: &[Sample],
    valid: &[Sample],
    cfg: &Config,
    report: impl FnMut(usize, &Metrics, &Metrics),
) -> FloatNet {
    let rng = rand::rngs::StdRng::seed_from_u64(cfg.seed ^ 0x5eed);
    fit(init, rng, train, valid, cfg, report)
}

fn fit(
    mut net: FloatNet,
    mut rng: rand::rngs::StdRng,
    train: &[Sample],
    valid: &[Sample],
    cfg: &Config,
    mut report: impl FnMut(usize, &Metrics, &Metrics),
) -> FloatNet {
    // A network from a file may hold weights its clipping would move; it came from the same
    // clipping, but keep the invariant whatever its origin.
    net.clip();
    let mut adam = Adam {
        m: net.zeros_like(),
        v: net.zeros_like(),
        t: 0,
    };
    let mut grad = net.zeros_like();
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let batch = cfg.batch.max(PARTS);
    let steps_total = (cfg.epochs * train.len().div_ceil(batch)).max(1);
    let mut step = 0;
    for epoch in 1..=cfg.epochs {
        order.shuffle(&mut rng);
        let mut seen = Metrics::default();
        for idx in order.chunks(batch) {
            let scale = 1.0 / idx.len() as f32;
            let part = idx.len().div_ceil(PARTS);
            let results: Vec<(FloatNet, Metrics)> = idx
                .par_chunks(part)
                .map(|chunk| {
                    let mut g = net.zeros_like();
                    let mut m = Metrics::default();
                    for &i in chunk {
                        m.add(&backward(&net, &train[i as usize], scale, &mut g));
                    }
                    (g, m)
                })
                .collect();
            for (g, m) in &results {
                add_into(&mut grad, g);
                seen.add(m);
            }
            let lr = cfg.lr * (1.0 - 0.9 * step as f32 / steps_total as f32);
            adam.step(&mut net, &mut grad, lr);
            step += 1;
        }
        report(epoch, &seen, &evaluate(&net, valid));
    }
    net
}

#[cfg(test)]
mod tests {
    use super::*;
    use millstone::nnue::float::FloatNet;
    use millstone::{Color, Position, Rules};
    use rand::Rng;

    /// The backward pass is the gradient of the loss: checked against finite differences on
    /// a few weights of every layer, for one set of dense layers and for a set per stage (the
    /// sample's set only: the others' gradients are zero).
    #[test]
    fn gradient_matches_finite_differences() {
        for (hidden, buckets) in [
            (millstone::nnue::HIDDEN, 1),
            (millstone::nnue::HIDDEN, millstone::nnue::BUCKETS),
            (MAX_HIDDEN, millstone::nnue::BUCKETS),
        ] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(9);
            let mut net = FloatNet::random_shaped(&mut rng, hidden, buckets);
            // Biases that keep units inside the clipped range, where the gradient is smooth.
            net.ft_b.iter_mut().for_each(|b| *b = 0.3);
            net.l1_b.iter_mut().for_each(|b| *b = 0.4);
            net.l2_b.iter_mut().for_each(|b| *b = 0.4);
            let mut pos = Position::new(Rules::default());
            for m in ["d6", "a1", "d7"] {
                pos.play(m.parse().unwrap()).unwrap();
            }
            let s = Sample::new(&pos, 1, u8::MAX);
            assert_eq!(pos.side_to_move(), Color::Black);
            let b = bucket_of(&s, buckets);
            assert_eq!(b, if buckets == 1 { 0 } else { 1 });
            let mut g = net.zeros_like();
            backward(&net, &s, 1.0, &mut g);
            let loss = |n: &FloatNet| evaluate(n, &[s]).mean_loss();
            let f = {
                let (mut a, mut c) = (List::new(), List::new());
                inputs(&s, &mut a, &mut c);
                a.as_slice()[0] as usize
            };
            let probes: [(usize, usize); 9] = [
                (0, f * hidden + hidden - 3),
                (1, 5),
                (2, b * L1 * 2 * hidden + 2 * hidden - 7),
                (3, b * L1 + 1),
                (4, b * L2 * L1 + 2),
                (5, b * L2 + 2),
                (6, b * OUTPUTS * L2 + 1),
                (7, b * OUTPUTS + 2),
                (7, b * OUTPUTS),
            ];
            for (param, i) in probes {
                let h = 1e-3;
                let mut up = net.clone();
                up.params_mut()[param][i] += h;
                let mut down = net.clone();
                down.params_mut()[param][i] -= h;
                let numeric = (loss(&up) - loss(&down)) / (2.0 * h as f64);
                let analytic = g.params_mut()[param][i] as f64;
                // The bucket's output biases always take part (a unit of the other layers may
                // be clipped, so its gradient may be zero; every layer's is checked below).
                assert!(
                    param != 7 || analytic != 0.0,
                    "param {param}[{i}] of bucket {b}: no gradient"
                );
                assert!(
                    (numeric - analytic).abs() < 2e-3 + 0.05 * analytic.abs(),
                    "param {param}[{i}]: numeric {numeric}, analytic {analytic}"
                );
            }
            for (param, n) in [(3, L1), (5, L2)] {
                let grads = &g.params_mut()[param][b * n..(b + 1) * n];
                assert!(
                    grads.iter().any(|&x| x != 0.0),
                    "param {param}: no gradient"
                );
            }
            if buckets > 1 {
                // Another stage's set is untouched.
                assert!(g.l1_w_of(0).iter().all(|&x| x == 0.0));
            }
        }
    }

    /// Settling moves an always-on feature's row into the biases and zeroes never-on rows
    /// without changing any sample's output; afterwards the feature's setting changes nothing.
    #[test]
    fn settle_keeps_every_sample_and_frees_the_constant_feature() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(21);
        let mut net = FloatNet::random(&mut rng);
        let samples: Vec<Sample> = (0..40)
            .map(|i| {
                let mut pos = Position::new(Rules::new(millstone::Variant::Nine, true));
                for _ in 0..i % 12 {
                    let moves = pos.legal_moves();
                    pos.make(moves[rng.gen_range(0..moves.len())]);
                }
                Sample::new(&pos, 0, u8::MAX)
            })
            .collect();
        let before: Vec<_> = samples
            .iter()
            .map(|s| s.position())
            .map(|p| net.logits(&p))
            .collect();
        let settled = settle(&mut net, &samples);
        assert_eq!(settled.folded, vec![features::FLYING]);
        assert!(
            settled.zeroed.contains(&(features::HAND_OWN + 12)),
            "{settled:?}"
        );
        for (s, b) in samples.iter().zip(&before) {
            let after = net.logits(&s.position());
            for (x, y) in after.iter().zip(b) {
                assert!((x - y).abs() < 1e-4, "{after:?} against {b:?}");
            }
            let mut without = *s;
            without.rules = Rules::new(millstone::Variant::Nine, false);
            assert_eq!(net.logits(&without.position()), after);
        }
        let h = net.hidden();
        let row = &net.ft_w[features::FLYING * h..(features::FLYING + 1) * h];
        assert!(row.iter().all(|&w| w == 0.0));
    }

    /// A warm start begins where its network is: from a trained network, one more epoch at a
    /// small step starts near that network's loss, far below a fresh start's.
    #[test]
    fn train_from_starts_at_its_network() {
        let samples = piece_count_samples(3000);
        let cfg = small_config();
        let (tr, va) = split(samples, &cfg);
        let trained = train(&tr, &va, &cfg, |_, _, _| {});
        let base = evaluate(&trained, &va).mean_loss();
        let fine = Config {
            epochs: 1,
            lr: 1e-5,
            ..cfg.clone()
        };
        let mut first = Vec::new();
        let again = train_from(trained.clone(), &tr, &va, &fine, |_, _, v| {
            first.push(v.mean_loss())
        });
        assert!(
            (first[0] - base).abs() < 0.02,
            "{} after, {base} before",
            first[0]
        );
        let mut fresh = Vec::new();
        train(&tr, &va, &fine, |_, _, v| fresh.push(v.mean_loss()));
        assert!(fresh[0] > base + 0.1, "fresh {}, trained {base}", fresh[0]);
        assert_ne!(again, trained, "the step changed nothing");
    }

    /// Four epochs of small batches: enough for the piece-count rule to be learnt.
    fn small_config() -> Config {
        Config {
            epochs: 4,
            batch: 256,
            lr: 3e-3,
            seed: 1,
            holdout: 0.2,
            buckets: 1,
            hidden: millstone::nnue::HIDDEN,
        }
    }

    /// Positions after a few random plies, won by the side with more pieces on the board.
    fn piece_count_samples(n: usize) -> Vec<Sample> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        let mut samples = Vec::new();
        for _ in 0..n {
            let mut pos = Position::new(Rules::default());
            let plies = rand::Rng::gen_range(&mut rng, 0..14);
            for _ in 0..plies {
                let moves = pos.legal_moves();
                pos.make(moves[rand::Rng::gen_range(&mut rng, 0..moves.len())]);
            }
            let us = pos.side_to_move();
            let d = pos.pieces(us).count() as i32 - pos.pieces(us.other()).count() as i32;
            samples.push(Sample::new(&pos, d.signum() as i8, u8::MAX));
        }
        samples
    }

    /// A few hundred steps on a small set lower the loss: the loop learns.
    #[test]
    fn training_lowers_the_loss() {
        // A learnable rule: the side with more pieces on the board wins.
        let samples = piece_count_samples(3000);
        let cfg = small_config();
        let (tr, va) = split(samples, &cfg);
        let mut losses = Vec::new();
        train(&tr, &va, &cfg, |_, _, v| losses.push(v.mean_loss()));
        assert!(
            losses.last().unwrap() < &(0.8 * 3f64.ln()),
            "held-out losses {losses:?}"
        );
    }
}
