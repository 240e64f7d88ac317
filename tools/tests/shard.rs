//! Sharded runs: `mill-match --shard K/N` and `mill-match merge`, `mill-selfplay --shard K/N`
//! and `mill-selfplay merge`. The shards of a deterministic match merge to exactly the
//! results of one run of the whole match.

mod common;
use common::*;
use millstone_tools::record::GameRecord;
use std::path::PathBuf;

/// A deterministic two-engine match (seeded random test engines at depth 1) with an SPRT
/// that stays undecided, so that a single run plays every game.
fn two_engine_match(extra: &[&str]) -> Vec<String> {
    let mut a = args(&[
        "--engine",
        &format!("cmd={TESTENGINE}"),
        "arg=--seed",
        "arg=1",
        "name=a",
        "--engine",
        &format!("cmd={TESTENGINE}"),
        "option.Seed=2",
        "name=b",
        "--depth",
        "1",
        "--games",
        "20",
        "--random-opening",
        "4",
        "--seed",
        "3",
        "--adjudicate-draw-plies",
        "60",
        "--sprt",
        "elo0=-5",
        "elo1=5",
        "alpha=0.05",
        "beta=0.05",
        "-q",
    ]);
    a.extend(args(extra));
    a
}

/// What a game is, without the fields that depend on when and where it ran.
fn key(
    r: &GameRecord,
) -> (
    usize,
    usize,
    String,
    String,
    String,
    Vec<String>,
    String,
    String,
) {
    (
        r.game,
        r.pair,
        r.white.clone(),
        r.black.clone(),
        r.fen.clone(),
        r.moves.clone(),
        r.result.clone(),
        r.reason.clone(),
    )
}

fn jsonl(d: &std::path::Path, name: &str) -> PathBuf {
    d.join(name)
}

#[test]
fn two_shards_merge_to_the_single_run() {
    let d = scratch("shards2");
    let all = jsonl(&d, "all.jsonl");
    let (single, _) = run_ok(
        MATCH,
        &two_engine_match(&["--concurrency", "2", "--jsonl", all.to_str().unwrap()]),
    );
    // The figures are those of a real, undecided match (not all wins), so that the
    // comparison covers Elo, LOS, pentanomial and LLR text.
    assert!(single.contains("Finished 20 of 20 games"), "{single}");
    assert!(single.contains("undecided"), "{single}");
    assert!(!single.contains("inf"), "{single}");
    let mut shard_files = Vec::new();
    let mut shard_games = 0;
    for k in 1..=2 {
        let f = jsonl(&d, &format!("s{k}.jsonl"));
        let (out, _) = run_ok(
            MATCH,
            &two_engine_match(&["--shard", &format!("{k}/2"), "--jsonl", f.to_str().unwrap()]),
        );
        assert!(
            out.contains(&format!("shard {k}/2 of a 20-game match")),
            "{out}"
        );
        let recs = records(&f);
        for r in &recs {
            let info = r.match_info.as_ref().unwrap();
            assert_eq!((info.shard, info.shards, info.scheduled), (k, 2, 20));
            // Both games of an opening pair are in the same shard.
            assert_eq!((r.pair - 1) % 2 + 1, k, "{r:?}");
        }
        shard_games += recs.len();
        shard_files.push(f);
    }
    assert_eq!(shard_games, 20);
    // Merge in the "wrong" order: the files may come in any order.
    let merged = jsonl(&d, "merged.jsonl");
    let (out, err) = run_ok(
        MATCH,
        &args(&[
            "merge",
            shard_files[1].to_str().unwrap(),
            shard_files[0].to_str().unwrap(),
            "--jsonl",
            merged.to_str().unwrap(),
        ]),
    );
    assert_eq!(out, single, "merged summary\n{out}\nsingle run\n{single}");
    assert!(err.contains("merged 20 games from 2 file(s)"), "{err}");
    let (a, m) = (records(&all), records(&merged));
    let ka: Vec<_> = a.iter().map(key).collect();
    let km: Vec<_> = m.iter().map(key).collect();
    assert_eq!(ka, km, "the same games, in schedule order");
    // Merging one run's own records gives its summary again.
    let (again, _) = run_ok(MATCH, &args(&["merge", all.to_str().unwrap()]));
    assert_eq!(again, single);
}

#[test]
fn three_shards_of_a_round_robin() {
    let d = scratch("shards3");
    let base = [
        "--engine",
        "builtin=random",
        "--engine",
        "builtin=greedy",
        "--engine",
        &format!("cmd={TESTENGINE}"),
        "name=te",
        "--depth",
        "1",
        "--games",
        "5",
        "--random-opening",
        "3",
        "--seed",
        "9",
        "-q",
    ];
    let all = jsonl(&d, "all.jsonl");
    let mut a = args(&base);
    a.extend(args(&["--jsonl", all.to_str().unwrap()]));
    let (single, _) = run_ok(MATCH, &a);
    assert!(single.contains("rank"), "{single}");
    let mut files = Vec::new();
    for k in 1..=3 {
        let f = jsonl(&d, &format!("s{k}.jsonl"));
        let mut a = args(&base);
        a.extend(args(&[
            "--shard",
            &format!("{k}/3"),
            "--concurrency",
            "2",
            "--jsonl",
            f.to_str().unwrap(),
        ]));
        run_ok(MATCH, &a);
        files.push(f.to_str().unwrap().to_string());
    }
    let mut m = vec!["merge".to_string()];
    m.extend(files.iter().cloned());
    let (out, _) = run_ok(MATCH, &m);
    assert_eq!(out, single);
    // Two of three shards: the games of the third are reported missing.
    let (part, err) = run_ok(MATCH, &args(&["merge", &files[0], &files[2]]));
    assert!(part.starts_with("Finished 10 of 15 games"), "{part}");
    assert!(err.contains("5 of 15 games are missing"), "{err}");
}

#[test]
fn bad_merge_inputs_are_clear_errors() {
    let d = scratch("badmerge");
    let s1 = jsonl(&d, "s1.jsonl");
    let s2 = jsonl(&d, "s2.jsonl");
    let other = jsonl(&d, "other.jsonl");
    run_ok(
        MATCH,
        &two_engine_match(&["--shard", "1/2", "--jsonl", s1.to_str().unwrap()]),
    );
    run_ok(
        MATCH,
        &two_engine_match(&["--shard", "2/2", "--jsonl", s2.to_str().unwrap()]),
    );
    let mut a = two_engine_match(&["--shard", "2/2", "--jsonl", other.to_str().unwrap()]);
    let at = a.iter().position(|x| x == "--seed").unwrap();
    a[at + 1] = "4".into();
    run_ok(MATCH, &a);
    let fails = |a: &[&str], want: &[&str]| {
        let out = run(MATCH, &args(a));
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{a:?}: {err}");
        assert!(out.stdout.is_empty(), "{a:?}");
        assert!(!err.contains("panicked"), "{err}");
        for w in want {
            assert!(err.contains(w), "{a:?}: wanted '{w}' in: {err}");
        }
    };
    let (p1, p2, po) = (
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
        other.to_str().unwrap(),
    );
    let missing = d.join("missing.jsonl");
    fails(
        &["merge", p1, missing.to_str().unwrap()],
        &["cannot read", "missing.jsonl"],
    );
    fails(
        &["merge", p1, po],
        &["other.jsonl:1:", "another match", "seed 3 vs 4"],
    );
    fails(
        &["merge", p1, p2, p1],
        &["s1.jsonl:1:", "is also at", "given twice"],
    );
    // A bad line, reported with its line number.
    let text = std::fs::read_to_string(&s2).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(2, "{not json");
    let bad = d.join("bad.jsonl");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    fails(
        &["merge", p1, bad.to_str().unwrap()],
        &["bad.jsonl:3:", "not a game record"],
    );
    // A record without match parameters (as older versions wrote them).
    let mut v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    v.as_object_mut().unwrap().remove("match");
    let old = d.join("old.jsonl");
    std::fs::write(&old, format!("{v}\n")).unwrap();
    fails(
        &["merge", old.to_str().unwrap()],
        &["old.jsonl:1:", "no match parameters"],
    );
    // Shards of a different split of the same match.
    let s13 = jsonl(&d, "s13.jsonl");
    run_ok(
        MATCH,
        &two_engine_match(&["--shard", "1/3", "--jsonl", s13.to_str().unwrap()]),
    );
    fails(
        &["merge", p2, s13.to_str().unwrap()],
        &["another match", "2 vs 3 shards"],
    );
    let empty = d.join("empty.jsonl");
    std::fs::write(&empty, "\n").unwrap();
    fails(&["merge", empty.to_str().unwrap()], &["no game records"]);
    fails(&["merge"], &["FILES"]);
    // Bad shard arguments, and a shard without a seed (each would pick its own).
    let out = run(MATCH, &two_engine_match(&["--shard", "3/2"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad shard"));
    let mut a = two_engine_match(&["--shard", "1/2"]);
    let at = a.iter().position(|x| x == "--seed").unwrap();
    a.drain(at..at + 2);
    let out = run(MATCH, &a);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--shard needs --seed"));
}

fn selfplay(extra: &[&str]) -> (String, String) {
    let mut a = args(&[
        "--games",
        "5",
        "--depth",
        "2",
        "--random-opening",
        "4",
        "--seed",
        "7",
        "--threads",
        "2",
        "--hash",
        "2",
        "--max-plies",
        "80",
        "-q",
    ]);
    a.extend(args(extra));
    run_ok(SELFPLAY, &a)
}

#[test]
fn selfplay_shards_merge_to_the_single_run() {
    let d = scratch("selfplay-shards");
    let (single, _) = selfplay(&[]);
    let mut files = Vec::new();
    let mut games = Vec::new();
    for k in 1..=2 {
        let f = d.join(format!("s{k}.jsonl"));
        let (_, err) = selfplay(&["--shard", &format!("{k}/2"), "-o", f.to_str().unwrap()]);
        assert!(err.contains(&format!("shard {k}/2 of 5 games")), "{err}");
        let text = std::fs::read_to_string(&f).unwrap();
        let mut g: Vec<u64> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["game"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        g.dedup();
        games.push(g);
        files.push(f.to_str().unwrap().to_string());
    }
    assert_eq!(games, vec![vec![1, 3, 5], vec![2, 4]]);
    let merged = d.join("merged.jsonl");
    run_ok(
        SELFPLAY,
        &args(&[
            "merge",
            &files[1],
            &files[0],
            "-o",
            merged.to_str().unwrap(),
        ]),
    );
    assert_eq!(std::fs::read_to_string(&merged).unwrap(), single);
    // To stdout, and the errors.
    let (out, _) = run_ok(SELFPLAY, &args(&["merge", &files[0], &files[1]]));
    assert_eq!(out, single);
    let whole = d.join("whole.jsonl");
    std::fs::write(&whole, &single).unwrap();
    for (a, want) in [
        (
            vec![files[0].clone(), whole.to_str().unwrap().to_string()],
            "not shards of one run",
        ),
        (vec![files[0].clone(), files[0].clone()], "appears twice"),
        (
            vec![d.join("none").to_str().unwrap().to_string()],
            "cannot read",
        ),
    ] {
        let mut m = vec!["merge".to_string()];
        m.extend(a);
        let out = run(SELFPLAY, &m);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{err}");
    }
}
