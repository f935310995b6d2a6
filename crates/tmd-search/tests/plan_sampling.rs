//! The plan samples the cost of a piece, never enumerates it: the work its timed samples run
//! is bounded whatever the piece's chunks need (domains of one input, chunks halved 22 times
//! for want of a polynomial), so a whole binary64 function is planned in seconds.
//!
//! The bound is on work counted (domains, lattice intervals, inputs decided one by one), not
//! on time: before the samples were bounded, each of these ranges took minutes
//! (log's subnormals over 120 s, sin's binades above 2^20 over 100 s each, on 2 cores).

use tmd_search::filter::generator::SAMPLE_DOMAINS;
use tmd_search::filter::SAMPLE_SCREENED_INPUTS;
use tmd_search::projection::{project, PieceMethod, PlannedPiece};
use tmd_search::{SearchPlan, SearchRequest};

fn plan_of(function: &str, from: &str, to: &str) -> Vec<PlannedPiece> {
    plan_in("binary64", 45, function, from, to)
}

fn plan_in(format: &str, bits: u32, function: &str, from: &str, to: &str) -> Vec<PlannedPiece> {
    let request = SearchRequest {
        format: format.into(),
        bits: Some(bits),
        ..SearchRequest::new(function, from, to)
    };
    let plan = SearchPlan::new(&request, &mut |_| {}).unwrap();
    let filter = plan.filter.as_ref().unwrap();
    let records = plan.range_records;
    project(&plan.target, &plan.range, &plan.params, filter, records).unwrap()
}

/// The most work one searched piece's samples may run: per magnitude part (up to 54 where the
/// piece holds subnormals), three places, each place a few windows of a chunk, each chunk's
/// sample 2^14 domains of the filter or 512 inputs one by one per halving.
const WORK_PER_PIECE: u64 = 1 << 24;

#[test]
fn log_of_subnormals_is_sampled_not_enumerated() {
    // The subnormals' piece has chunks of degree up to 16 with domains of 1 to 16 inputs
    // near 2^-1074: each chunk of 2^34 inputs holds over 2^30 domains.
    let pieces = plan_of("log", "0x1p-1074", "0x1p-1020");
    assert!(pieces.len() >= 2, "{pieces:?}");
    for p in &pieces {
        assert!(p.sample_work > 0, "{p:?}");
        assert!(p.sample_work <= WORK_PER_PIECE, "{p:?}");
        assert!(p.projected_seconds > 0.0, "{p:?}");
    }
    let subnormal = &pieces[0];
    assert!(subnormal.degrees.unwrap().1 >= 12, "{subnormal:?}");
    // Projected from samples of whole chunks, the skipped parts extrapolated: the samples
    // stand for far more inputs than their work.
    assert!(subnormal.sample_inputs > 1 << 36, "{subnormal:?}");
}

#[test]
fn sin_of_huge_arguments_is_sampled_not_enumerated() {
    // No polynomial serves a chunk of sin near 2^1000 down to 2^12 inputs: the search cuts
    // each chunk in halves 22 times and decides 2^34 inputs by MPFR; the sample follows one
    // piece of 16 at each depth and decides 512 inputs.
    for (from, to) in [("0x1p1000", "0x1p1001"), ("-0x1p21", "-0x1p20")] {
        // The binade, and -2^21 alone (the binade above) where the range starts there.
        let pieces = plan_of("sin", from, to);
        assert!((1..=2).contains(&pieces.len()), "{pieces:?}");
        for p in &pieces {
            let searched = matches!(p.method, PieceMethod::Filter | PieceMethod::Screen);
            assert!(searched, "{p:?}");
            assert!(
                p.sample_work > 0 && p.sample_work <= WORK_PER_PIECE,
                "{p:?}"
            );
            assert!(p.projected_seconds > 0.0, "{p:?}");
        }
    }
}

#[test]
fn a_screened_binade_is_timed_on_enough_inputs_to_outweigh_the_samples_overhead() {
    // The screen clears a binary32 input of sin in 20-50 ns: a sample of a few hundred
    // inputs lasts less than the thread pool's wake-up, which the projection then multiplies
    // by the binade's 2^23 inputs. Each place timed decides SAMPLE_SCREENED_INPUTS inputs
    // (about 1 ms of work), and the sample still stands for the whole binade.
    let pieces = plan_in("binary32", 24, "sin", "0x1p20", "0x1p21");
    assert_eq!(pieces.len(), 1, "{pieces:?}");
    let p = &pieces[0];
    assert_eq!(p.method, PieceMethod::Screen, "{p:?}");
    let places = p.sample_work / SAMPLE_SCREENED_INPUTS;
    assert!((1..=3).contains(&places), "{p:?}");
    assert_eq!(p.sample_work % SAMPLE_SCREENED_INPUTS, 0, "{p:?}");
    assert!(p.sample_inputs >= 1 << 23, "{p:?}");
}

#[test]
fn the_costliest_parts_are_timed_at_more_places_than_cheap_ones() {
    // exp on [2^8, 2^9) projects days on 2 cores: its cost per input swings with the result's
    // place in its binade, so it is timed at eight places spread over it besides its ends;
    // a range of seconds is timed at its ends (and middle) only. Each place walks
    // SAMPLE_DOMAINS domains of its chunk through phase 1.
    let steep = plan_of("exp", "0x1p8", "0x1p9");
    assert_eq!(steep.len(), 1, "{steep:?}");
    assert!(steep[0].projected_seconds > 3600.0, "{steep:?}");
    assert!(steep[0].sample_work >= 10 * SAMPLE_DOMAINS, "{steep:?}");
    let short = plan_of("exp", "0x1p8", "0x1.0004p8");
    assert_eq!(short.len(), 1, "{short:?}");
    assert!(short[0].projected_seconds < 3600.0, "{short:?}");
    assert!(short[0].sample_work >= 2 * SAMPLE_DOMAINS, "{short:?}");
    assert!(short[0].sample_work < 4 * SAMPLE_DOMAINS, "{short:?}");
}
