//! Over whole binades of binary32 inputs, the filtered searches
//! (regular and Lefèvre lower bounds) and the fast exhaustive search (tabulated differences on
//! every input) list exactly what the reference search (MPFR on every input) lists: same
//! inputs, same outcomes, same order, same counts.
//!
//! The default run covers four functions over the first half of one binade each (2^22 inputs
//! from the binade's start, both signs, all three breakpoint modes); `TMD_EXTENSIVE=1` runs
//! them over their whole binades and adds eight more binades. K is chosen so each binade holds
//! some hundred cases. The reference dominates the time (about 1 µs per input).

use std::sync::atomic::AtomicU64;
use std::time::Instant;
use tmd_core::number::parse_exact;
use tmd_core::{Breakpoints, Format};
use tmd_search::lower_bound::Algorithm;
use tmd_search::{
    filtered_search, reference_search, Case, FilterParams, InputRange, Method, SearchParams,
    Summary, Target,
};

fn extensive() -> bool {
    tmd_test_tier::extensive()
}

/// One binade [from, to) of binary32 with K and the breakpoint kinds.
struct Binade {
    func: &'static str,
    from: &'static str,
    to: &'static str,
    bits: u32,
    mode: Breakpoints,
}

const fn binade(
    func: &'static str,
    from: &'static str,
    to: &'static str,
    bits: u32,
    mode: Breakpoints,
) -> Binade {
    Binade {
        func,
        from,
        to,
        bits,
        mode,
    }
}

/// The fast tier: every breakpoint mode, a function of each kind of growth.
const DEFAULT: [Binade; 4] = [
    binade("exp", "0x1p+0", "0x1p+1", 17, Breakpoints::Directed),
    binade("log", "0x1p+1", "0x1p+2", 18, Breakpoints::All),
    binade("sin", "-0x1p+0", "-0x1p-1", 17, Breakpoints::Nearest),
    binade("cbrt", "0x1p+4", "0x1p+5", 18, Breakpoints::All),
];

const EXTENSIVE: [Binade; 8] = [
    binade("atan", "0x1p+1", "0x1p+2", 17, Breakpoints::Directed),
    binade("exp2", "-0x1p+3", "-0x1p+2", 17, Breakpoints::Nearest),
    binade("expm1", "0x1p-4", "0x1p-3", 18, Breakpoints::All),
    binade("tanh", "0x1p-1", "0x1p+0", 17, Breakpoints::Directed),
    binade("log2", "0x1p+0", "0x1p+1", 18, Breakpoints::All),
    binade("cos", "0x1p+4", "0x1p+5", 17, Breakpoints::Nearest),
    binade("erf", "0x1p-2", "0x1p-1", 17, Breakpoints::Directed),
    binade("sinh", "-0x1p+3", "-0x1p+2", 18, Breakpoints::All),
];

fn counts(s: &Summary) -> [u64; 4] {
    [s.inputs, s.hard, s.exact, s.unresolved]
}

/// The first difference between two listings, in hex, or None.
fn first_difference(format: &Format, reference: &[Case], other: &[Case]) -> Option<String> {
    let missed = reference.iter().find(|c| !other.contains(c));
    let extra = other.iter().find(|c| !reference.contains(c));
    match (missed, extra) {
        (None, None) if reference == other => None,
        (None, None) => Some("same cases in another order".to_string()),
        _ => Some(format!(
            "missed {:?}, extra {:?} (format {})",
            missed.map(|c| c.x.to_hex()),
            extra.map(|c| c.x.to_hex()),
            format.name()
        )),
    }
}

/// Compares the searches over `b`, or over its first `inputs` inputs where given.
fn check(b: &Binade, inputs: Option<i128>) -> Vec<String> {
    let format = Format::binary32();
    let target = Target::parse(b.func).unwrap();
    let ordinal = |t: &str| format.ordinal(&parse_exact(t, &format).unwrap());
    let start = ordinal(b.from);
    let range = InputRange {
        format: format.clone(),
        start,
        end: inputs.map_or(ordinal(b.to), |n| start + n),
    };
    let params = SearchParams {
        bits: b.bits,
        breakpoints: b.mode,
        include_exact: true,
        max_precision: 8192,
    };
    let progress = AtomicU64::new(0);
    let t = Instant::now();
    let mut reference = Vec::new();
    let ref_summary = reference_search(&target, &range, &params, &progress, &mut |c| {
        reference.push(c.clone())
    });
    let ref_seconds = t.elapsed().as_secs_f64();
    let mut failures = Vec::new();
    let t = Instant::now();
    for method in [
        Method::Filter(Algorithm::RegularUnrolled),
        Method::Filter(Algorithm::Lefevre),
        Method::Exhaustive,
    ] {
        let mut found: Vec<Case> = Vec::new();
        let (summary, _) = filtered_search(
            &target,
            &range,
            &params,
            &FilterParams::new(method),
            &progress,
            &mut |c: &Case| found.push(c.clone()),
        )
        .unwrap();
        let mut why = first_difference(&format, &reference, &found);
        if why.is_none() && counts(&summary) != counts(&ref_summary) {
            why = Some(format!(
                "counts {:?} vs reference {:?}",
                counts(&summary),
                counts(&ref_summary)
            ));
        }
        if let Some(why) = why {
            failures.push(format!(
                "{} binary32 [{}, {}) K {} {}: {method:?}: {why}",
                b.func,
                b.from,
                format.from_ordinal(range.end).to_hex(),
                b.bits,
                b.mode.name()
            ));
        }
    }
    println!(
        "{} [{}, {}) K {} {}: {} cases (hard {}, exact {}); reference {:.1} s, three fast methods {:.1} s",
        b.func,
        b.from,
        format.from_ordinal(range.end).to_hex(),
        b.bits,
        b.mode.name(),
        reference.len(),
        ref_summary.hard,
        ref_summary.exact,
        ref_seconds,
        t.elapsed().as_secs_f64()
    );
    // A binade without cases would compare nothing.
    assert!(
        ref_summary.hard >= 20,
        "{}: only {} cases, the comparison is too weak",
        b.func,
        ref_summary.hard
    );
    failures
}

/// Whole binades in the large tier; the first half of each in the fast tier (the binade's
/// start, where the filter's pieces begin, included).
#[test]
fn binary32_binades_filter_equals_reference() {
    let mut binades: Vec<&Binade> = DEFAULT.iter().collect();
    if extensive() {
        binades.extend(EXTENSIVE.iter());
    }
    let format = Format::binary32();
    for b in &binades {
        let ordinal = |t: &str| format.ordinal(&parse_exact(t, &format).unwrap());
        assert_eq!(
            ordinal(b.to) - ordinal(b.from),
            1 << 23,
            "{}: not a binade",
            b.func
        );
    }
    let inputs = (!extensive()).then_some(1i128 << 22);
    let failures: Vec<String> = binades.into_iter().flat_map(|b| check(b, inputs)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Where the functions are steep (sin, cos and tan past 2^3: each input moves the result by
/// tens to hundreds of its ulps), chunks have domains of one input and packets of a few
/// hundred inputs; these windows of 2^16 to 2^17 inputs hold such chunks, and every search
/// lists what MPFR on every input lists.
#[test]
fn steep_trigonometric_windows_equal_the_reference() {
    let windows = [
        binade("sin", "0x1p+7", "0x1.02p+7", 11, Breakpoints::All),
        binade("cos", "-0x1.42p+6", "-0x1.4p+6", 11, Breakpoints::Directed),
        binade("tan", "0x1.8p+4", "0x1.84p+4", 11, Breakpoints::Nearest),
    ];
    let failures: Vec<String> = windows.iter().flat_map(|w| check(w, None)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Where the per-input screen decides (binary32 sin, cos and tan from 2^3 up to the largest
/// binade, `tmd_search::screen`): random windows of 2^15 inputs of random sign and exponent,
/// each listing what MPFR on every input lists, and the screen must have cleared most of
/// their inputs (so that the comparison is one of the screen, not of MPFR against itself).
#[test]
fn screened_windows_anywhere_equal_the_reference() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5c7ee7);
    let count = if extensive() { 48 } else { 9 };
    let format = Format::binary32();
    let mut failures = Vec::new();
    for i in 0..count {
        let func = ["sin", "cos", "tan"][i % 3];
        let mode = [
            Breakpoints::All,
            Breakpoints::Directed,
            Breakpoints::Nearest,
        ][(i / 3) % 3];
        let exponent: i32 = rng.gen_range(3..=127);
        let mantissa = rng.gen_range(0u32..(1 << 23) - (1 << 15));
        let first = mantissa | ((exponent as u32 + 127) << 23);
        let neg = rng.gen_bool(0.5);
        // The window's ends as hex text: |x| from first to first + 2^15, ordered by value.
        let text = |bits: u32| -> &'static str {
            let (mant, qexp) = ((bits & 0x7f_ffff) | 0x80_0000, (bits >> 23) as i64 - 150);
            Box::leak(tmd_core::format::hex_string(neg, mant as u128, qexp).into())
        };
        let (near, far) = (text(first), text(first + (1 << 15)));
        let (from, to) = if neg { (far, near) } else { (near, far) };
        let window = binade(func, from, to, 11, mode);
        failures.extend(check(&window, None));
        // How much of the window the screen cleared.
        let target = Target::parse(func).unwrap();
        let ordinal = |t: &str| format.ordinal(&parse_exact(t, &format).unwrap());
        let range = InputRange {
            format: format.clone(),
            start: ordinal(from),
            end: ordinal(to),
        };
        let params = SearchParams {
            bits: 11,
            breakpoints: mode,
            include_exact: true,
            max_precision: 8192,
        };
        let (summary, stats) = filtered_search(
            &target,
            &range,
            &params,
            &FilterParams::new(Method::Filter(Algorithm::RegularUnrolled)),
            &AtomicU64::new(0),
            &mut |_: &Case| {},
        )
        .unwrap();
        assert!(
            stats.screened_inputs * 10 > summary.inputs * 9,
            "{func} [{from}, {to}): the screen cleared {} of {} inputs",
            stats.screened_inputs,
            summary.inputs
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
