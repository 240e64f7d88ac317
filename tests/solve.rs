//! The placing-phase solver against independent references: a plain full-width negamax, the
//! solver's own per-move values, the engine's proven table results, and the tables themselves.

use millstone::engine::Engine;
use millstone::search::{Limits, Score, TB_BOUND, TB_WIN};
use millstone::solve::{SolveError, Solver};

mod engine_process;
use millstone::tablebase::{file_name, solve_pair, Snapshot, Table, Tablebase, Wdl};
use millstone::{Game, Move, Position, Rules, Variant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const NINE: Rules = Rules::new(Variant::Nine, true);

/// Nine with flying, sub-spaces 3v3, 3v4, 4v3, 3v5, 5v3 and 4v4 (up to 8 pieces, no 5v4 or
/// 4v5), solved once for all tests of this file.
fn tables() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("millstone-solve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut solved: HashMap<(u8, u8), Table> = HashMap::new();
        for (w, b) in [(3, 3), (3, 4), (3, 5), (4, 4)] {
            let (ts, _) = solve_pair(NINE, w, b, &solved, &mut |_| {}).unwrap();
            for t in ts {
                t.write(&dir.join(file_name(NINE, t.w, t.b))).unwrap();
                solved.insert((t.w, t.b), t);
            }
        }
        dir
    })
}

fn board_string(white: u32, black: u32) -> String {
    const RANKS: [(usize, usize); 7] = [(21, 3), (18, 3), (15, 3), (9, 6), (6, 3), (3, 3), (0, 3)];
    let ranks: Vec<String> = RANKS
        .iter()
        .map(|&(s, l)| {
            (s..s + l)
                .map(|p| match (white >> p & 1, black >> p & 1) {
                    (1, _) => 'W',
                    (_, 1) => 'B',
                    _ => '.',
                })
                .collect()
        })
        .collect();
    ranks.join("/")
}

/// A random placing-phase position of `rules` with the given pieces on the board and in hand
/// that the rules have not ended. The side to move follows from the hands (strict alternation).
fn random_placing(rules: Rules, rng: &mut StdRng, board: (u32, u32), hand: (u8, u8)) -> Position {
    let n = rules.variant.pieces();
    let side = if hand.0 == hand.1 { 'w' } else { 'b' };
    let placed = 2 * n as u32 - hand.0 as u32 - hand.1 as u32;
    let fullmove = placed / 2 + 1;
    loop {
        let (mut white, mut black) = (0u32, 0u32);
        while white.count_ones() < board.0 {
            white |= 1 << rng.gen_range(0..24);
        }
        while black.count_ones() < board.1 {
            let p = 1 << rng.gen_range(0..24);
            if white & p == 0 {
                black |= p;
            }
        }
        let fen = format!(
            "{} {side} {} {} 0 {fullmove}",
            board_string(white, black),
            hand.0,
            hand.1
        );
        let pos = Position::from_fen(&fen, rules).unwrap_or_else(|e| panic!("{fen}: {e}"));
        if pos.outcome().is_none() {
            return pos;
        }
    }
}

fn wdl_of(v: i8) -> Wdl {
    [Wdl::Loss, Wdl::Draw, Wdl::Win][(v + 1) as usize]
}

fn value_of(w: Wdl) -> i8 {
    match w {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
        other => panic!("the tree's probe gives only W/D/L, not {other:?}"),
    }
}

/// Minimax over every move, no table, no pruning, no ordering. Panics on a leaf outside the
/// tables, which also checks that the test positions stay inside them.
fn naive(pos: &Position, tb: &Snapshot) -> i8 {
    if let Some(o) = pos.outcome() {
        return match o.winner() {
            None => 0,
            Some(c) if c == pos.side_to_move() => 1,
            Some(_) => -1,
        };
    }
    if pos.is_moving_phase() {
        let w = tb
            .probe_wdl(pos)
            .unwrap_or_else(|| panic!("leaf {pos} outside the tables"));
        return value_of(w);
    }
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = *pos;
            child.make(m);
            -naive(&child, tb)
        })
        .max()
        .expect("a position the rules have not ended has a move")
}

/// [`naive`] with every placing-phase value remembered (exact values, full width, no bounds):
/// affordable five or six plies from the moving phase.
fn memoised(pos: &Position, tb: &Snapshot, memo: &mut HashMap<u64, i8>) -> i8 {
    if pos.outcome().is_some() || pos.is_moving_phase() {
        return naive(pos, tb);
    }
    if let Some(&v) = memo.get(&pos.repetition_key()) {
        return v;
    }
    let v = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let mut child = *pos;
            child.make(m);
            -memoised(&child, tb, memo)
        })
        .max()
        .expect("a move");
    memo.insert(pos.repetition_key(), v);
    v
}

/// Placing-phase shapes whose moving phase starts at 4v4 or less, or 3v5 (board, hand).
const SMALL: [((u32, u32), (u8, u8)); 6] = [
    ((2, 2), (2, 2)),
    ((3, 3), (1, 1)),
    ((3, 2), (1, 2)),
    ((2, 3), (1, 1)),
    ((1, 3), (2, 2)),
    ((3, 3), (0, 1)),
];

#[test]
fn agrees_with_a_plain_negamax() {
    let tb = Tablebase::open(tables()).unwrap();
    let snap = tb.snapshot(NINE);
    // One solver for all positions with a roomy table, and a fresh one each time whose table
    // holds 64 positions, so that replacement happens all the time.
    let mut solver = Solver::new(&tb, NINE, 4).unwrap();
    let mut rng = StdRng::seed_from_u64(11);
    let mut seen: HashMap<Wdl, u32> = HashMap::new();
    for i in 0..60 {
        let (board, hand) = SMALL[i % SMALL.len()];
        let pos = random_placing(NINE, &mut rng, board, hand);
        let children: Vec<(Move, Wdl)> = pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let mut child = pos;
                child.make(m);
                (m, wdl_of(-naive(&child, &snap)))
            })
            .collect();
        let expect = children.iter().map(|&(_, v)| value_of(v)).max().unwrap();
        let got = solver.solve(&pos).unwrap();
        // The same solver again, one ply down: its table now answers each node with the
        // other window than the one that stored it.
        assert_eq!(solver.keeping_moves(&pos).unwrap(), children, "{pos}");
        assert_eq!(value_of(got.value), expect, "{pos}");
        let mut small = Solver::with_entries(&tb, NINE, 64);
        assert_eq!(
            value_of(small.solve(&pos).unwrap().value),
            expect,
            "{pos}, tiny table"
        );
        if let Some(m) = got.best {
            let mut child = pos;
            child.make(m);
            assert_eq!(
                -naive(&child, &snap),
                expect,
                "{pos}: {m} does not keep the value"
            );
        }
        *seen.entry(got.value).or_insert(0) += 1;
    }
    assert_eq!(
        seen.len(),
        3,
        "wins, draws and losses all sampled: {seen:?}"
    );
    let tt = solver.tt_stats();
    assert!(tt.hits > 0 && tt.used > 0, "{tt:?}");
}

#[test]
fn agrees_with_a_memoised_minimax_five_plies_deep() {
    let tb = Tablebase::open(tables()).unwrap();
    let snap = tb.snapshot(NINE);
    let mut solver = Solver::new(&tb, NINE, 2).unwrap();
    let mut rng = StdRng::seed_from_u64(17);
    let mut seen: HashMap<Wdl, u32> = HashMap::new();
    // Black to move with 3 in hand, White with 2: 4v4, 3v4 and 3v5 when placing ends.
    for i in 0..30 {
        let board = [(2, 1), (1, 1), (1, 2)][i % 3];
        let pos = random_placing(NINE, &mut rng, board, (2, 3));
        let mut memo = HashMap::new();
        let expect = memoised(&pos, &snap, &mut memo);
        let got = solver.solve(&pos).unwrap().value;
        assert_eq!(value_of(got), expect, "{pos}");
        for (m, v) in solver.keeping_moves(&pos).unwrap() {
            let mut child = pos;
            child.make(m);
            assert_eq!(
                value_of(v),
                -memoised(&child, &snap, &mut memo),
                "{pos}: {m}"
            );
        }
        *seen.entry(got).or_insert(0) += 1;
    }
    assert!(seen.len() >= 2, "one value only: {seen:?}");
}

#[test]
fn keeping_moves_agree_with_solving_each_child() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut solver = Solver::new(&tb, NINE, 8).unwrap();
    let mut rng = StdRng::seed_from_u64(12);
    let mut mixed = 0;
    for i in 0..30 {
        let (board, hand) = SMALL[i % SMALL.len()];
        let pos = random_placing(NINE, &mut rng, board, hand);
        let moves = solver.keeping_moves(&pos).unwrap();
        assert_eq!(moves.len(), pos.legal_moves().len());
        let value = solver.solve(&pos).unwrap().value;
        let best = moves.iter().map(|&(_, v)| value_of(v)).max().unwrap();
        assert_eq!(best, value_of(value), "{pos}");
        // Each child solved on its own by a solver that has seen nothing yet.
        let mut fresh = Solver::new(&tb, NINE, 1).unwrap();
        for &(m, v) in &moves {
            let mut child = pos;
            child.make(m);
            let c = fresh.solve(&child).unwrap().value;
            assert_eq!(value_of(v), -value_of(c), "{pos}: {m}");
        }
        let values: std::collections::HashSet<Wdl> = moves.iter().map(|&(_, v)| v).collect();
        mixed += (values.len() > 1) as u32;
    }
    assert!(
        mixed >= 5,
        "only {mixed} positions where the moves differ in value"
    );
}

#[test]
fn agrees_with_the_engine_where_it_proves_a_result() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut solver = Solver::new(&tb, NINE, 16).unwrap();
    let mut engine = Engine::with_hash_mb(16);
    assert_eq!(engine.set_table_path(tables().to_str(), NINE), Ok(6));
    let mut rng = StdRng::seed_from_u64(13);
    let mut proven: HashMap<Wdl, u32> = HashMap::new();
    for i in 0..60 {
        let (board, hand) = SMALL[i % SMALL.len()];
        let pos = random_placing(NINE, &mut rng, board, hand);
        let value = solver.solve(&pos).unwrap().value;
        engine.clear();
        let limits = Limits {
            depth: Some(8),
            multipv: 1,
            ..Limits::default()
        };
        let r = engine.search(&Game::new(pos), &limits, Box::new(|_| {}));
        let claim = match Score::from_internal(r.score) {
            Score::Mate(n) if n > 0 => Some(Wdl::Win),
            Score::Mate(_) => Some(Wdl::Loss),
            Score::Cp(c) if c >= TB_BOUND => Some(Wdl::Win),
            Score::Cp(c) if c <= -TB_BOUND => Some(Wdl::Loss),
            Score::Cp(_) => None,
        };
        if let Some(claim) = claim {
            assert_eq!(
                claim,
                value,
                "{pos}: engine {:?}",
                Score::from_internal(r.score)
            );
            *proven.entry(claim).or_insert(0) += 1;
        }
    }
    assert!(
        proven.get(&Wdl::Win).copied().unwrap_or(0) >= 3
            && proven.get(&Wdl::Loss).copied().unwrap_or(0) >= 3,
        "too few proven results to compare: {proven:?}"
    );
}

#[test]
fn reports_progress_and_bounds_its_table() {
    let tb = Tablebase::open(tables()).unwrap();
    // Eight plies of placing from the empty board, with a table of four entries: hundreds of
    // thousands of nodes, the table full and replacing all the time.
    let pos = Position::from_fen(".../.../.../....../.../.../... w 4 4 0 6", NINE).unwrap();
    let mut reports = Vec::new();
    let (value, nodes) = {
        let mut solver = Solver::with_entries(&tb, NINE, 4);
        solver.set_progress(std::time::Duration::ZERO, |p| reports.push(p.nodes));
        let s = solver.solve(&pos).unwrap();
        let tt = solver.tt_stats();
        assert_eq!((tt.capacity, tt.used), (4, 4), "{tt:?}");
        assert!(tt.replaced > 1000, "{tt:?}");
        (s.value, s.nodes)
    };
    assert!(reports.last().is_some_and(|&n| n <= nodes), "{reports:?}");
    assert!(reports.len() >= 10, "{} reports", reports.len());
    assert!(reports.windows(2).all(|w| w[0] < w[1]), "nodes only grow");
    // A roomy table finds the same value.
    let mut roomy = Solver::new(&tb, NINE, 16).unwrap();
    assert_eq!(roomy.solve(&pos).unwrap().value, value);
}

#[test]
fn a_missing_table_is_an_error_not_a_value() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut solver = Solver::new(&tb, NINE, 1).unwrap();
    // Four a side and one each in hand: every leaf has at least 4v4 plus the pieces placed,
    // so 5v5, 5v4 or 4v5 (no files) must be reached, or a mill of the last placement (4v4).
    let mut rng = StdRng::seed_from_u64(14);
    for _ in 0..5 {
        let pos = random_placing(NINE, &mut rng, (4, 4), (1, 1));
        let err = solver.solve(&pos).expect_err("no value without the tables");
        let SolveError::MissingTable { own, opp, fen, .. } = &err else {
            panic!("{pos}: {err}");
        };
        assert!(*own + *opp == 9 || *own + *opp == 10, "{own}v{opp}");
        let leaf = Position::from_fen(fen, NINE).unwrap();
        assert!(
            leaf.is_moving_phase() && tb.probe_wdl(&leaf).is_none(),
            "{fen}"
        );
        assert!(err.to_string().contains(&format!("{own}v{opp}")), "{err}");
        assert!(solver.keeping_moves(&pos).is_err());
    }
    // The same positions with another rule set's tables: refused.
    let pos = random_placing(Rules::new(Variant::Nine, false), &mut rng, (2, 2), (2, 2));
    assert!(matches!(
        solver.solve(&pos),
        Err(SolveError::WrongRules { .. })
    ));
}

#[test]
fn a_moving_phase_position_gets_the_tables_value() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut solver = Solver::new(&tb, NINE, 1).unwrap();
    let mut rng = StdRng::seed_from_u64(15);
    let mut seen: HashMap<Wdl, u32> = HashMap::new();
    for i in 0..600 {
        if seen.len() == 3 && seen.values().all(|&n| n >= 5) {
            break;
        }
        let (w, b) = [(3, 3), (3, 4), (4, 3), (4, 4), (3, 5), (5, 3)][i % 6];
        let base = random_placing(NINE, &mut rng, (w, b), (0, 0));
        // Either side to move, and counters near the end too, where a distant win is a draw.
        let counter = [0, 40, 90, 99][i % 4];
        let side = ["w", "b"][i / 6 % 2];
        let board = base.to_fen();
        let board = board.split(' ').next().unwrap();
        let pos = Position::from_fen(&format!("{board} {side} 0 0 {counter} 80"), NINE).unwrap();
        if pos.outcome().is_some() {
            continue;
        }
        let table = tb.probe(&pos).expect("covered").wdl.real();
        let s = solver.solve(&pos).unwrap();
        assert_eq!(s.value, table, "{pos}");
        *seen.entry(table).or_insert(0) += 1;
        // Move values one ply on, against the tables' own root probe.
        let root = tb.probe_root(&pos).expect("children covered");
        let mut mine = solver.keeping_moves(&pos).unwrap();
        let mut theirs: Vec<_> = root.moves.iter().map(|&(m, p)| (m, p.wdl.real())).collect();
        mine.sort_by_key(|&(m, _)| m.to_u16());
        theirs.sort_by_key(|&(m, _)| m.to_u16());
        assert_eq!(mine, theirs, "{pos}");
    }
    assert!(
        seen.len() == 3 && seen.values().all(|&n| n >= 5),
        "wins, draws and losses all sampled: {seen:?}"
    );
}

#[test]
fn a_full_twelve_board_after_placing_is_a_draw_without_tables() {
    // Black places the last of 24 pieces where it closes no mill: nobody can move, a draw,
    // and no table is asked (the directory is empty).
    let rules = Rules::new(Variant::Twelve, true);
    let empty = std::env::temp_dir().join(format!("millstone-solve-none-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let tb = Tablebase::open(&empty).unwrap();
    let mut solver = Solver::new(&tb, rules, 1).unwrap();
    let mut rng = StdRng::seed_from_u64(16);
    let mut tried = 0;
    loop {
        let pos = random_placing(rules, &mut rng, (12, 11), (0, 1));
        let mv = pos.legal_moves()[0];
        if mv.removal().is_some() {
            continue;
        }
        tried += 1;
        let s = solver.solve(&pos).unwrap();
        assert_eq!(s.value, Wdl::Draw, "{pos}");
        assert_eq!(solver.keeping_moves(&pos).unwrap(), vec![(mv, Wdl::Draw)]);
        if tried == 3 {
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&empty);
}

/// Late in the placing phase the engine keeps the exact value: with at most four pieces in
/// hand it plays only moves the solver says keep the position's value, even at a depth far
/// too shallow to see the end of placing.
#[test]
fn the_engine_keeps_the_value_late_in_the_placing_phase() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut solver = Solver::new(&tb, NINE, 16).unwrap();
    let mut engine = Engine::with_hash_mb(16);
    assert_eq!(engine.set_table_path(tables().to_str(), NINE), Ok(6));
    let mut rng = StdRng::seed_from_u64(21);
    let (mut restricted, mut values) = (0, HashMap::new());
    for i in 0..80 {
        let (board, hand) = SMALL[i % SMALL.len()];
        let pos = random_placing(NINE, &mut rng, board, hand);
        let moves = solver.keeping_moves(&pos).unwrap();
        let Some(best) = moves.iter().map(|&(_, v)| v).max() else {
            continue;
        };
        *values.entry(best).or_insert(0) += 1;
        engine.clear();
        let limits = Limits {
            depth: Some(1),
            multipv: 1,
            ..Limits::default()
        };
        let r = engine.search(&Game::new(pos), &limits, Box::new(|_| {}));
        let m = r.best.expect("a move");
        let v = moves
            .iter()
            .find(|&&(x, _)| x == m)
            .expect("a legal move")
            .1;
        assert_eq!(v, best, "{pos}: {m} gives {v:?}, the position is {best:?}");
        restricted += moves.iter().any(|&(_, v)| v != best) as u32;
    }
    // Positions where some move spoils the value: the test means something there.
    assert!(
        restricted >= 10,
        "{restricted} positions with a losing choice"
    );
    assert!(values.len() >= 2, "{values:?}");
}

/// A deadline ends a solve with `OutOfTime`, and the same solver still solves without one.
#[test]
fn a_deadline_ends_a_solve() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut solver = Solver::new(&tb, NINE, 16).unwrap();
    let pos = Position::from_fen(".../.../.../....../.../.../... w 4 4 0 6", NINE).unwrap();
    solver.set_deadline(Some(std::time::Instant::now()));
    assert_eq!(solver.solve(&pos).unwrap_err(), SolveError::OutOfTime);
    solver.set_deadline(None);
    assert_eq!(solver.solve(&pos).unwrap().value, Wdl::Draw);
}

/// The same position seen in a mirror: every rank of the position string reversed (the board's
/// left-right symmetry).
fn mirrored(pos: &Position) -> Position {
    let fen = pos.to_fen();
    let (board, rest) = fen.split_once(' ').unwrap();
    let board: Vec<String> = board
        .split('/')
        .map(|r| r.chars().rev().collect())
        .collect();
    Position::from_fen(&format!("{} {rest}", board.join("/")), pos.rules()).unwrap()
}

#[test]
fn symmetric_keys_agree_with_plain_keys_and_mirror_their_moves() {
    let tb = Tablebase::open(tables()).unwrap();
    let snap = tb.snapshot(NINE);
    let mut sym = Solver::new(&tb, NINE, 4).unwrap();
    let mut plain = Solver::new(&tb, NINE, 4).unwrap();
    plain.set_symmetry(false);
    let mut rng = StdRng::seed_from_u64(23);
    for i in 0..40 {
        let (board, hand) = SMALL[i % SMALL.len()];
        let pos = random_placing(NINE, &mut rng, board, hand);
        let a = sym.solve(&pos).unwrap();
        let b = plain.solve(&pos).unwrap();
        assert_eq!(a.value, b.value, "{pos}");
        // The mirror image shares the table entry: its answer comes from the entry stored
        // for `pos`, and the move must be mapped into the mirror's orientation to be legal
        // there and keep the value.
        let m = mirrored(&pos);
        let c = sym.solve(&m).unwrap();
        assert_eq!(c.value, a.value, "{m}");
        // One node per null-window question: the root's entry answers both.
        assert!(
            c.nodes <= 2,
            "{m}: {} nodes, the entry of {pos} was not shared",
            c.nodes
        );
        if let Some(mv) = c.best {
            assert!(m.legal_moves().contains(mv), "{m}: {mv} is not legal");
            let mut child = m;
            child.make(mv);
            assert_eq!(
                -naive(&child, &snap),
                value_of(c.value),
                "{m}: {mv} spoils it"
            );
        }
    }
}

#[test]
fn a_checkpoint_resumes_and_a_damaged_one_is_refused() {
    let tb = Tablebase::open(tables()).unwrap();
    let dir = std::env::temp_dir().join(format!("millstone-ck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("start.ck");
    let pos = Position::from_fen(".../.../.../....../.../.../... w 4 4 0 6", NINE).unwrap();
    let mut first = Solver::new(&tb, NINE, 16).unwrap();
    first.set_checkpoint(&path, std::time::Duration::from_secs(3600));
    let full = first.solve(&pos).unwrap();
    assert!(
        full.nodes > 1000,
        "{} nodes: too small to test a resume",
        full.nodes
    );
    // The solve's end wrote the checkpoint.
    let mut resumed = Solver::new(&tb, NINE, 16).unwrap();
    assert!(resumed.load_checkpoint(&path).unwrap() > 0);
    let again = resumed.solve(&pos).unwrap();
    assert_eq!(again.value, full.value);
    assert!(
        again.nodes * 10 < full.nodes,
        "{} vs {} nodes",
        again.nodes,
        full.nodes
    );

    let mut plain = Solver::new(&tb, NINE, 16).unwrap();
    plain.set_symmetry(false);
    let e = plain.load_checkpoint(&path).unwrap_err();
    assert!(e.to_string().contains("symmetry"), "{e}");

    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    let damaged = dir.join("damaged.ck");
    std::fs::write(&damaged, &bytes).unwrap();
    let e = Solver::new(&tb, NINE, 16)
        .unwrap()
        .load_checkpoint(&damaged)
        .unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    std::fs::write(&damaged, &bytes[..bytes.len() - 3]).unwrap();
    assert!(Solver::new(&tb, NINE, 16)
        .unwrap()
        .load_checkpoint(&damaged)
        .is_err());
    let twelve = Rules::new(Variant::Twelve, true);
    let e = Solver::new(&tb, twelve, 16)
        .unwrap()
        .load_checkpoint(&path)
        .unwrap_err();
    assert!(e.to_string().contains("rules"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Earlier in the placing phase (four to six in hand) the engine solves the root within its time,
/// searches only the moves that keep the value and reports the verdict as its score: the
/// tables' convention with P = plies left to the moving phase.
#[test]
fn the_engine_reports_the_solved_verdict_in_the_placing_phase() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut solver = Solver::new(&tb, NINE, 16).unwrap();
    let mut engine = Engine::with_hash_mb(16);
    engine.set_table_path(tables().to_str(), NINE).unwrap();
    let mut rng = StdRng::seed_from_u64(33);
    let mut seen = HashMap::new();
    const EARLY: [((u32, u32), (u8, u8)); 3] =
        [((1, 1), (3, 3)), ((2, 1), (2, 3)), ((1, 2), (2, 2))];
    for i in 0..18 {
        let (board, hand) = EARLY[i % EARLY.len()];
        let pos = random_placing(NINE, &mut rng, board, hand);
        let (value, keep) = solver.value_keeping(&pos).unwrap();
        let plies = (hand.0 + hand.1) as i32;
        let expect = match value {
            Wdl::Win => TB_WIN - plies,
            Wdl::Loss => -(TB_WIN - plies),
            _ => 0,
        };
        let limits = Limits {
            clock: millstone::timeman::Clock {
                movetime: Some(std::time::Duration::from_millis(400)),
                ..Default::default()
            },
            ..Limits::default()
        };
        let scores = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let r = engine.search(&Game::new(pos), &limits, Box::new(|_| {}));
        let sink = scores.clone();
        engine.search(
            &Game::new(pos),
            &Limits {
                depth: Some(2),
                ..Limits::default()
            },
            Box::new(move |i| sink.lock().unwrap().push(i.score)),
        );
        let scores = scores.lock().unwrap().clone();
        assert_eq!(r.score, expect, "{pos}");
        assert!(
            !scores.is_empty() && scores.iter().all(|&s| s == expect),
            "{pos}: {scores:?}"
        );
        assert!(
            keep.contains(&r.best.unwrap()),
            "{pos}: {:?} spoils {value:?}",
            r.best
        );
        *seen.entry(value).or_insert(0) += 1;
    }
    assert!(seen.len() >= 2, "{seen:?}");
}

/// A book (the proven values a solve saved) given by `BookPath` is read and checked when the
/// option is set; a damaged one is an error and the engine plays on without it.
#[test]
fn book_path_loads_a_book_and_refuses_a_damaged_one() {
    let tb = Tablebase::open(tables()).unwrap();
    let dir = std::env::temp_dir().join(format!("millstone-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("book.bin");
    let fen = ".../.../.../....../.../.../... w 4 4 0 6";
    let pos = Position::from_fen(fen, NINE).unwrap();
    let mut solver = Solver::new(&tb, NINE, 16).unwrap();
    let (value, keep) = solver.value_keeping(&pos).unwrap();
    assert_eq!(value, Wdl::Draw);
    let entries = solver.save_checkpoint(&book).unwrap();
    let mut bytes = std::fs::read(&book).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 1;
    let damaged = dir.join("damaged.bin");
    std::fs::write(&damaged, &bytes).unwrap();

    let mut e = engine_process::Engine::start();
    e.send(&format!(
        "setoption name TablePath value {}",
        tables().display()
    ));
    e.send(&format!("setoption name BookPath value {}", book.display()));
    let lines = e.sync();
    let want = format!(
        "info string book: {entries} proven positions of nine (flying on) in {}",
        book.display()
    );
    assert!(lines.contains(&want), "{lines:?}");
    e.send(&format!("position fen {fen}"));
    let lines = e.go("movetime 300");
    let best = engine_process::bestmove_of(&lines);
    assert!(keep.iter().any(|m| m.to_string() == best), "{best}");
    assert!(
        lines
            .iter()
            .filter(|l| l.starts_with("info depth"))
            .all(|l| l.contains("score cp 0 ")),
        "{lines:?}"
    );
    e.send(&format!(
        "setoption name BookPath value {}",
        damaged.display()
    ));
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error") && l.contains("checksum")),
        "{lines:?}"
    );
    e.send("setoption name BookPath value /no/such/book");
    assert!(e.sync().iter().any(|l| l.contains("BookPath")));
    e.send(&format!("position fen {fen}"));
    let lines = e.go("depth 1");
    assert!(!engine_process::bestmove_of(&lines).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `UltraStrong` off the engine plays the first value-keeping move (the solver's own)
/// instead of letting the search choose among them.
#[test]
fn without_the_ultra_strong_choice_the_first_keeping_move_is_played() {
    let tb = Tablebase::open(tables()).unwrap();
    let mut rng = StdRng::seed_from_u64(41);
    let mut differs = 0;
    let limits = Limits {
        depth: Some(3),
        ..Limits::default()
    };
    for i in 0..30 {
        let (board, hand) = SMALL[i % SMALL.len()];
        let pos = random_placing(NINE, &mut rng, board, hand);
        // A fresh solver and a fresh engine (whose solver starts empty too) prove the same
        // things in the same order, so the first keeping move is the same.
        let (_, keep) = Solver::new(&tb, NINE, 16)
            .unwrap()
            .value_keeping(&pos)
            .unwrap();
        let mut engine = Engine::with_hash_mb(16);
        engine.set_table_path(tables().to_str(), NINE).unwrap();
        engine.set_solve_hash_mb(16);
        engine.set_ultra_strong(false);
        let first = engine.search(&Game::new(pos), &limits, Box::new(|_| {}));
        // The last placement leads into the tables alone: their move is the first there.
        let expect = match tb.probe_root(&pos) {
            Some(root) => Some(root.best),
            None => keep.first().copied(),
        };
        assert_eq!(first.best, expect, "{pos}");
        engine.set_ultra_strong(true);
        let chosen = engine.search(&Game::new(pos), &limits, Box::new(|_| {}));
        assert!(keep.contains(&chosen.best.unwrap()), "{pos}");
        differs += (chosen.best != first.best) as u32;
    }
    assert!(differs > 0, "the search never chose another keeping move");
}

/// A solve cut short after the value still yields proven keeping moves (the solver's own
/// first), and each one keeps the value.
#[test]
fn a_solve_cut_short_keeps_the_moves_it_proved() {
    let tb = Tablebase::open(tables()).unwrap();
    let snap = tb.snapshot(NINE);
    let mut rng = StdRng::seed_from_u64(43);
    let (mut partial, mut checked) = (0, 0);
    for i in 0..40 {
        let (board, hand) = SMALL[i % SMALL.len()];
        let pos = random_placing(NINE, &mut rng, board, hand);
        let mut solver = Solver::new(&tb, NINE, 16).unwrap();
        // The value first, then a stop before the moves: only what the value's search proved.
        let value = solver.solve(&pos).unwrap().value;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        solver.set_stop(Some(stop));
        match solver.value_keeping_partly(&pos) {
            Ok((v, keep, complete)) => {
                assert_eq!(v, value, "{pos}");
                partial += !complete as u32;
                for m in keep {
                    let mut child = pos;
                    child.make(m);
                    assert_eq!(-naive(&child, &snap), value_of(v), "{pos}: {m} spoils it");
                    checked += 1;
                }
            }
            Err(e) => assert_eq!(e, SolveError::OutOfTime, "{pos}"),
        }
    }
    assert!(
        partial > 5 && checked > 5,
        "{partial} partial, {checked} moves"
    );
}

/// What the table proves without a search (the engine's fallback when a solve is cut short
/// before the value): never more than the value, and each of its moves reaches it, checked by
/// the plain negamax; after a full solve of the moves, it is the value itself where that is a
/// draw or a win.
#[test]
fn the_proven_floor_never_promises_more_than_the_value() {
    let tb = Tablebase::open(tables()).unwrap();
    let snap = tb.snapshot(NINE);
    let mut rng = StdRng::seed_from_u64(47);
    let (mut partial, mut full, mut moves) = (0, 0, 0);
    for i in 0..60 {
        let (board, hand) = SMALL[i % SMALL.len()];
        let pos = random_placing(NINE, &mut rng, board, hand);
        let value = naive(&pos, &snap);
        let mut solver = Solver::new(&tb, NINE, 16).unwrap();
        let check = |floor: Wdl, keep: &[Move]| {
            assert!(
                value_of(floor) <= value,
                "{pos}: floor {floor:?}, value {value}"
            );
            assert!(!keep.is_empty(), "{pos}");
            for &m in keep {
                let mut child = pos;
                child.make(m);
                assert!(-naive(&child, &snap) >= value_of(floor), "{pos}: {m}");
            }
            keep.len()
        };
        // After the value alone: what its search left in the table.
        solver.solve(&pos).unwrap();
        if let Some((floor, keep)) = solver.proven_floor(&pos) {
            moves += check(floor, &keep);
            partial += 1;
        }
        // After every move's question: exactly the value, where there is one to keep.
        let (v, keep) = solver.value_keeping(&pos).unwrap();
        match solver.proven_floor(&pos) {
            Some((floor, floor_moves)) => {
                assert_eq!(floor, v, "{pos}");
                check(floor, &floor_moves);
                assert!(floor_moves.iter().all(|m| keep.contains(m)), "{pos}");
                full += 1;
            }
            None => assert_eq!(v, Wdl::Loss, "{pos}"),
        }
    }
    assert!(
        partial > 5 && full > 10 && moves > 10,
        "{partial} {full} {moves}"
    );
}
