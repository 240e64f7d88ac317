//! The placing-phase tables: made from small moving-phase sets, they agree with the alpha-beta
//! solver (a different algorithm) on every position, with their own one-ply re-derivation, and
//! through `Tablebase`'s probes; damaged files are refused.

mod small_tables;

use millstone::solve::Solver;
use millstone::tablebase::placing::{self, wdl_of_digit, PlacingFile, Sector};
use millstone::tablebase::Tablebase;
use millstone::{Position, Rules, Variant};
use std::path::{Path, PathBuf};

/// Every position of a game of this much material (pieces of both sides, board and hand) at
/// most: the moving phase's sub-spaces up to 8 pieces take seconds.
const MATERIAL: u8 = 8;

/// The moving phase's tables up to `MATERIAL` pieces, then the placing sectors, in a fresh
/// directory.
fn tables(rules: Rules, name: &str) -> PathBuf {
    small_tables::make(rules, MATERIAL, &format!("placing-{name}"))
}

/// An engine over the tables of `dir`, their files checked, with `choice` if given.
fn engine_on(
    dir: &Path,
    rules: Rules,
    choice: Option<millstone::engine::TableChoice>,
) -> millstone::engine::Engine {
    let mut engine = millstone::engine::Engine::with_hash_mb(8);
    engine.set_table_path(dir.to_str(), rules).unwrap();
    engine.wait_for_tables();
    if let Some(c) = choice {
        engine.set_table_choice(c);
    }
    engine
}

/// The sectors the table-choice tests draw their roots from: those of more than 1,000
/// positions, where the roots have moves to choose among.
fn choice_sectors(rules: Rules) -> Vec<Sector> {
    Sector::all(rules, MATERIAL)
        .into_iter()
        .filter(|s| s.slots() > 1000)
        .collect()
}

/// Every position of a sector with this much material at most is compared with the solver;
/// of the bigger sectors, a random sample.
const SOLVE_ALL: u8 = 6;

/// Positions of the bigger sectors compared with the solver.
const SOLVE_SAMPLE: u64 = 2000;

/// The file's value is the solver's: on every canonical position of the sectors with material
/// up to `SOLVE_ALL`, and on `SOLVE_SAMPLE` random canonical positions of the others; every
/// sector passes its one-ply re-derivation. Returns the positions compared.
fn agrees_with_the_solver(rules: Rules, dir: &Path) -> u64 {
    use rand::{Rng, SeedableRng};
    let tb = Tablebase::open(dir).unwrap();
    let mut solver = Solver::new(&tb, rules, 64).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let mut checked = 0;
    let mut compare = |s: Sector, slot: u32, digits: &[u8]| {
        let (pos, canonical) = placing::position_of_slot(s, slot);
        if !canonical {
            return false;
        }
        let solved = solver.solve(&pos).unwrap().value;
        assert_eq!(
            wdl_of_digit(digits[slot as usize]),
            solved,
            "{s} slot {slot}: {pos}"
        );
        // The probe a user makes reads the same slot through the position.
        assert_eq!(tb.wdl(&pos), Some(solved), "{pos}");
        true
    };
    let sectors = Sector::all(rules, MATERIAL);
    let big: u64 = sectors
        .iter()
        .filter(|s| s.material() > SOLVE_ALL)
        .map(|s| s.slots())
        .sum();
    for &s in &sectors {
        let f = PlacingFile::open(&dir.join(s.file_name()), s).unwrap();
        let digits = f.read_all().unwrap();
        if s.material() <= SOLVE_ALL {
            for slot in 0..digits.len() as u32 {
                checked += compare(s, slot, &digits) as u64;
            }
        } else {
            // A share of the sample by the sector's size.
            let k = (SOLVE_SAMPLE * s.slots()).div_ceil(big);
            for _ in 0..k {
                checked += compare(s, rng.gen_range(0..digits.len() as u32), &digits) as u64;
            }
        }
        assert_eq!(
            placing::verify_sector(&tb, s, None).unwrap(),
            digits.len() as u64
        );
        assert!(placing::verify_sector(&tb, s, Some((50, 3))).is_ok());
    }
    checked
}

#[test]
fn nine_agrees_with_the_solver() {
    let rules = Rules::new(Variant::Nine, true);
    let dir = tables(rules, "nine");
    let n = agrees_with_the_solver(rules, &dir);
    assert!(n > 3000, "{n} positions");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nine_without_flying_and_twelve_agree_with_the_solver() {
    for (rules, name) in [
        (Rules::new(Variant::Nine, false), "nofly"),
        (Rules::new(Variant::Twelve, true), "twelve"),
    ] {
        let dir = tables(rules, name);
        agrees_with_the_solver(rules, &dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn root_probe_values_every_placement() {
    let rules = Rules::default();
    let dir = tables(rules, "root");
    let tb = Tablebase::open(&dir).unwrap();
    // Two pieces each in hand, two on the board each: the last four placements.
    let pos = Position::from_fen("W../.../.../B....B/.../W../... w 2 2 0 8", rules).unwrap();
    let root = tb.probe_root(&pos).expect("covered");
    assert_eq!(root.moves.len(), pos.legal_moves().len());
    let mut solver = Solver::new(&tb, rules, 16).unwrap();
    for (m, p) in &root.moves {
        let mut child = pos;
        child.make(*m);
        let v = solver.solve(&child).unwrap().value.flip();
        assert_eq!(p.wdl, v, "{m}");
    }
    assert_eq!(root.probe.wdl, solver.solve(&pos).unwrap().value);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_and_truncated_files_are_refused() {
    let rules = Rules::default();
    let dir = tables(rules, "damaged");
    let s = Sector::new(rules, 17, 3, 4).unwrap();
    let path = dir.join(s.file_name());
    let good = std::fs::read(&path).unwrap();
    assert!(placing::file_is_valid(&path, s).is_ok());
    // A byte flipped in the last block: the header and index are fine, the block is not.
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x55;
    std::fs::write(&path, &bad).unwrap();
    let e = placing::file_is_valid(&path, s).unwrap_err().to_string();
    assert!(e.contains("damaged"), "{e}");
    // Cut short: refused at open.
    std::fs::write(&path, &good[..good.len() - 10]).unwrap();
    let e = PlacingFile::open(&path, s).unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
    // Another sector's file under this name.
    let other = Sector::new(rules, 17, 4, 3).unwrap();
    std::fs::copy(dir.join(other.file_name()), &path).unwrap();
    assert!(PlacingFile::open(&path, s).is_err());
    // A truncated file is solved again by a new run, to the same bytes.
    std::fs::write(&path, &good[..100]).unwrap();
    let reports = placing::generate(&dir, rules, MATERIAL, |_| {}).unwrap();
    assert_eq!(reports.iter().filter(|r| !r.kept).count(), 1);
    assert_eq!(std::fs::read(&path).unwrap(), good);
    // The probe of a position in a damaged file gives no answer, and never a wrong one.
    let mut bad = good.clone();
    for b in bad[good.len() / 2..].iter_mut() {
        *b ^= 0xff;
    }
    std::fs::write(&path, &bad).unwrap();
    let tb = Tablebase::open(&dir).unwrap();
    let f = tb.placing_table(s).expect("header and index are intact");
    let n = f.header().stats.slots as u32;
    let answered = (0..n).filter(|&slot| f.digit_at(slot).is_ok()).count() as u32;
    assert!(answered < n);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_engine_plays_only_value_keeping_placements_at_one_millisecond() {
    use millstone::search::{Limits, Score, TB_BOUND};
    use millstone::Game;
    use std::time::Duration;
    let rules = Rules::default();
    let dir = tables(rules, "engine");
    let tb = Tablebase::open(&dir).unwrap();
    let mut engine = engine_on(&dir, rules, None);
    let mut seen = std::collections::HashSet::new();
    // Random placing positions of the covered sectors: each move the engine picks at 1 ms
    // keeps the tables' value, and its score is the verdict (the solved convention).
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let sectors = choice_sectors(rules);
    for i in 0..60 {
        let s = sectors[i % sectors.len()];
        let (pos, _) = placing::position_of_slot(s, rng.gen_range(0..s.slots()) as u32);
        let root = tb.probe_root(&pos).expect("covered");
        // The reads run on a thread of their own for 0.75 ms; where the test's neighbours
        // starve that thread of the CPU, the engine plays from what it read, or by its search
        // alone (docs/clock.md), as once in a CI run. So a position has three tries: tables
        // the engine did not consult would fail all three.
        let mut failures = Vec::new();
        for _ in 0..3 {
            let mut limits = Limits::default();
            limits.clock.movetime = Some(Duration::from_millis(1));
            let r = engine.search(&Game::new(pos), &limits, Box::new(|_| {}));
            let best = r.best.expect("a move");
            let kept = root.moves.iter().find(|(m, _)| *m == best).unwrap().1.wdl;
            // A search that sees the game end first (a last placement whose mill leaves the
            // opponent two pieces, or that blocks it) reports that mate, exact too
            // (protocol.md: `mate` is the search's own).
            let exact = match (root.probe.wdl, Score::from_internal(r.score)) {
                (millstone::tablebase::Wdl::Win, Score::Cp(c)) => c >= TB_BOUND,
                (millstone::tablebase::Wdl::Win, Score::Mate(n)) => n > 0,
                (millstone::tablebase::Wdl::Loss, Score::Cp(c)) => c <= -TB_BOUND,
                (millstone::tablebase::Wdl::Loss, Score::Mate(n)) => n < 0,
                (_, Score::Cp(c)) => c == 0,
                _ => false,
            };
            if kept == root.probe.wdl && exact {
                failures.clear();
                break;
            }
            failures.push(format!(
                "{best} keeps {kept:?} of {:?}, scored {}",
                root.probe.wdl, r.score
            ));
        }
        assert!(failures.is_empty(), "{pos}: {failures:?}");
        seen.insert(root.probe.wdl);
    }
    assert!(seen.len() >= 2, "{seen:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `TableChoice` set, the engine's placement keeps the value and is one of the keeping
/// moves the choice ranks best, counted here from the tables' values one ply on.
#[test]
fn table_choices_keep_the_value_and_rank_the_opponents_replies() {
    use millstone::engine::TableChoice;
    use millstone::search::Limits;
    use millstone::Game;
    use rand::{Rng, SeedableRng};
    use std::time::Duration;
    let rules = Rules::default();
    let dir = tables(rules, "choice");
    let tb = Tablebase::open(&dir).unwrap();
    let sectors = choice_sectors(rules);
    // (replies keeping the opponent's value, replies) after a move.
    let counts = |pos: &Position, m| {
        let mut child = *pos;
        child.make(m);
        if child.outcome().is_some() {
            return (0u64, 1u64);
        }
        let r = tb.probe_root(&child).expect("covered");
        let kept = r
            .moves
            .iter()
            .filter(|(_, p)| p.wdl.real() == r.probe.wdl.real());
        (kept.count() as u64, r.moves.len() as u64)
    };
    let mut narrowed = 0;
    for choice in [TableChoice::FewestKeeping, TableChoice::MostFailing] {
        let mut engine = engine_on(&dir, rules, Some(choice));
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        for i in 0..40 {
            let s = sectors[i % sectors.len()];
            let (pos, _) = placing::position_of_slot(s, rng.gen_range(0..s.slots()) as u32);
            let root = tb.probe_root(&pos).expect("covered");
            let keeping: Vec<_> = root
                .moves
                .iter()
                .filter(|(_, p)| p.wdl.real() == root.probe.wdl.real())
                .map(|&(m, _)| (m, counts(&pos, m)))
                .collect();
            // Time enough to read the replies' values (the choice needs them all: cut short,
            // the engine keeps every keeping move, and its search picks one).
            let mut limits = Limits::default();
            limits.clock.movetime = Some(Duration::from_millis(100));
            let best = engine
                .search(&Game::new(pos), &limits, Box::new(|_| {}))
                .best
                .expect("a move");
            let (_, c) = *keeping
                .iter()
                .find(|(m, _)| *m == best)
                .unwrap_or_else(|| panic!("{pos}: {best} gives the value away"));
            let is_best = keeping.iter().all(|&(_, o)| match choice {
                TableChoice::FewestKeeping => c.0 <= o.0,
                _ => c.0 * o.1 <= o.0 * c.1,
            });
            assert!(is_best, "{choice:?} {pos}: {best} {c:?} among {keeping:?}");
            narrowed += keeping.iter().any(|&(_, o)| o != c) as u32;
        }
    }
    // The choice had something to choose from in some positions, or the test shows nothing.
    assert!(narrowed >= 5, "{narrowed}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `TableChoice mirror` a drawn placing root's move keeps the draw, and where our own
/// search at `MIRROR_DEPTH` plies, as the opponent, answers some drawing move with a losing
/// reply (the tables say so), the move played is one of those traps.
#[test]
fn the_mirror_choice_keeps_the_value_and_plays_the_models_traps() {
    use millstone::engine::TableChoice;
    use millstone::fallible::MIRROR_DEPTH;
    let all = |_: &Tablebase, _: &Position, _: &[millstone::Move]| true;
    traps_choice_plays_the_models_traps(
        TableChoice::Mirror,
        "mirror",
        300,
        3,
        all,
        |tb, pos, keeping| {
            let traps: Vec<_> = keeping
                .iter()
                .copied()
                .filter(|&m| answer_loses(tb, pos, m, MIRROR_DEPTH))
                .collect();
            traps
        },
    );
}

/// With `TableChoice crowd` a drawn placing root's move keeps the draw, and where
/// `CROWD_MIN_VOTES` players of the crowd answer a drawing move with a losing reply, the move
/// played is one that the most players answer so. With the hand-tuned evaluation, as in the
/// engine below, the crowd's network players search with it too. The 8-ply players make a
/// root cost about fifty times a mirror root, so the roots are those where a 2-ply player
/// finds a trap, and one in ten of the others.
#[test]
fn the_crowd_choice_keeps_the_value_and_plays_the_most_voted_traps() {
    use millstone::engine::TableChoice;
    use millstone::fallible::{CROWD, CROWD_MIN_VOTES};
    let mut seen = 0;
    let likely = move |tb: &Tablebase, pos: &Position, keeping: &[millstone::Move]| {
        seen += 1;
        seen % 10 == 0 || keeping.iter().any(|&m| answer_loses(tb, pos, m, 2))
    };
    traps_choice_plays_the_models_traps(
        TableChoice::Crowd,
        "crowd",
        24,
        5,
        likely,
        |tb, pos, keeping| {
            let votes: Vec<usize> = keeping
                .iter()
                .map(|&m| {
                    CROWD
                        .iter()
                        .filter(|p| answer_loses(tb, pos, m, p.depth))
                        .count()
                })
                .collect();
            let top = votes.iter().copied().max().unwrap_or(0);
            let most: Vec<_> = keeping
                .iter()
                .zip(&votes)
                .filter(|&(_, &v)| v == top && top >= CROWD_MIN_VOTES as usize)
                .map(|(&m, _)| m)
                .collect();
            most
        },
    );
}

/// Whether our own search without tables (hand-tuned evaluation, a fresh search), `depth`
/// plies deep as the opponent after our drawing move `m`, answers with a reply that loses.
fn answer_loses(tb: &Tablebase, pos: &Position, m: millstone::Move, depth: u8) -> bool {
    use millstone::fallible::{Judge, OpponentModel};
    use millstone::tablebase::Wdl;
    use std::sync::atomic::AtomicBool;
    let mut child = *pos;
    child.make(m);
    if child.outcome().is_some() {
        return false;
    }
    let never = AtomicBool::new(false);
    let judge = Judge::new(tb, None, OpponentModel::with_depth(depth));
    let reply = judge.answer(&child, depth, &never).expect("a reply");
    tb.probe_move(&child, reply).expect("covered").wdl.real() == Wdl::Loss
}

/// On `roots` drawn placing roots of the small tables that `select` takes, the engine with
/// `choice` (and the
/// hand-tuned evaluation: with the network a shallow search answers nearly every small position
/// of these tables correctly, which leaves no traps to test with) plays a drawing move, and one
/// of `traps(tables, root, drawing moves)` where that is not empty, else the move of the same
/// engine with `TableChoice search` (both searches from an empty table: the choice leaves such
/// roots to the search); at least `min_traps` roots have traps.
fn traps_choice_plays_the_models_traps(
    choice: millstone::engine::TableChoice,
    name: &str,
    roots: u32,
    min_traps: u32,
    mut select: impl FnMut(&Tablebase, &Position, &[millstone::Move]) -> bool,
    traps: impl Fn(&Tablebase, &Position, &[millstone::Move]) -> Vec<millstone::Move>,
) {
    use millstone::search::Limits;
    use millstone::tablebase::Wdl;
    use millstone::Game;
    use rand::{Rng, SeedableRng};
    let rules = Rules::default();
    let dir = tables(rules, name);
    let tb = Tablebase::open(&dir).unwrap();
    let sectors = choice_sectors(rules);
    let mut engine = engine_on(&dir, rules, Some(choice));
    engine.set_use_nnue(false);
    let mut plain = engine_on(&dir, rules, Some(millstone::engine::TableChoice::Search));
    plain.set_use_nnue(false);
    let mut rng = rand::rngs::StdRng::seed_from_u64(23);
    let (mut drawn, mut with_traps) = (0, 0);
    let mut tried = 0;
    while drawn < roots && tried < 20000 {
        tried += 1;
        let s = sectors[tried % sectors.len()];
        let (pos, _) = placing::position_of_slot(s, rng.gen_range(0..s.slots()) as u32);
        let root = tb.probe_root(&pos).expect("covered");
        let value = root.probe.wdl.real();
        let keeping: Vec<_> = root
            .moves
            .iter()
            .filter(|(_, p)| p.wdl.real() == value)
            .map(|&(m, _)| m)
            .collect();
        if value != Wdl::Draw || keeping.len() < 2 || !select(&tb, &pos, &keeping) {
            continue;
        }
        drawn += 1;
        let traps = traps(&tb, &pos, &keeping);
        // No clock: the reads and the models' searches always finish.
        let limits = Limits {
            depth: Some(2),
            ..Limits::default()
        };
        engine.clear();
        let best = engine
            .search(&Game::new(pos), &limits, Box::new(|_| {}))
            .best
            .expect("a move");
        assert!(keeping.contains(&best), "{pos}: {best} gives the draw away");
        if !traps.is_empty() {
            with_traps += 1;
            assert!(
                traps.contains(&best),
                "{choice:?} {pos}: {best} is not among the traps {traps:?}"
            );
        } else {
            plain.clear();
            let searched = plain
                .search(&Game::new(pos), &limits, Box::new(|_| {}))
                .best
                .expect("a move");
            assert_eq!(
                best, searched,
                "{choice:?} {pos}: no traps, not the search's move"
            );
        }
    }
    assert_eq!(drawn, roots, "drawn roots found");
    // Some roots had a trap to set, or the test shows nothing.
    assert!(
        with_traps >= min_traps,
        "{with_traps} of {drawn} drawn roots with a trap"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `TableChoice expected` the engine's placement keeps the value and has the best
/// expected score against the opponent model (within the model's tie); with `sector`, it keeps
/// the value and leads into the sub-space Malom's ranking puts first.
#[test]
fn expected_and_sector_choices_keep_the_value_and_follow_their_ranking() {
    use millstone::engine::TableChoice;
    use millstone::fallible::{self, Judge, OpponentModel};
    use millstone::search::Limits;
    use millstone::tablebase::Wdl;
    use millstone::Game;
    use rand::{Rng, SeedableRng};
    use std::sync::atomic::AtomicBool;
    let rules = Rules::default();
    let dir = tables(rules, "expected");
    let tb = Tablebase::open(&dir).unwrap();
    let net = millstone::nnue::builtin(rules);
    let sectors = choice_sectors(rules);
    let never = AtomicBool::new(false);
    let mut chose = [0u32; 2];
    for (k, choice) in [TableChoice::Expected, TableChoice::Sector]
        .into_iter()
        .enumerate()
    {
        let mut engine = engine_on(&dir, rules, Some(choice));
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        for i in 0..80 {
            let s = sectors[i % sectors.len()];
            let (pos, _) = placing::position_of_slot(s, rng.gen_range(0..s.slots()) as u32);
            let root = tb.probe_root(&pos).expect("covered");
            let value = root.probe.wdl.real();
            let keeping: Vec<_> = root
                .moves
                .iter()
                .filter(|(_, p)| p.wdl.real() == value)
                .map(|&(m, _)| m)
                .collect();
            // No clock: the reads and the model's searches always finish.
            let limits = Limits {
                depth: Some(2),
                ..Limits::default()
            };
            let best = engine
                .search(&Game::new(pos), &limits, Box::new(|_| {}))
                .best
                .expect("a move");
            assert!(
                keeping.contains(&best),
                "{choice:?} {pos}: {best} gives the value away"
            );
            let ranks: Vec<f64> = match choice {
                TableChoice::Expected if value != Wdl::Win && keeping.len() > 1 => {
                    let judge = Judge::new(&tb, net.as_deref(), OpponentModel::default());
                    let depth = OpponentModel::DEFAULT_DEPTH;
                    keeping
                        .iter()
                        .map(|&m| judge.expected_after(&pos, m, depth, &never).unwrap())
                        .collect()
                }
                TableChoice::Sector if value == Wdl::Draw && keeping.len() > 1 => keeping
                    .iter()
                    .map(|&m| fallible::sector_rank(&tb, &pos, m).unwrap())
                    .collect(),
                _ => continue,
            };
            let top = ranks.iter().copied().fold(f64::MIN, f64::max);
            let mine = ranks[keeping.iter().position(|&m| m == best).unwrap()];
            assert!(
                mine >= top - 1e-3,
                "{choice:?} {pos}: {best} ranks {mine} below {top} ({keeping:?} {ranks:?})"
            );
            chose[k] += ranks.iter().any(|&r| r < top - 1e-3) as u32;
        }
    }
    // Each choice had moves to tell apart in some positions, or the test shows nothing.
    assert!(chose.iter().all(|&c| c >= 3), "{chose:?}");
    // The moving phase, random positions of up to four pieces a side: the move keeps the value
    // (a win the fastest, a loss the slowest, a draw one of the drawing moves).
    let mut engine = engine_on(&dir, rules, Some(TableChoice::Expected));
    let mut rng = rand::rngs::StdRng::seed_from_u64(17);
    let mut values = std::collections::HashSet::new();
    let mut tried = 0;
    while tried < 60 {
        let mut points: Vec<u32> = (0..24).collect();
        let (w, b) = (rng.gen_range(3..=4), rng.gen_range(3..=4));
        let mut set = |n: usize| {
            (0..n).fold(0u32, |acc, _| {
                let i = rng.gen_range(0..points.len());
                acc | 1 << points.swap_remove(i)
            })
        };
        let (white, black) = (set(w), set(b));
        let side = if rng.gen_bool(0.5) {
            millstone::Color::White
        } else {
            millstone::Color::Black
        };
        let Ok(pos) = Position::from_sets(rules, white, black, 0, 0, side) else {
            continue;
        };
        let Some(root) = tb.probe_root(&pos) else {
            continue;
        };
        if pos.outcome().is_some() {
            continue;
        }
        tried += 1;
        let limits = Limits {
            depth: Some(2),
            ..Limits::default()
        };
        let best = engine
            .search(&Game::new(pos), &limits, Box::new(|_| {}))
            .best
            .expect("a move");
        let (_, p) = root.moves.iter().find(|(m, _)| *m == best).unwrap();
        assert_eq!(p.wdl.real(), root.probe.wdl.real(), "{pos}: {best}");
        if root.probe.wdl.real() != Wdl::Draw {
            assert_eq!(
                p.value, root.probe.value,
                "{pos}: {best} is not the fastest win or the slowest loss"
            );
        }
        values.insert(root.probe.wdl.real());
    }
    assert_eq!(values.len(), 3, "{values:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A drawn root's search among its drawing placements (`Shared::search_draws`) looks past the
/// tables' draws: where every child is a table draw, the plain search scores the root 0 and
/// learns nothing deeper, while with the flag it searches on to the evaluation of where each
/// draw leads, still ending its lines at the tables' wins and losses, and its move is one of
/// the drawing ones.
#[test]
fn a_drawn_roots_search_looks_past_the_tables_draws() {
    use millstone::search::{is_decisive, Limits, Searcher, Shared};
    use millstone::tablebase::Wdl;
    use millstone::tt::TranspositionTable;
    use millstone::Game;
    use rand::{Rng, SeedableRng};
    use std::sync::atomic::{AtomicBool, AtomicU64};
    use std::time::Instant;
    let rules = Rules::default();
    let dir = tables(rules, "draws");
    let tb = Tablebase::open(&dir).unwrap();
    let snapshot = tb.snapshot(rules);
    let net = millstone::nnue::builtin(rules).unwrap();
    let sectors = choice_sectors(rules);
    let (stop, never, origin) = (
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicU64::new(0),
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(23);
    let (mut drawn, mut searched_on) = (0, 0);
    for i in 0..400 {
        let s = sectors[i % sectors.len()];
        let (pos, _) = placing::position_of_slot(s, rng.gen_range(0..s.slots()) as u32);
        let root = tb.probe_root(&pos).expect("covered");
        let keeping: Vec<_> = root
            .moves
            .iter()
            .filter(|(_, p)| p.wdl.real() == Wdl::Draw)
            .map(|&(m, _)| m)
            .collect();
        if root.probe.wdl.real() != Wdl::Draw || keeping.len() < 2 {
            continue;
        }
        drawn += 1;
        let game = Game::new(pos);
        let mut scores = [0; 2];
        let mut lines = [0; 2];
        for (k, search_draws) in [false, true].into_iter().enumerate() {
            let tt = TranspositionTable::new(1);
            let shared = Shared {
                tt: &tt,
                stop: &stop,
                nodes: AtomicU64::new(0),
                start: Instant::now(),
                budget: None,
                node_limit: None,
                tb: Some(&snapshot),
                search_draws,
                tbhits: AtomicU64::new(0),
                pondering: &never,
                clock_origin_us: &origin,
                net: Some(&net),
                contempt: 0,
            };
            let limits = Limits {
                depth: Some(3),
                ..Limits::default()
            };
            let r = Searcher::new(&shared, 0, &game, &keeping).iterate(&limits, &mut |_| {});
            let best = r.best.expect("a move");
            assert!(
                keeping.contains(&best),
                "{pos}: {best} is not a drawing move"
            );
            assert!(!is_decisive(r.score), "{pos}: {} with only draws", r.score);
            scores[k] = r.score;
            lines[k] = r.pv.len();
        }
        assert_eq!(scores[0], 0, "{pos}: every child is a table draw");
        searched_on += (lines[1] > lines[0]) as u32;
        if drawn == 40 {
            break;
        }
    }
    assert!(drawn >= 20, "{drawn} drawn roots");
    // Its lines go on past the root's table draws (the network rates most of these small
    // endings a sure draw, so their scores are often 0 either way).
    assert!(
        searched_on * 2 >= drawn,
        "{searched_on} of {drawn} roots searched on"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
