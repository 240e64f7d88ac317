//! The review of a game: every position searched for a fixed time, the moves marked. Where the
//! endgame tables value every move of a position, the mark is a proof: the move kept the
//! position's exact result or lost it ("kept" / "lost"); the search's inaccuracy, mistake and
//! blunder marks are given only where nothing is proven.

use super::hints::{MoveValue, Values};
use super::{strip_error, Mark, Res, Review, Search, Session};
use std::time::Instant;

/// The order of results: loss < draw < win.
fn class(result: &str) -> u8 {
    match result {
        "win" => 2,
        "draw" => 1,
        _ => 0,
    }
}

/// The proven mark of the move played at `ply`: `kept` when it keeps the best result of the
/// position, `lost` (naming a move that keeps it) when it changes it. `None` when the move is
/// not among the values.
pub fn proof_mark(ply: usize, played: &str, vals: &[MoveValue]) -> Option<Mark> {
    let mine = vals.iter().find(|v| v.mv == played)?;
    // The engine lists the moves best first: the first of the best results is its choice.
    let top = vals.iter().map(|v| class(&v.result)).max()?;
    let best = vals.iter().find(|v| class(&v.result) == top)?;
    let lost = class(&mine.result) < class(&best.result);
    Some(Mark {
        ply,
        kind: if lost { "lost" } else { "kept" },
        best: lost.then(|| best.mv.clone()),
        drop: 0,
    })
}

impl Session {
    pub(super) async fn start_review(&mut self, movetime: u64) -> Res<()> {
        if self.moves.is_empty() {
            return bad!("e_review_empty", "there are no moves to review");
        }
        if self.review.is_some() {
            return bad!("e_review_already", "a review is already running");
        }
        self.stop_all().await?;
        self.preview = false;
        self.marks.clear();
        self.review = Some(Review {
            movetime: movetime.clamp(10, 60_000),
            results: vec![None; self.moves.len() + 1],
            values: vec![None; self.moves.len() + 1],
        });
        self.next_review_position().await?;
        self.send_state();
        Ok(())
    }

    pub(super) async fn next_review_position(&mut self) -> Res<()> {
        let Some(r) = &self.review else { return Ok(()) };
        let Some(index) = r.results.iter().position(|x| x.is_none()) else {
            self.finish_review();
            self.after_change().await;
            return Ok(());
        };
        let mt = r.movetime;
        self.set_multipv(1).await?;
        let cmd = self.position_cmd(&self.moves[..index]);
        let answers = self.eng()?.sync(&[cmd]).await?;
        if let Some(a) = answers.first() {
            self.review = None;
            return bad!("e_review_refused", "review: {why}", why = strip_error(a));
        }
        // Where the tables value every move, the review proves instead of judging.
        if index < self.moves.len() {
            // A table server is asked by position string; the engine, set to it, knows it.
            let fen = match self.cfg.tables_url {
                Some(_) => self.eng()?.query("fen").await?.ok(),
                None => Some(String::new()),
            };
            if let Some(fen) = fen {
                if let Values::Exact(m) = self.exact_values(&fen, false).await? {
                    if let Some(r) = self.review.as_mut() {
                        r.values[index] = Some(m);
                    }
                }
            }
        }
        self.last_info = None;
        self.go(format!("movetime {mt}")).await?;
        self.search = Search::Review {
            index,
            started: Instant::now(),
        };
        Ok(())
    }

    pub(super) fn finish_review(&mut self) {
        let Some(r) = self.review.take() else { return };
        let mut marks = Vec::new();
        let mut proven = vec![false; self.moves.len()];
        for (i, vals) in r.values.iter().enumerate().take(self.moves.len()) {
            let Some(vals) = vals else { continue };
            let Some(mark) = proof_mark(i, &self.moves[i], vals) else {
                continue;
            };
            proven[i] = true;
            marks.push(mark);
        }
        for (i, res) in r.results.iter().enumerate() {
            if let Some((s, _)) = res {
                let white = self.side_at(i) == Some(0);
                self.evals[i] = Some(if white { *s } else { s.neg() });
            }
        }
        for (i, &is_proven) in proven.iter().enumerate() {
            let (Some((before, best)), Some((after, _))) = (&r.results[i], &r.results[i + 1])
            else {
                continue;
            };
            if best == &self.moves[i] || is_proven {
                continue;
            }
            let after = after.neg();
            let drop = before.scalar() - after.scalar();
            let kind = if before.verdict() > after.verdict() {
                Some("blunder")
            } else if before.verdict() != 0 && before.verdict() == after.verdict() {
                None
            } else if drop >= 250 {
                Some("blunder")
            } else if drop >= 100 {
                Some("mistake")
            } else if drop >= 50 {
                Some("inaccuracy")
            } else {
                None
            };
            if let Some(kind) = kind {
                marks.push(Mark {
                    ply: i,
                    kind,
                    best: Some(best.clone()),
                    drop: drop.min(100_000),
                });
            }
        }
        marks.sort_by_key(|m| m.ply);
        self.marks = marks;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(mv: &str, result: &str) -> MoveValue {
        MoveValue {
            mv: mv.into(),
            result: result.into(),
            plies: None,
            expected: None,
            trap: false,
        }
    }

    #[test]
    fn proofs_mark_exactly_the_moves_that_change_the_result() {
        let vals = [v("d6", "draw"), v("a1", "loss"), v("g7", "draw")];
        let m = proof_mark(4, "a1", &vals).unwrap();
        assert_eq!((m.kind, m.best.as_deref()), ("lost", Some("d6")));
        assert_eq!(proof_mark(4, "g7", &vals).unwrap().kind, "kept");
        // A win thrown into a draw is lost too; a move not listed is no proof.
        let vals = [v("d6", "win"), v("a1", "draw")];
        assert_eq!(proof_mark(0, "a1", &vals).unwrap().kind, "lost");
        assert!(proof_mark(0, "b2", &vals).is_none());
        // In a lost position every move keeps the value.
        let vals = [v("d6", "loss"), v("a1", "loss")];
        assert_eq!(proof_mark(0, "a1", &vals).unwrap().kind, "kept");
    }
}
