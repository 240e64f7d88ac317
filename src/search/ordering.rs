//! Move ordering: the table move, mills (with a sensible removal first), blocks of the
//! opponent's mill threats, killers, then history.

use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::position::Position;
use crate::types::Color;

const TT_MOVE: i32 = 1 << 24;
const MILL: i32 = 1 << 22;
const BLOCK: i32 = 1 << 21;
const KILLER: i32 = 1 << 20;

/// The history table's size per colour: origin (24 = placement) times destination.
pub const HISTORY_SIZE: usize = 25 * 24;

/// Index of a move in the history table.
#[inline(always)]
pub fn history_index(m: Move) -> usize {
    m.from().map_or(24, |f| f.index()) * 24 + m.to().index()
}

/// The points where `c` would complete a line it already holds two of, if it got a piece there.
pub fn threat_points(pos: &Position, c: Color) -> Bitboard {
    let own = pos.pieces(c).0;
    let empty = pos.empty().0;
    let mut pts = 0;
    for &line in pos.topology().lines() {
        let gap = line & !own;
        if (own & line).count_ones() == 2 && gap & empty != 0 {
            pts |= gap;
        }
    }
    Bitboard(pts)
}

/// Context shared by all moves of one node.
pub struct OrderContext {
    /// The opponent's threat points: landing there blocks a mill.
    pub opp_threats: Bitboard,
    /// Opponent pieces that stand in a line of two with a free third point: taking one breaks a
    /// threat.
    pub opp_threat_pieces: Bitboard,
}

impl OrderContext {
    /// Computes the context for the side to move of `pos`.
    pub fn new(pos: &Position) -> OrderContext {
        let them = pos.side_to_move().other();
        let opp = pos.pieces(them).0;
        let empty = pos.empty().0;
        let mut threats = 0;
        let mut pieces = 0;
        for &line in pos.topology().lines() {
            if (opp & line).count_ones() == 2 && (line & !opp) & empty != 0 {
                threats |= line & !opp;
                pieces |= line & opp;
            }
        }
        OrderContext {
            opp_threats: Bitboard(threats),
            opp_threat_pieces: Bitboard(pieces),
        }
    }
}

/// The ordering score of a move: higher is tried first.
#[inline]
pub fn score_move(
    pos: &Position,
    ctx: &OrderContext,
    m: Move,
    tt_move: Option<Move>,
    killers: &[Option<Move>; 2],
    history: &[i32; HISTORY_SIZE],
) -> i32 {
    if Some(m) == tt_move {
        return TT_MOVE;
    }
    if let Some(r) = m.removal() {
        let topo = pos.topology();
        let mut s = MILL;
        if ctx.opp_threat_pieces.contains(r) {
            s += 1000;
        }
        s += 10 * (topo.adjacent[r.index()] & pos.empty()).count() as i32;
        return s + history[history_index(m)] / 64;
    }
    if ctx.opp_threats.contains(m.to()) {
        return BLOCK + history[history_index(m)] / 64;
    }
    if Some(m) == killers[0] {
        return KILLER + 1;
    }
    if Some(m) == killers[1] {
        return KILLER;
    }
    history[history_index(m)]
}

/// Moves the best remaining move to position `i` (selection sort, so a cut-off early saves
/// sorting the rest).
#[inline]
pub fn pick(moves: &mut [Move], scores: &mut [i32], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
}
