//! Perfect on the clock: a root the tables cover is answered within the move's time however
//! slow the reads are (simulated here: every root read waits), with every move's value when
//! they come in time; and a damaged block gives no answer, never a wrong one, and no stall.

mod small_tables;

use millstone::engine::Engine;
use millstone::search::{Info, Limits};
use millstone::tablebase::placing::{self, Sector};
use millstone::tablebase::sample::{self, Distribution, SampleOptions};
use millstone::tablebase::Tablebase;
use millstone::{Game, Move, Position, Rules};
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Material of the small tables (the moving phase up to 8 pieces, the placing sectors of at
/// most 8 pieces in all).
const MATERIAL: u8 = 8;

/// Slack over the move's time for a loaded test machine; a root read that waited for every
/// move's value would take seconds here.
const SLACK: Duration = Duration::from_millis(150);

/// Placing positions of the covered sectors with at least one move, and moving positions of
/// the small sub-spaces, `n` of each, none over.
fn positions(tb: &Tablebase, rules: Rules, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let sectors: Vec<Sector> = Sector::all(rules, MATERIAL)
        .into_iter()
        .filter(|s| s.slots() > 1000)
        .collect();
    let mut out = Vec::new();
    while out.len() < n {
        let s = sectors[rng.gen_range(0..sectors.len())];
        let (pos, _) = placing::position_of_slot(s, rng.gen_range(0..s.slots()) as u32);
        if pos.outcome().is_none() {
            out.push(pos);
        }
    }
    let moving = sample::sample(
        tb,
        20 * n,
        &SampleOptions {
            rules,
            distribution: Distribution::Uniform,
            seed,
            distances: false,
            phase: sample::Phase::Any,
        },
    )
    .unwrap();
    out.extend(
        moving
            .iter()
            .map(|s| s.position())
            .filter(|p| p.outcome().is_none() && p.is_moving_phase())
            .take(n),
    );
    assert_eq!(out.len(), 2 * n);
    out
}

/// A search at `movetime` ms: the move, the lines, and how long it took.
fn go(engine: &mut Engine, pos: Position, movetime: u64) -> (Option<Move>, Vec<Info>, Duration) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let mut limits = Limits::default();
    limits.clock.movetime = Some(Duration::from_millis(movetime));
    let t = Instant::now();
    let r = engine.search(
        &Game::new(pos),
        &limits,
        Box::new(move |i: &Info| sink.lock().unwrap().push(i.clone())),
    );
    let took = t.elapsed();
    let lines = lines.lock().unwrap().clone();
    (r.best, lines, took)
}

fn engine_on(dir: &Path, rules: Rules) -> Engine {
    let mut engine = Engine::with_hash_mb(8);
    engine.set_threads(1);
    engine.set_table_path(dir.to_str(), rules).unwrap();
    engine.wait_for_tables();
    engine
}

/// Every read a quarter of a second: the engine still plays within its time, a legal move.
/// Reads of a few milliseconds: it waits for them (its time allows), and plays a move that
/// keeps the value, with the tables' verdict in its lines.
#[test]
fn a_table_root_is_answered_within_the_time_however_slow_the_reads() {
    let rules = Rules::default();
    let dir = small_tables::make(rules, MATERIAL, "clock-slow");
    let tb = Tablebase::open(&dir).unwrap();
    let list = positions(&tb, rules, 12, 3);
    let mut engine = engine_on(&dir, rules);
    let slow = engine.tablebase().unwrap().clone();

    slow.simulate_slow_reads(Duration::from_millis(250));
    for &pos in &list {
        let (best, _, took) = go(&mut engine, pos, 30);
        let best = best.expect("a move");
        assert!(pos.legal_moves().contains(best), "{pos}: {best}");
        assert!(
            took < Duration::from_millis(30) + SLACK,
            "{pos}: {took:?} at movetime 30 with reads of 250 ms"
        );
    }

    slow.simulate_slow_reads(Duration::from_millis(2));
    for &pos in &list {
        let root = tb.probe_root(&pos).expect("covered");
        let (best, lines, took) = go(&mut engine, pos, 400);
        let best = best.expect("a move");
        assert!(took < Duration::from_millis(400) + SLACK, "{pos}: {took:?}");
        let kept = root.moves.iter().find(|(m, _)| *m == best).unwrap().1;
        assert_eq!(
            kept.wdl.real(),
            root.probe.wdl.real(),
            "{pos}: {best} gives the value away"
        );
        assert!(lines.iter().all(|i| i.proven), "{pos}: unproven lines");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Right after `TablePath`, with the files just opened and slow reads, `movetime 1` is kept.
#[test]
fn the_first_move_with_just_opened_files_is_in_time() {
    let rules = Rules::default();
    let dir = small_tables::make(rules, MATERIAL, "clock-fresh");
    let tb = Tablebase::open(&dir).unwrap();
    let list = positions(&tb, rules, 6, 4);
    for &pos in &list {
        let mut engine = Engine::with_hash_mb(8);
        engine.set_threads(1);
        engine.set_table_path(dir.to_str(), rules).unwrap();
        engine
            .tablebase()
            .unwrap()
            .simulate_slow_reads(Duration::from_millis(100));
        let (best, _, took) = go(&mut engine, pos, 1);
        assert!(pos.legal_moves().contains(best.expect("a move")));
        assert!(
            took < Duration::from_millis(1) + SLACK,
            "{pos}: {took:?} at movetime 1"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The blocks of the last placing ply are damaged: the roots one ply before are no longer
/// the tables' (no verdict is claimed from them), and the engine still moves in time; what it
/// proves otherwise is true.
#[test]
fn a_damaged_block_gives_no_answer_and_no_stall() {
    let rules = Rules::default();
    let dir = small_tables::make(rules, MATERIAL, "clock-damaged");
    let last = 2 * rules.variant.pieces() - 1;
    let mut damaged_sectors = 0;
    for s in Sector::all(rules, MATERIAL)
        .into_iter()
        .filter(|s| s.ply == last)
    {
        let path = dir.join(s.file_name());
        let Ok(f) = placing::PlacingFile::open(&path, s) else {
            continue;
        };
        let blocks_from = (placing::file::HEADER_LEN as u64 + f.header().index_len()) as usize;
        drop(f);
        let mut bytes = std::fs::read(&path).unwrap();
        for b in bytes[blocks_from..].iter_mut() {
            *b ^= 0xa5;
        }
        std::fs::write(&path, &bytes).unwrap();
        damaged_sectors += 1;
    }
    assert!(damaged_sectors > 0);
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    let sectors: Vec<Sector> = Sector::all(rules, MATERIAL)
        .into_iter()
        .filter(|s| s.ply == last - 1 && s.slots() > 100)
        .collect();
    let damaged = Tablebase::open(&dir).unwrap();
    let mut engine = engine_on(&dir, rules);
    let mut unanswered = 0;
    for i in 0..16 {
        let s = sectors[i % sectors.len()];
        let (pos, _) = placing::position_of_slot(s, rng.gen_range(0..s.slots()) as u32);
        if pos.outcome().is_some() {
            continue;
        }
        // The root's own sector is intact: its value is the truth.
        let Some(root) = damaged.probe_any(&pos) else {
            continue;
        };
        unanswered += damaged.probe_root(&pos).is_none() as usize;
        let (best, lines, took) = go(&mut engine, pos, 40);
        assert!(pos.legal_moves().contains(best.expect("a move")));
        assert!(took < Duration::from_millis(40) + SLACK, "{pos}: {took:?}");
        for line in lines.iter().filter(|l| l.proven) {
            let sign = line.score.signum();
            let truth = match root.wdl.real() {
                millstone::tablebase::Wdl::Win => 1,
                millstone::tablebase::Wdl::Loss => -1,
                _ => 0,
            };
            assert_eq!(sign, truth, "{pos}: proven score {} is wrong", line.score);
        }
    }
    assert!(unanswered > 0, "no root read a damaged block");
    let _ = std::fs::remove_dir_all(&dir);
}

/// While the background check of the files has not got to a file, a root's reads still get
/// its values (each checked by its block's sum and the W/D/L digit), equal to the checked
/// tables'; the search's one-byte probes miss until the check is done. A file whose W/D/L part
/// is damaged gives no wrong value before its check, and nothing after it.
#[test]
fn roots_are_read_from_files_the_check_has_not_reached() {
    let rules = Rules::default();
    let dir = small_tables::make(rules, MATERIAL, "clock-young");
    let checked = Tablebase::open(&dir).unwrap();
    let list: Vec<Position> = positions(&checked, rules, 40, 8)
        .into_iter()
        .filter(|p| p.is_moving_phase())
        .collect();
    assert_eq!(list.len(), 40);

    let young = Tablebase::open(&dir).unwrap();
    young.simulate_preloading(true);
    for pos in &list {
        assert_eq!(young.probe(pos), checked.probe(pos), "{pos}");
        let (a, b) = (young.probe_root(pos), checked.probe_root(pos));
        assert_eq!(a.map(|r| r.moves), b.map(|r| r.moves), "{pos}");
        assert_eq!(young.snapshot(rules).probe_wdl(pos), None, "{pos}");
    }
    young.simulate_preloading(false);
    for pos in &list {
        assert_eq!(young.snapshot(rules).probe_wdl(pos), checked.probe_wdl(pos));
    }

    // The W/D/L part of every file with positions in the list, damaged.
    let mut damaged = std::collections::BTreeSet::new();
    for pos in &list {
        let us = pos.side_to_move();
        let (w, b) = (
            pos.pieces(us).count() as u8,
            pos.pieces(us.other()).count() as u8,
        );
        if damaged.insert((w, b)) {
            let h = *checked.table(rules, w, b).unwrap().header();
            let path = checked.path(rules, w, b);
            let mut bytes = std::fs::read(&path).unwrap();
            let at = h.wdl_offset as usize;
            for x in &mut bytes[at..at + h.digits_len() as usize] {
                *x ^= 0x5a;
            }
            std::fs::write(&path, &bytes).unwrap();
        }
    }
    let young = Tablebase::open(&dir).unwrap();
    young.simulate_preloading(true);
    let mut refused = 0;
    for pos in &list {
        match young.probe(pos) {
            None => refused += 1,
            Some(p) => assert_eq!(Some(p), checked.probe(pos), "{pos}: a wrong value"),
        }
    }
    // (A damaged byte that still holds the slot's digit changes nothing for that slot.)
    assert!(refused > 0, "no value refused of {}", list.len());
    young.simulate_preloading(false);
    for pos in &list {
        assert_eq!(young.probe(pos), None, "{pos}: a damaged file answered");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
