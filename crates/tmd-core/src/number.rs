//! Reading numbers: hex floats (`0x1.8p+0`, C99 `%a` and `strtod` syntax) and decimals
//! (`1.5`, `-2e-3`), exactly, as rationals; then rounding them to a format.
//!
//! Parsing never goes through `f64`: a decimal is an integer times a power of ten, a hex float
//! an integer times a power of two, both held exactly in a `rug::Rational`. Rounding to a
//! format is a single integer division with round-half-even on the quotient, at the quantum of
//! the value's binade (subnormal quantum below 2^emin), so there is no double rounding.

use crate::error::InputError;
use crate::format::{Format, FormatNumber};
use rug::ops::Pow;
use rug::{Integer, Rational};

/// Magnitude of the largest binary or decimal exponent accepted in a literal; far beyond every
/// format's range, small enough that the exact rational stays cheap.
const MAX_LITERAL_EXPONENT: i64 = 100_000;

/// `text` as an error message shows it: whole when short, else its start and its length, so
/// that a number of a million digits is not echoed whole.
pub fn shown(text: &str) -> String {
    const LONGEST: usize = 64;
    if text.chars().count() <= LONGEST {
        return text.to_string();
    }
    let start: String = text.chars().take(40).collect();
    format!("{start}... ({} characters)", text.chars().count())
}

/// Parses a hex float or a decimal into its exact rational value.
pub fn parse_number(text: &str) -> Result<Rational, InputError> {
    let bad = |why: &str| InputError::Number(format!("'{}': {why}", shown(text)));
    let t = text.trim();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return Err(bad("not a finite number"));
    }
    let value = if let Some(hex) = lower.strip_prefix("0x") {
        parse_digits(hex, 16, 'p', 2).map_err(|why| bad(&why))?
    } else {
        parse_digits(&lower, 10, 'e', 10).map_err(|why| bad(&why))?
    };
    Ok(if neg { -value } else { value })
}

/// `digits[.digits][<marker>[+-]exponent]` in `radix`, scaled by `base^exponent`.
fn parse_digits(s: &str, radix: u32, marker: char, base: u32) -> Result<Rational, String> {
    let (mantissa, exponent) = match s.split_once(marker) {
        Some((m, e)) => {
            let e: i64 = e.parse().map_err(|_| format!("malformed exponent '{e}'"))?;
            (m, e)
        }
        None => (s, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return Err("no digits".into());
    }
    let all: String = [int_part, frac_part].concat();
    if let Some(c) = all.chars().find(|c| !c.is_digit(radix)) {
        return Err(format!("unexpected character '{c}'"));
    }
    // Each fraction digit scales by 1/radix: 4 binary places for hex, one decimal place.
    let frac_scale = if radix == 16 { 4 } else { 1 } * frac_part.len() as i64;
    // The written exponent is bounded; the digits may move the scale beyond it (a decimal of
    // 100,000 fraction digits is a valid number), as far as they are many.
    if exponent.abs() > MAX_LITERAL_EXPONENT {
        return Err("exponent out of range".to_string());
    }
    let exponent = exponent - frac_scale;
    let n = Integer::from_str_radix(&all, radix as i32).map_err(|e| e.to_string())?;
    let scale = Integer::from(base).pow(exponent.unsigned_abs() as u32);
    Ok(if exponent >= 0 {
        Rational::from(n * scale)
    } else {
        Rational::from((n, scale))
    })
}

/// Rounds `q` to the nearest number of `format` (ties to even), with subnormals. Returns the
/// number and whether it equals `q` exactly; a value beyond the largest finite number (after
/// rounding) is an error.
pub fn round_to_format(q: &Rational, format: &Format) -> Result<(FormatNumber, bool), InputError> {
    if *q == 0 {
        return Ok((FormatNumber::zero(format), true));
    }
    let neg = *q < 0;
    let num = q.numer().clone().abs();
    let den = q.denom().clone();
    // Binade: 2^(e-1) <= |q| < 2^e.
    let e0 = num.significant_bits() as i64 - den.significant_bits() as i64;
    let e = if shifted_ge(&num, &den, e0) {
        e0 + 1
    } else {
        e0
    };
    let qexp = format.qexp_of_binade(e);
    // n = round_half_even(|q| / 2^qexp)
    let (scaled_num, scaled_den) = if qexp >= 0 {
        (num, den << qexp as u32)
    } else {
        (num << (-qexp) as u32, den)
    };
    let (mut n, rem) = scaled_num.div_rem(scaled_den.clone());
    let exact = rem == 0;
    let twice_rem = rem << 1u32;
    if twice_rem > scaled_den || (twice_rem == scaled_den && n.is_odd()) {
        n += 1;
    }
    format
        .number_from_parts(neg, &n, qexp)
        .map(|x| (x, exact))
        .ok_or_else(|| {
            InputError::Number(format!(
                "{} is beyond the largest finite {} number",
                decimal_approx(q),
                format.name()
            ))
        })
}

/// `num >= den · 2^e` for any sign of e.
fn shifted_ge(num: &Integer, den: &Integer, e: i64) -> bool {
    if e >= 0 {
        *num >= den.clone() << e as u32
    } else {
        num.clone() << (-e) as u32 >= *den
    }
}

/// A short decimal rendering for messages.
pub fn decimal_approx(q: &Rational) -> String {
    let f = rug::Float::with_val(64, q);
    f.to_string_radix(10, Some(17))
}

/// The sign of a zero written `-0` (or `-0x0p+0`, `-0.0e5`): a rational has none, so it is
/// read from the text. A nonzero negative value that rounds to zero already carries it.
fn with_sign_of_zero(x: FormatNumber, text: &str) -> FormatNumber {
    if x.is_zero() && text.trim_start().starts_with('-') {
        FormatNumber { neg: true, ..x }
    } else {
        x
    }
}

/// Reads a number that must be exactly representable in `format` (an input of `hardness`).
/// `-0` is the negative zero.
pub fn parse_exact(text: &str, format: &Format) -> Result<FormatNumber, InputError> {
    let q = parse_number(text)?;
    let (x, exact) = round_to_format(&q, format)?;
    let x = with_sign_of_zero(x, text);
    if !exact {
        return Err(InputError::Number(format!(
            "'{}' is not a {} number (the nearest one is {})",
            shown(text),
            format.name(),
            x.to_hex()
        )));
    }
    Ok(x)
}

/// Reads a range bound: rounded to nearest; the flag says whether it was exact. `-0` is the
/// negative zero.
pub fn parse_rounded(text: &str, format: &Format) -> Result<(FormatNumber, bool), InputError> {
    let q = parse_number(text)?;
    let (x, exact) = round_to_format(&q, format)?;
    Ok((with_sign_of_zero(x, text), exact))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(text: &str) -> f64 {
        let (x, _) = parse_rounded(text, &Format::binary64()).unwrap();
        x.to_float().to_f64()
    }

    #[test]
    fn decimals_round_like_strtod() {
        for s in [
            "0.1",
            "1e23",
            "2.2250738585072011e-308",
            "4.9e-324",
            "2.4703282292062328e-324",
            "1.7976931348623157e308",
            "123456789012345678901234567890",
            "-0.3",
            "1",
            "0",
            "5e-324",
            "1.5",
            "0.000001",
        ] {
            assert_eq!(b64(s), s.parse::<f64>().unwrap(), "{s}");
        }
    }

    #[test]
    fn hex_floats_are_exact() {
        assert_eq!(
            b64("0x1.aca7ae8da5a7bp+0"),
            f64::from_bits(0x3ffa_ca7a_e8da_5a7b)
        );
        assert_eq!(b64("-0x1p-1074"), -f64::from_bits(1));
        assert_eq!(b64("0x0.0000000000001p-1022"), f64::from_bits(1));
        assert_eq!(b64("0x10"), 16.0);
        assert!(parse_exact("0x1.00000000000001p+0", &Format::binary64()).is_err());
    }

    #[test]
    fn ties_go_to_even_and_subnormals_round_once() {
        // 1 + 2^-53 is a tie between 1 and 1 + 2^-52: even is 1.
        assert_eq!(b64("0x1.00000000000008p+0"), 1.0);
        assert_eq!(b64("0x1.00000000000018p+0"), 1.0 + 2.0 * f64::EPSILON);
        // Half the smallest subnormal is a tie between 0 and 2^-1074: even is 0.
        assert_eq!(b64("0x1p-1075"), 0.0);
        assert_eq!(b64("0x1.0000001p-1075"), f64::from_bits(1));
    }

    #[test]
    fn negative_zero_keeps_its_sign() {
        let f = Format::binary64();
        for s in ["-0", "-0x0p+0", " -0.000e7", "-0x0.0p-3"] {
            let x = parse_exact(s, &f).unwrap();
            assert!(x.neg && x.is_zero(), "{s}");
            assert_eq!(x.to_hex(), "-0x0p+0");
            assert!(x.to_float().is_sign_negative());
        }
        assert_eq!(parse_exact("0", &f).unwrap().to_hex(), "0x0p+0");
        assert_eq!(parse_exact("+0", &f).unwrap().to_hex(), "0x0p+0");
        // A negative value below half the smallest subnormal rounds to -0.
        let (x, exact) = parse_rounded("-1e-400", &f).unwrap();
        assert_eq!((x.to_hex().as_str(), exact), ("-0x0p+0", false));
        assert_eq!(f.ordinal(&x), 0);
    }

    #[test]
    fn bad_numbers_are_errors() {
        for s in [
            "",
            "abc",
            "0x",
            "1e",
            "1.2.3",
            "nan",
            "-inf",
            "0x1p",
            "1e999999999",
            "0xg",
        ] {
            assert!(parse_number(s).is_err(), "{s}");
        }
        assert!(parse_rounded("1e309", &Format::binary64()).is_err());
        assert!(parse_rounded("65520", &Format::binary16()).is_err());
        assert!(parse_rounded("65519", &Format::binary16()).is_ok());
    }
}
