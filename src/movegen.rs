//! Legal move generation: placements, slides, flying, and every legal removal as its own move.

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::types::Point;

/// Calls `f(from, to, closes_mill)` for every placement or slide of the side to move, before
/// removals are expanded. Nothing is produced when the side has lost on material.
#[inline(always)]
fn for_each_base<F: FnMut(Option<Point>, Point, bool)>(pos: &Position, mut f: F) {
    let us = pos.side_to_move();
    let own = pos.pieces(us);
    let empty = pos.empty();
    let topo = pos.topology();
    if pos.material(us) < 3 {
        return;
    }
    if pos.in_hand(us) > 0 {
        for to in empty {
            f(None, to, topo.closes_mill(own.with(to), to));
        }
    } else if pos.can_fly(us) {
        for from in own {
            let rest = own.without(from);
            for to in empty {
                f(Some(from), to, topo.closes_mill(rest.with(to), to));
            }
        }
    } else {
        for from in own {
            let rest = own.without(from);
            for to in topo.adjacent[from.index()] & empty {
                f(Some(from), to, topo.closes_mill(rest.with(to), to));
            }
        }
    }
}

/// The opponent pieces a mill closed now could take (empty when the opponent has none).
#[inline(always)]
pub fn removable(pos: &Position) -> Bitboard {
    let opp = pos.pieces(pos.side_to_move().other());
    if opp.is_empty() {
        opp
    } else {
        pos.topology().removable(opp)
    }
}

/// Appends all legal moves of `pos` to `list`.
pub fn generate(pos: &Position, list: &mut MoveList) {
    let removable = removable(pos);
    for_each_base(pos, |from, to, mill| {
        let base = match from {
            Some(f) => Move::slide(f, to),
            None => Move::place(to),
        };
        if mill && removable.is_nonempty() {
            for r in removable {
                list.push(base.with_removal(r));
            }
        } else {
            list.push(base);
        }
    });
}

/// Appends the legal moves of `pos` that close a mill and remove a piece (quiescence moves).
pub fn generate_mills(pos: &Position, list: &mut MoveList) {
    let removable = removable(pos);
    if removable.is_empty() {
        return;
    }
    for_each_base(pos, |from, to, mill| {
        if mill {
            let base = match from {
                Some(f) => Move::slide(f, to),
                None => Move::place(to),
            };
            for r in removable {
                list.push(base.with_removal(r));
            }
        }
    });
}

/// The number of legal moves, counted without building them (perft's bulk counting).
pub fn count(pos: &Position) -> u64 {
    let extra = removable(pos).count().saturating_sub(1) as u64;
    let mut n = 0u64;
    let mut mills = 0u64;
    for_each_base(pos, |_, _, mill| {
        n += 1;
        mills += mill as u64;
    });
    n + mills * extra
}

/// Whether the side to move has any legal move (material aside, it has one exactly when it has a
/// placement or a slide: a mill always comes with at least one removal or none is needed).
pub fn has_legal_move(pos: &Position) -> bool {
    let us = pos.side_to_move();
    if pos.material(us) < 3 {
        return false;
    }
    let empty = pos.empty();
    if pos.in_hand(us) > 0 || pos.can_fly(us) {
        return empty.is_nonempty();
    }
    let topo = pos.topology();
    pos.pieces(us)
        .any(|from| (topo.adjacent[from.index()] & empty).is_nonempty())
}
