//! The filtered searches of the special functions (eint, li2, digamma, lgamma, gamma, j0, j1,
//! y0, y1, ai, zeta, whose Taylor models live in tmd-core's `taylor/special.rs`) list exactly
//! what the reference search (MPFR on every input) lists, with the same counts, on small windows:
//! both signs, next to poles, zeros and removable singularities, across zero for j1 and li2,
//! in binary32 and binary64. Every window runs the regular lower bound (unrolled), Lefèvre's
//! and the exhaustive method; on the binary64 windows they must decide at least half of the
//! inputs through the models. K is chosen so that about 16 cases are expected per window.
//! About 30 s in release on two cores.

use std::sync::atomic::AtomicU64;
use tmd_core::number::parse_rounded;
use tmd_core::{Breakpoints, Format, Outcome};
use tmd_search::lower_bound::Algorithm;
use tmd_search::{
    filtered_search, reference_search, Case, FilterParams, InputRange, Method, SearchParams, Target,
};

/// A window: the function, the format, its first input, log2 of its length, and whether the
/// filter must decide most of its inputs through the Taylor model (binary64 windows; in
/// binary32 next to a zero or where f oscillates at the input spacing, the filter finds its
/// chunks too curved and rightly leaves them to MPFR per input).
struct Window {
    func: &'static str,
    format: &'static str,
    from: &'static str,
    log2len: u32,
    through_models: bool,
}

const fn window(
    func: &'static str,
    format: &'static str,
    from: &'static str,
    log2len: u32,
) -> Window {
    Window {
        func,
        format,
        from,
        log2len,
        through_models: matches!(format.as_bytes(), b"binary64"),
    }
}

impl Window {
    /// Next to a zero of f the results cross binades every few inputs: most chunks get no
    /// polynomial and go to MPFR, which is the filter's rule, not a failure of the model.
    const fn next_to_a_zero(mut self) -> Window {
        self.through_models = false;
        self
    }
}

const WINDOWS: &[Window] = &[
    window("eint", "binary64", "0.75", 16),
    window("eint", "binary64", "-3.5", 16),
    window("eint", "binary64", "0.372507410781366", 14).next_to_a_zero(),
    window("eint", "binary32", "0.75", 15),
    window("li2", "binary64", "-0.3", 16),
    window("li2", "binary64", "0x1.8p-7", 16),
    window("li2", "binary64", "-40.5", 16),
    window("li2", "binary32", "0.97", 15),
    window("digamma", "binary64", "1.4616321449683622", 14).next_to_a_zero(),
    window("digamma", "binary64", "-2.75", 14),
    window("digamma", "binary32", "5.5", 14),
    window("lgamma", "binary64", "2.001", 14),
    window("lgamma", "binary64", "-3.3", 14),
    window("lgamma", "binary32", "-2.5", 14),
    window("gamma", "binary64", "5.5", 14),
    window("gamma", "binary64", "-0.6", 14),
    window("gamma", "binary32", "30.25", 14),
    window("j0", "binary64", "2.4048", 16),
    window("j0", "binary64", "1000.5", 15),
    window("j0", "binary32", "0.3", 15),
    window("j1", "binary64", "-3.8318", 16),
    window("j1", "binary32", "1.5", 15),
    window("y0", "binary64", "0.8935", 15),
    window("y0", "binary32", "3.3", 15),
    window("y1", "binary64", "0.01", 15),
    window("y1", "binary64", "20.5", 15),
    window("y1", "binary32", "7.5", 15),
    window("ai", "binary64", "-2.5", 15),
    window("ai", "binary64", "3.75", 15),
    window("ai", "binary32", "-40.5", 12),
    window("zeta", "binary64", "1.5", 15),
    window("zeta", "binary64", "-7.25", 13),
    window("zeta", "binary32", "2.5", 12),
];

fn keyed(format: &Format, cases: &[Case]) -> Vec<(i128, Outcome)> {
    cases
        .iter()
        .map(|c| (format.ordinal(&c.x), c.outcome.clone()))
        .collect()
}

/// Compares every filtered method with the reference search on one window; returns the
/// number of cases and the mismatches.
fn check(w: &Window) -> (usize, Vec<String>) {
    let format = Format::parse(w.format).unwrap();
    let start = format.ordinal(&parse_rounded(w.from, &format).unwrap().0);
    let range = InputRange {
        format: format.clone(),
        start,
        end: start + (1i128 << w.log2len),
    };
    let params = SearchParams {
        bits: w.log2len - 2,
        breakpoints: Breakpoints::All,
        include_exact: true,
        max_precision: 8192,
    };
    let target = Target::parse(w.func).unwrap();
    let progress = AtomicU64::new(0);
    let mut reference = Vec::new();
    let ref_summary = reference_search(&target, &range, &params, &progress, &mut |c| {
        reference.push(c.clone())
    });
    let reference = keyed(&format, &reference);
    let mut failures = Vec::new();
    for method in [
        Method::Filter(Algorithm::RegularUnrolled),
        Method::Filter(Algorithm::Lefevre),
        Method::Exhaustive,
    ] {
        let mut filtered = Vec::new();
        let result = filtered_search(
            &target,
            &range,
            &params,
            &FilterParams::new(method),
            &progress,
            &mut |c: &Case| filtered.push(c.clone()),
        );
        let what = format!(
            "{} {} from {} 2^{} {method:?}",
            w.func, w.format, w.from, w.log2len
        );
        match result {
            Err(e) => failures.push(format!("{what}: filtered search failed: {e}")),
            Ok((summary, stats)) => {
                if w.through_models && stats.reference_inputs * 2 > summary.inputs {
                    failures.push(format!(
                        "{what}: {} of {} inputs went to MPFR: the models were not used",
                        stats.reference_inputs, summary.inputs
                    ));
                }
                let filtered = keyed(&format, &filtered);
                let same_counts = (
                    summary.inputs,
                    summary.hard,
                    summary.exact,
                    summary.unresolved,
                ) == (
                    ref_summary.inputs,
                    ref_summary.hard,
                    ref_summary.exact,
                    ref_summary.unresolved,
                );
                if filtered != reference || !same_counts {
                    failures.push(format!(
                        "{what}: {} cases, reference {}; summaries {summary:?} vs {ref_summary:?}",
                        filtered.len(),
                        reference.len()
                    ));
                }
            }
        }
    }
    (reference.len(), failures)
}

#[test]
fn special_function_filtered_searches_equal_the_reference_search() {
    let mut failures = Vec::new();
    let mut with_cases = 0;
    for w in WINDOWS {
        let started = std::time::Instant::now();
        let (cases, failed) = check(w);
        println!(
            "{} {} from {} 2^{}: {cases} cases, {:.2} s",
            w.func,
            w.format,
            w.from,
            w.log2len,
            started.elapsed().as_secs_f64()
        );
        with_cases += usize::from(cases > 0);
        failures.extend(failed);
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(
        with_cases * 10 >= WINDOWS.len() * 8,
        "only {with_cases} of {} windows hold cases: the comparison is too weak",
        WINDOWS.len()
    );
}
