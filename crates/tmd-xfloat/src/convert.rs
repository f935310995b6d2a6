//! Conversions: base floats, integers, decimal and hexadecimal strings, and `rug::Float`.
//!
//! * `From<f32>`, `From<f64>`, `From<i64>`, `From<u64>`: exact whenever the type can hold the
//!   value (always for dd/qd; df64 holds 48 bits, so an `f64` or a large integer is rounded
//!   word by word, to within 1 ulp of 48 bits).
//! * [`to_f64`](DoubleWord::to_f64) rounds (nearest for dd; within one `f64` ulp otherwise),
//!   [`to_i64`](DoubleWord::to_i64) truncates and saturates like `as`.
//! * Hexadecimal (`{:x}` and `FromStr` of `0x...` terms) lists the words as exact hexadecimal
//!   floats joined by ` + ` / ` - ` and round-trips bit for bit.
//! * Decimal (`Display`, `{:e}`, `FromStr`) is computed in the type's own arithmetic: accurate
//!   to a few ulps, not correctly rounded (use the hexadecimal form for exact interchange).

use crate::base::BaseFloat;
use crate::multi::MultiFloat;
use crate::{DoubleWord, QuadWord};
use core::fmt;
use core::str::FromStr;

/// Error returned when a string is not a number of the accepted forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError;

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid multi-word floating-point literal")
    }
}

/// `x` rounded word by word (successive round-to-nearest), exact when representable.
pub(crate) fn from_f64<T: MultiFloat>(x: f64) -> T {
    let mut words = [T::Base::ZERO; 4];
    let mut rest = x;
    for w in words.iter_mut().take(T::WORDS) {
        *w = T::Base::from_f64(rest);
        if !w.is_finite() {
            return T::from_base(*w);
        }
        rest -= w.to_f64();
    }
    T::from_expansion(&words)
}

/// Sum of the words in `f64`, least significant first.
pub(crate) fn to_f64<T: MultiFloat>(x: T) -> f64 {
    let w = x.to_words();
    let mut s = 0.0;
    for v in w.iter().take(T::WORDS).rev() {
        s += v.to_f64();
    }
    if s == 0.0 {
        w[0].to_f64()
    } else {
        s
    }
}

/// An integer `|v| < 2^66` with sign, exactly when the type holds it, via 22-bit chunks.
fn from_magnitude<T: MultiFloat>(negative: bool, v: u64) -> T {
    let chunk =
        |shift: u32| T::Base::from_i64(((v >> shift) & 0x3f_ffff) as i64).scalbn(shift as i32);
    let r = T::from_base(chunk(44))
        .add_base(chunk(22))
        .add_base(chunk(0));
    if negative {
        -r
    } else {
        r
    }
}

pub(crate) fn from_i64<T: MultiFloat>(v: i64) -> T {
    from_magnitude(v < 0, v.unsigned_abs())
}

pub(crate) fn from_u64<T: MultiFloat>(v: u64) -> T {
    from_magnitude(false, v)
}

/// Truncating, saturating conversion (NaN gives 0, like `as`).
pub(crate) fn to_i64<T: MultiFloat>(x: T) -> i64 {
    let t = x.trunc();
    let mut sum: i128 = 0;
    for w in t.to_words().iter().take(T::WORDS) {
        sum = sum.saturating_add(w.to_f64() as i128);
    }
    sum.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// `10^n` in the type (binary powering; a few ulps for large `|n|`).
fn pow10<T: MultiFloat>(n: u32) -> T {
    let mut result = T::one();
    let mut base = T::from_base(T::Base::from_i64(10));
    let mut k = n;
    while k > 0 {
        if k & 1 == 1 {
            result = result * base;
        }
        base = base.square();
        k >>= 1;
    }
    result
}

/// `x * 10^n`, in two steps when `10^|n|` alone would overflow the base format.
fn scale10<T: MultiFloat>(x: T, n: i32) -> T {
    let limit = (T::Base::MAX_EXP as f64 * core::f64::consts::LOG10_2) as i32 - 2;
    if n.abs() > limit {
        let half = n / 2;
        return scale10(scale10(x, half), n - half);
    }
    if n >= 0 {
        x * pow10(n as u32)
    } else {
        x / pow10((-n) as u32)
    }
}

/// Default number of significant decimal digits: `ceil(PRECISION log10 2) + 1`.
fn default_digits<T: MultiFloat>() -> usize {
    libm::ceil(T::PRECISION as f64 * core::f64::consts::LOG10_2) as usize + 1
}

/// Writes `x` as `d.ddd...e±n` with `digits` significant digits.
pub(crate) fn fmt_decimal<T: MultiFloat>(
    x: T,
    digits: usize,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let h = x.hi();
    if h.is_nan() {
        return f.write_str("NaN");
    }
    if x.is_sign_negative() {
        f.write_str("-")?;
    }
    if h.is_infinite() {
        return f.write_str("inf");
    }
    const MAX_DIGITS: usize = 80;
    let digits = digits.clamp(1, MAX_DIGITS);
    if h == T::Base::ZERO {
        f.write_str("0.")?;
        for _ in 1..digits {
            f.write_str("0")?;
        }
        return f.write_str("e0");
    }
    let mut y = x.abs();
    let mut e10 = libm::floor(libm::log10(h.abs().to_f64())) as i32;
    y = scale10(y, -e10);
    let ten = T::Base::from_i64(10);
    while y.hi() >= ten {
        y = y / T::from_base(ten);
        e10 += 1;
    }
    while y.hi() < T::Base::ONE {
        y = y.mul_base(ten);
        e10 -= 1;
    }
    let mut buf = [0u8; MAX_DIGITS + 1];
    for d in buf.iter_mut().take(digits) {
        let q = y.floor();
        let v = q.hi().to_i64().clamp(0, 9);
        *d = v as u8;
        y = (y - T::from_base(T::Base::from_i64(v))).mul_base(ten);
    }
    // Round half up on the remainder, propagating carries.
    if y.hi() >= T::Base::from_i64(5) {
        let mut i = digits;
        loop {
            if i == 0 {
                buf.copy_within(0..digits, 1);
                buf[0] = 1;
                e10 += 1;
                break;
            }
            i -= 1;
            if buf[i] == 9 {
                buf[i] = 0;
            } else {
                buf[i] += 1;
                break;
            }
        }
    }
    let mut text = [0u8; MAX_DIGITS + 2];
    text[0] = b'0' + buf[0];
    text[1] = b'.';
    for i in 1..digits {
        text[i + 1] = b'0' + buf[i];
    }
    let len = if digits == 1 { 1 } else { digits + 1 };
    f.write_str(core::str::from_utf8(&text[..len]).map_err(|_| fmt::Error)?)?;
    write!(f, "e{e10}")
}

/// Writes one base float as an exact hexadecimal float `±0x1.hhhp±e`.
fn fmt_hex_word<F: BaseFloat>(w: F, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let (negative, m, e) = w.decompose();
    let sign = if negative { "-" } else { "" };
    if !w.is_finite() {
        return write!(f, "{sign}{}", if w.is_nan() { "NaN" } else { "inf" });
    }
    if m == 0 {
        return write!(f, "{sign}0x0p+0");
    }
    let lz = m.leading_zeros();
    let frac = (m << lz) << 1;
    let exp = e + 63 - lz as i32;
    if frac == 0 {
        return write!(f, "{sign}0x1p{exp:+}");
    }
    let digits = 16 - (frac.trailing_zeros() / 4) as usize;
    let hex = frac >> (64 - 4 * digits as u32);
    write!(f, "{sign}0x1.{hex:0digits$x}p{exp:+}")
}

/// Hexadecimal form: the nonzero words, joined by ` + ` / ` - `.
pub(crate) fn fmt_hex<T: MultiFloat>(x: T, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let words = x.to_words();
    fmt_hex_word(words[0], f)?;
    for &w in words.iter().take(T::WORDS).skip(1) {
        if w == T::Base::ZERO {
            continue;
        }
        f.write_str(if w.is_sign_negative() { " - " } else { " + " })?;
        fmt_hex_word(w.abs(), f)?;
    }
    Ok(())
}

/// Parses one unsigned hexadecimal float `0x<hex>[.<hex>][p±e]` exactly.
fn parse_hex_word<T: MultiFloat>(s: &str) -> Result<T, ParseError> {
    let body = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .ok_or(ParseError)?;
    let (mantissa, exp) = match body.find(['p', 'P']) {
        Some(i) => (
            &body[..i],
            body[i + 1..].parse::<i32>().map_err(|_| ParseError)?,
        ),
        None => (body, 0),
    };
    let mut value = T::zero();
    let mut scale = exp;
    let mut seen_point = false;
    for c in mantissa.chars() {
        if c == '.' {
            seen_point = true;
            continue;
        }
        let d = c.to_digit(16).ok_or(ParseError)?;
        value = value.ldexp(4).add_base(T::Base::from_i64(d as i64));
        if seen_point {
            scale -= 4;
        }
    }
    Ok(value.ldexp(scale))
}

/// Parses the decimal form `[±]digits[.digits][e±n]` (a few ulps accurate).
fn parse_decimal<T: MultiFloat>(s: &str) -> Result<T, ParseError> {
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().map_err(|_| ParseError)?),
        None => (s, 0),
    };
    if mantissa.is_empty() || mantissa == "." {
        return Err(ParseError);
    }
    let mut value = T::zero();
    let mut exp10 = exp;
    let mut seen_point = false;
    let mut chunk: i64 = 0;
    let mut chunk_len = 0u32;
    let mut significant = 0usize;
    let flush = |value: T, chunk: i64, len: u32| -> T {
        value
            .mul_base(T::Base::from_i64(10i64.pow(len)))
            .add_base(T::Base::from_i64(chunk))
    };
    for c in mantissa.chars() {
        if c == '.' {
            if seen_point {
                return Err(ParseError);
            }
            seen_point = true;
            continue;
        }
        let d = c.to_digit(10).ok_or(ParseError)? as i64;
        if significant >= 90 {
            // Beyond any type's precision: only the position matters.
            if !seen_point {
                exp10 += 1;
            }
            continue;
        }
        if d != 0 || significant > 0 {
            significant += 1;
        }
        chunk = chunk * 10 + d;
        chunk_len += 1;
        if seen_point {
            exp10 -= 1;
        }
        if chunk_len == 6 {
            value = flush(value, chunk, chunk_len);
            chunk = 0;
            chunk_len = 0;
        }
    }
    if chunk_len > 0 {
        value = flush(value, chunk, chunk_len);
    }
    if value.is_zero() {
        return Ok(value);
    }
    Ok(scale10(value, exp10))
}

/// Parses decimal, hexadecimal (`0x...` words joined by `+`/`-`), `inf`, `nan`.
pub(crate) fn parse<T: MultiFloat>(s: &str) -> Result<T, ParseError> {
    let s = s.trim();
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.trim();
    let value = if lower.eq_ignore_ascii_case("inf") || lower.eq_ignore_ascii_case("infinity") {
        T::from_base(T::Base::INFINITY)
    } else if lower.eq_ignore_ascii_case("nan") {
        T::from_base(T::Base::NAN)
    } else if lower.starts_with("0x") || lower.starts_with("0X") {
        // The leading sign belongs to the first word only, as written by `fmt_hex`.
        let mut total = T::zero();
        let mut sign_next = negative;
        let mut expect_term = true;
        for token in lower.split_whitespace() {
            match token {
                "+" | "-" if !expect_term => {
                    sign_next = token == "-";
                    expect_term = true;
                }
                _ if expect_term => {
                    let w: T = parse_hex_word(token)?;
                    total = total + if sign_next { -w } else { w };
                    expect_term = false;
                }
                _ => return Err(ParseError),
            }
        }
        if expect_term {
            return Err(ParseError);
        }
        return Ok(total);
    } else {
        parse_decimal(lower)?
    };
    Ok(if negative { -value } else { value })
}

macro_rules! conversions {
    ($ty:ident) => {
        impl<F: BaseFloat> $ty<F> {
            /// Nearest `f64` (see the module docs for the rounding).
            pub fn to_f64(self) -> f64 {
                to_f64(self)
            }
            /// `f32` by way of [`to_f64`](Self::to_f64).
            pub fn to_f32(self) -> f32 {
                to_f64(self) as f32
            }
            /// Truncating, saturating conversion to `i64` (NaN gives 0).
            pub fn to_i64(self) -> i64 {
                to_i64(self)
            }
        }
        impl<F: BaseFloat> From<f64> for $ty<F> {
            fn from(x: f64) -> Self {
                from_f64(x)
            }
        }
        impl<F: BaseFloat> From<f32> for $ty<F> {
            fn from(x: f32) -> Self {
                from_f64(x as f64)
            }
        }
        impl<F: BaseFloat> From<i64> for $ty<F> {
            fn from(x: i64) -> Self {
                from_i64(x)
            }
        }
        impl<F: BaseFloat> From<u64> for $ty<F> {
            fn from(x: u64) -> Self {
                from_u64(x)
            }
        }
        impl<F: BaseFloat> fmt::Display for $ty<F> {
            /// Scientific notation; `{:.N}` gives `N` digits after the point.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let digits = f.precision().map_or(default_digits::<Self>(), |p| p + 1);
                fmt_decimal(*self, digits, f)
            }
        }
        impl<F: BaseFloat> fmt::LowerExp for $ty<F> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
        impl<F: BaseFloat> fmt::LowerHex for $ty<F> {
            /// Exact: the words as hexadecimal floats.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt_hex(*self, f)
            }
        }
        impl<F: BaseFloat> FromStr for $ty<F> {
            type Err = ParseError;
            fn from_str(s: &str) -> Result<Self, ParseError> {
                parse(s)
            }
        }
        #[cfg(feature = "rug")]
        impl<F: BaseFloat> $ty<F> {
            /// The exact value as an MPFR number (precision just large enough).
            pub fn to_rug(self) -> rug::Float {
                let words = self.to_words();
                if !words[0].is_finite() || words[0] == F::ZERO {
                    return rug::Float::with_val(64, words[0].to_f64());
                }
                let top = words[0].exponent();
                let bottom = words
                    .iter()
                    .filter(|w| **w != F::ZERO)
                    .map(|w| w.decompose().2)
                    .min()
                    .unwrap_or(top);
                let prec = (top - bottom + 2).max(64) as u32;
                let mut sum = rug::Float::with_val(prec, 0);
                for w in words.iter() {
                    sum += w.to_f64();
                }
                sum
            }
            /// Rounds an MPFR number word by word (successive round-to-nearest).
            pub fn from_rug(x: &rug::Float) -> Self {
                let mut rest = rug::Float::with_val(x.prec() + 64, x);
                let mut words = [F::ZERO; 4];
                for w in words.iter_mut().take(<Self as MultiFloat>::WORDS) {
                    *w = if F::MANTISSA_DIGITS == 24 {
                        F::from_f64(rest.to_f32() as f64)
                    } else {
                        F::from_f64(rest.to_f64())
                    };
                    if !w.is_finite() {
                        return <Self as MultiFloat>::from_base(*w);
                    }
                    rest -= w.to_f64();
                }
                <Self as MultiFloat>::from_expansion(&words)
            }
        }
    };
}

conversions!(DoubleWord);
conversions!(QuadWord);
