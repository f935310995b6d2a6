//! Error-free transformations (EFTs): the exact building blocks of multi-word arithmetic.
//!
//! All results assume round-to-nearest-even and no overflow; underflow keeps `two_sum` and
//! `fast_two_sum` exact, while `two_prod*` are exact only when `a b` and its error term are above
//! the underflow threshold (Boldo & Daumas, "Representable correcting terms", 2003).
//! Notation follows Muller et al., *Handbook of Floating-Point Arithmetic*, 2nd ed., 2018, Ch. 4.

use crate::base::BaseFloat;

/// Fast2Sum (Dekker 1971): `s = RN(a + b)` and `e` with `s + e = a + b` exactly,
/// provided `exponent(a) >= exponent(b)` (e.g. `|a| >= |b|`) or `a == 0`. 3 flops.
#[inline(always)]
pub fn fast_two_sum<F: BaseFloat>(a: F, b: F) -> (F, F) {
    let s = a + b;
    let z = s - a;
    (s, b - z)
}

/// 2Sum (Møller 1965, Knuth): `s = RN(a + b)` and `e` with `s + e = a + b` exactly, for any
/// finite `a`, `b` whose sum does not overflow. 6 flops, no branch.
#[inline(always)]
pub fn two_sum<F: BaseFloat>(a: F, b: F) -> (F, F) {
    let s = a + b;
    let a_rounded = s - b;
    let b_rounded = s - a_rounded;
    let a_err = a - a_rounded;
    let b_err = b - b_rounded;
    (s, a_err + b_err)
}

/// Fast2Mult: `p = RN(a b)` and `e = RN(a b - p)` with one explicit FMA; `p + e = a b` exactly
/// when no underflow occurs (Handbook Alg. 4.8). This is the form used throughout the crate.
#[inline(always)]
pub fn two_prod<F: BaseFloat>(a: F, b: F) -> (F, F) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// Veltkamp splitting: `a = hi + lo` where `hi` and `lo` fit in `ceil(p/2)`, `floor(p/2)` bits.
/// Requires `|a| < MAX / SPLITTER` to avoid overflow in `SPLITTER * a`.
#[inline(always)]
pub fn split<F: BaseFloat>(a: F) -> (F, F) {
    let gamma = F::SPLITTER * a;
    let delta = a - gamma;
    let hi = gamma + delta;
    (hi, a - hi)
}

/// Dekker's product without FMA (Dekker 1971, Handbook Alg. 4.10): same result as [`two_prod`]
/// for `|a|, |b| < MAX / SPLITTER` without underflow. 17 flops. Provided for targets without
/// a fused multiply-add; the crate's arithmetic always uses [`two_prod`].
#[inline(always)]
pub fn two_prod_dekker<F: BaseFloat>(a: F, b: F) -> (F, F) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    (p, e)
}

/// ThreeSum as a chain of two [`two_sum`]: `s + e1 + e2 = a + b + c` exactly.
#[inline(always)]
pub fn three_sum<F: BaseFloat>(a: F, b: F, c: F) -> (F, F, F) {
    let (t, e1) = two_sum(a, b);
    let (s, e2) = two_sum(t, c);
    (s, e1, e2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sum_recovers_lost_bits() {
        let (s, e) = two_sum(1.0f64, 1e-20);
        assert_eq!((s, e), (1.0, 1e-20));
        let (s, e) = two_sum(1e-20f64, 1.0);
        assert_eq!((s, e), (1.0, 1e-20));
        let (s, e) = fast_two_sum(3.0f32, 2f32.powi(-30));
        assert_eq!((s, e), (3.0, 2f32.powi(-30)));
    }

    #[test]
    fn two_prod_variants_agree() {
        let a = 1.0f64 + f64::EPSILON;
        let b = 1.0f64 - f64::EPSILON / 2.0;
        let fused = two_prod(a, b);
        assert_eq!(fused, two_prod_dekker(a, b));
        assert!(fused.1 != 0.0);
        let a = 16777215.0f32 / 8388608.0;
        assert_eq!(two_prod(a, a), two_prod_dekker(a, a));
        assert!(two_prod(a, a).1 != 0.0);
    }
}
