//! Searching through the library in-process, for the tools that do not need a subprocess.

use millstone::search::{Info, Limits, Score, SearchResult};
use millstone::{Engine, Game};
use std::sync::{Arc, Mutex};

/// Searches `game` to `limits` and returns the result with the last reported line of each
/// MultiPV rank (index 0 is the best line).
pub fn search_lines(
    engine: &mut Engine,
    game: &Game,
    limits: &Limits,
) -> (SearchResult, Vec<Info>) {
    let lines: Arc<Mutex<Vec<Info>>> = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let r = engine.search(
        game,
        limits,
        Box::new(move |info: &Info| {
            let mut v = sink.lock().expect("the reporter does not panic");
            let k = info.multipv.saturating_sub(1);
            if v.len() <= k {
                v.resize(k + 1, info.clone());
            }
            v[k] = info.clone();
        }),
    );
    let lines = lines.lock().expect("the reporter does not panic").clone();
    (r, lines)
}

/// A score as the protocol writes it: `cp 35` or `mate -3`.
pub fn score_text(score: i32) -> String {
    match Score::from_internal(score) {
        Score::Cp(c) => format!("cp {c}"),
        Score::Mate(m) => format!("mate {m}"),
    }
}
