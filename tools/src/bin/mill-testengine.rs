//! `mill-testengine`: a small protocol engine for testing the match runner. It plays a
//! pseudo-random legal move (a function of the position and its seed, so games are
//! reproducible), or with `--search` the library's search at the depth it is given.
//!
//! It ponders as UCI has it: `bestmove X ponder Y` names the reply it expects (in random
//! mode the move its own rule would choose for the opponent, so two test engines with the
//! same seed always predict each other), `go ponder ...` searches without answering until
//! `ponderhit` (then it answers, after `--think-ms`) or `stop` (then it answers at once, and
//! the runner discards that). With `--sanmill` it speaks Sanmill's dialect instead, for
//! tests of mill-sanmill. `--log FILE` appends every command it receives to FILE, for
//! tests of the runner's side of this.

use clap::Parser;
use millstone::protocol::command::parse_moves;
use millstone::search::{Limits, Score};
use millstone::{Engine, Game, Move, Position, Rules, Variant};
use millstone_tools::sanmill;
use std::io::{BufRead, Write};

/// A protocol engine for tests: random (but deterministic) legal moves, or the library's
/// search with --search.
#[derive(Parser, Debug)]
#[command(name = "mill-testengine", version)]
struct Cli {
    /// Seed of the move choice (also settable with `setoption name Seed value N`).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Use the library's search (at `go depth N`, default depth 2) instead of random moves.
    #[arg(long)]
    search: bool,
    /// Exit without a word when asked to move at this ply of the game (counted from the
    /// game's start position), to test crash handling mid-game.
    #[arg(long, value_name = "PLY")]
    crash_at_ply: Option<usize>,
    /// The name it gives in `id name`.
    #[arg(long, default_value = "mill-testengine")]
    name: String,
    /// Append every command received to this file, one a line.
    #[arg(long, value_name = "FILE")]
    log: Option<std::path::PathBuf>,
    /// Wait this long before answering a `go` (or a `ponderhit`), in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    think_ms: u64,
    /// Hang in ponder searches: ignore `ponderhit` and `stop` after `go ponder`.
    #[arg(long)]
    deaf_ponder: bool,
    /// Speak Sanmill's dialect (its position strings, a removal as a move of its own,
    /// `info score N bestmove X`, its rule options), to test mill-sanmill without Sanmill.
    #[arg(long)]
    sanmill: bool,
}

/// A move, the reply it expects, and the info line to send before them.
struct Choice {
    info: String,
    best: Move,
    ponder: Option<Move>,
}

impl Choice {
    fn bestmove(&self) -> String {
        match self.ponder {
            Some(p) => format!("bestmove {} ponder {p}", self.best),
            None => format!("bestmove {}", self.best),
        }
    }
}

/// The random mode's move: a function of the position, the ply and the seed.
fn pick(game: &Game, seed: u64) -> Option<Move> {
    let legal = game.legal_moves();
    if legal.is_empty() {
        return None;
    }
    let h = mix(game.position().hash() ^ mix(seed) ^ game.moves().len() as u64);
    Some(legal[(h % legal.len() as u64) as usize])
}

fn choose(game: &Game, seed: u64, cli: &Cli, engine: &mut Engine, t: &[&str]) -> Option<Choice> {
    if cli.search {
        let legal = game.legal_moves();
        if legal.is_empty() {
            return None;
        }
        let depth = t
            .iter()
            .position(|x| *x == "depth")
            .and_then(|i| t.get(i + 1))
            .and_then(|d| d.parse().ok())
            .unwrap_or(2);
        let limits = Limits {
            depth: Some(depth),
            multipv: 1,
            ..Limits::default()
        };
        let r = engine.search(game, &limits, Box::new(|_| {}));
        let score = match Score::from_internal(r.score) {
            Score::Cp(c) => format!("cp {c}"),
            Score::Mate(m) => format!("mate {m}"),
        };
        let pv: Vec<String> = r.pv.iter().map(|m| m.to_string()).collect();
        Some(Choice {
            info: format!(
                "info depth {} score {score} nodes {} pv {}",
                r.depth,
                r.nodes,
                pv.join(" ")
            ),
            best: r.best.unwrap_or(legal[0]),
            ponder: r.pv.get(1).copied().filter(|_| r.best.is_some()),
        })
    } else {
        let m = pick(game, seed)?;
        let mut next = game.clone();
        let ponder = next
            .play(m)
            .ok()
            .filter(|_| next.outcome().is_none())
            .and_then(|_| pick(&next, seed));
        Some(Choice {
            info: format!("info depth 1 score cp 0 pv {m}"),
            best: m,
            ponder,
        })
    }
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn main() {
    let cli = Cli::parse();
    let mut seed = cli.seed;
    let mut rules = Rules::default();
    let mut game = Game::from_rules(rules);
    let mut engine = Engine::new();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut log = cli.log.as_ref().and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    // In Sanmill's dialect: the placement or slide given last that closed a mill, its removal
    // not given yet (Sanmill then asks the same side for it).
    let mut pending: Option<Move> = None;
    // The answer of the ponder search in progress, held until ponderhit or stop.
    let mut pondering: Option<Option<Choice>> = None;
    let think = || std::thread::sleep(std::time::Duration::from_millis(cli.think_ms));
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if let Some(f) = log.as_mut() {
            let _ = writeln!(f, "{line}");
            let _ = f.flush();
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        match t.first().copied() {
            Some("uci") if cli.sanmill => {
                let _ = writeln!(out, "id name {}", cli.name);
                let _ = writeln!(
                    out,
                    "option name SkillLevel type spin default 1 min 0 max 30"
                );
                let _ = writeln!(out, "option name MoveTime type spin default 1 min 0 max 60");
                let _ = writeln!(out, "option name Ponder type check default false");
                let _ = writeln!(
                    out,
                    "option name PiecesCount type spin default 9 min 9 max 12"
                );
                let _ = writeln!(out, "uciok");
            }
            Some("uci") => {
                let _ = writeln!(out, "id name {}", cli.name);
                let _ = writeln!(out, "id author Millstone tests");
                let _ = writeln!(
                    out,
                    "option name UCI_Variant type combo default nine var nine var twelve"
                );
                let _ = writeln!(out, "option name Flying type check default true");
                let _ = writeln!(
                    out,
                    "option name Seed type spin default 0 min 0 max 1000000"
                );
                let _ = writeln!(out, "option name Ponder type check default false");
                let _ = writeln!(out, "uciok");
            }
            Some("isready") => {
                let _ = writeln!(out, "readyok");
            }
            Some("setoption") => {
                let name_at = t.iter().position(|x| *x == "name");
                let value_at = t.iter().position(|x| *x == "value");
                if let (Some(n), Some(v)) = (name_at, value_at) {
                    let name = t[n + 1..v].join(" ");
                    let value = t[v + 1..].join(" ");
                    match name.as_str() {
                        "UCI_Variant" => {
                            if let Ok(var) = value.parse::<Variant>() {
                                rules.variant = var;
                            }
                        }
                        "Flying" => rules.flying = value == "true",
                        "PiecesCount" if cli.sanmill => {
                            rules.variant = if value == "12" {
                                Variant::Twelve
                            } else {
                                Variant::Nine
                            };
                        }
                        "MayFly" if cli.sanmill => rules.flying = value == "true",
                        "Seed" => seed = value.parse().unwrap_or(seed),
                        _ => {}
                    }
                }
            }
            Some("ucinewgame") => {
                engine.clear();
                game = Game::from_rules(rules);
                pending = None;
            }
            Some("position") if cli.sanmill => match sanmill_position(&t[1..], rules) {
                Ok((g, head)) => (game, pending) = (g, head),
                Err(e) => {
                    let _ = writeln!(out, "info string error: {e}");
                }
            },
            Some("go") if cli.sanmill => {
                think();
                let reply = match pending {
                    // The removal the head it was given needs: one of the legal ones.
                    Some(head) => {
                        let full: Vec<Move> = game
                            .legal_moves()
                            .iter()
                            .copied()
                            .filter(|m| m.without_removal() == head)
                            .collect();
                        let h = mix(game.position().hash() ^ mix(seed)) as usize;
                        full.get(h % full.len().max(1))
                            .and_then(|m| m.removal())
                            .map(|r| format!("x{r}"))
                    }
                    None => pick(&game, seed).map(|m| sanmill::tokens(m).swap_remove(0)),
                };
                let _ = writeln!(out, "Sanmill-style chatter: bestMove = ?");
                let _ = writeln!(
                    out,
                    "info score 0 bestmove {}",
                    reply.as_deref().unwrap_or("none")
                );
            }
            Some("position") => match set_position(&t[1..], rules) {
                Ok(g) => game = g,
                Err(e) => {
                    let _ = writeln!(out, "info string error: {e}");
                }
            },
            Some("go") => {
                if cli.crash_at_ply.is_some_and(|p| game.moves().len() >= p) {
                    std::process::exit(3);
                }
                let choice = choose(&game, seed, &cli, &mut engine, &t);
                if t.get(1) == Some(&"ponder") {
                    pondering = Some(choice);
                    if cli.deaf_ponder {
                        // Read on, answering nothing but isready, until the end.
                        for line in stdin.lock().lines() {
                            let Ok(line) = line else { break };
                            if let Some(f) = log.as_mut() {
                                let _ = writeln!(f, "{line}");
                            }
                            if line == "quit" {
                                return;
                            }
                        }
                        return;
                    }
                } else {
                    think();
                    answer(&mut out, choice.as_ref());
                }
            }
            Some("ponderhit") => {
                if let Some(choice) = pondering.take() {
                    think();
                    answer(&mut out, choice.as_ref());
                }
            }
            Some("stop") => {
                if let Some(choice) = pondering.take() {
                    answer(&mut out, choice.as_ref());
                }
            }
            Some("quit") => break,
            _ => {}
        }
        let _ = out.flush();
    }
}

fn answer(out: &mut impl Write, choice: Option<&Choice>) {
    match choice {
        Some(c) => {
            let _ = writeln!(out, "{}", c.info);
            let _ = writeln!(out, "{}", c.bestmove());
        }
        None => {
            let _ = writeln!(out, "bestmove 0000");
        }
    }
}

fn set_position(t: &[&str], rules: Rules) -> Result<Game, String> {
    let (start, rest) = match t.first().copied() {
        Some("startpos") => (Position::new(rules), &t[1..]),
        Some("fen") if t.len() >= 7 => (
            Position::from_fen(&t[1..7].join(" "), rules).map_err(|e| e.to_string())?,
            &t[7..],
        ),
        _ => return Err("expected startpos or fen <6 fields>".into()),
    };
    let mut game = Game::new(start);
    if rest.first() == Some(&"moves") {
        for tok in &rest[1..] {
            let m: Move = tok.parse().map_err(|e| format!("{e}"))?;
            game.play(m).map_err(|e| format!("{tok}: {e}"))?;
        }
    }
    Ok(game)
}

/// `position startpos|fen <Sanmill's 17 fields> [moves ...]` in Sanmill's dialect: the game,
/// and the last move given when it closed a mill and its removal is still to come.
fn sanmill_position(t: &[&str], rules: Rules) -> Result<(Game, Option<Move>), String> {
    let end = t.iter().position(|x| *x == "moves").unwrap_or(t.len());
    let start = match t.first().copied() {
        Some("startpos") => Position::new(rules),
        Some("fen") => sanmill::from_fen(&t[1..end].join(" "), rules)?,
        _ => return Err("expected startpos or fen <17 fields>".into()),
    };
    let tokens = t.get(end + 1..).unwrap_or(&[]);
    let moves = parse_moves(tokens).map_err(|e| e.to_string())?;
    let mut game = Game::new(start);
    for (i, tok) in moves.iter().enumerate() {
        if let Err(e) = game.play(tok.mv) {
            let last = i + 1 == moves.len();
            if last && tok.mv.removal().is_none() && game.position().closes_mill(tok.mv) {
                return Ok((game, Some(tok.mv)));
            }
            return Err(format!("{}: {e}", tok.text));
        }
    }
    Ok((game, None))
}
