//! `mill-analyze`: the engine's view of positions: best move, score, WDL and principal
//! variations, through the library in-process.

use clap::{Parser, ValueEnum};
use millstone::search::{self, Limits};
use millstone::solve::Solver;
use millstone::tablebase::{Tablebase, Wdl};
use millstone::{Engine, Game, Rules, Variant};
use millstone_tools::analysis::{score_text, search_lines};
use millstone_tools::input::parse_line;
use serde::Serialize;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Copy, Clone, Debug, ValueEnum)]
enum Format {
    Text,
    Jsonl,
}

/// Analyses positions, one a line: a position string, `fen <6 fields> [moves ...]`,
/// `startpos [moves ...]` or `moves m1 m2 ...` (from the start). Blank lines and `#`
/// comments are skipped; a bad line is reported on stderr and skipped, and the exit code is
/// then 1.
#[derive(Parser, Debug)]
#[command(
    name = "mill-analyze",
    version,
    after_help = "Example:\n  echo 'moves d6 a1 d7' | mill-analyze --depth 10 --multipv 3"
)]
struct Cli {
    /// Read positions from this file (default: standard input).
    #[arg(long, short)]
    file: Option<PathBuf>,
    /// Search depth (default 8 when no --movetime is given).
    #[arg(long)]
    depth: Option<i32>,
    /// Milliseconds per position.
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Number of best lines to show.
    #[arg(long, default_value_t = 1)]
    multipv: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// nine or twelve.
    #[arg(long, default_value = "nine")]
    variant: Variant,
    /// Turn flying off.
    #[arg(long)]
    no_flying: bool,
    /// Transposition table in MiB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Endgame tables made by `mill-tb generate`: the search uses them and each covered
    /// position shows the table's verdict.
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// With --tables: a book of `mill-tb book` for the placing-phase solver (and the engine).
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// With --tables: seconds the solver may spend on a placing-phase position (its value and
    /// the moves that keep it); 0 turns the solver off.
    #[arg(long, default_value_t = 10.0)]
    solve_secs: f64,
    /// With --tables: the solver's table in MiB.
    #[arg(long, default_value_t = 1024)]
    solve_hash: usize,
}

/// A placing-phase position's proven value and the moves that keep it.
#[derive(Serialize)]
struct ProvenOut {
    value: String,
    keeping: Vec<String>,
    moves: usize,
    /// Where the proof comes from: `tables` (the placing-phase tables) or `solver`.
    source: &'static str,
    /// With the placing tables: every legal move and its value for the side making it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    values: Vec<(String, String)>,
}

#[derive(Serialize)]
struct LineOut {
    multipv: usize,
    #[serde(rename = "move")]
    mv: String,
    score: String,
    wdl: [u32; 3],
    depth: i32,
    nodes: u64,
    pv: Vec<String>,
}

#[derive(Serialize)]
struct PositionOut {
    line: usize,
    input: String,
    fen: String,
    bestmove: Option<String>,
    game_over: Option<String>,
    /// The endgame table's verdict for the side to move, e.g. `win, next mill in 7 plies`.
    table: Option<String>,
    /// In the placing phase, the solver's exact value and the moves that keep it.
    proven: Option<ProvenOut>,
    lines: Vec<LineOut>,
}

/// The table's verdict in words, for positions the tables cover.
fn table_verdict(tb: &Tablebase, game: &Game) -> Option<String> {
    if !game.position().is_moving_phase() {
        return tb
            .wdl(game.position())
            .map(|w| format!("{} (placing tables)", wdl_word(w)));
    }
    let p = tb.probe(game.position())?;
    let what = match p.wdl {
        Wdl::Win => "win",
        Wdl::CursedWin => "draw (a win spoilt by the 100-ply rule)",
        Wdl::Draw => "draw",
        Wdl::BlessedLoss => "draw (a loss saved by the 100-ply rule)",
        Wdl::Loss => "loss",
    };
    Some(match p.wdl {
        Wdl::Win | Wdl::Loss => format!("{what}, next mill in {} plies", p.plies_to_mill),
        _ => what.to_string(),
    })
}

fn wdl_word(w: Wdl) -> &'static str {
    match w.real() {
        Wdl::Win => "win",
        Wdl::Loss => "loss",
        _ => "draw",
    }
}

/// A placing-phase position's value, its keeping moves and every move's value from the placing
/// tables where they cover it (at once), else the solver's value and keeping moves within
/// `limit`; `None` in the moving phase, at the end of the game, or when the solve does not
/// finish.
fn prove(
    tb: &Tablebase,
    solver: Option<&mut Solver>,
    game: &Game,
    limit: Duration,
) -> Option<ProvenOut> {
    let pos = game.position();
    if pos.is_moving_phase() || game.outcome().is_some() {
        return None;
    }
    if let Some(root) = tb.probe_root(pos) {
        let v = root.probe.wdl.real();
        return Some(ProvenOut {
            value: wdl_word(v).to_string(),
            keeping: root
                .moves
                .iter()
                .filter(|(_, p)| p.wdl.real() == v)
                .map(|(m, _)| m.to_string())
                .collect(),
            moves: root.moves.len(),
            source: "tables",
            values: root
                .moves
                .iter()
                .map(|(m, p)| (m.to_string(), wdl_word(p.wdl).to_string()))
                .collect(),
        });
    }
    let solver = solver?;
    solver.set_deadline(std::time::Instant::now().checked_add(limit));
    match solver.value_keeping(pos) {
        Ok((v, keep)) => Some(ProvenOut {
            value: wdl_word(v).to_string(),
            keeping: keep.iter().map(|m| m.to_string()).collect(),
            moves: pos.legal_moves().len(),
            source: "solver",
            values: Vec::new(),
        }),
        Err(e) => {
            eprintln!("mill-analyze: {pos}: not proven: {e}");
            None
        }
    }
}

fn analyse(engine: &mut Engine, game: &Game, cli: &Cli) -> (Option<String>, Vec<LineOut>) {
    let limits = Limits {
        depth: cli.depth.or(if cli.movetime.is_none() {
            Some(8)
        } else {
            None
        }),
        clock: millstone::timeman::Clock {
            movetime: cli.movetime.map(Duration::from_millis),
            ..Default::default()
        },
        multipv: cli.multipv.max(1),
        ..Limits::default()
    };
    let (r, infos) = search_lines(engine, game, &limits);
    let mut lines: Vec<LineOut> = infos
        .iter()
        .filter(|i| !i.pv.is_empty())
        .map(|i| LineOut {
            multipv: i.multipv,
            mv: i.pv[0].to_string(),
            score: score_text(i.score),
            wdl: {
                let (w, d, l) = search::wdl(i.score);
                [w, d, l]
            },
            depth: i.depth,
            nodes: i.nodes,
            pv: i.pv.iter().map(|m| m.to_string()).collect(),
        })
        .collect();
    if lines.is_empty() {
        if let Some(b) = r.best {
            let (w, d, l) = search::wdl(r.score);
            lines.push(LineOut {
                multipv: 1,
                mv: b.to_string(),
                score: score_text(r.score),
                wdl: [w, d, l],
                depth: r.depth,
                nodes: r.nodes,
                pv: r.pv.iter().map(|m| m.to_string()).collect(),
            });
        }
    }
    (r.best.map(|m| m.to_string()), lines)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rules = Rules::new(cli.variant, !cli.no_flying);
    let reader: Box<dyn BufRead> = match &cli.file {
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => {
                eprintln!("mill-analyze: error: cannot read {}: {e}", p.display());
                return ExitCode::from(2);
            }
        },
        None => Box::new(std::io::BufReader::new(std::io::stdin())),
    };
    let source = cli
        .file
        .as_ref()
        .map_or("stdin".to_string(), |p| p.display().to_string());
    let mut engine = Engine::new();
    if let Err(e) = engine.try_set_hash_mb(cli.hash) {
        eprintln!("mill-analyze: error: --hash {}: {e}", cli.hash);
        return ExitCode::from(2);
    }
    engine.set_threads(cli.threads);
    // An analysis compares each move's score with the best one's: a draw is worth 0 to both
    // sides here, not the contempt that makes the engine play on in a game.
    engine.set_contempt(0);
    let tablebase = match &cli.tables {
        None => None,
        Some(dir) => {
            let d = dir.display().to_string();
            match engine.set_table_path(Some(&d), rules) {
                Ok(n) => eprintln!("mill-analyze: {n} endgame table(s) of {rules} in {d}"),
                Err(e) => {
                    eprintln!("mill-analyze: error: tables in {d}: {e}");
                    return ExitCode::from(2);
                }
            }
            Tablebase::open(dir).ok()
        }
    };
    if let Some(b) = &cli.book {
        if cli.tables.is_none() {
            eprintln!("mill-analyze: error: --book needs --tables");
            return ExitCode::from(2);
        }
        match engine.set_book_path(Some(&b.display().to_string())) {
            Ok((n, r)) => eprintln!("mill-analyze: book of {n} proven positions of {r}"),
            Err(e) => {
                eprintln!("mill-analyze: error: book: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut solver = match &tablebase {
        Some(tb) if cli.solve_secs > 0.0 => match Solver::new(tb, rules, cli.solve_hash) {
            Ok(mut s) => {
                if let Some(b) = &cli.book {
                    if let Err(e) = s.load_checkpoint(b) {
                        eprintln!("mill-analyze: error: book: {e}");
                        return ExitCode::from(2);
                    }
                }
                Some(s)
            }
            Err(e) => {
                eprintln!("mill-analyze: error: solver: {e}");
                return ExitCode::from(2);
            }
        },
        _ => None,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = 0usize;
    for (n, line) in reader.lines().enumerate() {
        let n = n + 1;
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("mill-analyze: {source}:{n}: cannot read: {e}");
                failed += 1;
                break;
            }
        };
        let game = match parse_line(&line, rules) {
            Ok(None) => continue,
            Ok(Some(g)) => g,
            Err(e) => {
                eprintln!("mill-analyze: {source}:{n}: {e}");
                failed += 1;
                continue;
            }
        };
        let fen = game.position().to_fen();
        let table = tablebase.as_ref().and_then(|tb| table_verdict(tb, &game));
        let proven = tablebase.as_ref().and_then(|tb| {
            prove(
                tb,
                solver.as_mut(),
                &game,
                Duration::from_secs_f64(cli.solve_secs),
            )
        });
        let (best, lines, over) = match game.outcome() {
            Some(o) => (None, Vec::new(), Some(o.to_string())),
            None => {
                let (b, l) = analyse(&mut engine, &game, &cli);
                (b, l, None)
            }
        };
        let written = match cli.format {
            Format::Jsonl => {
                let p = PositionOut {
                    line: n,
                    input: line.trim().to_string(),
                    fen,
                    bestmove: best,
                    game_over: over,
                    table,
                    proven,
                    lines,
                };
                writeln!(out, "{}", serde_json::to_string(&p).expect("serializable"))
            }
            Format::Text => {
                let mut s = format!("position {fen}\n");
                if let Some(o) = over {
                    s += &format!("  game over: {o}\n");
                }
                if let Some(t) = table {
                    s += &format!("  table: {t}\n");
                }
                if let Some(p) = &proven {
                    s += &format!(
                        "  proven ({}): {}, {} of {} moves keep it: {}\n",
                        p.source,
                        p.value,
                        p.keeping.len(),
                        p.moves,
                        p.keeping.join(" ")
                    );
                    if !p.values.is_empty() {
                        let each: Vec<String> =
                            p.values.iter().map(|(m, v)| format!("{m} {v}")).collect();
                        s += &format!("  values: {}\n", each.join(", "));
                    }
                }
                for l in &lines {
                    s += &format!(
                        "  {}. {:<10} {:<9} wdl {}/{}/{}  depth {}  pv {}\n",
                        l.multipv,
                        l.mv,
                        l.score,
                        l.wdl[0],
                        l.wdl[1],
                        l.wdl[2],
                        l.depth,
                        l.pv.join(" ")
                    );
                }
                if let Some(b) = best {
                    s += &format!("  bestmove {b}\n");
                }
                write!(out, "{s}")
            }
        };
        if written.and_then(|_| out.flush()).is_err() {
            return ExitCode::from(2);
        }
    }
    if failed > 0 {
        eprintln!("mill-analyze: {failed} line(s) failed");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
