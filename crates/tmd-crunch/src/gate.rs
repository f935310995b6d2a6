//! The `--max-ulp X` gate of `tmd crunch`: whether a run's results meet an error bound, the
//! same rule for ranges, input lists and pairs, and the texts that keep an error's order
//! against the bound when printed ([`ulps_text`], [`limit_text`]).
//!
//! A failed gate is [`GateFailed`]: the run itself went well (exit 1, not bad input), and a
//! run of several rounding modes reports every mode before the first failure is returned.

use crate::summary::{Outcome, Specials};

/// A `--max-ulp` gate that the results did not pass; the text says why.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct GateFailed(String);

/// What `--max-ulp` looks at in a report.
pub struct GateInput<'a> {
    pub max_ulp: Option<f64>,
    pub argmax: Option<&'a str>,
    /// Results not correctly rounded (faithful or worse, special classes included).
    pub not_correctly_rounded: u64,
    /// Results worse than faithful without a finite error
    /// (`Summary::worse_without_finite_error`).
    pub worse_without_error: u64,
    pub specials: &'a Specials,
}

impl<'a> GateInput<'a> {
    /// The gate's view of a report's outcome, its argument as printed (`argmax`: a pair's
    /// two numbers joined).
    pub fn new<X>(outcome: &'a Outcome<X>, argmax: Option<&'a str>) -> GateInput<'a> {
        GateInput {
            max_ulp: outcome.max_ulp,
            argmax,
            not_correctly_rounded: outcome.faithful + outcome.worse,
            worse_without_error: outcome.worse_without_finite_error(),
            specials: &outcome.specials,
        }
    }
}

/// [`gate`] when `--max-ulp` was given, Ok otherwise.
pub fn apply_gate(limit: Option<f64>, r: &GateInput) -> Result<(), GateFailed> {
    limit.map_or(Ok(()), |limit| gate(limit, r))
}

/// `--max-ulp X`: Ok when the results meet X, why not otherwise.
/// X <= 0.5 asks for every result correctly rounded. Above, every finite error must be at most
/// X (errors compared as binary64 numbers), and results without a finite error count as
/// infinitely wrong when they are spurious (NaN or inf where a number is due, a number where
/// NaN is due, anything but the right infinity at a pole, anything but infinity or the largest
/// finite number where the result overflows), and as one ulp when faithful at an overflow (the
/// largest finite number instead of infinity).
pub fn gate(limit: f64, r: &GateInput) -> Result<(), GateFailed> {
    let shown = limit_text(limit);
    if limit <= 0.5 {
        if r.not_correctly_rounded > 0 {
            return Err(GateFailed(format!(
                "{} not correctly rounded{} (--max-ulp {shown} asks for every result correctly \
                 rounded)",
                results(r.not_correctly_rounded),
                match (r.max_ulp, r.argmax) {
                    (Some(m), Some(x)) => {
                        format!("; max error {} ulp at x = {x}", ulps_text(m, Some(limit)))
                    }
                    _ => String::new(),
                }
            )));
        }
        return Ok(());
    }
    if let (Some(m), Some(x)) = (r.max_ulp, r.argmax) {
        if m > limit {
            return Err(GateFailed(format!(
                "max error {} ulp at x = {x} exceeds --max-ulp {shown}",
                ulps_text(m, Some(limit))
            )));
        }
    }
    let s = r.specials;
    let spurious = r.worse_without_error;
    if spurious > 0 {
        return Err(GateFailed(format!(
            "{} NaN or infinite where a number is due, a number where NaN or infinity is due, \
             or far from an overflowing result (--max-ulp {shown})",
            results(spurious)
        )));
    }
    if s.overflow_wrong > 0 && limit < 1.0 {
        return Err(GateFailed(format!(
            "{} the largest finite number where infinity is due (--max-ulp {shown})",
            results(s.overflow_wrong)
        )));
    }
    Ok(())
}

/// An error in ulps as printed: six decimals, or with a threshold as many more as it takes
/// for the printed value to compare with it as the error does (1.000000000000034 above 1 is
/// not printed "1.000000", nor 2.999999999999988 below 3 "3.000000").
pub fn ulps_text(err: f64, limit: Option<f64>) -> String {
    let six = format!("{err:.6}");
    let Some(limit) = limit else { return six };
    let order = err.partial_cmp(&limit);
    // 1100 decimals write any binary64 number exactly, so the loop always ends with a match.
    (6..=1100)
        .map(|digits| format!("{err:.digits$}"))
        .find(|text| text.parse::<f64>().ok().and_then(|v| v.partial_cmp(&limit)) == order)
        .unwrap_or(six)
}

/// `--max-ulp X` as echoed: the shortest decimal that reads back as X, in exponent form where
/// the plain one is long (1e300 rather than 301 digits).
pub fn limit_text(limit: f64) -> String {
    let plain = format!("{limit}");
    if plain.len() > 20 {
        format!("{limit:e}")
    } else {
        plain
    }
}

/// "1 result is" / "n results are".
fn results(n: u64) -> String {
    if n == 1 {
        "1 result is".into()
    } else {
        format!("{n} results are")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::Argmax;

    /// An outcome of `faithful` results, the largest `max_ulp`.
    fn faithful_outcome(max_ulp: f64, faithful: u64) -> Outcome<&'static str> {
        let mut total = crate::summary::Summary {
            faithful,
            ..Default::default()
        };
        total.histogram[1] = faithful;
        let max = Argmax {
            err: max_ulp,
            x: "0x1p+0",
            result: String::new(),
            expected: String::new(),
        };
        Outcome::new(&total, Some(max), None)
    }

    #[test]
    fn printed_errors_keep_their_order_against_the_bound() {
        let above = 1.0 + f64::EPSILON;
        assert_eq!(ulps_text(above, None), "1.000000");
        assert!(ulps_text(above, Some(1.0)).parse::<f64>().unwrap() > 1.0);
        let below = 3.0 - 4.0 * f64::EPSILON;
        assert!(ulps_text(below, Some(3.0)).parse::<f64>().unwrap() < 3.0);
        assert_eq!(ulps_text(0.75, Some(1.0)), "0.750000");
    }

    #[test]
    fn bounds_are_echoed_short() {
        assert_eq!(limit_text(0.5), "0.5");
        assert_eq!(limit_text(1e300), "1e300");
    }

    #[test]
    fn half_an_ulp_asks_for_correct_rounding_and_more_for_the_bound() {
        let outcome = faithful_outcome(0.75, 2);
        let faithful = GateInput::new(&outcome, Some("0x1p+0"));
        let refused = gate(0.5, &faithful).unwrap_err().to_string();
        assert!(refused.starts_with("2 results are not correctly rounded; max error 0.750000"));
        assert!(gate(1.0, &faithful).is_ok());
        let exceeded = gate(0.7, &faithful).unwrap_err().to_string();
        assert_eq!(
            exceeded,
            "max error 0.750000 ulp at x = 0x1p+0 exceeds --max-ulp 0.7"
        );
        assert!(apply_gate(None, &faithful).is_ok());
    }
}
