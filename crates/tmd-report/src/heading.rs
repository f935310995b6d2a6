//! What the heading of a report's pages says: tmd's version, the command line as typed, the
//! date in UTC, the machine, the worker threads, and which inputs every cell covers.

use crate::resume::list_names;
use crate::table::{machine, Heading};
use crate::ReportRequest;
use std::path::{Path, PathBuf};
use tmd_crunch::{CrunchFormat, Plan};

/// The heading's facts: version, command line, date, machine, and what every cell covers.
pub fn heading(req: &ReportRequest, plan: &Plan, lists: &[PathBuf], threads: usize) -> Heading {
    Heading {
        version: req.version.clone(),
        command: req.command.clone(),
        date: tmd_core::clock::utc_now(),
        machine: machine(),
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

/// A command line as typed (the program's path, then its arguments: `std::env::args()`),
/// the program by its file name and each argument quoted where a shell would need it.
pub fn command_line(args: impl IntoIterator<Item = String>) -> String {
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
    let mut args = args.into_iter();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_goes_by_its_file_name_and_arguments_are_quoted_for_a_shell() {
        let args = ["/usr/bin/tmd", "report", "--out", "my dir", "it's"].map(String::from);
        assert_eq!(command_line(args), "tmd report --out 'my dir' 'it'\\''s'");
    }
}
