//! Side by side, in one run: `tmd crunch` against an MPFR-per-input check of the same range
//! (what exhaustive harnesses such as LLVM libc's or CORE-MATH's do: MPFR evaluates f for every
//! input and the result is compared with it), both on all threads of the rayon pool.
//!
//! ```text
//! cargo run --release -p tmd-crunch --example bench_vs_mpfr -- std:expf 0x1p+0 0x1p+1 3
//! ```
//! Arguments: target, from, to (numbers of the target's format), runs. Prints, per run, the
//! seconds and inputs per second of each, and their ratio; checks that both find the same
//! maximum and the same count of correctly rounded results.

use rayon::prelude::*;
use std::time::Instant;
use tmd_core::number::parse_rounded;
use tmd_crunch::driver::{eval_one, run, Plan};
use tmd_crunch::oracle::error;
use tmd_crunch::{resolve, Target};

/// The MPFR-per-input check of every input: one MPFR evaluation of f at 128 bits and the
/// error of the result (`tmd_crunch::oracle::error`), as a harness would do it.
/// Returns (count of errors below 1/2, maximum error).
fn mpfr_per_input(target: &dyn Target, plan: &Plan) -> (u64, f64) {
    let fmt = target.format();
    let func = target.function();
    let chunks: Vec<i64> = (plan.first..plan.end).step_by(1 << 14).collect();
    chunks
        .par_iter()
        .map(|&lo| {
            let hi = (lo + (1 << 14)).min(plan.end);
            let (mut cr, mut max) = (0u64, 0f64);
            for o in lo..hi {
                let x = fmt.from_ordinal(o);
                let err = error(func, fmt, x, eval_one(target, x), 128);
                cr += u64::from(err < 0.5);
                max = max.max(err);
            }
            (cr, max)
        })
        .reduce(|| (0, 0.0), |a, b| (a.0 + b.0, a.1.max(b.1)))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let target = resolve(&args[1]).expect("target");
    let fmt = target.format();
    let bound = |s: &str| {
        parse_rounded(s, &fmt.core())
            .expect("number")
            .0
            .to_float()
            .to_f64()
    };
    let plan = Plan::new(fmt, bound(&args[2]), bound(&args[3]), 20).expect("range");
    let runs: usize = args.get(4).map_or(3, |r| r.parse().expect("runs"));
    let n = plan.inputs() as f64;
    println!(
        "{} over [{}, {}): {} inputs, {} threads",
        target.name(),
        args[2],
        args[3],
        plan.inputs(),
        rayon::current_num_threads()
    );
    println!("run\tcrunch_s\tcrunch_inputs_per_s\tmpfr_s\tmpfr_inputs_per_s\tratio");
    for r in 0..runs {
        let t0 = Instant::now();
        let (report, _) = run(target.as_ref(), &plan, |_, _| {}).expect("crunch");
        let t_crunch = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let (cr, max) = mpfr_per_input(target.as_ref(), &plan);
        let t_mpfr = t1.elapsed().as_secs_f64();
        assert_eq!(
            report.outcome.correctly_rounded, cr,
            "correctly rounded counts differ"
        );
        let m = report.outcome.max_ulp.expect("a finite maximum");
        assert!(
            (m - max).abs() < 1e-12 * m.max(1.0),
            "maxima differ: {m} vs {max}"
        );
        println!(
            "{r}\t{t_crunch:.3}\t{:.3e}\t{t_mpfr:.3}\t{:.3e}\t{:.1}",
            n / t_crunch,
            n / t_mpfr,
            t_mpfr / t_crunch
        );
    }
}
