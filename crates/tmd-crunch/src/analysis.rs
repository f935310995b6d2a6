//! The error of one input: a fast decision from the reference's value and bound, or an exact
//! one with MPFR where the bound does not decide.
//!
//! Definitions (docs/definitions.md, crunch): for an input x with exact value f = f(x) and the target's
//! result a, `err = |a - f| / ulp(f)` with `ulp(f) = 2^(max(e, emin) - p + 1)` for
//! `2^e <= |f| < 2^(e+1)` (the subnormal quantum below `2^emin`). `a` is *correctly rounded*
//! when it equals RN(f), *faithful* when it is RD(f) or RU(f) but not RN(f), *worse*
//! otherwise. Results that cannot have a finite error are classes of their own ([`Special`]):
//! f undefined (NaN), f infinite (pole), RN(f) infinite (overflow), a NaN or infinite where
//! RN(f) is finite. Zeros are compared by value.
//!
//! The fast path knows `f` only as `r = rh + rl` with `|f - r| <= eps |rh|`. Every decision it
//! makes holds for every value in that interval, with the rounding errors of its own f64
//! arithmetic added to the margin; otherwise it returns `None` and [`classify_exact`] decides
//! with f computed by MPFR at 256 bits (worst cases of these functions are far from 2^-200 of
//! a breakpoint, and exact values are recognised by MPFR's ternary value). Decisions
//! (correctly rounded / faithful / worse, the class, the histogram bin) are therefore exact;
//! the error value itself is within `tol` ulps (at most 2^-23 for binary32, 2^-42 for binary64
//! with a double-double reference, 2^-24 for binary64 exp decided by its 2^-78 first reference,
//! `crate::fast_exp`), and the reported maximum is recomputed exactly (see `crate::summary`).

use crate::format::{exponent, pow2, CrunchFormat};
use crate::function::RefFunc;
use rug::Float;
use serde::{Deserialize, Serialize};

/// How a result compares with the correct roundings of f(x).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Class {
    CorrectlyRounded,
    Faithful,
    Worse,
}

/// Inputs whose exact value or result is not an ordinary finite number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Special {
    /// An ordinary finite result.
    None,
    /// f(x) is a non-zero number below the smallest normal number.
    Subnormal,
    /// f(x) is NaN (x outside the domain).
    NanExpected,
    /// The result is NaN where f(x) is a number.
    NanSpurious,
    /// f(x) is infinite (a pole).
    Pole,
    /// f(x) is finite but RN(f(x)) is infinite.
    Overflow,
    /// The result is infinite where RN(f(x)) is finite.
    InfSpurious,
}

/// The verdict on one input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub class: Class,
    /// The error in ulps; `None` for the special classes other than `Subnormal`.
    pub err: Option<f64>,
    pub special: Special,
}

/// Bound (in ulps) on `|fast error - exact error|` for a fast error `err`: at most
/// `2 eps |f| / ulp + 2^-51 err` from [`classify_fast`]'s margin, where `|f| / ulp < 2^p`:
/// `2^-23` for binary32 (`eps <= 2^-48`, p = 24), `2^-42` for binary64 (`eps = 2^-96`,
/// p = 53), `2^-24` for binary64 exp's first reference (`eps = 2^-78`), and `2^-24` in the
/// power-of-two case of `classify_fast`.
pub fn fast_error_tolerance(err: f64) -> f64 {
    1.0 / (1u64 << 23) as f64 + err / (1u64 << 50) as f64
}

/// The window below the maximum fast error within which an input may hold the true maximum:
/// twice the tolerance.
pub fn near_max_window(max: f64) -> f64 {
    2.0 * fast_error_tolerance(max)
}

/// Fast decision for a finite result `a` of the format, from the reference value
/// `rh + rl` with relative bound `eps`. `None` when the bound does not decide.
pub fn classify_fast(fmt: CrunchFormat, a: f64, rh: f64, rl: f64, eps: f64) -> Option<Verdict> {
    let mag = rh.abs();
    // Below 2^-960 the double-double reference loses its relative bound (its low word
    // underflows); near the overflow threshold the rounding to the format needs care.
    if !(a.is_finite() && rh.is_finite() && mag > pow2(-960) && mag < fmt.max_finite() * 0.5) {
        return None;
    }
    let slack = 2.0 * eps * mag + rl.abs();
    let e = exponent(mag);
    let p = fmt.precision();
    // Whether [mag - slack, mag + slack] reaches below 2^e or up to 2^(e+1), from the exact
    // differences `mag - 2^e` and `2^(e+1) - mag` (Sterbenz): `mag - slack` rounded may land
    // on 2^e itself when f lies within half an ulp below it (a double-double rh = 2^e with a
    // negative rl, e.g. acosh(1 + 2^-51) = 2^-25 (1 - 2^-51/12)).
    let below = mag - pow2(e) < slack;
    let above = pow2(e + 1) - mag <= slack;
    if below || above {
        // f may lie on either side of the power of two 2^k, so its ulp is not known;
        // RN(f) = ±2^k either way while the slack is below a quarter of the smaller ulp
        // (results like expf(x) = 1 for tiny x, decided here rather than by MPFR). Other
        // results need MPFR.
        let k = if below { e } else { e + 1 };
        let ulp_below = pow2((k - 1).max(fmt.emin()) - p + 1);
        if a.abs() != pow2(k)
            || a.signum() != rh.signum()
            || slack > ulp_below / (1u64 << 24) as f64
        {
            return None;
        }
        // The error is below slack / ulp_below <= 2^-24 ulp: correctly rounded; its value is
        // taken with the smaller ulp, within 2^-24 of the truth whichever side f is on.
        let err = ((rh - a) + rl).abs() / ulp_below;
        return Some(Verdict {
            class: Class::CorrectlyRounded,
            err: Some(err),
            special: Special::None,
        });
    }
    let ulp = pow2(e.max(fmt.emin()) - p + 1);
    let d = (rh - a) + rl; // f - a, up to the margin below
    let tol_abs = 2.0 * eps * mag + d.abs() * (2.0 * f64::EPSILON);
    let err = d.abs() / ulp;
    let tol = tol_abs / ulp;
    let class = if err < 0.5 - tol {
        Class::CorrectlyRounded
    } else if err <= 0.5 + tol {
        return None;
    } else {
        let other = fmt.neighbour(a, d > 0.0)?;
        let gap = (other - a).abs();
        if d.abs() < gap - tol_abs {
            Class::Faithful
        } else if d.abs() > gap + tol_abs {
            Class::Worse
        } else {
            return None;
        }
    };
    if err >= 0.5 && histogram_bin_of(err - tol) != histogram_bin_of(err + tol) {
        return None;
    }
    let special = if e < fmt.emin() {
        Special::Subnormal
    } else {
        Special::None
    };
    Some(Verdict {
        class,
        err: Some(err),
        special,
    })
}

/// Number of histogram bins: correctly rounded, other errors below 1 ulp, then
/// `[2^(k-2), 2^(k-1))` for `k = 2..`, the last one open-ended.
pub const HISTOGRAM_BINS: usize = 42;

/// The histogram bin of a non-correctly-rounded finite error.
pub fn histogram_bin_of(err: f64) -> usize {
    if err < 1.0 {
        1
    } else {
        ((exponent(err) + 2) as usize).min(HISTOGRAM_BINS - 1)
    }
}

/// f(x) by MPFR and its roundings to the format (finite f only).
struct Roundings {
    f: Float,
    /// floor(log2 |f|), `emin` for zero.
    e: i32,
    ulp_exp: i32,
    down: f64,
    up: f64,
    nearest: f64,
}

/// f(x) at 256 bits; `Err` with the value when it is NaN or infinite.
fn roundings(func: RefFunc, fmt: CrunchFormat, x: f64) -> Result<Roundings, Float> {
    let (f, ternary) = func.mpfr(x, 256);
    if !f.is_finite() {
        return Err(f);
    }
    let p = fmt.precision();
    // f = q * 2^ulp_exp; rug's exponent is floor(log2|f|) + 1.
    let e = if f.is_zero() {
        fmt.emin()
    } else {
        f.get_exp().expect("finite non-zero") - 1
    };
    let ulp_exp = e.max(fmt.emin()) - p + 1;
    let q = Float::with_val(300, &f >> ulp_exp);
    let down = fmt_value(fmt, &q.clone().floor(), ulp_exp);
    let up = fmt_value(fmt, &q.clone().ceil(), ulp_exp);
    let nearest = if ternary == 0 && q.is_integer() {
        down
    } else {
        fmt_value(fmt, &q.round_even(), ulp_exp)
    };
    Ok(Roundings {
        f,
        e,
        ulp_exp,
        down,
        up,
        nearest,
    })
}

/// f(x) rounded to nearest in the format (NaN, ±inf included).
pub fn round_nearest(func: RefFunc, fmt: CrunchFormat, x: f64) -> f64 {
    match roundings(func, fmt, x) {
        Ok(r) => r.nearest,
        Err(f) => f.to_f64(),
    }
}

/// Exact decision with f computed by MPFR.
pub fn classify_exact(func: RefFunc, fmt: CrunchFormat, x: f64, a: f64) -> Verdict {
    let verdict = |class, err, special| Verdict {
        class,
        err,
        special,
    };
    let matches = |ok: bool| {
        if ok {
            Class::CorrectlyRounded
        } else {
            Class::Worse
        }
    };
    let r = match roundings(func, fmt, x) {
        Ok(r) => r,
        Err(f) if f.is_nan() => return verdict(matches(a.is_nan()), None, Special::NanExpected),
        Err(_) if a.is_nan() => return verdict(Class::Worse, None, Special::NanSpurious),
        Err(f) => return verdict(matches(f == a), None, Special::Pole),
    };
    if a.is_nan() {
        return verdict(Class::Worse, None, Special::NanSpurious);
    }
    let class = if a == r.nearest {
        Class::CorrectlyRounded
    } else if a == r.down || a == r.up {
        Class::Faithful
    } else {
        Class::Worse
    };
    if r.nearest.is_infinite() {
        return verdict(class, None, Special::Overflow);
    }
    if a.is_infinite() {
        return verdict(class, None, Special::InfSpurious);
    }
    let diff = Float::with_val(300, Float::with_val(64, a) - &r.f).abs();
    let err = Float::with_val(300, &diff >> r.ulp_exp).to_f64();
    let special = if !r.f.is_zero() && r.e < fmt.emin() {
        Special::Subnormal
    } else {
        Special::None
    };
    verdict(class, Some(err), special)
}

/// The format value `n * 2^ulp_exp` for an integer-valued `n` (|n| <= 2^p), infinite beyond
/// the largest finite number.
fn fmt_value(fmt: CrunchFormat, n: &Float, ulp_exp: i32) -> f64 {
    let v = Float::with_val(300, n << ulp_exp).to_f64();
    if v.abs() > fmt.max_finite() {
        v.signum() * f64::INFINITY
    } else {
        v
    }
}

/// Decision for one input: the fast path where the reference decides, MPFR otherwise.
/// Returns the verdict and whether MPFR was used.
pub fn classify(func: RefFunc, fmt: CrunchFormat, x: f64, a: f64, r: Reference) -> (Verdict, bool) {
    if let Some(v) = quick_special(func, fmt, x, a, r) {
        return (v, false);
    }
    if let Reference::Value { hi, lo, eps } = r {
        if let Some(v) = classify_fast(fmt, a, hi, lo, eps) {
            return (v, false);
        }
    }
    (classify_exact(func, fmt, x, a), true)
}

/// The verdict on a result `a` where RN(f) is `sign * inf` (f finite or not): infinity of
/// that sign is correctly rounded, the largest finite number of that sign faithful.
pub fn overflow_verdict(fmt: CrunchFormat, sign: f64, a: f64) -> Verdict {
    let class = if a == sign * f64::INFINITY {
        Class::CorrectlyRounded
    } else if a == sign * fmt.max_finite() {
        Class::Faithful
    } else {
        Class::Worse
    };
    Verdict {
        class,
        err: None,
        special: Special::Overflow,
    }
}

/// The verdict on a zero result where f is a positive number far below half the smallest
/// subnormal: correctly rounded, with an error reported as 0 (it is below 2^-26 ulp).
pub fn zero_result_verdict() -> Verdict {
    Verdict {
        class: Class::CorrectlyRounded,
        err: Some(0.0),
        special: Special::Subnormal,
    }
}

/// The fast reference's value at one input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reference {
    /// f(x) = hi + lo within `eps |hi|`.
    Value { hi: f64, lo: f64, eps: f64 },
    /// No fast reference: MPFR decides.
    None,
}

/// Classes decided without the reference's value or with a trivially safe one: f undefined
/// (the domain test is exact), a NaN result, an infinite result far from overflow, and for
/// binary32 the overflow and underflow seen by the binary64 reference.
fn quick_special(
    func: RefFunc,
    fmt: CrunchFormat,
    x: f64,
    a: f64,
    r: Reference,
) -> Option<Verdict> {
    if func.outside_domain(x) {
        let class = if a.is_nan() {
            Class::CorrectlyRounded
        } else {
            Class::Worse
        };
        return Some(Verdict {
            class,
            err: None,
            special: Special::NanExpected,
        });
    }
    if a.is_nan() {
        return Some(Verdict {
            class: Class::Worse,
            err: None,
            special: Special::NanSpurious,
        });
    }
    let Reference::Value { hi, .. } = r else {
        return None;
    };
    let pole_candidate = x == 0.0 || x.abs() == 1.0;
    if a.is_infinite() && hi.is_finite() && hi.abs() < fmt.max_finite() * 0.5 {
        return Some(Verdict {
            class: Class::Worse,
            err: None,
            special: Special::InfSpurious,
        });
    }
    if fmt == CrunchFormat::Binary32 && !pole_candidate {
        // The binary64 reference is within 4 of its ulps: infinite means |f| > 2^1023, far
        // beyond binary32's overflow threshold.
        let threshold = fmt.max_finite() + pow2(127 - 24); // MAX + ulp/2
        if hi.is_infinite() || hi.abs() * (1.0 - 4.0 * f64::EPSILON) > threshold {
            return Some(overflow_verdict(fmt, hi.signum(), a));
        }
        if hi.abs() < pow2(-960) && a == 0.0 {
            // |f| < 2^-959 (the reference is within one of its subnormal ulps there), so
            // RN(f) = 0; the error |f| / 2^-149 is below 2^-810 ulps, reported as 0.
            return Some(zero_result_verdict());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// acosh(1 + 2^-51) = 2^-25 (1 - 2^-51/12): its double-double reference is
    /// `(2^-25, -2^-76/12)`, and `2^-25 - 2^-78` (the binary64 number below) is 2/3 ulp away,
    /// faithful. `mag - slack` rounds to 2^-25 there, which once hid the power of two below f
    /// and judged the result correctly rounded with 1/3 ulp.
    #[test]
    fn a_reference_just_below_a_power_of_two_is_not_judged_with_the_larger_ulp() {
        let (rh, rl) = (pow2(-25), -pow2(-76) / 12.0);
        let a = pow2(-25) - pow2(-78);
        let eps = crate::function::EPS_DD;
        let verdict = classify_fast(CrunchFormat::Binary64, a, rh, rl, eps);
        assert_eq!(verdict, None, "the result is not 2^-25: MPFR decides");
        // With f within 2^-100 of 2^-25, below it, 2^-25 is decided correctly rounded and the
        // number below it is left to MPFR.
        let rl = -pow2(-125);
        let at_power = classify_fast(CrunchFormat::Binary64, pow2(-25), rh, rl, eps).unwrap();
        assert_eq!(at_power.class, Class::CorrectlyRounded);
        assert!(at_power.err.unwrap() < pow2(-40));
        assert_eq!(classify_fast(CrunchFormat::Binary64, a, rh, rl, eps), None);
    }
}
