//! Micro-benchmark of the lower-bound tests: nanoseconds per call at N = 2^15 on random inputs,
//! for each algorithm and a few division thresholds (a benchmark, not a test):
//!
//! ```text
//! cargo run --release -p tmd-search --example lower_bound_bench
//! ```

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;
use tmd_search::lower_bound::{lower_bound, min_distance_brute_force, test_lower_bound, Algorithm};

const N: u64 = 1 << 15;

/// Nanoseconds per call of `call` over `inputs`, best of `rounds` passes.
fn nanoseconds_per_call(
    inputs: &[(u64, u64)],
    rounds: usize,
    mut call: impl FnMut(u64, u64) -> u64,
) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let start = Instant::now();
        let mut sink = 0u64;
        for &(a, b) in inputs {
            sink = sink.wrapping_add(call(black_box(a), black_box(b)));
        }
        black_box(sink);
        best = best.min(start.elapsed().as_nanos() as f64 / inputs.len() as f64);
    }
    best
}

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let inputs: Vec<(u64, u64)> = (0..1 << 18).map(|_| (rng.gen(), rng.gen())).collect();
    // A threshold like a phase-1 test: about 2^-10 of the expected minimum gap 2^-15.
    let threshold = 1u64 << (64 - 15 - 10);
    println!("N = 2^15, {} random (a, b), best of 5:", inputs.len());
    for division_threshold in [0u32, 1, 3, 8, 64] {
        for algorithm in Algorithm::ALL {
            let bound = nanoseconds_per_call(&inputs, 5, |a, b| {
                lower_bound(algorithm, a, b, N, division_threshold).distance
            });
            let test = nanoseconds_per_call(&inputs, 5, |a, b| {
                u64::from(
                    test_lower_bound(algorithm, a, b, N, threshold, division_threshold).passed,
                )
            });
            println!(
                "  division threshold {division_threshold:>2}  {:<17} lower bound {bound:6.1} ns   test {test:6.1} ns",
                algorithm.name()
            );
        }
    }
    let brute = nanoseconds_per_call(&inputs[..1 << 10], 1, |a, b| {
        min_distance_brute_force(a, b, N)
    });
    println!("  brute force (exhaustive, N = 2^15)  {brute:.0} ns");
}
