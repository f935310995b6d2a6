//! Rigorous Taylor models of registry functions and user expressions: the input of the
//! polynomial generation of the filtered search.
//!
//! # What a Taylor model is here
//!
//! For an expression f, an exact center x0, a radius r and a degree d, a [`TaylorModel`] holds
//! the Taylor coefficients c_k = f^(k)(x0)/k! for k = 0..d, each as a midpoint `m_k` (a
//! `prec`-bit float) with a proven radius `e_k` (|c_k - m_k| <= e_k), and a proven remainder
//! bound R such that, for every real t with |t| <= r,
//!
//! ```text
//!     f(x0 + t) = sum_{k=0..d} c_k t^k + delta(t),      |delta(t)| <= R.
//! ```
//!
//! Hence |f(x0 + t) - sum m_k t^k| <= R + sum e_k |t|^k ([`TaylorModel::error_bound`] over the
//! whole radius, [`TaylorModel::enclose`] at one t).
//!
//! # How the coefficients are computed: automatic differentiation on truncated series
//!
//! Every node of the expression is replaced by the truncated Taylor series of its value in t
//! (Moore 1966; Rall 1981; Griewank & Walther, *Evaluating Derivatives*, 2nd ed., ch. 13):
//! x becomes x0 + t, a constant is a constant series, sums are coefficient-wise, a product is
//! the Cauchy product, a quotient q = a/b solves b q = a coefficient by coefficient
//! (q_k = (a_k - sum_{j=1..k} b_j q_{k-j}) / b_0), and an integer power is binary powering.
//! An elementary function g = phi(f) satisfies a differential equation g' = f' h in which h is
//! built from f or from lower coefficients of g; matching coefficients of t^(k-1) gives
//!
//! ```text
//!     g_k = (1/k) sum_{j=1..k} j f_j h_{k-j},        k >= 1,
//! ```
//!
//! with g_0 = phi(f_0) evaluated by MPFR. The h of each function:
//!
//! | function                  | h                                     |
//! |---------------------------|---------------------------------------|
//! | exp, exp2, exp10 (and m1) | g ln b (the series of f ln b is used) |
//! | log, log2, log10          | 1 / (f ln b)                          |
//! | log1p, log2p1, log10p1    | 1 / ((1 + f) ln b)                    |
//! | sin / cos (jointly)       | cos / -sin (sinh / cosh: cosh / sinh) |
//! | sinpi, cospi, tanpi       | as sin, cos, tan with f replaced by pi f |
//! | tan / tanh                | 1 + g^2 / 1 - g^2                     |
//! | atan                      | 1 / (1 + f^2)                         |
//! | asin / acos               | ±(1 - f)^(-1/2) (1 + f)^(-1/2)        |
//! | asinh / acosh / atanh     | (1 + f^2)^(-1/2) / ((f - 1)(f + 1))^(-1/2) / 1/((1 - f)(1 + f)) |
//! | asinpi, acospi, atanpi    | the h of asin, acos, atan divided by pi |
//! | erf / erfc                | ±(2/sqrt(pi)) exp(-f^2)               |
//! | eint                      | exp(f) / f                            |
//! | li2                       | -log(1 - f) / f (for \|f_0\| > 1/2 away from 0) |
//!
//! The other special functions (module `special`) enclose the Taylor coefficients
//! c_k(y) = phi^(k)(y)/k! of phi itself for every y in an interval and compose them with f
//! (phi(f) = sum_k c_k(f_0) (f - f_0)^k):
//!
//! | function          | c_k                                                             |
//! |-------------------|-----------------------------------------------------------------|
//! | digamma           | psi(y); (-1)^(k+1) zeta(k+1, y) for k >= 1 (Hurwitz zeta, shifted and summed by Euler-Maclaurin with a proven remainder) |
//! | lgamma            | log\|Gamma(y)\|, psi(y); (-1)^k zeta(k, y)/k for k >= 2          |
//! | gamma             | exp of the lgamma series, g_0 = Gamma(f_0)                      |
//! | li2 near 0        | I_(k-1)(y)/k, I_j = q^(j)/j! by the backward recurrence I_(j-1) = U^j/j - y I_j, U = 1/(1 - y) |
//! | j0, j1, y0, y1    | 2^-k/k! sum_j (-1)^j binom(k, j) C_(n-k+2j)(y) (DLMF 10.6.7), C_m from MPFR's jn, yn |
//! | ai                | (k+2)(k+1) a_(k+2) = y a_k + a_(k-1) from Ai'' = x Ai; Ai' from its Maclaurin series |
//! | zeta              | Euler-Maclaurin on series in s (remainder by Cauchy's estimate); below -1 the reflection formula; far right the Dirichlet series' bound |
//!
//! docs/error-analysis.md, "Taylor models of the special functions", proves every enclosure.
//!
//! Powers g = f^(p/q) (sqrt, rsqrt, cbrt) use f g' = (p/q) f' g instead, which gives
//! g_k = sum_{j=1..k} ((p + q) j - q k) f_j g_{k-j} / (q k f_0). The "m1" and "p1" variants are
//! accurate near 0 because their g_0 is MPFR's own expm1, log1p, ... and their higher
//! coefficients (those of exp and of 1/(1 + f)) have no cancellation there; likewise the "pi"
//! variants take g_0 from MPFR's sinpi, asinpi, ... and only scale the higher coefficients,
//! tanh takes 1 - g_0^2 as 1/cosh(f_0)^2 (as 1 - g_0^2 itself only where cosh(f_0) is beyond
//! MPFR's exponent range: both enclose the same value), and asin, acos, acosh, atanh factor
//! 1 - f^2 as (1 - f)(1 + f).
//!
//! # Why the bounds are rigorous
//!
//! All arithmetic is interval arithmetic on MPFR floats with outward rounding (lower ends
//! rounded down, upper ends up; MPFR rounds every operation correctly), and every g_0 is the
//! image of an interval under phi: the end points of a monotone piece evaluated by MPFR with
//! directed rounding, or, for sin, cos, sinpi, cospi, the end points when the derivative has a
//! proven sign on the interval and a Lipschitz enclosure clipped to [-1, 1] otherwise (the
//! special functions' enclosures: convexity for lgamma, |J_m'| <= 1 for J, Gronwall bounds
//! for Y and Ai; docs/error-analysis.md). Each
//! recurrence is a fixed arithmetic formula that yields the exact coefficient when given exact
//! inputs, and interval arithmetic is inclusion isotone, so each computed interval contains
//! the exact coefficient for *every* point of its input intervals.
//!
//! The coefficients at the center come from the series of x = [x0, x0] + t. The remainder
//! comes from the series of x = X + t with X = [x0 - r, x0 + r] (rounded outward): its
//! coefficient C_k encloses f^(k)(xi)/k! for every xi in X. By Lagrange's form of the
//! remainder at order D >= d,
//!
//! ```text
//!     f(x0 + t) - sum_{k<=d} c_k t^k = sum_{k=d+1..D} c_k t^k + f^(D+1)(xi)/(D+1)! t^(D+1)
//! ```
//!
//! for some xi between x0 and x0 + t, which lies in X; so for every such D,
//! R_D = sum_{k=d+1..D} |c_k| r^k + sup|C_{D+1}| r^(D+1) (rounded up) is a bound, and the
//! model keeps the least of R_d (the plain bound sup|C_{d+1}| r^(d+1)), ..., R_{d+3}. The
//! extra orders cost little and matter where interval evaluation over X overestimates: for
//! sin(x)/x at 0.5, radius 2^-15, degree 10, R_d is 2^28 times too large and R_{d+3} is within
//! a few percent of the true term.
//! Lagrange needs f to be D + 1 times differentiable on X: every function is applied only to
//! an argument whose enclosure over X lies in the open set where that function is analytic
//! (log of a positive interval, asin strictly inside (-1, 1), tan with cos bounded away from
//! zero, a division by an interval without zero, ...), and any other case is an error
//! ([`NoModel`]), never a bound. An overflowing or NaN bound is an error too.
//!
//! The price of intervals is overestimation, never wrong bounds: the widths of the
//! coefficients over X grow with the order where a recurrence cancels (a quotient of entire
//! functions like sin(x)/x; atan and asin at |x0| ~ 1), and the coefficients at the center
//! lose bits with the order for the same reason (sin(x)/x at 0.5, degree 10: about 35 of 200).
//! Both losses show in `coefficient_errors` and in R, which the tests compare with the true
//! magnitudes; raise `prec` where the coefficient errors matter.

use crate::expr::Expr;
use crate::registry::{eval_rounded, Angle, Base, Dir, Func, Model, Shape, Trig};
use rug::float::{Constant, Round};
use rug::ops::{AssignRound, Pow};
use rug::{Float, Rational};
use std::cmp::Ordering;
use thiserror::Error;

mod special;

/// The precision of the error bounds: they are rounded up, so a few significant bits suffice.
const BOUND_PREC: u32 = 64;

/// The largest degree [`taylor_model`] accepts (the recurrences cost O(degree^2) per node).
pub const MAX_DEGREE: usize = 1024;

/// How many orders beyond the degree the remainder bound may use (see [`taylor_model`]).
const TAIL_ORDERS: usize = 3;

/// The smallest working precision [`taylor_model`] accepts.
pub const MIN_PREC: u32 = 16;

/// Why an expression has no Taylor model at a center and radius.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum NoModel {
    /// The function has no Taylor model at all (every registered function has one today).
    #[error("{0} has no Taylor model")]
    Unsupported(Func),
    /// The function has a model, but not at this argument, for the reason given.
    #[error("{0} has no Taylor model here: {1}")]
    Unimplemented(Func, &'static str),
    /// The function's argument may leave the open set where it is analytic somewhere in the
    /// interval: log of an interval reaching 0, asin reaching ±1, tan over a pole, ...
    #[error("{0} is not proven analytic over the interval (domain boundary or pole)")]
    OutsideDomain(Func),
    /// A divisor (or the base of a negative power) may vanish in the interval.
    #[error("division by an enclosure that contains zero")]
    DivisionByZero,
    /// An intermediate bound is infinite or NaN.
    #[error("a coefficient or bound overflows")]
    Overflow,
    /// The arguments themselves are unusable.
    #[error("invalid argument: {0}")]
    InvalidArgument(&'static str),
}

/// Whether a registry function has a Taylor model (the registry's [`Model`] column, an AD
/// recurrence in this module).
pub fn has_model(func: Func) -> bool {
    func.model().is_some()
}

/// Whether every function an expression calls has a Taylor model; the first one that has
/// none otherwise.
pub fn expr_has_model(expr: &Expr) -> Result<(), NoModel> {
    match expr {
        Expr::X | Expr::Const(_) | Expr::Pi | Expr::E => Ok(()),
        Expr::Neg(a) | Expr::PowI(a, _) => expr_has_model(a),
        Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) | Expr::Div(a, b) => {
            expr_has_model(a).and_then(|()| expr_has_model(b))
        }
        Expr::Call(f, a) if has_model(*f) => expr_has_model(a),
        Expr::Call(f, _) => Err(NoModel::Unsupported(*f)),
    }
}

/// A Taylor model of f around an exact center (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct TaylorModel {
    center: Float,
    radius: Float,
    prec: u32,
    coefficients: Vec<Float>,
    coefficient_errors: Vec<Float>,
    remainder: Float,
}

impl TaylorModel {
    /// The exact center x0.
    pub fn center(&self) -> &Float {
        &self.center
    }

    /// The radius r: the model holds for |t| <= r.
    pub fn radius(&self) -> &Float {
        &self.radius
    }

    /// The working precision of the coefficients.
    pub fn prec(&self) -> u32 {
        self.prec
    }

    /// The degree d of the polynomial.
    pub fn degree(&self) -> usize {
        self.coefficients.len() - 1
    }

    /// The midpoints m_0..m_d of the coefficient enclosures, `prec` bits each.
    pub fn coefficients(&self) -> &[Float] {
        &self.coefficients
    }

    /// e_0..e_d with |f^(k)(x0)/k! - m_k| <= e_k.
    pub fn coefficient_errors(&self) -> &[Float] {
        &self.coefficient_errors
    }

    /// R: |f(x0 + t) - sum_k f^(k)(x0)/k! t^k| <= R for |t| <= r.
    pub fn remainder(&self) -> &Float {
        &self.remainder
    }

    /// A bound on |f(x0 + t) - sum_k m_k t^k| over |t| <= r: R + sum_k e_k r^k, rounded up.
    pub fn error_bound(&self) -> Float {
        let mut total = self.remainder.clone();
        let mut power = Float::with_val(BOUND_PREC, 1);
        for error in &self.coefficient_errors {
            total = up(BOUND_PREC, &total + &up(BOUND_PREC, error * &power));
            power = up(BOUND_PREC, &power * &self.radius);
        }
        total
    }

    /// An enclosure `(lo, hi)` of f(x0 + t) for an exact t with |t| <= r (Horner's scheme in
    /// interval arithmetic, plus [-R, R]); `None` when |t| > r or the bound overflows.
    pub fn enclose(&self, t: &Float) -> Option<(Float, Float)> {
        if !t.is_finite() || Float::with_val(t.prec(), t.abs_ref()) > self.radius {
            return None;
        }
        let prec = self.prec;
        let t = Ival::point(t);
        let mut acc = Ival::zero(prec);
        for (m, e) in self.coefficients.iter().zip(&self.coefficient_errors).rev() {
            let coefficient = Ival::ball(m, e, prec).ok()?;
            acc = acc.mul(&t, prec).ok()?.add(&coefficient, prec).ok()?;
        }
        let remainder = Ival::ball(&Float::new(prec), &self.remainder, prec).ok()?;
        let sum = acc.add(&remainder, prec).ok()?;
        Some((sum.lo, sum.hi))
    }
}

/// The Taylor model of `expr` of degree `degree` around the exact `center`, valid for
/// |t| <= `radius`, computed in interval arithmetic at `prec` bits.
///
/// Errors: [`NoModel::Unsupported`] for a function without a model, [`NoModel::OutsideDomain`]
/// or [`NoModel::DivisionByZero`] when analyticity over [center - radius, center + radius]
/// cannot be proven, [`NoModel::Overflow`], and [`NoModel::InvalidArgument`] for a non-finite
/// center, a negative or non-finite radius, a degree above [`MAX_DEGREE`] or a precision
/// outside [`MIN_PREC`]..=`rug::float::prec_max()`.
pub fn taylor_model(
    expr: &Expr,
    center: &Float,
    radius: &Float,
    degree: usize,
    prec: u32,
) -> Result<TaylorModel, NoModel> {
    check_arguments(center, radius, degree, prec)?;
    expr_has_model(expr)?;
    let at_center = expand(expr, &Ival::point(center), degree + TAIL_ORDERS, prec)?;
    let (kept, tail) = at_center.coeffs.split_at(degree + 1);
    let remainder = remainder_bound(expr, center, radius, degree, tail, prec)?;
    let (coefficients, coefficient_errors) = kept
        .iter()
        .map(|c| c.midpoint_and_radius(prec))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .unzip();
    Ok(TaylorModel {
        center: center.clone(),
        radius: radius.clone().abs(),
        prec,
        coefficients,
        coefficient_errors,
        remainder,
    })
}

fn check_arguments(
    center: &Float,
    radius: &Float,
    degree: usize,
    prec: u32,
) -> Result<(), NoModel> {
    if !center.is_finite() {
        return Err(NoModel::InvalidArgument("the center must be finite"));
    }
    if !radius.is_finite() || (radius.is_sign_negative() && !radius.is_zero()) {
        return Err(NoModel::InvalidArgument(
            "the radius must be finite and >= 0",
        ));
    }
    if degree > MAX_DEGREE {
        return Err(NoModel::InvalidArgument("the degree exceeds MAX_DEGREE"));
    }
    if prec < MIN_PREC || prec > rug::float::prec_max() {
        return Err(NoModel::InvalidArgument("the precision is out of range"));
    }
    Ok(())
}

/// R = min over m in 0..=tail.len() of
/// sum_{k=d+1..d+m} |c_k(x0)| r^k + sup |c_{d+m+1}(X)| r^(d+m+1), X = [x0 - r, x0 + r]
/// (Lagrange at order d + m; see the module docs). `tail` holds c_{d+1}(x0)..c_{d+M}(x0).
fn remainder_bound(
    expr: &Expr,
    center: &Float,
    radius: &Float,
    degree: usize,
    tail: &[Ival],
    prec: u32,
) -> Result<Float, NoModel> {
    if radius.is_zero() {
        return Ok(Float::new(BOUND_PREC));
    }
    let whole = Ival::new(down(prec, center - radius), up(prec, center + radius))?;
    let first = degree + 1;
    let over_whole = expand(expr, &whole, first + tail.len(), prec)?;
    let mut best: Option<Float> = None;
    let mut partial_sum = Float::new(BOUND_PREC);
    for m in 0..=tail.len() {
        let power = radius_power(radius, first + m)?;
        let last = up(
            BOUND_PREC,
            &over_whole.coeffs[first + m].magnitude() * &power,
        );
        let candidate = up(BOUND_PREC, &partial_sum + &last);
        if best.as_ref().is_none_or(|b| candidate < *b) {
            best = Some(candidate);
        }
        if let Some(c) = tail.get(m) {
            let term = up(BOUND_PREC, &c.magnitude() * &power);
            partial_sum = up(BOUND_PREC, &partial_sum + &term);
        }
    }
    match best {
        Some(bound) if bound.is_finite() => Ok(bound),
        _ => Err(NoModel::Overflow),
    }
}

/// r^k rounded up.
fn radius_power(radius: &Float, k: usize) -> Result<Float, NoModel> {
    let k = u32::try_from(k).map_err(|_| NoModel::Overflow)?;
    Ok(up(BOUND_PREC, radius.pow(k)))
}

/// The series of order `order` of `expr` at x = x0 + t, where x0 is an interval.
fn expand(expr: &Expr, x0: &Ival, order: usize, prec: u32) -> Result<Series, NoModel> {
    let x = Series::variable(x0.clone(), order, prec);
    series_of(expr, &x, prec)
}

fn series_of(expr: &Expr, x: &Series, prec: u32) -> Result<Series, NoModel> {
    let order = x.order();
    let constant = |v: Ival| Ok(Series::constant(v, order, prec));
    match expr {
        Expr::X => Ok(x.clone()),
        Expr::Const(q) => constant(Ival::rational(q, prec)),
        Expr::Pi => constant(Ival::pi(prec)),
        Expr::E => constant(Ival::e(prec)?),
        Expr::Neg(a) => Ok(series_of(a, x, prec)?.neg()),
        Expr::Add(a, b) => series_of(a, x, prec)?.add(&series_of(b, x, prec)?, prec),
        Expr::Sub(a, b) => series_of(a, x, prec)?.sub(&series_of(b, x, prec)?, prec),
        Expr::Mul(a, b) => series_of(a, x, prec)?.mul(&series_of(b, x, prec)?, prec),
        Expr::Div(a, b) => series_of(a, x, prec)?.div(&series_of(b, x, prec)?, prec),
        Expr::PowI(a, n) => series_of(a, x, prec)?.powi(*n, prec),
        Expr::Call(f, a) => apply(*f, &series_of(a, x, prec)?, prec),
    }
}

// ---------------------------------------------------------------------------------------------
// Intervals with outward rounding.

fn down<T>(prec: u32, value: T) -> Float
where
    Float: AssignRound<T, Round = Round, Ordering = Ordering>,
{
    Float::with_val_round(prec, value, Round::Down).0
}

fn up<T>(prec: u32, value: T) -> Float
where
    Float: AssignRound<T, Round = Round, Ordering = Ordering>,
{
    Float::with_val_round(prec, value, Round::Up).0
}

/// A closed interval [lo, hi] of reals with finite MPFR end points. Every operation rounds
/// its lower end down and its upper end up, and fails rather than produce a non-finite end.
#[derive(Clone, Debug, PartialEq)]
struct Ival {
    lo: Float,
    hi: Float,
}

impl Ival {
    fn new(lo: Float, hi: Float) -> Result<Ival, NoModel> {
        if lo.is_finite() && hi.is_finite() {
            Ok(Ival { lo, hi })
        } else {
            Err(NoModel::Overflow)
        }
    }

    /// [x, x] for a finite x, at x's own precision.
    fn point(x: &Float) -> Ival {
        Ival {
            lo: x.clone(),
            hi: x.clone(),
        }
    }

    fn zero(prec: u32) -> Ival {
        Ival::point(&Float::new(prec))
    }

    fn integer(value: i32, prec: u32) -> Ival {
        Ival::point(&Float::with_val(prec.max(32), value))
    }

    /// [m - e, m + e].
    fn ball(mid: &Float, radius: &Float, prec: u32) -> Result<Ival, NoModel> {
        Ival::new(down(prec, mid - radius), up(prec, mid + radius))
    }

    fn rational(q: &Rational, prec: u32) -> Ival {
        Ival {
            lo: down(prec, q),
            hi: up(prec, q),
        }
    }

    fn pi(prec: u32) -> Ival {
        Ival {
            lo: down(prec, Constant::Pi),
            hi: up(prec, Constant::Pi),
        }
    }

    fn ln2(prec: u32) -> Ival {
        Ival {
            lo: down(prec, Constant::Log2),
            hi: up(prec, Constant::Log2),
        }
    }

    fn ln10(prec: u32) -> Result<Ival, NoModel> {
        let ten = Float::with_val(8, 10);
        Ival::new(
            eval_rounded(Func::Log, &ten, prec, Dir::Down).0,
            eval_rounded(Func::Log, &ten, prec, Dir::Up).0,
        )
    }

    fn e(prec: u32) -> Result<Ival, NoModel> {
        let one = Float::with_val(8, 1);
        Ival::new(
            eval_rounded(Func::Exp, &one, prec, Dir::Down).0,
            eval_rounded(Func::Exp, &one, prec, Dir::Up).0,
        )
    }

    /// 2 / sqrt(pi), the factor of erf' = 2/sqrt(pi) exp(-x^2).
    fn two_over_sqrt_pi(prec: u32) -> Result<Ival, NoModel> {
        let pi = Ival::pi(prec);
        let root = Ival::new(down(prec, pi.lo.sqrt_ref()), up(prec, pi.hi.sqrt_ref()))?;
        root.recip(prec)?.mul_int(2, prec)
    }

    fn half(prec: u32) -> Ival {
        Ival::point(&Float::with_val(prec.max(2), 0.5))
    }

    fn is_zero(&self) -> bool {
        self.lo.is_zero() && self.hi.is_zero()
    }

    fn excludes_zero(&self) -> bool {
        self.lo > 0 || self.hi < 0
    }

    /// sup |x|, exactly.
    fn magnitude(&self) -> Float {
        let lo = Float::with_val(self.lo.prec(), self.lo.abs_ref());
        let hi = Float::with_val(self.hi.prec(), self.hi.abs_ref());
        if lo > hi {
            lo
        } else {
            hi
        }
    }

    /// The midpoint rounded to `prec` bits and a radius (at [`BOUND_PREC`] bits, rounded up)
    /// of a ball around it that contains the interval.
    fn midpoint_and_radius(&self, prec: u32) -> Result<(Float, Float), NoModel> {
        let mid = Float::with_val(prec, &self.lo + &self.hi) / 2u32;
        let above = up(BOUND_PREC, &self.hi - &mid).abs();
        let below = up(BOUND_PREC, &mid - &self.lo).abs();
        let radius = max(above, below);
        if mid.is_finite() && radius.is_finite() {
            Ok((mid, radius))
        } else {
            Err(NoModel::Overflow)
        }
    }

    fn neg(&self) -> Ival {
        Ival {
            lo: Float::with_val(self.hi.prec(), -&self.hi),
            hi: Float::with_val(self.lo.prec(), -&self.lo),
        }
    }

    fn add(&self, other: &Ival, prec: u32) -> Result<Ival, NoModel> {
        Ival::new(
            down(prec, &self.lo + &other.lo),
            up(prec, &self.hi + &other.hi),
        )
    }

    fn sub(&self, other: &Ival, prec: u32) -> Result<Ival, NoModel> {
        Ival::new(
            down(prec, &self.lo - &other.hi),
            up(prec, &self.hi - &other.lo),
        )
    }

    fn add_integer(&self, value: i32, prec: u32) -> Result<Ival, NoModel> {
        Ival::new(down(prec, &self.lo + value), up(prec, &self.hi + value))
    }

    /// The product, by the sign cases of both factors (two MPFR products in all but one case).
    fn mul(&self, other: &Ival, prec: u32) -> Result<Ival, NoModel> {
        if self.is_zero() || other.is_zero() {
            return Ok(Ival::zero(prec));
        }
        let (a, b, c, d) = (&self.lo, &self.hi, &other.lo, &other.hi);
        let product = |x: &Float, y: &Float, z: &Float, w: &Float| {
            Ival::new(down(prec, x * y), up(prec, z * w))
        };
        if *a >= 0 {
            if *c >= 0 {
                product(a, c, b, d)
            } else if *d <= 0 {
                product(b, c, a, d)
            } else {
                product(b, c, b, d)
            }
        } else if *b <= 0 {
            if *c >= 0 {
                product(a, d, b, c)
            } else if *d <= 0 {
                product(b, d, a, c)
            } else {
                product(a, d, a, c)
            }
        } else if *c >= 0 {
            product(a, d, b, d)
        } else if *d <= 0 {
            product(b, c, a, c)
        } else {
            let lo = min(down(prec, a * d), down(prec, b * c));
            let hi = max(up(prec, a * c), up(prec, b * d));
            Ival::new(lo, hi)
        }
    }

    /// x^2, which unlike x*x is never negative.
    fn square(&self, prec: u32) -> Result<Ival, NoModel> {
        if self.lo >= 0 || self.hi <= 0 {
            let m = self.magnitude();
            let lo_abs = min(
                Float::with_val(self.lo.prec(), self.lo.abs_ref()),
                Float::with_val(self.hi.prec(), self.hi.abs_ref()),
            );
            Ival::new(down(prec, lo_abs.square_ref()), up(prec, m.square_ref()))
        } else {
            Ival::new(Float::new(prec), up(prec, self.magnitude().square_ref()))
        }
    }

    fn mul_int(&self, factor: i64, prec: u32) -> Result<Ival, NoModel> {
        if factor >= 0 {
            Ival::new(down(prec, &self.lo * factor), up(prec, &self.hi * factor))
        } else {
            Ival::new(down(prec, &self.hi * factor), up(prec, &self.lo * factor))
        }
    }

    /// x / k for k > 0.
    fn div_positive_int(&self, divisor: u64, prec: u32) -> Result<Ival, NoModel> {
        Ival::new(down(prec, &self.lo / divisor), up(prec, &self.hi / divisor))
    }

    fn recip(&self, prec: u32) -> Result<Ival, NoModel> {
        if !self.excludes_zero() {
            return Err(NoModel::DivisionByZero);
        }
        Ival::new(down(prec, 1 / &self.hi), up(prec, 1 / &self.lo))
    }

    fn clamp_to_unit(self) -> Ival {
        let one = Float::with_val(2, 1);
        let minus_one = Float::with_val(2, -1);
        Ival {
            lo: if self.lo < -1 { minus_one } else { self.lo },
            hi: if self.hi > 1 { one } else { self.hi },
        }
    }
}

fn min(a: Float, b: Float) -> Float {
    if b < a {
        b
    } else {
        a
    }
}

fn max(a: Float, b: Float) -> Float {
    if b > a {
        b
    } else {
        a
    }
}

// ---------------------------------------------------------------------------------------------
// Truncated Taylor series with interval coefficients.

/// c_0 + c_1 t + ... + c_n t^n, each c_k an interval; n is the order.
#[derive(Clone, Debug, PartialEq)]
struct Series {
    coeffs: Vec<Ival>,
}

impl Series {
    fn constant(value: Ival, order: usize, prec: u32) -> Series {
        let mut coeffs = vec![Ival::zero(prec); order + 1];
        coeffs[0] = value;
        Series { coeffs }
    }

    /// x0 + t.
    fn variable(x0: Ival, order: usize, prec: u32) -> Series {
        let mut series = Series::constant(x0, order, prec);
        if order >= 1 {
            series.coeffs[1] = Ival::integer(1, prec);
        }
        series
    }

    fn order(&self) -> usize {
        self.coeffs.len() - 1
    }

    fn zip_with(
        &self,
        other: &Series,
        op: impl Fn(&Ival, &Ival) -> Result<Ival, NoModel>,
    ) -> Result<Series, NoModel> {
        let coeffs = self.coeffs.iter().zip(&other.coeffs).map(|(a, b)| op(a, b));
        Ok(Series {
            coeffs: coeffs.collect::<Result<_, _>>()?,
        })
    }

    fn map(&self, op: impl Fn(&Ival) -> Result<Ival, NoModel>) -> Result<Series, NoModel> {
        Ok(Series {
            coeffs: self.coeffs.iter().map(op).collect::<Result<_, _>>()?,
        })
    }

    fn neg(&self) -> Series {
        Series {
            coeffs: self.coeffs.iter().map(Ival::neg).collect(),
        }
    }

    fn add(&self, other: &Series, prec: u32) -> Result<Series, NoModel> {
        self.zip_with(other, |a, b| a.add(b, prec))
    }

    fn sub(&self, other: &Series, prec: u32) -> Result<Series, NoModel> {
        self.zip_with(other, |a, b| a.sub(b, prec))
    }

    /// The series plus an integer constant.
    fn add_integer(&self, value: i32, prec: u32) -> Result<Series, NoModel> {
        let mut sum = self.clone();
        sum.coeffs[0] = self.coeffs[0].add_integer(value, prec)?;
        Ok(sum)
    }

    /// Every coefficient times an interval constant.
    fn scale(&self, factor: &Ival, prec: u32) -> Result<Series, NoModel> {
        self.map(|c| c.mul(factor, prec))
    }

    /// The Cauchy product, skipping exact zero coefficients (x0 + t has many).
    fn mul(&self, other: &Series, prec: u32) -> Result<Series, NoModel> {
        let mut coeffs = Vec::with_capacity(self.coeffs.len());
        for k in 0..=self.order() {
            let mut sum = Ival::zero(prec);
            for (a, b) in self.coeffs[..=k]
                .iter()
                .zip(other.coeffs[..=k].iter().rev())
            {
                if !a.is_zero() && !b.is_zero() {
                    sum = sum.add(&a.mul(b, prec)?, prec)?;
                }
            }
            coeffs.push(sum);
        }
        Ok(Series { coeffs })
    }

    fn square(&self, prec: u32) -> Result<Series, NoModel> {
        let coeffs = (0..=self.order())
            .map(|k| square_coefficient(&self.coeffs, k, prec))
            .collect::<Result<_, _>>()?;
        Ok(Series { coeffs })
    }

    /// q = self / divisor from divisor q = self: q_k = (a_k - sum_{j=1..k} b_j q_{k-j}) / b_0.
    fn div(&self, divisor: &Series, prec: u32) -> Result<Series, NoModel> {
        let inverse = divisor.coeffs[0].recip(prec)?;
        let mut coeffs: Vec<Ival> = Vec::with_capacity(self.coeffs.len());
        for k in 0..=self.order() {
            let mut rest = self.coeffs[k].clone();
            for j in 1..=k {
                let b = &divisor.coeffs[j];
                if !b.is_zero() {
                    rest = rest.sub(&b.mul(&coeffs[k - j], prec)?, prec)?;
                }
            }
            coeffs.push(rest.mul(&inverse, prec)?);
        }
        Ok(Series { coeffs })
    }

    fn recip(&self, prec: u32) -> Result<Series, NoModel> {
        Series::constant(Ival::integer(1, prec), self.order(), prec).div(self, prec)
    }

    /// self^n by binary powering; a negative n divides 1 by self^|n| (and x^0 = 1, as C's pow).
    fn powi(&self, n: i32, prec: u32) -> Result<Series, NoModel> {
        let mut exponent = n.unsigned_abs();
        let mut power: Option<Series> = None;
        let mut base = self.clone();
        while exponent > 0 {
            if exponent & 1 == 1 {
                power = Some(match power {
                    Some(p) => p.mul(&base, prec)?,
                    None => base.clone(),
                });
            }
            exponent >>= 1;
            if exponent > 0 {
                base = base.square(prec)?;
            }
        }
        let one = Series::constant(Ival::integer(1, prec), self.order(), prec);
        match (power, n < 0) {
            (None, _) => Ok(one),
            (Some(p), false) => Ok(p),
            (Some(p), true) => one.div(&p, prec),
        }
    }
}

/// The k-th coefficient of g^2 from g_0..g_k: 2 sum_{i<k-i} g_i g_{k-i} + g_{k/2}^2.
fn square_coefficient(g: &[Ival], k: usize, prec: u32) -> Result<Ival, NoModel> {
    let mut pairs = Ival::zero(prec);
    for i in 0..k.div_ceil(2) {
        if !g[i].is_zero() && !g[k - i].is_zero() {
            pairs = pairs.add(&g[i].mul(&g[k - i], prec)?, prec)?;
        }
    }
    let mut sum = pairs.mul_int(2, prec)?;
    if k.is_multiple_of(2) {
        sum = sum.add(&g[k / 2].square(prec)?, prec)?;
    }
    Ok(sum)
}

/// The k-th coefficient (k >= 1) of an antiderivative of f' h: (1/k) sum_{j=1..k} j f_j h_{k-j}.
/// Only h_0..h_{k-1} are read, so h may be the series being built.
fn integral_coefficient(f: &[Ival], h: &[Ival], k: usize, prec: u32) -> Result<Ival, NoModel> {
    let mut sum = Ival::zero(prec);
    for j in 1..=k {
        if !f[j].is_zero() && !h[k - j].is_zero() {
            let term = f[j].mul(&h[k - j], prec)?.mul_int(j as i64, prec)?;
            sum = sum.add(&term, prec)?;
        }
    }
    sum.div_positive_int(k as u64, prec)
}

/// g = g_0 + integral of f' h, for an h computed beforehand from f.
fn integrate(g0: Ival, f: &Series, h: &Series, prec: u32) -> Result<Series, NoModel> {
    let mut coeffs = vec![g0];
    for k in 1..=f.order() {
        coeffs.push(integral_coefficient(&f.coeffs, &h.coeffs, k, prec)?);
    }
    Ok(Series { coeffs })
}

// ---------------------------------------------------------------------------------------------
// Elementary functions of series.

/// phi(f) for a registry function phi with a model, by the recurrence its entry names.
fn apply(func: Func, f: &Series, prec: u32) -> Result<Series, NoModel> {
    let Some(model) = func.model() else {
        return Err(NoModel::Unsupported(func));
    };
    if let Model::Special(special) = model {
        return special::apply(func, special, f, prec);
    }
    let f0 = &f.coeffs[0];
    let g0 = value_range(func, f0, prec)?;
    match model {
        Model::Exp(base) => exp_series(g0, &exponent_series(base, f, prec)?, prec),
        Model::Expm1(base) => {
            let mut series = exp_series(
                g0.add_integer(1, prec)?,
                &exponent_series(base, f, prec)?,
                prec,
            )?;
            series.coeffs[0] = g0;
            Ok(series)
        }
        Model::Log(base) => integrate(g0, f, &log_base_scale(base, &f.recip(prec)?, prec)?, prec),
        Model::Log1p(base) => {
            let h = f.add_integer(1, prec)?.recip(prec)?;
            integrate(g0, f, &log_base_scale(base, &h, prec)?, prec)
        }
        Model::Power { p, q } => power_series(g0, f, p, q, prec),
        Model::Sine(trig) => sin_cos_like(trig, true, g0, f, prec),
        Model::Cosine(trig) => sin_cos_like(trig, false, g0, f, prec),
        Model::Tan(trig) => tan_like(trig, g0, f, prec),
        Model::Atan(angle) => {
            let h = f.square(prec)?.add_integer(1, prec)?.recip(prec)?;
            integrate(g0, f, &pi_scale(angle, h, prec)?, prec)
        }
        Model::Asin(angle) | Model::Acos(angle) => {
            let one_minus = f.neg().add_integer(1, prec)?;
            let product = one_minus.mul(&f.add_integer(1, prec)?, prec)?;
            let mut h = rsqrt_series(func, &product, prec)?;
            if matches!(model, Model::Acos(_)) {
                h = h.neg();
            }
            integrate(g0, f, &pi_scale(angle, h, prec)?, prec)
        }
        Model::Asinh => integrate(
            g0,
            f,
            &rsqrt_series(func, &f.square(prec)?.add_integer(1, prec)?, prec)?,
            prec,
        ),
        Model::Acosh => {
            let product = f
                .add_integer(-1, prec)?
                .mul(&f.add_integer(1, prec)?, prec)?;
            integrate(g0, f, &rsqrt_series(func, &product, prec)?, prec)
        }
        Model::Atanh => {
            let product = f
                .neg()
                .add_integer(1, prec)?
                .mul(&f.add_integer(1, prec)?, prec)?;
            integrate(g0, f, &product.recip(prec)?, prec)
        }
        Model::Erf => integrate(g0, f, &erf_derivative_factor(false, f, prec)?, prec),
        Model::Erfc => integrate(g0, f, &erf_derivative_factor(true, f, prec)?, prec),
        Model::Special(_) => unreachable!("the special functions return above"),
    }
}

/// f ln b for the exponentials of base b (exp: f itself).
fn exponent_series(base: Base, f: &Series, prec: u32) -> Result<Series, NoModel> {
    match base {
        Base::Two => f.scale(&Ival::ln2(prec), prec),
        Base::Ten => f.scale(&Ival::ln10(prec)?, prec),
        Base::E => Ok(f.clone()),
    }
}

/// h / ln b for the logarithms of base b (natural ones: h itself).
fn log_base_scale(base: Base, h: &Series, prec: u32) -> Result<Series, NoModel> {
    match base {
        Base::Two => h.scale(&Ival::ln2(prec).recip(prec)?, prec),
        Base::Ten => h.scale(&Ival::ln10(prec)?.recip(prec)?, prec),
        Base::E => Ok(h.clone()),
    }
}

/// h / pi for the inverse trigonometric functions in half-turns (radians: h itself).
fn pi_scale(angle: Angle, h: Series, prec: u32) -> Result<Series, NoModel> {
    match angle {
        Angle::HalfTurns => h.scale(&Ival::pi(prec).recip(prec)?, prec),
        Angle::Radians => Ok(h),
    }
}

/// g = exp(u) from g_0 (any exp(u_0) enclosure): g' = u' g.
fn exp_series(g0: Ival, u: &Series, prec: u32) -> Result<Series, NoModel> {
    let mut coeffs = vec![g0];
    for k in 1..=u.order() {
        let next = integral_coefficient(&u.coeffs, &coeffs, k, prec)?;
        coeffs.push(next);
    }
    Ok(Series { coeffs })
}

/// g = f^(p/q) from g_0, with f_0 bounded away from 0: f g' = (p/q) f' g, so
/// g_k = sum_{j=1..k} ((p + q) j - q k) f_j g_{k-j} / (q k f_0).
fn power_series(g0: Ival, f: &Series, p: i64, q: i64, prec: u32) -> Result<Series, NoModel> {
    let inverse = f.coeffs[0].recip(prec)?;
    let mut coeffs = vec![g0];
    for k in 1..=f.order() {
        let mut sum = Ival::zero(prec);
        for j in 1..=k {
            let weight = (p + q) * j as i64 - q * k as i64;
            if weight != 0 && !f.coeffs[j].is_zero() {
                let term = f.coeffs[j]
                    .mul(&coeffs[k - j], prec)?
                    .mul_int(weight, prec)?;
                sum = sum.add(&term, prec)?;
            }
        }
        let scaled = sum
            .mul(&inverse, prec)?
            .div_positive_int((q * k as i64) as u64, prec)?;
        coeffs.push(scaled);
    }
    Ok(Series { coeffs })
}

/// w^(-1/2) for a w whose constant term must be positive, else `func` (which needs it) fails.
fn rsqrt_series(func: Func, w: &Series, prec: u32) -> Result<Series, NoModel> {
    if w.coeffs[0].lo <= 0 {
        return Err(NoModel::OutsideDomain(func));
    }
    let g0 = value_range(Func::Rsqrt, &w.coeffs[0], prec)?;
    power_series(g0, w, -1, 2, prec)
}

/// ±(2/sqrt(pi)) exp(-f^2): erf' (+) or erfc' (-, `complement`) along f.
fn erf_derivative_factor(complement: bool, f: &Series, prec: u32) -> Result<Series, NoModel> {
    let minus_square = f.square(prec)?.neg();
    let e0 = value_range(Func::Exp, &minus_square.coeffs[0], prec)?;
    let gaussian = exp_series(e0, &minus_square, prec)?;
    let factor = Ival::two_over_sqrt_pi(prec)?;
    let factor = if complement { factor.neg() } else { factor };
    gaussian.scale(&factor, prec)
}

/// sin, cos, sinpi, cospi, sinh, cosh: the pair s, c with s' = u' c and c' = ∓u' s, where
/// u = f (u = pi f for the half-turn variants); g_0 is s_0 (`sine`) or c_0, the other one
/// comes from MPFR too.
fn sin_cos_like(
    trig: Trig,
    sine: bool,
    g0: Ival,
    f: &Series,
    prec: u32,
) -> Result<Series, NoModel> {
    let (sine_func, cosine_func) = trig.pair();
    let hyperbolic = trig == Trig::Hyperbolic;
    let u = half_turn_argument(trig, f, prec)?;
    let (s0, c0) = if sine {
        (g0, value_range(cosine_func, &f.coeffs[0], prec)?)
    } else {
        (value_range(sine_func, &f.coeffs[0], prec)?, g0)
    };
    let (mut s, mut c) = (vec![s0], vec![c0]);
    for k in 1..=f.order() {
        let s_k = integral_coefficient(&u.coeffs, &c, k, prec)?;
        let c_k = integral_coefficient(&u.coeffs, &s, k, prec)?;
        s.push(s_k);
        c.push(if hyperbolic { c_k } else { c_k.neg() });
    }
    Ok(Series {
        coeffs: if sine { s } else { c },
    })
}

/// u, the argument of the pair: pi f for the half-turn functions, f for the others.
fn half_turn_argument(trig: Trig, f: &Series, prec: u32) -> Result<Series, NoModel> {
    match trig {
        Trig::HalfTurn => f.scale(&Ival::pi(prec), prec),
        Trig::Circular | Trig::Hyperbolic => Ok(f.clone()),
    }
}

/// tan, tanpi, tanh: g' = u' h with h = 1 + g^2 (tanh: 1 - g^2), u = f (tanpi: pi f). The
/// constant term of h is 1 + g_0^2, or 1/cosh(f_0)^2 for tanh, which avoids 1 - tanh^2's
/// cancellation at large arguments; where cosh(f_0) is beyond MPFR's exponent range (|f_0|
/// past about 2^29.5), 1 - g_0^2, a wider enclosure of the same value (tanh is then within
/// 2^-prec of ±1, and the model only has to say that its derivatives are that small).
fn tan_like(trig: Trig, g0: Ival, f: &Series, prec: u32) -> Result<Series, NoModel> {
    let hyperbolic = trig == Trig::Hyperbolic;
    let u = half_turn_argument(trig, f, prec)?;
    let h0 = if hyperbolic {
        let sech_squared = value_range(Func::Cosh, &f.coeffs[0], prec)
            .and_then(|c| c.square(prec))
            .and_then(|c| c.recip(prec));
        match sech_squared {
            Ok(h0) => h0,
            Err(_) => g0.square(prec)?.neg().add_integer(1, prec)?,
        }
    } else {
        g0.square(prec)?.add_integer(1, prec)?
    };
    let mut g = vec![g0];
    let mut h = vec![h0];
    for k in 1..=f.order() {
        g.push(integral_coefficient(&u.coeffs, &h, k, prec)?);
        let square = square_coefficient(&g, k, prec)?;
        h.push(if hyperbolic { square.neg() } else { square });
    }
    Ok(Series { coeffs: g })
}

// ---------------------------------------------------------------------------------------------
// Ranges: enclosures of phi(x) over an interval x, from MPFR's directed roundings.

/// An enclosure of {phi(v) : v in x}, after proving that phi is analytic on x, from the
/// shape the registry gives phi.
fn value_range(func: Func, x: &Ival, prec: u32) -> Result<Ival, NoModel> {
    if !analytic_on(func, x) {
        return Err(NoModel::OutsideDomain(func));
    }
    match func.shape() {
        Shape::Increasing => monotone_range(func, x, true, prec),
        Shape::Decreasing => monotone_range(func, x, false, prec),
        Shape::EvenIncreasing if x.lo >= 0 || x.hi <= 0 => monotone_range(func, x, x.lo >= 0, prec),
        Shape::EvenIncreasing => {
            let top = max(
                eval_rounded(func, &x.lo, prec, Dir::Up).0,
                eval_rounded(func, &x.hi, prec, Dir::Up).0,
            );
            let zero = Float::new(prec);
            Ival::new(eval_rounded(func, &zero, prec, Dir::Down).0, top)
        }
        Shape::LipschitzOne | Shape::LipschitzPi => periodic_range(func, x, prec),
        Shape::TanLike => between_poles_range(func, x, prec),
        // Their series come from `special`, which encloses their values itself.
        Shape::GammaLike | Shape::SplitAtZero | Shape::PointOnly => Err(NoModel::Unsupported(func)),
    }
}

/// Whether phi is analytic on an open set containing x: x inside the interior of the hull of
/// phi's domain, and away from 0 for the fractional powers (sqrt, cbrt), whose branch point
/// it is. The discrete exclusions (tan's poles, the special functions') are checked apart.
fn analytic_on(func: Func, x: &Ival) -> bool {
    let (lo, hi) = func.domain().hull();
    let inside = lo.is_none_or(|lo| x.lo > lo) && hi.is_none_or(|hi| x.hi < hi);
    let branch_at_zero = match func.model() {
        Some(Model::Power { q, .. }) => q > 1,
        _ => false,
    };
    inside && (!branch_at_zero || x.excludes_zero())
}

fn monotone_range(func: Func, x: &Ival, increasing: bool, prec: u32) -> Result<Ival, NoModel> {
    let (first, last) = if increasing {
        (&x.lo, &x.hi)
    } else {
        (&x.hi, &x.lo)
    };
    Ival::new(
        eval_rounded(func, first, prec, Dir::Down).0,
        eval_rounded(func, last, prec, Dir::Up).0,
    )
}

/// A bound on |phi'|, from the shape the registry gives phi: 1 (sin, cos) or pi (sinpi,
/// cospi); `None` for the shapes that state none.
fn lipschitz_constant(func: Func, prec: u32) -> Option<Float> {
    match func.shape() {
        Shape::LipschitzOne => Some(Float::with_val(prec, 1)),
        Shape::LipschitzPi => Some(up(prec, Constant::Pi)),
        Shape::Increasing
        | Shape::Decreasing
        | Shape::EvenIncreasing
        | Shape::TanLike
        | Shape::GammaLike
        | Shape::SplitAtZero
        | Shape::PointOnly => None,
    }
}

/// phi(x) within phi(x.lo) ± L (x.hi - x.lo) for |phi'| <= L.
fn lipschitz_range(func: Func, x: &Ival, prec: u32) -> Result<Ival, NoModel> {
    let lipschitz = lipschitz_constant(func, prec).ok_or(NoModel::Unsupported(func))?;
    let width = up(prec, &x.hi - &x.lo);
    let spread = up(prec, &width * &lipschitz);
    let lo = eval_rounded(func, &x.lo, prec, Dir::Down).0;
    let hi = eval_rounded(func, &x.lo, prec, Dir::Up).0;
    Ival::new(down(prec, &lo - &spread), up(prec, &hi + &spread))
}

/// sin, cos, sinpi, cospi: monotone where the derivative (±cos, ±sin) has a proven sign,
/// otherwise a Lipschitz enclosure clipped to [-1, 1].
fn periodic_range(func: Func, x: &Ival, prec: u32) -> Result<Ival, NoModel> {
    if x.lo == x.hi {
        return monotone_range(func, x, true, prec);
    }
    // The derivative of a sine is its cosine partner, that of a cosine minus its sine.
    let (partner, derivative_is_partner) = match func.model() {
        Some(Model::Sine(trig)) => (trig.pair().1, true),
        Some(Model::Cosine(trig)) => (trig.pair().0, false),
        _ => return Err(NoModel::Unsupported(func)),
    };
    let slope = lipschitz_range(partner, x, prec)?;
    if slope.excludes_zero() {
        let increasing = (slope.lo > 0) == derivative_is_partner;
        return monotone_range(func, x, increasing, prec);
    }
    Ok(lipschitz_range(func, x, prec)?.clamp_to_unit())
}

/// tan, tanpi: increasing on x once cos (cospi) is proven nonzero on x, so that x holds no pole.
fn between_poles_range(func: Func, x: &Ival, prec: u32) -> Result<Ival, NoModel> {
    let Some(Model::Tan(trig)) = func.model() else {
        return Err(NoModel::Unsupported(func));
    };
    let cosine = trig.pair().1;
    if !lipschitz_range(cosine, x, prec)?.excludes_zero() {
        return Err(NoModel::OutsideDomain(func));
    }
    monotone_range(func, x, true, prec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(lo: f64, hi: f64) -> Ival {
        Ival {
            lo: Float::with_val(53, lo),
            hi: Float::with_val(53, hi),
        }
    }

    #[test]
    fn interval_products_cover_all_sign_cases() {
        let cases = [
            (-3.0, -2.0),
            (-3.0, 5.0),
            (2.0, 7.0),
            (0.0, 1.0),
            (-1.0, 0.0),
        ];
        for &(a, b) in &cases {
            for &(c, d) in &cases {
                let p = iv(a, b).mul(&iv(c, d), 64).unwrap();
                let products = [a * c, a * d, b * c, b * d];
                let lo = products.iter().cloned().fold(f64::INFINITY, f64::min);
                let hi = products.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                assert_eq!(
                    (p.lo.to_f64(), p.hi.to_f64()),
                    (lo, hi),
                    "[{a},{b}]*[{c},{d}]"
                );
            }
        }
        let s = iv(-3.0, 2.0).square(64).unwrap();
        assert_eq!((s.lo.to_f64(), s.hi.to_f64()), (0.0, 9.0));
        let s = iv(-3.0, -2.0).square(64).unwrap();
        assert_eq!((s.lo.to_f64(), s.hi.to_f64()), (4.0, 9.0));
    }

    #[test]
    fn rounding_is_outward() {
        let third = Ival::integer(1, 64).div_positive_int(3, 64).unwrap();
        let exact = Rational::from((1, 3));
        assert!(third.lo < exact && exact < third.hi);
        assert_eq!(iv(0.0, 0.0).recip(64), Err(NoModel::DivisionByZero));
        assert_eq!(iv(-1.0, 2.0).recip(64), Err(NoModel::DivisionByZero));
    }

    #[test]
    fn series_division_inverts_multiplication() {
        let x = Series::variable(Ival::point(&Float::with_val(53, 0.75)), 8, 128);
        let a = x.square(128).unwrap().add_integer(3, 128).unwrap();
        let back = a.mul(&x, 128).unwrap().div(&x, 128).unwrap();
        for (u, v) in back.coeffs.iter().zip(&a.coeffs) {
            assert!(u.lo <= v.lo && v.hi <= u.hi);
            assert!(Float::with_val(128, &u.hi - &u.lo) < 1e-30);
        }
    }
}
