//! `Dd::exp`, the table-driven double-double exponential (src/math/dd_exp.rs), against MPFR.
mod common;

use common::{assert_within, log_uniform, rng, samples, to_mp, unary_stats, uniform};
use rand::Rng;
use rug::Float;
use tmd_xfloat::math::dd_exp::{INV_STEP, SIZE, STEP1, STEP2, STEP3, TWO_POW_FRAC};
use tmd_xfloat::{Dd, MultiFloat};

fn mp_exp(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.exp_ref())
}

/// The proven bound of docs/error-analysis.md §7 in ulps of 106 bits, for results that do not
/// lie within `2^-104` below a power of two (where it is 1.05; random inputs do not get there).
const BOUND_ULPS: f64 = 0.53;

#[test]
fn dd_exp_table_is_the_mpfr_expansion() {
    for (j, t) in TWO_POW_FRAC.iter().enumerate() {
        let exact = Float::with_val(1000, Float::with_val(1000, j) / SIZE as u32).exp2();
        let mut rest = exact.clone();
        for (i, &w) in t.iter().enumerate() {
            assert_eq!(w, rest.to_f64(), "2^({j}/{SIZE}) word {i}");
            rest -= w;
        }
    }
    let ln2 = Float::with_val(1000, rug::float::Constant::Log2);
    let step = Float::with_val(1000, &ln2 / SIZE as u32);
    assert_eq!(STEP1, Float::with_val(32, &step).to_f64());
    let rest = Float::with_val(1000, &step - STEP1);
    assert_eq!(STEP2, rest.to_f64());
    assert_eq!(STEP3, Float::with_val(1000, &rest - STEP2).to_f64());
    assert_eq!(INV_STEP, Float::with_val(1000, SIZE as u32 / ln2).to_f64());
}

#[test]
fn dd_exp_is_within_its_bound_on_the_benchmark_range() {
    let mut g = rng(31);
    let n = samples() * 10;
    let stats = unary_stats(n, || uniform::<Dd, _>(&mut g, -10.0, 10.0), Dd::exp, mp_exp);
    assert_within("dd exp [-10,10]", &stats, BOUND_ULPS);
}

#[test]
fn dd_exp_is_within_its_bound_over_the_full_range() {
    let mut g = rng(32);
    let n = samples() * 10;
    // Results above 2^-916: x > -634.
    let stats = unary_stats(
        n,
        || uniform::<Dd, _>(&mut g, -634.0, 709.78),
        Dd::exp,
        mp_exp,
    );
    assert_within("dd exp [-634, 709.78]", &stats, BOUND_ULPS);
    let stats = unary_stats(
        n,
        || log_uniform::<Dd, _>(&mut g, -110, -1, true),
        Dd::exp,
        mp_exp,
    );
    assert_within("dd exp small |x|", &stats, BOUND_ULPS);
}

/// Arguments next to the reduction's boundaries `(k + 1/2) ln2/1024` and next to its nodes
/// `k ln2/1024`, where `r` is largest or cancels.
#[test]
fn dd_exp_is_within_its_bound_next_to_reduction_points() {
    let mut g = rng(33);
    let ln2 = Float::with_val(300, rug::float::Constant::Log2);
    let mut worst = common::Accumulator::default();
    for _ in 0..samples() {
        let k: i64 = g.gen_range(-900_000..1_000_000);
        let half = if g.gen() { 0.5 } else { 0.0 };
        let node = Float::with_val(300, (k as f64 + half) * &ln2) / SIZE as u32;
        let offset = Float::with_val(300, g.gen_range(-1.0..1.0f64)) >> g.gen_range(40..200u32);
        let x: Dd = common::from_mp(&Float::with_val(300, &node + &offset));
        let exact = mp_exp(&to_mp(x), 300);
        let got = x.exp();
        worst.add(common::ulp_error(got, &exact), || {
            format!("x = {x:?} -> {got:?}")
        });
    }
    assert_within("dd exp next to k ln2/2048", &worst.finish(), 1.05);
}

#[test]
fn dd_exp_special_values_and_thresholds() {
    let dd = |x: f64| Dd::from_base(x);
    assert!(dd(f64::NAN).exp().is_nan());
    assert_eq!(dd(f64::INFINITY).exp(), dd(f64::INFINITY));
    assert_eq!(dd(f64::NEG_INFINITY).exp(), dd(0.0));
    assert_eq!(dd(0.0).exp(), dd(1.0));
    assert_eq!(dd(-0.0).exp(), dd(1.0));
    assert_eq!(dd(1e6).exp(), dd(f64::INFINITY));
    assert_eq!(dd(-1e6).exp(), dd(0.0));
    // Overflow threshold: e^x < 2^1024 just below 1024 ln 2, infinite just above.
    let over: Dd = common::from_mp(&Float::with_val(
        300,
        Float::with_val(300, rug::float::Constant::Log2) * 1024u32,
    ));
    let below = over - dd(1e-13);
    let got = below.exp();
    assert!(got.is_finite(), "{below:?} -> {got:?}");
    let exact = mp_exp(&to_mp(below), 300);
    assert!(
        common::ulp_error(got, &exact) <= BOUND_ULPS,
        "{got:?} vs {exact:e}"
    );
    assert!((over + dd(1e-13)).exp().is_infinite());
    // Subnormal results: the leading word is right to within the subnormal quantum.
    for x in [-709.0, -720.5, -740.0, -745.0] {
        let got = dd(x).exp();
        let exact = mp_exp(&Float::with_val(64, x), 300).to_f64();
        assert!(
            (got.hi() - exact).abs() <= f64::from_bits(1),
            "exp({x}) = {got:?}, exact {exact:e}"
        );
    }
    // The generic exp and the table-driven one agree to within both bounds at e.g. 1.
    let e1 = dd(1.0).exp();
    let generic = tmd_xfloat::math::exp(dd(1.0));
    assert!((e1 - generic).hi().abs() < 1e-31, "{e1:?} vs {generic:?}");
}
