//! The action encoding, version 1 (documented in `docs/python.md`).
//!
//! Points are numbered as the engine numbers them (`millstone::types::Point`): `a1=0 d1=1 g1=2
//! b2=3 ... a7=21 d7=22 g7=23`, rank by rank from rank 1, each rank from file a.
//!
//! - The *base* of a move (its placement or slide, removal left out) is `to` for a placement
//!   and `24 + 24 * from + to` for a slide or fly: 600 ids, OpenSpiel's layout with our points.
//! - The *complete-move* id (removal folded in) is `25 * base + removal`, with `removal` the
//!   removed point or 24 when nothing is taken: 15000 ids.
//! - The *two-step* form: a move is its base id; when the move closes a mill the same player
//!   then chooses the removal as a second action, the removed point's id 0..24.

use millstone::{Move, Point};

/// Version of the encoding; bumped whenever an id changes meaning.
pub const ENCODING_VERSION: u32 = 1;
/// Number of two-step action ids (bases and removals share 0..24).
pub const NUM_TWO_STEP: usize = 600;
/// Number of complete-move action ids.
pub const NUM_FULL: usize = 600 * 25;

/// The base id of a move (its removal left out).
#[inline]
pub fn base_id(m: Move) -> usize {
    let to = m.to().index();
    match m.from() {
        None => to,
        Some(f) => 24 + 24 * f.index() + to,
    }
}

/// The complete-move id.
#[inline]
pub fn full_id(m: Move) -> usize {
    base_id(m) * 25 + m.removal().map_or(24, |r| r.index())
}

/// The move (without removal) of a base id; `None` if no move has this id.
pub fn base_move(id: usize) -> Option<Move> {
    if id < 24 {
        return Some(Move::place(Point::from_index(id)));
    }
    if id >= NUM_TWO_STEP {
        return None;
    }
    let (f, t) = ((id - 24) / 24, (id - 24) % 24);
    (f != t).then(|| Move::slide(Point::from_index(f), Point::from_index(t)))
}

/// The move of a complete-move id; `None` if no move has this id.
pub fn full_move(id: usize) -> Option<Move> {
    if id >= NUM_FULL {
        return None;
    }
    let m = base_move(id / 25)?;
    match id % 25 {
        24 => Some(m),
        r if r == m.to().index() || Some(r) == m.from().map(|p| p.index()) => None,
        r => Some(m.with_removal(Point::from_index(r))),
    }
}
