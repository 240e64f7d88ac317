//! `mill-serve-load`: a load benchmark and a fuzzer for a running `mill-serve`.
//!
//! Load (default): many concurrent keep-alive clients ask for random positions of both phases
//! of every rule set the server serves (positions of random games, so both phases and every
//! stage of a game), for `--duration` seconds; it prints throughput, latency percentiles,
//! errors, the server's cache hits and, with `--pid`, the server's resident memory sampled
//! every second from /proc.
//!
//! Fuzz (`--fuzz N`): N malformed requests (random bytes in the position, huge queries, wrong
//! variants, path traversal, bad percent-encoding, wrong methods, raw bytes in the request
//! line); every answer must be a 4xx. It prints the count of those that were not (must be 0),
//! checks the server still answers, and compares its memory before and after.
//!
//! Agreement (`--agree N --tables DIR`): N positions of random games of each rule set served,
//! each asked of the server and computed from the library over the same directory
//! (`millstone_server::agree`: `Tablebase::probe`, `wdl` and `probe_root`, what `mill-tb probe`
//! prints); every compared field must be equal. It exits non-zero on any difference.

use clap::Parser;
use millstone::tablebase::Tablebase;
use millstone::{Position, Rules, Variant};
use millstone_server::agree;
use millstone_server::client::{encode, position_target, Conn, Reply};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(
    name = "mill-serve-load",
    version,
    about = "Load benchmark and fuzzer for mill-serve"
)]
struct Cli {
    /// The server's address.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// Concurrent clients (one keep-alive connection each).
    #[arg(long, default_value_t = 64)]
    clients: usize,
    /// Seconds of load.
    #[arg(long, default_value_t = 60)]
    duration: u64,
    /// Random games played per rule set for the positions asked.
    #[arg(long, default_value_t = 5000)]
    games: usize,
    /// Seed of the games and of the fuzzer.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The server's process id, to sample its memory (VmRSS).
    #[arg(long)]
    pid: Option<u32>,
    /// Send this many malformed requests instead of the load.
    #[arg(long, value_name = "N")]
    fuzz: Option<usize>,
    /// Compare the server's answers for this many positions of each rule set with the
    /// library's over --tables, instead of the load.
    #[arg(long, value_name = "N", requires = "tables")]
    agree: Option<usize>,
    /// The server's table directory, for --agree.
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
}

/// Resident memory of a process in KiB: all of it (VmRSS), and the part that is not the
/// mapped table files (RssAnon: the heap, the cache of answers). The mapped files' pages
/// belong to the page cache, shared and given back under memory pressure.
fn rss_kib(pid: u32) -> Option<(u64, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = s.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some((field("VmRSS:")?, field("RssAnon:")?))
}

/// Samples the server's memory every second until `stop`.
fn sample_rss(pid: Option<u32>, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<Vec<(u64, u64)>> {
    tokio::spawn(async move {
        let mut v = Vec::new();
        while let Some(pid) = pid {
            if let Some(r) = rss_kib(pid) {
                v.push(r);
            }
            if stop.load(Ordering::Relaxed) {
                break;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        v
    })
}

fn rss_summary(v: &[(u64, u64)]) -> String {
    let mib = |k: u64| k / 1024;
    match (v.first(), v.last()) {
        (Some(a), Some(z)) => format!(
            "server memory ({} samples): VmRSS start {} MiB, max {} MiB, end {} MiB; \
             RssAnon (not the mapped tables) start {} MiB, max {} MiB, end {} MiB",
            v.len(),
            mib(a.0),
            mib(v.iter().map(|r| r.0).max().unwrap_or(0)),
            mib(z.0),
            mib(a.1),
            mib(v.iter().map(|r| r.1).max().unwrap_or(0)),
            mib(z.1)
        ),
        _ => "server memory: not sampled (give --pid)".into(),
    }
}

async fn info(addr: &str) -> Result<serde_json::Value, String> {
    let r = Conn::new(addr)
        .get("/api/v1/info")
        .await
        .map_err(|e| format!("{addr}: {e}"))?;
    r.json()
}

/// Waits for the server to have opened its tables.
async fn wait_ready(addr: &str) -> Result<serde_json::Value, String> {
    let t = Instant::now();
    loop {
        let i = info(addr).await?;
        if i["ready"] == true {
            return Ok(i);
        }
        if t.elapsed() > Duration::from_secs(900) {
            return Err("the server is not ready after 15 minutes".into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The request targets of [`positions_fens`].
fn positions(info: &serde_json::Value, games: usize, seed: u64) -> (Vec<String>, usize, usize) {
    let (fens, placing, moving) = positions_of(info, games, seed);
    let targets = fens
        .into_iter()
        .map(|(fen, variant, flying)| position_target(&fen, variant.name(), flying))
        .collect();
    (targets, placing, moving)
}

/// The position strings of [`positions_of`] (for one rule set).
fn positions_fens(
    info: &serde_json::Value,
    games: usize,
    seed: u64,
) -> (Vec<String>, usize, usize) {
    let (fens, placing, moving) = positions_of(info, games, seed);
    (
        fens.into_iter().map(|(f, _, _)| f).collect(),
        placing,
        moving,
    )
}

/// A position string with its variant and flying rule.
type RulePosition = (String, Variant, bool);

/// Positions of random games of each rule set served: every position from the start to the
/// end of the game (or 200 plies), so both phases in the proportions games reach them.
fn positions_of(
    info: &serde_json::Value,
    games: usize,
    seed: u64,
) -> (Vec<RulePosition>, usize, usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let (mut placing, mut moving) = (0, 0);
    for rs in info["rule_sets"].as_array().into_iter().flatten() {
        let variant = if rs["variant"] == "twelve" {
            Variant::Twelve
        } else {
            Variant::Nine
        };
        let flying = rs["flying"] == true;
        for _ in 0..games {
            let mut pos = Position::new(Rules::new(variant, flying));
            for _ in 0..200 {
                let fen = pos.to_fen();
                if seen.insert((variant, flying, fen.clone())) {
                    if pos.is_moving_phase() {
                        moving += 1;
                    } else {
                        placing += 1;
                    }
                    out.push((fen, variant, flying));
                }
                let moves = pos.legal_moves();
                // The game is over by the rules, or drawn by the 100-ply rule (a position
                // string's counter goes no further).
                if pos.outcome().is_some() || moves.is_empty() || pos.rule50() >= 100 {
                    break;
                }
                pos.make(moves[rng.gen_range(0..moves.len())]);
            }
        }
    }
    (out, placing, moving)
}

/// `--agree`: `n` positions of each rule set served (of random games, shuffled), each asked of
/// the server and computed from the library; prints the counts and every difference.
async fn agree(cli: &Cli, n: usize) -> Result<bool, String> {
    let dir = cli.tables.clone().ok_or("--agree needs --tables DIR")?;
    let i = wait_ready(&cli.addr).await?;
    let tb = Arc::new(Tablebase::open(&dir).map_err(|e| format!("{}: {e}", dir.display()))?);
    let mut c = Conn::new(&cli.addr);
    let (mut compared, mut skipped, mut different) = (0usize, 0usize, 0usize);
    let t = Instant::now();
    for rs in i["rule_sets"].as_array().into_iter().flatten() {
        let variant = if rs["variant"] == "twelve" {
            Variant::Twelve
        } else {
            Variant::Nine
        };
        let rules = Rules::new(variant, rs["flying"] == true);
        let one = serde_json::json!({"rule_sets": [rs]});
        let (games, seed) = (cli.games, cli.seed);
        let (mut fens, _, _) =
            tokio::task::spawn_blocking(move || positions_fens(&one, games, seed))
                .await
                .map_err(|e| e.to_string())?;
        let mut rng = StdRng::seed_from_u64(cli.seed ^ 0xA62E);
        rand::seq::SliceRandom::shuffle(&mut fens[..], &mut rng);
        let (mut counts, mut done) = (BTreeMap::<String, usize>::new(), 0usize);
        for fen in fens {
            if done == n {
                break;
            }
            let pos = Position::from_fen(&fen, rules).map_err(|e| e.to_string())?;
            let tb2 = tb.clone();
            let want = tokio::task::spawn_blocking(move || agree::expected(&tb2, &pos))
                .await
                .map_err(|e| e.to_string())?;
            let Some(want) = want else {
                skipped += 1;
                continue;
            };
            let target = position_target(&fen, variant.name(), rules.flying);
            let r = c.get(&target).await.map_err(|e| format!("{target}: {e}"))?;
            let got = if r.status == 200 {
                r.json()?
            } else {
                serde_json::Value::Null
            };
            if let Some(field) = agree::first_difference(&got, &want) {
                different += 1;
                if different <= 10 {
                    println!("differs in {field}: {target}");
                }
            }
            *counts
                .entry(format!(
                    "{} {}",
                    want["phase"].as_str().unwrap_or(""),
                    want["category"].as_str().unwrap_or("")
                ))
                .or_default() += 1;
            done += 1;
            compared += 1;
        }
        println!("{rules}: {done} positions compared, by phase and category {counts:?}");
    }
    println!(
        "agreement: {compared} positions compared, {different} differ, {skipped} skipped (a move outside the tables), {:.1}s",
        t.elapsed().as_secs_f64()
    );
    Ok(different == 0 && compared > 0)
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

async fn load(cli: &Cli) -> Result<bool, String> {
    let t = Instant::now();
    let i = wait_ready(&cli.addr).await?;
    eprintln!("server ready ({:.1}s)", t.elapsed().as_secs_f64());
    let (games, seed, i2) = (cli.games, cli.seed, i.clone());
    let (targets, placing, moving) =
        tokio::task::spawn_blocking(move || positions(&i2, games, seed))
            .await
            .map_err(|e| e.to_string())?;
    if targets.is_empty() {
        return Err("the server serves no rule set".into());
    }
    eprintln!(
        "{} distinct positions from {} games per rule set: {placing} placing, {moving} moving",
        targets.len(),
        cli.games
    );
    // First answers: ten positions asked one after the other, each on a fresh connection (on
    // a fresh server these are cold: nothing cached, no distance block decoded yet).
    let mut firsts = Vec::new();
    for k in 0..10 {
        let mut c = Conn::new(&cli.addr);
        let t = Instant::now();
        let r = c
            .get(&targets[(k * 7919 + targets.len() / 2) % targets.len()])
            .await
            .map_err(|e| e.to_string())?;
        firsts.push(t.elapsed().as_secs_f64() * 1000.0);
        if r.status != 200 {
            return Err(format!("a first answer was {}", r.status));
        }
    }
    println!(
        "first answers, one at a time: first {:.2} ms, max {:.2} ms, mean {:.2} ms",
        firsts[0],
        firsts.iter().cloned().fold(0.0, f64::max),
        firsts.iter().sum::<f64>() / firsts.len() as f64
    );
    let hits0 = &i["cache"];
    let targets = Arc::new(targets);
    let stop = Arc::new(AtomicBool::new(false));
    let rss = sample_rss(cli.pid, stop.clone());
    let deadline = Instant::now() + Duration::from_secs(cli.duration);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for k in 0..cli.clients {
        let targets = targets.clone();
        let addr = cli.addr.clone();
        let seed = cli.seed.wrapping_mul(1000).wrapping_add(k as u64);
        tasks.push(tokio::spawn(async move {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut conn = Conn::new(&addr);
            let mut lat = Vec::new();
            let mut statuses: BTreeMap<String, u64> = BTreeMap::new();
            while Instant::now() < deadline {
                let target = &targets[rng.gen_range(0..targets.len())];
                let t = Instant::now();
                let r = conn
                    .request_timeout(b"GET", target.as_bytes(), Duration::from_secs(10))
                    .await;
                lat.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
                let key = match r {
                    Ok(Reply { status, .. }) => status.to_string(),
                    Err(e) => format!("io: {}", e.kind()),
                };
                *statuses.entry(key).or_default() += 1;
            }
            (lat, statuses)
        }));
    }
    let mut lat = Vec::new();
    let mut statuses: BTreeMap<String, u64> = BTreeMap::new();
    for t in tasks {
        let (l, s) = t.await.map_err(|e| e.to_string())?;
        lat.extend(l);
        for (k, v) in s {
            *statuses.entry(k).or_default() += v;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let rss = rss.await.unwrap_or_default();
    lat.sort_unstable();
    let ok = statuses.get("200").copied().unwrap_or(0);
    let errors = lat.len() as u64 - ok;
    let after = info(&cli.addr).await?;
    let hits = after["cache"]["hits"].as_u64().unwrap_or(0) - hits0["hits"].as_u64().unwrap_or(0);
    let misses =
        after["cache"]["misses"].as_u64().unwrap_or(0) - hits0["misses"].as_u64().unwrap_or(0);
    println!(
        "{} requests in {secs:.1}s with {} clients: {:.0} answers/s",
        lat.len(),
        cli.clients,
        ok as f64 / secs
    );
    println!(
        "latency ms: p50 {:.2}, p90 {:.2}, p99 {:.2}, p99.9 {:.2}, max {:.2}",
        percentile(&lat, 0.5),
        percentile(&lat, 0.9),
        percentile(&lat, 0.99),
        percentile(&lat, 0.999),
        percentile(&lat, 1.0)
    );
    println!("statuses: {statuses:?}; errors (not 200): {errors}");
    println!(
        "server cache: {hits} hits, {misses} misses ({:.1} % hits), {} entries",
        100.0 * hits as f64 / (hits + misses).max(1) as f64,
        after["cache"]["entries"]
    );
    println!("{}", rss_summary(&rss));
    Ok(errors == 0)
}

/// One malformed request: method, raw request target, what it tries.
fn malformed(rng: &mut StdRng) -> (&'static [u8], Vec<u8>, &'static str) {
    const TRAVERSAL: [&str; 12] = [
        "/../../etc/passwd",
        "/api/v1/../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/api/v1/%2e%2e/%2e%2e/Cargo.toml",
        "/api/v1/position?variant=../../../etc/passwd",
        "/api/v1/position?variant=..%2F..%2Fetc%2Fpasswd",
        "/api/v1/sector?variant=nine-fly-3v3.mtb&w=3&b=3",
        "/api/v1/sector?w=3&b=3&flying=..%2F..%2F",
        "/board.js/../../Cargo.toml",
        "/tables/nine-fly-3v3.mtb",
        "/api/v1/info?file=/etc/passwd",
        "//etc/passwd",
    ];
    const BAD_FENS: [&str; 10] = [
        "WWW/WWW/WWW/WWWWWW/WWW/WWW/WWW w 0 0 0 1",
        ".../.../.../....../.../.../... x 9 9 0 1",
        ".../.../.../....../.../.../... w 10 9 0 1",
        ".../.../.../....../.../.../... w 9 9 0",
        ".../.../.../....../.../.../... w 9 9 0 1 1",
        ".../.../.../....../.../.../... w -1 9 0 1",
        ".../.../.../....../.../.../... w 9 9 0 99999999999999999999",
        "../.../.../....../.../.../... w 9 9 0 1",
        ".../.../.../...X../.../.../... w 9 9 0 1",
        "BBB/BBB/BBB/...... w 0 0 0 1",
    ];
    let random_bytes =
        |rng: &mut StdRng, n: usize| -> Vec<u8> { (0..n).map(|_| rng.gen()).collect() };
    match rng.gen_range(0..12) {
        0 => {
            let n = rng.gen_range(1..80);
            let b = random_bytes(rng, n);
            (
                b"GET",
                format!("/api/v1/position?fen={}", encode(&b)).into_bytes(),
                "random bytes",
            )
        }
        1 => {
            // Raw printable characters, unencoded ('#' and spaces excluded: they would end the
            // target and make a different, still malformed, request).
            let n = rng.gen_range(1..80);
            let s: String = (0..n)
                .map(|_| rng.gen_range(0x21u8..0x7f) as char)
                .filter(|c| *c != '#')
                .collect();
            (
                b"GET",
                format!("/api/v1/position?fen={s}").into_bytes(),
                "raw characters",
            )
        }
        2 => {
            let n = rng.gen_range(513..60_000);
            let key = ["fen", "variant", "x"][rng.gen_range(0..3)];
            (
                b"GET",
                format!("/api/v1/position?{key}={}", "W".repeat(n)).into_bytes(),
                "huge query",
            )
        }
        3 => {
            let n = rng.gen_range(1..12);
            let mut v: String = (0..n).map(|_| rng.gen_range(b'a'..=b'z') as char).collect();
            if v == "nine" || v == "twelve" {
                v.push('x');
            }
            (
                b"GET",
                format!("/api/v1/position?variant={v}").into_bytes(),
                "wrong variant",
            )
        }
        4 => (
            b"GET",
            TRAVERSAL[rng.gen_range(0..TRAVERSAL.len())]
                .as_bytes()
                .to_vec(),
            "traversal",
        ),
        5 => {
            let bad = [
                "%", "%G1", "%zz", "%E2%82", "%FF%FE", "%C0%AF", "abc%2", "%%",
            ][rng.gen_range(0..8)];
            (
                b"GET",
                format!("/api/v1/position?fen=W{bad}").into_bytes(),
                "bad escape",
            )
        }
        6 => {
            let f = BAD_FENS[rng.gen_range(0..BAD_FENS.len())];
            (
                b"GET",
                position_target(f, "nine", true).into_bytes(),
                "impossible position",
            )
        }
        7 => {
            let n = rng.gen_range(1..20);
            let k: String = (0..n).map(|_| rng.gen_range(b'a'..=b'z') as char).collect();
            let k = if ["fen", "variant", "flying"].contains(&k.as_str()) {
                format!("{k}_")
            } else {
                k
            };
            (
                b"GET",
                format!("/api/v1/position?{k}=1").into_bytes(),
                "unknown parameter",
            )
        }
        8 => {
            let n = rng.gen_range(1..40);
            let p: String = (0..n).map(|_| rng.gen_range(b'a'..=b'z') as char).collect();
            (b"GET", format!("/api/v1/{p}").into_bytes(), "unknown route")
        }
        9 => {
            let m: &'static [u8] = [&b"POST"[..], b"PUT", b"DELETE", b"PATCH"][rng.gen_range(0..4)];
            (m, b"/api/v1/position".to_vec(), "wrong method")
        }
        10 => {
            let q = [
                "w=99&b=3",
                "w=2&b=2",
                "ply=200&w=3&b=3",
                "w=3",
                "w=-1&b=3",
                "w=3&b=3&flying=maybe",
                "fen=x",
                "ply=0&w=9&b=9",
                "w=3&b=3&w=4",
            ][rng.gen_range(0..9)];
            (
                b"GET",
                format!("/api/v1/sector?{q}").into_bytes(),
                "bad sector",
            )
        }
        _ => {
            // Raw bytes that are not allowed in a request target (control, non-ASCII).
            let n = rng.gen_range(1..30);
            let mut t = b"/api/v1/position?fen=".to_vec();
            t.extend((0..n).map(|_| loop {
                let b: u8 = rng.gen();
                if !(0x20..0x7f).contains(&b) && b != b'\r' && b != b'\n' {
                    break b;
                }
            }));
            (b"GET", t, "raw bytes")
        }
    }
}

async fn fuzz(cli: &Cli, n: usize) -> Result<bool, String> {
    wait_ready(&cli.addr).await?;
    let before = cli.pid.and_then(rss_kib);
    let stop = Arc::new(AtomicBool::new(false));
    let rss = sample_rss(cli.pid, stop.clone());
    let start = Instant::now();
    let mut tasks = Vec::new();
    let clients = cli.clients.max(1);
    for k in 0..clients {
        let addr = cli.addr.clone();
        let count = n / clients + usize::from(k < n % clients);
        let seed = cli.seed.wrapping_mul(7919).wrapping_add(k as u64);
        tasks.push(tokio::spawn(async move {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut conn = Conn::new(&addr);
            let mut by_kind: BTreeMap<(&'static str, String), u64> = BTreeMap::new();
            let mut bad: Vec<String> = Vec::new();
            for _ in 0..count {
                let (method, target, kind) = malformed(&mut rng);
                let r = conn
                    .request_timeout(method, &target, Duration::from_secs(10))
                    .await;
                let (key, ok) = match &r {
                    Ok(r) => {
                        // Our own refusals are JSON; hyper's (a request line it cannot parse)
                        // have no body, but are 4xx all the same.
                        let json_ok =
                            r.body.is_empty() || r.json().is_ok_and(|j| j["error"].is_string());
                        (
                            r.status.to_string(),
                            (400..500).contains(&r.status) && json_ok,
                        )
                    }
                    Err(e) => (format!("io: {}", e.kind()), false),
                };
                if !ok && bad.len() < 5 {
                    bad.push(format!(
                        "{kind}: {} -> {key}",
                        String::from_utf8_lossy(&target[..target.len().min(120)])
                    ));
                }
                *by_kind.entry((kind, key)).or_default() += 1;
            }
            (by_kind, bad)
        }));
    }
    let mut by_kind: BTreeMap<(&'static str, String), u64> = BTreeMap::new();
    let mut bad = Vec::new();
    for t in tasks {
        let (k, b) = t.await.map_err(|e| e.to_string())?;
        for (key, v) in k {
            *by_kind.entry(key).or_default() += v;
        }
        bad.extend(b);
    }
    let secs = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let rss = rss.await.unwrap_or_default();
    let not_4xx: u64 = by_kind
        .iter()
        .filter(|((_, s), _)| !s.starts_with('4'))
        .map(|(_, v)| v)
        .sum();
    println!(
        "{n} malformed requests in {secs:.1}s ({:.0}/s)",
        n as f64 / secs
    );
    for ((kind, status), count) in &by_kind {
        println!("  {kind:<20} {status:<12} {count}");
    }
    for b in &bad {
        println!("  NOT A 4xx JSON REFUSAL: {b}");
    }
    let alive = info(&cli.addr).await.is_ok_and(|i| i["api"] == "v1");
    println!("answers that were not 4xx: {not_4xx}; server alive afterwards: {alive}");
    if let (Some(b), Some(a)) = (before, cli.pid.and_then(rss_kib)) {
        println!(
            "server RssAnon before {} MiB, after {} MiB (VmRSS {} -> {} MiB)",
            b.1 / 1024,
            a.1 / 1024,
            b.0 / 1024,
            a.0 / 1024
        );
    }
    println!("{}", rss_summary(&rss));
    Ok(not_4xx == 0 && bad.is_empty() && alive)
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    let result = match (cli.fuzz, cli.agree) {
        (Some(n), _) => fuzz(&cli, n).await,
        (None, Some(n)) => agree(&cli, n).await,
        (None, None) => load(&cli).await,
    };
    match result {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("mill-serve-load: {e}");
            std::process::exit(2);
        }
    }
}
