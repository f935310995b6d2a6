//! The `tmd crunch` job: a [`CrunchRequest`] (the command's flags as values) checked,
//! resolved and run, its reports written to a writer, and the `--max-ulp` gate applied.
//!
//! One request may ask for several rounding modes; each mode is one run of its own target.
//! What the user can get wrong is checked for every mode before the first one runs: flags that
//! do not fit the target, a mode a target cannot run under, an output path that cannot be
//! written, two modes writing one file. Then, by the target and flags:
//! * a one-argument binary32 or binary64 target over a range, or its estimate ([`range`]);
//! * the same target on the inputs of a list, or a binary80 or binary128 target, whose
//!   formats are too wide for ranges ([`list`]);
//! * a two-argument function on pairs ([`pairs`]).
//!
//! The job prints nothing itself but its notes (`tmd: note: ...` lines on stderr, as
//! [`crate::input_list::note_skipped`] does): results go to the writer it is given, and what
//! only the caller can do comes through [`CrunchHost`]: progress bars, saying what an
//! interrupted run keeps, opening device targets (tmd-gpu, which depends on this crate), and
//! running across the ranks of mpirun. [`text`] writes the text reports, [`status`] reads
//! checkpoints back (`tmd crunch-status`, `tmd crunch-format`), [`targets`] lists the
//! targets (`tmd crunch --list`).

pub mod list;
pub mod pairs;
pub mod range;
pub mod status;
pub mod targets;
pub mod text;

use crate::checkpoint::CheckpointError;
use crate::cluster::Cluster;
use crate::driver::CrunchError;
use crate::format::CrunchFormat;
use crate::gate::GateFailed;
use crate::rounding::Rounding;
use crate::target::{BoxedTarget, Target, TargetFailure};
use std::io::Write;
use std::path::PathBuf;
use tmd_core::number::parse_rounded;
use tmd_core::InputError;

/// What `tmd crunch` is asked to do: its flags, as values.
#[derive(Clone, Debug)]
pub struct CrunchRequest {
    /// The target name (`glibc:expf`, `c:my.c:my_exp`, `opencl:exp`).
    pub target: String,
    pub from: Option<String>,
    pub to: Option<String>,
    /// An input list instead of a range.
    pub inputs: Option<PathBuf>,
    /// Refuse a list with lines that hold no input.
    pub strict: bool,
    /// Every binary16 pair (two-argument functions).
    pub exhaustive: bool,
    /// A structured sample of pairs (pow, hypot).
    pub structured: bool,
    pub seed: Option<u64>,
    pub max_ulp: Option<f64>,
    pub format: Option<String>,
    /// `cpu`, `opencl` or `cuda`.
    pub backend: String,
    /// The device index asked for (device targets are opened by [`CrunchHost::device_target`]).
    pub device: Option<usize>,
    pub host_analysis: bool,
    /// The function a `file:`, `dl:` or `c:` target computes.
    pub function: Option<String>,
    /// The rounding modes, each its own run.
    pub rounding: Vec<Rounding>,
    pub checkpoint: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub block_bits: Option<u32>,
    /// Windows of a range sample, or the pairs of a random sample.
    pub sample: Option<u64>,
    pub json: bool,
    pub estimate: bool,
    /// Seconds a foreign target may take for one batch.
    pub target_timeout: u32,
    pub threads: Option<usize>,
}

/// Why a job stopped. Bad input is [`JobError::Input`] (the user's to fix); the rest are
/// failures while running.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error(transparent)]
    Input(#[from] InputError),
    /// Writing the results (or reading a cell) failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A run failed for another reason than bad input (bad input from a run becomes
    /// [`JobError::Input`]).
    #[error(transparent)]
    Crunch(CrunchError),
    /// A foreign target crashed, exited or hung.
    #[error(transparent)]
    Target(#[from] TargetFailure),
    /// A target failed in the middle of a range run whose checkpoint keeps the finished
    /// blocks.
    #[error(
        "{failure}; {} holds every finished block: the same command goes on from there",
        checkpoint.display()
    )]
    TargetWithCheckpoint {
        failure: TargetFailure,
        checkpoint: PathBuf,
    },
    /// A device could not be opened or run.
    #[error("{0}")]
    Device(String),
    /// The results did not pass `--max-ulp`.
    #[error(transparent)]
    Gate(#[from] GateFailed),
    #[error("starting worker threads")]
    Threads(#[source] rayon::ThreadPoolBuildError),
    /// The worker threads of a list run could not be started.
    #[error(transparent)]
    ListThreads(rayon::ThreadPoolBuildError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Bad checkpoints and bad input are the user's to fix; I/O failures are not.
impl From<CrunchError> for JobError {
    fn from(e: CrunchError) -> JobError {
        match e {
            CrunchError::Input(i) => JobError::Input(i),
            CrunchError::Checkpoint(c) if c.is_bad_input() => {
                JobError::Input(InputError::Usage(c.to_string()))
            }
            other => JobError::Crunch(other),
        }
    }
}

impl From<CheckpointError> for JobError {
    fn from(e: CheckpointError) -> JobError {
        CrunchError::from(e).into()
    }
}

/// A progress bar over one run's inputs.
pub trait Bar: Sync {
    /// `done` inputs of the total are finished.
    fn set(&self, done: u64);
    /// What is running now, shown before the counts.
    fn set_label(&self, label: &str);
    /// The run is over: the bar goes.
    fn finish(&self);
}

/// What a job needs from the program that runs it.
pub trait Observer {
    /// A bar over `total` inputs.
    fn bar(&self, total: u64) -> Box<dyn Bar>;
    /// From now on, what an interrupted run keeps and how to go on.
    fn kept(&self, what: String);
}

/// What the crunch job needs besides an [`Observer`]: device targets and mpirun.
pub trait CrunchHost: Observer {
    /// The target `spec` on the device backend `backend` (`opencl`, `cuda`), `format` the
    /// `--format` given.
    fn device_target(
        &self,
        spec: &str,
        backend: &str,
        format: Option<CrunchFormat>,
    ) -> Result<BoxedTarget, JobError>;

    /// The ranks of mpirun, when this process is one of them.
    fn cluster(&self) -> Option<&dyn ClusterHost> {
        None
    }
}

/// A [`Cluster`] that can also stop every rank together.
pub trait ClusterHost: Cluster {
    /// Worker threads for this rank.
    fn threads_per_rank(&self) -> usize;
    /// Stops every rank after a failure at start-up (`None`: another rank says why).
    fn fail_together(&self, err: Option<JobError>) -> !;
    /// Stops the whole job from this rank after a failure during the run.
    fn abort(&self, err: JobError) -> !;
    /// Stops every rank when some are ready and others are not (`not_ready` says why this
    /// one is not: its own device missing, say); returns when all or none are ready.
    fn stop_if_only_some_ready(&self, not_ready: Option<String>);
}

/// Runs the request: pairs, a wide list, an input list, or ranges in each mode. Results go
/// to `out`.
pub fn run(
    req: &CrunchRequest,
    out: &mut (dyn Write + Send),
    host: &dyn CrunchHost,
) -> Result<(), JobError> {
    let spec = req.target.as_str();
    if req.strict && req.inputs.is_none() {
        return Err(InputError::Usage("--strict is for --inputs FILE".into()).into());
    }
    if req.backend == "cpu" && (req.device.is_some() || req.host_analysis) {
        return Err(InputError::Usage(
            "--device and --host-analysis are for --backend opencl or cuda".into(),
        )
        .into());
    }
    crate::foreign::worker::set_timeout(req.target_timeout);
    if crate::bivariate::target::is_bivariate(spec, req.function.as_deref()) {
        return pairs::run(req, out, host);
    }
    pairs::refuse_pair_flags(req)?;
    if let Some(format) = crate::wide::format_of(spec, req.format.as_deref())? {
        return list::run_wide(req, format, out);
    }
    if req.function.is_some() && !spec.starts_with("file:") && !crate::foreign::is_foreign(spec) {
        return Err(InputError::Usage(format!(
            "--function is for file:, dl: and c: targets; {spec} names its own function"
        ))
        .into());
    }
    // Every mode's target first: a mode the target cannot run under is refused before any
    // other mode runs.
    let targets = req
        .rounding
        .iter()
        .map(|&mode| resolve_target(req, mode, host))
        .collect::<Result<Vec<_>, _>>();
    // Under mpirun each rank opens its own device: one that fails where the others did not
    // must stop them all, or they would wait for it.
    if let Some(cluster) = host.cluster() {
        cluster.stop_if_only_some_ready(targets.as_ref().err().map(|e| e.to_string()));
    }
    let targets = targets?;
    match &req.inputs {
        Some(list) => list::run_lists(req, &targets, list, out),
        None => range::run(req, &targets, out, host),
    }
}

/// The target for `mode`: built-in and foreign targets on the cores, device targets on their
/// backend (round-to-nearest only: devices analyse only in that mode).
fn resolve_target(
    req: &CrunchRequest,
    mode: Rounding,
    host: &dyn CrunchHost,
) -> Result<BoxedTarget, JobError> {
    let spec = req.target.as_str();
    let format_flag = req.format.as_deref().map(CrunchFormat::parse).transpose()?;
    match req.backend.as_str() {
        "cpu" if crate::foreign::is_foreign(spec) => Ok(crate::resolve_foreign(
            spec,
            req.function.as_deref(),
            format_flag,
            mode,
        )?),
        "cpu" => Ok(crate::resolve_with_rounding(spec, mode)?),
        _ if mode != Rounding::Nearest => {
            Err(crate::target::runs_only_to_nearest(spec, mode, "device code").into())
        }
        backend @ ("opencl" | "cuda") => host.device_target(spec, backend, format_flag),
        other => Err(
            InputError::Usage(format!("--backend {other}: expected cpu, opencl or cuda")).into(),
        ),
    }
}

/// The target's format, which `--format` (when given) must name.
fn format_of(req: &CrunchRequest, target: &dyn Target) -> Result<CrunchFormat, InputError> {
    let Some(name) = &req.format else {
        return Ok(target.format());
    };
    let f = CrunchFormat::parse(name)?;
    if f != target.format() {
        return Err(InputError::Usage(format!(
            "target {} is a {} function; --format {name} does not fit it",
            req.target,
            target.format().name()
        )));
    }
    Ok(f)
}

/// A range end: a number of the format (decimals rounded), or `inf` / `-inf` for the ends of
/// the finite numbers. `what` names it in errors (`--from`).
pub fn parse_bound(text: &str, what: &str, fmt: CrunchFormat) -> Result<f64, InputError> {
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

/// The first `--max-ulp` failure of several runs, after every run: a gate reports every mode.
#[derive(Default)]
struct FirstGateFailure(Option<GateFailed>);

impl FirstGateFailure {
    /// Keeps a failed gate (the first), passes any other error on.
    fn note(&mut self, result: Result<(), JobError>) -> Result<(), JobError> {
        match result {
            Err(JobError::Gate(g)) => {
                self.0.get_or_insert(g);
                Ok(())
            }
            other => other,
        }
    }

    fn result(self) -> Result<(), JobError> {
        self.0.map_or(Ok(()), |g| Err(g.into()))
    }
}
