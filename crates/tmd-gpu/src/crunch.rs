//! The crunch kernels for any [`Backend`]: `crunch_eval` (a target on every input) and
//! `crunch_analyse` (a binary64 or binary32 target and its error analysis on the device,
//! kernels/crunch_analyse.cl).

use crate::backend::{Arg, Backend, Grid, Word};
use crate::GpuError;
use tmd_kernels::layout::CRUNCH_COUNT_WORDS;

// The host's counter layout is the kernels'.
const _: () = assert!(tmd_crunch::device::COUNT_WORDS == CRUNCH_COUNT_WORDS);
const _: () =
    assert!(tmd_crunch::analysis::HISTOGRAM_BINS == tmd_kernels::layout::CRUNCH_HISTOGRAM_BINS);

/// A format the crunch kernel evaluates.
pub trait CrunchReal: Word {
    /// The C type.
    const C_TYPE: &'static str;
}

impl CrunchReal for f32 {
    const C_TYPE: &'static str = "float";
}

impl CrunchReal for f64 {
    const C_TYPE: &'static str = "double";
}

/// One launch of `crunch_analyse` over the ordinals `lo..lo + n` of a format.
#[derive(Clone, Copy, Debug)]
pub struct AnalysePlan {
    pub format: tmd_crunch::CrunchFormat,
    pub lo: i64,
    pub n: u64,
    /// Relative bound of the double-double reference.
    pub eps: f64,
    /// The saturation thresholds of `tmd_crunch::saturation` (binary64 only: binary32 has
    /// its own rules in the kernel).
    pub overflow_from: Option<f64>,
    pub overflow_symmetric: bool,
    pub tiny_until: Option<f64>,
    /// Room for near-max candidates and for inputs left to the host.
    pub candidate_capacity: u32,
    pub host_capacity: u32,
    /// Which candidates are listed (`ListingRule::ALL`: every one); see
    /// `tmd_crunch::device::next_listing`.
    pub listing: tmd_crunch::device::ListingRule,
}

impl AnalysePlan {
    /// The saturation rules as the kernel takes them: (has overflow, overflow threshold,
    /// symmetric, has tiny region, tiny threshold).
    pub fn saturation_args(&self) -> (i32, f64, i32, i32, f64) {
        (
            self.overflow_from.is_some() as i32,
            self.overflow_from.unwrap_or(0.0),
            self.overflow_symmetric as i32,
            self.tiny_until.is_some() as i32,
            self.tiny_until.unwrap_or(0.0),
        )
    }
}

/// What one launch of `crunch_analyse` returns.
#[derive(Clone, Debug, Default)]
pub struct AnalyseOutput {
    /// [`CRUNCH_COUNT_WORDS`] counters.
    pub counts: Vec<u64>,
    /// (ordinal, fast error) of inputs that may be near the maximum (unordered).
    pub candidates: Vec<(i64, f64)>,
    /// How many there were, or when the room was too small more than stored (the count
    /// stops once the list is full).
    pub candidates_found: u64,
    /// When there was no room for all: fast errors of candidates left out, the largest per
    /// bucket of a hash of the ordinal (at most `candidate_capacity` distinct inputs), for
    /// `tmd_crunch::device::candidate_floor`.
    pub sampled_errors: Vec<f64>,
    /// (ordinal, result) of inputs the device did not decide (unordered).
    pub host: Vec<(i64, f64)>,
    pub host_found: u64,
}

impl AnalyseOutput {
    /// Whether every candidate and every undecided input was stored.
    pub fn complete(&self) -> bool {
        self.candidates_found == self.candidates.len() as u64
            && self.host_found == self.host.len() as u64
    }
}

/// The errors of the kernel's sample words (bits + 1; 0 for an empty position).
fn sampled_errors(words: &[u64]) -> Vec<f64> {
    words
        .iter()
        .filter(|&&w| w != 0)
        .map(|&w| f64::from_bits(w - 1))
        .collect()
}

/// Evaluates the crunch program that `source` makes (complete: it defines `crunch_target` and
/// includes `kernels/crunch.cl`) on every input; the program is built once per `key`
/// ([`Backend::source_program`]), before anything runs, so that a bad target is a
/// `GpuError::Build` with the compiler's log even for no inputs.
pub(crate) fn eval_source<B: Backend, T: CrunchReal>(
    b: &B,
    key: String,
    source: impl FnOnce() -> String,
    xs: &[T],
) -> Result<Vec<T>, GpuError> {
    let program = b.source_program(key, "crunch", source)?;
    if xs.is_empty() {
        return Ok(Vec::new());
    }
    b.with_queues(|q, _| {
        let input = b.upload(q, xs)?;
        let output = b.scratch::<T>(q, xs.len())?;
        b.launch(
            q,
            &program,
            "crunch_eval",
            Grid {
                items: xs.len(),
                group: B::EVAL_GROUP,
            },
            &[
                b.arg(q, &input),
                b.arg(q, &output),
                Arg::U64(xs.len() as u64),
            ],
        )?;
        b.download(q, &output, xs.len())
    })
}

/// Runs `crunch_analyse` for a target of `function` in the plan's format over one range of
/// ordinals: the target, the double-double reference and the fast decisions on the device.
/// `None` when the function has no device reference for the format.
pub(crate) fn analyse<B: Backend>(
    b: &B,
    function: &str,
    target: &str,
    plan: &AnalysePlan,
) -> Result<Option<AnalyseOutput>, GpuError> {
    let real = match plan.format {
        tmd_crunch::CrunchFormat::Binary32 => f32::C_TYPE,
        tmd_crunch::CrunchFormat::Binary64 => f64::C_TYPE,
    };
    if !tmd_kernels::has_crunch_analysis(function, real) {
        return Ok(None);
    }
    let program = b.source_program(
        format!("crunch_analyse\n{function}\n{real}\n{target}"),
        "crunch_analyse",
        || {
            tmd_kernels::crunch_analyse_source(function, target, real)
                .expect("the function has a device reference for the format")
        },
    )?;
    b.with_queues(|q, _| {
        let cand_cap = plan.candidate_capacity.max(1);
        let host_cap = plan.host_capacity.max(1);
        let counts = b.zeros::<u64>(q, CRUNCH_COUNT_WORDS)?;
        let max_bits = b.zeros::<u64>(q, 1)?;
        // The lists are read only up to their counters.
        let cand_ord = b.scratch::<i64>(q, cand_cap as usize)?;
        let cand_err = b.scratch::<f64>(q, cand_cap as usize)?;
        let cand_found = b.zeros::<u32>(q, 1)?;
        let cand_sample = b.zeros::<u64>(q, cand_cap as usize)?;
        let host_ord = b.scratch::<i64>(q, host_cap as usize)?;
        let host_a = b.scratch::<f64>(q, host_cap as usize)?;
        let host_found = b.zeros::<u32>(q, 1)?;
        let (has_over, over, symmetric, has_tiny, tiny) = plan.saturation_args();
        b.launch(
            q,
            &program,
            "crunch_analyse",
            Grid {
                items: plan.n.clamp(1, B::ANALYSE_ITEMS) as usize,
                group: B::ANALYSE_GROUP,
            },
            &[
                Arg::I64(plan.lo),
                Arg::U64(plan.n),
                Arg::F64(plan.eps),
                Arg::I32(has_over),
                Arg::F64(over),
                Arg::I32(symmetric),
                Arg::I32(has_tiny),
                Arg::F64(tiny),
                b.arg(q, &counts),
                b.arg(q, &max_bits),
                b.arg(q, &cand_ord),
                b.arg(q, &cand_err),
                Arg::U32(cand_cap),
                Arg::F64(plan.listing.floor),
                Arg::I64(plan.listing.tie_end),
                b.arg(q, &cand_found),
                b.arg(q, &cand_sample),
                b.arg(q, &host_ord),
                b.arg(q, &host_a),
                Arg::U32(host_cap),
                b.arg(q, &host_found),
            ],
        )?;
        let pairs = |ords: Vec<i64>, vals: Vec<f64>| ords.into_iter().zip(vals).collect();
        let candidates_found = b.download(q, &cand_found, 1)?[0] as u64;
        let stored = candidates_found.min(cand_cap as u64) as usize;
        let host_found_n = b.download(q, &host_found, 1)?[0] as u64;
        let host_stored = host_found_n.min(host_cap as u64) as usize;
        let sampled_errors = if candidates_found > cand_cap as u64 {
            sampled_errors(&b.download(q, &cand_sample, cand_cap as usize)?)
        } else {
            Vec::new()
        };
        Ok(Some(AnalyseOutput {
            counts: b.download(q, &counts, CRUNCH_COUNT_WORDS)?,
            candidates: pairs(
                b.download(q, &cand_ord, stored)?,
                b.download(q, &cand_err, stored)?,
            ),
            candidates_found,
            sampled_errors,
            host: pairs(
                b.download(q, &host_ord, host_stored)?,
                b.download(q, &host_a, host_stored)?,
            ),
            host_found: host_found_n,
        }))
    })
}
