//! The filter on published worst cases: for windows of 2^36 binary64 inputs around listed
//! cases of each file in data/worst-cases/ (exp, exp2, log; CORE-MATH's lists, see that
//! folder's README for where they come from), the regular filtered search with
//! `--bits 45 --breakpoints all` outputs every listed input of the window whose run k is at
//! least 44 (that is, whose distance to a breakpoint is below 2^-45 ulp), and every input it
//! outputs is confirmed hard by an independent `hardness` call.
//!
//! The listed inputs are drawn with a seeded ChaCha8 over the whole file (the overflow and
//! underflow thresholds and regression inputs of the files are classified like the others and
//! only kept when k >= 44), and each window holds its case at a random offset. The default run
//! takes 8 windows per file; `TMD_EXTENSIVE=1` takes 24 per file. A failure prints the window,
//! the missed inputs and the wrong outputs in hex.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::time::Instant;
use tmd_core::hardness::DEFAULT_MAX_PRECISION;
use tmd_core::number::parse_exact;
use tmd_core::{hardness, Breakpoints, Format, Outcome};
use tmd_search::lower_bound::Algorithm;
use tmd_search::{
    filtered_search, Case, FilterParams, InputRange, Method, SearchParams, Summary, Target,
};

const WINDOW_LOG2: u32 = 36;
const BITS: u32 = 45;

fn extensive() -> bool {
    tmd_test_tier::extensive()
}

/// The published worst-case files shipped with tmd (`data/worst-cases/`, with their provenance).
fn worst_cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/worst-cases")
}

/// Every finite binary64 input of a worst-case file (first token of each line, `#` comments),
/// as sorted, distinct ordinals.
fn file_ordinals(name: &str, format: &Format) -> Vec<i128> {
    let text = std::fs::read_to_string(worst_cases_dir().join(name)).unwrap();
    let set: BTreeSet<i128> = text
        .lines()
        .filter_map(|l| l.split('#').next())
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|t| parse_exact(t, format).ok())
        .map(|x| format.ordinal(&x))
        .collect();
    set.into_iter().collect()
}

/// The run k of f(x) when f(x) is inexact, else None.
fn run_k(func: &str, format: &Format, ordinal: i128) -> Option<u32> {
    let target = Target::parse(func).unwrap();
    let x = format.from_ordinal(ordinal);
    match hardness(&target.expr, format, &x, DEFAULT_MAX_PRECISION) {
        Outcome::Inexact(i) => Some(i.k),
        _ => None,
    }
}

/// The filtered search of `range` by `method`: its cases in x order, and its summary.
fn search(
    method: Method,
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
) -> (Vec<Case>, Summary) {
    let filter = FilterParams::new(method);
    let mut found: Vec<Case> = Vec::new();
    let mut sink = |c: &Case| found.push(c.clone());
    let (summary, _) = filtered_search(
        target,
        range,
        params,
        &filter,
        &AtomicU64::new(0),
        &mut sink,
    )
    .unwrap();
    (found, summary)
}

/// Checks the windows of 2^`window_log2` inputs around `per_file` listed cases of one file,
/// searched by `method`; returns the failures.
fn check_file(
    (func, file): (&str, &str),
    per_file: usize,
    seed: u64,
    method: Method,
    window_log2: u32,
) -> Vec<String> {
    let format = Format::binary64();
    let listed = file_ordinals(file, &format);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let len = 1i128 << window_log2;
    let target = Target::parse(func).unwrap();
    let params = SearchParams {
        bits: BITS,
        breakpoints: Breakpoints::All,
        include_exact: false,
        max_precision: DEFAULT_MAX_PRECISION,
    };
    let domain_low = if func == "log" {
        1
    } else {
        -format.max_ordinal()
    };
    let mut failures = Vec::new();
    let mut windows = 0;
    let mut tries = 0;
    while windows < per_file {
        tries += 1;
        assert!(tries < 50 * per_file, "{file}: too few cases with k >= 44");
        let centre = listed[rng.gen_range(0..listed.len())];
        if run_k(func, &format, centre).is_none_or(|k| k < 44) {
            continue;
        }
        let start = (centre - rng.gen_range(0..len)).max(domain_low);
        let end = (start + len).min(format.max_ordinal());
        let range = InputRange {
            format: format.clone(),
            start,
            end,
        };
        let t = Instant::now();
        let (found, summary) = search(method, &target, &range, &params);
        let out: BTreeSet<i128> = found.iter().map(|c| format.ordinal(&c.x)).collect();
        let window = format!(
            "{func} [{}, {})",
            format.from_ordinal(start).to_hex(),
            format.from_ordinal(end).to_hex()
        );
        // Every listed input of the window with k >= 44 is output.
        let lo = listed.partition_point(|&o| o < start);
        let hi = listed.partition_point(|&o| o < end);
        let mut expected = 0;
        for &o in &listed[lo..hi] {
            if run_k(func, &format, o).is_some_and(|k| k >= 44) {
                expected += 1;
                if !out.contains(&o) {
                    failures.push(format!(
                        "{window}: listed {} (k >= 44) was not output",
                        format.from_ordinal(o).to_hex()
                    ));
                }
            }
        }
        // Everything output is hard at 2^-45, by an independent classification.
        for case in &found {
            let again = hardness(&target.expr, &format, &case.x, DEFAULT_MAX_PRECISION);
            let confirmed = matches!(&again, Outcome::Inexact(i) if i.bits > BITS as f64)
                || matches!(again, Outcome::Unresolved { .. });
            if !confirmed || again != case.outcome {
                failures.push(format!(
                    "{window}: output {} is {:?}, hardness says {again:?}",
                    case.x.to_hex(),
                    case.outcome
                ));
            }
        }
        println!(
            "{window} ({method:?}): {} output, {expected} listed with k >= 44, {} unresolved, {:.2} s",
            found.len(),
            summary.unresolved,
            t.elapsed().as_secs_f64()
        );
        windows += 1;
    }
    failures
}

const FILES: [(&str, &str); 3] = [("exp", "exp.wc"), ("exp2", "exp2.wc"), ("log", "log.wc")];

fn run(per_file: usize) {
    let mut failures = Vec::new();
    for (i, file) in FILES.into_iter().enumerate() {
        let method = Method::Filter(Algorithm::RegularUnrolled);
        failures.extend(check_file(
            file,
            per_file,
            0x1554 + i as u64,
            method,
            WINDOW_LOG2,
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn published_cases_found_by_the_filter() {
    run(if extensive() { 24 } else { 8 });
}

/// The lattice method on windows of 2^24 inputs (its binary64 intervals are slow next to the
/// filter's domains: docs/BENCHMARKS.md) around listed cases: its own choice of shape per
/// chunk, and then each shape it chooses from, fixed, on one window of each file.
#[test]
fn published_cases_found_by_the_lattice() {
    use tmd_search::filter::lattice::{LatticeParams, SHAPES};
    let per_file = if extensive() { 8 } else { 2 };
    let mut failures = Vec::new();
    for (i, file) in FILES.into_iter().enumerate() {
        let seed = 0x1a77 + i as u64;
        let method = Method::Lattice(LatticeParams::PerChunk);
        failures.extend(check_file(file, per_file, seed, method, 24));
        let shape = SHAPES[(i + 1) % SHAPES.len()];
        let method = Method::Lattice(LatticeParams::Fixed(shape));
        failures.extend(check_file(file, 1, seed + 100, method, 20));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// log next to 1 (|x - 1| < 2^-30, 12582912 inputs): the published cases there are
/// Lefèvre's, of run k 6 to 40 (none reaches 44), so the search runs at K = 31: every
/// published input of the window with k >= 30 is output, and every output is hard at 2^-31 by
/// an independent classification.
#[test]
fn log_next_to_one_outputs_every_published_case_from_k_30() {
    const K: u32 = 31;
    let format = Format::binary64();
    let one = format.ordinal(&parse_exact("1", &format).unwrap());
    let (start, end) = (one - (1 << 23), one + (1 << 22));
    let range = InputRange {
        format: format.clone(),
        start,
        end,
    };
    let target = Target::parse("log").unwrap();
    let params = SearchParams {
        bits: K,
        breakpoints: Breakpoints::All,
        include_exact: false,
        max_precision: DEFAULT_MAX_PRECISION,
    };
    let (found, _) = search(
        Method::Filter(Algorithm::RegularUnrolled),
        &target,
        &range,
        &params,
    );
    let out: BTreeSet<i128> = found.iter().map(|c| format.ordinal(&c.x)).collect();
    let listed = file_ordinals("log.wc", &format);
    let in_window =
        &listed[listed.partition_point(|&o| o < start)..listed.partition_point(|&o| o < end)];
    let due: Vec<i128> = in_window
        .iter()
        .copied()
        .filter(|&o| run_k("log", &format, o).is_some_and(|k| k >= K - 1))
        .collect();
    let mut failures: Vec<String> = due
        .iter()
        .filter(|o| !out.contains(o))
        .map(|&o| {
            format!(
                "listed {} (k >= {}) was not output",
                format.from_ordinal(o).to_hex(),
                K - 1
            )
        })
        .collect();
    for case in &found {
        let again = hardness(&target.expr, &format, &case.x, DEFAULT_MAX_PRECISION);
        if !matches!(&again, Outcome::Inexact(i) if i.bits > K as f64) || again != case.outcome {
            failures.push(format!(
                "output {} is {:?}, hardness says {again:?}",
                case.x.to_hex(),
                case.outcome
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The window holds 2778 published inputs, 93 of them with k >= 30 (MPFR, 2026-11-27).
    assert_eq!((in_window.len(), due.len()), (2778, 93));
    assert!(
        found.len() > due.len(),
        "cases beyond the list: {}",
        found.len()
    );
}
