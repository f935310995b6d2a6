//! What a block of inputs leaves behind, and how blocks combine into the final report.
//!
//! A [`Summary`] is additive: counts add, maxima take the larger value (ties: the smaller
//! ordinal), histograms add. Merging is done in block order, so the result does not depend on
//! how the work was scheduled or resumed. Besides the maximum, a summary keeps every input
//! whose fast error is within [`near_max_window`] of it ("near-max" inputs): the fast errors
//! are exact only to that window, so the true maximum is among them, and the final report
//! recomputes them all with MPFR (`Report::max_verified`).
//!
//! Every run (a range, a list, pairs, binary80 or binary128 numbers) keeps its statistics in
//! a [`Summary`] keyed by its inputs' positions, and every report states them as one
//! [`Outcome`]: the exact maximum with its input, the verdict counts, the special classes and
//! the histogram, flattened among the report's own fields.

use crate::analysis::{histogram_bin_of, near_max_window, Class, Special, Verdict, HISTOGRAM_BINS};
use serde::{Deserialize, Serialize};

/// At most this many near-max inputs are kept per summary; beyond it the ones with the
/// largest fast errors are kept and `near_max_dropped` notes the largest one dropped.
pub const NEAR_MAX_CAP: usize = 64;

/// Counts of the special classes; `*_wrong` counts those not correctly rounded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Specials {
    pub nan_expected: u64,
    pub nan_wrong: u64,
    pub nan_spurious: u64,
    pub pole: u64,
    pub pole_wrong: u64,
    pub overflow: u64,
    pub overflow_wrong: u64,
    pub inf_spurious: u64,
    pub subnormal: u64,
    pub subnormal_wrong: u64,
}

impl Specials {
    fn add(&mut self, o: &Specials) {
        self.nan_expected += o.nan_expected;
        self.nan_wrong += o.nan_wrong;
        self.nan_spurious += o.nan_spurious;
        self.pole += o.pole;
        self.pole_wrong += o.pole_wrong;
        self.overflow += o.overflow;
        self.overflow_wrong += o.overflow_wrong;
        self.inf_spurious += o.inf_spurious;
        self.subnormal += o.subnormal;
        self.subnormal_wrong += o.subnormal_wrong;
    }

    fn count(&mut self, special: Special, correct: bool) {
        let wrong = u64::from(!correct);
        match special {
            Special::None => {}
            Special::Subnormal => {
                self.subnormal += 1;
                self.subnormal_wrong += wrong;
            }
            Special::NanExpected => {
                self.nan_expected += 1;
                self.nan_wrong += wrong;
            }
            Special::NanSpurious => self.nan_spurious += 1,
            Special::Pole => {
                self.pole += 1;
                self.pole_wrong += wrong;
            }
            Special::Overflow => {
                self.overflow += 1;
                self.overflow_wrong += wrong;
            }
            Special::InfSpurious => self.inf_spurious += 1,
        }
    }
}

/// An input that may hold the maximum error: its ordinal and error, fast or (`exact`)
/// already recomputed with MPFR.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NearMax {
    pub ordinal: i64,
    pub err: f64,
    #[serde(default)]
    pub exact: bool,
}

/// Statistics of a set of inputs (a chunk, a block, a whole run).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub inputs: u64,
    pub correctly_rounded: u64,
    pub faithful: u64,
    pub worse: u64,
    /// Largest finite error (fast value, see the module docs), `-1` when there is none.
    pub max_ulp: f64,
    /// Ordinal of the first input reaching `max_ulp`.
    pub argmax: Option<i64>,
    pub near_max: Vec<NearMax>,
    /// Largest fast error of a near-max entry dropped by the cap (`-1`: none). The dropped
    /// inputs matter only if this reaches the final window below the maximum.
    pub near_max_dropped: f64,
    /// Bin 0: correctly rounded; 1: other errors below 1 ulp; k >= 2: `[2^(k-2), 2^(k-1))`.
    pub histogram: Vec<u64>,
    /// Worse results with a finite error below 1 ulp (in bin 1 with the faithful ones): an
    /// exact f missed by the number below a power of two (cbrt(2^-1074) = 2^-358 given as
    /// 2^-358 - 2^-411, 1/2 ulp), or f just above a power of two given the number below it.
    /// Checkpoints written before this count existed read 0.
    #[serde(default)]
    pub worse_below_one_ulp: u64,
    pub specials: Specials,
    /// Inputs decided by MPFR because the fast reference's bound did not decide them.
    pub mpfr_inputs: u64,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            inputs: 0,
            correctly_rounded: 0,
            faithful: 0,
            worse: 0,
            max_ulp: -1.0,
            argmax: None,
            near_max: Vec::new(),
            near_max_dropped: -1.0,
            histogram: vec![0; HISTOGRAM_BINS],
            worse_below_one_ulp: 0,
            specials: Specials::default(),
            mpfr_inputs: 0,
        }
    }
}

impl Summary {
    /// Results worse than faithful that have no finite error (spurious NaN or infinity, a
    /// number where NaN or infinity is due, anything but infinity or the largest finite
    /// number where the result overflows), from a report's counts: the worse results with a
    /// finite error are the `worse_below_one_ulp` ones and those of the histogram's bins from
    /// 2 on (a faithful result is less than 1 ulp from f, so every error of 1 ulp or more is
    /// worse).
    pub fn worse_without_finite_error(
        worse: u64,
        worse_below_one_ulp: u64,
        histogram: &[u64],
    ) -> u64 {
        let with_error = histogram.iter().skip(2).sum::<u64>() + worse_below_one_ulp;
        worse - with_error.min(worse)
    }

    /// Records one input's verdict. Inputs must come in increasing ordinal order for the
    /// argmax tie rule (first input wins); `merge` keeps that rule across summaries.
    pub fn record(&mut self, ordinal: i64, v: Verdict, used_mpfr: bool) {
        let exact = used_mpfr;
        self.inputs += 1;
        self.mpfr_inputs += u64::from(used_mpfr);
        match v.class {
            Class::CorrectlyRounded => self.correctly_rounded += 1,
            Class::Faithful => self.faithful += 1,
            Class::Worse => self.worse += 1,
        }
        self.specials
            .count(v.special, v.class == Class::CorrectlyRounded);
        let Some(err) = v.err else { return };
        let bin = if v.class == Class::CorrectlyRounded {
            0
        } else {
            histogram_bin_of(err)
        };
        self.histogram[bin] += 1;
        self.worse_below_one_ulp += u64::from(v.class == Class::Worse && bin == 1);
        self.note_error(ordinal, err, exact);
    }

    /// The maximum and near-max part of [`Summary::record`] alone, for inputs whose counts
    /// were taken elsewhere (on a device: `crate::device`). Same order rule as `record`.
    pub fn note_error(&mut self, ordinal: i64, err: f64, exact: bool) {
        if err > self.max_ulp {
            self.max_ulp = err;
            self.argmax = Some(ordinal);
        }
        if err >= self.max_ulp - near_max_window(self.max_ulp) {
            self.near_max.push(NearMax {
                ordinal,
                err,
                exact,
            });
            if self.near_max.len() > 2 * NEAR_MAX_CAP {
                self.prune_near_max();
            }
        }
    }

    /// Adds `other`, whose inputs all come after this summary's.
    pub fn merge(&mut self, other: &Summary) {
        self.inputs += other.inputs;
        self.correctly_rounded += other.correctly_rounded;
        self.faithful += other.faithful;
        self.worse += other.worse;
        self.worse_below_one_ulp += other.worse_below_one_ulp;
        self.mpfr_inputs += other.mpfr_inputs;
        self.specials.add(&other.specials);
        for (a, b) in self.histogram.iter_mut().zip(&other.histogram) {
            *a += b;
        }
        if other.max_ulp > self.max_ulp {
            self.max_ulp = other.max_ulp;
            self.argmax = other.argmax;
        }
        self.near_max.extend_from_slice(&other.near_max);
        self.near_max_dropped = self.near_max_dropped.max(other.near_max_dropped);
        self.prune_near_max();
    }

    /// Whether inputs that may hold the true maximum were dropped by the cap.
    pub fn near_max_truncated(&self) -> bool {
        self.near_max_dropped >= self.max_ulp - near_max_window(self.max_ulp)
    }

    /// The exact maximum among the near-max inputs and the first input reaching it, with the
    /// target's result there: `result_at` evaluates the target at a key, `exact_error` gives
    /// the exact error of that result (MPFR) for the entries whose error is not exact yet.
    pub fn exact_maximum<R>(
        &self,
        mut result_at: impl FnMut(i64) -> R,
        mut exact_error: impl FnMut(i64, &R) -> Option<f64>,
    ) -> Option<(f64, i64, R)> {
        self.argmax?;
        let floor = self.max_ulp - near_max_window(self.max_ulp);
        let mut best: Option<(f64, i64, R)> = None;
        for cand in self.near_max.iter().filter(|c| c.err >= floor) {
            let result = result_at(cand.ordinal);
            let err = if cand.exact {
                Some(cand.err)
            } else {
                exact_error(cand.ordinal, &result)
            };
            if let Some(err) = err.filter(|&e| best.as_ref().is_none_or(|b| e > b.0)) {
                best = Some((err, cand.ordinal, result));
            }
        }
        best
    }

    /// Drops near-max entries outside the window of the current maximum and caps the list.
    pub fn prune_near_max(&mut self) {
        let floor = self.max_ulp - near_max_window(self.max_ulp);
        self.near_max.retain(|n| n.err >= floor);
        if self.near_max.len() > NEAR_MAX_CAP {
            self.near_max
                .sort_by(|a, b| b.err.total_cmp(&a.err).then(a.ordinal.cmp(&b.ordinal)));
            // Dropping exact entries below the kept ones loses nothing: the maximum is kept.
            for n in self.near_max[NEAR_MAX_CAP..].iter().filter(|n| !n.exact) {
                self.near_max_dropped = self.near_max_dropped.max(n.err);
            }
            self.near_max.truncate(NEAR_MAX_CAP);
        }
        self.near_max.sort_by_key(|n| n.ordinal);
    }
}

/// The input with the largest error as a report prints it: `X` is the input (one hex number,
/// or the two of a pair), then the target's result there and f rounded in the run's mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Argmax<X> {
    pub err: f64,
    pub x: X,
    pub result: String,
    pub expected: String,
}

/// How far a report's maximum is known: whether every input that may reach it was recomputed
/// with MPFR, and the bound on the true maximum when not. Lists leave it out: every error of
/// a list is MPFR's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MaxBound {
    /// Every input that may reach the maximum was recomputed with MPFR, so `max_ulp` is the
    /// maximum and `argmax` the first input reaching it. When false (more inputs lay within
    /// the fast path's tolerance of the maximum than a summary keeps), `max_ulp` is the error
    /// of `argmax`, exact, and the true maximum lies in `[max_ulp, max_ulp_bound]`.
    pub max_verified: bool,
    pub max_ulp_bound: Option<f64>,
}

/// What every report says of its inputs, whatever they are: the maximum error and where it
/// is, and the counts of a [`Summary`]. Reports flatten it among their own fields, so their
/// JSON keeps one shape.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome<X> {
    /// Largest error in ulps over the inputs with a finite error, exact (to the printed digits
    /// when verified, see [`MaxBound`]); `None` when no input has one.
    pub max_ulp: Option<f64>,
    pub argmax: Option<X>,
    /// The target's result at `argmax` and f(argmax) rounded in the run's mode.
    pub argmax_result: Option<String>,
    pub argmax_expected: Option<String>,
    #[serde(flatten)]
    pub bound: Option<MaxBound>,
    pub correctly_rounded: u64,
    pub faithful: u64,
    pub worse: u64,
    pub specials: Specials,
    /// Counts per bin: `[correctly rounded, other < 1 ulp, [1,2), [2,4), ...]`.
    pub histogram: Vec<u64>,
    /// Worse results with a finite error below 1 ulp (bin 1 of `histogram` holds them and the
    /// faithful ones): what tells the worse results with a finite error from those without.
    pub worse_below_one_ulp: u64,
}

impl<X> Outcome<X> {
    /// The outcome of `total`, its maximum `max` (exact) and how far that is known.
    pub fn new(total: &Summary, max: Option<Argmax<X>>, bound: Option<MaxBound>) -> Outcome<X> {
        let (max_ulp, argmax, argmax_result, argmax_expected) = match max {
            Some(m) => (Some(m.err), Some(m.x), Some(m.result), Some(m.expected)),
            None => (None, None, None, None),
        };
        Outcome {
            max_ulp,
            argmax,
            argmax_result,
            argmax_expected,
            bound,
            correctly_rounded: total.correctly_rounded,
            faithful: total.faithful,
            worse: total.worse,
            specials: total.specials.clone(),
            histogram: total.histogram.clone(),
            worse_below_one_ulp: total.worse_below_one_ulp,
        }
    }

    /// Results worse than faithful without a finite error
    /// ([`Summary::worse_without_finite_error`]).
    pub fn worse_without_finite_error(&self) -> u64 {
        Summary::worse_without_finite_error(self.worse, self.worse_below_one_ulp, &self.histogram)
    }
}
