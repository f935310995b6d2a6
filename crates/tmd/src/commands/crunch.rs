//! `tmd crunch`, `tmd crunch-status`, `tmd crunch-format`: the exact worst-case error of an
//! implementation (tmd-crunch), its checkpoints and plots.

use crate::cli::CrunchArgs;
use crate::out_file::{Claim, OutFile};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};
use tmd_core::{number::parse_rounded, InputError};
use tmd_crunch::checkpoint::{Checkpoint, CheckpointError};
use tmd_crunch::driver::{reference_name, CrunchError};
use tmd_crunch::summary::Summary;
use tmd_crunch::{CrunchFormat, Plan, Report};
use tmd_gpu::crunch_target::{resolve_device, DeviceChoice, TargetError};

/// A device target whose launch fails in the middle of a run: one line and exit 1 (the
/// checkpoint keeps every finished block).
fn device_failure(line: &str) -> ! {
    eprintln!("tmd: {line}");
    crate::interrupt::clean_up();
    std::process::exit(1);
}

/// Bad checkpoints and bad input are the user's to fix (exit 2); I/O failures are not.
pub(crate) fn map_error(e: CrunchError) -> anyhow::Error {
    match e {
        CrunchError::Input(i) => i.into(),
        CrunchError::Checkpoint(c) if c.is_bad_input() => InputError::Usage(c.to_string()).into(),
        other => anyhow::Error::new(other),
    }
}

/// [`map_error`], and for a target that failed in the middle of the run, where the finished
/// blocks are (exit 1).
fn map_failure(e: CrunchError, paths: &ModePaths) -> anyhow::Error {
    match (e, &paths.checkpoint) {
        (CrunchError::Target(f), Some(path)) => anyhow::anyhow!(
            "{f}; {} holds every finished block: the same command goes on from there",
            path.display()
        ),
        (e, _) => map_error(e),
    }
}

/// A range end: a number of the format (decimals rounded), or `inf` / `-inf` for the ends of
/// the finite numbers.
pub(crate) fn parse_bound(text: &str, what: &str, fmt: CrunchFormat) -> Result<f64, InputError> {
    match text {
        "inf" | "+inf" => return Ok(f64::INFINITY),
        "-inf" => return Ok(f64::NEG_INFINITY),
        _ => {}
    }
    let shown = tmd_core::number::shown(text);
    let (number, _) = parse_rounded(text, &fmt.core())
        .map_err(|e| InputError::Range(format!("{what} {shown}: {e}")))?;
    let v = number.to_float().to_f64();
    if !v.is_finite() {
        return Err(InputError::Range(format!(
            "{what} {shown} is outside the finite {} numbers",
            fmt.name()
        )));
    }
    Ok(v)
}

pub fn run(args: &CrunchArgs) -> anyhow::Result<()> {
    if args.list {
        return list();
    }
    #[cfg(feature = "mpi")]
    let cluster = crate::cluster::MpiCluster::from_env();
    // One device per rank on a node under mpirun, unless --device says otherwise.
    #[cfg(feature = "mpi")]
    let default_device = cluster.as_ref().map_or(0, |c| c.local_rank());
    #[cfg(not(feature = "mpi"))]
    let default_device = 0;
    let spec = args.target.as_deref().expect("clap requires it");
    if args.strict && args.inputs.is_none() {
        return Err(InputError::Usage("--strict is for --inputs FILE".into()).into());
    }
    if args.backend == "cpu" && (args.device.is_some() || args.host_analysis) {
        return Err(InputError::Usage(
            "--device and --host-analysis are for --backend opencl or cuda".into(),
        )
        .into());
    }
    tmd_crunch::foreign::worker::set_timeout(args.target_timeout);
    if tmd_crunch::bivariate::target::is_bivariate(spec, args.function.as_deref()) {
        return super::crunch_pairs::run(args, spec);
    }
    super::crunch_pairs::refuse_pair_flags(args, spec)?;
    if let Some(format) = tmd_crunch::wide::format_of(spec, args.format.as_deref())? {
        return run_wide(args, spec, format);
    }
    if args.function.is_some()
        && !spec.starts_with("file:")
        && !tmd_crunch::foreign::is_foreign(spec)
    {
        return Err(InputError::Usage(format!(
            "--function is for file:, dl: and c: targets; {spec} names its own function"
        ))
        .into());
    }
    // Every mode's target first: a mode the target cannot run under is refused before any
    // other mode runs.
    let modes = &args.rounding.0;
    let targets = modes
        .iter()
        .map(|&mode| resolve_target(args, spec, mode, default_device))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let Some(list) = &args.inputs {
        return run_lists(args, &targets, list);
    }
    // Then every mode's plan, so that an unusable output path of any mode stops the runs
    // before the first.
    let runs = modes
        .iter()
        .zip(&targets)
        .map(|(&mode, target)| {
            let paths = ModePaths::new(args, mode, modes.len() > 1);
            let plan = plan_for(args, target.as_ref(), &paths)?;
            Ok((target, paths, plan))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    refuse_collisions(runs.iter().map(|(_, paths, _)| paths))?;
    // Every plot exists, as a temporary file, before the first run: one that cannot be
    // written costs nothing.
    let plots = runs
        .iter()
        .map(|(_, paths, _)| {
            let plot = paths.plot.as_deref();
            plot.map(|path| OutFile::create("--plot", path)).transpose()
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    for (index, ((target, paths, plan), plot)) in runs.iter().zip(plots).enumerate() {
        if let Some(path) = &paths.checkpoint {
            crate::interrupt::kept(format!(
                "{} holds every finished block: the same command goes on from there",
                path.display()
            ));
        }
        #[cfg(feature = "mpi")]
        if let Some(cluster) = &cluster {
            run_on_cluster(args, target.as_ref(), plan, plot, cluster, index == 0)?;
            continue;
        }
        #[cfg(not(feature = "mpi"))]
        let _ = index;
        run_one(args, target.as_ref(), paths, plan, plot)?;
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
    crate::out_file::refuse_collisions(&claims)
}

/// The target `spec` for `mode`: built-in targets on the cores, device targets on their
/// backend (round-to-nearest only: devices analyse only in that mode).
fn resolve_target(
    args: &CrunchArgs,
    spec: &str,
    mode: tmd_crunch::Rounding,
    default_device: usize,
) -> anyhow::Result<tmd_crunch::target::BoxedTarget> {
    let format_flag = args
        .format
        .as_deref()
        .map(CrunchFormat::parse)
        .transpose()?;
    match args.backend.as_str() {
        "cpu" if tmd_crunch::foreign::is_foreign(spec) => Ok(tmd_crunch::resolve_foreign(
            spec,
            args.function.as_deref(),
            format_flag,
            mode,
        )?),
        "cpu" => Ok(tmd_crunch::resolve_with_rounding(spec, mode)?),
        _ if mode != tmd_crunch::Rounding::Nearest => {
            Err(tmd_crunch::target::runs_only_to_nearest(spec, mode, "device code").into())
        }
        backend @ ("opencl" | "cuda") => resolve_device(
            spec,
            &DeviceChoice {
                backend,
                index: args.device.unwrap_or(default_device),
                function: args.function.as_deref(),
                format: format_flag,
                host_analysis: args.host_analysis,
                on_failure: device_failure,
            },
        )
        .map_err(|e| match e {
            TargetError::Input(i) => anyhow::Error::from(i),
            TargetError::Device(message) => anyhow::anyhow!(message),
        }),
        other => Err(
            InputError::Usage(format!("--backend {other}: expected cpu, opencl or cuda")).into(),
        ),
    }
}

/// The checkpoint and plot files of one mode's run: the given ones, or with `--rounding all`
/// the mode inserted before their extension (`run.ckpt` -> `run.up.ckpt`).
struct ModePaths {
    checkpoint: Option<PathBuf>,
    plot: Option<PathBuf>,
}

impl ModePaths {
    fn new(args: &CrunchArgs, mode: tmd_crunch::Rounding, several: bool) -> ModePaths {
        let name = |path: &PathBuf| {
            if several {
                with_mode(path, mode)
            } else {
                path.clone()
            }
        };
        ModePaths {
            checkpoint: args.checkpoint.as_ref().map(name),
            plot: args.plot.as_ref().map(name),
        }
    }
}

/// `path` with `.MODE` before its extension (`run.ckpt` -> `run.up.ckpt`, `cp` -> `cp.up`).
fn with_mode(path: &Path, mode: tmd_crunch::Rounding) -> PathBuf {
    let mut file = path.file_stem().unwrap_or_default().to_owned();
    file.push(format!(".{mode}"));
    if let Some(ext) = path.extension() {
        file.push(".");
        file.push(ext);
    }
    path.with_file_name(file)
}

/// The target's format, which `--format` (when given) must name.
fn format_of(
    args: &CrunchArgs,
    target: &dyn tmd_crunch::Target,
) -> Result<CrunchFormat, InputError> {
    let Some(name) = &args.format else {
        return Ok(target.format());
    };
    let f = CrunchFormat::parse(name)?;
    if f != target.format() {
        let spec = args.target.as_deref().expect("clap requires it");
        return Err(InputError::Usage(format!(
            "target {spec} is a {} function; --format {name} does not fit it",
            target.format().name()
        )));
    }
    Ok(f)
}

/// The plan of one mode's run, its output paths checked.
fn plan_for(
    args: &CrunchArgs,
    target: &dyn tmd_crunch::Target,
    paths: &ModePaths,
) -> anyhow::Result<Plan> {
    if let Some(path) = &paths.plot {
        crate::out_file::check("--plot", path)?;
    }
    let fmt = format_of(args, target)?;
    let (Some(from), Some(to)) = (args.from.as_deref(), args.to.as_deref()) else {
        return Err(InputError::Usage(
            "give the range with --from A --to B, or the inputs with --inputs FILE".into(),
        )
        .into());
    };
    let from = parse_bound(from, "--from", fmt)?;
    let to = parse_bound(to, "--to", fmt)?;
    // A device launch per block: on a device, binary32 blocks of 2^24 (2^20 took 3 ms per
    // launch more than its work on an H200, docs/BENCHMARKS.md).
    let default_bits = match (fmt, args.backend == "cpu") {
        (CrunchFormat::Binary32, true) => 20,
        (CrunchFormat::Binary32, false) => 24,
        (CrunchFormat::Binary64, _) => 32,
    };
    let mut plan = Plan::new(fmt, from, to, args.block_bits.unwrap_or(default_bits))?;
    if let Some(path) = &paths.checkpoint {
        // Where a checkpoint could never be (a device, a FIFO, a directory, no such
        // directory): bad input before any work, as for --out.
        crate::out_file::check("--checkpoint", path)?;
        tmd_crunch::checkpoint::check_path(path).map_err(|e| InputError::Usage(e.to_string()))?;
    }
    plan.checkpoint = paths.checkpoint.clone();
    plan.sample_windows = args.sample;
    if args.sample == Some(0) {
        return Err(InputError::Usage("--sample 0: at least one window".into()).into());
    }
    if let Some(windows) = args.sample.filter(|_| !plan.is_sample()) {
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
    args: &CrunchArgs,
    target: &dyn tmd_crunch::Target,
    paths: &ModePaths,
    plan: &Plan,
    plot: Option<OutFile>,
) -> anyhow::Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("starting worker threads")?;
    if args.estimate {
        // 64 windows, grown until the sample takes a second: a device needs larger windows
        // than the cores for its launches not to dominate.
        let (first, max) = if args.backend == "cpu" {
            (1 << 14, 1 << 24)
        } else {
            (1 << 20, 1 << 28)
        };
        let est = pool.install(|| tmd_crunch::estimate_adaptive(target, plan, 64, first, max, 1.0));
        tmd_crunch::driver::working(target).map_err(map_error)?;
        if args.json {
            println!("{}", serde_json::to_string(&est)?);
        } else {
            println!(
                "tmd crunch {} over {} [{}, {}): {} inputs; sample of {} inputs in {:.3} s on {} threads = {:.3e} inputs/s; projected {:.1} s ({:.2} h)",
                est.target, est.format, plan.bounds_text().0, plan.bounds_text().1, est.inputs, est.sample_inputs,
                est.sample_seconds, est.threads, est.inputs_per_second, est.projected_seconds,
                est.projected_seconds / 3600.0
            );
        }
        return Ok(());
    }
    let bar = crate::progress::Progress::new(plan.inputs(), args.quiet);
    let result = pool.install(|| tmd_crunch::run(target, plan, |done, _| bar.set(done)));
    bar.finish();
    let (report, blocks) = result.map_err(|e| map_failure(e, paths))?;
    finish(
        args,
        plot,
        plan.format,
        &report,
        &blocks,
        pool.current_num_threads(),
    )
}

/// One mode's run across the ranks of mpirun; `first`: the first mode, which sizes the global
/// thread pool (it can be sized once per process).
#[cfg(feature = "mpi")]
fn run_on_cluster(
    args: &CrunchArgs,
    target: &dyn tmd_crunch::Target,
    plan: &Plan,
    plot: Option<OutFile>,
    cluster: &crate::cluster::MpiCluster,
    first: bool,
) -> anyhow::Result<()> {
    use tmd_crunch::driver::Cluster;
    if args.estimate {
        return Err(
            InputError::Usage("--estimate runs in one process, not under mpirun".into()).into(),
        );
    }
    // MPI handles are not Send, so this rank's blocks run on the global pool, sized to
    // this rank's share of the node's cores.
    let threads = args.threads.unwrap_or_else(|| cluster.threads_per_rank());
    if first {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .context("starting worker threads")?;
    }
    let root = cluster.rank() == 0;
    let result = tmd_crunch::driver::run_cluster(target, plan, cluster, |_, _| {});
    match result {
        Ok(Some((report, blocks))) => finish(args, plot, plan.format, &report, &blocks, threads),
        Ok(None) => Ok(()),
        Err(CrunchError::OtherRank) if !root => cluster.fail_together(None),
        // Bad input or checkpoint: found before any work, every rank is waiting.
        Err(e @ (CrunchError::Input(_) | CrunchError::Checkpoint(_))) if root => {
            cluster.fail_together(Some(map_error(e)))
        }
        Err(e) if root => cluster.abort(map_error(e)),
        Err(e) => Err(map_error(e)),
    }
}

/// Writes the plot and prints the report.
fn finish(
    args: &CrunchArgs,
    plot: Option<OutFile>,
    fmt: CrunchFormat,
    report: &Report,
    blocks: &std::collections::BTreeMap<i64, tmd_crunch::checkpoint::BlockRecord>,
    threads: usize,
) -> anyhow::Result<()> {
    if let Some(plot) = plot {
        write_plot(plot, fmt, report, blocks)?;
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", serde_json::to_string(report)?)?;
    } else {
        write_text(&mut stdout, report, threads, args.max_ulp)?;
    }
    drop(stdout);
    super::crunch_list::apply_gate(
        args.max_ulp,
        &super::crunch_list::GateInput::new(
            report.max_ulp,
            report.argmax.as_deref(),
            (report.faithful, report.worse, report.worse_below_one_ulp),
            &report.histogram,
            &report.specials,
        ),
    )
}

/// Writes the SVG plot of a finished run's blocks to `out`, titled with the target, range and
/// mode.
pub(crate) fn write_plot(
    out: OutFile,
    fmt: CrunchFormat,
    report: &Report,
    blocks: &std::collections::BTreeMap<i64, tmd_crunch::checkpoint::BlockRecord>,
) -> anyhow::Result<()> {
    let records: Vec<_> = blocks.values().collect();
    let title = format!(
        "{} over {} [{}, {}), rounding {}",
        report.target, report.format, report.from, report.to, report.rounding
    );
    let svg = tmd_crunch::plot::svg(&title, fmt, &records);
    out.write_whole(svg.as_bytes())?;
    Ok(())
}

/// A binary80 or binary128 target: input lists only, since neither format can be crunched
/// exhaustively.
fn run_wide(
    args: &CrunchArgs,
    spec: &str,
    format: tmd_crunch::wide::WideFormat,
) -> anyhow::Result<()> {
    if args.backend != "cpu" {
        return Err(InputError::Usage(format!(
            "{} targets run on the CPU only, not --backend {}",
            format.name(),
            args.backend
        ))
        .into());
    }
    let range_flags = [
        ("--from", args.from.is_some()),
        ("--to", args.to.is_some()),
        ("--exhaustive", args.exhaustive),
        ("--structured", args.structured),
        ("--sample", args.sample.is_some()),
        ("--seed", args.seed.is_some()),
        ("--checkpoint", args.checkpoint.is_some()),
        ("--plot", args.plot.is_some()),
        ("--estimate", args.estimate),
        ("--block-bits", args.block_bits.is_some()),
    ];
    if let Some((flag, _)) = range_flags.iter().find(|(_, given)| *given) {
        return Err(InputError::Usage(format!(
            "{flag} is for binary32 and binary64 runs; {} targets take --inputs FILE only",
            format.name()
        ))
        .into());
    }
    let Some(list) = &args.inputs else {
        return Err(InputError::Usage(format!(
            "{} targets are crunched on input lists: give --inputs FILE (a .wc file, \
             `tmd search --format {} --json` output or one number a line)",
            format.name(),
            format.name()
        ))
        .into());
    };
    super::crunch_list::run_wide(args, spec, format, list)
}

/// `--inputs FILE`: each mode's list run in turn; the first `--max-ulp` failure is returned
/// after every mode has run, so a gate reports every mode.
fn run_lists(
    args: &CrunchArgs,
    targets: &[tmd_crunch::target::BoxedTarget],
    list: &Path,
) -> anyhow::Result<()> {
    let mut first_failure = None;
    for target in targets {
        format_of(args, target.as_ref())?;
        match super::crunch_list::run(args, target.as_ref(), list) {
            Err(e) if e.downcast_ref::<super::crunch_list::GateFailed>().is_some() => {
                first_failure.get_or_insert(e);
            }
            other => other?,
        }
    }
    first_failure.map_or(Ok(()), Err)
}

fn write_text(
    out: &mut impl Write,
    r: &Report,
    threads: usize,
    limit: Option<f64>,
) -> std::io::Result<()> {
    let rate = r.inputs as f64 / r.seconds.max(1e-9);
    writeln!(
        out,
        "{} over {} [{}, {}), rounding {}: {} inputs{} in {:.2} s ({:.3e} inputs/s, {} threads{})",
        r.target,
        r.format,
        r.from,
        r.to,
        r.rounding,
        r.inputs,
        match r.sample_windows {
            Some(w) => format!(
                " (a sample: {w} evenly spaced windows of 2^{} inputs)",
                r.block_bits
            ),
            None => String::new(),
        },
        r.seconds,
        rate,
        threads,
        if r.blocks_resumed > 0 {
            format!(
                ", {} of {} blocks resumed from the checkpoint",
                r.blocks_resumed, r.blocks
            )
        } else {
            String::new()
        }
    )?;
    match (r.max_ulp, &r.argmax) {
        (Some(m), Some(x)) => writeln!(
            out,
            "  max error {} ulp at x = {x}: result {}, correctly rounded {}{}",
            super::crunch_list::ulps_text(m, limit),
            r.argmax_result.as_deref().unwrap_or("?"),
            r.argmax_expected.as_deref().unwrap_or("?"),
            if r.max_verified {
                " (recomputed with MPFR)".to_string()
            } else {
                format!(
                    " (error at x recomputed with MPFR; more near-maximal inputs than kept: the maximum is at most {})",
                    bound_text(r.max_ulp_bound.unwrap_or(m), limit)
                )
            }
        )?,
        _ => writeln!(out, "  no input with a finite error")?,
    }
    write_verdict_counts(out, r.inputs, [r.correctly_rounded, r.faithful, r.worse])?;
    write_specials(out, &r.specials, &r.histogram, r.rounding)?;
    writeln!(
        out,
        "  reference: {}; {} inputs decided by MPFR",
        r.reference, r.mpfr_inputs
    )?;
    if let Some(note) = &r.note {
        writeln!(out, "  note: {note}")?;
    }
    Ok(())
}

/// The bound on the maximum, nine decimals, or more where nine would put it on the wrong side
/// of `--max-ulp` (rounded up, since it is a bound).
fn bound_text(bound: f64, limit: Option<f64>) -> String {
    let nine = format!("{bound:.9}");
    match limit {
        Some(l)
            if nine.parse::<f64>().ok().map(|v| v.partial_cmp(&l))
                != Some(bound.partial_cmp(&l)) =>
        {
            super::crunch_list::ulps_text(bound, limit)
        }
        _ => nine,
    }
}

/// The line of a report with how many inputs (or pairs) were correctly rounded, faithful
/// and worse, each with its share of `inputs`.
pub(crate) fn write_verdict_counts(
    out: &mut impl Write,
    inputs: u64,
    [correctly_rounded, faithful, worse]: [u64; 3],
) -> std::io::Result<()> {
    let pct = |n: u64| 100.0 * n as f64 / inputs.max(1) as f64;
    writeln!(
        out,
        "  correctly rounded {} ({:.4}%), faithful {} ({:.4}%), worse {} ({:.4}%)",
        correctly_rounded,
        pct(correctly_rounded),
        faithful,
        pct(faithful),
        worse,
        pct(worse)
    )
}

/// The special classes and the histogram of a report, one line each.
pub(crate) fn write_specials(
    out: &mut impl Write,
    s: &tmd_crunch::summary::Specials,
    histogram: &[u64],
    rounding: tmd_crunch::Rounding,
) -> std::io::Result<()> {
    let classes = [
        ("NaN expected", s.nan_expected, Some(s.nan_wrong)),
        ("spurious NaN", s.nan_spurious, None),
        ("poles", s.pole, Some(s.pole_wrong)),
        ("overflow", s.overflow, Some(s.overflow_wrong)),
        ("spurious inf", s.inf_spurious, None),
        ("subnormal results", s.subnormal, Some(s.subnormal_wrong)),
    ];
    let shown: Vec<String> = classes
        .iter()
        .filter(|c| c.1 > 0)
        .map(|(name, n, wrong)| match wrong {
            Some(w) => format!("{name} {n} ({w} not correctly rounded)"),
            None => format!("{name} {n}"),
        })
        .collect();
    if !shown.is_empty() {
        writeln!(out, "  special: {}", shown.join(", "))?;
    }
    writeln!(out, "  histogram: {}", histogram_text(histogram, rounding))
}

fn histogram_text(h: &[u64], rounding: tmd_crunch::Rounding) -> String {
    let mut parts = Vec::new();
    for (k, &n) in h.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let label = match k {
            0 => "correctly rounded".to_string(),
            // Round-to-nearest's other errors are at least 1/2 ulp; a directed mode's can be
            // any below 1.
            // An error of exactly 1/2 that is not correctly rounded (the odd neighbour of a
            // midpoint, a number below an exact power of two) belongs here.
            1 if rounding == tmd_crunch::Rounding::Nearest => "[0.5, 1)".to_string(),
            1 => "(0, 1)".to_string(),
            k if k == h.len() - 1 => format!(">= 2^{}", k - 2),
            k => format!("[2^{}, 2^{})", k - 2, k - 1),
        };
        parts.push(format!("{label}: {n}"));
    }
    parts.join(", ")
}

fn list() -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "target\tformat\tbackends\treference")?;
    for (name, fmt) in tmd_crunch::target::list() {
        let func = tmd_crunch::resolve(&name.replace("-nrN", "-nr3"))
            .map(|t| t.function())
            .ok();
        let reference = func.map(|f| reference_name(f, fmt)).unwrap_or_default();
        let backends = if name.starts_with("emul:vrecpe") {
            "cpu, opencl, cuda"
        } else {
            "cpu"
        };
        writeln!(out, "{name}\t{}\t{backends}\t{reference}", fmt.name())?;
    }
    for (name, fmt) in tmd_crunch::bivariate::target::list() {
        let func = tmd_crunch::bivariate::resolve(&name, None, None, tmd_crunch::Rounding::Nearest)
            .map(|t| t.function());
        let reference = func
            .map(|f| tmd_crunch::bivariate::analysis::reference_name(f, fmt))
            .unwrap_or_default();
        writeln!(out, "{name}\t{}\tcpu\t{reference} (pairs)", fmt.name())?;
    }
    let binary16 = tmd_crunch::bivariate::analysis::reference_name(
        tmd_crunch::bivariate::BiFunc::Pow,
        tmd_crunch::bivariate::PairFormat::Binary16,
    );
    writeln!(
        out,
        "SOURCE:powf --format binary16 (also atan2f, hypotf)\tbinary16\tcpu\t{binary16}; the \
         binary32 result rounded to binary16 (pairs)"
    )?;
    for (name, fmt, backends) in [
        ("opencl:NAMEf", CrunchFormat::Binary32, "opencl"),
        ("opencl:NAME", CrunchFormat::Binary64, "opencl"),
        ("opencl:native_NAMEf", CrunchFormat::Binary32, "opencl"),
        ("cuda:NAMEf", CrunchFormat::Binary32, "cuda"),
        ("cuda:NAME", CrunchFormat::Binary64, "cuda"),
        ("cuda:__NAMEf", CrunchFormat::Binary32, "cuda"),
        (
            "file:PATH --function NAME",
            CrunchFormat::Binary32,
            "opencl, cuda",
        ),
    ] {
        let mut reference = tmd_crunch::RefFunc::lookup("exp")
            .map(|f| reference_name(f, fmt))
            .unwrap_or_default()
            .replace(" exp ", " NAME ");
        if fmt == CrunchFormat::Binary64 {
            reference.push_str("; on the device for exp, recip, sqrt");
        }
        writeln!(out, "{name}\t{}\t{backends}\t{reference}", fmt.name())?;
    }
    for row in tmd_crunch::foreign::libraries::list() {
        writeln!(out, "{}\t{}\tcpu\t{}", row.name, row.format, row.what)?;
    }
    Ok(())
}

fn read_checkpoint(file: &Path) -> anyhow::Result<Checkpoint> {
    // A checkpoint that is missing, unreadable or no regular file is the user's to fix, like
    // a bad one.
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
                super::io_reason(&source)
            ))
            .into()
        }
        other => anyhow::Error::new(other),
    })
}

/// `tmd crunch-status FILE`.
pub fn status(file: &Path) -> anyhow::Result<()> {
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
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} over {} [{}, {}), rounding {}, blocks of 2^{}; reference: {}",
        h.target, h.format, h.from, h.to, h.rounding, h.block_bits, h.reference
    )?;
    match total {
        Some(t) => writeln!(
            out,
            "  {} blocks done, {} of {} inputs ({:.2}%), {:.1} s of block time",
            cp.blocks.len(),
            sum.inputs,
            t,
            100.0 * sum.inputs as f64 / t.max(1) as f64,
            seconds
        )?,
        None => writeln!(
            out,
            "  {} blocks done, {} inputs",
            cp.blocks.len(),
            sum.inputs
        )?,
    }
    match sum.argmax {
        Some(o) => writeln!(
            out,
            "  max error so far {:.6} ulp at x = {} (reference value; the final report recomputes it with MPFR)",
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

/// `tmd crunch-format FILE`.
pub fn format_blocks(file: &Path) -> anyhow::Result<()> {
    let cp = read_checkpoint(file)?;
    let fmt = CrunchFormat::parse(&cp.header.format)?;
    let mut out = std::io::stdout().lock();
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

#[cfg(test)]
mod tests {
    use super::*;
    use tmd_crunch::Rounding;

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
