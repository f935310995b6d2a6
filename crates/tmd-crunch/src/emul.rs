//! Emulations of approximate-reciprocal instructions followed by Newton–Raphson steps without
//! FMA (Dukhan and Vuduc, "DoubleCrunch", SC 2015, §4 and Table 3).
//!
//! * ARM NEON `VRECPE.F32`: an 8-bit estimate defined by the architecture's `RecipEstimate`
//!   pseudocode (Arm ARM, FPRecipEstimate): the input's leading 9 significand bits `a` in
//!   [256, 511] give `r = ((2^19 div (2a + 1)) + 1) div 2`, the result's significand bits
//!   `r<7:0>`, its exponent `253 - exp(x)`. It is the same on every ARM core (Dukhan and Vuduc, SC 2015, §4).
//! * x86 `RCPPS`: implementation-specific (Intel and AMD differ; Dukhan and Vuduc, SC 2015, §4), so it is taken
//!   from the CPU tmd runs on, by executing the instruction; the report names the CPU model.
//!
//! A target `emul:vrecpe-nrN` / `emul:rcpps-nrN` follows Dukhan and Vuduc (SC 2015): x is rounded to binary32,
//! the estimate computed in binary32 and widened to the target format, then N steps
//! `y <- y (2 - x y)` in the target format, each operation rounded (no FMA).

/// ARM `RecipEstimate` on a 9-bit fixed-point significand `a` in [256, 511].
fn recip_estimate_arm(a: u32) -> u32 {
    let a = a * 2 + 1;
    let b = (1u32 << 19) / a;
    b.div_ceil(2)
}

/// ARM `VRECPE.F32` (FPRecipEstimate, single precision, round-to-nearest, no flush-to-zero).
pub fn vrecpe_f32(x: f32) -> f32 {
    let bits = x.to_bits();
    let sign = bits & 0x8000_0000;
    if x.is_nan() {
        return f32::NAN;
    }
    if x.is_infinite() {
        return f32::from_bits(sign);
    }
    if x == 0.0 {
        return f32::from_bits(sign | 0x7f80_0000);
    }
    if x.abs() < f32::from_bits(0x0020_0000) {
        // |x| < 2^-128: the estimate overflows; round-to-nearest gives infinity.
        return f32::from_bits(sign | 0x7f80_0000);
    }
    // Widen the fraction to 52 bits as the pseudocode does, normalising subnormals by one
    // or two places (the only ones left after the test above).
    let mut exp = ((bits >> 23) & 0xff) as i32;
    let mut fraction = ((bits & 0x7f_ffff) as u64) << 29;
    if exp == 0 {
        if fraction & (1 << 51) == 0 {
            exp = -1;
            fraction = (fraction << 2) & ((1 << 52) - 1);
        } else {
            fraction = (fraction << 1) & ((1 << 52) - 1);
        }
    }
    let scaled = (1 << 8) | (fraction >> 44) as u32;
    let mut result_exp = 253 - exp;
    let estimate = recip_estimate_arm(scaled);
    let mut fraction = ((estimate & 0xff) as u64) << 44;
    if result_exp == 0 {
        fraction = (1 << 51) | (fraction >> 1);
    } else if result_exp == -1 {
        fraction = (1 << 50) | (fraction >> 2);
        result_exp = 0;
    }
    f32::from_bits(sign | ((result_exp as u32) << 23) | (fraction >> 29) as u32)
}

/// x86 `RCPPS` executed on this CPU; `None` off x86-64.
pub fn rcpps_f32(x: f32) -> Option<f32> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cvtss_f32, _mm_rcp_ss, _mm_set_ss};
        // SAFETY: SSE is part of the x86-64 baseline.
        Some(unsafe { _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x))) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = x;
        None
    }
}

/// The CPU model, as the operating system reports it.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// Which estimate instruction starts the iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimate {
    Vrecpe,
    Rcpps,
}

impl Estimate {
    fn estimate(self, x: f32) -> f32 {
        match self {
            Estimate::Vrecpe => vrecpe_f32(x),
            Estimate::Rcpps => rcpps_f32(x).unwrap_or(f32::NAN),
        }
    }
}

/// `1/x` in binary64 from the estimate of `x` rounded to binary32, and `steps` Newton–Raphson
/// steps without FMA.
pub fn recip_nr_f64(start: Estimate, steps: u32, x: f64) -> f64 {
    let mut y = start.estimate(x as f32) as f64;
    for _ in 0..steps {
        let t = 2.0 - x * y;
        y *= t;
    }
    y
}

/// The same in binary32.
pub fn recip_nr_f32(start: Estimate, steps: u32, x: f32) -> f32 {
    let mut y = start.estimate(x);
    for _ in 0..steps {
        let t = 2.0 - x * y;
        y *= t;
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vrecpe_estimate_is_within_its_documented_accuracy() {
        // The ARM estimate is accurate to about 8 bits (relative error < 2^-8) on [1, 2).
        for i in 0..(1u32 << 16) {
            let x = 1.0 + i as f32 / 65536.0;
            let y = vrecpe_f32(x) as f64;
            let rel = (y * x as f64 - 1.0).abs();
            assert!(rel < 1.0 / 256.0, "x {x} estimate {y}");
        }
        assert_eq!(vrecpe_f32(1.0), 0.998_046_9);
        assert_eq!(vrecpe_f32(2.0), 0.499_023_44);
        assert_eq!(vrecpe_f32(0.0), f32::INFINITY);
        assert_eq!(vrecpe_f32(-f32::INFINITY).to_bits(), (-0.0f32).to_bits());
    }

    #[test]
    fn rcpps_estimate_is_within_its_documented_accuracy() {
        if rcpps_f32(1.0).is_none() {
            return;
        }
        // Intel documents |relative error| <= 1.5 * 2^-12.
        for i in 0..(1u32 << 16) {
            let x = 1.0 + i as f32 / 65536.0;
            let y = rcpps_f32(x).unwrap() as f64;
            let rel = (y * x as f64 - 1.0).abs();
            assert!(rel <= 1.5 / 4096.0, "x {x} estimate {y}");
        }
    }
}
