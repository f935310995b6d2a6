//! Two-argument functions in foreign code: `dl:PATH:SYMBOL`, `c:FILE.c:SYMBOL`, and the
//! libraries `glibc:` (libm.so.6), `musl:` (a wrapper linked with musl's static libc) and
//! `sleef:` (scalar `Sleef_NAME_uNN`, the most accurate variant unless `sleef-uNN:` says
//! otherwise). The signature called is `float f(float, float)` or `double f(double, double)`,
//! as the name's format says; every batch runs under the target's rounding mode in the C
//! loops of `foreign/eval_under.c`, as univariate foreign targets do ([`crate::foreign`]).

use super::format::PairFormat;
use super::target::{function_of_name, BoxedPairTarget, PairTarget};
use super::BiFunc;
use crate::foreign::libraries::{musl_wrapper, LIBM, LIBSLEEF};
use crate::foreign::{
    mode_number, naming, path_and_symbol, split_source, tmd_eval2_f32_under, tmd_eval2_f64_under,
    usage, Loadable,
};
use crate::rounding::Rounding;
use libloading::Library;
use std::sync::Arc;
use tmd_core::InputError;

#[derive(Clone, Copy)]
enum Call {
    Binary32(unsafe extern "C" fn(f32, f32) -> f32),
    Binary64(unsafe extern "C" fn(f64, f64) -> f64),
}

/// A two-argument function of a loaded library, called under a rounding mode.
pub struct ForeignPairTarget {
    name: String,
    func: BiFunc,
    format: PairFormat,
    call: Call,
    mode: Rounding,
    note: String,
    /// Keeps the code `call` points into mapped.
    _library: Arc<Library>,
}

impl PairTarget for ForeignPairTarget {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn function(&self) -> BiFunc {
        self.func
    }
    fn format(&self) -> PairFormat {
        self.format
    }
    fn eval(&self, a: &[f64], b: &[f64], out: &mut [f64]) {
        let (mode, n) = (mode_number(self.mode), a.len().min(b.len()).min(out.len()));
        match self.call {
            Call::Binary32(f) => {
                let a32: Vec<f32> = a[..n].iter().map(|&v| v as f32).collect();
                let b32: Vec<f32> = b[..n].iter().map(|&v| v as f32).collect();
                let mut o32 = vec![0f32; n];
                // SAFETY: n elements are read and written; the symbol's signature is trusted.
                unsafe {
                    tmd_eval2_f32_under(mode, f, a32.as_ptr(), b32.as_ptr(), o32.as_mut_ptr(), n)
                };
                for (o, v) in out.iter_mut().zip(o32) {
                    *o = f64::from(v);
                }
            }
            // SAFETY: as above.
            Call::Binary64(f) => unsafe {
                tmd_eval2_f64_under(mode, f, a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), n)
            },
        }
    }
    fn rounding(&self) -> Rounding {
        self.mode
    }
    fn note(&self) -> Option<String> {
        Some(self.note.clone())
    }
}

/// Resolves a foreign two-argument target (the caller checked [`crate::foreign::is_foreign`]).
pub fn resolve(
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
    let lib = library.open(spec)?;
    let missing = |e: libloading::Error| {
        usage(
            spec,
            &format!("no symbol {symbol} in {} ({e})", library.path),
        )
    };
    // SAFETY: the symbol is taken to have the signature its name says (see the module doc).
    let call = unsafe {
        match format {
            PairFormat::Binary32 => Call::Binary32(*lib.get(symbol).map_err(missing)?),
            PairFormat::Binary64 => Call::Binary64(*lib.get(symbol).map_err(missing)?),
            PairFormat::Binary16 => {
                return Err(usage(spec, "foreign binary16 functions are not supported: --format binary16 rounds a binary32 target's results"))
            }
        }
    };
    Ok(Box::new(ForeignPairTarget {
        name: spec.to_string(),
        func,
        format,
        call,
        mode,
        note: library.note.clone().unwrap_or_else(|| library.path.clone()),
        _library: Arc::new(lib),
    }))
}
