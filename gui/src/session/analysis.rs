//! Analysis: the infinite search's lines, the lines shown on the board, MultiPV.

use super::{strip_error, Res, Search, Session};
use crate::engine::Info;
use crate::records::mills_from_fen;
use crate::validate::is_move_token;
use serde_json::json;

impl Session {
    pub(super) async fn analyse(&mut self, on: bool, multipv: u64) -> Res<()> {
        self.multipv = multipv.clamp(1, 5);
        if on && self.review.is_some() {
            return bad!("e_review_running", "a review is running");
        }
        self.analysis_on = on;
        if self.search == Search::Analysis {
            self.stop_all().await?;
        }
        self.after_change().await;
        Ok(())
    }

    pub(super) async fn set_multipv(&mut self, k: u64) -> Res<()> {
        if self.engine_multipv == k {
            return Ok(());
        }
        let e = self.eng()?;
        if let Some(o) = e.option("MultiPV") {
            let cmd = format!("setoption name {} value {k}", o.name);
            e.sync(&[cmd]).await?;
        }
        self.engine_multipv = k;
        Ok(())
    }

    pub(super) async fn preview(&mut self, moves: Vec<String>) -> Res<()> {
        if moves.is_empty() || moves.len() > 64 || !moves.iter().all(|m| is_move_token(m)) {
            return bad!("e_line_length", "a line to show must be 1 to 64 moves");
        }
        if matches!(self.search, Search::Play { .. }) || self.review.is_some() {
            return bad!(
                "e_line_busy",
                "the engine is busy; lines can be shown while it is not playing"
            );
        }
        self.stop_all().await?;
        let mut all = self.moves[..self.cursor].to_vec();
        all.extend(moves.iter().cloned());
        let cmd = self.position_cmd(&all);
        let answers = self.eng()?.sync(&[cmd, "query fen".into()]).await?;
        if answers.len() != 1 {
            self.preview = false;
            self.after_change().await;
            return bad!(
                "e_line_refused",
                "the line does not play: {why}",
                why = answers.first().map(|a| strip_error(a)).unwrap_or_default()
            );
        }
        let fen = answers[0]
            .strip_prefix("response")
            .unwrap_or("")
            .trim()
            .to_string();
        self.preview = true;
        let mills = mills_from_fen(&fen, self.variant == "twelve");
        self.send_state();
        self.push(json!({"type": "preview", "fen": fen, "moves": moves, "mills": mills}));
        Ok(())
    }

    pub(super) fn on_info(&mut self, info: Info) {
        if info.multipv.unwrap_or(1) == 1 && info.score.is_some() {
            self.last_info = Some(info.clone());
        }
        let source = match self.search {
            Search::Analysis => "analysis",
            Search::Play { .. } => "play",
            Search::Review { .. } => return,
            Search::Idle => return,
        };
        if source == "analysis" && info.multipv.unwrap_or(1) == 1 {
            if let Some(s) = info.score {
                let white = self.pos.white_to_move;
                if let Some(e) = self.evals.get_mut(self.cursor) {
                    *e = Some(if white { s } else { s.neg() });
                }
            }
        }
        self.push(json!({"type": "info", "source": source, "info": info, "white_to_move": self.pos.white_to_move}));
    }
}
