//! An independent oracle for the tests: the bits of f(x) read off one MPFR evaluation at 600
//! bits, rounded to nearest (the searches use directed roundings at other precisions), and
//! the run length k counted bit by bit as published tables define it.

use rug::float::Round;
use std::sync::atomic::AtomicU64;
use tmd_core::registry::{eval_rounded, Dir, Func};
use tmd_core::{Breakpoints, Format, FormatNumber, Kind, Outcome};
use tmd_search::{reference_search, Case, InputRange, SearchParams, Target};

/// The oracle's view of one input.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Bits {
    /// Not a rounding question: NaN, infinite, zero, overflow.
    None,
    /// Round bit r, then a run of k bits equal to b; kind from r vs b.
    Run { kind: Kind, k: u32 },
    /// The run reaches the end of the 600-bit value: exact, or harder than we can see.
    TooLong,
}

pub fn oracle(func: Func, x: &FormatNumber, format: &Format) -> Bits {
    // Most inputs are settled with 300 bits after the significand; a very long run is
    // looked at again with 3000.
    match oracle_with(func, x, format, 600, 300) {
        Bits::TooLong => oracle_with(func, x, format, 4000, 3000),
        bits => bits,
    }
}

/// `tail`: bits kept below the format's last significant bit.
fn oracle_with(func: Func, x: &FormatNumber, format: &Format, prec: u32, tail: u32) -> Bits {
    if !func.domain().contains_number(x) {
        return Bits::None;
    }
    let (y, _) = eval_rounded(func, &x.to_float(), prec, Dir::Nearest);
    if !y.is_normal() {
        return Bits::None;
    }
    let a = y.abs();
    let e = a.get_exp().unwrap() as i64;
    if e >= format.emax() as i64 + 2 {
        return Bits::None; // |y| >= 2^(emax+1): overflow
    }
    let qexp = format.qexp_of_binade(e);
    // m = floor(|y| / 2^(qexp - tail)): the significand, then tail bits after it.
    let m = (a >> (qexp - tail as i64) as i32)
        .to_integer_round(Round::Down)
        .unwrap()
        .0;
    let bit = |i: u32| m.get_bit(i);
    let r = bit(tail - 1);
    let b = bit(tail - 2);
    let mut k = 0;
    while k < tail - 2 && bit(tail - 2 - k) == b {
        k += 1;
    }
    if k >= tail - 12 {
        return Bits::TooLong;
    }
    let integer_part_zero = (m.clone() >> tail) == 0;
    if integer_part_zero && !r && !b {
        // Closest to zero, which is no breakpoint of a nonzero result: nothing hard here.
        return Bits::None;
    }
    let kind = if r == b {
        Kind::Directed
    } else {
        Kind::Nearest
    };
    Bits::Run { kind, k }
}

/// dist < 2^-K  <=>  k >= K - 1, since dist lies in [2^-(k+2), 2^-(k+1)).
pub fn oracle_is_hard(bits: Bits, threshold: u32, breakpoints: Breakpoints) -> bool {
    match bits {
        Bits::Run { kind, k } => {
            let kind_ok = match breakpoints {
                Breakpoints::All => true,
                Breakpoints::Directed => kind == Kind::Directed,
                Breakpoints::Nearest => kind == Kind::Nearest,
            };
            kind_ok && k + 1 >= threshold
        }
        _ => false,
    }
}

pub fn run_search(
    func: Func,
    range: &InputRange,
    bits: u32,
    breakpoints: Breakpoints,
    max_precision: u32,
) -> Vec<Case> {
    let target = Target::parse(func.name()).unwrap();
    let params = SearchParams {
        bits,
        breakpoints,
        include_exact: true,
        max_precision,
    };
    let mut cases = Vec::new();
    reference_search(&target, range, &params, &AtomicU64::new(0), &mut |c| {
        cases.push(c.clone())
    });
    cases
}

/// Panics unless a listed outcome agrees with the oracle: the same kind and k for a hard case
/// (and the oracle calls it hard), a consistent bound for an unresolved one, and only the few
/// cases beyond the oracle's reach (exact breakpoints and zeros, runs past 3000 bits).
pub fn assert_listed_agrees(
    what: &str,
    outcome: &Outcome,
    bits: Bits,
    threshold: u32,
    breakpoints: Breakpoints,
) {
    match (outcome, bits) {
        (Outcome::Inexact(i), Bits::Run { kind, k }) => {
            assert_eq!((i.kind, i.k), (kind, k), "{what}");
            assert!(
                oracle_is_hard(bits, threshold, breakpoints),
                "{what} listed, oracle {bits:?}"
            );
        }
        // Exact breakpoints, and results too close to one for both (erf(38) = 1 - 2^-2000).
        (Outcome::Exact { .. } | Outcome::Unresolved { .. }, Bits::TooLong) => {}
        // Beyond the oracle's 3000 bits (exp2m1(-3600) = -1 + 2^-3600, exact).
        (Outcome::Inexact(i), Bits::TooLong) => assert!(i.bits > 2900.0, "{what}"),
        // f(x) = 0 exactly (expm1(0), sinpi(1), zeta(-2)): the oracle sees no rounding.
        (Outcome::Exact { roundings, .. }, Bits::None) => {
            assert_eq!(
                roundings.nearest.to_hex().trim_start_matches('-'),
                "0x0p+0",
                "{what}"
            )
        }
        // Beyond the search's cap: dist < 2^-bits_at_least and dist >= 2^-(k+2).
        (
            Outcome::Unresolved {
                bits_at_least: Some(b),
                ..
            },
            Bits::Run { k, .. },
        ) => {
            assert!(
                *b <= (k + 2) as f64,
                "{what}: bits_at_least {b}, oracle k {k}"
            )
        }
        (o, b) => panic!("{what}: listed {o:?}, oracle {b:?}"),
    }
}
