//! Perft speed in leaves per second: bulk counting at depth 7 from the start of nine (the
//! figure the project tracks), and bulk against a plain perft that plays every leaf move at
//! depth 6, for both variants. And the random players' kernel (the Python bindings' `VectorEnv`):
//! counting and choosing a move in positions of random games, and random games themselves.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use millstone::movegen;
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

/// SplitMix64, seeded: the same positions and choices in every run.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (((z ^ (z >> 31)) as u128 * n as u128) >> 64) as u64
    }
}

/// Plays one random move of `pos` unless the game is over (material, blockade, 100 plies;
/// repetition is the bindings' business), else starts a new game.
fn random_move(pos: &mut Position, rng: &mut SplitMix) {
    match movegen::choose(pos, |n| rng.below(n)) {
        Some(m) if pos.rule50() < 100 => {
            pos.make(m);
        }
        _ => *pos = Position::new(pos.rules()),
    }
}

fn bench_random(c: &mut Criterion) {
    let mut group = c.benchmark_group("random");
    for (name, variant) in [("nine", Variant::Nine), ("twelve", Variant::Twelve)] {
        let mut rng = SplitMix(1);
        let mut pos = Position::new(Rules::new(variant, true));
        let positions: Vec<Position> = (0..100_000)
            .map(|_| {
                random_move(&mut pos, &mut rng);
                pos
            })
            .collect();
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function(BenchmarkId::new("count", name), |b| {
            b.iter(|| positions.iter().map(movegen::count).sum::<u64>())
        });
        group.bench_function(BenchmarkId::new("choose", name), |b| {
            b.iter(|| {
                positions
                    .iter()
                    .filter_map(|p| movegen::choose(p, |n| rng.below(n)))
                    .count()
            })
        });
        group.bench_function(BenchmarkId::new("games", name), |b| {
            b.iter(|| {
                for _ in 0..positions.len() {
                    random_move(&mut pos, &mut rng);
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft, bench_random);
criterion_main!(benches);
