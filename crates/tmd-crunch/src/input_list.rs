//! Crunching a list of inputs instead of a range: the published hard cases of a function, the
//! output of `tmd search`, or any inputs a user collected.
//!
//! Evaluating a library on known worst cases is how incorrectly rounded results are found
//! without an exhaustive run (LLVM's libc found an incorrectly rounded `cos` so; CORE-MATH's
//! check scripts run every function on its worst-case files). A list is streamed: read in
//! batches, each batch evaluated by the target and judged in parallel, every input that is
//! not correctly rounded handed to the caller in the list's order, so memory stays bounded
//! whatever the list's length.
//!
//! Every input is judged by MPFR ([`crate::analysis::classify_exact`]): lists are short next
//! to a range, so no fast reference is needed, and every error printed is exact.
//!
//! Accepted lines (one input each; blank lines and `#` comments skipped):
//! * CORE-MATH's worst-case files (`.wc`): the first token of the line is the input;
//! * `tmd search --json` lines: the `"x"` field (and `"format"`, which must match); range
//!   records (`"record":"range"`, and the `# range` comment lines of a `.wc` file) list no
//!   input and are counted ([`InputList::range_records`]), since their inputs may number
//!   2^52 (`tmd search --expand-ranges` lists them one by one);
//! * one number a line, hex (`0x1.8p+0`) or decimal; it must be a number of the format.
//!
//! NaN and infinite entries (some libm test lists carry them) are skipped and counted.
//!
//! Published lists also hold lines that are no input of the format: CORE-MATH's binary64
//! erf.wc has threshold entries that are not binary64 numbers, its binary80 log2l.wc inputs
//! with more bits than binary80 subnormals have, its exp2q.wc lines reading "Error 10290".
//! [`BadLines::Skip`] skips such lines and keeps their count and the first few
//! ([`SkippedLines`]); [`BadLines::Refuse`] (the default) makes the first one an error.

use crate::analysis::{classify_exact, correct_rounding, Class, Special};
use crate::format::CrunchFormat;
use crate::implementation::{Arity, Implementation, UnaryBatch};
use crate::rounding::Rounding;
use crate::summary::{Argmax, Outcome, Summary};
use crate::target::{Target, TargetFailure};
use rayon::prelude::*;
use serde::Serialize;
use std::io::BufRead;
use std::time::Instant;
use tmd_core::format::FormatNumber;
use tmd_core::number::parse_exact;
use tmd_core::safe_fs::BoundedLines;
use tmd_core::InputError;

/// Inputs judged per batch: large enough to keep the threads busy, small enough that a
/// batch's results are a few hundred kilobytes.
const BATCH: usize = 1 << 14;

/// What a list reader does with a line that holds no input of the list's format (a token
/// that is not a number of the format, a JSON line that is not one or is of another format).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BadLines {
    /// The first such line is an error naming it.
    #[default]
    Refuse,
    /// Such lines are skipped and counted ([`SkippedLines`]).
    Skip,
}

/// How many of a list's skipped lines are kept to be shown.
pub const SKIPPED_SHOWN: usize = 3;

/// A line of a list that holds no input of its format.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SkippedLine {
    pub line: usize,
    /// Why it is no input (the error [`BadLines::Refuse`] would give, without the line).
    pub why: String,
}

/// The lines a list reader skipped under [`BadLines::Skip`]: their count and the first
/// [`SKIPPED_SHOWN`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SkippedLines {
    pub count: u64,
    pub first: Vec<SkippedLine>,
}

impl SkippedLines {
    /// Counts one more skipped line, keeping it if it is among the first.
    pub fn note(&mut self, line: usize, why: impl Into<String>) {
        self.count += 1;
        if self.first.len() < SKIPPED_SHOWN {
            self.first.push(SkippedLine {
                line,
                why: why.into(),
            });
        }
    }

    /// Adds the lines skipped by another reader of the same list, after these.
    pub fn extend(&mut self, other: &SkippedLines) {
        for s in &other.first {
            if self.first.len() < SKIPPED_SHOWN {
                self.first.push(s.clone());
            }
        }
        self.count += other.count;
    }

    /// The first skipped line as a reader's error would name it, `name:LINE: why`.
    pub fn first_as_error(&self, name: &str) -> Option<String> {
        self.first
            .first()
            .map(|s| format!("{name}:{}: {}", s.line, s.why))
    }
}

/// The refusal of `--strict` when a list has lines that hold no input: the first with its
/// line, and how many there are (`format` names what an input is: `binary32`,
/// `binary16 pair`).
pub fn strict_refusal(name: &str, format: &str, skipped: &SkippedLines) -> Result<(), InputError> {
    match skipped.first_as_error(name) {
        None => Ok(()),
        Some(first) => Err(InputError::Number(format!(
            "{first} ({} of {name} without a {format} input; --strict refuses the list)",
            lines(skipped.count)
        ))),
    }
}

/// The lines of a list skipped for holding no input, as notes on stderr: how many, then the
/// first few with their line numbers. Bad input when the list holds no input at all.
pub fn note_skipped(
    name: &str,
    format: &str,
    skipped: &SkippedLines,
    inputs: u64,
) -> Result<(), InputError> {
    // An empty list checks nothing: refused, so that a gate never passes on it.
    if inputs == 0 {
        let first = skipped
            .first_as_error(name)
            .map(|first| format!(": {} skipped, the first {first}", lines(skipped.count)))
            .unwrap_or_default();
        return Err(InputError::Number(format!(
            "{name} holds no {format} input{first}"
        )));
    }
    if skipped.count == 0 {
        return Ok(());
    }
    eprintln!(
        "tmd: note: {} of {name} skipped, holding no {format} input (--strict refuses such \
         a list); the first:",
        lines(skipped.count)
    );
    for s in &skipped.first {
        eprintln!("tmd: note:   {name}:{}: {}", s.line, s.why);
    }
    Ok(())
}

/// "1 line" / "n lines".
fn lines(n: u64) -> String {
    if n == 1 {
        "1 line".into()
    } else {
        format!("{n} lines")
    }
}

/// How one line of a list becomes an input, the part that differs between lists of numbers
/// and lists of pairs.
pub trait LineInputs {
    /// What one line gives: a number, or the two arguments of a pair.
    type Input;

    /// The input of `line`, `None` for a line without one (blank, a comment, a record that
    /// lists no input); `Err` says why the line holds no input of the list.
    fn input_of_line(&mut self, line: &str) -> Result<Option<Self::Input>, String>;
}

/// A list streamed from a reader, each line's input read by `P`: what every kind of list
/// shares, the line numbers, the error naming a line, and the policy for lines that hold no
/// input with the lines it skipped.
pub struct ListReader<R, P> {
    lines: BoundedLines<R>,
    name: String,
    line_no: usize,
    bad_lines: BadLines,
    not_inputs: SkippedLines,
    inputs: P,
}

impl<R: BufRead, P: LineInputs> ListReader<R, P> {
    /// Reads the lines of `reader` with `inputs`; `name` names the list in messages.
    pub fn with_lines(reader: R, name: &str, inputs: P) -> Self {
        ListReader {
            lines: BoundedLines::new(reader),
            name: name.to_string(),
            line_no: 0,
            bad_lines: BadLines::Refuse,
            not_inputs: SkippedLines::default(),
            inputs,
        }
    }

    /// The same list with `policy` for lines that hold no input.
    pub fn bad_lines(mut self, policy: BadLines) -> Self {
        self.bad_lines = policy;
        self
    }

    /// Lines skipped so far under [`BadLines::Skip`] for holding no input.
    pub fn not_inputs(&self) -> &SkippedLines {
        &self.not_inputs
    }

    fn error(&self, why: impl std::fmt::Display) -> InputError {
        InputError::Number(format!("{}:{}: {why}", self.name, self.line_no))
    }

    /// The next input with its line number; `Err`: the reader failed, or (under
    /// [`BadLines::Refuse`]) a line holds no input.
    pub fn next_input(&mut self) -> Option<Result<(usize, P::Input), InputError>> {
        loop {
            let line = self.lines.next()?;
            self.line_no += 1;
            let why = match line.map(|line| self.inputs.input_of_line(&line)) {
                Ok(Ok(Some(input))) => return Some(Ok((self.line_no, input))),
                Ok(Ok(None)) => continue,
                Ok(Err(why)) => why,
                Err(e) => return Some(Err(self.error(e))),
            };
            match self.bad_lines {
                BadLines::Refuse => return Some(Err(self.error(why))),
                BadLines::Skip => self.not_inputs.note(self.line_no, why),
            }
        }
    }

    /// Reads the rest of the list and returns the lines that hold no input (under either
    /// policy), or the reader's error: the check of `--strict` before a run.
    pub fn validate(mut self) -> Result<SkippedLines, InputError> {
        self.bad_lines = BadLines::Skip;
        while let Some(item) = self.next_input() {
            item?;
        }
        Ok(self.not_inputs)
    }
}

/// The lines of a list of numbers of one format (the kinds the module docs list): NaN and
/// infinite entries and range records are counted, not read.
pub struct NumberLines {
    format: tmd_core::Format,
    skipped: u64,
    range_records: u64,
}

impl NumberLines {
    /// The input token of one line, `None` for a line without one; `Err` says why the line
    /// holds no input of the format.
    fn token(&mut self, line: &str) -> Result<Option<String>, String> {
        let line = line.trim();
        if line.starts_with("# range ") {
            self.range_records += 1;
            return Ok(None);
        }
        if line.starts_with('{') {
            let value: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("bad JSON: {e}"))?;
            if let Some(fmt) = value.get("format").and_then(|f| f.as_str()) {
                if fmt != self.format.name() {
                    return Err(format!(
                        "a {fmt} input, but the target is a {} function",
                        self.format.name()
                    ));
                }
            }
            if value.get("record").and_then(|r| r.as_str()) == Some("range") {
                self.range_records += 1;
                return Ok(None);
            }
            return match value.get("x").and_then(|x| x.as_str()) {
                Some(x) => Ok(Some(x.to_string())),
                None => Err("a JSON line without a string field \"x\"".into()),
            };
        }
        let before_comment = line.split('#').next().unwrap_or("");
        Ok(before_comment.split_whitespace().next().map(str::to_string))
    }
}

impl LineInputs for NumberLines {
    /// A number of the list's format, the sign of a zero kept.
    type Input = FormatNumber;

    fn input_of_line(&mut self, line: &str) -> Result<Option<FormatNumber>, String> {
        let Some(token) = self.token(line)? else {
            return Ok(None);
        };
        let lower = token.to_ascii_lowercase();
        if lower.contains("nan") || lower.contains("inf") {
            self.skipped += 1;
            return Ok(None);
        }
        parse_exact(&token, &self.format)
            .map(Some)
            .map_err(|e| e.to_string())
    }
}

/// The inputs of a list of numbers, streamed from a reader.
pub type InputList<R> = ListReader<R, NumberLines>;

impl<R: BufRead> ListReader<R, NumberLines> {
    /// Reads inputs of `format` from `reader`; `name` names it in messages.
    pub fn new(reader: R, name: &str, format: CrunchFormat) -> Self {
        Self::of_format(reader, name, format.core())
    }

    /// Reads inputs of any format of tmd-core (binary80 and binary128 lists included), as
    /// numbers of the format through [`ListReader::next_input`]: an `f64` cannot hold those
    /// wider than binary64.
    pub fn of_format(reader: R, name: &str, format: tmd_core::Format) -> Self {
        let numbers = NumberLines {
            format,
            skipped: 0,
            range_records: 0,
        };
        Self::with_lines(reader, name, numbers)
    }

    /// NaN and infinite entries skipped so far.
    pub fn skipped(&self) -> u64 {
        self.inputs.skipped
    }

    /// Range records of `tmd search` read so far (JSON lines or `.wc` comments), whose
    /// inputs are not listed.
    pub fn range_records(&self) -> u64 {
        self.inputs.range_records
    }
}

impl<R: BufRead> Iterator for ListReader<R, NumberLines> {
    /// The line number and the input.
    type Item = Result<(usize, f64), InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.next_input()?.map(|(line, x)| {
            // The number is exact in f64; a negative zero keeps its sign.
            let v = x.to_float().to_f64();
            (line, if x.neg { -v.abs() } else { v })
        }))
    }
}

/// Streams a list in batches of `batch` inputs: `next` reads the next input with its line,
/// `evaluate` gives the target's results at a batch (or the target's failure), `judge` judges
/// one result (in parallel), and `each` takes every input's line, input, result and verdict
/// in the list's order. An error of `each` (a closed output) stops the run.
pub(crate) fn crunch_list<X, Y, J, E>(
    batch: usize,
    mut next: impl FnMut() -> Option<Result<(usize, X), InputError>>,
    mut evaluate: impl FnMut(&[X]) -> Result<Vec<Y>, TargetFailure>,
    judge: impl Fn(&X, &Y) -> J + Sync,
    mut each: impl FnMut(usize, &X, &Y, J) -> Result<(), E>,
) -> Result<(), E>
where
    X: Sync,
    Y: Sync,
    J: Send,
    E: From<InputError> + From<TargetFailure>,
{
    let (mut lines, mut xs) = (Vec::with_capacity(batch), Vec::with_capacity(batch));
    loop {
        lines.clear();
        xs.clear();
        while xs.len() < batch {
            let Some(item) = next() else { break };
            let (line, x) = item?;
            lines.push(line);
            xs.push(x);
        }
        if xs.is_empty() {
            return Ok(());
        }
        let results = evaluate(&xs)?;
        let verdicts: Vec<J> = xs
            .par_iter()
            .zip(&results)
            .map(|(x, y)| judge(x, y))
            .collect();
        let judged = lines.iter().zip(&xs).zip(&results).zip(verdicts);
        for (((&line, x), y), verdict) in judged {
            each(line, x, y, verdict)?;
        }
    }
}

/// An input whose result is not correctly rounded.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Failure {
    /// The line of the list it came from.
    pub line: usize,
    pub x: f64,
    /// f(x) correctly rounded in the target's rounding mode.
    pub expected: f64,
    /// The target's result.
    pub got: f64,
    /// The error in ulps, exact (`None` for the special classes without one).
    pub err: Option<f64>,
    pub class: Class,
    pub special: Special,
}

/// What a list run found.
#[derive(Clone, Debug, Serialize)]
pub struct ListReport {
    pub target: String,
    pub function: String,
    pub format: String,
    /// The rounding mode the target ran under and was judged in.
    pub rounding: String,
    pub inputs_file: String,
    pub inputs: u64,
    /// NaN and infinite entries of the list, not evaluated.
    pub skipped: u64,
    /// Lines that hold no input of the format, skipped (none under [`BadLines::Refuse`]).
    pub not_inputs: SkippedLines,
    /// Range records of `tmd search` (every input of a piece hard), whose inputs the list
    /// does not hold and the run did not evaluate.
    pub range_records: u64,
    /// Every error of a list is MPFR's, so the maximum is exact and has no bound.
    #[serde(flatten)]
    pub outcome: Outcome<String>,
    pub seconds: f64,
    pub note: Option<String>,
}

/// What a list report says of the target, besides its results.
pub(crate) struct ListSubject {
    pub target: String,
    pub function: &'static str,
    pub format: &'static str,
    pub rounding: Rounding,
    pub note: Option<String>,
}

impl ListSubject {
    /// What a target of any arity states about itself, for its list's report.
    pub(crate) fn of<A: Arity>(target: &(impl Implementation<A> + ?Sized)) -> ListSubject {
        ListSubject {
            target: target.name(),
            function: A::function_name(target.function()),
            format: A::format_name(target.format()),
            rounding: target.rounding(),
            note: target.note(),
        }
    }
}

impl ListReport {
    /// The report of `list` (named `name`) read to its end, judged into `summary`, whose
    /// maximum is `max`; the run began at `start`.
    pub(crate) fn new<R: BufRead>(
        subject: ListSubject,
        (name, list): (&str, &InputList<R>),
        summary: &Summary,
        max: Option<Argmax<String>>,
        start: Instant,
    ) -> ListReport {
        ListReport {
            target: subject.target,
            function: subject.function.into(),
            format: subject.format.into(),
            rounding: subject.rounding.name().into(),
            inputs_file: name.to_string(),
            inputs: summary.inputs,
            skipped: list.skipped(),
            not_inputs: list.not_inputs().clone(),
            range_records: list.range_records(),
            outcome: Outcome::new(summary, max, None),
            seconds: start.elapsed().as_secs_f64(),
            note: subject.note,
        }
    }
}

/// The target's results at `xs`, widened to f64.
fn evaluate(target: &dyn Target, xs: &[f64]) -> Vec<f64> {
    match target.format() {
        CrunchFormat::Binary32 => {
            let narrow: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
            let mut out = vec![0f32; xs.len()];
            target.eval(UnaryBatch::Binary32 {
                xs: &narrow,
                out: &mut out,
            });
            out.into_iter().map(f64::from).collect()
        }
        CrunchFormat::Binary64 => {
            let mut out = vec![0f64; xs.len()];
            target.eval(UnaryBatch::Binary64 { xs, out: &mut out });
            out
        }
    }
}

/// Evaluates the target on every input of `list`, calls `on_failure` for each input whose
/// result is not correctly rounded (in the list's order), and returns the report. An error of
/// `on_failure` (a closed output) stops the run.
pub fn check_list<R: BufRead, E: From<InputError> + From<TargetFailure>>(
    target: &dyn Target,
    list: &mut InputList<R>,
    name: &str,
    mut on_failure: impl FnMut(&Failure) -> Result<(), E>,
) -> Result<ListReport, E> {
    let start = Instant::now();
    let (fmt, func, mode) = (target.format(), target.function(), target.rounding());
    let mut summary = Summary::default();
    crunch_list(
        BATCH,
        || list.next(),
        |xs| {
            let results = evaluate(target, xs);
            target.failure().map_or(Ok(results), Err)
        },
        |&x, &a| classify_exact(func, fmt, x, a, mode),
        |line, &x, &got, v| {
            summary.record(fmt.ordinal(x), v, true);
            if v.class == Class::CorrectlyRounded {
                return Ok(());
            }
            on_failure(&Failure {
                line,
                x,
                expected: correct_rounding(func, fmt, x, mode),
                got,
                err: v.err,
                class: v.class,
                special: v.special,
            })
        },
    )?;
    // Every error was computed by MPFR, so the summary's maximum is exact.
    let max = summary.argmax.map(|o| {
        let x = fmt.from_ordinal(o);
        Argmax {
            err: summary.max_ulp,
            x: fmt.hex(x),
            result: fmt.hex(evaluate(target, &[x])[0]),
            expected: fmt.hex(correct_rounding(func, fmt, x, mode)),
        }
    });
    Ok(ListReport::new(
        ListSubject::of(target),
        (name, list),
        &summary,
        max,
        start,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn read(text: &str, fmt: CrunchFormat) -> Result<Vec<(usize, f64)>, InputError> {
        InputList::new(Cursor::new(text.to_string()), "list", fmt).collect()
    }

    #[test]
    fn lines_of_every_accepted_kind_give_their_input() {
        let text = "# a comment\n\n0x1.8p+0 # a .wc line\n\
                    {\"function\":\"exp\",\"format\":\"binary64\",\"x\":\"0x1.4p+1\",\"k\":50}\n\
                    -0.25\n-0\n";
        let got = read(text, CrunchFormat::Binary64).unwrap();
        assert_eq!(
            got.iter().map(|g| g.0).collect::<Vec<_>>(),
            vec![3, 4, 5, 6]
        );
        assert_eq!(got[0].1, 1.5);
        assert_eq!(got[1].1, 2.5);
        assert_eq!(got[2].1, -0.25);
        assert!(got[3].1 == 0.0 && got[3].1.is_sign_negative());
    }

    #[test]
    fn nan_and_infinite_entries_are_skipped_and_counted() {
        let mut list = InputList::new(
            Cursor::new("nan\n1\n-inf\n0x1p+0\n".to_string()),
            "l",
            CrunchFormat::Binary32,
        );
        let got: Vec<_> = list.by_ref().map(Result::unwrap).collect();
        assert_eq!(got, vec![(2, 1.0), (4, 1.0)]);
        assert_eq!(list.skipped(), 2);
    }

    #[test]
    fn a_line_without_end_is_refused_by_its_number_without_echoing_it() {
        let text = format!("1\n{}", "7".repeat(10_000_000));
        let e = read(&text, CrunchFormat::Binary64).unwrap_err().to_string();
        assert!(e.contains("list:2:"), "{e}");
        assert!(e.contains("longer than"), "{e}");
        assert!(e.len() < 200, "{e}");
    }

    #[test]
    fn a_bad_line_is_an_error_naming_the_line() {
        let e = read("1\n0x1.000001p+0\n", CrunchFormat::Binary32).unwrap_err();
        assert!(e.to_string().contains("list:2:"), "{e}");
        assert!(e.to_string().contains("not a binary32 number"), "{e}");
        let e = read(
            "{\"format\":\"binary32\",\"x\":\"1\"}\n",
            CrunchFormat::Binary64,
        )
        .unwrap_err();
        assert!(e.to_string().contains("list:1: a binary32 input"), "{e}");
        let e = read("{\"y\":1}\n", CrunchFormat::Binary64).unwrap_err();
        assert!(e.to_string().contains("\"x\""), "{e}");
        let e = read("abc\n", CrunchFormat::Binary64).unwrap_err();
        assert!(e.to_string().contains("list:1:"), "{e}");
    }
}
