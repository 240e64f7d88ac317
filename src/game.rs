//! A game record: the start position, the moves played, and the rules that need history
//! (threefold repetition and the 100-ply count).

use crate::moves::{Move, MoveList};
use crate::position::{EndReason, IllegalMove, Outcome, Position, HUNDRED_PLIES};
use crate::types::Rules;
use std::fmt;

/// Why a move could not be added to a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The game has already ended.
    Over(Outcome),
    /// The move breaks the rules of the position.
    Illegal(IllegalMove),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::Over(o) => write!(f, "the game is over ({o})"),
            GameError::Illegal(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GameError {}

/// A game from a start position, with every position's keys kept for repetition.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    moves: Vec<Move>,
    /// Exact repetition keys of every position so far, the current one last.
    keys: Vec<u64>,
    /// Zobrist keys of every position so far, the current one last (for the search).
    hashes: Vec<u64>,
}

impl Game {
    /// A game from `start`.
    pub fn new(start: Position) -> Game {
        Game {
            start,
            pos: start,
            moves: Vec::new(),
            keys: vec![start.repetition_key()],
            hashes: vec![start.hash()],
        }
    }

    /// A game from the start position of a rule set.
    pub fn from_rules(rules: Rules) -> Game {
        Game::new(Position::new(rules))
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Zobrist keys of all positions of the game, the current one last.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// How often the current position has occurred, this time included.
    pub fn repetitions(&self) -> usize {
        let n = self.keys.len() - 1;
        let cur = self.keys[n];
        // Placements and mills cannot be undone, so only the positions since the last of them,
        // which the ply counter measures, can equal the current one.
        let back = (self.pos.rule50() as usize).min(n);
        self.keys[n - back..].iter().filter(|&&k| k == cur).count()
    }

    /// The end of the game for the side to move, if it has come. A win or loss by the rules of
    /// the position takes precedence over the draws that need history.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.pos.outcome() {
            return Some(o);
        }
        if self.pos.rule50() >= HUNDRED_PLIES {
            return Some(Outcome::Draw {
                reason: EndReason::HundredPlies,
            });
        }
        if self.repetitions() >= 3 {
            return Some(Outcome::Draw {
                reason: EndReason::Threefold,
            });
        }
        None
    }

    /// The legal moves now: none once the game has ended.
    pub fn legal_moves(&self) -> MoveList {
        if self.outcome().is_some() {
            MoveList::new()
        } else {
            self.pos.legal_moves()
        }
    }

    /// Plays a move after checking it and that the game is still on.
    pub fn play(&mut self, m: Move) -> Result<(), GameError> {
        if let Some(o) = self.outcome() {
            return Err(GameError::Over(o));
        }
        self.pos.play(m).map_err(GameError::Illegal)?;
        self.moves.push(m);
        self.keys.push(self.pos.repetition_key());
        self.hashes.push(self.pos.hash());
        Ok(())
    }

    /// Takes back the last move, if any.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.keys.pop();
        self.hashes.pop();
        let mut pos = self.start;
        for &mv in &self.moves {
            pos.make(mv);
        }
        self.pos = pos;
        Some(m)
    }
}
