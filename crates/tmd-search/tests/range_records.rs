//! Range records against the reference search: a filtered search whose listing takes range
//! records (`Listing::accepts_ranges`) lists each piece the rule proves all hard as one record;
//! expanded, the records and the cases must be exactly what the reference search (MPFR on
//! every input) lists, with the same counts. Windows are drawn uniformly over the ordinals of
//! binary32, so tiny inputs (where the records are) and huge ones are as likely as any, plus
//! windows across zero and across the edges of the records.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::AtomicU64;
use tmd_core::{Breakpoints, Format, Kind, Outcome};
use tmd_search::lower_bound::Algorithm;
use tmd_search::regime::{decided_pieces, RangeRecord, Regime};
use tmd_search::{
    filtered_search, reference_search, Case, FilterParams, InputRange, Listing, Method,
    SearchParams, Target,
};

/// What a filtered search listed: cases and range records, in the order they came.
#[derive(Default)]
struct Collected {
    cases: Vec<Case>,
    records: Vec<RangeRecord>,
    /// The start ordinal of every item, in arrival order (cases and records interleaved).
    order: Vec<i128>,
    format: Option<Format>,
}

impl Listing for Collected {
    fn case(&mut self, case: &Case) {
        let format = self.format.as_ref().expect("set");
        self.order.push(format.ordinal(&case.x));
        self.cases.push(case.clone());
    }

    fn accepts_ranges(&self) -> bool {
        true
    }

    fn range(&mut self, record: &RangeRecord) {
        self.order.push(record.start);
        self.records.push(record.clone());
    }
}

fn params(bits: u32, breakpoints: Breakpoints) -> SearchParams {
    SearchParams {
        bits,
        breakpoints,
        include_exact: true,
        max_precision: 4096,
    }
}

/// Searches `[start, end)` both ways and checks that the records, expanded, and the cases are
/// the reference listing; returns how many inputs were inside records.
fn check_window(func: &str, format: &Format, start: i128, end: i128, p: &SearchParams) -> u64 {
    let target = Target::parse(func).unwrap();
    let range = InputRange {
        format: format.clone(),
        start,
        end,
    };
    let at = |o: i128| format.from_ordinal(o).to_hex();
    let what = format!("{func} over [{}, {}]", at(start), at(end - 1));
    let mut reference = Vec::new();
    let ref_summary = reference_search(&target, &range, p, &AtomicU64::new(0), &mut |c| {
        reference.push(c.clone())
    });
    let filter = FilterParams::new(Method::Filter(Algorithm::RegularUnrolled));
    let mut got = Collected {
        format: Some(format.clone()),
        ..Collected::default()
    };
    let (summary, _) =
        filtered_search(&target, &range, p, &filter, &AtomicU64::new(0), &mut got).unwrap();
    assert!(
        got.order.windows(2).all(|w| w[0] < w[1]),
        "{what}: items out of order"
    );
    // Every reference case is a listed case, or lies in a record and has what it promises.
    // The reference may leave a record's input unresolved (erf(2^14) = 1 - 2^-280000000
    // at 4096 bits): the rule proves it hard, and it counts as hard.
    let mut in_records = 0u64;
    let mut beyond_mpfr = 0u64;
    for case in &reference {
        let o = format.ordinal(&case.x);
        match got.records.iter().find(|r| (r.start..r.end).contains(&o)) {
            Some(r) => {
                match &case.outcome {
                    Outcome::Inexact(i) => {
                        assert_eq!(i.kind, Kind::Directed, "{what}: {}", case.x.to_hex());
                        assert!(
                            i.bits >= r.bits_at_least && i.bits > p.bits as f64,
                            "{what}: {} has {} bits, record {r:?}",
                            case.x.to_hex(),
                            i.bits
                        );
                    }
                    Outcome::Unresolved {
                        bits_at_least: Some(b),
                        ..
                    } if *b >= r.bits_at_least => beyond_mpfr += 1,
                    other => panic!("{what}: {} in {r:?} is {other:?}", case.x.to_hex()),
                }
                in_records += 1;
            }
            None => assert!(
                got.cases.contains(case),
                "{what}: missed {} ({:?})",
                case.x.to_hex(),
                case.outcome
            ),
        }
    }
    let mut expected = ref_summary.counts;
    expected.hard += beyond_mpfr;
    expected.unresolved -= beyond_mpfr;
    assert_eq!(summary.counts, expected, "{what}: counts");
    // Records hold only listed inputs (all of them, by the count), cases only reference ones.
    let record_inputs: u64 = got.records.iter().map(|r| r.inputs()).sum();
    assert_eq!(in_records, record_inputs, "{what}: inputs in records");
    for case in &got.cases {
        assert!(
            reference.contains(case),
            "{what}: extra {}",
            case.x.to_hex()
        );
    }
    record_inputs
}

/// A window of `len` inputs starting at `start`, kept inside one binade piece.
fn window_at(format: &Format, start: i128, len: i128) -> (i128, i128) {
    let (_, binade_end) = tmd_search::regime::binade_piece(format, start);
    (start, (start + len).min(binade_end))
}

#[test]
fn binary32_windows_equal_the_reference_once_range_records_are_expanded() {
    let format = Format::binary32();
    let top = format.max_ordinal();
    let mut rng = ChaCha8Rng::seed_from_u64(0x7a6e_5e11);
    let functions = [
        "exp", "log", "sin", "cos", "tan", "erf", "expm1", "log1p", "atan", "cbrt", "tanh", "erfc",
    ];
    let mut record_inputs = 0;
    let mut windows = 0;
    for func in functions {
        let p = params(24, Breakpoints::All);
        let expr = Target::parse(func).unwrap().expr;
        // Uniform windows over all finite inputs, a window across zero, and windows across
        // the ends of the records of a random tiny binade.
        let mut starts: Vec<i128> = (0..16).map(|_| rng.gen_range(-top..top - 8192)).collect();
        starts.push(-2048);
        let e = rng.gen_range(-126..-20);
        let first_normal = 1i128 << 24;
        let half = 1i128 << 23;
        let binade = first_normal + (e + 126) as i128 * half;
        for piece in decided_pieces(&expr, &format, binade, binade + half, 24, p.breakpoints) {
            if matches!(piece.regime, Regime::AllHard { .. }) {
                starts.push(piece.start - 2048);
                starts.push(piece.end - 2048);
            }
        }
        for start in starts {
            let (a, b) = window_at(&format, start, 4096);
            if a >= b || b > top {
                continue;
            }
            record_inputs += check_window(func, &format, a, b, &p);
            windows += 1;
        }
    }
    eprintln!("{windows} windows, {record_inputs} inputs inside range records");
    assert!(windows >= 170, "{windows} windows");
    assert!(record_inputs > 50_000, "{record_inputs} inputs in records");
}

/// The same with one kind of breakpoint: directed breakpoints keep the records, nearest
/// ones none (f(x) next to a format number is far from every midpoint).
#[test]
fn range_records_follow_the_breakpoint_kinds() {
    let format = Format::binary32();
    let start = (1i128 << 24) + 30 * (1 << 23); // 2^-96
    for (kinds, expect_records) in [(Breakpoints::Directed, true), (Breakpoints::Nearest, false)] {
        let inputs = check_window("sin", &format, start, start + 8192, &params(24, kinds));
        assert_eq!(inputs > 0, expect_records, "{kinds:?}: {inputs}");
    }
}

/// A search cut in the segments of an MPI run, each segment searched alone and the root's
/// merge applied, lists what one uninterrupted run lists: the rule pieces cut by segment ends
/// come back whole.
#[test]
fn segmented_searches_list_the_records_of_one_run() {
    use tmd_search::cluster::{decide_items, search_segment, Item, Segments};
    use tmd_search::{SearchPlan, SearchRequest};
    for (func, from, to) in [
        ("exp", "-0x1p-28", "0x1p-28"),
        ("sin", "-0x1p-9", "0x1p-60"),
    ] {
        let request = SearchRequest {
            format: "binary32".into(),
            bits: Some(24),
            exact: true,
            max_precision: 4096,
            ..SearchRequest::new(func, from, to)
        };
        let plan = SearchPlan::new(&request, &mut |_| {}).unwrap();
        let format = plan.range.format.clone();
        let mut whole = Collected {
            format: Some(format.clone()),
            ..Collected::default()
        };
        let filter = plan.filter.as_ref().unwrap();
        let target = &plan.target;
        let (summary, _) = filtered_search(
            target,
            &plan.range,
            &plan.params,
            filter,
            &AtomicU64::new(0),
            &mut whole,
        )
        .unwrap();
        let segments = Segments::new(plan.range.start, plan.range.end);
        let records: Vec<_> = (0..segments.count())
            .map(|i| {
                let (lo, hi) = segments.bounds(i);
                search_segment(&plan, i, lo, hi).unwrap()
            })
            .collect();
        let refs: Vec<_> = records.iter().collect();
        let items = decide_items(&plan, &refs);
        let (mut cases, mut ranges) = (Vec::new(), Vec::new());
        for item in items {
            match item {
                Item::Case(c) => cases.push(c),
                Item::Range(r) => ranges.push(r),
            }
        }
        let cut = records.iter().filter(|r| !r.ranges.is_empty()).count();
        assert!(ranges.len() < cut, "{func}: no record was cut by segments");
        assert_eq!(ranges, whole.records, "{func}: records");
        assert_eq!(cases, whole.cases, "{func}: cases");
        let total = records
            .iter()
            .fold(tmd_search::Counts::default(), |t, r| t + r.counts);
        assert_eq!(total, summary.counts, "{func}: counts");
    }
}
