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

/// Checks 64 random inputs plus 16 at each end of every decided piece of the binades 2^e
/// for e in `exponents`, both signs; returns how many inputs were checked.
fn check_binades(
    f: &str,
    format: &Format,
    exponents: impl Iterator<Item = i32>,
    bits: u32,
    kinds: Breakpoints,
    rng: &mut ChaCha8Rng,
) -> u64 {
    let counts = InputsPerPiece {
        edge: 16,
        inside: 64,
    };
    check_binades_with(f, format, exponents, bits, kinds, counts, rng)
}

/// How many inputs of a decided piece are checked: `edge` at each end, `inside` at random.
#[derive(Clone, Copy)]
struct InputsPerPiece {
    edge: i128,
    inside: usize,
}

/// [`check_binades`] with other numbers of inputs per piece (MPFR's zeta at a thousand bits,
/// which the per-input decision needs next to 0, takes a tenth of a second).
fn check_binades_with(
    f: &str,
    format: &Format,
    exponents: impl Iterator<Item = i32>,
    bits: u32,
    kinds: Breakpoints,
    counts: InputsPerPiece,
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
                let ends =
                    (0..counts.edge.min(len)).flat_map(|i| [piece.start + i, piece.end - 1 - i]);
                let inside = (0..counts.inside).map(|_| rng.gen_range(piece.start..piece.end));
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

/// J1 next to x/2 (an anchor 2^k x with k = -1) over tiny binades, and exp10m1's binades
/// where a regime ends inside (every input hard below about -29.5, none above, found by
/// halving a binade whose ends round to neighbouring numbers).
#[test]
fn binary64_scaled_anchors_and_inner_regime_ends_agree_with_the_per_input_decision() {
    let f64 = Format::binary64();
    let mut rng = ChaCha8Rng::seed_from_u64(642);
    let mut checked = 0;
    for (bits, kinds) in [(45, Breakpoints::All), (50, Breakpoints::Nearest)] {
        let exponents = (-1020..-20).step_by(50).chain(-52..-44);
        checked += check_binades("j1", &f64, exponents, bits, kinds, &mut rng);
        checked += check_binades("exp10m1", &f64, 3..7, bits, kinds, &mut rng);
    }
    eprintln!("binary64 j1 and exp10m1: {checked} inputs checked");
    assert!(checked > 5_000, "{checked}");
}

/// zeta next to its value at 0 (-1/2 exactly: pieces below 2^-64 decided from one model
/// centred at 0, both signs) and next to 1 far right (zeta(x) - 1 about 2^-x, decided from
/// the Dirichlet series' bound beyond the working precision and from zeta(x) > 1).
#[test]
fn binary64_zeta_next_to_minus_half_and_to_one_agrees_with_the_per_input_decision() {
    let f64 = Format::binary64();
    let mut rng = ChaCha8Rng::seed_from_u64(6403);
    let mut checked = 0;
    let few = InputsPerPiece { edge: 1, inside: 1 };
    for (bits, kinds) in [(45, Breakpoints::All), (50, Breakpoints::Nearest)] {
        let next_to_zero = [-1020, -100, -66, -60].into_iter().chain(-56..-52);
        checked += check_binades_with("zeta", &f64, next_to_zero, bits, kinds, few, &mut rng);
        let some = InputsPerPiece { edge: 4, inside: 8 };
        checked += check_binades_with("zeta", &f64, 6..11, bits, kinds, some, &mut rng);
    }
    eprintln!("binary64 zeta: {checked} inputs checked");
    assert!(checked > 1_000, "{checked}");
}

/// Where the regime changes at one input of a binade the rule must still decide the rest of
/// it: exp at K = 45 is hard at no input of [2^-97, 2^-96) (exp(2^-97) - 1 = 2^-97 + 2^-195 +
/// ...: the gap starts a hair above 2^-45 ulp of 1), and at one input only of the binade of
/// -2^-98, -2^-98 itself (1 - exp(-2^-98) = 2^-98 - 2^-197 + ...: 2^-45 - 2^-144 ulps below 1;
/// each other input is farther than 2^-45 (1 + 2^-52) - 2^-143). Left undecided, such a piece
/// holds up to 2^44 inputs, hours of search.
#[test]
fn a_regime_change_at_one_input_leaves_only_the_smallest_pieces_to_the_search() {
    use tmd_search::regime::MIN_RULE_PIECE;
    let f64 = Format::binary64();
    let expr = Expr::parse("exp(x)").unwrap();
    let half = 1i128 << 52;
    // The ordinal of 2^e: 2^52 subnormals and zero come first.
    let binade = |e: i32| (e - f64.emin() + 1) as i128 * half;
    let (bits, kinds) = (45, Breakpoints::All);
    let above = binade(-97);
    assert_eq!(f64.from_ordinal(above).to_hex(), "0x1p-97");
    let pieces = decided_pieces(&expr, &f64, above, above + half, bits, kinds);
    assert_eq!(pieces.len(), 1, "{pieces:?}");
    assert!(matches!(pieces[0].regime, Regime::NoneHard { .. }));
    assert_eq!((pieces[0].start, pieces[0].end), (above, above + half));

    // Ordinals of [-2^-97 + ulp, -2^-98]; the last one is -2^-98.
    let (start, end) = (-binade(-98) - half + 1, -binade(-98) + 1);
    let pieces = decided_pieces(&expr, &f64, start, end, bits, kinds);
    let decided: i128 = pieces.iter().map(|p| p.end - p.start).sum();
    assert!(
        end - start - decided <= 2 * MIN_RULE_PIECE as i128,
        "{pieces:?}"
    );
    assert!(pieces
        .iter()
        .all(|p| matches!(p.regime, Regime::NoneHard { .. })));
    assert!(
        pieces.iter().all(|p| p.end < end),
        "-2^-98 is hard: {pieces:?}"
    );
    let last_piece_end = pieces.iter().map(|p| p.end).max().unwrap();
    // The undecided inputs next to -2^-98: hard at -2^-98 alone, by MPFR.
    for q in last_piece_end - 2..end {
        let x = f64.from_ordinal(q);
        let d = decide(&expr, &f64, &x, bits, kinds, 8192);
        let at = format!("exp at {}", x.to_hex());
        if q == end - 1 {
            assert_eq!(x.to_hex(), "-0x1p-98");
            let Decision::Hard(Outcome::Inexact(i)) = d else {
                panic!("{at}: {d:?}");
            };
            assert_eq!(i.kind, Kind::Directed, "{at}");
        } else {
            assert!(matches!(d, Decision::NotHard), "{at}: {d:?}");
        }
    }
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
