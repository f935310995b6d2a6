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

/// [`two_prod`] for operands and a product that the caller knows to lie inside the
/// `BaseFloat::DEKKER_*` bounds: built without a hardware FMA (where `mul_add` is a call to a
/// library `fma`), Dekker's product ([`two_prod_dekker`]), with neither the call nor a range
/// test; with one, the FMA. Both give the exact error there, so the bits never depend on the
/// build or the device. Measured: `Dd::sin` 61 against 66 ns with the FMA call
/// (docs/xfloat-compare.md).
#[inline(always)]
pub fn two_prod_in_dekker_range<F: BaseFloat>(a: F, b: F) -> (F, F) {
    if cfg!(target_feature = "fma") {
        two_prod(a, b)
    } else {
        two_prod_dekker(a, b)
    }
}

/// [`two_prod`] for any operands without a library `fma` call where Dekker's product is exact
/// ([`two_prod_in_dekker_range`] after a range test), the FMA elsewhere: the same bits. Faster
/// only where one product dominates (double-word `*`: 7.9 against 9.1 ns in
/// docs/xfloat-compare.md); where several products are chained, the range tests cost more than
/// the calls (measured: `/`, `sqrt`, `exp`, `log` slower).
#[inline(always)]
pub fn two_prod_no_fma_call<F: BaseFloat>(a: F, b: F) -> (F, F) {
    if cfg!(target_feature = "fma") {
        return two_prod(a, b);
    }
    let magnitude = (a * b).abs();
    if magnitude >= F::DEKKER_PRODUCT_MIN
        && magnitude < F::DEKKER_PRODUCT_MAX
        && a.abs() < F::DEKKER_OPERAND_MAX
        && b.abs() < F::DEKKER_OPERAND_MAX
    {
        two_prod_in_dekker_range(a, b)
    } else {
        two_prod(a, b)
    }
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
/// for `|a|, |b| < MAX / SPLITTER` without underflow. 17 flops. [`two_prod_in_dekker_range`]
/// uses it when the build has no hardware FMA.
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

    /// Without a hardware FMA, `two_prod_no_fma_call` takes Dekker's product inside its
    /// bounds: it must give the FMA's bits everywhere (random encodings over the whole range,
    /// both formats, and the bounds' neighbourhoods), or CPU and GPU results would differ.
    #[test]
    fn two_prod_equals_the_fused_error_everywhere() {
        fn same<F: BaseFloat>(x: F, y: F) -> bool {
            x == y && x.is_sign_negative() == y.is_sign_negative() || (x.is_nan() && y.is_nan())
        }
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for i in 0..2_000_000u32 {
            let (u, v): (u64, u64) = (rng.gen(), rng.gen());
            // Every other pair near 1 in magnitude, so most products are in Dekker's range.
            let (a, b) = if i % 2 == 0 {
                (f64::from_bits(u), f64::from_bits(v))
            } else {
                let scale = |w: u64| {
                    f64::from_bits((w & !(0x7ffu64 << 52)) | ((1023 + (w >> 60) * 70 - 500) << 52))
                };
                (scale(u), scale(v))
            };
            let (p, e) = two_prod_no_fma_call(a, b);
            assert!(same(e, a.mul_add(b, -p)), "{a:e} * {b:e}: {e:e}");
            let (a, b) = (f32::from_bits(u as u32), f32::from_bits(v as u32));
            let (p, e) = two_prod_no_fma_call(a, b);
            assert!(same(e, a.mul_add(b, -p)), "{a:e} * {b:e}: {e:e}");
        }
        for bound in [
            f64::DEKKER_PRODUCT_MIN,
            f64::DEKKER_PRODUCT_MAX,
            f64::DEKKER_OPERAND_MAX,
        ] {
            for k in -3..=3 {
                let a = f64::from_bits((bound.to_bits() as i64 + k) as u64);
                for b in [1.0, 1.0 + f64::EPSILON, 0.75, 1.999_999_999_999_999_8] {
                    let (p, e) = two_prod_no_fma_call(a, b);
                    assert!(same(e, a.mul_add(b, -p)), "{a:e} * {b:e}");
                }
            }
        }
    }
}
