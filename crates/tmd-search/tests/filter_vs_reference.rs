//! The filtered searches list exactly what the reference search lists. On every window the reference search (MPFR on every input) runs once; then the
//! filtered search runs with Lefèvre's lower bound, the regular one (unrolled, and on some
//! windows the plain form and Lefèvre's swapped form), the exhaustive method and the lattice
//! method, on some windows
//! also with non-default domain sizes, κ, division thresholds and chunk lengths (the
//! chunk-splitting paths). Each must give the same cases (same x, same outcome, same order) and
//! the same counts of inputs, hard, exact and unresolved cases. The filter only pre-selects the
//! inputs that MPFR then decides, so any difference is a candidate the filter missed (or a
//! bookkeeping error): a soundness bug.
//!
//! The windows are deterministic (a seeded ChaCha8 draws their positions inside fixed
//! regions): exp, exp2, exp10, expm1, log, log2, log10, log1p, sin, cos, tan, atan, sinh, tanh,
//! cbrt, erf, erfc and every other function with a Taylor model, and two expressions; near 1
//! and far from it (exp near ±700, log near 2^±1000, sin and cos near ±2^20, tan next to its
//! pole, expm1 near 2^-21), both signs, the three breakpoint modes; windows crossing a result
//! binade (exp across ln 2, sin across π/6, log across e), an input binade (log2 across 1 and 2,
//! cos across -2^20, cbrt across 2^30), zero (tanh over binary16 and atan over binary32
//! subnormals, where every nonzero x is hard); exact cases kept with `include_exact` (exp2 at
//! integers, log2 at 1 and 2, cbrt of cubes, sqrt of squares); binary64 mostly, and binary32,
//! p40, binary80, binary128, bfloat16 and binary16. K is chosen per window so that about 16 cases are expected
//! (`len·2^(1-K)` for one kind of breakpoints, `len·2^(2-K)` for both). A few windows hold none
//! by nature: across ln 2 the results of exp advance by almost exactly one ulp per input
//! (f'·h/u = 2·2^-53/2^-52), so they all lie at nearly one distance from the breakpoints.
//!
//! The default run (`filter_equals_reference_fast`, about 10 s in release on two cores)
//! takes 18 windows of 2^10 to 2^18 inputs. The full set
//! (`filter_equals_reference_extensive`: 94 windows, 82 of them of 2^20 binary64,
//! binary32 or p40 inputs, over 35 functions and two expressions; about 6 minutes on two
//! cores) is ignored by default and runs with
//! ```text
//! TMD_EXTENSIVE=1 cargo test --release -p tmd-search --test filter_vs_reference -- --ignored --nocapture
//! ```
//! and prints one line per window (function, format, start, length, K, mode, cases, seconds).
//! A mismatch is reported with the window, the method, the parameters, the missed and extra
//! inputs in hex, and the `filter_compare` example command that reproduces it.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::time::Instant;
use tmd_core::number::parse_rounded;
use tmd_core::{Breakpoints, Format, Outcome};
use tmd_search::filter::lattice::{LatticeParams, SHAPES};
use tmd_search::filter::stats::FilterStats;
use tmd_search::lower_bound::Algorithm;
use tmd_search::{
    filtered_search, reference_search, Case, FilterParams, InputRange, Method, SearchParams,
    Summary, Target,
};

const D: Breakpoints = Breakpoints::Directed;
const N: Breakpoints = Breakpoints::Nearest;
const A: Breakpoints = Breakpoints::All;

/// ln 2 rounded to binary64: exp crosses 2 there.
const LN2: &str = "0x1.62e42fefa39efp-1";
/// π/6: sin crosses 1/2 there.
const PI_6: &str = "0.52359877559829887";
/// e: log crosses 1 there.
const E: &str = "2.7182818284590452";

fn extensive() -> bool {
    tmd_test_tier::extensive()
}

/// Where a window lies.
#[derive(Clone, Copy, Debug)]
enum Place {
    /// Drawn uniformly among the windows inside [lo, hi).
    In(&'static str, &'static str),
    /// Holding this number, at a random offset (its middle three quarters).
    Across(&'static str),
}

/// A window before its position is drawn.
#[derive(Clone, Debug)]
struct Spec {
    func: &'static str,
    format: &'static str,
    place: Place,
    log2len: u32,
    mode: Breakpoints,
    include_exact: bool,
}

fn spec(
    func: &'static str,
    format: &'static str,
    place: Place,
    log2len: u32,
    mode: Breakpoints,
) -> Spec {
    Spec {
        func,
        format,
        place,
        log2len,
        mode,
        include_exact: true,
    }
}

impl Spec {
    fn no_exact(mut self) -> Spec {
        self.include_exact = false;
        self
    }
}

use Place::{Across, In};

/// A window with its position drawn.
struct Window {
    func: &'static str,
    format: Format,
    range: InputRange,
    log2len: u32,
    k: u32,
    mode: Breakpoints,
    include_exact: bool,
}

impl Window {
    fn draw(s: &Spec, rng: &mut ChaCha8Rng) -> Window {
        let format = Format::parse(s.format).unwrap();
        let ord = |text: &str| format.ordinal(&parse_rounded(text, &format).unwrap().0);
        let len = 1i128 << s.log2len;
        let start = match s.place {
            In(lo, hi) => {
                let (lo, hi) = (ord(lo), ord(hi));
                assert!(hi - lo >= len, "{s:?}: the region holds fewer inputs");
                lo + rng.gen_range(0..=hi - lo - len)
            }
            Across(p) => ord(p) - rng.gen_range(len / 8..len * 7 / 8),
        };
        let k = s.log2len as i32 - 3 + i32::from(s.mode == A);
        Window {
            func: s.func,
            format: format.clone(),
            range: InputRange {
                format,
                start,
                end: start + len,
            },
            log2len: s.log2len,
            k: k as u32,
            mode: s.mode,
            include_exact: s.include_exact,
        }
    }

    fn start_hex(&self) -> String {
        self.format.from_ordinal(self.range.start).to_hex()
    }

    fn describe(&self) -> String {
        format!(
            "{} {} from {} len 2^{} K {} {}{}",
            self.func,
            self.format.name(),
            self.start_hex(),
            self.log2len,
            self.k,
            self.mode.name(),
            if self.include_exact {
                ""
            } else {
                " (exact cases not listed)"
            },
        )
    }

    fn params(&self) -> SearchParams {
        SearchParams {
            bits: self.k,
            breakpoints: self.mode,
            include_exact: self.include_exact,
            max_precision: 8192,
        }
    }
}

/// The filter configurations tried on window number `i`.
fn configurations(i: usize) -> Vec<(String, FilterParams)> {
    let mut methods = vec![
        Method::Filter(Algorithm::RegularUnrolled),
        Method::Filter(Algorithm::Lefevre),
        Method::Exhaustive,
        Method::Lattice(LatticeParams::default()),
    ];
    if i % 3 == 2 {
        methods.push(Method::Cheaper(Algorithm::RegularUnrolled));
    }
    if i.is_multiple_of(3) {
        // Each lattice shape of the per-chunk choice, fixed, on every third window in turn.
        let shape = SHAPES[(i / 3) % SHAPES.len()];
        methods.push(Method::Lattice(LatticeParams::Fixed(shape)));
    }
    if i % 3 == 1 {
        methods.push(Method::Filter(Algorithm::LefevreSwap));
        methods.push(Method::Filter(Algorithm::Regular));
    }
    let mut out: Vec<(String, FilterParams)> = methods
        .into_iter()
        .map(|m| (format!("{m:?} (defaults)"), FilterParams::new(m)))
        .collect();
    // Non-default parameters: small domains and chunks (many chunks and packets, chunks that
    // cannot be halved), the largest domains, division thresholds > 0.
    let custom = |m: Method, n: u64, kappa: u64, t: u32, chunk: u64| {
        let mut p = FilterParams::new(m);
        p.domain_size = n;
        p.kappa = kappa;
        p.division_threshold = t;
        p.chunk_len = chunk;
        (
            format!("{m:?} domain_size {n} kappa {kappa} division_threshold {t} chunk_len {chunk}"),
            p,
        )
    };
    match i % 4 {
        0 => {
            out.push(custom(
                Method::Filter(Algorithm::RegularUnrolled),
                1 << 10,
                4,
                3,
                1 << 16,
            ));
            out.push(custom(
                Method::Filter(Algorithm::Lefevre),
                1 << 10,
                4,
                3,
                1 << 16,
            ));
        }
        2 => {
            out.push(custom(
                Method::Filter(Algorithm::Lefevre),
                1 << 6,
                2,
                1,
                1 << 12,
            ));
            out.push(custom(Method::Exhaustive, 1 << 8, 8, 0, 1 << 13));
        }
        1 => {
            // A tiny candidate cap: chunks with more candidates are searched again in pieces,
            // down to pieces decided by MPFR per input.
            for m in [
                Method::Filter(Algorithm::RegularUnrolled),
                Method::Exhaustive,
            ] {
                let mut p = FilterParams::new(m);
                p.candidate_cap = 16;
                p.chunk_len = 1 << 16;
                out.push((format!("{m:?} candidate_cap 16 chunk_len 65536"), p));
            }
        }
        3 if i % 8 == 3 => out.push(custom(
            Method::Filter(Algorithm::RegularUnrolled),
            1 << 20,
            64,
            8,
            1 << 44,
        )),
        _ => {}
    }
    out
}

/// A case as compared: ordinal and outcome.
fn keyed(format: &Format, cases: &[Case]) -> Vec<(i128, Outcome)> {
    cases
        .iter()
        .map(|c| (format.ordinal(&c.x), c.outcome.clone()))
        .collect()
}

fn hex_list(format: &Format, ords: &[i128]) -> String {
    let shown: Vec<String> = ords
        .iter()
        .take(20)
        .map(|&o| format.from_ordinal(o).to_hex())
        .collect();
    let more = if ords.len() > 20 {
        format!(" and {} more", ords.len() - 20)
    } else {
        String::new()
    };
    format!("[{}]{more}", shown.join(", "))
}

/// What is compared of a summary.
fn counts(s: &Summary) -> [u64; 4] {
    [s.inputs, s.hard, s.exact, s.unresolved]
}

/// The difference between the reference listing and a filtered one, or None when equal.
fn difference(
    w: &Window,
    reference: &[(i128, Outcome)],
    filtered: &[(i128, Outcome)],
    ref_summary: &Summary,
    summary: &Summary,
) -> Option<String> {
    if reference == filtered && counts(ref_summary) == counts(summary) {
        return None;
    }
    let r: BTreeMap<i128, &Outcome> = reference.iter().map(|(o, c)| (*o, c)).collect();
    let f: BTreeMap<i128, &Outcome> = filtered.iter().map(|(o, c)| (*o, c)).collect();
    let missed: Vec<i128> = r.keys().filter(|o| !f.contains_key(o)).copied().collect();
    let extra: Vec<i128> = f.keys().filter(|o| !r.contains_key(o)).copied().collect();
    let mut text = format!(
        "  {} cases listed by the reference, {} by the filter\n  missed {}: {}\n  extra {}: {}\n  summary [inputs, hard, exact, unresolved]: reference {:?}, filtered {:?}",
        reference.len(),
        filtered.len(),
        missed.len(),
        hex_list(&w.format, &missed),
        extra.len(),
        hex_list(&w.format, &extra),
        counts(ref_summary),
        counts(summary),
    );
    for (o, outcome) in &r {
        if let Some(other) = f.get(o) {
            if other != outcome {
                text += &format!(
                    "\n  {}: reference {outcome:?}, filtered {other:?}",
                    w.format.from_ordinal(*o).to_hex()
                );
            }
        }
    }
    let sorted = filtered.windows(2).all(|p| p[0].0 < p[1].0);
    if !sorted {
        text += "\n  the filtered listing is not in increasing x";
    }
    Some(text)
}

/// The outcome of one window.
struct Checked {
    cases: usize,
    failures: Vec<String>,
}

fn check_window(i: usize, w: &Window) -> Checked {
    let target = Target::parse(w.func).unwrap();
    let params = w.params();
    let progress = AtomicU64::new(0);
    let t = Instant::now();
    let mut reference: Vec<Case> = Vec::new();
    let ref_summary = reference_search(&target, &w.range, &params, &progress, &mut |c| {
        reference.push(c.clone())
    });
    let ref_seconds = t.elapsed().as_secs_f64();
    let reference = keyed(&w.format, &reference);
    let mut failures = Vec::new();
    let t = Instant::now();
    let configs = configurations(i);
    for (name, filter) in &configs {
        let mut filtered: Vec<Case> = Vec::new();
        let result = filtered_search(
            &target,
            &w.range,
            &params,
            filter,
            &progress,
            &mut |c: &Case| filtered.push(c.clone()),
        );
        let failure = match result {
            Err(e) => Some(format!("  filtered search failed: {e}")),
            Ok((summary, _stats)) => difference(
                w,
                &reference,
                &keyed(&w.format, &filtered),
                &ref_summary,
                &summary,
            ),
        };
        if let Some(text) = failure {
            let method = match filter.method {
                Method::Filter(Algorithm::Lefevre | Algorithm::LefevreSwap) => "lefevre",
                Method::Filter(_) => "regular",
                Method::Exhaustive => "exhaustive",
                Method::Lattice(_) => "lattice",
                Method::Cheaper(_) => "regular-or-lattice",
            };
            failures.push(format!(
                "MISMATCH window {i}: {}, {name}\n{text}\n  reproduce: cargo run --release -p tmd-search --example filter_compare -- '{}' {} {} {} {} {} {method} ref",
                w.describe(),
                w.func,
                w.format.name(),
                w.start_hex(),
                w.log2len,
                w.k,
                w.mode.name(),
            ));
        }
    }
    println!(
        "window {i:2}: {:<70} cases {:4} (hard {}, exact {}, unresolved {}) reference {:.2} s, {} filtered runs {:.2} s{}",
        w.describe(),
        reference.len(),
        ref_summary.hard,
        ref_summary.exact,
        ref_summary.unresolved,
        ref_seconds,
        configs.len(),
        t.elapsed().as_secs_f64(),
        if failures.is_empty() { "" } else { "  MISMATCH" },
    );
    Checked {
        cases: reference.len(),
        failures,
    }
}

/// Windows where the function is nearly linear with a simple rational slope in ulps (cbrt
/// next to 2^(3k), odd functions on subnormals) list a large share of their inputs; they are
/// compared like the others but left out of the count that shows the windows held cases.
const CROWDED: usize = 1000;

/// Runs every window, then asserts equality everywhere and that the windows held cases.
fn run(specs: &[Spec], seed: u64) -> (usize, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let windows: Vec<Window> = specs.iter().map(|s| Window::draw(s, &mut rng)).collect();
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut total = 0;
    let mut typical = 0;
    let mut with_cases = 0;
    for (i, w) in windows.iter().enumerate() {
        let checked = check_window(i, w);
        total += checked.cases;
        if checked.cases <= CROWDED {
            typical += checked.cases;
        }
        with_cases += usize::from(checked.cases > 0);
        failures.extend(checked.failures);
    }
    println!(
        "{} windows, {} with cases, {} cases compared ({} in windows of at most {CROWDED} cases), {:.1} s",
        windows.len(),
        with_cases,
        total,
        typical,
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(
        with_cases * 10 >= windows.len() * 8,
        "only {with_cases} of {} windows hold cases: the comparison is too weak",
        windows.len()
    );
    assert!(
        typical >= 8 * windows.len(),
        "only {typical} cases over {} windows: the comparison is too weak",
        windows.len()
    );
    (windows.len(), total)
}

/// The default subset: small windows over the risky places.
fn fast_specs() -> Vec<Spec> {
    vec![
        spec("exp", "binary64", In("0.9", "1.1"), 18, D),
        spec("exp", "binary64", In("700", "709"), 18, A),
        spec("exp", "binary64", In("-708", "-700"), 17, N),
        spec("exp", "binary64", Across(LN2), 16, A),
        spec("sin", "binary64", Across(PI_6), 17, A),
        spec("log", "binary64", In("0x1p1000", "0x1p1001"), 18, D),
        spec("log", "binary64", In("0x1.00001p0", "0x1.00002p0"), 17, N),
        spec("sin", "binary64", In("0x1p20", "0x1.004p20"), 18, N),
        spec("cos", "binary64", In("-0x1.004p20", "-0x1p20"), 17, D),
        spec("tan", "binary64", In("1.5707962", "1.5707963"), 17, A),
        spec("log2", "binary64", Across("2"), 17, A),
        spec("exp2", "binary32", Across("3"), 16, A),
        spec("cbrt", "binary32", Across("27"), 16, A),
        spec("erf", "binary64", In("-2", "-1"), 17, D),
        spec("expm1", "binary64", In("-0x1p-11", "-0x1p-12"), 17, A),
        spec("atan", "p40", In("0.5", "2"), 17, N),
        spec("exp", "binary80", In("1", "2"), 16, A),
        spec("log", "binary80", In("0x1p10000", "0x1p10001"), 16, D),
        spec("exp", "binary128", In("1", "2"), 14, A),
        spec("sinh", "bfloat16", In("-89", "-0.3"), 10, N),
        spec("log", "binary16", In("0x1p-24", "65504"), 14, D),
    ]
}

/// The full set: at least 50 windows of 2^20 inputs over at least 12 functions, and special
/// windows.
fn extensive_specs() -> Vec<Spec> {
    let b64 = "binary64";
    vec![
        // exp: near 1, far from it, both signs, subnormal results, across a result binade.
        spec("exp", b64, In("0.9", "1.1"), 20, D),
        spec("exp", b64, In("1.5", "1.9"), 20, N),
        spec("exp", b64, In("700", "709"), 20, A),
        spec("exp", b64, In("-5.5", "-4.5"), 20, D),
        spec("exp", b64, In("-708", "-700"), 20, N),
        spec("exp", b64, In("-740", "-709"), 20, D),
        spec("exp", b64, Across(LN2), 20, A),
        spec("sin", b64, Across(PI_6), 20, D),
        spec("log", b64, Across(E), 20, N),
        spec("exp2", b64, In("0.3", "0.7"), 20, D),
        spec("exp2", b64, In("-20", "-10"), 20, A),
        spec("exp2", b64, In("1000", "1023"), 20, N),
        spec("exp10", b64, In("0.1", "0.4"), 20, D),
        spec("exp10", b64, In("-300", "-200"), 20, N),
        spec("exp10", b64, In("200", "307"), 20, A),
        spec("expm1", b64, In("0x1p-21", "0x1p-20"), 20, A),
        spec("expm1", b64, In("-0.5", "-0.1"), 20, D),
        spec("expm1", b64, In("3", "10"), 20, N),
        // Logarithms: near 1, near 1 + tiny, near 2^±1000.
        spec("log", b64, In("1.4", "1.6"), 20, D),
        spec("log", b64, In("0x1p1000", "0x1p1001"), 20, A),
        spec("log", b64, In("0x1.00001p0", "0x1.00002p0"), 20, N),
        spec("log", b64, In("0x1p-1000", "0x1p-999"), 20, D),
        spec("log", b64, In("0.5", "0.9"), 20, N),
        spec("log2", b64, In("3", "5"), 20, D),
        spec("log2", b64, In("1e-300", "1e-290"), 20, A),
        spec("log10", b64, In("7", "9"), 20, N),
        spec("log10", b64, In("1e100", "1e110"), 20, D),
        spec("log1p", b64, In("0.1", "0.5"), 20, A),
        spec("log1p", b64, In("-0.9", "-0.5"), 20, D),
        spec("log1p", b64, In("0x1p-14", "0x1p-13"), 20, N),
        // Trigonometric: near 1, near ±2^20 (across -2^20: an input binade), next to a pole.
        spec("sin", b64, In("0.9", "1.1"), 20, D),
        spec("sin", b64, In("0x1p20", "0x1.004p20"), 20, A),
        spec("sin", b64, In("-0x1.004p20", "-0x1p20"), 20, N),
        spec("sin", b64, In("-3", "-2"), 20, D),
        spec("cos", b64, In("0.9", "1.1"), 20, N),
        spec("cos", b64, In("0x1p20", "0x1p21"), 20, D),
        spec("cos", b64, Across("-0x1p20"), 20, A),
        spec("tan", b64, In("0.9", "1.1"), 20, A),
        spec("tan", b64, In("1.5707962", "1.5707963"), 20, D),
        spec("tan", b64, In("-0.8", "-0.2"), 20, N),
        spec("atan", b64, In("0.5", "2"), 20, D),
        spec("atan", b64, In("-1e6", "-1e3"), 20, N),
        spec("atan", b64, In("0x1p-10", "0x1p-9"), 20, A),
        // Hyperbolic, cbrt, erf, erfc.
        spec("sinh", b64, In("0.5", "3"), 20, D),
        spec("sinh", b64, In("-700", "-600"), 20, A),
        spec("tanh", b64, In("0.2", "0.6"), 20, N),
        spec("tanh", b64, In("-3", "-1"), 20, D),
        spec("tanh", b64, In("3", "5"), 20, A),
        spec("cbrt", b64, In("1", "7.9"), 20, D),
        spec("cbrt", b64, In("-1e10", "-1e5"), 20, N),
        spec("cbrt", b64, Across("0x1p30"), 20, A),
        spec("erf", b64, In("0.3", "0.8"), 20, D),
        spec("erf", b64, In("-2", "-1"), 20, A),
        spec("erf", b64, In("2", "3"), 20, N),
        spec("erfc", b64, In("0.5", "2"), 20, D),
        // MPFR is slow on erfc of large x (40 s per 2^20 inputs at 4.5): a shorter window.
        spec("erfc", b64, In("4", "6"), 18, A),
        spec("erfc", b64, In("-3", "-1"), 20, N),
        // The other functions with a Taylor model, and two expressions.
        spec("sqrt", b64, In("2", "4"), 20, A),
        spec("rsqrt", b64, In("0.3", "0.9"), 20, N),
        spec("cosh", b64, In("1", "5"), 20, D),
        spec("asinh", b64, In("2", "100"), 20, N),
        spec("acosh", b64, In("1.5", "10"), 20, A),
        spec("atanh", b64, In("-0.9", "-0.1"), 20, D),
        spec("asin", b64, In("0.2", "0.9"), 20, D),
        spec("acos", b64, In("-0.9", "-0.2"), 20, N),
        spec("sinpi", b64, In("0.1", "0.4"), 20, N),
        spec("cospi", b64, In("1000.1", "1000.4"), 20, A),
        spec("tanpi", b64, In("0.1", "0.4"), 20, D),
        spec("exp2m1", b64, In("-1", "-0.1"), 20, A),
        spec("exp10m1", b64, In("0.01", "0.1"), 20, A),
        spec("log2p1", b64, In("0.2", "0.7"), 20, D),
        spec("log10p1", b64, In("5", "50"), 20, N),
        spec("asinpi", b64, In("-0.9", "-0.2"), 20, N),
        spec("acospi", b64, In("0.1", "0.9"), 20, A),
        spec("atanpi", b64, In("1", "5"), 20, D),
        spec("x*exp(x)", b64, In("0.5", "2"), 20, D),
        spec("sin(x)/x", b64, In("0.5", "1.5"), 20, N),
        // Other formats.
        spec("exp", "binary32", In("1", "2"), 20, D),
        spec("log", "binary32", In("0x1p100", "0x1p101"), 20, A),
        spec("sin", "p40", In("1", "2"), 20, N),
        spec("log", "p40", In("0.5", "1"), 20, D).no_exact(),
        spec("exp", "binary80", In("1", "2"), 20, N),
        spec("exp", "binary80", In("-11000", "-10000"), 18, A),
        spec("sin", "binary80", In("0x1p10", "0x1p11"), 18, D),
        spec("cbrt", "binary80", Across("27"), 18, A),
        spec("exp", "binary128", In("-100", "-1"), 16, N),
        spec("sin", "binary128", In("0x1p-10", "0x1p10"), 16, D),
        spec("sinh", "bfloat16", In("-89", "-0.3"), 10, N),
        spec("sinh", "bfloat16", In("0.3", "89"), 10, D),
        spec("tanh", "binary16", Across("0"), 12, D),
        spec("log", "binary16", In("0x1p-24", "65504"), 14, D),
        spec("exp", "binary16", In("-17", "11"), 15, A),
        // Exact cases must survive the filter (and the binades they sit on).
        spec("exp2", "binary32", Across("3"), 18, A),
        spec("exp2", "binary32", Across("-2"), 18, D),
        spec("log2", b64, Across("1"), 20, A),
        spec("log2", b64, Across("2"), 20, A),
        spec("cbrt", "binary32", Across("8"), 18, D),
        spec("cbrt", "binary32", Across("27"), 18, A),
        spec("sqrt", "binary32", Across("2.25"), 18, A),
        // Across zero, over binary32 subnormals: every nonzero x is hard.
        spec("atan", "binary32", Across("0"), 16, A),
    ]
}

/// Exact results on the grid of the other breakpoint kind: exp2 of integers (format numbers) in
/// nearest-only searches, and 'x*x' whose squares of p-bit numbers can be exact midpoints in
/// directed-only searches. The filter once searched each kind on its own grid and missed them.
#[test]
fn exact_cases_on_the_other_breakpoint_grid_are_found() {
    let specs = [
        spec("exp2", "binary32", Across("-8"), 14, N),
        spec("exp2", "binary64", Across("5"), 16, N),
        spec("x*x", "binary16", In("1", "4"), 10, D),
        spec("x*x", "p20", Across("3"), 12, D),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut failures = Vec::new();
    let mut exact = 0;
    for (i, s) in specs.iter().enumerate() {
        let w = Window::draw(s, &mut rng);
        let checked = check_window(i, &w);
        failures.extend(checked.failures);
        exact += checked.cases;
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(exact >= 4, "the windows must hold cases");
}

/// The filtered search of `range`: its cases in x order, its summary and its statistics.
fn filtered_cases(
    target: &Target,
    range: &InputRange,
    params: &SearchParams,
    filter: &FilterParams,
) -> (Vec<Case>, Summary, FilterStats) {
    let mut cases = Vec::new();
    let (summary, stats) = filtered_search(
        target,
        range,
        params,
        filter,
        &AtomicU64::new(0),
        &mut |c: &Case| cases.push(c.clone()),
    )
    .unwrap();
    (cases, summary, stats)
}

/// Chunks whose results all overflow, or all lie far below the smallest subnormal, are decided
/// as a whole from an interval enclosure; next to the thresholds the filter and MPFR take over.
#[test]
fn overflow_and_underflow_chunks_are_decided_whole() {
    let specs = [
        spec("exp", "binary16", In("-65504", "65504"), 15, A),
        spec("exp", "binary32", Across("88.72284"), 18, A),
        spec("exp", "binary32", Across("-103.97208"), 18, D),
        spec("exp2", "binary32", Across("-150"), 18, N),
        spec("sinh", "binary32", Across("-89.41599"), 17, A),
        spec("exp", "binary64", In("-0x1p+101", "-0x1p+100"), 16, A),
        spec("exp2", "binary64", In("0x1p+20", "0x1p+21"), 16, D),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(88);
    let mut failures = Vec::new();
    let mut whole = 0;
    for (i, s) in specs.iter().enumerate() {
        let w = Window::draw(s, &mut rng);
        failures.extend(check_window(i, &w).failures);
        let target = Target::parse(w.func).unwrap();
        let filter = FilterParams::new(Method::Filter(Algorithm::RegularUnrolled));
        let (_, _, stats) = filtered_cases(&target, &w.range, &w.params(), &filter);
        whole += stats.whole_chunk_inputs;
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(whole > 0, "no chunk was decided as a whole");
}

/// Where a range left to the filter is longer than two chunks, the parts beyond the overflow
/// and tiny thresholds are found by halving and decided as one job each; next to the threshold
/// chunks are searched. With chunks of 2^12, 2^18 inputs across each threshold of binary32 exp
/// (and the start of log's domain) give MPFR's cases and counts, input by input.
#[test]
fn pieces_halved_across_a_threshold_give_the_reference_output() {
    let format = Format::binary32();
    let ord = |t: &str| format.ordinal(&parse_rounded(t, &format).unwrap().0);
    let params = SearchParams {
        bits: 12,
        breakpoints: A,
        include_exact: true,
        max_precision: 8192,
    };
    let mut filter = FilterParams::new(Method::Filter(Algorithm::RegularUnrolled));
    filter.chunk_len = 1 << 12;
    for (func, at) in [("exp", "88.72284"), ("exp", "-104.66"), ("log", "0")] {
        let middle = ord(at);
        let range = InputRange {
            format: format.clone(),
            start: middle - (1 << 17),
            end: middle + (1 << 17),
        };
        let target = Target::parse(func).unwrap();
        let mut expected = Vec::new();
        let reference = reference_search(&target, &range, &params, &AtomicU64::new(0), &mut |c| {
            expected.push(c.clone())
        });
        let (listed, summary, stats) = filtered_cases(&target, &range, &params, &filter);
        let what = format!("{func} around {at}");
        assert_eq!(keyed(&format, &listed), keyed(&format, &expected), "{what}");
        let all = |s: &Summary| [s.inputs, s.hard, s.exact, s.undefined, s.poles, s.overflow];
        assert_eq!(all(&summary), all(&reference), "{what}");
        // Most of one side is decided whole (the halving itself: whole::tests).
        assert!(stats.whole_chunk_inputs >= 1 << 16, "{what}: {stats:?}");
        assert!(
            stats.chunks < 1 << 6,
            "{what}: {} chunks searched",
            stats.chunks
        );
    }
}

/// exp(-2^100) underflows in MPFR, so the enclosure of exp over [-2^127, -2^8) starts at 0;
/// exp is known positive, so those chunks are still decided as a whole (they once went to MPFR
/// input by input: 830 million inputs and four minutes of the binary32 range of exp).
#[test]
fn underflowed_enclosure_of_positive_function_is_decided_whole() {
    let format = Format::binary32();
    let ord = |t: &str| format.ordinal(&parse_rounded(t, &format).unwrap().0);
    let range = InputRange {
        format: format.clone(),
        start: ord("-0x1.fffffep+127"),
        end: ord("-0x1p+8"),
    };
    let params = SearchParams {
        bits: 24,
        breakpoints: A,
        include_exact: true,
        max_precision: 8192,
    };
    let filter = FilterParams::new(Method::Exhaustive);
    let (cases, summary, stats) =
        filtered_cases(&Target::parse("exp").unwrap(), &range, &params, &filter);
    assert!(cases.is_empty());
    assert_eq!(summary.inputs as i128, range.end - range.start);
    assert_eq!(stats.whole_chunk_inputs, summary.inputs);
    assert_eq!(stats.reference_inputs, 0);
}

#[test]
fn filter_equals_reference_fast() {
    let (windows, cases) = run(&fast_specs(), 4);
    println!("fast: {windows} windows, {cases} cases");
}

#[test]
#[ignore = "runs for minutes: TMD_EXTENSIVE=1 cargo test --release -p tmd-search --test filter_vs_reference -- --ignored"]
fn filter_equals_reference_extensive() {
    assert!(
        extensive(),
        "set TMD_EXTENSIVE=1 to compare on the full set of windows (this test does nothing without it)"
    );
    let specs = extensive_specs();
    let big: Vec<&Spec> = specs
        .iter()
        .filter(|s| s.log2len >= 20 && s.format != "bfloat16" && s.format != "binary16")
        .collect();
    let mut functions: Vec<&str> = big.iter().map(|s| s.func).collect();
    functions.sort();
    functions.dedup();
    assert!(big.len() >= 50 && functions.len() >= 12);
    let (windows, cases) = run(&specs, 40);
    println!(
        "extensive: {windows} windows ({} of 2^20 inputs, {} functions), {cases} cases",
        big.len(),
        functions.len()
    );
}
