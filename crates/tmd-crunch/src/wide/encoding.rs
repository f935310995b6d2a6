//! binary80 and binary128 numbers as the 16-byte slots the C loops exchange
//! (`foreign/eval_wide.c`), and the values a target may return.

use rug::Float;
use tmd_core::{Format, FormatNumber};

/// One number in memory: its encoding, little-endian, in 16 bytes.
pub type Slot = [u8; 16];

/// The two formats wider than binary64 that crunch checks on input lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideFormat {
    /// x87 double-extended: a 64-bit significand with an explicit integer bit, 15-bit exponent.
    Binary80,
    /// IEEE 754 binary128: 112 fraction bits, 15-bit exponent.
    Binary128,
}

/// The exponent bias of both formats.
const BIAS: i32 = 16383;
/// The biased exponent of infinities and NaNs.
const SPECIAL_EXPONENT: u32 = 0x7fff;

impl WideFormat {
    /// Parses `binary80` or `binary128` (and tmd-core's other names for them).
    pub fn parse(name: &str) -> Option<WideFormat> {
        match Format::parse(name).ok()?.name() {
            "binary80" => Some(WideFormat::Binary80),
            "binary128" => Some(WideFormat::Binary128),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            WideFormat::Binary80 => "binary80",
            WideFormat::Binary128 => "binary128",
        }
    }

    /// tmd-core's description: precision and exponent range.
    pub fn core(self) -> Format {
        match self {
            WideFormat::Binary80 => Format::binary80(),
            WideFormat::Binary128 => Format::binary128(),
        }
    }

    fn precision(self) -> u32 {
        match self {
            WideFormat::Binary80 => 64,
            WideFormat::Binary128 => 113,
        }
    }

    /// The encoding of a number of this format.
    pub fn encode(self, x: &FormatNumber) -> Slot {
        let p = self.precision();
        // Canonical numbers: a normal one has a p-bit significand; a subnormal one (or zero)
        // has the least quantum, which the biased exponent 0 stands for.
        let normal = x.mant >> (p - 1) != 0;
        let biased = if normal {
            (x.qexp + BIAS + p as i32 - 1) as u32
        } else {
            0
        };
        let sign = u32::from(x.neg) << 15;
        let bits: u128 = match self {
            // The integer bit is stored, so the significand goes in whole.
            WideFormat::Binary80 => x.mant | (u128::from(sign | biased) << 64),
            WideFormat::Binary128 => {
                let fraction = x.mant & ((1u128 << 112) - 1);
                fraction | (u128::from(sign | biased) << 112)
            }
        };
        bits.to_le_bytes()
    }

    /// What an encoding stands for. binary80 encodings the x87 no longer produces are read as
    /// the 80387 reads them: a pseudo-denormal (exponent 0, integer bit set) is the number
    /// its bits say; an unnormal, pseudo-infinity or pseudo-NaN (integer bit clear under a
    /// non-zero exponent) is invalid, so NaN.
    pub fn decode(self, slot: &Slot) -> WideValue {
        let bits = u128::from_le_bytes(*slot);
        let (sign_exp, significand) = match self {
            WideFormat::Binary80 => ((bits >> 64) as u32 & 0xffff, bits & u128::from(u64::MAX)),
            WideFormat::Binary128 => ((bits >> 112) as u32, bits & ((1u128 << 112) - 1)),
        };
        let neg = sign_exp >> 15 != 0;
        let biased = sign_exp & 0x7fff;
        let integer_bit = 1u128 << (self.precision() - 1);
        let mant = match self {
            WideFormat::Binary80 if biased != 0 && significand & integer_bit == 0 => {
                return WideValue::NaN
            }
            WideFormat::Binary80 => significand,
            WideFormat::Binary128 if biased == 0 => significand,
            WideFormat::Binary128 => significand | integer_bit,
        };
        if biased == SPECIAL_EXPONENT {
            return if mant == integer_bit {
                WideValue::Infinite { neg }
            } else {
                WideValue::NaN
            };
        }
        // Subnormals (biased exponent 0) share the quantum of the binade of exponent 1. A
        // pseudo-denormal has a p-bit significand at that quantum: canonical as it is.
        let qexp = biased.max(1) as i32 - BIAS - (self.precision() as i32 - 1);
        WideValue::Finite(FormatNumber { neg, mant, qexp })
    }
}

/// A target's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideValue {
    Finite(FormatNumber),
    Infinite { neg: bool },
    NaN,
}

impl WideValue {
    /// The exact value (NaN and ±inf included).
    pub fn to_float(self) -> Float {
        match self {
            WideValue::Finite(x) => x.to_float(),
            WideValue::Infinite { neg: false } => Float::with_val(2, rug::float::Special::Infinity),
            WideValue::Infinite { neg: true } => {
                Float::with_val(2, rug::float::Special::NegInfinity)
            }
            WideValue::NaN => Float::with_val(2, rug::float::Special::Nan),
        }
    }

    /// C99 `%a` style, `inf`, `-inf` or `nan`.
    pub fn to_hex(self) -> String {
        match self {
            WideValue::Finite(x) => x.to_hex(),
            WideValue::Infinite { neg } => if neg { "-inf" } else { "inf" }.to_string(),
            WideValue::NaN => "nan".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tmd_core::number::parse_exact;

    fn number(text: &str, fmt: WideFormat) -> FormatNumber {
        parse_exact(text, &fmt.core()).unwrap()
    }

    #[test]
    fn encodings_follow_the_ieee_and_x87_layouts() {
        let f80 = WideFormat::Binary80;
        let one = u128::from_le_bytes(f80.encode(&number("1", f80)));
        assert_eq!(one, (0x3fffu128 << 64) | (1u128 << 63));
        let min_sub = u128::from_le_bytes(f80.encode(&number("-0x1p-16445", f80)));
        assert_eq!(min_sub, (0x8000u128 << 64) | 1);
        let f128 = WideFormat::Binary128;
        let three = u128::from_le_bytes(f128.encode(&number("3", f128)));
        assert_eq!(three, (0x4000u128 << 112) | (1u128 << 111));
        let min_normal = u128::from_le_bytes(f128.encode(&number("0x1p-16382", f128)));
        assert_eq!(min_normal, 1u128 << 112);
        let neg_zero = u128::from_le_bytes(f128.encode(&number("-0", f128)));
        assert_eq!(neg_zero, 1u128 << 127);
    }

    #[test]
    fn numbers_survive_encoding_and_decoding() {
        for fmt in [WideFormat::Binary80, WideFormat::Binary128] {
            let core = fmt.core();
            let max = core.max_ordinal();
            let ordinals = [0, 1, 2, 1 << 70, max / 2, max - 1, max];
            for ord in ordinals.into_iter().flat_map(|o| [o, -o]) {
                let x = core.from_ordinal(ord);
                assert_eq!(fmt.decode(&fmt.encode(&x)), WideValue::Finite(x), "{ord}");
            }
        }
    }

    #[test]
    fn special_and_non_canonical_encodings_decode_as_the_x87_reads_them() {
        let f80 = WideFormat::Binary80;
        let slot = |bits: u128| bits.to_le_bytes();
        assert_eq!(
            f80.decode(&slot((0xffffu128 << 64) | (1 << 63))),
            WideValue::Infinite { neg: true }
        );
        assert_eq!(
            f80.decode(&slot((0x7fffu128 << 64) | (3 << 62))),
            WideValue::NaN
        );
        // An unnormal (integer bit clear, exponent non-zero) is invalid.
        assert_eq!(f80.decode(&slot((0x3fffu128 << 64) | 1)), WideValue::NaN);
        // A pseudo-denormal is the smallest normal binade's number with the same bits.
        let pseudo = f80.decode(&slot(1 << 63));
        assert_eq!(pseudo, WideValue::Finite(number("0x1p-16382", f80)));
        let f128 = WideFormat::Binary128;
        assert_eq!(
            f128.decode(&slot(0x7fffu128 << 112)),
            WideValue::Infinite { neg: false }
        );
        assert_eq!(f128.decode(&slot((0x7fffu128 << 112) | 1)), WideValue::NaN);
    }
}
