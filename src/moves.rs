//! Moves packed in 16 bits, a fixed-capacity move list, and the move notation of RULES.md.

use crate::types::{ParsePointError, Point};
use std::fmt;
use std::num::NonZeroU16;
use std::str::FromStr;

/// One turn: a placement or a slide/fly, with the removal it makes when it closes a mill.
///
/// Bit layout of the packed value (never zero, so `Option<Move>` is two bytes):
///
/// | bits   | field                                     |
/// |--------|-------------------------------------------|
/// | 0..5   | destination point (0..24)                  |
/// | 5..10  | origin point, or 31 for a placement        |
/// | 10..15 | removed point, or 31 when nothing is taken |
///
/// A placement's origin is 31 and a slide's origin differs from its destination, so the value is
/// never zero.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

const NONE: u16 = 31;

impl Move {
    #[inline(always)]
    const fn pack(from: u16, to: u16, remove: u16) -> Move {
        match NonZeroU16::new(to | (from << 5) | (remove << 10)) {
            Some(v) => Move(v),
            None => panic!("a move is never zero"),
        }
    }

    /// A placement on `to`.
    #[inline(always)]
    pub const fn place(to: Point) -> Move {
        Move::pack(NONE, to.index() as u16, NONE)
    }

    /// A slide or fly from `from` to `to`; the caller ensures `from != to`.
    #[inline(always)]
    pub const fn slide(from: Point, to: Point) -> Move {
        debug_assert!(from.index() != to.index());
        Move::pack(from.index() as u16, to.index() as u16, NONE)
    }

    /// This move with a removal of `p` added.
    #[inline(always)]
    pub const fn with_removal(self, p: Point) -> Move {
        let v = (self.0.get() & 0x03ff) | ((p.index() as u16) << 10);
        match NonZeroU16::new(v) {
            Some(v) => Move(v),
            None => panic!("a move is never zero"),
        }
    }

    /// This move without its removal.
    #[inline(always)]
    pub const fn without_removal(self) -> Move {
        Move::pack((self.0.get() >> 5) & 31, self.0.get() & 31, NONE)
    }

    /// Where the piece lands.
    #[inline(always)]
    pub const fn to(self) -> Point {
        Point::from_index((self.0.get() & 31) as usize)
    }

    /// Where the piece comes from; `None` for a placement.
    #[inline(always)]
    pub const fn from(self) -> Option<Point> {
        let f = (self.0.get() >> 5) & 31;
        if f == NONE {
            None
        } else {
            Some(Point::from_index(f as usize))
        }
    }

    /// The opponent piece taken, if the move closes a mill.
    #[inline(always)]
    pub const fn removal(self) -> Option<Point> {
        let r = self.0.get() >> 10;
        if r == NONE {
            None
        } else {
            Some(Point::from_index(r as usize))
        }
    }

    /// Whether the move places a piece from the hand.
    #[inline(always)]
    pub const fn is_placement(self) -> bool {
        (self.0.get() >> 5) & 31 == NONE
    }

    /// The packed value, for tables.
    #[inline(always)]
    pub const fn to_u16(self) -> u16 {
        self.0.get()
    }

    /// Unpacks a value from [`Move::to_u16`]; `None` if it is not a well-formed move.
    pub fn from_u16(v: u16) -> Option<Move> {
        let to = v & 31;
        let from = (v >> 5) & 31;
        let rem = (v >> 10) & 31;
        if v >> 15 != 0 || to >= 24 || (from != NONE && (from >= 24 || from == to)) {
            return None;
        }
        if rem != NONE && (rem >= 24 || rem == to) {
            return None;
        }
        NonZeroU16::new(v).map(Move)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(from) = self.from() {
            write!(f, "{}-", from)?;
        }
        write!(f, "{}", self.to())?;
        if let Some(r) = self.removal() {
            write!(f, "x{}", r)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a token is not a move in the notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseMoveError {
    /// The token is empty.
    Empty,
    /// A part of the token is not a point name.
    BadPoint {
        /// The whole token.
        token: String,
        /// What was wrong with the part.
        source: ParsePointError,
    },
    /// The origin and destination are the same point.
    SamePoint(String),
    /// The removal is the point the piece lands on.
    RemovesOwnPiece(String),
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseMoveError::Empty => write!(f, "empty move"),
            ParseMoveError::BadPoint { token, source } => {
                write!(f, "bad move '{}': {}", token, source)
            }
            ParseMoveError::SamePoint(t) => {
                write!(f, "bad move '{}': origin and destination are the same", t)
            }
            ParseMoveError::RemovesOwnPiece(t) => {
                write!(f, "bad move '{}': it removes the piece it moves", t)
            }
        }
    }
}

impl std::error::Error for ParseMoveError {}

impl FromStr for Move {
    type Err = ParseMoveError;
    /// Parses `d6`, `d6-d5`, `d6xa1` or `d6-d5xa1` (case-insensitive). Whether the move is legal
    /// is a question for the position.
    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        if s.is_empty() {
            return Err(ParseMoveError::Empty);
        }
        let lower = s.to_ascii_lowercase();
        let point = |t: &str| {
            t.parse::<Point>().map_err(|e| ParseMoveError::BadPoint {
                token: s.to_string(),
                source: e,
            })
        };
        let (body, removal) = match lower.split_once('x') {
            Some((b, r)) => (b, Some(point(r)?)),
            None => (lower.as_str(), None),
        };
        let mv = match body.split_once('-') {
            Some((f, t)) => {
                let (f, t) = (point(f)?, point(t)?);
                if f == t {
                    return Err(ParseMoveError::SamePoint(s.to_string()));
                }
                Move::slide(f, t)
            }
            None => Move::place(point(body)?),
        };
        match removal {
            Some(r) if r == mv.to() => Err(ParseMoveError::RemovesOwnPiece(s.to_string())),
            Some(r) => Ok(mv.with_removal(r)),
            None => Ok(mv),
        }
    }
}

/// Enough room for every position: at most about 440 moves exist (slides into every empty point
/// from four sides, each with up to eleven removals), so 512 never overflows.
pub const MAX_MOVES: usize = 512;

/// A fixed-capacity list of moves that lives on the stack.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    #[inline]
    pub const fn new() -> MoveList {
        MoveList {
            moves: [Move::place(Point::from_index(0)); MAX_MOVES],
            len: 0,
        }
    }

    /// Appends a move.
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        debug_assert!(self.len < MAX_MOVES);
        self.moves[self.len] = m;
        self.len += 1;
    }

    /// Number of moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties the list.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// The moves as a mutable slice (for ordering).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    /// Whether the list holds `m`.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for MoveList {
    fn deref_mut(&mut self) -> &mut [Move] {
        self.as_mut_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_notation() {
        for s in ["d6", "d6-d5", "d6xa1", "d6-d5xa1", "a1", "g7-a1xd1"] {
            let m: Move = s.parse().unwrap();
            assert_eq!(m.to_string(), s);
            assert_eq!(Move::from_u16(m.to_u16()), Some(m));
        }
        assert_eq!("D6-D5".parse::<Move>().unwrap().to_string(), "d6-d5");
    }

    #[test]
    fn bad_notation() {
        for s in [
            "", "z9", "d4", "d6-d6", "d6xd6", "d6-", "-d5", "d6x", "d6-d5-d4", "d6xa1xb2",
        ] {
            assert!(s.parse::<Move>().is_err(), "{s}");
        }
    }

    #[test]
    fn option_move_is_two_bytes() {
        assert_eq!(std::mem::size_of::<Option<Move>>(), 2);
    }
}
