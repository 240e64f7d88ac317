//! Small tables for the tests, made in a fresh directory: the moving phase's sub-spaces up to
//! `material` pieces (seconds for 8), then every placing sector of at most that much material.

use millstone::tablebase::{file_name, placing, plan, solve_pair, Table};
use millstone::Rules;
use std::collections::HashMap;
use std::path::PathBuf;

pub fn make(rules: Rules, material: u8, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("millstone-tables-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut solved: HashMap<(u8, u8), Table> = HashMap::new();
    for job in plan(rules, material, rules.variant.pieces()) {
        let (ts, _) = solve_pair(rules, job.w, job.b, &solved, &mut |_| {}).unwrap();
        for t in ts {
            t.write(&dir.join(file_name(rules, t.w, t.b))).unwrap();
            solved.insert((t.w, t.b), t);
        }
    }
    let reports = placing::generate(&dir, rules, material, |_| {}).unwrap();
    assert!(!reports.is_empty() && reports.iter().all(|r| !r.kept));
    dir
}
