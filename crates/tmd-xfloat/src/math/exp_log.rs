//! Exponential and logarithm.

use super::{inv_factorial, minus_multiple, taylor_terms, times_constant};
use crate::base::{BaseFloat, Constant};
use crate::multi::MultiFloat;

/// `ln 2` as f64, for thresholds only.
const LN2: f64 = core::f64::consts::LN_2;

/// Number of halvings of the reduced argument before the Taylor series: fewer doublings keep
/// the rounding errors small, more make the series shorter (public for the kernels).
pub const fn halvings<T: MultiFloat>() -> i32 {
    if T::WORDS == 2 {
        3
    } else {
        5
    }
}

/// Cody–Waite reduction and core: returns `(k, e)` with `x = k ln2 + r`, `|r| <= ln2/2 (1+ε)`
/// and `e = expm1(r)`. Requires finite `x` with `|x| < 2^20`.
fn expm1_reduced<T: MultiFloat>(x: T) -> (i32, T) {
    let ln2 = T::constant(Constant::Ln2);
    let k = (x.hi() / ln2.hi()).round_ties_even();
    let r = if k == T::Base::ZERO {
        x
    } else {
        let words = (T::WORDS + 2).min(T::Base::TABLE_WORDS);
        minus_multiple(x, k, Constant::Ln2, words)
    };
    (k.to_i64() as i32, expm1_small(r))
}

/// `expm1(r)` for `|r| <= 0.35`: Taylor series of `r 2^-m`, then `m` doublings
/// `expm1(2t) = 2 expm1(t) + expm1(t)^2`.
fn expm1_small<T: MultiFloat>(r: T) -> T {
    let m = halvings::<T>();
    let t = r.ldexp(-m);
    let n = expm1_small_terms::<T>();
    let mut acc = inv_factorial::<T>(n, false);
    for j in (1..n).rev() {
        acc = acc * t + inv_factorial::<T>(j, false);
    }
    let mut e = acc * t;
    for _ in 0..m {
        e = e.ldexp(1) + e.square();
    }
    e
}

/// The number of Taylor terms of `exp`'s core for type `T` (the kernels use the same count).
pub fn expm1_small_terms<T: MultiFloat>() -> usize {
    const {
        taylor_terms(
            0.3466 / (1u32 << halvings::<T>()) as f64,
            T::PRECISION,
            1,
            2,
        )
    }
}

/// Arguments above which `exp` overflows and below which it underflows to zero.
pub fn exp_limits<F: BaseFloat>() -> (f64, f64) {
    let p = F::MANTISSA_DIGITS as i32;
    let over = F::MAX_EXP as f64 * LN2;
    let under = (F::MIN_EXP - p - 1) as f64 * LN2;
    (over, under)
}

/// `e^x`.
pub fn exp<T: MultiFloat>(x: T) -> T {
    let xh = x.hi().to_f64();
    let (over, under) = exp_limits::<T::Base>();
    if xh.is_nan() {
        return x;
    }
    if xh > over {
        return T::from_base(T::Base::INFINITY);
    }
    if xh < under {
        return T::zero();
    }
    let (k, e) = expm1_reduced(x);
    (T::one() + e).ldexp(k)
}

/// `e^x - 1`, accurate also for tiny `|x|`: computed in [`MultiFloat::Wide`] (see
/// `expm1_wide`) and rounded once to `T`; within 1 ulp for double words.
pub fn expm1<T: MultiFloat>(x: T) -> T {
    T::narrow(expm1_wide(x))
}

/// `e^x - 1` in the wide type [`MultiFloat::Wide`], with the error of the double-word
/// computation in the Taylor tail only (for double words the reduction, the last two Horner
/// steps, the doublings and the reconstruction `2^k (1 + e) - 1 = (2^k - 1) + 2^k e` are done
/// in quad words, so the result rounded to `T` is within about one ulp).
pub(crate) fn expm1_wide<T: MultiFloat>(x: T) -> T::Wide {
    let xh = x.hi().to_f64();
    if xh.is_nan() || xh == 0.0 {
        return x.widen();
    }
    let (over, _) = exp_limits::<T::Base>();
    if xh > over {
        return T::Wide::from_base(T::Base::INFINITY);
    }
    if xh < expm1_minus_one_below::<T>() {
        return -T::Wide::one();
    }
    let ln2 = T::constant(Constant::Ln2);
    let k = (x.hi() / ln2.hi()).round_ties_even();
    let xw = x.widen();
    let r = if k == T::Base::ZERO {
        xw
    } else {
        let words = (T::Wide::WORDS + 2).min(T::Base::TABLE_WORDS);
        minus_multiple(xw, k, Constant::Ln2, words)
    };
    let k = k.to_i64() as i32;
    let e = expm1_small_wide::<T>(r);
    if k == 0 {
        e
    } else if k < T::Base::MAX_EXP - 1 {
        // 2^k - 1 is exact as a sum of two base floats; 2^k e is exact.
        e.ldexp(k) + T::Wide::from_two(T::Base::ONE.scalbn(k), -T::Base::ONE)
    } else {
        (T::Wide::one() + e).ldexp(k) - T::Wide::one()
    }
}

/// [`expm1_small`] for a wide argument `|r| <= 0.35`, with the Taylor series up to the term
/// `t^2/2` in `T` and everything after in `T::Wide`.
fn expm1_small_wide<T: MultiFloat>(r: T::Wide) -> T::Wide {
    let m = halvings::<T>();
    let tw = r.ldexp(-m);
    let t = T::narrow(tw);
    let n = const {
        taylor_terms(
            0.3466 / (1u32 << halvings::<T>()) as f64,
            T::PRECISION,
            1,
            2,
        )
    };
    let mut acc = inv_factorial::<T>(n, false);
    for j in (2..n).rev() {
        acc = acc * t + inv_factorial::<T>(j, false);
    }
    let mut e = (acc.widen() * tw + T::Wide::one()) * tw;
    for _ in 0..m {
        e = e.ldexp(1) + e.square();
    }
    e
}

/// Arguments below which `expm1` is `-1` (in the wide type): `-(PRECISION + 3) ln 2`.
pub fn expm1_minus_one_below<T: MultiFloat>() -> f64 {
    -(T::PRECISION as f64 + 3.0) * LN2
}

/// Newton steps of `log_newton`: one for double words, two for quad words.
pub const fn log_newton_steps<T: MultiFloat>() -> usize {
    if T::WORDS == 2 {
        1
    } else {
        2
    }
}

/// Newton iterations for `log(m)` given `f = m - 1` (exact) and `m`, `|f| <= 0.42`.
fn log_newton<T: MultiFloat>(f: T, m: T) -> T {
    let mut y = T::from_base(f.hi().approx_ln_1p());
    for _ in 0..log_newton_steps::<T>() {
        // m e^-y - 1 = m expm1(-y) + (m - 1)
        let correction = m * expm1(-y) + f;
        y = y + correction;
    }
    y
}

/// Special values of `log`: `None` for finite positive arguments.
fn log_special<T: MultiFloat>(x: T) -> Option<T> {
    let h = x.hi();
    if h.is_nan() || h < T::Base::ZERO {
        Some(T::from_base(T::Base::NAN))
    } else if h == T::Base::ZERO {
        Some(T::from_base(-T::Base::INFINITY))
    } else if h.is_infinite() {
        Some(x)
    } else {
        None
    }
}

/// Natural logarithm; `log(0) = -inf`, `log(x < 0) = NaN`.
pub fn log<T: MultiFloat>(x: T) -> T {
    if let Some(s) = log_special(x) {
        return s;
    }
    let mut k = x.hi().exponent();
    let mut m = x.ldexp(-k);
    if m.hi().to_f64() > core::f64::consts::SQRT_2 {
        m = m.ldexp(-1);
        k += 1;
    }
    let y = log_newton(m - T::one(), m);
    if k == 0 {
        return y;
    }
    let words = (T::WORDS + 1).min(T::Base::TABLE_WORDS);
    y + times_constant::<T>(T::Base::from_i64(k as i64), Constant::Ln2, words)
}

/// `log(1 + x)`, accurate also for tiny `|x|`.
pub fn log1p<T: MultiFloat>(x: T) -> T {
    let h = x.hi().to_f64();
    if h.is_nan() || h == 0.0 {
        return x;
    }
    let m = T::one() + x;
    if (-0.29..=0.41).contains(&h) {
        return log_newton(x, m);
    }
    if let Some(s) = log_special(m) {
        return s;
    }
    // 1 + x was rounded to m; log(1 + x) = log(m) + log(1 + d/m) with the tiny exact
    // rounding error d = x - (m - 1).
    let d = x - (m - T::one());
    log(m) + d / m
}
