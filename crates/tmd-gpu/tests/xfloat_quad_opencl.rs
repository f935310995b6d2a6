//! Issue 3, item 4, quad words: the quad-word kernels (crates/tmd-kernels/kernels/quad_word.cl
//! and quad_word_exp.cl) give bit-identical results to the CPU crate `tmd-xfloat` on the OpenCL
//! backend, for qf128 and qd, for +, -, *, /, sqrt, reciprocal and exp: 10^6 random operand
//! pairs per operation and type (2^22 with TMD_EXTENSIVE=1), with every pair of special values
//! (zeros of both signs, infinities, NaN, subnormals, the largest and smallest normal numbers,
//! values near overflow) at the front. The random quad words have leading words near 1 or over
//! the whole exponent range and lower words at random distances below them, renormalised by
//! the CPU crate's own `QuadWord::from_words`, so they are valid quad words; additions and
//! subtractions also get operand pairs that cancel in their leading words. NaN results must be
//! NaN on both sides (payloads not compared); all other words must match bit for bit.
//!
//! Runs on whatever OpenCL device comes first (PoCL's CPU device in CI), as xfloat_opencl.rs.

mod common;

use common::{device, extensive, random_word, specials, Word};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;
use tmd_gpu::opencl::{DwOp, OpenClDevice};
use tmd_xfloat::{math, QuadWord};

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
        let mut mismatches = 0;
        for i in 0..n {
            let want = cpu(op, a[i], b[i]).words();
            if !same(want, device[i]) {
                mismatches += 1;
                if mismatches <= 5 {
                    failures.push(format!(
                        "{}_{op:?}: a = {}, b = {}: CPU {}, OpenCL {}",
                        W::QUAD_PREFIX,
                        hex(a[i].words()),
                        hex(b[i].words()),
                        hex(want),
                        hex(device[i])
                    ));
                }
            }
        }
        println!(
            "{}_{op:?}: {n} inputs, {mismatches} mismatches, device call {device_seconds:.2} s",
            W::QUAD_PREFIX
        );
        if mismatches > 5 {
            failures.push(format!(
                "{}_{op:?}: {mismatches} mismatches in all",
                W::QUAD_PREFIX
            ));
        }
    }
    failures
}

#[test]
fn issue3_quad_word_kernels_equal_cpu_bit_for_bit() {
    let dev = device();
    println!("OpenCL device: {}", dev.name());
    let n = if extensive() { 1 << 22 } else { 1_000_000 };
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
