//! The reference search: every input of the range evaluated with MPFR, on all cores.
//!
//! Chunks of consecutive ordinals are processed in parallel (rayon); each chunk's cases go
//! through a channel to the calling thread, which hands them to the sink in x order as soon as
//! all earlier chunks are in. Nothing is decided here that [`tmd_core::decide`] does not decide.

use crate::counts::Counts;
use crate::ordered::{continue_if, run_ordered};
use crate::range::InputRange;
use crate::regime::RangeRecord;
use crate::Target;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tmd_core::hardness::decide_likely_hard;
use tmd_core::{decide, Breakpoints, Decision, Expr, FormatNumber, Outcome, Skip};

/// Inputs per chunk: large enough to amortise scheduling, small enough for a live progress bar.
const CHUNK: u128 = 1024;

/// Parameters of a search.
#[derive(Clone, Debug)]
pub struct SearchParams {
    /// K: list inputs within 2^-K ulp of a breakpoint.
    pub bits: u32,
    pub breakpoints: Breakpoints,
    /// Also report exact cases (y is a breakpoint).
    pub include_exact: bool,
    /// Cap of the Ziv loop, in bits.
    pub max_precision: u32,
}

/// One listed input.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub x: FormatNumber,
    /// `Inexact` for hard-to-round cases, `Exact`, or `Unresolved`.
    pub outcome: Outcome,
}

/// A finished (or interrupted) search: its [`Counts`] and how long it ran. It dereferences
/// to its counts (`summary.hard`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub counts: Counts,
    pub elapsed: Duration,
}

impl Summary {
    /// A summary of `inputs` inputs, nothing else counted yet.
    pub(crate) fn of_inputs(inputs: u64) -> Summary {
        Summary {
            counts: Counts {
                inputs,
                ..Counts::default()
            },
            elapsed: Duration::ZERO,
        }
    }

    pub(crate) fn absorb(&mut self, other: &Summary) {
        self.counts.merge(&other.counts);
    }
}

impl std::ops::Deref for Summary {
    type Target = Counts;
    fn deref(&self) -> &Counts {
        &self.counts
    }
}

impl std::ops::DerefMut for Summary {
    fn deref_mut(&mut self) -> &mut Counts {
        &mut self.counts
    }
}

/// Searches `range` for the hard-to-round cases of `target`. `sink` receives every listed case
/// in increasing x (exact cases only with `include_exact`; unresolved inputs always, so that
/// nothing is dropped silently). `progress` counts inputs done, for a progress bar.
pub fn reference_search(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    progress: &AtomicU64,
    sink: &mut (dyn FnMut(&Case) + Send),
) -> Summary {
    reference_search_to(target, range, params, progress, &mut SinkOnly(sink))
}

/// What a search hands its caller, in increasing x.
pub trait Listing: Send {
    /// A listed case.
    fn case(&mut self, case: &Case);
    /// Every input with ordinal below `next_ordinal` is finished and its cases were listed;
    /// `total` counts the finished prefix (for checkpoints).
    fn finished_through(&mut self, next_ordinal: i128, total: &Summary) {
        let _ = (next_ordinal, total);
    }
    /// Whether this listing takes range records ([`Listing::range`]). When it does not, a
    /// filtered search lists every input of a piece the rule proves all hard, one by one.
    fn accepts_ranges(&self) -> bool {
        false
    }
    /// A piece of inputs, every one of them hard (only called when [`Listing::accepts_ranges`]).
    fn range(&mut self, record: &RangeRecord) {
        let _ = record;
        unreachable!("a range record reached a listing that does not take them");
    }
    /// Whether the listing can still take cases: `false` once its output is gone (a closed
    /// pipe, a full disk), and the search then stops at the next finished job.
    fn wants_more(&self) -> bool {
        true
    }
}

impl<F: FnMut(&Case) + Send> Listing for F {
    fn case(&mut self, case: &Case) {
        self(case)
    }
}

struct SinkOnly<'a>(&'a mut (dyn FnMut(&Case) + Send));

impl Listing for SinkOnly<'_> {
    fn case(&mut self, case: &Case) {
        (self.0)(case)
    }
}

/// [`reference_search`] with checkpoints.
pub fn reference_search_to(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    progress: &AtomicU64,
    out: &mut dyn Listing,
) -> Summary {
    let started = Instant::now();
    let chunks = range.len().div_ceil(CHUNK) as u64;
    let mut total = Summary::default();
    run_ordered(
        chunks,
        |c| {
            let first = c as u128 * CHUNK;
            let last = (first + CHUNK).min(range.len());
            let result = search_ordinals(target, range, params, first, last);
            progress.fetch_add(result.1.inputs, Ordering::Relaxed);
            result
        },
        |result| result.0.len() as u64,
        |c, (cases, summary)| {
            total.absorb(&summary);
            cases.iter().for_each(|case| out.case(case));
            let next = range.start + ((c as u128 + 1) * CHUNK).min(range.len()) as i128;
            out.finished_through(next, &total);
            continue_if(out.wants_more())
        },
    );
    total.elapsed = started.elapsed();
    total
}

/// Every input of `range` with index in `first..last`, decided with MPFR one by one.
pub(crate) fn search_ordinals(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    first: u128,
    last: u128,
) -> (Vec<Case>, Summary) {
    let mut cases = Vec::new();
    let mut summary = Summary::of_inputs((last - first) as u64);
    for i in first..last {
        let x = range.input(i);
        if let Some(case) = decide_input(target, &range.format, params, x, &mut summary) {
            cases.push(case);
        }
    }
    (cases, summary)
}

/// Decides one input with MPFR: the case to list, if any; `summary` counts it (but not as an
/// input: callers count inputs).
pub fn decide_input(
    target: &Target,
    format: &tmd_core::Format,
    params: &SearchParams,
    x: FormatNumber,
    summary: &mut Summary,
) -> Option<Case> {
    decide_with(decide, target, format, params, x, summary)
}

/// [`decide_input`] for a filter candidate, which is probably hard: the same decision through
/// [`tmd_core::hardness::decide_likely_hard`] (one MPFR evaluation fewer per hard input).
pub fn decide_candidate(
    target: &Target,
    format: &tmd_core::Format,
    params: &SearchParams,
    x: FormatNumber,
    summary: &mut Summary,
) -> Option<Case> {
    decide_with(decide_likely_hard, target, format, params, x, summary)
}

/// The signature shared by [`decide`] and [`decide_likely_hard`].
type Decider = fn(&Expr, &tmd_core::Format, &FormatNumber, u32, Breakpoints, u32) -> Decision;

fn decide_with(
    decider: Decider,
    target: &Target,
    format: &tmd_core::Format,
    params: &SearchParams,
    x: FormatNumber,
    summary: &mut Summary,
) -> Option<Case> {
    let decision = decider(
        &target.expr,
        format,
        &x,
        params.bits,
        params.breakpoints,
        params.max_precision,
    );
    let listed = match decision {
        Decision::NotHard => None,
        Decision::Skipped(skip) => {
            match skip {
                Skip::Undefined => summary.undefined += 1,
                Skip::Pole => summary.poles += 1,
                Skip::Overflow => summary.overflow += 1,
            }
            None
        }
        Decision::Hard(outcome) => {
            summary.hard += 1;
            Some(outcome)
        }
        Decision::Exact(outcome) => {
            summary.exact += 1;
            params.include_exact.then_some(outcome)
        }
        Decision::Unresolved(outcome) => {
            summary.unresolved += 1;
            Some(outcome)
        }
    };
    listed.map(|outcome| Case { x, outcome })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tmd_core::number::parse_exact;
    use tmd_core::Format;

    #[test]
    fn exp_binary16_cases_come_out_sorted_and_verified() {
        let fmt = Format::binary16();
        let target = Target::parse("exp").unwrap();
        let range = InputRange::new(
            &fmt,
            &parse_exact("-4", &fmt).unwrap(),
            &parse_exact("4", &fmt).unwrap(),
        )
        .unwrap();
        let params = SearchParams {
            bits: 11,
            breakpoints: Breakpoints::All,
            include_exact: true,
            max_precision: 4096,
        };
        let mut cases = Vec::new();
        let progress = AtomicU64::new(0);
        let summary = reference_search(&target, &range, &params, &progress, &mut |c| {
            cases.push(c.clone())
        });
        assert_eq!(summary.inputs as u128, range.len());
        assert_eq!(progress.load(Ordering::Relaxed) as u128, range.len());
        assert!(summary.hard > 0);
        assert_eq!(summary.exact, 1, "exp(0) = 1 only");
        assert_eq!(cases.len() as u64, summary.hard + summary.exact);
        let ords: Vec<i128> = cases.iter().map(|c| fmt.ordinal(&c.x)).collect();
        assert!(ords.windows(2).all(|w| w[0] < w[1]), "sorted by x");
        for c in &cases {
            if let Outcome::Inexact(i) = &c.outcome {
                assert!(i.bits > 11.0);
            }
        }
    }
}
