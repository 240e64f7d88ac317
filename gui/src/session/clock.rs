//! The clock: whose time runs, how much is used, and the deadlines the tab's loop waits for
//! (a flag falling, an engine that does not answer in time).

use super::*;

impl Session {
    pub(super) fn deadline(&self) -> Option<Instant> {
        let mut d: Option<Instant> = None;
        let mut take = |t: Instant| d = Some(d.map_or(t, |x: Instant| x.min(t)));
        if let Some(side) = self.clock_side() {
            take(self.turn_start + Duration::from_millis(self.clocks[side].max(0) as u64));
        }
        match &self.search {
            Search::Play { started, limit_ms } => {
                take(*started + Duration::from_millis(*limit_ms) + Duration::from_secs(10))
            }
            Search::Review { started, .. } => {
                let mt = self.review.as_ref().map_or(1000, |r| r.movetime);
                take(*started + Duration::from_millis(mt) + Duration::from_secs(10))
            }
            // An infinite search is asked `isready` now and then: a hung engine shows.
            Search::Analysis => take(self.ping_at + PING_EVERY),
            Search::Idle => {}
        }
        d
    }

    /// The side whose clock runs (0 White, 1 Black).
    pub(super) fn clock_side(&self) -> Option<usize> {
        if !matches!(self.limit, Limit::Clock { .. }) || self.game_over_at_end() {
            return None;
        }
        if self.cursor == self.moves.len() {
            Some(if self.pos.white_to_move { 0 } else { 1 })
        } else {
            self.side_at(self.moves.len())
        }
    }

    pub(super) fn side_at(&self, ply: usize) -> Option<usize> {
        let start_white = self.start_fen.split(' ').nth(1) != Some("b");
        let white = start_white ^ (ply % 2 == 1);
        Some(if white { 0 } else { 1 })
    }

    pub(super) fn game_over_at_end(&self) -> bool {
        self.end_forced.is_some() || self.end_rules.is_some()
    }

    pub(super) fn clock_elapsed(&self) -> i64 {
        self.turn_start.elapsed().as_millis() as i64
    }

    pub(super) async fn on_deadline(&mut self) {
        let now = Instant::now();
        if let Some(side) = self.clock_side() {
            if self.turn_start + Duration::from_millis(self.clocks[side].max(0) as u64) <= now {
                self.clocks[side] = 0;
                let result = if side == 0 { "0-1" } else { "1-0" };
                self.end_forced = Some((result.into(), "timeout".into()));
                if let Some(e) = self.engine.as_mut() {
                    if let Err(err) = e.stop().await {
                        return self.fail(err.into()).await;
                    }
                }
                self.search = Search::Idle;
                return self.after_change().await;
            }
        }
        if self.search == Search::Analysis && self.ping_at + PING_EVERY <= now {
            self.ping_at = now;
            if let Some(e) = self.engine.as_mut() {
                if let Err(err) = e.sync(&[]).await {
                    self.fail(err.into()).await;
                }
            }
            return;
        }
        if matches!(self.search, Search::Play { .. } | Search::Review { .. }) {
            let err = EngineError::Hung("no bestmove long after the time for the move".into());
            self.fail(err.into()).await;
        }
    }
}
