//! A binary80 or binary128 target on the inputs of a list, streamed in batches as
//! [`crate::input_list`] does for the narrower formats.

use super::encoding::{Slot, WideValue};
use super::judge::judge;
use super::target::WideTarget;
use crate::analysis::{Class, Special};
use crate::input_list::{InputList, ListReport};
use crate::summary::Summary;
use rayon::prelude::*;
use serde::Serialize;
use std::io::BufRead;
use std::time::Instant;
use tmd_core::{FormatNumber, InputError};

/// Inputs per batch: MPFR judges each, so a batch is a fraction of a second.
const BATCH: usize = 1 << 12;
/// Inputs the C loop gets per call, so that the batch is evaluated on every thread.
const CALL: usize = 1 << 8;

/// An input whose result is not correctly rounded, its numbers in hex.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WideFailure {
    /// The line of the list it came from.
    pub line: usize,
    pub x: String,
    /// f(x) correctly rounded in the target's mode.
    pub expected: String,
    pub got: String,
    /// The error in ulps (`None` for the special classes without one).
    pub err: Option<f64>,
    pub class: Class,
    pub special: Special,
}

/// The target's results at `xs`, evaluated in slices across the threads.
fn evaluate(target: &WideTarget, xs: &[FormatNumber]) -> Vec<WideValue> {
    let fmt = target.format();
    let slots: Vec<Slot> = xs.iter().map(|x| fmt.encode(x)).collect();
    let mut out = vec![[0u8; 16]; slots.len()];
    out.par_chunks_mut(CALL)
        .zip(slots.par_chunks(CALL))
        .for_each(|(y, x)| target.eval(x, y));
    out.iter().map(|s| fmt.decode(s)).collect()
}

/// Evaluates the target on every input of `list`, calls `on_failure` for each input whose
/// result is not correctly rounded (in the list's order), and returns the report.
pub fn check_wide_list<R: BufRead, E: From<InputError> + From<crate::target::TargetFailure>>(
    target: &WideTarget,
    list: &mut InputList<R>,
    name: &str,
    mut on_failure: impl FnMut(&WideFailure) -> Result<(), E>,
) -> Result<ListReport, E> {
    let start = Instant::now();
    let (func, mode) = (target.function(), target.rounding());
    let mut summary = Summary::default();
    // Ordinals of binary128 do not fit the summary's i64, so the maximum's input is kept here:
    // the first input of the list with the largest error.
    let mut argmax: Option<(f64, WideFailure)> = None;
    let mut batch: Vec<(usize, FormatNumber)> = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        while batch.len() < BATCH {
            match list.next_number() {
                Some(item) => batch.push(item?),
                None => break,
            }
        }
        if batch.is_empty() {
            break;
        }
        let xs: Vec<FormatNumber> = batch.iter().map(|&(_, x)| x).collect();
        let results = evaluate(target, &xs);
        if let Some(failure) = target.failure() {
            return Err(failure.into());
        }
        let verdicts: Vec<_> = xs
            .par_iter()
            .zip(&results)
            .map(|(x, &a)| judge(func, target.format(), x, a, mode))
            .collect();
        for ((&(line, x), &got), &(v, expected)) in batch.iter().zip(&results).zip(&verdicts) {
            summary.record(0, v, true);
            let failure = || WideFailure {
                line,
                x: x.to_hex(),
                expected: expected.to_hex(),
                got: got.to_hex(),
                err: v.err,
                class: v.class,
                special: v.special,
            };
            if let Some(err) = v.err {
                if argmax.as_ref().is_none_or(|(m, _)| err > *m) {
                    argmax = Some((err, failure()));
                }
            }
            if v.class != Class::CorrectlyRounded {
                on_failure(&failure())?;
            }
        }
    }
    Ok(ListReport {
        target: target.name().to_string(),
        function: func.name().into(),
        format: target.format().name().into(),
        rounding: mode.name().into(),
        inputs_file: name.to_string(),
        inputs: summary.inputs,
        skipped: list.skipped(),
        not_inputs: list.not_inputs().clone(),
        range_records: list.range_records(),
        max_ulp: argmax.as_ref().map(|(m, _)| *m),
        argmax: argmax.as_ref().map(|(_, f)| f.x.clone()),
        argmax_result: argmax.as_ref().map(|(_, f)| f.got.clone()),
        argmax_expected: argmax.as_ref().map(|(_, f)| f.expected.clone()),
        correctly_rounded: summary.correctly_rounded,
        faithful: summary.faithful,
        worse: summary.worse,
        specials: summary.specials.clone(),
        histogram: summary.histogram.clone(),
        worse_below_one_ulp: summary.worse_below_one_ulp,
        seconds: start.elapsed().as_secs_f64(),
        note: Some(target.note().to_string()),
    })
}
