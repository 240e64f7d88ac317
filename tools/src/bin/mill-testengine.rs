//! `mill-testengine`: a small protocol engine for testing the match runner. It plays a
//! pseudo-random legal move (a function of the position and its seed, so games are
//! reproducible), or with `--search` the library's search at the depth it is given.

use clap::Parser;
use millstone::search::{Limits, Score};
use millstone::{Engine, Game, Move, Position, Rules, Variant};
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
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let t: Vec<&str> = line.split_whitespace().collect();
        match t.first().copied() {
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
                        "Seed" => seed = value.parse().unwrap_or(seed),
                        _ => {}
                    }
                }
            }
            Some("ucinewgame") => {
                engine.clear();
                game = Game::from_rules(rules);
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
                let legal = game.legal_moves();
                if legal.is_empty() {
                    let _ = writeln!(out, "bestmove 0000");
                } else if cli.search {
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
                    let r = engine.search(&game, &limits, Box::new(|_| {}));
                    let score = match Score::from_internal(r.score) {
                        Score::Cp(c) => format!("cp {c}"),
                        Score::Mate(m) => format!("mate {m}"),
                    };
                    let pv: Vec<String> = r.pv.iter().map(|m| m.to_string()).collect();
                    let best = r.best.unwrap_or(legal[0]);
                    let _ = writeln!(
                        out,
                        "info depth {} score {score} nodes {} pv {}",
                        r.depth,
                        r.nodes,
                        pv.join(" ")
                    );
                    let _ = writeln!(out, "bestmove {best}");
                } else {
                    let h = mix(game.position().hash() ^ mix(seed) ^ game.moves().len() as u64);
                    let m = legal[(h % legal.len() as u64) as usize];
                    let _ = writeln!(out, "info depth 1 score cp 0 pv {m}");
                    let _ = writeln!(out, "bestmove {m}");
                }
            }
            Some("quit") => break,
            _ => {}
        }
        let _ = out.flush();
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
