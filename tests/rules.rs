//! One test per rule of RULES.md, on hand-made positions.

use millstone::{
    Color, EndReason, Game, GameError, IllegalMove, Move, Outcome, ParseMoveError,
    ParsePositionError, Point, Position, Rules, Variant,
};

const NINE: Rules = Rules::new(Variant::Nine, true);
const NINE_NO_FLYING: Rules = Rules::new(Variant::Nine, false);
const TWELVE: Rules = Rules::new(Variant::Twelve, true);

fn pos(fen: &str, rules: Rules) -> Position {
    Position::from_fen(fen, rules).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn mv(s: &str) -> Move {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn pt(s: &str) -> Point {
    s.parse().unwrap()
}

/// The legal moves whose notation starts with `prefix`, sorted.
fn moves_from(p: &Position, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .map(|m| m.to_string())
        .filter(|m| m.starts_with(prefix))
        .collect();
    v.sort();
    v
}

fn win(winner: Color, reason: EndReason) -> Option<Outcome> {
    Some(Outcome::Win { winner, reason })
}

fn draw(reason: EndReason) -> Option<Outcome> {
    Some(Outcome::Draw { reason })
}

/// Plays the moves in a game, each of which must be legal.
fn play_all(game: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        game.play(mv(m))
            .unwrap_or_else(|e| panic!("{m} in {}: {e}", game.position()));
    }
}

// --- Board, start, alternation -------------------------------------------------------------

#[test]
fn start_position_strings() {
    assert_eq!(
        Position::new(NINE).to_fen(),
        ".../.../.../....../.../.../... w 9 9 0 1"
    );
    assert_eq!(
        Position::new(TWELVE).to_fen(),
        ".../.../.../....../.../.../... w 12 12 0 1"
    );
}

#[test]
fn white_moves_first_and_sides_alternate() {
    let mut g = Game::from_rules(NINE);
    assert_eq!(g.position().side_to_move(), Color::White);
    play_all(&mut g, "d6");
    assert_eq!(g.position().side_to_move(), Color::Black);
    assert_eq!(g.position().fullmove(), 1);
    play_all(&mut g, "d5");
    assert_eq!(g.position().side_to_move(), Color::White);
    assert_eq!(
        g.position().fullmove(),
        2,
        "the move number grows after Black"
    );
    assert_eq!(
        g.position().to_fen(),
        ".../.W./.B./....../.../.../... w 8 8 0 2"
    );
}

#[test]
fn placing_phase_places_on_any_empty_point_and_never_slides() {
    let p = pos(".../.W./.B./....../.../.../... w 8 8 0 2", NINE);
    assert_eq!(p.legal_moves().len(), 22);
    assert!(p.legal_moves().iter().all(|m| m.is_placement()));
    assert_eq!(p.check(mv("d6-d7")), Err(IllegalMove::MustPlace));
    assert_eq!(p.check(mv("d5")), Err(IllegalMove::Occupied(pt("d5"))));
}

#[test]
fn moving_phase_slides_one_step_along_a_line() {
    // White: a7 c3 b2 g1; Black: g7 e3 f2 a1.
    let p = pos("W.B/.../.../....../W.B/W.B/B.W w 0 0 0 30", NINE);
    let mut all: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
    all.sort();
    assert_eq!(
        all,
        ["a7-a4", "a7-d7", "b2-b4", "b2-d2", "c3-c4", "c3-d3", "g1-d1", "g1-g4"]
    );
    assert_eq!(p.check(mv("a4")), Err(IllegalMove::MustMove));
    assert_eq!(
        p.check(mv("a7-d6")),
        Err(IllegalMove::NotAdjacent(pt("a7"), pt("d6")))
    );
    // c4 and e4 are on one rank but not on one line: no jump across the centre.
    let q = pos("W.B/.../.../..W.../W.B/W.B/B.W w 0 0 0 30", NINE_NO_FLYING);
    assert_eq!(
        q.check(mv("c4-e4")),
        Err(IllegalMove::NotAdjacent(pt("c4"), pt("e4")))
    );
}

// --- Mills and removal ---------------------------------------------------------------------

#[test]
fn closing_a_mill_removes_one_opponent_piece() {
    let mut p = pos(".../WW./W../.B.BW./..W/.../BBB w 0 0 0 30", NINE);
    assert_eq!(p.check(mv("f4-f6")), Err(IllegalMove::RemovalRequired));
    p.play(mv("f4-f6xe4")).unwrap();
    assert_eq!(p.pieces(Color::Black).count(), 4);
    assert_eq!(p.piece_at(pt("e4")), None);
}

#[test]
fn protection_and_the_all_in_mills_exception() {
    // Black's a1-d1-g1 stands; b4 and e4 are free, so the mill is protected.
    let p = pos(".../WW./W../.B.BW./..W/.../BBB w 0 0 0 30", NINE);
    assert_eq!(moves_from(&p, "f4-f6"), ["f4-f6xb4", "f4-f6xe4"]);
    for r in ["a1", "d1", "g1"] {
        assert_eq!(
            p.check(mv(&format!("f4-f6x{r}"))),
            Err(IllegalMove::Protected(pt(r)))
        );
    }
    // Every black piece stands in a7-a4-a1 or a1-d1-g1: then any may go.
    let q = pos("B../WW./W../B...W./..W/.../BBB w 0 0 0 30", NINE);
    assert_eq!(
        moves_from(&q, "f4-f6"),
        ["f4-f6xa1", "f4-f6xa4", "f4-f6xa7", "f4-f6xd1", "f4-f6xg1"]
    );
    for r in ["a7", "a4", "a1", "d1", "g1"] {
        assert_eq!(q.check(mv(&format!("f4-f6x{r}"))), Ok(()));
    }
}

#[test]
fn two_mills_closed_at_once_remove_exactly_one_piece() {
    // Placing a4 closes a7-a4-a1 and a4-b4-c4.
    let mut p = pos("W.B/.B./.../.WW.B./.../.../W.B w 5 5 0 5", NINE);
    assert_eq!(
        moves_from(&p, "a4"),
        ["a4xd6", "a4xf4", "a4xg1", "a4xg7"],
        "one move per removable piece, never two removals"
    );
    assert!("a4xd6xf4".parse::<Move>().is_err());
    p.play(mv("a4xd6")).unwrap();
    assert_eq!(p.pieces(Color::Black).count(), 3);
    // A slide can close two lines in twelve: a7-b6 along the diagonal completes b6-d6-f6 and
    // b6-b4-b2.
    let mut q = pos("W.B/.WW/.../.W..B./.../WB./..B w 0 0 0 30", TWELVE);
    assert_eq!(
        moves_from(&q, "a7-b6"),
        ["a7-b6xd2", "a7-b6xf4", "a7-b6xg1", "a7-b6xg7"]
    );
    q.play(mv("a7-b6xf4")).unwrap();
    assert_eq!(q.pieces(Color::Black).count(), 3);
}

#[test]
fn mill_against_an_empty_opponent_board_removes_nothing() {
    let p = pos("WW./.../.../....../.../.../WW. w 5 5 0 5", NINE);
    assert_eq!(p.check(mv("g7")), Ok(()));
    assert_eq!(p.check(mv("g7xd6")), Err(IllegalMove::RemovalNotAllowed));
    let mut q = p;
    q.play(mv("g7")).unwrap();
    assert_eq!(q.in_hand(Color::Black), 5);
}

#[test]
fn opening_a_mill_and_closing_it_again_is_a_new_mill() {
    // White's a7-d7-g7 stands. d7 steps out and back in.
    let mut g = Game::new(pos("WWW/.../.../....../W.B/.B./B.B w 0 0 0 30", NINE));
    play_all(&mut g, "d7-d6 e3-e4");
    assert_eq!(
        g.position().check(mv("d6-d7")),
        Err(IllegalMove::RemovalRequired)
    );
    play_all(&mut g, "d6-d7xe4");
    assert_eq!(g.position().pieces(Color::Black).count(), 3);
    assert_eq!(g.position().rule50(), 0);
    // And once more: every closing counts.
    play_all(&mut g, "d2-d3 d7-d6 d3-d2 d6-d7xd2");
    assert_eq!(g.position().pieces(Color::Black).count(), 2);
    assert_eq!(g.outcome(), win(Color::White, EndReason::Material));
}

// --- Flying ----------------------------------------------------------------------------------

#[test]
fn flying_on_and_off() {
    // White has exactly three pieces and none in hand.
    let fen = "WW./B.B/.../..B.../..W/BBB/... w 0 0 0 25";
    let on = pos(fen, NINE);
    assert_eq!(on.check(mv("a7-g1")), Ok(()));
    assert_eq!(on.check(mv("e3-g7xb6")), Ok(()));
    assert_eq!(on.check(mv("e3-b4")), Ok(()));
    let off = pos(fen, NINE_NO_FLYING);
    assert_eq!(
        off.check(mv("a7-g1")),
        Err(IllegalMove::NotAdjacent(pt("a7"), pt("g1")))
    );
    assert_eq!(off.check(mv("e3-e4")), Ok(()));
    assert_eq!(off.legal_moves().len(), 5);
    // Black has six pieces: it slides even with flying on.
    let black = pos("WW./B.B/.../..B.../..W/BBB/... b 0 0 0 25", NINE);
    assert_eq!(
        black.check(mv("b6-g7")),
        Err(IllegalMove::NotAdjacent(pt("b6"), pt("g7")))
    );
}

#[test]
fn flying_needs_exactly_three_and_an_empty_hand() {
    // Four pieces: no flying.
    let four = pos("WW./B.B/.../..B..W/..W/BBB/... w 0 0 0 25", NINE);
    assert_eq!(
        four.check(mv("a7-g1")),
        Err(IllegalMove::NotAdjacent(pt("a7"), pt("g1")))
    );
    // Three on the board with one in hand: the turn is a placement.
    let hand = pos("W.W/.B./.B./....B./.../.../W.. w 1 1 0 9", NINE);
    assert_eq!(hand.pieces(Color::White).count(), 3);
    assert_eq!(hand.check(mv("a7-d6")), Err(IllegalMove::MustPlace));
}

// --- Diagonals -------------------------------------------------------------------------------

#[test]
fn diagonals_only_in_twelve_slides_and_mills() {
    let fen = "W.B/W.B/.../B.W.B./B.W/W../W.W w 0 0 0 30";
    let twelve = pos(fen, TWELVE);
    let nine = pos(fen, NINE);
    // g1-f2 runs along the diagonal g1-f2-e3.
    assert_eq!(twelve.check(mv("g1-f2")), Ok(()));
    assert_eq!(
        nine.check(mv("g1-f2")),
        Err(IllegalMove::NotAdjacent(pt("g1"), pt("f2")))
    );
    // c4-c5 completes the diagonal a7-b6-c5 in twelve only.
    assert_eq!(twelve.check(mv("c4-c5")), Err(IllegalMove::RemovalRequired));
    assert_eq!(twelve.check(mv("c4-c5xg7")), Ok(()));
    assert_eq!(nine.check(mv("c4-c5")), Ok(()));
    assert_eq!(
        nine.check(mv("c4-c5xg7")),
        Err(IllegalMove::RemovalNotAllowed)
    );
    // Black's g7-f6-e5 is a twelve mill, and it protects.
    let prot = pos("W.B/W.B/..B/B.W.B./..W/W../W.W w 0 0 0 30", TWELVE);
    assert_eq!(
        prot.check(mv("c4-c5xg7")),
        Err(IllegalMove::Protected(pt("g7")))
    );
}

// --- End of the game -------------------------------------------------------------------------

#[test]
fn loss_by_material_counts_pieces_in_hand() {
    // White: two on the board and one in hand is three: not lost.
    let fen = "B../.../.../B...B./.../W../W.B w 1 1 0 9";
    let p = pos(fen, NINE);
    assert_eq!(p.material(Color::White), 3);
    assert_eq!(p.outcome(), None);
    assert_eq!(Game::new(p).outcome(), None);
    // One on the board and one in hand is two: lost.
    let q = pos("B../.../.../B...B./.../.../W.B w 1 1 0 9", NINE);
    assert_eq!(q.outcome(), win(Color::Black, EndReason::Material));
    assert_eq!(q.check(mv("d6")), Err(IllegalMove::GameOver));
    assert!(q.legal_moves().is_empty());
    // Two on the board in the moving phase: lost, even though it could fly.
    let r = pos("W.W/.../B../...B../.../.../W.. b 0 0 0 20", NINE);
    assert_eq!(r.outcome(), win(Color::White, EndReason::Material));
}

#[test]
fn loss_by_capture_to_two_pieces() {
    // Black has three; White's mill takes one.
    let mut g = Game::new(pos("B../WW./W../B...W./..W/.../..B w 0 0 0 30", NINE));
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "f4-f6xg1");
    assert_eq!(g.outcome(), win(Color::White, EndReason::Material));
    assert!(matches!(g.play(mv("a7-d7")), Err(GameError::Over(_))));
}

#[test]
fn loss_when_blocked_right_after_the_last_placement() {
    let fen = "WWW/W.W/.B./WB..BW/.B./BBB/WWB b 0 1 0 9";
    let mut g = Game::new(pos(fen, NINE));
    play_all(&mut g, "d6");
    assert!(g.position().is_moving_phase());
    assert_eq!(g.outcome(), win(Color::Black, EndReason::Blocked));
    assert_eq!(g.position().check(mv("d7-g7")), Err(IllegalMove::GameOver));
    // Placed elsewhere, d6 stays open for White.
    let mut h = Game::new(pos(fen, NINE));
    play_all(&mut h, "c5");
    assert_eq!(h.outcome(), None);
}

#[test]
fn loss_when_blocked_in_the_moving_phase() {
    // White's d3-d2 shuts in Black's a7 a4 a1 d1.
    let mut g = Game::new(pos("BW./..W/.../BW..../.W./.../BBW w 0 0 0 40", NINE));
    play_all(&mut g, "d3-d2");
    assert_eq!(g.outcome(), win(Color::White, EndReason::Blocked));
}

#[test]
fn twelve_full_board_is_a_draw() {
    let mut g = Game::new(pos(".WW/WBB/BWW/WBBWBB/WBB/BWW/WBW b 0 1 0 12", TWELVE));
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "a7");
    assert_eq!(g.position().empty().count(), 0);
    assert_eq!(g.outcome(), draw(EndReason::FullBoard));
    assert_eq!(
        pos("BWW/WBB/BWW/WBBWBB/WBB/BWW/WBW w 0 0 0 13", TWELVE).outcome(),
        draw(EndReason::FullBoard)
    );
    // In twelve a blocked side on a board with room is still lost (b6 and b2 close the
    // diagonals out of a7 and a1).
    let mut h = Game::new(pos("BW./W.W/.../BW..../.W./W../BBW w 0 0 0 40", TWELVE));
    play_all(&mut h, "d3-d2");
    assert_eq!(h.outcome(), win(Color::White, EndReason::Blocked));
}

#[test]
fn threefold_repetition_draws_at_the_third_occurrence() {
    let start = pos("W.B/.../.../....../W.B/W.B/B.W w 0 0 0 30", NINE);
    let mut g = Game::new(start);
    play_all(&mut g, "a7-d7 g7-g4 d7-a7 g4-g7");
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.outcome(), None, "the second occurrence is no draw");
    play_all(&mut g, "a7-d7 g7-g4 d7-a7");
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "g4-g7");
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), draw(EndReason::Threefold));
    assert!(g.legal_moves().is_empty());
    assert!(matches!(g.play(mv("a7-d7")), Err(GameError::Over(_))));
    // Undo brings the game back to before the third occurrence.
    g.undo();
    assert_eq!(g.outcome(), None);
}

#[test]
fn repetition_needs_the_same_side_to_move() {
    // White has three pieces and flies a7 round a triangle (3 plies) while Black shuffles g7
    // (2 plies): the board comes back with the other side to move.
    let start = pos("W.B/.../.../....../W.B/W.B/B.. w 0 0 0 30", NINE);
    let board = |g: &Game| g.position().to_fen()[..25].to_string();
    let b0 = board(&Game::new(start));
    let mut g = Game::new(start);
    play_all(&mut g, "a7-d7 g7-g4 d7-d6 g4-g7 d6-a7");
    assert_eq!(board(&g), b0);
    assert_eq!(g.position().side_to_move(), Color::Black);
    assert_eq!(g.repetitions(), 1);
    play_all(&mut g, "g7-g4 a7-d7 g4-g7 d7-a7");
    // The board has now stood three times, but only twice with Black to move.
    assert_eq!(board(&g), b0);
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "g7-g4 a7-d7 g4-g7 d7-a7");
    assert_eq!(g.outcome(), draw(EndReason::Threefold));
}

#[test]
fn hundred_ply_counter_starts_at_zero_and_counts_moving_plies() {
    let mut g = Game::new(pos("WBW/B.W/WB./W.BB.W/.W./B.W/B.. w 1 1 0 9", NINE));
    play_all(&mut g, "d6");
    assert_eq!(g.position().rule50(), 0);
    play_all(&mut g, "d1");
    assert!(g.position().is_moving_phase());
    assert_eq!(g.position().rule50(), 0);
    play_all(&mut g, "a4-b4");
    assert_eq!(g.position().rule50(), 1);
    play_all(&mut g, "e4-e5");
    assert_eq!(g.position().rule50(), 2);
}

#[test]
fn hundred_ply_draw_at_100_not_99() {
    let mut g = Game::new(pos("W.B/.../.../....../W.B/W.B/B.W w 0 0 98 80", NINE));
    play_all(&mut g, "a7-d7");
    assert_eq!(g.position().rule50(), 99);
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "g7-g4");
    assert_eq!(g.position().rule50(), 100);
    assert_eq!(g.outcome(), draw(EndReason::HundredPlies));
}

#[test]
fn hundred_ply_counter_resets_on_a_mill() {
    let mut g = Game::new(pos(".../WW./W../.B.BW./..W/.../BBB w 0 0 97 80", NINE));
    play_all(&mut g, "f4-f6xb4");
    assert_eq!(g.position().rule50(), 0);
    play_all(&mut g, "e4-f4");
    assert_eq!(g.position().rule50(), 1);
}

#[test]
fn loss_at_the_hundredth_ply_beats_the_draw() {
    let mut g = Game::new(pos("BW./..W/.../BW..../.W./.../BBW w 0 0 99 80", NINE));
    play_all(&mut g, "d3-d2");
    assert_eq!(g.position().rule50(), 100);
    assert_eq!(g.outcome(), win(Color::White, EndReason::Blocked));
}

// --- Position strings ------------------------------------------------------------------------

/// Asserts that `fen` is rejected in `rules` with an error whose message contains `says`.
fn rejected(fen: &str, rules: Rules, says: &str) -> ParsePositionError {
    let e = Position::from_fen(fen, rules).expect_err(fen);
    let msg = e.to_string();
    assert!(msg.contains(says), "'{fen}' -> '{msg}', expected '{says}'");
    e
}

#[test]
fn position_string_round_trip() {
    for (fen, rules) in [
        (".../.W./.B./....../.../.../... w 8 8 0 2", NINE),
        ("W.B/W.B/.../B.W.B./B.W/W../W.W w 0 0 37 40", TWELVE),
        ("WWW/W.W/.B./WB..BW/.B./BBB/WWB b 0 1 0 9", NINE),
        ("W.B/.../.../....../W.B/W.B/B.W w 0 0 100 80", NINE),
    ] {
        assert_eq!(pos(fen, rules).to_fen(), fen);
    }
}

#[test]
fn position_string_wrong_field_count() {
    let e = rejected(".../.../.../....../.../.../... w 9 9 0", NINE, "6 fields");
    assert_eq!(e, ParsePositionError::FieldCount(5));
    rejected(
        ".../.../.../....../.../.../... w 9 9 0 1 x",
        NINE,
        "found 7",
    );
    rejected("", NINE, "found 0");
}

#[test]
fn position_string_bad_characters() {
    rejected(".X./.../.../....../.../.../... w 9 9 0 1", NINE, "'X'");
    rejected(".w./.../.../....../.../.../... w 9 9 0 1", NINE, "'w'");
    rejected(
        ".../.../.../....../.../.../... x 9 9 0 1",
        NINE,
        "side to move 'x'",
    );
    rejected(
        ".../.../.../....../.../.../... W 9 9 0 1",
        NINE,
        "side to move 'W'",
    );
    rejected(
        ".../.../.../....../.../.../... w 9a 9 0 1",
        NINE,
        "white pieces in hand",
    );
}

#[test]
fn position_string_rank_lengths() {
    rejected("..../.../.../....../.../.../... w 9 9 0 1", NINE, "rank 7");
    rejected(".../.../.../...../.../.../... w 9 9 0 1", NINE, "rank 4");
    rejected(".../.../.../......./.../.../... w 9 9 0 1", NINE, "rank 4");
    rejected(".../.../.../....../.../.../.. w 9 9 0 1", NINE, "rank 1");
    rejected(".../.../.../....../.../... w 9 9 0 1", NINE, "7 ranks");
    rejected("........................ w 9 9 0 1", NINE, "7 ranks");
}

#[test]
fn position_string_too_many_pieces() {
    // Ten white pieces on the board: possible in twelve, not in nine.
    let fen = "WWW/WWW/WWW/W...BB/B../.../... w 0 0 0 30";
    rejected(fen, NINE, "more than the 9");
    assert!(Position::from_fen(fen, TWELVE).is_ok());
    rejected(
        ".../.../.../....../.../.../... w 10 10 0 1",
        NINE,
        "10 pieces in hand",
    );
    rejected(
        ".../.../.../....../.../.../... w 13 13 0 1",
        TWELVE,
        "13 pieces in hand",
    );
    // Board plus hand over the limit.
    rejected(
        "WW./.../.../....../.../.../... w 8 8 0 2",
        NINE,
        "more than the 9",
    );
}

#[test]
fn position_string_hands_breaking_alternation() {
    rejected(
        ".../.../.../....../.../.../... w 9 8 0 1",
        NINE,
        "alternation",
    );
    rejected(
        ".../.../.../....../.../.../... b 9 9 0 1",
        NINE,
        "alternation",
    );
    rejected(
        ".../.../.../....../.../.../... b 8 6 0 1",
        NINE,
        "alternation",
    );
    rejected(
        "W../.../.../....../.../.../... w 0 1 0 9",
        NINE,
        "alternation",
    );
}

#[test]
fn position_string_counters() {
    rejected(
        ".../.W./.B./....../.../.../... w 8 8 3 2",
        NINE,
        "ply counter is 3",
    );
    rejected(
        ".../.../.../....../.../.../... w -1 9 0 1",
        NINE,
        "white pieces in hand '-1'",
    );
    rejected(
        ".../.../.../....../.../.../... w 9 -9 0 1",
        NINE,
        "black pieces in hand '-9'",
    );
    rejected(
        ".../.../.../....../.../.../... w 9 9 -0 1",
        NINE,
        "plies since the last mill",
    );
    rejected(
        ".../.../.../....../.../.../... w 9 9 0 -1",
        NINE,
        "full-move number '-1'",
    );
    rejected(
        ".../.../.../....../.../.../... w 9 9 0 0",
        NINE,
        "full-move number (it starts at 1) '0'",
    );
    rejected(
        ".../.../.../....../.../.../... w 9 9 0 +1",
        NINE,
        "full-move number",
    );
    // The move number must fit the pieces placed, and the counter the moving plies.
    rejected(
        ".../.W./.B./....../.../.../... w 8 8 0 5",
        NINE,
        "move number 5",
    );
    rejected("W.B/.../.../....../W.B/W.B/B.W w 0 0 101 200", NINE, "101");
    rejected(
        "W.B/.../.../....../W.B/W.B/B.W w 0 0 20 12",
        NINE,
        "too few",
    );
}

// --- Move checking and notation -------------------------------------------------------------

#[test]
fn illegal_move_reasons() {
    use IllegalMove::*;
    let placing = pos(".../.W./.B./....../.../.../... w 8 8 0 2", NINE);
    assert_eq!(placing.check(mv("d7-d6")), Err(MustPlace));
    assert_eq!(placing.check(mv("d6")), Err(Occupied(pt("d6"))));
    assert_eq!(placing.check(mv("d5")), Err(Occupied(pt("d5"))));
    assert_eq!(placing.check(mv("a1xd5")), Err(RemovalNotAllowed));

    let moving = pos(".../WW./W../.B.BW./..W/.../BBB w 0 0 0 30", NINE);
    assert_eq!(moving.check(mv("a7")), Err(MustMove));
    assert_eq!(moving.check(mv("a7-d7")), Err(NotOwnPiece(pt("a7"))));
    assert_eq!(moving.check(mv("b4-a4")), Err(NotOwnPiece(pt("b4"))));
    assert_eq!(
        moving.check(mv("b6-a7")),
        Err(NotAdjacent(pt("b6"), pt("a7")))
    );
    assert_eq!(moving.check(mv("b6-d6")), Err(Occupied(pt("d6"))));
    assert_eq!(moving.check(mv("f4-f6")), Err(RemovalRequired));
    assert_eq!(moving.check(mv("f4-g4xb4")), Err(RemovalNotAllowed));
    assert_eq!(
        moving.check(mv("f4-f6xc5")),
        Err(NotOpponentPiece(pt("c5")))
    );
    assert_eq!(
        moving.check(mv("f4-f6xa7")),
        Err(NotOpponentPiece(pt("a7")))
    );
    assert_eq!(
        moving.check(mv("f4-f6xf4")),
        Err(NotOpponentPiece(pt("f4")))
    );
    assert_eq!(moving.check(mv("f4-f6xa1")), Err(Protected(pt("a1"))));
    assert_eq!(moving.check(mv("f4-f6xb4")), Ok(()));

    let over = pos("W.W/.../B../...B../.../.../W.. b 0 0 0 20", NINE);
    assert_eq!(over.check(mv("c5-d5")), Err(GameOver));

    // Every reason explains itself.
    for e in [
        GameOver,
        MustPlace,
        MustMove,
        Occupied(pt("d6")),
        NotOwnPiece(pt("a7")),
        NotAdjacent(pt("b6"), pt("a7")),
        RemovalRequired,
        RemovalNotAllowed,
        NotOpponentPiece(pt("c5")),
        Protected(pt("a1")),
    ] {
        assert!(e.to_string().len() > 10, "{e:?}");
    }
    assert!(NotAdjacent(pt("b6"), pt("a7")).to_string().contains("b6"));
    assert!(Protected(pt("a1")).to_string().contains("a1"));
}

#[test]
fn a_refused_move_changes_nothing() {
    let mut p = pos(".../WW./W../.B.BW./..W/.../BBB w 0 0 0 30", NINE);
    let before = p;
    assert_eq!(
        p.play(mv("f4-f6xa1")),
        Err(IllegalMove::Protected(pt("a1")))
    );
    assert_eq!(p, before);
}

#[test]
fn move_notation() {
    for s in ["d6", "d6-d5", "d6xa1", "d6-d5xa1"] {
        assert_eq!(mv(s).to_string(), s);
    }
    let m = mv("d6-d5xa1");
    assert_eq!(m.from(), Some(pt("d6")));
    assert_eq!(m.to(), pt("d5"));
    assert_eq!(m.removal(), Some(pt("a1")));
    assert!(mv("d6").is_placement());
}

#[test]
fn move_notation_errors() {
    assert_eq!("".parse::<Move>(), Err(ParseMoveError::Empty));
    for s in [
        "z9", "d4", "a2", "h1", "d6-", "-d5", "d6x", "xa1", "d6-d5-d4", "d6xa1xb2", " d6", "d6 ",
        "d6--d5", "d6-d5x", "d", "6", "d66",
    ] {
        match s.parse::<Move>() {
            Err(ParseMoveError::BadPoint { token, .. }) => assert_eq!(token, s),
            other => panic!("'{s}' gave {other:?}"),
        }
        let msg = s.parse::<Move>().unwrap_err().to_string();
        assert!(msg.contains("is not a point"), "{msg}");
    }
    assert_eq!(
        "d6-d6".parse::<Move>(),
        Err(ParseMoveError::SamePoint("d6-d6".into()))
    );
    assert_eq!(
        "d6xd6".parse::<Move>(),
        Err(ParseMoveError::RemovesOwnPiece("d6xd6".into()))
    );
    assert_eq!(
        "d5-d6xd6".parse::<Move>(),
        Err(ParseMoveError::RemovesOwnPiece("d5-d6xd6".into()))
    );
    assert!("d6-d6"
        .parse::<Move>()
        .unwrap_err()
        .to_string()
        .contains("same"));
}

#[test]
fn position_string_where_the_waiting_side_has_already_lost() {
    // Black, not to move, has two pieces and none in hand: it lost before its last move.
    rejected(
        "WWW/.../.../W....B/.../.../..B w 0 0 0 30",
        NINE,
        "lost before its last move",
    );
    // With Black to move the same material is a finished game, which a string may show.
    assert!(Position::from_fen("WWW/.../.../W....B/.../.../..B b 0 0 0 30", NINE).is_ok());
}
