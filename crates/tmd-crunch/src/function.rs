//! The functions crunch knows how to check, each with its references.
//!
//! A reference is a pair: a fast one with a stated relative error bound `eps`, used for every
//! input, and MPFR (through tmd-core's registry), used for the inputs where the fast
//! reference's bound does not decide the result (see [`crate::analysis`]).
//!
//! * binary32 targets: the `libm` crate's binary64 function at the same (exactly converted)
//!   input. Those are FreeBSD msun / musl algorithms whose documented error analyses give less
//!   than 1 ulp of binary64; we use `eps = 2^-50` (4 ulps of binary64, 26 bits beyond binary32),
//!   `2^-48` for exp10, sinh, cosh, tanh, asinh, acosh, atanh (measured up to about 1.1 ulps
//!   of binary64, 2^-51.2 relative), and `tests/reference_bounds.rs` checks the bound against
//!   MPFR on random inputs of every function. Square root and reciprocal are IEEE operations: correctly rounded, `eps = 2^-53`.
//! * binary64 targets: xfloat's double-double functions where they exist (`eps = 2^-96`; their
//!   measured maxima are 1 to 6 ulps of 106 bits, 2^-103.4 at worst, so the margin is more
//!   than 2^7; also checked by `tests/reference_bounds.rs`), MPFR for every input otherwise.

use rug::Float;
use tmd_core::registry::{eval_rounded, Dir, Func};
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

/// A cheap first reference of a binary64 function: `(hi, lo)` with a stated relative bound.
pub type FastReference = fn(f64) -> (f64, f64);

macro_rules! ref_functions {
    ($($variant:ident $name:literal $func:expr, $libm:path, $dd:expr, $nan:expr;)*) => {
        /// A mathematical function crunch can check, with its references.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RefFunc { $($variant),* }

        /// Every function, in listing order.
        pub const REF_FUNCS: &[RefFunc] = &[$(RefFunc::$variant),*];

        impl RefFunc {
            /// Name as in tmd's function registry (`recip` is `1/x`).
            pub fn name(self) -> &'static str {
                match self { $(RefFunc::$variant => $name),* }
            }
            fn registry(self) -> Option<Func> {
                match self { $(RefFunc::$variant => $func),* }
            }
            /// The binary64 `libm` value of f at `x`.
            pub fn libm_f64(self, x: f64) -> f64 {
                match self { $(RefFunc::$variant => $libm(x)),* }
            }
            /// The double-double reference, when there is one.
            pub fn dd(self) -> Option<fn(Dd) -> Dd> {
                match self { $(RefFunc::$variant => $dd),* }
            }
            /// Whether f(x) is NaN (x outside the domain), decided exactly from x.
            pub fn outside_domain(self, x: f64) -> bool {
                let nan: fn(f64) -> bool = match self { $(RefFunc::$variant => $nan),* };
                x.is_nan() || nan(x)
            }
        }
    };
}

fn never(_: f64) -> bool {
    false
}
fn recip64(x: f64) -> f64 {
    1.0 / x
}

ref_functions! {
    // The generic exp, not Dd::exp's table-driven one: kernels/double_word_exp.cl is its
    // twin in crunch_analyse, whose results must equal these bit for bit.
    Exp "exp" Some(Func::Exp), libm::exp, Some(tmd_xfloat::math::exp::<Dd>), never;
    Expm1 "expm1" Some(Func::Expm1), libm::expm1, Some(Dd::expm1), never;
    Exp2 "exp2" Some(Func::Exp2), libm::exp2, None, never;
    Exp10 "exp10" Some(Func::Exp10), libm::exp10, None, never;
    Log "log" Some(Func::Log), libm::log, Some(Dd::ln), |x| x < 0.0;
    Log1p "log1p" Some(Func::Log1p), libm::log1p, Some(Dd::ln_1p), |x| x < -1.0;
    Log2 "log2" Some(Func::Log2), libm::log2, None, |x| x < 0.0;
    Log10 "log10" Some(Func::Log10), libm::log10, None, |x| x < 0.0;
    Sin "sin" Some(Func::Sin), libm::sin, Some(Dd::sin), never;
    Cos "cos" Some(Func::Cos), libm::cos, Some(Dd::cos), never;
    Tan "tan" Some(Func::Tan), libm::tan, Some(Dd::tan), never;
    Asin "asin" Some(Func::Asin), libm::asin, None, |x| x.abs() > 1.0;
    Acos "acos" Some(Func::Acos), libm::acos, None, |x| x.abs() > 1.0;
    Atan "atan" Some(Func::Atan), libm::atan, Some(Dd::atan), never;
    Sinh "sinh" Some(Func::Sinh), libm::sinh, Some(Dd::sinh), never;
    Cosh "cosh" Some(Func::Cosh), libm::cosh, Some(Dd::cosh), never;
    Tanh "tanh" Some(Func::Tanh), libm::tanh, Some(Dd::tanh), never;
    Asinh "asinh" Some(Func::Asinh), libm::asinh, None, never;
    Acosh "acosh" Some(Func::Acosh), libm::acosh, None, |x| x < 1.0;
    Atanh "atanh" Some(Func::Atanh), libm::atanh, None, |x| x.abs() > 1.0;
    Cbrt "cbrt" Some(Func::Cbrt), libm::cbrt, None, never;
    Sqrt "sqrt" Some(Func::Sqrt), libm::sqrt, Some(Dd::sqrt), |x| x < 0.0;
    Recip "recip" None, recip64, Some(Dd::recip), never;
}

impl RefFunc {
    /// Looks a function up by its name.
    pub fn lookup(name: &str) -> Option<RefFunc> {
        REF_FUNCS.iter().copied().find(|f| f.name() == name)
    }

    /// The cheap first reference of binary64 targets, tried before [`RefFunc::dd`]: a function
    /// giving `(hi, lo)` and its relative bound. Only `exp` has one ([`crate::fast_exp`]).
    pub fn fast_f64(self) -> Option<(FastReference, f64)> {
        match self {
            RefFunc::Exp => Some((
                crate::fast_exp::exp_fast as FastReference,
                crate::fast_exp::EPS_FAST_EXP,
            )),
            _ => None,
        }
    }

    /// Relative error bound of the binary64 value used as the binary32 reference.
    pub fn eps_f64(self) -> f64 {
        match self {
            RefFunc::Sqrt | RefFunc::Recip => EPS_IEEE_F64,
            RefFunc::Exp10
            | RefFunc::Sinh
            | RefFunc::Cosh
            | RefFunc::Tanh
            | RefFunc::Asinh
            | RefFunc::Acosh
            | RefFunc::Atanh => EPS_LIBM_F64_WIDE,
            _ => EPS_LIBM_F64,
        }
    }

    /// `f(x)` rounded to nearest at `prec` bits by MPFR, with the ternary value (0: exact).
    /// No exponent limits: the caller rounds to the target format.
    pub fn mpfr(self, x: f64, prec: u32) -> (Float, i32) {
        let xf = Float::with_val(64, x);
        match self.registry() {
            Some(func) => eval_rounded(func, &xf, prec, Dir::Nearest),
            None => {
                let (q, ord) = Float::with_val_round(prec, 1.0 / &xf, rug::float::Round::Nearest);
                (q, ord as i32)
            }
        }
    }
}
