//! Legal move generation: placements, slides, flying, and every legal removal as its own move.

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::rings::{self, Pairs};
use crate::types::{Point, Variant};

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

/// In-byte positions of set bits: `SELECT_IN_BYTE[b][k]` is the `k`-th set bit of `b`.
static SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut k, mut i) = (0, 0);
        while i < 8 {
            if b & (1 << i) != 0 {
                t[b][k] = i as u8;
                k += 1;
            }
            i += 1;
        }
        b += 1;
    }
    t
};

/// The bit of `b` with `k` bits of `b` below it (`k < b.count_ones()`), found byte by byte
/// (x86-64-v2 has no `pdep`) and without branches: the index is random, so a branch would be
/// mispredicted often.
#[inline(always)]
fn select(b: u32, k: u32) -> u32 {
    debug_assert!(k < b.count_ones());
    let c0 = (b & 0xff).count_ones();
    let c1 = c0 + ((b >> 8) & 0xff).count_ones();
    let past0 = (k >= c0) as u32;
    let past1 = (k >= c1) as u32;
    let byte = past0 + past1;
    let k = k - past0 * c0 - past1 * (c1 - c0);
    8 * byte + SELECT_IN_BYTE[((b >> (8 * byte)) & 0xff) as usize][k as usize & 7] as u32
}

/// Where the moves of a group come from.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Origin {
    /// Placements.
    Hand,
    /// Slides, one group per direction: counterclockwise, clockwise, inwards, outwards.
    Step,
    /// Flights, one group per piece.
    Piece,
}

/// `STEP_MOVE[d][t]`: the slide in direction `d` (see [`Origin::Step`]) to ring bit `t`, and
/// `STEP_MOVE[4][t]` the placement there: one lookup from the chosen bit to the move. (Entries
/// of slides from off the board hold the placement; no such slide is ever chosen.)
static STEP_MOVE: [[Move; 24]; 5] = {
    let mut o = [[Move::place(Point::from_index(0)); 24]; 5];
    let mut t = 0;
    while t < 24 {
        let x = 1u32 << t;
        let to = rings::point(t);
        let from = [
            rings::back(x),
            rings::fwd(x),
            rings::outward(x),
            rings::inward(x),
        ];
        let mut d = 0;
        while d < 4 {
            o[d][t as usize] = if from[d] == 0 {
                Move::place(to)
            } else {
                Move::slide(rings::point(from[d].trailing_zeros()), to)
            };
            d += 1;
        }
        o[4][t as usize] = Move::place(to);
        t += 1;
    }
    o
};

/// `THIRD[twelve][a][b]`: the point (ring bit set) that makes a line with the ring bits `a` and
/// `b`, if they are on one: where a flight closes a mill with the other two of three pieces.
static THIRD: [[[u32; 24]; 24]; 2] = {
    let mut t = [[[0u32; 24]; 24]; 2];
    let mut v = 0;
    while v < 2 {
        let across = if v == 0 { rings::MIDS } else { rings::ALL };
        let mut a = 0;
        while a < 24 {
            let mut b = 0;
            while b < 24 {
                if a != b {
                    t[v][a][b] = Pairs::of(1 << a | 1 << b, across).any();
                }
                b += 1;
            }
            a += 1;
        }
        v += 1;
    }
    t
};

/// The legal moves of a position in the order [`choose`] numbers them: by group (the placements;
/// the slides by direction; the flights by piece), in a group by destination (in the ring
/// layout of [`crate::rings`]), and a destination that closes a mill once per removable piece.
/// Each set is in the ring layout.
struct Groups {
    /// The opponent's pieces, and the positions with a line across the rings.
    opp: u32,
    across: u32,
    origin: Origin,
    /// For flights, each group's piece.
    pieces: [u32; 4],
    dests: [u32; 4],
    mills: [u32; 4],
    /// Each group's destinations, and those that close a mill.
    dests_n: [u32; 4],
    mills_n: [u32; 4],
    /// The bases (moves with one removal per mill), and those that close a mill.
    bases: u32,
    mill_bases: u32,
}

impl Groups {
    #[inline(always)]
    fn of(pos: &Position) -> Option<Groups> {
        let us = pos.side_to_move();
        if pos.material(us) < 3 {
            return None;
        }
        let own = rings::from_board(pos.pieces(us).0);
        let opp = rings::from_board(pos.pieces(us.other()).0);
        let empty = rings::ALL & !(own | opp);
        let across = rings::across(pos.variant());
        let mut g = Groups {
            opp,
            across,
            origin: Origin::Hand,
            pieces: [0; 4],
            dests: [0; 4],
            mills: [0; 4],
            dests_n: [0; 4],
            mills_n: [0; 4],
            bases: 0,
            mill_bases: 0,
        };
        if pos.in_hand(us) > 0 {
            g.dests[0] = empty;
            g.mills[0] = Pairs::of(own, across).any() & empty;
        } else if pos.can_fly(us) {
            // A flight closes a mill where the other pieces make a pair.
            g.origin = Origin::Piece;
            let a = own.trailing_zeros();
            let b = (own & (own - 1)).trailing_zeros();
            let c = 31 - own.leading_zeros();
            let third = &THIRD[(pos.variant() == Variant::Twelve) as usize];
            g.pieces = [a, b, c, 0];
            g.dests = [empty, empty, empty, 0];
            g.mills = [
                third[b as usize][c as usize] & empty,
                third[a as usize][c as usize] & empty,
                third[a as usize][b as usize] & empty,
                0,
            ];
        } else {
            // A slide closes a mill along a line through its destination that does not hold its
            // origin: for a slide along a ring, a line of the other side or across; for one
            // across the rings, a side line.
            g.origin = Origin::Step;
            let p = Pairs::of(own, across);
            let reach = [
                rings::fwd(own),
                rings::back(own),
                rings::inward(own & across),
                rings::outward(own & across),
            ];
            let closing = [
                p.ahead | p.across,
                p.behind | p.across,
                p.ahead | p.behind | p.side,
                p.ahead | p.behind | p.side,
            ];
            for i in 0..4 {
                g.dests[i] = reach[i] & empty;
                g.mills[i] = reach[i] & empty & closing[i];
            }
        }
        for i in 0..4 {
            g.dests_n[i] = g.dests[i].count_ones();
            g.mills_n[i] = g.mills[i].count_ones();
            g.bases += g.dests_n[i];
            g.mill_bases += g.mills_n[i];
        }
        Some(g)
    }
}

/// The opponent's pieces a mill could take now, in the ring layout.
#[inline(always)]
fn removable_rings(g: &Groups) -> u32 {
    let free = g.opp & !rings::in_mills(g.opp, g.across);
    if free != 0 {
        free
    } else {
        g.opp
    }
}

/// The number of legal moves, counted without building them (perft's bulk counting).
pub fn count(pos: &Position) -> u64 {
    let Some(g) = Groups::of(pos) else {
        return 0;
    };
    if g.mill_bases == 0 {
        return g.bases as u64;
    }
    let extra = removable_rings(&g).count_ones().saturating_sub(1);
    (g.bases + g.mill_bases * extra) as u64
}

/// The move numbered `k` by [`choose`]; `None` when there are at most `k` legal moves.
pub fn nth(pos: &Position, k: u64) -> Option<Move> {
    let mut too_big = false;
    let m = choose(pos, |n| {
        too_big = k >= n;
        k.min(n - 1)
    });
    m.filter(|_| !too_big)
}

/// The legal move numbered `index(n)`, where `n` is the number of legal moves (`index` is called
/// once, with `n > 0`, and must return less than `n`); `None` when there is no legal move. The
/// numbering is one of the position's own (not [`generate`]'s order): `0..n` name every legal
/// move once, so a uniform `index` gives a uniformly random legal move. Neither the list nor
/// any move but the one chosen is built, and no loop runs over the pieces or their
/// destinations: whole sets are shifted at once (see [`crate::rings`]).
pub fn choose(pos: &Position, index: impl FnOnce(u64) -> u64) -> Option<Move> {
    let g = Groups::of(pos)?;
    let removable = if g.mill_bases > 0 {
        removable_rings(&g)
    } else {
        0
    };
    // Moves per base that closes a mill beyond the first: one per removal, or the base alone.
    let extra = removable.count_ones().saturating_sub(1);
    let n = g.bases + g.mill_bases * extra;
    if n == 0 {
        return None;
    }
    let mut k = index(n as u64) as u32;
    debug_assert!(k < n);
    // The group: count those whose moves end at or before `k` (no branch: see `select`).
    let (mut end, mut i, mut before) = (0u32, 0usize, 0u32);
    for j in 0..4 {
        end += g.dests_n[j] + extra * g.mills_n[j];
        let past = (end <= k) as u32;
        i += past as usize;
        before = if past != 0 { end } else { before };
    }
    k -= before;
    let (dests, mills) = (g.dests[i], g.mills[i]);
    // In the group, the destinations that close a mill weigh one move per removal. Without
    // branches again: each mill's block of moves, and how many end before `k`.
    let (mut hit, mut t_hit, mut r_hit, mut past) = (false, 0, 0, 0);
    for (j, t) in Bitboard(mills).map(|p| p.index() as u32).enumerate() {
        let start = (dests & ((1 << t) - 1)).count_ones() + extra * j as u32;
        let inside = k >= start && k <= start + extra;
        hit |= inside;
        t_hit = if inside { t } else { t_hit };
        r_hit = if inside { k - start } else { r_hit };
        past += (k > start + extra) as u32;
    }
    let plain = (k - extra * past).min(g.dests_n[i] - 1);
    let t = if hit { t_hit } else { select(dests, plain) };
    let m = match g.origin {
        Origin::Hand => STEP_MOVE[4][t as usize],
        Origin::Step => STEP_MOVE[i][t as usize],
        Origin::Piece => Move::slide(rings::point(g.pieces[i]), rings::point(t)),
    };
    // (A mill takes nothing only when the opponent has no piece on the board.)
    Some(if hit && removable != 0 {
        m.with_removal(rings::point(select(removable, r_hit)))
    } else {
        m
    })
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
