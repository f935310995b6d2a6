//! # tmd-crunch: the exact worst-case error of an implementation, by brute force
//!
//! DoubleCrunch (Dukhan and Vuduc, "DoubleCrunch: Brute-Force Analysis of Worst-Case Errors",
//! SC 2015) answers "what is the largest error of this `expf` over these inputs?" by
//! evaluating every input against an accurate reference.
//! This crate does that for binary32 and binary64 targets ([`target`]): the platform libm
//! through Rust's std, the `libm` crate, xfloat's functions, emulated reciprocal iterations,
//! any closure, and [`foreign`] code: a symbol of a shared library (`dl:`), a C source
//! compiled on the spot (`c:`), SIMD entry points of the x86-64 vector function ABI, and the
//! system's glibc, libmvec, SLEEF and musl, each run under a chosen rounding mode. binary80
//! and binary128 functions (`long double`, `_Float128`, `__float128`) are checked on input
//! lists only, by [`wide`]: no format that wide can be crunched whole, and Rust has neither
//! type.
//!
//! ## How an input is judged
//!
//! [`analysis`] defines the error (`|a - f(x)| / ulp(f(x))`), the classes and the special
//! classes (NaN, poles, overflow, spurious NaN/inf, subnormal results). A target runs under one
//! rounding mode m ([`Rounding`], [`Target::rounding`]; round-to-nearest unless it sets another
//! around its own calls): its result a is *correctly rounded* when a = f(x) rounded in m (RN
//! ties-to-even, RU, RD or RZ of the format, subnormals included), *faithful* when a is RD(f)
//! or RU(f) but not that one, *worse* otherwise. The error does not depend on m, nor does which
//! inputs fall in each special class (f, RN(f) and a decide that); m decides the class within
//! it (an overflowing f > MAX is correctly rounded as +inf in round-to-nearest and up, as MAX
//! in down and toward zero). Each input is judged by a fast reference with a relative error bound
//! ([`function`]: binary64 libm for binary32 targets, or for sin, cos and tan xfloat's
//! binary32-argument functions after an exact reduction; xfloat double-double for binary64 (or
//! double-double composed from xfloat's functions, [`dd_composed`]), and for
//! binary64 `exp` first the cheaper [`fast_exp`]) where that bound decides every question asked,
//! then next to 0 by a reference anchored at the breakpoint f stays next to, 1 or x
//! ([`anchored`]: without it a directed mode sent every such input to MPFR), and by MPFR
//! otherwise; so every count is exact. Which functions crunch knows, which
//! references each has with what bound, and where binary64 saturates ([`saturation`]) are
//! facts of tmd-core's one function table (`tmd_core::registry::Crunch`); [`function`] holds
//! only the Rust functions that compute the references.
//! Error values from the fast path are within a tiny window of the truth; every input within
//! that window of the maximum is kept and recomputed with MPFR at the end, so the reported
//! maximum and its argument are exact to the printed digits (`Report::max_verified`).
//!
//! ## How a run is organised
//!
//! The range is cut into blocks aligned on multiples of `2^block_bits` ordinals (2^32 for
//! binary64 by default, as in DoubleCrunch; 2^20 for binary32), crunched in order, each block's
//! chunks in parallel with rayon. A block's [`summary::Summary`] (counts, histogram, maximum,
//! near-maximum inputs, special classes) is appended to the checkpoint ([`checkpoint`]) when
//! it finishes; summaries merge associatively in block order, so a resumed run reports exactly
//! what an uninterrupted one does.
//!
//! ## The command's job
//!
//! [`job`] is `tmd crunch` as a library call: the command's flags as a request, checked for
//! every rounding mode before the first run, the runs, the text and JSON reports written to a
//! writer, and the `--max-ulp` gate ([`gate`]); the CLI only fills the request, supplies the
//! progress bars and device targets, and maps the errors to exit codes.
//!
//! Errors are typed: bad input is [`tmd_core::InputError`], an unusable checkpoint
//! [`checkpoint::CheckpointError`]; the CLI maps both to exit code 2.

pub mod analysis;
pub mod anchored;
pub mod bivariate;
pub mod checkpoint;
pub mod cluster;
pub mod dd_composed;
pub mod device;
pub mod driver;
pub mod emul;
pub mod failure;
pub mod fast_exp;
pub mod foreign;
pub mod format;
pub mod function;
pub mod gate;
pub mod implementation;
pub mod input_list;
pub mod job;
pub mod oracle;
pub mod plot;
pub mod rounding;
pub mod saturation;
pub mod summary;
pub mod target;
pub mod wide;

pub use driver::{estimate, estimate_adaptive, run, CrunchError, Estimate, Plan, Report};
pub use foreign::{resolve_foreign, resolve_with_rounding};
pub use format::CrunchFormat;
pub use function::RefFunc;
pub use implementation::{About, Implementation};
pub use rounding::Rounding;
pub use target::{resolve, ClosureTarget, Target};
