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
use tmd_core::{Format, FormatNumber};
use tmd_xfloat::math::binary32_trig::{eval_many, Circular};

/// The screen of one target, format and threshold.
#[derive(Clone, Copy, Debug)]
pub struct Screen {
    function: Circular,
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
        let function = Circular::from_name(target.function()?.name())?;
        let within_binary32 =
            format.precision() <= 24 && format.emax() <= 127 && format.qexp_min() >= -149;
        if !within_binary32 || bits > 60 {
            return None;
        }
        Some(Screen {
            function,
            // 1/(1 - eps) < 1 + 2 eps, and 2^-40 covers every rounding of the products.
            eps: function.eps() * (1.0 + 1.0 / (1u64 << 40) as f64),
            precision: format.precision(),
            emin: format.emin(),
            emax: format.emax(),
            threshold: 2f64.powi(1 - bits as i32),
        })
    }

    /// Whether x is proven neither hard (for either breakpoint kind) nor exact.
    pub fn clears(&self, x: &FormatNumber) -> bool {
        let v = self.function.eval(binary32_of(x)).unwrap_or(f64::NAN);
        self.clears_value(v)
    }

    /// [`Screen::clears`] from the function's value at x (NaN where it was refused).
    fn clears_value(&self, v: f64) -> bool {
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
        // Strict comparisons of rounded values imply the same of the exact ones (RN is
        // monotone and the bounds are binary64 numbers): s_y lies strictly inside the binade.
        if s - err <= pow2(p) || s + err >= pow2(p + 1) {
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

/// x = mant 2^qexp (mant < 2^24, qexp >= -149) as a binary32 number: exact in f64, then in f32.
fn binary32_of(x: &FormatNumber) -> f32 {
    let v = (x.mant as u32 as f64 * pow2(x.qexp)) as f32;
    if x.neg {
        -v
    } else {
        v
    }
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
    let format = &range.format;
    // binary32 ordinals are the encodings of the magnitudes, signed: no FormatNumber needed.
    let binary32 = format.precision() == 24 && format.emin() == -126;
    let ordinal = |i: u128| range.start + i as i128;
    let xs: Vec<f32> = (first..last)
        .map(|i| {
            let o = ordinal(i);
            if binary32 {
                let x = f32::from_bits(o.unsigned_abs() as u32);
                if o < 0 {
                    -x
                } else {
                    x
                }
            } else {
                binary32_of(&format.from_ordinal(o))
            }
        })
        .collect();
    let mut values = vec![0f64; xs.len()];
    eval_many(screen.function, &xs, &mut values);
    for (i, &v) in (first..last).zip(&values) {
        if screen.clears_value(v) {
            cleared += 1;
            continue;
        }
        let x = format.from_ordinal(ordinal(i));
        if let Some(case) = decide_input(target, format, params, x, &mut summary) {
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
    fn binary32_ordinals_are_the_signed_encodings() {
        let f = Format::binary32();
        for o in [
            0i128,
            1,
            0x7f_ffff,
            0x80_0000,
            0x3f80_0000,
            0x7f7f_ffff,
            -1,
            -0x4000_0000,
        ] {
            let x = f32::from_bits(o.unsigned_abs() as u32);
            let x = if o < 0 { -x } else { x };
            let n = f.from_ordinal(o);
            let back = n.mant as f64 * 2f64.powi(n.qexp) * if n.neg { -1.0 } else { 1.0 };
            assert_eq!(x as f64, back, "ordinal {o}");
        }
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
                let mut cleared = 0;
                for start in ["0x1.8p+3", "-0x1.2p+40", "0x1.921fb6p+0", "0x1p+127"] {
                    let o = f.ordinal(&parse_exact(start, &f).unwrap());
                    for d in 0..300 {
                        let x = f.from_ordinal(o + d);
                        if s.clears(&x) {
                            cleared += 1;
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
                // 1200 inputs: nearly all are cleared (else this test would compare nothing).
                assert!(cleared > 1000, "{func} K {bits}: {cleared} cleared");
            }
        }
    }
}
