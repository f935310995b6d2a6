//! tmd-core: what every part of tmd needs to talk about hard-to-round cases exactly.
//!
//! - [`format`]: binary formats (binary16, bfloat16, binary32, binary64, pN) and their
//!   numbers, enumerated by ordinal so that a range of inputs is a range of integers.
//! - [`number`]: exact parsing of hex floats and decimals, and rounding to a format.
//! - [`registry`]: the one table of functions that every crate keys off: per function its
//!   names, domain, shape, MPFR call, Taylor model and crunch facts (references, saturation,
//!   device reference and device math-library names); MPFR evaluation with exactness
//!   detection, plus function-specific exact-value rules.
//! - [`expr`] and [`interval`]: user expressions in x over the registry, evaluated in rigorous
//!   interval arithmetic on MPFR.
//! - [`clock`]: the UTC date in the headers of outputs.
//! - [`run_lock`]: one run per journal or checkpoint (an advisory lock naming its holder).
//! - [`line_check`]: the CRC-32 every line of a journal or checkpoint carries.
//! - [`hardness`]: the Ziv loop that places f(x) among the breakpoints of a format and reports
//!   `exact`, the hardness (`bits`, `k`, kind) and the four correct roundings, or `unresolved`
//!   at its precision cap.
//!
//! Design choices. Everything that decides a result is rigorous: numbers are parsed exactly,
//! MPFR's correct rounding and ternary value are the only source of enclosures, and a result
//! is never guessed — an input the loop cannot settle is reported as such. Speed matters less
//! here than obviousness: this crate is the oracle the fast searches are tested against. Errors
//! are typed ([`InputError`]); the CLI maps them to exit code 2.

pub mod clock;
pub mod error;
pub mod expr;
pub mod format;
pub mod hardness;
pub mod interval;
pub mod line_check;
pub mod number;
pub mod out_file;
pub mod registry;
pub mod run_lock;
pub mod safe_fs;
pub mod taylor;

pub use error::InputError;
pub use expr::Expr;
pub use format::{Format, FormatNumber};
pub use hardness::{decide, hardness, Breakpoints, Decision, Kind, Outcome, Rounded, Skip};
pub use registry::{Func, FUNCTIONS};
