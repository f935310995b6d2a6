//! A report run again: the cells a previous run finished are read back from their JSON, and
//! whatever `cells/` holds is checked to belong to this report (the same target, range,
//! blocks, sample and lists) before anything runs, so that one report never mixes in another's
//! cells.

use crate::plan::Cell;
use crate::table::CellResult;
use std::path::{Path, PathBuf};
use tmd_core::InputError;
use tmd_crunch::checkpoint::Checkpoint;
use tmd_crunch::job::JobError;

/// The results of cells a previous run finished (`None` for the others), after checking
/// that whatever `cells/` holds belongs to this report.
pub fn finished_cells(
    cells: &[Cell],
    lists: &[PathBuf],
) -> Result<Vec<Option<CellResult>>, JobError> {
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
            let existing = Checkpoint::read(&checkpoint)?;
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

/// The lists as a cell's JSON names them.
pub fn list_names(lists: &[PathBuf]) -> Vec<String> {
    lists.iter().map(|p| p.display().to_string()).collect()
}

/// Creates `DIR/cells`; a DIR that is a file, or one that cannot be made, is bad input.
pub fn create_out_dir(out: &Path, cells_dir: &Path) -> Result<(), InputError> {
    if out.exists() && !out.is_dir() {
        return Err(InputError::Usage(format!(
            "--out {}: not a directory",
            out.display()
        )));
    }
    std::fs::create_dir_all(cells_dir).map_err(|e| {
        InputError::Usage(format!(
            "--out {}: {}",
            out.display(),
            tmd_core::safe_fs::io_reason(&e)
        ))
    })
}
