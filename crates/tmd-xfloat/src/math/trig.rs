//! Circular functions: Payne–Hanek argument reduction and Taylor series.
//!
//! Reduction computes `x * 2/pi` modulo 4 in 64-bit fixed point with `64 L` fraction bits
//! (`L` = 5 limbs for double words, 10 for quad words), exactly up to the truncation of the 2/pi
//! table window (absolute error below `2^-(64 L - 2)` of the fraction), for every word of `x` separately: a word
//! `m 2^e` (integer `m < 2^53`) only needs the bits of 2/pi from position `e - 64` on, since
//! earlier bits contribute multiples of 4 (Payne & Hanek, SIGNUM Newsletter 18(1), 1983; Muller,
//! *Elementary Functions*, 3rd ed., §11.4). Only integer multiply/add on 64-bit limbs is used
//! (`mul_hi` on GPUs), so CPU and GPU reductions agree bit for bit.

use super::{inv_factorial, taylor_terms};
use crate::base::{BaseFloat, Constant};
use crate::consts::TWO_OVER_PI_BITS;
use crate::multi::MultiFloat;

/// Fraction limbs of the fixed-point reduction for type `T`. Double words: 320 bits, for 106
/// bits of precision, 64 guard bits and the cancellation of an argument within 2^-110 of a
/// multiple of pi/2. Quad words: 640 bits, for 212 bits, 64 guard bits and cancellations down
/// to 2^-300 (a quad word near `k pi/4` can carry 230 bits and more, and its reduced argument
/// is that small).
const fn fraction_limbs<T: MultiFloat>() -> usize {
    if T::WORDS == 2 {
        5
    } else {
        10
    }
}
/// The largest [`fraction_limbs`].
const MAX_FRACTION_LIMBS: usize = 10;
/// Window of 2/pi bits per word: integer limb, fraction limbs, two guard limbs.
const MAX_WINDOW_LIMBS: usize = MAX_FRACTION_LIMBS + 3;

/// Bits `start .. start + 63` of 2/pi (bit 1 is the first after the binary point; bits at
/// positions `<= 0` are zero). A `const fn`, so that fixed windows are tables built at compile
/// time.
pub(crate) const fn two_over_pi_bits(start: i64) -> u64 {
    if start + 63 < 1 {
        return 0;
    }
    if start < 1 {
        return two_over_pi_bits(1) >> (1 - start);
    }
    let index = ((start - 1) / 64) as usize;
    let offset = ((start - 1) % 64) as u32;
    if offset == 0 {
        two_over_pi_limb(index)
    } else {
        (two_over_pi_limb(index) << offset) | (two_over_pi_limb(index + 1) >> (64 - offset))
    }
}

/// Limb `i` of [`TWO_OVER_PI_BITS`], zero past its end.
const fn two_over_pi_limb(i: usize) -> u64 {
    if i < TWO_OVER_PI_BITS.len() {
        TWO_OVER_PI_BITS[i]
    } else {
        0
    }
}

/// Adds (or subtracts) `m 2^e * 2/pi * 2^(64 L)` modulo `2^(64 (L+1))` to the big-endian
/// fixed-point accumulator `acc` of `L + 1` limbs.
pub(crate) fn accumulate_word(acc: &mut [u64], negative: bool, m: u64, e: i32) {
    let limbs = acc.len() - 1;
    let t = e as i64 + 64 * limbs as i64;
    if t < -128 {
        return; // contributes less than 2^-(64 L) in total
    }
    let j0 = t - 64 * (limbs as i64 + 1) + 1;
    let window_limbs = limbs + 3;
    let mut window = [0u64; MAX_WINDOW_LIMBS];
    for (k, w) in window[..window_limbs].iter_mut().enumerate() {
        *w = two_over_pi_bits(j0 + 64 * k as i64);
    }
    // product = m * window, window_limbs + 1 limbs, big-endian.
    let mut product = [0u64; MAX_WINDOW_LIMBS + 1];
    let mut carry = 0u128;
    for k in (0..window_limbs).rev() {
        let v = (m as u128) * (window[k] as u128) + carry;
        product[k + 1] = v as u64;
        carry = v >> 64;
    }
    product[0] = carry as u64;
    // Drop the two guard limbs (>> 128) and the limb above 2^(64 (L+1)).
    let term = &product[1..limbs + 2];
    let mut borrow_or_carry = false;
    for k in (0..=limbs).rev() {
        if negative {
            let (d, b1) = acc[k].overflowing_sub(term[k]);
            let (d, b2) = d.overflowing_sub(borrow_or_carry as u64);
            acc[k] = d;
            borrow_or_carry = b1 || b2;
        } else {
            let (s, c1) = acc[k].overflowing_add(term[k]);
            let (s, c2) = s.overflowing_add(borrow_or_carry as u64);
            acc[k] = s;
            borrow_or_carry = c1 || c2;
        }
    }
}

/// The fraction `f 2^k` (`f` as limbs, magnitude, `|f| <= 1/2`) in the type, via exact 16-bit
/// chunks.
fn fraction_to_multi<T: MultiFloat>(limbs: &[u64], k: i32) -> T {
    let mut sum = T::zero();
    for (i, &limb) in limbs.iter().enumerate().rev() {
        for c in 0..4 {
            let chunk = (limb >> (16 * c)) & 0xffff;
            if chunk != 0 {
                let e = 16 * c - 64 * (i as i32 + 1) + k;
                sum = sum.add_base(T::Base::from_i64(chunk as i64).scalbn(e));
            }
        }
    }
    sum
}

/// Reduces `x` to `r = x - q pi/2` with `|r| <= pi/4` (to within rounding); returns
/// `(r, q mod 4)`. Exact up to the final rounding of `r` for all finite `x` (Payne–Hanek).
pub fn reduce_half_pi<T: MultiFloat>(x: T) -> (T, i32) {
    let (r, q, k) = reduce_half_pi_scaled(x);
    (if k == 0 { r } else { r.ldexp(-k) }, q)
}

/// Below this the trailing words of a reduced argument would leave the exponent range (the
/// threshold under which the crate's bounds are not claimed, `2^(MIN_EXP + WORDS p)`): reduced
/// arguments under it are returned scaled.
fn tiny_reduced_exponent<T: MultiFloat>() -> i32 {
    T::Base::MIN_EXP + (T::WORDS as i32) * T::Base::MANTISSA_DIGITS as i32
}

/// [`reduce_half_pi`] returning `(r 2^k, q mod 4, k)`: `k = 0` unless `|r|` is below
/// `2^(MIN_EXP + WORDS p)`, where `r 2^k` is about 1 so that no word of it underflows (tan near
/// its poles needs all of `r`: `tan x = -1/tan r`).
pub(crate) fn reduce_half_pi_scaled<T: MultiFloat>(x: T) -> (T, i32, i32) {
    let pi_4 = T::Base::const_words(Constant::Pi4)[0];
    if x.is_nan() || x.hi().abs() <= pi_4 {
        return (x, 0, 0);
    }
    let limbs = fraction_limbs::<T>();
    let mut acc_words = [0u64; MAX_FRACTION_LIMBS + 1];
    let acc = &mut acc_words[..limbs + 1];
    for w in x.to_words().iter().take(T::WORDS) {
        let (negative, m, e) = w.decompose();
        if m != 0 {
            accumulate_word(acc, negative, m, e);
        }
    }
    let mut quadrant = acc[0];
    let mut fraction_words = [0u64; MAX_FRACTION_LIMBS];
    let fraction = &mut fraction_words[..limbs];
    fraction.copy_from_slice(&acc[1..]);
    let negative = fraction[0] >> 63 == 1;
    if negative {
        // Round to the nearest integer: fraction - 1, magnitude = 2^(64 L) - fraction.
        quadrant = quadrant.wrapping_add(1);
        let mut borrow = true;
        for limb in fraction.iter_mut().rev() {
            let (v, b) = (!*limb).overflowing_add(borrow as u64);
            *limb = v;
            borrow = b;
        }
    }
    // Leading zero bits of the fraction: |f| < 2^-zeros, |r| < 2^(1 - zeros).
    let zeros = fraction
        .iter()
        .position(|&l| l != 0)
        .map_or(64 * limbs as i32, |i| {
            64 * i as i32 + fraction[i].leading_zeros() as i32
        });
    let k = if 1 - zeros < tiny_reduced_exponent::<T>() {
        zeros
    } else {
        0
    };
    let f = fraction_to_multi::<T>(fraction, k);
    let r = f * T::constant(Constant::Pi2);
    ((if negative { -r } else { r }), (quadrant & 3) as i32, k)
}

/// Bound on the reduced argument of the sine and cosine series, with margin.
const SINCOS_BOUND: f64 = core::f64::consts::FRAC_PI_4 * 1.001;

/// The `n` of `sincos_reduced` and `sincos_reduced_wide` for `T`: the highest odd/even
/// orders `2n + 1` / `2n` of the series, with a negligible next term (public for the kernels'
/// constants, crates/tmd-kernels).
pub const fn sincos_terms<T: MultiFloat>() -> usize {
    taylor_terms(SINCOS_BOUND, T::PRECISION, 1, 2).div_ceil(2)
}

/// `(sin r, cos r)` for `|r| <= pi/4 (1 + 2^-20)`, Taylor series in Horner form in `r^2`.
pub(crate) fn sincos_reduced<T: MultiFloat>(r: T) -> (T, T) {
    let z = r.square();
    // Highest odd/even orders 2N+1 / 2N with a negligible next term.
    let n = const { sincos_terms::<T>() };
    let mut s = inv_factorial::<T>(2 * n + 1, n % 2 == 1);
    let mut c = inv_factorial::<T>(2 * n, n % 2 == 1);
    for k in (0..n).rev() {
        s = s * z + inv_factorial::<T>(2 * k + 1, k % 2 == 1);
        c = c * z + inv_factorial::<T>(2 * k, k % 2 == 1);
    }
    (r * s, c)
}

/// Special cases shared by sin, cos, tan: NaN and infinities give NaN.
fn non_finite<T: MultiFloat>(x: T) -> Option<T> {
    if x.is_finite() {
        None
    } else {
        Some(T::from_base(T::Base::NAN))
    }
}

/// `(sin x, cos x)`.
pub fn sincos<T: MultiFloat>(x: T) -> (T, T) {
    if let Some(nan) = non_finite(x) {
        return (nan, nan);
    }
    if x.is_zero() {
        return (x, T::one());
    }
    let (r, q) = reduce_half_pi(x);
    let (s, c) = sincos_reduced(r);
    match q {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// `sin x`.
pub fn sin<T: MultiFloat>(x: T) -> T {
    sincos(x).0
}

/// `cos x`.
pub fn cos<T: MultiFloat>(x: T) -> T {
    sincos(x).1
}

/// `(sin r, cos r)` in the wide type [`MultiFloat::Wide`] for a wide `|r| <= pi/4 (1 + 2^-20)`:
/// the Taylor polynomials in `r^2` beyond the terms `r^3/6` and `r^4/24` are evaluated in `T`,
/// the leading terms in `T::Wide`, so that for double words the rounding errors of `T` are
/// damped by at least `r^2/6 < 0.11`.
fn sincos_reduced_wide<T: MultiFloat>(r: T::Wide) -> (T::Wide, T::Wide) {
    let zw = r.square();
    let z = T::narrow(zw);
    let n = const { sincos_terms::<T>() };
    let mut s = inv_factorial::<T>(2 * n + 1, n % 2 == 1);
    let mut c = inv_factorial::<T>(2 * n, n % 2 == 1);
    for k in (2..n).rev() {
        s = s * z + inv_factorial::<T>(2 * k + 1, k % 2 == 1);
        c = c * z + inv_factorial::<T>(2 * k, k % 2 == 1);
    }
    // s = -1/6 + z/120 - ..., c = 1/24 - z/720 + ...
    let s = s * z + inv_factorial::<T>(3, true);
    let sin = r + r * zw * s.widen();
    let half = T::Wide::from_base(T::Base::ONE.scalbn(-1));
    let cos = T::Wide::one() + zw * (zw * c.widen() - half);
    (sin, cos)
}

/// `tan x = sin x / cos x`: reduction, series and division in the wide type
/// [`MultiFloat::Wide`], rounded once to `T`.
pub fn tan<T: MultiFloat>(x: T) -> T {
    if let Some(nan) = non_finite(x) {
        return nan;
    }
    if x.is_zero() {
        return x;
    }
    let (r_scaled, q, k) = reduce_half_pi_scaled(x.widen());
    if k != 0 && q % 2 == 1 {
        // Near a pole, with r = r_scaled 2^-k too small for its trailing words:
        // -1/tan r = -(1/r)(1 - r^2/3 - r^4/45 ...), where r^4 is below the precision.
        let inv = T::Wide::one() / r_scaled;
        let r2 = r_scaled.square().ldexp(-2 * k);
        let third = T::Wide::one() / T::Wide::from_base(T::Base::from_i64(3));
        return T::narrow(-(inv - inv * r2 * third).ldexp(k));
    }
    let r = if k == 0 { r_scaled } else { r_scaled.ldexp(-k) };
    let (s, c) = sincos_reduced_wide::<T>(r);
    if q % 2 == 0 {
        T::narrow(s / c)
    } else {
        T::narrow(-(c / s))
    }
}

/// `atan x` for `|x| <= 1`: Newton steps `z += cos z (x cos z - sin z)` from the base format's
/// arctangent (`approx_atan`, the crate's own `base::textbook_atan`, which the kernels
/// reproduce bit for bit) (one step for double words, two for quad words).
fn atan_unit<T: MultiFloat>(x: T) -> T {
    let mut z = T::from_base(x.hi().approx_atan());
    let steps = if T::WORDS == 2 { 1 } else { 2 };
    for _ in 0..steps {
        let (s, c) = sincos_reduced(z);
        z = z + c * (x * c - s);
    }
    z
}

/// `atan x`; `atan(±inf) = ±pi/2`.
pub fn atan<T: MultiFloat>(x: T) -> T {
    if x.is_nan() || x.is_zero() {
        return x;
    }
    let half_pi = T::constant(Constant::Pi2);
    let signed_half_pi = if x.is_sign_negative() {
        -half_pi
    } else {
        half_pi
    };
    if x.is_infinite() {
        return signed_half_pi;
    }
    if x.hi().abs() > T::Base::ONE {
        signed_half_pi - atan_unit(x.recip())
    } else {
        atan_unit(x)
    }
}
