//! The transposed Stockham FFT of Thall (2007), section III-D and Algorithm 8: the case study
//! that shows double-float arithmetic doing real numerical work on a GPU.
//!
//! A complex DFT `X_k = sum_j x_j w_n^(jk)`, `w_n = e^(-2 pi i / n)`, for power-of-two `n`, in
//! `log2 n` passes. Pass `q` (`L = 2^q`, `L* = L/2`) reads the previous pass's array `Y` and
//! writes `X`; for every `t` in `0..n/2`, with `k = t / L*`, `j = t mod L*`:
//!
//! ```text
//! tau          = W[L* + j - 1] * Y[t + n/2]
//! X[kL + j]      = Y[t] + tau
//! X[kL + L* + j] = Y[t] - tau
//! ```
//!
//! (Thall's `Y[(k + r) L* + j]` with `r = n/L` is `Y[t + n/2]`.) The "autosort" needs no bit
//! reversal; each pass reads two contiguous halves and its `n/2` butterflies are independent,
//! which is why it maps onto one GPU kernel launch per pass (`kernels/fft.cl` is this module's
//! kernel twin: same operations in the same order, so the same bits). `W` is Thall's `W_long`,
//! the `n - 1` twiddles `w_L^j` of every level laid out level after level (`W[L* + j - 1]`), so
//! that each pass reads its twiddles contiguously.
//!
//! Twiddles come from the next wider type's `sin_cos` (the quad word over the same base for
//! double words, the double word for `f32`/`f64`) rounded once, so each is within about half an
//! ulp of its type; only the first octant is computed, the rest follows exactly from
//! `cos(pi/2 - t) = sin t` and `cos(pi/2 + t) = -sin t`.
//!
//! Written over [`FftScalar`], implemented for `f32`, `f64` and the four multi-word types; the
//! inverse is `conj(F(conj(y))) / n` (exact scalings). Accuracy and speed are measured by
//! `examples/fft.rs` (docs/xfloat-fft.md).

use crate::base::{BaseFloat, Constant};
use crate::double_word::DoubleWord;
use crate::multi::MultiFloat;
use crate::quad_word::QuadWord;
use core::ops::{Add, Mul, Neg, Sub};

/// A real scalar type the FFT runs on.
pub trait FftScalar:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Neg<Output = Self>
{
    /// Significand bits of the type (24, 53, 48, 106, 96, 212): errors are reported in units
    /// of `2^-PRECISION`.
    const PRECISION: u32;
    /// Zero.
    fn zero() -> Self;
    /// `x` rounded to the type.
    fn from_f64(x: f64) -> Self;
    /// The value rounded to `f64` (to measure errors).
    fn to_f64(self) -> f64;
    /// `self * 2^e` (exact barring overflow and underflow).
    fn scale(self, e: i32) -> Self;
    /// `(cos 2 pi k / n, sin 2 pi k / n)` for a power of two `n` and `8k <= n`, each within
    /// about half an ulp of the type.
    fn cos_sin_turn(k: u64, n: u64) -> (Self, Self);
}

/// `(cos, sin)` of `2 pi k / n` in the multi-word type `T`: `pi` times the exact `2k/n`.
fn cos_sin_turn_in<T: MultiFloat>(k: u64, n: u64) -> (T, T) {
    // 2k < 2^24 for the n this module supports, so 2k is exact in either base format and the
    // division by the power of two n is an exact scaling.
    let twice_k = T::Base::from_f64((2 * k) as f64);
    let angle = T::constant(Constant::Pi)
        .mul_base(twice_k)
        .ldexp(-(n.trailing_zeros() as i32));
    let (s, c) = crate::math::sincos(angle);
    (c, s)
}

impl FftScalar for f32 {
    const PRECISION: u32 = 24;
    fn zero() -> Self {
        0.0
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn scale(self, e: i32) -> Self {
        BaseFloat::scalbn(self, e)
    }
    fn cos_sin_turn(k: u64, n: u64) -> (Self, Self) {
        // The leading word of a double word is its value rounded to nearest.
        let (c, s) = cos_sin_turn_in::<DoubleWord<f32>>(k, n);
        (c.hi(), s.hi())
    }
}

impl FftScalar for f64 {
    const PRECISION: u32 = 53;
    fn zero() -> Self {
        0.0
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn scale(self, e: i32) -> Self {
        BaseFloat::scalbn(self, e)
    }
    fn cos_sin_turn(k: u64, n: u64) -> (Self, Self) {
        let (c, s) = cos_sin_turn_in::<DoubleWord<f64>>(k, n);
        (c.hi(), s.hi())
    }
}

macro_rules! fft_scalar_multi {
    ($($t:ty),*) => {$(
        impl FftScalar for $t {
            const PRECISION: u32 = <$t as MultiFloat>::PRECISION;
            fn zero() -> Self {
                <$t as MultiFloat>::zero()
            }
            fn from_f64(x: f64) -> Self {
                <$t>::from(x)
            }
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
            fn scale(self, e: i32) -> Self {
                MultiFloat::ldexp(self, e)
            }
            fn cos_sin_turn(k: u64, n: u64) -> (Self, Self) {
                let (c, s) = cos_sin_turn_in::<<$t as MultiFloat>::Wide>(k, n);
                (<$t as MultiFloat>::narrow(c), <$t as MultiFloat>::narrow(s))
            }
        }
    )*};
}

fft_scalar_multi!(
    DoubleWord<f32>,
    DoubleWord<f64>,
    QuadWord<f32>,
    QuadWord<f64>
);

/// A complex number over an [`FftScalar`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Complex<T> {
    /// Real part.
    pub re: T,
    /// Imaginary part.
    pub im: T,
}

impl<T: FftScalar> Complex<T> {
    /// `re + i im`.
    pub fn new(re: T, im: T) -> Self {
        Complex { re, im }
    }

    /// The complex conjugate.
    pub fn conj(self) -> Self {
        Complex::new(self.re, -self.im)
    }
}

impl<T: FftScalar> Add for Complex<T> {
    type Output = Self;
    fn add(self, z: Self) -> Self {
        Complex::new(self.re + z.re, self.im + z.im)
    }
}

impl<T: FftScalar> Sub for Complex<T> {
    type Output = Self;
    fn sub(self, z: Self) -> Self {
        Complex::new(self.re - z.re, self.im - z.im)
    }
}

impl<T: FftScalar> Mul for Complex<T> {
    type Output = Self;
    /// `(ac - bd) + (ad + bc) i`, each product rounded once (the kernels use the same four
    /// products in the same order).
    fn mul(self, z: Self) -> Self {
        let re = self.re * z.re - self.im * z.im;
        let im = self.re * z.im + self.im * z.re;
        Complex::new(re, im)
    }
}

/// Largest supported length: twiddle angles use `2k` exactly in a 24-bit significand.
pub const MAX_LOG2_LEN: u32 = 22;

/// Checks that `n` is a supported power of two.
fn assert_len(n: usize) {
    assert!(
        n.is_power_of_two() && n.trailing_zeros() <= MAX_LOG2_LEN,
        "FFT length {n} is not a power of two up to 2^{MAX_LOG2_LEN}"
    );
}

/// Fills `w` (length `n - 1`) with Thall's `W_long` for length `n`: `w_L^j = e^(-2 pi i j/L)`
/// at `w[L/2 + j - 1]` for `L = 2, 4, ..., n` and `j < L/2`.
pub fn fill_twiddles<T: FftScalar>(w: &mut [Complex<T>]) {
    let n = w.len() + 1;
    assert_len(n);
    if n == 1 {
        return;
    }
    let half = n / 2;
    let n64 = n as u64;
    // The last level (L = n) holds w_n^k for every k < n/2; build it from its first octant.
    let top = half - 1;
    for k in 0..half {
        let (c, s) = if 8 * k <= n {
            T::cos_sin_turn(k as u64, n64)
        } else if 4 * k <= n {
            // 2 pi k / n = pi/2 - 2 pi (n/4 - k) / n; z = (cos t, -sin t) at t = 2 pi (n/4 - k) / n
            let z = w[top + n / 4 - k];
            (-z.im, z.re)
        } else {
            // 2 pi k / n = pi/2 + 2 pi (k - n/4) / n: cos = -sin t, sin = cos t
            let z = w[top + k - n / 4];
            (z.im, z.re)
        };
        // The table holds e^(-i theta) = cos theta - i sin theta.
        w[top + k] = Complex::new(c, -s);
    }
    // Lower levels: w_L^j = w_n^(j n / L), gathered from the last level.
    let mut l_half = half / 2;
    while l_half >= 1 {
        let stride = half / l_half;
        for j in 0..l_half {
            w[l_half + j - 1] = w[top + j * stride];
        }
        l_half /= 2;
    }
}

/// The twiddles of length `n` ([`fill_twiddles`]) in a new vector.
#[cfg(feature = "std")]
pub fn twiddles<T: FftScalar>(n: usize) -> Vec<Complex<T>> {
    assert_len(n);
    let mut w = vec![Complex::new(T::zero(), T::zero()); n - 1];
    fill_twiddles(&mut w);
    w
}

/// One pass of the transform: `l_half = L/2` for pass `q = log2 L`; reads `y`, writes `x`.
pub fn stockham_pass<T: FftScalar>(
    y: &[Complex<T>],
    x: &mut [Complex<T>],
    w: &[Complex<T>],
    l_half: usize,
) {
    let n = y.len();
    let half = n / 2;
    for t in 0..half {
        let (k, j) = (t / l_half, t % l_half);
        let tau = w[l_half + j - 1] * y[t + half];
        let a = y[t];
        x[2 * k * l_half + j] = a + tau;
        x[2 * k * l_half + l_half + j] = a - tau;
    }
}

/// The forward DFT of `data` in place (`scratch` of the same length is overwritten), with the
/// twiddles `w` of [`fill_twiddles`] for that length.
pub fn fft_forward<T: FftScalar>(
    data: &mut [Complex<T>],
    scratch: &mut [Complex<T>],
    w: &[Complex<T>],
) {
    let n = data.len();
    assert_len(n);
    assert!(scratch.len() == n && w.len() + 1 == n, "buffer lengths");
    let mut in_data = true; // where the current pass's input is
    let mut l_half = 1;
    while l_half < n {
        if in_data {
            stockham_pass(data, scratch, w, l_half);
        } else {
            stockham_pass(scratch, data, w, l_half);
        }
        in_data = !in_data;
        l_half *= 2;
    }
    if !in_data {
        data.copy_from_slice(scratch);
    }
}

/// The inverse DFT in place: `conj(F(conj(y))) / n`.
pub fn fft_inverse<T: FftScalar>(
    data: &mut [Complex<T>],
    scratch: &mut [Complex<T>],
    w: &[Complex<T>],
) {
    for z in data.iter_mut() {
        *z = z.conj();
    }
    fft_forward(data, scratch, w);
    let e = -(data.len().trailing_zeros() as i32);
    for z in data.iter_mut() {
        *z = Complex::new(z.re.scale(e), (-z.im).scale(e));
    }
}

/// A reproducible test signal of length `n`: real and imaginary parts uniform in `[-1, 1)`
/// (53 random bits each, from SplitMix64 seeded by `seed`), rounded to the type. The tests, the
/// kernel checks and `fft_study` all use it, so they transform the same data.
#[cfg(feature = "std")]
pub fn test_signal<T: FftScalar>(n: usize, seed: u64) -> Vec<Complex<T>> {
    let mut state = seed;
    let mut uniform = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        // (z >> 11) / 2^53 in [0, 1), exactly; then 2u - 1 in [-1, 1), exactly.
        2.0 * ((z >> 11) as f64 / (1u64 << 53) as f64) - 1.0
    };
    (0..n)
        .map(|_| {
            let re = T::from_f64(uniform());
            Complex::new(re, T::from_f64(uniform()))
        })
        .collect()
}

/// `sqrt(mean |y_i - x_i|^2)`: the round-trip error measure of the FFT study (differences
/// taken in the type, then as `f64`).
pub fn rms_difference<T: FftScalar>(x: &[Complex<T>], y: &[Complex<T>]) -> f64 {
    assert_eq!(x.len(), y.len(), "signals of equal length");
    let sum: f64 = x
        .iter()
        .zip(y)
        .map(|(a, b)| {
            let (dr, di) = ((b.re - a.re).to_f64(), (b.im - a.im).to_f64());
            dr * dr + di * di
        })
        .sum();
    (sum / x.len() as f64).sqrt()
}

/// Floating-point operations of one transform of length `n` in van Loan's `5 n log2 n` count
/// (the figure Thall divides by for GFLOP/s).
pub fn nominal_flops(n: usize) -> f64 {
    5.0 * n as f64 * n.trailing_zeros() as f64
}
