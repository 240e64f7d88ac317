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
//!
//! With `--cold`, the same reads are then compared without decoding: the bytes each root's
//! probes need (the children's stored blocks, or W/D/L bytes), read through the memory map (a
//! page fault per page) and by plain `pread` calls, each after its own drop of the page cache.
//! The engine keeps the map where it is not slower at p99 (docs/tables.md, "On the clock").

use millstone::tablebase::placing;
use millstone::tablebase::sample::Distribution;
use millstone::tablebase::Tablebase;
use millstone::{Position, Rules};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
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
    let distribution = if opts.uniform {
        Distribution::Uniform
    } else {
        Distribution::Games
    };
    let batch = (4 * opts.per_phase).max(4096);
    super::sample::by_phase(
        tb,
        opts.rules,
        distribution,
        opts.seed,
        opts.per_phase,
        batch,
        |_| true,
    )
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
    #[cfg(unix)]
    if opts.cold {
        // Pages mapped by a process stay in memory through a drop: the comparison maps anew.
        drop(tb);
        let fresh = Tablebase::open(dir).map_err(|e| e.to_string())?;
        let _ = fresh.preload(opts.rules, u64::MAX);
        compare_reads(fresh, &list)?;
    }
    Ok(())
}

#[cfg(unix)]
/// The bytes the probes of a root's moves read: (file, its mapped bytes, the range).
fn spans<'a>(
    tb: &'a Tablebase,
    pos: &Position,
) -> Vec<(PathBuf, &'a [u8], std::ops::Range<usize>)> {
    let mut out = Vec::new();
    for &m in pos.legal_moves().iter() {
        let mut child = *pos;
        child.make(m);
        if child.outcome().is_some() {
            continue;
        }
        let us = child.side_to_move();
        let (own, opp) = (child.pieces(us), child.pieces(us.other()));
        if child.is_moving_phase() {
            let Some(t) = tb.table(child.rules(), own.count() as u8, opp.count() as u8) else {
                continue;
            };
            let slot = t.index().index(own.0, opp.0);
            let byte = t.wdl_byte(slot);
            out.push((t.path().to_path_buf(), t.mapped(), byte..byte + 1));
            if pos.is_moving_phase() {
                out.push((t.path().to_path_buf(), t.mapped(), t.distance_span(slot)));
            }
        } else if let Some(f) = placing::sector_of(&child).and_then(|s| tb.placing_table(s)) {
            let span = f.block_span(f.slot(own.0, opp.0));
            out.push((f.path().to_path_buf(), f.mapped(), span));
        }
    }
    out
}

#[cfg(unix)]
/// Per root, the time to read its moves' bytes through the map (one load a page) and by
/// `pread`, each pass after a drop of the page cache. `tb` must not have read those bytes
/// through its maps (a mapped page survives the drop).
fn compare_reads(tb: Tablebase, list: &[Position]) -> Result<(), String> {
    use std::os::unix::fs::FileExt;
    let roots: Vec<_> = list.iter().map(|p| spans(&tb, p)).collect();
    let owned: Vec<Vec<(PathBuf, std::ops::Range<usize>)>> = roots
        .iter()
        .map(|r| r.iter().map(|(p, _, s)| (p.clone(), s.clone())).collect())
        .collect();
    let page = 4096;
    drop_page_cache()?;
    let mut mapped = Latencies::default();
    let mut sink = 0u64;
    for r in &roots {
        mapped.time(|| {
            for (_, bytes, span) in r {
                let mut at = span.start;
                while at < span.end {
                    // SAFETY: `at` is inside the map; a volatile load is not optimised away.
                    sink += unsafe { std::ptr::read_volatile(&bytes[at]) } as u64;
                    at = (at / page + 1) * page;
                }
            }
        });
    }
    // Unmapped, the pages the first pass read can be dropped too.
    drop(roots);
    drop(tb);
    drop_page_cache()?;
    let mut files: HashMap<PathBuf, std::fs::File> = HashMap::new();
    let mut read = Latencies::default();
    let mut buf = Vec::new();
    for r in &owned {
        let t = Instant::now();
        for (path, span) in r {
            if !files.contains_key(path) {
                let f =
                    std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
                files.insert(path.clone(), f);
            }
            buf.resize(span.len(), 0);
            files[path]
                .read_exact_at(&mut buf, span.start as u64)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            sink += buf.first().copied().unwrap_or(0) as u64;
        }
        read.0.push(t.elapsed().as_micros() as u64);
    }
    println!("cold root bytes by map   {}", mapped.summary());
    println!("cold root bytes by pread {}", read.summary());
    std::hint::black_box(sink);
    Ok(())
}
