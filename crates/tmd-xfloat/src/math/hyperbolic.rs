//! Hyperbolic functions from `exp` / `expm1`, in forms free of cancellation.

use super::exp;
use super::exp_log::expm1_wide;
use crate::base::BaseFloat;
use crate::multi::MultiFloat;

/// Beyond this argument `e^|x|` overflows but `e^|x| / 2` may not: use `e^(|x|/2)^2 / 2`.
fn half_overflow<F: BaseFloat>() -> f64 {
    (F::MAX_EXP - 1) as f64 * core::f64::consts::LN_2
}

/// `e^a / 2` for large `a`, without intermediate overflow: `h^2 / 2` with `h = e^(a/2)`
/// from [`expm1_wide`], in the wide type and rounded once. The square is taken of `h/4` and
/// scaled back by 8: results within half an ulp of the base format's largest value have a
/// finite multi-word value, but `h * h/2` could round a partial sum of the product up to
/// infinity on the way.
fn half_exp_large<T: MultiFloat>(a: T) -> T {
    let h = (T::Wide::one() + expm1_wide(a.ldexp(-1))).ldexp(-2);
    T::narrow((h * h).ldexp(3))
}

fn with_sign_of<T: MultiFloat>(r: T, x: T) -> T {
    if x.is_sign_negative() {
        -r
    } else {
        r
    }
}

/// `sinh x = (E + E/(E+1)) / 2` with `E = expm1(|x|)`, evaluated in the wide type
/// ([`MultiFloat::Wide`]) and rounded once.
pub fn sinh<T: MultiFloat>(x: T) -> T {
    if x.is_nan() || x.is_zero() || x.is_infinite() {
        return x;
    }
    let a = x.abs();
    let r = if a.hi().to_f64() > half_overflow::<T::Base>() {
        half_exp_large(a)
    } else {
        let e = expm1_wide(a);
        T::narrow((e + e / (e + T::Wide::one())).ldexp(-1))
    };
    with_sign_of(r, x)
}

/// `cosh x = (e^|x| + e^-|x|) / 2`.
pub fn cosh<T: MultiFloat>(x: T) -> T {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a.is_infinite() {
        return a;
    }
    if a.hi().to_f64() > half_overflow::<T::Base>() {
        return half_exp_large(a);
    }
    let e = exp(a);
    (e + e.recip()).ldexp(-1)
}

/// `tanh x = E / (E + 2)` with `E = expm1(2|x|)` evaluated in the wide type
/// ([`MultiFloat::Wide`]) and rounded once; `±1` once `1 - tanh|x| < 2^-(P+2)`.
pub fn tanh<T: MultiFloat>(x: T) -> T {
    if x.is_nan() || x.is_zero() {
        return x;
    }
    let a = x.abs();
    let r = if a.hi().to_f64() > (T::PRECISION as f64 + 4.0) * core::f64::consts::LN_2 / 2.0 {
        T::one()
    } else {
        let e = expm1_wide(a.ldexp(1));
        T::narrow(e / (e + T::Wide::from_base(T::Base::TWO)))
    };
    with_sign_of(r, x)
}
