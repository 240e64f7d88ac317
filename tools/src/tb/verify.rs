//! `mill-tb info`, `verify` and `crosscheck`: what the table files of a directory hold, and the
//! two checks of their values: against their children one ply deep, and against the solver
//! (or a book) on placing positions. The placing tables' own parts are [`crate::placing`]'s.

use crate::progress;
use millstone::tablebase::{
    file_name, parse_file_name, value_from_children_with, verify_table, Table, TableFile, Tablebase,
};
use millstone::Rules;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// The tables of a directory, smallest first.
fn tables_in(dir: &Path) -> Result<Vec<(Rules, u8, u8)>, String> {
    let mut found: Vec<(Rules, u8, u8)> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| parse_file_name(&e.file_name().to_string_lossy()))
        .collect();
    found.sort_by_key(|&(r, w, b)| (r.variant.pieces(), !r.flying, w + b, w));
    if found.is_empty() {
        return Err(format!("no table files in {}", dir.display()));
    }
    Ok(found)
}

/// `mill-tb info`: a line per table from its header alone, so that it answers at once however
/// big the tables are; an unreadable file is listed and counted, not fatal.
pub fn info(dir: &Path) -> Result<(), String> {
    println!(
        "{:<16} {:>11} {:>11} {:>11} {:>11} {:>11} {:>4} {:>4} {:>4} {:>9} {:>11} {:>11} {:>6}",
        "table",
        "slots",
        "positions",
        "wins",
        "draws",
        "losses",
        "mill",
        "maxW",
        "maxL",
        "spoilt",
        "bytes",
        "v1 bytes",
        "ratio"
    );
    let mut failures = 0;
    for (rules, w, b) in tables_in(dir)? {
        let name = file_name(rules, w, b);
        let f = match TableFile::open(&dir.join(&name), rules, w, b) {
            Ok(f) => f,
            Err(e) => {
                failures += 1;
                println!("{:<16} {e}", name.trim_end_matches(".mtb"));
                continue;
            }
        };
        let s = f.stats();
        let v1 = 32 + 2 * s.slots;
        println!(
            "{:<16} {:>11} {:>11} {:>11} {:>11} {:>11} {:>4} {:>4} {:>4} {:>9} {:>11} {:>11} {:>6.1}",
            name.trim_end_matches(".mtb"),
            s.slots,
            s.positions,
            s.wins,
            s.draws,
            s.losses,
            s.real_max,
            s.max_win,
            s.max_loss,
            s.spoilt_wins + s.spoilt_losses,
            f.file_len(),
            v1,
            v1 as f64 / f.file_len() as f64
        );
    }
    println!(
        "(per position up to symmetry; mill: longest distance to the next mill within the 100-ply \
         rule; spoilt: wins and losses the 100-ply rule turns into draws; v1 bytes: the old \
         2-byte-a-slot format)"
    );
    failures += crate::placing::info(dir)?;
    if failures > 0 {
        Err(format!("{failures} file(s) could not be read"))
    } else {
        Ok(())
    }
}

/// Checks `n` random slots of sub-space (w, b) one ply deep through the mapped files.
fn verify_sample(
    tb: &Tablebase,
    rules: Rules,
    w: u8,
    b: u8,
    n: u64,
    seed: u64,
) -> Result<u64, String> {
    let table = tb.load(rules, w, b).map_err(|e| e.to_string())?;
    let same = tb.load(rules, b, w).map_err(|e| e.to_string())?;
    let conv = if b > 3 {
        Some(tb.load(rules, b - 1, w).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let slots = table.index().len() as u32;
    let bad: Vec<String> = (0..n as usize)
        .into_par_iter()
        .with_min_len(256)
        .filter_map(|k| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(
                seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            );
            let i = rng.gen_range(0..slots);
            let (us, them, _) = table.index().unrank(i);
            let got = table.value_at(i);
            let want = value_from_children_with(rules, us, them, &*same, conv.as_deref());
            match (got, want) {
                (Ok(g), Ok(w)) if g == w => None,
                (Ok(g), Ok(w)) => Some(format!(
                    "slot {i} (us {us:#08x}, them {them:#08x}): stored {g}, children say {w}"
                )),
                (Err(e), _) | (_, Err(e)) => Some(format!("slot {i}: {e}")),
            }
        })
        .take_any(5)
        .collect();
    if bad.is_empty() {
        Ok(n)
    } else {
        Err(bad.join("\n"))
    }
}

/// `mill-tb verify`: every table of `dir` against its children, every slot or `sample` random
/// ones per sub-space; a failing table is reported and the others still checked.
pub fn verify(dir: &Path, sample: Option<u64>, seed: u64) -> Result<(), String> {
    let found = tables_in(dir)?;
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let mut failures = 0;
    let start = Instant::now();
    let read = |x: u8, y: u8, rules: Rules| {
        Table::read(&dir.join(file_name(rules, x, y)), rules, x, y).map_err(|e| e.to_string())
    };
    let progress = progress::Progress::new("verify", found.len() as u64, "tables");
    for (rules, w, b) in found {
        progress.note(format!("{w}v{b}"));
        let t0 = Instant::now();
        let result = match sample {
            Some(n) => verify_sample(&tb, rules, w, b, n, seed),
            None => (|| {
                let table = read(w, b, rules)?;
                let same = if w == b {
                    None
                } else {
                    Some(read(b, w, rules)?)
                };
                let conv = if b > 3 {
                    Some(read(b - 1, w, rules)?)
                } else {
                    None
                };
                verify_table(&table, same.as_ref().unwrap_or(&table), conv.as_ref())
            })(),
        };
        match result {
            Ok(n) => progress::line(&format!(
                "{rules} {w}v{b}: {n} slots consistent ({:.1}s)",
                t0.elapsed().as_secs_f64()
            )),
            Err(e) => {
                failures += 1;
                progress::line(&format!("{rules} {w}v{b}: FAILED\n{e}"));
            }
        }
        progress.inc(1);
    }
    drop(progress);
    let (_, placing_failures) = crate::placing::verify(dir, sample, seed)?;
    failures += placing_failures;
    eprintln!("verify done in {:.1}s", start.elapsed().as_secs_f64());
    if failures > 0 {
        Err(format!("{failures} table(s) failed verification"))
    } else {
        Ok(())
    }
}

/// `mill-tb crosscheck`: random positions of every ply of the placing tables against the
/// solver, `per_ply` of them, each ply cut off after `seconds` when given.
pub fn crosscheck(
    dir: &Path,
    rules: Rules,
    per_ply: u64,
    seed: u64,
    hash_mb: usize,
    seconds: Option<Duration>,
) -> Result<(), String> {
    crate::placing::crosscheck(dir, rules, per_ply, seed, hash_mb, seconds).and_then(|c| {
        let n: u64 = c.per_ply.iter().map(|&(_, n)| n).sum();
        eprintln!(
            "{n} positions over {} plies, {} solver nodes, {} mismatches",
            c.per_ply.len(),
            c.nodes,
            c.mismatches.len()
        );
        none_or_listed(c.mismatches)
    })
}

/// `mill-tb crosscheck --book`: every position of the book's first `plies` plies from `fen`
/// (the start when `None`) against the tables; `for_side` is `--for`, the side whose proof the
/// book is.
pub fn crosscheck_book(
    dir: &Path,
    book: &Path,
    fen: Option<&str>,
    plies: u32,
    hash_mb: usize,
    for_side: Option<&str>,
) -> Result<(), String> {
    crate::placing::book_check(dir, book, fen, plies, hash_mb, super::side(for_side)?).and_then(
        |c| {
            let n: u64 = c.per_ply.iter().sum();
            for (ply, k) in c.per_ply.iter().enumerate() {
                eprintln!("book ply {ply}: {k} positions");
            }
            eprintln!(
                "{n} book positions over {} plies, {} solver nodes beyond the book, {} mismatches",
                c.per_ply.len(),
                c.nodes,
                c.mismatches.len()
            );
            none_or_listed(c.mismatches)
        },
    )
}

/// A check's outcome: done when it found no mismatch, else the mismatches, a line each.
fn none_or_listed(mismatches: Vec<String>) -> Result<(), String> {
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(mismatches.join("\n"))
    }
}
