//! The job of `tmd hardness`: the exact classification of f(x) for given inputs and for the
//! inputs of a worst-case list (`--file`, CORE-MATH's `.wc` layout or one number a line),
//! decided in parallel and printed in order, batch by batch, so that memory does not grow with
//! the list; and the tally of the kinds met.

use crate::output::{hardness_json, hardness_text};
use crate::Target;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use thiserror::Error;
use tmd_core::number::parse_exact;
use tmd_core::safe_fs::{io_reason, BoundedLines, LineError};
use tmd_core::{hardness, Format, FormatNumber, InputError, Outcome};

/// Inputs of a `--file` decided (in parallel) and printed at a time.
const FILE_BATCH: usize = 1 << 12;

/// Why a hardness job stopped: bad input (an input, a line of the list), or a failed write.
#[derive(Debug, Error)]
pub enum HardnessError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Receives the lines of a list that hold no input of the format (line number, why); given,
/// such lines are skipped, otherwise the first is an error.
pub type NotInputs<'a> = Option<&'a mut dyn FnMut(usize, String)>;

/// What `tmd hardness` decides: a function, a format and the precision cap.
pub struct HardnessJob {
    target: Target,
    format: Format,
    max_precision: u32,
    json: bool,
}

impl HardnessJob {
    /// Checks the arguments: the format, the function, and a cap of at least p + 64 bits.
    pub fn new(
        function: &str,
        format: &str,
        max_precision: u32,
        json: bool,
    ) -> Result<HardnessJob, InputError> {
        let format = Format::parse(format)?;
        let target = Target::parse(function)?;
        let least = format.precision() + 64;
        if !(least..=tmd_core::hardness::MAX_PRECISION_CAP).contains(&max_precision) {
            return Err(InputError::Usage(format!(
                "--max-precision {max_precision}: expected {least} (p + 64) to {}",
                tmd_core::hardness::MAX_PRECISION_CAP
            )));
        }
        Ok(HardnessJob {
            target,
            format,
            max_precision,
            json,
        })
    }

    pub fn format(&self) -> &Format {
        &self.format
    }

    /// The inputs given as arguments, every one checked before anything is printed (an
    /// option written after them is named as one).
    pub fn parse_inputs(&self, inputs: &[String]) -> Result<Vec<FormatNumber>, InputError> {
        inputs
            .iter()
            .map(|s| match s.strip_prefix("--") {
                Some(name) => Err(InputError::Usage(format!(
                    "unknown option --{name} (see tmd hardness --help)"
                ))),
                None => parse_exact(s, &self.format),
            })
            .collect()
    }

    /// Decides `inputs` in parallel and writes them to `out` in order.
    pub fn write_batch(
        &self,
        inputs: &[FormatNumber],
        out: &mut dyn Write,
        tally: &mut Tally,
    ) -> io::Result<()> {
        let outcomes: Vec<_> = inputs
            .par_iter()
            .map(|x| hardness(&self.target.expr, &self.format, x, self.max_precision))
            .collect();
        let (name, format) = (&self.target.name, &self.format);
        for (x, outcome) in inputs.iter().zip(&outcomes) {
            if self.json {
                writeln!(out, "{}", hardness_json(name, format, x, outcome))?;
            } else {
                write!(out, "{}", hardness_text(name, format, x, outcome))?;
            }
            tally.add(outcome);
        }
        Ok(())
    }

    /// Writes `inputs`, then the inputs of the list at `path`, streamed in batches. A regular
    /// file is read twice when its bad lines are refused (`not_inputs` None): once to check
    /// every line before anything is printed, then to decide and print. A pipe can be read
    /// once only: its lines are checked as they come, and a bad one ends the run after the
    /// lines before it. Returns the tally and the special entries (nan, inf) skipped.
    pub fn write_with_list(
        &self,
        inputs: &[FormatNumber],
        path: &Path,
        not_inputs: NotInputs,
        out: &mut dyn Write,
    ) -> Result<(Tally, u64), HardnessError> {
        let name = path.display().to_string();
        let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        if regular && not_inputs.is_none() {
            for_each_wc_input(open_list(path)?, &self.format, (&name, None), |_| Ok(()))?;
        }
        let mut tally = Tally::default();
        self.write_batch(inputs, out, &mut tally)?;
        let mut batch = Vec::with_capacity(FILE_BATCH);
        let list = open_list(path)?;
        let skipped = for_each_wc_input(list, &self.format, (&name, not_inputs), |x| {
            batch.push(x);
            if batch.len() == FILE_BATCH {
                self.write_batch(&batch, out, &mut tally)?;
                batch.clear();
            }
            Ok(())
        })?;
        self.write_batch(&batch, out, &mut tally)?;
        Ok((tally, skipped))
    }
}

/// Opens a `--file`: a missing or unreadable file is the user's to fix, bad input.
fn open_list(path: &Path) -> Result<BufReader<File>, InputError> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|e| InputError::Usage(format!("--file {}: {}", path.display(), io_reason(&e))))
}

/// Calls `f` on the inputs of a worst-case file in order: the first token of each line, `#`
/// starting a comment. Special values (nan, inf, as libm test lists carry) are skipped and
/// counted (the count is returned); anything else that is not a number of the format, or a
/// line that is not UTF-8 text, goes to `not_inputs` and is skipped when it is given, an
/// error naming the line otherwise.
pub fn for_each_wc_input(
    reader: impl BufRead,
    format: &Format,
    (name, mut not_inputs): (&str, NotInputs),
    mut f: impl FnMut(FormatNumber) -> Result<(), HardnessError>,
) -> Result<u64, HardnessError> {
    let mut skipped = 0;
    for (i, line) in BoundedLines::new(reader).enumerate() {
        let line_no = i + 1;
        let line = match (line, not_inputs.as_deref_mut()) {
            (Ok(line), _) => line,
            (Err(LineError::NotUtf8), Some(noted)) => {
                noted(line_no, "not UTF-8 text".into());
                continue;
            }
            (Err(LineError::Io(e)), _) => {
                let why = format!("{name}:{line_no}: {}", io_reason(&e));
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
            (Err(e), Some(noted)) => noted(line_no, e.to_string()),
            (Err(e), None) => {
                return Err(InputError::Number(format!("{name}:{line_no}: {e}")).into())
            }
        }
    }
    Ok(skipped)
}

/// How many inputs of each kind, and the smallest k among the hard ones.
#[derive(Default)]
pub struct Tally {
    pub inputs: u64,
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

    /// The tally in one line: `12 inputs: 3 directed, 9 nearest; smallest k 40`.
    pub fn line(&self) -> String {
        let counts: Vec<String> = self.kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        format!(
            "{} inputs: {}{}",
            self.inputs,
            counts.join(", "),
            self.min_k
                .map(|k| format!("; smallest k {k}"))
                .unwrap_or_default()
        )
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

    /// The inputs of a worst-case file's text, as [`for_each_wc_input`] reads them.
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
            Err(HardnessError::Input(e)) => Err(e),
            Err(HardnessError::Io(e)) => panic!("reading a string failed: {e}"),
        }
    }

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
