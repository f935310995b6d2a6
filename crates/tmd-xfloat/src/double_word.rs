//! Double-word numbers `hi + lo` (df64 = 2 x f32, dd = 2 x f64).
//!
//! Invariant: for finite values `hi = RN(hi + lo)` (so `|lo| <= ulp(hi)/2` and the representation
//! of a value is unique); for NaN, `±inf` and `±0`, `lo = 0`.
//!
//! All operations are those of Joldes, Muller & Popescu, "Tight and rigorous error bounds for
//! basic building blocks of double-word arithmetic", ACM TOMS 44(2), 2017 ("JMP17"), with the
//! bounds as formally proven (and, for the products, improved) in Muller & Rideau,
//! "Formalization of double-word arithmetic, and comments on ...", ACM TOMS 48(1), 2022 ("MR22").
//! `u = 2^-p` is the unit roundoff of the base format; a relative error `k u^2` is at most `k`
//! units in the last place of a `2p`-bit number. Bounds assume no underflow of any word
//! (`|result| > 2^(MIN_EXP + 2p)`) and no overflow.

use crate::base::BaseFloat;
use crate::eft::{fast_two_sum, two_prod, two_prod_no_fma_call, two_sum};
use crate::multi::MultiFloat;
use crate::quad_word::QuadWord;
use core::cmp::Ordering;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// An unevaluated sum `hi + lo` of two base floats with `hi = RN(hi + lo)`.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct DoubleWord<F> {
    hi: F,
    lo: F,
}

/// Double-float: two `f32`, 48-bit significand, `f32` exponent range (GPU-friendly).
pub type Df64 = DoubleWord<f32>;
/// Double-double: two `f64`, 106-bit significand.
pub type Dd = DoubleWord<f64>;

impl<F: BaseFloat> DoubleWord<F> {
    /// Builds `hi + lo` from two words that already satisfy `hi = RN(hi + lo)` (not checked).
    #[inline(always)]
    pub const fn from_words_unchecked(hi: F, lo: F) -> Self {
        Self { hi, lo }
    }

    /// The exact sum `a + b` of two arbitrary finite base floats, normalised with 2Sum.
    #[inline]
    pub fn from_sum(a: F, b: F) -> Self {
        let (hi, lo) = two_sum(a, b);
        Self::settle(hi, lo, a + b)
    }

    /// The leading word, `RN(value)`.
    #[inline(always)]
    pub fn hi(self) -> F {
        self.hi
    }

    /// The trailing word, `value - hi`.
    #[inline(always)]
    pub fn lo(self) -> F {
        self.lo
    }

    /// Final step shared by all operations: returns the fast-path result `(hi, lo)` when it is
    /// finite and nonzero, and otherwise the IEEE-like result derived from `naive`, the same
    /// operation done on the leading words only (which yields the right NaN, infinity or signed
    /// zero), or an infinity when the fast path overflowed while `naive` did not.
    #[inline(always)]
    fn settle(hi: F, lo: F, naive: F) -> Self {
        if hi.is_finite_nonzero() {
            Self { hi, lo }
        } else if hi == F::ZERO || !naive.is_finite() || naive == F::ZERO {
            Self {
                hi: naive,
                lo: F::ZERO,
            }
        } else {
            Self {
                hi: F::INFINITY.copysign(naive),
                lo: F::ZERO,
            }
        }
    }

    /// AccurateDWPlusDW, JMP17 Algorithm 6: relative error `<= 3u^2 + 13u^3` (JMP17, bound
    /// formally checked in MR22), i.e. at most 3 ulps of `2p` bits. 20 flops.
    #[inline]
    pub fn add_dw(self, y: Self) -> Self {
        let (sh, sl) = two_sum(self.hi, y.hi);
        let (th, tl) = two_sum(self.lo, y.lo);
        let c = sl + th;
        let (vh, vl) = fast_two_sum(sh, c);
        let w = tl + vl;
        let (zh, zl) = fast_two_sum(vh, w);
        Self::settle(zh, zl, sh)
    }

    /// DWPlusFP, JMP17 Algorithm 4: relative error `<= 2u^2`. 10 flops.
    #[inline]
    pub fn add_fp(self, y: F) -> Self {
        let (sh, sl) = two_sum(self.hi, y);
        let v = self.lo + sl;
        let (zh, zl) = fast_two_sum(sh, v);
        Self::settle(zh, zl, sh)
    }

    /// DWTimesDW3, JMP17 Algorithm 12 (with FMA): relative error `<= 4u^2`, the bound whose
    /// proof MR22 corrects and formalises. 9 flops including 3 FMAs; the leading product avoids
    /// a library `fma` call in builds without a hardware FMA (same bits, [`two_prod_no_fma_call`]).
    #[inline]
    pub fn mul_dw(self, y: Self) -> Self {
        let (ch, cl1) = two_prod_no_fma_call(self.hi, y.hi);
        let tl0 = self.lo * y.lo;
        let tl1 = self.hi.mul_add(y.lo, tl0);
        let cl2 = self.lo.mul_add(y.hi, tl1);
        let cl3 = cl1 + cl2;
        let (zh, zl) = fast_two_sum(ch, cl3);
        Self::settle(zh, zl, ch)
    }

    /// DWTimesFP3, JMP17 Algorithm 9 (with FMA): relative error `<= 2u^2`. 6 flops.
    #[inline]
    pub fn mul_fp(self, y: F) -> Self {
        let (ch, cl1) = two_prod(self.hi, y);
        let cl3 = self.lo.mul_add(y, cl1);
        let (zh, zl) = fast_two_sum(ch, cl3);
        Self::settle(zh, zl, ch)
    }

    /// The reciprocal `m ~ 1/y` of lines 1-6 of JMP17 Algorithm 17 (DWDivDW3), for `y` with a
    /// normal leading word whose reciprocal is normal too.
    #[inline(always)]
    fn recip_core(y: Self) -> Self {
        let th = F::ONE / y.hi;
        let rh = (-y.hi).mul_add(th, F::ONE); // exact
        let rl = -(y.lo * th);
        let (eh, el) = fast_two_sum(rh, rl);
        let delta = Self { hi: eh, lo: el }.mul_fp(th);
        delta.add_fp(th)
    }

    /// Power of two `2^s` with `y 2^s` in `[1, 2)`, when `y`'s leading word is so large or small
    /// that its reciprocal would be subnormal or overflow; `None` otherwise.
    #[inline(always)]
    fn division_scale(y: F) -> Option<i32> {
        // Two comparisons decide the usual case; the exponent only where it is needed.
        let a = y.abs();
        if (a >= F::DIVISION_PLAIN_MIN && a < F::DIVISION_PLAIN_MAX) || !y.is_finite_nonzero() {
            None
        } else {
            Some(-y.exponent())
        }
    }

    /// `-e` for a finite non-zero `x` in `[2^e, 2^(e+1))`, 0 otherwise: the power of two that
    /// brings a dividend to `[1, 2)`.
    #[inline(always)]
    fn operand_scale(x: F) -> i32 {
        if x.is_finite() && x != F::ZERO {
            -x.exponent()
        } else {
            0
        }
    }

    /// Long division with two correction terms: `q0 = RN(x_h / y_h)`, the residual
    /// `x - q0 y` as an exact-but-for-`11u^3` double word (the division remainder
    /// `x_h - q0 y_h` by one FMA, `q0 y_l` by 2Prod, error-free sums), `q1` its product by
    /// `RN(1/y_h)`, the residual `x - (q0 + q1) y` by two more FMAs, `q2` its product by
    /// `RN(1/y_h)`, and `q0 + q1 + q2` rounded once into a double word.
    /// Error (docs/error-analysis.md §8):
    /// at most `2^(E-2p) + 91u^3 |x/y|` where `2^E <= |hi| < 2^(E+1)`, i.e. half an ulp of
    /// `2p` bits plus `91u^3` relative (one ulp when the quotient lies just below a power of
    /// two), for quotients and operands away from underflow. It replaces JMP17's DWDivDW3
    /// (bound 9.8u^2; measured up to 3.30 ulps for dd and 4.18 for df64, against 0.308 now).
    /// When the divisor is near the ends of the exponent range, both operands are first brought
    /// to `[1, 2)` by powers of two (each its own, so that neither overflows nor underflows:
    /// `2 / (largest subnormal)` is finite) and the quotient is scaled back.
    /// `x/0 = ±inf`, `0/0 = NaN`, `x/inf = ±0`.
    pub fn div_dw(self, y: Self) -> Self {
        if let Some(s) = Self::division_scale(y.hi) {
            let t = Self::operand_scale(self.hi);
            return self
                .ldexp_words(t)
                .div_dw(y.ldexp_words(s))
                .ldexp_words(s - t);
        }
        // 1 / y_h in parallel with q0: the later quotients are tiny corrections whose
        // residuals need not be exact (docs/error-analysis.md §8).
        let q0 = self.hi / y.hi;
        let inv = F::ONE / y.hi;
        // x - q0 y = e0 + x_l - g_h - g_l: e0 is the exact remainder of a correctly rounded
        // division, g = q0 y_l exactly.
        let e0 = (-q0).mul_add(y.hi, self.hi);
        let (g_h, g_l) = two_prod(q0, y.lo);
        let (a_h, a_l) = two_sum(e0, self.lo);
        let (b_h, b_l) = two_sum(a_h, -g_h);
        let r_l = (a_l + b_l) - g_l;
        let q1 = b_h * inv;
        let e1 = (-q1).mul_add(y.hi, b_h);
        let residual = (-q1).mul_add(y.lo, e1 + r_l);
        let q2 = residual * inv;
        let (s, t) = fast_two_sum(q0, q1);
        let (zh, zl) = fast_two_sum(s, t + q2);
        Self::settle(zh, zl, q0)
    }

    /// `1/y` by lines 1-6 of DWDivDW3 (JMP17 Alg. 17 with `x = 1`, where its last product is
    /// exact): relative error `<= 9.8u^2`.
    pub fn recip_dw(self) -> Self {
        if let Some(s) = Self::division_scale(self.hi) {
            return self.ldexp_words(s).recip_dw().ldexp_words(s);
        }
        let m = Self::recip_core(self);
        Self::settle(m.hi, m.lo, F::ONE / self.hi)
    }

    /// SQRTDWtoDW of Lefèvre, Louvet, Muller, Picot & Rideau, "Accurate calculation of
    /// Euclidean norms using double-word arithmetic", ACM TOMS 49(1), 2023, Algorithm 8:
    /// relative error `<= 25/8 u^2` (3.125 ulps of `2p` bits).
    /// Tiny and huge arguments are scaled by an even power of two first.
    pub fn sqrt_dw(self) -> Self {
        if self.hi.is_nan() || self.hi <= F::ZERO || !self.hi.is_finite() {
            // ±0 -> ±0, +inf -> +inf, negative or NaN -> NaN.
            let r = if self.hi.is_nan() || self.hi < F::ZERO {
                F::NAN
            } else {
                self.hi
            };
            return Self { hi: r, lo: F::ZERO };
        }
        let e = self.hi.exponent();
        let p = F::MANTISSA_DIGITS as i32;
        if e <= F::MIN_EXP + 2 * p || e >= F::MAX_EXP - 2 {
            let half = -(e / 2);
            return self.ldexp_words(2 * half).sqrt_dw().ldexp_words(-half);
        }
        let sh = self.hi.sqrt();
        let rho1 = (-sh).mul_add(sh, self.hi);
        let rho2 = self.lo + rho1;
        let sl = rho2 / (F::TWO * sh);
        let (zh, zl) = fast_two_sum(sh, sl);
        Self { hi: zh, lo: zl }
    }

    /// `self * 2^n` word by word: exact unless a word leaves the exponent range.
    #[inline]
    pub fn ldexp_words(self, n: i32) -> Self {
        let hi = self.hi.scalbn(n);
        if !hi.is_finite() || hi == F::ZERO {
            return Self { hi, lo: F::ZERO };
        }
        // Renormalise: when `hi` became subnormal it may have been rounded.
        let lo = self.lo.scalbn(n);
        let (zh, zl) = fast_two_sum(hi, lo);
        Self { hi: zh, lo: zl }
    }

    /// Largest integer not greater than `self`.
    pub fn floor_dw(self) -> Self {
        let fh = self.hi.floor();
        if fh != self.hi {
            // hi is not an integer, so |lo| <= ulp(hi)/2 cannot move the value across one.
            return Self {
                hi: fh,
                lo: F::ZERO,
            };
        }
        let fl = self.lo.floor();
        let (zh, zl) = fast_two_sum(fh, fl);
        Self::settle(zh, zl, fh)
    }

    /// `-1`, `0` or `1` (with `±0` giving `0` and NaN giving NaN) as a base float.
    pub fn signum(self) -> F {
        if self.hi.is_nan() {
            F::NAN
        } else if self.hi == F::ZERO {
            F::ZERO
        } else {
            F::ONE.copysign(self.hi)
        }
    }
}

impl<F: BaseFloat> MultiFloat for DoubleWord<F> {
    type Base = F;
    const WORDS: usize = 2;
    const PRECISION: u32 = 2 * F::MANTISSA_DIGITS;
    type Wide = QuadWord<F>;

    #[inline]
    fn widen(self) -> QuadWord<F> {
        QuadWord::from_words_unchecked([self.hi, self.lo, F::ZERO, F::ZERO])
    }
    #[inline]
    fn narrow(w: QuadWord<F>) -> Self {
        let [w0, w1, w2, w3] = w.words();
        if !w0.is_finite() || w0 == F::ZERO {
            return Self {
                hi: w0,
                lo: F::ZERO,
            };
        }
        // Non-overlapping words: w1 + (w2 + w3) rounds the tail once, then one Fast2Sum.
        let (hi, lo) = fast_two_sum(w0, w1 + (w2 + w3));
        Self::settle(hi, lo, w0)
    }

    #[inline(always)]
    fn from_base(x: F) -> Self {
        Self { hi: x, lo: F::ZERO }
    }
    #[inline(always)]
    fn from_expansion(words: &[F]) -> Self {
        Self {
            hi: words[0],
            lo: words[1],
        }
    }
    #[inline(always)]
    fn from_two(a: F, b: F) -> Self {
        Self::from_sum(a, b)
    }
    fn to_words(self) -> [F; 4] {
        [self.hi, self.lo, F::ZERO, F::ZERO]
    }
    #[inline(always)]
    fn hi(self) -> F {
        self.hi
    }
    fn ldexp(self, n: i32) -> Self {
        self.ldexp_words(n)
    }
    #[inline(always)]
    fn add_base(self, b: F) -> Self {
        self.add_fp(b)
    }
    #[inline(always)]
    fn mul_base(self, b: F) -> Self {
        self.mul_fp(b)
    }
    #[inline(always)]
    fn square(self) -> Self {
        self.mul_dw(self)
    }
    fn sqrt(self) -> Self {
        self.sqrt_dw()
    }
    fn recip(self) -> Self {
        self.recip_dw()
    }
    fn floor(self) -> Self {
        self.floor_dw()
    }
}

impl<F: BaseFloat> Neg for DoubleWord<F> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

macro_rules! dw_binop {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $op:ident) => {
        impl<F: BaseFloat> $trait for DoubleWord<F> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, y: Self) -> Self {
                self.$op(y)
            }
        }
        impl<F: BaseFloat> $assign for DoubleWord<F> {
            #[inline(always)]
            fn $assign_method(&mut self, y: Self) {
                *self = self.$op(y);
            }
        }
    };
}

impl<F: BaseFloat> DoubleWord<F> {
    #[inline(always)]
    fn sub_dw(self, y: Self) -> Self {
        self.add_dw(-y)
    }
}

dw_binop!(Add, add, AddAssign, add_assign, add_dw);
dw_binop!(Sub, sub, SubAssign, sub_assign, sub_dw);
dw_binop!(Mul, mul, MulAssign, mul_assign, mul_dw);
dw_binop!(Div, div, DivAssign, div_assign, div_dw);

impl<F: BaseFloat> PartialEq for DoubleWord<F> {
    /// Exact comparison: the normalised representation is unique, so words are compared.
    fn eq(&self, other: &Self) -> bool {
        self.hi == other.hi && self.lo == other.lo
    }
}

impl<F: BaseFloat> PartialOrd for DoubleWord<F> {
    /// Exact comparison, lexicographic on `(hi, lo)` (Thall 2007, Fig. 2); `None` with NaN.
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        match self.hi.partial_cmp(&other.hi)? {
            Ordering::Equal => self.lo.partial_cmp(&other.lo),
            ord => Some(ord),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two-comparison test of `division_scale` takes the same decisions as the exponent
    /// test it replaced (`e >= MAX_EXP - 2 || e <= MIN_EXP + 2p` for finite nonzero divisors).
    fn same_decisions<F: BaseFloat>(values: impl Iterator<Item = F>) {
        let p = F::MANTISSA_DIGITS as i32;
        for y in values {
            let e = y.exponent();
            let old =
                y.is_finite() && y != F::ZERO && (e >= F::MAX_EXP - 2 || e <= F::MIN_EXP + 2 * p);
            let new = DoubleWord::<F>::division_scale(y);
            assert_eq!(new, old.then_some(-e), "{y:?}");
        }
    }

    #[test]
    fn division_scale_decides_as_the_exponent_test() {
        let f64s = (0..2048u64)
            .flat_map(|b| [b << 52, (b << 52) | 1, (b << 52) | ((1 << 52) - 1)])
            .flat_map(|bits| [f64::from_bits(bits), -f64::from_bits(bits)]);
        same_decisions(f64s);
        let f32s = (0..256u32)
            .flat_map(|b| [b << 23, (b << 23) | 1, (b << 23) | ((1 << 23) - 1)])
            .flat_map(|bits| [f32::from_bits(bits), -f32::from_bits(bits)]);
        same_decisions(f32s);
    }
}
