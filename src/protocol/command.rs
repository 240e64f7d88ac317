//! Commands: the typed form of one input line, and the parser that builds it.
//!
//! Parsing is pure and checks only what the text alone can tell (keywords, numbers, move
//! notation). Whether a move is legal or a position reachable depends on the engine's state and
//! is decided by the dispatch loop.

use crate::moves::{Move, ParseMoveError};
use crate::search::{Limits, MAX_DEPTH};
use crate::timeman::Clock;
use crate::types::Point;
use std::fmt;
use std::time::Duration;

/// Times and increments above this many milliseconds (about 11.6 days) are clamped to it: no
/// real clock is longer, and it keeps the time arithmetic far from overflow.
pub const MAX_TIME_MS: u64 = 1_000_000_000;
/// Deepest `perft` the protocol runs; deeper requests are clamped.
pub const MAX_PERFT_DEPTH: u64 = 32;
/// Deepest `bench` the protocol runs; deeper requests are clamped.
pub const MAX_BENCH_DEPTH: u64 = 64;

/// One move of a move list, as written and as parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveToken {
    /// The text, a removal written as its own token included (`d6 xa1`).
    pub text: String,
    /// The move.
    pub mv: Move,
}

/// Where `position` starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// The start position of the current variant.
    StartPos,
    /// A position string (its six fields joined by single spaces).
    Fen(String),
}

/// The parameters of `go`, numbers as given (saturated at `u64::MAX`), before clamping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// `depth`.
    pub depth: Option<u64>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `movetime`, in ms.
    pub movetime: Option<u64>,
    /// `wtime`/`p1time` and `btime`/`p2time`, in ms.
    pub time: [Option<u64>; 2],
    /// `winc`/`p1inc` and `binc`/`p2inc`, in ms.
    pub inc: [Option<u64>; 2],
    /// `movestogo`.
    pub movestogo: Option<u64>,
    /// `infinite`.
    pub infinite: bool,
    /// `searchmoves`.
    pub searchmoves: Vec<MoveToken>,
    /// `ponder`: search the position after the predicted reply until `ponderhit` or `stop`.
    pub ponder: bool,
    /// `mate N`: look for a forced win in at most N moves.
    pub mate: Option<u64>,
}

fn ms(v: u64) -> Duration {
    Duration::from_millis(v.min(MAX_TIME_MS))
}

impl Go {
    /// The search limits, every number clamped into what the search handles.
    pub fn limits(&self, multipv: usize, move_overhead: Duration) -> Limits {
        Limits {
            depth: self.depth.map(|d| d.clamp(1, MAX_DEPTH as u64) as i32),
            nodes: self.nodes.map(|n| n.max(1)),
            clock: Clock {
                time: [self.time[0].map(ms), self.time[1].map(ms)],
                inc: [ms(self.inc[0].unwrap_or(0)), ms(self.inc[1].unwrap_or(0))],
                movestogo: self.movestogo.map(|m| m.min(u32::MAX as u64) as u32),
                movetime: self.movetime.map(ms),
            },
            infinite: self.infinite,
            searchmoves: self.searchmoves.iter().map(|t| t.mv).collect(),
            multipv,
            move_overhead,
            ponder: self.ponder,
            mate: self.mate.map(|m| m.clamp(1, MAX_DEPTH as u64) as u32),
        }
    }
}

/// What `query` asks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// `gameover`: `true` or `false`.
    GameOver,
    /// `p1turn`: whether White (player 1) is to move.
    P1Turn,
    /// `result`: `1-0`, `0-1`, `1/2-1/2` or `none`.
    Result,
    /// `fen`: the position string.
    Fen,
    /// `legalmoves`: the legal moves.
    LegalMoves,
    /// `reason`: why the game ended, or `none`.
    Reason,
    /// `mills`: the points that stand in closed mills (for a GUI to draw them).
    Mills,
}

/// One command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`.
    Uci,
    /// `ugi`.
    Ugi,
    /// `isready`.
    IsReady,
    /// `debug on|off` (accepted, no effect).
    Debug(bool),
    /// `setoption name <id> [value <x>]`.
    SetOption {
        /// The option name as written (matched case-insensitively).
        name: String,
        /// The value, if given.
        value: Option<String>,
    },
    /// `ucinewgame` or `uginewgame`.
    NewGame,
    /// `position startpos|fen <6 fields> [moves ...]`.
    Position {
        /// The position the moves start from.
        start: Start,
        /// The moves, in order.
        moves: Vec<MoveToken>,
    },
    /// `go ...`.
    Go(Go),
    /// `stop`.
    Stop,
    /// `ponderhit`: the predicted move was played; the ponder search goes on as a normal one.
    PonderHit,
    /// `quit`.
    Quit,
    /// `query <what>`.
    Query(Query),
    /// `d`: the board and the position's details.
    Display,
    /// `eval`: the evaluation term by term.
    Eval,
    /// `perft <depth>` (clamped to [`MAX_PERFT_DEPTH`]).
    Perft(u32),
    /// `bench [depth]` (clamped to 1..=[`MAX_BENCH_DEPTH`]).
    Bench(Option<i32>),
    /// `values [expected]`: every legal move's exact result from the endgame tables (for
    /// hints); with `expected`, also its expected score against the fallible opponent model.
    Values {
        /// Whether each move also gets its expected score (`values expected`).
        expected: bool,
    },
}

/// Why a line is not a valid command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandError {
    /// The first word is no command.
    Unknown(String),
    /// A required part is missing.
    Missing {
        /// The command.
        command: &'static str,
        /// What is missing.
        what: &'static str,
    },
    /// A word that does not belong there.
    Unexpected {
        /// The command.
        command: &'static str,
        /// The word.
        token: String,
    },
    /// A number was expected.
    NotANumber {
        /// The parameter.
        param: String,
        /// The text found.
        value: String,
    },
    /// Numbers are never negative.
    Negative {
        /// The parameter.
        param: String,
        /// The text found.
        value: String,
    },
    /// A move is not in the notation.
    BadMove {
        /// 1-based index of the move in its list.
        index: usize,
        /// The move as written.
        text: String,
        /// What is wrong.
        source: ParseMoveError,
    },
    /// A removal token (`xa1`) that does not follow a move without a removal.
    StrayRemoval {
        /// 1-based index of the move it would have belonged to.
        index: usize,
        /// The token.
        text: String,
    },
}

/// Shortens user text for an error message: long lines are cut and control characters escaped,
/// so that the message stays one readable line.
pub fn quote(s: &str) -> String {
    const MAX: usize = 60;
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == MAX {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    format!("'{out}'")
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Unknown(c) => write!(f, "unknown command {}", quote(c)),
            CommandError::Missing { command, what } => write!(f, "{command}: missing {what}"),
            CommandError::Unexpected { command, token } => {
                write!(f, "{command}: unexpected {}", quote(token))
            }
            CommandError::NotANumber { param, value } => {
                write!(f, "{}: {} is not a number", quote(param), quote(value))
            }
            CommandError::Negative { param, value } => {
                write!(f, "{}: {} is negative", quote(param), quote(value))
            }
            CommandError::BadMove {
                index,
                text,
                source,
            } => write!(f, "move {index} {}: {source}", quote(text)),
            CommandError::StrayRemoval { index, text } => write!(
                f,
                "move {index} {}: a removal must follow a move that closes a mill",
                quote(text)
            ),
        }
    }
}

impl std::error::Error for CommandError {}

/// Parses a non-negative integer; too large saturates (the caller clamps), a sign is an error.
pub fn parse_number(param: &str, text: &str) -> Result<u64, CommandError> {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if digits(text) {
        Ok(text.parse().unwrap_or(u64::MAX))
    } else if text.strip_prefix('-').is_some_and(digits) {
        Err(CommandError::Negative {
            param: param.to_string(),
            value: text.to_string(),
        })
    } else {
        Err(CommandError::NotANumber {
            param: param.to_string(),
            value: text.to_string(),
        })
    }
}

/// Parses a move list, merging a removal written as its own token (`d6 xa1`) into the move
/// before it.
pub fn parse_moves(tokens: &[&str]) -> Result<Vec<MoveToken>, CommandError> {
    let mut out: Vec<MoveToken> = Vec::with_capacity(tokens.len());
    for &tok in tokens {
        let removal = tok
            .strip_prefix(['x', 'X'])
            .and_then(|r| r.to_ascii_lowercase().parse::<Point>().ok());
        if let Some(r) = removal {
            let index = out.len().max(1);
            let Some(last) = out.last_mut().filter(|l| l.mv.removal().is_none()) else {
                return Err(CommandError::StrayRemoval {
                    index,
                    text: tok.to_string(),
                });
            };
            last.text = format!("{} {tok}", last.text);
            if r == last.mv.to() {
                return Err(CommandError::BadMove {
                    index,
                    text: last.text.clone(),
                    source: ParseMoveError::RemovesOwnPiece(last.text.clone()),
                });
            }
            last.mv = last.mv.with_removal(r);
            continue;
        }
        let mv = tok
            .parse::<Move>()
            .map_err(|source| CommandError::BadMove {
                index: out.len() + 1,
                text: tok.to_string(),
                source,
            })?;
        out.push(MoveToken {
            text: tok.to_string(),
            mv,
        });
    }
    Ok(out)
}

fn parse_position(args: &[&str]) -> Result<Command, CommandError> {
    let missing = |what| CommandError::Missing {
        command: "position",
        what,
    };
    let (start, rest) = match args.first() {
        None => return Err(missing("'startpos' or 'fen'")),
        Some(&"startpos") => (Start::StartPos, &args[1..]),
        Some(&"fen") => {
            let n = args[1..]
                .iter()
                .position(|&t| t == "moves")
                .unwrap_or(args.len() - 1);
            // The string's own parser counts the fields, so that a wrong count gets its message.
            (Start::Fen(args[1..1 + n].join(" ")), &args[1 + n..])
        }
        Some(t) => {
            return Err(CommandError::Unexpected {
                command: "position",
                token: t.to_string(),
            })
        }
    };
    let moves = match rest.split_first() {
        None => Vec::new(),
        Some((&"moves", list)) => parse_moves(list)?,
        Some((t, _)) => {
            return Err(CommandError::Unexpected {
                command: "position",
                token: t.to_string(),
            })
        }
    };
    Ok(Command::Position { start, moves })
}

const GO_KEYWORDS: [&str; 16] = [
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "p1time",
    "p2time",
    "p1inc",
    "p2inc",
    "infinite",
    "searchmoves",
    "ponder",
    "mate",
];

/// Parameters that are clock readings: a GUI may send one below zero when a flag has fallen, and
/// it means "no time left", not a mistake.
const CLOCK_KEYWORDS: [&str; 8] = [
    "wtime", "btime", "winc", "binc", "p1time", "p2time", "p1inc", "p2inc",
];

fn parse_go(args: &[&str]) -> Result<Command, CommandError> {
    let mut go = Go::default();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        match key {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                let n = args[i..]
                    .iter()
                    .position(|t| GO_KEYWORDS.contains(t))
                    .unwrap_or(args.len() - i);
                go.searchmoves = parse_moves(&args[i..i + n])?;
                if go.searchmoves.is_empty() {
                    return Err(CommandError::Missing {
                        command: "go",
                        what: "moves after 'searchmoves'",
                    });
                }
                i += n;
            }
            k if GO_KEYWORDS.contains(&k) => {
                let Some(text) = args.get(i) else {
                    return Err(CommandError::Missing {
                        command: "go",
                        what: "a number after the last parameter",
                    });
                };
                i += 1;
                let v = match parse_number(k, text) {
                    Err(CommandError::Negative { .. }) if CLOCK_KEYWORDS.contains(&k) => Some(0),
                    r => Some(r?),
                };
                match k {
                    "depth" => go.depth = v,
                    "mate" => go.mate = v,
                    "nodes" => go.nodes = v,
                    "movetime" => go.movetime = v,
                    "wtime" | "p1time" => go.time[0] = v,
                    "btime" | "p2time" => go.time[1] = v,
                    "winc" | "p1inc" => go.inc[0] = v,
                    "binc" | "p2inc" => go.inc[1] = v,
                    _ => go.movestogo = v,
                }
            }
            other => {
                return Err(CommandError::Unexpected {
                    command: "go",
                    token: other.to_string(),
                })
            }
        }
    }
    Ok(Command::Go(go))
}

fn parse_setoption(args: &[&str]) -> Result<Command, CommandError> {
    match args.first() {
        Some(t) if t.eq_ignore_ascii_case("name") => {}
        Some(t) => {
            return Err(CommandError::Unexpected {
                command: "setoption",
                token: t.to_string(),
            })
        }
        None => {
            return Err(CommandError::Missing {
                command: "setoption",
                what: "'name'",
            })
        }
    }
    let rest = &args[1..];
    let v = rest.iter().position(|t| t.eq_ignore_ascii_case("value"));
    let (name, value) = match v {
        Some(v) => (&rest[..v], Some(rest[v + 1..].join(" "))),
        None => (rest, None),
    };
    if name.is_empty() {
        return Err(CommandError::Missing {
            command: "setoption",
            what: "the option name",
        });
    }
    Ok(Command::SetOption {
        name: name.join(" "),
        value,
    })
}

fn no_args(command: &'static str, args: &[&str], c: Command) -> Result<Command, CommandError> {
    match args.first() {
        None => Ok(c),
        Some(t) => Err(CommandError::Unexpected {
            command,
            token: t.to_string(),
        }),
    }
}

/// Parses one line. `Ok(None)` for a blank line, which is ignored.
pub fn parse(line: &str) -> Result<Option<Command>, CommandError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&cmd, args)) = tokens.split_first() else {
        return Ok(None);
    };
    let c = match cmd {
        "uci" => no_args("uci", args, Command::Uci),
        "ugi" => no_args("ugi", args, Command::Ugi),
        "isready" => no_args("isready", args, Command::IsReady),
        "ucinewgame" | "uginewgame" => no_args("ucinewgame", args, Command::NewGame),
        "stop" => no_args("stop", args, Command::Stop),
        "ponderhit" => no_args("ponderhit", args, Command::PonderHit),
        "quit" => no_args("quit", args, Command::Quit),
        "d" => no_args("d", args, Command::Display),
        "eval" => no_args("eval", args, Command::Eval),
        "values" => match args {
            [] => Ok(Command::Values { expected: false }),
            ["expected"] => Ok(Command::Values { expected: true }),
            [t, ..] => Err(CommandError::Unexpected {
                command: "values",
                token: t.to_string(),
            }),
        },
        "debug" => match args {
            ["on"] => Ok(Command::Debug(true)),
            ["off"] => Ok(Command::Debug(false)),
            [] => Err(CommandError::Missing {
                command: "debug",
                what: "'on' or 'off'",
            }),
            [t, ..] => Err(CommandError::Unexpected {
                command: "debug",
                token: t.to_string(),
            }),
        },
        "setoption" => parse_setoption(args),
        "position" => parse_position(args),
        "go" => parse_go(args),
        "query" => {
            let q = match args {
                ["gameover"] => Query::GameOver,
                ["p1turn"] => Query::P1Turn,
                ["result"] => Query::Result,
                ["fen"] => Query::Fen,
                ["legalmoves"] => Query::LegalMoves,
                ["reason"] => Query::Reason,
                ["mills"] => Query::Mills,
                [] => {
                    return Err(CommandError::Missing {
                        command: "query",
                        what: "what to query",
                    })
                }
                [t, ..] => {
                    return Err(CommandError::Unexpected {
                        command: "query",
                        token: t.to_string(),
                    })
                }
            };
            Ok(Command::Query(q))
        }
        "perft" => match args {
            [d] => {
                let d = parse_number("depth", d)?.min(MAX_PERFT_DEPTH);
                Ok(Command::Perft(d as u32))
            }
            [] => Err(CommandError::Missing {
                command: "perft",
                what: "the depth",
            }),
            [_, t, ..] => Err(CommandError::Unexpected {
                command: "perft",
                token: t.to_string(),
            }),
        },
        "bench" => match args {
            [] => Ok(Command::Bench(None)),
            [d] => {
                let d = parse_number("depth", d)?.clamp(1, MAX_BENCH_DEPTH);
                Ok(Command::Bench(Some(d as i32)))
            }
            [_, t, ..] => Err(CommandError::Unexpected {
                command: "bench",
                token: t.to_string(),
            }),
        },
        other => Err(CommandError::Unknown(other.to_string())),
    };
    c.map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Command {
        parse(line).unwrap().unwrap()
    }

    #[test]
    fn blank_lines_are_nothing() {
        assert_eq!(parse("").unwrap(), None);
        assert_eq!(parse(" \t ").unwrap(), None);
    }

    #[test]
    fn position_with_separate_removal() {
        let Command::Position { start, moves } = ok("position startpos moves d6 a1 XB2 d5") else {
            panic!()
        };
        assert_eq!(start, Start::StartPos);
        let texts: Vec<_> = moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["d6", "a1 XB2", "d5"]);
        assert_eq!(moves[1].mv.to_string(), "a1xb2");
        assert!(matches!(
            parse("position startpos moves xa1"),
            Err(CommandError::StrayRemoval { index: 1, .. })
        ));
        assert!(matches!(
            parse("position startpos moves d6xa1 xb2"),
            Err(CommandError::StrayRemoval { index: 1, .. })
        ));
        assert!(matches!(
            parse("position startpos moves d6 zz"),
            Err(CommandError::BadMove { index: 2, .. })
        ));
    }

    #[test]
    fn position_fen_fields() {
        let c = ok("position fen .../.../.../....../.../.../... w 9 9 0 1 moves d6");
        let Command::Position { start, moves } = c else {
            panic!()
        };
        assert_eq!(
            start,
            Start::Fen(".../.../.../....../.../.../... w 9 9 0 1".into())
        );
        assert_eq!(moves.len(), 1);
        assert!(parse("position").is_err());
        assert!(parse("position startpos d6").is_err());
    }

    #[test]
    fn go_numbers() {
        let Command::Go(g) = ok("go p1time 1000 btime 99999999999999999999999 winc 5 depth 3")
        else {
            panic!()
        };
        assert_eq!(g.time, [Some(1000), Some(u64::MAX)]);
        assert_eq!(g.inc, [Some(5), None]);
        let l = g.limits(1, Duration::ZERO);
        assert_eq!(l.clock.time[1], Some(Duration::from_millis(MAX_TIME_MS)));
        assert_eq!(l.depth, Some(3));
        assert!(matches!(
            parse("go depth -1"),
            Err(CommandError::Negative { .. })
        ));
        assert!(matches!(
            parse("go depth x"),
            Err(CommandError::NotANumber { .. })
        ));
        assert!(parse("go depth").is_err());
        assert!(parse("go mate").is_err());
        assert!(parse("go mate -2").is_err());
        assert!(parse("go movetime -5").is_err());
        let Command::Go(g) = ok("go ponder wtime -120 btime 500 winc -1 mate 3") else {
            panic!()
        };
        assert!(g.ponder);
        assert_eq!(g.time, [Some(0), Some(500)]);
        assert_eq!(g.inc[0], Some(0));
        assert_eq!(g.mate, Some(3));
        let Command::Go(g) = ok("go searchmoves d6 a1 depth 2") else {
            panic!()
        };
        assert_eq!(g.searchmoves.len(), 2);
        assert_eq!(g.depth, Some(2));
    }

    #[test]
    fn setoption_names_with_spaces() {
        assert_eq!(
            ok("setoption name Move Overhead value 50"),
            Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("50".into())
            }
        );
        assert_eq!(
            ok("setoption name Clear Hash"),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert!(parse("setoption").is_err());
        assert!(parse("setoption name").is_err());
    }

    #[test]
    fn errors_quote_user_text_on_one_line() {
        let e = parse("foo\u{7}bar").unwrap_err().to_string();
        assert_eq!(e, "unknown command 'foo\\u{7}bar'");
        let long = "y".repeat(1000);
        assert!(parse(&long).unwrap_err().to_string().len() < 100);
    }
}
