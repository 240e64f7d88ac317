//! Game records: a position string set up, a PGN or a JSONL line loaded, a PGN exported.

use super::{strip_error, Player, Res, Session};
use crate::engine::Engine;
use crate::records::{self, cut, Export, Loaded};
use crate::validate::{is_fen, normalise_fen};
use serde_json::json;

impl Session {
    pub(super) async fn set_fen(&mut self, fen: String) -> Res<()> {
        let fen = normalise_fen(&fen);
        if !is_fen(&fen) {
            return bad!(
                "e_not_fen",
                "'{fen}' is not a position string",
                fen = cut(&fen)
            );
        }
        self.stop_all().await?;
        let (v, f) = (self.variant.clone(), self.flying);
        self.reset_game(&v, f, Some(fen)).await?;
        self.after_change().await;
        Ok(())
    }

    pub(super) async fn load_pgn(&mut self, text: &str) -> Res<()> {
        match records::parse_pgn(text) {
            Ok(g) => self.load(g).await,
            Err(e) => bad!("e_pgn", "PGN: {why}", why = e),
        }
    }

    pub(super) async fn load_jsonl(&mut self, line: &str) -> Res<()> {
        match records::parse_jsonl(line) {
            Ok(g) => self.load(g).await,
            Err(e) => bad!("e_jsonl", "JSONL: {why}", why = e),
        }
    }

    pub(super) fn export_pgn(&mut self) -> Res<()> {
        let name = |p: Player, e: &Option<Engine>| match p {
            Player::Human => "Human".to_string(),
            Player::Engine => e.as_ref().map_or("engine".into(), |e| e.name.clone()),
        };
        let (result, reason) = self
            .end_forced
            .clone()
            .or(self.end_rules.clone())
            .unwrap_or(("*".into(), String::new()));
        let white = name(self.players[0], &self.engine);
        let black = name(self.players[1], &self.engine);
        let text = records::to_pgn(&Export {
            variant: &self.variant,
            flying: self.flying,
            start_fen: &self.start_fen,
            is_standard_start: self.start_fen == self.startpos_fen,
            moves: &self.moves,
            white: &white,
            black: &black,
            result: &result,
            reason: &reason,
            date: today(),
        });
        self.push(json!({"type": "pgn", "text": text}));
        Ok(())
    }

    pub(super) async fn load(&mut self, g: Loaded) -> Res<()> {
        self.stop_all().await?;
        // Check the whole record with the engine before the current game is given up.
        self.apply_rules(&g.variant, g.flying).await?;
        let mut cmd = match &g.fen {
            Some(f) => format!("position fen {f}"),
            None => "position startpos".to_string(),
        };
        if !g.moves.is_empty() {
            cmd.push_str(" moves ");
            cmd.push_str(&g.moves.join(" "));
        }
        let answers = self.eng()?.sync(&[cmd]).await?;
        if let Some(a) = answers.first() {
            let (v, fl) = (self.variant.clone(), self.flying);
            self.apply_rules(&v, fl).await?;
            self.after_change().await;
            return bad!(
                "e_no_replay",
                "the game does not replay: {why}",
                why = strip_error(a)
            );
        }
        self.reset_game(&g.variant, g.flying, g.fen.clone()).await?;
        self.moves = g.moves;
        self.cursor = self.moves.len();
        self.evals = vec![None; self.moves.len() + 1];
        self.players = [Player::Human, Player::Human];
        self.refresh().await?;
        if self.end_rules.is_none() {
            self.end_forced = g.result;
        }
        self.cursor = 0;
        self.after_change().await;
        Ok(())
    }
}

/// Today's date as `YYYY.MM.DD` (UTC), without a date crate.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn date_shape() {
        let d = super::today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
    }
}
