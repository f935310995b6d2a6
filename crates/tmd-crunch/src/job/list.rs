//! `--inputs FILE`: a target on exactly the inputs of a list in each rounding mode, every input
//! not correctly rounded written as it is found, then the report and the `--max-ulp` gate;
//! binary80 and binary128 targets run only so ([`run_wide`]).

use super::text::{write_failure, write_list_report, FailureText};
use super::{format_of, CrunchRequest, FirstGateFailure, JobError};
use crate::analysis::{Class, Special};
use crate::gate::{apply_gate, GateInput};
use crate::input_list::{
    check_list, note_skipped, strict_refusal, BadLines, InputList, ListReport,
};
use crate::target::{BoxedTarget, Target};
use crate::wide::{check_wide_list, WideFormat, WideTarget};
use std::io::{BufReader, Write};
use std::path::Path;
use tmd_core::InputError;

/// Each mode's target on the list in turn; the first `--max-ulp` failure is returned after
/// every mode has run, so a gate reports every mode.
pub fn run_lists(
    req: &CrunchRequest,
    targets: &[BoxedTarget],
    list: &Path,
    out: &mut (dyn Write + Send),
) -> Result<(), JobError> {
    let mut failures = FirstGateFailure::default();
    for target in targets {
        format_of(req, target.as_ref())?;
        failures.note(run_list(req, target.as_ref(), list, out))?;
    }
    failures.result()
}

/// Runs the list and writes its failures and report; then applies `--max-ulp`.
fn run_list(
    req: &CrunchRequest,
    target: &dyn Target,
    path: &Path,
    out: &mut (dyn Write + Send),
) -> Result<(), JobError> {
    let name = path.display().to_string();
    let fmt = target.format();
    refuse_bad_lines(req, path, fmt.core())?;
    let mut list = InputList::new(open_list(path)?, &name, fmt).bad_lines(BadLines::Skip);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(req.threads.unwrap_or(0))
        .build()
        .map_err(JobError::ListThreads)?;
    let report = pool.install(|| {
        check_list(target, &mut list, &name, |f| -> Result<(), JobError> {
            let text = FailureText {
                line: f.line,
                x: fmt.hex(f.x),
                expected: fmt.hex(f.expected),
                got: fmt.hex(f.got),
                err: f.err,
                class: class_name(f.special, f.class),
            };
            Ok(write_failure(out, &text, req.json, req.max_ulp)?)
        })
    })?;
    finish(req, &name, &report, out)
}

/// A binary80 or binary128 target: input lists only, since neither format can be crunched
/// exhaustively; each mode of `--rounding` in turn, the first `--max-ulp` failure returned
/// after every mode has run.
pub fn run_wide(
    req: &CrunchRequest,
    format: WideFormat,
    out: &mut (dyn Write + Send),
) -> Result<(), JobError> {
    let path = refuse_range_flags(req, format)?;
    let targets = req
        .rounding
        .iter()
        .map(|&mode| WideTarget::resolve(&req.target, req.function.as_deref(), format, mode))
        .collect::<Result<Vec<_>, _>>()?;
    let name = path.display().to_string();
    refuse_bad_lines(req, path, format.core())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(req.threads.unwrap_or(0))
        .build()
        .map_err(JobError::ListThreads)?;
    let mut failures = FirstGateFailure::default();
    for target in &targets {
        let mut list =
            InputList::of_format(open_list(path)?, &name, format.core()).bad_lines(BadLines::Skip);
        let report = pool.install(|| {
            check_wide_list(target, &mut list, &name, |f| -> Result<(), JobError> {
                let text = FailureText {
                    line: f.line,
                    x: f.x.clone(),
                    expected: f.expected.clone(),
                    got: f.got.clone(),
                    err: f.err,
                    class: class_name(f.special, f.class),
                };
                Ok(write_failure(out, &text, req.json, req.max_ulp)?)
            })
        })?;
        failures.note(finish(req, &name, &report, out))?;
    }
    failures.result()
}

/// The flags of range runs, refused for a wide target; its list, which it needs.
fn refuse_range_flags(req: &CrunchRequest, format: WideFormat) -> Result<&Path, InputError> {
    if req.backend != "cpu" {
        return Err(InputError::Usage(format!(
            "{} targets run on the CPU only, not --backend {}",
            format.name(),
            req.backend
        )));
    }
    let range_flags = [
        ("--from", req.from.is_some()),
        ("--to", req.to.is_some()),
        ("--exhaustive", req.exhaustive),
        ("--structured", req.structured),
        ("--sample", req.sample.is_some()),
        ("--seed", req.seed.is_some()),
        ("--checkpoint", req.checkpoint.is_some()),
        ("--plot", req.plot.is_some()),
        ("--estimate", req.estimate),
        ("--block-bits", req.block_bits.is_some()),
    ];
    if let Some((flag, _)) = range_flags.iter().find(|(_, given)| *given) {
        return Err(InputError::Usage(format!(
            "{flag} is for binary32 and binary64 runs; {} targets take --inputs FILE only",
            format.name()
        )));
    }
    req.inputs.as_deref().ok_or_else(|| {
        InputError::Usage(format!(
            "{} targets are crunched on input lists: give --inputs FILE (a .wc file, \
             `tmd search --format {} --json` output or one number a line)",
            format.name(),
            format.name()
        ))
    })
}

/// `--inputs FILE`, opened for reading.
pub fn open_list(path: &Path) -> Result<BufReader<std::fs::File>, InputError> {
    let file = tmd_core::safe_fs::open_readable(path).map_err(|e| {
        let name = path.display();
        InputError::Usage(format!(
            "--inputs {name}: {}",
            tmd_core::safe_fs::io_reason(&e)
        ))
    })?;
    Ok(BufReader::new(file))
}

/// `--strict`: the whole list read once before the run, and refused (bad input, before any
/// output) when a line holds no input of `format`.
fn refuse_bad_lines(
    req: &CrunchRequest,
    path: &Path,
    format: tmd_core::Format,
) -> Result<(), InputError> {
    if !req.strict {
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

/// Writes a list run's notes and report and applies `--max-ulp` to it.
fn finish(
    req: &CrunchRequest,
    name: &str,
    report: &ListReport,
    out: &mut (dyn Write + Send),
) -> Result<(), JobError> {
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
    if report.skipped > 0 {
        let skipped = report.skipped;
        eprintln!("tmd: note: {skipped} special entries (nan, inf) of {name} skipped");
    }
    if req.json {
        writeln!(out, "{}", serde_json::to_string(report)?)?;
    } else {
        write_list_report(out, report, req.max_ulp)?;
    }
    let gate = GateInput::new(&report.outcome, report.outcome.argmax.as_deref());
    Ok(apply_gate(req.max_ulp, &gate)?)
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
