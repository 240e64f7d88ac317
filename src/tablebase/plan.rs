//! The jobs of a generation run and their dependencies.
//!
//! A *job* solves sub-spaces (w, b) and (b, w) together (one table when w == b), named `WvB`
//! with `w <= b`. Its inputs are the finished sub-spaces its mills lead to, (b - 1, w) and
//! (w - 1, b) where those have three pieces a side, which belong to the jobs of one piece
//! fewer. `mill-tb plan` writes this graph as a Makefile or as JSON, so that independent jobs
//! run in parallel (`make -j`, or on a cluster).

use super::format::file_name;
use super::index::SubIndex;
use crate::types::Rules;

/// One job: solve (w, b) and (b, w).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The rules.
    pub rules: Rules,
    /// The smaller side.
    pub w: u8,
    /// The larger side.
    pub b: u8,
    /// The sub-spaces it writes: (w, b), and (b, w) when w != b.
    pub tables: Vec<(u8, u8)>,
    /// The finished sub-spaces it reads.
    pub reads: Vec<(u8, u8)>,
    /// The jobs that write them, as (w, b) with w <= b.
    pub inputs: Vec<(u8, u8)>,
}

/// The job that writes sub-space (w, b).
pub fn job_of(w: u8, b: u8) -> (u8, u8) {
    (w.min(b), w.max(b))
}

impl Job {
    /// The job of sub-space (w, b) (either order).
    pub fn new(rules: Rules, w: u8, b: u8) -> Job {
        let (w, b) = job_of(w, b);
        let tables = if w == b {
            vec![(w, b)]
        } else {
            vec![(w, b), (b, w)]
        };
        let mut reads: Vec<(u8, u8)> = tables
            .iter()
            .filter(|&&(_, y)| y > 3)
            .map(|&(x, y)| (y - 1, x))
            .collect();
        reads.sort_unstable();
        reads.dedup();
        let mut inputs: Vec<(u8, u8)> = reads.iter().map(|&(x, y)| job_of(x, y)).collect();
        inputs.sort_unstable();
        inputs.dedup();
        Job {
            rules,
            w,
            b,
            tables,
            reads,
            inputs,
        }
    }

    /// `WvB`.
    pub fn name(&self) -> String {
        format!("{}v{}", self.w, self.b)
    }

    /// The file names it writes, the one of (w, b) last (written last, so that its presence
    /// means the job is done).
    pub fn files(&self) -> Vec<String> {
        self.tables
            .iter()
            .rev()
            .map(|&(x, y)| file_name(self.rules, x, y))
            .collect()
    }

    /// Slots of its tables.
    pub fn slots(&self) -> u64 {
        self.tables
            .iter()
            .map(|&(x, y)| SubIndex::new(self.rules.variant, x, y).len() as u64)
            .sum()
    }
}

/// Every job with at most `max_pieces` pieces on the board and `max_side` a side, in an order
/// where each job's inputs come before it (by total pieces, then the smaller side).
pub fn plan(rules: Rules, max_pieces: u8, max_side: u8) -> Vec<Job> {
    let max_side = max_side.min(rules.variant.pieces());
    let mut jobs = Vec::new();
    for total in 6..=max_pieces.min(2 * max_side) {
        for w in 3..=total / 2 {
            let b = total - w;
            if b <= max_side {
                jobs.push(Job::new(rules, w, b));
            }
        }
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Variant;

    #[test]
    fn inputs_come_first() {
        let jobs = plan(Rules::new(Variant::Nine, true), 18, 9);
        assert_eq!(jobs.len(), 28);
        for (i, j) in jobs.iter().enumerate() {
            for inp in &j.inputs {
                assert!(jobs[..i].iter().any(|k| (k.w, k.b) == *inp), "{}", j.name());
            }
        }
        let j = Job::new(Rules::new(Variant::Nine, true), 4, 3);
        assert_eq!(j.name(), "3v4");
        assert_eq!(j.reads, vec![(3, 3)]);
        let j = Job::new(Rules::new(Variant::Nine, true), 4, 5);
        assert_eq!(j.reads, vec![(3, 5), (4, 4)]);
        assert_eq!(j.inputs, vec![(3, 5), (4, 4)]);
    }
}
