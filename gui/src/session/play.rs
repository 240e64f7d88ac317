//! Playing: a move entered on the page, the engine's move, taking back, resigning, who
//! plays which side and with what time.

use super::{Limit, Player, Res, Search, Session};
use crate::records::cut;
use crate::validate::is_move_token;
use std::time::Instant;

impl Session {
    /// Resigns for the human side (the side to move when both or neither are human).
    pub(super) async fn resign(&mut self) -> Res<()> {
        if self.game_over_at_end() || self.moves.len() != self.cursor {
            return bad!(
                "e_no_resign",
                "there is no game going on at this position to resign"
            );
        }
        let side = match self.players {
            [Player::Human, Player::Engine] => 0,
            [Player::Engine, Player::Human] => 1,
            _ => self.side_at(self.moves.len()).unwrap_or(0),
        };
        self.stop_all().await?;
        let result = if side == 0 { "0-1" } else { "1-0" };
        self.end_forced = Some((result.into(), "resign".into()));
        self.after_change().await;
        Ok(())
    }

    pub(super) async fn set_players(&mut self, white: Player, black: Player) -> Res<()> {
        if matches!(self.search, Search::Play { .. }) {
            self.stop_all().await?;
        }
        self.players = [white, black];
        self.paused = false;
        self.after_change().await;
        Ok(())
    }

    /// A new time limit (clamped to sane bounds); a clock starts again full.
    pub(super) async fn set_limit(&mut self, limit: Limit) -> Res<()> {
        let limit = match limit {
            Limit::Movetime { ms } => Limit::Movetime {
                ms: ms.clamp(10, 600_000),
            },
            Limit::Depth { depth } => Limit::Depth {
                depth: depth.clamp(1, 100),
            },
            Limit::Clock { base_ms, inc_ms } => Limit::Clock {
                base_ms: base_ms.clamp(1000, 36_000_000),
                inc_ms: inc_ms.min(600_000),
            },
        };
        if matches!(self.search, Search::Play { .. }) {
            self.stop_all().await?;
        }
        self.limit = limit;
        if let Limit::Clock { base_ms, .. } = limit {
            self.clocks = [base_ms as i64, base_ms as i64];
            self.turn_start = Instant::now();
        }
        self.after_change().await;
        Ok(())
    }

    /// The engine plays the side to move (the page's Engine move button).
    pub(super) async fn let_engine_move(&mut self) -> Res<()> {
        if self.puzzles.current.is_some() {
            return bad!("e_puzzle_no_engine", "the engine does not play in a puzzle");
        }
        if matches!(self.search, Search::Play { .. }) {
            return bad!("e_engine_already", "the engine is already thinking");
        }
        self.paused = false;
        // Let the engine play the side to move.
        if self.cursor == self.moves.len() && !self.game_over_at_end() {
            let side = if self.pos.white_to_move { 0 } else { 1 };
            self.players[side] = Player::Engine;
        }
        self.stop_all().await?;
        self.after_change().await;
        Ok(())
    }

    pub(super) fn human_may_move(&self) -> bool {
        let side = if self.pos.white_to_move { 0 } else { 1 };
        self.players[side] == Player::Human
            && !self.preview
            && self.review.is_none()
            && !(self.cursor == self.moves.len() && self.game_over_at_end())
            && self.puzzle_allows_move()
    }

    pub(super) fn engine_to_move(&self) -> bool {
        let side = if self.pos.white_to_move { 0 } else { 1 };
        self.players[side] == Player::Engine
            && self.cursor == self.moves.len()
            && !self.game_over_at_end()
            && !self.pos.gameover
            && !self.paused
            && !self.preview
            && self.review.is_none()
    }

    pub(super) async fn human_move(&mut self, token: String) -> Res<()> {
        let token = token.to_ascii_lowercase();
        if !is_move_token(&token) {
            return bad!("e_not_move", "'{token}' is not a move", token = cut(&token));
        }
        if !self.human_may_move() {
            return bad!("e_not_your_move", "it is not your move");
        }
        if !self.pos.legal.contains(&token) {
            return bad!(
                "e_illegal",
                "{token} is not a legal move here",
                token = &token
            );
        }
        self.stop_all().await?;
        if self.puzzle_solving() {
            return self.puzzle_move(token).await;
        }
        self.apply_move(token);
        self.after_change().await;
        Ok(())
    }

    /// Plays a move at the cursor (the tail after it goes), with the clock.
    pub(super) fn apply_move(&mut self, token: String) {
        let live = self.cursor == self.moves.len();
        self.moves.truncate(self.cursor);
        self.evals.truncate(self.cursor + 1);
        self.marks.retain(|m| m.ply < self.cursor);
        if let (Limit::Clock { inc_ms, .. }, true) = (self.limit, live) {
            let side = if self.pos.white_to_move { 0 } else { 1 };
            self.clocks[side] += inc_ms as i64 - self.clock_elapsed();
        }
        self.turn_start = Instant::now();
        self.end_forced = None;
        self.end_rules = None;
        self.moves.push(token);
        self.evals.push(None);
        self.cursor = self.moves.len();
    }

    pub(super) async fn takeback(&mut self) -> Res<()> {
        if self.review.is_some() {
            return bad!("e_review_running", "a review is running");
        }
        if self.moves.is_empty() {
            return bad!("e_no_takeback", "there is no move to take back");
        }
        self.stop_all().await?;
        self.preview = false;
        self.paused = false;
        let pop = |s: &mut Session| {
            s.moves.pop();
            s.evals.truncate(s.moves.len() + 1);
            s.marks.retain(|m| m.ply < s.moves.len());
            s.cursor = s.moves.len();
            s.end_forced = None;
        };
        pop(self);
        let side = self.side_at(self.moves.len()).unwrap_or(0);
        if self.players[side] == Player::Engine
            && self.players[1 - side] == Player::Human
            && !self.moves.is_empty()
        {
            pop(self);
        }
        self.turn_start = Instant::now();
        self.after_change().await;
        Ok(())
    }

    pub(super) async fn engine_move(&mut self, best: String, started: Instant) -> Res<()> {
        self.last_think_ms = Some(started.elapsed().as_millis() as u64);
        if !self.pos.legal.contains(&best) {
            self.paused = true;
            self.send_state();
            return bad!(
                "e_engine_illegal",
                "the engine played '{token}', which is not legal here; press Go to let it try again",
                token = cut(&best)
            );
        }
        if let Some(s) = self.last_info.as_ref().and_then(|i| i.score) {
            let white = self.pos.white_to_move;
            self.evals[self.cursor] = Some(if white { s } else { s.neg() });
        }
        self.apply_move(best);
        self.after_change().await;
        Ok(())
    }
}
