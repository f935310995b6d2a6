//! `tmd crunch TARGET --inputs FILE`: the target on exactly the inputs of a list, every input
//! not correctly rounded printed as it is found; and the `--max-ulp` gate shared with range
//! runs.

use crate::cli::CrunchArgs;
use std::io::{BufReader, Write};
use tmd_core::InputError;
use tmd_crunch::analysis::{Class, Special};
use tmd_crunch::input_list::{check_list, BadLines, InputList, ListReport, SkippedLines};
use tmd_crunch::summary::{Specials, Summary};
use tmd_crunch::wide::{check_wide_list, WideFormat, WideTarget};
use tmd_crunch::Target;

/// Runs the list and prints its failures and report; then applies `--max-ulp`.
pub fn run(args: &CrunchArgs, target: &dyn Target, path: &std::path::Path) -> anyhow::Result<()> {
    let name = path.display().to_string();
    let fmt = target.format();
    refuse_bad_lines(args, path, fmt.core())?;
    let mut list = InputList::new(open_list(path)?, &name, fmt).bad_lines(BadLines::Skip);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let report = pool.install(|| {
        let mut out = std::io::stdout().lock();
        check_list(target, &mut list, &name, |f| -> anyhow::Result<()> {
            let text = FailureText {
                line: f.line,
                x: fmt.hex(f.x),
                expected: fmt.hex(f.expected),
                got: fmt.hex(f.got),
                err: f.err,
                class: class_name(f.special, f.class),
            };
            write_failure(&mut out, &text, args.json, args.max_ulp)?;
            Ok(())
        })
    })?;
    finish(args, &name, &report)
}

/// `--inputs FILE` for a binary80 or binary128 target, in each mode of `--rounding`; the first
/// `--max-ulp` failure is returned after every mode has run.
pub fn run_wide(
    args: &CrunchArgs,
    spec: &str,
    format: WideFormat,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    let targets = args
        .rounding
        .0
        .iter()
        .map(|&mode| WideTarget::resolve(spec, args.function.as_deref(), format, mode))
        .collect::<Result<Vec<_>, _>>()?;
    let name = path.display().to_string();
    refuse_bad_lines(args, path, format.core())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let mut first_failure = None;
    for target in &targets {
        let mut list =
            InputList::of_format(open_list(path)?, &name, format.core()).bad_lines(BadLines::Skip);
        let report = pool.install(|| {
            let mut out = std::io::stdout().lock();
            check_wide_list(target, &mut list, &name, |f| -> anyhow::Result<()> {
                let text = FailureText {
                    line: f.line,
                    x: f.x.clone(),
                    expected: f.expected.clone(),
                    got: f.got.clone(),
                    err: f.err,
                    class: class_name(f.special, f.class),
                };
                write_failure(&mut out, &text, args.json, args.max_ulp)?;
                Ok(())
            })
        })?;
        match finish(args, &name, &report) {
            Err(e) if e.downcast_ref::<GateFailed>().is_some() => {
                first_failure.get_or_insert(e);
            }
            other => other?,
        }
    }
    first_failure.map_or(Ok(()), Err)
}

/// `--inputs FILE`, opened for reading.
fn open_list(path: &std::path::Path) -> Result<BufReader<std::fs::File>, InputError> {
    let file = super::open_readable(path).map_err(|e| {
        let name = path.display();
        InputError::Usage(format!("--inputs {name}: {}", super::io_reason(&e)))
    })?;
    Ok(BufReader::new(file))
}

/// `--strict`: the whole list read once before the run, and refused (exit 2, before any
/// output) when a line holds no input of `format`.
fn refuse_bad_lines(
    args: &CrunchArgs,
    path: &std::path::Path,
    format: tmd_core::Format,
) -> Result<(), InputError> {
    if !args.strict {
        return Ok(());
    }
    let name = path.display().to_string();
    // The check reads the list once and the run again: a pipe would be empty the second time.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(InputError::Usage(format!(
            "--strict reads --inputs {name} twice: give a regular file, not a pipe or device"
        )));
    }
    let format_name = format.name().to_string();
    let skipped = InputList::of_format(open_list(path)?, &name, format).validate()?;
    strict_refusal(&name, &format_name, &skipped)
}

/// The refusal of `--strict` when a list has lines that hold no input: the first with its
/// line, and how many there are.
pub fn strict_refusal(name: &str, format: &str, skipped: &SkippedLines) -> Result<(), InputError> {
    match skipped.first_as_error(name) {
        None => Ok(()),
        Some(first) => Err(InputError::Number(format!(
            "{first} ({} of {name} without a {format} input; --strict refuses the list)",
            lines(skipped.count)
        ))),
    }
}

/// The lines of a list skipped for holding no input, on stderr: how many, then the first
/// few with their line numbers. Bad input (exit 2) when the list holds no input at all.
pub fn note_skipped(
    name: &str,
    format: &str,
    skipped: &SkippedLines,
    inputs: u64,
) -> Result<(), InputError> {
    // An empty list checks nothing: refused, so that a gate never passes on it.
    if inputs == 0 {
        let first = skipped
            .first_as_error(name)
            .map(|first| format!(": {} skipped, the first {first}", lines(skipped.count)))
            .unwrap_or_default();
        return Err(InputError::Number(format!(
            "{name} holds no {format} input{first}"
        )));
    }
    if skipped.count == 0 {
        return Ok(());
    }
    eprintln!(
        "tmd: note: {} of {name} skipped, holding no {format} input (--strict refuses such \
         a list); the first:",
        lines(skipped.count)
    );
    for s in &skipped.first {
        eprintln!("tmd: note:   {name}:{}: {}", s.line, s.why);
    }
    Ok(())
}

/// "1 line" / "n lines".
fn lines(n: u64) -> String {
    if n == 1 {
        "1 line".into()
    } else {
        format!("{n} lines")
    }
}

/// Prints a list run's report and applies `--max-ulp` to it.
fn finish(args: &CrunchArgs, name: &str, report: &ListReport) -> anyhow::Result<()> {
    note_skipped(name, &report.format, &report.not_inputs, report.inputs)?;
    if report.range_records > 0 {
        let records = match report.range_records {
            1 => "1 range record".to_string(),
            n => format!("{n} range records"),
        };
        eprintln!(
            "tmd: note: {records} skipped; use tmd search --expand-ranges to list their inputs"
        );
    }
    let mut out = std::io::stdout().lock();
    if report.skipped > 0 {
        let skipped = report.skipped;
        eprintln!("tmd: note: {skipped} special entries (nan, inf) of {name} skipped");
    }
    if args.json {
        writeln!(out, "{}", serde_json::to_string(report)?)?;
    } else {
        write_report(&mut out, report, args.max_ulp)?;
    }
    drop(out);
    apply_gate(
        args.max_ulp,
        &GateInput::new(
            report.max_ulp,
            report.argmax.as_deref(),
            (report.faithful, report.worse, report.worse_below_one_ulp),
            &report.histogram,
            &report.specials,
        ),
    )
}

fn class_name(special: Special, class: Class) -> &'static str {
    match (special, class) {
        (Special::NanSpurious, _) => "spurious NaN",
        (Special::InfSpurious, _) => "spurious inf",
        (Special::NanExpected, _) => "a number where NaN is due",
        (Special::Pole, _) => "wrong at a pole",
        (Special::Overflow, Class::Faithful) => "overflow, faithful",
        (Special::Overflow, _) => "overflow, worse",
        (_, Class::Faithful) => "faithful",
        _ => "worse than faithful",
    }
}

/// One failing input as printed: its numbers in the format's hex.
struct FailureText {
    line: usize,
    x: String,
    expected: String,
    got: String,
    err: Option<f64>,
    class: &'static str,
}

/// One failing input: JSON with its error as the exact binary64 value, or a line with the
/// error in the digits that keep its order against `--max-ulp` ([`ulps_text`]).
fn write_failure(
    out: &mut impl Write,
    f: &FailureText,
    json: bool,
    limit: Option<f64>,
) -> std::io::Result<()> {
    let ulp = f.err.map_or("null".to_string(), json_number);
    if json {
        writeln!(
            out,
            "{{\"line\":{},\"x\":\"{}\",\"expected\":\"{}\",\"got\":\"{}\",\"ulp\":{ulp},\"class\":\"{}\"}}",
            f.line, f.x, f.expected, f.got, f.class
        )
    } else {
        let err = f
            .err
            .map_or(String::new(), |e| format!(", {} ulp", ulps_text(e, limit)));
        writeln!(
            out,
            "x = {}: got {}, expected {}{err} ({}; line {})",
            f.x, f.got, f.expected, f.class, f.line
        )
    }
}

fn write_report(out: &mut impl Write, r: &ListReport, limit: Option<f64>) -> std::io::Result<()> {
    writeln!(
        out,
        "{} ({} {}), rounding {}: the {} inputs of {} in {:.2} s",
        r.target, r.function, r.format, r.rounding, r.inputs, r.inputs_file, r.seconds
    )?;
    match (r.max_ulp, &r.argmax) {
        (Some(m), Some(x)) => writeln!(
            out,
            "  max error {} ulp at x = {x}: result {}, correctly rounded {} (MPFR)",
            ulps_text(m, limit),
            r.argmax_result.as_deref().unwrap_or("?"),
            r.argmax_expected.as_deref().unwrap_or("?"),
        )?,
        _ => writeln!(out, "  no input with a finite error")?,
    }
    writeln!(
        out,
        "  correctly rounded {}, faithful {}, worse {}",
        r.correctly_rounded, r.faithful, r.worse
    )?;
    if let Some(note) = &r.note {
        writeln!(out, "  note: {note}")?;
    }
    Ok(())
}

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
    /// The gate's view of a report: its maximum and argument, its (faithful, worse, worse
    /// below 1 ulp) counts, histogram and special classes.
    pub fn new(
        max_ulp: Option<f64>,
        argmax: Option<&'a str>,
        (faithful, worse, worse_below_one_ulp): (u64, u64, u64),
        histogram: &[u64],
        specials: &'a Specials,
    ) -> GateInput<'a> {
        GateInput {
            max_ulp,
            argmax,
            not_correctly_rounded: faithful + worse,
            worse_without_error: Summary::worse_without_finite_error(
                worse,
                worse_below_one_ulp,
                histogram,
            ),
            specials,
        }
    }
}

/// [`gate`] when `--max-ulp` was given, Ok otherwise.
pub fn apply_gate(limit: Option<f64>, r: &GateInput) -> anyhow::Result<()> {
    limit.map_or(Ok(()), |limit| gate(limit, r))
}

/// `--max-ulp X`: Ok when the results meet X, an error (exit 1) saying why otherwise.
/// X <= 0.5 asks for every result correctly rounded. Above, every finite error must be at most
/// X (errors compared as binary64 numbers), and results without a finite error count as
/// infinitely wrong when they are spurious (NaN or inf where a number is due, a number where
/// NaN is due, anything but the right infinity at a pole, anything but infinity or the largest
/// finite number where the result overflows), and as one ulp when faithful at an overflow (the
/// largest finite number instead of infinity).
pub fn gate(limit: f64, r: &GateInput) -> anyhow::Result<()> {
    let shown = limit_text(limit);
    if limit <= 0.5 {
        if r.not_correctly_rounded > 0 {
            return Err(gate_failed(format!(
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
            return Err(gate_failed(format!(
                "max error {} ulp at x = {x} exceeds --max-ulp {shown}",
                ulps_text(m, Some(limit))
            )));
        }
    }
    let s = r.specials;
    let spurious = r.worse_without_error;
    if spurious > 0 {
        return Err(gate_failed(format!(
            "{} NaN or infinite where a number is due, a number where NaN or infinity is due, \
             or far from an overflowing result (--max-ulp {shown})",
            results(spurious)
        )));
    }
    if s.overflow_wrong > 0 && limit < 1.0 {
        return Err(gate_failed(format!(
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

/// A finite error as a JSON number: the shortest decimal that reads back as the same binary64
/// number, so the value is exact.
fn json_number(err: f64) -> String {
    serde_json::Value::from(err).to_string()
}

/// "1 result is" / "n results are".
fn results(n: u64) -> String {
    if n == 1 {
        "1 result is".into()
    } else {
        format!("{n} results are")
    }
}

/// A `--max-ulp` gate that the results did not pass (exit code 1, not bad input).
#[derive(Debug)]
pub struct GateFailed(String);

impl std::fmt::Display for GateFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GateFailed {}

fn gate_failed(why: String) -> anyhow::Error {
    anyhow::Error::new(GateFailed(why))
}
