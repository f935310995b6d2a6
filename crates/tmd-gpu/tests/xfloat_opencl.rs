//! The double-word kernels (crates/tmd-kernels/kernels/double_word.cl) give
//! bit-identical results to the CPU crate `tmd-xfloat` on the OpenCL backend, for df64 and dd,
//! for +, -, *, /, sqrt, reciprocal and exp: 2^16 random operand pairs per operation and type
//! (2^22 with TMD_EXTENSIVE=1), drawn over the whole exponent range and near 1, with special
//! values (zeros of both signs, infinities, NaN, subnormals, the largest and smallest normal
//! numbers) mixed in. NaN results must be NaN on both sides (their payloads are not compared);
//! everything else must match word for word, bit for bit. sin, cos, tan and atan
//! (kernels/multi_word_trig.cl) have a test of their own with arguments of their kind
//! (`trig_argument`): 2^16 per function and type, or 2^22. So do expm1, log, log1p, sinh,
//! cosh and tanh (kernels/multi_word_exp_log.cl, multi_word_hyperbolic.cl), with
//! `exp_kind_argument` and `log_kind_argument`.
//!
//! Runs on whatever OpenCL device comes first: in CI and on machines without a GPU that is
//! PoCL's CPU device (Debian `pocl-opencl-icd`, installed by scripts/setup.sh). Without any
//! OpenCL runtime the test fails with the runner's message saying what to install.

mod common;

use common::{compare_results, device, extensive, random_word, specials, Word};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;
use tmd_gpu::opencl::{DwOp, OpenClDevice};
use tmd_kernels::Id;
use tmd_xfloat::{Constant, DoubleWord, MultiFloat};

/// A random double word: a leading word, then a trailing word at most half its ulp (through
/// `from_sum`, which normalises), or a special value.
fn random_dw<W: Word>(rng: &mut ChaCha8Rng, specials: &[W]) -> DoubleWord<W> {
    let (exp_bits, frac_bits) = W::FIELDS;
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let max_biased = (1u64 << exp_bits) - 2;
    let roll = rng.gen_range(0..100);
    if roll < 3 {
        let s = specials[rng.gen_range(0..specials.len())];
        return DoubleWord::from_words_unchecked(s, W::ZERO);
    }
    let hi: W = if roll < 60 {
        random_word(rng, bias - 20..=bias + 20)
    } else {
        random_word(rng, 1..=max_biased)
    };
    // The trailing word: hi times a random number below 2^-p (p = frac_bits + 1).
    let tail_scale = -(frac_bits as i32) - 1 - rng.gen_range(0..4);
    let t: W = random_word(rng, bias - 1..=bias - 1); // in [1/2, 1)
    let lo = (hi * t).scalbn(tail_scale);
    if !hi.is_finite() || !lo.is_finite() {
        return DoubleWord::from_words_unchecked(hi, W::ZERO);
    }
    DoubleWord::from_sum(hi, lo)
}

/// An argument where exp is finite and nonzero (three quarters of exp's inputs; the rest are
/// the general random double words, mostly overflowing, underflowing or special).
fn exp_argument<W: Word>(rng: &mut ChaCha8Rng) -> DoubleWord<W> {
    let limit = (W::MAX_EXP as f64) * 0.72;
    let x = if rng.gen::<bool>() {
        rng.gen_range(-1.0..1.0)
    } else {
        rng.gen_range(-limit..limit)
    };
    let hi = W::from_f64(x);
    let lo = (hi * W::from_f64(rng.gen_range(-1.0..1.0))).scalbn(-(W::MANTISSA_DIGITS as i32) - 1);
    DoubleWord::from_sum(hi, lo)
}

fn cpu<W: Word>(op: DwOp, a: DoubleWord<W>, b: DoubleWord<W>) -> DoubleWord<W> {
    match op {
        DwOp::Add => a + b,
        DwOp::Sub => a - b,
        DwOp::Mul => a * b,
        DwOp::Div => a / b,
        DwOp::Sqrt => a.sqrt_dw(),
        DwOp::Recip => a.recip_dw(),
        DwOp::Exp => a.exp(),
        DwOp::Expm1 => a.expm1(),
        DwOp::Log => a.ln(),
        DwOp::Log1p => a.ln_1p(),
        DwOp::Sinh => a.sinh(),
        DwOp::Cosh => a.cosh(),
        DwOp::Tanh => a.tanh(),
        DwOp::Sin => a.sin(),
        DwOp::Cos => a.cos(),
        DwOp::Tan => a.tan(),
        DwOp::Atan => a.atan(),
    }
}

fn same<W: Word>(x: (W, W), y: (W, W)) -> bool {
    if x.0.is_nan() || y.0.is_nan() {
        return x.0.is_nan() && y.0.is_nan();
    }
    x.0.bits() == y.0.bits() && x.1.bits() == y.1.bits()
}

fn hex<W: Word>(x: (W, W)) -> String {
    format!(
        "({:e} [{:#x}], {:e} [{:#x}])",
        x.0,
        x.0.bits(),
        x.1,
        x.1.bits()
    )
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
        let mut a: Vec<DoubleWord<W>> = (0..n)
            .map(|i| {
                if op == DwOp::Exp && i % 4 != 0 {
                    exp_argument(&mut rng)
                } else {
                    random_dw(&mut rng, &sp)
                }
            })
            .collect();
        let mut b: Vec<DoubleWord<W>> = (0..n).map(|_| random_dw(&mut rng, &sp)).collect();
        // Every pair of special values once, at the front.
        let pairs = sp.iter().flat_map(|&x| sp.iter().map(move |&y| (x, y)));
        for (k, (x, y)) in pairs.enumerate().take(n) {
            a[k] = DoubleWord::from_words_unchecked(x, W::ZERO);
            b[k] = DoubleWord::from_words_unchecked(y, W::ZERO);
        }
        let words =
            |v: &[DoubleWord<W>]| -> Vec<(W, W)> { v.iter().map(|d| (d.hi(), d.lo())).collect() };
        let t = Instant::now();
        let device = dev
            .double_word_elementwise(op, &words(&a), &words(&b))
            .unwrap_or_else(|e| panic!("{e}"));
        let device_seconds = t.elapsed().as_secs_f64();
        let want: Vec<(W, W)> = (0..n)
            .map(|i| {
                let r = cpu(op, a[i], b[i]);
                (r.hi(), r.lo())
            })
            .collect();
        failures.extend(compare_results(
            &format!("{}_{op:?}", W::PREFIX),
            &want,
            &device,
            device_seconds,
            same,
            hex,
            |i| {
                format!(
                    "a = {}, b = {}",
                    hex((a[i].hi(), a[i].lo())),
                    hex((b[i].hi(), b[i].lo()))
                )
            },
        ));
    }
    failures
}

#[test]
fn double_word_kernels_equal_cpu_bit_for_bit() {
    let dev = device();
    println!("OpenCL device: {}", dev.name());
    let n = if extensive() { 1 << 22 } else { 1 << 16 };
    let mut failures = check_type::<f32>(&dev, n, 32);
    if dev.has_fp64() {
        failures.extend(check_type::<f64>(&dev, n, 64));
    } else {
        panic!(
            "{}: no fp64 support, the dd kernels cannot be checked",
            dev.name()
        );
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// An argument of the circular functions: uniform in `[-pi, pi]`, log-uniform over the whole
/// exponent range, next to a multiple `k pi/4` (`k` up to `2^(p-1)`, shifted by a few ulps
/// of the double word, or to the nearest double word), tiny, or a general random double word
/// (with special values).
fn trig_argument<W: Word>(rng: &mut ChaCha8Rng, specials: &[W]) -> DoubleWord<W> {
    let (exp_bits, _) = W::FIELDS;
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let max_biased = (1u64 << exp_bits) - 2;
    let p = W::MANTISSA_DIGITS as i32;
    let with_tail = |rng: &mut ChaCha8Rng, hi: W| {
        let lo = (hi * W::from_f64(rng.gen_range(-1.0..1.0))).scalbn(-p - 1);
        DoubleWord::from_sum(hi, lo)
    };
    match rng.gen_range(0..10) {
        0..=2 => {
            let hi = W::from_f64(rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI));
            with_tail(rng, hi)
        }
        3 | 4 => {
            let hi: W = random_word(rng, 1..=max_biased);
            with_tail(rng, hi)
        }
        5 | 6 => {
            let bits = rng.gen_range(1..p);
            let k = rng.gen_range(1i64..(1i64 << bits)) * if rng.gen() { 1 } else { -1 };
            let x = DoubleWord::<W>::constant(Constant::Pi4).mul_fp(W::from_i64(k));
            let shift = rng.gen_range(-3..=3);
            let ulp = x.hi().abs().scalbn(-2 * p);
            x + DoubleWord::from_base(ulp * W::from_i64(shift))
        }
        7 => {
            let hi: W = random_word(rng, 1..=bias - 2 * W::MANTISSA_DIGITS as u64);
            with_tail(rng, hi)
        }
        _ => random_dw(rng, specials),
    }
}

/// Sin, cos, tan and atan of the kernels (kernels/multi_word_trig.cl) equal
/// the CPU crate bit for bit, for df64 and dd ([`trig_argument`]; special values at the front).
#[test]
fn double_word_trig_kernels_equal_cpu_bit_for_bit() {
    let dev = device();
    let n = if extensive() { 1 << 22 } else { 1 << 16 };
    let ops = [DwOp::Sin, DwOp::Cos, DwOp::Tan, DwOp::Atan];
    let mut failures = check_ops::<f32>(&dev, &ops, n, 1032, trig_argument);
    assert!(dev.has_fp64(), "{}: no fp64 support", dev.name());
    failures.extend(check_ops::<f64>(&dev, &ops, n, 1064, trig_argument));
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Each of `ops` on `n` arguments from `argument` (unary: the second operand is unused),
/// compared with the CPU crate; returns the failures and prints one summary line per op.
fn check_ops<W: Word>(
    dev: &OpenClDevice,
    ops: &[DwOp],
    n: usize,
    seed: u64,
    argument: fn(&mut ChaCha8Rng, &[W]) -> DoubleWord<W>,
) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sp = specials::<W>();
    let mut failures = Vec::new();
    for &op in ops {
        let mut a: Vec<DoubleWord<W>> = (0..n).map(|_| argument(&mut rng, &sp)).collect();
        for (k, &x) in sp.iter().enumerate().take(n) {
            a[k] = DoubleWord::from_words_unchecked(x, W::ZERO);
        }
        let words: Vec<(W, W)> = a.iter().map(|d| (d.hi(), d.lo())).collect();
        let t = Instant::now();
        let device = dev
            .double_word_elementwise(op, &words, &words)
            .unwrap_or_else(|e| panic!("{e}"));
        let device_seconds = t.elapsed().as_secs_f64();
        let want: Vec<(W, W)> = (0..n)
            .map(|i| {
                let r = cpu(op, a[i], a[i]);
                (r.hi(), r.lo())
            })
            .collect();
        failures.extend(compare_results(
            &format!("{}_{op:?}", W::PREFIX),
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

#[test]
fn every_program_builds_on_opencl() {
    let dev = device();
    for id in Id::ALL {
        dev.build(id).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The fast binary64 exp reference of the device analysis
/// (kernels/crunch_fast_exp.cl) gives the bits of `tmd_crunch::fast_exp::exp_fast`, both
/// words, on random arguments over its domain, near multiples of ln2/256, at its ends and
/// beyond them (where both answer `(inf, 0)`).
#[test]
fn fast_exp_kernel_equals_cpu_bit_for_bit() {
    use tmd_crunch::fast_exp::{exp_fast, FAST_EXP_MAX, FAST_EXP_MIN};
    let dev = device();
    let mut rng = ChaCha8Rng::seed_from_u64(78);
    let n = if extensive() { 1 << 22 } else { 1 << 18 };
    let mut xs: Vec<f64> = (0..n)
        .map(|i| match i % 4 {
            0 => rng.gen_range(FAST_EXP_MIN..=FAST_EXP_MAX),
            1 => rng.gen_range(-1.0..1.0),
            2 => {
                let k = rng.gen_range(-245_000i64..=261_000) as f64;
                let v = k * (std::f64::consts::LN_2 / 256.0);
                f64::from_bits(v.to_bits().wrapping_add(rng.gen_range(0..5)) - 2)
            }
            _ => rng.gen_range(-1e-3..1e-3) * 2f64.powi(-rng.gen_range(0..60)),
        })
        .collect();
    xs.extend([
        0.0,
        -0.0,
        FAST_EXP_MIN,
        FAST_EXP_MAX,
        708.5,
        -666.0,
        f64::INFINITY,
        f64::NAN,
    ]);
    let program = |word: &str| {
        tmd_kernels::crunch_analyse_source(
            "exp",
            &format!(
                "DEVICE_FN double crunch_target(double x) {{ return crunch_exp_fast(x).{word}; }}"
            ),
            "double",
        )
        .expect("exp has a device reference")
    };
    let hi = dev
        .crunch_eval_source(program("hi"), &xs)
        .unwrap_or_else(|e| panic!("{e}"));
    let lo = dev
        .crunch_eval_source(program("lo"), &xs)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut mismatches = Vec::new();
    for (i, &x) in xs.iter().enumerate() {
        let (h, l) = exp_fast(x);
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        if !(same(h, hi[i]) && same(l, lo[i])) {
            mismatches.push(format!(
                "x = {:#018x}: CPU ({:#018x}, {:#018x}), OpenCL ({:#018x}, {:#018x})",
                x.to_bits(),
                h.to_bits(),
                l.to_bits(),
                hi[i].to_bits(),
                lo[i].to_bits()
            ));
        }
    }
    println!(
        "fast exp: {} inputs, {} mismatches",
        xs.len(),
        mismatches.len()
    );
    assert!(
        mismatches.is_empty(),
        "\n{}",
        mismatches[..mismatches.len().min(5)].join("\n")
    );
}

/// `c (1 + d)` with a random relative offset `d` of magnitude `2^-(0..2p+8)` (or zero), as a
/// double word with a random trailing word: arguments right at a threshold `c` of a function.
fn near<W: Word>(rng: &mut ChaCha8Rng, c: f64) -> DoubleWord<W> {
    let p = W::MANTISSA_DIGITS as i32;
    let d = if rng.gen_range(0..8) == 0 {
        0.0
    } else {
        rng.gen_range(-1.0..1.0) * 2f64.powi(-rng.gen_range(0..2 * p + 8))
    };
    let hi = W::from_f64(c);
    let rest = W::from_f64(c - hi.to_f64() + c * d);
    let tail = (hi * W::from_f64(rng.gen_range(-1.0..1.0))).scalbn(-2 * p - 2);
    DoubleWord::from_sum(hi, rest) + DoubleWord::from_base(tail)
}

/// An argument of expm1, sinh, cosh and tanh: exp's arguments ([`exp_argument`]), tiny ones,
/// ones next to the thresholds of the functions (overflow of exp and of `e^x / 2`, where
/// `expm1` becomes `-1`, where `tanh` becomes `±1`), or general random double words (special
/// values included).
fn exp_kind_argument<W: Word>(rng: &mut ChaCha8Rng, specials: &[W]) -> DoubleWord<W> {
    use tmd_xfloat::math;
    let (exp_bits, _) = W::FIELDS;
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let sign = if rng.gen() { 1.0 } else { -1.0 };
    match rng.gen_range(0..20) {
        0..=7 => exp_argument(rng),
        8..=10 => {
            let hi: W = random_word(rng, 1..=bias - 1);
            let lo = (hi * W::from_f64(rng.gen_range(-1.0..1.0)))
                .scalbn(-(W::MANTISSA_DIGITS as i32) - 1);
            DoubleWord::from_sum(hi, lo)
        }
        11..=16 => {
            let ln2 = std::f64::consts::LN_2;
            let thresholds = [
                math::exp_limits::<W>().0,
                math::half_overflow::<W>(),
                (W::MAX_EXP + 1) as f64 * ln2, // e^x / 2 overflows near (MAX_EXP + 1) ln 2
                -math::expm1_minus_one_below::<DoubleWord<W>>(),
                math::tanh_one_above::<DoubleWord<W>>(),
            ];
            let c = thresholds[rng.gen_range(0..thresholds.len())];
            near(rng, sign * c)
        }
        _ => random_dw(rng, specials),
    }
}

/// An argument of log and log1p: positive numbers over the whole range (subnormals
/// included), numbers next to 1 (log's cancellation), tiny ones and numbers next to -1
/// (log1p's), numbers in `[-1, 2]` (log1p's ranges and their ends), or general random double
/// words (special values included).
fn log_kind_argument<W: Word>(rng: &mut ChaCha8Rng, specials: &[W]) -> DoubleWord<W> {
    let (exp_bits, frac_bits) = W::FIELDS;
    let bias = (1u64 << (exp_bits - 1)) - 1;
    let max_biased = (1u64 << exp_bits) - 2;
    let p = W::MANTISSA_DIGITS as i32;
    let with_tail = |rng: &mut ChaCha8Rng, hi: W| {
        let lo = (hi * W::from_f64(rng.gen_range(-1.0..1.0))).scalbn(-p - 1);
        DoubleWord::from_sum(hi, lo)
    };
    match rng.gen_range(0..20) {
        0..=5 => {
            let hi: W = random_word(rng, 1..=max_biased);
            with_tail(rng, hi.abs())
        }
        6 => {
            let bits = rng.gen::<u64>() & ((1u64 << frac_bits) - 1);
            DoubleWord::from_base(W::from_bits_u64(bits.max(1)))
        }
        7..=10 => near(rng, 1.0),
        11 | 12 => {
            let hi: W = random_word(rng, 1..=bias - 1);
            with_tail(rng, hi)
        }
        13 | 14 => near(rng, -1.0),
        15 | 16 => {
            let hi = W::from_f64(rng.gen_range(-1.0..2.0));
            with_tail(rng, hi)
        }
        _ => random_dw(rng, specials),
    }
}

/// Expm1, log, log1p, sinh, cosh and tanh of the kernels
/// (kernels/multi_word_exp_log.cl, multi_word_hyperbolic.cl) equal the CPU crate bit for bit,
/// for df64 and dd: 2^16 arguments per function and type (2^22 with TMD_EXTENSIVE=1) of
/// their kind ([`exp_kind_argument`], [`log_kind_argument`]), special values at the front.
#[test]
fn double_word_exp_log_kernels_equal_cpu_bit_for_bit() {
    let dev = device();
    let n = if extensive() { 1 << 22 } else { 1 << 16 };
    let exp_ops = [DwOp::Expm1, DwOp::Sinh, DwOp::Cosh, DwOp::Tanh];
    let log_ops = [DwOp::Log, DwOp::Log1p];
    let mut failures = check_ops::<f32>(&dev, &exp_ops, n, 2032, exp_kind_argument);
    failures.extend(check_ops::<f32>(&dev, &log_ops, n, 3032, log_kind_argument));
    assert!(dev.has_fp64(), "{}: no fp64 support", dev.name());
    failures.extend(check_ops::<f64>(&dev, &exp_ops, n, 2064, exp_kind_argument));
    failures.extend(check_ops::<f64>(&dev, &log_ops, n, 3064, log_kind_argument));
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The binary32-argument sin, cos and tan of binary32 device analyses
/// (kernels/binary32_trig.cl) give the bits of `tmd_xfloat::math::binary32_trig` on random
/// arguments of every exponent from 2^-60 up, next to multiples of pi/2 and at pi/4. The float
/// program returns binary32 values, so each binary64 value comes back as three binary32 parts
/// (v = a + b + c exactly: each part is the binary32 rounding of what the earlier ones leave,
/// and 72 bits hold 53).
#[test]
fn binary32_trig_kernel_equals_cpu_bit_for_bit() {
    use tmd_xfloat::math::binary32_trig::Circular;
    let dev = device();
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let n = if extensive() { 1 << 20 } else { 1 << 16 };
    let mut xs: Vec<f32> = (0..n)
        .map(|i| {
            let e = rng.gen_range(-60i32..=127);
            let x = f32::from_bits(((e + 127) as u32) << 23 | rng.gen_range(0..1u32 << 23));
            let x = if i % 2 == 0 { x } else { -x };
            if i % 8 == 7 {
                // next to k pi/2
                let k = rng.gen_range(1..1u32 << 20) as f64;
                let y = (k * std::f64::consts::FRAC_PI_2) as f32;
                f32::from_bits(y.to_bits().wrapping_add(rng.gen_range(0..3)) - 1)
            } else {
                x
            }
        })
        .collect();
    xs.extend([
        std::f32::consts::FRAC_PI_4,
        // the last binary32 below pi/4, the last argument without reduction
        f32::from_bits(std::f32::consts::FRAC_PI_4.to_bits() - 1),
        1.0,
        -2.0,
        f32::MAX,
        -f32::MAX,
    ]);
    for (which, f) in [Circular::Sin, Circular::Cos, Circular::Tan]
        .into_iter()
        .enumerate()
    {
        let part = |k: usize| {
            let residual = match k {
                0 => "v",
                1 => "v - (double)(float)v",
                _ => "(v - (double)(float)v) - (double)(float)(v - (double)(float)v)",
            };
            tmd_kernels::crunch_analyse_source(
                f.name(),
                &format!(
                    "DEVICE_FN float crunch_target(float x) {{ double v = b32_circular((double)x, {which}).hi; return (float)({residual}); }}"
                ),
                "float",
            )
            .expect("a binary32 device reference")
        };
        let parts: Vec<Vec<f32>> = (0..3)
            .map(|k| {
                dev.crunch_eval_source(part(k), &xs)
                    .unwrap_or_else(|e| panic!("{e}"))
            })
            .collect();
        let mut mismatches = Vec::new();
        for (i, &x) in xs.iter().enumerate() {
            let device = parts[0][i] as f64 + parts[1][i] as f64 + parts[2][i] as f64;
            let cpu = f.eval(x).unwrap_or(f64::NAN);
            let same = device.to_bits() == cpu.to_bits() || (device.is_nan() && cpu.is_nan());
            if !same {
                mismatches.push(format!(
                    "{f:?}({x:e} = {:#010x}): CPU {:#018x}, OpenCL {:#018x}",
                    x.to_bits(),
                    cpu.to_bits(),
                    device.to_bits()
                ));
            }
        }
        println!(
            "{f:?}: {} inputs, {} mismatches",
            xs.len(),
            mismatches.len()
        );
        assert!(
            mismatches.is_empty(),
            "\n{}",
            mismatches[..mismatches.len().min(5)].join("\n")
        );
    }
}
