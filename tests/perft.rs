//! Perft: the known counts from the start of both variants, hand-made positions for every rule
//! that shapes the move list, each checked against the naive implementation in `naive/`, and a
//! cross-check on positions reached by seeded random play.

mod naive;

use millstone::perft::{divide, perft, perft_full};
use millstone::{Position, Rules, Variant};
use naive::{NEnd, Naive};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn rules(twelve: bool, flying: bool) -> Rules {
    Rules::new(
        if twelve {
            Variant::Twelve
        } else {
            Variant::Nine
        },
        flying,
    )
}

/// The library's legal moves as sorted notation strings.
fn lib_moves(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

#[test]
fn start_nine_depth_1_to_5() {
    let mut pos = Position::new(rules(false, true));
    let expect = [24, 552, 12144, 255024, 5140800];
    for (d, &n) in expect.iter().enumerate() {
        assert_eq!(perft(&mut pos, d as u32 + 1), n, "nine depth {}", d + 1);
    }
    assert_eq!(pos, Position::new(rules(false, true)));
}

#[test]
fn start_twelve_depth_1_to_5() {
    let mut pos = Position::new(rules(true, true));
    let expect = [24, 552, 12144, 255024, 5150880];
    for (d, &n) in expect.iter().enumerate() {
        assert_eq!(perft(&mut pos, d as u32 + 1), n, "twelve depth {}", d + 1);
    }
    assert_eq!(pos, Position::new(rules(true, true)));
}

#[test]
fn start_depth_6() {
    let mut nine = Position::new(rules(false, true));
    assert_eq!(perft(&mut nine, 6), 99_274_176);
    let mut twelve = Position::new(rules(true, true));
    assert_eq!(perft(&mut twelve, 6), 99_862_272);
}

#[test]
fn start_without_flying_is_the_same_early_on() {
    // Flying needs a side down to three pieces, which takes far more than five plies.
    let mut pos = Position::new(rules(false, false));
    assert_eq!(perft(&mut pos, 5), 5140800);
    let mut pos = Position::new(rules(true, false));
    assert_eq!(perft(&mut pos, 5), 5150880);
}

#[test]
fn naive_start_counts() {
    for twelve in [false, true] {
        let n = Naive::start(twelve, true);
        assert_eq!(n.to_fen(), Position::new(rules(twelve, true)).to_fen());
        let got: Vec<u64> = (1..=4).map(|d| n.perft(d)).collect();
        assert_eq!(got, [24, 552, 12144, 255024], "twelve={twelve}");
    }
}

#[test]
fn bulk_counting_equals_full_perft() {
    for twelve in [false, true] {
        let mut pos = Position::new(rules(twelve, true));
        assert_eq!(perft(&mut pos, 4), perft_full(&mut pos, 4));
    }
}

/// Checks one position in the library against the naive implementation: the position string
/// round trip, the move set, perft at every depth up to `depth`, and `divide` move by move.
/// Returns the library's move strings for scenario-specific assertions.
fn cross_check(fen: &str, twelve: bool, flying: bool, depth: u32) -> Vec<String> {
    let r = rules(twelve, flying);
    let mut pos = Position::from_fen(fen, r).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let start = pos;
    assert_eq!(pos.to_fen(), fen);
    let nv = Naive::from_fen(fen, twelve, flying);
    assert_eq!(nv.to_fen(), fen);

    let moves = lib_moves(&pos);
    assert_eq!(moves, nv.move_strings(), "move sets differ in {fen} ({r})");

    for d in 1..=depth {
        assert_eq!(perft(&mut pos, d), nv.perft(d), "perft({d}) of {fen} ({r})");
    }
    assert_eq!(perft_full(&mut pos, depth), perft(&mut pos, depth));

    let div = divide(&mut pos, depth);
    let total: u64 = div.iter().map(|&(_, n)| n).sum();
    assert_eq!(
        total,
        perft(&mut pos, depth),
        "divide sums to perft in {fen}"
    );
    assert_eq!(div.len(), moves.len());
    let ndiv = nv.divide(depth);
    for (m, n) in div {
        assert_eq!(Some(&n), ndiv.get(&m.to_string()), "divide {m} in {fen}");
    }
    assert_eq!(
        pos, start,
        "perft and divide leave the position as they found it"
    );
    moves
}

fn has(moves: &[String], m: &str) -> bool {
    moves.iter().any(|x| x == m)
}

#[test]
fn moving_phase_with_open_mills() {
    // White's d6-d7 closes a7-d7-g7 (a7-a4-a1 already stands and can open); Black has no mill,
    // so every black piece is removable.
    let fen = "W.W/BWB/.B./WB.BW./B.W/.WB/W.. w 0 0 0 20";
    for flying in [true, false] {
        let moves = cross_check(fen, false, flying, 4);
        assert!(has(&moves, "d6-d7xb6"));
        assert!(!has(&moves, "d6-d7"));
        assert_eq!(moves.iter().filter(|m| m.starts_with("d6-d7x")).count(), 7);
    }
}

#[test]
fn protection_of_pieces_in_mills() {
    // Black's a1-d1-g1 is a mill; b4 and e4 are free. f4-f6 closes b6-d6-f6.
    let fen = ".../WW./W../.B.BW./..W/.../BBB w 0 0 0 30";
    let moves = cross_check(fen, false, true, 4);
    assert!(has(&moves, "f4-f6xb4"));
    assert!(has(&moves, "f4-f6xe4"));
    assert!(!has(&moves, "f4-f6xa1"));
    assert!(!has(&moves, "f4-f6xd1"));
}

#[test]
fn all_opponent_pieces_in_mills() {
    // Black's five pieces all stand in a7-a4-a1 or a1-d1-g1, so any of them may go.
    let fen = "B../WW./W../B...W./..W/.../BBB w 0 0 0 30";
    let moves = cross_check(fen, false, true, 4);
    for r in ["a7", "a4", "a1", "d1", "g1"] {
        assert!(has(&moves, &format!("f4-f6x{r}")), "{r}");
    }
    assert_eq!(moves.iter().filter(|m| m.starts_with("f4-f6")).count(), 5);
}

#[test]
fn flying_on_and_off() {
    // White has three pieces; e3-g7 closes a7-d7-g7 only by flying. Black's b2-d2-f2 is a mill.
    let fen = "WW./B.B/.../..B.../..W/BBB/... w 0 0 0 25";
    let on = cross_check(fen, false, true, 4);
    assert!(has(&on, "e3-g7xb6"));
    assert!(has(&on, "a7-g1"));
    assert!(!has(&on, "e3-g7xb2"));
    let off = cross_check(fen, false, false, 5);
    assert!(!off.iter().any(|m| m.starts_with("e3-g7")));
    assert!(has(&off, "e3-e4") && has(&off, "e3-d3"));
    assert_eq!(off.len(), 5, "{off:?}");
    assert!(on.len() > 40);
}

#[test]
fn both_sides_flying() {
    let fen = "W.B/.W./..B/B.W.../.../.../... b 0 0 0 40";
    let moves = cross_check(fen, false, true, 3);
    assert_eq!(moves.len(), 3 * 18);
    cross_check(fen, false, false, 5);
}

#[test]
fn twelve_diagonals() {
    // c4-c5 closes the diagonal a7-b6-c5 in twelve only; g1-f2 is a twelve-only slide too.
    let fen = "W.B/W.B/.../B.W.B./B.W/W../W.W w 0 0 0 30";
    let twelve = cross_check(fen, true, true, 4);
    assert!(has(&twelve, "c4-c5xg7"));
    assert!(has(&twelve, "g1-f2"));
    let nine = cross_check(fen, false, true, 4);
    assert!(has(&nine, "c4-c5"));
    assert!(!nine.iter().any(|m| m.starts_with("c4-c5x")));
    assert!(!has(&nine, "g1-f2"));
}

#[test]
fn twelve_placing_with_diagonal_mills() {
    // a1 and b2 are White's; placing c3 closes the diagonal (and nothing else).
    let fen = ".B./B../..W/....../.B./W../WB. w 8 8 0 5";
    let moves = cross_check(fen, true, true, 3);
    assert!(has(&moves, "c3xd7") && !has(&moves, "c3"));
    assert_eq!(moves.iter().filter(|m| m.starts_with("c3x")).count(), 4);
    // The same board in nine (where the hands must be smaller): no diagonal mill.
    let nine = cross_check(".B./B../..W/....../.B./W../WB. w 5 5 0 5", false, true, 3);
    assert!(has(&nine, "c3"));
    assert!(!nine.iter().any(|m| m.contains('x')));
}

#[test]
fn last_placements_into_the_moving_phase() {
    let fen = "WBW/B.W/WB./W.BB.W/.W./B.W/B.. w 1 1 0 9";
    cross_check(fen, false, true, 5);
    cross_check(fen, false, false, 5);
    let fen = "WBW/B.W/WB./W.BB.W/.WW/B.W/B.. b 0 1 0 9";
    cross_check(fen, false, true, 5);
    cross_check(fen, false, false, 5);
}

#[test]
fn blocked_right_after_the_last_placement() {
    // Black places its last piece; on d6 it leaves White without a move.
    let fen = "WWW/W.W/.B./WB..BW/.B./BBB/WWB b 0 1 0 9";
    let moves = cross_check(fen, false, true, 4);
    assert_eq!(moves.len(), 7);
    let mut pos = Position::from_fen(fen, rules(false, true)).unwrap();
    pos.play("d6".parse().unwrap()).unwrap();
    assert_eq!(perft(&mut pos, 1), 0);
    let mut nv = Naive::from_fen(fen, false, true);
    nv.play_str("d6");
    assert_eq!(nv.end(), Some(NEnd::LostBlocked));
}

#[test]
fn twelve_full_board() {
    // A mill-free full board: Black's last placement on a7 fills it.
    let fen = ".WW/WBB/BWW/WBBWBB/WBB/BWW/WBW b 0 1 0 12";
    let moves = cross_check(fen, true, true, 3);
    assert_eq!(moves, ["a7"]);
    let full = "BWW/WBB/BWW/WBBWBB/WBB/BWW/WBW w 0 0 0 13";
    assert!(cross_check(full, true, true, 2).is_empty());
    assert_eq!(
        Naive::from_fen(full, true, true).end(),
        Some(NEnd::DrawFullBoard)
    );
}

#[test]
fn mill_against_an_empty_board_in_the_placing_phase() {
    // Black has pieces in hand only: White's mills remove nothing.
    let fen = "WW./.../.../....../.../.../WW. w 5 5 0 5";
    let moves = cross_check(fen, false, true, 4);
    assert!(has(&moves, "g7") && has(&moves, "g1") && has(&moves, "a4"));
    assert!(moves.iter().all(|m| !m.contains('x')));
    assert_eq!(moves.len(), 20);
}

#[test]
fn side_to_move_lost_on_material() {
    let fen = "W.W/.../B../...B../.../.../W.. b 0 0 0 20";
    assert!(cross_check(fen, false, true, 2).is_empty());
    // Two on the board and one in hand is still three.
    let fen = "WBW/B.W/WB./W.BB.W/.W./B.W/B.. w 1 1 0 9";
    assert!(!cross_check(fen, false, true, 1).is_empty());
}

/// Plays seeded random games in the library and the naive code side by side, comparing the
/// move sets and position strings at every ply and perft(2)/perft(3) at some plies.
fn random_cross_check(twelve: bool, flying: bool, seed: u64, games: usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let r = rules(twelve, flying);
    let mut compared_perft3 = 0;
    for _ in 0..games {
        let mut pos = Position::new(r);
        let mut nv = Naive::start(twelve, flying);
        for ply in 0..400 {
            let moves = lib_moves(&pos);
            assert_eq!(moves, nv.move_strings(), "{} ({r})", pos.to_fen());
            if ply % 7 == 3 {
                assert_eq!(perft(&mut pos, 2), nv.perft(2), "{}", pos.to_fen());
            }
            if ply % 23 == 11 && moves.len() < 60 {
                assert_eq!(perft(&mut pos, 3), nv.perft(3), "{}", pos.to_fen());
                compared_perft3 += 1;
            }
            if moves.is_empty() {
                break;
            }
            let pick = &moves[rng.gen_range(0..moves.len())];
            pos.play(pick.parse().unwrap()).unwrap();
            nv.play_str(pick);
            assert_eq!(pos.to_fen(), nv.to_fen(), "after {pick}");
        }
    }
    assert!(compared_perft3 > 0);
}

#[test]
fn random_positions_nine_flying() {
    random_cross_check(false, true, 1, 30);
}

#[test]
fn random_positions_nine_no_flying() {
    random_cross_check(false, false, 2, 30);
}

#[test]
fn random_positions_twelve_flying() {
    random_cross_check(true, true, 3, 30);
}

#[test]
fn random_positions_twelve_no_flying() {
    random_cross_check(true, false, 4, 30);
}
