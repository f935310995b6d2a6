//! tmd-search: finding the hard-to-round inputs of a function over a range of a format.
//!
//! A search takes a [`Target`] (a registry function or an expression), an [`InputRange`]
//! (every format number x with A <= x < B, as a range of ordinals), a threshold K and the
//! breakpoint kinds, and lists every input whose result lies within 2^-K ulp of a breakpoint,
//! in increasing x, each verified and classified by [`tmd_core::hardness`], with the
//! [`Counts`] of what it saw.
//!
//! What this crate holds:
//!
//! - [`plan`]: from a [`SearchRequest`] (what the user asked, as text) to a [`SearchPlan`]:
//!   the algorithm (`auto` resolved), the [`Backend`], the defaults of each backend, and the
//!   fingerprint that ties a resume journal to its search.
//! - [`reference`]: the reference search, every input decided with MPFR through
//!   [`tmd_core::decide`] on all cores. It is deliberately simple — a parallel loop over chunks
//!   of ordinals and a writer that puts chunk results back in order — because it is the oracle
//!   the other methods are tested against.
//! - [`filter`]: the filtered searches. The range is cut into chunks, each approximated by a
//!   proven polynomial; a [`filter::generator::CandidateGenerator`] produces each chunk's
//!   candidates (lower-bound tests from [`lower_bound`] on the CPU cores or on an OpenCL or
//!   CUDA device, or the exhaustive walk), and MPFR verifies them with the reference search's
//!   rules, so the output equals the reference search's.
//! - [`projection`]: `--plan`: the pieces of a range, each with its method and a time
//!   projected from short timed samples.
//! - [`regime`]: pieces decided by a proven rule instead of a search (f stays next to a
//!   constant or to x, so every input is hard or none is).
//! - [`screen`]: where no chunk polynomial serves (binary32 sin, cos, tan of large
//!   arguments), a per-input binary64 evaluation with a proven bound clears the inputs far
//!   from every breakpoint, and MPFR decides the rest.
//! - [`journal`]: the resume journal of a single-process search (`--resume DIR`), safe against
//!   a kill at any instant.
//! - [`cluster`]: a search split in segments across processes (under `mpirun`): the segments,
//!   the records the ranks send, the root's segments journal and the merge. The messages go
//!   through the caller's message layer; this crate links no MPI.
//! - [`job`]: one search job, from the request to the ordered output, used by every caller
//!   and backend: the plan and its notes, the checks of the outputs, the device the caller
//!   opens, the journal and the replay of its prefix, the sink that writes the cases and range
//!   records and checkpoints the journal, the report and the `--stats` file; and the same for
//!   the root and the ranks under mpirun ([`job::segments`]).
//! - [`output`]: the formats of results: table rows, JSON lines, CORE-MATH's `.wc` files, and
//!   the hardness report of single inputs.
//! - [`hardness`]: the job of `tmd hardness`: inputs and worst-case lists classified exactly,
//!   streamed in batches.
//!
//! Results reach the caller's sink in x order as soon as every earlier chunk is done, so an
//! interrupted run keeps every case found before the first unfinished chunk.

pub mod cluster;
pub mod counts;
pub mod filter;
pub mod hardness;
pub mod job;
pub mod journal;
pub mod lower_bound;
mod ordered;
pub mod output;
pub mod plan;
pub mod projection;
pub mod range;
pub mod reference;
pub mod regime;
pub mod screen;

pub use counts::Counts;
pub use filter::generator::{generator_for, CandidateGenerator};
pub use filter::{
    check_params as check_filter_params, check_target, filtered_search, FilterError, FilterParams,
    Method,
};
pub use plan::{Backend, SearchAlgorithm, SearchPlan, SearchRequest};
pub use range::{InputRange, RangeEnd};
pub use reference::{reference_search, reference_search_to, Case, Listing, SearchParams, Summary};

use tmd_core::{Expr, Func, InputError};

/// What is searched: a registry function or an expression in x.
#[derive(Clone, Debug)]
pub struct Target {
    /// The name as printed in results: the registry name, or the expression text.
    pub name: String,
    pub expr: Expr,
}

impl Target {
    /// A registry name (or alias), or else an expression.
    pub fn parse(text: &str) -> Result<Target, InputError> {
        let text = text.trim();
        if let Some(func) = Func::lookup(text) {
            return Ok(Target {
                name: func.name().to_string(),
                expr: Expr::Call(func, Box::new(Expr::X)),
            });
        }
        let is_identifier =
            !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if is_identifier && text != "x" {
            return Err(InputError::Function(format!(
                "unknown function '{text}' (see `tmd functions`)"
            )));
        }
        Ok(Target {
            name: text.to_string(),
            expr: Expr::parse(text)?,
        })
    }

    /// The registry function, when the target is one.
    pub fn function(&self) -> Option<Func> {
        self.expr.as_function()
    }
}
