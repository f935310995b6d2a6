//! Hyperbolic functions from `exp` / `expm1`, in forms free of cancellation.

use super::exp;
use super::exp_log::expm1_wide;
use crate::base::BaseFloat;
use crate::multi::MultiFloat;

/// Beyond this argument `e^|x|` overflows but `e^|x| / 2` may not: use `e^(|x|/2)^2 / 2`.
pub fn half_overflow<F: BaseFloat>() -> f64 {
    (F::MAX_EXP - 1) as f64 * core::f64::consts::LN_2
}

/// `e^a / 2` for large `a`, without intermediate overflow: `h^2 / 2` with `h = e^(a/2)`
/// from [`expm1_wide`], in the wide type and rounded once.
fn half_exp_large<T: MultiFloat>(a: T) -> T {
    let h = T::Wide::one() + expm1_wide(a.ldexp(-1));
    let r = h * h.ldexp(-1);
    if r.is_finite() {
        return T::narrow(r);
    }
    T::narrow(square_half_at_the_top(h))
}

/// `h^2 / 2` (in the quad word `W`) when the product overflowed. Its value may still be finite:
/// as for every operation, a multi-word result overflows when its leading word, rounded to
/// nearest, would (from `MAX + ulp(MAX)/2` on), but the product may have rounded its leading
/// word up to `2^MAX_EXP` on the way from a smaller value. At an eighth of the scale,
/// `d = (h/4)^2 - MAX/8` is small and accurate; the value overflows when `8d` reaches
/// `ulp(MAX)/2`, is `[MAX, 8d]` word for word when `d > 0`, and `8 (MAX/8 + d)` otherwise
/// (whose leading word cannot round past `MAX/8`).
fn square_half_at_the_top<W: MultiFloat>(h: W) -> W {
    let q = h.ldexp(-2);
    let max_8 = W::Base::MAX.scalbn(-3);
    let d = q * q - W::from_base(max_8);
    let p = W::Base::MANTISSA_DIGITS as i32;
    // Compared as multi-word numbers: d may lie within 2^-200 of the threshold, where its
    // leading word alone rounds to it.
    if d >= W::from_base(W::Base::ONE.scalbn(W::Base::MAX_EXP - p - 4)) {
        return W::from_base(W::Base::INFINITY);
    }
    if d > W::zero() {
        let w = d.to_words();
        let eight = |x: W::Base| x.scalbn(3);
        return W::from_expansion(&[W::Base::MAX, eight(w[0]), eight(w[1]), eight(w[2])]);
    }
    (W::from_base(max_8) + d).ldexp(3)
}

/// Beyond this `|x|`, `tanh x` is `±1`: `1 - tanh|x| < 2^-(P+2)`.
pub fn tanh_one_above<T: MultiFloat>() -> f64 {
    (T::PRECISION as f64 + 4.0) * core::f64::consts::LN_2 / 2.0
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
    let r = if a.hi().to_f64() > tanh_one_above::<T>() {
        T::one()
    } else {
        let e = expm1_wide(a.ldexp(1));
        T::narrow(e / (e + T::Wide::from_base(T::Base::TWO)))
    };
    with_sign_of(r, x)
}
