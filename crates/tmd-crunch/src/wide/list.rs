//! A binary80 or binary128 target on the inputs of a list, streamed in batches as
//! [`crate::input_list`] does for the narrower formats.

use super::encoding::{Slot, WideValue};
use super::judge::judge;
use super::target::WideTarget;
use crate::analysis::{Class, Special};
use crate::implementation::{Implementation, WideBatch};
use crate::input_list::{crunch_list, InputList, ListReport, ListSubject};
use crate::summary::{Argmax, Summary};
use crate::target::TargetFailure;
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
        .for_each(|(out, xs)| target.eval(WideBatch { xs, out }));
    out.iter().map(|s| fmt.decode(s)).collect()
}

/// Evaluates the target on every input of `list`, calls `on_failure` for each input whose
/// result is not correctly rounded (in the list's order), and returns the report.
pub fn check_wide_list<R: BufRead, E: From<InputError> + From<TargetFailure>>(
    target: &WideTarget,
    list: &mut InputList<R>,
    name: &str,
    mut on_failure: impl FnMut(&WideFailure) -> Result<(), E>,
) -> Result<ListReport, E> {
    let start = Instant::now();
    let (func, mode) = (target.function(), target.rounding());
    let mut summary = Summary::default();
    // Ordinals of binary128 do not fit the summary's keys, so inputs are keyed by their
    // position in the list and the maximum's input is kept here as it is found.
    let mut max: Option<Argmax<String>> = None;
    crunch_list(
        BATCH,
        || list.next_input(),
        |xs| {
            let results = evaluate(target, xs);
            target.failure().map_or(Ok(results), Err)
        },
        |x, &a| judge(func, target.format(), x, a, mode),
        |line, x, got, (v, expected)| {
            let position = summary.inputs as i64;
            summary.record(position, v, true);
            let failure = || WideFailure {
                line,
                x: x.to_hex(),
                expected: expected.to_hex(),
                got: got.to_hex(),
                err: v.err,
                class: v.class,
                special: v.special,
            };
            if summary.argmax == Some(position) {
                let f = failure();
                max = Some(Argmax {
                    err: summary.max_ulp,
                    x: f.x,
                    result: f.got,
                    expected: f.expected,
                });
            }
            if v.class == Class::CorrectlyRounded {
                return Ok(());
            }
            on_failure(&failure())
        },
    )?;
    let subject = ListSubject::of(target);
    Ok(ListReport::new(subject, (name, list), &summary, max, start))
}
