//! The link to the engine process: starting it (the `uci` handshake, the tables and options),
//! closing it, and recovering when it crashes or hangs.

use super::*;

impl Session {
    pub(super) async fn close(&mut self) {
        if let Some(e) = self.engine.take() {
            e.shutdown().await;
        }
    }

    pub(super) async fn start_engine(&mut self) -> Result<(), EngineError> {
        // Until the engine has answered (with big tables, seconds), the page says so and keeps
        // the player's first click for later instead of dropping it. (A restart has its own
        // messages.)
        let first = self.pos.fen.is_empty();
        if first {
            self.push(
                json!({"type": "engine_status", "status": "starting", "stage": "engine",
                "message": "Getting ready: starting the engine…"}),
            );
        }
        let mut e = Engine::start(&self.cfg.engine).await?;
        if first && self.cfg.tables.is_some() && e.option("TablePath").is_some() {
            self.push(
                json!({"type": "engine_status", "status": "starting", "stage": "tables",
                "message": "Getting ready: the engine is checking its table files…"}),
            );
        }
        let mut cmds = Vec::new();
        let mut timeout = crate::engine::ANSWER_TIMEOUT;
        if e.option("UCI_ShowWDL").is_some() {
            cmds.push("setoption name UCI_ShowWDL value true".to_string());
        }
        if let (Some(dir), Some(o)) = (&self.cfg.tables, e.option("TablePath")) {
            cmds.push(format!("setoption name {} value {}", o.name, dir));
            timeout = crate::engine::TABLES_TIMEOUT;
            if let (Some(book), Some(b)) = (&self.cfg.book, e.option("BookPath")) {
                cmds.push(format!("setoption name {} value {}", b.name, book));
            }
        }
        for (n, v) in &self.option_values {
            cmds.push(format!("setoption name {n} value {v}"));
        }
        for a in e.sync_within(&cmds, timeout).await? {
            log::warn!("engine refused a setting: {a}");
        }
        self.engine_multipv = 1;
        let options: Vec<_> = e
            .options
            .iter()
            .filter(|o| {
                !RESERVED_OPTIONS
                    .iter()
                    .any(|r| r.eq_ignore_ascii_case(&o.name))
                    && o.kind != "string"
            })
            .cloned()
            .collect();
        let variants = e
            .option("UCI_Variant")
            .map(|o| o.vars.clone())
            .unwrap_or_else(|| vec!["nine".into()]);
        self.push(json!({
            "type": "hello",
            "engine": {"name": e.name, "pid": e.pid},
            "options": options,
            "variants": variants,
            "flying_option": e.option("Flying").is_some(),
            "tables": self.cfg.tables.is_some() && e.option("TablePath").is_some(),
        }));
        self.has_mills_query = true;
        self.engine = Some(e);
        Ok(())
    }

    /// The engine crashed or hung: report it, start a new one, put it where the old one was.
    pub(super) async fn fail(&mut self, f: Failure) {
        let err = match f {
            Failure::Bad(m) => return self.error(m),
            Failure::Engine(e) => e,
        };
        log::warn!("{err}");
        if let Some(e) = self.engine.take() {
            e.shutdown().await;
        }
        // A search for the engine's move (or its `go`) failed: do not ask again on its own.
        let was_playing = matches!(self.search, Search::Play { .. }) || self.engine_to_move();
        self.search = Search::Idle;
        self.review = None;
        self.preview = false;
        let now = Instant::now();
        self.restarts
            .retain(|t| now.duration_since(*t) < Duration::from_secs(60));
        let kind = if matches!(err, EngineError::Hung(_)) {
            "hung"
        } else {
            "crashed"
        };
        if self.restarts.len() >= 5 {
            let cause = engine_failure(&err);
            let r = refusal!(
                "e_engine_given_up",
                "{cause}; it failed 5 times in a minute and is not restarted again (reload the page to try again)",
                cause = cause.text
            )
            .because(cause);
            self.push(r.message_of("engine_status", json!({"status": "dead"})));
            return;
        }
        self.restarts.push(now);
        let cause = engine_failure(&err);
        let r = refusal!(
            "e_engine_restarting",
            "{cause}; restarting it",
            cause = cause.text
        )
        .because(cause);
        self.push(r.message_of("engine_status", json!({"status": kind})));
        match self.start_engine().await {
            Ok(()) => {
                if was_playing {
                    self.paused = true;
                }
                let (v, fl) = (self.variant.clone(), self.flying);
                match self.apply_rules(&v, fl).await {
                    Ok(()) => {}
                    Err(Failure::Engine(e)) => {
                        self.push(
                            engine_failure(&e)
                                .message_of("engine_status", json!({"status": "dead"})),
                        );
                        self.engine = None;
                        return;
                    }
                    Err(Failure::Bad(m)) => self.error(m),
                }
                let r = if was_playing {
                    refusal!(
                        "e_engine_restarted_go",
                        "the engine was restarted; press Go to let it move"
                    )
                } else {
                    refusal!("e_engine_restarted", "the engine was restarted")
                };
                self.push(r.message_of("engine_status", json!({"status": "restarted"})));
                Box::pin(self.after_change()).await;
            }
            Err(e) => {
                self.push(
                    engine_failure(&e).message_of("engine_status", json!({"status": "dead"})),
                );
            }
        }
    }
}
