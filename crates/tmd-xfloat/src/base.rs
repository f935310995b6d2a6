//! The [`BaseFloat`] trait: what the multi-word types need from their component format.
//!
//! Only operations that exist with identical, correctly rounded semantics in IEEE 754 binary32 /
//! binary64 arithmetic and in OpenCL C / CUDA are used: `+ - * /`, `sqrt`, `fma` (always explicit),
//! `floor`, `scalbn` and comparisons. Functions from `libm` that are *not* correctly rounded (`exp`,
//! `log`, ...) are used only for starting values of Newton iterations whose result does not
//! depend on the last bits of the start value beyond the stated accuracy. The start value of
//! `atan` is the crate's own [`textbook_atan`], written with these operations only, so that the
//! GPU kernels (crates/tmd-kernels/kernels/multi_word_trig.cl) reproduce it bit for bit.

use crate::consts::{ConstTable, TABLE_F32, TABLE_F64};
use core::fmt::{Debug, Display, LowerExp};
use core::ops::{Add, Div, Mul, Neg, Sub};

/// An IEEE 754 binary floating-point format used as the component ("word") of multi-word numbers.
pub trait BaseFloat:
    Copy
    + Debug
    + Display
    + LowerExp
    + Default
    + PartialEq
    + PartialOrd
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + crate::math::DoubleWordFunctions
{
    /// Precision `p` in bits (24 or 53).
    const MANTISSA_DIGITS: u32;
    /// Exponent `e` of the largest finite number `(2 - 2^(1-p)) 2^e`.
    const MAX_EXP: i32;
    /// Exponent of the smallest positive normal number `2^MIN_EXP`.
    const MIN_EXP: i32;
    /// Number of words stored per constant (see [`BaseFloat::const_words`]).
    const TABLE_WORDS: usize;
    /// `0`
    const ZERO: Self;
    /// `1`
    const ONE: Self;
    /// `2`
    const TWO: Self;
    /// `1/2`
    const HALF: Self;
    /// `+inf`
    const INFINITY: Self;
    /// A quiet NaN.
    const NAN: Self;
    /// Largest finite value.
    const MAX: Self;
    /// Veltkamp splitting constant `2^ceil(p/2) + 1`.
    const SPLITTER: Self;
    /// Dekker's product (`eft::two_prod` without a hardware FMA) is used for operands below
    /// this magnitude, `2^(MAX_EXP - ceil(p/2) - 2)`, where the split cannot overflow ...
    const DEKKER_OPERAND_MAX: Self;
    /// ... and products in `[DEKKER_PRODUCT_MIN, DEKKER_PRODUCT_MAX)`: from
    /// `2^(MIN_EXP + p + 1)` the exponents satisfy `e_a + e_b >= e_min + p - 1`, so the error
    /// term and the partial products are exact (Handbook of Floating-Point Arithmetic, 2nd
    /// ed., §4.4.2); below `2^(MAX_EXP - 2)` the partial products cannot overflow.
    const DEKKER_PRODUCT_MIN: Self;
    /// See [`DEKKER_PRODUCT_MIN`](Self::DEKKER_PRODUCT_MIN).
    const DEKKER_PRODUCT_MAX: Self;
    /// Divisors in `[DIVISION_PLAIN_MIN, DIVISION_PLAIN_MAX)` in magnitude,
    /// `[2^(MIN_EXP + 2p + 1), 2^(MAX_EXP - 2))`, need no rescaling before a double-word
    /// division or reciprocal (their reciprocals and remainders stay normal).
    const DIVISION_PLAIN_MIN: Self;
    /// See [`DIVISION_PLAIN_MIN`](Self::DIVISION_PLAIN_MIN).
    const DIVISION_PLAIN_MAX: Self;

    /// Correctly rounded `self * a + b` (a single rounding).
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Correctly rounded square root.
    fn sqrt(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Largest integer not greater than `self`.
    fn floor(self) -> Self;
    /// Nearest integer, ties to even.
    fn round_ties_even(self) -> Self;
    /// `self * 2^n`, correctly rounded (overflow to infinity, gradual underflow).
    fn scalbn(self, n: i32) -> Self;
    /// `true` for NaN.
    fn is_nan(self) -> bool;
    /// `true` for `±inf`.
    fn is_infinite(self) -> bool;
    /// `true` for anything but NaN and `±inf`.
    fn is_finite(self) -> bool;
    /// `true` for finite nonzero numbers (subnormals included): one integer comparison, the
    /// fast-path test of every double-word operation.
    fn is_finite_nonzero(self) -> bool;
    /// `true` when the sign bit is set (also for `-0` and negative NaN).
    fn is_sign_negative(self) -> bool;
    /// Magnitude of `self` with the sign of `sign`.
    fn copysign(self, sign: Self) -> Self;
    /// `floor(log2(|self|))` for finite nonzero `self` (also subnormal); 0 otherwise.
    fn exponent(self) -> i32;
    /// Exact decomposition `|self| = m 2^e` with an integer `m < 2^p`; `(sign, m, e)`.
    fn decompose(self) -> (bool, u64, i32);
    /// Round-to-nearest conversion from `f64`.
    fn from_f64(x: f64) -> Self;
    /// Exact conversion to `f64`.
    fn to_f64(self) -> f64;
    /// Exact conversion of an integer of magnitude below `2^p`, rounded otherwise.
    fn from_i64(x: i64) -> Self;
    /// Conversion to `i64`, truncating, saturating (like `as`).
    fn to_i64(self) -> i64;
    /// Low-accuracy natural logarithm (start value only).
    fn approx_ln(self) -> Self;
    /// `ln(1 + x)` within about one ulp, the start value of `log` ([`textbook_ln_1p`]; kernels
    /// reproduce it bit for bit).
    fn approx_ln_1p(self) -> Self;
    /// Low-accuracy arctangent (start value only).
    fn approx_atan(self) -> Self;
    /// The constant table, structured.
    fn const_words(c: Constant) -> &'static [Self];
}

/// Names of the constants available through [`BaseFloat::const_words`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constant {
    /// ln 2
    Ln2,
    /// pi
    Pi,
    /// pi / 2
    Pi2,
    /// pi / 4
    Pi4,
    /// ln 10
    Ln10,
    /// `1 / k!`
    InvFactorial(usize),
}

fn pick<F, const N: usize>(t: &'static ConstTable<F, N>, c: Constant) -> &'static [F] {
    match c {
        Constant::Ln2 => &t.ln2,
        Constant::Pi => &t.pi,
        Constant::Pi2 => &t.pi_2,
        Constant::Pi4 => &t.pi_4,
        Constant::Ln10 => &t.ln10,
        Constant::InvFactorial(k) => &t.inv_fact[k],
    }
}

/// `2^n` for a normal exponent `n`, in constant contexts.
pub(crate) const fn pow2_f64(n: i32) -> f64 {
    f64::from_bits(((1023 + n) as u64) << 52)
}

/// `2^n` for a normal exponent `n`, in constant contexts.
const fn pow2_f32(n: i32) -> f32 {
    f32::from_bits(((127 + n) as u32) << 23)
}

macro_rules! impl_base_float {
    ($t:ident, $p:expr, $emax:expr, $emin:expr, $table:ident, $words:expr,
     $fma:path, $fabs:path, $sqrt:path, $floor:path, $rint:path, $scalbn:path, $log:path, $log1p:path,
     $atan:path, $pow2:ident) => {
        impl BaseFloat for $t {
            const MANTISSA_DIGITS: u32 = $p;
            const MAX_EXP: i32 = $emax;
            const MIN_EXP: i32 = $emin;
            const TABLE_WORDS: usize = $words;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            const HALF: Self = 0.5;
            const INFINITY: Self = $t::INFINITY;
            const NAN: Self = $t::NAN;
            const MAX: Self = $t::MAX;
            const SPLITTER: Self = ((1u64 << (($p + 1) / 2)) + 1) as $t;
            const DEKKER_OPERAND_MAX: Self = $pow2($emax - ($p + 1) / 2 - 2);
            const DEKKER_PRODUCT_MIN: Self = $pow2($emin + $p + 1);
            const DEKKER_PRODUCT_MAX: Self = $pow2($emax - 2);
            const DIVISION_PLAIN_MIN: Self = $pow2($emin + 2 * $p + 1);
            const DIVISION_PLAIN_MAX: Self = $pow2($emax - 2);

            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                #[cfg(feature = "std")]
                {
                    // std's mul_add is the correctly rounded IEEE fusedMultiplyAdd (hardware FMA
                    // where available), bit-identical to libm's software version.
                    $t::mul_add(self, a, b)
                }
                #[cfg(not(feature = "std"))]
                {
                    $fma(self, a, b)
                }
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                $sqrt(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                $fabs(self)
            }
            #[inline(always)]
            fn floor(self) -> Self {
                $floor(self)
            }
            #[inline(always)]
            fn round_ties_even(self) -> Self {
                $rint(self)
            }
            #[inline(always)]
            fn scalbn(self, n: i32) -> Self {
                $scalbn(self, n)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                self != self
            }
            #[inline(always)]
            fn is_infinite(self) -> bool {
                self.abs() == $t::INFINITY
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                self.abs() < $t::INFINITY
            }
            #[inline(always)]
            fn is_finite_nonzero(self) -> bool {
                // |self|'s encoding minus one, wrapping for zero: below inf's encoding minus
                // one exactly for the finite nonzero numbers.
                let magnitude = self.to_bits() << 1 >> 1;
                magnitude.wrapping_sub(1) < $t::INFINITY.to_bits() - 1
            }
            #[inline(always)]
            fn is_sign_negative(self) -> bool {
                $t::is_sign_negative(self)
            }
            #[inline(always)]
            fn copysign(self, sign: Self) -> Self {
                if sign.is_sign_negative() {
                    -self.abs()
                } else {
                    self.abs()
                }
            }
            fn exponent(self) -> i32 {
                let (_, m, e) = self.decompose();
                if m == 0 || !self.is_finite() {
                    return 0;
                }
                e + 63 - m.leading_zeros() as i32
            }
            fn decompose(self) -> (bool, u64, i32) {
                const FRAC: u32 = $p - 1;
                let bits = self.to_bits() as u64;
                let total = 8 * core::mem::size_of::<$t>() as u32;
                let sign = (bits >> (total - 1)) & 1 == 1;
                let biased = ((bits >> FRAC) & ((1u64 << (total - 1 - FRAC)) - 1)) as i32;
                let frac = bits & ((1u64 << FRAC) - 1);
                let bias = $emax - 1;
                if biased == 0 {
                    (sign, frac, 1 - bias - FRAC as i32)
                } else {
                    (sign, frac | (1u64 << FRAC), biased - bias - FRAC as i32)
                }
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_i64(x: i64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn approx_ln(self) -> Self {
                $log(self)
            }
            fn approx_ln_1p(self) -> Self {
                $log1p(self)
            }
            fn approx_atan(self) -> Self {
                $atan(self)
            }
            fn const_words(c: Constant) -> &'static [Self] {
                pick(&$table, c)
            }
        }
    };
}

impl_base_float!(
    f64,
    53,
    1024,
    -1022,
    TABLE_F64,
    6,
    libm::fma,
    libm::fabs,
    libm::sqrt,
    libm::floor,
    libm::rint,
    libm::scalbn,
    libm::log,
    approx_ln_1p_f64,
    approx_atan_f64,
    pow2_f64
);
impl_base_float!(
    f32,
    24,
    128,
    -126,
    TABLE_F32,
    5,
    libm::fmaf,
    libm::fabsf,
    libm::sqrtf,
    libm::floorf,
    libm::rintf,
    libm::scalbnf,
    libm::logf,
    approx_ln_1p_f32,
    approx_atan_f32,
    pow2_f32
);

/// `atan(k/8)` for `k = 0..=8` as two binary64 words (the value rounded to nearest, then the
/// rest rounded to nearest), the breakpoints of [`textbook_atan`]. Computed with mpmath at 400
/// bits; the GPU kernels receive the same words from the host (tmd_kernels::source).
#[allow(clippy::approx_constant)] // pi/4 and pi/2 as table words
pub const ATAN_EIGHTHS_F64: [[f64; 2]; 9] = [
    [0.0, 0.0],
    [0.12435499454676144, -3.1253241424539383e-18],
    [0.24497866312686414, 1.0698755618734451e-17],
    [0.35877067027057225, -2.4623815582638635e-17],
    [0.4636476090008061, 2.2698777452961687e-17],
    [0.5585993153435624, -5.4556305485916264e-18],
    [0.6435011087932844, 1.5834785051444286e-17],
    [0.7188299996216245, -2.1478388444456983e-17],
    [0.7853981633974483, 3.061616997868383e-17],
];
/// [`ATAN_EIGHTHS_F64`] in binary32 words.
#[allow(clippy::approx_constant)] // pi/4 and pi/2 as table words
pub const ATAN_EIGHTHS_F32: [[f32; 2]; 9] = [
    [0.0, 0.0],
    [1.24354996e-01, -1.2403822e-09],
    [2.4497867e-01, -3.1786778e-09],
    [3.5877067e-01, 1.7639499e-09],
    [4.636476e-01, 5.0121587e-09],
    [5.585993e-01, 2.2111598e-08],
    [6.435011e-01, 5.8689373e-09],
    [7.1883e-01, 1.01883355e-08],
    [7.853982e-01, -2.1855694e-08],
];
/// The Taylor coefficients `(-1)^j / (2j + 1)`, `j = 1..=8`, of `atan t` on `|t| <= 1/8`
/// (binary64): the first omitted term `t^19 / 19` is below `2^-58 |t|`.
pub const ATAN_ODD_F64: [f64; 8] = [
    -1.0 / 3.0,
    1.0 / 5.0,
    -1.0 / 7.0,
    1.0 / 9.0,
    -1.0 / 11.0,
    1.0 / 13.0,
    -1.0 / 15.0,
    1.0 / 17.0,
];
/// The coefficients for binary32, `j = 1..=4`: the first omitted term `t^11 / 11` is below
/// `2^-33 |t|`.
pub const ATAN_ODD_F32: [f32; 4] = [-1.0 / 3.0, 1.0 / 5.0, -1.0 / 7.0, 1.0 / 9.0];

/// `pi/2 - atan(k/8)` (`= atan(8/k)`, `pi/2` for `k = 0`) as two binary64 words, the
/// breakpoints of [`textbook_atan`] for arguments above 1 (mpmath, 400 bits).
#[allow(clippy::approx_constant)] // pi/4 and pi/2 as table words
pub const ATAN_COMPLEMENTS_F64: [[f64; 2]; 9] = [
    [1.5707963267948966, 6.123233995736766e-17],
    [1.446441332248135, 9.211323971545052e-17],
    [1.3258176636680326, -8.824429373951136e-17],
    [1.2120256565243244, 3.034500430874847e-17],
    [1.1071487177940904, 9.40447137356638e-17],
    [1.0121970114513341, 6.668797050595929e-17],
    [0.9272952180016122, 4.5397554905923374e-17],
    [0.8519663271732721, -2.831157406069101e-17],
    [0.7853981633974483, 3.061616997868383e-17],
];
/// [`ATAN_COMPLEMENTS_F64`] in binary32 words.
#[allow(clippy::approx_constant)] // pi/4 and pi/2 as table words
pub const ATAN_COMPLEMENTS_F32: [[f32; 2]; 9] = [
    [1.5707964e+00, -4.371139e-08],
    [1.4464413e+00, 3.948538e-08],
    [1.3258177e+00, -4.053271e-08],
    [1.2120256e+00, 1.4129305e-08],
    [1.1071488e+00, -4.872355e-08],
    [1.012197e+00, -6.2183436e-09],
    [9.272952e-01, 1.0024317e-08],
    [8.519663e-01, 5.7049188e-09],
    [7.853982e-01, -2.1855694e-08],
];

/// The tables of [`textbook_atan`] for one base format.
#[derive(Clone, Copy, Debug)]
pub struct AtanTables<F: 'static> {
    /// `atan(k/8)`, two words each ([`ATAN_EIGHTHS_F64`]).
    pub eighths: &'static [[F; 2]; 9],
    /// `pi/2 - atan(k/8)`, two words each ([`ATAN_COMPLEMENTS_F64`]).
    pub complements: &'static [[F; 2]; 9],
    /// Taylor coefficients from `t^3` on ([`ATAN_ODD_F64`]).
    pub odd: &'static [F],
}

/// [`AtanTables`] of binary64.
pub const ATAN_TABLES_F64: AtanTables<f64> = AtanTables {
    eighths: &ATAN_EIGHTHS_F64,
    complements: &ATAN_COMPLEMENTS_F64,
    odd: &ATAN_ODD_F64,
};
/// [`AtanTables`] of binary32.
pub const ATAN_TABLES_F32: AtanTables<f32> = AtanTables {
    eighths: &ATAN_EIGHTHS_F32,
    complements: &ATAN_COMPLEMENTS_F32,
    odd: &ATAN_ODD_F32,
};

/// Arctangent in the base format, within about one ulp (0.99 ulp seen in binary32, 0.89 in
/// binary64, by the tests below): the start value of the multi-word `atan` (math::trig::atan_unit), written with
/// `+ - * /`, `fma` and `rint` only, so that a kernel computes the same bits
/// (crates/tmd-kernels/kernels/multi_word_trig.cl, `approx_atan`).
///
/// Method (textbook argument reduction, e.g. Muller, *Elementary Functions*, 3rd ed., §5 and
/// §11): for `a = |x|` (or `1/a` when `a > 1`) the nearest breakpoint `c = k/8`
/// (`k = rint(8a)`, but `k = 0` below `1/8`, so that `atan c` dominates and the rounding errors
/// of `t` stay small), `atan a = atan c + atan t` with `t = (a - c) / (1 + a c)`, `|t| <= 1/8`
/// (`a - c` is exact by Sterbenz's lemma, `1 + a c` is one fused multiply-add). For `a > 1`,
/// `atan a = (pi/2 - atan c) - atan t` with `t = (1 - a c) / (a + c)`, computed from `a` without
/// rounding `1/a` first. `atan t = t + t z p(z)`, `z = t^2`, with the Taylor polynomial `p` in
/// Horner form; the breakpoint values are added as two words, the trailing word first.
/// NaN gives NaN, `±0` gives `±0`, `±inf` gives `±pi/2` (rounded).
pub fn textbook_atan<F: BaseFloat>(x: F, tables: &AtanTables<F>) -> F {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let inverted = a > F::ONE;
    let eight = F::from_i64(8);
    let y = if inverted { eight / a } else { a * eight };
    let k = if y < F::ONE {
        F::ZERO
    } else {
        y.round_ties_even()
    };
    let c = k * F::from_f64(0.125);
    let t = if k == F::ZERO {
        if inverted {
            F::ONE / a
        } else {
            a
        }
    } else if inverted {
        (-a).mul_add(c, F::ONE) / (a + c)
    } else {
        (a - c) / a.mul_add(c, F::ONE)
    };
    let z = t * t;
    let odd = tables.odd;
    let mut p = odd[odd.len() - 1];
    for &coefficient in odd[..odd.len() - 1].iter().rev() {
        p = p * z + coefficient;
    }
    let atan_t = t + t * (z * p);
    let index = k.to_i64() as usize;
    let r = if inverted {
        let [d_hi, d_lo] = tables.complements[index];
        d_hi + (d_lo - atan_t)
    } else {
        let [c_hi, c_lo] = tables.eighths[index];
        c_hi + (atan_t + c_lo)
    };
    if x.is_sign_negative() {
        -r
    } else {
        r
    }
}

fn approx_atan_f64(x: f64) -> f64 {
    textbook_atan(x, &ATAN_TABLES_F64)
}

fn approx_atan_f32(x: f32) -> f32 {
    textbook_atan(x, &ATAN_TABLES_F32)
}

/// Where [`textbook_ln_1p`] takes `f = x` itself (no rounding of `1 + x`): `x` in
/// `[LN_1P_DIRECT.0, LN_1P_DIRECT.1]` (rounded to the base format), where `1 + x` lies in about
/// `[sqrt2/2, sqrt2]`. The kernels receive the same bounds from the host.
pub const LN_1P_DIRECT: (f64, f64) = (-0.29, 0.41);

/// The Taylor coefficients `2/(2j + 1)`, `j = 1..=10`, of `2 atanh(s) = 2s + s R(s^2)`,
/// `R(z) = z (2/3 + 2/5 z + ...)`, for [`textbook_ln_1p`] in binary64: with
/// `|s| <= (sqrt2 - 1)/(sqrt2 + 1) + 1% < 0.174`, the first omitted term is below `2^-55`
/// of the result.
pub const LN_1P_ODD_F64: [f64; 10] = [
    2.0 / 3.0,
    2.0 / 5.0,
    2.0 / 7.0,
    2.0 / 9.0,
    2.0 / 11.0,
    2.0 / 13.0,
    2.0 / 15.0,
    2.0 / 17.0,
    2.0 / 19.0,
    2.0 / 21.0,
];
/// The coefficients for binary32, `j = 1..=5`: the first omitted term is below `2^-28` of the
/// result.
pub const LN_1P_ODD_F32: [f32; 5] = [2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0, 2.0 / 11.0];

/// `ln(1 + f)` for `1 + f` in about `[sqrt2/2, sqrt2]`: `s = f / (2 + f)`, `z = s^2`,
/// `ln(1 + f) = 2 atanh s = 2s + s R(z)`, and as `2s = f - s f` and
/// `s f = f^2/2 - s f^2/2`, `ln(1 + f) = f - (f^2/2 - s (f^2/2 + R))`: the exact `f` dominates,
/// the rounding errors of `s` only touch terms of relative size `f/4`. `tail` (small terms of
/// the caller) is added to the smallest part first, so that it costs no extra rounding at the
/// result's magnitude.
fn ln_1p_core<F: BaseFloat>(f: F, coeffs: &[F], tail: F) -> F {
    let s = f / (F::TWO + f);
    let z = s * s;
    let n = coeffs.len();
    let mut p = coeffs[n - 1];
    for j in (0..n - 1).rev() {
        p = p * z + coeffs[j];
    }
    let r = z * p;
    let hfsq = (f * f) * F::HALF;
    f - (hfsq - (s * (hfsq + r) + tail))
}

/// `ln(1 + x)` in the base format, within about one ulp (0.80 ulp seen in binary32, and within
/// one ulp of libm's log1p in binary64, by the tests below): the start value
/// of the multi-word `log` and `log1p` (math::exp_log::log_newton), written with `+ - * /`,
/// `fma` and `scalbn` only, so that a kernel computes the same bits
/// (crates/tmd-kernels/kernels/multi_word_base.cl, `approx_ln_1p`).
///
/// Method (the textbook one, e.g. Muller, *Elementary Functions*, 3rd ed., or Tang's and
/// Sun's papers on log): for `x` in [`LN_1P_DIRECT`], `f = x` and `k = 0`. Otherwise
/// `u = RN(1 + x) = 2^k m` with `m` in `(sqrt2/2, sqrt2]`, `f = m - 1` (exact, Sterbenz), and the
/// rounding error of `u`, `c = (1 + x) - u`, is recovered exactly (`x - (u - 1)` for `x < 1`,
/// where `u <= 2` makes `u - 1` exact; `1 - (u - x)` for `x >= 1`, where `u - x` is exact) and
/// enters as `c / u`. Then `ln(1 + x) = k ln2_0 + (ln(1 + f) + (c/u + k ln2_1))` with the
/// constant table's first two words of `ln 2`, the small terms added in `ln_1p_core`'s
/// smallest part and `k ln2_0` by one fused multiply-add. NaN gives NaN, `-1` gives `-inf`, below `-1` NaN, `+inf` gives `+inf`,
/// `±0` gives `±0`.
pub fn textbook_ln_1p<F: BaseFloat>(x: F, coeffs: &[F]) -> F {
    if x.is_nan() {
        return x;
    }
    if x <= -F::ONE {
        return if x == -F::ONE { -F::INFINITY } else { F::NAN };
    }
    if !x.is_finite() {
        return x;
    }
    if x >= F::from_f64(LN_1P_DIRECT.0) && x <= F::from_f64(LN_1P_DIRECT.1) {
        return ln_1p_core(x, coeffs, F::ZERO);
    }
    let u = F::ONE + x;
    let mut k = u.exponent();
    let mut m = u.scalbn(-k);
    if m > F::from_f64(core::f64::consts::SQRT_2) {
        m = m.scalbn(-1);
        k += 1;
    }
    let f = m - F::ONE;
    let c = if x < F::ONE {
        x - (u - F::ONE)
    } else {
        F::ONE - (u - x)
    };
    let c = c / u;
    let kf = F::from_i64(k as i64);
    let ln2 = F::const_words(Constant::Ln2);
    kf.mul_add(ln2[0], ln_1p_core(f, coeffs, c + kf * ln2[1]))
}

fn approx_ln_1p_f64(x: f64) -> f64 {
    textbook_ln_1p(x, &LN_1P_ODD_F64)
}

fn approx_ln_1p_f32(x: f32) -> f32 {
    textbook_ln_1p(x, &LN_1P_ODD_F32)
}

#[cfg(test)]
mod ln_1p_tests {
    use super::*;

    /// Distance in ulps of the format between `got` and `want` (a wider reference).
    fn ulps(got: f64, want: f64, digits: i32) -> f64 {
        let e = libm::ilogb(want);
        (got - want).abs() / libm::ldexp(1.0, e - digits + 1)
    }

    #[test]
    fn textbook_ln_1p_is_within_about_one_ulp() {
        // Reference: f64 log1p for binary32 (far more accurate); for binary64 the difference
        // to libm's log1p (itself within 1 ulp) must stay within 2 ulps.
        let mut worst32: f64 = 0.0;
        let mut worst64: f64 = 0.0;
        let mut state = 0x1234_5678_9abc_def0u64;
        for i in 0..400_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            let x = match i % 4 {
                0 => unit * 0.9 - 0.35,
                1 => libm::ldexp(unit + 1.0, (state % 60) as i32 - 59),
                2 => -unit * 0.999,
                _ => libm::ldexp(unit + 1.0, (state % 120) as i32 - 2),
            };
            let x32 = x as f32;
            let got32 = x32.approx_ln_1p();
            worst32 = worst32.max(ulps(got32 as f64, libm::log1p(x32 as f64), 24));
            let got64 = x.approx_ln_1p();
            worst64 = worst64.max(ulps(got64, libm::log1p(x), 53));
        }
        assert!(worst32 <= 1.0, "binary32: {worst32} ulps");
        assert!(worst64 <= 1.5, "binary64: {worst64} ulps (against libm)");
        println!("textbook_ln_1p: {worst32:.3} ulps (binary32), {worst64:.3} (binary64 vs libm)");
    }

    #[test]
    fn textbook_ln_1p_special_values() {
        assert!(f64::NAN.approx_ln_1p().is_nan());
        assert_eq!(f64::INFINITY.approx_ln_1p(), f64::INFINITY);
        assert_eq!((-1.0f64).approx_ln_1p(), f64::NEG_INFINITY);
        assert!((-2.0f32).approx_ln_1p().is_nan());
        assert_eq!((-0.0f64).approx_ln_1p().to_bits(), (-0.0f64).to_bits());
        assert_eq!(0.0f32.approx_ln_1p().to_bits(), 0.0f32.to_bits());
        assert_eq!(f64::MAX.approx_ln_1p(), libm::log(f64::MAX));
        assert_eq!(1e-300f64.approx_ln_1p(), 1e-300);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decompose_is_exact() {
        for x in [1.0f64, 0.75, -3.5e-310, 1.7e308, 5e-324] {
            let (s, m, e) = x.decompose();
            let back = (m as f64) * libm::pow(2.0, e as f64);
            assert_eq!(if s { -back } else { back }, x);
        }
        assert_eq!(1.0f32.exponent(), 0);
        assert_eq!(0.75f64.exponent(), -1);
        assert_eq!(f64::from_bits(1).exponent(), -1074);
        assert_eq!(f32::from_bits(1).exponent(), -149);
    }

    #[test]
    fn splitter_values() {
        assert_eq!(f64::SPLITTER, 134_217_729.0);
        assert_eq!(f32::SPLITTER, 4097.0);
    }

    #[test]
    fn fma_is_fused() {
        let a = 1.0 + f64::EPSILON;
        assert_eq!(
            a.mul_add(a, -1.0),
            2.0 * f64::EPSILON + f64::EPSILON * f64::EPSILON
        );
        let b = 1.0 + f32::EPSILON;
        assert_eq!(
            b.mul_add(b, -1.0),
            2.0 * f32::EPSILON + f32::EPSILON * f32::EPSILON
        );
    }

    /// Error of [`textbook_atan`] in ulps of the base format against the double-word atan
    /// (about 100 bits), over a stride through all positive bit patterns and near the
    /// breakpoints; the largest must stay near one ulp (a Newton start value).
    fn atan_max_ulps<F: BaseFloat>(xs: impl Iterator<Item = F>) -> f64
    where
        crate::DoubleWord<F>: crate::MultiFloat<Base = F>,
    {
        use crate::MultiFloat;
        let mut worst = 0.0f64;
        for x in xs {
            let r = x.approx_atan();
            let reference = crate::math::atan(crate::DoubleWord::<F>::from_base(x));
            let want = reference.hi().to_f64() + reference.lo().to_f64();
            let e = reference.hi().exponent().max(F::MIN_EXP);
            let ulp = F::ONE.scalbn(e + 1 - F::MANTISSA_DIGITS as i32);
            let err = ((r.to_f64() - reference.hi().to_f64()) - reference.lo().to_f64()).abs()
                / ulp.to_f64();
            assert!(want.is_finite() && err.is_finite(), "{x:e}");
            worst = worst.max(err);
        }
        worst
    }

    #[test]
    fn textbook_atan_is_within_about_one_ulp() {
        let f32s = (0x0000_0001u32..0x7f80_0000)
            .step_by(997)
            .map(f32::from_bits);
        let near = (0..=64).flat_map(|k| {
            let c = k as f32 / 64.0;
            (0..16).map(move |d| f32::from_bits(c.to_bits().wrapping_add(d).wrapping_sub(8)))
        });
        let worst32 = atan_max_ulps(f32s.chain(near).filter(|x| x.is_finite() && *x > 0.0));
        let f64s = (0..1_000_000u64)
            .map(|i| f64::from_bits(i.wrapping_mul(0x7fef_ffff_ffff_ffff / 1_000_000)));
        let near = (0..=64).flat_map(|k| {
            let c = k as f64 / 64.0;
            (0..16).map(move |d| f64::from_bits(c.to_bits().wrapping_add(d).wrapping_sub(8)))
        });
        let worst64 = atan_max_ulps(f64s.chain(near).filter(|x| x.is_finite() && *x > 0.0));
        println!("textbook_atan: max error f32 {worst32:.3} ulp, f64 {worst64:.3} ulp");
        assert!(worst32 < 1.0 && worst64 < 1.0, "{worst32} {worst64}");
        for (x, want) in [
            (0.0f64, 0.0f64),
            (-0.0, -0.0),
            (1.0, ATAN_EIGHTHS_F64[8][0]),
        ] {
            assert_eq!(x.approx_atan().to_bits(), want.to_bits());
        }
        assert_eq!(f64::INFINITY.approx_atan(), TABLE_F64.pi_2[0]);
        assert_eq!(f32::NEG_INFINITY.approx_atan(), -TABLE_F32.pi_2[0]);
        assert!(f32::NAN.approx_atan().is_nan());
    }

    /// The one-comparison test agrees with `is_finite() && != 0` on every class of both formats.
    #[test]
    fn is_finite_nonzero_is_the_two_tests() {
        fn check<F: BaseFloat>(values: &[F]) {
            for &x in values {
                assert_eq!(
                    x.is_finite_nonzero(),
                    x.is_finite() && x != F::ZERO,
                    "{x:?}"
                );
            }
        }
        let d = [
            0.0,
            -0.0,
            f64::from_bits(1),
            -f64::from_bits(1),
            f64::MIN_POSITIVE,
            1.0,
            -3.5,
            f64::MAX,
            -f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        check(&d);
        let f: Vec<f32> = d.iter().map(|&x| x as f32).collect();
        check(&f);
        check(&[f32::from_bits(1), f32::MAX, -f32::MAX, f32::MIN_POSITIVE]);
    }
}
