//! What a generation job needs, estimated before it runs: peak memory, time and the bytes it
//! writes, so that `mill-tb plan` can ask a scheduler for the right resources (`srun --mem
//! --time`) instead of one size for all (nine's jobs range from 18 MB to 9.5 GB).
//!
//! The figures are those of `mill-tb setup` ([`crate::setup`]), fitted to nine's complete set
//! measured on 2 cores (`docs/tables.md`, `docs/placing.md`), for one job alone on a node.

use crate::placing::PlacingJob;
use millstone::tablebase::Job;

// The rates, bytes a slot and memory a slot are `mill-tb setup`'s, fitted to nine's measured
// jobs; a job here runs alone on a node, so it holds only its own tables and those it reads.
use crate::setup::{
    lean_memory, MOVING_DISK_PER_SLOT, MOVING_SLOTS_PER_SEC_THREAD, PLACING_DISK_PER_SLOT,
    PLACING_SLOTS_PER_SEC_THREAD,
};

/// Threads of the node a job is estimated for.
const THREADS: f64 = 2.0;

/// A job's estimated needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// Peak resident memory, in bytes.
    pub memory: u64,
    /// Wall time on one node with two cores, in seconds.
    pub seconds: u64,
    /// Bytes of the files it writes.
    pub output: u64,
}

impl Estimate {
    /// Memory for `srun --mem`, in MiB (rounded up).
    pub fn memory_mib(&self) -> u64 {
        self.memory.div_ceil(1 << 20)
    }

    /// The time limit for `srun --time`, in whole minutes: four times the estimate and two
    /// minutes, because the rates are nine's on a quiet machine (twelve's jobs ran at about half
    /// of them, a busy node slower still), so that a job killed at its limit was truly stuck.
    pub fn time_limit_minutes(&self) -> u64 {
        (4 * self.seconds).div_ceil(60) + 2
    }
}

/// A moving-phase job run alone (`generate --only`): both its tables' working arrays, and one
/// table at a time of those its mills read and those it writes.
pub fn moving(job: &Job) -> Estimate {
    let own = job.slots();
    Estimate {
        memory: lean_memory(job),
        seconds: 5 + (own as f64 / (MOVING_SLOTS_PER_SEC_THREAD * THREADS)) as u64,
        output: (own as f64 * MOVING_DISK_PER_SLOT) as u64 + 4096,
    }
}

/// A placing-phase job (its memory is the plan's own count: a byte a slot of the sector and of
/// each input, and the base).
pub fn placing(job: &PlacingJob) -> Estimate {
    Estimate {
        memory: job.memory,
        seconds: 5 + (job.slots as f64 / (PLACING_SLOTS_PER_SEC_THREAD * THREADS)) as u64,
        output: (job.slots as f64 * PLACING_DISK_PER_SLOT) as u64 + 4096,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use millstone::Rules;

    /// Nine's biggest moving jobs run alone are estimated above the measured peak (7v9: 5.68 GB
    /// by `/usr/bin/time -v`, docs/tables.md) and within a 6 GiB node; the time limit covers the
    /// 111 s 8v9 took.
    #[test]
    fn nine_biggest_jobs_are_covered() {
        for (w, b) in [(7, 9), (8, 9), (7, 8)] {
            let e = moving(&Job::new(Rules::default(), w, b));
            assert!(e.memory > 5_680_000_000, "{e:?}");
            assert!(e.memory < 6 << 30, "{e:?}");
            assert!(e.time_limit_minutes() * 60 > 111, "{e:?}");
        }
        let p = crate::placing::plan(Rules::default(), 18);
        let big = p.iter().max_by_key(|j| j.slots).unwrap();
        let e = placing(big);
        assert!(e.memory > big.slots && e.seconds > 30, "{e:?}");
        // The limit covers the biggest sector at the slowest rate nine's complete placing
        // phase ran at (3.5 M slots a second and thread, on a busy machine).
        let slowest = big.slots as f64 / (3.5e6 * THREADS);
        assert!(
            (e.time_limit_minutes() * 60) as f64 > 2.0 * slowest,
            "{e:?}"
        );
    }
}
