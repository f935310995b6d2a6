//! Domains larger than the cap where the function is nearly flat: the filter lists exactly what
//! the reference search (MPFR on every input) lists, on windows where it did take domains
//! above the cap.
//!
//! A domain is "flat" when its phase-1 slope keeps its points within one turn of the circle
//! (each lower-bound test is then the exact one-step distance), so the filter may take domains
//! far above `--domain-size`. Real flat regimes (exp next to 1 in binary64, 2^-40: a slope of
//! 2^-39 units per input) have a crossing of a breakpoint every 2^39 inputs, too far apart for
//! a reference run; here the cap is lowered to 2^8 instead, so that slopes of 2^-12 to 2^-15
//! units per input (exp near 2^-13 to 2^-16) qualify, with crossings every few thousand inputs
//! and K chosen so that each crossing holds a few hard cases.

use std::sync::atomic::AtomicU64;
use tmd_core::number::parse_rounded;
use tmd_core::{Breakpoints, Format};
use tmd_search::filter::stats::FilterStats;
use tmd_search::lower_bound::Algorithm;
use tmd_search::{
    filtered_search, reference_search, Case, FilterParams, InputRange, Method, SearchParams, Target,
};

fn window(format: &Format, from: &str, log2len: u32) -> InputRange {
    let start = format.ordinal(&parse_rounded(from, format).unwrap().0);
    InputRange {
        format: format.clone(),
        start,
        end: start + (1i128 << log2len),
    }
}

/// The inputs of the cases, in hex.
fn inputs(cases: &[Case]) -> Vec<String> {
    cases.iter().map(|c| c.x.to_hex()).collect()
}

/// K and the breakpoints, exact results left out.
fn params_at(bits: u32, breakpoints: Breakpoints) -> SearchParams {
    SearchParams {
        bits,
        breakpoints,
        include_exact: false,
        max_precision: 8192,
    }
}

/// The inputs the reference search (MPFR on every input) lists.
fn reference_inputs(target: &Target, range: &InputRange, params: &SearchParams) -> Vec<String> {
    let mut cases: Vec<Case> = Vec::new();
    reference_search(target, range, params, &AtomicU64::new(0), &mut |c| {
        cases.push(c.clone())
    });
    inputs(&cases)
}

/// The inputs the filtered search lists, and its statistics.
fn filtered_inputs(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
) -> (Vec<String>, FilterStats) {
    let mut cases: Vec<Case> = Vec::new();
    let (_, stats) = filtered_search(
        target,
        range,
        params,
        filter,
        &AtomicU64::new(0),
        &mut |c: &Case| cases.push(c.clone()),
    )
    .unwrap();
    (inputs(&cases), stats)
}

#[test]
fn flat_domains_above_the_cap_list_what_the_reference_lists() {
    let format = Format::binary64();
    // (function, window start, log2 length, K)
    let windows = [
        ("exp", "0x1.3p-13", 16, 12),
        ("exp", "0x1.9p-15", 17, 13),
        ("exp", "-0x1.5p-14", 16, 12),
        ("exp2", "0x1.1p-14", 16, 12),
        ("cos", "0x1.7p-7", 16, 12),
        ("atan", "0x1.3p+7", 16, 12),
    ];
    let mut flat_windows = 0;
    for (func, from, log2len, k) in windows {
        let target = Target::parse(func).unwrap();
        let range = window(&format, from, log2len);
        for breakpoints in [Breakpoints::All, Breakpoints::Directed] {
            let params = params_at(k, breakpoints);
            let reference = reference_inputs(&target, &range, &params);
            for algorithm in [Algorithm::RegularUnrolled, Algorithm::Lefevre] {
                let mut filter = FilterParams::new(Method::Filter(algorithm));
                filter.domain_size = 1 << 8;
                let (filtered, stats) = filtered_inputs(&target, &range, &params, &filter);
                let what = format!("{func} from {from}, 2^{log2len} inputs, K = {k}, {breakpoints:?}, {algorithm:?}");
                assert_eq!(filtered, reference, "{what}");
                assert!(!reference.is_empty(), "{what}: no case to compare");
                flat_windows += usize::from(stats.domain_size_max > filter.domain_size);
            }
        }
    }
    // Most windows take flat domains (cos and atan may not, at these slopes).
    assert!(
        flat_windows >= 12,
        "{flat_windows} runs used domains above the cap"
    );
}

/// A nearly flat piece is searched in chunks larger than `chunk_len` (up to
/// `flat_chunk_len`, where a polynomial of degree 2 meets the threshold over the whole
/// chunk), with the cases of the reference search, by the filter and by the per-chunk choice
/// of the filter or the lattice; a piece that curves keeps `chunk_len`.
#[test]
fn nearly_flat_pieces_take_larger_chunks_with_the_same_cases() {
    let format = Format::binary64();
    // (function, window start, log2 length, K, whether the window is flat over 2^16 inputs)
    let windows = [
        ("exp", "0x1.3p-13", 16, 12, true),
        ("exp", "-0x1.5p-14", 16, 12, true),
        ("exp2", "0x1.1p-14", 16, 12, true),
        ("sin", "0x1.8p+20", 16, 12, false),
    ];
    for (func, from, log2len, k, flat) in windows {
        let target = Target::parse(func).unwrap();
        let range = window(&format, from, log2len);
        let params = params_at(k, Breakpoints::All);
        let reference = reference_inputs(&target, &range, &params);
        assert!(
            !reference.is_empty(),
            "{func} from {from}: no case to compare"
        );
        for method in [
            Method::Filter(Algorithm::RegularUnrolled),
            Method::Cheaper(Algorithm::RegularUnrolled),
        ] {
            let mut filter = FilterParams::new(method);
            filter.chunk_len = 1 << 12;
            filter.flat_chunk_len = 1 << 16;
            let (filtered, stats) = filtered_inputs(&target, &range, &params, &filter);
            let what = format!("{func} from {from}, 2^{log2len} inputs, K = {k}, {method:?}");
            assert_eq!(filtered, reference, "{what}");
            let chunks = if flat { 1 } else { 1 << (log2len - 12) };
            assert_eq!(stats.chunks, chunks, "{what}: chunks");
        }
    }
}
