//! The verdict on one result of a two-argument function, with the univariate definitions
//! (docs/definitions.md): the error `|a - f| / ulp(f)`, the classes in the run's rounding
//! mode, the special classes.
//!
//! For binary16 and binary32 targets a binary64 value of f with a relative bound decides most
//! pairs ([`fast_reference`], the proof of the bounds is in docs/error-analysis.md, section
//! "Bivariate references"), through the univariate decision [`classify_fast`]; pairs it
//! leaves open go to MPFR at 256 bits ([`classify_exact_of`]). binary64 targets are judged by
//! MPFR for every pair. The special arguments are decided first ([`quick`]), and pow's results
//! far outside every format before MPFR ([`saturated`]).

use super::format::PairFormat;
use super::BiFunc;
use crate::analysis::{
    classify_exact_of, classify_fast, correct_rounding_of, overflow_verdict, tiny_result_verdict,
    Class, Special, Verdict,
};
use crate::format::{pow2, IeeeFormat};
use crate::function::EPS_LIBM_F64;
use crate::rounding::Rounding;

/// Relative bound of the binary64 hypot reference `sqrt(x*x + y*y)` at binary16 or binary32
/// inputs (squares exact, two correctly rounded operations): 2^-52.
pub const EPS_HYPOT: f64 = 1.0 / (1u64 << 52) as f64;

/// |log2 f| beyond which pow's result is decided from its sign alone: far beyond every
/// format's range, and far inside MPFR's exponent range (2^30).
const SATURATION_LOG2: f64 = (1u64 << 20) as f64;

/// The binary64 reference of f at binary16 or binary32 inputs and its relative bound eps
/// (`|f - r| <= eps |r|`); `None` for binary64 targets (MPFR decides).
pub fn fast_reference(func: BiFunc, fmt: PairFormat, a: f64, b: f64) -> Option<(f64, f64)> {
    if fmt == PairFormat::Binary64 {
        return None;
    }
    Some(match func {
        BiFunc::Pow => (libm::pow(a, b), EPS_LIBM_F64),
        BiFunc::Atan2 => (libm::atan2(a, b), EPS_LIBM_F64),
        BiFunc::Hypot => ((a * a + b * b).sqrt(), EPS_HYPOT),
    })
}

/// The reference's name, for reports.
pub fn reference_name(func: BiFunc, fmt: PairFormat) -> String {
    match (fmt, func) {
        (PairFormat::Binary64, _) => format!("MPFR {} per pair", func.name()),
        (_, BiFunc::Hypot) => "binary64 sqrt(x*x + y*y) (relative bound 2^-52) + MPFR".to_string(),
        (_, BiFunc::Pow | BiFunc::Atan2) => format!(
            "binary64 libm {} (relative bound 2^{}) + MPFR",
            func.name(),
            EPS_LIBM_F64.log2()
        ),
    }
}

/// Whether x is an integer (finite).
fn is_integer(x: f64) -> bool {
    x.is_finite() && x.trunc() == x
}

/// Whether x is an odd integer.
fn is_odd_integer(x: f64) -> bool {
    is_integer(x) && x.abs() < pow2(53) && (x % 2.0).abs() == 1.0
}

/// The sign of f(a, b) for finite non-zero inputs where f is a number (pow of a negative
/// base: only at integer exponents).
pub fn sign(func: BiFunc, a: f64, b: f64) -> f64 {
    match func {
        BiFunc::Pow if a < 0.0 && is_odd_integer(b) => -1.0,
        BiFunc::Pow | BiFunc::Hypot => 1.0,
        BiFunc::Atan2 => a.signum(),
    }
}

fn nan_verdict(a: f64) -> Verdict {
    let class = if a.is_nan() {
        Class::CorrectlyRounded
    } else {
        Class::Worse
    };
    Verdict {
        class,
        err: None,
        special: Special::NanExpected,
    }
}

/// Whether f(a, b) is NaN, decided exactly from the inputs (C99 Annex F, as MPFR): NaN
/// inputs give NaN except pow(1, y) = pow(x, 0) = 1 and hypot(±inf, y) = +inf; pow of a
/// negative finite base at a finite non-integer exponent is NaN.
pub fn is_nan_result(func: BiFunc, a: f64, b: f64) -> bool {
    match func {
        BiFunc::Pow if a == 1.0 || b == 0.0 => false,
        BiFunc::Hypot if a.is_infinite() || b.is_infinite() => false,
        BiFunc::Pow if a < 0.0 && a.is_finite() && b.is_finite() && !is_integer(b) => true,
        BiFunc::Pow | BiFunc::Atan2 | BiFunc::Hypot => a.is_nan() || b.is_nan(),
    }
}

/// Verdicts that need no reference value: a NaN result due, and a NaN result where a number
/// is due at ordinary arguments (finite, non-zero).
pub fn quick(func: BiFunc, a: f64, b: f64, r: f64) -> Option<Verdict> {
    if is_nan_result(func, a, b) {
        return Some(nan_verdict(r));
    }
    (is_ordinary(a, b) && r.is_nan()).then_some(Verdict {
        class: Class::Worse,
        err: None,
        special: Special::NanSpurious,
    })
}

/// Finite non-zero arguments: f is then a non-zero number or NaN.
fn is_ordinary(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && a != 0.0 && b != 0.0
}

/// pow's results beyond 2^(±2^20) at ordinary arguments, whose class the sign decides: they
/// lie beyond every format, and MPFR (exponents within ±2^30) could not represent them all.
pub fn saturated(
    func: BiFunc,
    fmt: PairFormat,
    a: f64,
    b: f64,
    r: f64,
    mode: Rounding,
) -> Option<Verdict> {
    if func != BiFunc::Pow || !is_ordinary(a, b) {
        return None;
    }
    // log2 |f| = b log2 |a|, within a few ulps of binary64: far from the threshold.
    let log2 = b * libm::log2(a.abs());
    let s = sign(func, a, b);
    if log2 > SATURATION_LOG2 {
        Some(overflow_verdict(fmt, s, r, mode))
    } else if log2 < -SATURATION_LOG2 {
        Some(tiny_verdict(fmt, s, r, mode))
    } else {
        None
    }
}

/// The verdict where 0 < |f| < 2^-26 times the smallest subnormal s: zero and `sign * s` are
/// RD(f) and RU(f) ([`tiny_result_verdict`]); any other result is worse, |r| / s ulps away
/// (within 2^-26 ulp).
fn tiny_verdict(fmt: PairFormat, sign: f64, r: f64, mode: Rounding) -> Verdict {
    tiny_result_verdict(fmt, sign, r, mode).unwrap_or_else(|| {
        let smallest = pow2(fmt.emin() - fmt.precision() + 1);
        let err = (!r.is_infinite()).then(|| r.abs() / smallest);
        Verdict {
            class: Class::Worse,
            err,
            special: if err.is_some() {
                Special::Subnormal
            } else {
                Special::InfSpurious
            },
        }
    })
}

/// The decision from the reference value `hi` with relative bound `eps` at ordinary inputs
/// (finite, non-zero), `None` where it does not decide. Overflowing and tiny results are
/// recognised from the bound; results in the top binade are judged at half scale, where
/// [`classify_fast`] works (it leaves the top binade to MPFR for univariate references).
pub fn fast(
    fmt: PairFormat,
    sign: f64,
    hi: f64,
    eps: f64,
    r: f64,
    mode: Rounding,
) -> Option<Verdict> {
    let max = fmt.max_finite();
    let half_ulp_max = pow2(fmt.emax() - fmt.precision());
    let (low, high) = (hi.abs() * (1.0 - 4.0 * eps), hi.abs() * (1.0 + 4.0 * eps));
    if low > max + half_ulp_max {
        return Some(overflow_verdict(fmt, sign, r, mode));
    }
    let smallest = pow2(fmt.emin() - fmt.precision() + 1);
    if high < smallest * pow2(-26) {
        return tiny_result_verdict(fmt, sign, r, mode);
    }
    if r.is_infinite() && high < max {
        return Some(Verdict {
            class: Class::Worse,
            err: None,
            special: Special::InfSpurious,
        });
    }
    if hi.abs() >= max * 0.5 {
        // Halving is exact for results in the normal range, keeps every ratio the decision
        // uses, and f stays below MAX + ulp/2 (no overflow class to miss).
        let exact_half = r == 0.0 || r.abs() >= pow2(fmt.emin() + 1);
        if !(high < max + half_ulp_max && exact_half) {
            return None;
        }
        return classify_fast(fmt, r * 0.5, hi * 0.5, 0.0, eps, mode);
    }
    classify_fast(fmt, r, hi, 0.0, eps, mode)
}

/// The exact verdict: [`quick`], [`saturated`], else MPFR at 256 bits.
pub fn exact(func: BiFunc, fmt: PairFormat, a: f64, b: f64, r: f64, mode: Rounding) -> Verdict {
    quick(func, a, b, r)
        .or_else(|| saturated(func, fmt, a, b, r, mode))
        .unwrap_or_else(|| classify_exact_of(fmt, func.mpfr_nearest(a, b), r, mode))
}

/// f(a, b) rounded to the format in `mode` (NaN, ±inf included), for reports.
pub fn correct_rounding(func: BiFunc, fmt: PairFormat, a: f64, b: f64, mode: Rounding) -> f64 {
    if is_nan_result(func, a, b) {
        return f64::NAN;
    }
    if saturated(func, fmt, a, b, 0.0, mode).is_some() {
        // The result the saturation rule judges correctly rounded.
        let (s, smallest) = (sign(func, a, b), pow2(fmt.emin() - fmt.precision() + 1));
        return [0.0, s * smallest, s * f64::INFINITY, s * fmt.max_finite()]
            .into_iter()
            .find(|&c| {
                saturated(func, fmt, a, b, c, mode)
                    .is_some_and(|v| v.class == Class::CorrectlyRounded)
            })
            .unwrap_or(f64::NAN);
    }
    correct_rounding_of(fmt, func.mpfr_nearest(a, b), mode)
}

/// The verdict on the result `r` at the pair (a, b), judged in `mode`: [`quick`], the fast
/// reference where the format has one, [`saturated`], then MPFR. Returns whether MPFR was
/// used.
pub fn verdict(
    func: BiFunc,
    fmt: PairFormat,
    a: f64,
    b: f64,
    r: f64,
    mode: Rounding,
) -> (Verdict, bool) {
    if let Some(v) = quick(func, a, b, r) {
        return (v, false);
    }
    if is_ordinary(a, b) {
        if let Some((hi, eps)) = fast_reference(func, fmt, a, b) {
            if let Some(v) = fast(fmt, sign(func, a, b), hi, eps, r, mode) {
                return (v, false);
            }
        }
    }
    if let Some(v) = saturated(func, fmt, a, b, r, mode) {
        return (v, false);
    }
    (
        classify_exact_of(fmt, func.mpfr_nearest(a, b), r, mode),
        true,
    )
}
