//! Binary floating-point formats and their finite numbers.
//!
//! A [`Format`] is a precision `p` and an exponent range (docs/definitions.md): normal numbers lie in
//! `[2^emin, 2^(emax+1))`, subnormals fill `(0, 2^emin)` with the fixed quantum
//! `2^(emin-p+1)`. A finite number of the format is a [`FormatNumber`]: a sign, an integer
//! significand `mant < 2^p` and a quantum exponent `qexp`, value `±mant · 2^qexp`, kept in one
//! canonical form so that equal values compare equal.
//!
//! Numbers of a format are enumerated through their *ordinal*: the count of format numbers in
//! `[0, |x|)`, negated for negative `x`. Ordinals are contiguous integers, so a range
//! `[A, B)` of inputs is the integer range `[ord(A), ord(B))`, split into chunks for threads
//! without any floating-point stepping. This is the IEEE bit-pattern trick, written for any
//! precision up to 64 bits (hence `i128`: binary64-range formats with 64-bit precision have
//! more than 2^64 numbers).

use crate::error::InputError;
use rug::{Float, Integer};
use std::fmt;

/// A binary floating-point format: precision and exponent range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    name: String,
    precision: u32,
    emin: i32,
    emax: i32,
}

/// Largest precision of a custom `pN` format.
pub const MAX_PRECISION: u32 = 64;

impl Format {
    /// IEEE 754 binary16: p = 11, normal exponents -14..=15.
    pub fn binary16() -> Format {
        Format::new("binary16", 11, -14, 15)
    }
    /// bfloat16: binary32's exponent range with p = 8.
    pub fn bfloat16() -> Format {
        Format::new("bfloat16", 8, -126, 127)
    }
    /// IEEE 754 binary32.
    pub fn binary32() -> Format {
        Format::new("binary32", 24, -126, 127)
    }
    /// IEEE 754 binary64.
    pub fn binary64() -> Format {
        Format::new("binary64", 53, -1022, 1023)
    }
    /// x87 double-extended (binary80): p = 64, normal exponents -16382..=16383. Its
    /// subnormals are the IEEE ones (the x87 pseudo-denormals and unnormals are not numbers
    /// of this format).
    pub fn binary80() -> Format {
        Format::new("binary80", 64, -16382, 16383)
    }
    /// IEEE 754 binary128: p = 113, normal exponents -16382..=16383.
    pub fn binary128() -> Format {
        Format::new("binary128", 113, -16382, 16383)
    }
    /// `pN`: precision N (2..=64) with binary64's exponent range.
    pub fn custom(precision: u32) -> Result<Format, InputError> {
        if !(2..=MAX_PRECISION).contains(&precision) {
            return Err(InputError::Format(format!(
                "p{precision}: custom precision must be between 2 and {MAX_PRECISION}"
            )));
        }
        Ok(Format::new(
            &format!("p{precision}"),
            precision,
            -1022,
            1023,
        ))
    }

    fn new(name: &str, precision: u32, emin: i32, emax: i32) -> Format {
        Format {
            name: name.to_string(),
            precision,
            emin,
            emax,
        }
    }

    /// Parses a format name: binary16 (or half), bfloat16, binary32 (single), binary64
    /// (double), binary80 (extended), binary128 (quad), or pN.
    pub fn parse(name: &str) -> Result<Format, InputError> {
        match name {
            "binary16" | "half" | "fp16" => Ok(Format::binary16()),
            "bfloat16" | "bf16" => Ok(Format::bfloat16()),
            "binary32" | "single" | "float" | "fp32" => Ok(Format::binary32()),
            "binary64" | "double" | "fp64" => Ok(Format::binary64()),
            "binary80" | "extended" | "x87" => Ok(Format::binary80()),
            "binary128" | "quad" => Ok(Format::binary128()),
            _ => match name.strip_prefix('p').map(str::parse::<u32>) {
                Some(Ok(p)) => Format::custom(p),
                _ => Err(InputError::Format(format!(
                    "unknown format '{name}' (expected binary16, bfloat16, binary32, binary64, binary80, binary128 or pN with N <= {MAX_PRECISION})"
                ))),
            },
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    /// Precision p in bits (the leading bit included).
    pub fn precision(&self) -> u32 {
        self.precision
    }
    /// Smallest normal exponent: the smallest normal number is 2^emin.
    pub fn emin(&self) -> i32 {
        self.emin
    }
    /// Largest exponent: every finite number is below 2^(emax+1).
    pub fn emax(&self) -> i32 {
        self.emax
    }
    /// Quantum exponent of subnormals and of the first normal binade.
    pub fn qexp_min(&self) -> i32 {
        self.emin - self.precision as i32 + 1
    }
    /// Quantum exponent of the largest binade.
    pub fn qexp_max(&self) -> i32 {
        self.emax - self.precision as i32 + 1
    }
    /// Quantum exponent (log2 of the ulp) of numbers y with 2^(e-1) <= |y| < 2^e:
    /// 2^(e-p), but never below the subnormal quantum (docs/definitions.md).
    pub fn qexp_of_binade(&self, e: i64) -> i64 {
        (e - self.precision as i64).max(self.qexp_min() as i64)
    }
    fn half_mant(&self) -> u128 {
        1u128 << (self.precision - 1)
    }
    /// Ordinal of the largest finite number.
    pub fn max_ordinal(&self) -> i128 {
        ((self.emax - self.emin + 2) as i128) * self.half_mant() as i128 - 1
    }
    /// The largest finite number.
    pub fn max_finite(&self) -> FormatNumber {
        self.from_ordinal(self.max_ordinal())
    }

    /// The format number with the given ordinal (see the module docs).
    /// Panics if the ordinal is beyond the largest finite number: callers clamp ranges first.
    pub fn from_ordinal(&self, ord: i128) -> FormatNumber {
        assert!(
            ord.abs() <= self.max_ordinal(),
            "ordinal {ord} outside {}",
            self.name
        );
        let neg = ord < 0;
        let u = ord.unsigned_abs();
        let half = self.half_mant();
        let (mant, qexp) = if u < half {
            (u, self.qexp_min())
        } else {
            let j = u - half;
            let binade = (j >> (self.precision - 1)) as i32;
            (half + (j & (half - 1)), self.qexp_min() + binade)
        };
        FormatNumber {
            neg: neg && mant != 0,
            mant,
            qexp,
        }
    }

    /// Ordinal of a number of this format.
    pub fn ordinal(&self, x: &FormatNumber) -> i128 {
        let half = self.half_mant();
        let m = x.mant;
        let u = if m < half {
            m
        } else {
            ((x.qexp - self.qexp_min()) as u128) * half + m
        };
        if x.neg {
            -(u as i128)
        } else {
            u as i128
        }
    }

    /// Canonical format number for `±n · 2^qexp` when that is exactly representable, or `None`.
    pub fn number_from_parts(&self, neg: bool, n: &Integer, qexp: i64) -> Option<FormatNumber> {
        if *n == 0 {
            return Some(FormatNumber {
                neg,
                ..FormatNumber::zero(self)
            });
        }
        let mut n = n.clone();
        let mut q = qexp;
        // Strip trailing zeros, then bring the significand to canonical width.
        let tz = n.find_one(0).unwrap_or(0);
        n >>= tz;
        q += tz as i64;
        let bits = n.significant_bits() as i64;
        if bits > self.precision as i64 {
            return None;
        }
        // Canonical: normal numbers have exactly p bits; subnormals have qexp = qexp_min.
        let target_q = (q + bits - self.precision as i64).max(self.qexp_min() as i64);
        if q < target_q || target_q > self.qexp_max() as i64 {
            return None;
        }
        n <<= (q - target_q) as u32;
        Some(FormatNumber {
            neg,
            mant: n.to_u128().expect("significand fits in 128 bits"),
            qexp: target_q as i32,
        })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A finite number of some format: `(-1)^neg · mant · 2^qexp`, canonical (normal numbers have a
/// p-bit `mant`; subnormals and zero have `qexp = qexp_min`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FormatNumber {
    pub neg: bool,
    pub mant: u128,
    pub qexp: i32,
}

impl FormatNumber {
    pub fn zero(format: &Format) -> FormatNumber {
        FormatNumber {
            neg: false,
            mant: 0,
            qexp: format.qexp_min(),
        }
    }

    pub fn is_zero(&self) -> bool {
        self.mant == 0
    }

    /// The exact value as an MPFR number: 64 bits for significands that fit (every format but
    /// binary128), 128 otherwise.
    pub fn to_float(&self) -> Float {
        let prec = if self.mant >> 64 == 0 { 64 } else { 128 };
        let mut f = Float::with_val(prec, self.mant);
        f <<= self.qexp;
        if self.neg {
            -f
        } else {
            f
        }
    }

    /// C99 `%a` style: `0x1.8p+0`, `-0x1p-1074`, `0x0p+0`. Subnormals are printed normalised
    /// (`0x1p-1074`, not `0x0.0000000000001p-1022`); both forms parse back.
    pub fn to_hex(&self) -> String {
        hex_string(self.neg, self.mant, self.qexp as i64)
    }
}

/// `%a` style text of `±mant · 2^qexp`, normalised to a leading 1. Written digit by digit
/// into one buffer: a search lists its cases with it, and a device search of I0 spends as
/// long listing its 241 cases as verifying them.
pub fn hex_string(neg: bool, mant: u128, qexp: i64) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(48);
    if neg {
        out.push('-');
    }
    if mant == 0 {
        out.push_str("0x0p+0");
        return out;
    }
    let bits = 128 - mant.leading_zeros();
    let exp = qexp + bits as i64 - 1;
    let frac_bits = bits - 1;
    // frac_bits <= 127, so the shifts are in range.
    let frac = mant & ((1u128 << frac_bits) - 1);
    out.push_str("0x1");
    if frac != 0 {
        // Whole hex digits after the point, the trailing zero digits dropped.
        let mut digits = frac_bits.div_ceil(4);
        let mut shifted = frac << (4 * digits - frac_bits);
        let zeros = shifted.trailing_zeros() / 4;
        shifted >>= 4 * zeros;
        digits -= zeros;
        out.push('.');
        for d in (0..digits).rev() {
            out.push(HEX[((shifted >> (4 * d)) & 0xf) as usize] as char);
        }
    }
    out.push('p');
    if exp >= 0 {
        out.push('+');
    }
    out.push_str(&exp.to_string());
    out
}

impl fmt::Display for FormatNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// binary80's extremes: the largest finite number, the smallest normal and subnormal.
    #[test]
    fn binary80_has_the_x87_extended_range() {
        let f = Format::parse("binary80").unwrap();
        assert_eq!((f.precision(), f.emin(), f.emax()), (64, -16382, 16383));
        assert_eq!(Format::parse("extended").unwrap(), f);
        let largest = f.from_ordinal(f.max_ordinal()).to_hex();
        assert_eq!(largest, "0x1.fffffffffffffffep+16383");
        assert_eq!(f.from_ordinal(1).to_hex(), "0x1p-16445");
        assert_eq!(f.from_ordinal(1i128 << 63).to_hex(), "0x1p-16382");
    }

    #[test]
    fn ordinals_round_trip_in_every_format() {
        for fmt in [
            Format::binary16(),
            Format::bfloat16(),
            Format::binary32(),
            Format::binary64(),
            Format::binary80(),
            Format::custom(64).unwrap(),
            Format::custom(2).unwrap(),
        ] {
            let max = fmt.max_ordinal();
            let step = (max / 997).max(1);
            let mut ord = -max;
            while ord <= max {
                let x = fmt.from_ordinal(ord);
                assert_eq!(fmt.ordinal(&x), ord, "{fmt} {ord}");
                ord += step;
            }
            // Neighbours in ordinal order are increasing in value.
            for ord in [
                0,
                1,
                (1 << (fmt.precision() - 1)) - 1,
                1 << (fmt.precision() - 1),
                max - 1,
            ] {
                let a = fmt.from_ordinal(ord).to_float();
                let b = fmt.from_ordinal(ord + 1).to_float();
                assert!(a < b, "{fmt}: ordinal {ord}");
            }
        }
    }

    #[test]
    fn binary64_extremes_match_ieee() {
        let f = Format::binary64();
        assert_eq!(f.max_finite().to_float(), f64::MAX);
        assert_eq!(f.from_ordinal(1).to_float(), f64::from_bits(1));
        assert_eq!(f.from_ordinal(1 << 52).to_float(), f64::MIN_POSITIVE);
        assert_eq!(f.max_ordinal(), 0x7fef_ffff_ffff_ffff);
        let h = Format::binary16();
        assert_eq!(h.max_finite().to_float(), 65504.0);
        assert_eq!(h.max_ordinal(), 0x7bff);
    }

    #[test]
    fn hex_strings_are_c_style() {
        let f = Format::binary64();
        let one = f.from_ordinal(0x3ff0_0000_0000_0000);
        assert_eq!(one.to_hex(), "0x1p+0");
        let x = f.from_ordinal(0x3ffa_ca7a_e8da_5a7b);
        assert_eq!(x.to_hex(), "0x1.aca7ae8da5a7bp+0");
        assert_eq!(f.from_ordinal(1).to_hex(), "0x1p-1074");
        assert_eq!(f.from_ordinal(-3).to_hex(), "-0x1.8p-1073");
        assert_eq!(FormatNumber::zero(&f).to_hex(), "0x0p+0");
        let s = Format::binary32();
        assert_eq!(s.from_ordinal(0x3f80_0001).to_hex(), "0x1.000002p+0");
    }

    /// The digit-by-digit writer against the plain `format!` of the whole fraction, on
    /// significands of every width up to 128 bits.
    #[test]
    fn hex_strings_equal_the_formatted_fraction() {
        fn by_format(neg: bool, mant: u128, qexp: i64) -> String {
            let sign = if neg { "-" } else { "" };
            if mant == 0 {
                return format!("{sign}0x0p+0");
            }
            let bits = 128 - mant.leading_zeros();
            let frac_bits = bits - 1;
            let frac = mant & ((1u128 << frac_bits) - 1);
            let digits = frac_bits.div_ceil(4) as usize;
            let text = if digits > 0 {
                format!("{:0digits$x}", frac << (4 * digits as u32 - frac_bits))
            } else {
                String::new()
            };
            let text = text.trim_end_matches('0');
            let point = if text.is_empty() { "" } else { "." };
            format!("{sign}0x1{point}{text}p{:+}", qexp + frac_bits as i64)
        }
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..20_000u32 {
            let width = i % 129;
            let raw = (u128::from(next()) << 64) | u128::from(next());
            let mant = if width == 0 { 0 } else { raw >> (128 - width) };
            // Sparse fractions too: trailing zero digits are dropped.
            let mant = if i % 3 == 0 {
                mant & !((1u128 << (width / 2)) - 1)
            } else {
                mant
            };
            let qexp = (next() % 2400) as i64 - 1200;
            let neg = i % 2 == 1;
            assert_eq!(
                hex_string(neg, mant, qexp),
                by_format(neg, mant, qexp),
                "{mant:#x} {qexp}"
            );
        }
    }
}
