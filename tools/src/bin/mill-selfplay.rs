//! `mill-selfplay`: games of the engine against itself, in-process through the library, for
//! training data and quick sanity checks. One JSON line per position.

use clap::Parser;
use millstone::search::{Info, Limits};
use millstone::{Engine, Game, Move, Rules, Variant};
use millstone_tools::analysis::{score_text, search_lines};
use millstone_tools::input::random_opening;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Plays the engine against itself through the library (no processes), games spread over the
/// cores, and writes one JSON line per position: position, move played, search score, and the
/// final result from the mover's view.
#[derive(Parser, Debug)]
#[command(
    name = "mill-selfplay",
    version,
    after_help = "Example:\n  mill-selfplay --games 100 --depth 6 --random-opening 4 --random-moves 2 --seed 1 -o selfplay.jsonl"
)]
struct Cli {
    /// Number of games.
    #[arg(long, default_value_t = 10)]
    games: usize,
    /// Search depth per move.
    #[arg(long)]
    depth: Option<i32>,
    /// Nodes per move.
    #[arg(long)]
    nodes: Option<u64>,
    /// Milliseconds per move (not reproducible).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Random plies from the start before the engine plays (seeded per game).
    #[arg(long, value_name = "K", default_value_t = 4)]
    random_opening: usize,
    /// After the opening, the first K moves of each game are chosen uniformly at random
    /// (the position is still searched and recorded).
    #[arg(long, value_name = "K", default_value_t = 0)]
    random_moves: usize,
    /// Choose among the best --multipv moves with probability ~ exp(score / (100 * T));
    /// 0 plays the best move.
    #[arg(long, value_name = "T", default_value_t = 0.0)]
    temperature: f64,
    /// Candidate moves for --temperature.
    #[arg(long, default_value_t = 4)]
    multipv: usize,
    /// Seed of openings and random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (one engine each); default: all cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Transposition table per engine in MiB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// Adjudicate a draw after this many plies.
    #[arg(long, default_value_t = 400)]
    max_plies: usize,
    /// nine or twelve.
    #[arg(long, default_value = "nine")]
    variant: Variant,
    /// Turn flying off.
    #[arg(long)]
    no_flying: bool,
    /// Output file (default: standard output).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// Play only shard K of N (1-based): the games whose 0-based index is K-1 modulo N, with
    /// the game numbers and seeds of the whole run. `mill-selfplay merge` puts the shards'
    /// outputs back together in game order.
    #[arg(long, value_name = "K/N", value_parser = millstone_tools::tournament::parse_shard)]
    shard: Option<(usize, usize)>,
}

/// `mill-selfplay merge`: the outputs of the shards of one run, as one run would write them
/// (games in order, each game's positions in order).
#[derive(Parser, Debug)]
#[command(
    name = "mill-selfplay merge",
    bin_name = "mill-selfplay merge",
    version,
    after_help = "Example:\n  mill-selfplay --shard 1/2 --games 100 --depth 6 -o s1.jsonl; mill-selfplay --shard 2/2 --games 100 --depth 6 -o s2.jsonl\n  mill-selfplay merge s1.jsonl s2.jsonl -o selfplay.jsonl"
)]
struct MergeCli {
    /// The shards' output files, in any order.
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
    /// Output file (default: standard output).
    #[arg(long, short)]
    output: Option<PathBuf>,
}

#[derive(Serialize)]
struct PositionLine {
    game: usize,
    ply: usize,
    fen: String,
    #[serde(rename = "move")]
    mv: String,
    score: String,
    score_cp: i32,
    depth: i32,
    random: bool,
    result: f64,
    game_result: String,
    reason: String,
}

struct GameOut {
    lines: Vec<PositionLine>,
    result: String,
}

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn play_one(cli: &Cli, rules: Rules, engine: &mut Engine, id: usize) -> GameOut {
    let mut rng = StdRng::seed_from_u64(mix(cli.seed ^ mix(id as u64)));
    engine.clear();
    let start = random_opening(rules, cli.random_opening, &mut rng);
    let mut game = Game::new(start);
    let temperature = cli.temperature.max(0.0);
    let mut rows: Vec<(usize, String, Move, i32, i32, bool, millstone::Color)> = Vec::new();
    let outcome = loop {
        if let Some(o) = game.outcome() {
            break (o.result_str().to_string(), o.reason().name().to_string());
        }
        if game.moves().len() >= cli.max_plies {
            break ("1/2-1/2".to_string(), "maxplies".to_string());
        }
        let multipv = if temperature > 0.0 {
            cli.multipv.max(1)
        } else {
            1
        };
        let limits = Limits {
            depth: cli.depth,
            nodes: cli.nodes,
            clock: millstone::timeman::Clock {
                movetime: cli.movetime.map(Duration::from_millis),
                ..Default::default()
            },
            multipv,
            ..Limits::default()
        };
        let (r, lines) = search_lines(engine, &game, &limits);
        let best = r
            .best
            .expect("the search finds a move while the game is on");
        let ply = game.moves().len();
        // Plies count from the game's start, after the random opening.
        let random = ply < cli.random_moves;
        let mv = if random {
            *game
                .legal_moves()
                .as_slice()
                .choose(&mut rng)
                .expect("moves exist")
        } else if temperature > 0.0 {
            sample(&lines, temperature, &mut rng).unwrap_or(best)
        } else {
            best
        };
        let side = game.position().side_to_move();
        rows.push((
            ply,
            game.position().to_fen(),
            mv,
            r.score,
            r.depth,
            random,
            side,
        ));
        game.play(mv).expect("the engine's move is legal");
    };
    let (result, reason) = outcome;
    let lines = rows
        .into_iter()
        .map(|(ply, fen, mv, score, depth, random, side)| {
            let white = match result.as_str() {
                "1-0" => 1.0,
                "0-1" => 0.0,
                _ => 0.5,
            };
            PositionLine {
                game: id + 1,
                ply,
                fen,
                mv: mv.to_string(),
                score: score_text(score),
                score_cp: score,
                depth,
                random,
                result: if side == millstone::Color::White {
                    white
                } else {
                    1.0 - white
                },
                game_result: result.clone(),
                reason: reason.clone(),
            }
        })
        .collect();
    GameOut { lines, result }
}

fn sample(cands: &[Info], temperature: f64, rng: &mut impl Rng) -> Option<Move> {
    let cands: Vec<&Info> = cands.iter().filter(|i| !i.pv.is_empty()).collect();
    let max = cands.iter().map(|i| i.score).max()?;
    let weights: Vec<f64> = cands
        .iter()
        .map(|i| ((i.score - max) as f64 / (100.0 * temperature)).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.gen::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return Some(cands[i].pv[0]);
        }
        x -= w;
    }
    cands.last().map(|i| i.pv[0])
}

/// Reads the shards' lines, checks that every game comes whole from one file and no position
/// twice, and writes them ordered by game and ply.
fn merge(cli: MergeCli) -> Result<(), String> {
    use std::collections::BTreeMap;
    // (game, ply) -> line; game -> the file it came from.
    let mut rows: BTreeMap<(u64, u64), String> = BTreeMap::new();
    let mut owner: BTreeMap<u64, (String, String)> = BTreeMap::new();
    for path in &cli.files {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let file = path.display().to_string();
        for (n, line) in text.lines().enumerate() {
            let at = format!("{file}:{}", n + 1);
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("{at}: not a JSON line: {e}"))?;
            let field = |k: &str| {
                v.get(k)
                    .and_then(|x| x.as_u64())
                    .ok_or_else(|| format!("{at}: not a mill-selfplay line (no '{k}' number)"))
            };
            let (game, ply) = (field("game")?, field("ply")?);
            match owner.get(&game) {
                Some((f, first)) if *f != file => {
                    return Err(format!(
                        "{at}: game {game} is also in {first}: the files are not shards of one run"
                    ))
                }
                Some(_) => {}
                None => {
                    owner.insert(game, (file.clone(), at.clone()));
                }
            }
            if rows.insert((game, ply), line.to_string()).is_some() {
                return Err(format!("{at}: game {game} ply {ply} appears twice"));
            }
        }
    }
    if rows.is_empty() {
        return Err("merge: no positions in the files".into());
    }
    let mut out: Box<dyn Write> = match &cli.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    for line in rows.values() {
        writeln!(out, "{line}").map_err(|e| format!("cannot write the output: {e}"))?;
    }
    out.flush()
        .map_err(|e| format!("cannot write the output: {e}"))?;
    eprintln!(
        "mill-selfplay: merged {} games, {} positions from {} file(s)",
        owner.len(),
        rows.len(),
        cli.files.len()
    );
    Ok(())
}

fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|a| a == "merge") {
        let cli = MergeCli::parse_from(std::env::args_os().skip(1));
        return match merge(cli) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("mill-selfplay: error: {e}");
                ExitCode::from(2)
            }
        };
    }
    let cli = Cli::parse();
    if cli.depth.is_none() && cli.nodes.is_none() && cli.movetime.is_none() {
        eprintln!("mill-selfplay: error: give --depth, --nodes or --movetime");
        return ExitCode::from(2);
    }
    let rules = Rules::new(cli.variant, !cli.no_flying);
    let threads = cli
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    // Every worker holds a table of this size: check that they fit before starting.
    let total_mb = cli.hash.saturating_mul(threads);
    if let Err(e) = millstone::tt::check_size(total_mb) {
        eprintln!(
            "mill-selfplay: error: --hash {} for {threads} workers: {e}",
            cli.hash
        );
        return ExitCode::from(2);
    }
    let t0 = Instant::now();
    // The game indices this run plays: all, or those of its shard.
    let ids: Vec<usize> = match cli.shard {
        Some((k, n)) => (0..cli.games).filter(|i| i % n == k - 1).collect(),
        None => (0..cli.games).collect(),
    };
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<GameOut>>> = Mutex::new((0..ids.len()).map(|_| None).collect());
    // One plain thread and one engine per worker, games handed out by a counter. (A rayon
    // parallel iterator would let a worker that waits for its engine's search pool steal the
    // next game, nesting searches until memory or the stack runs out.)
    // A bar (games, time left) when stderr is a terminal; the per-game lines either way.
    let bar = if cli.quiet {
        millstone_tools::progress::Progress::hidden()
    } else {
        millstone_tools::progress::Progress::new("self-play", ids.len() as u64, "games")
    };
    std::thread::scope(|scope| {
        for _ in 0..threads.min(ids.len().max(1)) {
            scope.spawn(|| {
                let mut engine = Engine::with_hash_mb(cli.hash);
                loop {
                    let slot = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&id) = ids.get(slot) else {
                        break;
                    };
                    let g = play_one(&cli, rules, &mut engine, id);
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if !cli.quiet {
                        bar.inc(1);
                        millstone_tools::progress::line(&format!(
                            "[{n}/{}] game {}: {} in {} plies",
                            ids.len(),
                            id + 1,
                            g.result,
                            g.lines.len()
                        ));
                    }
                    slots.lock().expect("no worker panics")[slot] = Some(g);
                }
            });
        }
    });
    drop(bar);
    let results: Vec<GameOut> = slots
        .into_inner()
        .expect("no worker panics")
        .into_iter()
        .flatten()
        .collect();
    let mut out: Box<dyn Write> = match &cli.output {
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => {
                eprintln!("mill-selfplay: error: cannot create {}: {e}", p.display());
                return ExitCode::from(2);
            }
        },
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    let (mut w, mut d, mut l, mut positions) = (0, 0, 0, 0);
    for g in &results {
        match g.result.as_str() {
            "1-0" => w += 1,
            "0-1" => l += 1,
            _ => d += 1,
        }
        for line in &g.lines {
            positions += 1;
            let s = serde_json::to_string(line).expect("serializable");
            if writeln!(out, "{s}").is_err() {
                eprintln!("mill-selfplay: error: cannot write the output");
                return ExitCode::from(2);
            }
        }
    }
    if out.flush().is_err() {
        eprintln!("mill-selfplay: error: cannot write the output");
        return ExitCode::from(2);
    }
    let shard = cli
        .shard
        .map(|(k, n)| format!(", shard {k}/{n} of {} games", cli.games))
        .unwrap_or_default();
    eprintln!(
        "{} games, {positions} positions, white wins {w}, draws {d}, black wins {l}, {:.1}s on {threads} threads{shard}",
        results.len(),
        t0.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
