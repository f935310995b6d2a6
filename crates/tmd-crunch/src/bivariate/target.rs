//! Two-argument targets: the implementations crunched.
//!
//! * `std:NAME`, `libm:NAME` — Rust's std (the platform libm: `std:powf` is `f32::powf`) and
//!   the `libm` crate, for the names of [`super::BIVARIATE`] (`f` suffix: binary32).
//! * the foreign targets of [`super::foreign`] (`dl:`, `c:`, `glibc:`, `musl:`, `sleef:`).
//! * binary16: a binary32 target with `format = binary16` ([`Narrowed`]): its binary32 result
//!   at the binary16 inputs rounded to binary16 in the target's mode, the way a half-precision
//!   library built on binary32 code computes.
//!
//! Library users wrap a closure with [`PairClosure`].

use super::format::PairFormat;
use super::{BiFunc, BIVARIATE};
use crate::foreign::naming;
use crate::implementation::{About, Binary, Implementation, PairBatch};
use crate::rounding::Rounding;
use tmd_core::InputError;

/// An implementation of a two-argument function: the [`Implementation`] of that arity, by
/// another name. Inputs and results travel as the f64 of the format's numbers.
pub trait PairTarget: Implementation<Binary> {}

impl<T: Implementation<Binary> + ?Sized> PairTarget for T {}

/// A boxed two-argument target.
pub type BoxedPairTarget = Box<dyn PairTarget>;

/// A target from a closure on f64 values of the format (its results must be numbers of the
/// format: a binary16 closure rounds its own results).
pub struct PairClosure<F> {
    about: About<Binary>,
    f: F,
}

impl<F: Fn(f64, f64) -> f64 + Send + Sync> PairClosure<F> {
    pub fn new(name: &str, func: BiFunc, format: PairFormat, f: F) -> Self {
        PairClosure {
            about: About::new(name, func, format),
            f,
        }
    }

    /// Declares the mode its results are meant for.
    pub fn with_rounding(mut self, mode: Rounding) -> Self {
        self.about.rounding = mode;
        self
    }
}

impl<F: Fn(f64, f64) -> f64 + Send + Sync> Implementation<Binary> for PairClosure<F> {
    fn about(&self) -> &About<Binary> {
        &self.about
    }
    fn eval(&self, batch: PairBatch<'_>) {
        for ((o, &x), &y) in batch.out.iter_mut().zip(batch.a).zip(batch.b) {
            *o = (self.f)(x, y);
        }
    }
}

/// A binary32 target run on binary16 inputs, its results rounded to binary16 in its mode.
pub struct Narrowed {
    about: About<Binary>,
    inner: BoxedPairTarget,
}

impl Narrowed {
    /// Narrows a binary32 target; `Err` names the format of another one.
    pub fn new(inner: BoxedPairTarget) -> Result<Narrowed, InputError> {
        if inner.format() != PairFormat::Binary32 {
            return Err(InputError::Usage(format!(
                "target {} is a {} function: binary16 runs take a binary32 target and round its \
                 results",
                inner.name(),
                inner.format().name()
            )));
        }
        let how = format!(
            "binary32 results rounded to binary16 ({})",
            inner.rounding()
        );
        let about = About {
            format: PairFormat::Binary16,
            note: Some(match inner.note() {
                Some(n) => format!("{how}; {n}"),
                None => how,
            }),
            ..inner.about().clone()
        };
        Ok(Narrowed { about, inner })
    }
}

impl Implementation<Binary> for Narrowed {
    fn about(&self) -> &About<Binary> {
        &self.about
    }
    fn eval(&self, batch: PairBatch<'_>) {
        let PairBatch { a, b, out } = batch;
        self.inner.eval(PairBatch {
            a,
            b,
            out: &mut *out,
        });
        let mode = self.inner.rounding();
        for o in out.iter_mut() {
            *o = PairFormat::Binary16.round(*o, mode);
        }
    }
    fn failure(&self) -> Option<crate::target::TargetFailure> {
        self.inner.failure()
    }
}

/// The two-argument function a symbol or target name computes (`powf`, `cr_atan2`,
/// `Sleef_hypotf_u05`, `my_pow`), with the format its name says.
pub fn function_of_name(name: &str) -> Option<(BiFunc, PairFormat)> {
    let parsed = naming::parse(name).ok()?;
    if parsed.vector.is_some() {
        return None;
    }
    let func = BiFunc::lookup(&parsed.stem).or_else(|| {
        let (_, last) = parsed.stem.rsplit_once('_')?;
        BiFunc::lookup(last)
    })?;
    Some((func, parsed.format.into()))
}

/// Whether `spec` (with `--function`, when given) names a two-argument target.
pub fn is_bivariate(spec: &str, function: Option<&str>) -> bool {
    if let Some(f) = function {
        return BiFunc::lookup(f).is_some();
    }
    let name = spec.rsplit(':').next().unwrap_or(spec);
    spec.contains(':') && function_of_name(name).is_some()
}

/// A target of `std:` or `libm:` (Rust code, so round-to-nearest only).
pub(crate) fn resolve_builtin(spec: &str, mode: Rounding) -> Result<BoxedPairTarget, InputError> {
    let unknown = |why: &str| {
        InputError::Function(format!(
            "unknown crunch target `{spec}`: {why} (see `tmd crunch --list`)"
        ))
    };
    let (source, name) = spec
        .split_once(':')
        .ok_or_else(|| unknown("expected SOURCE:NAME"))?;
    if !matches!(source, "std" | "libm") {
        return Err(unknown(
            "two-argument functions come from std, libm, dl, c, glibc, musl and sleef",
        ));
    }
    let (func, format) = match naming::c_name(name) {
        n if BiFunc::lookup(&n.stem).is_some() => (
            BiFunc::lookup(&n.stem).expect("just looked up"),
            PairFormat::from(n.format),
        ),
        _ => return Err(unknown("not a function crunch knows")),
    };
    if mode != Rounding::Nearest {
        return Err(crate::target::runs_only_to_nearest(spec, mode, "Rust code"));
    }
    let row = func.row();
    let target: BoxedPairTarget = match (source, format) {
        ("std", PairFormat::Binary32) => Box::new(binary32(spec, func, row.std32)),
        ("libm", PairFormat::Binary32) => Box::new(binary32(spec, func, row.libm32)),
        ("std", _) => Box::new(PairClosure::new(spec, func, format, row.std64)),
        _ => Box::new(PairClosure::new(spec, func, format, row.libm64)),
    };
    Ok(target)
}

/// A binary32 function as a target on f64 values.
fn binary32(
    spec: &str,
    func: BiFunc,
    f: fn(f32, f32) -> f32,
) -> PairClosure<impl Fn(f64, f64) -> f64 + Send + Sync> {
    PairClosure::new(spec, func, PairFormat::Binary32, move |a, b| {
        f64::from(f(a as f32, b as f32))
    })
}

/// Every built-in two-argument target name with its format, for `tmd crunch --list`.
pub fn list() -> Vec<(String, PairFormat)> {
    let mut out = Vec::new();
    for row in &BIVARIATE {
        for source in ["std", "libm"] {
            out.push((format!("{source}:{}f", row.name), PairFormat::Binary32));
            out.push((format!("{source}:{}", row.name), PairFormat::Binary64));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bivariate::resolve;

    #[test]
    fn names_say_the_two_argument_function_and_its_format() {
        let cases = [
            ("powf", Some((BiFunc::Pow, PairFormat::Binary32))),
            ("cr_atan2", Some((BiFunc::Atan2, PairFormat::Binary64))),
            (
                "Sleef_hypotf_u05",
                Some((BiFunc::Hypot, PairFormat::Binary32)),
            ),
            ("my_powf", Some((BiFunc::Pow, PairFormat::Binary32))),
            ("expf", None),
            ("mypow", None),
            ("_ZGVdN8vv_powf", None),
        ];
        for (name, want) in cases {
            assert_eq!(function_of_name(name), want, "{name}");
        }
        assert!(is_bivariate("glibc:atan2f", None));
        assert!(is_bivariate("dl:./lib.so:mypow", Some("pow")));
        assert!(!is_bivariate("dl:./lib.so:my_pow", Some("exp")));
        assert!(!is_bivariate("std:expf", None));
        assert!(!is_bivariate("powf", None));
    }

    #[test]
    fn rust_targets_run_only_to_nearest_and_binary16_needs_binary32() {
        assert!(resolve("std:powf", None, None, Rounding::Up).is_err());
        let t = resolve(
            "libm:hypotf",
            None,
            Some(PairFormat::Binary16),
            Rounding::Nearest,
        )
        .unwrap();
        assert_eq!(t.format(), PairFormat::Binary16);
        let mut out = [0.0];
        t.eval(PairBatch {
            a: &[3.0],
            b: &[4.0],
            out: &mut out,
        });
        assert_eq!(out[0], 5.0);
        assert!(resolve(
            "std:pow",
            None,
            Some(PairFormat::Binary16),
            Rounding::Nearest
        )
        .is_err());
        assert!(resolve(
            "std:pow",
            None,
            Some(PairFormat::Binary32),
            Rounding::Nearest
        )
        .is_err());
        assert!(resolve("xfloat:pow", None, None, Rounding::Nearest).is_err());
    }
}
