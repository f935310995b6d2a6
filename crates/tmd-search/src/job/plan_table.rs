//! `--plan`: the pieces of a range with their methods and projected times (`crate::projection`),
//! as a table or JSON lines, and the total as one line.

use super::JobError;
use crate::output::{duration, si};
use crate::projection::{PieceMethod, PlannedPiece};
use crate::SearchPlan;
use std::io::Write;
use tmd_core::InputError;

/// The pieces of `plan`'s range, each projected from timed samples (on the caller's pool).
pub fn project(plan: &SearchPlan) -> Result<Vec<PlannedPiece>, JobError> {
    let Some(filter) = plan.filter.as_ref() else {
        return Err(InputError::Usage(format!(
            "--plan projects the filtered algorithms; --algorithm {} has no plan",
            plan.algorithm().name()
        ))
        .into());
    };
    crate::projection::project(
        &plan.target,
        &plan.range,
        &plan.params,
        filter,
        plan.range_records,
    )
    .map_err(JobError::Projection)
}

/// Writes `pieces` (of [`project`]) to `out` and returns the line of the total.
pub fn write(
    plan: &SearchPlan,
    pieces: &[PlannedPiece],
    json: bool,
    threads: usize,
    out: &mut dyn Write,
) -> std::io::Result<String> {
    let filter = plan.filter.as_ref().expect("a projected plan has a filter");
    if json {
        write_json(plan, pieces, out)?;
    } else {
        write_table(plan, pieces, out)?;
    }
    let total: f64 = pieces.iter().map(|p| p.projected_seconds).sum();
    let inputs_where = |keep: fn(&PieceMethod) -> bool| -> u64 {
        pieces
            .iter()
            .filter(|p| keep(&p.method))
            .map(|p| (p.end - p.start) as u64)
            .sum()
    };
    let ruled = inputs_where(|m| matches!(m, PieceMethod::RuleNoneHard | PieceMethod::RuleRecord));
    let whole = inputs_where(|m| matches!(m, PieceMethod::Whole(_)));
    Ok(format!(
        "plan of {} in {} [{}, {}): {} pieces, {} inputs, {} of them decided by the rule, \
         {} by one enclosure each; projected {} on {} ({} threads) from timed samples in chunks of {} inputs{}",
        plan.target.name,
        plan.range.format.name(),
        plan.from.to_hex(),
        plan.to.to_hex(),
        pieces.len(),
        si((plan.range.end - plan.range.start) as f64),
        si(ruled as f64),
        si(whole as f64),
        duration(total),
        plan.backend.name(),
        threads,
        si(filter.chunk_len as f64),
        if filter.flat_chunk_len > filter.chunk_len {
            format!(" (up to {} where nearly flat)", si(filter.flat_chunk_len as f64))
        } else {
            String::new()
        },
    ))
}

/// The first input of ordinal `o`, in hex.
fn hex(plan: &SearchPlan, o: i128) -> String {
    plan.range.format.from_ordinal(o).to_hex()
}

/// One JSON object per piece.
fn write_json(
    plan: &SearchPlan,
    pieces: &[PlannedPiece],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let pair = |v: Option<(u64, u64)>| v.map(|(a, b)| serde_json::json!([a, b]));
    for p in pieces {
        writeln!(
            out,
            "{}",
            serde_json::json!({
                "from": hex(plan, p.start),
                "to_last": hex(plan, p.end - 1),
                "inputs": (p.end - p.start) as u64,
                "method": p.method.name(),
                "degrees": pair(p.degrees),
                "domain_sizes": pair(p.domain_sizes),
                "sample_inputs": p.sample_inputs,
                "sample_seconds": p.sample_seconds,
                "projected_seconds": p.projected_seconds,
            })
        )?;
    }
    Ok(())
}

/// A table with a row per piece.
fn write_table(
    plan: &SearchPlan,
    pieces: &[PlannedPiece],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<26} {:<26} {:>9} {:<22} {:>7} {:>13} {:>12}",
        "from", "to (last input)", "inputs", "method", "degree", "domain size", "projected"
    )?;
    let range = |v: Option<(u64, u64)>| match v {
        Some((a, b)) if a == b => a.to_string(),
        Some((a, b)) => format!("{a}-{b}"),
        None => "-".to_string(),
    };
    for p in pieces {
        writeln!(
            out,
            "{:<26} {:<26} {:>9} {:<22} {:>7} {:>13} {:>12}",
            hex(plan, p.start),
            hex(plan, p.end - 1),
            si((p.end - p.start) as f64),
            p.method.name(),
            range(p.degrees),
            range(p.domain_sizes),
            duration(p.projected_seconds)
        )?;
    }
    Ok(())
}
