//! The table-driven double-double sine and cosine (`math::dd_trig`) against MPFR:
//! the generated tables, random arguments over the benchmark range, `[-2^20, 2^20]`, the whole
//! finite range and next to the points where the reduction is hardest, the edge list shared
//! with the generic functions, special values, and a timing loop (ignored by default).
mod common;

use common::edge::{trig_inputs, unary_edge};
use common::{assert_within, log_uniform, rng, samples, to_mp, ulp_error, uniform, Accumulator};
use rand::Rng;
use rug::float::Constant as MpConstant;
use rug::Float;
use tmd_xfloat::math::dd_trig::{self, table};
use tmd_xfloat::{Dd, MultiFloat};

/// The proven bound (docs/error-analysis.md §10), in ulps of 106 bits.
const BOUND: f64 = 0.52;

fn mp_sin(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.sin_ref())
}
fn mp_cos(x: &Float, p: u32) -> Float {
    Float::with_val(p, x.cos_ref())
}

/// Successive round-to-nearest words of `v`.
fn words(v: &Float, n: usize) -> Vec<f64> {
    let mut rest = Float::with_val(v.prec().max(1000), v);
    (0..n)
        .map(|_| {
            let w = rest.to_f64();
            rest -= w;
            w
        })
        .collect()
}

#[test]
fn dd_trig_table_is_the_mpfr_expansion() {
    let p = 1000;
    let pi = Float::with_val(p, MpConstant::Pi);
    let n = 1u32 << table::LOG_N;
    let pi_n = Float::with_val(p, &pi / n);
    assert_eq!(table::PI_OVER_N.to_vec(), words(&pi_n, 4));
    assert_eq!(
        table::N_OVER_PI,
        Float::with_val(p, Float::with_val(p, n) / &pi).to_f64()
    );
    let inv_fact = |k: u32| {
        let mut f = Float::with_val(p, 1);
        for i in 2..=k {
            f *= i;
        }
        Float::with_val(p, 1) / f
    };
    assert_eq!(table::SIN_C3.to_vec(), words(&-inv_fact(3), 2));
    assert_eq!(table::SIN_C5.to_vec(), words(&inv_fact(5), 2));
    assert_eq!(table::SIN_C7, (-inv_fact(7)).to_f64());
    assert_eq!(table::SIN_C9, inv_fact(9).to_f64());
    assert_eq!(table::COS_C4.to_vec(), words(&inv_fact(4), 2));
    assert_eq!(table::COS_C6, (-inv_fact(6)).to_f64());
    assert_eq!(table::COS_C8, inv_fact(8).to_f64());
    assert_eq!(table::COS_C10, (-inv_fact(10)).to_f64());
    assert_eq!(table::SIN_COS.len() as u32, n / 4 + 1);
    for (j, entry) in table::SIN_COS.iter().enumerate() {
        let a = Float::with_val(p, &pi_n * j as u32);
        let s = words(&Float::with_val(p, a.sin_ref()), 3);
        let c = words(&Float::with_val(p, a.cos_ref()), 3);
        assert_eq!(entry[..3].to_vec(), s, "sin(j pi/N), j = {j}");
        assert_eq!(entry[3..].to_vec(), c, "cos(j pi/N), j = {j}");
    }
}

/// Max/RMS error of sin and cos over the inputs; checks that `sin_cos` equals `(sin, cos)` and
/// that `Dd::sin`, `Dd::cos`, `Dd::sin_cos` are these functions, bit for bit.
fn check(what: &str, xs: &[Dd]) {
    let mut s_acc = Accumulator::default();
    let mut c_acc = Accumulator::default();
    let same = |a: Dd, b: Dd| a == b || (a.is_nan() && b.is_nan());
    for &x in xs {
        let mx = to_mp(x);
        let (s, c) = (dd_trig::sin(x), dd_trig::cos(x));
        let (s2, c2) = dd_trig::sin_cos(x);
        assert!(
            same(s, s2) && same(c, c2),
            "sin_cos differs from (sin, cos) at {x:?}"
        );
        assert!(same(s, x.sin()) && same(c, x.cos()) && x.sin_cos() == (s2, c2) || s.is_nan());
        s_acc.add(ulp_error(s, &mp_sin(&mx, 400)), || {
            format!("sin {x:?} -> {s:?}")
        });
        c_acc.add(ulp_error(c, &mp_cos(&mx, 400)), || {
            format!("cos {x:?} -> {c:?}")
        });
    }
    assert_within(&format!("sin {what}"), &s_acc.finish(), BOUND);
    assert_within(&format!("cos {what}"), &c_acc.finish(), BOUND);
}

#[test]
fn dd_trig_pi_range() {
    let mut g = rng(31);
    let pi = std::f64::consts::PI;
    let xs: Vec<Dd> = (0..samples()).map(|_| uniform(&mut g, -pi, pi)).collect();
    check("[-pi, pi]", &xs);
}

#[test]
fn dd_trig_wide_range() {
    let mut g = rng(32);
    let xs: Vec<Dd> = (0..samples())
        .map(|_| uniform(&mut g, -1048576.0, 1048576.0))
        .collect();
    check("[-2^20, 2^20]", &xs);
}

#[test]
fn dd_trig_full_range() {
    let mut g = rng(33);
    let xs: Vec<Dd> = (0..samples())
        .map(|_| log_uniform(&mut g, -1070, 1024, true))
        .collect();
    check("2^[-1070, 1024)", &xs);
}

/// The double-double nearest to `v` (word by word).
fn dd_of(v: &Float) -> Dd {
    let w = words(v, 2);
    Dd::from_expansion(&w)
}

/// Arguments next to multiples of `pi/2` (`k pi/2 + d` with `|k| < 2^21` or `|k| < 2^60`,
/// `|d|` log-uniform in `[2^-125, 2^-8]`: Cody–Waite, its switch to Payne–Hanek at
/// `|r| < 2^-40 |x|`, Payne–Hanek), next to the table points `j pi/1024` and the midpoints
/// `(j + 1/2) pi/1024` (where `k` changes), and next to the Cody–Waite limit `2^21`.
#[test]
fn dd_trig_hard_spots() {
    let mut g = rng(34);
    let pi = Float::with_val(700, MpConstant::Pi);
    let mut xs = Vec::new();
    for i in 0..samples() {
        let (k, shift): (i64, u32) = match i % 5 {
            0 => (g.gen_range(-(1 << 21)..(1 << 21)), 1),
            1 => (g.gen_range(-(1i64 << 60)..(1i64 << 60)), 1),
            2 => (g.gen_range(-(1 << 14)..(1 << 14)), 10),
            3 => (2 * g.gen_range(-(1 << 14)..(1 << 14)) + 1, 11),
            _ => (
                (2097152.0 / std::f64::consts::PI * 2048.0) as i64 + g.gen_range(-50..50),
                11,
            ),
        };
        let e: i32 = g.gen_range(-125..-8);
        let d = Float::with_val(700, g.gen_range(-1.0..1.0f64)) << e;
        let v = Float::with_val(700, Float::with_val(700, &pi * k) >> shift) + d;
        xs.push(dd_of(&v));
    }
    check("next to k pi/2, j pi/1024, (j + 1/2) pi/1024, 2^21", &xs);
}

/// The edge list of the generic functions (`tests/common/edge.rs`: specials, tiny and huge
/// arguments, the double-doubles next to `k pi/4`, the binary64 numbers closest to multiples of
/// `pi/2`).
#[test]
fn dd_trig_edges() {
    let inputs = trig_inputs::<Dd>();
    for (name, f, r) in [
        (
            "sin",
            dd_trig::sin as fn(Dd) -> Dd,
            mp_sin as fn(&Float, u32) -> Float,
        ),
        ("cos", dd_trig::cos, mp_cos),
    ] {
        let s = unary_edge(&inputs, f, r);
        eprintln!(
            "dd {name} edge: max {:.3} ulp, rms {:.3} ulp over {} of {} inputs; {} special, \
             {} disagree, {} spurious",
            s.max,
            s.rms,
            s.counted,
            s.total,
            s.special,
            s.disagreements.len(),
            s.spurious.len()
        );
        assert!(s.disagreements.is_empty(), "{:?}", s.disagreements);
        assert!(s.spurious.is_empty(), "{:?}", s.spurious);
        assert!(s.max <= BOUND, "{name}: {} ulp at {}", s.max, s.worst);
    }
}

#[test]
fn dd_trig_special_values() {
    let nan = Dd::from_base(f64::NAN);
    let inf = Dd::from_base(f64::INFINITY);
    for x in [nan, inf, -inf] {
        let (s, c) = dd_trig::sin_cos(x);
        assert!(s.is_nan() && c.is_nan() && dd_trig::sin(x).is_nan() && dd_trig::cos(x).is_nan());
    }
    let zero = Dd::from_base(0.0);
    let neg_zero = Dd::from_base(-0.0);
    let one = Dd::from_base(1.0);
    assert!(dd_trig::sin(zero).is_zero() && !dd_trig::sin(zero).is_sign_negative());
    assert!(dd_trig::sin(neg_zero).is_zero() && dd_trig::sin(neg_zero).is_sign_negative());
    assert_eq!(dd_trig::cos(zero), one);
    assert_eq!(dd_trig::cos(neg_zero), one);
    assert_eq!(dd_trig::sin_cos(neg_zero).1, one);
    // Subnormal and tiny arguments: sin x = x, cos x = 1.
    for v in [
        f64::from_bits(1),
        1e-310,
        -2.2250738585072014e-308,
        1e-100,
        -3e-19,
    ] {
        let x = Dd::from_base(v);
        assert_eq!(dd_trig::sin(x), x);
        assert_eq!(dd_trig::cos(x), one);
    }
    // The largest finite double-double.
    let big = Dd::from_base(f64::MAX);
    let exact = to_mp(big);
    assert!(ulp_error(dd_trig::sin(big), &mp_sin(&exact, 400)) <= BOUND);
    assert!(ulp_error(dd_trig::cos(big), &mp_cos(&exact, 400)) <= BOUND);
}

/// `sin(-x) = -sin x` and `cos(-x) = cos x`, bit for bit (every step is odd or even in `x`).
#[test]
fn dd_trig_symmetry() {
    let mut g = rng(36);
    for i in 0..samples() {
        let x: Dd = if i % 2 == 0 {
            uniform(&mut g, -1e4, 1e4)
        } else {
            log_uniform(&mut g, -60, 1024, true)
        };
        assert_eq!(dd_trig::sin(-x), -dd_trig::sin(x), "{x:?}");
        assert_eq!(dd_trig::cos(-x), dd_trig::cos(x), "{x:?}");
    }
}
