//! Strict checks of the text a page sends before any of it is put into an engine command.
//! These check the notation's character set and shape only; legality is the engine's business.

/// Longest request a page may send (a PGN of a long game fits easily).
pub const MAX_REQUEST: usize = 256 * 1024;
/// Most moves in a loaded game.
pub const MAX_MOVES: usize = 2000;

/// `a1`..`g7` in shape (a file letter and a rank digit).
pub fn is_point(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 2 && (b'a'..=b'g').contains(&b[0]) && (b'1'..=b'7').contains(&b[1])
}

/// A move token in shape: `d6`, `d6-d5`, `d6xa1`, `d6-d5xa1` (lower case).
pub fn is_move_token(s: &str) -> bool {
    let (mv, removal) = match s.split_once('x') {
        Some((m, r)) => (m, Some(r)),
        None => (s, None),
    };
    if let Some(r) = removal {
        if !is_point(r) {
            return false;
        }
    }
    match mv.split_once('-') {
        Some((a, b)) => is_point(a) && is_point(b),
        None => is_point(mv),
    }
}

/// A position string in shape: six fields, the board of `W`, `B`, `.` and `/`, side `w`/`b`,
/// four numbers of at most 6 digits.
pub fn is_fen(s: &str) -> bool {
    let f: Vec<&str> = s.split(' ').collect();
    if f.len() != 6 {
        return false;
    }
    let board_ok = !f[0].is_empty()
        && f[0].len() <= 40
        && f[0].bytes().all(|c| matches!(c, b'W' | b'B' | b'.' | b'/'));
    let side_ok = f[1] == "w" || f[1] == "b";
    let nums_ok = f[2..]
        .iter()
        .all(|n| !n.is_empty() && n.len() <= 6 && n.bytes().all(|c| c.is_ascii_digit()));
    board_ok && side_ok && nums_ok
}

/// Normalises a position string typed by a person: surrounding space trimmed, runs of
/// whitespace made single spaces.
pub fn normalise_fen(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        for ok in ["d6", "d6-d5", "d6xa1", "d6-d5xa1", "a1", "g7-a1"] {
            assert!(is_move_token(ok), "{ok}");
        }
        for bad in [
            "", "d", "h1", "a8", "D6", "d6-", "d6x", "d6 xa1", "d6\nquit", "d6-d5-d4", "xa1",
            "0000",
        ] {
            assert!(!is_move_token(bad), "{bad:?}");
        }
    }

    #[test]
    fn fens() {
        assert!(is_fen(".../.../.../....../.../.../... w 9 9 0 1"));
        assert!(!is_fen(".../.../.../....../.../.../... w 9 9 0"));
        assert!(!is_fen(".../.../.../....../.../.../... w 9 9 0 1\nquit"));
        assert!(!is_fen(".../.../.../....../.../.../... x 9 9 0 1"));
        assert!(!is_fen(".../.../.../....../.../.../... w -9 9 0 1"));
        assert_eq!(normalise_fen("  a  b\tc "), "a b c");
    }
}
