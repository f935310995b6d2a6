//! The transposed Stockham FFT: twiddles against MPFR, transforms against a
//! direct O(n^2) DFT evaluated in quad-double, round trips within the expected error.

mod common;

use common::to_mp;
use rug::float::Constant as MpConstant;
use rug::Float;
use tmd_xfloat::fft::{
    fft_forward, fft_inverse, rms_difference, test_signal, twiddles, Complex, FftScalar,
};
use tmd_xfloat::{Dd, Df64, MultiFloat, Qd, Qf128};

/// Largest error of the twiddles of length `n`, in units of `2^-precision` relative to 1.
fn twiddle_error<T: FftScalar>(n: usize, words: impl Fn(T) -> Float) -> f64 {
    let w = twiddles::<T>(n);
    let mut worst: f64 = 0.0;
    let mut l = 2;
    while l <= n {
        for j in 0..l / 2 {
            let angle = Float::with_val(300, MpConstant::Pi) * (2 * j) as u32 / l as u32;
            let (s, c) = angle.sin_cos(Float::new(300));
            let z = w[l / 2 + j - 1];
            let dc = Float::with_val(300, words(z.re) - &c).abs();
            let ds = Float::with_val(300, words(z.im) + &s).abs();
            let e = Float::with_val(300, dc.max(&ds)) << T::PRECISION;
            worst = worst.max(e.to_f64());
        }
        l *= 2;
    }
    worst
}

#[test]
fn fft_twiddles_are_within_one_unit_of_their_type() {
    let n = 1 << 12;
    let cases = [
        ("f32", twiddle_error::<f32>(n, |x| Float::with_val(64, x))),
        ("f64", twiddle_error::<f64>(n, |x| Float::with_val(64, x))),
        ("df64", twiddle_error::<Df64>(n, to_mp)),
        ("dd", twiddle_error::<Dd>(n, to_mp)),
        ("qf128", twiddle_error::<Qf128>(n, to_mp)),
        ("qd", twiddle_error::<Qd>(n, to_mp)),
    ];
    for (name, err) in cases {
        println!("{name}: largest twiddle error {err:.3} units of 2^-p");
        assert!(err <= 1.0, "{name}: twiddle error {err} units of 2^-p");
    }
}

/// The direct DFT of `x` (given exactly in quad-double) in quad-double.
fn direct_dft(x: &[Complex<Qd>]) -> Vec<Complex<Qd>> {
    let n = x.len();
    if n == 1 {
        return x.to_vec();
    }
    let tw = twiddles::<Qd>(n); // the last level holds w_n^k for k < n/2
    let w_n = |k: usize| -> Complex<Qd> {
        let k = k % n;
        if k < n / 2 {
            tw[n / 2 - 1 + k]
        } else {
            let z = tw[n / 2 - 1 + k - n / 2];
            Complex::new(-z.re, -z.im)
        }
    };
    (0..n)
        .map(|k| {
            let mut acc = Complex::new(Qd::from(0.0), Qd::from(0.0));
            for (j, &xj) in x.iter().enumerate() {
                acc = acc + w_n(j * k) * xj;
            }
            acc
        })
        .collect()
}

/// Largest `|F(x)_k - DFT(x)_k|` (real or imaginary part) over a random signal of length `n`,
/// relative to `sqrt(n)` (the RMS size of the outputs); `to_qd` converts exactly.
fn largest_difference<T: FftScalar>(n: usize, seed: u64, to_qd: impl Fn(T) -> Qd) -> f64 {
    let x = test_signal::<T>(n, seed);
    let exact: Vec<Complex<Qd>> = x
        .iter()
        .map(|z| Complex::new(to_qd(z.re), to_qd(z.im)))
        .collect();
    let want = direct_dft(&exact);
    let mut got = x.clone();
    let mut scratch = x.clone();
    fft_forward(&mut got, &mut scratch, &twiddles::<T>(n));
    let worst = want
        .iter()
        .zip(&got)
        .map(|(w, z)| {
            let dr = (w.re - to_qd(z.re)).to_f64().abs();
            let di = (w.im - to_qd(z.im)).to_f64().abs();
            dr.max(di)
        })
        .fold(0.0, f64::max);
    worst / (n as f64).sqrt()
}

#[test]
fn fft_equals_the_direct_dft() {
    // f32, f64 and the df64 values built from f64 inputs convert exactly through f64, and
    // every df64 result word pair is exact in quad-double word by word.
    let via_f64 = |x: f64| Qd::from(x);
    for log2n in [0, 1, 2, 3, 5, 8] {
        let n = 1usize << log2n;
        let f32_err = largest_difference::<f32>(n, 1, |x| via_f64(x as f64));
        let f64_err = largest_difference::<f64>(n, 2, via_f64);
        let df64_err =
            largest_difference::<Df64>(n, 3, |x| Qd::from(x.hi() as f64) + Qd::from(x.lo() as f64));
        let dd_err = largest_difference::<Dd>(n, 4, |x| x.widen());
        let in_units = |err: f64, p: i32| err * 2f64.powi(p);
        println!(
            "n = {n}: largest error / sqrt(n) in units of 2^-p: f32 {:.3}, f64 {:.3}, df64 {:.3}, \
             dd {:.3}",
            in_units(f32_err, 24),
            in_units(f64_err, 53),
            in_units(df64_err, 48),
            in_units(dd_err, 106)
        );
        // A radix-2 FFT's error grows like log2 n units of its type (times the output size):
        // allow 4 log2 n units; a wrong transform is off by O(1).
        let bound = 4.0 * log2n.max(1) as f64;
        for (name, err, p) in [
            ("f32", f32_err, 24),
            ("f64", f64_err, 53),
            ("df64", df64_err, 48),
            ("dd", dd_err, 106),
        ] {
            assert!(
                in_units(err, p) <= bound,
                "{name}, n = {n}: error {err:e} is {:.2} units",
                in_units(err, p)
            );
        }
    }
}

/// Root-mean-square of `|F^-1(F(x)) - x|` in units of `2^-precision`.
fn round_trip_rmse<T: FftScalar>(n: usize, seed: u64) -> f64 {
    let x = test_signal::<T>(n, seed);
    let w = twiddles::<T>(n);
    let mut y = x.clone();
    let mut scratch = x.clone();
    fft_forward(&mut y, &mut scratch, &w);
    fft_inverse(&mut y, &mut scratch, &w);
    rms_difference(&x, &y) * 2f64.powi(T::PRECISION as i32)
}

#[test]
fn fft_round_trip_error_is_a_few_units_of_each_type() {
    let n = 1 << 12;
    let cases = [
        ("f32", round_trip_rmse::<f32>(n, 5)),
        ("f64", round_trip_rmse::<f64>(n, 6)),
        ("df64", round_trip_rmse::<Df64>(n, 7)),
        ("dd", round_trip_rmse::<Dd>(n, 8)),
        ("qf128", round_trip_rmse::<Qf128>(n, 9)),
        ("qd", round_trip_rmse::<Qd>(n, 10)),
    ];
    for (name, rmse) in cases {
        println!("{name}: round-trip RMSE {rmse:.3} units of 2^-p at n = {n}");
        // Error growth of a radix-2 FFT is O(log2 n) units per transform in RMS; two transforms
        // of 12 passes stay well under 30 units, and far above zero (the test would catch an
        // FFT that does nothing as well as one that is wrong).
        assert!(rmse > 0.01 && rmse < 30.0, "{name}: RMSE {rmse}");
    }
}
