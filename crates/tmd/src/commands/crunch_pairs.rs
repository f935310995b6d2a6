//! `tmd crunch TARGET` for two-argument functions (pow, atan2, hypot): every binary16 pair,
//! the pairs of a list, a seeded random sample or a structured sample of pow or hypot, in each
//! rounding mode asked; the report and the `--max-ulp` gate as for one-argument functions.

use crate::cli::CrunchArgs;
use anyhow::Context;
use std::io::{BufReader, Write};
use tmd_core::InputError;
use tmd_crunch::bivariate::analysis::correct_rounding;
use tmd_crunch::bivariate::pairs::{
    random_sample, read_list, structured_hypot, structured_pow, PairSet,
};
use tmd_crunch::bivariate::run::{PairFailure, PairsKind};
use tmd_crunch::bivariate::target::BoxedPairTarget;
use tmd_crunch::bivariate::{run_pairs, BiFunc, PairFormat, PairReport};
use tmd_crunch::input_list::BadLines;

/// Default size of a `--structured` sample.
const STRUCTURED_DEFAULT: u64 = 1 << 16;

/// Flags of two-argument runs given to a one-argument target: bad input (wrong arity).
pub fn refuse_pair_flags(args: &CrunchArgs, spec: &str) -> Result<(), InputError> {
    let flag = [
        (args.exhaustive, "--exhaustive"),
        (args.structured, "--structured"),
        (args.seed.is_some(), "--seed"),
    ]
    .into_iter()
    .find(|f| f.0);
    match flag {
        Some((_, name)) => Err(InputError::Usage(format!(
            "{spec} is a one-argument function; {name} is for two-argument functions (pow, \
             atan2, hypot)"
        ))),
        None => Ok(()),
    }
}

/// Flags of one-argument runs given to a two-argument target.
fn refuse_range_flags(args: &CrunchArgs, spec: &str, func: &str) -> Result<(), InputError> {
    let flag = [
        (args.from.is_some() || args.to.is_some(), "--from/--to"),
        (args.checkpoint.is_some(), "--checkpoint"),
        (args.plot.is_some(), "--plot"),
        (args.estimate, "--estimate"),
        (args.block_bits.is_some(), "--block-bits"),
        (args.backend != "cpu", "--backend"),
    ]
    .into_iter()
    .find(|f| f.0);
    match flag {
        Some((_, name)) => Err(InputError::Usage(format!(
            "{spec}: {func} takes two arguments; {name} is for one-argument functions (pairs \
             come from --exhaustive, --inputs, --sample N --seed S or --structured)"
        ))),
        None => Ok(()),
    }
}

/// The pairs the flags ask for, and how the report names them.
fn pair_set(
    args: &CrunchArgs,
    func: BiFunc,
    fmt: PairFormat,
) -> anyhow::Result<(PairSet, PairsKind)> {
    let seed = args.seed.unwrap_or(1);
    if args.exhaustive {
        if fmt != PairFormat::Binary16 {
            return Err(InputError::Usage(format!(
                "--exhaustive runs every binary16 pair (--format binary16); {} has too many \
                 pairs: use --inputs, --sample or --structured",
                fmt.name()
            ))
            .into());
        }
        return Ok((PairSet::AllBinary16, PairsKind::Exhaustive));
    }
    if let Some(path) = &args.inputs {
        let name = path.display().to_string();
        let file = super::open_readable(path)
            .map_err(|e| InputError::Usage(format!("--inputs {name}: {}", super::io_reason(&e))))?;
        let policy = BadLines::Skip;
        let (pairs, skipped) = read_list(BufReader::new(file), &name, (fmt, func.name()), policy)?;
        let what = format!("{} pair", fmt.name());
        if args.strict {
            super::crunch_list::strict_refusal(&name, &what, &skipped)?;
        }
        super::crunch_list::note_skipped(&name, &what, &skipped, pairs.len() as u64)?;
        return Ok((PairSet::Listed(pairs), PairsKind::List { file: name }));
    }
    if args.sample == Some(0) {
        return Err(InputError::Usage("--sample 0: at least one pair".into()).into());
    }
    if args.structured {
        let n = args.sample.unwrap_or(STRUCTURED_DEFAULT);
        let pairs = match func {
            BiFunc::Pow => structured_pow(fmt, n, seed),
            BiFunc::Hypot => structured_hypot(fmt, n, seed),
            // atan2 of non-zero finite numbers is never exact (Lindemann-Weierstrass: the
            // arctangent of a non-zero algebraic number is transcendental).
            _ => {
                return Err(InputError::Usage(format!(
                    "--structured samples the exact results and midpoints of pow and hypot; {} \
                     has none to sample",
                    func.name()
                ))
                .into())
            }
        };
        return Ok((PairSet::Listed(pairs), PairsKind::Structured { seed }));
    }
    match args.sample {
        Some(n) => Ok((
            PairSet::Listed(random_sample(fmt, n, seed)),
            PairsKind::Sample { seed },
        )),
        None => Err(InputError::Usage(format!(
            "{} takes two arguments: give --inputs FILE, --sample N [--seed S], --structured \
             (pow) or, in binary16, --exhaustive",
            func.name()
        ))
        .into()),
    }
}

/// Runs every mode asked and prints each report; then the first `--max-ulp` failure.
pub fn run(args: &CrunchArgs, spec: &str) -> anyhow::Result<()> {
    let format = args.format.as_deref().map(PairFormat::parse).transpose()?;
    let targets = args
        .rounding
        .0
        .iter()
        .map(|&mode| tmd_crunch::bivariate::resolve(spec, args.function.as_deref(), format, mode))
        .collect::<Result<Vec<BoxedPairTarget>, InputError>>()?;
    let first = targets.first().expect("at least one mode");
    let (func, fmt) = (first.function(), first.format());
    refuse_range_flags(args, spec, func.name())?;
    let (set, kind) = pair_set(args, func, fmt)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("starting worker threads")?;
    let mut first_failure = None;
    for target in &targets {
        let bar = crate::progress::Progress::new(set.len(), args.quiet);
        let report = pool.install(|| run_pairs(target.as_ref(), &set, &kind, |d, _| bar.set(d)));
        bar.finish();
        if let Some(failure) = target.failure() {
            return Err(failure.into());
        }
        print(args, &report, pool.current_num_threads())?;
        let gate = super::crunch_list::apply_gate(
            args.max_ulp,
            &super::crunch_list::GateInput::new(
                report.max_ulp,
                report.argmax.as_ref().map(|p| p.join(", ")).as_deref(),
                (report.faithful, report.worse, report.worse_below_one_ulp),
                &report.histogram,
                &report.specials,
            ),
        );
        match gate {
            Err(e) if e.downcast_ref::<super::crunch_list::GateFailed>().is_some() => {
                first_failure.get_or_insert(e);
            }
            other => other?,
        }
    }
    first_failure.map_or(Ok(()), Err)
}

fn print(args: &CrunchArgs, r: &PairReport, threads: usize) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let fmt = PairFormat::parse(&r.format)?;
    let func = BiFunc::lookup(&r.function).expect("a report names its function");
    for f in &r.failures {
        let expected = correct_rounding(func, fmt, f.a, f.b, r.rounding);
        write_failure(&mut out, fmt, f, expected, (args.json, args.max_ulp))?;
    }
    if args.json {
        writeln!(out, "{}", serde_json::to_string(r)?)?;
    } else {
        write_text(&mut out, r, threads, args.max_ulp)?;
    }
    Ok(())
}

fn write_failure(
    out: &mut impl Write,
    fmt: PairFormat,
    f: &PairFailure,
    expected: f64,
    (json, limit): (bool, Option<f64>),
) -> std::io::Result<()> {
    // JSON: the exact binary64 error; text: the digits that keep its order against the gate.
    let ulp = f.err.map_or("null".to_string(), |e| {
        serde_json::Value::from(e).to_string()
    });
    let (a, b, got, want) = (
        fmt.hex(f.a),
        fmt.hex(f.b),
        fmt.hex(f.got),
        fmt.hex(expected),
    );
    if json {
        writeln!(
            out,
            "{{\"pair\":{},\"x\":[\"{a}\",\"{b}\"],\"expected\":\"{want}\",\"got\":\"{got}\",\"ulp\":{ulp},\"class\":\"{:?}\",\"special\":\"{:?}\"}}",
            f.index + 1, f.class, f.special
        )
    } else {
        let err = f.err.map_or(String::new(), |e| {
            format!(", {} ulp", super::crunch_list::ulps_text(e, limit))
        });
        writeln!(
            out,
            "({a}, {b}): got {got}, expected {want}{err} ({:?}, {:?}; pair {})",
            f.class,
            f.special,
            f.index + 1
        )
    }
}

fn write_text(
    out: &mut impl Write,
    r: &PairReport,
    threads: usize,
    limit: Option<f64>,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{} ({} {}), rounding {}: {} in {:.2} s ({:.3e} pairs/s, {threads} threads)",
        r.target,
        r.function,
        r.format,
        r.rounding,
        r.pairs,
        r.seconds,
        r.inputs as f64 / r.seconds.max(1e-9)
    )?;
    match (r.max_ulp, &r.argmax) {
        (Some(m), Some([a, b])) => writeln!(
            out,
            "  max error {} ulp at (x, y) = ({a}, {b}): result {}, correctly rounded {} \
             (recomputed with MPFR)",
            super::crunch_list::ulps_text(m, limit),
            r.argmax_result.as_deref().unwrap_or("?"),
            r.argmax_expected.as_deref().unwrap_or("?"),
        )?,
        _ => writeln!(out, "  no pair with a finite error")?,
    }
    super::crunch::write_verdict_counts(out, r.inputs, [r.correctly_rounded, r.faithful, r.worse])?;
    super::crunch::write_specials(out, &r.specials, &r.histogram, r.rounding)?;
    writeln!(
        out,
        "  reference: {}; {} pairs decided by MPFR",
        r.reference, r.mpfr_inputs
    )?;
    if let Some(c) = &r.confidence {
        writeln!(out, "  confidence: {c}")?;
    }
    if let Some(note) = &r.note {
        writeln!(out, "  note: {note}")?;
    }
    Ok(())
}
