//! Strength levels through a real match: the engine's `Skill Level 0` must lose most games to
//! the beginner-like `greedy` player (mills first, else blocks, else random).

mod common;

use common::*;

#[test]
fn level_0_scores_below_half_against_greedy() {
    let Some(exe) = real_engine() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must build the engine for this test"
        );
        return;
    };
    let d = scratch("skill");
    let jsonl = d.join("games.jsonl");
    let (stdout, _) = run_ok(
        MATCH,
        &args(&[
            "--engine",
            &format!("cmd={}", exe.display()),
            "name=level0",
            "option.Skill Level=0",
            "option.Skill Seed=5",
            "--engine",
            "builtin=greedy",
            "--movetime",
            "100",
            "--games",
            "40",
            "--random-opening",
            "4",
            "--seed",
            "3",
            "--jsonl",
            jsonl.to_str().unwrap(),
            "-q",
        ]),
    );
    // Every game replays legally to its recorded result.
    assert_eq!(records(&jsonl).len(), 40);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("level0 vs greedy"))
        .unwrap_or_else(|| panic!("no summary in {stdout}"));
    let score: f64 = line
        .split("score ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("no score in {line}"));
    assert!(score < 0.5, "level 0 scored {score} against greedy: {line}");
}
