//! Summaries from a device that analyses as well as evaluates (`kernels/crunch_analyse.cl`).
//!
//! On a GPU the host's references would bound the throughput (a double-double exp per input
//! costs more than the target), so for binary64 functions with a device reference the device
//! runs the target, the reference and [`crate::analysis::classify_fast`] itself, and returns
//! per launch: counters (classes, special classes, histogram), the inputs it could not decide
//! (with their results), and every input whose fast error may lie within the near-max window
//! of the maximum. This module turns that into the [`Summary`] the cores would have made:
//!
//! * counts and histogram add (the device's decisions are the CPU's: same reference bits, same
//!   f64 operations, tested on PoCL against the cores);
//! * undecided inputs take the CPU's path ([`verdict_binary64`]: saturation rules, reference,
//!   MPFR), so `mpfr_inputs` is the CPU's too;
//! * the maximum and the near-max list come from the candidates and the host verdicts, merged
//!   in ordinal order. The device emits an input when its error is within twice the window of
//!   the largest error seen so far; that running maximum never exceeds the final one and the
//!   window's lower edge `m - w(m)` grows with `m`, so every input within the window of the
//!   final maximum is emitted. After `prune_near_max` the list equals the cores' list.

use crate::analysis::HISTOGRAM_BINS;
use crate::driver::verdict_binary64;
use crate::format::CrunchFormat;
use crate::function::RefFunc;
use crate::summary::Summary;
use rayon::prelude::*;

/// Counter words of the kernel, in its order (`CW_*` in kernels/crunch_analyse.cl).
pub const COUNT_WORDS: usize = 10 + HISTOGRAM_BINS;

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

/// The summary of ordinals `[lo, hi)` of a binary64 target of `func` from a device's
/// analysis (see the module documentation).
pub fn summary_from_device(func: RefFunc, lo: i64, hi: i64, dev: &DeviceAnalysis) -> Summary {
    let c = &dev.counts;
    assert_eq!(c.len(), COUNT_WORDS, "device counter words");
    let mut s = Summary {
        inputs: c[9],
        correctly_rounded: c[0],
        faithful: c[1],
        worse: c[2],
        histogram: c[10..].to_vec(),
        ..Summary::default()
    };
    s.specials.nan_expected = c[3];
    s.specials.nan_wrong = c[4];
    s.specials.overflow = c[5];
    s.specials.overflow_wrong = c[6];
    s.specials.subnormal = c[7];
    s.specials.subnormal_wrong = c[8];
    let saturated = crate::saturation::saturation(func);
    let fmt = CrunchFormat::Binary64;
    let mut host: Vec<_> = dev
        .undecided
        .par_iter()
        .map(|&(ord, a)| {
            (
                ord,
                verdict_binary64(func, &saturated, fmt.from_ordinal(ord), a),
            )
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
