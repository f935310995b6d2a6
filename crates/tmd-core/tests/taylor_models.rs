//! Taylor models checked against MPFR: every function with a model at several centers, radii
//! and degrees, compositions, sharpness of the remainder, and domain violations.
//!
//! By default: degrees 3, 7, 12 and 48 random points (plus 0 and ±r) per model, about 1400
//! models. `TMD_EXTENSIVE=1` runs every degree from 3 to 12 and 300 points per model.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Rational};
use std::cmp::Ordering;
use std::f64::consts::PI;
use std::time::Instant;
use tmd_core::expr::Expr;
use tmd_core::interval::Eval;
use tmd_core::registry::{eval_rounded, Dir, Domain, Func, FUNCTIONS};
use tmd_core::taylor::{expr_has_model, has_model, taylor_model, NoModel, TaylorModel};

const PREC: u32 = 160;

fn extensive() -> bool {
    tmd_test_tier::extensive()
}

fn degrees() -> Vec<usize> {
    if extensive() {
        (3..=12).collect()
    } else {
        vec![3, 7, 12]
    }
}

fn samples() -> usize {
    if extensive() {
        300
    } else {
        48
    }
}

fn call(func: Func) -> Expr {
    Expr::Call(func, Box::new(Expr::X))
}

fn pow2(e: i32) -> Float {
    Float::with_val(8, 1) << e
}

fn float(v: f64) -> Float {
    Float::with_val(53, v)
}

/// A tight enclosure of expr(x) at a precision far beyond the model's.
fn reference(expr: &Expr, x: &Float, model_prec: u32) -> (Float, Float) {
    match expr.eval(x, 2 * model_prec + 64) {
        Eval::Value(v) => (v.lo, v.hi),
        other => panic!("reference evaluation at {x} failed: {other:?}"),
    }
}

/// center + t exactly, at the least of a few precisions that holds it (MPFR's zeta of
/// negative arguments works at the argument's precision: 4096 bits would cost seconds).
fn shifted(center: &Float, t: &Float) -> Float {
    let (x, dir) = Float::with_val_round(4096, center + t, Round::Nearest);
    assert_eq!(dir, Ordering::Equal, "center + t must be exact");
    [64, 128, 256, 512, 1024]
        .into_iter()
        .map(|p| Float::with_val_round(p, &x, Round::Nearest))
        .find(|(_, dir)| *dir == Ordering::Equal)
        .map_or(x, |(short, _)| short)
}

/// Checks, at t, the model against the reference twice: through `enclose`, and through the
/// midpoint polynomial with the bound R + sum e_k |t|^k (computed here, far above `prec`).
fn check_point(model: &TaylorModel, expr: &Expr, t: &Float, what: &str) {
    let prec = model.prec();
    let (ref_lo, ref_hi) = reference(expr, &shifted(model.center(), t), prec);
    let (lo, hi) = model.enclose(t).expect("t within the radius");
    assert!(
        ref_hi >= lo && ref_lo <= hi,
        "{what}: at t = {t}: reference [{ref_lo}, {ref_hi}] outside model [{lo}, {hi}]"
    );
    let wide = 4 * prec + 256;
    let mut value = Float::new(wide);
    let mut bound = Float::with_val(wide, model.remainder());
    let mut power = Float::with_val(wide, 1);
    for (m, e) in model.coefficients().iter().zip(model.coefficient_errors()) {
        value += Float::with_val(wide, m * &power);
        bound += Float::with_val(wide, e * &power).abs();
        power *= t;
    }
    let reference_mid = Float::with_val(wide, &ref_lo + &ref_hi) / 2u32;
    let rounding = Float::with_val(wide, value.abs_ref()) >> (3 * prec) as i32;
    let slack = Float::with_val(wide, &ref_hi - &ref_lo) + rounding;
    let distance = Float::with_val(wide, &reference_mid - &value).abs();
    assert!(
        distance <= Float::with_val(wide, &bound + &slack),
        "{what}: at t = {t}: |f - p| = {distance} > bound {bound}"
    );
}

/// The remainder is at least the true (d+1)-th term at the center and at most 2^20 times an
/// estimate of its supremum over the interval; returns R / estimate.
fn check_remainder_sharpness(model: &TaylorModel, expr: &Expr, what: &str) -> f64 {
    let (d, prec) = (model.degree(), model.prec());
    let zero = Float::new(53);
    let deeper = taylor_model(expr, model.center(), &zero, d + 2, prec).expect("deeper model");
    let r = model.radius();
    let c1 = Float::with_val(prec, deeper.coefficients()[d + 1].abs_ref());
    let e1 = &deeper.coefficient_errors()[d + 1];
    let c2 = Float::with_val(prec, deeper.coefficients()[d + 2].abs_ref());
    let rd = Float::with_val(prec, r.pow((d + 1) as u32));
    let least = Float::with_val(prec, Float::with_val(prec, &c1 - e1) * &rd);
    assert!(
        *model.remainder() >= least,
        "{what}: R = {} below the center's term {least}",
        model.remainder()
    );
    let spread = Float::with_val(prec, &c2 * r) * (d as u32 + 2);
    let estimate = Float::with_val(prec, Float::with_val(prec, &c1 + &spread) * &rd);
    if estimate.is_zero() {
        assert!(
            model.remainder().is_zero(),
            "{what}: R > 0 for a zero estimate"
        );
        return 1.0;
    }
    let ratio = Float::with_val(prec, model.remainder() / &estimate).to_f64();
    assert!(ratio <= 2f64.powi(20), "{what}: R / estimate = {ratio}");
    ratio
}

/// Whether f is analytic on [lo, hi] with a margin (cases too near a boundary are skipped).
fn safely_analytic(func: Func, lo: &Float, hi: &Float) -> bool {
    let (a, b) = (lo.to_f64(), hi.to_f64());
    let half = std::f64::consts::FRAC_PI_2;
    match func {
        Func::Cbrt => return *lo > 0 || *hi < 0,
        Func::Tan => return ((a - half) / PI).floor() == ((b - half) / PI).floor(),
        Func::Tanpi => return (a - 0.5).floor() == (b - 0.5).floor(),
        _ => {}
    }
    if func.domain() == Domain::NotNonPositiveInteger && a <= 0.0 {
        return a.ceil() > b;
    }
    match func.domain() {
        Domain::NonZero => *lo > 0 || *hi < 0,
        Domain::NotOne => *lo > 1 || *hi < 1,
        Domain::AtMostOne => *hi < 1,
        Domain::Positive | Domain::NonNegative => *lo > 0,
        Domain::AboveMinusOne => *lo > -1,
        Domain::UnitClosed | Domain::UnitOpen => *lo > -1 && *hi < 1,
        Domain::AtLeastOne => *lo > 1,
        _ => true,
    }
}

/// Centers per function: ordinary points, points near where the function is delicate (log
/// near 1, exp near overflow of binary64, sin near 2^20, tan near a pole), tiny arguments.
fn cases() -> Vec<(Func, Vec<f64>)> {
    use Func::*;
    let tiny = 2f64.powi(-30);
    let near_pi_2 = std::f64::consts::FRAC_PI_2;
    vec![
        (Exp, vec![1.0, -3.5, 700.0, tiny, 0.0]),
        (Expm1, vec![tiny, 0.0, 0.75, -20.0, -tiny]),
        (Exp2, vec![1.5, -100.25, 1000.5, tiny]),
        (Exp2m1, vec![2f64.powi(-25), 0.0, 3.3, -0.5]),
        (Exp10, vec![0.3, 300.1, -tiny]),
        (Exp10m1, vec![2f64.powi(-25), 0.0, -1.7]),
        (
            Log,
            vec![
                1.0 + tiny,
                1.0 - 2f64.powi(-12),
                0.75,
                1e10,
                2f64.powi(-100),
            ],
        ),
        (Log1p, vec![tiny, 0.0, -0.5, 3.0, 1e6]),
        (Log2, vec![1.0 + tiny, 3.0, 0.001]),
        (Log2p1, vec![0.0, tiny, 7.0, -0.75]),
        (Log10, vec![1.0 - 2f64.powi(-20), 10.0, 1234.5]),
        (Log10p1, vec![0.0, -0.25, 99.0, tiny]),
        (Sqrt, vec![2.0, 1e-6, 1e20, 0.5]),
        (Rsqrt, vec![2.0, 0.01, 1e30]),
        (Cbrt, vec![-8.5, 3.0 * 2f64.powi(-10), 1e15, -0.001]),
        (Sin, vec![0.0, tiny, 1.0, 1048576.3, near_pi_2, 100.0]),
        (Cos, vec![0.0, near_pi_2, 1048576.0, -3.0, tiny]),
        (Tan, vec![0.0, 1.0, 1.56, -2.5, tiny]),
        (Sinpi, vec![0.0, 0.25, 0.5, 1048576.125, tiny]),
        (Cospi, vec![0.0, 0.5, 0.3, -7.75, tiny]),
        (Tanpi, vec![0.0, 0.2, 0.49, -3.3, tiny]),
        (Asin, vec![0.0, tiny, 0.5, 0.99, -0.9]),
        (Acos, vec![0.0, tiny, 0.5, 0.99, -0.9]),
        (Atan, vec![0.0, 1.0, 1e6, -tiny, 3.0]),
        (Asinpi, vec![0.0, tiny, -0.7, 0.99]),
        (Acospi, vec![0.0, 0.3, -0.99]),
        (Atanpi, vec![0.0, tiny, -2.0, 1e3]),
        (Sinh, vec![0.0, tiny, 5.0, -300.0]),
        (Cosh, vec![0.0, tiny, 5.0, -300.0]),
        (Tanh, vec![0.0, tiny, 3.0, -15.0, 40.0]),
        (Asinh, vec![0.0, tiny, 10.0, -1e5]),
        (Acosh, vec![1.0 + 2f64.powi(-8), 2.0, 1e10]),
        (Atanh, vec![0.0, tiny, 0.5, -0.99]),
        (Erf, vec![0.0, tiny, 1.0, -3.0, 6.0]),
        (Erfc, vec![0.0, 1.0, 5.0, 27.0, -2.0]),
        (Gamma, vec![1.0, 2.5, -0.5, 30.25, -7.75]),
        (Lgamma, vec![1.0, 2.0, 1.4616, -2.5, 1e3]),
        (Digamma, vec![1.4616, 0.25, -3.5, 1e6]),
        (J0, vec![0.0, tiny, 2.4048, -10.0, 1e5]),
        (J1, vec![0.0, tiny, 3.8317, -7.0, 1e5]),
        (Y0, vec![0.01, 0.8936, 20.0, 1e5]),
        (Y1, vec![0.01, 2.197, 20.0, 1e5]),
        (Eint, vec![0.3725, -0.001, 5.0, -30.0, 700.0]),
        (Li2, vec![0.0, tiny, 0.5, 0.99, -100.0]),
        (Ai, vec![0.0, tiny, -2.338, 5.0, -60.0, 100.0]),
        (Zeta, vec![0.0, 0.5, 1.0 + 2f64.powi(-8), 3.0, -7.5, 60.0]),
    ]
}

fn radii(center: f64) -> Vec<Float> {
    let mut radii = vec![pow2(-20), pow2(-10), pow2(-4)];
    if center != 0.0 && center.abs() < 2f64.powi(-10) {
        radii.push(float(center.abs() / 16.0));
    }
    radii
}

/// Builds the model and checks it at random points, at both ends and at the center.
fn check_model(
    expr: &Expr,
    center: &Float,
    radius: &Float,
    degree: usize,
    rng: &mut ChaCha8Rng,
) -> (TaylorModel, f64) {
    check_model_at(expr, center, radius, degree, PREC, true, rng)
}

/// As [`check_model`] at precision `prec`, with or without the sharpness check.
fn check_model_at(
    expr: &Expr,
    center: &Float,
    radius: &Float,
    degree: usize,
    prec: u32,
    sharpness: bool,
    rng: &mut ChaCha8Rng,
) -> (TaylorModel, f64) {
    let what = format!("{expr:?} at {center} radius {radius} degree {degree} prec {prec}");
    let model = taylor_model(expr, center, radius, degree, prec)
        .unwrap_or_else(|e| panic!("{what}: no model: {e}"));
    assert_eq!(model.degree(), degree);
    let mut points = vec![Float::new(53), radius.clone(), Float::with_val(53, -radius)];
    for _ in 0..samples() {
        let u: f64 = rng.gen_range(-1.0..=1.0);
        points.push(Float::with_val(53, u) * radius);
    }
    for t in &points {
        check_point(&model, expr, t, &what);
    }
    let ratio = if sharpness {
        check_remainder_sharpness(&model, expr, &what)
    } else {
        0.0
    };
    (model, ratio)
}

#[test]
fn taylor_every_listed_function_has_a_model_and_the_others_say_so() {
    let with_model = cases().into_iter().map(|(f, _)| f).collect::<Vec<_>>();
    assert_eq!(with_model.len(), 46);
    for info in FUNCTIONS {
        assert_eq!(
            has_model(info.func),
            with_model.contains(&info.func),
            "{}",
            info.name
        );
        let result = taylor_model(&call(info.func), &float(0.5), &pow2(-20), 4, PREC);
        if !has_model(info.func) {
            assert_eq!(result, Err(NoModel::Unsupported(info.func)));
        }
    }
    let mixed = Expr::parse("exp(x) + x * zeta(x)").unwrap();
    assert!(expr_has_model(&mixed).is_ok());
    assert!(expr_has_model(&Expr::parse("log1p(x^2) / cosh(x)").unwrap()).is_ok());
}

#[test]
fn taylor_models_of_every_function_enclose_mpfr_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut worst_ratio = (0.0f64, String::new());
    let mut models = 0;
    for (func, centers) in cases() {
        for c in centers {
            let center = float(c);
            for radius in radii(c) {
                let lo = Float::with_val(PREC, &center - Float::with_val(PREC, &radius * 2u32));
                let hi = Float::with_val(PREC, &center + Float::with_val(PREC, &radius * 2u32));
                if !safely_analytic(func, &lo, &hi) {
                    continue;
                }
                for degree in degrees() {
                    let (_, ratio) = check_model(&call(func), &center, &radius, degree, &mut rng);
                    if ratio > worst_ratio.0 {
                        worst_ratio = (ratio, format!("{func}({c}) r={radius} d={degree}"));
                    }
                    models += 1;
                }
            }
        }
    }
    eprintln!("{models} models checked; worst R / estimate = {worst_ratio:?}");
    assert!(models > 300);
}

#[test]
fn taylor_coefficients_match_closed_forms() {
    let contains = |model: &TaylorModel, k: usize, exact: &Float| {
        let m = &model.coefficients()[k];
        let e = &model.coefficient_errors()[k];
        let gap = Float::with_val(2 * PREC, m - exact).abs();
        assert!(gap <= *e, "c_{k}: |{m} - {exact}| = {gap} > {e}");
        assert!(*e < Float::with_val(53, exact.abs_ref()) >> (PREC - 40) as i32 || exact.is_zero());
    };
    let p = 3 * PREC;
    // exp at 1: e / k!.
    let model = taylor_model(&call(Func::Exp), &float(1.0), &pow2(-15), 12, PREC).unwrap();
    let mut exact = Float::with_val(p, 1).exp();
    for k in 0..=12u32 {
        if k > 0 {
            exact /= k;
        }
        contains(&model, k as usize, &exact);
    }
    // log at 3: (-1)^(k+1) / (k 3^k).
    let model = taylor_model(&call(Func::Log), &float(3.0), &pow2(-15), 12, PREC).unwrap();
    contains(&model, 0, &Float::with_val(p, 3).ln());
    for k in 1..=12u32 {
        let q = Rational::from((1, k)) / Rational::from(rug::Integer::from(3).pow(k));
        let q = if k % 2 == 1 { q } else { -q };
        contains(&model, k as usize, &Float::with_val(p, &q));
    }
    // atan at 0: (-1)^j / (2j + 1) at odd orders, 0 at even ones; sin at 0 likewise.
    let atan = taylor_model(&call(Func::Atan), &float(0.0), &pow2(-15), 12, PREC).unwrap();
    let sin = taylor_model(&call(Func::Sin), &float(0.0), &pow2(-15), 12, PREC).unwrap();
    let mut factorial = rug::Integer::from(1);
    for k in 0..=12u32 {
        if k > 0 {
            factorial *= k;
        }
        let sign = if k % 4 == 1 { 1 } else { -1 };
        let (a, s) = if k % 2 == 0 {
            (Float::new(p), Float::new(p))
        } else {
            (
                Float::with_val(p, &Rational::from((sign, k))),
                Float::with_val(p, &Rational::from((sign, factorial.clone()))),
            )
        };
        contains(&atan, k as usize, &a);
        contains(&sin, k as usize, &s);
    }
}

#[test]
fn taylor_compositions_enclose_mpfr_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let cases: &[(&str, &[f64])] = &[
        ("x*exp(x)", &[0.0, 1.0, -2.5, 100.0]),
        ("sin(x)/x", &[0.5, 3.0, -20.0]),
        ("exp(-x^2)", &[0.0, 1.5, -4.0]),
        ("log(1+x^2)", &[0.0, 2.0, -0.001]),
        ("atan(exp(x) - 2) / (1 + x^2)", &[0.0, 0.7]),
        ("sqrt(1 - x^2) * acos(x)", &[0.3, -0.8]),
        ("2^-3*pi*x + e*cos(x)^3 - x^-2", &[1.25, -3.0]),
        ("tanh(sinh(x)) * erfc(x) + cbrt(x)^5", &[0.5, -2.0]),
        ("log10p1(x^4) - expm1(sinpi(x))", &[0.01, 0.3]),
    ];
    for (text, centers) in cases {
        let expr = Expr::parse(text).unwrap();
        for &c in centers.iter() {
            for radius in [pow2(-20), pow2(-10)] {
                for degree in degrees() {
                    check_model(&expr, &float(c), &radius, degree, &mut rng);
                }
            }
        }
    }
}

#[test]
fn taylor_polynomials_are_exact_and_sin_pi_x_matches_sinpi() {
    let poly = Expr::parse("x^5 - 3*x + 1/4").unwrap();
    let model = taylor_model(&poly, &float(1.5), &pow2(-4), 7, PREC).unwrap();
    assert!(model.remainder().is_zero());
    assert!(model.coefficient_errors().iter().all(Float::is_zero));
    let expected = [
        -3.0 * 1.5 + 0.25 + 1.5f64.powi(5),
        5.0 * 1.5f64.powi(4) - 3.0,
        10.0 * 3.375,
        10.0 * 2.25,
        5.0 * 1.5,
        1.0,
        0.0,
        0.0,
    ];
    for (m, e) in model.coefficients().iter().zip(expected) {
        assert_eq!(m.to_f64(), e);
    }
    let a = taylor_model(
        &Expr::parse("sin(pi*x)").unwrap(),
        &float(0.3),
        &pow2(-10),
        9,
        PREC,
    )
    .unwrap();
    let b = taylor_model(&call(Func::Sinpi), &float(0.3), &pow2(-10), 9, PREC).unwrap();
    for k in 0..=9 {
        let gap = Float::with_val(PREC, &a.coefficients()[k] - &b.coefficients()[k]).abs();
        let allowed = Float::with_val(
            PREC,
            &a.coefficient_errors()[k] + &b.coefficient_errors()[k],
        );
        assert!(gap <= allowed, "c_{k}");
    }
    let ratio = Float::with_val(53, a.remainder() / b.remainder()).to_f64();
    assert!(
        (0.25..4.0).contains(&ratio),
        "remainders {} vs {}",
        a.remainder(),
        b.remainder()
    );
}

#[test]
fn taylor_near_zero_variants_keep_relative_accuracy() {
    use Func::*;
    for func in [
        Expm1, Exp2m1, Exp10m1, Log1p, Log2p1, Log10p1, Sin, Tan, Sinpi, Tanpi, Asin, Atan, Asinpi,
        Atanpi, Sinh, Tanh, Asinh, Atanh, Erf,
    ] {
        let center = pow2(-40);
        let model = taylor_model(&call(func), &center, &pow2(-48), 6, PREC).unwrap();
        let c0 = Float::with_val(53, model.coefficients()[0].abs_ref());
        let e0 = &model.coefficient_errors()[0];
        assert!(
            *e0 <= c0.clone() >> (PREC - 8) as i32,
            "{func}: c0 = {c0} +- {e0}"
        );
        let r = model.remainder();
        assert!(*r <= c0 >> 250, "{func}: R = {r}");
    }
}

#[test]
fn taylor_domain_violations_are_errors() {
    use Func::*;
    use NoModel::*;
    let model = |text: &str, center: f64, radius: Float| {
        taylor_model(
            &Expr::parse(text).unwrap(),
            &float(center),
            &radius,
            6,
            PREC,
        )
    };
    let zero = || Float::new(53);
    let pi_2 = std::f64::consts::FRAC_PI_2;
    let expectations = [
        (
            model("log(x)", 2f64.powi(-12), pow2(-10)),
            OutsideDomain(Log),
        ),
        (model("log(x)", 0.0, zero()), OutsideDomain(Log)),
        (model("log(x)", -1.0, zero()), OutsideDomain(Log)),
        (model("sqrt(x)", 0.0, zero()), OutsideDomain(Sqrt)),
        (
            model("rsqrt(x)", 2f64.powi(-30), pow2(-20)),
            OutsideDomain(Rsqrt),
        ),
        (model("cbrt(x)", 0.0, pow2(-20)), OutsideDomain(Cbrt)),
        (
            model("log1p(x)", -1.0 + 2f64.powi(-12), pow2(-10)),
            OutsideDomain(Log1p),
        ),
        (model("log2p1(x)", -1.0, zero()), OutsideDomain(Log2p1)),
        (model("tan(x)", pi_2 - 3e-4, pow2(-10)), OutsideDomain(Tan)),
        (model("tan(x)", pi_2, pow2(-50)), OutsideDomain(Tan)),
        (model("tanpi(x)", 0.5, zero()), OutsideDomain(Tanpi)),
        (model("tanpi(x)", 0.4999, pow2(-10)), OutsideDomain(Tanpi)),
        (model("asin(x)", 0.9995, pow2(-10)), OutsideDomain(Asin)),
        (model("asin(x)", 1.0, zero()), OutsideDomain(Asin)),
        (model("acos(x)", -1.0, zero()), OutsideDomain(Acos)),
        (model("acospi(x)", 1.5, zero()), OutsideDomain(Acospi)),
        (model("atanh(x)", 1.0, zero()), OutsideDomain(Atanh)),
        (model("acosh(x)", 1.0, zero()), OutsideDomain(Acosh)),
        (model("acosh(x)", 1.0005, pow2(-10)), OutsideDomain(Acosh)),
        (model("log(x - 1)", 1.0001, pow2(-10)), OutsideDomain(Log)),
        (
            model("log(sin(x))", PI - 1e-4, pow2(-10)),
            OutsideDomain(Log),
        ),
        (model("asin(2*x)", 0.4999, pow2(-10)), OutsideDomain(Asin)),
        (model("1/x", 2f64.powi(-12), pow2(-10)), DivisionByZero),
        (model("x^-3", 0.0, zero()), DivisionByZero),
        (model("1/(x - 1)", 1.0, zero()), DivisionByZero),
        (model("x / (0 * x)", 1.0, zero()), DivisionByZero),
        (model("exp(x)", 1e10, zero()), Overflow),
        (model("zeta(x)", 1.0, zero()), OutsideDomain(Zeta)),
    ];
    for (i, (result, expected)) in expectations.into_iter().enumerate() {
        assert_eq!(result, Err(expected), "case {i}");
    }
    // pi/2 rounded to binary64 is 6e-17 from the pole: a model exists at radius 2^-60.
    let near_pole = model("tan(x)", pi_2, pow2(-60)).unwrap();
    assert!(near_pole.coefficients()[0] > 1e16);
    let x = Expr::X;
    let bad = [
        taylor_model(&x, &Float::with_val(53, f64::NAN), &pow2(-10), 3, PREC),
        taylor_model(&x, &float(1.0), &float(-1.0), 3, PREC),
        taylor_model(
            &x,
            &float(1.0),
            &Float::with_val(53, f64::INFINITY),
            3,
            PREC,
        ),
        taylor_model(&x, &float(1.0), &pow2(-10), 5000, PREC),
        taylor_model(&x, &float(1.0), &pow2(-10), 3, 8),
    ];
    for result in bad {
        assert!(matches!(result, Err(InvalidArgument(_))), "{result:?}");
    }
}

#[test]
fn taylor_example_remainders_and_timings() {
    let examples: &[(&str, f64, i32, usize)] = &[
        ("exp(x)", 1.0, -15, 5),
        ("exp(x)", 1.0, -15, 10),
        ("log(x)", 1.5, -20, 8),
        ("sin(x)", 1048576.3, -20, 6),
        ("atan(x)", 1.0, -10, 12),
        ("erf(x)", 0.5, -12, 10),
        ("x*exp(x)", 0.5, -15, 10),
        ("sin(x)/x", 0.5, -15, 10),
    ];
    for &(text, center, log_radius, degree) in examples {
        let expr = Expr::parse(text).unwrap();
        let (center, radius) = (float(center), pow2(log_radius));
        let runs = 20;
        let start = Instant::now();
        let mut model = None;
        for _ in 0..runs {
            model = Some(taylor_model(&expr, &center, &radius, degree, 200).unwrap());
        }
        let micros = start.elapsed().as_secs_f64() * 1e6 / runs as f64;
        let model = model.unwrap();
        eprintln!(
            "{text} at {} radius 2^{log_radius} degree {degree}: R = {:.3e}, max e_k = {:.3e}, \
             {micros:.0} us at 200 bits",
            center.to_f64(),
            model.remainder().to_f64(),
            model
                .coefficient_errors()
                .iter()
                .map(Float::to_f64)
                .fold(0.0, f64::max),
        );
        assert!(model.error_bound() > 0);
    }
    // exp at 1, radius 2^-15, degree 5: R ~ e (2^-15)^6 / 6!, within a small factor.
    let model = taylor_model(&call(Func::Exp), &float(1.0), &pow2(-15), 5, 200).unwrap();
    let estimate = std::f64::consts::E * 2f64.powi(-90) / 720.0;
    let r = model.remainder().to_f64();
    assert!(
        r >= estimate && r < 1.01 * estimate,
        "R = {r:e}, estimate {estimate:e}"
    );
    let (lo, hi) = eval_pair(Func::Exp, &float(1.0));
    assert!(model.coefficients()[0] >= lo && model.coefficients()[0] <= hi);
}

fn eval_pair(func: Func, x: &Float) -> (Float, Float) {
    (
        eval_rounded(func, x, 200, Dir::Down).0,
        eval_rounded(func, x, 200, Dir::Up).0,
    )
}

#[test]
fn taylor_wide_radii_stay_rigorous() {
    // Far from the center the remainder dominates: the enclosures must still hold.
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let texts = [
        "exp(x)",
        "sin(x)",
        "cos(x)",
        "sinpi(x)",
        "cospi(x)",
        "sinh(x)",
        "cosh(x)",
        "tanh(x)",
        "atan(x)",
        "erf(x)",
        "erfc(x)",
        "asinh(x)",
        "exp2m1(x)",
        "x*exp(-x^2)",
        "sin(x)/(6+x)",
    ];
    let degrees: &[usize] = if extensive() {
        &[0, 1, 3, 6, 9, 12]
    } else {
        &[1, 6, 12]
    };
    for text in texts {
        let expr = Expr::parse(text).unwrap();
        for (center, radius) in [(0.0, 0.5), (0.75, 2.0), (-1.25, 4.0)] {
            for &degree in degrees {
                check_model_at(
                    &expr,
                    &float(center),
                    &float(radius),
                    degree,
                    96,
                    false,
                    &mut rng,
                );
            }
        }
    }
}

#[test]
fn taylor_low_and_high_precisions_and_long_centers() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    // A center with 151 significant bits, beyond the working precision.
    let long = Float::with_val(200, 1) + pow2(-150);
    for prec in [24, 53, 400] {
        for text in ["exp(x)", "log(x)", "atan(x)", "sqrt(x)*tan(x)", "erfc(x)/x"] {
            let expr = Expr::parse(text).unwrap();
            for center in [float(0.625), long.clone()] {
                for degree in [2, 8] {
                    check_model_at(
                        &expr,
                        &center,
                        &pow2(-12),
                        degree,
                        prec,
                        prec > 24,
                        &mut rng,
                    );
                }
            }
        }
    }
}
