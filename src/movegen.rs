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

/// The empty points where a piece of the side to move would stand in a line with two of its
/// pieces: every move that closes a mill ends on one of them (for a placement, exactly those).
#[inline(always)]
fn mill_targets(pos: &Position, own: Bitboard, empty: Bitboard) -> Bitboard {
    let mut t = 0u32;
    for &l in pos.topology().lines() {
        if (own.0 & l).count_ones() == 2 {
            t |= l & empty.0;
        }
    }
    Bitboard(t)
}

/// The destinations among `targets` where the piece from `from` (a slide or fly) closes a mill.
#[inline(always)]
fn closing(pos: &Position, own: Bitboard, from: Point, targets: Bitboard) -> Bitboard {
    let rest = own.without(from);
    let topo = pos.topology();
    let mut c = Bitboard::EMPTY;
    for to in targets {
        if topo.closes_mill(rest.with(to), to) {
            c = c.with(to);
        }
    }
    c
}

/// The point of `b` with `k` points of `b` below it (`k < b.count()`).
#[inline(always)]
fn kth_point(b: Bitboard, k: u64) -> Point {
    let mut r = b.0;
    for _ in 0..k {
        r &= r - 1;
    }
    Point::from_index(r.trailing_zeros() as usize)
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

/// The move at index `k` of [`generate`]'s list, found without building the list; `None` when
/// there are at most `k` legal moves.
pub fn nth(pos: &Position, k: u64) -> Option<Move> {
    let mut too_big = false;
    let m = choose(pos, |n| {
        too_big = k >= n;
        k.min(n - 1)
    });
    m.filter(|_| !too_big)
}

/// The move at index `index(n)` of [`generate`]'s list, where `n` is the number of legal moves
/// (`index` is called once, with `n > 0`, and must return less than `n`); `None` when there is
/// no legal move. Neither the list nor any move but the one chosen is built: with a uniform
/// `index` it is a uniformly random legal move, the same one as the list's at that index.
pub fn choose(pos: &Position, index: impl FnOnce(u64) -> u64) -> Option<Move> {
    let us = pos.side_to_move();
    if pos.material(us) < 3 {
        return None;
    }
    let own = pos.pieces(us);
    let empty = pos.empty();
    let topo = pos.topology();
    let removable = removable(pos);
    // Moves per base that closes a mill: one per removal, or the base alone.
    let per_mill = (removable.count() as u64).max(1);
    let targets = mill_targets(pos, own, empty);
    let moves_of =
        |to: Bitboard, mills: Bitboard| to.count() as u64 + mills.count() as u64 * (per_mill - 1);
    // The bases by origin (none for a placement), in the list's order: origin, destinations,
    // the destinations that close a mill.
    let fly = pos.can_fly(us);
    let group = |from: Point| {
        let to = if fly {
            empty
        } else {
            topo.adjacent[from.index()] & empty
        };
        let mills = if (to & targets).is_nonempty() {
            closing(pos, own, from, to & targets)
        } else {
            Bitboard::EMPTY
        };
        (Some(from), to, mills)
    };
    let placing = pos.in_hand(us) > 0;
    // At most 12 pieces stand on the board (twelve).
    let mut groups = [(None, Bitboard::EMPTY, Bitboard::EMPTY); 12];
    let mut len = 0;
    let mut n = 0;
    if placing {
        groups[0] = (None, empty, targets);
        len = 1;
    } else {
        for from in own {
            groups[len] = group(from);
            len += 1;
        }
    }
    for &(_, to, mills) in &groups[..len] {
        n += moves_of(to, mills);
    }
    if n == 0 {
        return None;
    }
    let mut k = index(n);
    debug_assert!(k < n);
    // The `k`-th move of a group, or `k` less the group's moves.
    let mut pick = |(from, to, mills): (Option<Point>, Bitboard, Bitboard)| -> Option<Move> {
        let g = moves_of(to, mills);
        if k >= g {
            k -= g;
            return None;
        }
        let base = |t: Point| match from {
            Some(f) => Move::slide(f, t),
            None => Move::place(t),
        };
        if per_mill == 1 || mills.is_empty() {
            let t = kth_point(to, k);
            return Some(if mills.contains(t) && removable.is_nonempty() {
                base(t).with_removal(removable.first().expect("non-empty"))
            } else {
                base(t)
            });
        }
        for t in to {
            if mills.contains(t) {
                if k < per_mill {
                    return Some(base(t).with_removal(kth_point(removable, k)));
                }
                k -= per_mill;
            } else {
                if k == 0 {
                    return Some(base(t));
                }
                k -= 1;
            }
        }
        unreachable!("k below the number of moves")
    };
    groups[..len].iter().find_map(|&g| pick(g))
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
