//! Foreign targets (`dl:`, `c:`, vector entry points, glibc, SLEEF, musl) crunched and
//! compared per input with the independent MPFR computation (`tmd_crunch::oracle`), and the
//! rounding mode they run under. Needs `scripts/setup.sh` (libsleef-dev, musl-dev, a C
//! compiler).

mod common;

use common::{check_summary, random_windows};
use tmd_crunch::driver::{crunch_chunk, eval_one};
use tmd_crunch::foreign::current_rounding;
use tmd_crunch::implementation::UnaryBatch;
use tmd_crunch::{resolve, resolve_foreign, CrunchFormat, Rounding, Target};

/// A deliberately wrong binary32 exp: correctly rounded almost everywhere (binary64 exp
/// rounded once more), but 3 ulps high at 1.5, NaN at 2, 1 ulp high everywhere when the mode
/// is upward; and a function returning the mode it runs under.
const WRONG_EXPF: &str = r#"
#include <fenv.h>
#include <math.h>
float wrong_expf(float x) {
    float y = (float)exp((double)x);
    if (x == 1.5f) return nextafterf(nextafterf(nextafterf(y, INFINITY), INFINITY), INFINITY);
    if (x == 2.0f) return NAN;
    if (fegetround() == FE_UPWARD) return nextafterf(y, INFINITY);
    return y;
}
float rounding_probe(float x) {
    (void)x;
    switch (fegetround()) {
    case FE_UPWARD: return 1.0f;
    case FE_DOWNWARD: return 2.0f;
    case FE_TOWARDZERO: return 3.0f;
    default: return 0.0f;
    }
}
"#;

/// WRONG_EXPF in a file of the test's own (tests run in parallel threads).
fn wrong_source(test: &str) -> String {
    let dir = std::env::temp_dir().join(format!("tmd-foreign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("wrong-{test}.c"));
    std::fs::write(&path, WRONG_EXPF).unwrap();
    path.display().to_string()
}

fn nearest(spec: &str) -> Box<dyn Target> {
    resolve_foreign(spec, None, None, Rounding::Nearest)
        .unwrap_or_else(|e| panic!("{spec}: {e} (run scripts/setup.sh)"))
}

fn window_at(fmt: CrunchFormat, x: f64, half: i64) -> (i64, i64) {
    let o = fmt.ordinal(x);
    (o - half, o + half)
}

fn check_windows(target: &dyn Target, windows: &[(i64, i64)]) {
    for &(lo, hi) in windows {
        check_summary(target, lo, hi, &crunch_chunk(target, lo, hi));
    }
}

#[test]
fn wrong_c_target_matches_the_oracle_and_is_caught() {
    let spec = format!("c:{}:wrong_expf", wrong_source("oracle"));
    let target = nearest(&spec);
    let fmt = CrunchFormat::Binary32;
    assert_eq!((target.format(), target.function().name()), (fmt, "exp"));
    let mut windows = vec![window_at(fmt, 1.5, 300), window_at(fmt, 2.0, 300)];
    windows.extend(random_windows(fmt, 6, 256, 17));
    check_windows(target.as_ref(), &windows);
    let (lo, hi) = window_at(fmt, 1.5, 300);
    let s = crunch_chunk(target.as_ref(), lo, hi);
    assert_eq!(s.worse, 1, "3 ulps high at 1.5 only");
    assert_eq!(s.argmax, Some(fmt.ordinal(1.5)));
    assert!(s.max_ulp > 2.5 && s.max_ulp < 3.5, "{}", s.max_ulp);
    let (lo, hi) = window_at(fmt, 2.0, 300);
    let s = crunch_chunk(target.as_ref(), lo, hi);
    assert_eq!(s.specials.nan_spurious, 1, "NaN where a number is due");
}

#[test]
fn c_target_runs_under_its_rounding_mode_and_restores_it() {
    let source = wrong_source("modes");
    let probe = format!("c:{source}:rounding_probe");
    for (mode, expected) in [
        (Rounding::Nearest, 0.0),
        (Rounding::Up, 1.0),
        (Rounding::Down, 2.0),
        (Rounding::Zero, 3.0),
    ] {
        let t = resolve_foreign(&probe, Some("exp"), Some(CrunchFormat::Binary32), mode).unwrap();
        assert_eq!(t.rounding(), mode);
        let mut out = [f32::NAN; 5];
        t.eval(UnaryBatch::Binary32 {
            xs: &[1.0; 5],
            out: &mut out,
        });
        assert_eq!(out, [expected; 5], "under {mode}");
        assert_eq!(current_rounding(), Rounding::Nearest, "mode restored");
    }
    // The wrong expf is one ulp high upward only.
    let spec = format!("c:{source}:wrong_expf");
    let up = resolve_foreign(&spec, None, None, Rounding::Up).unwrap();
    let near = nearest(&spec);
    let x = 0.75f64;
    let (a_up, a_near) = (eval_one(up.as_ref(), x), eval_one(near.as_ref(), x));
    assert_eq!(a_up as f32, (a_near as f32).next_up());
}

#[test]
fn dl_glibc_expf_is_std_expf() {
    // Rust's f32::exp calls the same libm's expf.
    let fmt = CrunchFormat::Binary32;
    let dl = nearest("dl:libm.so.6:expf");
    let std = resolve("std:expf").unwrap();
    for (lo, hi) in random_windows(fmt, 4, 1 << 14, 3)
        .into_iter()
        .chain([window_at(fmt, 88.7, 1 << 12)])
    {
        let a = crunch_chunk(dl.as_ref(), lo, hi);
        let b = crunch_chunk(std.as_ref(), lo, hi);
        assert_eq!(a, b, "[{lo}, {hi})");
    }
    check_windows(dl.as_ref(), &random_windows(fmt, 3, 256, 4));
}

#[test]
fn libraries_match_the_oracle() {
    let fmt32 = CrunchFormat::Binary32;
    let fmt64 = CrunchFormat::Binary64;
    for spec in ["sleef:expf", "sleef-u35:sinf", "musl:expf", "glibc:logf"] {
        let t = nearest(spec);
        let mut windows = random_windows(fmt32, 4, 256, 5);
        windows.push(window_at(fmt32, 1.0, 256));
        check_windows(t.as_ref(), &windows);
    }
    for spec in ["sleef:exp", "musl:log"] {
        check_windows(nearest(spec).as_ref(), &random_windows(fmt64, 3, 128, 6));
    }
}

/// Results of a batch equal the results of the same inputs one at a time (each padded to a
/// whole vector alone): lanes are filled in order and the tail is handled.
fn check_lanes(spec: &str) {
    let t = nearest(spec);
    let fmt = t.format();
    let (lo, hi) = window_at(fmt, 1.25, 503); // 1006 inputs: not a multiple of 4, 8 or 16
    let xs: Vec<f64> = (lo..hi).map(|o| fmt.from_ordinal(o)).collect();
    let batch: Vec<f64> = match fmt {
        CrunchFormat::Binary32 => {
            let x32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
            let mut out = vec![f32::NAN; x32.len()];
            t.eval(UnaryBatch::Binary32 {
                xs: &x32,
                out: &mut out,
            });
            out.into_iter().map(f64::from).collect()
        }
        CrunchFormat::Binary64 => {
            let mut out = vec![f64::NAN; xs.len()];
            t.eval(UnaryBatch::Binary64 {
                xs: &xs,
                out: &mut out,
            });
            out
        }
    };
    for (&x, &a) in xs.iter().zip(&batch) {
        assert_eq!(
            a.to_bits(),
            eval_one(t.as_ref(), x).to_bits(),
            "{spec} at {x}"
        );
    }
    check_summary(t.as_ref(), lo, hi, &crunch_chunk(t.as_ref(), lo, hi));
}

#[test]
fn vector_targets_fill_lanes_and_match_the_oracle() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    check_lanes("glibc-mvec-sse:expf");
    check_lanes("glibc-mvec-sse:exp");
    check_lanes("dl:libsleef.so.3:Sleef_expf4_u10sse2");
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        check_lanes("glibc-mvec-avx2:expf");
        check_lanes("sleef-avx2:exp");
    }
    if std::arch::is_x86_feature_detected!("avx512f") {
        check_lanes("glibc-mvec-avx512:logf");
        check_lanes("sleef-avx512f:expf");
    }
}

#[test]
fn bad_foreign_specs_are_input_errors() {
    let err = |spec: &str| {
        resolve_foreign(spec, None, None, Rounding::Nearest)
            .err()
            .unwrap_or_else(|| panic!("{spec} resolved"))
            .to_string()
    };
    assert!(err("dl:libnosuch.so.9:expf").contains("cannot load libnosuch.so.9"));
    assert!(err("dl:libm.so.6:cr_expf").contains("no symbol cr_expf"));
    assert!(err("dl:libm.so.6:frexpf").contains("give --function"));
    assert!(err("dl:libm.so.6").contains("PATH:SYMBOL"));
    assert!(err("sleef-neon:expf").contains("SLEEF variants"));
    assert!(err("dl:libsleef.so.3:Sleef_expd4_u10advsimd").contains("advsimd"));
    assert!(err("musl:frexpf").contains("does not know"));
    assert!(err("std:expf").contains("foreign targets are"));
    let wrong_format = resolve_foreign(
        "dl:libm.so.6:_ZGVbN4v_expf",
        None,
        Some(CrunchFormat::Binary64),
        Rounding::Nearest,
    );
    assert!(wrong_format
        .err()
        .unwrap()
        .to_string()
        .contains("does not fit"));
}

#[test]
fn a_foreign_target_that_crashes_stops_the_run_with_its_input_and_returns_nan() {
    let dir = std::env::temp_dir().join(format!("tmd-foreign-crash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("segv.c");
    std::fs::write(
        &source,
        "#include <math.h>\n\
         double segv_exp(double x) { if (x == 1.5) *(volatile int *)0 = 0; return exp(x); }\n",
    )
    .unwrap();
    let spec = format!("c:{}:segv_exp", source.display());
    let t = resolve_foreign(&spec, None, None, Rounding::Down).unwrap();
    let y = eval_one(t.as_ref(), 1.25);
    assert!((y - 1.25f64.exp()).abs() < 1e-14, "{y}");
    assert!(t.failure().is_none());
    let mut out = [0.0; 3];
    t.eval(UnaryBatch::Binary64 {
        xs: &[1.25, 1.5, 1.75],
        out: &mut out,
    });
    assert!(out.iter().all(|y| y.is_nan()), "{out:?}");
    let failure = t.failure().expect("the crash is kept");
    assert_eq!(failure.at, "x = 0x1.8p+0");
    assert!(
        failure
            .to_string()
            .contains("crashed (SIGSEGV) at x = 0x1.8p+0"),
        "{failure}"
    );
    // Nothing more is evaluated, and a run stops with the failure.
    assert!(eval_one(t.as_ref(), 1.25).is_nan());
    let plan =
        tmd_crunch::Plan::new(CrunchFormat::Binary64, 1.0, 1.0 + 1024.0 * f64::EPSILON, 8).unwrap();
    let err = tmd_crunch::run(t.as_ref(), &plan, |_, _| {}).unwrap_err();
    assert!(matches!(err, tmd_crunch::CrunchError::Target(_)), "{err}");
}
