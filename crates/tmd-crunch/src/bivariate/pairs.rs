//! The sets of pairs a run crunches: every pair of binary16 numbers, a list read from a file,
//! a seeded random sample, or a structured sample of pow's exact results and midpoints.

use super::format::{binary16_value, PairFormat};
use crate::format::IeeeFormat;
use crate::input_list::{BadLines, LineInputs, ListReader, SkippedLines};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::BufRead;
use tmd_core::number::parse_exact;
use tmd_core::InputError;

/// Pairs, each with an index (the order of the run, and the key of its maximum).
#[derive(Clone, Debug)]
pub enum PairSet {
    /// Every pair of binary16 bit patterns, NaNs and infinities included (2^32): index
    /// `(bits of the first argument << 16) | bits of the second`.
    AllBinary16,
    /// Explicit pairs, indexed by position.
    Listed(Vec<(f64, f64)>),
}

impl PairSet {
    pub fn len(&self) -> u64 {
        match self {
            PairSet::AllBinary16 => 1 << 32,
            PairSet::Listed(p) => p.len() as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pair of index `i`.
    pub fn pair(&self, i: u64) -> (f64, f64) {
        match self {
            PairSet::AllBinary16 => (binary16_value((i >> 16) as u16), binary16_value(i as u16)),
            PairSet::Listed(p) => p[i as usize],
        }
    }
}

/// One argument of a list: a number of the format (hex or decimal, exactly), or `nan`,
/// `inf`, `-inf`.
fn argument(token: &str, fmt: PairFormat) -> Result<f64, String> {
    match token.to_ascii_lowercase().as_str() {
        "nan" | "+nan" | "-nan" => return Ok(f64::NAN),
        "inf" | "+inf" | "infinity" => return Ok(f64::INFINITY),
        "-inf" | "-infinity" => return Ok(f64::NEG_INFINITY),
        _ => {}
    }
    let x = parse_exact(token, &fmt.core()).map_err(|e| e.to_string())?;
    let v = x.to_float().to_f64();
    Ok(if v == 0.0 && token.starts_with('-') {
        -0.0
    } else {
        v
    })
}

/// The lines of a list of pairs: two numbers a line (`x y`, whitespace or a comma between
/// them), of `format`, arguments of `function` (which names it in messages).
struct PairLines<'a> {
    format: PairFormat,
    function: &'a str,
}

impl LineInputs for PairLines<'_> {
    type Input = (f64, f64);

    fn input_of_line(&mut self, line: &str) -> Result<Option<(f64, f64)>, String> {
        let text = line.split('#').next().unwrap_or("");
        let tokens: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .collect();
        match tokens.as_slice() {
            [] => Ok(None),
            [a, b] => Ok(Some((argument(a, self.format)?, argument(b, self.format)?))),
            _ => Err(format!(
                "{} takes two arguments: expected two numbers, found {}",
                self.function,
                tokens.len()
            )),
        }
    }
}

/// Reads a list of pairs ([`PairLines`]), blank lines and `#` comments skipped. A line with
/// another count, or a number that is not one of the format, is an error naming the line
/// under [`BadLines::Refuse`], skipped and counted in the returned [`SkippedLines`] under
/// [`BadLines::Skip`].
pub fn read_list(
    reader: impl BufRead,
    name: &str,
    (format, function): (PairFormat, &str),
    policy: BadLines,
) -> Result<(Vec<(f64, f64)>, SkippedLines), InputError> {
    let mut list =
        ListReader::with_lines(reader, name, PairLines { format, function }).bad_lines(policy);
    let pairs = std::iter::from_fn(|| list.next_input())
        .map(|item| item.map(|(_, pair)| pair))
        .collect::<Result<_, _>>()?;
    Ok((pairs, list.not_inputs().clone()))
}

/// A finite number of the format with a uniformly random bit pattern (sign included).
fn random_finite(fmt: PairFormat, rng: &mut ChaCha8Rng) -> f64 {
    let max = fmt.ordinal(fmt.max_finite());
    let ord = rng.gen_range(0..=max);
    let v = fmt.from_ordinal(ord);
    if rng.gen::<bool>() {
        -v
    } else {
        v
    }
}

/// `n` pairs whose arguments are finite numbers of uniformly random bit patterns (every binade
/// equally likely), from the seed.
pub fn random_sample(fmt: PairFormat, n: u64, seed: u64) -> Vec<(f64, f64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| (random_finite(fmt, &mut rng), random_finite(fmt, &mut rng)))
        .collect()
}

/// Bit length of an integer.
fn bits(v: u128) -> u32 {
    128 - v.leading_zeros()
}

/// `v^k` when it has at most `limit` bits.
fn power_within(v: u128, k: u32, limit: u32) -> Option<u128> {
    let mut acc: u128 = 1;
    for _ in 0..k {
        acc = acc.checked_mul(v).filter(|&a| bits(a) <= limit)?;
    }
    Some(acc)
}

/// One structured pair of pow, or `None` when the draw has no place in the format: x =
/// ±m^(2^j) 2^(e 2^j) and y = k / 2^j with m odd, so x^y = m^k 2^(e k) exactly; m^k has at
/// most p bits (an exact result) or exactly p + 1 (an odd multiple of half an ulp: a
/// midpoint). Negative x only at integer y; negative y only for m = 1.
fn structured_pow_pair(
    fmt: PairFormat,
    midpoint: bool,
    rng: &mut ChaCha8Rng,
) -> Option<(f64, f64)> {
    let p = fmt.precision() as u32;
    let target_bits = result_bits(p, midpoint, 1, rng);
    // A midpoint needs k >= 2: x = m^(2^j) has at most p bits.
    let k = rng.gen_range(u32::from(midpoint) + 1..=target_bits.min(64));
    let m_bits = target_bits.div_ceil(k);
    let m: u128 = if m_bits <= 1 {
        1
    } else {
        (1u128 << (m_bits - 1)) | rng.gen_range(0..1u128 << (m_bits - 1)) | 1
    };
    let result = power_within(m, k, p + 1)?;
    if (midpoint && bits(result) != p + 1) || (!midpoint && bits(result) > p) {
        return None;
    }
    let max_j = (0..=6)
        .take_while(|&j| power_within(m, 1 << j, p).is_some())
        .last()?;
    let j = rng.gen_range(0..=max_j);
    let x_int = power_within(m, 1 << j, p)?;
    let (bx, bl) = (bits(x_int) as i64, bits(result) as i64);
    let (emin, emax) = (i64::from(fmt.emin()), i64::from(fmt.emax()));
    let step = 1i64 << j;
    let k64 = i64::from(k);
    let negative_y = m == 1 && rng.gen::<bool>();
    let ky = if negative_y { -k64 } else { k64 };
    // Both x = x_int 2^(e step) and x^y = result 2^(e ky) normal: floor(log2) in [emin, emax],
    // i.e. e s in [emin - b + 1, emax - b + 1] for (b, s) = (bx, step) and (bl, ky).
    let range = |b: i64, s: i64| {
        let (lo, hi) = (emin - b + 1, emax - b + 1);
        let (lo, hi, s) = if s > 0 { (lo, hi, s) } else { (-hi, -lo, -s) };
        (-((-lo).div_euclid(s)), hi.div_euclid(s))
    };
    let (lo1, hi1) = range(bx, step);
    let (lo2, hi2) = range(bl, ky);
    let (lo, hi) = (lo1.max(lo2), hi1.min(hi2));
    if lo > hi {
        return None;
    }
    let e = rng.gen_range(lo..=hi);
    let mut x = libm::scalbn(x_int as f64, (e * step) as i32);
    if j == 0 && rng.gen::<bool>() {
        x = -x;
    }
    let y = ky as f64 / step as f64;
    Some((x, y))
}

/// `n` structured pairs of pow from the seed, exact results and midpoints in turn
/// ([`structured_pow_pair`]): the inputs where incorrectly rounded pow implementations fail.
pub fn structured_pow(fmt: PairFormat, n: u64, seed: u64) -> Vec<(f64, f64)> {
    structured(fmt, n, seed, structured_pow_pair)
}

/// The significant bits of a structured result: p + 1 for a midpoint, else from `least` to p.
fn result_bits(p: u32, midpoint: bool, least: u32, rng: &mut ChaCha8Rng) -> u32 {
    if midpoint {
        p + 1
    } else {
        rng.gen_range(least..=p)
    }
}

/// A drawer of one structured pair: exact result (false) or midpoint (true), `None` when the
/// draw has no place in the format.
type PairDraw = fn(PairFormat, bool, &mut ChaCha8Rng) -> Option<(f64, f64)>;

/// `n` pairs from `draw` and the seed, exact results and midpoints in turn.
fn structured(fmt: PairFormat, n: u64, seed: u64, draw: PairDraw) -> Vec<(f64, f64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n as usize);
    while (out.len() as u64) < n {
        let midpoint = out.len() % 2 == 1;
        if let Some(pair) = draw(fmt, midpoint, &mut rng) {
            out.push(pair);
        }
    }
    out
}

/// One structured pair of hypot, or `None` when the draw has no place in the format: the legs
/// `k (u^2 - v^2) 2^e` and `k 2uv 2^e` of a Pythagorean triple (u > v > 0 coprime, of opposite
/// parity, so the hypotenuse `c = u^2 + v^2` is odd) and k odd, so that hypot is exactly
/// `k c 2^e`: a number of the format when `k c` has at most p bits, a midpoint between two
/// when it has exactly p + 1 (odd, so not a number of p bits). Legs, hypotenuse and signs
/// random; every value normal.
fn structured_hypot_pair(
    fmt: PairFormat,
    midpoint: bool,
    rng: &mut ChaCha8Rng,
) -> Option<(f64, f64)> {
    let p = fmt.precision() as u32;
    let target_bits = result_bits(p, midpoint, 3, rng);
    // c = u^2 + v^2 has about twice u's bits; k fills the rest of the target.
    let u_bits = rng.gen_range(2..=target_bits.div_ceil(2).max(2));
    let u: u128 = (1u128 << (u_bits - 1)) | rng.gen_range(0..1u128 << (u_bits - 1));
    let v: u128 = rng.gen_range(1..u);
    if (u - v).is_multiple_of(2) || gcd(u, v) != 1 {
        return None;
    }
    let (a0, b0, c0) = (u * u - v * v, 2 * u * v, u * u + v * v);
    // k odd with k c0 of exactly target_bits bits.
    let (lo, hi) = (
        (1u128 << (target_bits - 1)).div_ceil(c0),
        ((1u128 << target_bits) - 1) / c0,
    );
    if lo > hi {
        return None;
    }
    let k = rng.gen_range(lo..=hi) | 1;
    let (a, b, c) = (k * a0, k * b0, k * c0);
    if k > hi || bits(c) != target_bits || bits(a) > p || bits(b) > p {
        return None;
    }
    // Every value normal: floor(log2) of the smaller leg at least emin, of c at most emax.
    let (emin, emax) = (i64::from(fmt.emin()), i64::from(fmt.emax()));
    let smaller = bits(a.min(b)) as i64;
    let (e_lo, e_hi) = (emin - smaller + 1, emax - bits(c) as i64 + 1);
    if e_lo > e_hi {
        return None;
    }
    let e = rng.gen_range(e_lo..=e_hi) as i32;
    let sign = |rng: &mut ChaCha8Rng| if rng.gen::<bool>() { -1.0 } else { 1.0 };
    let x = sign(rng) * libm::scalbn(a as f64, e);
    let y = sign(rng) * libm::scalbn(b as f64, e);
    Some(if rng.gen::<bool>() { (x, y) } else { (y, x) })
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `n` structured pairs of hypot from the seed, exact results and midpoints in turn
/// ([`structured_hypot_pair`]).
pub fn structured_hypot(fmt: PairFormat, n: u64, seed: u64) -> Vec<(f64, f64)> {
    structured(fmt, n, seed, structured_hypot_pair)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn a_list_line_needs_exactly_two_numbers_of_the_format() {
        let fmt = PairFormat::Binary32;
        let read = |text: &str| {
            read_list(
                Cursor::new(text.to_string()),
                "l",
                (fmt, "pow"),
                BadLines::Refuse,
            )
            .map(|(pairs, _)| pairs)
        };
        let got = read("# c\n0x1p+1 3\n\n-0, nan # x\n").unwrap();
        assert_eq!(got[0], (2.0, 3.0));
        assert!(got[1].0 == 0.0 && got[1].0.is_sign_negative() && got[1].1.is_nan());
        let e = read("1 2\n1\n").unwrap_err();
        assert!(
            e.to_string().contains("l:2: pow takes two arguments"),
            "{e}"
        );
        let e = read("1 2 3\n").unwrap_err();
        assert!(e.to_string().contains("found 3"), "{e}");
        let e = read("0x1.000001p+0 1\n").unwrap_err();
        assert!(e.to_string().contains("l:1:"), "{e}");
        // Skipped instead: counted, the first ones kept with their lines.
        let text = "1 2\n1\n0x1.000001p+0 1\n3 4\nError 10290\n5 6 7\n";
        let (pairs, skipped) =
            read_list(Cursor::new(text), "l", (fmt, "pow"), BadLines::Skip).unwrap();
        assert_eq!(pairs, vec![(1.0, 2.0), (3.0, 4.0)]);
        assert_eq!(skipped.count, 4);
        let lines: Vec<usize> = skipped.first.iter().map(|s| s.line).collect();
        assert_eq!(lines, vec![2, 3, 5]);
    }

    #[test]
    fn samples_depend_only_on_the_seed_and_hold_finite_numbers_of_the_format() {
        for fmt in [
            PairFormat::Binary16,
            PairFormat::Binary32,
            PairFormat::Binary64,
        ] {
            let s = random_sample(fmt, 1000, 7);
            assert_eq!(s, random_sample(fmt, 1000, 7));
            assert_ne!(s, random_sample(fmt, 1000, 8));
            for &(a, b) in &s {
                assert!(a.is_finite() && b.is_finite() && fmt.contains(a) && fmt.contains(b));
            }
        }
    }

    #[test]
    fn structured_pow_pairs_are_exact_results_or_midpoints() {
        use rug::Float;
        for fmt in [
            PairFormat::Binary16,
            PairFormat::Binary32,
            PairFormat::Binary64,
        ] {
            let p = fmt.precision() as u32;
            let pairs = structured_pow(fmt, 300, 3);
            let mut midpoints = 0;
            for &(x, y) in &pairs {
                assert!(fmt.contains(x) && fmt.contains(y), "{x} {y}");
                let (v, t) =
                    super::super::BiFunc::Pow.mpfr(x, y, 2 * p + 10, rug::float::Round::Nearest);
                assert_eq!(t, 0, "pow({x:e}, {y:e}) is not exact");
                let as_p1 = Float::with_val(p + 1, &v);
                assert_eq!(as_p1, v, "pow({x:e}, {y:e}) has more than p + 1 bits");
                midpoints += usize::from(Float::with_val(p, &v) != v);
            }
            assert_eq!(midpoints, 150, "{}: {midpoints}", fmt.name());
        }
    }

    /// hypot of every structured pair is exact with at most p + 1 bits, every other one a
    /// midpoint (p + 1 bits), by MPFR.
    #[test]
    fn structured_hypot_pairs_are_exact_results_or_midpoints() {
        use rug::Float;
        for fmt in [
            PairFormat::Binary16,
            PairFormat::Binary32,
            PairFormat::Binary64,
        ] {
            let p = fmt.precision() as u32;
            let pairs = structured_hypot(fmt, 300, 5);
            assert_eq!(pairs, structured_hypot(fmt, 300, 5));
            let mut midpoints = 0;
            for &(x, y) in &pairs {
                assert!(fmt.contains(x) && fmt.contains(y), "{x} {y}");
                let (v, t) =
                    super::super::BiFunc::Hypot.mpfr(x, y, 2 * p + 10, rug::float::Round::Nearest);
                assert_eq!(t, 0, "hypot({x:e}, {y:e}) is not exact");
                assert_eq!(Float::with_val(p + 1, &v), v, "hypot({x:e}, {y:e})");
                midpoints += usize::from(Float::with_val(p, &v) != v);
            }
            assert_eq!(midpoints, 150, "{}: {midpoints}", fmt.name());
        }
    }
}
