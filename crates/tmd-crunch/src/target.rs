//! Targets: the implementations crunch measures.
//!
//! A target evaluates a batch of inputs of one format (batches let device backends and
//! vectorised code take whole chunks). Built-in targets are named `SOURCE:NAME`:
//!
//! * `std:NAME` — the platform's libm through Rust's std (`std:expf` is `f32::exp`,
//!   `std:exp` is `f64::exp`); C names, a trailing `f` for binary32.
//! * `libm:NAME` — the `libm` crate (`libm::expf`, `libm::exp`).
//! * `xfloat:NAME` — xfloat's double-float (binary32) or double-double (binary64) function,
//!   rounded to the format (its leading word: the words are normalised).
//! * `emul:vrecpe-nrN[f]`, `emul:rcpps-nrN[f]` — approximate reciprocal then N Newton–Raphson
//!   steps without FMA ([`crate::emul`]); binary64, or binary32 with the `f` suffix.
//!
//! Library users wrap a closure with [`ClosureTarget`].

use crate::emul::{self, Estimate};
use crate::format::CrunchFormat;
use crate::function::{libm_of, outside_crunch, RefFunc};
use crate::implementation::{About, Implementation, Unary, UnaryBatch};
use tmd_core::registry::Func;
use tmd_core::InputError;
use tmd_xfloat::{Dd, Df64};

/// An implementation of a function of one binary32 or binary64 argument: the
/// [`Implementation`] of that arity, and whether it also analyses its own errors on a device.
pub trait Target: Implementation<Unary> {
    /// The summary of ordinals `[lo, hi)` when the target evaluates AND analyses on a device
    /// ([`crate::device::summary_from_device`]); `None` (the default) to analyse on the cores.
    fn crunch_on_device(&self, _lo: i64, _hi: i64) -> Option<crate::summary::Summary> {
        None
    }
}

/// Named here too, beside the trait whose [`Implementation::failure`] gives it.
pub use crate::failure::TargetFailure;

/// A target from plain functions.
pub struct ClosureTarget<F32, F64> {
    about: About<Unary>,
    f32_fn: F32,
    f64_fn: F64,
}

impl<G: Fn(f32) -> f32 + Send + Sync> ClosureTarget<G, fn(f64) -> f64> {
    /// A binary32 target computing `function` by `f`.
    pub fn binary32(name: &str, function: RefFunc, f: G) -> Self {
        ClosureTarget {
            about: About::new(name, function, CrunchFormat::Binary32),
            f32_fn: f,
            f64_fn: |x| x,
        }
    }
}

impl<G: Fn(f64) -> f64 + Send + Sync> ClosureTarget<fn(f32) -> f32, G> {
    /// A binary64 target computing `function` by `f`.
    pub fn binary64(name: &str, function: RefFunc, f: G) -> Self {
        ClosureTarget {
            about: About::new(name, function, CrunchFormat::Binary64),
            f32_fn: |x| x,
            f64_fn: f,
        }
    }
}

impl<A, B> ClosureTarget<A, B> {
    fn with_note(mut self, note: String) -> Self {
        self.about.note = Some(note);
        self
    }

    /// Declares that the closure's results are meant for `mode` (it is judged against f(x)
    /// rounded in that mode). The closure itself need not set the mode: one that computes the
    /// directed rounding on its own is as good as one called under `fesetround`.
    pub fn with_rounding(mut self, mode: crate::Rounding) -> Self {
        self.about.rounding = mode;
        self
    }
}

impl<A, B> Implementation<Unary> for ClosureTarget<A, B>
where
    A: Fn(f32) -> f32 + Send + Sync,
    B: Fn(f64) -> f64 + Send + Sync,
{
    fn about(&self) -> &About<Unary> {
        &self.about
    }
    fn eval(&self, batch: UnaryBatch<'_>) {
        match batch {
            UnaryBatch::Binary32 { xs, out } => {
                for (o, &x) in out.iter_mut().zip(xs) {
                    *o = (self.f32_fn)(x);
                }
            }
            UnaryBatch::Binary64 { xs, out } => {
                for (o, &x) in out.iter_mut().zip(xs) {
                    *o = (self.f64_fn)(x);
                }
            }
        }
    }
}

impl<A, B> Target for ClosureTarget<A, B>
where
    A: Fn(f32) -> f32 + Send + Sync,
    B: Fn(f64) -> f64 + Send + Sync,
{
}

/// xfloat's double-float and double-double versions of a function.
type XfloatPair = (fn(Df64) -> Df64, fn(Dd) -> Dd);

/// One row of the built-in table: C name stem (the table's name), function, std, libm and
/// xfloat versions.
struct Builtin {
    stem: &'static str,
    func: RefFunc,
    std32: Option<fn(f32) -> f32>,
    std64: Option<fn(f64) -> f64>,
    libm32: fn(f32) -> f32,
    libm64: fn(f64) -> f64,
    xfloat: Option<XfloatPair>,
}

/// The rows, in the order `tmd crunch --list` shows them, and [`builtin`], their match over
/// the function enum: every function with crunch facts has a row (its binary64 `libm`
/// version is its reference's, [`crate::function::libm_of`]), so that a new one is named here
/// by the compiler.
macro_rules! builtins {
    ($($func:ident, $std:ident, $l32:path, $xf:expr;)*) => {
        const LISTED: &[Func] = &[$(Func::$func),*];

        fn builtin(func: Func) -> Option<Builtin> {
            let row = |std32, std64, libm32, xfloat| Builtin {
                stem: func.name(),
                func: RefFunc::Registry(func),
                std32,
                std64,
                libm32,
                libm64: libm_of(func).expect("a crunch function has a libm reference"),
                xfloat,
            };
            match func {
                $(Func::$func => Some(row(
                    builtins!(@std f32 $std),
                    builtins!(@std f64 $std),
                    $l32,
                    $xf,
                )),)*
                outside_crunch!() => None,
            }
        }
    };
    (@std $t:ident none) => { None };
    (@std $t:ident $m:ident) => { Some(|x: $t| x.$m()) };
}

builtins! {
    Exp, exp, libm::expf, Some((Df64::exp, Dd::exp));
    Expm1, exp_m1, libm::expm1f, Some((Df64::expm1, Dd::expm1));
    Exp2, exp2, libm::exp2f, None;
    Exp10, none, libm::exp10f, None;
    Log, ln, libm::logf, Some((Df64::ln, Dd::ln));
    Log1p, ln_1p, libm::log1pf, Some((Df64::ln_1p, Dd::ln_1p));
    Log2, log2, libm::log2f, None;
    Log10, log10, libm::log10f, None;
    Sin, sin, libm::sinf, Some((Df64::sin, Dd::sin));
    Cos, cos, libm::cosf, Some((Df64::cos, Dd::cos));
    Tan, tan, libm::tanf, Some((Df64::tan, Dd::tan));
    Asin, asin, libm::asinf, None;
    Acos, acos, libm::acosf, None;
    Atan, atan, libm::atanf, Some((Df64::atan, Dd::atan));
    Sinh, sinh, libm::sinhf, Some((Df64::sinh, Dd::sinh));
    Cosh, cosh, libm::coshf, Some((Df64::cosh, Dd::cosh));
    Tanh, tanh, libm::tanhf, Some((Df64::tanh, Dd::tanh));
    Asinh, asinh, libm::asinhf, None;
    Acosh, acosh, libm::acoshf, None;
    Atanh, atanh, libm::atanhf, None;
    Cbrt, cbrt, libm::cbrtf, None;
    Sqrt, sqrt, libm::sqrtf, Some((Df64::sqrt, Dd::sqrt));
    Erf, none, libm::erff, None;
    Erfc, none, libm::erfcf, None;
}

/// Every row, in [`LISTED`] order.
fn builtin_table() -> Vec<Builtin> {
    LISTED.iter().filter_map(|&f| builtin(f)).collect()
}

/// A built-in target, ready to run.
pub type BoxedTarget = Box<dyn Target>;

fn unknown(name: &str, why: &str) -> InputError {
    InputError::Function(format!(
        "unknown crunch target `{name}`: {why} (see `tmd crunch --list`)"
    ))
}

/// Splits `stemf` / `stem` into the stem and its format.
fn split_format(name: &str) -> Vec<(&str, CrunchFormat)> {
    let mut out = vec![(name, CrunchFormat::Binary64)];
    if let Some(stem) = name.strip_suffix('f') {
        out.push((stem, CrunchFormat::Binary32));
    }
    out
}

/// Resolves a target name (`std:expf`, `libm:log`, `xfloat:sin`, `emul:rcpps-nr3`).
pub fn resolve(spec: &str) -> Result<BoxedTarget, InputError> {
    let Some((source, name)) = spec.split_once(':') else {
        return Err(unknown(spec, "expected SOURCE:NAME"));
    };
    match source {
        "std" | "libm" | "xfloat" => resolve_table(spec, source, name),
        "emul" => resolve_emul(spec, name),
        "opencl" => Err(InputError::Usage(format!(
            "target `{spec}` runs on an OpenCL device: add --backend opencl"
        ))),
        "cuda" => Err(InputError::Usage(format!(
            "target `{spec}` runs on an NVIDIA GPU: add --backend cuda"
        ))),
        "file" => Err(InputError::Usage(format!(
            "target `{spec}` runs on a device: add --backend opencl or --backend cuda"
        ))),
        _ => Err(unknown(spec, "sources are std, libm, xfloat, emul")),
    }
}

/// The refusal of a target of `kind` (Rust code, device code) under a mode other than
/// round-to-nearest.
pub fn runs_only_to_nearest(spec: &str, mode: crate::Rounding, kind: &str) -> InputError {
    InputError::Usage(format!(
        "target {spec} runs only under round-to-nearest ({kind}); --rounding {mode} needs a \
         dl:, c: or library target"
    ))
}

fn resolve_table(spec: &str, source: &str, name: &str) -> Result<BoxedTarget, InputError> {
    let table = builtin_table();
    for (stem, format) in split_format(name) {
        let Some(row) = table.iter().find(|b| b.stem == stem) else {
            continue;
        };
        let func = row.func;
        let boxed: Option<BoxedTarget> = match (source, format) {
            ("std", CrunchFormat::Binary32) => row
                .std32
                .map(|f| Box::new(ClosureTarget::binary32(spec, func, f)) as BoxedTarget),
            ("std", CrunchFormat::Binary64) => row
                .std64
                .map(|f| Box::new(ClosureTarget::binary64(spec, func, f)) as BoxedTarget),
            ("libm", CrunchFormat::Binary32) => {
                Some(Box::new(ClosureTarget::binary32(spec, func, row.libm32)))
            }
            ("libm", CrunchFormat::Binary64) => {
                Some(Box::new(ClosureTarget::binary64(spec, func, row.libm64)))
            }
            (_, CrunchFormat::Binary32) => row.xfloat.map(|(f, _)| {
                Box::new(ClosureTarget::binary32(spec, func, move |x: f32| {
                    f(Df64::from(x as f64)).hi()
                })) as BoxedTarget
            }),
            (_, CrunchFormat::Binary64) => row.xfloat.map(|(_, f)| {
                Box::new(ClosureTarget::binary64(spec, func, move |x: f64| {
                    f(Dd::from(x)).hi()
                })) as BoxedTarget
            }),
        };
        return boxed.ok_or_else(|| unknown(spec, &format!("{source} has no {name}")));
    }
    Err(unknown(spec, &format!("no function `{name}`")))
}

fn resolve_emul(spec: &str, name: &str) -> Result<BoxedTarget, InputError> {
    let (name, format) = match name.strip_suffix('f') {
        Some(stem) => (stem, CrunchFormat::Binary32),
        None => (name, CrunchFormat::Binary64),
    };
    let bad = || {
        unknown(
            spec,
            "emulations are vrecpe-nrN and rcpps-nrN (N = 0..=5), `f` for binary32",
        )
    };
    let (start, steps) = name.split_once("-nr").ok_or_else(bad)?;
    let steps: u32 = steps.parse().ok().filter(|s| *s <= 5).ok_or_else(bad)?;
    let (estimate, note) = match start {
        "vrecpe" => (Estimate::Vrecpe, None),
        "rcpps" => {
            if emul::rcpps_f32(1.0).is_none() {
                return Err(InputError::Usage(format!(
                    "target `{spec}` executes RCPPS and needs an x86-64 CPU"
                )));
            }
            (
                Estimate::Rcpps,
                Some(format!("RCPPS of {}", emul::cpu_model())),
            )
        }
        _ => return Err(bad()),
    };
    let target: BoxedTarget = match (format, note) {
        (CrunchFormat::Binary32, note) => {
            let t = ClosureTarget::binary32(spec, RefFunc::Recip, move |x| {
                emul::recip_nr_f32(estimate, steps, x)
            });
            Box::new(match note {
                Some(n) => t.with_note(n),
                None => t,
            })
        }
        (CrunchFormat::Binary64, note) => {
            let t = ClosureTarget::binary64(spec, RefFunc::Recip, move |x| {
                emul::recip_nr_f64(estimate, steps, x)
            });
            Box::new(match note {
                Some(n) => t.with_note(n),
                None => t,
            })
        }
    };
    Ok(target)
}

/// Every built-in target name, with the format it checks, for `tmd crunch --list`.
pub fn list() -> Vec<(String, CrunchFormat)> {
    let mut out = Vec::new();
    for row in builtin_table() {
        for (source, has32, has64) in [
            ("std", row.std32.is_some(), row.std64.is_some()),
            ("libm", true, true),
            ("xfloat", row.xfloat.is_some(), row.xfloat.is_some()),
        ] {
            if has32 {
                out.push((format!("{source}:{}f", row.stem), CrunchFormat::Binary32));
            }
            if has64 {
                out.push((format!("{source}:{}", row.stem), CrunchFormat::Binary64));
            }
        }
    }
    for start in ["vrecpe", "rcpps"] {
        out.push((format!("emul:{start}-nrN"), CrunchFormat::Binary64));
        out.push((format!("emul:{start}-nrNf"), CrunchFormat::Binary32));
    }
    out
}
