//! `mill-tb setup` through the binary: a partial set of nine into a fresh data directory that
//! the engine then uses with no option; a second run does nothing; a removed file is made
//! again; a run killed midway resumes to the same files; a budget too small to keep tables
//! between jobs makes the same files holding none; budgets too small are refused at once
//! with the figures; progress is plain lines when stderr is not a terminal.

mod common;
use common::{args, real_engine, scratch};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const TB: &str = env!("CARGO_BIN_EXE_mill-tb");

/// `mill-tb` with `MILLSTONE_DATA` set to `data`.
fn tb(data: &Path, a: &[&str]) -> Output {
    Command::new(TB)
        .args(args(a))
        .env("MILLSTONE_DATA", data)
        .stdin(Stdio::null())
        .output()
        .expect("run mill-tb")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every file of a directory with an FNV-1a checksum of its bytes.
fn checksums(dir: &Path) -> BTreeMap<String, u64> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            let h = std::fs::read(e.path())
                .unwrap()
                .iter()
                .fold(0xcbf29ce484222325u64, |h, &b| {
                    (h ^ b as u64).wrapping_mul(0x100000001b3)
                });
            (e.file_name().to_string_lossy().into_owned(), h)
        })
        .collect()
}

/// One setup of nine up to 8 pieces into a fresh data directory, shared by the tests.
fn nine8() -> &'static Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let data = scratch("setup-nine8");
        let out = tb(&data, &["setup", "--variant", "nine", "--max-pieces", "8"]);
        let err = text(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains("5 steps, 5 left"), "{err}");
        assert!(err.contains("needs about"), "{err}");
        assert!(err.contains("setup done"), "{err}");
        assert!(err.contains("the engine and mill-gui find them"), "{err}");
        // Plain lines: stderr is a pipe here, so no bar and no cursor movement.
        assert!(!err.contains('\r') && !err.contains('\u{1b}'), "{err:?}");
        data
    })
}

#[test]
fn setup_makes_tables_the_engine_finds_with_no_option() {
    let data = nine8();
    let tables = data.join("tables");
    let files = checksums(&tables);
    for f in ["nine-fly-3v3.mtb", "nine-fly-4v4.mtb", "nine-fly-3v5.mtb"] {
        assert!(files.contains_key(f), "{f} in {files:?}");
    }
    assert!(
        files.keys().any(|f| f.ends_with(".mpt")),
        "placing sectors in {files:?}"
    );
    assert!(!files.keys().any(|f| f.ends_with(".tmp")), "{files:?}");

    let Some(engine) = real_engine() else { return };
    let mut child = Command::new(engine)
        .env("MILLSTONE_DATA", data)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A 4 v 4 position of the moving phase: in the tables.
    writeln!(
        stdin,
        "uci\nisready\nposition fen W.W/.B./..W/B...../.../.B./B.W w 0 0 0 30\ngo depth 3"
    )
    .unwrap();
    stdin.flush().unwrap();
    let mut lines = Vec::new();
    for l in BufReader::new(child.stdout.take().unwrap()).lines() {
        let l = l.unwrap();
        let done = l.starts_with("bestmove");
        lines.push(l);
        if done {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let all = lines.join("\n");
    assert!(
        all.contains("info string endgame tables: 6 sub-spaces"),
        "{all}"
    );
    assert!(all.contains("info string placing tables:"), "{all}");
    let tbhits: u64 = lines
        .iter()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            w.position(|x| x == "tbhits")?;
            w.next()?.parse().ok()
        })
        .max()
        .unwrap_or(0);
    assert!(tbhits > 0, "{all}");
}

#[test]
fn a_second_run_does_nothing_and_a_removed_file_is_made_again() {
    let data = scratch("setup-resume");
    let tables = data.join("tables");
    std::fs::create_dir_all(&tables).unwrap();
    for (f, _) in checksums(&nine8().join("tables")) {
        std::fs::copy(nine8().join("tables").join(&f), tables.join(&f)).unwrap();
    }
    let want = checksums(&tables);
    let out = tb(&data, &["setup", "--max-pieces", "8"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("5 steps, 0 left"), "{err}");
    assert!(err.contains("valid files exist, skipped"), "{err}");
    assert!(
        !err.contains(" levels, setup "),
        "nothing solved again: {err}"
    );
    assert_eq!(checksums(&tables), want);

    std::fs::remove_file(tables.join("nine-fly-3v5.mtb")).unwrap();
    let out = tb(&data, &["setup", "--max-pieces", "8"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("5 steps, 1 left"), "{err}");
    assert!(err.contains("3v5: solved"), "{err}");
    assert_eq!(checksums(&tables), want);
}

#[test]
fn a_killed_setup_resumes_to_the_same_files() {
    let want = checksums(&nine8().join("tables"));
    let data = scratch("setup-killed");
    let tables = data.join("tables");
    let mut child = Command::new(TB)
        .args(["setup", "--max-pieces", "8"])
        .env("MILLSTONE_DATA", &data)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once the first job's file is there, before the last step's.
    let t0 = Instant::now();
    while !tables.join("nine-fly-3v3.mtb").exists() && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = checksums(&tables);
    assert!(
        partial.len() < want.len(),
        "killed before the end: {partial:?}"
    );
    // Nothing that looks finished is wrong: every finished file is already the final one.
    for (f, h) in &partial {
        if !f.ends_with(".tmp") {
            assert_eq!(Some(h), want.get(f), "{f}");
        }
    }
    let out = tb(&data, &["setup", "--max-pieces", "8"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut got = checksums(&tables);
    got.retain(|f, _| !f.ends_with(".tmp"));
    assert_eq!(got, want);
}

#[test]
fn a_budget_below_keeping_tables_makes_the_same_files_holding_none() {
    let want = checksums(&nine8().join("tables"));
    let data = scratch("setup-lean");
    // Up to 8 pieces, keeping tables between jobs is estimated at 576 MB, holding none at
    // less than 400 MB.
    let out = tb(&data, &["setup", "--max-pieces", "8", "--memory", "400M"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("each job reads its inputs from the files"),
        "{err}"
    );
    assert_eq!(checksums(&data.join("tables")), want);
    // With room to keep them, nothing is said about it.
    let out = tb(nine8(), &["setup", "--max-pieces", "8"]);
    assert!(!text(&out.stderr).contains("reads its inputs"));
}

#[test]
fn budgets_too_small_are_refused_at_once_with_the_figures() {
    let data = scratch("setup-refused");
    let t0 = Instant::now();
    let out = tb(&data, &["setup", "--max-pieces", "8", "--memory", "10M"]);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("not enough resources, nothing done: memory:")
            && err.contains("the budget is 10 MB"),
        "{err}"
    );
    let out = tb(&data, &["setup", "--max-pieces", "8", "--disk", "1M"]);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("disk:") && err.contains("1 MB available"),
        "{err}"
    );
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert!(!data.join("tables").exists(), "nothing written");

    // generate and book take a budget too.
    let out = tb(&data, &["generate", "--max-pieces", "8", "--memory", "10M"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("memory:"),
        "{}",
        text(&out.stderr)
    );
    let out = tb(
        &data,
        &[
            "book",
            "--memory",
            "1G",
            "--hash-mb",
            "4096",
            "--plies",
            "1",
        ],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("not enough memory, nothing done"),
        "{}",
        text(&out.stderr)
    );

    // Bad input: a clear error, no crash.
    for bad in [
        vec!["setup", "--memory", "lots"],
        vec!["setup", "--max-pieces", "5"],
        vec!["setup", "--max-pieces", "19"],
        vec!["setup", "--variant", "ten"],
    ] {
        let out = tb(&data, &bad);
        assert_eq!(
            out.status.code(),
            Some(if bad[1] == "--variant" { 2 } else { 1 }),
            "{bad:?}"
        );
        assert!(
            text(&out.stderr).contains("--"),
            "{bad:?}: {}",
            text(&out.stderr)
        );
    }
}
