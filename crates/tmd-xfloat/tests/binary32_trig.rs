//! The binary32-argument sin, cos and tan against MPFR: every value within its stated relative
//! bound, on random arguments of every exponent, on the arguments closest to multiples of pi/2
//! (the deepest cancellations of the reduction) and, with `TMD_EXTENSIVE=1`, on every argument
//! of several binades.

use rug::float::Constant;
use rug::ops::Pow;
use rug::Float;
use tmd_xfloat::math::binary32_trig::{
    cos_binary32, sin_binary32, tan_binary32, EPS_SIN_COS, EPS_TAN,
};

type Kernel = fn(f32) -> Option<f64>;

const PREC: u32 = 256;

fn functions() -> [(&'static str, Kernel, f64); 3] {
    [
        ("sin", sin_binary32, EPS_SIN_COS),
        ("cos", cos_binary32, EPS_SIN_COS),
        ("tan", tan_binary32, EPS_TAN),
    ]
}

fn mpfr(name: &str, x: f32) -> Float {
    let x = Float::with_val(PREC, x);
    match name {
        "sin" => x.sin(),
        "cos" => x.cos(),
        _ => x.tan(),
    }
}

/// The relative error of `v` against MPFR's f(x), as a multiple of the bound (<= 1 required).
fn error_in_bounds(name: &str, x: f32, v: f64, eps: f64) -> f64 {
    let y = mpfr(name, x);
    let err = Float::with_val(PREC, Float::with_val(PREC, v) - &y).abs() / y.abs();
    err.to_f64() / eps
}

/// Checks every argument; returns the largest error in bounds and how many were refused.
fn check(xs: impl Iterator<Item = f32>) -> (f64, u64, u64) {
    let (mut worst, mut refused, mut checked) = (0f64, 0u64, 0u64);
    for x in xs {
        for (name, kernel, eps) in functions() {
            let Some(v) = kernel(x) else {
                refused += 1;
                continue;
            };
            let e = error_in_bounds(name, x, v, eps);
            assert!(
                e <= 1.0,
                "{name}({x:e} = {:#010x}): {v:e} is {e} bounds away from MPFR's {}",
                x.to_bits(),
                mpfr(name, x).to_string_radix(16, Some(20))
            );
            worst = worst.max(e);
            checked += 1;
        }
    }
    (worst, refused, checked)
}

/// A small deterministic generator (xorshift64*), so that failures reproduce.
fn random_bits(seed: u64) -> impl Iterator<Item = u32> {
    let mut s = seed;
    std::iter::from_fn(move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        Some((s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32)
    })
}

#[test]
fn random_arguments_of_every_exponent_are_within_the_bounds() {
    let xs = random_bits(0x5eed_0001)
        .map(f32::from_bits)
        .filter(|x| x.is_finite())
        .take(60_000);
    let (worst, refused, checked) = check(xs);
    eprintln!("random: {checked} values, worst {worst:.4} of the bound, {refused} refused");
    assert!(checked > 170_000, "checked {checked}");
    assert!(refused < 10, "refused {refused}");
    // The analysis allows the whole bound; the measured maxima are well inside it.
    assert!(worst < 0.75, "worst {worst}");
}

/// The binary32 numbers nearest to k pi/2 for k up to 2^20 and for random large k: the
/// reduced argument is as small as binary32 makes it, so the bound is tested where the
/// reduction cancels most.
fn next_to_multiples_of_half_pi() -> Vec<f32> {
    let half_pi = Float::with_val(PREC, Constant::Pi) / 2u32;
    let mut ks: Vec<Float> = (1u32..1 << 12).map(|k| Float::with_val(PREC, k)).collect();
    for (i, bits) in random_bits(0x5eed_0002).take(4000).enumerate() {
        let e = 12 + (i % 115) as i32;
        let k = Float::with_val(PREC, bits | 1) * Float::with_val(PREC, 2).pow(e - 32);
        ks.push(k.floor());
    }
    let mut xs = Vec::new();
    for k in ks {
        let y = Float::with_val(PREC, &k * &half_pi);
        let x = y.to_f32();
        if x.is_normal() {
            xs.extend([
                x,
                f32::from_bits(x.to_bits() + 1),
                f32::from_bits(x.to_bits() - 1),
            ]);
        }
    }
    xs
}

#[test]
fn arguments_next_to_multiples_of_half_pi_are_within_the_bounds() {
    let xs = next_to_multiples_of_half_pi();
    let (worst, refused, checked) = check(xs.iter().copied().chain(xs.iter().map(|x| -x)));
    eprintln!("next to k pi/2: {checked} values, worst {worst:.4} of the bound, {refused} refused");
    assert!(checked > 50_000, "checked {checked}");
    assert!(refused < 10, "refused {refused}");
    assert!(worst < 0.75, "worst {worst}");
}

#[test]
fn every_argument_of_some_binades_is_within_the_bounds_when_extensive() {
    if !tmd_test_tier::extensive() {
        return;
    }
    for e in [-3i32, 0, 1, 7, 30, 90, 127] {
        let first = 2f32.powi(e).to_bits();
        let xs = (first..first + (1 << 23)).map(f32::from_bits);
        let (worst, refused, checked) = check(xs);
        eprintln!(
            "binade 2^{e}: {checked} values, worst {worst:.4} of the bound, {refused} refused"
        );
    }
}
