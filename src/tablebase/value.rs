//! The stored value of a position and its 16-bit encoding.

use std::cmp::Ordering;
use std::fmt;

/// What a table stores for a position, from the side to move's view, independent of the
/// 100-ply counter (see the module documentation of [`crate::tablebase`] for the exact meaning
/// of the distance).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Value {
    /// The side to move wins; the next mill (or the opponent's blockade) comes after this many
    /// plies under best play.
    Win(u16),
    /// Neither side can force progress.
    Draw,
    /// The side to move loses; the next mill or its blockade comes after this many plies.
    Loss(u16),
}

const WIN_TAG: u16 = 0x4000;
const LOSS_TAG: u16 = 0x8000;
const DIST_MASK: u16 = 0x3fff;
/// Largest distance the encoding holds.
pub const MAX_DISTANCE: u16 = DIST_MASK;
/// The generator's mark for a position not solved yet; never written to a file.
pub(crate) const UNKNOWN: u16 = 0xffff;

/// Plies without a mill after which the game is drawn, as a distance.
pub(crate) const LIMIT: u16 = crate::position::HUNDRED_PLIES;

impl Value {
    /// The 16-bit form: 0 for a draw, 0x4000 | d for a win, 0x8000 | d for a loss.
    #[inline(always)]
    pub const fn to_u16(self) -> u16 {
        match self {
            Value::Draw => 0,
            Value::Win(d) => WIN_TAG | d,
            Value::Loss(d) => LOSS_TAG | d,
        }
    }

    /// Decodes [`Value::to_u16`]; `None` for a code no table writes.
    #[inline(always)]
    pub const fn from_u16(v: u16) -> Option<Value> {
        match v & !DIST_MASK {
            0 if v == 0 => Some(Value::Draw),
            WIN_TAG => Some(Value::Win(v & DIST_MASK)),
            LOSS_TAG => Some(Value::Loss(v & DIST_MASK)),
            _ => None,
        }
    }

    /// The value one ply earlier, for the side that moved into a position of this value
    /// without closing a mill.
    #[inline(always)]
    pub const fn parent(self) -> Value {
        match self {
            Value::Draw => Value::Draw,
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
        }
    }

    /// The value, for the mover, of a mill that leads to a position of value `child` (the
    /// opponent to move, counter reset to 0). The mill is the conversion, one ply away; a
    /// conversion into a position whose result the 100-ply rule spoils counts as 100 plies
    /// further, so that every distance above 100 marks a result that the rule spoils.
    #[inline(always)]
    pub const fn after_mill(child: Value) -> Value {
        match child {
            Value::Draw => Value::Draw,
            Value::Loss(d) if d <= LIMIT => Value::Win(1),
            Value::Loss(_) => Value::Win(LIMIT + 1),
            Value::Win(d) if d <= LIMIT => Value::Loss(1),
            Value::Win(_) => Value::Loss(LIMIT + 1),
        }
    }

    /// A key that orders values by preference of the side to move: faster wins first, then
    /// draws, then slower losses.
    #[inline(always)]
    pub const fn key(self) -> i32 {
        match self {
            Value::Win(d) => 100_000 - d as i32,
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + d as i32,
        }
    }

    /// The distance in plies, 0 for a draw.
    pub const fn distance(self) -> u16 {
        match self {
            Value::Win(d) | Value::Loss(d) => d,
            Value::Draw => 0,
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, o: &Value) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Value {
    /// Better for the side to move is greater.
    fn cmp(&self, o: &Value) -> Ordering {
        self.key().cmp(&o.key())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d}"),
            Value::Draw => write!(f, "draw"),
            Value::Loss(d) => write!(f, "loss in {d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        for v in [
            Value::Draw,
            Value::Win(1),
            Value::Loss(0),
            Value::Win(MAX_DISTANCE),
        ] {
            assert_eq!(Value::from_u16(v.to_u16()), Some(v));
        }
        assert_eq!(Value::from_u16(UNKNOWN), None);
        assert_eq!(Value::from_u16(5), None);
    }

    #[test]
    fn ordering() {
        assert!(Value::Win(1) > Value::Win(2));
        assert!(Value::Win(900) > Value::Draw);
        assert!(Value::Draw > Value::Loss(900));
        assert!(Value::Loss(9) > Value::Loss(1));
    }
}
