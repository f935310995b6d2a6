//! `tmd hardness FUNC X...`: exact classification of f(x) for each input.

use crate::cli::HardnessArgs;
use crate::output::{hardness_json, hardness_text};
use rayon::prelude::*;
use std::io::Write;
use tmd_core::number::parse_exact;
use tmd_core::{hardness, Format};
use tmd_search::Target;

pub fn run(args: &HardnessArgs) -> anyhow::Result<()> {
    let format = Format::parse(&args.format)?;
    let target = Target::parse(&args.function)?;
    // Negative hex inputs need clap's hyphen values, which also swallow a trailing --json.
    let json = args.json || args.inputs.iter().any(|s| s == "--json");
    // Every input is checked before anything is printed.
    let inputs = args
        .inputs
        .iter()
        .filter(|s| *s != "--json")
        .map(|s| parse_exact(s, &format))
        .collect::<Result<Vec<_>, _>>()?;
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
    Ok(())
}
