//! Millstone: a strong engine for the mill game — Nine Men's Morris, and Twelve Men's Morris
//! (Morabaraba) with its diagonals.
//!
//! The rules follow `RULES.md` exactly. The pieces, by concept:
//!
//! - [`types`], [`bitboard`], [`topology`], [`moves`]: the vocabulary.
//! - [`position`]: a game state, position strings, playing moves, the end of the game.
//! - [`movegen`]: legal moves; [`perft`]: counting them; [`rings`]: the board as three rings,
//!   for counting and picking moves with a few shifts.
//! - [`zobrist`]: hash keys; [`game`]: a game record with repetition and the 100-ply rule.
//! - [`eval`]: static evaluation; [`tt`]: the shared transposition table; [`search`]: the
//!   alpha-beta search; [`timeman`]: time budgets; [`engine`]: the façade with threads and
//!   background searches; [`skill`]: playing weaker on purpose; [`bench`]: the fixed benchmark and its node signature.
//! - [`protocol`]: the text protocol the `millstone` binary speaks (see `protocol.md`).
//! - [`tablebase`]: perfect endgame tables of the moving phase; `table_root`: the engine
//!   playing from them within the move's time.
//! - [`solve`]: the exact solver of the placing phase, down to those tables.
//! - [`datadir`]: where tables and books are found when no path is given.
//!
//! ```
//! use millstone::{Position, Rules, perft::perft};
//! let mut pos = Position::new(Rules::default());
//! assert_eq!(perft(&mut pos, 3), 12144);
//! ```
#![deny(missing_docs)]

pub mod bench;
pub mod bitboard;
pub mod datadir;
pub mod engine;
pub mod eval;
pub mod fallible;
pub mod game;
pub mod movegen;
pub mod moves;
pub mod nnue;
pub mod perft;
pub mod position;
pub mod protocol;
pub mod rings;
pub mod search;
pub mod skill;
pub mod solve;
mod table_root;
pub mod tablebase;
pub mod timeman;
pub mod topology;
pub mod tt;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use engine::Engine;
pub use game::{Game, GameError};
pub use moves::{Move, MoveList, ParseMoveError};
pub use position::{EndReason, IllegalMove, Outcome, ParsePositionError, Position};
pub use types::{ByColor, Color, Point, Rules, Variant};
