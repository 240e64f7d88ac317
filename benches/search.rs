//! Search speed: nodes per second on one thread, time to a fixed depth from the start, the
//! two-thread speed-up, and the lock-free table against a `dashmap` table on the same workload.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dashmap::DashMap;
use millstone::engine::Engine;
use millstone::search::Limits;
use millstone::tt::{Bound, TranspositionTable};
use millstone::{Game, Move, Rules, Variant};
use rayon::prelude::*;

fn limits(depth: i32) -> Limits {
    Limits {
        depth: Some(depth),
        multipv: 1,
        ..Limits::default()
    }
}

fn search_nodes(threads: usize, variant: Variant, depth: i32) -> u64 {
    let mut e = Engine::with_hash_mb(64);
    e.set_threads(threads);
    let g = Game::from_rules(Rules::new(variant, true));
    e.search(&g, &limits(depth), Box::new(|_| {})).nodes
}

fn time_to_depth(c: &mut Criterion) {
    let mut group = c.benchmark_group("time_to_depth");
    group.sample_size(10);
    for (name, variant) in [("nine", Variant::Nine), ("twelve", Variant::Twelve)] {
        for threads in [1, 2] {
            let depth = 11;
            // Throughput in nodes: criterion then reports nodes per second.
            let nodes = search_nodes(threads, variant, depth);
            group.throughput(Throughput::Elements(nodes));
            group.bench_with_input(
                BenchmarkId::new(format!("{name}-d{depth}"), format!("{threads}t")),
                &threads,
                |b, &t| b.iter(|| search_nodes(t, variant, depth)),
            );
        }
    }
    group.finish();
}

/// The table's own workload: a stream of keys, each probed and then stored, as a search does.
fn keys(n: usize) -> Vec<u64> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|i| {
            // Revisit earlier keys now and then, as transpositions do.
            if i % 4 == 3 {
                return (x >> 7).wrapping_mul(0x2545_F491_4F6C_DD1D) % (i as u64 + 1);
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

fn table_workload(c: &mut Criterion) {
    let mut group = c.benchmark_group("tt");
    let ks = keys(1 << 20);
    let mv: Move = "d6-d5".parse().unwrap();
    group.throughput(Throughput::Elements(ks.len() as u64));
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let tt = TranspositionTable::new(16);
        group.bench_function(BenchmarkId::new("lockfree", threads), |b| {
            b.iter(|| {
                pool.install(|| {
                    ks.par_chunks(4096).for_each(|chunk| {
                        for &k in chunk {
                            let hit = tt.probe(k).map_or(0, |e| e.depth);
                            tt.store(k, Some(mv), 10, 5, hit + 1, Bound::Exact);
                        }
                    })
                })
            })
        });
        // The same workload with a concurrent map bounded to the same number of entries.
        let cap = 16 * 1024 * 1024 / 16;
        let map: DashMap<u64, (u16, i16, i16, i8, u8)> = DashMap::with_capacity(cap);
        group.bench_function(BenchmarkId::new("dashmap", threads), |b| {
            b.iter(|| {
                pool.install(|| {
                    ks.par_chunks(4096).for_each(|chunk| {
                        for &k in chunk {
                            let hit = map.get(&(k % cap as u64)).map_or(0, |e| e.3);
                            map.insert(
                                k % cap as u64,
                                (mv.to_u16(), 10, 5, hit.saturating_add(1), 3),
                            );
                        }
                    })
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, time_to_depth, table_workload);
criterion_main!(benches);
