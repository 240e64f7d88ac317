//! What the search must find: immediate wins, defences, flying endgames, repetition draws, and
//! legal, deterministic answers.

use millstone::engine::Engine;
use millstone::search::{Limits, Score, SearchResult, DEFAULT_CONTEMPT};
use millstone::{Game, Move, Position, Rules, Variant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const NINE: Rules = Rules::new(Variant::Nine, true);
const NINE_NO_FLY: Rules = Rules::new(Variant::Nine, false);
const TWELVE: Rules = Rules::new(Variant::Twelve, true);

fn game(fen: &str, rules: Rules, moves: &str) -> Game {
    let mut g = Game::new(Position::from_fen(fen, rules).unwrap());
    for m in moves.split_whitespace() {
        g.play(m.parse().unwrap())
            .unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    g
}

fn search(g: &Game, depth: i32, searchmoves: &[&str]) -> SearchResult {
    search_with(g, depth, searchmoves, true)
}

/// A search with the network (where the variant has one) or the hand-tuned evaluation.
fn search_with(g: &Game, depth: i32, searchmoves: &[&str], nnue: bool) -> SearchResult {
    let mut engine = Engine::with_hash_mb(8);
    engine.set_use_nnue(nnue);
    search_by(engine, g, depth, searchmoves)
}

/// A search of `g` to `depth` by `engine`, set up as the caller wants.
fn search_by(mut engine: Engine, g: &Game, depth: i32, searchmoves: &[&str]) -> SearchResult {
    let limits = Limits {
        depth: Some(depth),
        multipv: 1,
        searchmoves: searchmoves.iter().map(|m| m.parse().unwrap()).collect(),
        ..Limits::default()
    };
    engine.search(g, &limits, Box::new(|_| {}))
}

fn best(r: &SearchResult) -> String {
    r.best.map(|m| m.to_string()).unwrap_or_default()
}

#[test]
fn closes_the_mill_that_wins_at_once() {
    // g4-g7 closes a7 d7 g7; Black then has two pieces.
    let g = game("WW./.../.../.B...W/..B/.B./... w 0 0 0 20", NINE, "");
    let r = search(&g, 6, &[]);
    assert!(best(&r).starts_with("g4-g7x"), "{}", best(&r));
    assert_eq!(Score::from_internal(r.score), Score::Mate(1));
}

#[test]
fn stops_a_double_mill_threat_while_placing() {
    // Black's d7 and g1 meet at g7: a piece there would threaten a7 and g4 at once. A quiet
    // placement elsewhere loses a piece (the hand-tuned evaluation's search sees it); the
    // tables say that only f4 keeps the draw (docs/nnue.md measures how often each evaluation
    // finds such moves). The search with the network finds f4 at depths 6 to 9; the hand-tuned
    // evaluation's choice at depths 7 and 8 is b4, which loses. Deeper, every network met so
    // far loses it too (the fourth net c4 from depth 11, the sixth b4 at 10): after b4 or c4,
    // Black's f4 wins a mill eleven plies on, past what these depths see (docs/nnue.md, "The
    // sixth net").
    let g = game(".B./.W./.../....../.../.B./WWB w 6 6 0 4", NINE, "");
    let passive = search_with(&g, 8, &["e4"], false);
    assert!(passive.score < -50, "the threat is real: {}", passive.score);
    for depth in [7, 8, 9] {
        let r = search(&g, depth, &[]);
        assert_eq!(best(&r), "f4", "depth {depth}: {}", r.score);
    }
}

#[test]
fn wins_a_flying_endgame_quickly() {
    // White slides into a double threat; Black, flying, can block only one line.
    let start = "W../.W./.../W....B/.../.B./..B w 0 0 0 30";
    let g = game(start, NINE, "");
    let r = search(&g, 8, &[]);
    match Score::from_internal(r.score) {
        Score::Mate(n) => assert!((1..=3).contains(&n), "mate in {n}"),
        s => panic!("expected a forced win, got {s:?} with {}", best(&r)),
    }
    // Played out by the engine against itself, White wins within three moves.
    let mut g = g;
    for _ in 0..6 {
        if g.outcome().is_some() {
            break;
        }
        let r = search(&g, 8, &[]);
        g.play(r.best.unwrap()).unwrap();
    }
    let o = g.outcome().expect("the game is over");
    assert_eq!(o.result_str(), "1-0", "{o}");
}

/// A shuffle played twice from a position where White is a piece up with a threat on d5.
const SHUFFLE_START: &str = "..B/.W./W.W/.W..W./.W./.../B.B w 0 0 0 30";

#[test]
fn takes_a_draw_by_repetition_when_lost() {
    // After these moves Black's d1-a1 repeats the start position for the third time.
    let g = game(
        SHUFFLE_START,
        NINE_NO_FLY,
        "d3-d2 a1-d1 d2-d3 d1-a1 d3-d2 a1-d1 d2-d3",
    );
    let r = search(&g, 8, &[]);
    assert_eq!(best(&r), "d1-a1");
    // A draw by the rules, which the default contempt prices.
    assert_eq!(r.score, -DEFAULT_CONTEMPT);
    let mut g = g;
    g.play("d1-a1".parse().unwrap()).unwrap();
    assert_eq!(g.outcome().unwrap().to_string(), "1/2-1/2 threefold");
}

#[test]
fn avoids_a_repetition_when_winning() {
    // The start position is on the board for the second time; d3-d2 would repeat again.
    let g = game(SHUFFLE_START, NINE_NO_FLY, "d3-d2 a1-d1 d2-d3 d1-a1");
    let repeat = search(&g, 8, &["d3-d2"]);
    assert_eq!(
        repeat.score, -DEFAULT_CONTEMPT,
        "repeating is scored as a draw, less the contempt"
    );
    let r = search(&g, 8, &[]);
    assert_ne!(best(&r), "d3-d2");
    assert!(r.score > 100, "White is winning: {}", r.score);
}

/// A search of `g` to `depth` with `Contempt` `cp`.
fn search_contempt(g: &Game, depth: i32, searchmoves: &[&str], cp: i32) -> SearchResult {
    let mut engine = Engine::with_hash_mb(8);
    engine.set_contempt(cp);
    search_by(engine, g, depth, searchmoves)
}

#[test]
fn a_draw_by_the_rules_costs_the_root_side_the_contempt() {
    // 99 plies without a mill, and no move closes one: every move ends the game by the 100-ply
    // rule, a draw one ply from the root, which the side to move pays for.
    let g = game("W.W/B.B/.../....../.../B.B/W.W w 0 0 99 60", NINE, "");
    for cp in [0, 25, -25, 1000] {
        assert_eq!(search_contempt(&g, 4, &[], cp).score, -cp, "Contempt {cp}");
    }
}

#[test]
fn contempt_decides_between_a_repetition_and_playing_on() {
    // A quiet, symmetric position on the board for the second time: a1-d1 would repeat the
    // position after White's first move. A draw worth 1000 centipieces to White (a contempt of
    // -1000) is taken; one that costs it 1000 is avoided, and repeating is then scored at -1000.
    let g = game(
        "W.W/B.B/.../....../.../B.B/W.W w 0 0 10 60",
        NINE,
        "a1-d1 b2-d2 d1-a1 d2-b2",
    );
    assert_eq!(search_contempt(&g, 8, &[], -1000).score, 1000);
    let avoid = search_contempt(&g, 8, &[], 1000);
    assert_ne!(best(&avoid), "a1-d1");
    assert!(avoid.score > -1000, "{}", avoid.score);
    assert_eq!(search_contempt(&g, 8, &["a1-d1"], 1000).score, -1000);
}

#[test]
fn twelve_full_board_is_a_plain_draw_whatever_the_contempt() {
    // Black's only placement, a7, fills the board without a mill: the placing phase ends in a
    // draw that no one chose over playing on, so the contempt does not price it.
    let g = game(".WW/WBB/BWW/WBBWBB/WBB/BWW/WBW b 0 1 0 12", TWELVE, "");
    for cp in [0, 50, -1000, 1000] {
        let r = search_contempt(&g, 4, &[], cp);
        assert_eq!(best(&r), "a7");
        assert_eq!(r.score, 0, "Contempt {cp}");
    }
}

fn random_game(rng: &mut StdRng, rules: Rules) -> Game {
    let mut g = Game::from_rules(rules);
    let plies = rng.gen_range(0..60);
    for _ in 0..plies {
        let moves = g.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.gen_range(0..moves.len())];
        g.play(m).unwrap();
    }
    g
}

#[test]
fn bestmove_is_legal_from_random_positions() {
    let mut rng = StdRng::seed_from_u64(7);
    for i in 0..120 {
        let rules = [NINE, NINE_NO_FLY, TWELVE][i % 3];
        let g = random_game(&mut rng, rules);
        let r = search(&g, 1 + (i as i32 % 5), &[]);
        let legal = g.legal_moves();
        match r.best {
            Some(m) => {
                assert!(legal.contains(m), "{m} in {}", g.position());
                // The whole principal variation is playable.
                let mut line = g.clone();
                for &pm in &r.pv {
                    line.play(pm)
                        .unwrap_or_else(|e| panic!("pv {pm}: {e} in {}", g.position()));
                }
            }
            None => assert!(legal.is_empty(), "no move from {}", g.position()),
        }
    }
}

#[test]
fn one_thread_is_deterministic() {
    let mut rng = StdRng::seed_from_u64(11);
    for i in 0..6 {
        let g = random_game(&mut rng, [NINE, TWELVE][i % 2]);
        let a = search(&g, 7, &[]);
        let b = search(&g, 7, &[]);
        assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
    }
}

#[test]
fn two_threads_find_the_same_win() {
    let g = game("WW./.../.../.B...W/..B/.B./... w 0 0 0 20", NINE, "");
    let mut engine = Engine::with_hash_mb(8);
    engine.set_threads(2);
    let limits = Limits {
        depth: Some(6),
        multipv: 1,
        ..Limits::default()
    };
    let r = engine.search(&g, &limits, Box::new(|_| {}));
    assert!(best(&r).starts_with("g4-g7x"));
}

#[test]
fn multipv_reports_distinct_lines_in_order() {
    let g = Game::from_rules(NINE);
    let mut engine = Engine::with_hash_mb(8);
    let limits = Limits {
        depth: Some(4),
        multipv: 3,
        ..Limits::default()
    };
    let mut lines: Vec<(usize, i32, Move)> = Vec::new();
    let mut last_depth = 0;
    let sink = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = sink.clone();
    engine.search(
        &g,
        &limits,
        Box::new(move |info| s2.lock().unwrap().push(info.clone())),
    );
    for info in sink.lock().unwrap().iter() {
        if info.depth > last_depth {
            last_depth = info.depth;
            lines.clear();
        }
        lines.push((info.multipv, info.score, info.pv[0]));
    }
    assert_eq!(lines.len(), 3);
    assert_eq!(lines.iter().map(|l| l.0).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert!(lines[0].1 >= lines[1].1 && lines[1].1 >= lines[2].1);
    assert!(lines[0].2 != lines[1].2 && lines[1].2 != lines[2].2 && lines[0].2 != lines[2].2);
}
