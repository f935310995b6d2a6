//! The run: blocks of inputs crunched in order, chunks of a block in parallel, each finished
//! block appended to the checkpoint, and the final report with the maximum recomputed exactly.

use crate::analysis::{classify, classify_exact, fast_error_tolerance, Reference};
use crate::checkpoint::{
    BlockRecord, CheckpointError, CheckpointWriter, Header, CHECKPOINT_VERSION,
};
pub use crate::cluster::Cluster;
use crate::cluster::{deal_out, share_from_root};
use crate::format::CrunchFormat;
use crate::function::{RefFunc, EPS_DD};
use crate::implementation::UnaryBatch;
use crate::rounding::Rounding;
use crate::summary::{Argmax, MaxBound, Outcome, Summary};
use crate::target::Target;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Instant;
use tmd_core::InputError;
use tmd_xfloat::Dd;

/// Inputs per parallel task.
const CHUNK: i64 = 1 << 13;

/// What to crunch.
#[derive(Clone, Debug)]
pub struct Plan {
    pub format: CrunchFormat,
    /// First ordinal (included) and end ordinal (excluded).
    pub first: i64,
    pub end: i64,
    pub block_bits: u32,
    pub checkpoint: Option<PathBuf>,
    /// Crunch only `windows` evenly spaced windows of `2^block_bits` inputs (one block each)
    /// instead of the whole range.
    pub sample_windows: Option<u64>,
}

/// Errors of a run.
#[derive(Debug, thiserror::Error)]
pub enum CrunchError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("writing the checkpoint: {0}")]
    Io(#[from] std::io::Error),
    /// A foreign target crashed, exited or hung at an input; the blocks finished before are
    /// in the checkpoint.
    #[error(transparent)]
    Target(#[from] crate::target::TargetFailure),
    /// On a rank other than the root: the root could not start the run and says why.
    #[error("rank 0 could not start the run")]
    OtherRank,
}

impl Plan {
    /// The range `[from, to)` of format numbers: finite numbers of the format, except that
    /// `from = -inf` starts at the most negative number and `to = +inf` ends after the largest
    /// (so `[-inf, inf)` is every finite number).
    pub fn new(
        format: CrunchFormat,
        from: f64,
        to: f64,
        block_bits: u32,
    ) -> Result<Plan, InputError> {
        for (what, v) in [("--from", from), ("--to", to)] {
            if v.is_nan() || (v.is_finite() && !format.contains(v)) {
                return Err(InputError::Range(format!(
                    "{what} {v:e} is not a {} number",
                    format.name()
                )));
            }
        }
        let max = format.max_ordinal();
        let ordinal = |v: f64| {
            if v.is_infinite() {
                v.signum() as i64 * (max + 1)
            } else {
                format.ordinal(v)
            }
        };
        let (first, end) = (ordinal(from).max(-max), ordinal(to));
        if from == f64::INFINITY || first >= end {
            return Err(InputError::Range(format!(
                "empty range [{}, {})",
                format.hex(from),
                format.hex(to)
            )));
        }
        if !(8..=40).contains(&block_bits) {
            return Err(InputError::Usage(format!(
                "--block-bits {block_bits}: must be 8..=40"
            )));
        }
        Ok(Plan {
            format,
            first,
            end,
            block_bits,
            checkpoint: None,
            sample_windows: None,
        })
    }

    /// The range's ends as text (`inf` for the end after the largest number).
    pub fn bounds_text(&self) -> (String, String) {
        let fmt = self.format;
        let text = |o: i64| {
            if o > fmt.max_ordinal() {
                "inf".to_string()
            } else {
                fmt.hex(fmt.from_ordinal(o))
            }
        };
        (text(self.first), text(self.end))
    }

    /// Number of inputs the plan crunches.
    pub fn inputs(&self) -> u64 {
        match self.sample_layout() {
            Some((windows, _)) => windows << self.block_bits,
            None => (self.end - self.first) as u64,
        }
    }

    /// `(windows, stride)` when the plan is a sample smaller than its range.
    fn sample_layout(&self) -> Option<(u64, u64)> {
        let total = (self.end - self.first) as u64;
        let w = self.sample_windows?;
        ((total as u128) > (w as u128) << self.block_bits).then(|| (w, total / w))
    }

    /// Whether the plan crunches a sample (windows that do not cover the range).
    pub fn is_sample(&self) -> bool {
        self.sample_layout().is_some()
    }

    /// Index range of the blocks.
    fn block_indices(&self) -> std::ops::RangeInclusive<i64> {
        match self.sample_layout() {
            Some((w, _)) => 0..=w as i64 - 1,
            // arithmetic shift: floor division
            None => (self.first >> self.block_bits)..=((self.end - 1) >> self.block_bits),
        }
    }

    /// `(first, end)` ordinals of block `index`, or `None` when the plan has no such block.
    /// Whole ranges are cut at multiples of `2^block_bits` ordinals; samples are their
    /// windows, indexed from 0.
    pub fn block(&self, index: i64) -> Option<(i64, i64)> {
        if !self.block_indices().contains(&index) {
            return None;
        }
        let b = self.block_bits;
        Some(match self.sample_layout() {
            Some((_, stride)) => {
                let lo = self.first + index * stride as i64;
                (lo, lo + (1 << b))
            }
            None => (
                (index << b).max(self.first),
                ((index + 1) << b).min(self.end),
            ),
        })
    }

    /// Blocks, in order: `(index, first, end)`.
    pub fn blocks(&self) -> impl Iterator<Item = (i64, i64, i64)> + '_ {
        self.block_indices().map(move |i| {
            let (lo, hi) = self.block(i).expect("an index of the plan");
            (i, lo, hi)
        })
    }

    /// The blocks not finished yet, in order, made as they are taken: a range of binary64
    /// has up to 2^32 blocks, too many to list.
    fn remaining<'a>(
        &'a self,
        finished: impl Fn(i64) -> bool + 'a,
    ) -> impl Iterator<Item = (i64, i64, i64)> + 'a {
        self.blocks().filter(move |&(i, _, _)| !finished(i))
    }
}

/// Name of the fast reference used for a function and format.
pub fn reference_name(func: RefFunc, format: CrunchFormat) -> String {
    match format {
        CrunchFormat::Binary32 => format!("{} + MPFR", func.binary32_reference_name()),
        CrunchFormat::Binary64 if func.dd().is_some() => {
            let fast = func.fast_f64().map_or(String::new(), |(_, eps)| {
                format!(
                    "table-driven {} (relative bound 2^{}), then ",
                    func.name(),
                    eps.log2()
                )
            });
            format!(
                "{fast}{} double-double {} (relative bound 2^{}) + MPFR",
                func.dd_origin(),
                func.name(),
                EPS_DD.log2()
            )
        }
        CrunchFormat::Binary64 => format!("MPFR {} per input", func.name()),
    }
}

/// Crunches ordinals `[lo, hi)` (a chunk) of the target, judged in its mode
/// ([`Target::rounding`]).
pub fn crunch_chunk(target: &dyn Target, lo: i64, hi: i64) -> Summary {
    // A target that has failed evaluates nothing more; the run stops after the block.
    if target.failure().is_some() {
        return Summary::default();
    }
    let fmt = target.format();
    let func = target.function();
    let mode = target.rounding();
    let mut summary = Summary::default();
    match fmt {
        CrunchFormat::Binary32 => {
            let xs: Vec<f32> = (lo..hi).map(|o| fmt.from_ordinal(o) as f32).collect();
            let mut out = vec![0f32; xs.len()];
            target.eval(UnaryBatch::Binary32 {
                xs: &xs,
                out: &mut out,
            });
            let mut references = Vec::with_capacity(xs.len());
            func.binary32_references(&xs, &mut references);
            for (i, ((&x, &a), &r)) in xs.iter().zip(&out).zip(&references).enumerate() {
                let (v, mpfr) = verdict_binary32_from(func, x as f64, a as f64, mode, r);
                summary.record(lo + i as i64, v, mpfr);
            }
        }
        CrunchFormat::Binary64 => {
            let xs: Vec<f64> = (lo..hi).map(|o| fmt.from_ordinal(o)).collect();
            let mut out = vec![0f64; xs.len()];
            target.eval(UnaryBatch::Binary64 {
                xs: &xs,
                out: &mut out,
            });
            let saturated = crate::saturation::saturation(func);
            for (i, (&x, &a)) in xs.iter().zip(&out).enumerate() {
                let (v, mpfr) = verdict_binary64(func, &saturated, x, a, mode);
                summary.record(lo + i as i64, v, mpfr);
            }
        }
    }
    summary.prune_near_max();
    summary
}

/// The verdict on a binary32 result `a` (widened) at the binary32 input `x`: the binary64
/// value as the reference ([`RefFunc::binary32_reference`]), then next to 0 the reference anchored
/// at 1 or x where it is tighter ([`RefFunc::anchored`]), MPFR where neither decides; judged
/// in `mode`. Returns whether MPFR was used.
pub fn verdict_binary32(
    func: RefFunc,
    x: f64,
    a: f64,
    mode: Rounding,
) -> (crate::analysis::Verdict, bool) {
    verdict_binary32_from(func, x, a, mode, func.binary32_reference(x))
}

/// [`verdict_binary32`] with the reference `(value, relative bound)` already computed.
pub fn verdict_binary32_from(
    func: RefFunc,
    x: f64,
    a: f64,
    mode: Rounding,
    (hi, eps): (f64, f64),
) -> (crate::analysis::Verdict, bool) {
    let r = Reference::Value { hi, lo: 0.0, eps };
    let anchored = || func.anchored(x, eps);
    classify(func, CrunchFormat::Binary32, x, a, r, anchored, mode)
}

/// The verdict on a binary64 result `a` at `x`: the saturation rules, then the cheap first
/// reference where the function has one ([`RefFunc::fast_f64`]), then the double-double
/// reference where the function has one, then next to 0 the reference anchored at 1 or x
/// where it is tighter ([`RefFunc::anchored`]), MPFR where they do not decide; judged in
/// `mode`. Returns whether MPFR was used.
pub fn verdict_binary64(
    func: RefFunc,
    saturated: &crate::saturation::Saturation,
    x: f64,
    a: f64,
    mode: Rounding,
) -> (crate::analysis::Verdict, bool) {
    if let Some(v) = saturated.judge(func, x, a, mode) {
        return (v, false);
    }
    if let Some((fast, eps)) = func.fast_f64() {
        let (hi, lo) = fast(x);
        if let Some(v) =
            crate::analysis::classify_fast(CrunchFormat::Binary64, a, hi, lo, eps, mode)
        {
            return (v, false);
        }
    }
    let r = match func.dd() {
        Some(f) => {
            let y = f(Dd::from(x));
            Reference::Value {
                hi: y.hi(),
                lo: y.lo(),
                eps: EPS_DD,
            }
        }
        None => Reference::None,
    };
    let anchored = || func.anchored(x, EPS_DD);
    classify(func, CrunchFormat::Binary64, x, a, r, anchored, mode)
}

/// Crunches one block: on the target's device where it analyses there
/// ([`Target::crunch_on_device`]), else its chunks in parallel on the cores, merged in order.
/// A device analyses in round-to-nearest only, so a target of another mode is analysed on the
/// cores whatever it offers.
pub fn crunch_range(target: &dyn Target, lo: i64, hi: i64) -> Summary {
    if target.rounding() == Rounding::Nearest {
        if let Some(summary) = target.crunch_on_device(lo, hi) {
            return summary;
        }
    }
    crunch_range_on_cores(target, lo, hi)
}

/// Crunches ordinals `[lo, hi)` on the cores: chunks in parallel, merged in order.
pub fn crunch_range_on_cores(target: &dyn Target, lo: i64, hi: i64) -> Summary {
    let chunks: Vec<(i64, i64)> = (lo..hi)
        .step_by(CHUNK as usize)
        .map(|c| (c, (c + CHUNK).min(hi)))
        .collect();
    let parts: Vec<Summary> = chunks
        .par_iter()
        .map(|&(a, b)| crunch_chunk(target, a, b))
        .collect();
    let mut total = Summary::default();
    for p in &parts {
        total.merge(p);
    }
    total
}

/// The final result of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub target: String,
    pub function: String,
    pub format: String,
    /// The rounding mode the target ran under and is judged in ([`Target::rounding`]).
    pub rounding: Rounding,
    pub from: String,
    pub to: String,
    pub inputs: u64,
    #[serde(flatten)]
    pub outcome: Outcome<String>,
    pub block_bits: u32,
    /// Set when only this many evenly spaced windows of `2^block_bits` inputs were crunched.
    pub sample_windows: Option<u64>,
    pub blocks: usize,
    pub blocks_resumed: usize,
    pub reference: String,
    pub mpfr_inputs: u64,
    pub seconds: f64,
    pub note: Option<String>,
}

/// The checkpoint header of a run.
pub fn header(target: &dyn Target, plan: &Plan) -> Header {
    let fmt = plan.format;
    Header {
        tmd_crunch_checkpoint: CHECKPOINT_VERSION,
        target: target.name(),
        format: fmt.name().into(),
        rounding: target.rounding(),
        from: plan.bounds_text().0,
        to: plan.bounds_text().1,
        block_bits: plan.block_bits,
        sample_windows: plan.sample_windows,
        reference: reference_name(target.function(), fmt),
    }
}

/// Checks the target against the plan and opens the checkpoint: the writer and the blocks
/// already finished.
type Opened = (Option<CheckpointWriter>, BTreeMap<i64, BlockRecord>);

fn open_run(target: &dyn Target, plan: &Plan) -> Result<Opened, CrunchError> {
    if target.format() != plan.format {
        return Err(InputError::Usage(format!(
            "target {} is a {} function, not {}",
            target.name(),
            target.format().name(),
            plan.format.name()
        ))
        .into());
    }
    let hdr = header(target, plan);
    let (writer, done) = match &plan.checkpoint {
        Some(path) => {
            let (w, blocks) = CheckpointWriter::open(path, &hdr)?;
            (Some(w), blocks)
        }
        None => (None, BTreeMap::new()),
    };
    for rec in done.values() {
        if plan.block(rec.index) != Some((rec.first, rec.end)) {
            return Err(CheckpointError::Bad {
                path: plan.checkpoint.clone().unwrap_or_default(),
                why: format!("block {} covers other inputs than this run's", rec.index),
            }
            .into());
        }
    }
    Ok((writer, done))
}

/// Crunches one block into its record.
pub fn crunch_block(target: &dyn Target, index: i64, lo: i64, hi: i64) -> BlockRecord {
    let t0 = Instant::now();
    let summary = crunch_range(target, lo, hi);
    BlockRecord {
        index,
        first: lo,
        end: hi,
        seconds: t0.elapsed().as_secs_f64(),
        summary,
    }
}

/// A finished run: the report and every block's record (for plots).
pub type Finished = (Report, BTreeMap<i64, BlockRecord>);

/// Runs the plan: every block not already in the checkpoint, then the report (and every
/// block's record, for plots). `progress(done_inputs, total_inputs)` is called after each
/// block.
pub fn run(
    target: &dyn Target,
    plan: &Plan,
    mut progress: impl FnMut(u64, u64),
) -> Result<Finished, CrunchError> {
    let start = Instant::now();
    let (mut writer, mut done) = open_run(target, plan)?;
    let resumed = done.len();
    let total = plan.inputs();
    let mut finished: u64 = done.values().map(|r| (r.end - r.first) as u64).sum();
    progress(finished, total);
    let from_checkpoint: BTreeSet<i64> = done.keys().copied().collect();
    for (index, lo, hi) in plan.remaining(|i| from_checkpoint.contains(&i)) {
        let record = crunch_block(target, index, lo, hi);
        working(target)?;
        if let Some(w) = writer.as_mut() {
            w.append(&record)?;
        }
        finished += (hi - lo) as u64;
        progress(finished, total);
        done.insert(index, record);
    }
    let mut report = report_from_blocks(target, plan, &done);
    working(target)?;
    report.blocks_resumed = resumed;
    report.seconds = start.elapsed().as_secs_f64();
    Ok((report, done))
}

/// The target's failure, if it has stopped working ([`Target::failure`]).
pub fn working(target: &dyn Target) -> Result<(), CrunchError> {
    match target.failure() {
        Some(f) => Err(CrunchError::Target(f)),
        None => Ok(()),
    }
}

/// [`run`] across the ranks of a cluster ([`crate::cluster::deal_out`]): the root opens the
/// checkpoint and shares which blocks are finished; the others are dealt out cyclically; the
/// root appends each finished block to the checkpoint as it arrives, so a dead rank loses only
/// its block in progress and the same command, with any number of ranks, resumes. Returns the
/// report on the root, `None` elsewhere.
pub fn run_cluster(
    target: &dyn Target,
    plan: &Plan,
    cluster: &dyn Cluster,
    mut progress: impl FnMut(u64, u64),
) -> Result<Option<Finished>, CrunchError> {
    let start = Instant::now();
    let root = cluster.rank() == 0;
    let mut opened = None;
    let mut failure = None;
    let root_says = if root {
        match open_run(target, plan) {
            Ok((w, done)) => {
                let indices: Vec<i64> = done.keys().copied().collect();
                opened = Some((w, done));
                Some(serde_json::to_vec(&indices).expect("indices serialise"))
            }
            Err(e) => {
                failure = Some(e);
                None
            }
        }
    } else {
        None
    };
    let Some(payload) = share_from_root(cluster, root_says) else {
        return Err(failure.unwrap_or(CrunchError::OtherRank));
    };
    let finished: BTreeSet<i64> = serde_json::from_slice(&payload).expect("root sent indices");
    let remaining = || plan.remaining(|i| finished.contains(&i));
    let work = |&(index, lo, hi): &(i64, i64, i64)| {
        let record = crunch_block(target, index, lo, hi);
        let dealt = match target.failure() {
            Some(failure) => Dealt::Failed(failure),
            None => Dealt::Block(record),
        };
        serde_json::to_vec(&dealt).expect("record serialises")
    };
    if !root {
        deal_out(cluster, remaining(), work, |_| Ok::<(), CrunchError>(()))?;
        return Ok(None);
    }
    let (mut writer, mut done) = opened.expect("the root opened the run");
    let resumed = done.len();
    let total = plan.inputs();
    let mut finished_inputs: u64 = done.values().map(|r| (r.end - r.first) as u64).sum();
    progress(finished_inputs, total);
    deal_out(cluster, remaining(), work, |bytes| {
        let record = match serde_json::from_slice(&bytes).expect("a rank sent a block record") {
            Dealt::Block(record) => record,
            Dealt::Failed(failure) => return Err(CrunchError::Target(failure)),
        };
        if let Some(w) = writer.as_mut() {
            w.append(&record)?;
        }
        finished_inputs += (record.end - record.first) as u64;
        progress(finished_inputs, total);
        done.insert(record.index, record);
        Ok::<(), CrunchError>(())
    })?;
    let mut report = report_from_blocks(target, plan, &done);
    report.blocks_resumed = resumed;
    report.seconds = start.elapsed().as_secs_f64();
    Ok(Some((report, done)))
}

/// What a rank sends the root for a block: its record, or the failure of the target.
#[derive(Serialize, serde::Deserialize)]
enum Dealt {
    Block(BlockRecord),
    Failed(crate::target::TargetFailure),
}

/// Merges finished blocks (in order) and recomputes the maximum exactly.
pub fn report_from_blocks(
    target: &dyn Target,
    plan: &Plan,
    blocks: &BTreeMap<i64, BlockRecord>,
) -> Report {
    let fmt = plan.format;
    let func = target.function();
    let mode = target.rounding();
    let mut total = Summary::default();
    for rec in blocks.values() {
        total.merge(&rec.summary);
    }
    let max = total.exact_maximum(
        |ordinal| eval_one(target, fmt.from_ordinal(ordinal)),
        |ordinal, &a| classify_exact(func, fmt, fmt.from_ordinal(ordinal), a, mode).err,
    );
    let bound = MaxBound {
        max_verified: !total.near_max_truncated(),
        max_ulp_bound: max.as_ref().map(|&(m, _, _)| {
            if total.near_max_truncated() {
                m + 2.0 * fast_error_tolerance(m)
            } else {
                m
            }
        }),
    };
    let max = max.map(|(err, ordinal, a)| {
        let x = fmt.from_ordinal(ordinal);
        Argmax {
            err,
            x: fmt.hex(x),
            result: fmt.hex(a),
            expected: fmt.hex(crate::analysis::correct_rounding(func, fmt, x, mode)),
        }
    });
    let hdr = header(target, plan);
    Report {
        target: target.name(),
        function: func.name().into(),
        format: fmt.name().into(),
        rounding: mode,
        from: hdr.from,
        to: hdr.to,
        inputs: total.inputs,
        outcome: Outcome::new(&total, max, Some(bound)),
        block_bits: plan.block_bits,
        sample_windows: plan.sample_windows,
        blocks: blocks.len(),
        blocks_resumed: 0,
        reference: hdr.reference,
        mpfr_inputs: total.mpfr_inputs,
        seconds: 0.0,
        note: target.note(),
    }
}

/// The target's result at one input, as f64.
pub fn eval_one(target: &dyn Target, x: f64) -> f64 {
    match target.format() {
        CrunchFormat::Binary32 => {
            let mut out = [0f32];
            target.eval(UnaryBatch::Binary32 {
                xs: &[x as f32],
                out: &mut out,
            });
            out[0] as f64
        }
        CrunchFormat::Binary64 => {
            let mut out = [0f64];
            target.eval(UnaryBatch::Binary64 {
                xs: &[x],
                out: &mut out,
            });
            out[0]
        }
    }
}

/// A projection of a whole run from a sample.
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    pub target: String,
    pub format: String,
    pub inputs: u64,
    pub sample_inputs: u64,
    pub sample_seconds: f64,
    pub inputs_per_second: f64,
    pub projected_seconds: f64,
    pub threads: usize,
    /// Inputs per sample window.
    pub window_inputs: u64,
}

/// Crunches `windows` evenly spaced windows of `window` inputs (fewer when the range is
/// small) and projects the time of the whole range on this machine.
pub fn estimate(target: &dyn Target, plan: &Plan, windows: u64, window: u64) -> Estimate {
    let total = plan.inputs();
    let windows = windows.min(total.div_ceil(window)).max(1);
    let stride = total / windows;
    let starts: Vec<(i64, i64)> = (0..windows)
        .map(|w| {
            let lo = plan.first + (w * stride) as i64;
            (lo, (lo + window as i64).min(plan.end))
        })
        .collect();
    let t0 = Instant::now();
    let sample: u64 = starts
        .par_iter()
        .map(|&(lo, hi)| crunch_range(target, lo, hi).inputs)
        .sum();
    let seconds = t0.elapsed().as_secs_f64();
    let rate = sample as f64 / seconds;
    Estimate {
        target: target.name(),
        format: plan.format.name().into(),
        inputs: total,
        sample_inputs: sample,
        sample_seconds: seconds,
        inputs_per_second: rate,
        projected_seconds: total as f64 / rate,
        threads: rayon::current_num_threads(),
        window_inputs: window,
    }
}

/// [`estimate`] with its windows grown fourfold at a time, up to `max_window`: fixed small
/// windows let the per-call costs of a device dominate the sample (a device that crunches
/// tens of billions of inputs per second in one long call spends most of a 2^20-input
/// window on the call itself, and the projection comes out thousands of times too long), and measure a fast target on the cores for
/// too short a time. One small window first, not timed, compiles and loads whatever the
/// target needs (a run pays that once, not per window). Then the windows grow until the
/// sample covers the range or reaches `max_window`, or takes at least `min_seconds` while
/// the rate no longer rises by a quarter from one size to the next (per-call costs
/// amortised), or until the samples together took [`ESTIMATE_BUDGET_SECONDS`]. The last
/// sample, the one with the largest windows, is the estimate.
pub fn estimate_adaptive(
    target: &dyn Target,
    plan: &Plan,
    windows: u64,
    first_window: u64,
    max_window: u64,
    min_seconds: f64,
) -> Estimate {
    let started = Instant::now();
    crunch_range(target, plan.first, plan.end.min(plan.first + 1024));
    let mut window = first_window.min(max_window);
    let mut previous_rate = 0.0;
    loop {
        let est = estimate(target, plan, windows, window);
        let levelled = est.inputs_per_second < 1.25 * previous_rate;
        if (est.sample_seconds >= min_seconds && levelled)
            || window >= max_window
            || est.sample_inputs >= est.inputs
            || started.elapsed().as_secs_f64() >= ESTIMATE_BUDGET_SECONDS
        {
            return est;
        }
        previous_rate = est.inputs_per_second;
        window = (window * 4).min(max_window);
    }
}

/// The time after which [`estimate_adaptive`] takes the sample it has.
pub const ESTIMATE_BUDGET_SECONDS: f64 = 30.0;
