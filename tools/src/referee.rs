//! Playing one game between two players, with the library as referee: every move is checked
//! with `Game::play`, the game ends by `Game::outcome`, and engine faults (illegal moves,
//! crashes, stalls, time losses) lose the game.

use crate::builtin::Builtin;
use crate::protocol::{EngineError, EngineProcess, ProcessSpec};
use crate::record::{reason, GameRecord};
use millstone::tablebase::{Probe, Tablebase, Wdl};
use millstone::{Color, Game, Move, Position, Rules};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A clock: seconds plus increment per move.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TimeControl {
    /// Starting time.
    pub base: Duration,
    /// Added after each move.
    pub inc: Duration,
}

impl std::str::FromStr for TimeControl {
    type Err = String;
    /// `10+0.1`, `10` or `0.5+0.05` (seconds).
    fn from_str(s: &str) -> Result<TimeControl, String> {
        let (b, i) = s.split_once('+').unwrap_or((s, "0"));
        let secs = |t: &str| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| {
                    format!("bad time control '{s}' (expected seconds+increment, e.g. 10+0.1)")
                })
        };
        let tc = TimeControl {
            base: secs(b)?,
            inc: secs(i)?,
        };
        if tc.base.is_zero() && tc.inc.is_zero() {
            return Err(format!("time control '{s}' gives no time"));
        }
        Ok(tc)
    }
}

/// How games are played.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Variant and flying.
    pub rules: Rules,
    /// The clock, if any.
    pub tc: Option<TimeControl>,
    /// Fixed time per move.
    pub movetime: Option<Duration>,
    /// Fixed depth.
    pub depth: Option<u32>,
    /// Fixed nodes.
    pub nodes: Option<u64>,
    /// Time an engine may overrun its clock or move time without losing.
    pub timemargin: Duration,
    /// How long to wait for a move when no clock limits it (depth or nodes games), and for
    /// the handshake.
    pub stall_timeout: Duration,
    /// Draw after this many plies in a row without a mill.
    pub adjudicate_draw_plies: Option<usize>,
    /// Draw after this many plies in all.
    pub max_plies: Option<usize>,
    /// Engines think on the opponent's time (`Ponder` option, `go ponder`, `ponderhit`).
    pub ponder: bool,
    /// End a game as soon as its position is in these endgame tables, with their value.
    pub tablebase: Option<Arc<Tablebase>>,
}

impl Settings {
    /// The arguments of `go` for a move, given the clocks and the mover's own move time.
    fn go_args(&self, clocks: &[Duration; 2], own_movetime: Option<Duration>) -> String {
        let mut s = String::new();
        if let Some(tc) = self.tc {
            s += &format!(
                "wtime {} btime {} winc {} binc {} ",
                clocks[0].as_millis(),
                clocks[1].as_millis(),
                tc.inc.as_millis(),
                tc.inc.as_millis()
            );
        }
        if let Some(mt) = own_movetime.or(self.movetime) {
            s += &format!("movetime {} ", mt.as_millis());
        }
        if let Some(d) = self.depth {
            s += &format!("depth {d} ");
        }
        if let Some(n) = self.nodes {
            s += &format!("nodes {n} ");
        }
        s.trim_end().to_string()
    }

    /// The longest a move may take before it loses, and whether that is a time limit (true)
    /// or only the stall limit (false).
    fn move_limit(&self, clock: Duration, own_movetime: Option<Duration>) -> (Duration, bool) {
        match (self.tc, own_movetime.or(self.movetime)) {
            (Some(_), Some(mt)) => (clock.min(mt) + self.timemargin, true),
            (Some(_), None) => (clock + self.timemargin, true),
            (None, Some(mt)) => (mt + self.timemargin, true),
            (None, None) => (self.stall_timeout, false),
        }
    }
}

/// Who plays: an engine process (started on demand, restarted after a fault) or a built-in.
#[derive(Debug)]
pub enum Player {
    /// An engine subprocess.
    Process {
        /// How to start it.
        spec: ProcessSpec,
        /// Start a fresh process for every game.
        restart_each_game: bool,
        /// The running process, if any.
        process: Option<EngineProcess>,
        /// Whether the process offered `Ponder` and was told to use it (with `--ponder`).
        can_ponder: bool,
        /// The predicted opponent move of the ponder search in progress, if one is.
        pondering: Option<Move>,
    },
    /// A built-in player with its own seeded generator.
    Builtin {
        /// Which.
        kind: Builtin,
        /// Its random numbers, reseeded every game.
        rng: StdRng,
    },
}

/// A player's failure to make a move: the reason name and a readable detail.
struct Fault {
    reason: &'static str,
    detail: String,
    illegal_move: Option<String>,
}

struct Reply {
    mv: String,
    ponder: Option<String>,
    /// Whether a ponder search was running and its prediction was right.
    ponder_hit: Option<bool>,
    score: Option<String>,
    elapsed: Duration,
}

/// How long an engine may take to answer `stop` after its time ran out, or when a game ends
/// during its ponder search.
const STOP_GRACE: Duration = Duration::from_millis(500);

impl Player {
    /// A process player.
    pub fn process(spec: ProcessSpec, restart_each_game: bool) -> Player {
        Player::Process {
            spec,
            restart_each_game,
            process: None,
            can_ponder: false,
            pondering: None,
        }
    }

    /// A built-in player.
    pub fn builtin(kind: Builtin) -> Player {
        Player::Builtin {
            kind,
            rng: StdRng::seed_from_u64(0),
        }
    }

    /// Its own time a move, if it has one (`movetime=` of `--engine`).
    fn movetime(&self) -> Option<Duration> {
        match self {
            Player::Process { spec, .. } => spec.movetime,
            Player::Builtin { .. } => None,
        }
    }

    /// Gets ready for a game: (re)starts the process if needed and sends `ucinewgame`.
    fn new_game(&mut self, settings: &Settings, game_seed: u64) -> Result<(), Fault> {
        match self {
            Player::Builtin { rng, .. } => {
                *rng = StdRng::seed_from_u64(game_seed);
                Ok(())
            }
            Player::Process {
                spec,
                restart_each_game,
                process,
                can_ponder,
                pondering,
            } => {
                *pondering = None;
                if *restart_each_game || process.as_ref().is_some_and(|p| p.is_dead()) {
                    *process = None;
                }
                let timeout = settings.stall_timeout;
                if process.is_none() {
                    let pre = vec![
                        (
                            "UCI_Variant".to_string(),
                            settings.rules.variant.name().to_string(),
                        ),
                        ("Flying".to_string(), settings.rules.flying.to_string()),
                    ];
                    let mut p = EngineProcess::start(spec, &pre, timeout)
                        .map_err(|e| fault_of(e, "starting the engine", false))?;
                    // Ponder only with engines that offer it (as UCI has it).
                    *can_ponder = settings.ponder && p.has_option("Ponder");
                    if *can_ponder {
                        p.send("setoption name Ponder value true")
                            .and_then(|_| p.sync(timeout))
                            .map_err(|e| fault_of(e, "starting the engine", false))?;
                    }
                    *process = Some(p);
                }
                let p = process.as_mut().expect("started");
                let r = p.new_game(timeout);
                r.map_err(|e| {
                    *process = None;
                    fault_of(e, "at the start of the game", false)
                })
            }
        }
    }

    /// Asks for a move. `last` is the opponent's move just played: an engine pondering on it
    /// gets `ponderhit` (its time counts from then); one pondering on another move is stopped,
    /// its answer discarded, and asked as usual (its time counts from the stop).
    fn think(
        &mut self,
        game: &Game,
        position_cmd: &str,
        go_args: &str,
        limit: Duration,
        timed: bool,
        last: Option<Move>,
    ) -> Result<Reply, Fault> {
        match self {
            Player::Builtin { kind, rng } => {
                let t0 = Instant::now();
                let m = kind
                    .choose(game.position(), rng)
                    .expect("asked only while the game is on");
                Ok(Reply {
                    mv: m.to_string(),
                    ponder: None,
                    ponder_hit: None,
                    score: None,
                    elapsed: t0.elapsed(),
                })
            }
            Player::Process {
                process, pondering, ..
            } => {
                let p = process.as_mut().ok_or_else(|| Fault {
                    reason: reason::CRASH,
                    detail: "engine not running".into(),
                    illegal_move: None,
                })?;
                let t0 = Instant::now();
                let deadline = t0 + limit;
                let grace = STOP_GRACE;
                let hit = pondering.map(|p| Some(p) == last);
                let (reply, when) = match pondering.take() {
                    Some(predicted) if Some(predicted) == last => {
                        (p.ponderhit(deadline, grace), "after ponderhit")
                    }
                    Some(_) => {
                        let r = p
                            .stop_ponder(deadline)
                            .and_then(|_| p.go(position_cmd, go_args, deadline, grace))
                            .map(|mut r| {
                                r.elapsed = t0.elapsed();
                                r
                            });
                        (r, "after a missed ponder")
                    }
                    None => (
                        p.go(position_cmd, go_args, deadline, grace),
                        "while thinking",
                    ),
                };
                match reply {
                    Ok(r) => Ok(Reply {
                        mv: r.bestmove,
                        ponder: r.ponder,
                        ponder_hit: hit,
                        score: r.score,
                        elapsed: r.elapsed,
                    }),
                    Err(e) => {
                        if p.is_dead() || matches!(e, EngineError::Crashed(_)) {
                            *process = None;
                        }
                        Err(fault_of(e, when, timed))
                    }
                }
            }
        }
    }

    /// Starts a ponder search on `position` (which ends with the predicted move) if this
    /// player ponders. A failure to send shows at its next move, as a crash.
    fn start_ponder(&mut self, position: &str, go_args: &str, predicted: Move) {
        if let Player::Process {
            process: Some(p),
            can_ponder: true,
            pondering,
            ..
        } = self
        {
            if p.go_ponder(position, go_args).is_ok() {
                *pondering = Some(predicted);
            }
        }
    }

    /// Ends a ponder search at the end of a game: `stop`, and its answer discarded. An engine
    /// that does not answer is restarted for its next game; the game's result stands.
    fn end_ponder(&mut self) {
        if let Player::Process {
            process, pondering, ..
        } = self
        {
            if pondering.take().is_some() {
                if let Some(p) = process.as_mut() {
                    if p.stop_ponder(Instant::now() + STOP_GRACE).is_err() {
                        *process = None;
                    }
                }
            }
        }
    }
}

fn fault_of(e: EngineError, when: &str, timed: bool) -> Fault {
    match e {
        EngineError::Crashed(s) => Fault {
            reason: reason::CRASH,
            detail: format!("crashed {when}: {s}"),
            illegal_move: None,
        },
        EngineError::Timeout(s) => Fault {
            reason: if timed {
                reason::TIMEOUT
            } else {
                reason::STALL
            },
            detail: format!(
                "{} {when}: {s}",
                if timed { "lost on time" } else { "stalled" }
            ),
            illegal_move: None,
        },
    }
}

/// What one game is: its place in the schedule and its opening.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// 1-based game number.
    pub game: usize,
    /// 1-based round (the opening).
    pub round: usize,
    /// 1-based opening pair: one pairing's colour-swapped games of one round.
    pub pair: usize,
    /// Index of the opening.
    pub opening_index: usize,
    /// The start position string.
    pub fen: String,
    /// Engine index playing White.
    pub white: usize,
    /// Engine index playing Black.
    pub black: usize,
    /// The match seed.
    pub seed: u64,
}

/// Plays one game. `names` are the players' names for the record.
pub fn play_game(
    spec: &GameSpec,
    settings: &Settings,
    names: [&str; 2],
    mut players: [&mut Player; 2],
    event: &str,
) -> GameRecord {
    let record = play_moves(spec, settings, names, &mut players, event);
    // A game can end while an engine ponders (on the opponent's last move, or the
    // opponent's fault): stop it so that it is ready for the next game.
    for p in players {
        p.end_ponder();
    }
    record
}

/// Ends a game by the tables' result for `mover` (cursed wins and blessed losses are draws).
fn adjudicate_by_tables(record: &mut GameRecord, mover: Color, probe: Probe, names: [&str; 2]) {
    let winner = match probe.wdl.real() {
        Wdl::Win => Some(mover),
        Wdl::Loss => Some(mover.other()),
        _ => None,
    };
    record.reason = reason::TABLEBASE.into();
    match winner {
        Some(w) => {
            record.result = if w == Color::White { "1-0" } else { "0-1" }.into();
            record.detail = format!(
                "{} wins: the tables say so (next mill in {} plies)",
                names[w.index()],
                probe.plies_to_mill
            );
        }
        None => {
            record.result = "1/2-1/2".into();
            record.detail = "draw: the tables say so".into();
        }
    }
}

fn play_moves(
    spec: &GameSpec,
    settings: &Settings,
    names: [&str; 2],
    players: &mut [&mut Player; 2],
    event: &str,
) -> GameRecord {
    let start = Position::from_fen(&spec.fen, settings.rules).expect("openings are checked");
    let mut game = Game::new(start);
    let mut record = GameRecord {
        game: spec.game,
        round: spec.round,
        variant: settings.rules.variant.name().to_string(),
        flying: settings.rules.flying,
        white: names[0].to_string(),
        black: names[1].to_string(),
        fen: spec.fen.clone(),
        moves: Vec::new(),
        result: String::new(),
        reason: String::new(),
        detail: String::new(),
        illegal_move: None,
        seed: spec.seed,
        opening_index: spec.opening_index,
        times_ms: Vec::new(),
        scores: Vec::new(),
        event: event.to_string(),
        date: crate::record::today(),
        pair: spec.pair,
        ponder: settings.ponder.then(Default::default),
        match_info: None,
    };
    let lose = |record: &mut GameRecord, loser: Color, f: Fault, name: &str| {
        record.result = if loser == Color::White { "0-1" } else { "1-0" }.into();
        record.reason = f.reason.into();
        record.detail = format!("{name} {}", f.detail);
        record.illegal_move = f.illegal_move;
    };
    let game_seed = spec
        .seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(spec.game as u64);
    for (i, c) in Color::ALL.into_iter().enumerate() {
        if let Err(f) = players[i].new_game(settings, game_seed ^ (i as u64 + 1)) {
            lose(&mut record, c, f, names[i]);
            return record;
        }
    }
    let mut clocks = [settings.tc.map_or(Duration::ZERO, |t| t.base); 2];
    let position_prefix = if spec.fen == Position::new(settings.rules).to_fen() {
        "position startpos".to_string()
    } else {
        format!("position fen {}", spec.fen)
    };
    let mut since_mill = 0usize;
    loop {
        if let Some(o) = game.outcome() {
            record.result = o.result_str().into();
            record.reason = o.reason().name().into();
            record.detail = match o.winner() {
                Some(w) => format!("{} wins: {}", names[w.index()], o.reason()),
                None => format!("draw: {}", o.reason()),
            };
            return record;
        }
        if let Some(probe) = settings
            .tablebase
            .as_ref()
            .and_then(|t| t.probe(game.position()))
        {
            adjudicate_by_tables(&mut record, game.position().side_to_move(), probe, names);
            return record;
        }
        if settings.max_plies.is_some_and(|n| game.moves().len() >= n) {
            record.result = "1/2-1/2".into();
            record.reason = reason::MAX_PLIES.into();
            record.detail = format!("draw: adjudicated after {} plies", game.moves().len());
            return record;
        }
        if settings
            .adjudicate_draw_plies
            .is_some_and(|n| since_mill >= n)
        {
            record.result = "1/2-1/2".into();
            record.reason = reason::ADJUDICATION.into();
            record.detail = format!("draw: adjudicated after {since_mill} plies without a mill");
            return record;
        }
        let us = game.position().side_to_move();
        let i = us.index();
        let position_cmd = if record.moves.is_empty() {
            position_prefix.clone()
        } else {
            format!("{position_prefix} moves {}", record.moves.join(" "))
        };
        let own_movetime = players[i].movetime();
        let go_args = settings.go_args(&clocks, own_movetime);
        let (limit, timed) = settings.move_limit(clocks[i], own_movetime);
        let last = game.moves().last().copied();
        let reply = match players[i].think(&game, &position_cmd, &go_args, limit, timed, last) {
            Ok(r) => r,
            Err(f) => {
                lose(&mut record, us, f, names[i]);
                return record;
            }
        };
        if let (Some(hit), Some(counts)) = (reply.ponder_hit, record.ponder.as_mut()) {
            counts.searches[i] += 1;
            counts.hits[i] += u32::from(hit);
        }
        if timed && reply.elapsed > limit {
            let f = Fault {
                reason: reason::TIMEOUT,
                detail: format!(
                    "lost on time: {} ms used, {} ms allowed",
                    reply.elapsed.as_millis(),
                    limit.as_millis()
                ),
                illegal_move: None,
            };
            lose(&mut record, us, f, names[i]);
            return record;
        }
        if let Some(tc) = settings.tc {
            clocks[i] = clocks[i].saturating_sub(reply.elapsed) + tc.inc;
        }
        let parsed: Result<Move, String> = reply.mv.parse().map_err(|e| format!("{e}"));
        let played = parsed.and_then(|m| {
            let mill = game.position().closes_mill(m);
            game.play(m).map(|_| mill).map_err(|e| format!("{e}"))
        });
        match played {
            Ok(mill) => {
                since_mill = if mill { 0 } else { since_mill + 1 };
                record.moves.push(reply.mv.to_ascii_lowercase());
                record.times_ms.push(reply.elapsed.as_millis() as u64);
                record.scores.push(reply.score);
                // Ponder on the predicted reply, if it is legal and leaves a game to play.
                if let Some(y) = reply.ponder.as_deref().filter(|_| settings.ponder) {
                    let mut next = game.clone();
                    let playable = game.outcome().is_none()
                        && y.parse::<Move>()
                            .is_ok_and(|m| next.play(m).is_ok() && next.outcome().is_none());
                    if playable {
                        let predicted = *next.moves().last().expect("just played");
                        let position = format!(
                            "{position_prefix} moves {} {}",
                            record.moves.join(" "),
                            y.to_ascii_lowercase()
                        );
                        let args = settings.go_args(&clocks, own_movetime);
                        players[i].start_ponder(&position, &args, predicted);
                    }
                }
            }
            Err(e) => {
                let f = Fault {
                    reason: reason::ILLEGAL,
                    detail: format!("played an illegal move '{}': {e}", reply.mv),
                    illegal_move: Some(reply.mv.clone()),
                };
                lose(&mut record, us, f, names[i]);
                return record;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls() {
        let tc: TimeControl = "10+0.1".parse().unwrap();
        assert_eq!(tc.base, Duration::from_secs(10));
        assert_eq!(tc.inc, Duration::from_millis(100));
        assert_eq!("5".parse::<TimeControl>().unwrap().inc, Duration::ZERO);
        assert!("x+1".parse::<TimeControl>().is_err());
        assert!("0+0".parse::<TimeControl>().is_err());
    }

    #[test]
    fn builtins_play_whole_games() {
        let settings = Settings {
            rules: Rules::default(),
            tc: None,
            movetime: None,
            depth: Some(1),
            nodes: None,
            timemargin: Duration::ZERO,
            stall_timeout: Duration::from_secs(1),
            adjudicate_draw_plies: None,
            max_plies: None,
            ponder: false,
            tablebase: None,
        };
        for g in 1..=10 {
            let spec = GameSpec {
                game: g,
                round: 1,
                pair: 1,
                opening_index: 0,
                fen: Position::new(settings.rules).to_fen(),
                white: 0,
                black: 1,
                seed: 3,
            };
            let mut a = Player::builtin(Builtin::Random);
            let mut b = Player::builtin(Builtin::Greedy);
            let r = play_game(&spec, &settings, ["r", "g"], [&mut a, &mut b], "t");
            crate::record::verify(&r).unwrap();
        }
    }
}
