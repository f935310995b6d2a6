//! Double-double references of binary64 exp2, exp10, log2, log10, cbrt, asin, acos, asinh,
//! acosh and atanh, composed from xfloat's table-driven `Dd::exp`, `Dd::ln` and `Dd::sin`
//! (whose bounds docs/error-analysis.md §7, §9 and §10 prove) and the double-word operations
//! of Joldes, Muller and Popescu, "Tight and rigorous error bounds for basic building blocks
//! of double-word arithmetic" (ACM TOMS 44(2), 2017). Each is within `EPS_COMPOSED = 2^-98`
//! of f(x), relative, for every binary64 `x` of its domain whose result lies between 2^-960
//! and the overflow threshold (docs/error-analysis.md §13 proves each bound;
//! `tests/reference_bounds.rs` checks them against MPFR), inside crunch's `EPS_DD = 2^-96`.
//!
//! They are crunch's references, not general double-double functions: the argument is one
//! binary64 number (the low word of the `Dd` is zero), which several reductions below need
//! to be exact, and results below 2^-960 or near overflow, which crunch sends to MPFR or to
//! its saturation rules, are only required not to panic.

use tmd_core::registry::Func;
use tmd_xfloat::eft::{two_prod, two_prod_in_dekker_range};
use tmd_xfloat::{BaseFloat, Constant, Dd};

/// The functions whose binary64 reference this module composes.
pub const COMPOSED: [Func; 10] = [
    Func::Exp2,
    Func::Exp10,
    Func::Log2,
    Func::Log10,
    Func::Cbrt,
    Func::Asin,
    Func::Acos,
    Func::Asinh,
    Func::Acosh,
    Func::Atanh,
];

/// The relative bound proven for every reference of this module (docs/error-analysis.md §13;
/// the largest, asin's, is `2^-98.7`); crunch judges with the looser `EPS_DD`.
pub const EPS_COMPOSED: f64 = 1.0 / (1u128 << 98) as f64;

/// Below this magnitude asinh, atanh and asin are their argument to within `x^2/3 < 2^-1000`,
/// relative; above it every logarithm taken below has `|ln m| >= 2^-501`, inside `Dd::ln`'s
/// proven range (`>= 2^-916`).
const TINY: f64 = f64::from_bits((1023 - 500) << 52); // 2^-500

/// Above this magnitude asinh x = ±(ln|x| + ln 2) and acosh x = ln x + ln 2 to within
/// `1/(4x^2) <= 2^-122`, absolute (docs/error-analysis.md §13.6).
const HUGE: f64 = (1u64 << 60) as f64;

/// The binary64 argument of a reference: the leading word (crunch passes `Dd::from(x)`).
fn binary64_argument(x: Dd) -> f64 {
    debug_assert_eq!(x.lo(), 0.0, "a reference of binary64 inputs");
    x.hi()
}

fn with_sign(r: Dd, negative: bool) -> Dd {
    if negative {
        -r
    } else {
        r
    }
}

/// `2^x = 2^k e^(r ln 2)` with `k = rint(x)` and the exact `r = x - k`, `|r| <= 1/2`.
pub fn exp2(x: Dd) -> Dd {
    let x = binary64_argument(x);
    if !(-1100.0..=1100.0).contains(&x) {
        // NaN, or a result far beyond the overflow or below 2^-1100: its limit is enough.
        return Dd::from(x.exp2());
    }
    let k = x.round_ties_even();
    let r = x - k;
    Dd::constant(Constant::Ln2).mul_fp(r).exp().ldexp(k as i32)
}

/// `10^x = 2^k e^r` with `k = rint(x log2 10)` and `r = x ln 10 - k ln 2` built from exact
/// products of x and k with the words of ln 10 and ln 2 (Cody and Waite's reduction, in
/// double words: `x ln 10` alone, rounded to a double word, would be off by `2^-96` absolute).
pub fn exp10(x: Dd) -> Dd {
    let x = binary64_argument(x);
    if !(-330.0..=330.0).contains(&x) {
        return Dd::from(libm::exp10(x));
    }
    let k = (x * core::f64::consts::LOG2_10).round_ties_even();
    if k == 0.0 {
        // |x ln10| < 0.35: the product rounded to a double word errs by 2^-106 absolute.
        return Dd::constant(Constant::Ln10).mul_fp(x).exp();
    }
    let ln10 = f64::const_words(Constant::Ln10);
    let ln2 = f64::const_words(Constant::Ln2);
    // x L0 - k M0 = (p - q) + (pe - qe) exactly; the next words' products are below 2^-42
    // and their errors below 2^-95, so the last term carries them in one binary64 sum. With
    // |x| >= 0.15 and 1 <= |k| <= 1100 every product lies in Dekker's range, where the exact
    // error needs no library `fma` call in builds without a hardware FMA.
    let (p, pe) = two_prod_in_dekker_range(x, ln10[0]);
    let (q, qe) = two_prod_in_dekker_range(k, ln2[0]);
    let (p1, pe1) = two_prod_in_dekker_range(x, ln10[1]);
    let (q1, qe1) = two_prod_in_dekker_range(k, ln2[1]);
    let r = Dd::from_sum(p, -q)
        .add_fp(pe)
        .add_fp(-qe)
        .add_fp(p1)
        .add_fp(-q1)
        .add_fp((pe1 - qe1) + (x * ln10[2] - k * ln2[2]));
    r.exp().ldexp(k as i32)
}

/// `log2 x = ln x / ln 2`.
pub fn log2(x: Dd) -> Dd {
    Dd::from(binary64_argument(x)).ln() / Dd::constant(Constant::Ln2)
}

/// `log10 x = ln x / ln 10`.
pub fn log10(x: Dd) -> Dd {
    Dd::from(binary64_argument(x)).ln() / Dd::constant(Constant::Ln10)
}

/// `cbrt x = 2^k cbrt m` with `|x| = 2^(3k) m`, `m` in `[1, 8)`, and `cbrt m` by one Newton
/// step `y0 + (m - y0^3) / (3 y0^2)` from the `libm` crate's binary64 cube root `y0`, the
/// residual in double words, the quotient in binary64.
pub fn cbrt(x: Dd) -> Dd {
    let x = binary64_argument(x);
    if !x.is_finite() || x == 0.0 {
        return Dd::from(x);
    }
    // Subnormals first to normal numbers (exactly, by 2^108 = (2^36)^3).
    let (a, k_sub) = if x.abs() < f64::MIN_POSITIVE {
        (x.abs() * (1u128 << 108) as f64, -36)
    } else {
        (x.abs(), 0)
    };
    let k = a.exponent().div_euclid(3);
    let m = libm::scalbn(a, -3 * k);
    let y0 = libm::cbrt(m);
    let (s, se) = two_prod_in_dekker_range(y0, y0); // 1 <= y0 < 2
    let square = Dd::from_sum(s, se);
    // The step is about 2^-50 y0: its quotient needs only binary64 accuracy (§13.4).
    let residual = Dd::from(m) - square.mul_fp(y0);
    let y1 = Dd::from_sum(y0, residual.hi() / (3.0 * s));
    with_sign(y1.ldexp(k + k_sub), x < 0.0)
}

/// `ln(1 + v)` for a double word `v >= TINY`: `ln m + d / m` with `m = 1 + v` rounded to a
/// double word and its rounding error `d = v - (m - 1)` (the form of xfloat's `log1p` far from
/// 0, here through the table-driven `Dd::ln`).
fn ln_1p_non_negative(v: Dd) -> Dd {
    let m = v.add_fp(1.0);
    let d = v - m.add_fp(-1.0);
    m.ln().add_fp(d.hi() / m.hi())
}

/// `asinh x = ±ln1p(|x| + x^2 / (1 + sqrt(1 + x^2)))` for `|x| < 1`, free of cancellation
/// (every term is non-negative); `±ln(|x| + sqrt(1 + x^2))` from 1 to `HUGE` (no division,
/// and `|asinh x| >= 0.88` keeps the logarithm's absolute error relative);
/// `±(ln|x| + ln 2)` beyond.
pub fn asinh(x: Dd) -> Dd {
    let x = binary64_argument(x);
    let a = x.abs();
    if !(TINY..=HUGE).contains(&a) {
        return if a > HUGE && a.is_finite() {
            with_sign(ln_plus_ln2(a), x < 0.0)
        } else {
            Dd::from(x) // tiny, ±inf, NaN
        };
    }
    let (s, se) = two_prod(a, a);
    let square = Dd::from_sum(s, se);
    let root = square.add_fp(1.0).sqrt();
    let r = if a >= 1.0 {
        root.add_fp(a).ln()
    } else {
        ln_1p_non_negative((square / root.add_fp(1.0)).add_fp(a))
    };
    with_sign(r, x < 0.0)
}

/// `ln x + ln 2` for `x > HUGE`.
fn ln_plus_ln2(x: f64) -> Dd {
    Dd::from(x).ln() + Dd::constant(Constant::Ln2)
}

/// `acosh x = ln1p(t + sqrt(t (x + 1)))` with the exact `t = x - 1` below 2;
/// `ln(x + sqrt(x^2 - 1))` from 2 to `HUGE` (`acosh x >= 1.3` keeps the logarithm's absolute
/// error relative), and `ln x + ln 2` beyond.
pub fn acosh(x: Dd) -> Dd {
    let x = binary64_argument(x);
    if x.is_nan() || x < 1.0 {
        return Dd::from(f64::NAN);
    }
    if x > HUGE {
        return if x.is_finite() {
            ln_plus_ln2(x)
        } else {
            Dd::from(x)
        };
    }
    if x >= 2.0 {
        let (s, se) = two_prod_in_dekker_range(x, x); // 4 <= x^2 <= 2^120
        return Dd::from_sum(s, se).add_fp(-1.0).sqrt().add_fp(x).ln();
    }
    let t = Dd::from_sum(x, -1.0);
    let v = t + (t * Dd::from_sum(x, 1.0)).sqrt();
    if v.is_zero() {
        return v;
    }
    ln_1p_non_negative(v)
}

/// `atanh x = ±ln1p(2|x| / (1 - |x|)) / 2` (the quotient is exact but for the division:
/// `1 - |x|` is an exact double word).
pub fn atanh(x: Dd) -> Dd {
    let x = binary64_argument(x);
    let a = x.abs();
    if !(TINY..1.0).contains(&a) {
        return if a == 1.0 {
            Dd::from(x * f64::INFINITY)
        } else if a < TINY {
            Dd::from(x)
        } else {
            Dd::from(f64::NAN)
        };
    }
    let v = Dd::from(2.0 * a) / Dd::from_sum(1.0, -a);
    with_sign(ln_1p_non_negative(v).ldexp(-1), x < 0.0)
}

/// `asin s` for a double word `|s| <= 1/2`: one Newton step `z0 + (s - sin z0) / cos z0` on
/// `sin z = s` from the `libm` crate's binary64 arcsine `z0` of the leading word. The step is
/// about `2^-50 z`, so its quotient needs only binary64 accuracy: `cos z0` is
/// `sqrt(1 - sin^2 z0)` from the leading word of the double-double sine (cheaper than
/// `Dd::sin_cos` and a double-word division, docs/error-analysis.md §13.7).
fn asin_newton(s: Dd) -> Dd {
    let z0 = libm::asin(s.hi());
    let sin = Dd::from(z0).sin();
    let sh = sin.hi();
    let cos = ((1.0 - sh) * (1.0 + sh)).sqrt();
    Dd::from_sum(z0, (s - sin).hi() / cos)
}

/// `asin(sqrt((1 - a) / 2))` for `1/2 <= a <= 1`, half of `acos a`: `(1 - a) / 2` is exact.
fn half_acos_near_one(a: f64) -> Dd {
    asin_newton(Dd::from((1.0 - a) * 0.5).sqrt())
}

/// `asin x`: the Newton step for `|x| <= 1/2`, `±(pi/2 - 2 asin(sqrt((1 - |x|)/2)))` above
/// (where `sin z = x` is ill-conditioned).
pub fn asin(x: Dd) -> Dd {
    let x = binary64_argument(x);
    let a = x.abs();
    if !(TINY..=1.0).contains(&a) {
        return if a < TINY {
            Dd::from(x)
        } else {
            Dd::from(f64::NAN)
        };
    }
    let r = if a <= 0.5 {
        asin_newton(Dd::from(a))
    } else {
        Dd::constant(Constant::Pi2) - half_acos_near_one(a).ldexp(1)
    };
    with_sign(r, x < 0.0)
}

/// `acos x`: `pi/2 - asin x` for `|x| <= 1/2`, `2 asin(sqrt((1 - x)/2))` above,
/// `pi - 2 asin(sqrt((1 + x)/2))` below.
pub fn acos(x: Dd) -> Dd {
    let x = binary64_argument(x);
    if x.is_nan() || x.abs() > 1.0 {
        return Dd::from(f64::NAN);
    }
    if x.abs() <= 0.5 {
        return Dd::constant(Constant::Pi2) - asin_newton(Dd::from(x));
    }
    let twice = half_acos_near_one(x.abs()).ldexp(1);
    if x > 0.0 {
        twice
    } else {
        Dd::constant(Constant::Pi) - twice
    }
}
