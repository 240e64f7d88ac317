//! Perfect tables for the placing phase: the result of every placing position, under our rules.
//!
//! With them and the moving phase's tables, every position of a game is exact: the engine plays
//! perfectly from the first placement at any time control, with no search and no book needed to
//! keep the value.
//!
//! - [`Sector`]: which positions share a table (placements made, pieces on the board of each
//!   side) and what each one reads ([`Child`]).
//! - [`solve_sector`]: one backward pass (the placing phase has no cycles).
//! - [`file`]: the `.mpt` format (W/D/L digits in checksummed zstd blocks, mapped).
//! - [`generate`](fn@generate): every sector of a rule set into a directory, later plies first,
//!   resumable; the moving phase's files must be there (the last placement reads them).
//! - [`verify_sector`]: each slot re-derived one ply deep through [`Position`] and the probes
//!   of [`Tablebase`], a different path from the generator's.
//!
//! Probing goes through [`Tablebase`], which lists these files beside the moving phase's.

pub mod file;
mod generate;
mod sector;

pub use file::{PlacingFile, PlacingHeader, PlacingStats};
pub use generate::{solve_sector, Source};
pub use sector::{Child, Sector};

use crate::position::Position;
use crate::tablebase::format::{file_name, TbError, DIGIT_LOSS, DIGIT_OTHER, DIGIT_WIN};
use crate::tablebase::{TableFile, Tablebase, Wdl};
use crate::types::{Color, Rules};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// The W/D/L of a digit.
pub fn wdl_of_digit(d: u8) -> Wdl {
    match d {
        DIGIT_WIN => Wdl::Win,
        DIGIT_LOSS => Wdl::Loss,
        _ => Wdl::Draw,
    }
}

/// The digit of a W/D/L under the rules.
pub fn digit_of_wdl(w: Wdl) -> u8 {
    match w.real() {
        Wdl::Win => DIGIT_WIN,
        Wdl::Loss => DIGIT_LOSS,
        _ => DIGIT_OTHER,
    }
}

/// What one sector's solve did.
#[derive(Clone, Debug)]
pub struct SectorReport {
    /// The sector.
    pub sector: Sector,
    /// Its counts.
    pub stats: PlacingStats,
    /// Seconds reading inputs, solving, writing.
    pub read_secs: f64,
    /// Seconds solving.
    pub solve_secs: f64,
    /// Seconds encoding and writing.
    pub write_secs: f64,
    /// Bytes of the file.
    pub bytes: u64,
    /// Whether a valid file was there already (nothing done).
    pub kept: bool,
}

/// The sector a placing position belongs to; `None` in the moving phase.
pub fn sector_of(pos: &Position) -> Option<Sector> {
    if pos.is_moving_phase() {
        return None;
    }
    let n = pos.variant().pieces();
    let placed = 2 * n - pos.in_hand(Color::White) - pos.in_hand(Color::Black);
    let us = pos.side_to_move();
    Sector::new(
        pos.rules(),
        placed,
        pos.pieces(us).count() as u8,
        pos.pieces(us.other()).count() as u8,
    )
    .filter(|s| s.side_to_move() == us)
}

/// A sector's input, loaded: digits, one a slot.
struct Loaded {
    child: Child,
    digits: Arc<Vec<u8>>,
}

/// Loads the digits of a table input from `dir`.
fn load(dir: &Path, rules: Rules, child: Child) -> Result<Vec<u8>, TbError> {
    match child {
        Child::Placing(s) => PlacingFile::open(&dir.join(s.file_name()), s)?.read_all(),
        Child::Moving(w, b) => {
            use rayon::prelude::*;
            let t = TableFile::open(&dir.join(file_name(rules, w, b)), rules, w, b)?;
            let n = t.stats().slots as usize;
            let mut out = crate::tablebase::hugepages::filled(n, 0u8);
            out.par_chunks_mut(1 << 16).enumerate().for_each(|(j, c)| {
                let base = (j << 16) as u32;
                for (i, d) in c.iter_mut().enumerate() {
                    *d = t.digit(base + i as u32);
                }
            });
            Ok(out)
        }
        _ => unreachable!("only tables are loaded"),
    }
}

/// Whether `path` holds a valid file of `sector` (header, index and every block).
pub fn file_is_valid(path: &Path, sector: Sector) -> Result<PlacingFile, TbError> {
    let f = PlacingFile::open(path, sector)?;
    let mut buf = Vec::new();
    let mut dctx = None;
    for j in 0..f.header().blocks() as usize {
        f.decode_block(j, &mut buf, &mut dctx)?;
    }
    Ok(f)
}

/// Solves every stored sector of `rules` with material at most `max_material` into `dir`, later
/// plies first, and calls `done` after each. A sector whose valid file is there is kept (so a
/// killed run resumes); a damaged one is solved again. The moving phase's files the last
/// placement reads must be in `dir`.
pub fn generate(
    dir: &Path,
    rules: Rules,
    max_material: u8,
    done: impl FnMut(&SectorReport),
) -> Result<Vec<SectorReport>, TbError> {
    generate_sectors(dir, &Sector::all(rules, max_material), done)
}

/// Solves `sectors` in the order given (each one's inputs must be in `dir` or earlier in the
/// list), as [`generate`](fn@generate) does.
pub fn generate_sectors(
    dir: &Path,
    sectors: &[Sector],
    mut done: impl FnMut(&SectorReport),
) -> Result<Vec<SectorReport>, TbError> {
    let mut reports = Vec::new();
    let mut cache: Vec<Loaded> = Vec::new();
    for &sector in sectors {
        let rules = sector.rules;
        let path = dir.join(sector.file_name());
        if let Ok(f) = file_is_valid(&path, sector) {
            let r = SectorReport {
                sector,
                stats: f.header().stats,
                read_secs: 0.0,
                solve_secs: 0.0,
                write_secs: 0.0,
                bytes: f.header().file_len,
                kept: true,
            };
            done(&r);
            reports.push(r);
            continue;
        }
        let start = Instant::now();
        let inputs = [sector.child(false), sector.mill_child()];
        // Keep only what this sector reads: consecutive sectors share an input.
        cache.retain(|l| inputs.contains(&l.child));
        for &c in &inputs {
            if Source::of_rule(c, rules).is_none() && !cache.iter().any(|l| l.child == c) {
                let digits = Arc::new(load(dir, rules, c)?);
                cache.push(Loaded { child: c, digits });
            }
        }
        let source = |c: Child| -> Source<'_> {
            Source::of_rule(c, rules).unwrap_or_else(|| {
                let l = cache.iter().find(|l| l.child == c).expect("loaded above");
                let idx = match c {
                    Child::Placing(s) => s.index(),
                    Child::Moving(w, b) => crate::tablebase::SubIndex::new(rules.variant, w, b),
                    _ => unreachable!("rule ends have no table"),
                };
                Source::Table(&l.digits, idx)
            })
        };
        let read_secs = start.elapsed().as_secs_f64();
        let values = solve_sector(sector, source(inputs[0]), source(inputs[1]));
        let solve_secs = start.elapsed().as_secs_f64() - read_secs;
        let stats = file::stats_of(sector, &values);
        let bytes = file::to_bytes(sector, &values, stats);
        drop(values);
        std::fs::create_dir_all(dir).map_err(|e| TbError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
        file::write_atomically(&path, &bytes)?;
        let r = SectorReport {
            sector,
            stats,
            read_secs,
            solve_secs,
            write_secs: start.elapsed().as_secs_f64() - read_secs - solve_secs,
            bytes: bytes.len() as u64,
            kept: false,
        };
        done(&r);
        reports.push(r);
    }
    Ok(reports)
}

/// The position of a sector's slot as a [`Position`] (White or Black to move as the ply says),
/// and whether the slot is the canonical form of it.
pub fn position_of_slot(sector: Sector, slot: u32) -> (Position, bool) {
    let (us, them, canonical) = sector.index().unrank(slot);
    let (hm, ho) = sector.hands();
    let mover = sector.side_to_move();
    let (w, b, hw, hb) = match mover {
        Color::White => (us, them, hm, ho),
        Color::Black => (them, us, ho, hm),
    };
    let pos = Position::from_sets_trusted(sector.rules, w, b, hw, hb, mover);
    (pos, canonical)
}

/// The result of a placing position for the side to move, from the tables one ply on: each
/// placement's child from the placing tables (or the moving phase's at counter 0), rule ends
/// first. `None` when a child's table is missing or damaged.
pub fn derive(tb: &Tablebase, pos: &Position) -> Option<Wdl> {
    if pos.outcome().is_some() {
        return tb.wdl(pos);
    }
    let mut best = Wdl::Loss;
    for &mv in pos.legal_moves().iter() {
        let mut child = *pos;
        child.make(mv);
        let v = tb.wdl(&child)?.flip();
        best = best.max(v);
    }
    Some(best)
}

/// The digit of a position reached by a placement, for its side to move, from whole tables in
/// memory (`loaded`): the rules' ends first, then the moving phase's table at counter 0 or the
/// next ply's sector, indexed from the position's own piece sets.
fn digit_after(pos: &Position, loaded: &[(Child, Vec<u8>)]) -> Option<u8> {
    if let Some(o) = pos.outcome() {
        return Some(match o.winner() {
            Some(c) if c == pos.side_to_move() => DIGIT_WIN,
            Some(_) => DIGIT_LOSS,
            None => DIGIT_OTHER,
        });
    }
    let us = pos.side_to_move();
    let (own, opp) = (pos.pieces(us), pos.pieces(us.other()));
    let (child, idx) = if pos.is_moving_phase() {
        let (w, b) = (own.count() as u8, opp.count() as u8);
        (
            Child::Moving(w, b),
            crate::tablebase::SubIndex::new(pos.variant(), w, b),
        )
    } else {
        let s = sector_of(pos)?;
        (Child::Placing(s), s.index())
    };
    let (_, digits) = loaded.iter().find(|(c, _)| *c == child)?;
    digits.get(idx.index(own.0, opp.0) as usize).copied()
}

/// Checks a sector's file against its children one ply deep, through [`Position`]'s moves: every
/// slot (with the sector's inputs read whole), or `sample` = (count, seed) random slots (through
/// [`Tablebase::wdl`]'s probes, see [`derive`]). Returns the slots checked.
pub fn verify_sector(
    tb: &Tablebase,
    sector: Sector,
    sample: Option<(u64, u64)>,
) -> Result<u64, String> {
    use rayon::prelude::*;
    let path = tb.dir().join(sector.file_name());
    let f = PlacingFile::open(&path, sector).map_err(|e| e.to_string())?;
    let digits = f.read_all().map_err(|e| e.to_string())?;
    let n = digits.len() as u64;
    let check = |slot: u32, derived: Option<Wdl>, pos: &Position| {
        let stored = wdl_of_digit(digits[slot as usize]);
        match derived {
            Some(v) if v == stored => Ok(()),
            Some(v) => Err(format!(
                "{sector} slot {slot} ({}): stored {stored:?}, its children give {v:?}",
                pos.to_fen()
            )),
            None => Err(format!(
                "{sector} slot {slot} ({}): a child's table is missing or damaged",
                pos.to_fen()
            )),
        }
    };
    if let Some((count, seed)) = sample {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ n.wrapping_mul(0x9e37_79b9));
        let slots: Vec<u32> = (0..count.min(n))
            .map(|_| rng.gen_range(0..n) as u32)
            .collect();
        slots.par_iter().try_for_each(|&slot| {
            let (pos, _) = position_of_slot(sector, slot);
            check(slot, derive(tb, &pos), &pos)
        })?;
        return Ok(slots.len() as u64);
    }
    let mut loaded = Vec::new();
    for c in sector.inputs() {
        let d = load(tb.dir(), sector.rules, c).map_err(|e| e.to_string())?;
        loaded.push((c, d));
    }
    (0..n as u32).into_par_iter().try_for_each(|slot| {
        let (pos, _) = position_of_slot(sector, slot);
        let mut best: Option<u8> = None;
        for &mv in pos.legal_moves().iter() {
            let mut child = pos;
            child.make(mv);
            let Some(d) = digit_after(&child, &loaded) else {
                return check(slot, None, &pos);
            };
            let mine = wdl_of_digit(d).flip();
            if best.is_none_or(|b| mine > wdl_of_digit(b)) {
                best = Some(digit_of_wdl(mine));
            }
        }
        let derived = if pos.outcome().is_some() {
            derive(tb, &pos)
        } else {
            best.map(wdl_of_digit)
        };
        check(slot, derived, &pos)
    })?;
    Ok(n)
}
