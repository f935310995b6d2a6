//! binary80 and binary128 implementations on input lists.
//!
//! CORE-MATH ships binary80 functions (expl, exp2l, log2l, cbrtl, powl) and binary128 ones,
//! glibc has `long double` and `_Float128` functions, GCC's libquadmath the `__float128` ones;
//! their authors check them on lists of hard cases (`tmd search --format binary80` or
//! `binary128` finds them). No format this wide can be crunched exhaustively, and Rust has
//! neither type, so this path is separate from the binary32 and binary64 one: numbers are
//! carried as tmd-core's exact `FormatNumber`s, cross into C as their encodings ([`encoding`],
//! `foreign/eval_wide.c`, which sets the rounding mode around the calls), and every result is
//! judged by MPFR in the target's mode ([`judge`]), so each printed error is exact to its
//! digits. [`target`] says which symbols are wide and where they are loaded from; [`list`]
//! streams a list through a target.

pub mod encoding;
pub mod judge;
pub mod list;
pub mod target;

pub use encoding::{WideFormat, WideValue};
pub use list::{check_wide_list, WideFailure};
pub use target::{format_of, WideTarget};
