//! # xfloat-compare: tmd-xfloat's `Dd` beside twofloat, xprec and qd
//!
//! One binary that measures, in one process and on the same inputs, the speed and the accuracy
//! of four double-double (2 x `f64`, nominally 106-bit) types:
//!
//! | library | type | crate |
//! |---|---|---|
//! | tmd-xfloat | `tmd_xfloat::Dd` | this workspace |
//! | twofloat | `twofloat::TwoFloat` | crates.io |
//! | xprec | `xprec::Df64` | crates.io |
//! | qd | `qd::Quad` (a double-double despite its name) | crates.io |
//!
//! for the operations `+`, `*`, `/`, `sqrt`, `exp`, `log` (natural) and `sin`. A library
//! without an operation gets "—" in the tables (qd 0.8 has no `sin`). Each operation is the one
//! a user reaches first: the operator (`a + b`) or the inherent method (`x.sqrt()`, `x.exp()`,
//! `x.ln()`, `x.sin()`); where a library offers a slower, more accurate variant under another
//! name (qd's `add_accurate`) it is not used, and the table notes say so.
//!
//! `cargo run --release -p xfloat-compare -- [N [M [R]]]`: `N` inputs per operation for timing
//! (default 10^6), `M` for accuracy (default `N / 10`), `R` timing repetitions (default 5,
//! at least 3).
//!
//! ## Inputs
//!
//! Seeded ChaCha8 streams (one fixed seed per input range, so the accuracy inputs are the
//! first `M` of the timing inputs, whatever `N`) produce pairs `(hi, lo)` with `hi` drawn from the range and `lo` a uniform random
//! fraction of half an ulp of `hi`, normalised by 2Sum so that `hi = RN(hi + lo)`: all 106 bits
//! are populated. Ranges: `[-1, 1]` for both operands of `+`, `*`, `/`; `[0, 4]` for `sqrt`;
//! `2^[-20, 20)` (log-uniform, positive) for `log`; `[-10, 10]` for `exp`; `[-pi, pi]` for
//! `sin`. Every library receives the very same pairs: each conversion puts `hi` and `lo`
//! into the library's two words unchanged (`Dd::from_words_unchecked`,
//! `TwoFloat::try_from((hi, lo))`, `Df64::new_full`, `Quad(hi, lo)`), and the harness
//! checks, for every input, that reading the words back gives the same bits, and reports any
//! mismatch as an inexact conversion in the notes.
//!
//! ## Accuracy
//!
//! For each input the exact result is computed once with MPFR (through `rug`) at 202 bits
//! (106 + 96) from the exact value of the input, `hi + lo`; each library's result `(hi', lo')`
//! is converted exactly to MPFR (`hi' + lo'` at the precision that holds both words), and its
//! error is `|computed - exact| / 2^(e - 105)` where `2^e <= |exact| < 2^(e + 1)`: units in
//! the last place of a 106-bit number. The tables give the maximum and the root mean square
//! over the `M` inputs. A non-finite result for a finite exact value counts as an infinite
//! error.
//!
//! ## Speed
//!
//! For each (operation, library) the inputs are first converted to the library's type (not
//! timed); then the operation is applied to all `N` inputs, in blocks of 2048 inputs: each
//! block is first read once (untimed, so that it sits in the L2 cache: streaming 32 bytes of
//! input per addition from memory would time the memory bus, not the arithmetic), then timed
//! with `std::time::Instant` around a loop that passes the block through
//! `std::hint::black_box` and each result through `black_box`, so that nothing is hoisted or
//! elided but independent operations may overlap: this is throughput, not latency. The
//! operation is a statically known function, so it is inlined as in user code. The block
//! times are summed and divided by `N`. The whole set of (operation, library) loops is
//! repeated `R` times, round robin (repetition-major, libraries interleaved), so that slow
//! drifts of the machine hit every library alike; the tables give the median over the `R`
//! repetitions of the time per operation in nanoseconds. Timing runs on one thread; the
//! machine facts (CPU model from `/proc/cpuinfo`, logical CPUs, the UTC date) are printed with
//! the tables.
//!
//! The timings depend on the target features: with the default x86-64 baseline,
//! `f64::mul_add` (used for the products by all four libraries) is a call to a
//! runtime-dispatched `fma` routine, not an FMA instruction; `RUSTFLAGS="-C
//! target-cpu=native"` changes that. `docs/xfloat-compare.md` gives measurements of both.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Float;
use std::hint::black_box;
use std::time::Instant;

/// A double-double input or result as its two words `(hi, lo)`; its value is `hi + lo`.
type Pair = (f64, f64);

/// Precision of the MPFR reference results.
const REF_PREC: u32 = 106 + 96;

/// The operations compared, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Mul,
    Div,
    Sqrt,
    Exp,
    Log,
    Sin,
}

impl Op {
    const ALL: [Op; 7] = [
        Op::Add,
        Op::Mul,
        Op::Div,
        Op::Sqrt,
        Op::Exp,
        Op::Log,
        Op::Sin,
    ];

    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Mul => "mul",
            Op::Div => "div",
            Op::Sqrt => "sqrt",
            Op::Exp => "exp",
            Op::Log => "log",
            Op::Sin => "sin",
        }
    }

    fn is_binary(self) -> bool {
        matches!(self, Op::Add | Op::Mul | Op::Div)
    }

    /// Input range description and the seed of its random stream.
    fn range(self) -> (&'static str, u64) {
        match self {
            Op::Add | Op::Mul | Op::Div => ("[-1, 1] x [-1, 1]", 1),
            Op::Sqrt => ("[0, 4]", 2),
            Op::Exp => ("[-10, 10]", 3),
            Op::Log => ("2^[-20, 20)", 4),
            Op::Sin => ("[-pi, pi]", 5),
        }
    }

    /// `n` inputs `(x, y)` (`y` is unused by unary operations); the same for every library.
    fn inputs(self, n: usize) -> (Vec<Pair>, Vec<Pair>) {
        let (_, seed) = self.range();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut xs = Vec::with_capacity(n);
        let mut ys = Vec::with_capacity(n);
        for _ in 0..n {
            let (x, y) = match self {
                Op::Add | Op::Mul | Op::Div => {
                    (uniform(&mut rng, -1.0, 1.0), uniform(&mut rng, -1.0, 1.0))
                }
                Op::Sqrt => (uniform(&mut rng, 0.0, 4.0), (0.0, 0.0)),
                Op::Exp => (uniform(&mut rng, -10.0, 10.0), (0.0, 0.0)),
                Op::Log => {
                    let e = rng.gen_range(-20..20);
                    let m: f64 = rng.gen_range(1.0..2.0);
                    (fill_lo(&mut rng, m * 2f64.powi(e)), (0.0, 0.0))
                }
                Op::Sin => (
                    uniform(&mut rng, -std::f64::consts::PI, std::f64::consts::PI),
                    (0.0, 0.0),
                ),
            };
            xs.push(x);
            ys.push(y);
        }
        (xs, ys)
    }

    /// The exact result, rounded to [`REF_PREC`] bits.
    fn reference(self, x: Pair, y: Pair) -> Float {
        let x = to_mp(x);
        let y = to_mp(y);
        let p = REF_PREC;
        match self {
            Op::Add => Float::with_val(p, &x + &y),
            Op::Mul => Float::with_val(p, &x * &y),
            Op::Div => Float::with_val(p, &x / &y),
            Op::Sqrt => Float::with_val(p, x.sqrt_ref()),
            Op::Exp => Float::with_val(p, x.exp_ref()),
            Op::Log => Float::with_val(p, x.ln_ref()),
            Op::Sin => Float::with_val(p, x.sin_ref()),
        }
    }
}

/// `hi` plus a random trailing word below half an ulp of `hi`, normalised (`hi = RN(hi + lo)`).
fn fill_lo(rng: &mut ChaCha8Rng, hi: f64) -> Pair {
    let lo = rng.gen_range(-1.0..1.0) * hi.abs() * 2f64.powi(-53);
    let d = tmd_xfloat::Dd::from_sum(hi, lo);
    (d.hi(), d.lo())
}

/// Uniform in `[lo, hi]` with all 106 bits populated.
fn uniform(rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> Pair {
    let lead = rng.gen_range(lo..=hi);
    fill_lo(rng, lead)
}

/// The exact value `hi + lo` as an MPFR number (non-finite values from `hi + lo` in `f64`).
fn to_mp((hi, lo): Pair) -> Float {
    if !hi.is_finite() || !lo.is_finite() {
        return Float::with_val(53, hi + lo);
    }
    let words = [hi, lo];
    let exps = words.iter().filter(|w| **w != 0.0).map(|&w| exponent(w));
    let (top, bottom) = exps.fold((i32::MIN, i32::MAX), |(t, b), e| (t.max(e), b.min(e)));
    // Bits from 2^(top + 1) down to 2^(bottom - 52) hold the exact sum.
    let prec = if top == i32::MIN {
        53
    } else {
        (top - bottom + 54) as u32
    };
    let mut v = Float::with_val(prec, hi);
    v += lo;
    v
}

/// `e` with `2^e <= |x| < 2^(e+1)` for finite nonzero `x` (subnormals included); 0 for 0.
fn exponent(x: f64) -> i32 {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let bits = x.abs().to_bits();
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        // Subnormal: value = mantissa * 2^-1074.
        let m = bits & ((1u64 << 52) - 1);
        63 - m.leading_zeros() as i32 - 1074
    } else {
        biased - 1023
    }
}

/// `|computed - exact| / 2^(e - 105)` with `2^e <= |exact| < 2^(e+1)`: ulps of a 106-bit
/// number. NaN and infinities must match exactly (else the error is infinite).
fn ulp_error(computed: Pair, exact: &Float) -> f64 {
    let finite = computed.0.is_finite() && computed.1.is_finite();
    if exact.is_nan() {
        return if (computed.0 + computed.1).is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if exact.is_infinite() {
        let v = computed.0 + computed.1;
        let same = v.is_infinite() && v.is_sign_negative() == exact.is_sign_negative();
        return if same { 0.0 } else { f64::INFINITY };
    }
    if !finite {
        return f64::INFINITY;
    }
    let c = to_mp(computed);
    let diff = Float::with_val(exact.prec().max(c.prec()) + 64, &c - exact).abs();
    if diff.is_zero() {
        return 0.0;
    }
    if exact.is_zero() {
        return f64::INFINITY;
    }
    // rug: 2^(get_exp - 1) <= |exact| < 2^get_exp, so e = get_exp - 1 and e - 105 = get_exp - 106.
    let ulp_exp = exact.get_exp().unwrap() - 106;
    (diff >> ulp_exp).to_f64()
}

/// A double-double library under test.
trait Lib {
    type T: Copy;
    const NAME: &'static str;
    /// Builds the library's value from the two words, as exactly as its API allows.
    fn from_pair(p: Pair) -> Self::T;
    /// The two words of a value.
    fn to_pair(x: Self::T) -> Pair;
    fn add(x: Self::T, y: Self::T) -> Self::T;
    fn mul(x: Self::T, y: Self::T) -> Self::T;
    fn div(x: Self::T, y: Self::T) -> Self::T;
    fn sqrt(x: Self::T) -> Self::T;
    fn exp(x: Self::T) -> Self::T;
    fn log(x: Self::T) -> Self::T;
    /// `None` when the library has no sine.
    fn sin(x: Self::T) -> Option<Self::T>;
    const HAS_SIN: bool = true;
}

/// A [`Lib`] whose type has the operators and the inherent `sqrt`, `exp`, `ln`, `sin` (all
/// but qd): its name, its type, and how a pair of words becomes one.
macro_rules! operator_lib {
    ($lib:ident, $ty:ty, $name:expr, |$hi:ident, $lo:ident| $from:expr) => {
        struct $lib;
        impl Lib for $lib {
            type T = $ty;
            const NAME: &'static str = $name;
            fn from_pair(($hi, $lo): Pair) -> Self::T {
                $from
            }
            fn to_pair(x: Self::T) -> Pair {
                (x.hi(), x.lo())
            }
            #[inline(always)]
            fn add(x: Self::T, y: Self::T) -> Self::T {
                x + y
            }
            #[inline(always)]
            fn mul(x: Self::T, y: Self::T) -> Self::T {
                x * y
            }
            #[inline(always)]
            fn div(x: Self::T, y: Self::T) -> Self::T {
                x / y
            }
            #[inline(always)]
            fn sqrt(x: Self::T) -> Self::T {
                x.sqrt()
            }
            #[inline(always)]
            fn exp(x: Self::T) -> Self::T {
                x.exp()
            }
            #[inline(always)]
            fn log(x: Self::T) -> Self::T {
                x.ln()
            }
            #[inline(always)]
            fn sin(x: Self::T) -> Option<Self::T> {
                Some(x.sin())
            }
        }
    };
}

operator_lib!(TmdDd, tmd_xfloat::Dd, "tmd-xfloat Dd", |hi, lo| {
    tmd_xfloat::Dd::from_words_unchecked(hi, lo)
});
// `try_from` accepts exactly the normalised pairs; `new_add` is exact 2Sum otherwise.
operator_lib!(TwoFloatLib, twofloat::TwoFloat, "twofloat", |hi, lo| {
    twofloat::TwoFloat::try_from((hi, lo)).unwrap_or_else(|_| twofloat::TwoFloat::new_add(hi, lo))
});
operator_lib!(XprecLib, xprec::Df64, "xprec", |hi, lo| {
    xprec::Df64::new_full(hi, lo)
});

struct QdLib;
impl Lib for QdLib {
    type T = qd::Quad;
    const NAME: &'static str = "qd";
    const HAS_SIN: bool = false;
    fn from_pair((hi, lo): Pair) -> Self::T {
        qd::Quad(hi, lo)
    }
    fn to_pair(x: Self::T) -> Pair {
        (x.0, x.1)
    }
    #[inline(always)]
    fn add(x: Self::T, y: Self::T) -> Self::T {
        x + y
    }
    #[inline(always)]
    fn mul(x: Self::T, y: Self::T) -> Self::T {
        x * y
    }
    #[inline(always)]
    fn div(x: Self::T, y: Self::T) -> Self::T {
        x / y
    }
    #[inline(always)]
    fn sqrt(x: Self::T) -> Self::T {
        x.sqrt()
    }
    #[inline(always)]
    fn exp(x: Self::T) -> Self::T {
        x.exp()
    }
    #[inline(always)]
    fn log(x: Self::T) -> Self::T {
        x.ln()
    }
    #[inline(always)]
    fn sin(_: Self::T) -> Option<Self::T> {
        None
    }
}

/// Inputs per timed block: 2048 binary inputs of two double-doubles are 64 KiB, resident in
/// the L2 cache, so that cheap operations are not timing the memory bus.
const BLOCK: usize = 2048;

/// Loads every element of `xs` (untimed), so that the block is in cache when it is timed.
fn warm<T: Copy>(xs: &[T]) {
    for &x in xs {
        black_box(x);
    }
}

/// Nanoseconds per call of `f` over the inputs (throughput), timed block by block.
fn time_binary<T: Copy>(xs: &[T], ys: &[T], f: impl Fn(T, T) -> T) -> f64 {
    let mut secs = 0.0;
    for (bx, by) in xs.chunks(BLOCK).zip(ys.chunks(BLOCK)) {
        warm(bx);
        warm(by);
        let (bx, by) = (black_box(bx), black_box(by));
        let start = Instant::now();
        for (&x, &y) in bx.iter().zip(by) {
            black_box(f(x, y));
        }
        secs += start.elapsed().as_secs_f64();
    }
    secs * 1e9 / xs.len().max(1) as f64
}

/// Nanoseconds per call of `f` over the inputs (throughput), timed block by block.
fn time_unary<T: Copy, R>(xs: &[T], f: impl Fn(T) -> R) -> f64 {
    let mut secs = 0.0;
    for bx in xs.chunks(BLOCK) {
        warm(bx);
        let bx = black_box(bx);
        let start = Instant::now();
        for &x in bx {
            black_box(f(x));
        }
        secs += start.elapsed().as_secs_f64();
    }
    secs * 1e9 / xs.len().max(1) as f64
}

fn has_op<L: Lib>(op: Op) -> bool {
    op != Op::Sin || L::HAS_SIN
}

/// One timed pass of `op` for library `L`; `None` if the library lacks it.
fn time_op<L: Lib>(op: Op, xs: &[Pair], ys: &[Pair]) -> Option<f64> {
    if !has_op::<L>(op) {
        return None;
    }
    let x: Vec<L::T> = xs.iter().map(|&p| L::from_pair(p)).collect();
    let y: Vec<L::T> = if op.is_binary() {
        ys.iter().map(|&p| L::from_pair(p)).collect()
    } else {
        Vec::new()
    };
    Some(match op {
        Op::Add => time_binary(&x, &y, L::add),
        Op::Mul => time_binary(&x, &y, L::mul),
        Op::Div => time_binary(&x, &y, L::div),
        Op::Sqrt => time_unary(&x, L::sqrt),
        Op::Exp => time_unary(&x, L::exp),
        Op::Log => time_unary(&x, L::log),
        Op::Sin => time_unary(&x, L::sin),
    })
}

/// The library's result for one input, as two words.
fn apply<L: Lib>(op: Op, x: Pair, y: Pair) -> Pair {
    let (x, y) = (L::from_pair(x), L::from_pair(y));
    let r = match op {
        Op::Add => L::add(x, y),
        Op::Mul => L::mul(x, y),
        Op::Div => L::div(x, y),
        Op::Sqrt => L::sqrt(x),
        Op::Exp => L::exp(x),
        Op::Log => L::log(x),
        Op::Sin => L::sin(x).expect("sin exists"),
    };
    L::to_pair(r)
}

/// Maximum and RMS ulp error over inputs, and the number of inputs whose conversion into the
/// library's type did not give back the same two words.
#[derive(Clone, Copy, Debug)]
struct Accuracy {
    max: f64,
    rms: f64,
    inexact_inputs: usize,
}

fn accuracy<L: Lib>(op: Op, xs: &[Pair], ys: &[Pair], exact: &[Float]) -> Option<Accuracy> {
    if !has_op::<L>(op) {
        return None;
    }
    let same = |p: Pair| {
        let q = L::to_pair(L::from_pair(p));
        q.0.to_bits() == p.0.to_bits() && q.1.to_bits() == p.1.to_bits()
    };
    let (mut max, mut sum_sq, mut inexact_inputs) = (0.0f64, 0.0f64, 0usize);
    for ((&x, &y), e) in xs.iter().zip(ys).zip(exact) {
        if !same(x) || (op.is_binary() && !same(y)) {
            inexact_inputs += 1;
        }
        let err = ulp_error(apply::<L>(op, x, y), e);
        max = max.max(err);
        sum_sq += err * err;
    }
    Some(Accuracy {
        max,
        rms: (sum_sq / xs.len().max(1) as f64).sqrt(),
        inexact_inputs,
    })
}

const LIBS: [&str; 4] = [TmdDd::NAME, TwoFloatLib::NAME, XprecLib::NAME, QdLib::NAME];

fn time_lib(lib: usize, op: Op, xs: &[Pair], ys: &[Pair]) -> Option<f64> {
    match lib {
        0 => time_op::<TmdDd>(op, xs, ys),
        1 => time_op::<TwoFloatLib>(op, xs, ys),
        2 => time_op::<XprecLib>(op, xs, ys),
        _ => time_op::<QdLib>(op, xs, ys),
    }
}

fn accuracy_lib(lib: usize, op: Op, xs: &[Pair], ys: &[Pair], exact: &[Float]) -> Option<Accuracy> {
    match lib {
        0 => accuracy::<TmdDd>(op, xs, ys, exact),
        1 => accuracy::<TwoFloatLib>(op, xs, ys, exact),
        2 => accuracy::<XprecLib>(op, xs, ys, exact),
        _ => accuracy::<QdLib>(op, xs, ys, exact),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// CPU model name and number of logical CPUs from `/proc/cpuinfo`.
fn cpu_facts() -> (String, usize) {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    let cpus = info.lines().filter(|l| l.starts_with("processor")).count();
    (model, cpus)
}

/// The current UTC date and time, `YYYY-MM-DD HH:MM:SS UTC`.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    // Civil-from-days (H. Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse()
                .expect("usage: xfloat-compare [N [M [R]]] (integers)")
        })
        .collect();
    let n = args.first().copied().unwrap_or(1_000_000).max(1);
    let m = args.get(1).copied().unwrap_or((n / 10).max(1)).max(1);
    let reps = args.get(2).copied().unwrap_or(5).max(3);

    let (model, cpus) = cpu_facts();
    println!("# xfloat-compare\n");
    println!("- date: {}", utc_now());
    println!("- CPU: {model} ({cpus} logical CPUs); timing on one thread");
    println!(
        "- inputs: {n} per operation for timing ({reps} repetitions, median), {m} per operation for accuracy (MPFR at {REF_PREC} bits)"
    );
    println!();

    // Timing: repetition-major, libraries interleaved.
    let inputs: Vec<(Vec<Pair>, Vec<Pair>)> = Op::ALL.iter().map(|op| op.inputs(n)).collect();
    let mut times = vec![vec![Vec::new(); Op::ALL.len()]; LIBS.len()];
    for _ in 0..reps {
        for (k, &op) in Op::ALL.iter().enumerate() {
            let (xs, ys) = &inputs[k];
            for (lib, row) in times.iter_mut().enumerate() {
                if let Some(t) = time_lib(lib, op, xs, ys) {
                    row[k].push(t);
                }
            }
        }
    }
    drop(inputs);

    // Accuracy: the same first `m` inputs (same seeds) for every library.
    let mut acc = vec![vec![None; Op::ALL.len()]; LIBS.len()];
    for (k, &op) in Op::ALL.iter().enumerate() {
        let (xs, ys) = op.inputs(m);
        let exact: Vec<Float> = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| op.reference(x, y))
            .collect();
        for (lib, row) in acc.iter_mut().enumerate() {
            row[k] = accuracy_lib(lib, op, &xs, &ys, &exact);
        }
    }

    let header = |title: &str| {
        let mut s = format!("| {title} |");
        for op in Op::ALL {
            s += &format!(" {} |", op.name());
        }
        s += "\n|---|";
        for _ in Op::ALL {
            s += "---:|";
        }
        s
    };
    println!("## Time per operation (ns, median of {reps} runs of {n} inputs; lower is better)\n");
    println!("{}", header("library"));
    for (lib, row) in times.iter_mut().enumerate() {
        let mut line = format!("| {} |", LIBS[lib]);
        for t in row.iter_mut() {
            if t.is_empty() {
                line += " — |";
            } else {
                line += &format!(" {:.2} |", median(t));
            }
        }
        println!("{line}");
    }
    println!();
    println!("## Error in ulps of 106 bits (max / RMS over {m} inputs; lower is better)\n");
    println!("{}", header("library"));
    let mut inexact = Vec::new();
    for (lib, row) in acc.iter().enumerate() {
        let mut line = format!("| {} |", LIBS[lib]);
        for (k, a) in row.iter().enumerate() {
            match a {
                None => line += " — |",
                Some(a) => {
                    line += &format!(" {} / {} |", fmt_ulp(a.max), fmt_ulp(a.rms));
                    if a.inexact_inputs > 0 {
                        inexact.push(format!(
                            "{} {}: {} of {m} inputs not converted exactly",
                            LIBS[lib],
                            Op::ALL[k].name(),
                            a.inexact_inputs
                        ));
                    }
                }
            }
        }
        println!("{line}");
    }
    println!();
    println!("Input ranges:");
    for op in Op::ALL {
        println!("- {}: {}", op.name(), op.range().0);
    }
    println!();
    println!("Notes:");
    if inexact.is_empty() {
        println!("- every input converted exactly into every library's type (words read back bit-identical)");
    } else {
        for s in inexact {
            println!("- {s}");
        }
    }
    println!("- qd 0.8 has no sin (—); its `+` operator is `add_estimate` (the sloppy addition; `add_accurate` exists but is not what `+` does)");
    println!("- operations: `a + b`, `a * b`, `a / b`, `x.sqrt()`, `x.exp()`, `x.ln()`, `x.sin()` as each library defines them");
}

/// An ulp figure: integers-ish with 3 significant decimals, `inf` for infinity.
fn fmt_ulp(x: f64) -> String {
    if x.is_infinite() {
        "inf".to_string()
    } else if x >= 1e4 {
        format!("{x:.2e}")
    } else {
        format!("{x:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_error_counts_units_of_two_to_the_e_minus_105() {
        // 1.5 lies in [2^0, 2^1): one ulp is 2^-105.
        let exact = Float::with_val(REF_PREC, 1.5);
        assert_eq!(ulp_error((1.5, 2f64.powi(-105)), &exact), 1.0);
        assert_eq!(ulp_error((1.5, -2f64.powi(-106)), &exact), 0.5);
        assert_eq!(ulp_error((1.5, 0.0), &exact), 0.0);
        // -3 lies in [2^1, 2^2): one ulp is 2^-104.
        let exact = Float::with_val(REF_PREC, -3.0);
        assert_eq!(ulp_error((-3.0, 2f64.powi(-104)), &exact), 1.0);
        assert_eq!(ulp_error((f64::NAN, 0.0), &exact), f64::INFINITY);
    }

    #[test]
    fn exact_sums_have_zero_error_and_conversions_are_exact() {
        // 1 + 2^-60 and 2^-3 + 2^-70 are exact double-doubles; their sum is exact too.
        let (x, y) = ((1.0, 2f64.powi(-60)), (0.125, 2f64.powi(-70)));
        let exact = Op::Add.reference(x, y);
        assert_eq!(ulp_error(apply::<TmdDd>(Op::Add, x, y), &exact), 0.0);
        assert_eq!(
            to_mp(x),
            Float::with_val(200, 1.0) + Float::with_val(200, 2f64.powi(-60))
        );
        // Every library reads back the same words from a random normalised input.
        let (xs, ys) = Op::Add.inputs(1000);
        let exact: Vec<Float> = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| Op::Add.reference(x, y))
            .collect();
        for (lib, name) in LIBS.iter().enumerate() {
            let a = accuracy_lib(lib, Op::Add, &xs, &ys, &exact).unwrap();
            assert_eq!(a.inexact_inputs, 0, "{name}");
        }
        // A library without sine reports none.
        assert!(accuracy_lib(3, Op::Sin, &xs, &ys, &exact).is_none());
    }
}
