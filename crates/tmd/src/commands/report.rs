//! `tmd report`: the flags as a [`ReportRequest`], run by tmd-report with this terminal's
//! progress bar and interrupt note.

use super::job_host::{error, Terminal};
use tmd_report::ReportRequest;

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Comma-separated targets: library families (glibc, musl, sleef, sleef-u35, glibc-mvec,
    /// std, libm, xfloat), each combined with every --functions name (glibc + expf =
    /// glibc:expf), or full target names (std:expf, c:FILE.c:SYMBOL) that are cells of their
    /// own.
    #[arg(long, value_delimiter = ',', required = true)]
    pub targets: Vec<String>,
    /// Comma-separated C names of the functions, one row each (expf, logf, sinf; exp for
    /// binary64).
    #[arg(long, value_delimiter = ',')]
    pub functions: Vec<String>,
    /// nearest, up, down, zero, or all (the four): one column per target and mode.
    #[arg(long, value_parser = crate::cli::parse_rounding, default_value = "nearest")]
    pub rounding: crate::cli::RoundingModes,
    /// The report's directory: report.md, report.csv, report.html, and cells/ (one
    /// checkpoint, JSON report and SVG plot per cell). The same command resumes there.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// binary32 or binary64: checked against every cell (by default the functions' own
    /// format; one format per report).
    #[arg(long)]
    pub format: Option<String>,
    /// Crunch N evenly spaced windows of 2^block-bits inputs per cell instead of every input
    /// (default: every input for binary32, 64 windows for binary64).
    #[arg(long)]
    pub sample: Option<u64>,
    /// Also evaluate every cell on the inputs of FILE (a CORE-MATH .wc file, `tmd search
    /// --json` lines or one number a line); may be repeated.
    #[arg(long)]
    pub inputs: Vec<std::path::PathBuf>,
    /// Restrict every cell to the inputs from A (included; default: the most negative finite
    /// number)...
    #[arg(long, allow_hyphen_values = true, default_value = "-inf")]
    pub from: String,
    /// ... to B (excluded; default: after the largest finite number).
    #[arg(long, allow_hyphen_values = true, default_value = "inf")]
    pub to: String,
    /// Blocks (and sample windows) of 2^N inputs, the unit a kill loses at most (default 20).
    #[arg(long, default_value_t = 20)]
    pub block_bits: u32,
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long, value_parser = crate::cli::parse_threads)]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let request = ReportRequest {
        targets: args.targets.clone(),
        functions: args.functions.clone(),
        rounding: args.rounding.0.clone(),
        out: args.out.clone(),
        format: args.format.clone(),
        sample: args.sample,
        inputs: args.inputs.clone(),
        from: args.from.clone(),
        to: args.to.clone(),
        block_bits: args.block_bits,
        threads: args.threads,
        version: env!("TMD_VERSION").to_string(),
        command: tmd_report::command_line(std::env::args()),
    };
    tmd_report::run(&request, &Terminal { quiet: args.quiet }).map_err(error)
}
