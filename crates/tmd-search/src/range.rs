//! Input ranges: every format number x with A <= x < B, as a half-open range of ordinals.

use tmd_core::number::parse_rounded;
use tmd_core::registry::Domain;
use tmd_core::{Format, FormatNumber, InputError};

/// An end of a search range as given: a number of the format, or an infinity. Infinities are
/// no inputs: `-inf` starts the range at the most negative finite number, `inf` ends it after
/// the largest, so `--from -inf --to inf` is every finite number.
#[derive(Clone, Debug, PartialEq)]
pub enum RangeEnd {
    Number(FormatNumber),
    Infinity { negative: bool },
}

impl RangeEnd {
    /// `inf`, `+inf`, `-inf` (also `infinity`), or a number rounded to the format; the flag
    /// says whether it was exact (infinities are).
    pub fn parse(text: &str, format: &Format) -> Result<(RangeEnd, bool), InputError> {
        let t = text.trim().to_ascii_lowercase();
        let (negative, magnitude) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(&t)),
        };
        if magnitude == "inf" || magnitude == "infinity" {
            return Ok((RangeEnd::Infinity { negative }, true));
        }
        let (x, exact) = parse_rounded(text, format)?;
        Ok((RangeEnd::Number(x), exact))
    }

    /// The number in hexadecimal, or `-inf` / `inf`.
    pub fn to_hex(&self) -> String {
        match self {
            RangeEnd::Number(x) => x.to_hex(),
            RangeEnd::Infinity { negative: true } => "-inf".to_string(),
            RangeEnd::Infinity { negative: false } => "inf".to_string(),
        }
    }

    /// The ordinal this end stands for: the number's own; for -inf the most negative finite
    /// number's, for inf one past the largest's.
    fn ordinal(&self, format: &Format) -> i128 {
        match self {
            RangeEnd::Number(x) => format.ordinal(x),
            RangeEnd::Infinity { negative: true } => -format.max_ordinal(),
            RangeEnd::Infinity { negative: false } => format.max_ordinal() + 1,
        }
    }
}

/// Every number x of `format` with from <= x < to. Zero is one input.
#[derive(Clone, Debug)]
pub struct InputRange {
    pub format: Format,
    /// Ordinal of the first input.
    pub start: i128,
    /// Ordinal one past the last input.
    pub end: i128,
}

impl InputRange {
    /// The range [from, to); empty or inverted ranges are errors.
    pub fn new(
        format: &Format,
        from: &FormatNumber,
        to: &FormatNumber,
    ) -> Result<Self, InputError> {
        Self::between(format, &RangeEnd::Number(*from), &RangeEnd::Number(*to))
    }

    /// The range [from, to) between two ends that may be infinities ([`RangeEnd`]).
    pub fn between(format: &Format, from: &RangeEnd, to: &RangeEnd) -> Result<Self, InputError> {
        let start = from.ordinal(format);
        let end = to.ordinal(format);
        if end <= start {
            return Err(InputError::Range(format!(
                "[{}, {}) holds no {} number (the range must satisfy from < to)",
                from.to_hex(),
                to.to_hex(),
                format.name()
            )));
        }
        Ok(InputRange {
            format: format.clone(),
            start,
            end,
        })
    }

    /// Number of inputs.
    pub fn len(&self) -> u128 {
        (self.end - self.start) as u128
    }

    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// The i-th input (0-based).
    pub fn input(&self, i: u128) -> FormatNumber {
        self.format.from_ordinal(self.start + i as i128)
    }

    /// Fails when no input of the range lies in `domain`: the hull test first, then members
    /// among the ends and evenly spaced samples (all of them for short ranges). For the
    /// discrete exclusions (poles of gamma, tanpi; zeta's 1; Ei's 0) a long range whose
    /// samples all miss consists of excluded numbers only: excluded sets are sparse except
    /// where every format number is an integer, and the last 64 inputs show that.
    pub fn check_domain(&self, domain: Domain, name: &str) -> Result<(), InputError> {
        let outside = || {
            InputError::Range(format!(
                "no input of [{}, {}) is in the domain of {name} ({})",
                self.input(0).to_hex(),
                self.format.from_ordinal(self.end).to_hex(),
                domain.describe()
            ))
        };
        let n = self.len();
        let hits = |i: u128| domain.contains_number(&self.input(i));
        if n <= 4096 {
            return if (0..n).any(hits) {
                Ok(())
            } else {
                Err(outside())
            };
        }
        let ends = (0..64).chain(n - 64..n);
        let spread = (0..256).map(|j| j * (n / 256));
        if ends.chain(spread).any(hits) || self.hull_overlaps_interior(domain) {
            Ok(())
        } else {
            Err(outside())
        }
    }

    /// Whether the range overlaps the interior of the domain's hull in more than one number
    /// (interval domains are convex, so then some input is a member).
    fn hull_overlaps_interior(&self, domain: Domain) -> bool {
        let (lo, hi) = domain.hull();
        if lo.is_none() && hi.is_none() {
            return false; // a discrete exclusion: decided by the samples
        }
        let first = self.input(0).to_float();
        let last = self.input(self.len() - 1).to_float();
        lo.is_none_or(|l| last > l) && hi.is_none_or(|h| first < h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tmd_core::number::parse_exact;

    fn range(fmt: &Format, a: &str, b: &str) -> Result<InputRange, InputError> {
        InputRange::new(
            fmt,
            &parse_exact(a, fmt).unwrap(),
            &parse_exact(b, fmt).unwrap(),
        )
    }

    #[test]
    fn ranges_count_inputs_across_zero_and_binades() {
        let h = Format::binary16();
        assert_eq!(range(&h, "1", "2").unwrap().len(), 1024);
        assert_eq!(range(&h, "-1", "1").unwrap().len(), 2 * 15360);
        assert_eq!(range(&h, "0.5", "2").unwrap().len(), 2048);
        assert!(range(&h, "2", "1").is_err());
        assert!(range(&h, "1", "1").is_err());
    }

    #[test]
    fn domains_reject_ranges_that_miss_them() {
        let d = Format::binary64();
        let r = range(&d, "-2", "0").unwrap();
        assert!(r.check_domain(Domain::Positive, "log").is_err());
        let r = range(&d, "-2", "0x1p-1074").unwrap();
        assert!(r.check_domain(Domain::Positive, "log").is_err());
        assert!(r.check_domain(Domain::NonNegative, "sqrt").is_ok());
        let r = range(&d, "-0x1p60", "-0x1p52").unwrap();
        assert!(r
            .check_domain(Domain::NotNonPositiveInteger, "gamma")
            .is_err());
        let r = range(&d, "-0x1p60", "-3").unwrap();
        assert!(r
            .check_domain(Domain::NotNonPositiveInteger, "gamma")
            .is_ok());
        let r = range(&d, "2", "3").unwrap();
        assert!(r.check_domain(Domain::UnitClosed, "asin").is_err());
        let r = range(&d, "-3", "3").unwrap();
        assert!(r.check_domain(Domain::UnitClosed, "asin").is_ok());
    }
}
