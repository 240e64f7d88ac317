//! `mill-tb`: jobs one at a time give the same files as one run, the plan's graph, info,
//! verify (whole and sampled) and its refusal of damaged files, resuming; `solve` and its
//! refusals.

mod common;
use common::{args, records, run, run_ok, scratch, MATCH};

const TB: &str = env!("CARGO_BIN_EXE_mill-tb");

fn files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            (
                e.file_name().to_string_lossy().to_string(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The tables of nine with flying up to 7 pieces, generated once for the tests of this file;
/// each test writes its own files in a directory of its own.
fn nine7() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("nine7");
        let d = dir.to_str().unwrap();
        run_ok(TB, &args(&["generate", "--max-pieces", "7", "--dir", d]));
        dir
    })
}

/// Random against greedy at depth 1 from the openings in `openings` (one position a line), 12
/// games with `seed` and the further mill-match arguments `extra`, into `dir/games.jsonl`.
fn random_vs_greedy(
    dir: &std::path::Path,
    openings: &str,
    seed: &str,
    extra: &[&str],
) -> std::path::PathBuf {
    let book = dir.join("openings.txt");
    std::fs::write(&book, openings).unwrap();
    let jsonl = dir.join("games.jsonl");
    let mut argv = args(&[
        "--engine",
        "builtin=random",
        "--engine",
        "builtin=greedy",
        "--depth",
        "1",
        "--games",
        "12",
        "--openings",
        book.to_str().unwrap(),
        "--seed",
        seed,
        "--max-plies",
        "200",
        "--jsonl",
        jsonl.to_str().unwrap(),
        "-q",
    ]);
    argv.extend(args(extra));
    run_ok(MATCH, &argv);
    jsonl
}

#[test]
fn jobs_one_by_one_equal_one_run_and_verify() {
    let (one, jobs) = (scratch("tb-one"), scratch("tb-jobs"));
    let d1 = one.to_str().unwrap();
    let d2 = jobs.to_str().unwrap();
    run_ok(
        TB,
        &args(&["generate", "--no-flying", "--max-pieces", "7", "--dir", d1]),
    );
    // A job whose input is missing says which one.
    let out = run(
        TB,
        &args(&["generate", "--no-flying", "--only", "4v3", "--dir", d2]),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs 3v3"), "{err}");
    for job in ["3v3", "4v3"] {
        run_ok(
            TB,
            &args(&["generate", "--no-flying", "--only", job, "--dir", d2]),
        );
    }
    let (a, b) = (files(&one), files(&jobs));
    let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "nine-nofly-3v3.mtb",
            "nine-nofly-3v4.mtb",
            "nine-nofly-4v3.mtb"
        ]
    );
    assert!(a == b, "the same bytes either way");
    // Done jobs are skipped; a leftover temporary file (a killed job) is not a table.
    std::fs::write(jobs.join("nine-nofly-3v5.mtb.tmp"), b"half").unwrap();
    let (_, err) = run_ok(
        TB,
        &args(&["generate", "--no-flying", "--only", "3v4", "--dir", d2]),
    );
    assert!(err.contains("skipped"), "{err}");

    let (_, err) = run_ok(TB, &args(&["verify", "--dir", d2]));
    assert!(err.contains("4v3: 862980 slots consistent"), "{err}");
    let (_, err) = run_ok(TB, &args(&["verify", "--sample", "500", "--dir", d2]));
    assert!(err.contains("3v4: 500 slots consistent"), "{err}");
    let (out, _) = run_ok(TB, &args(&["info", "--dir", d2]));
    let line = out
        .lines()
        .find(|l| l.starts_with("nine-nofly-3v3"))
        .unwrap();
    let cols: Vec<&str> = line.split_whitespace().collect();
    // slots, positions, and the positions split into wins, draws and losses (no spoilt ones).
    assert_eq!(cols[1], "210140");
    let n: Vec<u64> = cols[2..6].iter().map(|c| c.parse().unwrap()).collect();
    assert_eq!(n[0], n[1] + n[2] + n[3], "{line}");

    // A damaged file: a flipped bit in a distance block fails verification and is solved
    // again by generate; a truncated one too.
    let path = jobs.join("nine-nofly-4v3.mtb");
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    let at = bad.len() - 10;
    bad[at] ^= 4;
    std::fs::write(&path, &bad).unwrap();
    let out = run(TB, &args(&["verify", "--dir", d2]));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("checksum"));
    std::fs::write(&path, &good[..good.len() / 3]).unwrap();
    let out = run(TB, &args(&["info", "--dir", d2]));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("truncated"));
    let (_, err) = run_ok(
        TB,
        &args(&["generate", "--no-flying", "--only", "3v4", "--dir", d2]),
    );
    assert!(err.contains("solving again"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), good);
}

#[test]
fn plan_as_makefile_and_json() {
    let (out, _) = run_ok(
        TB,
        &args(&[
            "plan",
            "--variant",
            "twelve",
            "--max-pieces",
            "9",
            "--format",
            "json",
        ]),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let jobs = v["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["3v3", "3v4", "3v5", "4v4", "3v6", "4v5"]);
    let j45 = &jobs[5];
    assert_eq!(j45["inputs"], serde_json::json!(["3v5", "4v4"]));
    assert_eq!(j45["reads"], serde_json::json!(["3v5", "4v4"]));
    assert_eq!(
        j45["files"],
        serde_json::json!(["twelve-fly-5v4.mtb", "twelve-fly-4v5.mtb"])
    );
    assert!(j45["command"]
        .as_str()
        .unwrap()
        .contains("generate --variant twelve --only 4v5"));

    let (mk, _) = run_ok(
        TB,
        &args(&["plan", "--no-flying", "--max-pieces", "8", "--dir", "t"]),
    );
    assert!(mk.contains("DIR ?= t\n"), "{mk}");
    assert!(mk.contains("all: 3v3 3v4 3v5 4v4\n"), "{mk}");
    assert!(
        mk.contains("$(DIR)/nine-nofly-4v4.mtb: | $(DIR)/nine-nofly-3v4.mtb\n"),
        "{mk}"
    );
    assert!(mk.contains(
        "\t$(call launch,279,3) $(MILL_TB) generate --variant nine --no-flying --only 4v4 --dir $(DIR)\n"
    ), "{mk}");
    // A job alone holds its solving words (4 bytes a slot) and more: never less than that.
    assert!(
        j45["memory_bytes"].as_u64().unwrap() > (256 << 20) + 4 * j45["slots"].as_u64().unwrap()
    );
    assert!(j45["srun"].as_str().unwrap().starts_with("--mem="), "{j45}");
}

/// `mill-tb audit` replays a match's games to the start of their moving phase and reports
/// every side that lost from a position the tables call won or drawn; the test recounts the
/// same from the records with the library.
#[test]
fn audit_finds_the_games_lost_from_level() {
    use millstone::tablebase::{Tablebase, Wdl};
    use millstone::{Color, Game, Position, Rules, Variant};
    let dir = scratch("audit");
    let tables = nine7();
    let d = tables.to_str().unwrap();
    // Openings in 3v4 and 4v3 (moving phase, tables cover them): random against greedy loses
    // some positions the tables call drawn or won.
    let jsonl = random_vs_greedy(
        &dir,
        "W.W/.../.../B....B/.../.../W.B w 0 0 0 40\n\
         WW./.B./.../W....B/..B/.../... b 0 0 0 40\n\
         .../WB./..W/B....W/.../.B./B.. w 0 0 0 40\n",
        "7",
        &[],
    );
    let tb = Tablebase::open(tables).unwrap();
    let rules = Rules::new(Variant::Nine, true);
    let mut expected = 0;
    for rec in records(&jsonl) {
        let pos = Position::from_fen(&rec.fen, rules).unwrap();
        assert!(Game::new(pos).position().is_moving_phase());
        let wdl = tb.probe(&pos).expect("covered").wdl.real();
        let white = if pos.side_to_move() == Color::White {
            wdl
        } else {
            wdl.flip()
        };
        // A side lost from level when the tables did not call its position lost.
        expected += match rec.result.as_str() {
            "1-0" => (white != Wdl::Win) as u32,
            "0-1" => (white != Wdl::Loss) as u32,
            _ => 0,
        };
    }
    let out = run(
        TB,
        &args(&["audit", "--dir", d, "--jsonl", jsonl.to_str().unwrap()]),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let reported = stdout.lines().filter(|l| l.contains(" from a ")).count() as u32;
    assert_eq!(reported, expected, "{stdout}");
    assert!(expected > 0, "random loses some level positions:\n{stdout}");
    assert!(!out.status.success(), "lost games make the exit code 1");
    assert!(stdout.starts_with("12 games; 12 reached the moving phase inside the tables"));
    // One side only: greedy never loses from level against random here, or the count says so.
    let out = run(
        TB,
        &args(&[
            "audit",
            "--dir",
            d,
            "--jsonl",
            jsonl.to_str().unwrap(),
            "--player",
            "greedy",
        ]),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let greedy = stdout.lines().filter(|l| l.contains(" from a ")).count();
    assert_eq!(out.status.success(), greedy == 0, "{stdout}");
    assert!(stdout.lines().all(|l| !l.contains("random (")), "{stdout}");
}

#[test]
fn tb_adjudicate_ends_each_game_at_the_tables_value() {
    use millstone::tablebase::{Tablebase, Wdl};
    use millstone::{Color, Game, Move, Position, Rules, Variant};
    let dir = scratch("tb-adjudicate");
    let tables = nine7();
    let d = tables.to_str().unwrap();
    // Placing openings (the moving phase begins at 3v4 or less) and one moving-phase position.
    let jsonl = random_vs_greedy(
        &dir,
        "W../.../.../B....B/.../.../... w 2 2 0 8\n\
         .../.W./.../B..B../.../.../... w 2 2 0 8\n\
         W.W/.../.../B....B/.../.../W.B w 0 0 0 40\n",
        "9",
        &["--tb-adjudicate", d],
    );
    let rules = Rules::new(Variant::Nine, true);
    let tb = Tablebase::open(tables).unwrap();
    let mut by_tables = 0;
    for rec in records(&jsonl) {
        let mut game = Game::new(Position::from_fen(&rec.fen, rules).unwrap());
        for m in &rec.moves {
            // No position before the last one was in the tables.
            assert!(tb.probe(game.position()).is_none(), "game {}", rec.game);
            game.play(m.parse::<Move>().unwrap()).unwrap();
        }
        let pos = game.position();
        if rec.reason != "tablebase" {
            assert!(
                pos.outcome().is_some(),
                "game {} ended by {}",
                rec.game,
                rec.reason
            );
            continue;
        }
        by_tables += 1;
        let wdl = tb.probe(pos).expect("ended in the tables").wdl.real();
        let white = if pos.side_to_move() == Color::White {
            wdl
        } else {
            wdl.flip()
        };
        let want = match white {
            Wdl::Win => "1-0",
            Wdl::Loss => "0-1",
            _ => "1/2-1/2",
        };
        assert_eq!(rec.result, want, "game {}: {}", rec.game, rec.detail);
        assert!(
            rec.moves.len() <= 4,
            "game {} left the placing phase late",
            rec.game
        );
    }
    assert!(
        by_tables >= 8,
        "{by_tables} of 12 games ended by the tables"
    );
    // A directory that is not there is a clear error before any game.
    let out = run(
        MATCH,
        &args(&[
            "--engine",
            "builtin=random",
            "--engine",
            "builtin=greedy",
            "--depth",
            "1",
            "--tb-adjudicate",
            dir.join("missing").to_str().unwrap(),
        ]),
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--tb-adjudicate"), "{stderr}");
}

#[test]
fn solve_values_a_placing_position_and_refuses_what_it_cannot() {
    let dir = scratch("tb-solve");
    let tables = nine7();
    let d = tables.to_str().unwrap();
    // 1 + 2 white, 2 + 2 black: the moving phase begins at 3v4 or less.
    let fen = "W../.../.../B....B/.../.../... w 2 2 0 8";
    let (out, _) = run_ok(TB, &args(&["solve", "--dir", d, "--fen", fen, "--moves"]));
    let value = out
        .lines()
        .find_map(|l| l.strip_prefix("value: "))
        .unwrap_or_else(|| panic!("no value in\n{out}"));
    assert!(["win", "draw", "loss"].contains(&value), "{out}");
    assert!(
        out.contains("nodes/s") && out.contains("moves (21):"),
        "{out}"
    );
    assert!(out.contains("keeps"), "{out}");
    // Each refusal is an error message and exit code 1, never a panic.
    let refused = |a: &[&str], says: &str| {
        let o = run(TB, &args(a));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{a:?}: {err}");
        assert!(err.contains(says), "{a:?}: {err}");
    };
    refused(
        &["solve", "--dir", d, "--fen", "W../... w 2 2 0 8"],
        "bad position",
    );
    let missing = dir.join("nothing-here");
    let m = missing.to_str().unwrap();
    refused(&["solve", "--dir", m, "--fen", fen], "not a directory");
    // 2 + 2 a side: leaves at 4v4, which 7 pieces do not include.
    let big = "W../.../.W./B....B/.../.../... w 2 2 0 8";
    refused(&["solve", "--dir", d, "--fen", big], "nine-fly-4v4.mtb");
    refused(
        &["solve", "--dir", d, "--fen", fen, "--hash-mb", "99999999"],
        "cannot allocate",
    );
}

/// `mill-tb audit --placing` solves every placing move of the audited side, before and after
/// it; the test recounts the moves that gave a proven value away with the library's solver.
/// `mill-tb book` from a placing position writes a book the solver reads back.
#[test]
fn audit_placing_finds_the_moves_that_give_a_value_away_and_book_writes_a_book() {
    use millstone::solve::{Checkpoint, Solver};
    use millstone::tablebase::Tablebase;
    use millstone::{Position, Rules, Variant};
    let dir = scratch("audit-placing");
    let tables = nine7();
    let d = tables.to_str().unwrap();
    // Placing openings whose moving phase begins at 3v4 or less.
    let jsonl = random_vs_greedy(
        &dir,
        "W../.../.../B....B/.../.../... w 2 2 0 8\n\
         .../.W./.../B..B../.../.../... w 2 2 0 8\n\
         ..B/.../.W./....../.B./.../... w 2 2 0 8\n",
        "5",
        &[],
    );
    let rules = Rules::new(Variant::Nine, true);
    let tb = Tablebase::open(tables).unwrap();
    let mut solver = Solver::new(&tb, rules, 16).unwrap();
    let mut expected = 0;
    for rec in records(&jsonl) {
        let mut pos = Position::from_fen(&rec.fen, rules).unwrap();
        for m in &rec.moves {
            if pos.is_moving_phase() || pos.outcome().is_some() {
                break;
            }
            let mover = if pos.side_to_move() == millstone::Color::White {
                &rec.white
            } else {
                &rec.black
            };
            let before = solver.solve(&pos).unwrap().value;
            pos.make(m.parse().unwrap());
            let after = solver.solve(&pos).unwrap().value;
            expected += (mover == "random" && after.flip() != before) as usize;
        }
    }
    let out = run(
        TB,
        &args(&[
            "audit",
            "--dir",
            d,
            "--jsonl",
            jsonl.to_str().unwrap(),
            "--placing",
            "--player",
            "random",
            "--hash-mb",
            "16",
        ]),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(expected > 0, "random gives values away:\n{stdout}");
    // One line for each such move ("win -> draw"), and the count in the summary.
    assert_eq!(
        stdout.lines().filter(|l| l.contains(" -> ")).count(),
        expected,
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("{expected} gave it away")),
        "{stdout}"
    );
    assert!(!out.status.success());

    let book = dir.join("book.bin");
    let (out, _) = run_ok(
        TB,
        &args(&[
            "book",
            "--dir",
            d,
            "--out",
            book.to_str().unwrap(),
            "--fen",
            "W../.../.../B....B/.../.../... w 2 2 0 8",
            "--plies",
            "2",
            "--hash-mb",
            "16",
        ]),
    );
    assert!(out.contains("2 plies of nine (flying on)"), "{out}");
    let c = Checkpoint::read(&book).unwrap();
    assert!(!c.is_empty() && c.rules() == rules);
    // The book answers its positions at once: the root and every position one ply later get
    // their value and keeping moves from table hits alone (one node per question), because
    // the book keeps their children's bounds however cheap they were.
    let mut fresh = Solver::new(&tb, rules, 16).unwrap();
    fresh.absorb(&c).unwrap();
    let root = Position::from_fen("W../.../.../B....B/.../.../... w 2 2 0 8", rules).unwrap();
    let mut book_positions = vec![root];
    for &m in root.legal_moves().iter() {
        let mut child = root;
        child.make(m);
        if !child.is_moving_phase() && child.outcome().is_none() {
            book_positions.push(child);
        }
    }
    for p in &book_positions {
        fresh.value_keeping(p).unwrap();
        assert!(
            fresh.nodes() <= 2 + p.legal_moves().len() as u64,
            "{p}: {} nodes",
            fresh.nodes()
        );
    }
    // A second run resumes from the book and finds everything proven.
    let (_, err) = run_ok(
        TB,
        &args(&[
            "book",
            "--dir",
            d,
            "--out",
            book.to_str().unwrap(),
            "--fen",
            "W../.../.../B....B/.../.../... w 2 2 0 8",
            "--plies",
            "2",
        ]),
    );
    assert!(err.contains("resumed from"), "{err}");
}

/// `book --for white` from an empty board with 3 in hand each (a win for White): a proof tree,
/// far smaller than the full book of as many plies, in which every White position of the tree
/// is answered from the book alone with a winning move that an independent solver (no book)
/// confirms, and every Black reply is there.
#[test]
fn book_for_one_side_is_a_proof_of_its_win() {
    use millstone::solve::{Checkpoint, Solver};
    use millstone::tablebase::{Tablebase, Wdl};
    use millstone::{Color, Position, Rules, Variant};
    let dir = scratch("book-for");
    let tables = nine7();
    let d = tables.to_str().unwrap();
    let fen = ".../.../.../....../.../.../... w 3 3 0 7";
    let book = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let mut a = vec![
            "book",
            "--dir",
            d,
            "--out",
            out.to_str().unwrap(),
            "--fen",
            fen,
            "--plies",
            "6",
            "--hash-mb",
            "16",
        ];
        a.extend_from_slice(extra);
        let (stdout, _) = run_ok(TB, &args(&a));
        (out, stdout)
    };
    let (proof, said) = book("white.bin", &["--for", "white"]);
    assert!(
        said.contains("6 plies of nine (flying on) for White"),
        "{said}"
    );
    let (full, _) = book("full.bin", &[]);
    let (p, f) = (
        Checkpoint::read(&proof).unwrap(),
        Checkpoint::read(&full).unwrap(),
    );
    assert!(
        p.len() * 20 < f.len(),
        "the proof has {} entries, the full book {}",
        p.len(),
        f.len()
    );

    let rules = Rules::new(Variant::Nine, true);
    let tb = Tablebase::open(tables).unwrap();
    let mut with_book = Solver::new(&tb, rules, 16).unwrap();
    with_book.absorb(&p).unwrap();
    let mut plain = Solver::new(&tb, rules, 16).unwrap();
    // Walk the proof: White's winning move from the book, every Black reply.
    let mut level = vec![Position::from_fen(fen, rules).unwrap()];
    let mut white_positions = 0;
    while !level.is_empty() {
        let mut next = Vec::new();
        for pos in &level {
            let moves: Vec<_> = if pos.side_to_move() == Color::White {
                let (v, best) = with_book.value_and_best(pos).unwrap();
                assert_eq!(v, Wdl::Win, "{pos}");
                assert!(with_book.nodes() <= 4, "{pos}: {} nodes", with_book.nodes());
                let best = best.expect("a winning move");
                let mut child = *pos;
                child.make(best);
                assert_eq!(
                    plain.solve(&child).unwrap().value,
                    Wdl::Loss,
                    "{pos} {best}"
                );
                white_positions += 1;
                vec![best]
            } else {
                pos.legal_moves().iter().copied().collect()
            };
            for m in moves {
                let mut child = *pos;
                child.make(m);
                if !child.is_moving_phase() && child.outcome().is_none() {
                    next.push(child);
                }
            }
        }
        level = next;
    }
    assert!(white_positions > 100, "{white_positions} White positions");
    // A wrong side is refused with the choices.
    let out = run(
        TB,
        &args(&[
            "book", "--dir", d, "--out", "x", "--fen", fen, "--for", "red",
        ]),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("expected white or black"),
        "{err}"
    );
}
