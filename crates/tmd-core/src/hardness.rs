//! Exact hardness to round: where f(x) lies among the breakpoints of a format, decided with a
//! Ziv loop on rigorous MPFR enclosures.
//!
//! Definitions are docs/definitions.md. Scale |y| by half an ulp: `|y| = (n + t) · 2^(qexp-1)` with an
//! integer n and t in [0, 1). Half-ulp multiples are the breakpoints: even n are format numbers
//! (directed roundings change there), odd n are midpoints (round-to-nearest changes there). So
//! the distance, in ulps, to the breakpoint below is t/2 and to the one above (1-t)/2, and which
//! is which kind follows from the parity of n. Zero is never a breakpoint of a nonzero result:
//! its sign is known from any enclosure that excludes zero, so rounding a tiny result needs no
//! extra precision (results below half the smallest subnormal are not hard, whatever their size).
//! Results at or above 2^(emax+1) overflow and are not hard-to-round cases (2^(emax+1) itself is
//! a breakpoint for the directed roundings, the midpoint below it for round-to-nearest).
//!
//! The loop: evaluate an enclosure of y at precision w; if it lies strictly between two
//! breakpoints and pins down what the caller asks (is the distance below 2^-K? the bits to 3
//! decimals and the run length k?), stop; otherwise double w, up to a cap, beyond which the
//! input is reported `unresolved` — never a guess. Exact results (MPFR ternary 0, or a rule of
//! [`crate::registry::exact_value`]) are classified exactly; a result that *is* a breakpoint is
//! an `exact` case, reported apart from the hard-to-round cases.

use crate::expr::Expr;
use crate::format::{Format, FormatNumber};
use crate::interval::{Eval, Interval};
use rug::{Float, Integer};

/// Breakpoint kinds a search looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breakpoints {
    All,
    Directed,
    Nearest,
}

impl Breakpoints {
    pub fn parse(s: &str) -> Option<Breakpoints> {
        match s {
            "all" => Some(Breakpoints::All),
            "directed" => Some(Breakpoints::Directed),
            "nearest" => Some(Breakpoints::Nearest),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Breakpoints::All => "all",
            Breakpoints::Directed => "directed",
            Breakpoints::Nearest => "nearest",
        }
    }
    fn includes(self, kind: Kind) -> bool {
        matches!(
            (self, kind),
            (Breakpoints::All, _)
                | (Breakpoints::Directed, Kind::Directed)
                | (Breakpoints::Nearest, Kind::Nearest)
        )
    }
}

/// The kind of the closest breakpoint: a format number or a midpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Directed,
    Nearest,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Directed => "directed",
            Kind::Nearest => "nearest",
        }
    }
}

/// A correctly rounded result: a format number or an infinity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounded {
    Finite(FormatNumber),
    Infinite { neg: bool },
}

impl Rounded {
    pub fn to_hex(&self) -> String {
        match self {
            Rounded::Finite(x) => x.to_hex(),
            Rounded::Infinite { neg: false } => "inf".into(),
            Rounded::Infinite { neg: true } => "-inf".into(),
        }
    }
}

/// f(x) correctly rounded in the four IEEE rounding directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roundings {
    pub nearest: Rounded,
    pub down: Rounded,
    pub up: Rounded,
    pub toward_zero: Rounded,
}

/// An inexact result located strictly between two breakpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct Inexact {
    pub roundings: Roundings,
    /// The closer breakpoint kind.
    pub kind: Kind,
    /// -log2 of the distance to the closer breakpoint, in ulps.
    pub bits: f64,
    pub bits_directed: f64,
    pub bits_nearest: f64,
    /// Run length after the round bit (docs/definitions.md): the distance lies in
    /// [2^-(k+2), 2^-(k+1)) — for a run of ones that ends a dyadic y, (2^-(k+2), 2^-(k+1)].
    pub k: u32,
}

/// What f(x) is, relative to the format.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// y is a breakpoint: a format number (`midpoint` false) or a midpoint.
    Exact {
        roundings: Roundings,
        midpoint: bool,
    },
    Inexact(Inexact),
    /// |y| >= 2^(emax+1).
    Overflow {
        roundings: Roundings,
    },
    /// x is outside the domain.
    Undefined,
    /// f has a pole at x: its value is an exact infinity (IEEE 754's divideByZero), of sign
    /// `neg` where the sign is defined (log(0) = -inf, 1/-0 = -inf), `None` where it is not
    /// (digamma(-1)) or a pole lies inside a larger expression.
    Pole {
        neg: Option<bool>,
    },
    /// The Ziv loop reached its precision cap without deciding. When the last enclosure was
    /// narrower than 2^-B ulp yet held a breakpoint, `bits_at_least` is B: f(x) is within
    /// 2^-B ulp of a breakpoint (e.g. erfc(-2^100) = 2 - 2^-(10^30)), or is one.
    Unresolved {
        precision: u32,
        bits_at_least: Option<f64>,
    },
}

impl Outcome {
    /// Short name of the outcome, as printed in the `kind` column.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Outcome::Exact { .. } => "exact",
            Outcome::Inexact(i) => i.kind.name(),
            Outcome::Overflow { .. } => "overflow",
            Outcome::Undefined => "undefined",
            Outcome::Pole { .. } => "pole",
            Outcome::Unresolved { .. } => "unresolved",
        }
    }
    pub fn roundings(&self) -> Option<&Roundings> {
        match self {
            Outcome::Exact { roundings, .. } | Outcome::Overflow { roundings } => Some(roundings),
            Outcome::Inexact(i) => Some(&i.roundings),
            _ => None,
        }
    }
}

/// Default cap of the Ziv loop, in bits.
pub const DEFAULT_MAX_PRECISION: u32 = 8192;

/// The largest `--max-precision` taken: far beyond any hardness met in practice (erfc(-100)
/// needs 14,000 bits), far below MPFR's own limit, and a Ziv loop there still ends.
pub const MAX_PRECISION_CAP: u32 = 1 << 24;

/// Where an enclosure lies on the half-ulp grid.
#[derive(Debug)]
enum Location {
    Undecided,
    Undefined,
    Pole {
        neg: Option<bool>,
    },
    Overflow {
        neg: bool,
    },
    /// An exact zero; `neg` when both ends are -0 (f(-0) = -0 for the odd functions, as
    /// IEEE 754 and MPFR have it).
    Zero {
        neg: bool,
    },
    Grid(Grid),
}

/// |y| = (n + t) 2^(qexp-1), t in [t_lo, t_hi] within [0, 1) (t = 0 only when exact).
#[derive(Debug)]
struct Grid {
    neg: bool,
    qexp: i64,
    n: Integer,
    t_lo: Float,
    t_hi: Float,
    exact: bool,
}

fn locate(eval: Eval, format: &Format) -> Location {
    let iv = match eval {
        Eval::Value(iv) => iv,
        Eval::Undefined => return Location::Undefined,
        Eval::Pole { neg } => return Location::Pole { neg },
        Eval::Undecided => return Location::Undecided,
    };
    if iv.exact && iv.lo.is_zero() {
        return Location::Zero {
            neg: iv.lo.is_sign_negative() && iv.hi.is_sign_negative(),
        };
    }
    let Interval {
        lo,
        hi,
        exact,
        nonzero,
    } = iv;
    let neg = if lo > 0 || (nonzero && lo.is_zero()) {
        false
    } else if hi < 0 || (nonzero && hi.is_zero()) {
        true
    } else {
        return Location::Undecided;
    };
    let (a, b) = if neg { (-hi, -lo) } else { (lo, hi) };
    let overflow = Float::with_val(2, 1) << (format.emax() + 1);
    if a >= overflow {
        return Location::Overflow { neg };
    }
    if b >= overflow {
        return Location::Undecided;
    }
    // Quantum of the upper end's binade; the lower end must have the same quantum (a power of
    // two between binades of equal quantum is caught below as a grid point).
    let e_b = b.get_exp().expect("b is a positive finite number") as i64;
    let qexp = format.qexp_of_binade(e_b);
    if !a.is_zero() && format.qexp_of_binade(a.get_exp().expect("finite") as i64) != qexp {
        return Location::Undecided;
    }
    let shift = (qexp - 1) as i32;
    let s_a = a >> shift;
    let s_b = b >> shift;
    let n = s_b
        .to_integer_round(rug::float::Round::Down)
        .expect("finite")
        .0;
    let n_float = Float::with_val(n.significant_bits().max(1), &n);
    if !exact && (s_a < n_float || (s_a == n_float && !(n == 0 && nonzero))) {
        return Location::Undecided;
    }
    // s - n is exact at the operands' precision plus the integer part's width.
    let prec = s_b.prec().max(s_a.prec()) + n.significant_bits() + 2;
    let t_lo = Float::with_val(prec, &s_a - &n_float);
    let t_hi = Float::with_val(prec, &s_b - &n_float);
    Location::Grid(Grid {
        neg,
        qexp,
        n,
        t_lo,
        t_hi,
        exact,
    })
}

impl Grid {
    /// Bounds of the distance, in ulps, to the nearest breakpoint of `kind`, rounded outwards
    /// (exact whenever t's precision holds 1 - t, i.e. except for y below MPFR's range).
    fn distance(&self, kind: Kind) -> (Float, Float) {
        use rug::float::Round;
        let breakpoint_below_is = if self.n.is_even() {
            Kind::Directed
        } else {
            Kind::Nearest
        };
        let below_excluded = self.n == 0;
        let prec = self.t_lo.prec().max(self.t_hi.prec()) + 2;
        let half = |v: Float| v / 2u32; // exact
        if kind == breakpoint_below_is && !below_excluded {
            (half(self.t_lo.clone()), half(self.t_hi.clone()))
        } else {
            // The next breakpoint up is at n+1; for n = 0 the format number above is at n+2.
            let to = if kind == breakpoint_below_is {
                2u32
            } else {
                1u32
            };
            let lo = Float::with_val_round(prec, to - &self.t_hi, Round::Down).0;
            let hi = Float::with_val_round(prec, to - &self.t_lo, Round::Up).0;
            (half(lo), half(hi))
        }
    }

    fn is_breakpoint(&self) -> bool {
        self.exact && self.t_lo.is_zero()
    }

    /// Correct roundings; for a breakpoint y, ties to even.
    fn roundings(&self, format: &Format) -> Roundings {
        let quanta: Integer = Integer::from(&self.n >> 1u32);
        let on_format_number = self.is_breakpoint() && self.n.is_even();
        let below = quanta.clone();
        let above = if on_format_number {
            quanta.clone()
        } else {
            Integer::from(&quanta + 1u32)
        };
        let nearest = if on_format_number || (self.n.is_even() && !self.is_breakpoint()) {
            below.clone()
        } else if self.is_breakpoint() {
            // A midpoint: the neighbour with an even significand (the carry 2^p is even).
            if below.is_even() {
                below.clone()
            } else {
                above.clone()
            }
        } else {
            above.clone()
        };
        let make = |m: &Integer| match format.number_from_parts(self.neg, m, self.qexp) {
            Some(x) => Rounded::Finite(x),
            None => Rounded::Infinite { neg: self.neg },
        };
        let (toward_zero, away) = (make(&below), make(&above));
        let (down, up) = if self.neg {
            (away, toward_zero)
        } else {
            (toward_zero, away)
        };
        Roundings {
            nearest: make(&nearest),
            down,
            up,
            toward_zero,
        }
    }
}

fn overflow_roundings(format: &Format, neg: bool) -> Roundings {
    let max = format.max_finite();
    let big = Rounded::Finite(FormatNumber { neg, ..max });
    let inf = Rounded::Infinite { neg };
    Roundings {
        nearest: inf,
        down: if neg { inf } else { big },
        up: if neg { big } else { inf },
        toward_zero: big,
    }
}

fn zero_roundings(format: &Format, neg: bool) -> Roundings {
    let z = Rounded::Finite(FormatNumber {
        neg,
        ..FormatNumber::zero(format)
    });
    Roundings {
        nearest: z,
        down: z,
        up: z,
        toward_zero: z,
    }
}

/// -log2 of a positive dist, as f64.
fn neg_log2(d: &Float) -> f64 {
    // d = m·2^e with m in [1/2, 1): log2 d = e + log2 m, in f64 (the bits are reported to a
    // relative 2^-24 at most; an MPFR logarithm here took a third of the time of listing the
    // cases of a region where every input is hard).
    let Some(e) = d.get_exp() else {
        return -Float::with_val(64, d.log2_ref()).to_f64() + 0.0;
    };
    let m = Float::with_val(64, d >> e).to_f64();
    // + 0.0 turns -0.0 (a distance of exactly one ulp) into 0.0 for printing.
    -(e as f64 + m.log2()) + 0.0
}

/// The full classification once the grid position is known precisely enough, or `None`.
fn classify(grid: &Grid, format: &Format) -> Option<Outcome> {
    if grid.is_breakpoint() {
        return Some(Outcome::Exact {
            roundings: grid.roundings(format),
            midpoint: grid.n.is_odd(),
        });
    }
    let (dir_lo, dir_hi) = grid.distance(Kind::Directed);
    let (near_lo, near_hi) = grid.distance(Kind::Nearest);
    let kind = if dir_hi < near_lo {
        Kind::Directed
    } else if near_hi < dir_lo {
        Kind::Nearest
    } else if grid.exact {
        // Equidistant (y exactly a quarter-ulp point): report the format number.
        Kind::Directed
    } else {
        return None;
    };
    let (lo, hi) = if kind == Kind::Directed {
        (&dir_lo, &dir_hi)
    } else {
        (&near_lo, &near_hi)
    };
    // k from the binary exponent of the distance: ceil(-log2 d) = 1 - exp(d) (MPFR's
    // exponent, d in [2^(exp-1), 2^exp)), so both ends must share it; and bits to ~1e-6.
    // Below MPFR's own exponent range (exp(-2^1023)) the enclosure of a positive tiny y
    // starts at 0, so its distance to the midpoint q/2 is known only to lie in
    // [(1 - t_hi)/2, 1/2]; y > 0 excludes the closed end, so k = 0 all the same.
    let below_mpfr_range = !grid.exact && grid.n == 0 && grid.t_lo.is_zero();
    if lo.get_exp() != hi.get_exp() && !(below_mpfr_range && kind == Kind::Nearest) {
        return None;
    }
    let width = Float::with_val(hi.prec(), hi - lo);
    if !grid.exact && width > Float::with_val(lo.prec(), lo >> 24) {
        return None;
    }
    let k = run_length(grid, kind, lo)?;
    let mid = |a: &Float, b: &Float| Float::with_val(a.prec() + 1, a + b) / 2u32;
    Some(Outcome::Inexact(Inexact {
        roundings: grid.roundings(format),
        kind,
        bits: neg_log2(&mid(lo, hi)),
        bits_directed: neg_log2(&mid(&dir_lo, &dir_hi)),
        bits_nearest: neg_log2(&mid(&near_lo, &near_hi)),
        k,
    }))
}

/// Why an input has no rounding to classify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    Undefined,
    Pole,
    Overflow,
}

/// k, the run of identical bits after the round bit (docs/definitions.md), from the distance d to the
/// closest breakpoint, with E = MPFR's exponent of d (d in [2^(E-1), 2^E)). Breakpoint below
/// y (a run of zeros): d in [2^-(k+2), 2^-(k+1)), so k = -E - 1. Breakpoint above (a run of
/// ones): d in (2^-(k+2), 2^-(k+1)], so k = -E - 1, or -E when d is exactly 2^(E-1) — which
/// only a dyadic y can give (2^-55 - 1 in bfloat16 has 46 ones after its round bit).
fn run_length(grid: &Grid, kind: Kind, d_lo: &Float) -> Option<u32> {
    let e = d_lo.get_exp()? as i64;
    let power_of_two = *d_lo == Float::with_val(2, 1) << (e - 1) as i32;
    let breakpoint_below = grid.n != 0 && (kind == Kind::Directed) == grid.n.is_even();
    let k = match (breakpoint_below, power_of_two) {
        (false, true) if grid.exact => -e,
        // An inexact enclosure starting on a power of two cannot tell the two apart.
        (false, true) => return None,
        _ => -e - 1,
    };
    Some(k.max(0) as u32)
}

/// What the search needs to know of one input.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Not within 2^-K of an allowed breakpoint.
    NotHard,
    /// Outside the domain, at a pole, or overflowing: not a hard-to-round case.
    Skipped(Skip),
    /// A hard-to-round case, fully classified (an `Outcome::Inexact`).
    Hard(Outcome),
    /// y is a breakpoint (`Outcome::Exact`).
    Exact(Outcome),
    /// The loop hit its cap: the input is neither listed nor dropped silently.
    Unresolved(Outcome),
}

/// Exact hardness of `expr` at x for `format` (the `tmd hardness` computation).
pub fn hardness(expr: &Expr, format: &Format, x: &FormatNumber, max_precision: u32) -> Outcome {
    let xf = x.to_float();
    let mut prec = (format.precision() + 128).min(max_precision);
    loop {
        let eval = expr.eval(&xf, prec);
        let last = prec >= max_precision;
        // At the cap, what can still be said: a breakpoint inside the enclosure is within its
        // width; a located y is within its distance's upper bound.
        let mut hint = if last {
            enclosure_bits(&eval, format)
        } else {
            None
        };
        let outcome = match locate(eval, format) {
            Location::Undefined => Some(Outcome::Undefined),
            Location::Pole { neg } => Some(Outcome::Pole { neg }),
            Location::Zero { neg } => Some(Outcome::Exact {
                roundings: zero_roundings(format, neg),
                midpoint: false,
            }),
            Location::Overflow { neg } => Some(Outcome::Overflow {
                roundings: overflow_roundings(format, neg),
            }),
            Location::Grid(g) => {
                let outcome = classify(&g, format);
                if outcome.is_none() && last {
                    let (_, dir_hi) = g.distance(Kind::Directed);
                    let (_, near_hi) = g.distance(Kind::Nearest);
                    hint = Some(neg_log2(&dir_hi.min(&near_hi).clone()));
                }
                outcome
            }
            Location::Undecided => None,
        };
        if let Some(o) = outcome {
            return o;
        }
        if prec >= max_precision {
            return Outcome::Unresolved {
                precision: prec,
                bits_at_least: hint,
            };
        }
        prec = (prec * 2).min(max_precision);
    }
}

/// -log2 of an enclosure's width in ulps, when it excludes zero. The ulp is that of the
/// end nearer zero (the smaller one, if the enclosure straddles a binade), so the bound is
/// conservative.
fn enclosure_bits(eval: &Eval, format: &Format) -> Option<f64> {
    let Eval::Value(iv) = eval else { return None };
    if !(iv.lo > 0 || iv.hi < 0) {
        return None;
    }
    let near_zero = if iv.lo > 0 { &iv.lo } else { &iv.hi };
    let qexp = format.qexp_of_binade(near_zero.get_exp()? as i64);
    let width = Float::with_val(iv.hi.prec() + 2, &iv.hi - &iv.lo) >> qexp as i32;
    (width > 0).then(|| neg_log2(&width))
}

/// [`decide`] for an input that is probably hard (a candidate of the filtered search, most of
/// which are): the full classification [`hardness`] first, whose outcome settles the question
/// unless a distance lies within a relative 10^-6 of 2^-K (the outcome's `bits` are accurate
/// to a relative 2^-24); then [`decide`] itself. The same decision as [`decide`], with one
/// MPFR evaluation fewer for a hard input (the screening at p + K + 32 bits).
pub fn decide_likely_hard(
    expr: &Expr,
    format: &Format,
    x: &FormatNumber,
    bits: u32,
    breakpoints: Breakpoints,
    max_precision: u32,
) -> Decision {
    let outcome = hardness(expr, format, x, max_precision);
    let k = bits as f64;
    let margin = 1e-6 * k.max(1.0);
    let verdict = match &outcome {
        Outcome::Exact { .. } => Some(true),
        Outcome::Overflow { .. } => return Decision::Skipped(Skip::Overflow),
        Outcome::Undefined => return Decision::Skipped(Skip::Undefined),
        Outcome::Pole { .. } => return Decision::Skipped(Skip::Pole),
        Outcome::Unresolved { .. } => None,
        Outcome::Inexact(i) => {
            let allowed = [
                (Kind::Directed, i.bits_directed),
                (Kind::Nearest, i.bits_nearest),
            ];
            let allowed = allowed
                .iter()
                .filter(|(kind, _)| breakpoints.includes(*kind));
            let (mut hard, mut clear) = (false, true);
            for &(_, b) in allowed {
                hard |= b > k + margin;
                clear &= b < k - margin;
            }
            if hard {
                Some(true)
            } else if clear {
                Some(false)
            } else {
                None
            }
        }
    };
    match (verdict, &outcome) {
        (Some(true), Outcome::Exact { .. }) => Decision::Exact(outcome),
        (Some(true), _) => Decision::Hard(outcome),
        (Some(false), _) => Decision::NotHard,
        (None, _) => decide(expr, format, x, bits, breakpoints, max_precision),
    }
}

/// Whether x is a (p, 2^-K) hard-to-round case for the chosen breakpoints: the search's test.
/// Starts at p + K + 32 bits, which decides almost every input in one MPFR call.
pub fn decide(
    expr: &Expr,
    format: &Format,
    x: &FormatNumber,
    bits: u32,
    breakpoints: Breakpoints,
    max_precision: u32,
) -> Decision {
    let xf = x.to_float();
    let threshold = Float::with_val(2, 1) >> bits as i32;
    let mut prec = (format.precision() + bits + 32).min(max_precision);
    loop {
        match locate(expr.eval(&xf, prec), format) {
            Location::Undefined => return Decision::Skipped(Skip::Undefined),
            Location::Pole { .. } => return Decision::Skipped(Skip::Pole),
            Location::Overflow { .. } => return Decision::Skipped(Skip::Overflow),
            Location::Zero { .. } => {
                return Decision::Exact(hardness(expr, format, x, max_precision))
            }
            Location::Grid(g) if g.is_breakpoint() => {
                return Decision::Exact(hardness(expr, format, x, max_precision))
            }
            Location::Grid(g) => {
                let mut undecided = false;
                for kind in [Kind::Directed, Kind::Nearest] {
                    if !breakpoints.includes(kind) {
                        continue;
                    }
                    let (lo, hi) = g.distance(kind);
                    if hi < threshold {
                        let outcome = hardness(expr, format, x, max_precision);
                        return match outcome {
                            Outcome::Inexact(_) => Decision::Hard(outcome),
                            other => Decision::Unresolved(other),
                        };
                    }
                    undecided |= lo < threshold;
                }
                if !undecided {
                    return Decision::NotHard;
                }
            }
            Location::Undecided => {}
        }
        if prec >= max_precision {
            return Decision::Unresolved(hardness(expr, format, x, max_precision));
        }
        prec = (prec * 2).min(max_precision);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::parse_exact;

    #[test]
    fn decide_likely_hard_equals_decide() {
        // Every binary16 input (both signs, subnormals, overflow, the domain's edges) of
        // functions with exact cases, overflow, undefined inputs and poles, at thresholds on
        // both sides of typical distances, in all three modes.
        let f = Format::binary16();
        let mut compared = 0;
        for func in ["exp", "log", "exp2", "tan", "x*x"] {
            let e = Expr::parse(&format!("{func}(x)"))
                .or_else(|_| Expr::parse(func))
                .unwrap();
            for o in (-f.max_ordinal()..=f.max_ordinal()).step_by(7) {
                let x = f.from_ordinal(o);
                for (bits, mode) in [
                    (6, Breakpoints::All),
                    (11, Breakpoints::Directed),
                    (9, Breakpoints::Nearest),
                ] {
                    let a = decide(&e, &f, &x, bits, mode, 4096);
                    let b = decide_likely_hard(&e, &f, &x, bits, mode, 4096);
                    assert_eq!(a, b, "{func}({}) K {bits} {mode:?}", x.to_hex());
                    compared += 1;
                }
            }
        }
        assert!(compared > 100_000);
    }

    fn hard(func: &str, x: &str, fmt: &Format) -> Outcome {
        let e = Expr::parse(&format!("{func}(x)")).unwrap();
        hardness(
            &e,
            fmt,
            &parse_exact(x, fmt).unwrap(),
            DEFAULT_MAX_PRECISION,
        )
    }

    fn inexact(o: Outcome) -> Inexact {
        match o {
            Outcome::Inexact(i) => i,
            other => panic!("expected inexact, got {other:?}"),
        }
    }

    #[test]
    fn published_log_case_has_k_60_directed() {
        let i = inexact(hard("log", "0x1.ac50b409c8aeep+8", &Format::binary64()));
        assert_eq!((i.kind, i.k), (Kind::Directed, 60));
        assert!((i.bits - 61.62).abs() < 0.01, "bits {}", i.bits);
    }

    #[test]
    fn published_exp_case_has_k_53_nearest() {
        let i = inexact(hard("exp", "0x1.aca7ae8da5a7bp+0", &Format::binary64()));
        assert_eq!((i.kind, i.k), (Kind::Nearest, 53));
        assert!((i.bits - 54.99).abs() < 0.01, "bits {}", i.bits);
        assert_eq!(i.roundings.nearest.to_hex(), "0x1.557d4acd7e557p+2");
    }

    #[test]
    fn exact_cases_are_reported_apart() {
        let b64 = Format::binary64();
        for (f, x) in [
            ("exp", "0"),
            ("log", "1"),
            ("log2", "0x1p-30"),
            ("cbrt", "-27"),
            ("sin", "0"),
            ("sinpi", "7.5"),
            ("cospi", "1e6"),
        ] {
            assert!(
                matches!(hard(f, x, &b64), Outcome::Exact { .. }),
                "{f}({x})"
            );
        }
        assert_eq!(hard("log", "0", &b64), Outcome::Pole { neg: Some(true) });
        assert_eq!(hard("log", "-1", &b64), Outcome::Undefined);
        assert!(matches!(
            hard("exp", "1000", &b64),
            Outcome::Overflow { .. }
        ));
    }

    #[test]
    fn poles_are_signed_where_ieee_754_signs_them() {
        let b64 = Format::binary64();
        let pole = |neg| Outcome::Pole { neg };
        let recip = Expr::parse("1/x").unwrap();
        let at = |e: &Expr, x: &str| hardness(e, &b64, &parse_exact(x, &b64).unwrap(), 256);
        assert_eq!(at(&recip, "0"), pole(Some(false)));
        assert_eq!(at(&recip, "-0"), pole(Some(true)));
        assert_eq!(at(&Expr::parse("x^-2").unwrap(), "-0"), pole(Some(false)));
        assert_eq!(at(&Expr::parse("x/x").unwrap(), "0"), Outcome::Undefined);
        // pi·0 is an inexact enclosure [0, 0] of 0: still 0/0.
        assert_eq!(
            at(&Expr::parse("sin(pi*x)/x").unwrap(), "0"),
            Outcome::Undefined
        );
        for (f, x, neg) in [
            ("log", "-0", Some(true)),
            ("log1p", "-1", Some(true)),
            ("atanh", "-1", Some(true)),
            ("atanh", "1", Some(false)),
            ("lgamma", "0", Some(false)),
            ("lgamma", "-2", Some(false)),
            ("gamma", "-0", Some(true)),
            ("digamma", "0", Some(true)),
            ("digamma", "-0", Some(false)),
            ("digamma", "-3", None),
        ] {
            assert_eq!(hard(f, x, &b64), pole(neg), "{f}({x})");
        }
        // NaN results stay undefined; tan has no pole at a floating-point number.
        assert_eq!(hard("log", "-1", &b64), Outcome::Undefined);
        assert!(matches!(
            hard("tan", "0x1.921fb54442d18p+0", &b64),
            Outcome::Inexact(_)
        ));
    }

    #[test]
    fn zeros_keep_their_sign() {
        let b64 = Format::binary64();
        let nearest = |o: Outcome| o.roundings().unwrap().nearest.to_hex();
        for f in [
            "sin", "tan", "expm1", "log1p", "atan", "sinpi", "cbrt", "sqrt",
        ] {
            assert_eq!(nearest(hard(f, "-0", &b64)), "-0x0p+0", "{f}(-0)");
            assert_eq!(nearest(hard(f, "0", &b64)), "0x0p+0", "{f}(+0)");
        }
        assert_eq!(nearest(hard("sinpi", "-3", &b64)), "-0x0p+0");
        assert_eq!(nearest(hard("sinpi", "3", &b64)), "0x0p+0");
        assert_eq!(nearest(hard("exp", "-0", &b64)), "0x1p+0");
        let at = |e: &str, x: &str| {
            let e = Expr::parse(e).unwrap();
            nearest(hardness(&e, &b64, &parse_exact(x, &b64).unwrap(), 256))
        };
        // x - x is +0 (round to nearest), although its enclosure's lower end rounds down.
        assert_eq!(at("x-x", "1"), "0x0p+0");
        assert_eq!(at("-x", "0"), "-0x0p+0");
        assert_eq!(at("x*x", "-0"), "0x0p+0");
    }

    #[test]
    fn regression_exp2m1_of_negative_integers_is_not_exact() {
        // The exact rule for 2^n - 1 once rounded to 64 bits (-1) and, for n = -2^31, took
        // i32::MIN.abs(); both said "exact -1" where the value is -1 + 2^n.
        for x in ["-0x1p+31", "-0x1p+40", "-0x1p+1000"] {
            let o = hard("exp2m1", x, &Format::binary64());
            let Outcome::Unresolved {
                bits_at_least: Some(b),
                ..
            } = o
            else {
                panic!("exp2m1({x}): {o:?}")
            };
            assert!(b > 8000.0);
        }
        let i = inexact(hard("exp2m1", "-0x1p+10", &Format::binary64()));
        assert_eq!(i.roundings.down.to_hex(), "-0x1p+0");
        assert_eq!(i.roundings.up.to_hex(), "-0x1.fffffffffffffp-1");
    }

    #[test]
    fn regression_run_length_of_a_dyadic_run_of_ones() {
        // 2^-55 - 1 = -0.111...1 (55 ones): in bfloat16, 8 significant ones, the round bit,
        // then 46 ones and zeros forever: k = 46, although dist = 2^-47 exactly.
        let i = inexact(hard("exp2m1", "-55", &Format::bfloat16()));
        assert_eq!((i.kind, i.k, i.bits), (Kind::Directed, 46, 47.0));
        // Likewise -1 + 2^-40: the round bit and 31 more ones.
        let i = inexact(hard("exp2m1", "-40", &Format::bfloat16()));
        assert_eq!((i.kind, i.k), (Kind::Directed, 31));
    }

    #[test]
    fn regression_results_below_mpfr_range_are_classified() {
        // exp(-2^1023) = 2^(-1.4e308) underflows MPFR itself: still a tiny positive result.
        let i = inexact(hard("exp", "-0x1p+1023", &Format::binary64()));
        assert_eq!((i.kind, i.k), (Kind::Nearest, 0));
        assert_eq!(i.roundings.nearest.to_hex(), "0x0p+0");
        assert_eq!(i.roundings.up.to_hex(), "0x1p-1074");
    }

    #[test]
    fn roundings_agree_with_the_platform_for_binary64() {
        let b64 = Format::binary64();
        for x in [
            "0.5",
            "1.5",
            "-2.25",
            "700",
            "-0x1.74p+9",
            "-0x1.6p+9",
            "0x1p-1000",
            "0x1p-1070",
        ] {
            let i = inexact(hard("exp", x, &b64));
            let v: f64 = parse_exact(x, &b64).unwrap().to_float().to_f64();
            // MPFR's conversion to f64 rounds once, subnormals included.
            let expected = Float::with_val(300, v).exp().to_f64();
            match i.roundings.nearest {
                Rounded::Finite(y) => assert_eq!(y.to_float().to_f64(), expected, "exp({x})"),
                Rounded::Infinite { .. } => panic!("exp({x}) is finite"),
            }
        }
    }
}
