//! `mill-tb`'s commands on the moving phase's tables and the solver, a module per family, so
//! that the binary holds only the command line and a new command adds a module, not lines to
//! it. The placing phase's parts are [`crate::placing`]'s, the puzzles [`crate::puzzles`]'s.
//!
//! - [`generate`]: `generate` and `setup`, the jobs run smallest first.
//! - [`plan`]: `plan`, the jobs as a Makefile or JSON.
//! - [`verify`]: `info`, `verify` and `crosscheck`.
//! - [`probe`]: `probe`, the verdict on one position.
//! - [`latency`]: `probe --bench`, how long the tables take to answer, cold and warm.
//! - [`sample`]: `sample`, labelled positions for training and data sets.
//! - [`solve`]: `solve`, one placing position solved exactly.
//! - [`book`]: `book`, the opening book.
//! - [`audit`]: `audit`, games held against the tables.
//! - [`keeprate`]: `keeprate`, how often an engine keeps the value where it can be lost.

pub mod audit;
pub mod book;
pub mod generate;
pub mod keeprate;
pub mod latency;
pub mod plan;
pub mod probe;
pub mod sample;
pub mod solve;
pub mod verify;

use millstone::Color;
use std::path::{Path, PathBuf};

/// `--dir`, or the data directory's tables.
pub fn tables(dir: Option<PathBuf>) -> Result<PathBuf, String> {
    millstone::datadir::tables_or_default(dir)
}

/// The side of `--for`.
pub(crate) fn side(s: Option<&str>) -> Result<Option<Color>, String> {
    match s {
        None => Ok(None),
        Some("white" | "w") => Ok(Some(Color::White)),
        Some("black" | "b") => Ok(Some(Color::Black)),
        Some(o) => Err(format!("--for {o}: expected white or black")),
    }
}

/// `mill-tb puzzles`: written by default into the table directory, beside the tables that
/// graded them and named by the rule set, so that the sets of two rule sets do not collide.
pub fn puzzles(
    dir: &Path,
    out: Option<PathBuf>,
    opts: &crate::puzzles::Options,
) -> Result<(), String> {
    let out = out.unwrap_or_else(|| dir.join(crate::puzzles::file_name(opts.rules)));
    crate::puzzles::run(dir, &out, opts)
}
