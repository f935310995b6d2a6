//! The sections of `tmd report`'s pages, built from its cells: the matrix (one row per
//! function, one column per library and mode), the per-cell details, the timings with each
//! cell's provenance. [`crate::doc`] renders them as Markdown, [`crate::html`]
//! as HTML, from this one [`Document`].

use crate::doc::{self, Document, Entry, Section, Table};
use crate::html::{self, Plot};
use crate::table::{ulps_rounded_up, CellResult, Heading, TableCell};

/// The matrix's text for a finished cell's maximum: `0.502`, with `*` when the maximum is
/// only known to lie in an interval.
fn max_text(r: &CellResult, m: f64) -> String {
    format!("{}{}", ulps_rounded_up(m), unverified_mark(r))
}

fn unverified_mark(r: &CellResult) -> &'static str {
    if r.max_verified {
        ""
    } else {
        "*"
    }
}

/// The matrix entry of a cell: `0.500 (0x1.62e43p+6)`, linking the cell's plot where it has
/// one; `pending` before it is crunched, `none` when no input has a finite error.
fn matrix_entry(cell: &TableCell) -> Entry {
    let Some(r) = cell.result else {
        return Entry::plain("pending");
    };
    let (Some(m), Some(x)) = (r.max_ulp, &r.argmax) else {
        return Entry::plain("none");
    };
    Entry {
        text: max_text(r, m),
        detail: Some(x.clone()),
        link: cell.plot.then(|| plot_path(cell.stem)),
    }
}

/// A cell's plot, relative to the report directory.
pub fn plot_path(stem: &str) -> String {
    format!("cells/{stem}.svg")
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

    /// The entry at a place: a cell's, or an empty one where no cell is.
    fn entry(&self, row: &str, column: &str) -> Entry {
        self.cells
            .iter()
            .find(|c| c.row == row && c.column == column)
            .map_or(Entry::plain(""), matrix_entry)
    }
}

const MATRIX_CAPTION: &str = "Largest error in ulps, rounded upwards to three significant \
    digits, and the first argument where it occurs.";

const FOOTNOTE: &str = "`*`: more inputs lay near the maximum than a summary keeps; the \
    maximum lies between the value shown and the bound in the CSV (`max_ulp_bound`).";

const TIMINGS_CAPTION: &str = "Seconds of each cell's crunch (block time), and when, on \
    which machine and by which tmd the cell was computed (`unknown` where its JSON does not \
    say).";

/// The report's content, which `report.md` and `report.html` both render: heading, the
/// matrix, per-cell details, timings and provenance.
pub fn document(heading: &Heading, cells: &[TableCell]) -> Document {
    let done = cells.iter().filter(|c| c.result.is_some()).count();
    let unverified = cells
        .iter()
        .any(|c| c.result.is_some_and(|r| !r.max_verified));
    let notes = || match unverified {
        true => vec![FOOTNOTE.to_string()],
        false => Vec::new(),
    };
    Document {
        title: "Accuracy report".into(),
        paragraphs: vec![
            format!(
                "Written by tmd {}, `{}`, {}; {}, {} worker threads. {done} of {} cells done; \
                 each cell's own date, machine and tmd version are under Timings.",
                heading.version,
                heading.command,
                heading.date,
                heading.machine,
                heading.threads,
                cells.len()
            ),
            format!("Inputs: {}.", heading.coverage),
        ],
        sections: vec![
            Section {
                title: "Maximum known error".into(),
                paragraphs: vec![MATRIX_CAPTION.into()],
                table: matrix(cells),
                notes: notes(),
            },
            Section {
                title: "Cells".into(),
                paragraphs: Vec::new(),
                table: details(cells),
                notes: notes(),
            },
            Section {
                title: "Timings".into(),
                paragraphs: vec![TIMINGS_CAPTION.into()],
                table: timings(cells),
                notes: Vec::new(),
            },
        ],
    }
}

/// The Markdown report.
pub fn markdown(heading: &Heading, cells: &[TableCell]) -> String {
    doc::markdown(&document(heading, cells))
}

/// The HTML report: the Markdown report's content, each finished cell linking its plot,
/// and the plots.
pub fn html(heading: &Heading, cells: &[TableCell]) -> String {
    let plots: Vec<Plot> = cells
        .iter()
        .filter(|c| c.result.is_some())
        .map(|c| Plot {
            path: plot_path(c.stem),
            present: c.plot,
            caption: format!("{}, rounding {}", c.target, c.mode),
        })
        .collect();
    html::page(&document(heading, cells), &plots)
}

/// The functions x columns table.
fn matrix(cells: &[TableCell]) -> Table {
    let grid = Grid::new(cells);
    let mut header = vec!["function".to_string()];
    header.extend(grid.columns.iter().map(|c| c.to_string()));
    let rows = grid
        .rows
        .iter()
        .map(|row| {
            let mut entries = vec![Entry::plain(*row)];
            entries.extend(grid.columns.iter().map(|c| grid.entry(row, c)));
            entries
        })
        .collect();
    Table { header, rows }
}

/// What each cell found: the same in every run of the same command.
fn details(cells: &[TableCell]) -> Table {
    let header = [
        "function",
        "target",
        "rounding",
        "inputs",
        "max error (ulp)",
        "argument",
        "result",
        "correctly rounded result",
        "correctly rounded",
        "faithful",
        "worse",
    ];
    Table {
        header: header.map(String::from).to_vec(),
        rows: cells
            .iter()
            .map(|c| detail_fields(c).into_iter().map(Entry::plain).collect())
            .collect(),
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
                r.max_ulp
                    .map_or("-".into(), |m| format!("{m:.6}{}", unverified_mark(r))),
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

/// Each cell's seconds and provenance: these differ between runs.
fn timings(cells: &[TableCell]) -> Table {
    let header = [
        "function",
        "target",
        "rounding",
        "seconds",
        "computed",
        "machine",
        "tmd version",
    ];
    let row = |c: &TableCell| {
        let mut fields = vec![c.row.to_string(), c.target.to_string(), c.mode.to_string()];
        match c.result {
            None => fields.extend(std::iter::repeat_n("pending".to_string(), 4)),
            Some(r) => {
                fields.push(format!("{:.2}", r.seconds));
                match &r.computed {
                    Some(p) => fields.extend([p.date.clone(), p.machine.clone(), p.tmd.clone()]),
                    None => fields.extend(std::iter::repeat_n("unknown".to_string(), 3)),
                }
            }
        }
        fields.into_iter().map(Entry::plain).collect()
    };
    Table {
        header: header.map(String::from).to_vec(),
        rows: cells.iter().map(row).collect(),
    }
}
