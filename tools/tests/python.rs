//! The Python package (`python/`): builds and installs `millstone` into a virtual environment
//! under the target directory, generates small endgame tables, and runs the pytest suite
//! (`python/tests`). Skipped, with a message, only where no Python 3.9+ with `venv` and `pip`
//! can be had; `.ci/run` checks the marker `target/python-tests.ok` that a pass writes.
//!
//! `MILLSTONE_PYTHON` names the interpreter to use (default `python3`).

use std::path::{Path, PathBuf};
use std::process::Command;

const TB: &str = env!("CARGO_BIN_EXE_mill-tb");

/// `target/release` (or `target/debug`): where the workspace's programs are.
fn bin_dir() -> PathBuf {
    Path::new(TB).parent().unwrap().to_path_buf()
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs a command; its status and its output (stdout and stderr).
fn run(cmd: &mut Command) -> (bool, String) {
    match cmd.output() {
        Ok(o) => (
            o.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        ),
        Err(e) => (false, format!("cannot run {cmd:?}: {e}")),
    }
}

fn skip(why: &str) {
    eprintln!("SKIPPED: the Python package's tests: {why}");
    println!("SKIPPED: the Python package's tests: {why}");
}

#[test]
fn python_package_pytest() {
    let root = workspace_root();
    let target = bin_dir().parent().unwrap().to_path_buf();
    let marker = target.join("python-tests.ok");
    let _ = std::fs::remove_file(&marker);

    let python = std::env::var("MILLSTONE_PYTHON").unwrap_or_else(|_| "python3".into());
    let (ok, out) = run(Command::new(&python).args([
        "-c",
        "import sys, venv, ensurepip; assert sys.version_info >= (3, 9), sys.version",
    ]));
    if !ok {
        return skip(&format!(
            "no Python 3.9+ with venv and pip ({python}): {}",
            out.trim()
        ));
    }
    let venv = target.join("python-venv");
    let vpy = venv.join("bin").join("python");
    if !vpy.exists() {
        let (ok, out) = run(Command::new(&python).arg("-m").arg("venv").arg(&venv));
        if !ok {
            return skip(&format!("cannot make a virtual environment: {out}"));
        }
    }
    let deps = "import numpy, pytest, pyspiel, pettingzoo, gymnasium, maturin";
    if !run(Command::new(&vpy).args(["-c", deps])).0 {
        let (ok, out) = run(Command::new(&vpy).args([
            "-m",
            "pip",
            "install",
            "-q",
            "maturin>=1.5,<2",
            "numpy",
            "pytest",
            "open-spiel",
            "pettingzoo>=1.24",
            "gymnasium",
        ]));
        if !ok {
            return skip(&format!("pip cannot install the test dependencies: {out}"));
        }
    }

    // `pip install ./python`, as a user would, built by maturin in a target directory of its
    // own (this `cargo test` may still hold the workspace's); thin LTO-free release builds to
    // keep the test's time down (a user's install uses the workspace's release profile).
    // pip runs the build backend's `maturin` by name: the environment's bin first on PATH.
    let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let (ok, out) = run(Command::new(&vpy)
        .current_dir(&root)
        .env("PATH", &path)
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "--no-build-isolation",
            "--force-reinstall",
            "--no-deps",
            "./python",
        ])
        .env("CARGO_TARGET_DIR", target.join("python-build"))
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"));
    assert!(ok, "pip install ./python failed:\n{out}");

    // Tables of nine with flying, 3 v 3 (a second or so).
    let tables = target.join("python-tables");
    if !tables.join("nine-fly-3v3.mtb").exists() {
        let (ok, out) = run(Command::new(TB).args([
            "generate",
            "--max-pieces",
            "6",
            "--dir",
            tables.to_str().unwrap(),
        ]));
        assert!(ok, "mill-tb generate failed:\n{out}");
    }
    let millstone = bin_dir().join("millstone");
    // The table server, for `Tablebase(url=...)` (package millstone-server).
    let mill_serve = bin_dir().join("mill-serve");
    for program in [&millstone, &mill_serve] {
        assert!(
            program.exists(),
            "{} is missing: run `cargo test --workspace` (it builds every program)",
            program.display()
        );
    }

    let status = Command::new(&vpy)
        .current_dir(&root)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rs",
            "python/tests",
        ])
        .env("MILLSTONE_BIN", &millstone)
        .env("MILL_TB", TB)
        .env("MILLSTONE_TABLES", &tables)
        .env("MILL_SERVE", &mill_serve)
        .status()
        .expect("run pytest");
    assert!(status.success(), "the Python package's pytest suite failed");
    std::fs::write(&marker, "ok\n").unwrap();
}
