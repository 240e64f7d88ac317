//! Game records: reading and writing the PGN that `mill-match` writes (tags Variant, Flying,
//! FEN), reading its JSONL lines, and the points in closed mills derived from a position string
//! when the engine has no `query mills`.

use crate::validate::{is_fen, is_move_token, normalise_fen, MAX_MOVES};
use serde::Deserialize;
use std::fmt::Write;

/// A game as loaded from a record: rules, start, moves and, if the record says so, its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub variant: String,
    pub flying: bool,
    /// The start position string, if not the variant's start.
    pub fen: Option<String>,
    pub moves: Vec<String>,
    pub white: Option<String>,
    pub black: Option<String>,
    /// Result and reason as the record gives them.
    pub result: Option<(String, String)>,
}

fn check_variant(v: &str) -> Result<String, String> {
    let v = v.to_ascii_lowercase();
    if v == "nine" || v == "twelve" {
        Ok(v)
    } else {
        Err(format!("unknown variant '{}'", cut(&v)))
    }
}

/// Cuts user text for messages.
pub fn cut(s: &str) -> String {
    let c: String = s.chars().take(40).collect();
    c.escape_debug().to_string()
}

fn check_moves(moves: &[String]) -> Result<(), String> {
    if moves.len() > MAX_MOVES {
        return Err(format!("too many moves ({})", moves.len()));
    }
    for (i, m) in moves.iter().enumerate() {
        if !is_move_token(m) {
            return Err(format!("move {} '{}' is not a move", i + 1, cut(m)));
        }
    }
    Ok(())
}

fn check_result(r: &str) -> bool {
    matches!(r, "1-0" | "0-1" | "1/2-1/2")
}

fn check_reason(r: &str) -> String {
    r.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(20)
        .collect()
}

/// Reads a PGN (the first game in the text).
pub fn parse_pgn(text: &str) -> Result<Loaded, String> {
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut movetext = String::new();
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('[') && l.ends_with(']') && movetext.trim().is_empty() {
            let inner = &l[1..l.len() - 1];
            if let Some((k, v)) = inner.split_once(' ') {
                let v = v.trim();
                let v = v
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .unwrap_or(v);
                tags.push((k.to_string(), v.replace("\\\"", "\"").replace("\\\\", "\\")));
            }
        } else if l.starts_with('[') && !movetext.trim().is_empty() {
            break; // the next game
        } else {
            movetext.push_str(l);
            movetext.push(' ');
        }
    }
    let tag = |k: &str| {
        tags.iter()
            .find(|(t, _)| t.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.clone())
    };
    let variant = check_variant(&tag("Variant").unwrap_or_else(|| "nine".into()))?;
    let flying = match tag("Flying").map(|f| f.to_ascii_lowercase()).as_deref() {
        None | Some("true") => true,
        Some("false") => false,
        Some(f) => return Err(format!("Flying tag '{}' is not true or false", cut(f))),
    };
    let fen = match tag("FEN") {
        Some(f) => {
            let f = normalise_fen(&f);
            if !is_fen(&f) {
                return Err(format!("FEN tag '{}' is not a position string", cut(&f)));
            }
            Some(f)
        }
        None => None,
    };
    // Comments out, then move numbers and the result.
    let mut clean = String::new();
    let mut depth = 0;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            _ if depth == 0 => clean.push(c),
            _ => {}
        }
    }
    let mut moves = Vec::new();
    let mut result_in_text = None;
    for w in clean.split_whitespace() {
        if check_result(w) || w == "*" {
            result_in_text = Some(w.to_string());
            continue;
        }
        let w = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if w.is_empty() {
            continue;
        }
        let w = w.to_ascii_lowercase();
        // A removal written as its own token belongs to the move before it.
        if w.starts_with('x') && moves.last().is_some_and(|m: &String| !m.contains('x')) {
            let last = moves.pop().unwrap();
            moves.push(format!("{last}{w}"));
        } else {
            moves.push(w);
        }
    }
    check_moves(&moves)?;
    let result = tag("Result")
        .or(result_in_text)
        .filter(|r| check_result(r))
        .map(|r| (r, check_reason(&tag("Termination").unwrap_or_default())));
    Ok(Loaded {
        variant,
        flying,
        fen,
        moves,
        white: tag("White"),
        black: tag("Black"),
        result,
    })
}

/// The fields of a `mill-match` JSONL line that a game needs (the others are ignored).
#[derive(Deserialize)]
struct JsonRecord {
    variant: String,
    flying: bool,
    fen: String,
    moves: Vec<String>,
    #[serde(default)]
    result: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    white: Option<String>,
    #[serde(default)]
    black: Option<String>,
}

/// Reads one JSONL line of `mill-match` (or `mill-selfplay`'s game fields).
pub fn parse_jsonl(line: &str) -> Result<Loaded, String> {
    let r: JsonRecord =
        serde_json::from_str(line.trim()).map_err(|e| format!("not a game record: {e}"))?;
    let variant = check_variant(&r.variant)?;
    let fen = normalise_fen(&r.fen);
    if !is_fen(&fen) {
        return Err(format!("fen '{}' is not a position string", cut(&fen)));
    }
    let moves: Vec<String> = r.moves.iter().map(|m| m.to_ascii_lowercase()).collect();
    check_moves(&moves)?;
    let result = r
        .result
        .filter(|x| check_result(x))
        .map(|x| (x, check_reason(&r.reason.unwrap_or_default())));
    Ok(Loaded {
        variant,
        flying: r.flying,
        fen: Some(fen),
        moves,
        white: r.white,
        black: r.black,
        result,
    })
}

/// What a PGN export needs to know.
pub struct Export<'a> {
    pub variant: &'a str,
    pub flying: bool,
    pub start_fen: &'a str,
    pub is_standard_start: bool,
    pub moves: &'a [String],
    pub white: &'a str,
    pub black: &'a str,
    pub result: &'a str,
    pub reason: &'a str,
    pub date: String,
}

/// Writes the game as `mill-match` writes its PGN.
pub fn to_pgn(g: &Export) -> String {
    let mut s = String::new();
    let tag = |s: &mut String, k: &str, v: &str| {
        let v = v.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(s, "[{k} \"{v}\"]");
    };
    tag(&mut s, "Event", "mill-gui game");
    tag(&mut s, "Site", "millstone mill-gui");
    tag(&mut s, "Date", &g.date);
    tag(&mut s, "Round", "1");
    tag(&mut s, "White", g.white);
    tag(&mut s, "Black", g.black);
    tag(&mut s, "Result", g.result);
    tag(&mut s, "Variant", g.variant);
    tag(&mut s, "Flying", if g.flying { "true" } else { "false" });
    if !g.is_standard_start {
        tag(&mut s, "SetUp", "1");
        tag(&mut s, "FEN", g.start_fen);
    }
    if !g.reason.is_empty() && g.reason != "none" {
        tag(&mut s, "Termination", g.reason);
    }
    s.push('\n');
    let f: Vec<&str> = g.start_fen.split(' ').collect();
    let mut white = f.get(1) != Some(&"b");
    let mut number: u64 = f.get(5).and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut units = Vec::new();
    for (i, m) in g.moves.iter().enumerate() {
        units.push(if white {
            format!("{number}. {m}")
        } else if i == 0 {
            format!("{number}... {m}")
        } else {
            m.clone()
        });
        if !white {
            number += 1;
        }
        white = !white;
    }
    units.push(if g.result.is_empty() || g.result == "none" {
        "*".to_string()
    } else {
        g.result.to_string()
    });
    let mut col = 0;
    for unit in units {
        if col > 0 && col + 1 + unit.len() > 80 {
            s.push('\n');
            col = 0;
        } else if col > 0 {
            s.push(' ');
            col += 1;
        }
        col += unit.len();
        s.push_str(&unit);
    }
    s.push_str("\n\n");
    s
}

/// The points of the position string's board field in its order: ranks 7 down to 1, files a
/// to g within a rank, only the points that exist.
pub const POINTS: [&str; 24] = [
    "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3",
    "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1",
];

/// The drawn lines of three (RULES.md); `twelve` adds the four diagonals.
const LINES: [[&str; 3]; 16] = [
    ["a7", "d7", "g7"],
    ["b6", "d6", "f6"],
    ["c5", "d5", "e5"],
    ["a4", "b4", "c4"],
    ["e4", "f4", "g4"],
    ["c3", "d3", "e3"],
    ["b2", "d2", "f2"],
    ["a1", "d1", "g1"],
    ["a7", "a4", "a1"],
    ["b6", "b4", "b2"],
    ["c5", "c4", "c3"],
    ["d7", "d6", "d5"],
    ["d3", "d2", "d1"],
    ["e5", "e4", "e3"],
    ["f6", "f4", "f2"],
    ["g7", "g4", "g1"],
];
const DIAGONALS: [[&str; 3]; 4] = [
    ["a7", "b6", "c5"],
    ["g7", "f6", "e5"],
    ["a1", "b2", "c3"],
    ["g1", "f2", "e3"],
];

/// The points that stand in a closed mill on the board of a position string (the engine's
/// `query fen`): a stand-in for `query mills` where the engine lacks it.
pub fn mills_from_fen(fen: &str, twelve: bool) -> Vec<String> {
    let board: Vec<char> = fen
        .split(' ')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| *c != '/')
        .collect();
    if board.len() != 24 {
        return Vec::new();
    }
    let at = |p: &str| {
        POINTS
            .iter()
            .position(|q| *q == p)
            .map(|i| board[i])
            .unwrap_or('.')
    };
    let mut out: Vec<String> = Vec::new();
    let lines = LINES
        .iter()
        .chain(if twelve { DIAGONALS.iter() } else { [].iter() });
    for line in lines {
        let c = at(line[0]);
        if c != '.' && line.iter().all(|p| at(p) == c) {
            for p in line {
                if !out.iter().any(|q| q == p) {
                    out.push(p.to_string());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PGN: &str = "[Event \"m\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[Variant \"nine\"]\n[Flying \"true\"]\n[FEN \".../.../.../.B..../B../.W./..W w 7 7 0 3\"]\n[Termination \"material\"]\n\n3. d1 d3 4. a1xd3 d3 5. e3 e5 {search wins: material} 1-0\n";

    #[test]
    fn pgn() {
        let g = parse_pgn(PGN).unwrap();
        assert_eq!(g.moves, vec!["d1", "d3", "a1xd3", "d3", "e3", "e5"]);
        assert_eq!(
            g.fen.as_deref(),
            Some(".../.../.../.B..../B../.W./..W w 7 7 0 3")
        );
        assert_eq!(g.result, Some(("1-0".into(), "material".into())));
        let out = to_pgn(&Export {
            variant: "nine",
            flying: true,
            start_fen: g.fen.as_deref().unwrap(),
            is_standard_start: false,
            moves: &g.moves,
            white: "a",
            black: "b",
            result: "1-0",
            reason: "material",
            date: "2026.01.01".into(),
        });
        assert!(out.contains("3. d1 d3 4. a1xd3 d3 5. e3 e5 1-0"), "{out}");
        let again = parse_pgn(&out).unwrap();
        assert_eq!(again.moves, g.moves);
        assert_eq!(again.fen, g.fen);
    }

    #[test]
    fn pgn_refuses_injection() {
        assert!(parse_pgn("1. d6\nquit").is_err());
        assert!(parse_pgn("[FEN \"x\"]\n1. d6").is_err());
        assert!(parse_pgn("[Variant \"chess\"]\n1. d6").is_err());
    }

    #[test]
    fn jsonl() {
        let l = r#"{"game":1,"round":1,"variant":"twelve","flying":false,"white":"a","black":"b","fen":".../.../.../....../.../.../... w 12 12 0 1","moves":["d6","a1"],"result":"1/2-1/2","reason":"maxplies","detail":"","illegal_move":null,"seed":1,"opening_index":0,"times_ms":[1,2],"scores":[null,"cp 3"],"event":"e","date":"d"}"#;
        let g = parse_jsonl(l).unwrap();
        assert_eq!(g.variant, "twelve");
        assert!(!g.flying);
        assert_eq!(g.moves, vec!["d6", "a1"]);
        assert!(parse_jsonl("{}").is_err());
        assert!(parse_jsonl(r#"{"variant":"nine","flying":true,"fen":"x","moves":[]}"#).is_err());
    }

    #[test]
    fn mills() {
        let m = mills_from_fen("WWW/.../.../....../.../.../BBB w 6 6 0 4", false);
        assert_eq!(m, vec!["a7", "d7", "g7", "a1", "d1", "g1"]);
        let m = mills_from_fen("W../W../W../....../.../.../... b 9 10 0 3", true);
        assert_eq!(m, vec!["a7", "b6", "c5"]);
        assert!(mills_from_fen("W../W../W../....../.../.../... b 9 10 0 3", false).is_empty());
    }
}
