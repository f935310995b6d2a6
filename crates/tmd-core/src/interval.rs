//! Rigorous enclosures of real results: interval arithmetic on MPFR.
//!
//! An [`Interval`] `[lo, hi]` contains the exact real result. It is `exact` when every step
//! that produced it was exact (MPFR ternary 0, or a function-specific rule): then `lo == hi` is
//! the result itself. A single function at an exact point is evaluated once, rounded down, and
//! the enclosure is `(r, next_up(r))` — MPFR's correct rounding is the proof. Operations on
//! inexact intervals round their lower ends down and upper ends up; functions use what is known
//! of their graph ([`Shape`]): monotone functions map end points, sin/cos/sinpi/cospi/j0/j1 use
//! their Lipschitz constants (|f'| <= 1 or pi), tan-like functions are monotone between poles
//! detected through cos, gamma-like ones between their poles with the direction given by
//! digamma. Where nothing is known (`PointOnly`) or a pole or domain boundary may lie inside,
//! the evaluation is [`Eval::Undecided`] and the caller raises the precision (Ziv's strategy):
//! arguments then narrow, and become exact once the precision holds them.

use crate::registry::{eval_rounded, exact_value, Dir, Exact, Func, Model, Shape, SpecialModel};
use rug::float::{Constant, Round};
use rug::ops::Pow;
use rug::{Float, Rational};
use std::cmp::Ordering;

/// A closed enclosure of a real number.
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    pub lo: Float,
    pub hi: Float,
    /// The value is exactly `lo` (== `hi`).
    pub exact: bool,
    /// The value is known to be nonzero even if the enclosure touches zero (an MPFR underflow
    /// of an inexact result).
    pub nonzero: bool,
}

/// The result of evaluating an expression at some precision.
#[derive(Clone, Debug, PartialEq)]
pub enum Eval {
    Value(Interval),
    /// Outside the domain (MPFR returns NaN, or a division by an exact zero).
    Undefined,
    /// An exact pole: the result is infinite (log(0), tanpi(1/2), gamma(0), 1/0), IEEE 754's
    /// divideByZero. `neg` is the sign of the infinity where it is defined (log(0) = -inf,
    /// 1/-0 = -inf, lgamma(-2) = +inf), `None` where it is not (digamma(-1): -inf from
    /// the right, +inf from the left) or not tracked (a pole inside a larger expression).
    Pole {
        neg: Option<bool>,
    },
    /// The enclosure at this precision is not good enough to go on; raise the precision.
    Undecided,
}

impl Interval {
    pub fn exact(v: Float) -> Interval {
        Interval {
            nonzero: !v.is_zero(),
            hi: v.clone(),
            lo: v,
            exact: true,
        }
    }

    fn from_bounds(lo: Float, hi: Float) -> Eval {
        if lo.is_nan() || hi.is_nan() {
            return Eval::Undecided;
        }
        let nonzero = lo > 0 || hi < 0;
        Eval::Value(Interval {
            lo,
            hi,
            exact: false,
            nonzero,
        })
    }

    /// An interval from a value rounded down with its MPFR ternary.
    fn from_rounded_down(r: Float, ternary: i32) -> Eval {
        if r.is_nan() {
            return Eval::Undefined;
        }
        if ternary == 0 {
            return if r.is_infinite() {
                Eval::Pole {
                    neg: Some(r.is_sign_negative()),
                }
            } else {
                Eval::Value(Interval::exact(r))
            };
        }
        let mut hi = r.clone();
        hi.next_up();
        Eval::Value(Interval {
            lo: r,
            hi,
            exact: false,
            nonzero: true,
        })
    }

    /// The constant q (a literal of an expression).
    pub fn rational(q: &Rational, prec: u32) -> Interval {
        let (lo, t) = Float::with_val_round(prec, q, Round::Down);
        match Interval::from_rounded_down(lo, t as i32) {
            Eval::Value(v) => v,
            _ => unreachable!("a finite rational has a finite enclosure"),
        }
    }

    /// pi, rounded both ways.
    pub fn pi(prec: u32) -> Interval {
        let lo = Float::with_val_round(prec, Constant::Pi, Round::Down).0;
        let hi = Float::with_val_round(prec, Constant::Pi, Round::Up).0;
        Interval {
            lo,
            hi,
            exact: false,
            nonzero: true,
        }
    }

    pub fn neg(&self) -> Interval {
        Interval {
            lo: -self.hi.clone(),
            hi: -self.lo.clone(),
            exact: self.exact,
            nonzero: self.nonzero,
        }
    }

    pub fn add(&self, other: &Interval, prec: u32) -> Eval {
        self.add_signed(other, prec, false)
    }

    pub fn sub(&self, other: &Interval, prec: u32) -> Eval {
        self.add_signed(other, prec, true)
    }

    fn add_signed(&self, other: &Interval, prec: u32, subtract: bool) -> Eval {
        let other = if subtract { other.neg() } else { other.clone() };
        if self.exact && other.exact {
            let (mut r, t) = Float::with_val_round(prec, &self.lo + &other.lo, Round::Down);
            if r.is_zero() {
                // An exact zero sum is +0 (IEEE 754 §6.3) except in rounding downwards, which
                // this enclosure's lower end uses; the value's sign is round-to-nearest's.
                r = Float::with_val(prec, &self.lo + &other.lo);
            }
            return Interval::from_rounded_down(r, t as i32);
        }
        let lo = Float::with_val_round(prec, &self.lo + &other.lo, Round::Down).0;
        let hi = Float::with_val_round(prec, &self.hi + &other.hi, Round::Up).0;
        Interval::from_bounds(lo, hi)
    }

    pub fn mul(&self, other: &Interval, prec: u32) -> Eval {
        if self.exact && other.exact {
            let (r, t) = Float::with_val_round(prec, &self.lo * &other.lo, Round::Down);
            return Interval::from_rounded_down(r, t as i32);
        }
        let ends = [
            (&self.lo, &other.lo),
            (&self.lo, &other.hi),
            (&self.hi, &other.lo),
            (&self.hi, &other.hi),
        ];
        let lo = ends
            .iter()
            .map(|(a, b)| Float::with_val_round(prec, *a * *b, Round::Down).0)
            .min_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal))
            .expect("four products");
        let hi = ends
            .iter()
            .map(|(a, b)| Float::with_val_round(prec, *a * *b, Round::Up).0)
            .max_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal))
            .expect("four products");
        Interval::from_bounds(lo, hi)
    }

    pub fn div(&self, other: &Interval, prec: u32) -> Eval {
        if other.exact && other.lo.is_zero() {
            // a/±0: a pole for a nonzero a (IEEE 754's divideByZero, signed by both signs),
            // no value for a = 0 (invalid: 0/0 is NaN); an enclosure of a that holds zero
            // and more needs more precision.
            // An enclosure [0, 0] is the value 0 even when a step was inexact (pi·0).
            return if self.lo.is_zero() && self.hi.is_zero() && !self.nonzero {
                Eval::Undefined
            } else if self.lo > 0 || self.hi < 0 || self.nonzero {
                let a_neg = self.hi < 0 || (self.hi.is_zero() && self.nonzero);
                Eval::Pole {
                    neg: Some(a_neg != other.lo.is_sign_negative()),
                }
            } else {
                Eval::Undecided
            };
        }
        if !(other.lo > 0 || other.hi < 0) {
            return Eval::Undecided;
        }
        if self.exact && other.exact {
            let (r, t) = Float::with_val_round(prec, &self.lo / &other.lo, Round::Down);
            return Interval::from_rounded_down(r, t as i32);
        }
        let lo = Float::with_val_round(prec, 1 / &other.hi, Round::Down).0;
        let hi = Float::with_val_round(prec, 1 / &other.lo, Round::Up).0;
        match Interval::from_bounds(lo, hi) {
            Eval::Value(recip) => self.mul(&recip, prec),
            other => other,
        }
    }

    /// x^n for an integer n (x^0 = 1, as C's pow).
    pub fn powi(&self, n: i32, prec: u32) -> Eval {
        if n == 0 {
            return Eval::Value(Interval::exact(Float::with_val(prec, 1)));
        }
        if n < 0 {
            let one = Interval::exact(Float::with_val(prec, 1));
            return match self.powi(-n, prec) {
                Eval::Value(p) => one.div(&p, prec),
                other => other,
            };
        }
        if self.exact {
            let (r, t) = Float::with_val_round(prec, (&self.lo).pow(n), Round::Down);
            return Interval::from_rounded_down(r, t as i32);
        }
        let pow = |v: &Float, dir| Float::with_val_round(prec, v.pow(n), dir).0;
        if n % 2 == 1 || self.lo >= 0 {
            Interval::from_bounds(pow(&self.lo, Round::Down), pow(&self.hi, Round::Up))
        } else if self.hi <= 0 {
            Interval::from_bounds(pow(&self.hi, Round::Down), pow(&self.lo, Round::Up))
        } else {
            let top = pow(&self.lo, Round::Up)
                .max(&pow(&self.hi, Round::Up))
                .clone();
            Interval::from_bounds(Float::new(prec), top)
        }
    }

    /// f over the interval (see the module docs).
    pub fn apply(&self, func: Func, prec: u32) -> Eval {
        if self.exact {
            return point(func, &self.lo, prec);
        }
        // MPFR extends some functions beyond the registry's domain (li2's real part above 1):
        // an interval must lie in the domain's hull; discrete exclusions are the shapes' job.
        let domain = func.domain();
        if !self.within_hull(domain) {
            return Eval::Undecided;
        }
        match func.shape() {
            Shape::Increasing => self.monotone(func, prec, true),
            Shape::Decreasing => self.monotone(func, prec, false),
            Shape::EvenIncreasing => {
                if self.lo >= 0 || self.hi <= 0 {
                    self.monotone(func, prec, self.lo >= 0)
                } else {
                    let up = |v: &Float| eval_rounded(func, v, prec, Dir::Up).0;
                    let top = up(&self.lo).max(&up(&self.hi)).clone();
                    Interval::from_bounds(Float::with_val(prec, 1), top)
                }
            }
            Shape::LipschitzOne => self.lipschitz(func, prec, 1),
            Shape::LipschitzPi => self.lipschitz(func, prec, 4),
            Shape::TanLike => {
                let Some(Model::Tan(trig)) = func.model() else {
                    return Eval::Undecided;
                };
                match self.lipschitz(trig.pair().1, prec, 4) {
                    Eval::Value(c) if c.lo > 0 || c.hi < 0 => self.monotone(func, prec, true),
                    _ => Eval::Undecided,
                }
            }
            Shape::GammaLike => self.gamma_like(func, prec),
            Shape::SplitAtZero if self.lo > 0 || self.hi < 0 => {
                self.monotone(func, prec, self.lo > 0)
            }
            Shape::SplitAtZero | Shape::PointOnly => Eval::Undecided,
        }
    }

    fn within_hull(&self, domain: crate::registry::Domain) -> bool {
        let (lo, hi) = domain.hull();
        lo.is_none_or(|l| self.lo >= l) && hi.is_none_or(|h| self.hi <= h)
    }

    fn monotone(&self, func: Func, prec: u32, increasing: bool) -> Eval {
        let (a, b) = if increasing {
            (&self.lo, &self.hi)
        } else {
            (&self.hi, &self.lo)
        };
        Interval::from_bounds(
            eval_rounded(func, a, prec, Dir::Down).0,
            eval_rounded(func, b, prec, Dir::Up).0,
        )
    }

    /// f([lo, hi]) within f(lo) ± L (hi - lo) when |f'| <= L.
    fn lipschitz(&self, func: Func, prec: u32, lipschitz: u32) -> Eval {
        let width = Float::with_val_round(prec, &self.hi - &self.lo, Round::Up).0 * lipschitz;
        let lo = eval_rounded(func, &self.lo, prec, Dir::Down).0;
        let hi = eval_rounded(func, &self.lo, prec, Dir::Up).0;
        Interval::from_bounds(
            Float::with_val_round(prec, &lo - &width, Round::Down).0,
            Float::with_val_round(prec, &hi + &width, Round::Up).0,
        )
    }

    /// gamma, lgamma and digamma are monotone between their poles at 0, -1, -2, ...; digamma
    /// increases there (its derivative, trigamma, is positive), lgamma has derivative digamma,
    /// and gamma' = gamma · digamma.
    fn gamma_like(&self, func: Func, prec: u32) -> Eval {
        let first_int = Float::with_val(prec, self.lo.ceil_ref());
        if first_int <= self.hi && first_int <= 0 {
            return Eval::Undecided;
        }
        // Gamma's sign flips the direction; log |Gamma| has none.
        let signed = match func.model() {
            Some(Model::Special(SpecialModel::Digamma)) => return self.monotone(func, prec, true),
            Some(Model::Special(SpecialModel::Gamma)) => true,
            Some(Model::Special(SpecialModel::Lgamma)) => false,
            _ => return Eval::Undecided,
        };
        let dlo = eval_rounded(Func::Digamma, &self.lo, prec, Dir::Down).0;
        let dhi = eval_rounded(Func::Digamma, &self.hi, prec, Dir::Up).0;
        let digamma_sign = if dlo > 0 {
            1
        } else if dhi < 0 {
            -1
        } else {
            return Eval::Undecided;
        };
        let gamma_sign = if signed {
            if eval_rounded(Func::Gamma, &self.lo, prec, Dir::Down).0 > 0 {
                1
            } else {
                -1
            }
        } else {
            1
        };
        self.monotone(func, prec, digamma_sign * gamma_sign > 0)
    }
}

/// f at an exact point: a function-specific exact rule, `Undefined` outside the registry's
/// domain, or one MPFR call rounded down.
pub fn point(func: Func, x: &Float, prec: u32) -> Eval {
    match exact_value(func, x) {
        Some(Exact::Value(v)) => Eval::Value(Interval::exact(v)),
        Some(Exact::Pole) => Eval::Pole {
            neg: pole_sign(func, x),
        },
        None if !func.domain().contains(x) => Eval::Undefined,
        None => {
            let (r, t) = eval_rounded(func, x, prec, Dir::Down);
            Interval::from_rounded_down(r, t)
        }
    }
}

/// The sign of f's infinity at a pole x, as MPFR returns it (which follows IEEE 754 §9.2:
/// log(±0) = -inf, atanh(±1) = ±inf, lgamma at non-positive integers +inf, gamma(±0) = ±inf,
/// digamma(±0) = ∓inf); `None` where MPFR returns NaN, the two one-sided limits differing
/// (gamma and digamma at negative integers).
fn pole_sign(func: Func, x: &Float) -> Option<bool> {
    let (r, _) = eval_rounded(func, x, 2, Dir::Nearest);
    r.is_infinite().then(|| r.is_sign_negative())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(e: Eval) -> Interval {
        match e {
            Eval::Value(v) => v,
            other => panic!("expected a value, got {other:?}"),
        }
    }

    #[test]
    fn point_enclosures_contain_the_high_precision_value() {
        for func in [
            Func::Exp,
            Func::Sin,
            Func::Gamma,
            Func::J1,
            Func::Erfc,
            Func::Atanh,
        ] {
            for i in 1..20 {
                let x = Float::with_val(64, i) / 23u32;
                let v = value(point(func, &x, 80));
                let (reference, _) = eval_rounded(func, &x, 400, Dir::Nearest);
                assert!(v.lo < reference && reference < v.hi, "{func}({x})");
            }
        }
    }

    #[test]
    fn interval_shapes_contain_values_of_inner_points() {
        // Enclose f over [x, x + 2^-60] at 100 bits and check values at both ends and inside.
        for info in crate::registry::FUNCTIONS {
            if info.shape == Shape::PointOnly {
                continue;
            }
            for i in [-7i32, -3, 1, 3, 5, 9] {
                let lo = Float::with_val(100, i) / 11u32 + 1.5f64;
                if !info.domain.contains(&lo) {
                    continue;
                }
                let hi = Float::with_val(100, &lo + Float::with_val(100, 1) / (1u64 << 60));
                let iv = Interval {
                    lo: lo.clone(),
                    hi: hi.clone(),
                    exact: false,
                    nonzero: true,
                };
                let Eval::Value(v) = iv.apply(info.func, 100) else {
                    continue;
                };
                let mid = Float::with_val(100, &lo + &hi) / 2u32;
                for t in [&lo, &hi, &mid] {
                    let (y, _) = eval_rounded(info.func, t, 300, Dir::Nearest);
                    assert!(v.lo <= y && y <= v.hi, "{}({t})", info.name);
                }
            }
        }
    }

    #[test]
    fn exactness_propagates_and_division_by_zero_is_undefined() {
        let two = Interval::exact(Float::with_val(64, 2));
        let three = Interval::exact(Float::with_val(64, 3));
        assert!(value(two.mul(&three, 64)).exact);
        assert!(!value(two.div(&three, 64)).exact);
        let zero = Interval::exact(Float::new(64));
        assert_eq!(two.div(&zero, 64), Eval::Pole { neg: Some(false) });
        let minus_zero = Interval::exact(-Float::new(64));
        assert_eq!(two.div(&minus_zero, 64), Eval::Pole { neg: Some(true) });
        assert_eq!(
            two.neg().div(&minus_zero, 64),
            Eval::Pole { neg: Some(false) }
        );
        assert_eq!(zero.div(&zero, 64), Eval::Undefined);
        let ninth = value(three.powi(-2, 64));
        let exact = Rational::from((1, 9));
        assert!(ninth.lo < exact && exact < ninth.hi && !ninth.exact);
    }
}
