//! sin, cos and tan of binary32 arguments, evaluated in binary64 with a proven relative bound.
//!
//! A search or an accuracy check of a binary32 function needs, per input, a value of `f(x)` good
//! enough to tell whether `f(x)` is near a rounding breakpoint; MPFR is then asked only about the
//! few that are. For sin, cos and tan of large arguments MPFR is slow (its reduction works at
//! the argument's exponent), and so is any reduction carried in floating point. Here a binary32
//! argument `x = m 2^e` (`m < 2^24`) is reduced exactly in integers: `x 2/pi mod 4` equals
//! `m W_e 2^-126 mod 4`, where `W_e` holds the 128 bits of 2/pi from position `e - 1` on (earlier
//! bits contribute multiples of 4, later ones less than `m 2^-126 < 2^-102`; Payne and Hanek,
//! "Radian reduction for trigonometric functions", SIGNUM Newsletter 18(1), 1983). One wrapping
//! 64 x 128-bit product gives the quadrant in its top two bits and the reduced argument `t` in
//! the other 126. Then `theta = t pi/2` is formed as a double-double `theta_hi + theta_lo`, and
//! Taylor series of degree 17 (sin) and 16 (cos) in `theta_hi`, with `theta_lo` as a first-order
//! correction, give the result with a handful of roundings.
//!
//! Bounds (docs/error-analysis.md §20): the value returned is within [`EPS_SIN_COS`] = 2^-51
//! (relative) of sin x and cos x, and within [`EPS_TAN`] = 2^-50 of tan x. The proof needs the
//! reduced argument not to be tiny: an argument whose `|t|` is below 2^-40 (within about 2^-40
//! of a multiple of pi/2 relative to the quadrant) is refused with `None`, and so are infinities
//! and NaN. Only `f64` multiplications and additions are used (no fused multiply-add, whose
//! absence on the build target would mean a library call), and Dekker's product for the one
//! exact product, so the results do not depend on the build.

use crate::eft::two_prod_in_dekker_range;

/// Relative error bound of [`sin_binary32`] and [`cos_binary32`]: 2^-51.
pub const EPS_SIN_COS: f64 = 1.0 / (1u64 << 51) as f64;

/// Relative error bound of [`tan_binary32`]: 2^-50.
pub const EPS_TAN: f64 = 1.0 / (1u64 << 50) as f64;

/// Reduced arguments below this (in quadrants) are refused: the table's truncation, below
/// 2^-102, must stay negligible relative to the argument (2^-62).
pub const MIN_REDUCED: f64 = 1.0 / (1u64 << 40) as f64;

/// binary32 numbers up to this are their own reduced argument: the largest `f32` below pi/4
/// (`RN(pi/4)` in binary32 lies above pi/4).
pub const QUARTER_PI_F32_BELOW: f32 = f32::from_bits(core::f32::consts::FRAC_PI_4.to_bits() - 1);

/// pi/2 as a double-double: `PI_2_HI = RN(pi/2)` and `PI_2_LO = RN(pi/2 - PI_2_HI)`.
pub const PI_2_HI: f64 = core::f64::consts::FRAC_PI_2;
/// See [`PI_2_HI`].
pub const PI_2_LO: f64 = 6.123_233_995_736_766e-17;

/// `RN(1/n!)` for the sin series: `sin t = t + t^3 S(t^2)`, `S(z) = sum (-1)^(k+1) z^k / (2k+3)!`
/// for `k = 0..=7` (terms up to `t^17`), highest first for Horner's scheme.
pub const SIN_TAIL: [f64; 8] = [
    1.0 / 355_687_428_096_000.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 39_916_800.0,
    1.0 / 362_880.0,
    -1.0 / 5040.0,
    1.0 / 120.0,
    -1.0 / 6.0,
];

/// `RN(1/n!)` for the cos series: `cos t = 1 - t^2/2 + t^4 C(t^2)`, `C(z) = sum (-1)^k z^k /
/// (2k+4)!` for `k = 0..=6` (terms up to `t^16`), highest first.
pub const COS_TAIL: [f64; 7] = [
    1.0 / 20_922_789_888_000.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 479_001_600.0,
    -1.0 / 3_628_800.0,
    1.0 / 40_320.0,
    -1.0 / 720.0,
    1.0 / 24.0,
];

/// The three functions, for evaluating batches ([`eval_many`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Circular {
    /// sin x, within [`EPS_SIN_COS`].
    Sin,
    /// cos x, within [`EPS_SIN_COS`].
    Cos,
    /// tan x, within [`EPS_TAN`].
    Tan,
}

impl Circular {
    /// The function's name in tmd's registry (`sin`, `cos`, `tan`).
    pub fn name(self) -> &'static str {
        match self {
            Circular::Sin => "sin",
            Circular::Cos => "cos",
            Circular::Tan => "tan",
        }
    }

    /// The function named `name` in tmd's registry, if it is one of the three.
    pub fn from_name(name: &str) -> Option<Circular> {
        [Circular::Sin, Circular::Cos, Circular::Tan]
            .into_iter()
            .find(|f| f.name() == name)
    }

    /// The relative error bound of the function's values.
    pub fn eps(self) -> f64 {
        match self {
            Circular::Sin | Circular::Cos => EPS_SIN_COS,
            Circular::Tan => EPS_TAN,
        }
    }

    /// The function at one argument: [`sin_binary32`], [`cos_binary32`] or [`tan_binary32`].
    /// Inlined, so that a call with a known function keeps only its branch.
    #[inline(always)]
    pub fn eval(self, x: f32) -> Option<f64> {
        let r = reduce(x)?;
        Some(self.of_reduced(x, &r))
    }

    /// The function at `x` from its reduced argument.
    #[inline(always)]
    fn of_reduced(self, x: f32, r: &Reduced) -> f64 {
        let negate = x.is_sign_negative() && self != Circular::Cos;
        let v = match (self, r.quadrant) {
            (Circular::Sin, 0) | (Circular::Cos, 3) => sin_kernel(r.hi, r.lo),
            (Circular::Sin, 1) | (Circular::Cos, 0) => cos_kernel(r.hi, r.lo),
            (Circular::Sin, 2) | (Circular::Cos, 1) => -sin_kernel(r.hi, r.lo),
            (Circular::Sin, _) | (Circular::Cos, _) => -cos_kernel(r.hi, r.lo),
            (Circular::Tan, q) => {
                let (s, c) = (sin_kernel(r.hi, r.lo), cos_kernel(r.hi, r.lo));
                if q & 1 == 0 {
                    s / c
                } else {
                    -c / s
                }
            }
        };
        if negate {
            -v
        } else {
            v
        }
    }
}

/// Arguments per pass of [`eval_many`].
const BATCH: usize = 32;

/// The function at every argument of `xs`, into `out` (NaN where [`reduce`] refuses one). The
/// same values as one call per argument, computed in passes (every reduction of a batch, then
/// every series): each pass's loop body is short, so the processor overlaps many arguments
/// instead of waiting on one long chain per argument.
pub fn eval_many(f: Circular, xs: &[f32], out: &mut [f64]) {
    assert_eq!(xs.len(), out.len(), "one output per argument");
    let empty = Reduced {
        quadrant: 0,
        hi: f64::NAN,
        lo: 0.0,
    };
    for (xs, out) in xs.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
        let mut reduced = [empty; BATCH];
        for (r, &x) in reduced.iter_mut().zip(xs) {
            *r = reduce(x).unwrap_or(empty);
        }
        for ((o, r), &x) in out.iter_mut().zip(&reduced).zip(xs) {
            *o = f.of_reduced(x, r);
        }
    }
}

/// A reduced argument: `|x| = (4n + quadrant) pi/2 + theta`, `theta = hi + lo` (to a relative
/// 2^-61.9), `|theta| <= pi/4 (1 + 2^-100)`.
#[derive(Clone, Copy)]
struct Reduced {
    quadrant: u32,
    hi: f64,
    lo: f64,
}

/// The exponents `e` of `m 2^e` (`2^23 <= m < 2^24`) from pi/4 to the largest binary32.
const FIRST_EXPONENT: i64 = -24;
const LAST_EXPONENT: i64 = 104;

/// The 128 bits of 2/pi from position `e - 1` (1 is the first bit after the binary point).
const fn two_over_pi_window(e: i64) -> u128 {
    let high = super::trig::two_over_pi_bits(e - 1) as u128;
    let low = super::trig::two_over_pi_bits(e + 63) as u128;
    (high << 64) | low
}

/// [`two_over_pi_window`] of every exponent, built at compile time.
static WINDOWS: [u128; (LAST_EXPONENT - FIRST_EXPONENT + 1) as usize] = {
    let mut table = [0u128; (LAST_EXPONENT - FIRST_EXPONENT + 1) as usize];
    let mut i = 0;
    while i < table.len() {
        table[i] = two_over_pi_window(FIRST_EXPONENT + i as i64);
        i += 1;
    }
    table
};

/// `(t_hi, t_lo)` with `t_hi + t_lo = r 2^-126` to a relative 2^-105, `t_hi` the value
/// truncated to 53 bits (so `|t_lo| <= 2^-52 |t_hi|`); `(0, 0)` for `r = 0`. Integer shifts and
/// two 64-bit conversions, instead of the library's 128-bit conversions.
fn fixed_to_double_double(r: i128) -> (f64, f64) {
    let a = r.unsigned_abs();
    if a == 0 {
        return (0.0, 0.0);
    }
    let lz = a.leading_zeros();
    let normalized = a << lz; // top bit at 127
    let top = (normalized >> 75) as u64; // 53 bits, exact in f64
    let rest = ((normalized << 53) >> 64) as u64; // the next 64 bits, rounded once below
                                                  // normalized 2^-lz 2^-126 = top 2^(75 - lz - 126) + rest 2^(11 - lz - 126) + (< 2^(-lz - 179)).
    let scale_top = exp2i(75 - lz as i32 - 126);
    let scale_rest = exp2i(11 - lz as i32 - 126);
    let (hi, lo) = (top as f64 * scale_top, rest as f64 * scale_rest);
    if r < 0 {
        (-hi, -lo)
    } else {
        (hi, lo)
    }
}

/// 2^k for a normal binary64 power of two.
fn exp2i(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// Reduces `|x|` by pi/2; `None` for infinities, NaN and arguments too close to a multiple of
/// pi/2 for the bound ([`MIN_REDUCED`]).
fn reduce(x: f32) -> Option<Reduced> {
    let a = x.abs();
    if !a.is_finite() {
        return None;
    }
    if a <= QUARTER_PI_F32_BELOW {
        return Some(Reduced {
            quadrant: 0,
            hi: a as f64,
            lo: 0.0,
        });
    }
    // a >= pi/4 is normal: a = m 2^e with the implicit bit in m.
    let bits = a.to_bits();
    let m = ((bits & 0x7f_ffff) | 0x80_0000) as u128;
    let e = ((bits >> 23) as i64) - 150;
    // x 2/pi mod 4 = X 2^-126, truncated by less than 2^-102.
    let window = WINDOWS[(e - FIRST_EXPONENT) as usize];
    // m W mod 2^128 from one widening and one wrapping 64-bit product (m < 2^24).
    let low = m * (window as u64 as u128);
    let high = (m as u64).wrapping_mul((window >> 64) as u64);
    let product = low.wrapping_add((high as u128) << 64);
    let quadrant = (product.wrapping_add(1 << 125) >> 126) as u32;
    let r = product.wrapping_sub((quadrant as u128) << 126) as i128;
    // t = r 2^-126 in [-1/2, 1/2].
    let (t_hi, t_lo) = fixed_to_double_double(r);
    if t_hi.abs() < MIN_REDUCED {
        return None;
    }
    // theta = t pi/2: the exact product t_hi PI_2_HI, then the small terms.
    let (p, e_p) = two_prod_in_dekker_range(t_hi, PI_2_HI);
    let lo = e_p + (t_hi * PI_2_LO + t_lo * PI_2_HI);
    Some(Reduced {
        quadrant: quadrant & 3,
        hi: p,
        lo,
    })
}

/// Horner's scheme, highest coefficient first, with separate multiplications and additions.
fn horner(coefficients: &[f64], z: f64) -> f64 {
    coefficients[1..]
        .iter()
        .fold(coefficients[0], |acc, &c| acc * z + c)
}

/// sin(hi + lo) for `|hi| <= pi/4`, `|lo| <= 2.4 2^-53 |hi|`.
fn sin_kernel(hi: f64, lo: f64) -> f64 {
    let z = hi * hi;
    let tail = (hi * z) * horner(&SIN_TAIL, z);
    // lo cos(hi) to first order in lo, cos(hi) to second order in hi.
    let lo_cos = lo - (0.5 * z) * lo;
    hi + (tail + lo_cos)
}

/// cos(hi + lo) for `|hi| <= pi/4`, `|lo| <= 2.4 2^-53 |hi|`.
fn cos_kernel(hi: f64, lo: f64) -> f64 {
    let z = hi * hi;
    // -lo sin(hi) to first order in lo, sin(hi) to first order in hi.
    let tail = (z * z) * horner(&COS_TAIL, z) - hi * lo;
    1.0 + (tail - 0.5 * z)
}

/// sin x within [`EPS_SIN_COS`] (relative); `None` where [`reduce`] refuses x.
pub fn sin_binary32(x: f32) -> Option<f64> {
    Circular::Sin.eval(x)
}

/// cos x within [`EPS_SIN_COS`] (relative); `None` where [`reduce`] refuses x.
pub fn cos_binary32(x: f32) -> Option<f64> {
    Circular::Cos.eval(x)
}

/// tan x within [`EPS_TAN`] (relative); `None` where [`reduce`] refuses x.
pub fn tan_binary32(x: f32) -> Option<f64> {
    Circular::Tan.eval(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_starts_at_the_bit_worth_two_in_the_product() {
        // e = 1: bits 0.. of 2/pi; bit 0 (the integer bit) is 0, then 0xa2f9...
        assert_eq!(two_over_pi_window(1) >> 64, 0xa2f9836e4e441529 >> 1);
        // e = 2: bits 1..64 exactly the first limb.
        assert_eq!(two_over_pi_window(2) >> 64, 0xa2f9836e4e441529);
        assert_eq!(
            WINDOWS[(2 - FIRST_EXPONENT) as usize],
            two_over_pi_window(2)
        );
    }

    #[test]
    fn fixed_point_fractions_split_into_exact_double_doubles() {
        for r in [
            1i128,
            -1,
            3 << 100,
            -(5 << 90) - 12345,
            (1 << 125) - 1,
            -(1 << 125),
        ] {
            let (hi, lo) = fixed_to_double_double(r);
            // Back to integers at 2^-126: hi exactly, lo to within 1.
            let (hi_int, lo_int) = ((hi * exp2i(126)) as i128, (lo * exp2i(126)).round() as i128);
            assert_eq!(hi * exp2i(126), hi_int as f64, "{r}: hi is not on the grid");
            let miss = (r - hi_int - lo_int).unsigned_abs();
            assert!(miss <= 1 + (r.unsigned_abs() >> 105), "{r}: off by {miss}");
            assert!(lo.abs() <= hi.abs() * 2f64.powi(-52), "{r}");
        }
    }

    #[test]
    fn the_unreduced_arguments_stop_below_a_quarter_pi() {
        assert!((QUARTER_PI_F32_BELOW as f64) < core::f64::consts::FRAC_PI_4);
        let next = f32::from_bits(QUARTER_PI_F32_BELOW.to_bits() + 1) as f64;
        assert!(next > core::f64::consts::FRAC_PI_4);
    }

    #[test]
    fn pi_over_two_lo_is_the_rounded_residual() {
        // pi/2 - RN(pi/2) = 6.123233995736766036e-17 (to 19 digits).
        assert_eq!(PI_2_LO, 6.123_233_995_736_766e-17);
        assert!(PI_2_LO.abs() < PI_2_HI * f64::EPSILON);
    }

    #[test]
    fn arguments_next_to_a_multiple_of_half_pi_and_non_finite_ones_are_refused() {
        assert!(sin_binary32(f32::INFINITY).is_none());
        assert!(cos_binary32(f32::NAN).is_none());
        assert!(tan_binary32(f32::NEG_INFINITY).is_none());
        assert_eq!(sin_binary32(0.0), Some(0.0));
        assert_eq!(cos_binary32(-0.0), Some(1.0));
    }

    #[test]
    fn batches_give_the_values_of_single_calls() {
        let xs: Vec<f32> = (0..1000u32)
            .map(|i| f32::from_bits(i.wrapping_mul(0x9e37_79b9)))
            .chain([f32::INFINITY, f32::NAN, -0.0, 1e-40])
            .collect();
        for f in [Circular::Sin, Circular::Cos, Circular::Tan] {
            let mut out = vec![0.0; xs.len()];
            eval_many(f, &xs, &mut out);
            for (&x, &v) in xs.iter().zip(&out) {
                match f.eval(x) {
                    Some(one) => assert_eq!(one.to_bits(), v.to_bits(), "{f:?}({x:e})"),
                    None => assert!(v.is_nan(), "{f:?}({x:e}) refused singly"),
                }
            }
        }
    }
}
