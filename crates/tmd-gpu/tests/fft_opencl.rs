//! The transposed Stockham FFT kernels (crates/tmd-kernels/kernels/fft.cl)
//! equal the CPU transform `tmd_xfloat::fft::fft_forward` bit for bit, for f32, f64, df64 and
//! dd, at every power-of-two length from 1 to 2^12 and at 2^16 (2^20 with TMD_EXTENSIVE=1), on
//! the first OpenCL device (PoCL's CPU device in CI).

mod common;

use common::{device, extensive};
use tmd_gpu::fft::{to_words, FftDeviceScalar};
use tmd_gpu::opencl::OpenClDevice;
use tmd_xfloat::fft::{fft_forward, test_signal, twiddles};
use tmd_xfloat::{Dd, Df64};

/// Compares the device and CPU transforms of one random signal; the first differing word.
fn check<T: FftDeviceScalar>(dev: &OpenClDevice, log2n: u32) -> Option<String>
where
    T::Word: PartialEq + std::fmt::Debug,
{
    let n = 1usize << log2n;
    let x = test_signal::<T>(n, 1000 + log2n as u64);
    let w = twiddles::<T>(n);
    let mut cpu = x.clone();
    let mut scratch = x.clone();
    fft_forward(&mut cpu, &mut scratch, &w);
    let device = dev.fft_forward(&x, &w).unwrap_or_else(|e| panic!("{e}"));
    let (want, got) = (to_words(&cpu), to_words(&device.output));
    assert_eq!(want.len(), got.len());
    let first = want.iter().zip(&got).position(|(a, b)| a != b)?;
    Some(format!(
        "{} n = 2^{log2n}: word {first} (element {}) CPU {:?}, OpenCL {:?}",
        T::PREFIX,
        first / (2 * T::WORDS),
        want[first],
        got[first]
    ))
}

#[test]
fn fft_kernels_equal_cpu_bit_for_bit() {
    let dev = device();
    assert!(
        dev.has_fp64(),
        "{}: no fp64, the f64 and dd FFTs cannot run",
        dev.name()
    );
    let mut sizes: Vec<u32> = (0..=12).collect();
    sizes.push(if extensive() { 20 } else { 16 });
    let mut failures = Vec::new();
    for &log2n in &sizes {
        failures.extend(check::<f32>(&dev, log2n));
        failures.extend(check::<f64>(&dev, log2n));
        failures.extend(check::<Df64>(&dev, log2n));
        failures.extend(check::<Dd>(&dev, log2n));
    }
    println!(
        "{}: f32, f64, df64, dd at n = 2^{sizes:?}: {} differing transforms",
        dev.name(),
        failures.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
