//! Quad words: the quad-word kernels (crates/tmd-kernels/kernels/quad_word.cl,
//! and exp from multi_word_exp_log.cl) give bit-identical results to the CPU crate `tmd-xfloat` on the OpenCL
//! backend, for qf128 and qd, for +, -, *, /, sqrt, reciprocal and exp: 2^16 random operand
//! pairs per operation and type (2^22 with TMD_EXTENSIVE=1), with every pair of special values
//! (zeros of both signs, infinities, NaN, subnormals, the largest and smallest normal numbers,
//! values near overflow) at the front. The random quad words have leading words near 1 or over
//! the whole exponent range and lower words at random distances below them, renormalised by
//! the CPU crate's own `QuadWord::from_words`, so they are valid quad words; additions and
//! subtractions also get operand pairs that cancel in their leading words. NaN results must be
//! NaN on both sides (payloads not compared); all other words must match bit for bit. sin,
//! cos, tan and atan (kernels/multi_word_trig.cl) have a test of their own with arguments of
//! their kind (`trig_argument`): 2^16 per function and type, 2^22 with TMD_EXTENSIVE=1. So do expm1, log, log1p,
//! sinh, cosh and tanh (kernels/multi_word_exp_log.cl, multi_word_hyperbolic.cl), with
//! `exp_kind_argument` and `log_kind_argument`.
//!
//! Runs on whatever OpenCL device comes first (PoCL's CPU device in CI), as xfloat_opencl.rs.

mod common;

use common::{compare_results, device, extensive, random_word, specials, Word};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;
use tmd_gpu::opencl::{DwOp, OpenClDevice};
use tmd_xfloat::{math, Constant, MultiFloat, QuadWord};

/// `x` times a random number in `[1/2, 1)` times `2^-(p + gap)`, with a random sign: a word
/// below `x` that does not overlap it (for `gap >= 0`).
fn word_below<W: Word>(rng: &mut ChaCha8Rng, x: W, gap: i32) -> W {
    let (exp_bits, _) = W::FIELDS;
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let t: W = random_word(rng, bias - 1..=bias - 1);
    (x * t).scalbn(-(W::MANTISSA_DIGITS as i32) - gap)
}

/// Random lower words under `hi`: mostly adjacent (gaps of 0..4 bits), sometimes far apart,
/// sometimes zero from some word on.
fn lower_words<W: Word>(rng: &mut ChaCha8Rng, hi: W) -> [W; 4] {
    let mut w = [hi, W::ZERO, W::ZERO, W::ZERO];
    let zero_from = if rng.gen_range(0..10) == 0 {
        rng.gen_range(1..4)
    } else {
        4
    };
    for k in 1..zero_from {
        let gap = if rng.gen_range(0..8) == 0 {
            rng.gen_range(0..3 * W::MANTISSA_DIGITS as i32)
        } else {
            rng.gen_range(0..4)
        };
        w[k] = word_below(rng, w[k - 1], gap);
    }
    w
}

/// Quad word from arbitrary finite words, through the CPU crate's renormalisation; the
/// leading word alone when a word is not finite.
fn from_words<W: Word>(w: [W; 4]) -> QuadWord<W> {
    if w.iter().all(|x| x.is_finite()) {
        QuadWord::from_words(w)
    } else {
        QuadWord::from_words_unchecked([w[0], W::ZERO, W::ZERO, W::ZERO])
    }
}

/// A random quad word: a leading word near 1 or anywhere in the exponent range, lower words
/// below it; or a special value.
fn random_qw<W: Word>(rng: &mut ChaCha8Rng, specials: &[W]) -> QuadWord<W> {
    let (exp_bits, _) = W::FIELDS;
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let max_biased = (1u64 << exp_bits) - 2;
    let roll = rng.gen_range(0..100);
    if roll < 3 {
        let s = specials[rng.gen_range(0..specials.len())];
        return QuadWord::from_words_unchecked([s, W::ZERO, W::ZERO, W::ZERO]);
    }
    let hi: W = if roll < 60 {
        random_word(rng, bias - 20..=bias + 20)
    } else {
        random_word(rng, 1..=max_biased)
    };
    let w = lower_words(rng, hi);
    from_words(w)
}

/// An operand that cancels `a` in the leading words under `op` (Add: about `-a`, Sub: about
/// `a`), differing from the second or a later word on.
fn cancelling<W: Word>(rng: &mut ChaCha8Rng, op: DwOp, a: QuadWord<W>) -> QuadWord<W> {
    let mut w = a.words();
    if op == DwOp::Add {
        w = w.map(|x| -x);
    }
    let k = rng.gen_range(1..4);
    let below = lower_words(rng, w[k - 1]);
    w[k..].copy_from_slice(&below[1..=(4 - k)]);
    from_words(w)
}

/// An argument where exp is finite and nonzero (three quarters of exp's inputs; the rest are
/// the general random quad words, mostly overflowing, underflowing or special).
fn exp_argument<W: Word>(rng: &mut ChaCha8Rng) -> QuadWord<W> {
    let limit = (W::MAX_EXP as f64) * 0.72;
    let x = if rng.gen::<bool>() {
        rng.gen_range(-1.0..1.0)
    } else {
        rng.gen_range(-limit..limit)
    };
    let hi = W::from_f64(x);
    let w = lower_words(rng, hi);
    from_words(w)
}

fn cpu<W: Word>(op: DwOp, a: QuadWord<W>, b: QuadWord<W>) -> QuadWord<W> {
    match op {
        DwOp::Add => a + b,
        DwOp::Sub => a - b,
        DwOp::Mul => a * b,
        DwOp::Div => a / b,
        DwOp::Sqrt => a.sqrt_qw(),
        DwOp::Recip => a.recip(),
        DwOp::Exp => math::exp(a),
        DwOp::Expm1 => math::expm1(a),
        DwOp::Log => math::log(a),
        DwOp::Log1p => math::log1p(a),
        DwOp::Sinh => math::sinh(a),
        DwOp::Cosh => math::cosh(a),
        DwOp::Tanh => math::tanh(a),
        DwOp::Sin => math::sin(a),
        DwOp::Cos => math::cos(a),
        DwOp::Tan => math::tan(a),
        DwOp::Atan => math::atan(a),
    }
}

fn same<W: Word>(x: [W; 4], y: [W; 4]) -> bool {
    let lower = (1..4).all(|k| x[k].bits() == y[k].bits());
    if x[0].is_nan() || y[0].is_nan() {
        return x[0].is_nan() && y[0].is_nan() && lower;
    }
    x[0].bits() == y[0].bits() && lower
}

fn hex<W: Word>(x: [W; 4]) -> String {
    let words: Vec<String> = x
        .iter()
        .map(|w| format!("{w:e} [{:#x}]", w.bits()))
        .collect();
    format!("({})", words.join(", "))
}

fn check_type<W: Word>(dev: &OpenClDevice, n: usize, seed: u64) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sp = specials::<W>();
    let mut failures = Vec::new();
    for op in [
        DwOp::Add,
        DwOp::Sub,
        DwOp::Mul,
        DwOp::Div,
        DwOp::Sqrt,
        DwOp::Recip,
        DwOp::Exp,
    ] {
        let mut a: Vec<QuadWord<W>> = (0..n)
            .map(|i| {
                if op == DwOp::Exp && i % 4 != 0 {
                    exp_argument(&mut rng)
                } else {
                    random_qw(&mut rng, &sp)
                }
            })
            .collect();
        let mut b: Vec<QuadWord<W>> = (0..n)
            .map(|i| {
                if matches!(op, DwOp::Add | DwOp::Sub) && i % 8 == 0 {
                    cancelling(&mut rng, op, a[i])
                } else {
                    random_qw(&mut rng, &sp)
                }
            })
            .collect();
        // Every pair of special values once, at the front.
        let pairs = sp.iter().flat_map(|&x| sp.iter().map(move |&y| (x, y)));
        for (k, (x, y)) in pairs.enumerate().take(n) {
            a[k] = QuadWord::from_words_unchecked([x, W::ZERO, W::ZERO, W::ZERO]);
            b[k] = QuadWord::from_words_unchecked([y, W::ZERO, W::ZERO, W::ZERO]);
        }
        let words = |v: &[QuadWord<W>]| -> Vec<[W; 4]> { v.iter().map(|q| q.words()).collect() };
        let t = Instant::now();
        let device = dev
            .quad_word_elementwise(op, &words(&a), &words(&b))
            .unwrap_or_else(|e| panic!("{e}"));
        let device_seconds = t.elapsed().as_secs_f64();
        let want: Vec<[W; 4]> = (0..n).map(|i| cpu(op, a[i], b[i]).words()).collect();
        failures.extend(compare_results(
            &format!("{}_{op:?}", W::QUAD_PREFIX),
            &want,
            &device,
            device_seconds,
            same,
            hex,
            |i| format!("a = {}, b = {}", hex(a[i].words()), hex(b[i].words())),
        ));
    }
    failures
}

/// An argument of the circular functions: uniform in `[-pi, pi]`, log-uniform over the whole
/// exponent range, next to a multiple `k pi/4` (`k` up to `2^(p-1)`, shifted by a few ulps
/// of the quad word, or the nearest quad word), tiny, or a general random quad word (with
/// special values).
fn trig_argument<W: Word>(rng: &mut ChaCha8Rng, specials: &[W]) -> QuadWord<W> {
    let (exp_bits, _) = W::FIELDS;
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let max_biased = (1u64 << exp_bits) - 2;
    let p = W::MANTISSA_DIGITS as i32;
    match rng.gen_range(0..10) {
        0..=2 => {
            let hi = W::from_f64(rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI));
            from_words(lower_words(rng, hi))
        }
        3 | 4 => {
            let hi: W = random_word(rng, 1..=max_biased);
            from_words(lower_words(rng, hi))
        }
        5 | 6 => {
            let bits = rng.gen_range(1..p);
            let k = rng.gen_range(1i64..(1i64 << bits)) * if rng.gen() { 1 } else { -1 };
            let x = QuadWord::<W>::constant(Constant::Pi4).mul_fp(W::from_i64(k));
            let shift = rng.gen_range(-3..=3);
            let ulp = x.hi().abs().scalbn(-4 * p);
            x + QuadWord::from_base(ulp * W::from_i64(shift))
        }
        7 => {
            let hi: W = random_word(rng, 1..=bias - 4 * W::MANTISSA_DIGITS as u64);
            from_words(lower_words(rng, hi))
        }
        _ => random_qw(rng, specials),
    }
}

/// Each of `ops` on `n` arguments from `argument` (unary: the second operand is unused),
/// compared with the CPU crate; returns the failures and prints one summary line per op.
fn check_ops<W: Word>(
    dev: &OpenClDevice,
    ops: &[DwOp],
    n: usize,
    seed: u64,
    argument: fn(&mut ChaCha8Rng, &[W]) -> QuadWord<W>,
) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sp = specials::<W>();
    let mut failures = Vec::new();
    for &op in ops {
        let mut a: Vec<QuadWord<W>> = (0..n).map(|_| argument(&mut rng, &sp)).collect();
        for (k, &x) in sp.iter().enumerate().take(n) {
            a[k] = QuadWord::from_words_unchecked([x, W::ZERO, W::ZERO, W::ZERO]);
        }
        let words: Vec<[W; 4]> = a.iter().map(|q| q.words()).collect();
        let t = Instant::now();
        let device = dev
            .quad_word_elementwise(op, &words, &words)
            .unwrap_or_else(|e| panic!("{e}"));
        let device_seconds = t.elapsed().as_secs_f64();
        let want: Vec<[W; 4]> = (0..n).map(|i| cpu(op, a[i], a[i]).words()).collect();
        failures.extend(compare_results(
            &format!("{}_{op:?}", W::QUAD_PREFIX),
            &want,
            &device,
            device_seconds,
            same,
            hex,
            |i| format!("a = {}", hex(words[i])),
        ));
    }
    failures
}

/// Sin, cos, tan and atan of the kernels (kernels/multi_word_trig.cl) equal
/// the CPU crate bit for bit, for qf128 and qd ([`trig_argument`]; special values at the
/// front).
#[test]
fn quad_word_trig_kernels_equal_cpu_bit_for_bit() {
    let dev = device();
    let n = if extensive() { 1 << 22 } else { 1 << 16 };
    let ops = [DwOp::Sin, DwOp::Cos, DwOp::Tan, DwOp::Atan];
    let mut failures = check_ops::<f32>(&dev, &ops, n, 1128, trig_argument);
    assert!(dev.has_fp64(), "{}: no fp64 support", dev.name());
    failures.extend(check_ops::<f64>(&dev, &ops, n, 1256, trig_argument));
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn quad_word_kernels_equal_cpu_bit_for_bit() {
    let dev = device();
    println!("OpenCL device: {}", dev.name());
    let n = if extensive() { 1 << 22 } else { 1 << 16 };
    let mut failures = check_type::<f32>(&dev, n, 128);
    if dev.has_fp64() {
        failures.extend(check_type::<f64>(&dev, n, 256));
    } else {
        panic!(
            "{}: no fp64 support, the qd kernels cannot be checked",
            dev.name()
        );
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// `c (1 + d)` with a random relative offset `d` of magnitude `2^-(0..4p+8)` (or zero), as a
/// quad word with random lower words: arguments right at a threshold `c` of a function.
fn near<W: Word>(rng: &mut ChaCha8Rng, c: f64) -> QuadWord<W> {
    let p = W::MANTISSA_DIGITS as i32;
    let d = if rng.gen_range(0..8) == 0 {
        0.0
    } else {
        rng.gen_range(-1.0..1.0) * 2f64.powi(-rng.gen_range(0..4 * p + 8))
    };
    let hi = W::from_f64(c);
    let rest = W::from_f64(c - hi.to_f64() + c * d);
    let mut w = lower_words(rng, hi);
    // The offset replaces the second word (the lower ones stay below it when it is larger).
    w[1] = rest;
    if rest.abs() < w[2].abs().scalbn(p) {
        w[2] = W::ZERO;
        w[3] = W::ZERO;
    }
    from_words(w)
}

/// An argument of expm1, sinh, cosh and tanh: exp's arguments ([`exp_argument`]), tiny ones,
/// ones next to the thresholds of the functions (overflow of exp and of `e^x / 2`, where
/// `expm1` becomes `-1`, where `tanh` becomes `±1`), or general random quad words (special
/// values included).
fn exp_kind_argument<W: Word>(rng: &mut ChaCha8Rng, specials: &[W]) -> QuadWord<W> {
    let (exp_bits, _) = W::FIELDS;
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let sign = if rng.gen() { 1.0 } else { -1.0 };
    match rng.gen_range(0..20) {
        0..=7 => exp_argument(rng),
        8..=10 => {
            let hi: W = random_word(rng, 1..=bias - 1);
            from_words(lower_words(rng, hi))
        }
        11..=16 => {
            let ln2 = std::f64::consts::LN_2;
            let thresholds = [
                math::exp_limits::<W>().0,
                math::half_overflow::<W>(),
                (W::MAX_EXP + 1) as f64 * ln2, // e^x / 2 overflows near (MAX_EXP + 1) ln 2
                -math::expm1_minus_one_below::<QuadWord<W>>(),
                math::tanh_one_above::<QuadWord<W>>(),
            ];
            let c = thresholds[rng.gen_range(0..thresholds.len())];
            near(rng, sign * c)
        }
        _ => random_qw(rng, specials),
    }
}

/// An argument of log and log1p: positive numbers over the whole range (subnormals
/// included), numbers next to 1 (log's cancellation), tiny ones and numbers next to -1
/// (log1p's), numbers in `[-1, 2]` (log1p's ranges and their ends), or general random quad
/// words (special values included).
fn log_kind_argument<W: Word>(rng: &mut ChaCha8Rng, specials: &[W]) -> QuadWord<W> {
    let (exp_bits, frac_bits) = W::FIELDS;
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let max_biased = (1u64 << exp_bits) - 2;
    match rng.gen_range(0..20) {
        0..=5 => {
            let hi: W = random_word(rng, 1..=max_biased);
            let w = lower_words(rng, hi.abs());
            from_words(w)
        }
        6 => {
            let bits = rng.gen::<u64>() & ((1u64 << frac_bits) - 1);
            QuadWord::from_base(W::from_bits_u64(bits.max(1)))
        }
        7..=10 => near(rng, 1.0),
        11 | 12 => {
            let hi: W = random_word(rng, 1..=bias - 1);
            from_words(lower_words(rng, hi))
        }
        13 | 14 => near(rng, -1.0),
        15 | 16 => {
            let hi = W::from_f64(rng.gen_range(-1.0..2.0));
            from_words(lower_words(rng, hi))
        }
        _ => random_qw(rng, specials),
    }
}

/// Expm1, log, log1p, sinh, cosh and tanh of the kernels
/// (kernels/multi_word_exp_log.cl, multi_word_hyperbolic.cl) equal the CPU crate bit for bit,
/// for qf128 and qd: 2^16 arguments per function and type (2^22 with TMD_EXTENSIVE=1) of
/// their kind ([`exp_kind_argument`], [`log_kind_argument`]), special values at the front.
/// (About 150 s on PoCL with two cores.)
#[test]
fn quad_word_exp_log_kernels_equal_cpu_bit_for_bit() {
    let dev = device();
    let n = if extensive() { 1 << 22 } else { 1 << 16 };
    let exp_ops = [DwOp::Expm1, DwOp::Sinh, DwOp::Cosh, DwOp::Tanh];
    let log_ops = [DwOp::Log, DwOp::Log1p];
    let mut failures = check_ops::<f32>(&dev, &exp_ops, n, 2128, exp_kind_argument);
    failures.extend(check_ops::<f32>(&dev, &log_ops, n, 3128, log_kind_argument));
    assert!(dev.has_fp64(), "{}: no fp64 support", dev.name());
    failures.extend(check_ops::<f64>(&dev, &exp_ops, n, 2256, exp_kind_argument));
    failures.extend(check_ops::<f64>(&dev, &log_ops, n, 3256, log_kind_argument));
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
