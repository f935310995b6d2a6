//! The per-input screen: f(x) in binary64 with a proven relative bound, so that MPFR decides
//! only the inputs whose value the bound leaves near the threshold.
//!
//! Where a chunk of consecutive inputs spans too much of a period for a Taylor model (binary32
//! sin, cos and tan from a few units up: at 2^26 consecutive inputs are more than 2pi apart),
//! the filter used to decide every input with MPFR, whose reduction of a large argument is
//! slow. A screen evaluates f(x) with a proven relative bound `eps` (for the circular
//! functions, [`tmd_xfloat::math::binary32_trig`]: an exact integer reduction and binary64
//! series, docs/error-analysis.md §20) and places the value on the half-ulp grid of the format,
//! where every breakpoint of either kind lies. An input is cleared, proven neither hard nor
//! exact, when the value and its whole error interval lie in one binade and the distance to the
//! nearest grid point exceeds the threshold by more than the error; every other input goes to
//! MPFR with the reference search's rules. So the screen changes the cost, never the output:
//! a cleared input is one that [`tmd_core::decide`] answers `NotHard` (the distance it bounds is
//! at least the one `decide` compares, which counts only the breakpoints asked for).
//!
//! At K = 24 in binary32 the error is below 2^-25 of a half ulp against a threshold of 2^-23,
//! so about one input in 3 10^6 reaches MPFR.

use crate::range::InputRange;
use crate::reference::{decide_input, Case, SearchParams, Summary};
use crate::Target;
use tmd_core::{Format, FormatNumber, Func};
use tmd_xfloat::math::binary32_trig::{
    cos_binary32, sin_binary32, tan_binary32, EPS_SIN_COS, EPS_TAN,
};

/// A binary64 evaluation of f at a binary32 argument, `None` where its bound does not hold.
type Evaluation = fn(f32) -> Option<f64>;

/// The screen of one target, format and threshold.
#[derive(Clone, Copy, Debug)]
pub struct Screen {
    eval: Evaluation,
    /// The evaluation's relative bound, widened so that `|v - y| <= eps |v|` (the bound is
    /// relative to the exact y) and the products below rounded either way stay bounds.
    eps: f64,
    precision: u32,
    /// The format's smallest normal exponent and its largest exponent.
    emin: i32,
    emax: i32,
    /// 2^-K ulp in half-ulp units.
    threshold: f64,
}

impl Screen {
    /// The screen of `target` in `format` at `K = bits`, where one exists: sin, cos and tan of
    /// formats whose numbers are all binary32 numbers (binary16, bfloat16, binary32).
    pub fn new(target: &Target, format: &Format, bits: u32) -> Option<Screen> {
        let (eval, eps): (Evaluation, f64) = match target.function()? {
            Func::Sin => (sin_binary32, EPS_SIN_COS),
            Func::Cos => (cos_binary32, EPS_SIN_COS),
            Func::Tan => (tan_binary32, EPS_TAN),
            _ => return None,
        };
        let within_binary32 =
            format.precision() <= 24 && format.emax() <= 127 && format.qexp_min() >= -149;
        if !within_binary32 || bits > 60 {
            return None;
        }
        Some(Screen {
            eval,
            // 1/(1 - eps) < 1 + 2 eps, and 2^-40 covers every rounding of the products.
            eps: eps * (1.0 + 1.0 / (1u64 << 40) as f64),
            precision: format.precision(),
            emin: format.emin(),
            emax: format.emax(),
            threshold: 2f64.powi(1 - bits as i32),
        })
    }

    /// Whether x is proven neither hard (for either breakpoint kind) nor exact.
    pub fn clears(&self, x: &FormatNumber) -> bool {
        // x = mant 2^qexp with mant < 2^24 and qexp >= -149: exact in f64, then in f32.
        let xf = (x.mant as f64 * pow2(x.qexp)) as f32;
        let xf = if x.neg { -xf } else { xf };
        let Some(v) = (self.eval)(xf) else {
            return false;
        };
        let a = v.abs();
        if !a.is_normal() {
            return false;
        }
        // a in [2^(e-1), 2^e); the format's half-ulp there is 2^(e - p - 1) for normal results.
        let e = ((a.to_bits() >> 52) as i32) - 1022;
        if e - 1 < self.emin || e - 1 > self.emax {
            return false;
        }
        let p = self.precision as i32;
        let s = a * pow2(p + 1 - e); // in [2^p, 2^(p+1)), exact
        let err = s * self.eps;
        let (low, high) = (pow2(p), pow2(p + 1));
        // Strict comparisons of rounded values imply the same of the exact ones (RN is
        // monotone and the bounds are binary64 numbers): s_y lies strictly inside the binade.
        if s - err <= low || s + err >= high {
            return false;
        }
        // s < 2^25: the truncation to an integer is exact, and so are the differences.
        let fraction = s - (s as u64) as f64;
        let distance = fraction.min(1.0 - fraction);
        distance - err > self.threshold
    }
}

/// 2^k for `-1022 <= k <= 1023`.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// Every input of `range` with index in `first..last`: cleared by the screen, or decided by
/// MPFR like [`crate::reference::search_ordinals`]. Also returns how many the screen cleared.
pub(crate) fn screened_ordinals(
    screen: &Screen,
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    first: u128,
    last: u128,
) -> (Vec<Case>, Summary, u64) {
    let mut cases = Vec::new();
    let mut summary = Summary::of_inputs((last - first) as u64);
    let mut cleared = 0;
    for i in first..last {
        let x = range.input(i);
        if screen.clears(&x) {
            cleared += 1;
        } else if let Some(case) = decide_input(target, &range.format, params, x, &mut summary) {
            cases.push(case);
        }
    }
    (cases, summary, cleared)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tmd_core::number::parse_exact;
    use tmd_core::{decide, Breakpoints, Decision};

    fn screen(func: &str, format: &Format, bits: u32) -> Option<Screen> {
        Screen::new(&Target::parse(func).unwrap(), format, bits)
    }

    #[test]
    fn only_the_circular_functions_of_binary32_sized_formats_have_a_screen() {
        let b32 = Format::binary32();
        assert!(screen("sin", &b32, 24).is_some());
        assert!(screen("tan", &Format::binary16(), 11).is_some());
        assert!(screen("cos", &Format::parse("bfloat16").unwrap(), 8).is_some());
        assert!(screen("exp", &b32, 24).is_none());
        assert!(screen("sin(x)+1", &b32, 24).is_none());
        assert!(screen("sin", &Format::binary64(), 53).is_none());
    }

    #[test]
    fn a_cleared_input_is_one_mpfr_calls_not_hard() {
        // Thresholds from easy to beyond the screen's resolution; every input of a few
        // stretches, small and huge.
        let f = Format::binary32();
        for func in ["sin", "cos", "tan"] {
            let target = Target::parse(func).unwrap();
            for bits in [8, 20, 24, 27] {
                let s = screen(func, &f, bits).unwrap();
                for start in ["0x1.8p+3", "-0x1.2p+40", "0x1.921fb6p+0", "0x1p+127"] {
                    let o = f.ordinal(&parse_exact(start, &f).unwrap());
                    for d in 0..300 {
                        let x = f.from_ordinal(o + d);
                        if s.clears(&x) {
                            let verdict =
                                decide(&target.expr, &f, &x, bits, Breakpoints::All, 4096);
                            assert_eq!(
                                verdict,
                                Decision::NotHard,
                                "{func}({}) K {bits}",
                                x.to_hex()
                            );
                        }
                    }
                }
            }
        }
    }
}
