//! Move-path counting (perft) to check move generation against known counts.

use crate::movegen;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// [`divide`] that can be stopped: hands each root move's count to `each` as soon as it is
/// known, and gives up when `stop` is set (checked every few thousand leaves). Returns whether
/// it counted every move; a move whose count was cut short is not handed over.
pub fn divide_until(
    pos: &mut Position,
    depth: u32,
    stop: &AtomicBool,
    mut each: impl FnMut(Move, u64),
) -> bool {
    if depth == 0 {
        return true;
    }
    for &m in pos.legal_moves().iter() {
        let undo = pos.make(m);
        let n = perft_until(pos, depth - 1, stop);
        pos.unmake(m, undo);
        match n {
            Some(n) => each(m, n),
            None => return false,
        }
    }
    true
}

fn perft_until(pos: &mut Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    // Below this the subtrees are small enough to finish between two looks at the flag.
    if depth <= 3 {
        return (!stop.load(Ordering::Relaxed)).then(|| perft(pos, depth));
    }
    let mut list = MoveList::new();
    movegen::generate(pos, &mut list);
    let mut total = 0;
    for &m in list.iter() {
        let undo = pos.make(m);
        let n = perft_until(pos, depth - 1, stop);
        pos.unmake(m, undo);
        total += n?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Rules;

    #[test]
    fn divide_until_agrees_with_divide_and_stops() {
        let mut pos = Position::new(Rules::default());
        let mut got = Vec::new();
        let go = AtomicBool::new(false);
        assert!(divide_until(&mut pos, 4, &go, |m, n| got.push((m, n))));
        assert_eq!(got, divide(&mut pos, 4));
        let stop = AtomicBool::new(true);
        let mut any = false;
        assert!(!divide_until(&mut pos, 6, &stop, |_, _| any = true));
        assert!(!any);
    }
}
