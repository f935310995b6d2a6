//! A one-argument target over a range in each rounding mode: the plans and output paths of
//! every mode checked before the first run, then each mode run in this process (or its
//! estimate) or across the ranks of mpirun, its plot written and its report printed.

use super::{format_of, parse_bound, ClusterHost, CrunchHost, CrunchRequest, JobError};
use crate::checkpoint::BlockRecord;
use crate::driver::{CrunchError, Plan, Report};
use crate::format::CrunchFormat;
use crate::gate::{apply_gate, GateInput};
use crate::rounding::Rounding;
use crate::target::{BoxedTarget, Target};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use tmd_core::out_file::{Claim, OutFile};
use tmd_core::InputError;

/// Runs every mode's target over the request's range, in order.
pub fn run(
    req: &CrunchRequest,
    targets: &[BoxedTarget],
    out: &mut (dyn Write + Send),
    host: &dyn CrunchHost,
) -> Result<(), JobError> {
    let modes = &req.rounding;
    // Every mode's plan, so that an unusable output path of any mode stops the runs before
    // the first.
    let runs = modes
        .iter()
        .zip(targets)
        .map(|(&mode, target)| {
            let paths = ModePaths::new(req, mode, modes.len() > 1);
            let plan = plan_for(req, target.as_ref(), &paths)?;
            Ok((target, paths, plan))
        })
        .collect::<Result<Vec<_>, JobError>>()?;
    refuse_collisions(runs.iter().map(|(_, paths, _)| paths))?;
    // Every plot exists, as a temporary file, before the first run: one that cannot be
    // written costs nothing.
    let plots = runs
        .iter()
        .map(|(_, paths, _)| {
            let plot = paths.plot.as_deref();
            plot.map(|path| OutFile::create("--plot", path)).transpose()
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (index, ((target, paths, plan), plot)) in runs.iter().zip(plots).enumerate() {
        if let Some(path) = &paths.checkpoint {
            host.kept(format!(
                "{} holds every finished block: the same command goes on from there",
                path.display()
            ));
        }
        let target = target.as_ref();
        match host.cluster() {
            Some(cluster) => run_on_cluster(req, target, plan, plot, cluster, index == 0, out)?,
            None => run_one(req, target, paths, plan, plot, out, host)?,
        }
    }
    Ok(())
}

/// Refuses outputs of the runs that are one file: the plots, the checkpoints and their locks.
fn refuse_collisions<'a>(runs: impl Iterator<Item = &'a ModePaths>) -> Result<(), InputError> {
    let mut claims = Vec::new();
    for paths in runs {
        if let Some(path) = &paths.plot {
            claims.push(Claim::output("--plot", path));
        }
        if let Some(path) = &paths.checkpoint {
            let mut lock = path.as_os_str().to_owned();
            lock.push(".lock");
            claims.push(Claim::new("--checkpoint", vec![path.clone(), lock.into()]));
        }
    }
    tmd_core::out_file::refuse_collisions(&claims)
}

/// The checkpoint and plot files of one mode's run: the given ones, or with several modes
/// the mode inserted before their extension (`run.ckpt` -> `run.up.ckpt`).
struct ModePaths {
    checkpoint: Option<PathBuf>,
    plot: Option<PathBuf>,
}

impl ModePaths {
    fn new(req: &CrunchRequest, mode: Rounding, several: bool) -> ModePaths {
        let name = |path: &PathBuf| {
            if several {
                with_mode(path, mode)
            } else {
                path.clone()
            }
        };
        ModePaths {
            checkpoint: req.checkpoint.as_ref().map(name),
            plot: req.plot.as_ref().map(name),
        }
    }
}

/// `path` with `.MODE` before its extension (`run.ckpt` -> `run.up.ckpt`, `cp` -> `cp.up`).
fn with_mode(path: &Path, mode: Rounding) -> PathBuf {
    let mut file = path.file_stem().unwrap_or_default().to_owned();
    file.push(format!(".{mode}"));
    if let Some(ext) = path.extension() {
        file.push(".");
        file.push(ext);
    }
    path.with_file_name(file)
}

/// The plan of one mode's run, its output paths checked.
fn plan_for(req: &CrunchRequest, target: &dyn Target, paths: &ModePaths) -> Result<Plan, JobError> {
    if let Some(path) = &paths.plot {
        tmd_core::out_file::check("--plot", path)?;
    }
    let fmt = format_of(req, target)?;
    let (Some(from), Some(to)) = (req.from.as_deref(), req.to.as_deref()) else {
        return Err(InputError::Usage(
            "give the range with --from A --to B, or the inputs with --inputs FILE".into(),
        )
        .into());
    };
    let from = parse_bound(from, "--from", fmt)?;
    let to = parse_bound(to, "--to", fmt)?;
    // A device launch per block: on a device, binary32 blocks of 2^24 (2^20 took 3 ms per
    // launch more than its work on an H200, docs/BENCHMARKS.md).
    let default_bits = match (fmt, req.backend == "cpu") {
        (CrunchFormat::Binary32, true) => 20,
        (CrunchFormat::Binary32, false) => 24,
        (CrunchFormat::Binary64, _) => 32,
    };
    let mut plan = Plan::new(fmt, from, to, req.block_bits.unwrap_or(default_bits))?;
    if let Some(path) = &paths.checkpoint {
        // Where a checkpoint could never be (a device, a FIFO, a directory, no such
        // directory): bad input before any work, as for --out.
        tmd_core::out_file::check("--checkpoint", path)?;
        crate::checkpoint::check_path(path).map_err(|e| InputError::Usage(e.to_string()))?;
    }
    plan.checkpoint = paths.checkpoint.clone();
    plan.sample_windows = req.sample;
    if req.sample == Some(0) {
        return Err(InputError::Usage("--sample 0: at least one window".into()).into());
    }
    if let Some(windows) = req.sample.filter(|_| !plan.is_sample()) {
        eprintln!(
            "tmd: note: --sample {windows} windows of 2^{} inputs cover the range: every input \
             is crunched",
            plan.block_bits
        );
        plan.sample_windows = None;
    }
    Ok(plan)
}

/// One mode's run (or estimate) in this process.
fn run_one(
    req: &CrunchRequest,
    target: &dyn Target,
    paths: &ModePaths,
    plan: &Plan,
    plot: Option<OutFile>,
    out: &mut (dyn Write + Send),
    host: &dyn CrunchHost,
) -> Result<(), JobError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(req.threads.unwrap_or(0))
        .build()
        .map_err(JobError::Threads)?;
    if req.estimate {
        return estimate(req, target, plan, &pool, out);
    }
    let bar = host.bar(plan.inputs());
    let result = pool.install(|| crate::run(target, plan, |done, _| bar.set(done)));
    bar.finish();
    let (report, blocks) = result.map_err(|e| match (e, &paths.checkpoint) {
        (CrunchError::Target(failure), Some(checkpoint)) => JobError::TargetWithCheckpoint {
            failure,
            checkpoint: checkpoint.clone(),
        },
        (e, _) => e.into(),
    })?;
    let threads = pool.current_num_threads();
    finish(req, plot, plan.format, (&report, &blocks), threads, out)
}

/// `--estimate`: a sample of 64 windows, grown until it takes a second, and the time the
/// whole range would take.
fn estimate(
    req: &CrunchRequest,
    target: &dyn Target,
    plan: &Plan,
    pool: &rayon::ThreadPool,
    out: &mut (dyn Write + Send),
) -> Result<(), JobError> {
    // A device needs larger windows than the cores for its launches not to dominate.
    let (first, max) = if req.backend == "cpu" {
        (1 << 14, 1 << 24)
    } else {
        (1 << 20, 1 << 28)
    };
    let est = pool.install(|| crate::estimate_adaptive(target, plan, 64, first, max, 1.0));
    crate::driver::working(target)?;
    if req.json {
        writeln!(out, "{}", serde_json::to_string(&est)?)?;
    } else {
        let (from, to) = plan.bounds_text();
        writeln!(
            out,
            "tmd crunch {} over {} [{from}, {to}): {} inputs; sample of {} inputs in {:.3} s on {} threads = {:.3e} inputs/s; projected {:.1} s ({:.2} h)",
            est.target, est.format, est.inputs, est.sample_inputs, est.sample_seconds,
            est.threads, est.inputs_per_second, est.projected_seconds,
            est.projected_seconds / 3600.0
        )?;
    }
    Ok(())
}

/// One mode's run across the ranks of mpirun; `first`: the first mode, which sizes the global
/// thread pool (it can be sized once per process).
fn run_on_cluster(
    req: &CrunchRequest,
    target: &dyn Target,
    plan: &Plan,
    plot: Option<OutFile>,
    cluster: &dyn ClusterHost,
    first: bool,
    out: &mut (dyn Write + Send),
) -> Result<(), JobError> {
    if req.estimate {
        return Err(
            InputError::Usage("--estimate runs in one process, not under mpirun".into()).into(),
        );
    }
    // MPI handles are not Send, so this rank's blocks run on the global pool, sized to
    // this rank's share of the node's cores.
    let threads = req.threads.unwrap_or_else(|| cluster.threads_per_rank());
    if first {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .map_err(JobError::Threads)?;
    }
    let root = cluster.rank() == 0;
    let result = crate::driver::run_cluster(target, plan, cluster, |_, _| {});
    match result {
        Ok(Some((report, blocks))) => {
            finish(req, plot, plan.format, (&report, &blocks), threads, out)
        }
        Ok(None) => Ok(()),
        Err(CrunchError::OtherRank) if !root => cluster.fail_together(None),
        // Bad input or checkpoint: found before any work, every rank is waiting.
        Err(e @ (CrunchError::Input(_) | CrunchError::Checkpoint(_))) if root => {
            cluster.fail_together(Some(e.into()))
        }
        Err(e) if root => cluster.abort(e.into()),
        Err(e) => Err(e.into()),
    }
}

/// Writes the plot, prints the report and applies `--max-ulp`.
fn finish(
    req: &CrunchRequest,
    plot: Option<OutFile>,
    fmt: CrunchFormat,
    (report, blocks): (&Report, &BTreeMap<i64, BlockRecord>),
    threads: usize,
    out: &mut (dyn Write + Send),
) -> Result<(), JobError> {
    if let Some(plot) = plot {
        write_plot(plot, fmt, report, blocks)?;
    }
    if req.json {
        writeln!(out, "{}", serde_json::to_string(report)?)?;
    } else {
        super::text::write_range_report(out, report, threads, req.max_ulp)?;
    }
    let gate = GateInput::new(&report.outcome, report.outcome.argmax.as_deref());
    Ok(apply_gate(req.max_ulp, &gate)?)
}

/// The title of a run's plot: its target, range and mode.
pub fn plot_title(
    target: &str,
    format: &str,
    (from, to): (&str, &str),
    rounding: Rounding,
) -> String {
    format!("{target} over {format} [{from}, {to}), rounding {rounding}")
}

/// Writes the SVG plot of a finished run's blocks to `out`, titled with the target, range and
/// mode.
pub fn write_plot(
    out: OutFile,
    fmt: CrunchFormat,
    report: &Report,
    blocks: &BTreeMap<i64, BlockRecord>,
) -> std::io::Result<()> {
    let records: Vec<_> = blocks.values().collect();
    let title = plot_title(
        &report.target,
        &report.format,
        (&report.from, &report.to),
        report.rounding,
    );
    let svg = crate::plot::svg(&title, fmt, &records);
    out.write_whole(svg.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_of_all_gets_its_own_file_named_by_the_mode() {
        assert_eq!(
            with_mode(Path::new("dir/run.ckpt"), Rounding::Up),
            PathBuf::from("dir/run.up.ckpt")
        );
        assert_eq!(
            with_mode(Path::new("cp"), Rounding::Zero),
            PathBuf::from("cp.zero")
        );
        assert_eq!(
            with_mode(Path::new("/tmp/max.svg"), Rounding::Nearest),
            PathBuf::from("/tmp/max.nearest.svg")
        );
    }
}
