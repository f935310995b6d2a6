//! Elementary functions, written once over [`MultiFloat`] for all four types.
//!
//! * `exp`, `expm1`: Cody–Waite reduction `x = k ln2 + r` with a multi-word `ln 2` whose
//!   products `k ln2_i` are exact (Fast2Mult), then `r / 2^m`, a Taylor series for `expm1` in
//!   Horner form with multi-word coefficients `1/j!`, and `m` doublings `e <- 2e + e^2` that stay
//!   in the `expm1` form (no cancellation), finally `2^k (1 + e)`.
//! * `log`, `log1p`: `x = 2^k m`, `m` in `[1/sqrt2, sqrt2]`, Newton iteration
//!   `y <- y + (m e^-y - 1)` written as `y + (m expm1(-y) + (m - 1))` so that the correction is
//!   computed with relative (not absolute) accuracy near `m = 1`; the start value comes from the
//!   base format's `log1p` (the crate's own [`crate::base::textbook_ln_1p`], so that kernels
//!   reproduce it), and one (double word) or two (quad word) steps reach full precision.
//! * `sin`, `cos`, `tan`: Payne–Hanek reduction by `pi/2` with an integer table of 2/pi bits
//!   (exact for every finite argument, see [`reduce_half_pi`]), then Taylor series on `[-pi/4, pi/4]`.
//! * `atan`: Newton iteration on `tan` using `sin`/`cos`, `atan x = ±pi/2 - atan(1/x)` for `|x|>1`.
//! * `sinh`, `cosh`, `tanh`: from `expm1`/`exp` in forms without cancellation.
//!
//! For double words, `expm1` (hence `sinh`, `tanh`) and `tan` run their reduction, the leading
//! series terms, the reconstruction `2^k (1 + e) - 1 = (2^k - 1) + 2^k e` and the final division
//! in [`MultiFloat::Wide`] (the quad word over the same base format) and round once at the end;
//! only the Taylor tail, whose rounding errors are damped by `t^2/2` or `r^2/6`, stays in the
//! double word. For quad words `Wide` is the type itself.
//!
//! [`binary32_trig`] is apart: sin, cos and tan of binary32 arguments in plain binary64, with an
//! exact integer reduction and a proven bound, for the per-input checks of searches and crunch.
//!
//! The accuracy of each function is stated on the inherent methods and checked by the tests.

pub mod binary32_trig;
pub mod dd_exp;
pub mod dd_log;
pub mod dd_trig;
mod double_word_functions;
mod exp_log;
mod hyperbolic;
pub(crate) mod trig;

pub use double_word_functions::DoubleWordFunctions;

pub use exp_log::{
    exp, exp_limits, expm1, expm1_minus_one_below, expm1_small_terms, halvings as exp_halvings,
    log, log1p, log_newton_steps,
};
pub use hyperbolic::{cosh, half_overflow, sinh, tanh, tanh_one_above};
pub use trig::{atan, cos, reduce_half_pi, sin, sincos, sincos_terms, tan};

use crate::base::{BaseFloat, Constant};
use crate::eft::two_prod;
use crate::multi::MultiFloat;

/// Smallest `n >= first` (in steps of `step`) with `bound^n / n! < 2^-(precision + 8)`: Taylor
/// terms needed for arguments of magnitude at most `bound`. A `const fn` so that callers
/// evaluate it at compile time (`const { .. }`): the term count is a property of the type, not
/// of the argument, and computing it per call cost more than the series itself.
pub(crate) const fn taylor_terms(bound: f64, precision: u32, step: usize, first: usize) -> usize {
    // 2^-(precision + 8) built from its bits (precision <= 212, so it is a normal f64).
    let target = f64::from_bits(((1023 - precision as u64 - 8) & 0x7ff) << 52);
    let mut n = 0;
    let mut term = 1.0; // bound^n / n!
    loop {
        if n >= first && (n - first).is_multiple_of(step) && term < target {
            return n;
        }
        n += 1;
        term = term * bound / n as f64;
    }
}

/// `±1/j!` as a multi-word constant.
pub(crate) fn inv_factorial<T: MultiFloat>(j: usize, negative: bool) -> T {
    let c = T::constant(Constant::InvFactorial(j));
    if negative {
        -c
    } else {
        c
    }
}

/// `k * c` for a base-float integer `k` and a multi-word constant `c` given by its expansion
/// words, with every partial product exact; uses `words` words of the expansion.
pub(crate) fn times_constant<T: MultiFloat>(k: T::Base, c: Constant, words: usize) -> T {
    let expansion = T::Base::const_words(c);
    let mut acc = T::zero();
    for &w in expansion.iter().take(words).rev() {
        let (p, e) = two_prod(k, w);
        acc = acc + T::from_two(p, e);
    }
    acc
}

/// Cody–Waite subtraction `x - k c`: the exact products `k c_i` of the expansion words are
/// subtracted most significant first, so that the cancellation happens before any rounding
/// and the result has a small error relative to itself.
pub(crate) fn minus_multiple<T: MultiFloat>(x: T, k: T::Base, c: Constant, words: usize) -> T {
    let mut r = x;
    for &w in T::Base::const_words(c).iter().take(words) {
        let (p, e) = two_prod(k, w);
        r = r - T::from_two(p, e);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::taylor_terms;

    /// The definition, evaluated with logarithms as it was before `taylor_terms` became a
    /// `const fn`: the product form must give the same counts, or the kernels' constants and
    /// the accuracy tables would silently change.
    fn taylor_terms_by_logs(bound: f64, precision: u32, step: usize, first: usize) -> usize {
        let target = -(precision as f64 + 8.0);
        let mut n = first;
        loop {
            let mut log_term = n as f64 * libm::log2(bound);
            for j in 2..=n {
                log_term -= libm::log2(j as f64);
            }
            if log_term < target {
                return n;
            }
            n += step;
        }
    }

    #[test]
    fn taylor_terms_product_form_equals_log_form() {
        let bounds = [
            0.3466 / 8.0,
            0.3466 / 32.0,
            core::f64::consts::FRAC_PI_4 * 1.001,
            0.5,
            0.01,
        ];
        for &bound in &bounds {
            for precision in 20..=220 {
                for (step, first) in [(1, 2), (2, 1), (1, 0)] {
                    assert_eq!(
                        taylor_terms(bound, precision, step, first),
                        taylor_terms_by_logs(bound, precision, step, first),
                        "bound {bound} precision {precision} step {step} first {first}"
                    );
                }
            }
        }
    }
}
