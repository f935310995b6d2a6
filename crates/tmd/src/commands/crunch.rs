//! `tmd crunch`, `tmd crunch-status`, `tmd crunch-format`: the flags as a
//! [`CrunchRequest`], run by tmd-crunch's job ([`tmd_crunch::job`]) with this terminal's
//! progress bars, the devices of tmd-gpu and, under mpirun, the ranks.

use super::job_host::{error, Terminal};
use std::path::Path;
use tmd_crunch::job::{CrunchHost, CrunchRequest, JobError, Observer};
use tmd_crunch::target::BoxedTarget;
use tmd_crunch::CrunchFormat;
use tmd_gpu::crunch_target::{resolve_device, DeviceChoice};

#[derive(clap::Args, Debug)]
pub struct CrunchArgs {
    /// The implementation: std:NAME, libm:NAME, xfloat:NAME, emul:NAME, dl:PATH:SYMBOL,
    /// c:FILE.c:SYMBOL, glibc:NAME, glibc-mvec:NAME, sleef:NAME, musl:NAME (see --list).
    /// Two-argument functions (pow, atan2, hypot and their f variants) take pairs instead of
    /// a range: --exhaustive (binary16), --inputs, --sample N --seed S, or --structured.
    #[arg(required_unless_present = "list")]
    pub target: Option<String>,
    /// First input (included); decimals are rounded to the format; -inf: the most negative.
    /// Required for one-argument functions unless --inputs is given.
    #[arg(long, allow_hyphen_values = true)]
    pub from: Option<String>,
    /// End of the range (excluded); inf: after the largest finite number.
    #[arg(long, allow_hyphen_values = true)]
    pub to: Option<String>,
    /// Evaluate exactly the inputs of FILE instead of a range (a CORE-MATH `.wc` file, `tmd
    /// search --json` lines, or one number a line; two numbers a line, `x y`, for a
    /// two-argument function) and print every input whose result is not correctly rounded.
    #[arg(long, conflicts_with_all = ["from", "to", "checkpoint", "plot", "sample", "estimate", "block_bits", "exhaustive", "structured"])]
    pub inputs: Option<std::path::PathBuf>,
    /// With --inputs: refuse the list (exit 2, before any output) when a line holds no input
    /// of the target's format, instead of skipping such lines with a note on stderr.
    #[arg(long)]
    pub strict: bool,
    /// Two-argument functions in binary16 (--format binary16 with a binary32 target, whose
    /// results are rounded to binary16): every one of the 2^32 pairs of bit patterns.
    #[arg(long, conflicts_with_all = ["sample", "structured", "seed"])]
    pub exhaustive: bool,
    /// pow and hypot: a seeded sample of pairs where x^y or hypot(x, y) is exact or a midpoint
    /// between two numbers of the format (--sample N pairs, default 65536), where
    /// implementations misround.
    #[arg(long)]
    pub structured: bool,
    /// The seed of --sample (two-argument functions) and --structured (default 1).
    #[arg(long)]
    pub seed: Option<u64>,
    /// A gate for CI: exit 1 when the largest error exceeds X ulps, or when a result without
    /// a finite error is wrong (see docs/crunch.md); 0.5 asks for correct rounding to nearest.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::cli::parse_max_ulp)]
    pub max_ulp: Option<f64>,
    /// binary32 or binary64 (binary16 for two-argument functions); by default the target's
    /// own format.
    #[arg(long)]
    pub format: Option<String>,
    /// cpu, opencl or cuda (opencl:NAME / cuda:NAME, emul:vrecpe-nrN and file:PATH targets
    /// evaluated on the device; binary64 exp, recip and sqrt targets, and binary32 targets of
    /// exp, expm1, log, log1p, sin, cos, tan, atan, sinh, cosh, tanh, sqrt and 1/x, are also
    /// analysed there).
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// The OpenCL or CUDA device (default 0; under mpirun the rank's local rank).
    #[arg(long)]
    pub device: Option<usize>,
    /// On a device backend, analyse the errors on the host even where the device could.
    #[arg(long)]
    pub host_analysis: bool,
    /// For file:, dl: and c: targets: the function the code computes (exp, log, sin, ...);
    /// dl: and c: targets otherwise take it from the symbol's name.
    #[arg(long)]
    pub function: Option<String>,
    /// The rounding mode the target runs under and is judged in: nearest, up, down, zero, or
    /// all (the four in turn, one report each; --checkpoint and --plot files get the mode
    /// before their extension, e.g. run.up.ckpt).
    #[arg(long, value_parser = crate::cli::parse_rounding, default_value = "nearest")]
    pub rounding: crate::cli::RoundingModes,
    /// Checkpoint FILE: finished blocks are appended to it; an existing one is resumed.
    #[arg(long)]
    pub checkpoint: Option<std::path::PathBuf>,
    /// Write an SVG plot of the per-block maximum error against x.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
    /// Blocks of 2^N inputs (default 20 for binary32, 24 on a device; 32 for binary64).
    #[arg(long)]
    pub block_bits: Option<u32>,
    /// Crunch only N evenly spaced windows of 2^block-bits inputs (a sample, said so in the
    /// report) instead of every input. Two-argument functions: N random pairs (--seed S),
    /// each argument a finite number of uniformly random bit pattern; never exhaustive.
    #[arg(long)]
    pub sample: Option<u64>,
    /// One JSON object instead of the text report.
    #[arg(long)]
    pub json: bool,
    /// Measure a sample and project the time of the whole range instead of running it.
    #[arg(long)]
    pub estimate: bool,
    /// Foreign targets (dl:, c:, glibc:, ...) run in worker processes: stop the run when one
    /// batch of inputs has not returned after SECONDS (0: no limit), naming the input.
    #[arg(long, value_name = "SECONDS", default_value_t = tmd_crunch::foreign::worker::DEFAULT_TIMEOUT_SECONDS)]
    pub target_timeout: u32,
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long, value_parser = crate::cli::parse_threads)]
    pub threads: Option<usize>,
    /// List the built-in targets.
    #[arg(long)]
    pub list: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: &CrunchArgs) -> anyhow::Result<()> {
    if args.list {
        let mut out = std::io::stdout().lock();
        return Ok(tmd_crunch::job::targets::write_target_list(&mut out)?);
    }
    #[cfg(feature = "mpi")]
    let cluster = crate::cluster::MpiCluster::from_env();
    // One device per rank on a node under mpirun, unless --device says otherwise.
    #[cfg(feature = "mpi")]
    let default_device = cluster.as_ref().map_or(0, |c| c.local_rank());
    #[cfg(not(feature = "mpi"))]
    let default_device = 0;
    let host = Host {
        args,
        terminal: Terminal { quiet: args.quiet },
        default_device,
        #[cfg(feature = "mpi")]
        cluster,
    };
    tmd_crunch::job::run(&request(args), &mut std::io::stdout(), &host).map_err(error)
}

fn request(args: &CrunchArgs) -> CrunchRequest {
    CrunchRequest {
        target: args.target.clone().expect("clap requires it"),
        from: args.from.clone(),
        to: args.to.clone(),
        inputs: args.inputs.clone(),
        strict: args.strict,
        exhaustive: args.exhaustive,
        structured: args.structured,
        seed: args.seed,
        max_ulp: args.max_ulp,
        format: args.format.clone(),
        backend: args.backend.clone(),
        device: args.device,
        host_analysis: args.host_analysis,
        function: args.function.clone(),
        rounding: args.rounding.0.clone(),
        checkpoint: args.checkpoint.clone(),
        plot: args.plot.clone(),
        block_bits: args.block_bits,
        sample: args.sample,
        json: args.json,
        estimate: args.estimate,
        target_timeout: args.target_timeout,
        threads: args.threads,
    }
}

/// The terminal, the devices, and under mpirun the ranks.
struct Host<'a> {
    args: &'a CrunchArgs,
    terminal: Terminal,
    default_device: usize,
    #[cfg(feature = "mpi")]
    cluster: Option<crate::cluster::MpiCluster>,
}

impl Observer for Host<'_> {
    fn bar(&self, total: u64) -> Box<dyn tmd_crunch::job::Bar> {
        self.terminal.bar(total)
    }

    fn kept(&self, what: String) {
        self.terminal.kept(what);
    }
}

impl CrunchHost for Host<'_> {
    fn device_target(
        &self,
        spec: &str,
        backend: &str,
        format: Option<CrunchFormat>,
    ) -> Result<BoxedTarget, JobError> {
        let choice = DeviceChoice {
            backend,
            index: self.args.device.unwrap_or(self.default_device),
            function: self.args.function.as_deref(),
            format,
            host_analysis: self.args.host_analysis,
            on_failure: device_failure,
        };
        Ok(resolve_device(spec, &choice)?)
    }

    #[cfg(feature = "mpi")]
    fn cluster(&self) -> Option<&dyn tmd_crunch::job::ClusterHost> {
        self.cluster
            .as_ref()
            .map(|c| c as &dyn tmd_crunch::job::ClusterHost)
    }
}

#[cfg(feature = "mpi")]
impl tmd_crunch::job::ClusterHost for crate::cluster::MpiCluster {
    fn threads_per_rank(&self) -> usize {
        crate::cluster::MpiCluster::threads_per_rank(self)
    }

    fn fail_together(&self, err: Option<JobError>) -> ! {
        crate::cluster::MpiCluster::fail_together(self, err.map(error))
    }

    fn abort(&self, err: JobError) -> ! {
        crate::cluster::MpiCluster::abort(self, error(err))
    }

    fn stop_if_only_some_ready(&self, not_ready: Option<String>) {
        crate::cluster::MpiCluster::stop_if_only_some_ready(self, not_ready.as_deref())
    }
}

/// A device target whose launch fails in the middle of a run: one line and exit 1 (the
/// checkpoint keeps every finished block).
fn device_failure(line: &str) -> ! {
    eprintln!("tmd: {line}");
    crate::interrupt::clean_up();
    std::process::exit(1);
}

/// `tmd crunch-status FILE`.
pub fn status(file: &Path) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    tmd_crunch::job::status::write_status(file, &mut out).map_err(error)
}

/// `tmd crunch-format FILE`.
pub fn format_blocks(file: &Path) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    tmd_crunch::job::status::write_blocks(file, &mut out).map_err(error)
}
