//! The board seen as three rings of eight points, for counting moves and picking random ones
//! without a loop over the pieces. In this layout a point's neighbours on its ring are its bit's
//! neighbours within a byte (a rotation), and its neighbours on the other rings are eight bits
//! away, so the moves of all pieces in one direction, and every line that two pieces would make
//! a mill of, are a few shifts of a whole set.
//!
//! Bits 0-7 are the outer ring, 8-15 the middle one, 16-23 the inner one. On each ring,
//! position 0 is the corner on rank 1 and the leftmost file, and positions go counterclockwise:
//! corners are even, midpoints odd. The lines are three consecutive positions of a ring starting
//! at a corner (the sides) and the same position on all three rings: midpoints in both variants,
//! corners too in twelve (its diagonals).

use crate::types::{Point, Variant};

/// The board index of each position of each ring (outer, middle, inner).
const RINGS: [[u8; 8]; 3] = [
    [0, 1, 2, 14, 23, 22, 21, 9],  // a1 d1 g1 g4 g7 d7 a7 a4
    [3, 4, 5, 13, 20, 19, 18, 10], // b2 d2 f2 f4 f6 d6 b6 b4
    [6, 7, 8, 12, 17, 16, 15, 11], // c3 d3 e3 e4 e5 d5 c5 c4
];

/// The corners of the three rings.
pub const CORNERS: u32 = 0x55_5555;
/// The midpoints of the three rings.
pub const MIDS: u32 = 0xAA_AAAA;
/// All 24 points.
pub const ALL: u32 = 0xFF_FFFF;

/// The board index of each ring bit.
static TO_POINT: [u8; 24] = {
    let mut t = [0u8; 24];
    let mut i = 0;
    while i < 24 {
        t[i] = RINGS[i / 8][i % 8];
        i += 1;
    }
    t
};

/// `FROM_BOARD[byte][v]`: the ring bits of the board points in byte `byte` of a board set `v`.
static FROM_BOARD: [[u32; 256]; 3] = {
    let mut t = [[0u32; 256]; 3];
    let mut i = 0;
    while i < 24 {
        let p = RINGS[i / 8][i % 8] as usize;
        let (byte, bit) = (p / 8, p % 8);
        let mut v = 0;
        while v < 256 {
            if v & (1 << bit) != 0 {
                t[byte][v] |= 1 << i;
            }
            v += 1;
        }
        i += 1;
    }
    t
};

/// A board set (bit `i` for the point with index `i`) in the ring layout.
#[inline(always)]
pub fn from_board(b: u32) -> u32 {
    FROM_BOARD[0][(b & 0xff) as usize]
        | FROM_BOARD[1][((b >> 8) & 0xff) as usize]
        | FROM_BOARD[2][((b >> 16) & 0xff) as usize]
}

/// The point of ring bit `i` (`i < 24`).
#[inline(always)]
pub const fn point(i: u32) -> Point {
    Point::from_index(TO_POINT[i as usize] as usize)
}

/// Every point moved one position counterclockwise on its ring.
#[inline(always)]
pub const fn fwd(x: u32) -> u32 {
    ((x << 1) & 0xFE_FEFE) | ((x >> 7) & 0x01_0101)
}

/// Every point moved one position clockwise on its ring.
#[inline(always)]
pub const fn back(x: u32) -> u32 {
    ((x >> 1) & 0x7F_7F7F) | ((x << 7) & 0x80_8080)
}

/// Every point moved to the next ring inwards (the inner ring's fall off).
#[inline(always)]
pub const fn inward(x: u32) -> u32 {
    (x << 8) & ALL
}

/// Every point moved to the next ring outwards (the outer ring's fall off).
#[inline(always)]
pub const fn outward(x: u32) -> u32 {
    x >> 8
}

/// The positions that have a line across the rings: midpoints, and in twelve corners too.
#[inline(always)]
pub const fn across(v: Variant) -> u32 {
    match v {
        Variant::Nine => MIDS,
        Variant::Twelve => ALL,
    }
}

/// For a set `o` of one side's pieces: the points `t` where a line through `t` has its two other
/// points in `o`, by the kind of line (`t` itself may hold anything).
#[derive(Copy, Clone, Debug)]
pub struct Pairs {
    /// Corners whose side line going counterclockwise has its two other points in `o`.
    pub ahead: u32,
    /// Corners whose side line going clockwise has its two other points in `o`.
    pub behind: u32,
    /// Midpoints whose side line has both corners in `o`.
    pub side: u32,
    /// Points whose line across the rings has its two other points in `o`.
    pub across: u32,
}

impl Pairs {
    /// The pairs of `o` (ring layout) with `across` the positions that have a line across.
    #[inline(always)]
    pub const fn of(o: u32, across: u32) -> Pairs {
        let (f, b) = (fwd(o), back(o));
        let (i, u) = (inward(o), outward(o));
        let cross = ((u & outward(u)) & 0xFF) | ((i & u) & 0xFF00) | ((i & inward(i)) & 0xFF_0000);
        Pairs {
            ahead: b & back(b) & CORNERS,
            behind: f & fwd(f) & CORNERS,
            side: f & b & MIDS,
            across: cross & across,
        }
    }

    /// Every point where a piece would close a mill with two of `o` (placing there does).
    #[inline(always)]
    pub const fn any(self) -> u32 {
        self.ahead | self.behind | self.side | self.across
    }
}

/// The pieces of `o` (ring layout) that stand in a mill.
#[inline(always)]
pub fn in_mills(o: u32, across: u32) -> u32 {
    let sides = o & back(o) & back(back(o)) & CORNERS;
    let lines = o & outward(o) & outward(outward(o)) & across & 0xFF;
    sides | fwd(sides) | fwd(fwd(sides)) | lines | inward(lines) | inward(inward(lines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    fn board(r: u32) -> u32 {
        (0..24)
            .filter(|&i| r & (1 << i) != 0)
            .fold(0, |b, i| b | 1 << TO_POINT[i])
    }

    /// A few thousand sets, from a fixed generator.
    fn sets() -> impl Iterator<Item = u32> {
        let mut x = 0x1234_5678_9abc_def0u64;
        (0..4000).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x as u32 & (x >> 32) as u32) & ALL
        })
    }

    #[test]
    fn layout_is_a_permutation() {
        let mut seen = [false; 24];
        for &p in &TO_POINT {
            assert!(!seen[p as usize]);
            seen[p as usize] = true;
        }
        for (i, &p) in TO_POINT.iter().enumerate() {
            assert_eq!(from_board(1 << p), 1 << i);
            assert_eq!(point(i as u32).index(), p as usize);
        }
    }

    #[test]
    fn neighbours_match_the_topology() {
        for v in [Variant::Nine, Variant::Twelve] {
            let topo = Topology::of(v);
            for (i, &p) in TO_POINT.iter().enumerate() {
                let x = 1u32 << i;
                let a = across(v);
                let cross = if x & a != 0 {
                    inward(x) | outward(x)
                } else {
                    0
                };
                let n = fwd(x) | back(x) | cross;
                assert_eq!(board(n), topo.adjacent[p as usize].0, "{v:?} {i}");
            }
        }
    }

    #[test]
    fn lines_match_the_topology() {
        for v in [Variant::Nine, Variant::Twelve] {
            let topo = Topology::of(v);
            for o in sets() {
                let b = board(o);
                assert_eq!(
                    board(in_mills(o, across(v))),
                    topo.in_mills(crate::Bitboard(b)).0
                );
                // The points where a line has its two other points in `o`.
                let pairs = (0..24u32)
                    .filter(|&i| {
                        let p = TO_POINT[i as usize] as usize;
                        topo.lines_through[p]
                            .iter()
                            .any(|&l| l < 1 << 24 && b & (l & !(1 << p)) == l & !(1 << p))
                    })
                    .fold(0, |s, i| s | 1 << i);
                assert_eq!(Pairs::of(o, across(v)).any(), pairs, "{v:?} {o:06x}");
            }
        }
    }
}
