//! The two formats crunch checks, as integer ordinals and exact `f64` values.
//!
//! Ordinals are those of tmd-core (`0` is zero, `n > 0` the n-th positive number, negative
//! numbers mirrored): for IEEE formats the ordinal of a non-negative number is its bit pattern.

use serde::{Deserialize, Serialize};
use tmd_core::InputError;

/// binary32 or binary64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CrunchFormat {
    Binary32,
    Binary64,
}

impl CrunchFormat {
    /// Parses `binary32` or `binary64`.
    pub fn parse(name: &str) -> Result<CrunchFormat, InputError> {
        match name {
            "binary32" => Ok(CrunchFormat::Binary32),
            "binary64" => Ok(CrunchFormat::Binary64),
            _ => Err(InputError::Format(format!(
                "expected binary32 or binary64, not `{name}` (binary80 and binary128 functions \
                 are checked on input lists: tmd crunch TARGET --inputs FILE)"
            ))),
        }
    }

    /// `binary32` or `binary64`.
    pub fn name(self) -> &'static str {
        match self {
            CrunchFormat::Binary32 => "binary32",
            CrunchFormat::Binary64 => "binary64",
        }
    }

    /// tmd-core's description of the same format.
    pub fn core(self) -> tmd_core::Format {
        match self {
            CrunchFormat::Binary32 => tmd_core::Format::binary32(),
            CrunchFormat::Binary64 => tmd_core::Format::binary64(),
        }
    }

    /// Precision p.
    pub fn precision(self) -> i32 {
        match self {
            CrunchFormat::Binary32 => 24,
            CrunchFormat::Binary64 => 53,
        }
    }

    /// Exponent of the smallest normal number, `2^emin`.
    pub fn emin(self) -> i32 {
        match self {
            CrunchFormat::Binary32 => -126,
            CrunchFormat::Binary64 => -1022,
        }
    }

    /// The largest finite number.
    pub fn max_finite(self) -> f64 {
        match self {
            CrunchFormat::Binary32 => f32::MAX as f64,
            CrunchFormat::Binary64 => f64::MAX,
        }
    }

    /// Ordinal of the largest finite number.
    pub fn max_ordinal(self) -> i64 {
        match self {
            CrunchFormat::Binary32 => 0x7f7f_ffff,
            CrunchFormat::Binary64 => 0x7fef_ffff_ffff_ffff,
        }
    }

    /// The number with ordinal `ord` (|ord| <= max_ordinal), exactly, as f64.
    pub fn from_ordinal(self, ord: i64) -> f64 {
        let mag = ord.unsigned_abs();
        let v = match self {
            CrunchFormat::Binary32 => f32::from_bits(mag as u32) as f64,
            CrunchFormat::Binary64 => f64::from_bits(mag),
        };
        if ord < 0 {
            -v
        } else {
            v
        }
    }

    /// Ordinal of a finite number of the format (`-0` is `0`).
    pub fn ordinal(self, x: f64) -> i64 {
        let mag = match self {
            CrunchFormat::Binary32 => (x.abs() as f32).to_bits() as i64,
            CrunchFormat::Binary64 => x.abs().to_bits() as i64,
        };
        if x < 0.0 {
            -mag
        } else {
            mag
        }
    }

    /// Whether `x` (a finite f64) is a number of the format.
    pub fn contains(self, x: f64) -> bool {
        match self {
            CrunchFormat::Binary32 => (x as f32) as f64 == x,
            CrunchFormat::Binary64 => true,
        }
    }

    /// The neighbour of the finite format number `a` towards `+inf` (`up`) or `-inf`; `None`
    /// when it would be infinite.
    pub fn neighbour(self, a: f64, up: bool) -> Option<f64> {
        let n = self.ordinal(a) + if up { 1 } else { -1 };
        (n.abs() <= self.max_ordinal()).then(|| self.from_ordinal(n))
    }

    /// Hex text of a number of the format (`%a` style), NaN and infinities included.
    pub fn hex(self, x: f64) -> String {
        if x.is_nan() {
            return "nan".into();
        }
        if x.is_infinite() {
            return if x > 0.0 { "inf".into() } else { "-inf".into() };
        }
        // The ordinal of -0 is 0's: the sign comes from x.
        let n = self.core().from_ordinal(self.ordinal(x) as i128);
        tmd_core::FormatNumber {
            neg: x.is_sign_negative(),
            ..n
        }
        .to_hex()
    }
}

/// What the analysis ([`crate::analysis`]) needs of an IEEE binary format: crunch's two
/// formats, and binary16 for two-argument functions ([`crate::bivariate::PairFormat`]).
pub trait IeeeFormat: Copy {
    /// Precision p.
    fn precision(self) -> i32;
    /// Exponent of the smallest normal number.
    fn emin(self) -> i32;
    /// The largest finite number.
    fn max_finite(self) -> f64;
    /// The neighbour of the finite format number `a` towards `+inf` (`up`) or `-inf`; `None`
    /// when it would be infinite.
    fn neighbour(self, a: f64, up: bool) -> Option<f64>;
}

impl IeeeFormat for CrunchFormat {
    fn precision(self) -> i32 {
        CrunchFormat::precision(self)
    }
    fn emin(self) -> i32 {
        CrunchFormat::emin(self)
    }
    fn max_finite(self) -> f64 {
        CrunchFormat::max_finite(self)
    }
    fn neighbour(self, a: f64, up: bool) -> Option<f64> {
        CrunchFormat::neighbour(self, a, up)
    }
}

/// `2^e` as f64 for `-1074 <= e <= 1023`.
pub(crate) fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// `floor(log2 |x|)` for a finite non-zero f64.
pub(crate) fn exponent(x: f64) -> i32 {
    let bits = x.abs().to_bits();
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        // subnormal: the leading bit's position
        63 - bits.leading_zeros() as i32 - 1074
    } else {
        biased - 1023
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_round_trip_and_order() {
        for fmt in [CrunchFormat::Binary32, CrunchFormat::Binary64] {
            let core = fmt.core();
            for ord in [
                0i64,
                1,
                2,
                1 << 23,
                (1 << 23) + 5,
                -7,
                -(1 << 30),
                fmt.max_ordinal(),
            ] {
                let x = fmt.from_ordinal(ord);
                assert_eq!(fmt.ordinal(x), ord);
                let via_core = core.from_ordinal(ord as i128).to_float();
                assert_eq!(via_core, x, "{} ordinal {ord}", fmt.name());
            }
            assert_eq!(fmt.from_ordinal(fmt.max_ordinal()), fmt.max_finite());
            assert_eq!(fmt.neighbour(fmt.max_finite(), true), None);
        }
    }

    #[test]
    fn hex_keeps_the_sign_of_zero() {
        for fmt in [CrunchFormat::Binary32, CrunchFormat::Binary64] {
            assert_eq!(fmt.hex(-0.0), "-0x0p+0");
            assert_eq!(fmt.hex(0.0), "0x0p+0");
            assert_eq!(fmt.hex(-1.5), "-0x1.8p+0");
        }
    }

    #[test]
    fn exponent_and_pow2_agree() {
        for e in -1074..=1023 {
            assert_eq!(exponent(pow2(e)), e);
            if e < 1023 && e > -1074 {
                assert_eq!(exponent(pow2(e) * 1.5), e);
            }
        }
    }
}
