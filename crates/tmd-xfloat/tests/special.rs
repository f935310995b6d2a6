//! IEEE-like special values, comparisons, classification and conversions for all four types.
#![allow(clippy::eq_op, clippy::nonminimal_bool)]
mod common;

use tmd_xfloat::{BaseFloat, Dd, Df64, MultiFloat, Qd, Qf128};

fn b<T: MultiFloat>(x: f64) -> T {
    T::from_base(T::Base::from_f64(x))
}

fn check_specials<T: MultiFloat + std::str::FromStr + std::fmt::Display + std::fmt::LowerHex>()
where
    <T as std::str::FromStr>::Err: std::fmt::Debug,
{
    let inf = b::<T>(f64::INFINITY);
    let one = T::one();
    let zero = T::zero();
    let nan = b::<T>(f64::NAN);
    let max = T::from_base(T::Base::MAX);
    // Infinities propagate instead of turning into NaN.
    assert!((inf + one).is_infinite() && !(inf + one).is_sign_negative());
    assert!((one - inf).is_infinite() && (one - inf).is_sign_negative());
    assert!((inf * one.ldexp(-3)).is_infinite());
    assert!((inf - inf).is_nan());
    assert!((inf * zero).is_nan());
    assert!((nan + one).is_nan() && (nan * one).is_nan() && (nan / one).is_nan());
    // Division by zero and by infinity.
    assert!((one / zero).is_infinite() && !(one / zero).is_sign_negative());
    assert!((-one / zero).is_infinite() && (-one / zero).is_sign_negative());
    assert!((zero / zero).is_nan());
    assert!((one / inf).is_zero());
    assert!((one / -inf).is_zero() && (one / -inf).is_sign_negative());
    assert!(zero.recip().is_infinite());
    // Overflow gives infinity, never NaN.
    assert!((max + max).is_infinite());
    assert!((max * b::<T>(2.0)).is_infinite());
    assert!((max / b::<T>(0.5)).is_infinite());
    assert!((-max - max).is_infinite() && (-max - max).is_sign_negative());
    // Underflow gives zero with the right sign.
    let tiny = one.ldexp(T::Base::MIN_EXP - 10);
    assert!((tiny * tiny).is_zero());
    assert!((tiny * -tiny).is_sign_negative());
    // Signed zeros.
    let neg_zero = -zero;
    assert!((neg_zero + neg_zero).is_sign_negative());
    assert!(!(neg_zero + zero).is_sign_negative());
    assert!((zero * -one).is_sign_negative());
    assert!(!(one - one).is_sign_negative() && (one - one).is_zero());
    // Square roots.
    assert!((-one).sqrt().is_nan());
    assert!(nan.sqrt().is_nan());
    assert!(inf.sqrt().is_infinite());
    assert!(neg_zero.sqrt().is_zero() && neg_zero.sqrt().is_sign_negative());
    assert_eq!(b::<T>(4.0).sqrt(), b::<T>(2.0));
    // Elementary functions at special points.
    use tmd_xfloat::math;
    assert!(math::exp(inf).is_infinite());
    assert!(math::exp(-inf).is_zero());
    assert!(math::exp(b::<T>(1e6)).is_infinite());
    assert!(math::exp(b::<T>(-1e6)).is_zero());
    assert_eq!(math::exp(zero), one);
    assert_eq!(math::expm1(-inf), -one);
    assert!(math::expm1(neg_zero).is_sign_negative());
    assert!(math::log(zero).is_infinite() && math::log(zero).is_sign_negative());
    assert!(math::log(-one).is_nan());
    assert!(math::log(inf).is_infinite());
    assert!(math::log(one).is_zero());
    assert!(math::log1p(-one).is_infinite());
    assert!(math::log1p(b::<T>(-2.0)).is_nan());
    assert!(math::sin(inf).is_nan() && math::cos(nan).is_nan() && math::tan(-inf).is_nan());
    assert!(math::sin(neg_zero).is_sign_negative() && math::sin(neg_zero).is_zero());
    assert_eq!(math::cos(zero), one);
    assert_eq!(math::atan(inf), T::constant(tmd_xfloat::Constant::Pi2));
    assert!(math::sinh(-inf).is_infinite() && math::sinh(-inf).is_sign_negative());
    assert!(math::cosh(-inf).is_infinite() && !math::cosh(-inf).is_sign_negative());
    assert_eq!(math::tanh(-inf), -one);
    assert!(math::sinh(b::<T>(1e6)).is_infinite() && math::cosh(b::<T>(1e6)).is_infinite());
    // Comparisons and classification.
    let third = one / b::<T>(3.0);
    assert!(third < one && one > third && third <= third && third == third);
    assert!(third != third + one.ldexp(-(T::PRECISION as i32) - 2) || T::WORDS == 2);
    assert!(!(nan == nan) && nan.partial_cmp(&one).is_none());
    assert!(-inf < -max && max < inf && inf == inf);
    assert!(nan.is_nan() && inf.is_infinite() && !inf.is_finite() && one.is_finite());
    assert!(neg_zero.is_zero() && neg_zero == zero);
    // Strings: hexadecimal round trip is exact, decimal within a few ulps.
    for x in [
        third,
        -third.ldexp(100),
        math::exp(b::<T>(7.25)),
        max,
        one.ldexp(-100),
    ] {
        let hex = format!("{x:x}");
        let back: T = hex.parse().unwrap();
        assert_eq!(back.to_words(), x.to_words(), "hex round trip of {hex}");
        if x == max {
            continue; // decimal parsing may round past the overflow threshold
        }
        let dec = format!("{x}");
        let back: T = dec.parse().unwrap();
        let err = common::ulp_error(back, &common::to_mp(x));
        assert!(err < 8.0, "decimal round trip {dec}: {err} ulp");
    }
    assert_eq!("0.5".parse::<T>().unwrap(), b::<T>(0.5));
    assert_eq!("-1.25e2".parse::<T>().unwrap(), b::<T>(-125.0));
    assert!("inf".parse::<T>().unwrap().is_infinite());
    assert!("nan".parse::<T>().unwrap().is_nan());
    assert!(
        "1.2.3".parse::<T>().is_err() && "abc".parse::<T>().is_err() && "".parse::<T>().is_err()
    );
    assert_eq!(
        format!("{}", b::<T>(-2.5))
            .split('e')
            .next()
            .unwrap()
            .trim_end_matches('0'),
        "-2.5"
    );
}

#[test]
fn df64_specials() {
    check_specials::<Df64>();
}
#[test]
fn dd_specials() {
    check_specials::<Dd>();
}
#[test]
fn qf128_specials() {
    check_specials::<Qf128>();
}
#[test]
fn qd_specials() {
    check_specials::<Qd>();
}

#[test]
fn integer_and_float_conversions() {
    let big = (1i64 << 62) + 12345;
    assert_eq!(Dd::from(big).to_i64(), big);
    assert_eq!(Qd::from(big).to_i64(), big);
    assert_eq!(Qf128::from(big).to_i64(), big);
    assert_eq!(Df64::from(-7i64).to_i64(), -7);
    assert_eq!(Dd::from(u64::MAX).to_f64(), u64::MAX as f64);
    assert_eq!(Dd::from(f64::NAN).to_i64(), 0);
    assert_eq!(Dd::from(1e300).to_i64(), i64::MAX);
    assert_eq!(Dd::from(-2.75).to_i64(), -2);
    // An f64 is exact in dd, qd and qf128 (three f32 words) and rounded to 48 bits in df64.
    let x = std::f64::consts::PI;
    assert_eq!(Dd::from(x).to_f64(), x);
    assert_eq!(Qf128::from(x).to_f64(), x);
    assert!((Df64::from(x).to_f64() - x).abs() < x * 2f64.powi(-48));
    assert_eq!(Df64::from(1.5f32).to_f32(), 1.5);
    assert!(Df64::from(1e40).is_infinite());
    let q = Qd::from(0.1) + Qd::from(1e-40);
    assert_eq!(q.words()[0], 0.1);
    assert_eq!(q.round(), Qd::from(0.0));
    assert_eq!(Dd::from(2.5).round(), Dd::from(3.0));
    assert_eq!(Dd::from(-2.5).floor(), Dd::from(-3.0));
    assert_eq!(Qd::from(-2.5).trunc(), Qd::from(-2.0));
}

#[test]
fn eft_without_fma_matches_fma() {
    let mut r = common::rng(7);
    use rand::Rng;
    for _ in 0..10_000 {
        let a: f64 = r.gen_range(-1e10..1e10);
        let b: f64 = r.gen_range(-1e10..1e10);
        assert_eq!(
            tmd_xfloat::eft::two_prod(a, b),
            tmd_xfloat::eft::two_prod_dekker(a, b)
        );
        let (a, b) = (a as f32, b as f32);
        assert_eq!(
            tmd_xfloat::eft::two_prod(a, b),
            tmd_xfloat::eft::two_prod_dekker(a, b)
        );
    }
}
