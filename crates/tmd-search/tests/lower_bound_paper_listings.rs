//! The listings of the papers transcribed literally (in `u128`, where `1 = 2^64` fits), to
//! back the readings documented in `tmd_search::lower_bound`: which details of the printed
//! algorithms are sound as printed and which had to be read differently.
//!
//! [PDP12]: Fortin, Gouicem, Graillat, "Towards solving the Table Maker's Dilemma on GPU",
//! PDP 2012. [TOMS16]: Fortin, Gouicem, Graillat, "GPU-Accelerated Generation of Correctly
//! Rounded Elementary Functions", ACM TOMS, 2016.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tmd_search::lower_bound::{
    lower_bound_lefevre, lower_bound_regular, min_distance_brute_force, test_lefevre,
};

const ONE: u128 = 1 << 64;

/// [PDP12] Alg. 1 as printed: `y <- 1`, subtraction loops `while x < y`, stop `u + v >= N`
/// (the listing) or `u + v > N` (the text: "we stop when u + v > N"), `u = v = 1`.
fn pdp12_algorithm_1_as_printed((a, b, n): (u64, u64, u64), threshold: u64, strict: bool) -> bool {
    let (mut x, mut y, mut d) = (u128::from(a), ONE, u128::from(b));
    let (mut u, mut v) = (1u128, 1u128);
    let (threshold, n) = (u128::from(threshold), u128::from(n));
    let reached = |u: u128, v: u128| if strict { u + v > n } else { u + v >= n };
    if d < threshold {
        return false;
    }
    loop {
        if d < x {
            while x < y {
                if reached(u, v) {
                    return true;
                }
                y -= x;
                u += v;
            }
            if reached(u, v) {
                return true;
            }
            x -= y;
            v += u;
        } else {
            d -= x;
            if d < threshold {
                return false;
            }
            while y < x {
                if reached(u, v) {
                    return true;
                }
                x -= y;
                v += u;
            }
            if reached(u, v) {
                return true;
            }
            y -= x;
            u += v;
        }
    }
}

/// [PDP12] Alg. 2 as printed (with `y <- 1 - a` as in [TOMS16] Alg. 3), reading "x" at lines 8
/// and 15 as the first variable after the swaps. `None` when line 8 would go below zero.
fn pdp12_algorithm_2_as_printed(a: u64, b: u64, threshold: u64, n: u64) -> Option<bool> {
    let (mut x, mut y, mut d) = (u128::from(a), ONE - u128::from(a), u128::from(b));
    let (mut u, mut v) = (1u128, 1u128);
    let (threshold, n) = (u128::from(threshold), u128::from(n));
    if d < threshold {
        return Some(false);
    }
    let mut swapped = d >= x;
    if swapped {
        std::mem::swap(&mut x, &mut y);
        std::mem::swap(&mut u, &mut v);
    }
    for _ in 0..1_000_000 {
        if swapped {
            d = d.checked_sub(x)?;
            if d < threshold {
                return Some(false);
            }
        }
        while x < y {
            if u + v >= n {
                return Some(true);
            }
            y -= x;
            u += v;
        }
        if u + v >= n {
            return Some(true);
        }
        x -= y;
        v += u;
        if swapped != (d >= x) {
            std::mem::swap(&mut x, &mut y);
            std::mem::swap(&mut u, &mut v);
            swapped = !swapped;
        }
    }
    None
}

/// [TOMS16] Alg. 2 as printed (`u <- 1, v <- 0`, `u <- u + k·v` when q is reduced), returning d.
fn toms16_algorithm_2_as_printed(a: u64, b: u64, n: u64) -> u128 {
    let (mut p, mut q, mut d) = (u128::from(a), ONE, u128::from(b));
    let (mut u, mut v) = (1u128, 0u128);
    loop {
        if p < q {
            if p == 0 {
                return d;
            }
            let k = q / p;
            q -= k * p;
            u += k * v;
            d %= p;
        } else {
            if q == 0 {
                return d;
            }
            let k = p / q;
            p -= k * q;
            v += k * u;
            if d >= p {
                d = (d - p) % q;
            }
        }
        if u + v >= u128::from(n) {
            return d;
        }
    }
}

fn random_case(rng: &mut ChaCha8Rng) -> (u64, u64, u64) {
    let a: u64 = match rng.gen_range(0..3) {
        0 => rng.gen(),
        1 => rng.gen::<u64>() >> rng.gen_range(1..20),
        _ => rng.gen::<u64>() << rng.gen_range(40..62),
    };
    let n = rng.gen_range(1..64);
    (a, rng.gen(), n)
}

/// `y <- 1` with `u = v = 1` states one gap of length `x` that is not there: the counts run ahead
/// of the points placed, more and more, so the listing can pass a domain holding a multiple
/// closer than the threshold, with either stop. [TOMS16] Alg. 1 (and our code) start from
/// `q = 1 - a, u = v = 1`, the configuration {0, a}, and never do.
#[test]
fn lower_bound_pdp12_initial_counts_as_printed_are_unsound() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut unsound_listing, mut unsound_text) = (0usize, 0usize);
    for _ in 0..200_000 {
        let case = random_case(&mut rng);
        let (a, b, n) = case;
        // The smallest threshold a correct test must fail: one above the true minimum.
        let threshold = min_distance_brute_force(a, b, n).saturating_add(1);
        unsound_listing += usize::from(pdp12_algorithm_1_as_printed(case, threshold, false));
        unsound_text += usize::from(pdp12_algorithm_1_as_printed(case, threshold, true));
        assert!(!test_lefevre(a, b, n, threshold, 3).passed);
    }
    println!(
        "[PDP12] Alg. 1 as printed wrongly passed {unsound_listing} of 200000 domains \
         (stop u + v >= N), {unsound_text} (stop u + v > N)"
    );
    assert!(unsound_listing > 0 && unsound_text > 0);
}

/// Reading "x" of [PDP12] Alg. 2 lines 8 and 15 literally (the first variable after a swap)
/// subtracts the wrong length: it underflows or changes verdicts, while our reading reproduces
/// Alg. 1 exactly (checked in `lower_bound_properties.rs`).
#[test]
fn lower_bound_pdp12_swap_listing_read_literally_breaks() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let (mut underflows, mut different_verdicts) = (0usize, 0usize);
    for _ in 0..100_000 {
        let (a, b, n) = random_case(&mut rng);
        let threshold = rng.gen_range(0..=min_distance_brute_force(a, b, n).saturating_mul(2));
        match pdp12_algorithm_2_as_printed(a, b, threshold, n) {
            None => underflows += 1,
            Some(passed) => {
                different_verdicts +=
                    usize::from(passed != test_lefevre(a, b, n, threshold, 3).passed)
            }
        }
    }
    println!("literal swap: {underflows} underflows, {different_verdicts} different verdicts");
    assert!(underflows + different_verdicts > 0);
}

/// [TOMS16] Alg. 2 as printed undercounts the points (`u` stays 1 after the first quotient): it
/// stays sound but runs longer, so its bound is never above ours.
#[test]
fn lower_bound_toms16_regular_listing_is_sound_but_weaker() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let (mut weaker, cases) = (0usize, 100_000);
    for _ in 0..cases {
        let (a, b, n) = random_case(&mut rng);
        let n = n * rng.gen_range(1..64);
        let as_printed = toms16_algorithm_2_as_printed(a, b, n);
        let ours = u128::from(lower_bound_regular(a, b, n, 3).distance);
        assert!(as_printed <= ours, "a={a:#x} b={b:#x} n={n}");
        assert!(as_printed <= u128::from(min_distance_brute_force(a, b, n)));
        weaker += usize::from(as_printed < ours);
    }
    println!("[TOMS16] Alg. 2 as printed is weaker than ours on {weaker} of {cases} cases");
    assert!(weaker > 0);
}

/// The exact form of Lefèvre's bound at one hand-checked point: a = 1/3 rounded up, b just left
/// of 2a. The multiples 0, a, 2a... are placed in order; min over x < 3 is b - a.
#[test]
fn lower_bound_lefevre_hand_example() {
    let a = u64::MAX / 3 + 1;
    let b = a.wrapping_mul(2) - 5;
    let bound = lower_bound_lefevre(a, b, 3, 3);
    assert_eq!(bound.distance, b - a);
    assert_eq!(bound.distance, min_distance_brute_force(a, b, bound.points));
}
