//! Property tests of the number and expression parsers: arbitrary text gives a value or a
//! typed error, never a panic; printed values and expressions read back to themselves.
//!
//! The number of cases per property is proptest's (256) unless `PROPTEST_CASES` says
//! otherwise: `PROPTEST_CASES=100000 cargo test --release fuzz_` runs them longer.

use proptest::prelude::*;
use rug::{Float, Rational};
use tmd_core::expr::MAX_DEPTH;
use tmd_core::number::{parse_exact, parse_number, parse_rounded};
use tmd_core::{Expr, Format, FormatNumber, Func, FUNCTIONS};

/// Text that looks like a number often enough to reach deep into the parser: signs, `0x`,
/// digits, points, exponent markers and exponents of any length, and a few stray characters.
fn number_like() -> impl Strategy<Value = String> {
    "[ +-]{0,2}(0[xX])?[0-9a-fA-F.]{0,30}([pPeE][+-]?[0-9]{0,22})?[ .xpe_/g-]{0,2}"
}

/// The format number of a binary64 or binary32 value given by its bits (finite values only).
fn from_bits(format: &Format, bits: u64, width: u32) -> Option<FormatNumber> {
    let sign = 1u64 << (width - 1);
    let magnitude = bits & (sign - 1);
    let ordinal = magnitude as i128;
    if ordinal > format.max_ordinal() {
        return None; // an infinity or a NaN
    }
    let x = format.from_ordinal(if bits & sign != 0 { -ordinal } else { ordinal });
    Some(FormatNumber {
        neg: bits & sign != 0,
        ..x
    })
}

mod fuzz_number_parser {
    use super::*;

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_text(text in any::<String>()) {
            let _ = parse_number(&text);
            for format in [Format::binary16(), Format::binary64()] {
                let _ = parse_rounded(&text, &format);
                let _ = parse_exact(&text, &format);
            }
        }

        #[test]
        fn never_panics_on_number_like_text(text in number_like()) {
            for format in [Format::binary16(), Format::binary64(), Format::custom(64).unwrap()] {
                if let Ok((x, exact)) = parse_rounded(&text, &format) {
                    // Whatever is accepted is a number of the format, exactly when it says so.
                    let q = parse_number(&text).unwrap();
                    let back = x.to_float().to_rational().unwrap();
                    prop_assert_eq!(exact, back == q, "{}", text);
                    prop_assert!(format.ordinal(&x).abs() <= format.max_ordinal());
                }
            }
        }

        #[test]
        fn hex_of_every_finite_binary64_reads_back_to_the_same_number(bits in any::<u64>()) {
            let format = Format::binary64();
            if let Some(x) = from_bits(&format, bits, 64) {
                let text = x.to_hex();
                let back = parse_exact(&text, &format).unwrap();
                prop_assert_eq!(back, x, "{}", text);
                prop_assert_eq!(back.to_float().to_f64().to_bits(), bits, "{}", text);
            }
        }

        #[test]
        fn hex_of_every_finite_binary32_reads_back_to_the_same_number(bits in any::<u32>()) {
            let format = Format::binary32();
            if let Some(x) = from_bits(&format, bits as u64, 32) {
                let text = x.to_hex();
                let back = parse_exact(&text, &format).unwrap();
                prop_assert_eq!(back, x, "{}", text);
                prop_assert_eq!(back.to_float().to_f32().to_bits(), bits, "{}", text);
            }
        }

        /// Rust's own `str::parse` rounds correctly (to nearest, ties to even, subnormals
        /// included, with the sign of zero), so both must agree bit for bit.
        #[test]
        fn decimals_round_like_the_standard_library(
            neg in any::<bool>(),
            digits in "[0-9]{1,40}",
            point in 0usize..40,
            exponent in -400i32..400,
        ) {
            let point = point.min(digits.len());
            let text = format!(
                "{}{}.{}e{exponent}",
                if neg { "-" } else { "" },
                &digits[..point],
                &digits[point..]
            );
            let expected64: f64 = text.parse().unwrap();
            match parse_rounded(&text, &Format::binary64()) {
                Ok((x, _)) => prop_assert_eq!(
                    x.to_float().to_f64().to_bits(), expected64.to_bits(), "{}", text),
                Err(_) => prop_assert!(expected64.is_infinite(), "{}", text),
            }
            let expected32: f32 = text.parse().unwrap();
            match parse_rounded(&text, &Format::binary32()) {
                Ok((x, _)) => prop_assert_eq!(
                    x.to_float().to_f32().to_bits(), expected32.to_bits(), "{}", text),
                Err(_) => prop_assert!(expected32.is_infinite(), "{}", text),
            }
        }

        /// In the normal range of a custom precision, MPFR's correctly rounded conversion
        /// of the same decimal is the reference.
        #[test]
        fn decimals_round_like_mpfr_in_custom_precisions(
            precision in 2u32..=64,
            digits in "[1-9][0-9]{0,40}",
            exponent in -250i32..250,
        ) {
            let text = format!("{digits}e{exponent}");
            let format = Format::custom(precision).unwrap();
            let (x, exact) = parse_rounded(&text, &format).unwrap();
            let (reference, ternary) =
                Float::with_val_round(precision, Float::parse(&text).unwrap(), rug::float::Round::Nearest);
            prop_assert_eq!(x.to_float(), reference, "p{} {}", precision, text);
            prop_assert_eq!(exact, ternary == std::cmp::Ordering::Equal);
        }

        /// The shortest decimal that Rust prints for a binary64 reads back to it.
        #[test]
        fn shortest_decimals_of_binary64_read_back(bits in any::<u64>()) {
            let v = f64::from_bits(bits);
            if v.is_finite() {
                let text = format!("{v:e}");
                let (x, _) = parse_rounded(&text, &Format::binary64()).unwrap();
                prop_assert_eq!(x.to_float().to_f64().to_bits(), bits, "{}", text);
            }
        }
    }
}

/// A random expression tree of at most `depth` levels, built only of what the parser makes
/// (constants are non-negative: `-3` reads as the negation of 3).
fn expression(depth: u32) -> BoxedStrategy<Expr> {
    let constant =
        (0u64..1 << 20, -30i32..30).prop_map(|(m, e)| Expr::Const(Rational::from(m) << e));
    let leaf = prop_oneof![Just(Expr::X), Just(Expr::Pi), Just(Expr::E), constant,];
    leaf.prop_recursive(depth, 64, 2, |inner| {
        let function = (0..FUNCTIONS.len()).prop_map(|i| FUNCTIONS[i].func);
        prop_oneof![
            inner.clone().prop_map(|a| Expr::Neg(Box::new(a))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Sub(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Mul(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Div(Box::new(a), Box::new(b))),
            (inner.clone(), -65536i32..=65536).prop_map(|(a, n)| Expr::PowI(Box::new(a), n)),
            (function, inner).prop_map(|(f, a): (Func, Expr)| Expr::Call(f, Box::new(a))),
        ]
    })
    .boxed()
}

/// Fully parenthesised text of an expression; constants as exact hex floats. The parser
/// has no printer of its own, so this one is the grammar of `tmd_core::expr` read backwards.
fn print(e: &Expr) -> String {
    match e {
        Expr::X => "x".into(),
        Expr::Pi => "pi".into(),
        Expr::E => "e".into(),
        Expr::Const(q) => {
            // q = m / 2^k with k <= 30: printed as the hex float m·2^-k.
            let k = q.denom().significant_bits() - 1;
            format!("0x{:x}p-{k}", q.numer())
        }
        Expr::Neg(a) => format!("-({})", print(a)),
        Expr::Add(a, b) => format!("({})+({})", print(a), print(b)),
        Expr::Sub(a, b) => format!("({})-({})", print(a), print(b)),
        Expr::Mul(a, b) => format!("({})*({})", print(a), print(b)),
        Expr::Div(a, b) => format!("({})/({})", print(a), print(b)),
        Expr::PowI(a, n) if *n < 0 => format!("({})^({n})", print(a)),
        Expr::PowI(a, n) => format!("({})**{n}", print(a)),
        Expr::Call(f, a) => format!("{}({})", f.name(), print(a)),
    }
}

/// Text made of the expression grammar's own pieces, in any order: unbalanced parentheses,
/// operator runs, calls without arguments.
fn expression_like() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("x"),
        Just("("),
        Just(")"),
        Just("+"),
        Just("-"),
        Just("*"),
        Just("/"),
        Just("^"),
        Just("**"),
        Just("exp("),
        Just("lgamma("),
        Just("pi"),
        Just("e"),
        Just("2"),
        Just("0x1.8p-3"),
        Just("1e400"),
        Just("65537"),
        Just(" "),
    ];
    proptest::collection::vec(pieces, 0..60).prop_map(|p| p.concat())
}

mod fuzz_expression_parser {
    use super::*;

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_text(text in any::<String>()) {
            let _ = Expr::parse(&text);
        }

        #[test]
        fn never_panics_on_grammar_pieces_in_any_order(text in expression_like()) {
            if let Ok(e) = Expr::parse(&text) {
                prop_assert!(e.depth() <= MAX_DEPTH);
            }
        }

        /// Deep nesting and long chains of every kind are refused with one short line or
        /// accepted, without overflowing the stack.
        #[test]
        fn never_panics_on_deep_nesting_or_long_chains(
            open in prop_oneof![Just("("), Just("-"), Just("exp("), Just("+"), Just("sin(-")],
            link in prop_oneof![Just("+x"), Just("*x"), Just("-x"), Just("/x"), Just("^2")],
            depth in 0usize..5000,
            chain in 0usize..5000,
        ) {
            let close = if open.contains('(') { ")" } else { "" };
            let text = format!("{}x{}{}", open.repeat(depth), link.repeat(chain), close.repeat(depth));
            match Expr::parse(&text) {
                Ok(e) => prop_assert!(e.depth() <= MAX_DEPTH),
                Err(e) => prop_assert!(e.to_string().len() < 200, "{}", e),
            }
        }

        #[test]
        fn printed_expressions_parse_back_to_the_same_tree(e in expression(6)) {
            let text = print(&e);
            prop_assert_eq!(Expr::parse(&text).unwrap(), e, "{}", text);
        }
    }
}
