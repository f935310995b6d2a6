//! `tmd search FUNC --from A --to B ...`: list the hard-to-round cases of a range.
//!
//! Output goes to stdout or, with `--out FILE`, to `FILE.partial`, renamed to FILE only when
//! the search has finished: an interrupted run leaves a file that says it is partial, holding
//! every case of the finished prefix of the range (cases arrive in x order).

use crate::cli::SearchArgs;
use crate::output::{case_header, case_json, case_row, wc_header};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tmd_core::number::parse_rounded;
use tmd_core::{Breakpoints, Format, FormatNumber, InputError, Outcome};
use tmd_search::{reference_search, Case, InputRange, SearchParams, Summary, Target};

/// Everything a search needs, validated.
struct Plan {
    target: Target,
    range: InputRange,
    params: SearchParams,
    from: FormatNumber,
    to: FormatNumber,
}

fn plan(args: &SearchArgs) -> Result<Plan, InputError> {
    let format = Format::parse(&args.format)?;
    let target = Target::parse(&args.function)?;
    let bound = |text: &str, flag: &str| -> Result<FormatNumber, InputError> {
        let (x, exact) = parse_rounded(text, &format)?;
        if !exact {
            eprintln!(
                "tmd: note: --{flag} {text} is not a {} number; rounded to nearest: {}",
                format.name(),
                x.to_hex()
            );
        }
        Ok(x)
    };
    let from = bound(&args.from, "from")?;
    let to = bound(&args.to, "to")?;
    let range = InputRange::new(&format, &from, &to)?;
    if let Some(func) = target.function() {
        range.check_domain(func.domain(), func.name())?;
    }
    let p = format.precision();
    let bits = args.bits.unwrap_or(p);
    let max_bits = 2 * p + 64;
    if !(1..=max_bits).contains(&bits) {
        return Err(InputError::Bits(format!(
            "--bits {bits} is outside 1..={max_bits} for {} (no hard case is expected beyond 2p + 64 bits)",
            format.name()
        )));
    }
    if args.max_precision < p + bits + 64 {
        return Err(InputError::Bits(format!(
            "--max-precision {} must be at least p + K + 64 = {}",
            args.max_precision,
            p + bits + 64
        )));
    }
    let breakpoints = Breakpoints::parse(&args.breakpoints).ok_or_else(|| {
        InputError::Usage(format!(
            "unknown --breakpoints '{}' (expected all, directed or nearest)",
            args.breakpoints
        ))
    })?;
    check_algorithm_and_backend(args)?;
    Ok(Plan {
        target,
        range,
        params: SearchParams {
            bits,
            breakpoints,
            include_exact: args.exact,
            max_precision: args.max_precision,
        },
        from,
        to,
    })
}

fn check_algorithm_and_backend(args: &SearchArgs) -> Result<(), InputError> {
    match args.algorithm.as_str() {
        "auto" | "reference" => {}
        "regular" | "lefevre" | "exhaustive" => {
            return Err(InputError::Usage(format!(
                "--algorithm {} is not available in this build yet; use --algorithm reference",
                args.algorithm
            )))
        }
        other => {
            return Err(InputError::Usage(format!(
                "unknown --algorithm '{other}' (expected auto, reference, regular, lefevre or exhaustive)"
            )))
        }
    }
    match args.backend.as_str() {
        "cpu" => Ok(()),
        "opencl" | "cuda" => Err(InputError::Usage(format!(
            "--backend {} is not available in this build yet; use --backend cpu",
            args.backend
        ))),
        other => Err(InputError::Usage(format!(
            "unknown --backend '{other}' (expected cpu, opencl or cuda)"
        ))),
    }
}

/// Where cases go: stdout, or a `.partial` file renamed when done.
struct Output {
    writer: Box<dyn Write + Send>,
    partial: Option<(PathBuf, PathBuf)>,
    wc: bool,
    json: bool,
}

impl Output {
    fn open(args: &SearchArgs, plan: &Plan) -> anyhow::Result<Output> {
        let wc = args
            .out
            .as_deref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "wc"));
        let (writer, partial): (Box<dyn Write + Send>, _) = match &args.out {
            Some(path) => {
                let tmp = partial_path(path);
                let file =
                    File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
                (Box::new(BufWriter::new(file)), Some((tmp, path.clone())))
            }
            None => (Box::new(std::io::stdout()), None),
        };
        let mut out = Output {
            writer,
            partial,
            wc,
            json: args.json,
        };
        if wc {
            let header = wc_header(&[
                format!(
                    "hard-to-round cases of {} in {}",
                    plan.target.name,
                    plan.range.format.name()
                ),
                format!(
                    "range [{}, {}), K = {}, breakpoints {}",
                    plan.from.to_hex(),
                    plan.to.to_hex(),
                    plan.params.bits,
                    plan.params.breakpoints.name()
                ),
                format!(
                    "found by tmd {} (reference search, MPFR on every input)",
                    env!("CARGO_PKG_VERSION")
                ),
                format!(
                    "command: tmd {}",
                    std::env::args().skip(1).collect::<Vec<_>>().join(" ")
                ),
            ]);
            out.writer.write_all(header.as_bytes())?;
        } else if !args.json {
            writeln!(out.writer, "{}", case_header())?;
        }
        Ok(out)
    }

    fn write(&mut self, name: &str, format: &Format, case: &Case) -> std::io::Result<()> {
        let line = if self.wc {
            match &case.outcome {
                Outcome::Inexact(i) => format!(
                    "{} # {} k={} bits={:.3}",
                    case.x.to_hex(),
                    i.kind.name(),
                    i.k,
                    i.bits
                ),
                other => format!("{} # {}", case.x.to_hex(), other.kind_name()),
            }
        } else if self.json {
            case_json(name, format, &case.x, &case.outcome)
        } else {
            case_row(&case.x, &case.outcome)
        };
        writeln!(self.writer, "{line}")?;
        self.writer.flush()
    }

    fn finish(mut self) -> anyhow::Result<()> {
        self.writer.flush()?;
        drop(self.writer);
        if let Some((tmp, path)) = self.partial {
            std::fs::rename(&tmp, &path)
                .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
        }
        Ok(())
    }
}

fn partial_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

pub fn run(args: &SearchArgs) -> anyhow::Result<()> {
    let plan = plan(args)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("starting worker threads")?;
    let mut out = Output::open(args, &plan)?;
    let progress = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let mut write_error = None;
    let summary = std::thread::scope(|scope| {
        if !args.quiet {
            scope.spawn(|| show_progress(&progress, &done, plan.range.len()));
        }
        let summary = pool.install(|| {
            reference_search(
                &plan.target,
                &plan.range,
                &plan.params,
                &progress,
                &mut |case| {
                    if write_error.is_none() {
                        if let Err(e) = out.write(&plan.target.name, &plan.range.format, case) {
                            write_error = Some(e);
                        }
                    }
                },
            )
        });
        done.store(true, Ordering::Relaxed);
        summary
    });
    if let Some(e) = write_error {
        return Err(e.into());
    }
    out.finish()?;
    report(args, &plan, &summary, pool.current_num_threads())
}

fn show_progress(progress: &AtomicU64, done: &AtomicBool, total: u128) {
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} inputs, {msg}, ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let started = std::time::Instant::now();
    while !done.load(Ordering::Relaxed) {
        let pos = progress.load(Ordering::Relaxed);
        let rate = pos as f64 / started.elapsed().as_secs_f64().max(1e-3);
        bar.set_message(format!("{rate:.0} inputs/s"));
        bar.set_position(pos);
        std::thread::sleep(Duration::from_millis(100));
    }
    bar.finish_and_clear();
}

fn report(args: &SearchArgs, plan: &Plan, s: &Summary, threads: usize) -> anyhow::Result<()> {
    let secs = s.elapsed.as_secs_f64();
    let rate = s.inputs as f64 / secs.max(1e-9);
    eprintln!(
        "tmd: {} in {} [{}, {}): {} inputs, {} hard-to-round (K = {}, {}), {} exact, {} unresolved, {} undefined, {} poles, {} overflow; {:.2} s, {:.0} inputs/s on {} threads",
        plan.target.name, plan.range.format.name(), plan.from.to_hex(), plan.to.to_hex(), s.inputs, s.hard,
        plan.params.bits, plan.params.breakpoints.name(), s.exact, s.unresolved, s.undefined, s.poles, s.overflow, secs, rate, threads
    );
    if s.unresolved > 0 {
        eprintln!("tmd: warning: {} inputs could not be decided within {} bits; they are listed with kind \"unresolved\" (raise --max-precision)", s.unresolved, plan.params.max_precision);
    }
    if let Some(path) = &args.stats {
        let stats = serde_json::json!({
            "function": plan.target.name,
            "format": plan.range.format.name(),
            "from": plan.from.to_hex(),
            "to": plan.to.to_hex(),
            "bits": plan.params.bits,
            "breakpoints": plan.params.breakpoints.name(),
            "algorithm": "reference",
            "backend": "cpu",
            "threads": threads,
            "inputs": s.inputs,
            "hard": s.hard,
            "exact": s.exact,
            "unresolved": s.unresolved,
            "undefined": s.undefined,
            "poles": s.poles,
            "overflow": s.overflow,
            "seconds": secs,
            "inputs_per_second": rate,
        });
        let tmp = partial_path(path);
        std::fs::write(&tmp, format!("{stats:#}\n"))
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
