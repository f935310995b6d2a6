//! Throughput of the double- and quad-word kernels: for each type (df64, dd, qf128, qd) and operation, the device's
//! `*_elementwise` kernel against one CPU thread running `tmd-xfloat` on the same inputs, with
//! every result compared bit for bit.
//!
//! ```sh
//! cargo run --release -p tmd-gpu --example xfloat_throughput -- [--cuda N | --opencl N] \
//!     [--log2n 22] [--repeats 5] [--types df64,dd,qf128,qd] [--ops add,mul,div,sqrt,exp,log,sin]
//! ```
//!
//! Without `--cuda` or `--opencl` it runs on OpenCL device 0.
//!
//! Inputs: 2^log2n seeded ChaCha8 draws per operation (the ranges of `xfloat-compare`:
//! `[-1, 1]` for both operands of add, mul and div, `[0, 4]` for sqrt, `[-10, 10]` for exp,
//! `2^[-20, 20)` log-uniform for log, `[-pi, pi]` for sin). The leading word is the draw
//! rounded to the base format (f32 for df64 and qf128, f64 for dd and qd); every lower word is
//! a random fraction of an ulp of the word above it, and the words are renormalised by the CPU
//! crate, so that all 2, or 4, words are populated.
//!
//! Device time: kernel only. The inputs are copied to the device once and the results read
//! once, outside the timed region; the program is compiled before, and a first launch warms
//! up and is not counted; then each of `--repeats` launches is timed on the host from launch
//! to completion (`cuStreamSynchronize`, `clFinish`). The table gives the median. CPU time:
//! one thread (this one) computing every result into a vector, timed over the whole loop.
//! The ratio is the device's throughput over the CPU thread's (CPU ns per op / device ns per
//! op). "same bits" compares every word of every result, bit for bit, except that a NaN
//! leading word matches any NaN (payloads ignored; the lower words of a NaN double word are
//! not compared, those of a quad word are), as in the tests `xfloat_opencl.rs` and
//! `xfloat_quad_opencl.rs`; differences are reported,
//! not fatal (exit code 0). A device error exits with 1, bad arguments with 2, each with one
//! line on stderr.

use cudarc::driver::DeviceRepr;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::ops::{Add, Div, Mul};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tmd_gpu::opencl::{DwOp, DwWord};
use tmd_gpu::{Device, Runtime};
use tmd_gpu::{GpuError, Timed};
use tmd_xfloat::{BaseFloat, DoubleWord, QuadWord};

const USAGE: &str = "usage: xfloat_throughput [--cuda N | --opencl N] [--log2n 22] \
                     [--repeats 5] [--types df64,dd,qf128,qd] [--ops add,mul,div,sqrt,exp,log,sin]";

/// The operations measured, with their input ranges.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Add,
    Mul,
    Div,
    Sqrt,
    Exp,
    Log,
    Sin,
}

const OPS: [(&str, Op); 7] = [
    ("add", Op::Add),
    ("mul", Op::Mul),
    ("div", Op::Div),
    ("sqrt", Op::Sqrt),
    ("exp", Op::Exp),
    ("log", Op::Log),
    ("sin", Op::Sin),
];

const TYPES: [&str; 4] = ["df64", "dd", "qf128", "qd"];

impl Op {
    fn name(self) -> &'static str {
        OPS.iter().find(|(_, op)| *op == self).expect("listed").0
    }

    fn kernel_op(self) -> DwOp {
        match self {
            Op::Add => DwOp::Add,
            Op::Mul => DwOp::Mul,
            Op::Div => DwOp::Div,
            Op::Sqrt => DwOp::Sqrt,
            Op::Exp => DwOp::Exp,
            Op::Log => DwOp::Log,
            Op::Sin => DwOp::Sin,
        }
    }

    /// The seed of the operation's input stream (as in `xfloat-compare`).
    fn seed(self) -> u64 {
        match self {
            Op::Add | Op::Mul | Op::Div => 1,
            Op::Sqrt => 2,
            Op::Exp => 3,
            Op::Log => 4,
            Op::Sin => 5,
        }
    }

    /// One leading value from the operation's range.
    fn draw(self, rng: &mut ChaCha8Rng) -> f64 {
        match self {
            Op::Add | Op::Mul | Op::Div => rng.gen_range(-1.0..=1.0),
            Op::Sqrt => rng.gen_range(0.0..=4.0),
            Op::Exp => rng.gen_range(-10.0..=10.0),
            Op::Log => rng.gen_range(1.0..2.0) * 2f64.powi(rng.gen_range(-20..20)),
            Op::Sin => rng.gen_range(-std::f64::consts::PI..=std::f64::consts::PI),
        }
    }

    fn is_binary(self) -> bool {
        matches!(self, Op::Add | Op::Mul | Op::Div)
    }
}

/// A base format of the kernels, with bit access.
trait Word: BaseFloat + DwWord + DeviceRepr {
    fn bits(self) -> u64;
}

impl Word for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl Word for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// `x` times a random fraction in `(-1, 1)` of `2^-p`: a word below `x`, within its ulp.
fn word_below<W: Word>(rng: &mut ChaCha8Rng, x: W) -> W {
    (x * W::from_f64(rng.gen_range(-1.0..1.0))).scalbn(-(W::MANTISSA_DIGITS as i32))
}

/// What the measurement needs of a multi-word type (double words and quad words).
trait Multi: Copy + Add<Output = Self> + Mul<Output = Self> + Div<Output = Self> {
    type Words: Copy;
    /// The value with leading word `hi` and random lower words.
    fn filled(rng: &mut ChaCha8Rng, hi: f64) -> Self;
    fn words(self) -> Self::Words;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sin(self) -> Self;
    /// Equal bits (NaN leading words: as the kernel tests compare them).
    fn same(x: Self::Words, y: Self::Words) -> bool;
    /// The device's results for `a op b` and the kernel seconds of each repeat.
    fn on_device(
        dev: &Device,
        op: DwOp,
        a: &[Self::Words],
        b: &[Self::Words],
        repeats: usize,
    ) -> Result<Timed<Self::Words>, GpuError>;
}

impl<W: Word> Multi for DoubleWord<W> {
    type Words = (W, W);
    fn filled(rng: &mut ChaCha8Rng, hi: f64) -> Self {
        let hi = W::from_f64(hi);
        DoubleWord::from_sum(hi, word_below(rng, hi))
    }
    fn words(self) -> (W, W) {
        (self.hi(), self.lo())
    }
    fn sqrt(self) -> Self {
        self.sqrt_dw()
    }
    fn exp(self) -> Self {
        DoubleWord::exp(self)
    }
    fn ln(self) -> Self {
        DoubleWord::ln(self)
    }
    fn sin(self) -> Self {
        DoubleWord::sin(self)
    }
    fn same(x: (W, W), y: (W, W)) -> bool {
        if x.0.is_nan() || y.0.is_nan() {
            return x.0.is_nan() && y.0.is_nan();
        }
        x.0.bits() == y.0.bits() && x.1.bits() == y.1.bits()
    }
    fn on_device(
        dev: &Device,
        op: DwOp,
        a: &[(W, W)],
        b: &[(W, W)],
        repeats: usize,
    ) -> Result<Timed<(W, W)>, GpuError> {
        dev.double_word_elementwise_timed(op, a, b, repeats)
    }
}

impl<W: Word> Multi for QuadWord<W> {
    type Words = [W; 4];
    fn filled(rng: &mut ChaCha8Rng, hi: f64) -> Self {
        let mut w = [W::from_f64(hi), W::ZERO, W::ZERO, W::ZERO];
        for k in 1..4 {
            w[k] = word_below(rng, w[k - 1]);
        }
        QuadWord::from_words(w)
    }
    fn words(self) -> [W; 4] {
        QuadWord::words(self)
    }
    fn sqrt(self) -> Self {
        self.sqrt_qw()
    }
    fn exp(self) -> Self {
        QuadWord::exp(self)
    }
    fn ln(self) -> Self {
        QuadWord::ln(self)
    }
    fn sin(self) -> Self {
        QuadWord::sin(self)
    }
    fn same(x: [W; 4], y: [W; 4]) -> bool {
        let lower = (1..4).all(|k| x[k].bits() == y[k].bits());
        if x[0].is_nan() || y[0].is_nan() {
            return x[0].is_nan() && y[0].is_nan() && lower;
        }
        x[0].bits() == y[0].bits() && lower
    }
    fn on_device(
        dev: &Device,
        op: DwOp,
        a: &[[W; 4]],
        b: &[[W; 4]],
        repeats: usize,
    ) -> Result<Timed<[W; 4]>, GpuError> {
        dev.quad_word_elementwise_timed(op, a, b, repeats)
    }
}

/// `n` operand pairs of `op` (the second operand is zero for unary operations).
fn inputs<M: Multi>(op: Op, n: usize) -> (Vec<M>, Vec<M>) {
    let mut rng = ChaCha8Rng::seed_from_u64(op.seed());
    let draw = |rng: &mut ChaCha8Rng| {
        let hi = op.draw(rng);
        M::filled(rng, hi)
    };
    let zero = M::filled(&mut ChaCha8Rng::seed_from_u64(0), 0.0);
    (0..n)
        .map(|_| {
            let a = draw(&mut rng);
            let b = if op.is_binary() { draw(&mut rng) } else { zero };
            (a, b)
        })
        .unzip()
}

/// `f` over every pair on this thread: the result words and the nanoseconds per operation.
/// The output vector is written once before the clock starts, so that its page faults are
/// not timed.
fn cpu_loop<M: Multi>(a: &[M], b: &[M], f: impl Fn(M, M) -> M) -> (Vec<M::Words>, f64) {
    let mut words = vec![a[0].words(); a.len()];
    let started = Instant::now();
    for ((out, &x), &y) in words.iter_mut().zip(a).zip(b) {
        *out = f(x, y).words();
    }
    let nanos = started.elapsed().as_secs_f64() * 1e9 / a.len() as f64;
    (words, nanos)
}

fn cpu<M: Multi>(op: Op, a: &[M], b: &[M]) -> (Vec<M::Words>, f64) {
    match op {
        Op::Add => cpu_loop(a, b, |x, y| x + y),
        Op::Mul => cpu_loop(a, b, |x, y| x * y),
        Op::Div => cpu_loop(a, b, |x, y| x / y),
        Op::Sqrt => cpu_loop(a, b, |x, _| x.sqrt()),
        Op::Exp => cpu_loop(a, b, |x, _| x.exp()),
        Op::Log => cpu_loop(a, b, |x, _| x.ln()),
        Op::Sin => cpu_loop(a, b, |x, _| x.sin()),
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else {
        (xs[m - 1] + xs[m]) / 2.0
    }
}

/// `x` with three significant digits (at most six decimals), for the table.
fn sig(x: f64) -> String {
    let decimals = if x > 0.0 && x.is_finite() {
        (2 - x.log10().floor() as i32).clamp(0, 6) as usize
    } else {
        0
    };
    format!("{x:.decimals$}")
}

/// One table row: type `name`, operation `op` on `n` inputs.
fn row<M: Multi>(
    name: &str,
    op: Op,
    n: usize,
    dev: &Device,
    repeats: usize,
) -> Result<(), GpuError> {
    let (a, b) = inputs::<M>(op, n);
    let words = |v: &[M]| -> Vec<M::Words> { v.iter().map(|x| x.words()).collect() };
    let (got, seconds) = M::on_device(dev, op.kernel_op(), &words(&a), &words(&b), repeats)?;
    let (want, cpu_ns) = cpu(op, &a, &b);
    let differ = want
        .iter()
        .zip(&got)
        .filter(|(w, g)| !M::same(**w, **g))
        .count();
    let same = if differ == 0 {
        "yes".to_string()
    } else {
        format!("NO ({differ} of {n} differ)")
    };
    let dev_s = median(seconds);
    let dev_ns = dev_s * 1e9 / n as f64;
    println!(
        "| {name} | {} | {n} | {} | {} | {} | {} | {same} |",
        op.name(),
        sig(dev_s * 1e3),
        sig(n as f64 / dev_s / 1e9),
        sig(cpu_ns),
        sig(cpu_ns / dev_ns)
    );
    Ok(())
}

/// The command line, checked.
struct Args {
    /// (CUDA, ordinal) or (OpenCL, index).
    device: (bool, usize),
    log2n: u32,
    repeats: usize,
    types: Vec<&'static str>,
    ops: Vec<Op>,
}

fn bad(message: String) -> ! {
    eprintln!("xfloat_throughput: {message}; {USAGE}");
    std::process::exit(2);
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> T {
    value
        .parse()
        .unwrap_or_else(|_| bad(format!("{flag} needs a number, got {value:?}")))
}

/// The comma-separated `list` as items of `known` (by name).
fn pick<T: Copy>(flag: &str, list: &str, known: &[(&str, T)]) -> Vec<T> {
    list.split(',')
        .map(|word| match known.iter().find(|(name, _)| *name == word) {
            Some(&(_, item)) => item,
            None => bad(format!("{flag}: unknown {word:?}")),
        })
        .collect()
}

fn parse_args() -> Args {
    let mut args = Args {
        device: (false, 0),
        log2n: 22,
        repeats: 5,
        types: TYPES.to_vec(),
        ops: OPS.iter().map(|&(_, op)| op).collect(),
    };
    let mut devices = 0;
    let argv: Vec<String> = std::env::args().skip(1).collect();
    for pair in argv.chunks(2) {
        let flag = pair[0].as_str();
        let Some(value) = pair.get(1) else {
            bad(format!("{flag} needs a value"))
        };
        match flag {
            "--cuda" | "--opencl" => {
                devices += 1;
                args.device = (flag == "--cuda", number(flag, value));
            }
            "--log2n" => args.log2n = number(flag, value),
            "--repeats" => args.repeats = number(flag, value),
            "--types" => {
                let known: Vec<(&str, &'static str)> = TYPES.iter().map(|&t| (t, t)).collect();
                args.types = pick(flag, value, &known);
            }
            "--ops" => args.ops = pick(flag, value, &OPS),
            _ => bad(format!("unknown argument {flag:?}")),
        }
    }
    if devices > 1 {
        bad("name one device".to_string());
    }
    if !(1..=30).contains(&args.log2n) || args.repeats == 0 {
        bad("need 1 <= --log2n <= 30 and --repeats >= 1".to_string());
    }
    args
}

/// Today's date (UTC), `YYYY-MM-DD` (days to civil date, H. Hinnant's algorithm).
fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    format!("{year:04}-{month:02}-{day:02}")
}

/// A device error: one line on stderr (a compiler log folded into it), exit code 1.
fn fail(e: GpuError) -> ! {
    let text = e.to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    eprintln!("xfloat_throughput: {}", lines.join(" | "));
    std::process::exit(1);
}

fn main() {
    let args = parse_args();
    let opened = match args.device {
        (true, ordinal) => Device::open(Runtime::Cuda, ordinal),
        (false, index) => Device::open(Runtime::OpenCl, index),
    };
    let dev = opened.unwrap_or_else(|e| fail(e));
    let n = 1usize << args.log2n;
    println!(
        "device: {} {}, date: {} (UTC)",
        dev.runtime().api(),
        dev.describe(),
        today()
    );
    println!(
        "| type | op | inputs | device ms (median of {}) | device Gop/s | CPU 1-thread ns/op | device/CPU-thread ratio | same bits |",
        args.repeats
    );
    println!("|---|---|---|---|---|---|---|---|");
    for &ty in &args.types {
        for &op in &args.ops {
            let done = match ty {
                "df64" => row::<DoubleWord<f32>>(ty, op, n, &dev, args.repeats),
                "dd" => row::<DoubleWord<f64>>(ty, op, n, &dev, args.repeats),
                "qf128" => row::<QuadWord<f32>>(ty, op, n, &dev, args.repeats),
                _ => row::<QuadWord<f64>>(ty, op, n, &dev, args.repeats),
            };
            done.unwrap_or_else(|e| fail(e));
        }
    }
}
