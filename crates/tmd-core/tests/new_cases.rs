//! The hard cases tmd computed and ships in data/new-cases/ (see its README: pieces of sin and
//! cos on [2^11, 2^12) at K = 43) hold what their lines say: each listed input's kind, k and
//! bits, recomputed here with MPFR, are the file's, its bits reach the file's K, and it lies in
//! the piece its header names.

use std::path::PathBuf;
use tmd_core::hardness::DEFAULT_MAX_PRECISION;
use tmd_core::number::parse_exact;
use tmd_core::{hardness, Expr, Format, Outcome};

fn new_cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/new-cases")
}

/// The `.wc` files of every function's folder.
fn pieces() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for func in std::fs::read_dir(new_cases_dir()).unwrap().flatten() {
        if func.path().is_dir() {
            for f in std::fs::read_dir(func.path()).unwrap().flatten() {
                if f.path().extension().is_some_and(|e| e == "wc") {
                    files.push(f.path());
                }
            }
        }
    }
    files.sort();
    files
}

/// From a piece's header: the function, the range's ends and K.
fn header(text: &str) -> (String, f64, f64, u32) {
    let mut lines = text.lines();
    let first = lines.next().unwrap();
    let func = first
        .strip_prefix("# hard-to-round cases of ")
        .and_then(|s| s.strip_suffix(" in binary64"))
        .unwrap_or_else(|| panic!("not a binary64 piece: {first}"));
    let second = lines.next().unwrap();
    let rest = second.strip_prefix("# inputs searched: [").unwrap();
    let (from, rest) = rest.split_once(", ").unwrap();
    let (to, rest) = rest.split_once("), K = ").unwrap();
    let (bits, kinds) = rest.split_once(", breakpoints ").unwrap();
    assert_eq!(kinds, "all", "{second}");
    let hex = |s: &str| {
        parse_exact(s, &Format::binary64())
            .unwrap()
            .to_float()
            .to_f64()
    };
    (func.to_string(), hex(from), hex(to), bits.parse().unwrap())
}

#[test]
fn every_new_case_has_the_hardness_its_line_states() {
    let files = pieces();
    assert!(!files.is_empty(), "no piece in {:?}", new_cases_dir());
    let format = Format::binary64();
    let mut checked = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let (func, from, to, bits) = header(&text);
        let expr = Expr::parse(&format!("{func}(x)")).unwrap();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (x, comment) = line.split_once(" # ").unwrap();
            let stated: Vec<&str> = comment.split_whitespace().collect();
            let xn = parse_exact(x, &format).unwrap();
            let value = xn.to_float().to_f64();
            assert!(
                from <= value && value < to,
                "{path:?}: {x} outside the piece"
            );
            let Outcome::Inexact(i) = hardness(&expr, &format, &xn, DEFAULT_MAX_PRECISION) else {
                panic!("{path:?}: {func}({x}) is not an inexact hard case");
            };
            let got = [
                i.kind.name().to_string(),
                format!("k={}", i.k),
                format!("bits={:.3}", i.bits),
            ];
            assert_eq!(stated, got, "{path:?}: {func}({x})");
            assert!(
                i.bits >= bits as f64,
                "{path:?}: {func}({x}) has {} bits",
                i.bits
            );
            checked += 1;
        }
    }
    eprintln!("{checked} cases in {} pieces checked", files.len());
}
