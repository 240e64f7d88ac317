//! Reading positions from text: opening books and analysis input.
//!
//! One position a line, in any of these forms:
//!
//! - a position string (six fields), optionally followed by `moves m1 m2 ...`
//! - `fen <six fields> [moves m1 m2 ...]`
//! - `startpos [moves m1 m2 ...]` or just `moves m1 m2 ...` (from the start position)
//! - any of the above after `position ` (as the protocol sends it)
//!
//! Blank lines and lines starting with `#` hold nothing.

use millstone::{Game, Move, Position, Rules};
use rand::seq::SliceRandom;
use rand::Rng;

/// Parses one line; `Ok(None)` for a blank or comment line. The moves are played through
/// the library, so an illegal one is an error naming it.
pub fn parse_line(line: &str, rules: Rules) -> Result<Option<Game>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.first() == Some(&"position") {
        tokens.remove(0);
    }
    let (start, rest): (Position, &[&str]) = match tokens.first().copied() {
        Some("startpos") => (Position::new(rules), &tokens[1..]),
        Some("moves") => (Position::new(rules), &tokens[..]),
        Some("fen") => parse_fen_tokens(&tokens[1..], rules)?,
        Some(t) if t.contains('/') => parse_fen_tokens(&tokens, rules)?,
        Some(t) => {
            return Err(format!(
                "expected a position string, 'fen', 'startpos' or 'moves', found '{t}'"
            ))
        }
        None => unreachable!("the line is not blank"),
    };
    let moves: &[&str] = match rest.first().copied() {
        None => &[],
        Some("moves") => &rest[1..],
        Some(t) => return Err(format!("expected 'moves' after the position, found '{t}'")),
    };
    let mut game = Game::new(start);
    for (i, tok) in moves.iter().enumerate() {
        let m: Move = tok
            .parse()
            .map_err(|e| format!("move {} '{tok}': {e}", i + 1))?;
        game.play(m)
            .map_err(|e| format!("move {} '{tok}' is illegal: {e}", i + 1))?;
    }
    Ok(Some(game))
}

fn parse_fen_tokens<'a>(
    tokens: &'a [&'a str],
    rules: Rules,
) -> Result<(Position, &'a [&'a str]), String> {
    let n = tokens
        .iter()
        .position(|t| *t == "moves")
        .unwrap_or(tokens.len())
        .min(6);
    let fen = tokens[..n].join(" ");
    let pos = Position::from_fen(&fen, rules).map_err(|e| format!("bad position '{fen}': {e}"))?;
    Ok((pos, &tokens[n..]))
}

/// Reads an opening book: one position a line (see the module docs). Each opening is the
/// position its line leads to, as a position string. All bad lines are reported, each as
/// `<name>:<line>: <message>`.
pub fn parse_openings(text: &str, name: &str, rules: Rules) -> Result<Vec<String>, Vec<String>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match parse_line(line, rules) {
            Ok(None) => {}
            Ok(Some(game)) => {
                if let Some(o) = game.outcome() {
                    errors.push(format!(
                        "{name}:{}: the game is already over there ({o})",
                        i + 1
                    ));
                } else {
                    out.push(game.position().to_fen());
                }
            }
            Err(e) => errors.push(format!("{name}:{}: {e}", i + 1)),
        }
    }
    if out.is_empty() && errors.is_empty() {
        errors.push(format!("{name}: no openings in the file"));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A position after `plies` uniformly random legal moves from the start, never one where the
/// game is already over.
pub fn random_opening(rules: Rules, plies: usize, rng: &mut impl Rng) -> Position {
    'retry: loop {
        let mut game = Game::from_rules(rules);
        for _ in 0..plies {
            let legal = game.legal_moves();
            let Some(&m) = legal.as_slice().choose(rng) else {
                continue 'retry;
            };
            game.play(m).expect("a generated move is legal");
        }
        if game.outcome().is_none() {
            return *game.position();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_forms() {
        let r = Rules::default();
        let start = Position::new(r).to_fen();
        assert!(parse_line("  # comment", r).unwrap().is_none());
        assert!(parse_line("", r).unwrap().is_none());
        let g = parse_line(&start, r).unwrap().unwrap();
        assert_eq!(g.position().to_fen(), start);
        let a = parse_line("moves d6 a1", r).unwrap().unwrap();
        let b = parse_line("startpos moves d6 a1", r).unwrap().unwrap();
        let c = parse_line(&format!("position fen {start} moves d6 a1"), r)
            .unwrap()
            .unwrap();
        let d = parse_line(&format!("{start} moves d6 a1"), r)
            .unwrap()
            .unwrap();
        for g in [&b, &c, &d] {
            assert_eq!(g.position().to_fen(), a.position().to_fen());
        }
        assert_eq!(a.moves().len(), 2);
        assert!(parse_line("moves d6 d6", r).unwrap_err().contains("move 2"));
        assert!(parse_line("moves zz", r).unwrap_err().contains("zz"));
        assert!(parse_line("hello", r).is_err());
        assert!(parse_line(".../.../... w 9 9 0 1", r).is_err());
    }

    #[test]
    fn openings_report_line_numbers() {
        let r = Rules::default();
        let text =
            "# book\n\nmoves d6\nmoves d6 d6\n.../.../.../....../.../.../... w 9 9 0 1\nbad\n";
        let errs = parse_openings(text, "book.txt", r).unwrap_err();
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].starts_with("book.txt:4: "), "{}", errs[0]);
        assert!(errs[1].starts_with("book.txt:6: "), "{}", errs[1]);
        let ok = parse_openings("moves d6\n\n# x\nmoves a1\n", "b", r).unwrap();
        assert_eq!(ok.len(), 2);
    }

    #[test]
    fn random_openings_are_seeded() {
        use rand::SeedableRng;
        let r = Rules::default();
        let a = random_opening(r, 6, &mut rand::rngs::StdRng::seed_from_u64(7));
        let b = random_opening(r, 6, &mut rand::rngs::StdRng::seed_from_u64(7));
        assert_eq!(a.to_fen(), b.to_fen());
        assert_eq!(a.in_hand(millstone::Color::White), 6);
    }
}
