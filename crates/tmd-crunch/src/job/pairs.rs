//! Two-argument functions (pow, atan2, hypot): every binary16 pair, the pairs of a list, a
//! seeded random sample or a structured sample of pow or hypot, in each rounding mode asked;
//! the report and the `--max-ulp` gate as for one-argument functions.

use super::text::{write_pair_failure, write_pair_report};
use super::{CrunchHost, CrunchRequest, FirstGateFailure, JobError};
use crate::bivariate::analysis::correct_rounding;
use crate::bivariate::pairs::{
    random_sample, read_list, structured_hypot, structured_pow, PairSet,
};
use crate::bivariate::run::PairsKind;
use crate::bivariate::target::BoxedPairTarget;
use crate::bivariate::{run_pairs, BiFunc, PairFormat, PairReport};
use crate::gate::{apply_gate, GateInput};
use crate::input_list::{note_skipped, strict_refusal, BadLines};
use std::io::Write;
use tmd_core::InputError;

/// Default size of a `--structured` sample.
const STRUCTURED_DEFAULT: u64 = 1 << 16;

/// Flags of two-argument runs given to a one-argument target: bad input (wrong arity).
pub fn refuse_pair_flags(req: &CrunchRequest) -> Result<(), InputError> {
    let flag = [
        (req.exhaustive, "--exhaustive"),
        (req.structured, "--structured"),
        (req.seed.is_some(), "--seed"),
    ]
    .into_iter()
    .find(|f| f.0);
    match flag {
        Some((_, name)) => Err(InputError::Usage(format!(
            "{} is a one-argument function; {name} is for two-argument functions (pow, \
             atan2, hypot)",
            req.target
        ))),
        None => Ok(()),
    }
}

/// Flags of one-argument runs given to a two-argument target.
fn refuse_range_flags(req: &CrunchRequest, func: &str) -> Result<(), InputError> {
    let flag = [
        (req.from.is_some() || req.to.is_some(), "--from/--to"),
        (req.checkpoint.is_some(), "--checkpoint"),
        (req.plot.is_some(), "--plot"),
        (req.estimate, "--estimate"),
        (req.block_bits.is_some(), "--block-bits"),
        (req.backend != "cpu", "--backend"),
    ]
    .into_iter()
    .find(|f| f.0);
    match flag {
        Some((_, name)) => Err(InputError::Usage(format!(
            "{}: {func} takes two arguments; {name} is for one-argument functions (pairs \
             come from --exhaustive, --inputs, --sample N --seed S or --structured)",
            req.target
        ))),
        None => Ok(()),
    }
}

/// The pairs the flags ask for, and how the report names them.
fn pair_set(
    req: &CrunchRequest,
    func: BiFunc,
    fmt: PairFormat,
) -> Result<(PairSet, PairsKind), InputError> {
    let seed = req.seed.unwrap_or(1);
    if req.exhaustive {
        if fmt != PairFormat::Binary16 {
            return Err(InputError::Usage(format!(
                "--exhaustive runs every binary16 pair (--format binary16); {} has too many \
                 pairs: use --inputs, --sample or --structured",
                fmt.name()
            )));
        }
        return Ok((PairSet::AllBinary16, PairsKind::Exhaustive));
    }
    if let Some(path) = &req.inputs {
        let name = path.display().to_string();
        let reader = super::list::open_list(path)?;
        let (pairs, skipped) = read_list(reader, &name, (fmt, func.name()), BadLines::Skip)?;
        let what = format!("{} pair", fmt.name());
        if req.strict {
            strict_refusal(&name, &what, &skipped)?;
        }
        note_skipped(&name, &what, &skipped, pairs.len() as u64)?;
        return Ok((PairSet::Listed(pairs), PairsKind::List { file: name }));
    }
    if req.sample == Some(0) {
        return Err(InputError::Usage("--sample 0: at least one pair".into()));
    }
    if req.structured {
        let n = req.sample.unwrap_or(STRUCTURED_DEFAULT);
        let pairs = match func {
            BiFunc::Pow => structured_pow(fmt, n, seed),
            BiFunc::Hypot => structured_hypot(fmt, n, seed),
            // atan2 of non-zero finite numbers is never exact (Lindemann-Weierstrass: the
            // arctangent of a non-zero algebraic number is transcendental).
            BiFunc::Atan2 => {
                return Err(InputError::Usage(format!(
                    "--structured samples the exact results and midpoints of pow and hypot; {} \
                     has none to sample",
                    func.name()
                )))
            }
        };
        return Ok((PairSet::Listed(pairs), PairsKind::Structured { seed }));
    }
    match req.sample {
        Some(n) => Ok((
            PairSet::Listed(random_sample(fmt, n, seed)),
            PairsKind::Sample { seed },
        )),
        None => Err(InputError::Usage(format!(
            "{} takes two arguments: give --inputs FILE, --sample N [--seed S], --structured \
             (pow) or, in binary16, --exhaustive",
            func.name()
        ))),
    }
}

/// Runs every mode asked and writes each report; then the first `--max-ulp` failure.
pub fn run(
    req: &CrunchRequest,
    out: &mut (dyn Write + Send),
    host: &dyn CrunchHost,
) -> Result<(), JobError> {
    let format = req.format.as_deref().map(PairFormat::parse).transpose()?;
    let targets = req
        .rounding
        .iter()
        .map(|&mode| crate::bivariate::resolve(&req.target, req.function.as_deref(), format, mode))
        .collect::<Result<Vec<BoxedPairTarget>, InputError>>()?;
    let first = targets.first().expect("at least one mode");
    let (func, fmt) = (first.function(), first.format());
    refuse_range_flags(req, func.name())?;
    let (set, kind) = pair_set(req, func, fmt)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(req.threads.unwrap_or(0))
        .build()
        .map_err(JobError::Threads)?;
    let mut failures = FirstGateFailure::default();
    for target in &targets {
        let bar = host.bar(set.len());
        let report = pool.install(|| run_pairs(target.as_ref(), &set, &kind, |d, _| bar.set(d)));
        bar.finish();
        if let Some(failure) = target.failure() {
            return Err(failure.into());
        }
        write_report(req, &report, pool.current_num_threads(), out)?;
        let argmax = report.outcome.argmax.as_ref().map(|p| p.join(", "));
        let gate = GateInput::new(&report.outcome, argmax.as_deref());
        failures.note(apply_gate(req.max_ulp, &gate).map_err(JobError::from))?;
    }
    failures.result()
}

/// The pairs not correctly rounded, then the report.
fn write_report(
    req: &CrunchRequest,
    r: &PairReport,
    threads: usize,
    out: &mut dyn Write,
) -> Result<(), JobError> {
    let fmt = PairFormat::parse(&r.format)?;
    let func = BiFunc::lookup(&r.function).expect("a report names its function");
    for f in &r.failures {
        let expected = correct_rounding(func, fmt, f.a, f.b, r.rounding);
        write_pair_failure(out, fmt, f, expected, (req.json, req.max_ulp))?;
    }
    if req.json {
        writeln!(out, "{}", serde_json::to_string(r)?)?;
    } else {
        write_pair_report(out, r, threads, req.max_ulp)?;
    }
    Ok(())
}
