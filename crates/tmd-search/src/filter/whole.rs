//! Pieces of a range decided from one interval enclosure of f over the whole piece.
//!
//! Where every result of a piece overflows, or lies so close to zero that it cannot be near a
//! breakpoint, or where the piece lies beyond an end of the function's domain, no input needs
//! a polynomial or MPFR: one enclosure of f over the piece decides all of them. The rules are
//! the per-input decision's (`tmd_core::hardness`): |y| >= 2^(emax+1) is an overflow; zero is
//! never a breakpoint of a nonzero result, so for 0 < |y| <= 2^(qmin-2) the nearest breakpoint
//! is the midpoint 2^(qmin-1), at least 1/4 ulp away, which is not below 2^-K for K >= 2
//! (docs/error-analysis.md §4.7); outside the domain's hull every input is undefined.
//!
//! In binary64 these pieces are most of the domain of the exponentials (exp(x) overflows for
//! x > 709.79 and is below 2^-1076 for x < -745.9: 2 × 2^62 inputs). Decided chunk by chunk,
//! at 2^34 inputs a chunk, they would cost 2^18 enclosures a binade; [`split_searched`] finds
//! them per binade piece instead, by bisection where an enclosure straddles a threshold, so a
//! binade costs a few enclosures and the threshold binades about two per level of bisection.

use crate::Target;
use rug::Float;
use tmd_core::format::Format;
use tmd_core::interval::{Eval, Interval};

/// How every input of a piece is decided, where one enclosure decides them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WholeVerdict {
    /// Every result overflows.
    Overflow,
    /// Every result is nonzero and at most 2^(qmin-2) in magnitude: none is hard.
    Tiny,
    /// Every input lies beyond an end of the domain's hull.
    Undefined,
}

impl WholeVerdict {
    /// The name `--plan` prints.
    pub fn name(self) -> &'static str {
        match self {
            WholeVerdict::Overflow => "whole: overflow",
            WholeVerdict::Tiny => "whole: tiny results",
            WholeVerdict::Undefined => "whole: outside domain",
        }
    }
}

/// What one enclosure over the ordinals `[start, end)` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Enclosure {
    Decided(WholeVerdict),
    /// Not decided, but the enclosure reaches a threshold (or the domain's hull ends inside
    /// the piece): a part of the piece may be decided.
    Straddles,
    /// Not decided, and no part of the piece can be.
    Open,
}

/// Decides `[start, end)` from one enclosure of f, where one decides it.
pub fn whole_verdict(
    target: &Target,
    format: &Format,
    bits: u32,
    start: i128,
    end: i128,
) -> Option<WholeVerdict> {
    match enclose(target, format, bits, start, end) {
        Enclosure::Decided(v) => Some(v),
        _ => None,
    }
}

fn enclose(target: &Target, format: &Format, bits: u32, start: i128, end: i128) -> Enclosure {
    let lo = format.from_ordinal(start).to_float();
    let hi = format.from_ordinal(end - 1).to_float();
    if let Some(func) = target.function() {
        let (min, max) = func.domain().hull();
        if min.is_some_and(|m| hi < m) || max.is_some_and(|m| lo > m) {
            return Enclosure::Decided(WholeVerdict::Undefined);
        }
        if min.is_some_and(|m| lo < m) || max.is_some_and(|m| hi > m) {
            return Enclosure::Straddles;
        }
    }
    let x = Interval {
        nonzero: lo > 0 || hi < 0,
        exact: lo == hi,
        lo,
        hi,
    };
    let Eval::Value(y) = target.expr.eval_over(&x, 128) else {
        return Enclosure::Open;
    };
    // MPFR underflows exp(-2^100) to 0: the enclosure's lower end is then 0 although every
    // value is positive, which the registry knows for a few functions.
    let positive_function = target.function().is_some_and(|f| f.strictly_positive());
    let (small, large) = if y.lo > 0 || (positive_function && y.hi > 0) {
        (y.lo, y.hi)
    } else if y.hi < 0 {
        (-y.hi, -y.lo)
    } else {
        return Enclosure::Open;
    };
    let overflow = Float::with_val(2, 1) << (format.emax() + 1);
    let tiny = Float::with_val(2, 1) << (format.qexp_min() - 2);
    if small >= overflow {
        Enclosure::Decided(WholeVerdict::Overflow)
    } else if large <= tiny && bits >= 2 {
        Enclosure::Decided(WholeVerdict::Tiny)
    } else if large >= overflow || (small <= tiny && bits >= 2) {
        Enclosure::Straddles
    } else {
        Enclosure::Open
    }
}

/// `[start, end)` (one input quantum), left to the filter, cut into the parts one enclosure
/// each decides (`Some(verdict)`) and the parts between them (`None`, searched), in order,
/// tiling the range. The decided parts are found by halving where an enclosure straddles a
/// threshold, down to `min_len` inputs (chunks below that are decided one by one, by
/// [`whole_verdict`], as they are searched).
pub fn split_searched(
    target: &Target,
    format: &Format,
    bits: u32,
    start: i128,
    end: i128,
    min_len: u64,
) -> Vec<(i128, i128, Option<WholeVerdict>)> {
    let bisection = Bisection {
        target,
        format,
        bits,
        min_len,
    };
    let mut decided = Vec::new();
    if start < end {
        bisection.collect(start, end, &mut decided);
    }
    let mut parts = Vec::new();
    let mut at = start;
    for (s, e, verdict) in decided {
        if at < s {
            parts.push((at, s, None));
        }
        parts.push((s, e, Some(verdict)));
        at = e;
    }
    if at < end {
        parts.push((at, end, None));
    }
    parts
}

/// What the bisection of [`split_searched`] holds fixed.
struct Bisection<'a> {
    target: &'a Target,
    format: &'a Format,
    bits: u32,
    min_len: u64,
}

impl Bisection<'_> {
    /// Appends the decided parts of `[start, end)`, joining neighbours of one verdict.
    fn collect(&self, start: i128, end: i128, found: &mut Vec<(i128, i128, WholeVerdict)>) {
        match enclose(self.target, self.format, self.bits, start, end) {
            Enclosure::Decided(v) => match found.last_mut() {
                Some(last) if last.1 == start && last.2 == v => last.1 = end,
                _ => found.push((start, end, v)),
            },
            Enclosure::Straddles if end - start > 2 * self.min_len as i128 => {
                let mid = start + (end - start) / 2;
                self.collect(start, mid, found);
                self.collect(mid, end, found);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decided parts of [`split_searched`].
    fn whole_pieces(
        target: &Target,
        format: &Format,
        bits: u32,
        start: i128,
        end: i128,
        min_len: u64,
    ) -> Vec<(i128, i128, WholeVerdict)> {
        let parts = split_searched(target, format, bits, start, end, min_len);
        assert_eq!((parts[0].0, parts[parts.len() - 1].1), (start, end));
        assert!(parts.windows(2).all(|w| w[0].1 == w[1].0), "{parts:?}");
        parts
            .into_iter()
            .filter_map(|(s, e, v)| v.map(|v| (s, e, v)))
            .collect()
    }

    fn ordinal(format: &Format, x: f64) -> i128 {
        let q = rug::Rational::from_f64(x).expect("finite");
        let (n, _) = tmd_core::number::round_to_format(&q, format).expect("in range");
        format.ordinal(&n)
    }

    #[test]
    fn exp_beyond_its_thresholds_is_decided_in_a_few_pieces() {
        let format = Format::binary64();
        let target = Target::parse("exp").expect("exp");
        // [2^9, 2^10): overflow from 709.78 on, found by bisection to within 2^34 inputs.
        let (s, e) = (ordinal(&format, 512.0), ordinal(&format, 1024.0));
        let pieces = whole_pieces(&target, &format, 45, s, e, 1 << 34);
        assert_eq!(pieces.len(), 1, "{pieces:?}");
        let (from, to, v) = pieces[0];
        assert_eq!((to, v), (e, WholeVerdict::Overflow));
        // 0x1.62e42fefa39fp+9 is the least input whose exp overflows.
        let threshold = ordinal(&format, f64::from_bits(0x4086_2e42_fefa_39f0));
        assert!(
            from >= threshold && from <= threshold + (1 << 35),
            "{from} {threshold}"
        );
        // [-2^10, -2^9): tiny below about -745.9, searched above.
        let (s, e) = (ordinal(&format, -1024.0), ordinal(&format, -512.0));
        let pieces = whole_pieces(&target, &format, 45, s, e, 1 << 34);
        assert_eq!(pieces.len(), 1, "{pieces:?}");
        assert_eq!((pieces[0].0, pieces[0].2), (s, WholeVerdict::Tiny));
        assert!(pieces[0].1 <= ordinal(&format, -745.0));
        // A binade far from both: one enclosure, nothing decided.
        let (s, e) = (ordinal(&format, 1.0), ordinal(&format, 2.0));
        assert!(whole_pieces(&target, &format, 45, s, e, 1 << 34).is_empty());
    }

    #[test]
    fn inputs_beyond_the_domain_are_undefined_as_a_whole() {
        let format = Format::binary64();
        let target = Target::parse("log").expect("log");
        let (s, e) = (ordinal(&format, -4.0), ordinal(&format, -2.0));
        assert_eq!(
            whole_pieces(&target, &format, 45, s, e, 1 << 34),
            vec![(s, e, WholeVerdict::Undefined)]
        );
    }
}
