//! What a search will do and how long it will take, before it runs (`tmd search --plan`).
//!
//! A range that spans binades, signs, zero and the edges of the function's regimes costs very
//! different amounts per input in each part: a binade the regime rule decides costs nothing
//! ([`crate::regime`]), one the filter searches costs what its polynomial degree and domain
//! size make it cost. So the projection is made per piece: the range is cut where the input
//! quantum changes (the filter's own binade pieces), each piece is split where the rule
//! decides, and each piece left to the filter is timed on short samples (at its start, middle
//! and end) with the backend the search would use, then projected linearly to its length.

use crate::filter::{filtered_search, piece_end, FilterError, FilterParams};
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
    /// Searched by the filter.
    Filter,
}

impl PieceMethod {
    /// The name `--plan` prints.
    pub fn name(self) -> &'static str {
        match self {
            PieceMethod::RuleNoneHard => "rule: none hard",
            PieceMethod::RuleAllHard => "rule: all hard, listed",
            PieceMethod::RuleRecord => "rule: all hard, record",
            PieceMethod::Filter => "filter",
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

/// The pieces of `range`, each with its method and projected time. `sample` is the most inputs
/// timed at each of the three places of a filtered piece (at most 1/256 of the piece);
/// `records`: pieces the rule proves all hard are range records (else listed input by input).
pub fn project(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    sample: u64,
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
            if at < d.start {
                pieces.push((at, d.start, PieceMethod::Filter));
            }
            let method = match d.regime {
                Regime::NoneHard { .. } => PieceMethod::RuleNoneHard,
                _ if records => PieceMethod::RuleRecord,
                _ => PieceMethod::RuleAllHard,
            };
            pieces.push((d.start, d.end, method));
            at = d.end;
        }
        if at < end {
            pieces.push((at, end, PieceMethod::Filter));
        }
        o = end;
    }
    // Pieces one after the other, each sample on every thread: the timing is the backend's.
    pieces
        .into_iter()
        .map(|(start, end, method)| {
            time_piece(target, range, params, filter, sample, start, end, method)
        })
        .collect()
}

/// Times up to three samples of a piece and projects its whole time.
#[allow(clippy::too_many_arguments)]
fn time_piece(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
    sample: u64,
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
    if matches!(method, PieceMethod::RuleNoneHard | PieceMethod::RuleRecord) {
        return Ok(planned);
    }
    let len = end - start;
    // At most 1/256 of the piece per sample (at least 2^12 inputs, or the whole piece), so
    // that planning a range costs about 1% of searching it.
    let width = (sample as i128).min((len / 256).max(1 << 12)).min(len);
    let mut starts = vec![start, start + (len - width) / 2, end - width];
    starts.dedup();
    let mut degrees: Option<(u64, u64)> = None;
    let mut sizes: Option<(u64, u64)> = None;
    for s in starts {
        let window = InputRange {
            format: range.format.clone(),
            start: s,
            end: s + width,
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
        planned.sample_seconds += t.elapsed().as_secs_f64();
        planned.sample_inputs += width as u64;
        if stats.chunks > 0 {
            let widen = |acc: Option<(u64, u64)>, lo: u64, hi: u64| {
                Some(acc.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))))
            };
            degrees = widen(degrees, stats.degree_min, stats.degree_max);
            sizes = widen(sizes, stats.domain_size_min, stats.domain_size_max);
        }
    }
    planned.projected_seconds =
        planned.sample_seconds * len as f64 / planned.sample_inputs.max(1) as f64;
    planned.degrees = degrees;
    planned.domain_sizes = sizes;
    Ok(planned)
}
