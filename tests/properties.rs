//! Property tests over random games: incremental hashing, make/unmake, move checking, position
//! strings, and the end of the game judged by an independent referee.

mod naive;

use millstone::{EndReason, Game, GameError, Move, Outcome, Position, Rules, Variant};
use naive::{NEnd, Naive, Side};
use proptest::prelude::*;
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

/// Start positions for the random games, valid in both variants. Besides the real start, a
/// middle game whose 100-ply counter is close to running out, and a crowded board where few
/// moves exist, so that repetitions come up.
const STARTS: [Option<&str>; 4] = [
    None,
    Some("W.W/BWB/.B./WB.BW./B.W/.WB/W.. w 0 0 90 70"),
    Some("WWW/W.W/BB./WB.BBW/.B./B.B/WWB w 0 0 0 70"),
    Some("W.B/.W./..B/B.W.../.../.../... b 0 0 40 70"),
];

/// What a random game starts from and how it is played.
#[derive(Clone, Debug)]
struct Setup {
    twelve: bool,
    flying: bool,
    seed: u64,
    start: usize,
    /// Prefer moves that close no mill, so games last and draws come up.
    quiet: bool,
    plies: usize,
}

fn setups() -> impl Strategy<Value = Setup> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
        0..STARTS.len(),
        any::<bool>(),
        1usize..300,
    )
        .prop_map(|(twelve, flying, seed, start, quiet, plies)| Setup {
            twelve,
            flying,
            seed,
            start,
            quiet,
            plies,
        })
}

fn start_position(s: &Setup) -> Position {
    match STARTS[s.start] {
        None => Position::new(rules(s.twelve, s.flying)),
        Some(fen) => Position::from_fen(fen, rules(s.twelve, s.flying)).unwrap(),
    }
}

/// Plays a random game as the setup says, calling `visit` on every position before its move
/// (and on the last one). The game stops when it is over or after `plies` moves.
fn random_game(s: &Setup, mut visit: impl FnMut(&Game, &mut StdRng)) {
    let mut rng = StdRng::seed_from_u64(s.seed);
    let mut game = Game::new(start_position(s));
    for _ in 0..s.plies {
        visit(&game, &mut rng);
        let moves = game.legal_moves();
        if moves.is_empty() {
            return;
        }
        let quiet: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| m.removal().is_none())
            .collect();
        let pool: &[Move] = if s.quiet && !quiet.is_empty() {
            &quiet
        } else {
            &moves
        };
        let m = pool[rng.gen_range(0..pool.len())];
        game.play(m).unwrap();
    }
    visit(&game, &mut rng);
}

/// The referee: the end of the game from the history of naive positions, the current one last,
/// read straight from RULES.md.
fn referee(history: &[Naive]) -> Option<Outcome> {
    let cur = history.last().unwrap();
    let winner = match cur.to_move {
        Side::White => millstone::Color::Black,
        Side::Black => millstone::Color::White,
    };
    // Wins and losses first.
    match cur.end() {
        Some(NEnd::LostMaterial) => {
            return Some(Outcome::Win {
                winner,
                reason: EndReason::Material,
            })
        }
        Some(NEnd::LostBlocked) => {
            return Some(Outcome::Win {
                winner,
                reason: EndReason::Blocked,
            })
        }
        Some(NEnd::DrawFullBoard) => {
            return Some(Outcome::Draw {
                reason: EndReason::FullBoard,
            })
        }
        None => {}
    }
    if cur.counter >= 100 {
        return Some(Outcome::Draw {
            reason: EndReason::HundredPlies,
        });
    }
    let seen = history.iter().filter(|p| p.key() == cur.key()).count();
    if seen >= 3 {
        return Some(Outcome::Draw {
            reason: EndReason::Threefold,
        });
    }
    None
}

fn naive_of(pos: &Position) -> Naive {
    let r = pos.rules();
    Naive::from_fen(&pos.to_fen(), r.variant == Variant::Twelve, r.flying)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// After every make the incremental hash equals the recomputed one; unmake restores the
    /// position exactly; `play` agrees with `make`; `hash_after` predicts the key; every
    /// generated move passes `check`; position strings round-trip.
    #[test]
    fn make_unmake_hash_and_strings(s in setups()) {
        random_game(&s, |game, _| {
            let pos = *game.position();
            assert_eq!(pos.hash(), pos.compute_hash());
            assert_eq!(game.hashes().last(), Some(&pos.hash()));
            let back = Position::from_fen(&pos.to_fen(), pos.rules()).unwrap();
            assert_eq!(back, pos, "{}", pos.to_fen());
            // The game's moves: none once it is over (a 100-ply draw still has moves in the
            // position, and their children, with the counter past 100, are unreachable).
            for &m in game.legal_moves().iter() {
                assert_eq!(pos.check(m), Ok(()), "{m} in {}", pos.to_fen());
                let mut p = pos;
                let undo = p.make(m);
                assert_eq!(p.hash(), p.compute_hash(), "{m} in {}", pos.to_fen());
                assert_eq!(p.hash(), pos.hash_after(m));
                let child = p;
                p.unmake(m, undo);
                assert_eq!(p, pos, "unmake {m}");
                let mut q = pos;
                q.play(m).unwrap();
                assert_eq!(q, child);
                let back = Position::from_fen(&child.to_fen(), child.rules()).unwrap();
                assert_eq!(back, child, "{}", child.to_fen());
            }
        });
    }

    /// `Game::outcome` at every ply matches the referee, and an ended game takes no moves.
    #[test]
    fn outcome_matches_referee(s in setups()) {
        let mut history: Vec<Naive> = Vec::new();
        random_game(&s, |game, _| {
            let nv = naive_of(game.position());
            // The position string leaves out nothing that the rules look at.
            history.push(nv);
            let expect = referee(&history);
            assert_eq!(game.outcome(), expect, "{}", game.position().to_fen());
            if let Some(o) = expect {
                assert!(game.legal_moves().is_empty());
                let any = Move::place(millstone::Point::from_index(0));
                assert_eq!(game.clone().play(any), Err(GameError::Over(o)));
            }
        });
    }

    /// A random packed move is accepted by `check` exactly when it is a legal move.
    #[test]
    fn random_packed_moves_checked_exactly(s in setups()) {
        random_game(&s, |game, rng| {
            let pos = game.position();
            let legal = pos.legal_moves();
            for k in 0..64 {
                let v: u16 = if k % 2 == 0 {
                    rng.gen()
                } else {
                    // Fields in range more often: 0..32 each, so most unpack.
                    rng.gen_range(0..32) | rng.gen_range(0..32) << 5 | rng.gen_range(0..32) << 10
                };
                if let Some(m) = Move::from_u16(v) {
                    assert_eq!(m.to_u16(), v);
                    assert_eq!(pos.check(m).is_ok(), legal.contains(m), "{m} in {}", pos.to_fen());
                    let mut p = *pos;
                    let played = p.play(m);
                    assert_eq!(played.is_ok(), legal.contains(m));
                    if played.is_err() {
                        assert_eq!(p, *pos, "a refused move leaves the position alone");
                    }
                }
            }
            // Every legal move survives the packing.
            for &m in legal.iter() {
                assert_eq!(Move::from_u16(m.to_u16()), Some(m));
            }
        });
    }

    /// `movegen::nth` numbers the legal moves: `0..n` name each move of `generate`'s list exactly
    /// once (so a uniform index is a uniform move), `n` names none, `choose` picks the same as
    /// `nth` after counting them right, and `count` and `has_legal_move` agree with the list (the
    /// random players of the Python bindings rely on this: they pick a move by its number
    /// without building the list).
    #[test]
    fn numbered_moves_are_the_list(s in setups()) {
        random_game(&s, |game, _| {
            let pos = game.position();
            let legal = pos.legal_moves();
            assert_eq!(millstone::movegen::count(pos), legal.len() as u64, "{}", pos.to_fen());
            assert_eq!(millstone::movegen::has_legal_move(pos), !legal.is_empty());
            let mut numbered: Vec<Move> = (0..legal.len() as u64)
                .map(|k| millstone::movegen::nth(pos, k).expect("k below the count"))
                .collect();
            let mut listed = legal.as_slice().to_vec();
            numbered.sort_by_key(|m| m.to_u16());
            listed.sort_by_key(|m| m.to_u16());
            assert_eq!(numbered, listed, "{}", pos.to_fen());
            assert_eq!(millstone::movegen::nth(pos, legal.len() as u64), None);
            for k in [0, legal.len() / 2, legal.len().saturating_sub(1)] {
                let mut seen = 0;
                let m = millstone::movegen::choose(pos, |n| {
                    seen = n;
                    k as u64
                });
                assert_eq!(m, millstone::movegen::nth(pos, k as u64), "{k} in {}", pos.to_fen());
                assert_eq!(seen, legal.len() as u64 * (m.is_some() as u64));
            }
        });
    }

    /// A random string is accepted (parsed and checked) exactly when it names a legal move.
    #[test]
    fn random_strings_checked_exactly(
        s in setups(),
        tokens in prop::collection::vec(
            prop_oneof![
                "[a-g][1-7](-[a-g][1-7])?(x[a-g][1-7])?",
                "[a-hxX1-8 -]{0,8}",
                "\\PC{0,6}",
            ],
            16,
        ),
    ) {
        random_game(&s, |game, _| {
            let pos = game.position();
            let legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
            for t in &tokens {
                let accepted = t.parse::<Move>().is_ok_and(|m| pos.check(m).is_ok());
                let is_legal = legal.iter().any(|l| l.eq_ignore_ascii_case(t));
                assert_eq!(accepted, is_legal, "'{t}' in {}", pos.to_fen());
                if let Ok(m) = t.parse::<Move>() {
                    assert!(m.to_string().eq_ignore_ascii_case(t), "{t} prints as {m}");
                }
            }
            // And the legal moves' own notation is accepted.
            for l in &legal {
                let m: Move = l.parse().unwrap();
                assert_eq!(pos.check(m), Ok(()));
            }
        });
    }
}

/// The seeded games the properties play do reach every kind of ending, and the referee agrees
/// with `Game::outcome` along all of them (so the property above is not vacuous).
#[test]
fn random_games_reach_every_ending() {
    let mut reasons = std::collections::HashSet::new();
    for seed in 0..128u64 {
        for start in 0..STARTS.len() {
            let s = Setup {
                twelve: seed % 2 == 0,
                flying: seed % 4 < 2,
                seed,
                start,
                quiet: seed % 8 < 4,
                plies: 300,
            };
            let mut history = Vec::new();
            let mut last = None;
            random_game(&s, |game, _| {
                history.push(naive_of(game.position()));
                last = game.outcome();
                assert_eq!(last, referee(&history), "{s:?}");
            });
            if let Some(o) = last {
                reasons.insert(o.reason());
            }
        }
    }
    for r in [
        EndReason::Material,
        EndReason::Blocked,
        EndReason::FullBoard,
        EndReason::Threefold,
        EndReason::HundredPlies,
    ] {
        assert!(reasons.contains(&r), "no random game ended by {r}");
    }
}
