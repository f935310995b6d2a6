//! Two-argument functions in foreign code: `dl:PATH:SYMBOL`, `c:FILE.c:SYMBOL`, and the
//! libraries `glibc:` (libm.so.6), `musl:` (a wrapper linked with musl's static libc) and
//! `sleef:` (scalar `Sleef_NAME_uNN`, the most accurate variant unless `sleef-uNN:` says
//! otherwise). The signature called is `float f(float, float)` or `double f(double, double)`,
//! as the name's format says; every batch runs in a worker process under the target's
//! rounding mode in the C loops of `foreign/eval_under.c`, as univariate foreign targets do
//! ([`crate::foreign`], [`crate::foreign::worker`]).

use super::format::PairFormat;
use super::target::{function_of_name, resolve_builtin, BoxedPairTarget, Narrowed};
use super::BiFunc;
use crate::foreign::libraries::{musl_wrapper, LIBM, LIBSLEEF};
use crate::foreign::worker::{bytes_of, bytes_of_mut, place_in_batch, Kind, Workers};
use crate::foreign::{naming, path_and_symbol, split_source, usage, Loadable};
use crate::implementation::{About, Binary, Implementation, PairBatch};
use crate::rounding::Rounding;
use crate::target::TargetFailure;
use tmd_core::InputError;

/// A two-argument function of a shared library, called under a rounding mode in worker
/// processes ([`crate::foreign::worker`]).
pub struct ForeignPairTarget {
    about: About<Binary>,
    workers: Workers,
}

impl ForeignPairTarget {
    /// Where pair `i` is, for a failure's message; `None`: somewhere in the batch. Pairs have
    /// no order of their own here: the first death seen is kept.
    fn at(&self, a: &[f64], b: &[f64], i: Option<usize>) -> (String, f64) {
        (
            place_in_batch(&[a, b], |&v| self.about.format.hex(v), i),
            0.0,
        )
    }
}

impl Implementation<Binary> for ForeignPairTarget {
    fn about(&self) -> &About<Binary> {
        &self.about
    }
    fn eval(&self, batch: PairBatch<'_>) {
        let PairBatch { a, b, out } = batch;
        let n = a.len().min(b.len()).min(out.len());
        let (a, b) = (&a[..n], &b[..n]);
        // The first arguments, then the second ones (the worker's layout for pairs).
        let ok = if self.about.format == PairFormat::Binary32 {
            let input: Vec<f32> = a.iter().chain(b).map(|&v| v as f32).collect();
            let mut narrow = vec![0f32; n];
            let ok =
                self.workers
                    .eval_or_fail(bytes_of(&input), n, bytes_of_mut(&mut narrow), |i| {
                        self.at(a, b, i)
                    });
            for (o, r) in out.iter_mut().zip(narrow) {
                *o = f64::from(r);
            }
            ok
        } else {
            let input: Vec<f64> = a.iter().chain(b).copied().collect();
            self.workers
                .eval_or_fail(bytes_of(&input), n, bytes_of_mut(&mut out[..n]), |i| {
                    self.at(a, b, i)
                })
        };
        if !ok {
            out[..n].fill(f64::NAN);
        }
    }
    fn failure(&self) -> Option<TargetFailure> {
        self.workers.failure()
    }
}

/// Resolves a two-argument target run under `mode`, foreign or built in
/// ([`resolve_builtin`]); `format` (binary16 narrows a binary32 target) and `function`
/// override what the name says where the target allows it.
pub fn resolve(
    spec: &str,
    function: Option<&str>,
    format: Option<PairFormat>,
    mode: Rounding,
) -> Result<BoxedPairTarget, InputError> {
    let narrow = format == Some(PairFormat::Binary16);
    let inner_format = if narrow { None } else { format };
    let target = if crate::foreign::is_foreign(spec) {
        resolve_foreign(spec, function, inner_format, mode)?
    } else {
        resolve_builtin(spec, mode)?
    };
    if narrow {
        return Ok(Box::new(Narrowed::new(target)?));
    }
    if let Some(f) = format.filter(|&f| f != target.format()) {
        return Err(InputError::Usage(format!(
            "target {spec} is a {} function; --format {} does not fit it",
            target.format().name(),
            f.name()
        )));
    }
    Ok(target)
}

/// Resolves a foreign two-argument target (the caller checked [`crate::foreign::is_foreign`]).
fn resolve_foreign(
    spec: &str,
    function: Option<&str>,
    format: Option<PairFormat>,
    mode: Rounding,
) -> Result<BoxedPairTarget, InputError> {
    let (source, rest) = split_source(spec)?;
    let named = |symbol: &str| -> Result<(BiFunc, PairFormat), InputError> {
        let parsed = naming::parse(symbol).map_err(|why: String| usage(spec, &why))?;
        if parsed.vector.is_some() {
            return Err(usage(
                spec,
                "vector entry points of two-argument functions are not supported",
            ));
        }
        let func = match function {
            Some(f) => BiFunc::lookup(f).ok_or_else(|| {
                usage(
                    spec,
                    &format!("--function {f}: not a two-argument function"),
                )
            })?,
            None => function_of_name(symbol).map(|(f, _)| f).ok_or_else(|| {
                usage(
                    spec,
                    &format!(
                        "`{symbol}` is not a two-argument function crunch knows: give \
                         --function NAME"
                    ),
                )
            })?,
        };
        Ok((func, format.unwrap_or_else(|| parsed.format.into())))
    };
    match source {
        "dl" => {
            let (path, symbol) = path_and_symbol(spec, source, rest)?;
            let (func, fmt) = named(symbol)?;
            load(spec, &Loadable::dl(path), symbol, func, fmt, mode)
        }
        "c" => {
            let (file, symbol) = path_and_symbol(spec, source, rest)?;
            let (func, fmt) = named(symbol)?;
            let library = Loadable::compiled(spec, file, &["-lm".into()])?;
            load(spec, &library, symbol, func, fmt, mode)
        }
        _ => resolve_library(spec, source, rest, mode),
    }
}

/// `glibc:NAME`, `musl:NAME`, `sleef[-uNN]:NAME`: the name fixes function and format.
fn resolve_library(
    spec: &str,
    family: &str,
    name: &str,
    mode: Rounding,
) -> Result<BoxedPairTarget, InputError> {
    let Some((func, fmt)) = function_of_name(name).filter(|_| !name.contains(':')) else {
        return Err(usage(
            spec,
            "expected pow, atan2 or hypot (f suffix: binary32) after the library",
        ));
    };
    match family {
        "glibc" => load(spec, &Loadable::dl(LIBM), name, func, fmt, mode),
        "musl" => {
            let t = if fmt == PairFormat::Binary32 {
                "float"
            } else {
                "double"
            };
            let library = musl_wrapper(spec, name, t, 2)?;
            load(spec, &library, &format!("tmd_musl_{name}"), func, fmt, mode)
        }
        "sleef" => {
            let symbol = format!("Sleef_{name}_{}", func.row().sleef_accuracy);
            load(spec, &Loadable::dl(LIBSLEEF), &symbol, func, fmt, mode)
        }
        f if f
            .strip_prefix("sleef-u")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) =>
        {
            let symbol = format!("Sleef_{name}_{}", &f["sleef-".len()..]);
            load(spec, &Loadable::dl(LIBSLEEF), &symbol, func, fmt, mode)
        }
        _ => Err(usage(
            spec,
            "two-argument functions come from dl:, c:, glibc:, musl:, sleef: and sleef-uNN: \
             (no vector entry points)",
        )),
    }
}

fn load(
    spec: &str,
    library: &Loadable,
    symbol: &str,
    func: BiFunc,
    format: PairFormat,
    mode: Rounding,
) -> Result<BoxedPairTarget, InputError> {
    let kind = match format {
        PairFormat::Binary32 => Kind::Pair32,
        PairFormat::Binary64 => Kind::Pair64,
        PairFormat::Binary16 => {
            return Err(usage(spec, "foreign binary16 functions are not supported: --format binary16 rounds a binary32 target's results"))
        }
    };
    let workers = Workers::start(spec, library, symbol, kind, mode)?;
    let about = About {
        rounding: mode,
        note: Some(library.note.clone().unwrap_or_else(|| library.path.clone())),
        ..About::new(spec, func, format)
    };
    Ok(Box::new(ForeignPairTarget { about, workers }))
}
