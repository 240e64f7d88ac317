//! The engine with endgame tables: its verdict in covered positions is the table's, and from a
//! won table position it wins against itself, through the protocol, within the 100-ply rule.

mod engine_process;

use engine_process::{bestmove_of, Engine as Process};
use millstone::engine::Engine;
use millstone::search::{Limits, Score, TB_BOUND};
use millstone::tablebase::{file_name, solve_pair, Table, Tablebase, Wdl, HEADER_LEN};
use millstone::{Game, Position, Rules, Variant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

const NINE: Rules = Rules::new(Variant::Nine, true);

/// Solves 3v3, 3v4 and 4v3 of nine with flying into a fresh directory.
fn tables(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("millstone-tbs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut solved: HashMap<(u8, u8), Table> = HashMap::new();
    for (w, b) in [(3, 3), (3, 4)] {
        let (ts, _) = solve_pair(NINE, w, b, &solved, &mut |_| {}).unwrap();
        for t in ts {
            t.write(&dir.join(file_name(NINE, t.w, t.b))).unwrap();
            solved.insert((t.w, t.b), t);
        }
    }
    dir
}

/// A random moving-phase position with `w` white and `b` black pieces, White to move.
fn random_position(rng: &mut StdRng, w: u32, b: u32) -> Position {
    loop {
        let mut cells = ['.'; 24];
        let mut placed = 0;
        while placed < w + b {
            let i = rng.gen_range(0..24);
            if cells[i] == '.' {
                cells[i] = if placed < w { 'W' } else { 'B' };
                placed += 1;
            }
        }
        // Position-string order: ranks 7 down to 1.
        let ranks: [(usize, usize); 7] =
            [(21, 3), (18, 3), (15, 3), (9, 6), (6, 3), (3, 3), (0, 3)];
        let board: Vec<String> = ranks
            .iter()
            .map(|&(s, n)| cells[s..s + n].iter().collect())
            .collect();
        let fen = format!("{} w 0 0 0 40", board.join("/"));
        if let Ok(p) = Position::from_fen(&fen, NINE) {
            if p.outcome().is_none() {
                return p;
            }
        }
    }
}

#[test]
fn verdict_is_the_tables() {
    let dir = tables("verdict");
    let tb = Tablebase::open(&dir).unwrap();
    let mut engine = Engine::with_hash_mb(8);
    assert_eq!(engine.set_table_path(dir.to_str(), NINE), Ok(3));
    let mut rng = StdRng::seed_from_u64(3);
    let mut seen = HashMap::new();
    for i in 0..150 {
        let (w, b) = [(3, 3), (3, 4), (4, 3)][i % 3];
        let pos = random_position(&mut rng, w, b);
        let wdl = tb.probe(&pos).expect("covered").wdl.real();
        *seen.entry(wdl).or_insert(0) += 1;
        let limits = Limits {
            depth: Some(3),
            multipv: 1,
            ..Limits::default()
        };
        let r = engine.search(&Game::new(pos), &limits, Box::new(|_| {}));
        let score = Score::from_internal(r.score);
        // A covered root reports the table's verdict: a win or loss as a cp value beyond
        // TB_BOUND (the length in moves is unknown), a draw as 0.
        let ok = match (wdl, score) {
            (Wdl::Win, Score::Cp(c)) => c >= TB_BOUND,
            (Wdl::Loss, Score::Cp(c)) => c <= -TB_BOUND,
            (Wdl::Draw, Score::Cp(c)) => c == 0,
            _ => false,
        };
        assert!(ok, "{pos}: table {wdl:?}, engine {score:?}");
    }
    assert!(
        seen.len() == 3,
        "wins, draws and losses all sampled: {seen:?}"
    );
}

/// The engine with the tables in `dir` plays both sides from `start` through the protocol
/// (`go depth 4`) until the game ends or `max_plies` are played; every answer must be legal,
/// and the engine must exit cleanly on `quit`.
fn play_out(dir: &Path, start: Position, max_plies: usize) -> Game {
    let mut e = Process::start();
    e.send(&format!("setoption name TablePath value {}", dir.display()));
    let mut game = Game::new(start);
    while game.outcome().is_none() && game.moves().len() < max_plies {
        let moves: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
        e.send(&format!("position fen {start} moves {}", moves.join(" ")));
        let best = bestmove_of(&e.go("depth 4"));
        game.play(best.parse().unwrap())
            .unwrap_or_else(|err| panic!("{best}: {err}"));
    }
    e.send("quit");
    e.wait_exit(Duration::from_secs(5))
        .expect("the engine exits");
    assert!(e.child.try_wait().unwrap().unwrap().success());
    game
}

#[test]
fn wins_a_won_table_position_through_the_protocol() {
    let dir = tables("play");
    let tb = Tablebase::open(&dir).unwrap();
    // A 3 v 3 win that takes a while: the next mill is many plies away (up to 25 exist).
    let mut rng = StdRng::seed_from_u64(5);
    let start = loop {
        let p = random_position(&mut rng, 3, 3);
        let probe = tb.probe(&p).unwrap();
        if probe.wdl == Wdl::Win && probe.plies_to_mill >= 9 {
            break p;
        }
    };
    let game = play_out(&dir, start, 300);
    assert!(game.outcome().is_some(), "the game does not end");
    let o = game.outcome().unwrap();
    assert_eq!(
        o.result_str(),
        "1-0",
        "{start}: {o} after {:?}",
        game.moves()
    );
}

#[test]
fn keeps_playing_with_damaged_files() {
    let dir = tables("damaged");
    // 4v3: a flipped bit in the W/D/L part (refused when first probed); 3v4: one in its last
    // distance block (refused when that block is decoded); 3v3 intact.
    let flip = |w: u8, b: u8, at: &dyn Fn(usize) -> usize| {
        let path = dir.join(file_name(NINE, w, b));
        let mut bytes = std::fs::read(&path).unwrap();
        let i = at(bytes.len());
        bytes[i] ^= 0x20;
        std::fs::write(&path, bytes).unwrap();
    };
    flip(4, 3, &|_| HEADER_LEN + 100);
    flip(3, 4, &|n| n - 5);
    let tb = Tablebase::open(&dir).unwrap();
    assert!(tb.load(NINE, 4, 3).is_err());
    let mut engine = Engine::with_hash_mb(8);
    assert_eq!(engine.set_table_path(dir.to_str(), NINE), Ok(3));
    let mut rng = StdRng::seed_from_u64(9);
    for i in 0..45 {
        let (w, b) = [(3, 3), (3, 4), (4, 3)][i % 3];
        let pos = random_position(&mut rng, w, b);
        let limits = Limits {
            depth: Some(3),
            multipv: 1,
            ..Limits::default()
        };
        let r = engine.search(&Game::new(pos), &limits, Box::new(|_| {}));
        let best = r.best.expect("a move");
        assert!(
            pos.legal_moves().iter().any(|&m| m == best),
            "{pos}: {best}"
        );
    }
    // Through the protocol: a game from 4v3 goes on, each answer a legal move.
    let start = random_position(&mut rng, 4, 3);
    play_out(&dir, start, 12);
}
