//! The board's lines and adjacency for both variants, built at compile time.
//!
//! Every drawn line of the board is a line of three points, and two points are adjacent exactly
//! when they are consecutive on one of these lines, so adjacency is derived from the line list
//! rather than typed in twice.

use crate::bitboard::Bitboard;
use crate::types::{Point, Variant};

/// Point indices of the 16 lines shared by both variants (see `types::Point` for the numbering).
const SQUARE_LINES: [[u8; 3]; 16] = [
    // rows
    [21, 22, 23], // a7 d7 g7
    [18, 19, 20], // b6 d6 f6
    [15, 16, 17], // c5 d5 e5
    [9, 10, 11],  // a4 b4 c4
    [12, 13, 14], // e4 f4 g4
    [6, 7, 8],    // c3 d3 e3
    [3, 4, 5],    // b2 d2 f2
    [0, 1, 2],    // a1 d1 g1
    // columns
    [21, 9, 0],   // a7 a4 a1
    [18, 10, 3],  // b6 b4 b2
    [15, 11, 6],  // c5 c4 c3
    [22, 19, 16], // d7 d6 d5
    [7, 4, 1],    // d3 d2 d1
    [17, 12, 8],  // e5 e4 e3
    [20, 13, 5],  // f6 f4 f2
    [23, 14, 2],  // g7 g4 g1
];

/// The four diagonals of Twelve Men's Morris.
const DIAGONAL_LINES: [[u8; 3]; 4] = [
    [21, 18, 15], // a7 b6 c5
    [23, 20, 17], // g7 f6 e5
    [0, 3, 6],    // a1 b2 c3
    [2, 5, 8],    // g1 f2 e3
];

/// A mask that no set of points can fill: it only uses a bit above the 24 points. Pads the
/// per-point line lists so that a fixed-length check needs no branch on the count.
const NEVER_FULL: u32 = 1 << 31;

/// Lines and adjacency of one variant.
#[derive(Debug)]
pub struct Topology {
    /// The variant these tables belong to.
    pub variant: Variant,
    /// Each line as a mask of its three points.
    pub lines: [u32; 20],
    /// How many entries of `lines` are used (16 or 20).
    pub line_count: usize,
    /// Points adjacent to each point.
    pub adjacent: [Bitboard; 24],
    /// The lines through each point, as masks, padded with a never-full mask (a corner of the
    /// twelve board lies on three lines, every other point on two).
    pub lines_through: [[u32; 3]; 24],
    /// The points of each line, in slot order 0, 1, 2.
    pub line_points: [[u8; 3]; 20],
    /// The lines through each point, one bit per line index (what changes when a point does).
    pub line_ids_through: [u32; 24],
    /// Each point's square-line mates: the other two points of each of the two lines of the
    /// square grid through it, in line and slot order (twelve's diagonals left out, so every
    /// point has exactly four).
    pub square_mates: [[u8; 4]; 24],
    /// The point and its square-line mates, as a mask.
    pub square_neighbourhood: [u32; 24],
    /// `slot_tables[s][k][byte]`: for byte `k` of a bitboard, the lines (one bit per line) whose
    /// slot `s` point is set in that byte. Lets the evaluation see all lines at once.
    slot_tables: [[[u32; 256]; 3]; 3],
}

const fn build(variant: Variant) -> Topology {
    let mut lines = [0u32; 20];
    let mut line_count = 0;
    let mut adjacent = [Bitboard(0); 24];
    let mut lines_through = [[NEVER_FULL; 3]; 24];
    let mut through_count = [0usize; 24];
    let mut line_points = [[0u8; 3]; 20];
    let mut line_ids_through = [0u32; 24];
    let mut square_mates = [[0u8; 4]; 24];
    let mut mates_count = [0usize; 24];
    let mut square_neighbourhood = [0u32; 24];
    let mut slot_tables = [[[0u32; 256]; 3]; 3];
    let total = match variant {
        Variant::Nine => 16,
        Variant::Twelve => 20,
    };
    while line_count < total {
        let pts = if line_count < 16 {
            SQUARE_LINES[line_count]
        } else {
            DIAGONAL_LINES[line_count - 16]
        };
        let mask = (1u32 << pts[0]) | (1u32 << pts[1]) | (1u32 << pts[2]);
        lines[line_count] = mask;
        line_points[line_count] = pts;
        let mut slot = 0;
        while slot < 3 {
            let p = pts[slot] as usize;
            let (byte, bit) = (p / 8, p % 8);
            let mut v = 0;
            while v < 256 {
                if v & (1 << bit) != 0 {
                    slot_tables[slot][byte][v] |= 1 << line_count;
                }
                v += 1;
            }
            slot += 1;
        }
        let mut k = 0;
        while k < 3 {
            let p = pts[k] as usize;
            lines_through[p][through_count[p]] = mask;
            through_count[p] += 1;
            line_ids_through[p] |= 1 << line_count;
            if line_count < 16 {
                square_neighbourhood[p] |= mask;
                let mut j = 0;
                while j < 3 {
                    if j != k {
                        square_mates[p][mates_count[p]] = pts[j];
                        mates_count[p] += 1;
                    }
                    j += 1;
                }
            }
            k += 1;
        }
        // Consecutive points on a line are neighbours.
        let (a, b, c) = (pts[0] as usize, pts[1] as usize, pts[2] as usize);
        adjacent[a] = Bitboard(adjacent[a].0 | (1 << b));
        adjacent[b] = Bitboard(adjacent[b].0 | (1 << a) | (1 << c));
        adjacent[c] = Bitboard(adjacent[c].0 | (1 << b));
        line_count += 1;
    }
    Topology {
        variant,
        lines,
        line_count,
        adjacent,
        lines_through,
        line_points,
        line_ids_through,
        square_mates,
        square_neighbourhood,
        slot_tables,
    }
}

/// Tables of Nine Men's Morris.
pub static NINE: Topology = build(Variant::Nine);
/// Tables of Twelve Men's Morris.
pub static TWELVE: Topology = build(Variant::Twelve);

impl Topology {
    /// The tables of a variant.
    #[inline]
    pub fn of(variant: Variant) -> &'static Topology {
        match variant {
            Variant::Nine => &NINE,
            Variant::Twelve => &TWELVE,
        }
    }

    /// The lines in use, as masks.
    #[inline(always)]
    pub fn lines(&self) -> &[u32] {
        &self.lines[..self.line_count]
    }

    /// The set `b` seen line by line: word `s` has bit `i` set when slot `s` of line `i` is in
    /// `b`. So `w[0] & w[1] & w[2]` are the full lines.
    #[inline(always)]
    pub fn line_slots(&self, b: Bitboard) -> [u32; 3] {
        let bytes = [
            (b.0 & 255) as usize,
            ((b.0 >> 8) & 255) as usize,
            ((b.0 >> 16) & 255) as usize,
        ];
        let t = &self.slot_tables;
        [0, 1, 2].map(|s| t[s][0][bytes[0]] | t[s][1][bytes[1]] | t[s][2][bytes[2]])
    }

    /// Whether `own` (which holds `p`) has a complete line through `p`.
    #[inline(always)]
    pub fn closes_mill(&self, own: Bitboard, p: Point) -> bool {
        let l = &self.lines_through[p.index()];
        (own.0 & l[0] == l[0]) | (own.0 & l[1] == l[1]) | (own.0 & l[2] == l[2])
    }

    /// The pieces of `pieces` that stand in a complete line of them.
    #[inline]
    pub fn in_mills(&self, pieces: Bitboard) -> Bitboard {
        let mut m = 0;
        for &line in self.lines() {
            if pieces.0 & line == line {
                m |= line;
            }
        }
        Bitboard(m)
    }

    /// The pieces an opponent's mill may remove from `pieces`: those outside complete lines, or
    /// all of them when every one stands in a line.
    #[inline]
    pub fn removable(&self, pieces: Bitboard) -> Bitboard {
        let free = pieces & !self.in_mills(pieces);
        if free.is_nonempty() {
            free
        } else {
            pieces
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> Point {
        name.parse().unwrap()
    }

    /// Every point has four distinct square-line mates, its two square lines less itself,
    /// and its neighbourhood mask is those lines; its sliding neighbours are among them.
    #[test]
    fn square_mates_are_the_two_square_lines() {
        for topo in [&NINE, &TWELVE] {
            for q in 0..24 {
                let mates = topo.square_mates[q].map(|m| 1u32 << m);
                let lines: Vec<u32> = topo.lines[..16]
                    .iter()
                    .copied()
                    .filter(|l| l >> q & 1 != 0)
                    .collect();
                assert_eq!(lines.len(), 2, "point {q}");
                let all = lines[0] | lines[1];
                assert_eq!(topo.square_neighbourhood[q], all);
                assert_eq!(mates.iter().fold(0, |a, m| a | m), all & !(1 << q));
                assert_eq!(mates.iter().map(|m| m.count_ones()).sum::<u32>(), 4);
                if topo.variant == Variant::Nine {
                    assert_eq!(topo.adjacent[q].0 & !all, 0, "point {q}");
                }
            }
        }
    }

    #[test]
    fn edge_counts() {
        let nine: u32 = NINE.adjacent.iter().map(|b| b.count()).sum();
        let twelve: u32 = TWELVE.adjacent.iter().map(|b| b.count()).sum();
        assert_eq!(nine, 2 * 32);
        assert_eq!(twelve, 2 * 40);
    }

    #[test]
    fn adjacency_examples() {
        assert!(NINE.adjacent[p("d7").index()].contains(p("d6")));
        assert!(NINE.adjacent[p("a4").index()].contains(p("b4")));
        assert!(!NINE.adjacent[p("c4").index()].contains(p("e4")));
        assert!(!NINE.adjacent[p("a7").index()].contains(p("b6")));
        assert!(TWELVE.adjacent[p("a7").index()].contains(p("b6")));
        assert!(TWELVE.adjacent[p("f2").index()].contains(p("e3")));
        assert_eq!(NINE.adjacent[p("d6").index()].count(), 4);
        assert_eq!(TWELVE.adjacent[p("b6").index()].count(), 4);
        assert_eq!(TWELVE.adjacent[p("a7").index()].count(), 3);
    }

    #[test]
    fn every_point_on_two_or_three_lines() {
        for t in [&NINE, &TWELVE] {
            for i in 0..24 {
                let n = t.lines().iter().filter(|&&l| l & (1 << i) != 0).count();
                let corner = [21, 23, 0, 2, 18, 20, 3, 5, 15, 17, 6, 8].contains(&i);
                let expect = if t.variant == Variant::Twelve && corner {
                    3
                } else {
                    2
                };
                assert_eq!(n, expect, "point {}", i);
            }
        }
    }

    #[test]
    fn line_slots_agree_with_masks() {
        for t in [&NINE, &TWELVE] {
            for seed in 0..2000u32 {
                let b = Bitboard(seed.wrapping_mul(2_654_435_761) >> 8);
                let [s0, s1, s2] = t.line_slots(b);
                for (i, &line) in t.lines().iter().enumerate() {
                    let full = b.0 & line == line;
                    assert_eq!(s0 & s1 & s2 & (1 << i) != 0, full);
                    let count = (b.0 & line).count_ones();
                    let slots = [s0, s1, s2].iter().filter(|w| *w & (1 << i) != 0).count();
                    assert_eq!(count as usize, slots);
                }
            }
        }
    }

    #[test]
    fn removable_respects_mills() {
        let mill = Bitboard(NINE.lines[0]);
        let extra = Bitboard::from_point(p("a1"));
        assert_eq!(NINE.removable(mill | extra), extra);
        assert_eq!(NINE.removable(mill), mill);
    }
}
