//! Table-driven natural logarithm of a double-double.
//!
//! Tang's multiplicative reduction (P. T. P. Tang, "Table-driven implementation of the logarithm
//! function in IEEE floating-point arithmetic", ACM TOMS 16(4), 1990) in three stages, with
//! an *exact* reduced argument and a final sum in which only one rounding is not negligible.
//! For `x = 2^E (m_h + m_l)`, `m_h` in `[1, 2)`:
//!
//! 1. `C1[i]` ~ `1/m_h` from the top 8 bits of `m_h` (129 entries, a multiple of `2^-16`); the
//!    entries `i >= I_HALF` (`m_h > ~sqrt 2`) count `m_h` as `2 (m_h/2)`, so `k = E + s` and
//!    `L1[i] = -log(2^s C1[i])` with `|log(m_h/2^s)| < 0.35`; `C1[0] = 1`, `C1[128] = 1/2`.
//! 2. `c2 = 1 - j2 2^-13` with `j2 = round(2^13 t1 (1 - t1))`, `t1 = RN(m_h C1) - 1`
//!    (`t1 (1 - t1)` ~ `t1/(1 + t1)`, `|t1| <= 2^-8`, `|j2| <= 32`); then `c3 = 1 - j3 2^-19`
//!    with `j3 = round(2^19 t2)`, `t2 ~ m_h C1 c2 - 1` (`|t2| < 2^-13.99`, `|j3| <= 32`).
//!    The rounding errors of `t1`, `t2` only move `j2`, `j3`; `c = C1 c2 c3` is exact (<= 51 bits).
//! 3. `t = (m_h + m_l) c - 1` *exactly*, as `t_h + t_l + t_ll` from two exact products (FMA)
//!    and three 2Sums; `|t| < 2^-19.994`.
//! 4. `log x = k ln2 + L1[i] + L2[j2] + L3[j3] + log1p(t)`, the logarithms on the grids of
//!    `dd_log_table.rs` so that their leading words `H` and second words `M` add exactly;
//!    `log1p(t) = t - t^2/2 + ... - t^6/6` with `t^2` and `t^3/3` kept to about 120 bits.
//! 5. The terms that are not negligible against an ulp of the result (`H`, `M`, `t_h`,
//!    `-t^2/2 + t^3/3`, `t_l` and the errors of adding them) are added with 2Sum / Fast2Sum
//!    only, the rest (below `2^-64 |log x|`) in plain binary64, and the low word is rounded
//!    once at the end.
//!
//! Error bound (proof in `docs/error-analysis.md §9`): for every finite `x > 0` whose logarithm
//! is not below `2^-916` in magnitude (the double-word precision limit of the crate),
//! `|result - log x| <= 0.502` units in the last place of a 106-bit number (`2^(e-105)` for
//! `2^e <= |log x| < 2^(e+1)`); `log 1 = +0` exactly.
//!
//! Only binary64 `+ - *`, explicit FMA (in the exact products of [`two_prod`]), comparisons,
//! `to_bits`/`from_bits`, integer arithmetic and table lookups are used, so a C/OpenCL/CUDA
//! twin gives the same bits; nothing branches on the data except the special values and the
//! rescaling of subnormal and huge arguments.

/// The tables (public for the kernel twin and the tests); generated, so not reformatted.
#[path = "dd_log_table.rs"]
#[rustfmt::skip]
pub mod dd_log_table;

use crate::eft::{fast_two_sum, two_prod, two_sum};
use crate::Dd;
use dd_log_table::{C1, I_HALF, L1, L2, L3, LN2};

/// `1.5 * 2^52`: `RN(v + ROUND) - ROUND` is `v` rounded to an integer (ties to even) for
/// `|v| < 2^51`, and the low bits of `RN(v + ROUND)` hold that integer.
const ROUND: f64 = 6755399441055744.0;
/// Offset of `j = 0` in `L2` and `L3` (`|j| <= 32`).
const J: i64 = 32;
/// `RN(1/3)` (public, like `RN(1/5)` and `RN(1/6)`, for the kernel twin's constants).
pub const THIRD: f64 = 1.0 / 3.0;
/// `RN(1/5)`.
pub const FIFTH: f64 = 0.2;
/// `RN(1/6)`.
pub const SIXTH: f64 = 1.0 / 6.0;

/// Natural logarithm of a double-double.
///
/// Error at most 0.502 ulp of 106 bits for every finite positive argument whose logarithm is
/// above `2^-916` in magnitude (proven in `docs/error-analysis.md §9`); `log 1 = +0`,
/// `log(±0) = -inf`, `log(+inf) = +inf`, `log(x < 0) = log(NaN) = NaN`.
pub fn log(x: Dd) -> Dd {
    let xh = x.hi();
    if !(xh > 0.0 && xh < f64::INFINITY) {
        return special(xh);
    }
    let (e, f, ml) = decompose(xh, x.lo());
    let (i, c, j2, j3) = reduction_factors(f);
    let k = (e + (i >= I_HALF) as i64) as f64;
    let (th, tl, tll) = reduced_argument(f, ml, c);
    // k ln2 + L1 + L2 + L3: the grid words add exactly (see dd_log_table.rs).
    let (l1, l2, l3) = (&L1[i], &L2[j2], &L3[j3]);
    let big = k * LN2[0] + l1[0] + l2[0] + l3[0];
    let mid = k * LN2[1] + l1[1] + l2[1] + l3[1];
    let low = k * LN2[2] + l1[2] + l2[2] + l3[2];
    let (v, ve, small) = log1p_parts(th, tl);
    // log x = big + mid + v + ve + tl + (small + low + tll/(1 + t)) + tiny: add exactly ...
    // (|big| > |w| or big = 0, so Fast2Sum applies) ...
    let (w, we) = two_sum(mid, v);
    let (s, se) = fast_two_sum(big, w);
    // ... and gather the low-order errors, each below an ulp of s, exactly too.
    let (m1, m1e) = two_sum(tl, ve);
    let (m2, m2e) = two_sum(m1, we);
    let (m3, m3e) = two_sum(m2, se);
    let (zh, z1) = fast_two_sum(s, m3);
    let rest = ((small + low) + (tll - tll * th)) + ((m1e + m2e) + m3e);
    let (zh, zl) = fast_two_sum(zh, z1 + rest);
    Dd::from_words_unchecked(zh, zl)
}

/// `log` of a leading word that is NaN, negative, zero or `+inf`.
fn special(xh: f64) -> Dd {
    let r = if xh.is_nan() || xh < 0.0 {
        f64::NAN
    } else if xh == 0.0 {
        f64::NEG_INFINITY
    } else {
        xh
    };
    Dd::from_words_unchecked(r, 0.0)
}

/// `x = 2^e (f + ml)` with `f` in `[1, 2)` and `|ml| <= 2^-53`, exactly (`ml` may underflow to a
/// value below `2^-1000`, far below the accuracy needed). Leading words below `2^-1022` (then
/// the trailing word is zero) or at least `2^1023` are first scaled by `2^64` or `2^-1` so that
/// the scale factor `2^-e` below is a normal number.
#[inline(always)]
fn decompose(xh: f64, xl: f64) -> (i64, f64, f64) {
    const MANT: u64 = (1 << 52) - 1;
    let (mut xh, mut xl, mut adjust) = (xh, xl, 0);
    let bits = xh.to_bits();
    if bits < 1 << 52 {
        xh *= 18446744073709551616.0; // 2^64
        xl *= 18446744073709551616.0;
        adjust = -64;
    } else if bits >= 2046 << 52 {
        xh *= 0.5;
        xl *= 0.5;
        adjust = 1;
    }
    let bits = xh.to_bits();
    let biased = (bits >> 52) as i64; // in [1, 2045]
    let f = f64::from_bits((bits & MANT) | (1023 << 52));
    let scale = f64::from_bits(((2046 - biased) as u64) << 52); // 2^(1023 - biased)
    (biased - 1023 + adjust, f, xl * scale)
}

/// Stage indices and the exact reduction factor `c = C1[i] c2 c3` for the mantissa `f`.
/// Returns `(i, c, j2 + 32, j3 + 32)`.
#[inline(always)]
fn reduction_factors(f: f64) -> (usize, f64, usize, usize) {
    // i = round(128 (f - 1)) from the top 8 fraction bits: f in [1 + (i-1/2)/128, 1 + (i+1/2)/128).
    let i = ((((f.to_bits() >> 44) & 0xff) + 1) >> 1) as usize;
    let c1 = C1[i];
    // t1 ~ f c1 - 1 (|t1| <= 2^-8); j2 = round(2^13 t1/(1 + t1)), with t1 (1 - t1) for t1/(1 + t1).
    // Rounding errors here only move j2 and j3 (they are bounded in the analysis).
    let t1 = f * c1 - 1.0;
    let (j2, jf2) = round_to_integer(t1 * (1.0 - t1) * 8192.0);
    let c2 = 1.0 - jf2 * (1.0 / 8192.0);
    // t2 ~ f c1 c2 - 1 = t1 - j2 2^-13 (1 + t1) (|t2| < 2^-13.99); j3 = round(2^19 t2).
    let t2 = t1 - jf2 * ((1.0 + t1) * (1.0 / 8192.0));
    let (j3, jf3) = round_to_integer(t2 * 524288.0);
    let c3 = 1.0 - jf3 * (1.0 / 524288.0);
    // Exact: C1 c2 has at most 17 + 14 bits, c at most 31 + 20.
    (i, (c1 * c2) * c3, (j2 + J) as usize, (j3 + J) as usize)
}

/// `round(v)` (ties to even) for `|v| < 2^51`, as an integer and as a double.
#[inline(always)]
fn round_to_integer(v: f64) -> (i64, f64) {
    let rounded = v + ROUND;
    let j = (rounded.to_bits() as i64) - (ROUND.to_bits() as i64);
    (j, rounded - ROUND)
}

/// The reduced argument `t = (f + ml) c - 1` as `th + tl + tll`: `th + tl` is a normalised
/// double word and `tll` is within `2^-157` of the rest (`|tll| <= 2^-104.4`).
#[inline(always)]
fn reduced_argument(f: f64, ml: f64, c: f64) -> (f64, f64, f64) {
    let (p, pe) = two_prod(f, c); // f c = p + pe
    let (q, qe) = two_prod(ml, c); // ml c = q + qe
    let r = p - 1.0; // exact (Sterbenz: p in [1/2, 2])
    let (w, we) = two_sum(pe, q);
    let (th, tl) = two_sum(r, w);
    (th, tl, we + qe)
}

/// `log1p(h + l)` for a normalised double word with `|h| < 2^-19.994`, split as
/// `v + ve + l + small` with `v + ve = h - a/2 + q - a2/4` exactly, where `a + ae = h^2`,
/// `a2 + a2e = a^2` and `q` ~ `h^3/3`, and `small` (`|small| < 2^-71.9 |h|`) the rest of the
/// series up to `h^6` and `l h^3`.
#[inline(always)]
fn log1p_parts(h: f64, l: f64) -> (f64, f64, f64) {
    let (a, ae) = two_prod(h, h); // h^2 = a + ae
    let (b, be) = two_prod(a, h); // a h = b + be, so h^3 = b + be + ae h
    let (a2, a2e) = two_prod(a, a); // a^2 = a2 + a2e, so h^4 = a2 + a2e + 2 a ae + ae^2
    let q = b * THIRD;
    let r = (b - 2.0 * q) - q; // b - 3q, exactly (two Sterbenz subtractions)
    let (q4, q4e) = fast_two_sum(q, -0.25 * a2);
    let (p1, p1e) = fast_two_sum(-0.5 * a, q4);
    let (v, ve) = fast_two_sum(h, p1);
    // h^3/3 - q = (r + be + ae h)/3; -h^4/4 + a2/4 = -a2e/4 - a ae/2 (- ae^2/4);
    // h^5/5 - h^6/6; l/(1 + h) - l = l (-h + h^2 - h^3) (+ l h^4/(1 + h)).
    let cube = (r + (be + ae * h)) * THIRD;
    let quartic = -0.25 * a2e - 0.5 * (a * ae);
    let tail = (a2 * h) * (FIFTH - h * SIXTH);
    let lterm = l * ((a - b) - h);
    let small = ((p1e + q4e) - 0.5 * ae) + ((cube + quartic) + (tail + lterm));
    (v, ve, small)
}
