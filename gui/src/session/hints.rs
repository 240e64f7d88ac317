//! Hints: the value of every legal move of the position on the board, for the page to draw.
//!
//! Exact values come from the engine's `values` (protocol.md): the endgame tables, in the
//! moving phase and, where they exist, the placing phase; or, with `--tables-url`, from a
//! table server (`crate::remote`). Where no table values the position,
//! the hints are the search's scores of every move (MultiPV over all legal moves), which the
//! page labels as estimates.

use super::{Res, Session};
use crate::validate::is_move_token;
use serde::Serialize;
use serde_json::{json, Value};

/// One move's exact value.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MoveValue {
    #[serde(rename = "move")]
    pub mv: String,
    /// `win`, `draw` or `loss`, for the side making the move.
    pub result: String,
    /// Plies to the next mill under best play (a moving-phase win or loss).
    pub plies: Option<u64>,
}

/// What the engine said to `values`.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Every legal move valued by the tables.
    Exact(Vec<MoveValue>),
    /// No table values the position: `notables`, `loading`, `uncovered`, `gameover`, or
    /// `unsupported` (an engine without `values`).
    None(String),
}

/// Reads the answer lines of `values` (as [`crate::engine::Engine::sync`] gathers them).
pub fn parse_values(lines: &[String]) -> Values {
    let mut moves = Vec::new();
    for l in lines {
        let t: Vec<&str> = l.split_whitespace().collect();
        match t.as_slice() {
            ["values", "none", why, ..] => {
                let why = match *why {
                    "notables" | "loading" | "uncovered" | "gameover" => *why,
                    _ => "uncovered",
                };
                return Values::None(why.into());
            }
            ["values", n, "moves"] => {
                if n.parse::<usize>().ok() == Some(moves.len()) {
                    return Values::Exact(moves);
                }
                return Values::None("uncovered".into());
            }
            ["value", mv, result, rest @ ..]
                if is_move_token(mv) && matches!(*result, "win" | "draw" | "loss") =>
            {
                let plies = match rest {
                    ["plies", n] => n.parse().ok(),
                    _ => None,
                };
                moves.push(MoveValue {
                    mv: mv.to_string(),
                    result: result.to_string(),
                    plies,
                });
            }
            _ if l.starts_with("info string error") => return Values::None("unsupported".into()),
            _ => {}
        }
    }
    Values::None("unsupported".into())
}

impl Session {
    /// Asks the engine for the values of the position it is set to (the one at the cursor).
    pub(super) async fn fetch_hints(&mut self) -> Res<()> {
        self.hints = None;
        if !self.hints_on || self.pos.gameover || self.pos.legal.is_empty() {
            return Ok(());
        }
        let fen = self.pos.fen.clone();
        let v = self.exact_values(&fen).await?;
        if let Values::Exact(m) = &v {
            // The list must be the legal moves, or the values are not of this position.
            let mut a: Vec<&str> = m.iter().map(|x| x.mv.as_str()).collect();
            let mut b: Vec<&str> = self.pos.legal.iter().map(|x| x.as_str()).collect();
            a.sort_unstable();
            b.sort_unstable();
            if a != b {
                log::warn!("values: the moves valued are not the legal moves; ignored");
                self.hints = Some(Values::None("uncovered".into()));
                return Ok(());
            }
        }
        self.hints = Some(v);
        Ok(())
    }

    /// Every legal move's exact value in the position the engine is set to (whose string is
    /// `fen`), from where `--tables-url` says: the table server, else the engine's `values`
    /// (its own tables). The one place that asks for exact values: hints and review go
    /// through it, so both sources give the page the same thing.
    pub(super) async fn exact_values(&mut self, fen: &str) -> Res<Values> {
        if let Some(remote) = self.cfg.tables_url.clone() {
            return Ok(remote.values(fen, &self.variant, self.flying).await);
        }
        if self.values_unsupported {
            return Ok(Values::None("unsupported".into()));
        }
        let answers = self.eng()?.sync(&["values".to_string()]).await?;
        let v = parse_values(&answers);
        if v == Values::None("unsupported".into()) {
            log::info!("the engine has no `values`: hints are the search's estimates");
            self.values_unsupported = true;
        }
        Ok(v)
    }

    /// Whether the hints need the search's scores of every move (no table values them).
    pub(super) fn hints_need_search(&self) -> bool {
        self.hints_on
            && matches!(&self.hints, Some(Values::None(why)) if why != "gameover")
            && !self.pos.legal.is_empty()
    }

    /// The lines the search reports for estimate hints: every legal move, as far as the
    /// engine's MultiPV goes.
    pub(super) fn hint_lines(&self) -> u64 {
        let max = self
            .engine
            .as_ref()
            .and_then(|e| e.option("MultiPV"))
            .and_then(|o| o.max)
            .unwrap_or(1);
        (self.pos.legal.len() as u64).clamp(1, max.max(1))
    }

    /// The hints as the page gets them in its state.
    pub(super) fn hints_json(&self) -> Value {
        if !self.hints_on {
            return Value::Null;
        }
        match &self.hints {
            None => json!({"source": "none", "why": "gameover"}),
            Some(Values::Exact(m)) => json!({"source": "tables", "moves": m}),
            Some(Values::None(why)) => json!({"source": "search", "why": why}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn values_are_read() {
        let v = parse_values(&lines(&[
            "value b2-d7xg1 win plies 1",
            "value d6 draw",
            "value a1-a4 loss plies 12",
            "values 3 moves",
        ]));
        let Values::Exact(m) = v else { panic!("{v:?}") };
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].plies, Some(1));
        assert_eq!(m[1].result, "draw");
        assert_eq!(m[1].plies, None);
        assert_eq!(m[2].result, "loss");
    }

    #[test]
    fn no_values_say_why() {
        assert_eq!(
            parse_values(&lines(&["values none loading"])),
            Values::None("loading".into())
        );
        assert_eq!(
            parse_values(&lines(&["info string error: unknown command 'values'"])),
            Values::None("unsupported".into())
        );
        // A count that does not match the lines is not trusted.
        assert_eq!(
            parse_values(&lines(&["value d6 win", "values 2 moves"])),
            Values::None("uncovered".into())
        );
        // Odd tokens are dropped, never passed on.
        assert_eq!(
            parse_values(&lines(&["value <b> win", "values 0 moves"])),
            Values::Exact(vec![])
        );
    }
}
