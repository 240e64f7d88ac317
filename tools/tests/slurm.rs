//! The cluster recipes on a real one-node Slurm (`tools/scripts/slurm-check.sh`): a table plan
//! with moving and placing jobs through srun, cancelled midway and run again, gives one run's
//! bytes with every job inside its memory estimate; a mill-match `sbatch --array` merged equals
//! the single run. It installs and starts Slurm, so it runs only where asked
//! (`MILLSTONE_SLURM=1`, which `.ci/run` sets; it needs root) and says so when skipped.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn plans_and_match_arrays_run_on_a_real_slurm() {
    if std::env::var("MILLSTONE_SLURM").map_or(true, |v| v != "1") {
        eprintln!("SKIPPED: set MILLSTONE_SLURM=1 to run the Slurm check (it needs root)");
        return;
    }
    let tb = PathBuf::from(env!("CARGO_BIN_EXE_mill-tb"));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm-check.sh");
    let work = std::env::temp_dir().join(format!("millstone-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let out = Command::new("bash")
        .arg(script)
        .arg(&work)
        .env("MILL_TB", &tb)
        .env("MILL_MATCH", env!("CARGO_BIN_EXE_mill-match"))
        .output()
        .expect("run slurm-check.sh");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "slurm-check.sh failed:\n{text}");
    assert!(text.contains("slurm-check: all held"), "{text}");
    assert!(text.contains("identical: 12 games"), "{text}");
    // The marker .ci/run checks: the Slurm check ran and passed.
    let target = tb.parent().unwrap().parent().unwrap();
    std::fs::write(target.join("slurm-check.ok"), text).unwrap();
    let _ = std::fs::remove_dir_all(&work);
}
