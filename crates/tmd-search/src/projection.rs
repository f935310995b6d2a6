//! What a search will do and how long it will take, before it runs (`tmd search --plan`).
//!
//! A range that spans binades, signs, zero and the edges of the function's regimes costs very
//! different amounts per input in each part: a binade the regime rule decides costs nothing
//! ([`crate::regime`]), one the filter searches costs what its polynomial degree and domain
//! size make it cost. So the projection is made per piece: the range is cut where the input
//! quantum changes (the filter's own binade pieces), each piece is split where the rule
//! decides, and each piece left to the filter is timed on short samples (at its start and end,
//! and its middle where those disagree) with the backend the search would use, then projected
//! linearly to its length. A sample never enumerates a chunk: it walks a bounded part of it
//! and extrapolates the rest ([`crate::filter::sampled_filtered_search`]).

use crate::filter::whole::{split_searched, WholeVerdict};
use crate::filter::{
    piece_chunk_len, piece_end, sampled_filtered_search, FilterError, FilterParams,
};
use crate::regime::{decided_pieces, Regime};
use crate::{InputRange, SearchParams, Target};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// How a piece is handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceMethod {
    /// The regime rule proves that no input is hard: counted, nothing listed.
    RuleNoneHard,
    /// The regime rule proves that every input is hard: listed input by input (with
    /// `--expand-ranges`), each decided by MPFR.
    RuleAllHard,
    /// The regime rule proves that every input is hard: one range record, nothing searched.
    RuleRecord,
    /// One interval enclosure decides the whole piece (overflow, results too close to zero,
    /// outside the domain): counted, nothing searched.
    Whole(WholeVerdict),
    /// Searched by the filter.
    Filter,
    /// Searched by the filter, whose timed samples went mostly through the per-input screen
    /// (no chunk polynomial served: `crate::screen`).
    Screen,
}

impl PieceMethod {
    /// The name `--plan` prints.
    pub fn name(self) -> &'static str {
        match self {
            PieceMethod::RuleNoneHard => "rule: none hard",
            PieceMethod::RuleAllHard => "rule: all hard, listed",
            PieceMethod::RuleRecord => "rule: all hard, record",
            PieceMethod::Whole(v) => v.name(),
            PieceMethod::Filter => "filter",
            PieceMethod::Screen => "screen per input",
        }
    }
}

/// One piece of the plan: ordinals `[start, end)`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedPiece {
    pub start: i128,
    pub end: i128,
    pub method: PieceMethod,
    /// Inputs of the timed samples (0 for a piece the rule skips), the skipped parts of their
    /// chunks included.
    pub sample_inputs: u64,
    /// The samples' time: measured, plus the skipped parts of their chunks extrapolated.
    pub sample_seconds: f64,
    /// The work the samples ran: filter domains through phase 1, domains and inputs walked
    /// exactly, lattice intervals, and inputs decided one by one. Bounded per sample whatever
    /// the chunk ([`crate::filter::sampled_filtered_search`]).
    pub sample_work: u64,
    /// The piece's projected time on the plan's backend (all threads), in seconds.
    pub projected_seconds: f64,
    /// Least and largest polynomial degree and domain size the samples used.
    pub degrees: Option<(u64, u64)>,
    pub domain_sizes: Option<(u64, u64)>,
}

/// The pieces of `range`, each with its method and projected time. Each filtered piece is timed
/// at two or three places on windows of one chunk (the search's own job, [`piece_chunk_len`], so that
/// the chunk polynomial and its tables weigh what they weigh in the search), or the whole
/// piece where that is less, doubled while cheap;
/// `records`: pieces the rule proves all hard are range records (else listed input by input).
pub fn project(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    records: bool,
) -> Result<Vec<PlannedPiece>, FilterError> {
    let never = AtomicBool::new(false);
    let pieces = project_unless(target, range, params, filter, records, &never)?;
    Ok(pieces.expect("never stopped"))
}

/// [`project`], given up (`None`) as soon as `stop` is set: the progress line plans a running
/// search in the background and must not keep it waiting when it ends first.
pub fn project_unless(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    records: bool,
    stop: &AtomicBool,
) -> Result<Option<Vec<PlannedPiece>>, FilterError> {
    let half = 1i128 << (range.format.precision() - 1);
    let cut = Instant::now();
    let mut binades = Vec::new();
    let mut o = range.start;
    while o < range.end {
        let end = piece_end(o, half).min(range.end);
        binades.push((o, end));
        o = end;
    }
    // The rule's pieces of each binade, binades side by side: its models are most of the cut
    // (zeta's 4,400 pieces: 20 s on one thread).
    let decided: Vec<_> = binades
        .par_iter()
        .map(|&(o, end)| {
            let pieces = decided_pieces(
                &target.expr,
                &range.format,
                o,
                end,
                params.bits,
                params.breakpoints,
            );
            (o, end, pieces)
        })
        .collect();
    let mut pieces = Vec::new();
    for (o, end, decided) in decided {
        let mut at = o;
        for d in decided {
            push_searched(&mut pieces, target, range, params, filter, at, d.start);
            let method = match d.regime {
                Regime::NoneHard { .. } => PieceMethod::RuleNoneHard,
                _ if records => PieceMethod::RuleRecord,
                _ => PieceMethod::RuleAllHard,
            };
            pieces.push((d.start, d.end, method));
            at = d.end;
        }
        push_searched(&mut pieces, target, range, params, filter, at, end);
    }
    // Pieces one after the other, each sample on every thread: the timing is the backend's.
    if trace_plan() {
        eprintln!(
            "tmd-trace-plan: cut {} pieces in {:.3} s",
            pieces.len(),
            cut.elapsed().as_secs_f64()
        );
    }
    let part_of = |part, method| PartTiming::new(target, range, params, filter, part, method, stop);
    let mut timed = Vec::with_capacity(pieces.len());
    for (start, end, method) in pieces {
        let t = Instant::now();
        let parts = time_piece(&part_of, range, (start, end), method)?;
        if trace_plan() && t.elapsed().as_secs_f64() > 0.05 {
            let piece = assemble(start, end, method, &parts);
            eprintln!(
                "tmd-trace-plan: {} {:?} {:.3} s, {} sample inputs, {} sample work, projected {:.1} s, deg {:?} dom {:?}",
                range.format.from_ordinal(start).to_hex(),
                piece.method,
                t.elapsed().as_secs_f64(),
                piece.sample_inputs,
                piece.sample_work,
                piece.projected_seconds,
                piece.degrees,
                piece.domain_sizes
            );
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        timed.push((start, end, method, parts));
    }
    spread_costliest(&mut timed, stop)?;
    if stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    let planned = timed
        .iter()
        .map(|(start, end, method, parts)| assemble(*start, *end, *method, parts))
        .collect();
    Ok(Some(planned))
}

/// Whether `TMD_TRACE_PLAN` is set: the plan then prints on stderr how long cutting the range
/// took and each piece whose timing took over 50 ms (a tuning aid for the plan's own cost).
fn trace_plan() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("TMD_TRACE_PLAN").is_some())
}

/// Appends `[from, to)`, left to the filter: the parts one enclosure decides, the rest filtered.
fn push_searched(
    pieces: &mut Vec<(i128, i128, PieceMethod)>,
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    from: i128,
    to: i128,
) {
    let (format, bits) = (&range.format, params.bits);
    for (s, e, verdict) in split_searched(target, format, bits, from, to, filter.chunk_len) {
        pieces.push((
            s,
            e,
            verdict.map_or(PieceMethod::Filter, PieceMethod::Whole),
        ));
    }
}

impl PlannedPiece {
    /// The piece `[start, end)` searched by `method`, before any sample is timed.
    fn unsampled(start: i128, end: i128, method: PieceMethod) -> PlannedPiece {
        PlannedPiece {
            start,
            end,
            method,
            sample_inputs: 0,
            sample_seconds: 0.0,
            sample_work: 0,
            projected_seconds: 0.0,
            degrees: None,
            domain_sizes: None,
        }
    }
}

/// A piece's parts, each timed: none for a piece decided without search; else each of its
/// magnitude parts ([`magnitude_parts`]) at two or three places.
fn time_piece<'a>(
    part_of: &dyn Fn((i128, i128), PieceMethod) -> PartTiming<'a>,
    range: &InputRange,
    (start, end): (i128, i128),
    method: PieceMethod,
) -> Result<Vec<PartTiming<'a>>, FilterError> {
    if matches!(
        method,
        PieceMethod::RuleNoneHard | PieceMethod::RuleRecord | PieceMethod::Whole(_)
    ) {
        return Ok(Vec::new());
    }
    let half = 1i128 << (range.format.precision() - 1);
    let mut parts = Vec::new();
    for (s, e) in magnitude_parts(start, end, half) {
        let mut part = part_of((s, e), method);
        part.time_ends_and_middle()?;
        parts.push(part);
    }
    Ok(parts)
}

/// The piece `[start, end)` searched by `method` as its timed parts project it: their
/// projections and samples summed, named by how its costliest part is searched.
fn assemble(start: i128, end: i128, method: PieceMethod, parts: &[PartTiming]) -> PlannedPiece {
    let mut planned = PlannedPiece::unsampled(start, end, method);
    let mut costliest = 0.0;
    for part in parts {
        let part = part.planned();
        let widen = |acc: Option<(u64, u64)>, part: Option<(u64, u64)>| match (acc, part) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (acc, part) => acc.or(part),
        };
        planned.degrees = widen(planned.degrees, part.degrees);
        planned.domain_sizes = widen(planned.domain_sizes, part.domain_sizes);
        planned.sample_inputs += part.sample_inputs;
        planned.sample_seconds += part.sample_seconds;
        planned.sample_work += part.sample_work;
        planned.projected_seconds += part.projected_seconds;
        if part.projected_seconds >= costliest {
            costliest = part.projected_seconds;
            planned.method = part.method;
        }
    }
    planned
}

/// The parts of the piece `[start, end)` timed apart: where the piece holds subnormals (the
/// inputs of the smallest quantum, |ordinal| < 2^p, which share one piece with the first
/// normal binade, across zero), one part per doubling of |x|, so [2^j, 2^(j+1)) in ordinals
/// and their negatives; else the piece itself. The input quantum is one there, but not the
/// function's scale: log's subnormal piece curves like 1/x, so its first chunk needs degrees
/// up to 16 and domains of one input while its last needs degree 4 and 2^15; three samples
/// over the piece projected that first chunk's cost onto a third of the piece (10^4 days for
/// 2^53 inputs). Per doubling, the cost per input varies by at most a few times within a part.
fn magnitude_parts(start: i128, end: i128, half: i128) -> Vec<(i128, i128)> {
    if start >= 2 * half || end <= -2 * half + 1 {
        return vec![(start, end)];
    }
    // Ordinals are sign and magnitude: |x| doubles at ordinal 2^j, and at 1 - 2^j below zero.
    let mut cuts: Vec<i128> = (0..=half.trailing_zeros() + 1)
        .flat_map(|j| [1i128 << j, 1 - (1i128 << j)])
        .filter(|&c| start < c && c < end)
        .collect();
    cuts.push(start);
    cuts.push(end);
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).map(|w| (w[0], w[1])).collect()
}

/// How long each place of a piece is timed at least: long enough that the thread pool's
/// wake-up is a few percent of it, short enough that the thousands of cheap pieces of a whole
/// function (every one timed at two or three places) plan in seconds, not minutes: at 10 ms,
/// sinpi's 4,091 pieces took 114 s to plan.
const PLACE_SECONDS: f64 = 0.003;

/// The costliest parts of a plan, up to [`SPREAD_PARTS`] of those projected above this many
/// seconds, are timed at [`SPREAD_PLACES`] more places: their cost per input swings along them
/// (exp's phase-1 failure rate follows y/u, which goes from 2^53 to 2^54 and back once every
/// ln 2 of x; on a device a failing lane holds its warp, and two plans of exp's [-2^9, -2^8)
/// on one GPU differed by two times), and each sample lasts about a millisecond, so that a
/// passing slowdown of the machine weighs on three samples more than on eleven.
const SPREAD_ABOVE_SECONDS: f64 = 3600.0;
/// How many parts are spread at most: a plan costs a few of them more, whatever the function.
const SPREAD_PARTS: usize = 32;
/// The places added to such a part, one in each of as many equal strata of it.
const SPREAD_PLACES: u64 = 8;
/// A part whose places cost more than this each (decided by MPFR input by input, where the
/// cost per input does not swing) gets no spread places: at 30 ms, the plans of J0 and J1
/// took 6 to 8 s more (exp's steep parts take 1 to 3 ms a place).
const SPREAD_PLACE_SECONDS: f64 = 0.01;

/// Times the costliest parts of `timed` (pieces with their parts) at [`SPREAD_PLACES`] more
/// places each.
fn spread_costliest(
    timed: &mut [(i128, i128, PieceMethod, Vec<PartTiming>)],
    stop: &AtomicBool,
) -> Result<(), FilterError> {
    let mut costly: Vec<(f64, usize, usize)> = timed
        .iter()
        .enumerate()
        .flat_map(|(i, (.., parts))| {
            parts
                .iter()
                .enumerate()
                .map(move |(j, part)| (part.projection(), i, j))
        })
        .filter(|&(seconds, ..)| seconds > SPREAD_ABOVE_SECONDS)
        .collect();
    costly.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(_, i, j) in costly.iter().take(SPREAD_PARTS) {
        let part = &mut timed[i].3[j];
        if part.measured_seconds / part.timed.len().max(1) as f64 <= SPREAD_PLACE_SECONDS {
            part.time_spread_places()?;
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    Ok(())
}

/// One part of a piece being timed, and what its timed places add up to.
struct PartTiming<'a> {
    target: &'a Target,
    range: &'a InputRange,
    params: &'a SearchParams,
    filter: &'a FilterParams,
    method: PieceMethod,
    stop: &'a AtomicBool,
    /// The search's chunk over the part, and the windows' first width: one chunk or the part.
    chunk_len: u64,
    width: i128,
    /// The places timed, and the samples' sums.
    timed: Vec<i128>,
    planned: PlannedPiece,
    /// Inputs the screen cleared, of those decided one by one (sampled blocks only), and
    /// inputs of chunks that got a polynomial (whole chunks).
    screened: u64,
    one_by_one: u64,
    under_polynomial: u64,
    /// The samples' own wall time, without what they extrapolate.
    measured_seconds: f64,
}

impl<'a> PartTiming<'a> {
    fn new(
        target: &'a Target,
        range: &'a InputRange,
        params: &'a SearchParams,
        filter: &'a FilterParams,
        (start, end): (i128, i128),
        method: PieceMethod,
        stop: &'a AtomicBool,
    ) -> PartTiming<'a> {
        // Samples of 2^20 inputs cost mostly their polynomial, which a chunk of 2^34
        // amortises: timed so, a binade of binary64 exp was projected at 100 to 60,000 times
        // its time. A window of the search's chunk even in a piece of few chunks: the sampled
        // search walks a bounded part of it whatever its length (`sampled_filtered_search`),
        // while windows of 1/256 of such a piece each paid a chunk's setup for a fraction of
        // its inputs (sqrt and gamma on 2^37-2^40 inputs: projected 8 to 9 times the run; 2.6
        // and 1.1 times so).
        let (format, bits) = (&range.format, params.bits);
        let chunk_len = piece_chunk_len(&target.expr, format, bits, filter, start, end);
        PartTiming {
            target,
            range,
            params,
            filter,
            method,
            stop,
            chunk_len,
            width: (chunk_len as i128).min(end - start),
            timed: Vec::new(),
            planned: PlannedPiece::unsampled(start, end, method),
            screened: 0,
            one_by_one: 0,
            under_polynomial: 0,
            measured_seconds: 0.0,
        }
    }

    /// Times the part at its two ends, and at its middle where they disagree.
    fn time_ends_and_middle(&mut self) -> Result<(), FilterError> {
        let (start, end, width) = (self.planned.start, self.planned.end, self.width);
        // On the search's chunk grid (chunks start at the piece's start).
        let middle = start + (end - start - width) / 2 / width * width;
        let mut places = vec![start];
        for s in [end - width, middle] {
            if !places.contains(&s) {
                places.push(s);
            }
        }
        // Seconds per input at each place timed so far.
        let mut rates: Vec<f64> = Vec::new();
        for s in places {
            // The cost per input of a piece drifts smoothly along it (the polynomial's degree
            // and domain size follow the function's scale): where the two ends agree within 1.5
            // times, the middle lies between them and is not timed. A whole binary64 function
            // has about 4,000 pieces, so a third of the samples saved is a third of its plan's
            // time.
            if let [a, b] = rates[..] {
                if s == middle && a.max(b) <= 1.5 * a.min(b) {
                    break;
                }
            }
            rates.push(self.time_place(s)?);
        }
        Ok(())
    }

    /// Times the part at [`SPREAD_PLACES`] windows on its chunk grid, one in each of as many
    /// equal strata, at offsets within the strata that follow the golden ratio's multiples (so
    /// that no period of the function's cost lines up with them all).
    fn time_spread_places(&mut self) -> Result<(), FilterError> {
        let (start, end, width) = (self.planned.start, self.planned.end, self.width);
        let slots = (end - start) / width;
        let golden = 0.618_033_988_749_895_f64;
        for i in 0..SPREAD_PLACES {
            let at = (i as f64 + ((i + 1) as f64 * golden).fract()) / SPREAD_PLACES as f64;
            let s = start + ((at * slots as f64) as i128).min(slots - 1) * width;
            if !self.timed.contains(&s) && !self.stop.load(Ordering::Relaxed) {
                self.time_place(s)?;
            }
        }
        Ok(())
    }

    /// Times the place `s`: a window of `width` inputs from `s`, doubled while cheap. Returns
    /// its seconds per input.
    fn time_place(&mut self, s: i128) -> Result<f64, FilterError> {
        let (end, len) = (self.planned.end, self.planned.end - self.planned.start);
        let threads = rayon::current_num_threads().max(1) as u64;
        // A sample that takes a few microseconds times mostly the thread pool's wake-up (tens
        // of microseconds): where one chunk is that cheap (nearly flat binades), the window
        // doubles, up to 1/8 of the piece, until the place has been timed for
        // [`PLACE_SECONDS`].
        let (mut at, mut w, mut place_seconds) = (s, self.width, 0.0);
        while at + w <= end && !self.stop.load(Ordering::Relaxed) {
            let window = InputRange {
                format: self.range.format.clone(),
                start: at,
                end: at + w,
            };
            let progress = AtomicU64::new(0);
            let t = Instant::now();
            let (_, stats) = sampled_filtered_search(
                self.target,
                &window,
                self.params,
                self.filter,
                &progress,
                &mut |_: &crate::Case| {},
                self.method == PieceMethod::RuleAllHard,
            )?;
            // Each chunk extrapolates its skipped work from its own wall time; chunks of one
            // window run side by side, one per thread, so their extrapolations overlap.
            let side_by_side = (w as u64).div_ceil(self.chunk_len).min(threads);
            self.measured_seconds += t.elapsed().as_secs_f64();
            place_seconds += t.elapsed().as_secs_f64()
                + stats.unsampled_nanos as f64 * 1e-9 / side_by_side as f64;
            self.note(w as u64, &stats);
            at += w;
            w *= 2;
            if place_seconds >= PLACE_SECONDS || (at - s) + w > len / 8 {
                break;
            }
        }
        self.planned.sample_seconds += place_seconds;
        self.timed.push(s);
        Ok(place_seconds / (at - s).max(1) as f64)
    }

    /// Adds a window's inputs and work.
    fn note(&mut self, inputs: u64, stats: &crate::filter::stats::FilterStats) {
        let planned = &mut self.planned;
        planned.sample_inputs += inputs;
        planned.sample_work +=
            stats.phase1.domains_in + stats.phase3.domains_in + stats.reference_inputs;
        self.screened += stats.screened_inputs;
        self.one_by_one += stats.reference_inputs;
        self.under_polynomial += stats.chunk_inputs;
        if stats.chunks > 0 {
            let widen = |acc: Option<(u64, u64)>, lo: u64, hi: u64| {
                Some(acc.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))))
            };
            planned.degrees = widen(planned.degrees, stats.degree_min, stats.degree_max);
            planned.domain_sizes = widen(
                planned.domain_sizes,
                stats.domain_size_min,
                stats.domain_size_max,
            );
        }
    }

    /// The part's time projected from every place timed: seconds per input pooled.
    fn projection(&self) -> f64 {
        let p = &self.planned;
        p.sample_seconds * (p.end - p.start) as f64 / p.sample_inputs.max(1) as f64
    }

    /// The part as planned: its projection, and its method (the screen's where most of its
    /// samples' inputs were decided one by one, most of those by the screen).
    fn planned(&self) -> PlannedPiece {
        let mut planned = self.planned.clone();
        planned.projected_seconds = self.projection();
        if self.under_polynomial * 2 < planned.sample_inputs && self.screened * 2 > self.one_by_one
        {
            planned.method = PieceMethod::Screen;
        }
        planned
    }
}

/// The plan's projected time along the range, for the progress line's ETA: a search finishes
/// its chunks nearly in input order, so the inputs done so far stand for a prefix of the range,
/// and what is left costs what the plan projects for the rest. Counting inputs alone would
/// not do: a piece the rule decides costs nothing per input, a filtered binade near an
/// overflow threshold costs millions of times more.
#[derive(Clone, Debug)]
pub struct PlannedWork {
    /// `(start, end, projected seconds)` of each piece, in input order.
    pieces: Vec<(i128, i128, f64)>,
    total: f64,
}

impl PlannedWork {
    pub fn new(pieces: &[PlannedPiece]) -> PlannedWork {
        PlannedWork {
            pieces: pieces
                .iter()
                .map(|p| (p.start, p.end, p.projected_seconds))
                .collect(),
            total: pieces.iter().map(|p| p.projected_seconds).sum(),
        }
    }

    /// The projected seconds of the whole range.
    pub fn total_seconds(&self) -> f64 {
        self.total
    }

    /// The projected seconds of the inputs from ordinal `at` on (a piece cut by `at` counted
    /// in proportion to its inputs).
    pub fn seconds_from(&self, at: i128) -> f64 {
        self.pieces
            .iter()
            .filter(|&&(_, end, _)| end > at)
            .map(|&(start, end, seconds)| {
                if start >= at {
                    seconds
                } else {
                    seconds * (end - at) as f64 / (end - start) as f64
                }
            })
            .sum()
    }

    /// The seconds left when `done` inputs from the first ordinal `first` are finished after
    /// `elapsed` seconds: the plan's projection of the rest, scaled by how the run has kept to
    /// the plan so far once that means something (at least 5 s, and 1% of the projected
    /// work done).
    pub fn seconds_left(&self, first: i128, done: u64, elapsed: f64) -> f64 {
        let left = self.seconds_from(first + done as i128);
        let projected_done = self.total - left;
        if elapsed >= 5.0 && projected_done >= self.total / 100.0 && projected_done > 0.0 {
            left * elapsed / projected_done
        } else {
            left
        }
    }
}

#[cfg(test)]
mod planned_work_tests {
    use super::*;

    fn piece(start: i128, end: i128, seconds: f64) -> PlannedPiece {
        PlannedPiece {
            start,
            end,
            method: PieceMethod::Filter,
            sample_inputs: 0,
            sample_seconds: 0.0,
            sample_work: 0,
            projected_seconds: seconds,
            degrees: None,
            domain_sizes: None,
        }
    }

    #[test]
    fn the_rest_costs_what_the_plan_projects_for_it() {
        // A million free inputs, then a thousand that cost 100 s.
        let work =
            PlannedWork::new(&[piece(0, 1_000_000, 0.0), piece(1_000_000, 1_001_000, 100.0)]);
        assert_eq!(work.total_seconds(), 100.0);
        // Nearly every input done, nearly all the time left.
        assert_eq!(work.seconds_left(0, 1_000_000, 1.0), 100.0);
        assert_eq!(work.seconds_from(1_000_500), 50.0);
    }

    #[test]
    fn a_run_slower_than_planned_scales_the_rest() {
        let work = PlannedWork::new(&[piece(-100, 0, 10.0), piece(0, 100, 10.0)]);
        // Half the projected work done in 20 s, twice the plan: 20 s left, not 10.
        assert_eq!(work.seconds_left(-100, 100, 20.0), 20.0);
        // Before 5 s the plan alone.
        assert_eq!(work.seconds_left(-100, 100, 4.0), 10.0);
        assert_eq!(work.seconds_left(-100, 200, 30.0), 0.0);
    }
}
