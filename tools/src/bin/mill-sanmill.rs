//! `mill-sanmill`: Sanmill's engine behind our protocol, so that mill-match, mill-analyze and
//! any GUI of ours can play it. It starts Sanmill's engine binary as a child and translates
//! both ways (the dialect: `millstone_tools::sanmill`):
//!
//! - `position` is checked by our rules and sent in Sanmill's notation (a removal as a move of
//!   its own, Sanmill's position string for `fen`);
//! - `go` sets Sanmill's `MoveTime` (whole seconds: `movetime` rounded up, a clock's share
//!   rounded up, `infinite` none) and reads its `info score N bestmove X`; when X closes a mill
//!   Sanmill is asked again, in the position after X, for its removal, and the two are answered
//!   as our one move (`d6xa1`). A mill therefore costs Sanmill two searches, as in its own
//!   program, where the removal is a turn of its own: a referee's time margin must allow it;
//! - `UCI_Variant` and `Flying` become Sanmill's rule options; every other option is passed on.
//!
//! It stays responsive during a search (`stop`, `isready`, `quit`), and a bad command gets an
//! `info string error: ...` line as from the engine itself.

use clap::Parser;
use millstone::protocol::command::{self, Command, Start};
use millstone::protocol::format;
use millstone::{Game, Move, Position, Rules, Variant};
use millstone_tools::sanmill;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command as Process, ExitCode, Stdio};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

/// Runs Sanmill's engine (its `src/sanmill`, built with `make build`) behind Millstone's
/// protocol.
#[derive(Parser, Debug)]
#[command(
    name = "mill-sanmill",
    version,
    after_help = "Example, Sanmill 7.4.6 at 1 s a move against Millstone at 100 ms:\n  mill-match --engine cmd=target/release/millstone --engine cmd=target/release/mill-sanmill arg=/path/to/sanmill name=sanmill option.SkillLevel=30 movetime=1000 --movetime 100 --timemargin 1500 --games 20"
)]
struct Cli {
    /// Sanmill's engine binary.
    engine: PathBuf,
    /// Arguments for it.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

enum Event {
    Gui(String),
    GuiClosed,
    Engine(String),
    EngineClosed,
}

fn read_lines(input: impl BufRead + Send + 'static, tx: Sender<Event>, gui: bool) {
    std::thread::spawn(move || {
        for line in input.lines() {
            let Ok(line) = line else { break };
            let line = line.trim().to_string();
            let ev = if gui {
                Event::Gui(line)
            } else {
                Event::Engine(line)
            };
            if tx.send(ev).is_err() {
                return;
            }
        }
        let _ = tx.send(if gui {
            Event::GuiClosed
        } else {
            Event::EngineClosed
        });
    });
}

/// A search in progress: its first part (a placement or slide that closes a mill) once
/// Sanmill has named it and its removal is asked for.
struct Search {
    first: Option<Move>,
    stopped: bool,
}

struct Bridge {
    child: Child,
    to_engine: ChildStdin,
    rules: Rules,
    start: Position,
    startpos: bool,
    game: Game,
    search: Option<Search>,
    /// The `MoveTime` last set in Sanmill, in seconds (0: no limit).
    move_time: Option<u64>,
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

impl Bridge {
    fn send(&mut self, line: &str) {
        log::debug!("to sanmill: {line}");
        if writeln!(self.to_engine, "{line}")
            .and_then(|_| self.to_engine.flush())
            .is_err()
        {
            log::warn!("cannot write to Sanmill's engine");
        }
    }

    fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
        for (name, value) in sanmill::rule_options(rules) {
            self.send(&format!("setoption name {name} value {value}"));
        }
        self.start = Position::new(rules);
        self.startpos = true;
        self.game = Game::new(self.start);
    }

    fn position_command(&self, extra: Option<Move>) -> String {
        let mut cmd = sanmill::position_command(&self.start, self.startpos, self.game.moves());
        if let Some(m) = extra {
            // The placement or slide alone: Sanmill then asks the same side for its removal.
            let head = &sanmill::tokens(m)[0];
            if self.game.moves().is_empty() {
                cmd.push_str(" moves");
            }
            cmd.push(' ');
            cmd.push_str(head);
        }
        cmd
    }

    fn go(&mut self, g: &command::Go) {
        if self.search.is_some() {
            say(&format::error(&"a search is running: stop it first"));
            return;
        }
        if self.game.outcome().is_some() {
            say(&format::bestmove(None, None));
            return;
        }
        let us = self.game.position().side_to_move().index();
        let seconds = if g.infinite || g.ponder {
            Some(0)
        } else if let Some(ms) = g.movetime {
            Some(sanmill::move_time_seconds(ms))
        } else if let Some(t) = g.time[us] {
            let moves_left = g.movestogo.unwrap_or(30).clamp(1, 30);
            Some(sanmill::move_time_seconds(
                t / moves_left + g.inc[us].unwrap_or(0),
            ))
        } else {
            None
        };
        if let Some(s) = seconds.filter(|&s| Some(s) != self.move_time) {
            self.send(&format!("setoption name MoveTime value {s}"));
            self.move_time = Some(s);
        }
        let cmd = self.position_command(None);
        self.send(&cmd);
        self.send("go");
        self.search = Some(Search {
            first: None,
            stopped: false,
        });
    }

    /// Sanmill named a move (`token`): answer it, or ask for the removal it needs.
    fn on_bestmove(&mut self, token: &str) {
        let Some(search) = self.search.as_mut() else {
            log::debug!("a late bestmove {token} ignored");
            return;
        };
        let legal = self.game.legal_moves();
        let answer = match search.first {
            None => match token.parse::<Move>() {
                Ok(m) if !legal.contains(m) && legal.iter().any(|l| l.without_removal() == m) => {
                    // It closes a mill: ask for the removal in the position after it.
                    search.first = Some(m);
                    let stopped = search.stopped;
                    let cmd = self.position_command(Some(m));
                    self.send(&cmd);
                    self.send("go");
                    if stopped {
                        self.send("stop");
                    }
                    return;
                }
                Ok(m) => Some(m),
                Err(_) => None,
            },
            Some(first) => token
                .strip_prefix('x')
                .and_then(|r| r.parse().ok())
                .map(|r| first.with_removal(r)),
        };
        let answer = match answer {
            Some(m) if legal.contains(m) => Some(m),
            other => {
                // Sanmill's answer is no legal move of ours: said, and passed on as it is, so
                // that a referee judges it; `0000` when there was none at all.
                log::warn!(
                    "Sanmill's engine answered '{token}' in {}: not a legal move here",
                    self.game.position().to_fen()
                );
                other
            }
        };
        self.search = None;
        say(&format::bestmove(answer, None));
    }

    fn on_gui(&mut self, line: &str) -> bool {
        let cmd = match command::parse(line) {
            Ok(Some(c)) => c,
            Ok(None) => return true,
            Err(e) => {
                say(&format::error(&e));
                return true;
            }
        };
        match cmd {
            Command::Uci => self.send("uci"),
            Command::IsReady => self.send("isready"),
            Command::NewGame => {
                self.send("ucinewgame");
                self.game = Game::new(self.start);
            }
            Command::SetOption { name, value } => {
                let value = value.unwrap_or_default();
                if name.eq_ignore_ascii_case("UCI_Variant") {
                    match value.to_ascii_lowercase().parse::<Variant>() {
                        Ok(variant) => self.set_rules(Rules {
                            variant,
                            ..self.rules
                        }),
                        Err(e) => say(&format::error(&e)),
                    }
                } else if name.eq_ignore_ascii_case("Flying") {
                    match value.to_ascii_lowercase().as_str() {
                        "true" => self.set_rules(Rules {
                            flying: true,
                            ..self.rules
                        }),
                        "false" => self.set_rules(Rules {
                            flying: false,
                            ..self.rules
                        }),
                        _ => say(&format::error(&format!(
                            "Flying is true or false, not '{value}'"
                        ))),
                    }
                } else {
                    self.send(&format!("setoption name {name} value {value}"));
                }
            }
            Command::Position { start, moves } => {
                let (pos, startpos) = match start {
                    Start::StartPos => (Position::new(self.rules), true),
                    Start::Fen(f) => match Position::from_fen(&f, self.rules) {
                        Ok(p) => (p, false),
                        Err(e) => {
                            say(&format::error(&e));
                            return true;
                        }
                    },
                };
                let mut game = Game::new(pos);
                for (i, t) in moves.iter().enumerate() {
                    if let Err(e) = game.play(t.mv) {
                        say(&format::error(&format!("move {} '{}': {e}", i + 1, t.text)));
                        return true;
                    }
                }
                self.start = pos;
                self.startpos = startpos;
                self.game = game;
            }
            Command::Go(g) => self.go(&g),
            Command::Stop => {
                if let Some(s) = self.search.as_mut() {
                    s.stopped = true;
                    self.send("stop");
                }
            }
            Command::PonderHit | Command::Debug(_) => {}
            Command::Quit => return false,
            other => say(&format::error(&format!(
                "mill-sanmill passes only the playing commands to Sanmill, not {other:?}"
            ))),
        }
        true
    }

    fn on_engine(&mut self, line: &str) {
        if let Some(token) = sanmill::bestmove(line) {
            let token = token.to_string();
            self.on_bestmove(&token);
        } else if let Some(name) = line.strip_prefix("id name ") {
            say(&format!("id name {name} (through mill-sanmill)"));
        } else if line.starts_with("id ") || line == "readyok" {
            say(line);
        } else if let Some(rest) = line.strip_prefix("option name ") {
            // Its own rule options are set from ours; it does not ponder.
            let hidden = ["Ponder", "PiecesCount", "HasDiagonalLines", "MayFly"];
            let name = rest.split(" type ").next().unwrap_or("");
            if !hidden.contains(&name) {
                say(line);
            }
        } else if line == "uciok" {
            say("option name UCI_Variant type combo default nine var nine var twelve");
            say("option name Flying type check default true");
            say("uciok");
        } else if !line.is_empty() {
            log::debug!("sanmill: {line}");
        }
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    let mut child = match Process::new(&cli.engine)
        .args(&cli.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mill-sanmill: cannot start {}: {e}", cli.engine.display());
            return ExitCode::from(2);
        }
    };
    let (tx, rx) = mpsc::channel();
    let engine_out = child.stdout.take().expect("piped");
    read_lines(BufReader::new(engine_out), tx.clone(), false);
    read_lines(BufReader::new(std::io::stdin()), tx, true);
    let to_engine = child.stdin.take().expect("piped");
    let rules = Rules::default();
    let mut b = Bridge {
        child,
        to_engine,
        rules,
        start: Position::new(rules),
        startpos: true,
        game: Game::new(Position::new(rules)),
        search: None,
        move_time: None,
    };
    b.set_rules(rules);
    let code = loop {
        match rx.recv() {
            Ok(Event::Gui(line)) => {
                if !b.on_gui(&line) {
                    break ExitCode::SUCCESS;
                }
            }
            Ok(Event::Engine(line)) => b.on_engine(&line),
            Ok(Event::GuiClosed) => break ExitCode::SUCCESS,
            Ok(Event::EngineClosed) | Err(_) => {
                say(&format::error(&"Sanmill's engine exited"));
                break ExitCode::FAILURE;
            }
        }
    };
    b.send("quit");
    // Sanmill quits at once; one that does not is not waited for.
    for _ in 0..50 {
        if matches!(b.child.try_wait(), Ok(Some(_))) {
            return code;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = b.child.kill();
    code
}
