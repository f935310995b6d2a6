//! Shared test harness: exact conversion to MPFR, ulp errors, seeded random inputs.
#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Float;
use tmd_xfloat::{BaseFloat, MultiFloat};

pub mod edge;

/// Samples per check: 10^4 by default, 10^6 with `TMD_EXTENSIVE=1`.
pub fn samples() -> usize {
    tmd_test_tier::pick(10_000, 1_000_000)
}

/// Smallest exponent `e` of a nonzero `2^e` in the base format (subnormal quantum).
pub fn quantum_exp<T: MultiFloat>() -> i32 {
    T::Base::MIN_EXP - T::Base::MANTISSA_DIGITS as i32 + 1
}

/// The exact value of `x` as an MPFR number (NaN and infinities from the leading word).
pub fn to_mp<T: MultiFloat>(x: T) -> Float {
    let words = x.to_words();
    let lead = words[0];
    if !lead.is_finite() {
        return Float::with_val(64, lead.to_f64());
    }
    let (mut top, mut bottom) = (i32::MIN, i32::MAX);
    for w in words.iter().take(T::WORDS) {
        let (_, m, e) = w.decompose();
        if m != 0 {
            top = top.max(e + 64);
            bottom = bottom.min(e);
        }
    }
    if top == i32::MIN {
        return Float::with_val(64, lead.to_f64());
    }
    let mut sum = Float::with_val((top - bottom + 8) as u32, 0);
    for w in words.iter().take(T::WORDS) {
        sum += w.to_f64();
    }
    sum
}

/// Rounds an MPFR number to the type, word by word (successive round-to-nearest).
pub fn from_mp<T: MultiFloat>(x: &Float) -> T {
    let mut rest = Float::with_val(x.prec().max(300) + 3000, x);
    let mut words = [T::Base::ZERO; 4];
    for w in words.iter_mut().take(T::WORDS) {
        let v = if T::Base::MANTISSA_DIGITS == 24 {
            T::Base::from_f64(rest.to_f32() as f64)
        } else {
            T::Base::from_f64(rest.to_f64())
        };
        *w = v;
        if v.is_finite() {
            rest -= v.to_f64();
        }
    }
    T::from_expansion(&words)
}

/// `|computed - exact|` in units in the last place of a `T::PRECISION`-bit number at `exact`,
/// with the ulp never below the base format's subnormal quantum. NaN/inf must match exactly.
pub fn ulp_error<T: MultiFloat>(computed: T, exact: &Float) -> f64 {
    if exact.is_nan() {
        return if computed.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if exact.is_infinite() {
        let same =
            computed.is_infinite() && computed.is_sign_negative() == exact.is_sign_negative();
        return if same { 0.0 } else { f64::INFINITY };
    }
    if !computed.is_finite() {
        return f64::INFINITY;
    }
    let c = to_mp(computed);
    let prec = exact.prec().max(c.prec()) + 64;
    let diff = Float::with_val(prec, &c - exact).abs();
    if diff.is_zero() {
        return 0.0;
    }
    let ulp_exp = if exact.is_zero() {
        quantum_exp::<T>()
    } else {
        (exact.get_exp().unwrap() - T::PRECISION as i32).max(quantum_exp::<T>())
    };
    let scaled = diff >> ulp_exp;
    scaled.to_f64()
}

/// A reproducible random generator.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A random number with all `T::PRECISION` bits populated, leading word `lead`.
pub fn fill_words<T: MultiFloat, R: Rng>(rng: &mut R, lead: f64) -> T {
    let p = T::Base::MANTISSA_DIGITS as i32;
    let mut x = T::from_base(T::Base::from_f64(lead));
    let mut scale = lead.abs();
    for _ in 1..T::WORDS {
        scale = libm::ldexp(scale, -p);
        let w = T::Base::from_f64(rng.gen_range(-1.0..1.0) * scale);
        x = x.add_base(w);
    }
    x
}

/// Uniform in `[lo, hi]`, full precision.
pub fn uniform<T: MultiFloat, R: Rng>(rng: &mut R, lo: f64, hi: f64) -> T {
    let lead = rng.gen_range(lo..=hi);
    fill_words(rng, lead)
}

/// Log-uniform magnitude `2^[emin, emax)`, random sign if `signed`, full precision.
pub fn log_uniform<T: MultiFloat, R: Rng>(rng: &mut R, emin: i32, emax: i32, signed: bool) -> T {
    let e = rng.gen_range(emin..emax);
    let m: f64 = rng.gen_range(1.0..2.0);
    let mut v = libm::ldexp(m, e);
    if signed && rng.gen::<bool>() {
        v = -v;
    }
    fill_words(rng, v)
}

/// Maximum and root-mean-square error in ulps, with the worst input.
#[derive(Debug, Clone)]
pub struct ErrorStats {
    pub max: f64,
    pub rms: f64,
    pub count: usize,
    pub worst: String,
}

/// Accumulates [`ErrorStats`].
#[derive(Default)]
pub struct Accumulator {
    max: f64,
    sum_sq: f64,
    count: usize,
    worst: String,
}

impl Accumulator {
    pub fn add(&mut self, err: f64, describe: impl FnOnce() -> String) {
        if err > self.max || (err.is_nan() && !self.max.is_nan()) {
            self.max = err;
            self.worst = describe();
        }
        self.sum_sq += err * err;
        self.count += 1;
    }
    pub fn finish(self) -> ErrorStats {
        ErrorStats {
            max: self.max,
            rms: (self.sum_sq / self.count.max(1) as f64).sqrt(),
            count: self.count,
            worst: self.worst,
        }
    }
}

/// Error statistics of a unary function over `n` inputs from `gen`.
pub fn unary_stats<T: MultiFloat>(
    n: usize,
    mut gen: impl FnMut() -> T,
    f: impl Fn(T) -> T,
    reference: impl Fn(&Float, u32) -> Float,
) -> ErrorStats {
    let mut acc = Accumulator::default();
    let prec = T::PRECISION + 96;
    for _ in 0..n {
        let x = gen();
        let exact = reference(&to_mp(x), prec);
        let got = f(x);
        acc.add(ulp_error(got, &exact), || {
            format!("x = {x:?} -> {got:?}, exact {exact:e}")
        });
    }
    acc.finish()
}

/// Error statistics of a binary operation over `n` input pairs from `gen`.
pub fn binary_stats<T: MultiFloat>(
    n: usize,
    mut gen: impl FnMut() -> (T, T),
    f: impl Fn(T, T) -> T,
    reference: impl Fn(&Float, &Float, u32) -> Float,
) -> ErrorStats {
    let mut acc = Accumulator::default();
    let prec = T::PRECISION + 96;
    for _ in 0..n {
        let (x, y) = gen();
        let exact = reference(&to_mp(x), &to_mp(y), prec);
        let got = f(x, y);
        acc.add(ulp_error(got, &exact), || {
            format!("x = {x:?}, y = {y:?} -> {got:?}, exact {exact:e}")
        });
    }
    acc.finish()
}

/// Asserts `stats.max <= bound` with a readable message.
pub fn assert_within(what: &str, stats: &ErrorStats, bound: f64) {
    eprintln!(
        "{what}: max {:.3} ulp, rms {:.3} ulp over {} (bound {bound})",
        stats.max, stats.rms, stats.count
    );
    assert!(
        stats.max <= bound,
        "{what}: max error {} ulp exceeds {bound}; worst: {}",
        stats.max,
        stats.worst
    );
}

/// The elementary functions as the types' methods (`x.exp()`, ...), which for `Dd` are the
/// table-driven ones (`math::dd_exp`, `dd_log`, `dd_trig`), unlike `math::exp::<Dd>`.
pub trait Methods: MultiFloat {
    /// `self.exp()`
    fn exp_method(self) -> Self;
    /// `self.ln()`
    fn ln_method(self) -> Self;
    /// `self.sin()`
    fn sin_method(self) -> Self;
    /// `self.cos()`
    fn cos_method(self) -> Self;
}

macro_rules! methods {
    ($($t:ty),*) => {$(
        impl Methods for $t {
            fn exp_method(self) -> Self { self.exp() }
            fn ln_method(self) -> Self { self.ln() }
            fn sin_method(self) -> Self { self.sin() }
            fn cos_method(self) -> Self { self.cos() }
        }
    )*};
}
methods!(
    tmd_xfloat::Df64,
    tmd_xfloat::Dd,
    tmd_xfloat::Qf128,
    tmd_xfloat::Qd
);
