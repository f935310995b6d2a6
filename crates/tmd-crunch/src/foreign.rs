//! Foreign targets: functions in shared libraries and C sources, scalar or vector, and the
//! math libraries of this machine by short names.
//!
//! * `dl:PATH:SYMBOL` — a function loaded from a shared library (libloading); PATH may be a
//!   bare name the dynamic loader resolves (`libm.so.6`). The function and format come from
//!   the symbol's name ([`naming`]), overridable by `--function` and `--format`.
//! * `c:FILE.c:SYMBOL` — FILE.c compiled by the system C compiler into a cached shared
//!   object ([`compile`]), then as `dl:`.
//! * `glibc:`, `glibc-mvec[-ISA]:`, `sleef[-ISA][-uNN]:`, `musl:` + a C name — the libraries
//!   of [`libraries`].
//!
//! Foreign code never runs in tmd's process: a worker process ([`worker`]) loads the library
//! and evaluates batches of inputs, so a target that crashes, exits or hangs ends the worker,
//! and the run stops with one line naming the input ([`crate::target::TargetFailure`]).
//! Every call runs under the rounding mode the target was made with: the worker's batch loop
//! is C (`foreign/eval_under.c`, compiled by build.rs), which sets the mode with `fesetround`,
//! calls the function on every input, and restores the mode; no Rust floating-point code runs
//! in between. Vector entry points ([`vector`]) are called with consecutive inputs in their
//! lanes.
//!
//! Calling a function trusts that the symbol has the signature its name says; a wrong one
//! gives wrong results or a crash of the worker, never of tmd.

pub mod compile;
pub mod libraries;
pub mod naming;
pub mod vector;
pub mod worker;

use crate::format::CrunchFormat;
use crate::function::RefFunc;
use crate::implementation::{About, Implementation, Unary, UnaryBatch};
use crate::rounding::Rounding;
use crate::target::{BoxedTarget, Target, TargetFailure};
use crate::wide::WideFormat;
use naming::SymbolName;
use std::ffi::c_int;
use tmd_core::InputError;
use worker::{bytes_of, bytes_of_mut, place_in_batch, Kind, Workers};

extern "C" {
    fn tmd_current_rounding() -> c_int;
    fn tmd_long_double_digits() -> c_int;
}

/// The mode's number in `eval_under.c`.
pub(crate) fn mode_number(mode: Rounding) -> c_int {
    match mode {
        Rounding::Nearest => 0,
        Rounding::Up => 1,
        Rounding::Down => 2,
        Rounding::Zero => 3,
    }
}

/// The rounding mode of the calling thread (`fegetround`).
pub fn current_rounding() -> Rounding {
    // SAFETY: fegetround reads the floating-point environment only.
    match unsafe { tmd_current_rounding() } {
        1 => Rounding::Up,
        2 => Rounding::Down,
        3 => Rounding::Zero,
        _ => Rounding::Nearest,
    }
}

/// The format of `long double` on this platform, if it is one of the wide ones.
pub fn long_double() -> Option<WideFormat> {
    // SAFETY: returns a compile-time constant.
    match unsafe { tmd_long_double_digits() } {
        64 if cfg!(any(target_arch = "x86_64", target_arch = "x86")) => Some(WideFormat::Binary80),
        113 => Some(WideFormat::Binary128),
        _ => None,
    }
}

/// What the command line may say about a foreign target beyond its name.
#[derive(Clone, Copy, Debug, Default)]
pub struct Overrides<'a> {
    /// The function it computes (`--function`), instead of the one its symbol names.
    pub function: Option<&'a str>,
    /// Its format (`--format`), instead of the one its symbol names.
    pub format: Option<CrunchFormat>,
    pub mode: Rounding,
}

/// Whether `spec` names a foreign target (`dl:`, `c:` or a library of [`libraries`]).
pub fn is_foreign(spec: &str) -> bool {
    spec.split_once(':')
        .is_some_and(|(source, _)| matches!(source, "dl" | "c") || libraries::is_family(source))
}

/// Resolves a foreign target (`dl:PATH:SYMBOL`, `c:FILE.c:SYMBOL`, `glibc:expf`, ...) that
/// runs under `mode`.
pub fn resolve_foreign(
    spec: &str,
    function: Option<&str>,
    format: Option<CrunchFormat>,
    mode: Rounding,
) -> Result<BoxedTarget, InputError> {
    let overrides = Overrides {
        function,
        format,
        mode,
    };
    let (source, rest) = split_source(spec)?;
    match source {
        "dl" => {
            let (path, symbol) = path_and_symbol(spec, source, rest)?;
            let library = Loadable::dl(path);
            load(spec, &library, symbol, &overrides)
        }
        "c" => {
            let (file, symbol) = path_and_symbol(spec, source, rest)?;
            let library = Loadable::compiled(spec, file, &["-lm".into()])?;
            load(spec, &library, symbol, &overrides)
        }
        family if libraries::is_family(family) => {
            libraries::resolve(spec, family, rest, &overrides)
        }
        _ => Err(usage(
            spec,
            "foreign targets are dl:, c:, glibc:, glibc-mvec:, sleef: and musl:",
        )),
    }
}

/// Resolves a target to run under `mode`. Targets from C code (this module: `dl:`,
/// `c:`, the named libraries) run under `fesetround(mode)`; every other target [`crate::target::resolve`]
/// knows is Rust code that cannot follow the C rounding mode, so anything but
/// round-to-nearest is refused for them.
pub fn resolve_with_rounding(spec: &str, mode: crate::Rounding) -> Result<BoxedTarget, InputError> {
    if is_foreign(spec) {
        return resolve_foreign(spec, None, None, mode);
    }
    let target = crate::target::resolve(spec)?;
    match mode {
        crate::Rounding::Nearest => Ok(target),
        _ => Err(crate::target::runs_only_to_nearest(spec, mode, "Rust code")),
    }
}

pub(crate) fn compiler_text() -> String {
    let c = compile::Compiler::from_env();
    format!("{} {}", c.program, c.flags.join(" "))
}

/// `SOURCE:REST` of a foreign target's spec.
pub(crate) fn split_source(spec: &str) -> Result<(&str, &str), InputError> {
    spec.split_once(':')
        .ok_or_else(|| usage(spec, "expected SOURCE:NAME"))
}

/// The PATH and SYMBOL of the REST of a `dl:` or `c:` spec (`PATH:SYMBOL`, PATH may hold
/// colons).
pub(crate) fn path_and_symbol<'a>(
    spec: &str,
    source: &str,
    rest: &'a str,
) -> Result<(&'a str, &'a str), InputError> {
    rest.rsplit_once(':')
        .filter(|(p, s)| !p.is_empty() && !s.is_empty())
        .ok_or_else(|| usage(spec, &format!("expected {source}:PATH:SYMBOL")))
}

pub(crate) fn usage(spec: &str, why: &str) -> InputError {
    InputError::Usage(format!("target `{spec}`: {why}"))
}

/// A shared library to load, and what to say about it.
pub struct Loadable {
    /// A path or a name for the dynamic loader.
    pub path: String,
    /// The Debian package that provides it, named when it is missing.
    pub package: Option<&'static str>,
    /// What the report's note says about where the function comes from.
    pub note: Option<String>,
}

impl Loadable {
    pub fn dl(path: &str) -> Loadable {
        Loadable {
            path: path.to_string(),
            package: libraries::package_of(path),
            note: None,
        }
    }

    /// The C source `file` compiled into a cached shared object with `link` after it.
    pub(crate) fn compiled(
        spec: &str,
        file: &str,
        link: &[String],
    ) -> Result<Loadable, InputError> {
        let object = compile::shared_object(spec, std::path::Path::new(file), link)?;
        Ok(Loadable {
            path: object.display().to_string(),
            package: None,
            note: Some(format!("{file} compiled by {}", compiler_text())),
        })
    }
}

/// What the name and the overrides decide: function, format, lanes.
fn decide(
    spec: &str,
    symbol: &str,
    ov: &Overrides,
) -> Result<(RefFunc, CrunchFormat, SymbolName), InputError> {
    let name = naming::parse(symbol).map_err(|why| usage(spec, &why))?;
    let format = ov.format.unwrap_or(name.format);
    if name.vector.is_some() && format != name.format {
        return Err(usage(
            spec,
            &format!(
                "{symbol} takes {} lanes; --format {} does not fit it",
                name.format.name(),
                format.name()
            ),
        ));
    }
    let function = match ov.function {
        Some(f) => RefFunc::lookup(f)
            .ok_or_else(|| usage(spec, &format!("--function {f}: crunch does not know it")))?,
        None => name
            .function()
            .ok_or_else(|| usage(spec, &unknown_function(&name.stem)))?,
    };
    Ok((function, format, name))
}

/// The message for a symbol whose function crunch does not check.
pub(crate) fn unknown_function(stem: &str) -> String {
    format!(
        "crunch does not know a function `{stem}` (`tmd crunch --list` names those it checks); \
         give --function NAME if the symbol computes one of them"
    )
}

/// Loads `symbol` from the library as a target.
pub fn load(
    spec: &str,
    library: &Loadable,
    symbol: &str,
    ov: &Overrides,
) -> Result<BoxedTarget, InputError> {
    let (function, format, name) = decide(spec, symbol, ov)?;
    if let Some(shape) = name.vector {
        if !vector::cpu_has(shape.isa) {
            return Err(usage(
                spec,
                &format!("{symbol} needs {}, which this CPU lacks", shape.isa.name()),
            ));
        }
    }
    let kind = match (name.vector, format) {
        (Some(shape), CrunchFormat::Binary32) => match shape.lanes {
            4 => Kind::F32x4,
            8 => Kind::F32x8,
            _ => Kind::F32x16,
        },
        (Some(shape), CrunchFormat::Binary64) => match shape.lanes {
            2 => Kind::F64x2,
            4 => Kind::F64x4,
            _ => Kind::F64x8,
        },
        (None, CrunchFormat::Binary32) => Kind::Binary32,
        (None, CrunchFormat::Binary64) => Kind::Binary64,
    };
    let workers = Workers::start(spec, library, symbol, kind, ov.mode)?;
    let mut note = library.note.clone().unwrap_or_else(|| library.path.clone());
    if let Some(shape) = name.vector {
        note.push_str(&format!(
            "; {} lanes, {}, on {}",
            shape.lanes,
            shape.isa.name(),
            crate::emul::cpu_model()
        ));
    }
    let about = About {
        rounding: ov.mode,
        note: Some(note),
        ..About::new(spec, function, format)
    };
    Ok(Box::new(ForeignTarget { about, workers }))
}

/// A function of a shared library, called under a rounding mode in worker processes
/// ([`worker`]).
pub struct ForeignTarget {
    about: About<Unary>,
    workers: Workers,
}

impl ForeignTarget {
    /// Where input `i` of `xs` is, for a failure's message, and its value (the run's order);
    /// `None`: somewhere in the batch.
    fn at(&self, xs: &[f64], i: Option<usize>) -> (String, f64) {
        let place = place_in_batch(&[xs], |&x| self.about.format.hex(x), i);
        (place, xs[i.unwrap_or(0)])
    }
}

impl Implementation<Unary> for ForeignTarget {
    fn about(&self) -> &About<Unary> {
        &self.about
    }
    fn eval(&self, batch: UnaryBatch<'_>) {
        match batch {
            UnaryBatch::Binary32 { xs, out } => {
                let n = xs.len().min(out.len());
                let (xs, out) = (&xs[..n], &mut out[..n]);
                let wide = || xs.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
                let at = |i| self.at(&wide(), i);
                if !self
                    .workers
                    .eval_or_fail(bytes_of(xs), n, bytes_of_mut(out), at)
                {
                    out.fill(f32::NAN);
                }
            }
            UnaryBatch::Binary64 { xs, out } => {
                let n = xs.len().min(out.len());
                let (xs, out) = (&xs[..n], &mut out[..n]);
                if !self
                    .workers
                    .eval_or_fail(bytes_of(xs), n, bytes_of_mut(out), |i| self.at(xs, i))
                {
                    out.fill(f64::NAN);
                }
            }
        }
    }
    fn failure(&self) -> Option<TargetFailure> {
        self.workers.failure()
    }
}

impl Target for ForeignTarget {}
