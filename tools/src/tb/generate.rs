//! `mill-tb generate` and `mill-tb setup`: the moving phase's jobs, run smallest first (each
//! job's inputs before it), with the tables later jobs read kept in memory when the budget
//! allows; the placing phase's sectors are [`crate::placing`]'s.

use crate::{progress, resources, setup};
use millstone::tablebase::{
    file_name, job_of, plan, solve_pair_with, Job, Table, TableFile, TbError,
};
use millstone::Rules;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `mill-tb generate`: one job (`only`: a moving pair such as `3v4`, or a placing sector such
/// as `p17-8v9`), or every moving job up to `max_pieces` and, with `placing`, the placing
/// sectors after them. The memory budget is checked against the same estimate as `setup`'s
/// before anything is solved, so a run that cannot fit stops at once, not hours in.
pub fn generate(
    rules: Rules,
    dir: &Path,
    memory: Option<&str>,
    only: Option<&str>,
    max_pieces: Option<u8>,
    max_side: Option<u8>,
    placing: bool,
) -> Result<(), String> {
    let (budget, how) = resources::memory_budget(memory)?;
    match only {
        Some(job) if job.starts_with('p') => crate::placing::generate_only(rules, job, dir),
        Some(job) => generate_only(rules, job, dir),
        None => {
            let max_pieces = max_pieces.expect("clap requires it");
            let max_side = max_side.unwrap_or(rules.variant.pieces());
            if max_pieces < 6 {
                return Err("--max-pieces must be at least 6 (3 v 3)".into());
            }
            // The same estimate as `setup`'s, for the steps this run makes.
            let mut steps: Vec<setup::Step> = plan(rules, max_pieces, max_side)
                .into_iter()
                .map(setup::Step::Moving)
                .collect();
            let sectors = millstone::tablebase::placing::Sector::all(rules, max_pieces);
            if placing && !sectors.is_empty() {
                steps.push(setup::Step::Placing {
                    max_material: max_pieces,
                    sectors,
                });
            }
            let s = setup::Setup {
                rules,
                max_pieces,
                steps,
            };
            let needs = setup::needs(&s, dir, rayon::current_num_threads());
            setup::check(&needs, None, budget)
                .map_err(|e| format!("{e} (memory budget: {how})"))?;
            let keep = needs.keeps_tables(budget);
            say_how_tables_are_held(&needs, keep, budget, &how);
            generate_moving(rules, max_pieces, max_side, dir, keep).and_then(|()| {
                if placing {
                    crate::placing::generate(rules, max_pieces, dir)
                } else {
                    Ok(())
                }
            })
        }
    }
}

fn is_not_found(e: &TbError) -> bool {
    matches!(e, TbError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
}

/// Whether a job's files are all present and sound: header, W/D/L part, index and every
/// block's checksum (without decoding the blocks).
fn job_done(job: &Job, dir: &Path) -> Result<(), TbError> {
    for &(x, y) in &job.tables {
        let f = TableFile::open(&dir.join(file_name(job.rules, x, y)), job.rules, x, y)?;
        f.check_blocks()?;
    }
    Ok(())
}

/// Runs one job unless its files are done; `cache` holds decoded tables and receives the job's
/// own tables when `keep` is set. With `hold_inputs` the job's inputs missing from `cache` are
/// read into it first; without, each is read from its file just for the setup that needs it.
fn run_job(
    job: &Job,
    dir: &Path,
    cache: &mut HashMap<(u8, u8), Table>,
    keep: bool,
    hold_inputs: bool,
    totals: &mut (u64, f64),
) -> Result<bool, String> {
    let rules = job.rules;
    let name = job.name();
    match job_done(job, dir) {
        Ok(()) => {
            progress::line(&format!("{rules} {name}: valid files exist, skipped"));
            return Ok(false);
        }
        Err(e) if !is_not_found(&e) => progress::line(&format!("{e}; solving again")),
        Err(_) => {}
    }
    let read = |x: u8, y: u8| {
        Table::read(&dir.join(file_name(rules, x, y)), rules, x, y).map_err(|e| {
            let (a, b) = job_of(x, y);
            format!("{name} needs {x}v{y} (job {a}v{b}): {e}")
        })
    };
    if hold_inputs {
        for &(x, y) in &job.reads {
            if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry((x, y)) {
                slot.insert(read(x, y)?);
            }
        }
    }
    reset_peak_memory();
    let mut made = Vec::new();
    let mut write_secs = 0.0;
    // The solver hands over (b, w) first and (w, b) last: the presence of the (w, b) file
    // means the job is done.
    let mut stats = solve_pair_with(
        rules,
        job.w,
        job.b,
        cache,
        &mut |x, y| read(x, y),
        &mut |t| {
            let t0 = Instant::now();
            t.write(&dir.join(file_name(rules, t.w, t.b)))
                .map_err(|e| e.to_string())?;
            write_secs += t0.elapsed().as_secs_f64();
            if keep {
                made.push(t);
            }
            Ok(())
        },
        &mut |line| progress::line(line),
    )?;
    stats.secs -= write_secs;
    let rate = stats.positions as f64 / stats.secs.max(1e-9);
    // The peak since the reset above: it includes the tables the job read and those kept for
    // later jobs; shown in the units `/usr/bin/time -v` and the estimates use.
    let peak = crate::placing::peak_memory().map_or(String::new(), |bytes| {
        format!(", peak memory {}", resources::human(bytes))
    });
    progress::line(&format!(
        "{rules} {name}: solved {} positions ({} slots), {} levels, setup {:.1}s, total {:.1}s, {:.2} M positions/s, written in {write_secs:.1}s{peak}",
        stats.positions,
        stats.slots,
        stats.levels,
        stats.setup_secs,
        stats.secs,
        rate / 1e6
    ));
    totals.0 += stats.positions;
    totals.1 += stats.secs;
    for t in made {
        cache.insert((t.w, t.b), t);
    }
    Ok(true)
}

/// Resets the process's peak resident size, so that each job reports its own (Linux: writing
/// 5 to `clear_refs`; elsewhere nothing happens and no peak is reported).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn parse_job(s: &str) -> Option<(u8, u8)> {
    let (w, b) = s.split_once('v')?;
    Some((w.parse().ok()?, b.parse().ok()?))
}

fn generate_only(rules: Rules, job: &str, dir: &Path) -> Result<(), String> {
    let (w, b) = parse_job(job).ok_or_else(|| format!("--only {job}: expected WvB, as 3v4"))?;
    let n = rules.variant.pieces();
    if !(3..=n).contains(&w) || !(3..=n).contains(&b) {
        return Err(format!("{w}v{b} is not a sub-space of {}", rules.variant));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let job = Job::new(rules, w, b);
    run_job(&job, dir, &mut HashMap::new(), false, false, &mut (0, 0.0)).map(|_| ())
}

/// States, before a run of moving jobs, whether they keep tables between jobs.
fn say_how_tables_are_held(needs: &setup::Needs, keep: bool, budget: Option<u64>, how: &str) {
    let budget = budget.map_or("none".into(), resources::human);
    if keep {
        log::info!("memory budget {budget} ({how}): tables later jobs read are kept in memory");
    } else {
        progress::line(&format!(
            "memory budget {budget} ({how}) is below the {} that keeping tables between jobs needs: each job reads its inputs from the files, peak about {}",
            resources::human(needs.memory),
            resources::human(needs.lean_memory)
        ));
    }
}

/// Generates the moving jobs up to `max_pieces` into `dir`; `keep`: see [`run_jobs`].
fn generate_moving(
    rules: Rules,
    max_pieces: u8,
    max_side: u8,
    dir: &Path,
    keep: bool,
) -> Result<(), String> {
    if max_pieces < 6 {
        return Err("--max-pieces must be at least 6 (3 v 3)".into());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let jobs = plan(rules, max_pieces, max_side);
    let progress = progress::Progress::new("generate", slots_left(&jobs, dir), "slots");
    run_jobs(&jobs, dir, &progress, keep)
}

/// Slots of the jobs whose files are not all in `dir`.
fn slots_left(jobs: &[Job], dir: &Path) -> u64 {
    jobs.iter()
        .filter(|j| !j.files().iter().all(|f| dir.join(f).is_file()))
        .map(|j| j.slots())
        .sum()
}

/// Runs `jobs` (inputs first) into `dir`. With `keep`, the tables later jobs read stay in
/// memory (each file is read once); without, no table is held between jobs (each job reads its
/// inputs from the files, one at a time: the peak is the biggest job's own, 5.5 GB for nine
/// instead of 9.65).
fn run_jobs(
    jobs: &[Job],
    dir: &Path,
    progress: &progress::Progress,
    keep: bool,
) -> Result<(), String> {
    let start = Instant::now();
    let mut cache: HashMap<(u8, u8), Table> = HashMap::new();
    let mut totals = (0u64, 0f64);
    for (k, job) in jobs.iter().enumerate() {
        // Keep in memory only the tables this or a later job reads (the biggest jobs of nine
        // read 1 to 2 GB of them).
        let needed = |t: &(u8, u8)| jobs[k..].iter().any(|j| j.reads.contains(t));
        cache.retain(|t, _| needed(t));
        let keep_own = keep
            && job
                .tables
                .iter()
                .any(|t| jobs[k + 1..].iter().any(|j| j.reads.contains(t)));
        progress.note(format!("job {}", job.name()));
        if run_job(job, dir, &mut cache, keep_own, keep, &mut totals)? {
            progress.inc(job.slots());
        }
    }
    let (solved_positions, solve_secs) = totals;
    progress::line(&format!(
        "done in {:.1}s: solved {solved_positions} positions in {solve_secs:.1}s of solving ({:.2} M positions/s)",
        start.elapsed().as_secs_f64(),
        solved_positions as f64 / solve_secs.max(1e-9) / 1e6
    ));
    Ok(())
}

/// `mill-tb setup`: states the needs, refuses what does not fit, then runs the steps.
pub fn setup(
    rules: Rules,
    memory: Option<&str>,
    disk: Option<&str>,
    dir: PathBuf,
    max_pieces: u8,
    dry_run: bool,
) -> Result<(), String> {
    let s = setup::Setup::new(rules, max_pieces)?;
    let threads = rayon::current_num_threads();
    let needs = setup::needs(&s, &dir, threads);
    let (budget, how) = resources::memory_budget(memory)?;
    let free = match disk {
        Some(d) => Some(resources::parse_size(d).map_err(|e| format!("--disk: {e}"))?),
        None => resources::free_disk(&dir),
    };
    for l in setup::describe(&s, &needs, &dir, threads) {
        eprintln!("{l}");
    }
    eprintln!(
        "disk budget {}{}; memory budget {} ({how})",
        free.map_or("unknown".into(), resources::human),
        if disk.is_some() {
            " (--disk)"
        } else {
            " (free space)"
        },
        budget.map_or("none".into(), resources::human)
    );
    if dry_run {
        for (step, c) in s.steps.iter().zip(s.costs()) {
            eprintln!(
                "  {}{}: {} positions, disk {}, peak memory {} ({} holding no table between jobs), {} of one thread",
                step.name(),
                if step.present(&dir) { " (done)" } else { "" },
                c.slots,
                resources::human(c.disk),
                resources::human(c.memory),
                resources::human(c.lean_memory),
                resources::human_secs(c.thread_secs)
            );
        }
    }
    setup::check(&needs, free, budget)?;
    if dry_run {
        return Ok(());
    }
    let keep = needs.keeps_tables(budget);
    say_how_tables_are_held(&needs, keep, budget, &how);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let start = Instant::now();
    let progress = progress::Progress::new("setup", needs.slots, "positions");
    let jobs: Vec<Job> = s
        .steps
        .iter()
        .filter_map(|st| match st {
            setup::Step::Moving(j) => Some(Job::new(rules, j.w, j.b)),
            _ => None,
        })
        .collect();
    run_jobs(&jobs, &dir, &progress, keep)?;
    for step in &s.steps {
        if let setup::Step::Placing {
            max_material,
            sectors,
        } = step
        {
            let left: u64 = sectors
                .iter()
                .filter(|x| !dir.join(x.file_name()).is_file())
                .map(|x| x.slots())
                .sum();
            progress.note(step.name());
            // The placing generator writes its own lines: the bar waits meanwhile.
            progress.suspend(|| crate::placing::generate(rules, *max_material, &dir))?;
            progress.inc(left);
        }
    }
    drop(progress);
    eprintln!(
        "setup done in {:.1}s: {} holds the tables of {rules} up to {max_pieces} pieces",
        start.elapsed().as_secs_f64(),
        dir.display()
    );
    if millstone::datadir::default_tables().as_deref() == Some(dir.as_path()) {
        eprintln!("the engine and mill-gui find them with no option");
    } else {
        eprintln!(
            "not the data directory: give the engine `setoption name TablePath value {}`",
            dir.display()
        );
    }
    Ok(())
}
