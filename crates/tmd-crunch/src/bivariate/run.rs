//! A run over a set of pairs: chunks judged in parallel into [`Summary`]s keyed by the pairs'
//! indices, merged in order, the maximum recomputed with MPFR, as univariate runs do
//! ([`crate::driver`]).

use super::analysis::{correct_rounding, exact, reference_name, verdict};
use super::pairs::PairSet;
use super::target::PairTarget;
use crate::analysis::{Class, Special};
use crate::implementation::PairBatch;
use crate::rounding::Rounding;
use crate::summary::{Argmax, MaxBound, Outcome, Summary};
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

/// Pairs per parallel task.
const CHUNK: u64 = 1 << 12;
/// Pairs between two progress reports.
const BLOCK: u64 = 1 << 22;

/// Where the pairs came from, for the report.
#[derive(Clone, Debug)]
pub enum PairsKind {
    /// Every pair of binary16 numbers.
    Exhaustive,
    /// The pairs of a file.
    List { file: String },
    /// A seeded random sample ([`super::pairs::random_sample`]).
    Sample { seed: u64 },
    /// A seeded structured sample of pow ([`super::pairs::structured_pow`]).
    Structured { seed: u64 },
}

/// A pair whose result is not correctly rounded (kept for lists).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PairFailure {
    /// Its position in the set (the line order of a list).
    pub index: u64,
    pub a: f64,
    pub b: f64,
    pub got: f64,
    /// The error in ulps, exact (`None` for the special classes without one).
    pub err: Option<f64>,
    pub class: Class,
    pub special: Special,
}

/// The final result of a run over pairs.
#[derive(Clone, Debug, Serialize)]
pub struct PairReport {
    pub target: String,
    pub function: String,
    pub format: String,
    pub rounding: Rounding,
    /// What was crunched, in words ("all 2^32 pairs of binary16 numbers", "sampled N pairs,
    /// seed S; not exhaustive", ...).
    pub pairs: String,
    pub exhaustive: bool,
    pub seed: Option<u64>,
    pub inputs: u64,
    /// For random samples: what the sample says about the population it was drawn from.
    pub confidence: Option<String>,
    /// The maximum's input is the first pair reaching it, hex, in C argument order. It is
    /// always verified: every pair within the fast path's tolerance of the maximum was
    /// recomputed with MPFR (by a second pass where too many crowd it); the bound is kept for
    /// the shape of univariate reports.
    #[serde(flatten)]
    pub outcome: Outcome<[String; 2]>,
    pub reference: String,
    pub mpfr_inputs: u64,
    pub seconds: f64,
    pub note: Option<String>,
    /// Lists only: every pair not correctly rounded, in the list's order.
    #[serde(skip)]
    pub failures: Vec<PairFailure>,
}

/// The target's results at the pairs `[lo, hi)` of the set.
fn evaluate(
    target: &dyn PairTarget,
    set: &PairSet,
    lo: u64,
    hi: u64,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (a, b): (Vec<f64>, Vec<f64>) = (lo..hi).map(|i| set.pair(i)).unzip();
    let mut out = vec![0.0; a.len()];
    target.eval(PairBatch {
        a: &a,
        b: &b,
        out: &mut out,
    });
    (a, b, out)
}

/// Judges the pairs `[lo, hi)`; keeps the failures when `keep` is set.
pub fn crunch_chunk(
    target: &dyn PairTarget,
    set: &PairSet,
    lo: u64,
    hi: u64,
    keep: bool,
) -> (Summary, Vec<PairFailure>) {
    let (func, fmt, mode) = (target.function(), target.format(), target.rounding());
    let mut summary = Summary::default();
    let mut failures = Vec::new();
    // A target that has failed evaluates nothing more; the caller reports its failure.
    if target.failure().is_some() {
        return (summary, failures);
    }
    let (a, b, out) = evaluate(target, set, lo, hi);
    for (i, ((&x, &y), &r)) in a.iter().zip(&b).zip(&out).enumerate() {
        let index = lo + i as u64;
        let (v, mpfr) = verdict(func, fmt, x, y, r, mode);
        summary.record(index as i64, v, mpfr);
        if keep && v.class != Class::CorrectlyRounded {
            failures.push(PairFailure {
                index,
                a: x,
                b: y,
                got: r,
                err: v.err,
                class: v.class,
                special: v.special,
            });
        }
    }
    summary.prune_near_max();
    (summary, failures)
}

/// Crunches every pair of the set (`progress(done, total)` after each block of pairs).
pub fn run_pairs(
    target: &dyn PairTarget,
    set: &PairSet,
    kind: &PairsKind,
    mut progress: impl FnMut(u64, u64),
) -> PairReport {
    let start = Instant::now();
    let keep = matches!(kind, PairsKind::List { .. });
    let total = set.len();
    let mut summary = Summary::default();
    let mut failures = Vec::new();
    let mut lo = 0;
    while lo < total {
        let hi = (lo + BLOCK).min(total);
        let chunks: Vec<(u64, u64)> = (lo..hi)
            .step_by(CHUNK as usize)
            .map(|c| (c, (c + CHUNK).min(hi)))
            .collect();
        let parts: Vec<_> = chunks
            .par_iter()
            .map(|&(c, d)| crunch_chunk(target, set, c, d, keep))
            .collect();
        for (s, f) in parts {
            summary.merge(&s);
            failures.extend(f);
        }
        lo = hi;
        progress(lo, total);
    }
    let mut report = report(target, set, kind, &summary);
    report.failures = failures;
    report.seconds = start.elapsed().as_secs_f64();
    report
}

/// What a sample says: the pairs and, for random samples, the confidence.
fn describe(kind: &PairsKind, fmt: &str, n: u64, bad: u64, func: &str) -> (String, Option<String>) {
    let confidence = |what: &str| {
        if bad > 0 {
            return format!(
                "{bad} of the {n} {what} pairs ({:.3e}) are not correctly rounded",
                bad as f64 / n.max(1) as f64
            );
        }
        // (1 - q)^n <= 0.05 for q >= 1 - 0.05^(1/n).
        let q95 = -(0.05f64.ln() / n.max(1) as f64).exp_m1();
        format!(
            "no pair of the sample is incorrectly rounded; if a fraction q of the pairs drawn \
             this way were, all {n} would miss them with probability (1-q)^{n}: with 95% \
             confidence q < {q95:.3e}. A sample bounds no maximum error"
        )
    };
    match kind {
        PairsKind::Exhaustive => (format!("all 2^32 pairs of {fmt} bit patterns"), None),
        PairsKind::List { file } => (format!("the {n} pairs of {file}; not exhaustive"), None),
        PairsKind::Sample { seed } => (
            format!(
                "sampled {n} pairs, seed {seed}; not exhaustive (each argument a finite {fmt} \
                 number of uniformly random bit pattern)"
            ),
            Some(confidence("sampled")),
        ),
        PairsKind::Structured { seed } => (
            format!(
                "structured sample of {n} pairs of {func} (exact results and midpoints), seed \
                 {seed}; not exhaustive"
            ),
            Some(confidence("structured")),
        ),
    }
}

fn report(target: &dyn PairTarget, set: &PairSet, kind: &PairsKind, total: &Summary) -> PairReport {
    let (func, fmt, mode) = (target.function(), target.format(), target.rounding());
    let best = total.exact_maximum(
        |index| evaluate(target, set, index as u64, index as u64 + 1).2[0],
        |index, &r| {
            let (a, b) = set.pair(index as u64);
            exact(func, fmt, a, b, r, mode).err
        },
    );
    let bound = MaxBound {
        max_verified: true,
        max_ulp_bound: best.as_ref().map(|b| b.0),
    };
    let max = best.map(|(err, index, r)| {
        let (a, b) = set.pair(index as u64);
        Argmax {
            err,
            x: [fmt.hex(a), fmt.hex(b)],
            result: fmt.hex(r),
            expected: fmt.hex(correct_rounding(func, fmt, a, b, mode)),
        }
    });
    let (pairs, confidence) = describe(
        kind,
        fmt.name(),
        total.inputs,
        total.faithful + total.worse,
        func.name(),
    );
    let seed = match kind {
        PairsKind::Sample { seed } | PairsKind::Structured { seed } => Some(*seed),
        _ => None,
    };
    PairReport {
        target: target.name(),
        function: func.name().into(),
        format: fmt.name().into(),
        rounding: mode,
        pairs,
        exhaustive: matches!(kind, PairsKind::Exhaustive),
        seed,
        inputs: total.inputs,
        confidence,
        outcome: Outcome::new(total, max, Some(bound)),
        reference: reference_name(func, fmt),
        mpfr_inputs: total.mpfr_inputs,
        seconds: 0.0,
        note: target.note(),
        failures: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_sample_states_the_chance_of_missing_a_fraction_of_bad_pairs() {
        let (pairs, confidence) =
            describe(&PairsKind::Sample { seed: 4 }, "binary32", 3000, 0, "pow");
        assert!(
            pairs.starts_with("sampled 3000 pairs, seed 4; not exhaustive"),
            "{pairs}"
        );
        let c = confidence.unwrap();
        // 1 - 0.05^(1/3000) = 9.981e-4 (about 3/N).
        assert!(
            c.contains("(1-q)^3000") && c.contains("q < 9.981e-4"),
            "{c}"
        );
        let (_, c) = describe(&PairsKind::Sample { seed: 4 }, "binary32", 3000, 30, "pow");
        assert!(c
            .unwrap()
            .starts_with("30 of the 3000 sampled pairs (1.000e-2)"));
        let (pairs, c) = describe(&PairsKind::Exhaustive, "binary16", 1 << 32, 5, "pow");
        assert!(c.is_none() && !pairs.contains("not exhaustive"), "{pairs}");
    }
}
