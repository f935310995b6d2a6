//! Regimes decided by a proven rule instead of a search: pieces of the input range where f(x)
//! stays so close to a format number `b(x)` — a constant (exp, cos, cosh near 0) or x itself
//! (sin, tan, sinh, asin, atan, atanh, expm1, log1p, ... near 0) — that either every input is
//! hard to round or none is.
//!
//! Over tiny inputs a function is nearly linear and its values crowd next to one breakpoint, so
//! the lower-bound filter, which works on domains of a bounded number of inputs, spends as
//! long on a binade whose answer is known in advance as on any other (exp over [2^-60, 2^-59)
//! in binary64: 2^52 inputs, not one of them hard at K = 45). Here one Taylor model per piece
//! decides it.
//!
//! # The rule (docs/error-analysis.md, "Regimes decided by a rule")
//!
//! For a piece [xl, xh] of inputs of one binade, a Taylor model of f around xl with radius
//! w = xh - xl ([`tmd_core::taylor`]) gives f(xl + t) = sum m_k t^k + delta with a proven
//! bound E on |delta| (the coefficients' own errors included). With the anchor b(x) = c (a
//! format number: f(xl) rounded) or b(x) = x, the gap g(x) = f(x) - b(x) =
//! q_0 + q_1 t + sum_{k>=2} m_k t^k + delta, where q_0 = m_0 - b(xl) and q_1 = m_1 - b'; over
//! t in [0, w] each term q_k t^k lies between 0 and q_k w^k, so g lies in
//! [q_0 - E + sum_{q_k<0} q_k w^k, q_0 + E + sum_{q_k>0} q_k w^k], all rounded outward.
//!
//! When that enclosure excludes 0 and |g| stays below half the spacing of the format numbers
//! next to b(x), the format number nearest to y = f(x) is b(x), the gap of format numbers on
//! y's side of b(x) is ulp(y) (the spacing of y's own binade), and the distances of y to the
//! breakpoints are, in ulps of y: rho = |g| / ulp(y) to the format number b(x), and 1/2 - rho
//! to the midpoint on its side. With rho in [rho_min, rho_max] (the extremes of |g| over the
//! extremes of ulp(y) over the values y can take) and eps = 2^-K:
//!
//! * every input is hard, kind `directed`, when format numbers are breakpoints and
//!   rho_max < eps;
//! * no input is hard (nor exact) when rho_min >= eps or format numbers are not breakpoints,
//!   and rho_max <= 1/2 - eps or midpoints are not breakpoints.

use rug::float::Round;
use rug::ops::{AddAssignRound, MulAssignRound, Pow, SubAssignRound};
use rug::Float;
use tmd_core::taylor::taylor_model;
use tmd_core::{Breakpoints, Expr, Format};

/// The Taylor degree of the rule's models: low, since the rule is tried only where f is
/// nearly constant or nearly a power of two times x.
const RULE_DEGREE: usize = 3;

/// The format number f(x) stays next to over a piece.
#[derive(Clone, Debug, PartialEq)]
pub enum Anchor {
    /// A constant format number c (exp, cos, cosh near 0: c = 1).
    Constant(Float),
    /// A power of two times the input, 2^k x: the input itself for k = 0 (sin, tan, expm1,
    /// log1p, ... near 0), x/2 for J1 near 0. Only where 2^k x is a format number for every
    /// input of the piece (normal, or k = 0).
    ScaledInput(i32),
}

impl Anchor {
    /// b(x), exactly.
    fn at(&self, x: &Float) -> Float {
        match self {
            Anchor::Constant(c) => c.clone(),
            Anchor::ScaledInput(k) => Float::with_val(x.prec(), x << *k),
        }
    }

    /// b'(x), a power of two or 0.
    fn slope(&self) -> Float {
        match self {
            Anchor::Constant(_) => Float::new(2),
            Anchor::ScaledInput(k) => Float::with_val(2, 1) << *k,
        }
    }
}

/// What the rule says about a piece of inputs.
#[derive(Clone, Debug, PartialEq)]
pub enum Regime {
    /// Every input is hard to round: f(x) lies within 2^-`bits_at_least` ulp of the format
    /// number the anchor gives, and is never equal to it.
    AllHard { anchor: Anchor, bits_at_least: f64 },
    /// No input is hard to round, and none is exact.
    NoneHard { anchor: Anchor },
    /// The rule does not decide: search the piece.
    Undecided,
}

/// The working precision for inputs up to 2^e of a p-bit format: the gap g(x) may be as small
/// as x^3 relative to f(x) (sin near 0), and the model's terms carry errors of about 2^-prec
/// that its remainder multiplies by w^4 (degree 3, pieces of width w up to 2^e), so four times
/// the input's exponent, plus margin. With three times, the pieces of exp2m1 below -2^125
/// (every input hard: 2^x - 1 lies within 2^-2^125 of -1) were left undecided.
fn rule_precision(format: &Format, x: &Float) -> u32 {
    let e = x.get_exp().unwrap_or(0).unsigned_abs();
    128 + format.precision() + 4 * e
}

/// The precision tried first: where the gap is linear in x (zeta, exp, cos, cosh next to
/// their value at 0) or the piece is far from 0, once the input's exponent is enough, and
/// the model costs a fraction of one at [`rule_precision`] (zeta's binades next to 0 need
/// over a thousand bits either way, and its Euler-Maclaurin sums grow with the precision).
fn first_rule_precision(format: &Format, x: &Float) -> u32 {
    let e = x.get_exp().unwrap_or(0).unsigned_abs();
    128 + format.precision() + e
}

/// ulp(y) for 2^(e-1) <= |y| < 2^e, as a power of two (docs/definitions.md).
fn ulp_of(format: &Format, y: &Float) -> Float {
    let e = y.get_exp().expect("a finite non-zero value") as i64;
    Float::with_val(2, 1) << format.qexp_of_binade(e) as i32
}

/// The rule's question: which inputs of a piece are hard for f = `expr` in `format` at
/// K = `bits` with the breakpoints `kinds`.
#[derive(Clone, Copy)]
pub struct RuleQuestion<'a> {
    pub expr: &'a Expr,
    pub format: &'a Format,
    pub bits: u32,
    pub kinds: Breakpoints,
}

impl RuleQuestion<'_> {
    /// Decides the piece of inputs [xl, xh] (format numbers of one sign and one binade, xl <= xh).
    pub fn decide_piece(&self, xl: &Float, xh: &Float) -> Regime {
        let format = self.format;
        if xh.get_exp().max(xl.get_exp()).unwrap_or(0) < FROM_ZERO_BELOW_EXPONENT {
            let regime = decide_piece_from_zero(self, xl, xh);
            if regime != Regime::Undecided {
                return regime;
            }
        }
        // Any precision gives a proven enclosure; a higher one only a tighter one.
        let first = first_rule_precision(format, xl).max(first_rule_precision(format, xh));
        let full = rule_precision(format, xl).max(rule_precision(format, xh));
        let regime = self.decide_piece_at(xl, xh, first);
        if regime != Regime::Undecided || first >= full {
            return regime;
        }
        self.decide_piece_at(xl, xh, full)
    }

    /// [`Self::decide_piece`] with a model at `prec` bits.
    fn decide_piece_at(&self, xl: &Float, xh: &Float, prec: u32) -> Regime {
        let (expr, format) = (self.expr, self.format);
        // The model is centred at the piece's end nearest zero (xl for positive inputs, xh for
        // negative ones), so that t runs over [0, w] or [-w, 0] and each coefficient's sign gives
        // a one-sided bound: where g is monotone (the usual case), the enclosure's end near the
        // threshold is then the value at an end point, not at the centre minus the whole spread,
        // and pieces whose gap grows from exactly the threshold (exp on [2^-97, 2^-96) at K = 45)
        // are decided. Nearest zero, because there the terms past q_0 are smallest: sin(x) - x
        // over a negative piece is -x^3/6 at its base, and q_1 t = (cos(x0) - 1) t adds the same
        // order only if t reaches back over the larger inputs.
        let width = Float::with_val(format.precision() + 2, xh - xl);
        let downward = xh.is_sign_negative() && !xh.is_zero();
        let base = if downward { xh } else { xl };
        let Ok(model) = taylor_model(expr, base, &width, RULE_DEGREE, prec) else {
            return Regime::Undecided;
        };
        let m = model.coefficients();
        let Some(anchor) = choose_anchor(format, base, m) else {
            return Regime::Undecided;
        };
        // q_0 = m_0 - b(base), q_1 = m_1 - b' (powers of two: exact).
        let (b0, b1) = (anchor.at(base), anchor.slope());
        // The enclosure keeps the model's precision: where the gap grows from exactly the
        // threshold (exp at 2^-97: g = 2^-97 + 2^-195 + ...), the terms that put it on the right
        // side lie 2^-98 below q_0, far past any fixed precision.
        let gap_prec = prec + format.precision();
        let error = model.error_bound();
        let mut g_lo = Float::with_val_round(gap_prec, &m[0] - &b0, Round::Down).0;
        g_lo.sub_assign_round(&error, Round::Down);
        let mut g_hi = Float::with_val_round(gap_prec, &m[0] - &b0, Round::Up).0;
        g_hi.add_assign_round(&error, Round::Up);
        let zero = Float::new(2);
        let mut power = Float::with_val(64, 1);
        for (k, mk) in m.iter().enumerate().skip(1) {
            power.mul_assign_round(&width, Round::Up);
            // q_k (q_1 = m_1 - b') rounded away from zero to 64 bits: a bound on its magnitude.
            let b = if k == 1 { &b1 } else { &zero };
            let negative = *mk < *b;
            let away = if negative { Round::Down } else { Round::Up };
            let mut term = Float::with_val_round(64, mk - b, away).0.abs();
            // q_k t^k over t in [0, w] lies between 0 and q_k w^k; over t in [-w, 0], between 0
            // and q_k (-w)^k, of the other sign for odd k.
            term.mul_assign_round(&power, Round::Up);
            if negative != (downward && k % 2 == 1) {
                g_lo.sub_assign_round(&term, Round::Down);
            } else {
                g_hi.add_assign_round(&term, Round::Up);
            }
        }
        self.verdict(&anchor, xl, xh, [g_lo, g_hi])
    }

    /// The verdict from an enclosure `[g_lo, g_hi]` of the gap over `[xl, xh]`, once the side a
    /// known asymptote gives ([`asymptote_side`]) has clipped it.
    fn verdict(
        &self,
        anchor: &Anchor,
        xl: &Float,
        xh: &Float,
        [mut g_lo, mut g_hi]: [Float; 2],
    ) -> Regime {
        let (format, bits, kinds) = (self.format, self.bits, self.kinds);
        let sign = asymptote_side(self.expr, anchor, xl);
        if sign == Some(false) && g_hi > 0 {
            g_hi = Float::new(g_hi.prec());
        }
        if sign == Some(true) && g_lo < 0 {
            g_lo = Float::new(g_lo.prec());
        }
        classify_gap(format, anchor, xl, xh, &g_lo, &g_hi, sign, bits, kinds)
    }
}

/// Pieces whose inputs all lie below 2^-64 in magnitude are first tried with one model
/// centred at 0 ([`decide_piece_from_zero`]): its precision does not grow with the input's
/// exponent, where the model at the piece's end needs 128 + p + |e| bits or more (zeta's
/// Euler-Maclaurin sums over its ~2,000 binades of binary64 next to 0 took 0.18 s each at up
/// to 1,255 bits). Below 2^-64 both enclosures are tight to far more bits than the three
/// decimals a range record prints.
const FROM_ZERO_BELOW_EXPONENT: i32 = -63;

/// The precision of the model at 0: the gap's terms are relative to x there, so the input's
/// exponent adds nothing.
fn from_zero_precision(format: &Format) -> u32 {
    128 + format.precision()
}

/// [`RuleQuestion::decide_piece`] from one Taylor model of f centred at 0 with radius r = max |x| over the
/// piece, where f(0) is exact (zeta: -1/2; exp, cos, cosh: 1; sin, tan, expm1, J1: 0) and f is
/// analytic over [-r, r]. With the anchor b(0) = f(0), the gap g(x) = f(x) - b(x) has no
/// constant term, and
///
/// ```text
///     g(x) = q_1 x + sum_{k>=2} m_k x^k + delta,   |delta| <= R + sum_{k>=1} e_k r^k,
/// ```
///
/// where q_1 = m_1 - b' (b' = 0 for a constant anchor, 2^k for 2^k x), and each term q_k x^k
/// is bounded over x in [xl, xh] (one sign, so x^k is monotone) by its values at the ends. The
/// errors scale with x, not with f(0): a model at 128 + p bits decides a piece near 2^-1000.
/// `Undecided` where f(0) is not exact at that precision or no model exists over [-r, r].
fn decide_piece_from_zero(question: &RuleQuestion, xl: &Float, xh: &Float) -> Regime {
    let (expr, format) = (question.expr, question.format);
    let prec = from_zero_precision(format);
    let zero = Float::new(format.precision());
    let exact_at_zero = match expr.eval(&zero, prec) {
        tmd_core::interval::Eval::Value(v) if v.lo == v.hi && v.lo.is_finite() => v.lo,
        _ => return Regime::Undecided,
    };
    let radius = Float::with_val(format.precision(), xl.abs_ref()).max(&xh.clone().abs());
    let Ok(model) = taylor_model(expr, &zero, &radius, RULE_DEGREE, prec) else {
        return Regime::Undecided;
    };
    let m = model.coefficients();
    let Some(anchor) = anchor_from_zero(format, xl, xh, &exact_at_zero, &m[1]) else {
        return Regime::Undecided;
    };
    let b1 = anchor.slope();
    // R + sum_{k>=1} e_k r^k: the model's bound without e_0, as f(0) is exact.
    let mut error = model.remainder().clone();
    let mut power = Float::with_val(64, 1);
    for e_k in model.coefficient_errors().iter().skip(1) {
        power.mul_assign_round(&radius, Round::Up);
        let mut term = Float::with_val(64, e_k);
        term.mul_assign_round(&power, Round::Up);
        error.add_assign_round(&term, Round::Up);
    }
    let gap_prec = prec + format.precision();
    let mut g_lo = Float::with_val(gap_prec, -&error);
    let mut g_hi = Float::with_val(gap_prec, &error);
    for (k, mk) in m.iter().enumerate().skip(1) {
        let q = if k == 1 { &b1 } else { &zero };
        let q_lo = Float::with_val_round(gap_prec, mk - q, Round::Down).0;
        let q_hi = Float::with_val_round(gap_prec, mk - q, Round::Up).0;
        // x^k at both ends, exact at k times their precision; the term's extremes are among the four products.
        let ends = [xl, xh].map(|x| Float::with_val(k as u32 * x.prec(), x.pow(k as u32)));
        let mut lowest = Float::with_val(gap_prec, f64::INFINITY);
        let mut highest = Float::with_val(gap_prec, f64::NEG_INFINITY);
        for q in [&q_lo, &q_hi] {
            for x in &ends {
                lowest = lowest.min(&Float::with_val_round(gap_prec, q * x, Round::Down).0);
                highest = highest.max(&Float::with_val_round(gap_prec, q * x, Round::Up).0);
            }
        }
        g_lo.add_assign_round(&lowest, Round::Down);
        g_hi.add_assign_round(&highest, Round::Up);
    }
    question.verdict(&anchor, xl, xh, [g_lo, g_hi])
}

/// The anchor of [`decide_piece_from_zero`]: f(0) itself where it is a non-zero format number,
/// 2^k x where f(0) = 0, with 2^k the power of two nearest f'(0) = `m1` (positive), as
/// [`choose_anchor`] picks it: 2^k x must be a format number over the piece (k = 0, or the
/// piece's smallest magnitude scaled by 2^k normal).
fn anchor_from_zero(
    format: &Format,
    xl: &Float,
    xh: &Float,
    f0: &Float,
    m1: &Float,
) -> Option<Anchor> {
    if !f0.is_zero() {
        let c = Float::with_val(format.precision(), f0);
        let e = c.get_exp()?;
        let normal = e > format.emin() && e <= format.emax();
        return (normal && c == *f0).then_some(Anchor::Constant(c));
    }
    let smallest = xl.clone().abs().min(&xh.clone().abs());
    let distance = |k: i32| Float::with_val(m1.prec(), m1 - (Float::with_val(2, 1) << k)).abs();
    slope_exponents(format, &smallest, Some(m1))
        .min_by(|&a, &b| distance(a).total_cmp(&distance(b)))
        .map(Anchor::ScaledInput)
}

/// The k of the anchors 2^k x that follow f's slope f' = `m1` in [2^(e1 - 1), 2^e1): k = e1 - 1
/// and e1, where f' is positive and 2^k x is a format number for every input of magnitude
/// `x0` or more (k = 0, or 2^k x0 normal).
fn slope_exponents(format: &Format, x0: &Float, m1: Option<&Float>) -> impl Iterator<Item = i32> {
    let e1 = m1
        .filter(|m1| m1.is_sign_positive())
        .and_then(|m1| m1.get_exp());
    let ex = x0.get_exp();
    let emin = format.emin();
    e1.into_iter()
        .flat_map(|e1| [e1 - 1, e1])
        .filter(move |&k| k == 0 || ex.is_some_and(|ex| ex + k > emin))
}

/// The sign of the gap f(x) - c, known for every finite x, when c is a value f approaches but
/// never takes: erf and tanh lie strictly inside (-1, 1), erfc inside (0, 2) (erf(x) =
/// 1 - erfc(x) with erfc(x) > 0 and erfc(-x) = 2 - erfc(x); tanh(x) = 1 - 2/(e^(2x) + 1)),
/// and expm1, exp2m1, exp10m1 above -1 (b^x > 0).
/// Far out, 1 - erf(x) is below 2^-(x^2) and no working precision sees it: the model's
/// enclosure of the gap then holds zero, and this fact gives its sign (`Some(true)`:
/// positive).
/// `xl` is the piece's smallest input: zeta(x) > 1 holds for x > 1 only.
fn asymptote_side(expr: &Expr, anchor: &Anchor, xl: &Float) -> Option<bool> {
    let Anchor::Constant(c) = anchor else {
        return None;
    };
    let Expr::Call(f, arg) = expr else {
        return None;
    };
    if **arg != Expr::X {
        return None;
    }
    use tmd_core::Func::*;
    let (lo, hi) = match f {
        Erf | Tanh => (Some(-1), Some(1)),
        Erfc => (Some(0), Some(2)),
        // b^x - 1 > -1.
        Expm1 | Exp2m1 | Exp10m1 => (Some(-1), None),
        // zeta(x) = 1 + sum_{n>=2} n^-x > 1 for x > 1.
        Zeta if *xl > 1 => (Some(1), None),
        // They too approach values they never take (0 for b^x and rsqrt, ±1/2 for atanpi, 0
        // for gamma, ai and eint far out), but no side is claimed here: the model's enclosure
        // of the gap decides.
        Exp | Exp2 | Exp10 | Rsqrt | Atanpi | Zeta | Gamma | Ai | Eint => return None,
        // Every end of their range is taken, infinite, or no number of a format (±pi/2).
        Log | Log1p | Log2 | Log2p1 | Log10 | Log10p1 | Sqrt | Cbrt | Sin | Cos | Tan | Sinpi
        | Cospi | Tanpi | Asin | Acos | Atan | Asinpi | Acospi | Sinh | Cosh | Asinh | Acosh
        | Atanh | Lgamma | Digamma | J0 | J1 | Y0 | Y1 | Li2 => return None,
    };
    if hi.is_some_and(|hi| *c == hi) {
        Some(false)
    } else if lo.is_some_and(|lo| *c == lo) {
        Some(true)
    } else {
        None
    }
}

/// The anchor whose gap at the centre is smaller: f(x0) rounded to the format, or x0 times
/// the power of two nearest to f'(x0) (x0 itself where f' is near 1; x0 is the piece's input
/// nearest zero, so 2^k x is normal over the piece when 2^k x0 is). `None` when f(x0) is not
/// within the normal, finite numbers. `m` holds f(x0) and f'(x0).
fn choose_anchor(format: &Format, x0: &Float, m: &[Float]) -> Option<Anchor> {
    let m0 = &m[0];
    if m0.is_zero() || !m0.is_finite() {
        return None;
    }
    let e = m0.get_exp()?;
    if e > format.emax() {
        return None;
    }
    // A subnormal f(x0) rounded to p bits need not be a format number: only x itself anchors.
    if e - 1 < format.emin() {
        return Some(Anchor::ScaledInput(0));
    }
    let c = Float::with_val(format.precision(), m0);
    let to_c = Float::with_val(m0.prec(), m0 - &c).abs();
    let prec = m0.prec() + x0.prec();
    let to_scaled = |k: i32| {
        let scaled = Float::with_val(x0.prec(), x0 << k);
        Float::with_val(prec, m0 - &scaled).abs()
    };
    let mut best = (0, to_scaled(0));
    for k in slope_exponents(format, x0, m.get(1)) {
        let d = to_scaled(k);
        if k != 0 && d < best.1 {
            best = (k, d);
        }
    }
    Some(if best.1 <= to_c {
        Anchor::ScaledInput(best.0)
    } else {
        Anchor::Constant(c)
    })
}

/// The verdict from an enclosure [g_lo, g_hi] of the gap f(x) - b(x) over the piece.
#[allow(clippy::too_many_arguments)]
fn classify_gap(
    format: &Format,
    anchor: &Anchor,
    xl: &Float,
    xh: &Float,
    g_lo: &Float,
    g_hi: &Float,
    sign: Option<bool>,
    bits: u32,
    kinds: Breakpoints,
) -> Regime {
    // The gap must keep one sign (no exact case), from the enclosure or a known fact (the
    // enclosure's end at zero then: its bound on |g| from below is 0) ...
    let positive = *g_lo > 0 || sign == Some(true);
    let negative = *g_hi < 0 || sign == Some(false);
    if !g_lo.is_finite() || !g_hi.is_finite() || !(positive || negative) {
        return Regime::Undecided;
    }
    let (gap_min, gap_max) = if positive {
        (g_lo.clone(), g_hi.clone())
    } else {
        (-g_hi.clone(), -g_lo.clone())
    };
    // ... and the values y = b(x) + g(x) one sign, inside the finite numbers.
    let (b_lo, b_hi) = (anchor.at(xl), anchor.at(xh));
    let mut y_lo = Float::with_val(format.precision() + 64, &b_lo);
    y_lo.add_assign_round(g_lo, Round::Down);
    let mut y_hi = Float::with_val(format.precision() + 64, &b_hi);
    y_hi.add_assign_round(g_hi, Round::Up);
    if y_lo.is_zero() || y_hi.is_zero() || y_lo.is_sign_positive() != y_hi.is_sign_positive() {
        return Regime::Undecided;
    }
    let (small, large) = if y_lo.is_sign_positive() {
        (y_lo, y_hi)
    } else {
        (
            Float::with_val(y_hi.prec(), -&y_hi),
            Float::with_val(y_lo.prec(), -&y_lo),
        )
    };
    let max_finite = format.max_finite().to_float();
    // Subnormal values are kept: their spacing, 2^qmin, is ulp(y) as `ulp_of` gives it, so the
    // distances below hold there too (docs/error-analysis.md, "Regimes decided by a rule").
    if large >= max_finite {
        return Regime::Undecided;
    }
    let (ulp_min, ulp_max) = (ulp_of(format, &small), ulp_of(format, &large));
    // ulps are powers of two: both quotients are exact at the gaps' precision.
    let rho_max = Float::with_val(gap_max.prec(), &gap_max / &ulp_min);
    let rho_min = Float::with_val(gap_min.prec(), &gap_min / &ulp_max);
    let eps = Float::with_val(2, 1) >> bits;
    let half_minus_eps = Float::with_val(bits + 2, 0.5) - &eps;
    let directed = kinds != Breakpoints::Nearest;
    let nearest = kinds != Breakpoints::Directed;
    if directed && rho_max < eps {
        let bits_at_least = -rho_max.to_f64_round(Round::Up).log2();
        return Regime::AllHard {
            anchor: anchor.clone(),
            // Rounded down to the three decimals printed, below the f64 error of log2; never
            // below K, which rho_max < 2^-K proves however close to K the quotient lies.
            bits_at_least: (((bits_at_least - 1e-6) * 1000.0).floor() / 1000.0).max(bits as f64),
        };
    }
    // rho_max < 1/2 keeps every y in the gap next to b(x), where the distances above hold.
    let in_adjacent_gap = rho_max < 0.5;
    let far_from_numbers = !directed || rho_min >= eps;
    let far_from_midpoints = !nearest || rho_max <= half_minus_eps;
    if in_adjacent_gap && far_from_numbers && far_from_midpoints {
        return Regime::NoneHard {
            anchor: anchor.clone(),
        };
    }
    Regime::Undecided
}

/// Pieces smaller than this are left to the search: a rule saves nothing there.
pub const MIN_RULE_PIECE: u64 = 1 << 12;

/// How many times a piece is halved in search of pieces the rule decides.
const MAX_HALVINGS: u32 = 8;

/// A piece of inputs `[start, end)` (ordinals) the rule decided.
#[derive(Clone, Debug, PartialEq)]
pub struct DecidedPiece {
    pub start: i128,
    pub end: i128,
    pub regime: Regime,
}

/// The pieces of `[start, end)` (ordinals inside one binade of the inputs) that the rule
/// decides, in increasing order; the rest of the range is left to the search. A piece is
/// tried only when f's values at its two ends round to the same constant or to the ends
/// themselves (two MPFR evaluations), so ranges where no rule can hold cost next to nothing;
/// an undecided piece that passes that test is halved, at most [`MAX_HALVINGS`] times.
///
/// The pieces are those of the whole binade piece of the format that holds `start`
/// ([`binade_piece`]), clipped to `[start, end)`: they depend on the binade only, not on where
/// the range starts, so a search resumed from a journal, or cut in segments across processes,
/// meets the same pieces and prints the same range records as one uninterrupted run.
pub fn decided_pieces(
    expr: &Expr,
    format: &Format,
    start: i128,
    end: i128,
    bits: u32,
    kinds: Breakpoints,
) -> Vec<DecidedPiece> {
    if start >= end {
        return Vec::new();
    }
    let (binade_start, binade_end) = binade_piece(format, start);
    debug_assert!(end <= binade_end, "the range crosses a binade");
    decided_pieces_with_min(
        expr,
        format,
        binade_start,
        binade_end,
        bits,
        kinds,
        MIN_RULE_PIECE,
    )
    .into_iter()
    .filter_map(|p| {
        let (a, b) = (p.start.max(start), p.end.min(end));
        (a < b).then_some(DecidedPiece {
            start: a,
            end: b,
            regime: p.regime,
        })
    })
    .collect()
}

/// The ordinals `[start, end)` of the piece of inputs with one quantum that holds ordinal `o`:
/// a binade of one sign, or the subnormals and the first binade of both signs, across zero
/// (finite inputs only).
pub fn binade_piece(format: &Format, o: i128) -> (i128, i128) {
    let half = 1i128 << (format.precision() - 1);
    let top = format.max_ordinal();
    let u = o.abs();
    let (start, end) = if u < 2 * half {
        (-2 * half + 1, 2 * half)
    } else if o > 0 {
        ((u / half) * half, (u / half + 1) * half)
    } else {
        (-(u / half + 1) * half + 1, -(u / half) * half + 1)
    };
    (start.max(-top), end.min(top + 1))
}

/// A piece of inputs the rule proved all hard, given as one record instead of one line per
/// input (`tmd search` prints it so unless told to expand it).
#[derive(Clone, Debug, PartialEq)]
pub struct RangeRecord {
    /// The inputs with ordinals `[start, end)`: the rule's piece, clipped to the range searched.
    pub start: i128,
    pub end: i128,
    /// What f(x) stays next to.
    pub anchor: Anchor,
    /// Every input's hardness is at least this many bits (kind `directed`: f(x) is within
    /// 2^-bits_at_least ulp of the format number the anchor gives, never on it).
    pub bits_at_least: f64,
}

impl RangeRecord {
    /// The rule's name in the output.
    pub fn rule_name(&self) -> &'static str {
        match self.anchor {
            Anchor::Constant(_) => "next-to-constant",
            Anchor::ScaledInput(_) => "next-to-x",
        }
    }

    /// How many inputs the record covers.
    pub fn inputs(&self) -> u64 {
        (self.end - self.start) as u64
    }
}

impl DecidedPiece {
    /// The range record of a piece where every input is hard.
    pub fn record(&self) -> Option<RangeRecord> {
        match &self.regime {
            Regime::AllHard {
                anchor,
                bits_at_least,
            } => Some(RangeRecord {
                start: self.start,
                end: self.end,
                anchor: anchor.clone(),
                bits_at_least: *bits_at_least,
            }),
            _ => None,
        }
    }
}

/// The range record of the inputs `[start, end)`, as a search over any range that holds them
/// gives it: `None` unless the rule proves one piece of their binade all hard and it holds
/// them all (a resumed search rebuilds the records of its journal so).
pub fn range_record(
    expr: &Expr,
    format: &Format,
    start: i128,
    end: i128,
    bits: u32,
    kinds: Breakpoints,
) -> Option<RangeRecord> {
    let (_, binade_end) = binade_piece(format, start);
    if start >= end || end > binade_end {
        return None;
    }
    decided_pieces(expr, format, start, end, bits, kinds)
        .into_iter()
        .find(|p| p.start == start && p.end == end)
        .and_then(|p| p.record())
}

/// [`decided_pieces`] with another smallest piece (tests use small formats).
fn decided_pieces_with_min(
    expr: &Expr,
    format: &Format,
    start: i128,
    end: i128,
    bits: u32,
    kinds: Breakpoints,
    min_piece: u64,
) -> Vec<DecidedPiece> {
    let piece = Piece {
        question: RuleQuestion {
            expr,
            format,
            bits,
            kinds,
        },
        min_piece,
    };
    let mut out = Vec::new();
    let mut stuck = Vec::new();
    let mut pending = vec![(start, end, 0u32)];
    // Depth first, left half first: the pieces come out in increasing order.
    while let Some((a, b, depth)) = pending.pop() {
        // The input 0 is left to the search: f(0) is exact for most functions (sin, exp, cos,
        // log1p, ...), so no rule holds on a piece that holds it. The piece is cut at 0 into
        // its negative and its positive inputs, so that both signs meet the same pieces.
        if a <= 0 && 0 < b {
            pending.push((1, b, depth));
            pending.push((a, 0, depth));
            continue;
        }
        let regime = match piece.ends(a, b) {
            Ends::ShareAnAnchor => piece.decide(a, b),
            // Where f's values at the ends round to neighbouring format numbers, a regime may
            // end inside the piece (exp10m1 on [-32, -16): 10^x - 1 next to -1, every input
            // hard below -29.5, none above): it is not tried, its halves are.
            Ends::Neighbours
                if depth < MAX_HALVINGS && (b - a) as u128 >= 2 * min_piece as u128 =>
            {
                Regime::Undecided
            }
            _ => continue,
        };
        match regime {
            Regime::Undecided if depth < MAX_HALVINGS => {
                let mid = a + (b - a) / 2;
                pending.push((mid, b, depth + 1));
                pending.push((a, mid, depth + 1));
            }
            Regime::Undecided => stuck.push((a, b)),
            regime => out.push(DecidedPiece {
                start: a,
                end: b,
                regime,
            }),
        }
    }
    // Where the regime changes inside a piece (every input hard below a point, none above, or
    // one hard input at the end of a binade: exp at -2^-98, K = 45), the halvings stop with
    // that piece undecided next to a decided one; it is narrowed towards the change, two
    // models per level, down to the smallest piece.
    for (a, b) in stuck {
        let left = out.iter().any(|p| p.end == a);
        let right = out.iter().any(|p| p.start == b);
        piece.narrow(a, b, left, right, &mut out);
    }
    out.sort_by_key(|p| p.start);
    out
}

/// The rule's question over the pieces of one binade.
struct Piece<'a> {
    question: RuleQuestion<'a>,
    min_piece: u64,
}

impl Piece<'_> {
    /// What f at the ends of `[a, b)` says ([`ends`]), for a piece of at least the smallest
    /// size (`Ends::Neither` below it, without evaluating f).
    fn ends(&self, a: i128, b: i128) -> Ends {
        if ((b - a) as u128) < self.min_piece as u128 {
            return Ends::Neither;
        }
        ends(self.question.expr, self.question.format, a, b)
    }

    /// The rule over the inputs `[a, b)`.
    fn decide(&self, a: i128, b: i128) -> Regime {
        let format = self.question.format;
        let xl = format.from_ordinal(a).to_float();
        let xh = format.from_ordinal(b - 1).to_float();
        self.question.decide_piece(&xl, &xh)
    }

    /// The rule over `[a, b)` where its ends share an anchor, `Undecided` otherwise.
    fn try_decide(&self, a: i128, b: i128) -> Regime {
        if self.ends(a, b) == Ends::ShareAnAnchor {
            self.decide(a, b)
        } else {
            Regime::Undecided
        }
    }

    /// Halves the undecided piece `[a, b)` on, keeping the decided halves, down to the smallest
    /// piece: an undecided half is halved again only where a decided piece touches it (`left`,
    /// `right`), so that only the frontier of a decided region is followed.
    fn narrow(&self, a: i128, b: i128, left: bool, right: bool, out: &mut Vec<DecidedPiece>) {
        if !(left || right) || ((b - a) as u128) < 2 * self.min_piece as u128 {
            return;
        }
        let mid = a + (b - a) / 2;
        let lower = self.try_decide(a, mid);
        let upper = self.try_decide(mid, b);
        let (lower_decided, upper_decided) =
            (lower != Regime::Undecided, upper != Regime::Undecided);
        for (start, end, regime) in [(a, mid, lower), (mid, b, upper)] {
            if regime != Regime::Undecided {
                out.push(DecidedPiece { start, end, regime });
            }
        }
        if !lower_decided {
            self.narrow(a, mid, left, upper_decided, out);
        }
        if !upper_decided {
            self.narrow(mid, b, lower_decided, right, out);
        }
    }
}

/// What f at the first and last inputs of a piece says of the rule's chances there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ends {
    /// f at both ends rounds to one format number, or to each input itself times one power
    /// of two, and is not exact at the model's centre: a rule may hold, the model is tried.
    ShareAnAnchor,
    /// f at the ends rounds to two neighbouring normal format numbers: a constant anchor may
    /// hold on part of the piece.
    Neighbours,
    /// Neither: no rule holds on the whole piece.
    Neither,
}

/// [`Ends`] of `[a, b)`: two evaluations of f at p + 64 bits, the cheap necessary sign that a
/// rule may hold, so that binades far from any such regime cost next to nothing.
fn ends(expr: &Expr, format: &Format, a: i128, b: i128) -> Ends {
    let prec = format.precision() + 64;
    // f rounded to the format's precision (`None` where its enclosure does not round to one
    // number), and whether that is f's exact value.
    let rounded = |x: &Float| match expr.eval(x, prec) {
        tmd_core::interval::Eval::Value(v) if v.lo.is_finite() && v.hi.is_finite() => {
            let lo = Float::with_val(format.precision(), &v.lo);
            let exact = v.lo == v.hi && lo == v.lo;
            (lo == Float::with_val(format.precision(), &v.hi)).then_some((lo, exact))
        }
        _ => None,
    };
    let xl = format.from_ordinal(a).to_float();
    let xh = format.from_ordinal(b - 1).to_float();
    let (Some((yl, exact_l)), Some((yh, exact_h))) = (rounded(&xl), rounded(&xh)) else {
        return Ends::Neither;
    };
    // The model is centred at the end nearest zero (`decide_piece`).
    let centre_exact = if xh.is_sign_negative() && !xh.is_zero() {
        exact_h
    } else {
        exact_l
    };
    if yl == yh {
        // f exact at the model's centre, on the anchor it would take (sinpi and tanpi at
        // integers: 0; cospi at the integers of the binades from 2^53 on: ±1): the gap is 0
        // there and no enclosure of it keeps one sign, so every halving would try a model for
        // nothing (sinpi's and cospi's binades of integers took a minute or more of a plan).
        return if centre_exact {
            Ends::Neither
        } else {
            Ends::ShareAnAnchor
        };
    }
    if scaled_inputs(&xl, &yl) && scaled_inputs(&xh, &yh) {
        return Ends::ShareAnAnchor;
    }
    if round_to_neighbours(format, &yl, &yh) {
        Ends::Neighbours
    } else {
        Ends::Neither
    }
}

/// Whether the format numbers yl and yh (at the format's precision) are neighbours, both
/// normal.
fn round_to_neighbours(format: &Format, yl: &Float, yh: &Float) -> bool {
    let normal = |y: &Float| {
        y.get_exp()
            .is_some_and(|e| e > format.emin() && e <= format.emax())
    };
    if !(normal(yl) && normal(yh)) || yl == yh {
        return false;
    }
    // yl's neighbour towards yh at the format's precision: the next format number, both
    // being normal.
    let mut next = yl.clone();
    if yh > yl {
        next.next_up();
    } else {
        next.next_down();
    }
    next == *yh
}

/// Whether y is x times a power of two (x itself included), x not zero.
fn scaled_inputs(x: &Float, y: &Float) -> bool {
    match (x.get_exp(), y.get_exp()) {
        (Some(ex), Some(ey)) => Float::with_val(x.prec(), x << (ey - ex)) == *y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    fn piece(f: &str, fmt: &Format, lo: f64, hi: f64, bits: u32, kinds: Breakpoints) -> Regime {
        let expr = Expr::parse(f).unwrap();
        let question = RuleQuestion {
            expr: &expr,
            format: fmt,
            bits,
            kinds,
        };
        question.decide_piece(&Float::with_val(64, lo), &Float::with_val(64, hi))
    }

    /// [`piece`] in binary64 at K = 45.
    fn binary64_piece(f: &str, lo: f64, hi: f64, kinds: Breakpoints) -> Regime {
        piece(f, &Format::binary64(), lo, hi, 45, kinds)
    }

    #[test]
    fn exp_of_tiny_inputs_is_hard_everywhere_then_nowhere() {
        // exp(x) - 1 ~ x: within 2^-46 ulp of 1 for x < 2^-98, hard at K = 45.
        let below = binary64_piece("exp(x)", 2f64.powi(-110), 2f64.powi(-109), Breakpoints::All);
        assert!(
            matches!(below, Regime::AllHard { anchor: Anchor::Constant(ref c), bits_at_least } if *c == 1 && bits_at_least > 56.0),
            "{below:?}"
        );
        // [2^-60, 2^-59): exp(x) - 1 in [2^-8, 2^-7) ulps: no input hard.
        let above = binary64_piece("exp(x)", 2f64.powi(-60), 2f64.powi(-59), Breakpoints::All);
        assert!(matches!(above, Regime::NoneHard { .. }), "{above:?}");
    }

    #[test]
    fn sin_of_tiny_inputs_stays_next_to_x() {
        let tiny = binary64_piece("sin(x)", 2f64.powi(-500), 2f64.powi(-499), Breakpoints::All);
        assert!(
            matches!(
                tiny,
                Regime::AllHard {
                    anchor: Anchor::ScaledInput(0),
                    ..
                }
            ),
            "{tiny:?}"
        );
        let nearest_only = binary64_piece(
            "sin(x)",
            2f64.powi(-500),
            2f64.powi(-499),
            Breakpoints::Nearest,
        );
        assert!(
            matches!(nearest_only, Regime::NoneHard { .. }),
            "{nearest_only:?}"
        );
        // Near 1 sin is neither close to a constant nor to x.
        let one = binary64_piece("sin(x)", 1.0, 1.5, Breakpoints::All);
        assert_eq!(one, Regime::Undecided);
    }

    #[test]
    fn j1_of_tiny_inputs_stays_next_to_half_x() {
        // J1(x) = x/2 - x^3/16 + ...: the gap to x/2 is x^2/8 of it, below 2^-45 ulp for
        // x below about 2^-48, every input hard; above, up to where the gap reaches half an
        // ulp, none.
        let tiny = binary64_piece("j1(x)", 2f64.powi(-60), 2f64.powi(-59), Breakpoints::All);
        assert!(
            matches!(tiny, Regime::AllHard { anchor: Anchor::ScaledInput(-1), bits_at_least } if bits_at_least > 66.0),
            "{tiny:?}"
        );
        let above = binary64_piece("j1(x)", -2f64.powi(-40), -2f64.powi(-41), Breakpoints::All);
        assert!(
            matches!(
                above,
                Regime::NoneHard {
                    anchor: Anchor::ScaledInput(-1)
                }
            ),
            "{above:?}"
        );
    }

    #[test]
    fn tanh_of_huge_inputs_is_next_to_one_though_cosh_overflows() {
        // tanh(x) = 1 - 2e^(-2x) + ...: past 2^30, cosh(x) is beyond MPFR's exponents, and the
        // model's derivative comes from 1 - tanh^2 instead; tanh < 1 gives the gap's sign.
        // Half binades, as the halving meets them: one model over a whole binade is left
        // undecided, its halves are decided.
        for (lo, hi) in [
            (2f64.powi(40), 1.5 * 2f64.powi(40)),
            (-2f64.powi(59), -1.5 * 2f64.powi(58)),
        ] {
            let all = binary64_piece("tanh(x)", lo, hi, Breakpoints::All);
            assert!(
                matches!(all, Regime::AllHard { anchor: Anchor::Constant(ref c), bits_at_least } if c.clone().abs() == 1 && bits_at_least > 100.0),
                "{lo}: {all:?}"
            );
            let nearest = binary64_piece("tanh(x)", lo, hi, Breakpoints::Nearest);
            assert!(matches!(nearest, Regime::NoneHard { .. }), "{nearest:?}");
        }
    }

    #[test]
    fn a_regime_that_ends_inside_a_binade_is_found_by_halving() {
        // exp10m1 on [-32, -16): 10^x - 1 next to -1, within 2^-45 ulp below about -29.5 and
        // not above; the values at the binade's ends round to -1 and its neighbour, so no
        // model is tried on the whole binade, only on its halves.
        let b64 = Format::binary64();
        let expr = Expr::parse("exp10m1(x)").unwrap();
        let ordinal = |t: &str| b64.ordinal(&tmd_core::number::parse_exact(t, &b64).unwrap());
        // The binade piece of magnitudes [16, 32), in increasing ordinals.
        let (start, end) = (ordinal("-0x1.fffffffffffffp+4"), ordinal("-0x1p+4") + 1);
        let pieces = decided_pieces(&expr, &b64, start, end, 45, Breakpoints::All);
        let count = |all_hard: bool| -> i128 {
            pieces
                .iter()
                .filter(|p| matches!(p.regime, Regime::AllHard { .. }) == all_hard)
                .map(|p| p.end - p.start)
                .sum()
        };
        // [-32, -30) and more is all hard, and nearly all of [-29, -16) none hard.
        assert!(count(true) >= ordinal("-0x1.ep+4") - start, "{pieces:?}");
        assert!(
            count(false) >= (end - ordinal("-0x1.dp+4")) * 9 / 10,
            "{pieces:?}"
        );
    }

    /// Every decided piece of every binade of binary16 and bfloat16, for functions that stay
    /// next to a constant or to x near 0 (and some that do not), against the per-input
    /// decision of the reference search (`tmd_core::decide`): all hard means each input is a
    /// hard case of kind `directed` with at least the stated bits, none hard means each input
    /// is not hard (nor exact).
    #[test]
    fn decided_pieces_agree_with_the_per_input_decision_on_all_of_binary16_and_bfloat16() {
        use tmd_core::hardness::{decide, Decision};
        use tmd_core::{Kind, Outcome};
        let mut functions = vec![
            "exp", "expm1", "exp2", "exp10", "log1p", "sin", "cos", "tan", "sinh", "cosh", "tanh",
            "asin", "atan", "asinh", "atanh", "erf", "cbrt", "x*exp(x)", "sin(x)/x", "j1",
            "exp10m1", "erfc",
        ];
        // zeta (next to -1/2 by the model at 0, next to 1 far right): MPFR's zeta per input
        // takes minutes over both formats.
        if tmd_test_tier::extensive() {
            functions.push("zeta");
        }
        // Each (format, function) on its own thread: one after the other they took 46 s.
        let jobs: Vec<(Format, &str)> = [Format::binary16(), Format::bfloat16()]
            .into_iter()
            .flat_map(|format| functions.iter().map(move |&f| (format.clone(), f)))
            .collect();
        let counts = jobs.par_iter().map(|&(ref format, f)| {
            let mut decided = (0u64, 0u64);
            let p = format.precision();
            let half = 1i128 << (p - 1);
            let expr = Expr::parse(&format!("{f}(x)"))
                .or_else(|_| Expr::parse(f))
                .unwrap();
            for (bits, kinds) in [
                (p, Breakpoints::All),
                (p + 4, Breakpoints::Directed),
                (p - 3, Breakpoints::Nearest),
            ] {
                // Binade pieces of both signs (the first one spans zero).
                let mut o = -format.max_ordinal();
                while o <= format.max_ordinal() {
                    let u = o.abs();
                    let end = if u < 2 * half {
                        2 * half
                    } else if o > 0 {
                        (u / half + 1) * half
                    } else {
                        -(u / half) * half + 1
                    }
                    .min(format.max_ordinal() + 1);
                    for piece in decided_pieces_with_min(&expr, format, o, end, bits, kinds, 16) {
                        for q in piece.start..piece.end {
                            let x = format.from_ordinal(q);
                            let d = decide(&expr, format, &x, bits, kinds, 1024);
                            let at = format!(
                                "{f} at {} ({bits}, {kinds:?}): {:?}",
                                x.to_hex(),
                                piece.regime
                            );
                            match &piece.regime {
                                Regime::AllHard { bits_at_least, .. } => {
                                    decided.0 += 1;
                                    match d {
                                        Decision::Hard(Outcome::Inexact(i)) => {
                                            assert_eq!(i.kind, Kind::Directed, "{at}");
                                            assert!(i.bits >= *bits_at_least, "{at}: {}", i.bits);
                                        }
                                        // tanh(-2^16) = -1 + 2^-189000: beyond MPFR at
                                        // 1024 bits, within reach of the rule's fact.
                                        Decision::Unresolved(Outcome::Unresolved {
                                            bits_at_least: Some(b),
                                            ..
                                        }) => assert!(b >= *bits_at_least, "{at}"),
                                        d => panic!("{at}: {d:?}"),
                                    }
                                }
                                // Unresolved: MPFR at 1024 bits cannot round
                                // tanh(-2^16) at all; the rule still places it next to
                                // -1, far from the midpoints.
                                Regime::NoneHard { .. } => {
                                    decided.1 += 1;
                                    assert!(
                                        matches!(d, Decision::NotHard | Decision::Unresolved(_)),
                                        "{at}: {d:?}"
                                    );
                                }
                                Regime::Undecided => unreachable!(),
                            }
                        }
                    }
                    o = end;
                }
            }
            decided
        });
        let decided = counts.reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        eprintln!(
            "inputs decided: all hard {}, none hard {}",
            decided.0, decided.1
        );
        assert!(decided.0 > 10_000 && decided.1 > 10_000, "{decided:?}");
    }
}
