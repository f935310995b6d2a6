//! Every positive finite binary32 argument through the binary32-argument sin, cos and tan:
//! how many the reduction refuses (reduced argument below 2^-40 of a quadrant) and the time
//! per call, beside the `libm` crate's binary64 functions and xfloat's double-double ones
//! (`Dd::sin`, `Dd::cos`, and tan as their quotient) on the same arguments.
//!
//! `cargo run --release -p tmd-xfloat --example binary32_trig_sweep [STEP]` (every STEP-th
//! argument; 1, the default, for all 2^31 - 2^23).

use std::hint::black_box;
use std::time::Instant;
use tmd_xfloat::math::binary32_trig::{cos_binary32, sin_binary32, tan_binary32};
use tmd_xfloat::Dd;

type Kernel = fn(f32) -> Option<f64>;
type Binary64 = fn(f64) -> f64;
type DoubleDouble = fn(Dd) -> Dd;

fn main() {
    let step: u32 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("STEP: a positive integer"))
        .unwrap_or(1);
    let last = f32::MAX.to_bits();
    let kernels: [(&str, Kernel, Binary64, DoubleDouble); 3] = [
        ("sin", sin_binary32, libm::sin, Dd::sin),
        ("cos", cos_binary32, libm::cos, Dd::cos),
        ("tan", tan_binary32, libm::tan, |x| {
            let (s, c) = x.sin_cos();
            s / c
        }),
    ];
    for (name, kernel, libm_f, dd_f) in kernels {
        let t = Instant::now();
        let (mut refused, mut calls, mut sum) = (0u64, 0u64, 0f64);
        for bits in (0..=last).step_by(step as usize) {
            match kernel(f32::from_bits(bits)) {
                Some(v) => sum += v,
                None => {
                    refused += 1;
                    println!("{name}: refused {:#010x}", bits);
                }
            }
            calls += 1;
        }
        let ns = t.elapsed().as_secs_f64() * 1e9 / calls as f64;
        let t = Instant::now();
        for bits in (0..=last).step_by(step as usize) {
            sum += libm_f(black_box(f32::from_bits(bits) as f64));
        }
        let libm_ns = t.elapsed().as_secs_f64() * 1e9 / calls as f64;
        let t = Instant::now();
        for bits in (0..=last).step_by(step as usize) {
            sum += dd_f(black_box(Dd::from(f32::from_bits(bits) as f64))).hi();
        }
        let dd_ns = t.elapsed().as_secs_f64() * 1e9 / calls as f64;
        println!(
            "{name}: {calls} arguments, {refused} refused, {ns:.1} ns per call \
             (libm crate's binary64 {name}: {libm_ns:.1} ns, double-double: {dd_ns:.1} ns) [{}]",
            black_box(sum).is_nan()
        );
    }
}
