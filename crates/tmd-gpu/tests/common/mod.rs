//! Helpers shared by the xfloat kernel tests (xfloat_opencl.rs for double words,
//! xfloat_quad_opencl.rs for quad words): the OpenCL device, the `TMD_EXTENSIVE` switch, bit
//! access to the base formats, random base floats and the special values. Each test crate
//! includes it with `mod common;` and may use only part of it.
#![allow(dead_code)]

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use tmd_gpu::opencl::{DwWord, OpenClDevice};
use tmd_xfloat::BaseFloat;

/// Whether the long variants of the tests run (`TMD_EXTENSIVE=1`).
pub fn extensive() -> bool {
    tmd_test_tier::extensive()
}

/// The first OpenCL device, or with `TMD_OPENCL_DEVICE_NAME=TEXT` the first whose name
/// contains TEXT (scripts/gpu-check.sh picks the GPU where PoCL comes first); without any
/// OpenCL runtime the runner's message says what to install.
pub fn device() -> OpenClDevice {
    let wanted = std::env::var("TMD_OPENCL_DEVICE_NAME").ok();
    let chosen = match wanted {
        None => OpenClDevice::nth(0),
        Some(text) => OpenClDevice::list().map(|all| {
            all.into_iter()
                .find(|d| d.name().contains(&text))
                .unwrap_or_else(|| panic!("no OpenCL device named like '{text}'"))
        }),
    };
    match chosen {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    }
}

/// What the tests need of a base format besides `BaseFloat`.
pub trait Word: BaseFloat + DwWord {
    fn bits(self) -> u64;
    fn from_bits_u64(bits: u64) -> Self;
    /// Exponent field width and fraction width.
    const FIELDS: (u32, u32);
}

impl Word for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits_u64(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    const FIELDS: (u32, u32) = (11, 52);
}

impl Word for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits_u64(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    const FIELDS: (u32, u32) = (8, 23);
}

/// A random base float: sign, fraction and a biased exponent drawn from `exp_range`.
pub fn random_word<W: Word>(rng: &mut ChaCha8Rng, exp_range: std::ops::RangeInclusive<u64>) -> W {
    let (_, frac_bits) = W::FIELDS;
    let sign = rng.gen::<bool>() as u64;
    let exp = rng.gen_range(exp_range);
    let frac = rng.gen::<u64>() & ((1u64 << frac_bits) - 1);
    W::from_bits_u64((sign << (W::FIELDS.0 + frac_bits)) | (exp << frac_bits) | frac)
}

/// Special leading words, and what makes them special.
pub fn specials<W: Word>() -> Vec<W> {
    let (exp_bits, frac_bits) = W::FIELDS;
    let max_exp = (1u64 << exp_bits) - 1;
    let b = |bits: u64| W::from_bits_u64(bits);
    let mut v = vec![
        W::ZERO,
        -W::ZERO,
        W::INFINITY,
        -W::INFINITY,
        W::NAN,
        W::ONE,
        -W::ONE,
        W::MAX,
        -W::MAX,
        b(1),                                                 // smallest subnormal
        b((1u64 << frac_bits) - 1),                           // largest subnormal
        b(1u64 << frac_bits),                                 // smallest normal
        b(((max_exp - 1) << frac_bits) | 12345),              // near the top
        b(((1u64 << frac_bits) * 100) | 0x5555),              // tiny normal
        b((((1u64 << (exp_bits - 1)) - 1) << frac_bits) | 1), // 1 + ulp
    ];
    let negated: Vec<W> = v.iter().map(|&x| -x).collect();
    v.extend(negated);
    v
}

/// The comparison every kernel check ends with: `want[i]` (CPU) against `got[i]` (device) for
/// one operation `label` (as `dd_Add`), with `same` deciding equality (bits, NaN as NaN) and
/// `show` printing a value. Prints "LABEL: N inputs, M mismatches, device call T s" and returns
/// the first five mismatches (`describe(i)` names input i) plus the total when there are more.
pub fn compare_results<V: Copy>(
    label: &str,
    want: &[V],
    got: &[V],
    device_seconds: f64,
    same: impl Fn(V, V) -> bool,
    show: impl Fn(V) -> String,
    describe: impl Fn(usize) -> String,
) -> Vec<String> {
    assert_eq!(want.len(), got.len(), "{label}: one result per input");
    let mut failures = Vec::new();
    let mut mismatches = 0;
    for (i, (&w, &g)) in want.iter().zip(got).enumerate() {
        if !same(w, g) {
            mismatches += 1;
            if mismatches <= 5 {
                failures.push(format!(
                    "{label}: {}: CPU {}, OpenCL {}",
                    describe(i),
                    show(w),
                    show(g)
                ));
            }
        }
    }
    let n = want.len();
    println!("{label}: {n} inputs, {mismatches} mismatches, device call {device_seconds:.2} s");
    if mismatches > 5 {
        failures.push(format!("{label}: {mismatches} mismatches in all"));
    }
    failures
}
