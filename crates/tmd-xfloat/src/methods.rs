//! Inherent methods of [`DoubleWord`] and [`QuadWord`] forwarding to the generic
//! implementations, so that users need not import [`MultiFloat`](crate::MultiFloat).

use crate::base::BaseFloat;
use crate::math;
use crate::multi::MultiFloat;
use crate::{DoubleWord, QuadWord};

macro_rules! inherent_methods {
    ($ty:ident, exp: $exp:expr, ln: $ln:expr, sin_cos: $sin_cos:expr, sin: $sin:expr, cos: $cos:expr) => {
        impl<F: BaseFloat> $ty<F> {
            /// `e^x`. Accuracy: `Dd` 0.53 ulp (table-driven, [`math::dd_exp`]); the other types
            /// the crate documentation table (tested against MPFR).
            pub fn exp(self) -> Self {
                $exp(self)
            }
            /// `e^x - 1`. Accuracy: 1 ulp (double words: the reduction, the last Taylor steps and
            /// the reconstruction are done in quad words and rounded once), 2 ulps (quad words).
            pub fn expm1(self) -> Self {
                math::expm1(self)
            }
            /// Natural logarithm. Accuracy: `Dd` 0.502 ulp (table-driven, [`math::dd_log`]); the
            /// other types the crate documentation table.
            pub fn ln(self) -> Self {
                $ln(self)
            }
            /// Natural logarithm (alias of [`ln`](Self::ln)).
            pub fn log(self) -> Self {
                $ln(self)
            }
            /// `ln(1 + x)`.
            pub fn ln_1p(self) -> Self {
                math::log1p(self)
            }
            /// Sine (any finite argument). Accuracy: `Dd` 0.52 ulp (table-driven,
            /// [`math::dd_trig`]); the other types the crate documentation table.
            pub fn sin(self) -> Self {
                $sin(self)
            }
            /// Cosine. Accuracy: as [`sin`](Self::sin).
            pub fn cos(self) -> Self {
                $cos(self)
            }
            /// `(sin x, cos x)` with one reduction.
            pub fn sin_cos(self) -> (Self, Self) {
                $sin_cos(self)
            }
            /// Tangent. Accuracy: 1 ulp (double words: reduction, series tail and division in
            /// quad words, rounded once; quad words).
            pub fn tan(self) -> Self {
                math::tan(self)
            }
            /// Arctangent.
            pub fn atan(self) -> Self {
                math::atan(self)
            }
            /// Hyperbolic sine. Accuracy: 1 ulp (double words, evaluated from a quad-word
            /// `expm1` and rounded once), 2 ulps (quad words).
            pub fn sinh(self) -> Self {
                math::sinh(self)
            }
            /// Hyperbolic cosine. Accuracy: 4 ulps (double words), 2 ulps (quad words).
            pub fn cosh(self) -> Self {
                math::cosh(self)
            }
            /// Hyperbolic tangent. Accuracy: 1 ulp (double words, `E / (E + 2)` with
            /// `E = expm1(2|x|)` in quad words, rounded once), 2 ulps (quad words).
            pub fn tanh(self) -> Self {
                math::tanh(self)
            }
            /// Square root (`NaN` for negative arguments, `-0` for `-0`).
            pub fn sqrt(self) -> Self {
                MultiFloat::sqrt(self)
            }
            /// `1 / x`.
            pub fn recip(self) -> Self {
                MultiFloat::recip(self)
            }
            /// `|x|`.
            pub fn abs(self) -> Self {
                MultiFloat::abs(self)
            }
            /// Largest integer `<= x`.
            pub fn floor(self) -> Self {
                MultiFloat::floor(self)
            }
            /// Nearest integer, ties away from zero.
            pub fn round(self) -> Self {
                MultiFloat::round(self)
            }
            /// Integer part.
            pub fn trunc(self) -> Self {
                MultiFloat::trunc(self)
            }
            /// `x * 2^n`.
            pub fn ldexp(self, n: i32) -> Self {
                MultiFloat::ldexp(self, n)
            }
            /// `true` for NaN.
            pub fn is_nan(self) -> bool {
                MultiFloat::is_nan(self)
            }
            /// `true` for `±inf`.
            pub fn is_infinite(self) -> bool {
                MultiFloat::is_infinite(self)
            }
            /// `true` unless NaN or `±inf`.
            pub fn is_finite(self) -> bool {
                MultiFloat::is_finite(self)
            }
            /// `true` for `±0`.
            pub fn is_zero(self) -> bool {
                MultiFloat::is_zero(self)
            }
            /// `true` when the sign bit of the leading word is set.
            pub fn is_sign_negative(self) -> bool {
                MultiFloat::is_sign_negative(self)
            }
            /// A named constant (pi, ln 2, ...), correctly rounded.
            pub fn constant(c: crate::Constant) -> Self {
                MultiFloat::constant(c)
            }
        }
    };
}

// Double words go through `DoubleWordFunctions`, so that `Dd` gets its table-driven versions.
inherent_methods!(
    DoubleWord,
    exp: F::dw_exp,
    ln: F::dw_ln,
    sin_cos: F::dw_sin_cos,
    sin: F::dw_sin,
    cos: F::dw_cos
);
inherent_methods!(
    QuadWord,
    exp: math::exp,
    ln: math::log,
    sin_cos: math::sincos,
    sin: math::sin,
    cos: math::cos
);
