//! The error of one input: a fast decision from the reference's value and bound, or an exact
//! one with MPFR where the bound does not decide.
//!
//! Definitions (docs/crunch.md, "Definitions"): for an input x with exact value f = f(x) and the target's
//! result a, `err = |a - f| / ulp(f)` with `ulp(f) = 2^(max(e, emin) - p + 1)` for
//! `2^e <= |f| < 2^(e+1)` (the subnormal quantum below `2^emin`). For a target run under mode
//! m ([`Rounding`]), `a` is *correctly rounded* when it equals ∘m(f) (RN ties-to-even, RU, RD,
//! RZ), *faithful* when it is RD(f) or RU(f) but not ∘m(f), *worse* otherwise. Results that
//! cannot have a finite error are classes of their own ([`Special`]): f undefined (NaN), f
//! infinite (pole), RN(f) infinite (overflow), a NaN or infinite where RN(f) is finite. Which
//! inputs fall in a special class does not depend on m; the class within it does. Zeros are
//! compared by value. Directed modes: docs/error-analysis.md §12.
//!
//! The fast path knows `f` only as `r = rh + rl` with `|f - r| <= eps |rh|`. Every decision it
//! makes holds for every value in that interval, with the rounding errors of its own f64
//! arithmetic added to the margin; otherwise it returns `None` and [`classify_exact`] decides
//! with f computed by MPFR at 256 bits (worst cases of these functions are far from 2^-200 of
//! a breakpoint, and exact values are recognised by MPFR's ternary value). Decisions
//! (correctly rounded / faithful / worse, the class, the histogram bin) are therefore exact;
//! the error value itself is within `tol` ulps (at most 2^-23 for binary32, 2^-42 for binary64
//! with a double-double reference, 2^-24 for binary64 exp decided by its 2^-78 first reference,
//! `crate::fast_exp`), and the reported maximum is recomputed exactly (see `crate::summary`).

use crate::format::{exponent, pow2, CrunchFormat, IeeeFormat};
use crate::function::RefFunc;
use crate::rounding::Rounding;
use rug::Float;
use serde::{Deserialize, Serialize};
use tmd_core::registry::Saturates;

/// How a result compares with the correct roundings of f(x).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Class {
    CorrectlyRounded,
    Faithful,
    Worse,
}

/// Inputs whose exact value or result is not an ordinary finite number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Special {
    /// An ordinary finite result.
    None,
    /// f(x) is a non-zero number below the smallest normal number.
    Subnormal,
    /// f(x) is NaN (x outside the domain).
    NanExpected,
    /// The result is NaN where f(x) is a number.
    NanSpurious,
    /// f(x) is infinite (a pole).
    Pole,
    /// f(x) is finite but RN(f(x)) is infinite.
    Overflow,
    /// The result is infinite where RN(f(x)) is finite.
    InfSpurious,
}

/// The verdict on one input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub class: Class,
    /// The error in ulps; `None` for the special classes other than `Subnormal`.
    pub err: Option<f64>,
    pub special: Special,
}

/// Bound (in ulps) on `|fast error - exact error|` for a fast error `err`: at most
/// `2 eps |f| / ulp + 2^-51 err` from [`classify_fast`]'s margin, where `|f| / ulp < 2^p`:
/// `2^-23` for binary32 (`eps <= 2^-48`, p = 24), `2^-42` for binary64 (`eps = 2^-96`,
/// p = 53), `2^-24` for binary64 exp's first reference (`eps = 2^-78`), and `2^-24` in the
/// power-of-two case of `classify_fast`.
pub fn fast_error_tolerance(err: f64) -> f64 {
    1.0 / (1u64 << 23) as f64 + err / (1u64 << 50) as f64
}

/// The window below the maximum fast error within which an input may hold the true maximum:
/// twice the tolerance.
pub fn near_max_window(max: f64) -> f64 {
    2.0 * fast_error_tolerance(max)
}

/// Fast decision for a finite result `a` of the format judged in mode `mode`, from the
/// reference value `rh + rl` with relative bound `eps`. `None` when the bound does not decide.
pub fn classify_fast<F: IeeeFormat>(
    fmt: F,
    a: f64,
    rh: f64,
    rl: f64,
    eps: f64,
    mode: Rounding,
) -> Option<Verdict> {
    let mag = rh.abs();
    // Below 2^-960 the double-double reference loses its relative bound (its low word
    // underflows); near the overflow threshold the rounding to the format needs care.
    if !(a.is_finite() && rh.is_finite() && mag > pow2(-960) && mag < fmt.max_finite() * 0.5) {
        return None;
    }
    let slack = 2.0 * eps * mag + rl.abs();
    let p = fmt.precision();
    let e = match binade(rh, rl, 2.0 * eps * mag) {
        Ok(e) => e,
        // f may lie on either side of a power of two 2^k (or on it): under a directed mode
        // that side is the whole question when a is that power, so MPFR decides.
        Err(k) if mode == Rounding::Nearest => {
            return power_of_two_nearest(fmt, a, rh, rl, slack, k)
        }
        Err(_) => return None,
    };
    let ulp = pow2(e.max(fmt.emin()) - p + 1);
    let d = (rh - a) + rl; // f - a, up to the margin below
    let tol_abs = 2.0 * eps * mag + d.abs() * (2.0 * f64::EPSILON);
    let err = d.abs() / ulp;
    let tol = tol_abs / ulp;
    let class = match mode.rounds_down(rh > 0.0) {
        None if err < 0.5 - tol => Class::CorrectlyRounded,
        // Beyond a's neighbour n, a is neither RD(f) nor RU(f), whatever the error (f = 1 +
        // 2^-80 is 1/2 + 2^-28 ulp from 1 - 2^-53). Strictly between them the gap is ulp(f),
        // so a is RN(f) exactly when the error is below 1/2: a tie or a hair from one is
        // MPFR's.
        None => match side_of_neighbour(fmt, a, (rh, rl), 2.0 * eps * mag)? {
            (_, true) => Class::Worse,
            (_, false) if err > 0.5 + tol => Class::Faithful,
            (_, false) => return None,
        },
        Some(rounds_down) => {
            let (f_above, beyond_neighbour) = side_of_neighbour(fmt, a, (rh, rl), 2.0 * eps * mag)?;
            if beyond_neighbour {
                Class::Worse
            } else if f_above == rounds_down {
                // f lies strictly between a and its neighbour: a is RD(f) when f is above
                // it, RU(f) when below, and the mode asks for that one.
                Class::CorrectlyRounded
            } else {
                Class::Faithful
            }
        }
    };
    let err = if class == Class::CorrectlyRounded {
        err
    } else {
        binned_error(err, tol, a, (rh, rl, d), 2.0 * eps * mag, ulp)?
    };
    let special = if e < fmt.emin() {
        Special::Subnormal
    } else {
        Special::None
    };
    Some(Verdict {
        class,
        err: Some(err),
        special,
    })
}

/// The error `err` (within `tol` of the truth, `|f - a| / ulp` with f = rh + rl within
/// `ref_err`, computed from `d = (rh - a) + rl`) moved into the histogram bin of the truth, or `None` where that bin is not
/// certain.
///
/// Bin edges are errors `2^j`, so an error within `tol` of an edge is the common case of an
/// error of "an integer minus a hair": f within a hair of a format number b one or more ulps
/// from a (a directed mode's wrong neighbour of f = 1 + 2^-60, f64 sums rounding `1 - 2^-37`
/// up to 1). Which side of the edge the truth lies on is the side of f against
/// `b = a + sign(f - a) 2^j ulp`: `|f - a| >= 2^j ulp` exactly when f is on b's far side from
/// a. b is computed exactly (checked) and the side is [`sign_beyond`]'s, with its margin. The
/// returned value is err, or the largest f64 below the edge where err rounded up onto it; both
/// are within `tol` of the truth.
fn binned_error(
    err: f64,
    tol: f64,
    a: f64,
    (rh, rl, d): (f64, f64, f64),
    ref_err: f64,
    ulp: f64,
) -> Option<f64> {
    let (below, above) = (histogram_bin_of(err - tol), histogram_bin_of(err + tol));
    if below == above {
        return Some(err);
    }
    if above != below + 1 {
        return None;
    }
    // The edge between the two bins: bin k >= 2 starts at 2^(k-2).
    let edge = pow2(above as i32 - 2);
    let towards = sign_beyond(d, ref_err)?;
    let step = if towards { edge * ulp } else { -edge * ulp };
    let b = a + step;
    // Knuth's TwoSum: the rounding error of a + step, zero exactly when b is the exact sum.
    let step_taken = b - a;
    let rounding = (a - (b - step_taken)) + (step - step_taken);
    if rounding != 0.0 || !b.is_finite() {
        return None;
    }
    // f beyond b, seen from a: f - b has the sign of f - a.
    let beyond = sign_beyond((rh - b) + rl, ref_err)? == towards;
    Some(match (beyond, err >= edge) {
        (true, true) | (false, false) => err,
        (true, false) => edge,
        (false, true) => edge * (1.0 - f64::EPSILON / 2.0),
    })
}

/// floor(log2 |f|) for f = rh + rl known within `ref_err` (`2 eps |rh|`), or `Err(k)` when |f|
/// may lie on either side of 2^k. The sides of 2^e and 2^(e+1), e = floor(log2 |rh|), are the
/// signs of `(|rh| - 2^k) + sign(rh) rl`, whose first difference is exact (a multiple of
/// rh's ulp below 2^e) ([`sign_beyond`]); f is within a tiny relative distance of rh, so
/// those two sides place it. (Subtracting the margin from |rh| instead would round back to
/// 2^e where f lies a hair below it, and take the wrong ulp.)
fn binade(rh: f64, rl: f64, ref_err: f64) -> Result<i32, i32> {
    let (mag, e) = (rh.abs(), exponent(rh));
    let side = |k: i32| sign_beyond((mag - pow2(k)) + rh.signum() * rl, ref_err);
    match (side(e), side(e + 1)) {
        (Some(false), _) => Ok(e - 1),
        (Some(true), Some(false)) => Ok(e),
        (_, Some(true)) => Ok(e + 1),
        (None, _) => Err(e),
        (_, None) => Err(e + 1),
    }
}

/// Where f = rh + rl (within `ref_err`) lies against a and against a's neighbour n on f's
/// side (docs/error-analysis.md §12.2): `(f > a, f strictly beyond n)`, the latter false when
/// f lies strictly between a and n. `None` when a sign is not certain (f may equal a or n: an
/// exact result, for MPFR) or a has no neighbour there.
fn side_of_neighbour<F: IeeeFormat>(
    fmt: F,
    a: f64,
    (rh, rl): (f64, f64),
    ref_err: f64,
) -> Option<(bool, bool)> {
    let f_above = sign_beyond((rh - a) + rl, ref_err)?;
    let neighbour = fmt.neighbour(a, f_above)?;
    let beyond = sign_beyond((rh - neighbour) + rl, ref_err)? == f_above;
    Some((f_above, beyond))
}

/// Whether `f - b > 0` where `t` is `f - b` computed as `(rh - b) + rl`, `ref_err` the
/// reference's bound `2 eps |rh|`: the margin adds the two f64 roundings of `t`. `None` when
/// f may equal b (an exact result: MPFR decides) or the sign is not certain. The directed
/// modes ask only such signs, against a and against its neighbour, each with its own margin:
/// the far side's distance taken as `gap - |d|` would carry the margin of `|d|`, and a tiny f
/// next to a result of the smallest subnormal (expf(-200) rounded up) would never be decided.
fn sign_beyond(t: f64, ref_err: f64) -> Option<bool> {
    let margin = ref_err + t.abs() * (2.0 * f64::EPSILON);
    (t.abs() > margin).then_some(t > 0.0)
}

/// Round-to-nearest where f = rh + rl (within `slack`) may lie on either side of the power of
/// two 2^k, so its ulp is not known: RN(f) = ±2^k either way while the slack is below a
/// quarter of the smaller ulp (results like expf(x) = 1 for tiny x, decided here rather than
/// by MPFR). Other results need MPFR.
fn power_of_two_nearest<F: IeeeFormat>(
    fmt: F,
    a: f64,
    rh: f64,
    rl: f64,
    slack: f64,
    k: i32,
) -> Option<Verdict> {
    let ulp_below = pow2((k - 1).max(fmt.emin()) - fmt.precision() + 1);
    if a.abs() != pow2(k) || a.signum() != rh.signum() || slack > ulp_below / (1u64 << 24) as f64 {
        return None;
    }
    // f is subnormal if 2^k is (binary32 sinf(2^-149), a hair below 2^-149), and may be on
    // either side of the smallest normal number if 2^k is that number.
    let special = match k.cmp(&fmt.emin()) {
        std::cmp::Ordering::Less => Special::Subnormal,
        std::cmp::Ordering::Equal => return None,
        std::cmp::Ordering::Greater => Special::None,
    };
    // The error is below slack / ulp_below <= 2^-24 ulp: correctly rounded; its value is
    // taken with the smaller ulp, within 2^-24 of the truth whichever side f is on.
    let err = ((rh - a) + rl).abs() / ulp_below;
    Some(Verdict {
        class: Class::CorrectlyRounded,
        err: Some(err),
        special,
    })
}

/// Number of histogram bins: correctly rounded, other errors below 1 ulp, then
/// `[2^(k-2), 2^(k-1))` for `k = 2..`, the last one open-ended.
pub const HISTOGRAM_BINS: usize = 42;

/// The histogram bin of a non-correctly-rounded finite error.
pub fn histogram_bin_of(err: f64) -> usize {
    if err < 1.0 {
        1
    } else {
        ((exponent(err) + 2) as usize).min(HISTOGRAM_BINS - 1)
    }
}

/// f(x) by MPFR and its roundings to the format (finite f only).
struct Roundings {
    /// f at 256 bits, rounded to nearest.
    f: Float,
    /// floor(log2 |f|) of the exact f, `emin` for zero.
    e: i32,
    ulp_exp: i32,
    down: f64,
    up: f64,
    nearest: f64,
}

impl Roundings {
    /// ∘_mode(f).
    fn in_mode(&self, mode: Rounding) -> f64 {
        match mode.rounds_down(self.f.is_sign_positive()) {
            None => self.nearest,
            Some(true) => self.down,
            Some(false) => self.up,
        }
    }
}

/// f at 256 bits (`func.mpfr(x, 256)`, or any function's MPFR value rounded to nearest) and
/// its roundings; `Err` with the value when it is NaN or infinite.
///
/// The 256-bit value `v` may differ from the exact f (ternary value t != 0: f lies strictly
/// between v and the next 256-bit number on the side opposite to t's sign). Format numbers,
/// midpoints between them and powers of two are 256-bit numbers, so only where v is one of
/// them does that side matter: v a power of two with |f| < |v| puts f in the binade below;
/// v a format number is RU(f) (t > 0) or RD(f) (t < 0); v a midpoint rounds to nearest
/// toward f, not to even. Such v occur where f is within 2^-256 relative of a format number
/// (expm1(x) and sin(x) of tiny binary64 x, exp(x) = 1 + x).
fn roundings_of<F: IeeeFormat>(fmt: F, (f, ternary): (Float, i32)) -> Result<Roundings, Float> {
    if !f.is_finite() {
        return Err(f);
    }
    let p = fmt.precision();
    let f_below_v = ternary > 0;
    // f = q * 2^ulp_exp; rug's exponent is floor(log2|v|) + 1.
    let e = if f.is_zero() {
        fmt.emin() // MPFR rounds no non-zero value to zero: f is exactly 0
    } else {
        let e_v = f.get_exp().expect("finite non-zero") - 1;
        let magnitude_shrinks = ternary != 0 && f_below_v == f.is_sign_positive();
        let power_of_two = Float::with_val(300, f.clone().abs() >> e_v) == 1;
        e_v - i32::from(magnitude_shrinks && power_of_two)
    };
    let ulp_exp = e.max(fmt.emin()) - p + 1;
    let q = Float::with_val(300, &f >> ulp_exp);
    let (down_q, up_q, nearest_q) = if q.is_integer() {
        // v is a format number: RD and RU differ unless f = v exactly.
        let below = Float::with_val(300, &q - i32::from(f_below_v));
        let above = Float::with_val(300, &q + i32::from(ternary < 0));
        (below, above, q)
    } else {
        let (floor, ceil) = (q.clone().floor(), q.clone().ceil());
        let midpoint = Float::with_val(300, &q * 2u32).is_integer();
        let nearest = match (midpoint, ternary) {
            (true, t) if t > 0 => floor.clone(),
            (true, t) if t < 0 => ceil.clone(),
            _ => q.clone().round_even(),
        };
        (floor, ceil, nearest)
    };
    let (down, up) = (
        fmt_value(fmt, &down_q, ulp_exp),
        fmt_value(fmt, &up_q, ulp_exp),
    );
    // Beyond the largest finite number, rounding toward zero gives it (IEEE 754-2019 §7.4).
    let (down, up) = if f.is_sign_positive() {
        (down.min(fmt.max_finite()), up)
    } else {
        (down, up.max(-fmt.max_finite()))
    };
    Ok(Roundings {
        nearest: fmt_value(fmt, &nearest_q, ulp_exp),
        f,
        e,
        ulp_exp,
        down,
        up,
    })
}

/// f(x) rounded to the format in `mode` (NaN, ±inf included).
pub fn correct_rounding(func: RefFunc, fmt: CrunchFormat, x: f64, mode: Rounding) -> f64 {
    correct_rounding_of(fmt, func.mpfr(x, 256), mode)
}

/// f rounded to the format in `mode` (NaN, ±inf included), from f at 256 bits rounded to
/// nearest and its ternary value (MPFR's), for any function.
pub fn correct_rounding_of<F: IeeeFormat>(fmt: F, value: (Float, i32), mode: Rounding) -> f64 {
    match roundings_of(fmt, value) {
        Ok(r) => r.in_mode(mode),
        Err(f) => f.to_f64(),
    }
}

/// Exact decision with f computed by MPFR, for a target judged in `mode`.
pub fn classify_exact(func: RefFunc, fmt: CrunchFormat, x: f64, a: f64, mode: Rounding) -> Verdict {
    classify_exact_of(fmt, func.mpfr(x, 256), a, mode)
}

/// [`classify_exact`] from f at 256 bits rounded to nearest and its ternary value (MPFR's),
/// for any function: f NaN is an input outside the domain, f infinite a pole.
pub fn classify_exact_of<F: IeeeFormat>(
    fmt: F,
    value: (Float, i32),
    a: f64,
    mode: Rounding,
) -> Verdict {
    let verdict = |class, err, special| Verdict {
        class,
        err,
        special,
    };
    let matches = |ok: bool| {
        if ok {
            Class::CorrectlyRounded
        } else {
            Class::Worse
        }
    };
    let r = match roundings_of(fmt, value) {
        Ok(r) => r,
        Err(f) if f.is_nan() => return verdict(matches(a.is_nan()), None, Special::NanExpected),
        Err(_) if a.is_nan() => return verdict(Class::Worse, None, Special::NanSpurious),
        Err(f) => return verdict(matches(f == a), None, Special::Pole),
    };
    if a.is_nan() {
        return verdict(Class::Worse, None, Special::NanSpurious);
    }
    let class = if a == r.in_mode(mode) {
        Class::CorrectlyRounded
    } else if a == r.down || a == r.up {
        Class::Faithful
    } else {
        Class::Worse
    };
    // The special classes are sets of inputs fixed by RN(f) and a alone, the same in every
    // mode; the mode only decides the class within them.
    if r.nearest.is_infinite() {
        return verdict(class, None, Special::Overflow);
    }
    if a.is_infinite() {
        return verdict(class, None, Special::InfSpurious);
    }
    let diff = Float::with_val(300, Float::with_val(64, a) - &r.f).abs();
    // Rounded toward zero: the histogram's bin edges are powers of two, so the f64 value keeps
    // the exact error's bin (an error of 1 - 2^-60 ulp rounded to nearest would read 1).
    let err = Float::with_val(300, &diff >> r.ulp_exp).to_f64_round(rug::float::Round::Zero);
    let special = if !r.f.is_zero() && r.e < fmt.emin() {
        Special::Subnormal
    } else {
        Special::None
    };
    verdict(class, Some(err), special)
}

/// The format value `n * 2^ulp_exp` for an integer-valued `n` (|n| <= 2^p), infinite beyond
/// the largest finite number.
fn fmt_value<F: IeeeFormat>(fmt: F, n: &Float, ulp_exp: i32) -> f64 {
    let v = Float::with_val(300, n << ulp_exp).to_f64();
    if v.abs() > fmt.max_finite() {
        v.signum() * f64::INFINITY
    } else {
        v
    }
}

/// Decision for one input judged in `mode`: the fast path where the reference decides, then
/// the one of `second` (a reference computed only when the first does not decide: the
/// reference anchored at 1 or x next to 0, `crate::anchored`), MPFR otherwise. Returns the
/// verdict and whether MPFR was used.
pub fn classify(
    func: RefFunc,
    fmt: CrunchFormat,
    x: f64,
    a: f64,
    r: Reference,
    second: impl FnOnce() -> Option<(f64, f64, f64)>,
    mode: Rounding,
) -> (Verdict, bool) {
    if let Some(v) = quick_special(func, fmt, x, a, r, mode) {
        return (v, false);
    }
    if let Reference::Value { hi, lo, eps } = r {
        if let Some(v) = classify_fast(fmt, a, hi, lo, eps, mode) {
            return (v, false);
        }
    }
    if let Some((hi, lo, eps)) = second() {
        if let Some(v) = classify_fast(fmt, a, hi, lo, eps, mode) {
            return (v, false);
        }
    }
    let beside = func
        .registry()
        .and_then(|f| crate::anchored::beside_anchor(f, x));
    if let Some(v) =
        beside.and_then(|(anchor, above)| beside_anchor_verdict(fmt, anchor, above, a, mode))
    {
        return (v, false);
    }
    (classify_exact(func, fmt, x, a, mode), true)
}

/// The verdict on a result `a` where f lies strictly between the format number `anchor` and
/// its neighbour N above it (`above`) or below, closer to the anchor than 2^-200 of their gap
/// ([`crate::anchored::beside_anchor`]). The gap is the ulp of f's binade (where the anchor is
/// a power of two and N lies toward 0, f is in the binade below, whose ulp the gap is). The
/// correct result is the anchor in round-to-nearest, and in a directed mode N when the mode
/// rounds toward N's side, the anchor otherwise; the other of the two is faithful. The error
/// is |a - anchor| / gap, less or more by the hair (shown as a relative 2^-51) as a lies on
/// f's side of the anchor or not.
pub fn beside_anchor_verdict(
    fmt: CrunchFormat,
    anchor: f64,
    above: bool,
    a: f64,
    mode: Rounding,
) -> Option<Verdict> {
    if !a.is_finite() {
        return None;
    }
    let neighbour = fmt.neighbour(anchor, above)?;
    let gap = (neighbour - anchor).abs();
    let correct = match mode.rounds_down(anchor > 0.0) {
        Some(down) if down != above => neighbour,
        _ => anchor,
    };
    let class = if a == correct {
        Class::CorrectlyRounded
    } else if a == anchor || a == neighbour {
        Class::Faithful
    } else {
        Class::Worse
    };
    let d = (a - anchor) / gap;
    let on_f_side = d != 0.0 && (d > 0.0) == above;
    let err = if d == 0.0 {
        0.0
    } else if on_f_side {
        d.abs() * (1.0 - pow2(-51))
    } else {
        d.abs() * (1.0 + pow2(-51))
    };
    let subnormal = anchor.abs().max(neighbour.abs()) <= pow2(fmt.emin());
    Some(Verdict {
        class,
        err: Some(err),
        special: if subnormal {
            Special::Subnormal
        } else {
            Special::None
        },
    })
}

/// The verdict on a result `a` where RN(f) is `sign * inf` and f is finite: |f| exceeds the
/// largest finite number MAX, so RD(f) and RU(f) are ±MAX and ±inf. The one away from zero
/// (infinity) is ∘(f) in round-to-nearest and in the directed mode that rounds away for this
/// sign (up for positive f, down for negative); ±MAX in the others. The other one is faithful.
pub fn overflow_verdict<F: IeeeFormat>(fmt: F, sign: f64, a: f64, mode: Rounding) -> Verdict {
    let infinity = sign * f64::INFINITY;
    let largest = sign * fmt.max_finite();
    let away_is_correct = mode.rounds_down(sign > 0.0) != Some(sign > 0.0);
    let (correct, other) = if away_is_correct {
        (infinity, largest)
    } else {
        (largest, infinity)
    };
    let class = if a == correct {
        Class::CorrectlyRounded
    } else if a == other {
        Class::Faithful
    } else {
        Class::Worse
    };
    Verdict {
        class,
        err: None,
        special: Special::Overflow,
    }
}

/// The verdict on a result `a` where f is non-zero, of sign `sign`, and of magnitude below
/// 2^-26 times the smallest subnormal s (callers: 2^-1100 for binary64, 2^-959 for binary32):
/// RD(f) and RU(f) are 0 and `sign * s`. Zero is ∘(f) in round-to-nearest and toward zero, and
/// in the directed mode toward zero for this sign (down for positive f, up for negative);
/// `sign * s` in the other directed mode. The error of a zero result lies in (0, 2^-26) ulp,
/// reported as 0; of `sign * s` in (1 - 2^-26, 1), reported as 1 - 2^-27 (both within
/// [`fast_error_tolerance`], and in the histogram bin of the truth). `None` for other results.
pub fn tiny_result_verdict<F: IeeeFormat>(
    fmt: F,
    sign: f64,
    a: f64,
    mode: Rounding,
) -> Option<Verdict> {
    let smallest = pow2(fmt.emin() - fmt.precision() + 1);
    let zero_is_correct = mode.rounds_down(sign > 0.0) != Some(sign < 0.0);
    let (is_zero, err) = if a == 0.0 {
        (true, 0.0)
    } else if a == sign * smallest {
        (false, 1.0 - pow2(-27))
    } else {
        return None;
    };
    let class = if is_zero == zero_is_correct {
        Class::CorrectlyRounded
    } else {
        Class::Faithful
    };
    Some(Verdict {
        class,
        err: Some(err),
        special: Special::Subnormal,
    })
}

/// The fast reference's value at one input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reference {
    /// f(x) = hi + lo within `eps |hi|`.
    Value { hi: f64, lo: f64, eps: f64 },
    /// No fast reference: MPFR decides.
    None,
}

/// Classes decided without the reference's value or with a trivially safe one: f undefined
/// (the domain test is exact), a NaN result, an infinite result far from overflow, and for
/// binary32 the overflow and underflow seen by the binary64 reference.
fn quick_special(
    func: RefFunc,
    fmt: CrunchFormat,
    x: f64,
    a: f64,
    r: Reference,
    mode: Rounding,
) -> Option<Verdict> {
    if func.outside_domain(x) {
        let class = if a.is_nan() {
            Class::CorrectlyRounded
        } else {
            Class::Worse
        };
        return Some(Verdict {
            class,
            err: None,
            special: Special::NanExpected,
        });
    }
    if a.is_nan() {
        return Some(Verdict {
            class: Class::Worse,
            err: None,
            special: Special::NanSpurious,
        });
    }
    let Reference::Value { hi, .. } = r else {
        return None;
    };
    let pole_candidate = x == 0.0 || x.abs() == 1.0;
    if a.is_infinite() && hi.is_finite() && hi.abs() < fmt.max_finite() * 0.5 {
        // |f| < MAX: every mode rounds f to a finite number.
        return Some(Verdict {
            class: Class::Worse,
            err: None,
            special: Special::InfSpurious,
        });
    }
    if fmt == CrunchFormat::Binary32 && !pole_candidate {
        // The binary64 reference is within 4 of its ulps: infinite means |f| > 2^1023, far
        // beyond binary32's overflow threshold.
        let threshold = fmt.max_finite() + pow2(127 - 24); // MAX + ulp/2
        if hi.is_infinite() || hi.abs() * (1.0 - 4.0 * f64::EPSILON) > threshold {
            return Some(overflow_verdict(fmt, hi.signum(), a, mode));
        }
        if hi.abs() < pow2(-960) {
            // |f| < 2^-959 (the reference is within one of its subnormal ulps there).
            return match tiny_sign(func, hi) {
                Some(sign) => tiny_result_verdict(fmt, sign, a, mode),
                // RN(f) = 0 whatever the sign of f.
                None if a == 0.0 && mode == Rounding::Nearest => {
                    tiny_result_verdict(fmt, 1.0, a, mode)
                }
                None => None,
            };
        }
    }
    None
}

/// The sign of a non-zero f whose binary64 reference `hi` is below 2^-960: the table's fact
/// for the exp family and erfc (f(x) > 0 wherever it is that small,
/// `Saturates::OverflowAndTiny`, `Saturates::TinyAbove`), or
/// the reference's own sign where it exceeds the reference's error there (one subnormal ulp;
/// four are allowed for).
fn tiny_sign(func: RefFunc, hi: f64) -> Option<f64> {
    if matches!(
        func.facts().saturates,
        Saturates::OverflowAndTiny | Saturates::TinyAbove
    ) {
        Some(1.0)
    } else if hi.abs() > pow2(-1072) {
        Some(hi.signum())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// acosh(1 + 2^-51) = 2^-25 (1 - 2^-51/12): its double-double reference is
    /// `(2^-25, -2^-76/12)`, and `2^-25 - 2^-78` (the binary64 number below) is 2/3 ulp away,
    /// faithful. `mag - slack` rounds to 2^-25 there, which once hid the power of two below f
    /// and judged the result correctly rounded with 1/3 ulp.
    #[test]
    fn a_reference_just_below_a_power_of_two_is_not_judged_with_the_larger_ulp() {
        let nearest = Rounding::Nearest;
        let (rh, rl) = (pow2(-25), -pow2(-76) / 12.0);
        let a = pow2(-25) - pow2(-78);
        let eps = crate::function::EPS_DD;
        let below = classify_fast(CrunchFormat::Binary64, a, rh, rl, eps, nearest)
            .expect("2/3 ulp from the reference: decided fast");
        assert_eq!(below.class, Class::Faithful, "{below:?}");
        assert!((below.err.unwrap() - 2.0 / 3.0).abs() < 1e-9, "{below:?}");
        // With f within 2^-100 of 2^-25, below it, 2^-25 is correctly rounded (decided fast)
        // and the number below it is not: it is 1 - 2^-47 ulp from f, within the reference's
        // bound of 1 ulp (faithful or worse), so the fast path leaves it to MPFR.
        let rl = -pow2(-125);
        let at_power = classify_fast(CrunchFormat::Binary64, pow2(-25), rh, rl, eps, nearest)
            .expect("next to the reference: decided fast");
        assert_eq!(at_power.class, Class::CorrectlyRounded);
        assert!(at_power.err.unwrap() < pow2(-40));
        assert_eq!(
            classify_fast(CrunchFormat::Binary64, a, rh, rl, eps, nearest),
            None
        );
    }

    /// Errors of an integer number of ulps minus or plus a hair, f = 1 ± 2^-80 (the
    /// reference anchored at 1 next to 0): the f64 error rounds onto the bin edge, yet they are
    /// decided fast, in the histogram bin of the exact error, where MPFR's decision (rounded
    /// toward zero) places them too.
    #[test]
    fn errors_a_hair_from_a_bin_edge_are_binned_exactly_without_mpfr() {
        let fmt = CrunchFormat::Binary32;
        let hair = pow2(-80);
        // (f - 1, a, mode, class, bin of the exact error)
        let cases = [
            // 1 - 2^-56 ulp: RD(f) in mode up.
            (-hair, 1.0 - pow2(-24), Rounding::Up, Class::Faithful, 1),
            // 2 + 2^-56 ulp (f's ulp is 2^-24).
            (-hair, 1.0 + pow2(-23), Rounding::Up, Class::Worse, 3),
            // 2 - 2^-57 ulp (f's ulp is 2^-23).
            (hair, 1.0 + pow2(-22), Rounding::Nearest, Class::Worse, 2),
            // 1 + 2^-57 ulp.
            (hair, 1.0 - pow2(-23), Rounding::Down, Class::Worse, 2),
        ];
        for (rl, a, mode, class, bin) in cases {
            let eps = pow2(-120);
            let fast = classify_fast(fmt, a, 1.0, rl, eps, mode)
                .unwrap_or_else(|| panic!("f = 1 + {rl:e}, a = {a:e}: left to MPFR"));
            let f = Float::with_val(300, Float::with_val(300, 1) + rl);
            let exact = classify_exact_of(fmt, (f, 0), a, mode);
            assert_eq!(fast.class, class, "f = 1 + {rl:e}, a = {a:e}");
            assert_eq!(exact.class, class, "f = 1 + {rl:e}, a = {a:e}");
            let (e_fast, e_exact) = (fast.err.unwrap(), exact.err.unwrap());
            assert_eq!(histogram_bin_of(e_fast), bin, "fast error {e_fast}");
            assert_eq!(histogram_bin_of(e_exact), bin, "exact error {e_exact}");
            assert!((e_fast - e_exact).abs() <= fast_error_tolerance(e_exact));
        }
    }
}
