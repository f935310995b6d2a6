//! The text reports of `tmd crunch`: a range run's, a list run's, a pair run's, and the line of
//! each input (or pair) not correctly rounded. Errors are printed by
//! [`crate::gate::ulps_text`], so that with `--max-ulp` the printed error compares with the
//! bound as the error does; the JSON reports are the report structs serialised.

use crate::bivariate::run::PairFailure;
use crate::bivariate::{PairFormat, PairReport};
use crate::driver::Report;
use crate::gate::ulps_text;
use crate::input_list::ListReport;
use crate::rounding::Rounding;
use crate::summary::Outcome;
use std::io::{Result, Write};

/// A range run's report.
pub fn write_range_report(
    out: &mut dyn Write,
    r: &Report,
    threads: usize,
    limit: Option<f64>,
) -> Result<()> {
    let rate = r.inputs as f64 / r.seconds.max(1e-9);
    let sample = match r.sample_windows {
        Some(w) => format!(
            " (a sample: {w} evenly spaced windows of 2^{} inputs)",
            r.block_bits
        ),
        None => String::new(),
    };
    let resumed = if r.blocks_resumed > 0 {
        format!(
            ", {} of {} blocks resumed from the checkpoint",
            r.blocks_resumed, r.blocks
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{} over {} [{}, {}), rounding {}: {} inputs{sample} in {:.2} s ({:.3e} inputs/s, \
         {threads} threads{resumed})",
        r.target, r.format, r.from, r.to, r.rounding, r.inputs, r.seconds, rate,
    )?;
    let how = |m: f64| match r.outcome.bound.filter(|b| !b.max_verified) {
        None => " (recomputed with MPFR)".to_string(),
        Some(b) => format!(
            " (error at x recomputed with MPFR; more near-maximal inputs than kept: the maximum \
             is at most {})",
            bound_text(b.max_ulp_bound.unwrap_or(m), limit)
        ),
    };
    write_maximum(out, &r.outcome, |x| format!("x = {x}"), how, limit, "input")?;
    let reference = (r.reference.as_str(), r.mpfr_inputs, "inputs");
    write_counts(out, r.inputs, &r.outcome, r.rounding, reference)?;
    if let Some(note) = &r.note {
        writeln!(out, "  note: {note}")?;
    }
    Ok(())
}

/// The bound on the maximum, nine decimals, or more where nine would put it on the wrong side
/// of `--max-ulp` (rounded up, since it is a bound).
fn bound_text(bound: f64, limit: Option<f64>) -> String {
    let nine = format!("{bound:.9}");
    match limit {
        Some(l)
            if nine.parse::<f64>().ok().map(|v| v.partial_cmp(&l))
                != Some(bound.partial_cmp(&l)) =>
        {
            ulps_text(bound, limit)
        }
        _ => nine,
    }
}

/// The maximum's line of a report: `at` names its input (`x = ...`, `(x, y) = (...)`), `how`
/// says how its error (the argument) was computed; `input` names what the run judged, for
/// the line of a run where none has a finite error.
fn write_maximum<X>(
    out: &mut dyn Write,
    o: &Outcome<X>,
    at: impl FnOnce(&X) -> String,
    how: impl FnOnce(f64) -> String,
    limit: Option<f64>,
    input: &str,
) -> Result<()> {
    let (Some(m), Some(x)) = (o.max_ulp, &o.argmax) else {
        return writeln!(out, "  no {input} with a finite error");
    };
    writeln!(
        out,
        "  max error {} ulp at {}: result {}, correctly rounded {}{}",
        ulps_text(m, limit),
        at(x),
        o.argmax_result.as_deref().unwrap_or("?"),
        o.argmax_expected.as_deref().unwrap_or("?"),
        how(m)
    )
}

/// The lines of a range or pair report after its maximum: the verdict counts, the special
/// classes and histogram, and the reference with how many of the `inputs` ("inputs",
/// "pairs") MPFR decided.
fn write_counts<X>(
    out: &mut dyn Write,
    inputs: u64,
    o: &Outcome<X>,
    rounding: Rounding,
    (reference, mpfr_inputs, what): (&str, u64, &str),
) -> Result<()> {
    write_verdict_counts(out, inputs, o)?;
    write_specials(out, o, rounding)?;
    writeln!(
        out,
        "  reference: {reference}; {mpfr_inputs} {what} decided by MPFR"
    )
}

/// The line of a report with how many inputs (or pairs) were correctly rounded, faithful
/// and worse, each with its share of `inputs`.
fn write_verdict_counts<X>(out: &mut dyn Write, inputs: u64, o: &Outcome<X>) -> Result<()> {
    let (correctly_rounded, faithful, worse) = (o.correctly_rounded, o.faithful, o.worse);
    let pct = |n: u64| 100.0 * n as f64 / inputs.max(1) as f64;
    writeln!(
        out,
        "  correctly rounded {} ({:.4}%), faithful {} ({:.4}%), worse {} ({:.4}%)",
        correctly_rounded,
        pct(correctly_rounded),
        faithful,
        pct(faithful),
        worse,
        pct(worse)
    )
}

/// The special classes and the histogram of a report, one line each.
fn write_specials<X>(out: &mut dyn Write, o: &Outcome<X>, rounding: Rounding) -> Result<()> {
    let s = &o.specials;
    let classes = [
        ("NaN expected", s.nan_expected, Some(s.nan_wrong)),
        ("spurious NaN", s.nan_spurious, None),
        ("poles", s.pole, Some(s.pole_wrong)),
        ("overflow", s.overflow, Some(s.overflow_wrong)),
        ("spurious inf", s.inf_spurious, None),
        ("subnormal results", s.subnormal, Some(s.subnormal_wrong)),
    ];
    let shown: Vec<String> = classes
        .iter()
        .filter(|c| c.1 > 0)
        .map(|(name, n, wrong)| match wrong {
            Some(w) => format!("{name} {n} ({w} not correctly rounded)"),
            None => format!("{name} {n}"),
        })
        .collect();
    if !shown.is_empty() {
        writeln!(out, "  special: {}", shown.join(", "))?;
    }
    writeln!(
        out,
        "  histogram: {}",
        histogram_text(&o.histogram, rounding)
    )
}

fn histogram_text(h: &[u64], rounding: Rounding) -> String {
    let mut parts = Vec::new();
    for (k, &n) in h.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let label = match k {
            0 => "correctly rounded".to_string(),
            // Round-to-nearest's other errors are at least 1/2 ulp; a directed mode's can be
            // any below 1.
            // An error of exactly 1/2 that is not correctly rounded (the odd neighbour of a
            // midpoint, a number below an exact power of two) belongs here.
            1 if rounding == Rounding::Nearest => "[0.5, 1)".to_string(),
            1 => "(0, 1)".to_string(),
            k if k == h.len() - 1 => format!(">= 2^{}", k - 2),
            k => format!("[2^{}, 2^{})", k - 2, k - 1),
        };
        parts.push(format!("{label}: {n}"));
    }
    parts.join(", ")
}

/// One input of a list that is not correctly rounded, as printed: its numbers in the format's
/// hex.
pub struct FailureText {
    pub line: usize,
    pub x: String,
    pub expected: String,
    pub got: String,
    pub err: Option<f64>,
    pub class: &'static str,
}

/// One failing input: JSON with its error as the exact binary64 value, or a line with the
/// error in the digits that keep its order against `--max-ulp`.
pub fn write_failure(
    out: &mut dyn Write,
    f: &FailureText,
    json: bool,
    limit: Option<f64>,
) -> Result<()> {
    if json {
        writeln!(
            out,
            "{{\"line\":{},\"x\":\"{}\",\"expected\":\"{}\",\"got\":\"{}\",\"ulp\":{},\"class\":\"{}\"}}",
            f.line, f.x, f.expected, f.got, json_number(f.err), f.class
        )
    } else {
        let err = error_text(f.err, limit);
        writeln!(
            out,
            "x = {}: got {}, expected {}{err} ({}; line {})",
            f.x, f.got, f.expected, f.class, f.line
        )
    }
}

/// A list run's report.
pub fn write_list_report(out: &mut dyn Write, r: &ListReport, limit: Option<f64>) -> Result<()> {
    writeln!(
        out,
        "{} ({} {}), rounding {}: the {} inputs of {} in {:.2} s",
        r.target, r.function, r.format, r.rounding, r.inputs, r.inputs_file, r.seconds
    )?;
    let how = |_| " (MPFR)".to_string();
    write_maximum(out, &r.outcome, |x| format!("x = {x}"), how, limit, "input")?;
    writeln!(
        out,
        "  correctly rounded {}, faithful {}, worse {}",
        r.outcome.correctly_rounded, r.outcome.faithful, r.outcome.worse
    )?;
    if let Some(note) = &r.note {
        writeln!(out, "  note: {note}")?;
    }
    Ok(())
}

/// One pair whose result is not correctly rounded, `expected` its correct rounding: JSON with
/// the exact binary64 error, or a line with the digits that keep its order against the gate.
pub fn write_pair_failure(
    out: &mut dyn Write,
    fmt: PairFormat,
    f: &PairFailure,
    expected: f64,
    (json, limit): (bool, Option<f64>),
) -> Result<()> {
    let (a, b, got, want) = (
        fmt.hex(f.a),
        fmt.hex(f.b),
        fmt.hex(f.got),
        fmt.hex(expected),
    );
    if json {
        writeln!(
            out,
            "{{\"pair\":{},\"x\":[\"{a}\",\"{b}\"],\"expected\":\"{want}\",\"got\":\"{got}\",\"ulp\":{},\"class\":\"{:?}\",\"special\":\"{:?}\"}}",
            f.index + 1, json_number(f.err), f.class, f.special
        )
    } else {
        let err = error_text(f.err, limit);
        writeln!(
            out,
            "({a}, {b}): got {got}, expected {want}{err} ({:?}, {:?}; pair {})",
            f.class,
            f.special,
            f.index + 1
        )
    }
}

/// A pair run's report.
pub fn write_pair_report(
    out: &mut dyn Write,
    r: &PairReport,
    threads: usize,
    limit: Option<f64>,
) -> Result<()> {
    writeln!(
        out,
        "{} ({} {}), rounding {}: {} in {:.2} s ({:.3e} pairs/s, {threads} threads)",
        r.target,
        r.function,
        r.format,
        r.rounding,
        r.pairs,
        r.seconds,
        r.inputs as f64 / r.seconds.max(1e-9)
    )?;
    let at = |[a, b]: &[String; 2]| format!("(x, y) = ({a}, {b})");
    let how = |_| " (recomputed with MPFR)".to_string();
    write_maximum(out, &r.outcome, at, how, limit, "pair")?;
    let reference = (r.reference.as_str(), r.mpfr_inputs, "pairs");
    write_counts(out, r.inputs, &r.outcome, r.rounding, reference)?;
    if let Some(c) = &r.confidence {
        writeln!(out, "  confidence: {c}")?;
    }
    if let Some(note) = &r.note {
        writeln!(out, "  note: {note}")?;
    }
    Ok(())
}

/// A failure's error as its text line shows it (`, 1.5 ulp`), empty for the classes without a
/// finite error.
fn error_text(err: Option<f64>, limit: Option<f64>) -> String {
    err.map_or(String::new(), |e| format!(", {} ulp", ulps_text(e, limit)))
}

/// A finite error as a JSON number (the shortest decimal that reads back as the same binary64
/// number, so the value is exact), or `null`.
fn json_number(err: Option<f64>) -> String {
    err.map_or("null".to_string(), |e| {
        serde_json::Value::from(e).to_string()
    })
}
