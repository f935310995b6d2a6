//! The functions crunch knows how to check, each with its references.
//!
//! They are the functions of tmd-core's table ([`tmd_core::registry::FUNCTIONS`]) that have
//! crunch facts ([`tmd_core::registry::Crunch`]), plus the reciprocal 1/x, an operation outside
//! the table whose facts sit beside it ([`tmd_core::registry::RECIP_CRUNCH`]). The table says
//! which references a function has, their bounds and where it saturates; this module holds
//! only the Rust functions that compute them (the `libm` crate's and xfloat's), and its tests
//! check that the two agree.
//!
//! A reference is a pair: a fast one with a stated relative error bound `eps`, used for every
//! input, and MPFR (through tmd-core's registry), used for the inputs where the fast
//! reference's bound does not decide the result (see [`crate::analysis`]).
//!
//! * binary32 targets: the `libm` crate's binary64 function at the same (exactly converted)
//!   input. Those are FreeBSD msun / musl algorithms whose documented error analyses give less
//!   than 1 ulp of binary64; we use `eps = 2^-50` (4 ulps of binary64, 26 bits beyond binary32),
//!   `2^-48` for exp10, sinh, cosh, tanh, asinh, acosh, atanh (measured up to about 1.1 ulps
//!   of binary64, 2^-51.2 relative) and for erf and erfc (measured up to 1.4 and 3.5 units of
//!   2^-53, docs/error-analysis.md §17.5), and `tests/reference_bounds.rs` checks the bound against
//!   MPFR on random inputs of every function. Square root and reciprocal are IEEE operations:
//!   correctly rounded, `eps = 2^-53`. sin, cos and tan use xfloat's binary32-argument
//!   functions instead ([`tmd_xfloat::math::binary32_trig`]: an exact integer reduction, then
//!   binary64 series; proven within 2^-51, 2^-51 and 2^-50, docs/error-analysis.md §20), which
//!   cost a third of the `libm` crate's at large arguments.
//! * binary64 targets: xfloat's double-double functions where they exist (`eps = 2^-96`; their
//!   measured maxima are 1 to 6 ulps of 106 bits, 2^-103.4 at worst, so the margin is more
//!   than 2^7; also checked by `tests/reference_bounds.rs`), and for exp2, exp10, log2, log10,
//!   cbrt, asin, acos, asinh, acosh, atanh double-double references composed from xfloat's
//!   table-driven exp, ln and sin ([`crate::dd_composed`], proven within 2^-98,
//!   docs/error-analysis.md §12), judged with the same `eps = 2^-96`; MPFR for every input
//!   where the table names no double-double reference (erf, erfc).

use crate::dd_composed;
use rug::Float;
use tmd_core::registry::{
    eval_rounded, Binary32DeviceReference, Binary64Reference, Crunch, Dir,
    FastReference as FastKind, Func, LibmBound, FUNCTIONS, RECIP_CRUNCH, RECIP_NAME,
};
use tmd_xfloat::math::binary32_trig::Circular;
use tmd_xfloat::Dd;

/// Bound of the binary64 `libm` references, relative.
pub const EPS_LIBM_F64: f64 = 1.0 / (1u64 << 50) as f64;
/// Bound of the binary64 `libm` references whose measured error exceeds 1.5 ulps (exp10,
/// the hyperbolic functions and their inverses), relative.
pub const EPS_LIBM_F64_WIDE: f64 = 1.0 / (1u64 << 48) as f64;
/// Bound of a correctly rounded binary64 operation, relative.
pub const EPS_IEEE_F64: f64 = 1.0 / (1u64 << 53) as f64;
/// Bound of the double-double references, relative.
pub const EPS_DD: f64 = 1.0 / (1u128 << 96) as f64;

/// Bound of the double-double references of binary32 analyses on a device (the table's
/// `Crunch::binary32_device`, tmd-kernels' twins of xfloat's `Dd` functions), relative: 2^6
/// looser than [`EPS_DD`], which the binary64 analysis relies on and `tests/reference_bounds.rs`
/// checks, because binary32 gains nothing from a tighter one (its decisions need `eps <=
/// 2^-48`, `crate::analysis::fast_error_tolerance`) and the margin covers the functions whose
/// double-double accuracy is stated in ulps of 106 bits (tan, cosh: up to 4) rather than
/// proven. `tests/reference_bounds.rs` checks it at binary32 inputs.
pub const EPS_DD_BINARY32: f64 = 1.0 / (1u128 << 90) as f64;

/// A cheap first reference of a binary64 function: `(hi, lo)` with a stated relative bound.
pub type FastReference = fn(f64) -> (f64, f64);

/// A mathematical function crunch can check, with its references: a function of tmd-core's
/// table that has crunch facts, or the reciprocal. Build it with [`RefFunc::lookup`] or
/// [`RefFunc::new`]; a `Registry` function without crunch facts has no references.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefFunc {
    Registry(Func),
    /// 1/x.
    Recip,
}

/// Every function crunch can check: the table's, in its order, then the reciprocal.
pub fn ref_funcs() -> Vec<RefFunc> {
    FUNCTIONS
        .iter()
        .filter(|i| i.crunch.is_some())
        .map(|i| RefFunc::Registry(i.func))
        .chain(std::iter::once(RefFunc::Recip))
        .collect()
}

/// The functions of tmd-core's table that have no crunch facts, as a pattern: the arm of each
/// per-function match of this crate that has nothing to say of them. A test checks it against
/// the table; a function that gains crunch facts leaves it, and the compiler then names every
/// match that needs its arm.
macro_rules! outside_crunch {
    () => {
        tmd_core::registry::Func::Exp2m1
            | tmd_core::registry::Func::Exp10m1
            | tmd_core::registry::Func::Log2p1
            | tmd_core::registry::Func::Log10p1
            | tmd_core::registry::Func::Rsqrt
            | tmd_core::registry::Func::Sinpi
            | tmd_core::registry::Func::Cospi
            | tmd_core::registry::Func::Tanpi
            | tmd_core::registry::Func::Asinpi
            | tmd_core::registry::Func::Acospi
            | tmd_core::registry::Func::Atanpi
            | tmd_core::registry::Func::Gamma
            | tmd_core::registry::Func::Lgamma
            | tmd_core::registry::Func::Digamma
            | tmd_core::registry::Func::J0
            | tmd_core::registry::Func::J1
            | tmd_core::registry::Func::Y0
            | tmd_core::registry::Func::Y1
            | tmd_core::registry::Func::Ai
            | tmd_core::registry::Func::Eint
            | tmd_core::registry::Func::Li2
            | tmd_core::registry::Func::Zeta
    };
}
pub(crate) use outside_crunch;

/// Where a double-double reference comes from, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DdOrigin {
    /// A `Dd` method or xfloat's generic function.
    Xfloat,
    /// [`crate::dd_composed`].
    Composed,
}

/// A double-double reference function and where it comes from.
type DdReference = (fn(Dd) -> Dd, DdOrigin);

/// The Rust functions that compute a table function's references: the columns of crunch's
/// per-function facts that are code, beside the table's [`Crunch`] that says which exist.
struct References {
    /// The binary64 `libm` function (the reference of binary32 targets).
    libm: fn(f64) -> f64,
    /// The double-double function, where the table's binary64 reference is not MPFR alone.
    dd: Option<DdReference>,
    /// xfloat's binary32-argument function, which replaces `libm` for binary32 inputs.
    circular: Option<Circular>,
}

/// The references of a table function; `None` for the functions without crunch facts.
fn references(func: Func) -> Option<References> {
    use DdOrigin::{Composed, Xfloat};
    use Func::*;
    let plain = |libm, dd| References {
        libm,
        dd,
        circular: None,
    };
    let circular = |libm, dd, circular| References {
        circular: Some(circular),
        ..plain(libm, Some((dd, Xfloat)))
    };
    Some(match func {
        // The generic exp, not Dd::exp's table-driven one: kernels/double_word_exp.cl is its
        // twin in crunch_analyse, whose results must equal these bit for bit.
        Exp => plain(libm::exp, Some((tmd_xfloat::math::exp::<Dd>, Xfloat))),
        Expm1 => plain(libm::expm1, Some((Dd::expm1, Xfloat))),
        Exp2 => plain(libm::exp2, Some((dd_composed::exp2, Composed))),
        Exp10 => plain(libm::exp10, Some((dd_composed::exp10, Composed))),
        Log => plain(libm::log, Some((Dd::ln, Xfloat))),
        Log1p => plain(libm::log1p, Some((Dd::ln_1p, Xfloat))),
        Log2 => plain(libm::log2, Some((dd_composed::log2, Composed))),
        Log10 => plain(libm::log10, Some((dd_composed::log10, Composed))),
        Sqrt => plain(libm::sqrt, Some((Dd::sqrt, Xfloat))),
        Cbrt => plain(libm::cbrt, Some((dd_composed::cbrt, Composed))),
        Sin => circular(libm::sin, Dd::sin, Circular::Sin),
        Cos => circular(libm::cos, Dd::cos, Circular::Cos),
        Tan => circular(libm::tan, Dd::tan, Circular::Tan),
        Asin => plain(libm::asin, Some((dd_composed::asin, Composed))),
        Acos => plain(libm::acos, Some((dd_composed::acos, Composed))),
        Atan => plain(libm::atan, Some((Dd::atan, Xfloat))),
        Sinh => plain(libm::sinh, Some((Dd::sinh, Xfloat))),
        Cosh => plain(libm::cosh, Some((Dd::cosh, Xfloat))),
        Tanh => plain(libm::tanh, Some((Dd::tanh, Xfloat))),
        Asinh => plain(libm::asinh, Some((dd_composed::asinh, Composed))),
        Acosh => plain(libm::acosh, Some((dd_composed::acosh, Composed))),
        Atanh => plain(libm::atanh, Some((dd_composed::atanh, Composed))),
        // MPFR is their binary64 reference: xfloat has no double-double erf.
        Erf => plain(libm::erf, None),
        Erfc => plain(libm::erfc, None),
        outside_crunch!() => return None,
    })
}

/// The binary64 `libm` function of a table function with crunch facts.
pub(crate) fn libm_of(func: Func) -> Option<fn(f64) -> f64> {
    references(func).map(|r| r.libm)
}

/// The double-double function of a crunch function, where xfloat has one.
fn dd_of(func: RefFunc) -> Option<DdReference> {
    match func {
        RefFunc::Registry(f) => references(f)?.dd,
        RefFunc::Recip => Some((Dd::recip, DdOrigin::Xfloat)),
    }
}

/// The binary32-argument function at the binary32 input `x.hi()`, as the device kernel
/// (kernels/binary32_trig.cl) returns it: a zero low word, NaN where the reduction refuses.
fn circular_twin(f: Circular, x: Dd) -> Dd {
    Dd::from(f.eval(x.hi() as f32).unwrap_or(f64::NAN))
}

fn recip64(x: f64) -> f64 {
    1.0 / x
}

impl RefFunc {
    /// A table function as a crunch function, when it has crunch facts.
    pub fn new(func: Func) -> Option<RefFunc> {
        func.crunch().map(|_| RefFunc::Registry(func))
    }

    /// Looks a function up by its name (the table's name, not an alias; `recip` is `1/x`).
    pub fn lookup(name: &str) -> Option<RefFunc> {
        if name == RECIP_NAME {
            return Some(RefFunc::Recip);
        }
        FUNCTIONS
            .iter()
            .find(|i| i.name == name)
            .and_then(|i| RefFunc::new(i.func))
    }

    /// Name as in tmd's function registry (`recip` is `1/x`).
    pub fn name(self) -> &'static str {
        match self {
            RefFunc::Registry(f) => f.name(),
            RefFunc::Recip => RECIP_NAME,
        }
    }

    /// The table function, `None` for the reciprocal.
    pub fn registry(self) -> Option<Func> {
        match self {
            RefFunc::Registry(f) => Some(f),
            RefFunc::Recip => None,
        }
    }

    /// The table's crunch facts of f.
    pub fn facts(self) -> &'static Crunch {
        match self {
            RefFunc::Registry(f) => f.crunch().expect("a crunch function has crunch facts"),
            RefFunc::Recip => &RECIP_CRUNCH,
        }
    }

    /// The binary64 `libm` value of f at `x`.
    pub fn libm_f64(self, x: f64) -> f64 {
        let f = match self {
            RefFunc::Registry(f) => libm_of(f).expect("a crunch function has a libm reference"),
            RefFunc::Recip => recip64,
        };
        f(x)
    }

    /// The double-double reference, when the table gives f one.
    pub fn dd(self) -> Option<fn(Dd) -> Dd> {
        match self.facts().binary64 {
            Binary64Reference::Mpfr => None,
            Binary64Reference::DoubleDouble | Binary64Reference::FastThenDoubleDouble(_) => Some(
                dd_of(self)
                    .expect("the table's double-double references exist")
                    .0,
            ),
        }
    }

    /// Where the double-double reference comes from, for reports: `xfloat` (a `Dd` method or
    /// xfloat's generic function) or `composed` ([`crate::dd_composed`]).
    pub fn dd_origin(self) -> &'static str {
        match dd_of(self).map(|(_, origin)| origin) {
            Some(DdOrigin::Composed) => "composed",
            Some(DdOrigin::Xfloat) | None => "xfloat",
        }
    }

    /// The CPU twin (same operations, same bits) of the device's binary32 reference
    /// (the table's `Crunch::binary32_device`), for checking its bound: the table-driven exp,
    /// the binary32-argument sin, cos and tan, the double-double reference of binary64
    /// otherwise.
    pub fn binary32_device_twin(self) -> Option<fn(Dd) -> Dd> {
        use Binary32DeviceReference::*;
        let double_double = || {
            dd_of(self)
                .expect("a binary32 device reference has a double-double twin")
                .0
        };
        Some(match self.facts().binary32_device? {
            TableExp => Dd::exp,
            Sin => |x| circular_twin(Circular::Sin, x),
            Cos => |x| circular_twin(Circular::Cos, x),
            Tan => |x| circular_twin(Circular::Tan, x),
            Expm1 | TableLog | Log1p | Sqrt | Recip | Atan | Sinh | Cosh | Tanh => double_double(),
        })
    }

    /// The relative bound of the device's binary32 reference: [`EPS_DD_BINARY32`] for the
    /// double-double kernels, the binary32-argument functions' own bound for sin, cos and tan.
    pub fn binary32_device_eps(self) -> f64 {
        match self.facts().binary32_device {
            Some(device) if device.binary32_trig() => self.binary32_reference(1.0).1,
            _ => EPS_DD_BINARY32,
        }
    }

    /// Whether f(x) is NaN (x outside the domain), decided exactly from x: below or above the
    /// closed hull of the table's domain (the poles at its ends are not NaN).
    pub fn outside_domain(self, x: f64) -> bool {
        let (lo, hi) = match self {
            RefFunc::Registry(f) => f.domain().hull(),
            RefFunc::Recip => (None, None),
        };
        x.is_nan() || lo.is_some_and(|lo| x < lo) || hi.is_some_and(|hi| x > hi)
    }

    /// The cheap first reference of binary64 targets, tried before [`RefFunc::dd`]: a function
    /// giving `(hi, lo)` and its relative bound. Only `exp` has one ([`crate::fast_exp`]).
    pub fn fast_f64(self) -> Option<(FastReference, f64)> {
        match self.facts().binary64 {
            Binary64Reference::FastThenDoubleDouble(fast) => Some(match fast {
                FastKind::Exp => (
                    crate::fast_exp::exp_fast as FastReference,
                    crate::fast_exp::EPS_FAST_EXP,
                ),
            }),
            Binary64Reference::DoubleDouble | Binary64Reference::Mpfr => None,
        }
    }

    /// The reference anchored at 1 or at x next to 0 ([`crate::anchored`]): `(hi, lo, eps)`
    /// where it exists at `x` and its bound is at most `eps_max`, the bound of the reference it
    /// replaces.
    pub fn anchored(self, x: f64, eps_max: f64) -> Option<(f64, f64, f64)> {
        let func = self.registry()?;
        crate::anchored::anchored(func, x).filter(|&(_, _, eps)| eps <= eps_max)
    }

    /// The binary64 value used as the reference of a binary32 input `x`, with its relative
    /// bound: for sin, cos and tan xfloat's binary32-argument functions (an exact integer
    /// reduction, docs/error-analysis.md §20; three to four times faster than the `libm`
    /// crate's at large arguments), the `libm` value ([`RefFunc::libm_f64`],
    /// [`RefFunc::eps_f64`]) otherwise and where those refuse `x`.
    pub fn binary32_reference(self, x: f64) -> (f64, f64) {
        self.circular()
            .and_then(|f| f.eval(x as f32).map(|v| (v, f.eps())))
            .unwrap_or_else(|| (self.libm_f64(x), self.eps_f64()))
    }

    /// The binary32-argument function of sin, cos and tan (`None` for the others).
    fn circular(self) -> Option<Circular> {
        references(self.registry()?)?.circular
    }

    /// [`RefFunc::binary32_reference`] at every input of `xs`, into `out`: sin, cos and tan in
    /// batches ([`tmd_xfloat::math::binary32_trig::eval_many`], the same values, computed in
    /// passes the processor overlaps).
    pub fn binary32_references(self, xs: &[f32], out: &mut Vec<(f64, f64)>) {
        out.clear();
        let Some(circular) = self.circular() else {
            out.extend(xs.iter().map(|&x| self.binary32_reference(x as f64)));
            return;
        };
        let mut values = vec![0f64; xs.len()];
        tmd_xfloat::math::binary32_trig::eval_many(circular, xs, &mut values);
        out.extend(xs.iter().zip(values).map(|(&x, v)| {
            if v.is_nan() {
                self.binary32_reference(x as f64)
            } else {
                (v, circular.eps())
            }
        }));
    }

    /// The name of the binary32 reference, for reports.
    pub fn binary32_reference_name(self) -> String {
        match self.circular() {
            Some(_) => format!(
                "binary64 {} after an exact reduction (relative bound 2^{})",
                self.name(),
                self.binary32_reference(1.0).1.log2()
            ),
            _ => format!(
                "binary64 libm {} (relative bound 2^{})",
                self.name(),
                self.eps_f64().log2()
            ),
        }
    }

    /// Relative error bound of the binary64 `libm` value used as the binary32 reference.
    pub fn eps_f64(self) -> f64 {
        match self.facts().binary32_bound {
            LibmBound::Ieee => EPS_IEEE_F64,
            LibmBound::LibmWide => EPS_LIBM_F64_WIDE,
            LibmBound::Libm => EPS_LIBM_F64,
        }
    }

    /// `f(x)` rounded to nearest at `prec` bits by MPFR, with the ternary value (0: exact).
    /// No exponent limits: the caller rounds to the target format.
    pub fn mpfr(self, x: f64, prec: u32) -> (Float, i32) {
        self.mpfr_rounded(&Float::with_val(64, x), prec, Dir::Nearest)
    }

    /// `f(x)` rounded to `prec` bits in `dir` by MPFR, with the ternary value, for an input of
    /// any precision (binary80 and binary128 ones included).
    pub fn mpfr_rounded(self, x: &Float, prec: u32, dir: Dir) -> (Float, i32) {
        match self.registry() {
            Some(func) => eval_rounded(func, x, prec, dir),
            None => {
                let (q, ord) = Float::with_val_round(prec, 1.0 / x, round_of(dir));
                (q, ord as i32)
            }
        }
    }
}

/// MPFR's rounding for a direction of tmd-core's evaluations.
pub fn round_of(dir: Dir) -> rug::float::Round {
    match dir {
        Dir::Down => rug::float::Round::Down,
        Dir::Up => rug::float::Round::Up,
        Dir::Nearest => rug::float::Round::Nearest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crunch_functions_are_the_ones_checked_before() {
        let names: Vec<&str> = ref_funcs().iter().map(|f| f.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        let mut before = vec![
            "exp", "expm1", "exp2", "exp10", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
            "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt",
            "sqrt", "erf", "erfc", "recip",
        ];
        before.sort_unstable();
        assert_eq!(sorted, before);
        for f in ref_funcs() {
            assert_eq!(RefFunc::lookup(f.name()), Some(f));
        }
        assert_eq!(RefFunc::lookup("ln"), None);
        assert_eq!(RefFunc::lookup("gamma"), None);
    }

    #[test]
    fn every_reference_the_table_names_exists() {
        for f in ref_funcs() {
            if let RefFunc::Registry(func) = f {
                assert!(libm_of(func).is_some(), "{}", f.name());
            }
            let dd = f.facts().binary64 != Binary64Reference::Mpfr;
            assert_eq!(dd_of(f).is_some(), dd, "{}", f.name());
            assert_eq!(f.fast_f64().is_some(), f.name() == "exp");
        }
        for info in FUNCTIONS.iter().filter(|i| i.crunch.is_none()) {
            assert_eq!(RefFunc::new(info.func), None);
        }
    }

    #[test]
    fn outside_crunch_is_the_table_without_crunch_facts() {
        for info in FUNCTIONS {
            let outside = matches!(info.func, outside_crunch!());
            assert_eq!(outside, info.crunch.is_none(), "{}", info.name);
            assert_eq!(references(info.func).is_none(), outside, "{}", info.name);
        }
    }

    #[test]
    fn the_composed_references_are_dd_composed_ones() {
        for f in ref_funcs() {
            let composed = dd_of(f).is_some_and(|(_, origin)| origin == DdOrigin::Composed);
            let listed = f
                .registry()
                .is_some_and(|f| dd_composed::COMPOSED.contains(&f));
            assert_eq!(composed, listed, "{}", f.name());
        }
    }

    #[test]
    fn outside_domain_is_the_nan_region() {
        // The predicates crunch used before the table gave them: f(x) is NaN exactly there.
        let before = |name: &str, x: f64| match name {
            "log" | "log2" | "log10" | "sqrt" => x < 0.0,
            "log1p" => x < -1.0,
            "asin" | "acos" | "atanh" => x.abs() > 1.0,
            "acosh" => x < 1.0,
            _ => false,
        };
        let points = [
            f64::NEG_INFINITY,
            -2.0,
            -1.0 - f64::EPSILON,
            -1.0,
            -0.5,
            -0.0,
            0.0,
            0.5,
            1.0,
            1.0 + f64::EPSILON,
            2.0,
            f64::INFINITY,
        ];
        for f in ref_funcs() {
            for x in points {
                assert_eq!(
                    f.outside_domain(x),
                    before(f.name(), x),
                    "{}({x})",
                    f.name()
                );
            }
            assert!(f.outside_domain(f64::NAN));
        }
    }

    #[test]
    fn bounds_are_the_stated_ones() {
        let wide = [
            "exp10", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc",
        ];
        for f in ref_funcs() {
            let want = if matches!(f.name(), "sqrt" | "recip") {
                EPS_IEEE_F64
            } else if wide.contains(&f.name()) {
                EPS_LIBM_F64_WIDE
            } else {
                EPS_LIBM_F64
            };
            assert_eq!(f.eps_f64(), want, "{}", f.name());
        }
    }
}
