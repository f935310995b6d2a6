//! The regime rule (`tmd_search::regime`) against the per-input decision of the reference
//! search (`tmd_core::hardness::decide`) in binary32 and binary64, where no exhaustive check
//! is possible: in every binade of tiny inputs where a rule holds, the inputs at both ends of
//! each decided piece and random inputs inside it. (binary16 and bfloat16 are checked
//! exhaustively by the module's unit tests.)

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tmd_core::hardness::{decide, Decision};
use tmd_core::{Breakpoints, Expr, Format, Kind, Outcome};
use tmd_search::regime::{decided_pieces, Regime};

/// Checks `count` random inputs plus `edge` at each end of every decided piece of the
/// binades 2^e for e in `exponents`, both signs; returns how many inputs were checked.
fn check_binades(
    f: &str,
    format: &Format,
    exponents: impl Iterator<Item = i32>,
    bits: u32,
    kinds: Breakpoints,
    rng: &mut ChaCha8Rng,
) -> u64 {
    let expr = Expr::parse(&format!("{f}(x)")).unwrap();
    let half = 1i128 << (format.precision() - 1);
    let first_normal = 2 * half; // ordinal of 2^emin
    let mut checked = 0;
    for e in exponents {
        let start = first_normal + (e - format.emin()) as i128 * half;
        for (a, b) in [(start, start + half), (-start - half + 1, -start + 1)] {
            for piece in decided_pieces(&expr, format, a, b, bits, kinds) {
                let len = piece.end - piece.start;
                let ends = (0..16.min(len)).flat_map(|i| [piece.start + i, piece.end - 1 - i]);
                let inside = (0..64).map(|_| rng.gen_range(piece.start..piece.end));
                for q in ends.chain(inside) {
                    let x = format.from_ordinal(q);
                    let d = decide(&expr, format, &x, bits, kinds, 8192);
                    let at = format!("{f} at {} ({bits}, {kinds:?})", x.to_hex());
                    match &piece.regime {
                        Regime::AllHard { bits_at_least, .. } => {
                            let Decision::Hard(Outcome::Inexact(i)) = d else {
                                panic!("{at}: {d:?}, rule {:?}", piece.regime);
                            };
                            assert_eq!(i.kind, Kind::Directed, "{at}");
                            assert!(i.bits >= *bits_at_least, "{at}: {}", i.bits);
                        }
                        Regime::NoneHard { .. } => {
                            assert!(matches!(d, Decision::NotHard), "{at}: {d:?}")
                        }
                        Regime::Undecided => unreachable!(),
                    }
                    checked += 1;
                }
            }
        }
    }
    checked
}

#[test]
fn binary32_rules_agree_with_the_per_input_decision() {
    let f32 = Format::binary32();
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let mut checked = 0;
    for f in [
        "exp", "expm1", "sin", "cos", "tan", "log1p", "atan", "sinh", "erf",
    ] {
        for (bits, kinds) in [
            (24, Breakpoints::All),
            (30, Breakpoints::Directed),
            (20, Breakpoints::Nearest),
        ] {
            checked += check_binades(f, &f32, (-149..-4).step_by(3), bits, kinds, &mut rng);
        }
    }
    eprintln!("binary32: {checked} inputs checked");
    assert!(checked > 20_000, "{checked}");
}

#[test]
fn binary64_rules_agree_with_the_per_input_decision_at_the_piece_ends() {
    let f64 = Format::binary64();
    let mut rng = ChaCha8Rng::seed_from_u64(64);
    let mut checked = 0;
    for f in ["exp", "expm1", "sin", "cos", "tan", "atanh"] {
        for (bits, kinds) in [(45, Breakpoints::All), (50, Breakpoints::Nearest)] {
            let exponents = (-1022..-900).step_by(61).chain(-110..-20);
            checked += check_binades(f, &f64, exponents, bits, kinds, &mut rng);
        }
    }
    eprintln!("binary64: {checked} inputs checked");
    assert!(checked > 20_000, "{checked}");
}

/// The filter with the rule in it lists exactly the reference search's cases, with the same
/// counts, on pieces the rule decides both ways: binary32 exp at K = 20 is hard at every input
/// below 2^-43 (within 2^-20 ulp of 1) and at none from 2^-43 to 2^-25.
#[test]
fn filtered_search_with_rule_pieces_equals_the_reference_search() {
    use std::sync::atomic::AtomicU64;
    use tmd_search::lower_bound::Algorithm;
    use tmd_search::{
        filtered_search, reference_search, Case, FilterParams, InputRange, Method, SearchParams,
        Target,
    };
    let format = Format::binary32();
    let target = Target::parse("exp").unwrap();
    let filter = FilterParams::new(Method::Filter(Algorithm::RegularUnrolled));
    let params = SearchParams {
        bits: 20,
        breakpoints: Breakpoints::All,
        include_exact: false,
        max_precision: 8192,
    };
    let half = 1i128 << 23;
    let binade = |e: i32| 2 * half + (e - format.emin()) as i128 * half;
    let mut ruled = 0;
    for (start, len) in [
        (binade(-44), 1 << 14),
        (binade(-40) + 777, 1 << 14),
        (binade(-44) - 5000, 12000),
    ] {
        let range = InputRange {
            format: format.clone(),
            start,
            end: start + len,
        };
        let mut filtered = Vec::new();
        let (summary, stats) = filtered_search(
            &target,
            &range,
            &params,
            &filter,
            &AtomicU64::new(0),
            &mut |c: &Case| filtered.push(c.clone()),
        )
        .unwrap();
        let mut reference = Vec::new();
        let expected = reference_search(&target, &range, &params, &AtomicU64::new(0), &mut |c| {
            reference.push(c.clone())
        });
        assert_eq!(filtered, reference, "cases on [{start}, {})", start + len);
        assert_eq!(
            summary.counts,
            expected.counts,
            "counts on [{start}, {})",
            start + len
        );
        ruled += stats.rule_inputs + stats.reference_inputs;
    }
    assert!(ruled >= 2 << 14, "the rule decided {ruled} inputs");
}
