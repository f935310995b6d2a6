//! The job of a search under mpirun, around the caller's message layer: every rank plans the
//! same request and attaches its own device; the root opens the segments journal (and the
//! finished prefix of a single-process journal in the same directory, which the run
//! continues) and tells the ranks where the segments start and which are finished; the ranks
//! search the rest (`crate::cluster::search_segment`); the root lists every case again
//! through MPFR in x order, through the single-process run's sink, with the counts.

use super::sink::CaseSink;
use super::{attach_device, say_notes, summary, JobError, JobWatcher, OpenDevice, Outputs};
use crate::cluster::{
    decide_items, merge_counts, Item, JournalPrefix, SegmentRecord, Segments, SegmentsJournal,
};
use crate::journal::{Journal, FILE_NAME as JOURNAL_FILE};
use crate::{SearchPlan, SearchRequest, Summary};
use std::io::Write;
use std::time::Instant;
use tmd_core::InputError;

/// The plan of one rank: `request` checked (the notes said on the root only) and device
/// `requested` (by default the rank's `local_rank`) attached.
pub fn plan_rank<E: std::fmt::Display>(
    request: &SearchRequest,
    outputs: &Outputs,
    (requested, local_rank): (Option<usize>, usize),
    open: OpenDevice<E>,
    root_watcher: Option<&dyn JobWatcher>,
) -> Result<SearchPlan, JobError> {
    let (mut plan, notes) = super::plan(request)?;
    if let Some(watcher) = root_watcher {
        say_notes(&notes, watcher);
    }
    attach_device(&mut plan, requested, local_rank, open)?;
    if outputs.stats.is_some() {
        return Err(InputError::Usage("--stats is not available under mpirun yet".into()).into());
    }
    Ok(plan)
}

/// The root's journals: the segments journal, and the finished prefix of a single-process
/// journal that the run continues (that journal held, with its lock, to the end).
pub struct RootJournals {
    pub segments: SegmentsJournal,
    prefix: Option<(Journal, JournalPrefix)>,
}

impl RootJournals {
    /// The journals of a run without `--resume`: in memory.
    pub fn in_memory() -> RootJournals {
        RootJournals {
            segments: SegmentsJournal::in_memory(),
            prefix: None,
        }
    }

    /// The journals in `--resume DIR`: the segments journal, and the finished prefix of a
    /// single-process journal (`journal.tmd`) that the directory holds, which this run
    /// continues: its segments start where the prefix ends, and its output lists the
    /// prefix's cases and counts with theirs.
    pub fn open(
        plan: &SearchPlan,
        outputs: &Outputs,
        watcher: &dyn JobWatcher,
    ) -> Result<RootJournals, JobError> {
        let Some(dir) = outputs.resume.as_deref() else {
            return Ok(RootJournals::in_memory());
        };
        let (start, end) = (plan.range.start, plan.range.end);
        let mut prefix = None;
        if dir.join(JOURNAL_FILE).exists() {
            let (journal, recovered) = Journal::open(dir, &plan.fingerprint())?;
            watcher.say(&format!(
                "resuming a single-process journal under mpirun: {} inputs and {} cases already done",
                recovered.counts.inputs,
                recovered.cases.len()
            ));
            prefix = Some((
                journal,
                JournalPrefix::from_recovered(&recovered, start, end),
            ));
        }
        let from = prefix.as_ref().map(|(_, p)| p.end);
        let segments = Segments::new(from.unwrap_or(start), end);
        let segments = SegmentsJournal::open(dir, &plan.fingerprint(), &segments, from)?;
        Ok(RootJournals { segments, prefix })
    }

    /// The message that starts the ranks: where the segments start, and which are finished.
    pub fn start_message(&self, plan: &SearchPlan) -> Vec<u8> {
        let start = self
            .prefix
            .as_ref()
            .map_or(plan.range.start, |(_, p)| p.end);
        serde_json::to_vec(&(start.to_string(), self.segments.finished()))
            .expect("a start message serialises")
    }

    /// The root's output: every case again through MPFR, written in x order to `--out` or
    /// else to `stream`, and the report of the counts. `searched` inputs were searched by
    /// this run, started at `started` on `threads` threads per rank.
    pub fn write_output(
        &self,
        plan: &SearchPlan,
        outputs: &Outputs,
        stream: Box<dyn Write + Send>,
        (started, searched, threads): (Instant, u64, usize),
        watcher: &dyn JobWatcher,
    ) -> Result<(), JobError> {
        let out_file = super::open_output("--out", outputs.out.as_deref())?;
        let mut out = CaseSink::start(plan, outputs, out_file, stream)?;
        let prefix = self.prefix.as_ref().map(|(_, p)| &p.record);
        let records: Vec<&SegmentRecord> =
            prefix.into_iter().chain(self.segments.records()).collect();
        for item in decide_items(plan, &records) {
            match item {
                Item::Case(case) => out.write(&case)?,
                Item::Range(r) => out.write_range(&r)?,
            }
        }
        out.finish()?;
        let total = Summary {
            counts: merge_counts(records.iter().copied()),
            elapsed: started.elapsed(),
        };
        summary::report(plan, &total, searched, threads, watcher);
        Ok(())
    }
}

/// The segments left to search, from the root's start message.
pub struct SegmentsLeft {
    pub segments: Segments,
    pub remaining: Vec<u64>,
}

/// Why a start message could not be read (a message of another version of tmd).
#[derive(Debug, thiserror::Error)]
pub enum StartMessageError {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error("the segments' start")]
    Start(#[source] std::num::ParseIntError),
}

impl SegmentsLeft {
    /// The segments of `plan`'s range from the start of [`RootJournals::start_message`], less
    /// the finished ones.
    pub fn from_message(
        plan: &SearchPlan,
        message: &[u8],
    ) -> Result<SegmentsLeft, StartMessageError> {
        let (start, finished): (String, std::collections::BTreeSet<u64>) =
            serde_json::from_slice(message)?;
        let start = start.parse().map_err(StartMessageError::Start)?;
        let segments = Segments::new(start, plan.range.end);
        let remaining = (0..segments.count())
            .filter(|i| !finished.contains(i))
            .collect();
        Ok(SegmentsLeft {
            segments,
            remaining,
        })
    }

    /// The inputs of the remaining segments (what the rate of this run is of).
    pub fn inputs(&self) -> u64 {
        self.remaining
            .iter()
            .map(|&i| {
                let (lo, hi) = self.segments.bounds(i);
                (hi - lo) as u64
            })
            .sum()
    }
}
