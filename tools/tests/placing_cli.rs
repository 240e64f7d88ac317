//! `mill-tb` on the placing-phase tables: generate, plan, info, verify, probe and crosscheck
//! (random positions, a book and a proof book) through the real binary, a sector made again alone is byte-identical, and a damaged file is
//! found by `verify`.

mod common;
use common::{args, run, run_ok, scratch};

const TB: &str = env!("CARGO_BIN_EXE_mill-tb");

#[test]
fn placing_tables_through_mill_tb() {
    let dir = scratch("placing-cli");
    let d = dir.to_str().unwrap();
    let (_, err) = run_ok(
        TB,
        &args(&["generate", "--max-pieces", "8", "--placing", "--dir", d]),
    );
    let sectors: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".mpt"))
        .collect();
    assert!(sectors.len() > 10, "{sectors:?}\n{err}");

    // The plan lists every sector made, with its inputs.
    let (json, _) = run_ok(
        TB,
        &args(&["plan", "--max-pieces", "8", "--placing", "--format", "json"]),
    );
    let plan: serde_json::Value = serde_json::from_str(&json).unwrap();
    let jobs = plan["placing_jobs"].as_array().unwrap();
    for s in &sectors {
        let job = jobs
            .iter()
            .find(|j| j["files"][0].as_str() == Some(s.as_str()))
            .unwrap_or_else(|| panic!("{s} not in the plan"));
        assert!(!job["inputs"].as_array().unwrap().is_empty(), "{job}");
    }

    // info and a whole verify cover the placing sectors.
    let (info, _) = run_ok(TB, &args(&["info", "--dir", d]));
    assert!(info.contains("p17-"), "{info}");
    let (out, err) = run_ok(TB, &args(&["verify", "--dir", d]));
    assert!(!format!("{out}{err}").contains("mismatch"), "{out}{err}");

    // A probe of a late placing position values every placement.
    let fen = "W../.../.../B....B/.../W../... w 2 2 0 8";
    let (probe, _) = run_ok(TB, &args(&["probe", "--dir", d, "--fen", fen]));
    assert!(probe.contains("verdict"), "{probe}");

    // The solver agrees on random positions of every ply that has a sector.
    let (_, err) = run_ok(
        TB,
        &args(&[
            "crosscheck",
            "--dir",
            d,
            "--per-ply",
            "25",
            "--seconds",
            "20",
        ]),
    );
    assert!(err.contains(" 0 mismatches"), "{err}");
    assert!(err.contains("ply 17: 25 positions agree"), "{err}");

    // A book made by the solver from a late position (the solver reads only the moving
    // phase's tables) has the tables' value and keeping moves in each of its positions.
    let book = dir.join("book.bin");
    let b = book.to_str().unwrap();
    run_ok(
        TB,
        &args(&[
            "book",
            "--dir",
            d,
            "--fen",
            fen,
            "--plies",
            "3",
            "--out",
            b,
            "--hash-mb",
            "64",
        ]),
    );
    let err = book_crosscheck(d, b, 3, fen, &[]);
    assert!(err.contains("book ply 2: "), "{err}");
    assert!(err.contains(" 0 mismatches"), "{err}");
    // A proof book (`book --for black` from a position black wins) is walked as it was made:
    // one winning move of Black's, in the tables too, then every White reply.
    let won = ".B./..W/W../....../.../.../.W. b 1 2 0 8";
    let proof = dir.join("proof.bin");
    let p = proof.to_str().unwrap();
    let (said, _) = run_ok(
        TB,
        &args(&[
            "book",
            "--dir",
            d,
            "--fen",
            won,
            "--plies",
            "3",
            "--for",
            "black",
            "--out",
            p,
            "--hash-mb",
            "64",
        ]),
    );
    assert!(said.contains("for Black"), "{said}");
    let err = book_crosscheck(d, p, 3, won, &["--for", "black"]);
    assert!(err.contains("book ply 0: 1 positions"), "{err}");
    assert!(err.contains("book ply 1: 1 positions"), "{err}");
    assert!(err.contains(" 0 mismatches"), "{err}");
    // Without --for the same book is compared in full: every Black move, most not in it.
    let err = book_crosscheck(d, p, 2, won, &[]);
    assert!(!err.contains("book ply 1: 1 positions"), "{err}");
    // --for needs a book.
    let out = run(TB, &args(&["crosscheck", "--dir", d, "--for", "white"]));
    assert!(!out.status.success(), "--for without --book was taken");

    // A file that is not a book is refused with its name, not compared.
    let junk = dir.join("junk.bin");
    std::fs::write(&junk, b"not a book").unwrap();
    let out = run(
        TB,
        &args(&[
            "crosscheck",
            "--dir",
            d,
            "--book",
            junk.to_str().unwrap(),
            "--fen",
            fen,
        ]),
    );
    assert!(!out.status.success(), "a file that is no book was compared");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a readable book"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // One sector made again alone from its inputs is the same file.
    let name = sectors.iter().find(|n| n.contains("-p16-")).unwrap();
    let path = dir.join(name);
    let before = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let only = name
        .trim_start_matches("nine-fly-")
        .trim_end_matches(".mpt");
    run_ok(TB, &args(&["generate", "--only", only, "--dir", d]));
    assert_eq!(std::fs::read(&path).unwrap(), before, "{name}");

    // A flipped byte in a block is found.
    let mut bytes = before.clone();
    let at = bytes.len() - 3;
    bytes[at] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let out = run(TB, &args(&["verify", "--dir", d]));
    assert!(!out.status.success(), "a damaged sector passed verify");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The plan's Makefile runs each job plainly, or through srun with the job's own memory and
/// time limit when SRUN is set (`make -n` shows the commands without running them).
#[test]
fn plan_runs_jobs_through_srun_with_their_estimates() {
    let dir = scratch("plan-srun");
    let (mk, _) = run_ok(
        TB,
        &args(&["plan", "--max-pieces", "7", "--placing", "--dir", "t"]),
    );
    let file = dir.join("plan.mk");
    std::fs::write(&file, &mk).unwrap();
    let make = |extra: &[&str]| {
        let out = std::process::Command::new("make")
            .args(["-n", "-f", file.to_str().unwrap(), "MILL_TB=mill-tb"])
            .args(extra)
            .output();
        match out {
            Ok(o) => Some(String::from_utf8_lossy(&o.stdout).into_owned()),
            Err(_) => None,
        }
    };
    let Some(plain) = make(&[]) else {
        eprintln!("SKIPPED: no make here");
        return;
    };
    assert!(
        plain
            .lines()
            .any(|l| l == "mill-tb generate --variant nine --only 3v4 --dir t"),
        "{plain}"
    );
    assert!(!plain.contains("srun"), "{plain}");
    // A placing job waits for the moving job whose partner table it reads (4v3, made by 3v4).
    assert!(
        mk.contains("$(DIR)/nine-fly-p17-2v4.mpt: | $(DIR)/nine-fly-3v4.mtb"),
        "{mk}"
    );
    let srun = make(&["SRUN=srun"]).unwrap();
    let lines: Vec<&str> = srun.lines().filter(|l| l.contains("generate")).collect();
    assert_eq!(lines.len(), 9, "{srun}");
    for l in lines {
        assert!(l.starts_with("srun --ntasks=1 --mem="), "{l}");
        assert!(l.contains("M --time="), "{l}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `mill-tb crosscheck --book` of a book's first `plies` plies from `fen`, with `extra`
/// arguments; its stderr (the report). Fails the test if the command fails.
fn book_crosscheck(dir: &str, book: &str, plies: u32, fen: &str, extra: &[&str]) -> String {
    let plies = plies.to_string();
    let mut a = vec![
        "crosscheck",
        "--dir",
        dir,
        "--book",
        book,
        "--book-plies",
        &plies,
        "--fen",
        fen,
        "--hash-mb",
        "64",
    ];
    a.extend_from_slice(extra);
    run_ok(TB, &args(&a)).1
}
