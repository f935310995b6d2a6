//! Two-argument functions: pow, atan2 and hypot (C argument order: `pow(x, y)` is x^y,
//! `atan2(y, x)` the angle of the point (x, y), `hypot(x, y)` = sqrt(x^2 + y^2)).
//!
//! The pieces of univariate crunch are reused, not copied: the verdict on one result is
//! [`crate::analysis`]'s (its fast decision [`crate::analysis::classify_fast`] and its exact
//! one from an MPFR value, [`crate::analysis::classify_exact_of`]), the counts, histogram and
//! near-maximum inputs are a [`crate::summary::Summary`] keyed by the index of the pair, the
//! rounding modes are [`crate::Rounding`], foreign code is called as in [`crate::foreign`].
//! What is new is the function table ([`BiFunc`]), the formats including binary16
//! ([`PairFormat`]), the references ([`analysis`]), the targets ([`target`], [`foreign`]),
//! the sets of pairs ([`pairs`]) and the run ([`run`]).
//!
//! Pairs: every pair of binary16 numbers (2^32, NaN and infinities included), the pairs of a
//! list, a seeded random sample, or structured samples of pow (exact results and midpoints,
//! where pow implementations fail to round correctly). A sample is never exhaustive; its
//! report says so and what it shows.

pub mod analysis;
pub mod foreign;
pub mod format;
pub mod pairs;
pub mod run;
pub mod target;

pub use foreign::resolve;
pub use format::PairFormat;
pub use run::{run_pairs, PairReport};
pub use target::{PairClosure, PairTarget};

use rug::float::Round;
use rug::ops::Pow;
use rug::Float;

/// A two-argument function crunch can check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BiFunc {
    Pow,
    Atan2,
    Hypot,
}

/// One row of the table of two-argument functions: every fact the rest of the module asks.
pub struct BiRow {
    pub func: BiFunc,
    /// The C name (binary64); `NAMEf` is binary32.
    pub name: &'static str,
    pub summary: &'static str,
    /// Rust's std (the platform libm).
    pub std32: fn(f32, f32) -> f32,
    pub std64: fn(f64, f64) -> f64,
    /// The `libm` crate.
    pub libm32: fn(f32, f32) -> f32,
    pub libm64: fn(f64, f64) -> f64,
    /// SLEEF's most accurate scalar variant (`Sleef_NAME_uNN`).
    pub sleef_accuracy: &'static str,
}

/// The table of two-argument functions.
pub static BIVARIATE: [BiRow; 3] = [
    BiRow {
        func: BiFunc::Pow,
        name: "pow",
        summary: "x^y",
        std32: f32::powf,
        std64: f64::powf,
        libm32: libm::powf,
        libm64: libm::pow,
        sleef_accuracy: "u10",
    },
    BiRow {
        func: BiFunc::Atan2,
        name: "atan2",
        summary: "the angle of (x, y) for atan2(y, x)",
        std32: f32::atan2,
        std64: f64::atan2,
        libm32: libm::atan2f,
        libm64: libm::atan2,
        sleef_accuracy: "u10",
    },
    BiRow {
        func: BiFunc::Hypot,
        name: "hypot",
        summary: "sqrt(x^2 + y^2)",
        std32: f32::hypot,
        std64: f64::hypot,
        libm32: libm::hypotf,
        libm64: libm::hypot,
        sleef_accuracy: "u05",
    },
];

impl BiFunc {
    /// The function of a C name (`pow`, `atan2`, `hypot`; not `powf`).
    pub fn lookup(name: &str) -> Option<BiFunc> {
        BIVARIATE.iter().find(|r| r.name == name).map(|r| r.func)
    }

    /// Its row of [`BIVARIATE`].
    pub fn row(self) -> &'static BiRow {
        BIVARIATE
            .iter()
            .find(|r| r.func == self)
            .expect("every function has a row")
    }

    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// f(a, b) (C argument order) at `prec` bits rounded in `round` by MPFR, with the ternary
    /// value (0: exact). Inputs are exact; MPFR follows C99 Annex F on special values
    /// (pow(1, NaN) = pow(NaN, 0) = 1, hypot(inf, NaN) = inf). MPFR's exponent range is
    /// 2^30 binades: callers keep pow's results inside it ([`analysis`]).
    pub fn mpfr(self, a: f64, b: f64, prec: u32, round: Round) -> (Float, i32) {
        let (fa, fb) = (Float::with_val(64, a), Float::with_val(64, b));
        let (v, ord) = match self {
            BiFunc::Pow => Float::with_val_round(prec, (&fa).pow(&fb), round),
            BiFunc::Atan2 => Float::with_val_round(prec, fa.atan2_ref(&fb), round),
            BiFunc::Hypot => Float::with_val_round(prec, fa.hypot_ref(&fb), round),
        };
        (v, ord as i32)
    }

    /// f(a, b) at 256 bits rounded to nearest, the value the exact verdicts start from.
    pub fn mpfr_nearest(self, a: f64, b: f64) -> (Float, i32) {
        self.mpfr(a, b, 256, Round::Nearest)
    }
}
