//! The reference search against an independent computation (see `common`) on many
//! random windows: 12 functions, 5 formats, the three breakpoint modes. Every input of every
//! window is compared: the listed hard-to-round set, and each case's kind and k.

mod common;

use common::{assert_listed_agrees, oracle, oracle_is_hard, run_search};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use tmd_core::{Breakpoints, Format, Func, Outcome};
use tmd_search::InputRange;

const FUNCTIONS: [Func; 12] = [
    Func::Exp,
    Func::Log,
    Func::Sin,
    Func::Cos,
    Func::Tan,
    Func::Atan,
    Func::Cbrt,
    Func::Erf,
    Func::Sinh,
    Func::Log1p,
    Func::Exp2m1,
    Func::Acospi,
];

fn formats() -> Vec<Format> {
    vec![
        Format::binary16(),
        Format::bfloat16(),
        Format::binary32(),
        Format::binary64(),
        Format::custom(40).unwrap(),
    ]
}

/// A window of `len` inputs starting at a random number of magnitude 2^-8 .. 2^6.
fn random_window(rng: &mut ChaCha8Rng, format: &Format, len: i128) -> InputRange {
    let magnitude = rng.gen_range(-8.0..6.0f64).exp2() * if rng.gen() { 1.0 } else { -1.0 };
    let (start, _) = tmd_core::number::parse_rounded(&format!("{magnitude:e}"), format).unwrap();
    let s = format.ordinal(&start);
    let e = (s + len).min(format.max_ordinal());
    InputRange {
        format: format.clone(),
        start: s,
        end: e,
    }
}

#[test]
fn reference_search_equals_bitwise_oracle_on_random_windows() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let modes = [
        Breakpoints::All,
        Breakpoints::Directed,
        Breakpoints::Nearest,
    ];
    let mut compared = 0u64;
    let mut hard_seen = 0u64;
    for (i, func) in FUNCTIONS.iter().enumerate() {
        for (j, format) in formats().iter().enumerate() {
            for round in 0..2 {
                let mode = modes[(i + j + round) % 3];
                let range = random_window(&mut rng, format, 1500);
                // K near the precision for small formats, small for wide ones, so that every
                // window has cases.
                let k = if format.precision() <= 11 {
                    format.precision() + 2
                } else {
                    rng.gen_range(7..11)
                };
                let cases = run_search(*func, &range, k, mode, 2048);
                let listed: BTreeMap<i128, &Outcome> = cases
                    .iter()
                    .map(|c| (format.ordinal(&c.x), &c.outcome))
                    .collect();
                for ord in range.start..range.end {
                    let x = format.from_ordinal(ord);
                    let bits = oracle(*func, &x, format);
                    compared += 1;
                    let expect = oracle_is_hard(bits, k, mode);
                    let what = format!("{func}({}) in {}", x.to_hex(), format.name());
                    match listed.get(&ord) {
                        Some(outcome) => {
                            assert_listed_agrees(&what, outcome, bits, k, mode);
                            hard_seen += u64::from(matches!(outcome, Outcome::Inexact(_)));
                        }
                        None => {
                            assert!(!expect, "{what} missed: oracle {bits:?}, K = {k}, {mode:?}")
                        }
                    }
                }
            }
        }
    }
    assert!(compared > 150_000, "compared {compared}");
    assert!(hard_seen > 300, "only {hard_seen} hard cases compared");
}
