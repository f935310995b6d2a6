//! Speed of `Dd`'s table-driven logarithm, sine and cosine against the generic algorithms of
//! `tmd_xfloat::math`, in nanoseconds per call (throughput: independent calls may overlap),
//! best of 5 passes over seeded inputs. A benchmark, not a test: run it in release mode,
//!
//! ```sh
//! cargo run --release -p tmd-xfloat --example dd_method_speed
//! ```
//!
//! and compare figures within one run only (machines are noisy).

#[path = "../tests/common/mod.rs"]
mod common;

use common::{log_uniform, rng, uniform};
use std::hint::black_box;
use std::time::Instant;
use tmd_xfloat::math::{self, dd_trig};
use tmd_xfloat::Dd;

/// Nanoseconds per call of `f` over `xs`, best of 5 passes.
fn time_ns(xs: &[Dd], f: impl Fn(Dd) -> Dd) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        for &x in xs {
            black_box(f(black_box(x)));
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    best * 1e9 / xs.len() as f64
}

fn log_speed() {
    let mut g = rng(0x106_0009);
    let xs: Vec<Dd> = (0..1_000_000)
        .map(|_| log_uniform::<Dd, _>(&mut g, -20, 20, false))
        .collect();
    let table = time_ns(&xs, |x| x.ln());
    let generic = time_ns(&xs, math::log);
    println!("log 2^[-20, 20): table-driven {table:.1} ns, generic {generic:.1} ns");
}

fn trig_speed() {
    let mut g = rng(35);
    let pi = std::f64::consts::PI;
    let ranges: [(&str, Vec<Dd>); 3] = [
        (
            "[-pi, pi]",
            (0..1_000_000).map(|_| uniform(&mut g, -pi, pi)).collect(),
        ),
        (
            "[-2^20, 2^20]",
            (0..1_000_000)
                .map(|_| uniform(&mut g, -1048576.0, 1048576.0))
                .collect(),
        ),
        (
            "2^[22, 1024)",
            (0..100_000)
                .map(|_| log_uniform(&mut g, 22, 1024, true))
                .collect(),
        ),
    ];
    for (name, xs) in &ranges {
        let generic = time_ns(xs, math::sin::<Dd>);
        let sin = time_ns(xs, dd_trig::sin);
        let cos = time_ns(xs, dd_trig::cos);
        let both = time_ns(xs, |x| {
            let (s, c) = dd_trig::sin_cos(x);
            s + c
        });
        println!(
            "{name}: generic sin {generic:.1} ns, sin {sin:.1} ns, cos {cos:.1} ns, \
             sin_cos (+ one addition) {both:.1} ns"
        );
    }
}

fn main() {
    log_speed();
    trig_speed();
}
