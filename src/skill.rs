//! Playing weaker on purpose, for people: `Skill Level`, `UCI_LimitStrength` and `UCI_Elo`.
//!
//! A weakened engine searches less deep and looks at several lines, as Stockfish's skill levels
//! do; it then picks one at random, each line weighted by `exp(-loss / T)` where `loss` is how
//! much worse than the best line it scored and the temperature `T` grows as the level falls.
//! So the moves stay plausible (a line that throws a piece away is rare even at level 0, and
//! never chosen at the top levels), and weaker levels see less far and choose less well. The randomness depends only on the seed and the position, so a game
//! against a fixed seed with one thread and a depth-limited search reproduces move for move.

use crate::moves::Move;
use crate::search::MATE_BOUND;

/// The full-strength level (no weakening).
pub const MAX_LEVEL: u32 = 20;

/// Measured Elo of levels, on the scale where `greedy` (the tools' one-ply player) stands at
/// 1000: a chain of `mill-match` results at 100 ms a move (greedy vs 0, 0 vs 4, 4 vs 8, 8 vs 12,
/// 12 vs 14, 12 vs 16, 16 vs 20; docs/strength.md has the figures and error bars).
/// Levels in between are interpolated.
pub const LEVEL_ELO: [(u32, i32); 7] = [
    (0, 873),
    (4, 1174),
    (8, 1610),
    (12, 1976),
    (14, 2096),
    (16, 2159),
    (20, 2293),
];

/// Weakest `UCI_Elo` (level 0).
pub const MIN_ELO: i32 = LEVEL_ELO[0].1;
/// Strongest `UCI_Elo` (level 20, full strength).
pub const MAX_ELO: i32 = LEVEL_ELO[LEVEL_ELO.len() - 1].1;

/// A strength setting: a level from 0 to 20 in hundredths (UCI_Elo falls between levels).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    centilevel: u32,
    seed: u64,
}

impl Default for Skill {
    fn default() -> Self {
        Skill::full()
    }
}

impl Skill {
    /// Full strength.
    pub fn full() -> Skill {
        Skill {
            centilevel: MAX_LEVEL * 100,
            seed: 0,
        }
    }

    /// Level `level` (clamped to 0..=20) with the random choices seeded by `seed`.
    pub fn level(level: u32, seed: u64) -> Skill {
        Skill {
            centilevel: level.min(MAX_LEVEL) * 100,
            seed,
        }
    }

    /// The level that plays at about `elo` (clamped to the measured range).
    pub fn from_elo(elo: i32, seed: u64) -> Skill {
        let elo = elo.clamp(MIN_ELO, MAX_ELO);
        let i = LEVEL_ELO
            .windows(2)
            .position(|w| elo <= w[1].1)
            .unwrap_or(LEVEL_ELO.len() - 2);
        let ((l0, e0), (l1, e1)) = (LEVEL_ELO[i], LEVEL_ELO[i + 1]);
        let t = (elo - e0) as f64 / (e1 - e0) as f64;
        let centilevel = ((l0 as f64 + t * (l1 - l0) as f64) * 100.0).round() as u32;
        Skill { centilevel, seed }
    }

    /// Whether this is full strength (the search is not touched).
    pub fn is_full(&self) -> bool {
        self.centilevel >= MAX_LEVEL * 100
    }

    /// The level in hundredths.
    pub fn centilevel(&self) -> u32 {
        self.centilevel
    }

    /// How many lines a weakened search looks at: five at level 19, where the choice is among
    /// good moves, up to twenty-four at level 0, where it takes in moves that miss a threat,
    /// as a beginner's do.
    pub fn lines(&self) -> usize {
        4 + (MAX_LEVEL * 100 - self.centilevel.min(MAX_LEVEL * 100)).div_ceil(100) as usize
    }

    /// The temperature of the choice, in centipieces: a line `t` worse than the best is
    /// chosen `e` times less often. It falls with the square of the distance to full
    /// strength (plus a sixth power that only the lowest levels feel), so that the top levels
    /// almost always play the best line and level 0 often plays a piece away.
    pub fn temperature(&self) -> f64 {
        let weakness = (MAX_LEVEL * 100 - self.centilevel.min(MAX_LEVEL * 100)) as f64 / 2000.0;
        let w2 = weakness * weakness;
        300.0 * w2 + 300.0 * w2 * w2 * w2
    }

    /// The deepest iteration a weakened search runs.
    pub fn depth_limit(&self) -> i32 {
        1 + (self.centilevel / 100) as i32
    }

    /// Chooses among `lines` (root moves with their scores, best first) for the position with
    /// hash `key`. Full strength takes the first.
    pub fn pick(&self, lines: &[(Move, i32)], key: u64) -> Option<Move> {
        let &(first, top) = lines.first()?;
        if self.is_full() {
            return Some(first);
        }
        // A forced result is kept: a weak player still takes a mill that wins on the spot and
        // sees a loss it can avoid one move ahead.
        if top >= MATE_BOUND {
            return Some(first);
        }
        let t = self.temperature().max(1e-3);
        let weights: Vec<f64> = lines
            .iter()
            .map(|&(_, s)| (-((top - s).max(0) as f64) / t).exp())
            .collect();
        let mut rng = SplitMix(self.seed ^ key.rotate_left(17));
        let mut u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * weights.iter().sum::<f64>();
        for (&(m, _), w) in lines.iter().zip(&weights) {
            if u < *w {
                return Some(m);
            }
            u -= w;
        }
        Some(lines[lines.len() - 1].0)
    }
}

/// A tiny, well-mixed generator, so that a choice depends only on the seed and the position.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    #[test]
    fn elo_maps_onto_levels() {
        assert_eq!(Skill::from_elo(0, 0).centilevel(), 0);
        assert!(Skill::from_elo(MAX_ELO, 0).is_full());
        assert!(Skill::from_elo(99999, 0).is_full());
        let mid = Skill::from_elo((LEVEL_ELO[1].1 + LEVEL_ELO[2].1) / 2, 0).centilevel();
        assert!((LEVEL_ELO[1].0 * 100..=LEVEL_ELO[2].0 * 100).contains(&mid));
        let mut last = 0;
        for elo in (MIN_ELO..=MAX_ELO).step_by(25) {
            let c = Skill::from_elo(elo, 0).centilevel();
            assert!(c >= last, "levels grow with Elo");
            last = c;
        }
    }

    #[test]
    fn full_strength_takes_the_best_line() {
        let lines = [(mv("d6"), 10), (mv("a1"), 9), (mv("g7"), 8)];
        assert_eq!(Skill::full().pick(&lines, 1), Some(mv("d6")));
    }

    #[test]
    fn weak_levels_vary_but_reproduce_and_stay_among_the_lines() {
        let lines = [(mv("d6"), 10), (mv("a1"), 5), (mv("g7"), 0), (mv("d2"), -5)];
        let s = Skill::level(0, 7);
        let picks: Vec<_> = (0..200u64).map(|k| s.pick(&lines, k).unwrap()).collect();
        assert!(picks.iter().all(|p| lines.iter().any(|l| l.0 == *p)));
        assert!(picks.iter().any(|&p| p != mv("d6")), "level 0 varies");
        let again: Vec<_> = (0..200u64).map(|k| s.pick(&lines, k).unwrap()).collect();
        assert_eq!(picks, again, "same seed, same choices");
    }

    #[test]
    fn a_blunder_far_below_is_rarely_chosen_by_good_levels() {
        let lines = [
            (mv("d6"), 50),
            (mv("a1"), 45),
            (mv("g7"), -400),
            (mv("d2"), -450),
        ];
        let s = Skill::level(16, 3);
        let bad = (0..500u64)
            .filter(|&k| matches!(s.pick(&lines, k), Some(m) if m == mv("g7") || m == mv("d2")))
            .count();
        assert_eq!(bad, 0);
    }
}
