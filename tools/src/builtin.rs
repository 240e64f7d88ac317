//! Built-in players that need no process: `random` and `greedy`, as weak reference opponents.

use millstone::{Bitboard, Move, Point, Position};
use rand::seq::SliceRandom;
use rand::Rng;
use std::fmt;
use std::str::FromStr;

/// A built-in player.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// A uniformly random legal move.
    Random,
    /// Closes a mill if it can (removing a piece of an opponent threat if possible), else
    /// blocks a point where the opponent could close a mill next, else plays at random.
    Greedy,
}

impl Builtin {
    /// `random` or `greedy`.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Random => "random",
            Builtin::Greedy => "greedy",
        }
    }

    /// Picks a move; `None` when there is no legal move.
    pub fn choose(self, pos: &Position, rng: &mut impl Rng) -> Option<Move> {
        let legal = pos.legal_moves();
        match self {
            Builtin::Random => legal.as_slice().choose(rng).copied(),
            Builtin::Greedy => greedy(pos, legal.as_slice(), rng),
        }
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Builtin {
    type Err = String;
    fn from_str(s: &str) -> Result<Builtin, String> {
        match s {
            "random" => Ok(Builtin::Random),
            "greedy" => Ok(Builtin::Greedy),
            _ => Err(format!(
                "unknown built-in player '{s}' (expected random or greedy)"
            )),
        }
    }
}

/// Empty points where the side `them` could close a mill with its next move, and the pieces
/// of `them` that make up those threats.
pub fn threats(pos: &Position, them: millstone::Color) -> (Bitboard, Bitboard) {
    let topo = pos.topology();
    let own = pos.pieces(them).0;
    let empty = pos.empty().0;
    let placing = pos.in_hand(them) > 0;
    let flying = !placing && pos.can_fly(them);
    let mut points = 0u32;
    let mut pieces = 0u32;
    for &line in topo.lines() {
        let mine = own & line;
        let free = empty & line;
        if mine.count_ones() != 2 || free.count_ones() != 1 {
            continue;
        }
        let p = Point::from_index(free.trailing_zeros() as usize);
        // Can a piece of `them` get to p without being one of the two in the line?
        let reach = placing
            || (flying && (own & !line) != 0)
            || (topo.adjacent[p.index()].0 & own & !line) != 0;
        if reach {
            points |= free;
            pieces |= mine;
        }
    }
    (Bitboard(points), Bitboard(pieces))
}

fn greedy(pos: &Position, legal: &[Move], rng: &mut impl Rng) -> Option<Move> {
    if legal.is_empty() {
        return None;
    }
    let us = pos.side_to_move();
    let (threat_points, threat_pieces) = threats(pos, us.other());
    let mills: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| m.removal().is_some())
        .collect();
    if !mills.is_empty() {
        let breaking: Vec<Move> = mills
            .iter()
            .copied()
            .filter(|m| m.removal().is_some_and(|r| threat_pieces.contains(r)))
            .collect();
        let pool = if breaking.is_empty() { mills } else { breaking };
        return pool.choose(rng).copied();
    }
    let blocks: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| threat_points.contains(m.to()))
        .collect();
    if let Some(m) = blocks.choose(rng) {
        return Some(*m);
    }
    legal.choose(rng).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use millstone::Rules;
    use rand::SeedableRng;

    #[test]
    fn greedy_closes_and_blocks() {
        let rules = Rules::default();
        // White has a7 d7, black has a1 d1: white to move closes a7 d7 g7.
        let pos = Position::from_fen("WW./.../.../....../.../.../BB. w 7 7 0 3", rules).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        for _ in 0..20 {
            let m = Builtin::Greedy.choose(&pos, &mut rng).unwrap();
            assert_eq!(m.to().name(), "g7");
            // It takes a piece of black's threat.
            assert!(matches!(m.removal().map(|r| r.name()), Some("a1" | "d1")));
        }
        // Black to move, no own mill: it must block g7.
        let pos = Position::from_fen("WW./.../.../....../.../.../B.. b 7 8 0 2", rules).unwrap();
        for _ in 0..20 {
            let m = Builtin::Greedy.choose(&pos, &mut rng).unwrap();
            assert_eq!(m.to().name(), "g7");
        }
    }
}
