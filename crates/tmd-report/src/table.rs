//! The data of `tmd report`'s tables (each cell's result, its place in the matrix, the
//! heading), the rounding of its figures, and the CSV; the Markdown and HTML pages are built
//! in [`crate::sections`].
//!
//! The layout follows Gladman, Innocente, Mather and Zimmermann, "Accuracy of Mathematical
//! Functions in Single, Double, Double Extended, and Quadruple Precision" (2024): one row per
//! function, one column per library (here per library and rounding mode), each cell the
//! largest known error in ulps rounded upwards to three significant digits, so that a printed
//! bound is never below the measured error (0.5 prints `0.500`, 1.9301 prints `1.94`), with
//! the argument where it occurs. Rendering is pure: the same cells give the same text, which
//! is what lets a resumed report equal an uninterrupted one; only the heading (date, command)
//! and the timings section differ between runs.

use serde::{Deserialize, Serialize};
use tmd_crunch::checkpoint::Header;
use tmd_crunch::Rounding;

pub use crate::sections::{html, markdown};

/// One finished cell, as `DIR/cells/NAME.json` holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellResult {
    /// The crunch run's checkpoint header (target, format, mode, range, blocks, sample,
    /// reference): which run this cell is, checked when a report resumes.
    pub header: Header,
    /// The input lists evaluated besides the range, as given on the command line.
    pub inputs_files: Vec<String>,
    /// Inputs evaluated: the range's, plus the lists' (an input in both counts twice).
    pub inputs: u64,
    /// Whether the range part was a sample of windows rather than every input.
    pub sampled: bool,
    /// Largest error in ulps over range and lists, exact at `argmax`.
    pub max_ulp: Option<f64>,
    /// False when more inputs lay near the maximum than a summary keeps: the maximum lies
    /// in `[max_ulp, max_ulp_bound]`.
    pub max_verified: bool,
    pub max_ulp_bound: Option<f64>,
    pub argmax: Option<String>,
    pub argmax_result: Option<String>,
    pub argmax_expected: Option<String>,
    pub correctly_rounded: u64,
    pub faithful: u64,
    pub worse: u64,
    /// Block time of the range (summed over blocks, so resumed runs count what the killed
    /// one did) plus the lists' time.
    pub seconds: f64,
    /// The range run's report, as `tmd crunch --json` prints it.
    pub crunch: serde_json::Value,
    /// Each list's report, as `tmd crunch --inputs FILE --json` prints it.
    pub lists: Vec<serde_json::Value>,
    /// When, where and by which tmd the cell was computed; `None` in a cell's JSON that does
    /// not record it, which the pages print as `unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computed: Option<Provenance>,
}

/// Where a cell's figures come from, recorded when it finishes: a report rebuilt later from
/// its cells (on another day, machine or version) still says how each was computed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// `2026-11-24 09:41 UTC`.
    pub date: String,
    /// Cores and CPU model: `2 cores (AMD EPYC)`.
    pub machine: String,
    /// As `tmd --version` prints it: `tmd 0.1.0 (commit 1a2b3c4d5e6f)`.
    pub tmd: String,
}

impl Provenance {
    /// This process, now; `version` as `tmd --version` prints it after `tmd `.
    pub fn here(version: &str) -> Provenance {
        Provenance {
            date: tmd_core::clock::utc_now(),
            machine: machine(),
            tmd: format!("tmd {version}"),
        }
    }
}

/// This machine in words: `2 cores (AMD EPYC)`.
pub fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cores} cores ({})", tmd_crunch::emul::cpu_model())
}

/// One cell of the matrix: where it goes, and its result once finished.
pub struct TableCell<'a> {
    /// The row: the function's C name.
    pub row: &'a str,
    /// The column: target family or name, with the mode when the report has several.
    pub column: &'a str,
    pub target: &'a str,
    pub mode: Rounding,
    /// The cell's file stem under `cells/` (its plot is `cells/STEM.svg`).
    pub stem: &'a str,
    pub result: Option<&'a CellResult>,
    /// Whether `cells/STEM.svg` exists: the HTML page links and shows only plots that do.
    pub plot: bool,
}

/// What the heading of the Markdown and HTML reports says.
pub struct Heading {
    pub version: String,
    pub command: String,
    pub date: String,
    pub machine: String,
    pub threads: usize,
    /// Which inputs every cell covers (exhaustive, a range, a sample, lists).
    pub coverage: String,
}

/// `x` (finite, at least 0) rounded upwards to three significant digits: `(digits, exponent)`
/// with `digits` in 100..=999 and the value `digits * 10^exponent`; `(0, 0)` for 0.
pub fn round_up_3_digits(x: f64) -> (u32, i32) {
    if x == 0.0 {
        return (0, 0);
    }
    // Rust prints the exact decimal expansion of a double to any precision, and 767
    // significant digits hold every double's, so the digits after the third tell exactly
    // whether truncating to three loses anything.
    let text = format!("{x:.800e}");
    let (mantissa, exponent) = text.split_once('e').expect("an exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut leading: u32 = digits[..3].parse().expect("three digits");
    let mut exponent = exponent.parse::<i32>().expect("an exponent") - 2;
    if digits[3..].bytes().any(|d| d != b'0') {
        leading += 1;
        if leading == 1000 {
            (leading, exponent) = (100, exponent + 1);
        }
    }
    (leading, exponent)
}

/// An error in ulps as the table prints it: rounded upwards to three significant digits,
/// fixed notation from 0.00100 to 999, `1.24e3` style outside.
pub fn ulps_rounded_up(x: f64) -> String {
    if !x.is_finite() {
        return "inf".into();
    }
    let (digits, exponent) = round_up_3_digits(x);
    if digits == 0 {
        return "0".into();
    }
    let leading_exponent = exponent + 2;
    if (-3..=2).contains(&leading_exponent) {
        let decimals = (-exponent).max(0) as usize;
        format!("{:.*}", decimals, digits as f64 * 10f64.powi(exponent))
    } else {
        format!("{}.{:02}e{leading_exponent}", digits / 100, digits % 100)
    }
}

/// The columns of the CSV report.
pub const CSV_HEADER: &str = "function,target,rounding,format,status,inputs,sampled,\
    max_ulp_rounded_up,max_ulp,max_ulp_bound,argument,result,correctly_rounded_result,\
    correctly_rounded,faithful,worse,seconds";

/// The CSV report: one line per cell, in the order of the cells.
pub fn csv(cells: &[TableCell]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for c in cells {
        let mut fields = vec![c.row.to_string(), c.target.to_string(), c.mode.to_string()];
        match c.result {
            None => {
                fields.push(String::new());
                fields.push("pending".into());
                fields.extend(std::iter::repeat_n(String::new(), 12));
            }
            Some(r) => {
                let opt = |s: &Option<String>| s.clone().unwrap_or_default();
                let num = |v: Option<f64>| v.map_or(String::new(), |m| format!("{m:.9}"));
                fields.extend([
                    r.header.format.clone(),
                    "done".into(),
                    r.inputs.to_string(),
                    r.sampled.to_string(),
                    r.max_ulp.map_or(String::new(), ulps_rounded_up),
                    num(r.max_ulp),
                    num(r.max_ulp_bound),
                    opt(&r.argmax),
                    opt(&r.argmax_result),
                    opt(&r.argmax_expected),
                    r.correctly_rounded.to_string(),
                    r.faithful.to_string(),
                    r.worse.to_string(),
                    format!("{:.3}", r.seconds),
                ]);
            }
        }
        let quoted: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&quoted.join(","));
        out.push('\n');
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_rounded_upwards_to_three_digits() {
        assert_eq!(ulps_rounded_up(0.5), "0.500");
        assert_eq!(ulps_rounded_up(1.9301), "1.94");
        // The double nearest 1.93 lies below it: 1.93 is an upper bound.
        assert_eq!(ulps_rounded_up(1.93), "1.93");
        // The double nearest 0.1 lies above it: 0.1 is not.
        assert_eq!(ulps_rounded_up(0.1), "0.101");
        assert_eq!(ulps_rounded_up(0.49999), "0.500");
        assert_eq!(ulps_rounded_up(9.991), "10.0");
        assert_eq!(ulps_rounded_up(999.5), "1.00e3");
        assert_eq!(ulps_rounded_up(123.0), "123");
        assert_eq!(ulps_rounded_up(1234.0), "1.24e3");
        assert_eq!(ulps_rounded_up(0.00123), "0.00123");
        assert_eq!(ulps_rounded_up(1.5e-7), "1.50e-7");
        assert_eq!(ulps_rounded_up(2.0f64.powi(60)), "1.16e18");
        assert_eq!(ulps_rounded_up(0.0), "0");
    }

    #[test]
    fn rounding_up_never_goes_below_the_error() {
        let mut x = 1.2345e-9f64;
        while x < 1e12 {
            let (digits, exponent) = round_up_3_digits(x);
            assert!((100..=999).contains(&digits), "{x}");
            let up: f64 = format!("{digits}e{exponent}").parse().unwrap();
            let below: f64 = format!("{}e{exponent}", digits - 1).parse().unwrap();
            assert!(up >= x && below < x, "{x}: {digits}e{exponent}");
            x *= 1.37;
        }
    }

    #[test]
    fn csv_fields_with_commas_are_quoted() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
