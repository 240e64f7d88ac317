//! Game records: the JSONL object of one game, its PGN-like text, and a check that a record
//! replays legally through the library to its result.

use millstone::{Color, Game, Move, Position, Rules, Variant};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// Why a game ended, beyond the rules' own reasons (`material`, `blocked`, `fullboard`,
/// `threefold`, `hundredply`).
pub mod reason {
    /// The loser sent an unparsable or illegal move.
    pub const ILLEGAL: &str = "illegal";
    /// The loser's process exited or closed its pipes (or could not start).
    pub const CRASH: &str = "crash";
    /// The loser sent no move within the generous limit of a depth or nodes game.
    pub const STALL: &str = "stall";
    /// The loser ran out of time (clock or fixed move time, with the margin).
    pub const TIMEOUT: &str = "timeout";
    /// Drawn by `--adjudicate-draw-plies`: that many plies without a mill.
    pub const ADJUDICATION: &str = "adjudication";
    /// Drawn by `--max-plies`.
    pub const MAX_PLIES: &str = "maxplies";
    /// Ended by `--tb-adjudicate`: the endgame tables' value of the position reached.
    pub const TABLEBASE: &str = "tablebase";
    /// The reasons where the side to move lost by misbehaving.
    pub const FAULTS: [&str; 4] = [ILLEGAL, CRASH, STALL, TIMEOUT];
}

/// One game, as written to the JSONL file (one object a line).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// 1-based number of the game in the match schedule.
    pub game: usize,
    /// 1-based round: the opening pair the game belongs to.
    pub round: usize,
    /// `nine` or `twelve`.
    pub variant: String,
    /// Whether flying was on.
    pub flying: bool,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The start position string.
    pub fen: String,
    /// The moves played, all legal.
    pub moves: Vec<String>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why the game ended (see [`reason`] and the rules' end reasons).
    pub reason: String,
    /// A readable explanation of the end.
    pub detail: String,
    /// The illegal or unparsable move that lost the game, if that was the end.
    pub illegal_move: Option<String>,
    /// The match seed.
    pub seed: u64,
    /// Index of the opening in the book, or of the random opening (the round's index).
    pub opening_index: usize,
    /// Thinking time per move in milliseconds.
    pub times_ms: Vec<u64>,
    /// The mover's last main-line score per move (`cp 35`, `mate -2`), null if none.
    pub scores: Vec<Option<String>>,
    /// Event name.
    pub event: String,
    /// Date the game was played (`YYYY.MM.DD`).
    pub date: String,
    /// 1-based index of the opening pair (one pairing's two colour-swapped games of one
    /// round) in the whole match; 0 in records of older versions.
    #[serde(default)]
    pub pair: usize,
    /// With `--ponder`: the ponder searches that ended in the engines' moves, per colour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ponder: Option<PonderCounts>,
    /// The match the game belongs to, for `mill-match merge`.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_info: Option<MatchInfo>,
}

/// How often each side pondered on the move the opponent then played: `[white, black]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PonderCounts {
    /// Moves that ended a ponder search (`ponderhit` or `stop`).
    pub searches: [u32; 2],
    /// Of those, the ones where the prediction was right (`ponderhit`).
    pub hits: [u32; 2],
}

/// What identifies a match, written with every game so that the records of the shards of one
/// match can be merged (and records of different matches are not). Two shards of one match
/// differ only in `shard`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchInfo {
    /// The participants' names in `--engine` order.
    pub engines: Vec<String>,
    /// Gauntlet (first against all) instead of a round robin.
    pub gauntlet: bool,
    /// Games per pairing.
    pub games: usize,
    /// Games in the whole match (all shards).
    pub scheduled: usize,
    /// The limits and adjudication of the games, e.g. `depth 1` or `tc 2+0.05 margin 100`.
    pub limits: String,
    /// Where the openings come from, e.g. `random 4` or `book 50 sequential`.
    pub openings: String,
    /// The SPRT parameters (`elo0=0 elo1=5 alpha=0.05 beta=0.05`), if one was run.
    pub sprt: Option<String>,
    /// Games before an SPRT decision counts.
    pub sprt_min_games: usize,
    /// This run's shard, 1-based.
    pub shard: usize,
    /// The number of shards (1: the whole match in one run).
    pub shards: usize,
}

impl GameRecord {
    /// The rules of the record.
    pub fn rules(&self) -> Result<Rules, String> {
        let v: Variant = self.variant.parse().map_err(|e| format!("{e}"))?;
        Ok(Rules::new(v, self.flying))
    }

    /// The record as PGN-like text: tags, then the numbered moves and the result.
    pub fn to_pgn(&self) -> String {
        let mut s = String::new();
        let tag = |s: &mut String, k: &str, v: &str| {
            let v = v.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(s, "[{k} \"{v}\"]");
        };
        tag(&mut s, "Event", &self.event);
        tag(&mut s, "Site", "millstone mill-match");
        tag(&mut s, "Date", &self.date);
        tag(&mut s, "Round", &self.round.to_string());
        tag(&mut s, "White", &self.white);
        tag(&mut s, "Black", &self.black);
        tag(&mut s, "Result", &self.result);
        tag(&mut s, "Variant", &self.variant);
        tag(&mut s, "Flying", if self.flying { "true" } else { "false" });
        let rules = self.rules().unwrap_or_default();
        let start = Position::from_fen(&self.fen, rules).ok();
        if self.fen != Position::new(rules).to_fen() {
            tag(&mut s, "SetUp", "1");
            tag(&mut s, "FEN", &self.fen);
        }
        tag(&mut s, "Termination", &self.reason);
        tag(&mut s, "Seed", &self.seed.to_string());
        tag(&mut s, "Game", &self.game.to_string());
        tag(&mut s, "Opening", &self.opening_index.to_string());
        s.push('\n');
        let (mut number, mut side) = start
            .map(|p| (p.fullmove(), p.side_to_move()))
            .unwrap_or((1, Color::White));
        // Units that a line break never splits: a move with its number, the comment, the result.
        let mut units: Vec<String> = Vec::new();
        for (i, m) in self.moves.iter().enumerate() {
            let unit = if side == Color::White {
                format!("{number}. {m}")
            } else if i == 0 {
                format!("{number}... {m}")
            } else {
                m.clone()
            };
            units.push(unit);
            if side == Color::Black {
                number += 1;
            }
            side = side.other();
        }
        if !self.detail.is_empty() {
            units.push(format!("{{{}}}", self.detail.replace('}', ")")));
        }
        units.push(self.result.clone());
        // Wrap at about 80 columns.
        let mut col = 0;
        for unit in units {
            if col > 0 && col + 1 + unit.len() > 80 {
                s.push('\n');
                col = 0;
            } else if col > 0 {
                s.push(' ');
                col += 1;
            }
            col += unit.len();
            s.push_str(&unit);
        }
        s.push_str("\n\n");
        s
    }
}

/// Plays a record's moves through the library and checks that its result and reason are what
/// the rules (or the runner's adjudication and fault reasons) give at the end.
pub fn verify(rec: &GameRecord) -> Result<(), String> {
    let rules = rec.rules()?;
    let start = Position::from_fen(&rec.fen, rules).map_err(|e| format!("start: {e}"))?;
    let mut game = Game::new(start);
    let mut since_mill = 0usize;
    for (i, tok) in rec.moves.iter().enumerate() {
        let m: Move = tok.parse().map_err(|e| format!("move {}: {e}", i + 1))?;
        let mill = game.position().closes_mill(m);
        game.play(m)
            .map_err(|e| format!("move {} '{tok}' is illegal: {e}", i + 1))?;
        since_mill = if mill { 0 } else { since_mill + 1 };
    }
    if rec.times_ms.len() != rec.moves.len() || rec.scores.len() != rec.moves.len() {
        return Err("times_ms and scores must have one entry per move".into());
    }
    let outcome = game.outcome();
    let mover = game.position().side_to_move();
    let win_for = |c: Color| if c == Color::White { "1-0" } else { "0-1" };
    match rec.reason.as_str() {
        r if reason::FAULTS.contains(&r) => {
            if let Some(o) = outcome {
                return Err(format!("fault '{r}' recorded but the game was over ({o})"));
            }
            // Before the first move either engine can fail to start; later only the mover
            // can misbehave.
            let at_start = rec.moves.is_empty() && (r == reason::CRASH || r == reason::STALL);
            if rec.result != win_for(mover.other()) && !(at_start && rec.result != "1/2-1/2") {
                return Err(format!(
                    "fault '{r}' by {mover} (to move) but the result is {}",
                    rec.result
                ));
            }
            if (r == reason::ILLEGAL) != rec.illegal_move.is_some() {
                return Err("illegal_move is set exactly for the reason 'illegal'".into());
            }
        }
        reason::ADJUDICATION | reason::MAX_PLIES => {
            if let Some(o) = outcome {
                return Err(format!("adjudicated but the game was over ({o})"));
            }
            if rec.result != "1/2-1/2" {
                return Err("adjudications are draws".into());
            }
            if rec.reason == reason::ADJUDICATION && since_mill == 0 {
                return Err("adjudicated right after a mill".into());
            }
        }
        reason::TABLEBASE => {
            // The value itself needs the tables (`mill-tb audit` checks it); here only that
            // the game was still on and in the moving phase, where the tables are.
            if let Some(o) = outcome {
                return Err(format!(
                    "adjudicated by the tables but the game was over ({o})"
                ));
            }
            if !game.position().is_moving_phase() {
                return Err("adjudicated by the tables in the placing phase".into());
            }
            if !["1-0", "0-1", "1/2-1/2"].contains(&rec.result.as_str()) {
                return Err(format!("result '{}' is not a result", rec.result));
            }
        }
        r => {
            let o = outcome.ok_or_else(|| format!("reason '{r}' but the game is not over"))?;
            if o.reason().name() != r || o.result_str() != rec.result {
                return Err(format!("recorded {} {r}, the rules give {}", rec.result, o));
            }
        }
    }
    Ok(())
}

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86400) as i64;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(moves: &[&str], result: &str, reason: &str) -> GameRecord {
        GameRecord {
            game: 1,
            round: 1,
            variant: "nine".into(),
            flying: true,
            white: "a".into(),
            black: "b \"q\"".into(),
            fen: Position::new(Rules::default()).to_fen(),
            moves: moves.iter().map(|s| s.to_string()).collect(),
            result: result.into(),
            reason: reason.into(),
            detail: String::new(),
            illegal_move: None,
            seed: 1,
            opening_index: 0,
            times_ms: vec![0; moves.len()],
            scores: vec![None; moves.len()],
            event: "t".into(),
            date: today(),
            pair: 1,
            ponder: None,
            match_info: None,
        }
    }

    #[test]
    fn verify_faults_and_rules() {
        // Black to move after one move: a crash by Black is a White win.
        assert!(verify(&rec(&["d6"], "1-0", "crash")).is_ok());
        assert!(verify(&rec(&["d6"], "0-1", "crash")).is_err());
        assert!(verify(&rec(&["d6", "d6"], "1-0", "crash")).is_err());
        // Either side may fail to start.
        assert!(verify(&rec(&[], "1-0", "crash")).is_ok());
        assert!(verify(&rec(&[], "0-1", "stall")).is_ok());
        assert!(verify(&rec(&[], "1/2-1/2", "stall")).is_err());
        assert!(verify(&rec(&["d6"], "1-0", "material")).is_err());
        let mut r = rec(&[], "0-1", "illegal");
        assert!(verify(&r).is_err());
        r.illegal_move = Some("a1-d1".into());
        assert!(verify(&r).is_ok());
    }

    #[test]
    fn pgn_numbers_moves_and_escapes() {
        let p = rec(&["d6", "a1", "d7"], "1-0", "crash").to_pgn();
        assert!(p.contains("[Black \"b \\\"q\\\"\"]"), "{p}");
        assert!(p.contains("1. d6 a1 2. d7 1-0"), "{p}");
        assert!(!p.contains("[FEN"));
        assert_eq!(today().len(), 10);
    }
}
