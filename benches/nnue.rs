//! The learned evaluation's cost: one evaluation from ready sums (the dense layers) and one
//! move's update of the sums, for each built-in network, over positions of random games. Also
//! prints how many of the first dense layer's inputs are zero, which its layout by input pairs
//! skips (docs/nnue.md, "Sparse dense layers").

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use millstone::nnue::{builtin, Accumulator, QA};
use millstone::{Color, Position, Rules, Variant};
use rand::{Rng, SeedableRng};

/// Consecutive positions of random games: each position and the next.
fn walk(rules: Rules, n: usize) -> Vec<(Position, Position)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Position::new(rules);
        for _ in 0..60 {
            if pos.outcome().is_some() || out.len() == n {
                break;
            }
            let moves = pos.legal_moves();
            let mut next = pos;
            next.make(moves[rng.gen_range(0..moves.len())]);
            out.push((pos, next));
            pos = next;
        }
    }
    out
}

fn nnue(c: &mut Criterion) {
    let mut group = c.benchmark_group("nnue");
    for (name, variant, flying) in [
        ("nine", Variant::Nine, true),
        ("twelve", Variant::Twelve, false),
        ("twelve-flying", Variant::Twelve, true),
    ] {
        let rules = Rules::new(variant, flying);
        let net = builtin(rules).expect("a built-in network");
        let walk = walk(rules, 4096);
        let accs: Vec<Accumulator> = walk
            .iter()
            .map(|(_, p)| Accumulator::new(&net, p))
            .collect();
        let (mut zero, mut zero_pairs, mut pairs) = (0u64, 0u64, 0u64);
        for a in &accs {
            for c in Color::ALL {
                for p in a.values[c.index()][..net.hidden].chunks_exact(2) {
                    let z = [p[0], p[1]].map(|v| v.clamp(0, QA as i16) == 0);
                    zero += z.iter().filter(|&&z| z).count() as u64;
                    zero_pairs += z.iter().all(|&z| z) as u64;
                    pairs += 1;
                }
            }
        }
        eprintln!(
            "{name}: {:.1} % of the first dense layer's inputs zero, {:.1} % of their pairs",
            100.0 * zero as f64 / (2 * pairs) as f64,
            100.0 * zero_pairs as f64 / pairs as f64
        );
        group.throughput(Throughput::Elements(walk.len() as u64));
        group.bench_function(BenchmarkId::new("evaluate", name), |b| {
            b.iter(|| {
                walk.iter()
                    .zip(&accs)
                    .map(|((_, p), a)| net.evaluate(a, p) as i64)
                    .sum::<i64>()
            })
        });
        let parents: Vec<Accumulator> = walk
            .iter()
            .map(|(p, _)| Accumulator::new(&net, p))
            .collect();
        group.bench_function(BenchmarkId::new("update", name), |b| {
            b.iter(|| {
                walk.iter()
                    .zip(&parents)
                    .map(|((before, after), a)| a.updated(&net, before, after).values[0][0] as i64)
                    .sum::<i64>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, nnue);
criterion_main!(benches);
