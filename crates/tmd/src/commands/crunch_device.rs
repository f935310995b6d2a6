//! Crunch targets that run on an OpenCL device (`--backend opencl`): the device's own math
//! library (`opencl:expf`, `opencl:native_sinf`, `opencl:log`), the ARM VRECPE emulation
//! (`emul:vrecpe-nrN[f]`, the same target as on the CPU, bit for bit), and user snippets
//! (`file:PATH`, a C definition of `crunch_target` in the portable dialect of
//! `tmd-kernels/kernels/crunch.cl`). The device evaluates the target on each batch; the
//! error analysis stays on the host (tmd-crunch), so reports agree across backends exactly
//! when the results do.

use std::sync::Arc;
use tmd_core::InputError;
use tmd_crunch::function::RefFunc;
use tmd_crunch::target::{BoxedTarget, Target};
use tmd_crunch::CrunchFormat;
use tmd_gpu::opencl::OpenClDevice;
use tmd_gpu::GpuError;

/// The OpenCL C built-ins crunch knows, by C name stem (all exist for float and double).
const BUILTINS: &[&str] = &[
    "exp", "expm1", "exp2", "exp10", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt", "sqrt",
];

/// The native_ built-ins (float only, implementation-defined accuracy).
const NATIVE: &[&str] = &[
    "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "sqrt",
];

struct OpenClTarget {
    name: String,
    function: RefFunc,
    format: CrunchFormat,
    /// The C definition of `crunch_target`.
    body: String,
    device: Arc<OpenClDevice>,
}

impl OpenClTarget {
    /// A failed launch in the middle of a run: one line and exit 1 (the checkpoint keeps
    /// every finished block).
    fn fail(&self, e: GpuError) -> ! {
        eprintln!("tmd: {} on {}: {e}", self.name, self.device.name());
        std::process::exit(1);
    }
}

impl Target for OpenClTarget {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn function(&self) -> RefFunc {
        self.function
    }
    fn format(&self) -> CrunchFormat {
        self.format
    }
    fn eval_f32(&self, xs: &[f32], out: &mut [f32]) {
        match self.device.crunch_eval(&self.body, xs) {
            Ok(ys) => out.copy_from_slice(&ys),
            Err(e) => self.fail(e),
        }
    }
    fn eval_f64(&self, xs: &[f64], out: &mut [f64]) {
        match self.device.crunch_eval(&self.body, xs) {
            Ok(ys) => out.copy_from_slice(&ys),
            Err(e) => self.fail(e),
        }
    }
    fn note(&self) -> Option<String> {
        Some(format!("evaluated on OpenCL device {}", self.device.name()))
    }
}

fn c_type(format: CrunchFormat) -> &'static str {
    match format {
        CrunchFormat::Binary32 => "float",
        CrunchFormat::Binary64 => "double",
    }
}

/// The C definition of `crunch_target` for a target name, with its function and format.
/// `file:` targets take the function from `function` and the format from `format`.
fn target_body(
    spec: &str,
    function: Option<&str>,
    format: Option<CrunchFormat>,
) -> Result<(RefFunc, CrunchFormat, String), InputError> {
    let unknown = |why: &str| {
        InputError::Function(format!(
            "unknown crunch target `{spec}` on the opencl backend: {why}"
        ))
    };
    let (source, name) = spec
        .split_once(':')
        .ok_or_else(|| unknown("expected SOURCE:NAME"))?;
    // C names: a trailing `f` is the binary32 version (no name here ends in `f` otherwise).
    let split = |name: &str| match name.strip_suffix('f') {
        Some(stem) => (stem.to_string(), CrunchFormat::Binary32),
        None => (name.to_string(), CrunchFormat::Binary64),
    };
    match source {
        "opencl" => {
            let (stem, fmt) = split(name);
            let (builtin, native) = match stem.strip_prefix("native_") {
                Some(s) if NATIVE.contains(&s) && fmt == CrunchFormat::Binary32 => {
                    (s.to_string(), true)
                }
                Some(_) => {
                    return Err(unknown(
                        "native_ functions: native_expf, native_sinf, ... (binary32)",
                    ))
                }
                None if BUILTINS.contains(&stem.as_str()) => (stem.clone(), false),
                None => return Err(unknown("not an OpenCL built-in crunch knows")),
            };
            let func = RefFunc::lookup(&builtin).ok_or_else(|| unknown("no reference"))?;
            let call = if native {
                format!("native_{builtin}(x)")
            } else {
                format!("{builtin}(x)")
            };
            Ok((
                func,
                fmt,
                tmd_kernels::crunch_call_target(c_type(fmt), &call),
            ))
        }
        "emul" => {
            let (stem, fmt) = split(name);
            let bad = || {
                unknown("emulations on the opencl backend are vrecpe-nrN (N = 0..=5), `f` for binary32; rcpps runs on the cpu backend")
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
        _ => Err(unknown(
            "sources on the opencl backend are opencl, emul and file",
        )),
    }
}

/// Resolves a target for `--backend opencl` on device `index`, compiling it once (a snippet
/// that does not compile is bad input, with the compiler's first error line).
pub fn resolve_opencl(
    spec: &str,
    function: Option<&str>,
    format: Option<CrunchFormat>,
    index: usize,
) -> anyhow::Result<BoxedTarget> {
    let (func, fmt, body) = target_body(spec, function, format)?;
    let device =
        Arc::new(OpenClDevice::nth(index).map_err(|e| anyhow::anyhow!("--backend opencl: {e}"))?);
    if fmt == CrunchFormat::Binary64 && !device.has_fp64() {
        return Err(InputError::Usage(format!(
            "{spec}: device {} has no double precision",
            device.name()
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
        Err(e) => return Err(anyhow::anyhow!("{spec}: {e}")),
        Ok(()) => {}
    }
    Ok(Box::new(OpenClTarget {
        name: spec.to_string(),
        function: func,
        format: fmt,
        body,
        device,
    }))
}
