//! `tmd hardness FUNC X... [--file F.wc]`: exact classification of f(x) for each input.

use crate::cli::HardnessArgs;
use crate::output::{hardness_json, hardness_text};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::Write;
use tmd_core::number::parse_exact;
use tmd_core::{hardness, Format, FormatNumber, InputError, Outcome};
use tmd_search::Target;

pub fn run(args: &HardnessArgs) -> anyhow::Result<()> {
    let format = Format::parse(&args.format)?;
    let target = Target::parse(&args.function)?;
    let json = args.json;
    // Every input is checked before anything is printed.
    let mut inputs = args
        .inputs
        .iter()
        .map(|s| match s.strip_prefix("--") {
            Some(name) => Err(InputError::Usage(format!(
                "unknown option --{name} (see tmd hardness --help)"
            ))),
            None => parse_exact(s, &format),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(path) = &args.file {
        // A missing or unreadable file is the user's to fix: bad input.
        let text = std::fs::read_to_string(path).map_err(|e| {
            InputError::Usage(format!(
                "--file {}: {}",
                path.display(),
                super::io_reason(&e)
            ))
        })?;
        inputs.extend(read_worst_case_file(
            &text,
            &format,
            &path.display().to_string(),
        )?);
    }
    let outcomes: Vec<_> = inputs
        .par_iter()
        .map(|x| hardness(&target.expr, &format, x, args.max_precision))
        .collect();
    let mut out = std::io::stdout().lock();
    for (x, outcome) in inputs.iter().zip(&outcomes) {
        if json {
            writeln!(out, "{}", hardness_json(&target.name, &format, x, outcome))?;
        } else {
            write!(out, "{}", hardness_text(&target.name, &format, x, outcome))?;
        }
    }
    if args.file.is_some() {
        summarize(&outcomes);
    }
    Ok(())
}

/// The inputs of a worst-case file: the first token of each line, `#` starting a comment.
/// Special values (nan, inf, as libm test lists carry) are skipped with a note; anything else
/// that is not a number of the format is an error naming the line.
fn read_worst_case_file(
    text: &str,
    format: &Format,
    name: &str,
) -> Result<Vec<FormatNumber>, InputError> {
    let mut inputs = Vec::new();
    let mut skipped = 0;
    for (line_no, line) in text.lines().enumerate() {
        let Some(token) = line
            .split('#')
            .next()
            .and_then(|l| l.split_whitespace().next())
        else {
            continue;
        };
        let lower = token.to_ascii_lowercase();
        if lower.contains("nan") || lower.contains("inf") {
            skipped += 1;
            continue;
        }
        let x = parse_exact(token, format)
            .map_err(|e| InputError::Number(format!("{name}:{}: {e}", line_no + 1)))?;
        inputs.push(x);
    }
    if skipped > 0 {
        eprintln!("tmd: note: {skipped} special entries (nan, inf) of {name} skipped");
    }
    Ok(inputs)
}

/// One stderr line: how many inputs of each kind, and the smallest k among the hard ones.
fn summarize(outcomes: &[Outcome]) {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for o in outcomes {
        *kinds.entry(o.kind_name()).or_default() += 1;
    }
    let min_k = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Inexact(i) => Some(i.k),
            _ => None,
        })
        .min();
    let counts: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    eprintln!(
        "tmd: {} inputs: {}{}",
        outcomes.len(),
        counts.join(", "),
        min_k
            .map(|k| format!("; smallest k {k}"))
            .unwrap_or_default()
    );
}

#[cfg(test)]
mod fuzz_tests {
    //! Property tests of the `.wc` reader (`PROPTEST_CASES` sets how many cases).
    use super::*;
    use crate::output::{wc_header, wc_line};
    use proptest::prelude::*;
    use tmd_core::hardness::{Inexact, Roundings};
    use tmd_core::{Kind, Rounded};

    /// A finite number of the format from an ordinal in its range.
    fn number(format: &Format, ordinal: i128) -> FormatNumber {
        let max = format.max_ordinal();
        format.from_ordinal(ordinal.rem_euclid(2 * max + 1) - max)
    }

    /// Any outcome a search lists, with made-up but well-formed contents.
    fn outcome(x: FormatNumber, which: u8, k: u32, bits: f64) -> Outcome {
        let r = Rounded::Finite(x);
        let roundings = Roundings {
            nearest: r,
            down: r,
            up: r,
            toward_zero: r,
        };
        match which % 6 {
            0 | 1 => Outcome::Inexact(Inexact {
                roundings,
                kind: if which.is_multiple_of(6) {
                    Kind::Directed
                } else {
                    Kind::Nearest
                },
                bits,
                bits_directed: bits,
                bits_nearest: bits,
                k,
            }),
            2 => Outcome::Exact {
                roundings,
                midpoint: k.is_multiple_of(2),
            },
            3 => Outcome::Unresolved {
                precision: k,
                bits_at_least: Some(bits),
            },
            4 => Outcome::Pole {
                neg: Some(k.is_multiple_of(2)),
            },
            _ => Outcome::Undefined,
        }
    }

    proptest! {
        #[test]
        fn wc_reader_never_panics_on_arbitrary_lines(
            lines in proptest::collection::vec(any::<String>(), 0..20),
        ) {
            let text = lines.join("\n");
            for format in [Format::binary16(), Format::binary64()] {
                match read_worst_case_file(&text, &format, "f.wc") {
                    Ok(inputs) => prop_assert!(inputs.len() <= text.lines().count()),
                    // An error names the file and the line.
                    Err(e) => prop_assert!(e.to_string().contains("f.wc:"), "{}", e),
                }
            }
        }

        #[test]
        fn wc_files_written_by_search_read_back_to_their_inputs(
            header in proptest::collection::vec(any::<String>(), 0..4),
            cases in proptest::collection::vec(
                (any::<i128>(), any::<u8>(), 0u32..200, 0.0f64..300.0), 0..40),
            binary32 in any::<bool>(),
        ) {
            let format = if binary32 { Format::binary32() } else { Format::binary64() };
            let mut text = wc_header(&header);
            let mut written = Vec::new();
            for (ordinal, which, k, bits) in cases {
                let x = number(&format, ordinal);
                text += &wc_line(&x, &outcome(x, which, k, bits));
                text.push('\n');
                written.push(x);
            }
            // Negative zero too, which the ordinals above never give.
            let minus_zero = FormatNumber { neg: true, ..FormatNumber::zero(&format) };
            text += &wc_line(&minus_zero, &Outcome::Undefined);
            written.push(minus_zero);
            let read = read_worst_case_file(&text, &format, "f.wc").unwrap();
            prop_assert_eq!(read, written);
        }
    }

    #[test]
    fn regression_a_line_break_in_a_header_line_reads_as_no_input() {
        // `tmd search "x+\n1" --out f.wc`: the expression's line break split its header line
        // and the file then held a stray input "1".
        let text = wc_header(&["hard-to-round cases of x+\n1 in binary64".into()]);
        assert_eq!(text.lines().count(), 1);
        let read = read_worst_case_file(&text, &Format::binary64(), "f.wc").unwrap();
        assert!(read.is_empty());
    }
}
