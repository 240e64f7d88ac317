//! A match or tournament: the schedule of colour-swapped game pairs, worker threads that play
//! them, statistics with Elo, LOS, pentanomial pairs and SPRT, progress and records.

use crate::builtin::Builtin;
use crate::input::random_opening;
use crate::protocol::ProcessSpec;
use crate::record::GameRecord;
use crate::referee::{play_game, GameSpec, Player, Settings};
use crate::stats::{self, GameResult, Pentanomial, Sprt, SprtDecision, Wdl};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};

/// What plays: a process or a built-in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// A protocol engine as a subprocess.
    Process(ProcessSpec),
    /// A built-in player.
    Builtin(Builtin),
}

/// One participant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineEntry {
    /// Its name in the records and tables.
    pub name: String,
    /// What it is.
    pub kind: EngineKind,
}

impl EngineEntry {
    /// Parses the `key=value` tokens of one `--engine`: `name=`, `cmd=`, `arg=` (repeatable),
    /// `dir=`, `option.<Name>=<value>` (repeatable), or `builtin=random|greedy`.
    pub fn parse(tokens: &[String]) -> Result<EngineEntry, String> {
        let mut name = None;
        let mut cmd = None;
        let mut builtin = None;
        let mut spec = ProcessSpec::default();
        for t in tokens {
            let (k, v) = t
                .split_once('=')
                .ok_or_else(|| format!("engine setting '{t}' is not key=value"))?;
            match k {
                "name" => name = Some(v.to_string()),
                "cmd" => cmd = Some(PathBuf::from(v)),
                "arg" => spec.args.push(v.to_string()),
                "dir" => spec.dir = Some(PathBuf::from(v)),
                "builtin" => builtin = Some(v.parse::<Builtin>()?),
                _ => match k.strip_prefix("option.") {
                    Some(o) if !o.is_empty() => spec.options.push((o.to_string(), v.to_string())),
                    _ => {
                        return Err(format!(
                            "unknown engine setting '{k}' (name, cmd, arg, dir, option.<Name>, builtin)"
                        ))
                    }
                },
            }
        }
        match (cmd, builtin) {
            (Some(_), Some(_)) => Err("an engine has either cmd= or builtin=, not both".into()),
            (None, None) => Err("an engine needs cmd=<path> or builtin=random|greedy".into()),
            (None, Some(b)) => Ok(EngineEntry {
                name: name.unwrap_or_else(|| b.name().to_string()),
                kind: EngineKind::Builtin(b),
            }),
            (Some(c), None) => {
                spec.cmd = c;
                let default = spec
                    .cmd
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "engine".into());
                Ok(EngineEntry {
                    name: name.unwrap_or(default),
                    kind: EngineKind::Process(spec),
                })
            }
        }
    }
}

/// Where openings come from.
#[derive(Clone, Debug)]
pub enum Openings {
    /// Every game from the start position.
    Start,
    /// From a book, in order or shuffled with the seed.
    Book {
        /// Position strings.
        fens: Vec<String>,
        /// Shuffle with the seed.
        random_order: bool,
    },
    /// This many random plies from the start, seeded per round.
    Random(usize),
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The participants (two or more; names are unique).
    pub engines: Vec<EngineEntry>,
    /// The first plays all others (instead of a round robin).
    pub gauntlet: bool,
    /// Games per pairing (played as colour-swapped pairs).
    pub games: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// Openings.
    pub openings: Openings,
    /// The match seed.
    pub seed: u64,
    /// How games are played.
    pub settings: Settings,
    /// Stop when decided (two engines only).
    pub sprt: Option<Sprt>,
    /// Games before an SPRT decision may stop the match (the LLR's normal approximation is
    /// poor on a handful of games).
    pub sprt_min_games: usize,
    /// Start fresh engine processes for every game.
    pub restart_each_game: bool,
    /// PGN output.
    pub pgn: Option<PathBuf>,
    /// JSONL output.
    pub jsonl: Option<PathBuf>,
    /// Event name.
    pub event: String,
    /// Progress lines on stderr.
    pub progress: bool,
}

/// Results of one pairing from its first engine's view.
#[derive(Clone, Debug, Default)]
pub struct PairingStats {
    /// Games.
    pub wdl: Wdl,
    /// Colour-swapped pairs.
    pub penta: Pentanomial,
}

/// The end of a match.
#[derive(Clone, Debug)]
pub struct MatchResult {
    /// Every game, in schedule order.
    pub records: Vec<GameRecord>,
    /// Per engine against the field.
    pub per_engine: Vec<Wdl>,
    /// Per pairing `(i, j)` with `i < j`, from `i`'s view.
    pub pairings: BTreeMap<(usize, usize), PairingStats>,
    /// The SPRT verdict, if one was run.
    pub sprt: Option<(f64, SprtDecision)>,
    /// Games scheduled.
    pub scheduled: usize,
    /// Count of each end reason.
    pub reasons: BTreeMap<String, usize>,
}

/// Checks a configuration for what clap cannot.
pub fn validate(config: &Config) -> Result<(), String> {
    if config.engines.len() < 2 {
        return Err("a match needs two or more engines (--engine ... twice)".into());
    }
    let mut seen = HashMap::new();
    for e in &config.engines {
        if seen.insert(e.name.as_str(), ()).is_some() {
            return Err(format!("two engines are named '{}': give name=...", e.name));
        }
    }
    if config.sprt.is_some() && config.engines.len() != 2 {
        return Err("--sprt needs exactly two engines".into());
    }
    if config.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let s = &config.settings;
    if s.tc.is_none() && s.movetime.is_none() && s.depth.is_none() && s.nodes.is_none() {
        return Err("give a time control: --tc, --movetime, --depth or --nodes".into());
    }
    Ok(())
}

/// The pairings `(first, second)` in play order.
pub fn pairings(n: usize, gauntlet: bool) -> Vec<(usize, usize)> {
    if gauntlet {
        (1..n).map(|j| (0, j)).collect()
    } else {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    }
}

/// The games of a match in order: per round, per pairing, the pair (first engine White, then
/// Black) from the round's opening. Reproducible for a seed.
pub fn schedule(config: &Config) -> Vec<GameSpec> {
    let rules = config.settings.rules;
    let rounds = config.games.div_ceil(2);
    let order: Vec<usize> = match &config.openings {
        Openings::Book { fens, random_order } => {
            let mut idx: Vec<usize> = (0..fens.len()).collect();
            if *random_order {
                idx.shuffle(&mut StdRng::seed_from_u64(config.seed));
            }
            idx
        }
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    for r in 0..rounds {
        let (opening_index, fen) = match &config.openings {
            Openings::Start => (0, millstone::Position::new(rules).to_fen()),
            Openings::Book { fens, .. } => {
                let i = order[r % order.len()];
                (i, fens[i].clone())
            }
            Openings::Random(k) => {
                let mut rng = StdRng::seed_from_u64(
                    config.seed ^ (r as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93),
                );
                (r, random_opening(rules, *k, &mut rng).to_fen())
            }
        };
        for (a, b) in pairings(config.engines.len(), config.gauntlet) {
            for (k, (w, bl)) in [(a, b), (b, a)].into_iter().enumerate() {
                if 2 * r + k >= config.games {
                    continue;
                }
                out.push(GameSpec {
                    game: out.len() + 1,
                    round: r + 1,
                    opening_index,
                    fen: fen.clone(),
                    white: w,
                    black: bl,
                    seed: config.seed,
                });
            }
        }
    }
    out
}

fn player_for(e: &EngineEntry, restart: bool) -> Player {
    match &e.kind {
        EngineKind::Process(spec) => Player::process(spec.clone(), restart),
        EngineKind::Builtin(b) => Player::builtin(*b),
    }
}

/// The result for White: Win, Draw or Loss.
pub fn white_result(rec: &GameRecord) -> GameResult {
    match rec.result.as_str() {
        "1-0" => GameResult::Win,
        "0-1" => GameResult::Loss,
        _ => GameResult::Draw,
    }
}

/// Runs the match: plays the schedule on `concurrency` threads, writes records in schedule
/// order as they become available, prints progress, and stops early on an SPRT decision.
pub fn run(config: &Config) -> Result<MatchResult, String> {
    validate(config)?;
    let games = schedule(config);
    let open = |p: &Option<PathBuf>| -> Result<Option<std::io::BufWriter<std::fs::File>>, String> {
        p.as_ref()
            .map(|p| {
                std::fs::File::create(p)
                    .map(std::io::BufWriter::new)
                    .map_err(|e| format!("cannot create {}: {e}", p.display()))
            })
            .transpose()
    };
    let mut pgn = open(&config.pgn)?;
    let mut jsonl = open(&config.jsonl)?;
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    // Games handed out and games whose results the main thread has taken in: workers start a
    // game only while fewer than `workers` are unaccounted for, so that a stop (SPRT) takes
    // effect at once even when games take microseconds.
    let sched = Mutex::new((0usize, 0usize));
    let wake = Condvar::new();
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<GameRecord>();
    let games_ref = &games;
    let mut result = MatchResult {
        records: Vec::new(),
        per_engine: vec![Wdl::default(); names.len()],
        pairings: BTreeMap::new(),
        sprt: None,
        scheduled: games.len(),
        reasons: BTreeMap::new(),
    };
    let index_of: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let workers = config.concurrency.clamp(1, games.len().max(1));
    let stop = Arc::new(stop);
    std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..workers {
            let tx = tx.clone();
            let (sched, wake) = (&sched, &wake);
            let stop = stop.clone();
            let names = &names;
            scope.spawn(move || {
                let mut players: Vec<Player> = config
                    .engines
                    .iter()
                    .map(|e| player_for(e, config.restart_each_game))
                    .collect();
                loop {
                    let i = {
                        let mut s = sched.lock().expect("lock");
                        while !stop.load(Ordering::Relaxed) && s.0 - s.1 >= workers {
                            s = wake.wait(s).expect("lock");
                        }
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        s.0 += 1;
                        s.0 - 1
                    };
                    let Some(spec) = games_ref.get(i) else {
                        return;
                    };
                    let (w, b) = (spec.white, spec.black);
                    // Two distinct players out of the vector.
                    let (pw, pb) = if w < b {
                        let (lo, hi) = players.split_at_mut(b);
                        (&mut lo[w], &mut hi[0])
                    } else {
                        let (lo, hi) = players.split_at_mut(w);
                        (&mut hi[0], &mut lo[b])
                    };
                    let rec = play_game(
                        spec,
                        &config.settings,
                        [&names[w], &names[b]],
                        [pw, pb],
                        &config.event,
                    );
                    if tx.send(rec).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut pending: BTreeMap<usize, GameRecord> = BTreeMap::new();
        let mut next_to_write = 1usize;
        let mut pair_half: HashMap<(usize, usize, usize), GameResult> = HashMap::new();
        let mut done = 0usize;
        let mut write_error = None;
        for rec in rx {
            done += 1;
            let w = index_of[rec.white.as_str()];
            let b = index_of[rec.black.as_str()];
            let wr = white_result(&rec);
            result.per_engine[w].add(wr);
            result.per_engine[b].add(wr.opposite());
            *result.reasons.entry(rec.reason.clone()).or_default() += 1;
            let (first, second) = (w.min(b), w.max(b));
            let first_result = if w == first { wr } else { wr.opposite() };
            let ps = result.pairings.entry((first, second)).or_default();
            ps.wdl.add(first_result);
            match pair_half.remove(&(first, second, rec.round)) {
                Some(other) => ps.penta.add_pair(other, first_result),
                None => {
                    pair_half.insert((first, second, rec.round), first_result);
                }
            }
            if let (Some(sprt), Some(ps)) = (&config.sprt, result.pairings.get(&(0, 1))) {
                if ps.penta.pairs() > 0 && ps.wdl.games() as usize >= config.sprt_min_games {
                    let llr = sprt.llr_pentanomial(&ps.penta);
                    let d = sprt.decision(llr);
                    result.sprt = Some((llr, d));
                    if d != SprtDecision::Continue
                        && !stop.swap(true, Ordering::Relaxed)
                        && config.progress
                    {
                        eprintln!(
                            "SPRT decided after {done} games: {} (LLR {llr:.2}); finishing the games in progress",
                            decision_text(d)
                        );
                    }
                }
            }
            if config.progress {
                eprintln!(
                    "{}",
                    progress_line(config, &result, &rec, done, games.len())
                );
            }
            sched.lock().expect("lock").1 += 1;
            wake.notify_all();
            pending.insert(rec.game, rec);
            // Write in schedule order; games skipped after a stop leave gaps, which the
            // final flush below closes.
            while let Some(r) = pending.remove(&next_to_write) {
                if let Err(e) = write_record(&r, &mut pgn, &mut jsonl) {
                    // Stop the match, but let the workers see it and end.
                    write_error.get_or_insert(e);
                    stop.store(true, Ordering::Relaxed);
                    wake.notify_all();
                }
                result.records.push(r);
                next_to_write += 1;
            }
        }
        if let Some(e) = write_error {
            return Err(e);
        }
        for (_, r) in std::mem::take(&mut pending) {
            write_record(&r, &mut pgn, &mut jsonl)?;
            result.records.push(r);
        }
        Ok(())
    })?;
    for f in [&mut pgn, &mut jsonl].into_iter().flatten() {
        f.flush().map_err(|e| format!("writing records: {e}"))?;
    }
    Ok(result)
}

fn write_record(
    r: &GameRecord,
    pgn: &mut Option<std::io::BufWriter<std::fs::File>>,
    jsonl: &mut Option<std::io::BufWriter<std::fs::File>>,
) -> Result<(), String> {
    let err = |e: std::io::Error| format!("writing records: {e}");
    if let Some(f) = pgn {
        f.write_all(r.to_pgn().as_bytes()).map_err(err)?;
    }
    if let Some(f) = jsonl {
        let line = serde_json::to_string(r).map_err(|e| e.to_string())?;
        writeln!(f, "{line}").map_err(err)?;
        f.flush().map_err(err)?;
    }
    Ok(())
}

fn decision_text(d: SprtDecision) -> &'static str {
    match d {
        SprtDecision::AcceptH0 => "H0 accepted",
        SprtDecision::AcceptH1 => "H1 accepted",
        SprtDecision::Continue => "undecided",
    }
}

fn elo_short(wdl: &Wdl) -> String {
    match wdl.elo() {
        Some(e) => format!(
            "Elo {} +/- {}",
            stats::format_elo(e.elo),
            stats::format_elo(e.error_margin())
        ),
        None => "Elo n/a".into(),
    }
}

fn progress_line(
    config: &Config,
    result: &MatchResult,
    rec: &GameRecord,
    done: usize,
    total: usize,
) -> String {
    let mut s = format!(
        "[{done}/{total}] game {}: {} - {} {} ({}, {} plies)",
        rec.game,
        rec.white,
        rec.black,
        rec.result,
        rec.reason,
        rec.moves.len()
    );
    if config.engines.len() == 2 {
        if let Some(ps) = result.pairings.get(&(0, 1)) {
            let w = &ps.wdl;
            let _ = write!(
                s,
                " | {} vs {}: +{} ={} -{} score {:.3} {}",
                config.engines[0].name,
                config.engines[1].name,
                w.wins,
                w.draws,
                w.losses,
                w.score().unwrap_or(0.5),
                elo_short(w)
            );
            if let Some((llr, _)) = result.sprt {
                let _ = write!(s, " LLR {llr:.2}");
            }
        }
    }
    s
}

/// The final report: for two engines the summary line of `stats`, for more a table per
/// engine and a line per pairing; then the end reasons.
pub fn summary(config: &Config, result: &MatchResult) -> String {
    let mut s = String::new();
    let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
    let _ = writeln!(
        s,
        "Finished {} of {} games, {} {}, seed {}",
        result.records.len(),
        result.scheduled,
        config.settings.rules.variant,
        if config.settings.rules.flying {
            "(flying)"
        } else {
            "(no flying)"
        },
        config.seed
    );
    if names.len() > 2 {
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|&a, &b| {
            let sa = result.per_engine[a].score().unwrap_or(0.0);
            let sb = result.per_engine[b].score().unwrap_or(0.0);
            sb.partial_cmp(&sa).unwrap_or(std::cmp::Ordering::Equal)
        });
        let width = names.iter().map(|n| n.len()).max().unwrap_or(4).max(6);
        let _ = writeln!(
            s,
            "{:>4}  {:<width$}  {:>5}  {:>5}  {:>5}  {:>5}  {:>6}  {:>6}  Elo vs field (95%)",
            "rank", "engine", "games", "wins", "draws", "losses", "points", "score"
        );
        for (rank, &i) in order.iter().enumerate() {
            let w = &result.per_engine[i];
            let _ = writeln!(
                s,
                "{:>4}  {:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>6.1}  {:>6.3}  {}",
                rank + 1,
                names[i],
                w.games(),
                w.wins,
                w.draws,
                w.losses,
                w.points(),
                w.score().unwrap_or(0.0),
                w.elo().map_or_else(|| "n/a".into(), |e| e.to_string())
            );
        }
    }
    for (&(a, b), ps) in &result.pairings {
        let sprt = if names.len() == 2 {
            config.sprt.as_ref()
        } else {
            None
        };
        let _ = writeln!(
            s,
            "{} vs {}: {}",
            names[a],
            names[b],
            stats::summary_line(&ps.wdl, Some(&ps.penta), sprt)
        );
    }
    if let Some((llr, d)) = result.sprt {
        let sprt = config.sprt.as_ref().expect("sprt was configured");
        let _ = writeln!(s, "SPRT ({sprt}): {} (LLR {llr:.2})", decision_text(d));
    }
    let reasons: Vec<String> = result
        .reasons
        .iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect();
    let _ = writeln!(s, "Endings: {}", reasons.join(", "));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use millstone::Rules;
    use std::time::Duration;

    fn config(n: usize, games: usize, gauntlet: bool) -> Config {
        Config {
            engines: (0..n)
                .map(|i| EngineEntry {
                    name: format!("e{i}"),
                    kind: EngineKind::Builtin(if i % 2 == 0 {
                        Builtin::Random
                    } else {
                        Builtin::Greedy
                    }),
                })
                .collect(),
            gauntlet,
            games,
            concurrency: 2,
            openings: Openings::Random(4),
            seed: 11,
            settings: Settings {
                rules: Rules::default(),
                tc: None,
                movetime: None,
                depth: Some(1),
                nodes: None,
                timemargin: Duration::ZERO,
                stall_timeout: Duration::from_secs(5),
                adjudicate_draw_plies: None,
                max_plies: None,
            },
            sprt: None,
            sprt_min_games: 0,
            restart_each_game: false,
            pgn: None,
            jsonl: None,
            event: "test".into(),
            progress: false,
        }
    }

    #[test]
    fn engine_tokens() {
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let e = EngineEntry::parse(&t(&["cmd=/bin/eng", "arg=-x", "option.Threads=2"])).unwrap();
        assert_eq!(e.name, "eng");
        match e.kind {
            EngineKind::Process(p) => {
                assert_eq!(p.args, vec!["-x"]);
                assert_eq!(p.options, vec![("Threads".into(), "2".into())]);
            }
            _ => panic!(),
        }
        assert_eq!(
            EngineEntry::parse(&t(&["builtin=greedy"])).unwrap().name,
            "greedy"
        );
        assert!(EngineEntry::parse(&t(&["builtin=foo"])).is_err());
        assert!(EngineEntry::parse(&t(&["name=x"])).is_err());
        assert!(EngineEntry::parse(&t(&["bogus=1", "cmd=x"])).is_err());
    }

    #[test]
    fn schedules() {
        let c = config(3, 3, false);
        let s = schedule(&c);
        // 3 pairings x 3 games.
        assert_eq!(s.len(), 9);
        assert_eq!((s[0].white, s[0].black), (0, 1));
        assert_eq!((s[1].white, s[1].black), (1, 0));
        assert_eq!(s[0].fen, s[1].fen);
        assert_eq!(s.iter().filter(|g| g.round == 2).count(), 3);
        let g = schedule(&config(4, 2, true));
        assert_eq!(g.len(), 6);
        assert!(g.iter().all(|x| x.white == 0 || x.black == 0));
        // Same seed, same openings.
        let again = schedule(&c);
        assert!(s.iter().zip(&again).all(|(a, b)| a.fen == b.fen));
    }

    #[test]
    fn round_robin_of_builtins() {
        let c = config(3, 4, false);
        let r = run(&c).unwrap();
        assert_eq!(r.records.len(), 12);
        assert!(r.records.windows(2).all(|w| w[0].game < w[1].game));
        for rec in &r.records {
            crate::record::verify(rec).unwrap();
        }
        let text = summary(&c, &r);
        assert!(text.contains("rank"), "{text}");
        assert_eq!(r.per_engine.iter().map(|w| w.games()).sum::<u64>(), 24);
    }
}
