//! `mill-tb sample`: positions labelled with their exact result, for training the evaluation
//! (`mill-train`) or for anyone's data set. The sampling itself is the library's
//! ([`millstone::tablebase::sample`]), shared with the Python package.

use millstone::tablebase::sample::{self, Distribution, SampleOptions};
use millstone::tablebase::Tablebase;
use millstone::{Position, Rules};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// How `sample` writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The 16-byte records of `millstone::tablebase::sample` after a 16-byte header.
    Bin,
    /// One line a position: the position string, the result for the side to move (win, draw,
    /// loss), the plies to the next mill (or -), the phase.
    Text,
}

/// `mill-tb sample`: `n` samples of `opts` from the tables in `dir`, written to `out`.
pub fn sample(
    dir: &Path,
    out: &Path,
    n: usize,
    opts: &SampleOptions,
    eval_file: Option<&Path>,
    format: Format,
) -> Result<(), String> {
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let net = match (eval_file, opts.distribution) {
        (Some(_), d) if d != Distribution::Search => {
            return Err("--eval-file is the network of --distribution search's searches".into())
        }
        (Some(f), _) => Some(std::sync::Arc::new(
            millstone::nnue::file::load(f)
                .map_err(|e| format!("--eval-file {}: {e}", f.display()))?,
        )),
        (None, Distribution::Search) => millstone::nnue::builtin(opts.rules),
        (None, _) => None,
    };
    if opts.distribution.plays_games() && !tb.covers_placing_phase(opts.rules) {
        return Err(format!(
            "sampling games needs every placing table of {} in {} (mill-tb setup makes them)",
            opts.rules,
            dir.display()
        ));
    }
    let start = Instant::now();
    let samples = sample::sample_with(&tb, n, opts, net.as_deref())?;
    let secs = start.elapsed().as_secs_f64();
    let bytes = match format {
        Format::Bin => sample::to_file_bytes(&samples),
        Format::Text => {
            let mut s = String::with_capacity(samples.len() * 64);
            for x in &samples {
                let word = match x.result {
                    1 => "win",
                    -1 => "loss",
                    _ => "draw",
                };
                let plies = if x.plies == u8::MAX {
                    "-".to_string()
                } else {
                    x.plies.to_string()
                };
                let phase = if x.is_placing() { "placing" } else { "moving" };
                let mut fen = x.position().to_fen();
                // The position string's counter field is the sample's.
                if let Some(i) = fen.rfind(' ') {
                    let head = &fen[..i];
                    if let Some(j) = head.rfind(' ') {
                        fen = format!("{} {}{}", &head[..j], x.rule50, &fen[i..]);
                    }
                }
                s.push_str(&format!("{fen}\t{word}\t{plies}\t{phase}\n"));
            }
            s.into_bytes()
        }
    };
    let mut f = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    f.write_all(&bytes)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let (mut wins, mut draws, mut placing) = (0usize, 0usize, 0usize);
    for x in &samples {
        wins += (x.result == 1) as usize;
        draws += (x.result == 0) as usize;
        placing += x.is_placing() as usize;
    }
    let pct = |k: usize| 100.0 * k as f64 / samples.len().max(1) as f64;
    println!(
        "{} samples of {} ({:?}, seed {}) in {secs:.2}s ({:.2} M/s) to {}: {:.1}% placing; \
         {:.1}% wins, {:.1}% draws, {:.1}% losses for the side to move",
        samples.len(),
        opts.rules,
        opts.distribution,
        opts.seed,
        samples.len() as f64 / secs.max(1e-9) / 1e6,
        out.display(),
        pct(placing),
        pct(wins),
        pct(draws),
        pct(samples.len() - wins - draws)
    );
    Ok(())
}

/// Distinct positions of the sampler, none over, `per_phase` of each phase that `keep` accepts
/// (placing ones first), drawn in batches of `batch` from `seed` on (each next batch's seed
/// 2^32 further): the test positions of `keeprate` and of `probe --bench`.
pub fn by_phase(
    tb: &Tablebase,
    rules: Rules,
    distribution: Distribution,
    seed: u64,
    per_phase: usize,
    batch: usize,
    keep: impl Fn(&Position) -> bool,
) -> Result<Vec<Position>, String> {
    let mut placing = Vec::new();
    let mut moving = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut seed = seed;
    while placing.len() < per_phase || moving.len() < per_phase {
        let opts = SampleOptions {
            rules,
            distribution,
            seed,
            distances: false,
            phase: sample::Phase::Any,
        };
        seed = seed.wrapping_add(1 << 32);
        for s in sample::sample(tb, batch, &opts)? {
            let pos = s.position();
            if pos.outcome().is_some() || !seen.insert(pos.hash()) {
                continue;
            }
            let list = if pos.is_moving_phase() {
                &mut moving
            } else {
                &mut placing
            };
            if list.len() < per_phase && keep(&pos) {
                list.push(pos);
            }
        }
    }
    placing.extend(moving);
    Ok(placing)
}
