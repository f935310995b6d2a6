//! The filtered searches: Lefèvre's and the regular lower-bound filter, and the fast
//! exhaustive search by tabulated differences (Fortin, Gouicem and Graillat, "GPU-Accelerated
//! Generation of Correctly Rounded Elementary Functions", ACM TOMS, 2016, §3-5; "Towards
//! solving the Table Maker's Dilemma on GPU", PDP 2012, §II).
//!
//! # Pipeline
//!
//! 1. **Splitting.** The range is cut where the input quantum changes (binades), then into
//!    chunks of at most [`FilterParams::chunk_len`] inputs; chunks are the jobs, run in
//!    parallel and listed in x order ([`crate::ordered`]).
//! 2. **Whole pieces.** A piece whose results all overflow, or all lie too close to zero to be
//!    near a breakpoint, or which lies beyond the domain, is decided from one interval
//!    enclosure ([`whole`]): per binade piece (halved where an enclosure straddles a
//!    threshold) and again per chunk.
//! 3. **Chunk polynomial** ([`model`]). A Taylor model of f around the chunk centre, proven to
//!    keep the results in one binade of one sign (so one result quantum `u`), of the least
//!    degree whose error is below `eps/8`. A chunk where this fails (result crosses a power of
//!    two or zero, pole, domain edge, too curved) is halved, down to [`MIN_SPLIT`] inputs;
//!    below that its inputs are decided by MPFR one by one, so nothing is ever skipped. A
//!    target with a per-input screen ([`crate::screen`]) is not halved: the screen takes the
//!    chunk, and also every chunk whose domains would hold fewer than [`SCREEN_BELOW_DOMAIN`]
//!    inputs, where it costs less than the filter; MPFR decides what it does not clear.
//! 4. **Domains.** The chunk is cut in domains of N inputs and packets of domains; each packet
//!    starts from exact tables and advances by tabulated differences ([`phases`]).
//! 5. **Phases 1-3** ([`phases`]) produce candidates, a proven superset of the inputs whose
//!    result lies within `2^-K` ulp of a breakpoint (or on a breakpoint). A
//!    [`generator::CandidateGenerator`] runs them on the cores, or on a device through
//!    [`device::PacketDevice`] (OpenCL or CUDA, `tmd-gpu`), with the same arithmetic, so with
//!    the same candidates and statistics.
//! 6. **Verification.** Each candidate is decided by MPFR with the reference search's rules
//!    ([`crate::reference::decide_candidate`]); only verified cases are listed. So the output
//!    equals the reference search's whenever the filter is sound, which the tests check on
//!    random windows.
//!
//! The exhaustive method is the same pipeline with phase 3 on every domain.

pub mod device;
pub mod generator;
pub mod lattice;
pub mod model;
pub mod phases;
pub mod stats;
pub mod whole;

use crate::lower_bound::Algorithm;
use crate::ordered::{continue_if, run_ordered_in_parts};
use crate::range::InputRange;
use crate::reference::{decide_candidate, search_ordinals, Listing};
use crate::regime::RangeRecord;
use crate::screen::{screened_ordinals, Screen};
use crate::{Case, SearchParams, Summary, Target};
use device::PacketDevice;
use generator::{generator_for, CandidateGenerator, ChunkWork, GenerateError};
use model::{add_up, mul_up, up, ChunkModel};
use phases::{fraction128_up, DomainPlan};
use rayon::prelude::*;
use rug::float::Round;
use rug::{Float, Integer};
use stats::FilterStats;
use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use thiserror::Error;
use tmd_core::taylor::{expr_has_model, taylor_model, TaylorModel};
use tmd_core::{Expr, Format};

pub use stats::{Nmdm, PhaseCounts};

/// Chunks that cannot get a polynomial are halved down to this many inputs, then decided by
/// MPFR one by one.
pub const MIN_SPLIT: u64 = 1 << 12;
/// Fewest inputs per packet worth an exact table set-up: below, MPFR per input is cheaper.
/// Measured on binary32 sin at [2^7, 2^7 + 2^3) (2^19 inputs, `--stats`): chunks of degree 7
/// to 11 with domains of one input and packets of at most 1024 inputs took 0.055 s of thread
/// time for their 397,312 inputs, so at most 0.14 ms per packet, set-up included, where MPFR
/// took 10.8 µs per input (0.69 ms for 64); the range took 0.72 s against 2.44 s when every
/// packet had to hold 2^12 inputs.
const MIN_PACKET_INPUTS: u64 = 1 << 6;

/// With a per-input screen, chunks whose domains would hold fewer inputs than this are
/// screened instead: a domain of N inputs costs about one exact table per N inputs, more than
/// the screen's 20 to 50 ns per input once N is small (docs/BENCHMARKS.md, "Whole binary32
/// sin, cos and tan").
pub const SCREEN_BELOW_DOMAIN: u64 = 1 << 4;

/// The largest domain size of a nearly flat chunk (`Context::flat_domain_size`); the cap of
/// `--domain-size` holds for the others.
pub const FLAT_DOMAIN_MAX: u64 = 1 << 22;

/// How many times round the circle a flat chunk's domain may take its points (the regular
/// test's steps grow with the partial quotients past the first; 16 turns keep them few).
pub const FLAT_MAX_TURNS: f64 = 16.0;

/// The most domains per packet (one exact table set-up on the host; a device jumps the tables
/// to each sub-packet, with binomials C(s, k), s < 2^16, that `kernels/filter.cl` holds in 384
/// bits). Larger packets mean fewer set-ups: the host's share of a device search (packets of
/// 2^12 domains made table set-up a third of the host time of a binary32 binade).
pub const MAX_PACKET_DOMAINS: u64 = 1 << 16;

/// The Taylor degree tried for each chunk (the chunk polynomial uses the least degree that
/// suffices, at most this).
pub const TAYLOR_DEGREE: usize = 16;

/// The largest chunk of a nearly flat piece ([`piece_chunk_len`]): 2^40 inputs, the lattice's
/// largest interval, and few enough inputs that a chunk's work stays a small part of a
/// binade's (a journal keeps whole chunks).
pub const FLAT_CHUNK_MAX: u64 = 1 << 40;

/// The highest degree of a nearly flat chunk's polynomial ([`piece_chunk_len`]).
const FLAT_CHUNK_DEGREE: usize = 2;

/// The degree tried first (enough for most chunks, and four times cheaper).
const TAYLOR_DEGREE_FIRST: usize = 7;

/// How candidates are produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Phases 1-3 with this lower-bound test.
    Filter(Algorithm),
    /// Phase 3 on every domain.
    Exhaustive,
    /// The lattice method of Stehlé, Lefèvre and Zimmermann on intervals of each chunk
    /// ([`lattice`]).
    Lattice(lattice::LatticeParams),
    /// Per chunk, the lattice method where the measured cost model expects it to cost less
    /// than a quarter of this filter ([`lattice::cheaper_lattice`]), the filter otherwise
    /// (`--algorithm auto` above binary32 on the cores).
    Cheaper(Algorithm),
}

/// Parameters of the filtered search.
#[derive(Clone, Debug)]
pub struct FilterParams {
    pub method: Method,
    /// Largest domain size N (a power of two, >= 8); chunks use less where the function curves.
    pub domain_size: u64,
    /// Phase-2 split κ (a power of two).
    pub kappa: u64,
    /// Subtractions tried before dividing in the lower-bound tests (0: always divide).
    pub division_threshold: u32,
    /// Largest chunk (inputs per polynomial), a power of two.
    pub chunk_len: u64,
    /// Largest chunk of a nearly flat piece ([`piece_chunk_len`]); at most `chunk_len` keeps
    /// every chunk at `chunk_len`.
    pub flat_chunk_len: u64,
    /// Where phases 1-3 run: None for the CPU cores, else a device (OpenCL or CUDA).
    pub device: Option<Arc<dyn PacketDevice>>,
    /// On a device, phases 2 and 3 in kernels of their own over the compacted failures of the
    /// phase before (Fortin, Gouicem and Graillat, TOMS 2016, §4.3.1) instead of inline in
    /// the phase-1 work-item.
    pub split_phases: bool,
    /// On a device, work-items per work-group (CUDA block); 0 for the runner's default.
    pub work_group: u32,
    /// On a device, domains per work-item: 32, 64 or 128 (`device::DOMAINS_PER_ITEM_CHOICES`).
    pub domains_per_item: u64,
    /// With a device, chunks of fewer domains than this run on the cores instead (same
    /// candidates and counts): a nearly flat chunk of 2^38 inputs has 2^16 domains of 2^22,
    /// too few work-items to fill a GPU, whose call then costs more than the cores' work.
    /// 0: every chunk on the device.
    pub device_min_domains: u64,
    /// On a device, also the NMDM over the lanes of real warps ([`FilterStats::nmdm_warp`]):
    /// one more kernel and copy per device call, so only when asked.
    pub warp_nmdm: bool,
    /// Most candidates a chunk may hold at once; a chunk with more (`x+1`, where every input
    /// is exact or a midpoint) is searched again in pieces, so memory stays bounded.
    pub candidate_cap: u64,
}

/// The default [`FilterParams::candidate_cap`]: 2^22 offsets, 32 MiB.
pub const DEFAULT_CANDIDATE_CAP: u64 = 1 << 22;

impl FilterParams {
    /// Defaults in the spirit of TOMS16: N = 2^15, κ = 8, always divide (fastest on current
    /// CPUs, docs/BENCHMARKS.md), chunks of 2^34 inputs (small enough to checkpoint often).
    pub fn new(method: Method) -> FilterParams {
        FilterParams {
            method,
            domain_size: 1 << 15,
            kappa: 8,
            split_phases: false,
            work_group: 0,
            domains_per_item: device::SUBPACKET_DOMAINS,
            device_min_domains: 0,
            warp_nmdm: false,
            division_threshold: 0,
            chunk_len: 1 << 34,
            flat_chunk_len: 1 << 34,
            device: None,
            candidate_cap: DEFAULT_CANDIDATE_CAP,
        }
    }
}

/// Why a filtered search cannot run.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FilterError {
    #[error("{0}: the filtered searches (--algorithm lefevre, regular, exhaustive) need a Taylor model; use --algorithm reference (MPFR per input), or auto, which picks it")]
    NoModel(String),
    #[error("{0}")]
    Parameter(String),
    /// The device failed during the run (the finished prefix was listed).
    #[error("{0}")]
    Device(String),
}

/// Whether `TMD_TRACE_DEVICE` is set: device searches then print where the time of each chunk
/// went on stderr (planning, tables beside the program's preparation, the device call,
/// verification) and the search's total, as the device runners print their steps. A tuning
/// aid for one-chunk runs such as I0, where the thread-second totals of `--stats` cannot
/// show what waits on what.
fn tracing() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("TMD_TRACE_DEVICE").is_some())
}

/// Checks that a target can use the filtered searches.
pub fn check_target(target: &Target) -> Result<(), FilterError> {
    expr_has_model(&target.expr).map_err(|e| FilterError::NoModel(e.to_string()))
}

/// Searches `range` like [`crate::reference_search`], with the filter: the same cases, in the
/// same order, and the statistics of the phases.
pub fn filtered_search(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    progress: &AtomicU64,
    out: &mut dyn Listing,
) -> Result<(Summary, FilterStats), FilterError> {
    search_or_sample(target, range, params, filter, progress, out, None)
}

/// [`filtered_search`] as the plan samples it (`crate::projection`): each chunk gets its
/// polynomial and domain plan as in the search, but only some of its packets or lattice
/// intervals run ([`generator::SAMPLE_DOMAINS`]), and only some blocks of the inputs it
/// decides one by one ([`SAMPLE_REFERENCE_INPUTS`]). What was skipped is counted in
/// [`FilterStats::unsampled_inputs`], its time extrapolated in
/// [`FilterStats::unsampled_nanos`]; the cases are those of some candidates of the sampled
/// inputs only (at most [`SAMPLE_CANDIDATES`] per chunk are decided). So the
/// cost of timing a chunk is bounded whatever the chunk's domains, and the chunk polynomial
/// and tables weigh in it what they weigh in the search.
///
/// `with_rule`: whether the regime rule and the whole-piece enclosures are asked again on
/// `range`. The plan's pieces are cut where they decide already, as the search cuts its
/// range once, so a window of a piece left to the filter skips them (their Taylor models were
/// 70% of the plan's time where the rule decides nothing, expm1 of x <= -2^7); a window of a
/// piece the rule proves all hard keeps them, to be decided input by input as in the search.
pub fn sampled_filtered_search(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    progress: &AtomicU64,
    out: &mut dyn Listing,
    with_rule: bool,
) -> Result<(Summary, FilterStats), FilterError> {
    search_or_sample(
        target,
        range,
        params,
        filter,
        progress,
        out,
        Some(with_rule),
    )
}

/// The inputs of a piece decided one by one that the plan's sample decides: the first of each
/// of [`SAMPLE_REFERENCE_BLOCKS`] blocks evenly spread over the piece. Per input the screen
/// costs 20-50 ns and MPFR 10 to 100 us (sin of |x| near 2^1000), all inputs of a piece about
/// alike, so 512 inputs time it to a few percent in at most 50 ms of thread time, where sin's
/// binades above 2^20 in binary64 were timed on whole chunks of 2^34 inputs (over 100 s a
/// binade).
pub const SAMPLE_REFERENCE_INPUTS: u64 = 512;
/// Blocks the sampled inputs are spread over (at least one per thread).
pub const SAMPLE_REFERENCE_BLOCKS: u64 = 4;
/// The inputs of a piece the screen decides that the plan's sample decides, in blocks of
/// [`REFERENCE_BLOCK`] evenly spread. The screen clears an input in 20-50 ns and sends a few
/// in a million to MPFR, so 512 inputs took 10-25 us of thread time, less than the sample's
/// own overhead (the thread pool's wake-up: about 30 us), and a binade of binary32 sin was
/// projected at 6 times its run; 2^15 take about 1 ms.
pub const SAMPLE_SCREENED_INPUTS: u64 = 1 << 15;

/// Pieces a chunk without a polynomial is cut into at once in the plan's sample
/// ([`Context::split_or_reference`]).
const SAMPLED_SPLIT: u64 = 16;

/// Inputs per parallel block of a piece decided one by one.
const REFERENCE_BLOCK: u64 = 1024;

fn search_or_sample(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    progress: &AtomicU64,
    out: &mut dyn Listing,
    sample_with_rule: Option<bool>,
) -> Result<(Summary, FilterStats), FilterError> {
    check_target(target)?;
    check_params(filter)?;
    let started = Instant::now();
    let rules = RuleQuery {
        target,
        bits: params.bits,
        kinds: params.breakpoints,
        records: out.accepts_ranges(),
    };
    let chunk_len = |s, e| piece_chunk_len(&target.expr, &range.format, params.bits, filter, s, e);
    let rules = sample_with_rule.unwrap_or(true).then_some(&rules);
    let jobs = ChunkJobs::new(range, filter.chunk_len, &chunk_len, rules);
    let ctx = Context {
        target,
        range,
        params,
        filter,
        progress,
        generator: generator_for(filter),
        device_error: Mutex::new(None),
        screen: Screen::new(target, &range.format, params.bits),
        sampled: sample_with_rule.is_some(),
    };
    let mut total = Summary::default();
    let mut stats = FilterStats::default();
    let mut listing_nanos = 0u64;
    run_ordered_in_parts(
        jobs.len(),
        |j, rest| {
            if let Some(rest) = rest {
                return ctx.run_pieces(rest);
            }
            let (start, len, kind) = jobs.get(j);
            let done = match kind {
                JobKind::Search => {
                    return ctx.run_pieces(VecDeque::from([(Piece::Search(start, len), 1.0)]))
                }
                JobKind::Whole(verdict) => ctx.decided_whole(len, verdict),
                JobKind::NoneHard => ctx.decided_by_rule(len),
                JobKind::EveryInput => ctx.reference(start, len),
                JobKind::Record(i) => ctx.recorded_by_rule(&jobs.records[i]),
            };
            (done, None)
        },
        |result| result.cases.len() as u64,
        |j, result| {
            // After a device error nothing more is listed or reported finished, so a resumed
            // run redoes every chunk from the first that may be incomplete.
            if ctx.failed() {
                return ControlFlow::Break(());
            }
            let t = Instant::now();
            total.absorb(&result.summary);
            stats.absorb(&result.stats);
            result.cases.iter().for_each(|case| out.case(case));
            if let Some(record) = &result.record {
                out.range(record);
            }
            let (start, len, _) = jobs.get(j);
            let through = result.through.unwrap_or(start + len as i128);
            out.finished_through(through, &total);
            listing_nanos += t.elapsed().as_nanos() as u64;
            continue_if(out.wants_more())
        },
    );
    total.elapsed = started.elapsed();
    if tracing() && filter.device.is_some() {
        eprintln!(
            "tmd-trace: search {} us, of which listing the cases {} us",
            total.elapsed.as_micros(),
            listing_nanos / 1000
        );
    }
    if let Some(e) = ctx.device_error.lock().expect("poisoned").take() {
        return Err(FilterError::Device(e));
    }
    Ok((total, stats))
}

/// Checks user-given parameters (one clear message per mistake).
pub fn check_params(f: &FilterParams) -> Result<(), FilterError> {
    let pow2 = |v: u64| v.is_power_of_two();
    if !pow2(f.domain_size) || f.domain_size < 8 || f.domain_size > 1 << 24 {
        return Err(FilterError::Parameter(format!(
            "--domain-size {}: must be a power of two from 8 to 2^24",
            f.domain_size
        )));
    }
    if !pow2(f.kappa) || f.kappa > f.domain_size {
        return Err(FilterError::Parameter(format!(
            "--kappa {}: must be a power of two at most the domain size",
            f.kappa
        )));
    }
    if !pow2(f.chunk_len) || f.chunk_len < MIN_SPLIT || f.chunk_len > 1 << 44 {
        return Err(FilterError::Parameter(format!(
            "chunk length {}: must be a power of two from 2^12 to 2^44",
            f.chunk_len
        )));
    }
    if !device::DOMAINS_PER_ITEM_CHOICES.contains(&f.domains_per_item) {
        return Err(FilterError::Parameter(format!(
            "--domains-per-item {}: expected 32, 64 or 128",
            f.domains_per_item
        )));
    }
    Ok(())
}

/// What the regime rule needs to decide pieces of a range ([`crate::regime`]).
struct RuleQuery<'a> {
    target: &'a Target,
    bits: u32,
    kinds: tmd_core::Breakpoints,
    /// Pieces where every input is hard become one range record each (when the listing takes
    /// them) instead of a line per input.
    records: bool,
}

/// How a job's inputs are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JobKind {
    /// The filter (a chunk polynomial and its lower-bound tests).
    Search,
    /// The regime rule proved that no input is hard: counted, nothing listed.
    NoneHard,
    /// The regime rule proved that every input is hard: each is decided and listed by MPFR,
    /// in jobs of [`EVERY_INPUT_JOB`] inputs, so that memory holds a few such jobs, not a
    /// chunk of 2^34 cases.
    EveryInput,
    /// The regime rule proved that every input is hard, and the listing takes range records:
    /// one job, one record (the index in `ChunkJobs::records`), no MPFR.
    Record(usize),
    /// One enclosure of f decided the whole piece ([`whole`]): one job, counted.
    Whole(whole::WholeVerdict),
}

/// Inputs per job where every input is hard.
const EVERY_INPUT_JOB: u64 = 1 << 16;

/// The jobs of a range: chunks, each inside one input binade (constant quantum), of the
/// length `search_len` gives for their piece (`chunk_len`, or more on a nearly flat piece,
/// [`piece_chunk_len`]); pieces of any length where the regime rule proves that no input is
/// hard ([`crate::regime`]), one job each; and pieces where it proves every input hard, in
/// jobs of [`EVERY_INPUT_JOB`] inputs. Job `j` is computed when asked for, from one entry per
/// piece, so a range of 2^60 inputs costs a few thousand entries, not one per job.
struct ChunkJobs {
    chunk_len: u64,
    /// Per piece: its first ordinal, its end, the index of its first job, its kind, and its
    /// jobs' length (`None`: one job).
    pieces: Vec<(i128, i128, u64, JobKind, Option<u64>)>,
    /// The range records of the `JobKind::Record` pieces.
    records: Vec<RangeRecord>,
    count: u64,
}

impl ChunkJobs {
    fn new(
        range: &InputRange,
        chunk_len: u64,
        search_len: &dyn Fn(i128, i128) -> u64,
        rules: Option<&RuleQuery>,
    ) -> ChunkJobs {
        let half = 1i128 << (range.format.precision() - 1);
        let mut jobs = ChunkJobs {
            chunk_len,
            pieces: Vec::new(),
            records: Vec::new(),
            count: 0,
        };
        let mut o = range.start;
        while o < range.end {
            let end = piece_end(o, half).min(range.end);
            let decided = rules.map_or(Vec::new(), |r| {
                let expr = &r.target.expr;
                crate::regime::decided_pieces(expr, &range.format, o, end, r.bits, r.kinds)
            });
            let mut at = o;
            for piece in decided {
                let kind = match (piece.record(), rules.is_some_and(|r| r.records)) {
                    (Some(record), true) => {
                        jobs.records.push(record);
                        JobKind::Record(jobs.records.len() - 1)
                    }
                    (Some(_), false) => JobKind::EveryInput,
                    (None, _) => JobKind::NoneHard,
                };
                jobs.push_searched(range, search_len, rules, at, piece.start);
                jobs.push(piece.start, piece.end, kind, None);
                at = piece.end;
            }
            jobs.push_searched(range, search_len, rules, at, end);
            o = end;
        }
        jobs
    }

    /// Appends `[start, end)`, left to the filter: the parts one enclosure decides as
    /// [`JobKind::Whole`] pieces, the rest in chunks.
    fn push_searched(
        &mut self,
        range: &InputRange,
        search_len: &dyn Fn(i128, i128) -> u64,
        rules: Option<&RuleQuery>,
        start: i128,
        end: i128,
    ) {
        let Some(r) = rules else {
            return self.push(start, end, JobKind::Search, Some(search_len(start, end)));
        };
        let (format, len) = (&range.format, self.chunk_len);
        for (s, e, verdict) in whole::split_searched(r.target, format, r.bits, start, end, len) {
            match verdict {
                Some(verdict) => self.push(s, e, JobKind::Whole(verdict), None),
                None => self.push(s, e, JobKind::Search, Some(search_len(s, e))),
            }
        }
    }

    /// Appends the piece `[start, end)` (nothing when empty), in jobs of `job_len` inputs
    /// (`None`: one job; every-input pieces always in jobs of [`EVERY_INPUT_JOB`]).
    fn push(&mut self, start: i128, end: i128, kind: JobKind, job_len: Option<u64>) {
        if start >= end {
            return;
        }
        let job_len = match kind {
            JobKind::EveryInput => Some(EVERY_INPUT_JOB),
            _ => job_len,
        };
        self.pieces.push((start, end, self.count, kind, job_len));
        self.count += match job_len {
            Some(len) => ((end - start) as u128).div_ceil(len as u128) as u64,
            None => 1,
        };
    }

    fn len(&self) -> u64 {
        self.count
    }

    /// Job `j`: (first ordinal, length, kind).
    fn get(&self, j: u64) -> (i128, u64, JobKind) {
        let i = self.pieces.partition_point(|p| p.2 <= j) - 1;
        let (start, end, first_job, kind, job_len) = self.pieces[i];
        let Some(job_len) = job_len else {
            return (start, (end - start) as u64, kind);
        };
        let o = start + ((j - first_job) as i128) * job_len as i128;
        (o, ((end - o) as u128).min(job_len as u128) as u64, kind)
    }
}

/// The first ordinal after `o` whose quantum differs from o's: quanta change where |ordinal|
/// crosses k·2^(p-1) for k >= 2 (subnormals and the first binade share the smallest quantum,
/// across zero).
pub(crate) fn piece_end(o: i128, half: i128) -> i128 {
    let u = o.abs();
    if u < 2 * half {
        2 * half
    } else if o > 0 {
        (u / half + 1) * half
    } else {
        -(u / half) * half + 1
    }
}

/// The polynomial of the chunk of inputs `start..start + len` (one input quantum): of the
/// least degree up to `degree` whose error, with the Taylor model's remainder of that degree,
/// is at most eps/8 (the threshold 2^(1-bits) in result units).
fn chunk_polynomial(
    expr: &Expr,
    format: &Format,
    bits: u32,
    start: i128,
    len: u64,
    degree: usize,
) -> Result<ChunkModel, NoPolynomial> {
    let h_exp = input_quantum_exp(format, start);
    let half = len / 2;
    let x0 = format.from_ordinal(start).to_float();
    let mut center = Float::with_val(256, &x0);
    center += Float::with_val(64, Integer::from(half)) << h_exp as i32;
    let radius = Float::with_val(64, half.max(len - 1 - half)) << h_exp as i32;
    let prec = (format.precision() + bits + 64).max(128);
    let eps = eps_units(bits);
    let model =
        taylor_model(expr, &center, &radius, degree, prec).map_err(|_| NoPolynomial::Model)?;
    let qexp = result_quantum(&model, format).ok_or(NoPolynomial::ResultBinade)?;
    (1..=degree)
        .filter_map(|d| ChunkModel::new(&model, d, len, half, h_exp, qexp - 1))
        .find(|c| c.approx_error <= eps / 8.0)
        .ok_or(NoPolynomial::Curvature)
}

/// The threshold 2^(1-K) in units of the result's quantum.
fn eps_units(bits: u32) -> f64 {
    2f64.powi(1 - bits as i32)
}

/// The chunk length on the searched piece `[start, end)` (one input quantum):
/// `filter.chunk_len`, or, where the function is nearly flat, the largest power of two up to
/// `filter.flat_chunk_len` over which a polynomial of degree at most 2 meets the threshold at
/// both ends of the piece (tried from twice `chunk_len` up, so that a piece that curves costs
/// one probe). A chunk costs its polynomial and tables (and on a device a call)
/// whatever its length, and the work of a nearly flat chunk grows with its length only: the
/// filter's domains hold up to [`FLAT_DOMAIN_MAX`] inputs there, and the lattice takes such a
/// chunk in a few intervals. exp on [2^-30, 2^-29) at K = 45 took 36.6 s on 2 cores in chunks
/// of 2^34, 8.2 s in chunks of 2^40 (docs/BENCHMARKS.md). Which chunks a piece has decides
/// only the work, never the cases.
pub fn piece_chunk_len(
    expr: &Expr,
    format: &Format,
    bits: u32,
    filter: &FilterParams,
    start: i128,
    end: i128,
) -> u64 {
    let piece = (end - start).max(1) as u128;
    let most = filter
        .flat_chunk_len
        .min(piece.next_power_of_two().min(1 << 63) as u64);
    let flat_over = |len: u64| {
        let flat_at = |s: i128| {
            let n = (len as i128).min(end - s) as u64;
            chunk_polynomial(expr, format, bits, s, n, FLAT_CHUNK_DEGREE + 1)
                .is_ok_and(|c| c.degree() <= FLAT_CHUNK_DEGREE)
        };
        flat_at(start) && flat_at((end - len as i128).max(start))
    };
    let mut len = filter.chunk_len;
    while len < most && flat_over(2 * len) {
        len *= 2;
    }
    len
}

/// log2 of the input quantum at ordinal o.
fn input_quantum_exp(format: &Format, o: i128) -> i64 {
    let half = 1i128 << (format.precision() - 1);
    let u = o.abs();
    let binade = if u < 2 * half { 0 } else { u / half - 1 };
    format.qexp_min() as i64 + binade as i64
}

struct Context<'a> {
    target: &'a Target,
    range: &'a InputRange,
    params: &'a SearchParams,
    filter: &'a FilterParams,
    progress: &'a AtomicU64,
    generator: Box<dyn CandidateGenerator>,
    /// The first device error; later chunks are skipped.
    device_error: Mutex<Option<String>>,
    /// The per-input screen, where the target has one.
    screen: Option<Screen>,
    /// The plan's sample ([`sampled_filtered_search`]).
    sampled: bool,
}

struct JobResult {
    cases: Vec<Case>,
    /// The range record of a job where the rule proved every input hard.
    record: Option<RangeRecord>,
    summary: Summary,
    stats: FilterStats,
    /// Where a part of a job that goes on stops: every input below is decided and counted.
    /// `None` for the last part (the job's end).
    through: Option<i128>,
}

impl JobResult {
    fn empty() -> JobResult {
        JobResult {
            cases: Vec::new(),
            record: None,
            summary: Summary::default(),
            stats: FilterStats::default(),
            through: None,
        }
    }

    fn append(&mut self, other: JobResult) {
        self.cases.extend(other.cases);
        self.summary.absorb(&other.summary);
        self.stats.absorb(&other.stats);
    }
}

/// Cases one part of a job may gather before it stops and leaves the rest for a later part:
/// 2^16 cases (7 to 25 MiB), so that a chunk where nearly every input is hard (K far below
/// the precision, `x+1 --exact`, the run of hard inputs where exp's subnormal results cross a
/// breakpoint) is listed as it goes instead of held whole.
const JOB_CASES: usize = 1 << 16;

/// Candidates decided per step of a chunk's verification: at most this many cases more than
/// [`JOB_CASES`] in one part.
const VERIFY_BATCH: usize = 1 << 14;

/// What is left of a job that stopped early: its pieces, in input order, each with the
/// inputs it stands for per input of its own (1 in a search; more in the plan's sample, where
/// a piece halved for want of a polynomial goes on with one half only,
/// [`Context::split_or_reference`]).
type Rest = VecDeque<(Piece, f64)>;

/// A piece of a job still to do.
enum Piece {
    /// Inputs `start..start + len`, all of one input quantum, to search.
    Search(i128, u64),
    /// The candidates of a chunk still to decide.
    Verify(Box<Verification>),
}

impl Piece {
    /// The first input not yet counted: everything below is decided.
    fn undecided_from(&self) -> i128 {
        match self {
            Piece::Search(start, _) => *start,
            Piece::Verify(v) => v.counted,
        }
    }
}

/// The candidates of the chunk `start..end` (offsets from `start`, increasing), decided from
/// `next` on; the chunk's inputs from `counted` on are not counted yet.
struct Verification {
    start: i128,
    end: i128,
    candidates: Vec<u64>,
    next: usize,
    counted: i128,
    /// The statistics of the candidates' generation, reported with the first part.
    stats: FilterStats,
    /// In the plan's sample, the verification time not spent per second spent: the
    /// candidates are the sampled packets' only, and at most [`SAMPLE_CANDIDATES`] of them
    /// are decided, so their time is extrapolated to all of them and to the skipped inputs.
    unsampled_share: f64,
}

/// The candidates of a chunk the plan's sample decides (evenly spread over them): where
/// nearly every input is a candidate and hard to decide (J1 of subnormal inputs, each next to
/// x/2 by 2^-2000 of an ulp: MPFR's Ziv loop climbs to thousands of bits), deciding every
/// candidate of a sampled window took minutes.
const SAMPLE_CANDIDATES: usize = 64;

/// What searching one piece gives. Returned once per piece and matched at once, never
/// stored, so its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Outcome {
    Done(JobResult),
    /// Search these pieces (in input order) instead.
    Pieces(Vec<(i128, u64)>),
    /// Decide these candidates.
    Verify(Box<Verification>),
}

/// Why a chunk got no polynomial (it is then halved or decided by MPFR).
#[derive(Debug)]
enum NoPolynomial {
    Model,
    ResultBinade,
    Curvature,
}

impl Context<'_> {
    fn failed(&self) -> bool {
        self.device_error.lock().expect("poisoned").is_some()
    }

    /// Runs the pieces of a job in order, until they are done or hold [`JOB_CASES`] cases;
    /// then returns what is left, to be run as the job's next part.
    fn run_pieces(&self, mut pieces: Rest) -> (JobResult, Option<Rest>) {
        let mut result = JobResult::empty();
        while let Some((piece, stands_for)) = pieces.pop_front() {
            let t = Instant::now();
            let mut step = JobResult::empty();
            match piece {
                Piece::Search(start, len) => match self.search(start, len) {
                    Outcome::Done(r) => step = r,
                    Outcome::Pieces(split) => {
                        // Fewer inputs than the piece's: the plan's sample kept one half.
                        let kept: u64 = split.iter().map(|&(_, l)| l).sum();
                        let scale = stands_for * len as f64 / kept.max(1) as f64;
                        for &(s, l) in split.iter().rev() {
                            pieces.push_front((Piece::Search(s, l), scale));
                        }
                    }
                    Outcome::Verify(v) => pieces.push_front((Piece::Verify(v), stands_for)),
                },
                Piece::Verify(v) => {
                    let (r, left) = self.verify_batch(v);
                    step = r;
                    if let Some(v) = left {
                        pieces.push_front((Piece::Verify(v), stands_for));
                    }
                }
            }
            if stands_for > 1.0 {
                // The pieces the sample left out cost what this one cost, skipped work included.
                let nanos = t.elapsed().as_nanos() as f64 + step.stats.unsampled_nanos as f64;
                step.stats.unsampled_nanos =
                    (nanos * stands_for - t.elapsed().as_nanos() as f64) as u64;
            }
            result.append(step);
            if result.cases.len() >= JOB_CASES {
                if let Some((next, _)) = pieces.front() {
                    result.through = Some(next.undecided_from());
                    return (result, Some(pieces));
                }
            }
        }
        (result, None)
    }

    /// Inputs `start..start + len` (ordinals), all of one input quantum.
    fn search(&self, start: i128, len: u64) -> Outcome {
        if self.failed() {
            return Outcome::Done(JobResult::empty());
        }
        if let Some(result) = self.whole_chunk(start, len) {
            return Outcome::Done(result);
        }
        let t = Instant::now();
        match self.plan_chunk(start, len) {
            Ok((_, plan, _)) if self.screen.is_some() && plan.n < SCREEN_BELOW_DOMAIN => {
                Outcome::Done(self.reference(start, len))
            }
            Ok((chunk, plan, packet_domains)) => {
                let generation = t.elapsed().as_nanos() as u64;
                let mut outcome = self.run_chunk(start, &chunk, &plan, packet_domains);
                if let Outcome::Verify(v) = &mut outcome {
                    if tracing() && self.filter.device.is_some() {
                        eprintln!(
                            "tmd-trace: chunk of {len} inputs: planned in {} us, {} candidates \
                             {} us after it started",
                            generation / 1000,
                            v.candidates.len(),
                            t.elapsed().as_micros()
                        );
                    }
                    v.stats.generation_nanos += generation;
                    v.stats.note_chunk(len, plan.n, chunk.degree() as u64);
                }
                outcome
            }
            Err(_) => self.split_or_reference(start, len),
        }
    }

    /// Halves a chunk without a polynomial, or below [`MIN_SPLIT`] decides it input by input.
    /// In the plan's sample the chunk is cut in [`SAMPLED_SPLIT`] pieces at once (four
    /// halvings) and only one goes on, standing for all ([`Rest`]), a different one at each
    /// depth: timing a chunk that no polynomial serves (sin of |x| >= 2^20, expm1 of
    /// x <= -2^7 in binary64, halved 22 times down to [`MIN_SPLIT`] in the search) costs six
    /// pieces, not 2^23. The search's attempts at the three halvings skipped in between are
    /// left out: they are fewer than the attempts at the next depth, and each costs a Taylor
    /// model (about 3 ms) where a piece of [`MIN_SPLIT`] inputs decided by MPFR costs 40 ms or
    /// more, so the projection misses a few percent.
    fn split_or_reference(&self, start: i128, len: u64) -> Outcome {
        if len <= MIN_SPLIT || self.screen.is_some() {
            return Outcome::Done(self.reference(start, len));
        }
        if self.sampled {
            let piece = (len / SAMPLED_SPLIT).max(MIN_SPLIT);
            let pieces = len.div_ceil(piece);
            // Which piece: stepped by 7 of 16 with the depth, so successive depths sample
            // different places of the chunk.
            let i = (len.ilog2() as u64 * 7) % pieces;
            let s = start + (i * piece) as i128;
            return Outcome::Pieces(vec![(s, piece.min(len - i * piece))]);
        }
        let first = len / 2;
        Outcome::Pieces(vec![(start, first), (start + first as i128, len - first)])
    }

    /// A chunk that one interval enclosure of f decides ([`whole`]: every result overflows,
    /// or is too close to zero to be near a breakpoint, or every input is beyond the domain).
    fn whole_chunk(&self, start: i128, len: u64) -> Option<JobResult> {
        let (format, bits) = (&self.range.format, self.params.bits);
        let verdict = whole::whole_verdict(self.target, format, bits, start, start + len as i128)?;
        Some(self.decided_whole(len, verdict))
    }

    /// Inputs one enclosure decided: counted, nothing listed, no polynomial, no MPFR.
    fn decided_whole(&self, len: u64, verdict: whole::WholeVerdict) -> JobResult {
        self.progress.fetch_add(len, Ordering::Relaxed);
        let mut summary = Summary::of_inputs(len);
        match verdict {
            whole::WholeVerdict::Overflow => summary.overflow = len,
            whole::WholeVerdict::Undefined => summary.undefined = len,
            whole::WholeVerdict::Tiny => {}
        }
        JobResult {
            summary,
            stats: FilterStats {
                whole_chunk_inputs: len,
                ..FilterStats::default()
            },
            ..JobResult::empty()
        }
    }

    /// A piece where the regime rule proved that no input is hard: counted, nothing listed.
    fn decided_by_rule(&self, len: u64) -> JobResult {
        self.progress.fetch_add(len, Ordering::Relaxed);
        JobResult {
            summary: Summary::of_inputs(len),
            stats: FilterStats {
                rule_inputs: len,
                ..FilterStats::default()
            },
            ..JobResult::empty()
        }
    }

    /// A piece where the regime rule proved that every input is hard: counted as hard, listed
    /// as one range record.
    fn recorded_by_rule(&self, record: &RangeRecord) -> JobResult {
        let len = record.inputs();
        self.progress.fetch_add(len, Ordering::Relaxed);
        let mut summary = Summary::of_inputs(len);
        summary.hard = len;
        JobResult {
            record: Some(record.clone()),
            summary,
            stats: FilterStats {
                rule_inputs: len,
                ..FilterStats::default()
            },
            ..JobResult::empty()
        }
    }

    /// Every input one by one: the screen where the target has one, MPFR for the rest.
    fn reference(&self, start: i128, len: u64) -> JobResult {
        let t = Instant::now();
        let offset = (start - self.range.start) as u128;
        let blocks = len.div_ceil(REFERENCE_BLOCK);
        let (chosen, most) = if self.sampled {
            let threads = rayon::current_num_threads() as u64;
            let (inputs, spread_over) = match self.screen {
                Some(_) => (
                    SAMPLE_SCREENED_INPUTS,
                    SAMPLE_SCREENED_INPUTS / REFERENCE_BLOCK,
                ),
                None => (SAMPLE_REFERENCE_INPUTS, SAMPLE_REFERENCE_BLOCKS),
            };
            let chosen = stats::spread(blocks, spread_over.max(threads));
            let share = inputs.div_ceil(chosen.len() as u64);
            (chosen, share)
        } else {
            ((0..blocks).collect(), REFERENCE_BLOCK)
        };
        let block_inputs = |b: u64| most.min(len - b * REFERENCE_BLOCK);
        let covered: u64 = chosen.iter().map(|&b| block_inputs(b)).sum();
        let blocks: Vec<(Vec<Case>, Summary, u64)> = chosen
            .into_par_iter()
            .map(|b| {
                let first = offset + b as u128 * REFERENCE_BLOCK as u128;
                let last = first + block_inputs(b) as u128;
                let r = match &self.screen {
                    Some(screen) => {
                        let (target, range) = (self.target, self.range);
                        screened_ordinals(screen, target, range, self.params, first, last)
                    }
                    None => {
                        let (cases, summary) =
                            search_ordinals(self.target, self.range, self.params, first, last);
                        (cases, summary, 0)
                    }
                };
                self.progress.fetch_add(r.1.inputs, Ordering::Relaxed);
                r
            })
            .collect();
        let mut result = JobResult {
            stats: FilterStats {
                reference_inputs: covered,
                ..FilterStats::default()
            },
            ..JobResult::empty()
        };
        for (cases, summary, cleared) in blocks {
            result.cases.extend(cases);
            result.summary.absorb(&summary);
            result.stats.screened_inputs += cleared;
        }
        result.stats.verification_nanos += t.elapsed().as_nanos() as u64;
        result.stats.note_sample(covered, len, t.elapsed());
        result
    }

    /// The search threshold in result units: the unit is always half an ulp, whatever the
    /// breakpoint kinds, so that format numbers and midpoints are all integers. Searching one
    /// kind only on its own grid would miss exact results on the other grid (exp2(-8) = 2^-8
    /// is exact, and listed as such, in a nearest-only binary32 search); the
    /// extra candidates near the other kind are rejected by the MPFR decision.
    fn eps_units(&self) -> f64 {
        eps_units(self.params.bits)
    }

    /// The chunk polynomial, the domain plan and the packet size, or why there is none.
    fn plan_chunk(
        &self,
        start: i128,
        len: u64,
    ) -> Result<(ChunkModel, DomainPlan, u64), NoPolynomial> {
        let (format, eps) = (&self.range.format, self.eps_units());
        // A low degree first: models cost O(degree^2) per node, and most chunks need few terms.
        let expr = &self.target.expr;
        let bits = self.params.bits;
        let chunk = match chunk_polynomial(expr, format, bits, start, len, TAYLOR_DEGREE_FIRST) {
            Err(NoPolynomial::Curvature) => {
                chunk_polynomial(expr, format, bits, start, len, TAYLOR_DEGREE)?
            }
            first => first?,
        };
        let (n, filter) = self.domain_size(&chunk, eps, len);
        let (packet_domains, table_error) = packet_size(&chunk, n, eps, len);
        if packet_domains * n < MIN_PACKET_INPUTS && len >= MIN_PACKET_INPUTS {
            // Exact table set-up would cost more than MPFR on so few points (MIN_PACKET_INPUTS).
            return Err(NoPolynomial::Curvature);
        }
        let common_error = (chunk.approx_error + rho(&chunk, n) + table_error) * (1.0 + 1e-9);
        let plan = DomainPlan {
            n,
            kappa: self.filter.kappa.min(n),
            filter,
            division_threshold: self.filter.division_threshold,
            eps_units: eps,
            common_error,
            threshold3: fraction128_up(eps + common_error),
        };
        Ok((chunk, plan, packet_domains))
    }

    /// N and whether to filter: the largest power of two N <= the maximum with a small
    /// degree-3 remainder ρ(N) <= eps/4 and |r_2| <= 1/4 (so its sign is readable), and, to
    /// filter, B_2·N^3 <= 1/8 (then the chord error of phase 1 keeps most domains passing:
    /// a domain fails with probability about 2N·B_2·N^2/16). Otherwise phase 3 everywhere.
    fn domain_size(&self, chunk: &ChunkModel, eps: f64, len: u64) -> (u64, Option<Algorithm>) {
        let b2 = chunk.diff_bound(2);
        let fits = |n: u64| b2 <= 0.25 && rho(chunk, n) <= eps / 4.0;
        let filterable = |n: u64| fits(n) && b2 * (n as f64).powi(3) <= 0.125;
        let cap = self.filter.domain_size.min(len.next_power_of_two());
        if let Some(algorithm) = self.generator.lower_bound() {
            if let Some(n) = self.flat_domain_size(chunk, cap, len, &filterable) {
                return (n, Some(algorithm));
            }
            let mut n = cap;
            while n >= 8 {
                if filterable(n) {
                    return (n, Some(algorithm));
                }
                n /= 2;
            }
        }
        let mut n = cap.min(1 << 12);
        while n >= 4 {
            if fits(n) {
                return (n, None);
            }
            n /= 2;
        }
        (1, None)
    }

    /// Domains larger than the cap for a nearly flat chunk (exp next to 1, sin next to 0):
    /// among the powers of two N from the cap to [`FLAT_DOMAIN_MAX`] where the phase-1 slope
    /// of every domain, at most `B_1 + B_2·N/2`, takes its N points fewer than
    /// [`FLAT_MAX_TURNS`] times round the circle (within one turn each test is the exact
    /// one-step distance of `lower_bound::short_orbit_distance`; a few turns cost the
    /// regular test a few steps), the one of least [`flat_cost`], among the sizes
    /// `filterable` allows (the conditions of any N). `None` when that is the cap itself. The
    /// error terms are the same as for any N (docs/error-analysis.md §4.5); only the cap on N
    /// was the filter's habit.
    fn flat_domain_size(
        &self,
        chunk: &ChunkModel,
        cap: u64,
        len: u64,
        filterable: &dyn Fn(u64) -> bool,
    ) -> Option<u64> {
        let (b1, b2) = (chunk.diff_bound(1), chunk.diff_bound(2));
        let base = self.eps_units() + chunk.approx_error;
        let cost = |n: u64| flat_cost(n, self.filter.kappa, chunk.domain_slope(n), b2, base);
        // Only chunks flat enough for fewer than FLAT_MAX_TURNS turns at twice the cap: the
        // others keep the cap. One turn here kept exp's negative binades next to 0, whose
        // results lie in [1/2, 1) with half the quantum of [1, 2), at twice their positive
        // twins' slope: [-2^-16, -2^-17) took 2 turns at 2^16, kept domains of 2^15 where
        // [2^-17, 2^-16) took 2^19, and ran 12 times slower (13.8 s against 1.1 s on 2^43
        // inputs, the same case; docs/BENCHMARKS.md, "Plans").
        if (b1 + b2 * cap as f64) * ((2 * cap - 1) as f64) >= FLAT_MAX_TURNS {
            return None;
        }
        let mut best = (cost(cap), cap);
        let mut n = cap * 2;
        while n <= FLAT_DOMAIN_MAX.min(len.next_power_of_two()) {
            let turns = chunk.domain_slope(n) * ((n - 1) as f64);
            if filterable(n) && turns < FLAT_MAX_TURNS {
                let c = cost(n);
                if c < best.0 {
                    best = (c, n);
                }
            }
            n *= 2;
        }
        (best.1 > cap).then_some(best.1)
    }

    /// Generates the candidates of a chunk (on the cores, or on the device), to be verified
    /// with MPFR; pieces when the chunk has more candidates than the cap
    /// ([`Context::in_pieces`]).
    fn run_chunk(
        &self,
        start: i128,
        chunk: &ChunkModel,
        plan: &DomainPlan,
        packet_domains: u64,
    ) -> Outcome {
        let work = ChunkWork {
            chunk,
            plan,
            packet_domains,
            progress: self.progress,
            candidate_cap: self.filter.candidate_cap,
            sampled: self.sampled,
        };
        match self.generator.candidates(&work) {
            Ok((mut candidates, mut stats)) => {
                stats.candidates = candidates.len() as u64;
                let covered = chunk.len - stats.unsampled_inputs;
                let inputs_share = stats.unsampled_inputs as f64 / covered.max(1) as f64;
                let mut candidates_share = 1.0;
                if self.sampled && candidates.len() > SAMPLE_CANDIDATES {
                    candidates_share = candidates.len() as f64 / SAMPLE_CANDIDATES as f64;
                    let chosen = stats::spread(candidates.len() as u64, SAMPLE_CANDIDATES as u64);
                    candidates = chosen.iter().map(|&i| candidates[i as usize]).collect();
                }
                Outcome::Verify(Box::new(Verification {
                    start,
                    end: start + chunk.len as i128,
                    candidates,
                    next: 0,
                    counted: start,
                    unsampled_share: candidates_share * (1.0 + inputs_share) - 1.0,
                    stats,
                }))
            }
            Err(GenerateError::TooManyCandidates) => self.in_pieces(start, chunk.len),
            Err(GenerateError::Device(e)) => {
                let mut slot = self.device_error.lock().expect("poisoned");
                slot.get_or_insert(e);
                Outcome::Done(JobResult::empty())
            }
        }
    }

    /// Inputs `start..start + len` as eight pieces searched in turn, so that at most one cap
    /// of candidates is held at a time (pieces of [`MIN_SPLIT`] inputs by MPFR per input).
    fn in_pieces(&self, start: i128, len: u64) -> Outcome {
        if len <= MIN_SPLIT {
            return Outcome::Done(self.reference(start, len));
        }
        let piece = (len / 8).max(MIN_SPLIT);
        let pieces = (0..len.div_ceil(piece))
            .map(|i| (start + (i * piece) as i128, piece.min(len - i * piece)))
            .collect();
        Outcome::Pieces(pieces)
    }

    /// MPFR decides the next [`VERIFY_BATCH`] candidates of a chunk, in slices, so that only
    /// the cases (and one count per slice) outlive the decisions; returns them, counted with
    /// the inputs below the next candidate (the chunk's end after the last), and what is left.
    fn verify_batch(&self, mut v: Box<Verification>) -> (JobResult, Option<Box<Verification>>) {
        let t = Instant::now();
        let format = &self.range.format;
        let (start, next) = (v.start, v.next);
        let batch = &v.candidates[next..(next + VERIFY_BATCH).min(v.candidates.len())];
        v.next += batch.len();
        let through = match v.candidates.get(v.next) {
            Some(&off) => start + off as i128,
            None => v.end,
        };
        // Slices small enough to spread a few hundred candidates over every thread.
        let slice = (batch.len() / (4 * rayon::current_num_threads())).clamp(1, VERIFY_SLICE);
        let decided: Vec<(Vec<Case>, Summary)> = batch
            .par_chunks(slice)
            .map(|slice| {
                let mut s = Summary::default();
                let cases = slice
                    .iter()
                    .filter_map(|&off| {
                        let x = format.from_ordinal(start + off as i128);
                        decide_candidate(self.target, format, self.params, x, &mut s)
                    })
                    .collect();
                (cases, s)
            })
            .collect();
        let mut summary = Summary::of_inputs((through - v.counted) as u64);
        v.counted = through;
        let mut cases = Vec::new();
        for (slice_cases, s) in decided {
            summary.absorb(&s);
            cases.extend(slice_cases);
        }
        let mut stats = std::mem::take(&mut v.stats);
        stats.verification_nanos += t.elapsed().as_nanos() as u64;
        stats.unsampled_nanos += (t.elapsed().as_nanos() as f64 * v.unsampled_share) as u64;
        let result = JobResult {
            cases,
            summary,
            stats,
            ..JobResult::empty()
        };
        let left = (v.next < v.candidates.len()).then_some(v);
        (result, left)
    }
}

/// The time per input, in units of one phase-3 step (about 1.2 ns on the CPU), of searching a
/// nearly flat chunk with domains of N inputs: a phase-1 test per domain (about 12 steps
/// within one turn, 20 past it), and per crossing of a breakpoint (`slope` per input) the
/// phase-2 tests of a domain that fails
/// (probability `2·eps_1(N)/slope` at most: some input must land within `eps_1` of the
/// breakpoint) and phase 3 on the subdomain that fails in turn. `eps_1` as in `affine_eps64`:
/// `base` (the threshold and the polynomial's error) plus the 64-bit truncation `N·2^-64`
/// and the chord term `B_2·((N-1)^2/16 + 1)` rounded up to `2^-64`.
fn flat_cost(n: u64, kappa: u64, slope: f64, b2: f64, base: f64) -> f64 {
    // A test within one turn is one exact step; past it, the regular test's few divisions.
    const ONE_TURN_TEST: f64 = 12.0;
    let test_steps = if slope * ((n - 1) as f64) < 1.0 {
        ONE_TURN_TEST
    } else {
        20.0
    };
    let eps1 = |m: u64| {
        let chord = ((m - 1) as f64).powi(2) / 16.0 + 1.0;
        base + (m as f64 + 1.0) * 2f64.powi(-64) + b2 * chord
    };
    let fails = |m: u64| (2.0 * eps1(m) / slope.max(f64::MIN_POSITIVE)).min(1.0);
    let sub = (n / kappa).max(1);
    let per_crossing = fails(n) * (kappa as f64 * ONE_TURN_TEST + fails(sub) * sub as f64);
    test_steps / n as f64 + slope * per_crossing
}

/// Most candidates per parallel slice of the MPFR verification.
const VERIFY_SLICE: usize = 256;

/// ρ(N) = Σ_{j=3..δ} B_j·binom(N - 1, j): the terms of R(x + iN) = Σ r_j(i) binom(x, j)
/// that P_i leaves out, over 0 <= x < N.
fn rho(chunk: &ChunkModel, n: u64) -> f64 {
    (3..=chunk.degree())
        .map(|j| chunk.diff_bound(j) * binomial_up(n.saturating_sub(1), j as u64))
        .sum::<f64>()
        * (1.0 + 1e-9)
}

/// An upper bound of binom(n, k) as f64 (0 when k > n).
fn binomial_up(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64) * (1.0 + 1e-12 * k as f64)
}

/// The packet size (domains per exact table set-up) and the resulting tabulation error bound:
/// after s < M steps the value of r_j carries at most 2^-128·Σ_{l<=δ-j} binom(s, l) of the
/// initial roundings (each in [0, 2^-128)), and r_j multiplies binom(x, j) <= binom(N - 1, j).
/// The largest M <= [`MAX_PACKET_DOMAINS`] (and leaving at least 8 packets when the chunk
/// allows) with an error at most eps/16.
fn packet_size(chunk: &ChunkModel, n: u64, eps: f64, len: u64) -> (u64, f64) {
    let domains = len.div_ceil(n);
    let error = |m: u64| -> f64 {
        let delta = chunk.degree() as u64;
        (0..=2u64.min(delta))
            .map(|j| {
                let a: f64 = (0..=delta - j).map(|l| binomial_up(m - 1, l)).sum();
                a * binomial_up(n - 1, j).max(if j == 0 { 1.0 } else { 0.0 })
            })
            .sum::<f64>()
            * 2f64.powi(-128)
            * (1.0 + 1e-9)
    };
    let mut m = MAX_PACKET_DOMAINS.min((domains / 8).max(1).next_power_of_two());
    while m > 1 && error(m) > eps / 16.0 {
        m /= 2;
    }
    (m, error(m))
}

/// The result quantum exponent when every result over the model's interval lies in one binade
/// of one sign below the overflow threshold: `f ∈ m_0 ± (Σ_{k>=1} |m_k| r^k + E)`.
fn result_quantum(model: &TaylorModel, format: &Format) -> Option<i64> {
    let mut spread = model.error_bound();
    let mut power = up(model.radius());
    for m in &model.coefficients()[1..] {
        spread = add_up(&spread, &mul_up(&up(m.abs_ref()), &power));
        power = mul_up(&power, model.radius());
    }
    let m0 = &model.coefficients()[0];
    let prec = model.prec().max(m0.prec());
    let lo = Float::with_val_round(prec, m0 - &spread, Round::Down).0;
    let hi = Float::with_val_round(prec, m0 + &spread, Round::Up).0;
    let (small, large) = if lo > 0 {
        (lo, hi)
    } else if hi < 0 {
        (-hi, -lo)
    } else {
        return None;
    };
    let overflow = Float::with_val(2, 1) << (format.emax() + 1);
    if large >= overflow {
        return None;
    }
    let q_small = format.qexp_of_binade(small.get_exp()? as i64);
    let q_large = format.qexp_of_binade(large.get_exp()? as i64);
    (q_small == q_large).then_some(q_small)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_follow_quanta() {
        let f = Format::binary16();
        let half = 1i128 << 10;
        // Across zero the quantum is the subnormal one up to the end of the first binade.
        assert_eq!(piece_end(-5, half), 2 * half);
        assert_eq!(piece_end(2 * half, half), 3 * half);
        assert_eq!(piece_end(-3 * half - 7, half), -3 * half + 1);
        assert_eq!(input_quantum_exp(&f, 0), f.qexp_min() as i64);
        assert_eq!(input_quantum_exp(&f, 2 * half), f.qexp_min() as i64 + 1);
        assert_eq!(input_quantum_exp(&f, -(3 * half)), f.qexp_min() as i64 + 2);
        // The quantum is constant inside each piece and changes at its end.
        for o in [
            -5000i128, -3000, -2049, -2048, -1, 0, 2047, 2048, 3071, 3072, 9000,
        ] {
            let end = piece_end(o, half);
            let q = input_quantum_exp(&f, o);
            assert_eq!(input_quantum_exp(&f, end - 1), q, "o = {o}");
            assert_ne!(input_quantum_exp(&f, end), q, "o = {o}");
            let x = f.from_ordinal(o);
            if x.mant != 0 {
                assert_eq!(x.qexp as i64, q, "o = {o}");
            }
        }
    }

    #[test]
    fn chunk_jobs_tile_the_range_by_binade_and_chunk() {
        let f = Format::binary16();
        for (start, end, chunk_len) in [
            (-5000i128, 9000i128, 256u64),
            (-3, 5, 4096),
            (3000, 3073, 16),
        ] {
            let range = InputRange {
                format: f.clone(),
                start,
                end,
            };
            let jobs = ChunkJobs::new(&range, chunk_len, &|_, _| chunk_len, None);
            let half = 1i128 << (f.precision() - 1);
            let mut o = start;
            for j in 0..jobs.len() {
                let (first, len, _) = jobs.get(j);
                assert_eq!(first, o, "job {j} starts where the one before ends");
                assert!(len > 0 && len <= chunk_len);
                let piece = piece_end(first, half);
                assert!(
                    first + len as i128 <= piece.min(end),
                    "job {j} crosses a binade"
                );
                assert!(
                    len == chunk_len || first + len as i128 == piece.min(end),
                    "job {j} is short inside a binade"
                );
                o = first + len as i128;
            }
            assert_eq!(o, end);
        }
    }

    #[test]
    fn binomial_bounds() {
        assert!(binomial_up(10, 3) >= 120.0);
        assert_eq!(binomial_up(2, 3), 0.0);
        assert!(binomial_up(4095, 7) > 1e20);
    }
}
