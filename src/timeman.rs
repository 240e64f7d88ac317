//! Time management: how long to think for a move.

use crate::types::Color;
use std::time::Duration;

/// What the clock allows for one search.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// After an iteration ends past this, start no new one.
    pub soft: Duration,
    /// Stop the search at once past this.
    pub hard: Duration,
    /// A fixed time for the move (`movetime`): use it whole, starting new iterations until the
    /// hard limit; a clock's budget instead starts none past a part of `soft`.
    pub fixed: bool,
}

/// The clock state given by `go`.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// Time left for White and Black.
    pub time: [Option<Duration>; 2],
    /// Increment per move for White and Black.
    pub inc: [Duration; 2],
    /// Moves until the next time control, if any.
    pub movestogo: Option<u32>,
    /// A fixed time for this move.
    pub movetime: Option<Duration>,
}

/// Moving-phase moves we plan for when the clock gives no `movestogo`: mill games are shorter
/// than chess games.
const DEFAULT_MOVES_TO_GO: u32 = 24;

/// How many moving-phase moves' time a placement is planned to take. The placing phase decides
/// the game: without tables the engine gives its values away there (6 of the 7 games the
/// perfect engine won from it, docs/nnue.md), four times the search keeps about a third of
/// the placements it loses at 100 ms, and the moving phase keeps 1999 of 2000 values at
/// 100 ms (docs/nnue.md, "Time on the clock").
const PLACING_WEIGHT: u32 = 3;

/// The budget for the side `us`, with `in_hand` pieces still to place, or `None` when the
/// clock sets no limit.
pub fn budget(clock: &Clock, us: Color, in_hand: u32, overhead: Duration) -> Option<TimeBudget> {
    let floor = Duration::from_millis(1);
    if let Some(mt) = clock.movetime {
        // A fixed time is the harness's promise of that much thinking: keep back the overhead,
        // but never more than a quarter of the time, or short move times would leave nothing.
        let t = mt.saturating_sub(overhead.min(mt / 4)).max(floor);
        return Some(TimeBudget {
            soft: t,
            hard: t,
            fixed: true,
        });
    }
    let left = clock.time[us.index()]?;
    let inc = clock.inc[us.index()];
    // Never plan to use the overhead or the last sliver of the clock.
    let usable = left.saturating_sub(overhead).saturating_sub(left / 50);
    let mtg = clock.movestogo.unwrap_or(DEFAULT_MOVES_TO_GO).clamp(1, 60);
    // The clock is shared out in units: a moving-phase move takes one, a placement
    // PLACING_WEIGHT. Before a time control, the placements left count among its moves;
    // without one, the moving phase's planned moves come after them.
    let units = match clock.movestogo {
        Some(_) => {
            let placements = in_hand.min(mtg);
            PLACING_WEIGHT * placements + (mtg - placements)
        }
        None => PLACING_WEIGHT * in_hand + mtg,
    };
    let share = if in_hand > 0 { PLACING_WEIGHT } else { 1 };
    let base = usable.mul_f64(share as f64 / units as f64) + inc.mul_f64(0.75);
    let soft = base.min(usable.mul_f64(0.6)).max(floor);
    let hard_cap = if units == share {
        usable.mul_f64(0.9)
    } else {
        usable.mul_f64(0.35)
    };
    let hard = (soft * 4).min(hard_cap).max(soft).max(floor);
    Some(TimeBudget {
        soft,
        hard,
        fixed: false,
    })
}

/// How much of a clock move's soft limit to use before starting no new iteration, from how
/// often the best move changed lately (`instability`: the changes of each iteration, halved
/// each iteration after) and how far the score fell from the previous iteration. A move that
/// keeps changing, or a score that falls, means the search is still finding things out, and
/// a best move that stayed put for several iterations will most likely stay put (Stockfish
/// scales its time the same way).
pub fn iteration_share(instability: f64, fall: i32) -> f64 {
    let settle = (0.4 + 0.35 * instability).min(1.0);
    let falling = 1.0 + (fall.clamp(0, 100) as f64 / 200.0);
    settle * falling
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn movetime_minus_overhead() {
        let c = Clock {
            movetime: Some(ms(1000)),
            ..Clock::default()
        };
        let b = budget(&c, Color::White, 0, ms(30)).unwrap();
        assert_eq!(b.soft, ms(970));
        assert_eq!(b.hard, ms(970));
    }

    #[test]
    fn short_movetime_keeps_most_of_its_time() {
        let c = Clock {
            movetime: Some(ms(20)),
            ..Clock::default()
        };
        let b = budget(&c, Color::White, 0, ms(30)).unwrap();
        assert_eq!(b.hard, ms(15));
    }

    #[test]
    fn never_more_than_the_clock() {
        for left in [1u64, 5, 50, 500, 5000, 60000] {
            for inc in [0u64, 10, 100, 1000] {
                for in_hand in [0, 1, 9, 12] {
                    for movestogo in [None, Some(0), Some(1), Some(5), Some(40)] {
                        let c = Clock {
                            time: [Some(ms(left)), Some(ms(left))],
                            inc: [ms(inc), ms(inc)],
                            movestogo,
                            ..Clock::default()
                        };
                        let b = budget(&c, Color::Black, in_hand, ms(10)).unwrap();
                        assert!(b.soft <= b.hard);
                        assert!(
                            b.hard <= ms(left).max(ms(1)),
                            "left {left} inc {inc} in hand {in_hand} mtg {movestogo:?}: {b:?}"
                        );
                    }
                }
            }
        }
    }

    fn clock(left: u64, movestogo: Option<u32>) -> Clock {
        Clock {
            time: [Some(ms(left)), Some(ms(left))],
            movestogo,
            ..Clock::default()
        }
    }

    #[test]
    fn a_placement_gets_more_than_a_moving_move() {
        let soft = |in_hand| {
            budget(&clock(60_000, None), Color::White, in_hand, ms(0))
                .unwrap()
                .soft
        };
        // With the same clock, the first of nine placements plans 24 / 17 of a moving move's
        // time, the last 24 / 9.
        assert!(
            soft(9) > soft(0).mul_f64(1.3),
            "{:?} {:?}",
            soft(9),
            soft(0)
        );
        assert!(soft(1) > soft(0) * 2, "{:?} {:?}", soft(1), soft(0));
        // The placements left share the clock with the moving phase still to come: the
        // last one may take the most.
        assert!(soft(1) > soft(9));
        // Before a time control a placement still weighs more than a moving move, and the
        // last move before it may use most of what is left.
        let mtg =
            |in_hand, m| budget(&clock(60_000, Some(m)), Color::White, in_hand, ms(0)).unwrap();
        assert!(mtg(3, 10).soft > mtg(0, 10).soft);
        assert!(mtg(9, 1).hard > ms(50_000));
        assert!(mtg(0, 1).hard > ms(50_000));
    }

    #[test]
    fn the_moving_phase_keeps_a_fair_part_of_the_clock() {
        // Nine's placing phase played with each move's soft limit, no increment: what is left
        // for the moving phase is about 24 / 51 of the clock (the weights' telescoping
        // product), and for twelve 24 / 60.
        for (pieces, low, high) in [(9, 0.42, 0.50), (12, 0.35, 0.44)] {
            let mut left = ms(60_000);
            for in_hand in (1..=pieces).rev() {
                let c = Clock {
                    time: [Some(left), Some(left)],
                    ..Clock::default()
                };
                left -= budget(&c, Color::White, in_hand, ms(0)).unwrap().soft;
            }
            let kept = left.as_secs_f64() / 60.0;
            assert!(kept > low && kept < high, "{pieces} pieces: {kept}");
        }
    }

    #[test]
    fn a_changing_best_move_or_a_falling_score_takes_more_of_the_move() {
        let settled = iteration_share(0.0, 0);
        assert!(settled < iteration_share(1.0, 0));
        assert!(iteration_share(1.0, 0) < iteration_share(2.0, 0));
        assert!(iteration_share(1.0, 0) < iteration_share(1.0, 60));
        // Bounded: a search never plans past one and a half soft limits (the hard limit ends
        // it anyway) and never stops before a part of it.
        assert!(iteration_share(100.0, 10_000) <= 1.5);
        assert!(iteration_share(0.0, -10_000) >= 0.4);
    }

    #[test]
    fn no_clock_no_budget() {
        assert!(budget(&Clock::default(), Color::White, 5, ms(10)).is_none());
    }
}
