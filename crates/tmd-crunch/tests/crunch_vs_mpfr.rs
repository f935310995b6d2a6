//! Crunch's counts, maximum and argument against an independent MPFR-per-input
//! computation (the way existing exhaustive harnesses work), on windows spread over the whole
//! range of each target and on random inputs.
//!
//! The independent side is `tmd_crunch::oracle`, which shares no code with crunch's analysis.
//! `TMD_EXTENSIVE=1` checks 2^24 random inputs per binary32 target instead of 2^16.

mod common;

use common::{check_summary, random_windows};
use std::cmp::Ordering;
use tmd_crunch::driver::{crunch_chunk, run, Plan};
use tmd_crunch::oracle::judge;
use tmd_crunch::{resolve, CrunchFormat, Rounding};

fn extensive() -> bool {
    tmd_test_tier::extensive()
}

fn check_target(name: &str, windows: &[(i64, i64)]) {
    let target = resolve(name).unwrap();
    for &(lo, hi) in windows {
        let s = crunch_chunk(target.as_ref(), lo, hi);
        check_summary(target.as_ref(), lo, hi, &s);
    }
}

/// Windows around places where things happen: zero, subnormal results, overflow, the
/// binade edges near 1, large trigonometric arguments.
fn edge_windows(fmt: CrunchFormat) -> Vec<(i64, i64)> {
    let places: &[f64] = &[
        0.0,
        1e-40,
        -1e-40,
        0.5,
        1.0,
        -1.0,
        2.0,
        88.7,
        -87.3,
        -103.5,
        709.7,
        -708.0,
        -745.0,
        1e22,
        -3.0e5,
        1e30,
        709.782712893384,
        -710.4758600739439,
        -762.46,
        -800.0,
        800.0,
    ];
    places
        .iter()
        .filter(|&&v| fmt == CrunchFormat::Binary64 || (v as f32).is_finite())
        .map(|&v| {
            let o = fmt.ordinal(if fmt == CrunchFormat::Binary32 {
                v as f32 as f64
            } else {
                v
            });
            (o - 300, o + 300)
        })
        .collect()
}

#[test]
fn binary32_targets_match_independent_mpfr() {
    let fmt = CrunchFormat::Binary32;
    let mut windows = edge_windows(fmt);
    windows.extend(random_windows(fmt, 24, 256, 6));
    for name in [
        "std:expf",
        "libm:expf",
        "std:logf",
        "libm:logf",
        "std:sinf",
        "libm:sinf",
        "std:cosf",
        "libm:cosf",
        "libm:expm1f",
        "std:tanf",
        "libm:atanf",
        "std:sqrtf",
        "libm:cbrtf",
        "xfloat:expf",
        "xfloat:sinf",
        "emul:vrecpe-nr1f",
        "emul:rcpps-nr0f",
        "libm:erff",
        "libm:erfcf",
    ] {
        check_target(name, &windows);
    }
}

#[test]
fn binary64_targets_match_independent_mpfr() {
    let fmt = CrunchFormat::Binary64;
    let mut windows = edge_windows(fmt);
    windows.extend(random_windows(fmt, 12, 128, 64));
    for name in [
        "std:exp",
        "libm:exp",
        "std:log",
        "libm:sin",
        "std:cos",
        "libm:tan",
        "std:atan",
        "xfloat:exp",
        "xfloat:log",
        "libm:exp2",
        "emul:vrecpe-nr3",
        "emul:rcpps-nr2",
        "std:sinh",
        "libm:cosh",
        "std:expm1",
        "libm:expm1",
        "libm:erf",
        "libm:erfc",
    ] {
        check_target(name, &windows);
    }
}

/// The binary64 functions whose references are composed from xfloat's table-driven functions
/// (`tmd_crunch::dd_composed`), on windows at their edges (both sides of 0, ±1/2 and ±1 where
/// the formulas switch or the function has a pole, 2^-500 and 2^60 where asinh and acosh
/// switch, subnormal and overflowing results of exp2 and exp10) and on random windows.
#[test]
fn binary64_composed_references_match_independent_mpfr() {
    let fmt = CrunchFormat::Binary64;
    let places = [
        0.0,
        1e-300,
        2e-151,
        0.5,
        -0.5,
        1.0,
        -1.0,
        2.0,
        1.152921504606847e18,
        -1.152921504606847e18,
        1e300,
        1024.0,
        -1022.0,
        -1074.5,
        308.25,
        -307.65,
        -323.6,
        27.0,
        -0.9999999999,
    ];
    let mut windows: Vec<(i64, i64)> = places
        .iter()
        .map(|&v| (fmt.ordinal(v) - 300, fmt.ordinal(v) + 300))
        .collect();
    windows.extend(random_windows(fmt, 12, 128, 96));
    for name in [
        "libm:exp2",
        "libm:exp10",
        "libm:log2",
        "std:log10",
        "libm:cbrt",
        "libm:asin",
        "std:acos",
        "libm:asinh",
        "libm:acosh",
        "libm:atanh",
    ] {
        check_target(name, &windows);
    }
}

#[test]
fn random_inputs_match_independent_mpfr() {
    // Random single inputs (windows of 16) over all binary32 numbers.
    let count = if extensive() { 1 << 20 } else { 1 << 12 };
    let windows = random_windows(CrunchFormat::Binary32, count, 16, 2024);
    for name in [
        "std:expf",
        "std:logf",
        "std:sinf",
        "std:cosf",
        "libm:expf",
        "libm:logf",
        "libm:sinf",
        "libm:cosf",
    ] {
        check_target(name, &windows);
    }
}

#[test]
fn reported_maximum_is_exact_and_first() {
    // [1, 1 + 2^-9) of expf: the report's maximum and argument equal the independent ones.
    for name in ["std:expf", "libm:expf", "libm:sinf"] {
        let target = resolve(name).unwrap();
        let fmt = target.format();
        let plan = Plan::new(fmt, 1.0, 1.0 + 1.0 / 512.0, 12).unwrap();
        let (report, _) = run(target.as_ref(), &plan, |_, _| {}).unwrap();
        let mut best: Option<(f64, i64)> = None;
        let mut cr = 0;
        for o in plan.first..plan.end {
            let x = fmt.from_ordinal(o);
            let a = tmd_crunch::driver::eval_one(target.as_ref(), x);
            let ind = judge(target.function(), fmt, x, a, Rounding::Nearest);
            cr += u64::from(ind.correctly_rounded);
            let e = ind.err.unwrap();
            if best.is_none_or(|(m, _)| e.partial_cmp(&m) == Some(Ordering::Greater)) {
                best = Some((e, o));
            }
        }
        let (m, o) = best.unwrap();
        assert!(report.outcome.bound.unwrap().max_verified, "{name}");
        assert_eq!(report.outcome.max_ulp, Some(m), "{name}: maximum");
        assert_eq!(
            report.outcome.argmax,
            Some(fmt.hex(fmt.from_ordinal(o))),
            "{name}: argument"
        );
        assert_eq!(report.outcome.correctly_rounded, cr, "{name}");
    }
}
