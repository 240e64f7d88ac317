//! The JSON API against the library, over real HTTP: every answer must be what
//! `Tablebase::probe`, `wdl` and `probe_root` say, every bad request a 4xx with a JSON error,
//! and the headers what a public, cacheable service needs.

mod common;

use common::{covered_positions, tables, Server, SETS};
use millstone::tablebase::Tablebase;
use millstone::{Position, Rules};
use millstone_server::agree::{category, expected, COMPARED};
use millstone_server::client::{encode, position_target, Conn};
use serde_json::Value;

fn variant_name(r: Rules) -> &'static str {
    r.variant.name()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_agree_with_the_library() {
    let dir = tables();
    let server = Server::start(dir, &[]);
    let tb = Tablebase::open(dir).unwrap();
    let mut c = Conn::new(&server.addr);
    let (mut placing, mut moving, mut decisive, mut spoilt) = (0, 0, 0, 0);
    for (k, (rules, _)) in SETS.iter().enumerate() {
        for pos in covered_positions(&tb, *rules, 300, 11 + k as u64) {
            let want = expected(&tb, &pos).expect("covered positions have every move valued");
            let target = position_target(&pos.to_fen(), variant_name(*rules), rules.flying);
            let r = c.get(&target).await.unwrap();
            assert_eq!(
                r.status,
                200,
                "{target}: {}",
                String::from_utf8_lossy(&r.body)
            );
            let got = r.json().unwrap();
            for key in COMPARED {
                assert_eq!(got[key], want[key], "{key} of {} ({rules})", pos.to_fen());
            }
            assert_eq!(got["variant"], variant_name(*rules));
            assert_eq!(got["flying"], rules.flying);
            match got["phase"].as_str() {
                Some("placing") => placing += 1,
                _ => moving += 1,
            }
            let cat = got["category"].as_str().unwrap();
            decisive += usize::from(cat == "win" || cat == "loss");
            spoilt += usize::from(cat == "cursed-win" || cat == "blessed-loss");
            // A second ask is served from the cache: the same bytes.
            let again = c.get(&target).await.unwrap();
            assert_eq!(again.body, r.body);
        }
    }
    // The sample must exercise what the answer distinguishes.
    assert!(
        placing >= 50 && moving >= 200,
        "placing {placing}, moving {moving}"
    );
    assert!(decisive >= 100, "decisive {decisive}");
    eprintln!("agreement: {placing} placing, {moving} moving, {decisive} decisive, {spoilt} spoilt by the 100-ply rule");
    let info = c.get("/api/v1/info").await.unwrap().json().unwrap();
    assert!(info["cache"]["hits"].as_u64().unwrap() >= 600, "{info}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn info_lists_what_is_served() {
    let server = Server::start(
        tables(),
        &["--cache", "10", "--max-concurrent", "3", "--prefetch"],
    );
    let r = Conn::new(&server.addr).get("/api/v1/info").await.unwrap();
    assert_eq!(r.status, 200);
    let i = r.json().unwrap();
    let sets = i["rule_sets"].as_array().unwrap();
    assert_eq!(sets.len(), 2, "{i}");
    assert_eq!(sets[0]["variant"], "nine");
    assert_eq!(sets[0]["flying"], true);
    assert_eq!(sets[1]["flying"], false);
    // Nine with flying up to 8 pieces: 3v3, 3v4, 4v3, 3v5, 5v3, 4v4.
    assert_eq!(sets[0]["moving_subspaces"], 6);
    assert_eq!(sets[0]["moving_subspaces_total"], 49);
    assert!(sets[0]["placing_sectors"].as_u64().unwrap() > 0);
    assert_eq!(i["limits"]["max_concurrent"], 3);
    assert_eq!(i["cache"]["capacity"], 16, "10 rounded up to one a shard");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncovered_positions_are_unknown_and_sectors_give_header_counts() {
    let dir = tables();
    let server = Server::start(dir, &[]);
    let tb = Tablebase::open(dir).unwrap();
    let mut c = Conn::new(&server.addr);
    // The start: no table of 18 pieces here.
    let r = c
        .get("/api/v1/position?variant=nine&flying=true")
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let a = r.json().unwrap();
    assert_eq!(a["category"], "unknown");
    assert_eq!(a["phase"], "placing");
    assert_eq!(a["moves"].as_array().unwrap().len(), 24);
    assert!(a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["category"] == "unknown"));
    assert_eq!(r.header("cache-control"), Some("public, max-age=300"));
    // A rule set without tables here.
    let r = c.get("/api/v1/position?variant=twelve").await.unwrap();
    assert_eq!(r.status, 404);
    // Sector statistics, by pieces and by position.
    let r = c
        .get("/api/v1/sector?variant=nine&flying=true&w=4&b=3")
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let s = r.json().unwrap();
    let st = *tb.table(Rules::default(), 4, 3).unwrap().stats();
    assert_eq!(s["positions"], st.positions);
    assert_eq!(s["wins"], st.wins);
    assert_eq!(s["losses"], st.losses);
    assert_eq!(s["draws"], st.draws);
    assert_eq!(s["longest"], st.real_max);
    let fen = "W.W/.../.../B....B/.../W../..B w 0 0 0 20";
    let r = c
        .get(&format!("/api/v1/sector?fen={}", encode(fen.as_bytes())))
        .await
        .unwrap();
    assert_eq!(r.json().unwrap()["pieces_to_move"], 3);
    // A placing sector of the partial set.
    let pos = covered_positions(&tb, Rules::default(), 200, 5)
        .into_iter()
        .find(|p| !p.is_moving_phase())
        .expect("a placing position");
    let r = c
        .get(&format!(
            "/api/v1/sector?fen={}",
            encode(pos.to_fen().as_bytes())
        ))
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let s = r.json().unwrap();
    assert_eq!(s["phase"], "placing");
    let sec = millstone::tablebase::placing::sector_of(&pos).unwrap();
    let hs = tb.placing_table(sec).unwrap().header().stats;
    assert_eq!(s["positions"], hs.positions);
    assert_eq!(s["wins"], hs.wins);
    assert_eq!(s["ply"], sec.ply);
    // Not generated here: 404.
    let r = c.get("/api/v1/sector?w=9&b=9").await.unwrap();
    assert_eq!(r.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_4xx_json() {
    let server = Server::start(tables(), &[]);
    let mut c = Conn::new(&server.addr);
    let huge = format!("/api/v1/position?fen={}", "W".repeat(600));
    let cases: Vec<(&[u8], String, u16)> = vec![
        (b"GET", "/api/v1/position?fen=xx".into(), 400),
        (
            b"GET",
            position_target("WWW/WWW/WWW/WWWWWW/WWW/WWW/WWW w 0 0 0 1", "nine", true),
            400,
        ),
        (
            b"GET",
            position_target(".../.../.../....../.../.../... w 9 9 0 1 7", "nine", true),
            400,
        ),
        (
            b"GET",
            position_target(".../.../.../....../.../.../... w 9 9 101 1", "nine", true),
            400,
        ),
        (b"GET", "/api/v1/position?variant=ten".into(), 400),
        (
            b"GET",
            "/api/v1/position?variant=..%2F..%2Fetc%2Fpasswd".into(),
            400,
        ),
        (b"GET", "/api/v1/position?flying=maybe".into(), 400),
        (b"GET", "/api/v1/position?fen=%zz".into(), 400),
        (b"GET", "/api/v1/position?fen=%E2%82".into(), 400),
        (b"GET", "/api/v1/position?fen=a&fen=b".into(), 400),
        (b"GET", "/api/v1/position?file=/etc/passwd".into(), 400),
        (b"GET", "/api/v1/position?fen".into(), 400),
        (b"GET", "/api/v1/info?x=1".into(), 400),
        (b"GET", huge, 414),
        (b"GET", "/api/v1/sector?w=2&b=2".into(), 400),
        (b"GET", "/api/v1/sector?w=99&b=3".into(), 400),
        (b"GET", "/api/v1/sector?ply=0&w=9&b=9".into(), 400),
        (b"GET", "/api/v1/sector".into(), 400),
        (
            b"GET",
            "/api/v1/position?variant=twelve&flying=false".into(),
            404,
        ),
        (b"GET", "/api/v2/position".into(), 404),
        (b"GET", "/../../etc/passwd".into(), 404),
        (b"GET", "/%2e%2e/%2e%2e/etc/passwd".into(), 404),
        (b"GET", "/nine-fly-3v3.mtb".into(), 404),
        (b"POST", "/api/v1/position".into(), 405),
        (b"DELETE", "/".into(), 405),
    ];
    for (method, target, status) in cases {
        let r = c.request(method, target.as_bytes()).await.unwrap();
        let what = format!("{} {target}", String::from_utf8_lossy(method));
        assert_eq!(
            r.status,
            status,
            "{what}: {}",
            String::from_utf8_lossy(&r.body)
        );
        assert_eq!(r.header("content-type"), Some("application/json"), "{what}");
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{what}");
        let j = r.json().unwrap();
        let msg = j["error"].as_str().unwrap_or_else(|| panic!("{what}: {j}"));
        assert!(!msg.is_empty() && msg.len() < 300, "{what}: {msg}");
        if status != 405 {
            assert_eq!(r.header("cache-control"), Some("no-store"), "{what}");
        }
    }
    // A request line no HTTP parser accepts is refused before the routes (hyper's 400,
    // without a body), and the server goes on.
    let r = c
        .request(b"GET", b"/api/v1/position?fen=\x01\xff")
        .await
        .unwrap();
    assert_eq!(r.status, 400);
    assert_eq!(c.get("/api/v1/info").await.unwrap().status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_for_a_public_cacheable_api() {
    let server = Server::start(tables(), &[]);
    let mut c = Conn::new(&server.addr);
    let fen = "W.W/.../.../B....B/.../W../..B w 0 0 0 20";
    let r = c.get(&position_target(fen, "nine", true)).await.unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(
        r.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    let a = r.json().unwrap();
    assert_eq!(a["category"], "win");
    assert_eq!(a["plies"], 1);
    assert!(
        a["mainline"][0].as_str().unwrap().contains('x'),
        "a mill at once: {a}"
    );
    let pre = c.request(b"OPTIONS", b"/api/v1/position").await.unwrap();
    assert_eq!(pre.status, 204);
    assert_eq!(pre.header("access-control-allow-origin"), Some("*"));
    assert!(pre
        .header("access-control-allow-methods")
        .unwrap()
        .contains("GET"));
    let info = c.get("/api/v1/info").await.unwrap();
    assert_eq!(info.header("cache-control"), Some("no-cache"));
    for (path, kind) in [
        ("/", "text/html; charset=utf-8"),
        ("/board.js", "text/javascript"),
        ("/explorer.js", "text/javascript"),
        ("/explorer.css", "text/css"),
    ] {
        let r = c.get(path).await.unwrap();
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), Some(kind), "{path}");
    }
    let head = c.request(b"HEAD", b"/api/v1/info").await.unwrap();
    assert_eq!(head.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_refuses_with_429() {
    let server = Server::start(tables(), &["--rate-limit", "5"]);
    let mut c = Conn::new(&server.addr);
    let mut statuses = Vec::new();
    let t = std::time::Instant::now();
    for _ in 0..20 {
        let r = c.get("/api/v1/position?variant=nine").await.unwrap();
        if r.status == 429 {
            assert_eq!(r.header("retry-after"), Some("1"));
            assert!(r.json().unwrap()["error"].is_string());
        }
        statuses.push(r.status);
    }
    // A burst of 5, then 5 a second: however slow the machine, no more got through (the
    // start-up polls of /api/v1/info took some of the burst).
    let allowed = statuses.iter().filter(|&&s| s == 200).count() as f64;
    assert!(
        allowed <= 5.0 + 5.0 * t.elapsed().as_secs_f64() + 1.0,
        "{statuses:?}"
    );
    assert!(statuses.contains(&429), "{statuses:?}");
    assert!(
        statuses.iter().all(|&s| s == 200 || s == 429),
        "{statuses:?}"
    );
    // The page itself is not limited.
    assert_eq!(c.get("/").await.unwrap().status, 200);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(
        c.get("/api/v1/position?variant=nine").await.unwrap().status,
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_out_of_a_partial_set_are_unknown_and_listed_last() {
    // The tables without nine-fly-3v4: from four against three, White's quiet moves lead
    // there (Black to move with 3 against 4), its mills to a position Black has lost.
    let full = tables();
    let dir = std::env::temp_dir().join(format!("mill-serve-partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(full).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("nine-fly-") && name != "nine-fly-3v4.mtb" {
            std::fs::copy(e.path(), dir.join(&name)).unwrap();
        }
    }
    let server = Server::start(&dir, &[]);
    let mut c = Conn::new(&server.addr);
    let fen = ".W./.../..B/W....B/.../..W/W.B w 0 0 0 20";
    let r = c.get(&position_target(fen, "nine", true)).await.unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.header("cache-control"), Some("public, max-age=300"));
    let a = r.json().unwrap();
    let pos = Position::from_fen(fen, Rules::default()).unwrap();
    let want = Tablebase::open(full).unwrap().probe(&pos).unwrap();
    assert_eq!(
        a["category"],
        category(want.wdl),
        "the position's own table is there"
    );
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), pos.legal_moves().len());
    let mills: Vec<&Value> = moves
        .iter()
        .filter(|m| m["move"].as_str().unwrap().contains('x'))
        .collect();
    assert_eq!(mills.len(), 3, "d7-a7 with three removals: {a}");
    for (i, m) in moves.iter().enumerate() {
        if i < 3 {
            assert!(m["move"].as_str().unwrap().starts_with("d7-a7x"), "{m}");
            assert_eq!(m["category"], "win");
            assert_eq!(m["plies"], 1);
        } else {
            assert_eq!(m["category"], "unknown", "{m}");
            assert_eq!(m["plies"], Value::Null);
        }
    }
    assert_eq!(a["mainline"], serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}
