//! Hints: the value of every legal move of the position on the board, for the page to draw.
//!
//! Exact values come from the engine's `values expected` (protocol.md): the endgame tables, in
//! the moving phase and, where they exist, the placing phase, each move with its expected score
//! against a fallible opponent (a draw well above ½ sets a trap); or, with `--tables-url`, from
//! a table server (`crate::remote`), which knows no expected scores. Where no table values the position,
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
    /// The mover's expected score (0 to 1) against the engine's model of a fallible opponent;
    /// none from an engine without `values expected` or a table server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<f64>,
    /// A draw that sets a trap: its expected score is at least [`TRAP_EXPECTED`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub trap: bool,
}

/// The expected score from which a drawing move counts as a trap: ½ plus 0.05, i.e. the
/// model's opponent goes wrong in at least one game of ten. Below that the edge is within the
/// model's own uncertainty (its temperature and depth are guesses at a human), and marking
/// every draw with a faint chance would drown the few that matter.
pub const TRAP_EXPECTED: f64 = 0.55;

/// How long `values expected` may take: the model searches every reply of every move, half a
/// second for 3 against 3 flying (56 moves of 56 replies each) on a quiet machine, so a busy
/// one may pass the plain answer's limit without being hung.
const EXPECTED_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

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
                let (mut plies, mut expected) = (None, None);
                for kv in rest.chunks(2) {
                    match kv {
                        ["plies", n] => plies = n.parse().ok(),
                        // An odd score is dropped: the move keeps its value, without a trap.
                        ["expected", e] => {
                            expected = e.parse::<f64>().ok().filter(|e| (0.0..=1.0).contains(e))
                        }
                        _ => {}
                    }
                }
                let trap = *result == "draw" && expected.is_some_and(|e| e >= TRAP_EXPECTED);
                moves.push(MoveValue {
                    mv: mv.to_string(),
                    result: result.to_string(),
                    plies,
                    expected,
                    trap,
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
        let v = self.exact_values(&fen, true).await?;
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
    /// through it, so both sources give the page the same thing. `expected` asks the engine
    /// for the moves' expected scores too (the hints' traps; a review has no use for them and
    /// would pay the model's searches at every ply).
    pub(super) async fn exact_values(&mut self, fen: &str, expected: bool) -> Res<Values> {
        if let Some(remote) = self.cfg.tables_url.clone() {
            return Ok(remote.values(fen, &self.variant, self.flying).await);
        }
        if self.values_unsupported {
            return Ok(Values::None("unsupported".into()));
        }
        let mut v = Values::None("unsupported".into());
        if expected && !self.expected_unsupported {
            let answers = self
                .eng()?
                .sync_within(&["values expected".to_string()], EXPECTED_TIMEOUT)
                .await?;
            v = parse_values(&answers);
            if v == Values::None("unsupported".into()) {
                // An engine older than `values expected` refuses the argument (`values:
                // unexpected 'expected'`): its plain `values` still holds the hints, without
                // traps, and it is not asked the new way again.
                log::info!("the engine has no `values expected`: hints show no traps");
                self.expected_unsupported = true;
            }
        }
        if v == Values::None("unsupported".into()) {
            let answers = self.eng()?.sync(&["values".to_string()]).await?;
            v = parse_values(&answers);
        }
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
    fn expected_scores_mark_traps() {
        let v = parse_values(&lines(&[
            "value b2-d7xg1 win plies 1 expected 1.000",
            "value d6 draw expected 0.732",
            "value a1 draw expected 0.550",
            "value a4 draw expected 0.549",
            "value g7 draw",
            "value a1-a4 loss plies 12 expected 0.061",
            "values 6 moves",
        ]));
        let Values::Exact(m) = v else { panic!("{v:?}") };
        let traps: Vec<&str> = m.iter().filter(|x| x.trap).map(|x| x.mv.as_str()).collect();
        // A win's or a loss's score is no trap, however high: only draws set them.
        assert_eq!(traps, ["d6", "a1"]);
        assert_eq!(m[0].expected, Some(1.0));
        assert_eq!(m[0].plies, Some(1));
        assert_eq!(m[4].expected, None);
        assert_eq!(m[5].plies, Some(12));
        assert_eq!(m[5].expected, Some(0.061));
        // The page gets the score and the mark only where there is one.
        let j = serde_json::to_value(&m[1]).unwrap();
        assert_eq!(
            j,
            json!({"move": "d6", "result": "draw", "plies": null, "expected": 0.732, "trap": true})
        );
        let j = serde_json::to_value(&m[4]).unwrap();
        assert_eq!(j, json!({"move": "g7", "result": "draw", "plies": null}));
    }

    #[test]
    fn odd_expected_scores_leave_the_values() {
        let v = parse_values(&lines(&[
            "value d6 draw expected 1.7",
            "value a1 draw expected NaN",
            "value a4 draw expected",
            "value g7 draw expected 0.9x",
            "value d7 draw expected -0.2 plies 3",
            "value b6 draw plies 4 expected 0.8 junk",
            "values 6 moves",
        ]));
        let Values::Exact(m) = v else { panic!("{v:?}") };
        assert_eq!(m.len(), 6);
        let with: Vec<(&str, Option<f64>, bool)> = m
            .iter()
            .map(|x| (x.mv.as_str(), x.expected, x.trap))
            .collect();
        assert_eq!(
            with,
            [
                ("d6", None, false),
                ("a1", None, false),
                ("a4", None, false),
                ("g7", None, false),
                ("d7", None, false),
                ("b6", Some(0.8), true),
            ]
        );
        assert_eq!(m[4].plies, Some(3));
    }

    #[test]
    fn an_engine_without_values_expected_is_unsupported_there() {
        // What an engine from before `values expected` answers it: the session then asks plain
        // `values`, whose answer holds the hints as before.
        assert_eq!(
            parse_values(&lines(&[
                "info string error: values: unexpected 'expected'"
            ])),
            Values::None("unsupported".into())
        );
        let v = parse_values(&lines(&["value d6 draw", "values 1 moves"]));
        let Values::Exact(m) = v else { panic!("{v:?}") };
        assert!(m[0].expected.is_none() && !m[0].trap);
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
