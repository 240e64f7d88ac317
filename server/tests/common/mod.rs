//! Shared by the tests: small tables made once per test binary, a running `mill-serve` on a
//! free port, and covered positions of random play.
#![allow(dead_code)]

use millstone::tablebase::sample::{sample, Distribution, SampleOptions};
use millstone::tablebase::{file_name, placing, plan, solve_pair, Table, Tablebase};
use millstone::{Position, Rules, Variant};
use millstone_server::client::Conn;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Nine with flying up to 8 pieces of material, nine without flying up to 7: two rule sets,
/// both phases, made in seconds.
pub const SETS: [(Rules, u8); 2] = [
    (Rules::new(Variant::Nine, true), 8),
    (Rules::new(Variant::Nine, false), 7),
];

fn make(dir: &Path, rules: Rules, material: u8) {
    let mut solved: HashMap<(u8, u8), Table> = HashMap::new();
    for job in plan(rules, material, rules.variant.pieces()) {
        let (ts, _) = solve_pair(rules, job.w, job.b, &solved, &mut |_| {}).unwrap();
        for t in ts {
            t.write(&dir.join(file_name(rules, t.w, t.b))).unwrap();
            solved.insert((t.w, t.b), t);
        }
    }
    let reports = placing::generate(dir, rules, material, |_| {}).unwrap();
    assert!(!reports.is_empty());
}

/// The tables of [`SETS`] in one directory, made once for the test binary.
pub fn tables() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // The tests cannot clean up after themselves (no teardown): sweep the tables of
        // earlier runs whose process is gone.
        for e in std::fs::read_dir(std::env::temp_dir())
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name
                .strip_prefix("mill-serve-tables-")
                .and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|p| !Path::new(&format!("/proc/{p}")).exists()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let dir = std::env::temp_dir().join(format!("mill-serve-tables-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (rules, material) in SETS {
            make(&dir, rules, material);
        }
        dir
    })
}

/// A running `mill-serve`, killed when dropped.
pub struct Server {
    pub child: Child,
    pub addr: String,
}

impl Server {
    /// Starts it on a free port with `extra` arguments and waits until its tables are open.
    pub fn start(dir: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mill-serve"))
            .arg("--tables")
            .arg(dir)
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .env(
                "RUST_LOG",
                std::env::var("RUST_LOG").unwrap_or("warn".into()),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start mill-serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("mill-serve prints its address");
        let addr = line
            .split("http://")
            .nth(1)
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim()
            .trim_end_matches('/')
            .to_string();
        let server = Server { child, addr };
        // Waits on a thread of its own: the tests call this from inside their runtime.
        let addr = server.addr.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let deadline = Instant::now() + Duration::from_secs(60);
                let mut c = Conn::new(&addr);
                loop {
                    let r = c.get("/api/v1/info").await.expect("info answers");
                    if r.json().unwrap()["ready"] == true {
                        break;
                    }
                    assert!(Instant::now() < deadline, "not ready in 60 s");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            })
        })
        .join()
        .expect("the server gets ready");
        server
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `n` positions the tables cover, of both phases: uniform picks of the tables' positions,
/// each followed by a few plies of random play (kept while still covered), and moving-phase
/// counters set at random so that the 100-ply rule's draws come up too.
pub fn covered_positions(tb: &Tablebase, rules: Rules, n: usize, seed: u64) -> Vec<Position> {
    let opts = SampleOptions {
        rules,
        distribution: Distribution::Uniform,
        seed,
        distances: false,
        phase: millstone::tablebase::sample::Phase::Any,
    };
    let starts = sample(tb, n, &opts).unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for s in starts {
        let mut pos = s.position();
        if pos.is_moving_phase() && rng.gen_bool(0.5) {
            let fen = pos.to_fen();
            let mut f: Vec<&str> = fen.split(' ').collect();
            let counter = rng.gen_range(0..=100u32).to_string();
            f[4] = &counter;
            // A counter needs enough moves played since the placing phase.
            f[5] = "120";
            pos = Position::from_fen(&f.join(" "), rules).unwrap();
        }
        for _ in 0..rng.gen_range(0..6) {
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.outcome().is_some() || pos.rule50() >= 100 {
                break;
            }
            let mut next = pos;
            next.make(moves[rng.gen_range(0..moves.len())]);
            if tb.wdl(&next).is_none() {
                break;
            }
            pos = next;
        }
        out.push(pos);
        if out.len() >= n {
            break;
        }
    }
    out
}
