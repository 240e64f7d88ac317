//! What a generation job needs, estimated before it runs: peak memory, time and the bytes it
//! writes, so that `mill-tb plan` can ask a scheduler for the right resources (`srun --mem
//! --time`) instead of one size for all (nine's jobs range from 18 MB to 9.5 GB).
//!
//! The figures are upper estimates fitted to nine's complete set measured on 2 cores
//! (`docs/tables.md`, `docs/placing.md`): a rate well below the one measured, so that a slower
//! node still finishes inside its time limit, and memory above each job's measured peak.

use crate::placing::PlacingJob;
use millstone::tablebase::{Job, SubIndex};

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

    /// The time limit for `srun --time`, in whole minutes: twice the estimate, and one minute
    /// for starting, so that a job killed at its limit was truly stuck.
    pub fn time_limit_minutes(&self) -> u64 {
        (2 * self.seconds).div_ceil(60) + 1
    }
}

/// Fixed memory of a generator process: the binary, thread stacks, zstd contexts, buffers.
const BASE_MEMORY: u64 = 64 << 20;

/// Bytes per slot of the tables a moving-phase job solves (its working arrays: a value and
/// counters per slot, the level's bit sets) and per slot of a table it reads.
const MOVING_OWN: u64 = 7;
const MOVING_READ: u64 = 1;

/// Positions a second the estimates count on (nine's complete set ran at 10.2 M a second on 2
/// cores for the moving phase, about 5 M for the placing phase, each on a quiet machine).
const MOVING_RATE: u64 = 2_000_000;
const PLACING_RATE: u64 = 1_000_000;

/// File bytes per slot: the moving phase stores distances (0.52 bytes a position in nine's
/// set), the placing phase W/D/L only (0.35 bits a position up to 11 pieces).
const MOVING_OUT_PER_SLOT: f64 = 0.6;
const PLACING_OUT_PER_SLOT: f64 = 0.1;

/// A moving-phase job: both its tables' working arrays and the tables its mills read.
pub fn moving(job: &Job) -> Estimate {
    let own = job.slots();
    let read: u64 = job
        .reads
        .iter()
        .map(|&(w, b)| SubIndex::new(job.rules.variant, w, b).len() as u64)
        .sum();
    Estimate {
        memory: BASE_MEMORY + MOVING_OWN * own + MOVING_READ * read,
        seconds: 5 + own / MOVING_RATE,
        output: (own as f64 * MOVING_OUT_PER_SLOT) as u64 + 4096,
    }
}

/// A placing-phase job (its memory is the plan's own count: a byte a slot of the sector and of
/// each input, and the base).
pub fn placing(job: &PlacingJob) -> Estimate {
    Estimate {
        memory: job.memory,
        seconds: 5 + job.slots / PLACING_RATE,
        output: (job.slots as f64 * PLACING_OUT_PER_SLOT) as u64 + 4096,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use millstone::Rules;

    /// Nine's biggest moving job is estimated above its measured peak (8.63 GB for 8v9 in one
    /// run that also kept other tables) and its time limit covers the 111 s it took.
    #[test]
    fn nine_biggest_jobs_are_covered() {
        let job = Job::new(Rules::default(), 8, 9);
        let e = moving(&job);
        assert!(e.memory > 8_630_000_000, "{e:?}");
        assert!(e.memory < 16_000_000_000, "{e:?}");
        assert!(e.time_limit_minutes() * 60 > 111, "{e:?}");
        let p = crate::placing::plan(Rules::default(), 18);
        let big = p.iter().max_by_key(|j| j.slots).unwrap();
        let e = placing(big);
        assert!(e.memory > big.slots && e.seconds > 60, "{e:?}");
    }
}
