//! What a search will do and how long it will take, before it runs (`tmd search --plan`).
//!
//! A range that spans binades, signs, zero and the edges of the function's regimes costs very
//! different amounts per input in each part: a binade the regime rule decides costs nothing
//! ([`crate::regime`]), one the filter searches costs what its polynomial degree and domain
//! size make it cost. So the projection is made per piece: the range is cut where the input
//! quantum changes (the filter's own binade pieces), each piece is split where the rule
//! decides, and each piece left to the filter is timed on short samples (at its start, middle
//! and end) with the backend the search would use, then projected linearly to its length.

use crate::filter::whole::{split_searched, WholeVerdict};
use crate::filter::{filtered_search, piece_chunk_len, piece_end, FilterError, FilterParams};
use crate::regime::{decided_pieces, Regime};
use crate::{InputRange, SearchParams, Target};
use std::sync::atomic::AtomicU64;
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
    /// Inputs of the timed samples (0 for a piece the rule skips).
    pub sample_inputs: u64,
    pub sample_seconds: f64,
    /// The piece's projected time on the plan's backend (all threads), in seconds.
    pub projected_seconds: f64,
    /// Least and largest polynomial degree and domain size the samples used.
    pub degrees: Option<(u64, u64)>,
    pub domain_sizes: Option<(u64, u64)>,
}

/// The pieces of `range`, each with its method and projected time. Each filtered piece is timed
/// at three places on windows of one chunk (the search's own job, [`piece_chunk_len`], so that
/// the chunk polynomial and its tables weigh what they weigh in the search), or 1/256 of the
/// piece where that is less (at least 2^12 inputs, or the whole piece), doubled while cheap;
/// `records`: pieces the rule proves all hard are range records (else listed input by input).
pub fn project(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    records: bool,
) -> Result<Vec<PlannedPiece>, FilterError> {
    let half = 1i128 << (range.format.precision() - 1);
    let mut pieces = Vec::new();
    let mut o = range.start;
    while o < range.end {
        let end = piece_end(o, half).min(range.end);
        let decided = decided_pieces(
            &target.expr,
            &range.format,
            o,
            end,
            params.bits,
            params.breakpoints,
        );
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
        o = end;
    }
    // Pieces one after the other, each sample on every thread: the timing is the backend's.
    pieces
        .into_iter()
        .map(|(start, end, method)| time_piece(target, range, params, filter, start, end, method))
        .collect()
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

/// Times up to three samples of a piece and projects its whole time.
fn time_piece(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    start: i128,
    end: i128,
    method: PieceMethod,
) -> Result<PlannedPiece, FilterError> {
    let mut planned = PlannedPiece {
        start,
        end,
        method,
        sample_inputs: 0,
        sample_seconds: 0.0,
        projected_seconds: 0.0,
        degrees: None,
        domain_sizes: None,
    };
    if matches!(
        method,
        PieceMethod::RuleNoneHard | PieceMethod::RuleRecord | PieceMethod::Whole(_)
    ) {
        return Ok(planned);
    }
    let len = end - start;
    // Samples of 2^20 inputs cost mostly their polynomial, which a chunk of 2^34 amortises:
    // timed so, a binade of binary64 exp was projected at 100 to 60,000 times its time. At
    // most 1/256 of the piece (at least 2^12 inputs), so that planning costs about 1% of
    // searching where inputs go to MPFR one by one (sin of huge binary32 inputs).
    let chunk_len = piece_chunk_len(&target.expr, &range.format, params.bits, filter, start, end);
    let width = (chunk_len as i128).min((len / 256).max(1 << 12)).min(len);
    // On the search's chunk grid (chunks start at the piece's start).
    let middle = start + (len - width) / 2 / width * width;
    let mut starts = vec![start, middle, end - width];
    starts.dedup();
    let mut degrees: Option<(u64, u64)> = None;
    let mut sizes: Option<(u64, u64)> = None;
    let mut screened = 0;
    for s in starts {
        // A sample that takes a few microseconds times mostly the thread pool's wake-up:
        // where one chunk is that cheap (nearly flat binades), the window doubles, up to 1/8
        // of the piece, until the place has been timed for 10 ms.
        let (mut at, mut w, mut place_seconds) = (s, width, 0.0);
        while at + w <= end {
            let window = InputRange {
                format: range.format.clone(),
                start: at,
                end: at + w,
            };
            let progress = AtomicU64::new(0);
            let t = Instant::now();
            let (_, stats) = filtered_search(
                target,
                &window,
                params,
                filter,
                &progress,
                &mut |_: &crate::Case| {},
            )?;
            place_seconds += t.elapsed().as_secs_f64();
            planned.sample_inputs += w as u64;
            screened += stats.screened_inputs;
            if stats.chunks > 0 {
                let widen = |acc: Option<(u64, u64)>, lo: u64, hi: u64| {
                    Some(acc.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))))
                };
                degrees = widen(degrees, stats.degree_min, stats.degree_max);
                sizes = widen(sizes, stats.domain_size_min, stats.domain_size_max);
            }
            at += w;
            w *= 2;
            if place_seconds >= 0.01 || (at - s) + w > len / 8 {
                break;
            }
        }
        planned.sample_seconds += place_seconds;
    }
    planned.projected_seconds =
        planned.sample_seconds * len as f64 / planned.sample_inputs.max(1) as f64;
    planned.degrees = degrees;
    planned.domain_sizes = sizes;
    if screened * 2 > planned.sample_inputs {
        planned.method = PieceMethod::Screen;
    }
    Ok(planned)
}
