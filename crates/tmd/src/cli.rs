//! The subcommands (clap), the dispatch to the command modules (each holds its own flags),
//! and the parsers of flag values that several commands share.

use crate::commands;
use crate::commands::crunch::CrunchArgs;
use crate::commands::hardness::HardnessArgs;
use crate::commands::report::ReportArgs;
use crate::commands::search::SearchArgs;
use clap::{CommandFactory, Parser, Subcommand};

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

/// The modes `--rounding` asks for, in the order they run.
#[derive(Clone, Debug)]
pub struct RoundingModes(pub Vec<tmd_crunch::Rounding>);

pub(crate) fn parse_rounding(text: &str) -> Result<RoundingModes, String> {
    if text == "all" {
        return Ok(RoundingModes(tmd_crunch::Rounding::ALL.to_vec()));
    }
    tmd_crunch::Rounding::parse(text)
        .map(|mode| RoundingModes(vec![mode]))
        .ok_or_else(|| "expected nearest, up, down, zero or all".into())
}

/// `--threads`: at least one worker, and no more than a machine could use (a typo such as
/// 100000 would start that many threads).
pub(crate) fn parse_threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n @ 1..=1024) => Ok(n),
        Ok(_) => Err("expected 1 to 1024 worker threads".into()),
        Err(e) => Err(e.to_string()),
    }
}

pub(crate) fn parse_max_ulp(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err("expected a finite number of ulps, 0 or more".into()),
        Err(e) => Err(e.to_string()),
    }
}
