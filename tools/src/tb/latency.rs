//! `mill-tb probe --bench`: how long the tables take to answer, cold and warm (issue 36).
//!
//! The positions are game-like (the library's sampler, [`Distribution::Games`]) or uniform,
//! half in the placing phase and half in the moving phase, none over. They are drawn first
//! (which reads the tables), then, with `--cold`, the page cache is dropped, and a fresh
//! [`Tablebase`] is opened as the engine opens one (the small files checked at once, the big
//! ones on a thread, waited for and timed). Each position is then timed twice in one pass each:
//! the first pass finds the pages as the drop left them (cold), the second in memory (warm).
//! Two probes are timed: the position's own value ([`Tablebase::wdl`], what the search and the
//! samplers ask) and the root's ([`Tablebase::probe_root`], every move's value: what the engine
//! asks before it plays from the tables).

use millstone::tablebase::sample::{self, Distribution, SampleOptions};
use millstone::tablebase::Tablebase;
use millstone::{Position, Rules};
use std::path::Path;
use std::time::Instant;

/// What the bench measures.
#[derive(Clone, Debug)]
pub struct Options {
    /// The rules.
    pub rules: Rules,
    /// Positions of each phase.
    pub per_phase: usize,
    /// The sampler's seed.
    pub seed: u64,
    /// Uniform positions instead of game-like ones.
    pub uniform: bool,
    /// Drop the page cache before the first pass (root only).
    pub cold: bool,
}

/// Latencies of one kind of probe, in microseconds.
#[derive(Default)]
struct Latencies(Vec<u64>);

impl Latencies {
    fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let r = f();
        self.0.push(t.elapsed().as_micros() as u64);
        r
    }

    /// `p50 p99 max` in milliseconds, and the count.
    fn summary(&mut self) -> String {
        if self.0.is_empty() {
            return "no probes".into();
        }
        self.0.sort_unstable();
        let q = |f: f64| self.0[((self.0.len() - 1) as f64 * f).round() as usize] as f64 / 1e3;
        format!(
            "p50 {:8.3} ms  p99 {:8.3} ms  max {:8.3} ms  ({} probes)",
            q(0.5),
            q(0.99),
            q(1.0),
            self.0.len()
        )
    }
}

/// Game-like (or uniform) covered positions, `per_phase` of each phase, placing ones first.
fn positions(tb: &Tablebase, opts: &Options) -> Result<Vec<Position>, String> {
    let mut placing = Vec::new();
    let mut moving = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut seed = opts.seed;
    while placing.len() < opts.per_phase || moving.len() < opts.per_phase {
        let batch = sample::sample(
            tb,
            (4 * opts.per_phase).max(4096),
            &SampleOptions {
                rules: opts.rules,
                distribution: if opts.uniform {
                    Distribution::Uniform
                } else {
                    Distribution::Games
                },
                seed,
                distances: false,
            },
        )?;
        seed = seed.wrapping_add(1 << 32);
        for s in batch {
            let pos = s.position();
            if pos.outcome().is_some() || !seen.insert(pos.hash()) {
                continue;
            }
            let list = if pos.is_moving_phase() {
                &mut moving
            } else {
                &mut placing
            };
            if list.len() < opts.per_phase {
                list.push(pos);
            }
        }
    }
    placing.extend(moving);
    Ok(placing)
}

/// Empties the kernel's page cache (needs root): what a machine whose tables do not fit in its
/// memory sees at every game.
pub fn drop_page_cache() -> Result<(), String> {
    // SAFETY: sync(2) takes no arguments and cannot fail.
    #[cfg(unix)]
    unsafe {
        libc::sync()
    };
    std::fs::write("/proc/sys/vm/drop_caches", "3\n")
        .map_err(|e| format!("cannot drop the page cache (root on Linux only): {e}"))
}

/// `mill-tb probe --bench`: prints the latencies of each probe, per phase, cold and warm.
pub fn bench(dir: &Path, opts: &Options) -> Result<(), String> {
    let list = {
        let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
        positions(&tb, opts)?
    };
    if opts.cold {
        drop_page_cache()?;
    }
    let t = Instant::now();
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let preload = tb.preload(opts.rules, millstone::tablebase::PRELOAD_SYNC_BYTES);
    let opened = t.elapsed();
    if let Some(h) = preload {
        let _ = h.join();
    }
    println!(
        "{}: {} positions; opened in {:.3} s, big files checked after {:.3} s",
        dir.display(),
        list.len(),
        opened.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
    for pass in ["cold", "warm"] {
        if pass == "cold" && !opts.cold {
            continue;
        }
        for phase in ["placing", "moving"] {
            let mut own = Latencies::default();
            let mut root = Latencies::default();
            let mut missing = 0;
            for pos in list
                .iter()
                .filter(|p| p.is_moving_phase() == (phase == "moving"))
            {
                let answered = own.time(|| tb.wdl(pos)).is_some();
                let moves = root.time(|| tb.probe_root(pos)).is_some();
                missing += (!answered || !moves) as usize;
            }
            println!("{pass} {phase:7} position {}", own.summary());
            println!("{pass} {phase:7} root     {}", root.summary());
            if missing > 0 {
                println!("{pass} {phase:7} {missing} positions without an answer");
            }
        }
    }
    Ok(())
}
