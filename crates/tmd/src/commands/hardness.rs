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
