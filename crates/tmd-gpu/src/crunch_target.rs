//! Crunch targets that run on a device (`--backend opencl|cuda`): the device's own math
//! library (`opencl:expf`, `opencl:native_sinf`, `cuda:exp`, `cuda:__expf`), the ARM VRECPE
//! emulation (`emul:vrecpe-nrN[f]`, the same target as on the CPU, bit for bit), and user
//! snippets (`file:PATH`, a C definition of `crunch_target` in the portable dialect of
//! `tmd-kernels/kernels/crunch.cl`). The device evaluates the target; for targets of functions
//! with a device reference for their format (binary64: exp, recip, sqrt,
//! `tmd_kernels::crunch_reference`; binary32: exp, log, sin, cos, tan, sqrt, recip and more,
//! `tmd_kernels::crunch_reference_binary32`) it also analyses the errors
//! (`kernels/crunch_analyse.cl`, `tmd_crunch::device`), and the host sees only the inputs the
//! fast path leaves undecided. Otherwise (or with `--host-analysis`) the analysis stays on the
//! host. Either way the reports equal the cores' exactly when the results do (for binary32
//! except `mpfr_inputs`: the device's reference leaves other inputs to MPFR than the CPU's).
//!
//! The `Target` trait's evaluations return no error, so a device that fails in the middle of
//! a run is handed to the caller's [`DeviceChoice::on_failure`] (the CLI prints one line and
//! exits; the checkpoint keeps every finished block); the library itself never exits.

use crate::device::{Device, Runtime};
use crate::{AnalyseOutput, AnalysePlan, GpuError};
use tmd_core::{Func, InputError};
use tmd_crunch::device::{
    next_listing, summary_from_device, DeviceAnalysis, ListingRule, NextListing,
};
use tmd_crunch::function::RefFunc;
use tmd_crunch::implementation::{About, Implementation, Unary, UnaryBatch};
use tmd_crunch::summary::Summary;
use tmd_crunch::target::{BoxedTarget, Target};
use tmd_crunch::CrunchFormat;

/// The device in messages (`OpenCL device NAME`).
fn device_label(device: &Device) -> String {
    format!("{} device {}", device.runtime().api(), device.describe())
}

/// Inputs per `crunch_analyse` launch, and the room for its lists: a launch whose lists
/// overflow is redone with the analysis on the host (correct, only slower).
const ANALYSE_BATCH: i64 = 1 << 27;
const CANDIDATE_ROOM: u32 = 1 << 16;
const UNDECIDED_ROOM: u32 = 1 << 20;
/// Launches per batch while the listing rule changes; then the host analyses the batch. With
/// the per-bucket sample one relaunch sufficed on the batches tried (exp at 2^-600: 128
/// candidates listed by the second launch, `tests/crunch.rs`).
const MAX_LAUNCHES: u32 = 6;

struct DeviceTarget {
    /// Its name, function and format; the note is made as it runs ([`Implementation::note`]).
    about: About<Unary>,
    /// The C definition of `crunch_target`.
    body: String,
    device: Device,
    /// Analyse on the device where the function has a device reference.
    device_analysis: bool,
    /// Set when the analysis program does not build on this device (an OpenCL device without
    /// 64-bit atomics, say): the analysis then stays on the host, with a note.
    analysis_unavailable: std::sync::OnceLock<String>,
    /// The caller's handler of a failed launch in the middle of a run.
    on_failure: FailureHandler,
}

/// What a device target does when a launch fails in the middle of a run: it gets one line
/// (the target, the device and the error) and does not return.
pub type FailureHandler = fn(&str) -> !;

impl DeviceTarget {
    /// A failed launch in the middle of a run: to the caller's handler.
    fn fail(&self, e: GpuError) -> ! {
        (self.on_failure)(&format!(
            "{} on {}: {e}",
            self.about.name,
            device_label(&self.device)
        ))
    }

    /// One batch analysed on the device, or `None` when its lists overflowed.
    ///
    /// An overflowing candidate list is relaunched under a rule
    /// ([`tmd_crunch::device::next_listing`]) that leaves out candidates the summary would drop
    /// anyway: those below a floor that rises with each overflow, and where the errors tie at
    /// the floor (binary32 exp below about -848: every error 0) the tied inputs past a
    /// cut. Where every error of a batch lies within the near-max window (exp for
    /// |x| < 2^-54, every error far below 2^-22 ulp) every input is a candidate, and without
    /// the rules the batch had gone to the host's analysis whole.
    fn analyse_batch(&self, lo: i64, hi: i64) -> Option<Summary> {
        // Binary32 has no saturation thresholds: the kernel applies its own rules
        // (analysis::quick_special's) from the reference.
        let (overflow_from, overflow_symmetric, tiny_until) = match self.about.format {
            CrunchFormat::Binary64 => {
                let saturation = tmd_crunch::saturation::saturation(self.about.function);
                (
                    saturation.overflow_from(),
                    saturation.symmetric(),
                    saturation.tiny_until(),
                )
            }
            CrunchFormat::Binary32 => (None, false, None),
        };
        let mut plan = AnalysePlan {
            format: self.about.format,
            lo,
            n: (hi - lo) as u64,
            eps: self.analysis_eps(),
            overflow_from,
            overflow_symmetric,
            tiny_until,
            candidate_capacity: CANDIDATE_ROOM,
            host_capacity: UNDECIDED_ROOM,
            listing: ListingRule::ALL,
        };
        let mut launches = 0;
        let out = loop {
            launches += 1;
            let started = std::time::Instant::now();
            let out = self.analyse_once(&plan)?;
            if std::env::var_os("TMD_TRACE_DEVICE").is_some() {
                eprintln!(
                    "tmd-trace: analyse [{lo}, {hi}) launch {launches} ({} us): floor {:e}, \
                     ties cut at {}, {} candidates, {} sampled, {} undecided",
                    started.elapsed().as_micros(),
                    plan.listing.floor,
                    plan.listing.tie_end,
                    out.candidates_found,
                    out.sampled_errors.len(),
                    out.host_found
                );
            }
            if out.host_found > out.host.len() as u64 {
                return None;
            }
            let next = next_listing(
                lo,
                hi,
                plan.listing,
                out.complete(),
                &out.candidates,
                &out.sampled_errors,
            );
            match next {
                NextListing::Accept => break out,
                NextListing::Relaunch(rule) if launches < MAX_LAUNCHES => plan.listing = rule,
                _ => return None,
            }
        };
        let dev = DeviceAnalysis {
            counts: out.counts,
            candidates: out.candidates,
            undecided: out.host,
        };
        Some(summary_from_device(
            self.about.function,
            self.about.format,
            lo,
            hi,
            &dev,
        ))
    }
}

impl DeviceTarget {
    /// One launch of the analysis; `None` where it does not run here (the function has no
    /// device reference, or the program does not build on this device: noted once).
    fn analyse_once(&self, plan: &AnalysePlan) -> Option<AnalyseOutput> {
        match self
            .device
            .crunch_analyse(self.about.function.name(), &self.body, plan)
        {
            Ok(out) => out,
            Err(GpuError::Build { log, .. }) => {
                let first = log
                    .lines()
                    .find(|l| l.contains("error"))
                    .unwrap_or("")
                    .trim();
                let _ = self.analysis_unavailable.set(first.to_string());
                None
            }
            Err(e) => self.fail(e),
        }
    }
}

impl Implementation<Unary> for DeviceTarget {
    fn about(&self) -> &About<Unary> {
        &self.about
    }
    fn eval(&self, batch: UnaryBatch<'_>) {
        let done = match batch {
            UnaryBatch::Binary32 { xs, out } => self
                .device
                .crunch_eval(&self.body, xs)
                .map(|ys| out.copy_from_slice(&ys)),
            UnaryBatch::Binary64 { xs, out } => self
                .device
                .crunch_eval(&self.body, xs)
                .map(|ys| out.copy_from_slice(&ys)),
        };
        if let Err(e) = done {
            self.fail(e)
        }
    }
    fn note(&self) -> Option<String> {
        let analysis = match self.analysis_unavailable.get() {
            Some(why) => format!(
                "errors analysed on the host (the analysis kernel does not build there: {why})"
            ),
            None if self.analyses_on_device() => format!(
                "errors analysed there against a double-double reference (relative bound 2^{})",
                self.analysis_eps().log2()
            ),
            None => "errors analysed on the host".to_string(),
        };
        Some(format!(
            "evaluated on {}; {analysis}",
            device_label(&self.device)
        ))
    }
}

impl Target for DeviceTarget {
    fn crunch_on_device(&self, lo: i64, hi: i64) -> Option<Summary> {
        if !self.analyses_on_device() {
            return None;
        }
        let mut total = Summary::default();
        let mut start = lo;
        while start < hi {
            let end = hi.min(start.saturating_add(ANALYSE_BATCH));
            let on_device = if self.analysis_unavailable.get().is_none() {
                self.analyse_batch(start, end)
            } else {
                None
            };
            let part = on_device.unwrap_or_else(|| {
                if std::env::var_os("TMD_TRACE_DEVICE").is_some() {
                    eprintln!("tmd-trace: analyse [{start}, {end}) given to the host");
                }
                tmd_crunch::driver::crunch_range_on_cores(self, start, end)
            });
            total.merge(&part);
            start = end;
        }
        Some(total)
    }
}

impl DeviceTarget {
    fn analyses_on_device(&self) -> bool {
        let name = self.about.function.name();
        let has_reference = match self.about.format {
            CrunchFormat::Binary32 => tmd_kernels::crunch_reference_binary32(name).is_some(),
            CrunchFormat::Binary64 => tmd_kernels::crunch_reference(name).is_some(),
        };
        self.device_analysis && self.analysis_unavailable.get().is_none() && has_reference
    }

    /// The relative bound of the device's reference.
    fn analysis_eps(&self) -> f64 {
        match self.about.format {
            CrunchFormat::Binary32 => self.about.function.binary32_device_eps(),
            CrunchFormat::Binary64 => tmd_crunch::function::EPS_DD,
        }
    }
}

fn c_type(format: CrunchFormat) -> &'static str {
    match format {
        CrunchFormat::Binary32 => "float",
        CrunchFormat::Binary64 => "double",
    }
}

/// The C definition of `crunch_target` for a device math-library target `name` (after
/// `opencl:` or `cuda:`), with its function and format. Which C names exist, and which
/// function each computes, is in the function table (`tmd_core::Func::device_builtin`,
/// `opencl_native` for the float-only `native_` built-ins of implementation-defined accuracy,
/// `cuda_intrinsic` for the binary32 `__NAMEf` intrinsics).
fn library_target(
    backend: &str,
    name: &str,
    unknown: &dyn Fn(&str) -> InputError,
) -> Result<(RefFunc, CrunchFormat, String), InputError> {
    // C names: a trailing `f` is the binary32 version (no name here ends in `f` otherwise).
    let (stem, fmt) = match name.strip_suffix('f') {
        Some(stem) => (stem, CrunchFormat::Binary32),
        None => (name, CrunchFormat::Binary64),
    };
    let (builtin, call) = if backend == "opencl" {
        match stem.strip_prefix("native_") {
            Some(s) if fmt == CrunchFormat::Binary32 && Func::opencl_native(s).is_some() => {
                (Func::opencl_native(s), format!("native_{s}(x)"))
            }
            Some(_) => {
                return Err(unknown(
                    "native_ functions: native_expf, native_sinf, ... (binary32)",
                ))
            }
            None if Func::device_builtin(stem).is_some() => {
                (Func::device_builtin(stem), format!("{stem}(x)"))
            }
            None => return Err(unknown("not an OpenCL built-in crunch knows")),
        }
    } else {
        match stem.strip_prefix("__") {
            Some(s) if fmt == CrunchFormat::Binary32 && Func::cuda_intrinsic(s).is_some() => {
                (Func::cuda_intrinsic(s), format!("__{s}f(x)"))
            }
            Some(_) => {
                return Err(unknown(
                    "intrinsics: __expf, __logf, __sinf, __cosf, __tanf, __exp10f, __log2f, __log10f (binary32)",
                ))
            }
            None if Func::device_builtin(stem).is_some() => {
                let suffix = if fmt == CrunchFormat::Binary32 { "f" } else { "" };
                (Func::device_builtin(stem), format!("{stem}{suffix}(x)"))
            }
            None => return Err(unknown("not a CUDA math function crunch knows")),
        }
    };
    let func = builtin
        .and_then(RefFunc::new)
        .ok_or_else(|| unknown("no reference"))?;
    Ok((
        func,
        fmt,
        tmd_kernels::crunch_call_target(c_type(fmt), &call),
    ))
}

/// The C definition of `crunch_target` for a target name on `backend` (opencl or cuda),
/// with its function and format. `file:` targets take the function from `function` and the
/// format from `format`.
fn target_body(
    backend: &str,
    spec: &str,
    function: Option<&str>,
    format: Option<CrunchFormat>,
) -> Result<(RefFunc, CrunchFormat, String), InputError> {
    let unknown = |why: &str| {
        InputError::Function(format!(
            "unknown crunch target `{spec}` on the {backend} backend: {why}"
        ))
    };
    let (source, name) = spec
        .split_once(':')
        .ok_or_else(|| unknown("expected SOURCE:NAME"))?;
    match source {
        s if s == backend => library_target(backend, name, &unknown),
        "emul" => {
            let (stem, fmt) = match name.strip_suffix('f') {
                Some(stem) => (stem, CrunchFormat::Binary32),
                None => (name, CrunchFormat::Binary64),
            };
            let bad = || {
                unknown(&format!("emulations on the {backend} backend are vrecpe-nrN (N = 0..=5), `f` for binary32; rcpps runs on the cpu backend"))
            };
            let steps: u32 = stem
                .strip_prefix("vrecpe-nr")
                .and_then(|n| n.parse().ok())
                .filter(|n| *n <= 5)
                .ok_or_else(bad)?;
            let code = tmd_kernels::crunch_vrecpe_target(c_type(fmt), steps);
            Ok((RefFunc::Recip, fmt, code))
        }
        "file" => {
            let func_name = function.ok_or_else(|| {
                InputError::Usage(format!(
                    "target {spec}: say which function it computes with --function NAME"
                ))
            })?;
            let func = RefFunc::lookup(func_name).ok_or_else(|| {
                InputError::Function(format!(
                    "--function {func_name}: crunch has no reference for it"
                ))
            })?;
            let code = std::fs::read_to_string(name).map_err(|e| {
                InputError::Usage(format!("target {spec}: cannot read {name}: {e}"))
            })?;
            Ok((func, format.unwrap_or(CrunchFormat::Binary32), code))
        }
        _ => Err(unknown(&format!(
            "sources on the {backend} backend are {backend}, emul and file"
        ))),
    }
}

/// How `--backend opencl|cuda` targets are set up.
pub struct DeviceChoice<'a> {
    pub backend: &'a str,
    pub index: usize,
    pub function: Option<&'a str>,
    pub format: Option<CrunchFormat>,
    /// Keep the error analysis on the host even where the device could do it.
    pub host_analysis: bool,
    /// Called when a launch fails in the middle of a run.
    pub on_failure: FailureHandler,
}

/// Why a device target could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// Bad input: an unknown target, a snippet that does not compile, a format the device
    /// lacks.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The device could not be opened or run.
    #[error("{0}")]
    Device(String),
}

/// A device target that does not resolve stops a crunch job the way the job's own errors do.
impl From<TargetError> for tmd_crunch::job::JobError {
    fn from(e: TargetError) -> Self {
        match e {
            TargetError::Input(i) => tmd_crunch::job::JobError::Input(i),
            TargetError::Device(message) => tmd_crunch::job::JobError::Device(message),
        }
    }
}

/// Resolves a target for a device backend, compiling it once (a snippet that does not
/// compile is bad input, with the compiler's first error line).
pub fn resolve_device(spec: &str, choice: &DeviceChoice) -> Result<BoxedTarget, TargetError> {
    let backend = choice.backend;
    let (func, fmt, body) = target_body(backend, spec, choice.function, choice.format)?;
    let runtime = Runtime::parse(backend)
        .ok_or_else(|| InputError::Usage(format!("--backend {backend}: not a device backend")))?;
    let device = Device::open(runtime, choice.index)
        .map_err(|e| TargetError::Device(format!("--backend {backend}: {e}")))?;
    if fmt == CrunchFormat::Binary64 && !device.has_fp64() {
        return Err(InputError::Usage(format!(
            "{spec}: device {} has no double precision",
            device.describe()
        ))
        .into());
    }
    let trial = match fmt {
        CrunchFormat::Binary32 => device.crunch_eval(&body, &[1.0f32]).map(|_| ()),
        CrunchFormat::Binary64 => device.crunch_eval(&body, &[1.0f64]).map(|_| ()),
    };
    match trial {
        Err(GpuError::Build { log, device, .. }) => {
            let first = log
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or_else(|| log.lines().next().unwrap_or(""))
                .trim()
                .to_string();
            return Err(
                InputError::Usage(format!("{spec} does not compile on {device}: {first}")).into(),
            );
        }
        Err(e) => return Err(TargetError::Device(format!("{spec}: {e}"))),
        Ok(()) => {}
    }
    Ok(Box::new(DeviceTarget {
        about: About::new(spec, func, fmt),
        body,
        device,
        device_analysis: !choice.host_analysis,
        analysis_unavailable: std::sync::OnceLock::new(),
        on_failure: choice.on_failure,
    }))
}
