//! `--tables-url`: the exact values of hints and review from a table server (`mill-serve`,
//! docs/server.md) instead of the engine's own tables, for a player without the table files.
//!
//! The server's `/api/v1/position` answers with the same `probe_root` as the engine's `values`
//! (the same moves, in the same best-first order), so the page shows the same hints and the
//! review proves the same marks; only the words differ, and [`values_of_answer`] maps them.
//! A server that is down, slow or answers garbage costs at most [`TIMEOUT`] once: it is then
//! left alone for [`BACKOFF`] (every tab, every review step), and meanwhile the hints are the
//! search's estimates, as without tables.

use crate::session::hints::{MoveValue, Values};
use crate::validate::is_move_token;
use axum::body::Bytes;
use axum::http::Uri;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest wait for one answer, connection included: a cold page of the server's tables
/// answers within some 60 ms (docs/server.md), so three seconds is a server in trouble, and
/// a tab waits that long at most before it goes on without exact values.
pub const TIMEOUT: Duration = Duration::from_secs(3);
/// How long a server that failed is not asked again: without it each move (and each position
/// of a review) would wait [`TIMEOUT`] anew.
pub const BACKOFF: Duration = Duration::from_secs(10);
/// The largest answer read: a position's answer is a few KB (every move with its position
/// string), so anything far bigger is not one.
const MAX_BODY: usize = 1 << 20;

/// The reason the hints give when the server failed (the page's `why_server`).
pub const WHY_SERVER: &str = "server";

/// A table server and its state as seen from here.
pub struct RemoteTables {
    /// `http://host:port` and the path prefix (no trailing slash), as given.
    base: String,
    client: Client<HttpConnector, Empty<Bytes>>,
    /// Until when the server is left alone after a failure.
    down_until: Mutex<Option<Instant>>,
}

/// Checks a `--tables-url`: `http://host[:port][/prefix]`. The answer is the base the API
/// paths are appended to.
pub fn parse_url(url: &str) -> Result<String, String> {
    let uri: Uri = url
        .parse()
        .map_err(|e| format!("'{url}' is not a URL ({e})"))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some("https") => {
            return Err(format!(
                "'{url}': https is not supported (mill-gui speaks plain HTTP to the table server; use http:// to a mill-serve or a local proxy)"
            ))
        }
        _ => return Err(format!("'{url}': give an http:// URL such as http://127.0.0.1:8080")),
    }
    let Some(authority) = uri.authority() else {
        return Err(format!("'{url}': no host"));
    };
    if uri.query().is_some() || url.contains('#') {
        return Err(format!(
            "'{url}': no query or fragment, just http://host:port[/path]"
        ));
    }
    let path = uri.path().trim_end_matches('/');
    Ok(format!("http://{authority}{path}"))
}

/// Percent-encodes a query value (a position string: its spaces, and anything odd).
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The part of `/api/v1/position`'s answer that the values need.
#[derive(Deserialize)]
struct Answer {
    category: String,
    game_over: Option<serde_json::Value>,
    moves: Vec<MoveAnswer>,
}

#[derive(Deserialize)]
struct MoveAnswer {
    #[serde(rename = "move")]
    mv: String,
    category: String,
    plies: Option<u64>,
}

/// The values of an answer, as the engine's `values` gives them: `win`/`loss` with the plies to
/// the next mill where known, `draw` for a draw and for the results the 100-ply rule turns into
/// draws (the engine's `Wdl::real`); `uncovered` where some move has no table. `Err` for an
/// answer that is not one (the caller treats the server as failed).
pub fn values_of_answer(body: &[u8]) -> Result<Values, String> {
    let a: Answer =
        serde_json::from_slice(body).map_err(|e| format!("not a position's answer: {e}"))?;
    if a.game_over.is_some_and(|g| !g.is_null()) {
        return Ok(Values::None("gameover".into()));
    }
    let known = [
        "win",
        "draw",
        "loss",
        "cursed-win",
        "blessed-loss",
        "unknown",
    ];
    if !known.contains(&a.category.as_str()) {
        return Err(format!("unknown category '{}'", cut(&a.category)));
    }
    let mut moves = Vec::with_capacity(a.moves.len());
    for m in a.moves {
        if !is_move_token(&m.mv) {
            return Err(format!("odd move '{}'", cut(&m.mv)));
        }
        let (result, plies) = match m.category.as_str() {
            // The engine leaves out a distance of 0 (none known): so does this.
            "win" | "loss" => (m.category.as_str(), m.plies.filter(|&p| p > 0)),
            "draw" | "cursed-win" | "blessed-loss" => ("draw", None),
            "unknown" => return Ok(Values::None("uncovered".into())),
            other => return Err(format!("unknown category '{}'", cut(other))),
        };
        moves.push(MoveValue {
            mv: m.mv,
            result: result.to_string(),
            plies,
            expected: None,
            trap: false,
        });
    }
    if moves.is_empty() {
        return Ok(Values::None("uncovered".into()));
    }
    Ok(Values::Exact(moves))
}

/// At most 60 characters of a server's text, for the log.
fn cut(s: &str) -> String {
    s.chars().take(60).collect()
}

/// The message of an error answer (`{"error": "..."}`), or the start of its body.
fn error_text(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"].as_str().map(cut))
        .unwrap_or_else(|| cut(&String::from_utf8_lossy(body)))
}

impl std::fmt::Debug for RemoteTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteTables")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl RemoteTables {
    /// A client of the server at `base` (from [`parse_url`]); nothing is asked yet.
    pub fn new(base: String) -> RemoteTables {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(TIMEOUT));
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(connector);
        RemoteTables {
            base,
            client,
            down_until: Mutex::new(None),
        }
    }

    pub fn url(&self) -> &str {
        &self.base
    }

    /// `GET base + path`: the status and the body, within [`TIMEOUT`] and [`MAX_BODY`].
    async fn get(&self, path: &str) -> Result<(u16, Bytes), String> {
        let uri: Uri = format!("{}{path}", self.base)
            .parse()
            .map_err(|e| format!("bad request URL: {e}"))?;
        let ask = async {
            let resp = self.client.get(uri).await.map_err(|e| {
                // The error's sources say what happened (refused, reset, ...).
                let mut s = e.to_string();
                let mut src = std::error::Error::source(&e);
                while let Some(c) = src {
                    s.push_str(&format!(": {c}"));
                    src = c.source();
                }
                s
            })?;
            let status = resp.status().as_u16();
            let body = Limited::new(resp.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| format!("reading the answer: {e}"))?
                .to_bytes();
            Ok((status, body))
        };
        match tokio::time::timeout(TIMEOUT, ask).await {
            Ok(r) => r,
            Err(_) => Err(format!("no answer within {} s", TIMEOUT.as_secs())),
        }
    }

    /// Whether the server is being left alone after a failure.
    fn resting(&self) -> bool {
        let mut d = self.down_until.lock().unwrap_or_else(|p| p.into_inner());
        match *d {
            Some(t) if Instant::now() < t => true,
            Some(_) => {
                *d = None;
                false
            }
            None => false,
        }
    }

    fn failed(&self, why: &str) {
        let mut d = self.down_until.lock().unwrap_or_else(|p| p.into_inner());
        *d = Some(Instant::now() + BACKOFF);
        log::warn!(
            "table server {}: {why}; no exact values from it for the next {} s (hints are estimates)",
            self.base,
            BACKOFF.as_secs()
        );
    }

    /// Every legal move's exact value in the position `fen` of the rules, as the engine's
    /// `values` would give it from the same tables; `Values::None` with the reason otherwise
    /// ([`WHY_SERVER`] when the server failed: down, slow, or an answer that is not one).
    pub async fn values(&self, fen: &str, variant: &str, flying: bool) -> Values {
        if self.resting() {
            return Values::None(WHY_SERVER.into());
        }
        let path = format!(
            "/api/v1/position?fen={}&variant={}&flying={flying}",
            encode(fen),
            encode(variant)
        );
        let (status, body) = match self.get(&path).await {
            Ok(r) => r,
            Err(e) => {
                self.failed(&e);
                return Values::None(WHY_SERVER.into());
            }
        };
        match status {
            200 => match values_of_answer(&body) {
                Ok(v) => v,
                Err(e) => {
                    self.failed(&e);
                    Values::None(WHY_SERVER.into())
                }
            },
            // No tables of these rules there: as an engine without tables.
            404 => {
                log::debug!("table server: {}", error_text(&body));
                Values::None("notables".into())
            }
            // The server refuses this position: it is not the server's fault, ask again next time.
            400..=499 => {
                log::warn!(
                    "table server {} refused '{}': {status} {}",
                    self.base,
                    cut(fen),
                    error_text(&body)
                );
                Values::None("uncovered".into())
            }
            _ => {
                self.failed(&format!("status {status}: {}", error_text(&body)));
                Values::None(WHY_SERVER.into())
            }
        }
    }

    /// What the server serves, for the log at start: one line, or why it cannot be asked.
    pub async fn describe(&self) -> Result<String, String> {
        let (status, body) = self.get("/api/v1/info").await?;
        if status != 200 {
            return Err(format!("status {status}: {}", error_text(&body)));
        }
        let v: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| format!("not mill-serve's info: {e}"))?;
        let sets: Vec<String> = v["rule_sets"]
            .as_array()
            .ok_or("not mill-serve's info: no rule_sets")?
            .iter()
            .map(|r| {
                format!(
                    "{} (flying {})",
                    r["variant"].as_str().unwrap_or("?"),
                    if r["flying"] == true { "on" } else { "off" }
                )
            })
            .collect();
        Ok(if sets.is_empty() {
            "no rule sets".into()
        } else {
            sets.join(", ")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            parse_url("http://127.0.0.1:8080").unwrap(),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            parse_url("http://tables.example.org/mill/").unwrap(),
            "http://tables.example.org/mill"
        );
        assert!(parse_url("https://tables.example.org")
            .unwrap_err()
            .contains("https is not supported"));
        for bad in [
            "ftp://x",
            "127.0.0.1:8080",
            "",
            "http://",
            "http://h/?a=1",
            "not a url",
        ] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn position_strings_are_encoded() {
        assert_eq!(
            encode("W../.../B w 2 2 0 8"),
            "W../.../B%20w%202%202%200%208"
        );
        assert_eq!(encode("a&b=c#"), "a%26b%3Dc%23");
    }

    #[test]
    fn answers_map_to_the_engines_words() {
        let body = br#"{"category":"win","plies":5,"game_over":null,"moves":[
            {"move":"c4-c3","category":"win","plies":5,"fen":"x"},
            {"move":"d1-a1","category":"cursed-win","plies":null,"fen":"x"},
            {"move":"a1-a4","category":"blessed-loss","plies":null,"fen":"x"},
            {"move":"d2-d1xa4","category":"loss","plies":4,"fen":"x"},
            {"move":"d6","category":"draw","plies":null,"fen":"x"}]}"#;
        let Values::Exact(m) = values_of_answer(body).unwrap() else {
            panic!("not exact")
        };
        let got: Vec<(&str, &str, Option<u64>)> = m
            .iter()
            .map(|v| (v.mv.as_str(), v.result.as_str(), v.plies))
            .collect();
        assert_eq!(
            got,
            vec![
                ("c4-c3", "win", Some(5)),
                ("d1-a1", "draw", None),
                ("a1-a4", "draw", None),
                ("d2-d1xa4", "loss", Some(4)),
                ("d6", "draw", None),
            ]
        );
    }

    #[test]
    fn partial_or_finished_answers_are_no_values() {
        let unknown = br#"{"category":"unknown","moves":[{"move":"d6","category":"win","plies":3},{"move":"d5","category":"unknown","plies":null}],"game_over":null}"#;
        assert_eq!(
            values_of_answer(unknown).unwrap(),
            Values::None("uncovered".into())
        );
        let over =
            br#"{"category":"loss","moves":[],"game_over":{"result":"1-0","reason":"material"}}"#;
        assert_eq!(
            values_of_answer(over).unwrap(),
            Values::None("gameover".into())
        );
    }

    #[test]
    fn garbage_is_an_error() {
        for body in [
            &b"hello"[..],
            b"{}",
            b"[1,2]",
            br#"{"category":"win","moves":[{"move":"<b>","category":"win"}],"game_over":null}"#,
            br#"{"category":"win","moves":[{"move":"d6","category":"great"}],"game_over":null}"#,
            br#"{"category":"maybe","moves":[],"game_over":null}"#,
        ] {
            assert!(
                values_of_answer(body).is_err(),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
