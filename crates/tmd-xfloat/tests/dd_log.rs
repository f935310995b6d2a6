//! The table-driven `Dd` logarithm (`src/math/dd_log.rs`) against MPFR: its tables
//! entry by entry, its accuracy over the benchmark range, near 1, over the whole finite range
//! (subnormal arguments included) and at the boundaries of its reduction stages, its special
//! values, and (ignored by default) its speed beside the generic algorithm.
mod common;

use common::*;
use rand::Rng;
use rug::float::Constant;
use rug::Float;
use tmd_xfloat::math::dd_log::dd_log_table::{C1, I_HALF, L1, L2, L3, LN2};
use tmd_xfloat::{math, Dd};

/// The proven bound (docs/error-analysis.md §9), in ulps of 106 bits.
const BOUND: f64 = 0.502;

fn mp_log(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.ln_ref())
}

fn dd_log(x: Dd) -> Dd {
    x.ln()
}

fn check(what: &str, n: usize, mut gen: impl FnMut() -> Dd) -> ErrorStats {
    let stats = unary_stats::<Dd>(n, &mut gen, dd_log, mp_log);
    eprintln!("  {what}: max {:.6} ulp", stats.max);
    if stats.max > 0.3 {
        eprintln!("  worst: {}", stats.worst);
    }
    assert_within(what, &stats, BOUND);
    stats
}

/// A double word `2^e (f + lo)` with `f` the given leading word in `[1, 2)` and a random trailing word.
fn with_random_low<R: Rng>(r: &mut R, lead: f64) -> Dd {
    fill_words::<Dd, _>(r, lead)
}

/// Checks that `w = [a, b, c]` is on the grids (`a` multiple of `2^-42`, `b` of `2^-84`,
/// `|c| <= 2^-85`) and within `2^-138` of `v`.
fn check_grid_words(what: &str, w: &[f64; 3], v: &Float) {
    let on_grid = |x: f64, e: i32| (x * 2f64.powi(e)).fract() == 0.0;
    assert!(on_grid(w[0], 42), "{what}: {} not on 2^-42", w[0]);
    assert!(on_grid(w[1], 84), "{what}: {} not on 2^-84", w[1]);
    assert!(
        w[1].abs() <= 2f64.powi(-43),
        "{what}: second word too large"
    );
    assert!(w[2].abs() <= 2f64.powi(-85), "{what}: third word too large");
    let mut sum = Float::with_val(600, w[0]);
    sum += w[1];
    sum += w[2];
    let err = Float::with_val(600, &sum - v).abs();
    assert!(
        err <= Float::with_val(600, 1) >> 138u32,
        "{what}: table error {err:e}"
    );
}

#[test]
fn dd_log_table_entries() {
    let p = 600;
    check_grid_words("ln2", &LN2, &Float::with_val(p, Constant::Log2));
    assert_eq!(C1.len(), 129);
    for (i, (&c1, l1)) in C1.iter().zip(L1.iter()).enumerate() {
        // C1[i] is 1/(1 + i/128) rounded to a multiple of 2^-16.
        let centre = Float::with_val(p, 1.0 + i as f64 / 128.0);
        let exact = Float::with_val(p, 1u32) / &centre;
        let rounded = Float::with_val(p, &exact << 16)
            .to_integer()
            .unwrap()
            .to_f64()
            / 65536.0;
        assert_eq!(c1, rounded, "C1[{i}]");
        assert!((c1 * 65536.0).fract() == 0.0);
        let s = if i >= I_HALF { 2.0 } else { 1.0 };
        let v = -Float::with_val(p, Float::with_val(p, c1 * s).ln_ref());
        check_grid_words(&format!("L1[{i}]"), l1, &v);
    }
    assert_eq!((C1[0], C1[128]), (1.0, 0.5));
    assert_eq!((L1[0], L1[128]), ([0.0; 3], [0.0; 3]));
    for (name, table, q) in [("L2", &L2, 13), ("L3", &L3, 19)] {
        assert_eq!(table.len(), 65);
        for (n, w) in table.iter().enumerate() {
            let j = n as i32 - 32;
            let c = 1.0 - j as f64 * 2f64.powi(-q);
            let v = -Float::with_val(p, Float::with_val(p, c).ln_ref());
            check_grid_words(&format!("{name}[{j}]"), w, &v);
        }
        assert_eq!(table[32], [0.0; 3]);
    }
}

/// The reduction constants of docs/error-analysis.md §9.2, as binary64 numbers rounded
/// up (or down for lower bounds) from their exact rational values.
struct Reduction {
    /// `max |f C1[i] - 1|`.
    t1: f64,
    /// `|tau2|` bound.
    t2: f64,
    /// `|t|` and `|t_h|` bound.
    th: f64,
    /// Smallest `|log x|` in the cases (c1) and (c2) (rounded down).
    y_c1: f64,
    y_c2: f64,
}

/// Recomputes the reduction bounds exactly (rationals) from the tables and checks the claims of
/// the analysis: `|tau1| <= 2^-8`, `|j2| <= 32`, `|tau2| <= 2^-13.99`, `|j3| <= 32`,
/// `|t|, |t_h| < 2^-19.994`.
fn reduction() -> Reduction {
    use rug::Rational;
    let q = |n: i32| Rational::from((1, 1)) >> (n as u32); // 2^-n
    let u = q(53);
    let below = |x: &Rational, e: f64| x.to_f64().log2() < e;
    let up = |x: &Rational| x.to_f64() * (1.0 + 1e-15);
    let down = |x: &Rational| x.to_f64() * (1.0 - 1e-15);
    // T1: max |f C1[i] - 1| over the closed stage-1 intervals (the bound is linear in f).
    let mut t1 = Rational::new();
    for (i, &c1) in C1.iter().enumerate() {
        let c1 = Rational::from_f64(c1).unwrap();
        let lo = Rational::from((2 * i as i64 + 255, 256)).max(Rational::from(1));
        let hi = Rational::from((2 * i as i64 + 257, 256)).min(Rational::from(2));
        for f in [lo, hi] {
            let d = Rational::from(&f * &c1) - 1u32;
            t1 = t1.max(d.abs());
        }
    }
    assert!(t1 <= q(8), "T1");
    let one = || Rational::from(1);
    let cube_over = |t: &Rational| Rational::from(t * t) * t / (one() - t);
    // eps2 = |u2 - tau1/(1 + tau1)|, u2 = RN(t1' RN(1 - t1')), |t1' - tau1| <= u.
    let eps2 = u.clone() * (one() + t1.clone() * 2u32 + &u)
        + u.clone() * (t1.clone() + &u) * (Rational::from(2) + &t1 + u.clone() * 2u32)
        + cube_over(&t1);
    let j2 = (t1.clone() / (one() - &t1) + &eps2) << 13u32;
    assert!(j2 < Rational::from((65, 2)), "|j2| <= 32");
    let t2 = (one() + &t1) * (q(14) + &eps2);
    assert!(below(&t2, -13.99), "T2");
    // |t2' - tau2| and stage 3 (j3 = round(2^19 t2')).
    let d2t = u.clone()
        * (one()
            + (Rational::from(3) + t1.clone() * 2u32 + u.clone() * 4u32) / 256u32
            + &t2
            + u.clone() * 2u32);
    let j3 = (t2.clone() + &d2t) << 19u32;
    assert!(j3 < Rational::from((65, 2)), "|j3| <= 32");
    let t3 = (one() + &t2) * (q(20) + t2.clone() * &t2 / (one() - &t2) + &d2t);
    let t = t3.clone() + u.clone() * (one() + &t3);
    let th = (t.clone() + q(106) * 6u32) * (one() + &u);
    assert!(below(&t, -19.994) && below(&th, -19.994), "T, Th");
    // Case (c1): j3 != 0 => |log x| >= (2^-20 - d2t - u)/(1 + T2 + u);
    // case (c2): j2 != 0 => |log x| >= ((2^-14 - eps2)(1 - T1) - u)/(1 + T1 + u).
    let y_c1 = (q(20) - &d2t - &u) / (one() + &t2 + &u);
    let y_c2 = ((q(14) - &eps2) * (one() - &t1) - &u) / (one() + &t1 + &u);
    eprintln!(
        "T1 2^{:.4}, eps2 2^{:.4}, 2^13 max|u2| {:.4}, T2 2^{:.5}, |t2'-tau2| 2^{:.4}, \
         2^19 max|t2'| {:.4}, T 2^{:.5}, min|y| (c1) 2^{:.5}, (c2) 2^{:.5}",
        t1.to_f64().log2(),
        eps2.to_f64().log2(),
        j2.to_f64(),
        t2.to_f64().log2(),
        d2t.to_f64().log2(),
        j3.to_f64(),
        t.to_f64().log2(),
        y_c1.to_f64().log2(),
        y_c2.to_f64().log2()
    );
    Reduction {
        t1: up(&t1),
        t2: up(&t2),
        th: up(&th),
        y_c1: down(&y_c1),
        y_c2: down(&y_c2),
    }
}

#[test]
fn dd_log_reduction_bounds() {
    let r = reduction();
    assert!(r.t1 <= 2f64.powi(-8) * (1.0 + 1e-14) && r.t2.log2() < -13.99);
    assert!(
        r.y_c1.log2() >= -20.0001 && r.y_c2.log2() >= -14.013,
        "case bounds"
    );
    assert!(r.th / r.y_c1 < 1.005, "rho (c1)");
}

/// The error budget of docs/error-analysis.md §9.4 and §9.5, case by case: each bound is
/// `1/2 + 2^53 kappa + 2^106 (roundings + errors)` in ulps of 106 bits and must stay below
/// [`BOUND`]. (Sums of positive terms in binary64, each term with a relative margin far below
/// the one between the largest case and `BOUND`.)
#[test]
fn dd_log_error_budget() {
    let r = reduction();
    let u = 2f64.powi(-53);
    let p = |e: i32| 2f64.powi(e);
    let h = r.th;
    // Smallest |log x| in case (b) and largest |log(x 2^-k)|, over the stage-1 intervals.
    let (mut y_b, mut log_m) = (f64::INFINITY, 0f64);
    for i in 0..=128 {
        let s = if i >= I_HALF { 0.5 } else { 1.0 };
        for f in [
            1.0 + (i as f64 - 0.5) / 128.0,
            1.0 + (i as f64 + 0.5) / 128.0,
        ] {
            let f = f.clamp(1.0, 2.0);
            let l = Float::with_val(200, f * s).ln().abs().to_f64();
            // ml moves log x by at most |ml|/f <= 2^-53.
            log_m = log_m.max(l * (1.0 + 1e-15) + 2f64.powi(-53));
            if i != 0 && i != 128 {
                y_b = y_b.min(l * (1.0 - 1e-15) - 2f64.powi(-53));
            }
        }
    }
    // Small items of log1p, as multiples of |h| (docs/error-analysis.md §9.4).
    let items = u * (h / 2.0 + h * h / 3.0 + h.powi(3) / 4.0) * (1.0 + 3.0 * u) // p1e
        + u * (h * h / 3.0 + h.powi(3) / 4.0) * (1.0 + 3.0 * u) // q4e
        + u * h / 2.0 // ae/2
        + 3.5 * u * h * h / 3.0 * (1.0 + 3.0 * u) // cube
        + 0.75 * u * h.powi(3) * (1.0 + 3.0 * u) // quartic
        + h.powi(4) / 5.0 * (1.0 + h) // tail
        + u * h * (1.0 + h) * (1.0 + 3.0 * u); // lterm
    let errs = h.powi(6) / (7.0 * (1.0 - h)) // truncation
        + u * u * h / 2.0 / (1.0 - u) + u * h.powi(4) / (1.0 - h) // l^2, l h^4
        + 8.5 * u * u * h * h // cube
        + (3.0 * u * 0.75 * u + u * u / 4.0) * h.powi(3) // quartic
        + 6.0 * u * h.powi(4) / 5.0 // tail
        + 5.0 * u * u * h // lterm
        + 6.0 * u * items; // the six additions of `small`
    let tll = 3.0 * p(-106) * (1.0 + p(-18));
    let e_tll = tll * (u * h + h * h / (1.0 - h)) + 3.0 * u * tll;
    let m_errs = 12.0 * u * u * 1.005;
    // (name, rho, smallest |y|, table error, |low|, tll present)
    let mut cases = vec![
        ("(d)", 1.0 / (1.0 - h / 2.0), 1.0, 0.0, 0.0, false),
        ("(c1)", h / r.y_c1, r.y_c1, p(-138), p(-85), true),
        (
            "(c2)",
            h / r.y_c2,
            r.y_c2,
            2.0 * p(-138) + u * p(-84),
            p(-84),
            true,
        ),
        (
            "(b)",
            h / y_b,
            y_b,
            3.0 * p(-138) + u * (p(-84) + 3.0 * p(-85)),
            3.0 * p(-85),
            true,
        ),
    ];
    let a_names = ["(a) k=1", "(a) k=2", "(a) k=1074"];
    for (name, k) in a_names.iter().zip([1.0, 2.0, 1074.0]) {
        let y = k * (std::f64::consts::LN_2 - log_m);
        let table = (5.0 * k + 12.0) * p(-138);
        cases.push((name, h / y, y, table, (k + 3.0) * p(-85), true));
    }
    let mut worst = 0f64;
    for (name, rho, y, table, low, with_tll) in cases {
        let tll_m = if with_tll { tll * (1.0 + h) } else { 0.0 };
        let kappa = items * rho + low / y + tll_m / y + m_errs;
        let sums = u * (3.0 * low / y + 3.0 * tll_m / y + 3.0 * m_errs + 5.0 * items * rho);
        let approx = errs * rho + table / y + if with_tll { e_tll / y } else { 0.0 };
        let bound = 0.5 + p(53) * kappa + p(106) * (sums + approx);
        eprintln!(
            "{name:>10}: kappa 2^{:.2}, roundings 2^{:.2}, errors 2^{:.2}, bound {bound:.5} ulp",
            kappa.log2(),
            sums.log2(),
            approx.log2()
        );
        worst = worst.max(bound);
    }
    assert!(worst <= BOUND, "error budget {worst} above {BOUND}");
}

#[test]
fn dd_log_benchmark_range() {
    let mut r = rng(0x106_0001);
    let n = samples() * 10;
    let s = check("log 2^[-20,20)", n, || {
        log_uniform::<Dd, _>(&mut r, -20, 20, false)
    });
    // Also the generic algorithm on the same inputs, for the record.
    let mut r = rng(0x106_0001);
    let g = unary_stats::<Dd>(
        samples(),
        || log_uniform::<Dd, _>(&mut r, -20, 20, false),
        math::log,
        mp_log,
    );
    eprintln!(
        "generic log 2^[-20,20): max {:.3} ulp, rms {:.3} ulp over {} (table-driven: max {:.3})",
        g.max, g.rms, g.count, s.max
    );
}

#[test]
fn dd_log_near_one() {
    let n = samples() * 5;
    let mut r = rng(0x106_0002);
    check("log [0.5,2]", n, || uniform::<Dd, _>(&mut r, 0.5, 2.0));
    // 1 + d, |d| log-uniform in 2^[-110, -1), both signs: relative accuracy as x -> 1.
    let mut r = rng(0x106_0003);
    check("log 1 + 2^[-110,-1)", n, || {
        let e = r.gen_range(-110..-1);
        let d = libm::ldexp(r.gen_range(1.0..2.0), e) * if r.gen() { 1.0 } else { -1.0 };
        Dd::from_sum(1.0, d) + fill_words::<Dd, _>(&mut r, libm::ldexp(d, -53))
    });
    // The first words next to 1 with random trailing words (results near 2^-53).
    let mut r = rng(0x106_0004);
    check("log (1 +- k ulp, random low)", n, || {
        let k: i64 = r.gen_range(-1000..1000);
        let lead = if k >= 0 {
            1.0 + k as f64 * f64::EPSILON
        } else {
            1.0 + k as f64 * f64::EPSILON / 2.0
        };
        with_random_low(&mut r, lead)
    });
}

#[test]
fn dd_log_full_range() {
    let n = samples() * 5;
    let mut r = rng(0x106_0005);
    check("log 2^[-1074,1024)", n, || {
        log_uniform::<Dd, _>(&mut r, -1074, 1024, false)
    });
    // Subnormal leading words, and the top binade.
    let mut r = rng(0x106_0006);
    check("log subnormal", n / 5, || {
        let e = r.gen_range(-1074..-1022);
        Dd::from_words_unchecked(libm::ldexp(r.gen_range(1.0..2.0), e), 0.0)
    });
    let mut r = rng(0x106_0007);
    check("log 2^[1023,1024)", n / 5, || {
        log_uniform::<Dd, _>(&mut r, 1023, 1024, false)
    });
    let max = Dd::from_words_unchecked(f64::MAX, libm::ldexp(1.0, 969) * 0.999);
    check("log max", 1, || max);
}

/// Arguments at and next to the boundaries of the three reduction stages, in several binades.
#[test]
fn dd_log_hard_spots() {
    let mut r = rng(0x106_0008);
    let mut inputs: Vec<Dd> = Vec::new();
    for i in 0..=128u32 {
        // Stage 1: f = 1 + (i +- 1/2)/128 and its neighbours.
        for side in [-1.0, 1.0] {
            let f = 1.0 + (i as f64 + 0.5 * side) / 128.0;
            if !(1.0..2.0).contains(&f) {
                continue;
            }
            for d in -3i64..=3 {
                let lead = f64::from_bits((f.to_bits() as i64 + d) as u64);
                for e in [-1, 0, 1, -1022, 1000] {
                    inputs.push(with_random_low(&mut r, libm::ldexp(lead, e)));
                }
            }
        }
        // Stages 2 and 3: t1 ~ (j +- 1/2) 2^-13 and t2 ~ (j +- 1/2) 2^-19 after stage 1.
        let centre = 1.0 + i as f64 / 128.0;
        for _ in 0..40 {
            let jj = r.gen_range(-33..=33) as f64 + 0.5;
            let q = if r.gen() { 13 } else { 19 };
            let t = jj * 2f64.powi(-q) * (1.0 + r.gen_range(-1e-3..1e-3));
            let f = centre * (1.0 + t);
            if (1.0..2.0).contains(&f) {
                let e = r.gen_range(-3..3);
                inputs.push(with_random_low(&mut r, libm::ldexp(f, e)));
            }
        }
    }
    inputs.extend(
        edge::log_inputs::<Dd>()
            .into_iter()
            .filter(|x| x.hi() > 0.0),
    );
    let mut it = inputs.iter();
    let n = inputs.len();
    check("log stage boundaries and edge list", n, || {
        *it.next().unwrap()
    });
}

/// Results next to the midpoint of two consecutive binary64 numbers: the low word of the best
/// double word is then about half an ulp of the high word, where a 106-bit ulp is as coarse as
/// it gets, so the error approaches the bound's 1/2 (random inputs stay below 1/4).
#[test]
fn dd_log_results_near_binary64_midpoints() {
    let mut r = rng(0x106_000a);
    let n = samples();
    let stats = check("log at exp(binary64 midpoints)", n, || {
        // y0 = d + ulp(d)/2, |y0| in 2^[-30, 3], either sign; x = exp(y0) rounded to a Dd.
        let e = r.gen_range(-30..3);
        let d = libm::ldexp(r.gen_range(1.0..2.0), e) * if r.gen() { 1.0 } else { -1.0 };
        let half_ulp = libm::ldexp(1.0, d.abs().log2().floor() as i32 - 53);
        let y0 = Float::with_val(300, d) + half_ulp;
        from_mp::<Dd>(&Float::with_val(300, y0.exp_ref()))
    });
    eprintln!("  worst: {}", stats.worst);
    assert!(
        stats.max > 0.3,
        "midpoint inputs should reach errors near 1/2"
    );
}

#[test]
fn dd_log_special_values() {
    let b = |v: f64| Dd::from_words_unchecked(v, 0.0);
    assert!(b(f64::NAN).ln().is_nan());
    assert!(b(-1.0).ln().is_nan());
    assert!(b(-f64::MIN_POSITIVE).ln().is_nan());
    assert!(b(f64::NEG_INFINITY).ln().is_nan());
    let z = b(0.0).ln();
    assert!(z.is_infinite() && z.is_sign_negative());
    let z = b(-0.0).ln();
    assert!(z.is_infinite() && z.is_sign_negative());
    let z = b(f64::INFINITY).ln();
    assert!(z.is_infinite() && !z.is_sign_negative());
    let one = b(1.0).ln();
    assert!(one.is_zero() && !one.is_sign_negative() && one.lo() == 0.0);
    // Exact in the result's last bits: log(1 + 2^-1074) = 2^-1074 (to 2^-2148).
    let tiny = Dd::from_words_unchecked(1.0, 5e-324).ln();
    assert_eq!((tiny.hi(), tiny.lo()), (5e-324, 0.0));
    let tiny = Dd::from_words_unchecked(1.0, -5e-324).ln();
    assert_eq!((tiny.hi(), tiny.lo()), (-5e-324, 0.0));
    // The same special values as the generic algorithm.
    for v in [
        f64::NAN,
        -2.0,
        -0.0,
        0.0,
        f64::INFINITY,
        1.0,
        5e-324,
        f64::MAX,
    ] {
        let (t, g) = (b(v).ln(), math::log(b(v)));
        assert_eq!(t.is_nan(), g.is_nan(), "{v}");
        assert_eq!(t.is_infinite(), g.is_infinite(), "{v}");
        assert_eq!(t.is_sign_negative(), g.is_sign_negative(), "{v}");
    }
    // Powers of two: k ln 2 within the bound.
    let mut k = -1074;
    check("log 2^k", 2098, || {
        let x = b(libm::ldexp(1.0, k));
        k += 1;
        x
    });
}
