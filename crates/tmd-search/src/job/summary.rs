//! The end of a search: its counts as the report line (and a warning when inputs were left
//! undecided), the `--stats` file with the filter's per-phase statistics, and the count of
//! the range records listed.

use super::sink::Ended;
use super::{JobError, JobWatcher};
use crate::filter::stats::{FilterStats, PhaseCounts};
use crate::{SearchPlan, Summary};
use tmd_core::out_file::OutFile;

/// The end of a single-process search: the report of the whole range (`summary` of this
/// run's part, `ended` with the journal's counts added), the `--stats` file with the filter's
/// statistics, and the count of range records listed.
pub fn report_end(
    plan: &SearchPlan,
    summary: &Summary,
    ended: &Ended,
    threads: usize,
    (filter, stats_file): (Option<&FilterStats>, Option<OutFile>),
    watcher: &dyn JobWatcher,
) -> Result<(), JobError> {
    let mut total = summary.clone();
    total.counts = ended.counts;
    let searched = summary.inputs;
    report(plan, &total, searched, threads, watcher);
    if let Some(file) = stats_file {
        write_stats(plan, &total, searched, filter, threads, file)?;
    }
    let (records, inputs) = ended.range_records;
    if records > 0 {
        watcher.say(&format!(
            "{inputs} of the hard-to-round inputs are listed as {records} range records (every \
             input proven hard by a rule; --expand-ranges lists them one by one)"
        ));
    }
    Ok(())
}

/// Says the report of a search: `s` counts every input of the range, `searched` those this
/// run searched (fewer when it resumed a journal), which the rate is of.
pub fn report(
    plan: &SearchPlan,
    s: &Summary,
    searched: u64,
    threads: usize,
    watcher: &dyn JobWatcher,
) {
    let secs = s.elapsed.as_secs_f64();
    let rate = searched as f64 / secs.max(1e-9);
    watcher.say(&format!(
        "{} in {} [{}, {}): {} inputs, {} hard-to-round (K = {}, {}), {} exact, {} unresolved, {} undefined, {} poles, {} overflow; {:.2} s, {:.0} inputs/s on {} threads",
        plan.target.name, plan.range.format.name(), plan.from.to_hex(), plan.to.to_hex(), s.inputs, s.hard,
        plan.params.bits, plan.params.breakpoints.name(), s.exact, s.unresolved, s.undefined, s.poles, s.overflow, secs, rate, threads
    ));
    if s.unresolved > 0 {
        watcher.say(&format!("warning: {} inputs could not be decided within {} bits; they are listed with kind \"unresolved\" (raise --max-precision)", s.unresolved, plan.params.max_precision));
    }
}

/// Writes the `--stats` file of a search ([`report`]'s counts, with the filter's statistics).
fn write_stats(
    plan: &SearchPlan,
    s: &Summary,
    searched: u64,
    filter: Option<&FilterStats>,
    threads: usize,
    file: OutFile,
) -> Result<(), JobError> {
    let secs = s.elapsed.as_secs_f64();
    let rate = searched as f64 / secs.max(1e-9);
    let stats = serde_json::json!({
        "function": plan.target.name,
        "format": plan.range.format.name(),
        "from": plan.from.to_hex(),
        "to": plan.to.to_hex(),
        "bits": plan.params.bits,
        "breakpoints": plan.params.breakpoints.name(),
        "algorithm": plan.algorithm().name(),
        "backend": plan.backend.name(),
        "device": plan.filter.as_ref().and_then(|f| f.device.as_ref()).map(|d| d.name()),
        "threads": threads,
        "inputs": s.inputs,
        "hard": s.hard,
        "exact": s.exact,
        "unresolved": s.unresolved,
        "undefined": s.undefined,
        "poles": s.poles,
        "overflow": s.overflow,
        "seconds": secs,
        "inputs_per_second": rate,
        "filter": filter.map(|f| filter_json(plan, f)),
    });
    file.write_whole(format!("{stats:#}\n").as_bytes())?;
    Ok(())
}

/// The per-phase statistics (compare Fortin, Gouicem and Graillat, "GPU-Accelerated Generation
/// of Correctly Rounded Elementary Functions", ACM TOMS, 2016, Tables II and III).
fn filter_json(plan: &SearchPlan, f: &FilterStats) -> serde_json::Value {
    let phase = |p: &PhaseCounts| {
        serde_json::json!({
            "domains_in": p.domains_in,
            "arguments_in": p.args_in,
            "domains_failed": p.domains_failed,
            "arguments_failed": p.args_failed,
            "thread_seconds": p.nanos as f64 * 1e-9,
        })
    };
    let params = plan.filter.as_ref();
    serde_json::json!({
        "domain_size_max": params.map(|p| p.domain_size),
        "kappa": params.map(|p| p.kappa),
        "chunk_inputs_max": params.map(|p| p.chunk_len),
        "division_threshold": params.map(|p| p.division_threshold),
        "chunks": f.chunks,
        "chunk_inputs": f.chunk_inputs,
        "reference_inputs": f.reference_inputs,
        "screened_inputs": f.screened_inputs,
        "whole_chunk_inputs": f.whole_chunk_inputs,
        "rule_inputs": f.rule_inputs,
        "domain_sizes_used": [f.domain_size_min, f.domain_size_max],
        "degrees_used": [f.degree_min, f.degree_max],
        "generation_thread_seconds": f.generation_nanos as f64 * 1e-9,
        "device_thread_seconds": f.device_nanos as f64 * 1e-9,
        "device_step_thread_seconds": crate::filter::device::DEVICE_STEPS
            .iter()
            .zip(f.step_nanos)
            .map(|(k, n)| (k.to_string(), serde_json::json!(n as f64 * 1e-9)))
            .collect::<serde_json::Map<_, _>>(),
        "phase1": phase(&f.phase1),
        "phase2": phase(&f.phase2),
        "phase3": phase(&f.phase3),
        "candidates": f.candidates,
        "verification_thread_seconds": f.verification_nanos as f64 * 1e-9,
        "nmdm": nmdm_json(&f.nmdm),
        // On a device: over the 32 lanes of real warps (zero groups on the CPU backend).
        "nmdm_warp": nmdm_json(&f.nmdm_warp),
    })
}

/// An NMDM statistic as JSON: groups of 32, their mean NMDM and the mean loop iterations.
fn nmdm_json(n: &crate::filter::Nmdm) -> serde_json::Value {
    serde_json::json!({
        "group": 32,
        "groups": n.groups,
        "mean": n.mean(),
        "mean_iterations": if n.domains > 0 { n.iterations as f64 / n.domains as f64 } else { 0.0 },
    })
}
