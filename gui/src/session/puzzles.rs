//! The Puzzles tab: a position of `mill-tb puzzles` where one move alone keeps the win or the
//! draw. The player's move is judged against the file; a wrong one is answered on the board
//! by the tables' best reply (the file's refutation). Solved puzzles make a streak.

use super::{Player, Res, Session};
use crate::puzzles::Puzzle;
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Solving,
    Solved,
    Failed,
}

/// The puzzle on the board.
#[derive(Debug, Clone)]
pub(super) struct Current {
    /// Index into the file's puzzles.
    index: usize,
    status: Status,
    hint: bool,
    /// The move tried, and the reply that refuted it.
    tried: Option<String>,
    reply: Option<String>,
}

/// The tab's state across puzzles.
#[derive(Debug, Clone, Default)]
pub(super) struct Puzzles {
    pub(super) current: Option<Current>,
    streak: u32,
    best: u32,
    solved: u32,
    tried: u32,
    /// The puzzle `next` starts.
    next: usize,
    /// Who played before the first puzzle, given back when the puzzles are left.
    saved_players: Option<[Player; 2]>,
}

/// The point a hint shows: the piece to move, or the point to place on.
fn hint_point(mv: &str) -> &str {
    mv.split(['-', 'x']).next().unwrap_or(mv)
}

impl Session {
    fn puzzle_file(&self) -> &[Puzzle] {
        match &self.cfg.puzzles {
            Some(v) => v.as_slice(),
            None => &[],
        }
    }

    fn puzzle(&self) -> Option<&Puzzle> {
        let c = self.puzzles.current.as_ref()?;
        self.puzzle_file().get(c.index)
    }

    /// Whether a puzzle waits for the player's move.
    pub(super) fn puzzle_solving(&self) -> bool {
        matches!(&self.puzzles.current, Some(c) if c.status == Status::Solving)
    }

    /// Whether the board takes a move: always outside a puzzle, in one only its first move.
    pub(super) fn puzzle_allows_move(&self) -> bool {
        self.puzzles.current.is_none() || (self.puzzle_solving() && self.cursor == 0)
    }

    /// Leaves the puzzle on the board (a new game or position replaces it).
    pub(super) fn leave_puzzle(&mut self) {
        if self.puzzles.current.take().is_some() {
            if let Some(p) = self.puzzles.saved_players.take() {
                self.players = p;
            }
        }
    }

    /// Shows puzzle `id` (1-based, as in the file), or the next one.
    pub(super) async fn puzzle_start(&mut self, id: Option<usize>) -> Res<()> {
        let n = self.puzzle_file().len();
        if n == 0 {
            return bad!(
                "e_no_puzzles",
                "no puzzles: start mill-gui with --puzzles FILE (made by mill-tb puzzles)"
            );
        }
        let index = match id {
            Some(id) => match self.puzzle_file().iter().position(|p| p.id == id) {
                Some(i) => i,
                None => return bad!("e_no_puzzle_id", "there is no puzzle {id}", id = id),
            },
            None => self.puzzles.next % n,
        };
        let p = self.puzzle_file()[index].clone();
        self.stop_all().await?;
        self.reset_game(&p.variant, p.flying, Some(p.fen.clone()))
            .await?;
        self.puzzles.saved_players = Some(self.players);
        self.players = [Player::Human, Player::Human];
        self.hints_on = false;
        self.analysis_on = false;
        self.puzzles.next = (index + 1) % n;
        self.puzzles.current = Some(Current {
            index,
            status: Status::Solving,
            hint: false,
            tried: None,
            reply: None,
        });
        self.after_change().await;
        if !self.pos.legal.contains(&p.solution) {
            self.puzzles.current = None;
            self.send_state();
            return bad!(
                "e_puzzle_illegal",
                "puzzle {id}: its move {token} is not legal for the engine",
                id = p.id,
                token = &p.solution
            );
        }
        Ok(())
    }

    /// The player's move in a puzzle: right, or wrong and answered by the refutation.
    pub(super) async fn puzzle_move(&mut self, token: String) -> Res<()> {
        let Some(p) = self.puzzle().cloned() else {
            return bad!("e_no_puzzle", "no puzzle is on the board");
        };
        let right = token == p.solution;
        let st = &mut self.puzzles;
        st.tried += 1;
        if right {
            st.streak += 1;
            st.solved += 1;
            st.best = st.best.max(st.streak);
        } else {
            st.streak = 0;
        }
        if let Some(c) = st.current.as_mut() {
            c.status = if right {
                Status::Solved
            } else {
                Status::Failed
            };
            c.tried = Some(token.clone());
        }
        self.apply_move(token.clone());
        self.after_change().await;
        if right {
            return Ok(());
        }
        // The refutation, if the engine agrees that it is legal here.
        if let Some(reply) = p.refutation(&token) {
            if self.pos.legal.iter().any(|m| m == reply) {
                let reply = reply.to_string();
                if let Some(c) = self.puzzles.current.as_mut() {
                    c.reply = Some(reply.clone());
                }
                self.apply_move(reply);
                self.after_change().await;
            }
        }
        Ok(())
    }

    /// Shows the point to use.
    pub(super) fn puzzle_hint(&mut self) -> Res<()> {
        match self.puzzles.current.as_mut() {
            Some(c) => c.hint = true,
            None => return bad!("e_no_puzzle", "no puzzle is on the board"),
        }
        self.send_state();
        Ok(())
    }

    /// Plays the forced line out on the board from the puzzle's position (as a shown line).
    pub(super) async fn puzzle_line(&mut self) -> Res<()> {
        let Some(p) = self.puzzle().cloned() else {
            return bad!("e_no_puzzle", "no puzzle is on the board");
        };
        if self.puzzle_solving() {
            return bad!(
                "e_puzzle_first",
                "solve the puzzle first, or give up with a move"
            );
        }
        self.stop_all().await?;
        self.cursor = 0;
        self.refresh().await?;
        self.preview(p.line.clone()).await
    }

    /// The tab's part of the state.
    pub(super) fn puzzle_json(&self) -> Value {
        let st = &self.puzzles;
        let current = self.puzzle().zip(st.current.as_ref()).map(|(p, c)| {
            let done = c.status != Status::Solving;
            json!({
                "id": p.id,
                "side": p.side,
                "value": p.value,
                "grade": p.grade,
                "fails": p.fails,
                "legal": p.legal,
                "plies": p.plies,
                "status": match c.status {
                    Status::Solving => "solving",
                    Status::Solved => "solved",
                    Status::Failed => "failed",
                },
                "hint": (c.hint || done).then(|| hint_point(&p.solution)),
                "solution": done.then_some(&p.solution),
                "line": if done { p.line.clone() } else { Vec::new() },
                "tried": c.tried,
                "reply": c.reply,
            })
        });
        json!({
            "total": self.puzzle_file().len(),
            "streak": st.streak,
            "best": st.best,
            "solved": st.solved,
            "tried": st.tried,
            "current": current,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hints_name_the_first_point() {
        assert_eq!(super::hint_point("d6"), "d6");
        assert_eq!(super::hint_point("d6-d5xa1"), "d6");
        assert_eq!(super::hint_point("d6xa1"), "d6");
    }
}
