//! Millstone: a strong engine for the mill game — Nine Men's Morris, and Twelve Men's Morris
//! (Morabaraba) with its diagonals.
//!
//! The rules follow `RULES.md` exactly. The pieces, by concept:
//!
//! - [`types`], [`bitboard`], [`topology`], [`moves`]: the vocabulary.
//! - [`position`]: a game state, position strings, playing moves, the end of the game.
//! - [`movegen`]: legal moves; [`perft`]: counting them.
//! - [`zobrist`]: hash keys; [`game`]: a game record with repetition and the 100-ply rule.
//! - [`tablebase`]: perfect endgame tables of the moving phase.
//!
//! ```
//! use millstone::{Position, Rules, perft::perft};
//! let mut pos = Position::new(Rules::default());
//! assert_eq!(perft(&mut pos, 3), 12144);
//! ```
#![deny(missing_docs)]

pub mod bitboard;
pub mod game;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod position;
pub mod tablebase;
pub mod topology;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use game::{Game, GameError};
pub use moves::{Move, MoveList, ParseMoveError};
pub use position::{EndReason, IllegalMove, Outcome, ParsePositionError, Position};
pub use types::{ByColor, Color, Point, Rules, Variant};
