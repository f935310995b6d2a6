//! Where a binary64 function saturates: inputs beyond which RN(f(x)) is infinite (exp, exp2,
//! exp10, expm1 above ~709, sinh and cosh beyond ~710) or f(x) is a positive number below
//! 2^-1100 (exp, exp2, exp10 far below zero; erfc above ~27.54). There the double-double reference overflows or
//! underflows and would send every input to MPFR — about 2^62 inputs of binary64 exp. Which
//! functions saturate, and how, is tmd-core's table's (`Crunch::saturates`); the
//! thresholds are found once per function by bisection over binary64 ordinals with MPFR
//! (the functions are monotone there), so the decisions stay exact:
//! * overflow region: RN(f) is ±inf; RD(f) and RU(f) are ±MAX and ±inf, and which of them is
//!   correctly rounded depends on the mode ([`overflow_verdict`]);
//! * tiny region: RD(f) = +0 and RU(f) is the smallest subnormal; +0 is correctly rounded in
//!   round-to-nearest, down and toward zero, the smallest subnormal in up
//!   ([`tiny_result_verdict`]); other results go to MPFR.
//!
//! (binary32 targets need none of this: their binary64 reference has range to spare.)

use crate::analysis::{overflow_verdict, tiny_result_verdict, Verdict};
use crate::format::CrunchFormat;
use crate::function::RefFunc;
use crate::rounding::Rounding;
use rug::Float;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use tmd_core::registry::{eval_rounded, Dir, Saturates};

/// The saturation thresholds of one function in binary64.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Saturation {
    /// RN(f(x)) is infinite for `|x| >= overflow_from` (x > 0 only when `odd_or_even` is
    /// false), with the sign of f.
    overflow_from: Option<f64>,
    /// Overflow on both sides: sinh (odd) and cosh (even).
    symmetric: bool,
    /// f(x) is in (0, 2^-1100) for `x <= tiny_until` (negative).
    tiny_until: Option<f64>,
    /// f(x) is in (0, 2^-1100) for `x >= tiny_from` (positive: erfc).
    tiny_from: Option<f64>,
}

/// Smallest ordinal in `[lo, hi]` where `pred` holds, for a monotone `pred` true at `hi`.
fn first_true(mut lo: i64, mut hi: i64, pred: impl Fn(f64) -> bool) -> i64 {
    let fmt = CrunchFormat::Binary64;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(fmt.from_ordinal(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

fn compute(func: RefFunc) -> Saturation {
    // Where the table says RN(f) saturates in binary64.
    let (overflows, symmetric, tiny) = match func.facts().saturates {
        Saturates::OverflowAndTiny => (true, false, true),
        Saturates::Overflow => (true, false, false),
        Saturates::OverflowOdd | Saturates::OverflowEven => (true, true, false),
        Saturates::TinyAbove => (false, false, false),
        Saturates::Never => return Saturation::default(),
    };
    let tiny_above = func.facts().saturates == Saturates::TinyAbove;
    let Some(f) = func.registry() else {
        return Saturation::default();
    };
    let fmt = CrunchFormat::Binary64;
    let value = |x: f64, dir: Dir| eval_rounded(f, &Float::with_val(64, x), 128, dir).0;
    // MAX + ulp/2 = 2^1024 (1 - 2^-54): RN(f) is infinite from there on.
    let two_1024: Float = Float::with_val(128, 1) << 1024u32;
    let two_970: Float = Float::with_val(128, 1) << 970u32;
    let overflow_threshold = Float::with_val(128, &two_1024 - &two_970);
    let max = fmt.max_ordinal();
    let overflow_from = overflows.then(|| {
        let o = first_true(fmt.ordinal(1.0), max, |x| {
            value(x, Dir::Down).abs() >= overflow_threshold
        });
        fmt.from_ordinal(o)
    });
    let tiny_limit: Float = Float::with_val(128, 1) >> 1100u32;
    let tiny_until = tiny.then(|| {
        // The largest negative x (smallest |x|) with f(x) < 2^-1100: search on |x|.
        let o = first_true(fmt.ordinal(1.0), max, |m| value(-m, Dir::Up) < tiny_limit);
        -fmt.from_ordinal(o)
    });
    let tiny_from = tiny_above.then(|| {
        // The smallest positive x with f(x) < 2^-1100 (f decreasing there).
        let o = first_true(fmt.ordinal(1.0), max, |x| value(x, Dir::Up) < tiny_limit);
        fmt.from_ordinal(o)
    });
    Saturation {
        overflow_from,
        symmetric,
        tiny_until,
        tiny_from,
    }
}

/// The thresholds of `func` (computed once per process).
pub fn saturation(func: RefFunc) -> Saturation {
    static CACHE: OnceLock<Mutex<HashMap<RefFunc, Saturation>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = cache.lock().expect("saturation cache");
    *map.entry(func).or_insert_with(|| compute(func))
}

impl Saturation {
    /// RN(f(x)) is infinite from this input on (see `symmetric`).
    pub fn overflow_from(&self) -> Option<f64> {
        self.overflow_from
    }

    /// Whether the overflow region is `|x| >= overflow_from` (sinh, cosh).
    pub fn symmetric(&self) -> bool {
        self.symmetric
    }

    /// f(x) is a positive number below 2^-1100 for `x <= tiny_until`.
    pub fn tiny_until(&self) -> Option<f64> {
        self.tiny_until
    }

    /// f(x) is a positive number below 2^-1100 for `x >= tiny_from` (erfc).
    pub fn tiny_from(&self) -> Option<f64> {
        self.tiny_from
    }

    /// The verdict on a binary64 input in a saturated region judged in `mode`, or `None`.
    pub fn judge(&self, func: RefFunc, x: f64, a: f64, mode: Rounding) -> Option<Verdict> {
        if let Some(t) = self.overflow_from {
            let beyond = if self.symmetric { x.abs() >= t } else { x >= t };
            if beyond {
                let sign = if func.facts().saturates == Saturates::OverflowOdd {
                    x.signum()
                } else {
                    1.0
                };
                return Some(overflow_verdict(CrunchFormat::Binary64, sign, a, mode));
            }
        }
        let below = self.tiny_until.is_some_and(|t| x <= t);
        let above = self.tiny_from.is_some_and(|t| x >= t);
        if below || above {
            return tiny_result_verdict(CrunchFormat::Binary64, 1.0, a, mode);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tmd_core::registry::Func;

    #[test]
    fn thresholds_of_exp_match_the_known_ones() {
        let s = saturation(RefFunc::Registry(Func::Exp));
        // exp overflows from 0x1.62e42fefa39fp+9 (709.78...) on; f < 2^-1100 below
        // -1100 ln 2 = -762.46...
        let over = s.overflow_from.unwrap();
        assert!((709.78..709.79).contains(&over), "{over}");
        assert_eq!(over, f64::from_bits(0x40862e42fefa39f0));
        let tiny = s.tiny_until.unwrap();
        assert!((-762.47..-762.45).contains(&tiny), "{tiny}");
        let c = saturation(RefFunc::Registry(Func::Cosh));
        assert!(c.symmetric && (710.47..710.48).contains(&c.overflow_from.unwrap()));
        assert_eq!(
            saturation(RefFunc::Registry(Func::Log)),
            Saturation::default()
        );
        // erfc(x) < 2^-1100 from about 27.54 on (erfc x ~ e^(-x^2) / (x sqrt(pi))); no
        // overflow, nothing below.
        let e = saturation(RefFunc::Registry(Func::Erfc));
        let from = e.tiny_from.unwrap();
        assert!((27.5..27.6).contains(&from), "{from}");
        assert_eq!((e.overflow_from, e.tiny_until), (None, None));
        let below = CrunchFormat::Binary64.from_ordinal(CrunchFormat::Binary64.ordinal(from) - 1);
        let value = |x: f64| eval_rounded(Func::Erfc, &Float::with_val(64, x), 128, Dir::Up).0;
        let limit = Float::with_val(128, 1) >> 1100u32;
        assert!(value(from) < limit && value(below) >= limit);
    }
}
