//! Summaries from a device that analyses as well as evaluates (`kernels/crunch_analyse.cl`).
//!
//! On a GPU the host's references would bound the throughput (a double-double exp per input
//! costs more than the target), so for functions with a device reference (binary64: the
//! table's `Crunch::device`, binary32: `Crunch::binary32_device`) the device runs the target,
//! the reference and [`crate::analysis::classify_fast`] itself, and returns per launch: counters (classes, special classes, histogram), the inputs it could not decide
//! (with their results), and every input whose fast error may lie within the near-max window
//! of the maximum. This module turns that into the [`Summary`] the cores would have made:
//!
//! * counts and histogram add (the device's decisions are the CPU's: for binary64 the same
//!   reference bits and f64 operations; for binary32 exact decisions from another reference,
//!   docs/error-analysis.md; tested on PoCL against the cores);
//! * undecided inputs take the CPU's path ([`verdict_binary64`]: saturation rules, reference,
//!   MPFR; [`verdict_binary32`]: quick_special's rules, libm reference, MPFR), so for binary64
//!   `mpfr_inputs` is the CPU's too (for binary32 it counts the inputs the CPU's path sends
//!   to MPFR among those the device left undecided);
//! * the maximum and the near-max list come from the candidates and the host verdicts, merged
//!   in ordinal order. The device emits an input when its error is within twice the window of
//!   the largest error seen so far; that running maximum never exceeds the final one and the
//!   window's lower edge `m - w(m)` grows with `m`, so every input within the window of the
//!   final maximum is emitted. After `prune_near_max` the list equals the cores' list.

use crate::analysis::HISTOGRAM_BINS;
use crate::driver::{verdict_binary32, verdict_binary64};
use crate::format::CrunchFormat;
use crate::function::RefFunc;
use crate::rounding::Rounding;
use crate::summary::{Summary, NEAR_MAX_CAP};
use rayon::prelude::*;

/// Counter words of the kernel, in its order (`CW_*` in kernels/crunch_analyse.cl).
pub const COUNT_WORDS: usize = 11 + HISTOGRAM_BINS;

/// What one device launch over ordinals `[lo, hi)` returned, complete (nothing dropped for
/// want of room).
#[derive(Clone, Debug, Default)]
pub struct DeviceAnalysis {
    pub counts: Vec<u64>,
    /// (ordinal, fast error), any order.
    pub candidates: Vec<(i64, f64)>,
    /// (ordinal, result), any order.
    pub undecided: Vec<(i64, f64)>,
}

/// The summary of ordinals `[lo, hi)` of a target of `func` in format `fmt` from a device's
/// analysis (see the module documentation). Devices analyse in round-to-nearest only
/// (`driver::crunch_range` never asks a target of another mode), so the host's verdicts on
/// the inputs the device left are round-to-nearest ones too.
pub fn summary_from_device(
    func: RefFunc,
    fmt: CrunchFormat,
    lo: i64,
    hi: i64,
    dev: &DeviceAnalysis,
) -> Summary {
    let c = &dev.counts;
    assert_eq!(c.len(), COUNT_WORDS, "device counter words");
    let mut s = Summary {
        inputs: c[9],
        correctly_rounded: c[0],
        faithful: c[1],
        worse: c[2],
        histogram: c[11..].to_vec(),
        worse_below_one_ulp: c[10],
        ..Summary::default()
    };
    s.specials.nan_expected = c[3];
    s.specials.nan_wrong = c[4];
    s.specials.overflow = c[5];
    s.specials.overflow_wrong = c[6];
    s.specials.subnormal = c[7];
    s.specials.subnormal_wrong = c[8];
    let saturated = crate::saturation::saturation(func);
    let mut host: Vec<_> = dev
        .undecided
        .par_iter()
        .map(|&(ord, a)| {
            let x = fmt.from_ordinal(ord);
            let verdict = match fmt {
                CrunchFormat::Binary32 => verdict_binary32(func, x, a, Rounding::Nearest),
                CrunchFormat::Binary64 => {
                    verdict_binary64(func, &saturated, x, a, Rounding::Nearest)
                }
            };
            (ord, verdict)
        })
        .collect();
    host.sort_unstable_by_key(|h| h.0);
    let mut candidates = dev.candidates.clone();
    candidates.sort_unstable_by_key(|c| c.0);
    // Merge in ordinal order (the argmax tie rule: first input wins).
    let (mut i, mut j) = (0, 0);
    while i < host.len() || j < candidates.len() {
        let take_host = j == candidates.len() || (i < host.len() && host[i].0 < candidates[j].0);
        if take_host {
            let (ord, (v, mpfr)) = host[i];
            s.record(ord, v, mpfr);
            i += 1;
        } else {
            let (ord, err) = candidates[j];
            s.note_error(ord, err, false);
            j += 1;
        }
    }
    debug_assert_eq!(s.inputs, (hi - lo) as u64, "every input counted once");
    s.prune_near_max();
    s
}

/// The floor for a relaunch of a device analysis whose candidate list overflowed, from the
/// errors of candidates it stored and of candidates it sampled among those left out (errors
/// of distinct inputs, any subset of the launch's candidates): the `2 * NEAR_MAX_CAP`-th
/// largest. Of all the launch's candidates at least that many have an error at least this
/// large, so every candidate [`Summary::prune_near_max`] can keep (the `NEAR_MAX_CAP` largest
/// errors, ties included) and the largest it drops have an error at least the floor: a
/// relaunch listing only those rebuilds the same summary. The sample (the largest error per bucket of a hash) is what makes the floor
/// high: the stored candidates are the first found, on a device the inputs at the start of the
/// launch. `None` when fewer were given.
pub fn candidate_floor(stored: &[(i64, f64)], sampled: &[f64]) -> Option<f64> {
    let keep = 2 * NEAR_MAX_CAP;
    let mut errs: Vec<f64> = stored
        .iter()
        .map(|c| c.1)
        .chain(sampled.iter().copied())
        .collect();
    if errs.len() < keep {
        return None;
    }
    let (_, kth, _) = errs.select_nth_unstable_by(keep - 1, |a, b| b.total_cmp(a));
    Some(*kth)
}

/// Which candidates a launch of the device analysis lists: those with an error above `floor`,
/// and those with an error equal to it whose ordinal is below `tie_end`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListingRule {
    pub floor: f64,
    pub tie_end: i64,
}

impl ListingRule {
    /// Every candidate.
    pub const ALL: ListingRule = ListingRule {
        floor: f64::NEG_INFINITY,
        tie_end: i64::MAX,
    };

    /// Whether the kernel lists an input with error `err` at ordinal `ord`.
    pub fn lists(&self, ord: i64, err: f64) -> bool {
        err > self.floor || (err == self.floor && ord < self.tie_end)
    }
}

/// What follows a launch of the device analysis (see [`next_listing`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NextListing {
    /// The launch's list gives the summary the full list would.
    Accept,
    Relaunch(ListingRule),
    /// No rule found: the host analyses the batch.
    ToHost,
}

/// After a launch of the device analysis of ordinals `[lo, hi)` under `rule` (`complete`:
/// every listed candidate and undecided input was stored; `candidates`: those stored,
/// `sampled`: the per-bucket errors of those that were not).
///
/// Why the rules are safe. [`Summary::prune_near_max`] keeps the `NEAR_MAX_CAP` entries first
/// in the order (error descending, ordinal ascending) and notes the largest error it drops.
/// A floor from [`candidate_floor`] has at least `2 * NEAR_MAX_CAP` candidates at or above it,
/// so listing every candidate at or above it keeps both. Where a block's errors are all equal
/// (binary32 exp below about -848: every result a correctly rounded 0 whose error is 0 in
/// binary64), no floor rises above the tie and the list overflows again; listing the tied inputs only below `tie_end` is safe
/// as soon as the launch lists `2 * NEAR_MAX_CAP` candidates at or above the floor: an unlisted
/// input (error equal to the floor, ordinal at or above `tie_end`) comes after at least that
/// many listed ones in that order, so it is neither kept nor the largest error dropped (at
/// least `NEAR_MAX_CAP` listed inputs with an error at least the floor are dropped too). The
/// cut is put just past the `2 * NEAR_MAX_CAP`-th smallest ordinal of the stored tied inputs,
/// which the relaunch lists again; a relaunch that still overflows cuts lower.
pub fn next_listing(
    lo: i64,
    hi: i64,
    rule: ListingRule,
    complete: bool,
    candidates: &[(i64, f64)],
    sampled: &[f64],
) -> NextListing {
    if complete {
        let listed_at_floor = candidates.iter().filter(|c| c.1 >= rule.floor).count();
        if rule.tie_end >= hi || listed_at_floor >= 2 * NEAR_MAX_CAP {
            return NextListing::Accept;
        }
        // Fewer listed than stored before: the kernel also leaves out inputs below the
        // near-max window of its running maximum (irrelevant to the summary, but not counted
        // here). A wider cut is safe all the same.
        let span = rule.tie_end.saturating_sub(lo).saturating_mul(2).max(1);
        return NextListing::Relaunch(ListingRule {
            floor: rule.floor,
            tie_end: lo.saturating_add(span),
        });
    }
    let Some(floor) = candidate_floor(candidates, sampled) else {
        return NextListing::ToHost;
    };
    let mut tied: Vec<i64> = candidates
        .iter()
        .filter(|c| c.1 == floor)
        .map(|c| c.0)
        .collect();
    let cut = (tied.len() >= 2 * NEAR_MAX_CAP).then(|| {
        let (_, kth, _) = tied.select_nth_unstable(2 * NEAR_MAX_CAP - 1);
        *kth + 1
    });
    if floor > rule.floor {
        // Mostly ties at the new floor: cut them at once rather than after one more overflow.
        let tie_end = match cut {
            Some(end) if 2 * tied.len() > candidates.len() => end,
            _ => i64::MAX,
        };
        return NextListing::Relaunch(ListingRule { floor, tie_end });
    }
    match cut {
        Some(end) if end < rule.tie_end => NextListing::Relaunch(ListingRule {
            floor: rule.floor,
            tie_end: end,
        }),
        _ => NextListing::ToHost,
    }
}

#[cfg(test)]
mod tests {
    //! The device's side simulated on the CPU with the kernel's rules (kernels/crunch_analyse.cl:
    //! saturation, domain, NaN to the host, `classify_fast`, candidates against a running
    //! maximum in a scrambled order): the rebuilt summary must equal the cores' summary.
    use super::*;
    use crate::analysis::{classify_fast, near_max_window, Class, Special};
    use crate::driver::crunch_range_on_cores;
    use crate::function::EPS_DD;
    use crate::target::ClosureTarget;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    use tmd_xfloat::Dd;

    /// exp with planted errors: 1-3 ulps off on some inputs, NaN on others.
    fn planted(x: f64) -> f64 {
        let y = libm::exp(x);
        let o = x.to_bits();
        if o.is_multiple_of(97) {
            f64::NAN
        } else if o.is_multiple_of(7) && y.is_finite() && y > 0.0 {
            f64::from_bits(y.to_bits() + 1 + o % 3)
        } else {
            y
        }
    }

    /// What a device launch over `[lo, hi)` returns, its inputs taken in a shuffled order (as
    /// work-items finish): `judge(ord)` gives the result there and the kernel's verdict
    /// (`None`: undecided, left to the host); candidates are kept against the running maximum.
    fn simulate(
        lo: i64,
        hi: i64,
        seed: u64,
        judge: impl Fn(i64) -> (f64, Option<crate::analysis::Verdict>),
    ) -> DeviceAnalysis {
        let mut counts = vec![0u64; COUNT_WORDS];
        let mut order: Vec<i64> = (lo..hi).collect();
        order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        let (mut candidates, mut undecided) = (Vec::new(), Vec::new());
        let mut seen_max = 0.0f64;
        for ord in order {
            let (a, verdict) = judge(ord);
            let Some(v) = verdict else {
                undecided.push((ord, a));
                continue;
            };
            tally(&mut counts, &v);
            let Some(err) = v.err else { continue };
            seen_max = seen_max.max(err);
            if err >= seen_max - 2.0 * near_max_window(seen_max) {
                candidates.push((ord, err));
            }
        }
        DeviceAnalysis {
            counts,
            candidates,
            undecided,
        }
    }

    fn simulated_device(lo: i64, hi: i64, seed: u64) -> DeviceAnalysis {
        let func = RefFunc::Registry(tmd_core::registry::Func::Exp);
        let fmt = CrunchFormat::Binary64;
        let sat = crate::saturation::saturation(func);
        simulate(lo, hi, seed, |ord| {
            let x = fmt.from_ordinal(ord);
            let a = planted(x);
            let verdict = if let Some(v) = sat.judge(func, x, a, Rounding::Nearest) {
                Some(v)
            } else if a.is_nan() {
                None
            } else {
                // the kernel's two stages: the fast reference, then the double-double one
                let (fast, eps) = func.fast_f64().unwrap();
                let (h, l) = fast(x);
                classify_fast(fmt, a, h, l, eps, Rounding::Nearest).or_else(|| {
                    let r = func.dd().unwrap()(Dd::from(x));
                    classify_fast(fmt, a, r.hi(), r.lo(), EPS_DD, Rounding::Nearest)
                })
            };
            (a, verdict)
        })
    }

    #[test]
    fn summary_from_device_equals_the_cores_summary() {
        let target = ClosureTarget::binary64(
            "planted-exp",
            RefFunc::Registry(tmd_core::registry::Func::Exp),
            planted,
        );
        let fmt = CrunchFormat::Binary64;
        let (mut undecided, mut candidates, mut overflow, mut subnormal) = (0, 0, 0, 0);
        for (k, (from, to)) in [
            (1.0, 1.0 + 2f64.powi(-40)),
            (-20.5, -20.5 + 2f64.powi(-43)),
            // around exp's overflow threshold 0x1.62e42fefa39fp+9
            (f64::from_bits(0x4086_2e42_fefa_39f0 - 3000), 709.79),
            (-745.2, -745.1),
            (-800.0, -799.99999999999),
            (-1e-300, 1e-300),
        ]
        .into_iter()
        .enumerate()
        {
            let lo = fmt.ordinal(from);
            let hi = (fmt.ordinal(to)).min(lo + 6000);
            let cores = crunch_range_on_cores(&target, lo, hi);
            let dev = simulated_device(lo, hi, k as u64);
            let rebuilt = summary_from_device(
                RefFunc::Registry(tmd_core::registry::Func::Exp),
                fmt,
                lo,
                hi,
                &dev,
            );
            assert_eq!(rebuilt, cores, "window {k}: [{from}, {to})");
            assert!(rebuilt.inputs == (hi - lo) as u64);
            undecided += dev.undecided.len();
            candidates += dev.candidates.len();
            overflow += dev.counts[5];
            subnormal += dev.counts[7];
        }
        // Every path was taken: host inputs, near-max candidates, both saturation rules.
        assert!(
            undecided > 0 && candidates > 100 && overflow > 0 && subnormal > 0,
            "undecided {undecided} candidates {candidates} overflow {overflow} subnormal {subnormal}"
        );
    }

    /// expf with planted errors: 1-3 ulps off on some inputs, NaN on others, the largest
    /// finite number or infinity on others.
    fn planted_f32(x: f32) -> f32 {
        let y = libm::expf(x);
        let o = x.to_bits();
        if o.is_multiple_of(89) {
            f32::NAN
        } else if o.is_multiple_of(61) {
            if o.is_multiple_of(2) {
                f32::MAX
            } else {
                f32::INFINITY
            }
        } else if o.is_multiple_of(7) && y.is_finite() && y > 0.0 {
            f32::from_bits(y.to_bits() + 1 + o % 3)
        } else {
            y
        }
    }

    /// The kernel's binary32 branch on the CPU: domain, NaN to the host, the rules of
    /// `ca_binary32_rule` from the double-double reference, then `classify_fast` with
    /// `EPS_DD_BINARY32`.
    fn simulated_binary32_device(lo: i64, hi: i64, seed: u64) -> DeviceAnalysis {
        use crate::analysis::{overflow_verdict, tiny_result_verdict};
        use crate::format::pow2;
        use crate::function::EPS_DD_BINARY32;
        let func = RefFunc::Registry(tmd_core::registry::Func::Exp);
        let fmt = CrunchFormat::Binary32;
        simulate(lo, hi, seed, |ord| {
            let x = fmt.from_ordinal(ord);
            let a = planted_f32(x as f32) as f64;
            let verdict = if a.is_nan() {
                None
            } else {
                let r = func.binary32_device_twin().unwrap()(Dd::from(x));
                let mag = r.hi().abs();
                let pole_candidate = x == 0.0 || x.abs() == 1.0;
                if a.is_infinite() && mag < fmt.max_finite() * 0.5 {
                    None
                } else if !pole_candidate
                    && (mag.is_infinite()
                        || mag * (1.0 - 4.0 * f64::EPSILON) > fmt.max_finite() + pow2(103))
                {
                    Some(overflow_verdict(fmt, r.hi().signum(), a, Rounding::Nearest))
                } else if !pole_candidate && mag < pow2(-960) && a == 0.0 {
                    tiny_result_verdict(fmt, 1.0, a, Rounding::Nearest)
                } else {
                    classify_fast(fmt, a, r.hi(), r.lo(), EPS_DD_BINARY32, Rounding::Nearest)
                }
            };
            (a, verdict)
        })
    }

    /// The kernel's counter words for one decided verdict.
    fn tally(counts: &mut [u64], v: &crate::analysis::Verdict) {
        counts[9] += 1;
        counts[match v.class {
            Class::CorrectlyRounded => 0,
            Class::Faithful => 1,
            Class::Worse => 2,
        }] += 1;
        let wrong = u64::from(v.class != Class::CorrectlyRounded);
        match v.special {
            Special::Overflow => {
                counts[5] += 1;
                counts[6] += wrong;
            }
            Special::Subnormal => {
                counts[7] += 1;
                counts[8] += wrong;
            }
            Special::None => {}
            other => panic!("the device never decides {other:?}"),
        }
        if let Some(err) = v.err {
            let bin = if v.class == Class::CorrectlyRounded {
                0
            } else {
                crate::analysis::histogram_bin_of(err)
            };
            counts[11 + bin] += 1;
            counts[10] += u64::from(v.class == Class::Worse && bin == 1);
        }
    }

    /// The binary32 rules with another reference than the cores' (double-double against
    /// a binary64 reference) rebuild the cores' summary, except `mpfr_inputs` and the fast error
    /// values: windows at overflow, just below it, at subnormal and zero results, around 1.
    #[test]
    fn binary32_summary_from_device_has_the_cores_decisions() {
        let func = RefFunc::Registry(tmd_core::registry::Func::Exp);
        let target = ClosureTarget::binary32("planted-expf", func, planted_f32);
        let fmt = CrunchFormat::Binary32;
        let (mut undecided, mut overflow, mut subnormal) = (0, 0, 0);
        for (k, from) in [88.7f32, 88.0, -87.5, -103.5, -700.0, -3e38, 1.0, 0.0]
            .into_iter()
            .enumerate()
        {
            let lo = fmt.ordinal(from as f64);
            let hi = lo + 6000;
            let cores = crunch_range_on_cores(&target, lo, hi);
            let dev = simulated_binary32_device(lo, hi, k as u64);
            let rebuilt = summary_from_device(func, fmt, lo, hi, &dev);
            let decisions = |s: &Summary| {
                (
                    s.inputs,
                    s.correctly_rounded,
                    s.faithful,
                    s.worse,
                    s.specials.clone(),
                    s.histogram.clone(),
                    s.worse_below_one_ulp,
                )
            };
            assert_eq!(
                decisions(&rebuilt),
                decisions(&cores),
                "window {k} at {from}"
            );
            undecided += dev.undecided.len();
            overflow += dev.counts[5];
            subnormal += dev.counts[7];
        }
        assert!(
            undecided > 0 && overflow > 0 && subnormal > 0,
            "undecided {undecided} overflow {overflow} subnormal {subnormal}"
        );
    }

    /// A relaunch that lists only the candidates at or above `candidate_floor` keeps the same
    /// near-max entries as the full list, with many equal errors at the threshold, and lists
    /// fewer: the floor from the stored prefix and per-bucket maxima of the rest, as the kernel
    /// makes them.
    #[test]
    fn candidate_floor_keeps_what_the_summary_keeps() {
        let room = 1usize << 16;
        let all: Vec<(i64, f64)> = (0..300_000i64)
            .map(|i| (i, ((i * 7919) % 1000) as f64 * 1e-300))
            .collect();
        let mut buckets = vec![0u64; room];
        for &(ord, err) in &all[room..] {
            let j = ((ord as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 17) % room as u64;
            buckets[j as usize] = buckets[j as usize].max(err.to_bits() + 1);
        }
        let sampled: Vec<f64> = buckets
            .iter()
            .filter(|&&w| w != 0)
            .map(|&w| f64::from_bits(w - 1))
            .collect();
        let floor = candidate_floor(&all[..room], &sampled).expect("enough errors");
        let mut sorted: Vec<f64> = all.iter().map(|c| c.1).collect();
        sorted.sort_by(|a, b| b.total_cmp(a));
        assert!(floor <= sorted[2 * NEAR_MAX_CAP - 1]);
        let relisted: Vec<(i64, f64)> = all.iter().copied().filter(|c| c.1 >= floor).collect();
        assert!(
            relisted.len() < all.len() / 100,
            "{} listed",
            relisted.len()
        );
        let summary = |list: &[(i64, f64)]| {
            let mut s = Summary::default();
            list.iter()
                .for_each(|&(ord, err)| s.note_error(ord, err, false));
            s.prune_near_max();
            s
        };
        let (whole, relaunched) = (summary(&all), summary(&relisted));
        assert_eq!(whole.near_max, relaunched.near_max);
        assert_eq!(
            (whole.max_ulp, whole.argmax),
            (relaunched.max_ulp, relaunched.argmax)
        );
        assert_eq!(whole.near_max_truncated(), relaunched.near_max_truncated());
        assert_eq!(candidate_floor(&all[..10], &[]), None);
    }

    /// The kernel's listing on the CPU: inputs in ordinal order, the first `room` listed ones
    /// stored, the rest sampled per bucket (`kernels/crunch_analyse.cl`).
    fn simulated_launch(
        all: &[(i64, f64)],
        rule: ListingRule,
        room: usize,
    ) -> (Vec<(i64, f64)>, Vec<f64>, bool) {
        let listed: Vec<(i64, f64)> = all
            .iter()
            .copied()
            .filter(|&(ord, err)| rule.lists(ord, err))
            .collect();
        let mut buckets = vec![0u64; room];
        for &(ord, err) in listed.iter().skip(room) {
            let j = ((ord as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 17) % room as u64;
            buckets[j as usize] = buckets[j as usize].max(err.to_bits() + 1);
        }
        let sampled = buckets
            .iter()
            .filter(|&&w| w != 0)
            .map(|&w| f64::from_bits(w - 1))
            .collect();
        let complete = listed.len() <= room;
        (listed.into_iter().take(room).collect(), sampled, complete)
    }

    fn near_max_summary(list: &[(i64, f64)]) -> Summary {
        let mut s = Summary::default();
        list.iter()
            .for_each(|&(ord, err)| s.note_error(ord, err, false));
        s.prune_near_max();
        s
    }

    /// Blocks whose errors tie (every error 0; a few larger errors above a tie; ties that
    /// begin only past the first cut; distinct errors): the launches `next_listing` asks for
    /// end in an accepted list within a few launches, and that list gives the summary of the
    /// whole list (maximum, argmax, near-max entries, whether any was dropped).
    #[test]
    fn listing_rules_keep_what_the_summary_keeps_where_errors_tie() {
        let room = 1usize << 12;
        let (lo, hi) = (1000i64, 1000 + 200_000);
        let blocks: Vec<(&str, Vec<(i64, f64)>)> = vec![
            ("every error 0", (lo..hi).map(|o| (o, 0.0)).collect()),
            (
                "100 larger errors above a tie at 0.25",
                (lo..hi)
                    .map(|o| {
                        (
                            o,
                            if o % 1999 == 7 {
                                0.5 + (o % 13) as f64 * 1e-3
                            } else {
                                0.25
                            },
                        )
                    })
                    .collect(),
            ),
            (
                "ties only past the first cut",
                (lo..hi)
                    .map(|o| {
                        (
                            o,
                            if o < lo + 150_000 {
                                1e-30 * (o - lo) as f64
                            } else {
                                2e-25
                            },
                        )
                    })
                    .collect(),
            ),
            (
                "distinct errors",
                (lo..hi)
                    .map(|o| (o, ((o * 7919) % 100_003) as f64 * 1e-9))
                    .collect(),
            ),
        ];
        for (what, all) in blocks {
            let mut rule = ListingRule::ALL;
            let mut launches = 0;
            let accepted = loop {
                launches += 1;
                assert!(launches <= 8, "{what}: no accepted list after 8 launches");
                let (stored, sampled, complete) = simulated_launch(&all, rule, room);
                match next_listing(lo, hi, rule, complete, &stored, &sampled) {
                    NextListing::Accept => break stored,
                    NextListing::Relaunch(next) => rule = next,
                    NextListing::ToHost => panic!("{what}: given to the host under {rule:?}"),
                }
            };
            assert!(accepted.len() < all.len(), "{what}: everything listed");
            let (whole, listed) = (near_max_summary(&all), near_max_summary(&accepted));
            assert_eq!(whole.near_max, listed.near_max, "{what}");
            assert_eq!(
                (whole.max_ulp, whole.argmax),
                (listed.max_ulp, listed.argmax),
                "{what}"
            );
            // The dropped error matters only within the window of the maximum (the window's
            // lower edge grows with the maximum, so merging later blocks keeps it out).
            let in_window = |s: &Summary| s.near_max_truncated().then_some(s.near_max_dropped);
            assert_eq!(in_window(&whole), in_window(&listed), "{what}");
        }
    }
}
