//! Table-driven `e^x` of a double-double, within about half an ulp of 106 bits.
//!
//! The generic [`crate::math::exp`] sums a 20-term Taylor series in double-double arithmetic;
//! this one does what a libm does for binary64 (Tang, "Table-driven implementation of the
//! exponential function in IEEE floating-point arithmetic", ACM TOMS 15(2), 1989), carried to
//! 106 bits:
//!
//! 1. `x = k ln2/1024 + r` with `k = round(x 1024/ln2)`, `|k| < 2^21`; the subtraction uses
//!    `ln2/1024 = L1 + L2 + L3` with a 32-bit `L1` (so `k L1` is exact and `x.hi - k L1` is
//!    exact by Sterbenz's lemma), an exact 2Prod for `k L2`, and error-free sums, so
//!    `|r| <= 2^-11.52` is known to about `2^-116` absolutely.
//! 2. `e^x = 2^K T_j (1 + q)` with `k = 1024 K + j`, `T_j = 2^(j/1024)` a triple word
//!    (`src/math/dd_exp_table.rs`, MPFR), and `q = expm1(r)`: Taylor to degree 8 at `r.hi`
//!    (degrees 5-8 in binary64, degrees 3-4 with double-double coefficients, `r.hi^2/2` and
//!    `r.hi^3` exact), plus `r.lo (1 + q)` for the low word of `r`.
//! 3. `T (1 + q)` is summed so that the low word of the result is rounded once, at the end.
//!
//! Bound (docs/error-analysis.md, section 7): for results above `2^-916` (where no word is
//! subnormal), the error is at most half an ulp of 106 bits of the leading word's binade from
//! the one rounding of the low word, plus `2^-111.5` relative from everything else: at most
//! `0.53` ulp of 106 bits, or `1.05` ulps for a result within `2^-104` below a power of two
//! (whose leading word rounds up to it). The kernel twin is
//! `crates/tmd-kernels/kernels/dd_exp.cl`.

#[path = "dd_exp_table.rs"]
mod table;

use crate::base::{pow2_f64, BaseFloat};
use crate::consts::TABLE_F64;
use crate::eft::{fast_two_sum, two_prod, two_sum};
use crate::math::exp_limits;
use crate::Dd;

pub use table::{INV_STEP, SIZE, STEP1, STEP2, STEP3, TWO_POW_FRAC};

/// `1/n!` rounded to binary64, for the Taylor terms evaluated in binary64 (`n = 5..=8`).
fn inv_fact(n: usize) -> f64 {
    TABLE_F64.inv_fact[n][0]
}

/// `x - k ln2/1024` as a normalised pair `(r_h, r_l)`, for the `k` of
/// step 1; exact but for roundings below `2^-116` (docs/error-analysis.md §7.1).
#[inline(always)]
fn reduce(x: Dd, k: f64) -> (f64, f64) {
    let a = x.hi() - k * STEP1; // exact: k STEP1 has <= 53 bits, Sterbenz for the difference
    let (b_h, b_l) = two_prod(k, STEP2);
    let (s_h, s_l) = two_sum(a, -b_h);
    let (t_h, t_l) = two_sum(s_h, x.lo());
    let low = s_l + t_l - b_l - k * STEP3;
    // 2Sum, not Fast2Sum: after a cancellation t_h may be smaller than the low terms.
    two_sum(t_h, low)
}

/// `expm1(r_h + r_l)` for `|r_h| <= 2^-11.5`, `|r_l| <= 2^-63`, as an unnormalised pair
/// `(q_h, q_l)` with `|q_l| <= 2^-62`, within `2^-113.5` absolutely (§7.2).
#[inline(always)]
fn expm1_reduced(r_h: f64, r_l: f64) -> (f64, f64) {
    let c3 = TABLE_F64.inv_fact[3];
    let c4 = TABLE_F64.inv_fact[4];
    // Degrees 5-8 in binary64 (Horner, unfused: the kernel does the same operations).
    let tail = inv_fact(5) + r_h * (inv_fact(6) + r_h * (inv_fact(7) + r_h * inv_fact(8)));
    // 1/24 + r tail with a double-double coefficient.
    let (e4_h, e4_l) = fast_two_sum(c4[0], r_h * tail);
    let e4_l = e4_l + c4[1];
    // 1/6 + r (1/24 + ...): the product's rounding error kept by 2Prod.
    let (p_h, p_l) = two_prod(r_h, e4_h);
    let p_l = BaseFloat::mul_add(r_h, e4_l, p_l);
    let (e3_h, e3_l) = fast_two_sum(c3[0], p_h);
    let e3_l = e3_l + (c3[1] + p_l);
    // r^2 exactly, r^3 to 2^-106 relative.
    let (s_h, s_l) = two_prod(r_h, r_h);
    let (c_h, c_l) = two_prod(r_h, s_h);
    let c_l = BaseFloat::mul_add(r_h, s_l, c_l);
    // R = r^3 (1/6 + ...), a double-double product without the low-times-low term.
    let (m_h, m_l) = two_prod(c_h, e3_h);
    let m_l = BaseFloat::mul_add(c_h, e3_l, BaseFloat::mul_add(c_l, e3_h, m_l));
    // r + r^2/2 + R, then r_l e^r for the low word of r.
    let (u_h, u_l) = two_sum(0.5 * s_h, m_h);
    let (q_h, q_e) = fast_two_sum(r_h, u_h);
    let correction = r_l + r_l * q_h;
    (q_h, q_e + (u_l + (0.5 * s_l + m_l + correction)))
}

/// `T (1 + q)` for a triple word `T` in `[1, 2)` and `q` from [`expm1_reduced`], normalised,
/// with the low word rounded once (§7.3).
#[inline(always)]
fn scale_by_table(t: [f64; 3], q_h: f64, q_l: f64) -> (f64, f64) {
    let (p_h, p_l) = two_prod(t[0], q_h);
    let p_l = p_l + (t[0] * q_l + t[1] * q_h);
    let (u_h, u_l) = two_sum(t[0], p_h);
    let (v_h, v_l) = two_sum(u_l, t[1]);
    let (z_h, e) = fast_two_sum(u_h, v_h);
    let z_l = e + (v_l + p_l + t[2]);
    fast_two_sum(z_h, z_l)
}

/// `e^x`: within `0.53` ulp of 106 bits for results above `2^-916` (`1.05` just below a power
/// of two; docs/error-analysis.md §7); `+inf` above `1024 ln 2`, `+0` below
/// `-1076 ln 2`, NaN for NaN, like [`crate::math::exp`].
pub fn exp(x: Dd) -> Dd {
    let xh = x.hi();
    let (over, under) = exp_limits::<f64>();
    if xh.is_nan() {
        return x;
    }
    if xh > over {
        return Dd::from_words_unchecked(f64::INFINITY, 0.0);
    }
    if xh < under {
        return Dd::from_words_unchecked(0.0, 0.0);
    }
    let k = BaseFloat::round_ties_even(xh * INV_STEP);
    let (r_h, r_l) = reduce(x, k);
    let (q_h, q_l) = expm1_reduced(r_h, r_l);
    let ki = k as i64;
    let j = (ki & (SIZE as i64 - 1)) as usize;
    let big_k = ki >> SIZE.trailing_zeros();
    let (z_h, z_l) = scale_by_table(TWO_POW_FRAC[j], q_h, q_l);
    if (-1022..=1023).contains(&big_k) {
        // Exact unless the low word becomes subnormal.
        let s = pow2_f64(big_k as i32);
        Dd::from_words_unchecked(z_h * s, z_l * s)
    } else {
        // Overflow (K = 1024) or a subnormal leading word: word by word, like math::exp.
        Dd::from_words_unchecked(z_h, z_l).ldexp_words(big_k as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split of `ln2/1024` keeps `k STEP1` exact for every `|k| < 2^21`: STEP1 has at
    /// most 32 significant bits.
    #[test]
    fn step1_has_32_significant_bits() {
        let bits = STEP1.to_bits() & ((1u64 << 52) - 1);
        assert!(bits.trailing_zeros() >= 52 - 31, "{STEP1:e}");
    }

    /// The largest |k| of a finite, non-zero result fits the exactness condition.
    #[test]
    fn k_stays_below_2_pow_21() {
        let (over, under) = exp_limits::<f64>();
        for x in [over, under] {
            assert!(((x * INV_STEP).round_ties_even()).abs() < (1u64 << 21) as f64);
        }
    }
}
