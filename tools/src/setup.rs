//! `mill-tb setup`: the steps that give perfect play for one rule set, what each costs, and
//! the check of those costs against the disk and memory there are.
//!
//! A setup is a list of [`Step`]s, in an order where each step's inputs come before it: every
//! moving-phase job of [`millstone::tablebase::plan`] (smallest first), then the placing phase's
//! sectors. A step whose files are there and sound is done, so a second run does only what
//! the first left (and a damaged or missing file is made again). The cost of a step is an
//! estimate from the measurements in docs/tables.md and docs/placing.md (see [`Cost`]); the
//! book of `mill-tb book` is no step: with the placing tables of the whole placing phase the
//! engine answers every placing position from them, and with fewer pieces the book cannot be
//! made (it solves from the start of the game, which needs every table).

use crate::resources::{human, human_secs};
use millstone::tablebase::placing::Sector;
use millstone::tablebase::{file_name, plan, Job, SubIndex};
use millstone::Rules;
use std::collections::HashMap;
use std::path::Path;

/// Bytes on disk per slot of the moving phase's tables: 4.67 GB for the 9.19 billion slots
/// of nine's complete set (docs/tables.md), rounded up.
pub const MOVING_DISK_PER_SLOT: f64 = 0.52;
/// Bytes on disk per slot of the placing tables: 0.35 bits a position up to 11 pieces
/// (docs/placing.md), rounded up to 0.8 bits for the denser middle plies.
pub const PLACING_DISK_PER_SLOT: f64 = 0.1;
/// Moving-phase slots solved per second and thread: nine's complete set, 9.19 billion slots in
/// 958 s on 2 threads (docs/tables.md), rounded down.
pub const MOVING_SLOTS_PER_SEC_THREAD: f64 = 4.5e6;
/// Placing-phase slots solved per second and thread: nine's 18.65 billion slots took 16:30
/// to 44:47 of wall time on 2 threads (docs/placing.md: 9.4 down to 3.5 M a thread and second,
/// the slow end on a machine busy with other work), twelve without flying's 95.4 billion
/// 1:20:55 (9.8 M, docs/cluster.md); 5.5 M keeps the estimate on the safe side of all but the
/// busiest run. (It was 2 M, from the solver's rate before the placing generator sped up:
/// 2.6 hours of one thread for nine where about an hour was measured.)
pub const PLACING_SLOTS_PER_SEC_THREAD: f64 = 5.5e6;
/// Bytes of memory a moving job takes per slot of its own tables while it solves them, besides
/// the tables it reads (2 bytes a slot, decoded) and [`MOVING_BASE_MEMORY`]: fitted to the
/// measured peaks of nine's jobs (docs/tables.md, "per job": 7v9 9.34 GB, estimated 10.0 GB;
/// 6v8 6.71 GB, est. 7.2 GB; 7v7 5.93 GB, est. 5.8 GB; 3v8 1.49 GB, est. 1.2 GB).
pub const MOVING_WORK_PER_SLOT: f64 = 6.0;
/// Memory of a moving job besides its tables: the generator's work lists, threads, buffers.
pub const MOVING_BASE_MEMORY: u64 = 512 << 20;
/// Bytes a slot of a moving job's own tables when it holds nothing between jobs: the solving
/// words (4 bytes) and the levels' marks (half a byte), besides one table of 2 bytes a slot
/// (the larger of the smaller tables read and its own) and [`MOVING_LEAN_BASE_MEMORY`].
pub const MOVING_LEAN_PER_SLOT: f64 = 4.5;
/// Memory of such a job besides those: the levels' update buffers, threads, file buffers.
pub const MOVING_LEAN_BASE_MEMORY: u64 = 256 << 20;
/// Memory of the process besides the tables: code, thread stacks, buffers.
pub const BASE_MEMORY: u64 = 64 << 20;

/// What a step costs, estimated.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Cost {
    /// Slots solved (the unit of progress).
    pub slots: u64,
    /// Bytes written to disk.
    pub disk: u64,
    /// Peak resident memory while it runs, bytes.
    pub memory: u64,
    /// The same when no table is held from one job to the next (the generator's way within a
    /// memory budget below `memory`): each job reads its inputs from the files one at a time.
    pub lean_memory: u64,
    /// Seconds on one thread.
    pub thread_secs: f64,
}

/// One unit of a setup.
pub enum Step {
    /// One moving-phase job (a sub-space and its partner).
    Moving(Job),
    /// The placing phase's sectors up to a material.
    Placing {
        /// Pieces on the board and in hand, both sides, at most.
        max_material: u8,
        /// The sectors.
        sectors: Vec<Sector>,
    },
}

impl Step {
    /// A short name: `moving 3v4`, `placing up to 18`.
    pub fn name(&self) -> String {
        match self {
            Step::Moving(j) => format!("moving {}", j.name()),
            Step::Placing {
                max_material,
                sectors,
            } => format!(
                "placing sectors up to {max_material} pieces ({} sectors)",
                sectors.len()
            ),
        }
    }

    /// Whether its files are all in `dir`. For the moving jobs the caller checks soundness
    /// again before skipping; here presence is enough to estimate what is left.
    pub fn present(&self, dir: &Path) -> bool {
        match self {
            Step::Moving(j) => j.files().iter().all(|f| dir.join(f).is_file()),
            Step::Placing { sectors, .. } => {
                sectors.iter().all(|s| dir.join(s.file_name()).is_file())
            }
        }
    }
}

/// The plan of a setup: the rule set, the piece limit and the steps.
pub struct Setup {
    /// The rule set.
    pub rules: Rules,
    /// Pieces on the board (moving phase) and material (placing phase), at most.
    pub max_pieces: u8,
    /// The steps, inputs first.
    pub steps: Vec<Step>,
}

impl Setup {
    /// Everything perfect play of `rules` needs, up to `max_pieces` (the whole game with the
    /// variant's two sets, 18 for nine, 24 for twelve).
    pub fn new(rules: Rules, max_pieces: u8) -> Result<Setup, String> {
        let full = 2 * rules.variant.pieces();
        if !(6..=full).contains(&max_pieces) {
            return Err(format!(
                "--max-pieces {max_pieces}: {} has 6 to {full}",
                rules.variant
            ));
        }
        let mut steps: Vec<Step> = plan(rules, max_pieces, rules.variant.pieces())
            .into_iter()
            .map(Step::Moving)
            .collect();
        let sectors = Sector::all(rules, max_pieces);
        if !sectors.is_empty() {
            steps.push(Step::Placing {
                max_material: max_pieces,
                sectors,
            });
        }
        Ok(Setup {
            rules,
            max_pieces,
            steps,
        })
    }

    /// Whether the set covers the whole game (then no book is needed).
    pub fn is_complete(&self) -> bool {
        self.max_pieces == 2 * self.rules.variant.pieces()
    }

    /// The estimated cost of each step, run in order by one process (the moving jobs keep the
    /// tables later jobs read in memory, as `generate` does; those count in each job's peak).
    pub fn costs(&self) -> Vec<Cost> {
        let rules = self.rules;
        let slots_of = |(x, y): (u8, u8)| SubIndex::new(rules.variant, x, y).len() as u64;
        let jobs: Vec<&Job> = self
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Moving(j) => Some(j),
                _ => None,
            })
            .collect();
        let mut k = 0;
        let mut made: HashMap<(u8, u8), ()> = HashMap::new();
        self.steps
            .iter()
            .map(|step| match step {
                Step::Moving(job) => {
                    // Tables in memory while job k runs: those made before that it or a later
                    // job reads, plus its own reads from files.
                    let cached: u64 = made
                        .keys()
                        .chain(job.reads.iter().filter(|t| !made.contains_key(t)))
                        .filter(|t| jobs[k..].iter().any(|j| j.reads.contains(t)))
                        .map(|&t| 2 * slots_of(t))
                        .sum();
                    for &t in &job.tables {
                        made.insert(t, ());
                    }
                    k += 1;
                    let slots = job.slots();
                    Cost {
                        slots,
                        disk: (slots as f64 * MOVING_DISK_PER_SLOT) as u64,
                        memory: MOVING_BASE_MEMORY
                            + cached
                            + (slots as f64 * MOVING_WORK_PER_SLOT) as u64,
                        lean_memory: lean_memory(job),
                        thread_secs: slots as f64 / MOVING_SLOTS_PER_SEC_THREAD,
                    }
                }
                Step::Placing {
                    max_material,
                    sectors,
                } => {
                    let slots: u64 = sectors.iter().map(|s| s.slots()).sum();
                    let memory = crate::placing::plan(rules, *max_material)
                        .iter()
                        .map(|j| j.memory)
                        .max()
                        .unwrap_or(0);
                    Cost {
                        slots,
                        disk: (slots as f64 * PLACING_DISK_PER_SLOT) as u64,
                        memory: BASE_MEMORY + memory,
                        lean_memory: BASE_MEMORY + memory,
                        thread_secs: slots as f64 / PLACING_SLOTS_PER_SEC_THREAD,
                    }
                }
            })
            .collect()
    }
}

/// The peak of a moving job that holds no table between jobs (see [`Cost::lean_memory`]).
pub fn lean_memory(job: &Job) -> u64 {
    let slots_of = |(x, y): (u8, u8)| SubIndex::new(job.rules.variant, x, y).len() as u64;
    let one_table = job
        .reads
        .iter()
        .chain(&job.tables)
        .map(|&t| slots_of(t))
        .max()
        .unwrap_or(0);
    MOVING_LEAN_BASE_MEMORY + (job.slots() as f64 * MOVING_LEAN_PER_SLOT) as u64 + 2 * one_table
}

/// What the steps not yet done need, in all.
#[derive(Clone, Debug, PartialEq)]
pub struct Needs {
    /// Steps in all and steps left.
    pub steps: usize,
    /// Steps left.
    pub left: usize,
    /// Slots left to solve.
    pub slots: u64,
    /// Disk to write.
    pub disk: u64,
    /// Peak memory of the biggest step left.
    pub memory: u64,
    /// The same holding no table between jobs.
    pub lean_memory: u64,
    /// Estimated wall time on `threads` threads.
    pub secs: f64,
}

/// The needs of the steps of `setup` whose files are not in `dir`, on `threads` threads.
pub fn needs(setup: &Setup, dir: &Path, threads: usize) -> Needs {
    let costs = setup.costs();
    let mut n = Needs {
        steps: setup.steps.len(),
        left: 0,
        slots: 0,
        disk: 0,
        memory: 0,
        lean_memory: 0,
        secs: 0.0,
    };
    for (step, c) in setup.steps.iter().zip(&costs) {
        if step.present(dir) {
            continue;
        }
        n.left += 1;
        n.slots += c.slots;
        n.disk += c.disk;
        n.memory = n.memory.max(c.memory);
        n.lean_memory = n.lean_memory.max(c.lean_memory);
        n.secs += c.thread_secs / threads.max(1) as f64;
    }
    n
}

/// Checks `needs` against the free disk and the memory budget: the refusal, with the figures,
/// when either is too small. `None` for a resource that is unknown (then it is not checked).
pub fn check(needs: &Needs, free_disk: Option<u64>, budget: Option<u64>) -> Result<(), String> {
    let mut short = Vec::new();
    if let Some(free) = free_disk {
        // A margin of a twentieth: the temporary file of the job being written.
        if needs.disk + needs.disk / 20 > free {
            short.push(format!(
                "disk: {} needed, {} available",
                human(needs.disk + needs.disk / 20),
                human(free)
            ));
        }
    }
    if let Some(b) = budget {
        if needs.lean_memory > b {
            short.push(format!(
                "memory: {} needed at the peak (the biggest step, holding no table between jobs), the budget is {}",
                human(needs.lean_memory),
                human(b)
            ));
        }
    }
    if short.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "not enough resources, nothing done: {}",
            short.join("; ")
        ))
    }
}

impl Needs {
    /// Whether the moving jobs may keep in memory the tables later jobs read (faster: each is
    /// read from its file once) within `budget`; if not, they hold none between jobs.
    pub fn keeps_tables(&self, budget: Option<u64>) -> bool {
        budget.is_none_or(|b| self.memory <= b)
    }
}

/// The lines that state a setup's needs before it starts.
pub fn describe(setup: &Setup, needs: &Needs, dir: &Path, threads: usize) -> Vec<String> {
    let mut v = vec![format!(
        "setup of {} up to {} pieces into {}: {} steps, {} left",
        setup.rules,
        setup.max_pieces,
        dir.display(),
        needs.steps,
        needs.left
    )];
    if needs.left > 0 {
        v.push(format!(
            "needs about {} of disk, {} of memory at the peak ({} holding no table between jobs), {} on {threads} threads ({} positions)",
            human(needs.disk),
            human(needs.memory),
            human(needs.lean_memory),
            human_secs(needs.secs),
            needs.slots
        ));
    }
    v.push(if setup.is_complete() {
        "book: not needed (the placing tables cover every placing position)".to_string()
    } else {
        "book: none (a partial set; a book solves from the start and needs the complete set)"
            .to_string()
    });
    v
}

/// The moving phase's table file names of a setup (for tests and messages).
pub fn moving_files(setup: &Setup) -> Vec<String> {
    setup
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Moving(j) => Some(j.tables.iter().map(|&(x, y)| file_name(setup.rules, x, y))),
            _ => None,
        })
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use millstone::Variant;

    #[test]
    fn steps_and_refusals() {
        let rules = Rules::new(Variant::Nine, true);
        assert!(Setup::new(rules, 5).is_err());
        assert!(Setup::new(rules, 19).is_err());
        let s = Setup::new(rules, 8).unwrap();
        assert!(!s.is_complete());
        // 3v3, 3v4, 3v5, 4v4, then the placing sectors.
        assert_eq!(s.steps.len(), 5);
        assert!(matches!(s.steps.last(), Some(Step::Placing { .. })));
        let dir = std::env::temp_dir().join("millstone-setup-unit-empty");
        let n = needs(&s, &dir, 2);
        assert_eq!(n.left, 5);
        assert!(n.disk > 0 && n.memory > BASE_MEMORY && n.secs > 0.0);
        assert!(check(&n, Some(n.disk * 2), Some(n.memory)).is_ok());
        let e = check(&n, Some(1000), Some(1 << 20)).unwrap_err();
        assert!(e.contains("disk:") && e.contains("memory:"), "{e}");
        assert!(Setup::new(rules, 18).unwrap().is_complete());
    }

    /// The complete nine fits 6 GiB only by holding no table between jobs (its peak was
    /// 9.65 GB holding them, 5.5 GB measured without: docs/tables.md).
    #[test]
    fn a_budget_below_the_peak_holds_no_table() {
        let s = Setup::new(Rules::new(Variant::Nine, true), 18).unwrap();
        let dir = std::env::temp_dir().join("millstone-setup-unit-empty");
        let n = needs(&s, &dir, 2);
        let six = 6u64 << 30;
        assert!(n.memory > six && n.lean_memory < six, "{n:?}");
        assert!(n.lean_memory > 5_000_000_000, "{n:?}");
        assert!(n.keeps_tables(None) && !n.keeps_tables(Some(six)));
        assert!(check(&n, None, Some(six)).is_ok());
        assert!(check(&n, None, Some(4 << 30))
            .unwrap_err()
            .contains("memory:"));
    }
}
