//! Taylor models of the special functions (eint, li2, digamma, lgamma, gamma, j0, j1, y0, y1,
//! ai, zeta)
//! checked against MPFR: at random centers, radii, degrees and precisions, the polynomial
//! with its error bound encloses MPFR's value at random points of the radius; compositions;
//! the places where a model is refused.
//!
//! By default 40 models per function with 24 points each; `TMD_EXTENSIVE=1` runs 400 models
//! per function.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::float::Round;
use rug::Float;
use std::cmp::Ordering;
use tmd_core::expr::Expr;
use tmd_core::interval::Eval;
use tmd_core::registry::{eval_rounded, Dir, Func};
use tmd_core::taylor::{has_model, taylor_model, NoModel, TaylorModel};

fn models_per_function() -> usize {
    if tmd_test_tier::extensive() {
        400
    } else {
        40
    }
}

const POINTS: usize = 24;

fn call(func: Func) -> Expr {
    Expr::Call(func, Box::new(Expr::X))
}

fn pow2(e: i32) -> Float {
    Float::with_val(8, 1) << e
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

/// An enclosure of expr(x) far tighter than the model's: MPFR's directed roundings for a
/// single call, interval evaluation for an expression.
fn reference(expr: &Expr, x: &Float, prec: u32) -> (Float, Float) {
    let wide = 2 * prec + 64;
    if let Expr::Call(func, arg) = expr {
        if **arg == Expr::X {
            return (
                eval_rounded(*func, x, wide, Dir::Down).0,
                eval_rounded(*func, x, wide, Dir::Up).0,
            );
        }
    }
    match expr.eval(x, wide) {
        Eval::Value(v) => (v.lo, v.hi),
        other => panic!("reference evaluation at {x} failed: {other:?}"),
    }
}

/// The model encloses the reference at t, through `enclose` and through the midpoint
/// polynomial with `error_bound`.
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
    let mut power = Float::with_val(wide, 1);
    for m in model.coefficients() {
        value += Float::with_val(wide, m * &power);
        power *= t;
    }
    let mid = Float::with_val(wide, &ref_lo + &ref_hi) / 2u32;
    let half_width = Float::with_val(wide, &ref_hi - &ref_lo) / 2u32;
    let rounding = Float::with_val(wide, value.abs_ref()) >> (3 * prec) as i32;
    let distance = Float::with_val(wide, &mid - &value).abs();
    let allowed = Float::with_val(wide, &model.error_bound() + &half_width) + rounding;
    assert!(
        distance <= allowed,
        "{what}: at t = {t}: |f - p| = {distance} > bound {allowed}"
    );
}

/// Builds the model (it must exist) and checks it at the center, both ends and random points.
fn check_model(
    expr: &Expr,
    center: &Float,
    radius: &Float,
    degree: usize,
    prec: u32,
    rng: &mut ChaCha8Rng,
) -> TaylorModel {
    let what = format!("{expr:?} at {center} radius {radius} degree {degree} prec {prec}");
    let model = taylor_model(expr, center, radius, degree, prec)
        .unwrap_or_else(|e| panic!("{what}: no model: {e}"));
    let mut points = vec![Float::new(53), radius.clone(), Float::with_val(53, -radius)];
    for _ in 0..POINTS {
        let u: f64 = rng.gen_range(-1.0..=1.0);
        points.push(Float::with_val(53, u) * radius);
    }
    for t in &points {
        check_point(&model, expr, t, &what);
    }
    model
}

/// A random center in [lo, hi) with 30 significant bits (so that center + t stays exact).
fn random_center(rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> Float {
    let c: f64 = rng.gen_range(lo..hi);
    let (m, e) = (c.abs().log2().floor() as i32, 30);
    let quantum = 2f64.powi(m - e);
    Float::with_val(53, (c / quantum).round() * quantum)
}

/// A random radius 2^-k (4 <= k <= 30), at most `limit`.
fn random_radius(rng: &mut ChaCha8Rng, limit: f64) -> Float {
    let r = pow2(-rng.gen_range(4..=30));
    if r > limit {
        let mut below = Float::with_val(53, limit);
        below.next_down();
        below
    } else {
        r
    }
}

/// Runs `models_per_function` random models of func: centers from `center`, radii up to
/// `room(center)`, degrees 0..=16, precisions 64, 128 or 200.
fn check_random_models(
    func: Func,
    seed: u64,
    center: impl Fn(&mut ChaCha8Rng) -> Float,
    room: impl Fn(f64) -> f64,
) -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let expr = call(func);
    let mut widest = 0f64;
    for _ in 0..models_per_function() {
        let c = center(&mut rng);
        let radius = random_radius(&mut rng, room(c.to_f64()));
        let degree = rng.gen_range(0..=16);
        let prec = [64, 128, 200][rng.gen_range(0..3)];
        let model = check_model(&expr, &c, &radius, degree, prec, &mut rng);
        widest = widest.max(model.error_bound().to_f64());
    }
    widest
}

/// Distance from x to the nearest pole of gamma (infinite for x > 0).
fn pole_distance(x: f64) -> f64 {
    if x > 0.0 {
        f64::INFINITY
    } else {
        (x - x.floor()).min(x.ceil() - x)
    }
}

#[test]
fn eint_model_encloses_mpfr_at_random_points() {
    check_random_models(
        Func::Eint,
        21,
        |rng| {
            let c = random_center(rng, 2f64.powi(-12), 60.0);
            if rng.gen_bool(0.5) {
                -c
            } else {
                c
            }
        },
        |c| c.abs() / 4.0,
    );
}

#[test]
fn li2_model_encloses_mpfr_at_random_points() {
    check_random_models(
        Func::Li2,
        22,
        |rng| random_center(rng, -60.0, 0.95),
        |c| (1.0 - c) / 4.0,
    );
    // Around 0 the radius reaches across 0 (the removable singularity of -log(1 - y)/y).
    check_random_models(
        Func::Li2,
        23,
        |rng| match rng.gen_range(0..3) {
            0 => Float::new(53),
            _ => random_center(rng, -2f64.powi(-8), 2f64.powi(-8)),
        },
        |_| 0.25,
    );
    // Wide radii across 0, reaching |y| > 1/2.
    check_random_models(
        Func::Li2,
        33,
        |rng| random_center(rng, -0.5, 0.3),
        |c| (0.75f64).min((1.0 - c) / 2.0),
    );
}

#[test]
fn digamma_model_encloses_mpfr_at_random_points() {
    check_random_models(
        Func::Digamma,
        24,
        |rng| random_center(rng, -20.0, 80.0),
        |c| pole_distance(c) / 4.0,
    );
}

#[test]
fn lgamma_model_encloses_mpfr_at_random_points() {
    check_random_models(
        Func::Lgamma,
        25,
        |rng| random_center(rng, -20.0, 200.0),
        |c| pole_distance(c) / 4.0,
    );
    // Next to the zeros of lgamma at 1 and 2 and its minimum near 1.46.
    check_random_models(
        Func::Lgamma,
        26,
        |rng| random_center(rng, 0.9, 2.1),
        |_| 0.25,
    );
}

#[test]
fn gamma_model_encloses_mpfr_at_random_points() {
    check_random_models(
        Func::Gamma,
        27,
        |rng| random_center(rng, -12.0, 40.0),
        |c| pole_distance(c) / 4.0,
    );
    // Radii over the extrema of Gamma (psi changes sign: the convexity bound of log|Gamma|).
    check_random_models(
        Func::Gamma,
        34,
        |rng| match rng.gen_range(0..2) {
            0 => random_center(rng, 1.40, 1.52),
            _ => random_center(rng, -0.55, -0.45),
        },
        |_| 0.125,
    );
}

#[test]
fn bessel_j_models_enclose_mpfr_at_random_points() {
    for (func, seed) in [(Func::J0, 28), (Func::J1, 29)] {
        check_random_models(
            func,
            seed,
            |rng| match rng.gen_range(0..4) {
                0 => Float::new(53),
                1 => random_center(rng, 1e4, 1e6),
                _ => random_center(rng, -50.0, 50.0),
            },
            |_| 2.0,
        );
    }
}

#[test]
fn bessel_y_models_enclose_mpfr_at_random_points() {
    for (func, seed) in [(Func::Y0, 30), (Func::Y1, 31)] {
        check_random_models(
            func,
            seed,
            |rng| match rng.gen_range(0..4) {
                0 => random_center(rng, 2f64.powi(-10), 0.5),
                1 => random_center(rng, 1e4, 1e6),
                _ => random_center(rng, 0.5, 60.0),
            },
            |c| c / 4.0,
        );
    }
}

#[test]
fn ai_model_encloses_mpfr_at_random_points() {
    check_random_models(
        Func::Ai,
        35,
        |rng| match rng.gen_range(0..4) {
            0 => random_center(rng, -250.0, -20.0),
            1 => random_center(rng, 20.0, 120.0),
            _ => random_center(rng, -20.0, 20.0),
        },
        |_| 0.5,
    );
}

#[test]
fn zeta_model_encloses_mpfr_at_random_points() {
    check_random_models(
        Func::Zeta,
        36,
        |rng| match rng.gen_range(0..4) {
            0 => random_center(rng, -60.0, -2.0),
            1 => random_center(rng, 1.0 + 2f64.powi(-10), 1.25),
            2 => random_center(rng, 2.0, 80.0),
            _ => random_center(rng, -2.0, 0.9),
        },
        |c| ((c - 1.0).abs() / 4.0).min(1.0),
    );
}

#[test]
fn special_function_compositions_enclose_mpfr_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let cases: &[(&str, &[f64])] = &[
        ("eint(x^2 + 1)", &[0.0, 1.5, -3.0]),
        ("eint(-exp(x))", &[0.5, -2.0]),
        ("li2(sin(x))", &[0.0, 0.3, -1.0]),
        ("li2(1 - exp(x))", &[0.25, 2.0]),
        ("digamma(1 + x^2) * x", &[0.0, 1.25]),
        ("lgamma(exp(x))", &[0.0, 2.0, -1.5]),
        ("gamma(1/x)", &[0.3, -0.4, 3.0]),
        ("gamma(x) * j1(x) - j0(2*x)", &[2.5, -3.25]),
        ("j0(sin(x)) + j1(x^3)", &[0.0, 0.7]),
        ("y0(2*x) + y1(x) / x", &[0.75, 10.0]),
        ("ai(-x^2) * ai(x)", &[0.0, 2.5, -4.0]),
        ("zeta(2 + x^2) - zeta(-x)", &[0.5, 3.25]),
    ];
    for (text, centers) in cases {
        let expr = Expr::parse(text).unwrap();
        for &c in centers.iter() {
            for radius in [pow2(-20), pow2(-8)] {
                for degree in [3, 8, 14] {
                    check_model(
                        &expr,
                        &Float::with_val(53, c),
                        &radius,
                        degree,
                        128,
                        &mut rng,
                    );
                }
            }
        }
    }
}

#[test]
fn special_function_models_are_refused_at_poles_and_domain_edges() {
    use Func::*;
    use NoModel::*;
    let model = |text: &str, center: f64, radius: Float| {
        taylor_model(
            &Expr::parse(text).unwrap(),
            &Float::with_val(53, center),
            &radius,
            6,
            128,
        )
    };
    let zero = || Float::new(53);
    let expectations = [
        (model("eint(x)", 0.0, zero()), OutsideDomain(Eint)),
        (
            model("eint(x)", 2f64.powi(-12), pow2(-10)),
            OutsideDomain(Eint),
        ),
        (model("li2(x)", 1.0, zero()), OutsideDomain(Li2)),
        (model("li2(x)", 0.999, pow2(-8)), OutsideDomain(Li2)),
        (model("digamma(x)", 0.0, zero()), OutsideDomain(Digamma)),
        (model("lgamma(x)", -2.001, pow2(-8)), OutsideDomain(Lgamma)),
        (model("gamma(x)", -3.0, zero()), OutsideDomain(Gamma)),
        (
            model("gamma(x)", 2f64.powi(-12), pow2(-10)),
            OutsideDomain(Gamma),
        ),
        (model("y0(x)", 0.0, zero()), OutsideDomain(Y0)),
        (model("y1(x)", 2f64.powi(-12), pow2(-10)), OutsideDomain(Y1)),
        (model("zeta(x)", 1.0, zero()), OutsideDomain(Zeta)),
        (
            model("zeta(x)", 1.0 + 2f64.powi(-12), pow2(-10)),
            OutsideDomain(Zeta),
        ),
    ];
    for (i, (result, expected)) in expectations.into_iter().enumerate() {
        assert_eq!(result, Err(expected), "case {i}");
    }
    // Far right zeta is 1 + 2^-x + ...: enclosed from its Dirichlet series, no sums needed.
    let far_zeta = model("zeta(x)", 5000.5, pow2(-10)).unwrap();
    let exact = Float::with_val(8192, Float::with_val(64, 5000.5).zeta_ref());
    let gap = Float::with_val(8192, &exact - &far_zeta.coefficients()[0]).abs();
    assert!(
        exact > 1 && gap <= far_zeta.coefficient_errors()[0],
        "{gap}"
    );
    let beyond = model("ai(x)", 200.0, pow2(-10)).unwrap_err();
    assert!(matches!(beyond, Unimplemented(Ai, _)), "{beyond:?}");
    // Far below zero the shift of the polygamma series would cost too much: refused, with why.
    let far = model("lgamma(x)", -5000.5, pow2(-20)).unwrap_err();
    assert!(matches!(far, Unimplemented(Lgamma, _)), "{far:?}");
    assert!(far.to_string().contains("4096"), "{far}");
}

#[test]
fn every_registered_function_has_a_model() {
    for info in tmd_core::registry::FUNCTIONS {
        assert!(has_model(info.func), "{}", info.name);
    }
}

#[test]
fn special_function_coefficients_match_closed_forms() {
    let prec = 200;
    let close = |model: &TaylorModel, k: usize, exact: &Float| {
        let m = &model.coefficients()[k];
        let e = &model.coefficient_errors()[k];
        let gap = Float::with_val(2 * prec, m - exact).abs();
        assert!(gap <= *e, "c_{k}: |{m} - {exact}| = {gap} > {e}");
        let tight = Float::with_val(64, exact.abs_ref()) >> (prec - 48) as i32;
        assert!(
            *e <= tight.max(&(Float::with_val(64, 1) >> (prec - 48) as i32)),
            "c_{k}: e = {e}"
        );
    };
    let p = 3 * prec;
    // li2 at 0: 1/k^2; digamma at 1: -gamma_E, then (-1)^(k+1) zeta(k+1).
    let li2 = taylor_model(&call(Func::Li2), &Float::new(53), &pow2(-10), 12, prec).unwrap();
    let digamma = taylor_model(
        &call(Func::Digamma),
        &Float::with_val(53, 1),
        &pow2(-10),
        12,
        prec,
    )
    .unwrap();
    close(&li2, 0, &Float::new(p));
    close(
        &digamma,
        0,
        &-Float::with_val(p, rug::float::Constant::Euler),
    );
    for k in 1..=12u32 {
        close(&li2, k as usize, &(Float::with_val(p, 1) / (k * k)));
        let z = Float::with_val(p, Float::zeta_u(k + 1));
        close(&digamma, k as usize, &if k % 2 == 1 { z } else { -z });
    }
    // j0 at 0: (-1)^i / (4^i (i!)^2) at even orders 2i, 0 at odd ones.
    let j0 = taylor_model(&call(Func::J0), &Float::new(53), &pow2(-10), 12, prec).unwrap();
    let mut factorial = Float::with_val(p, 1);
    for i in 0..=6u32 {
        if i > 0 {
            factorial *= i;
        }
        let square = Float::with_val(p, factorial.square_ref());
        let value = (Float::with_val(p, 1) / square) >> (2 * i) as i32;
        close(
            &j0,
            2 * i as usize,
            &if i % 2 == 0 { value } else { -value },
        );
        if i < 6 {
            close(&j0, 2 * i as usize + 1, &Float::new(p));
        }
    }
}
