//! How far a running search is, for the watcher's progress line, and its ETA from the plan.
//!
//! Inputs are a poor measure of a search's work: a piece the regime rule decides costs
//! nothing per input, a filtered binade near an overflow threshold millions of times more, so
//! a rate in inputs per second says little of the time left (a run of binary64 exp over
//! [-700, 700] decides most of its inputs, the tiny ones, in its first seconds). Once a run
//! has lasted [`PLAN_AFTER`], the plan of what is left (`tmd search --plan`,
//! [`crate::projection`]) is made in the background, and the time left is the plan's
//! projection of the inputs not yet done, scaled by how the run has kept to the plan so far
//! ([`PlannedWork::seconds_left`]). A run that ends first stops the planning.

use crate::filter::FilterParams;
use crate::projection::{project_unless, PlannedWork};
use crate::{InputRange, SearchPlan};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long a run goes before its plan is made: a shorter run needs no ETA, and planning
/// costs it a share of the cores while it runs.
pub const PLAN_AFTER: Duration = Duration::from_secs(10);

/// The progress of one search: inputs done of the total, whether it has ended, and the plan of
/// its range once made.
pub struct SearchProgress {
    /// Inputs in the range this run searches.
    pub total: u64,
    /// Inputs finished so far.
    pub done: AtomicU64,
    /// Set when the search has ended.
    pub finished: AtomicBool,
    /// The first ordinal of the range: the inputs done stand for a prefix from there.
    first: i128,
    planned: OnceLock<PlannedWork>,
    /// [`PLAN_AFTER`], shorter in tests.
    plan_after: Duration,
}

impl SearchProgress {
    pub fn new(range: &InputRange) -> SearchProgress {
        SearchProgress {
            total: range.len() as u64,
            done: AtomicU64::new(0),
            finished: AtomicBool::new(false),
            first: range.start,
            planned: OnceLock::new(),
            plan_after: PLAN_AFTER,
        }
    }

    /// The seconds left by the plan, `elapsed` seconds into the run; `None` until the plan is
    /// made.
    pub fn planned_seconds_left(&self, elapsed: f64) -> Option<f64> {
        let done = self.done.load(Ordering::Relaxed);
        self.planned
            .get()
            .map(|work| work.seconds_left(self.first, done, elapsed))
    }

    /// Makes the plan of `range` once the run has lasted [`PLAN_AFTER`], unless it ends
    /// before (or while the plan is made).
    pub fn plan_in_background(&self, plan: &SearchPlan, range: &InputRange, filter: &FilterParams) {
        let started = Instant::now();
        while started.elapsed() < self.plan_after {
            if self.finished.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let pieces = project_unless(
            &plan.target,
            range,
            &plan.params,
            filter,
            plan.range_records,
            &self.finished,
        );
        if let Ok(Some(pieces)) = pieces {
            let _ = self.planned.set(PlannedWork::new(&pieces));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SearchRequest;

    fn exp_plan() -> SearchPlan {
        let request = SearchRequest {
            bits: Some(40),
            max_precision: 4096,
            algorithm: "regular".into(),
            ..SearchRequest::new("exp", "1", "0x1.00001p+0")
        };
        SearchPlan::new(&request, &mut |_| {}).unwrap()
    }

    #[test]
    fn a_run_that_lasts_gets_the_plans_time_left() {
        let plan = exp_plan();
        let mut progress = SearchProgress::new(&plan.range);
        progress.plan_after = Duration::ZERO;
        assert_eq!(progress.planned_seconds_left(0.0), None);
        progress.plan_in_background(&plan, &plan.range, plan.filter.as_ref().unwrap());
        let at_start = progress.planned_seconds_left(0.0).expect("planned");
        assert!(at_start > 0.0, "{at_start}");
        progress.done.store(progress.total, Ordering::Relaxed);
        assert_eq!(progress.planned_seconds_left(1.0), Some(0.0));
    }

    #[test]
    fn a_run_that_ends_first_is_never_planned() {
        let plan = exp_plan();
        let mut progress = SearchProgress::new(&plan.range);
        progress.plan_after = Duration::ZERO;
        progress.finished.store(true, Ordering::Relaxed);
        progress.plan_in_background(&plan, &plan.range, plan.filter.as_ref().unwrap());
        assert_eq!(progress.planned_seconds_left(0.0), None);
    }
}
