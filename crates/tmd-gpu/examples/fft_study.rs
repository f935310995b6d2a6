//! The FFT case study of Thall, "Extended-Precision Floating-Point Numbers for GPU
//! Computation", 2007, section III-D: round-trip error and
//! speed of the transposed Stockham FFT in f32, f64, df64 and dd, on the CPU (one core) and
//! through the kernels on a device.
//!
//! ```sh
//! cargo run --release -p tmd-gpu --example fft_study -- [--min 10] [--max 20] [--opencl N] [--cuda N]
//! ```
//!
//! For each length n = 2^m: a random complex signal x (`tmd_xfloat::fft::test_signal`: parts uniform in [-1, 1), seeded), the
//! twiddles, the forward transform timed (best of several runs), and the round trip
//! x' = F^-1(F(x)). RMSE = sqrt(mean |x'_i - x_i|^2) (the complex difference, which bounds the
//! magnitude and phase errors Thall reports), also in units of 2^-p for the type's precision p
//! (24, 53, 48, 106). GFLOP/s uses van Loan's 5 n log2 n count, as Thall does. With a device,
//! its forward transform of the same signal must equal the CPU's bit for bit (checked here), and
//! its kernel time (the log2 n passes, data resident) is reported next to the CPU's.

use std::time::Instant;
use tmd_gpu::fft::{to_words, FftDeviceScalar};
use tmd_gpu::{Device, Runtime};
use tmd_xfloat::fft::{
    fft_forward, fft_inverse, nominal_flops, rms_difference, test_signal, twiddles,
};
use tmd_xfloat::{Dd, Df64};

/// Best time of `f` over runs adding up to at least half a second (at least 3 runs).
fn best_seconds(mut f: impl FnMut() -> f64) -> f64 {
    let (mut best, mut total, mut runs) = (f64::INFINITY, 0.0, 0);
    while runs < 3 || total < 0.5 {
        let t = f();
        best = best.min(t);
        total += t;
        runs += 1;
    }
    best
}

fn row<T: FftDeviceScalar>(name: &str, log2n: u32, device: Option<&Device>)
where
    T::Word: PartialEq,
{
    let n = 1usize << log2n;
    let x = test_signal::<T>(n, 42 + log2n as u64);
    let t = Instant::now();
    let w = twiddles::<T>(n);
    let twiddle_seconds = t.elapsed().as_secs_f64();
    let mut y = x.clone();
    let mut scratch = x.clone();
    let cpu_seconds = best_seconds(|| {
        y.copy_from_slice(&x);
        let t = Instant::now();
        fft_forward(&mut y, &mut scratch, &w);
        t.elapsed().as_secs_f64()
    });
    let forward = y.clone();
    fft_inverse(&mut y, &mut scratch, &w);
    let rmse = rms_difference(&x, &y);
    let units = rmse * 2f64.powi(T::PRECISION as i32);
    let gflops = |s: f64| nominal_flops(n) / s / 1e9;
    let mut line = format!(
        "| {name} | 2^{log2n} | {rmse:.3e} | {units:.2} | {:.4} | {:.3} | {twiddle_seconds:.3} |",
        cpu_seconds * 1e3,
        gflops(cpu_seconds)
    );
    if let Some(dev) = device {
        let mut identical = true;
        let dev_seconds = best_seconds(|| match dev.fft_forward(&x, &w) {
            Ok(out) => {
                identical &= to_words(&out.output) == to_words(&forward);
                out.kernel_seconds
            }
            Err(e) => {
                eprintln!("fft_study: {e}");
                std::process::exit(1);
            }
        });
        line.push_str(&format!(
            " {:.4} | {:.3} | {} |",
            dev_seconds * 1e3,
            gflops(dev_seconds),
            if identical { "yes" } else { "NO" }
        ));
    }
    println!("{line}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| -> Option<String> {
        args.iter()
            .position(|a| a == flag)
            .map(|i| args.get(i + 1).cloned().unwrap_or_default())
    };
    let number = |flag: &str, default: u32| -> u32 {
        value(flag).map_or(default, |v| {
            v.parse().unwrap_or_else(|_| {
                eprintln!("fft_study: {flag} needs a number, got {v:?}");
                std::process::exit(2);
            })
        })
    };
    let (min, max) = (number("--min", 10), number("--max", 20));
    if min > max || max > tmd_xfloat::fft::MAX_LOG2_LEN {
        eprintln!(
            "fft_study: need --min <= --max <= {}",
            tmd_xfloat::fft::MAX_LOG2_LEN
        );
        std::process::exit(2);
    }
    let opened = if value("--opencl").is_some() {
        Some(Device::open(
            Runtime::OpenCl,
            number("--opencl", 0) as usize,
        ))
    } else if value("--cuda").is_some() {
        Some(Device::open(Runtime::Cuda, number("--cuda", 0) as usize))
    } else {
        None
    };
    let device = match opened {
        Some(Ok(d)) => Some(d),
        Some(Err(e)) => {
            eprintln!("fft_study: {e}");
            std::process::exit(2);
        }
        None => None,
    };
    let mut header = String::from(
        "| type | n | round-trip RMSE | in units of 2^-p | CPU forward ms | CPU GFLOP/s | twiddles s |",
    );
    let mut rule = String::from("|---|---|---|---|---|---|---|");
    if let Some(d) = &device {
        let name = format!("{} {}", d.runtime().api(), d.describe());
        println!("device: {name}");
        header.push_str(" device forward ms | device GFLOP/s | same bits |");
        rule.push_str("---|---|---|");
    }
    println!("{header}\n{rule}");
    for log2n in min..=max {
        row::<f32>("f32", log2n, device.as_ref());
        row::<f64>("f64", log2n, device.as_ref());
        row::<Df64>("df64", log2n, device.as_ref());
        row::<Dd>("dd", log2n, device.as_ref());
    }
}
