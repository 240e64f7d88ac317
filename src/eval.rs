//! Static evaluation, from the side to move's view, in centipieces (100 = one piece).
//!
//! Every weight lives in [`Weights`], one set per variant and phase, so tuning touches one place. `trace`
//! returns each term separately for the `eval` command; `evaluate` is the sum of the same terms.

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::topology::Topology;
use crate::types::{Color, Variant};

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

/// Weights while placing (nine).
pub const PLACING: Weights = Weights {
    piece: 100,
    in_hand: 0,
    mobility: 28,
    blocked: -94,
    mill: 191,
    open_mill: 93,
    double_mill: 30,
    junction: 18,
    fork: 0,
};

/// Weights in the moving phase (nine).
pub const MOVING: Weights = Weights {
    piece: 100,
    in_hand: 0,
    mobility: 0,
    blocked: -82,
    mill: 206,
    open_mill: 219,
    double_mill: 94,
    junction: 4,
    fork: 0,
};

/// Weights for a side that flies (nine): mobility is meaningless, every open line is a threat.
pub const FLYING: Weights = Weights {
    piece: 100,
    in_hand: 0,
    mobility: 0,
    blocked: 0,
    mill: 391,
    open_mill: 316,
    double_mill: 0,
    junction: 0,
    fork: 0,
};

/// A bonus for the side to move (nine): it acts first on open threats.
pub const TEMPO: i32 = 73;

/// Weights while placing (twelve).
pub const TWELVE_PLACING: Weights = Weights {
    piece: 100,
    in_hand: 0,
    mobility: 36,
    blocked: -24,
    mill: 133,
    open_mill: 111,
    double_mill: 30,
    junction: 4,
    fork: 0,
};

/// Weights in the moving phase (twelve).
pub const TWELVE_MOVING: Weights = Weights {
    piece: 100,
    in_hand: 0,
    mobility: 1,
    blocked: -29,
    mill: 195,
    open_mill: 264,
    double_mill: 52,
    junction: 4,
    fork: 0,
};

/// Weights for a side that flies (twelve): flying is rare with twelve pieces and 24 points.
pub const TWELVE_FLYING: Weights = Weights {
    piece: 100,
    in_hand: 0,
    mobility: 0,
    blocked: 0,
    mill: 0,
    open_mill: 266,
    double_mill: 0,
    junction: 0,
    fork: 0,
};

/// A bonus for the side to move (twelve).
pub const TWELVE_TEMPO: i32 = 98;

/// The tempo bonus of a variant.
#[inline]
pub const fn tempo(variant: Variant) -> i32 {
    match variant {
        Variant::Nine => TEMPO,
        Variant::Twelve => TWELVE_TEMPO,
    }
}

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

/// Points with four neighbours: where a piece keeps the most options while placing.
fn junctions(topo: &Topology) -> Bitboard {
    Bitboard(
        (0..24)
            .filter(|&i| topo.adjacent[i].count() >= 4)
            .fold(0, |b, i| b | 1 << i),
    )
}

/// Junctions of each variant, computed once.
fn junction_mask(pos: &Position) -> Bitboard {
    use std::sync::OnceLock;
    static MASKS: OnceLock<[Bitboard; 2]> = OnceLock::new();
    let m = MASKS.get_or_init(|| {
        [
            junctions(Topology::of(Variant::Nine)),
            junctions(Topology::of(Variant::Twelve)),
        ]
    });
    m[pos.variant() as usize]
}

/// One side's raw feature counts: how many of each thing the weights multiply, in the same
/// shape as the weighted [`Terms`]. A count that does not apply in the side's phase is 0
/// (mobility and blocked when flying, junctions outside placing, double mills outside moving).
pub type Counts = Terms;

/// The raw features of a position: each side's phase and counts, White first. The evaluation is
/// a linear function of them (see [`Weights::apply`]), which is what tuning needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Features {
    /// Phase of White and Black.
    pub phases: [Phase; 2],
    /// Counts of White and Black.
    pub counts: [Counts; 2],
}

impl Weights {
    /// The weights of a phase in a variant.
    pub const fn of(variant: Variant, phase: Phase) -> Weights {
        match (variant, phase) {
            (Variant::Nine, Phase::Placing) => PLACING,
            (Variant::Nine, Phase::Moving) => MOVING,
            (Variant::Nine, Phase::Flying) => FLYING,
            (Variant::Twelve, Phase::Placing) => TWELVE_PLACING,
            (Variant::Twelve, Phase::Moving) => TWELVE_MOVING,
            (Variant::Twelve, Phase::Flying) => TWELVE_FLYING,
        }
    }

    /// These weights applied to one side's counts.
    #[inline]
    pub fn apply(&self, c: &Counts) -> Terms {
        Terms {
            material: self.piece * c.material,
            hand: self.in_hand * c.hand,
            mobility: self.mobility * c.mobility,
            blocked: self.blocked * c.blocked,
            mills: self.mill * c.mills,
            open_mills: self.open_mill * c.open_mills,
            double_mills: self.double_mill * c.double_mills,
            junctions: self.junction * c.junctions,
            forks: self.fork * c.forks,
        }
    }
}

/// Both sides' raw feature counts. One pass over the lines serves both colours.
pub fn features(pos: &Position) -> Features {
    let topo = pos.topology();
    let empty = pos.empty();
    let phases = [phase(pos, Color::White), phase(pos, Color::Black)];
    let own = [pos.pieces(Color::White), pos.pieces(Color::Black)];

    // All lines at once: one bit per line in each slot word.
    let line_mask = (1u32 << topo.line_count) - 1;
    let slots = [topo.line_slots(own[0]), topo.line_slots(own[1])];
    let free = topo.line_slots(empty);
    let mut mills = [0i32; 2];
    let mut open = [0i32; 2];
    let mut forks = [0u32; 2];
    for c in 0..2 {
        let [m0, m1, m2] = slots[c];
        mills[c] = (m0 & m1 & m2).count_ones() as i32;
        // Two of ours and the third point free, by which slot is free.
        let gaps = [free[0] & m1 & m2, m0 & free[1] & m2, m0 & m1 & free[2]];
        if (gaps[0] | gaps[1] | gaps[2]) & line_mask == 0 {
            continue;
        }
        let mut closing = 0u32;
        for (slot, &lines) in gaps.iter().enumerate() {
            let mut lines = lines & line_mask;
            while lines != 0 {
                let i = lines.trailing_zeros() as usize;
                lines &= lines - 1;
                let gap_point = topo.line_points[i][slot] as usize;
                let reachable = match phases[c] {
                    Phase::Placing | Phase::Flying => true,
                    // A piece from outside the line must step into the gap.
                    Phase::Moving => topo.adjacent[gap_point].0 & own[c].0 & !topo.lines[i] != 0,
                };
                if reachable {
                    open[c] += 1;
                    forks[c] |= closing & (1 << gap_point);
                    closing |= 1 << gap_point;
                }
            }
        }
    }

    let mut counts = [Counts::default(); 2];
    for c in 0..2 {
        let t = &mut counts[c];
        t.material = own[c].count() as i32;
        t.hand = pos.in_hand(Color::ALL[c]) as i32;
        t.mills = mills[c];
        t.open_mills = open[c];
        t.forks = forks[c].count_ones() as i32;
        match phases[c] {
            Phase::Flying => {}
            Phase::Placing | Phase::Moving => {
                let mut moves = 0;
                let mut blocked = 0;
                for p in own[c] {
                    let n = (topo.adjacent[p.index()] & empty).count() as i32;
                    moves += n;
                    blocked += (n == 0) as i32;
                }
                t.mobility = moves;
                t.blocked = blocked;
            }
        }
        if phases[c] == Phase::Placing {
            t.junctions = (own[c] & junction_mask(pos)).count() as i32;
        }
        if phases[c] == Phase::Moving && mills[c] > 0 {
            // A piece that leaves a mill for a point closing another mill can mill every
            // other move.
            let mut doubles = 0;
            for p in topo.in_mills(own[c]) {
                let rest = own[c].without(p);
                if (topo.adjacent[p.index()] & empty).any(|q| topo.closes_mill(rest.with(q), q)) {
                    doubles += 1;
                }
            }
            t.double_mills = doubles;
        }
    }
    Features { phases, counts }
}

/// Both sides' weighted terms, White first: each side's phase weights applied to its counts.
fn terms(pos: &Position) -> [Terms; 2] {
    let f = features(pos);
    let v = pos.variant();
    [0, 1].map(|c| Weights::of(v, f.phases[c]).apply(&f.counts[c]))
}

/// The evaluation with every term, for the `eval` command.
pub fn trace(pos: &Position) -> Trace {
    let us = pos.side_to_move();
    let terms = terms(pos);
    let tempo = tempo(pos.variant());
    let total = terms[us.index()].total() - terms[us.other().index()].total() + tempo;
    Trace {
        phases: [phase(pos, Color::White), phase(pos, Color::Black)],
        terms,
        tempo,
        total,
    }
}

/// The evaluation from the side to move's view. Game-ending states are the search's business.
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    let t = terms(pos);
    let us = pos.side_to_move().index();
    t[us].total() - t[1 - us].total() + tempo(pos.variant())
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
        let rules = Rules {
            variant: Variant::Twelve,
            flying: true,
        };
        let p = Position::new(rules);
        assert_eq!(evaluate(&p), TWELVE_TEMPO);
        assert_eq!(trace(&p).total, evaluate(&p));
    }

    #[test]
    fn extra_piece_is_worth_about_a_piece() {
        let a = Position::from_fen(
            "W.W/.../W../W....B/..B/.../B.B w 0 0 0 19",
            Rules::default(),
        )
        .unwrap();
        // The same with a lonely extra piece for White. Both sides stay in the moving phase: going
        // from three pieces to four gives up flying, which is worth something in itself.
        let b = Position::from_fen(
            "W.W/.../W../W...WB/..B/.../B.B w 0 0 0 19",
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
