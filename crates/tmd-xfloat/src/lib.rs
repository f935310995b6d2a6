//! # tmd-xfloat: double- and quad-word floating-point arithmetic, identical on CPU and GPU
//!
//! Four types represent a real number as an *unevaluated sum* of two or four IEEE 754 numbers
//! (Dekker 1971; Thall, "Extended-precision floating-point numbers for GPU computation", 2007):
//!
//! | type | words | nominal precision | exponent range | alias of |
//! |---|---|---|---|---|
//! | [`Df64`] ("double-float") | 2 x `f32` | 48 bits | `f32` | `DoubleWord<f32>` |
//! | [`Qf128`] ("quad-float") | 4 x `f32` | 96 bits | `f32` | `QuadWord<f32>` |
//! | [`Dd`] ("double-double") | 2 x `f64` | 106 bits | `f64` | `DoubleWord<f64>` |
//! | [`Qd`] ("quad-double") | 4 x `f64` | 212 bits | `f64` | `QuadWord<f64>` |
//!
//! The code is generic over the word format through [`BaseFloat`] (implemented for `f32` and
//! `f64`); the elementary functions and conversions are written once over [`MultiFloat`].
//!
//! ## Representation invariants
//!
//! * Double word `(hi, lo)`: `hi = RN(hi + lo)`, hence `|lo| <= ulp(hi)/2` and the
//!   representation of a value is unique, so `==` and `<` compare words lexicographically.
//! * Quad word `(w0, w1, w2, w3)`: non-overlapping and decreasing, `|w(i+1)| < ulp(w(i))`,
//!   zeros only at the end: the output of [`renormalize`] (Joldes, Marty, Muller & Popescu,
//!   IEEE TC 2016, Alg. 6). Not unique, so comparisons use the sign of the exact-zero-preserving
//!   accurate difference.
//! * Special values live in the leading word with the others zero: NaN, `±inf`, `±0`.
//!
//! ## Algorithms and error bounds
//!
//! `u = 2^-p` is the unit roundoff of the word format; a relative error `k u^2` (double word) or
//! `k u^4` (quad word) is at most `k` ulps of a `2p`- or `4p`-bit number. Every operation's
//! documentation states its bound and source; the tests check all of them against MPFR.
//!
//! | operation | double word (proven bound) | quad word (HLB00 algorithm; verified bound) |
//! |---|---|---|
//! | `+`, `-` | AccurateDWPlusDW, JMP17 Alg. 6: `3u^2 + 13u^3` | merge + renormalise: 2 ulps |
//! | `*` | DWTimesDW3, JMP17 Alg. 12 (FMA): `4u^2` (proof corrected in MR22) | by orders, exact carries: 2 ulps |
//! | `/` | long division, 3 terms, exact residuals (docs/error-analysis.md §8): half an ulp `+ 91u^3` | long division, 5 terms: 4 ulps |
//! | `recip` | DWDivDW3 with `x = 1`: `9.8u^2` | long division: 4 ulps |
//! | `sqrt` | SQRTDWtoDW, Lefèvre et al. 2023 Alg. 8: `25/8 u^2` | Newton on `1/sqrt` + Karp: 4 ulps |
//!
//! JMP17 = Joldes, Muller & Popescu, "Tight and rigorous error bounds for basic building blocks
//! of double-word arithmetic", ACM TOMS 44(2), 2017; MR22 = Muller & Rideau, "Formalization of
//! double-word arithmetic, and comments on ...", ACM TOMS 48(1), 2022; HLB00 = Hida, Li & Bailey,
//! "Quad-double arithmetic: algorithms, implementation, and application", LBNL-46996, 2000.
//! The double-word bounds are theorems (for no underflow); the quad-word bounds are those the
//! tests enforce (HLB00 gives estimates, not proofs).
//!
//! The elementary functions ([`math`]: `exp`, `expm1`, `log`, `log1p`, `sin`, `cos`, `tan`,
//! `atan`, `sinh`, `cosh`, `tanh`) work over the whole finite range: exp/expm1 use Cody–Waite
//! reduction by a multi-word `ln 2` with exact partial products; log/log1p a Newton iteration
//! on `exp` written so that the correction keeps relative accuracy near 1; sin/cos/tan an exact
//! Payne–Hanek reduction with an integer table of 2/pi bits for every argument beyond `pi/4`
//! (320 fraction bits for double words, 640 for quad words, whose arguments next to `k pi/4`
//! cancel by more than 220 bits; tan near its poles divides by the reduced argument kept at a
//! scale where none of its words underflows).
//!
//! [`fft`]: the transposed Stockham FFT of Thall's case study (section III-D), over `f32`, `f64`
//! and the four types, with a kernel twin (docs/xfloat-fft.md).
//! Their accuracy (ulps of the nominal precision, checked by `tests/functions.rs` over the
//! Table II ranges of Thall 2007 and over wide ranges):
//!
//! | function | df64, dd | qf128, qd |
//! |---|---|---|
//! | exp | 4 | 2 |
//! | expm1 | 1 | 2 |
//! | log, log1p | 6 | 2 |
//! | sin, cos | 5 | 1 |
//! | tan | 1 | 1 |
//! | atan | 4 | 1 |
//! | sinh, tanh | 1 | 2 |
//! | cosh | 4 | 2 |
//!
//! `Dd`'s methods `exp`, `ln`/`log`, `sin`, `cos` and `sin_cos` are not these generic
//! algorithms but table-driven ones written for binary64 words ([`math::dd_exp`],
//! [`math::dd_log`], [`math::dd_trig`]; Tang's methods carried to 106 bits, triple-word tables
//! from MPFR, the low word rounded once), faster (log 46 against 1053 ns, sin 62 against
//! 548 ns, side by side; docs/BENCHMARKS.md) and proven within half an ulp
//! plus a little: `exp` 0.53 ulp (1.05 just below a power of two), `log` 0.502, `sin`/`cos`
//! 0.52 for every finite argument (docs/error-analysis.md §7, §9, §10). `math::exp::<Dd>` and
//! the others stay available (crunch's device reference uses the generic `exp`); `Df64` and
//! the quad words use the generic algorithms through their methods too.
//!
//! For double words, `expm1`, `tan`, `sinh` and `tanh` do their error-critical steps (argument
//! reduction, the leading Taylor terms, reconstruction, final division) in the quad word over
//! the same base format ([`MultiFloat::Wide`]) and round once, so they are within about half an
//! ulp; the other functions run entirely in the double-word arithmetic.
//!
//! Measured maxima and RMS errors are in `docs/xfloat-accuracy.md` (`examples/accuracy.rs`).
//!
//! ## Special values
//!
//! Each operation runs its branch-free fast path and then a single test of the leading result
//! word: when it is not finite or is zero, the result is rebuilt from the same operation on the
//! leading input words alone, which gives the IEEE answer — `dd(inf) + dd(1) = inf` (not NaN),
//! `x / 0 = ±inf`, `0 / 0 = NaN`, `sqrt(-1) = NaN`, `sqrt(-0) = -0`, `(-0) + (-0) = -0`, and
//! overflow to `±inf` even where the error-free transformations would produce `inf - inf`.
//! A multi-word result overflows when its leading word, rounded to nearest, would. Division
//! brings both operands to `[1, 2)` (each by its own power of two) when the divisor is so large
//! or small that an intermediate reciprocal or remainder would leave the normal range, so
//! `2 / (largest subnormal)` is finite; square root rescales by an even power of two. The edge
//! cases (ends of the exponent range, subnormals, arguments next to multiples of pi/2 and
//! pi/4, the overflow thresholds of exp, sinh, cosh) are tested against MPFR by the
//! `edge_*` tests and reported by `examples/accuracy.rs`. Underflow is gradual
//! but the trailing words lose precision first: the bounds hold for results above
//! `2^(MIN_EXP + WORDS p)` (df64 `2^-78`, qf128 `2^-30`, dd `2^-916`, qd `2^-810`); below,
//! precision degrades gradually (qf128 keeps about 96 bits down to `2^-54`, where its last word
//! reaches the `f32` subnormal quantum), as measured by the tests' ulp with a subnormal floor.
//!
//! ## Portability: the same bits on CPU and GPU
//!
//! The same algorithms are to be mirrored in the portable OpenCL/CUDA kernel sources, so that a
//! GPU result equals the CPU result bit for bit. Everything is therefore expressible in plain C
//! with IEEE binary32/binary64 and round-to-nearest: only `+ - * /`, `sqrt`, `floor`, `rint`,
//! `scalbn`, comparisons and *explicit* fused multiply-adds (`BaseFloat::mul_add`, which is
//! `f32::mul_add`/`f64::mul_add` with `std` and `libm::fmaf`/`libm::fma` without it — both
//! correctly rounded). No x87 extended precision, no implicit FMA contraction (Rust never
//! contracts; kernels must be compiled with `-ffp-contract=off` / `-cl-fp32-correctly-rounded-*`
//! settings that keep `a*b+c` unfused), no reliance on flush-to-zero. The Newton start values
//! (`log1p` and `atan` of the base format, `BaseFloat::approx_ln_1p` / `approx_atan`) are the
//! crate's own textbook versions in `base.rs`, built from these operations only, so that the
//! kernels reproduce them bit for bit; the Payne–Hanek reduction uses 64-bit integer multiplies (`mul_hi` on GPUs). Loop
//! counts (Taylor terms, Newton steps) depend only on the type. Veltkamp/Dekker products without
//! FMA are provided in [`eft`] for completeness but not used by the arithmetic.
//!
//! ## Features
//!
//! * `std` (default): uses the standard library's (hardware) FMA; without it the crate is
//!   `no_std` and uses `libm`. Results are identical.
//! * `rug`: exact conversions to and from `rug::Float` (`to_rug`, `from_rug`).
#![cfg_attr(not(feature = "std"), no_std)]
#![warn(missing_docs)]

pub mod base;
pub mod consts;
mod convert;
mod double_word;
pub mod eft;
pub mod fft;
pub mod math;
mod methods;
mod multi;
mod quad_word;

pub use base::{BaseFloat, Constant};
pub use convert::ParseError;
pub use double_word::{Dd, Df64, DoubleWord};
pub use multi::MultiFloat;
pub use quad_word::{renormalize, Qd, Qf128, QuadWord};
