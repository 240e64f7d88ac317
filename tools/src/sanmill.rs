//! Sanmill's dialect of the protocol, for `mill-sanmill` (which runs Sanmill's engine behind
//! our protocol, so that mill-match, mill-analyze and GUIs can play it) and for the test
//! engine that imitates it.
//!
//! Sanmill (7.4.x, `src/uci.cpp`) differs from protocol.md in four ways:
//! - a removal is a move of its own (`d6` then `xa1`, the same side to move twice), where we
//!   write one token (`d6xa1`);
//! - its position string lists the points ring by ring (inner, middle, outer, each from the
//!   top middle clockwise) and carries phase, action and counts on board;
//! - `go` takes its time from the `MoveTime` option, in whole seconds;
//! - the answer is `info score N bestmove X` (one line), not a line of its own.

use millstone::{Color, Move, Point, Position, Rules, Variant};

/// Sanmill's squares 8..32 in order: the inner ring, the middle ring, the outer ring, each from
/// the middle of its top side clockwise. Its position string lists them in this order.
pub const SQUARES: [&str; 24] = [
    "d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5", // inner
    "d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6", // middle
    "d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7", // outer
];

fn point(name: &str) -> Point {
    name.parse().expect("SQUARES holds point names")
}

/// The `setoption` pairs that make Sanmill play our rules for a rule set: nine (9 pieces, no
/// diagonals) or twelve (12, diagonals, a full board after the placing phase drawn), flying
/// or not. Its other defaults are ours already (a blocked side loses, one removal a mill,
/// pieces in mills protected unless all are, threefold repetition, 100 plies without a mill).
pub fn rule_options(rules: Rules) -> Vec<(String, String)> {
    let twelve = rules.variant == Variant::Twelve;
    let o = |n: &str, v: String| (n.to_string(), v);
    vec![
        o("PiecesCount", rules.variant.pieces().to_string()),
        o("HasDiagonalLines", twelve.to_string()),
        // 4 is agreeToDraw, 0 firstPlayerLose (Sanmill's rule.h).
        o(
            "BoardFullAction",
            if twelve { "4" } else { "0" }.to_string(),
        ),
        o("MayFly", rules.flying.to_string()),
        // One more than our 100: Sanmill counts a mill-closing move before its removal and
        // calls the game drawn there when that move is the 100th, where ours resets the count
        // with the mill. The referee (ours) ends every other 100-ply draw first.
        o("NMoveRule", "101".to_string()),
        o("EndgameNMoveRule", "101".to_string()),
        o("ThreefoldRepetitionRule", "true".to_string()),
    ]
}

/// Our position in Sanmill's position string: board, side, phase (`p` placing, `m` moving),
/// action (`p` place, `s` select a piece to move), counts on board and in hand, no removal
/// pending, no mill history, the 100-ply counter and the move number (both as ours count them).
pub fn fen(pos: &Position) -> String {
    let mut board = String::with_capacity(26);
    for (i, name) in SQUARES.iter().enumerate() {
        if i > 0 && i % 8 == 0 {
            board.push('/');
        }
        board.push(match pos.piece_at(point(name)) {
            Some(Color::White) => 'O',
            Some(Color::Black) => '@',
            None => '*',
        });
    }
    let (w, b) = (Color::White, Color::Black);
    let placing = pos.in_hand(w) > 0 || pos.in_hand(b) > 0;
    format!(
        "{board} {} {} {} {} {} {} {} 0 0 0 0 0 0 0 {} {}",
        if pos.side_to_move() == w { 'w' } else { 'b' },
        if placing { 'p' } else { 'm' },
        if placing { 'p' } else { 's' },
        pos.pieces(w).count(),
        pos.in_hand(w),
        pos.pieces(b).count(),
        pos.in_hand(b),
        pos.rule50(),
        pos.fullmove(),
    )
}

/// Sanmill's position string back into ours (for the test engine that imitates Sanmill). Only
/// what [`fen`] writes is read: a removal pending is refused.
pub fn from_fen(s: &str, rules: Rules) -> Result<Position, String> {
    let f: Vec<&str> = s.split_whitespace().collect();
    if f.len() < 17 {
        return Err(format!(
            "a Sanmill position string has 17 fields, not {}",
            f.len()
        ));
    }
    let cells: Vec<char> = f[0].chars().filter(|&c| c != '/').collect();
    if cells.len() != 24 {
        return Err(format!("'{}' has {} points, not 24", f[0], cells.len()));
    }
    let (mut white, mut black) = (0u32, 0u32);
    for (c, name) in cells.iter().zip(SQUARES) {
        let bit = 1u32 << point(name).index();
        match c {
            'O' => white |= bit,
            '@' => black |= bit,
            '*' => {}
            _ => return Err(format!("'{c}' is no piece of a Sanmill position string")),
        }
    }
    if f[3] == "r" {
        return Err("a removal is pending: not a position of ours".into());
    }
    let num = |i: usize| -> Result<u32, String> {
        f[i].parse::<u32>()
            .map_err(|_| format!("field {} ('{}') is no number", i + 1, f[i]))
    };
    let side = if f[1] == "b" {
        Color::Black
    } else {
        Color::White
    };
    let hand = |i: usize| -> Result<u8, String> {
        u8::try_from(num(i)?).map_err(|_| format!("{} pieces in hand", f[i]))
    };
    // Ours from the sets, then its last two fields (the 100-ply counter, the move number).
    let base = Position::from_sets(rules, white, black, hand(5)?, hand(7)?, side)
        .map_err(|e| e.to_string())?
        .to_fen();
    let mut fields: Vec<String> = base.split(' ').map(String::from).collect();
    fields[4] = num(15)?.to_string();
    fields[5] = num(16)?.to_string();
    Position::from_fen(&fields.join(" "), rules).map_err(|e| e.to_string())
}

/// Our move as Sanmill's tokens: `d6`, `d6-d5`, and a removal as its own `xa1`.
pub fn tokens(m: Move) -> Vec<String> {
    let head = match m.from() {
        Some(from) => format!("{from}-{}", m.to()),
        None => m.to().to_string(),
    };
    let mut out = vec![head];
    if let Some(r) = m.removal() {
        out.push(format!("x{r}"));
    }
    out
}

/// The `position` command for a game from `start` (the start position when `startpos`) with
/// these moves played.
pub fn position_command(start: &Position, startpos: bool, moves: &[Move]) -> String {
    let mut s = if startpos {
        "position startpos".to_string()
    } else {
        format!("position fen {}", fen(start))
    };
    if !moves.is_empty() {
        s.push_str(" moves");
        for m in moves {
            for t in tokens(*m) {
                s.push(' ');
                s.push_str(&t);
            }
        }
    }
    s
}

/// The move in a line of Sanmill's output that carries one: `info score 3 bestmove f4` or
/// `bestmove f4` give `f4`. Other lines (its search's chatter, `bestMove = ...`) give `None`.
pub fn bestmove(line: &str) -> Option<&str> {
    let mut t = line.split_whitespace();
    let first = t.next()?;
    if first != "info" && first != "bestmove" {
        return None;
    }
    if first == "bestmove" {
        return Some(t.next().unwrap_or(""));
    }
    t.by_ref().find(|&w| w == "bestmove")?;
    Some(t.next().unwrap_or(""))
}

/// Sanmill's `MoveTime` (whole seconds, 1 to 60) for a time in milliseconds: rounded up, so it
/// never has less than it was given.
pub fn move_time_seconds(ms: u64) -> u64 {
    ms.div_ceil(1000).clamp(1, 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use millstone::Game;
    use rand::rngs::StdRng;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    #[test]
    fn the_hundred_ply_rule_is_left_to_the_referee() {
        for variant in [Variant::Nine, Variant::Twelve] {
            let opts = rule_options(Rules::new(variant, true));
            let get = |n: &str| opts.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
            // Above our 100 (a 100th move that closes a mill is no draw for us), and equal so
            // that Sanmill's endgame variant of the rule stays off.
            assert_eq!(get("NMoveRule"), Some("101"));
            assert_eq!(get("EndgameNMoveRule"), Some("101"));
        }
    }

    #[test]
    fn the_start_is_sanmills_start() {
        let nine = Position::new(Rules::default());
        assert_eq!(
            fen(&nine),
            "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1"
        );
    }

    /// The position after `a1 d7 a4 b6 a7xd7`, as Sanmill printed it after `a1 d7 a4 b6 a7`
    /// (`********/*******@/@****OOO w p r 3 6 2 7 1 0 ...`), the removal then made.
    #[test]
    fn squares_are_sanmills_order() {
        let mut g = Game::new(Position::new(Rules::default()));
        for m in ["a1", "d7", "a4", "b6", "a7xd7"] {
            g.play(m.parse().unwrap()).unwrap();
        }
        assert_eq!(
            fen(g.position()),
            "********/*******@/*****OOO b p p 3 6 1 7 0 0 0 0 0 0 0 0 3"
        );
    }

    #[test]
    fn moves_split_their_removal() {
        let t = |s: &str| tokens(s.parse().unwrap());
        assert_eq!(t("d6"), ["d6"]);
        assert_eq!(t("d6-d5"), ["d6-d5"]);
        assert_eq!(t("d6xa1"), ["d6", "xa1"]);
        assert_eq!(t("a1-g7xb2"), ["a1-g7", "xb2"]);
        let start = Position::new(Rules::default());
        let moves: Vec<Move> = ["a1", "d7", "a4", "b6", "a7xd7"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        assert_eq!(
            position_command(&start, true, &moves),
            "position startpos moves a1 d7 a4 b6 a7 xd7"
        );
        assert_eq!(position_command(&start, true, &[]), "position startpos");
    }

    #[test]
    fn replies_are_found_in_sanmills_lines() {
        assert_eq!(bestmove("info score 3 bestmove f4"), Some("f4"));
        assert_eq!(
            bestmove("info score -6 aimovetype perfect bestmove xd7"),
            Some("xd7")
        );
        assert_eq!(bestmove("bestmove a1-a4"), Some("a1-a4"));
        assert_eq!(bestmove("6(6) Algorithm bestMove = f4"), None);
        assert_eq!(bestmove("IDS: Algorithm bestMove = a7"), None);
        assert_eq!(bestmove("info depth 3 score 1"), None);
        assert_eq!(move_time_seconds(100), 1);
        assert_eq!(move_time_seconds(1000), 1);
        assert_eq!(move_time_seconds(1001), 2);
        assert_eq!(move_time_seconds(10_000_000), 60);
    }

    /// Every position of random games, both variants, flying on and off, goes to Sanmill's
    /// string and back unchanged.
    #[test]
    fn position_strings_round_trip() {
        let mut rng = StdRng::seed_from_u64(5);
        for variant in [Variant::Nine, Variant::Twelve] {
            for flying in [true, false] {
                let rules = Rules { variant, flying };
                for _ in 0..30 {
                    let mut g = Game::new(Position::new(rules));
                    while g.outcome().is_none() && g.moves().len() < 120 {
                        let p = g.position();
                        assert_eq!(from_fen(&fen(p), rules).as_ref(), Ok(p), "{}", p.to_fen());
                        let moves = g.legal_moves();
                        let m = *moves.as_slice().choose(&mut rng).unwrap();
                        g.play(m).unwrap();
                    }
                }
            }
        }
        assert!(from_fen(
            "********/********/******** w p r 0 9 0 9 1 0 0 0 0 0 0 0 1",
            Rules::default()
        )
        .is_err());
        assert!(from_fen("nonsense", Rules::default()).is_err());
    }
}
