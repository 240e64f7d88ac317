//! Match statistics for engine-vs-engine tournaments: Elo estimates with
//! confidence intervals, likelihood of superiority (LOS) and the sequential
//! probability ratio test (SPRT), in the way cutechess-cli and fastchess
//! report them.
//!
//! All results are seen from the *first* engine's point of view. All Elo
//! values are *logistic* Elo (`score = 1 / (1 + 10^(-elo / 400))`); normalized
//! Elo is not offered.

use std::fmt;
use std::ops::AddAssign;
use std::str::FromStr;

/// Two-sided 95% quantile of the standard normal distribution
/// (`Phi^-1(0.975)` = 1.959964...), the factor cutechess-cli and fastchess use
/// for their "+/-" error bars; computed by [`normal_quantile`].
pub fn z_95() -> f64 {
    normal_quantile(0.975)
}

/// Outcome of a single game from the first engine's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The first engine won.
    Win,
    /// The game was drawn.
    Draw,
    /// The first engine lost.
    Loss,
}

impl GameResult {
    /// Points the first engine earns: 1, 0.5 or 0.
    pub fn score(self) -> f64 {
        f64::from(self.half_points()) / 2.0
    }

    /// The same game seen from the other engine's side, for runners that
    /// record results per colour rather than per engine.
    pub fn opposite(self) -> GameResult {
        match self {
            GameResult::Win => GameResult::Loss,
            GameResult::Draw => GameResult::Draw,
            GameResult::Loss => GameResult::Win,
        }
    }

    // Integer half-points keep pentanomial indexing exact.
    fn half_points(self) -> u8 {
        match self {
            GameResult::Win => 2,
            GameResult::Draw => 1,
            GameResult::Loss => 0,
        }
    }
}

/// Win/draw/loss counts from the first engine's point of view (the
/// "trinomial" model, which treats every game as independent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Wdl {
    /// Games won by the first engine.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games lost by the first engine.
    pub losses: u64,
}

impl Wdl {
    /// Creates counts from explicit numbers of wins, draws and losses.
    pub fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    /// Total number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored by the first engine (wins + draws / 2).
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Fraction of the available points won by the first engine, in `0..=1`;
    /// `None` when no game has been played, since no score is defined then.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// Records one game.
    pub fn add(&mut self, result: GameResult) {
        match result {
            GameResult::Win => self.wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::Loss => self.losses += 1,
        }
    }

    /// Elo difference with a 95% confidence interval, treating games as
    /// independent; `None` when no game has been played.
    pub fn elo(&self) -> Option<EloEstimate> {
        EloEstimate::from_distribution(&self.distribution())
    }

    /// Likelihood of superiority, `0.5 * (1 + erf((W - L) / sqrt(2 (W + L))))`
    /// as cutechess-cli reports it (draws carry no information here); `None`
    /// when there are no decisive games, where the formula is 0/0.
    pub fn los(&self) -> Option<f64> {
        let decisive = self.wins + self.losses;
        if decisive == 0 {
            return None;
        }
        let diff = self.wins as f64 - self.losses as f64;
        Some(0.5 * (1.0 + erf(diff / (2.0 * decisive as f64).sqrt())))
    }

    // (count, per-game score) pairs: the sample the estimators work on.
    fn distribution(&self) -> [(f64, f64); 3] {
        [
            (self.losses as f64, 0.0),
            (self.draws as f64, 0.5),
            (self.wins as f64, 1.0),
        ]
    }
}

impl AddAssign for Wdl {
    /// Merges the counts of another match or worker.
    fn add_assign(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

impl fmt::Display for Wdl {
    /// Formats as `W/D/L`, e.g. `120/50/30`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.wins, self.draws, self.losses)
    }
}

/// Counts of game pairs (the same opening played twice with colours swapped)
/// by the first engine's pair score.
///
/// Pairing cancels most of the opening's bias, so the spread of pair scores
/// is smaller than two independent games would suggest; estimates based on
/// these counts are correspondingly tighter and are what fastchess reports
/// as "Ptnml(0-2)".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Pentanomial {
    /// `counts[i]` is the number of pairs in which the first engine scored
    /// `i / 2` points, i.e. pair scores 0, 0.5, 1, 1.5 and 2.
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// Creates counts for pair scores 0, 0.5, 1, 1.5 and 2, in that order.
    pub fn new(counts: [u64; 5]) -> Self {
        Pentanomial { counts }
    }

    /// Records the two games of one pair, both from the first engine's
    /// point of view.
    pub fn add_pair(&mut self, first: GameResult, second: GameResult) {
        let half_points = first.half_points() + second.half_points();
        self.counts[usize::from(half_points)] += 1;
    }

    /// Number of complete pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Number of games in the complete pairs (twice the number of pairs).
    pub fn games(&self) -> u64 {
        2 * self.pairs()
    }

    /// Fraction of the available points won by the first engine, in `0..=1`;
    /// `None` when no pair has been completed.
    pub fn score(&self) -> Option<f64> {
        let pairs = self.pairs();
        if pairs == 0 {
            return None;
        }
        let half_points: u64 = self
            .counts
            .iter()
            .zip(0u64..)
            .map(|(&count, hp)| count * hp)
            .sum();
        Some(half_points as f64 / (4 * pairs) as f64)
    }

    /// Elo difference with a 95% confidence interval, using the variance of
    /// the pair scores (halved, so that it is per game) as fastchess does;
    /// `None` when no pair has been completed.
    pub fn elo(&self) -> Option<EloEstimate> {
        EloEstimate::from_distribution(&self.distribution())
    }

    /// Likelihood of superiority under the normal approximation,
    /// `0.5 * (1 + erf((mean - 0.5) / sqrt(2 var / pairs)))`, with mean and
    /// variance taken over the per-game scores of the pairs (fastchess'
    /// pentanomial LOS). `None` without pairs, or when every pair scored
    /// exactly 1 point, where the formula is 0/0.
    pub fn los(&self) -> Option<f64> {
        let (n, mean, var) = moments(&self.distribution())?;
        let shift = mean - 0.5;
        if var == 0.0 {
            // A degenerate sample is certain about its sign, if it has one.
            return if shift > 0.0 {
                Some(1.0)
            } else if shift < 0.0 {
                Some(0.0)
            } else {
                None
            };
        }
        Some(0.5 * (1.0 + erf(shift / (2.0 * var / n).sqrt())))
    }

    // Pair scores are divided by two so that every statistic lives on the
    // per-game 0..1 scale, directly comparable with the trinomial one.
    fn distribution(&self) -> [(f64, f64); 5] {
        let c = self.counts.map(|count| count as f64);
        [
            (c[0], 0.0),
            (c[1], 0.25),
            (c[2], 0.5),
            (c[3], 0.75),
            (c[4], 1.0),
        ]
    }
}

impl AddAssign for Pentanomial {
    /// Merges the counts of another match or worker.
    fn add_assign(&mut self, other: Pentanomial) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine += theirs;
        }
    }
}

impl fmt::Display for Pentanomial {
    /// Formats as a list, e.g. `[1, 10, 40, 30, 19]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.counts;
        write!(f, "[{a}, {b}, {c}, {d}, {e}]")
    }
}

/// Sample size, mean and population variance of a weighted sample given as
/// `(count, value)` pairs; `None` for an empty sample.
fn moments(sample: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n: f64 = sample.iter().map(|&(count, _)| count).sum();
    if n <= 0.0 {
        return None;
    }
    let mean = sample.iter().map(|&(count, x)| count * x).sum::<f64>() / n;
    // Two-pass form: the one-pass E[x^2] - mean^2 cancels badly when one
    // outcome dominates.
    let var = sample
        .iter()
        .map(|&(count, x)| count * (x - mean) * (x - mean))
        .sum::<f64>()
        / n;
    Some((n, mean, var))
}

/// Converts an expected score (`0..=1`) to a logistic Elo difference,
/// `-400 * log10(1 / score - 1)`.
///
/// Scores at or beyond the ends map to `-inf` / `+inf` instead of NaN, so
/// that one-sided results and confidence bounds that leave `0..=1` stay
/// ordered. A NaN score gives NaN.
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // Written as a ratio rather than -400 * log10(1/score - 1) so that a
        // score of exactly 0.5 gives +0.0, not -0.0 ("-0.0" when printed).
        400.0 * (score / (1.0 - score)).log10()
    }
}

/// Converts a logistic Elo difference to the expected score,
/// `1 / (1 + 10^(-elo / 400))`.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An Elo difference with its 95% confidence interval.
///
/// Any of the fields may be infinite: a perfect score gives `+inf`, a zero
/// score `-inf`, and an interval that extends beyond a score of 0 or 1 gets
/// an infinite bound. They are never NaN.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloEstimate {
    /// Point estimate, from the observed score.
    pub elo: f64,
    /// Lower end of the 95% confidence interval.
    pub lower: f64,
    /// Upper end of the 95% confidence interval.
    pub upper: f64,
}

impl EloEstimate {
    /// Half the width of the confidence interval: the "+/- Y" in
    /// cutechess-cli's "Elo difference: X +/- Y". The interval is not
    /// symmetric around `elo` in Elo units, which is why tools report the
    /// mean of both sides. Infinite when either bound is infinite.
    pub fn error_margin(&self) -> f64 {
        if self.lower.is_finite() && self.upper.is_finite() {
            (self.upper - self.lower) / 2.0
        } else {
            f64::INFINITY
        }
    }

    // The interval is built on the score scale, where the normal
    // approximation holds, and only then mapped to Elo through the logistic.
    fn from_distribution(sample: &[(f64, f64)]) -> Option<EloEstimate> {
        let (n, mean, var) = moments(sample)?;
        let half_width = z_95() * (var / n).sqrt();
        Some(EloEstimate {
            elo: score_to_elo(mean),
            lower: score_to_elo(mean - half_width),
            upper: score_to_elo(mean + half_width),
        })
    }
}

impl fmt::Display for EloEstimate {
    /// Formats as `X +/- Y` with one decimal unless a precision is given,
    /// e.g. `format!("{:.2}", estimate)`; infinities print as `+inf`,
    /// `-inf` and `inf`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let precision = f.precision().unwrap_or(1);
        let margin = self.error_margin();
        let margin = if margin.is_finite() {
            format!("{margin:.precision$}")
        } else {
            "inf".to_string()
        };
        write!(f, "{} +/- {}", format_elo_with(self.elo, precision), margin)
    }
}

/// Formats an Elo value with one decimal, writing infinities as `+inf` and
/// `-inf` (Rust's default would print `inf` without a sign).
pub fn format_elo(elo: f64) -> String {
    format_elo_with(elo, 1)
}

fn format_elo_with(elo: f64, precision: usize) -> String {
    if elo == f64::INFINITY {
        "+inf".to_string()
    } else if elo == f64::NEG_INFINITY {
        "-inf".to_string()
    } else {
        format!("{elo:.precision$}")
    }
}

/// The error function, from `libm` (a port of FreeBSD's msun, within an ulp over the whole
/// real line; `std` has no `erf`).
pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// The quantile function (inverse CDF) of the standard normal distribution, from `statrs`:
/// `normal_quantile(0.975)` is the 1.95996... of the 95% error bars. `p` outside `0..=1`
/// gives NaN.
pub fn normal_quantile(p: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    Normal::standard().inverse_cdf(p)
}

/// Verdict of a sequential probability ratio test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SprtDecision {
    /// The LLR reached the lower bound: the Elo difference is believed to be
    /// at most `elo0`.
    AcceptH0,
    /// The LLR reached the upper bound: the Elo difference is believed to be
    /// at least `elo1`.
    AcceptH1,
    /// Neither bound reached: play more games.
    Continue,
}

/// Parameters of a sequential probability ratio test on logistic Elo:
/// H0 "elo = elo0" against H1 "elo = elo1".
///
/// The fields are public for reading; [`Sprt::new`], [`Sprt::from_args`]
/// and [`str::parse`] validate them, a struct literal does not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    /// Logistic Elo difference of the null hypothesis.
    pub elo0: f64,
    /// Logistic Elo difference of the alternative hypothesis.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 is true (false positive rate).
    pub alpha: f64,
    /// Probability of accepting H0 when H1 is true (false negative rate).
    pub beta: f64,
}

/// Why SPRT parameters were rejected.
#[derive(Debug, Clone, PartialEq)]
pub enum SprtError {
    /// A required key (`elo0`, `elo1`, `alpha` or `beta`) was not given.
    MissingKey(&'static str),
    /// A key other than the four known ones was given.
    UnknownKey(String),
    /// The same key was given twice; rejected rather than letting the last
    /// one silently win.
    DuplicateKey(&'static str),
    /// A token was not of the form `key=value`.
    MalformedToken(String),
    /// A value was not a finite number.
    InvalidNumber {
        /// The key the value belonged to.
        key: &'static str,
        /// The offending text.
        value: String,
    },
    /// `alpha` or `beta` was not strictly between 0 and 1.
    ProbabilityOutOfRange {
        /// `"alpha"` or `"beta"`.
        key: &'static str,
        /// The offending value.
        value: f64,
    },
    /// `alpha + beta >= 1`, which would put the lower bound above the upper.
    ProbabilitySumTooLarge {
        /// The given alpha.
        alpha: f64,
        /// The given beta.
        beta: f64,
    },
    /// `elo0 >= elo1`: the hypotheses must be ordered for the test to mean
    /// anything.
    EloOrder {
        /// The given elo0.
        elo0: f64,
        /// The given elo1.
        elo1: f64,
    },
}

impl fmt::Display for SprtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SprtError::MissingKey(key) => write!(f, "SPRT: missing `{key}=...`"),
            SprtError::UnknownKey(key) => write!(
                f,
                "SPRT: unknown key `{key}` (expected elo0, elo1, alpha, beta)"
            ),
            SprtError::DuplicateKey(key) => write!(f, "SPRT: `{key}` given more than once"),
            SprtError::MalformedToken(token) => {
                write!(f, "SPRT: expected `key=value`, got `{token}`")
            }
            SprtError::InvalidNumber { key, value } => {
                write!(f, "SPRT: `{key}` must be a finite number, got `{value}`")
            }
            SprtError::ProbabilityOutOfRange { key, value } => write!(
                f,
                "SPRT: `{key}` must be strictly between 0 and 1, got {value}"
            ),
            SprtError::ProbabilitySumTooLarge { alpha, beta } => write!(
                f,
                "SPRT: alpha + beta must be less than 1, got {alpha} + {beta}"
            ),
            SprtError::EloOrder { elo0, elo1 } => write!(
                f,
                "SPRT: elo0 must be less than elo1, got elo0={elo0} elo1={elo1}"
            ),
        }
    }
}

impl std::error::Error for SprtError {}

// Zero counts are replaced by this before computing the LLR, as fishtest and
// fastchess do: otherwise a run of identical early results has zero
// variance and the LLR divides by zero.
const LLR_REGULARIZATION: f64 = 1e-3;

impl Sprt {
    /// Validated constructor: `alpha` and `beta` in `(0, 1)` with
    /// `alpha + beta < 1`, `elo0 < elo1`, everything finite.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        for (key, value) in [
            ("elo0", elo0),
            ("elo1", elo1),
            ("alpha", alpha),
            ("beta", beta),
        ] {
            if !value.is_finite() {
                return Err(SprtError::InvalidNumber {
                    key,
                    value: value.to_string(),
                });
            }
        }
        for (key, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 1.0) {
                return Err(SprtError::ProbabilityOutOfRange { key, value });
            }
        }
        if alpha + beta >= 1.0 {
            return Err(SprtError::ProbabilitySumTooLarge { alpha, beta });
        }
        if elo0 >= elo1 {
            return Err(SprtError::EloOrder { elo0, elo1 });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Parses separate `key=value` tokens, as they arrive on a command line
    /// after `-sprt` (e.g. `["elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"]`).
    ///
    /// Keys are case-insensitive and may come in any order; a token may
    /// itself hold several pairs separated by whitespace or commas, and
    /// blank tokens are ignored. All four keys are required.
    pub fn from_args<S: AsRef<str>>(args: &[S]) -> Result<Sprt, SprtError> {
        const KEYS: [&str; 4] = ["elo0", "elo1", "alpha", "beta"];
        let mut values: [Option<f64>; 4] = [None; 4];
        let tokens = args
            .iter()
            .flat_map(|arg| arg.as_ref().split(|c: char| c.is_whitespace() || c == ','))
            .filter(|token| !token.is_empty());
        for token in tokens {
            let (key, value) = token
                .split_once('=')
                .ok_or_else(|| SprtError::MalformedToken(token.to_string()))?;
            let index = KEYS
                .iter()
                .position(|known| known.eq_ignore_ascii_case(key.trim()))
                .ok_or_else(|| SprtError::UnknownKey(key.to_string()))?;
            let key = KEYS[index];
            if values[index].is_some() {
                return Err(SprtError::DuplicateKey(key));
            }
            let number = value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|number| number.is_finite())
                .ok_or_else(|| SprtError::InvalidNumber {
                    key,
                    value: value.to_string(),
                })?;
            values[index] = Some(number);
        }
        let get = |index: usize| values[index].ok_or(SprtError::MissingKey(KEYS[index]));
        Sprt::new(get(0)?, get(1)?, get(2)?, get(3)?)
    }

    /// Lower LLR bound, `ln(beta / (1 - alpha))`: at or below it H0 is
    /// accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// Upper LLR bound, `ln((1 - beta) / alpha)`: at or above it H1 is
    /// accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// Log-likelihood ratio of H1 against H0 for independent games.
    ///
    /// Uses the generalized SPRT in its simplified normal approximation
    /// (fishtest's "simplified" LLR; current fastchess solves the exact
    /// maximum-likelihood problem instead, which differs slightly):
    /// `0.5 * n * (s1 - s0) * (2 * mean - s0 - s1) / var`, where `s0`, `s1`
    /// are the expected scores of `elo0`, `elo1` under the logistic model and
    /// `mean`, `var` are the sample mean and population variance of the
    /// per-game scores. Zero counts are replaced by 0.001 first, as fishtest
    /// and fastchess do, so the variance is never zero. No games give 0.
    ///
    /// The approximation is poor for tiny samples (two straight wins already
    /// give an LLR above 11 for `[0, 5]`), so a runner may want to require
    /// a minimum number of games before acting on [`Sprt::decision`].
    pub fn llr_wdl(&self, wdl: &Wdl) -> f64 {
        if wdl.games() == 0 {
            return 0.0;
        }
        self.llr(&wdl.distribution())
    }

    /// Log-likelihood ratio of H1 against H0 for game pairs.
    ///
    /// The same formula as [`Sprt::llr_wdl`] with `n` the number of pairs and
    /// `mean`, `var` taken over the pair scores divided by two, which
    /// accounts for the correlation between the two games of a pair. Zero
    /// counts are regularized the same way. No pairs give 0.
    pub fn llr_pentanomial(&self, pentanomial: &Pentanomial) -> f64 {
        if pentanomial.pairs() == 0 {
            return 0.0;
        }
        self.llr(&pentanomial.distribution())
    }

    fn llr<const N: usize>(&self, sample: &[(f64, f64); N]) -> f64 {
        let regularized = sample.map(|(count, x)| {
            let count = if count == 0.0 {
                LLR_REGULARIZATION
            } else {
                count
            };
            (count, x)
        });
        let Some((n, mean, var)) = moments(&regularized) else {
            return 0.0;
        };
        let s0 = elo_to_score(self.elo0);
        let s1 = elo_to_score(self.elo1);
        0.5 * n * (s1 - s0) * (2.0 * mean - s0 - s1) / var
    }

    /// Compares an LLR with the bounds.
    pub fn decision(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

impl FromStr for Sprt {
    type Err = SprtError;

    /// Parses `elo0=0 elo1=5 alpha=0.05 beta=0.05` (whitespace or commas
    /// between pairs, any order); see [`Sprt::from_args`].
    fn from_str(s: &str) -> Result<Sprt, SprtError> {
        Sprt::from_args(&[s])
    }
}

impl fmt::Display for Sprt {
    /// Formats in the form [`FromStr`] accepts, so it round-trips.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={} elo1={} alpha={} beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// One-line match summary, e.g.
/// `Elo: 35.2 +/- 20.1, LOS: 99.9%, W/D/L 120/50/30, score 0.725, pairs [1, 10, 40, 30, 19], LLR 1.23 (-2.94, 2.94)`.
///
/// When `pentanomial` holds at least one pair, Elo, LOS and LLR are computed
/// from it, since it accounts for the colour-swapped pairing; otherwise from
/// `wdl`. The `pairs` part appears only if `pentanomial` is given and the
/// `LLR` part only if `sprt` is. Undefined values print as `n/a`.
pub fn summary_line(wdl: &Wdl, pentanomial: Option<&Pentanomial>, sprt: Option<&Sprt>) -> String {
    let paired = pentanomial.filter(|p| p.pairs() > 0);
    let (elo, los) = match paired {
        Some(p) => (p.elo(), p.los()),
        None => (wdl.elo(), wdl.los()),
    };
    let na = || "n/a".to_string();
    let mut line = format!(
        "Elo: {}, LOS: {}, W/D/L {}, score {}",
        elo.map_or_else(na, |e| e.to_string()),
        los.map_or_else(na, |l| format!("{:.1}%", 100.0 * l)),
        wdl,
        wdl.score().map_or_else(na, |s| format!("{s:.3}")),
    );
    if let Some(p) = pentanomial {
        line.push_str(&format!(", pairs {p}"));
    }
    if let Some(sprt) = sprt {
        let llr = match paired {
            Some(p) => sprt.llr_pentanomial(p),
            None => sprt.llr_wdl(wdl),
        };
        line.push_str(&format!(
            ", LLR {llr:.2} ({:.2}, {:.2})",
            sprt.lower_bound(),
            sprt.upper_bound()
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "expected {expected}, got {actual} (tolerance {tolerance})"
        );
    }

    fn assert_rel(actual: f64, expected: f64, relative: f64) {
        assert!(
            (actual - expected).abs() <= relative * expected.abs(),
            "expected {expected}, got {actual} (relative tolerance {relative})"
        );
    }

    // Reference values below were computed with python3 + mpmath 1.3.0 at
    // 30 significant digits (mp.dps = 30), independently of this code.

    #[test]
    fn erf_matches_reference_values() {
        let cases = [
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (2.0, 0.9953222650189527),
            (-1.0, -0.8427007929497149),
            (0.1, 0.1124629160182849),
            (2.4999, 0.9995928300996666),
            (2.5, 0.999593047982555),
            (3.0, 0.9999779095030014),
            (4.0, 0.9999999845827421),
            (1e-10, 1.1283791670955126e-10),
            (5.9, 0.9999999999999999),
        ];
        for (x, expected) in cases {
            assert_rel(erf(x), expected, 1e-14);
        }
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erf(10.0), 1.0);
        assert_eq!(erf(-10.0), -1.0);
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert!(erf(f64::NAN).is_nan());
    }

    #[test]
    fn normal_quantiles_match_reference_values() {
        // Phi^-1 from mpmath (30 digits): 0.975, 0.95, 0.5, 0.025, 1e-10.
        assert_rel(z_95(), 1.959_963_984_540_054, 1e-14);
        assert_rel(normal_quantile(0.95), 1.644_853_626_951_472_7, 1e-14);
        assert_eq!(normal_quantile(0.5), 0.0);
        assert_rel(normal_quantile(0.025), -1.959_963_984_540_054, 1e-14);
        assert_rel(normal_quantile(1e-10), -6.361_340_902_404_056, 1e-12);
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert!(normal_quantile(1.5).is_nan());
        assert!(normal_quantile(f64::NAN).is_nan());
        // The quantile inverts the CDF built from erf.
        for p in [0.001, 0.1, 0.3, 0.7, 0.9, 0.999] {
            let z = normal_quantile(p);
            assert_rel(0.5 * (1.0 + erf(z / std::f64::consts::SQRT_2)), p, 1e-13);
        }
    }

    #[test]
    fn erf_is_odd_and_monotonic() {
        let mut previous = erf(-7.0);
        for i in -700..=700 {
            let x = f64::from(i) / 100.0;
            let y = erf(x);
            assert_eq!(y, -erf(-x));
            assert!(y >= previous, "erf not monotonic at {x}");
            previous = y;
        }
    }

    #[test]
    fn wdl_counts_and_score() {
        let mut wdl = Wdl::default();
        for result in [
            GameResult::Win,
            GameResult::Win,
            GameResult::Draw,
            GameResult::Loss,
        ] {
            wdl.add(result);
        }
        assert_eq!(wdl, Wdl::new(2, 1, 1));
        assert_eq!(wdl.games(), 4);
        assert_eq!(wdl.points(), 2.5);
        assert_eq!(wdl.score(), Some(0.625));
        wdl += Wdl::new(1, 2, 3);
        assert_eq!(wdl, Wdl::new(3, 3, 4));
        assert_eq!(wdl.to_string(), "3/3/4");
        assert_eq!(GameResult::Win.opposite(), GameResult::Loss);
        assert_eq!(GameResult::Draw.score(), 0.5);
    }

    #[test]
    fn trinomial_elo_worked_example() {
        // W/D/L 60/20/20, n = 100:
        //   score = (60 + 20/2) / 100 = 0.7
        //   elo   = -400 * log10(1/0.7 - 1) = -400 * log10(0.428571) = 147.1907
        //   var   = 0.6*(1-0.7)^2 + 0.2*(0.5-0.7)^2 + 0.2*(0-0.7)^2
        //         = 0.054 + 0.008 + 0.098 = 0.16
        //   SE    = sqrt(0.16 / 100) = 0.04; 1.959964 * 0.04 = 0.0783986
        //   lower = elo(0.7 - 0.0783986 = 0.6216014) = -400*log10(0.608748) = 86.2250
        //   upper = elo(0.7 + 0.0783986 = 0.7783986) = -400*log10(0.284689) = 218.2518
        //   "+/-" = (218.2518 - 86.2250) / 2 = 66.0134
        let estimate = Wdl::new(60, 20, 20).elo().unwrap();
        assert_close(estimate.elo, 147.190_714_117_837_76, 1e-9);
        assert_close(estimate.lower, 86.225_015_200_304_2, 1e-9);
        assert_close(estimate.upper, 218.251_777_641_074_9, 1e-9);
        assert_close(estimate.error_margin(), 66.013_381_220_385_34, 1e-9);
        assert_eq!(estimate.to_string(), "147.2 +/- 66.0");
        assert_eq!(format!("{estimate:.2}"), "147.19 +/- 66.01");
    }

    #[test]
    fn pentanomial_elo_worked_example() {
        // Pairs [1, 10, 40, 30, 19], n = 100 pairs, per-game pair scores
        // 0, 0.25, 0.5, 0.75, 1:
        //   mean = (0 + 2.5 + 20 + 22.5 + 19) / 100 = 0.64
        //   var  = (1*0.64^2 + 10*0.39^2 + 40*0.14^2 + 30*0.11^2 + 19*0.36^2) / 100
        //        = (0.4096 + 1.521 + 0.784 + 0.363 + 2.4624) / 100 = 0.0554
        //   1.959964 * sqrt(0.0554 / 100) = 0.0461321
        //   elo 99.9510, interval [66.0090, 135.8643], "+/-" 34.9276
        let pentanomial = Pentanomial::new([1, 10, 40, 30, 19]);
        assert_eq!(pentanomial.pairs(), 100);
        assert_eq!(pentanomial.games(), 200);
        assert_eq!(pentanomial.score(), Some(0.64));
        let estimate = pentanomial.elo().unwrap();
        assert_close(estimate.elo, 99.950_989_286_639_96, 1e-9);
        assert_close(estimate.lower, 66.009_033_028_142_36, 1e-9);
        assert_close(estimate.upper, 135.864_312_926_673, 1e-9);
        assert_close(estimate.error_margin(), 34.927_639_949_265_35, 1e-9);
        // The same points as independent games (W/D/L 100/56/44, also a score
        // of 0.64) give a wider interval, +/- 42.1034: pairing removes noise.
        let wdl = Wdl::new(100, 56, 44).elo().unwrap();
        assert_close(wdl.elo, estimate.elo, 1e-9);
        assert_close(wdl.error_margin(), 42.103_419_830_265_13, 1e-9);
    }

    #[test]
    fn pentanomial_add_pair_indexes_by_pair_score() {
        use GameResult::*;
        let mut p = Pentanomial::default();
        p.add_pair(Loss, Loss);
        p.add_pair(Loss, Draw);
        p.add_pair(Draw, Loss);
        p.add_pair(Win, Loss);
        p.add_pair(Draw, Draw);
        p.add_pair(Win, Draw);
        p.add_pair(Win, Win);
        assert_eq!(p.counts, [1, 2, 2, 1, 1]);
        p += Pentanomial::new([1, 1, 1, 1, 1]);
        assert_eq!(p.to_string(), "[2, 3, 3, 2, 2]");
    }

    #[test]
    fn elo_edge_cases() {
        assert_eq!(Wdl::default().elo(), None);
        assert_eq!(Wdl::default().score(), None);
        assert_eq!(Pentanomial::default().elo(), None);
        assert_eq!(Pentanomial::default().score(), None);

        let all_wins = Wdl::new(10, 0, 0).elo().unwrap();
        assert_eq!(all_wins.elo, f64::INFINITY);
        assert_eq!(all_wins.lower, f64::INFINITY);
        assert_eq!(all_wins.error_margin(), f64::INFINITY);
        assert_eq!(all_wins.to_string(), "+inf +/- inf");

        let all_losses = Pentanomial::new([5, 0, 0, 0, 0]).elo().unwrap();
        assert_eq!(all_losses.elo, f64::NEG_INFINITY);
        assert_eq!(all_losses.to_string(), "-inf +/- inf");

        // No variance at all: the estimate is exact, 0 +/- 0.
        let all_draws = Wdl::new(0, 10, 0).elo().unwrap();
        assert_eq!(
            (all_draws.elo, all_draws.lower, all_draws.upper),
            (0.0, 0.0, 0.0)
        );
        assert_eq!(all_draws.to_string(), "0.0 +/- 0.0");

        // 9/0/1: score 0.9, var 0.09, half width 1.96*0.0949 = 0.186 pushes
        // the upper end past a score of 1; it must become +inf, not NaN.
        let lopsided = Wdl::new(9, 0, 1).elo().unwrap();
        assert!(lopsided.elo.is_finite() && lopsided.lower.is_finite());
        assert_eq!(lopsided.upper, f64::INFINITY);
        assert!(!lopsided.error_margin().is_nan());
    }

    #[test]
    fn score_elo_conversions() {
        assert_eq!(score_to_elo(0.5), 0.0);
        assert_eq!(score_to_elo(0.0), f64::NEG_INFINITY);
        assert_eq!(score_to_elo(1.0), f64::INFINITY);
        assert_eq!(score_to_elo(1.5), f64::INFINITY);
        assert_close(elo_to_score(5.0), 0.507_195_081_709_051_4, 1e-15);
        for elo in [-500.0, -35.0, 0.0, 12.5, 400.0] {
            assert_close(score_to_elo(elo_to_score(elo)), elo, 1e-9);
        }
        assert_eq!(format_elo(f64::INFINITY), "+inf");
        assert_eq!(format_elo(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_elo(-2.71), "-2.7");
    }

    #[test]
    fn los_examples() {
        // 0.5 * (1 + erf(10 / sqrt(20))) = 0.5 * (1 + erf(2.2360680))
        assert_close(
            Wdl::new(10, 5, 0).los().unwrap(),
            0.999_217_298_870_998_7,
            1e-14,
        );
        assert_close(
            Wdl::new(30, 7, 40).los().unwrap(),
            0.115_998_861_814_367_06,
            1e-14,
        );
        assert_close(
            Wdl::new(120, 50, 30).los().unwrap(),
            0.999_999_999_999_899_8,
            1e-14,
        );
        assert_eq!(Wdl::new(25, 3, 25).los(), Some(0.5));
        assert_eq!(Wdl::new(0, 12, 0).los(), None);
        assert_eq!(Wdl::default().los(), None);

        // Pentanomial: mean 0.64, var 0.0554 (see the Elo example):
        // 0.5 * (1 + erf(0.14 / sqrt(2 * 0.0554 / 100)))
        let p = Pentanomial::new([1, 10, 40, 30, 19]);
        assert_close(p.los().unwrap(), 0.999_999_998_643_056, 1e-14);
        assert_eq!(Pentanomial::new([0, 0, 7, 0, 0]).los(), None);
        assert_eq!(Pentanomial::new([0, 0, 0, 3, 0]).los(), Some(1.0));
        assert_eq!(Pentanomial::new([0, 2, 0, 0, 0]).los(), Some(0.0));
        assert_eq!(Pentanomial::default().los(), None);
    }

    fn sprt_0_5() -> Sprt {
        Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap()
    }

    #[test]
    fn sprt_bounds() {
        // ln(0.05 / 0.95) = -2.9444389791664405, ln(0.95 / 0.05) = +2.94443...
        let sprt = sprt_0_5();
        assert_close(sprt.lower_bound(), -2.944_438_979_166_440_5, 1e-12);
        assert_close(sprt.upper_bound(), 2.944_438_979_166_440_5, 1e-12);
        // Asymmetric: ln(0.2 / 0.9) and ln(0.8 / 0.1).
        let sprt = Sprt::new(0.0, 5.0, 0.1, 0.2).unwrap();
        assert_close(sprt.lower_bound(), -1.504_077_396_776_274, 1e-12);
        assert_close(sprt.upper_bound(), 2.079_441_541_679_836, 1e-12);
    }

    #[test]
    fn llr_trinomial_examples() {
        // W/D/L 60/20/20, [0, 5]: s0 = 0.5, s1 = 0.5071950817, mean 0.7,
        // var 0.16 => 0.5 * 100 * 0.0071950817 * (1.4 - 1.0071950817) / 0.16
        //          = 0.8832073
        let sprt = sprt_0_5();
        assert_close(
            sprt.llr_wdl(&Wdl::new(60, 20, 20)),
            0.883_207_338_381_447_9,
            1e-12,
        );
        assert_close(
            sprt.llr_wdl(&Wdl::new(20, 20, 60)),
            -0.915_563_088_881_401_7,
            1e-12,
        );
        assert_close(
            sprt.llr_wdl(&Wdl::new(120, 50, 30)),
            2.327_684_068_144_806,
            1e-12,
        );
        let sprt = Sprt::new(0.0, 3.0, 0.05, 0.05).unwrap();
        let llr = sprt.llr_wdl(&Wdl::new(4307, 8620, 4063));
        assert_close(llr, 2.992_212_838_504_893, 1e-10);
        assert_eq!(sprt.decision(llr), SprtDecision::AcceptH1);
    }

    #[test]
    fn llr_pentanomial_examples() {
        // [1, 10, 40, 30, 19], [0, 5]: mean 0.64, var 0.0554, n = 100 pairs
        // => 0.5 * 100 * 0.0071950817 * (1.28 - 1.0071950817) / 0.0554 = 1.7715286
        let sprt = sprt_0_5();
        let p = Pentanomial::new([1, 10, 40, 30, 19]);
        assert_close(sprt.llr_pentanomial(&p), 1.771_528_590_013_055_6, 1e-12);
        let sprt = Sprt::new(-1.0, 4.0, 0.05, 0.05).unwrap();
        let p = Pentanomial::new([100, 1000, 3000, 1200, 120]);
        assert_close(sprt.llr_pentanomial(&p), 9.819_127_539_730_947, 1e-10);
    }

    #[test]
    fn llr_edge_cases() {
        let sprt = sprt_0_5();
        assert_eq!(sprt.llr_wdl(&Wdl::default()), 0.0);
        assert_eq!(sprt.llr_pentanomial(&Pentanomial::default()), 0.0);
        // Zero counts become 0.001, so one win gives counts [0.001, 0.001, 1]
        // (L, D, W) and a finite LLR of 2.8652615 instead of a division by 0.
        let one_win = sprt.llr_wdl(&Wdl::new(1, 0, 0));
        assert_close(one_win, 2.865_261_542_791_016_6, 1e-10);
        assert_eq!(sprt.decision(one_win), SprtDecision::Continue);
        // ...but a second win already crosses the bound (documented caveat).
        let two_wins = sprt.llr_wdl(&Wdl::new(2, 0, 0));
        assert_close(two_wins, 11.445_174_945_314_648, 1e-9);
        assert_eq!(sprt.decision(two_wins), SprtDecision::AcceptH1);
        // 100 draws: mean 0.5 = s0 exactly, tiny regularized variance.
        let draws = sprt.llr_wdl(&Wdl::new(0, 100, 0));
        assert_close(draws, -517.712_715_886_656_7, 1e-8);
        assert_eq!(sprt.decision(draws), SprtDecision::AcceptH0);
        assert!(sprt.llr_wdl(&Wdl::new(50, 0, 0)).is_finite());
        assert!(sprt
            .llr_pentanomial(&Pentanomial::new([0, 0, 0, 0, 9]))
            .is_finite());
    }

    #[test]
    fn sprt_decisions() {
        let sprt = sprt_0_5();
        assert_eq!(sprt.decision(0.0), SprtDecision::Continue);
        assert_eq!(sprt.decision(2.95), SprtDecision::AcceptH1);
        assert_eq!(sprt.decision(-2.95), SprtDecision::AcceptH0);
        assert_eq!(sprt.decision(sprt.upper_bound()), SprtDecision::AcceptH1);
        assert_eq!(sprt.decision(sprt.lower_bound()), SprtDecision::AcceptH0);
    }

    #[test]
    fn sprt_parsing() {
        let expected = sprt_0_5();
        assert_eq!(
            "elo0=0 elo1=5 alpha=0.05 beta=0.05".parse::<Sprt>(),
            Ok(expected)
        );
        assert_eq!(
            " beta=0.05, ALPHA=0.05,elo1=5  elo0=0 ".parse::<Sprt>(),
            Ok(expected)
        );
        assert_eq!(
            Sprt::from_args(&["elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"]),
            Ok(expected)
        );
        let owned: Vec<String> = vec![
            "elo0=0 elo1=5".into(),
            "alpha=0.05".into(),
            "beta=0.05".into(),
        ];
        assert_eq!(Sprt::from_args(&owned), Ok(expected));
        assert_eq!(expected.to_string().parse::<Sprt>(), Ok(expected));
        let negative = "elo0=-1.5 elo1=0.5 alpha=0.1 beta=0.2"
            .parse::<Sprt>()
            .unwrap();
        assert_eq!((negative.elo0, negative.elo1), (-1.5, 0.5));
    }

    #[test]
    fn sprt_parse_errors() {
        let parse = |s: &str| s.parse::<Sprt>().unwrap_err();
        assert_eq!(
            parse("elo0=0 elo1=5 alpha=0.05"),
            SprtError::MissingKey("beta")
        );
        assert_eq!(parse(""), SprtError::MissingKey("elo0"));
        assert_eq!(
            parse("elo0=0 elo1=5 alpha=0.05 beta=0.05 gamma=1"),
            SprtError::UnknownKey("gamma".into())
        );
        assert_eq!(
            parse("elo0=0 elo0=1 elo1=5 alpha=0.05 beta=0.05"),
            SprtError::DuplicateKey("elo0")
        );
        assert_eq!(
            parse("elo0 0 elo1=5 alpha=0.05 beta=0.05"),
            SprtError::MalformedToken("elo0".into())
        );
        assert_eq!(
            parse("elo0=zero elo1=5 alpha=0.05 beta=0.05"),
            SprtError::InvalidNumber {
                key: "elo0",
                value: "zero".into()
            }
        );
        assert_eq!(
            parse("elo0=0 elo1=inf alpha=0.05 beta=0.05"),
            SprtError::InvalidNumber {
                key: "elo1",
                value: "inf".into()
            }
        );
        assert_eq!(
            parse("elo0=0 elo1=5 alpha= beta=0.05"),
            SprtError::InvalidNumber {
                key: "alpha",
                value: "".into()
            }
        );
        assert_eq!(
            parse("elo0=0 elo1=5 alpha=0 beta=0.05"),
            SprtError::ProbabilityOutOfRange {
                key: "alpha",
                value: 0.0
            }
        );
        assert_eq!(
            parse("elo0=0 elo1=5 alpha=0.05 beta=1"),
            SprtError::ProbabilityOutOfRange {
                key: "beta",
                value: 1.0
            }
        );
        assert_eq!(
            parse("elo0=0 elo1=5 alpha=0.6 beta=0.5"),
            SprtError::ProbabilitySumTooLarge {
                alpha: 0.6,
                beta: 0.5
            }
        );
        assert_eq!(
            parse("elo0=5 elo1=5 alpha=0.05 beta=0.05"),
            SprtError::EloOrder {
                elo0: 5.0,
                elo1: 5.0
            }
        );
        assert_eq!(
            Sprt::new(3.0, -2.0, 0.05, 0.05),
            Err(SprtError::EloOrder {
                elo0: 3.0,
                elo1: -2.0
            })
        );
        assert_eq!(
            Sprt::new(0.0, 5.0, f64::NAN, 0.05).unwrap_err().to_string(),
            "SPRT: `alpha` must be a finite number, got `NaN`"
        );
        assert_eq!(
            parse("elo0=5 elo1=0 alpha=0.05 beta=0.05").to_string(),
            "SPRT: elo0 must be less than elo1, got elo0=5 elo1=0"
        );
    }

    #[test]
    fn summary_lines() {
        let sprt = sprt_0_5();
        // Elo, LOS and LLR from the pairs: see the pentanomial examples.
        let wdl = Wdl::new(100, 56, 44);
        let pairs = Pentanomial::new([1, 10, 40, 30, 19]);
        assert_eq!(
            summary_line(&wdl, Some(&pairs), Some(&sprt)),
            "Elo: 100.0 +/- 34.9, LOS: 100.0%, W/D/L 100/56/44, score 0.640, \
             pairs [1, 10, 40, 30, 19], LLR 1.77 (-2.94, 2.94)"
        );
        // Trinomial only: 60/20/20 gives 147.2 +/- 66.0 and LLR 0.88;
        // LOS = 0.5 * (1 + erf(40 / sqrt(160))) = 0.9999961.
        assert_eq!(
            summary_line(&Wdl::new(60, 20, 20), None, Some(&sprt)),
            "Elo: 147.2 +/- 66.0, LOS: 100.0%, W/D/L 60/20/20, score 0.700, \
             LLR 0.88 (-2.94, 2.94)"
        );
        assert_eq!(
            summary_line(&Wdl::default(), Some(&Pentanomial::default()), Some(&sprt)),
            "Elo: n/a, LOS: n/a, W/D/L 0/0/0, score n/a, pairs [0, 0, 0, 0, 0], \
             LLR 0.00 (-2.94, 2.94)"
        );
        // LOS = 0.5 * (1 + erf(3 / sqrt(6))) = 0.9583677.
        assert_eq!(
            summary_line(&Wdl::new(3, 0, 0), None, None),
            "Elo: +inf +/- inf, LOS: 95.8%, W/D/L 3/0/0, score 1.000"
        );
    }
}
