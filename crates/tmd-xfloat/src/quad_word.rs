//! Quad-word numbers `w0 + w1 + w2 + w3` (qf128 = 4 x f32, qd = 4 x f64).
//!
//! Invariant: for finite nonzero values the words are non-overlapping and decreasing,
//! `|w(i+1)| < ulp(w(i))`, with zeros only at the end (the output of [`renormalize`]); for NaN,
//! `±inf` and `±0` only `w0` may be nonzero.
//!
//! The algorithms follow Hida, Li & Bailey, "Quad-double arithmetic: algorithms,
//! implementation, and application", LBNL-46996, 2000 ("HLB00"): products are accumulated order
//! by order (terms of size `u^k |ab|`), carrying every rounding error exactly to the next order
//! with 2Sum, then renormalised; division is HLB00's long division with five quotient terms;
//! the square root is a Newton iteration on `1/sqrt(a)` followed by Karp's correction (Karp &
//! Markstein, ACM TOMS 23(4), 1997). Addition merges the two expansions by magnitude and
//! renormalises, which is the "IEEE-style" accurate addition of HLB00 (§2.1, error `<= 2ε`)
//! in the formulation of Joldes, Marty, Muller & Popescu, "Arithmetic algorithms for extended
//! precision using floating-point expansions", IEEE TC 65(4), 2016 (Alg. 4 and 6, "JMMP16").
//! Bounds in ulps of a `4p`-bit number are stated on each operation; HLB00 gives them as
//! heuristic estimates, and the crate's tests check them against MPFR.

use crate::base::BaseFloat;
use crate::eft::{fast_two_sum, two_prod, two_sum};
use crate::multi::MultiFloat;
use core::cmp::Ordering;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// An unevaluated sum of four base floats, most significant first.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct QuadWord<F> {
    w: [F; 4],
}

/// Quad-float: four `f32`, 96-bit significand (full precision for `|x| >= 2^-54`).
pub type Qf128 = QuadWord<f32>;
/// Quad-double: four `f64`, 212-bit significand.
pub type Qd = QuadWord<f64>;

/// Renormalisation of `N` words into 4 non-overlapping words (JMMP16 Alg. 6): a bottom-up
/// 2Sum pass (VecSum, exact) followed by a top-down Fast2Sum pass that skips zero error terms
/// (VecSumErrBranch); the words that do not fit in the four outputs are added to the last one.
#[inline]
pub fn renormalize<F: BaseFloat, const N: usize>(x: [F; N]) -> [F; 4] {
    let mut t = x;
    let mut s = t[N - 1];
    for i in (0..N - 1).rev() {
        let (hi, lo) = two_sum(t[i], s);
        s = hi;
        t[i + 1] = lo;
    }
    t[0] = s;
    let mut out = [F::ZERO; 4];
    let mut k = 0;
    let mut acc = t[0];
    for i in 1..N {
        let (r, e) = fast_two_sum(acc, t[i]);
        if e != F::ZERO {
            out[k] = r;
            k += 1;
            acc = e;
            if k == 3 {
                for &rest in &t[i + 1..] {
                    acc = acc + rest;
                }
                out[3] = acc;
                return out;
            }
        } else {
            acc = r;
        }
    }
    out[k] = acc;
    out
}

/// Sums `terms` with a chain of 2Sum; the `N - 1` rounding errors go to `errors` (exact).
#[inline(always)]
fn cascade<F: BaseFloat, const N: usize>(terms: [F; N], errors: &mut [F]) -> F {
    let mut s = terms[0];
    for i in 1..N {
        let (hi, lo) = two_sum(s, terms[i]);
        s = hi;
        errors[i - 1] = lo;
    }
    s
}

impl<F: BaseFloat> QuadWord<F> {
    /// Builds a quad word from four words that already satisfy the invariant (not checked).
    #[inline(always)]
    pub const fn from_words_unchecked(w: [F; 4]) -> Self {
        Self { w }
    }

    /// The exact sum of four arbitrary finite base floats, renormalised.
    pub fn from_words(w: [F; 4]) -> Self {
        Self::settle(renormalize(w), w[0] + w[1] + w[2] + w[3])
    }

    /// The words, most significant first.
    #[inline(always)]
    pub fn words(self) -> [F; 4] {
        self.w
    }

    /// Keeps the fast-path result when it is finite and nonzero, else derives NaN, infinities
    /// and signed zeros from `naive`, the operation done on the leading words only; a finite
    /// `naive` with a non-finite fast path means overflow.
    #[inline(always)]
    fn settle(w: [F; 4], naive: F) -> Self {
        let finite = w[0].is_finite() && w[1].is_finite() && w[2].is_finite() && w[3].is_finite();
        if finite && w[0] != F::ZERO {
            Self { w }
        } else if !naive.is_finite() {
            Self::from_base(naive)
        } else if w[0] == F::ZERO {
            // An exact zero (the words need not be canonical, so `naive` may be nonzero):
            // keep the sign of `naive` only when it is a signed zero itself.
            Self::from_base(if naive == F::ZERO { naive } else { F::ZERO })
        } else {
            Self::from_base(F::INFINITY.copysign(naive))
        }
    }

    /// Accurate addition: merge by decreasing magnitude, then [`renormalize`] (JMMP16 Alg. 4,
    /// HLB00 "IEEE add"). Documented bound: 2 ulps of `4p` bits (HLB00: `|δ| <= 2ε`).
    pub fn add_qw(self, b: Self) -> Self {
        let (a, b_w) = (self.w, b.w);
        let mut merged = [F::ZERO; 8];
        let (mut i, mut j) = (0, 0);
        for slot in merged.iter_mut() {
            let take_a = j >= 4 || (i < 4 && a[i].abs() >= b_w[j].abs());
            if take_a {
                *slot = a[i];
                i += 1;
            } else {
                *slot = b_w[j];
                j += 1;
            }
        }
        Self::settle(renormalize(merged), a[0] + b_w[0])
    }

    /// Product, accumulated by orders `u^0 .. u^4` with exact 2Sum carries (HLB00 §2.3, accurate
    /// variant): all 10 partial products of order `<= 3` are formed exactly with Fast2Mult, the
    /// three of order 4 with FMAs. Documented bound: 2 ulps of `4p` bits.
    pub fn mul_qw(self, b: Self) -> Self {
        let [a0, a1, a2, a3] = self.w;
        let [b0, b1, b2, b3] = b.w;
        let (p00, q00) = two_prod(a0, b0);
        let (p01, q01) = two_prod(a0, b1);
        let (p10, q10) = two_prod(a1, b0);
        let (p02, q02) = two_prod(a0, b2);
        let (p11, q11) = two_prod(a1, b1);
        let (p20, q20) = two_prod(a2, b0);
        let (p03, q03) = two_prod(a0, b3);
        let (p12, q12) = two_prod(a1, b2);
        let (p21, q21) = two_prod(a2, b1);
        let (p30, q30) = two_prod(a3, b0);
        let order4_products = a1.mul_add(b3, a2.mul_add(b2, a3 * b1));

        let mut e1 = [F::ZERO; 2];
        let c1 = cascade([p01, p10, q00], &mut e1);
        let mut e2 = [F::ZERO; 6];
        let c2 = cascade([p02, p11, p20, q01, q10, e1[0], e1[1]], &mut e2);
        let mut e3 = [F::ZERO; 12];
        let c3 = cascade(
            [
                p03, p12, p21, p30, q02, q11, q20, e2[0], e2[1], e2[2], e2[3], e2[4], e2[5],
            ],
            &mut e3,
        );
        let mut c4 = order4_products + ((q03 + q12) + (q21 + q30));
        for e in e3.iter().take(12) {
            c4 = c4 + *e;
        }
        Self::settle(renormalize([p00, c1, c2, c3, c4]), p00)
    }

    /// Product by one base float, by orders with exact carries. Documented bound: 2 ulps.
    pub fn mul_fp(self, b: F) -> Self {
        let [a0, a1, a2, a3] = self.w;
        let (p0, q0) = two_prod(a0, b);
        let (p1, q1) = two_prod(a1, b);
        let (p2, q2) = two_prod(a2, b);
        let (p3, q3) = two_prod(a3, b);
        let (c1, e1) = two_sum(p1, q0);
        let mut e2 = [F::ZERO; 2];
        let c2 = cascade([p2, q1, e1], &mut e2);
        let mut e3 = [F::ZERO; 3];
        let c3 = cascade([p3, q2, e2[0], e2[1]], &mut e3);
        let c4 = q3 + (e3[0] + e3[1] + e3[2]);
        Self::settle(renormalize([p0, c1, c2, c3, c4]), p0)
    }

    /// Long division (HLB00 §2.4, accurate variant with five quotient terms): each quotient
    /// word is `RN(r0 / b0)` of the current remainder `r = a - b (q0 + ... )`, which is
    /// computed with [`mul_fp`](Self::mul_fp) and accurate subtraction. Documented bound: 4 ulps.
    pub fn div_qw(self, b: Self) -> Self {
        let (b0, p) = (b.w[0], F::MANTISSA_DIGITS as i32);
        let e = b0.exponent();
        if b0.is_finite() && b0 != F::ZERO && (e <= F::MIN_EXP + 4 * p || e >= F::MAX_EXP - 2) {
            // The remainders' low words would underflow (or the products overflow): bring both
            // operands to [1, 2), each by its own power of two, and scale the quotient back.
            let x0 = self.w[0];
            let t = if x0.is_finite() && x0 != F::ZERO {
                -x0.exponent()
            } else {
                0
            };
            return self
                .ldexp_words(t)
                .div_core(b.ldexp_words(-e))
                .ldexp_words(-e - t);
        }
        self.div_core(b)
    }

    /// The long division of [`Self::div_qw`] for operands in the normal range.
    fn div_core(self, b: Self) -> Self {
        let q0 = self.w[0] / b.w[0];
        if !q0.is_finite() || q0 == F::ZERO || !b.w[0].is_finite() {
            return Self::settle([F::ZERO; 4], q0);
        }
        let mut r = self.add_qw(-b.mul_fp(q0));
        let q1 = r.w[0] / b.w[0];
        r = r.add_qw(-b.mul_fp(q1));
        let q2 = r.w[0] / b.w[0];
        r = r.add_qw(-b.mul_fp(q2));
        let q3 = r.w[0] / b.w[0];
        r = r.add_qw(-b.mul_fp(q3));
        let q4 = r.w[0] / b.w[0];
        Self::settle(renormalize([q0, q1, q2, q3, q4]), q0)
    }

    /// Square root: after scaling by an even power of two, three Newton steps
    /// `y += y (1 - a y^2) / 2` for `1/sqrt(a)` from the base-format start value, then Karp's
    /// step `s = a y + y (a - (a y)^2) / 2`. Documented bound: 4 ulps.
    pub fn sqrt_qw(self) -> Self {
        let a0 = self.w[0];
        if a0.is_nan() || a0 <= F::ZERO || !a0.is_finite() {
            let r = if a0.is_nan() || a0 < F::ZERO {
                F::NAN
            } else {
                a0
            };
            return Self::from_base(r);
        }
        let half_exp = -(a0.exponent() / 2);
        let a = self.ldexp_words(2 * half_exp);
        let one = Self::one();
        let mut y = Self::from_base(F::ONE / a.w[0].sqrt());
        for _ in 0..3 {
            let residual = one.add_qw(-a.mul_qw(y.mul_qw(y)));
            y = y.add_qw(y.mul_qw(residual).ldexp_words(-1));
        }
        let s = a.mul_qw(y);
        let correction = y.mul_qw(a.add_qw(-s.mul_qw(s))).ldexp_words(-1);
        s.add_qw(correction).ldexp_words(-half_exp)
    }

    /// `self * 2^n` word by word (renormalised, as words may round when they become subnormal).
    pub fn ldexp_words(self, n: i32) -> Self {
        let w0 = self.w[0].scalbn(n);
        if !w0.is_finite() || w0 == F::ZERO {
            return Self::from_base(w0);
        }
        let w = [
            w0,
            self.w[1].scalbn(n),
            self.w[2].scalbn(n),
            self.w[3].scalbn(n),
        ];
        if w[3] != F::ZERO && w[3].exponent() > F::MIN_EXP {
            Self { w }
        } else {
            Self { w: renormalize(w) }
        }
    }

    /// Largest integer not greater than `self`.
    pub fn floor_qw(self) -> Self {
        let mut w = self.w;
        for i in 0..4 {
            let f = w[i].floor();
            if f != w[i] {
                // The words below w[i] sum to less than ulp(w[i]) < 1 in magnitude and cannot
                // move the value across an integer.
                w[i] = f;
                for later in w.iter_mut().skip(i + 1) {
                    *later = F::ZERO;
                }
                break;
            }
        }
        Self::settle(renormalize(w), w[0])
    }
}

impl<F: BaseFloat> MultiFloat for QuadWord<F> {
    type Base = F;
    const WORDS: usize = 4;
    const PRECISION: u32 = 4 * F::MANTISSA_DIGITS;
    type Wide = Self;

    #[inline(always)]
    fn widen(self) -> Self {
        self
    }
    #[inline(always)]
    fn narrow(w: Self) -> Self {
        w
    }

    #[inline(always)]
    fn from_base(x: F) -> Self {
        Self {
            w: [x, F::ZERO, F::ZERO, F::ZERO],
        }
    }
    #[inline(always)]
    fn from_expansion(words: &[F]) -> Self {
        Self {
            w: [words[0], words[1], words[2], words[3]],
        }
    }
    fn from_two(a: F, b: F) -> Self {
        let (s, e) = two_sum(a, b);
        Self::settle([s, e, F::ZERO, F::ZERO], a + b)
    }
    fn to_words(self) -> [F; 4] {
        self.w
    }
    #[inline(always)]
    fn hi(self) -> F {
        self.w[0]
    }
    fn ldexp(self, n: i32) -> Self {
        self.ldexp_words(n)
    }
    fn add_base(self, b: F) -> Self {
        self.add_qw(Self::from_base(b))
    }
    fn mul_base(self, b: F) -> Self {
        self.mul_fp(b)
    }
    fn square(self) -> Self {
        self.mul_qw(self)
    }
    fn sqrt(self) -> Self {
        self.sqrt_qw()
    }
    fn recip(self) -> Self {
        Self::one().div_qw(self)
    }
    fn floor(self) -> Self {
        self.floor_qw()
    }
}

impl<F: BaseFloat> Neg for QuadWord<F> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self {
            w: [-self.w[0], -self.w[1], -self.w[2], -self.w[3]],
        }
    }
}

impl<F: BaseFloat> QuadWord<F> {
    #[inline(always)]
    fn sub_qw(self, b: Self) -> Self {
        self.add_qw(-b)
    }
}

macro_rules! qw_binop {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $op:ident) => {
        impl<F: BaseFloat> $trait for QuadWord<F> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, y: Self) -> Self {
                self.$op(y)
            }
        }
        impl<F: BaseFloat> $assign for QuadWord<F> {
            #[inline(always)]
            fn $assign_method(&mut self, y: Self) {
                *self = self.$op(y);
            }
        }
    };
}

qw_binop!(Add, add, AddAssign, add_assign, add_qw);
qw_binop!(Sub, sub, SubAssign, sub_assign, sub_qw);
qw_binop!(Mul, mul, MulAssign, mul_assign, mul_qw);
qw_binop!(Div, div, DivAssign, div_assign, div_qw);

impl<F: BaseFloat> PartialEq for QuadWord<F> {
    fn eq(&self, other: &Self) -> bool {
        self.partial_cmp(other) == Some(Ordering::Equal)
    }
}

impl<F: BaseFloat> PartialOrd for QuadWord<F> {
    /// Exact comparison through the sign of the accurate difference (whose leading word is
    /// zero only when the difference is); infinities compare by their leading words.
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        if self.w == other.w {
            return Some(Ordering::Equal);
        }
        if !self.w[0].is_finite() || !other.w[0].is_finite() {
            return self.w[0].partial_cmp(&other.w[0]);
        }
        self.sub_qw(*other).w[0].partial_cmp(&F::ZERO)
    }
}
