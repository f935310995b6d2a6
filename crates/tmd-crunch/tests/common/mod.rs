//! The independent check shared by the tests that compare crunch with MPFR per input
//! (`tmd_crunch::oracle`).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tmd_crunch::oracle::judge;
use tmd_crunch::summary::Summary;
use tmd_crunch::{CrunchFormat, Target};

/// Checks a summary of ordinals `[lo, hi)` against the independent computation.
pub fn check_summary(target: &dyn Target, lo: i64, hi: i64, s: &Summary) {
    let fmt = target.format();
    let func = target.function();
    let (mut cr, mut faithful, mut worse) = (0u64, 0u64, 0u64);
    let mut max: Option<(f64, i64)> = None;
    for o in lo..hi {
        let x = fmt.from_ordinal(o);
        let a = tmd_crunch::driver::eval_one(target, x);
        let ind = judge(func, fmt, x, a, target.rounding());
        if ind.correctly_rounded {
            cr += 1;
        } else if ind.faithful {
            faithful += 1;
        } else {
            worse += 1;
        }
        if let Some(e) = ind.err {
            if max.is_none_or(|(m, _)| e > m) {
                max = Some((e, o));
            }
        }
    }
    let at = format!(
        "{} on [{}, {})",
        target.name(),
        fmt.hex(fmt.from_ordinal(lo)),
        fmt.hex(fmt.from_ordinal(hi))
    );
    assert_eq!(s.inputs, (hi - lo) as u64, "{at}");
    assert_eq!(
        (s.correctly_rounded, s.faithful, s.worse),
        (cr, faithful, worse),
        "{at}: counts (correctly rounded, faithful, worse)"
    );
    match max {
        Some((m, _)) => {
            assert!(
                (s.max_ulp - m).abs() <= 2.0 * tmd_crunch::analysis::fast_error_tolerance(m),
                "{at}: fast maximum {} vs independent {m}",
                s.max_ulp
            );
        }
        None => assert!(s.argmax.is_none(), "{at}: crunch found a finite error"),
    }
}

/// Windows of `len` inputs at `count` random places over the whole format (both signs).
pub fn random_windows(fmt: CrunchFormat, count: usize, len: i64, seed: u64) -> Vec<(i64, i64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let max = fmt.max_ordinal();
    (0..count)
        .map(|_| {
            let lo = rng.gen_range(-max..=max - len);
            (lo, lo + len)
        })
        .collect()
}
