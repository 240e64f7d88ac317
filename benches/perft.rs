//! Perft speed: leaves per second with bulk counting, against a plain perft that plays every
//! leaf move.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use millstone::perft::{perft, perft_full};
use millstone::{Position, Rules, Variant};

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, variant, depth) in [("nine", Variant::Nine, 6), ("twelve", Variant::Twelve, 6)] {
        let mut pos = Position::new(Rules::new(variant, true));
        let leaves = perft(&mut pos, depth);
        group.throughput(Throughput::Elements(leaves));
        group.bench_with_input(
            BenchmarkId::new(format!("bulk-{name}"), depth),
            &depth,
            |b, &d| b.iter(|| assert_eq!(perft(&mut pos, d), leaves)),
        );
        group.bench_with_input(
            BenchmarkId::new(format!("full-{name}"), depth),
            &depth,
            |b, &d| b.iter(|| assert_eq!(perft_full(&mut pos, d), leaves)),
        );
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
