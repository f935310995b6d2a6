//! A cheap first reference for binary64 `exp`: `e^x` as a double-double with relative error
//! below [`EPS_FAST_EXP`] = 2^-78, about eight times cheaper than xfloat's double-double `exp`.
//!
//! Crunch needs the reference only to decide how the target's result compares with the
//! roundings of `e^x`; with a 2^-78 bound (25 bits beyond binary64) the decision fails only
//! for results within about 2^-24 ulp of a rounding boundary or histogram bin edge (an estimate
//! from the margin, not a measured rate), and those go on to the 2^-96 double-double reference
//! and then to MPFR, as before (`driver::verdict_binary64`, and the same stages on the
//! device). The error values it gives are within 2^-24 ulp of the truth
//! (`analysis::classify_fast`'s margin), below the 2^-23 that the near-maximum window already
//! allows for.
//!
//! Method (docs/error-analysis.md §6 proves the bound):
//!
//! * `k = rint(x 256/ln 2)`, `x = k ln2/256 + r` with `|r| <= ln2/512 (1 + 2^-40)`: the exact
//!   products `k (ln2_i / 256)` of three words of xfloat's `ln 2` expansion, subtracted with
//!   error-free sums, give `r = r_hi + r_lo` to 2^-110 absolutely.
//! * `e^r - 1 = r + r^2/2 + r^3 P(r)`, with `r^2/2` exact (`two_prod`), `P` the Taylor terms
//!   `1/3! .. 1/7!` in plain binary64 (Horner), and `r_lo` entered as `r_lo (1 + r_hi)`.
//! * `e^x = 2^(k div 256) T[k mod 256] (1 + (e^r - 1))` with `T[j] = 2^(j/256)` as a correctly
//!   rounded double-double (`tmd_xfloat::consts::EXP2_FRAC_256`, generated with MPFR).
//!
//! Every step is IEEE binary64 with round-to-nearest and explicit FMAs only, so
//! `kernels/crunch_fast_exp.cl` computes the same bits on a device. Outside `[-665, 708]`
//! (results near overflow, or below 2^-960 where the low word would lose bits to underflow) it
//! returns `(inf, 0)`, which no decision accepts, so those inputs take the next stage.

use tmd_xfloat::consts::{EXP2_FRAC_256, TABLE_F64};
use tmd_xfloat::eft::{fast_two_sum, two_prod, two_sum};

/// Relative error bound of [`exp_fast`] (proof: docs/error-analysis.md §6; measured against
/// MPFR by `tests/reference_bounds.rs`).
pub const EPS_FAST_EXP: f64 = 1.0 / (1u128 << 78) as f64;

/// `256 / ln 2` rounded to binary64: only picks `k`, any rounding of it would do.
pub const INV_LN2_256: f64 = 256.0 / core::f64::consts::LN_2;

/// Largest `x` [`exp_fast`] evaluates: `2^(k div 256)` stays a normal number.
pub const FAST_EXP_MAX: f64 = 708.0;

/// Smallest `x` [`exp_fast`] evaluates: `e^-665 > 2^-960`, so the low word, at least 2^-53
/// times smaller, stays far enough above the subnormal range for its rounding to cost less than
/// 2^-110 relatively. (Results below 2^-960 are not decided by a fast reference anyway:
/// `analysis::classify_fast`.)
pub const FAST_EXP_MIN: f64 = -665.0;

/// `ln 2 / 256` as three words (exact scalings of xfloat's `ln 2` expansion).
fn ln2_over_256() -> [f64; 3] {
    let w = &TABLE_F64.ln2;
    [w[0] / 256.0, w[1] / 256.0, w[2] / 256.0]
}

/// `(k, r_hi, r_lo)` with `x = k ln2/256 + r_hi + r_lo` to 2^-110 absolutely.
fn reduce(x: f64) -> (f64, f64, f64) {
    let k = (x * INV_LN2_256).round_ties_even();
    let [l0, l1, l2] = ln2_over_256();
    let (p0, e0) = two_prod(k, l0);
    let s = x - p0; // exact: x and p0 are within a factor 2 (or k = 0)
    let (p1, e1) = two_prod(k, l1);
    let (a, a_err) = two_sum(s, -e0);
    let (b, b_err) = two_sum(a, -p1);
    let low = ((a_err + b_err) - e1) - k * l2;
    let (r_hi, r_lo) = two_sum(b, low);
    (k, r_hi, r_lo)
}

/// `e^r - 1` for the reduced argument, as a double-double.
fn expm1_reduced(r_hi: f64, r_lo: f64) -> (f64, f64) {
    let c = |j: usize| TABLE_F64.inv_fact[j][0];
    let (sq_h, sq_l) = two_prod(r_hi, r_hi);
    let p = c(3) + r_hi * (c(4) + r_hi * (c(5) + r_hi * (c(6) + r_hi * c(7))));
    let tail = (r_hi * sq_h) * p;
    let (s_h, s_l) = fast_two_sum(r_hi, 0.5 * sq_h);
    let lo = s_l + (0.5 * sq_l + (tail + r_lo * (1.0 + r_hi)));
    fast_two_sum(s_h, lo)
}

/// `e^x` as `(hi, lo)` with `|hi + lo - e^x| <= 2^-78 e^x` for `-665 <= x <= 708`;
/// `(inf, 0)` otherwise (including NaN), which the analysis never takes for a value.
pub fn exp_fast(x: f64) -> (f64, f64) {
    if !(FAST_EXP_MIN..=FAST_EXP_MAX).contains(&x) {
        return (f64::INFINITY, 0.0);
    }
    let (k, r_hi, r_lo) = reduce(x);
    let (e_h, e_l) = expm1_reduced(r_hi, r_lo);
    let ki = k as i64;
    let j = (ki & 255) as usize;
    let e = (ki - j as i64) / 256;
    let [t_h, t_l] = EXP2_FRAC_256[j];
    let (m_h, m_l) = two_prod(t_h, e_h);
    let (a_h, a_l) = fast_two_sum(t_h, m_h);
    let low = a_l + (t_l + (m_l + (t_h * e_l + t_l * e_h)));
    let (y_h, y_l) = fast_two_sum(a_h, low);
    let scale = f64::from_bits(((e + 1023) as u64) << 52);
    (y_h * scale, y_l * scale)
}
