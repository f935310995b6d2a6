//! # tmd-lattice: small values of polynomials at integers, by lattice reduction
//!
//! Lefèvre's method and its regular variant (tmd-search's filter) cost about N^(2/3) per N
//! inputs, because each domain's polynomial must be almost linear. Stehlé, Lefèvre and
//! Zimmermann ("Searching worst cases of a one-variable function using lattice reduction",
//! IEEE Transactions on Computers 54(3), 2005; "Worst cases and lattice reduction", ARITH 16,
//! 2003) let the polynomial have degree 2 or 3 over much larger intervals and find the inputs
//! where it is next to an integer with Coppersmith's method: a lattice of polynomials that
//! share those inputs as roots modulo a power of N, LLL reduction, and the integer roots of a
//! resultant. That is what BaCSeL, which produced CORE-MATH's published worst cases, runs.
//!
//! This crate holds the method on one interval, independent of any function or format:
//!
//! - [`slz`]: the problem (Q(t) in Z[t], N = 2^s, |t| <= T, |Q(t) cmod N| <= V), the lattice,
//!   and [`slz::small_values`], which returns a proven superset of the solutions or says it
//!   failed; [`slz::log2_t_limit`] sizes the intervals.
//! - [`lll`]: LLL by fplll (a maintained library, linked statically through a C++ shim that
//!   passes hexadecimal strings), and the exact membership check that keeps fplll out of the proof.
//! - [`resultant`]: the resultant in v of two polynomials in Z[t, v], exactly.
//! - [`roots`]: the integer roots of a polynomial in Z[t] on an interval, exactly (Descartes'
//!   rule of signs with bisection).
//!
//! tmd-search turns a chunk's proven polynomial into these problems (its `lattice` candidate
//! generator) and verifies every candidate with MPFR, as it does the filter's. Proofs:
//! docs/error-analysis.md §18.

pub mod lll;
pub mod poly;
pub mod resultant;
pub mod roots;
pub mod slz;

/// Why the lattice method could not run on a problem.
#[derive(Debug, thiserror::Error)]
pub enum LatticeError {
    /// The matrix given to LLL was empty or not rectangular.
    #[error("the lattice basis is empty or not rectangular")]
    Shape,
    /// fplll returned this status (RED_* of fplll's defs.h), or -1 for an exception.
    #[error("fplll's LLL failed with status {0}")]
    Reduction(i32),
    /// Q is constant, alpha is 0, or T is out of range: no lattice to build.
    #[error("the polynomial is constant or the parameters are out of range")]
    ConstantPolynomial,
}
