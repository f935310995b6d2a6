//! The matrix of a report planned before any cell runs: every cell's target resolved in its
//! mode, its row, column and file stem, and its crunch plan; every input list read through
//! once. Whatever is wrong with any cell stops the report here, as bad input.

use crate::ReportRequest;
use std::path::{Path, PathBuf};
use tmd_core::InputError;
use tmd_crunch::input_list::InputList;
use tmd_crunch::job::{parse_bound, JobError};
use tmd_crunch::target::BoxedTarget;
use tmd_crunch::{CrunchFormat, Plan, Rounding, Target};

/// Sample windows per binary64 cell when `--sample` is not given (2^26 inputs with the
/// default blocks of 2^20: seconds per cell on two cores).
const DEFAULT_BINARY64_WINDOWS: u64 = 64;

/// One cell of the matrix, resolved and planned.
pub struct Cell {
    /// The function's C name (the row).
    pub row: String,
    /// Target family or full name, with the mode when the report has several (the column).
    pub column: String,
    /// The target name crunch resolves (`glibc:expf`).
    pub spec: String,
    pub mode: Rounding,
    /// File stem under `cells/`.
    pub stem: String,
    /// `DIR/cells`.
    pub dir: PathBuf,
    pub target: BoxedTarget,
    pub plan: Plan,
}

impl Cell {
    /// The cell's file with this extension under `cells/` (`json`, `ckpt`, `svg`).
    pub fn file(&self, extension: &str) -> PathBuf {
        self.dir.join(format!("{}.{extension}", self.stem))
    }
}

/// Every cell, resolved and planned, in the order they run: for each function, each
/// family and mode; then the full target names, each mode.
pub fn plan_cells(req: &ReportRequest, cells_dir: &Path) -> Result<Vec<Cell>, JobError> {
    let modes = &req.rounding;
    let format_flag = req.format.as_deref().map(CrunchFormat::parse).transpose()?;
    let mut cells: Vec<Cell> = Vec::new();
    for CellTarget {
        function,
        column,
        spec,
    } in cell_targets(req)?
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
            let plan = plan_for(req, target.as_ref(), format_flag, checkpoint)?;
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
fn cell_targets(req: &ReportRequest) -> Result<Vec<CellTarget<'_>>, InputError> {
    let (families, names): (Vec<&String>, Vec<&String>) =
        req.targets.iter().partition(|t| !t.contains(':'));
    if req
        .targets
        .iter()
        .chain(&req.functions)
        .any(String::is_empty)
    {
        return Err(InputError::Usage(
            "--targets and --functions: an empty name".into(),
        ));
    }
    if !families.is_empty() && req.functions.is_empty() {
        return Err(InputError::Usage(format!(
            "--targets {}: a library family needs --functions (e.g. --functions expf,logf)",
            families[0]
        )));
    }
    let mut specs = Vec::new();
    for function in &req.functions {
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
fn c_name(target: &dyn Target) -> String {
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
    req: &ReportRequest,
    target: &dyn Target,
    format_flag: Option<CrunchFormat>,
    checkpoint: PathBuf,
) -> Result<Plan, InputError> {
    let fmt = target.format();
    if format_flag.is_some_and(|f| f != fmt) {
        return Err(InputError::Usage(format!(
            "target {} is a {} function; --format {} does not fit it",
            target.name(),
            fmt.name(),
            req.format.as_deref().unwrap_or_default()
        )));
    }
    let from = parse_bound(&req.from, "--from", fmt)?;
    let to = parse_bound(&req.to, "--to", fmt)?;
    let mut plan = Plan::new(fmt, from, to, req.block_bits)?;
    plan.checkpoint = Some(checkpoint);
    plan.sample_windows = match (req.sample, fmt) {
        (Some(0), _) => return Err(InputError::Usage("--sample 0: at least one window".into())),
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
pub fn check_lists(paths: &[PathBuf], format: CrunchFormat) -> Result<Vec<PathBuf>, InputError> {
    for path in paths {
        let name = path.display().to_string();
        let reader = tmd_crunch::job::list::open_list(path)?;
        for entry in InputList::new(reader, &name, format) {
            entry?;
        }
    }
    Ok(paths.to_vec())
}
