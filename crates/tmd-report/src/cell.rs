//! One cell run: its range crunched (resumed from its checkpoint), then its input lists, its
//! plot written; and its result, the range's report combined with the lists'.

use crate::plan::Cell;
use crate::resume::list_names;
use crate::table::{CellResult, Provenance};
use std::path::{Path, PathBuf};
use tmd_core::out_file::OutFile;
use tmd_crunch::input_list::{check_list, InputList, ListReport};
use tmd_crunch::job::list::open_list;
use tmd_crunch::job::range::write_plot;
use tmd_crunch::job::JobError;
use tmd_crunch::{Report, Target};

/// Runs one cell: its range (resumed from its checkpoint), then its lists; writes its plot.
/// `progress(inputs)` follows the range run; `version` goes into the cell's provenance.
pub fn run_cell(
    cell: &Cell,
    lists: &[PathBuf],
    version: &str,
    progress: impl Fn(u64),
) -> Result<CellResult, JobError> {
    let target = cell.target.as_ref();
    let (report, blocks) = tmd_crunch::run(target, &cell.plan, |done, _| progress(done))?;
    let mut list_reports = Vec::new();
    for path in lists {
        list_reports.push(run_list(target, path)?);
    }
    write_plot(
        OutFile::create("--out", &cell.file("svg"))?,
        cell.plan.format,
        &report,
        &blocks,
    )?;
    let block_seconds: f64 = blocks.values().map(|b| b.seconds).sum();
    let mut result = combine(
        cell,
        &report,
        block_seconds,
        &list_reports,
        list_names(lists),
    );
    result.computed = Some(Provenance::here(version));
    Ok(result)
}

/// The target on every input of a list, judged by MPFR.
fn run_list(target: &dyn Target, path: &Path) -> Result<ListReport, JobError> {
    let name = path.display().to_string();
    let mut list = InputList::new(open_list(path)?, &name, target.format());
    check_list(target, &mut list, &name, |_| Ok::<(), JobError>(()))
}

/// The cell's result: the range's report, and a list's maximum where it is larger (the
/// range's wins a tie: its argument comes first in input order).
fn combine(
    cell: &Cell,
    report: &Report,
    block_seconds: f64,
    lists: &[ListReport],
    inputs_files: Vec<String>,
) -> CellResult {
    let bound = report.outcome.bound;
    let mut result = CellResult {
        header: tmd_crunch::driver::header(cell.target.as_ref(), &cell.plan),
        inputs_files,
        inputs: report.inputs,
        sampled: cell.plan.is_sample(),
        max_ulp: report.outcome.max_ulp,
        max_verified: bound.is_none_or(|b| b.max_verified),
        max_ulp_bound: bound.and_then(|b| b.max_ulp_bound),
        argmax: report.outcome.argmax.clone(),
        argmax_result: report.outcome.argmax_result.clone(),
        argmax_expected: report.outcome.argmax_expected.clone(),
        correctly_rounded: report.outcome.correctly_rounded,
        faithful: report.outcome.faithful,
        worse: report.outcome.worse,
        seconds: block_seconds,
        crunch: serde_json::to_value(report).expect("a report serialises"),
        lists: Vec::new(),
        computed: None,
    };
    for report in lists {
        let list = &report.outcome;
        result.inputs += report.inputs;
        result.seconds += report.seconds;
        result.correctly_rounded += list.correctly_rounded;
        result.faithful += list.faithful;
        result.worse += list.worse;
        result
            .lists
            .push(serde_json::to_value(report).expect("a report serialises"));
        if let Some(m) = list
            .max_ulp
            .filter(|&m| result.max_ulp.is_none_or(|r| m > r))
        {
            result.max_ulp = Some(m);
            // Every list error is computed by MPFR: exact, and the bound is the maximum.
            result.max_verified = true;
            result.max_ulp_bound = Some(m);
            result.argmax = list.argmax.clone();
            result.argmax_result = list.argmax_result.clone();
            result.argmax_expected = list.argmax_expected.clone();
        }
    }
    result
}
