//! Zobrist keys, generated at compile time.
//!
//! A position's key covers what makes two positions the same for repetition: the board, the side
//! to move and both hands. The 100-ply counter and the move number are left out on purpose.

use crate::types::{Color, Point};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// All keys in one table, so a single const block fills them from one seed.
struct Keys {
    piece: [[u64; 24]; 2],
    hand: [[u64; 13]; 2],
    side: u64,
}

const KEYS: Keys = {
    let mut state = 0x4D49_4C4C_5354_4F4E; // "MILLSTON"
    let mut piece = [[0u64; 24]; 2];
    let mut hand = [[0u64; 13]; 2];
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < 24 {
            let (s, k) = splitmix(state);
            state = s;
            piece[c][i] = k;
            i += 1;
        }
        let mut h = 0;
        while h < 13 {
            let (s, k) = splitmix(state);
            state = s;
            hand[c][h] = k;
            h += 1;
        }
        c += 1;
    }
    let (_, side) = splitmix(state);
    Keys { piece, hand, side }
};

/// Key of a piece of colour `c` on `p`.
#[inline(always)]
pub const fn piece(c: Color, p: Point) -> u64 {
    KEYS.piece[c.index()][p.index()]
}

/// Key of colour `c` holding `n` pieces in hand (0..=12).
#[inline(always)]
pub const fn hand(c: Color, n: u8) -> u64 {
    KEYS.hand[c.index()][n as usize]
}

/// Key toggled when Black is to move.
pub const SIDE: u64 = KEYS.side;
