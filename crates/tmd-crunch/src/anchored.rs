//! References anchored at an exact value: `f(x) = anchor + lo` next to 0, where f(x) lies a
//! hair from 1 (exp, exp2, exp10, cos, cosh) or from x itself (sin, tan, sinh, tanh, asin,
//! asinh, atan, atanh, expm1, log1p).
//!
//! There f(x) is within far less than an ulp of a number of the format (1, or x), a
//! breakpoint of the directed modes. A reference with a relative bound `eps |f|` cannot tell
//! which side of it f lies on once `|f - anchor| < eps |f|`: the binary64 value of expf(2^-60)
//! is 1, and so is every binary32 input below 2^-53 in magnitude, so in a directed mode each
//! of them went to MPFR (half of all binary32 inputs for sin and tan, whose breakpoint x is
//! the input itself). Here the reference is the pair `(anchor, lo)` with `lo` computed with a
//! bound relative to `lo` itself, so the margin shrinks with the distance to the breakpoint.
//!
//! `lo` is, with `rel` its relative bound (docs/error-analysis.md §16):
//! * exp: `expm1(x)`; exp2, exp10: `expm1(x ln b)`; cos: `-2 sin(x/2)^2`; cosh:
//!   `2 sinh(x/2)^2`, each from the `libm` crate's binary64 functions;
//! * the others: the first two terms of the Taylor series of `f(x) - x` (odd functions:
//!   `x^3 (c1 + c2 x^2)`; expm1, log1p: `x^2 (c1 + x (c2 + c3 x))`).
//!
//! They serve for `2^-300 <= |x| < 2^-20` (no product underflows there, and the series'
//! truncation is below 2^-59 relative), only for inputs the first reference leaves undecided,
//! and only where their bound `eps = 2 rel |lo| / |anchor|` is at least as tight as that
//! reference's (`crate::analysis::classify`).
//!
//! Far from 0, tanh(x) and expm1(x) for x < 0 approach ±1 and -1 from inside, so there too
//! every directed mode asked which side of ±1 f lies on. For `1 <= |x| <= 350` (tanh) and
//! `-700 <= x <= -1` (expm1) the pair is `(±1, lo)` with `lo = ∓2t / (1 + t)`, `t = e^-2|x|`,
//! and `lo = e^x`; beyond, `|f| = 1 - δ` with `0 < δ < 2^-1000`, which [`saturated_at_one`]
//! states without a value: the side is all a verdict needs there. erf approaches ±1 and erfc
//! approaches 2 (for x < 0) the same way: for `1 <= |x| <= 26.3` the pairs are
//! `(±1, ∓erfc|x|)` and `(2, -erfc(-x))`, beyond `f = anchor (1 - δ)` again. Next to 0, erfc
//! lies a hair from 1: the pair `(1, -erf x)`. The same holds for
//! `0 < |x| < 2^-300` next to 0, where f - anchor is far below any ulp and has the sign of
//! its series' first term ([`beside_anchor`]).

use crate::function::outside_crunch;
use tmd_core::registry::Func;

/// Inputs below this magnitude (and above [`SMALLEST`]) have an anchored reference.
pub const LARGEST: f64 = 1.0 / (1u64 << 20) as f64;
/// `2^-300`: above it no power or product of x used here underflows.
pub const SMALLEST: f64 = f64::from_bits((1023 - 300) << 52);

/// `2^-k`.
const fn two_to_minus(k: u32) -> f64 {
    1.0 / (1u64 << k) as f64
}

/// The anchored reference of `func` at `x`: `(anchor, lo, eps)` with
/// `|f(x) - (anchor + lo)| <= eps |anchor|`; `None` outside `[SMALLEST, LARGEST)` or for a
/// function without one.
pub fn anchored(func: Func, x: f64) -> Option<(f64, f64, f64)> {
    let (anchor, lo, rel) = if (SMALLEST..LARGEST).contains(&x.abs()) {
        anchor_and_correction(func, x)?
    } else {
        one_and_correction(func, x)?
    };
    Some((anchor, lo, 2.0 * rel * lo.abs() / anchor.abs()))
}

/// Largest |x| of tanh's pair at ±1 (and -x of expm1's at -1 is twice it): e^-700 > 2^-1010
/// keeps `t` and `lo` normal.
const TANH_PAIR_UNTIL: f64 = 350.0;

/// Largest |x| of the pairs of erf at ±1 and erfc at 2: erfc(26.3) > 2^-1004 is normal, and
/// beyond it erfc(x) < 2^-1003, so that `δ = erfc|x|` (erf) and `erfc(-x)/2` (erfc) are below
/// 2^-1000.
const ERF_PAIR_UNTIL: f64 = 26.3;

/// The relative bound of the `libm` crate's erf and erfc (measured up to 3.5 units of 2^-53
/// against MPFR, docs/error-analysis.md §17.5).
const ERF_REL: f64 = two_to_minus(48);

/// `(±1, lo, rel)` with `|f(x) - anchor - lo| <= rel |f(x) - anchor|`, where f(x) is a
/// hair inside ±1 far from 0: tanh for `1 <= |x| <= 350`, expm1 for `-700 <= x <= -1`.
fn one_and_correction(func: Func, x: f64) -> Option<(f64, f64, f64)> {
    use Func::*;
    match func {
        Tanh => (1.0..=TANH_PAIR_UNTIL).contains(&x.abs()).then(|| {
            // 1 - tanh|x| = 2t / (1 + t): t within 2^-50 (the libm crate's exp), then two
            // roundings and t's error in 1 + t (docs/error-analysis.md §17).
            let t = libm::exp(-2.0 * x.abs());
            let lo = 2.0 * t / (1.0 + t);
            (x.signum(), -x.signum() * lo, two_to_minus(49))
        }),
        Expm1 => (-2.0 * TANH_PAIR_UNTIL..=-1.0)
            .contains(&x)
            .then(|| (-1.0, libm::exp(x), two_to_minus(50))),
        // erf x = sign(x) (1 - erfc|x|), erfc x = 2 - erfc(-x): lo is one libm value.
        Erf => (1.0..=ERF_PAIR_UNTIL)
            .contains(&x.abs())
            .then(|| (x.signum(), -x.signum() * libm::erfc(x.abs()), ERF_REL)),
        Erfc => (-ERF_PAIR_UNTIL..=-1.0)
            .contains(&x)
            .then(|| (2.0, -libm::erfc(-x), ERF_REL)),
        // Far from 0 they do not approach a format number from one side (or overflow, or
        // underflow to 0, which `crate::saturation` judges).
        Exp | Exp2 | Exp10 | Log | Log1p | Log2 | Log10 | Sqrt | Cbrt | Sin | Cos | Tan | Asin
        | Acos | Atan | Sinh | Cosh | Asinh | Acosh | Atanh => None,
        outside_crunch!() => None,
    }
}

/// `Some(anchor)` where f(x) = anchor·(1 - δ) with `0 < δ < 2^-1000`: tanh beyond
/// |x| = 350 (anchor the sign of x; δ = 2t / (1 + t) < 2 e^-700), expm1 below -700
/// (anchor -1; δ = e^x < e^-700), erf beyond |x| = 26.3 (anchor the sign of x;
/// δ = erfc|x|), erfc below -26.3 (anchor 2; δ = erfc(-x) / 2). f lies strictly between 0
/// and the anchor, next to the anchor.
pub fn saturated_at_one(func: Func, x: f64) -> Option<f64> {
    use Func::*;
    let beyond = |until: f64, from_below: bool| {
        x.is_finite()
            && if from_below {
                x < -until
            } else {
                x.abs() > until
            }
    };
    match func {
        Tanh => beyond(TANH_PAIR_UNTIL, false).then(|| x.signum()),
        Expm1 => beyond(2.0 * TANH_PAIR_UNTIL, true).then_some(-1.0),
        Erf => beyond(ERF_PAIR_UNTIL, false).then(|| x.signum()),
        Erfc => beyond(ERF_PAIR_UNTIL, true).then_some(2.0),
        // No pair at ±1 ([`one_and_correction`]), so nothing saturated next to one.
        Exp | Exp2 | Exp10 | Log | Log1p | Log2 | Log10 | Sqrt | Cbrt | Sin | Cos | Tan | Asin
        | Acos | Atan | Sinh | Cosh | Asinh | Acosh | Atanh => None,
        outside_crunch!() => None,
    }
}

/// `Some((anchor, above))` where f(x) lies strictly between the format number `anchor` and
/// its neighbour above it (`above`) or below it, so close to the anchor that no value can say
/// more (docs/error-analysis.md §17, "Below 2^-300"): the saturated pieces of [`saturated_at_one`] (f inside
/// ±1, on the side toward 0), and every x with `0 < |x| <` [`SMALLEST`] for the functions
/// anchored at 1 or at x, where `f - anchor` is below 2^-298 and `2^-600 |x|` respectively,
/// and has the sign of the first term of its series.
pub fn beside_anchor(func: Func, x: f64) -> Option<(f64, bool)> {
    use Func::*;
    if let Some(anchor) = saturated_at_one(func, x) {
        return Some((anchor, anchor < 0.0));
    }
    if x == 0.0 || x.is_nan() || x.abs() >= SMALLEST {
        return None;
    }
    let positive = x > 0.0;
    Some(match func {
        // e^(x ln b) - 1 has the sign of x; 1 - cos x > 0; cosh x - 1 > 0.
        Exp | Exp2 | Exp10 => (1.0, positive),
        Cos => (1.0, false),
        Cosh => (1.0, true),
        // f(x) - x = c1 x^3 (1 + ...) with c1 < 0: toward 0.
        Sin | Tanh | Asinh | Atan => (x, !positive),
        // c1 > 0: away from 0.
        Sinh | Tan | Asin | Atanh => (x, positive),
        // expm1(x) - x = x^2/2 (1 + ...) > 0, log1p(x) - x = -x^2/2 (1 + ...) < 0.
        Expm1 => (x, true),
        Log1p => (x, false),
        // erfc x - 1 = -erf x = -2x/sqrt(pi) (1 + ...): below 1 for x > 0.
        Erfc => (1.0, !positive),
        // Next to 0 f(x) is not a hair from 1 or from x: the logarithms and acosh are
        // undefined or far from both, sqrt and cbrt far from x, acos near pi/2, erf near
        // 2x/sqrt(pi).
        Log | Log2 | Log10 | Sqrt | Cbrt | Acos | Acosh | Erf => return None,
        outside_crunch!() => return None,
    })
}

/// `(anchor, lo, rel)` with `|f(x) - anchor - lo| <= rel |f(x) - anchor|` for
/// `2^-300 <= |x| < 2^-20`.
fn anchor_and_correction(func: Func, x: f64) -> Option<(f64, f64, f64)> {
    use std::f64::consts::{LN_10, LN_2};
    use Func::*;
    let x2 = x * x;
    let odd = |c1: f64, c2: f64| x2 * x * (c1 + c2 * x2);
    let series_rel = two_to_minus(50);
    Some(match func {
        Exp => (1.0, libm::expm1(x), two_to_minus(50)),
        Exp2 => (1.0, libm::expm1(x * LN_2), two_to_minus(49)),
        Exp10 => (1.0, libm::expm1(x * LN_10), two_to_minus(49)),
        Cos => {
            let s = libm::sin(x / 2.0);
            (1.0, -2.0 * (s * s), two_to_minus(48))
        }
        Cosh => {
            let s = libm::sinh(x / 2.0);
            (1.0, 2.0 * (s * s), two_to_minus(46))
        }
        Sin => (x, odd(-1.0 / 6.0, 1.0 / 120.0), series_rel),
        Sinh => (x, odd(1.0 / 6.0, 1.0 / 120.0), series_rel),
        Tan => (x, odd(1.0 / 3.0, 2.0 / 15.0), series_rel),
        Tanh => (x, odd(-1.0 / 3.0, 2.0 / 15.0), series_rel),
        Asin => (x, odd(1.0 / 6.0, 3.0 / 40.0), series_rel),
        Asinh => (x, odd(-1.0 / 6.0, 3.0 / 40.0), series_rel),
        Atan => (x, odd(-1.0 / 3.0, 1.0 / 5.0), series_rel),
        Atanh => (x, odd(1.0 / 3.0, 1.0 / 5.0), series_rel),
        Expm1 => (x, x2 * (0.5 + x * (1.0 / 6.0 + x / 24.0)), series_rel),
        Log1p => (x, x2 * (-0.5 + x * (1.0 / 3.0 - x / 4.0)), series_rel),
        // erfc x - 1 = -erf x exactly: lo is the libm value, within its own bound.
        Erfc => (1.0, -libm::erf(x), ERF_REL),
        // No anchored reference next to 0 ([`beside_anchor`] lists the anchors).
        Log | Log2 | Log10 | Sqrt | Cbrt | Acos | Acosh | Erf => return None,
        outside_crunch!() => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Float;
    use tmd_core::registry::{eval_rounded, Dir};

    const FUNCS: [Func; 16] = [
        Func::Exp,
        Func::Exp2,
        Func::Exp10,
        Func::Cos,
        Func::Cosh,
        Func::Sin,
        Func::Sinh,
        Func::Tan,
        Func::Tanh,
        Func::Asin,
        Func::Asinh,
        Func::Atan,
        Func::Atanh,
        Func::Expm1,
        Func::Log1p,
        Func::Erfc,
    ];

    /// |f - anchor - lo| / (rel |f - anchor|) by MPFR at 1400 bits (f - anchor
    /// is as small as 2^-600 relative to f): at most 1 where the stated bound holds.
    fn bound_used(func: Func, x: f64) -> f64 {
        let (anchor, lo, rel) = anchor_and_correction(func, x).unwrap();
        let (f, _) = eval_rounded(func, &Float::with_val(64, x), 1400, Dir::Nearest);
        let dist = Float::with_val(1400, &f - anchor);
        let miss = Float::with_val(1400, &dist - lo).abs();
        (miss / dist.abs()).to_f64() / rel
    }

    /// The stated relative bounds hold at the ends of the range, at powers of two and at
    /// random inputs of every binade between, both signs, checked against MPFR.
    #[test]
    fn anchored_corrections_are_within_their_stated_bounds() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x0a7c);
        for func in FUNCS {
            let mut worst = 0f64;
            for e in -300..-20 {
                let binade = 2f64.powi(e);
                for m in [1.0, 2.0 - f64::EPSILON]
                    .into_iter()
                    .chain((0..6).map(|_| rng.gen_range(1.0..2.0)))
                {
                    for x in [binade * m, -binade * m] {
                        if func == Func::Log1p && x <= -1.0 {
                            continue;
                        }
                        worst = worst.max(bound_used(func, x));
                    }
                }
            }
            assert!(worst <= 1.0, "{func:?}: {worst} of its bound");
            assert!(worst > 0.0, "{func:?}: never compared");
        }
    }

    /// The pairs at ±1 far from 0 (tanh, expm1 for x < 0, erf) and at 2 (erfc for x < 0)
    /// within their bounds, against MPFR.
    #[test]
    fn pairs_at_one_are_within_their_stated_bounds() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x0a7d);
        let mut xs = vec![1.0, 350.0, 17.5, 100.0];
        xs.extend((0..60).map(|_| rng.gen_range(1.0..350.0)));
        let mut erf_xs = vec![1.0, ERF_PAIR_UNTIL, 5.5, 26.0];
        erf_xs.extend((0..200).map(|_| rng.gen_range(1.0..ERF_PAIR_UNTIL)));
        for func in [Func::Tanh, Func::Expm1, Func::Erf, Func::Erfc] {
            let mut worst = 0f64;
            let xs = if matches!(func, Func::Erf | Func::Erfc) {
                &erf_xs
            } else {
                &xs
            };
            for &m in xs {
                let scale = if func == Func::Expm1 { 2.0 } else { 1.0 };
                for x in [scale * m, -scale * m] {
                    let Some((anchor, lo, rel)) = one_and_correction(func, x) else {
                        assert!(
                            matches!(func, Func::Expm1 | Func::Erfc) && x > 0.0,
                            "{func:?} {x}"
                        );
                        continue;
                    };
                    let (f, _) = eval_rounded(func, &Float::with_val(64, x), 1400, Dir::Nearest);
                    let dist = Float::with_val(1400, &f - anchor);
                    let miss = Float::with_val(1400, &dist - lo).abs();
                    worst = worst.max((miss / dist.abs()).to_f64() / rel);
                }
            }
            assert!(
                worst <= 1.0 && worst > 0.0,
                "{func:?}: {worst} of its bound"
            );
        }
        assert_eq!(saturated_at_one(Func::Tanh, -351.0), Some(-1.0));
        assert_eq!(saturated_at_one(Func::Tanh, 350.0), None);
        assert_eq!(saturated_at_one(Func::Expm1, -701.0), Some(-1.0));
        assert_eq!(saturated_at_one(Func::Expm1, 701.0), None);
        assert_eq!(beside_anchor(Func::Tanh, -351.0), Some((-1.0, true)));
        assert_eq!(beside_anchor(Func::Sin, -1e-300), Some((-1e-300, true)));
        assert_eq!(beside_anchor(Func::Tan, -1e-300), Some((-1e-300, false)));
        assert_eq!(beside_anchor(Func::Exp, -1e-300), Some((1.0, false)));
        assert_eq!(beside_anchor(Func::Sin, 2f64.powi(-300)), None);
        assert_eq!(beside_anchor(Func::Sin, 0.0), None);
        assert_eq!(beside_anchor(Func::Log, 1e-300), None);
        assert_eq!(saturated_at_one(Func::Erf, -26.4), Some(-1.0));
        assert_eq!(saturated_at_one(Func::Erf, 26.3), None);
        assert_eq!(saturated_at_one(Func::Erfc, -26.4), Some(2.0));
        assert_eq!(saturated_at_one(Func::Erfc, 26.4), None);
        assert_eq!(beside_anchor(Func::Erf, 30.0), Some((1.0, false)));
        assert_eq!(beside_anchor(Func::Erfc, -30.0), Some((2.0, false)));
        assert_eq!(beside_anchor(Func::Erfc, 1e-300), Some((1.0, false)));
        assert_eq!(beside_anchor(Func::Erfc, -1e-300), Some((1.0, true)));
        // Beyond the pairs, δ < 2^-1000 by MPFR (f = anchor (1 - δ)).
        for (func, x) in [
            (Func::Tanh, 350.5),
            (Func::Tanh, -400.0),
            (Func::Expm1, -700.5),
            (Func::Erf, 26.300000000000004),
            (Func::Erf, -40.0),
            (Func::Erfc, -26.300000000000004),
            (Func::Erfc, -40.0),
        ] {
            let (f, _) = eval_rounded(func, &Float::with_val(64, x), 4000, Dir::Nearest);
            let anchor = saturated_at_one(func, x).expect("saturated beyond the pair");
            let delta = Float::with_val(4000, 1u32 - f / anchor);
            assert!(
                delta > 0 && delta < Float::with_val(2, 1) >> 1000,
                "{func:?} {x}"
            );
        }
    }

    #[test]
    fn anchored_references_cover_only_their_range() {
        assert!(anchored(Func::Sin, 0.0).is_none());
        assert!(anchored(Func::Sin, LARGEST).is_none());
        assert!(anchored(Func::Sin, SMALLEST / 2.0).is_none());
        assert!(anchored(Func::Log, 1e-10).is_none());
        assert!(anchored(Func::Sin, 2.0).is_none());
        let (anchor, lo, eps) = anchored(Func::Exp, -1e-10).unwrap();
        assert_eq!(anchor, 1.0);
        assert!(lo < 0.0 && eps < 1e-24, "{lo} {eps}");
        assert_eq!(SMALLEST, 2f64.powi(-300));
    }
}
