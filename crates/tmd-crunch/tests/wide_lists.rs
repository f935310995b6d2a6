//! binary80 and binary128 targets on input lists, against computations that share no code with
//! crunch's judge: a library built here whose results are MPFR's in the mode it is called
//! under (through MPFR's C interface and its own conversions to long double and __float128),
//! with planted errors; and a rounding of f(x) by integer arithmetic from f at 1000 bits.
//! Needs `scripts/setup.sh` (a C compiler, libmpfr-dev, libquadmath).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::{Float, Integer};
use std::io::Cursor;
use std::path::PathBuf;
use std::process::Command;
use tmd_core::{Format, FormatNumber};
use tmd_crunch::analysis::{Class, Special};
use tmd_crunch::input_list::InputList;
use tmd_crunch::wide::judge::Roundings;
use tmd_crunch::wide::{check_wide_list, WideFailure, WideFormat, WideTarget, WideValue};
use tmd_crunch::{Implementation, RefFunc, Rounding};

/// exp correctly rounded by MPFR in the caller's mode, except: one ulp high at 1.5 in every
/// mode, NaN at 2, and one ulp low in mode up at inputs in (3, 8192) whose significand is odd.
const PLANTED: &str = r#"
#define MPFR_WANT_FLOAT128 1
#include <fenv.h>
#include <math.h>
#include <string.h>
#include <stdint.h>
#include <mpfr.h>

/* f in the format whose MPFR exponent range is [emin, emax]: MPFR's own recipe for IEEE
 * subnormals and overflow (its manual, "Exponent range" and mpfr_subnormalize). */
static void exp_in_format(mpfr_t y, const mpfr_t x, mpfr_rnd_t rnd, long emin, long emax) {
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    int t = mpfr_exp(y, x, rnd);
    t = mpfr_check_range(y, t, rnd);
    mpfr_subnormalize(y, t, rnd);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
}

static mpfr_rnd_t caller_mode(void) {
    switch (fegetround()) {
    case FE_UPWARD: return MPFR_RNDU;
    case FE_DOWNWARD: return MPFR_RNDD;
    case FE_TOWARDZERO: return MPFR_RNDZ;
    default: return MPFR_RNDN;
    }
}

long double planted_expl(long double x) {
    mpfr_rnd_t rnd = caller_mode();
    int saved = fegetround();
    fesetround(FE_TONEAREST);
    mpfr_t m, y;
    mpfr_inits2(64, m, y, (mpfr_ptr)0);
    mpfr_set_ld(m, x, MPFR_RNDN);
    exp_in_format(y, m, rnd, -16444, 16384);
    long double v = mpfr_get_ld(y, MPFR_RNDN);
    mpfr_clears(m, y, (mpfr_ptr)0);
    uint64_t significand;
    memcpy(&significand, &x, 8);
    if (x == 1.5L) v = nextafterl(v, INFINITY);
    if (x == 2.0L) v = nanl("");
    if (rnd == MPFR_RNDU && x > 3.0L && x < 8192.0L && (significand & 1)) v = nextafterl(v, -INFINITY);
    fesetround(saved);
    return v;
}

__float128 planted_expf128(__float128 x) {
    mpfr_rnd_t rnd = caller_mode();
    int saved = fegetround();
    fesetround(FE_TONEAREST);
    mpfr_t m, y;
    mpfr_inits2(113, m, y, (mpfr_ptr)0);
    mpfr_set_float128(m, x, MPFR_RNDN);
    exp_in_format(y, m, rnd, -16493, 16384);
    __float128 v = mpfr_get_float128(y, MPFR_RNDN);
    mpfr_clears(m, y, (mpfr_ptr)0);
    uint64_t low;
    memcpy(&low, &x, 8);
    /* One ulp: the encoding of a positive finite binary128 number plus or minus one. */
    unsigned __int128 bits;
    memcpy(&bits, &v, 16);
    if (x == 1.5Q) bits += 1;
    if (rnd == MPFR_RNDU && x > 3.0Q && x < 8192.0Q && (low & 1)) bits -= 1;
    memcpy(&v, &bits, 16);
    if (x == 2.0Q) v = __builtin_nanf128("");
    fesetround(saved);
    return v;
}
"#;

/// The planted library, compiled once per test process.
fn planted_library() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = std::env::temp_dir().join(format!("tmd-wide-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let source = dir.join("planted.c");
            std::fs::write(&source, PLANTED).unwrap();
            let object = dir.join("planted.so");
            let status = Command::new(std::env::var("CC").unwrap_or("cc".into()))
                .args(["-O1", "-fPIC", "-shared", "-o"])
                .arg(&object)
                .arg(&source)
                .args(["-lmpfr", "-lgmp", "-lm"])
                .status()
                .expect("a C compiler (run scripts/setup.sh)");
            assert!(
                status.success(),
                "planted.c does not compile (libmpfr-dev?)"
            );
            object
        })
        .clone()
}

fn number(fmt: WideFormat, text: &str) -> FormatNumber {
    tmd_core::number::parse_exact(text, &fmt.core()).unwrap()
}

/// Inputs of exp around the planted ones and at random places from the subnormal results to
/// the overflow threshold.
fn exp_inputs(fmt: WideFormat, count: usize, seed: u64) -> Vec<FormatNumber> {
    let core = fmt.core();
    let mut xs: Vec<FormatNumber> = ["1.5", "2", "-0x1p-70", "0x1p-16440"]
        .iter()
        .map(|t| number(fmt, t))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let p = core.precision();
    while xs.len() < count {
        // |x| in [2^-70, 2^14): exp(x) from a subnormal result (x < -11355) to overflow.
        let e: i32 = rng.gen_range(-70..14);
        let mant: u128 = (1u128 << (p - 1)) | (rng.gen::<u128>() & ((1u128 << (p - 1)) - 1));
        let neg = rng.gen::<bool>();
        xs.push(FormatNumber {
            neg,
            mant,
            qexp: e - p as i32 + 1,
        });
    }
    xs
}

/// f rounded to the format in `mode`, by integer arithmetic from f at 1000 bits: the
/// significand of f at the quantum of its binade (the subnormal quantum at least), its floor
/// and ceiling, the midpoint rule, then the overflow rule.
fn round_by_integers(fmt: WideFormat, x: &FormatNumber, mode: Rounding) -> WideValue {
    let core: Format = fmt.core();
    let p = core.precision() as i64;
    // exp(x) = 1 + x + ... must keep x's bits for the tiniest x.
    let tiny = (-x.to_float().get_exp().unwrap_or(0)).max(0) as u32;
    let f = Float::with_val(1000 + tiny, x.to_float()).exp();
    let neg = f.is_sign_negative();
    let e = i64::from(f.get_exp().unwrap()) - 1;
    let q = (e - p + 1).max(i64::from(core.qexp_min()));
    let scaled = Float::with_val(f.prec(), f.clone().abs() >> q as i32);
    let (floor, ceil) = (
        scaled.clone().floor().to_integer().unwrap(),
        scaled.clone().ceil().to_integer().unwrap(),
    );
    let up = !neg; // rounding up in magnitude is rounding toward +inf for positive f
    let magnitude_up = match mode {
        Rounding::Nearest => {
            let frac = Float::with_val(f.prec(), &scaled - &floor);
            frac > 0.5 || (frac == 0.5 && floor.is_odd())
        }
        Rounding::Up => up,
        Rounding::Down => !up,
        Rounding::Zero => false,
    };
    let n: Integer = if magnitude_up { ceil } else { floor };
    match core.number_from_parts(neg, &n, q) {
        Some(v) => WideValue::Finite(v),
        // Beyond the largest finite number: infinite when rounding away from zero or to
        // nearest, the largest number toward zero.
        None if magnitude_up || mode == Rounding::Nearest => WideValue::Infinite { neg },
        None => {
            let mut m = core.max_finite();
            m.neg = neg;
            WideValue::Finite(m)
        }
    }
}

#[test]
fn wide_roundings_equal_an_integer_rounding_of_f_in_every_mode() {
    let exp = RefFunc::lookup("exp").unwrap();
    for (fmt, seed) in [(WideFormat::Binary80, 3), (WideFormat::Binary128, 4)] {
        for x in exp_inputs(fmt, 3000, seed) {
            let r = Roundings::of(exp, fmt, &x);
            for mode in Rounding::ALL {
                assert_eq!(
                    r.in_mode(mode),
                    round_by_integers(fmt, &x, mode),
                    "{} exp({}) in mode {}",
                    fmt.name(),
                    x.to_hex(),
                    mode.name()
                );
            }
        }
    }
}

/// The failures of the planted target on `xs` in `mode`.
fn planted_failures(fmt: WideFormat, xs: &[FormatNumber], mode: Rounding) -> Vec<WideFailure> {
    let symbol = match fmt {
        WideFormat::Binary80 => "planted_expl",
        WideFormat::Binary128 => "planted_expf128",
    };
    let spec = format!("dl:{}:{symbol}", planted_library().display());
    let target = WideTarget::resolve(&spec, None, fmt, mode).unwrap();
    assert_eq!(target.function().name(), "exp");
    let text: String = xs.iter().map(|x| format!("{}\n", x.to_hex())).collect();
    let mut list = InputList::of_format(Cursor::new(text), "list", fmt.core());
    let mut failures = Vec::new();
    let report = check_wide_list(&target, &mut list, "list", |f| {
        failures.push(f.clone());
        Ok::<_, tmd_crunch::CrunchError>(())
    })
    .unwrap();
    assert_eq!(report.inputs, xs.len() as u64);
    assert_eq!(
        report.outcome.faithful + report.outcome.worse,
        failures.len() as u64
    );
    failures
}

#[test]
fn planted_errors_are_found_exactly_in_each_mode() {
    for (fmt, seed) in [(WideFormat::Binary80, 5), (WideFormat::Binary128, 6)] {
        let xs = exp_inputs(fmt, 2000, seed);
        for mode in Rounding::ALL {
            let failures = planted_failures(fmt, &xs, mode);
            let expected: Vec<String> = xs
                .iter()
                .filter(|x| {
                    let v = x.to_float();
                    let odd_above_3 = mode == Rounding::Up && v > 3 && v < 8192 && x.mant & 1 == 1;
                    v == 1.5 || v == 2 || odd_above_3
                })
                .map(|x| x.to_hex())
                .collect();
            let got: Vec<String> = failures.iter().map(|f| f.x.clone()).collect();
            assert_eq!(got, expected, "{} in mode {}", fmt.name(), mode.name());
            for f in &failures {
                if f.x == "0x1p+1" {
                    assert_eq!((f.special, f.got.as_str()), (Special::NanSpurious, "nan"));
                } else if f.x == "0x1.8p+0" {
                    // One ulp above the correct result: beyond half an ulp in round to
                    // nearest; in a directed mode anywhere below 2 (RU(f) where RD(f) is due).
                    let err = f.err.unwrap();
                    let low = if mode == Rounding::Nearest { 0.5 } else { 0.0 };
                    assert!(err > low && err < 2.0, "1.5: {err} ulp in {}", mode.name());
                } else {
                    // One ulp below RU(f): RD(f), faithful, error below one ulp.
                    assert_eq!(f.class, Class::Faithful, "{f:?}");
                    assert!(f.err.unwrap() < 1.0, "{f:?}");
                }
            }
        }
    }
}
