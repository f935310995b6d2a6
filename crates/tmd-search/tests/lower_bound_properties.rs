//! The lower-bound tests of `tmd_search::lower_bound` against brute force: soundness (every
//! bound is at most the true minimum, every pass is proven), exactness where an algorithm computes
//! an exact minimum, agreement between the two forms of each algorithm and across division
//! thresholds, special slopes, and the loop-iteration counts behind the NMDM statistic.
//!
//! Default runs stay a few seconds in release; `TMD_EXTENSIVE=1` runs many more and larger cases.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tmd_search::lower_bound::{
    lower_bound, lower_bound_lefevre, lower_bound_lefevre_swap, lower_bound_regular,
    lower_bound_regular_unrolled, min_distance_brute_force, short_orbit_distance, test_domain,
    test_lower_bound, Algorithm, LowerBound,
};

/// Division thresholds tried: always divide, Lefèvre's optimum 3, mostly subtractive.
const DIVISION_THRESHOLDS: [u32; 6] = [0, 1, 3, 8, 64, 1000];

/// The longest brute-force enumeration a check may do.
const BRUTE_FORCE_LIMIT: u64 = 1 << 16;

fn extensive() -> bool {
    tmd_test_tier::extensive()
}

/// A slope from families that stress the algorithms differently.
fn random_slope(rng: &mut ChaCha8Rng) -> u64 {
    match rng.gen_range(0..8) {
        // Generic slopes.
        0..=2 => rng.gen(),
        // Tiny slopes: a huge first partial quotient.
        3 => rng.gen::<u64>() >> rng.gen_range(1..64),
        // Slopes close to 1: the same, seen from the other side.
        4 => (rng.gen::<u64>() >> rng.gen_range(1..64)).wrapping_neg(),
        // Close to j/k for a small k: a huge later partial quotient.
        5 => {
            let k = rng.gen_range(2..2000u128);
            let j = rng.gen_range(1..k);
            let near = ((j << 64) / k) as u64;
            let perturbation_bits = rng.gen_range(0..40);
            near.wrapping_add(rng.gen_range(0..1u64 << perturbation_bits))
        }
        // Close to 1/k: huge quotient right after the first one.
        6 => {
            let k_bits = rng.gen_range(2..40);
            let k = rng.gen_range(2..1u64 << k_bits);
            (u64::MAX / k).wrapping_add(rng.gen_range(0..4))
        }
        // Few significant bits: the orbit of a ends before N points.
        _ => rng.gen::<u64>() << rng.gen_range(40..64),
    }
}

/// A right-hand side: uniform, or just right of a multiple `a·x`, or on one.
fn random_b(rng: &mut ChaCha8Rng, a: u64, n: u64) -> u64 {
    let multiple = a.wrapping_mul(rng.gen_range(0..n.saturating_mul(2).max(1)));
    match rng.gen_range(0..4) {
        0 | 1 => rng.gen(),
        2 => multiple.wrapping_add(rng.gen::<u64>() >> rng.gen_range(0..64)),
        _ => multiple,
    }
}

/// A domain size, log-uniform in `[1, 2^max_bits]`.
fn random_n(rng: &mut ChaCha8Rng, max_bits: u32) -> u64 {
    let bits = rng.gen_range(0..=max_bits);
    rng.gen_range(1u64 << bits..=(1u64 << bits).saturating_mul(2) - 1)
        .min(1 << max_bits)
}

/// A threshold around the true minimum, so both verdicts occur.
fn random_threshold(rng: &mut ChaCha8Rng, exact: u64) -> u64 {
    match rng.gen_range(0..4) {
        0 => exact,
        1 => exact.saturating_add(1),
        2 => rng.gen_range(0..=exact),
        _ => exact.saturating_add(rng.gen_range(0..=exact)),
    }
}

/// The checks every bound must pass, `exact` being the brute-force minimum over `x < n`.
fn check_common(name: &str, bound: LowerBound, a: u64, b: u64, n: u64, exact: u64) {
    let context = format!("{name}: a={a:#x} b={b:#x} n={n} {bound:?} exact={exact:#x}");
    assert!(bound.distance <= exact, "unsound bound, {context}");
    assert!(bound.points >= n, "too few points, {context}");
    if bound.exhausted {
        assert_eq!(
            bound.distance, exact,
            "exhausted orbit not exact, {context}"
        );
        assert_eq!(bound.points, u64::MAX, "{context}");
    }
    if n > 0 {
        assert!(bound.iterations <= n, "too many iterations, {context}");
    }
}

/// Lefèvre: the bound is exactly the minimum over the `points` multiples it placed.
fn check_lefevre_exact(bound: LowerBound, a: u64, b: u64) {
    if bound.points <= BRUTE_FORCE_LIMIT {
        assert_eq!(
            bound.distance,
            min_distance_brute_force(a, b, bound.points),
            "lefevre not exact over its points: a={a:#x} b={b:#x} {bound:?}"
        );
    }
}

/// Regular: between the minimum over `2·points` and the minimum over `points` multiples.
/// Returns whether the bound is exactly the minimum over `points` (when checked).
fn check_regular_bracket(bound: LowerBound, a: u64, b: u64) -> bool {
    if bound.points.saturating_mul(2) > BRUTE_FORCE_LIMIT {
        return false;
    }
    let over_points = min_distance_brute_force(a, b, bound.points);
    let over_twice = min_distance_brute_force(a, b, 2 * bound.points);
    let context = format!("regular: a={a:#x} b={b:#x} {bound:?}");
    assert!(bound.distance <= over_points, "{context}");
    assert!(bound.distance >= over_twice, "{context}");
    bound.distance == over_points
}

/// One random case through every algorithm and threshold; returns (regular exact?, checked?).
fn check_case(rng: &mut ChaCha8Rng, a: u64, b: u64, n: u64) -> (bool, bool) {
    let exact = min_distance_brute_force(a, b, n);
    let division_threshold = DIVISION_THRESHOLDS[rng.gen_range(0..DIVISION_THRESHOLDS.len())];

    let lefevre = lower_bound_lefevre(a, b, n, division_threshold);
    check_common("lefevre", lefevre, a, b, n, exact);
    check_lefevre_exact(lefevre, a, b);
    assert_eq!(
        lefevre,
        lower_bound_lefevre(a, b, n, 0),
        "threshold changed lefevre"
    );
    assert_eq!(
        lefevre,
        lower_bound_lefevre_swap(a, b, n, division_threshold)
    );

    let regular = lower_bound_regular(a, b, n, division_threshold);
    check_common("regular", regular, a, b, n, exact);
    assert_eq!(
        regular,
        lower_bound_regular(a, b, n, 0),
        "threshold changed regular"
    );
    assert_eq!(
        regular,
        lower_bound_regular_unrolled(a, b, n, division_threshold)
    );
    assert!(
        regular.distance <= lefevre.distance,
        "regular above lefevre: a={a:#x} b={b:#x} n={n}"
    );
    let regular_checked = regular.points.saturating_mul(2) <= BRUTE_FORCE_LIMIT;
    let regular_exact = check_regular_bracket(regular, a, b);

    // Where the orbit does not go round the circle the tests take the exact distance.
    let short = short_orbit_distance(a, b, n);
    if let Some(distance) = short {
        assert_eq!(distance, exact, "short orbit: a={a:#x} b={b:#x} n={n}");
    }
    let threshold = random_threshold(rng, exact);
    for algorithm in Algorithm::ALL {
        let bound = short.unwrap_or(lower_bound(algorithm, a, b, n, division_threshold).distance);
        let outcome = test_lower_bound(algorithm, a, b, n, threshold, division_threshold);
        assert_eq!(
            outcome.passed,
            bound >= threshold,
            "{algorithm:?} verdict differs from its bound: a={a:#x} b={b:#x} n={n} t={threshold:#x}"
        );
        assert!(
            !outcome.passed || exact >= threshold,
            "{algorithm:?} unsound pass"
        );
    }
    (regular_exact, regular_checked)
}

fn run_random_cases(seed: u64, cases: usize, max_bits: u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut regular_exact, mut regular_checked) = (0usize, 0usize);
    for _ in 0..cases {
        let a = random_slope(&mut rng);
        let n = random_n(&mut rng, max_bits);
        let b = random_b(&mut rng, a, n);
        let (exact, checked) = check_case(&mut rng, a, b, n);
        regular_exact += usize::from(exact);
        regular_checked += usize::from(checked);
    }
    // The regular bound is the minimum over its points unless its last step was a p step that
    // moved {b} early; that must stay the exception, not the rule.
    println!("regular bound exact over its points in {regular_exact} of {regular_checked}");
    assert!(regular_exact * 2 > regular_checked);
}

#[test]
fn lower_bound_random_small_domains() {
    let cases = if extensive() { 3_000_000 } else { 300_000 };
    run_random_cases(1, cases, 10);
}

#[test]
fn lower_bound_random_large_domains() {
    let (cases, max_bits) = if extensive() {
        (20_000, 20)
    } else {
        (2_000, 15)
    };
    run_random_cases(2, cases, max_bits);
}

/// Two-sided HR-case test: a pass proves every `center - a·x` at least `epsilon` from an integer.
#[test]
fn lower_bound_two_sided_domain_test_is_sound() {
    let cases = if extensive() { 1_000_000 } else { 100_000 };
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (mut passes, mut fails) = (0usize, 0usize);
    for _ in 0..cases {
        let a = random_slope(&mut rng);
        let n = random_n(&mut rng, 10);
        let center = random_b(&mut rng, a, n);
        let nearest = (0..n)
            .map(|x| {
                let value = center.wrapping_sub(a.wrapping_mul(x));
                value.min(value.wrapping_neg())
            })
            .min()
            .unwrap_or(u64::MAX);
        let epsilon = match rng.gen_range(0..3) {
            0 => nearest,
            1 => nearest.saturating_add(1),
            _ => rng.gen_range(0..=nearest / 2 + 1),
        };
        let division_threshold = DIVISION_THRESHOLDS[rng.gen_range(0..DIVISION_THRESHOLDS.len())];
        let verdicts = Algorithm::ALL
            .map(|algorithm| test_domain(algorithm, a, center, n, epsilon, division_threshold));
        for (algorithm, passed) in Algorithm::ALL.iter().zip(verdicts) {
            assert!(
                !passed || nearest >= epsilon,
                "{algorithm:?} passed a domain with a case at {nearest:#x} < {epsilon:#x}: \
                 a={a:#x} center={center:#x} n={n}"
            );
        }
        assert_eq!(verdicts[0], verdicts[1], "lefevre and swap disagree");
        assert_eq!(verdicts[2], verdicts[3], "regular and unrolled disagree");
        if verdicts[0] {
            passes += 1;
        } else {
            fails += 1;
        }
    }
    assert!(
        passes > cases / 10 && fails > cases / 10,
        "{passes} passes, {fails} fails"
    );
}

/// How often the two families agree on random thresholds: they must when the threshold is not
/// between their two bounds, and Lefèvre's bound is never the smaller one.
#[test]
fn lower_bound_families_usually_agree() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let cases = 100_000;
    let (mut agreements, mut lefevre_stronger, mut regular_stronger) = (0usize, 0usize, 0usize);
    for _ in 0..cases {
        let a: u64 = rng.gen();
        let n = random_n(&mut rng, 15);
        let b: u64 = rng.gen();
        let lefevre = lower_bound_lefevre(a, b, n, 3).distance;
        let regular = lower_bound_regular(a, b, n, 3).distance;
        let threshold = rng.gen_range(0..=lefevre.max(regular).saturating_mul(2));
        let verdicts = Algorithm::ALL
            .map(|algorithm| test_lower_bound(algorithm, a, b, n, threshold, 3).passed);
        assert_eq!(verdicts[0], verdicts[1]);
        assert_eq!(verdicts[2], verdicts[3]);
        // Lefèvre's bound is never below the regular one: a regular pass is a Lefèvre pass.
        assert!(verdicts[0] || !verdicts[2]);
        if threshold <= lefevre.min(regular) || threshold > lefevre.max(regular) {
            assert_eq!(verdicts[0], verdicts[2]);
        }
        agreements += usize::from(verdicts[0] == verdicts[2]);
        lefevre_stronger += usize::from(lefevre > regular);
        regular_stronger += usize::from(regular > lefevre);
    }
    println!(
        "lefevre and regular agree on {agreements} of {cases} random thresholds; \
         lefevre's bound is larger in {lefevre_stronger} cases, regular's in {regular_stronger}"
    );
    assert!(lefevre_stronger > 0 && regular_stronger == 0);
    assert!(agreements * 10 > cases * 8);
}

/// Hand-picked slopes, right-hand sides and sizes, with every algorithm and division threshold.
#[test]
fn lower_bound_edge_cases() {
    let mut slopes = vec![
        0,
        1,
        2,
        3,
        u64::MAX,
        u64::MAX - 1,
        1 << 63,
        (1 << 63) + 1,
        (1 << 63) - 1,
        1 << 32,
        u64::MAX / 3,
        u64::MAX / 3 + 1,
        0x9E37_79B9_7F4A_7C15,
    ];
    for k in [3u64, 5, 7, 1000, 1 << 20, 1 << 40, (1 << 40) + 1] {
        slopes.push(u64::MAX / k);
        slopes.push(u64::MAX / k + 1);
        slopes.push((u64::MAX / k).wrapping_neg());
    }
    for &a in &slopes {
        for n in [1u64, 2, 3, 4, 5, 7, 8, 100, 1000, 4096, 1 << 15] {
            let mut rights = vec![0, 1, u64::MAX, 1 << 63, a, a.wrapping_sub(1)];
            for x in [n - 1, n, n + 1, 2 * n] {
                rights.push(a.wrapping_mul(x));
                rights.push(a.wrapping_mul(x).wrapping_add(1));
                rights.push(a.wrapping_mul(x).wrapping_sub(1));
            }
            for &b in &rights {
                let exact = min_distance_brute_force(a, b, n);
                let short = short_orbit_distance(a, b, n);
                assert!(short.is_none_or(|d| d == exact), "a={a:#x} b={b:#x} n={n}");
                for division_threshold in DIVISION_THRESHOLDS {
                    let bounds =
                        Algorithm::ALL.map(|alg| lower_bound(alg, a, b, n, division_threshold));
                    for (algorithm, bound) in Algorithm::ALL.iter().zip(bounds) {
                        check_common(algorithm.name(), bound, a, b, n, exact);
                        for threshold in [0, exact, exact.saturating_add(1), u64::MAX] {
                            let outcome = test_lower_bound(
                                *algorithm,
                                a,
                                b,
                                n,
                                threshold,
                                division_threshold,
                            );
                            let distance = short.unwrap_or(bound.distance);
                            assert_eq!(outcome.passed, distance >= threshold);
                        }
                    }
                    check_lefevre_exact(bounds[0], a, b);
                    check_regular_bracket(bounds[2], a, b);
                    assert_eq!(bounds[0], bounds[1]);
                    assert_eq!(bounds[2], bounds[3]);
                    assert!(bounds[2].distance <= bounds[0].distance);
                }
            }
        }
    }
}

/// Huge N: every loop ends; exhausted orbits give the exact minimum over all multiples.
#[test]
fn lower_bound_huge_domains_terminate() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..200 {
        // Period 2^20: the minimum over all integers is the minimum over 2^20 multiples.
        let a = (rng.gen::<u64>() | 1) << 44;
        let b: u64 = rng.gen();
        let exact = min_distance_brute_force(a, b, 1 << 20);
        for algorithm in Algorithm::ALL {
            let bound = lower_bound(algorithm, a, b, u64::MAX, 3);
            assert_eq!(bound.distance, exact, "{algorithm:?} a={a:#x} b={b:#x}");
            assert!(bound.exhausted);
        }
    }
    for _ in 0..200 {
        let a: u64 = rng.gen::<u64>() | 1;
        let b: u64 = rng.gen();
        let first_multiples = min_distance_brute_force(a, b, 1 << 12);
        for algorithm in Algorithm::ALL {
            let bound = lower_bound(algorithm, a, b, u64::MAX, 3);
            assert!(bound.distance <= first_multiples);
            if matches!(algorithm, Algorithm::Regular | Algorithm::RegularUnrolled) {
                assert!(bound.iterations <= 100, "{bound:?}");
            }
        }
    }
}

/// Lefèvre's pathological case: a tiny slope and {b} far right makes one iteration per point,
/// while the regular test needs two quotients.
#[test]
fn lower_bound_tiny_slope_iterations() {
    let (a, b, n) = (1u64, 1u64 << 63, 1u64 << 20);
    let exact = min_distance_brute_force(a, b, n);
    let lefevre = lower_bound_lefevre(a, b, n, 3);
    let regular = lower_bound_regular(a, b, n, 3);
    assert_eq!(lefevre.distance, exact);
    assert!(regular.distance <= exact);
    assert!(lefevre.iterations > n / 2 && lefevre.iterations < n);
    assert!(regular.iterations <= 2);
}

/// A domain where the function is nearly flat (exp next to 1: a slope of 2^-39 units per input
/// over 2^15 inputs) passes every test in one step when its values stay far from the integers:
/// the regular bound over the first partial quotient's 2^39 points could not (it fell below
/// any threshold), and Lefèvre's test placed the points one at a time.
#[test]
fn nearly_flat_domains_pass_in_one_step() {
    let n = 1u64 << 15;
    for a in [1u64 << 25, (1u64 << 25).wrapping_neg(), 3, u64::MAX] {
        let b = 0x4000_0000_0000_0000 + 0x1234_5678;
        let exact = min_distance_brute_force(a, b, n);
        assert_eq!(short_orbit_distance(a, b, n), Some(exact));
        for algorithm in Algorithm::ALL {
            let outcome = test_lower_bound(algorithm, a, b, n, 1 << 30, 0);
            assert!(outcome.passed, "{algorithm:?} a={a:#x}");
            assert_eq!(outcome.iterations, 1);
        }
    }
    // Past one turn the algorithms run as before.
    assert_eq!(short_orbit_distance(1 << 50, 1, n), None);
    assert_eq!(
        short_orbit_distance((1u64 << 50).wrapping_neg(), 1, n),
        None
    );
}

/// `NMDM(ℓ) = 1 - mean(ℓ)/max(ℓ)` of one warp's iteration counts ([TOMS16] §2.2).
fn nmdm(iterations: &[u64]) -> f64 {
    let max = iterations.iter().copied().max().unwrap_or(0);
    if max == 0 {
        return 0.0;
    }
    let mean = iterations.iter().sum::<u64>() as f64 / iterations.len() as f64;
    1.0 - mean / max as f64
}

/// Iteration counts at N = 2^15 on warps of 32 neighbouring domains (slowly varying slope,
/// unrelated right-hand sides, as for consecutive domains of one function): the regular loop
/// runs nearly the same number of iterations in a warp, Lefèvre's does not ([TOMS16] Table III).
#[test]
fn lower_bound_iteration_counts_and_nmdm() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let n = 1u64 << 15;
    let warps = 2_000;
    let (mut nmdm_lefevre, mut nmdm_regular) = (0.0, 0.0);
    let (mut max_lefevre, mut max_regular, mut sum_lefevre, mut sum_regular) = (0, 0, 0, 0);
    for _ in 0..warps {
        let slope: u64 = rng.gen();
        let step: u64 = rng.gen_range(0..1 << 20);
        let mut lefevre = Vec::with_capacity(32);
        let mut regular = Vec::with_capacity(32);
        for thread in 0..32 {
            let a = slope.wrapping_add(step * thread);
            let b: u64 = rng.gen();
            let bound = lower_bound_lefevre(a, b, n, 3);
            assert_eq!(bound, lower_bound_lefevre_swap(a, b, n, 3));
            lefevre.push(bound.iterations);
            let bound = lower_bound_regular(a, b, n, 3);
            assert_eq!(bound, lower_bound_regular_unrolled(a, b, n, 3));
            regular.push(bound.iterations);
        }
        nmdm_lefevre += nmdm(&lefevre);
        nmdm_regular += nmdm(&regular);
        max_lefevre = max_lefevre.max(*lefevre.iter().max().unwrap_or(&0));
        max_regular = max_regular.max(*regular.iter().max().unwrap_or(&0));
        sum_lefevre += lefevre.iter().sum::<u64>();
        sum_regular += regular.iter().sum::<u64>();
    }
    let calls = (warps * 32) as f64;
    let (nmdm_lefevre, nmdm_regular) = (nmdm_lefevre / warps as f64, nmdm_regular / warps as f64);
    println!(
        "N=2^15: lefevre mean {:.2} max {max_lefevre} NMDM {:.1}%; \
         regular mean {:.2} max {max_regular} NMDM {:.1}%",
        sum_lefevre as f64 / calls,
        100.0 * nmdm_lefevre,
        sum_regular as f64 / calls,
        100.0 * nmdm_regular,
    );
    assert!(nmdm_regular < nmdm_lefevre / 2.0);
    assert!(max_regular <= 40);
}
