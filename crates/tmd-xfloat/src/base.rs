//! The [`BaseFloat`] trait: what the multi-word types need from their component format.
//!
//! Only operations that exist with identical, correctly rounded semantics in IEEE 754 binary32 /
//! binary64 arithmetic and in OpenCL C / CUDA are used: `+ - * /`, `sqrt`, `fma` (always explicit),
//! `floor`, `scalbn` and comparisons. Functions from `libm` that are *not* correctly rounded (`exp`,
//! `log`, `atan`, ...) are used only for starting values of Newton iterations whose result does not
//! depend on the last bits of the start value beyond the stated accuracy.

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
    /// Low-accuracy `ln(1 + x)` (start value only).
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

macro_rules! impl_base_float {
    ($t:ident, $p:expr, $emax:expr, $emin:expr, $table:ident, $words:expr,
     $fma:path, $fabs:path, $sqrt:path, $floor:path, $rint:path, $scalbn:path, $log:path, $log1p:path,
     $atan:path) => {
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
    libm::log1p,
    libm::atan
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
    libm::log1pf,
    libm::atanf
);

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
}
