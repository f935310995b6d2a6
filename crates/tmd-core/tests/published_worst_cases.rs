//! `hardness` reproduces published hard cases. The inputs come from CORE-MATH's
//! worst-case files in data/worst-cases/ (see its README for their origin):
//! every exp and exp2 input in [1, 2) there has at least 44 identical bits after the round bit.

use std::path::PathBuf;
use tmd_core::hardness::DEFAULT_MAX_PRECISION;
use tmd_core::number::parse_exact;
use tmd_core::{hardness, Expr, Format, Kind, Outcome};

/// The published worst-case files shipped with tmd (`data/worst-cases/`, with their provenance).
fn worst_cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/worst-cases")
}

/// First token of every non-comment line, as in CORE-MATH's readers.
fn read_wc(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(worst_cases_dir().join(name)).unwrap();
    text.lines()
        .filter_map(|l| l.split('#').next())
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

fn classify(func: &str, x: &str) -> (String, Outcome) {
    let f = Format::binary64();
    let e = Expr::parse(&format!("{func}(x)")).unwrap();
    let xn = parse_exact(x, &f).unwrap();
    (x.to_string(), hardness(&e, &f, &xn, DEFAULT_MAX_PRECISION))
}

#[test]
fn published_log_example_k60_directed() {
    let (_, o) = classify("log", "0x1.ac50b409c8aeep+8");
    let Outcome::Inexact(i) = o else {
        panic!("{o:?}")
    };
    assert_eq!((i.kind, i.k), (Kind::Directed, 60));
    assert!((i.bits - 61.62).abs() < 0.005, "bits {}", i.bits);
}

#[test]
fn published_exp_example_k53_nearest() {
    let (_, o) = classify("exp", "0x1.aca7ae8da5a7bp+0");
    let Outcome::Inexact(i) = o else {
        panic!("{o:?}")
    };
    assert_eq!((i.kind, i.k), (Kind::Nearest, 53));
    assert!((i.bits - 54.99).abs() < 0.005, "bits {}", i.bits);
}

/// The inputs of the file's hard-to-round section: from its heading comment (which contains
/// "hard-to-round") to the next comment that follows data (the files go on with special
/// values, thresholds and regression inputs that are not hard cases).
fn read_hard_section(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(worst_cases_dir().join(name)).unwrap();
    let mut inside = false;
    let mut seen_data = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let data = line
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .next();
        match data {
            None if line.contains("hard-to-round") => inside = true,
            None if inside && seen_data => break,
            None => {}
            Some(token) if inside => {
                seen_data = true;
                out.push(token.to_string());
            }
            Some(_) => {}
        }
    }
    out
}

fn check_binade_one_to_two(func: &str, file: &str, expected_at_least: usize) {
    let inputs: Vec<String> = read_hard_section(file)
        .into_iter()
        // The files also list special inputs for libm tests; those are no hard cases.
        .filter(|x| !x.contains("nan") && !x.contains("inf"))
        .filter(|x| {
            let v = parse_exact(x, &Format::binary64())
                .unwrap()
                .to_float()
                .to_f64();
            (1.0..2.0).contains(&v)
        })
        .collect();
    assert!(
        inputs.len() >= expected_at_least,
        "{file}: {} inputs in [1,2)",
        inputs.len()
    );
    for x in &inputs {
        let (x, o) = classify(func, x);
        match o {
            Outcome::Inexact(i) => assert!(
                i.k >= 44,
                "{func}({x}): k = {} ({} bits, {})",
                i.k,
                i.bits,
                i.kind.name()
            ),
            // The exp2 list includes integers, where 2^x is exact: exact, not hard.
            Outcome::Exact { .. } if func == "exp2" && is_integer(&x) => {}
            other => panic!("{func}({x}): {other:?}"),
        }
    }
}

fn is_integer(x: &str) -> bool {
    parse_exact(x, &Format::binary64())
        .unwrap()
        .to_float()
        .is_integer()
}

#[test]
fn every_exp_input_in_one_two_has_k_at_least_44() {
    check_binade_one_to_two("exp", "exp.wc", 540);
}

#[test]
fn every_exp2_input_in_one_two_has_k_at_least_44() {
    check_binade_one_to_two("exp2", "exp2.wc", 1);
}

#[test]
fn log_worst_cases_sample_is_hard() {
    // log.wc holds Lefèvre's log cases with up to 64 identical bits; check the first 300.
    let inputs = read_wc("log.wc");
    for x in inputs.iter().take(300) {
        let (x, o) = classify("log", x);
        let Outcome::Inexact(i) = o else {
            panic!("log({x}): {o:?}")
        };
        assert!(i.k >= 40, "log({x}): k = {}", i.k);
    }
}
