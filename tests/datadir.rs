//! The data directory through the engine binary: `$MILLSTONE_DATA`, else the platform's data
//! directory (`$XDG_DATA_HOME/millstone`, `~/.local/share/millstone`); an explicit `TablePath`
//! wins; `<empty>` turns the tables off; what the engine found is said after `uci`.

mod engine_process;

use engine_process::Engine;
use millstone::tablebase::{file_name, solve_pair};
use millstone::{datadir, Rules};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("millstone-datadir-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes the 3v3 tables of nine with flying into `dir`.
fn write_3v3(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let rules = Rules::default();
    for t in solve_pair(rules, 3, 3, &HashMap::new(), &mut |_| {})
        .unwrap()
        .0
    {
        t.write(&dir.join(file_name(rules, t.w, t.b))).unwrap();
    }
}

/// The engine with exactly these data-directory variables (the others removed).
fn start(env: &[(&str, &Path)]) -> Engine {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_millstone"));
    cmd.env_remove(datadir::ENV)
        .env_remove("XDG_DATA_HOME")
        .env_remove("HOME");
    for (k, v) in env {
        cmd.env(k, v);
    }
    Engine::start_command(cmd)
}

/// The lines after `uci`, up to `readyok`.
fn start_up(e: &mut Engine) -> Vec<String> {
    e.send("uci");
    e.until("uciok");
    e.send("isready");
    e.until("readyok")
}

fn has(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

/// A 3 v 3 position of nine with White to move, in the moving phase (the tables cover it).
const FEN_3V3: &str = "W../.B./..W/....../.../.B./B.W w 0 0 0 30";

/// The `info` line of a short search from the 3 v 3 position.
fn search_3v3(e: &mut Engine) -> Vec<String> {
    e.send(&format!("position fen {FEN_3V3}"));
    e.send("go depth 2");
    e.until("bestmove")
}

fn tbhits(lines: &[String]) -> u64 {
    lines
        .iter()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            it.position(|w| w == "tbhits")?;
            it.next()?.parse().ok()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn the_variable_comes_first() {
    let root = scratch("env");
    let xdg = scratch("env-xdg");
    write_3v3(&datadir::tables_in(&root));
    let mut e = start(&[(datadir::ENV, &root), ("XDG_DATA_HOME", &xdg)]);
    let lines = start_up(&mut e);
    assert!(
        has(
            &lines,
            &format!(
                "endgame tables: 1 sub-spaces of nine (flying on) in {} (data directory {}, from MILLSTONE_DATA)",
                datadir::tables_in(&root).display(),
                root.display()
            )
        ),
        "{lines:?}"
    );
    assert!(
        has(&lines, "endgame tables: 1 sub-spaces of nine"),
        "{lines:?}"
    );
    assert!(has(&lines, "info string book: none"), "{lines:?}");
    let found = search_3v3(&mut e);
    assert!(tbhits(&found) > 0, "the default tables are used: {found:?}");
}

#[test]
fn the_platform_directory_when_no_variable() {
    // $XDG_DATA_HOME/millstone
    let xdg = scratch("xdg");
    write_3v3(&xdg.join("millstone").join("tables"));
    let mut e = start(&[("XDG_DATA_HOME", &xdg), ("HOME", &scratch("xdg-home"))]);
    let lines = start_up(&mut e);
    let dir = xdg.join("millstone");
    assert!(
        has(
            &lines,
            &format!("(data directory {}, the platform default)", dir.display())
        ),
        "{lines:?}"
    );
    assert!(has(&lines, "endgame tables: 1 sub-spaces"), "{lines:?}");
    assert!(tbhits(&search_3v3(&mut e)) > 0);

    // ~/.local/share/millstone, on Linux, when XDG_DATA_HOME is not set; nothing there.
    if cfg!(target_os = "linux") {
        let home = scratch("home");
        let mut e = start(&[("HOME", &home)]);
        let lines = start_up(&mut e);
        let dir = home.join(".local/share/millstone");
        assert!(
            has(
                &lines,
                &format!("(data directory {}, the platform default)", dir.display())
            ),
            "{lines:?}"
        );
        assert!(
            has(
                &lines,
                &format!(
                    "endgame tables: none ({} does not exist; `mill-tb setup` makes them)",
                    dir.join("tables").display()
                )
            ),
            "{lines:?}"
        );
        assert_eq!(tbhits(&search_3v3(&mut e)), 0);
    }
}

#[test]
fn an_explicit_path_wins_and_empty_turns_tables_off() {
    let root = scratch("explicit-root");
    let other = scratch("explicit-other");
    write_3v3(&other);
    // The data directory has no tables; the option names others, before `uci`.
    let mut e = start(&[(datadir::ENV, &root)]);
    e.send(&format!(
        "setoption name TablePath value {}",
        other.display()
    ));
    let mut lines = e.until("info string endgame tables");
    lines.extend(start_up(&mut e));
    assert!(
        has(
            &lines,
            &format!(
                "endgame tables: 1 sub-spaces of nine (flying on) in {}",
                other.display()
            )
        ),
        "{lines:?}"
    );
    assert!(!has(&lines, "endgame tables: none"), "{lines:?}");
    assert!(tbhits(&search_3v3(&mut e)) > 0);

    // Tables in the data directory, turned off by `<empty>` after `uci`.
    let full = scratch("explicit-full");
    write_3v3(&datadir::tables_in(&full));
    let mut e = start(&[(datadir::ENV, &full)]);
    start_up(&mut e);
    assert!(tbhits(&search_3v3(&mut e)) > 0);
    e.send("setoption name TablePath value <empty>");
    assert_eq!(tbhits(&search_3v3(&mut e)), 0);
    // And back with `<default>`.
    e.send("setoption name TablePath value <default>");
    let lines = e.until("info string endgame tables");
    assert!(has(&lines, "endgame tables: 1 sub-spaces"), "{lines:?}");
    assert!(tbhits(&search_3v3(&mut e)) > 0);
}

#[test]
fn a_bad_path_is_an_error_not_a_crash() {
    let root = scratch("bad");
    let mut e = start(&[(datadir::ENV, &root)]);
    start_up(&mut e);
    e.send("setoption name BookPath value /nonexistent/x.book");
    let lines = e.until("info string error");
    assert!(has(&lines, "BookPath"), "{lines:?}");
    // A file where the data directory's tables should be: said, and no tables.
    let root = scratch("bad-file");
    std::fs::write(root.join("tables"), b"not a directory").unwrap();
    let mut e = start(&[(datadir::ENV, &root)]);
    let lines = start_up(&mut e);
    assert!(has(&lines, "endgame tables: none"), "{lines:?}");
    e.send("isready");
    e.until("readyok");
}
