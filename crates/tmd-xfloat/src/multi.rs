//! [`MultiFloat`]: the interface shared by [`DoubleWord`](crate::DoubleWord) and
//! [`QuadWord`](crate::QuadWord), over which the elementary functions and conversions are written
//! once.

use crate::base::{BaseFloat, Constant};
use core::fmt::Debug;
use core::ops::{Add, Div, Mul, Neg, Sub};

/// A number represented as an unevaluated sum of `WORDS` base floats, most significant first.
pub trait MultiFloat:
    Copy
    + Debug
    + Default
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The component format.
    type Base: BaseFloat;
    /// Number of words (2 or 4).
    const WORDS: usize;
    /// Nominal precision in bits (`WORDS * p`): 48, 96, 106 or 212. Errors are measured in units
    /// in the last place of a `PRECISION`-bit float.
    const PRECISION: u32;
    /// The quad word over the same base format: `Self` for quad words, [`QuadWord`](crate::QuadWord)
    /// for double words. The elementary functions do their final, error-critical steps in it
    /// and round back with [`narrow`](Self::narrow).
    type Wide: MultiFloat<Base = Self::Base, Wide = Self::Wide>;
    /// The same value in [`Self::Wide`] (exact).
    fn widen(self) -> Self::Wide;
    /// `w` rounded to `Self` (for double words: within about half an ulp of `2p` bits; the
    /// identity for quad words).
    fn narrow(w: Self::Wide) -> Self;

    /// The exact value of one base float.
    fn from_base(x: Self::Base) -> Self;
    /// The first `WORDS` words of a non-overlapping expansion produced by successive
    /// round-to-nearest (as in [`crate::consts`]); exact, no renormalisation is done.
    fn from_expansion(words: &[Self::Base]) -> Self;
    /// The exact sum `a + b` of two base floats (a double word is enough to hold it).
    fn from_two(a: Self::Base, b: Self::Base) -> Self;
    /// The words, most significant first (`WORDS` entries, the rest zero).
    fn to_words(self) -> [Self::Base; 4];
    /// The most significant word: the value rounded to the base format (approximately, for
    /// quad words).
    fn hi(self) -> Self::Base;
    /// `self * 2^n`, word by word (exact unless a word overflows or underflows).
    fn ldexp(self, n: i32) -> Self;
    /// `self + b` for a base float `b`.
    fn add_base(self, b: Self::Base) -> Self;
    /// `self * b` for a base float `b`.
    fn mul_base(self, b: Self::Base) -> Self;
    /// `self * self`.
    fn square(self) -> Self;
    /// Square root, `NaN` for negative arguments.
    fn sqrt(self) -> Self;
    /// `1 / self`.
    fn recip(self) -> Self;
    /// Largest integer not greater than `self`.
    fn floor(self) -> Self;

    /// A named constant, correctly rounded to the representation (nearest expansion).
    fn constant(c: Constant) -> Self {
        Self::from_expansion(Self::Base::const_words(c))
    }
    /// `0`
    fn zero() -> Self {
        Self::from_base(Self::Base::ZERO)
    }
    /// `1`
    fn one() -> Self {
        Self::from_base(Self::Base::ONE)
    }
    /// `true` for NaN.
    fn is_nan(self) -> bool {
        self.hi().is_nan()
    }
    /// `true` for `±inf`.
    fn is_infinite(self) -> bool {
        self.hi().is_infinite()
    }
    /// `true` for numbers other than NaN and `±inf`.
    fn is_finite(self) -> bool {
        self.hi().is_finite()
    }
    /// `true` for `±0`.
    fn is_zero(self) -> bool {
        self.hi() == Self::Base::ZERO
    }
    /// `true` when the sign bit of the leading word is set (`-0` included).
    fn is_sign_negative(self) -> bool {
        self.hi().is_sign_negative()
    }
    /// Absolute value.
    fn abs(self) -> Self {
        if self.is_sign_negative() {
            -self
        } else {
            self
        }
    }
    /// Nearest integer, ties away from zero.
    fn round(self) -> Self {
        let half = Self::from_base(Self::Base::HALF);
        if self.is_sign_negative() {
            -(-self + half).floor()
        } else {
            (self + half).floor()
        }
    }
    /// Integer part (round toward zero).
    fn trunc(self) -> Self {
        if self.is_sign_negative() {
            -(-self).floor()
        } else {
            self.floor()
        }
    }
}
