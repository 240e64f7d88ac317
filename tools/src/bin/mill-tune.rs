//! `mill-tune`: tunes the evaluation weights by Texel's method on `mill-selfplay` output.
//!
//! Each position's raw features (`eval::features`) are computed once; the evaluation is linear
//! in the weights, so the tuner works on a dense feature-difference vector per position. It fits
//! the scale K of `sigmoid(eval / K)` to the current weights first, then minimises the mean
//! squared error against the game results by projected gradient descent (Adam) over the weights
//! of all three phases and the tempo, with `piece` fixed at 100 to anchor the scale.

use clap::Parser;
use millstone::eval::{self, Counts, Phase, Weights};
use millstone::movegen;
use millstone::{MoveList, Position, Rules, Variant};
use serde::Deserialize;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::ExitCode;

/// Tunes the evaluation weights (Texel's method) on mill-selfplay JSONL and prints them as Rust
/// source ready to paste into src/eval.rs.
#[derive(Parser, Debug)]
#[command(
    name = "mill-tune",
    version,
    after_help = "Example:\n  mill-selfplay --games 3000 --depth 5 --random-opening 6 --random-moves 4 --seed 11 -o tune.jsonl\n  mill-tune tune.jsonl"
)]
struct Cli {
    /// mill-selfplay JSONL files (one position a line with `fen` and `result`, the game's
    /// result from the mover's view).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Variant the positions were played in, and whose weights are tuned: nine or twelve.
    #[arg(long, default_value = "nine")]
    variant: Variant,
    /// The positions were played with flying off.
    #[arg(long)]
    no_flying: bool,
    /// Keep positions where the side to move can close a mill (skipped by default: not quiet).
    #[arg(long)]
    keep_noisy: bool,
    /// Skip the first N plies of each game (the random opening is not in the file anyway).
    #[arg(long, default_value_t = 0)]
    skip_plies: usize,
    /// Hold out games whose number is divisible by N for validation (0: none).
    #[arg(long, default_value_t = 10)]
    holdout: usize,
    /// Use this K instead of fitting it.
    #[arg(long)]
    k: Option<f64>,
    /// Gradient steps.
    #[arg(long, default_value_t = 3000)]
    iterations: usize,
    /// Adam step size in centipieces (decays to a tenth by the end).
    #[arg(long, default_value_t = 1.0)]
    lr: f64,
    /// L2 pull towards the current weights (per centipiece squared, relative to the MSE).
    #[arg(long, default_value_t = 0.0)]
    l2: f64,
    /// Freeze these parameters at their current values, e.g. `moving.fork,tempo` or a whole
    /// phase `flying`.
    #[arg(long, value_delimiter = ',')]
    freeze: Vec<String>,
    /// Print the loss every N steps (0: never).
    #[arg(long, default_value_t = 500)]
    report: usize,
}

#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    game: usize,
    #[serde(default)]
    ply: usize,
    fen: String,
    result: f64,
}

/// The weights of one phase in a fixed order; `piece` first.
const NAMES: [&str; 9] = [
    "piece",
    "in_hand",
    "mobility",
    "blocked",
    "mill",
    "open_mill",
    "double_mill",
    "junction",
    "fork",
];
const PHASES: [(&str, &str, Phase); 3] = [
    ("PLACING", "placing", Phase::Placing),
    ("MOVING", "moving", Phase::Moving),
    ("FLYING", "flying", Phase::Flying),
];
/// 9 weights per phase, then the tempo.
const NPARAM: usize = 28;
const TEMPO_IDX: usize = 27;

fn weights_vec(w: &Weights) -> [f64; 9] {
    [
        w.piece,
        w.in_hand,
        w.mobility,
        w.blocked,
        w.mill,
        w.open_mill,
        w.double_mill,
        w.junction,
        w.fork,
    ]
    .map(|x| x as f64)
}

fn counts_vec(c: &Counts) -> [f64; 9] {
    [
        c.material,
        c.hand,
        c.mobility,
        c.blocked,
        c.mills,
        c.open_mills,
        c.double_mills,
        c.junctions,
        c.forks,
    ]
    .map(|x| x as f64)
}

fn phase_index(p: Phase) -> usize {
    match p {
        Phase::Placing => 0,
        Phase::Moving => 1,
        Phase::Flying => 2,
    }
}

fn current_params(variant: Variant) -> [f64; NPARAM] {
    let mut p = [0.0; NPARAM];
    for (i, &(_, _, ph)) in PHASES.iter().enumerate() {
        p[i * 9..i * 9 + 9].copy_from_slice(&weights_vec(&Weights::of(variant, ph)));
    }
    p[TEMPO_IDX] = eval::tempo(variant) as f64;
    p
}

fn param_name(j: usize) -> String {
    if j == TEMPO_IDX {
        "tempo".to_string()
    } else {
        format!("{}.{}", PHASES[j / 9].1, NAMES[j % 9])
    }
}

/// Allowed range of a parameter: signs fixed where the meaning is clear.
fn bounds(j: usize) -> (f64, f64) {
    if j == TEMPO_IDX {
        return (0.0, f64::INFINITY);
    }
    match NAMES[j % 9] {
        "blocked" => (f64::NEG_INFINITY, 0.0),
        _ => (0.0, f64::INFINITY),
    }
}

/// One position: the feature difference (side to move minus opponent) per parameter, and the
/// result.
struct Sample {
    x: [f32; NPARAM],
    result: f64,
}

fn sample(pos: &Position, result: f64) -> Sample {
    let f = eval::features(pos);
    let us = pos.side_to_move().index();
    let mut x = [0f32; NPARAM];
    for c in 0..2 {
        let sign = if c == us { 1.0 } else { -1.0 };
        let base = phase_index(f.phases[c]) * 9;
        for (k, v) in counts_vec(&f.counts[c]).iter().enumerate() {
            x[base + k] += (sign * v) as f32;
        }
    }
    x[TEMPO_IDX] = 1.0;
    Sample { x, result }
}

fn eval_of(s: &Sample, p: &[f64; NPARAM]) -> f64 {
    s.x.iter().zip(p).map(|(&x, &w)| x as f64 * w).sum()
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

fn mse(data: &[Sample], p: &[f64; NPARAM], k: f64) -> f64 {
    if data.is_empty() {
        return f64::NAN;
    }
    data.iter()
        .map(|s| {
            let e = sigmoid(eval_of(s, p) / k) - s.result;
            e * e
        })
        .sum::<f64>()
        / data.len() as f64
}

/// Gradient of the MSE with respect to the parameters.
fn gradient(data: &[Sample], p: &[f64; NPARAM], k: f64) -> [f64; NPARAM] {
    let mut g = [0f64; NPARAM];
    for s in data {
        let q = sigmoid(eval_of(s, p) / k);
        let d = 2.0 * (q - s.result) * q * (1.0 - q) / k;
        for (gj, &x) in g.iter_mut().zip(&s.x) {
            *gj += d * x as f64;
        }
    }
    let n = data.len() as f64;
    g.map(|x| x / n)
}

/// K minimising the MSE of the given parameters: a scan, then a golden-section search.
fn fit_k(data: &[Sample], p: &[f64; NPARAM]) -> f64 {
    let mut best = (f64::INFINITY, 100.0);
    let mut k = 10.0;
    while k <= 2000.0 {
        let e = mse(data, p, k);
        if e < best.0 {
            best = (e, k);
        }
        k *= 1.1;
    }
    let (mut a, mut b) = (best.1 / 1.1, best.1 * 1.1);
    let r = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let c = b - r * (b - a);
        let d = a + r * (b - a);
        if mse(data, p, c) < mse(data, p, d) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

fn load(cli: &Cli, rules: Rules) -> Result<(Vec<Sample>, Vec<Sample>, usize), String> {
    let mut train = Vec::new();
    let mut valid = Vec::new();
    let mut skipped = 0;
    let mut list = MoveList::new();
    for path in &cli.files {
        let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            let l: Line = serde_json::from_str(&line)
                .map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
            let pos = Position::from_fen(&l.fen, rules)
                .map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
            if l.ply < cli.skip_plies {
                skipped += 1;
                continue;
            }
            if !cli.keep_noisy {
                list.clear();
                movegen::generate_mills(&pos, &mut list);
                if !list.is_empty() {
                    skipped += 1;
                    continue;
                }
            }
            let s = sample(&pos, l.result);
            if cli.holdout > 0 && l.game.is_multiple_of(cli.holdout) {
                valid.push(s);
            } else {
                train.push(s);
            }
        }
    }
    Ok((train, valid, skipped))
}

fn print_rust(p: &[f64; NPARAM], variant: Variant) {
    let (prefix, tag) = match variant {
        Variant::Nine => ("", "nine"),
        Variant::Twelve => ("TWELVE_", "twelve"),
    };
    let docs = [
        "/// Weights while placing",
        "/// Weights in the moving phase",
        "/// Weights for a side that flies",
    ];
    for (i, &(name, _, _)) in PHASES.iter().enumerate() {
        println!("{} ({tag}).", docs[i]);
        println!("pub const {prefix}{name}: Weights = Weights {{");
        for (k, field) in NAMES.iter().enumerate() {
            println!("    {field}: {},", p[i * 9 + k].round() as i32);
        }
        println!("}};\n");
    }
    println!("/// A bonus for the side to move ({tag}).");
    println!(
        "pub const {prefix}TEMPO: i32 = {};",
        p[TEMPO_IDX].round() as i32
    );
}

fn run(cli: &Cli) -> Result<(), String> {
    let rules = Rules {
        variant: cli.variant,
        flying: !cli.no_flying,
    };
    let (train, valid, skipped) = load(cli, rules)?;
    if train.is_empty() {
        return Err("no positions to tune on".into());
    }
    eprintln!(
        "positions: {} train, {} validation, {} skipped (not quiet or early)",
        train.len(),
        valid.len(),
        skipped
    );
    let start = current_params(cli.variant);

    let k = match cli.k {
        Some(k) => k,
        None => fit_k(&train, &start),
    };
    let loss0 = (mse(&train, &start, k), mse(&valid, &start, k));
    eprintln!(
        "K = {k:.2}; current weights: train MSE {:.6}, validation MSE {:.6}",
        loss0.0, loss0.1
    );

    // Which parameters move: not `piece`, not frozen, and only those some position exercises.
    let mut free = [false; NPARAM];
    for (j, f) in free.iter_mut().enumerate() {
        let name = param_name(j);
        let phase = name.split('.').next().unwrap_or("").to_string();
        let used = train.iter().any(|s| s.x[j] != 0.0);
        let frozen = cli.freeze.iter().any(|z| *z == name || *z == phase);
        *f = used && !frozen && (j == TEMPO_IDX || NAMES[j % 9] != "piece");
    }
    eprintln!(
        "free: {}",
        (0..NPARAM)
            .filter(|&j| free[j])
            .map(param_name)
            .collect::<Vec<_>>()
            .join(" ")
    );

    let mut p = start;
    let (b1, b2, eps) = (0.9, 0.999, 1e-12);
    let mut m = [0f64; NPARAM];
    let mut v = [0f64; NPARAM];
    let iters = cli.iterations.max(1);
    for t in 1..=iters {
        let mut g = gradient(&train, &p, k);
        for j in 0..NPARAM {
            g[j] += 2.0 * cli.l2 * (p[j] - start[j]);
        }
        let lr = cli.lr
            * (0.1 + 0.9 * 0.5 * (1.0 + (std::f64::consts::PI * t as f64 / iters as f64).cos()));
        for j in 0..NPARAM {
            if !free[j] {
                continue;
            }
            m[j] = b1 * m[j] + (1.0 - b1) * g[j];
            v[j] = b2 * v[j] + (1.0 - b2) * g[j] * g[j];
            let mh = m[j] / (1.0 - b1.powi(t as i32));
            let vh = v[j] / (1.0 - b2.powi(t as i32));
            let (lo, hi) = bounds(j);
            p[j] = (p[j] - lr * mh / (vh.sqrt() + eps)).clamp(lo, hi);
        }
        if cli.report > 0 && (t.is_multiple_of(cli.report) || t == iters) {
            eprintln!(
                "step {t}: train MSE {:.6}, validation MSE {:.6}",
                mse(&train, &p, k),
                mse(&valid, &p, k)
            );
        }
    }
    let rounded = p.map(f64::round);
    let loss1 = (mse(&train, &rounded, k), mse(&valid, &rounded, k));
    eprintln!(
        "tuned (rounded): train MSE {:.6} (was {:.6}), validation MSE {:.6} (was {:.6})",
        loss1.0, loss0.0, loss1.1, loss0.1
    );
    eprintln!("{:<20} {:>6} {:>8}", "parameter", "old", "new");
    for j in 0..NPARAM {
        if free[j] {
            eprintln!("{:<20} {:>6} {:>8.1}", param_name(j), start[j], p[j]);
        }
    }
    print_rust(&rounded, cli.variant);
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mill-tune: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_model_matches_evaluate() {
        for variant in [Variant::Nine, Variant::Twelve] {
            let rules = Rules {
                variant,
                flying: true,
            };
            let p = current_params(variant);
            for fen in [
                ".../.../.../....../.../.../... w 9 9 0 1",
                "W.B/.W./.../BW..B./.../.../... w 5 5 0 5",
                "W.W/.../.../W...WB/.../.../B.B b 0 0 0 19",
                "WW./.B./.../W....B/.../B../B.. w 0 0 3 20",
                "W.B/.W./B../..W.B./.../.W./B.. w 8 8 0 5",
                "W.W/BB./W.B/B..W.B/.W./.B./W.. w 0 0 4 30",
            ] {
                let Ok(pos) = Position::from_fen(fen, rules) else {
                    continue;
                };
                let s = sample(&pos, 0.5);
                assert_eq!(
                    eval_of(&s, &p).round() as i32,
                    eval::evaluate(&pos),
                    "{variant:?} {fen}"
                );
            }
        }
    }
}
