//! Static evaluation, from the side to move's view, in centipieces (100 = one piece).
//!
//! Every weight lives in [`Weights`], one set per phase, so tuning touches one place. `trace`
//! returns each term separately for the `eval` command; `evaluate` is the sum of the same terms.

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::topology::Topology;
use crate::types::Color;

/// The stage of the game for one side, which changes what matters.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Phase {
    /// Pieces are still being placed.
    Placing,
    /// Pieces slide along lines.
    Moving,
    /// The side has three pieces and may fly.
    Flying,
}

/// Weights of the evaluation terms for one phase.
#[derive(Copy, Clone, Debug)]
pub struct Weights {
    /// A piece on the board.
    pub piece: i32,
    /// A piece still in hand.
    pub in_hand: i32,
    /// Each legal slide.
    pub mobility: i32,
    /// Each piece that cannot move.
    pub blocked: i32,
    /// Each closed mill.
    pub mill: i32,
    /// Each line with two own pieces and a free third point that a piece can reach.
    pub open_mill: i32,
    /// Each piece that can swing out of a mill into another (a running or double mill).
    pub double_mill: i32,
    /// Each own piece on a junction (a point with four neighbours).
    pub junction: i32,
    /// Each point where one move would close two lines at once.
    pub fork: i32,
}

/// Weights while placing.
pub const PLACING: Weights = Weights {
    piece: 100,
    in_hand: 100,
    mobility: 4,
    blocked: -6,
    mill: 12,
    open_mill: 22,
    double_mill: 30,
    junction: 8,
    fork: 30,
};

/// Weights in the moving phase.
pub const MOVING: Weights = Weights {
    piece: 100,
    in_hand: 0,
    mobility: 8,
    blocked: -12,
    mill: 15,
    open_mill: 28,
    double_mill: 70,
    junction: 4,
    fork: 25,
};

/// Weights for a side that flies: mobility is meaningless, every open line is a threat.
pub const FLYING: Weights = Weights {
    piece: 100,
    in_hand: 0,
    mobility: 0,
    blocked: 0,
    mill: 10,
    open_mill: 45,
    double_mill: 0,
    junction: 0,
    fork: 0,
};

/// A bonus for the side to move: it acts first on open threats.
pub const TEMPO: i32 = 10;

/// One side's evaluation terms, already weighted.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    /// Pieces on the board.
    pub material: i32,
    /// Pieces in hand.
    pub hand: i32,
    /// Slides available.
    pub mobility: i32,
    /// Pieces that cannot move.
    pub blocked: i32,
    /// Closed mills.
    pub mills: i32,
    /// Lines one move from a mill.
    pub open_mills: i32,
    /// Pieces that swing between two mills.
    pub double_mills: i32,
    /// Pieces on junctions.
    pub junctions: i32,
    /// Points that would close two lines at once.
    pub forks: i32,
}

impl Terms {
    /// The sum of the terms.
    pub fn total(&self) -> i32 {
        self.material
            + self.hand
            + self.mobility
            + self.blocked
            + self.mills
            + self.open_mills
            + self.double_mills
            + self.junctions
            + self.forks
    }

    /// The terms with their names, for printing.
    pub fn named(&self) -> [(&'static str, i32); 9] {
        [
            ("material", self.material),
            ("hand", self.hand),
            ("mobility", self.mobility),
            ("blocked", self.blocked),
            ("mills", self.mills),
            ("open mills", self.open_mills),
            ("double mills", self.double_mills),
            ("junctions", self.junctions),
            ("forks", self.forks),
        ]
    }
}

/// The full breakdown: each side's terms, the phase each side is in, and the total.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Phase of White and Black.
    pub phases: [Phase; 2],
    /// Terms of White and Black.
    pub terms: [Terms; 2],
    /// Tempo bonus of the side to move.
    pub tempo: i32,
    /// The evaluation from the side to move's view.
    pub total: i32,
}

/// The phase side `c` is in.
pub fn phase(pos: &Position, c: Color) -> Phase {
    if pos.in_hand(c) > 0 {
        Phase::Placing
    } else if pos.can_fly(c) {
        Phase::Flying
    } else {
        Phase::Moving
    }
}

/// Points with four neighbours: the crossings of the connecting lines with the middle square
/// (and, in twelve, the corners of the middle square too).
fn junctions(topo: &Topology) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for i in 0..24 {
        if topo.adjacent[i].count() >= 4 {
            b |= Bitboard(1 << i);
        }
    }
    b
}

fn side_terms(pos: &Position, c: Color) -> Terms {
    let topo = pos.topology();
    let ph = phase(pos, c);
    let w = match ph {
        Phase::Placing => PLACING,
        Phase::Moving => MOVING,
        Phase::Flying => FLYING,
    };
    let own = pos.pieces(c);
    let opp = pos.pieces(c.other());
    let empty = pos.empty();

    let mut t = Terms {
        material: w.piece * own.count() as i32,
        hand: w.in_hand * pos.in_hand(c) as i32,
        ..Terms::default()
    };

    // Mobility and blocked pieces matter once pieces move.
    if ph != Phase::Flying {
        let mut moves = 0;
        let mut blocked = 0;
        for p in own {
            let n = (topo.adjacent[p.index()] & empty).count() as i32;
            moves += n;
            blocked += (n == 0) as i32;
        }
        t.mobility = w.mobility * moves;
        t.blocked = w.blocked * blocked;
    }

    // Where a piece can arrive from in one turn: any empty point when placing or flying, else a
    // point next to one of our pieces.
    let mut mills = 0;
    let mut open = 0;
    let mut closing_points = 0u32;
    let mut fork_points = 0u32;
    for &line in topo.lines() {
        let mine = own.0 & line;
        let n = mine.count_ones();
        if n == 3 {
            mills += 1;
        } else if n == 2 && opp.0 & line == 0 {
            let gap = line & !mine;
            let gap_idx = gap.trailing_zeros() as usize;
            let reachable = match ph {
                Phase::Placing | Phase::Flying => true,
                // A piece from outside the line must step into the gap.
                Phase::Moving => (topo.adjacent[gap_idx].0 & own.0 & !line) != 0,
            };
            if reachable {
                open += 1;
                fork_points |= closing_points & gap;
                closing_points |= gap;
            }
        }
    }
    t.mills = w.mill * mills;
    t.open_mills = w.open_mill * open;
    t.forks = w.fork * fork_points.count_ones() as i32;

    if ph == Phase::Moving {
        // A piece that leaves a mill for a point closing another mill: it can mill every other
        // move.
        let in_mills = topo.in_mills(own);
        let mut doubles = 0;
        for p in in_mills {
            let rest = own.without(p);
            for q in topo.adjacent[p.index()] & empty {
                if topo.closes_mill(rest.with(q), q) {
                    doubles += 1;
                    break;
                }
            }
        }
        t.double_mills = w.double_mill * doubles;
    }

    if ph == Phase::Placing {
        t.junctions = w.junction * (own & junctions(topo)).count() as i32;
    }
    t
}

/// The evaluation with every term, for the `eval` command.
pub fn trace(pos: &Position) -> Trace {
    let us = pos.side_to_move();
    let terms = [side_terms(pos, Color::White), side_terms(pos, Color::Black)];
    let total = terms[us.index()].total() - terms[us.other().index()].total() + TEMPO;
    Trace {
        phases: [phase(pos, Color::White), phase(pos, Color::Black)],
        terms,
        tempo: TEMPO,
        total,
    }
}

/// The evaluation from the side to move's view. Game-ending states are the search's business.
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    side_terms(pos, us).total() - side_terms(pos, us.other()).total() + TEMPO
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    #[test]
    fn start_is_balanced_but_for_tempo() {
        let p = Position::new(Rules::default());
        assert_eq!(evaluate(&p), TEMPO);
        let t = trace(&p);
        assert_eq!(t.total, evaluate(&p));
    }

    #[test]
    fn extra_piece_is_worth_about_a_piece() {
        let a = Position::from_fen(
            "W.W/.../.../W....B/.../.../B.B w 0 0 0 19",
            Rules::default(),
        )
        .unwrap();
        // The same with a lonely extra piece for White.
        let b = Position::from_fen(
            "W.W/.../.../W...WB/.../.../B.B w 0 0 0 19",
            Rules::default(),
        )
        .unwrap();
        assert!(evaluate(&b) - evaluate(&a) >= 60);
    }

    #[test]
    fn symmetric_in_colours() {
        let a = Position::from_fen("W.B/.W./.../BW..B./.../.../... w 5 5 0 5", Rules::default())
            .unwrap();
        let b = Position::from_fen("B.W/.B./.../WB..W./.../.../... w 5 5 0 5", Rules::default())
            .unwrap();
        let ta = trace(&a);
        let tb = trace(&b);
        assert_eq!(ta.terms[0], tb.terms[1]);
        assert_eq!(ta.terms[1], tb.terms[0]);
    }
}
