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

/// Moves we expect still to play when the clock gives no `movestogo`: mill games are shorter than
/// chess games, and spending a little more early (where the placing phase decides structure)
/// pays.
const DEFAULT_MOVES_TO_GO: u32 = 24;

/// The budget for the side `us`, or `None` when the clock sets no limit.
pub fn budget(clock: &Clock, us: Color, overhead: Duration) -> Option<TimeBudget> {
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
    let base = usable / mtg + inc.mul_f64(0.75);
    let soft = base.min(usable.mul_f64(0.6)).max(floor);
    let hard_cap = if mtg == 1 {
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
        let b = budget(&c, Color::White, ms(30)).unwrap();
        assert_eq!(b.soft, ms(970));
        assert_eq!(b.hard, ms(970));
    }

    #[test]
    fn short_movetime_keeps_most_of_its_time() {
        let c = Clock {
            movetime: Some(ms(20)),
            ..Clock::default()
        };
        let b = budget(&c, Color::White, ms(30)).unwrap();
        assert_eq!(b.hard, ms(15));
    }

    #[test]
    fn never_more_than_the_clock() {
        for left in [1u64, 5, 50, 500, 5000, 60000] {
            for inc in [0u64, 10, 100, 1000] {
                let c = Clock {
                    time: [Some(ms(left)), Some(ms(left))],
                    inc: [ms(inc), ms(inc)],
                    ..Clock::default()
                };
                let b = budget(&c, Color::Black, ms(10)).unwrap();
                assert!(b.soft <= b.hard);
                assert!(
                    b.hard <= ms(left).max(ms(1)),
                    "left {left} inc {inc}: {b:?}"
                );
            }
        }
    }

    #[test]
    fn no_clock_no_budget() {
        assert!(budget(&Clock::default(), Color::White, ms(10)).is_none());
    }
}
