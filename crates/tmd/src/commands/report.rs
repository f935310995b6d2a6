//! `tmd report`: an accuracy report of libraries, a matrix of targets x functions x rounding
//! modes written as one table (Markdown, CSV, HTML with the error plots).
//!
//! Design. Each cell (one target, one function, one mode) is an ordinary crunch run
//! ([`tmd_crunch::run`]) with its own checkpoint `DIR/cells/STEM.ckpt`, so a kill -9 loses
//! at most the block in flight; when the cell finishes, its result (the crunch report, the
//! input lists' reports, the maximum over both) is written whole to `DIR/cells/STEM.json`
//! with its plot `DIR/cells/STEM.svg`. A rerun of the same command reads finished cells back
//! from their JSON instead of recomputing them and resumes the unfinished one from its
//! checkpoint; since crunch's block summaries merge in order, the final tables equal an
//! uninterrupted run's. Everything the user can get wrong (a missing library, an unknown
//! function, a mode a target cannot run under, a bad list, a directory holding another
//! report's cells) is checked for every cell before the first one runs, and is one line on
//! stderr with exit 2. After every cell the three tables are rewritten whole through a
//! temporary file and a rename ([`crate::out_file`]), so a reader never sees half a table.
//! The tables themselves are rendered by [`super::report_table`].

use super::report_table::{self, CellResult, Heading, Provenance, TableCell};
use crate::cli::ReportArgs;
use anyhow::Context;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use tmd_core::InputError;
use tmd_crunch::checkpoint::Checkpoint;
use tmd_crunch::input_list::{check_list, InputList, ListReport};
use tmd_crunch::target::BoxedTarget;
use tmd_crunch::{CrunchFormat, Plan, Report, Rounding};

/// Sample windows per binary64 cell when `--sample` is not given (2^26 inputs with the
/// default blocks of 2^20: seconds per cell on two cores).
const DEFAULT_BINARY64_WINDOWS: u64 = 64;

/// One cell of the matrix, resolved and planned.
struct Cell {
    /// The function's C name (the row).
    row: String,
    /// Target family or full name, with the mode when the report has several (the column).
    column: String,
    /// The target name crunch resolves (`glibc:expf`).
    spec: String,
    mode: Rounding,
    /// File stem under `cells/`.
    stem: String,
    /// `DIR/cells`.
    dir: PathBuf,
    target: BoxedTarget,
    plan: Plan,
}

impl Cell {
    fn file(&self, extension: &str) -> PathBuf {
        self.dir.join(format!("{}.{extension}", self.stem))
    }
}

/// `tmd report`: checks every cell, then runs the unfinished ones, rewriting the tables after
/// each.
pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let cells_dir = args.out.join("cells");
    let cells = plan_cells(args, &cells_dir)?;
    let lists = check_lists(&args.inputs, cells[0].plan.format)?;
    let mut results = finished_cells(&cells, &lists)?;
    create_out_dir(&args.out, &cells_dir)?;
    crate::interrupt::kept(format!(
        "{} holds every finished cell and block: the same command goes on from there",
        cells_dir.display()
    ));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("starting worker threads")?;
    let heading = heading(&cells[0].plan, &lists, pool.current_num_threads());
    write_tables(&args.out, &heading, &cells, &results)?;
    let bar =
        crate::progress::Progress::new(cells.iter().map(|c| c.plan.inputs()).sum(), args.quiet);
    let outcome = pool.install(|| {
        run_unfinished(&cells, &lists, &mut results, &bar, |results| {
            write_tables(&args.out, &heading, &cells, results)
        })
    });
    bar.finish();
    outcome
}

/// Runs the cells without a result in order, each result written to `STEM.json` and into
/// `results`, then `after_cell(results)`; the bar follows inputs over all cells.
fn run_unfinished(
    cells: &[Cell],
    lists: &[PathBuf],
    results: &mut [Option<CellResult>],
    bar: &crate::progress::Progress,
    mut after_cell: impl FnMut(&[Option<CellResult>]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut done: u64 = cells
        .iter()
        .zip(results.iter())
        .filter(|(_, r)| r.is_some())
        .map(|(c, _)| c.plan.inputs())
        .sum();
    for (index, cell) in cells.iter().enumerate() {
        if results[index].is_some() {
            continue;
        }
        let label = format!(
            "cell {}/{} {} {}",
            index + 1,
            cells.len(),
            cell.spec,
            cell.mode
        );
        bar.set_label(&label);
        let result = run_cell(cell, lists, |n| bar.set(done + n))?;
        done += cell.plan.inputs();
        let json = serde_json::to_vec_pretty(&result)?;
        crate::out_file::write_whole("--out", &cell.file("json"), &json)?;
        results[index] = Some(result);
        after_cell(results)?;
    }
    Ok(())
}

/// Every cell, resolved and planned, in the order they run: for each function, each
/// family and mode; then the full target names, each mode.
fn plan_cells(args: &ReportArgs, cells_dir: &Path) -> anyhow::Result<Vec<Cell>> {
    let modes = &args.rounding.0;
    let format_flag = args
        .format
        .as_deref()
        .map(CrunchFormat::parse)
        .transpose()?;
    let mut cells: Vec<Cell> = Vec::new();
    for CellTarget {
        function,
        column,
        spec,
    } in cell_targets(args)?
    {
        for &mode in modes {
            if cells.iter().any(|c| c.spec == spec && c.mode == mode) {
                return Err(InputError::Usage(format!("target {spec} is listed twice")).into());
            }
            let target = tmd_crunch::resolve_with_rounding(&spec, mode)?;
            let row = function.map_or_else(|| c_name(target.as_ref()), str::to_string);
            let stem = unique_stem(&cells, &format!("{row}.{column}.{mode}"));
            let column = match modes.len() {
                1 => column.to_string(),
                _ => format!("{column} ({mode})"),
            };
            let checkpoint = cells_dir.join(format!("{stem}.ckpt"));
            let plan = plan_for(args, target.as_ref(), format_flag, checkpoint)?;
            cells.push(Cell {
                row,
                column,
                spec: spec.clone(),
                mode,
                stem,
                dir: cells_dir.to_path_buf(),
                target,
                plan,
            });
        }
    }
    if let Some(other) = cells.iter().find(|c| c.plan.format != cells[0].plan.format) {
        return Err(InputError::Usage(format!(
            "{} is a {} function and {} a {} one: one format per report (--format)",
            cells[0].spec,
            cells[0].plan.format.name(),
            other.spec,
            other.plan.format.name()
        ))
        .into());
    }
    Ok(cells)
}

/// A cell but its mode: the function given with a family (`None` for a full target name,
/// whose target says its function), the column, the target name.
struct CellTarget<'a> {
    function: Option<&'a str>,
    column: &'a str,
    spec: String,
}

/// Every cell but the modes: each function with each family (`glibc` + `expf`), then the
/// full names.
fn cell_targets(args: &ReportArgs) -> Result<Vec<CellTarget<'_>>, InputError> {
    let (families, names): (Vec<&String>, Vec<&String>) =
        args.targets.iter().partition(|t| !t.contains(':'));
    if args
        .targets
        .iter()
        .chain(&args.functions)
        .any(String::is_empty)
    {
        return Err(InputError::Usage(
            "--targets and --functions: an empty name".into(),
        ));
    }
    if !families.is_empty() && args.functions.is_empty() {
        return Err(InputError::Usage(format!(
            "--targets {}: a library family needs --functions (e.g. --functions expf,logf)",
            families[0]
        )));
    }
    let mut specs = Vec::new();
    for function in &args.functions {
        for family in &families {
            specs.push(CellTarget {
                function: Some(function),
                column: family,
                spec: format!("{family}:{function}"),
            });
        }
    }
    for name in names {
        specs.push(CellTarget {
            function: None,
            column: name,
            spec: name.clone(),
        });
    }
    Ok(specs)
}

/// The C name of a target's function: `expf` for binary32 exp, `exp` for binary64.
fn c_name(target: &dyn tmd_crunch::Target) -> String {
    let stem = target.function().name().to_string();
    match target.format() {
        CrunchFormat::Binary32 => stem + "f",
        CrunchFormat::Binary64 => stem,
    }
}

/// `wanted` made a file stem (characters other than letters, digits, `-`, `_`, `.`
/// become `_`), with `-N` appended when an earlier cell already has it.
fn unique_stem(cells: &[Cell], wanted: &str) -> String {
    let clean: String = wanted
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let taken = |s: &str| cells.iter().any(|c| c.stem == s);
    let mut stem = clean.clone();
    let mut n = 2;
    while taken(&stem) {
        stem = format!("{clean}-{n}");
        n += 1;
    }
    stem
}

/// A cell's crunch plan: its range, blocks, sample and checkpoint.
fn plan_for(
    args: &ReportArgs,
    target: &dyn tmd_crunch::Target,
    format_flag: Option<CrunchFormat>,
    checkpoint: PathBuf,
) -> anyhow::Result<Plan> {
    let fmt = target.format();
    if format_flag.is_some_and(|f| f != fmt) {
        return Err(InputError::Usage(format!(
            "target {} is a {} function; --format {} does not fit it",
            target.name(),
            fmt.name(),
            args.format.as_deref().unwrap_or_default()
        ))
        .into());
    }
    let from = super::crunch::parse_bound(&args.from, "--from", fmt)?;
    let to = super::crunch::parse_bound(&args.to, "--to", fmt)?;
    let mut plan = Plan::new(fmt, from, to, args.block_bits)?;
    plan.checkpoint = Some(checkpoint);
    plan.sample_windows = match (args.sample, fmt) {
        (Some(0), _) => {
            return Err(InputError::Usage("--sample 0: at least one window".into()).into())
        }
        (Some(n), _) => Some(n),
        (None, CrunchFormat::Binary64) => Some(DEFAULT_BINARY64_WINDOWS),
        (None, CrunchFormat::Binary32) => None,
    };
    // Windows that cover the range: every input, as crunch does.
    if !plan.is_sample() {
        plan.sample_windows = None;
    }
    Ok(plan)
}

/// Reads every input list through once, so that a bad line stops the report before any
/// cell runs. Returns the lists as given.
fn check_lists(paths: &[PathBuf], format: CrunchFormat) -> Result<Vec<PathBuf>, InputError> {
    for path in paths {
        let name = path.display().to_string();
        let file = super::open_readable(path)
            .map_err(|e| InputError::Usage(format!("--inputs {name}: {}", super::io_reason(&e))))?;
        for entry in InputList::new(BufReader::new(file), &name, format) {
            entry?;
        }
    }
    Ok(paths.to_vec())
}

/// The results of cells a previous run finished (`None` for the others), after checking
/// that whatever `cells/` holds belongs to this report.
fn finished_cells(cells: &[Cell], lists: &[PathBuf]) -> anyhow::Result<Vec<Option<CellResult>>> {
    let list_names = list_names(lists);
    let mut results = Vec::new();
    for cell in cells {
        let expected = tmd_crunch::driver::header(cell.target.as_ref(), &cell.plan);
        let other_report = |path: &Path, what: String| {
            InputError::Usage(format!(
                "{} belongs to another report ({what}); use another --out",
                path.display()
            ))
        };
        let json = cell.file("json");
        if json.is_file() {
            let text = std::fs::read(&json)?;
            let result: CellResult = serde_json::from_slice(&text)
                .map_err(|_| other_report(&json, "not a cell of tmd report".into()))?;
            if !result.header.same_run(&expected) || result.inputs_files != list_names {
                let h = &result.header;
                return Err(other_report(
                    &json,
                    format!(
                        "{} [{}, {}), blocks of 2^{}, lists {:?}",
                        h.target, h.from, h.to, h.block_bits, result.inputs_files
                    ),
                )
                .into());
            }
            results.push(Some(result));
            continue;
        }
        let checkpoint = cell.file("ckpt");
        // An empty checkpoint holds nothing done yet (docs/definitions.md).
        if std::fs::metadata(&checkpoint).is_ok_and(|m| m.len() > 0) {
            let existing =
                Checkpoint::read(&checkpoint).map_err(|e| super::crunch::map_error(e.into()))?;
            if !existing.header.same_run(&expected) {
                let h = &existing.header;
                let what = format!(
                    "{} [{}, {}), blocks of 2^{}",
                    h.target, h.from, h.to, h.block_bits
                );
                return Err(other_report(&checkpoint, what).into());
            }
        }
        results.push(None);
    }
    Ok(results)
}

fn list_names(lists: &[PathBuf]) -> Vec<String> {
    lists.iter().map(|p| p.display().to_string()).collect()
}

/// Creates `DIR/cells`; a DIR that is a file, or one that cannot be made, is bad input.
fn create_out_dir(out: &Path, cells_dir: &Path) -> Result<(), InputError> {
    if out.exists() && !out.is_dir() {
        return Err(InputError::Usage(format!(
            "--out {}: not a directory",
            out.display()
        )));
    }
    std::fs::create_dir_all(cells_dir).map_err(|e| {
        InputError::Usage(format!("--out {}: {}", out.display(), super::io_reason(&e)))
    })
}

/// Runs one cell: its range (resumed from its checkpoint), then its lists; writes its plot.
/// `progress(inputs)` follows the range run.
fn run_cell(cell: &Cell, lists: &[PathBuf], progress: impl Fn(u64)) -> anyhow::Result<CellResult> {
    let target = cell.target.as_ref();
    let (report, blocks) = tmd_crunch::run(target, &cell.plan, |done, _| progress(done))
        .map_err(super::crunch::map_error)?;
    let mut list_reports = Vec::new();
    for path in lists {
        list_reports.push(run_list(target, path)?);
    }
    super::crunch::write_plot(
        crate::out_file::OutFile::create("--out", &cell.file("svg"))?,
        cell.plan.format,
        &report,
        &blocks,
    )?;
    let block_seconds: f64 = blocks.values().map(|b| b.seconds).sum();
    Ok(combine(
        cell,
        &report,
        block_seconds,
        &list_reports,
        list_names(lists),
    ))
}

fn run_list(target: &dyn tmd_crunch::Target, path: &Path) -> anyhow::Result<ListReport> {
    let name = path.display().to_string();
    let file = super::open_readable(path)
        .map_err(|e| InputError::Usage(format!("--inputs {name}: {}", super::io_reason(&e))))?;
    let mut list = InputList::new(BufReader::new(file), &name, target.format());
    check_list(target, &mut list, &name, |_| Ok::<(), anyhow::Error>(()))
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
    let mut result = CellResult {
        header: tmd_crunch::driver::header(cell.target.as_ref(), &cell.plan),
        inputs_files,
        inputs: report.inputs,
        sampled: cell.plan.is_sample(),
        max_ulp: report.max_ulp,
        max_verified: report.max_verified,
        max_ulp_bound: report.max_ulp_bound,
        argmax: report.argmax.clone(),
        argmax_result: report.argmax_result.clone(),
        argmax_expected: report.argmax_expected.clone(),
        correctly_rounded: report.correctly_rounded,
        faithful: report.faithful,
        worse: report.worse,
        seconds: block_seconds,
        crunch: serde_json::to_value(report).expect("a report serialises"),
        lists: Vec::new(),
        computed: Some(Provenance::here()),
    };
    for list in lists {
        result.inputs += list.inputs;
        result.correctly_rounded += list.correctly_rounded;
        result.faithful += list.faithful;
        result.worse += list.worse;
        result.seconds += list.seconds;
        result
            .lists
            .push(serde_json::to_value(list).expect("a report serialises"));
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

/// The heading's facts: version, command line, date, machine, and what every cell covers.
fn heading(plan: &Plan, lists: &[PathBuf], threads: usize) -> Heading {
    Heading {
        version: env!("TMD_VERSION").to_string(),
        command: command_line(),
        date: utc_now(),
        machine: report_table::machine(),
        threads,
        coverage: coverage(plan, lists),
    }
}

/// Which inputs each cell covers, in words; binary64 is never called exhaustive.
fn coverage(plan: &Plan, lists: &[PathBuf]) -> String {
    let fmt = plan.format.name();
    let (from, to) = plan.bounds_text();
    let whole =
        plan.first == -plan.format.max_ordinal() && plan.end == plan.format.max_ordinal() + 1;
    let inputs = plan.inputs();
    let mut text = match plan.sample_windows {
        Some(windows) => format!(
            "a sample, not exhaustive: {windows} evenly spaced windows of 2^{} {fmt} inputs \
             over [{from}, {to}), {inputs} inputs per cell",
            plan.block_bits
        ),
        None if whole && plan.format == CrunchFormat::Binary32 => {
            format!("every finite {fmt} input (exhaustive), {inputs} inputs per cell")
        }
        None => format!("every {fmt} input of [{from}, {to}), {inputs} inputs per cell"),
    };
    if !lists.is_empty() {
        text.push_str(&format!(
            ", plus the inputs of {} (each judged by MPFR)",
            list_names(lists).join(", ")
        ));
    }
    text
}

/// The command as typed, each argument quoted where a shell would need it.
fn command_line() -> String {
    let quote = |a: String| {
        if !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.,:/=+".contains(c))
        {
            a
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    };
    let mut args = std::env::args();
    let program = args.next().map(|p| {
        Path::new(&p)
            .file_name()
            .map_or(p.clone(), |f| f.to_string_lossy().into_owned())
    });
    program
        .into_iter()
        .chain(args.map(quote))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The current date and time in UTC, `2026-11-24 09:41 UTC`.
pub(crate) fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    let minutes = secs % 86_400 / 60;
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        minutes / 60,
        minutes % 60
    )
}

/// The proleptic Gregorian date of a day number counted from 1970-01-01 (Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Rewrites `report.md`, `report.csv` and `report.html`, each through a temporary file and a
/// rename, after drawing again any finished cell's missing plot.
fn write_tables(
    out: &Path,
    heading: &Heading,
    cells: &[Cell],
    results: &[Option<CellResult>],
) -> anyhow::Result<()> {
    let table: Vec<TableCell> = cells
        .iter()
        .zip(results)
        .map(|(c, r)| TableCell {
            row: &c.row,
            column: &c.column,
            target: &c.spec,
            mode: c.mode,
            stem: &c.stem,
            result: r.as_ref(),
            plot: r
                .as_ref()
                .is_some_and(|r| super::report_plot::ensure(&c.file("svg"), &c.file("ckpt"), r)),
        })
        .collect();
    let files = [
        ("report.md", report_table::markdown(heading, &table)),
        ("report.csv", report_table::csv(&table)),
        ("report.html", report_table::html(heading, &table)),
    ];
    for (name, text) in files {
        crate::out_file::write_whole("--out", &out.join(name), text.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_become_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_789), (2026, 12, 2));
    }
}
