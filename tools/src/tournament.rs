//! A match or tournament: the schedule of colour-swapped game pairs, worker threads that play
//! them, statistics with Elo, LOS, pentanomial pairs and SPRT, progress and records.

use crate::builtin::Builtin;
use crate::input::random_opening;
use crate::protocol::ProcessSpec;
use crate::record::{GameRecord, MatchInfo};
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
use std::time::Duration;

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
    /// `dir=`, `option.<Name>=<value>` (repeatable), `movetime=<ms>` (its own time a move), or
    /// `builtin=random|greedy`.
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
                "movetime" => {
                    let ms = v.parse::<u64>().ok().filter(|&ms| ms > 0).ok_or_else(|| {
                        format!("engine movetime '{v}' is not a positive number of milliseconds")
                    })?;
                    spec.movetime = Some(Duration::from_millis(ms));
                }
                "builtin" => builtin = Some(v.parse::<Builtin>()?),
                _ => match k.strip_prefix("option.") {
                    Some(o) if !o.is_empty() => spec.options.push((o.to_string(), v.to_string())),
                    _ => {
                        return Err(format!(
                            "unknown engine setting '{k}' (name, cmd, arg, dir, option.<Name>, movetime, builtin)"
                        ))
                    }
                },
            }
        }
        match (cmd, builtin) {
            (Some(_), Some(_)) => Err("an engine has either cmd= or builtin=, not both".into()),
            (None, Some(_)) if spec.movetime.is_some() => {
                Err("movetime= is for engines (cmd=); a built-in does not search".into())
            }
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
    /// Play only shard `k` of `n` (1-based): the opening pairs whose 0-based index is
    /// `k - 1` modulo `n`, with the games' numbers, openings and seeds of the whole match.
    pub shard: Option<(usize, usize)>,
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
    /// Per engine with `--ponder`: (ponder searches that ended in its moves, of them hits).
    pub ponder: Vec<(u64, u64)>,
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
    let own: Vec<bool> = config
        .engines
        .iter()
        .filter_map(|e| match &e.kind {
            EngineKind::Process(spec) => Some(spec.movetime.is_some()),
            EngineKind::Builtin(_) => None,
        })
        .collect();
    let each_has_its_own = !own.is_empty() && own.iter().all(|&o| o);
    if s.tc.is_none()
        && s.movetime.is_none()
        && s.depth.is_none()
        && s.nodes.is_none()
        && !each_has_its_own
    {
        return Err(
            "give a time control: --tc, --movetime, --depth, --nodes, or movetime= for each engine"
                .into(),
        );
    }
    if let Some((k, n)) = config.shard {
        if n == 0 || k == 0 || k > n {
            return Err(format!("bad shard {k}/{n}: give K/N with 1 <= K <= N"));
        }
    }
    Ok(())
}

/// Parses `K/N` (1-based shard K of N).
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("bad shard '{s}': expected K/N with 1 <= K <= N, e.g. 1/4");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The shard (1-based) that plays the 1-based opening pair `pair` when a match is split over
/// `n` runs: pairs are dealt out in turn, so shards differ by at most one pair.
pub fn shard_of(pair: usize, n: usize) -> usize {
    (pair.max(1) - 1) % n.max(1) + 1
}

/// The parameters that identify a match, as written with each of its records.
pub fn match_info(config: &Config) -> MatchInfo {
    let s = &config.settings;
    let mut limits = Vec::new();
    if let Some(tc) = s.tc {
        limits.push(format!(
            "tc {}+{}",
            tc.base.as_secs_f64(),
            tc.inc.as_secs_f64()
        ));
    }
    if let Some(mt) = s.movetime {
        limits.push(format!("movetime {}", mt.as_millis()));
    }
    if let Some(d) = s.depth {
        limits.push(format!("depth {d}"));
    }
    if let Some(n) = s.nodes {
        limits.push(format!("nodes {n}"));
    }
    let own: Vec<(String, Duration)> = config
        .engines
        .iter()
        .filter_map(|e| match &e.kind {
            EngineKind::Process(spec) => spec.movetime.map(|mt| (e.name.clone(), mt)),
            EngineKind::Builtin(_) => None,
        })
        .collect();
    for (name, mt) in &own {
        limits.push(format!("{name} movetime {}", mt.as_millis()));
    }
    if s.tc.is_some() || s.movetime.is_some() || !own.is_empty() {
        limits.push(format!("margin {}", s.timemargin.as_millis()));
    }
    if s.ponder {
        limits.push("ponder".into());
    }
    if let Some(n) = s.adjudicate_draw_plies {
        limits.push(format!("adjudicate {n}"));
    }
    if let Some(n) = s.max_plies {
        limits.push(format!("maxplies {n}"));
    }
    if let Some(tb) = &s.tablebase {
        limits.push(format!("tables {}", tb.dir().display()));
    }
    let openings = match &config.openings {
        Openings::Start => "start".to_string(),
        Openings::Book { fens, random_order } => format!(
            "book {} {}",
            fens.len(),
            if *random_order {
                "random"
            } else {
                "sequential"
            }
        ),
        Openings::Random(k) => format!("random {k}"),
    };
    let (shard, shards) = config.shard.unwrap_or((1, 1));
    MatchInfo {
        engines: config.engines.iter().map(|e| e.name.clone()).collect(),
        gauntlet: config.gauntlet,
        games: config.games,
        scheduled: schedule(config).len(),
        limits: limits.join(" "),
        openings,
        sprt: config.sprt.map(|s| s.to_string()),
        sprt_min_games: config.sprt_min_games,
        shard,
        shards,
    }
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

/// The games of a whole match in order: per round, per pairing, the pair (first engine White,
/// then Black) from the round's opening. Reproducible for a seed. (A shard plays the games of
/// this schedule whose pair [`shard_of`] gives it.)
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
        let pairs = pairings(config.engines.len(), config.gauntlet);
        for (p, &(a, b)) in pairs.iter().enumerate() {
            let pair = r * pairs.len() + p + 1;
            for (k, (w, bl)) in [(a, b), (b, a)].into_iter().enumerate() {
                if 2 * r + k >= config.games {
                    continue;
                }
                out.push(GameSpec {
                    game: out.len() + 1,
                    round: r + 1,
                    pair,
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

/// Running totals of a match, game by game: what [`run`] accumulates as games finish and
/// [`merge`] rebuilds from the records of shards.
struct Tally {
    result: MatchResult,
    index_of: HashMap<String, usize>,
    pair_half: HashMap<(usize, usize, usize), GameResult>,
}

impl Tally {
    fn new(names: &[String], scheduled: usize) -> Tally {
        Tally {
            result: MatchResult {
                records: Vec::new(),
                per_engine: vec![Wdl::default(); names.len()],
                pairings: BTreeMap::new(),
                sprt: None,
                scheduled,
                reasons: BTreeMap::new(),
                ponder: vec![(0, 0); names.len()],
            },
            index_of: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i))
                .collect(),
            pair_half: HashMap::new(),
        }
    }

    /// Counts one game (not yet stored in `records`).
    fn add(&mut self, rec: &GameRecord) -> Result<(), String> {
        let find = |n: &str| {
            self.index_of.get(n).copied().ok_or_else(|| {
                format!("game {}: '{n}' is not one of the match's engines", rec.game)
            })
        };
        let (w, b) = (find(&rec.white)?, find(&rec.black)?);
        if w == b {
            return Err(format!("game {}: '{}' plays itself", rec.game, rec.white));
        }
        let result = &mut self.result;
        let wr = white_result(rec);
        result.per_engine[w].add(wr);
        result.per_engine[b].add(wr.opposite());
        *result.reasons.entry(rec.reason.clone()).or_default() += 1;
        if let Some(p) = &rec.ponder {
            for (c, e) in [w, b].into_iter().enumerate() {
                result.ponder[e].0 += u64::from(p.searches[c]);
                result.ponder[e].1 += u64::from(p.hits[c]);
            }
        }
        let (first, second) = (w.min(b), w.max(b));
        let first_result = if w == first { wr } else { wr.opposite() };
        let ps = result.pairings.entry((first, second)).or_default();
        ps.wdl.add(first_result);
        match self.pair_half.remove(&(first, second, rec.round)) {
            Some(other) => ps.penta.add_pair(other, first_result),
            None => {
                self.pair_half
                    .insert((first, second, rec.round), first_result);
            }
        }
        Ok(())
    }

    /// Updates the SPRT state of a two-engine match once enough games are in; returns the
    /// decision when there is one.
    fn update_sprt(&mut self, sprt: Option<&Sprt>, min_games: usize) -> Option<SprtDecision> {
        let sprt = sprt?;
        let ps = self.result.pairings.get(&(0, 1))?;
        if ps.penta.pairs() > 0 && ps.wdl.games() as usize >= min_games {
            let llr = sprt.llr_pentanomial(&ps.penta);
            let d = sprt.decision(llr);
            self.result.sprt = Some((llr, d));
            return Some(d);
        }
        None
    }
}

/// The games a run plays: the whole schedule, or the games of its shard.
pub fn games_to_play(config: &Config) -> Vec<GameSpec> {
    let all = schedule(config);
    match config.shard {
        Some((k, n)) => all
            .into_iter()
            .filter(|g| shard_of(g.pair, n) == k)
            .collect(),
        None => all,
    }
}

/// Runs the match (or its shard): plays the games on `concurrency` threads, writes records in
/// schedule order as they become available, prints progress, and stops early on an SPRT
/// decision (not in a shard, whose SPRT state is only its part: merge the shards for the
/// match's).
pub fn run(config: &Config) -> Result<MatchResult, String> {
    validate(config)?;
    let games = games_to_play(config);
    let info = match_info(config);
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
    let (tx, rx) = mpsc::channel::<(usize, GameRecord)>();
    let games_ref = &games;
    let mut tally = Tally::new(&names, games.len());
    let workers = config.concurrency.clamp(1, games.len().max(1));
    let stop = Arc::new(stop);
    // A bar (games, score so far, Elo, time left) when stderr is a terminal; the per-game
    // lines either way, above it.
    let bar = if config.progress {
        crate::progress::Progress::new("games", games.len() as u64, "games")
    } else {
        crate::progress::Progress::hidden()
    };
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
                    if tx.send((i, rec)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut pending: BTreeMap<usize, GameRecord> = BTreeMap::new();
        let mut next_to_write = 0usize;
        let mut done = 0usize;
        let mut write_error = None;
        let may_stop = config.shard.is_none();
        for (i, mut rec) in rx {
            done += 1;
            rec.match_info = Some(info.clone());
            tally.add(&rec).expect("the schedule's engines");
            let decided = tally.update_sprt(config.sprt.as_ref(), config.sprt_min_games);
            if let (Some(d), Some((llr, _))) = (decided, tally.result.sprt) {
                if may_stop
                    && d != SprtDecision::Continue
                    && !stop.swap(true, Ordering::Relaxed)
                    && config.progress
                {
                    crate::progress::line(&format!(
                        "SPRT decided after {done} games: {} (LLR {llr:.2}); finishing the games in progress",
                        decision_text(d)
                    ));
                }
            }
            if config.progress {
                let line = progress_line(config, &tally.result, &rec, done, games.len());
                if let Some((_, score)) = line.split_once(" | ") {
                    bar.note(score.to_string());
                }
                bar.inc(1);
                crate::progress::line(&line);
            }
            sched.lock().expect("lock").1 += 1;
            wake.notify_all();
            pending.insert(i, rec);
            // Write in schedule order; games skipped after a stop leave gaps, which the
            // final flush below closes.
            while let Some(r) = pending.remove(&next_to_write) {
                if let Err(e) = write_record(&r, &mut pgn, &mut jsonl) {
                    // Stop the match, but let the workers see it and end.
                    write_error.get_or_insert(e);
                    stop.store(true, Ordering::Relaxed);
                    wake.notify_all();
                }
                tally.result.records.push(r);
                next_to_write += 1;
            }
        }
        if let Some(e) = write_error {
            return Err(e);
        }
        for (_, r) in std::mem::take(&mut pending) {
            write_record(&r, &mut pgn, &mut jsonl)?;
            tally.result.records.push(r);
        }
        Ok(())
    })?;
    for f in [&mut pgn, &mut jsonl].into_iter().flatten() {
        f.flush().map_err(|e| format!("writing records: {e}"))?;
    }
    Ok(tally.result)
}

/// A match rebuilt from the JSONL records of its shards by [`merge`].
#[derive(Clone, Debug)]
pub struct Merged {
    /// The match's parameters (with `shard` 0: the records' own shards vary).
    pub info: MatchInfo,
    /// Variant and flying.
    pub rules: millstone::Rules,
    /// The match seed.
    pub seed: u64,
    /// The SPRT, if the match ran one.
    pub sprt: Option<Sprt>,
    /// The games of all files in schedule order, with the statistics of the whole match.
    pub result: MatchResult,
    /// The shards that gave records, ascending.
    pub shards_seen: Vec<usize>,
}

/// Reads the JSONL records of the shards of one match (`mill-match --shard K/N --jsonl`) and
/// rebuilds the match's results as one run would give them. Files may come in any order and
/// hold any shards; a missing file, a line that is not a record, records of different matches
/// or the same game twice are errors naming the file and line.
pub fn merge(files: &[PathBuf]) -> Result<Merged, String> {
    if files.is_empty() {
        return Err("merge: give the JSONL files of the shards".into());
    }
    // The identity of the match: its parameters without the shard, plus the record fields that
    // belong to the match.
    type Key = (MatchInfo, u64, String, bool);
    let mut first: Option<(Key, String)> = None;
    let mut seen: HashMap<usize, String> = HashMap::new();
    let mut records = Vec::new();
    let mut shards_seen = std::collections::BTreeSet::new();
    for path in files {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for (n, line) in text.lines().enumerate() {
            let at = format!("{}:{}", path.display(), n + 1);
            if line.trim().is_empty() {
                continue;
            }
            let rec: GameRecord = serde_json::from_str(line)
                .map_err(|e| format!("{at}: not a game record of mill-match: {e}"))?;
            let Some(info) = rec.match_info.clone() else {
                return Err(format!(
                    "{at}: game {} has no match parameters (\"match\"): written by an older mill-match?",
                    rec.game
                ));
            };
            if info.shards == 0 || info.shard == 0 || info.shard > info.shards {
                return Err(format!(
                    "{at}: game {}: bad shard {}/{}",
                    rec.game, info.shard, info.shards
                ));
            }
            if rec.game == 0 || rec.game > info.scheduled {
                return Err(format!(
                    "{at}: game {} is not in a match of {} games",
                    rec.game, info.scheduled
                ));
            }
            if shard_of(rec.pair, info.shards) != info.shard {
                return Err(format!(
                    "{at}: game {} (pair {}) is not one of shard {}/{}'s games",
                    rec.game, rec.pair, info.shard, info.shards
                ));
            }
            shards_seen.insert(info.shard);
            let key: Key = (
                MatchInfo { shard: 0, ..info },
                rec.seed,
                rec.variant.clone(),
                rec.flying,
            );
            match &first {
                None => first = Some((key, at.clone())),
                Some((k, where_)) if *k != key => {
                    return Err(format!(
                        "{at}: game {} is from another match than {where_} ({})",
                        rec.game,
                        key_difference(k, &key)
                    ));
                }
                Some(_) => {}
            }
            if let Some(prev) = seen.insert(rec.game, at.clone()) {
                let hint = if files.iter().filter(|f| *f == path).count() > 1 {
                    " (the file is given twice)"
                } else {
                    ""
                };
                return Err(format!("{at}: game {} is also at {prev}{hint}", rec.game));
            }
            records.push(rec);
        }
    }
    let Some(((info, seed, variant, flying), _)) = first else {
        return Err("merge: no game records in the files".into());
    };
    let v: millstone::Variant = variant
        .parse()
        .map_err(|e| format!("merge: variant '{variant}': {e}"))?;
    let rules = millstone::Rules::new(v, flying);
    let sprt = info
        .sprt
        .as_deref()
        .map(|s| s.parse::<Sprt>().map_err(|e| format!("merge: {e}")))
        .transpose()?;
    records.sort_by_key(|r| r.game);
    let mut tally = Tally::new(&info.engines, info.scheduled);
    for rec in &records {
        tally.add(rec).map_err(|e| format!("merge: {e}"))?;
    }
    tally.update_sprt(sprt.as_ref(), info.sprt_min_games);
    tally.result.records = records;
    Ok(Merged {
        info,
        rules,
        seed,
        sprt,
        result: tally.result,
        shards_seen: shards_seen.into_iter().collect(),
    })
}

fn key_difference(
    a: &(MatchInfo, u64, String, bool),
    b: &(MatchInfo, u64, String, bool),
) -> String {
    let (ia, ib) = (&a.0, &b.0);
    let mut d = Vec::new();
    if a.1 != b.1 {
        d.push(format!("seed {} vs {}", a.1, b.1));
    }
    if a.2 != b.2 || a.3 != b.3 {
        d.push(format!(
            "rules {} flying {} vs {} flying {}",
            a.2, a.3, b.2, b.3
        ));
    }
    if ia.engines != ib.engines {
        d.push(format!(
            "engines {} vs {}",
            ia.engines.join(","),
            ib.engines.join(",")
        ));
    }
    if ia.shards != ib.shards {
        d.push(format!("{} vs {} shards", ia.shards, ib.shards));
    }
    if ia.games != ib.games || ia.scheduled != ib.scheduled || ia.gauntlet != ib.gauntlet {
        d.push(format!("{} vs {} games", ia.scheduled, ib.scheduled));
    }
    if ia.limits != ib.limits {
        d.push(format!("limits '{}' vs '{}'", ia.limits, ib.limits));
    }
    if ia.openings != ib.openings {
        d.push(format!("openings '{}' vs '{}'", ia.openings, ib.openings));
    }
    if ia.sprt != ib.sprt || ia.sprt_min_games != ib.sprt_min_games {
        d.push("SPRT settings differ".into());
    }
    d.join(", ")
}

/// The summary of a merged match: the same text as one run of the whole match prints.
pub fn merged_summary(m: &Merged) -> String {
    let names: Vec<&str> = m.info.engines.iter().map(|s| s.as_str()).collect();
    summary_of(&names, m.rules, m.seed, m.sprt.as_ref(), None, &m.result)
}

/// Writes records as PGN and/or JSONL, in the given order.
pub fn write_records(
    records: &[GameRecord],
    pgn: Option<&PathBuf>,
    jsonl: Option<&PathBuf>,
) -> Result<(), String> {
    let open = |p: Option<&PathBuf>| -> Result<Option<std::io::BufWriter<std::fs::File>>, String> {
        p.map(|p| {
            std::fs::File::create(p)
                .map(std::io::BufWriter::new)
                .map_err(|e| format!("cannot create {}: {e}", p.display()))
        })
        .transpose()
    };
    let (mut pgn, mut jsonl) = (open(pgn)?, open(jsonl)?);
    for r in records {
        write_record(r, &mut pgn, &mut jsonl)?;
    }
    for f in [&mut pgn, &mut jsonl].into_iter().flatten() {
        f.flush().map_err(|e| format!("writing records: {e}"))?;
    }
    Ok(())
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
    let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
    let shard = config.shard.map(|(k, n)| (k, n, schedule(config).len()));
    summary_of(
        &names,
        config.settings.rules,
        config.seed,
        config.sprt.as_ref(),
        shard,
        result,
    )
}

/// The summary text; `shard` is `(k, n, games of the whole match)` for a shard's run.
fn summary_of(
    names: &[&str],
    rules: millstone::Rules,
    seed: u64,
    config_sprt: Option<&Sprt>,
    shard: Option<(usize, usize, usize)>,
    result: &MatchResult,
) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "Finished {} of {} games, {} {}, seed {}",
        result.records.len(),
        result.scheduled,
        rules.variant,
        if rules.flying {
            "(flying)"
        } else {
            "(no flying)"
        },
        seed
    );
    match shard {
        Some((k, n, all)) => {
            let _ = writeln!(s, ", shard {k}/{n} of a {all}-game match");
        }
        None => s.push('\n'),
    }
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
        let sprt = if names.len() == 2 { config_sprt } else { None };
        let _ = writeln!(
            s,
            "{} vs {}: {}",
            names[a],
            names[b],
            stats::summary_line(&ps.wdl, Some(&ps.penta), sprt)
        );
    }
    if let Some((llr, d)) = result.sprt {
        let sprt = config_sprt.expect("sprt was configured");
        let _ = writeln!(s, "SPRT ({sprt}): {} (LLR {llr:.2})", decision_text(d));
    }
    let reasons: Vec<String> = result
        .reasons
        .iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect();
    let _ = writeln!(s, "Endings: {}", reasons.join(", "));
    if result.ponder.iter().any(|p| p.0 > 0) {
        let per: Vec<String> = names
            .iter()
            .zip(&result.ponder)
            .map(|(n, (searches, hits))| format!("{n} {hits}/{searches}"))
            .collect();
        let _ = writeln!(s, "Ponder hits: {}", per.join(", "));
    }
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
                ponder: false,
                tablebase: None,
            },
            sprt: None,
            sprt_min_games: 0,
            restart_each_game: false,
            pgn: None,
            jsonl: None,
            event: "test".into(),
            progress: false,
            shard: None,
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
    fn shards_partition_the_schedule_by_pairs() {
        let mut c = config(3, 7, false);
        let all = schedule(&c);
        assert_eq!(all.len(), 21);
        assert_eq!(parse_shard("2/3"), Ok((2, 3)));
        for bad in ["0/3", "4/3", "1/0", "x/2", "2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        for n in [1, 2, 3, 5, 40] {
            let mut seen = Vec::new();
            for k in 1..=n {
                c.shard = Some((k, n));
                for g in games_to_play(&c) {
                    // The same game as in the whole schedule, and its pair partner here too.
                    let whole = &all[g.game - 1];
                    assert_eq!(
                        (g.fen.as_str(), g.white, g.black),
                        (whole.fen.as_str(), whole.white, whole.black)
                    );
                    assert_eq!(shard_of(g.pair, n), k);
                    seen.push(g.game);
                }
                assert_eq!(match_info(&c).shard, k);
            }
            seen.sort();
            assert_eq!(seen, (1..=21).collect::<Vec<_>>(), "{n} shards");
        }
        // A pair's two games share their pair number; the pairs count up.
        assert_eq!(all[0].pair, all[1].pair);
        assert_eq!(all[2].pair, 2);
        assert_eq!(all.last().unwrap().pair, 12);
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
