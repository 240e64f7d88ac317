//! The engine with endgame tables: its verdict in covered positions is the table's, and from a
//! won table position it wins against itself, through the protocol, within the 100-ply rule.

mod engine_process;

use engine_process::{bestmove_of, Engine as Process};
use millstone::engine::Engine;
use millstone::search::{Limits, Score, SearchResult, TB_BOUND};
use millstone::tablebase::{file_name, solve_pair, Table, Tablebase, Wdl, HEADER_LEN};
use millstone::{Game, Move, Position, Rules, Variant};
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
    random_position_counted(rng, w, b, 0)
}

/// [`random_position`] with `rule50` plies played since the last mill.
fn random_position_counted(rng: &mut StdRng, w: u32, b: u32, rule50: u16) -> Position {
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
        // The plies since the last mill must fit in the moves played.
        let fullmove = 40 + rule50 / 2;
        let fen = format!("{} w 0 0 {rule50} {fullmove}", board.join("/"));
        if let Ok(p) = Position::from_fen(&fen, NINE) {
            if p.outcome().is_none() {
                return p;
            }
        }
    }
}

/// Searches `pos` to depth 3 and checks that the engine reports the tables' verdict `wdl`: a
/// covered root's win or loss as a cp value beyond TB_BOUND (the length in moves is unknown),
/// a draw as 0.
fn search_reports(engine: &mut Engine, pos: Position, wdl: Wdl) -> SearchResult {
    let limits = Limits {
        depth: Some(3),
        multipv: 1,
        ..Limits::default()
    };
    let r = engine.search(&Game::new(pos), &limits, Box::new(|_| {}));
    let score = Score::from_internal(r.score);
    let ok = match (wdl, score) {
        (Wdl::Win, Score::Cp(c)) => c >= TB_BOUND,
        (Wdl::Loss, Score::Cp(c)) => c <= -TB_BOUND,
        (Wdl::Draw, Score::Cp(c)) => c == 0,
        _ => false,
    };
    assert!(ok, "{pos}: table {wdl:?}, engine {score:?}");
    r
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
        search_reports(&mut engine, pos, wdl);
    }
    assert!(
        seen.len() == 3,
        "wins, draws and losses all sampled: {seen:?}"
    );
}

/// In a root the tables prove drawn, `TableContempt` and not `Contempt` prices the draws by the
/// game's rules in the search among the drawing moves. White, three pieces and flying, against
/// four, 98 plies after the last mill: a drawing move that closes a mill (to a 3 v 3 draw)
/// starts the count again, and after a drawing move that does not, every black reply ends the
/// game by the 100-ply rule (a black mill would leave White two pieces, so no drawing move
/// allows one). At +1000 the engine closes the mill, at -1000 it takes the 100-ply draw; both
/// are drawing moves and the root is reported as the proven draw.
#[test]
fn table_contempt_prices_the_rule_draws_of_a_drawn_covered_root() {
    let dir = tables("contempt");
    let tb = Tablebase::open(&dir).unwrap();
    let mut rng = StdRng::seed_from_u64(17);
    let drawing = |pos: &Position, m: Move| {
        let mut child = *pos;
        child.play(m).unwrap();
        child.outcome().is_none() && tb.probe(&child).expect("covered").wdl.real() == Wdl::Draw
    };
    let pos = (0..10_000)
        .map(|_| random_position_counted(&mut rng, 3, 4, 98))
        .find(|pos| {
            if tb.probe(pos).expect("covered").wdl.real() != Wdl::Draw {
                return false;
            }
            let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
            let mills = |closes: bool| {
                moves
                    .iter()
                    .any(|&m| pos.closes_mill(m) == closes && drawing(pos, m))
            };
            mills(true) && mills(false)
        })
        .expect("a drawn root with both kinds of drawing move");
    let mut engine = Engine::with_hash_mb(8);
    assert_eq!(engine.set_table_path(dir.to_str(), NINE), Ok(3));
    assert_eq!(engine.table_contempt(), 50, "the default");
    for (table_contempt, contempt, closes) in [(1000, -1000, true), (-1000, 1000, false)] {
        engine.set_table_contempt(table_contempt);
        engine.set_contempt(contempt);
        engine.clear();
        let r = search_reports(&mut engine, pos, Wdl::Draw);
        let best = r.best.expect("a move");
        assert!(drawing(&pos, best), "{pos}: {best} gives the draw away");
        assert_eq!(
            pos.closes_mill(best),
            closes,
            "{pos}: TableContempt {table_contempt}, Contempt {contempt}: {best}"
        );
    }
}

/// The engine with the tables in `dir` plays both sides from `start` through the protocol
/// (`go depth 4`) until the game ends or `max_plies` are played; every answer must be legal,
/// and the engine must exit cleanly on `quit`.
fn play_out(dir: &Path, start: Position, max_plies: usize) -> Game {
    play_out_with(dir, start, max_plies, false)
}

/// [`play_out`]; with `covered`, first waits until the engine reports a table verdict for
/// `start` (big files are checked in the background and count as missing until then).
fn play_out_with(dir: &Path, start: Position, max_plies: usize, covered: bool) -> Game {
    let mut e = Process::start();
    e.send(&format!("setoption name TablePath value {}", dir.display()));
    let t = std::time::Instant::now();
    if covered {
        loop {
            e.send(&format!("position fen {start}"));
            let lines = e.go("depth 1");
            let tb = lines.iter().any(|l| {
                l.split_whitespace()
                    .skip_while(|&w| w != "cp")
                    .nth(1)
                    .and_then(|c| c.parse::<i32>().ok())
                    .is_some_and(|c| c.abs() >= TB_BOUND)
            });
            if tb {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(120),
                "{start}: never covered"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
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

/// With the complete tables of nine (`MILLSTONE_FULL_TABLES=DIR`, made by `mill-tb generate
/// --variant nine --max-pieces 18 --dir DIR`): from 200 random moving-phase positions with 6 to
/// 9 pieces a side and random 100-ply counters, the engine's verdict is the table's and its
/// move keeps the value; from won positions it converts against itself within the rules.
#[test]
#[ignore = "needs the complete tables of nine in MILLSTONE_FULL_TABLES"]
fn full_set_verdicts_moves_and_conversions() {
    let dir = PathBuf::from(
        std::env::var_os("MILLSTONE_FULL_TABLES").expect("MILLSTONE_FULL_TABLES=DIR"),
    );
    let tb = Tablebase::open(&dir).unwrap();
    let mut engine = Engine::with_hash_mb(64);
    assert_eq!(engine.set_table_path(dir.to_str(), NINE), Ok(49));
    // The big files are checked in the background; until then they count as missing.
    engine.wait_for_tables();
    let mut rng = StdRng::seed_from_u64(2026);
    let mut seen: HashMap<Wdl, u32> = HashMap::new();
    let mut won = Vec::new();
    for _ in 0..200 {
        let (w, b) = (rng.gen_range(6..=9), rng.gen_range(6..=9));
        let base = random_position(&mut rng, w, b);
        // A random side to move and counter: the same board, re-read with other fields.
        let side = if rng.gen_bool(0.5) { "w" } else { "b" };
        let counter: u32 = rng.gen_range(0..90);
        let board = base.to_string();
        let board = board.split_whitespace().next().unwrap();
        let Ok(pos) = Position::from_fen(&format!("{board} {side} 0 0 {counter} 60"), NINE) else {
            continue;
        };
        if pos.outcome().is_some() {
            continue;
        }
        let wdl = tb.probe(&pos).expect("covered").wdl.real();
        *seen.entry(wdl).or_insert(0) += 1;
        let r = search_reports(&mut engine, pos, wdl);
        // The move keeps the value: the opponent faces the mirror verdict (or the game ends
        // with the mover's win).
        let best = r.best.expect("a move");
        let mut game = Game::new(pos);
        game.play(best).unwrap();
        let after = match game.outcome() {
            Some(o) if o.result_str() == "1/2-1/2" => Wdl::Draw,
            Some(_) => Wdl::Loss,
            None => tb.probe(game.position()).expect("covered").wdl.real(),
        };
        assert_eq!(
            after,
            wdl.flip(),
            "{pos}: {best} leaves {}",
            game.position()
        );
        if wdl == Wdl::Win {
            // Also won with the counter at 0 (the next mill is as near); played from there.
            let fresh = Position::from_fen(&format!("{board} {side} 0 0 0 60"), NINE).unwrap();
            won.push((fresh, if side == "w" { "1-0" } else { "0-1" }));
        }
    }
    assert_eq!(
        seen.len(),
        3,
        "wins, draws and losses all sampled: {seen:?}"
    );
    assert!(won.len() >= 3, "only {} won positions", won.len());
    for (start, result) in won.into_iter().take(3) {
        let game = play_out_with(&dir, start, 3000, true);
        let o = game.outcome().expect("the game ends");
        assert_eq!(
            o.result_str(),
            result,
            "{start}: {o} after {:?}",
            game.moves()
        );
    }
}
