//! Perft speed in leaves per second: bulk counting at depth 7 from the start of nine (the
//! figure the project tracks), and bulk against a plain perft that plays every leaf move at
//! depth 6, for both variants.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use millstone::perft::{perft, perft_full};
use millstone::{Position, Rules, Variant};

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    let mut nine = Position::new(Rules::default());
    let leaves7 = perft(&mut nine, 7);
    group.throughput(Throughput::Elements(leaves7));
    group.bench_function(BenchmarkId::new("bulk-nine", 7), |b| {
        b.iter(|| assert_eq!(perft(&mut nine, 7), leaves7))
    });
    for (name, variant) in [("nine", Variant::Nine), ("twelve", Variant::Twelve)] {
        let depth = 6;
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
