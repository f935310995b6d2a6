//! The lattice candidate generator: Stehlé, Lefèvre and Zimmermann's method (tmd-lattice)
//! on the intervals of a chunk.
//!
//! The chunk polynomial R (exact, `|F - R| <= E_taylor` over the chunk, [`ChunkModel`]) is
//! re-centred on intervals of 2T + 1 inputs, truncated to degree `degree`, and each interval
//! becomes one small-value problem: every t with |t| <= T and `|Q(t) cmod N| <= V`, where
//! `Q = N R(c + t)` truncated, N the chunk's scale, and V covers the threshold, E_taylor and
//! the truncated terms (docs/error-analysis.md §18). The lattice returns a superset of those
//! t, or fails; a failed interval is halved, and below [`EXACT_BELOW`] inputs R is evaluated
//! exactly at every input. The domains, packets and lower-bound tests of the filter's plan are
//! not used, only its threshold.

use super::generator::{ChunkWork, GenerateError};
use super::model::ChunkModel;
use super::stats::{FilterStats, PhaseCounts};
use rayon::prelude::*;
use rug::ops::{AddAssignRound, Pow};
use rug::{Float, Integer};
use std::sync::atomic::Ordering;
use std::time::Instant;
use tmd_lattice::poly::centred_residue;
use tmd_lattice::slz::{log2_t_limit, small_values, Outcome, SmallValueProblem};

/// Intervals of fewer inputs are searched by exact evaluation of R at each input.
pub const EXACT_BELOW: u64 = 64;

/// Work a sampled interval may do, in inputs evaluated exactly plus lattice problems, before
/// it stops where it has reached: where nearly every input is hard (the inputs of a piece the
/// rule proves all hard, searched input by input), the lattice fails at every width and an
/// interval of 2^30 inputs halves down to exact evaluation of each; the plan times a prefix.
const SAMPLE_INTERVAL_WORK: u64 = 1 << 12;

/// Largest interval half-width T tried (2^40): the roots' search and the lattice entries grow
/// with it.
const T_MAX_LOG2: f64 = 40.0;

/// One interval's lattice: the degree of the polynomial and Coppersmith's parameter (the
/// lattice holds F^i for i <= alpha), so (alpha + 1)(d alpha + 2) / 2 vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatticeShape {
    pub degree: usize,
    pub alpha: u32,
}

impl LatticeShape {
    /// The lattice's dimension.
    pub fn dimension(self) -> usize {
        let (d, a) = (self.degree, self.alpha as usize);
        (a + 1) * (d * a + 2) / 2
    }
}

/// How each chunk's lattice shape is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LatticeParams {
    /// Per chunk, the shape of [`SHAPES`] with the least expected time per input.
    #[default]
    PerChunk,
    /// One shape for every chunk (`--lattice-shape D,A`).
    Fixed(LatticeShape),
}

/// The shapes the per-chunk choice weighs: degree 1 where the function is nearly linear over
/// many inputs, degree 2 with alpha 1 to 3, degree 3 where the quadratic's truncation, not
/// the lattice, limits the interval (large binades, binary128).
pub const SHAPES: [LatticeShape; 6] = [
    LatticeShape {
        degree: 1,
        alpha: 1,
    },
    LatticeShape {
        degree: 2,
        alpha: 1,
    },
    LatticeShape {
        degree: 2,
        alpha: 2,
    },
    LatticeShape {
        degree: 2,
        alpha: 3,
    },
    LatticeShape {
        degree: 3,
        alpha: 2,
    },
    LatticeShape {
        degree: 3,
        alpha: 3,
    },
];

/// Thread time of one lattice interval of `shape` (LLL, the resultant, the roots) at the
/// threshold 2^`log2_eps`, measured on this project's 2-core machine with `--lattice-shape`
/// on exp's binary64 chunks at K = 45 (near 2^-20, 1.5 and 2^8) and binary128 chunks at
/// K = 133 (near 1.5 and 2^8), the larger of each (docs/BENCHMARKS.md, "Lattice shapes"):
/// the entries, so the time, grow with the threshold's bits. Shapes outside [`SHAPES`] get a
/// time by their dimension; it only weighs the choice, never the result.
pub fn interval_seconds(shape: LatticeShape, log2_eps: f64) -> f64 {
    let wide = log2_eps < -80.0;
    let ms = match (shape.degree, shape.alpha, wide) {
        (1, 1, false) => 0.04,
        (1, 1, true) => 0.07,
        (2, 1, false) => 0.14,
        (2, 1, true) => 0.22,
        (2, 2, false) => 1.1,
        (2, 2, true) => 2.3,
        (2, 3, false) => 6.4,
        (2, 3, true) => 12.0,
        (3, 2, false) => 1.0,
        (3, 2, true) => 4.0,
        (3, 3, false) => 12.0,
        (3, 3, true) => 19.0,
        _ => 0.05 * (shape.dimension() as f64).powi(2),
    };
    ms * 1e-3
}

/// Thread time of one filter domain through phase 1 (most domains stop there), same machine:
/// about 1 µs (exp's [1, 1 + 2^-22) at K = 45: 2^15 domains of 2^15 inputs in 0.01-0.02 s on
/// 2 threads; binary128 at K = 133: 2^24 domains of 2^12 inputs in 12-14 s).
pub const FILTER_DOMAIN_SECONDS: f64 = 1e-6;
/// Thread time of one filter domain whose points stay within one turn of the circle (the
/// lower-bound test is one exact step, `lower_bound::short_orbit_distance`), same machine:
/// 41 ns (exp over [-2^-24, -2^-25) at K = 45: 2^30 domains of 2^22 inputs, 44.3 thread-s of
/// phase 1), rounded up. Priced at [`FILTER_DOMAIN_SECONDS`], such chunks went to the lattice,
/// at 81 µs an interval: six times the filter's time over that binade.
pub const ONE_TURN_DOMAIN_SECONDS: f64 = 5e-8;
/// Thread time per input of the filter's exact walk (phase 3 on every input), same machine.
pub const EXACT_WALK_SECONDS: f64 = 5e-9;
/// Thread time per input of the lattice's exact evaluation of R below [`EXACT_BELOW`] inputs
/// (exact integer arithmetic at each input), same machine: 1.06 µs on binary64 exp near 2^8,
/// 0.93 µs on binary128 exp near 1.5 (`--lattice-shape 1,1`, where every interval is too wide
/// for a line and falls to it).
pub const LATTICE_EXACT_INPUT_SECONDS: f64 = 1.1e-6;

/// A chunk's lattice: its shape, the interval half-width T it starts from, and the expected
/// thread time of the chunk.
#[derive(Clone, Copy, Debug)]
pub struct ChunkLattice {
    pub shape: LatticeShape,
    pub half_width: u64,
    pub seconds: f64,
}

/// The lattice for this chunk at the threshold `eps_units`: the fixed shape, or the shape of
/// [`SHAPES`] with the least expected time. A shape's interval half-width is its reach
/// (`log2_t_limit`) or the width where the chunk's next Taylor term reaches the threshold,
/// whichever is less; intervals below [`EXACT_BELOW`] inputs cost an exact walk.
pub fn chunk_lattice(params: LatticeParams, chunk: &ChunkModel, eps_units: f64) -> ChunkLattice {
    let len = chunk.len as f64;
    let eps = eps_units + chunk.approx_error;
    // The chunk polynomial at its centre, once for every shape: its coefficient of degree
    // d + 1 bounds the truncation of a degree-d interval polynomial.
    let (q, scale) = chunk.shifted_scaled(chunk.len / 2);
    let plan = |shape: LatticeShape| {
        let half_width = expected_half_width(shape, &q, scale, eps).max(0.0);
        let width = 2.0 * half_width.floor() + 1.0;
        let seconds = if width < EXACT_BELOW as f64 {
            len * LATTICE_EXACT_INPUT_SECONDS
        } else {
            (len / width).ceil() * interval_seconds(shape, eps.log2())
        };
        ChunkLattice {
            shape,
            half_width: half_width as u64,
            seconds,
        }
    };
    match params {
        LatticeParams::Fixed(shape) => plan(shape),
        LatticeParams::PerChunk => SHAPES
            .into_iter()
            .map(plan)
            .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
            .expect("shapes to choose from"),
    }
}

/// The chunk's lattice when it is expected to cost less than a quarter of the filter's plan
/// on this chunk, by the measured per-interval and per-domain times above: the filter's
/// domains (or its exact walk where the plan has no lower-bound test) against the lattice's
/// intervals ([`chunk_lattice`]). `None` when the filter is the cheaper.
pub fn cheaper_lattice(params: LatticeParams, work: &ChunkWork<'_>) -> Option<ChunkLattice> {
    let len = work.chunk.len as f64;
    let filter = match work.plan.filter {
        Some(_) => {
            let n = work.plan.n;
            let per_domain = if work.chunk.domain_slope(n) * ((n - 1) as f64) < 1.0 {
                ONE_TURN_DOMAIN_SECONDS
            } else {
                FILTER_DOMAIN_SECONDS
            };
            len / n as f64 * per_domain
        }
        None => len * EXACT_WALK_SECONDS,
    };
    lattice_under_a_quarter_of(params, work, filter)
}

/// Wall time of one device call of the filter beyond its kernels (copies, launches, the
/// tables made on the cores, the host's share), measured on an NVIDIA H200 with 16 host
/// threads: the binade [2^-40, 2^-39) of exp at K = 45, 16384 chunks of 2^16 domains each,
/// took 15.6 s (0.95 ms a chunk) where its kernels took microseconds.
pub const DEVICE_CALL_SECONDS: f64 = 1e-3;
/// Wall time of one filter domain on the device, same machine: I0 (exp on [1, 1 + 2^-13) at
/// K = 32), 2^24 domains in one call of 4.3-4.6 ms, about 1 ms of it the call's fixed cost.
pub const DEVICE_DOMAIN_SECONDS: f64 = 2e-10;

/// The chunk's lattice when its thread time spread over the cores is expected to be under a
/// quarter of the chunk's device call ([`DEVICE_CALL_SECONDS`] plus [`DEVICE_DOMAIN_SECONDS`]
/// per domain); `None` when the device is the faster. The lattice's times were measured on a
/// slower machine than the device's host, so the choice leans to the device.
pub fn lattice_beats_device(params: LatticeParams, work: &ChunkWork<'_>) -> Option<ChunkLattice> {
    let device = DEVICE_CALL_SECONDS + work.domains() as f64 * DEVICE_DOMAIN_SECONDS;
    let cores = rayon::current_num_threads() as f64;
    lattice_under_a_quarter_of(params, work, device * cores)
}

/// The chunk's lattice ([`chunk_lattice`]) when its expected thread time is under a quarter
/// of `other_seconds`, the thread time of the other method on the chunk.
fn lattice_under_a_quarter_of(
    params: LatticeParams,
    work: &ChunkWork<'_>,
    other_seconds: f64,
) -> Option<ChunkLattice> {
    let lattice = chunk_lattice(params, work.chunk, work.plan.eps_units);
    (lattice.seconds < other_seconds / 4.0).then_some(lattice)
}

/// The lattice's reach: the largest interval half-width T it is expected to handle at the
/// threshold `eps` (`log2_t_limit`, at most 2^40).
fn reach(shape: LatticeShape, eps: f64) -> f64 {
    log2_t_limit(shape.degree, shape.alpha as usize, eps.log2())
        .clamp(0.0, T_MAX_LOG2)
        .exp2()
}

/// The interval half-width T the lattice of `shape` is expected to use on a chunk whose
/// polynomial at its centre is `q / 2^scale`, at the threshold `eps` (with the chunk's
/// approximation error).
fn expected_half_width(shape: LatticeShape, q: &[Integer], scale: u32, eps: f64) -> f64 {
    let reach = reach(shape, eps);
    let next_term = q
        .get(shape.degree + 1)
        .map(|c| (Float::with_val(64, c) >> scale).to_f64().abs())
        .unwrap_or(0.0);
    if next_term == 0.0 {
        return reach;
    }
    reach.min((eps / next_term).powf(1.0 / (shape.degree + 1) as f64))
}

/// One chunk's candidates by the lattice method with the shape and interval half-width of
/// `lattice` ([`chunk_lattice`]), intervals in parallel on the cores; the
/// statistics count intervals as phase-1 domains (those the lattice failed on as failed) and
/// the inputs evaluated exactly as phase 3.
pub fn lattice_candidates(
    lattice: ChunkLattice,
    work: &ChunkWork<'_>,
) -> Result<(Vec<u64>, FilterStats), GenerateError> {
    let chunk = work.chunk;
    let (eps_units, approx_error) = (work.plan.eps_units, chunk.approx_error);
    let v_full = threshold_scaled(eps_units, approx_error, chunk.scale());
    let ChunkLattice {
        shape, half_width, ..
    } = lattice;
    let width = (2 * half_width + 1).max(EXACT_BELOW);
    let intervals = chunk.len.div_ceil(width);
    let chosen = if work.sampled {
        super::stats::spread(intervals, super::generator::SAMPLE_LATTICE_INTERVALS)
    } else {
        (0..intervals).collect()
    };
    let started = Instant::now();
    let outputs: Vec<(Vec<u64>, FilterStats, u64)> = chosen
        .par_iter()
        .map(|&i| {
            let a = i * width;
            let b = (a + width).min(chunk.len);
            let mut stats = FilterStats::default();
            let mut out = Vec::new();
            let mut budget = if work.sampled {
                SAMPLE_INTERVAL_WORK
            } else {
                u64::MAX
            };
            let reached = search_interval(
                shape,
                chunk,
                &v_full,
                (a, b),
                &mut budget,
                &mut stats,
                &mut out,
            );
            work.progress.fetch_add(reached - a, Ordering::Relaxed);
            (out, stats, reached - a)
        })
        .collect();
    let mut stats = FilterStats::default();
    let covered: u64 = outputs.iter().map(|o| o.2).sum();
    stats.note_sample(covered, chunk.len, started.elapsed());
    let mut candidates = Vec::new();
    for (c, s, _) in outputs {
        candidates.extend(c);
        stats.absorb(&s);
    }
    if candidates.len() as u64 > work.candidate_cap {
        // The chunk is searched again in pieces: its progress is taken back.
        work.progress.fetch_sub(covered, Ordering::Relaxed);
        return Err(GenerateError::TooManyCandidates);
    }
    Ok((candidates, stats))
}

/// `ceil((eps_units + approx_error) · 2^scale)`, the sum rounded up: every hard input x has
/// `|N R(x) - y N| <=` this for an integer y.
fn threshold_scaled(eps_units: f64, approx_error: f64, scale: u32) -> Integer {
    let mut eps = Float::with_val(64, eps_units);
    eps.add_assign_round(approx_error, rug::float::Round::Up);
    let scaled = eps << scale;
    scaled
        .to_integer_round(rug::float::Round::Up)
        .map(|(i, _)| i)
        .expect("a finite threshold")
}

/// The candidates of the inputs `a..b` of the chunk, appended in increasing order, as far
/// as `budget` (inputs evaluated exactly plus lattice problems, taken from it) reaches: the
/// end of the inputs searched, `b` unless the budget ran out.
fn search_interval(
    shape: LatticeShape,
    chunk: &ChunkModel,
    v_full: &Integer,
    (a, b): (u64, u64),
    budget: &mut u64,
    stats: &mut FilterStats,
    out: &mut Vec<u64>,
) -> u64 {
    if b - a < EXACT_BELOW {
        let end = a + (b - a).min(*budget);
        *budget -= end - a;
        let t0 = Instant::now();
        out.extend((a..end).filter(|&x| near_integer(chunk, x, v_full)));
        record(&mut stats.phase3, end - a, false, t0);
        return end;
    }
    if *budget == 0 {
        return a;
    }
    *budget -= 1;
    let centre = a + (b - a) / 2;
    let t_max = (centre - a).max(b - 1 - centre);
    let t0 = Instant::now();
    let outcome = interval_problem(shape.degree, chunk, v_full, centre, t_max)
        .and_then(|problem| small_values(&problem, shape.alpha).ok());
    match outcome {
        Some(Outcome::Candidates(ts)) => {
            record(&mut stats.phase1, b - a, false, t0);
            let offsets = ts.into_iter().map(|t| centre as i64 + t);
            out.extend(
                offsets
                    .filter(|&x| x >= a as i64 && x < b as i64)
                    .map(|x| x as u64),
            );
            b
        }
        _ => {
            record(&mut stats.phase1, b - a, true, t0);
            let mid = a + (b - a) / 2;
            let reached = search_interval(shape, chunk, v_full, (a, mid), budget, stats, out);
            if reached < mid {
                return reached;
            }
            search_interval(shape, chunk, v_full, (mid, b), budget, stats, out)
        }
    }
}

/// The interval's problem: Q = R(centre + t)·2^scale truncated to `degree`, V = the
/// threshold plus the bound of the truncated terms over |t| <= T. `None` when the truncation
/// costs more than the threshold itself (the interval is then split).
fn interval_problem(
    degree: usize,
    chunk: &ChunkModel,
    v_full: &Integer,
    centre: u64,
    t_max: u64,
) -> Option<SmallValueProblem> {
    let (mut q, scale) = chunk.shifted_scaled(centre);
    let t = Integer::from(t_max);
    let truncated: Integer = q
        .iter()
        .enumerate()
        .skip(degree + 1)
        .map(|(k, c)| Integer::from(c.abs_ref()) * Integer::from((&t).pow(k as u32)))
        .sum();
    if truncated > *v_full {
        return None;
    }
    q.truncate(degree + 1);
    let v_max = Integer::from(v_full + &truncated);
    Some(coarsened(q, scale, t_max, v_max))
}

/// The same problem with N = 2^(scale - r): each coefficient divided by 2^r and rounded to
/// nearest, V divided by 2^r (rounded up) plus the rounding's effect, at most
/// `(1/2) sum_k T^k` (docs/error-analysis.md §18.1). r keeps that effect below 2^-10 of V:
/// the chunk's scale serves its highest-degree terms, and after truncation most of its bits
/// only lengthen the lattice's entries.
fn coarsened(q: Vec<Integer>, scale: u32, t_max: u64, v_max: Integer) -> SmallValueProblem {
    let t = Integer::from(t_max);
    let powers_sum: Integer = (0..q.len() as u32)
        .map(|k| Integer::from((&t).pow(k)))
        .sum();
    let spare = v_max.significant_bits() as i64 - 11 - powers_sum.significant_bits() as i64;
    let r = spare.clamp(0, scale as i64) as u32;
    if r == 0 {
        return SmallValueProblem {
            q,
            log2_n: scale,
            t_max,
            v_max,
        };
    }
    let half = Integer::from(1) << (r - 1);
    let q = q
        .into_iter()
        .map(|c| (c + &half) >> r)
        .collect::<Vec<Integer>>();
    let v_scaled = (&v_max + (Integer::from(1) << r) - 1u32) >> r;
    let rounding = Integer::from(&powers_sum + 1) >> 1u32;
    SmallValueProblem {
        q,
        log2_n: scale - r,
        t_max,
        v_max: v_scaled + rounding + 1,
    }
}

/// Whether `N R(x)` is within `v_full` of a multiple of N (exact).
fn near_integer(chunk: &ChunkModel, x: u64, v_full: &Integer) -> bool {
    let (value, scale) = chunk.eval_exact(x);
    centred_residue(&value, scale).abs() <= *v_full
}

fn record(counts: &mut PhaseCounts, inputs: u64, failed: bool, since: Instant) {
    counts.enter(1, inputs);
    if failed {
        counts.fail(1, inputs);
    }
    counts.nanos += since.elapsed().as_nanos() as u64;
}
