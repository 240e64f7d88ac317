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

    // The games need the complete placing tables: refused with a reason, nothing written.
    let g = dir.join("games.bin");
    let r = run(
        TB,
        &args(&["sample", "--dir", d, "-o", g.to_str().unwrap(), "-n", "10"]),
    );
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("placing table"));
    assert!(!g.exists());

    // A small network trained on the samples; the engine loads it with EvalFile.
    let net = dir.join("tiny.nnue");
    let (out, err) = run_ok(
        TRAIN,
        &args(&[
            "--data",
            dir.join("a.bin").to_str().unwrap(),
            "-o",
            net.to_str().unwrap(),
            "--epochs",
            "1",
            "--batch",
            "256",
            "--holdout",
            "0.1",
        ]),
    );
    assert!(out.contains("checksum"), "{out}\n{err}");
    assert!(err.contains("epoch 1"), "{err}");
    let loaded = millstone::nnue::file::load(&net).unwrap();
    assert!(
        loaded.description.contains("a.bin (3000 samples"),
        "{}",
        loaded.description
    );

    // Damaged sample files are refused by mill-train with a message.
    let bad = dir.join("bad.bin");
    std::fs::write(&bad, &a[..100]).unwrap();
    let r = run(
        TRAIN,
        &args(&["--data", bad.to_str().unwrap(), "-o", "/dev/null"]),
    );
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("bad.bin"));
}
