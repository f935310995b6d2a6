//! One search job, from what the user asked to the ordered output: a [`SearchRequest`] is
//! planned (with the notes on its arguments), its outputs are checked before any work, a
//! device is attached, the resume journal is opened and its finished prefix listed again, and
//! the search hands its cases and range records, in x order, to a sink that writes them in
//! the chosen format (`output`) and checkpoints the journal; the counts end as the report
//! lines and the `--stats` file.
//!
//! The caller keeps what is its own: the stream the cases go to when no `--out` is given, the
//! device runtimes (an [`OpenDevice`] function), and a [`JobWatcher`] that prints the job's
//! lines, shows its progress and learns when an interrupted run could go on from the journal.
//! The single-process run is [`SearchJob::run`]; under mpirun the ranks search segments
//! (`crate::cluster`) and the root lists them through the same sink ([`segments`]).

mod plan_table;
pub mod progress;
pub mod segments;
mod sink;
mod summary;

use crate::cluster::{SegmentsError, SEGMENTS_FILE};
use crate::filter::device::PacketDevice;
use crate::filter::stats::FilterStats;
use crate::journal::{Journal, JournalError, Recovered};
use crate::{filtered_search, reference_search_to, Backend, FilterError, SearchPlan};
use crate::{InputRange, SearchRequest, Summary};
pub use progress::SearchProgress;
use sink::{replay, CaseSink, Ended, JournaledListing};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use thiserror::Error;
use tmd_core::out_file::{self, OutFile};
use tmd_core::InputError;

/// Why a search job stopped. [`JobError::Input`] is bad input (exit status 2 in the CLI);
/// [`JobError::Io`] is a failed write, stdout's included (a closed pipe means its reader has
/// all it wanted); the rest are failures of the run.
#[derive(Debug, Error)]
pub enum JobError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("starting worker threads")]
    Threads(#[source] rayon::ThreadPoolBuildError),
    /// The device of the plan's backend could not be opened (its runtime's message names what
    /// to install).
    #[error("--backend {backend}: {reason}")]
    Device {
        backend: &'static str,
        reason: String,
    },
    /// The device failed during the run (the finished prefix was listed).
    #[error("device failed: {0}")]
    DeviceFailed(String),
    /// `--plan` could not project a piece.
    #[error(transparent)]
    Projection(FilterError),
    #[error(transparent)]
    Journal(JournalError),
    /// A checkpoint written while the search runs failed.
    #[error("writing the journal")]
    JournalWrite(#[source] JournalError),
    #[error(transparent)]
    Segments(SegmentsError),
    /// The journal holds a range record that this version's rule does not give.
    #[error(
        "the journal in {dir} lists inputs {first}..{last} as a range record that this tmd's \
         rule does not give; delete the directory to start over"
    )]
    UnknownRangeRecord {
        dir: String,
        first: String,
        last: String,
    },
}

impl From<JournalError> for JobError {
    /// The journal of another search is bad input; a journal that cannot be read or written
    /// is a failure.
    fn from(e: JournalError) -> JobError {
        if e.is_bad_input() {
            JobError::Input(InputError::Usage(e.to_string()))
        } else {
            JobError::Journal(e)
        }
    }
}

impl From<SegmentsError> for JobError {
    /// As for [`JournalError`]: another search's segments journal is bad input.
    fn from(e: SegmentsError) -> JobError {
        if e.is_bad_input() {
            JobError::Input(InputError::Usage(e.to_string()))
        } else {
            JobError::Segments(e)
        }
    }
}

/// Opens device `index` of a backend (the caller's device runtimes): `None` where the backend
/// needs no device, an error naming what is missing otherwise.
pub type OpenDevice<E> = fn(Backend, usize) -> Result<Option<Arc<dyn PacketDevice>>, E>;

/// What a job tells its caller while it runs. Lines come from the thread that runs the job;
/// the progress from a thread of its own.
pub trait JobWatcher: Sync {
    /// A line for the user (the CLI's stderr), without the program's prefix.
    fn say(&self, line: &str);
    /// From now on the journal in `dir` holds every finished chunk: an interrupted run goes on
    /// from there.
    fn journal_opened(&self, dir: &Path);
    /// Shows how far the search is until `progress.finished` is set.
    fn show_progress(&self, progress: &SearchProgress);
    /// Whether the progress line shows an ETA, for which a run that lasts makes its plan in
    /// the background ([`progress`]).
    fn wants_an_eta(&self) -> bool {
        false
    }
}

/// Where a job's results go and what it keeps to go on from.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    /// `--out FILE`: the cases go there (made final when the search ends) instead of the
    /// caller's stream; a name ending in `.wc` gets CORE-MATH's worst-case format.
    pub out: Option<PathBuf>,
    /// `--stats FILE`: counts and timings as JSON.
    pub stats: Option<PathBuf>,
    /// `--resume DIR`: the journal's directory.
    pub resume: Option<PathBuf>,
    /// JSON lines instead of the table (and `--plan`'s pieces as JSON).
    pub json: bool,
    /// The maker a `.wc` header names: the program's version and its command line.
    pub version: String,
    pub command_line: String,
}

impl Outputs {
    /// Whether `--out` names a worst-case file.
    fn is_wc(&self) -> bool {
        self.out
            .as_deref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "wc"))
    }

    /// Checks the output paths before any work (a missing directory costs nothing), and that
    /// no two outputs are one file.
    fn check(&self) -> Result<(), InputError> {
        if let Some(path) = &self.out {
            out_file::check("--out", path)?;
            if self.json && self.is_wc() {
                return Err(InputError::Usage(format!(
                    "--json with --out {}: a .wc file has a format of its own; leave out --json, \
                     or name the file otherwise",
                    path.display()
                )));
            }
        }
        if let Some(path) = &self.stats {
            out_file::check("--stats", path)?;
        }
        let mut claims = Vec::new();
        if let Some(path) = &self.out {
            claims.push(out_file::Claim::output("--out", path));
        }
        if let Some(path) = &self.stats {
            claims.push(out_file::Claim::output("--stats", path));
        }
        if let Some(dir) = &self.resume {
            let files = crate::journal::files(dir).to_vec();
            claims.push(out_file::Claim::new("--resume", files));
        }
        out_file::refuse_collisions(&claims)
    }
}

/// Plans `request`, with the notes on its arguments (a number rounded to the format, an
/// algorithm chosen) to show once every check has passed: a bad input gets its line alone.
pub fn plan(request: &SearchRequest) -> Result<(SearchPlan, Vec<String>), InputError> {
    let mut notes = Vec::new();
    let plan = SearchPlan::new(request, &mut |note| notes.push(note.to_string()))?;
    Ok((plan, notes))
}

/// Says the notes of [`plan`].
pub fn say_notes(notes: &[String], watcher: &dyn JobWatcher) {
    for note in notes {
        watcher.say(&format!("note: {note}"));
    }
}

/// Opens device `requested` (or `default_index`) of the plan's backend for its filter; a
/// device number on the CPU backend is refused rather than ignored.
pub fn attach_device<E: std::fmt::Display>(
    plan: &mut SearchPlan,
    requested: Option<usize>,
    default_index: usize,
    open: OpenDevice<E>,
) -> Result<(), JobError> {
    if plan.backend == Backend::Cpu && requested.is_some() {
        return Err(InputError::Usage("--device is for --backend opencl or cuda".into()).into());
    }
    let device =
        open(plan.backend, requested.unwrap_or(default_index)).map_err(|e| JobError::Device {
            backend: plan.backend.name(),
            reason: e.to_string(),
        })?;
    if let (Some(filter), Some(device)) = (plan.filter.as_mut(), device) {
        filter.device = Some(device);
    }
    Ok(())
}

/// `path` (the value of `flag`) opened for output, if given.
fn open_output(flag: &str, path: Option<&Path>) -> Result<Option<OutFile>, InputError> {
    path.map(|path| OutFile::create(flag, path)).transpose()
}

/// A single-process search: its plan, outputs and worker threads.
pub struct SearchJob {
    plan: SearchPlan,
    notes: Vec<String>,
    outputs: Outputs,
    pool: rayon::ThreadPool,
}

impl SearchJob {
    /// Plans `request`, checks `outputs` and starts `threads` workers (all cores by default),
    /// which start while the device opens. The search's jobs run on this pool: the filtered
    /// and reference searches start them from the thread that installs it.
    pub fn new(
        request: &SearchRequest,
        outputs: Outputs,
        threads: Option<usize>,
    ) -> Result<SearchJob, JobError> {
        let (plan, notes) = plan(request)?;
        outputs.check()?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.unwrap_or(0))
            .build()
            .map_err(JobError::Threads)?;
        Ok(SearchJob {
            plan,
            notes,
            outputs,
            pool,
        })
    }

    /// Attaches device `requested` (default 0) of the plan's backend ([`attach_device`]).
    pub fn attach_device<E: std::fmt::Display>(
        &mut self,
        requested: Option<usize>,
        open: OpenDevice<E>,
    ) -> Result<(), JobError> {
        attach_device(&mut self.plan, requested, 0, open)
    }

    /// `--plan`: the notes, then the pieces with their methods and projected times to `out`,
    /// and the total as a line.
    pub fn write_plan(
        &self,
        out: &mut dyn Write,
        watcher: &dyn JobWatcher,
    ) -> Result<(), JobError> {
        say_notes(&self.notes, watcher);
        let pieces = self.pool.install(|| plan_table::project(&self.plan))?;
        let threads = self.pool.current_num_threads();
        let total = plan_table::write(&self.plan, &pieces, self.outputs.json, threads, out)?;
        watcher.say(&total);
        Ok(())
    }

    /// Runs the search: its cases and range records go to `--out` or else to `stream`, in x
    /// order; the journal (`--resume`) is checkpointed as the listed prefix grows, and a
    /// resumed run lists the finished prefix again first.
    pub fn run(
        self,
        stream: Box<dyn Write + Send>,
        watcher: &dyn JobWatcher,
    ) -> Result<(), JobError> {
        let SearchJob {
            plan,
            notes,
            outputs,
            pool,
        } = self;
        // Every output exists, as a temporary file, before the work: one that cannot be
        // written costs nothing.
        let out_file = open_output("--out", outputs.out.as_deref())?;
        let stats_file = open_output("--stats", outputs.stats.as_deref())?;
        let (mut journal, recovered) = open_journal(&plan, outputs.resume.as_deref(), watcher)?;
        say_notes(&notes, watcher);
        let mut out = CaseSink::start(&plan, &outputs, out_file, stream)?;
        replay(&plan, &recovered, &mut out, outputs.resume.as_deref())?;
        let mut range = plan.range.clone();
        if let Some(next) = recovered.resume_from {
            range.start = next.max(range.start);
        }
        if recovered.resume_from.is_some() || recovered.complete {
            watcher.say(&format!(
                "resuming: {} inputs and {} cases already done",
                recovered.counts.inputs,
                recovered.cases.len()
            ));
        }
        let mut listed = JournaledListing::new(&mut out, &plan, journal.as_mut(), &recovered);
        let to_search = (!recovered.complete).then_some(&range);
        let (summary, stats) = pool.install(|| search(&plan, to_search, &mut listed, watcher))?;
        let ended = listed.end(&summary)?;
        out.finish()?;
        if let Some(journal) = journal.as_mut() {
            close_journal(journal, &recovered, &ended, plan.range.end)?;
        }
        let threads = pool.current_num_threads();
        let stats = (stats.as_ref(), stats_file);
        summary::report_end(&plan, &summary, &ended, threads, stats, watcher)?;
        Ok(())
    }
}

/// The journal of `--resume DIR` and what an earlier run left in it.
fn open_journal(
    plan: &SearchPlan,
    dir: Option<&Path>,
    watcher: &dyn JobWatcher,
) -> Result<(Option<Journal>, Recovered), JobError> {
    let Some(dir) = dir else {
        return Ok((None, Recovered::default()));
    };
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
    let (journal, recovered) = Journal::open(dir, &plan.fingerprint())?;
    watcher.journal_opened(dir);
    Ok((Some(journal), recovered))
}

/// Records the end of the search in its journal: the last cases and range records (unless an
/// earlier run had finished), then the counts of the range ending at ordinal `end`.
fn close_journal(
    journal: &mut Journal,
    recovered: &Recovered,
    ended: &Ended,
    end: i128,
) -> Result<(), JobError> {
    if !recovered.complete {
        journal
            .checkpoint_listed(&ended.cases, &ended.ranges, end, &ended.counts)
            .map_err(JobError::Journal)?;
    }
    journal.finish(&ended.counts).map_err(JobError::Journal)
}

/// Searches `range` (none: the journal holds the whole search) into `listed`, with the
/// progress shown while it runs.
fn search(
    plan: &SearchPlan,
    range: Option<&InputRange>,
    listed: &mut JournaledListing,
    watcher: &dyn JobWatcher,
) -> Result<(Summary, Option<FilterStats>), JobError> {
    let Some(range) = range else {
        return Ok((Summary::default(), None));
    };
    let progress = SearchProgress::new(range);
    let result = std::thread::scope(|scope| {
        scope.spawn(|| watcher.show_progress(&progress));
        if let (true, Some(filter)) = (watcher.wants_an_eta(), &plan.filter) {
            scope.spawn(|| progress.plan_in_background(plan, range, filter));
        }
        let result = if range.is_empty() {
            Ok((Summary::default(), None))
        } else {
            match &plan.filter {
                None => Ok((
                    reference_search_to(&plan.target, range, &plan.params, &progress.done, listed),
                    None,
                )),
                Some(filter) => {
                    let done = &progress.done;
                    filtered_search(&plan.target, range, &plan.params, filter, done, listed)
                        .map(|(s, st)| (s, Some(st)))
                }
            }
        };
        progress.finished.store(true, Ordering::Relaxed);
        result
    });
    result.map_err(|e| match e {
        FilterError::Device(d) => JobError::DeviceFailed(d),
        other => InputError::Usage(other.to_string()).into(),
    })
}
