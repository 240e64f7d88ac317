//! Helpers shared by the integration tests: paths of the binaries and scratch files.
#![allow(dead_code)]

use millstone_tools::record::{verify, GameRecord};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

pub const MATCH: &str = env!("CARGO_BIN_EXE_mill-match");
pub const TESTENGINE: &str = env!("CARGO_BIN_EXE_mill-testengine");
pub const SELFPLAY: &str = env!("CARGO_BIN_EXE_mill-selfplay");
pub const ANALYZE: &str = env!("CARGO_BIN_EXE_mill-analyze");
pub const SANMILL_BRIDGE: &str = env!("CARGO_BIN_EXE_mill-sanmill");

pub fn broken() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/broken.sh").to_string()
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("millstone-tools-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn run(bin: &str, args: &[String]) -> Output {
    Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run the tool")
}

pub fn run_ok(bin: &str, args: &[String]) -> (String, String) {
    let out = run(bin, args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{bin} {args:?} failed: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    (stdout, stderr)
}

pub fn args(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

/// Reads a JSONL file of game records and checks that each replays legally to its result.
pub fn records(path: &PathBuf) -> Vec<GameRecord> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| {
            let r: GameRecord = serde_json::from_str(l).expect("a record per line");
            verify(&r).unwrap_or_else(|e| panic!("game {} does not replay: {e}\n{l}", r.game));
            r
        })
        .collect()
}

/// The real engine, if it is built next to the tools and speaks the protocol.
pub fn real_engine() -> Option<PathBuf> {
    let dir = PathBuf::from(MATCH).parent()?.to_path_buf();
    let exe = dir.join(format!("millstone{}", std::env::consts::EXE_SUFFIX));
    if !exe.exists() {
        eprintln!("skipped: the engine is not built at {}", exe.display());
        return None;
    }
    let spec = millstone_tools::protocol::ProcessSpec {
        cmd: exe.clone(),
        ..Default::default()
    };
    match millstone_tools::protocol::EngineProcess::start(&spec, &[], Duration::from_secs(3)) {
        Ok(_) => Some(exe),
        Err(e) => {
            eprintln!(
                "skipped: {} does not speak the protocol yet ({e})",
                exe.display()
            );
            None
        }
    }
}
