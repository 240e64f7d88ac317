//! Shared code of the Millstone tools: the match runner (`mill-match`), self-play
//! (`mill-selfplay`) and analysis (`mill-analyze`).
//!
//! - [`analysis`]: in-process searches that keep every MultiPV line.
//! - [`protocol`]: engines as subprocesses speaking the protocol, with bounded waits.
//! - [`builtin`]: the `random` and `greedy` players.
//! - [`input`]: position lines (opening books, analysis input) and random openings.
//! - [`placing`]: `mill-tb`'s commands for the placing-phase tables.
//! - [`puzzles`]: `mill-tb puzzles`, positions of real games where one move alone keeps the value.
//! - [`tb`]: `mill-tb`'s other commands (moving-phase tables, solver, book, audit), a module each.
//! - [`referee`]: one game, refereed by the library.
//! - [`record`]: game records (JSONL, PGN) and their replay check.
//! - [`tournament`]: schedules, workers, statistics, SPRT.
//! - [`stats`]: Elo, LOS, pentanomial, SPRT.
//! - [`train`]: `mill-train`, the evaluation network fitted to the tables' exact values.
#![deny(missing_docs)]

pub mod analysis;
pub mod builtin;
pub mod estimate;
pub mod input;
pub mod placing;
pub mod progress;
pub mod protocol;
pub mod puzzles;
pub mod record;
pub mod referee;
pub mod resources;
pub mod sanmill;
pub mod setup;
pub mod stats;
pub mod tb;
pub mod tournament;
pub mod train;
