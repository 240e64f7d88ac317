//! A fallible opponent, modelled: how likely it is to choose each of its replies, and the
//! expected result of our moves against it, from the tables' values of those replies.
//!
//! Against a perfect opponent every move that keeps the tables' value is as good as another.
//! Against a fallible one they differ by the replies they leave: after one move every
//! reasonable-looking reply keeps the opponent's value, after another the most natural reply
//! gives it away. The model is a player that searches `depth` plies with our own search (its
//! evaluation, no tables) and picks among its replies with probability growing with their
//! scores: a softmax with `temperature` centipieces, so that a reply that looks 100 cp worse
//! than the best is chosen e⁻¹ times as often. The tables then say what each reply is really
//! worth, and the expected score of our move is the replies' values weighted by those
//! probabilities. Traps show up exactly where a shallow searcher likes the losing reply.
//!
//! Malom (Gévay and Danner) ranks a drawn position's keeping moves another way, by the sub-space
//! each leads to: a draw in a sector where the opponent mostly loses is better than one in a
//! sector of draws. [`sector_rank`] is that ranking, for comparison.

use crate::game::Game;
use crate::moves::Move;
use crate::nnue::Network;
use crate::position::Position;
use crate::search::{Info, Limits, Searcher, Shared};
use crate::tablebase::{Tablebase, Wdl};
use crate::tt::TranspositionTable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// The opponent the expected score is taken against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpponentModel {
    /// Plies its search looks ahead from the position after its reply's own move (1: it
    /// judges each reply by the position it leads to).
    pub depth: u8,
    /// How far apart, in centipieces, two replies' scores must be for the better to be chosen
    /// e times as often.
    pub temperature: f64,
}

impl OpponentModel {
    /// The deepest search the option allows: at 6 plies a root's model takes about as long as
    /// a second of search, already more than most moves' time.
    pub const MAX_DEPTH: u8 = 6;
    /// The default: a 2-ply searcher, which sees a mill it can close and the reply that closes
    /// ours, but not the blockades and double threats a few plies on.
    pub const DEFAULT_DEPTH: u8 = 2;
    /// About the network's score for a 0.3 pawn-like edge: mistakes among near-equal replies
    /// are common, a reply that drops a piece is rare.
    pub const TEMPERATURE: f64 = 100.0;

    /// The model of a searcher `depth` plies deep (clamped to 1..=[`Self::MAX_DEPTH`]).
    pub fn with_depth(depth: u8) -> OpponentModel {
        OpponentModel {
            depth: depth.clamp(1, Self::MAX_DEPTH),
            temperature: Self::TEMPERATURE,
        }
    }
}

impl Default for OpponentModel {
    fn default() -> Self {
        Self::with_depth(Self::DEFAULT_DEPTH)
    }
}

/// The depth of the opponent that `TableChoice mirror` foresees (our own search without tables,
/// one line): against Sanmill 7.4.6 a losing answer of the model at 4 plies was Sanmill's own
/// answer after 3 of 8 drawing moves, at 2 plies after 1 of 5, at 8 plies after 1 of 3
/// (docs/merciless.md); it costs about two milliseconds a move.
pub const MIRROR_DEPTH: u8 = 4;

/// One of the fallible players `TableChoice crowd` sets traps for: our own search without
/// tables, `depth` plies deep, its one best reply, evaluating with the network (`network`) or
/// the hand-tuned terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Player {
    /// Plies the player searches.
    pub depth: u8,
    /// Whether it evaluates with the network (else the hand-tuned terms).
    pub network: bool,
}

/// The crowd, in the order its answers are asked for: each round asks one player about every
/// drawing move, so a root whose time runs out keeps the votes of the rounds it finished. The
/// order is by what each player alone foresaw of Sanmill 7.4.6's placing mistakes (591 of its
/// placements where a move loses, 33 of them lost; docs/merciless.md, "A crowd of players"):
/// the network at 1 ply flagged 48 placements with 15 of them Sanmill's mistakes, the
/// hand-tuned terms at 2 plies 92 with 19, the network at 4 plies 34 with 10, at 2 plies 35
/// with 9; the 8-ply players (19 with 9, 54 with 15) cost ten times as much and finish in few
/// roots at 100 ms a move. The share of the crowd whose answer loses rose with its precision:
/// 20 % of the placements where one of the first four went wrong were Sanmill's mistakes, 30 %
/// with two, 36 % with three, 40 % with all four, where Sanmill erred in 5.6 % of all.
pub const CROWD: [Player; 6] = [
    Player {
        depth: 1,
        network: true,
    },
    Player {
        depth: 2,
        network: false,
    },
    Player {
        depth: 4,
        network: true,
    },
    Player {
        depth: 2,
        network: true,
    },
    Player {
        depth: 8,
        network: true,
    },
    Player {
        depth: 8,
        network: false,
    },
];

/// The votes a drawing move needs before the crowd overrules the search's own choice. One
/// player's losing answer was Sanmill's own in 17-20 % of the placements it flagged, two
/// players' in 26-30 %; the search's preference, left standing in the roots where no move has
/// two votes, converts drawn moving phases better. Against Sanmill 7.4.6: 53 wins of 80 at two
/// votes where one vote won 47 and the search alone 49; at a third seed both 28 of 40
/// (docs/merciless.md).
pub const CROWD_MIN_VOTES: u32 = 2;

/// The moves with the most votes, where that is at least [`CROWD_MIN_VOTES`]; `None` leaves
/// the choice to the search.
pub fn most_voted(moves: &[Move], votes: &[u32]) -> Option<Vec<Move>> {
    let top = votes.iter().copied().max()?;
    (top >= CROWD_MIN_VOTES).then(|| {
        moves
            .iter()
            .zip(votes)
            .filter(|&(_, &v)| v == top)
            .map(|(&m, _)| m)
            .collect()
    })
}

/// What a result is worth to us: 1 a win, ½ a draw, 0 a loss.
pub fn points(ours: Wdl) -> f64 {
    match ours.real() {
        Wdl::Win => 1.0,
        Wdl::Loss => 0.0,
        _ => 0.5,
    }
}

/// The probability the model gives each reply, from the replies' scores for the opponent.
pub fn reply_probabilities(scores: &[i32], temperature: f64) -> Vec<f64> {
    let Some(&max) = scores.iter().max() else {
        return Vec::new();
    };
    let t = temperature.max(1e-6);
    let weights: Vec<f64> = scores
        .iter()
        .map(|&s| ((s - max) as f64 / t).exp())
        .collect();
    let sum: f64 = weights.iter().sum();
    weights.into_iter().map(|w| w / sum).collect()
}

/// The expected score for us of a position where the opponent chooses among `replies`: each
/// with its score in the opponent's search and the tables' value of the position after it
/// for the opponent.
pub fn expected(replies: &[(i32, Wdl)], temperature: f64) -> f64 {
    let scores: Vec<i32> = replies.iter().map(|&(s, _)| s).collect();
    reply_probabilities(&scores, temperature)
        .iter()
        .zip(replies)
        .map(|(p, &(_, theirs))| p * points(theirs.flip()))
        .sum()
}

/// A search's lines: each one's first move and score.
type Lines = Vec<(Move, i32)>;

/// Evaluates our candidate moves against the model, reusing one transposition table for the
/// opponent's searches of one root.
pub struct Judge<'a> {
    tb: &'a Tablebase,
    net: Option<&'a Network>,
    tt: TranspositionTable,
    model: OpponentModel,
}

impl<'a> Judge<'a> {
    /// A judge over the tables, the opponent's search evaluating with `net` (the hand-tuned
    /// evaluation where `None`).
    pub fn new(tb: &'a Tablebase, net: Option<&'a Network>, model: OpponentModel) -> Judge<'a> {
        // The opponent's searches are shallow: a few thousand entries hold them.
        Judge {
            tb,
            net,
            tt: TranspositionTable::new(2),
            model,
        }
    }

    /// The expected score for us of playing `m` at `pos`, the model searching `depth` plies;
    /// `None` where a reply leads outside the tables, or when `stop` is set.
    pub fn expected_after(
        &self,
        pos: &Position,
        m: Move,
        depth: u8,
        stop: &AtomicBool,
    ) -> Option<f64> {
        let mut child = *pos;
        child.make(m);
        if let Some(o) = child.outcome() {
            return Some(match o.winner() {
                Some(c) if c == pos.side_to_move() => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            });
        }
        let root = self.tb.probe_root(&child)?;
        let scores = self.reply_scores(&child, depth, stop)?;
        let replies: Vec<(i32, Wdl)> = root
            .moves
            .iter()
            .map(|(r, p)| {
                let s = scores.iter().find(|(m, _)| m == r).map(|&(_, s)| s);
                s.map(|s| (s, p.wdl))
            })
            .collect::<Option<_>>()?;
        Some(expected(&replies, self.model.temperature))
    }

    /// The reply our own search (no tables, one line) plays at `child` when `depth` plies
    /// deep: the answer of a player like the engine without tables at that depth. `None` when
    /// stopped or where the game is over.
    pub fn answer(&self, child: &Position, depth: u8, stop: &AtomicBool) -> Option<Move> {
        // The search's own move: an iteration short of `depth` (one legal move, a decided
        // score) reports no line at that depth.
        self.search_lines(child, depth, 1, stop)?.1
    }

    /// [`Self::answer`] from an empty transposition table: the same answer whatever was
    /// searched before, without the cost of a new table.
    pub fn fresh_answer(&self, child: &Position, depth: u8, stop: &AtomicBool) -> Option<Move> {
        self.tt.clear();
        self.answer(child, depth, stop)
    }

    /// Each of the opponent's replies at `child` with its score in the model's search of
    /// `depth` plies (every reply searched to the same depth: MultiPV over all of them).
    fn reply_scores(&self, child: &Position, depth: u8, stop: &AtomicBool) -> Option<Lines> {
        let count = Game::new(*child).legal_moves().len();
        let (lines, _) = self.search_lines(child, depth, count, stop)?;
        (lines.len() == count).then_some(lines)
    }

    /// The first move and score of each of the `multipv` best lines of our search of `depth`
    /// plies at `child`, and the move the search would play; `None` when stopped.
    fn search_lines(
        &self,
        child: &Position,
        depth: u8,
        multipv: usize,
        stop: &AtomicBool,
    ) -> Option<(Lines, Option<Move>)> {
        let game = Game::new(*child);
        let never = AtomicBool::new(false);
        let origin = AtomicU64::new(0);
        let shared = Shared {
            tt: &self.tt,
            stop,
            nodes: AtomicU64::new(0),
            start: Instant::now(),
            budget: None,
            node_limit: None,
            tb: None,
            search_draws: false,
            tbhits: AtomicU64::new(0),
            pondering: &never,
            clock_origin_us: &origin,
            net: self.net.filter(|n| n.variant == child.variant()),
            contempt: 0,
        };
        let limits = Limits {
            depth: Some(depth as i32),
            multipv,
            ..Limits::default()
        };
        let mut lines: Lines = Vec::with_capacity(multipv);
        let mut searcher = Searcher::new(&shared, 0, &game, &[]);
        let result = searcher.iterate(&limits, &mut |info: &Info| {
            if info.depth == depth as i32 {
                if let Some(&m) = info.pv.first() {
                    lines.push((m, info.score));
                }
            }
        });
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        Some((lines, result.best))
    }
}

/// Malom's ranking of a move by the sub-space it leads to: the share of the opponent's losses
/// less the share of its wins among the positions of the child's table (higher is better for
/// us). A move that ends the game ranks by its result; `None` where no table holds the child.
pub fn sector_rank(tb: &Tablebase, pos: &Position, m: Move) -> Option<f64> {
    let mut child = *pos;
    child.make(m);
    if let Some(o) = child.outcome() {
        return Some(match o.winner() {
            Some(c) if c == pos.side_to_move() => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        });
    }
    let [wins, draws, losses] = tb.sector_counts(&child)?;
    let all = (wins + draws + losses).max(1) as f64;
    Some((losses as f64 - wins as f64) / all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crowd_overrules_the_search_only_with_enough_votes() {
        let moves: Vec<Move> = ["d6", "a1", "g7"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        // One player's trap is left to the search; two players' traps narrow the root.
        assert_eq!(CROWD_MIN_VOTES, 2);
        assert_eq!(most_voted(&moves, &[0, 1, 0]), None);
        assert_eq!(most_voted(&moves, &[0, 0, 0]), None);
        assert_eq!(most_voted(&moves, &[]), None);
        assert_eq!(
            most_voted(&moves, &[2, 1, 2]),
            Some(vec![moves[0], moves[2]])
        );
        assert_eq!(most_voted(&moves, &[1, 3, 2]), Some(vec![moves[1]]));
    }

    #[test]
    fn probabilities_follow_the_scores() {
        let p = reply_probabilities(&[100, 0, 0], 100.0);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((p[0] / p[1] - std::f64::consts::E).abs() < 1e-9);
        assert_eq!(p[1], p[2]);
        assert!(reply_probabilities(&[], 100.0).is_empty());
        // Mate-like scores neither overflow nor lose the other replies' order.
        let p = reply_probabilities(&[32000, -32000, 31900], 100.0);
        assert!(p[0] > p[2] && p[2] > p[1] && p[1] >= 0.0);
    }

    #[test]
    fn a_tempting_losing_reply_is_a_trap() {
        // After our move the opponent (to move) keeps the draw with two replies and loses with a
        // third. Where the losing reply looks best to its search, we expect to win most games;
        // where it looks worst, next to none; where all three look alike, a third.
        let t = 100.0;
        let trap = expected(&[(300, Wdl::Loss), (0, Wdl::Draw), (0, Wdl::Draw)], t);
        let obvious = expected(&[(-300, Wdl::Loss), (0, Wdl::Draw), (0, Wdl::Draw)], t);
        let even = expected(&[(0, Wdl::Loss), (0, Wdl::Draw), (0, Wdl::Draw)], t);
        assert!((even - (1.0 + 0.5 + 0.5) / 3.0).abs() < 1e-12);
        assert!(
            trap > 0.9 && obvious < 0.53,
            "trap {trap}, obvious {obvious}"
        );
        assert!(trap > even && even > obvious);
        // Only keeping replies: the value itself, whatever the scores.
        assert_eq!(expected(&[(50, Wdl::Draw), (-80, Wdl::Draw)], t), 0.5);
        // A lost position: every reply wins for the opponent but one that draws.
        let hope = expected(&[(0, Wdl::Win), (200, Wdl::Draw)], t);
        assert!(hope > 0.4 && hope < 0.5, "{hope}");
    }
}
