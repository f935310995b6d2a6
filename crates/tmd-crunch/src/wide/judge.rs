//! The correctly rounded result of a binary80 or binary128 input in each mode, and the verdict
//! on a target's result, all from MPFR.
//!
//! Each rounding is MPFR's own: f(x) rounded to p bits in the direction asked (MPFR rounds
//! every function correctly in every direction), then `mpfr_subnormalize` with the same
//! direction and MPFR's ternary value, which gives the format's subnormal result without a
//! second rounding error, then the overflow rule of IEEE 754-2019 §7.4: a rounded value beyond
//! the largest finite number is infinite in round-to-nearest and away from zero, and the
//! largest finite number toward zero. Round toward zero is the directed rounding toward the
//! origin. MPFR's own exponent range (about 2^±2^30) is far wider than the formats', so only
//! f beyond even that range comes back infinite or zero from MPFR; such an infinite f is an
//! overflow of the format unless tmd-core knows x for a pole of f.
//!
//! The error in ulps is the one crunch uses everywhere: |a - f(x)| / ulp(f(x)), with
//! ulp(f) = 2^(max(e, emin) - p + 1) for 2^e <= |f| < 2^(e+1). f is taken at 2p + 128 bits,
//! so the printed error is within 2^-(p+128) |f| / ulp(f) < 2^-127 ulp of the exact one,
//! and the error is rounded toward zero so that its histogram bin is the exact error's. The
//! classes (correctly rounded, faithful, worse) come from exact comparisons with the roundings,
//! never from the error.

use super::encoding::{WideFormat, WideValue};
use crate::analysis::{Class, Special, Verdict};
use crate::function::{round_of, RefFunc};
use crate::rounding::Rounding;
use rug::float::Round;
use rug::Float;
use tmd_core::registry::{exact_value, Dir, Exact};
use tmd_core::FormatNumber;

fn is_pole(func: RefFunc, x: &Float) -> bool {
    match func.registry() {
        Some(f) => matches!(exact_value(f, x), Some(Exact::Pole)),
        None => x.is_zero(),
    }
}

/// f(x) in the format, rounded in `dir` (NaN where f is undefined, ±inf at poles).
fn rounded(func: RefFunc, fmt: WideFormat, x: &Float, dir: Dir) -> WideValue {
    let core = fmt.core();
    let p = core.precision();
    let (mut y, ternary) = func.mpfr_rounded(x, p, dir);
    if y.is_nan() {
        return WideValue::NaN;
    }
    let neg = y.is_sign_negative();
    if y.is_infinite() && is_pole(func, x) {
        return WideValue::Infinite { neg };
    }
    // MPFR's exponent of 2^emin is emin + 1: subnormal results start below it.
    y.subnormalize_round(core.emin() + 1, ternary.cmp(&0), round_of(dir));
    let max = core.max_finite().to_float();
    if y.is_infinite() || y.clone().abs() > max {
        let to_infinity = match dir {
            Dir::Nearest => true,
            Dir::Up => !neg,
            Dir::Down => neg,
        };
        return if to_infinity {
            WideValue::Infinite { neg }
        } else {
            let mut m = core.max_finite();
            m.neg = neg;
            WideValue::Finite(m)
        };
    }
    let (n, exp) = y.to_integer_exp().expect("finite");
    let number = core
        .number_from_parts(neg, &n.abs(), i64::from(exp))
        .expect("a p-bit number within the format's range");
    WideValue::Finite(number)
}

/// f(x) rounded in each direction.
#[derive(Clone, Copy, Debug)]
pub struct Roundings {
    pub nearest: WideValue,
    pub down: WideValue,
    pub up: WideValue,
}

impl Roundings {
    pub fn of(func: RefFunc, fmt: WideFormat, x: &FormatNumber) -> Roundings {
        let x = x.to_float();
        Roundings {
            nearest: rounded(func, fmt, &x, Dir::Nearest),
            down: rounded(func, fmt, &x, Dir::Down),
            up: rounded(func, fmt, &x, Dir::Up),
        }
    }

    /// The correctly rounded result in `mode`.
    pub fn in_mode(&self, mode: Rounding) -> WideValue {
        match mode {
            Rounding::Nearest => self.nearest,
            Rounding::Up => self.up,
            Rounding::Down => self.down,
            // Toward zero is down above zero and up below it; RD(f) >= 0 exactly when f >= 0.
            Rounding::Zero => match self.down {
                WideValue::Finite(d) if !d.neg || d.is_zero() => self.down,
                _ => self.up,
            },
        }
    }
}

/// Whether two results are the same value (+0 and -0 are, as in crunch's other formats).
fn same(a: WideValue, b: WideValue) -> bool {
    match (a, b) {
        (WideValue::NaN, WideValue::NaN) => true,
        (WideValue::Finite(u), WideValue::Finite(v)) => (u.is_zero() && v.is_zero()) || u == v,
        _ => a == b,
    }
}

/// The verdict on the result `a` of f at `x` in `mode`, and the correctly rounded result.
pub fn judge(
    func: RefFunc,
    fmt: WideFormat,
    x: &FormatNumber,
    a: WideValue,
    mode: Rounding,
) -> (Verdict, WideValue) {
    let r = Roundings::of(func, fmt, x);
    let expected = r.in_mode(mode);
    let class = if same(a, expected) {
        Class::CorrectlyRounded
    } else if same(a, r.down) || same(a, r.up) {
        Class::Faithful
    } else {
        Class::Worse
    };
    let verdict = |special, err| {
        (
            Verdict {
                class,
                err,
                special,
            },
            expected,
        )
    };
    match (r.nearest, a) {
        (WideValue::NaN, _) => verdict(Special::NanExpected, None),
        (_, WideValue::NaN) => verdict(Special::NanSpurious, None),
        (WideValue::Infinite { .. }, _) if is_pole(func, &x.to_float()) => {
            verdict(Special::Pole, None)
        }
        (WideValue::Infinite { .. }, _) => verdict(Special::Overflow, None),
        (_, WideValue::Infinite { .. }) => verdict(Special::InfSpurious, None),
        (_, WideValue::Finite(a)) => {
            let (err, subnormal) = error_in_ulps(func, fmt, x, &a);
            let special = if subnormal {
                Special::Subnormal
            } else {
                Special::None
            };
            verdict(special, Some(err))
        }
    }
}

/// |a - f(x)| / ulp(f(x)) rounded toward zero, and whether f(x) is a non-zero number below
/// the smallest normal one.
fn error_in_ulps(
    func: RefFunc,
    fmt: WideFormat,
    x: &FormatNumber,
    a: &FormatNumber,
) -> (f64, bool) {
    let core = fmt.core();
    let p = core.precision() as i32;
    let (f, ternary) = func.mpfr_rounded(&x.to_float(), 2 * p as u32 + 128, Dir::Nearest);
    let e = if f.is_zero() {
        core.emin()
    } else {
        // rug's exponent is floor(log2|f|) + 1. Where rounding reached a power of two from
        // below in magnitude, f lies in the binade under it.
        let e_f = f.get_exp().expect("finite non-zero") - 1;
        let shrank = ternary != 0 && (ternary > 0) == f.is_sign_positive();
        let power_of_two = f.clone().abs() == Float::with_val(2, 1) << e_f;
        e_f - i32::from(shrank && power_of_two)
    };
    let ulp_exp = e.max(core.emin()) - p + 1;
    let diff = Float::with_val(4 * p as u32 + 256, &a.to_float() - &f).abs();
    let err = (diff >> ulp_exp).to_f64_round(Round::Zero);
    (err, !f.is_zero() && e < core.emin())
}
