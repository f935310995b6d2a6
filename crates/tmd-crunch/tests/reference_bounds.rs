//! The fast references' relative error bounds, which every fast decision relies on
//! (`function.rs`), checked against MPFR: the binary64 references at binary32 inputs (`libm`
//! functions, bound 2^-50, or 2^-53 for sqrt and 1/x; sin, cos, tan after an exact reduction,
//! 2^-51 and 2^-50) and the double-double functions at binary64
//! inputs (bound 2^-96; the references composed in `tmd_crunch::dd_composed` also against
//! their proven 2^-98). Random inputs over every binade of the domain plus edges;
//! `TMD_EXTENSIVE=1` takes 2^22 binary32 inputs per function instead of 2^14.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Float;
use tmd_crunch::function::{ref_funcs, RefFunc, EPS_DD};
use tmd_xfloat::Dd;

fn extensive() -> bool {
    tmd_test_tier::extensive()
}

/// |r - f| / |f| with f by MPFR at 256 bits; `None` where f is not a finite non-zero number
/// or r is not finite.
fn relative_error(func: RefFunc, x: f64, r: &Float) -> Option<f64> {
    let (f, _) = func.mpfr(x, 256);
    if !f.is_finite() || f.is_zero() || !r.is_finite() {
        return None;
    }
    Some(Float::with_val(256, (Float::with_val(256, r - &f) / &f).abs()).to_f64())
}

#[test]
fn binary64_references_are_within_their_bound_at_binary32_inputs() {
    let n = if extensive() { 1 << 22 } else { 1 << 14 };
    let mut rng = ChaCha8Rng::seed_from_u64(50);
    for func in ref_funcs() {
        let mut worst = 0f64;
        for i in 0..n {
            let bits: u32 = if i < 64 {
                // edges: around 0, 1, and the largest numbers
                [0u32, 1, 0x3f80_0000, 0x3f7f_ffff, 0x7f7f_ffff][i % 5] ^ ((i as u32 / 5) << 31)
            } else {
                rng.gen::<u32>() & 0xff7f_ffff // no NaN or infinity
            };
            let x = f32::from_bits(bits) as f64;
            if func.outside_domain(x) {
                continue;
            }
            let (r, eps) = func.binary32_reference(x);
            if r.abs() < 2f64.powi(-960) || r.is_infinite() {
                continue; // decided by the overflow/underflow rules, not by the bound
            }
            if let Some(e) = relative_error(func, x, &Float::with_val(53, r)) {
                assert!(
                    e <= eps,
                    "{} at {x:e}: reference {r:e}, relative error {e:e} > {eps:e}",
                    func.name()
                );
                worst = worst.max(e);
            }
        }
        eprintln!(
            "{}: worst relative error of the binary32 reference {:.3} x 2^-53",
            func.name(),
            worst * 2f64.powi(53)
        );
    }
}

#[test]
fn double_double_references_are_within_their_bound() {
    let n = if extensive() { 1 << 16 } else { 1 << 11 };
    let mut rng = ChaCha8Rng::seed_from_u64(96);
    for func in ref_funcs() {
        let Some(dd) = func.dd() else { continue };
        let mut worst = 0f64;
        for _ in 0..n {
            // a random binary64 with an exponent where the function is finite and normal
            let e = rng.gen_range(-60..12);
            let x = (1.0 + rng.gen::<f64>()) * 2f64.powi(e) * if rng.gen() { 1.0 } else { -1.0 };
            if func.outside_domain(x) {
                continue;
            }
            let y = dd(Dd::from(x));
            if !y.hi().is_finite() || y.hi().abs() < 1e-290 {
                continue;
            }
            let r = Float::with_val(120, y.hi()) + y.lo();
            if let Some(err) = relative_error(func, x, &r) {
                assert!(
                    err <= EPS_DD,
                    "{} at {x:e}: relative error {err:e} > 2^-96",
                    func.name()
                );
                worst = worst.max(err);
            }
        }
        eprintln!(
            "{}: worst relative error of the double-double reference 2^{:.1}",
            func.name(),
            worst.log2()
        );
    }
}

/// The cheap binary64 exp reference (docs/error-analysis.md §6): within 2^-78 of MPFR on
/// random inputs over its whole domain [-665, 708], on arguments near multiples of ln2/256 (where
/// the reduced argument cancels) and at the ends of the domain; refuses beyond it.
#[test]
fn fast_exp_reference_is_within_its_bound() {
    use tmd_crunch::fast_exp::{exp_fast, EPS_FAST_EXP, FAST_EXP_MAX, FAST_EXP_MIN};
    let n = if extensive() { 1 << 22 } else { 1 << 16 };
    let mut rng = ChaCha8Rng::seed_from_u64(78);
    let mut inputs: Vec<f64> = Vec::with_capacity(n + 4096);
    for _ in 0..n / 2 {
        inputs.push(rng.gen_range(FAST_EXP_MIN..=FAST_EXP_MAX));
    }
    for _ in 0..n / 2 {
        // log-uniform magnitudes from 2^-70 to 2^9, both signs
        let e = rng.gen_range(-70..9);
        let x = (1.0 + rng.gen::<f64>()) * 2f64.powi(e);
        inputs.push(if rng.gen() { x } else { -x });
    }
    // Binary64 neighbours of k ln2/256: the reduced argument is tiny and cancels to the last
    // word of the reduction.
    let ln2_256 = Float::with_val(300, rug::float::Constant::Log2) / 256u32;
    for k in (-245_000i64..=261_000).step_by(509) {
        let v = Float::with_val(300, &ln2_256 * k).to_f64();
        inputs.extend([v, v.next_up(), v.next_down()]);
    }
    inputs.extend([0.0, -0.0, FAST_EXP_MAX, FAST_EXP_MIN, 1e-300, -1e-300]);
    let mut worst = 0f64;
    for &x in &inputs {
        let (hi, lo) = exp_fast(x);
        let r = Float::with_val(120, hi) + lo;
        let err = relative_error(
            tmd_crunch::RefFunc::Registry(tmd_core::registry::Func::Exp),
            x,
            &r,
        )
        .expect("finite exp");
        assert!(
            err <= EPS_FAST_EXP,
            "exp_fast({x:e} = {:#x}): relative error {err:e} > 2^-78",
            x.to_bits()
        );
        worst = worst.max(err);
    }
    eprintln!(
        "exp: worst relative error of the fast reference over {} inputs 2^{:.1}",
        inputs.len(),
        worst.log2()
    );
    for x in [708.5, -665.5, 1e300, -1e300, f64::INFINITY, f64::NAN] {
        assert_eq!(
            exp_fast(x),
            (f64::INFINITY, 0.0),
            "beyond the domain at {x}"
        );
    }
}

/// The references of binary32 analyses on a device (the table's `Crunch::binary32_device`;
/// the kernels are bit-for-bit twins of xfloat's `Dd` functions and, for sin, cos and tan, of
/// its binary32-argument functions, `RefFunc::binary32_device_twin`, tmd-gpu's
/// tests/xfloat_opencl.rs): within `RefFunc::binary32_device_eps` of MPFR at
/// binary32 inputs over every binade of the domain (trig arguments up to 2^128 included),
/// never NaN inside the domain, and where the leading word is below 2^-960 (the kernel's
/// zero-result rule, `analysis::quick_special`) f is below 2^-959: exp over [-1100, -600] and
/// every binary32 input below -600.
#[test]
fn binary32_device_references_are_within_their_bound() {
    let n = if extensive() { 1 << 18 } else { 1 << 12 };
    let mut rng = ChaCha8Rng::seed_from_u64(90);
    let mut checked = 0;
    for func in ref_funcs() {
        if func.facts().binary32_device.is_none() {
            continue;
        }
        let dd = func
            .binary32_device_twin()
            .expect("the twin of the device reference");
        let eps = func.binary32_device_eps();
        let mut worst = 0f64;
        for i in 0..n {
            let bits: u32 = if i < 64 {
                [0u32, 1, 0x3f80_0000, 0x3f7f_ffff, 0x7f7f_ffff, 0x42b1_7218][i % 6]
                    ^ ((i as u32 / 6 % 2) << 31)
            } else {
                rng.gen::<u32>() & 0xff7f_ffff // no NaN or infinity
            };
            let x = f32::from_bits(bits) as f64;
            if func.outside_domain(x) {
                continue;
            }
            let y = dd(Dd::from(x));
            assert!(!y.hi().is_nan(), "{} at {x:e}: NaN", func.name());
            let (f, _) = func.mpfr(x, 256);
            if y.hi().abs() < 2f64.powi(-960) {
                assert!(
                    f.is_finite() && f.clone().abs() < Float::with_val(64, 2f64.powi(-959)),
                    "{} at {x:e}: leading word {:e} below 2^-960, f = {f}",
                    func.name(),
                    y.hi()
                );
                continue;
            }
            if !y.hi().is_finite() {
                assert!(
                    !f.is_finite() || f.clone().abs() > Float::with_val(64, f64::MAX),
                    "{} at {x:e}: infinite reference, f = {f}",
                    func.name()
                );
                continue;
            }
            let r = Float::with_val(120, y.hi()) + y.lo();
            if let Some(err) = relative_error(func, x, &r) {
                assert!(
                    err <= eps,
                    "{} at {x:e}: relative error {err:e} > {eps:e}",
                    func.name()
                );
                worst = worst.max(err);
                checked += 1;
            }
        }
        eprintln!(
            "{}: worst relative error of the binary32 device reference 2^{:.1}",
            func.name(),
            worst.log2()
        );
    }
    assert!(checked > 10 * n, "only {checked} inputs checked");
    // exp's zero-result rule, at binary64 inputs in [-1100, -600] and at binary32 ones below.
    let exp = RefFunc::Registry(tmd_core::registry::Func::Exp);
    let dd_exp = exp.binary32_device_twin().unwrap();
    let limit = Float::with_val(64, 2f64.powi(-959));
    let mut tiny = 0;
    let mut inputs: Vec<f64> = (0..n).map(|_| rng.gen_range(-1100.0..-600.0)).collect();
    // binary32 numbers from -600 (0xc416_0000) to the most negative
    inputs
        .extend((0..n).map(|_| -(f32::from_bits(rng.gen_range(0x4416_0000..0x7f80_0000)) as f64)));
    for x in inputs {
        let y = dd_exp(Dd::from(x));
        if y.hi() < 2f64.powi(-960) {
            assert!(
                exp.mpfr(x, 256).0 < limit,
                "exp({x:e}): leading word {:e}",
                y.hi()
            );
            tiny += 1;
        }
    }
    assert!(tiny > n, "only {tiny} inputs below 2^-960");
}

/// A random binary64 number of magnitude `2^e (1 + U[0, 1))` for a random `e` in `exponents`.
fn log_uniform(rng: &mut ChaCha8Rng, exponents: std::ops::Range<i32>) -> f64 {
    let e = rng.gen_range(exponents);
    (1.0 + rng.gen::<f64>()) * 2f64.powi(e.max(-1022)) * 2f64.powi((e + 1022).min(0))
}

/// `k` binary64 steps from `x` (negative `k` downwards).
fn steps_from(x: f64, k: i64) -> f64 {
    let o = x.to_bits() as i64 + if x < 0.0 { -k } else { k };
    f64::from_bits(o as u64)
}

/// Inputs of one composed reference (`tmd_crunch::dd_composed`): random ones over every binade
/// of its domain, both signs where it has them, and its edges (ends of the domain, the switches
/// between formulas, cancellation points), `n` in all.
fn composed_reference_inputs(name: &str, n: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
    let tiny = 2f64.powi(-500);
    let huge = 2f64.powi(60);
    let both_signs = !matches!(name, "log2" | "log10" | "acosh");
    let mut xs = Vec::with_capacity(n);
    while xs.len() < n {
        let k = rng.gen_range(-2000..2000); // steps from an edge
        let x = match (name, xs.len() % 4) {
            ("exp2", 0) => rng.gen_range(-1022.0..1024.0),
            ("exp2", 1) => steps_from(rng.gen_range(-1022..1024) as f64, k),
            ("exp10", 0) => rng.gen_range(-307.6..308.25),
            // where x ln10 is next to a multiple of ln2: the reduced argument cancels
            ("exp10", 1) => steps_from(rng.gen_range(-1020..1022) as f64 * 2f64.log10(), k),
            ("exp2" | "exp10", _) => log_uniform(rng, -1074..9),
            ("log2" | "log10", 0) => steps_from(1.0, k),
            ("log2" | "log10", 1) => steps_from(10f64.powi(rng.gen_range(-300..300)), k),
            ("log2" | "log10", _) => log_uniform(rng, -1074..1024),
            ("cbrt", 0) => steps_from((rng.gen_range(1..1 << 20) as f64).powi(3), k),
            ("cbrt", _) => log_uniform(rng, -1074..1024),
            ("asin" | "acos" | "atanh", 0) => steps_from(1.0, -k.abs()),
            ("asin" | "acos" | "atanh", 1) => steps_from(0.5, k),
            ("asin" | "acos" | "atanh", 2) => rng.gen_range(0.0..1.0),
            ("asin" | "acos" | "atanh", _) => log_uniform(rng, -1074..0),
            ("asinh", 0) => steps_from([tiny, 1.0, huge][xs.len() / 4 % 3], k),
            ("asinh", _) => log_uniform(rng, -1074..1024),
            ("acosh", 0) => steps_from(1.0, k.abs()),
            ("acosh", 1) => steps_from([2.0, huge][xs.len() / 4 % 2], k),
            ("acosh", _) => 1.0 + log_uniform(rng, -52..1023),
            _ => panic!("no inputs for {name}"),
        };
        xs.push(if both_signs && rng.gen() { -x } else { x });
    }
    xs
}

/// The composed double-double references (`tmd_crunch::dd_composed`, docs/error-analysis.md
/// §12) within their proven bound `EPS_COMPOSED = 2^-98` of MPFR, at the inputs of
/// [`composed_reference_inputs`]; results below 2^-960 (which crunch sends to MPFR) are
/// skipped, and inside the domain the reference is never NaN.
#[test]
fn composed_references_are_within_their_proven_bound() {
    use tmd_crunch::dd_composed::EPS_COMPOSED;
    let n = if extensive() { 1 << 18 } else { 1 << 13 };
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let names = [
        "exp2", "exp10", "log2", "log10", "cbrt", "asin", "acos", "asinh", "acosh", "atanh",
    ];
    for name in names {
        let func = RefFunc::lookup(name).unwrap();
        let dd = func.dd().expect("a double-double reference");
        let (mut worst, mut checked) = (0f64, 0);
        for x in composed_reference_inputs(name, n, &mut rng) {
            if func.outside_domain(x) {
                continue;
            }
            let y = dd(Dd::from(x));
            assert!(!y.hi().is_nan(), "{name}({x:e}): NaN");
            if !y.hi().is_finite() || y.hi().abs() < 2f64.powi(-960) {
                continue;
            }
            let r = Float::with_val(120, y.hi()) + y.lo();
            if let Some(err) = relative_error(func, x, &r) {
                assert!(
                    err <= EPS_COMPOSED,
                    "{name}({x:e} = {:#x}): relative error 2^{:.2} > 2^-98",
                    x.to_bits(),
                    err.log2()
                );
                worst = worst.max(err);
                checked += 1;
            }
        }
        assert!(checked > n / 2, "{name}: only {checked} inputs checked");
        eprintln!(
            "{name}: worst relative error of the composed reference over {checked} inputs 2^{:.1}",
            worst.log2()
        );
    }
}
