//! The slow, obvious check that crunch's fast analysis is tested against: MPFR per input, the
//! way existing exhaustive harnesses work. It shares no code with [`crate::analysis`]: f(x) is
//! rounded by MPFR to the target precision in each direction and then to the IEEE format with
//! `subnormalize_ieee_round` (toward zero: the one of RD(f), RU(f) of smaller magnitude), and
//! the error is `|a - f| / ulp(f)` at 300 bits, with the binade of f taken from f rounded
//! toward zero (which never rounds across a power of two).

use crate::format::CrunchFormat;
use crate::function::RefFunc;
use crate::rounding::Rounding;
use rug::float::Round;
use rug::Float;
use tmd_core::registry::{eval_rounded, Dir};

/// What the oracle says about one input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OracleVerdict {
    pub correctly_rounded: bool,
    /// Faithful but not correctly rounded.
    pub faithful: bool,
    /// The error in ulps when both the result and RN(f) are finite.
    pub err: Option<f64>,
}

fn round_of(dir: Dir) -> Round {
    match dir {
        Dir::Down => Round::Down,
        Dir::Up => Round::Up,
        Dir::Nearest => Round::Nearest,
    }
}

/// f(x) at `prec` bits in direction `dir`, with the ternary value.
fn value(func: RefFunc, x: f64, prec: u32, dir: Dir) -> (Float, i32) {
    let xf = Float::with_val(64, x);
    match func.registry() {
        Some(f) => eval_rounded(f, &xf, prec, dir),
        None => {
            let (v, o) = Float::with_val_round(prec, 1.0 / &xf, round_of(dir));
            (v, o as i32)
        }
    }
}

/// f(x) correctly rounded to the IEEE format in direction `dir` (NaN, ±inf included).
pub fn ieee_round(func: RefFunc, fmt: CrunchFormat, x: f64, dir: Dir) -> f64 {
    let p = fmt.precision() as u32;
    let (mut v, t) = value(func, x, p, dir);
    v.subnormalize_ieee_round(t.cmp(&0), round_of(dir));
    let r = v.to_f64();
    if r.abs() <= fmt.max_finite() {
        return r;
    }
    // Beyond the largest finite number MAX, rounding toward zero stops at MAX (IEEE 754-2019
    // §7.4); away from zero and to nearest (RN(f) > MAX means f >= MAX + ulp/2) give inf.
    let toward_zero = match dir {
        Dir::Down => r > 0.0,
        Dir::Up => r < 0.0,
        Dir::Nearest => false,
    };
    if toward_zero {
        r.signum() * fmt.max_finite()
    } else {
        r.signum() * f64::INFINITY
    }
}

/// f(x) correctly rounded to the IEEE format in `mode` (NaN, ±inf included).
pub fn ieee_round_in(func: RefFunc, fmt: CrunchFormat, x: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::Nearest => ieee_round(func, fmt, x, Dir::Nearest),
        Rounding::Up => ieee_round(func, fmt, x, Dir::Up),
        Rounding::Down => ieee_round(func, fmt, x, Dir::Down),
        Rounding::Zero => {
            let (rd, ru) = (
                ieee_round(func, fmt, x, Dir::Down),
                ieee_round(func, fmt, x, Dir::Up),
            );
            if rd.abs() <= ru.abs() {
                rd
            } else {
                ru
            }
        }
    }
}

/// The oracle's verdict on the result `a` at `x` of a target meant for `mode`.
pub fn judge(func: RefFunc, fmt: CrunchFormat, x: f64, a: f64, mode: Rounding) -> OracleVerdict {
    let rn = ieee_round(func, fmt, x, Dir::Nearest);
    let rd = ieee_round(func, fmt, x, Dir::Down);
    let ru = ieee_round(func, fmt, x, Dir::Up);
    let correct = ieee_round_in(func, fmt, x, mode);
    let same = |u: f64, v: f64| u == v || (u.is_nan() && v.is_nan());
    let correctly_rounded = same(a, correct);
    let faithful = !correctly_rounded && (same(a, rd) || same(a, ru));
    let err = (rn.is_finite() && a.is_finite()).then(|| error(func, fmt, x, a, 300));
    OracleVerdict {
        correctly_rounded,
        faithful,
        err,
    }
}

/// `|a - f(x)| / ulp(f(x))` from MPFR evaluations of f at `prec` bits (for finite a and f).
pub fn error(func: RefFunc, fmt: CrunchFormat, x: f64, a: f64, prec: u32) -> f64 {
    let (f, _) = value(func, x, prec, Dir::Nearest);
    let emin = fmt.emin();
    let e = if f.is_zero() {
        emin
    } else {
        let (down, _) = value(func, x, prec, Dir::Down);
        let (up, _) = value(func, x, prec, Dir::Up);
        let toward_zero = if down.clone().abs() <= up.clone().abs() {
            down
        } else {
            up
        };
        toward_zero.get_exp().map_or(emin, |e| e - 1)
    };
    let ulp = Float::with_val(64, 1) << (e.max(emin) - fmt.precision() + 1);
    let diff = Float::with_val(prec, Float::with_val(64, a) - &f).abs();
    // Toward zero, as the analysis converts exact errors (docs/error-analysis.md §12.4): the
    // f64 value keeps the exact error's histogram bin, and ties fall where the analysis's do.
    Float::with_val(prec, diff / ulp).to_f64_round(rug::float::Round::Zero)
}
