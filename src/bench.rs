//! The benchmark: fixed positions of both variants and all phases, searched to a fixed depth
//! with one thread and a fresh table. The total node count is the search's signature: any
//! change to search or evaluation changes it, and the commit says so.

use crate::engine::Engine;
use crate::game::Game;
use crate::position::Position;
use crate::search::Limits;
use crate::types::{Rules, Variant};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Bench positions: (variant, flying, position string).
pub const POSITIONS: &[(Variant, bool, &str)] = &[
    (
        Variant::Nine,
        true,
        ".../.../.../....../.../.../... w 9 9 0 1",
    ),
    (
        Variant::Nine,
        true,
        "W../.B./.../....../.../.../... w 8 8 0 2",
    ),
    (
        Variant::Nine,
        true,
        "W.B/.W./..B/.B..W./.../W../... w 5 5 0 5",
    ),
    (
        Variant::Nine,
        true,
        "W.B/BWB/W.B/WB..WB/.W./W../B.. b 1 2 0 8",
    ),
    (
        Variant::Nine,
        true,
        "WBW/B.B/W.W/B....B/.W./WB./B.W w 0 0 0 10",
    ),
    (
        Variant::Nine,
        true,
        "W.W/.B./..W/BB..W./.../W.B/B.. w 0 0 6 19",
    ),
    (
        Variant::Nine,
        true,
        "W../.B./..W/B...W./.B./..B/W.. b 0 0 12 25",
    ),
    (
        Variant::Nine,
        false,
        "W../.B./..W/B...W./.B./..B/W.. b 0 0 12 25",
    ),
    (
        Variant::Twelve,
        true,
        ".../.../.../....../.../.../... w 12 12 0 1",
    ),
    (
        Variant::Twelve,
        true,
        "W.B/.W./B../..W.B./.../.W./B.. w 8 8 0 5",
    ),
    (
        Variant::Twelve,
        true,
        "WBW/B.B/W.W/B.WB.B/.W./WB./BWW b 0 1 0 12",
    ),
    (
        Variant::Twelve,
        true,
        "W.W/BB./W.B/B..W.B/.W./.B./W.. w 0 0 4 30",
    ),
];

/// The default bench depth.
pub const DEFAULT_DEPTH: i32 = 10;

/// What a bench run measured.
#[derive(Clone, Debug)]
pub struct BenchResult {
    /// Total nodes: the signature.
    pub nodes: u64,
    /// Wall time of all searches.
    pub time: Duration,
    /// Per position: (position string, best move, nodes).
    pub lines: Vec<(String, String, u64)>,
}

impl BenchResult {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.time.as_secs_f64().max(1e-9)) as u64
    }
}

/// Runs the bench at `depth`, one thread, a fresh table of `hash_mb` for each position.
pub fn run(depth: i32, hash_mb: usize) -> BenchResult {
    run_with_tables(depth, hash_mb, None, true).expect("no tables to open")
}

/// [`run`] with the endgame tables of directory `tables` (for measuring their cost: the
/// signature differs from [`run`]'s wherever a table covers a searched position), and with
/// the network (`use_nnue`, where the variant has one) or the hand-tuned evaluation.
pub fn run_with_tables(
    depth: i32,
    hash_mb: usize,
    tables: Option<&str>,
    use_nnue: bool,
) -> Result<BenchResult, String> {
    run_until(
        depth,
        hash_mb,
        tables,
        use_nnue,
        &AtomicBool::new(false),
        |_| {},
    )
    .map(|r| r.expect("nothing stops it"))
}

/// [`run_with_tables`] that can be stopped: `each` gets every position's line as it is done,
/// and when `stop` is set the search in progress ends and `Ok(None)` is returned.
pub fn run_until(
    depth: i32,
    hash_mb: usize,
    tables: Option<&str>,
    use_nnue: bool,
    stop: &AtomicBool,
    mut each: impl FnMut(&(String, String, u64)),
) -> Result<Option<BenchResult>, String> {
    let mut nodes = 0;
    let mut time = Duration::ZERO;
    let mut lines = Vec::new();
    for &(variant, flying, fen) in POSITIONS {
        let rules = Rules::new(variant, flying);
        let pos = Position::from_fen(fen, rules).expect("bench positions are valid");
        let game = Game::new(pos);
        let mut engine = Engine::with_hash_mb(hash_mb);
        engine.set_use_nnue(use_nnue);
        if tables.is_some() {
            engine.set_table_path(tables, rules)?;
            // Every file checked before the clock starts: the bench measures searching.
            engine.wait_for_tables();
        }
        let limits = Limits {
            depth: Some(depth),
            multipv: 1,
            ..Limits::default()
        };
        let t = Instant::now();
        engine.start(&game, limits, Box::new(|_| {}), None, Box::new(|_| {}));
        while engine.is_searching() {
            if stop.load(Ordering::Relaxed) {
                engine.stop();
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let r = engine.wait().expect("a search was started");
        time += t.elapsed();
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        nodes += r.nodes;
        let best = r.best.map_or("0000".to_string(), |m| m.to_string());
        lines.push((format!("{fen} [{rules}]"), best, r.nodes));
        each(lines.last().expect("just pushed"));
    }
    Ok(Some(BenchResult { nodes, time, lines }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_valid_and_playable() {
        for &(v, f, fen) in POSITIONS {
            let p =
                Position::from_fen(fen, Rules::new(v, f)).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert!(p.outcome().is_none(), "{fen} is already decided");
        }
    }

    #[test]
    fn bench_is_deterministic() {
        let a = run(4, 1);
        let b = run(4, 1);
        assert_eq!(a.nodes, b.nodes);
        assert_eq!(a.lines, b.lines);
    }
}
