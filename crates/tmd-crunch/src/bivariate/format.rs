//! The formats of two-argument targets: binary16, binary32, binary64. Values travel as the
//! `f64` of the same number (every binary16 and binary32 number is one); binary16 has no
//! stable Rust type, so it is converted by its bit fields here.

use crate::format::{exponent, pow2, CrunchFormat, IeeeFormat};
use crate::rounding::Rounding;
use serde::{Deserialize, Serialize};
use tmd_core::InputError;

/// binary16, binary32 or binary64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PairFormat {
    Binary16,
    Binary32,
    Binary64,
}

impl PairFormat {
    /// Parses `binary16`, `binary32` or `binary64`.
    pub fn parse(name: &str) -> Result<PairFormat, InputError> {
        match name {
            "binary16" => Ok(PairFormat::Binary16),
            _ => CrunchFormat::parse(name)
                .map(PairFormat::from)
                .map_err(|_| {
                    InputError::Format(format!(
                        "two-argument functions are checked in binary16, binary32 or binary64, \
                         not `{name}`"
                    ))
                }),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PairFormat::Binary16 => "binary16",
            PairFormat::Binary32 => "binary32",
            PairFormat::Binary64 => "binary64",
        }
    }

    /// tmd-core's description of the same format.
    pub fn core(self) -> tmd_core::Format {
        match self {
            PairFormat::Binary16 => tmd_core::Format::binary16(),
            PairFormat::Binary32 => tmd_core::Format::binary32(),
            PairFormat::Binary64 => tmd_core::Format::binary64(),
        }
    }

    /// The largest exponent: `2^emax <= MAX < 2^(emax + 1)`.
    pub fn emax(self) -> i32 {
        1 - self.emin()
    }

    /// Ordinal of a finite number of the format (`-0` is `0`): its bit pattern for x >= 0.
    pub fn ordinal(self, x: f64) -> i64 {
        let mag = match self {
            PairFormat::Binary16 => i64::from(binary16_bits(x.abs())),
            PairFormat::Binary32 => i64::from((x.abs() as f32).to_bits()),
            PairFormat::Binary64 => x.abs().to_bits() as i64,
        };
        if x < 0.0 {
            -mag
        } else {
            mag
        }
    }

    /// The number of ordinal `ord`.
    pub fn from_ordinal(self, ord: i64) -> f64 {
        let mag = ord.unsigned_abs();
        let v = match self {
            PairFormat::Binary16 => binary16_value(mag as u16),
            PairFormat::Binary32 => f64::from(f32::from_bits(mag as u32)),
            PairFormat::Binary64 => f64::from_bits(mag),
        };
        if ord < 0 {
            -v
        } else {
            v
        }
    }

    /// Whether the finite `x` is a number of the format.
    pub fn contains(self, x: f64) -> bool {
        self.round(x, Rounding::Nearest) == x
    }

    /// `v` rounded to the format in `mode`: ±inf beyond the largest finite number MAX away
    /// from zero (and to nearest from MAX + ulp/2 on), ±MAX toward zero (IEEE 754-2019 §7.4).
    /// NaN and infinities stay.
    pub fn round(self, v: f64, mode: Rounding) -> f64 {
        if !v.is_finite() || v == 0.0 || self == PairFormat::Binary64 {
            return v;
        }
        let ulp_exp = exponent(v).max(self.emin()) - self.precision() + 1;
        // v / 2^ulp_exp and back are exact: both are products by powers of two in f64's
        // normal range.
        let q = v * pow2(-ulp_exp);
        let q = match mode.rounds_down(v > 0.0) {
            None => q.round_ties_even(),
            Some(true) => q.floor(),
            Some(false) => q.ceil(),
        };
        let r = q * pow2(ulp_exp);
        if r.abs() <= self.max_finite() {
            return if r == 0.0 { 0.0f64.copysign(v) } else { r };
        }
        let away = mode
            .rounds_down(v > 0.0)
            .is_none_or(|down| down != (v > 0.0));
        if away {
            f64::INFINITY.copysign(v)
        } else {
            self.max_finite().copysign(v)
        }
    }

    /// Hex text (`%a` style) of a number of the format, NaN and infinities included.
    pub fn hex(self, x: f64) -> String {
        if x.is_nan() {
            return "nan".into();
        }
        if x.is_infinite() {
            return if x > 0.0 { "inf".into() } else { "-inf".into() };
        }
        let n = self.core().from_ordinal(i128::from(self.ordinal(x)));
        tmd_core::FormatNumber {
            neg: x.is_sign_negative(),
            ..n
        }
        .to_hex()
    }
}

impl From<CrunchFormat> for PairFormat {
    fn from(f: CrunchFormat) -> PairFormat {
        match f {
            CrunchFormat::Binary32 => PairFormat::Binary32,
            CrunchFormat::Binary64 => PairFormat::Binary64,
        }
    }
}

impl IeeeFormat for PairFormat {
    fn precision(self) -> i32 {
        match self {
            PairFormat::Binary16 => 11,
            PairFormat::Binary32 => 24,
            PairFormat::Binary64 => 53,
        }
    }
    fn emin(self) -> i32 {
        match self {
            PairFormat::Binary16 => -14,
            PairFormat::Binary32 => -126,
            PairFormat::Binary64 => -1022,
        }
    }
    fn max_finite(self) -> f64 {
        match self {
            PairFormat::Binary16 => 65504.0,
            PairFormat::Binary32 => f64::from(f32::MAX),
            PairFormat::Binary64 => f64::MAX,
        }
    }
    fn neighbour(self, a: f64, up: bool) -> Option<f64> {
        let n = self.ordinal(a) + if up { 1 } else { -1 };
        let max = self.ordinal(self.max_finite());
        (n.abs() <= max).then(|| self.from_ordinal(n))
    }
}

/// The value of a binary16 bit pattern (NaN, ±inf included).
pub fn binary16_value(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (i32::from((bits >> 10) & 0x1f), f64::from(bits & 0x3ff));
    let mag = match e {
        0 => m * pow2(-24),
        0x1f if m == 0.0 => f64::INFINITY,
        0x1f => f64::NAN,
        _ => (1024.0 + m) * pow2(e - 25),
    };
    sign * mag
}

/// The bit pattern of a binary16 number (exactly one; NaN gives the quiet NaN 0x7e00).
pub fn binary16_bits(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let mag = x.abs();
    let field = if mag.is_infinite() {
        0x7c00
    } else if mag < pow2(-14) {
        (mag * pow2(24)) as u16
    } else {
        let e = exponent(mag);
        (((e + 15) as u16) << 10) | ((mag * pow2(10 - e)) as u16 - 1024)
    };
    sign | field
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_binary16_pattern_round_trips_and_orders_like_its_value() {
        let mut previous = -1.0;
        for bits in 0..0x7c00u16 {
            let v = binary16_value(bits);
            assert_eq!(binary16_bits(v), bits);
            assert!(v > previous, "{bits:#x}");
            previous = v;
            assert_eq!(PairFormat::Binary16.round(v, Rounding::Nearest), v);
        }
        assert_eq!(binary16_value(0x7bff), 65504.0);
        assert_eq!(binary16_value(1), pow2(-24));
        assert!(binary16_value(0x7e01).is_nan());
        assert_eq!(binary16_value(0xfc00), f64::NEG_INFINITY);
        assert_eq!(binary16_bits(-0.0), 0x8000);
    }

    #[test]
    fn narrowing_rounds_in_each_mode_and_saturates_per_ieee() {
        let h = PairFormat::Binary16;
        let one_plus = 1.0 + pow2(-11); // the midpoint between 1 and 1 + 2^-10
        assert_eq!(h.round(one_plus, Rounding::Nearest), 1.0);
        assert_eq!(h.round(one_plus, Rounding::Up), 1.0 + pow2(-10));
        assert_eq!(h.round(-one_plus, Rounding::Zero), -1.0);
        assert_eq!(h.round(-one_plus, Rounding::Down), -1.0 - pow2(-10));
        assert_eq!(h.round(65519.0, Rounding::Nearest), 65504.0);
        assert_eq!(h.round(65520.0, Rounding::Nearest), f64::INFINITY);
        assert_eq!(h.round(65505.0, Rounding::Up), f64::INFINITY);
        assert_eq!(h.round(1e9, Rounding::Zero), 65504.0);
        assert_eq!(h.round(-1e9, Rounding::Up), -65504.0);
        assert_eq!(h.round(pow2(-26), Rounding::Nearest), 0.0);
        assert_eq!(h.round(pow2(-26), Rounding::Up), pow2(-24));
        assert_eq!(
            PairFormat::Binary32.round(1.0 + pow2(-30), Rounding::Up),
            1.0 + pow2(-23)
        );
    }
}
