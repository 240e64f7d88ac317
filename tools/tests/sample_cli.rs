//! `mill-tb sample` and `mill-train` through the real binaries, on tables up to 8 pieces: the
//! labels equal `mill-tb probe`'s verdicts, a seed gives the same file, bad input is refused,
//! and a network trained on the samples loads in the engine.

mod common;
use common::{args, run, run_ok, scratch};
use millstone::tablebase::sample;

const TB: &str = env!("CARGO_BIN_EXE_mill-tb");
const TRAIN: &str = env!("CARGO_BIN_EXE_mill-train");

#[test]
fn samples_agree_with_probe_and_train_a_network() {
    let dir = scratch("sample-cli");
    let d = dir.to_str().unwrap();
    run_ok(
        TB,
        &args(&["generate", "--max-pieces", "8", "--placing", "--dir", d]),
    );

    // Text samples, uniform over the tables present (16 from each table picked), with
    // distances: each label is the probe's verdict (and the distance its "next mill in").
    let txt = dir.join("s.txt");
    let (out, _) = run_ok(
        TB,
        &args(&[
            "sample",
            "--dir",
            d,
            "-o",
            txt.to_str().unwrap(),
            "-n",
            "320",
            "--distribution",
            "uniform",
            "--format",
            "text",
            "--distances",
            "--seed",
            "3",
        ]),
    );
    assert!(out.starts_with("320 samples"), "{out}");
    let text = std::fs::read_to_string(&txt).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 320);
    let (mut placing, mut moving) = (0, 0);
    for line in &lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 4, "{line}");
        let (probe, _) = run_ok(TB, &args(&["probe", "--dir", d, "--fen", f[0]]));
        let verdict = probe
            .lines()
            .find_map(|l| l.strip_prefix("verdict: "))
            .unwrap_or_else(|| panic!("no verdict for {line}:\n{probe}"));
        assert!(verdict.starts_with(f[1]), "{line}: probe says {verdict}");
        if f[2] != "-" {
            assert!(
                verdict.contains(&format!("next mill in {} plies", f[2])),
                "{line}: probe says {verdict}"
            );
        }
        match f[3] {
            "placing" => placing += 1,
            "moving" => moving += 1,
            other => panic!("phase {other}"),
        }
    }
    assert!(
        placing > 0 && moving > 0,
        "{placing} placing, {moving} moving"
    );

    // Binary samples: the same seed gives the same bytes; the records parse back.
    let bin = |name: &str, seed: &str| {
        let p = dir.join(name);
        run_ok(
            TB,
            &args(&[
                "sample",
                "--dir",
                d,
                "-o",
                p.to_str().unwrap(),
                "-n",
                "3000",
                "--distribution",
                "uniform",
                "--seed",
                seed,
            ]),
        );
        std::fs::read(p).unwrap()
    };
    let a = bin("a.bin", "9");
    assert_eq!(a, bin("b.bin", "9"));
    assert_ne!(a, bin("c.bin", "10"));
    let parsed = sample::from_file_bytes(&a).unwrap();
    assert_eq!(parsed.len(), 3000);
    assert!(sample::from_file_bytes(&a[..a.len() - 3]).is_err());

    // One phase only: every line of that phase, the labels still the probe's.
    for phase in ["placing", "moving"] {
        let p = dir.join(format!("{phase}.txt"));
        run_ok(
            TB,
            &args(&[
                "sample",
                "--dir",
                d,
                "-o",
                p.to_str().unwrap(),
                "-n",
                "200",
                "--distribution",
                "uniform",
                "--format",
                "text",
                "--phase",
                phase,
                "--seed",
                "4",
            ]),
        );
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.lines().count(), 200);
        for (i, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f[3], phase, "{line}");
            if i % 50 == 0 {
                let (probe, _) = run_ok(TB, &args(&["probe", "--dir", d, "--fen", f[0]]));
                assert!(
                    probe.contains(&format!("verdict: {}", f[1])),
                    "{line}: {probe}"
                );
            }
        }
    }
    let r = run(
        TB,
        &args(&["sample", "--dir", d, "-o", "/dev/null", "--phase", "both"]),
    );
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("unknown phase"));

    // The games and the search's positions need the complete placing tables, and a damaged
    // network is no network: each refused with a reason, nothing written.
    let g = dir.join("games.bin");
    let bad = dir.join("bad.nnue");
    std::fs::write(&bad, b"not a network").unwrap();
    let refusals: [(&[&str], &str); 4] = [
        (&[], "placing table"),
        (
            &["--eval-file", bad.to_str().unwrap()],
            "--distribution search",
        ),
        (&["--distribution", "search"], "placing table"),
        (
            &[
                "--distribution",
                "search",
                "--eval-file",
                bad.to_str().unwrap(),
            ],
            "network",
        ),
    ];
    for (extra, why) in refusals {
        let mut a = vec!["sample", "--dir", d, "-o", g.to_str().unwrap(), "-n", "10"];
        a.extend_from_slice(extra);
        let r = run(TB, &args(&a));
        assert!(!r.status.success(), "{extra:?}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains(why), "{extra:?}: {err}");
        assert!(!g.exists());
    }

    // One search's samples from a moving root of these tables: as many as the search's
    // evaluations make (some hundreds), each label the tables' (and so the probe's), positions
    // the search can reach from the root (no more pieces, the same rules), none over, none a
    // null move's (every one has a table), and the same seed gives the same samples.
    let tb = millstone::tablebase::Tablebase::open(&dir).unwrap();
    let rules = millstone::Rules::new(millstone::Variant::Nine, true);
    let root =
        millstone::Position::from_fen("WW./.W./..W/B..B../.../.B./B.. w 0 0 0 20", rules).unwrap();
    let opts = sample::SampleOptions {
        rules,
        distribution: sample::Distribution::Search,
        seed: 1,
        distances: false,
        phase: sample::Phase::Any,
    };
    let net = millstone::nnue::builtin(millstone::Rules::default());
    let first = sample::search_samples(&tb, &opts, &root, net.as_deref(), 5);
    assert!(first.len() >= 50, "{} samples", first.len());
    assert_eq!(
        first,
        sample::search_samples(&tb, &opts, &root, net.as_deref(), 5)
    );
    assert_ne!(
        first,
        sample::search_samples(&tb, &opts, &root, net.as_deref(), 6)
    );
    let mut decided = 0;
    for (i, s) in first.iter().enumerate() {
        let pos = s.position();
        assert!(pos.outcome().is_none(), "{}", pos.to_fen());
        assert!(s.white.count_ones() <= 4 && s.black.count_ones() <= 4);
        assert_eq!(s.rules, rules);
        let truth = match tb.wdl(&pos).expect("a table holds it").real() {
            millstone::tablebase::Wdl::Win => 1,
            millstone::tablebase::Wdl::Loss => -1,
            _ => 0,
        };
        assert_eq!(s.result, truth, "{}", pos.to_fen());
        decided += (s.result != 0) as usize;
        if i % 40 == 0 {
            let (probe, _) = run_ok(TB, &args(&["probe", "--dir", d, "--fen", &pos.to_fen()]));
            let word = ["loss", "draw", "win"][(s.result + 1) as usize];
            assert!(probe.contains(&format!("verdict: {word}")), "{probe}");
        }
    }
    assert!(decided > 0, "the search's lines reach decided positions");

    // A small network trained on the samples; the engine loads it with EvalFile.
    let a_bin = dir.join("a.bin");
    let train_tiny = |out: &std::path::Path, extra: &[&str]| {
        let mut a = vec![
            "--data",
            a_bin.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--epochs",
            "1",
            "--batch",
            "256",
            "--holdout",
            "0.1",
        ];
        a.extend_from_slice(extra);
        run_ok(TRAIN, &args(&a))
    };
    let net = dir.join("tiny.nnue");
    let (out, err) = train_tiny(&net, &[]);
    assert!(out.contains("checksum"), "{out}\n{err}");
    assert!(err.contains("epoch 1"), "{err}");
    let loaded = millstone::nnue::file::load(&net).unwrap();
    assert!(
        loaded.description.contains("a.bin (3000 samples"),
        "{}",
        loaded.description
    );

    // A warm start (--init) at a step too small to move a weight gives back the network it
    // started from: the same accuracy, hand for hand, where a fresh start would differ.
    let check = |net: &std::path::Path| {
        run_ok(
            TRAIN,
            &args(&[
                "--data",
                dir.join("a.bin").to_str().unwrap(),
                "--check",
                net.to_str().unwrap(),
            ]),
        )
        .0
    };
    let warm = dir.join("warm.nnue");
    let (out, err) = train_tiny(&warm, &["--init", net.to_str().unwrap(), "--lr", "1e-12"]);
    assert!(err.contains("starting from"), "{out}\n{err}");
    assert_eq!(check(&warm), check(&net));
    let loaded = millstone::nnue::file::load(&warm).unwrap();
    assert!(
        loaded.description.contains("from network"),
        "{}",
        loaded.description
    );
    let cold = dir.join("cold.nnue");
    train_tiny(&cold, &["--lr", "1e-12", "--seed", "2"]);
    assert_ne!(check(&cold), check(&net));
    // The check reports each stage of the game that the samples reach.
    assert!(check(&net).contains("\nstage "), "{}", check(&net));

    // A set of dense layers per stage, each starting as a copy of the one-set network's: at a
    // step too small to move a weight it evaluates as that network did.
    let staged = dir.join("staged.nnue");
    train_tiny(
        &staged,
        &[
            "--init",
            net.to_str().unwrap(),
            "--lr",
            "1e-12",
            "--buckets",
            "8",
        ],
    );
    assert_eq!(millstone::nnue::file::load(&staged).unwrap().buckets, 8);
    assert_eq!(check(&staged), check(&net));
    // A training on a.bin with these arguments is refused with this message.
    let refused = |extra: &[&str], says: &str| {
        let data = dir.join("a.bin");
        let mut a = vec!["--data", data.to_str().unwrap(), "-o", "/dev/null"];
        a.extend_from_slice(extra);
        let r = run(TRAIN, &args(&a));
        assert!(!r.status.success());
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains(says), "{err}");
    };
    refused(&["--buckets", "3"], "--buckets 3");
    refused(&["--hidden", "192"], "--hidden 192");
    refused(
        &["--init", net.to_str().unwrap(), "--hidden", "256"],
        "the network of --init has 128 units",
    );

    // The wide first layer: written in 8 bits (format version 3), read back as trained.
    let wide = dir.join("wide.nnue");
    train_tiny(&wide, &["--hidden", "256", "--buckets", "8"]);
    let loaded = millstone::nnue::file::load(&wide).unwrap();
    assert_eq!((loaded.hidden, loaded.buckets), (256, 8));
    assert_eq!(std::fs::read(&wide).unwrap()[8], 3);
    assert!(check(&wide).contains("\nstage "), "{}", check(&wide));

    // Damaged sample files are refused by mill-train with a message.
    let bad = dir.join("bad.bin");
    std::fs::write(&bad, &a[..100]).unwrap();
    let r = run(
        TRAIN,
        &args(&["--data", bad.to_str().unwrap(), "-o", "/dev/null"]),
    );
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("bad.bin"));
    // And so is a damaged network to start from.
    refused(
        &["--init", bad.to_str().unwrap()],
        "not a valid network file",
    );
}

/// Placing positions as games reach them (`--distribution games --phase placing`) need the
/// complete tables: `MILLSTONE_FULL_TABLES=DIR cargo test --release -p millstone-tools --test
/// sample_cli -- --ignored`. Every one is a placing position, and they are the placing
/// positions of the same games with every phase kept (the same seed, the same games until
/// the moving phase begins: the break costs no game its placing phase).
#[test]
#[ignore = "needs the complete tables of nine in MILLSTONE_FULL_TABLES"]
fn games_of_one_phase_on_the_complete_tables() {
    let full = std::env::var("MILLSTONE_FULL_TABLES").expect("MILLSTONE_FULL_TABLES=DIR");
    let dir = scratch("sample-phase");
    let bin = |name: &str, phase: &str, n: &str| {
        let p = dir.join(name);
        run_ok(
            TB,
            &args(&[
                "sample",
                "--dir",
                &full,
                "-o",
                p.to_str().unwrap(),
                "-n",
                n,
                "--seed",
                "77",
                "--phase",
                phase,
            ]),
        );
        sample::from_file_bytes(&std::fs::read(p).unwrap()).unwrap()
    };
    let placing = bin("p.bin", "placing", "3000");
    assert_eq!(placing.len(), 3000);
    assert!(placing.iter().all(|s| s.is_placing()));
    let any = bin("a.bin", "any", "3000");
    assert!(any.iter().any(|s| !s.is_placing()));
    let firsts: Vec<_> = any.iter().take_while(|s| s.is_placing()).collect();
    assert!(!firsts.is_empty());
    assert!(placing.iter().zip(&firsts).all(|(a, b)| a == *b));
    let moving = bin("m.bin", "moving", "3000");
    assert!(moving.iter().all(|s| !s.is_placing()));
}
