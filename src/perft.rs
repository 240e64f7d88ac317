//! Move-path counting (perft) to check move generation against known counts.

use crate::movegen;
use crate::moves::{Move, MoveList};
use crate::position::Position;

/// Counts the move sequences of `depth` plies, with every removal choice a separate move. A side
/// that has lost has no moves; repetition and the 100-ply rule play no part. The last ply is
/// counted without being played (bulk counting).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => movegen::count(pos),
        _ => {
            let mut list = MoveList::new();
            movegen::generate(pos, &mut list);
            let mut total = 0;
            for &m in list.iter() {
                let undo = pos.make(m);
                total += perft(pos, depth - 1);
                pos.unmake(m, undo);
            }
            total
        }
    }
}

/// Perft that plays every move down to the leaves: the reference for measuring what bulk
/// counting saves.
pub fn perft_full(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    movegen::generate(pos, &mut list);
    let mut total = 0;
    for &m in list.iter() {
        let undo = pos.make(m);
        total += perft_full(pos, depth - 1);
        pos.unmake(m, undo);
    }
    total
}

/// Perft split by root move, in generation order.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let list = pos.legal_moves();
    list.iter()
        .map(|&m| {
            let undo = pos.make(m);
            let n = perft(pos, depth - 1);
            pos.unmake(m, undo);
            (m, n)
        })
        .collect()
}
