//! Probe speed of the endgame tables: the tree's W/D/L probe (counters 0..100, and 0), the
//! exact probe (which decodes a distance block), a miss, and `probe_root`, on random positions.
//! Solves nine-with-flying 3v3, 3v4 and 4v3 into a scratch directory first, or probes the tables in
//! `$MILLSTONE_TB_DIR` (nine with flying; positions of every sub-space present there).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use millstone::tablebase::{file_name, solve_pair, Table, Tablebase};
use millstone::{Position, Rules, Variant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::path::PathBuf;

const NINE: Rules = Rules::new(Variant::Nine, true);

fn table_dir() -> PathBuf {
    if let Ok(d) = std::env::var("MILLSTONE_TB_DIR") {
        return PathBuf::from(d);
    }
    let dir = std::env::temp_dir().join(format!("millstone-tb-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut solved: HashMap<(u8, u8), Table> = HashMap::new();
    for (w, b) in [(3, 3), (3, 4)] {
        let (ts, _) = solve_pair(NINE, w, b, &solved, &mut |_| {}).unwrap();
        for t in ts {
            t.write(&dir.join(file_name(NINE, t.w, t.b))).unwrap();
            solved.insert((t.w, t.b), t);
        }
    }
    dir
}

/// Random moving-phase positions of the sub-spaces with a file, counters 0..=max_counter.
fn positions(tb: &Tablebase, n: usize, seed: u64, max_counter: u16) -> Vec<Position> {
    let mut shapes = Vec::new();
    for w in 3..=9u32 {
        for b in 3..=9u32 {
            if tb.path(NINE, w as u8, b as u8).exists() {
                shapes.push((w, b));
            }
        }
    }
    assert!(
        !shapes.is_empty(),
        "no nine-fly tables in {}",
        tb.dir().display()
    );
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let (w, b) = shapes[rng.gen_range(0..shapes.len())];
        let mut cells = ['.'; 24];
        let mut placed = 0;
        while placed < w + b {
            let i = rng.gen_range(0..24);
            if cells[i] == '.' {
                cells[i] = if placed < w { 'W' } else { 'B' };
                placed += 1;
            }
        }
        let ranks: [(usize, usize); 7] =
            [(21, 3), (18, 3), (15, 3), (9, 6), (6, 3), (3, 3), (0, 3)];
        let board: Vec<String> = ranks
            .iter()
            .map(|&(s, l)| cells[s..s + l].iter().collect())
            .collect();
        let fen = format!(
            "{} w 0 0 {} 40",
            board.join("/"),
            rng.gen_range(0..=max_counter)
        );
        if let Ok(p) = Position::from_fen(&fen, NINE) {
            if p.outcome().is_none() {
                out.push(p);
            }
        }
    }
    out
}

fn probes(c: &mut Criterion) {
    let dir = table_dir();
    let tb = Tablebase::open(&dir).unwrap();
    let snap = tb.snapshot(NINE);
    let pos = positions(&tb, 4096, 1, 100);
    let pos0 = positions(&tb, 4096, 2, 0);
    // Open every file before measuring.
    for p in &pos {
        assert!(snap.probe_wdl(p).is_some());
    }
    let placing = Position::from_fen("W../.B./.../....../.../.../... w 8 8 0 2", NINE).unwrap();
    let mut group = c.benchmark_group("tablebase");
    group.throughput(Throughput::Elements(pos.len() as u64));
    group.bench_function("probe_wdl", |b| {
        b.iter(|| pos.iter().filter_map(|p| snap.probe_wdl(p)).count())
    });
    group.bench_function("probe_wdl_counter_0", |b| {
        b.iter(|| pos0.iter().filter_map(|p| snap.probe_wdl(p)).count())
    });
    group.bench_function("probe", |b| {
        b.iter(|| pos.iter().filter_map(|p| snap.probe(p)).count())
    });
    group.bench_function("miss_placing", |b| {
        b.iter(|| {
            (0..pos.len())
                .filter_map(|_| snap.probe_wdl(std::hint::black_box(&placing)))
                .count()
        })
    });
    group.throughput(Throughput::Elements(256));
    group.bench_function("probe_root", |b| {
        b.iter(|| pos[..256].iter().filter_map(|p| tb.probe_root(p)).count())
    });
    group.finish();
    if std::env::var("MILLSTONE_TB_DIR").is_err() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = probes
}
criterion_main!(benches);
