//! Flags and subcommands (clap), and the dispatch to the command modules.

use crate::commands;
use clap::{Args, CommandFactory, Parser, Subcommand};
use tmd_core::hardness::DEFAULT_MAX_PRECISION;

#[derive(Parser, Debug)]
#[command(
    name = "tmd",
    version = env!("TMD_VERSION"),
    about = "Hard-to-round cases of math functions (the Table Maker's Dilemma), exactly"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the registered functions with their domains.
    #[command(after_help = "Example:\n  tmd functions")]
    Functions,
    /// Exact hardness of f at the given inputs: correct roundings, kind, bits, k.
    #[command(after_help = "Examples:\n  \
        tmd hardness exp 0x1.aca7ae8da5a7bp+0\n  \
        tmd hardness log 1.5 0x1.0000000000001p+0 --json\n  \
        tmd hardness exp --file data/worst-cases/exp.wc")]
    Hardness(HardnessArgs),
    /// List every hard-to-round input of f over a range.
    #[command(after_help = "Examples:\n  \
        tmd search exp --from 1 --to 0x1.0008p+0 --bits 32 --breakpoints directed\n  \
        tmd search exp --format binary32 --from -inf --to inf --bits 24 --out expf.wc\n  \
        tmd search 'x*exp(x)' --from 1 --to 2 --bits 45 --plan\n  \
        tmd search exp --from 1 --to 2 --bits 45 --backend cuda --resume exp-1-2")]
    Search(SearchArgs),
    /// Exact worst-case error (in ulps) of an implementation over a range, by brute force.
    #[command(after_help = "Examples:\n  \
        tmd crunch glibc:expf --from 1 --to 2 --rounding all\n  \
        tmd crunch c:my_exp.c:my_expf --function exp --from -inf --to inf --checkpoint expf.ck\n  \
        tmd crunch glibc:exp --inputs data/worst-cases/exp.wc --max-ulp 0.5\n  \
        tmd crunch --list")]
    Crunch(CrunchArgs),
    /// Accuracy report: a matrix of targets x functions x rounding modes crunched into one
    /// table (Markdown, CSV, HTML with plots), resumable (docs/report.md).
    #[command(after_help = "Example:\n  \
        tmd report --targets glibc,musl,sleef --functions expf,logf,sinf --rounding all --out report")]
    Report(ReportArgs),
    /// Progress and current maximum of a crunch checkpoint (also while the run goes on).
    #[command(after_help = "Example:\n  tmd crunch-status expf.ck")]
    CrunchStatus {
        /// A checkpoint written by `tmd crunch --checkpoint`.
        file: std::path::PathBuf,
    },
    /// Per-block maxima of a crunch checkpoint as tab-separated text.
    #[command(after_help = "Example:\n  tmd crunch-format expf.ck > blocks.tsv")]
    CrunchFormat {
        /// A checkpoint written by `tmd crunch --checkpoint`.
        file: std::path::PathBuf,
    },
    /// Shell completions for tmd, on stdout.
    #[command(after_help = "Example: tmd completions bash > /etc/bash_completion.d/tmd")]
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// The man page of tmd (roff), on stdout.
    #[command(after_help = "Example: tmd man > tmd.1 && man ./tmd.1")]
    Man,
    /// The command-line reference as Markdown (docs/reference/cli.md is its output).
    #[command(hide = true)]
    Reference,
}

#[derive(Args, Debug)]
pub struct CrunchArgs {
    /// The implementation: std:NAME, libm:NAME, xfloat:NAME, emul:NAME, dl:PATH:SYMBOL,
    /// c:FILE.c:SYMBOL, glibc:NAME, glibc-mvec:NAME, sleef:NAME, musl:NAME (see --list).
    /// Two-argument functions (pow, atan2, hypot and their f variants) take pairs instead of
    /// a range: --exhaustive (binary16), --inputs, --sample N --seed S, or --structured.
    #[arg(required_unless_present = "list")]
    pub target: Option<String>,
    /// First input (included); decimals are rounded to the format; -inf: the most negative.
    /// Required for one-argument functions unless --inputs is given.
    #[arg(long, allow_hyphen_values = true)]
    pub from: Option<String>,
    /// End of the range (excluded); inf: after the largest finite number.
    #[arg(long, allow_hyphen_values = true)]
    pub to: Option<String>,
    /// Evaluate exactly the inputs of FILE instead of a range (a CORE-MATH `.wc` file, `tmd
    /// search --json` lines, or one number a line; two numbers a line, `x y`, for a
    /// two-argument function) and print every input whose result is not correctly rounded.
    #[arg(long, conflicts_with_all = ["from", "to", "checkpoint", "plot", "sample", "estimate", "block_bits", "exhaustive", "structured"])]
    pub inputs: Option<std::path::PathBuf>,
    /// With --inputs: refuse the list (exit 2, before any output) when a line holds no input
    /// of the target's format, instead of skipping such lines with a note on stderr.
    #[arg(long)]
    pub strict: bool,
    /// Two-argument functions in binary16 (--format binary16 with a binary32 target, whose
    /// results are rounded to binary16): every one of the 2^32 pairs of bit patterns.
    #[arg(long, conflicts_with_all = ["sample", "structured", "seed"])]
    pub exhaustive: bool,
    /// pow and hypot: a seeded sample of pairs where x^y or hypot(x, y) is exact or a midpoint
    /// between two numbers of the format (--sample N pairs, default 65536), where
    /// implementations misround.
    #[arg(long)]
    pub structured: bool,
    /// The seed of --sample (two-argument functions) and --structured (default 1).
    #[arg(long)]
    pub seed: Option<u64>,
    /// A gate for CI: exit 1 when the largest error exceeds X ulps, or when a result without
    /// a finite error is wrong (see docs/crunch.md); 0.5 asks for correct rounding to nearest.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_max_ulp)]
    pub max_ulp: Option<f64>,
    /// binary32 or binary64 (binary16 for two-argument functions); by default the target's
    /// own format.
    #[arg(long)]
    pub format: Option<String>,
    /// cpu, opencl or cuda (opencl:NAME / cuda:NAME, emul:vrecpe-nrN and file:PATH targets
    /// evaluated on the device; binary64 exp, recip and sqrt targets, and binary32 targets of
    /// exp, expm1, log, log1p, sin, cos, tan, atan, sinh, cosh, tanh, sqrt and 1/x, are also
    /// analysed there).
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// The OpenCL or CUDA device (default 0; under mpirun the rank's local rank).
    #[arg(long)]
    pub device: Option<usize>,
    /// On a device backend, analyse the errors on the host even where the device could.
    #[arg(long)]
    pub host_analysis: bool,
    /// For file:, dl: and c: targets: the function the code computes (exp, log, sin, ...);
    /// dl: and c: targets otherwise take it from the symbol's name.
    #[arg(long)]
    pub function: Option<String>,
    /// The rounding mode the target runs under and is judged in: nearest, up, down, zero, or
    /// all (the four in turn, one report each; --checkpoint and --plot files get the mode
    /// before their extension, e.g. run.up.ckpt).
    #[arg(long, value_parser = parse_rounding, default_value = "nearest")]
    pub rounding: RoundingModes,
    /// Checkpoint FILE: finished blocks are appended to it; an existing one is resumed.
    #[arg(long)]
    pub checkpoint: Option<std::path::PathBuf>,
    /// Write an SVG plot of the per-block maximum error against x.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
    /// Blocks of 2^N inputs (default 20 for binary32, 24 on a device; 32 for binary64).
    #[arg(long)]
    pub block_bits: Option<u32>,
    /// Crunch only N evenly spaced windows of 2^block-bits inputs (a sample, said so in the
    /// report) instead of every input. Two-argument functions: N random pairs (--seed S),
    /// each argument a finite number of uniformly random bit pattern; never exhaustive.
    #[arg(long)]
    pub sample: Option<u64>,
    /// One JSON object instead of the text report.
    #[arg(long)]
    pub json: bool,
    /// Measure a sample and project the time of the whole range instead of running it.
    #[arg(long)]
    pub estimate: bool,
    /// Foreign targets (dl:, c:, glibc:, ...) run in worker processes: stop the run when one
    /// batch of inputs has not returned after SECONDS (0: no limit), naming the input.
    #[arg(long, value_name = "SECONDS", default_value_t = tmd_crunch::foreign::worker::DEFAULT_TIMEOUT_SECONDS)]
    pub target_timeout: u32,
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// List the built-in targets.
    #[arg(long)]
    pub list: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
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
    #[arg(long, value_parser = parse_rounding, default_value = "nearest")]
    pub rounding: RoundingModes,
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
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct HardnessArgs {
    /// A registered function (see `tmd functions`) or an expression in x, e.g. 'x*exp(x)'.
    pub function: String,
    /// Inputs, as hex floats (0x1.8p+0) or decimals; each must be a number of the format.
    #[arg(required_unless_present = "file", allow_hyphen_values = true)]
    pub inputs: Vec<String>,
    /// Also classify every input of a worst-case file (CORE-MATH's `.wc` format: one number
    /// per line, first token, `#` comments; nan and inf entries are skipped and counted, and
    /// so are lines without a number of the format, with a note on stderr).
    #[arg(long)]
    pub file: Option<std::path::PathBuf>,
    /// With --file: refuse the file (exit 2, before any output for a regular file) when a
    /// line holds no number of the format, instead of skipping it with a note.
    #[arg(long, requires = "file")]
    pub strict: bool,
    /// binary16, bfloat16, binary32, binary64, binary80, binary128 or pN (N <= 64).
    #[arg(long, default_value = "binary64")]
    pub format: String,
    /// One JSON object per input.
    #[arg(long)]
    pub json: bool,
    /// Cap of the Ziv loop, in bits; beyond it an input is reported `unresolved`.
    #[arg(long, default_value_t = DEFAULT_MAX_PRECISION)]
    pub max_precision: u32,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// A registered function (see `tmd functions`) or an expression in x, e.g. 'x*exp(x)'.
    pub function: String,
    /// First input (included); decimals are rounded to the format; -inf: the most negative
    /// finite number.
    #[arg(long, allow_hyphen_values = true)]
    pub from: String,
    /// End of the range (excluded); inf: after the largest finite number.
    #[arg(long, allow_hyphen_values = true)]
    pub to: String,
    /// binary16, bfloat16, binary32, binary64, binary80, binary128 or pN (N <= 64).
    #[arg(long, default_value = "binary64")]
    pub format: String,
    /// K: list inputs whose result lies within 2^-K ulp of a breakpoint (default: p).
    #[arg(long)]
    pub bits: Option<u32>,
    /// Breakpoints: all (format numbers and midpoints), directed or nearest.
    #[arg(long, default_value = "all")]
    pub breakpoints: String,
    /// auto (exhaustive for p <= 24; above, regular-or-lattice; reference for an expression
    /// without a Taylor model), regular, lefevre,
    /// lefevre-swap, exhaustive (tabulated differences on every input), lattice (Stehlé,
    /// Lefèvre and Zimmermann's lattice method on intervals of each chunk, on the cores),
    /// regular-or-lattice (per chunk the cheaper of the two by a measured cost model: the
    /// regular test on the cores or on the device, the lattice on the cores) or
    /// reference (MPFR on every input).
    #[arg(long, default_value = "auto")]
    pub algorithm: String,
    /// With --algorithm lattice: one lattice shape D,A for every chunk (degree D of the
    /// polynomial, 1..=4, and Coppersmith's parameter A, 1..=4) instead of the shape each
    /// chunk's cost model chooses.
    #[arg(long, value_name = "D,A")]
    pub lattice_shape: Option<String>,
    /// Largest domain size N of the lower-bound tests (a power of two, 8..=2^24).
    #[arg(long, default_value_t = 1 << 15)]
    pub domain_size: u64,
    /// Phase-2 split: failing domains are cut into this many subdomains (a power of two).
    #[arg(long, default_value_t = 8)]
    pub kappa: u64,
    /// Subtractions tried before a division in the lower-bound tests (0: always divide);
    /// default 0 on the CPU, 3 on a device (where a 64-bit division is a long software
    /// sequence; docs/gpu.md). Same output and counts.
    #[arg(long)]
    pub division_threshold: Option<u32>,
    /// log2 of the inputs per chunk (one polynomial; one device launch): 12..=44; default 34
    /// on the CPU, 38 on a device (more work-items per launch; docs/gpu.md), and up to 40
    /// where the function is nearly flat (a polynomial of degree 2 holds over the chunk).
    /// Given, it holds everywhere. The phase counts depend on it; the cases do not.
    #[arg(long)]
    pub chunk_bits: Option<u32>,
    /// On a device (the default there): phases 2 and 3 in kernels of their own over the
    /// compacted failures of the phase before (Fortin, Gouicem, Graillat, TOMS 2016, §4.3.1),
    /// instead of inline in the phase-1 work-item (less divergence; docs/gpu.md). Same output
    /// and counts.
    #[arg(long, conflicts_with = "inline_phases")]
    pub split_phases: bool,
    /// On a device: phases 2 and 3 inline in the phase-1 work-item that meets a failure (the
    /// warp waits for it), instead of --split-phases.
    #[arg(long)]
    pub inline_phases: bool,
    /// On a device: domains per work-item of the phase-1 kernel, 32, 64 or 128 (default 32:
    /// more per work-item means fewer table jumps, less parallelism). Same output and counts.
    #[arg(long)]
    pub domains_per_item: Option<u64>,
    /// On a device: chunks of fewer domains run on the CPU cores instead (default 0: every
    /// chunk on the device). Nearly flat chunks have few, large domains, too few work-items to
    /// fill a GPU: 131072 made the flat binades of binary64 exp 3-5 times faster on an H200,
    /// but the pieces next to all-hard ranges slower. Same output and counts.
    #[arg(long)]
    pub device_min_domains: Option<u64>,
    /// On a device: work-items per work-group (CUDA block size) of the phase-1 kernel, a power
    /// of two from 32 to 1024; default: 128 on CUDA, the driver's choice on OpenCL.
    #[arg(long)]
    pub work_group: Option<u32>,
    /// On a device: also measure the NMDM over the 32 lanes of real warps (one more kernel and
    /// copy per device call), written to --stats as `nmdm_warp` (zero groups without it).
    #[arg(long, requires = "stats")]
    pub warp_nmdm: bool,
    /// Journal directory: a killed run restarted with the same command and DIR continues
    /// where it stopped, with the same final output.
    #[arg(long)]
    pub resume: Option<std::path::PathBuf>,
    /// cpu, opencl (phases 1-3 on an OpenCL device: a GPU, or PoCL on the CPU) or cuda (an
    /// NVIDIA GPU; kernels compiled by NVRTC). The polynomials and the MPFR verification stay
    /// on the CPU.
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// The device number for --backend opencl (in the order of `clinfo -l`) or cuda; default
    /// 0, and under mpirun the rank's local rank (one device per rank on each node).
    #[arg(long)]
    pub device: Option<usize>,
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// One JSON object per case (fields: docs/definitions.md).
    #[arg(long)]
    pub json: bool,
    /// Write the cases to FILE instead of stdout, as stdout would have them (the table, or
    /// JSON lines with --json); a FILE ending in .wc gets CORE-MATH's worst-case format.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Write counts and timings to FILE as JSON.
    #[arg(long)]
    pub stats: Option<std::path::PathBuf>,
    /// Print the plan instead of searching: per piece of the range (binades, and where a rule
    /// decides), the method and the time projected from short timed samples on the backend.
    #[arg(long, conflicts_with_all = ["out", "stats", "resume"])]
    pub plan: bool,
    /// Also list exact cases (f(x) is a breakpoint).
    #[arg(long)]
    pub exact: bool,
    /// List every input of a piece a proven rule makes all hard (f(x) next to a constant or to
    /// x), one line each, decided by MPFR, instead of one range record per piece.
    #[arg(long)]
    pub expand_ranges: bool,
    /// Cap of the Ziv loop, in bits.
    #[arg(long, default_value_t = DEFAULT_MAX_PRECISION)]
    pub max_precision: u32,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Parses the command line and runs the command. Usage errors print one line and exit 2.
pub fn run() -> anyhow::Result<()> {
    let cli = match Cli::try_parse_from(options_before_inputs(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                // Written here rather than by clap, which ignores a failed write.
                use std::io::Write;
                let text = e.render().to_string();
                let mut out = std::io::stdout().lock();
                let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
                std::process::exit(if written.is_ok() { 0 } else { 1 });
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                eprintln!(
                    "tmd: a command is needed: functions, hardness, search, crunch, report, \
                     crunch-status, crunch-format, completions or man (see tmd --help)"
                );
                std::process::exit(2);
            }
            // clap's message, up to its usage block, on one line.
            let text = e.to_string();
            let message: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:"))
                .filter(|l| {
                    !l.is_empty()
                        && !l.starts_with("tip:")
                        && !l.starts_with("For more information")
                })
                .collect();
            let message = message.join(" ");
            eprintln!(
                "tmd: {} (see tmd --help)",
                message.trim_start_matches("error: ")
            );
            std::process::exit(2);
        }
    };
    if matches!(
        cli.command,
        Command::Search(_) | Command::Crunch(_) | Command::Report(_) | Command::Hardness(_)
    ) {
        crate::interrupt::install();
    }
    if matches!(cli.command, Command::Hardness(_)) {
        crate::interrupt::kept("every line printed so far is complete".into());
    }
    match cli.command {
        Command::Functions => commands::functions::run(),
        Command::Hardness(args) => commands::hardness::run(&args),
        Command::Search(args) => commands::search::run(&args),
        Command::Crunch(args) => commands::crunch::run(&args),
        Command::Report(args) => commands::report::run(&args),
        Command::CrunchStatus { file } => commands::crunch::status(&file),
        Command::CrunchFormat { file } => commands::crunch::format_blocks(&file),
        Command::Completions { shell } => commands::reference::completions(Cli::command(), shell),
        Command::Man => commands::reference::man_page(Cli::command()),
        Command::Reference => commands::reference::markdown(Cli::command()),
    }
}

/// `tmd hardness` takes negative numbers as inputs (`-0x1.8p+0`), so its inputs accept values
/// that start with a hyphen, and clap would take an option written after the first input
/// (`tmd hardness exp 1 --format binary32`) for one more input. Options of the subcommand
/// (by their long names, as clap knows them) and their values are moved before the inputs;
/// anything else stays where it is.
fn options_before_inputs(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let Some(at) = args.iter().position(|a| a == "hardness") else {
        return args;
    };
    let command = Cli::command();
    let Some(sub) = command.find_subcommand("hardness") else {
        return args;
    };
    // Long option name -> whether it takes a value.
    let known: Vec<(String, bool)> = sub
        .get_arguments()
        .filter_map(|a| {
            let takes = a.get_action().takes_values();
            a.get_long().map(|l| (format!("--{l}"), takes))
        })
        .chain([("--help".to_string(), false), ("-h".to_string(), false)])
        .collect();
    let (mut options, mut rest) = (Vec::new(), Vec::new());
    let mut tail = args[at + 1..].iter();
    while let Some(a) = tail.next() {
        let text = a.to_string_lossy();
        let name = text.split('=').next().unwrap_or("");
        match known.iter().find(|(long, _)| long == name) {
            Some((_, takes)) => {
                options.push(a.clone());
                if *takes && !text.contains('=') {
                    options.extend(tail.next().cloned());
                }
            }
            None => rest.push(a.clone()),
        }
    }
    args[..=at]
        .iter()
        .cloned()
        .chain(options)
        .chain(rest)
        .collect()
}

/// `--threads`: at least one worker, and no more than a machine could use (a typo such as
/// 100000 would start that many threads).
/// The modes `--rounding` asks for, in the order they run.
#[derive(Clone, Debug)]
pub struct RoundingModes(pub Vec<tmd_crunch::Rounding>);

fn parse_rounding(text: &str) -> Result<RoundingModes, String> {
    if text == "all" {
        return Ok(RoundingModes(tmd_crunch::Rounding::ALL.to_vec()));
    }
    tmd_crunch::Rounding::parse(text)
        .map(|mode| RoundingModes(vec![mode]))
        .ok_or_else(|| "expected nearest, up, down, zero or all".into())
}

fn parse_threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n @ 1..=1024) => Ok(n),
        Ok(_) => Err("expected 1 to 1024 worker threads".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_max_ulp(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err("expected a finite number of ulps, 0 or more".into()),
        Err(e) => Err(e.to_string()),
    }
}
