//! # tmd-report: accuracy reports of libraries
//!
//! `tmd report` crunches a matrix of targets x functions x rounding modes and writes it as one
//! table, in Markdown, CSV and HTML with the error plots. A column is a library family
//! (`glibc`, `musl`) crossed with every function asked, or one full target name; a row is a
//! function; each cell (one target, one function, one mode) is an ordinary crunch run
//! ([`tmd_crunch::run`]) over the report's range (a sample of it for binary64, which no one
//! crunches whole), plus the inputs of the lists given, each judged by MPFR.
//!
//! ## Resuming
//!
//! Each cell has its own checkpoint `DIR/cells/STEM.ckpt`, so a kill -9 loses at most the
//! block in flight; when the cell finishes, its result (the crunch report, the input lists'
//! reports, the maximum over both: [`table::CellResult`]) is written whole to
//! `DIR/cells/STEM.json` with its plot `DIR/cells/STEM.svg`. A rerun of the same command reads
//! finished cells back from their JSON instead of recomputing them ([`resume`]) and resumes
//! the unfinished one from its checkpoint; since crunch's block summaries merge in order, the
//! final tables equal an uninterrupted run's.
//!
//! ## Checking first, writing whole
//!
//! Everything the user can get wrong (a missing library, an unknown function, a mode a target
//! cannot run under, a bad list, a directory holding another report's cells) is checked for
//! every cell before the first one runs ([`plan`], [`resume`]) and is bad input
//! ([`tmd_core::InputError`]). After every cell the three tables are rewritten whole through a
//! temporary file and a rename ([`tmd_core::out_file`]), so a reader never sees half a table.
//!
//! ## The pages
//!
//! [`table`] holds the cells' data, the rounding of the figures (upwards, to three
//! significant digits) and the CSV; [`sections`] builds one [`doc::Document`] from the cells,
//! which [`doc`] renders as Markdown and [`html`] as a self-contained page with the plots
//! ([`plot`] draws a missing plot again from its cell's checkpoint). [`heading`] says what the
//! pages' heading says: version, command line, date, machine, and which inputs every cell
//! covers.

pub mod cell;
pub mod doc;
pub mod heading;
pub mod html;
pub mod plan;
pub mod plot;
pub mod resume;
pub mod sections;
pub mod table;

pub use heading::command_line;

use plan::Cell;
use std::path::{Path, PathBuf};
use table::{CellResult, Heading, TableCell};
use tmd_core::out_file::OutFile;
use tmd_crunch::job::{Bar, JobError, Observer};
use tmd_crunch::Rounding;

/// What `tmd report` is asked to do: its flags, as values.
#[derive(Clone, Debug)]
pub struct ReportRequest {
    /// Library families (`glibc`) and full target names (`std:expf`).
    pub targets: Vec<String>,
    /// The functions each family is crossed with (`expf`).
    pub functions: Vec<String>,
    pub rounding: Vec<Rounding>,
    /// The report directory.
    pub out: PathBuf,
    pub format: Option<String>,
    /// Sample windows per cell.
    pub sample: Option<u64>,
    /// Input lists every cell also runs.
    pub inputs: Vec<PathBuf>,
    pub from: String,
    pub to: String,
    pub block_bits: u32,
    pub threads: Option<usize>,
    /// tmd's version, as `tmd --version` prints it after `tmd `.
    pub version: String,
    /// The command as typed ([`command_line`]).
    pub command: String,
}

/// Checks every cell, then runs the unfinished ones, rewriting the tables after each.
pub fn run(req: &ReportRequest, observer: &dyn Observer) -> Result<(), JobError> {
    let cells_dir = req.out.join("cells");
    let cells = plan::plan_cells(req, &cells_dir)?;
    let lists = plan::check_lists(&req.inputs, cells[0].plan.format)?;
    let mut results = resume::finished_cells(&cells, &lists)?;
    resume::create_out_dir(&req.out, &cells_dir)?;
    observer.kept(format!(
        "{} holds every finished cell and block: the same command goes on from there",
        cells_dir.display()
    ));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(req.threads.unwrap_or(0))
        .build()
        .map_err(JobError::Threads)?;
    let heading = heading::heading(req, &cells[0].plan, &lists, pool.current_num_threads());
    write_tables(&req.out, &heading, &cells, &results)?;
    let bar = observer.bar(cells.iter().map(|c| c.plan.inputs()).sum());
    let run = Run {
        cells: &cells,
        lists: &lists,
        version: &req.version,
    };
    let outcome = pool.install(|| {
        run.unfinished(&mut results, bar.as_ref(), |results| {
            write_tables(&req.out, &heading, &cells, results)
        })
    });
    bar.finish();
    outcome
}

/// The cells of a report and what each runs besides its range.
struct Run<'a> {
    cells: &'a [Cell],
    lists: &'a [PathBuf],
    /// Recorded in each cell's provenance.
    version: &'a str,
}

impl Run<'_> {
    /// Runs the cells without a result in order, each result written to `STEM.json` and
    /// into `results`, then `after_cell(results)`; the bar follows inputs over all cells.
    fn unfinished(
        &self,
        results: &mut [Option<CellResult>],
        bar: &dyn Bar,
        mut after_cell: impl FnMut(&[Option<CellResult>]) -> Result<(), JobError>,
    ) -> Result<(), JobError> {
        let cells = self.cells;
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
            let result = cell::run_cell(cell, self.lists, self.version, |n| bar.set(done + n))?;
            done += cell.plan.inputs();
            let json = serde_json::to_vec_pretty(&result)?;
            OutFile::create("--out", &cell.file("json"))?.write_whole(&json)?;
            results[index] = Some(result);
            after_cell(results)?;
        }
        Ok(())
    }
}

/// Rewrites `report.md`, `report.csv` and `report.html`, each through a temporary file and a
/// rename, after drawing again any finished cell's missing plot.
fn write_tables(
    out: &Path,
    heading: &Heading,
    cells: &[Cell],
    results: &[Option<CellResult>],
) -> Result<(), JobError> {
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
                .is_some_and(|r| plot::ensure(&c.file("svg"), &c.file("ckpt"), r)),
        })
        .collect();
    let files = [
        ("report.md", table::markdown(heading, &table)),
        ("report.csv", table::csv(&table)),
        ("report.html", table::html(heading, &table)),
    ];
    for (name, text) in files {
        OutFile::create("--out", &out.join(name))?.write_whole(text.as_bytes())?;
    }
    Ok(())
}
