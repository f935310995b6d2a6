//! A finished cell's plot, `cells/STEM.svg`, kept beside its JSON: when the file is gone (a
//! directory copied without it, a file deleted) it is drawn again from the cell's
//! checkpoint, which holds every block's maximum, so that a report rebuilt from its cells
//! shows the plots an uninterrupted run would.

use crate::table::CellResult;
use std::path::Path;
use tmd_crunch::checkpoint::Checkpoint;
use tmd_crunch::job::range::plot_title;
use tmd_crunch::CrunchFormat;

/// Whether the cell's plot is at `svg` on return: the file already there is kept; a missing
/// one is drawn from `checkpoint` when that holds the blocks of this cell's run. A
/// checkpoint that is missing, damaged or of another run leaves the cell without a plot.
pub fn ensure(svg: &Path, checkpoint: &Path, result: &CellResult) -> bool {
    if svg.is_file() {
        return true;
    }
    let header = &result.header;
    let (Ok(format), Ok(saved)) = (
        CrunchFormat::parse(&header.format),
        Checkpoint::read(checkpoint),
    ) else {
        return false;
    };
    if !saved.header.same_run(header) {
        return false;
    }
    let blocks: Vec<_> = saved.blocks.values().collect();
    // The title `tmd crunch --plot` gives the same run.
    let title = plot_title(
        &header.target,
        &header.format,
        (&header.from, &header.to),
        header.rounding,
    );
    let text = tmd_crunch::plot::svg(&title, format, &blocks);
    tmd_core::out_file::OutFile::create("--out", svg)
        .is_ok_and(|f| f.write_whole(text.as_bytes()).is_ok())
}
