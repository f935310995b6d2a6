//! Basic operations of all four types against MPFR: maximum error in ulps of the type's nominal
//! precision (48, 96, 106, 212 bits) must stay within the documented bound.
mod common;

use common::*;
use rug::Float;
use tmd_xfloat::{Dd, Df64, MultiFloat, Qd, Qf128};

/// Documented bounds in ulps: (add/sub, mul, div, recip, sqrt).
struct Bounds {
    add: f64,
    mul: f64,
    div: f64,
    recip: f64,
    sqrt: f64,
}

/// JMP17 / MR22 / Lefèvre et al. 2023 proven bounds for double words (3u^2 + 13u^3, 4u^2,
/// 9.8u^2 for the reciprocal, 25/8 u^2), in ulps of 2p bits; the long division's
/// (docs/error-analysis.md §8) is half an ulp plus `58u^3` relative (a whole ulp only for
/// quotients just below a power of two, which random operands do not produce).
const DOUBLE_WORD: Bounds = Bounds {
    add: 3.0 + 1e-4,
    mul: 4.0,
    div: 0.5 + 1e-3,
    recip: 9.8,
    sqrt: 3.125,
};
/// Documented (HLB00-style, empirically verified) bounds for quad words.
const QUAD_WORD: Bounds = Bounds {
    add: 2.0,
    mul: 2.0,
    div: 4.0,
    recip: 4.0,
    sqrt: 4.0,
};

fn check_arithmetic<T: MultiFloat>(name: &str, bounds: &Bounds, seed: u64, emax_wide: i32) {
    let n = samples();
    let mut r = rng(seed);
    // Ranges of Thall 2007, Table II: [-1, 1] operands, (0, 1] for square roots.
    let mut pair_unit = || {
        (
            uniform::<T, _>(&mut r, -1.0, 1.0),
            uniform::<T, _>(&mut r, -1.0, 1.0),
        )
    };
    let add = binary_stats(
        n,
        &mut pair_unit,
        |x, y| x + y,
        |x, y, p| Float::with_val(p, x + y),
    );
    assert_within(&format!("{name} add [-1,1]"), &add, bounds.add);
    let sub = binary_stats(
        n,
        &mut pair_unit,
        |x, y| x - y,
        |x, y, p| Float::with_val(p, x - y),
    );
    assert_within(&format!("{name} sub [-1,1]"), &sub, bounds.add);
    let mul = binary_stats(
        n,
        &mut pair_unit,
        |x, y| x * y,
        |x, y, p| Float::with_val(p, x * y),
    );
    assert_within(&format!("{name} mul [-1,1]"), &mul, bounds.mul);
    let div = binary_stats(
        n,
        &mut pair_unit,
        |x, y| x / y,
        |x, y, p| Float::with_val(p, x / y),
    );
    assert_within(&format!("{name} div [-1,1]"), &div, bounds.div);
    let mut r = rng(seed + 1);
    let recip = unary_stats(
        n,
        || uniform::<T, _>(&mut r, -1.0, 1.0),
        |x| x.recip(),
        |x, p| Float::with_val(p, x.recip_ref()),
    );
    assert_within(&format!("{name} recip [-1,1]"), &recip, bounds.recip);
    let sqrt = unary_stats(
        n,
        || uniform::<T, _>(&mut r, 0.0, 1.0),
        |x| x.sqrt(),
        |x, p| Float::with_val(p, x.sqrt_ref()),
    );
    assert_within(&format!("{name} sqrt [0,1]"), &sqrt, bounds.sqrt);

    // Wide ranges: magnitudes 2^-e .. 2^e, both signs (cancellation in add/sub).
    let mut r = rng(seed + 2);
    let e = emax_wide;
    let mut pair_wide = || {
        (
            log_uniform::<T, _>(&mut r, -e, e, true),
            log_uniform::<T, _>(&mut r, -e, e, true),
        )
    };
    let add = binary_stats(
        n,
        &mut pair_wide,
        |x, y| x + y,
        |x, y, p| Float::with_val(p, x + y),
    );
    assert_within(&format!("{name} add wide"), &add, bounds.add);
    let mul = binary_stats(
        n,
        &mut pair_wide,
        |x, y| x * y,
        |x, y, p| Float::with_val(p, x * y),
    );
    assert_within(&format!("{name} mul wide"), &mul, bounds.mul);
    let div = binary_stats(
        n,
        &mut pair_wide,
        |x, y| x / y,
        |x, y, p| Float::with_val(p, x / y),
    );
    assert_within(&format!("{name} div wide"), &div, bounds.div);
    let mut r = rng(seed + 3);
    let sqrt = unary_stats(
        n,
        || log_uniform::<T, _>(&mut r, -2 * e, 2 * e, false),
        |x| x.sqrt(),
        |x, p| Float::with_val(p, x.sqrt_ref()),
    );
    assert_within(&format!("{name} sqrt wide"), &sqrt, bounds.sqrt);
}

#[test]
fn df64_arithmetic() {
    check_arithmetic::<Df64>("df64", &DOUBLE_WORD, 10, 40);
}

#[test]
fn dd_arithmetic() {
    check_arithmetic::<Dd>("dd", &DOUBLE_WORD, 20, 300);
}

#[test]
fn qf128_arithmetic() {
    check_arithmetic::<Qf128>("qf128", &QUAD_WORD, 30, 12);
}

#[test]
fn qd_arithmetic() {
    check_arithmetic::<Qd>("qd", &QUAD_WORD, 40, 250);
}

/// edge cases: the deterministic edge inputs of `common::edge` (near overflow and
/// the smallest normal, subnormal operands, cancellation, divisors near 1, zeros, infinities),
/// within the same documented bounds; special values must be the IEEE ones.
fn check_arithmetic_edges<T: MultiFloat>(name: &str, bounds: &Bounds) {
    let rows = edge::arithmetic_rows::<T>();
    edge::assert_rows(name, &rows, |op| match op {
        "add" | "sub" => bounds.add,
        "mul" => bounds.mul,
        "div" | "recip" => bounds.div,
        "sqrt" => bounds.sqrt,
        _ => unreachable!("{op}"),
    });
}

#[test]
fn edge_arithmetic_df64() {
    check_arithmetic_edges::<Df64>("df64", &DOUBLE_WORD);
}

#[test]
fn edge_arithmetic_dd() {
    check_arithmetic_edges::<Dd>("dd", &DOUBLE_WORD);
}

#[test]
fn edge_arithmetic_qf128() {
    check_arithmetic_edges::<Qf128>("qf128", &QUAD_WORD);
}

#[test]
fn edge_arithmetic_qd() {
    check_arithmetic_edges::<Qd>("qd", &QUAD_WORD);
}
