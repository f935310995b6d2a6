//! `tmd hardness FUNC X... [--file F.wc]`: exact classification of f(x) for each input.

use crate::cli::HardnessArgs;
use crate::output::{hardness_json, hardness_text};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use tmd_core::number::parse_exact;
use tmd_core::safe_fs::LineError;
use tmd_core::{hardness, Format, FormatNumber, InputError, Outcome};
use tmd_crunch::input_list::SkippedLines;
use tmd_search::Target;

/// Inputs of a `--file` decided (in parallel) and printed at a time: the file is streamed,
/// so memory does not grow with its length.
const FILE_BATCH: usize = 1 << 12;

pub fn run(args: &HardnessArgs) -> anyhow::Result<()> {
    let format = Format::parse(&args.format)?;
    let target = Target::parse(&args.function)?;
    let least = format.precision() + 64;
    if !(least..=tmd_core::hardness::MAX_PRECISION_CAP).contains(&args.max_precision) {
        return Err(InputError::Usage(format!(
            "--max-precision {}: expected {least} (p + 64) to {}",
            args.max_precision,
            tmd_core::hardness::MAX_PRECISION_CAP
        ))
        .into());
    }
    // Every input is checked before anything is printed.
    let inputs = args
        .inputs
        .iter()
        .map(|s| match s.strip_prefix("--") {
            Some(name) => Err(InputError::Usage(format!(
                "unknown option --{name} (see tmd hardness --help)"
            ))),
            None => parse_exact(s, &format),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let Some(path) = &args.file else {
        let mut out = std::io::stdout().lock();
        return print_batch(
            args,
            &target,
            &format,
            &inputs,
            &mut out,
            &mut Tally::default(),
        );
    };
    let name = path.display().to_string();
    // A regular file is read twice: once to check every line before anything is printed,
    // then to decide and print. A pipe can be read once only: its lines are checked as they
    // come, and a bad one ends the run after the lines before it.
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    let mut not_inputs = SkippedLines::default();
    if regular && args.strict {
        for_each_wc_input(open_file(path)?, &format, (&name, None), |_| Ok(()))?;
    }
    let mut out = std::io::stdout().lock();
    let mut tally = Tally::default();
    print_batch(args, &target, &format, &inputs, &mut out, &mut tally)?;
    let mut batch = Vec::with_capacity(FILE_BATCH);
    let keep_going = (!args.strict).then_some(&mut not_inputs);
    let skipped = for_each_wc_input(open_file(path)?, &format, (&name, keep_going), |x| {
        batch.push(x);
        if batch.len() == FILE_BATCH {
            print_batch(args, &target, &format, &batch, &mut out, &mut tally)?;
            batch.clear();
        }
        Ok(())
    })?;
    print_batch(args, &target, &format, &batch, &mut out, &mut tally)?;
    if skipped > 0 {
        eprintln!("tmd: note: {skipped} special entries (nan, inf) of {name} skipped");
    }
    let read = tally.inputs + skipped;
    super::crunch_list::note_skipped(&name, format.name(), &not_inputs, read)?;
    tally.print();
    Ok(())
}

/// Opens a `--file`: a missing or unreadable file is the user's to fix, bad input.
fn open_file(path: &std::path::Path) -> Result<BufReader<File>, InputError> {
    File::open(path).map(BufReader::new).map_err(|e| {
        InputError::Usage(format!(
            "--file {}: {}",
            path.display(),
            super::io_reason(&e)
        ))
    })
}

/// Decides `inputs` in parallel and prints them in order.
fn print_batch(
    args: &HardnessArgs,
    target: &Target,
    format: &Format,
    inputs: &[FormatNumber],
    out: &mut impl Write,
    tally: &mut Tally,
) -> anyhow::Result<()> {
    let outcomes: Vec<_> = inputs
        .par_iter()
        .map(|x| hardness(&target.expr, format, x, args.max_precision))
        .collect();
    for (x, outcome) in inputs.iter().zip(&outcomes) {
        if args.json {
            writeln!(out, "{}", hardness_json(&target.name, format, x, outcome))?;
        } else {
            write!(out, "{}", hardness_text(&target.name, format, x, outcome))?;
        }
        tally.add(outcome);
    }
    Ok(())
}

/// Calls `f` on the inputs of a worst-case file in order: the first token of each line, `#`
/// starting a comment. Special values (nan, inf, as libm test lists carry) are skipped and
/// counted (the count is returned); anything else that is not a number of the format, or a
/// line that is not UTF-8 text, is noted in `not_inputs` and skipped when it is given, an
/// error naming the line otherwise (`--strict`).
fn for_each_wc_input(
    reader: impl BufRead,
    format: &Format,
    (name, mut not_inputs): (&str, Option<&mut SkippedLines>),
    mut f: impl FnMut(FormatNumber) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let mut skipped = 0;
    for (i, line) in tmd_core::safe_fs::BoundedLines::new(reader).enumerate() {
        let line_no = i + 1;
        let line = match (line, not_inputs.as_deref_mut()) {
            (Ok(line), _) => line,
            (Err(LineError::NotUtf8), Some(noted)) => {
                noted.note(line_no, "not UTF-8 text");
                continue;
            }
            (Err(LineError::Io(e)), _) => {
                let why = format!("{name}:{line_no}: {}", super::io_reason(&e));
                return Err(InputError::Usage(why).into());
            }
            (Err(e), _) => return Err(InputError::Number(format!("{name}:{line_no}: {e}")).into()),
        };
        let Some(token) = line
            .split('#')
            .next()
            .and_then(|l| l.split_whitespace().next())
        else {
            continue;
        };
        let lower = token.to_ascii_lowercase();
        let unsigned = lower.trim_start_matches(['+', '-']);
        if matches!(unsigned, "nan" | "inf" | "infinity") || unsigned.starts_with("nan(") {
            skipped += 1;
            continue;
        }
        match (parse_exact(token, format), not_inputs.as_deref_mut()) {
            (Ok(x), _) => f(x)?,
            (Err(e), Some(noted)) => noted.note(line_no, e.to_string()),
            (Err(e), None) => {
                return Err(InputError::Number(format!("{name}:{line_no}: {e}")).into())
            }
        }
    }
    Ok(skipped)
}

/// The inputs of a worst-case file's text, as [`for_each_wc_input`] reads them.
#[cfg(test)]
fn read_worst_case_file(
    text: &str,
    format: &Format,
    name: &str,
) -> Result<Vec<FormatNumber>, InputError> {
    let mut inputs = Vec::new();
    let read = for_each_wc_input(text.as_bytes(), format, (name, None), |x| {
        inputs.push(x);
        Ok(())
    });
    match read {
        Ok(_) => Ok(inputs),
        Err(e) => Err(e.downcast::<InputError>().expect("a reading error")),
    }
}

/// How many inputs of each kind, and the smallest k among the hard ones.
#[derive(Default)]
struct Tally {
    inputs: u64,
    kinds: BTreeMap<&'static str, u64>,
    min_k: Option<u32>,
}

impl Tally {
    fn add(&mut self, outcome: &Outcome) {
        self.inputs += 1;
        *self.kinds.entry(outcome.kind_name()).or_default() += 1;
        if let Outcome::Inexact(i) = outcome {
            self.min_k = Some(self.min_k.map_or(i.k, |k| k.min(i.k)));
        }
    }

    /// One stderr line.
    fn print(&self) {
        let counts: Vec<String> = self.kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        eprintln!(
            "tmd: {} inputs: {}{}",
            self.inputs,
            counts.join(", "),
            self.min_k
                .map(|k| format!("; smallest k {k}"))
                .unwrap_or_default()
        );
    }
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
