//! Elementary functions of all four types against MPFR, in the ranges of Thall 2007 Table II
//! and over wide ranges; maximum error in ulps of the nominal precision must stay within the
//! documented bound (crate docs, "Accuracy").
mod common;

use common::*;
use rug::Float;
use std::f64::consts::{FRAC_PI_2, LN_2};
use tmd_xfloat::{math, BaseFloat, Dd, Df64, MultiFloat, Qd, Qf128};

/// Documented accuracy bounds in ulps for one type.
struct FunctionBounds {
    exp: f64,
    expm1: f64,
    log: f64,
    trig: f64,
    tan: f64,
    atan: f64,
    /// sinh and tanh.
    sinh_tanh: f64,
    cosh: f64,
}

type Reference = fn(&Float, u32) -> Float;
/// One row: name, input range, function, MPFR reference, bound.
type Case<T> = (&'static str, Range, fn(T) -> T, Reference, f64);

fn mp_exp(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.exp_ref())
}
fn mp_expm1(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.exp_m1_ref())
}
fn mp_log(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.ln_ref())
}
fn mp_log1p(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.ln_1p_ref())
}
fn mp_sin(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.sin_ref())
}
fn mp_cos(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.cos_ref())
}
fn mp_tan(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.tan_ref())
}
fn mp_atan(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.atan_ref())
}
fn mp_sinh(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.sinh_ref())
}
fn mp_cosh(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.cosh_ref())
}
fn mp_tanh(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.tanh_ref())
}

/// How inputs are drawn.
#[derive(Clone, Copy)]
enum Range {
    Uniform(f64, f64),
    /// Log-uniform magnitude in `2^[lo, hi)`, signed or not.
    LogUniform(i32, i32, bool),
}

fn run<T: MultiFloat>(
    name: &str,
    seed: u64,
    range: Range,
    f: fn(T) -> T,
    reference: Reference,
    bound: f64,
) {
    let mut r = rng(seed);
    let stats = unary_stats(
        samples(),
        || match range {
            Range::Uniform(lo, hi) => uniform::<T, _>(&mut r, lo, hi),
            Range::LogUniform(lo, hi, signed) => log_uniform::<T, _>(&mut r, lo, hi, signed),
        },
        f,
        reference,
    );
    assert_within(name, &stats, bound);
}

fn check_functions<T: MultiFloat>(ty: &str, b: &FunctionBounds, seed: u64) {
    let emax = T::Base::MAX_EXP;
    let over = (emax as f64 - 1.0) * LN_2;
    // Below 2^-54 (qf128) the f32 exponent range cuts the trailing words: stay above it.
    let tiny = if T::Base::MANTISSA_DIGITS == 24 {
        -30
    } else {
        -60
    };
    let cases: Vec<Case<T>> = vec![
        (
            "exp [-1,1]",
            Range::Uniform(-1.0, 1.0),
            math::exp,
            mp_exp,
            b.exp,
        ),
        (
            "exp wide",
            Range::Uniform(-over, over),
            math::exp,
            mp_exp,
            b.exp,
        ),
        (
            "expm1 [-1,1]",
            Range::Uniform(-1.0, 1.0),
            math::expm1,
            mp_expm1,
            b.expm1,
        ),
        (
            "expm1 tiny",
            Range::LogUniform(tiny, -1, true),
            math::expm1,
            mp_expm1,
            b.expm1,
        ),
        (
            "expm1 wide",
            Range::Uniform(-over, over),
            math::expm1,
            mp_expm1,
            b.expm1,
        ),
        (
            "log [1,2]",
            Range::Uniform(1.0, 2.0),
            math::log,
            mp_log,
            b.log,
        ),
        (
            "log near 1",
            Range::Uniform(0.9, 1.1),
            math::log,
            mp_log,
            b.log,
        ),
        (
            "log wide",
            Range::LogUniform(-emax + 30, emax - 1, false),
            math::log,
            mp_log,
            b.log,
        ),
        (
            "log1p [1,2]",
            Range::Uniform(1.0, 2.0),
            math::log1p,
            mp_log1p,
            b.log,
        ),
        (
            "log1p [-0.5,0.5]",
            Range::Uniform(-0.5, 0.5),
            math::log1p,
            mp_log1p,
            b.log,
        ),
        (
            "log1p tiny",
            Range::LogUniform(tiny, -1, true),
            math::log1p,
            mp_log1p,
            b.log,
        ),
        (
            "sin [-pi/2,pi/2]",
            Range::Uniform(-FRAC_PI_2, FRAC_PI_2),
            math::sin,
            mp_sin,
            b.trig,
        ),
        (
            "cos [-pi/2,pi/2]",
            Range::Uniform(-FRAC_PI_2, FRAC_PI_2),
            math::cos,
            mp_cos,
            b.trig,
        ),
        (
            "sin wide",
            Range::LogUniform(-20, emax - 1, true),
            math::sin,
            mp_sin,
            b.trig,
        ),
        (
            "cos wide",
            Range::LogUniform(-20, emax - 1, true),
            math::cos,
            mp_cos,
            b.trig,
        ),
        (
            "tan [-pi/2,pi/2]",
            Range::Uniform(-FRAC_PI_2, FRAC_PI_2),
            math::tan,
            mp_tan,
            b.tan,
        ),
        (
            "tan wide",
            Range::LogUniform(-20, emax - 1, true),
            math::tan,
            mp_tan,
            b.tan,
        ),
        (
            "atan [-1,1]",
            Range::Uniform(-1.0, 1.0),
            math::atan,
            mp_atan,
            b.atan,
        ),
        (
            "atan wide",
            Range::LogUniform(tiny, -tiny, true),
            math::atan,
            mp_atan,
            b.atan,
        ),
        (
            "sinh [-1,1]",
            Range::Uniform(-1.0, 1.0),
            math::sinh,
            mp_sinh,
            b.sinh_tanh,
        ),
        (
            "sinh wide",
            Range::Uniform(-over - 0.5, over + 0.5),
            math::sinh,
            mp_sinh,
            b.sinh_tanh,
        ),
        (
            "cosh [-1,1]",
            Range::Uniform(-1.0, 1.0),
            math::cosh,
            mp_cosh,
            b.cosh,
        ),
        (
            "cosh wide",
            Range::Uniform(-over - 0.5, over + 0.5),
            math::cosh,
            mp_cosh,
            b.cosh,
        ),
        (
            "tanh [-1,1]",
            Range::Uniform(-1.0, 1.0),
            math::tanh,
            mp_tanh,
            b.sinh_tanh,
        ),
        (
            "tanh wide",
            Range::LogUniform(-30, 8, true),
            math::tanh,
            mp_tanh,
            b.sinh_tanh,
        ),
    ];
    for (i, (what, range, f, reference, bound)) in cases.into_iter().enumerate() {
        run::<T>(
            &format!("{ty} {what}"),
            seed + i as u64,
            range,
            f,
            reference,
            bound,
        );
    }
}

/// Documented bounds for double words (df64, dd), in ulps of 48 / 106 bits.
const DOUBLE_WORD: FunctionBounds = FunctionBounds {
    exp: 4.0,
    expm1: 1.0,
    log: 6.0,
    trig: 5.0,
    tan: 1.0,
    atan: 4.0,
    sinh_tanh: 1.0,
    cosh: 4.0,
};
/// Documented bounds for quad words (qf128, qd), in ulps of 96 / 212 bits.
const QUAD_WORD: FunctionBounds = FunctionBounds {
    exp: 2.0,
    expm1: 2.0,
    log: 2.0,
    trig: 1.0,
    tan: 1.0,
    atan: 1.0,
    sinh_tanh: 2.0,
    cosh: 2.0,
};

#[test]
fn df64_functions() {
    check_functions::<Df64>("df64", &DOUBLE_WORD, 100);
}

#[test]
fn dd_functions() {
    check_functions::<Dd>("dd", &DOUBLE_WORD, 200);
}

#[test]
fn qf128_functions() {
    check_functions::<Qf128>("qf128", &QUAD_WORD, 300);
}

#[test]
fn qd_functions() {
    check_functions::<Qd>("qd", &QUAD_WORD, 400);
}

/// edge cases: the deterministic edge inputs of `common::edge` (overflow, underflow
/// and saturation thresholds, tiny arguments, 1 and -1 and their neighbours, multiples of pi/2
/// and the hardest-to-reduce binary32/binary64 arguments, zeros, infinities), within the same
/// documented bounds; special values must be the IEEE ones.
fn check_function_edges<T: MultiFloat>(ty: &str, b: &FunctionBounds) {
    let rows = edge::function_rows::<T>();
    edge::assert_rows(ty, &rows, |f| match f {
        "exp" => b.exp,
        "expm1" => b.expm1,
        "log" | "log1p" => b.log,
        "sin" | "cos" => b.trig,
        "tan" => b.tan,
        "atan" => b.atan,
        "sinh" | "tanh" => b.sinh_tanh,
        "cosh" => b.cosh,
        _ => unreachable!("{f}"),
    });
}

#[test]
fn edge_functions_df64() {
    check_function_edges::<Df64>("df64", &DOUBLE_WORD);
}

#[test]
fn edge_functions_dd() {
    check_function_edges::<Dd>("dd", &DOUBLE_WORD);
}

#[test]
fn edge_functions_qf128() {
    check_function_edges::<Qf128>("qf128", &QUAD_WORD);
}

#[test]
fn edge_functions_qd() {
    check_function_edges::<Qd>("qd", &QUAD_WORD);
}

/// The tables of the crate's own atan start value (`base::textbook_atan`, mirrored by the
/// kernels) are the two-word round-to-nearest expansions of `atan(k/8)` and `pi/2 - atan(k/8)`
/// (they were computed with mpmath; checked here with MPFR at 300 bits), and its Taylor
/// coefficients are `(-1)^j / (2j + 1)` rounded to nearest.
#[test]
fn atan_start_value_tables_are_the_mpfr_expansions() {
    use rug::float::Constant as MpConstant;
    use tmd_xfloat::base::{
        ATAN_COMPLEMENTS_F32, ATAN_COMPLEMENTS_F64, ATAN_EIGHTHS_F32, ATAN_EIGHTHS_F64,
        ATAN_ODD_F32, ATAN_ODD_F64,
    };
    let expansion64 = |v: &rug::Float| {
        let hi = v.to_f64();
        [hi, rug::Float::with_val(300, v - hi).to_f64()]
    };
    let expansion32 = |v: &rug::Float| {
        let hi = v.to_f32();
        [hi, rug::Float::with_val(300, v - hi).to_f32()]
    };
    for k in 0..=8u32 {
        let atan = rug::Float::with_val(300, rug::Float::with_val(300, k) / 8u32).atan();
        let half_pi = rug::Float::with_val(300, MpConstant::Pi) / 2u32;
        let complement = rug::Float::with_val(300, &half_pi - &atan);
        assert_eq!(
            ATAN_EIGHTHS_F64[k as usize],
            expansion64(&atan),
            "atan({k}/8) f64"
        );
        assert_eq!(
            ATAN_EIGHTHS_F32[k as usize],
            expansion32(&atan),
            "atan({k}/8) f32"
        );
        assert_eq!(
            ATAN_COMPLEMENTS_F64[k as usize],
            expansion64(&complement),
            "f64 {k}"
        );
        assert_eq!(
            ATAN_COMPLEMENTS_F32[k as usize],
            expansion32(&complement),
            "f32 {k}"
        );
    }
    for (j, &c) in ATAN_ODD_F64.iter().enumerate() {
        let q = rug::Float::with_val(300, 1) / (2 * j as u32 + 3);
        let sign = if j % 2 == 0 { -1.0 } else { 1.0 };
        assert_eq!(c, sign * q.to_f64(), "binary64 coefficient {j}");
        if j < ATAN_ODD_F32.len() {
            assert_eq!(
                ATAN_ODD_F32[j],
                sign as f32 * q.to_f32(),
                "binary32 coefficient {j}"
            );
        }
    }
}

/// `Dd`'s table-driven methods (exp, ln, sin, cos; src/math/dd_*.rs) on the same
/// edge inputs, within their own proven bounds (docs/error-analysis.md §7 and after); the
/// special values must be the IEEE ones as for the generic functions. The other types' methods
/// are the generic functions, checked above.
#[test]
fn edge_dd_table_methods() {
    let rows = edge::method_rows::<Dd>();
    edge::assert_rows("dd method", &rows, |f| match f {
        // 0.53 ulp, 1.05 for results just below a power of two.
        "exp" => 1.05,
        "log" => 0.502,
        "sin" | "cos" => 0.52,
        _ => unreachable!("{f}"),
    });
}
