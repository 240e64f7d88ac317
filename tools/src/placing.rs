//! `mill-tb`'s commands for the placing-phase tables: generate, plan, info, verify, probe.
//!
//! The library's [`millstone::tablebase::placing`] does the work; this module reports it: one
//! line per sector, and per ply the positions, W/D/L, time, rate, peak memory and bytes.

use millstone::tablebase::placing::{self, Child, Sector, SectorReport};
use millstone::tablebase::{file_name, Job, Tablebase, Wdl};
use millstone::{Move, Position, Rules};
use std::path::Path;
use std::time::Instant;

/// The peak resident memory of this process so far, in bytes (Linux; `None` elsewhere).
pub fn peak_memory() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Totals of one ply (or of a whole run).
#[derive(Default, Clone, Copy)]
struct Totals {
    sectors: u64,
    positions: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    secs: f64,
    bytes: u64,
}

impl Totals {
    fn add(&mut self, r: &SectorReport) {
        self.sectors += 1;
        self.positions += r.stats.positions;
        self.wins += r.stats.wins;
        self.draws += r.stats.draws;
        self.losses += r.stats.losses;
        self.secs += r.read_secs + r.solve_secs + r.write_secs;
        self.bytes += r.bytes;
    }

    fn line(&self, what: &str) -> String {
        let pct = |x: u64| 100.0 * x as f64 / self.positions.max(1) as f64;
        format!(
            "{what}: {} sectors, {} positions, W/D/L {:.1}/{:.1}/{:.1} %, {:.1}s, {:.2} M positions/s, {} bytes ({:.2} bits a position)",
            self.sectors,
            self.positions,
            pct(self.wins),
            pct(self.draws),
            pct(self.losses),
            self.secs,
            self.positions as f64 / self.secs.max(1e-9) / 1e6,
            self.bytes,
            8.0 * self.bytes as f64 / self.positions.max(1) as f64
        )
    }
}

/// Solves `sectors` into `dir`, logging each and each ply's totals on stderr.
fn run(dir: &Path, sectors: &[Sector]) -> Result<(), String> {
    let start = Instant::now();
    let mut ply: Option<u8> = None;
    let mut per_ply = Totals::default();
    let mut all = Totals::default();
    let flush = |ply: Option<u8>, t: &Totals| {
        if let Some(p) = ply {
            eprintln!(
                "{}; peak memory {} MB",
                t.line(&format!("ply {p}")),
                peak_memory().unwrap_or(0) >> 20
            );
        }
    };
    placing::generate_sectors(dir, sectors, |r| {
        if ply != Some(r.sector.ply) {
            flush(ply, &per_ply);
            ply = Some(r.sector.ply);
            per_ply = Totals::default();
        }
        per_ply.add(r);
        all.add(r);
        let s = &r.stats;
        if r.kept {
            eprintln!("{}: kept (valid file)", r.sector);
        } else {
            eprintln!(
                "{}: {} positions in {} slots, W/D/L {}/{}/{}, read {:.1}s, solved {:.1}s ({:.2} M positions/s), written {:.1}s, {} bytes",
                r.sector,
                s.positions,
                s.slots,
                s.wins,
                s.draws,
                s.losses,
                r.read_secs,
                r.solve_secs,
                s.slots as f64 / r.solve_secs.max(1e-9) / 1e6,
                r.write_secs,
                r.bytes
            );
        }
    })
    .map_err(|e| e.to_string())?;
    flush(ply, &per_ply);
    eprintln!(
        "placing phase done in {:.1}s; {}",
        start.elapsed().as_secs_f64(),
        all.line("all")
    );
    Ok(())
}

/// The moving phase's files the sectors read that are not in `dir`.
fn missing_moving_inputs(dir: &Path, sectors: &[Sector]) -> Vec<String> {
    let mut missing: Vec<String> = sectors
        .iter()
        .flat_map(|s| s.inputs())
        .filter_map(|c| match c {
            Child::Moving(w, b) => Some(file_name(sectors[0].rules, w, b)),
            _ => None,
        })
        .filter(|f| !dir.join(f).exists())
        .collect();
    missing.sort();
    missing.dedup();
    missing
}

/// Every placing sector of `rules` with at most `max_material` pieces (board and hands).
pub fn generate(rules: Rules, max_material: u8, dir: &Path) -> Result<(), String> {
    let sectors = Sector::all(rules, max_material);
    let missing = missing_moving_inputs(dir, &sectors);
    if !missing.is_empty() {
        return Err(format!(
            "the placing phase reads the moving phase's tables; missing in {}: {}",
            dir.display(),
            missing.join(", ")
        ));
    }
    run(dir, &sectors)
}

/// Parses a placing job's name, such as `p17-8v9`.
pub fn parse_job(rules: Rules, name: &str) -> Option<Sector> {
    let (p, mo) = name.strip_prefix('p')?.split_once('-')?;
    let (m, o) = mo.split_once('v')?;
    let s = Sector::new(rules, p.parse().ok()?, m.parse().ok()?, o.parse().ok()?)?;
    (s.is_stored() && job_name(&s) == name).then_some(s)
}

/// A placing job's name: `p<ply>-<m>v<o>`.
pub fn job_name(s: &Sector) -> String {
    format!("p{}-{}v{}", s.ply, s.m, s.o)
}

/// Solves one sector (`--only p17-8v9`); its inputs must be in `dir`.
pub fn generate_only(rules: Rules, name: &str, dir: &Path) -> Result<(), String> {
    let s = parse_job(rules, name).ok_or_else(|| {
        format!("--only {name:?}: not a stored placing sector of {rules} (such as p17-8v9)")
    })?;
    for c in s.inputs() {
        let f = match c {
            Child::Placing(t) => t.file_name(),
            Child::Moving(w, b) => file_name(rules, w, b),
            _ => continue,
        };
        if !dir.join(&f).exists() {
            return Err(format!("input {f} of {name} is not in {}", dir.display()));
        }
    }
    run(dir, &[s])
}

/// One placing job of a plan: its name, file, the jobs it waits for, and what it costs.
pub struct PlacingJob {
    /// `p<ply>-<m>v<o>`.
    pub name: String,
    /// The sector.
    pub sector: Sector,
    /// The file it writes.
    pub file: String,
    /// The jobs that write its inputs: placing jobs' names and moving jobs' `WvB`.
    pub inputs: Vec<String>,
    /// The files it reads.
    pub reads: Vec<String>,
    /// Its slots.
    pub slots: u64,
    /// Estimated peak memory in bytes: its slots and its inputs' at a byte a slot, and 192 MB
    /// (nine's complete run peaked at 1.91 GB where its largest sector counts 1.75 GB).
    pub memory: u64,
}

/// The placing jobs of `rules` up to `max_material`, in an order that respects their inputs.
pub fn plan(rules: Rules, max_material: u8) -> Vec<PlacingJob> {
    Sector::all(rules, max_material)
        .into_iter()
        .map(|s| {
            let mut inputs = Vec::new();
            let mut reads = Vec::new();
            let mut memory = s.slots() + (192 << 20);
            for c in s.inputs() {
                match c {
                    Child::Placing(t) => {
                        inputs.push(job_name(&t));
                        reads.push(t.file_name());
                        memory += t.slots();
                    }
                    Child::Moving(w, b) => {
                        inputs.push(Job::new(rules, w, b).name());
                        reads.push(file_name(rules, w, b));
                        memory +=
                            millstone::tablebase::SubIndex::new(rules.variant, w, b).len() as u64;
                    }
                    _ => {}
                }
            }
            PlacingJob {
                name: job_name(&s),
                sector: s,
                file: s.file_name(),
                inputs,
                reads,
                slots: s.slots(),
                memory,
            }
        })
        .collect()
}

/// Prints the placing files of `dir`: each sector and each ply's totals, from the headers.
/// Returns how many files could not be read.
pub fn info(dir: &Path) -> Result<usize, String> {
    let mut found: Vec<Sector> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| Sector::parse_file_name(&e.file_name().to_string_lossy()))
        .collect();
    if found.is_empty() {
        return Ok(0);
    }
    found.sort_by_key(|s| {
        (
            s.rules.variant.pieces(),
            !s.rules.flying,
            std::cmp::Reverse(s.ply),
            s.m,
            s.o,
        )
    });
    println!(
        "\n{:<24} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>6}",
        "placing sector", "slots", "positions", "wins", "draws", "losses", "bytes", "bits"
    );
    let mut failures = 0;
    let mut per_ply: Vec<(Rules, u8, [u64; 6])> = Vec::new();
    for s in found {
        let f = match placing::PlacingFile::open(&dir.join(s.file_name()), s) {
            Ok(f) => f,
            Err(e) => {
                failures += 1;
                println!("{:<24} {e}", s.file_name().trim_end_matches(".mpt"));
                continue;
            }
        };
        let h = f.header();
        let st = &h.stats;
        println!(
            "{:<24} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>6.2}",
            s.file_name().trim_end_matches(".mpt"),
            st.slots,
            st.positions,
            st.wins,
            st.draws,
            st.losses,
            h.file_len,
            8.0 * h.file_len as f64 / st.positions.max(1) as f64
        );
        let row = [
            st.slots,
            st.positions,
            st.wins,
            st.draws,
            st.losses,
            h.file_len,
        ];
        match per_ply.last_mut() {
            Some((r, p, t)) if *r == s.rules && *p == s.ply => {
                t.iter_mut().zip(row).for_each(|(a, b)| *a += b)
            }
            _ => per_ply.push((s.rules, s.ply, row)),
        }
    }
    println!(
        "\n{:<24} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>6}",
        "per ply", "slots", "positions", "wins", "draws", "losses", "bytes", "bits"
    );
    let mut total = [0u64; 6];
    for (r, p, t) in &per_ply {
        println!(
            "{:<24} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>6.2}",
            format!("{} p{p}", short(*r)),
            t[0],
            t[1],
            t[2],
            t[3],
            t[4],
            t[5],
            8.0 * t[5] as f64 / t[1].max(1) as f64
        );
        total.iter_mut().zip(t).for_each(|(a, b)| *a += b);
    }
    println!(
        "{:<24} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>6.2}",
        "all",
        total[0],
        total[1],
        total[2],
        total[3],
        total[4],
        total[5],
        8.0 * total[5] as f64 / total[1].max(1) as f64
    );
    println!("(placing sectors: p = placements made, side to move's pieces on the board v the other side's; per position up to symmetry; bits: file bits a position)");
    Ok(failures)
}

fn short(r: Rules) -> String {
    format!(
        "{}-{}",
        r.variant.name(),
        if r.flying { "fly" } else { "nofly" }
    )
}

/// Checks every placing file of `dir` one ply deep (every slot, or `sample` per sector).
/// Returns (files, failures).
pub fn verify(dir: &Path, sample: Option<u64>, seed: u64) -> Result<(usize, usize), String> {
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let mut found: Vec<Sector> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| Sector::parse_file_name(&e.file_name().to_string_lossy()))
        .collect();
    found.sort_by_key(|s| (s.rules.variant.pieces(), !s.rules.flying, s.ply, s.m, s.o));
    let mut failures = 0;
    for &s in &found {
        let t0 = Instant::now();
        let r = placing::file_is_valid(&dir.join(s.file_name()), s)
            .map_err(|e| e.to_string())
            .and_then(|_| placing::verify_sector(&tb, s, sample.map(|n| (n, seed))));
        match r {
            Ok(n) => eprintln!(
                "{s}: {n} slots consistent ({:.1}s)",
                t0.elapsed().as_secs_f64()
            ),
            Err(e) => {
                failures += 1;
                eprintln!("{s}: FAILED\n{e}");
            }
        }
    }
    Ok((found.len(), failures))
}

/// Prints the verdict of the tables on a placing position and each move's value.
pub fn probe(dir: &Path, pos: &Position) -> Result<(), String> {
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    let sector = placing::sector_of(pos).ok_or("not a placing-phase position")?;
    let verdict = tb.wdl(pos).ok_or_else(|| {
        format!(
            "{sector} is not in the tables of {} (file {})",
            dir.display(),
            sector.file_name()
        )
    })?;
    print!("{}", pos.diagram());
    println!("{} to move, {sector}", pos.side_to_move());
    println!("verdict: {}", word(verdict));
    match tb.probe_root(pos) {
        Some(root) => {
            println!("best move: {}", root.best);
            for (m, p) in root.moves {
                println!("  {m:<10} {}", word(p.wdl));
            }
        }
        None => println!("no move values (a needed table is missing)"),
    }
    eprintln!("probed in {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    Ok(())
}

fn word(w: Wdl) -> &'static str {
    match w.real() {
        Wdl::Win => "win",
        Wdl::Loss => "loss",
        _ => "draw",
    }
}

/// Plies of the opening census: those of the engine's book (`mill-tb book --plies 5`).
pub const CENSUS_PLIES: u32 = 5;

/// The tables' values of every position of the first `plies` plies, one of each class of
/// mirror images, walked as `mill-tb book` walks them (the same classes, the same order): per
/// ply the positions won, drawn and lost for the side to move and the moves that keep each
/// one's value. The book's own log gives these counts from the solver, so they compare the two.
/// `None` where a position is outside the tables.
pub fn opening_census(
    tb: &Tablebase,
    solver: &millstone::solve::Solver,
    rules: Rules,
    plies: u32,
) -> Option<Vec<[u64; 4]>> {
    let mut level = vec![Position::new(rules)];
    let mut out = Vec::new();
    for _ in 0..plies {
        let mut counts = [0u64; 4];
        for pos in &level {
            let root = tb.probe_root(pos)?;
            let v = root.probe.wdl.real();
            counts[match v {
                Wdl::Win => 0,
                Wdl::Loss => 2,
                _ => 1,
            }] += 1;
            counts[3] += root.moves.iter().filter(|(_, p)| p.wdl.real() == v).count() as u64;
        }
        out.push(counts);
        level = next_ply(&level, solver);
    }
    Some(out)
}

/// The positions of the ply after `level` in an opening book (`mill-tb book`, and the checks
/// that walk a book as it was built): every move of every position in turn, keeping a child
/// still in the placing phase and not over, the first of each class of mirror images.
pub fn next_ply(level: &[Position], solver: &millstone::solve::Solver) -> Vec<Position> {
    let level: Vec<(Position, Vec<Move>)> = level
        .iter()
        .map(|p| (*p, p.legal_moves().iter().copied().collect()))
        .collect();
    next_ply_through(&level, solver)
}

/// [`next_ply`] through the given moves of each position only (a book for one side follows
/// one winning move where that side is to move).
pub fn next_ply_through(
    level: &[(Position, Vec<Move>)],
    solver: &millstone::solve::Solver,
) -> Vec<Position> {
    let mut next = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (pos, moves) in level {
        for &m in moves {
            let mut child = *pos;
            child.make(m);
            if !child.is_moving_phase()
                && child.outcome().is_none()
                && seen.insert(solver.class_key(&child))
            {
                next.push(child);
            }
        }
    }
    next
}

/// What [`book_check`] found.
pub struct BookCheck {
    /// Positions compared, per ply (one of each class of mirror images, as the book has them).
    pub per_ply: Vec<u64>,
    /// Disagreements on a position's value or its value-keeping moves, as lines.
    pub mismatches: Vec<String>,
    /// Solver nodes searched beyond the book's entries (0 when the book answered everything).
    pub nodes: u64,
}

/// Compares the placing tables with an opening book (`mill-tb book`'s file, made by the
/// alpha-beta solver from the moving phase's tables alone): for every position of the first
/// `plies` plies, walked as `mill-tb book` walks them, the value and the set of moves that keep
/// it, from the book's proven entries (a solver loaded with them, searching only what the book
/// left out) and from the tables. `root` is the book's first position (`mill-tb book --fen`),
/// the start when `None`. With `for_side` (a book of `mill-tb book --for`), a position of that
/// side that the book proves won is walked as the book walked it: the tables must call it won
/// and the book's winning move must keep the win in the tables; that move alone is followed.
pub fn book_check(
    dir: &Path,
    book: &Path,
    root: Option<&str>,
    plies: u32,
    hash_mb: usize,
    for_side: Option<millstone::Color>,
) -> Result<BookCheck, String> {
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let checkpoint = millstone::solve::Checkpoint::read(book)
        .map_err(|e| format!("{}: not a readable book: {e}", book.display()))?;
    let rules = checkpoint.rules();
    let mut solver =
        millstone::solve::Solver::new(&tb, rules, hash_mb).map_err(|e| e.to_string())?;
    solver
        .absorb(&checkpoint)
        .map_err(|e| format!("{}: {e}", book.display()))?;
    drop(checkpoint);
    let mut out = BookCheck {
        per_ply: Vec::new(),
        mismatches: Vec::new(),
        nodes: 0,
    };
    let first = match root {
        Some(f) => Position::from_fen(f, rules).map_err(|e| format!("bad position: {e}"))?,
        None => Position::new(rules),
    };
    let mut level = vec![first];
    for ply in 0..plies {
        let mut followed: Vec<(Position, Vec<Move>)> = Vec::with_capacity(level.len());
        for pos in &level {
            let root = tb.probe_root(pos).ok_or_else(|| {
                format!("{pos}: the placing tables of {rules} do not cover it (ply {ply})")
            })?;
            let v = root.probe.wdl.real();
            if for_side == Some(pos.side_to_move()) {
                let (bv, best) = solver
                    .value_and_best(pos)
                    .map_err(|e| format!("{pos}: {e}"))?;
                out.nodes += solver.nodes();
                if let (Wdl::Win, Some(best)) = (bv, best) {
                    let kept = root
                        .moves
                        .iter()
                        .any(|(m, p)| *m == best && p.wdl.real() == Wdl::Win);
                    if v != Wdl::Win || !kept {
                        out.mismatches.push(format!(
                            "{pos}: the book wins by {best}, the tables say {v:?} and that {best} {} the win",
                            if kept { "keeps" } else { "does not keep" }
                        ));
                    }
                    followed.push((*pos, vec![best]));
                    continue;
                }
            }
            let mut keep: Vec<String> = root
                .moves
                .iter()
                .filter(|(_, p)| p.wdl.real() == v)
                .map(|(m, _)| m.to_string())
                .collect();
            let (bv, bkeep) = solver
                .value_keeping(pos)
                .map_err(|e| format!("{pos}: {e}"))?;
            out.nodes += solver.nodes();
            let mut bkeep: Vec<String> = bkeep.iter().map(|m| m.to_string()).collect();
            keep.sort();
            bkeep.sort();
            if bv != v || bkeep != keep {
                out.mismatches.push(format!(
                    "{pos}: the tables say {v:?} kept by {}, the book {bv:?} kept by {}",
                    keep.join(" "),
                    bkeep.join(" ")
                ));
            }
            followed.push((*pos, pos.legal_moves().iter().copied().collect()));
        }
        out.per_ply.push(level.len() as u64);
        level = next_ply_through(&followed, &solver);
    }
    Ok(out)
}

/// What [`crosscheck`] found.
pub struct Crosscheck {
    /// Positions compared, per ply.
    pub per_ply: Vec<(u8, u64)>,
    /// Disagreements, as lines.
    pub mismatches: Vec<String>,
    /// Solver nodes in all.
    pub nodes: u64,
}

/// Compares `per_ply` random stored positions of every ply with the alpha-beta solver
/// ([`millstone::solve::Solver`], which reads only the moving phase's tables): an independent
/// check of the placing tables. Plies are taken latest first (cheapest to solve), each
/// position a random slot of a random sector weighted by its slots; `ply_time` ends each ply
/// early (a solve cut off by it is not counted; the counts say how far each ply got), so that
/// the early plies, whose random positions take the solver minutes, still get their share.
pub fn crosscheck(
    dir: &Path,
    rules: Rules,
    per_ply: u64,
    seed: u64,
    hash_mb: usize,
    ply_time: Option<std::time::Duration>,
) -> Result<Crosscheck, String> {
    use rand::{Rng, SeedableRng};
    let tb = Tablebase::open(dir).map_err(|e| e.to_string())?;
    let mut solver =
        millstone::solve::Solver::new(&tb, rules, hash_mb).map_err(|e| e.to_string())?;
    if let Some(census) = opening_census(&tb, &solver, rules, CENSUS_PLIES) {
        let (mut w, mut d, mut l) = (0, 0, 0);
        for (ply, c) in census.iter().enumerate() {
            eprintln!(
                "opening ply {ply}: {} positions, {} won, {} drawn, {} lost for the side to move, {} value-keeping moves",
                c[0] + c[1] + c[2],
                c[0],
                c[1],
                c[2],
                c[3]
            );
            (w, d, l) = (w + c[0], d + c[1], l + c[2]);
        }
        eprintln!(
            "opening: {CENSUS_PLIES} plies, {w} positions won, {d} drawn, {l} lost for the side to move (as `mill-tb book --plies {CENSUS_PLIES}` counts them)"
        );
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let all = Sector::all(rules, 2 * rules.variant.pieces());
    let mut out = Crosscheck {
        per_ply: Vec::new(),
        mismatches: Vec::new(),
        nodes: 0,
    };
    for ply in (0..2 * rules.variant.pieces()).rev() {
        let sectors: Vec<&Sector> = all
            .iter()
            .filter(|s| s.ply == ply && dir.join(s.file_name()).exists())
            .collect();
        let total: u64 = sectors.iter().map(|s| s.slots()).sum();
        if total == 0 {
            continue;
        }
        let mut done = 0;
        let t0 = Instant::now();
        let deadline = ply_time.map(|t| t0 + t);
        solver.set_deadline(deadline);
        // A ply with no more slots than asked for (the first plies) is checked slot by slot,
        // each position once, instead of the same few positions drawn again and again.
        let exhaustive = total <= per_ply;
        let mut next_slot = 0;
        while done < per_ply {
            if deadline.is_some_and(|d| Instant::now() > d) {
                break;
            }
            let mut pick = if exhaustive {
                if next_slot == total {
                    break;
                }
                next_slot += 1;
                next_slot - 1
            } else {
                rng.gen_range(0..total)
            };
            let s = **sectors
                .iter()
                .find(|s| {
                    if pick < s.slots() {
                        true
                    } else {
                        pick -= s.slots();
                        false
                    }
                })
                .expect("pick < total");
            let (pos, canonical) = placing::position_of_slot(s, pick as u32);
            if exhaustive && !canonical {
                continue;
            }
            let stored = tb
                .wdl(&pos)
                .ok_or_else(|| format!("{s}: file unreadable"))?;
            let solved = match solver.solve(&pos) {
                Err(millstone::solve::SolveError::OutOfTime) => break,
                r => r.map_err(|e| format!("{pos}: {e}"))?,
            };
            out.nodes += solved.nodes;
            if solved.value != stored {
                out.mismatches.push(format!(
                    "{pos}: the tables say {stored:?}, the solver {:?}",
                    solved.value
                ));
            }
            done += 1;
        }
        eprintln!(
            "ply {ply}: {done} positions agree with the solver{} ({:.1}s)",
            if out.mismatches.is_empty() {
                String::new()
            } else {
                format!(" ({} mismatches so far)", out.mismatches.len())
            },
            t0.elapsed().as_secs_f64()
        );
        out.per_ply.push((ply, done));
    }
    Ok(out)
}
