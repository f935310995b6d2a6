//! The tables of `tmd report` (Markdown, CSV, HTML) from its cells' results.
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
use std::fmt::Write;
use tmd_crunch::checkpoint::Header;
use tmd_crunch::Rounding;

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

/// The table's text for a cell: `0.500 (0x1.62e43p+6)`, with `*` when the maximum is only
/// known to lie in an interval; `pending` before it is crunched, `none` when no input has
/// a finite error.
fn cell_text(result: Option<&CellResult>) -> String {
    match result {
        None => "pending".into(),
        Some(r) => match (r.max_ulp, &r.argmax) {
            (Some(m), Some(x)) => format!(
                "{}{} ({x})",
                ulps_rounded_up(m),
                if r.max_verified { "" } else { "*" }
            ),
            _ => "none".into(),
        },
    }
}

/// Rows and columns in order of first appearance, and the cell at each place.
struct Grid<'a, 'c> {
    rows: Vec<&'a str>,
    columns: Vec<&'a str>,
    cells: &'c [TableCell<'a>],
}

impl<'a, 'c> Grid<'a, 'c> {
    fn new(cells: &'c [TableCell<'a>]) -> Self {
        let mut rows: Vec<&str> = Vec::new();
        let mut columns: Vec<&str> = Vec::new();
        for c in cells {
            if !rows.contains(&c.row) {
                rows.push(c.row);
            }
            if !columns.contains(&c.column) {
                columns.push(c.column);
            }
        }
        Grid {
            rows,
            columns,
            cells,
        }
    }

    fn at(&self, row: &str, column: &str) -> Option<&'c TableCell<'a>> {
        self.cells
            .iter()
            .find(|c| c.row == row && c.column == column)
    }

    /// The table's text at a place: a cell's text, or empty where no cell is.
    fn text(&self, row: &str, column: &str) -> String {
        self.at(row, column)
            .map_or(String::new(), |c| cell_text(c.result))
    }
}

const MATRIX_CAPTION: &str = "Largest error in ulps, rounded upwards to three significant \
    digits, and the first argument where it occurs.";

const FOOTNOTE: &str = "`*`: more inputs lay near the maximum than a summary keeps; the \
    maximum lies between the value shown and the bound in the CSV (`max_ulp_bound`).";

/// The Markdown report: heading, the matrix, per-cell details, timings.
pub fn markdown(heading: &Heading, cells: &[TableCell]) -> String {
    let mut md = String::new();
    let done = cells.iter().filter(|c| c.result.is_some()).count();
    let _ = writeln!(md, "# Accuracy report\n");
    let _ = writeln!(
        md,
        "tmd {}, `{}`, {}; {}, {} worker threads. {} of {} cells done.\n",
        heading.version,
        heading.command,
        heading.date,
        heading.machine,
        heading.threads,
        done,
        cells.len()
    );
    let _ = writeln!(md, "Inputs: {}.\n", heading.coverage);
    markdown_matrix(&mut md, cells);
    markdown_details(&mut md, cells);
    md
}

/// `## Maximum known error`: the functions x columns table.
fn markdown_matrix(md: &mut String, cells: &[TableCell]) {
    let grid = Grid::new(cells);
    let _ = writeln!(md, "## Maximum known error\n\n{MATRIX_CAPTION}\n");
    let _ = writeln!(md, "| function | {} |", grid.columns.join(" | "));
    let _ = writeln!(md, "| --- |{}", " --- |".repeat(grid.columns.len()));
    for row in &grid.rows {
        let texts: Vec<String> = grid.columns.iter().map(|c| grid.text(row, c)).collect();
        let _ = writeln!(md, "| {row} | {} |", texts.join(" | "));
    }
    if cells
        .iter()
        .any(|c| c.result.is_some_and(|r| !r.max_verified))
    {
        let _ = writeln!(md, "\n{FOOTNOTE}");
    }
}

/// `## Cells` (what each cell found, the same in every run) and `## Timings` (which differ).
fn markdown_details(md: &mut String, cells: &[TableCell]) {
    let _ = writeln!(md, "\n## Cells\n");
    let _ = writeln!(
        md,
        "| function | target | rounding | inputs | max error (ulp) | argument | result | \
         correctly rounded result | correctly rounded | faithful | worse |"
    );
    let _ = writeln!(md, "|{}", " --- |".repeat(11));
    for c in cells {
        let _ = writeln!(md, "| {} |", detail_fields(c).join(" | "));
    }
    let _ = writeln!(md, "\n## Timings\n");
    let _ = writeln!(md, "| function | target | rounding | seconds |");
    let _ = writeln!(md, "| --- | --- | --- | --- |");
    for c in cells {
        let seconds = c
            .result
            .map_or("pending".into(), |r| format!("{:.2}", r.seconds));
        let _ = writeln!(md, "| {} | {} | {} | {seconds} |", c.row, c.target, c.mode);
    }
}

/// A cell's row of the details table.
fn detail_fields(c: &TableCell) -> Vec<String> {
    let mut fields = vec![c.row.to_string(), c.target.to_string(), c.mode.to_string()];
    match c.result {
        None => fields.extend(std::iter::repeat_n("pending".to_string(), 8)),
        Some(r) => {
            let or_dash = |s: &Option<String>| s.clone().unwrap_or_else(|| "-".into());
            fields.extend([
                r.inputs.to_string(),
                r.max_ulp.map_or("-".into(), |m| format!("{m:.6}")),
                or_dash(&r.argmax),
                or_dash(&r.argmax_result),
                or_dash(&r.argmax_expected),
                r.correctly_rounded.to_string(),
                r.faithful.to_string(),
                r.worse.to_string(),
            ]);
        }
    }
    fields
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

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The HTML page: heading, the matrix (each finished cell links its plot), and the plots.
pub fn html(heading: &Heading, cells: &[TableCell]) -> String {
    let mut page = String::from(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Accuracy report</title>\n\
         <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}\
         td,th{border:1px solid #999;padding:.3em .6em;text-align:right}\
         td:first-child{text-align:left}code{font-size:90%}</style></head><body>\n\
         <h1>Accuracy report</h1>\n",
    );
    let done = cells.iter().filter(|c| c.result.is_some()).count();
    let _ = writeln!(
        page,
        "<p>tmd {}, <code>{}</code>, {}; {}, {} worker threads. {done} of {} cells done.</p>\n\
         <p>Inputs: {}.</p>\n<p>{MATRIX_CAPTION}</p>",
        html_escape(&heading.version),
        html_escape(&heading.command),
        html_escape(&heading.date),
        html_escape(&heading.machine),
        heading.threads,
        cells.len(),
        html_escape(&heading.coverage)
    );
    html_matrix(&mut page, cells);
    page.push_str("<h2>Plots</h2>\n");
    for c in cells.iter().filter(|c| c.result.is_some()) {
        let _ = writeln!(
            page,
            "<figure><img src=\"cells/{0}.svg\" alt=\"{1}, rounding {2}\" width=\"900\">\
             <figcaption>{1}, rounding {2}</figcaption></figure>",
            html_escape(c.stem),
            html_escape(c.target),
            c.mode
        );
    }
    page.push_str("</body></html>\n");
    page
}

/// The matrix as an HTML table; a finished cell links its plot.
fn html_matrix(page: &mut String, cells: &[TableCell]) {
    let grid = Grid::new(cells);
    page.push_str("<table>\n<tr><th>function</th>");
    for column in &grid.columns {
        let _ = write!(page, "<th>{}</th>", html_escape(column));
    }
    page.push_str("</tr>\n");
    for row in &grid.rows {
        let _ = write!(page, "<tr><td>{}</td>", html_escape(row));
        for column in &grid.columns {
            let text = html_escape(&grid.text(row, column));
            match grid.at(row, column) {
                Some(c) if c.result.is_some() => {
                    let stem = html_escape(c.stem);
                    let _ = write!(page, "<td><a href=\"cells/{stem}.svg\">{text}</a></td>");
                }
                _ => {
                    let _ = write!(page, "<td>{text}</td>");
                }
            }
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n");
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
