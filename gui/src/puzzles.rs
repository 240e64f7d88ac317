//! The puzzle file of `mill-tb puzzles`: read and checked once at start, so that a bad file is
//! a clear error then and never a surprise in a tab. Its shape is checked here (notation,
//! position strings, values); whether each move is legal is the engine's business when a
//! puzzle is shown.

use crate::validate::{is_fen, is_move_token};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A failing move and its refutation.
#[derive(Debug, Clone, Deserialize)]
pub struct Refutation {
    #[serde(rename = "move")]
    pub mv: String,
    pub reply: Option<String>,
}

/// One puzzle, as far as the page needs it.
#[derive(Debug, Clone, Deserialize)]
pub struct Puzzle {
    pub id: usize,
    pub variant: String,
    pub flying: bool,
    pub fen: String,
    pub side: String,
    /// `win` or `draw`.
    pub value: String,
    #[serde(rename = "move")]
    pub solution: String,
    pub plies: Option<u64>,
    pub line: Vec<String>,
    pub legal: usize,
    pub fails: usize,
    pub grade: String,
    pub refutations: Vec<Refutation>,
}

impl Puzzle {
    /// The engine's reply to a failing move, from the file.
    pub fn refutation(&self, mv: &str) -> Option<&str> {
        self.refutations
            .iter()
            .find(|r| r.mv == mv)
            .and_then(|r| r.reply.as_deref())
    }

    /// What is wrong with the puzzle's shape, if anything.
    fn check(&self) -> Result<(), String> {
        if self.variant != "nine" && self.variant != "twelve" {
            return Err(format!("unknown variant '{}'", self.variant));
        }
        if !is_fen(&self.fen) {
            return Err(format!("'{}' is not a position string", self.fen));
        }
        if self.side != "white" && self.side != "black" {
            return Err(format!("side '{}' is neither white nor black", self.side));
        }
        if self.value != "win" && self.value != "draw" {
            return Err(format!("value '{}' is neither win nor draw", self.value));
        }
        if !matches!(self.grade.as_str(), "easy" | "medium" | "hard") {
            return Err(format!(
                "grade '{}' is not easy, medium or hard",
                self.grade
            ));
        }
        let tokens = std::iter::once(&self.solution)
            .chain(&self.line)
            .chain(self.refutations.iter().map(|r| &r.mv))
            .chain(self.refutations.iter().filter_map(|r| r.reply.as_ref()));
        for t in tokens {
            if !is_move_token(t) {
                return Err(format!("'{t}' is not a move"));
            }
        }
        if self.line.first() != Some(&self.solution) || self.line.len() > 64 {
            return Err("the line must start with the move and have at most 64 plies".into());
        }
        if self.refutations.iter().any(|r| r.mv == self.solution) {
            return Err("the move is also listed as failing".into());
        }
        Ok(())
    }
}

/// Reads and checks a puzzle file: one JSON object a line, blank lines skipped.
pub fn load(path: &Path) -> Result<Vec<Puzzle>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |e: String| format!("{}:{}: {e}", path.display(), n + 1);
        let p: Puzzle = serde_json::from_str(line).map_err(|e| at(format!("not a puzzle: {e}")))?;
        p.check().map_err(at)?;
        out.push(p);
    }
    if out.is_empty() {
        return Err(format!("{}: no puzzles in the file", path.display()));
    }
    Ok(out)
}

/// Where `mill-tb puzzles` writes by default: `puzzles-nine-fly.jsonl` in the tables given,
/// else in the data directory's tables (`$MILLSTONE_DATA`, else `$XDG_DATA_HOME/millstone`,
/// else `~/.local/share/millstone`).
pub fn default_file(tables: Option<&str>) -> Option<PathBuf> {
    let dir = match tables {
        Some(t) => PathBuf::from(t),
        None => {
            let env = |k: &str| {
                std::env::var_os(k)
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            };
            let root = env("MILLSTONE_DATA")
                .or_else(|| env("XDG_DATA_HOME").map(|d| d.join("millstone")))
                .or_else(|| env("HOME").map(|h| h.join(".local/share/millstone")))?;
            root.join("tables")
        }
    };
    let f = dir.join("puzzles-nine-fly.jsonl");
    f.is_file().then_some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"id":1,"variant":"nine","flying":true,"fen":"W../.../.../B....B/.../W../... w 2 2 0 8","side":"white","value":"win","move":"d6","plies":null,"line":["d6","d7"],"legal":3,"fails":2,"grade":"easy","refutations":[{"move":"d7","value":"loss","reply":"d6"},{"move":"d5","value":"draw","reply":null}],"source":"x"}"#;

    fn write(name: &str, text: &str) -> PathBuf {
        let p =
            std::env::temp_dir().join(format!("mill-gui-puzzles-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_good_file_loads() {
        let p = write("good", &format!("{GOOD}\n\n"));
        let v = load(&p).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].refutation("d7"), Some("d6"));
        assert_eq!(v[0].refutation("d5"), None);
    }

    #[test]
    fn bad_files_say_where() {
        let e = load(&write("junk", "hello\n")).unwrap_err();
        assert!(e.contains(":1: not a puzzle"), "{e}");
        let e = load(&write("empty", "\n")).unwrap_err();
        assert!(e.contains("no puzzles"), "{e}");
        let bad = GOOD.replace(r#""move":"d6","plies""#, r#""move":"d6\nquit","plies""#);
        let e = load(&write("inject", &bad)).unwrap_err();
        assert!(e.contains("not a move"), "{e}");
        let bad = GOOD.replace(r#""value":"win""#, r#""value":"loss""#);
        assert!(load(&write("loss", &bad)).is_err());
    }
}
