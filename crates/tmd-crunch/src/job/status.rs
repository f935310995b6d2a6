//! `tmd crunch-status` and `tmd crunch-format`: a checkpoint read back, as the progress and
//! maximum so far of its run, or as one tab-separated line per finished block.

use super::{parse_bound, JobError};
use crate::checkpoint::{Checkpoint, CheckpointError};
use crate::driver::{CrunchError, Plan};
use crate::format::CrunchFormat;
use crate::summary::Summary;
use std::io::Write;
use std::path::Path;
use tmd_core::InputError;

/// Reads a checkpoint; one that is missing, unreadable or no regular file is the user's to
/// fix, like a bad one.
fn read_checkpoint(file: &Path) -> Result<Checkpoint, JobError> {
    Checkpoint::read(file).map_err(|e| match e {
        e if e.is_bad_input() => InputError::Usage(e.to_string()).into(),
        CheckpointError::Io { source, .. }
            if matches!(
                source.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied
            ) =>
        {
            InputError::Usage(format!(
                "checkpoint {}: {}",
                file.display(),
                tmd_core::safe_fs::io_reason(&source)
            ))
            .into()
        }
        other => JobError::Crunch(CrunchError::Checkpoint(other)),
    })
}

/// The run of the checkpoint `file`: its progress, block time and maximum so far.
pub fn write_status(file: &Path, out: &mut dyn Write) -> Result<(), JobError> {
    let cp = read_checkpoint(file)?;
    let h = &cp.header;
    let fmt = CrunchFormat::parse(&h.format)?;
    let total = (|| -> Option<u64> {
        let from = parse_bound(&h.from, "from", fmt).ok()?;
        let to = parse_bound(&h.to, "to", fmt).ok()?;
        let plan = Plan::new(fmt, from, to, h.block_bits).ok()?;
        Some(plan.inputs())
    })();
    let mut sum = Summary::default();
    let mut seconds = 0.0;
    for rec in cp.blocks.values() {
        sum.merge(&rec.summary);
        seconds += rec.seconds;
    }
    writeln!(
        out,
        "{} over {} [{}, {}), rounding {}, blocks of 2^{}; reference: {}",
        h.target, h.format, h.from, h.to, h.rounding, h.block_bits, h.reference
    )?;
    let blocks = cp.blocks.len();
    match total {
        Some(t) => writeln!(
            out,
            "  {blocks} blocks done, {} of {t} inputs ({:.2}%), {seconds:.1} s of block time",
            sum.inputs,
            100.0 * sum.inputs as f64 / t.max(1) as f64,
        )?,
        None => writeln!(out, "  {blocks} blocks done, {} inputs", sum.inputs)?,
    }
    match sum.argmax {
        Some(o) => writeln!(
            out,
            "  max error so far {:.6} ulp at x = {} (reference value; the final report \
             recomputes it with MPFR)",
            sum.max_ulp,
            fmt.hex(fmt.from_ordinal(o))
        )?,
        None => writeln!(out, "  no finite error yet")?,
    }
    writeln!(
        out,
        "  correctly rounded {}, faithful {}, worse {}",
        sum.correctly_rounded, sum.faithful, sum.worse
    )?;
    Ok(())
}

/// Every finished block of the checkpoint `file`, one tab-separated line each under a
/// header line.
pub fn write_blocks(file: &Path, out: &mut dyn Write) -> Result<(), JobError> {
    let cp = read_checkpoint(file)?;
    let fmt = CrunchFormat::parse(&cp.header.format)?;
    writeln!(
        out,
        "block\tfirst\tlast\tinputs\tmax_ulp\targmax\tcorrectly_rounded\tfaithful\tworse\tseconds"
    )?;
    for rec in cp.blocks.values() {
        let s = &rec.summary;
        let argmax = s
            .argmax
            .map(|o| fmt.hex(fmt.from_ordinal(o)))
            .unwrap_or_else(|| "-".into());
        let max = if s.argmax.is_some() {
            format!("{:.6}", s.max_ulp)
        } else {
            "-".into()
        };
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.3}",
            rec.index,
            fmt.hex(fmt.from_ordinal(rec.first)),
            fmt.hex(fmt.from_ordinal(rec.end - 1)),
            s.inputs,
            max,
            argmax,
            s.correctly_rounded,
            s.faithful,
            s.worse,
            rec.seconds
        )?;
    }
    Ok(())
}
