//! binary80 and binary128 functions of shared libraries and C sources.
//!
//! * C naming: `expl` takes and returns `long double` (binary80 on x86, binary128 where long
//!   double is that format, as on AArch64 Linux); `expf128` (glibc's `_Float128` functions)
//!   and `expq` (libquadmath's) binary128. CORE-MATH's `cr_` prefix is dropped, and a stem
//!   crunch does not know is looked up by its part after the last `_`, as for binary32 and
//!   binary64 names.
//! * `glibc:NAME` loads from glibc's libm, `quadmath:NAME` from GCC's libquadmath
//!   (`libquadmath.so.0`, package libquadmath0), `dl:PATH:SYMBOL` and `c:FILE.c:SYMBOL` as
//!   for the narrower formats (a C source for binary128 is linked with `-lquadmath` too).

use super::encoding::{Slot, WideFormat};
use crate::foreign::naming::function_of_stem;
use crate::foreign::worker::{bytes_of, bytes_of_mut, place_in_batch, Kind, Workers};
use crate::foreign::{
    libraries::{LIBM, LIBQUADMATH},
    long_double, path_and_symbol, split_source, usage, Loadable,
};
use crate::function::RefFunc;
use crate::implementation::{About, Implementation, Wide, WideBatch};
use crate::rounding::Rounding;
use crate::target::TargetFailure;
use tmd_core::InputError;

/// The stem and format a wide symbol's name gives (`expl`, `expf128`, `expq`), `None` for
/// a name of the narrower formats.
pub fn wide_name(symbol: &str) -> Option<(String, Option<WideFormat>)> {
    let name = symbol.strip_prefix("cr_").unwrap_or(symbol);
    let known = |stem: &str| !stem.is_empty() && function_of_stem(stem).is_some();
    if RefFunc::lookup(name).is_some() {
        return None;
    }
    if let Some(stem) = name.strip_suffix("f128").filter(|s| known(s)) {
        return Some((stem.to_string(), Some(WideFormat::Binary128)));
    }
    if let Some(stem) = name.strip_suffix('q').filter(|s| known(s)) {
        return Some((stem.to_string(), Some(WideFormat::Binary128)));
    }
    let stem = name.strip_suffix('l').filter(|s| known(s))?;
    Some((stem.to_string(), long_double()))
}

/// Whether `spec` (with the `--format` flag) names a binary80 or binary128 target, and which.
/// `Err` for a `long double` function where long double is not a wide format.
pub fn format_of(spec: &str, format_flag: Option<&str>) -> Result<Option<WideFormat>, InputError> {
    if let Some(flag) = format_flag {
        return Ok(WideFormat::parse(flag));
    }
    let Some((source, rest)) = spec.split_once(':') else {
        return Ok(None);
    };
    if source == "quadmath" {
        return Ok(Some(WideFormat::Binary128));
    }
    if !matches!(source, "dl" | "c" | "glibc") {
        return Ok(None);
    }
    let symbol = rest.rsplit(':').next().unwrap_or(rest);
    match wide_name(symbol) {
        None => Ok(None),
        Some((_, Some(format))) => Ok(Some(format)),
        Some((_, None)) => Err(usage(
            spec,
            &format!("{symbol} takes long double, which is not binary80 or binary128 here"),
        )),
    }
}

/// A binary80 or binary128 function of a shared library, called under a rounding mode in
/// worker processes ([`crate::foreign::worker`]).
pub struct WideTarget {
    about: About<Wide>,
    workers: Workers,
}

impl WideTarget {
    /// Resolves `spec` as a function of `format` that runs under `mode`; `function` is
    /// `--function`.
    pub fn resolve(
        spec: &str,
        function: Option<&str>,
        format: WideFormat,
        mode: Rounding,
    ) -> Result<WideTarget, InputError> {
        let (source, rest) = split_source(spec)?;
        let (library, symbol) = match source {
            "glibc" => (Loadable::dl(LIBM), rest),
            "quadmath" => (Loadable::dl(LIBQUADMATH), rest),
            "dl" => {
                let (path, symbol) = path_and_symbol(spec, source, rest)?;
                (Loadable::dl(path), symbol)
            }
            "c" => {
                let (file, symbol) = path_and_symbol(spec, source, rest)?;
                let link = ["-lm".to_string(), "-lquadmath".to_string()];
                (Loadable::compiled(spec, file, &link)?, symbol)
            }
            other => {
                return Err(usage(
                    spec,
                    &format!(
                        "binary80 and binary128 targets are glibc:, quadmath:, dl: and c:, not {other}:"
                    ),
                ))
            }
        };
        let func = decide_function(spec, symbol, format, function)?;
        supported(spec, format)?;
        let kind = match format {
            WideFormat::Binary80 => Kind::Binary80,
            WideFormat::Binary128 => Kind::Binary128,
        };
        let workers = Workers::start(spec, &library, symbol, kind, mode)?;
        let about = About {
            rounding: mode,
            note: Some(library.note.clone().unwrap_or(library.path.clone())),
            ..About::new(spec, func, format)
        };
        Ok(WideTarget { about, workers })
    }
}

impl Implementation<Wide> for WideTarget {
    fn about(&self) -> &About<Wide> {
        &self.about
    }
    /// The results at `xs` (encodings), computed under the target's mode; NaN encodings once
    /// the target has failed ([`Implementation::failure`]).
    fn eval(&self, batch: WideBatch<'_>) {
        let WideBatch { xs, out } = batch;
        let n = xs.len().min(out.len());
        // No order of its own here: the first death seen is kept.
        let (input, results) = (&xs[..n], &mut out[..n]);
        let at = |i| {
            let hex = |x: &Slot| self.about.format.decode(x).to_hex();
            (place_in_batch(&[input], hex, i), 0.0)
        };
        if !self
            .workers
            .eval_or_fail(bytes_of(input), n, bytes_of_mut(results), at)
        {
            // A quiet NaN of the format.
            let nan: u128 = match self.about.format {
                WideFormat::Binary80 => (0x7fff << 64) | (3 << 62),
                WideFormat::Binary128 => (0x7fff << 112) | (1 << 111),
            };
            out[..n].fill(nan.to_le_bytes());
        }
    }

    fn failure(&self) -> Option<TargetFailure> {
        self.workers.failure()
    }
}

/// Refuses a format this platform's C compiler has no type for.
fn supported(spec: &str, format: WideFormat) -> Result<(), InputError> {
    let ok = match format {
        WideFormat::Binary80 => long_double() == Some(WideFormat::Binary80),
        WideFormat::Binary128 => cfg!(any(target_arch = "x86_64", target_arch = "aarch64")),
    };
    if ok {
        Ok(())
    } else {
        Err(usage(
            spec,
            &format!("this platform's C has no {} type", format.name()),
        ))
    }
}

/// The function `symbol` computes: `--function`, else its name's stem; its name's format must
/// be the one asked for.
fn decide_function(
    spec: &str,
    symbol: &str,
    format: WideFormat,
    function: Option<&str>,
) -> Result<RefFunc, InputError> {
    let named = wide_name(symbol);
    if let Some((_, Some(own))) = &named {
        if *own != format {
            return Err(usage(
                spec,
                &format!(
                    "{symbol} is a {} function; --format {} does not fit it",
                    own.name(),
                    format.name()
                ),
            ));
        }
    }
    if let Some(f) = function {
        return RefFunc::lookup(f)
            .ok_or_else(|| usage(spec, &format!("--function {f}: crunch does not know it")));
    }
    let stem = named.map_or(symbol.to_string(), |(stem, _)| stem);
    function_of_stem(stem.strip_prefix("cr_").unwrap_or(&stem))
        .ok_or_else(|| usage(spec, &crate::foreign::unknown_function(&stem)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_the_wide_format_and_the_function() {
        let ld = long_double();
        assert_eq!(wide_name("expl"), Some(("exp".into(), ld)));
        assert_eq!(wide_name("cr_log2l"), Some(("log2".into(), ld)));
        assert_eq!(
            wide_name("expf128"),
            Some(("exp".into(), Some(WideFormat::Binary128)))
        );
        assert_eq!(
            wide_name("my_sinq"),
            Some(("my_sin".into(), Some(WideFormat::Binary128)))
        );
        // Names of the narrower formats, and names that are functions themselves.
        assert_eq!(wide_name("expf"), None);
        assert_eq!(wide_name("exp"), None);
        assert_eq!(wide_name("log1p"), None);
        assert_eq!(wide_name("frobl"), None);
    }
}
