//! `tmd search FUNC --from A --to B ...`: list the hard-to-round cases of a range.
//!
//! Output goes to stdout or, with `--out FILE`, to a temporary file renamed to FILE only when
//! the search has finished, so FILE is never incomplete; a FILE that is a device or a FIFO is
//! written in place (`crate::out_file`).

use crate::cli::SearchArgs;
use crate::out_file::{self, OutFile};
use crate::output::{
    case_header, case_json, case_row, range_json, range_row, wc_header, wc_line, wc_range_line,
};
use anyhow::Context;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use std::time::Instant;
use tmd_core::{Format, InputError};
use tmd_search::cluster::SEGMENTS_FILE;
use tmd_search::filter::device::PacketDevice;
use tmd_search::filter::stats::{FilterStats, PhaseCounts};
use tmd_search::journal::{Journal, JournalError, Recovered};
use tmd_search::reference::decide_input;
use tmd_search::regime::{range_record, RangeRecord};
use tmd_search::{
    filtered_search, reference_search_to, Backend, Case, Counts, FilterError, Listing, SearchPlan,
    SearchRequest, Summary,
};

/// The request of `tmd search`'s flags.
fn request(args: &SearchArgs) -> SearchRequest {
    SearchRequest {
        function: args.function.clone(),
        format: args.format.clone(),
        from: args.from.clone(),
        to: args.to.clone(),
        bits: args.bits,
        breakpoints: args.breakpoints.clone(),
        exact: args.exact,
        expand_ranges: args.expand_ranges,
        max_precision: args.max_precision,
        algorithm: args.algorithm.clone(),
        lattice_shape: args.lattice_shape.clone(),
        backend: args.backend.clone(),
        domain_size: args.domain_size,
        kappa: args.kappa,
        division_threshold: args.division_threshold,
        chunk_bits: args.chunk_bits,
        split_phases: args.split_phases,
        inline_phases: args.inline_phases,
        work_group: args.work_group,
        domains_per_item: args.domains_per_item,
        device_min_domains: args.device_min_domains,
        warp_nmdm: args.warp_nmdm,
    }
}

/// Checks the flags and resolves the defaults, with the notes to print once every check has
/// passed (a bad input gets its one line alone).
pub(crate) fn plan(args: &SearchArgs) -> Result<(SearchPlan, Notes), InputError> {
    let mut notes = Vec::new();
    let plan = SearchPlan::new(&request(args), &mut |note| notes.push(note.to_string()))?;
    Ok((plan, Notes(notes)))
}

/// Notes on the arguments (a number rounded to the format, an algorithm chosen).
pub(crate) struct Notes(Vec<String>);

impl Notes {
    pub(crate) fn print(&self) {
        for note in &self.0 {
            eprintln!("tmd: note: {note}");
        }
    }
}

/// Opens the device of `--backend opencl|cuda --device N` (a missing runtime is a run failure,
/// exit 1, with the runner's message naming what to install).
/// Opens device `requested` (or `default_index`) of the plan's backend for its filter; a
/// device number on the CPU backend is refused rather than ignored.
pub(crate) fn attach_device(
    plan: &mut SearchPlan,
    requested: Option<usize>,
    default_index: usize,
) -> anyhow::Result<()> {
    let index = requested.unwrap_or(default_index);
    let device: std::sync::Arc<dyn PacketDevice> = match plan.backend {
        Backend::OpenCl => std::sync::Arc::new(
            tmd_gpu::opencl::OpenClDevice::nth(index)
                .map_err(|e| anyhow::anyhow!("--backend opencl: {e}"))?,
        ),
        Backend::Cuda => std::sync::Arc::new(
            tmd_gpu::cuda::CudaDevice::nth(index)
                .map_err(|e| anyhow::anyhow!("--backend cuda: {e}"))?,
        ),
        Backend::Cpu if requested.is_some() => {
            return Err(InputError::Usage("--device is for --backend opencl or cuda".into()).into())
        }
        Backend::Cpu => return Ok(()),
    };
    if let Some(filter) = plan.filter.as_mut() {
        filter.device = Some(device);
    }
    Ok(())
}

/// Where cases go: stdout, or an output file made final when done.
pub(crate) struct Output {
    writer: Box<dyn Write + Send>,
    file: Option<OutFile>,
    wc: bool,
    json: bool,
}

impl Output {
    /// The output to `file` (opened from `--out`), or to stdout.
    pub(crate) fn start(
        args: &SearchArgs,
        plan: &SearchPlan,
        file: Option<OutFile>,
    ) -> anyhow::Result<Output> {
        let wc = args
            .out
            .as_deref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "wc"));
        let writer: Box<dyn Write + Send> = match &file {
            Some(file) => Box::new(BufWriter::new(file.handle()?)),
            None => Box::new(BufWriter::new(std::io::stdout())),
        };
        let mut out = Output {
            writer,
            file,
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
                    "inputs searched: [{}, {}), K = {}, breakpoints {}",
                    plan.from.to_hex(),
                    plan.to.to_hex(),
                    plan.params.bits,
                    plan.params.breakpoints.name()
                ),
                format!(
                    "found by tmd {}, --algorithm {}; every listed case verified with MPFR",
                    env!("TMD_VERSION"),
                    plan.algorithm().name()
                ),
                format!(
                    "command: tmd {}",
                    std::env::args().skip(1).collect::<Vec<_>>().join(" ")
                ),
                format!("made {}", super::report::utc_now()),
                if plan.range_records && plan.filter.is_some() {
                    "pieces where a proven rule makes every input hard are '# range' lines \
                     (first and last input, bits >= B, rule; --expand-ranges lists their inputs)"
                        .to_string()
                } else {
                    "every hard input is listed".to_string()
                },
            ]);
            out.writer.write_all(header.as_bytes())?;
        } else if !args.json {
            writeln!(out.writer, "{}", case_header())?;
        }
        Ok(out)
    }

    pub(crate) fn write(
        &mut self,
        name: &str,
        format: &Format,
        case: &Case,
    ) -> std::io::Result<()> {
        let line = if self.wc {
            wc_line(&case.x, &case.outcome)
        } else if self.json {
            case_json(name, format, &case.x, &case.outcome)
        } else {
            case_row(&case.x, &case.outcome)
        };
        // Flushed when a piece of the range is finished (`Listed::finished_through`), not
        // per case: a region where every input is hard lists millions of cases.
        writeln!(self.writer, "{line}")
    }

    /// Writes a range record (a comment line in a `.wc` file).
    pub(crate) fn write_range(
        &mut self,
        name: &str,
        format: &Format,
        record: &RangeRecord,
    ) -> std::io::Result<()> {
        let line = if self.wc {
            wc_range_line(format, record)
        } else if self.json {
            range_json(name, format, record)
        } else {
            range_row(format, record)
        };
        writeln!(self.writer, "{line}")
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }

    pub(crate) fn finish(mut self) -> anyhow::Result<()> {
        self.writer.flush()?;
        drop(self.writer);
        if let Some(file) = self.file {
            file.finish()?;
        }
        Ok(())
    }
}

/// Receives the cases in x order: writes them and, with `--resume`, checkpoints the journal
/// (at most once a second: each checkpoint is a line in the journal file).
struct Listed<'a> {
    out: &'a mut Output,
    plan: &'a SearchPlan,
    journal: Option<&'a mut Journal>,
    /// Counts of the part finished by an earlier run.
    base: Counts,
    pending: Vec<i128>,
    pending_ranges: Vec<(i128, i128)>,
    /// Range records written by this run, and the inputs they cover.
    ranges: (u64, u64),
    last_checkpoint: Instant,
    error: Option<anyhow::Error>,
}

impl Listing for Listed<'_> {
    fn case(&mut self, case: &Case) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self
            .out
            .write(&self.plan.target.name, &self.plan.range.format, case)
        {
            self.error = Some(e.into());
        }
        if self.journal.is_some() {
            self.pending.push(self.plan.range.format.ordinal(&case.x));
        }
    }

    fn accepts_ranges(&self) -> bool {
        self.plan.range_records
    }

    fn wants_more(&self) -> bool {
        self.error.is_none()
    }

    fn range(&mut self, record: &RangeRecord) {
        if self.error.is_some() {
            return;
        }
        let (name, format) = (&self.plan.target.name, &self.plan.range.format);
        if let Err(e) = self.out.write_range(name, format, record) {
            self.error = Some(e.into());
        }
        self.ranges.0 += 1;
        self.ranges.1 += record.inputs();
        if self.journal.is_some() {
            self.pending_ranges.push((record.start, record.end));
        }
    }

    fn finished_through(&mut self, next_ordinal: i128, total: &Summary) {
        if self.error.is_some() {
            return;
        }
        // Every case of the finished prefix reaches the output (an interrupted run keeps
        // them), and the output must hold everything the journal claims before it claims it.
        if let Err(e) = self.out.flush() {
            self.error = Some(e.into());
            return;
        }
        let Some(journal) = self.journal.as_deref_mut() else {
            return;
        };
        if self.last_checkpoint.elapsed() < Duration::from_secs(1) {
            return;
        }
        let counts = self.base + total.counts;
        match journal.checkpoint_listed(&self.pending, &self.pending_ranges, next_ordinal, &counts)
        {
            Ok(()) => {
                self.pending.clear();
                self.pending_ranges.clear();
                self.last_checkpoint = Instant::now();
            }
            Err(e) => self.error = Some(anyhow::Error::from(e).context("writing the journal")),
        }
    }
}

/// A journal error for `main`: the journal of another search is bad input (exit status 2).
pub(crate) fn journal_error(e: JournalError) -> anyhow::Error {
    if e.is_bad_input() {
        InputError::Usage(e.to_string()).into()
    } else {
        e.into()
    }
}

pub fn run(args: &SearchArgs) -> anyhow::Result<()> {
    #[cfg(feature = "mpi")]
    if let Some(cluster) = crate::cluster::MpiCluster::from_env() {
        return super::search_mpi::run(args, &cluster);
    }
    let (mut plan, notes) = plan(args)?;
    // Output paths are checked before any work: a missing directory costs nothing.
    if let Some(path) = &args.out {
        out_file::check("--out", path)?;
        if args.json && path.extension().is_some_and(|e| e == "wc") {
            return Err(InputError::Usage(format!(
                "--json with --out {}: a .wc file has a format of its own; leave out --json, \
                 or name the file otherwise",
                path.display()
            ))
            .into());
        }
    }
    if let Some(path) = &args.stats {
        out_file::check("--stats", path)?;
    }
    refuse_collisions(args)?;
    // The workers start while the device opens (the search's jobs run on this pool: the
    // filtered and reference searches start them from the thread that installs it).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("starting worker threads")?;
    attach_device(&mut plan, args.device, 0)?;
    if args.plan {
        notes.print();
        return pool.install(|| print_plan(&plan, args.json, pool.current_num_threads()));
    }
    // Every output exists, as a temporary file, before the work: one that cannot be written
    // costs nothing.
    let out_file = open_output("--out", args.out.as_deref())?;
    let stats_file = open_output("--stats", args.stats.as_deref())?;
    let mut journal = None;
    let mut recovered = Recovered::default();
    if let Some(dir) = &args.resume {
        if dir.exists() && !dir.is_dir() {
            return Err(InputError::Usage(format!(
                "--resume {}: not a directory (the journal's directory, created if missing)",
                dir.display()
            ))
            .into());
        }
        if dir.join(SEGMENTS_FILE).exists() {
            return Err(InputError::Usage(format!(
                "{} holds the journal of a search run under mpirun: resume it under mpirun (any -np, 1 included)",
                dir.display()
            ))
            .into());
        }
        let (j, r) = Journal::open(dir, &plan.fingerprint()).map_err(journal_error)?;
        crate::interrupt::kept(format!(
            "{} holds every finished chunk: the same command goes on from there",
            dir.display()
        ));
        journal = Some(j);
        recovered = r;
    }
    notes.print();
    let mut out = Output::start(args, &plan, out_file)?;
    replay(&plan, &recovered, &mut out, args.resume.as_deref())?;
    let mut range = plan.range.clone();
    if let Some(next) = recovered.resume_from {
        range.start = next.max(range.start);
    }
    if recovered.resume_from.is_some() || recovered.complete {
        eprintln!(
            "tmd: resuming: {} inputs and {} cases already done",
            recovered.counts.inputs,
            recovered.cases.len()
        );
    }
    let progress = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let mut listed = Listed {
        out: &mut out,
        plan: &plan,
        journal: journal.as_mut(),
        base: recovered.counts,
        pending: Vec::new(),
        pending_ranges: Vec::new(),
        ranges: (0, 0),
        last_checkpoint: Instant::now(),
        error: None,
    };
    let (summary, stats) = std::thread::scope(|scope| {
        if !args.quiet && !recovered.complete {
            scope.spawn(|| show_progress(&progress, &done, range.len()));
        }
        let result = pool.install(|| -> Result<_, FilterError> {
            if recovered.complete || range.is_empty() {
                return Ok((Summary::default(), None));
            }
            Ok(match &plan.filter {
                None => (
                    reference_search_to(&plan.target, &range, &plan.params, &progress, &mut listed),
                    None,
                ),
                Some(filter) => {
                    let (s, st) = filtered_search(
                        &plan.target,
                        &range,
                        &plan.params,
                        filter,
                        &progress,
                        &mut listed,
                    )?;
                    (s, Some(st))
                }
            })
        });
        done.store(true, Ordering::Relaxed);
        result
    })
    .map_err(|e| match e {
        FilterError::Device(d) => anyhow::anyhow!("device failed: {d}"),
        other => InputError::Usage(other.to_string()).into(),
    })?;
    if let Some(e) = listed.error.take() {
        return Err(e);
    }
    let pending = std::mem::take(&mut listed.pending);
    let pending_ranges = std::mem::take(&mut listed.pending_ranges);
    let ranges = (
        listed.ranges.0 + recovered.ranges.len() as u64,
        listed.ranges.1
            + recovered
                .ranges
                .iter()
                .map(|(a, b)| (b - a) as u64)
                .sum::<u64>(),
    );
    let mut total = summary.clone();
    let counts = if recovered.complete {
        recovered.counts
    } else {
        recovered.counts + summary.counts
    };
    total.counts = counts;
    out.finish()?;
    if let Some(journal) = journal.as_mut() {
        if !recovered.complete {
            journal.checkpoint_listed(&pending, &pending_ranges, plan.range.end, &counts)?;
        }
        journal.finish(&counts)?;
    }
    report(
        &plan,
        &total,
        summary.inputs,
        stats.as_ref(),
        pool.current_num_threads(),
        stats_file,
    )?;
    if ranges.0 > 0 {
        eprintln!(
            "tmd: {} of the hard-to-round inputs are listed as {} range records (every input \
             proven hard by a rule; --expand-ranges lists them one by one)",
            ranges.1, ranges.0
        );
    }
    Ok(())
}

/// Lists the finished prefix of an earlier run again, in input order: its cases decided again
/// by MPFR (they are few) and its range records rebuilt from the rule.
fn replay(
    plan: &SearchPlan,
    recovered: &Recovered,
    out: &mut Output,
    dir: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let (format, name) = (&plan.range.format, &plan.target.name);
    let mut ranges = recovered.ranges.iter().peekable();
    let mut write_ranges_below = |limit: i128, out: &mut Output| -> anyhow::Result<()> {
        while let Some(&&(a, b)) = ranges.peek().filter(|r| r.0 < limit) {
            ranges.next();
            let params = &plan.params;
            let record = range_record(
                &plan.target.expr,
                format,
                a,
                b,
                params.bits,
                params.breakpoints,
            )
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "the journal in {} lists inputs {}..{} as a range record that this tmd's \
                     rule does not give; delete the directory to start over",
                    dir.map(|d| d.display().to_string()).unwrap_or_default(),
                    format.from_ordinal(a).to_hex(),
                    format.from_ordinal(b - 1).to_hex()
                )
            })?;
            out.write_range(name, format, &record)?;
        }
        Ok(())
    };
    for &ordinal in &recovered.cases {
        write_ranges_below(ordinal, out)?;
        let x = format.from_ordinal(ordinal);
        let mut ignored = Summary::default();
        if let Some(case) = decide_input(&plan.target, format, &plan.params, x, &mut ignored) {
            out.write(name, format, &case)?;
        }
    }
    write_ranges_below(i128::MAX, out)
}

fn show_progress(progress: &AtomicU64, done: &AtomicBool, total: u128) {
    let bar = crate::progress::Progress::new(total as u64, false);
    while !done.load(Ordering::Relaxed) {
        bar.set(progress.load(Ordering::Relaxed));
        std::thread::sleep(Duration::from_millis(100));
    }
    bar.finish();
}

/// The report of a search: `s` counts every input of the range, `searched` those this run
/// searched (fewer when it resumed a journal), which the rate is of.
pub(crate) fn report(
    plan: &SearchPlan,
    s: &Summary,
    searched: u64,
    filter: Option<&FilterStats>,
    threads: usize,
    stats_file: Option<OutFile>,
) -> anyhow::Result<()> {
    let secs = s.elapsed.as_secs_f64();
    let rate = searched as f64 / secs.max(1e-9);
    eprintln!(
        "tmd: {} in {} [{}, {}): {} inputs, {} hard-to-round (K = {}, {}), {} exact, {} unresolved, {} undefined, {} poles, {} overflow; {:.2} s, {:.0} inputs/s on {} threads",
        plan.target.name, plan.range.format.name(), plan.from.to_hex(), plan.to.to_hex(), s.inputs, s.hard,
        plan.params.bits, plan.params.breakpoints.name(), s.exact, s.unresolved, s.undefined, s.poles, s.overflow, secs, rate, threads
    );
    if s.unresolved > 0 {
        eprintln!("tmd: warning: {} inputs could not be decided within {} bits; they are listed with kind \"unresolved\" (raise --max-precision)", s.unresolved, plan.params.max_precision);
    }
    if let Some(stats_file) = stats_file {
        let stats = serde_json::json!({
            "function": plan.target.name,
            "format": plan.range.format.name(),
            "from": plan.from.to_hex(),
            "to": plan.to.to_hex(),
            "bits": plan.params.bits,
            "breakpoints": plan.params.breakpoints.name(),
            "algorithm": plan.algorithm().name(),
            "backend": plan.backend.name(),
            "device": plan.filter.as_ref().and_then(|f| f.device.as_ref()).map(|d| d.name()),
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
            "filter": filter.map(|f| filter_json(plan, f)),
        });
        stats_file.write_whole(format!("{stats:#}\n").as_bytes())?;
    }
    Ok(())
}

/// `path` (the value of `flag`) opened for output, if given.
pub(crate) fn open_output(
    flag: &str,
    path: Option<&std::path::Path>,
) -> anyhow::Result<Option<OutFile>> {
    path.map(|path| OutFile::create(flag, path)).transpose()
}

/// Refuses outputs that are one file: `--out` and `--stats`, and the journal's files.
fn refuse_collisions(args: &SearchArgs) -> Result<(), InputError> {
    let mut claims = Vec::new();
    if let Some(path) = &args.out {
        claims.push(out_file::Claim::output("--out", path));
    }
    if let Some(path) = &args.stats {
        claims.push(out_file::Claim::output("--stats", path));
    }
    if let Some(dir) = &args.resume {
        let files = tmd_search::journal::files(dir).to_vec();
        claims.push(out_file::Claim::new("--resume", files));
    }
    out_file::refuse_collisions(&claims)
}

/// The per-phase statistics (compare Fortin, Gouicem and Graillat, "GPU-Accelerated Generation
/// of Correctly Rounded Elementary Functions", ACM TOMS, 2016, Tables II and III).
fn filter_json(plan: &SearchPlan, f: &FilterStats) -> serde_json::Value {
    let phase = |p: &PhaseCounts| {
        serde_json::json!({
            "domains_in": p.domains_in,
            "arguments_in": p.args_in,
            "domains_failed": p.domains_failed,
            "arguments_failed": p.args_failed,
            "thread_seconds": p.nanos as f64 * 1e-9,
        })
    };
    let params = plan.filter.as_ref();
    serde_json::json!({
        "domain_size_max": params.map(|p| p.domain_size),
        "kappa": params.map(|p| p.kappa),
        "chunk_inputs_max": params.map(|p| p.chunk_len),
        "division_threshold": params.map(|p| p.division_threshold),
        "chunks": f.chunks,
        "chunk_inputs": f.chunk_inputs,
        "reference_inputs": f.reference_inputs,
        "screened_inputs": f.screened_inputs,
        "whole_chunk_inputs": f.whole_chunk_inputs,
        "rule_inputs": f.rule_inputs,
        "domain_sizes_used": [f.domain_size_min, f.domain_size_max],
        "degrees_used": [f.degree_min, f.degree_max],
        "generation_thread_seconds": f.generation_nanos as f64 * 1e-9,
        "device_thread_seconds": f.device_nanos as f64 * 1e-9,
        "device_step_thread_seconds": tmd_search::filter::device::DEVICE_STEPS
            .iter()
            .zip(f.step_nanos)
            .map(|(k, n)| (k.to_string(), serde_json::json!(n as f64 * 1e-9)))
            .collect::<serde_json::Map<_, _>>(),
        "phase1": phase(&f.phase1),
        "phase2": phase(&f.phase2),
        "phase3": phase(&f.phase3),
        "candidates": f.candidates,
        "verification_thread_seconds": f.verification_nanos as f64 * 1e-9,
        "nmdm": nmdm_json(&f.nmdm),
        // On a device: over the 32 lanes of real warps (zero groups on the CPU backend).
        "nmdm_warp": nmdm_json(&f.nmdm_warp),
    })
}

/// An NMDM statistic as JSON: groups of 32, their mean NMDM and the mean loop iterations.
fn nmdm_json(n: &tmd_search::filter::Nmdm) -> serde_json::Value {
    serde_json::json!({
        "group": 32,
        "groups": n.groups,
        "mean": n.mean(),
        "mean_iterations": if n.domains > 0 { n.iterations as f64 / n.domains as f64 } else { 0.0 },
    })
}

/// `--plan`: the pieces, their methods and projected times, and the total.
fn print_plan(plan: &SearchPlan, json: bool, threads: usize) -> anyhow::Result<()> {
    let Some(filter) = plan.filter.as_ref() else {
        return Err(InputError::Usage(format!(
            "--plan projects the filtered algorithms; --algorithm {} has no plan",
            plan.algorithm().name()
        ))
        .into());
    };
    let pieces = tmd_search::projection::project(
        &plan.target,
        &plan.range,
        &plan.params,
        filter,
        plan.range_records,
    )?;
    let format = &plan.range.format;
    let hex = |o: i128| format.from_ordinal(o).to_hex();
    let mut out = std::io::stdout().lock();
    let total: f64 = pieces.iter().map(|p| p.projected_seconds).sum();
    if json {
        for p in &pieces {
            let pair = |v: Option<(u64, u64)>| v.map(|(a, b)| serde_json::json!([a, b]));
            writeln!(
                out,
                "{}",
                serde_json::json!({
                    "from": hex(p.start),
                    "to_last": hex(p.end - 1),
                    "inputs": (p.end - p.start) as u64,
                    "method": p.method.name(),
                    "degrees": pair(p.degrees),
                    "domain_sizes": pair(p.domain_sizes),
                    "sample_inputs": p.sample_inputs,
                    "sample_seconds": p.sample_seconds,
                    "projected_seconds": p.projected_seconds,
                })
            )?;
        }
    } else {
        writeln!(
            out,
            "{:<26} {:<26} {:>9} {:<22} {:>7} {:>13} {:>12}",
            "from", "to (last input)", "inputs", "method", "degree", "domain size", "projected"
        )?;
        let range = |v: Option<(u64, u64)>| match v {
            Some((a, b)) if a == b => a.to_string(),
            Some((a, b)) => format!("{a}-{b}"),
            None => "-".to_string(),
        };
        for p in &pieces {
            writeln!(
                out,
                "{:<26} {:<26} {:>9} {:<22} {:>7} {:>13} {:>12}",
                hex(p.start),
                hex(p.end - 1),
                crate::progress::si((p.end - p.start) as f64),
                p.method.name(),
                range(p.degrees),
                range(p.domain_sizes),
                duration(p.projected_seconds)
            )?;
        }
    }
    use tmd_search::projection::PieceMethod;
    let inputs_where = |keep: fn(&PieceMethod) -> bool| -> u64 {
        pieces
            .iter()
            .filter(|p| keep(&p.method))
            .map(|p| (p.end - p.start) as u64)
            .sum()
    };
    let ruled = inputs_where(|m| matches!(m, PieceMethod::RuleNoneHard | PieceMethod::RuleRecord));
    let whole = inputs_where(|m| matches!(m, PieceMethod::Whole(_)));
    eprintln!(
        "tmd: plan of {} in {} [{}, {}): {} pieces, {} inputs, {} of them decided by the rule, \
         {} by one enclosure each; projected {} on {} ({} threads) from timed samples in chunks of {} inputs{}",
        plan.target.name,
        format.name(),
        plan.from.to_hex(),
        plan.to.to_hex(),
        pieces.len(),
        crate::progress::si((plan.range.end - plan.range.start) as f64),
        crate::progress::si(ruled as f64),
        crate::progress::si(whole as f64),
        duration(total),
        plan.backend.name(),
        threads,
        crate::progress::si(filter.chunk_len as f64),
        if filter.flat_chunk_len > filter.chunk_len {
            format!(
                " (up to {} where nearly flat)",
                crate::progress::si(filter.flat_chunk_len as f64)
            )
        } else {
            String::new()
        },
    );
    Ok(())
}

/// Seconds in the largest unit that keeps them readable.
fn duration(seconds: f64) -> String {
    match seconds {
        s if s < 120.0 => format!("{s:.2} s"),
        s if s < 7200.0 => format!("{:.1} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.1} days", s / 86_400.0),
    }
}
