//! The network's inputs: which features of a position are on, seen from one side.
//!
//! Each side has its own view (its "perspective"): its own pieces and the opponent's are told
//! apart, so one set of first-layer weights serves both colours, and the side to move's view
//! goes first into the dense layers. Per view:
//!
//! | features | count | on when |
//! |---|---|---|
//! | own piece on a point | 24 | |
//! | opponent's piece on a point | 24 | |
//! | state of a line | 20 × 27 | one per line: its three points, each empty, own or opponent's |
//! | own pieces in hand | 13 | one-hot, 0 to 12 |
//! | opponent's pieces in hand | 13 | one-hot |
//! | own pieces on the board | 13 | one-hot, 0 to 12 |
//! | opponent's pieces on the board | 13 | one-hot |
//! | flying allowed | 1 | the rule, not the side's state |
//! | a point's neighbourhood | 24 × 243 | one per point: it and its four square-line mates, each empty, own or opponent's |
//!
//! The line states make a two-in-a-line with a free third point, a closed mill or a blocked line
//! one feature each, the patterns the game turns on, which pieces by point alone would leave to
//! the dense layers. Nine uses 16 lines, twelve 20 (its diagonals); the index layout is the same.
//!
//! The active features are listed in increasing index order, so that two lists can be compared
//! by merging; [`changed`] gives the difference of two positions without listing either.

use crate::position::Position;
use crate::topology::Topology;
use crate::types::Color;

/// Own pieces by point.
pub const OWN: usize = 0;
/// Opponent's pieces by point.
pub const THEIRS: usize = 24;
/// Line states: `LINES + 27 * line + state`.
pub const LINES: usize = 48;
/// Most lines of a variant.
pub const MAX_LINES: usize = 20;
/// Own pieces in hand, one-hot.
pub const HAND_OWN: usize = LINES + 27 * MAX_LINES;
/// Opponent's pieces in hand, one-hot.
pub const HAND_THEIRS: usize = HAND_OWN + 13;
/// Own pieces on the board, one-hot.
pub const COUNT_OWN: usize = HAND_THEIRS + 13;
/// Opponent's pieces on the board, one-hot.
pub const COUNT_THEIRS: usize = COUNT_OWN + 13;
/// The flying rule.
pub const FLYING: usize = COUNT_THEIRS + 13;
/// Point neighbourhoods: `POINTS + 243 * point + state`.
pub const POINTS: usize = FLYING + 1;
/// Features of one view.
pub const COUNT: usize = POINTS + 24 * 243;
/// The features of the first networks' files (everything before the neighbourhoods): such a
/// file is read with zero rows for the rest, which keeps its evaluations.
pub const COUNT_V1: usize = POINTS;
/// Most features on at once in one view: pieces, one state a line, four counts, the rule, one
/// neighbourhood a point.
pub const MAX_ACTIVE: usize = 24 + MAX_LINES + 4 + 1 + 24;

/// A list of feature indices, without allocation.
#[derive(Clone, Copy)]
pub struct List {
    len: usize,
    items: [u16; MAX_ACTIVE],
}

impl Default for List {
    fn default() -> Self {
        List::new()
    }
}

impl List {
    /// An empty list.
    pub const fn new() -> List {
        List {
            len: 0,
            items: [0; MAX_ACTIVE],
        }
    }

    /// Adds an index.
    #[inline]
    pub fn push(&mut self, i: usize) {
        self.items[self.len] = i as u16;
        self.len += 1;
    }

    /// The indices.
    #[inline]
    pub fn as_slice(&self) -> &[u16] {
        &self.items[..self.len]
    }

    /// Empties the list.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Turns each index into the same feature's in the other side's view ([`MIRROR`]); the
    /// order is not kept.
    #[inline]
    pub fn mirror(&mut self) {
        for i in &mut self.items[..self.len] {
            *i = MIRROR[*i as usize];
        }
    }
}

/// By feature, the index of the same feature in the other side's view (own and opponent's
/// swapped), so that one side's difference of two positions gives the other's by a lookup
/// instead of a second pass over the board.
static MIRROR: [u16; COUNT] = mirror_table();

/// A base-3 state of `digits` points with own (1) and opponent's (2) swapped.
const fn swap_owners(mut state: usize, digits: u32) -> usize {
    let (mut out, mut mul, mut k) = (0, 1, 0);
    while k < digits {
        let d = match state % 3 {
            1 => 2,
            2 => 1,
            _ => 0,
        };
        out += d * mul;
        state /= 3;
        mul *= 3;
        k += 1;
    }
    out
}

const fn mirror_table() -> [u16; COUNT] {
    let mut t = [0u16; COUNT];
    let mut i = 0;
    while i < COUNT {
        let m = if i < THEIRS {
            i + 24
        } else if i < LINES {
            i - 24
        } else if i < HAND_OWN {
            let (line, state) = ((i - LINES) / 27, (i - LINES) % 27);
            LINES + 27 * line + swap_owners(state, 3)
        } else if i < HAND_THEIRS || (i >= COUNT_OWN && i < COUNT_THEIRS) {
            i + 13
        } else if i < FLYING {
            i - 13
        } else if i == FLYING {
            i
        } else {
            let (point, state) = ((i - POINTS) / 243, (i - POINTS) % 243);
            POINTS + 243 * point + swap_owners(state, 5)
        };
        t[i] = m as u16;
        i += 1;
    }
    t
}

/// The state of a line from `view`'s side: its points in slot order, base 3 (0 empty, 1 own,
/// 2 opponent's).
#[inline]
fn line_state(points: &[u8; 3], own: u32, theirs: u32) -> usize {
    let mut s = 0;
    let mut mul = 1;
    for &p in points {
        let bit = 1u32 << p;
        s += mul * (((own & bit != 0) as usize) + 2 * ((theirs & bit != 0) as usize));
        mul *= 3;
    }
    s
}

/// The state of `p`'s neighbourhood from `view`'s side: `p` then its square-line mates, base 3.
#[inline]
fn point_state(topo: &Topology, p: usize, own: u32, theirs: u32) -> usize {
    let one = |q: usize| ((own >> q & 1) + 2 * (theirs >> q & 1)) as usize;
    let m = &topo.square_mates[p];
    one(p)
        + 3 * (one(m[0] as usize)
            + 3 * (one(m[1] as usize) + 3 * (one(m[2] as usize) + 3 * one(m[3] as usize))))
}

/// `view`'s own and opponent's pieces and hands.
#[inline]
fn sides(pos: &Position, view: Color) -> (u32, u32, usize, usize) {
    (
        pos.pieces(view).0,
        pos.pieces(view.other()).0,
        pos.in_hand(view) as usize,
        pos.in_hand(view.other()) as usize,
    )
}

/// The features of `pos` that are on in `view`'s view, in increasing order.
#[inline]
pub fn active(pos: &Position, view: Color, out: &mut List) {
    let (own, theirs, hand_own, hand_theirs) = sides(pos, view);
    active_sets(
        pos.topology(),
        [own, theirs],
        [hand_own, hand_theirs],
        pos.rules().flying,
        out,
    );
}

/// [`active`] from the bare sets (own and opponent's pieces and hands), for data that is not
/// a [`Position`] yet.
pub fn active_sets(
    topo: &Topology,
    pieces: [u32; 2],
    hands: [usize; 2],
    flying: bool,
    out: &mut List,
) {
    out.clear();
    let [own, theirs] = pieces;
    let mut b = own;
    while b != 0 {
        out.push(OWN + b.trailing_zeros() as usize);
        b &= b - 1;
    }
    let mut b = theirs;
    while b != 0 {
        out.push(THEIRS + b.trailing_zeros() as usize);
        b &= b - 1;
    }
    for (l, points) in topo.line_points[..topo.line_count].iter().enumerate() {
        out.push(LINES + 27 * l + line_state(points, own, theirs));
    }
    out.push(HAND_OWN + hands[0]);
    out.push(HAND_THEIRS + hands[1]);
    out.push(COUNT_OWN + own.count_ones() as usize);
    out.push(COUNT_THEIRS + theirs.count_ones() as usize);
    if flying {
        out.push(FLYING);
    }
    for p in 0..24 {
        out.push(POINTS + 243 * p + point_state(topo, p, own, theirs));
    }
}

/// The features that go off (`removed`) and on (`added`) in `view`'s view from `before` to
/// `after`, two positions of the same rules. Only what a move can change is looked at: the
/// points whose occupant changed, the lines through them, and the counts. The neighbourhoods
/// only when asked: a network of the first shape has no weights for them.
pub fn changed(
    before: &Position,
    after: &Position,
    view: Color,
    neighbourhoods: bool,
    removed: &mut List,
    added: &mut List,
) {
    removed.clear();
    added.clear();
    let (own0, theirs0, hand_own0, hand_theirs0) = sides(before, view);
    let (own1, theirs1, hand_own1, hand_theirs1) = sides(after, view);
    let points = (own0 ^ own1) | (theirs0 ^ theirs1);
    if points == 0 && hand_own0 == hand_own1 && hand_theirs0 == hand_theirs1 {
        return;
    }
    let topo = before.topology();
    let mut lines = 0u32;
    let mut hood = 0u32;
    let mut rest = points;
    while rest != 0 {
        let p = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if own0 >> p & 1 != own1 >> p & 1 {
            if own0 >> p & 1 != 0 {
                removed.push(OWN + p);
            } else {
                added.push(OWN + p);
            }
        }
        if theirs0 >> p & 1 != theirs1 >> p & 1 {
            if theirs0 >> p & 1 != 0 {
                removed.push(THEIRS + p);
            } else {
                added.push(THEIRS + p);
            }
        }
        lines |= topo.line_ids_through[p];
        if neighbourhoods {
            hood |= topo.square_neighbourhood[p];
        }
    }
    while hood != 0 {
        let q = hood.trailing_zeros() as usize;
        hood &= hood - 1;
        let s0 = point_state(topo, q, own0, theirs0);
        let s1 = point_state(topo, q, own1, theirs1);
        if s0 != s1 {
            removed.push(POINTS + 243 * q + s0);
            added.push(POINTS + 243 * q + s1);
        }
    }
    while lines != 0 {
        let l = lines.trailing_zeros() as usize;
        lines &= lines - 1;
        let pts = &topo.line_points[l];
        let s0 = line_state(pts, own0, theirs0);
        let s1 = line_state(pts, own1, theirs1);
        if s0 != s1 {
            removed.push(LINES + 27 * l + s0);
            added.push(LINES + 27 * l + s1);
        }
    }
    let pairs = [
        (HAND_OWN, hand_own0, hand_own1),
        (HAND_THEIRS, hand_theirs0, hand_theirs1),
        (
            COUNT_OWN,
            own0.count_ones() as usize,
            own1.count_ones() as usize,
        ),
        (
            COUNT_THEIRS,
            theirs0.count_ones() as usize,
            theirs1.count_ones() as usize,
        ),
    ];
    for (base, a, b) in pairs {
        if a != b {
            removed.push(base + a);
            added.push(base + b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Rules, Variant};
    use rand::{Rng, SeedableRng};

    fn set(list: &List) -> std::collections::BTreeSet<u16> {
        list.as_slice().iter().copied().collect()
    }

    /// Random games in both variants: `changed` takes a view's active set exactly to the
    /// next position's, and `active` lists strictly increasing indices below `COUNT`.
    #[test]
    fn changed_matches_active_along_random_games() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for variant in [Variant::Nine, Variant::Twelve] {
            for flying in [false, true] {
                for _ in 0..40 {
                    let mut pos = Position::new(Rules::new(variant, flying));
                    for _ in 0..120 {
                        if pos.outcome().is_some() {
                            break;
                        }
                        let moves = pos.legal_moves();
                        let m = moves[rng.gen_range(0..moves.len())];
                        let mut next = pos;
                        next.make(m);
                        for view in Color::ALL {
                            let (mut a, mut b) = (List::new(), List::new());
                            active(&pos, view, &mut a);
                            active(&next, view, &mut b);
                            assert!(a.as_slice().windows(2).all(|w| w[0] < w[1]));
                            assert!(a.as_slice().iter().all(|&i| (i as usize) < COUNT));
                            let (mut rem, mut add) = (List::new(), List::new());
                            changed(&pos, &next, view, true, &mut rem, &mut add);
                            let mut s = set(&a);
                            for i in rem.as_slice() {
                                assert!(s.remove(i), "{i} removed but not on in {pos}");
                            }
                            for &i in add.as_slice() {
                                assert!(s.insert(i), "{i} added but already on in {pos}");
                            }
                            assert_eq!(s, set(&b), "{pos} then {m}");
                            // The other side's view is this one's mirrored, the whole set
                            // and the difference.
                            let mut other = List::new();
                            active(&next, view.other(), &mut other);
                            let mut m_b = b;
                            m_b.mirror();
                            assert_eq!(set(&m_b), set(&other), "{next}");
                            let (mut rem2, mut add2) = (List::new(), List::new());
                            changed(&pos, &next, view.other(), true, &mut rem2, &mut add2);
                            rem.mirror();
                            add.mirror();
                            assert_eq!(set(&rem), set(&rem2), "{pos} then {m}");
                            assert_eq!(set(&add), set(&add2), "{pos} then {m}");
                        }
                        pos = next;
                    }
                }
            }
        }
    }
}
